// SPDX-License-Identifier: GPL-2.0
/*
 * Staged writes. A small BO_PWRITE into chunks that GPU work still uses
 * (a fence pending in the buffer's reservation, or a live READ session
 * reading a GPU's copy of them) does not wait for that work: its bytes
 * are copied into kernel memory before the call returns, and a job of
 * the migration engine writes them at home after every fence the buffer
 * has; its own fence, published in the reservation, orders every later
 * access after it. A READ session keeps reading the copy it began with,
 * as after a hand-off. The job never waits for a session to end: that
 * could be never, and every CPU access of the buffer would wait with it.
 * So a live session that reads home itself (in place), like a writer, is
 * -EBUSY, as for a plain write.
 *
 * The chunk states change at once, as they do for any planned copy: home
 * becomes the only holder of the chunks written, so a BEGIN or MIGRATE
 * planned later copies them from home, after the job, and a CPU read
 * waits for the job. A chunk the write covers in part is brought home
 * by the job first, from wherever it is current.
 */

#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "dev/mvgal_device.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_cpumap.h"
#include "bo/mvgal_cpuwrite.h"
#include "bo/mvgal_live.h"
#include "bo/mvgal_pages.h"
#include "bo/mvgal_view.h"
#include "move/mvgal_cpu.h"
#include "move/mvgal_job.h"
#include "move/mvgal_stage.h"
#include "move/mvgal_xact.h"

/*
 * The job of a staged write of [off, off + len), chunks [first, last]:
 * what it waits for, the chunks it covers in part brought home first,
 * home the only holder of them all once it is marked, and the bytes
 * with @su's staging memory. On failure @buf and that memory are still
 * the caller's.
 */
static int mvgal_stage_plan(struct mvgal_xact *x, u64 off, u64 len,
			    void *buf, struct mvgal_stage_user *su,
			    unsigned long a, unsigned long b)
{
	struct mvgal_bo *bo = x->bo;
	unsigned long first, last;
	int ret;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	ret = mvgal_xact_wait(x, NULL, true, first, last);
	if (!ret && (first < a || first >= b))
		ret = mvgal_xact_plan(x, first, first, bo->home_loc);
	if (!ret && last != first && last >= b)
		ret = mvgal_xact_plan(x, last, last, bo->home_loc);
	if (!ret)
		ret = mvgal_bo_populate_range(bo, off, len);
	if (!ret)
		ret = mvgal_xact_move(x, first, last, bo->home_loc);
	if (!ret)
		ret = mvgal_job_set_write(x->job, bo, off, buf, len, su);
	return ret;
}

/*
 * Stages the write: the job is marked (the chunks it covers whole count
 * as held at home: their old bytes will never be read), published and
 * queued, and CPU mappings of the chunks are zapped so that a mapped
 * access faults and waits for it. Return: 0, or -EAGAIN (a mirror
 * invalidated since the planning) with @x's job still to abort and the
 * write's bytes and staging memory the caller's again.
 */
static int mvgal_stage_commit(struct mvgal_xact *x, u64 off, u64 len)
{
	struct mvgal_bo *bo = x->bo;
	unsigned long first, last;
	int ret;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	ret = mvgal_xact_commit(x, NULL, NULL);
	if (ret) {
		mvgal_job_drop_write(x->job);
		return ret;
	}
	mvgal_watch_mark(bo, first, last, false);
	mvgal_bo_zap(bo, first, last);
	return 0;
}

/*
 * Nothing is in the way: the write is made now, as a plain BO_PWRITE
 * makes it. Caller holds bo->lock.
 */
static int mvgal_stage_now(struct mvgal_bo *bo, u64 off, u64 len, void *buf)
{
	int ret = mvgal_cpu_ready(bo, off, len, true, MVGAL_CPU_WHOLE);

	if (ret)
		return ret;
	mvgal_bo_access_locked(bo, off, buf, len, true);
	mvgal_cpu_wrote(bo, off, len, false);
	return 0;
}

/*
 * Is any fence of @bo pending, or a live session on chunks [first, last]?
 * Exact under bo->lock: nothing new is planned while it is held.
 */
