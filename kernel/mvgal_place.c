// SPDX-License-Identifier: GPL-2.0
/*
 * Placements and coherence: where each location's copy of a buffer is,
 * copying chunks between locations, bringing chunks home for the CPU,
 * and draining a placement home before it goes.
 *
 * Location 0 is the host copy (pages, or an import's vmap); location
 * 1 + N is GPU N's pool. A device-only buffer's home is its GPU's pool
 * range (bo->alloc); every other pool copy is a placement (bo->place[]).
 */
#include <linux/dma-resv.h>
#include <linux/error-injection.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_vma_manager.h>

#include "core/mvgal_range.h"
#include "mvgal_bo.h"

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
	bo->preferred = MVGAL_GPU_ANY;
	bo->nid_gpu = MVGAL_GPU_ANY;
	mvgal_numa_init(bo);
	mvgal_mirror_init(&bo->mirror, ktime_get_coarse_ns());
}

/**
 * mvgal_bo_view() - how the CPU reaches location @loc's copy of @bo
 * @bo: the buffer
 * @loc: MVGAL_LOC_HOST or 1 + GPU
 * @v: (out) host pages, or a kernel mapping and the buffer's base in it
 *
 * Return: false when @loc has no storage for the buffer.
 */
bool mvgal_bo_view(struct mvgal_bo *bo, unsigned int loc, struct mvgal_view *v)
{
	struct mvgal_place *p;

	memset(v, 0, sizeof(*v));
	if (loc == MVGAL_LOC_HOST) {
		if (mvgal_bo_device_only(bo))
			return false;
		if (bo->vaddr) {
			iosys_map_set_vaddr(&v->map, bo->vaddr);
			return true;
		}
		if (bo->host) {
			v->pages = &bo->pages;
			return true;
		}
		v->map = bo->map;	/* an import */
		v->base = bo->map_offset;
		return true;
	}
	if (bo->home && bo->home->index == loc - 1) {
		v->map = bo->map;
		v->base = bo->map_offset;
		return true;
	}
	p = bo->place[loc - 1];
	if (!p)
		return false;
	v->map = p->gpu->pool.map;
	v->base = p->alloc.node.start;
	return true;
}

/* Copy between @buf and bytes [off, off + len) of a view. */
void mvgal_view_rw(struct mvgal_view *v, u64 off, void *buf, size_t len,
		   bool write)
{
	if (!v->pages) {
		if (write)
			iosys_map_memcpy_to(&v->map, v->base + off, buf, len);
		else
			iosys_map_memcpy_from(buf, &v->map, v->base + off, len);
		return;
	}
	while (len) {
		struct page *page = xa_load(v->pages, off >> PAGE_SHIFT);
		size_t in = off & ~PAGE_MASK;
		size_t n = min_t(size_t, len, PAGE_SIZE - in);
		void *va;

		/* Pages are populated before any copy is planned. */
		if (!WARN_ON_ONCE(!page)) {
			va = kmap_local_page(page);
			if (write)
				memcpy(va + in, buf, n);
			else
				memcpy(buf, va + in, n);
			kunmap_local(va);
		}
		buf += n;
		off += n;
		len -= n;
	}
}

/* Through the bounce buffer: read the source once, then write. */
static void mvgal_view_stage(struct mvgal_view *d, struct mvgal_view *s,
			     u64 off, u64 len, void *bounce)
{
	while (len) {
		size_t n = min_t(u64, len, MVGAL_BOUNCE_SIZE);

		mvgal_view_rw(s, off, bounce, n, false);
		mvgal_view_rw(d, off, bounce, n, true);
		off += n;
		len -= n;
	}
}

/*
 * The direct CPU copy, one pass: when either side is a mapping of system
 * memory, the other side copies straight to or from it. Only pages or I/O
 * memory at both ends (never two host copies: a buffer has one) leave
 * nothing to point at, and go through the bounce buffer.
 */
