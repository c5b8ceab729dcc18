/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BO_PWRITE, BO_PREAD and BO_COPY: ranged copies between user memory and
 * buffers, and between buffers.
 */
#ifndef MVGAL_UAPI_RW_IOCTL_H
#define MVGAL_UAPI_RW_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_bo_mark(struct drm_device *dev, void *data,
			struct drm_file *file);
int mvgal_ioctl_bo_pwrite(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_bo_pread(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_bo_copy(struct drm_device *dev, void *data,
			struct drm_file *file);

#endif /* MVGAL_UAPI_RW_IOCTL_H */
