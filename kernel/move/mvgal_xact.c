// SPDX-License-Identifier: GPL-2.0
/*
 * Locking a buffer for planning copies: its reservation, a fence slot
 * and its lock, with the CPU's pending writes taken in; and MIGRATE, the
 * plain copy made that way.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/sync_file.h>

#include <drm/drm_file.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_coherence.h"
#include "bo/mvgal_cpumap.h"
#include "bo/mvgal_cpuwrite.h"
#include "bo/mvgal_live.h"
#include "move/mvgal_fetch.h"
#include "move/mvgal_job.h"
#include "move/mvgal_place.h"
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

/*
 * Plans a MIGRATE under the locks: a live session on the range is
 * -EBUSY; a placement is made at a GPU location (*@new_place: made now,
 * for the undo); the job waits for the in-fence and the reservation and
 * copies the missing chunks; a MOVE also takes the other copies away.
 */
static int mvgal_migrate_plan_job(struct mvgal_device *mdev,
				  struct mvgal_migration *m,
				  struct mvgal_job *job, struct mvgal_gpu *gpu,
				  bool *new_place)
{
	struct mvgal_bo *bo = m->bo;
	int ret;

	if (mvgal_live_conflict(bo, m->first, m->last, m->move)) {
		atomic64_inc(&mdev->ctr.busy);
		return -EBUSY;
	}
	if (gpu) {
		bool made = gpu != bo->home && !bo->place[gpu->index];

		ret = mvgal_place_get(bo, gpu);
		if (ret)
			return ret;
		/* Only a placement this call made is undone on failure. */
		*new_place = made;
	}
	ret = mvgal_job_add_dep(job, m->in_fence);
	if (!ret)
		ret = mvgal_job_add_resv_deps(job, bo, m->move);
	if (!ret)
		ret = mvgal_migrate_plan(job, bo, m->first, m->last, m->loc);
	if (ret)
		return ret;
	if (m->move && !mvgal_job_empty(job))
		ret = mvgal_job_set_move(job, bo, m->first, m->last, m->loc);
	return ret;
}

/*
 * Starts a planned MIGRATE; cannot fail. A job with nothing to copy goes
 * (an empty MOVE still makes the location the chunks' only holder);
 * else it is published in the reservation before it is queued, and its
 * fence's fd installed.
 */
static void mvgal_migrate_commit(struct mvgal_migration *m,
				 struct mvgal_job *job, struct mvgal_gpu *gpu,
				 struct sync_file *sf)
{
	struct mvgal_bo *bo = m->bo;

	if (gpu)
		mvgal_place_touch(bo, gpu, m->loc);
	m->bytes = mvgal_job_bytes(job);
	if (m->move && m->loc != bo->home_loc)
		mvgal_bo_zap(bo, m->first, m->last);
	if (mvgal_job_empty(job)) {
		if (m->move)
			mvgal_chunks_written(bo, m->first, m->last, m->loc);
		m->job = 0;
		mvgal_job_abort(job);
	} else {
		mvgal_job_mark(job);
		mvgal_job_publish(job);
		/* The sync_file's reference keeps the job readable. */
		mvgal_job_push(job);
		m->job = mvgal_job_id(job);
		fd_install(m->fd, sf->file);
	}
}

/**
 * mvgal_migrate() - make a range of a buffer current at a location
 * @mdev: the device
 * @m: the buffer (a reference the caller holds), its chunks, the
 *     location, MOVE, the priority and the in-fence (or NULL); on
 *     success the bytes the job copies, its id and its out-fence fd
 *     (installed), or 0 and -1 when there is nothing to copy
 * @file: the caller, charged for the job
 *
 * Under gpu_lock and the buffer's reservation and lock. The job is
 * published in the reservation before the chunk states say the bytes
 * are there, and queued.
 *
 * Return: 0, or -errno (-EBUSY for a live session on the range) with
 * nothing changed.
 */
int mvgal_migrate(struct mvgal_device *mdev, struct mvgal_migration *m,
		  struct drm_file *file)
{
	struct mvgal_bo *bo = m->bo;
	struct sync_file *sf = NULL;
	struct mvgal_gpu *gpu = NULL;
	struct mvgal_job *job;
	bool new_place = false;
	int ret;

	m->fd = -1;
	job = mvgal_job_alloc(mdev, m->priority, file);
	if (IS_ERR(job))
		return PTR_ERR(job);
	mutex_lock(&mdev->gpu_lock);
	if (m->loc != MVGAL_LOC_HOST) {
		gpu = mvgal_gpu_use(mdev, m->loc - 1, &ret);
		if (!gpu)
			goto out_gpu;
	}
	ret = mvgal_bo_lock_copies(bo);
	if (ret)
		goto out_gpu;
	ret = mvgal_migrate_plan_job(mdev, m, job, gpu, &new_place);
	if (ret)
		goto out_place;
	if (!mvgal_job_empty(job)) {
		ret = mvgal_fence_fd(mvgal_job_fence(job), &sf);
		if (ret < 0)
			goto out_place;
		m->fd = ret;
	}
	/* Nothing can fail from here on. */
	mvgal_migrate_commit(m, job, gpu, sf);
	mvgal_bo_unlock_copies(bo);
	mutex_unlock(&mdev->gpu_lock);
	return 0;

out_place:
	if (new_place)
		mvgal_place_drain(bo, gpu->index, true);
	mvgal_bo_unlock_copies(bo);
out_gpu:
	mutex_unlock(&mdev->gpu_lock);
	mvgal_job_abort(job);
	return ret;
}