static void mvgal_view_copy(struct mvgal_view *d, struct mvgal_view *s,
			    u64 off, u64 len, void *bounce)
{
	if (!s->pages && !s->map.is_iomem)
		mvgal_view_rw(d, off, s->map.vaddr + s->base + off, len, true);
	else if (!d->pages && !d->map.is_iomem)
		mvgal_view_rw(s, off, d->map.vaddr + d->base + off, len, false);
	else
		mvgal_view_stage(d, s, off, len, bounce);
}

/**
 * mvgal_loc_copy() - copy bytes of @bo from location @src to @dst
 * @bo: the buffer; both locations have storage, host pages populated
 * @dst: destination location
 * @src: source location
 * @off: byte offset, the same at both ends
 * @len: bytes
 * @method: MVGAL_METHOD_CPU_COPY or MVGAL_METHOD_STAGING
 * @bounce: MVGAL_BOUNCE_SIZE bytes on the destination's node (staging,
 *	    or I/O memory at both ends)
 *
 * Every transfer of a buffer's bytes between locations goes through here,
 * so a failure injected here (fail_function) is a failed copy engine: the
 * callers must leave the chunks with the holders they had.
 *
 * Return: 0, or -EOPNOTSUPP for a method the CPU cannot carry out.
 */
noinline int mvgal_loc_copy(struct mvgal_bo *bo, unsigned int dst,
			    unsigned int src, u64 off, u64 len,
			    unsigned int method, void *bounce)
{
	struct mvgal_view d, s;

	if (!mvgal_bo_view(bo, dst, &d) || !mvgal_bo_view(bo, src, &s))
		return -EINVAL;
	return mvgal_view_transfer(&d, &s, off, len, method, bounce);
}
ALLOW_ERROR_INJECTION(mvgal_loc_copy, ERRNO);

/*
 * mvgal_view_transfer() - move bytes [off, off + len) from @s to @d
 * with @method (see mvgal_loc_copy()); the calibration times this too
 */
