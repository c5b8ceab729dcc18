/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VRAM stand-in GPU (test bed only). See mvgal_vram_drv.c.
 */
#ifndef MVGAL_VRAM_H
#define MVGAL_VRAM_H

#include <linux/iosys-map.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_mm.h>

/*
 * Whose dma-buf rules the stand-in follows. Each rule in mvgal_vram_dmabuf.c
 * names the upstream function it mirrors.
 */
enum mvgal_vram_mode {
	MVGAL_VRAM_AMDGPU,
	MVGAL_VRAM_I915,
	MVGAL_VRAM_XE,
	MVGAL_VRAM_NOUVEAU,
	MVGAL_VRAM_NVIDIA,
	MVGAL_VRAM_NR_MODES,
};

struct mvgal_vram_dev {
	struct drm_device drm;
	struct pci_dev *pdev;
	/* The BAR: bus/physical start, size, and a write-combined mapping. */
	resource_size_t bar_start;
	resource_size_t bar_size;
	void __iomem *bar;
	/* Taken (innermost) around @mm: buffers of any resv allocate here. */
	struct mutex mm_lock;
	struct drm_mm mm;
	/* The rules later buffers follow (READ_ONCE; the sysfs "mode"). */
	enum mvgal_vram_mode mode;
	/* Taken (outermost) around @bos: every buffer made here, for evict. */
	struct mutex bos_lock;
	struct list_head bos;
};

enum mvgal_vram_domain {
	MVGAL_VRAM_IN_VRAM = 1,
	MVGAL_VRAM_IN_SYSTEM,
	MVGAL_VRAM_IN_IMPORT,
};

/*
 * A buffer. Everything below @base is protected by base.resv, as in TTM:
 * the dma-buf core calls pin, unpin and map with it held.
 */
struct mvgal_vram_bo {
	struct drm_gem_object base;
	enum mvgal_vram_mode mode;	/* fixed at creation */
	bool vram_only;
	enum mvgal_vram_domain domain;
	struct drm_mm_node node;	/* MVGAL_VRAM_IN_VRAM */
	struct page **pages;		/* MVGAL_VRAM_IN_SYSTEM */
	unsigned int pin_count;
	unsigned int moves;
	unsigned int vmap_count;
	bool vmap_pinned;
	struct iosys_map vmap;
	/* MVGAL_VRAM_IN_IMPORT: the attachment and its current mapping. */
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	/* On mvgal_vram_dev.bos (not imports), under its bos_lock. */
	struct list_head link;
};

static inline struct mvgal_vram_dev *to_mvgal_vram_dev(struct drm_device *d)
{
	return container_of(d, struct mvgal_vram_dev, drm);
}

static inline struct mvgal_vram_bo *to_mvgal_vram_bo(struct drm_gem_object *o)
{
	return container_of(o, struct mvgal_vram_bo, base);
}

/* mvgal_vram_bo.c */
struct mvgal_vram_bo *mvgal_vram_bo_create(struct mvgal_vram_dev *vdev,
					   size_t size, u32 flags);
int mvgal_vram_bo_move(struct mvgal_vram_bo *bo, enum mvgal_vram_domain to);
int mvgal_vram_bo_pin(struct mvgal_vram_bo *bo, enum mvgal_vram_domain to);
void mvgal_vram_bo_unpin(struct mvgal_vram_bo *bo);
int mvgal_vram_evict(struct mvgal_vram_dev *vdev);
int mvgal_vram_validate(struct mvgal_vram_dev *vdev);
extern const struct drm_gem_object_funcs mvgal_vram_bo_funcs;

/* mvgal_vram_dmabuf.c */
struct dma_buf *mvgal_vram_prime_export(struct drm_gem_object *obj, int flags);
struct drm_gem_object *mvgal_vram_prime_import(struct drm_device *dev,
					       struct dma_buf *dmabuf);
int mvgal_vram_import_map(struct mvgal_vram_bo *bo);

#endif
