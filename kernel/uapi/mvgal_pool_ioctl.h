/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPU_BUDGET and POOL_LRU: a pool's budget and its eviction order.
 */
#ifndef MVGAL_UAPI_POOL_IOCTL_H
#define MVGAL_UAPI_POOL_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_gpu_budget(struct drm_device *dev, void *data,
			   struct drm_file *file);
int mvgal_ioctl_pool_lru(struct drm_device *dev, void *data,
			 struct drm_file *file);

#endif /* MVGAL_UAPI_POOL_IOCTL_H */
