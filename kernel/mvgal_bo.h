/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffers: GEM objects whose storage is host pages (the home) or a range
 * of one GPU's pool (device-only).
 */
#ifndef MVGAL_BO_H
#define MVGAL_BO_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/dma-direction.h>
#include <linux/dma-resv.h>
#include <linux/iosys-map.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/uidgid.h>
#include <linux/xarray.h>
#include <linux/mutex.h>

#include <drm/drm_gem.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_evict.h"
#include "core/mvgal_mirror.h"
#include "mvgal_chunks.h"
#include "mvgal_drv.h"

/*
 * A buffer's copy in one GPU's pool, allocated on first need, on the
 * GPU's LRU list (under gpu_lock) until it goes.
 */
struct mvgal_place {
	struct mvgal_gpu *gpu;
	struct mvgal_bo *bo;
	struct list_head lru;
	struct mvgal_pool_alloc alloc;
};

/*
 * A live session's use of one buffer, on the buffer's @live list. Its
 * chunk sets are bitmaps over the span of chunks it named: bit i is chunk
 * @base + i, of @n.
 */
struct mvgal_live {
	struct list_head link;
	unsigned long base;
	unsigned long n;
	unsigned long *chunks;	/* the chunks it named */
	/* Chunks the CPU wrote while the session read a GPU copy of them
	 * (hand-offs, mvgal_watch.c); NULL until there is one. Under the
	 * buffer's lock.
	 */
	unsigned long *cpu_wrote;
	bool write;
	bool gpu_copy;		/* it uses a GPU's copy, not home itself */
	unsigned int loc;	/* where that copy is */
};

/*
 * What a WRITE session's END made a GPU's, until the session's fence
 * signals: should the GPU work fail, the holders of before get the chunks
 * back (mvgal_session_settle()).
 */
struct mvgal_commit {
	struct list_head link;		/* on the buffer's @commits */
	struct dma_fence *fence;
	unsigned int loc;
	unsigned int n;
	struct mvgal_commit_chunk {
		u32 chunk;
		u16 prev;		/* valid mask before the END */
		u16 pad;
	} e[];
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

	atomic64_t bytes_read;
	atomic64_t bytes_written;
	atomic64_t access[MVGAL_MAX_GPUS];

