// SPDX-License-Identifier: GPL-2.0
/*
 * Placement exports: a dma-buf of one buffer's copy in one GPU's pool,
 * for the process that holds the buffer to hand to its GPU API. Byte 0 is
 * the buffer's byte 0, the size is the buffer's (page-rounded), and
 * nothing else of the pool is reachable through it: its pages are the
 * range's own, taken from mvgal's mapping of the pool once for all the
 * exports of the placement (struct mvgal_export_pages), mapped for each
 * importing device, inserted one by one into CPU mappings.
 *
 * What an export makes the kernel hold counts against the exporting
 * file's allowance (max_file_meta_mb): the list of pages once per
 * placement, and each export's own records. An export outlives its file
 * (a mapping, an importer hold it): the charge holds a reference to the
 * allowance and goes with the last export using it.
 *
 * While an export lives its placement stays where it is: eviction passes
 * it by, PLACE_FREE and the GPU's detach are -EBUSY. Its bytes are the
 * GPU's copy, current for the chunks that GPU holds: a session on the GPU
 * makes the chunks it names current there, END publishes what was written.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_prime.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_quota.h"
#include "bo/mvgal_bo.h"
#include "move/mvgal_export.h"
#include "move/mvgal_place.h"
#include "move/mvgal_prime.h"

/*
 * What one export makes the kernel hold besides the shared list of pages:
 * its own record and the dma-buf core's (the dma-buf and its reservation,
 * which no memory cgroup is charged for).
 */
#define MVGAL_EXPORT_COST \
	(sizeof(struct mvgal_export) + sizeof(struct dma_buf) + \
	 sizeof(struct dma_resv))

static struct sg_table *mvgal_export_map(struct dma_buf_attachment *attach,
					 enum dma_data_direction dir)
{
	struct mvgal_export *e = attach->dmabuf->priv;
	struct mvgal_dmabuf_att *a;
	struct sg_table *sgt;
	int ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return ERR_PTR(-ENOMEM);
	sgt = drm_prime_pages_to_sg(e->bo->base.dev, e->xp->pages, e->npages);
	if (IS_ERR(sgt)) {
		kfree(a);
		return sgt;
	}
	ret = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret) {
		sg_free_table(sgt);
		kfree(sgt);
		kfree(a);
		return ERR_PTR(ret);
	}
	/* Kept for begin/end_cpu_access, which sync every device's view. */
	a->sgt = sgt;
	attach->priv = a;
	return sgt;
}

static void mvgal_export_unmap(struct dma_buf_attachment *attach,
			       struct sg_table *sgt,
			       enum dma_data_direction dir)
{
	kfree(attach->priv);
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
			      page_to_pfn(e->xp->pages[vmf->pgoff]));
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

/*
 * The last export of the placement went: the list leaves the buffer's
 * slot under the lock the count fell to 0 under, so that a new export
 * never finds it, then goes with its charge (its file may be closed: the
 * allowance lives while a charge holds it).
 */
static void mvgal_export_pages_release(struct kref *ref)
	__releases(&xp->bo->state_lock)
{
	struct mvgal_export_pages *xp =
		container_of(ref, struct mvgal_export_pages, ref);
	struct mvgal_bo *bo = xp->bo;

	if (bo->pools.xpages[xp->gpu] == xp)
		bo->pools.xpages[xp->gpu] = NULL;
	spin_unlock(&bo->state_lock);
	mvgal_file_uncharge(xp->quota, false, xp->bytes);
	kvfree(xp);
}

/*
 * Undoes mvgal_export_pin(). The list goes before the export count: a
 * placement no longer counted exported may be evicted and made again
 * elsewhere, and must not find the old list in its slot.
 */
static void mvgal_export_unpin(struct mvgal_export *e)
{
	struct mvgal_bo *bo = e->bo;

	kref_put_lock(&e->xp->ref, mvgal_export_pages_release, &bo->state_lock);
	e->xp = NULL;
	atomic_dec(&bo->pools.exported[e->gpu->index]);
	mvgal_file_uncharge(e->quota, false, MVGAL_EXPORT_COST);
	e->quota = NULL;
}

