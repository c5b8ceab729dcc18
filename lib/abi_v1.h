/* SPDX-License-Identifier: MIT */
/*
 * The struct sizes of ABI 1 (libmvgal 0.1 to 0.4, <drm/mvgal_drm.h>
 * version 1): what the unsized entry points read and fill, forever.
 * tests/abi checks them against the stored headers of that version.
 * The element sizes of the arrays are not here: they are the uapi's
 * MVGAL_*_SIZE_V1 (<drm/mvgal_drm.h>), what a stride of 0 stands for,
 * and the library uses those names.
 */
#ifndef MVGAL_LIB_ABI_V1_H
#define MVGAL_LIB_ABI_V1_H

#define MVGAL_V1_INFO_SIZE		64	/* struct mvgal_info */
#define MVGAL_V1_CONFIG_SIZE		360	/* struct mvgal_config */
#define MVGAL_V1_BO_INFO_SIZE		432	/* struct drm_mvgal_bo_info */
#define MVGAL_V1_GPU_INFO_SIZE		168	/* struct drm_mvgal_gpu_info */
#define MVGAL_V1_GPU_LINK_SIZE		48	/* struct drm_mvgal_gpu_link */
#define MVGAL_V1_STATS_SIZE		216	/* struct drm_mvgal_stats */
#define MVGAL_V1_PATH_SIZE		136	/* struct drm_mvgal_path */
#define MVGAL_V1_MIGRATE_SIZE		56	/* struct drm_mvgal_migrate */
#define MVGAL_V1_BEGIN_SIZE		48	/* struct drm_mvgal_begin */
#define MVGAL_V1_END_SIZE		32	/* struct drm_mvgal_end */
#define MVGAL_V1_POOL_LRU_SIZE		80	/* struct drm_mvgal_pool_lru */
#define MVGAL_V1_ADVISE_SIZE		56	/* struct drm_mvgal_advise */

#endif /* MVGAL_LIB_ABI_V1_H */
