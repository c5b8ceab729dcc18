/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-only handles.
 */
#ifndef MVGAL_BO_RO_H
#define MVGAL_BO_RO_H

#include <linux/types.h>

struct dma_buf;
struct drm_file;
struct drm_gem_object;
struct mvgal_bo;

struct drm_gem_object *mvgal_ro_create(struct mvgal_bo *bo,
				       struct dma_buf *dmabuf);
struct mvgal_bo *mvgal_ro_target(struct drm_gem_object *obj);
s64 mvgal_ro_mmap_offset(struct drm_file *file, u32 handle);

#endif /* MVGAL_BO_RO_H */
