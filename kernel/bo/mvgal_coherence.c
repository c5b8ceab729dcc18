// SPDX-License-Identifier: GPL-2.0
/*
 * A buffer's coherence records: their setup at creation or import, the
 * search for chunks a location lacks, and taking in chunks a location
 * wrote.
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_mirror.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_coherence.h"

/**
 * mvgal_bo_coherence_init() - chunk states for a new buffer: all at home
 * @bo: the buffer, with npages and home_loc set
 *
 * Nothing is allocated: the chunk records come as chunks are touched.
 */
void mvgal_bo_coherence_init(struct mvgal_bo *bo)
{
	spin_lock_init(&bo->state_lock);
	bo->chunk_shift = ilog2(mvgal_chunk_size);
	/* npages rather than base.size: an import calls this first. */
	bo->nchunks = DIV_ROUND_UP_ULL((u64)bo->npages << PAGE_SHIFT,
				       1ULL << bo->chunk_shift);
	mvgal_chunks_init(bo);
	INIT_LIST_HEAD(&bo->live);
	INIT_LIST_HEAD(&bo->commits);
	mvgal_mirror_init(&bo->mirror, ktime_get_coarse_ns());
}

/*
 * The first chunk of [c, last] that @dst does not hold, or last + 1: one
 * scan under the lock, as most of a large buffer is usually held.
 */
unsigned long mvgal_next_missing(struct mvgal_bo *bo, unsigned long c,
				 unsigned long last, unsigned int dst)
{
	spin_lock(&bo->state_lock);
	c = mvgal_chunks_find_missing(bo, c, last, dst);
	spin_unlock(&bo->state_lock);
	return c;
}

/* Chunks [first, last], held at @loc, were written there. */
void mvgal_chunks_written(struct mvgal_bo *bo, unsigned long first,
			  unsigned long last, unsigned int loc)
{
	unsigned long c;

	spin_lock(&bo->state_lock);
	for (c = first; c <= last; c++)
		mvgal_chunk_written(mvgal_chunk_at(bo, c), loc);
	spin_unlock(&bo->state_lock);
}
