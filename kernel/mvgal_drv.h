/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mvgal.ko internals shared between its files.
 */
#ifndef MVGAL_DRV_H
#define MVGAL_DRV_H

#include <linux/iosys-map.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_mm.h>
#include <drm/mvgal_drm.h>

#include "core/mvgal_path.h"

struct mvgal_predict;

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
	/* Placements of buffers in @pool, least recently used first, and
	 * what eviction did; under mdev->gpu_lock.
	 */
	unsigned int nr_places;
	struct list_head lru;
	u64 evictions;
	u64 evicted_bytes;
	u64 written_back;
	u64 refusals;
	/* The order it uses buffers in (mvgal_prefetch.c); under gpu_lock. */
	struct mvgal_predict *pred;
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

/* Counters of the migration engine (DRM_IOCTL_MVGAL_GET_STATS). */
struct mvgal_counters {
	atomic64_t scheduled;
	atomic64_t completed;
	atomic64_t failed;
	atomic64_t cancelled;
	atomic64_t depth;
	atomic64_t jobs[MVGAL_PRIO_COUNT];
	atomic64_t bytes[MVGAL_METHOD_COUNT];
	atomic64_t copies[MVGAL_METHOD_COUNT];
	atomic64_t sessions;
	atomic64_t busy;
	atomic64_t cpu_faults;
	atomic64_t drained;
	atomic64_t prefetch_issued;
	atomic64_t prefetch_hits;
	atomic64_t prefetch_misses;
	atomic64_t prefetch_cancelled;
	atomic64_t numa_moved;
};

/* Buffers a GPU is predicted to use next, for the prefetcher. */
#define MVGAL_PREFETCH_DEPTH	2

/*
 * The migration engine: jobs whose dependencies have signaled wait on
 * @ready, highest priority first, for the one worker.
 */
struct mvgal_engine {
	struct workqueue_struct *wq;
	struct work_struct work;
	/* Guards @ready, @pending, @next_id and each job's state. */
	spinlock_t lock;
	struct list_head ready[MVGAL_PRIO_COUNT];
	/* Jobs not started yet, for CANCEL; under @lock. */
	struct list_head pending;
	u64 next_id;
	/* Per NUMA node: the staging bounce buffer of the worker. */
	void **bounce;
};

/*
 * Per open file: its live sessions, its settings, and what it has queued
 * or holds against its allowance (max_file_jobs, max_file_meta_mb).
 */
struct mvgal_file {
	/* The drm_file's, and one per job or buffer charged here: a job or
	 * a buffer may outlive the file.
	 */
	struct kref ref;
	atomic_t jobs;			/* jobs not finished */
	atomic64_t meta;		/* bytes of buffer metadata */
	/* Guards the rest but @flags; held across END. */
	struct mutex lock;
	struct list_head sessions;	/* live, most recent last */
	unsigned int count;		/* live or being begun */
	u32 next_id;
	u32 flags;			/* MVGAL_FILE_*, READ/WRITE_ONCE */
};

struct mvgal_device {
	struct drm_device drm;
	struct platform_device *pdev;
	/*
	 * Guards @gpus, @links and @gpu_count; held across attach/detach,
	 * across eviction, and around each batch of a NUMA page move (which
	 * takes the buffer's lock under it by a try only), so that eviction
	 * never finds a buffer locked by a move.
	 */
	struct mutex gpu_lock;
	struct mvgal_gpu *gpus[MVGAL_MAX_GPUS];
	struct mvgal_link links[MVGAL_MAX_GPUS][MVGAL_MAX_GPUS];
	unsigned int gpu_count;
	/* The access clock of eviction (mvgal_evict.c); under gpu_lock. */
	u64 clock;
	/* Serializes ADVISE (mvgal_policy.c). */
	struct mutex advise_lock;
	/* Per GPU, the ids of buffers to prefetch (0: none); under gpu_lock.
	 * The work runs on @free_wq.
	 */
	u64 prefetch_want[MVGAL_MAX_GPUS][MVGAL_PREFETCH_DEPTH];
	struct work_struct prefetch_work;
	/* Host pages that buffers hold now. */
	atomic64_t host_pages;
	/* Every live buffer, for BO_LIST; @bos_lock guards it. */
	struct mutex bos_lock;
	struct list_head bos;
	atomic64_t next_bo_id;
	struct dentry *debugfs;
	/* Allocations made through debugfs, for tests; under gpu_lock. */
	struct list_head debug_allocs;

