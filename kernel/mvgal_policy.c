// SPDX-License-Identifier: GPL-2.0
/*
 * Placement policy: replication (REPLICATE, REPLICATED buffers and
 * read-mostly ranges), the mirror controller, and placement advice with
 * the MVGAL document's rules (ADVISE).
 *
 * A replica is an ordinary placement holding chunks SHARED with their
 * other holders: the chunk states already make every write (a WRITE
 * session's END, a CPU write folded in, a copy into the buffer) the only
 * holder, so nothing here invalidates. What policy decides is whether a
 * READ session copies into its GPU's own pool (a replica) or uses a
 * peer's copy in place, and what to copy ahead of time.
 *
 * The mirror controller (core/mvgal_mirror.c) counts, per buffer, READ
 * sessions whose data was not in their GPU's own pool (remote reads) and
 * writes, over windows of mirror_window_ms; a GPU whose remote reads in
 * a window reach mirror_start_reads gets replicas, until the writes in a
 * window reach mirror_stop_writes (the copies churn); each change holds
 * for mirror_hold_windows windows before the opposite one may happen.
 * Windows are tens of milliseconds or more: the coarse clock (a tick's
 * resolution) times them, as it costs a load where a BEGIN pays for it.
 */
#include <linux/bitmap.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include "core/mvgal_range.h"
#include "mvgal_bo.h"

static void mvgal_mirror_conf_get(struct mvgal_mirror_conf *c)
{
	c->window_ms = READ_ONCE(mvgal_mirror_window_ms);
	c->start_reads = READ_ONCE(mvgal_mirror_start_reads);
	c->stop_writes = READ_ONCE(mvgal_mirror_stop_writes);
	c->hold_windows = READ_ONCE(mvgal_mirror_hold_windows);
}

static void mvgal_mirror_act(struct mvgal_bo *bo, enum mvgal_mirror_verdict v)
{
	if (v == MVGAL_MIRROR_KEEP)
		return;
	bo->mirror_set = bo->mirror.replicas;
	if (v == MVGAL_MIRROR_STOP)
		bo->mirror_set = 0;
}

/**
 * mvgal_policy_read() - a READ session of GPU @gpu began on @bo
 * @bo: the buffer; caller holds bo->lock
 * @gpu: the GPU index
 * @remote: its data was not all in the GPU's own pool
 */
void mvgal_policy_read(struct mvgal_bo *bo, unsigned int gpu, bool remote)
{
	struct mvgal_mirror_conf c;

	lockdep_assert_held(&bo->lock);
	mvgal_mirror_conf_get(&c);
	mvgal_mirror_act(bo, mvgal_mirror_read(&bo->mirror, &c, gpu, remote,
					       ktime_get_coarse_ns()));
}

/**
 * mvgal_policy_write() - @bo was written (a WRITE session ended, or the
 * CPU's writes were taken in)
 * @bo: the buffer; caller holds bo->lock
 */
void mvgal_policy_write(struct mvgal_bo *bo)
{
	struct mvgal_mirror_conf c;

	lockdep_assert_held(&bo->lock);
	mvgal_mirror_conf_get(&c);
	mvgal_mirror_act(bo, mvgal_mirror_write(&bo->mirror, &c,
						ktime_get_coarse_ns()));
}

/**
 * mvgal_policy_replicas() - should a READ session of @gpu on the chunks
 * of @l copy them into its own pool rather than use a copy in place?
 * @bo: the buffer; caller holds bo->lock
 * @gpu: the GPU index
 * @l: the session's use of @bo: the chunks it names
 */
bool mvgal_policy_replicas(struct mvgal_bo *bo, unsigned int gpu,
			   const struct mvgal_live *l)
{
	lockdep_assert_held(&bo->lock);
	if (bo->flags & MVGAL_BO_REPLICATED || bo->mirror_set & BIT(gpu))
		return true;
	return mvgal_cbit_any_of(bo, MVGAL_CB_READ_MOSTLY, l->base, l->chunks,
				 l->n);
}

/**
 * mvgal_policy_begun() - a session began on @bo naming the chunks of @l
 * @bo: the buffer; caller holds bo->lock and ensured the chunks' records
 * @l: the session's use of @bo
 *
 * The first session and every MVGAL_TOUCH_SAMPLE-th after it are
 * recorded as the buffer's touched chunks (the d974 document's sampling):
 * a prefetch copies those.
 */
void mvgal_policy_begun(struct mvgal_bo *bo, const struct mvgal_live *l)
{
	unsigned long s, e;

	lockdep_assert_held(&bo->lock);
	if (bo->begins++ % MVGAL_TOUCH_SAMPLE)
		return;
	mvgal_cbit_clear_all(bo, MVGAL_CB_TOUCHED);
	for_each_set_bitrange(s, e, l->chunks, l->n)
		mvgal_cbit_assign(bo, MVGAL_CB_TOUCHED, l->base + s,
				  l->base + e - 1, true);
}

