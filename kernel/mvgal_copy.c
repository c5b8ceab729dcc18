// SPDX-License-Identifier: GPL-2.0
/*
 * Ranged copies: user memory <-> buffer, and buffer -> buffer, whatever
 * storage each buffer has. Every range is checked once, before anything
 * moves, and each offset is applied exactly once, at the storage access.
 */
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

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

static int mvgal_bo_rw(struct drm_file *file, struct drm_mvgal_bo_rw *args,
		       bool write)
{
	void __user *uptr = u64_to_user_ptr(args->user_ptr);
	u64 done = 0, size = args->size;
	struct mvgal_bo *bo;
	void *bounce;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	bo = mvgal_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;
	if (!mvgal_range_ok(args->offset, size, bo->size)) {
		ret = -EINVAL;
		goto out_put;
	}
	/* A user range that cannot be faulted in is refused before any
	 * byte of the buffer changes.
	 */
	if (size && (write ? fault_in_readable(uptr, size) :
		     fault_in_safe_writeable(uptr, size))) {
		ret = -EFAULT;
		goto out_put;
	}
	bounce = kmalloc(min_t(u64, size, MVGAL_COPY_CHUNK) ?: 1, GFP_KERNEL);
	if (!bounce) {
		ret = -ENOMEM;
		goto out_put;
	}
	while (done < size) {
		size_t n = min_t(u64, size - done, MVGAL_COPY_CHUNK);

		if (write) {
			if (copy_from_user(bounce, uptr + done, n)) {
				ret = -EFAULT;
				break;
			}
			ret = mvgal_cpu_access(bo, args->offset + done, bounce, n,
					       true);
		} else {
			ret = mvgal_cpu_access(bo, args->offset + done, bounce, n,
					       false);
			if (!ret && copy_to_user(uptr + done, bounce, n))
				ret = -EFAULT;
		}
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
		mvgal_bo_count(bo, done, write);
out_put:
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

int mvgal_ioctl_bo_copy(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_mvgal_bo_copy *args = data;
	struct mvgal_bo *src, *dst;
	u64 size = args->size, done = 0;
	bool backward;
	void *bounce;
	int ret = 0;

	if (args->flags || args->pad)
		return -EINVAL;
	src = mvgal_bo_lookup(file, args->src_handle);
	if (!src)
		return -ENOENT;
	dst = mvgal_bo_lookup(file, args->dst_handle);
	if (!dst) {
		ret = -ENOENT;
		goto out_src;
	}
	if (!mvgal_range_ok(args->src_offset, size, src->size) ||
	    !mvgal_range_ok(args->dst_offset, size, dst->size)) {
		ret = -EINVAL;
		goto out_dst;
	}
	if (!size)
		goto out_dst;
	bounce = kmalloc(min_t(u64, size, MVGAL_COPY_CHUNK), GFP_KERNEL);
	if (!bounce) {
		ret = -ENOMEM;
		goto out_dst;
	}
	/* memmove() within one buffer: when the destination starts above
	 * an overlapping source, go from the end so that every source byte
	 * is read before it is overwritten.
	 */
	backward = src == dst && args->dst_offset > args->src_offset &&
		   mvgal_range_overlap(args->src_offset, args->dst_offset, size);
	while (done < size) {
		size_t n = min_t(u64, size - done, MVGAL_COPY_CHUNK);
		u64 at = backward ? size - done - n : done;

		ret = mvgal_cpu_access(src, args->src_offset + at, bounce, n,
				       false);
		if (!ret)
			ret = mvgal_cpu_access(dst, args->dst_offset + at, bounce,
					       n, true);
		if (ret)
			break;
		done += n;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}
	kfree(bounce);
	if (done) {
		mvgal_bo_count(src, done, false);
		mvgal_bo_count(dst, done, true);
	}
out_dst:
	drm_gem_object_put(&dst->base);
out_src:
	drm_gem_object_put(&src->base);
	return ret;
}
