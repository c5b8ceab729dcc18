// SPDX-License-Identifier: GPL-2.0
/*
 * Views of one location's copy of a buffer (host pages, an import's vmap
 * or a pool range), and copies of a byte range between two locations.
 */

#include <linux/cred.h>
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/error-injection.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_dma.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_pool.h"
#include "dev/mvgal_transfer.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_hmm.h"
#include "bo/mvgal_pages.h"
#include "bo/mvgal_userptr.h"
#include "bo/mvgal_view.h"

/**
 * mvgal_bo_access_locked() - copy between @buf and the buffer's home
 * storage, whatever the chunk states say
 * @bo: the buffer; caller holds bo->lock
 * @offset: byte offset in the buffer; [offset, offset + len) is in range
 * @buf: kernel memory
 * @len: bytes
 * @write: true: @buf -> buffer; false: buffer -> @buf
 *
 * Return: 0, -ENOMEM when a lazily allocated page cannot be had,
 * mvgal_pool_map_get()'s error for a home pool its driver moved, or, for a
 * mirror whose pages its caller did not ready, -EAGAIN (mvgal_hmm_held()).
 */
int mvgal_bo_access_locked(struct mvgal_bo *bo, u64 offset, void *buf,
			   size_t len, bool write)
{
	struct mvgal_view v;
	int ret;

	/* A mirror's pages readied under this hold of the lock stay. */
	if (mvgal_userptr_mirrored(bo))
		ret = mvgal_hmm_held(bo, offset, len, write);
	else
		ret = mvgal_bo_populate_range(bo, offset, len);
	if (ret)
		return ret;
	ret = mvgal_bo_view(bo, bo->home_loc, &v, true);
	if (ret)
		return ret;
	mvgal_view_rw(&v, offset, buf, len, write);
	mvgal_view_put(&v);
	return 0;
}

/**
 * mvgal_loc_write() - write kernel memory into location @loc's copy
 * @bo: the buffer; @loc has storage, host pages of the range populated
 * @loc: the location
 * @off: byte offset; [off, off + len) is in range
 * @buf: the bytes
 * @len: bytes
 *
 * For the migration engine, which writes without bo->lock as its copies
 * do: the job's fence orders every other access of the range after it.
 *
 * Return: 0, or mvgal_bo_view()'s error.
 */
int mvgal_loc_write(struct mvgal_bo *bo, unsigned int loc, u64 off,
		    void *buf, u64 len)
{
	struct mvgal_view v;
	int ret;

	ret = mvgal_bo_view(bo, loc, &v, true);
	if (ret)
		return ret;
	mvgal_view_rw(&v, off, buf, len, true);
	mvgal_view_put(&v);
	return 0;
}

/* The node whose memory is closest to location @loc of @bo. */
int mvgal_loc_node(struct mvgal_bo *bo, unsigned int loc)
{
	if (loc == MVGAL_LOC_HOST)
		return bo->nid;
	if (bo->home && bo->home->index == loc - 1)
		return bo->home->numa_node;
	return bo->pools.place[loc - 1] ? bo->pools.place[loc - 1]->gpu->numa_node :
	       NUMA_NO_NODE;
}

/* @v shows @pool's mapping at @base, held until mvgal_view_put(). */
static int mvgal_pool_view(struct mvgal_pool *pool, u64 base,
			   struct mvgal_view *v, bool wait)
{
	int ret;

	ret = wait ? mvgal_pool_map_get(pool, &v->map) :
		     mvgal_pool_map_tryget(pool, &v->map);
	if (ret)
		return ret;
	v->pool = pool;
	v->base = base;
	return 0;
}

/**
 * mvgal_bo_view() - how the CPU reaches location @loc's copy of @bo
 * @bo: the buffer
 * @loc: MVGAL_LOC_HOST or 1 + GPU
 * @v: (out) host pages, or a kernel mapping and the buffer's base in it
 * @wait: wait for a pool its driver moved to be mapped again; never while
 *	  holding another view
 *
 * A pool's driver cannot move it while a view of it is held: every view
 * goes with mvgal_view_put().
 *
 * Return: 0, -EINVAL when @loc has no storage for the buffer, -EAGAIN
 * (without @wait) while a pool is being mapped again, or
 * mvgal_pool_map_get()'s error.
 */
