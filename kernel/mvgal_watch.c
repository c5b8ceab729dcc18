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
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>

#include "mvgal_bo.h"

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
				bo->nrefused++;
				bo->handoffs++;
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
			bo->nwritten++;
		if (pending && !mvgal_cbit_set(bo, MVGAL_CB_PENDING, c))
			bo->npending++;
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

/*
 * Write-protects the pages of chunks [first, last] in every CPU mapping,
 * so that the next write faults. walk_page_mapping() stops at a mapping
 * that can never be written (no VM_MAYWRITE): once there was one, the
 * pages are unmapped instead, which also makes the next write fault.
 */
static void mvgal_watch_protect(struct mvgal_bo *bo, unsigned long first,
				unsigned long last)
{
	pgoff_t start, nr;

	lockdep_assert_held(&bo->lock);
	if (!bo->cpu_mapped)
		return;
	/* Kernels without the dirty-tracking helpers (only vmwgfx selects
	 * them) unmap instead.
	 */
	if (!IS_ENABLED(CONFIG_MAPPING_DIRTY_HELPERS) || bo->wp_unmaps) {
		mvgal_bo_zap(bo, first, last);
		return;
	}
	start = drm_vma_node_start(&bo->base.vma_node) +
		(mvgal_chunk_start(bo, first) >> PAGE_SHIFT);
	nr = DIV_ROUND_UP(mvgal_chunk_start(bo, last) +
			  mvgal_chunk_len(bo, last) -
			  mvgal_chunk_start(bo, first), PAGE_SIZE);
	wp_shared_mapping_range(bo->base.dev->anon_inode->i_mapping, start, nr);
	if (bo->dmabuf_mapping)
		wp_shared_mapping_range(bo->dmabuf_mapping, start, nr);
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
	if (!bo->npending)
		return;
	mvgal_policy_write(bo);
	for (end = 0; mvgal_cbit_next_run(bo, MVGAL_CB_PENDING, end, &start, &end);) {
		spin_lock(&bo->state_lock);
		for (c = start; c < end; c++)
			mvgal_chunk_written(mvgal_chunk_at(bo, c), bo->home_loc);
		spin_unlock(&bo->state_lock);
		mvgal_cbit_assign(bo, MVGAL_CB_PENDING, start, end - 1, false);
		mvgal_watch_protect(bo, start, end - 1);
	}
	bo->npending = 0;
}

/*
 * Does a live session other than @self use the copy of chunk @c at @loc?
 * Then it must not be dropped under it. Caller holds bo->lock.
 */
bool mvgal_live_uses(struct mvgal_bo *bo, struct mvgal_live *self,
		     unsigned long c, unsigned int loc)
{
	struct mvgal_live *l;

	list_for_each_entry(l, &bo->live, link)
		if (l != self && l->loc == loc && mvgal_live_has(l, c))
			return true;
	return false;
}

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
				bo->nrefused++;
			/* The fold left home its only holder: the GPU's
			 * bytes at @loc are the ones to keep.
			 */
			if (written && test_bit(i, written)) {
				mvgal_chunk_filled(mvgal_chunk_at(bo, c), loc);
				both++;
			}
		}
		spin_unlock(&bo->state_lock);
		bo->handoffs += n;
		pr_warn_ratelimited("mvgal: buffer %llu: the CPU wrote %lu chunk(s) while GPU %u used a copy: refused for good, staged per access%s\n",
				    bo->id, n, loc - 1,
				    both ? "; the GPU wrote some too, its bytes land last" : "");
	}
	if (bo->nrefused)
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

/* Runs of written chunks in @bo's record. Caller holds bo->lock. */
static u32 mvgal_watch_runs(struct mvgal_bo *bo)
{
	unsigned long start, end;
	u32 n = 0;

	for (end = 0; mvgal_cbit_next_run(bo, MVGAL_CB_WRITTEN, end, &start, &end);)
		n++;
	return n;
}

/* What entry @e of @bo needs at its data pointer: words or runs. */
static u32 mvgal_harvest_need(struct mvgal_bo *bo,
			      const struct drm_mvgal_harvest_entry *e)
{
	if (e->flags & MVGAL_HARVEST_RUNS)
		return mvgal_watch_runs(bo);
	return DIV_ROUND_UP(bo->nchunks, 64);
}

/*
 * Takes @bo's record for entry @e into a kernel buffer (*@out, *@bytes
 * long) and, with @reset, clears what it took and write-protects those
 * chunks again. At most @e->capacity runs are taken; runs a concurrent
 * write added beyond that stay recorded. No user memory is touched here:
 * a fault on a mapping of this very buffer would need bo->lock, which the
 * caller holds.
 */
static int mvgal_harvest_snap(struct mvgal_bo *bo,
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
		if (reset) {
			mvgal_cbit_assign(bo, MVGAL_CB_WRITTEN, start, end - 1,
					  false);
			mvgal_watch_protect(bo, start, end - 1);
		}
	}
	if (runs)
		*bytes = n * sizeof(*r);
	if (reset)
		bo->nwritten -= chunks;
	e->count = n;
	e->chunks = chunks;
	return 0;
}

/*
 * A reset whose results could not reach the caller: the chunks it took
 * (@buf, as mvgal_harvest_snap() made it) are marked written again, so
 * that nothing is lost. Their pages stay write-protected, which only
 * costs a fault.
 */
