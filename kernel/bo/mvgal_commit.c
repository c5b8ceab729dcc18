// SPDX-License-Identifier: GPL-2.0
/*
 * The commit log of a buffer: what WRITE sessions made a GPU's, kept until
 * each session's fence signals so that a failed GPU job gives the chunks
 * back to their holders before.
 */

#include <linux/dma-resv.h>
#include <linux/sync_file.h>

#include "core/mvgal_chunk.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_commit.h"
#include "bo/mvgal_cpumap.h"
#include "bo/mvgal_userptr.h"

/*
 * Who holds a chunk again when the session that wrote it failed: its
 * holders of before. A mirror's home among them holds it alone: the
 * application's memory may have changed since (an invalidation during
 * or after the session, which found the chunk the session's), and the
 * GPUs' copies of before would then be stale.
 */
static unsigned int mvgal_commit_prev(struct mvgal_bo *bo, unsigned int prev)
{
	if (mvgal_userptr_mirrored(bo) && (prev & BIT(bo->home_loc)))
		return BIT(bo->home_loc);
	return prev;
}

/**
 * mvgal_session_settle() - drop what failed sessions wrote
 * @bo: the buffer; caller holds bo->lock
 *
 * For every WRITE session whose fence has signaled since its END: with an
 * error, the GPU's copies of what it wrote are dropped and the holders of
 * before (whose bytes nothing has touched: every copy from the GPU waited
 * for that fence and failed with it) hold the chunks again. Everything
 * that plans copies or reads chunk states calls this first.
 */
void mvgal_session_settle(struct mvgal_bo *bo)
{
	struct mvgal_commit *cm, *tmp;
	unsigned int i;

	lockdep_assert_held(&bo->lock);
	list_for_each_entry_safe(cm, tmp, &bo->commits, link) {
		if (!dma_fence_is_signaled(cm->fence))
			continue;
		if (cm->fence->error) {
			spin_lock(&bo->state_lock);
			for (i = 0; i < cm->n; i++)
				mvgal_chunk_revert(mvgal_chunk_at(bo, cm->e[i].chunk),
						   cm->loc,
						   mvgal_commit_prev(bo, cm->e[i].prev));
			spin_unlock(&bo->state_lock);
			/* The work wrote the home pages themselves (in place):
			 * CPU mappings must fault and fetch the good copy.
			 */
			for (i = 0; cm->loc == bo->home_loc && i < cm->n; i++)
				mvgal_bo_zap(bo, cm->e[i].chunk, cm->e[i].chunk);
			pr_warn_ratelimited("mvgal: buffer %llu: the work of a session on GPU %u failed (%d): its writes to %u chunk(s) dropped\n",
					    bo->id, cm->loc - 1, cm->fence->error,
					    cm->n);
		}
		list_del(&cm->link);
		dma_fence_put(cm->fence);
		kfree(cm);
	}
}

void mvgal_session_commits_free(struct mvgal_bo *bo)
{
	struct mvgal_commit *cm, *tmp;

	if (!bo->commits.next)		/* coherence never set up */
		return;
	list_for_each_entry_safe(cm, tmp, &bo->commits, link) {
		dma_fence_put(cm->fence);
		kfree(cm);
	}
}

void mvgal_commits_free(struct mvgal_commit **cms, unsigned int n)
{
	unsigned int i;

	if (!cms)
		return;
	for (i = 0; i < n; i++)
		kfree(cms[i]);
	kfree(cms);
}
