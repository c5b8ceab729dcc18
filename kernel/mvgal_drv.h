/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mvgal.ko internals shared between its files.
 */
#ifndef MVGAL_DRV_H
#define MVGAL_DRV_H

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#define MVGAL_DRIVER_NAME	"mvgal"
#define MVGAL_DRIVER_DESC	"Multi-GPU unified memory"
#define MVGAL_DRIVER_DATE	"20261130"
#define MVGAL_DRIVER_MAJOR	0
#define MVGAL_DRIVER_MINOR	1

struct mvgal_device {
	struct drm_device drm;
	struct platform_device *pdev;
	/* GPUs attached now; guarded by the attach lock once GPUs exist. */
	unsigned int gpu_count;
};

static inline struct mvgal_device *to_mvgal(struct drm_device *dev)
{
	return container_of(dev, struct mvgal_device, drm);
}

/* [core] settings, module parameters (mvgal_params.c). */
extern bool mvgal_enable_memory_migration;
extern bool mvgal_enable_dmabuf;
extern unsigned int mvgal_stats_interval;
extern unsigned int mvgal_chunk_size;

int mvgal_params_check(void);

/* mvgal_ioctl.c */
int mvgal_ioctl_get_info(struct drm_device *dev, void *data,
			 struct drm_file *file);

#endif /* MVGAL_DRV_H */
