/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MIGRATE, CANCEL and GET_STATS: jobs of the migration engine as user space
 * queues, cancels and counts them.
 */
#ifndef MVGAL_UAPI_JOB_IOCTL_H
#define MVGAL_UAPI_JOB_IOCTL_H

#include <linux/types.h>

#include <drm/mvgal_drm.h>

struct dma_fence;
struct drm_device;
struct drm_file;

/*
 * MIGRATE as io_uring submits it: the job's fence comes back with the
 * results, so that the completion can wait for it.
 */
struct mvgal_migrate_call {
	struct drm_mvgal_migrate args;	/* first: what user space passes */
	struct dma_fence *fence;	/* (out) referenced; NULL: no job */
};

int mvgal_ioctl_cancel(struct drm_device *dev, void *data,
		       struct drm_file *file);
int mvgal_ioctl_get_stats(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_migrate(struct drm_device *dev, void *data,
			struct drm_file *file);
int mvgal_ioctl_migrate_fenced(struct drm_device *dev, void *data,
			       struct drm_file *file);

#endif /* MVGAL_UAPI_JOB_IOCTL_H */
