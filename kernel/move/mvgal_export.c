// SPDX-License-Identifier: GPL-2.0
/*
 * Placement exports: a dma-buf of one buffer's copy in one GPU's pool,
 * for the process that holds the buffer to hand to its GPU API. Byte 0 is
 * the buffer's byte 0, the size is the buffer's (page-rounded), and
 * nothing else of the pool is reachable through it.
 *
 * The pool is another driver's dma-buf, and mvgal never touches its pages
 * or maps its memory except through that driver's dma-buf ops: an
 * importer gets the pool's exporter's DMA addresses for the importer's
 * device, cut to the range (as the P2P export of a device-only buffer,
 * mvgal_prime.c); a CPU mapping is the pool's exporter's mmap at the
 * range's offset; a vmap is mvgal's own vmap of the pool (the exporter's)
 * at the offset; begin/end_cpu_access are the pool's. So it works on
 * device memory as on system RAM. A pool its driver may move is refused:
 * mvgal's mapping of it, which a vmap hands out, would go with a move.
 *
 * What an export makes the kernel hold counts against the exporting
 * file's allowance (max_file_meta_mb). An export outlives its file (a
 * mapping, an importer hold it): the charge holds a reference to the
 * allowance and goes with the export.
 *
 * While an export lives its placement stays where it is: eviction passes
 * it by, PLACE_FREE and the GPU's detach are -EBUSY. Its bytes are the
 * GPU's copy, current for the chunks that GPU holds: a session on the GPU
 * makes the chunks it names current there, END publishes what was written.
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

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
 * What one export makes the kernel hold: its own record and the dma-buf
 * core's (the dma-buf and its reservation, which no memory cgroup is
 * charged for). An importer's records are its own, charged to it.
 */
#define MVGAL_EXPORT_COST \
	(sizeof(struct mvgal_export) + sizeof(struct dma_buf) + \
	 sizeof(struct dma_resv))

static struct mvgal_pool *mvgal_export_pool(struct dma_buf *dmabuf)
{
	struct mvgal_export *e = dmabuf->priv;

	return e->pool;
}

/* The pool attached for the importer's device, by the pool's driver. */
static int mvgal_export_attach(struct dma_buf *dmabuf,
			       struct dma_buf_attachment *attach)
{
	return mvgal_dmabuf_att_new(mvgal_export_pool(dmabuf), attach);
}

static void mvgal_export_detach(struct dma_buf *dmabuf,
				struct dma_buf_attachment *attach)
{
	mvgal_dmabuf_att_free(mvgal_export_pool(dmabuf), attach);
}

/* Exactly the range, in the DMA addresses the pool's driver gave. */
static struct sg_table *mvgal_export_map(struct dma_buf_attachment *attach,
					 enum dma_data_direction dir)
{
	struct mvgal_export *e = attach->dmabuf->priv;

	return mvgal_dmabuf_att_slice(attach, e->start,
				      (u64)e->npages << PAGE_SHIFT);
}

static void mvgal_export_unmap(struct dma_buf_attachment *attach,
			       struct sg_table *sgt,
			       enum dma_data_direction dir)
{
	mvgal_dmabuf_slice_free(sgt);
}

/*
 * The bytes are the pool's: the importers' mappings are the pool driver's
 * (made for their devices through its attachments), as are the CPU's
 * (vmap, mmap). Only the pool's exporter knows how to make them coherent,
 * and dma_buf_begin_cpu_access() on the pool also waits for the fences of
 * work on it, as the core does for ours before calling this.
 */
static int mvgal_export_begin_cpu_access(struct dma_buf *dmabuf,
					 enum dma_data_direction dir)
{
	return dma_buf_begin_cpu_access(mvgal_export_pool(dmabuf)->dmabuf, dir);
}

static int mvgal_export_end_cpu_access(struct dma_buf *dmabuf,
				       enum dma_data_direction dir)
{
	return dma_buf_end_cpu_access(mvgal_export_pool(dmabuf)->dmabuf, dir);
}

