// SPDX-License-Identifier: GPL-2.0
/*
 * The stand-in's dma-buf export and import. Each mode follows one real
 * driver; every rule names the upstream function it mirrors (Linux 6.12,
 * and NVIDIA's open kernel modules for MVGAL_VRAM_NVIDIA).
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <drm/drm_prime.h>

#include "mvgal_vram.h"

static struct mvgal_vram_bo *mvgal_vram_dmabuf_bo(struct dma_buf *dmabuf)
{
	return to_mvgal_vram_bo(dmabuf->priv);
}

/* Without CONFIG_PCI_P2PDMA, pci_p2pdma_distance() is -1 for every pair. */
static bool mvgal_vram_p2p_ok(struct mvgal_vram_bo *bo, struct device *dev)
{
	struct mvgal_vram_dev *vdev = to_mvgal_vram_dev(bo->base.dev);

	return pci_p2pdma_distance(vdev->pdev, dev, false) >= 0;
}

static int mvgal_vram_attach(struct dma_buf *dmabuf,
			     struct dma_buf_attachment *attach)
{
	struct mvgal_vram_bo *bo = mvgal_vram_dmabuf_bo(dmabuf);
	int ret = 0;

	switch (bo->mode) {
	case MVGAL_VRAM_AMDGPU:
		/* amdgpu_dma_buf_attach(): P2P only where the path works. */
		if (!mvgal_vram_p2p_ok(bo, attach->dev))
			attach->peer2peer = false;
		break;
	case MVGAL_VRAM_XE:
		/*
		 * xe_dma_buf_attach(): without P2P a buffer that cannot
		 * migrate to TT cannot be shared at all.
		 */
		if (attach->peer2peer && !mvgal_vram_p2p_ok(bo, attach->dev))
			attach->peer2peer = false;
		if (!attach->peer2peer && bo->vram_only)
			ret = -EOPNOTSUPP;
		break;
	case MVGAL_VRAM_I915:
		/*
		 * i915_gem_dmabuf_attach(): any importer gets the object
		 * migrated to system memory and its pages pinned; an object
		 * that cannot migrate (a dumb buffer: LMEM only) is refused.
		 */
		if (bo->vram_only)
			return -EOPNOTSUPP;
		fallthrough;
	case MVGAL_VRAM_NOUVEAU:
		/*
		 * drm_gem_map_attach() -> nouveau_gem_prime_pin(): pinned
		 * into GART, -EINVAL when it cannot be.
		 */
		dma_resv_lock(bo->base.resv, NULL);
		ret = mvgal_vram_bo_pin(bo, MVGAL_VRAM_IN_SYSTEM);
		dma_resv_unlock(bo->base.resv);
		if (ret && bo->mode == MVGAL_VRAM_NOUVEAU)
			ret = -EINVAL;
		break;
	case MVGAL_VRAM_NVIDIA:
	default:
		/* nv_drm's exports attach with drm_gem_map_attach(): no pin. */
		break;
	}
	return ret;
}

static void mvgal_vram_detach(struct dma_buf *dmabuf,
			      struct dma_buf_attachment *attach)
{
	struct mvgal_vram_bo *bo = mvgal_vram_dmabuf_bo(dmabuf);

	if (bo->mode != MVGAL_VRAM_I915 && bo->mode != MVGAL_VRAM_NOUVEAU)
		return;
	dma_resv_lock(bo->base.resv, NULL);
	mvgal_vram_bo_unpin(bo);
	dma_resv_unlock(bo->base.resv);
}

/*
 * amdgpu_dma_buf_pin() pins into GTT; xe_dma_buf_pin() migrates to TT
 * (-EINVAL when pinned elsewhere). Without CONFIG_DMABUF_MOVE_NOTIFY the
 * dma-buf core pins for every importer, so no importer keeps VRAM.
 */
static int mvgal_vram_pin(struct dma_buf_attachment *attach)
{
	return mvgal_vram_bo_pin(mvgal_vram_dmabuf_bo(attach->dmabuf),
				 MVGAL_VRAM_IN_SYSTEM);
}

static void mvgal_vram_unpin(struct dma_buf_attachment *attach)
{
	mvgal_vram_bo_unpin(mvgal_vram_dmabuf_bo(attach->dmabuf));
}

/* Where the buffer must be for this mapping (amdgpu_dma_buf_map()'s and
 * xe_dma_buf_map()'s placement choice).
 */
