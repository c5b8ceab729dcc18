/* SPDX-License-Identifier: MIT */
/*
 * libmvgal: the public API.
 *
 * Conventions: functions return 0 or a negative errno; handles are
 * opaque; file descriptors are opened O_CLOEXEC; EINTR is retried.
 *
 * Struct sizes, so that structs can grow without a new soname: every
 * function that reads or fills a struct (or an array of structs) the
 * caller owns has a sized entry point, NAME_sz(), that takes the size
 * the caller was compiled with (for an array: the size of one element).
 * This header turns each call of NAME(...) into NAME_sz(..., sizeof(the
 * struct)), so a program passes its own sizes by being compiled, and
 * the library:
 *  - fills min(caller's size, library's size) bytes and zeroes the rest
 *    of a larger caller struct: a program built against a later header
 *    reads 0 in the fields this library does not know, never garbage;
 *  - reads only the caller's bytes: fields a smaller (older) struct
 *    lacks count as 0 (uapi structs) or as their defaults (struct
 *    mvgal_config); in-out uapi structs larger than the library knows
 *    must be zero beyond, else -E2BIG; sizes below those of ABI 1 are
 *    -EINVAL;
 *  - passes an array's element size to the module as the stride (see
 *    "array strides" in <drm/mvgal_drm.h>).
 * The unsized symbols stay, for programs built before this rule: they
 * use the sizes of ABI 1 (libmvgal 0.1 to 0.4) forever. A struct grows
 * only at its end, by whole 8-byte units of named fields or explicit
 * padding, so that each version has a size of its own. Take the address
 * of NAME_sz, not of NAME, to keep the sizes.
 */
#ifndef MVGAL_MVGAL_H
#define MVGAL_MVGAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/mvgal_drm.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MVGAL_API __attribute__((visibility("default")))

/* Default location of the configuration file; MVGAL_CONFIG overrides. */
#define MVGAL_CONFIG_PATH "/etc/mvgal/mvgal.conf"

/** An open mvgal device. */
struct mvgal;

/** What the module says about itself (DRM_IOCTL_MVGAL_GET_INFO). */
struct mvgal_info {
	uint32_t abi_version;	/* MVGAL_ABI_VERSION of the module */
	uint32_t chunk_size;	/* coherence chunk in bytes */
	uint32_t gpu_count;	/* GPUs attached now */
	uint32_t max_gpus;	/* MVGAL_MAX_GPUS */
	uint32_t core_flags;	/* MVGAL_CORE_* */
	uint32_t stats_interval; /* seconds */
	uint64_t caps;		/* MVGAL_CAP_* */
	char driver_version[32]; /* "major.minor.patch" of the DRM driver */
};

/**
 * mvgal_open() - open the mvgal render node
 * @out: (out) the device
 *
 * Finds the DRM device whose driver is "mvgal" through libdrm's device
 * enumeration, and reads [dri] enable_prime from the configuration file
 * (mvgal_config_path(); a missing or malformed file means true). Return:
 * 0, -ENODEV when the module is not loaded, or the errno of the failed
 * open (e.g. -EACCES).
 */
MVGAL_API int mvgal_open(struct mvgal **out);

/**
 * mvgal_open_path() - open a given DRM node that must be an mvgal node;
 * the configuration is read as by mvgal_open().
 */
MVGAL_API int mvgal_open_path(const char *path, struct mvgal **out);

/** mvgal_close() - close a device; NULL is allowed. */
MVGAL_API void mvgal_close(struct mvgal *dev);

/** mvgal_fd() - the DRM file descriptor of the device. */
MVGAL_API int mvgal_fd(const struct mvgal *dev);

/** mvgal_node_path() - the /dev/dri path the device was opened from. */
MVGAL_API const char *mvgal_node_path(const struct mvgal *dev);

/** mvgal_get_info() - fill @info from the module. */
MVGAL_API int mvgal_get_info(struct mvgal *dev, struct mvgal_info *info);

/** mvgal_cap_name() - name of one MVGAL_CAP_* bit, or NULL if unknown. */
MVGAL_API const char *mvgal_cap_name(uint64_t cap);

/*
 * A [gpu:NAME] section: the settings of the GPU whose device the kernel
 * names NAME (its PCI address, such as 0000:03:00.0, or a platform
 * device's name; GPU_INFO's slot), whatever slot it lands in.
 */
struct mvgal_config_gpu {
	char name[56];
	uint64_t memory_limit_mb;
};

/** The contents of mvgal.conf; see etc/mvgal.conf for every key. */
struct mvgal_config {
	/* [core] */
	bool enable_memory_migration;
	bool enable_dmabuf;
	unsigned int stats_interval;
	/* [gpu_N]: by attach slot; [gpu:NAME] (gpu_named) wins over it */
	uint64_t memory_limit_mb[MVGAL_MAX_GPUS];
	/* [dri] */
	char device_pattern[256];
	bool enable_prime;
	/* [policy]: module parameters, set by mvgal_config_apply() */
	unsigned int evict_policy;
	bool prefetch;
	unsigned int mirror_window_ms;
	unsigned int mirror_start_reads;
	unsigned int mirror_stop_writes;
	unsigned int mirror_hold_windows;
	/* ABI 1 ended here; its tail padding stays unused, so that this
	 * version's size differs from ABI 1's.
	 */
	uint32_t pad_v1;
	unsigned int graphics_replicate_mb;
	uint32_t pad_v2;
	/*
	 * The keys the file set (MVGAL_CONFIG_SET_*; mvgal_config_load()
	 * fills it, mvgal_config_defaults() clears it). The boot step
	 * writes only these module parameters, so that a value set with
	 * modprobe or in /etc/modprobe.d stays unless the file sets it.
	 */
	uint64_t keys_set;
	/* [gpu:NAME] sections, in file order; an unused one has name "". */
	struct mvgal_config_gpu gpu_named[MVGAL_MAX_GPUS];
};

/* mvgal_config.keys_set bits: one per key, in the file's order. */
#define MVGAL_CONFIG_SET_ENABLE_MEMORY_MIGRATION	((uint64_t)1 << 0)
#define MVGAL_CONFIG_SET_ENABLE_DMABUF			((uint64_t)1 << 1)
#define MVGAL_CONFIG_SET_STATS_INTERVAL			((uint64_t)1 << 2)
#define MVGAL_CONFIG_SET_MEMORY_LIMIT_MB		((uint64_t)1 << 3)
#define MVGAL_CONFIG_SET_DEVICE_PATTERN			((uint64_t)1 << 4)
#define MVGAL_CONFIG_SET_ENABLE_PRIME			((uint64_t)1 << 5)
#define MVGAL_CONFIG_SET_EVICT_POLICY			((uint64_t)1 << 6)
#define MVGAL_CONFIG_SET_PREFETCH			((uint64_t)1 << 7)
#define MVGAL_CONFIG_SET_MIRROR_WINDOW_MS		((uint64_t)1 << 8)
#define MVGAL_CONFIG_SET_MIRROR_START_READS		((uint64_t)1 << 9)
#define MVGAL_CONFIG_SET_MIRROR_STOP_WRITES		((uint64_t)1 << 10)
#define MVGAL_CONFIG_SET_MIRROR_HOLD_WINDOWS		((uint64_t)1 << 11)
#define MVGAL_CONFIG_SET_GRAPHICS_REPLICATE_MB		((uint64_t)1 << 12)

