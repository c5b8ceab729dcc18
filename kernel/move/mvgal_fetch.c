// SPDX-License-Identifier: GPL-2.0
/*
 * Fetching chunks: the source each missing chunk is copied from, planned
 * as copies of a job or made at once under the buffer's lock.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/vmalloc.h>

#include <drm/drm_file.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_path.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_path.h"
#include "dev/mvgal_transfer.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_coherence.h"
#include "bo/mvgal_hmm.h"
#include "bo/mvgal_pages.h"
#include "bo/mvgal_userptr.h"
#include "bo/mvgal_view.h"
#include "move/mvgal_copier.h"
#include "move/mvgal_fetch.h"
#include "move/mvgal_job.h"

/* Validates a MIGRATE request that needs no lookup; 0 or -EINVAL. */
/*
 * The copies that bring chunks [first, last] to @loc. Chunks refused
 * after a hand-off reach a GPU only inside a session, staged: a migration
 * or prefetch leaves them out. The records of the whole range exist
 * afterwards: a MOVE changes them all.
 */
int mvgal_migrate_plan(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned long first, unsigned long last, unsigned int loc)
{
	unsigned long s = first, rs, re;
	int ret;

	ret = mvgal_chunks_ensure(bo, first, last);
	if (ret)
		return ret;
	if (loc == bo->home_loc || !bo->watch.nrefused)
		return mvgal_plan_fetch(job, bo, first, last, loc);
	while (s <= last) {
		/* [rs, re): the next refused run, if it starts in range. */
		if (!mvgal_cbit_next_run(bo, MVGAL_CB_REFUSED, s, &rs, &re) ||
		    rs > last) {
			rs = last + 1;
			re = rs;
		}
		if (s < rs) {
			ret = mvgal_plan_fetch(job, bo, s, rs - 1, loc);
			if (ret)
				return ret;
		}
		s = re;
	}
	return 0;
}

/*
 * Where chunk @c comes from for a copy to @dst, and how: the path
 * selector prices each holder's path for the size of the whole transfer
 * (@pick->size: a method's fixed cost is paid once per run of chunks, not
 * per chunk) and the cheapest wins. Runs of chunks held at the same
 * places get the same answer, so @pick remembers the last one. Returns
 * @dst itself when @dst holds the chunk already.
 */
struct mvgal_pick {
	u64 size;		/* bytes of the transfer being planned */
	unsigned short valid;	/* holders the answer was for; 0: none yet */
	unsigned int src;
	unsigned int method;
};

/* The pick for a transfer of chunks [first, last] of @bo. */
static struct mvgal_pick mvgal_pick_init(struct mvgal_bo *bo,
					 unsigned long first,
					 unsigned long last)
{
	struct mvgal_pick pick = { 0 };

	if (first <= last && last < bo->nchunks)
		pick.size = mvgal_chunk_start(bo, last) +
			    mvgal_chunk_len(bo, last) -
			    mvgal_chunk_start(bo, first);
	return pick;
}

static unsigned int mvgal_pick_source(struct mvgal_bo *bo, unsigned long c,
				      unsigned int dst, struct mvgal_pick *pick)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	unsigned long long cost[MVGAL_LOC_COUNT];
	unsigned int methods[MVGAL_LOC_COUNT];
	struct mvgal_path_choice ch;
	struct mvgal_chunk chunk;
	unsigned int l;

	spin_lock(&bo->state_lock);
	chunk = *mvgal_chunk_peek(bo, c);
	spin_unlock(&bo->state_lock);
	if (mvgal_chunk_valid_at(&chunk, dst))
		return dst;
	if (pick->valid == chunk.valid)
		return pick->src;
	for (l = 0; l < MVGAL_LOC_COUNT; l++) {
		cost[l] = MVGAL_COST_NEVER;
		methods[l] = MVGAL_METHOD_NONE;
		if (l == dst || !mvgal_chunk_valid_at(&chunk, l))
			continue;
		methods[l] = mvgal_select(mdev, l, dst, pick->size, &ch);
		/* In place is no copy at all; for a copy, price the copy. */
		if (methods[l] == MVGAL_METHOD_IN_PLACE)
			methods[l] = MVGAL_METHOD_CPU_COPY;
		if (methods[l] == MVGAL_METHOD_NONE)
			continue;
		cost[l] = ch.cost[methods[l]];
		if (cost[l] == MVGAL_COST_NEVER)
			cost[l] = MVGAL_COST_NEVER - 1;	/* unmeasured: possible */
	}
	pick->valid = chunk.valid;
	pick->src = mvgal_chunk_source(&chunk, dst, cost, MVGAL_LOC_COUNT);
	pick->method = pick->src < MVGAL_LOC_COUNT ? methods[pick->src] :
		       MVGAL_METHOD_NONE;
	return pick->src;
}

