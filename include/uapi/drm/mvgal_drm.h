/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * mvgal: multi-GPU unified memory, the ioctl ABI.
 *
 * Rules every ioctl follows, so that the ABI can grow without breaking
 * old binaries: only fixed-size types, explicit padding that must be
 * zero, a flags field whose unknown bits are rejected with -EINVAL, and
 * no output written when the input is rejected.
 *
 * The argument struct of an ioctl with results (DRM_IOWR) that the
 * caller cannot write to (read-only or unmapped) is -EFAULT before the
 * call does anything: no buffer, job, session or fd is made (BEGIN
 * checks each access it writes back too). A struct another thread
 * unmaps while the call runs may lose the results of a call that took
 * effect; BEGIN then undoes its session and fd, though the copies it
 * queued still run (they move bytes, they change none).
 *
 * An ioctl's argument struct grows at its end: the DRM core zero-extends
 * the struct an older binary passes, so every new field means "as
 * before" when 0. An array of structs the caller points to comes with an
 * element stride (see "array strides").
 */
#ifndef _UAPI_MVGAL_DRM_H_
#define _UAPI_MVGAL_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * MVGAL_ABI_VERSION - version of this ABI; bumped when the layout of an
 * argument struct changes in a way an older binary would misread (new
 * ioctls and flags are announced through capability bits instead). A
 * struct that only grows at its end keeps the version: the DRM core
 * zero-fills what a shorter caller's struct lacks and drops what a
 * longer one's has beyond, and each new field says what an older module
 * leaves there.
 *
 * Version 2: every array of structs is passed with an element stride
 * (&drm_mvgal_bo_list.stride, &drm_mvgal_get_heap.stride,
 * &drm_mvgal_pool_lru.stride, &drm_mvgal_harvest.stride,
 * &drm_mvgal_begin.stride, &drm_mvgal_end.stride), taking padding where
 * there was some and growing the struct at its end otherwise; a stride
 * of 0 is the element's version 1 size, so binaries built for version 1
 * work unchanged. &drm_mvgal_gpu_attach's fds became __s32. The replica
 * limit of graphics workloads left the ABI (module parameter
 * graphics_replicate_max).
 */
#define MVGAL_ABI_VERSION	2

/**
 * DOC: array strides
 *
 * Where an ioctl takes a user pointer to an array of structs, a stride
 * field gives the distance in bytes from one element to the next, so
 * that a binary built against a later header, whose elements are larger,
 * and one built against an earlier header, whose elements are smaller,
 * both work. A stride of 0 means the element's size in ABI version 1
 * (MVGAL_*_SIZE_V1). A stride below that size, or above
 * MVGAL_STRIDE_MAX, is -EINVAL.
 *
 * Output: each element gets the first min(stride, size the kernel knows)
 * bytes; the bytes of a larger element beyond what the kernel knows are
 * cleared. Input: bytes beyond what the kernel knows must be zero, else
 * -E2BIG (a newer binary asked for something this kernel cannot do);
 * fields the caller's smaller element lacks read as 0.
 */
#define MVGAL_STRIDE_MAX		4096
/* Element sizes of ABI version 1: what a stride of 0 stands for. */
#define MVGAL_BO_ENTRY_SIZE_V1		448
#define MVGAL_HEAP_REGION_SIZE_V1	56
#define MVGAL_LRU_ENTRY_SIZE_V1		40
#define MVGAL_HARVEST_ENTRY_SIZE_V1	32
#define MVGAL_ACCESS_SIZE_V1		32

/** MVGAL_MAX_GPUS - the most GPUs that can be attached at once. */
#define MVGAL_MAX_GPUS		8

/**
 * DOC: capability bits
 *
 * Reported in &drm_mvgal_get_info.caps. A bit is set only when the
 * feature works on this module and machine now: it follows the module
 * parameters and the attached GPUs, so read it again after changing them.
 *
 * MVGAL_CAP_SYNCOBJ: the standard DRM syncobj ioctls are available on
 * the mvgal node.
 * MVGAL_CAP_GPU_ATTACH: GPUs and their pools can be attached
 * (GPU_ATTACH/DETACH/INFO/LINK, GET_HEAP).
 */
#define MVGAL_CAP_SYNCOBJ		(1ULL << 0)
#define MVGAL_CAP_GPU_ATTACH		(1ULL << 1)
/*
 * MVGAL_CAP_SESSIONS: access sessions (BEGIN/END), chunk residency in
 * &drm_mvgal_bo_info, PLACE_FREE.
 * MVGAL_CAP_MIGRATION: data moves on request (MIGRATE, REPLICATE, ADVISE with
 * MVGAL_ADVISE_APPLY, prefetch); clear while the module parameter
 * enable_memory_migration is off, when those return -EPERM.
 * MVGAL_CAP_WRITE_WATCH: CPU writes are tracked per chunk (HARVEST), and
 * a BEGIN copies only what the CPU wrote since the GPU's copy was made.
 * MVGAL_CAP_EVICTION: pools have budgets (GPU_BUDGET) and full pools evict
 * placements (POOL_LRU).
 * MVGAL_CAP_PLACE_FD: placement exports (PLACE_FD): a dma-buf of a
 * buffer's copy in one GPU's pool, for any process to hand to its GPU API.
 * Set while enable_dmabuf is on and some attached GPU has a pool its
 * driver does not move (a movable pool's PLACE_FD is -EOPNOTSUPP).
 * MVGAL_CAP_URING: io_uring commands (see "io_uring commands").
 * MVGAL_CAP_SYNC_SYNCOBJS: BEGIN, END and MIGRATE wait for and signal
 * syncobjs (see "syncobjs"); a module without it ignores those fields.
 * MVGAL_CAP_PLACE_ADOPT: a driver buffer can be lent as a placement
 * (PLACE_ADOPT); clear while enable_dmabuf is off.
 * MVGAL_CAP_STATS: the migration engine's reports and controls (GET_STATS,
 * GET_PATH, CALIBRATE, CANCEL), whether or not data may move. Modules
 * before this bit reported them with MVGAL_CAP_MIGRATION.
 */
#define MVGAL_CAP_SESSIONS		(1ULL << 2)
#define MVGAL_CAP_MIGRATION		(1ULL << 3)
#define MVGAL_CAP_WRITE_WATCH		(1ULL << 4)
#define MVGAL_CAP_EVICTION		(1ULL << 5)
#define MVGAL_CAP_PLACE_FD		(1ULL << 6)
#define MVGAL_CAP_URING			(1ULL << 7)
#define MVGAL_CAP_SYNC_SYNCOBJS		(1ULL << 8)
#define MVGAL_CAP_PLACE_ADOPT		(1ULL << 9)
#define MVGAL_CAP_STATS			(1ULL << 10)
/*
 * MVGAL_CAP_MARK_OVERWRITE: BO_MARK takes MVGAL_MARK_OVERWRITE (a module
 * without it says -EINVAL: the writes then fetch as before, nothing else
 * changes).
 */
#define MVGAL_CAP_MARK_OVERWRITE	(1ULL << 11)
/*
 * MVGAL_CAP_USERPTR_MIRROR: BO_USERPTR takes MVGAL_USERPTR_MIRROR (user
 * memory followed without a pin); a module without it says -EINVAL.
 */
#define MVGAL_CAP_USERPTR_MIRROR	(1ULL << 12)
/*
 * MVGAL_CAP_MARK_HOME_HELD: BO_MARK takes MVGAL_MARK_HOME_HELD (a module
 * without it says -EINVAL); libmvgal's write-watch of mirrors needs it.
 */
#define MVGAL_CAP_MARK_HOME_HELD	(1ULL << 13)

/**
 * DOC: core settings
 *
 * The [core] settings in effect (module parameters), reported in
 * &drm_mvgal_get_info.core_flags.
 *
 * MVGAL_CORE_MEMORY_MIGRATION: enable_memory_migration is set.
 * MVGAL_CORE_DMABUF: enable_dmabuf is set.
 */
#define MVGAL_CORE_MEMORY_MIGRATION	(1U << 0)
#define MVGAL_CORE_DMABUF		(1U << 1)

/**
 * struct drm_mvgal_get_info - DRM_IOCTL_MVGAL_GET_INFO
 *
 * Describes the module: ABI, capabilities and settings. Read-only.
 */
struct drm_mvgal_get_info {
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @pad: (in) must be 0. */
	__u32 pad;
	/** @caps: (out) MVGAL_CAP_* bits. */
	__u64 caps;
	/** @abi_version: (out) MVGAL_ABI_VERSION of the module. */
	__u32 abi_version;
	/** @chunk_size: (out) coherence granule in bytes, a power of two. */
	__u32 chunk_size;
	/** @gpu_count: (out) GPUs attached now. */
	__u32 gpu_count;
	/** @max_gpus: (out) slots for GPUs (module parameter max_gpus). */
	__u32 max_gpus;
	/** @core_flags: (out) MVGAL_CORE_* bits. */
	__u32 core_flags;
	/** @stats_interval: (out) seconds between statistics samples. */
	__u32 stats_interval;
};

/**
 * MVGAL_GPU_ANY - in &drm_mvgal_gpu_attach.gpu: the lowest free slot.
 * In &drm_mvgal_heap_region.gpu: the region is not a GPU pool.
 */
#define MVGAL_GPU_ANY		0xffffffffU

/** MVGAL_NUMA_NONE - the device has no NUMA affinity (dev_to_node() < 0). */
#define MVGAL_NUMA_NONE		0xffffffffU

/* &drm_mvgal_gpu_info.bus */
#define MVGAL_BUS_PLATFORM	0	/* not on a PCI bus (e.g. vgem) */
#define MVGAL_BUS_PCI		1

/*
 * &drm_mvgal_gpu_info.state: active while its pool holds allocations;
 * gone once its device was unplugged (driver unbound, device removed):
 * every new use of it (BEGIN, MIGRATE or REPLICATE to it, a buffer for it,
 * POOL_FD, PLACE_FD) is then -ENODEV, while what its pool still holds can be taken
 * home (CPU access, PLACE_FREE, GPU_DETACH), as far as the pool's memory
 * can still be read.
 */
#define MVGAL_GPU_IDLE		0
#define MVGAL_GPU_ACTIVE	1
#define MVGAL_GPU_GONE		2

/* Length of the strings in &drm_mvgal_gpu_info, NUL included. */
#define MVGAL_NAME_LEN		32

/**
 * struct drm_mvgal_gpu_attach - DRM_IOCTL_MVGAL_GPU_ATTACH
 *
 * Attaches a GPU and the pool of its memory it lends to mvgal. Needs
 * CAP_SYS_ADMIN: the pool stays readable by whoever allocated it, so only
 * the system may lend one. Errors: -EPERM without the capability; -EBADF
 * for a closed or negative fd; -EINVAL for an fd that is not a DRM device (or is
 * mvgal's own), a pool fd that is not a dma-buf or not memory of that GPU,
 * a bad slot, non-zero flags; -EEXIST when the GPU is attached already;
 * -EBUSY when the requested slot is taken; -ENOSPC when every slot is;
 * -E2BIG when the pool is larger than the module parameter max_pool_mb;
 * -ENXIO when the pool's driver will not share the buffer with the GPU's
 * own device (its dma-buf attach or map failed: its rules for sharing,
 * see "pool memory"; the kernel log gives its errno); -EOPNOTSUPP when
 * the kernel cannot map the pool for CPU copies.
 */
struct drm_mvgal_gpu_attach {
	/**
	 * @drm_fd: (in) an open fd of the GPU's DRM node, card or render.
	 * Where the pool will follow its driver's moves (see "pool
	 * memory"), mvgal keeps its file open and a handle of the pool in
	 * it until the GPU is detached: pass a file of its own (libmvgal
	 * opens the render node).
	 */
	__s32 drm_fd;
	/** @pool_fd: (in) a dma-buf allocated through that GPU's driver. */
	__s32 pool_fd;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @gpu: (in) slot to use, or MVGAL_GPU_ANY; (out) the slot used. */
	__u32 gpu;
};

/**
 * struct drm_mvgal_gpu_detach - DRM_IOCTL_MVGAL_GPU_DETACH
 *
 * Needs CAP_SYS_ADMIN. Errors: -EPERM, -EINVAL (slot out of range,
 * non-zero flags), -ENODEV (nothing attached there), -EBUSY (its pool
 * still holds allocations).
 */
struct drm_mvgal_gpu_detach {
	/** @gpu: (in) the slot. */
	__u32 gpu;
	/** @flags: (in) must be 0. */
	__u32 flags;
};

/**
 * struct drm_mvgal_gpu_info - DRM_IOCTL_MVGAL_GPU_INFO
 *
 * Identity and state of one attached GPU, as the kernel knows them.
 * Errors: -EINVAL (slot out of range, non-zero flags), -ENODEV.
 */
struct drm_mvgal_gpu_info {
	/** @gpu: (in) the slot. */
	__u32 gpu;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @bus: (out) MVGAL_BUS_*. */
	__u32 bus;
	/** @numa_node: (out) dev_to_node() of the device, or MVGAL_NUMA_NONE. */
	__u32 numa_node;
	/** @pci_vendor: (out) PCI vendor id; 0 off PCI. */
	__u32 pci_vendor;
	/** @pci_device: (out) PCI device id; 0 off PCI. */
	__u32 pci_device;
	/** @pci_subvendor: (out) PCI subsystem vendor id; 0 off PCI. */
	__u32 pci_subvendor;
	/** @pci_subdevice: (out) PCI subsystem device id; 0 off PCI. */
	__u32 pci_subdevice;
	/** @state: (out) MVGAL_GPU_IDLE or MVGAL_GPU_ACTIVE. */
	__u32 state;
	/** @pad: (out) 0. */
	__u32 pad;
	/** @state_changes: (out) idle/active transitions since attach. */
	__u64 state_changes;
	/** @pool_size: (out) bytes the GPU lent. */
	__u64 pool_size;
	/** @pool_used: (out) bytes allocated from the pool. */
	__u64 pool_used;
	/** @pool_allocations: (out) live allocations in the pool. */
	__u64 pool_allocations;
	/** @driver: (out) the DRM driver's name. */
	char driver[MVGAL_NAME_LEN];
	/** @slot: (out) PCI slot ("0000:41:00.0") or device name off PCI. */
	char slot[MVGAL_NAME_LEN];
	/** @root: (out) PCI host bridge ("pci0000:40"); empty off PCI. */
	char root[MVGAL_NAME_LEN];
	/**
	 * @pool_memory: (out) where the pool's bytes are now:
	 * MVGAL_POOL_MEMORY_* (see "pool memory").
	 */
	__u32 pool_memory;
	/** @pool_flags: (out) how mvgal holds the pool: MVGAL_POOL_*. */
	__u32 pool_flags;
	/** @pool_moves: (out) times the pool's driver moved it since attach. */
	__u64 pool_moves;
	/**
	 * @render_major: (out) with @render_minor, the GPU's render node as
	 * stat() reports its st_rdev (and VK_EXT_physical_device_drm its
	 * renderMajor and renderMinor); 0:0 when it has none. An older
	 * module leaves these six fields 0.
	 */
	__u32 render_major;
	/** @render_minor: (out) see @render_major. */
	__u32 render_minor;
	/** @primary_major: (out) the GPU's primary (card) node; 0:0 none. */
	__u32 primary_major;
	/** @primary_minor: (out) see @primary_major. */
	__u32 primary_minor;
	/** @executor: (out) 1 while a copy executor serves the GPU. */
	__u32 executor;
	/** @pad2: (out) 0. */
	__u32 pad2;
};