int mvgal_bo_view(struct mvgal_bo *bo, unsigned int loc, struct mvgal_view *v,
		  bool wait)
{
	struct mvgal_place *p;
	void *vaddr;

	memset(v, 0, sizeof(*v));
	if (loc == MVGAL_LOC_HOST) {
		if (mvgal_bo_device_only(bo))
			return -EINVAL;
		/* The engine comes here without bo->lock: see
		 * mvgal_bo_populate_range() for the pairing store.
		 */
		vaddr = smp_load_acquire(&bo->vaddr);
		if (vaddr) {
			iosys_map_set_vaddr(&v->map, vaddr);
			return 0;
		}
		if (bo->host) {
			v->pages = &bo->pages;
			return 0;
		}
		v->map = bo->map;	/* an import */
		v->base = bo->map_offset;
		return 0;
	}
	if (bo->home && bo->home->index == loc - 1)
		return mvgal_pool_view(&bo->home->pool, bo->map_offset, v, wait);
	p = bo->pools.place[loc - 1];
	if (!p)
		return -EINVAL;
	return mvgal_pool_view(p->pool, p->alloc.node.start, v, wait);
}

/* Ends the hold on a pool's mapping a view took, if it took one. */
void mvgal_view_put(struct mvgal_view *v)
{
	if (v->pool)
		mvgal_pool_map_put(v->pool);
	v->pool = NULL;
}

/*
 * @len bytes went through @bounce: counted on the node its memory is on,
 * asked of the page itself rather than taken from where the caller meant
 * it to be, so that a bounce buffer that fell back to another node shows.
 */
static void mvgal_loc_count_staged(struct mvgal_bo *bo, const void *bounce,
				   u64 len)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	struct page *page = is_vmalloc_addr(bounce) ? vmalloc_to_page(bounce) :
			    virt_to_page(bounce);

	if (mdev->staged && page)
		atomic64_add(len, &mdev->staged[page_to_nid(page)]);
}

/*
 * Views of two locations at once. Only the first may wait for a pool to be
 * mapped again: a wait while holding a pool's mapping could stall the
 * driver moving it behind the wait.
 */
static int mvgal_loc_views(struct mvgal_bo *bo, unsigned int dst,
			   unsigned int src, struct mvgal_view *d,
			   struct mvgal_view *s)
{
	int ret;

	for (;;) {
		ret = mvgal_bo_view(bo, dst, d, true);
		if (ret)
			return ret;
		ret = mvgal_bo_view(bo, src, s, false);
		if (ret != -EAGAIN)
			break;
		mvgal_view_put(d);
		/* Wait for it alone, then take both again. */
		ret = mvgal_bo_view(bo, src, s, true);
		if (ret)
			return ret;
		mvgal_view_put(s);
	}
	if (ret)
		mvgal_view_put(d);
	return ret;
}

/**
 * mvgal_loc_dma_side() - how a DMA engine reaches location @loc's copy
 * @bo: the buffer; @loc has storage, host pages populated
 * @loc: the location
 * @sd: (out) host pages, or a GPU's pool and the copy's start in it
 *
 * Return: 0, or -ENODEV for a copy no engine reaches through mvgal: an
 * import's memory (its exporter's), a device-only buffer's host side, a
 * lent buffer (a pool of its own, not mapped for engines).
 */
int mvgal_loc_dma_side(struct mvgal_bo *bo, unsigned int loc,
		       struct mvgal_dma_side *sd)
{
	struct mvgal_place *p;

	memset(sd, 0, sizeof(*sd));
	if (loc == MVGAL_LOC_HOST) {
		if (mvgal_bo_device_only(bo) || !bo->host)
			return -ENODEV;
		sd->pages = &bo->pages;
		return 0;
	}
	if (bo->home && bo->home->index == loc - 1) {
		sd->gpu = bo->home;
		sd->base = bo->map_offset;
		return 0;
	}
	p = bo->pools.place[loc - 1];
	if (!p || p->pool != &p->gpu->pool)
		return -ENODEV;
	sd->gpu = p->gpu;
	sd->base = p->alloc.node.start;
	return 0;
}

/**
 * mvgal_loc_host_pages() - the host pages behind bytes of @bo
 * @bo: the buffer; the range's host pages populated
 * @off: byte offset
 * @len: bytes
 * @h: (out) the pages (a kvmalloc'd array the caller frees) and @off's
 *     offset in the first
 *
 * Return: 0, -ENODEV (a buffer without host pages of its own, or a page
 * missing), -ENOMEM.
 */
