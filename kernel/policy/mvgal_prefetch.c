// SPDX-License-Identifier: GPL-2.0
/*
 * Predictive prefetch.
 *
 * Each GPU records the order in which its sessions name buffers
 * (core/mvgal_predict.c: the successor of every buffer, and how many
 * times in a row it followed). After a BEGIN, once that order has
 * repeated, the next MVGAL_PREFETCH_DEPTH buffers it predicts are brought
 * into the GPU's pool by jobs of the lowest priority, from a work item,
 * so BEGIN itself does no more than note the request. A prefetch evicts
 * only placements predicted to be used after the buffer it brings, never
 * PERSISTENT or live ones; without such room it is cancelled. Prefetched
 * placements a session then uses are hits; those evicted or freed before
 * any session used them are misses (GET_STATS).
 */

#include <linux/bitmap.h>
#include <linux/slab.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_evict.h"
#include "core/mvgal_predict.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_coherence.h"
#include "bo/mvgal_live.h"
#include "move/mvgal_place.h"
#include "move/mvgal_xact.h"
#include "policy/mvgal_prefetch.h"

/*
 * A session of @gpu used @bo at @loc: a hit if it used the copy a
 * prefetch brought into the GPU's pool. @bo's lock held.
 */
static void mvgal_prefetch_hit(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
			       unsigned int loc)
{
	struct mvgal_place *p = bo->pools.place[gpu->index];

	if (!p || !p->prefetched || loc != 1 + gpu->index)
		return;
	p->prefetched = false;
	atomic64_inc(&gpu->mdev->ctr.prefetch_hits);
}

/**
 * mvgal_prefetch_access() - @gpu's session named @bo
 * @gpu: the GPU, which the session keeps attached
 * @bo: the buffer; caller holds its lock
 * @loc: the location whose copy the session uses
 * @last: the session's last buffer: predict from it and ask for the
 *	  buffers that come next
 */
void mvgal_prefetch_access(struct mvgal_gpu *gpu, struct mvgal_bo *bo,
			   unsigned int loc, bool last)
{
	struct mvgal_device *mdev = gpu->mdev;
	u64 next[MVGAL_PREFETCH_DEPTH];
	unsigned int n, i;

	lockdep_assert_held(&bo->lock);
	mvgal_prefetch_hit(bo, gpu, loc);
	if (!gpu->pred)
		return;
	spin_lock(&mdev->prefetch_lock);
	mvgal_predict_access(gpu->pred, bo->id);
	/* Confidence 1: the order was seen twice in a row. */
	n = last && READ_ONCE(mvgal_prefetch) ?
	    mvgal_predict_next(gpu->pred, bo->id, 1, next, ARRAY_SIZE(next)) :
	    0;
	for (i = 0; i < MVGAL_PREFETCH_DEPTH && n; i++)
		mdev->prefetch_want[gpu->index][i] = i < n ? next[i] : 0;
	spin_unlock(&mdev->prefetch_lock);
	if (n)
		queue_work(mdev->free_wq, &mdev->prefetch_work);
}

/* Does @loc lack a chunk of [first, last] that a prefetch would copy? */
static bool mvgal_prefetch_lacks(struct mvgal_bo *bo, unsigned long first,
				 unsigned long last, unsigned int loc)
{
	unsigned long c;

	/* Refused chunks are never prefetched (mvgal_migrate_plan()). */
	for (c = mvgal_next_missing(bo, first, last, loc); c <= last;
	     c = mvgal_next_missing(bo, c + 1, last, loc))
		if (!bo->watch.nrefused || !mvgal_cbit_test(bo, MVGAL_CB_REFUSED, c))
			return true;
	return false;
}

/*
 * Is every chunk a prefetch of @bo would bring held at @loc? With @x
 * (a transaction on @bo), plans the copies of those it lacks too.
 */
