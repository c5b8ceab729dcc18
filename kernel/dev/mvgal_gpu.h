/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPUs: attach a DRM device and the pool it lends, record what the kernel
 * knows about it (driver, PCI identity, NUMA node, host bridge), and probe
 * how every other attached GPU reaches its pool.
 */
#ifndef MVGAL_DEV_GPU_H
#define MVGAL_DEV_GPU_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_path.h"
#include "dev/mvgal_dma.h"
#include "dev/mvgal_pool.h"

struct device;
struct dma_buf;
struct drm_device;
struct file;
struct drm_gem_object;
struct mvgal_device;
struct mvgal_predict;
struct pci_dev;

/*
 * struct mvgal_gpu - an attached GPU. Identity is read from the kernel
 * once, at attach; the references keep the device and the driver that
 * exported the pool alive until detach.
 */
struct mvgal_gpu {
	struct mvgal_device *mdev;
	unsigned int index;
	struct drm_device *ddev;	/* drm_dev_get() */
	struct device *dev;		/* get_device(): ddev->dev */
	struct pci_dev *pdev;		/* the PCI device at or above @dev */
	const void *host_bridge;	/* identity only, never dereferenced */
	int numa_node;
	dev_t render_devt;		/* 0: no render node */
	dev_t primary_devt;		/* 0: no primary node */
	char driver[MVGAL_NAME_LEN];
	char slot[MVGAL_NAME_LEN];
	char root[MVGAL_NAME_LEN];
	struct mvgal_pool pool;
	/*
	 * Placements of buffers in @pool, least recently used first, what
	 * eviction did, and each buffer's record of use here (bo->pools.reuse[],
	 * whose writers hold the buffer's lock too); under @lru_lock. A
	 * mutex, not a spinlock: eviction's scan takes pool.lock under it.
	 * Never held across a copy, and never with another GPU's.
	 */
	struct mutex lru_lock;
	/*
	 * One allocation that may evict in @pool at a time, held across
	 * the victims' copies home (move/mvgal_place.c): the room they
	 * make is the evicting caller's. Taken under buffers' locks, before
	 * @lru_lock; victims' locks only by a try under it.
	 */
	struct mutex evict_lock;
	unsigned int nr_places;
	struct list_head lru;
	u64 evictions;
	u64 evicted_bytes;
	u64 written_back;
	u64 refusals;
	/* The order it uses buffers in (policy/mvgal_prefetch.c); under
	 * mdev->prefetch_lock.
	 */
	struct mvgal_predict *pred;
	/*
	 * Being detached: nothing new goes here. Written under gpu_lock
	 * held to write, so whoever holds it to read sees it stable.
	 */
	bool detaching;
	/* Idle/active, counted under pool.lock. */
	bool active;
	u64 state_changes;
	/*
	 * Pools of adopted placements that went, given back by
	 * @adopted_work: a placement goes under its buffer's lock, and
	 * giving a pool back takes its dma-buf's reservation, which is
	 * taken before buffers' locks elsewhere.
	 */
	struct llist_head adopted_gone;
	struct work_struct adopted_work;
	/*
	 * The dma-bufs lent as placements here, from before their pools are
	 * made until after they are given back: one buffer lent twice would
	 * hold two buffers' bytes. A detach waits until it is empty.
	 */
	struct xarray adopted;
	/* The pool mapped for the DMA engine (dev/mvgal_dma.c). */
	struct mvgal_dma_reach dma;
};

/* What was probed for one ordered pair (src pool -> dst GPU). */
struct mvgal_link {
	u32 link_flags;
	/*
	 * What the probe found (the DMA engine's reach updated when it
	 * comes or goes); mvgal_pair_verdict() judges it.
	 */
	struct mvgal_link_facts facts;
	u32 import_error;
};

struct mvgal_gpu *mvgal_gpu_lookup(struct mvgal_device *mdev, u32 index,
				   int *err);
bool mvgal_gpu_unplugged(struct mvgal_gpu *gpu);
bool mvgal_gpu_any_exportable(struct mvgal_device *mdev);
struct mvgal_gpu *mvgal_gpu_use(struct mvgal_device *mdev, u32 index, int *err);
struct drm_gem_object *mvgal_driver_import(struct drm_device *ddev,
					   struct dma_buf *dmabuf);
bool mvgal_gpu_dmabuf_is_native(struct drm_device *ddev,
				struct dma_buf *dmabuf);
int mvgal_gpu_adopt_pool(struct mvgal_gpu *gpu, struct dma_buf *dmabuf,
			 struct mvgal_pool **out);
void mvgal_gpu_adopt_drop(struct mvgal_gpu *gpu, struct mvgal_pool *pool);
void mvgal_gpu_adopted_put(struct mvgal_gpu *gpu, struct mvgal_pool *pool);
int mvgal_gpu_attach(struct mvgal_device *mdev, struct drm_device *ddev,
		     struct dma_buf *dmabuf, struct file *f, int pool_fd,
		     u32 want);
struct mvgal_gpu *mvgal_gpu_detach_begin(struct mvgal_device *mdev,
					 u32 index, int *err);
int mvgal_gpu_detach_end(struct mvgal_device *mdev, struct mvgal_gpu *gpu,
			 int ret);
void mvgal_gpu_detach_all(struct mvgal_device *mdev);

#endif /* MVGAL_DEV_GPU_H */
