// SPDX-License-Identifier: GPL-2.0
/*
 * Pool budgets and eviction.
 *
 * Each GPU keeps its placements on an LRU list and every buffer keeps,
 * per GPU, when it was used and how often its uses come round
 * (core/mvgal_evict.c). When a range does not fit below the pool's
 * budget, the evictable placements are ranked, first to go first, and
 * drm_mm's eviction scan picks, in that order, the fewest that free a
 * hole large enough; only then is anything evicted. Evicting is what
 * PLACE_FREE does: the chunks only the pool holds are copied home, then
 * the range goes back.
 *
 * Never evicted: PERSISTENT buffers, placements a live session uses, and
 * placements whose buffer has unsignaled fences (work may still read or
 * write the range; nothing here waits while holding locks), and pinned
 * ones (ADVISE). Victims are taken with mutex_trylock(): the caller holds
 * its own buffers' locks (so a session's buffers never evict each other),
 * and a buffer someone else holds locked is in use. So a request either
 * finds room among idle, unpinned placements or fails at once with
 * -ENOSPC, and two sessions can never take memory from each other in a
 * loop: what a live session uses stays.
 */
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_mm.h>

#include "mvgal_bo.h"

/**
 * mvgal_place_touch() - a use of @bo by @gpu, through location @loc
 * @bo: the buffer
 * @gpu: the GPU of the session or the migration's destination
 * @loc: the location whose copy is used (a placement moves to the tail
 *	 of its pool's LRU list)
 *
 * Caller holds gpu_lock.
 */
void mvgal_place_touch(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
		       unsigned int loc)
{
	struct mvgal_device *mdev = gpu->mdev;
	struct mvgal_place *p;

	lockdep_assert_held(&mdev->gpu_lock);
	mvgal_reuse_touch(&bo->reuse[gpu->index], ++mdev->clock);
	if (loc == MVGAL_LOC_HOST || loc > MVGAL_MAX_GPUS)
		return;
	p = bo->place[loc - 1];
	if (!p)
		return;
	list_move_tail(&p->lru, &p->gpu->lru);
	/* A peer's placement used in place: its own record of use too, by
	 * which its pool ranks it.
	 */
	if (p->gpu != gpu)
		mvgal_reuse_touch(&bo->reuse[p->gpu->index], mdev->clock);
}

/* Evictable by rank? (Its lock and fences are checked once chosen.) */
static bool mvgal_victim_may(struct mvgal_place *p)
{
	struct mvgal_bo *bo = p->bo;
	unsigned int g = p->gpu->index;

	return !(bo->flags & MVGAL_BO_PERSISTENT) && !(bo->pinned & BIT(g)) &&
	       !bo->exported[g] && !READ_ONCE(bo->sessions_at[g]);
}

/*
 * Takes a chosen victim: a reference, so that the buffer outlives its
 * last placement going, its lock (tried: the caller holds its own
 * buffers' locks, and a buffer locked elsewhere is in use), no live
 * session at the GPU and every fence signaled (no job reads or writes the
 * range). A buffer that had a placement is always freed from a work item
 * that takes gpu_lock first (mvgal_bo_free()), so a dying one (no
 * reference left, *@ref false) stays whole while the caller holds
 * gpu_lock: it is taken too, and drained without its bytes.
 */
static bool mvgal_victim_lock(struct mvgal_place *p, bool *ref)
{
	struct mvgal_bo *bo = p->bo;

	if (!mutex_trylock(&bo->lock))
		return false;
	if (bo->sessions_at[p->gpu->index] ||
	    !dma_resv_test_signaled(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP)) {
		mutex_unlock(&bo->lock);
		return false;
	}
	*ref = kref_get_unless_zero(&bo->base.refcount);
	return true;
}

/*
 * Lets a victim go. Dropping what may be its last reference is safe with
 * the caller's locks held: the free runs from the work item, never here.
 */
static void mvgal_victim_unlock(struct mvgal_bo *bo, bool ref)
{
	mutex_unlock(&bo->lock);
	if (ref)
		drm_gem_object_put(&bo->base);
}

/*
 * One pass of drm_mm's eviction scan over the candidates in their order,
 * skipping those in @skip: blocks are added until, with the holes around
 * them, they free a range of @size below the budget; every block added
 * must then come out again, in reverse order, and those that overlap the
 * range are the victims (@victim). The mm must not change meanwhile:
 * pool.lock is held throughout. Return: whether a range was found.
 */
static bool mvgal_evict_scan(struct mvgal_gpu *gpu, u64 size,
			     struct mvgal_evict_cand *cand,
			     struct mvgal_place **places, unsigned int k,
			     const unsigned long *skip, unsigned long *victim)
{
	struct mvgal_pool *pool = &gpu->pool;
	struct drm_mm_scan scan;
	unsigned int j, last = 0;
	bool found = false;

	bitmap_zero(victim, k);
	mutex_lock(&pool->lock);
	drm_mm_scan_init_with_range(&scan, &pool->mm, PAGE_ALIGN(size),
				    PAGE_SIZE, 0, 0, pool->budget,
				    DRM_MM_INSERT_BEST);
	for (j = 0; j < k && !found; j++) {
		if (test_bit(j, skip))
			continue;
		found = drm_mm_scan_add_block(&scan,
					      &places[cand[j].index]->alloc.node);
		last = j + 1;
	}
	for (j = last; j--;) {
		if (test_bit(j, skip))
			continue;
		if (drm_mm_scan_remove_block(&scan,
					     &places[cand[j].index]->alloc.node) &&
		    found)
			__set_bit(j, victim);
	}
	mutex_unlock(&pool->lock);
	return found;
}

