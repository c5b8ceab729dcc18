// SPDX-License-Identifier: GPL-2.0
/*
 * User arrays of structs with an element stride (the "array strides"
 * rule of the uapi header): a stride of 0 is the element's ABI 1 size,
 * output is clipped to what both sides know and a larger user element's
 * tail cleared, input a larger user element fills must be zero beyond
 * what the kernel knows.
 */

#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/mvgal_drm.h>

#include "uapi/mvgal_uapi_array.h"

/**
 * mvgal_uarray_check_stride() - is @stride one a caller may pass?
 * @stride: the caller's stride; 0 stands for @size_v1
 * @size_v1: the element's size in ABI 1, the smallest a caller may use
 *
 * Return: 0, or -EINVAL below @size_v1 or above MVGAL_STRIDE_MAX.
 */
int mvgal_uarray_check_stride(u32 stride, size_t size_v1)
{
	if (stride && (stride < size_v1 || stride > MVGAL_STRIDE_MAX))
		return -EINVAL;
	return 0;
}

/**
 * mvgal_uarray_init() - check a user array's stride and describe it
 * @a: (out) the array
 * @ptr: user address of element 0
 * @count: elements
 * @stride: the caller's stride; 0 stands for @size_v1
 * @size_v1: the element's size in ABI 1, the smallest a caller may use
 * @ksize: the kernel's element size
 *
 * Touches no user memory. Return: 0, or -EINVAL for a stride below
 * @size_v1 or above MVGAL_STRIDE_MAX.
 */
int mvgal_uarray_init(struct mvgal_uarray *a, u64 ptr, u32 count,
		      u32 stride, size_t size_v1, size_t ksize)
{
	int ret = mvgal_uarray_check_stride(stride, size_v1);

	if (ret)
		return ret;
	*a = (struct mvgal_uarray){
		.ptr = ptr, .count = count, .stride = stride ?: size_v1,
		.ksize = ksize,
	};
	return 0;
}

/* User address of element @i. */
void __user *mvgal_uarray_elem(const struct mvgal_uarray *a, u32 i)
{
	return u64_to_user_ptr(a->ptr + (u64)i * a->stride);
}

/*
 * Can the first @n elements be written? Faults them in without writing,
 * so that a bad pointer fails a call before anything was written.
 */
bool mvgal_uarray_writable(const struct mvgal_uarray *a, u32 n)
{
	size_t len = (size_t)n * a->stride;

	return !n || !fault_in_safe_writeable(mvgal_uarray_elem(a, 0), len);
}

/**
 * mvgal_uarray_copy_out() - write @n kernel elements to the user array
 * @a: the array
 * @src: @n elements of @a->ksize bytes
 * @n: how many, at most @a->count
 *
 * Each user element gets the first min(stride, ksize) bytes; the bytes
 * of a larger user element beyond ksize are cleared, so that a caller
 * built against a later header reads zeros, never stale memory, in the
 * fields this kernel does not know. Return: 0 or -EFAULT.
 */
int mvgal_uarray_copy_out(const struct mvgal_uarray *a, const void *src,
			  u32 n)
{
	size_t len = min_t(size_t, a->stride, a->ksize);
	u32 i;

	if (a->stride == a->ksize)
		return copy_to_user(mvgal_uarray_elem(a, 0), src,
				    (size_t)n * a->ksize) ? -EFAULT : 0;
	for (i = 0; i < n; i++) {
		void __user *u = mvgal_uarray_elem(a, i);

		if (copy_to_user(u, src + (size_t)i * a->ksize, len))
			return -EFAULT;
		if (a->stride > len && clear_user(u + len, a->stride - len))
			return -EFAULT;
	}
	return 0;
}

/**
 * mvgal_uarray_read() - read every element into kernel memory
 * @a: the array
 * @dst: room for @a->count elements of @a->ksize bytes
 *
 * A smaller user element leaves the kernel fields it lacks 0; a larger
 * one must be zero beyond ksize. Return: 0, -E2BIG (non-zero bytes beyond
 * what the kernel knows) or -EFAULT.
 */
int mvgal_uarray_read(const struct mvgal_uarray *a, void *dst)
{
	u32 i;
	int ret;

	if (a->stride == a->ksize)
		return copy_from_user(dst, mvgal_uarray_elem(a, 0),
				      (size_t)a->count * a->ksize) ?
		       -EFAULT : 0;
	for (i = 0; i < a->count; i++) {
		ret = copy_struct_from_user(dst + (size_t)i * a->ksize,
					    a->ksize, mvgal_uarray_elem(a, i),
					    a->stride);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * mvgal_uarray_dup() - mvgal_uarray_read() into a new allocation
 * @a: the array, at least one element
 *
 * Return: the elements (kfree() them) or ERR_PTR: -ENOMEM and those of
 * mvgal_uarray_read().
 */
void *mvgal_uarray_dup(const struct mvgal_uarray *a)
{
	void *p;
	int ret;

	p = kmalloc_array(a->count, a->ksize,
			  GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!p)
		return ERR_PTR(-ENOMEM);
	ret = mvgal_uarray_read(a, p);
	if (ret) {
		kfree(p);
		return ERR_PTR(ret);
	}
	return p;
}
