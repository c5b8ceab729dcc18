/* SPDX-License-Identifier: GPL-2.0 */
/*
 * REPLICATE and ADVISE.
 */
#ifndef MVGAL_UAPI_POLICY_IOCTL_H
#define MVGAL_UAPI_POLICY_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_replicate(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_advise(struct drm_device *dev, void *data,
		       struct drm_file *file);

#endif /* MVGAL_UAPI_POLICY_IOCTL_H */