/*
 * Copies of chunks [first, last] into the pools of the GPUs in @gpus, as
 * one job of priority @prio after @in_fence; with @set_pins, the buffer's
 * pinned placements become @pin. Return: 0 with *@fd the job's sync_file
 * (or -1: nothing to copy) and *@bytes; or -errno, with nothing placed.
 */
static int mvgal_place_copies(struct mvgal_device *mdev, struct drm_file *file,
			      struct mvgal_bo *bo,
			      unsigned long first, unsigned long last,
			      u32 gpus, bool set_pins, u32 pin, u32 prio,
			      struct dma_fence *in_fence, int *fd, u64 *bytes)
{
	struct mvgal_gpu *gpu[MVGAL_MAX_GPUS] = { NULL };
	struct sync_file *sf = NULL;
	struct mvgal_job *job;
	u32 made = 0;
	unsigned int g;
	int ret = 0;

	*fd = -1;
	*bytes = 0;
	job = mvgal_job_alloc(mdev, prio, file);
	if (IS_ERR(job))
		return PTR_ERR(job);
	mutex_lock(&mdev->gpu_lock);
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		if (!(gpus & BIT(g)))
			continue;
		ret = mvgal_bo_gpu_may_use(bo, g);
		if (ret)
			goto out_gpu;
		gpu[g] = mvgal_gpu_use(mdev, g, &ret);
		if (!gpu[g])
			goto out_gpu;
	}
	ret = mvgal_bo_lock_copies(bo);
	if (ret)
		goto out_gpu;
	if (mvgal_live_conflict(bo, first, last, false)) {
		atomic64_inc(&mdev->ctr.busy);
		ret = -EBUSY;
		goto out_bo;
	}
	/* A device-only buffer's own GPU holds it already. */
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++) {
		if (!gpu[g] || bo->home == gpu[g])
			continue;
		if (!bo->place[g])
			made |= BIT(g);
		ret = mvgal_place_get(bo, gpu[g]);
	}
	if (!ret)
		ret = mvgal_job_add_dep(job, in_fence);
	if (!ret)
		ret = mvgal_job_add_resv_deps(job, bo, false);
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++)
		if (gpu[g] && bo->home != gpu[g])
			ret = mvgal_migrate_plan(job, bo, first, last, 1 + g);
	if (!ret && !mvgal_job_empty(job)) {
		*fd = mvgal_fence_fd(mvgal_job_fence(job), &sf);
		if (*fd < 0)
			ret = *fd;
	}
	if (ret) {
		*fd = -1;
		for (g = 0; g < MVGAL_MAX_GPUS; g++)
			if (made & BIT(g) && bo->place[g])
				mvgal_place_drain(bo, g, true);
		goto out_bo;
	}

	/* Nothing can fail from here on. */
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (gpu[g])
			mvgal_place_touch(bo, gpu[g], 1 + g);
	if (set_pins)
		bo->pinned = pin;
	*bytes = mvgal_job_bytes(job);
	if (mvgal_job_empty(job)) {
		mvgal_job_abort(job);
	} else {
		mvgal_job_mark(job);
		mvgal_job_publish(job);
		mvgal_job_push(job);
		fd_install(*fd, sf->file);
	}
	job = NULL;
out_bo:
	mvgal_bo_unlock_copies(bo);
out_gpu:
	mutex_unlock(&mdev->gpu_lock);
	if (job)
		mvgal_job_abort(job);
	return ret;
}

int mvgal_ioctl_replicate(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_replicate *args = data;
	u32 list[MVGAL_MAX_GPUS], gpus = 0, i;
	struct dma_fence *in_fence = NULL;
	unsigned long first, last;
	struct mvgal_bo *bo;
	int ret, fd;

	if (args->flags || !args->size || !args->nr_gpus ||
	    args->nr_gpus > MVGAL_MAX_GPUS || args->priority >= MVGAL_PRIO_COUNT)
		return -EINVAL;
	if (copy_from_user(list, u64_to_user_ptr(args->gpus),
			   args->nr_gpus * sizeof(list[0])))
		return -EFAULT;
	for (i = 0; i < args->nr_gpus; i++) {
		if (list[i] >= mvgal_max_gpus || gpus & BIT(list[i]))
			return -EINVAL;
		gpus |= BIT(list[i]);
	}
	if (!READ_ONCE(mvgal_enable_memory_migration))
		return -EPERM;
	bo = mvgal_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;
	ret = -EINVAL;
	if (!mvgal_range_ok(args->offset, args->size, bo->size))
		goto out_put;
	if (args->in_fence_fd != -1) {
		in_fence = sync_file_get_fence(args->in_fence_fd);
		if (!in_fence)
			goto out_put;
	}
	mvgal_chunk_span(args->offset, args->size, bo->chunk_shift, &first,
			 &last);
	ret = mvgal_place_copies(mdev, file, bo, first, last, gpus, false, 0,
				 args->priority, in_fence, &fd, &args->bytes);
	if (!ret)
		args->out_fence_fd = fd;
	dma_fence_put(in_fence);
out_put:
	drm_gem_object_put(&bo->base);
	return ret;
}

