// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal_vram: a GPU with device memory, for mvgal's test bed only.
 *
 * It binds QEMU's ivshmem-plain device, whose BAR 2 (a 64-bit prefetchable
 * BAR backed by host RAM) plays the part of a discrete GPU's VRAM: memory
 * with no struct pages, reached by the CPU through a write-combined
 * __iomem mapping and by other devices through bus addresses. It is a DRM
 * render driver with dumb buffers (as the boot step makes pools) and a
 * dma-buf exporter and importer that follow, one at a time, the rules of
 * amdgpu, i915, xe, nouveau or NVIDIA's open modules: the PCI device's
 * "mode" attribute picks them for the buffers made after it is written.
 * It has no engine: only CPUs and importers touch its memory.
 */
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/vmalloc.h>
#include <drm/drm_cache.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>

#include "mvgal_vram.h"
#include "mvgal_vram_drm.h"

#define MVGAL_VRAM_BAR	2

static const char * const mvgal_vram_modes[MVGAL_VRAM_NR_MODES] = {
	[MVGAL_VRAM_AMDGPU] = "amdgpu",
	[MVGAL_VRAM_I915] = "i915",
	[MVGAL_VRAM_XE] = "xe",
	[MVGAL_VRAM_NOUVEAU] = "nouveau",
	[MVGAL_VRAM_NVIDIA] = "nvidia",
};

static int mvgal_vram_add_handle(struct drm_file *file,
				 struct mvgal_vram_bo *bo, u32 *handle)
{
	int ret = drm_gem_handle_create(file, &bo->base, handle);

	drm_gem_object_put(&bo->base);
	return ret;
}

/*
 * Dumb buffers are where the real drivers put them: VRAM; xe's and i915's
 * cannot leave it (xe_bo_dumb_create() and i915_gem_dumb_create() give a
 * single VRAM/LMEM placement), amdgpu's and nouveau's can.
 */
static int mvgal_vram_dumb_create(struct drm_file *file,
				  struct drm_device *dev,
				  struct drm_mode_create_dumb *args)
{
	struct mvgal_vram_dev *vdev = to_mvgal_vram_dev(dev);
	enum mvgal_vram_mode mode = READ_ONCE(vdev->mode);
	struct mvgal_vram_bo *bo;
	u32 flags = 0;

	args->pitch = args->width * DIV_ROUND_UP(args->bpp, 8);
	args->size = PAGE_ALIGN((u64)args->pitch * args->height);
	if (mode == MVGAL_VRAM_XE || mode == MVGAL_VRAM_I915)
		flags |= MVGAL_VRAM_BO_VRAM_ONLY;
	bo = mvgal_vram_bo_create(vdev, args->size, flags);
	if (IS_ERR(bo))
		return PTR_ERR(bo);
	return mvgal_vram_add_handle(file, bo, &args->handle);
}

static int mvgal_vram_ioctl_bo_create(struct drm_device *dev, void *data,
				      struct drm_file *file)
{
	struct drm_mvgal_vram_bo_create *args = data;
	struct mvgal_vram_bo *bo;

	if (args->flags & ~MVGAL_VRAM_BO_FLAGS || !args->size ||
	    args->size > U32_MAX * (u64)PAGE_SIZE ||
	    (args->flags & MVGAL_VRAM_BO_FLAGS) == MVGAL_VRAM_BO_FLAGS)
		return -EINVAL;
	bo = mvgal_vram_bo_create(to_mvgal_vram_dev(dev), args->size,
				  args->flags);
	if (IS_ERR(bo))
		return PTR_ERR(bo);
	return mvgal_vram_add_handle(file, bo, &args->handle);
}

static int mvgal_vram_bo_info_locked(struct mvgal_vram_bo *bo,
				     struct drm_mvgal_vram_bo_info *args)
{
	int ret;

	args->domain = bo->domain;
	args->size = bo->base.size;
	args->pin_count = bo->pin_count;
	args->moves = bo->moves;
	if (bo->domain == MVGAL_VRAM_IN_VRAM)
		args->offset = bo->node.start;
	if (bo->domain != MVGAL_VRAM_IN_IMPORT)
		return 0;
	ret = mvgal_vram_import_map(bo);
	if (ret)
		return ret;
	args->flags |= MVGAL_VRAM_INFO_MAPPED;
	if (bo->attach->peer2peer)
		args->flags |= MVGAL_VRAM_INFO_PEER2PEER;
	args->dma_addr = sg_dma_address(bo->sgt->sgl);
	return 0;
}

