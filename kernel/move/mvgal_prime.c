// SPDX-License-Identifier: GPL-2.0
/*
 * DMA-BUF sharing: export of host buffers under their sharing mode, and
 * import of foreign dma-bufs as buffers the CPU reaches through the
 * exporter's vmap.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>

#include <drm/drm_prime.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_userptr.h"
#include "bo/mvgal_coherence.h"
#include "bo/mvgal_pages.h"
#include "bo/mvgal_ro.h"
#include "move/mvgal_cpu.h"
#include "move/mvgal_gem.h"
#include "move/mvgal_prime.h"

/*
 * The driver of the attached GPU whose device is @dev, or NULL; *@gpu is
 * its slot (MVGAL_GPU_ANY for a device that is no attached GPU).
 */
static const char *mvgal_device_driver(struct mvgal_device *mdev,
				       struct device *dev, char *buf, u32 *gpu)
{
	const char *name = NULL;
	unsigned int i;

	*gpu = MVGAL_GPU_ANY;
	down_read(&mdev->gpu_lock);
	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		if (mdev->gpus[i] && mdev->gpus[i]->dev == dev) {
			strscpy(buf, mdev->gpus[i]->driver, MVGAL_NAME_LEN);
			name = buf;
			*gpu = i;
			break;
		}
	}
	up_read(&mdev->gpu_lock);
	return name;
}

/* The driver of the buffer's own GPU, or NULL when it has none. */
static const char *mvgal_bo_driver(struct mvgal_bo *bo, char *buf)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	const char *name = NULL;
	struct mvgal_gpu *gpu;
	int err;

	if (bo->gpu == MVGAL_GPU_ANY)
		return NULL;
	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, bo->gpu, &err);
	if (gpu) {
		strscpy(buf, gpu->driver, MVGAL_NAME_LEN);
		name = buf;
	}
	up_read(&mdev->gpu_lock);
	return name;
}

/**
 * mvgal_dmabuf_att_new() - what an exporter of mvgal keeps for one importer
 * @pool: the pool the dma-buf's bytes live in, or NULL (host pages)
 * @attach: the importer's attachment; attach->priv is set
 *
 * For a range of a pool, the pool is attached for the importer's device
 * (mvgal_pool_attach_for(): the pool's driver decides by its own rules,
 * and may refuse). Called with no reservation held (&dma_buf_ops.attach):
 * the pool's driver takes its own.
 *
 * Return: 0, -ENOMEM, or the pool driver's error.
 */
int mvgal_dmabuf_att_new(struct mvgal_pool *pool,
			 struct dma_buf_attachment *attach)
{
	struct mvgal_dmabuf_att *a;
	int ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return -ENOMEM;
	if (pool) {
		ret = mvgal_pool_attach_for(pool, attach->dev, &a->pool_att,
					    &a->pool_sgt);
		if (ret) {
			kfree(a);
			return ret;
		}
	}
	attach->priv = a;
	return 0;
}

/* Undoes mvgal_dmabuf_att_new() (&dma_buf_ops.detach). */
void mvgal_dmabuf_att_free(struct mvgal_pool *pool,
			   struct dma_buf_attachment *attach)
{
	struct mvgal_dmabuf_att *a = attach->priv;

	if (a->pool_att)
		mvgal_pool_detach_for(pool, a->pool_att, a->pool_sgt);
	kfree(a);
	attach->priv = NULL;
}

/*
 * The importer's table of [@start, @start + @len) of the pool: the pool
 * driver's DMA addresses for its device, no pages (&dma_buf_ops.map_dma_buf,
 * under the dma-buf's reservation: takes no lock).
 */
struct sg_table *mvgal_dmabuf_att_slice(struct dma_buf_attachment *attach,
					u64 start, u64 len)
{
	struct mvgal_dmabuf_att *a = attach->priv;

	return mvgal_pool_slice(a->pool_sgt, start, len);
}

/* A slice's table goes; the pool's driver unmaps its own at detach. */
void mvgal_dmabuf_slice_free(struct sg_table *sgt)
{
	sg_free_table(sgt);
	kfree(sgt);
}

/*
 * The sharing mode decides who may attach: see "sharing modes" in
 * mvgal_drm.h.
 */
