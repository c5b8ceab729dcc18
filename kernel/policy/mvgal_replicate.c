// SPDX-License-Identifier: GPL-2.0
/*
 * Placement policy: replication (REPLICATE, REPLICATED buffers and
 * read-mostly ranges) and the GPUs the mirror controller gives replicas.
 * Placement advice (ADVISE) picks where a buffer goes with the rules in
 * policy/mvgal_advice.c and copies it there through mvgal_place_copies().
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

#include <linux/file.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_live.h"
#include "move/mvgal_fetch.h"
#include "move/mvgal_job.h"
#include "move/mvgal_place.h"
#include "move/mvgal_xact.h"
#include "policy/mvgal_replicate.h"

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
 * recorded as the buffer's touched chunks, a sample rather than every
 * session, so that most BEGINs pay nothing for it: a prefetch copies
 * those.
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

/* The GPUs of @gpus, each one @bo may use and still there, into @gpu. */
static int mvgal_copies_gpus(struct mvgal_device *mdev, struct mvgal_bo *bo,
			     u32 gpus, struct mvgal_gpu **gpu)
{
	unsigned int g;
	int ret = 0;

	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		if (!(gpus & BIT(g)))
			continue;
		ret = mvgal_bo_gpu_may_use(bo, g);
		if (ret)
			return ret;
		gpu[g] = mvgal_gpu_use(mdev, g, &ret);
		if (!gpu[g])
			return ret;
	}
	return 0;
}

/*
 * Plans the copies under the buffer's locks: a live session on the
 * chunks is -EBUSY; a placement is made on each GPU but the buffer's
 * home (*@made: those made now, for the undo); the job waits for
 * @in_fence and the reservation and copies what each GPU lacks.
 */
static int mvgal_copies_plan(struct mvgal_device *mdev, struct mvgal_job *job,
			     struct mvgal_bo *bo, unsigned long first,
			     unsigned long last, struct mvgal_gpu **gpu,
			     struct dma_fence *in_fence, u32 *made)
{
	unsigned int g;
	int ret = 0;

	if (mvgal_live_conflict(bo, first, last, false)) {
		atomic64_inc(&mdev->ctr.busy);
		return -EBUSY;
	}
	/* A device-only buffer's own GPU holds it already. */
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++) {
		if (!gpu[g] || bo->home == gpu[g])
			continue;
		if (!bo->place[g])
			*made |= BIT(g);
		ret = mvgal_place_get(bo, gpu[g]);
	}
	if (!ret)
		ret = mvgal_job_add_dep(job, in_fence);
	if (!ret)
		ret = mvgal_job_add_resv_deps(job, bo, false);
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++)
		if (gpu[g] && bo->home != gpu[g])
			ret = mvgal_migrate_plan(job, bo, first, last, 1 + g);
	return ret;
}

/*
 * Starts planned copies; cannot fail. A job with nothing to copy goes;
 * else it is published, queued and its fence's fd (@fd, @sf) installed.
 */
static void mvgal_copies_commit(struct mvgal_bo *bo, struct mvgal_gpu **gpu,
				struct mvgal_job *job, bool set_pins, u32 pin,
				int fd, struct sync_file *sf, u64 *bytes)
{
	unsigned int g;

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
		fd_install(fd, sf->file);
	}
}

/*
 * Copies of chunks [first, last] into the pools of the GPUs in @gpus, as
 * one job of priority @prio after @in_fence; with @set_pins, the buffer's
 * pinned placements become @pin. Return: 0 with *@fd the job's sync_file
 * (or -1: nothing to copy) and *@bytes; or -errno, with nothing placed.
 */
int mvgal_place_copies(struct mvgal_device *mdev, struct drm_file *file,
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
	int ret;

	*fd = -1;
	*bytes = 0;
	job = mvgal_job_alloc(mdev, prio, file);
	if (IS_ERR(job))
		return PTR_ERR(job);
	mutex_lock(&mdev->gpu_lock);
	ret = mvgal_copies_gpus(mdev, bo, gpus, gpu);
	if (ret)
		goto out_gpu;
	ret = mvgal_bo_lock_copies(bo);
	if (ret)
		goto out_gpu;
	ret = mvgal_copies_plan(mdev, job, bo, first, last, gpu, in_fence,
				&made);
	if (!ret && !mvgal_job_empty(job)) {
		ret = mvgal_fence_fd(mvgal_job_fence(job), &sf);
		if (ret >= 0) {
			*fd = ret;
			ret = 0;
		}
	}
	if (ret)
		goto out_places;
	/* Nothing can fail from here on. */
	mvgal_copies_commit(bo, gpu, job, set_pins, pin, *fd, sf, bytes);
	mvgal_bo_unlock_copies(bo);
	mutex_unlock(&mdev->gpu_lock);
	return 0;

out_places:
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (made & BIT(g) && bo->place[g])
			mvgal_place_drain(bo, g, true);
	mvgal_bo_unlock_copies(bo);
out_gpu:
	mutex_unlock(&mdev->gpu_lock);
	mvgal_job_abort(job);
	return ret;
}
