/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffers: struct mvgal_bo and the helpers every layer above reads it
 * with, and the functions of bo/mvgal_bo.c.
 */
#ifndef MVGAL_BO_BO_H
#define MVGAL_BO_BO_H

#include <linux/atomic.h>
#include <linux/iosys-map.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_gem.h>
#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_evict.h"
#include "core/mvgal_mirror.h"
#include "dev/mvgal_pool.h"

struct address_space;
struct drm_file;
struct drm_gem_object;
struct mvgal_device;
struct mvgal_file;
struct mvgal_gpu;
struct mvgal_userptr;

/*
 * A buffer's copy in one GPU's pool, allocated on first need, on the
 * GPU's LRU list (under its lru_lock) until it goes; or a driver buffer
 * of that GPU lent for this buffer alone (PLACE_ADOPT), which is in no
 * pool's budget, on no LRU list, and never evicted.
 */
struct mvgal_place {
	struct mvgal_gpu *gpu;
	/* The GPU's pool, or the lent buffer's own (adopted: owned here). */
	struct mvgal_pool *pool;
	bool adopted;
	struct mvgal_bo *bo;
	struct list_head lru;
	struct mvgal_pool_alloc alloc;
	/* ADVISE pinned it: never evicted. Under bo->lock. */
	bool pinned;
	/* A prefetch filled it and no session used it yet; under bo->lock. */
	bool prefetched;
};

/*
 * What policy/ decides for a buffer and keeps on it: data only here,
 * written by policy/ under the buffer's lock. All zero, as a new buffer
 * has it, is no advice and nothing learnt yet.
 */
struct mvgal_bo_policy {
	/* Placement advice (policy/mvgal_advice.c); the read-mostly chunks
	 * are MVGAL_CB_READ_MOSTLY bits.
	 */
	u32 workload;
	u32 preferred;		/* 1 + the preferred GPU, or 0: none */
	u32 accessed_by;
	/*
	 * Sessions begun; the first and every MVGAL_TOUCH_SAMPLE-th after
	 * it leave the chunks they named as MVGAL_CB_TOUCHED bits: what a
	 * prefetch brings.
	 */
	u64 begins;
	/*
	 * Sessions per GPU, and 1 + the GPU whose node the pages follow, or
	 * 0 (policy/mvgal_numa.c). @numa_work is set up by its first use.
	 */
	u32 uses[MVGAL_MAX_GPUS];
	u32 numa_gpu;
	bool numa_pending;	/* pages are to move to the buffer's nid */
	struct work_struct numa_work;
	/* GPUs (bits) whose driver imports the buffer's dma-buf, GPUs that
	 * were asked, and GPUs @probe_work is to ask (policy/mvgal_session.c).
	 * @probe_work is set up by its first use.
	 */
	u16 host_ok;
	u16 host_probed;
	u16 host_probing;
	struct work_struct probe_work;
};

/*
 * The buffer's state in GPU pools, which move/ keeps (placements,
 * eviction, exports): data only here. All zero, as a new buffer has it,
 * is no placement. Each field says what guards it.
 */
struct mvgal_bo_pools {
	/* Placements in other GPUs' pools (never the device-only home);
	 * a slot changes under the buffer's lock.
	 */
	struct mvgal_place *place[MVGAL_MAX_GPUS];
	/* Uses per GPU, for the eviction order; under that GPU's lru_lock,
	 * and written under the buffer's lock too.
	 */
	struct mvgal_reuse reuse[MVGAL_MAX_GPUS];
	/* Live placement exports per GPU (move/mvgal_export.c): the placement
	 * stays where it is while there are any (not a u16: a process may
	 * hold more fds than that). Raised under the buffer's lock (so an
	 * eviction that holds it sees every export), dropped anywhere.
	 */
	atomic_t exported[MVGAL_MAX_GPUS];
	/* It had a placement once: its free runs from a work item. */
	bool ever_placed;
	/*
	 * Evictions that took it as a victim while it was dying (no
	 * reference left): its free waits until none is left, as each may
	 * still be letting go of the buffer's lock (move/mvgal_place.c).
	 */
	atomic_t victim_holds;
	/* The buffer's lock is held to move its pages to another node, for
	 * one batch (policy/mvgal_numa.c sets it): eviction waits for that
	 * rather than pass the buffer by as one in use, and counts itself
	 * in @evict_waits, which the next batch waits for.
	 */
	bool page_move;
	atomic_t evict_waits;
};

