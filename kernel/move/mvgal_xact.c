// SPDX-License-Identifier: GPL-2.0
/*
 * Copy transactions. Every call that copies a buffer's chunks between
 * locations ahead of their use (MIGRATE, REPLICATE and ADVISE, prefetch)
 * does it the same way: under gpu_lock and the buffer's locks it makes the
 * placements the copies need and plans the copies into one job, which
 * waits for the buffer's fences; then, once nothing can fail, the job is
 * published in the reservation and queued, or on any failure the
 * placements it made go again and nothing has changed. Copies never run
 * under these locks: the job runs them.
 *
 *	mvgal_xact_begin()	the locks, the GPUs named, an empty job
 *	mvgal_xact_wait()	what the job waits for
 *	mvgal_xact_place()	a placement, undone by an abort
 *	mvgal_xact_plan()	the copies that make a range current somewhere
 *	mvgal_xact_commit()	publish and queue (or drop an empty job)
 *	mvgal_xact_end()	drop the locks after a commit
 *	mvgal_xact_abort()	undo and drop the locks instead
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

/**
 * mvgal_xact_begin() - start a copy transaction on @bo
 * @x: the transaction
 * @mdev: the device
 * @bo: the buffer; the caller holds a reference
 * @gpus: the GPUs it names; each must be attached and not unplugged
 * @prio: the job's priority
 * @file: the caller, charged for the job (or NULL: the module's own)
 *
 * Takes gpu_lock, then the buffer's locks (mvgal_bo_lock_copies()).
 *
 * Return: 0 with the locks held, or -errno with nothing held: -ENOMEM,
 * the errno of mvgal_gpu_use() for a GPU named, -ERESTARTSYS.
 */
int mvgal_xact_begin(struct mvgal_xact *x, struct mvgal_device *mdev,
		     struct mvgal_bo *bo, u32 gpus, u32 prio,
		     struct drm_file *file)
{
	unsigned int g;
	int ret = 0;

	memset(x, 0, sizeof(*x));
	x->mdev = mdev;
	x->bo = bo;
	x->job = mvgal_job_alloc(mdev, prio, file);
	if (IS_ERR(x->job))
		return PTR_ERR(x->job);
	down_read(&mdev->gpu_lock);
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++)
		if (gpus & BIT(g))
			x->gpu[g] = mvgal_gpu_use(mdev, g, &ret);
	if (!ret)
		ret = mvgal_bo_lock_copies(bo);
	if (ret) {
		up_read(&mdev->gpu_lock);
		mvgal_job_abort(x->job);
	}
	return ret;
}

/**
 * mvgal_xact_wait() - what the copies of chunks [first, last] wait for
 * @x: the transaction
 * @fence: a fence, or NULL
 * @write: the buffer's readers too, not only its writers (the copies
 *	   take chunks away from where readers may be using them)
 * @first: first chunk the transaction copies, moves or writes
 * @last: last chunk
 *
 * Called before the copies are planned: see mvgal_job_add_resv_deps().
 *
 * Return: 0 or -ENOMEM.
 */
int mvgal_xact_wait(struct mvgal_xact *x, struct dma_fence *fence,
		    bool write, unsigned long first, unsigned long last)
{
	int ret = mvgal_job_add_dep(x->job, fence);

	return ret ?: mvgal_job_add_resv_deps(x->job, x->bo, write, first,
					      last);
}

/**
 * mvgal_xact_place() - the buffer gets a placement on a GPU
 * @x: the transaction
 * @g: the GPU, named at begin; the buffer's home GPU needs none
 * @ahead: evict only what is predicted to be used more than this many
 *	   ticks from now (0: anything evictable)
 *
 * An abort takes a placement made here away again.
 *
 * Return: 0, -ENOMEM or -ENOSPC.
 */
int mvgal_xact_place(struct mvgal_xact *x, unsigned int g, u64 ahead)
{
	struct mvgal_bo *bo = x->bo;
	bool made = x->gpu[g] != bo->home && !bo->pools.place[g];
	int ret;

	ret = mvgal_place_get_for(bo, x->gpu[g], ahead);
	if (!ret && made)
		x->made |= BIT(g);
	return ret;
}

/**
 * mvgal_xact_plan() - plan the copies that make chunks current somewhere
 * @x: the transaction
 * @first: the first chunk
 * @last: the last chunk
 * @loc: the location; a GPU's placement was made by mvgal_xact_place()
 *
 * Return: 0 or -errno.
 */
int mvgal_xact_plan(struct mvgal_xact *x, unsigned long first,
		    unsigned long last, unsigned int loc)
{
	return mvgal_migrate_plan(x->job, x->bo, first, last, loc);
}

/**
 * mvgal_xact_move() - the planned copies move chunks rather than copy
 * @x: the transaction
 * @first: the first chunk
 * @last: the last chunk
 * @loc: once the copies are done, the only holder of the chunks
 *
 * Return: 0 or -ENOMEM.
 */
int mvgal_xact_move(struct mvgal_xact *x, unsigned long first,
		    unsigned long last, unsigned int loc)
{
	return mvgal_job_set_move(x->job, x->bo, first, last, loc);
}

/* Has nothing been planned to copy? */
bool mvgal_xact_empty(const struct mvgal_xact *x)
{
	return mvgal_job_empty(x->job);
}