/*
 * Drivers whose dma-buf mmap maps the page the vma's offset names, read
 * in Linux 6.12: drm_gem_dmabuf_mmap() adds the object's fake offset to
 * vm_pgoff, and their fault handlers take the page from vmf->pgoff less
 * that offset: TTM's ttm_bo_vm_fault_reserved() (amdgpu_gem_fault(),
 * radeon_gem_fault(), nouveau_ttm_fault()), and the test bed's VRAM
 * stand-in (mvgal_vram_fault(), tests/vram). The GEM shmem helpers' fault
 * (drm_gem_shmem_fault(): vgem, virtio-gpu) takes the page from the
 * address less vm_start and ignores vm_pgoff, and virtio-gpu's host-memory
 * blobs map from the object's start: a mapping at an offset would show
 * the pool's first pages, other buffers' bytes. Their pools, and any
 * driver not read here, are not mapped (-ENODEV).
 */
static const char * const mvgal_export_mmap_drivers[] = {
	"amdgpu", "radeon", "nouveau", "mvgal_vram",
};

static bool mvgal_export_mmap_ok(struct mvgal_gpu *gpu)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mvgal_export_mmap_drivers); i++)
		if (!strcmp(gpu->driver, mvgal_export_mmap_drivers[i]))
			return true;
	return false;
}

/*
 * The pool's exporter maps the range: dma_buf_mmap() of the pool at the
 * range's offset. The dma-buf core has checked our size already (and
 * refused a writable mapping of a read-only fd). A private mapping could
 * copy pages on write, and the pool's are never to be copied into a
 * process: only shared mappings are made, read-only ones too.
 *
 * dma_buf_mmap() makes the pool's file the vma's, so the mapping would
 * no longer hold this export, which keeps the placement from being freed
 * and its range given to another buffer: the export's file goes back in
 * (vma_set_file()) once the exporter is done. This is sound because
 *  - nothing of the exporters above keeps vma->vm_file: their vm_ops find
 *    their object in vm_private_data, which drm_gem_prime_mmap() holds a
 *    reference on (TTM: the buffer, ttm_bo_mmap_obj()) until vm_close;
 *  - mmap_region() reads vma->vm_file again after ->mmap: it links the
 *    vma into that file's f_mapping and puts it at munmap (6.12's
 *    __mmap_region(), vma_link_file(), remove_vma());
 *  - the export's file->f_mapping is the pool file's (mvgal_export_dmabuf(),
 *    as drm_gem_dmabuf_export() points every GEM dma-buf's at its
 *    device's anon inode), so the vma sits in the mapping the pool's
 *    driver zaps with unmap_mapping_range() (drm_vma_node_unmap() at a
 *    move or purge, the stand-in's unplug), at the offset of the pool's
 *    object where its own mappings sit, and i_mmap_writable is counted
 *    on the mapping it is uncounted from;
 *  - the vma's file holds the export, which holds the placement and,
 *    through it, the GPU and its pool (detach is -EBUSY), so the pool's
 *    dma-buf, driver object and that mapping outlive the vma.
 */
static int mvgal_export_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct mvgal_export *e = dmabuf->priv;
	int ret;

	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;
	if (!mvgal_export_mmap_ok(e->gpu))
		return -ENODEV;
	ret = dma_buf_mmap(e->pool->dmabuf, vma,
			   vma->vm_pgoff + (e->start >> PAGE_SHIFT));
	if (ret)
		return ret;
	vma_set_file(vma, dmabuf->file);
	return 0;
}

/*
 * mvgal's mapping of the pool (the exporter's vmap, I/O memory for a
 * device-memory pool) at the range. It stays while mvgal holds it: the
 * pool of an export cannot move (movable pools are refused), and it stays
 * attached and mapped while the export lives (detach is -EBUSY). A pool
 * whose mapping is gone (it could not be made again) has none to give.
 */