/*
 * The @err a mvgal_attach_all() callback gets for a display-only device
 * (a KMS node whose driver made no render node: simpledrm, bochs) that it
 * skipped because no [gpu:NAME] section names it: such a device has no
 * GPU memory to lend. Not an error of the call.
 */
#define MVGAL_ATTACH_DISPLAY_ONLY	(-EMEDIUMTYPE)

/** mvgal_config_defaults() - fill @cfg with every key's default. */
MVGAL_API void mvgal_config_defaults(struct mvgal_config *cfg);

/**
 * mvgal_config_apply() - set the module parameters of @cfg's [core] and
 * [policy] sections (/sys/module/mvgal/parameters, root), all of them;
 * mvgal_attach_all() writes only those of @cfg->keys_set and ignores
 * their errors
 *
 * Return: 0 or -errno of the first parameter that could not be written.
 */
MVGAL_API int mvgal_config_apply(const struct mvgal_config *cfg);

/**
 * mvgal_config_load() - parse a configuration file
 * @path: the file; NULL means $MVGAL_CONFIG, else MVGAL_CONFIG_PATH
 * @cfg: (out) defaults overlaid with the file's keys; on failure, defaults
 * @err: (out, optional) a message naming the file, line and key
 * @errlen: size of @err
 *
 * Unknown sections or keys, duplicate keys and malformed values are
 * rejected. Return: 0, -ENOENT when the file does not exist, -EINVAL when
 * it is malformed, -EFBIG when it is larger than 1 MiB, or the errno of a
 * failed read.
 */
MVGAL_API int mvgal_config_load(const char *path, struct mvgal_config *cfg,
				char *err, size_t errlen);

/** mvgal_config_path() - the path mvgal_config_load(NULL, ...) reads. */
MVGAL_API const char *mvgal_config_path(void);

/* ---- GPUs, pools, topology, heap ---- */

/*
 * The GPU calls return the uapi structs of <drm/mvgal_drm.h> as the module
 * fills them; see there for every field.
 */

/** Pool size tried first when [gpu_N] memory_limit_mb is 0, in MiB. */
#define MVGAL_POOL_DEFAULT_MB	256
/** Smallest pool libmvgal asks a driver for, in MiB. */
#define MVGAL_POOL_MIN_MB	64

/**
 * mvgal_gpu_attach() - attach a GPU and the dma-buf pool it lends
 * @dev: the mvgal device
 * @drm_fd: an open fd of the GPU's DRM node
 * @pool_fd: a dma-buf allocated through that GPU's driver
 * @slot: the slot to use, or MVGAL_GPU_ANY
 * @index: (out, optional) the slot used
 *
 * Needs CAP_SYS_ADMIN. Return: 0 or the module's -errno (see
 * &struct drm_mvgal_gpu_attach).
 */
MVGAL_API int mvgal_gpu_attach(struct mvgal *dev, int drm_fd, int pool_fd,
			       uint32_t slot, uint32_t *index);

/**
 * mvgal_gpu_attach_node() - allocate a GPU's pool and attach the GPU
 * @dev: the mvgal device
 * @path: a DRM node of the GPU (card or render)
 * @pool_mb: pool size in MiB; 0 = the largest the driver grants, tried
 *	from MVGAL_POOL_DEFAULT_MB down to MVGAL_POOL_MIN_MB, halving
 * @slot: the slot to use, or MVGAL_GPU_ANY
 * @index: (out, optional) the slot used
 *
 * The pool is a dumb buffer created on the GPU's card node and exported
 * with PRIME; where the card node cannot be found (a container that passes
 * render nodes alone), the driver's own allocation on the render node, for
 * the drivers libmvgal knows (virtio_gpu). Return: 0, -EEXIST if the GPU
 * is attached already, -ENOMEM when not even the smallest pool is
 * granted, -ENOSYS when the driver makes no pool libmvgal knows, or
 * another -errno.
 */
MVGAL_API int mvgal_gpu_attach_node(struct mvgal *dev, const char *path,
				    uint64_t pool_mb, uint32_t slot,
				    uint32_t *index);

/** mvgal_gpu_detach() - detach a GPU (CAP_SYS_ADMIN); -EBUSY while in use. */
MVGAL_API int mvgal_gpu_detach(struct mvgal *dev, uint32_t gpu);

/** mvgal_gpu_info() - identity, topology, pool and state of one GPU. */
MVGAL_API int mvgal_gpu_info(struct mvgal *dev, uint32_t gpu,
			     struct drm_mvgal_gpu_info *info);

/**
 * mvgal_gpu_list() - the slots that hold a GPU, in ascending order
 * @dev: the mvgal device
 * @gpus: (out) up to @max slot numbers
 * @max: capacity of @gpus
 *
 * Return: the number of attached GPUs (may exceed @max), or -errno.
 */
MVGAL_API int mvgal_gpu_list(struct mvgal *dev, uint32_t *gpus,
			     unsigned int max);

/** mvgal_gpu_link() - how GPU @dst reaches data in GPU @src's pool. */
MVGAL_API int mvgal_gpu_link(struct mvgal *dev, uint32_t src, uint32_t dst,
			     struct drm_mvgal_gpu_link *link);

/**
 * mvgal_get_heap() - the unified heap
 * @dev: the mvgal device
 * @regions: (out) region 0 system RAM, then one per attached GPU pool
 * @nr_regions: (in) capacity of @regions; (out) regions that exist
 * @nodes: (out, optional) system RAM per online NUMA node
 * @nr_nodes: (in) capacity of @nodes; (out) online nodes
 */
MVGAL_API int mvgal_get_heap(struct mvgal *dev,
			     struct drm_mvgal_heap_region *regions,
			     uint32_t *nr_regions,
			     struct drm_mvgal_heap_region *nodes,
			     uint32_t *nr_nodes);

/** Called by mvgal_attach_all() for every node it considered. */
typedef void (*mvgal_attach_cb)(const char *path, int result, uint32_t gpu,
				void *ctx);

