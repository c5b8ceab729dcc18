// SPDX-License-Identifier: GPL-2.0
/*
 * Write-watch: which chunks the CPU wrote, without a shadow copy.
 *
 * CPU mappings are write-notify mappings: a page is mapped writable only
 * while its chunk is marked written in both records below, so the first
 * write to any other page faults (pfn_mkwrite) and marks the chunk.
 * Resetting a record write-protects the chunk's pages again
 * (wp_shared_mapping_range(), the helper vmwgfx tracks dirty pages with),
 * so the next write is seen again. The two records:
 *
 *  - @cpu_pending: written since the chunk states last took the writes
 *    in. A mapped write leaves the GPU copies alone; the next operation
 *    that plans copies (BEGIN, END, MIGRATE, a residency report) folds
 *    the pending chunks in first: home becomes their only holder, so a
 *    BEGIN copies exactly the chunks the CPU wrote since its GPU's copy
 *    was made.
 *  - @cpu_written: written since HARVEST last reset it, for the user.
 *
 * Both are chunk bits (MVGAL_CB_PENDING, MVGAL_CB_WRITTEN, in the
 * buffer's chunk records) under bo->lock. The fault handlers install their
 * PTEs with bo->lock held, so a reset cannot slip between marking a chunk
 * and mapping its page writable.
 */

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_commit.h"
#include "bo/mvgal_cpumap.h"
#include "bo/mvgal_cpuwrite.h"
#include "bo/mvgal_live.h"
#include "bo/mvgal_mirror.h"

/*
 * A mapped CPU write to chunks [first, last] while live sessions read GPU
 * copies of them: a hand-off, which each such session's END deals with.
 * A CPU fault cannot be refused: should the session's bitmap not be had,
 * the chunks are refused at once (only "the GPU's bytes land last" is
 * lost then: the CPU's stay).
 */
static void mvgal_watch_handoff(struct mvgal_bo *bo, unsigned long first,
				unsigned long last)
{
	struct mvgal_live *l;
	unsigned long c;

	list_for_each_entry(l, &bo->live, link) {
		if (!l->gpu_copy || !mvgal_live_any(l, first, last))
			continue;
		if (!l->cpu_wrote)
			l->cpu_wrote = bitmap_zalloc(l->n, GFP_KERNEL_ACCOUNT |
						     __GFP_NOWARN);
		for (c = first; c <= last; c++) {
			if (!mvgal_live_has(l, c))
				continue;
			if (l->cpu_wrote) {
				__set_bit(c - l->base, l->cpu_wrote);
			} else if (!mvgal_cbit_set(bo, MVGAL_CB_REFUSED, c)) {
				bo->watch.nrefused++;
				bo->watch.handoffs++;
			}
		}
	}
}

/**
 * mvgal_watch_mark() - the CPU wrote chunks [first, last]
 * @bo: the buffer; caller holds bo->lock and ensured the chunks' records
 * @first: first chunk
 * @last: last chunk
 * @pending: a mapped write, which the chunk states take in later (a
 *	     write through the kernel has already made home the only holder)
 */
void mvgal_watch_mark(struct mvgal_bo *bo, unsigned long first,
		      unsigned long last, bool pending)
{
	unsigned long c;

	lockdep_assert_held(&bo->lock);
	for (c = first; c <= last; c++) {
		if (!mvgal_cbit_set(bo, MVGAL_CB_WRITTEN, c))
			bo->watch.nwritten++;
		if (pending && !mvgal_cbit_set(bo, MVGAL_CB_PENDING, c))
			bo->watch.npending++;
	}
	/* Only a mapped write can happen during a conflicting session. */
	if (pending && bo->sessions)
		mvgal_watch_handoff(bo, first, last);
}

/* May chunk @c's pages be mapped writable? Caller holds bo->lock. */
bool mvgal_watch_writable(struct mvgal_bo *bo, unsigned long c)
{
	lockdep_assert_held(&bo->lock);
	return mvgal_cbit_test(bo, MVGAL_CB_WRITTEN, c) &&
	       mvgal_cbit_test(bo, MVGAL_CB_PENDING, c);
}