int mvgal_view_transfer(struct mvgal_view *d, struct mvgal_view *s, u64 off,
			u64 len, unsigned int method, void *bounce)
{
	switch (method) {
	case MVGAL_METHOD_CPU_COPY:
		mvgal_view_copy(d, s, off, len, bounce);
		return 0;
	case MVGAL_METHOD_STAGING:
		/* The bounce buffer is on the destination's node. */
		mvgal_view_stage(d, s, off, len, bounce);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/*
 * mvgal_bo_populate_range() - host pages for bytes [off, off + len)
 * @bo: the buffer; caller holds bo->lock
 *
 * Return: 0 or -ENOMEM.
 */
int mvgal_bo_populate_range(struct mvgal_bo *bo, u64 off, u64 len)
{
	unsigned long i;

	lockdep_assert_held(&bo->lock);
	if (!bo->host || !len || bo->vaddr)
		return 0;
	for (i = off >> PAGE_SHIFT; i <= (off + len - 1) >> PAGE_SHIFT; i++) {
		struct page *page = mvgal_bo_page(bo, i);

		if (IS_ERR(page))
			return PTR_ERR(page);
	}
	/*
	 * Every page there: map them all once, so that copies are one
	 * memcpy() rather than one per page (in the test guest that halved
	 * a 1 MiB copy), with the pages' own memory type (no cached alias
	 * of write-combined pages). Without the mapping, copies walk pages.
	 */
	if (bo->nr_pages == bo->npages) {
		struct page **pages = mvgal_bo_page_array(bo);

		if (pages)
			bo->vaddr = vmap(pages, bo->npages, VM_MAP,
					 bo->flags & MVGAL_BO_CPU_UNCACHED ?
					 pgprot_writecombine(PAGE_KERNEL) :
					 PAGE_KERNEL);
		kvfree(pages);
	}
	return 0;
}

/**
 * mvgal_place_get() - make sure @bo has a placement in @gpu's pool
 * @bo: the buffer; caller holds bo->lock
 * @gpu: the GPU; caller holds mdev->gpu_lock
 *
 * A new placement holds no chunk: nothing is valid there until copied.
 * A full pool evicts others (mvgal_evict.c); never placements of buffers
 * whose locks the caller holds.
 *
 * Return: 0, -ENOMEM or -ENOSPC.
 */
int mvgal_place_get(struct mvgal_bo *bo, struct mvgal_gpu *gpu)
{
	return mvgal_place_get_for(bo, gpu, 0);
}

/*
 * mvgal_place_get_for() - mvgal_place_get(), evicting only placements
 * predicted to be used more than @keep_ahead ticks from now (a prefetch
 * must not push out what is needed before the buffer it brings)
 */
int mvgal_place_get_for(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
			u64 keep_ahead)
{
	struct mvgal_place *p;
	int ret;

	lockdep_assert_held(&bo->lock);
	if (bo->home == gpu || bo->place[gpu->index])
		return 0;
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	ret = mvgal_pool_alloc_evict(gpu, &p->alloc, bo->base.size,
				     keep_ahead);
	if (ret) {
		kfree(p);
		return ret;
	}
	/*
	 * The range may hold a freed buffer's bytes, and the GPU sees the
	 * whole placement, not only the chunks copied in: never show them.
	 */
	mvgal_pool_clear(gpu, &p->alloc);
	p->gpu = gpu;
	p->bo = bo;
	WRITE_ONCE(bo->ever_placed, true);
	list_add_tail(&p->lru, &gpu->lru);
	gpu->nr_places++;
	bo->place[gpu->index] = p;
	return 0;
}

/* Gives a placement's range back. Caller holds bo->lock and gpu_lock. */
static void mvgal_place_put(struct mvgal_bo *bo, unsigned int gidx)
{
	struct mvgal_place *p = bo->place[gidx];

	bo->place[gidx] = NULL;
	bo->pinned &= ~BIT(gidx);
	list_del(&p->lru);
	/* Prefetched and gone before any session used it: a miss. */
	if (bo->prefetched & BIT(gidx)) {
		bo->prefetched &= ~BIT(gidx);
		atomic64_inc(&to_mvgal(bo->base.dev)->ctr.prefetch_misses);
	}
	p->gpu->nr_places--;
	mvgal_pool_free(p->gpu, &p->alloc);
	kfree(p);
}

/*
 * Where chunk @c comes from for a copy to @dst, and how: the path
 * selector prices each holder's path for this size and the cheapest
 * wins. Runs of chunks held at the same places get the same answer, so
 * @pick remembers the last one. Returns @dst itself when @dst holds the
 * chunk already.
 */
struct mvgal_pick {
	unsigned short valid;	/* holders the answer was for; 0: none yet */
	unsigned int src;
	unsigned int method;
};

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
		methods[l] = mvgal_select(mdev, l, dst,
					  mvgal_chunk_len(bo, c), &ch);
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
	struct mvgal_pick pick = { 0 };
	unsigned long c;
	int ret;

	lockdep_assert_held(&bo->lock);
	/* The job marks them held at @dst once nothing can fail. */
	ret = mvgal_chunks_ensure(bo, first, last);
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
		ret = mvgal_bo_populate_range(bo, start, len);
		if (!ret)
			ret = mvgal_job_add_copy(job, bo, dst, src, start, len,
						 pick.method);
		if (ret)
			return ret;
	}
	return 0;
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

/*
 * Copies chunks [first, last] that @dst lacks to it now, on the calling
 * thread, and marks them held there. Caller holds bo->lock and has seen
 * every fence of the buffer signaled, so every holder's bytes are there.
 */
static int mvgal_fetch_locked(struct mvgal_bo *bo, unsigned long first,
			      unsigned long last, unsigned int dst, u64 *moved)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	struct mvgal_pick pick = { 0 };
	void *bounce = NULL;
	unsigned long c;
	int ret = 0;

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
		ret = mvgal_bo_populate_range(bo, start, len);
		if (ret)
			break;
		if (!bounce) {
			/* On the node of the memory it fills. */
			bounce = kmalloc_node(MVGAL_BOUNCE_SIZE, GFP_KERNEL,
					      mvgal_loc_node(bo, dst));
			if (!bounce) {
				ret = -ENOMEM;
				break;
			}
		}
		ret = mvgal_loc_copy(bo, dst, src, start, len, method, bounce);
		if (ret)
			break;
		atomic64_add(len, &mdev->ctr.bytes[method]);
		atomic64_inc(&mdev->ctr.copies[method]);
		if (moved)
			*moved += len;
		spin_lock(&bo->state_lock);
		mvgal_chunk_filled(mvgal_chunk_at(bo, c), dst);
		spin_unlock(&bo->state_lock);
	}
	kfree(bounce);
	return ret;
}

