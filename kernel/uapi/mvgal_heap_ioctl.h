/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unified heap: system RAM, as the page allocator counts it, and each GPU
 * pool, as its range allocator counts it.
 */
#ifndef MVGAL_UAPI_HEAP_IOCTL_H
#define MVGAL_UAPI_HEAP_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_get_heap(struct drm_device *dev, void *data,
			 struct drm_file *file);

#endif /* MVGAL_UAPI_HEAP_IOCTL_H */