/**
 * mvgal_attach_all() - attach every GPU the configuration names
 * @dev: the mvgal device
 * @cfg: the configuration ([dri] device_pattern, [gpu:NAME] and [gpu_N]
 *	memory_limit_mb, the [core] and [policy] keys of @cfg->keys_set)
 * @cb: (optional) told the result of each node: 0 attached at @gpu,
 *	-EEXIST already attached, MVGAL_ATTACH_DISPLAY_ONLY skipped, or the
 *	error
 * @ctx: passed to @cb
 *
 * First writes the module parameters of the [core] and [policy] keys the
 * file set (all of them for a caller built before keys_set); a program
 * that fills @cfg itself sets the MVGAL_CONFIG_SET_* bit of each field it
 * wants written. Nodes
 * matching device_pattern are taken in sorted order; mvgal's own node is
 * skipped, as are nodes of GPUs attached already and display-only devices
 * no [gpu:NAME] section names. Each new GPU takes the
 * lowest free slot N and a pool of memory_limit_mb from the [gpu:NAME]
 * section of its device, else from [gpu_N].
 * When at least one GPU was attached, the caller is root and the module
 * has MVGAL_CAP_MIGRATION, the paths are then calibrated (best effort:
 * a failed calibration does not fail the call).
 *
 * Return: the number of GPUs attached now, or the first -errno (after
 * trying every node).
 */
MVGAL_API int mvgal_attach_all(struct mvgal *dev,
			       const struct mvgal_config *cfg,
			       mvgal_attach_cb cb, void *ctx);

/**
 * mvgal_method_name() - "in-place", "p2p", "cpu-copy", "staging",
 * "executor", "none".
 */
MVGAL_API const char *mvgal_method_name(uint32_t method);
/** mvgal_reason_text() - why a method is not possible (MVGAL_REASON_*). */
MVGAL_API const char *mvgal_reason_text(uint32_t reason);
/** mvgal_why_text() - why a method was chosen (MVGAL_WHY_*). */
MVGAL_API const char *mvgal_why_text(uint32_t why);

/* ---- buffers ---- */

/**
 * mvgal_bo_create() - create a buffer
 * @dev: the mvgal device
 * @size: bytes, 1..MVGAL_BO_MAX_SIZE
 * @flags: MVGAL_BO_*
 * @gpu: the GPU it is for (NUMA node of its pages; pool of a device-only
 *	buffer), or MVGAL_GPU_ANY
 * @handle: (out) the buffer
 */
MVGAL_API int mvgal_bo_create(struct mvgal *dev, uint64_t size, uint32_t flags,
			      uint32_t gpu, uint32_t *handle);
/**
 * mvgal_bo_create_shared() - mvgal_bo_create() with a sharing mode
 * @sharing: MVGAL_SHARING_*; anything but NONE needs MVGAL_BO_DMA_BUF
 */
MVGAL_API int mvgal_bo_create_shared(struct mvgal *dev, uint64_t size,
				     uint32_t flags, uint32_t gpu,
				     uint32_t sharing, uint32_t *handle);
/**
 * mvgal_bo_export() - export a buffer as a dma-buf fd (O_CLOEXEC, read-write)
 *
 * -EPERM unless created with MVGAL_BO_DMA_BUF and a sharing mode;
 * -EOPNOTSUPP for device-only buffers; -EACCES when the configuration
 * file read at mvgal_open() has [dri] enable_prime = false.
 */
MVGAL_API int mvgal_bo_export(struct mvgal *dev, uint32_t handle, int *fd);
/**
 * mvgal_bo_import() - a dma-buf fd as a buffer; its size is the dma-buf's.
 * Importing the same dma-buf again gives the same handle. -EACCES when
 * the configuration file read at mvgal_open() has [dri] enable_prime =
 * false.
 */
MVGAL_API int mvgal_bo_import(struct mvgal *dev, int fd, uint32_t *handle);
/**
 * mvgal_bo_list() - the caller's buffers (its user's; all for root)
 * @dev: the mvgal device
 * @entries: (out) up to *@count entries
 * @count: (in) capacity; (out) how many buffers there are
 */
MVGAL_API int mvgal_bo_list(struct mvgal *dev, struct drm_mvgal_bo_entry *entries,
			    uint32_t *count);
/** mvgal_bo_destroy() - drop the handle (GEM_CLOSE); mappings stay valid. */
MVGAL_API int mvgal_bo_destroy(struct mvgal *dev, uint32_t handle);
/** mvgal_bo_info() - properties and statistics of a buffer. */
MVGAL_API int mvgal_bo_info(struct mvgal *dev, uint32_t handle,
			    struct drm_mvgal_bo_info *info);
/**
 * mvgal_bo_map() - map a host-valid buffer into the caller's memory
 * @dev: the mvgal device
 * @handle: the buffer
 * @ptr: (out) the mapping, of the buffer's size rounded up to pages
 *
 * Unmap with munmap(ptr, size). -EINVAL for device-only buffers.
 */
MVGAL_API int mvgal_bo_map(struct mvgal *dev, uint32_t handle, void **ptr);
/** mvgal_bo_write() - copy @size bytes from @src into the buffer at @offset. */
MVGAL_API int mvgal_bo_write(struct mvgal *dev, uint32_t handle,
			     uint64_t offset, const void *src, uint64_t size);
/**
 * mvgal_bo_write_flags() - mvgal_bo_write() with BO_PWRITE's flags
 * (MVGAL_0.8)
 *
 * MVGAL_RW_STAGED: a write of at most max_staged_bytes into chunks GPU
 * work still uses returns without waiting for it; @src may be reused at
 * once, and every later access sees the bytes in order (see struct
 * drm_mvgal_bo_rw). -EINVAL from a module without staged writes.
 */
MVGAL_API int mvgal_bo_write_flags(struct mvgal *dev, uint32_t handle,
				   uint64_t offset, const void *src,
				   uint64_t size, uint32_t flags);
/**
 * mvgal_bo_userptr() - the caller's memory as a buffer (MVGAL_0.8):
 * DRM_IOCTL_MVGAL_BO_USERPTR with @args (user_ptr page-aligned, size,
 * flags MVGAL_USERPTR_*, bo_flags with MVGAL_BO_HOST_VALID, sharing);
 * the handle comes back in @args. See struct drm_mvgal_bo_userptr for
 * what the buffer sees of the application's writes.
 */
MVGAL_API int mvgal_bo_userptr(struct mvgal *dev,
			       struct drm_mvgal_bo_userptr *args);
/**
 * mvgal_bo_mark() - the application wrote [@offset, @offset + @size) of
 * a buffer registered with MVGAL_USERPTR_MARKS through its own mapping
 * (MVGAL_0.8)
 */