static int mvgal_vram_place_for(struct mvgal_vram_bo *bo,
				struct dma_buf_attachment *attach)
{
	int ret;

	switch (bo->mode) {
	case MVGAL_VRAM_AMDGPU:
		if (bo->pin_count)
			return bo->domain == MVGAL_VRAM_IN_SYSTEM ? 0 : -EBUSY;
		if (!attach->peer2peer)
			return mvgal_vram_bo_move(bo, MVGAL_VRAM_IN_SYSTEM);
		/* VRAM preferred, GTT where VRAM has no room. */
		ret = mvgal_vram_bo_move(bo, MVGAL_VRAM_IN_VRAM);
		return ret == -ENOSPC ? 0 : ret;
	case MVGAL_VRAM_XE:
		if (!attach->peer2peer && bo->vram_only)
			return -EOPNOTSUPP;
		if (!bo->pin_count && !attach->peer2peer)
			return mvgal_vram_bo_move(bo, MVGAL_VRAM_IN_SYSTEM);
		return 0;
	case MVGAL_VRAM_NVIDIA:
		/*
		 * nv_drm_gem_prime_get_sg_table() has no pages for video
		 * memory: the map fails with -ENOMEM.
		 */
		return bo->domain == MVGAL_VRAM_IN_VRAM ? -ENOMEM : 0;
	default:
		/* i915 and nouveau pinned it in system memory at attach. */
		return 0;
	}
}

static struct sg_table *mvgal_vram_sg_vram(struct mvgal_vram_bo *bo,
					   struct device *dev,
					   enum dma_data_direction dir)
{
	struct mvgal_vram_dev *vdev = to_mvgal_vram_dev(bo->base.dev);
	phys_addr_t phys = vdev->bar_start + bo->node.start;
	size_t off = 0, len, size = bo->base.size;
	struct scatterlist *sg;
	struct sg_table *sgt;
	dma_addr_t addr;
	unsigned int i;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt || sg_alloc_table(sgt, DIV_ROUND_UP(size, SZ_1G), GFP_KERNEL)) {
		kfree(sgt);
		return ERR_PTR(-ENOMEM);
	}
	/*
	 * As amdgpu_vram_mgr_alloc_sgt(): bus addresses of the BAR from
	 * dma_map_resource(), and no struct page behind them.
	 */
	for_each_sgtable_sg(sgt, sg, i) {
		len = min_t(size_t, size - off, SZ_1G);
		addr = dma_map_resource(dev, phys + off, len, dir,
					DMA_ATTR_SKIP_CPU_SYNC);
		if (dma_mapping_error(dev, addr))
			goto err;
		sg_set_page(sg, NULL, len, 0);
		sg_dma_address(sg) = addr;
		sg_dma_len(sg) = len;
		off += len;
	}
	return sgt;

err:
	sgt->nents = i;
	for_each_sgtable_sg(sgt, sg, i)
		dma_unmap_resource(dev, sg_dma_address(sg), sg_dma_len(sg),
				   dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
	return ERR_PTR(-EIO);
}

static struct sg_table *mvgal_vram_sg_system(struct mvgal_vram_bo *bo,
					     struct device *dev,
					     enum dma_data_direction dir)
{
	struct sg_table *sgt;

	sgt = drm_prime_pages_to_sg(bo->base.dev, bo->pages,
				    bo->base.size >> PAGE_SHIFT);
	if (IS_ERR(sgt))
		return sgt;
	if (dma_map_sgtable(dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC)) {
		sg_free_table(sgt);
		kfree(sgt);
		return ERR_PTR(-EBUSY);
	}
	return sgt;
}

static struct sg_table *mvgal_vram_map(struct dma_buf_attachment *attach,
				       enum dma_data_direction dir)
{
	struct mvgal_vram_bo *bo = mvgal_vram_dmabuf_bo(attach->dmabuf);
	int ret;

	dma_resv_assert_held(bo->base.resv);
	ret = mvgal_vram_place_for(bo, attach);
	if (ret)
		return ERR_PTR(ret);
	if (bo->domain == MVGAL_VRAM_IN_VRAM)
		return mvgal_vram_sg_vram(bo, attach->dev, dir);
	return mvgal_vram_sg_system(bo, attach->dev, dir);
}

/* amdgpu_dma_buf_unmap(): a table without pages holds BAR addresses. */
static void mvgal_vram_unmap(struct dma_buf_attachment *attach,
			     struct sg_table *sgt, enum dma_data_direction dir)
{
	struct scatterlist *sg;
	unsigned int i;

