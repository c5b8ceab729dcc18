// SPDX-License-Identifier: GPL-2.0
/*
 * GPU_BUDGET and POOL_LRU: a pool's budget and its eviction order.
 */

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_mm.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_evict.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_pool.h"
#include "bo/mvgal_bo.h"
#include "uapi/mvgal_pool_ioctl.h"
#include "uapi/mvgal_uapi_array.h"

static_assert(sizeof(struct drm_mvgal_lru_entry) >= MVGAL_LRU_ENTRY_SIZE_V1);

int mvgal_ioctl_gpu_budget(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_gpu_budget *args = data;
	struct mvgal_gpu *gpu;
	bool set = args->flags & MVGAL_BUDGET_SET;
	/* A read ignores the budget it is sent: only a write uses it. */
	u64 budget = set ? args->budget : 0;
	int ret = 0;

	if (args->flags & ~MVGAL_BUDGET_FLAGS || !PAGE_ALIGNED(budget) ||
	    args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	if (set && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	down_read(&mdev->gpu_lock);
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
	if (set)
		gpu->pool.budget = budget ?: gpu->pool.size;
	mutex_unlock(&gpu->pool.lock);
out_unlock:
	up_read(&mdev->gpu_lock);
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
	if (bo->flags & MVGAL_BO_PERSISTENT || p->pinned ||
	    atomic_read(&bo->pools.exported[p->gpu->index]))
		e->flags |= MVGAL_LRU_PERSISTENT;
	if (READ_ONCE(bo->sessions_at[p->gpu->index]))
		e->flags |= MVGAL_LRU_LIVE;
	if (!dma_resv_test_signaled(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		e->flags |= MVGAL_LRU_BUSY;
}

/*
 * Every placement in @gpu's pool into @places, in the order eviction
 * under @policy (MVGAL_EVICT_POLICY_*) would take them, as @cand says.
 * Caller holds the GPU's lru_lock.
 */
static void mvgal_lru_rank(struct mvgal_gpu *gpu, u32 policy,
			   struct mvgal_evict_cand *cand,
			   struct mvgal_place **places)
{
	u64 now = atomic64_read(&gpu->mdev->clock);
	struct mvgal_place *p;
	unsigned int i = 0;

	list_for_each_entry(p, &gpu->lru, lru) {
		struct mvgal_reuse *r = &p->bo->pools.reuse[gpu->index];

		places[i] = p;
		cand[i] = (struct mvgal_evict_cand){
			.last = r->last,
			.ahead = mvgal_reuse_ahead(r, now),
			.index = i,
		};
		i++;
	}
	mvgal_evict_order(cand, i, policy == MVGAL_EVICT_POLICY_LRU ?
			  MVGAL_EVICT_LRU : MVGAL_EVICT_PREDICT);
}

/* The pool's eviction figures and use. Caller holds the GPU's lru_lock. */
static void mvgal_lru_stats(struct mvgal_gpu *gpu,
			    struct drm_mvgal_pool_lru *args)
{
	u64 largest, allocs;

	args->clock = atomic64_read(&gpu->mdev->clock);
	args->evictions = gpu->evictions;
	args->evicted_bytes = gpu->evicted_bytes;
	args->written_back = gpu->written_back;
	args->refusals = gpu->refusals;
	mvgal_pool_usage(&gpu->pool, &args->used, &largest, &allocs);
	args->budget = READ_ONCE(gpu->pool.budget);
}

int mvgal_ioctl_pool_lru(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_pool_lru *args = data, in = *args;
	struct drm_mvgal_lru_entry *out = NULL;
	struct mvgal_evict_cand *cand = NULL;
	struct mvgal_place *p, **places = NULL;
	unsigned int n = 0, i, room = args->count;
	bool all = capable(CAP_SYS_ADMIN);
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN;
	struct mvgal_uarray ua;
	struct mvgal_gpu *gpu;
	int ret = 0;

	if (args->flags || args->pad || (room && !args->entries))
		return -EINVAL;
	ret = mvgal_uarray_init(&ua, args->entries, room, args->stride,
				MVGAL_LRU_ENTRY_SIZE_V1, sizeof(*out));
	if (ret)
		return ret;
	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, args->gpu, &ret);
	if (!gpu)
		goto out_unlock;
	args->policy = READ_ONCE(mvgal_evict_policy);
	mutex_lock(&gpu->lru_lock);
	list_for_each_entry(p, &gpu->lru, lru)
		n++;
	cand = kvcalloc(n ?: 1, sizeof(*cand), gfp);
	places = kvcalloc(n ?: 1, sizeof(*places), gfp);
	out = kvcalloc(min(n, room) ?: 1, sizeof(*out), gfp);
	if (!cand || !places || !out) {
		ret = -ENOMEM;
		goto out_lru;
	}
	mvgal_lru_rank(gpu, args->policy, cand, places);
	for (i = 0; i < min(n, room); i++)
		mvgal_lru_entry(places[cand[i].index], &cand[i], &out[i], all);
	args->count = n;
	mvgal_lru_stats(gpu, args);
out_lru:
	mutex_unlock(&gpu->lru_lock);
out_unlock:
	up_read(&mdev->gpu_lock);
	/* Copied out with no lock held: the array may fault. */
	if (!ret && (!mvgal_uarray_writable(&ua, min(n, room)) ||
		     mvgal_uarray_copy_out(&ua, out, min(n, room))))
		ret = -EFAULT;
	/* drm_ioctl() copies the struct back even on failure: as it was. */
	if (ret)
		*args = in;
	kvfree(out);
	kvfree(places);
	kvfree(cand);
	return ret;
}