	/*
	 * Coherence. The chunk states (mvgal_chunks.c: @leaves, where an
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
	/* Placements in other GPUs' pools (never the device-only home). */
	struct mvgal_place *place[MVGAL_MAX_GPUS];
	/* Uses per GPU, for the eviction order; GPUs (bits) whose placement
	 * a prefetch filled and no session used yet; under gpu_lock.
	 */
	struct mvgal_reuse reuse[MVGAL_MAX_GPUS];
	u16 prefetched;
	/* GPUs whose placement ADVISE pinned: never evicted; under gpu_lock. */
	u16 pinned;
	/* Live placement exports per GPU (mvgal_export.c): the placement
	 * stays where it is while there are any (not a u16: a process may
	 * hold more fds than that); under gpu_lock.
	 */
	unsigned int exported[MVGAL_MAX_GPUS];
	/* It had a placement once: its free runs from a work item. */
	bool ever_placed;
	/*
	 * Placement policy (mvgal_policy.c), under @lock: the advice (the
	 * read-mostly chunks are MVGAL_CB_READ_MOSTLY bits), the mirror
	 * controller and the GPUs it has READ sessions keep replicas on.
	 */
	u32 workload;
	u32 preferred;
	u32 accessed_by;
	struct mvgal_mirror mirror;
	u16 mirror_set;
	/*
	 * Sessions begun; the first and every MVGAL_TOUCH_SAMPLE-th after
	 * it leave the chunks they named as MVGAL_CB_TOUCHED bits: what a
	 * prefetch brings. Under @lock.
	 */
	u64 begins;
	/*
	 * Sessions per GPU, and the GPU whose node the pages follow
	 * (mvgal_numa.c); under @lock. @nid is the node new pages come from.
	 */
	u32 uses[MVGAL_MAX_GPUS];
	u32 nid_gpu;
	bool numa_pending;	/* pages are to move to @nid */
	struct work_struct numa_work;
	/*
	 * Write-watch (mvgal_watch.c), under @lock: how many chunks the CPU
	 * wrote since HARVEST reset the record (MVGAL_CB_WRITTEN), and since
	 * the chunk states took the writes in (MVGAL_CB_PENDING).
	 */
	unsigned long nwritten;
	unsigned long npending;
	/* Chunks refused for good after a hand-off (MVGAL_CB_REFUSED);
	 * hand-offs seen.
	 */
	unsigned long nrefused;
	u64 handoffs;
	/* GPUs (bits) whose driver imports the buffer's dma-buf, and GPUs
	 * that were asked; under @lock.
	 */
	u16 host_ok;
	u16 host_probed;
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

/* Host page @idx if it exists yet, else NULL. */
static inline struct page *mvgal_bo_page_at(struct mvgal_bo *bo,
					    unsigned long idx)
{
	return xa_load(&bo->pages, idx);
}

extern const struct drm_gem_object_funcs mvgal_bo_funcs;

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

/* Does live session @l name chunk @c? */
static inline bool mvgal_live_has(const struct mvgal_live *l, unsigned long c)
{
	return c - l->base < l->n && test_bit(c - l->base, l->chunks);
}

/* Does live session @l name any chunk of [first, last]? */
static inline bool mvgal_live_any(const struct mvgal_live *l,
				  unsigned long first, unsigned long last)
{
	unsigned long lo = max(first, l->base);
	unsigned long hi = min(last, l->base + l->n - 1);

	return lo <= hi &&
	       find_next_bit(l->chunks, hi - l->base + 1, lo - l->base) <=
	       hi - l->base;
}

void mvgal_bo_coherence_init(struct mvgal_bo *bo);
void mvgal_session_settle(struct mvgal_bo *bo);
unsigned long mvgal_next_missing(struct mvgal_bo *bo, unsigned long c,
				 unsigned long last, unsigned int dst);
void mvgal_session_commits_free(struct mvgal_bo *bo);

void mvgal_bo_lock_init(struct mvgal_bo *bo);
struct mvgal_bo *mvgal_bo_lookup(struct drm_file *file, u32 handle);
struct mvgal_bo *mvgal_bo_lookup_access(struct drm_file *file, u32 handle,
					bool write, int *err);

/* mvgal_ro.c: read-only handles on a buffer. */
struct drm_gem_object *mvgal_ro_create(struct mvgal_bo *bo,
				       struct dma_buf *dmabuf);
struct mvgal_bo *mvgal_ro_target(struct drm_gem_object *obj);
s64 mvgal_ro_mmap_offset(struct drm_file *file, u32 handle);
int mvgal_bo_populate(struct mvgal_bo *bo);
void mvgal_bo_track(struct mvgal_bo *bo);
int mvgal_ioctl_bo_list(struct drm_device *dev, void *data,
			struct drm_file *file);

/* mvgal_prime.c */
struct dma_buf *mvgal_bo_export(struct drm_gem_object *obj, int flags);
void mvgal_dmabuf_sync_attachments(struct dma_buf *dmabuf,
				   enum dma_data_direction dir, bool begin);
struct sg_table *mvgal_bo_get_sg_table(struct drm_gem_object *obj);
int mvgal_bo_pin(struct drm_gem_object *obj);
struct drm_gem_object *mvgal_gem_prime_import(struct drm_device *dev,
					      struct dma_buf *dmabuf);

int mvgal_ioctl_bo_create(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_bo_info(struct drm_device *dev, void *data,
			struct drm_file *file);
int mvgal_ioctl_bo_pwrite(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_bo_pread(struct drm_device *dev, void *data,
			 struct drm_file *file);
int mvgal_ioctl_bo_copy(struct drm_device *dev, void *data,
			struct drm_file *file);

/* Staging copies move through bounce buffers of this size. */
#define MVGAL_BOUNCE_SIZE	(64 * 1024)

/* mvgal_place.c: where each location's copy is, and moving it. */
struct mvgal_view {
	struct xarray *pages;	/* host pages, or NULL: @map */
	struct iosys_map map;
	u64 base;
};

bool mvgal_bo_view(struct mvgal_bo *bo, unsigned int loc,
		   struct mvgal_view *v);
void mvgal_view_rw(struct mvgal_view *v, u64 off, void *buf, size_t len,
		   bool write);
int mvgal_view_transfer(struct mvgal_view *d, struct mvgal_view *s, u64 off,
			u64 len, unsigned int method, void *bounce);
int mvgal_loc_copy(struct mvgal_bo *bo, unsigned int dst, unsigned int src,
		   u64 off, u64 len, unsigned int method, void *bounce);
int mvgal_bo_populate_range(struct mvgal_bo *bo, u64 off, u64 len);
int mvgal_place_get(struct mvgal_bo *bo, struct mvgal_gpu *gpu);
int mvgal_cpu_access(struct mvgal_bo *bo, u64 off, void *buf, size_t len,
		     bool write);
/* How a CPU access goes: see mvgal_cpu_ready(). */
#define MVGAL_CPU_FAULT	BIT(0)
#define MVGAL_CPU_WHOLE	BIT(1)
int mvgal_cpu_prepare(struct mvgal_bo *bo, u64 off, u64 len, bool write,
		      unsigned int how);
int mvgal_cpu_ready(struct mvgal_bo *bo, u64 off, u64 len, bool write,
		    unsigned int how);
void mvgal_cpu_wrote(struct mvgal_bo *bo, u64 off, u64 len, bool fault);
void mvgal_bo_zap(struct mvgal_bo *bo, unsigned long first,
		  unsigned long last);
int mvgal_place_drain(struct mvgal_bo *bo, unsigned int gidx, bool dying);
bool mvgal_live_conflict(struct mvgal_bo *bo, unsigned long first,
			 unsigned long last, bool write);
int mvgal_plan_fetch(struct mvgal_job *job, struct mvgal_bo *bo,
		     unsigned long first, unsigned long last, unsigned int dst);
void mvgal_chunks_written(struct mvgal_bo *bo, unsigned long first,
			  unsigned long last, unsigned int loc);
struct page *mvgal_bo_page(struct mvgal_bo *bo, unsigned long idx);
struct page **mvgal_bo_page_array(struct mvgal_bo *bo);
int mvgal_bo_access_locked(struct mvgal_bo *bo, u64 offset, void *buf,
			   size_t len, bool write);
int mvgal_ioctl_place_free(struct drm_device *dev, void *data,
			   struct drm_file *file);
void mvgal_resv_boost(struct mvgal_bo *bo, enum dma_resv_usage usage);
int mvgal_loc_node(struct mvgal_bo *bo, unsigned int loc);
int mvgal_bo_lock_copies(struct mvgal_bo *bo);
void mvgal_bo_unlock_copies(struct mvgal_bo *bo);

/* mvgal_evict.c */
void mvgal_place_touch(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
		       unsigned int loc);
int mvgal_place_get_for(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
			u64 keep_ahead);

/* mvgal_policy.c */
void mvgal_policy_read(struct mvgal_bo *bo, unsigned int gpu, bool remote);
void mvgal_policy_write(struct mvgal_bo *bo);
bool mvgal_policy_replicas(struct mvgal_bo *bo, unsigned int gpu,
			   const struct mvgal_live *l);
void mvgal_policy_begun(struct mvgal_bo *bo, const struct mvgal_live *l);

/* Sessions a buffer's touched chunks are sampled from: one in this many. */
#define MVGAL_TOUCH_SAMPLE	16
int mvgal_ioctl_replicate(struct drm_device *dev, void *data,
			  struct drm_file *file);
int mvgal_ioctl_advise(struct drm_device *dev, void *data,
		       struct drm_file *file);

/* mvgal_numa.c */
void mvgal_numa_init(struct mvgal_bo *bo);
void mvgal_numa_use(struct mvgal_bo *bo, struct mvgal_gpu *gpu);
void mvgal_numa_kick(struct mvgal_bo *bo);

/* mvgal_prefetch.c */
void mvgal_prefetch_access(struct mvgal_gpu *gpu, struct mvgal_bo *bo,
			   unsigned int loc, bool last);

/* mvgal_watch.c */
void mvgal_watch_mark(struct mvgal_bo *bo, unsigned long first,
		      unsigned long last, bool pending);
bool mvgal_watch_writable(struct mvgal_bo *bo, unsigned long c);
void mvgal_watch_end(struct mvgal_bo *bo, struct mvgal_live *l,
		     unsigned int loc, unsigned long *written);
void mvgal_watch_drop(struct mvgal_bo *bo, struct mvgal_live *l,
		      const unsigned long *staged, const unsigned long *written);
bool mvgal_live_uses(struct mvgal_bo *bo, struct mvgal_live *self,
		     unsigned long c, unsigned int loc);
void mvgal_watch_fold(struct mvgal_bo *bo);
int mvgal_ioctl_harvest(struct drm_device *dev, void *data,
			struct drm_file *file);

#endif /* MVGAL_BO_H */