/**
 * DOC: pool memory
 *
 * A GPU lends mvgal a buffer of its own driver's; mvgal attaches it as an
 * importer that allows peer-to-peer and follows moves, so that a driver
 * that can keep the buffer in its device memory may. Many cannot: a
 * driver that shares device memory only over peer-to-peer (amdgpu, xe)
 * needs CONFIG_PCI_P2PDMA to find the path and CONFIG_DMABUF_MOVE_NOTIFY
 * not to pin the buffer, both off in Debian's kernels, and otherwise moves
 * the buffer to system memory or refuses; some drivers always move it
 * (i915, nouveau). GPU_INFO says what came of it, never what was asked:
 *
 * MVGAL_POOL_MEMORY_SYSTEM: system RAM (the kernel mapping is ordinary
 * memory): the driver's buffer was there, or the driver moved it there
 * to share it.
 * MVGAL_POOL_MEMORY_DEVICE: device memory behind a PCI BAR, mapped as I/O
 * memory: CPU writes stream, CPU reads are slow (the cost model reads it
 * once through a bounce buffer).
 * MVGAL_POOL_MEMORY_UNMAPPED: the driver moved the buffer and mvgal has
 * not mapped it again yet (or could not: accesses fail with -EIO).
 *
 * MVGAL_POOL_PEER2PEER: the driver granted peer-to-peer access to the
 * buffer where it is. MVGAL_POOL_MOVABLE: the driver may move the buffer;
 * mvgal waits for its CPU copies, maps it again, and counts @pool_moves.
 * mvgal lets a driver move its pool only with the module parameter
 * movable_pools set; otherwise it pins a pool the driver could move (an
 * amdgpu-like driver then keeps it in system memory).
 *
 * A driver tells importers of a move only while its buffer has a GEM
 * handle somewhere (TTM drivers reach the dma-buf through the object,
 * which loses it with its last handle), and the process that made the
 * pool does not keep one. So to follow moves mvgal makes a handle of the
 * pool in the file of &drm_mvgal_gpu_attach.drm_fd and keeps that file
 * open until the GPU is detached. It does not keep a DRM master's file
 * (the display server would lose the master): such a pool is pinned, as
 * is one no handle could be made for (the kernel log says why).
 */
#define MVGAL_POOL_MEMORY_SYSTEM	1
#define MVGAL_POOL_MEMORY_DEVICE	2
#define MVGAL_POOL_MEMORY_UNMAPPED	3

#define MVGAL_POOL_PEER2PEER	(1U << 0)
#define MVGAL_POOL_MOVABLE	(1U << 1)

/**
 * DOC: transfer methods
 *
 * Bit numbers in &drm_mvgal_gpu_link.methods, indexes of
 * &drm_mvgal_gpu_link.reasons, values of &drm_mvgal_gpu_link.chosen:
 *
 * MVGAL_METHOD_IN_PLACE: the destination GPU's driver imports the source
 * pool and uses the data where it is (zero-copy).
 * MVGAL_METHOD_P2P: a DMA engine that reaches both pools copies.
 * MVGAL_METHOD_CPU_COPY: the CPU copies between the two kernel mappings.
 * MVGAL_METHOD_STAGING: the CPU copies through a host bounce buffer on
 * the destination's NUMA node.
 */
#define MVGAL_METHOD_IN_PLACE	0
#define MVGAL_METHOD_P2P	1
#define MVGAL_METHOD_CPU_COPY	2
#define MVGAL_METHOD_STAGING	3
#define MVGAL_METHOD_COUNT	4
/*
 * MVGAL_METHOD_EXEC: the GPU's own copy engine, driven by a userspace
 * executor (see "copy executors"). It has no entry in the per-method
 * arrays, which are MVGAL_METHOD_COUNT long forever; its figures are in
 * fields of their own.
 */
#define MVGAL_METHOD_EXEC	4
#define MVGAL_METHOD_NONE	0xffffffffU

/* Why a method is not possible: &drm_mvgal_gpu_link.reasons[]. */
#define MVGAL_REASON_OK			0
#define MVGAL_REASON_IMPORT_REFUSED	1 /* see import_error */
#define MVGAL_REASON_NO_DMA_ENGINE	2 /* no memcpy dmaengine channel */
#define MVGAL_REASON_NO_CPU_MAPPING	3 /* a pool has no kernel mapping */
#define MVGAL_REASON_NO_P2P_COPIER	4 /* an engine exists; it does not reach both pools */
#define MVGAL_REASON_P2P_MISMATCH	5 /* its calibration copy came out wrong */
#define MVGAL_REASON_P2P_UNCHECKED	6 /* no calibration checked its copy yet */
#define MVGAL_REASON_COUNT		7

/* Why the chosen method was chosen: &drm_mvgal_gpu_link.why. */
#define MVGAL_WHY_NONE		0 /* no method possible */
#define MVGAL_WHY_IMPORTS	1 /* the driver uses the memory in place */
#define MVGAL_WHY_DMA_ENGINE	2 /* a DMA engine copies, the CPU is free */
#define MVGAL_WHY_CPU_DIRECT	3 /* the source reads fast: the CPU copies directly */
#define MVGAL_WHY_IOMEM_SOURCE	4 /* source is I/O memory: read it once */
#define MVGAL_WHY_COUNT		5

/* &drm_mvgal_gpu_link.link_flags */
#define MVGAL_LINK_SAME_ROOT	(1U << 0) /* same PCI host bridge */
#define MVGAL_LINK_SAME_NUMA	(1U << 1) /* same known NUMA node */
#define MVGAL_LINK_DMA_ENGINE	(1U << 2) /* a memcpy DMA engine exists */

/**
 * struct drm_mvgal_gpu_link - DRM_IOCTL_MVGAL_GPU_LINK
 *
 * How data in GPU @src's pool reaches GPU @dst, probed at attach time.
 * Errors: -EINVAL (slot out of range, @src == @dst, non-zero flags),
 * -ENODEV (a slot is empty).
 */
struct drm_mvgal_gpu_link {
	/** @src: (in) the GPU whose pool holds the data. */
	__u32 src;
	/** @dst: (in) the GPU that needs it. */
	__u32 dst;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @link_flags: (out) MVGAL_LINK_*. */
	__u32 link_flags;
	/** @methods: (out) bit MVGAL_METHOD_x set when method x is possible. */
	__u32 methods;
	/** @chosen: (out) the method used, or MVGAL_METHOD_NONE. */
	__u32 chosen;
	/** @why: (out) MVGAL_WHY_* for @chosen. */
	__u32 why;
	/** @import_error: (out) errno of @dst's driver import, 0 if it imports. */
	__u32 import_error;
	/** @reasons: (out) MVGAL_REASON_* per method. */
	__u32 reasons[MVGAL_METHOD_COUNT];
};

/* &drm_mvgal_heap_region.kind */
#define MVGAL_REGION_SYSTEM	0	/* all system RAM */
#define MVGAL_REGION_POOL	1	/* one GPU's pool */
#define MVGAL_REGION_NODE	2	/* the RAM of one NUMA node */

/**
 * struct drm_mvgal_heap_region - one region of the unified heap
 */
struct drm_mvgal_heap_region {
	/** @kind: (out) MVGAL_REGION_*. */
	__u32 kind;
	/** @gpu: (out) the GPU of a pool, else MVGAL_GPU_ANY. */
	__u32 gpu;
	/** @numa_node: (out) node of a NODE region or of a pool's GPU. */
	__u32 numa_node;
	/** @pad: (out) 0. */
	__u32 pad;
	/** @total: (out) bytes. */
	__u64 total;
	/** @used: (out) bytes. */
	__u64 used;
	/** @free: (out) bytes. */
	__u64 free;
	/** @largest_free: (out) largest free contiguous range (pools only). */
	__u64 largest_free;
	/** @held: (out) bytes of the region that mvgal buffers hold now. */
	__u64 held;
	/**
	 * @memory: (out) where the region's bytes are: MVGAL_POOL_MEMORY_*
	 * (see "pool memory"), as &drm_mvgal_gpu_info.pool_memory for a
	 * pool; MVGAL_POOL_MEMORY_SYSTEM for system RAM and its nodes. Past
	 * MVGAL_HEAP_REGION_SIZE_V1: a stride of 0 does not get it, and an
	 * older module leaves 0.
	 */
	__u32 memory;
	/**
	 * @pool_flags: (out) MVGAL_POOL_* of a pool, as
	 * &drm_mvgal_gpu_info.pool_flags; 0 for other regions.
	 */
	__u32 pool_flags;
};

/**
 * struct drm_mvgal_get_heap - DRM_IOCTL_MVGAL_GET_HEAP
 *
 * Region 0 is system RAM, regions 1..N the attached GPUs' pools in slot
 * order; @nodes gets system RAM per online NUMA node. Figures come from
 * the kernel's page counters and the pools' range allocators. When a
 * capacity is smaller than the count, that many entries are written and
 * the count tells how many exist. Errors: -EINVAL (non-zero flags, a bad
 * @stride), -EFAULT (nothing written).
 */
struct drm_mvgal_get_heap {
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @num_regions: (in) capacity of @regions; (out) regions that exist. */
	__u32 num_regions;
	/** @regions: (in) user pointer to &struct drm_mvgal_heap_region[]. */
	__u64 regions;
	/** @num_nodes: (in) capacity of @nodes; (out) online NUMA nodes. */
	__u32 num_nodes;
	/**
	 * @stride: (in) bytes from one element of @regions and of @nodes to
	 * the next; 0: MVGAL_HEAP_REGION_SIZE_V1 (see "array strides").
	 */
	__u32 stride;
	/** @nodes: (in) user pointer to &struct drm_mvgal_heap_region[]. */
	__u64 nodes;
};

/**
 * DOC: buffer metadata
 *
 * A buffer's per-chunk records (where each chunk's bytes are, the
 * write-watch, refusals and advice) are made as its chunks are first
 * written or placed, 1024 chunks at a time, not when it is created: a
 * lazily allocated buffer costs what was touched of it. Every call that
 * writes or places chunks no call touched before may therefore fail with
 * -ENOMEM, or with -EDQUOT once the buffers of the file that created the
 * buffer hold max_file_meta_mb of metadata (BO_CREATE counts the buffer
 * itself there too): BEGIN (the chunks it names), MIGRATE, REPLICATE,
 * ADVISE (a read-mostly range), BO_PWRITE, the destination of BO_COPY, a
 * dma-buf's CPU write access. Such a call changes nothing; a CPU write
 * fault that cannot have them gets SIGBUS. Reads make no records.
 * Imported buffers are charged to their importer's memory cgroup, not to
 * a file's allowance. Placement exports count against the allowance of
 * the file that makes them (see &struct drm_mvgal_place_fd).
 */

/**
 * DOC: buffer flags
 *
 * &drm_mvgal_bo_create.flags. The MVGAL flag set, each with one effect:
 *
 * MVGAL_BO_HOST_VALID: the buffer has host storage and may be mapped by
 * the CPU (mmap through the GEM mmap offset). Without it the buffer is
 * device-only: it lives in one GPU's pool, mmap is -EINVAL, and data
 * moves only through ranged copies.
 * MVGAL_BO_GPU_VALID: GPUs may use the buffer: required for a device-only
 * buffer, for any device to attach the buffer's dma-buf, and for any
 * session, migration, replica, advice or placement export on a GPU
 * (-EPERM without it).
 * MVGAL_BO_CPU_CACHED: CPU mappings are cached. This is the default: the
 * flag changes nothing on its own; it exists to be said explicitly, and
 * to be refused together with CPU_UNCACHED.
 * MVGAL_BO_CPU_UNCACHED: the host pages are write-combined, in CPU
 * mappings and in the kernel's own; with CPU_CACHED it is -EINVAL.
 * MVGAL_BO_SHARED: GPUs other than the buffer's own may attach its
 * dma-buf. Without it only the device of the GPU the buffer is for may
 * (and none, for a buffer made for no GPU). Likewise sessions,
 * migrations, replicas, advice and placement exports on a GPU other
 * than the one a buffer was made for are -EPERM without it; a buffer
 * made for no GPU (MVGAL_GPU_ANY) is for any GPU there.
 * MVGAL_BO_P2P: a device-only buffer may be reached in place by a peer:
 * its dma-buf exports the pool memory itself (where the pool has struct
 * pages; -EOPNOTSUPP otherwise). Without it a device-only buffer cannot
 * be exported (-EPERM).
 * MVGAL_BO_REPLICATED: READ sessions copy the buffer into the reading
 * GPU's own pool rather than use another GPU's copy in place: every GPU
 * that reads it keeps a read-only replica, which writes invalidate (see
 * DRM_IOCTL_MVGAL_ADVISE, read-mostly).
 * MVGAL_BO_PERSISTENT: the buffer's placements in GPU pools are never
 * evicted to make room for others (see DRM_IOCTL_MVGAL_POOL_LRU).
 * MVGAL_BO_DMA_BUF: the buffer may be exported as a dma-buf (PRIME).
 * MVGAL_BO_LAZY_ALLOCATE: no host page exists until it is first touched
 * (CPU fault or copy); without it every page is allocated at creation.
 * MVGAL_BO_ZERO_INITIALIZED: every byte reads 0 until written. Without
 * it, new storage holds the poison byte MVGAL_BO_POISON, so reads of
 * never-written bytes stand out. Either way no buffer ever shows bytes of
 * another.
 */
#define MVGAL_BO_HOST_VALID		(1U << 0)
#define MVGAL_BO_GPU_VALID		(1U << 1)
#define MVGAL_BO_CPU_CACHED		(1U << 2)
#define MVGAL_BO_CPU_UNCACHED		(1U << 3)
#define MVGAL_BO_SHARED			(1U << 4)
#define MVGAL_BO_DMA_BUF		(1U << 5)
#define MVGAL_BO_P2P			(1U << 6)
#define MVGAL_BO_REPLICATED		(1U << 7)
#define MVGAL_BO_PERSISTENT		(1U << 8)
#define MVGAL_BO_LAZY_ALLOCATE		(1U << 9)
#define MVGAL_BO_ZERO_INITIALIZED	(1U << 10)
#define MVGAL_BO_FLAGS			0x7ffU

/** MVGAL_BO_POISON - what never-written bytes hold without ZERO_INITIALIZED. */
#define MVGAL_BO_POISON			0x6b

/** MVGAL_BO_MAX_SIZE - the largest buffer, in bytes (16 GiB). */
#define MVGAL_BO_MAX_SIZE		(16ULL << 30)