static void mvgal_export_release(struct dma_buf *dmabuf)
{
	struct mvgal_export *e = dmabuf->priv;

	mvgal_export_unpin(e);
	drm_gem_object_put(&e->bo->base);
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
 * The pages of @e's pool range, from the kernel mapping mvgal holds of
 * the pool (a vmap of the exporter's pages, which the pool's attachment
 * and mapping keep in place), charged to @file before anything is
 * allocated. A pool that is I/O memory, or mapped some other way, cannot
 * be exported by range.
 */
static struct mvgal_export_pages *mvgal_export_pages_new(struct mvgal_export *e,
							 struct drm_file *file)
{
	struct iosys_map *map = &e->gpu->pool.map;
	struct mvgal_export_pages *xp;
	struct mvgal_file *quota;
	unsigned long i;
	size_t bytes;
	u32 memory, flags;
	u64 moves;
	int ret;

	/* A pool its driver may move has no fixed pages to hand out. */
	mvgal_pool_where(&e->gpu->pool, &memory, &flags, &moves);
	if (memory != MVGAL_POOL_MEMORY_SYSTEM || flags & MVGAL_POOL_MOVABLE ||
	    map->is_iomem || !is_vmalloc_addr(map->vaddr))
		return ERR_PTR(-EOPNOTSUPP);
	bytes = struct_size(xp, pages, e->npages);
	quota = mvgal_file_charge(file, false, bytes, &ret);
	if (!quota)
		return ERR_PTR(ret);
	xp = kvmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!xp) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	*xp = (struct mvgal_export_pages) {
		.bo = e->bo, .gpu = e->gpu->index, .start = e->start,
		.npages = e->npages, .quota = quota, .bytes = bytes,
	};
	kref_init(&xp->ref);
	for (i = 0; i < e->npages; i++) {
		xp->pages[i] = vmalloc_to_page(map->vaddr + e->start +
					       i * PAGE_SIZE);
		if (!xp->pages[i]) {
			ret = -EOPNOTSUPP;
			goto err_free;
		}
	}
	return xp;

err_free:
	kvfree(xp);
err_uncharge:
	mvgal_file_uncharge(quota, false, bytes);
	return ERR_PTR(ret);
}

/*
 * The list of @e's range: the one its other exports use, or a new one
 * in the buffer's slot. Caller holds bo->lock, under which the slot is
 * filled (and the placement cannot change while an export counts).
 */
static struct mvgal_export_pages *mvgal_export_pages_get(struct mvgal_export *e,
							 struct drm_file *file)
{
	struct mvgal_bo *bo = e->bo;
	u32 g = e->gpu->index;
	struct mvgal_export_pages *xp;

	lockdep_assert_held(&bo->lock);
	spin_lock(&bo->state_lock);
	xp = bo->pools.xpages[g];
	/* In the slot, it has a reference: the last one empties the slot. */
	if (xp && xp->start == e->start && xp->npages == e->npages)
		kref_get(&xp->ref);
	else
		xp = NULL;
	spin_unlock(&bo->state_lock);
	if (xp)
		return xp;
	xp = mvgal_export_pages_new(e, file);
	if (IS_ERR(xp))
		return xp;
	spin_lock(&bo->state_lock);
	bo->pools.xpages[g] = xp;
	spin_unlock(&bo->state_lock);
	return xp;
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
 * takes the range's pages, charging @file's allowance first. Caller
 * holds gpu_lock and bo->lock. Return: 0, or -errno with nothing
 * changed: -EDQUOT (max_file_meta_mb), -ENOSPC, -ENOMEM, -EOPNOTSUPP.
 */
int mvgal_export_pin(struct mvgal_export *e, struct mvgal_gpu *gpu,
		     struct drm_file *file)
{
	struct mvgal_bo *bo = e->bo;
	bool made = !bo->home && !bo->pools.place[gpu->index];
	struct mvgal_export_pages *xp;
	int ret;

	e->quota = mvgal_file_charge(file, false, MVGAL_EXPORT_COST, &ret);
	if (!e->quota)
		return ret;
	ret = mvgal_place_get(bo, gpu);
	if (ret)
		goto err_uncharge;
	e->gpu = gpu;
	e->start = bo->home ? bo->alloc.node.start :
		   bo->pools.place[gpu->index]->alloc.node.start;
	e->npages = bo->npages;
	xp = mvgal_export_pages_get(e, file);
	if (IS_ERR(xp)) {
		ret = PTR_ERR(xp);
		if (made)
			mvgal_place_drain(bo, gpu->index, true);
		goto err_uncharge;
	}
	e->xp = xp;
	atomic_inc(&bo->pools.exported[gpu->index]);
	return 0;

err_uncharge:
	mvgal_file_uncharge(e->quota, false, MVGAL_EXPORT_COST);
	e->quota = NULL;
	return ret;
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
		mvgal_export_unpin(e);
	return dmabuf;
}
