/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test bed's VRAM stand-in GPUs (tests/vram, `modprobe mvgal_vram`):
 * finding them, their ioctls, and their BAR read through sysfs resource2,
 * a path that is not the driver's.
 */
#ifndef MVGAL_SELFTEST_STANDIN_H
#define MVGAL_SELFTEST_STANDIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <xf86drm.h>

#include "standin_dev.h"

#define SIZE (3 * 4096 + 1234)		/* not a page multiple */
#define MAPPED 16384			/* SIZE rounded up to pages */

/* The stand-ins, in PCI order: their card nodes, sysfs directories, BARs. */
static inline int find_standins(struct standin *s, int max)
{
	return standin_find(s, max);
}

/* A new file of @s's render node: never the DRM master. */
static inline int render_open(struct standin *s)
{
	return standin_render_open(s);
}

static inline int set_mode(struct standin *s, const char *mode)
{
	return standin_set_mode(s, mode);
}

static inline int bo_create(struct standin *s, uint64_t size, uint32_t flags, uint32_t *handle)
{
	struct drm_mvgal_vram_bo_create c = { .size = size, .flags = flags };

	if (drmIoctl(s->fd, DRM_IOCTL_MVGAL_VRAM_BO_CREATE, &c))
		return -errno;
	*handle = c.handle;
	return 0;
}

static inline int dumb_create(int fd, uint32_t *handle)
{
	struct drm_mode_create_dumb d = { .width = 1024, .height = 16, .bpp = 32 };

	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &d))
		return -errno;
	*handle = d.handle;
	return 0;
}

static inline int bo_info(int fd, uint32_t handle, struct drm_mvgal_vram_bo_info *i)
{
	return standin_bo_info(fd, handle, i);
}

/* The buffer's own mapping, through the card node. */
static inline uint8_t *bo_map(int fd, uint32_t handle, size_t len)
{
	return standin_bo_map(fd, handle, len);
}

/* The BAR itself, not through the driver: sysfs resource2. */
static inline uint8_t *bar_map(struct standin *s, uint64_t off, size_t len, void **base)
{
	return standin_bar_map(s, off, len, base);
}

static inline void fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 12));
}

/* The index of the first byte of @p that differs from fill(@seed), or -1. */
static inline long check(const uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(i * 7 + seed + (i >> 12)))
			return i;
	return -1;
}

/* Every unpinned buffer to system memory, as TTM's eviction does. */
static inline int evict(struct standin *s)
{
	return standin_evict(s);
}

/* Every unpinned buffer back to VRAM, as a GPU submission validates them. */
static inline int validate(struct standin *s)
{
	return standin_validate(s);
}

#endif
