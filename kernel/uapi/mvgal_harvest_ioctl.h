/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HARVEST: the chunks the CPU wrote since the last HARVEST, per buffer.
 */
#ifndef MVGAL_UAPI_HARVEST_IOCTL_H
#define MVGAL_UAPI_HARVEST_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_harvest(struct drm_device *dev, void *data,
			struct drm_file *file);

#endif /* MVGAL_UAPI_HARVEST_IOCTL_H */
