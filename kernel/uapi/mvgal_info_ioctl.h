/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mvgal ioctls that describe the module.
 */
#ifndef MVGAL_UAPI_INFO_IOCTL_H
#define MVGAL_UAPI_INFO_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_get_info(struct drm_device *dev, void *data,
			 struct drm_file *file);

#endif /* MVGAL_UAPI_INFO_IOCTL_H */
