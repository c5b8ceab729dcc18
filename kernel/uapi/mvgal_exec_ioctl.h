/* SPDX-License-Identifier: GPL-2.0 */
/*
 * EXEC_REGISTER, EXEC_TAKE and EXEC_DONE: the copy executors' calls.
 */
#ifndef MVGAL_UAPI_EXEC_IOCTL_H
#define MVGAL_UAPI_EXEC_IOCTL_H

struct drm_device;
struct drm_file;

int mvgal_ioctl_exec_register(struct drm_device *dev, void *data,
			      struct drm_file *file);
int mvgal_ioctl_exec_take(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_exec_done(struct drm_device *dev, void *data,
			  struct drm_file *file);

#endif /* MVGAL_UAPI_EXEC_IOCTL_H */