MVGAL_API int mvgal_bo_mark(struct mvgal *dev, uint32_t handle,
			    uint64_t offset, uint64_t size);
/**
 * mvgal_userptr_watch() - libmvgal marks what this process writes to the
 * memory of @handle, a registration this @dev made with
 * MVGAL_USERPTR_MIRROR and MVGAL_USERPTR_MARKS, before each BEGIN that
 * names it (mvgal_begin(), and BEGIN through mvgal_ring_prep()), so that
 * the application need not (MVGAL_0.12). The memory is write-protected
 * with a userfaultfd in asynchronous mode (a write just lifts the
 * protection) and scanned with PAGEMAP_SCAN; a range mapped again since
 * is taken as written all through, and watched again. Writes made before
 * the call, and writes through another mapping of shared memory, are the
 * caller's to mark. A mark failing fails the BEGIN; the writes stay
 * recorded. The watch ends with the buffer's mvgal_bo_destroy().
 * A chunk a GPU holds alone, or one a live session uses, is left as it
 * is by the marks (MVGAL_MARK_HOME_HELD).
 *
 * Return: 0; -EINVAL (not such a registration); -EOPNOTSUPP (a kernel
 * before 6.7, or without userfaultfd; a module without
 * MVGAL_CAP_MARK_HOME_HELD; a process forked from the one whose @dev
 * watches already); -EPERM (userfaultfd not allowed to this process);
 * -EBUSY (the memory is registered with another userfaultfd); another
 * -errno of userfaultfd.
 */
MVGAL_API int mvgal_userptr_watch(struct mvgal *dev, uint32_t handle);
/**
 * mvgal_bo_overwrite() - the caller is about to write every byte of
 * [@offset, @offset + @size) through its mapping of the buffer
 * (mvgal_bo_map()): the chunks the range covers whole come home without
 * being fetched, so the writes do not wait for copies that would be
 * overwritten (MVGAL_MARK_OVERWRITE; MVGAL_0.11). What a GPU held in those
 * chunks is dropped at the call, written or not: their bytes are
 * undefined until the caller writes them. Return: 0, -EINVAL (a
 * registered buffer, a range beyond the buffer; a module without
 * MVGAL_CAP_MARK_OVERWRITE), -ENOENT, -EACCES (a read-only handle), -EBUSY
 * (a live session uses the chunks), -ENOMEM, -EDQUOT, -EINTR.
 */
MVGAL_API int mvgal_bo_overwrite(struct mvgal *dev, uint32_t handle,
				 uint64_t offset, uint64_t size);
/** mvgal_bo_read() - copy @size bytes of the buffer at @offset into @dst. */
MVGAL_API int mvgal_bo_read(struct mvgal *dev, uint32_t handle,
			    uint64_t offset, void *dst, uint64_t size);
/**
 * mvgal_bo_copy() - copy @size bytes between two buffers (or within one,
 * with memmove() semantics), each offset applied once.
 */
MVGAL_API int mvgal_bo_copy(struct mvgal *dev, uint32_t dst, uint64_t dst_offset,
			    uint32_t src, uint64_t src_offset, uint64_t size);

/* ---- access sessions, migration, paths (MVGAL_CAP_SESSIONS/_MIGRATION) ---- */

/*
 * Locations are MVGAL_LOC_HOST or 1 + a GPU slot. Fences are sync_file
 * fds (O_CLOEXEC) that the caller closes; -1 means "none" where a fence
 * is passed in.
 */

/**
 * mvgal_begin() - begin an access session (DRM_IOCTL_MVGAL_BEGIN)
 * @dev: the mvgal device
 * @gpu: the GPU that will access the buffers
 * @flags: MVGAL_ACCESS_READ or _WRITE, optionally MVGAL_ACCESS_NO_IN_PLACE
 * @priority: MVGAL_PRIO_* of the copies
 * @in_fence_fd: a sync_file the copies wait for too, or -1
 * @accesses: (in/out) the buffers and their ranges; pool_gpu and
 *	pool_offset tell where each buffer's bytes are
 * @count: entries in @accesses, 1..MVGAL_SESSION_MAX_BUFFERS
 * @session: (out) the session, for mvgal_end()
 * @out_fence_fd: (out) sync_file that signals when the data is in place
 * @bytes_copied: (out, optional) bytes the copies move
 *
 * Return: 0 or the module's -errno (see &struct drm_mvgal_begin).
 */
MVGAL_API int mvgal_begin(struct mvgal *dev, uint32_t gpu, uint32_t flags,
			  uint32_t priority, int in_fence_fd,
			  struct drm_mvgal_access *accesses, uint32_t count,
			  uint32_t *session, int *out_fence_fd,
			  uint64_t *bytes_copied);
/**
 * mvgal_end() - end a session (DRM_IOCTL_MVGAL_END)
 * @dev: the mvgal device
 * @session: from mvgal_begin()
 * @fence_fd: sync_file of the GPU work, or -1 when it is done
 * @written: (optional) the ranges written (handle and ranges only)
 * @count: entries in @written; 0 for WRITE: everything named was written
 */
MVGAL_API int mvgal_end(struct mvgal *dev, uint32_t session, int fence_fd,
			const struct drm_mvgal_access *written, uint32_t count);
/**
 * mvgal_migrate() - make a range current at a location, as one job
 *
 * The caller fills the (in) fields of @m; job, bytes and out_fence_fd are
 * filled on success only. -EPERM while enable_memory_migration is off.
 */
MVGAL_API int mvgal_migrate(struct mvgal *dev, struct drm_mvgal_migrate *m);
/**
 * mvgal_session_begin() - mvgal_begin() with the ioctl's whole struct
 *
 * For what mvgal_begin() does not take: the syncobjs (in_syncobj,
 * out_syncobj and their points; handles on mvgal_fd()'s file, see
 * "syncobjs" in the uapi header). The caller fills the (in) fields of @b
 * (stride 0 for an array of today's &struct drm_mvgal_access); session,
 * out_fence_fd and bytes_copied, and each access's results, are filled
 * on success only.
 */
MVGAL_API int mvgal_session_begin(struct mvgal *dev, struct drm_mvgal_begin *b);
/** mvgal_session_end() - mvgal_end() with the ioctl's whole struct. */
MVGAL_API int mvgal_session_end(struct mvgal *dev,
				const struct drm_mvgal_end *e);
/**
 * mvgal_cancel() - cancel a job @dev queued that has not started; -EBUSY
 * once it has, -ENOENT for a job of another handle.
 */
MVGAL_API int mvgal_cancel(struct mvgal *dev, uint64_t job);
/** mvgal_place_free() - free a buffer's placement in @gpu's pool. */
MVGAL_API int mvgal_place_free(struct mvgal *dev, uint32_t handle,
			       uint32_t gpu);