/*
 * mvgal_bo_zap() - tear down CPU mappings of chunks [first, last]
 * @bo: the buffer; caller holds bo->lock
 *
 * The next CPU access faults and goes through the chunk states.
 */
void mvgal_bo_zap(struct mvgal_bo *bo, unsigned long first, unsigned long last)
{
	loff_t start, len;

	lockdep_assert_held(&bo->lock);
	if (!bo->cpu_mapped)
		return;
	start = drm_vma_node_offset_addr(&bo->base.vma_node) +
		mvgal_chunk_start(bo, first);
	len = mvgal_chunk_start(bo, last) + mvgal_chunk_len(bo, last) -
	      mvgal_chunk_start(bo, first);
	unmap_mapping_range(bo->base.dev->anon_inode->i_mapping, start, len, 1);
	if (bo->dmabuf_mapping)
		unmap_mapping_range(bo->dmabuf_mapping, start, len, 1);
}

/*
 * mvgal_live_conflict() - would an access of chunks [first, last]
 * conflict with a live session: a write with any, a read with a writer
 */
bool mvgal_live_conflict(struct mvgal_bo *bo, unsigned long first,
			 unsigned long last, bool write)
{
	struct mvgal_live *l;
	bool busy = false;

	if (!READ_ONCE(bo->sessions))
		return false;
	spin_lock(&bo->state_lock);
	list_for_each_entry(l, &bo->live, link) {
		if ((write || l->write) && mvgal_live_any(l, first, last)) {
			busy = true;
			break;
		}
	}
	spin_unlock(&bo->state_lock);
	return busy;
}

/*
 * The chunks a write of [off, off + len) covers whole: [*@a, *@b), empty
 * when *@a >= *@b. The buffer's end ends its last chunk.
 */
static void mvgal_whole_chunks(struct mvgal_bo *bo, u64 off, u64 len,
			       unsigned long *a, unsigned long *b)
{
	u64 mask = (1ULL << bo->chunk_shift) - 1, end = off + len;
	unsigned long first, last;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	*a = first + !!(off & mask);
	*b = last + 1 - !!((end & mask) && end != bo->size);
}

/*
 * Brings chunks [first, last] home but those of [a, b), which are about to
 * be overwritten whole and are only marked held at home once every page
 * is there. Caller holds bo->lock, as for mvgal_fetch_locked().
 */
static int mvgal_cpu_fetch(struct mvgal_bo *bo, u64 off, u64 len, bool write,
			   unsigned long a, unsigned long b)
{
	unsigned long first, last, c;
	int ret = 0;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	if (a >= b)
		ret = mvgal_fetch_locked(bo, first, last, bo->home_loc, NULL);
	else if (first < a)
		ret = mvgal_fetch_locked(bo, first, a - 1, bo->home_loc, NULL);
	if (!ret && a < b && b <= last)
		ret = mvgal_fetch_locked(bo, b, last, bo->home_loc, NULL);
	if (!ret && write)
		ret = mvgal_bo_populate_range(bo, off, len);
	if (ret || a >= b)
		return ret;
	/* Nothing can fail now: their old bytes will never be read. */
	spin_lock(&bo->state_lock);
	for (c = a; c < b; c++)
		mvgal_chunk_filled(mvgal_chunk_at(bo, c), bo->home_loc);
	spin_unlock(&bo->state_lock);
	return 0;
}

