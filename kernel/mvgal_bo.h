/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffers: GEM objects whose storage is host pages (the home) or a range
 * of one GPU's pool (device-only).
 */
#ifndef MVGAL_BO_H
#define MVGAL_BO_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/uidgid.h>
#include <linux/mutex.h>

#include <drm/drm_gem.h>

#include "mvgal_drv.h"

struct mvgal_bo {
	struct drm_gem_object base;
	u64 size;		/* as created; base.size is page aligned */
	u32 flags;		/* MVGAL_BO_* */
	u32 gpu;		/* the GPU it is for, or MVGAL_GPU_ANY */
	int nid;		/* NUMA node of the host pages */

	/* Guards @pages and @nr_pages. */
	struct mutex lock;
	struct page **pages;	/* host storage; NULL entries: not yet */
	unsigned long npages;
	unsigned long nr_pages;

	/* Device-only storage: a range of @home's pool. */
	struct mvgal_gpu *home;
	struct mvgal_pool_alloc alloc;

	/* Storage the kernel reaches through a mapping: @home's pool at
	 * alloc.node.start, or an imported dma-buf's vmap at 0.
	 */
	struct iosys_map map;
	u64 map_offset;

	u32 sharing;		/* MVGAL_SHARING_* */
	/* Devices attached to the exported dma-buf; under @lock. */
	unsigned int nr_attach;

	/* On mdev->bos, for BO_LIST; who made it. */
	struct list_head link;
	u64 id;
	kuid_t uid;
	pid_t pid;

	atomic64_t bytes_read;
	atomic64_t bytes_written;
	atomic64_t access[MVGAL_MAX_GPUS];
};

static inline struct mvgal_bo *to_mvgal_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct mvgal_bo, base);
}

static inline bool mvgal_bo_device_only(const struct mvgal_bo *bo)
{
	return !(bo->flags & MVGAL_BO_HOST_VALID);
}

/* Is the storage reached through @map (a pool range or an import)? */
static inline bool mvgal_bo_mapped(const struct mvgal_bo *bo)
{
	return !bo->pages;
}

extern const struct drm_gem_object_funcs mvgal_bo_funcs;

struct mvgal_bo *mvgal_bo_lookup(struct drm_file *file, u32 handle);
int mvgal_bo_populate(struct mvgal_bo *bo);
void mvgal_bo_track(struct mvgal_bo *bo);
int mvgal_ioctl_bo_list(struct drm_device *dev, void *data,
			struct drm_file *file);

/* mvgal_prime.c */
struct dma_buf *mvgal_bo_export(struct drm_gem_object *obj, int flags);
struct sg_table *mvgal_bo_get_sg_table(struct drm_gem_object *obj);
int mvgal_bo_pin(struct drm_gem_object *obj);
struct drm_gem_object *mvgal_gem_prime_import(struct drm_device *dev,
					      struct dma_buf *dmabuf);
int mvgal_bo_access(struct mvgal_bo *bo, u64 offset, void *buf, size_t len,
		    bool write);

int mvgal_ioctl_bo_create(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_bo_info(struct drm_device *dev, void *data,
			struct drm_file *file);
int mvgal_ioctl_bo_pwrite(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_bo_pread(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_bo_copy(struct drm_device *dev, void *data,
			struct drm_file *file);

#endif /* MVGAL_BO_H */