static void mvgal_harvest_restore(struct mvgal_bo *bo,
				  const struct drm_mvgal_harvest_entry *e,
				  const void *buf)
{
	u64 csize = 1ULL << bo->chunk_shift;
	unsigned long c;
	u32 i;

	/* Every chunk here was marked before: its record exists. */
	mutex_lock(&bo->lock);
	if (!(e->flags & MVGAL_HARVEST_RUNS)) {
		const u64 *arr = buf;

		for (c = 0; c < bo->nchunks; c++) {
			if (!arr[c / 64])
				c |= 63;	/* a word of nothing */
			else if (arr[c / 64] & (1ULL << (c % 64)))
				mvgal_cbit_set(bo, MVGAL_CB_WRITTEN, c);
		}
	} else {
		const struct drm_mvgal_range *r = buf;

		for (i = 0; i < e->count; i++)
			mvgal_cbit_assign(bo, MVGAL_CB_WRITTEN,
					  r[i].offset >> bo->chunk_shift,
					  DIV_ROUND_UP_ULL(r[i].offset + r[i].size,
							   csize) - 1, true);
	}
	bo->nwritten = mvgal_cbit_weight(bo, MVGAL_CB_WRITTEN);
	mutex_unlock(&bo->lock);
}

/**
 * mvgal_ioctl_harvest() - DRM_IOCTL_MVGAL_HARVEST
 * @dev: the mvgal DRM device
 * @data: &struct drm_mvgal_harvest
 * @file: the caller
 *
 * Two passes: the first checks every entry (handles, flags, room) and
 * that every output is writable, changing nothing; the second reports
 * and resets. Return: 0 or -errno, see &struct drm_mvgal_harvest.
 */
int mvgal_ioctl_harvest(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_mvgal_harvest *args = data;
	bool reset = args->flags & MVGAL_HARVEST_RESET;
	struct drm_mvgal_harvest_entry *ents;
	struct mvgal_bo **bos = NULL;
	size_t *sizes = NULL;
	void **outs = NULL;
	bool short_room = false;
	u32 i, j;
	int ret = 0;

	if (args->flags & ~MVGAL_HARVEST_FLAGS || !args->count ||
	    args->count > MVGAL_HARVEST_MAX_BUFFERS)
		return -EINVAL;
	ents = memdup_array_user(u64_to_user_ptr(args->entries), args->count,
				 sizeof(*ents));
	if (IS_ERR(ents))
		return PTR_ERR(ents);
	bos = kcalloc(args->count, sizeof(*bos), GFP_KERNEL_ACCOUNT);
	if (!bos) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < args->count; i++) {
		struct drm_mvgal_harvest_entry *e = &ents[i];

		if (e->flags & ~MVGAL_HARVEST_ENTRY_FLAGS) {
			ret = -EINVAL;
			goto out;
		}
		e->count = 0;
		e->chunks = 0;
		/* A reset takes the records from the buffer's writers. */
		bos[i] = mvgal_bo_lookup_access(file, e->handle,
						args->flags & MVGAL_HARVEST_RESET,
						&ret);
		if (!bos[i])
			goto out;
		for (j = 0; j < i; j++) {
			if (bos[j] == bos[i]) {
				ret = -EINVAL;
				goto out;
			}
		}
	}
	for (i = 0; i < args->count; i++) {
		struct drm_mvgal_harvest_entry *e = &ents[i];
		size_t elem = e->flags & MVGAL_HARVEST_RUNS ?
			      sizeof(struct drm_mvgal_range) : sizeof(u64);
		u32 need;

		mutex_lock(&bos[i]->lock);
		need = mvgal_harvest_need(bos[i], e);
		mutex_unlock(&bos[i]->lock);
		if (need > e->capacity) {
			e->count = need;
			short_room = true;
		} else if (need && clear_user(u64_to_user_ptr(e->data),
					      (size_t)need * elem)) {
			ret = -EFAULT;
			goto out;
		}
	}
	if (short_room) {
		for (i = 0; i < args->count; i++)
			if (ents[i].count &&
			    put_user(ents[i].count,
				     &((struct drm_mvgal_harvest_entry __user *)
				       u64_to_user_ptr(args->entries))[i].count))
				ret = -EFAULT;
		ret = ret ?: -ENOSPC;
		goto out;
	}
	outs = kcalloc(args->count, sizeof(*outs), GFP_KERNEL_ACCOUNT);
	sizes = kcalloc(args->count, sizeof(*sizes), GFP_KERNEL_ACCOUNT);
	if (!outs || !sizes) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < args->count && !ret; i++) {
		mutex_lock(&bos[i]->lock);
		ret = mvgal_harvest_snap(bos[i], &ents[i], reset, &outs[i],
					 &sizes[i]);
		mutex_unlock(&bos[i]->lock);
	}
	/* Out to the caller with no lock held; all or nothing. */
	for (i = 0; i < args->count && !ret; i++)
		if (sizes[i] && copy_to_user(u64_to_user_ptr(ents[i].data),
					     outs[i], sizes[i]))
			ret = -EFAULT;
	if (!ret && copy_to_user(u64_to_user_ptr(args->entries), ents,
				 array_size(args->count, sizeof(*ents))))
		ret = -EFAULT;
	if (ret && reset)
		for (i = 0; i < args->count && outs[i]; i++)
			mvgal_harvest_restore(bos[i], &ents[i], outs[i]);
out:
	if (outs) {
		for (i = 0; i < args->count; i++)
			kvfree(outs[i]);
	}
	kfree(outs);
	kfree(sizes);
	if (bos) {
		for (i = 0; i < args->count; i++)
			if (bos[i])
				drm_gem_object_put(&bos[i]->base);
		kfree(bos);
	}
	kfree(ents);
	return ret;
}