/**
 * mvgal_xact_commit() - start what was planned
 * @x: the transaction
 * @fd: (out, or NULL for none) a sync_file fd of the job's fence,
 *	installed; -1 when there is nothing to copy
 * @fence: (out, or NULL for none) a reference on the job's fence, NULL
 *	when there is nothing to copy
 *
 * A job with something to copy is marked (the chunk states say its
 * copies are coming), published in the reservation and queued; an empty
 * one is dropped. The locks stay held for the caller's own updates,
 * which can no longer fail, until mvgal_xact_end().
 *
 * Return: 0, or -errno (the fd could not be made; -EAGAIN: a mirror the
 * job copies was invalidated since it was planned) with nothing started:
 * the caller aborts.
 */
int mvgal_xact_commit(struct mvgal_xact *x, int *fd,
		      struct dma_fence **fence)
{
	struct sync_file *sf = NULL;
	struct mvgal_job *job = x->job;
	int ret = -1;

	if (fd)
		*fd = -1;
	if (fence)
		*fence = NULL;
	if (mvgal_job_empty(job)) {
		x->job = NULL;
		mvgal_job_abort(job);
		return 0;
	}
	if (fd) {
		ret = mvgal_fence_fd(mvgal_job_fence(job), &sf);
		if (ret < 0)
			return ret;
	}
	/* Arms the fence (done above already when an fd was made). */
	mvgal_job_fence(job);
	if (mvgal_job_commit(job)) {
		if (fd)
			mvgal_fence_fd_drop(ret, sf);
		return -EAGAIN;
	}
	/* Nothing can fail from here on. */
	x->job = NULL;
	x->bytes = mvgal_job_bytes(job);
	mvgal_job_push(job);
	/* The reservation, locked, holds the job's fence: still readable. */
	x->id = mvgal_job_id(job);
	if (fence)
		*fence = dma_fence_get(mvgal_job_fence(job));
	if (fd) {
		fd_install(ret, sf->file);
		*fd = ret;
	}
	return 0;
}

/* mvgal_xact_end() - drop the locks of a committed transaction */
void mvgal_xact_end(struct mvgal_xact *x)
{
	mvgal_bo_unlock_copies(x->bo);
	up_read(&x->mdev->gpu_lock);
}

/**
 * mvgal_xact_abort() - undo a transaction not committed
 * @x: the transaction
 *
 * The placements it made go (they hold nothing yet), then the locks and
 * the job.
 */
void mvgal_xact_abort(struct mvgal_xact *x)
{
	unsigned int g;

	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (x->made & BIT(g) && x->bo->pools.place[g])
			mvgal_place_drain(x->bo, g, true);
	mvgal_xact_end(x);
	if (x->job)
		mvgal_job_abort(x->job);
}

/*
 * Plans a MIGRATE: a live session on the range is -EBUSY; a GPU location
 * gets a placement; the copies of the missing chunks wait for the
 * in-fence and the reservation; a MOVE also takes the other copies away.
 */
static int mvgal_migrate_plan_xact(struct mvgal_migration *m,
				   struct mvgal_xact *x)
{
	int ret;

	if (mvgal_live_conflict(m->bo, m->first, m->last, m->move)) {
		atomic64_inc(&x->mdev->ctr.busy);
		return -EBUSY;
	}
	if (m->loc != MVGAL_LOC_HOST) {
		ret = mvgal_xact_place(x, m->loc - 1, 0);
		if (ret)
			return ret;
	}
	ret = mvgal_xact_wait(x, m->in_fence, m->move, m->first, m->last);
	if (!ret)
		ret = mvgal_xact_plan(x, m->first, m->last, m->loc);
	if (!ret && m->move && !mvgal_xact_empty(x))
		ret = mvgal_xact_move(x, m->first, m->last, m->loc);
	return ret;
}

/*
 * A committed MIGRATE's own updates: the placement's use is counted; a
 * MOVE away from home unmaps the CPU's view, and one with nothing to copy
 * makes the location the chunks' only holder at once.
 */
static void mvgal_migrate_done(struct mvgal_migration *m,
			       struct mvgal_xact *x)
{
	struct mvgal_bo *bo = m->bo;

	if (m->loc != MVGAL_LOC_HOST)
		mvgal_place_touch(bo, x->gpu[m->loc - 1], m->loc);
	if (m->move && m->loc != bo->home_loc)
		mvgal_bo_zap(bo, m->first, m->last);
	if (m->move && !x->id)
		mvgal_chunks_written(bo, m->first, m->last, m->loc);
	m->bytes = x->bytes;
	m->job = x->id;
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
 * Return: 0, or -errno (-EBUSY for a live session on the range) with
 * nothing changed.
 */
int mvgal_migrate(struct mvgal_device *mdev, struct mvgal_migration *m,
		  struct drm_file *file)
{
	u32 gpus = m->loc == MVGAL_LOC_HOST ? 0 : BIT(m->loc - 1);
	struct mvgal_xact x;
	int ret;

	m->fd = -1;
	ret = mvgal_xact_begin(&x, mdev, m->bo, gpus, m->priority, file);
	if (ret)
		return ret;
	ret = mvgal_migrate_plan_xact(m, &x);
	if (!ret)
		ret = mvgal_xact_commit(&x, &m->fd, m->fence);
	if (ret) {
		mvgal_xact_abort(&x);
		return ret;
	}
	mvgal_migrate_done(m, &x);
	mvgal_xact_end(&x);
	return 0;
}
