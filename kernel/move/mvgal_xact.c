// SPDX-License-Identifier: GPL-2.0
/*
 * Locking a buffer for planning copies: its reservation, a fence slot
 * and its lock, with the CPU's pending writes taken in.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/sync_file.h>

#include <drm/drm_file.h>

#include "bo/mvgal_bo.h"
#include "bo/mvgal_cpuwrite.h"
#include "move/mvgal_xact.h"

/**
 * mvgal_bo_lock_copies() - take the locks under which copies of @bo are
 * planned and published: its reservation, with a fence slot reserved,
 * then its lock; the CPU's mapped writes are folded in
 * @bo: the buffer; caller may hold gpu_lock
 *
 * Return: 0, or -errno (-ERESTARTSYS, -ENOMEM) with nothing held.
 */
int mvgal_bo_lock_copies(struct mvgal_bo *bo)
{
	int ret;

	ret = dma_resv_lock_interruptible(bo->base.resv, NULL);
	if (ret)
		return ret;
	ret = dma_resv_reserve_fences(bo->base.resv, 1);
	if (ret) {
		dma_resv_unlock(bo->base.resv);
		return ret;
	}
	mutex_lock(&bo->lock);
	mvgal_watch_fold(bo);
	return 0;
}

void mvgal_bo_unlock_copies(struct mvgal_bo *bo)
{
	mutex_unlock(&bo->lock);
	dma_resv_unlock(bo->base.resv);
}
