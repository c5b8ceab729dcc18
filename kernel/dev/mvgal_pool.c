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
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/ioport.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/error-injection.h>
#include <linux/mm.h>

#include <drm/drm_auth.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>

#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_pool.h"

#include <drm/mvgal_drm.h>

/*
 * What the mapping says of where the bytes are: I/O memory is a BAR; so is
 * a vmalloc-space mapping of pages that are not RAM (a driver that maps
 * its BAR as memory, as i915 does for LMEM with vmap_pfn()).
 */
static u32 mvgal_pool_memory(const struct iosys_map *map)
{
	if (map->is_iomem)
		return MVGAL_POOL_MEMORY_DEVICE;
	if (is_vmalloc_addr(map->vaddr) &&
	    !page_is_ram(vmalloc_to_pfn(map->vaddr)))
		return MVGAL_POOL_MEMORY_DEVICE;
	return MVGAL_POOL_MEMORY_SYSTEM;
}

/*
 * Map the attachment and the buffer for the CPU, with the reservation
 * held as a dynamic importer must, into @sgt and @map. The map is what
 * makes the driver put the buffer somewhere this device reaches (and,
 * without move notify, pin it); the vmap is taken after, of the buffer
 * where it is then. The driver may call move_notify from inside the map
 * (it moved the buffer to map it): map_sem is not held here.
 */
static int mvgal_pool_map_locked(struct mvgal_pool *pool,
				 struct sg_table **sgt, struct iosys_map *map)
{
	int ret;

