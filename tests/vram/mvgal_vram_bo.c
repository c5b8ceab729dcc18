// SPDX-License-Identifier: GPL-2.0
/*
 * The stand-in's buffers: a range of the BAR or an array of system pages,
 * moved between the two the way TTM moves a driver's buffer (copy, then
 * tell every CPU mapping and dynamic importer that it moved).
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <drm/drm_drv.h>
#include <drm/drm_prime.h>
#include <drm/drm_vma_manager.h>

#include "mvgal_vram.h"
#include "mvgal_vram_drm.h"

static struct mvgal_vram_dev *mvgal_vram_bo_dev(struct mvgal_vram_bo *bo)
{
	return to_mvgal_vram_dev(bo->base.dev);
}

static int mvgal_vram_node_alloc(struct mvgal_vram_bo *bo)
{
	struct mvgal_vram_dev *vdev = mvgal_vram_bo_dev(bo);
	int ret;

	mutex_lock(&vdev->mm_lock);
	ret = drm_mm_insert_node_generic(&vdev->mm, &bo->node, bo->base.size,
					 PAGE_SIZE, 0, DRM_MM_INSERT_BEST);
	mutex_unlock(&vdev->mm_lock);
	return ret;
}

static void mvgal_vram_node_free(struct mvgal_vram_bo *bo)
{
	struct mvgal_vram_dev *vdev = mvgal_vram_bo_dev(bo);

	mutex_lock(&vdev->mm_lock);
	drm_mm_remove_node(&bo->node);
	mutex_unlock(&vdev->mm_lock);
}

static void mvgal_vram_pages_free(struct page **pages, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
	kvfree(pages);
}

static struct page **mvgal_vram_pages_alloc(size_t n)
{
	struct page **pages;
	size_t i;

	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[i]) {
			mvgal_vram_pages_free(pages, n);
			return NULL;
		}
	}
	return pages;
}

/* Copy between the BAR and the pages; false once the device is gone. */
static bool mvgal_vram_copy(struct mvgal_vram_bo *bo, struct page **pages,
			    bool to_vram)
{
	struct mvgal_vram_dev *vdev = mvgal_vram_bo_dev(bo);
	void __iomem *io = vdev->bar + bo->node.start;
	size_t i, n = bo->base.size >> PAGE_SHIFT;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return false;
	for (i = 0; i < n; i++) {
		void *va = kmap_local_page(pages[i]);

		if (to_vram)
			memcpy_toio(io + i * PAGE_SIZE, va, PAGE_SIZE);
		else
			memcpy_fromio(va, io + i * PAGE_SIZE, PAGE_SIZE);
		kunmap_local(va);
	}
	drm_dev_exit(idx);
	return true;
}

static int mvgal_vram_to_system(struct mvgal_vram_bo *bo)
{
	size_t n = bo->base.size >> PAGE_SHIFT;
	struct page **pages;

	pages = mvgal_vram_pages_alloc(n);
	if (!pages)
		return -ENOMEM;
	if (!mvgal_vram_copy(bo, pages, false)) {
		mvgal_vram_pages_free(pages, n);
		return -ENODEV;
	}
	mvgal_vram_node_free(bo);
	bo->pages = pages;
	bo->domain = MVGAL_VRAM_IN_SYSTEM;
	return 0;
}

static int mvgal_vram_to_vram(struct mvgal_vram_bo *bo)
{
	int ret;

	/* A vmap of the pages must not outlive them: stay (GTT is allowed). */
	if (bo->vmap_count)
		return -ENOSPC;
	ret = mvgal_vram_node_alloc(bo);
	if (ret)
		return ret;
	if (!mvgal_vram_copy(bo, bo->pages, true)) {
		mvgal_vram_node_free(bo);
		return -ENODEV;
	}
	mvgal_vram_pages_free(bo->pages, bo->base.size >> PAGE_SHIFT);
	bo->pages = NULL;
	bo->domain = MVGAL_VRAM_IN_VRAM;
	return 0;
}

