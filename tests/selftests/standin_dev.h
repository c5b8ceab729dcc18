/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test bed's VRAM stand-in GPUs (tests/vram, `modprobe mvgal_vram`):
 * finding them, their buffers' place, and their bytes read through the
 * stand-in, not mvgal: the BAR through sysfs resource2 (root) for a
 * buffer in VRAM, the stand-in's own mapping of its pages otherwise.
 * Shared by standin.h (the stand-in's own tests) and helpers.h (the
 * stand-in pass of every selftest); its names all start with standin_.
 */
#ifndef MVGAL_SELFTEST_STANDIN_DEV_H
#define MVGAL_SELFTEST_STANDIN_DEV_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <xf86drm.h>

#include "../vram/mvgal_vram_drm.h"

/*
 * The debug kernel has CONFIG_PCI_P2PDMA: drivers (the stand-in's among
 * them) grant peers their device memory there, and nowhere else here.
 */
static inline bool p2p_kernel(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.release, "mvgal-debug");
}

struct standin {
	int fd;			/* the card node */
	char pci[PATH_MAX];	/* the PCI device's sysfs directory */
	uint64_t bar;		/* BAR 2's bus address */
	uint64_t bar_size;
	int card;		/* N of /dev/dri/cardN */
};

/* The stand-ins, in PCI order: their card nodes, sysfs directories, BARs. */
static inline int standin_find(struct standin *s, int max)
{
	struct dirent **ents;
	int n, i, found = 0;

	n = scandir("/sys/class/drm", &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX + 32], link[PATH_MAX];
		unsigned long long start = 0, end = 0, flags;
		ssize_t l;
		FILE *f;

		if (strncmp(ents[i]->d_name, "card", 4) || strchr(ents[i]->d_name, '-') ||
		    found == max)
			goto next;
		snprintf(path, sizeof(path), "/sys/class/drm/%s/device/driver", ents[i]->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l < 0)
			goto next;
		link[l] = 0;
		if (strcmp(strrchr(link, '/') + 1, "mvgal_vram"))
			goto next;
		snprintf(path, sizeof(path), "/sys/class/drm/%s/device", ents[i]->d_name);
		if (!realpath(path, s[found].pci))
			goto next;
		snprintf(path, sizeof(path), "%s/resource", s[found].pci);
		f = fopen(path, "r");
		for (int b = 0; f && b <= 2; b++)
			if (fscanf(f, "%llx %llx %llx", &start, &end, &flags) != 3)
				break;
		if (f)
			fclose(f);
		s[found].bar = start;
		s[found].bar_size = end - start + 1;
		s[found].card = atoi(ents[i]->d_name + 4);
		snprintf(path, sizeof(path), "/dev/dri/%s", ents[i]->d_name);
		s[found].fd = open(path, O_RDWR | O_CLOEXEC);
		if (s[found].fd >= 0)
			found++;
next:
		free(ents[i]);
	}
	free(ents);
	return found;
}

static inline int standin_bo_info(int fd, uint32_t handle,
				  struct drm_mvgal_vram_bo_info *i)
{
	memset(i, 0, sizeof(*i));
	i->handle = handle;
	return drmIoctl(fd, DRM_IOCTL_MVGAL_VRAM_BO_INFO, i) ? -errno : 0;
}

/* The buffer's own mapping, through the card node. */
static inline uint8_t *standin_bo_map(int fd, uint32_t handle, size_t len)
{
	struct drm_mode_map_dumb m = { .handle = handle };
	void *p;

	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	return p == MAP_FAILED ? NULL : p;
}

/* The BAR itself, not through the driver: sysfs resource2. */
static inline uint8_t *standin_bar_map(const struct standin *s, uint64_t off,
				       size_t len, void **base)
{
	char path[PATH_MAX + 32];
	uint64_t pg = off & ~4095ull;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/resource2", s->pci);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, len + (off - pg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, pg);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*base = p;
	return (uint8_t *)p + (off - pg);
}

/*
 * A mapping of the first @len bytes of the stand-in's buffer behind
 * dma-buf @dmabuf (one of its own exports) where its driver holds it now,
 * in @where: the BAR for a buffer in VRAM, the stand-in's mapping of its
 * pages for one in system memory. Pinned (@pinned set) it stays there for
 * as long as the pin. NULL if the buffer is not the stand-in's. The
 * mapping is page aligned (@len from the start of the buffer).
 */
static inline uint8_t *standin_map_dmabuf(const struct standin *s, int dmabuf,
					  size_t len, uint32_t *where, int *pinned)
{
	struct drm_mvgal_vram_bo_info i;
	uint32_t h;
	uint8_t *p;
	void *base;

	if (drmPrimeFDToHandle(s->fd, dmabuf, &h))
		return NULL;
	/* An import of another device's buffer is not its own: no domain. */
	if (standin_bo_info(s->fd, h, &i) || i.domain == MVGAL_VRAM_DOMAIN_IMPORT ||
	    len > i.size) {
		drmCloseBufferHandle(s->fd, h);
		return NULL;
	}
	if (i.domain == MVGAL_VRAM_DOMAIN_VRAM)
		p = standin_bar_map(s, i.offset, len, &base);
	else
		p = standin_bo_map(s->fd, h, len);
	/* The mapping keeps the buffer; the handle is not needed. */
	drmCloseBufferHandle(s->fd, h);
	*where = i.domain;
	*pinned = i.pin_count > 0;
	return p;
}

/*
 * A new file of @s's render node: never the DRM master, as a card node
 * file opened first would be.
 */
static inline int standin_render_open(const struct standin *s)
{
	drmDevicePtr d;
	int fd = -1;

	if (drmGetDevice2(s->fd, 0, &d))
		return -1;
	if (d->available_nodes & (1 << DRM_NODE_RENDER))
		fd = open(d->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
	drmFreeDevice(&d);
	return fd;
}

/* Writes @val to the stand-in's sysfs attribute @attr; 0 or -errno. */
static inline int standin_attr(const struct standin *s, const char *attr,
			       const char *val)
{
	char path[PATH_MAX + 32];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", s->pci, attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* Whose dma-buf rules the stand-in follows: amdgpu, xe, i915, ... */
static inline int standin_set_mode(const struct standin *s, const char *mode)
{
	return standin_attr(s, "mode", mode);
}

/* Every unpinned buffer to system memory, as TTM's eviction does. */
static inline int standin_evict(const struct standin *s)
{
	return standin_attr(s, "evict", "1");
}

/* Every unpinned buffer back to VRAM, as a GPU submission validates them. */
static inline int standin_validate(const struct standin *s)
{
	return standin_attr(s, "validate", "1");
}

#endif
