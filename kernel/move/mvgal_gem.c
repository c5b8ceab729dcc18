// SPDX-License-Identifier: GPL-2.0
/*
 * The free of a buffer (its GEM .free): placements are drained from a
 * work item once the buffer's fences have signaled.
 */

#include <linux/cred.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>
#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_userptr.h"
#include "move/mvgal_gem.h"
#include "move/mvgal_place.h"

static bool mvgal_bo_has_places(struct mvgal_bo *bo)
{
	unsigned int i;

	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (bo->pools.place[i])
			return true;
	return false;
}

/*
 * The deferred end of a buffer that still had fences or placements:
 * destroying waits for its fences, and giving placements back takes the
 * buffer's lock and the pools' LRU locks, which the final reference may
 * have been dropped under. An eviction may have taken it as a dying
 * victim meanwhile: the end waits until each has let its lock go. A
 * mirrored registration's notifier is removed here too: its removal
 * waits for invalidations in progress, which the last reference may go
 * in the middle of.
 */
static void mvgal_bo_free_work(struct work_struct *work)
{
	struct mvgal_bo *bo = container_of(work, struct mvgal_bo, free_work);
	unsigned int i;

	dma_resv_wait_timeout(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);
	mutex_lock(&bo->lock);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (bo->pools.place[i])
			mvgal_place_drain(bo, i, true);
	mutex_unlock(&bo->lock);
	wait_var_event(&bo->pools.victim_holds, !atomic_read(&bo->pools.victim_holds));
	mvgal_bo_release(bo);
}

void mvgal_bo_free(struct drm_gem_object *obj)
{
	struct mvgal_bo *bo = to_mvgal_bo(obj);
	struct mvgal_device *mdev = to_mvgal(obj->dev);

	/*
	 * A buffer that ever had a placement may lose its last reference
	 * where eviction lets it go, with other buffers' locks held, and may
	 * be drained as a victim while dying: its end (which takes bos_lock,
	 * and an import's reservation) waits for the work item. Registered
	 * memory's range is free for a new registration at once.
	 */
	if (bo->userptr)
		mvgal_userptr_unclaim(bo);
	if (READ_ONCE(bo->pools.ever_placed) || mvgal_bo_has_places(bo) ||
	    mvgal_userptr_mirrored(bo) ||
	    !dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP)) {
		INIT_WORK(&bo->free_work, mvgal_bo_free_work);
		queue_work(mdev->free_wq, &bo->free_work);
		return;
	}
	mvgal_bo_release(bo);
}