/*
 * Move an unpinned buffer, as ttm_bo_validate() does: CPU mappings are
 * zapped (ttm_bo_unmap_virtual(); they fault in the new place) and dynamic
 * importers told before a byte is copied (amdgpu_bo_move() calls
 * amdgpu_bo_move_notify(), which calls dma_buf_move_notify(), first), so
 * that nothing writes the old place during the copy. A failed move leaves
 * the buffer where it was.
 */
int mvgal_vram_bo_move(struct mvgal_vram_bo *bo, enum mvgal_vram_domain to)
{
	struct drm_gem_object *obj = &bo->base;
	int ret;

	dma_resv_assert_held(obj->resv);
	if (bo->domain == to)
		return 0;
	if (bo->domain == MVGAL_VRAM_IN_IMPORT || bo->pin_count)
		return -EBUSY;
	if (to == MVGAL_VRAM_IN_SYSTEM && bo->vram_only)
		return -EOPNOTSUPP;
	drm_vma_node_unmap(&obj->vma_node, obj->dev->anon_inode->i_mapping);
	if (obj->dma_buf)
		dma_buf_move_notify(obj->dma_buf);
	if (to == MVGAL_VRAM_IN_SYSTEM)
		ret = mvgal_vram_to_system(bo);
	else
		ret = mvgal_vram_to_vram(bo);
	if (ret)
		return ret;
	bo->moves++;
	return 0;
}

/*
 * Pin in @to, as amdgpu_bo_pin_restricted(): a pinned buffer cannot be
 * pinned in another domain (-EINVAL); an unpinned one moves first.
 */
int mvgal_vram_bo_pin(struct mvgal_vram_bo *bo, enum mvgal_vram_domain to)
{
	int ret;

	dma_resv_assert_held(bo->base.resv);
	if (bo->pin_count && bo->domain != to)
		return -EINVAL;
	ret = mvgal_vram_bo_move(bo, to);
	if (ret)
		return ret;
	bo->pin_count++;
	return 0;
}

void mvgal_vram_bo_unpin(struct mvgal_vram_bo *bo)
{
	dma_resv_assert_held(bo->base.resv);
	if (!WARN_ON(!bo->pin_count))
		bo->pin_count--;
}

static void mvgal_vram_bo_free(struct drm_gem_object *obj)
{
	struct mvgal_vram_bo *bo = to_mvgal_vram_bo(obj);

	WARN_ON(bo->vmap_count);
	if (!list_empty(&bo->link)) {
		mutex_lock(&to_mvgal_vram_dev(obj->dev)->bos_lock);
		list_del(&bo->link);
		mutex_unlock(&to_mvgal_vram_dev(obj->dev)->bos_lock);
	}
	if (bo->domain == MVGAL_VRAM_IN_IMPORT && obj->import_attach)
		drm_prime_gem_destroy(obj, bo->sgt);
	else if (bo->domain == MVGAL_VRAM_IN_VRAM)
		mvgal_vram_node_free(bo);
	else if (bo->pages)
		mvgal_vram_pages_free(bo->pages, obj->size >> PAGE_SHIFT);
	drm_gem_object_release(obj);
	kfree(bo);
}

/*
 * A CPU fault maps the page where the buffer is now: the BAR write-combined
 * (ttm_io_prot() for VRAM), or the system page.
 */
static vm_fault_t mvgal_vram_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct mvgal_vram_bo *bo = to_mvgal_vram_bo(obj);
	struct mvgal_vram_dev *vdev = to_mvgal_vram_dev(obj->dev);
	unsigned long pg = vmf->pgoff - drm_vma_node_start(&obj->vma_node);
	vm_fault_t ret = VM_FAULT_SIGBUS;
	unsigned long pfn;
	int idx;

	if (pg >= obj->size >> PAGE_SHIFT || !drm_dev_enter(obj->dev, &idx))
		return VM_FAULT_SIGBUS;
	dma_resv_lock(obj->resv, NULL);
	if (bo->domain == MVGAL_VRAM_IN_VRAM) {
		pfn = PHYS_PFN(vdev->bar_start + bo->node.start) + pg;
		ret = vmf_insert_pfn_prot(vma, vmf->address, pfn,
					  pgprot_writecombine(vma->vm_page_prot));
	} else if (bo->domain == MVGAL_VRAM_IN_SYSTEM) {
		ret = vmf_insert_pfn(vma, vmf->address,
				     page_to_pfn(bo->pages[pg]));
	}
	dma_resv_unlock(obj->resv);
	drm_dev_exit(idx);
	return ret;
}