int mvgal_loc_host_pages(struct mvgal_bo *bo, u64 off, u64 len,
			 struct mvgal_exec_host *h)
{
	pgoff_t first = off >> PAGE_SHIFT;
	unsigned long i;

	if (mvgal_bo_device_only(bo) || !bo->host || !len)
		return -ENODEV;
	h->off = off & ~PAGE_MASK;
	h->npages = (h->off + len + PAGE_SIZE - 1) >> PAGE_SHIFT;
	h->pages = kvmalloc_array(h->npages, sizeof(*h->pages),
				  GFP_KERNEL_ACCOUNT);
	if (!h->pages)
		return -ENOMEM;
	for (i = 0; i < h->npages; i++) {
		h->pages[i] = xa_load(&bo->pages, first + i);
		if (!h->pages[i]) {
			kvfree(h->pages);
			return -ENODEV;
		}
	}
	return 0;
}

/**
 * mvgal_samples_pick() - the windows a copy of [@off, @off + @len) is
 * checked at: its start, its end and a random place between, each of up
 * to MVGAL_SAMPLE bytes; enough to catch a copy that was not made, went
 * elsewhere or came out garbled, at a cost that does not grow with it
 * @s: (out) the windows, their bytes zeroed
 * @off: byte offset of the copy
 * @len: its bytes, at least 1
 */
void mvgal_samples_pick(struct mvgal_samples *s, u64 off, u64 len)
{
	memset(s, 0, sizeof(*s));
	s->n = min_t(u64, len, MVGAL_SAMPLE);
	s->at[0] = off;
	s->at[1] = off + len - s->n;
	s->at[2] = off + get_random_u64() % (len - s->n + 1);
}

/* Reads @s's windows at location @loc of @bo, as the CPU reads it. */
int mvgal_loc_sample(struct mvgal_bo *bo, unsigned int loc,
		     struct mvgal_samples *s)
{
	struct mvgal_view v;
	unsigned int i;
	int ret;

	ret = mvgal_bo_view(bo, loc, &v, true);
	if (ret)
		return ret;
	for (i = 0; i < MVGAL_SAMPLES; i++)
		mvgal_view_rw(&v, s->at[i], s->b[i], s->n, false);
	mvgal_view_put(&v);
	return 0;
}

/* Is location @loc's copy of @bo in device memory the CPU reads slowly? */
bool mvgal_loc_iomem(struct mvgal_bo *bo, unsigned int loc)
{
	struct mvgal_dma_side sd;

	if (loc == MVGAL_LOC_HOST || mvgal_loc_dma_side(bo, loc, &sd))
		return false;
	return mvgal_pool_is_device(&sd.gpu->pool);
}

/**
 * mvgal_loc_copy() - the CPU copies bytes of @bo from location @src to @dst
 * @bo: the buffer; both locations have storage, host pages populated
 * @dst: destination location
 * @src: source location
 * @off: byte offset, the same at both ends
 * @len: bytes
 * @method: MVGAL_METHOD_CPU_COPY or MVGAL_METHOD_STAGING
 * @bounce: MVGAL_BOUNCE_SIZE bytes on the destination's node (staging,
 *	    or I/O memory at both ends)
 *
 * Every CPU transfer of a buffer's bytes between locations goes through
 * here (the copiers of move/mvgal_copier.c call it), so a failure
 * injected here (fail_function) is a failed copy: the callers must leave
 * the chunks with the holders they had. For the same reason the bytes
 * that went through @bounce are counted here, per node.
 *
 * Return: 0, or -EOPNOTSUPP for a method the CPU cannot carry out.
 */
noinline int mvgal_loc_copy(struct mvgal_bo *bo, unsigned int dst,
			    unsigned int src, u64 off, u64 len,
			    unsigned int method, void *bounce)
{
	struct mvgal_view d, s;
	int ret;

	ret = mvgal_loc_views(bo, dst, src, &d, &s);
	if (ret)
		return ret;
	ret = mvgal_view_transfer(&d, &s, off, len, method, bounce);
	if (!ret && bounce && mvgal_view_bounces(&d, &s, method))
		mvgal_loc_count_staged(bo, bounce, len);
	mvgal_view_put(&s);
	mvgal_view_put(&d);
	return ret;
}

ALLOW_ERROR_INJECTION(mvgal_loc_copy, ERRNO);
