/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPU_ATTACH, GPU_DETACH, GPU_INFO, GPU_LINK and POOL_FD.
 */
#ifndef MVGAL_UAPI_GPU_IOCTL_H
#define MVGAL_UAPI_GPU_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_gpu_attach(struct drm_device *dev, void *data,
			   struct drm_file *file);
int mvgal_ioctl_gpu_detach(struct drm_device *dev, void *data,
			   struct drm_file *file);
int mvgal_ioctl_gpu_info(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_gpu_link(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_pool_fd(struct drm_device *dev, void *data,
			struct drm_file *file);

#endif /* MVGAL_UAPI_GPU_IOCTL_H */
