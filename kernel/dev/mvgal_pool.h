/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pools: the memory a GPU lends to mvgal.
 */
#ifndef MVGAL_DEV_POOL_H
#define MVGAL_DEV_POOL_H

#include <linux/atomic.h>
#include <linux/iosys-map.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_mm.h>

struct device;
struct drm_device;
struct dma_buf;
struct file;
struct dma_buf_attachment;
struct mvgal_gpu;
struct sg_table;

/*
 * struct mvgal_pool_keep - a GEM handle of the pool's buffer, in a DRM file
 * of its driver that mvgal holds open
 *
 * TTM drivers tell importers of a move only through the object's link to
 * its dma-buf (amdgpu_bo_move_notify() and xe_bo_move() test
 * obj->dma_buf), which the DRM core drops with the object's last handle
 * (drm_gem_object_exported_dma_buf_free()). The process that made the
 * pool closes its handle and exits, so without a handle of mvgal's own a
 * driver could move the buffer under mvgal's mapping unannounced: a pool
 * is followed through moves only while mvgal keeps one.
 */
struct mvgal_pool_keep {
	struct file *file;	/* a reference; NULL when none is kept */
	u32 handle;
};

/*
 * struct mvgal_pool - the memory one GPU lends: a dma-buf from the GPU's
 * own driver, attached with the GPU's device as an importer that allows
 * peer-to-peer and follows moves, mapped for CPU copies, and carved up
 * with drm_mm.
 *
 * Where the kernel lets the driver move the buffer (a dynamic exporter,
 * CONFIG_DMABUF_MOVE_NOTIFY), it may do so at any time: its move_notify
 * waits for the CPU accesses in flight, drops the mapping and has
 * @remap_work map the buffer again where it is then. Allocations are
 * offsets into the buffer, so they stay valid; only the mapping changes.
 */
struct mvgal_pool {
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	u64 size;
	/* Allocations lie in [0, budget); written under pool.lock. */
	u64 budget;
	/* Guards @mm and @nr_allocs. */
	struct mutex lock;
	struct drm_mm mm;
	u64 nr_allocs;

	/*
	 * Held to read by every CPU access through @map (and @sgt); held to
	 * write, with the dma-buf's reservation, by move_notify and the
	 * re-map. Readers never take a reservation while they hold it.
	 */
	struct rw_semaphore map_sem;
	struct sg_table *sgt;
	struct iosys_map map;
	/* The mapping was dropped; @remap_work makes it again. */
	bool stale;
	/* Detaching: a move maps nothing again. */
	bool dying;
	/* mvgal pinned the buffer (a movable pool, movable_pools off). */
	bool pinned;
	/* The re-map failed: the pool's bytes are out of reach. */
	int remap_err;
	struct work_struct remap_work;
	wait_queue_head_t remapped;
	/*
	 * MVGAL_POOL_MEMORY_* and MVGAL_POOL_*: written under map_sem, read
	 * by reports without it.
	 */
	u32 memory;
	u32 flags;
	atomic64_t moves;
	/* Held while the pool may be moved (MVGAL_POOL_MOVABLE). */
	struct mvgal_pool_keep keep;
	/* An adopted placement's pool on its way out (mvgal_gpu_adopted_put()). */
	struct llist_node gone;
};

/* An allocation from a pool: [node.start, node.start + node.size). */
struct mvgal_pool_alloc {
	struct drm_mm_node node;
};

void mvgal_pool_keep_get(struct mvgal_pool_keep *k, struct drm_device *ddev,
			 struct file *f, struct dma_buf *dmabuf, int pool_fd);
void mvgal_pool_keep_put(struct mvgal_pool_keep *k);
int mvgal_pool_init(struct mvgal_pool *pool, struct dma_buf *dmabuf,
		    struct device *dev, struct mvgal_pool_keep *keep);
void mvgal_pool_fini(struct mvgal_pool *pool);
int mvgal_pool_alloc(struct mvgal_gpu *gpu,
		     struct mvgal_pool_alloc *a, u64 size);
void mvgal_pool_free(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a);
int mvgal_pool_clear(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a);
int mvgal_pool_zero(struct mvgal_pool *pool, u64 start, u64 size);
void mvgal_pool_usage(struct mvgal_pool *pool, u64 *used, u64 *largest_free,
		      u64 *nr_allocs);
int mvgal_pool_map_get(struct mvgal_pool *pool, struct iosys_map *map);
int mvgal_pool_map_tryget(struct mvgal_pool *pool, struct iosys_map *map);
void mvgal_pool_map_put(struct mvgal_pool *pool);
void mvgal_pool_where(struct mvgal_pool *pool, u32 *memory, u32 *flags,
		      u64 *moves);
bool mvgal_pool_is_device(struct mvgal_pool *pool);
int mvgal_pool_attach_for(struct mvgal_pool *pool, struct device *dev,
			  struct dma_buf_attachment **att,
			  struct sg_table **sgt);
void mvgal_pool_detach_for(struct mvgal_pool *pool,
			   struct dma_buf_attachment *att,
			   struct sg_table *sgt);
struct sg_table *mvgal_pool_slice(struct sg_table *sgt, u64 start, u64 len);

#endif /* MVGAL_DEV_POOL_H */
