// SPDX-License-Identifier: GPL-2.0
/*
 * Ranged copies: user memory <-> buffer, and buffer -> buffer, whatever
 * storage each buffer has. Every range is checked once, before anything
 * moves, and each offset is applied exactly once, at the storage access.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_gem.h>

#include "core/mvgal_range.h"
#include "mvgal_bo.h"

/* Data moves through a kernel bounce buffer of this size. */
#define MVGAL_COPY_CHUNK	(64 * 1024)

static void mvgal_bo_count(struct mvgal_bo *bo, u64 len, bool write)
{
	if (write)
		atomic64_add(len, &bo->bytes_written);
	else
		atomic64_add(len, &bo->bytes_read);
	if (bo->home)
		atomic64_inc(&bo->access[bo->home->index]);
}

/*
 * The user's bytes of a BO_PWRITE, held before the buffer is touched, so
 * that a write either lands whole or changes nothing: the user pages
 * pinned, or, for memory that cannot be pinned (a PFN mapping such as an
 * mvgal buffer's own), a copy in kernel memory.
 */
struct mvgal_usrc {
	struct page **pages;
	unsigned long npages;
	unsigned long pgoff;
	void *copy;
};

static int mvgal_usrc_get(struct mvgal_usrc *u, const void __user *uptr,
			  u64 size)
{
	unsigned long start = (unsigned long)uptr;
	unsigned long n = DIV_ROUND_UP(offset_in_page(start) + size, PAGE_SIZE);
	long got;

	memset(u, 0, sizeof(*u));
	u->pgoff = offset_in_page(start);
	u->pages = kvmalloc_array(n, sizeof(*u->pages),
				  GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!u->pages)
		return -ENOMEM;
	got = pin_user_pages_fast(start & PAGE_MASK, n, 0, u->pages);
	if (got == n) {
		u->npages = n;
		return 0;
	}
	if (got > 0)
		unpin_user_pages(u->pages, got);
	kvfree(u->pages);
	u->pages = NULL;
	u->copy = kvmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!u->copy)
		return -ENOMEM;
	if (copy_from_user(u->copy, uptr, size)) {
		kvfree(u->copy);
		u->copy = NULL;
		return -EFAULT;
	}
	return 0;
}

static void mvgal_usrc_put(struct mvgal_usrc *u)
{
	if (u->pages)
		unpin_user_pages(u->pages, u->npages);
	kvfree(u->pages);
	kvfree(u->copy);
}

/* Writes the held bytes at @off; caller holds bo->lock after
 * mvgal_cpu_ready(), so every page is there and nothing can fail.
 */
static void mvgal_usrc_write(struct mvgal_bo *bo, u64 off, u64 size,
			     struct mvgal_usrc *u)
{
	u64 done = 0;
	unsigned long i;

	if (u->copy) {
		mvgal_bo_access_locked(bo, off, u->copy, size, true);
		return;
	}
	for (i = 0; done < size; i++) {
		size_t n = min_t(u64, size - done,
				 PAGE_SIZE - (i ? 0 : u->pgoff));
		void *va = kmap_local_page(u->pages[i]);

		mvgal_bo_access_locked(bo, off + done,
				       va + (i ? 0 : u->pgoff), n, true);
		kunmap_local(va);
		done += n;
	}
}

/*
 * BO_PWRITE: everything that can fail (the user's memory, conflicts,
 * fences, pages) is dealt with before the first byte moves.
 */
static int mvgal_bo_pwrite(struct mvgal_bo *bo, struct drm_mvgal_bo_rw *args)
{
	struct mvgal_usrc u;
	int ret;

	if (!args->size)
		return 0;
	ret = mvgal_usrc_get(&u, u64_to_user_ptr(args->user_ptr), args->size);
	if (ret)
		return ret;
	ret = mvgal_cpu_prepare(bo, args->offset, args->size, true,
				MVGAL_CPU_WHOLE);
	if (!ret) {
		mvgal_usrc_write(bo, args->offset, args->size, &u);
		mutex_unlock(&bo->lock);
		mvgal_bo_count(bo, args->size, true);
	}
	mvgal_usrc_put(&u);
	return ret;
}

static int mvgal_bo_pread(struct mvgal_bo *bo, struct drm_mvgal_bo_rw *args)
{
	void __user *uptr = u64_to_user_ptr(args->user_ptr);
	u64 done = 0, size = args->size;
	void *bounce;
	int ret = 0;

	/* A user range that cannot be faulted in is refused up front. */
	if (size && fault_in_safe_writeable(uptr, size))
		return -EFAULT;
	bounce = kmalloc(min_t(u64, size, MVGAL_COPY_CHUNK) ?: 1, GFP_KERNEL_ACCOUNT);
	if (!bounce)
		return -ENOMEM;
	while (done < size) {
		size_t n = min_t(u64, size - done, MVGAL_COPY_CHUNK);

		ret = mvgal_cpu_access(bo, args->offset + done, bounce, n,
				       false);
		if (!ret && copy_to_user(uptr + done, bounce, n))
			ret = -EFAULT;
		if (ret)
			break;
		done += n;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}
	kfree(bounce);
	if (done)
		mvgal_bo_count(bo, done, false);
	return ret;
}

static int mvgal_bo_rw(struct drm_file *file, struct drm_mvgal_bo_rw *args,
		       bool write)
{
	struct mvgal_bo *bo;
	int ret;

	if (args->flags)
		return -EINVAL;
	bo = mvgal_bo_lookup_access(file, args->handle, write, &ret);
	if (!bo)
		return ret;
	if (!mvgal_range_ok(args->offset, args->size, bo->size))
		ret = -EINVAL;
	else if (write)
		ret = mvgal_bo_pwrite(bo, args);
	else
		ret = mvgal_bo_pread(bo, args);
	drm_gem_object_put(&bo->base);
	return ret;
}