static int mvgal_dmabuf_attach(struct dma_buf *dmabuf,
			       struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = dmabuf->priv;
	struct mvgal_bo *bo = to_mvgal_bo(obj);
	struct mvgal_device *mdev = to_mvgal(obj->dev);
	char a[MVGAL_NAME_LEN], b[MVGAL_NAME_LEN];
	const char *theirs, *ours;
	u32 gpu;
	int ret = 0;

	if (!(bo->flags & MVGAL_BO_GPU_VALID))
		return -EPERM;
	theirs = mvgal_device_driver(mdev, attach->dev, a, &gpu);
	ours = mvgal_bo_driver(bo, b);
	/* Beyond the buffer's own GPU only when it is SHARED. */
	if (!(bo->flags & MVGAL_BO_SHARED) &&
	    (bo->gpu == MVGAL_GPU_ANY || gpu != bo->gpu))
		return -EPERM;

	mutex_lock(&bo->lock);
	switch (bo->sharing) {
	case MVGAL_SHARING_EXCLUSIVE:
		if (bo->nr_attach)
			ret = -EBUSY;
		break;
	case MVGAL_SHARING_CONCURRENT:
		/* Only the buffer's own kind of GPU: another driver needs
		 * CROSS_VENDOR.
		 */
		if (!theirs || !ours || strcmp(theirs, ours))
			ret = -EPERM;
		break;
	case MVGAL_SHARING_CROSS_VENDOR:
		break;
	default:	/* DMA_BUF: processes share it, devices do not */
		ret = -EPERM;
		break;
	}
	/* Counted before the pin, which takes bo->lock itself, so that a
	 * racing EXCLUSIVE attach already sees this one.
	 */
	if (!ret)
		bo->nr_attach++;
	mutex_unlock(&bo->lock);
	if (ret)
		return ret;
	ret = drm_gem_map_attach(dmabuf, attach);
	if (!ret) {
		ret = mvgal_dmabuf_att_new(bo->home ? &bo->home->pool : NULL,
					   attach);
		if (ret)
			drm_gem_map_detach(dmabuf, attach);
	}
	if (ret) {
		mutex_lock(&bo->lock);
		bo->nr_attach--;
		mutex_unlock(&bo->lock);
	}
	return ret;
}

static void mvgal_dmabuf_detach(struct dma_buf *dmabuf,
				struct dma_buf_attachment *attach)
{
	struct mvgal_bo *bo = to_mvgal_bo(dmabuf->priv);

	mvgal_dmabuf_att_free(bo->home ? &bo->home->pool : NULL, attach);
	drm_gem_map_detach(dmabuf, attach);
	mutex_lock(&bo->lock);
	bo->nr_attach--;
	mutex_unlock(&bo->lock);
}

static struct sg_table *mvgal_dmabuf_map(struct dma_buf_attachment *attach,
					 enum dma_data_direction dir)
{
	struct mvgal_bo *bo = to_mvgal_bo(attach->dmabuf->priv);
	struct mvgal_dmabuf_att *a = attach->priv;
	struct sg_table *sgt;

	if (a->pool_sgt)
		return mvgal_dmabuf_att_slice(attach, bo->alloc.node.start,
					      bo->size);
	sgt = drm_gem_map_dma_buf(attach, dir);
	/* Kept for begin/end_cpu_access, which sync every device's view. */
	if (!IS_ERR(sgt))
		a->sgt = sgt;
	return sgt;
}

static void mvgal_dmabuf_unmap(struct dma_buf_attachment *attach,
			       struct sg_table *sgt,
			       enum dma_data_direction dir)
{
	struct mvgal_dmabuf_att *a = attach->priv;

	if (a->pool_sgt) {
		mvgal_dmabuf_slice_free(sgt);
		return;
	}
	a->sgt = NULL;
	drm_gem_unmap_dma_buf(attach, sgt, dir);
}

/*
 * Syncs every importing device's mapping of @dmabuf for the CPU (@begin)
 * or back for the devices. Its exporter keeps each attachment's mapped
 * sg table of host pages in attach->priv.
 */
void mvgal_dmabuf_sync_attachments(struct dma_buf *dmabuf,
				   enum dma_data_direction dir, bool begin)
{
	struct dma_buf_attachment *attach;

