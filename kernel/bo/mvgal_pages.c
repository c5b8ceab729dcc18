// SPDX-License-Identifier: GPL-2.0
/*
 * Host pages of a buffer: allocated one at a time on the buffer's node,
 * looked up by index, and mapped all at once for copies.
 *
 * Host storage is an array of pages taken from the NUMA node of the GPU
 * the buffer is for, one at a time and (with LAZY_ALLOCATE) only when
 * first touched.
 */

#include <linux/cred.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

#include <drm/drm_file.h>
#include <drm/drm_vma_manager.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_hmm.h"
#include "bo/mvgal_pages.h"
#include "bo/mvgal_userptr.h"

void mvgal_bo_free_page(struct mvgal_bo *bo, struct page *page)
{
#ifdef CONFIG_X86
	if (bo->flags & MVGAL_BO_CPU_UNCACHED)
		set_pages_array_wb(&page, 1);
#endif
	__free_page(page);
}

/*
 * The host page @idx of @bo, allocated on first need with the contents a
 * new buffer promises: zeroes, or the poison byte. Caller holds bo->lock.
 */
struct page *mvgal_bo_page(struct mvgal_bo *bo, unsigned long idx)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	struct page *page = xa_load(&bo->pages, idx);
	int ret;

	if (page)
		return page;
	/* Registered memory is the application's: never a page of mvgal's. */
	if (bo->userptr)
		return ERR_PTR(-EFAULT);
	/*
	 * Charged to the caller's memory cgroup; at its limit, or when
	 * memory is short, the call fails with -ENOMEM rather than have
	 * the OOM killer pick a process.
	 */
	page = alloc_pages_node(bo->nid, GFP_HIGHUSER | __GFP_ACCOUNT |
				__GFP_RETRY_MAYFAIL | __GFP_NOWARN |
				(bo->flags & MVGAL_BO_ZERO_INITIALIZED ?
				 __GFP_ZERO : 0), 0);
	if (!page)
		return ERR_PTR(-ENOMEM);
	if (!(bo->flags & MVGAL_BO_ZERO_INITIALIZED)) {
		void *va = kmap_local_page(page);

		memset(va, MVGAL_BO_POISON, PAGE_SIZE);
		kunmap_local(va);
	}
#ifdef CONFIG_X86
	/* Write-combined in the kernel's direct map too: no cached alias. */
	if ((bo->flags & MVGAL_BO_CPU_UNCACHED) && set_pages_array_wc(&page, 1)) {
		__free_page(page);
		return ERR_PTR(-ENOMEM);
	}
#endif
	ret = xa_err(xa_store(&bo->pages, idx, page, GFP_KERNEL_ACCOUNT));
	if (ret) {
		mvgal_bo_free_page(bo, page);
		return ERR_PTR(ret);
	}
	bo->nr_pages++;
	atomic64_inc(&mdev->host_pages);
	return page;
}

/**
 * mvgal_bo_page_array() - every host page of @bo in one array, for
 * vmap() and sg tables
 * @bo: the buffer; caller holds bo->lock and every page exists
 *
 * Return: the array (kvfree() it), or NULL.
 */
struct page **mvgal_bo_page_array(struct mvgal_bo *bo)
{
	struct page **pages, *page;
	unsigned long i;

	lockdep_assert_held(&bo->lock);
	pages = kvmalloc_array(bo->npages, sizeof(*pages),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pages)
		return NULL;
	xa_for_each(&bo->pages, i, page)
		pages[i] = page;
	return pages;
}

/**
 * mvgal_bo_populate() - give a host buffer every page it lacks
 * @bo: the buffer
 *
 * Return: 0 or -ENOMEM (pages allocated so far stay).
 */
int mvgal_bo_populate(struct mvgal_bo *bo)
{
	unsigned long i;
	int ret = 0;

	mutex_lock(&bo->lock);
	for (i = 0; i < bo->npages; i++) {
		struct page *page = mvgal_bo_page(bo, i);

		if (IS_ERR(page)) {
			ret = PTR_ERR(page);
			break;
		}
	}
	mutex_unlock(&bo->lock);
	return ret;
}

/*
 * mvgal_bo_populate_range() - host pages for bytes [off, off + len), to
 * be written or read
 * @bo: the buffer; caller holds bo->lock
 *
 * Return: 0, -ENOMEM, or (a mirrored registration whose pages are not
 * held) -EAGAIN: see mvgal_hmm_ready().
 */
int mvgal_bo_populate_range(struct mvgal_bo *bo, u64 off, u64 len)
{
	return mvgal_bo_populate_dir(bo, off, len, true);
}

/*
 * mvgal_bo_populate_dir() - mvgal_bo_populate_range() for a caller that
 * only reads the bytes unless @write: a mirror's pages are then held for
 * reading, which leaves the application's memory as it was.
 */
int mvgal_bo_populate_dir(struct mvgal_bo *bo, u64 off, u64 len, bool write)
{
	unsigned long i;

	lockdep_assert_held(&bo->lock);
	if (!bo->host || !len || bo->vaddr)
		return 0;
	/* Faulted in before the lock: only checked here. */
	if (mvgal_userptr_mirrored(bo))
		return mvgal_hmm_ready(bo, off, len, write);
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
		void *vaddr = NULL;

		if (pages)
			vaddr = vmap(pages, bo->npages, VM_MAP,
				     bo->flags & MVGAL_BO_CPU_UNCACHED ?
				     pgprot_writecombine(PAGE_KERNEL) :
				     PAGE_KERNEL);
		kvfree(pages);
		/*
		 * Published complete: copy jobs read it without bo->lock
		 * (mvgal_bo_view()). It only goes again with the buffer
		 * idle (the NUMA mover, free), when no job runs.
		 */
		smp_store_release(&bo->vaddr, vaddr);
	}
	return 0;
}
