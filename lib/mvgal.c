// SPDX-License-Identifier: MIT
/*
 * libmvgal: device discovery and the ioctl wrappers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "internal.h"

/* ioctl that retries EINTR/EAGAIN and returns 0 or -errno. */
int mvgal_ioctl_at(const char *call, const char *name, int fd,
		   unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	if (ret == -1)
		return mvgal_fail(call, "", name, -errno);
	return 0;
}

void mvgal_out(void *dst, size_t size, const void *src, size_t n)
{
	memcpy(dst, src, size < n ? size : n);
	if (size > n)
		memset((char *)dst + n, 0, size - n);
}

int mvgal_in(void *dst, size_t n, const void *src, size_t size)
{
	size_t i;

	memset(dst, 0, n);
	memcpy(dst, src, size < n ? size : n);
	for (i = n; i < size; i++)
		if (((const unsigned char *)src)[i])
			return mvgal_fail(__func__, "bytes beyond the library's struct are not 0",
					  "", -E2BIG);
	return 0;
}

/* 1 if @fd is an mvgal node, 0 if another driver's, -errno on error. */
static int mvgal_is_mvgal(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	int ret;

	if (!v)
		return -errno ? -errno : -EINVAL;
	ret = v->name && !strcmp(v->name, "mvgal");
	drmFreeVersion(v);
	return ret;
}

/*
 * [dri] enable_prime of the configuration file; a missing or malformed
 * file leaves the default (allowed): the file's errors are reported by
 * whoever loads it for its settings (mvgal-info, the boot step).
 */
static bool mvgal_prime_allowed(void)
{
	struct mvgal_config cfg;

	if (mvgal_config_load(NULL, &cfg, NULL, 0))
		return true;
	return cfg.enable_prime;
}

int mvgal_open_path(const char *path, struct mvgal **out)
{
	struct mvgal *dev;
	int fd, ret;

	if (!path || !out || strlen(path) >= sizeof(dev->path))
		return mvgal_bad("!path || !out || strlen(path) >= sizeof(dev->path)");
	do {
		fd = open(path, O_RDWR | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return mvgal_fail(__func__, "", "open", -errno);
	ret = mvgal_is_mvgal(fd);
	if (ret <= 0) {
		close(fd);
		return ret ? ret : -ENODEV;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		return -ENOMEM;
	}
	dev->fd = fd;
	dev->uffd = -1;
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->watch_lock, NULL);
	strcpy(dev->path, path);
	dev->no_prime = !mvgal_prime_allowed();
	*out = dev;
	return 0;
}

int mvgal_open(struct mvgal **out)
{
	drmDevicePtr devs[64];
	int n, i, ret = -ENODEV;

	if (!out)
		return mvgal_bad("!out");
	n = drmGetDevices2(0, devs, 64);
	/* No DRM device at all (not even /dev/dri): no mvgal either. */
	if (n < 0)
		return n == -ENOENT ? -ENODEV : n;
	for (i = 0; i < n; i++) {
		drmDevicePtr d = devs[i];
		int r;

		if (!(d->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		r = mvgal_open_path(d->nodes[DRM_NODE_RENDER], out);
		if (!r) {
			ret = 0;
			break;
		}
		/* Another driver's node is no reason to fail; a refused
		 * open of a node we could not identify is reported if
		 * nothing else is found.
		 */
		if (r != -ENODEV && ret == -ENODEV)
			ret = r;
	}
	drmFreeDevices(devs, n);
	return ret;
}

void mvgal_close(struct mvgal *dev)
{
	if (!dev)
		return;
	close(dev->fd);
	if (dev->uffd >= 0)
		close(dev->uffd);
	mvgal_count_fini(dev);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->watch_lock);
	free(dev);
}

int mvgal_fd(const struct mvgal *dev)
{
	return dev ? dev->fd : -EINVAL;
}

const char *mvgal_node_path(const struct mvgal *dev)
{
	return dev ? dev->path : NULL;
}

int (mvgal_get_info)(struct mvgal *dev, struct mvgal_info *info)
{
	return mvgal_get_info_sz(dev, info, MVGAL_V1_INFO_SIZE);
}

int mvgal_get_info_sz(struct mvgal *dev, struct mvgal_info *out, size_t size)
{
	struct drm_mvgal_get_info args = { 0 };
	struct mvgal_info i, *info = &i;
	drmVersionPtr v;
	int ret;

	if (!dev || !out || size < MVGAL_V1_INFO_SIZE)
		return mvgal_bad("!dev || !out || size < MVGAL_V1_INFO_SIZE");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_INFO, &args);
	if (ret)
		return ret;
	v = drmGetVersion(dev->fd);
	if (!v)
		return -errno ? -errno : -EINVAL;
	memset(info, 0, sizeof(*info));
	info->abi_version = args.abi_version;
	info->chunk_size = args.chunk_size;
	info->gpu_count = args.gpu_count;
	info->max_gpus = args.max_gpus;
	info->core_flags = args.core_flags;
	info->stats_interval = args.stats_interval;
	info->caps = args.caps;
	snprintf(info->driver_version, sizeof(info->driver_version), "%d.%d.%d",
		 v->version_major, v->version_minor, v->version_patchlevel);
	drmFreeVersion(v);
	mvgal_out(out, size, info, sizeof(*info));
	return 0;
}

const char *mvgal_cap_name(uint64_t cap)
{
	switch (cap) {
	case MVGAL_CAP_SYNCOBJ:
		return "syncobj";
	case MVGAL_CAP_GPU_ATTACH:
		return "gpu-attach";
	case MVGAL_CAP_SESSIONS:
		return "sessions";
	case MVGAL_CAP_MIGRATION:
		return "migration";
	case MVGAL_CAP_WRITE_WATCH:
		return "write-watch";
	case MVGAL_CAP_EVICTION:
		return "eviction";
	case MVGAL_CAP_PLACE_FD:
		return "place-fd";
	case MVGAL_CAP_URING:
		return "uring";
	case MVGAL_CAP_SYNC_SYNCOBJS:
		return "sync-syncobjs";
	case MVGAL_CAP_PLACE_ADOPT:
		return "place-adopt";
	case MVGAL_CAP_STATS:
		return "stats";
	case MVGAL_CAP_MARK_OVERWRITE:
		return "mark-overwrite";
	case MVGAL_CAP_USERPTR_MIRROR:
		return "userptr-mirror";
	case MVGAL_CAP_MARK_HOME_HELD:
		return "mark-home-held";
	default:
		return NULL;
	}
}
