// SPDX-License-Identifier: GPL-2.0
/*
 * What END does about hand-offs: chunks the CPU wrote while a session
 * read a GPU copy of them.
 */

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/pagemap.h>

#include "core/mvgal_chunk.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_live.h"
#include "policy/mvgal_handoff.h"

/**
 * mvgal_watch_end() - the hand-offs of a session ending on @bo
 * @bo: the buffer; caller holds bo->lock and has folded the CPU's writes
 * @l: the session's use of @bo
 * @loc: where the session's copy is (a GPU)
 * @written: chunks the GPU wrote (a WRITE session), over @l's span, or NULL
 *
 * A chunk the CPU wrote while the session used a GPU copy of it is
 * refused for good: no GPU keeps a copy of it past a session again, each
 * access stages it. Where the GPU wrote it too, the GPU's bytes land last:
 * the chunk becomes the GPU's, and the next CPU access brings them home
 * after the session's fence. Every other refused chunk the session named
 * loses its copy at @loc now. Counted per buffer, warned (rate-limited).
 */
void mvgal_watch_end(struct mvgal_bo *bo, struct mvgal_live *l,
		     unsigned int loc, unsigned long *written)
{
	unsigned long i, n = 0, both = 0;

	lockdep_assert_held(&bo->lock);
	if (l->cpu_wrote) {
		spin_lock(&bo->state_lock);
		for_each_set_bit(i, l->cpu_wrote, l->n) {
			unsigned long c = l->base + i;

			n++;
			if (!mvgal_cbit_set(bo, MVGAL_CB_REFUSED, c))
				bo->watch.nrefused++;
			/* The fold left home its only holder: the GPU's
			 * bytes at @loc are the ones to keep.
			 */
			if (written && test_bit(i, written)) {
				mvgal_chunk_filled(mvgal_chunk_at(bo, c), loc);
				both++;
			}
		}
		spin_unlock(&bo->state_lock);
		bo->watch.handoffs += n;
		pr_warn_ratelimited("mvgal: buffer %llu: the CPU wrote %lu chunk(s) while GPU %u used a copy: refused for good, staged per access%s\n",
				    bo->id, n, loc - 1,
				    both ? "; the GPU wrote some too, its bytes land last" : "");
	}
	if (bo->watch.nrefused)
		mvgal_watch_drop(bo, l, NULL, written);
}

/**
 * mvgal_watch_drop() - a session's copies of some chunks go at its END
 * @bo: the buffer; caller holds bo->lock
 * @l: the session's use of @bo (its chunks, where its copy is)
 * @staged: the chunks to drop, of those the session named, over its span;
 *	    NULL: the refused ones
 * @written: chunks the session wrote, over its span, which stay (their
 *	     copy may be the only current one), or NULL
 *
 * A copy another live session uses stays too: nothing is taken from
 * under a reader.
 */
void mvgal_watch_drop(struct mvgal_bo *bo, struct mvgal_live *l,
		      const unsigned long *staged, const unsigned long *written)
{
	unsigned long i, c;

	lockdep_assert_held(&bo->lock);
	spin_lock(&bo->state_lock);
	for_each_set_bit(i, staged ?: l->chunks, l->n) {
		c = l->base + i;
		if ((!staged && !mvgal_cbit_test(bo, MVGAL_CB_REFUSED, c)) ||
		    (written && test_bit(i, written)) ||
		    mvgal_live_uses(bo, l, c, l->loc))
			continue;
		mvgal_chunk_drop(mvgal_chunk_at(bo, c), l->loc);
	}
	spin_unlock(&bo->state_lock);
}
