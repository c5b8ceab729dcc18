/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PLACE_FD, PLACE_ADOPT and PLACE_FREE: exporting, lending and freeing
 * one GPU's placement of a buffer.
 */
#ifndef MVGAL_UAPI_PLACE_IOCTL_H
#define MVGAL_UAPI_PLACE_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_place_fd(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_place_adopt(struct drm_device *dev, void *data,
			    struct drm_file *file);
int mvgal_ioctl_place_free(struct drm_device *dev, void *data,
			   struct drm_file *file);

#endif /* MVGAL_UAPI_PLACE_IOCTL_H */
