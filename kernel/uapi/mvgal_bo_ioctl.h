/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BO_CREATE, BO_INFO and BO_LIST.
 */
#ifndef MVGAL_UAPI_BO_IOCTL_H
#define MVGAL_UAPI_BO_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_bo_userptr(struct drm_device *dev, void *data,
			   struct drm_file *file);
int mvgal_ioctl_bo_create(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_bo_info(struct drm_device *dev, void *data,
			struct drm_file *file);
int mvgal_ioctl_bo_list(struct drm_device *dev, void *data,
			struct drm_file *file);

#endif /* MVGAL_UAPI_BO_IOCTL_H */
