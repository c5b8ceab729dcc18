/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CALIBRATE and GET_PATH: the path selector's calibration and choices as user
 * space sees them.
 */
#ifndef MVGAL_UAPI_PATH_IOCTL_H
#define MVGAL_UAPI_PATH_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_calibrate(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_get_path(struct drm_device *dev, void *data,
			 struct drm_file *file);

#endif /* MVGAL_UAPI_PATH_IOCTL_H */