/**
 * mvgal_plan_fetch() - add to @job the copies that bring chunks
 * [first, last] that @dst lacks there, each from its cheapest holder
 * @job: the job
 * @bo: the buffer; caller holds bo->lock; @dst has storage
 * @first: first chunk
 * @last: last chunk
 * @dst: the location
 *
 * Nothing is marked: mvgal_job_mark() does that once nothing can fail.
 *
 * Return: 0, -ENOMEM, -EDQUOT (no room for the chunks' records), or -EIO
 * when a chunk has no holder to copy from.
 */
int mvgal_plan_fetch(struct mvgal_job *job, struct mvgal_bo *bo,
		     unsigned long first, unsigned long last, unsigned int dst)
{
	struct mvgal_pick pick = mvgal_pick_init(bo, first, last);
	unsigned long c;
	int ret;

	lockdep_assert_held(&bo->lock);
	/* The job marks them held at @dst once nothing can fail. */
	ret = mvgal_chunks_ensure(bo, first, last);
	if (!ret)
		ret = mvgal_hmm_ready_chunks(bo, first, last, dst);
	if (ret)
		return ret;
	for (c = mvgal_next_missing(bo, first, last, dst); c <= last;
	     c = mvgal_next_missing(bo, c + 1, last, dst)) {
		u64 start = mvgal_chunk_start(bo, c), len = mvgal_chunk_len(bo, c);
		unsigned int src = mvgal_pick_source(bo, c, dst, &pick);

		if (src == dst)
			continue;
		if (WARN_ON_ONCE(src >= MVGAL_LOC_COUNT))
			return -EIO;
		/* Host pages at either end exist before the job runs. */
		ret = mvgal_bo_populate_dir(bo, start, len,
					    dst == bo->home_loc);
		if (!ret)
			ret = mvgal_job_add_copy(job, bo, dst, src, start, len,
						 pick.method);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Chunk @c, copied from @src, counts as held at @dst: unless its buffer
 * is a mirror invalidated since the copy was planned (the copy may have
 * used pages the range no longer maps): -EAGAIN, the chunk wanted.
 */
static int mvgal_fetch_mark(struct mvgal_bo *bo, unsigned long c,
			    unsigned int src, unsigned int dst)
{
	bool mirror = mvgal_userptr_mirrored(bo);
	int ret = 0;

	if (mirror) {
		mvgal_hmm_publish_lock(bo);
		ret = mvgal_hmm_current(bo, mvgal_chunk_start(bo, c),
					mvgal_chunk_len(bo, c), src, dst);
	}
	if (!ret) {
		spin_lock(&bo->state_lock);
		mvgal_chunk_filled(mvgal_chunk_at(bo, c), dst);
		spin_unlock(&bo->state_lock);
	}
	if (mirror)
		mvgal_hmm_publish_unlock();
	return ret;
}

/*
 * Copies chunks [first, last] that @dst lacks to it now, on the calling
 * thread, and marks them held there. Caller holds bo->lock and has seen
 * every fence of the buffer signaled, so every holder's bytes are there.
 * What was copied, failure or not, is added to *@moved (if any): a caller
 * whose fetches are one migration counts it once for all of them. A
 * mirror invalidated meanwhile ends it with -EAGAIN; the chunks copied
 * before count.
 */
int mvgal_fetch_locked(struct mvgal_bo *bo, unsigned long first,
		       unsigned long last, unsigned int dst,
		       struct mvgal_moved *moved)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	struct mvgal_pick pick = mvgal_pick_init(bo, first, last);
	void *bounce = NULL;
	unsigned long c;
	int ret;

	ret = mvgal_hmm_ready_chunks(bo, first, last, dst);
	if (ret)
		return ret;
	for (c = mvgal_next_missing(bo, first, last, dst); c <= last;
	     c = mvgal_next_missing(bo, c + 1, last, dst)) {
		u64 start = mvgal_chunk_start(bo, c), len = mvgal_chunk_len(bo, c);
		unsigned int src = mvgal_pick_source(bo, c, dst, &pick);
		unsigned int method = pick.method;

		if (src == dst)
			continue;
		if (src >= MVGAL_LOC_COUNT) {
			ret = -EIO;	/* a broken invariant: never expected */
			WARN_ON_ONCE(1);
			break;
		}
		ret = mvgal_bo_populate_dir(bo, start, len,
					    dst == bo->home_loc);
		if (ret)
			break;
		if (!bounce) {
			/* On the node of the memory it fills. */
			bounce = kmalloc_node(MVGAL_BOUNCE_SIZE, GFP_KERNEL_ACCOUNT,
					      mvgal_loc_node(bo, dst));
			if (!bounce) {
				ret = -ENOMEM;
				break;
			}
		}
		ret = mvgal_copy(bo, dst, src, start, len, &method, bounce);
		if (ret)
			break;
		mvgal_bo_count_copy(bo, dst, src, len);
		atomic64_add(len, &mdev->ctr.bytes[method]);
		atomic64_inc(&mdev->ctr.copies[method]);
		if (moved) {
			moved->bytes += len;
			moved->locs |= BIT(dst) | BIT(src);
		}
		ret = mvgal_fetch_mark(bo, c, src, dst);
		if (ret)
			break;
	}
	kfree(bounce);
	return ret;
}
