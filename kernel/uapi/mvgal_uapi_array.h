/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User arrays of structs passed with an element stride, so that an
 * element can grow without breaking binaries built for another size.
 */
#ifndef MVGAL_UAPI_ARRAY_H
#define MVGAL_UAPI_ARRAY_H

#include <linux/compiler_types.h>
#include <linux/types.h>

/**
 * struct mvgal_uarray - a user array of structs as the kernel sees it
 * @ptr: user address of element 0
 * @count: elements
 * @stride: bytes from one user element to the next
 * @ksize: bytes of the kernel's element (its sizeof)
 */
struct mvgal_uarray {
	u64 ptr;
	u32 count;
	u32 stride;
	size_t ksize;
};

int mvgal_uarray_check_stride(u32 stride, size_t size_v1);
int mvgal_uarray_init(struct mvgal_uarray *a, u64 ptr, u32 count,
		      u32 stride, size_t size_v1, size_t ksize);
void __user *mvgal_uarray_elem(const struct mvgal_uarray *a, u32 i);
bool mvgal_uarray_writable(const struct mvgal_uarray *a, u32 n);
int mvgal_uarray_copy_out(const struct mvgal_uarray *a, const void *src,
			  u32 n);
int mvgal_uarray_read(const struct mvgal_uarray *a, void *dst);
void *mvgal_uarray_dup(const struct mvgal_uarray *a);

#endif /* MVGAL_UAPI_ARRAY_H */