	dma_resv_lock(dmabuf->resv, NULL);
	list_for_each_entry(attach, &dmabuf->attachments, node) {
		struct mvgal_dmabuf_att *a = attach->priv;
		struct sg_table *sgt = a ? a->sgt : NULL;

		if (!sgt)
			continue;
		if (begin)
			dma_sync_sgtable_for_cpu(attach->dev, sgt, dir);
		else
			dma_sync_sgtable_for_device(attach->dev, sgt, dir);
	}
	dma_resv_unlock(dmabuf->resv);
}

static int mvgal_dmabuf_cpu_access(struct dma_buf *dmabuf,
				   enum dma_data_direction dir, bool begin)
{
	struct mvgal_bo *bo = to_mvgal_bo(dmabuf->priv);
	int ret;

	/* The CPU goes through the home copy: make it current first. */
	if (begin) {
		ret = mvgal_cpu_prepare(bo, 0, bo->size,
					dir != DMA_FROM_DEVICE, 0);
		if (ret)
			return ret;
		mutex_unlock(&bo->lock);
	}
	mvgal_dmabuf_sync_attachments(dmabuf, dir, begin);
	return 0;
}

static int mvgal_dmabuf_begin_cpu_access(struct dma_buf *dmabuf,
					 enum dma_data_direction dir)
{
	return mvgal_dmabuf_cpu_access(dmabuf, dir, true);
}

static int mvgal_dmabuf_end_cpu_access(struct dma_buf *dmabuf,
				       enum dma_data_direction dir)
{
	return mvgal_dmabuf_cpu_access(dmabuf, dir, false);
}

/* Mappings through the dma-buf's file end with it. */
static void mvgal_dmabuf_release(struct dma_buf *dmabuf)
{
	struct mvgal_bo *bo = to_mvgal_bo(dmabuf->priv);

	/* Only this dma-buf's own mapping: another export may live on. */
	mutex_lock(&bo->lock);
	if (dmabuf->file && bo->dmabuf_mapping == dmabuf->file->f_mapping)
		bo->dmabuf_mapping = NULL;
	mutex_unlock(&bo->lock);
	drm_gem_dmabuf_release(dmabuf);
}

static const struct dma_buf_ops mvgal_dmabuf_ops = {
	.attach = mvgal_dmabuf_attach,
	.detach = mvgal_dmabuf_detach,
	.map_dma_buf = mvgal_dmabuf_map,
	.unmap_dma_buf = mvgal_dmabuf_unmap,
	.release = mvgal_dmabuf_release,
	.mmap = drm_gem_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
	.begin_cpu_access = mvgal_dmabuf_begin_cpu_access,
	.end_cpu_access = mvgal_dmabuf_end_cpu_access,
};

/* &drm_gem_object_funcs.export: only host buffers created to be shared. */
struct dma_buf *mvgal_bo_export(struct drm_gem_object *obj, int flags)
{
	struct mvgal_bo *bo = to_mvgal_bo(obj);
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);

	if (!(bo->flags & MVGAL_BO_DMA_BUF) ||
	    bo->sharing == MVGAL_SHARING_NONE || !READ_ONCE(mvgal_enable_dmabuf))
		return ERR_PTR(-EPERM);
	/* Refused at registration already; its pages are not held. */
	if (mvgal_userptr_mirrored(bo))
		return ERR_PTR(-EOPNOTSUPP);
	/* A device-only buffer is exported in place only for P2P; an
	 * import is exported by its own exporter, never through here.
	 */
	if (mvgal_bo_device_only(bo) && !(bo->flags & MVGAL_BO_P2P))
		return ERR_PTR(-EPERM);
	exp_info.ops = &mvgal_dmabuf_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

/*
 * &drm_gem_object_funcs.pin: an importer gets every page, now, holding
 * the current bytes: devices reach the home copy, so every chunk a GPU
 * placement owns comes home first.
 */
int mvgal_bo_pin(struct drm_gem_object *obj)
{
	struct mvgal_bo *bo = to_mvgal_bo(obj);
	int ret;

	ret = mvgal_cpu_prepare(bo, 0, bo->size, false, MVGAL_CPU_FAULT);
	if (ret)
		return ret;
	mutex_unlock(&bo->lock);
	return mvgal_bo_mapped(bo) ? 0 : mvgal_bo_populate(bo);
}

