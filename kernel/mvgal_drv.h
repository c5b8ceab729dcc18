/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mvgal.ko internals shared between its files.
 */
#ifndef MVGAL_DRV_H
#define MVGAL_DRV_H

#include <linux/iosys-map.h>
#include <linux/mutex.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_mm.h>
#include <drm/mvgal_drm.h>

#include "core/mvgal_path.h"

#define MVGAL_DRIVER_NAME	"mvgal"
#define MVGAL_DRIVER_DESC	"Multi-GPU unified memory"
#define MVGAL_DRIVER_DATE	"20261130"
#define MVGAL_DRIVER_MAJOR	0
#define MVGAL_DRIVER_MINOR	1

struct dma_buf;
struct dma_buf_attachment;
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
	/* Guards @mm and @nr_allocs. */
	struct mutex lock;
	struct drm_mm mm;
	u64 nr_allocs;
};

/* An allocation from a pool: [node.start, node.start + node.size). */
struct mvgal_pool_alloc {
	struct drm_mm_node node;
};

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
	char driver[MVGAL_NAME_LEN];
	char slot[MVGAL_NAME_LEN];
	char root[MVGAL_NAME_LEN];
	struct mvgal_pool pool;
	/* Idle/active, counted under pool.lock. */
	bool active;
	u64 state_changes;
};

/* What was probed for one ordered pair (src pool -> dst GPU). */
struct mvgal_link {
	u32 link_flags;
	u32 import_error;
	struct mvgal_link_verdict verdict;
};

struct mvgal_device {
	struct drm_device drm;
	struct platform_device *pdev;
	/* Guards @gpus, @links and @gpu_count; held across attach/detach. */
	struct mutex gpu_lock;
	struct mvgal_gpu *gpus[MVGAL_MAX_GPUS];
	struct mvgal_link links[MVGAL_MAX_GPUS][MVGAL_MAX_GPUS];
	unsigned int gpu_count;
	/* Host pages that buffers hold now. */
	atomic64_t host_pages;
	/* Every live buffer, for BO_LIST; @bos_lock guards it. */
	struct mutex bos_lock;
	struct list_head bos;
	atomic64_t next_bo_id;
	struct dentry *debugfs;
	/* Allocations made through debugfs, for tests; under gpu_lock. */
	struct list_head debug_allocs;
};

static inline struct mvgal_device *to_mvgal(struct drm_device *dev)
{
	return container_of(dev, struct mvgal_device, drm);
}

/* [core] settings, module parameters (mvgal_params.c). */
extern bool mvgal_enable_memory_migration;
extern bool mvgal_enable_dmabuf;
extern unsigned int mvgal_stats_interval;
extern unsigned int mvgal_chunk_size;
extern unsigned int mvgal_max_gpus;
extern unsigned int mvgal_max_pool_mb;

int mvgal_params_check(void);

/* mvgal_ioctl.c */
int mvgal_ioctl_get_info(struct drm_device *dev, void *data,
			 struct drm_file *file);

/* mvgal_gpu.c */
int mvgal_ioctl_gpu_attach(struct drm_device *dev, void *data,
			   struct drm_file *file);
int mvgal_ioctl_gpu_detach(struct drm_device *dev, void *data,
			   struct drm_file *file);
int mvgal_ioctl_gpu_info(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_gpu_link(struct drm_device *dev, void *data,
			 struct drm_file *file);
void mvgal_gpu_detach_all(struct mvgal_device *mdev);
struct mvgal_gpu *mvgal_gpu_lookup(struct mvgal_device *mdev, u32 index,
				   int *err);

/* mvgal_pool.c */
int mvgal_pool_init(struct mvgal_pool *pool, struct dma_buf *dmabuf,
		    struct device *dev);
void mvgal_pool_fini(struct mvgal_pool *pool);
int mvgal_pool_alloc(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a,
		     u64 size);
void mvgal_pool_free(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a);
void mvgal_pool_usage(struct mvgal_pool *pool, u64 *used, u64 *largest_free,
		      u64 *nr_allocs);

/* mvgal_heap.c */
int mvgal_ioctl_get_heap(struct drm_device *dev, void *data,
			 struct drm_file *file);

/* mvgal_debugfs.c */
void mvgal_debugfs_init(struct mvgal_device *mdev);
void mvgal_debugfs_fini(struct mvgal_device *mdev);

#endif /* MVGAL_DRV_H */
