/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The VRAM stand-in GPU's ioctls (test bed only: never installed).
 *
 * The stand-in is a DRM render driver whose buffers live in a PCI BAR
 * (device memory without struct pages). Its dma-buf export follows one real
 * driver's rules at a time (the "mode" attribute of its PCI device); these
 * ioctls let a test create buffers with a given placement policy and see
 * where a buffer lives, so that each rule can be checked.
 */
#ifndef MVGAL_VRAM_DRM_H
#define MVGAL_VRAM_DRM_H

#ifdef __KERNEL__
#include <drm/drm.h>
#else
#include "drm.h"
#endif

/* Where a buffer's bytes are (&drm_mvgal_vram_bo_info.domain). */
#define MVGAL_VRAM_DOMAIN_VRAM		1	/* in the BAR */
#define MVGAL_VRAM_DOMAIN_SYSTEM	2	/* in system pages */
#define MVGAL_VRAM_DOMAIN_IMPORT	3	/* another device's dma-buf */

/* The buffer may never leave VRAM (xe's and i915's dumb buffers). */
#define MVGAL_VRAM_BO_VRAM_ONLY		(1u << 0)
/* The buffer starts in system memory. */
#define MVGAL_VRAM_BO_SYSTEM		(1u << 1)
#define MVGAL_VRAM_BO_FLAGS		(MVGAL_VRAM_BO_VRAM_ONLY | MVGAL_VRAM_BO_SYSTEM)

/* &drm_mvgal_vram_bo_info.flags */
#define MVGAL_VRAM_INFO_PEER2PEER	(1u << 0)	/* import mapped P2P */
#define MVGAL_VRAM_INFO_MAPPED		(1u << 1)	/* import has a mapping */

/**
 * struct drm_mvgal_vram_bo_create - make a buffer
 */
struct drm_mvgal_vram_bo_create {
	/** @size: (in) bytes, rounded up to a page */
	__u64 size;
	/** @flags: (in) MVGAL_VRAM_BO_* */
	__u32 flags;
	/** @handle: (out) GEM handle */
	__u32 handle;
};

/**
 * struct drm_mvgal_vram_bo_info - where a buffer is
 *
 * For an imported buffer the import is mapped for this device first (as the
 * GPU would before using it), so @dma_addr and MVGAL_VRAM_INFO_PEER2PEER say
 * what the exporter gave.
 */
struct drm_mvgal_vram_bo_info {
	/** @handle: (in) GEM handle */
	__u32 handle;
	/** @domain: (out) MVGAL_VRAM_DOMAIN_* */
	__u32 domain;
	/** @offset: (out) offset in the BAR, for MVGAL_VRAM_DOMAIN_VRAM */
	__u64 offset;
	/** @dma_addr: (out) an import's first DMA address */
	__u64 dma_addr;
	/** @size: (out) bytes */
	__u64 size;
	/** @pin_count: (out) pins (dma-buf pins and vmaps) */
	__u32 pin_count;
	/** @moves: (out) times the buffer changed domain */
	__u32 moves;
	/** @flags: (out) MVGAL_VRAM_INFO_* */
	__u32 flags;
	/** @pad: (out) zero */
	__u32 pad;
};

/* &drm_mvgal_vram_copy_time.op */
#define MVGAL_VRAM_COPY_TOIO		0	/* memcpy_toio(): kernel buffer -> BO */
#define MVGAL_VRAM_COPY_FROMIO		1	/* memcpy_fromio(): BO -> kernel buffer */
#define MVGAL_VRAM_COPY_FROM_WC		2	/* drm_memcpy_from_wc(): BO -> kernel buffer */
#define MVGAL_VRAM_COPY_OPS		3

/**
 * struct drm_mvgal_vram_copy_time - one timed kernel copy to or from a BO
 *
 * The baselines of mvgal's benchmark (tests/bench): the kernel's own
 * copies between a vmalloc buffer (pages behind one kernel mapping, as
 * mvgal's host copy of a buffer is) and the BO's range of the BAR through
 * the driver's write-combined mapping, with nothing else around them.
 * Card node only, CAP_SYS_ADMIN. Errors: -EINVAL (bad op, size 0 or over
 * the BO, non-zero pad), -EXDEV (the BO is not in VRAM), -EPERM.
 */
struct drm_mvgal_vram_copy_time {
	/** @handle: (in) GEM handle of a buffer of this device */
	__u32 handle;
	/** @op: (in) MVGAL_VRAM_COPY_* */
	__u32 op;
	/** @size: (in) bytes, from the BO's start */
	__u64 size;
	/** @ns: (out) CLOCK_MONOTONIC time of the copy (and its wmb()) */
	__u64 ns;
};

#define DRM_MVGAL_VRAM_BO_CREATE	0x00
#define DRM_MVGAL_VRAM_BO_INFO		0x01
#define DRM_MVGAL_VRAM_COPY_TIME	0x02

#define DRM_IOCTL_MVGAL_VRAM_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_VRAM_BO_CREATE, struct drm_mvgal_vram_bo_create)
#define DRM_IOCTL_MVGAL_VRAM_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_VRAM_BO_INFO, struct drm_mvgal_vram_bo_info)
#define DRM_IOCTL_MVGAL_VRAM_COPY_TIME \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_MVGAL_VRAM_COPY_TIME, struct drm_mvgal_vram_copy_time)

#endif