/*
 * Write-watch (bo/mvgal_cpuwrite.c), under the buffer's lock: how many
 * chunks the CPU wrote since HARVEST reset the record (MVGAL_CB_WRITTEN),
 * and since the chunk states took the writes in (MVGAL_CB_PENDING); the
 * chunks refused for good after a hand-off (MVGAL_CB_REFUSED), and the
 * hand-offs seen (policy/mvgal_handoff.c).
 */
struct mvgal_bo_watch {
	unsigned long nwritten;
	unsigned long npending;
	unsigned long nrefused;
	u64 handoffs;
};

/*
 * What BO_INFO reports of the bytes that moved and who used the buffer,
 * data only: each counter is bumped where its event happens, with no
 * lock, and read with none. All zero, as a new buffer has it.
 */
struct mvgal_bo_stats {
	/* Bytes the CPU copy ioctls read and wrote (BO_PREAD, BO_PWRITE,
	 * BO_COPY): mvgal_bo_count().
	 */
	atomic64_t bytes_read;
	atomic64_t bytes_written;
	/* Bytes copied into and out of each GPU's pool, by any copy. */
	atomic64_t to_gpu[MVGAL_MAX_GPUS];
	atomic64_t from_gpu[MVGAL_MAX_GPUS];
	/* Accesses per GPU, by kind: sessions begun on it, migrations into
	 * or out of its pool, CPU copies of a device-only buffer's home.
	 * BO_INFO's access_count is their sum.
	 */
	atomic64_t sessions[MVGAL_MAX_GPUS];
	atomic64_t migrations[MVGAL_MAX_GPUS];
	atomic64_t cpu[MVGAL_MAX_GPUS];
};

struct mvgal_bo {
	struct drm_gem_object base;
	u64 size;		/* as created; base.size is page aligned */
	u32 flags;		/* MVGAL_BO_* */
	u32 gpu;		/* the GPU it is for, or MVGAL_GPU_ANY */
	int nid;		/* NUMA node of the host pages */

	/* Guards @pages and @nr_pages. */
	struct mutex lock;
	/*
	 * Host storage, page index -> struct page, filled as pages are
	 * first needed: a lazily allocated buffer's metadata grows with
	 * what is touched, not with its size. @host: it has host storage
	 * (not an import, not device-only).
	 */
	struct xarray pages;
	bool host;
	unsigned long npages;
	unsigned long nr_pages;
	/* The pages are an application's, registered (BO_USERPTR). */
	struct mvgal_userptr *userptr;
	/* All @pages mapped at once, once all exist (copies use it). */
	void *vaddr;

	/* Device-only storage: a range of @home's pool. */
	struct mvgal_gpu *home;
	struct mvgal_pool_alloc alloc;

	/* Storage the kernel reaches through a mapping: @home's pool at
	 * alloc.node.start, or an imported dma-buf's vmap at 0.
	 */
	struct iosys_map map;
	u64 map_offset;

	u32 sharing;		/* MVGAL_SHARING_* */
	/* Devices attached to the exported dma-buf; under @lock. */
	unsigned int nr_attach;

	/* The allowance of the file that created it, charged @meta bytes. */
	struct mvgal_file *quota;
	u64 meta;

	/* On mdev->bos, for BO_LIST; who made it. */
	struct list_head link;
	u64 id;
	kuid_t uid;
	pid_t pid;

	struct mvgal_bo_stats stats;