static int mvgal_vram_ioctl_bo_info(struct drm_device *dev, void *data,
				    struct drm_file *file)
{
	struct drm_mvgal_vram_bo_info *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->pad || args->flags)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = dma_resv_lock_interruptible(obj->resv, NULL);
	if (!ret) {
		ret = mvgal_vram_bo_info_locked(to_mvgal_vram_bo(obj), args);
		dma_resv_unlock(obj->resv);
	}
	drm_gem_object_put(obj);
	return ret;
}

/*
 * The baseline of mvgal's copies to and from a stand-in's pool
 * (tests/bench/mvgal_bench.c, section "vram"): what the kernel's own
 * primitives take for the same bytes on the same BAR, with no chunking,
 * no job, no fence. memcpy_toio() and memcpy_fromio() are what a copy
 * through an iosys_map of I/O memory comes down to (iosys_map_memcpy_to()
 * and iosys_map_memcpy_from()); drm_memcpy_from_wc() is DRM's fast read
 * of write-combined memory (non-temporal SSE4.1 loads where the CPU has
 * them, memcpy_fromio() otherwise), what a driver reading its VRAM back
 * uses (i915, xe). The kernel side is vmalloc memory, as mvgal's view of
 * a buffer's host pages is one kernel mapping.
 */
static u64 mvgal_vram_copy(u32 op, void __iomem *io, void *buf, size_t n)
{
	struct iosys_map dst, src;
	u64 t0 = ktime_get_ns();

	switch (op) {
	case MVGAL_VRAM_COPY_TOIO:
		memcpy_toio(io, buf, n);
		wmb();	/* the write-combining buffers drained: the bytes are there */
		break;
	case MVGAL_VRAM_COPY_FROMIO:
		memcpy_fromio(buf, io, n);
		break;
	default:
		iosys_map_set_vaddr(&dst, buf);
		iosys_map_set_vaddr_iomem(&src, io);
		drm_memcpy_from_wc(&dst, &src, n);
		break;
	}
	return ktime_get_ns() - t0;
}

static int mvgal_vram_ioctl_copy_time(struct drm_device *dev, void *data,
				      struct drm_file *file)
{
	struct mvgal_vram_dev *vdev = to_mvgal_vram_dev(dev);
	struct drm_mvgal_vram_copy_time *args = data;
	struct drm_gem_object *obj;
	struct mvgal_vram_bo *bo;
	void *buf;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (args->op >= MVGAL_VRAM_COPY_OPS || !args->size)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = -EINVAL;
	if (args->size > obj->size)
		goto put;
	ret = -ENOMEM;
	buf = vmalloc(args->size);
	if (!buf)
		goto put;
	/* Its pages are made before the timing, as a buffer's host pages are. */
	memset(buf, 0x5a, args->size);
	ret = dma_resv_lock_interruptible(obj->resv, NULL);
	if (ret)
		goto free;
	/* Under its reservation the BO cannot be evicted meanwhile. */
	bo = to_mvgal_vram_bo(obj);
	if (bo->domain == MVGAL_VRAM_IN_VRAM)
		args->ns = mvgal_vram_copy(args->op, vdev->bar + bo->node.start,
					   buf, args->size);
	else
		ret = -EXDEV;
	dma_resv_unlock(obj->resv);
free:
	vfree(buf);
put:
	drm_gem_object_put(obj);
	return ret;
}

static const struct drm_ioctl_desc mvgal_vram_ioctls[] = {
	DRM_IOCTL_DEF_DRV(MVGAL_VRAM_BO_CREATE, mvgal_vram_ioctl_bo_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_VRAM_BO_INFO, mvgal_vram_ioctl_bo_info,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_VRAM_COPY_TIME, mvgal_vram_ioctl_copy_time,
			  DRM_ROOT_ONLY),
};

DEFINE_DRM_GEM_FOPS(mvgal_vram_fops);

static const struct drm_driver mvgal_vram_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER,
	.fops = &mvgal_vram_fops,
	.ioctls = mvgal_vram_ioctls,
	.num_ioctls = ARRAY_SIZE(mvgal_vram_ioctls),
	.dumb_create = mvgal_vram_dumb_create,
	.gem_prime_import = mvgal_vram_prime_import,
	.name = "mvgal_vram",
	.desc = "mvgal test bed: a GPU with device memory",
	.date = "20261205",
	.major = 1,
};

static ssize_t mode_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct mvgal_vram_dev *vdev = pci_get_drvdata(to_pci_dev(dev));

	return sysfs_emit(buf, "%s\n", mvgal_vram_modes[READ_ONCE(vdev->mode)]);
}

