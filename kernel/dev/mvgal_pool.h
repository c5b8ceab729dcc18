/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pools: the memory a GPU lends to mvgal.
 */
#ifndef MVGAL_DEV_POOL_H
#define MVGAL_DEV_POOL_H

#include <linux/iosys-map.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_mm.h>

struct device;
struct dma_buf;
struct dma_buf_attachment;
struct mvgal_gpu;
struct sg_table;

/*
 * struct mvgal_pool - the memory one GPU lends: a dma-buf from the GPU's
 * own driver, attached with the GPU's device, mapped for CPU copies, and
 * carved up with drm_mm.
 */
struct mvgal_pool {
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map map;
	u64 size;
	/* Allocations lie in [0, budget); written under pool.lock. */
	u64 budget;
	/* Guards @mm and @nr_allocs. */
	struct mutex lock;
	struct drm_mm mm;
	u64 nr_allocs;
};

/* An allocation from a pool: [node.start, node.start + node.size). */
struct mvgal_pool_alloc {
	struct drm_mm_node node;
};

int mvgal_pool_init(struct mvgal_pool *pool, struct dma_buf *dmabuf,
		    struct device *dev);
void mvgal_pool_fini(struct mvgal_pool *pool);
int mvgal_pool_alloc(struct mvgal_gpu *gpu,
		     struct mvgal_pool_alloc *a, u64 size);
void mvgal_pool_free(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a);
void mvgal_pool_clear(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a);
void mvgal_pool_usage(struct mvgal_pool *pool, u64 *used, u64 *largest_free,
		      u64 *nr_allocs);

#endif /* MVGAL_DEV_POOL_H */