#if IS_ENABLED(CONFIG_MAPPING_DIRTY_HELPERS)
/* Write-protects the pages of chunks [first, last] in every mapping. */
static void mvgal_watch_wp(struct mvgal_bo *bo, unsigned long first,
			   unsigned long last)
{
	pgoff_t start, nr;

	start = drm_vma_node_start(&bo->base.vma_node) +
		(mvgal_chunk_start(bo, first) >> PAGE_SHIFT);
	nr = DIV_ROUND_UP(mvgal_chunk_start(bo, last) +
			  mvgal_chunk_len(bo, last) -
			  mvgal_chunk_start(bo, first), PAGE_SIZE);
	wp_shared_mapping_range(bo->base.dev->anon_inode->i_mapping, start, nr);
	if (bo->dmabuf_mapping)
		wp_shared_mapping_range(bo->dmabuf_mapping, start, nr);
}
#endif

/*
 * Makes the next CPU write to chunks [first, last] fault, in every
 * mapping: write-protected, or unmapped. walk_page_mapping() (under
 * wp_shared_mapping_range()) stops at a mapping that can never be written
 * (no VM_MAYWRITE): once there was one, the pages are unmapped instead.
 * Kernels without the dirty-tracking helpers (only drivers such as vmwgfx
 * select CONFIG_MAPPING_DIRTY_HELPERS) always unmap.
 */
static void mvgal_watch_protect(struct mvgal_bo *bo, unsigned long first,
				unsigned long last)
{
	lockdep_assert_held(&bo->lock);
	if (!bo->cpu_mapped)
		return;
#if IS_ENABLED(CONFIG_MAPPING_DIRTY_HELPERS)
	if (!bo->wp_unmaps) {
		mvgal_watch_wp(bo, first, last);
		return;
	}
#endif
	mvgal_bo_zap(bo, first, last);
}

/**
 * mvgal_watch_fold() - the chunk states take in the CPU's mapped writes
 * (and the failed sessions' writes are dropped, mvgal_session_settle())
 * @bo: the buffer; caller holds bo->lock
 *
 * Every pending chunk gets home as its only holder (its GPU copies are
 * stale) and is write-protected again. Cost: the pending chunks.
 */
void mvgal_watch_fold(struct mvgal_bo *bo)
{
	unsigned long start, end, c;

	lockdep_assert_held(&bo->lock);
	mvgal_session_settle(bo);
	if (!bo->watch.npending)
		return;
	mvgal_mirror_note_write(bo);
	for (end = 0; mvgal_cbit_next_run(bo, MVGAL_CB_PENDING, end, &start, &end);) {
		spin_lock(&bo->state_lock);
		for (c = start; c < end; c++)
			mvgal_chunk_written(mvgal_chunk_at(bo, c), bo->home_loc);
		spin_unlock(&bo->state_lock);
		mvgal_cbit_assign(bo, MVGAL_CB_PENDING, start, end - 1, false);
		mvgal_watch_protect(bo, start, end - 1);
	}
	bo->watch.npending = 0;
}

/* Runs of written chunks in @bo's record. Caller holds bo->lock. */
static u32 mvgal_watch_runs(struct mvgal_bo *bo)
{
	unsigned long start, end;
	u32 n = 0;

	for (end = 0; mvgal_cbit_next_run(bo, MVGAL_CB_WRITTEN, end, &start, &end);)
		n++;
	return n;
}

/*
 * Words of @bo's bitmap that hold a written chunk. Runs are apart by at
 * least one chunk, so only a run's first word can be the one its
 * predecessor ended in. Caller holds bo->lock.
 */