	struct mvgal_engine engine;
	struct mvgal_counters ctr;
	/* Buffers whose end waits for fences or gpu_lock. */
	struct workqueue_struct *free_wq;
	/* Calibrated paths between locations; @cal_lock guards them. */
	spinlock_t cal_lock;
	struct mvgal_path_cal cal[MVGAL_LOC_COUNT][MVGAL_LOC_COUNT]
				 [MVGAL_METHOD_COUNT];
	u64 calibrated_ns;
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
extern int mvgal_force_method;
extern unsigned int mvgal_evict_policy;
extern bool mvgal_prefetch;
extern unsigned int mvgal_mirror_window_ms;
extern unsigned int mvgal_mirror_start_reads;
extern unsigned int mvgal_mirror_stop_writes;
extern unsigned int mvgal_mirror_hold_windows;
extern unsigned int mvgal_max_file_jobs;
extern unsigned int mvgal_max_file_meta_mb;

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
struct drm_gem_object *mvgal_driver_import(struct drm_device *ddev,
					   struct dma_buf *dmabuf);
int mvgal_ioctl_file_flags(struct drm_device *dev, void *data,
			   struct drm_file *file);
int mvgal_ioctl_place_fd(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_pool_fd(struct drm_device *dev, void *data,
			struct drm_file *file);
void mvgal_gpu_detach_all(struct mvgal_device *mdev);
struct mvgal_gpu *mvgal_gpu_lookup(struct mvgal_device *mdev, u32 index,
				   int *err);
struct mvgal_gpu *mvgal_gpu_use(struct mvgal_device *mdev, u32 index, int *err);
bool mvgal_gpu_unplugged(struct mvgal_gpu *gpu);

/* mvgal_pool.c */
int mvgal_pool_init(struct mvgal_pool *pool, struct dma_buf *dmabuf,
		    struct device *dev);
void mvgal_pool_fini(struct mvgal_pool *pool);
int mvgal_pool_alloc(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a,
		     u64 size);
void mvgal_pool_free(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a);
void mvgal_pool_clear(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a);
void mvgal_pool_usage(struct mvgal_pool *pool, u64 *used, u64 *largest_free,
		      u64 *nr_allocs);

/* mvgal_evict.c */
int mvgal_pool_alloc_evict(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a,
			   u64 size, u64 keep_ahead);
int mvgal_ioctl_gpu_budget(struct drm_device *dev, void *data,
			   struct drm_file *file);
int mvgal_ioctl_pool_lru(struct drm_device *dev, void *data,
			 struct drm_file *file);

/* mvgal_heap.c */
int mvgal_ioctl_get_heap(struct drm_device *dev, void *data,
			 struct drm_file *file);

/* mvgal_migrate.c */
struct mvgal_job;
struct mvgal_bo;
struct dma_fence;
int mvgal_engine_init(struct mvgal_device *mdev);
void mvgal_engine_fini(struct mvgal_device *mdev);
struct mvgal_job *mvgal_job_alloc(struct mvgal_device *mdev,
				  unsigned int prio, struct drm_file *owner);
int mvgal_job_add_copy(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned int dst, unsigned int src, u64 off, u64 len,
		       unsigned int method);
int mvgal_job_add_dep(struct mvgal_job *job, struct dma_fence *fence);
void mvgal_fence_boost(struct dma_fence *fence, unsigned int prio);
u64 mvgal_job_bytes(const struct mvgal_job *job);
struct dma_fence *mvgal_job_fence(struct mvgal_job *job);
u64 mvgal_job_id(const struct mvgal_job *job);
void mvgal_job_push(struct mvgal_job *job);
int mvgal_job_set_move(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned long first, unsigned long last,
		       unsigned int loc);
void mvgal_job_mark(struct mvgal_job *job);
void mvgal_job_publish(struct mvgal_job *job);
bool mvgal_job_empty(const struct mvgal_job *job);
int mvgal_job_add_resv_deps(struct mvgal_job *job, struct mvgal_bo *bo,
			    bool write);
struct sync_file;
int mvgal_fence_fd(struct dma_fence *fence, struct sync_file **sf);
void mvgal_job_abort(struct mvgal_job *job);
int mvgal_ioctl_migrate(struct drm_device *dev, void *data,
			struct drm_file *file);
int mvgal_migrate_plan(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned long first, unsigned long last,
		       unsigned int loc);

/* mvgal_prefetch.c */
void mvgal_prefetch_init(struct mvgal_device *mdev);
int mvgal_ioctl_cancel(struct drm_device *dev, void *data,
		       struct drm_file *file);
int mvgal_ioctl_get_stats(struct drm_device *dev, void *data,
			  struct drm_file *file);

/* mvgal_session.c */
int mvgal_ioctl_begin(struct drm_device *dev, void *data,
		      struct drm_file *file);
int mvgal_ioctl_end(struct drm_device *dev, void *data,
		    struct drm_file *file);
int mvgal_file_open(struct drm_device *dev, struct drm_file *file);
void mvgal_file_close(struct drm_device *dev, struct drm_file *file);
struct mvgal_file *mvgal_file_charge(struct drm_file *file, bool job,
				     u64 meta, int *err);
void mvgal_file_uncharge(struct mvgal_file *mf, bool job, u64 meta);
int mvgal_file_meta_charge(struct mvgal_file *mf, u64 bytes);
void mvgal_file_meta_uncharge(struct mvgal_file *mf, u64 bytes);

/* mvgal_calib.c: the one path selector and its calibration. */
unsigned int mvgal_select(struct mvgal_device *mdev, unsigned int src,
			  unsigned int dst, u64 bytes,
			  struct mvgal_path_choice *choice);
int mvgal_ioctl_get_path(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_calibrate(struct drm_device *dev, void *data,
			  struct drm_file *file);
void mvgal_cal_forget(struct mvgal_device *mdev, unsigned int loc);
int mvgal_gpu_drain(struct mvgal_device *mdev, struct mvgal_gpu *gpu);

/* mvgal_debugfs.c */
void mvgal_debugfs_init(struct mvgal_device *mdev);
void mvgal_debugfs_fini(struct mvgal_device *mdev);

#endif /* MVGAL_DRV_H */
