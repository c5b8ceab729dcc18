// SPDX-License-Identifier: GPL-2.0
/*
 * Placement exports: a dma-buf of one buffer's copy in one GPU's pool,
 * for the process that holds the buffer to hand to its GPU API. Byte 0 is
 * the buffer's byte 0, the size is the buffer's (page-rounded), and
 * nothing else of the pool is reachable through it: its pages are the
 * range's own, taken from the pool's sg table once (as for a P2P export
 * of a device-only buffer), mapped for each importing device, inserted
 * one by one into CPU mappings.
 *
 * While an export lives its placement stays where it is: eviction passes
 * it by, PLACE_FREE and the GPU's detach are -EBUSY. Its bytes are the
 * GPU's copy, current for the chunks that GPU holds: a session on the GPU
 * makes the chunks it names current there, END publishes what was written.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_prime.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_bo.h"
#include "move/mvgal_export.h"
#include "move/mvgal_place.h"
#include "move/mvgal_prime.h"

static struct sg_table *mvgal_export_map(struct dma_buf_attachment *attach,
					 enum dma_data_direction dir)
{
	struct mvgal_export *e = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	sgt = drm_prime_pages_to_sg(e->bo->base.dev, e->pages, e->npages);
	if (IS_ERR(sgt))
		return sgt;
	ret = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret) {
		sg_free_table(sgt);
		kfree(sgt);
		return ERR_PTR(ret);
	}
	/* Kept for begin/end_cpu_access, which sync every device's view. */
	attach->priv = sgt;
	return sgt;
}

static void mvgal_export_unmap(struct dma_buf_attachment *attach,
			       struct sg_table *sgt,
			       enum dma_data_direction dir)
{
	attach->priv = NULL;
	dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
}

static int mvgal_export_begin_cpu_access(struct dma_buf *dmabuf,
					 enum dma_data_direction dir)
{
	mvgal_dmabuf_sync_attachments(dmabuf, dir, true);
	return 0;
}

static int mvgal_export_end_cpu_access(struct dma_buf *dmabuf,
				       enum dma_data_direction dir)
{
	mvgal_dmabuf_sync_attachments(dmabuf, dir, false);
	return 0;
}

static vm_fault_t mvgal_export_fault(struct vm_fault *vmf)
{
	struct mvgal_export *e = vmf->vma->vm_private_data;

	if (vmf->pgoff >= e->npages)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vmf->vma, vmf->address,
			      page_to_pfn(e->pages[vmf->pgoff]));
}

static const struct vm_operations_struct mvgal_export_vm_ops = {
	.fault = mvgal_export_fault,
};

/*
 * The dma-buf core has checked the range against the size already (and
 * refused a writable mapping of a read-only fd). A private mapping could
 * copy pages on write, and the pool's pages are never to be copied into
 * a process: only shared mappings are made, read-only ones too.
 */
static int mvgal_export_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &mvgal_export_vm_ops;
	vma->vm_private_data = dmabuf->priv;
	return 0;
}

static int mvgal_export_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct mvgal_export *e = dmabuf->priv;

	*map = e->gpu->pool.map;
	iosys_map_incr(map, e->start);
	return 0;
}

static void mvgal_export_release(struct dma_buf *dmabuf)
{
	struct mvgal_export *e = dmabuf->priv;

	atomic_dec(&e->bo->pools.exported[e->gpu->index]);
	drm_gem_object_put(&e->bo->base);
	kvfree(e->pages);
	kfree(e);
}

/*
 * No vunmap: the pool's mapping stays. The core keeps each attachment's
 * sg table until it detaches (importers map once and keep it).
 */
static const struct dma_buf_ops mvgal_export_ops = {
	.cache_sgt_mapping = true,
	.map_dma_buf = mvgal_export_map,
	.unmap_dma_buf = mvgal_export_unmap,
	.begin_cpu_access = mvgal_export_begin_cpu_access,
	.end_cpu_access = mvgal_export_end_cpu_access,
	.mmap = mvgal_export_mmap,
	.vmap = mvgal_export_vmap,
	.release = mvgal_export_release,
};

/*
 * The pages of pool range [start, start + n pages) of @gpu, from the
 * kernel mapping mvgal holds of the pool (a vmap of the exporter's pages,
 * which the pool's attachment and mapping keep in place). A pool that is
 * I/O memory, or mapped some other way, cannot be exported by range.
 */
static struct page **mvgal_export_pages(struct mvgal_gpu *gpu, u64 start,
					unsigned long n)
{
	struct iosys_map *map = &gpu->pool.map;
	struct page **pages;
	unsigned long i;

	if (map->is_iomem || !is_vmalloc_addr(map->vaddr))
		return ERR_PTR(-EOPNOTSUPP);
	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pages)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		pages[i] = vmalloc_to_page(map->vaddr + start + i * PAGE_SIZE);
		if (!pages[i]) {
			kvfree(pages);
			return ERR_PTR(-EOPNOTSUPP);
		}
	}
	return pages;
}

/* Who may export @bo's copy at @gpu: see &struct drm_mvgal_place_fd. */
int mvgal_export_check(struct mvgal_bo *bo, u32 gpu)
{
	if (!READ_ONCE(mvgal_enable_dmabuf) || !(bo->flags & MVGAL_BO_GPU_VALID))
		return -EPERM;
	if (mvgal_bo_device_only(bo) && bo->gpu != gpu)
		return -EINVAL;
	return mvgal_bo_gpu_may_use(bo, gpu);
}

/*
 * Pins @bo's placement at @gpu (made now if it has none) for @e and
 * takes the range's pages. Caller holds gpu_lock and bo->lock.
 */
int mvgal_export_pin(struct mvgal_export *e, struct mvgal_gpu *gpu)
{
	struct mvgal_bo *bo = e->bo;
	bool made = !bo->home && !bo->pools.place[gpu->index];
	int ret;

	ret = mvgal_place_get(bo, gpu);
	if (ret)
		return ret;
	e->gpu = gpu;
	e->start = bo->home ? bo->alloc.node.start :
		   bo->pools.place[gpu->index]->alloc.node.start;
	e->npages = bo->npages;
	e->pages = mvgal_export_pages(gpu, e->start, e->npages);
	if (IS_ERR(e->pages)) {
		ret = PTR_ERR(e->pages);
		e->pages = NULL;
		if (made)
			mvgal_place_drain(bo, gpu->index, true);
		return ret;
	}
	atomic_inc(&bo->pools.exported[gpu->index]);
	return 0;
}

/* The dma-buf of a pinned export; undoes the pin when it cannot be had. */
struct dma_buf *mvgal_export_dmabuf(struct mvgal_export *e, u32 flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dmabuf;

	exp_info.ops = &mvgal_export_ops;
	exp_info.size = e->npages << PAGE_SHIFT;
	exp_info.flags = flags & MVGAL_PLACE_FD_RDWR ? O_RDWR : O_RDONLY;
	exp_info.priv = e;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf))
		atomic_dec(&e->bo->pools.exported[e->gpu->index]);
	return dmabuf;
}