/**
 * mvgal_place_fd() - a dma-buf of a buffer's copy in a GPU's pool
 * (DRM_IOCTL_MVGAL_PLACE_FD), for a GPU API to import
 * @dev: the device
 * @handle: the buffer
 * @gpu: the GPU
 * @flags: MVGAL_PLACE_FD_RDWR for a read-write fd, or 0
 * @fd: (out) the dma-buf (O_CLOEXEC)
 * @size: (out, may be NULL) its size
 *
 * Return: 0 or the module's -errno (see &struct drm_mvgal_place_fd).
 */
MVGAL_API int mvgal_place_fd(struct mvgal *dev, uint32_t handle, uint32_t gpu,
			     uint32_t flags, int *fd, uint64_t *size);
/**
 * mvgal_exec_register() - become, or with MVGAL_EXEC_UNREGISTER stop
 * being, GPU @gpu's copy executor (DRM_IOCTL_MVGAL_EXEC_REGISTER; see
 * "copy executors" in <drm/mvgal_drm.h>). Needs CAP_SYS_ADMIN; the
 * registration is @dev's and ends with mvgal_close().
 * @dev: the device
 * @gpu: the GPU
 * @flags: 0 or MVGAL_EXEC_UNREGISTER
 *
 * Return: 0 or the module's -errno (see &struct drm_mvgal_exec_register).
 */
MVGAL_API int mvgal_exec_register(struct mvgal *dev, uint32_t gpu,
				  uint32_t flags);
/**
 * mvgal_exec_take() - the next copy for GPU @gpu's executor
 * (DRM_IOCTL_MVGAL_EXEC_TAKE), waiting for one unless
 * MVGAL_EXEC_TAKE_NONBLOCK; call it on a thread that makes no other
 * mvgal call: the copies it takes may be ones that thread waits for
 * @dev: the device, registered
 * @gpu: the GPU
 * @flags: 0 or MVGAL_EXEC_TAKE_NONBLOCK
 * @take: (out) the copy; close @take->host_fd once it is reported
 *
 * Return: 0 or the module's -errno (see &struct drm_mvgal_exec_take);
 * -EINTR when a signal came while waiting (not retried).
 */
MVGAL_API int mvgal_exec_take(struct mvgal *dev, uint32_t gpu, uint32_t flags,
			      struct drm_mvgal_exec_take *take);
/**
 * mvgal_exec_done() - report copy @job (DRM_IOCTL_MVGAL_EXEC_DONE)
 * @dev: the device, registered
 * @gpu: the GPU
 * @job: &drm_mvgal_exec_take.job
 * @fence_fd: a sync_file that signals when the copy is complete, or -1
 *	      when it is complete already; still the caller's
 * @status: 0, or the copy's negative errno (with @fence_fd -1)
 *
 * Return: 0 or the module's -errno (see &struct drm_mvgal_exec_done).
 */
MVGAL_API int mvgal_exec_done(struct mvgal *dev, uint32_t gpu, uint64_t job,
			      int fence_fd, int status);
/**
 * mvgal_place_adopt() - lend a dma-buf that @gpu's driver made for @gpu
 * as the buffer's placement there (DRM_IOCTL_MVGAL_PLACE_ADOPT): the
 * application's own GPU API then reaches that copy as its driver's own
 * memory (import @fd there, or keep using the allocation it came from)
 * @dev: the device
 * @handle: the buffer
 * @gpu: the GPU
 * @fd: the dma-buf, exactly the buffer's size rounded up to 4 KiB pages;
 *	still the caller's (mvgal takes a reference of its own)
 *
 * Return: 0 or the module's -errno (see &struct drm_mvgal_place_adopt).
 */
MVGAL_API int mvgal_place_adopt(struct mvgal *dev, uint32_t handle,
				uint32_t gpu, int fd);
/**
 * mvgal_place_adopt_dumb() - mvgal_place_adopt() of a dumb buffer made
 * for it on @card_fd, an open card (primary) node of @gpu's device
 * @dev: the device
 * @handle: the buffer
 * @gpu: the GPU
 * @card_fd: where the dumb buffer is made (DRM_IOCTL_MODE_CREATE_DUMB)
 * @dmabuf_fd: (out) the dumb buffer's dma-buf (O_CLOEXEC, read-write),
 *	       for the caller's GPU API; closing it leaves the placement
 *
 * Return: 0, -EINVAL where the driver's dumb buffer for the size is not
 * exactly the buffer's pages, or the driver's or the module's -errno.
 */
MVGAL_API int mvgal_place_adopt_dumb(struct mvgal *dev, uint32_t handle,
				     uint32_t gpu, int card_fd,
				     int *dmabuf_fd);
/** mvgal_get_stats() - the migration engine's counters since load. */
MVGAL_API int mvgal_get_stats(struct mvgal *dev, struct drm_mvgal_stats *stats);
/**
 * mvgal_get_path() - how @size bytes move from location @src to @dst:
 * possible methods, calibrated figures, and the method chosen.
 */
MVGAL_API int mvgal_get_path(struct mvgal *dev, uint32_t src, uint32_t dst,
			     uint64_t size, struct drm_mvgal_path *path);
/**
 * mvgal_calibrate() - measure every path now (CAP_SYS_ADMIN)
 * @dev: the mvgal device
 * @paths: (out, optional) ordered pairs of locations measured
 */
MVGAL_API int mvgal_calibrate(struct mvgal *dev, uint32_t *paths);
/**
 * mvgal_set_file_flags() - settings of this handle's open file, for its
 * own sessions only (MVGAL_FILE_NO_COPIES: keep no GPU copies past END)
 * @dev: the mvgal device
 * @flags: MVGAL_FILE_*
 * @old: (out, optional) the settings before
 */
MVGAL_API int mvgal_set_file_flags(struct mvgal *dev, uint32_t flags,
				   uint32_t *old);
/**
 * mvgal_harvest() - what the CPU wrote in @count buffers, in one call
 * @dev: the mvgal device
 * @flags: MVGAL_HARVEST_RESET to clear what is reported, 0 to peek
 * @entries: per buffer: handle, format, output (see struct
 *	     drm_mvgal_harvest_entry); count and chunks are filled
 * @count: entries, at most MVGAL_HARVEST_MAX_BUFFERS
 *
 * The format is the entry's flags: 0, a bitmap, whose every word is
 * cleared and written (its cost grows with the buffer's size);
 * MVGAL_HARVEST_ZEROED, a bitmap into words that are zero already, of
 * which only those holding written chunks are written (count says how
 * many); MVGAL_HARVEST_RUNS, byte ranges. For large buffers use one of
 * the last two. A module without MVGAL_HARVEST_ZEROED returns -EINVAL
 * for it: fall back to the plain bitmap then.
 *
 * Return: 0 or -errno; with -ENOSPC the entries short of room say how
 * much they need in their count, and no record changed.
 */