static u32 mvgal_watch_words(struct mvgal_bo *bo)
{
	unsigned long start, end, last = ULONG_MAX;
	u32 n = 0;

	for (end = 0; mvgal_cbit_next_run(bo, MVGAL_CB_WRITTEN, end, &start, &end);) {
		n += (end - 1) / 64 - start / 64 + (start / 64 != last);
		last = (end - 1) / 64;
	}
	return n;
}

/*
 * What entry @e of @bo needs at its data pointer: words or runs. A
 * zeroed bitmap is written only where chunks were, but the caller's array
 * must hold the whole bitmap all the same, so that the answer does not
 * depend on what was written.
 */
u32 mvgal_harvest_need(struct mvgal_bo *bo,
		       const struct drm_mvgal_harvest_entry *e)
{
	if (e->flags & MVGAL_HARVEST_RUNS)
		return mvgal_watch_runs(bo);
	return DIV_ROUND_UP(bo->nchunks, 64);
}

/* A reset takes chunks [start, end) out of the record and re-arms them. */
static void mvgal_harvest_take(struct mvgal_bo *bo, unsigned long start,
			       unsigned long end)
{
	mvgal_cbit_assign(bo, MVGAL_CB_WRITTEN, start, end - 1, false);
	mvgal_watch_protect(bo, start, end - 1);
}

/*
 * ORs chunks [start, end) into @sp a word at a time; runs come in
 * increasing order, so a word is new or the last one.
 */
static void mvgal_harvest_sparse_add(struct mvgal_harvest_sparse *sp,
				     unsigned long start, unsigned long end)
{
	unsigned long w, lo, hi;

	for (w = start / 64; w <= (end - 1) / 64; w++) {
		lo = max(start, w * 64) % 64;
		hi = min(end - 1, w * 64 + 63) % 64;
		if (!sp->n || sp->idx[sp->n - 1] != w) {
			sp->idx[sp->n] = w;
			sp->word[sp->n++] = 0;
		}
		sp->word[sp->n - 1] |= GENMASK_ULL(hi, lo);
	}
}

/*
 * mvgal_harvest_snap() for MVGAL_HARVEST_ZEROED: only the non-zero words
 * and their indices, so that neither this nor the copy out grows with
 * the buffer's size. The two walks see the same runs: marking a chunk
 * takes bo->lock, which the caller holds across both.
 */
static int mvgal_harvest_snap_sparse(struct mvgal_bo *bo,
				     struct drm_mvgal_harvest_entry *e,
				     bool reset, void **out, size_t *bytes)
{
	u32 words = mvgal_watch_words(bo);
	struct mvgal_harvest_sparse *sp;
	unsigned long start, end;
	u64 chunks = 0;

	/* The words, then their indices: one allocation. */
	sp = kvmalloc(size_add(struct_size(sp, word, words),
			       array_size(words, sizeof(*sp->idx))),
		      GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!sp)
		return -ENOMEM;
	sp->n = 0;
	sp->idx = (u32 *)&sp->word[words];
	for (end = 0; mvgal_cbit_next_run(bo, MVGAL_CB_WRITTEN, end, &start, &end);) {
		mvgal_harvest_sparse_add(sp, start, end);
		chunks += end - start;
		if (reset)
			mvgal_harvest_take(bo, start, end);
	}
	if (reset)
		bo->watch.nwritten -= chunks;
	*out = sp;
	*bytes = sp->n * sizeof(u64);
	e->count = sp->n;
	e->chunks = chunks;
	return 0;
}

/*
 * Takes @bo's record for entry @e into a kernel buffer (*@out, *@bytes
 * long; a &struct mvgal_harvest_sparse for MVGAL_HARVEST_ZEROED) and,
 * with @reset, clears what it took and write-protects those chunks again.
 * At most @e->capacity runs are taken; runs a concurrent write added
 * beyond that stay recorded. No user memory is touched here: a fault on a
 * mapping of this very buffer would need bo->lock, which the caller holds.
 */