/*
 * Evicts placements from @gpu's pool until a range of @size fits below
 * its budget. The evictable placements are ranked without any buffer
 * lock (gpu_lock keeps them and their records still), the scan picks the
 * fewest that make room, and only those are locked; one that cannot be
 * taken is left out and the scan runs again. Caller holds gpu_lock.
 * Return: 0 (a later allocation of @size fits), -ENOSPC (nothing was
 * evicted), -ENOMEM (possibly after some victims went: their bytes are
 * home, nothing is lost).
 */
static int mvgal_evict(struct mvgal_gpu *gpu, u64 size, u64 keep_ahead)
{
	struct mvgal_device *mdev = gpu->mdev;
	enum mvgal_evict_policy policy = READ_ONCE(mvgal_evict_policy) ==
		MVGAL_EVICT_POLICY_LRU ? MVGAL_EVICT_LRU : MVGAL_EVICT_PREDICT;
	unsigned long *skip = NULL, *victim = NULL;
	struct mvgal_evict_cand *cand = NULL;
	struct mvgal_place *p, **places = NULL;
	unsigned int n = 0, k = 0, j;
	bool *ref = NULL;
	int ret = -ENOSPC;

	lockdep_assert_held(&mdev->gpu_lock);
	if (PAGE_ALIGN(size) > READ_ONCE(gpu->pool.budget))
		return -ENOSPC;
	list_for_each_entry(p, &gpu->lru, lru)
		n++;
	if (!n)
		return -ENOSPC;
	cand = kvcalloc(n, sizeof(*cand), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	places = kvcalloc(n, sizeof(*places), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	ref = kvcalloc(n, sizeof(*ref), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	skip = bitmap_zalloc(n, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	victim = bitmap_zalloc(n, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!cand || !places || !ref || !skip || !victim) {
		ret = -ENOMEM;
		goto out_free;
	}
	list_for_each_entry(p, &gpu->lru, lru) {
		struct mvgal_reuse *r = &p->bo->reuse[gpu->index];
		u64 ahead = mvgal_reuse_ahead(r, mdev->clock);

		if (ahead <= keep_ahead || !mvgal_victim_may(p))
			continue;
		places[k] = p;
		cand[k] = (struct mvgal_evict_cand){
			.last = r->last, .ahead = ahead, .index = k,
		};
		k++;
	}
	mvgal_evict_order(cand, k, policy);

	while (mvgal_evict_scan(gpu, size, cand, places, k, skip, victim)) {
		bool all = true;

		for_each_set_bit(j, victim, k) {
			if (!mvgal_victim_lock(places[cand[j].index], &ref[j])) {
				__set_bit(j, skip);
				__clear_bit(j, victim);
				all = false;
			}
		}
		if (all) {
			ret = 0;
			break;
		}
		/* One could not be taken: let go and scan without it. */
		for_each_set_bit(j, victim, k)
			mvgal_victim_unlock(places[cand[j].index]->bo, ref[j]);
	}
	if (ret)
		goto out_free;

	for_each_set_bit(j, victim, k) {
		struct mvgal_place *x = places[cand[j].index];
		struct mvgal_bo *bo = x->bo;
		u64 bytes = x->alloc.node.size, before;

		if (!ret) {
			before = atomic64_read(&mdev->ctr.drained);
			ret = mvgal_place_drain(bo, gpu->index, !ref[j]);
			if (!ret) {
				/* Drains run under gpu_lock: the difference is
				 * this one's.
				 */
				gpu->written_back +=
					atomic64_read(&mdev->ctr.drained) - before;
				gpu->evictions++;
				gpu->evicted_bytes += bytes;
			}
		}
		mvgal_victim_unlock(bo, ref[j]);
	}

out_free:
	bitmap_free(victim);
	bitmap_free(skip);
	kvfree(ref);
	kvfree(places);
	kvfree(cand);
	return ret;
}

/**
 * mvgal_pool_alloc_evict() - mvgal_pool_alloc(), evicting for room
 * @gpu: the GPU; caller holds gpu_lock, and the locks of every buffer
 *	 that must not lose its placement (they cannot be taken)
 * @a: the allocation
 * @size: bytes
 * @keep_ahead: placements predicted to be used within this many ticks
 *		stay (0: any evictable placement may go)
 *
 * Return: 0, -ENOSPC (no room even without every evictable placement;
 * nothing was evicted), -ENOMEM.
 */
int mvgal_pool_alloc_evict(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a,
			   u64 size, u64 keep_ahead)
{
	int ret;

	lockdep_assert_held(&gpu->mdev->gpu_lock);
	ret = mvgal_pool_alloc(gpu, a, size);
	if (ret != -ENOSPC)
		return ret;
	ret = mvgal_evict(gpu, size, keep_ahead);
	if (!ret)
		ret = mvgal_pool_alloc(gpu, a, size);
	if (ret == -ENOSPC && !keep_ahead)
		gpu->refusals++;
	return ret;
}

int mvgal_ioctl_gpu_budget(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_gpu_budget *args = data;
	struct mvgal_gpu *gpu;
	u64 budget = args->budget;
	int ret = 0;

	if (args->flags & ~MVGAL_BUDGET_FLAGS ||
	    (!(args->flags & MVGAL_BUDGET_SET) && budget) ||
	    !PAGE_ALIGNED(budget) || args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	if (args->flags & MVGAL_BUDGET_SET && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, args->gpu, &ret);
	if (!gpu)
		goto out_unlock;
	if (budget > gpu->pool.size) {
		ret = -EINVAL;
		goto out_unlock;
	}
	mutex_lock(&gpu->pool.lock);
	args->budget = gpu->pool.budget;
	args->size = gpu->pool.size;
	if (args->flags & MVGAL_BUDGET_SET)
		gpu->pool.budget = budget ?: gpu->pool.size;
	mutex_unlock(&gpu->pool.lock);
out_unlock:
	mutex_unlock(&mdev->gpu_lock);
	return ret;
}

/*
 * One placement as POOL_LRU reports it; a buffer of another user is
 * anonymous unless @all. Caller holds gpu_lock.
 */
static void mvgal_lru_entry(struct mvgal_place *p,
			    const struct mvgal_evict_cand *c,
			    struct drm_mvgal_lru_entry *e, bool all)
{
	struct mvgal_bo *bo = p->bo;

	memset(e, 0, sizeof(*e));
	if (all || uid_eq(bo->uid, current_uid()))
		e->bo_id = bo->id;
	e->bytes = p->alloc.node.size;
	e->last_use = c->last;
	e->ahead = c->ahead;
	if (bo->flags & MVGAL_BO_PERSISTENT || bo->pinned & BIT(p->gpu->index) ||
	    bo->exported[p->gpu->index])
		e->flags |= MVGAL_LRU_PERSISTENT;
	if (READ_ONCE(bo->sessions_at[p->gpu->index]))
		e->flags |= MVGAL_LRU_LIVE;
	if (!dma_resv_test_signaled(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		e->flags |= MVGAL_LRU_BUSY;
}

int mvgal_ioctl_pool_lru(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_pool_lru *args = data;
	struct drm_mvgal_lru_entry *out = NULL;
	enum mvgal_evict_policy policy;
	struct mvgal_evict_cand *cand = NULL;
	struct mvgal_place *p, **places = NULL;
	unsigned int n = 0, i, room = args->count;
	bool all = capable(CAP_SYS_ADMIN);
	u64 largest, allocs;
	struct mvgal_gpu *gpu;
	int ret = 0;

	if (args->flags || (room && !args->entries))
		return -EINVAL;
	mutex_lock(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, args->gpu, &ret);
	if (!gpu)
		goto out_unlock;
	args->policy = READ_ONCE(mvgal_evict_policy);
	policy = args->policy == MVGAL_EVICT_POLICY_LRU ? MVGAL_EVICT_LRU :
		 MVGAL_EVICT_PREDICT;
	list_for_each_entry(p, &gpu->lru, lru)
		n++;
	cand = kvcalloc(n ?: 1, sizeof(*cand), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	places = kvcalloc(n ?: 1, sizeof(*places), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	out = kvcalloc(min(n, room) ?: 1, sizeof(*out), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!cand || !places || !out) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	i = 0;
	list_for_each_entry(p, &gpu->lru, lru) {
		struct mvgal_reuse *r = &p->bo->reuse[gpu->index];

		places[i] = p;
		cand[i] = (struct mvgal_evict_cand){
			.last = r->last,
			.ahead = mvgal_reuse_ahead(r, mdev->clock),
			.index = i,
		};
		i++;
	}
	mvgal_evict_order(cand, n, policy);
	for (i = 0; i < min(n, room); i++)
		mvgal_lru_entry(places[cand[i].index], &cand[i], &out[i], all);
	args->count = n;
	args->clock = mdev->clock;
	args->evictions = gpu->evictions;
	args->evicted_bytes = gpu->evicted_bytes;
	args->written_back = gpu->written_back;
	args->refusals = gpu->refusals;
	mvgal_pool_usage(&gpu->pool, &args->used, &largest, &allocs);
	args->budget = READ_ONCE(gpu->pool.budget);
out_unlock:
	mutex_unlock(&mdev->gpu_lock);
	/* Copied out with no lock held: the array may fault. */
	if (!ret && min(n, room) &&
	    copy_to_user(u64_to_user_ptr(args->entries), out,
			 array_size(min(n, room), sizeof(*out))))
		ret = -EFAULT;
	kvfree(out);
	kvfree(places);
	kvfree(cand);
	return ret;
}