	if (sg_page(sgt->sgl)) {
		dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	} else {
		for_each_sgtable_sg(sgt, sg, i)
			dma_unmap_resource(attach->dev, sg_dma_address(sg),
					   sg_dma_len(sg), dir,
					   DMA_ATTR_SKIP_CPU_SYNC);
	}
	sg_free_table(sgt);
	kfree(sgt);
}

/* amdgpu and xe: dynamic exporters (they have pin and unpin). */
static const struct dma_buf_ops mvgal_vram_dynamic_ops = {
	.attach = mvgal_vram_attach,
	.detach = mvgal_vram_detach,
	.pin = mvgal_vram_pin,
	.unpin = mvgal_vram_unpin,
	.map_dma_buf = mvgal_vram_map,
	.unmap_dma_buf = mvgal_vram_unmap,
	.release = drm_gem_dmabuf_release,
	.mmap = drm_gem_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

/* i915, nouveau and NVIDIA: static exporters, pinned (or not) at attach. */
static const struct dma_buf_ops mvgal_vram_static_ops = {
	.attach = mvgal_vram_attach,
	.detach = mvgal_vram_detach,
	.map_dma_buf = mvgal_vram_map,
	.unmap_dma_buf = mvgal_vram_unmap,
	.release = drm_gem_dmabuf_release,
	.mmap = drm_gem_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

struct dma_buf *mvgal_vram_prime_export(struct drm_gem_object *obj, int flags)
{
	struct mvgal_vram_bo *bo = to_mvgal_vram_bo(obj);
	bool dynamic = bo->mode == MVGAL_VRAM_AMDGPU || bo->mode == MVGAL_VRAM_XE;
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);

	if (bo->domain == MVGAL_VRAM_IN_IMPORT)
		return ERR_PTR(-EOPNOTSUPP);
	exp_info.ops = dynamic ? &mvgal_vram_dynamic_ops : &mvgal_vram_static_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

/* An importer's mapping is stale once the exporter moved the buffer. */
static void mvgal_vram_move_notify(struct dma_buf_attachment *attach)
{
	struct mvgal_vram_bo *bo = attach->importer_priv;

	if (!bo->sgt)
		return;
	dma_buf_unmap_attachment(attach, bo->sgt, DMA_BIDIRECTIONAL);
	bo->sgt = NULL;
}

/* amdgpu_dma_buf_attach_ops: P2P allowed, moves handled. */
static const struct dma_buf_attach_ops mvgal_vram_importer_ops = {
	.allow_peer2peer = true,
	.move_notify = mvgal_vram_move_notify,
};

/* Map an import for this device, as the GPU would before using it. */
int mvgal_vram_import_map(struct mvgal_vram_bo *bo)
{
	struct sg_table *sgt;

	dma_resv_assert_held(bo->base.resv);
	if (bo->sgt)
		return 0;
	sgt = dma_buf_map_attachment(bo->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	bo->sgt = sgt;
	return 0;
}

/*
 * amdgpu_gem_prime_import(): a dma-buf of this very device is its own
 * object again (the GPU uses its own memory, not a loop over PCIe);
 * another's is attached dynamically and mapped when used.
 */
struct drm_gem_object *mvgal_vram_prime_import(struct drm_device *dev,
					       struct dma_buf *dmabuf)
{
	struct dma_buf_attachment *attach;
	struct mvgal_vram_bo *bo;

	if (dmabuf->ops == &mvgal_vram_dynamic_ops ||
	    dmabuf->ops == &mvgal_vram_static_ops) {
		struct drm_gem_object *obj = dmabuf->priv;

		if (obj->dev == dev) {
			drm_gem_object_get(obj);
			return obj;
		}
	}
	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.funcs = &mvgal_vram_bo_funcs;
	INIT_LIST_HEAD(&bo->link);
	bo->base.resv = dmabuf->resv;
	drm_gem_private_object_init(dev, &bo->base, dmabuf->size);
	bo->domain = MVGAL_VRAM_IN_IMPORT;
	attach = dma_buf_dynamic_attach(dmabuf, dev->dev,
					&mvgal_vram_importer_ops, bo);
	if (IS_ERR(attach)) {
		drm_gem_object_put(&bo->base);
		return ERR_CAST(attach);
	}
	get_dma_buf(dmabuf);
	bo->attach = attach;
	bo->base.import_attach = attach;
	return &bo->base;
}