static const struct vm_operations_struct mvgal_vram_vm_ops = {
	.fault = mvgal_vram_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static int mvgal_vram_bo_mmap(struct drm_gem_object *obj,
			      struct vm_area_struct *vma)
{
	struct mvgal_vram_bo *bo = to_mvgal_vram_bo(obj);

	/* An import's memory is its exporter's to map (dma_buf_mmap()). */
	if (bo->domain == MVGAL_VRAM_IN_IMPORT || is_cow_mapping(vma->vm_flags))
		return -EINVAL;
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

/*
 * A vmap maps the buffer where it is now. As in 6.12, amdgpu's and
 * nouveau's do not pin it (drm_gem_ttm_vmap() -> ttm_bo_vmap()): an
 * eviction moves the buffer under the mapping, and only importers told by
 * move_notify know. i915's pins the pages (i915_gem_object_pin_map()),
 * and NVIDIA's video memory does not move. xe's buffers have no vmap
 * (xe_gem_object_funcs has none: drm_gem_vmap() is -EOPNOTSUPP).
 * VRAM is an __iomem address (ttm_bo_vmap()'s ioremap of the BAR).
 */
static int mvgal_vram_bo_vmap(struct drm_gem_object *obj,
			      struct iosys_map *map)
{
	struct mvgal_vram_bo *bo = to_mvgal_vram_bo(obj);
	struct mvgal_vram_dev *vdev = to_mvgal_vram_dev(obj->dev);
	bool pin = bo->mode == MVGAL_VRAM_I915 || bo->mode == MVGAL_VRAM_NVIDIA;
	void *va;
	int ret;

	if (bo->mode == MVGAL_VRAM_XE || bo->domain == MVGAL_VRAM_IN_IMPORT)
		return -EOPNOTSUPP;
	if (bo->vmap_count) {
		bo->vmap_count++;
		*map = bo->vmap;
		return 0;
	}
	if (pin) {
		ret = mvgal_vram_bo_pin(bo, bo->domain);
		if (ret)
			return ret;
	}
	if (bo->domain == MVGAL_VRAM_IN_VRAM) {
		iosys_map_set_vaddr_iomem(&bo->vmap, vdev->bar + bo->node.start);
	} else {
		va = vmap(bo->pages, obj->size >> PAGE_SHIFT, VM_MAP, PAGE_KERNEL);
		if (!va) {
			if (pin)
				mvgal_vram_bo_unpin(bo);
			return -ENOMEM;
		}
		iosys_map_set_vaddr(&bo->vmap, va);
	}
	bo->vmap_pinned = pin;
	bo->vmap_count = 1;
	*map = bo->vmap;
	return 0;
}

static void mvgal_vram_bo_vunmap(struct drm_gem_object *obj,
				 struct iosys_map *map)
{
	struct mvgal_vram_bo *bo = to_mvgal_vram_bo(obj);

	if (WARN_ON(!bo->vmap_count) || --bo->vmap_count)
		return;
	if (!bo->vmap.is_iomem)
		vunmap(bo->vmap.vaddr);
	iosys_map_clear(&bo->vmap);
	if (bo->vmap_pinned)
		mvgal_vram_bo_unpin(bo);
}

const struct drm_gem_object_funcs mvgal_vram_bo_funcs = {
	.free = mvgal_vram_bo_free,
	.export = mvgal_vram_prime_export,
	.vmap = mvgal_vram_bo_vmap,
	.vunmap = mvgal_vram_bo_vunmap,
	.mmap = mvgal_vram_bo_mmap,
	.vm_ops = &mvgal_vram_vm_ops,
};

/*
 * A new buffer, cleared (amdgpu's dumb buffers are AMDGPU_GEM_CREATE_VRAM_CLEARED),
 * in VRAM unless asked otherwise; when VRAM is full a buffer that may move
 * starts in system memory, as a TTM placement of VRAM with GTT as the
 * fallback would (the stand-in evicts nothing).
 */
struct mvgal_vram_bo *mvgal_vram_bo_create(struct mvgal_vram_dev *vdev,
					   size_t size, u32 flags)
{
	struct mvgal_vram_bo *bo;
	int ret, idx;

	size = PAGE_ALIGN(size);
	if (!size)
		return ERR_PTR(-EINVAL);
	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.funcs = &mvgal_vram_bo_funcs;
	INIT_LIST_HEAD(&bo->link);
	drm_gem_private_object_init(&vdev->drm, &bo->base, size);
	bo->mode = READ_ONCE(vdev->mode);
	bo->vram_only = flags & MVGAL_VRAM_BO_VRAM_ONLY;
	ret = drm_gem_create_mmap_offset(&bo->base);
	if (ret)
		goto err;
	ret = -ENOSPC;
	if (!(flags & MVGAL_VRAM_BO_SYSTEM))
		ret = mvgal_vram_node_alloc(bo);
	if (!ret) {
		bo->domain = MVGAL_VRAM_IN_VRAM;
		if (!drm_dev_enter(&vdev->drm, &idx)) {
			ret = -ENODEV;
			goto err;
		}
		memset_io(vdev->bar + bo->node.start, 0, size);
		drm_dev_exit(idx);
	} else if (ret == -ENOSPC && !bo->vram_only) {
		bo->pages = mvgal_vram_pages_alloc(size >> PAGE_SHIFT);
		ret = bo->pages ? 0 : -ENOMEM;
		bo->domain = MVGAL_VRAM_IN_SYSTEM;
	}
	if (ret)
		goto err;
	mutex_lock(&vdev->bos_lock);
	list_add_tail(&bo->link, &vdev->bos);
	mutex_unlock(&vdev->bos_lock);
	return bo;

err:
	drm_gem_object_put(&bo->base);
	return ERR_PTR(ret);
}

/*
 * Move every unpinned buffer out of VRAM, as TTM's eviction does under
 * memory pressure or at suspend (amdgpu_bo_evict_vram() ->
 * ttm_resource_manager_evict_all()). Pinned buffers stay.
 *
 * Return: how many buffers moved, or a negative errno.
 */
static int mvgal_vram_move_all(struct mvgal_vram_dev *vdev,
			       enum mvgal_vram_domain to);

int mvgal_vram_evict(struct mvgal_vram_dev *vdev)
{
	return mvgal_vram_move_all(vdev, MVGAL_VRAM_IN_SYSTEM);
}

/*
 * Put every unpinned buffer that may live in VRAM back there, as the GPU
 * using them does (amdgpu_cs_bo_validate() validates each buffer of a
 * submission into its preferred domain).
 */
int mvgal_vram_validate(struct mvgal_vram_dev *vdev)
{
	return mvgal_vram_move_all(vdev, MVGAL_VRAM_IN_VRAM);
}

static int mvgal_vram_move_all(struct mvgal_vram_dev *vdev,
			       enum mvgal_vram_domain to)
{
	struct mvgal_vram_bo *bo, **list;
	unsigned int i, n = 0, cap = 0;
	int moved = 0;

	mutex_lock(&vdev->bos_lock);
	list_for_each_entry(bo, &vdev->bos, link)
		cap++;
	list = kvcalloc(cap ?: 1, sizeof(*list), GFP_KERNEL);
	if (!list) {
		mutex_unlock(&vdev->bos_lock);
		return -ENOMEM;
	}
	list_for_each_entry(bo, &vdev->bos, link)
		if (kref_get_unless_zero(&bo->base.refcount))
			list[n++] = bo;
	mutex_unlock(&vdev->bos_lock);

	for (i = 0; i < n; i++) {
		bo = list[i];
		dma_resv_lock(bo->base.resv, NULL);
		if (bo->domain != to && !bo->pin_count &&
		    bo->domain != MVGAL_VRAM_IN_IMPORT &&
		    (to == MVGAL_VRAM_IN_VRAM || !bo->vram_only) &&
		    !mvgal_vram_bo_move(bo, to))
			moved++;
		dma_resv_unlock(bo->base.resv);
		drm_gem_object_put(&bo->base);
	}
	kvfree(list);
	return moved;
}
