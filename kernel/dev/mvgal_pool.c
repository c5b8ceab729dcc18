// SPDX-License-Identifier: GPL-2.0
/*
 * Pools: the memory a GPU lends to mvgal. The pool is a dma-buf that the
 * GPU's own driver allocated; attaching it with the GPU's struct device
 * proves the GPU reaches it, the kernel mapping serves CPU copies, and
 * drm_mm hands out ranges of it. Every figure reported about a pool is
 * read from drm_mm itself.
 */

#include <linux/dma-buf.h>
#include <linux/dma-direction.h>
#include <linux/error-injection.h>
#include <linux/mm.h>

#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_pool.h"

/**
 * mvgal_pool_init() - take a dma-buf on as a GPU's pool
 * @pool: the pool to set up
 * @dmabuf: the GPU's dma-buf; on success the pool owns this reference
 * @dev: the GPU's device, which must be able to reach the memory
 *
 * Return: 0, or the error of the attach, map or vmap that failed.
 */
int mvgal_pool_init(struct mvgal_pool *pool, struct dma_buf *dmabuf,
		    struct device *dev)
{
	int ret;

	pool->dmabuf = dmabuf;
	pool->size = dmabuf->size;
	pool->budget = pool->size;

	pool->attach = dma_buf_attach(dmabuf, dev);
	if (IS_ERR(pool->attach))
		return PTR_ERR(pool->attach);

	pool->sgt = dma_buf_map_attachment_unlocked(pool->attach,
						    DMA_BIDIRECTIONAL);
	if (IS_ERR(pool->sgt)) {
		ret = PTR_ERR(pool->sgt);
		goto err_detach;
	}

	/* CPU copies need a kernel mapping; an exporter without vmap
	 * support cannot lend a pool.
	 */
	ret = dma_buf_vmap_unlocked(dmabuf, &pool->map);
	if (ret) {
		ret = -EOPNOTSUPP;
		goto err_unmap;
	}

	mutex_init(&pool->lock);
	drm_mm_init(&pool->mm, 0, pool->size);
	pool->nr_allocs = 0;
	return 0;

err_unmap:
	dma_buf_unmap_attachment_unlocked(pool->attach, pool->sgt,
					  DMA_BIDIRECTIONAL);
err_detach:
	dma_buf_detach(dmabuf, pool->attach);
	return ret;
}

/**
 * mvgal_pool_fini() - give a pool back; it must hold no allocations
 * @pool: the pool
 *
 * Drops the mapping, the attachment and the dma-buf reference, and with
 * it the hold on the exporting driver.
 */
void mvgal_pool_fini(struct mvgal_pool *pool)
{
	drm_mm_takedown(&pool->mm);
	mutex_destroy(&pool->lock);
	dma_buf_vunmap_unlocked(pool->dmabuf, &pool->map);
	dma_buf_unmap_attachment_unlocked(pool->attach, pool->sgt,
					  DMA_BIDIRECTIONAL);
	dma_buf_detach(pool->dmabuf, pool->attach);
	dma_buf_put(pool->dmabuf);
}

/**
 * mvgal_pool_alloc() - allocate @size bytes, page aligned, from a GPU's pool
 * @gpu: the GPU
 * @a: the allocation to fill in
 * @size: bytes; rounded up to whole pages
 *
 * The GPU turns active with its first allocation. A failure injected here
 * (fail_function) is a full pool: it drives the eviction and -ENOSPC paths.
 *
 * Return: 0, -EINVAL for a zero size, -ENOSPC when no free range below
 * the budget fits (mvgal_pool_alloc_evict() makes room).
 */
noinline int mvgal_pool_alloc(struct mvgal_gpu *gpu,
			      struct mvgal_pool_alloc *a, u64 size)
{
	struct mvgal_pool *pool = &gpu->pool;
	int ret;

	if (!size)
		return -EINVAL;
	memset(&a->node, 0, sizeof(a->node));
	mutex_lock(&pool->lock);
	if (PAGE_ALIGN(size) > pool->budget)
		ret = -ENOSPC;
	else
		ret = drm_mm_insert_node_in_range(&pool->mm, &a->node,
						  PAGE_ALIGN(size), PAGE_SIZE,
						  0, 0, pool->budget,
						  DRM_MM_INSERT_BEST);
	if (!ret && pool->nr_allocs++ == 0) {
		gpu->active = true;
		gpu->state_changes++;
		drm_dbg(&gpu->mdev->drm, "GPU %u active\n", gpu->index);
	}
	mutex_unlock(&pool->lock);
	return ret;
}

ALLOW_ERROR_INJECTION(mvgal_pool_alloc, ERRNO);

/**
 * mvgal_pool_free() - return an allocation to its pool
 * @gpu: the GPU whose pool it came from
 * @a: the allocation
 *
 * The GPU turns idle when its last allocation goes.
 */
void mvgal_pool_free(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a)
{
	struct mvgal_pool *pool = &gpu->pool;

	mutex_lock(&pool->lock);
	drm_mm_remove_node(&a->node);
	if (--pool->nr_allocs == 0) {
		gpu->active = false;
		gpu->state_changes++;
		drm_dbg(&gpu->mdev->drm, "GPU %u idle\n", gpu->index);
	}
	mutex_unlock(&pool->lock);
}

/**
 * mvgal_pool_clear() - zero an allocation's bytes
 * @gpu: the GPU whose pool it came from
 * @a: the allocation
 */
void mvgal_pool_clear(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a)
{
	struct iosys_map map = gpu->pool.map;

	iosys_map_memset(&map, a->node.start, 0, a->node.size);
}

/**
 * mvgal_pool_usage() - what drm_mm says about a pool
 * @pool: the pool
 * @used: (out) bytes in allocated ranges
 * @largest_free: (out) the largest free range
 * @nr_allocs: (out) live allocations
 */
void mvgal_pool_usage(struct mvgal_pool *pool, u64 *used, u64 *largest_free,
		      u64 *nr_allocs)
{
	struct drm_mm_node *node;
	u64 hole_start, hole_end;
	u64 sum = 0, largest = 0;

	mutex_lock(&pool->lock);
	drm_mm_for_each_node(node, &pool->mm)
		sum += node->size;
	drm_mm_for_each_hole(node, &pool->mm, hole_start, hole_end)
		largest = max(largest, hole_end - hole_start);
	*nr_allocs = pool->nr_allocs;
	mutex_unlock(&pool->lock);
	*used = sum;
	*largest_free = largest;
}