/* The GPUs that may use @bo (see mvgal_bo_gpu_may_use()). */
static u32 mvgal_bo_gpus_allowed(const struct mvgal_bo *bo)
{
	u32 g, mask = 0;

	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (!mvgal_bo_gpu_may_use(bo, g))
			mask |= BIT(g);
	return mask;
}

/* The pool with the most room of @gpus (all attached ones for 0). */
static u32 mvgal_most_free(struct mvgal_device *mdev, u32 gpus)
{
	u64 best = 0, used, largest, allocs, room;
	u32 g, pick = MVGAL_GPU_ANY;

	mutex_lock(&mdev->gpu_lock);
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		struct mvgal_gpu *gpu = mdev->gpus[g];

		if (!gpu || (gpus && !(gpus & BIT(g))))
			continue;
		mvgal_pool_usage(&gpu->pool, &used, &largest, &allocs);
		room = gpu->pool.budget > used ? gpu->pool.budget - used : 0;
		if (pick == MVGAL_GPU_ANY || room > best) {
			best = room;
			pick = g;
		}
	}
	mutex_unlock(&mdev->gpu_lock);
	return pick;
}

/*
 * The MVGAL document's placement rules for @bo under its advice: the
 * placement, the GPU it names, and the GPUs to copy to.
 */
static u32 mvgal_advice_rule(struct mvgal_device *mdev,
			     const struct drm_mvgal_advise *a,
			     const struct mvgal_bo *bo, u32 *target, u32 *gpus)
{
	u64 size = bo->size;
	u32 by = a->accessed_by, first;

	first = a->preferred != MVGAL_GPU_ANY ? a->preferred :
		by ? __ffs(by) : MVGAL_GPU_ANY;
	*target = first;
	*gpus = first != MVGAL_GPU_ANY ? BIT(first) : 0;
	switch (a->workload) {
	case MVGAL_WORKLOAD_GRAPHICS:
		if (size < MVGAL_GRAPHICS_REPLICATE_MAX && hweight32(by) > 1) {
			*gpus |= by;
			*target = first;
			return MVGAL_PLACEMENT_REPLICATE;
		}
		if (size >= MVGAL_GRAPHICS_REPLICATE_MAX && *gpus)
			return MVGAL_PLACEMENT_PIN;
		if (*gpus)
			return MVGAL_PLACEMENT_FIRST;
		break;
	case MVGAL_WORKLOAD_COMPUTE:
	case MVGAL_WORKLOAD_AI:
		*target = mvgal_most_free(mdev, by ?: mvgal_bo_gpus_allowed(bo));
		*gpus = *target != MVGAL_GPU_ANY ? BIT(*target) : 0;
		if (*gpus)
			return MVGAL_PLACEMENT_MOST_FREE;
		break;
	default:
		if (*gpus)
			return MVGAL_PLACEMENT_FIRST;
		break;
	}
	*target = MVGAL_GPU_ANY;
	*gpus = 0;
	return MVGAL_PLACEMENT_HOST;
}

/* The GPUs new advice names (checked to be in range). */
static u32 mvgal_advice_gpus(const struct drm_mvgal_advise *args)
{
	u32 gpus = args->accessed_by;

	if (args->preferred != MVGAL_GPU_ANY)
		gpus |= BIT(args->preferred);
	return gpus;
}

/* Checks the GPUs of new advice: in range (-EINVAL) and attached (-ENODEV). */
static int mvgal_advice_check(struct mvgal_device *mdev,
			      const struct drm_mvgal_advise *args)
{
	u32 gpus, g;
	int ret = 0;

	if (args->workload > MVGAL_WORKLOAD_AI ||
	    (args->preferred != MVGAL_GPU_ANY &&
	     args->preferred >= mvgal_max_gpus) ||
	    args->accessed_by >> mvgal_max_gpus)
		return -EINVAL;
	gpus = mvgal_advice_gpus(args);
	mutex_lock(&mdev->gpu_lock);
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++)
		if (gpus & BIT(g) && !mdev->gpus[g])
			ret = -ENODEV;
	mutex_unlock(&mdev->gpu_lock);
	return ret;
}