/**
 * mvgal_cpu_ready() - make bytes [off, off + len) current at home, with
 * every page there, for a CPU access
 * @bo: the buffer; caller holds bo->lock and has seen the fences the
 *	access must wait for signaled
 * @off: byte offset; [off, off + len) is in range and @len > 0
 * @len: bytes
 * @write: the CPU will write them
 * @how: MVGAL_CPU_FAULT: a CPU page fault: it cannot be refused for a
 *	 live session (a hand-off, mvgal_watch.c); it goes ahead.
 *	 MVGAL_CPU_WHOLE: a write of every byte of the range, which cannot
 *	 fail once this returns: chunks it covers whole are not brought home
 *	 first (their old bytes would be overwritten unread).
 *
 * Nothing is marked written: a caller that fails later has changed no
 * byte and no state but where copies are.
 *
 * Return: 0, -EBUSY (a live session conflicts), -ENOMEM or -EDQUOT.
 */
int mvgal_cpu_ready(struct mvgal_bo *bo, u64 off, u64 len, bool write,
		    unsigned int how)
{
	bool fault = how & MVGAL_CPU_FAULT;
	unsigned long first, last, a = 0, b = 0;
	int ret;

	lockdep_assert_held(&bo->lock);
	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	if (!fault && mvgal_live_conflict(bo, first, last, write)) {
		atomic64_inc(&to_mvgal(bo->base.dev)->ctr.busy);
		return -EBUSY;
	}
	/*
	 * A write changes the chunk states: room for them first. A read
	 * needs none: a chunk without a record is at home already.
	 */
	if (write) {
		ret = mvgal_chunks_ensure(bo, first, last);
		if (ret)
			return ret;
	}
	if (write && (how & MVGAL_CPU_WHOLE))
		mvgal_whole_chunks(bo, off, len, &a, &b);
	/* The fences are done: a failed session's chunks go back first. */
	mvgal_session_settle(bo);
	return mvgal_cpu_fetch(bo, off, len, write, a, b);
}

/**
 * mvgal_cpu_wrote() - the CPU wrote bytes [off, off + len) at home
 * @bo: the buffer; caller holds bo->lock, after mvgal_cpu_ready()
 * @off: byte offset
 * @len: bytes, > 0
 * @fault: through a mapping, seen at fault time: the GPU copies are left
 *	   to the next fold of the write-watch
 */
void mvgal_cpu_wrote(struct mvgal_bo *bo, u64 off, u64 len, bool fault)
{
	unsigned long first, last;

	lockdep_assert_held(&bo->lock);
	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	if (!fault)
		mvgal_chunks_written(bo, first, last, bo->home_loc);
	mvgal_watch_mark(bo, first, last, fault);
}

/**
 * mvgal_cpu_prepare() - make bytes [off, off + len) current at home for
 * a CPU access
 * @bo: the buffer
 * @off: byte offset; [off, off + len) is in range and @len > 0
 * @len: bytes
 * @write: the CPU will write them: home becomes their only holder
 * @how: MVGAL_CPU_FAULT, MVGAL_CPU_WHOLE (see mvgal_cpu_ready())
 *
 * Waits (interruptibly) for the fences the access must wait for: a read
 * for the last writer, a write for everything. Chunks home lacks are
 * copied home from the cheapest holder.
 *
 * Return: 0 with bo->lock held, or -EBUSY (a live session conflicts),
 * -ERESTARTSYS, -ENOMEM, -EDQUOT, without it.
 */
int mvgal_cpu_prepare(struct mvgal_bo *bo, u64 off, u64 len, bool write,
		      unsigned int how)
{
	enum dma_resv_usage usage = dma_resv_usage_rw(write);
	bool fault = how & MVGAL_CPU_FAULT;
	unsigned long first, last;
	long t;
	int ret;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	for (;;) {
		mutex_lock(&bo->lock);
		/* Nothing new can be planned while bo->lock is held. */
		if (dma_resv_test_signaled(bo->base.resv, usage))
			break;
		mutex_unlock(&bo->lock);
		if (!fault && mvgal_live_conflict(bo, first, last, write)) {
			atomic64_inc(&to_mvgal(bo->base.dev)->ctr.busy);
			return -EBUSY;
		}
		/* A prefetch in the way runs before other work now. */
		mvgal_resv_boost(bo, usage);
		t = dma_resv_wait_timeout(bo->base.resv, usage, true,
					  MAX_SCHEDULE_TIMEOUT);
		if (t < 0)
			return t;
	}
	ret = mvgal_cpu_ready(bo, off, len, write, how);
	if (ret) {
		mutex_unlock(&bo->lock);
		return ret;
	}
	if (write)
		mvgal_cpu_wrote(bo, off, len, fault);
	return 0;
}

