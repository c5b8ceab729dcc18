// SPDX-License-Identifier: GPL-2.0
/*
 * EXEC_REGISTER, EXEC_TAKE and EXEC_DONE: the copy executors' calls
 * (dev/mvgal_exec.c). Registering needs CAP_SYS_ADMIN: an executor gets
 * every buffer's bytes that cross its GPU's pool, and the pool itself.
 * The other two need only be made by the registered file.
 */

#include <linux/capability.h>
#include <linux/err.h>
#include <linux/errno.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "uapi/mvgal_exec_ioctl.h"

/**
 * mvgal_ioctl_exec_register() - DRM_IOCTL_MVGAL_EXEC_REGISTER
 * @dev: the mvgal DRM device
 * @data: &struct drm_mvgal_exec_register
 * @file: the caller's file
 *
 * Return: 0 or a negative errno (see the uapi).
 */
int mvgal_ioctl_exec_register(struct drm_device *dev, void *data,
			      struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_exec_register *args = data;
	struct mvgal_gpu *gpu;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if ((args->flags & ~MVGAL_EXEC_UNREGISTER) ||
	    args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	if (args->flags & MVGAL_EXEC_UNREGISTER)
		return mvgal_exec_unregister(mdev, file, args->gpu);
	/* Under gpu_lock: a detach removes the GPU's executor after this. */
	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, args->gpu, &ret);
	if (gpu)
		ret = mvgal_exec_register(mdev, file, gpu->index);
	up_read(&mdev->gpu_lock);
	return ret;
}

/**
 * mvgal_ioctl_exec_take() - DRM_IOCTL_MVGAL_EXEC_TAKE
 * @dev: the mvgal DRM device
 * @data: &struct drm_mvgal_exec_take
 * @file: the caller's file
 *
 * Return: 0 or a negative errno (see the uapi).
 */
int mvgal_ioctl_exec_take(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_mvgal_exec_take *args = data;

	if ((args->flags & ~MVGAL_EXEC_TAKE_NONBLOCK) ||
	    args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	return mvgal_exec_take(to_mvgal(dev), file, args);
}

/**
 * mvgal_ioctl_exec_done() - DRM_IOCTL_MVGAL_EXEC_DONE
 * @dev: the mvgal DRM device
 * @data: &struct drm_mvgal_exec_done
 * @file: the caller's file
 *
 * Return: 0 or a negative errno (see the uapi).
 */
int mvgal_ioctl_exec_done(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_mvgal_exec_done *args = data;

	if (args->flags || args->gpu >= mvgal_max_gpus ||
	    args->status > 0 || args->status < -MAX_ERRNO ||
	    (args->status && args->fence_fd != -1))
		return -EINVAL;
	return mvgal_exec_done(to_mvgal(dev), file, args);
}