struct sg_table *mvgal_bo_get_sg_table(struct drm_gem_object *obj)
{
	struct mvgal_bo *bo = to_mvgal_bo(obj);
	struct sg_table *sgt;
	struct page **pages;
	int ret;

	/* A pool range has no pages mvgal may hand on (mvgal_dmabuf_map()). */
	if (bo->home)
		return ERR_PTR(-EOPNOTSUPP);
	ret = mvgal_bo_populate(bo);
	if (ret)
		return ERR_PTR(ret);
	mutex_lock(&bo->lock);
	pages = mvgal_bo_page_array(bo);
	mutex_unlock(&bo->lock);
	if (!pages)
		return ERR_PTR(-ENOMEM);
	sgt = drm_prime_pages_to_sg(obj->dev, pages, bo->npages);
	kvfree(pages);
	return sgt;
}

/*
 * The GEM object functions of a buffer. They sit here, with the dma-buf
 * ones they name, so that the free path (move/mvgal_gem.c) needs nothing
 * of this file.
 */
const struct drm_gem_object_funcs mvgal_bo_funcs = {
	.free = mvgal_bo_free,
	.mmap = mvgal_bo_mmap,
	.vm_ops = &mvgal_bo_vm_ops,
	.export = mvgal_bo_export,
	.pin = mvgal_bo_pin,
	.get_sg_table = mvgal_bo_get_sg_table,
};

/*
 * &drm_driver.gem_prime_import: mvgal's own export comes back as the same
 * object; a foreign dma-buf becomes a buffer of its size, attached with
 * mvgal's device and reached by the CPU through the exporter's vmap.
 */
struct drm_gem_object *mvgal_gem_prime_import(struct drm_device *dev,
					      struct dma_buf *dmabuf)
{
	struct dma_buf_attachment *attach;
	struct mvgal_bo *bo;
	int ret;

	if (dmabuf->ops == &mvgal_dmabuf_ops) {
		struct drm_gem_object *obj = dmabuf->priv;

		if (obj->dev == dev) {
			if (!(dmabuf->file->f_mode & FMODE_WRITE))
				return mvgal_ro_create(to_mvgal_bo(obj), dmabuf);
			drm_gem_object_get(obj);
			return obj;
		}
	}
	if (!READ_ONCE(mvgal_enable_dmabuf))
		return ERR_PTR(-EPERM);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	xa_init(&bo->pages);
	xa_init(&bo->leaves);
	attach = dma_buf_attach(dmabuf, dev->dev);
	if (IS_ERR(attach)) {
		ret = PTR_ERR(attach);
		goto err_free;
	}
	ret = dma_buf_vmap_unlocked(dmabuf, &bo->map);
	if (ret) {
		/* A buffer the CPU cannot reach could never be copied. */
		ret = -EOPNOTSUPP;
		goto err_detach;
	}
	bo->npages = dmabuf->size >> PAGE_SHIFT;
	bo->home_loc = MVGAL_LOC_HOST;
	mvgal_bo_coherence_init(bo);
	drm_gem_private_object_init(dev, &bo->base, dmabuf->size);
	bo->base.funcs = &mvgal_bo_funcs;
	bo->base.import_attach = attach;
	bo->base.resv = dmabuf->resv;
	mvgal_bo_lock_init(bo);
	INIT_LIST_HEAD(&bo->link);
	bo->size = dmabuf->size;
	bo->npages = dmabuf->size >> PAGE_SHIFT;
	bo->flags = MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID;
	bo->gpu = MVGAL_GPU_ANY;
	bo->nid = NUMA_NO_NODE;
	bo->sharing = MVGAL_SHARING_NONE;
	/* The dma-buf file's access mode is the importer's. */
	bo->read_only = !(dmabuf->file->f_mode & FMODE_WRITE);
	get_dma_buf(dmabuf);
	mvgal_bo_track(bo);
	return &bo->base;

err_detach:
	dma_buf_detach(dmabuf, attach);
err_free:
	kfree(bo);
	return ERR_PTR(ret);
}