/**
 * DOC: sharing modes
 *
 * &drm_mvgal_bo_create.sharing: who may use the buffer's dma-buf
 * (exported with PRIME, which needs MVGAL_BO_DMA_BUF). A device that
 * attaches must also find MVGAL_BO_GPU_VALID set. Refusals are -EPERM,
 * except a second attachment of an EXCLUSIVE buffer: -EBUSY.
 *
 * MVGAL_SHARING_NONE: not shared; export is refused.
 * MVGAL_SHARING_EXCLUSIVE: one device attachment at a time.
 * MVGAL_SHARING_CONCURRENT: any number of attachments, all by devices of
 * the driver of the buffer's GPU.
 * MVGAL_SHARING_CROSS_VENDOR: any number of attachments, any driver.
 * MVGAL_SHARING_DMA_BUF: the dma-buf is shared between processes (mmap,
 * re-import into mvgal) but no device may attach it.
 *
 * The dma-buf file's access mode is kept: importing into mvgal a dma-buf
 * whose file was opened without write access (PRIME without DRM_RDWR,
 * from mvgal or any other driver; the mode is the one of the buffer's
 * first export) gives a read-only handle. Reads, copies out of it, READ
 * sessions and copies to GPUs work; every write path fails with -EACCES:
 * BO_PWRITE, BO_COPY into it, WRITE sessions, MIGRATE with MOVE, ADVISE
 * that changes advice, HARVEST's reset, and an mmap() with PROT_WRITE (a
 * read-only mapping cannot be made writable with mprotect()). The
 * handle of an mvgal buffer so imported is a handle of its own, not the
 * buffer's: BO_INFO gives its own mmap offset.
 */
#define MVGAL_SHARING_NONE		0
#define MVGAL_SHARING_EXCLUSIVE		1
#define MVGAL_SHARING_CONCURRENT	2
#define MVGAL_SHARING_CROSS_VENDOR	3
#define MVGAL_SHARING_DMA_BUF		4
#define MVGAL_SHARING_COUNT		5

/**
 * struct drm_mvgal_bo_create - DRM_IOCTL_MVGAL_BO_CREATE
 *
 * Creates a buffer; GEM_CLOSE destroys it. Errors: -EINVAL (size 0 or
 * above MVGAL_BO_MAX_SIZE, unknown flags, CPU_CACHED with CPU_UNCACHED,
 * neither HOST_VALID nor GPU_VALID, a device-only buffer without a GPU,
 * a GPU slot out of range, an unknown sharing mode, a mode other than NONE
 * without MVGAL_BO_DMA_BUF or DMA_BUF with mode NONE); -ENODEV (no GPU in that
 * slot); -ENOSPC (the GPU's pool cannot hold a device-only buffer);
 * -ENOMEM; -EDQUOT (see "buffer metadata"); -EOPNOTSUPP (CPU_UNCACHED on an architecture without
 * write-combined pages).
 */
struct drm_mvgal_bo_create {
	/** @size: (in) bytes, 1..MVGAL_BO_MAX_SIZE. */
	__u64 size;
	/** @flags: (in) MVGAL_BO_*. */
	__u32 flags;
	/**
	 * @gpu: (in) the GPU the buffer is for: its host pages come from
	 * that GPU's NUMA node, and a device-only buffer lives in its pool.
	 * MVGAL_GPU_ANY: the caller's NUMA node (not for device-only).
	 */
	__u32 gpu;
	/** @handle: (out) GEM handle. */
	__u32 handle;
	/** @sharing: (in) MVGAL_SHARING_*. */
	__u32 sharing;
};

/* Locations in &drm_mvgal_bo_info.resident: 0 = host, 1 + N = GPU N. */
#define MVGAL_LOC_HOST		0
#define MVGAL_LOC_COUNT		(1 + MVGAL_MAX_GPUS)

/**
 * struct drm_mvgal_bo_info - DRM_IOCTL_MVGAL_BO_INFO
 *
 * A buffer's properties and statistics. Errors: -EINVAL (non-zero flags),
 * -ENOENT (no such handle).
 *
 * The byte and access counters count from the buffer's creation and are
 * never reset. A copy between locations (a pool and the host pages, or two pools)
 * moves whole chunks, the last one clipped to @size rounded up to a page,
 * and counts the bytes of each copy that succeeded. Arrays indexed by GPU
 * hold GPU N at index N. A module older than @bytes_to_gpu leaves the
 * fields from there on as they were sent (0 through libmvgal).
 */
struct drm_mvgal_bo_info {
	/** @handle: (in) GEM handle. */
	__u32 handle;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @size: (out) bytes, as created. */
	__u64 size;
	/** @mmap_offset: (out) for mmap() on the DRM fd; 0 if not mappable. */
	__u64 mmap_offset;
	/** @bo_flags: (out) MVGAL_BO_* it was created with. */
	__u32 bo_flags;
	/** @gpu: (out) the GPU it is for, or MVGAL_GPU_ANY. */
	__u32 gpu;
	/**
	 * @numa_node: (out) the node all its host pages are on, as the page
	 * allocator placed them; MVGAL_NUMA_NONE if none or several.
	 */
	__u32 numa_node;
	/** @sharing: (out) MVGAL_SHARING_*. */
	__u32 sharing;
	/**
	 * @bytes_read: (out) bytes the CPU copy ioctls read out of the
	 * buffer: BO_PREAD, and BO_COPY from it. Copies between locations
	 * are in @bytes_from_gpu and @bytes_to_gpu.
	 */
	__u64 bytes_read;
	/**
	 * @bytes_written: (out) bytes the CPU copy ioctls wrote into the
	 * buffer: BO_PWRITE, and BO_COPY into it.
	 */
	__u64 bytes_written;
	/** @access_total: (out) sum of @access_count. */
	__u64 access_total;
	/**
	 * @access_count: (out) accesses per GPU, of every kind:
	 * @session_count, plus @migration_count, plus for a device-only
	 * buffer the CPU copy ioctls that read or wrote its home pool (one
	 * per BO_PREAD or BO_PWRITE, one per end of a BO_COPY).
	 */
	__u64 access_count[MVGAL_MAX_GPUS];
	/** @resident: (out) bytes allocated per location MVGAL_LOC_*. */
	__u64 resident[MVGAL_LOC_COUNT];
	/**
	 * @valid: (out) bytes whose current contents each location holds
	 * (whole chunks, the last one clipped to @size).
	 */
	__u64 valid[MVGAL_LOC_COUNT];
	/** @owned: (out) of those, bytes no other location holds. */
	__u64 owned[MVGAL_LOC_COUNT];
	/** @chunk_size: (out) the coherence granule, bytes. */
	__u64 chunk_size;
	/** @sessions: (out) access sessions live on the buffer now. */
	__u32 sessions;
	/** @pad: (out) 0. */
	__u32 pad;
	/**
	 * @cpu_written: (out) chunks the CPU wrote since HARVEST last reset
	 * the buffer's record.
	 */
	__u64 cpu_written;
	/**
	 * @handoffs: (out) hand-offs: chunks the CPU wrote while a GPU
	 * session used a copy of them.
	 */
	__u64 handoffs;
	/** @refused: (out) chunks refused for good after a hand-off. */
	__u64 refused;
	/** @id: (out) the buffer's id, as BO_LIST and POOL_LRU report it. */
	__u64 id;
	/** @workload: (out) advice: MVGAL_WORKLOAD_* (DRM_IOCTL_MVGAL_ADVISE). */
	__u32 workload;
	/** @preferred: (out) advice: the preferred GPU, or MVGAL_GPU_ANY. */
	__u32 preferred;
	/** @accessed_by: (out) advice: bit N, GPU N accesses it. */
	__u32 accessed_by;
	/**
	 * @mirrored: (out) bit N: the mirror controller has GPU N's READ
	 * sessions keep a replica.
	 */
	__u32 mirrored;
	/** @pinned: (out) bit N: ADVISE pinned its placement on GPU N. */
	__u32 pinned;
	/** @mirror_changes: (out) times the mirror controller started or stopped. */
	__u32 mirror_changes;
	/** @read_mostly: (out) bytes advised read-mostly. */
	__u64 read_mostly;
	/**
	 * @touched: (out) bytes of the chunks the last sampled session
	 * named (the first session, then one in 16): what a prefetch brings.
	 */
	__u64 touched;
	/**
	 * @bytes_to_gpu: (out) per GPU, bytes copied into its pool, by every
	 * copy: a BEGIN's, a migration's (see @migration_count), a CPU
	 * access's bringing chunks home (a device-only buffer's home is a
	 * pool), and the CPU copy ioctls into a device-only buffer. A
	 * session that uses the bytes where they are (in place) copies
	 * nothing.
	 */
	__u64 bytes_to_gpu[MVGAL_MAX_GPUS];
	/**
	 * @bytes_from_gpu: (out) per GPU, bytes copied out of its pool, by
	 * the same copies as @bytes_to_gpu: a BEGIN on another GPU that
	 * copies from this one's pool, and a CPU access that brings chunks
	 * home from it, included.
	 */
	__u64 bytes_from_gpu[MVGAL_MAX_GPUS];
	/**
	 * @session_count: (out) per GPU, sessions BEGIN started on it that
	 * named the buffer: one per BEGIN, whether it copied, used the
	 * bytes in place or found them current (one that went live and was
	 * undone for -EFAULT counts too). A BEGIN's copies count in
	 * @bytes_to_gpu and @bytes_from_gpu only.
	 */
	__u64 session_count[MVGAL_MAX_GPUS];
	/**
	 * @migration_count: (out) per GPU, migrations that copied some of
	 * the buffer's bytes into or out of its pool, once per GPU for each
	 * job of MIGRATE, REPLICATE, ADVISE or prefetch, and each drain of
	 * a placement home (eviction, PLACE_FREE, GPU_DETACH). A job that
	 * copies into GPU 1's pool from GPU 0's counts once for each; one
	 * with nothing to copy counts for none. A CPU access that brings
	 * chunks home is not a migration: only its bytes count.
	 */
	__u64 migration_count[MVGAL_MAX_GPUS];
};

/**
 * struct drm_mvgal_bo_rw - DRM_IOCTL_MVGAL_BO_PWRITE / _PREAD
 *
 * Copies @size bytes between user memory at @user_ptr and the buffer at
 * @offset, wherever the buffer lives. Errors: -EINVAL (non-zero flags,
 * @offset + @size beyond the buffer or overflowing), -ENOENT, -EFAULT,
 * -EBUSY (a live session conflicts), -ENOMEM, -EINTR, and for a write
 * -EDQUOT (see "buffer metadata") and -EACCES (a read-only handle: an
 * import of a dma-buf opened without write access). A failed write changes
 * no byte: the user's memory, the conflicts, the fences and the pages are
 * all dealt with before the first byte moves. A read that fails may have
 * filled part of the user's memory.
 *
 * Staged writes (MVGAL_RW_STAGED, BO_PWRITE only). A write of at most the
 * module parameter max_staged_bytes (64 KiB by default) into chunks that
 * GPU work still uses - a fence pending in the buffer's reservation (a
 * BEGIN's copies, an END's GPU work, a migration, another staged write),
 * or a live READ session reading a GPU's copy of them - does not wait for
 * that work. The bytes are copied into kernel memory before the call
 * returns, so the caller may reuse @user_ptr at once; they are written at
 * home after every fence the buffer has, in the order of the calls. A
 * live READ session keeps reading the copy it began with. Everything
 * that comes later sees them: a BEGIN, a MIGRATE, a BO_PREAD, a CPU
 * mapping (which faults and waits), a dma-buf's fences. Nothing to wait
 * for: the write is made at once. Each device holds at most staging_kb
 * (1 MiB by default) of staged bytes in flight, each write at least a
 * page of it, and the writes of one user (the caller's real uid, across
 * all its processes and files) at most staging_user_pct percent of that
 * (25 by default; a user holding none may still have one write of any
 * size). A staged write that would exceed either waits until enough
 * earlier ones have landed (interruptibly: -EINTR): a user at its share
 * waits for its own writes to land, and other users' writes still go.
 * Waiting writes get room in the order they came, but one whose user is
 * at its share does not hold back the others. A live session on the
 * chunks that writes them, or reads the buffer's home in place (a
 * device-only buffer's own GPU, the buffer's pages served zero-copy), is
 * still -EBUSY: a staged write never waits for a session to end. A
 * larger write is an ordinary one. A staged write is a job of the
 * caller's file (it counts against max_file_jobs: -ENOBUFS beyond) and
 * ends as jobs end: when work whose bytes it uses failed (see "ordering
 * and cancellation": a READ session's failed GPU work is not such work),
 * when a copy that brings the rest of a chunk it covers in part home
 * fails, or when its file cancels it, its bytes are lost and the chunks
 * keep their holders of before; its fence, in the buffer's reservation,
 * carries the error, and work that waited for it fails as after any
 * failed job.
 * Until its END, a READ session's copy may be refreshed with the new
 * bytes by another session begun on the same GPU, as after a CPU write
 * through a mapping. GET_STATS counts the writes that were staged
 * (@staged_writes).
 */
#define MVGAL_RW_STAGED		(1u << 0)

struct drm_mvgal_bo_rw {
	/** @handle: (in) GEM handle. */
	__u32 handle;
	/**
	 * @flags: (in) MVGAL_RW_STAGED for BO_PWRITE; 0 for BO_PREAD.
	 * Anything else is -EINVAL.
	 */
	__u32 flags;
	/** @offset: (in) byte offset in the buffer. */
	__u64 offset;
	/** @size: (in) bytes; 0 is allowed and copies nothing. */
	__u64 size;
	/** @user_ptr: (in) user address of the other end. */
	__u64 user_ptr;
};

/**
 * struct drm_mvgal_bo_copy - DRM_IOCTL_MVGAL_BO_COPY
 *
 * Copies @size bytes from (@src_handle, @src_offset) to (@dst_handle,
 * @dst_offset): host or pool storage, one buffer or two; overlapping
 * ranges in one buffer copy as memmove() does. Each offset is applied
 * exactly once. Errors: -EINVAL (non-zero flags or padding, a range beyond
 * its buffer or overflowing), -ENOENT, -EACCES (the destination is a
 * read-only handle), -EBUSY (a live session conflicts with reading the
 * source or writing the destination), -ENOMEM, -EDQUOT, -EINTR. A failed copy
 * copies nothing: both buffers are locked and both ranges checked before
 * the first byte moves.
 */