int mvgal_ioctl_advise(struct drm_device *dev, void *data,
		       struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_advise *args = data;
	u32 rm = args->flags & (MVGAL_ADVISE_READ_MOSTLY |
				MVGAL_ADVISE_NOT_READ_MOSTLY);
	unsigned long first = 0, last = 0;
	u32 placement, target, gpus;
	struct mvgal_bo *bo;
	int ret, fd = -1;
	u64 bytes;

	if (args->flags & ~MVGAL_ADVISE_FLAGS ||
	    rm == (MVGAL_ADVISE_READ_MOSTLY | MVGAL_ADVISE_NOT_READ_MOSTLY) ||
	    (!rm && (args->offset || args->size)) ||
	    (!(args->flags & MVGAL_ADVISE_SET) &&
	     (args->workload || args->preferred || args->accessed_by)))
		return -EINVAL;
	if (args->flags & MVGAL_ADVISE_SET) {
		ret = mvgal_advice_check(mdev, args);
		if (ret)
			return ret;
	}
	/* Advice changes how the buffer is kept for every user of it. */
	bo = mvgal_bo_lookup_access(file, args->handle,
				    (args->flags & MVGAL_ADVISE_SET) || rm, &ret);
	if (!bo)
		return ret;
	/* One ADVISE at a time: advice and pins change together. */
	mutex_lock(&mdev->advise_lock);
	ret = -EPERM;
	if (args->flags & MVGAL_ADVISE_SET &&
	    mvgal_advice_gpus(args) & ~mvgal_bo_gpus_allowed(bo))
		goto out_put;
	ret = -EINVAL;
	if (rm && (!args->size ||
		   !mvgal_range_ok(args->offset, args->size, bo->size)))
		goto out_put;
	if (rm) {
		mvgal_chunk_span(args->offset, args->size, bo->chunk_shift,
				 &first, &last);
		/* Room for the chunks' bits before anything changes (none
		 * to clear bits: a chunk without a record has none).
		 */
		ret = 0;
		if (rm == MVGAL_ADVISE_READ_MOSTLY) {
			mutex_lock(&bo->lock);
			ret = mvgal_chunks_ensure(bo, first, last);
			mutex_unlock(&bo->lock);
		}
		if (ret)
			goto out_put;
	}

	/* The advice in effect once this call is done. */
	if (!(args->flags & MVGAL_ADVISE_SET)) {
		mutex_lock(&bo->lock);
		args->workload = bo->workload;
		args->preferred = bo->preferred;
		args->accessed_by = bo->accessed_by;
		mutex_unlock(&bo->lock);
	}
	placement = mvgal_advice_rule(mdev, args, bo, &target, &gpus);
	/*
	 * Placed first: should that fail, the advice stays as it was. The
	 * pins are what this advice applied pins: none once the advice
	 * changes without being applied.
	 */
	if (args->flags & MVGAL_ADVISE_APPLY && gpus) {
		ret = -EPERM;
		if (!READ_ONCE(mvgal_enable_memory_migration))
			goto out_put;
		ret = mvgal_place_copies(mdev, file, bo, 0, bo->nchunks - 1, gpus,
					 true, placement == MVGAL_PLACEMENT_PIN ?
					 gpus : 0, MVGAL_PRIO_NORMAL, NULL,
					 &fd, &bytes);
		if (ret)
			goto out_put;
	} else if (args->flags & (MVGAL_ADVISE_SET | MVGAL_ADVISE_APPLY)) {
		mutex_lock(&mdev->gpu_lock);
		bo->pinned = 0;
		mutex_unlock(&mdev->gpu_lock);
	}
	mutex_lock(&bo->lock);
	if (args->flags & MVGAL_ADVISE_SET) {
		bo->workload = args->workload;
		bo->preferred = args->preferred;
		bo->accessed_by = args->accessed_by;
	}
	if (rm)
		mvgal_cbit_assign(bo, MVGAL_CB_READ_MOSTLY, first, last,
				  rm == MVGAL_ADVISE_READ_MOSTLY);
	args->read_mostly =
		(u64)mvgal_cbit_weight(bo, MVGAL_CB_READ_MOSTLY) <<
		bo->chunk_shift;
	args->read_mostly = min_t(u64, args->read_mostly, bo->base.size);
	mutex_unlock(&bo->lock);
	args->placement = placement;
	args->target = target;
	args->out_fence_fd = fd;
	ret = 0;
out_put:
	mutex_unlock(&mdev->advise_lock);
	drm_gem_object_put(&bo->base);
	return ret;
}
