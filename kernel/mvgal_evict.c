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
 * write the range; nothing here waits while holding locks). Victims are
 * taken with mutex_trylock(): the caller holds its own buffers' locks
 * (so a session's buffers never evict each other), and a buffer someone
 * else holds locked is in use. So a request either finds room among
 * idle, unpinned placements or fails at once with -ENOSPC, and two
 * sessions can never take memory from each other in a loop: what a live
 * session uses stays.
 */
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
	if (p)
		list_move_tail(&p->lru, &p->gpu->lru);
}

/* What the LRU walk found about one placement. */
struct mvgal_victim {
	struct mvgal_place *p;	/* gone once evicted */
	struct mvgal_bo *bo;	/* locked by us */
};

/*
 * Can @p go now? Only with its buffer's lock, which is then held: no
 * session begins on it, and no fence is added, until we let go.
 */
static bool mvgal_victim_take(struct mvgal_place *p)
{
	struct mvgal_bo *bo = p->bo;
	unsigned int g = p->gpu->index;

	if (bo->flags & MVGAL_BO_PERSISTENT || bo->pinned & BIT(g) ||
	    READ_ONCE(bo->sessions_at[g]))
		return false;
	if (!mutex_trylock(&bo->lock))
		return false;
	if (!bo->sessions_at[g] &&
	    dma_resv_test_signaled(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		return true;
	mutex_unlock(&bo->lock);
	return false;
}

/*
 * Evicts placements from @gpu's pool until a range of @size fits below
 * its budget. Caller holds gpu_lock. Return: 0 (a later allocation of
 * @size fits), -ENOSPC (nothing evicted), -ENOMEM.
 */
static int mvgal_evict(struct mvgal_gpu *gpu, u64 size, u64 keep_ahead)
{
	struct mvgal_device *mdev = gpu->mdev;
	enum mvgal_evict_policy policy = READ_ONCE(mvgal_evict_policy) ==
		MVGAL_EVICT_POLICY_LRU ? MVGAL_EVICT_LRU : MVGAL_EVICT_PREDICT;
	struct mvgal_pool *pool = &gpu->pool;
	struct mvgal_evict_cand *cand;
	struct mvgal_victim *v;
	struct drm_mm_scan scan;
	struct mvgal_place *p;
	unsigned int n = 0, k = 0, i, added;
	bool found = false;
	int ret = 0;

	lockdep_assert_held(&mdev->gpu_lock);
	list_for_each_entry(p, &gpu->lru, lru)
		n++;
	if (!n)
		return -ENOSPC;
	cand = kvcalloc(n, sizeof(*cand), GFP_KERNEL);
	v = kvcalloc(n, sizeof(*v), GFP_KERNEL);
	if (!cand || !v) {
		ret = -ENOMEM;
		goto out_free;	/* k is 0: nothing locked */
	}
	list_for_each_entry(p, &gpu->lru, lru) {
		struct mvgal_reuse *r = &p->bo->reuse[gpu->index];
		u64 ahead = mvgal_reuse_ahead(r, mdev->clock);

		if (ahead <= keep_ahead || !mvgal_victim_take(p))
			continue;
		v[k] = (struct mvgal_victim){ .p = p, .bo = p->bo };
		cand[k] = (struct mvgal_evict_cand){
			.last = r->last,
			.ahead = ahead,
			.index = k,
		};
		k++;
	}
	mvgal_evict_order(cand, k, policy);

	/*
	 * drm_mm's eviction scan: blocks are added in the order they should
	 * leave, until together with the holes around them they free a
	 * range that fits; every block added must then come out again, in
	 * reverse order, and those that overlap the range are the victims.
	 * The mm must not change meanwhile: pool.lock is held throughout.
	 */
	mutex_lock(&pool->lock);
	drm_mm_scan_init_with_range(&scan, &pool->mm, PAGE_ALIGN(size),
				    PAGE_SIZE, 0, 0, pool->budget,
				    DRM_MM_INSERT_BEST);
	for (added = 0; added < k && !found; added++) {
		struct mvgal_place *x = v[cand[added].index].p;

		found = drm_mm_scan_add_block(&scan, &x->alloc.node);
	}
	for (i = added; i--;) {
		struct mvgal_victim *x = &v[cand[i].index];

		if (!drm_mm_scan_remove_block(&scan, &x->p->alloc.node) ||
		    !found)
			cand[i].index = n;	/* stays */
	}
	mutex_unlock(&pool->lock);

	for (i = 0; i < added && !ret; i++) {
		struct mvgal_victim *x;
		struct mvgal_bo *bo;
		u64 bytes, before;
		bool dying;

		if (cand[i].index == n)
			continue;
		x = &v[cand[i].index];
		bo = x->bo;
		bytes = x->p->alloc.node.size;
		/* A dying buffer's free waits for gpu_lock: nothing to keep. */
		dying = !kref_read(&bo->base.refcount);
		before = atomic64_read(&mdev->ctr.drained);
		ret = mvgal_place_drain(bo, gpu->index, dying);
		if (ret)
			break;
		/* Every drain runs under gpu_lock: the difference is ours. */
		gpu->written_back += atomic64_read(&mdev->ctr.drained) - before;
		gpu->evictions++;
		gpu->evicted_bytes += bytes;
	}
	if (!found)
		ret = -ENOSPC;

out_free:
	for (i = 0; i < k; i++)
		mutex_unlock(&v[i].bo->lock);
	kvfree(cand);
	kvfree(v);
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

/* One placement as POOL_LRU reports it. Caller holds gpu_lock. */
static void mvgal_lru_entry(struct mvgal_place *p,
			    const struct mvgal_evict_cand *c,
			    struct drm_mvgal_lru_entry *e)
{
	struct mvgal_bo *bo = p->bo;

	memset(e, 0, sizeof(*e));
	e->bo_id = bo->id;
	e->bytes = p->alloc.node.size;
	e->last_use = c->last;
	e->ahead = c->ahead;
	if (bo->flags & MVGAL_BO_PERSISTENT || bo->pinned & BIT(p->gpu->index))
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
	cand = kvcalloc(n ?: 1, sizeof(*cand), GFP_KERNEL);
	places = kvcalloc(n ?: 1, sizeof(*places), GFP_KERNEL);
	out = kvcalloc(min(n, room) ?: 1, sizeof(*out), GFP_KERNEL);
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
		mvgal_lru_entry(places[cand[i].index], &cand[i], &out[i]);
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