int mvgal_harvest_snap(struct mvgal_bo *bo,
		       struct drm_mvgal_harvest_entry *e, bool reset,
		       void **out, size_t *bytes)
{
	bool runs = e->flags & MVGAL_HARVEST_RUNS;
	struct drm_mvgal_range *r = NULL;
	unsigned long start, end, c;
	u64 *arr = NULL;
	u32 n = 0, cap = 0;
	u64 chunks = 0;

	lockdep_assert_held(&bo->lock);
	if (e->flags & MVGAL_HARVEST_ZEROED)
		return mvgal_harvest_snap_sparse(bo, e, reset, out, bytes);
	if (!runs) {
		/* As big as the caller's array: the record in words. */
		u32 words = DIV_ROUND_UP(bo->nchunks, 64);

		arr = kvcalloc(words, sizeof(*arr), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!arr)
			return -ENOMEM;
		*out = arr;
		*bytes = words * sizeof(*arr);
		n = words;
	} else {
		/* There are never more runs than chunks. */
		cap = min_t(u64, e->capacity, bo->nchunks);
		r = kvmalloc_array(max(cap, 1U), sizeof(*r), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!r)
			return -ENOMEM;
		*out = r;
	}
	for (end = 0; mvgal_cbit_next_run(bo, MVGAL_CB_WRITTEN, end, &start, &end);) {
		if (runs) {
			if (n == cap)
				break;
			r[n].offset = mvgal_chunk_start(bo, start);
			r[n].size = min(mvgal_chunk_start(bo, end), bo->size) -
				    r[n].offset;
			n++;
		} else {
			for (c = start; c < end; c++)
				arr[c / 64] |= 1ULL << (c % 64);
		}
		chunks += end - start;
		if (reset)
			mvgal_harvest_take(bo, start, end);
	}
	if (runs)
		*bytes = n * sizeof(*r);
	if (reset)
		bo->watch.nwritten -= chunks;
	e->count = n;
	e->chunks = chunks;
	return 0;
}

/*
 * Marks the chunks of @word, word @w of a bitmap, written again.
 * Return: how many were not marked already.
 */
static unsigned long mvgal_harvest_remark(struct mvgal_bo *bo,
					  unsigned long w, u64 word)
{
	unsigned long n = 0;

	for (; word; word &= word - 1)
		n += !mvgal_cbit_set(bo, MVGAL_CB_WRITTEN,
				     w * 64 + __ffs64(word));
	return n;
}

/*
 * A reset whose results could not reach the caller: the chunks it took
 * (@buf, as mvgal_harvest_snap() made it) are marked written again, so
 * that nothing is lost; the cost is what the snapshot holds. Their pages
 * stay write-protected, which only costs a fault.
 */
void mvgal_harvest_restore(struct mvgal_bo *bo,
			   const struct drm_mvgal_harvest_entry *e,
			   const void *buf)
{
	const struct mvgal_harvest_sparse *sp = buf;
	const struct drm_mvgal_range *r = buf;
	u64 csize = 1ULL << bo->chunk_shift;
	unsigned long c, last, n = 0;
	const u64 *arr = buf;
	u32 i;

	/* Every chunk here was marked before: its record exists. */
	mutex_lock(&bo->lock);
	if (e->flags & MVGAL_HARVEST_ZEROED) {
		for (i = 0; i < sp->n; i++)
			n += mvgal_harvest_remark(bo, sp->idx[i], sp->word[i]);
	} else if (e->flags & MVGAL_HARVEST_RUNS) {
		for (i = 0; i < e->count; i++) {
			last = DIV_ROUND_UP_ULL(r[i].offset + r[i].size,
						csize) - 1;
			for (c = r[i].offset >> bo->chunk_shift; c <= last; c++)
				n += !mvgal_cbit_set(bo, MVGAL_CB_WRITTEN, c);
		}
	} else {
		for (i = 0; i < e->count; i++)
			n += mvgal_harvest_remark(bo, i, arr[i]);
	}
	/* Writes since the snapshot may have marked some of them again. */
	bo->watch.nwritten += n;
	mutex_unlock(&bo->lock);
}