MVGAL_API int mvgal_harvest(struct mvgal *dev, uint32_t flags,
			    struct drm_mvgal_harvest_entry *entries,
			    uint32_t count);
/**
 * mvgal_gpu_budget() - read, or set (CAP_SYS_ADMIN), how much of a GPU's
 * pool mvgal may use
 * @dev: the mvgal device
 * @gpu: the GPU
 * @flags: MVGAL_BUDGET_SET to set *@budget, 0 to read
 * @budget: (in/out) bytes, a page multiple, 0 = the whole pool; out: the
 *	    budget before (SET) or now
 * @size: (out, optional) the pool's size
 */
MVGAL_API int mvgal_gpu_budget(struct mvgal *dev, uint32_t gpu, uint32_t flags,
			       uint64_t *budget, uint64_t *size);
/**
 * mvgal_pool_lru() - a pool's placements in eviction order, first to go
 * first, and its eviction counters
 * @dev: the mvgal device
 * @gpu: the GPU
 * @entries: (out) room for @lru->count entries (may be NULL with 0)
 * @lru: (in/out) count = room; filled as DRM_IOCTL_MVGAL_POOL_LRU says
 *	 (count = placements the pool has)
 */
MVGAL_API int mvgal_pool_lru(struct mvgal *dev, uint32_t gpu,
			     struct drm_mvgal_lru_entry *entries,
			     struct drm_mvgal_pool_lru *lru);
/**
 * mvgal_replicate() - read-only copies of bytes [@offset, @offset + @size)
 * of a buffer in the pools of @nr_gpus GPUs, as one job
 * @dev: the mvgal device
 * @handle: the buffer
 * @offset: byte offset
 * @size: bytes
 * @gpus: GPU indices
 * @nr_gpus: how many
 * @in_fence: sync_file the copies wait for, or -1
 * @out_fence: (out) sync_file: every copy is there; -1 when none was needed
 */
MVGAL_API int mvgal_replicate(struct mvgal *dev, uint32_t handle,
			      uint64_t offset, uint64_t size,
			      const uint32_t *gpus, uint32_t nr_gpus,
			      int in_fence, int *out_fence);
/**
 * mvgal_advise() - set (MVGAL_ADVISE_SET), mark read-mostly, apply and
 * query a buffer's placement advice (DRM_IOCTL_MVGAL_ADVISE)
 * @dev: the mvgal device
 * @advice: (in/out) handle, flags and the (in) fields; the (out) fields
 *	    are filled
 */
MVGAL_API int mvgal_advise(struct mvgal *dev, struct drm_mvgal_advise *advice);
/**
 * mvgal_fence_wait() - wait for a sync_file to signal
 * @fence_fd: the sync_file
 * @timeout_ms: milliseconds; 0 polls, negative waits forever
 *
 * Return: 0 once signaled (with or without error: see
 * mvgal_fence_status()), -ETIME on timeout, or another -errno.
 */
MVGAL_API int mvgal_fence_wait(int fence_fd, int timeout_ms);
/**
 * mvgal_fence_status() - 1 signaled without error, 0 pending, or the
 * fence's negative error (e.g. -ECANCELED); -errno if @fence_fd is not
 * a sync_file (SYNC_IOC_FILE_INFO fails).
 */
MVGAL_API int mvgal_fence_status(int fence_fd);
/** mvgal_prio_name() - "high", "normal", "low" (MVGAL_PRIO_*), or NULL. */
MVGAL_API const char *mvgal_prio_name(uint32_t prio);

/* ---- counts, shared buffers and errors (MVGAL_0.7) ---- */

/**
 * struct mvgal_totals - what one device handle holds, as libmvgal counts
 * it: the buffers made (mvgal_bo_create*(), mvgal_buffer_create()) or
 * imported (mvgal_bo_import()) through it and not yet destroyed through
 * it. The module's view of the same file is mvgal_bo_list().
 * @buffers: buffers held
 * @bytes: their sizes
 * @host_buffers: of those, buffers made for no GPU in particular
 *	(MVGAL_GPU_ANY), placed where they are used
 * @host_bytes: their sizes
 * @gpu_buffers: per GPU slot, buffers made for that GPU (its placement
 *	from creation: device-only, or preferred)
 * @gpu_bytes: their sizes
 * @created: buffers ever made through the handle
 * @imported: buffers ever imported (a buffer the handle already held
 *	counts once)
 * @destroyed: buffers destroyed through the handle
 */
struct mvgal_totals {
	uint64_t buffers;
	uint64_t bytes;
	uint64_t host_buffers;
	uint64_t host_bytes;
	uint64_t gpu_buffers[MVGAL_MAX_GPUS];
	uint64_t gpu_bytes[MVGAL_MAX_GPUS];
	uint64_t created;
	uint64_t imported;
	uint64_t destroyed;
};

/**
 * mvgal_get_totals() - the handle's counts (thread-safe)
 *
 * Return: 0, or -EINVAL.
 */
MVGAL_API int mvgal_get_totals_sz(struct mvgal *dev, struct mvgal_totals *t,
				  size_t size);

/*
 * struct mvgal_buffer: a buffer shared between threads (or parts of a
 * program) by reference counting. mvgal_buffer_create() makes it with
 * one reference; each mvgal_buffer_retain() adds one and each
 * mvgal_buffer_release() drops one; the last release destroys the
 * buffer (GEM_CLOSE). Both are safe from any thread. The device handle
 * must outlive its buffers.
 */
struct mvgal_buffer;

/**
 * mvgal_buffer_create() - mvgal_bo_create_shared() as a counted object
 *
 * Return: 0 and *@out, or a negative errno.
 */
MVGAL_API int mvgal_buffer_create(struct mvgal *dev, uint64_t size,
				  uint32_t flags, uint32_t gpu,
				  uint32_t sharing, struct mvgal_buffer **out);
/** mvgal_buffer_retain() - one more reference; returns @buf. */
MVGAL_API struct mvgal_buffer *mvgal_buffer_retain(struct mvgal_buffer *buf);
/**
 * mvgal_buffer_release() - drop a reference; the last one destroys the
 * buffer.
 *
 * Return: 0, -EINVAL (NULL), or the destroy's error (the object is freed
 * all the same).
 */