	dma_resv_assert_held(pool->dmabuf->resv);
	*sgt = dma_buf_map_attachment(pool->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(*sgt))
		return PTR_ERR(*sgt);
	/* CPU copies need a kernel mapping; an exporter without vmap
	 * support cannot lend a pool.
	 */
	ret = dma_buf_vmap(pool->dmabuf, map);
	if (ret) {
		dma_buf_unmap_attachment(pool->attach, *sgt, DMA_BIDIRECTIONAL);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Publishes a new mapping; map_sem held to write. */
static void mvgal_pool_set_map(struct mvgal_pool *pool, struct sg_table *sgt,
			       struct iosys_map *map)
{
	pool->sgt = sgt;
	pool->map = *map;
	WRITE_ONCE(pool->memory, mvgal_pool_memory(map));
	WRITE_ONCE(pool->flags, (pool->flags & ~MVGAL_POOL_PEER2PEER) |
		   (pool->attach->peer2peer ? MVGAL_POOL_PEER2PEER : 0));
}

static void mvgal_pool_unmap_locked(struct mvgal_pool *pool)
{
	if (!pool->sgt)
		return;
	dma_buf_vunmap(pool->dmabuf, &pool->map);
	iosys_map_clear(&pool->map);
	dma_buf_unmap_attachment(pool->attach, pool->sgt, DMA_BIDIRECTIONAL);
	pool->sgt = NULL;
}

/*
 * The driver is about to move the buffer (its reservation is held): let
 * the CPU copies in flight finish, then give the mapping up; the work
 * item maps it again once the move is done and the reservation free. A
 * move while mvgal maps the buffer (no mapping yet) is the one the map
 * itself asked for.
 */
static void mvgal_pool_move_notify(struct dma_buf_attachment *attach)
{
	struct mvgal_pool *pool = attach->importer_priv;

	down_write(&pool->map_sem);
	if (pool->sgt && !pool->dying) {
		atomic64_inc(&pool->moves);
		mvgal_pool_unmap_locked(pool);
		pool->stale = true;
		WRITE_ONCE(pool->memory, MVGAL_POOL_MEMORY_UNMAPPED);
		queue_work(system_unbound_wq, &pool->remap_work);
	}
	up_write(&pool->map_sem);
}

static const struct dma_buf_attach_ops mvgal_pool_importer_ops = {
	.allow_peer2peer = true,
	.move_notify = mvgal_pool_move_notify,
};

static void mvgal_pool_remap_work(struct work_struct *work)
{
	struct mvgal_pool *pool = container_of(work, struct mvgal_pool,
					       remap_work);
	struct sg_table *sgt;
	struct iosys_map map;
	int ret;

	dma_resv_lock(pool->dmabuf->resv, NULL);
	if (!READ_ONCE(pool->stale) || READ_ONCE(pool->dying))
		goto out;
	ret = mvgal_pool_map_locked(pool, &sgt, &map);
	down_write(&pool->map_sem);
	if (ret) {
		WRITE_ONCE(pool->remap_err, -EIO);
		pr_warn("mvgal: a pool's driver moved it and it cannot be mapped again (%d): its bytes are out of reach\n",
			ret);
	} else {
		mvgal_pool_set_map(pool, sgt, &map);
	}
	pool->stale = false;
	up_write(&pool->map_sem);
out:
	dma_resv_unlock(pool->dmabuf->resv);
	wake_up_all(&pool->remapped);
}

/**
 * mvgal_pool_keep_get() - a handle of the pool's buffer, kept where the
 * pool is to follow its driver's moves
 * @k: (out) the handle and the file it is in, or none
 * @ddev: the pool's DRM device
 * @f: a file of one of @ddev's nodes (the attach's drm_fd)
 * @dmabuf: the pool, exported by @ddev's driver
 * @pool_fd: @dmabuf's fd in the calling process
 *
 * Only a pool its driver may move, with movable_pools set, needs one; the
 * pool is pinned when none is kept. A master's file is never kept: the
 * display server could not become master while mvgal held it.
 */
void mvgal_pool_keep_get(struct mvgal_pool_keep *k, struct drm_device *ddev,
			 struct file *f, struct dma_buf *dmabuf, int pool_fd)
{
	struct drm_file *dfile = f->private_data;
	int ret;

	k->file = NULL;
	k->handle = 0;
	if (!dma_buf_is_dynamic(dmabuf) ||
	    !IS_ENABLED(CONFIG_DMABUF_MOVE_NOTIFY) ||
	    !READ_ONCE(mvgal_movable_pools))
		return;
	if (drm_is_current_master(dfile)) {
		pr_info("mvgal: a movable pool is pinned: its DRM file is master, which mvgal does not hold open\n");
		return;
	}
	ret = drm_gem_prime_fd_to_handle(ddev, dfile, pool_fd, &k->handle);
	if (ret) {
		pr_info("mvgal: a movable pool is pinned: no handle of it could be kept (%d)\n",
			ret);
		return;
	}
	k->file = get_file(f);
}

/* Gives a kept handle up, and the file with it. */
void mvgal_pool_keep_put(struct mvgal_pool_keep *k)
{
	if (!k->file)
		return;
	drm_gem_handle_delete(k->file->private_data, k->handle);
	fput(k->file);
	k->file = NULL;
}

/*
 * A pool its driver may move is followed (a handle of it kept: see
 * &struct mvgal_pool_keep) or pinned where the driver pins for
 * importers; reservation held.
 */
static int mvgal_pool_hold(struct mvgal_pool *pool)
{
	int ret;

	if (!dma_buf_is_dynamic(pool->dmabuf) ||
	    !IS_ENABLED(CONFIG_DMABUF_MOVE_NOTIFY))
		return 0;	/* static, or the core pins it at map */
	if (pool->keep.file) {
		pool->flags |= MVGAL_POOL_MOVABLE;
		return 0;
	}
	ret = dma_buf_pin(pool->attach);
	if (!ret)
		pool->pinned = true;
	return ret;
}

/**
 * mvgal_pool_init() - take a dma-buf on as a GPU's pool
 * @pool: the pool to set up
 * @dmabuf: the GPU's dma-buf; on success the pool owns this reference
 * @dev: the GPU's device, which must be able to reach the memory
 * @keep: a handle kept of the buffer (mvgal_pool_keep_get()), or none; on
 *	  success the pool owns it
 *
 * Return: 0, -ENXIO when the driver would not let @dev reach the buffer
 * (its attach or map failed: its rules for sharing, see docs/HARDWARE.md),
 * -EOPNOTSUPP when it has no kernel mapping for CPU copies.
 */
int mvgal_pool_init(struct mvgal_pool *pool, struct dma_buf *dmabuf,
		    struct device *dev, struct mvgal_pool_keep *keep)
{
	struct sg_table *sgt;
	struct iosys_map map;
	int ret;

	pool->dmabuf = dmabuf;
	pool->size = dmabuf->size;
	pool->budget = pool->size;
	init_rwsem(&pool->map_sem);
	init_waitqueue_head(&pool->remapped);
	INIT_WORK(&pool->remap_work, mvgal_pool_remap_work);
	pool->stale = false;
	pool->dying = false;
	pool->pinned = false;
	pool->remap_err = 0;
	pool->flags = 0;
	pool->sgt = NULL;
	iosys_map_clear(&pool->map);
	atomic64_set(&pool->moves, 0);
	pool->keep = *keep;

	pool->attach = dma_buf_dynamic_attach(dmabuf, dev,
					      &mvgal_pool_importer_ops, pool);
	if (IS_ERR(pool->attach)) {
		ret = PTR_ERR(pool->attach);
		goto err_refused;
	}
	dma_resv_lock(dmabuf->resv, NULL);
	ret = mvgal_pool_hold(pool);
	if (!ret) {
		ret = mvgal_pool_map_locked(pool, &sgt, &map);
		if (ret && pool->pinned) {
			dma_buf_unpin(pool->attach);
			pool->pinned = false;
		}
	}
	if (!ret) {
		down_write(&pool->map_sem);
		mvgal_pool_set_map(pool, sgt, &map);
		up_write(&pool->map_sem);
	}
	dma_resv_unlock(dmabuf->resv);
	if (ret == -EOPNOTSUPP)
		goto err_detach;
	if (ret)
		goto err_refused_detach;

	mutex_init(&pool->lock);
	drm_mm_init(&pool->mm, 0, pool->size);
	pool->nr_allocs = 0;
	keep->file = NULL;
	return 0;

err_refused_detach:
	dma_buf_detach(dmabuf, pool->attach);
err_refused:
	pr_info("mvgal: the pool's driver refused to share it with its own device (%d)\n",
		ret);
	pool->keep.file = NULL;
	return -ENXIO;
err_detach:
	dma_buf_detach(dmabuf, pool->attach);
	pool->keep.file = NULL;
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
	dma_resv_lock(pool->dmabuf->resv, NULL);
	down_write(&pool->map_sem);
	mvgal_pool_unmap_locked(pool);
	if (pool->pinned)
		dma_buf_unpin(pool->attach);
	/* A move from now until the detach maps nothing again. */
	pool->dying = true;
	up_write(&pool->map_sem);
	dma_resv_unlock(pool->dmabuf->resv);
	dma_buf_detach(pool->dmabuf, pool->attach);
	cancel_work_sync(&pool->remap_work);
	mvgal_pool_keep_put(&pool->keep);
	dma_buf_put(pool->dmabuf);
}

/* With map_sem held to read: the mapping, or why not (unlocked then). */
static int mvgal_pool_map_take(struct mvgal_pool *pool, struct iosys_map *map)
{
	int err;

	if (!pool->stale && !pool->remap_err) {
		*map = pool->map;
		return 0;
	}
	err = pool->remap_err;
	up_read(&pool->map_sem);
	return err ?: -EAGAIN;
}

/**
 * mvgal_pool_map_tryget() - the pool's kernel mapping, for one CPU access,
 * without waiting for anything
 * @pool: the pool
 * @map: (out) the mapping, valid until mvgal_pool_map_put()
 *
 * For an access that holds another pool's mapping already: a wait there
 * could stall a driver's move behind a move of the other pool.
 *
 * Return: 0, -EAGAIN while the driver moves the buffer or mvgal maps it
 * again (mvgal_pool_map_get() waits), -EIO when it could not.
 */
int mvgal_pool_map_tryget(struct mvgal_pool *pool, struct iosys_map *map)
{
	if (!down_read_trylock(&pool->map_sem))
		return -EAGAIN;
	return mvgal_pool_map_take(pool, map);
}

/**
 * mvgal_pool_map_get() - the pool's kernel mapping, for one CPU access
 * @pool: the pool
 * @map: (out) the mapping, valid until mvgal_pool_map_put()
 *
 * The driver cannot move the buffer until the access ends. Waits for a
 * move in progress and the re-map after it, but takes no reservation:
 * callable with buffers locked, not while holding another pool's mapping.
 *
 * Return: 0, -EIO when the buffer cannot be mapped again, -ETIMEDOUT when
 * its driver did not let it be within 10 s.
 */
int mvgal_pool_map_get(struct mvgal_pool *pool, struct iosys_map *map)
{
	int ret;

	for (;;) {
		down_read(&pool->map_sem);
		ret = mvgal_pool_map_take(pool, map);
		if (ret != -EAGAIN)
			return ret;
		if (!wait_event_timeout(pool->remapped,
					!READ_ONCE(pool->stale), 10 * HZ))
			return -ETIMEDOUT;
	}
}

void mvgal_pool_map_put(struct mvgal_pool *pool)
{
	up_read(&pool->map_sem);
}

/**
 * mvgal_pool_attach_for() - the pool mapped for another device
 * @pool: the pool
 * @dev: the device (an importer of a buffer that lives in the pool)
 * @att: (out) the attachment
 * @sgt: (out) the DMA addresses the pool's driver gave @dev
 *
 * The pool's driver decides by its own rules whether and how @dev reaches
 * the buffer (it may refuse, or move the buffer to where @dev can); mvgal
 * uses only the DMA addresses it gets, never the pages behind them.
 * Called with no reservation held.
 *
 * Return: 0, or the driver's error.
 */
int mvgal_pool_attach_for(struct mvgal_pool *pool, struct device *dev,
			  struct dma_buf_attachment **att,
			  struct sg_table **sgt)
{
	*att = dma_buf_attach(pool->dmabuf, dev);
	if (IS_ERR(*att))
		return PTR_ERR(*att);
	*sgt = dma_buf_map_attachment_unlocked(*att, DMA_BIDIRECTIONAL);
	if (IS_ERR(*sgt)) {
		dma_buf_detach(pool->dmabuf, *att);
		return PTR_ERR(*sgt);
	}
	return 0;
}

void mvgal_pool_detach_for(struct mvgal_pool *pool,
			   struct dma_buf_attachment *att,
			   struct sg_table *sgt)
{
	dma_buf_unmap_attachment_unlocked(att, sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(pool->dmabuf, att);
}

/**
 * mvgal_pool_slice() - the DMA addresses of [@start, @start + @len) of a
 * mapped pool, as a table of its own (no pages: none may be touched)
 * @sgt: the pool's table from mvgal_pool_attach_for()
 * @start: byte offset in the pool
 * @len: bytes
 *
 * Return: the table (sg_free_table() and kfree() it), or ERR_PTR(-ENOMEM),
 * or ERR_PTR(-EINVAL) when the table ends before the range.
 */
struct sg_table *mvgal_pool_slice(struct sg_table *sgt, u64 start, u64 len)
{
	struct scatterlist *sg, *out = NULL;
	struct sg_table *slice;
	unsigned int i, n = 0;
	u64 pos = 0, end = start + len, a, b;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (pos < end && pos + sg_dma_len(sg) > start)
			n++;
		pos += sg_dma_len(sg);
	}
	if (pos < end || !n)
		return ERR_PTR(-EINVAL);
	slice = kzalloc(sizeof(*slice), GFP_KERNEL_ACCOUNT);
	if (!slice || sg_alloc_table(slice, n, GFP_KERNEL_ACCOUNT)) {
		kfree(slice);
		return ERR_PTR(-ENOMEM);
	}
	pos = 0;
	out = slice->sgl;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		a = max(pos, start);
		b = min(pos + sg_dma_len(sg), end);
		if (a < b) {
			sg_set_page(out, NULL, b - a, 0);
			sg_dma_address(out) = sg_dma_address(sg) + (a - pos);
			sg_dma_len(out) = b - a;
			out = sg_next(out);
		}
		pos += sg_dma_len(sg);
	}
	return slice;
}

/* Whether the pool is device memory as far as is known now. */
bool mvgal_pool_is_device(struct mvgal_pool *pool)
{
	return READ_ONCE(pool->memory) == MVGAL_POOL_MEMORY_DEVICE;
}

/**
 * mvgal_pool_where() - where a pool's bytes are and how mvgal holds it
 * @pool: the pool
 * @memory: (out) MVGAL_POOL_MEMORY_*
 * @flags: (out) MVGAL_POOL_*
 * @moves: (out) moves by its driver since attach
 */
void mvgal_pool_where(struct mvgal_pool *pool, u32 *memory, u32 *flags,
		      u64 *moves)
{
	/* A report, not a use: read without map_sem, which a move holds. */
	*memory = READ_ONCE(pool->remap_err) ? MVGAL_POOL_MEMORY_UNMAPPED :
					       READ_ONCE(pool->memory);
	*flags = READ_ONCE(pool->flags);
	*moves = atomic64_read(&pool->moves);
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
 *
 * Return: 0, or mvgal_pool_map_get()'s error.
 */
int mvgal_pool_clear(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a)
{
	return mvgal_pool_zero(&gpu->pool, a->node.start, a->node.size);
}

/**
 * mvgal_pool_zero() - zero [@start, @start + @size) of a pool
 * @pool: the pool
 * @start: offset
 * @size: bytes
 *
 * Return: 0, or mvgal_pool_map_get()'s error.
 */
int mvgal_pool_zero(struct mvgal_pool *pool, u64 start, u64 size)
{
	struct iosys_map map;
	int ret;

	ret = mvgal_pool_map_get(pool, &map);
	if (ret)
		return ret;
	iosys_map_memset(&map, start, 0, size);
	mvgal_pool_map_put(pool);
	return 0;
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
