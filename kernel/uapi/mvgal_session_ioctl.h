/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BEGIN, END and FILE_FLAGS, and the open and close of a file: the ioctls of
 * access sessions.
 */
#ifndef MVGAL_UAPI_SESSION_IOCTL_H
#define MVGAL_UAPI_SESSION_IOCTL_H

#include <linux/types.h>

struct dma_fence;
struct drm_device;
struct drm_file;
struct file;

long mvgal_begin_user(struct file *filp, unsigned int cmd, void __user *uargs,
		      struct dma_fence **fence);
int mvgal_ioctl_end(struct drm_device *dev, void *data,
		    struct drm_file *file);
int mvgal_file_open(struct drm_device *dev, struct drm_file *file);
void mvgal_file_close(struct drm_device *dev, struct drm_file *file);
int mvgal_ioctl_file_flags(struct drm_device *dev, void *data,
			   struct drm_file *file);

#endif /* MVGAL_UAPI_SESSION_IOCTL_H */
