/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device: struct mvgal_device, the state every layer reaches through
 * to_mvgal(), and the driver's name.
 */
#ifndef MVGAL_DEV_DEVICE_H
#define MVGAL_DEV_DEVICE_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/mvgal_drm.h>

#include "core/mvgal_path.h"
#include "dev/mvgal_dma.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_gpu.h"

struct dentry;
struct drm_device;
struct platform_device;
struct workqueue_struct;

#define MVGAL_DRIVER_NAME	"mvgal"
#define MVGAL_DRIVER_DESC	"Multi-GPU unified memory"
#define MVGAL_DRIVER_DATE	"20261130"
#define MVGAL_DRIVER_MAJOR	0
#define MVGAL_DRIVER_MINOR	1

/* Counters of the migration engine (DRM_IOCTL_MVGAL_GET_STATS). */
struct mvgal_counters {
	atomic64_t scheduled;
	atomic64_t completed;
	atomic64_t failed;
	atomic64_t cancelled;
	atomic64_t depth;
	atomic64_t jobs[MVGAL_PRIO_COUNT];
	atomic64_t bytes[MVGAL_NR_METHODS];
	atomic64_t copies[MVGAL_NR_METHODS];
	atomic64_t sessions;
	atomic64_t busy;
	atomic64_t cpu_faults;
	atomic64_t drained;
	atomic64_t prefetch_issued;
	atomic64_t prefetch_hits;
	atomic64_t prefetch_misses;
	atomic64_t prefetch_cancelled;
	atomic64_t numa_moved;
	atomic64_t staged_writes;
	/* ENDs that took their GPU work's fence (fence_fd or syncobj). */
	atomic64_t end_fences;
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
	/*
	 * Staging memory (move/mvgal_job.c), under @staged_wq.lock: the
	 * bytes staged writes (mvgal_job_set_write()) hold until their jobs
	 * end (@staged, at most staging_kb), each user's part of them (the
	 * users that hold some or wait, hashed by uid: struct
	 * mvgal_stage_user), and the writes waiting for room, first come
	 * first (@stage_waiters); they sleep on @staged_wq.
	 */
	u64 staged;
	DECLARE_HASHTABLE(stage_users, 4);
	struct list_head stage_waiters;
	wait_queue_head_t staged_wq;
};

struct mvgal_device {
	struct drm_device drm;
	struct platform_device *pdev;
	/*
	 * Guards @gpus, @links and @gpu_count, and each GPU's lifetime.
	 * Held to read by whatever uses a GPU: the planning of copies and
	 * the evictions it causes, which so never wait for each other. Held
	 * to write only to change the table: attach, and a detach's mark
	 * and removal, whose drain in between runs without it
	 * (dev/mvgal_gpu.c). A writer waits for the readers in flight.
	 */
	struct rw_semaphore gpu_lock;
	struct mvgal_gpu *gpus[MVGAL_MAX_GPUS];
	struct mvgal_link links[MVGAL_MAX_GPUS][MVGAL_MAX_GPUS];
	unsigned int gpu_count;
	/* The access clock of eviction (move/mvgal_place.c). */
	atomic64_t clock;
	/* Serializes ADVISE (uapi/mvgal_policy_ioctl.c). */
	struct mutex advise_lock;
	/* Per GPU, the ids of buffers to prefetch (0: none), and each GPU's
	 * predictor; under @prefetch_lock. The work runs on @free_wq.
	 */
	spinlock_t prefetch_lock;
	u64 prefetch_want[MVGAL_MAX_GPUS][MVGAL_PREFETCH_DEPTH];
	struct work_struct prefetch_work;
	/* Host pages that buffers hold now. */
	atomic64_t host_pages;
	/* Every live buffer, for BO_LIST; @bos_lock guards it. */
	struct mutex bos_lock;
	struct list_head bos;
	atomic64_t next_bo_id;
	struct dentry *debugfs;
	/* Allocations made through debugfs, for tests; under gpu_lock
	 * held to write.
	 */
	struct list_head debug_allocs;

	struct mvgal_engine engine;
	struct mvgal_counters ctr;
	/*
	 * Per NUMA node (nr_node_ids of them): bytes of buffer copies that
	 * went through a bounce buffer whose memory is on that node, as the
	 * page allocator placed it (bo/mvgal_view.c); <debugfs>/mvgal/staged
	 * shows them, so tests can see where staging really happened.
	 */
	atomic64_t *staged;
	/* Buffers whose end waits for fences or evictions. */
	struct workqueue_struct *free_wq;
	/* Serializes calibrations (dev/mvgal_path.c), which time copies
	 * without gpu_lock: two at once would time each other's.
	 */
	struct mutex cal_mutex;
	/* Calibrated paths between locations; @cal_lock guards them. */
	spinlock_t cal_lock;
	struct mvgal_path_cal cal[MVGAL_LOC_COUNT][MVGAL_LOC_COUNT]
				 [MVGAL_NR_METHODS];
	/*
	 * Pairs whose DMA-engine copy a calibration found right (@dma_ok,
	 * lost when a copy fails) or wrong (@dma_bad, for as long as the
	 * engine stays); under @cal_lock.
	 */
	bool dma_ok[MVGAL_LOC_COUNT][MVGAL_LOC_COUNT];
	/* The executor registration whose figures @cal holds, per pair. */
	u64 exec_cal_id[MVGAL_LOC_COUNT][MVGAL_LOC_COUNT];
	bool dma_bad[MVGAL_LOC_COUNT][MVGAL_LOC_COUNT];
	u64 calibrated_ns;
	/* The DMA-engine copier (dev/mvgal_dma.c). */
	struct mvgal_dma dma;
	/* The copy executors (dev/mvgal_exec.c). */
	struct mvgal_execs exec;
};

static inline struct mvgal_device *to_mvgal(struct drm_device *dev)
{
	return container_of(dev, struct mvgal_device, drm);
}

#endif /* MVGAL_DEV_DEVICE_H */