static ssize_t mode_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct mvgal_vram_dev *vdev = pci_get_drvdata(to_pci_dev(dev));
	int mode = sysfs_match_string(mvgal_vram_modes, buf);

	if (mode < 0)
		return mode;
	WRITE_ONCE(vdev->mode, mode);
	return count;
}
static DEVICE_ATTR_RW(mode);

/* Writing 1 moves every unpinned buffer: evict, or validate back. */
static ssize_t mvgal_vram_move_store(struct device *dev, const char *buf,
				     size_t count, bool to_vram)
{
	struct mvgal_vram_dev *vdev = pci_get_drvdata(to_pci_dev(dev));
	bool go;
	int ret;

	ret = kstrtobool(buf, &go);
	if (ret || !go)
		return ret ?: -EINVAL;
	ret = to_vram ? mvgal_vram_validate(vdev) : mvgal_vram_evict(vdev);
	return ret < 0 ? ret : count;
}

/* To system memory, as TTM's eviction does. */
static ssize_t evict_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	return mvgal_vram_move_store(dev, buf, count, false);
}
static DEVICE_ATTR_WO(evict);

/* Back to VRAM, as a GPU submission validates its buffers. */
static ssize_t validate_store(struct device *dev,
			      struct device_attribute *attr,
			      const char *buf, size_t count)
{
	return mvgal_vram_move_store(dev, buf, count, true);
}
static DEVICE_ATTR_WO(validate);

static struct attribute *mvgal_vram_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_evict.attr,
	&dev_attr_validate.attr,
	NULL,
};
ATTRIBUTE_GROUPS(mvgal_vram);

static void mvgal_vram_release(struct drm_device *drm, void *arg)
{
	struct mvgal_vram_dev *vdev = to_mvgal_vram_dev(drm);

	drm_mm_takedown(&vdev->mm);
	mutex_destroy(&vdev->bos_lock);
	mutex_destroy(&vdev->mm_lock);
	/*
	 * The kernel mapping goes with the last reference to the device, so
	 * that an importer's vmap stays valid memory after an unbind.
	 */
	iounmap(vdev->bar);
}

static int mvgal_vram_probe(struct pci_dev *pdev,
			    const struct pci_device_id *id)
{
	struct mvgal_vram_dev *vdev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	if (!(pci_resource_flags(pdev, MVGAL_VRAM_BAR) & IORESOURCE_MEM))
		return -ENODEV;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	ret = pcim_request_region(pdev, MVGAL_VRAM_BAR, "mvgal_vram");
	if (ret)
		return ret;
	vdev = devm_drm_dev_alloc(&pdev->dev, &mvgal_vram_driver,
				  struct mvgal_vram_dev, drm);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	vdev->pdev = pdev;
	vdev->bar_start = pci_resource_start(pdev, MVGAL_VRAM_BAR);
	vdev->bar_size = pci_resource_len(pdev, MVGAL_VRAM_BAR);
	vdev->bar = ioremap_wc(vdev->bar_start, vdev->bar_size);
	if (!vdev->bar)
		return -ENOMEM;
	mutex_init(&vdev->mm_lock);
	mutex_init(&vdev->bos_lock);
	INIT_LIST_HEAD(&vdev->bos);
	drm_mm_init(&vdev->mm, 0, vdev->bar_size);
	ret = drmm_add_action_or_reset(&vdev->drm, mvgal_vram_release, NULL);
	if (ret)
		return ret;
	pci_set_drvdata(pdev, vdev);
	return drm_dev_register(&vdev->drm, 0);
}

static void mvgal_vram_remove(struct pci_dev *pdev)
{
	struct mvgal_vram_dev *vdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&vdev->drm);
	/* No user mapping of the BAR survives the device (drm_dev_unplug()
	 * leaves that to the driver, as amdgpu_device_unmap_mmio() does).
	 */
	unmap_mapping_range(vdev->drm.anon_inode->i_mapping, 0, 0, 1);
}

static const struct pci_device_id mvgal_vram_ids[] = {
	{ PCI_DEVICE(0x1af4, 0x1110) },	/* QEMU ivshmem-plain */
	{ }
};
MODULE_DEVICE_TABLE(pci, mvgal_vram_ids);

static struct pci_driver mvgal_vram_pci_driver = {
	.name = "mvgal_vram",
	.id_table = mvgal_vram_ids,
	.probe = mvgal_vram_probe,
	.remove = mvgal_vram_remove,
	.dev_groups = mvgal_vram_groups,
};
module_pci_driver(mvgal_vram_pci_driver);

MODULE_DESCRIPTION("mvgal test bed: a GPU whose memory is a PCI BAR");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