MVGAL_API int mvgal_buffer_release(struct mvgal_buffer *buf);
/** mvgal_buffer_handle() - its GEM handle on the device, or 0 for NULL. */
MVGAL_API uint32_t mvgal_buffer_handle(const struct mvgal_buffer *buf);
/** mvgal_buffer_size() - its size in bytes, or 0 for NULL. */
MVGAL_API uint64_t mvgal_buffer_size(const struct mvgal_buffer *buf);
/** mvgal_buffer_refs() - its references now (for diagnostics). */
MVGAL_API unsigned int mvgal_buffer_refs(const struct mvgal_buffer *buf);

/**
 * struct mvgal_error - the last failure of a libmvgal call in this thread
 * @err: its negative errno; 0 if none was recorded (or after
 *	mvgal_clear_error())
 * @call: the libmvgal function that failed
 * @arg: the check of its arguments that failed, as written in libmvgal
 *	(e.g. "!dev || !handle"), or "" when the module or the system
 *	refused
 * @ioctl: the ioctl the module refused (e.g. "DRM_IOCTL_MVGAL_BO_CREATE"),
 *	or "" when none was made
 *
 * As errno: meaningful after a call returned an error; a call that
 * succeeds may leave a failure it handled (a probe of another driver's
 * node) there. All strings are static.
 */
struct mvgal_error {
	int err;
	const char *call;
	const char *arg;
	const char *ioctl;
};

/** mvgal_last_error() - this thread's last failure; never NULL. */
MVGAL_API const struct mvgal_error *mvgal_last_error(void);
/** mvgal_clear_error() - forget this thread's last failure. */
MVGAL_API void mvgal_clear_error(void);
/**
 * mvgal_strerror() - what @err (negative or positive errno) means from
 * an mvgal call, e.g. -EDQUOT: the file's buffer metadata limit; a
 * static string, thread-safe.
 */
MVGAL_API const char *mvgal_strerror(int err);

/* ---- sized entry points (MVGAL_0.5): see the top of this header ---- */

MVGAL_API int mvgal_get_info_sz(struct mvgal *dev, struct mvgal_info *info,
				size_t size);
MVGAL_API void mvgal_config_defaults_sz(struct mvgal_config *cfg,
					size_t size);
MVGAL_API int mvgal_config_load_sz(const char *path, struct mvgal_config *cfg,
				   char *err, size_t errlen, size_t size);
MVGAL_API int mvgal_config_apply_sz(const struct mvgal_config *cfg,
				    size_t size);
MVGAL_API int mvgal_attach_all_sz(struct mvgal *dev,
				  const struct mvgal_config *cfg,
				  mvgal_attach_cb cb, void *ctx, size_t size);
MVGAL_API int mvgal_gpu_info_sz(struct mvgal *dev, uint32_t gpu,
				struct drm_mvgal_gpu_info *info, size_t size);
MVGAL_API int mvgal_gpu_link_sz(struct mvgal *dev, uint32_t src, uint32_t dst,
				struct drm_mvgal_gpu_link *link, size_t size);
/* @esz: size of one element of @regions and of @nodes. */
MVGAL_API int mvgal_get_heap_sz(struct mvgal *dev,
				struct drm_mvgal_heap_region *regions,
				uint32_t *nr_regions,
				struct drm_mvgal_heap_region *nodes,
				uint32_t *nr_nodes, size_t esz);
MVGAL_API int mvgal_bo_list_sz(struct mvgal *dev,
			       struct drm_mvgal_bo_entry *entries,
			       uint32_t *count, size_t esz);
MVGAL_API int mvgal_bo_info_sz(struct mvgal *dev, uint32_t handle,
			       struct drm_mvgal_bo_info *info, size_t size);
MVGAL_API int mvgal_begin_sz(struct mvgal *dev, uint32_t gpu, uint32_t flags,
			     uint32_t priority, int in_fence_fd,
			     struct drm_mvgal_access *accesses, uint32_t count,
			     uint32_t *session, int *out_fence_fd,
			     uint64_t *bytes_copied, size_t esz);
MVGAL_API int mvgal_end_sz(struct mvgal *dev, uint32_t session, int fence_fd,
			   const struct drm_mvgal_access *written,
			   uint32_t count, size_t esz);
MVGAL_API int mvgal_session_begin_sz(struct mvgal *dev,
				     struct drm_mvgal_begin *b, size_t size);
MVGAL_API int mvgal_session_end_sz(struct mvgal *dev,
				   const struct drm_mvgal_end *e, size_t size);
MVGAL_API int mvgal_migrate_sz(struct mvgal *dev, struct drm_mvgal_migrate *m,
			       size_t size);
MVGAL_API int mvgal_get_stats_sz(struct mvgal *dev,
				 struct drm_mvgal_stats *stats, size_t size);
MVGAL_API int mvgal_get_path_sz(struct mvgal *dev, uint32_t src, uint32_t dst,
				uint64_t size, struct drm_mvgal_path *path,
				size_t psize);
MVGAL_API int mvgal_harvest_sz(struct mvgal *dev, uint32_t flags,
			       struct drm_mvgal_harvest_entry *entries,
			       uint32_t count, size_t esz);
/* @esz: size of one element of @entries; @lsize: size of *@lru. */
MVGAL_API int mvgal_pool_lru_sz(struct mvgal *dev, uint32_t gpu,
				struct drm_mvgal_lru_entry *entries,
				struct drm_mvgal_pool_lru *lru, size_t esz,
				size_t lsize);
MVGAL_API int mvgal_advise_sz(struct mvgal *dev,
			      struct drm_mvgal_advise *advice, size_t size);

/*
 * Asynchronous submission (io_uring): a ring per device and thread.
 * A command is the ioctl's own struct, which must stay valid and in place
 * until the command's completion (a linked command is issued only when
 * the one before it completed). Results are written to it before the
 * completion is posted; the completion's res is 0 or -errno. BEGIN and
 * MIGRATE complete when their data is in place.
 */
struct mvgal_ring;

/** struct mvgal_completion - what mvgal_ring_wait() reaps */
struct mvgal_completion {
	/** @user_data: as given to the command's mvgal_ring_prep(). */
	uint64_t user_data;
	/** @res: 0, or -errno (-ECANCELED: a cancelled job). */
	int32_t res;
	/** @pad: 0. */
	uint32_t pad;
};

/* mvgal_ring_prep() flags: the next command runs after this one completes. */
#define MVGAL_RING_LINK		0x1U
#define MVGAL_RING_FLAGS	MVGAL_RING_LINK

/**
 * mvgal_ring_init() - a ring of @entries commands on @dev
 * @dev: the device; it must outlive the ring
 * @entries: submission queue size (a power of two is used)
 * @ring: (out) the ring
 *
 * Return: 0, -EINVAL, -ENOMEM, or io_uring_queue_init()'s -errno
 * (-ENOSYS or -EPERM where io_uring is disabled).
 */
