/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * mvgal: multi-GPU unified memory, the ioctl ABI.
 *
 * Rules every ioctl follows (Documentation/process/botching-up-ioctls.rst):
 * only fixed-size types, explicit padding that must be zero, a flags field
 * whose unknown bits are rejected with -EINVAL, and no output written when
 * the input is rejected.
 */
#ifndef _UAPI_MVGAL_DRM_H_
#define _UAPI_MVGAL_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * MVGAL_ABI_VERSION - version of this ABI; bumped only when a change
 * is not backwards compatible (new ioctls and flags are announced through
 * capability bits instead).
 */
#define MVGAL_ABI_VERSION	1

/** MVGAL_MAX_GPUS - the most GPUs that can be attached at once. */
#define MVGAL_MAX_GPUS		8

/**
 * DOC: capability bits
 *
 * Reported in &drm_mvgal_get_info.caps. A bit is set only when the
 * feature works on this module and machine.
 *
 * MVGAL_CAP_SYNCOBJ: the standard DRM syncobj ioctls are available on
 * the mvgal node.
 */
#define MVGAL_CAP_SYNCOBJ		(1ULL << 0)

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
	/** @max_gpus: (out) MVGAL_MAX_GPUS. */
	__u32 max_gpus;
	/** @core_flags: (out) MVGAL_CORE_* bits. */
	__u32 core_flags;
	/** @stats_interval: (out) seconds between statistics samples. */
	__u32 stats_interval;
};

#define DRM_MVGAL_GET_INFO	0x00

#define DRM_IOCTL_MVGAL_GET_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_GET_INFO, struct drm_mvgal_get_info)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_MVGAL_DRM_H_ */
