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
#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "bo/mvgal_bo.h"
#include "move/mvgal_gem.h"
#include "move/mvgal_place.h"

static bool mvgal_bo_has_places(struct mvgal_bo *bo)
{
	unsigned int i;

	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (bo->place[i])
			return true;
	return false;
}

/*
 * The deferred end of a buffer that still had fences or placements:
 * destroying waits for its fences, and giving placements back needs
 * gpu_lock, which the final reference may have been dropped under.
 */
static void mvgal_bo_free_work(struct work_struct *work)
{
	struct mvgal_bo *bo = container_of(work, struct mvgal_bo, free_work);
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	unsigned int i;

	dma_resv_wait_timeout(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);
	mutex_lock(&mdev->gpu_lock);
	mutex_lock(&bo->lock);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (bo->place[i])
			mvgal_place_drain(bo, i, true);
	mutex_unlock(&bo->lock);
	mutex_unlock(&mdev->gpu_lock);
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
	 * and an import's reservation) waits for the work item, which takes
	 * gpu_lock first.
	 */
	if (READ_ONCE(bo->ever_placed) || mvgal_bo_has_places(bo) ||
	    !dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP)) {
		INIT_WORK(&bo->free_work, mvgal_bo_free_work);
		queue_work(mdev->free_wq, &bo->free_work);
		return;
	}
	mvgal_bo_release(bo);
}
