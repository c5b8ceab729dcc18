/* SPDX-License-Identifier: MIT */
/*
 * libmvgal: the public API.
 *
 * Conventions: functions return 0 or a negative errno; handles are
 * opaque; file descriptors are opened O_CLOEXEC; EINTR is retried.
 */
#ifndef MVGAL_MVGAL_H
#define MVGAL_MVGAL_H

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
 * enumeration. Return: 0, -ENODEV when the module is not loaded, or the
 * errno of the failed open (e.g. -EACCES).
 */
MVGAL_API int mvgal_open(struct mvgal **out);

/** mvgal_open_path() - open a given DRM node that must be an mvgal node. */
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

/** The contents of mvgal.conf; see etc/mvgal.conf for every key. */
struct mvgal_config {
	/* [core] */
	bool enable_memory_migration;
	bool enable_dmabuf;
	unsigned int stats_interval;
	/* [gpu_N] */
	uint64_t memory_limit_mb[MVGAL_MAX_GPUS];
	/* [dri] */
	char device_pattern[256];
	bool enable_prime;
};

/** mvgal_config_defaults() - fill @cfg with every key's default. */
MVGAL_API void mvgal_config_defaults(struct mvgal_config *cfg);

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
 * with PRIME. Return: 0, -EEXIST if the GPU is attached already, -ENOMEM
 * when not even the smallest pool is granted, or another -errno.
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
 * @cfg: the configuration ([dri] device_pattern, [gpu_N] memory_limit_mb)
 * @cb: (optional) told the result of each node: 0 attached at @gpu,
 *	-EEXIST already attached, or the error
 * @ctx: passed to @cb
 *
 * Nodes matching device_pattern are taken in sorted order; mvgal's own
 * node is skipped, as are nodes of GPUs attached already. Each new GPU
 * takes the lowest free slot N and a pool of [gpu_N] memory_limit_mb.
 *
 * Return: the number of GPUs attached now, or the first -errno (after
 * trying every node).
 */
MVGAL_API int mvgal_attach_all(struct mvgal *dev,
			       const struct mvgal_config *cfg,
			       mvgal_attach_cb cb, void *ctx);

/** mvgal_method_name() - "in-place", "p2p", "cpu-copy", "staging", "none". */
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
 * -EOPNOTSUPP for device-only buffers.
 */
MVGAL_API int mvgal_bo_export(struct mvgal *dev, uint32_t handle, int *fd);
/**
 * mvgal_bo_import() - a dma-buf fd as a buffer; its size is the dma-buf's.
 * Importing the same dma-buf again gives the same handle.
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
/** mvgal_bo_read() - copy @size bytes of the buffer at @offset into @dst. */
MVGAL_API int mvgal_bo_read(struct mvgal *dev, uint32_t handle,
			    uint64_t offset, void *dst, uint64_t size);
/**
 * mvgal_bo_copy() - copy @size bytes between two buffers (or within one,
 * with memmove() semantics), each offset applied once.
 */
MVGAL_API int mvgal_bo_copy(struct mvgal *dev, uint32_t dst, uint64_t dst_offset,
			    uint32_t src, uint64_t src_offset, uint64_t size);

#ifdef __cplusplus
}
#endif

#endif /* MVGAL_MVGAL_H */