/**
 * mvgal_cpu_access() - a coherent CPU read or write of buffer bytes
 * @bo: the buffer
 * @off: byte offset; [off, off + len) in range
 * @buf: kernel memory
 * @len: bytes
 * @write: @buf -> buffer, else buffer -> @buf
 *
 * Return: 0 or -errno of mvgal_cpu_prepare().
 */
int mvgal_cpu_access(struct mvgal_bo *bo, u64 off, void *buf, size_t len,
		     bool write)
{
	int ret;

	if (!len)
		return 0;
	ret = mvgal_cpu_prepare(bo, off, len, write, 0);
	if (ret)
		return ret;
	ret = mvgal_bo_access_locked(bo, off, buf, len, write);
	mutex_unlock(&bo->lock);
	return ret;
}

/* Chunk @c leaves @loc; see mvgal_place_drain(). */
static int mvgal_place_drop_chunk(struct mvgal_bo *bo, unsigned long c,
				  unsigned int loc, bool dying)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	u64 moved = 0;
	bool only;
	int ret;

	spin_lock(&bo->state_lock);
	only = mvgal_chunk_drop(mvgal_chunk_at(bo, c), loc) == -ENODATA;
	/* Nobody can read it any more: hand the chunk home without its
	 * bytes, so the invariant holds.
	 */
	if (only && dying)
		mvgal_chunk_init(mvgal_chunk_at(bo, c), bo->home_loc);
	spin_unlock(&bo->state_lock);
	if (!only || dying)
		return 0;
	ret = mvgal_fetch_locked(bo, c, c, bo->home_loc, &moved);
	if (ret)
		return ret;
	atomic64_add(moved, &mdev->ctr.drained);
	spin_lock(&bo->state_lock);
	mvgal_chunk_drop(mvgal_chunk_at(bo, c), loc);
	spin_unlock(&bo->state_lock);
	return 0;
}

/*
 * mvgal_place_drain() - give up the copy at GPU @gidx: chunks only it
 * holds are copied home first (unless the buffer is dying), then the
 * placement's range goes back to the pool
 * @bo: the buffer; caller holds gpu_lock and bo->lock, no session is
 *	live at the GPU and every fence has signaled
 *
 * Afterwards no chunk is valid at the GPU, placement or not: a buffer
 * that only ever used a peer's pool in place has nothing to free, and
 * still nothing is left pointing at the GPU.
 *
 * Return: 0, or -ENOMEM (nothing lost: the placement stays).
 */
int mvgal_place_drain(struct mvgal_bo *bo, unsigned int gidx, bool dying)
{
	unsigned long first, last, c = 0;
	unsigned int loc = 1 + gidx;
	int ret;

	lockdep_assert_held(&bo->lock);
	/* A failed session's bytes are not to be brought home. */
	mvgal_session_settle(bo);
	/* Chunks without a record are at home only. */
	while (mvgal_chunks_next_leaf(bo, c, &first, &last)) {
		for (c = first; c <= last; c++) {
			ret = mvgal_place_drop_chunk(bo, c, loc, dying);
			if (ret)
				return ret;
		}
	}
	if (bo->place[gidx])
		mvgal_place_put(bo, gidx);
	return 0;
}

/*
 * Waits for every fence of @bo, then takes bo->lock with them all still
 * signaled. Return: 0 (locked), -EBUSY when @nowait and busy, or
 * -ERESTARTSYS.
 */
