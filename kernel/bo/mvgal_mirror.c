// SPDX-License-Identifier: GPL-2.0
/*
 * The mirror controller's bookkeeping per buffer: READ sessions that read
 * a remote copy and writes, counted over windows (core/mvgal_mirror.c);
 * the policy layer decides what the verdict means.
 */

#include <linux/dma-resv.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include "core/mvgal_mirror.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_mirror.h"

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
 * mvgal_mirror_note_read() - a READ session of GPU @gpu began on @bo
 * @bo: the buffer; caller holds bo->lock
 * @gpu: the GPU index
 * @remote: its data was not all in the GPU's own pool
 */
void mvgal_mirror_note_read(struct mvgal_bo *bo, unsigned int gpu, bool remote)
{
	struct mvgal_mirror_conf c;

	lockdep_assert_held(&bo->lock);
	mvgal_mirror_conf_get(&c);
	mvgal_mirror_act(bo, mvgal_mirror_read(&bo->mirror, &c, gpu, remote,
					       ktime_get_coarse_ns()));
}

/**
 * mvgal_mirror_note_write() - @bo was written (a WRITE session ended, or the
 * CPU's writes were taken in)
 * @bo: the buffer; caller holds bo->lock
 */
void mvgal_mirror_note_write(struct mvgal_bo *bo)
{
	struct mvgal_mirror_conf c;

	lockdep_assert_held(&bo->lock);
	mvgal_mirror_conf_get(&c);
	mvgal_mirror_act(bo, mvgal_mirror_write(&bo->mirror, &c,
						ktime_get_coarse_ns()));
}
