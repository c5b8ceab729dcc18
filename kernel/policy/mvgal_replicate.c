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

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_live.h"
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
	if (bo->policy.begins++ % MVGAL_TOUCH_SAMPLE)
		return;
	mvgal_cbit_clear_all(bo, MVGAL_CB_TOUCHED);
	for_each_set_bitrange(s, e, l->chunks, l->n)
		mvgal_cbit_assign(bo, MVGAL_CB_TOUCHED, l->base + s,
				  l->base + e - 1, true);
}

/*
 * Plans the copies: a live session on the chunks is -EBUSY; each GPU but
 * the buffer's home gets a placement (a device-only buffer's own GPU
 * holds it already) and the copies of what it lacks, after @in_fence
 * and the reservation.
 */
static int mvgal_copies_plan(struct mvgal_xact *x, unsigned long first,
			     unsigned long last, struct dma_fence *in_fence)
{
	struct mvgal_bo *bo = x->bo;
	unsigned int g;
	int ret = 0;

	if (mvgal_live_conflict(bo, first, last, false)) {
		atomic64_inc(&x->mdev->ctr.busy);
		return -EBUSY;
	}
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++)
		if (x->gpu[g] && bo->home != x->gpu[g])
			ret = mvgal_xact_place(x, g, 0);
	if (!ret)
		ret = mvgal_xact_wait(x, in_fence, false, first, last);
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++)
		if (x->gpu[g] && bo->home != x->gpu[g])
			ret = mvgal_xact_plan(x, first, last, 1 + g);
	return ret;
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
	struct mvgal_xact x;
	unsigned int g;
	int ret;

	*fd = -1;
	*bytes = 0;
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		ret = gpus & BIT(g) ? mvgal_bo_gpu_may_use(bo, g) : 0;
		if (ret)
			return ret;
	}
	ret = mvgal_xact_begin(&x, mdev, bo, gpus, prio, file);
	if (ret)
		return ret;
	ret = mvgal_copies_plan(&x, first, last, in_fence);
	if (!ret)
		ret = mvgal_xact_commit(&x, fd, NULL);
	if (ret) {
		mvgal_xact_abort(&x);
		return ret;
	}
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (x.gpu[g])
			mvgal_place_touch(bo, x.gpu[g], 1 + g);
	if (set_pins)
		mvgal_place_pin(bo, pin);
	*bytes = x.bytes;
	mvgal_xact_end(&x);
	return 0;
}