struct drm_mvgal_bo_copy {
	/** @src_handle: (in) GEM handle of the source. */
	__u32 src_handle;
	/** @dst_handle: (in) GEM handle of the destination. */
	__u32 dst_handle;
	/** @src_offset: (in) byte offset in the source. */
	__u64 src_offset;
	/** @dst_offset: (in) byte offset in the destination. */
	__u64 dst_offset;
	/** @size: (in) bytes; 0 is allowed and copies nothing. */
	__u64 size;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/**
 * struct drm_mvgal_bo_entry - one buffer in &drm_mvgal_bo_list
 */
struct drm_mvgal_bo_entry {
	/** @id: (out) the buffer's id, unique for the module's lifetime. */
	__u64 id;
	/** @uid: (out) user that created (or imported) it. */
	__u32 uid;
	/** @pid: (out) process that created (or imported) it. */
	__u32 pid;
	/** @info: (out) as DRM_IOCTL_MVGAL_BO_INFO reports it; handle 0. */
	struct drm_mvgal_bo_info info;
};

/**
 * struct drm_mvgal_bo_list - DRM_IOCTL_MVGAL_BO_LIST
 *
 * The caller's buffers: those created by its user, every buffer for
 * CAP_SYS_ADMIN. With @count smaller than the number, that many are
 * written and @count tells how many exist. Errors: -EINVAL (non-zero
 * flags or padding, a bad @stride), -EFAULT (nothing written), -ENOMEM.
 */
struct drm_mvgal_bo_list {
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @count: (in) capacity of @entries; (out) buffers listed. */
	__u32 count;
	/** @entries: (in) user pointer to &struct drm_mvgal_bo_entry[]. */
	__u64 entries;
	/**
	 * @stride: (in) bytes from one element of @entries to the next; 0:
	 * MVGAL_BO_ENTRY_SIZE_V1 (see "array strides").
	 */
	__u32 stride;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/**
 * DOC: ordering and cancellation
 *
 * What BEGIN's copies, a MIGRATE, a REPLICATE, a prefetch and a staged
 * write wait for, per buffer, for the chunks they name (a READ access
 * and a MIGRATE without MOVE read; a WRITE access, a MOVE and a staged
 * write write):
 *
 * - mvgal's own jobs (copies, moves, staged writes) still pending on any
 *   of those chunks, whoever queued them. Jobs on other chunks of the
 *   buffer are not waited for.
 * - GPU work that END handed in (its fence is in the buffer's
 *   reservation; mvgal does not know which chunks it touches): a reader
 *   waits for the last WRITE session's, a writer for every session's.
 * - the call's own in-fence or in-syncobj.
 *
 * CPU access (faults, BO_PREAD/PWRITE/COPY, a dma-buf's CPU access)
 * waits for every fence of the buffer, as before.
 *
 * What a failure does: work fails with the first error of the work it
 * uses - its own in-fence, a job whose chunks it reads or moves, a WRITE
 * session's GPU work - and then copies nothing, its chunks keep their
 * holders of before and its fence carries the error. The failure of
 * work it only comes after (a READ session's GPU work, which changes no
 * byte) changes nothing: it runs.
 *
 * CANCEL stops a job that has not started: its fence signals with
 * -ECANCELED after its chunks went back to their holders of before. Work
 * of the same file that already waits for it fails with it. Work planned
 * after the cancellation waits for it to end and is planned as if it had
 * never been queued. Once work of another file waits for a job on the
 * chunks it touches, the job's CANCEL is -EBUSY: it runs, and one file's
 * cancellation never becomes another's failure (a read-only importer
 * cannot fail the owner's work).
 */

/**
 * DOC: access sessions
 *
 * A GPU uses buffers inside an access session. DRM_IOCTL_MVGAL_BEGIN
 * names the GPU, READ or WRITE, and per buffer the byte ranges the work
 * touches (rounded out to whole chunks). It makes the GPU's copy of
 * those chunks current: each chunk the GPU's placement lacks is copied
 * from the cheapest location that holds it, after the work the access
 * must wait for (see "ordering and cancellation"). It returns, per buffer, the
 * pool and the offset in it where the bytes are, and one sync_file that
 * signals when all of them are in place. The GPU work must wait for that
 * fence.
 *
 * DRM_IOCTL_MVGAL_END hands in the fence of the GPU work (or -1 when the
 * work is done) and, for WRITE, the ranges written. The fence goes into
 * each buffer's dma_resv as a READ or WRITE fence; written chunks become
 * owned by the GPU and invalid everywhere else, and CPU mappings of them
 * are torn down so that the next CPU access faults and brings them home.
 *
 * A begin that conflicts with a live session on any chunk it names
 * (WRITE while any session is live, READ while a WRITE is live) fails
 * with -EBUSY at once. So do CPU writes (pwrite, copy) into chunks of a
 * live session, and CPU reads of chunks a live WRITE session holds.
 * Sessions still open when their file is closed are ended as if written
 * in full, with no fence.
 *
 * The pool of @pool_gpu may be another GPU's: when the session's GPU
 * imports that pool (MVGAL_METHOD_IN_PLACE) and every chunk named is
 * current there, nothing is copied and the session uses it in place.
 */
#define MVGAL_ACCESS_READ	(1U << 0)
#define MVGAL_ACCESS_WRITE	(1U << 1)
/*
 * Never use a peer's pool or the buffer's own pages in place: the bytes go
 * into the GPU's own placement (what DRM_IOCTL_MVGAL_PLACE_FD exports).
 */
#define MVGAL_ACCESS_NO_IN_PLACE (1U << 2)
#define MVGAL_ACCESS_FLAGS	0x7U

/* Priorities of migration jobs; LOW is prefetch. */
#define MVGAL_PRIO_HIGH		0
#define MVGAL_PRIO_NORMAL	1
#define MVGAL_PRIO_LOW		2
#define MVGAL_PRIO_COUNT	3

/* The most buffers in one session, ranges per buffer, sessions per file. */
#define MVGAL_SESSION_MAX_BUFFERS	64
#define MVGAL_SESSION_MAX_RANGES	64
#define MVGAL_SESSIONS_PER_FILE		256

/**
 * struct drm_mvgal_range - bytes [@offset, @offset + @size) of a buffer
 */
struct drm_mvgal_range {
	/** @offset: (in) byte offset. */
	__u64 offset;
	/** @size: (in) bytes, not 0. */
	__u64 size;
};

/**
 * struct drm_mvgal_access - one buffer of a session
 */
struct drm_mvgal_access {
	/** @handle: (in) GEM handle; at most once per session. */
	__u32 handle;
	/** @nr_ranges: (in) entries in @ranges; 0: the whole buffer. */
	__u32 nr_ranges;
	/** @ranges: (in) user pointer to &struct drm_mvgal_range[]. */
	__u64 ranges;
	/** @pool_offset: (out, BEGIN) where byte 0 of the buffer is in the pool. */
	__u64 pool_offset;
	/**
	 * @pool_gpu: (out, BEGIN) the GPU whose pool holds the bytes, or
	 * MVGAL_POOL_HOST: the buffer's own pages, through its dma-buf; with
	 * MVGAL_POOL_ADOPTED, the buffer's adopted placement on that GPU.
	 */
	__u32 pool_gpu;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/**
 * DOC: syncobjs
 *
 * BEGIN, END and MIGRATE take their fences as DRM syncobjs too, as DRM
 * drivers' submit ioctls do, so that Vulkan timeline semaphores and other
 * drivers' jobs chain with them without a sync_file in between. The
 * syncobjs are the mvgal file's own (DRM_IOCTL_SYNCOBJ_CREATE on it, or
 * imported with DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE); the file supports
 * timelines.
 *
 * @in_syncobj, if not 0, adds the fence its point @in_point holds (the
 * syncobj's fence when @in_point is 0) to the sync_file the call takes:
 * the call waits for both. The point must have been submitted: a point
 * not yet on the timeline, or a binary syncobj with no fence, is -EINVAL
 * (there is no wait-for-submit).
 *
 * @out_syncobj, if not 0, is signalled by the call's out-fence: with
 * @out_point, that point is added to its timeline (a point not above the
 * last one is added all the same, as DRM_IOCTL_SYNCOBJ_TRANSFER does);
 * without, its fence is replaced. A call with nothing to copy gives it an
 * already signalled fence. It happens only when the call succeeds: a
 * failed call leaves the syncobj as it was. END's out-fence signals once
 * the session's copies (BEGIN's out-fence) and the GPU work END was given
 * (@fence_fd, @in_syncobj) are done.
 *
 * Errors: -EINVAL (a point with no syncobj, an unsubmitted point),
 * -ENOENT (a handle names no syncobj), -ENOMEM.
 */

/**
 * struct drm_mvgal_begin - DRM_IOCTL_MVGAL_BEGIN
 *
 * Errors: -EINVAL (unknown flags, not exactly one of READ and WRITE,
 * non-zero padding, a bad @stride, @count 0 or too big, a handle twice,
 * a range empty,
 * overflowing or beyond its buffer, a bad @priority, a device-only
 * buffer of another GPU, among others), -ENOENT (a handle names no
 * buffer), -EACCES (WRITE on a read-only handle), -ENODEV (no such GPU),
 * -EPERM (a buffer the GPU may not use: not GPU_VALID, or made for
 * another GPU and not SHARED), -EBUSY (a conflicting live session, or
 * too many sessions open), -ENOSPC (the pool cannot hold a placement),
 * -EFAULT, -ENOMEM, -EDQUOT (see "buffer metadata"), -E2BIG (an access
 * larger than this kernel knows with non-zero bytes beyond), and those
 * of "syncobjs". A failed
 * begin changes nothing: a struct or an access array it cannot write is
 * -EFAULT before anything is planned. BEGIN writes its results before
 * its session can be used and its fd exists; if that faults all the
 * same (another thread unmapped them meanwhile), the session and fd are
 * undone and only the copies already queued still run.
 */
struct drm_mvgal_begin {
	/** @accesses: (in/out) user pointer to &struct drm_mvgal_access[]. */
	__u64 accesses;
	/** @count: (in) entries in @accesses, 1..MVGAL_SESSION_MAX_BUFFERS. */
	__u32 count;
	/** @gpu: (in) the GPU that will access the buffers. */
	__u32 gpu;
	/** @flags: (in) MVGAL_ACCESS_*. */
	__u32 flags;
	/** @in_fence_fd: (in) sync_file the copies wait for too, or -1. */
	__s32 in_fence_fd;
	/** @priority: (in) MVGAL_PRIO_* of the copies. */
	__u32 priority;
	/** @session: (out) the session, for END. */
	__u32 session;
	/** @out_fence_fd: (out) sync_file: the data is in place. O_CLOEXEC. */
	__s32 out_fence_fd;
	/**
	 * @stride: (in) bytes from one element of @accesses to the next; 0:
	 * MVGAL_ACCESS_SIZE_V1 (see "array strides").
	 */
	__u32 stride;
	/** @bytes_copied: (out) bytes the copies move. */
	__u64 bytes_copied;
	/**
	 * @in_syncobj: (in) DRM syncobj handle whose fence (at @in_point)
	 * the copies wait for too, or 0 (see "syncobjs").
	 */
	__u32 in_syncobj;
	/**
	 * @out_syncobj: (in) DRM syncobj handle that gets the out-fence (at
	 * @out_point), or 0.
	 */
	__u32 out_syncobj;
	/** @in_point: (in) timeline point of @in_syncobj; 0: binary. */
	__u64 in_point;
	/** @out_point: (in) timeline point of @out_syncobj; 0: binary. */
	__u64 out_point;
};

/**
 * struct drm_mvgal_end - DRM_IOCTL_MVGAL_END
 *
 * Errors: -EINVAL (unknown flags, non-zero padding, a bad @stride, ranges
 * for a READ session, a written range outside what the session named, a
 * handle not in the session), -ENOENT (no such session on this file),
 * -E2BIG (an access larger than this kernel knows with non-zero bytes
 * beyond), -EFAULT, and those of "syncobjs". A failed end leaves the
 * session live.
 */
struct drm_mvgal_end {
	/** @session: (in) from BEGIN. */
	__u32 session;
	/** @fence_fd: (in) sync_file of the GPU work, or -1: it is done. */
	__s32 fence_fd;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/**
	 * @count: (in) entries in @written. 0 for a WRITE session: all it
	 * named was written. Must be 0 for a READ session.
	 */
	__u32 count;
	/**
	 * @written: (in) user pointer to &struct drm_mvgal_access[] (handle
	 * and ranges; the other fields must be 0).
	 */
	__u64 written;
	/**
	 * @stride: (in) bytes from one element of @written to the next; 0:
	 * MVGAL_ACCESS_SIZE_V1 (see "array strides").
	 */
	__u32 stride;
	/** @pad: (in) must be 0. */
	__u32 pad;
	/**
	 * @in_syncobj: (in) DRM syncobj handle whose fence (at @in_point)
	 * is part of the GPU work's, with @fence_fd's too, or 0 (see "syncobjs").
	 */
	__u32 in_syncobj;
	/**
	 * @out_syncobj: (in) DRM syncobj handle that gets a fence that signals
	 * once BEGIN's copies and the GPU work are done (at
	 * @out_point), or 0.
	 */
	__u32 out_syncobj;
	/** @in_point: (in) timeline point of @in_syncobj; 0: binary. */
	__u64 in_point;
	/** @out_point: (in) timeline point of @out_syncobj; 0: binary. */
	__u64 out_point;
};

/* &drm_mvgal_migrate.flags */
/* Leave the range only at @location: other copies become invalid. */
#define MVGAL_MIGRATE_MOVE	(1U << 0)
#define MVGAL_MIGRATE_FLAGS	0x1U

/**
 * struct drm_mvgal_migrate - DRM_IOCTL_MVGAL_MIGRATE
 *
 * Makes [@offset, @offset + @size) of a buffer current at @location
 * (MVGAL_LOC_HOST or 1 + GPU), asynchronously: the copies run as one job
 * of the migration engine. Refused with -EPERM while
 * enable_memory_migration is off. Errors: -EINVAL (unknown flags, non-zero
 * padding, a bad range, location or priority, a location a device-only
 * buffer cannot have), -ENOENT, -ENODEV, -EBUSY (a live session
 * conflicts), -ENOSPC, -EPERM (also: a GPU the buffer may not use, see
 * "buffer flags"), -EACCES (MOVE on a read-only handle),
 * -ENOMEM, -EDQUOT (see "buffer metadata"), and those of "syncobjs".
 * A MOVE takes effect for
 * everything planned after it when it is submitted (the job's fence orders
 * those accesses after its copies): a session begun later uses the moved
 * copy, and a failed or cancelled MOVE gives the chunks back to their
 * holders of before. What the job waits for, and what a CANCEL of it
 * does: see "ordering and cancellation".
 */
struct drm_mvgal_migrate {
	/** @handle: (in) GEM handle. */
	__u32 handle;
	/** @flags: (in) MVGAL_MIGRATE_*. */
	__u32 flags;
	/** @offset: (in) byte offset. */
	__u64 offset;
	/** @size: (in) bytes, not 0. */
	__u64 size;
	/** @location: (in) MVGAL_LOC_HOST or 1 + GPU index. */
	__u32 location;
	/** @priority: (in) MVGAL_PRIO_*; LOW is a prefetch. */
	__u32 priority;
	/** @in_fence_fd: (in) sync_file the job waits for too, or -1. */
	__s32 in_fence_fd;
	/** @out_fence_fd: (out) sync_file: the job is done. O_CLOEXEC. */
	__s32 out_fence_fd;
	/** @job: (out) the job, for CANCEL; 0 when nothing had to move. */
	__u64 job;
	/** @bytes: (out) bytes the job moves. */
	__u64 bytes;
	/**
	 * @in_syncobj: (in) DRM syncobj handle whose fence (at @in_point)
	 * the job waits for too, or 0 (see "syncobjs").
	 */
	__u32 in_syncobj;
	/**
	 * @out_syncobj: (in) DRM syncobj handle that gets the job's fence (at
	 * @out_point), or 0.
	 */
	__u32 out_syncobj;
	/** @in_point: (in) timeline point of @in_syncobj; 0: binary. */
	__u64 in_point;
	/** @out_point: (in) timeline point of @out_syncobj; 0: binary. */
	__u64 out_point;
};

/**
 * struct drm_mvgal_cancel - DRM_IOCTL_MVGAL_CANCEL
 *
 * Cancels a job that has not started: its fence signals with -ECANCELED
 * and the chunks it would have filled stay invalid there (see "ordering
 * and cancellation" for what that does to work that waits for it).
 * Errors: -EINVAL (non-zero flags or padding), -ENOENT (no such job
 * pending for this file: a job another file queued is never found, even
 * after that file closed), -EBUSY (it is running or done, or another
 * file's work waits for it).
 */
struct drm_mvgal_cancel {
	/** @job: (in) from MIGRATE. */
	__u64 job;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/**
 * struct drm_mvgal_place_free - DRM_IOCTL_MVGAL_PLACE_FREE
 *
 * Frees a buffer's placement in @gpu's pool. Chunks only it holds are
 * copied home first; afterwards no chunk is valid at @gpu. Errors:
 * -EINVAL (non-zero flags or padding, the placement is the storage of a
 * device-only buffer), -ENOENT, -ENODEV, -EBUSY (a live session or an
 * unsignaled fence may still touch it).
 */
struct drm_mvgal_place_free {
	/** @handle: (in) GEM handle. */
	__u32 handle;
	/** @gpu: (in) GPU index. */
	__u32 gpu;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/**
 * struct drm_mvgal_stats - DRM_IOCTL_MVGAL_GET_STATS
 *
 * Migration engine counters since load. Errors: -EINVAL (non-zero
 * flags or padding).
 */
struct drm_mvgal_stats {
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @pad: (in) must be 0. */
	__u32 pad;
	/** @scheduled: (out) jobs queued. */
	__u64 scheduled;
	/** @completed: (out) jobs that moved all their bytes. */
	__u64 completed;
	/** @failed: (out) jobs that stopped on an error. */
	__u64 failed;
	/** @cancelled: (out) jobs cancelled before they ran. */
	__u64 cancelled;
	/** @queue_depth: (out) jobs queued or running now. */
	__u64 queue_depth;
	/** @jobs: (out) jobs per MVGAL_PRIO_*. */
	__u64 jobs[MVGAL_PRIO_COUNT];
	/** @pad2: (out) 0. */
	__u64 pad2;
	/**
	 * @bytes: (out) bytes copied per MVGAL_METHOD_*; at
	 * MVGAL_METHOD_IN_PLACE, the bytes sessions used where they were
	 * (a peer's pool, or the buffer's own pages) instead of copying
	 * them to their GPU's pool: the whole chunks each such session
	 * named, counted when it began.
	 */
	__u64 bytes[MVGAL_METHOD_COUNT];
	/** @copies: (out) chunk copies per MVGAL_METHOD_* (none in place). */
	__u64 copies[MVGAL_METHOD_COUNT];
	/** @sessions: (out) sessions begun. */
	__u64 sessions;
	/** @busy: (out) begins and CPU accesses refused with -EBUSY. */
	__u64 busy;
	/** @cpu_faults: (out) CPU faults that brought chunks home. */
	__u64 cpu_faults;
	/** @drained: (out) bytes copied home by frees and detaches. */
	__u64 drained;
	/** @prefetch_issued: (out) prefetches scheduled (module parameter prefetch). */
	__u64 prefetch_issued;
	/** @prefetch_hits: (out) prefetched placements a session then used. */
	__u64 prefetch_hits;
	/**
	 * @prefetch_misses: (out) prefetched placements evicted or freed
	 * before any session used them.
	 */
	__u64 prefetch_misses;
	/**
	 * @prefetch_cancelled: (out) prefetches given up: no room without
	 * evicting what is needed sooner, or a writer was live.
	 */
	__u64 prefetch_cancelled;
	/**
	 * @numa_moved: (out) host pages moved to the NUMA node of the GPU
	 * that uses their buffer most.
	 */
	__u64 numa_moved;
	/**
	 * @staged_writes: (out) BO_PWRITEs with MVGAL_RW_STAGED that were
	 * staged: handed to the migration engine behind the GPU work on
	 * their chunks rather than made at once.
	 */
	__u64 staged_writes;
	/**
	 * @exec_bytes: (out) bytes copied by MVGAL_METHOD_EXEC (copy
	 * executors). Past MVGAL_V1 size: an older module leaves 0.
	 */
	__u64 exec_bytes;
	/** @exec_copies: (out) chunk copies by MVGAL_METHOD_EXEC. */
	__u64 exec_copies;
	/**
	 * @exec_fallbacks: (out) executor copies the CPU made instead: the
	 * executor went, failed the copy, or its bytes came out wrong.
	 */
	__u64 exec_fallbacks;
	/** @exec_timeouts: (out) executor copies past exec_timeout_ms. */
	__u64 exec_timeouts;
	/**
	 * @end_fences: (out) ENDs that took their GPU work's fence
	 * (@fence_fd or @in_syncobj of &drm_mvgal_end): sessions whose
	 * end the GPU API ordered by a fence rather than by the CPU
	 * waiting. An older module leaves 0.
	 */
	__u64 end_fences;
};

/**
 * struct drm_mvgal_path - DRM_IOCTL_MVGAL_GET_PATH
 *
 * How @size bytes move from location @src to location @dst
 * (MVGAL_LOC_HOST or 1 + GPU): the possible methods, the calibrated
 * figures of each, and the one the path selector picks. Errors: -EINVAL
 * (non-zero flags or padding, a location out of range, @src == @dst),
 * -ENODEV (an empty GPU slot).
 */
struct drm_mvgal_path {
	/** @src: (in) location of the data. */
	__u32 src;
	/** @dst: (in) location that needs it. */
	__u32 dst;
	/** @size: (in) bytes to move. */
	__u64 size;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @methods: (out) bit MVGAL_METHOD_x set when x is possible. */
	__u32 methods;
	/** @chosen: (out) MVGAL_METHOD_* the selector picks for @size. */
	__u32 chosen;
	/** @forced: (out) 1 when the force_method knob decided. */
	__u32 forced;
	/** @latency_ns: (out) calibrated fixed cost per method; 0 unmeasured. */
	__u64 latency_ns[MVGAL_METHOD_COUNT];
	/** @bandwidth: (out) calibrated bytes/s per method; 0 unmeasured. */
	__u64 bandwidth[MVGAL_METHOD_COUNT];
	/** @cost_ns: (out) modelled time for @size per method; ~0 impossible. */
	__u64 cost_ns[MVGAL_METHOD_COUNT];
	/** @calibrated_ns: (out) CLOCK_MONOTONIC of the calibration; 0 never. */
	__u64 calibrated_ns;
	/**
	 * @why: (out) MVGAL_WHY_* of the order used while not every possible
	 * method is measured (MVGAL_WHY_IOMEM_SOURCE: the source is I/O
	 * memory, read once into a bounce buffer); the reason for @chosen
	 * unless @forced or @measured. An older module leaves 0.
	 */
	__u32 why;
	/**
	 * @measured: (out) 1 when the calibrated costs picked @chosen (every
	 * possible method measured), 0 when the order of @why did.
	 */
	__u32 measured;
	/**
	 * @exec_latency_ns: (out) MVGAL_METHOD_EXEC's calibrated fixed cost,
	 * measured on the executor registered now; 0 unmeasured. Past
	 * MVGAL_V1 size: an older module leaves these three 0.
	 */
	__u64 exec_latency_ns;
	/** @exec_bandwidth: (out) its calibrated bytes/s; 0 unmeasured. */
	__u64 exec_bandwidth;
	/** @exec_cost_ns: (out) its modelled time for @size; ~0 impossible. */
	__u64 exec_cost_ns;
};

/**
 * struct drm_mvgal_calibrate - DRM_IOCTL_MVGAL_CALIBRATE
 *
 * Measures every path between the attached GPUs' pools and host memory
 * now, and keeps the figures for the path selector. Needs CAP_SYS_ADMIN.
 * Errors: -EINVAL (non-zero flags or padding), -EPERM.
 */
struct drm_mvgal_calibrate {
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @paths: (out) ordered pairs of locations measured. */
	__u32 paths;
};

/**
 * struct drm_mvgal_pool_fd - DRM_IOCTL_MVGAL_POOL_FD
 *
 * A dma-buf fd (O_CLOEXEC, read-write) of GPU @gpu's pool: what a GPU
 * API imports once to reach the (pool, offset) pairs BEGIN returns. The
 * pool holds every client's buffers, so this needs CAP_SYS_ADMIN until
 * drivers can map a part of it per client. Errors: -EINVAL (non-zero
 * flags or padding, a slot out of range), -ENODEV, -EPERM.
 */
struct drm_mvgal_pool_fd {
	/** @gpu: (in) GPU index. */
	__u32 gpu;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @fd: (out) the dma-buf. */
	__s32 fd;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/* Flags of &drm_mvgal_place_fd. */
#define MVGAL_PLACE_FD_RDWR	(1U << 0)
#define MVGAL_PLACE_FD_FLAGS	MVGAL_PLACE_FD_RDWR

/**
 * struct drm_mvgal_place_fd - DRM_IOCTL_MVGAL_PLACE_FD
 *
 * A dma-buf fd (O_CLOEXEC) of buffer @handle's copy in GPU @gpu's pool:
 * its placement there, made now if it has none (cleared: never another
 * buffer's bytes), or, for a device-only buffer of @gpu, the buffer
 * itself. Byte 0 is the buffer's byte 0, its size is the buffer's rounded
 * up to a page, and nothing else of the pool is reachable through it.
 * Any process may ask for its own buffers: this is how an application
 * hands a placement to its GPU API (Vulkan imports it with
 * VK_EXT_external_memory_dma_buf). The pool is its GPU driver's dma-buf,
 * and the export reaches it only through that driver's dma-buf ops:
 * importing drivers get the DMA addresses the pool's driver gives their
 * device (its rules decide: bus addresses for a peer-to-peer importer of
 * device memory, or a refusal), cut to exactly the range; vmap is mvgal's
 * mapping of the pool (I/O memory for device memory) at the range;
 * begin/end_cpu_access are the pool's. It maps with mmap(MAP_SHARED)
 * (read-write with MVGAL_PLACE_FD_RDWR, which opens the fd O_RDWR; a
 * writable mapping of a read-only fd is -EACCES, a private mapping or one
 * past the size -EINVAL) through the pool driver's own mmap at the range's
 * offset, where that driver maps the page an offset names (TTM's: amdgpu,
 * radeon, nouveau; the test bed's VRAM stand-in); on other pools mmap is
 * -ENODEV (the GEM shmem helpers' of vgem and virtio-gpu map from the
 * object's first page whatever the offset). When @gpu is unplugged, an
 * export of before keeps what the pool's driver still gives (its mmap and
 * importers follow its rules for a gone device; vmap reads mvgal's
 * mapping), and holds PLACE_FREE and GPU_DETACH -EBUSY until it is
 * closed; a CPU access brings the bytes home.
 *
 * While the dma-buf lives the placement stays where it is: it is never
 * evicted (POOL_LRU shows it PERSISTENT), PLACE_FREE of it and
 * GPU_DETACH of @gpu are -EBUSY, and it counts in the pool as any
 * placement. Its bytes are @gpu's copy of the buffer: current for the
 * chunks @gpu holds (&drm_mvgal_bo_info.valid). A session on @gpu that
 * uses its own pool (MVGAL_ACCESS_NO_IN_PLACE makes sure) makes the
 * chunks it names current there; what the GPU writes through the export
 * during a WRITE session is the buffer's once END names it. Outside a
 * session, chunks written elsewhere since are stale.
 *
 * What an export holds counts against the max_file_meta_mb of the file
 * that asks for it (see "buffer metadata"): a few hundred bytes, whatever
 * the size, until it is gone (closed and unmapped, by every process and
 * importer), also when the file was closed before.
 *
 * Errors: -EINVAL (unknown flags, non-zero @pad, a slot out of range, a
 * device-only buffer of another GPU), -ENOENT (no such handle), -EACCES
 * (MVGAL_PLACE_FD_RDWR on a read-only handle), -EPERM (enable_dmabuf is
 * off, the buffer is not GPU_VALID, or it was made for another GPU and
 * is not SHARED), -ENODEV (no GPU in the slot, or it is
 * gone), -ENOSPC (the pool cannot hold a placement), -EOPNOTSUPP (a pool
 * its driver may move, MVGAL_POOL_MOVABLE: see "pool memory"), -ENOMEM,
 * -EDQUOT (the file's max_file_meta_mb would be passed; nothing is
 * placed or exported), -EMFILE.
 */
struct drm_mvgal_place_fd {
	/** @handle: (in) GEM handle. */
	__u32 handle;
	/** @gpu: (in) GPU index. */
	__u32 gpu;
	/** @flags: (in) MVGAL_PLACE_FD_*. */
	__u32 flags;
	/** @pad: (in) must be 0. */
	__u32 pad;
	/** @size: (out) bytes of the dma-buf. */
	__u64 size;
	/** @fd: (out) the dma-buf. */
	__s32 fd;
	/** @pad2: (in) must be 0. */
	__u32 pad2;
};

/**
 * struct drm_mvgal_place_adopt - DRM_IOCTL_MVGAL_PLACE_ADOPT
 *
 * Makes a dma-buf that @gpu's driver allocated for @gpu (a dumb buffer,
 * a Vulkan allocation exported with VK_EXT_external_memory_dma_buf, ...)
 * buffer @handle's placement on @gpu. It is how an application's GPU API
 * reaches its own GPU's copy of a buffer as that driver's own memory: the
 * driver's import of its own dma-buf is the object it exported (as
 * amdgpu_gem_prime_import() and drm_gem_prime_import() do), while an
 * export of a range of mvgal's pool (PLACE_FD) is foreign memory to it,
 * which it reaches through its dma-buf attachment as it would another
 * device's. The dma-buf must be exactly the buffer's size rounded up to
 * a page, so that it holds the buffer's bytes and nothing else.
 *
 * mvgal waits for the work on it to end, then attaches it with @gpu's
 * device as a pool of its own, pinned where the driver pins for importers
 * (amdgpu 6.12: in GTT, see "pool memory"; it is never followed through
 * moves, as a GPU's pool may be: that takes a handle of it no caller can
 * drop). It is in no pool's budget and never evicted; a BEGIN that
 * uses it says so in &drm_mvgal_access.pool_gpu (MVGAL_POOL_ADOPTED), and
 * a session on another GPU never uses it in place. Like any new
 * placement it holds no chunk at first and is cleared (what the lender
 * had in it is not the buffer's); sessions, MIGRATE and REPLICATE fill
 * it, and what @gpu writes through it during a WRITE session is the
 * buffer's once END names it, as for a placement export. It stays until
 * PLACE_FREE (chunks
 * only it holds are copied home first), the buffer's end or the GPU's
 * detach; then mvgal drops its attachment and reference, and the
 * dma-buf, which lives on while its lender holds it, is no longer the
 * buffer's copy. PLACE_FD of the buffer at @gpu exports its range as for
 * any placement. mvgal reads and writes it with the CPU (its driver's
 * vmap); the kernel memory it costs is charged to the caller's memory
 * cgroup.
 *
 * Errors: -EINVAL (non-zero @flags or @pad, a slot out of range, a
 * dma-buf that is not @gpu's driver's own for @gpu or not the size, a
 * device-only buffer), -EBADF (@fd is not open), -ENOENT (no such
 * handle), -EACCES (a read-only handle), -EPERM (as for PLACE_FD),
 * -ENODEV (no GPU in the slot, or it is gone or being detached), -EEXIST
 * (the buffer has a placement on @gpu: PLACE_FREE it first), -EBUSY (the
 * dma-buf is lent as a placement already, until a placement given up is
 * released, or is @gpu's pool), -ENXIO (the driver would not let its own
 * device attach the buffer), -EOPNOTSUPP (no kernel mapping of it for CPU
 * copies), -EIO (it cannot be written), -ERESTARTSYS, -ENOMEM. A refusal
 * changes neither the buffer nor the lent dma-buf's bytes.
 */
struct drm_mvgal_place_adopt {
	/** @handle: (in) GEM handle of the buffer. */
	__u32 handle;
	/** @gpu: (in) GPU index. */
	__u32 gpu;
	/** @fd: (in) the dma-buf; mvgal takes its own reference. */
	__s32 fd;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @pad: (in) must be 0. */
	__u64 pad;
};

/*
 * drm_mvgal_access.pool_gpu when a session uses the buffer's own host
 * pages in place (a chunk refused after a hand-off, on a GPU whose driver
 * imports the buffer's dma-buf): the GPU reaches the bytes through that
 * dma-buf (mvgal_bo_export()), at the buffer's offsets.
 */
#define MVGAL_POOL_HOST		0xffffffffU

/*
 * Set in drm_mvgal_access.pool_gpu when the bytes are in the buffer's
 * adopted placement on the GPU of the low bits (PLACE_ADOPT): at
 * @pool_offset of the dma-buf lent for it (0), not in that GPU's pool.
 * MVGAL_POOL_HOST has every bit set: compare with it first. A client
 * that indexes its pools by @pool_gpu must check both (another process
 * may lend a placement of a buffer it shares).
 */
#define MVGAL_POOL_ADOPTED	(1U << 31)

/* The most buffers one HARVEST takes. */
#define MVGAL_HARVEST_MAX_BUFFERS	256

/* drm_mvgal_harvest.flags */
#define MVGAL_HARVEST_RESET	(1U << 0)
#define MVGAL_HARVEST_FLAGS	MVGAL_HARVEST_RESET

/* drm_mvgal_harvest_entry.flags */
#define MVGAL_HARVEST_RUNS	(1U << 0)
#define MVGAL_HARVEST_ZEROED	(1U << 1)
#define MVGAL_HARVEST_ENTRY_FLAGS	(MVGAL_HARVEST_RUNS | MVGAL_HARVEST_ZEROED)

/**
 * struct drm_mvgal_harvest_entry - one buffer of a HARVEST
 *
 * What the CPU wrote in the buffer since its record was last reset, by
 * chunk (&drm_mvgal_get_info.chunk_size), in one of three forms. Each
 * costs what it writes at @data:
 *
 * - a bitmap (@flags 0): bit c of word c / 64 for chunk c. Every one of
 *   the ceil(chunks / 64) words is cleared and written, whatever was
 *   written in the buffer: 2 KiB per GiB of buffer at the default chunk
 *   of 64 KiB.
 * - a bitmap into zeroed memory (MVGAL_HARVEST_ZEROED): the same bitmap,
 *   but the caller promises that its words at @data are zero already, so
 *   only the words that hold a written chunk are written (whole); every
 *   other word is left as it is. The cost is the words holding written
 *   chunks, whatever the buffer's size.
 * - runs (MVGAL_HARVEST_RUNS): byte ranges, each a run of written
 *   chunks, the last one clipped to the buffer's size, in increasing
 *   order. The cost is the runs.
 *
 * For a large buffer of which little is written, use
 * MVGAL_HARVEST_ZEROED or MVGAL_HARVEST_RUNS. A kernel without
 * MVGAL_HARVEST_ZEROED rejects it as an unknown flag (-EINVAL): that is
 * how a program learns it is missing, and can fall back to the bitmap.
 */
struct drm_mvgal_harvest_entry {
	/** @handle: (in) the buffer. */
	__u32 handle;
	/**
	 * @flags: (in) 0 for a bitmap, MVGAL_HARVEST_ZEROED for a bitmap
	 * into zeroed memory, or MVGAL_HARVEST_RUNS for runs; both at once
	 * is -EINVAL.
	 */
	__u32 flags;
	/**
	 * @data: (in) user pointer: @capacity __u64 bitmap words, or
	 * @capacity &struct drm_mvgal_range for runs.
	 */
	__u64 data;
	/**
	 * @capacity: (in) elements at @data. A bitmap, zeroed or not, needs
	 * ceil(chunks / 64) words; runs need one per run (@count says how
	 * many when they did not fit).
	 */
	__u32 capacity;
	/**
	 * @count: (out) runs written; for a bitmap, its ceil(chunks / 64)
	 * words; with MVGAL_HARVEST_ZEROED, the words written (those holding
	 * a written chunk). With -ENOSPC, the number of words or runs
	 * needed.
	 */
	__u32 count;
	/** @chunks: (out) written chunks reported. */
	__u64 chunks;
};

/**
 * struct drm_mvgal_harvest - DRM_IOCTL_MVGAL_HARVEST
 *
 * The CPU's writes to many buffers in one call. CPU mappings are
 * write-notify mappings: the first write to a clean page faults and marks
 * its chunk written. MVGAL_HARVEST_RESET clears the marks it reports and
 * write-protects those chunks' pages again, so that the next write is
 * seen again; without it the record is only read (peek). Finding what
 * was written costs the chunks written, not the size of the buffers;
 * handing it over costs what each entry's form writes (see &struct
 * drm_mvgal_harvest_entry: a plain bitmap grows with its buffer's size).
 * Writes through BO_PWRITE and BO_COPY are marked too.
 *
 * Errors: -EINVAL (unknown flags, non-zero padding, a bad @stride, @count
 * 0 or above MVGAL_HARVEST_MAX_BUFFERS, a buffer named twice, an entry
 * with both MVGAL_HARVEST_ZEROED and MVGAL_HARVEST_RUNS), -E2BIG (an
 * entry larger than this kernel knows with non-zero bytes beyond),
 * -ENOENT (a handle),
 * -EACCES (MVGAL_HARVEST_RESET with a read-only handle),
 * -EFAULT, -ENOSPC (an entry's @capacity is too small: every such
 * entry's @count says what it needs). On any error no record changes;
 * after -EFAULT, what the outputs at the entries' @data hold is not
 * defined.
 */
struct drm_mvgal_harvest {
	/** @entries: (in) user pointer to @count &struct drm_mvgal_harvest_entry. */
	__u64 entries;
	/** @count: (in) entries. */
	__u32 count;
	/** @flags: (in) MVGAL_HARVEST_RESET, or 0 to peek. */
	__u32 flags;
	/**
	 * @stride: (in) bytes from one element of @entries to the next; 0:
	 * MVGAL_HARVEST_ENTRY_SIZE_V1 (see "array strides").
	 */
	__u32 stride;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/* drm_mvgal_file_flags.flags */
#define MVGAL_FILE_NO_COPIES	(1U << 0)
#define MVGAL_FILE_FLAGS	MVGAL_FILE_NO_COPIES

/**
 * struct drm_mvgal_file_flags - DRM_IOCTL_MVGAL_FILE_FLAGS
 *
 * Settings of one open file (one fd, and the fds dup()ed from it), for
 * its own sessions only; other files, and other processes, are not
 * affected. MVGAL_FILE_NO_COPIES: this file's sessions keep no GPU copies
 * past their END. A chunk a session of this file had copied into a GPU's
 * pool is dropped from there at its END, so every session stages what it
 * uses anew (a chunk the session wrote stays where it is the only current
 * copy until the CPU or another GPU needs it); copies other files' sessions
 * made are used and left as they were. Errors: -EINVAL (unknown flags).
 */
struct drm_mvgal_file_flags {
	/** @flags: (in) the file's new settings, MVGAL_FILE_*. */
	__u32 flags;
	/** @old: (out) its settings before. */
	__u32 old;
};

/* drm_mvgal_gpu_budget.flags */
#define MVGAL_BUDGET_SET	(1U << 0)
#define MVGAL_BUDGET_FLAGS	MVGAL_BUDGET_SET

/**
 * struct drm_mvgal_gpu_budget - DRM_IOCTL_MVGAL_GPU_BUDGET
 *
 * How much of a GPU's pool mvgal may use: the first @budget bytes of it.
 * A placement or device-only buffer that does not fit evicts placements
 * (see DRM_IOCTL_MVGAL_POOL_LRU). Lowering the budget moves nothing at
 * once: ranges above it stay until they are evicted or freed, and every
 * new range lies below it. Anyone may read it; setting it needs
 * CAP_SYS_ADMIN (-EPERM). Errors: -EINVAL (unknown flags, a budget that
 * is not a multiple of the page size or above the pool), -ENODEV.
 */
struct drm_mvgal_gpu_budget {
	/** @gpu: (in) the GPU. */
	__u32 gpu;
	/** @flags: (in) MVGAL_BUDGET_SET: set @budget; 0: only read it. */
	__u32 flags;
	/**
	 * @budget: (in/out) with MVGAL_BUDGET_SET, the new budget in bytes,
	 * 0 for the whole pool; a read ignores what it is sent. Out: the
	 * budget in effect (before the change, with MVGAL_BUDGET_SET).
	 */
	__u64 budget;
	/** @size: (out) the pool's size in bytes. */
	__u64 size;
};

/* drm_mvgal_lru_entry.flags */
#define MVGAL_LRU_PERSISTENT	(1U << 0)	/* never evicted */
#define MVGAL_LRU_LIVE		(1U << 1)	/* in a live session now */
#define MVGAL_LRU_BUSY		(1U << 2)	/* unsignaled fences */

/**
 * struct drm_mvgal_lru_entry - one placement in a pool's eviction order
 */
struct drm_mvgal_lru_entry {
	/**
	 * @bo_id: (out) the buffer's id (as BO_LIST reports it); 0 for a
	 * buffer of another user, unless the caller has CAP_SYS_ADMIN.
	 */
	__u64 bo_id;
	/** @bytes: (out) the placement's size. */
	__u64 bytes;
	/** @last_use: (out) access-clock tick of its last use. */
	__u64 last_use;
	/**
	 * @ahead: (out) ticks until its next use as predicted, or
	 * MVGAL_LRU_NEVER: no reuse period seen yet.
	 */
	__u64 ahead;
	/** @flags: (out) MVGAL_LRU_*. */
	__u32 flags;
	/** @pad: (out) 0. */
	__u32 pad;
};

#define MVGAL_LRU_NEVER		(~0ULL)

/* drm_mvgal_pool_lru.policy: module parameter evict_policy */
#define MVGAL_EVICT_POLICY_PREDICT	0
#define MVGAL_EVICT_POLICY_LRU		1

/**
 * struct drm_mvgal_pool_lru - DRM_IOCTL_MVGAL_POOL_LRU
 *
 * A pool's placements in the order eviction would take them, first to go
 * first, and its eviction counters. The access clock ticks once per
 * buffer named by a BEGIN or a MIGRATE. Under MVGAL_EVICT_POLICY_LRU the
 * order is least recently used first; under MVGAL_EVICT_POLICY_PREDICT
 * (the default) a placement whose uses repeat with a period is predicted
 * to be used again one period after its last use, and the placement used
 * furthest ahead goes first (Belady's rule on the predicted future); one
 * with no period seen goes before all of those, and ties go least
 * recently used first. PERSISTENT placements, placements in a live
 * session and placements with pending work are listed, flagged, and
 * never evicted. Evicting writes the chunks only the pool holds back to
 * the buffer's home, then frees the range; the buffer comes back on its
 * next BEGIN or MIGRATE. A request that cannot fit even after evicting
 * every evictable placement fails at once with -ENOSPC, evicting
 * nothing.
 *
 * Errors: -EINVAL (non-zero @flags or padding, a bad @stride), -ENODEV,
 * -EFAULT.
 */
struct drm_mvgal_pool_lru {
	/** @gpu: (in) the GPU. */
	__u32 gpu;
	/** @flags: (in) 0. */
	__u32 flags;
	/** @entries: (in) user pointer to @count &struct drm_mvgal_lru_entry. */
	__u64 entries;
	/**
	 * @count: (in/out) room in @entries; out: the placements the pool
	 * has (only the first @count, in order, are written).
	 */
	__u32 count;
	/** @policy: (out) MVGAL_EVICT_POLICY_*. */
	__u32 policy;
	/** @clock: (out) the access clock now. */
	__u64 clock;
	/** @budget: (out) as DRM_IOCTL_MVGAL_GPU_BUDGET reports it. */
	__u64 budget;
	/** @used: (out) bytes allocated in the pool. */
	__u64 used;
	/** @evictions: (out) placements evicted since the GPU was attached. */
	__u64 evictions;
	/** @evicted_bytes: (out) bytes of those placements. */
	__u64 evicted_bytes;
	/** @written_back: (out) bytes eviction copied home first. */
	__u64 written_back;
	/** @refusals: (out) requests that found no room (-ENOSPC). */
	__u64 refusals;
	/**
	 * @stride: (in) bytes from one element of @entries to the next; 0:
	 * MVGAL_LRU_ENTRY_SIZE_V1 (see "array strides").
	 */
	__u32 stride;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/**
 * struct drm_mvgal_replicate - DRM_IOCTL_MVGAL_REPLICATE
 *
 * Read-only copies of [@offset, @offset + @size) in the pools of every
 * GPU listed, as one job of the migration engine with one fence. Every
 * copy stays current until something writes its chunks: a WRITE
 * session's END, a CPU write or a copy into the buffer invalidates every
 * other copy of each chunk written. Replicas are ordinary placements:
 * they count against the pools' budgets and may be evicted (cheaply:
 * another copy exists).
 * Errors: -EINVAL (non-zero flags or padding, a bad range or priority,
 * @nr_gpus 0 or above MVGAL_MAX_GPUS, a GPU out of range or listed
 * twice), -ENOENT, -ENODEV (a GPU not
 * attached), -EFAULT, -EBUSY (a live WRITE session), -ENOSPC, -EPERM
 * (enable_memory_migration off, or a GPU the buffer may not use: see
 * "buffer flags"), -ENOMEM, -EDQUOT (see "buffer
 * metadata"). On any error nothing is placed for this
 * buffer (placements of others evicted to make room stay evicted: their
 * bytes are home). A device-only buffer's own GPU holds it already and
 * needs no copy.
 */
struct drm_mvgal_replicate {
	/** @handle: (in) GEM handle. */
	__u32 handle;
	/** @flags: (in) 0. */
	__u32 flags;
	/** @offset: (in) byte offset. */
	__u64 offset;
	/** @size: (in) bytes, not 0. */
	__u64 size;
	/** @gpus: (in) user pointer to @nr_gpus __u32 GPU indices. */
	__u64 gpus;
	/** @nr_gpus: (in) GPUs listed. */
	__u32 nr_gpus;
	/** @priority: (in) MVGAL_PRIO_*. */
	__u32 priority;
	/** @in_fence_fd: (in) sync_file the copies wait for too, or -1. */
	__s32 in_fence_fd;
	/** @out_fence_fd: (out) sync_file: every copy is there, or -1. */
	__s32 out_fence_fd;
	/** @bytes: (out) bytes the job copies. */
	__u64 bytes;
};

/* &drm_mvgal_advise.workload */
#define MVGAL_WORKLOAD_NONE	0
#define MVGAL_WORKLOAD_GRAPHICS	1
#define MVGAL_WORKLOAD_COMPUTE	2
#define MVGAL_WORKLOAD_AI	3

/* &drm_mvgal_advise.flags */
#define MVGAL_ADVISE_SET		(1U << 0)
#define MVGAL_ADVISE_READ_MOSTLY	(1U << 1)
#define MVGAL_ADVISE_NOT_READ_MOSTLY	(1U << 2)
#define MVGAL_ADVISE_APPLY		(1U << 3)
#define MVGAL_ADVISE_FLAGS		0xfU

/* &drm_mvgal_advise.placement: what the rules choose */
#define MVGAL_PLACEMENT_HOST		0	/* no GPU named: stays home */
#define MVGAL_PLACEMENT_REPLICATE	1	/* copies on every accessed-by GPU */
#define MVGAL_PLACEMENT_PIN		2	/* on @target, never evicted */
#define MVGAL_PLACEMENT_MOST_FREE	3	/* on the GPU with most free pool */
#define MVGAL_PLACEMENT_FIRST		4	/* on the first GPU named */

/**
 * struct drm_mvgal_advise - DRM_IOCTL_MVGAL_ADVISE
 *
 * Placement advice for a buffer, and the placement rules below applied
 * to it. MVGAL_ADVISE_SET sets the workload type, the preferred
 * GPU and the GPUs that access it (none of them otherwise: all three must
 * be 0). The rules, in this order: a graphics buffer smaller than the
 * module parameter graphics_replicate_mb (MiB) accessed by more than one GPU is
 * replicated to those GPUs, a larger one pinned to the first (the
 * preferred GPU if set, else the lowest accessed-by index), a smaller one
 * with one GPU goes to it as any buffer would; compute and
 * AI buffers go to the GPU with the most free pool memory (among the
 * accessed-by GPUs if any are named); any other buffer goes to the first
 * GPU named, or stays home when none is. MVGAL_ADVISE_APPLY carries the
 * choice out now, as one job (with SET: the new advice). A pinned
 * placement is never evicted, like a PERSISTENT buffer's.
 *
 * MVGAL_ADVISE_READ_MOSTLY marks the chunks of [@offset, @offset + @size)
 * read-mostly (MVGAL_ADVISE_NOT_READ_MOSTLY clears them): READ sessions
 * then copy them into the reading GPU's own pool rather than use another
 * GPU's copy in place, so every GPU that reads them keeps a replica,
 * which writes invalidate as always. REPLICATED buffers behave so whole.
 * Without either flag @offset and @size must be 0.
 *
 * Every call returns the advice in effect (the fields marked out).
 * -EACCES: advice set or read-mostly changed through a read-only handle.
 * Errors: -EINVAL (unknown flags or workload, both read-mostly flags, a
 * bad range, a GPU out of range, in fields without SET), -ENOENT,
 * -ENODEV (a GPU not attached), -EPERM (advice naming a GPU the buffer
 * is not for: see "buffer flags"), -ENOMEM and -EDQUOT (a read-mostly
 * range: see "buffer metadata"), and those of DRM_IOCTL_MVGAL_REPLICATE
 * with APPLY. On any error nothing changes.
 */
struct drm_mvgal_advise {
	/** @handle: (in) GEM handle. */
	__u32 handle;
	/** @flags: (in) MVGAL_ADVISE_*. */
	__u32 flags;
	/** @workload: (in/out) MVGAL_WORKLOAD_*. */
	__u32 workload;
	/** @preferred: (in/out) a GPU index, or MVGAL_GPU_ANY for none. */
	__u32 preferred;
	/** @accessed_by: (in/out) bit N: GPU N accesses the buffer. */
	__u32 accessed_by;
	/** @placement: (out) MVGAL_PLACEMENT_*: what the rules choose. */
	__u32 placement;
	/** @offset: (in) start of the read-mostly range. */
	__u64 offset;
	/** @size: (in) its length. */
	__u64 size;
	/** @read_mostly: (out) bytes advised read-mostly (whole chunks). */
	__u64 read_mostly;
	/**
	 * @target: (out) the GPU the rule names (the first, for REPLICATE),
	 * or MVGAL_GPU_ANY.
	 */
	__u32 target;
	/** @out_fence_fd: (out) with APPLY, the placing job's sync_file, or -1. */
	__s32 out_fence_fd;
};

/**
 * DOC: io_uring commands
 *
 * BEGIN, END, MIGRATE, CANCEL, BO_PWRITE, BO_PREAD, BO_COPY and HARVEST
 * may be submitted on an io_uring as IORING_OP_URING_CMD on the mvgal
 * file: &io_uring_sqe.cmd_op is the ioctl's number (DRM_IOCTL_MVGAL_*,
 * which carries its struct's size as the binary knows it) and the SQE's
 * command area (an ordinary 64-byte SQE suffices) holds a &struct
 * drm_mvgal_uring_cmd pointing at the same struct the ioctl takes. The
 * call does what the ioctl does, with the same checks, results (written
 * to that struct before the completion is posted) and errors.
 *
 * The completion's res is 0 or -errno. BEGIN and MIGRATE complete when
 * their data is in place: when the out-fence signals (res is then its
 * error: -ECANCELED for a cancelled job, -EIO for a failed copy), or at
 * once when nothing had to be copied. The other commands complete when
 * they return. Commands linked with IOSQE_IO_LINK therefore run in order,
 * each after the data of the one before is in place; unlinked ones may
 * complete in any order. Give a command that follows a link
 * IOSQE_ASYNC too: 6.12 (unlike 6.1) reads a driver command's SQE only
 * when it issues it, from the submission queue, whose slot later
 * submissions may have reused by then; IOSQE_ASYNC copies it at
 * submission (libmvgal's ring does this).
 *
 * A command fails only as its ioctl does. BO_PWRITE, BO_PREAD and BO_COPY,
 * which wait for the buffers' other work, run in io_uring's workers, not
 * in the submitting task (where io_uring's own task work, another
 * command completing, would interrupt the wait); any other command whose
 * wait is interrupted there is issued again in a worker, as the ioctl
 * would be restarted. Only SIGKILL of the ring's task ends one with
 * -EINTR.
 *
 * Errors of the command itself: -EINVAL (non-zero flags or padding, a
 * cmd_op that is not an mvgal ioctl taking a struct), -EOPNOTSUPP (an
 * mvgal ioctl not offered on a ring: all but BEGIN, END, MIGRATE, CANCEL,
 * BO_PWRITE, BO_PREAD, BO_COPY and HARVEST), -EFAULT (@args unreadable,
 * or its results unwritable: then nothing ran).
 *
 * IORING_OP_ASYNC_CANCEL does not reach these commands (the kernel's
 * io_uring cancels only its own kinds of requests): cancel a queued
 * migration with a CANCEL command (or ioctl) naming its job. A ring
 * whose task exits waits for its commands to complete, as the out-fences
 * they wait for signal.
 */

/**
 * struct drm_mvgal_uring_cmd - the command area of an IORING_OP_URING_CMD
 */
struct drm_mvgal_uring_cmd {
	/** @args: (in) user pointer to the ioctl's struct. */
	__u64 args;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @pad: (in) must be 0. */
	__u32 pad;
};

/**
 * struct drm_mvgal_bo_userptr - DRM_IOCTL_MVGAL_BO_USERPTR
 *
 * Makes the caller's memory [@user_ptr, @user_ptr + @size) the host
 * storage of a new buffer (registered user memory). The pages are pinned
 * (FOLL_LONGTERM) and charged to the RLIMIT_MEMLOCK of the caller's user
 * (all its registrations together, as io_uring counts) until the buffer
 * is freed and its last GPU work done; the range may be registered again
 * as soon as the buffer is freed. The buffer takes part in sessions,
 * migrations, eviction and exports like any other, its home being these
 * pages.
 *
 * The application keeps writing through its own mapping, which mvgal
 * cannot see: a BEGIN takes every chunk it names that home holds as
 * written there (the GPU gets a fresh copy), unless the buffer is
 * registered with MVGAL_USERPTR_MARKS; then only the chunks the
 * application marks (DRM_IOCTL_MVGAL_BO_MARK) are. A GPU's writes reach
 * the pages only when they come home (a MIGRATE to MVGAL_LOC_HOST, a
 * BO_PREAD, a CPU access through mvgal); a chunk a GPU holds alone stays
 * the GPU's until then. The pages stay the buffer's whatever happens to
 * the mapping: after munmap(), MADV_DONTNEED or a fork's copy-on-write
 * the application's range may be other memory, the buffer keeps the
 * pages it pinned (a forked child gets copies; the parent keeps them).
 *
 * With MVGAL_USERPTR_MIRROR nothing is pinned or charged: the memory is
 * followed through an MMU notifier, as amdgpu and xe keep user memory,
 * and a call that copies to or from it faults the pages it needs in
 * (hmm_range_fault()) and holds them only until the buffer is idle again
 * (about 100 ms after their last use). Between copies the pages swap,
 * migrate and compact as any. The range must stay mapped and writable:
 * anonymous, shmem or a private file mapping (copied on write). When the
 * kernel changes what the range maps (munmap, MADV_DONTNEED or
 * MADV_FREE, migration, swap, THP split or collapse, exit; not a change
 * of protection alone, such as mprotect or a fork's copy-on-write
 * protection, which moves no byte), the chunks it covers count as
 * written by the application: where home held a chunk, home becomes its only holder (a
 * GPU's copy is fetched again when needed); a chunk a GPU holds alone
 * stays the GPU's and comes home into whatever the range maps when
 * asked, or the call asking fails with -EFAULT (nothing mapped there, or
 * mapped read-only) and the chunk stays the GPU's; a chunk a live session
 * uses is the session's. A mirrored buffer cannot be mapped through mvgal
 * (mmap -EOPNOTSUPP: the application has the mapping) nor exported
 * (MVGAL_BO_DMA_BUF or MVGAL_BO_P2P: -EOPNOTSUPP). A call that needs its
 * pages may fail with -EFAULT (the range unmapped, read-only, or its
 * process gone) or -EAGAIN (invalidated again and again while faulting).
 *
 * Errors: -EINVAL (unknown flags, @user_ptr not page aligned, @size 0,
 * the range overflowing, @bo_flags without MVGAL_BO_HOST_VALID or with
 * LAZY_ALLOCATE, CPU_UNCACHED or ZERO_INITIALIZED, @bo_flags and @sharing
 * as BO_CREATE refuses them, memory that is not anonymous or shmem: a
 * file's page cache, a PFN or I/O mapping such as another device's or an
 * mvgal buffer's, also when the mapping changes so while the pages are
 * pinned), -EFAULT (a hole in the range or a range past the end of the
 * user address space, pages that cannot be pinned for writing), -EEXIST
 * (the range overlaps another registration of the same process on the
 * same open file), -EOPNOTSUPP (a mirror with MVGAL_BO_DMA_BUF or
 * MVGAL_BO_P2P, or on a kernel without CONFIG_HMM_MIRROR), -ENOMEM
 * (pinned: beyond RLIMIT_MEMLOCK without CAP_IPC_LOCK, refused before
 * anything is made for the registration; or no memory), -EDQUOT.
 */
struct drm_mvgal_bo_userptr {
	/** @user_ptr: (in) page-aligned start of the caller's memory. */
	__u64 user_ptr;
	/** @size: (in) bytes; the pages covering them are registered. */
	__u64 size;
	/** @flags: (in) MVGAL_USERPTR_*. */
	__u32 flags;
	/**
	 * @bo_flags: (in) MVGAL_BO_* as BO_CREATE takes them; HOST_VALID
	 * is required.
	 */
	__u32 bo_flags;
	/** @sharing: (in) MVGAL_SHARING_*, as BO_CREATE takes it. */
	__u32 sharing;
	/** @handle: (out) GEM handle of the new buffer. */
	__u32 handle;
};

#define MVGAL_USERPTR_MARKS	(1u << 0)
#define MVGAL_USERPTR_MIRROR	(1u << 1)
#define MVGAL_USERPTR_FLAGS	(MVGAL_USERPTR_MARKS | MVGAL_USERPTR_MIRROR)

/*
 * MVGAL_MARK_OVERWRITE: the caller is about to write every byte of the
 * range through its mapping of an mvgal buffer (DRM mmap). A write fault
 * sees one page and fetches its whole chunk home first; this hint says
 * more: the chunks the range covers whole are taken home without their
 * bytes being fetched, the chunks it covers in part are fetched, and home
 * becomes the only holder of all of them (a write), so the faults of the
 * writes that follow find them home. The bytes of those whole chunks are
 * undefined until written: what another holder had there is dropped.
 */
#define MVGAL_MARK_OVERWRITE	(1u << 0)
/*
 * MVGAL_MARK_HOME_HELD: a registered buffer's mark that counts only where
 * home held the chunk and no live session uses it; a chunk a GPU holds
 * alone stays the GPU's, one a session uses the session's until its END
 * (a mirror's is home's then unless the session wrote it, as when the
 * kernel changes what a mirror maps), and the mark is not -EBUSY. For
 * marks made from page tracking, which also sees mvgal's own writes
 * home: a copy home that failed half way must not make stale pages win
 * over a GPU's bytes.
 */
#define MVGAL_MARK_HOME_HELD	(1u << 1)
#define MVGAL_MARK_FLAGS	(MVGAL_MARK_OVERWRITE | MVGAL_MARK_HOME_HELD)

/**
 * struct drm_mvgal_bo_mark - DRM_IOCTL_MVGAL_BO_MARK
 *
 * Without flags, the application wrote [@offset, @offset + @size) of a
 * registered buffer through its own mapping: the chunks covering it hold
 * the current bytes at home, and the next BEGIN copies them. Home becomes
 * the only holder of those chunks, also where a GPU held one alone: the
 * application's pages win (bring a GPU's writes home before writing over
 * them), unless MVGAL_MARK_HOME_HELD. With MVGAL_MARK_OVERWRITE, of any
 * other buffer the caller may write: see MVGAL_MARK_OVERWRITE. Either
 * waits (interruptibly) for the buffer's fences first, as a write does.
 * Errors: -EINVAL (unknown flags, no flag or MVGAL_MARK_HOME_HELD on a
 * buffer that is not registered, MVGAL_MARK_OVERWRITE on a registered
 * one, both flags, the range beyond the buffer or overflowing),
 * -ENOENT, -EACCES (a read-only handle), -EBUSY (a live session uses the
 * chunks), -ENOMEM, -EDQUOT, -EINTR.
 */
struct drm_mvgal_bo_mark {
	/** @handle: (in) GEM handle of the buffer. */
	__u32 handle;
	/** @flags: (in) 0, MVGAL_MARK_OVERWRITE or MVGAL_MARK_HOME_HELD. */
	__u32 flags;
	/** @offset: (in) byte offset. */
	__u64 offset;
	/** @size: (in) bytes; 0 marks nothing. */
	__u64 size;
};

/*
 * DOC: copy executors
 *
 * No kernel interface drives a GPU's own copy engines (SDMA, blitters,
 * copy engines), but every GPU's userspace driver does: a Vulkan
 * transfer queue copies between any two dma-bufs its device imports. A
 * copy executor is a process that registers for one GPU
 * (DRM_IOCTL_MVGAL_EXEC_REGISTER), imports that GPU's pool once
 * (DRM_IOCTL_MVGAL_POOL_FD), and then, on a thread of its own, takes
 * copies between the pool and host pages (DRM_IOCTL_MVGAL_EXEC_TAKE) and
 * reports each done (DRM_IOCTL_MVGAL_EXEC_DONE), with a sync_file fence
 * that signals when its GPU finished the copy. It may wait for copies in
 * EXEC_TAKE, or poll its file: when copies come to an executor that had
 * none waiting, its file gets a DRM event (struct drm_mvgal_event_exec,
 * read() as other DRM events), after which it takes copies with
 * MVGAL_EXEC_TAKE_NONBLOCK until -EAGAIN.
 *
 * An executor is a process of its own: a copy may be waited for by a CPU
 * fault in another process, or in the caller of any mvgal call, holding
 * locks (that process's mmap lock, the buffer's) that the executor's own
 * mapping of the copy's pages, or its own mvgal calls, would wait for.
 *
 * The host side of each copy is a dma-buf of exactly the pages the copy
 * touches, made for that copy and revoked when mvgal stops waiting for
 * it: its CPU mappings are taken away (a later access is SIGBUS) and a
 * new mmap is refused. Pages are never handed out for longer, because
 * mvgal moves a buffer's host pages (NUMA placement, eviction).
 *
 * mvgal trusts an executor with nothing it cannot check. A copy whose
 * executor reports an error, or signals a fence with an error, or goes
 * away (unregisters, its file closed) before taking it, is made again by
 * the CPU, whole. A copy whose bytes come out wrong (after every copy
 * mvgal compares three windows of the destination with what the source
 * held before) is made again by the CPU and the executor is
 * unregistered. A copy not done within the module parameter
 * exec_timeout_ms fails with -ETIMEDOUT (the job fails, its chunks stay
 * where they were) and the executor is unregistered, and one taken by an
 * executor that goes before reporting it fails with -EIO: mvgal cannot
 * stop a GPU that may still write, so it does not let the CPU race it. The path selector uses an
 * executor only where MVGAL_METHOD_EXEC is forced (module parameter
 * force_method=4) or where calibration found it right and cheapest.
 */

/* The DRM event type of &drm_mvgal_event_exec (a driver's own range). */
#define MVGAL_EVENT_EXEC_WORK	0x80000000

/**
 * struct drm_mvgal_event_exec - copies wait for an executor
 *
 * Read from an executor's file when copies came while none waited (see
 * "copy executors"). Only the first of a run of copies sends one, and
 * none is sent while the file's event space (DRM's 4 KiB) is full or no
 * memory can be had for it: an executor that polls drains the queue each
 * time, and waits with a timeout.
 */
struct drm_mvgal_event_exec {
	/** @base: (out) type MVGAL_EVENT_EXEC_WORK, length 16. */
	struct drm_event base;
	/** @gpu: (out) the GPU whose executor has copies to take. */
	__u32 gpu;
	/** @pad: (out) 0. */
	__u32 pad;
};

/* &drm_mvgal_exec_register.flags */
#define MVGAL_EXEC_UNREGISTER	(1U << 0)

/**
 * struct drm_mvgal_exec_register - DRM_IOCTL_MVGAL_EXEC_REGISTER
 *
 * Makes the calling file the copy executor of GPU @gpu, or with
 * MVGAL_EXEC_UNREGISTER ends that (copies it has not reported done are
 * made by the CPU). Closing the file ends it too. Needs CAP_SYS_ADMIN.
 * Errors: -EINVAL (unknown flags, a slot out of range, a struct of
 * another size), -ENODEV (an empty slot), -EBUSY (another executor is
 * registered for @gpu, or this file is already), -ENOENT (unregistering
 * a GPU this file is not the executor of), -EPERM.
 */
struct drm_mvgal_exec_register {
	/** @gpu: (in) GPU index. */
	__u32 gpu;
	/** @flags: (in) 0 or MVGAL_EXEC_UNREGISTER. */
	__u32 flags;
};

/* &drm_mvgal_exec_take.flags */
#define MVGAL_EXEC_TAKE_NONBLOCK	(1U << 0)

/* &drm_mvgal_exec_take.dir */
#define MVGAL_EXEC_TO_POOL	0	/* host pages -> pool */
#define MVGAL_EXEC_FROM_POOL	1	/* pool -> host pages */

/**
 * struct drm_mvgal_exec_take - DRM_IOCTL_MVGAL_EXEC_TAKE
 *
 * Takes the next copy for GPU @gpu's executor, waiting (interruptibly)
 * for one unless MVGAL_EXEC_TAKE_NONBLOCK. Copy @length bytes between
 * [@host_offset, +@length) of @host_fd and [@pool_offset, +@length) of
 * the pool's dma-buf (DRM_IOCTL_MVGAL_POOL_FD), in direction @dir, then
 * report it with DRM_IOCTL_MVGAL_EXEC_DONE; close @host_fd after.
 * Errors: -EINVAL (unknown flags, a slot out of range, a struct of
 * another size), -EPERM (this file is not, or no longer, @gpu's
 * executor), -EAGAIN (nothing to take and MVGAL_EXEC_TAKE_NONBLOCK),
 * -ENODEV (the registration ended while waiting: the GPU went, a copy
 * came out wrong or past its deadline), -EINTR, -EMFILE.
 */
struct drm_mvgal_exec_take {
	/** @gpu: (in) GPU index. */
	__u32 gpu;
	/** @flags: (in) 0 or MVGAL_EXEC_TAKE_NONBLOCK. */
	__u32 flags;
	/** @job: (out) the copy's id, for DRM_IOCTL_MVGAL_EXEC_DONE. */
	__u64 job;
	/** @dir: (out) MVGAL_EXEC_TO_POOL or MVGAL_EXEC_FROM_POOL. */
	__u32 dir;
	/** @host_fd: (out) a dma-buf (O_CLOEXEC) of the copy's host pages. */
	__s32 host_fd;
	/** @host_offset: (out) the copy's first byte in @host_fd. */
	__u64 host_offset;
	/** @pool_offset: (out) the copy's first byte in the pool. */
	__u64 pool_offset;
	/** @length: (out) bytes. */
	__u64 length;
};

/**
 * struct drm_mvgal_exec_done - DRM_IOCTL_MVGAL_EXEC_DONE
 *
 * Reports copy @job of GPU @gpu's executor: submitted, with @fence_fd a
 * sync_file that signals when the copy is complete (an error on the
 * fence fails it), or complete already with @fence_fd -1; or failed,
 * with a negative errno in @status. Errors: -EINVAL (unknown flags, a
 * slot out of range, a struct of another size, a @status that is
 * positive or not an errno, a @fence_fd that is not a sync_file, or one
 * given with a failure), -EPERM (this file is not, or no longer, @gpu's
 * executor), -ENOENT (no copy @job is
 * taken by this executor and not yet reported: an unknown id, one
 * reported or given up on already).
 */
struct drm_mvgal_exec_done {
	/** @gpu: (in) GPU index. */
	__u32 gpu;
	/** @flags: (in) must be 0. */
	__u32 flags;
	/** @job: (in) &drm_mvgal_exec_take.job. */
	__u64 job;
	/** @fence_fd: (in) a sync_file, or -1. */
	__s32 fence_fd;
	/** @status: (in) 0, or the copy's negative errno. */
	__s32 status;
};

#define DRM_MVGAL_GET_INFO	0x00

#define DRM_MVGAL_GPU_ATTACH	0x01
#define DRM_MVGAL_GPU_DETACH	0x02
#define DRM_MVGAL_GPU_INFO	0x03
#define DRM_MVGAL_GPU_LINK	0x04
#define DRM_MVGAL_GET_HEAP	0x05
#define DRM_MVGAL_BO_CREATE	0x06
#define DRM_MVGAL_BO_INFO	0x07
#define DRM_MVGAL_BO_PWRITE	0x08
#define DRM_MVGAL_BO_PREAD	0x09
#define DRM_MVGAL_BO_COPY	0x0a
#define DRM_MVGAL_BO_LIST	0x0b
#define DRM_MVGAL_BEGIN		0x0c
#define DRM_MVGAL_END		0x0d
#define DRM_MVGAL_MIGRATE	0x0e
#define DRM_MVGAL_CANCEL	0x0f
#define DRM_MVGAL_PLACE_FREE	0x10
#define DRM_MVGAL_GET_STATS	0x11
#define DRM_MVGAL_GET_PATH	0x12
#define DRM_MVGAL_CALIBRATE	0x13
#define DRM_MVGAL_POOL_FD	0x14
#define DRM_MVGAL_HARVEST	0x15
#define DRM_MVGAL_FILE_FLAGS	0x16
#define DRM_MVGAL_GPU_BUDGET	0x17
#define DRM_MVGAL_POOL_LRU	0x18
#define DRM_MVGAL_REPLICATE	0x19
#define DRM_MVGAL_ADVISE	0x1a
#define DRM_MVGAL_PLACE_FD	0x1b
#define DRM_MVGAL_BO_USERPTR	0x1c
#define DRM_MVGAL_BO_MARK	0x1d
#define DRM_MVGAL_PLACE_ADOPT	0x1e
#define DRM_MVGAL_EXEC_REGISTER	0x1f
#define DRM_MVGAL_EXEC_TAKE	0x20
#define DRM_MVGAL_EXEC_DONE	0x21

#define DRM_IOCTL_MVGAL_GET_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GET_INFO, struct drm_mvgal_get_info)
#define DRM_IOCTL_MVGAL_GPU_ATTACH \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GPU_ATTACH, struct drm_mvgal_gpu_attach)
#define DRM_IOCTL_MVGAL_GPU_DETACH \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_GPU_DETACH, struct drm_mvgal_gpu_detach)
#define DRM_IOCTL_MVGAL_GPU_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GPU_INFO, struct drm_mvgal_gpu_info)
#define DRM_IOCTL_MVGAL_GPU_LINK \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GPU_LINK, struct drm_mvgal_gpu_link)
#define DRM_IOCTL_MVGAL_GET_HEAP \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GET_HEAP, struct drm_mvgal_get_heap)
#define DRM_IOCTL_MVGAL_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_BO_CREATE, struct drm_mvgal_bo_create)
#define DRM_IOCTL_MVGAL_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_BO_INFO, struct drm_mvgal_bo_info)
#define DRM_IOCTL_MVGAL_BO_PWRITE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_BO_PWRITE, struct drm_mvgal_bo_rw)
#define DRM_IOCTL_MVGAL_BO_PREAD \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_BO_PREAD, struct drm_mvgal_bo_rw)
#define DRM_IOCTL_MVGAL_BO_COPY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_BO_COPY, struct drm_mvgal_bo_copy)
#define DRM_IOCTL_MVGAL_BO_LIST \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_BO_LIST, struct drm_mvgal_bo_list)
#define DRM_IOCTL_MVGAL_BEGIN \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_BEGIN, struct drm_mvgal_begin)
#define DRM_IOCTL_MVGAL_END \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_END, struct drm_mvgal_end)
#define DRM_IOCTL_MVGAL_MIGRATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_MIGRATE, struct drm_mvgal_migrate)
#define DRM_IOCTL_MVGAL_CANCEL \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_CANCEL, struct drm_mvgal_cancel)
#define DRM_IOCTL_MVGAL_PLACE_FREE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_PLACE_FREE, struct drm_mvgal_place_free)
#define DRM_IOCTL_MVGAL_GET_STATS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GET_STATS, struct drm_mvgal_stats)
#define DRM_IOCTL_MVGAL_GET_PATH \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GET_PATH, struct drm_mvgal_path)
#define DRM_IOCTL_MVGAL_CALIBRATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_CALIBRATE, struct drm_mvgal_calibrate)
#define DRM_IOCTL_MVGAL_POOL_FD \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_POOL_FD, struct drm_mvgal_pool_fd)
#define DRM_IOCTL_MVGAL_HARVEST \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_HARVEST, struct drm_mvgal_harvest)
#define DRM_IOCTL_MVGAL_FILE_FLAGS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_FILE_FLAGS, struct drm_mvgal_file_flags)
#define DRM_IOCTL_MVGAL_GPU_BUDGET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GPU_BUDGET, struct drm_mvgal_gpu_budget)
#define DRM_IOCTL_MVGAL_POOL_LRU \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_POOL_LRU, struct drm_mvgal_pool_lru)
#define DRM_IOCTL_MVGAL_REPLICATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_REPLICATE, struct drm_mvgal_replicate)
#define DRM_IOCTL_MVGAL_ADVISE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_ADVISE, struct drm_mvgal_advise)
#define DRM_IOCTL_MVGAL_PLACE_FD \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_PLACE_FD, struct drm_mvgal_place_fd)
#define DRM_IOCTL_MVGAL_BO_USERPTR \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_BO_USERPTR, struct drm_mvgal_bo_userptr)
#define DRM_IOCTL_MVGAL_BO_MARK \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_BO_MARK, struct drm_mvgal_bo_mark)
#define DRM_IOCTL_MVGAL_PLACE_ADOPT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_PLACE_ADOPT, struct drm_mvgal_place_adopt)
#define DRM_IOCTL_MVGAL_EXEC_REGISTER \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_EXEC_REGISTER, struct drm_mvgal_exec_register)
#define DRM_IOCTL_MVGAL_EXEC_TAKE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_EXEC_TAKE, struct drm_mvgal_exec_take)
#define DRM_IOCTL_MVGAL_EXEC_DONE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_MVGAL_EXEC_DONE, struct drm_mvgal_exec_done)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_MVGAL_DRM_H_ */
