// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal ioctls that describe the module.
 */

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "uapi/mvgal_info_ioctl.h"

/*
 * The features that work now, not those built in: the switches that
 * refuse an ioctl (-EPERM) and the pools a feature needs clear its bit.
 */
static u64 mvgal_info_caps(struct mvgal_device *mdev)
{
	u64 caps = MVGAL_CAP_SYNCOBJ | MVGAL_CAP_GPU_ATTACH |
		   MVGAL_CAP_SESSIONS | MVGAL_CAP_WRITE_WATCH |
		   MVGAL_CAP_EVICTION | MVGAL_CAP_URING |
		   MVGAL_CAP_SYNC_SYNCOBJS | MVGAL_CAP_STATS |
		   MVGAL_CAP_MARK_OVERWRITE | MVGAL_CAP_MARK_HOME_HELD;

	if (READ_ONCE(mvgal_enable_memory_migration))
		caps |= MVGAL_CAP_MIGRATION;
	if (IS_ENABLED(CONFIG_HMM_MIRROR))
		caps |= MVGAL_CAP_USERPTR_MIRROR;
	if (READ_ONCE(mvgal_enable_dmabuf)) {
		caps |= MVGAL_CAP_PLACE_ADOPT;
		if (mvgal_gpu_any_exportable(mdev))
			caps |= MVGAL_CAP_PLACE_FD;
	}
	return caps;
}

/**
 * mvgal_ioctl_get_info() - DRM_IOCTL_MVGAL_GET_INFO
 * @dev: the mvgal DRM device
 * @data: &struct drm_mvgal_get_info, copied in by the DRM core
 * @file: the caller
 *
 * The DRM core copies @data back even when this fails, so nothing is
 * written before the input is known to be valid.
 *
 * Return: 0, or -EINVAL for non-zero flags or padding.
 */
int mvgal_ioctl_get_info(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_get_info *args = data;

	if (args->flags || args->pad)
		return -EINVAL;

	args->abi_version = MVGAL_ABI_VERSION;
	args->caps = mvgal_info_caps(mdev);
	args->chunk_size = mvgal_chunk_size;
	args->gpu_count = READ_ONCE(mdev->gpu_count);
	args->max_gpus = mvgal_max_gpus;
	args->core_flags = 0;
	if (READ_ONCE(mvgal_enable_memory_migration))
		args->core_flags |= MVGAL_CORE_MEMORY_MIGRATION;
	if (READ_ONCE(mvgal_enable_dmabuf))
		args->core_flags |= MVGAL_CORE_DMABUF;
	args->stats_interval = READ_ONCE(mvgal_stats_interval);
	return 0;
}