static int mvgal_export_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct mvgal_export *e = dmabuf->priv;
	struct mvgal_pool *pool = e->pool;
	int ret;

	ret = mvgal_pool_map_get(pool, map);
	if (ret)
		return ret;
	mvgal_pool_map_put(pool);
	iosys_map_incr(map, e->start);
	return 0;
}

/*
 * Undoes mvgal_export_pin(): a placement no longer counted exported may be
 * evicted and made again elsewhere.
 */
static void mvgal_export_unpin(struct mvgal_export *e)
{
	atomic_dec(&e->bo->pools.exported[e->gpu->index]);
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
 * No vunmap: the pool's mapping is mvgal's. The core keeps each
 * attachment's table until it detaches (importers map once and keep it).
 */
static const struct dma_buf_ops mvgal_export_ops = {
	.cache_sgt_mapping = true,
	.attach = mvgal_export_attach,
	.detach = mvgal_export_detach,
	.map_dma_buf = mvgal_export_map,
	.unmap_dma_buf = mvgal_export_unmap,
	.begin_cpu_access = mvgal_export_begin_cpu_access,
	.end_cpu_access = mvgal_export_end_cpu_access,
	.mmap = mvgal_export_mmap,
	.vmap = mvgal_export_vmap,
	.release = mvgal_export_release,
};

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
 * Pins @bo's placement at @gpu (made now if it has none) for @e, charging
 * @file's allowance first. Caller holds gpu_lock and bo->lock. Return: 0,
 * or -errno with nothing changed: -EDQUOT (max_file_meta_mb), -ENOSPC,
 * -ENOMEM, -EOPNOTSUPP (a pool its driver may move).
 */
int mvgal_export_pin(struct mvgal_export *e, struct mvgal_gpu *gpu,
		     struct drm_file *file)
{
	struct mvgal_place *p = e->bo->pools.place[gpu->index];
	struct mvgal_bo *bo = e->bo;
	u32 memory, flags;
	u64 moves;
	int ret;

	/* Its mapping, which vmap hands out, would go with a move (an
	 * adopted placement's pool is movable where the GPU's is).
	 */
	mvgal_pool_where(p ? p->pool : &gpu->pool, &memory, &flags, &moves);
	if (flags & MVGAL_POOL_MOVABLE)
		return -EOPNOTSUPP;
	e->quota = mvgal_file_charge(file, false, MVGAL_EXPORT_COST, &ret);
	if (!e->quota)
		return ret;
	ret = mvgal_place_get(bo, gpu);
	if (ret) {
		mvgal_file_uncharge(e->quota, false, MVGAL_EXPORT_COST);
		e->quota = NULL;
		return ret;
	}
	e->gpu = gpu;
	if (bo->home) {
		e->pool = &gpu->pool;
		e->start = bo->alloc.node.start;
	} else {
		e->pool = bo->pools.place[gpu->index]->pool;
		e->start = bo->pools.place[gpu->index]->alloc.node.start;
	}
	e->npages = bo->npages;
	atomic_inc(&bo->pools.exported[gpu->index]);
	return 0;
}

/*
 * The dma-buf of a pinned export; undoes the pin when it cannot be had.
 * Its file's f_mapping is the pool file's: see mvgal_export_mmap().
 */
struct dma_buf *mvgal_export_dmabuf(struct mvgal_export *e, u32 flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dmabuf;

	exp_info.ops = &mvgal_export_ops;
	exp_info.size = e->npages << PAGE_SHIFT;
	exp_info.flags = flags & MVGAL_PLACE_FD_RDWR ? O_RDWR : O_RDONLY;
	exp_info.priv = e;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		mvgal_export_unpin(e);
		return dmabuf;
	}
	dmabuf->file->f_mapping = e->pool->dmabuf->file->f_mapping;
	return dmabuf;
}
