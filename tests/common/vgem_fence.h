/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fence the test signals when it wants: vgem attaches one to a buffer
 * of its own, and the buffer's dma-buf hands it out as a sync_file. What
 * waits on it stands for work queued behind a GPU that has not finished.
 */
#ifndef MVGAL_TEST_VGEM_FENCE_H
#define MVGAL_TEST_VGEM_FENCE_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

/* vgem's uapi (include/uapi/drm/vgem_drm.h), which libdrm does not ship. */
#define DRM_VGEM_FENCE_ATTACH	0x1
#define DRM_VGEM_FENCE_SIGNAL	0x2
#define VGEM_FENCE_WRITE	0x1
struct drm_vgem_fence_attach {
	__u32 handle;
	__u32 flags;
	__u32 out_fence;
	__u32 pad;
};

struct drm_vgem_fence_signal {
	__u32 fence;
	__u32 flags;
};

#define DRM_IOCTL_VGEM_FENCE_ATTACH \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGEM_FENCE_ATTACH, struct drm_vgem_fence_attach)
#define DRM_IOCTL_VGEM_FENCE_SIGNAL \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGEM_FENCE_SIGNAL, struct drm_vgem_fence_signal)

struct vfence {
	int vgem;	/* vgem's fd, owned */
	uint32_t bo;
	uint32_t id;
	int fd;		/* the sync_file, or -1 */
};

/* vgem's card node, opened, or -ENODEV. */
static inline int vgem_open(void)
{
	char path[32];

	for (int i = 0; i < 16; i++) {
		drmVersionPtr v;
		bool found;
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		found = v && !strcmp(v->name, "vgem");
		drmFreeVersion(v);
		if (found)
			return fd;
		close(fd);
	}
	return -ENODEV;
}

/* A pending fence of @vgem (an open vgem card node, taken over) in @f. */
static inline int vgem_fence_new(struct vfence *f, int vgem)
{
	struct drm_mode_create_dumb d = { .width = 64, .height = 1, .bpp = 32 };
	struct drm_vgem_fence_attach a = { .flags = VGEM_FENCE_WRITE };
	struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_RW };
	int dmabuf;

	f->vgem = vgem;
	f->fd = -1;
	if (vgem < 0)
		return vgem;
	if (drmIoctl(f->vgem, DRM_IOCTL_MODE_CREATE_DUMB, &d))
		return -errno;
	f->bo = d.handle;
	a.handle = d.handle;
	if (drmIoctl(f->vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &a))
		return -errno;
	f->id = a.out_fence;
	if (drmPrimeHandleToFD(f->vgem, d.handle, O_CLOEXEC | O_RDWR, &dmabuf))
		return -errno;
	if (ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e)) {
		close(dmabuf);
		return -errno;
	}
	close(dmabuf);
	f->fd = e.fd;
	return 0;
}

static inline void vfence_signal(struct vfence *f)
{
	struct drm_vgem_fence_signal s = { .fence = f->id };

	drmIoctl(f->vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &s);
}

static inline void vfence_free(struct vfence *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->vgem >= 0)
		close(f->vgem);
}

/* When the sync_file @fd signaled (CLOCK_MONOTONIC ns), or 0 if it has not. */
static inline uint64_t fence_time(int fd)
{
	struct sync_fence_info fi = { 0 };
	struct sync_file_info info = {
		.num_fences = 1, .sync_fence_info = (uintptr_t)&fi,
	};

	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) || info.status != 1)
		return 0;
	return fi.timestamp_ns;
}

#endif /* MVGAL_TEST_VGEM_FENCE_H */
