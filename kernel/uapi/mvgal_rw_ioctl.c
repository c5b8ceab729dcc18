// SPDX-License-Identifier: GPL-2.0
/*
 * BO_PWRITE, BO_PREAD and BO_COPY.
 *
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

#include <drm/mvgal_drm.h>

#include "core/mvgal_range.h"
#include "dev/mvgal_compat.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_transfer.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_view.h"
#include "move/mvgal_cpu.h"
#include "move/mvgal_stage.h"
#include "uapi/mvgal_rw_ioctl.h"

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

/* The user's @size bytes at @uptr in kernel memory: a pointer or ERR_PTR. */
static void *mvgal_usrc_copy(const void __user *uptr, u64 size)
{
	void *copy = kvmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);

	if (!copy)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(copy, uptr, size)) {
		kvfree(copy);
		return ERR_PTR(-EFAULT);
	}
	return copy;
}

static int mvgal_usrc_get(struct mvgal_usrc *u, const void __user *uptr,
			  u64 size)
{
	unsigned long start = (unsigned long)uptr;
	unsigned long n = DIV_ROUND_UP(offset_in_page(start) + size, PAGE_SIZE);
	int ret = 0;
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
	u->copy = mvgal_usrc_copy(uptr, size);
	if (IS_ERR(u->copy)) {
		ret = PTR_ERR(u->copy);
		u->copy = NULL;
	}
	return ret;
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
static int mvgal_bo_pwrite(struct mvgal_bo *bo, struct drm_mvgal_bo_rw *args,
			   struct drm_file *file)
{
	struct mvgal_usrc u;
	int ret;

	if (!args->size)
		return 0;
	/* Staged bytes outlive the call: a copy, never the user's pages. */
	if (args->flags & MVGAL_RW_STAGED &&
	    args->size <= READ_ONCE(mvgal_max_staged_bytes)) {
		void *buf = mvgal_usrc_copy(u64_to_user_ptr(args->user_ptr),
					    args->size);

		if (IS_ERR(buf))
			return PTR_ERR(buf);
		return mvgal_stage_write(bo, args->offset, args->size, buf,
					 file);
	}
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
	bounce = kmalloc(min_t(u64, size, MVGAL_BOUNCE_SIZE) ?: 1,
			 GFP_KERNEL_ACCOUNT);
	if (!bounce)
		return -ENOMEM;
	while (done < size) {
		size_t n = min_t(u64, size - done, MVGAL_BOUNCE_SIZE);

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

	if (args->flags & ~(write ? MVGAL_RW_STAGED : 0))
		return -EINVAL;
	bo = mvgal_bo_lookup_access(file, args->handle, write, &ret);
	if (!bo)
		return ret;
	if (!mvgal_range_ok(args->offset, args->size, bo->size))
		ret = -EINVAL;
	else if (write)
		ret = mvgal_bo_pwrite(bo, args, file);
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
 * BO_MARK: a registered buffer's application says what it wrote through
 * its own mapping (where home held the chunks, with MVGAL_MARK_HOME_HELD);
 * with MVGAL_MARK_OVERWRITE, a mapping's user what it is about to
 * overwrite.
 */
int mvgal_ioctl_bo_mark(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_mvgal_bo_mark *args = data;
	bool overwrite = args->flags & MVGAL_MARK_OVERWRITE;
	struct mvgal_bo *bo;
	int ret;

	if ((args->flags & ~MVGAL_MARK_FLAGS) ||
	    args->flags == MVGAL_MARK_FLAGS)
		return -EINVAL;
	bo = mvgal_bo_lookup_access(file, args->handle, true, &ret);
	if (!bo)
		return ret;
	/* A registered buffer's pages are the application's own mapping. */
	if (overwrite == !!bo->userptr ||
	    !mvgal_range_ok(args->offset, args->size, bo->size))
		ret = -EINVAL;
	else if (!args->size)
		ret = 0;
	else if (overwrite)
		ret = mvgal_cpu_overwrite(bo, args->offset, args->size);
	else
		ret = mvgal_cpu_mark(bo, args->offset, args->size,
				     args->flags & MVGAL_MARK_HOME_HELD);
	drm_gem_object_put(&bo->base);
	return ret;
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
	struct mvgal_bo *src, *dst;
	struct drm_exec exec;
	unsigned int n;
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
	bounce = kmalloc(min_t(u64, args->size, MVGAL_BOUNCE_SIZE),
			 GFP_KERNEL_ACCOUNT);
	if (!bounce) {
		ret = -ENOMEM;
		goto out_dst;
	}
	objs[0] = &src->base;
	objs[1] = &dst->base;
	n = src == dst ? 1 : 2;
	ret = mvgal_copy_lock(args, objs, n, &exec);
	if (!ret) {
		mvgal_copy_locked(src, dst, args, bounce);
		mvgal_copy_unlock(objs, n, &exec);
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
