/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MIGRATE, CANCEL and GET_STATS: jobs of the migration engine as user space
 * queues, cancels and counts them.
 */
#ifndef MVGAL_UAPI_JOB_IOCTL_H
#define MVGAL_UAPI_JOB_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;

int mvgal_ioctl_cancel(struct drm_device *dev, void *data,
		       struct drm_file *file);
int mvgal_ioctl_get_stats(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_migrate(struct drm_device *dev, void *data,
			struct drm_file *file);

#endif /* MVGAL_UAPI_JOB_IOCTL_H */