	/*
	 * Coherence. The chunk states (bo/mvgal_chunks.c: @leaves, where an
	 * absent leaf's chunks are as @chunk_home says, all at home) and
	 * @live are guarded by @state_lock, which
	 * nests inside @lock; @lock serializes every operation that plans
	 * copies. A job's copies are ordered against every other access by
	 * the job's fence, which is in the buffer's dma_resv (KERNEL usage)
	 * before the chunk states say the copy is there; a job that fails
	 * takes its chunks back under @state_lock alone, before its fence
	 * signals, so that waiters holding @lock cannot deadlock with it.
	 */
	spinlock_t state_lock;
	unsigned int home_loc;		/* MVGAL_LOC_HOST, or 1 + home GPU */
	unsigned int chunk_shift;
	unsigned long nchunks;
	struct xarray leaves;
	struct mvgal_chunk chunk_home;
	struct mvgal_chunk chunk_stray;	/* a change without a leaf lands here */
	struct list_head live;		/* of struct mvgal_live */
	/* Of struct mvgal_commit, under @lock. */
	struct list_head commits;
	unsigned int sessions;		/* live sessions */
	unsigned int sessions_at[MVGAL_MAX_GPUS];
	/* The mirror controller's notes (bo/mvgal_mirror.c), under @lock,
	 * and the GPUs its READ sessions keep replicas on.
	 */
	struct mvgal_mirror mirror;
	u16 mirror_set;
	struct mvgal_bo_policy policy;
	struct mvgal_bo_pools pools;
	struct mvgal_bo_watch watch;
	/* An import of a dma-buf opened read-only: every write is refused. */
	bool read_only;
	/* Somebody mapped it for the CPU: zap PTEs when chunks leave. */
	bool cpu_mapped;
	/* A mapping without VM_MAYWRITE exists: re-protect by unmapping. */
	bool wp_unmaps;
	/* The mapping of its exported dma-buf's file, while that lives. */
	struct address_space *dmabuf_mapping;
	struct work_struct free_work;
};

static inline struct mvgal_bo *to_mvgal_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct mvgal_bo, base);
}

static inline bool mvgal_bo_device_only(const struct mvgal_bo *bo)
{
	return !(bo->flags & MVGAL_BO_HOST_VALID);
}

/*
 * May GPU @gpu use @bo: a session on it, a copy into its pool, an export
 * of its placement? Only a GPU_VALID buffer, and one made for another
 * GPU only when it is SHARED (one made for no GPU is for any).
 * Return: 0 or -EPERM.
 */
static inline int mvgal_bo_gpu_may_use(const struct mvgal_bo *bo, u32 gpu)
{
	if (!(bo->flags & MVGAL_BO_GPU_VALID))
		return -EPERM;
	if (bo->gpu != MVGAL_GPU_ANY && bo->gpu != gpu &&
	    !(bo->flags & MVGAL_BO_SHARED))
		return -EPERM;
	return 0;
}

/* Is the storage reached through @map (a pool range or an import)? */
static inline bool mvgal_bo_mapped(const struct mvgal_bo *bo)
{
	return !bo->host;
}

/* Bytes [0, size) of a buffer in chunk @c's coordinates. */
static inline u64 mvgal_chunk_start(const struct mvgal_bo *bo, unsigned long c)
{
	return (u64)c << bo->chunk_shift;
}

static inline u64 mvgal_chunk_len(const struct mvgal_bo *bo, unsigned long c)
{
	u64 start = mvgal_chunk_start(bo, c);

	return min_t(u64, bo->base.size - start, 1ULL << bo->chunk_shift);
}

void mvgal_bo_lock_init(struct mvgal_bo *bo);
void mvgal_bo_release(struct mvgal_bo *bo);
struct mvgal_bo *mvgal_bo_lookup_access(struct drm_file *file, u32 handle,
					bool write, int *err);
struct mvgal_bo *mvgal_bo_lookup(struct drm_file *file, u32 handle);
void mvgal_bo_track(struct mvgal_bo *bo);
void mvgal_bo_count(struct mvgal_bo *bo, u64 len, bool write);
void mvgal_bo_count_copy(struct mvgal_bo *bo, unsigned int dst,
			 unsigned int src, u64 len);
void mvgal_bo_count_session(struct mvgal_bo *bo, unsigned int gpu);
void mvgal_bo_count_moves(struct mvgal_bo *bo, unsigned long locs);
struct mvgal_bo *mvgal_bo_by_id(struct mvgal_device *mdev, u64 id);

#endif /* MVGAL_BO_BO_H */