int mvgal_ioctl_bo_pwrite(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	return mvgal_bo_rw(file, data, true);
}

int mvgal_ioctl_bo_pread(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	return mvgal_bo_rw(file, data, false);
}

/*
 * Locks both buffers of a copy, their reservations first (as BEGIN does:
 * the ww context orders them), once no fence either access must wait for
 * is pending, and makes both ranges ready at home.
 *
 * Return: 0 with everything held, or -errno with nothing held.
 */
static int mvgal_copy_lock(struct drm_mvgal_bo_copy *args,
			   struct drm_gem_object **objs, unsigned int n,
			   struct ww_acquire_ctx *ctx)
{
	struct mvgal_bo *src = to_mvgal_bo(objs[0]), *dst = to_mvgal_bo(objs[n - 1]);
	unsigned int i;
	long t;
	int ret;

	for (;;) {
		struct mvgal_bo *busy = NULL;

		ret = drm_gem_lock_reservations(objs, n, ctx);
		if (ret)
			return ret;
		for (i = 0; i < n; i++)
			mutex_lock_nest_lock(&to_mvgal_bo(objs[i])->lock, ctx);
		if (!dma_resv_test_signaled(src->base.resv, DMA_RESV_USAGE_WRITE))
			busy = src;
		else if (!dma_resv_test_signaled(dst->base.resv,
						 DMA_RESV_USAGE_BOOKKEEP))
			busy = dst;
		if (!busy)
			break;
		for (i = n; i--;)
			mutex_unlock(&to_mvgal_bo(objs[i])->lock);
		drm_gem_unlock_reservations(objs, n, ctx);
		mvgal_resv_boost(busy, busy == dst ? DMA_RESV_USAGE_BOOKKEEP :
				 DMA_RESV_USAGE_WRITE);
		t = dma_resv_wait_timeout(busy->base.resv, busy == dst ?
					  DMA_RESV_USAGE_BOOKKEEP :
					  DMA_RESV_USAGE_WRITE, true,
					  MAX_SCHEDULE_TIMEOUT);
		if (t < 0)
			return t;
	}
	/* The source first: a destination overlapping it in one buffer
	 * then has the overlap home, read before it is overwritten.
	 */
	ret = mvgal_cpu_ready(src, args->src_offset, args->size, false, 0);
	if (!ret)
		ret = mvgal_cpu_ready(dst, args->dst_offset, args->size, true,
				      MVGAL_CPU_WHOLE);
	if (!ret)
		return 0;
	for (i = n; i--;)
		mutex_unlock(&to_mvgal_bo(objs[i])->lock);
	drm_gem_unlock_reservations(objs, n, ctx);
	return ret;
}

/*
 * Copies under both locks, through a bounce buffer. memmove() within one
 * buffer: when the destination starts above an overlapping source, it
 * goes from the end, so that every source byte is read before it is
 * overwritten.
 */
static void mvgal_copy_locked(struct mvgal_bo *src, struct mvgal_bo *dst,
			      struct drm_mvgal_bo_copy *args, void *bounce)
{
	u64 size = args->size, done = 0;
	bool backward;

	backward = src == dst && args->dst_offset > args->src_offset &&
		   mvgal_range_overlap(args->src_offset, args->dst_offset, size);
	while (done < size) {
		size_t n = min_t(u64, size - done, MVGAL_COPY_CHUNK);
		u64 at = backward ? size - done - n : done;

		mvgal_bo_access_locked(src, args->src_offset + at, bounce, n,
				       false);
		mvgal_bo_access_locked(dst, args->dst_offset + at, bounce, n,
				       true);
		done += n;
	}
	mvgal_cpu_wrote(dst, args->dst_offset, size, false);
}

/*
 * BO_COPY: both ranges are checked, their chunks brought home and the
 * destination's pages allocated with both buffers locked, before the
 * first byte moves; then nothing can fail.
 */
int mvgal_ioctl_bo_copy(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_mvgal_bo_copy *args = data;
	struct drm_gem_object *objs[2];
	struct ww_acquire_ctx ctx;
	struct mvgal_bo *src, *dst;
	unsigned int i, n;
	void *bounce;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	src = mvgal_bo_lookup_access(file, args->src_handle, false, &ret);
	if (!src)
		return ret;
	dst = mvgal_bo_lookup_access(file, args->dst_handle, true, &ret);
	if (!dst)
		goto out_src;
	if (!mvgal_range_ok(args->src_offset, args->size, src->size) ||
	    !mvgal_range_ok(args->dst_offset, args->size, dst->size)) {
		ret = -EINVAL;
		goto out_dst;
	}
	ret = 0;
	if (!args->size)
		goto out_dst;
	bounce = kmalloc(min_t(u64, args->size, MVGAL_COPY_CHUNK),
			 GFP_KERNEL_ACCOUNT);
	if (!bounce) {
		ret = -ENOMEM;
		goto out_dst;
	}
	objs[0] = &src->base;
	objs[1] = &dst->base;
	n = src == dst ? 1 : 2;
	ret = mvgal_copy_lock(args, objs, n, &ctx);
	if (!ret) {
		mvgal_copy_locked(src, dst, args, bounce);
		for (i = n; i--;)
			mutex_unlock(&to_mvgal_bo(objs[i])->lock);
		drm_gem_unlock_reservations(objs, n, &ctx);
		mvgal_bo_count(src, args->size, false);
		mvgal_bo_count(dst, args->size, true);
	}
	kfree(bounce);
out_dst:
	drm_gem_object_put(&dst->base);
out_src:
	drm_gem_object_put(&src->base);
	return ret;
}