static bool mvgal_stage_busy(struct mvgal_bo *bo, unsigned long first,
			     unsigned long last)
{
	return !dma_resv_test_signaled(bo->base.resv, dma_resv_usage_rw(true)) ||
	       mvgal_live_conflict(bo, first, last, true);
}

/*
 * Under the locks of @x: stages the write (*@staged, @buf and @su's
 * staging memory are then the job's), or makes it now if what was in the
 * way has gone meanwhile. A live session on the chunks that writes them
 * or reads home in place is -EBUSY.
 */
static int mvgal_stage_locked(struct mvgal_xact *x, u64 off, u64 len,
			      void *buf, struct mvgal_stage_user *su,
			      bool *staged)
{
	struct mvgal_bo *bo = x->bo;
	unsigned long first, last, a, b;
	int ret;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	if (mvgal_live_home_conflict(bo, first, last)) {
		atomic64_inc(&x->mdev->ctr.busy);
		return -EBUSY;
	}
	if (!mvgal_stage_busy(bo, first, last))
		return mvgal_stage_now(bo, off, len, buf);
	ret = mvgal_chunks_ensure(bo, first, last);
	if (ret)
		return ret;
	mvgal_whole_chunks(bo, off, len, &a, &b);
	ret = mvgal_stage_plan(x, off, len, buf, su, a, b);
	if (!ret)
		ret = mvgal_stage_commit(x, off, len);
	if (ret)
		return ret;
	*staged = true;
	return 0;
}

/*
 * The staging path: staging memory first (the only wait), then the
 * copy locks, under which the write is staged or, if the GPU work ended
 * meanwhile, made. @buf is freed here unless a job took it.
 */
static int mvgal_stage_queue(struct mvgal_bo *bo, u64 off, u64 len,
			     void *buf, struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	u64 charge = mvgal_stage_charge(len);
	struct mvgal_stage_user *su;
	bool staged = false;
	struct mvgal_xact x;
	int ret;

	ret = mvgal_stage_reserve(mdev, charge, &su);
	if (ret)
		goto out_free;
	ret = mvgal_xact_begin(&x, mdev, bo, 0, MVGAL_PRIO_NORMAL, file);
	if (ret)
		goto out_release;
	ret = mvgal_stage_locked(&x, off, len, buf, su, &staged);
	if (staged) {
		mvgal_xact_end(&x);
		atomic64_inc(&mdev->ctr.staged_writes);
		return 0;
	}
	mvgal_xact_abort(&x);
out_release:
	mvgal_stage_release(mdev, su, charge);
out_free:
	kvfree(buf);
	return ret;
}

/**
 * mvgal_stage_write() - a BO_PWRITE that does not wait for the GPU
 * @bo: the buffer; caller holds a reference and checked the range
 * @off: byte offset
 * @len: bytes, 0 < @len <= max_staged_bytes
 * @buf: the bytes, kvmalloc()ed: this call's (freed here or by the job)
 * @file: the caller, whose job it is (max_file_jobs; CANCEL)
 *
 * With nothing in the way (no fence pending, no live session on the
 * chunks) the write is made at once, as a plain one. Otherwise it waits
 * only for staging memory, the device's and its user's share of it (see
 * mvgal_stage_reserve()).
 *
 * Return: 0, or -errno with nothing changed: -ENOMEM, -EDQUOT, -ENOBUFS
 * (the file has max_file_jobs unfinished), -EBUSY (a live session on the
 * chunks writes them or reads home in place), -ERESTARTSYS.
 */
int mvgal_stage_write(struct mvgal_bo *bo, u64 off, u64 len, void *buf,
		      struct drm_file *file)
{
	unsigned long first, last;
	bool busy;
	int ret = 0;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	mutex_lock(&bo->lock);
	busy = mvgal_stage_busy(bo, first, last);
	if (!busy)
		ret = mvgal_stage_now(bo, off, len, buf);
	mutex_unlock(&bo->lock);
	if (busy)
		ret = mvgal_stage_queue(bo, off, len, buf, file);
	else
		kvfree(buf);
	if (!ret)
		mvgal_bo_count(bo, len, true);
	return ret;
}