static int mvgal_prefetch_plan(struct mvgal_xact *x, struct mvgal_bo *bo,
			       unsigned int loc, bool *held)
{
	unsigned long last = bo->nchunks - 1, s, e;
	int ret;

	*held = true;
	/* No session sampled yet (mvgal_policy_begun()): all of it. */
	if (!bo->policy.begins) {
		*held = !mvgal_prefetch_lacks(bo, 0, last, loc);
		return x ? mvgal_xact_plan(x, 0, last, loc) : 0;
	}
	for (e = 0; mvgal_cbit_next_run(bo, MVGAL_CB_TOUCHED, e, &s, &e);) {
		if (mvgal_prefetch_lacks(bo, s, e - 1, loc))
			*held = false;
		if (x) {
			ret = mvgal_xact_plan(x, s, e - 1, loc);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Plans and starts the prefetch of the transaction's buffer into GPU
 * @g's pool. A placement made for a job that then copies nothing goes
 * again.
 *
 * Return: 1 with the job queued, 0 with nothing to do (resident
 * already), or -errno: the prefetch is cancelled. The caller ends or
 * aborts the transaction.
 */
static int mvgal_prefetch_locked(struct mvgal_xact *x, unsigned int g,
				 u64 ahead)
{
	struct mvgal_bo *bo = x->bo;
	u64 soon, now;
	bool held;
	int ret;

	/* Resident already: nothing to do, nothing to count. */
	mvgal_prefetch_plan(NULL, bo, 1 + g, &held);
	if (held)
		return 0;
	/* A writer is live: what would be copied is about to change. */
	if (mvgal_live_conflict(bo, 0, bo->nchunks - 1, false))
		return -EBUSY;
	/* Keep what is needed before this buffer: its own predicted next
	 * use when it has a period, else its place in the predicted order.
	 */
	now = atomic64_read(&x->mdev->clock);
	soon = mvgal_reuse_ahead(&bo->pools.reuse[g], now);
	if (soon != MVGAL_REUSE_NEVER)
		ahead = soon;
	ret = mvgal_xact_place(x, g, ahead);
	if (!ret)
		ret = mvgal_xact_wait(x, NULL, false, 0, bo->nchunks - 1);
	if (!ret)
		ret = mvgal_prefetch_plan(x, bo, 1 + g, &held);
	if (!ret && !mvgal_xact_empty(x))
		ret = mvgal_xact_commit(x, NULL, NULL) ?: 1;
	return ret;
}

/*
 * Brings @bo into GPU @g's pool at the lowest priority: the chunks its
 * sampled sessions touched, or all of it without a sample (never refused
 * chunks). @ahead: in how many uses it is needed.
 */
static void mvgal_prefetch_one(struct mvgal_device *mdev, unsigned int g,
			       struct mvgal_bo *bo, u64 ahead)
{
	struct mvgal_xact x;
	int ret;

	/* Only where its sessions could have gone (advice names any GPU). */
	if (mvgal_bo_gpu_may_use(bo, g))
		return;
	if (mvgal_xact_begin(&x, mdev, bo, BIT(g), MVGAL_PRIO_LOW, NULL))
		return;
	ret = bo->home == x.gpu[g] ? 0 : mvgal_prefetch_locked(&x, g, ahead);
	if (ret <= 0) {
		if (ret < 0)
			atomic64_inc(&mdev->ctr.prefetch_cancelled);
		mvgal_xact_abort(&x);
		return;
	}
	/* The copies went into a placement: the job is not empty. */
	if (!bo->pools.place[g]->prefetched)
		atomic64_inc(&mdev->ctr.prefetch_issued);
	bo->pools.place[g]->prefetched = true;
	mvgal_xact_end(&x);
}

/*
 * Buffer @id is gone: GPU @g's predictor drops it (its slot and the edges
 * to it), rather than predict it until the slot is reused.
 */
static void mvgal_prefetch_forget(struct mvgal_device *mdev, unsigned int g,
				  u64 id)
{
	down_read(&mdev->gpu_lock);
	spin_lock(&mdev->prefetch_lock);
	if (mdev->gpus[g] && mdev->gpus[g]->pred)
		mvgal_predict_forget(mdev->gpus[g]->pred, id);
	spin_unlock(&mdev->prefetch_lock);
	up_read(&mdev->gpu_lock);
}

static void mvgal_prefetch_work(struct work_struct *work)
{
	struct mvgal_device *mdev = container_of(work, struct mvgal_device,
						 prefetch_work);
	u64 want[MVGAL_MAX_GPUS][MVGAL_PREFETCH_DEPTH];
	unsigned int g, d;

	spin_lock(&mdev->prefetch_lock);
	memcpy(want, mdev->prefetch_want, sizeof(want));
	memset(mdev->prefetch_want, 0, sizeof(mdev->prefetch_want));
	spin_unlock(&mdev->prefetch_lock);
	if (!READ_ONCE(mvgal_enable_memory_migration))
		return;
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		for (d = 0; d < MVGAL_PREFETCH_DEPTH && want[g][d]; d++) {
			struct mvgal_bo *bo = mvgal_bo_by_id(mdev, want[g][d]);

			if (!bo) {
				mvgal_prefetch_forget(mdev, g, want[g][d]);
				continue;
			}
			mvgal_prefetch_one(mdev, g, bo, d + 1);
			drm_gem_object_put(&bo->base);
		}
	}
}

void mvgal_prefetch_init(struct mvgal_device *mdev)
{
	spin_lock_init(&mdev->prefetch_lock);
	INIT_WORK(&mdev->prefetch_work, mvgal_prefetch_work);
}