static int mvgal_bo_lock_idle(struct mvgal_bo *bo, bool nowait)
{
	long t;

	for (;;) {
		if (!nowait) {
			t = dma_resv_wait_timeout(bo->base.resv,
						  DMA_RESV_USAGE_BOOKKEEP, true,
						  MAX_SCHEDULE_TIMEOUT);
			if (t < 0)
				return t;
		}
		mutex_lock(&bo->lock);
		if (dma_resv_test_signaled(bo->base.resv,
					   DMA_RESV_USAGE_BOOKKEEP))
			return 0;
		mutex_unlock(&bo->lock);
		if (nowait)
			return -EBUSY;
	}
}

int mvgal_ioctl_place_free(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_place_free *args = data;
	struct mvgal_gpu *gpu;
	struct mvgal_bo *bo;
	int ret = 0;

	if (args->flags || args->pad || args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	bo = mvgal_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;
	mutex_lock(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, args->gpu, &ret);
	if (!gpu)
		goto out_unlock;
	if (bo->home == gpu) {
		ret = -EINVAL;
		goto out_unlock;
	}
	/* Pending work may still touch the placement: refuse, not wait. */
	ret = mvgal_bo_lock_idle(bo, true);
	if (ret)
		goto out_unlock;
	/* An exported placement stays while the export lives. */
	if (bo->sessions_at[gpu->index] || bo->exported[gpu->index])
		ret = -EBUSY;
	else
		ret = mvgal_place_drain(bo, gpu->index, false);
	mutex_unlock(&bo->lock);
out_unlock:
	mutex_unlock(&mdev->gpu_lock);
	drm_gem_object_put(&bo->base);
	return ret;
}

/**
 * mvgal_gpu_drain() - before a detach: every placement in @gpu's pool
 * goes home
 * @mdev: the device; caller holds gpu_lock
 * @gpu: the GPU
 *
 * Buffers whose home is the pool (device-only) cannot leave it: with any
 * of them, nothing is touched and the answer is -EBUSY. So it is with a
 * live session at the GPU, or an exported placement in its pool. Dying
 * buffers lose their placements without a copy.
 *
 * Return: 0, -EBUSY, -ERESTARTSYS or -ENOMEM.
 */
int mvgal_gpu_drain(struct mvgal_device *mdev, struct mvgal_gpu *gpu)
{
	struct mvgal_bo *bo, **bos = NULL;
	unsigned int n = 0, cap = 0, i;
	u64 used, largest, allocs;
	int ret = 0;

	lockdep_assert_held(&mdev->gpu_lock);
	mvgal_pool_usage(&gpu->pool, &used, &largest, &allocs);
	if (allocs > gpu->nr_places)
		return -EBUSY;

	mutex_lock(&mdev->bos_lock);
	list_for_each_entry(bo, &mdev->bos, link)
		cap++;
	bos = kvcalloc(cap ?: 1, sizeof(*bos), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!bos) {
		mutex_unlock(&mdev->bos_lock);
		return -ENOMEM;
	}
	list_for_each_entry(bo, &mdev->bos, link) {
		if (!bo->place[gpu->index])
			continue;
		/* An export holds a reference: its buffer is not dying. */
		if (bo->exported[gpu->index])
			ret = -EBUSY;
		if (kref_get_unless_zero(&bo->base.refcount)) {
			bos[n++] = bo;
			continue;
		}
		/* Dying: its free waits for gpu_lock; nothing to keep. */
		mutex_lock(&bo->lock);
		if (bo->place[gpu->index])
			mvgal_place_drain(bo, gpu->index, true);
		mutex_unlock(&bo->lock);
	}
	mutex_unlock(&mdev->bos_lock);

	for (i = 0; i < n && !ret; i++) {
		bo = bos[i];
		if (READ_ONCE(bo->sessions_at[gpu->index])) {
			ret = -EBUSY;
			break;
		}
		ret = mvgal_bo_lock_idle(bo, false);
		if (ret)
			break;
		if (bo->sessions_at[gpu->index])
			ret = -EBUSY;
		else
			ret = mvgal_place_drain(bo, gpu->index, false);
		mutex_unlock(&bo->lock);
	}
	for (i = 0; i < n; i++)
		drm_gem_object_put(&bos[i]->base);
	kvfree(bos);
	return ret;
}