MVGAL_API int mvgal_ring_init(struct mvgal *dev, unsigned int entries,
			      struct mvgal_ring **ring);
/**
 * mvgal_ring_free() - wait for the ring's commands and free it.
 */
MVGAL_API void mvgal_ring_free(struct mvgal_ring *ring);
/**
 * mvgal_ring_prep() - queue a command (not yet submitted)
 * @ring: the ring
 * @cmd: DRM_IOCTL_MVGAL_* of BEGIN, END, MIGRATE, CANCEL, BO_PWRITE,
 *	 BO_PREAD, BO_COPY or HARVEST
 * @args: the ioctl's struct (for BEGIN and END, with the arrays it
 *	  points to in the module's layout)
 * @user_data: handed back with the completion
 * @flags: MVGAL_RING_*
 *
 * A BEGIN that names a watched registration (mvgal_userptr_watch()) has
 * what was written of it marked here, when it is prepared: writes after
 * this call and before the command runs are the next BEGIN's.
 *
 * Return: 0, -EINVAL, -EBUSY when the submission queue is full (submit
 * first), or for such a BEGIN the error of its marks (BO_MARK's, or
 * PAGEMAP_SCAN's), nothing queued.
 */
MVGAL_API int mvgal_ring_prep(struct mvgal_ring *ring, unsigned int cmd,
			      void *args, uint64_t user_data,
			      unsigned int flags);
/** mvgal_ring_submit() - submit what was prepared; the count or -errno. */
MVGAL_API int mvgal_ring_submit(struct mvgal_ring *ring);
/**
 * mvgal_ring_wait() - reap one completion
 * @ring: the ring
 * @timeout_ms: 0: do not wait (-EAGAIN when none); < 0: no limit
 * @done: (out) the completion
 *
 * Return: 0, -ETIME on timeout, -EAGAIN, or -errno.
 */
MVGAL_API int mvgal_ring_wait(struct mvgal_ring *ring, int timeout_ms,
			      struct mvgal_completion *done);

#define mvgal_prep_begin(r, b, ud, fl) \
	mvgal_ring_prep(r, DRM_IOCTL_MVGAL_BEGIN, b, ud, fl)
#define mvgal_prep_end(r, e, ud, fl) \
	mvgal_ring_prep(r, DRM_IOCTL_MVGAL_END, e, ud, fl)
#define mvgal_prep_migrate(r, m, ud, fl) \
	mvgal_ring_prep(r, DRM_IOCTL_MVGAL_MIGRATE, m, ud, fl)
#define mvgal_prep_cancel(r, c, ud, fl) \
	mvgal_ring_prep(r, DRM_IOCTL_MVGAL_CANCEL, c, ud, fl)
#define mvgal_prep_pwrite(r, w, ud, fl) \
	mvgal_ring_prep(r, DRM_IOCTL_MVGAL_BO_PWRITE, w, ud, fl)
#define mvgal_prep_pread(r, w, ud, fl) \
	mvgal_ring_prep(r, DRM_IOCTL_MVGAL_BO_PREAD, w, ud, fl)
#define mvgal_prep_copy(r, c, ud, fl) \
	mvgal_ring_prep(r, DRM_IOCTL_MVGAL_BO_COPY, c, ud, fl)
#define mvgal_prep_harvest(r, h, ud, fl) \
	mvgal_ring_prep(r, DRM_IOCTL_MVGAL_HARVEST, h, ud, fl)

/* The names callers use: their own struct sizes, as compiled. */
#define mvgal_get_info(d, i) \
	mvgal_get_info_sz(d, i, sizeof(struct mvgal_info))
#define mvgal_config_defaults(c) \
	mvgal_config_defaults_sz(c, sizeof(struct mvgal_config))
#define mvgal_config_load(p, c, e, l) \
	mvgal_config_load_sz(p, c, e, l, sizeof(struct mvgal_config))
#define mvgal_config_apply(c) \
	mvgal_config_apply_sz(c, sizeof(struct mvgal_config))
#define mvgal_attach_all(d, c, cb, x) \
	mvgal_attach_all_sz(d, c, cb, x, sizeof(struct mvgal_config))
#define mvgal_gpu_info(d, g, i) \
	mvgal_gpu_info_sz(d, g, i, sizeof(struct drm_mvgal_gpu_info))
#define mvgal_gpu_link(d, s, t, l) \
	mvgal_gpu_link_sz(d, s, t, l, sizeof(struct drm_mvgal_gpu_link))
#define mvgal_get_heap(d, r, nr, n, nn) \
	mvgal_get_heap_sz(d, r, nr, n, nn, sizeof(struct drm_mvgal_heap_region))
#define mvgal_bo_list(d, e, n) \
	mvgal_bo_list_sz(d, e, n, sizeof(struct drm_mvgal_bo_entry))
#define mvgal_bo_info(d, h, i) \
	mvgal_bo_info_sz(d, h, i, sizeof(struct drm_mvgal_bo_info))
#define mvgal_begin(d, g, f, p, in, a, n, s, out, b) \
	mvgal_begin_sz(d, g, f, p, in, a, n, s, out, b, \
		       sizeof(struct drm_mvgal_access))
#define mvgal_end(d, s, f, w, n) \
	mvgal_end_sz(d, s, f, w, n, sizeof(struct drm_mvgal_access))
#define mvgal_session_begin(d, b) \
	mvgal_session_begin_sz(d, b, sizeof(struct drm_mvgal_begin))
#define mvgal_session_end(d, e) \
	mvgal_session_end_sz(d, e, sizeof(struct drm_mvgal_end))
#define mvgal_migrate(d, m) \
	mvgal_migrate_sz(d, m, sizeof(struct drm_mvgal_migrate))
#define mvgal_get_stats(d, s) \
	mvgal_get_stats_sz(d, s, sizeof(struct drm_mvgal_stats))
#define mvgal_get_path(d, s, t, n, p) \
	mvgal_get_path_sz(d, s, t, n, p, sizeof(struct drm_mvgal_path))
#define mvgal_harvest(d, f, e, n) \
	mvgal_harvest_sz(d, f, e, n, sizeof(struct drm_mvgal_harvest_entry))
#define mvgal_pool_lru(d, g, e, l) \
	mvgal_pool_lru_sz(d, g, e, l, sizeof(struct drm_mvgal_lru_entry), \
			  sizeof(struct drm_mvgal_pool_lru))
#define mvgal_advise(d, a) \
	mvgal_advise_sz(d, a, sizeof(struct drm_mvgal_advise))
#define mvgal_get_totals(d, t) \
	mvgal_get_totals_sz(d, t, sizeof(struct mvgal_totals))

#ifdef __cplusplus
}
#endif

#endif /* MVGAL_MVGAL_H */
