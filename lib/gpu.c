// SPDX-License-Identifier: MIT
/*
 * libmvgal: GPUs, their pools, links and the unified heap.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>
#include <virtgpu_drm.h>

#include <mvgal/mvgal.h>

#include "internal.h"

int mvgal_gpu_attach(struct mvgal *dev, int drm_fd, int pool_fd,
		     uint32_t slot, uint32_t *index)
{
	struct drm_mvgal_gpu_attach a = {
		.drm_fd = drm_fd,
		.pool_fd = pool_fd,
		.gpu = slot,
	};
	int ret;

	if (!dev || drm_fd < 0 || pool_fd < 0)
		return mvgal_bad("!dev || drm_fd < 0 || pool_fd < 0");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GPU_ATTACH, &a);
	if (!ret && index)
		*index = a.gpu;
	return ret;
}

int mvgal_gpu_detach(struct mvgal *dev, uint32_t gpu)
{
	struct drm_mvgal_gpu_detach d = { .gpu = gpu };

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GPU_DETACH, &d);
}

int (mvgal_gpu_info)(struct mvgal *dev, uint32_t gpu,
		     struct drm_mvgal_gpu_info *info)
{
	return mvgal_gpu_info_sz(dev, gpu, info, MVGAL_V1_GPU_INFO_SIZE);
}

int mvgal_gpu_info_sz(struct mvgal *dev, uint32_t gpu,
		      struct drm_mvgal_gpu_info *info, size_t size)
{
	struct drm_mvgal_gpu_info i = { .gpu = gpu };
	int ret;

	if (!dev || !info || size < MVGAL_V1_GPU_INFO_SIZE)
		return mvgal_bad("!dev || !info || size < MVGAL_V1_GPU_INFO_SIZE");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GPU_INFO, &i);
	if (!ret)
		mvgal_out(info, size, &i, sizeof(i));
	return ret;
}

int mvgal_gpu_list(struct mvgal *dev, uint32_t *gpus, unsigned int max)
{
	struct drm_mvgal_get_info gi = { 0 };
	struct drm_mvgal_gpu_info i;
	unsigned int n = 0;
	uint32_t g;
	int ret;

	if (!dev || (max && !gpus))
		return mvgal_bad("!dev || (max && !gpus)");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_INFO, &gi);
	if (ret)
		return ret;
	for (g = 0; g < gi.max_gpus; g++) {
		ret = mvgal_gpu_info(dev, g, &i);
		if (ret == -ENODEV)
			continue;
		if (ret)
			return ret;
		if (n < max)
			gpus[n] = g;
		n++;
	}
	return (int)n;
}

int (mvgal_gpu_link)(struct mvgal *dev, uint32_t src, uint32_t dst,
		     struct drm_mvgal_gpu_link *link)
{
	return mvgal_gpu_link_sz(dev, src, dst, link, MVGAL_V1_GPU_LINK_SIZE);
}

int mvgal_gpu_link_sz(struct mvgal *dev, uint32_t src, uint32_t dst,
		      struct drm_mvgal_gpu_link *link, size_t size)
{
	struct drm_mvgal_gpu_link l = { .src = src, .dst = dst };
	int ret;

	if (!dev || !link || size < MVGAL_V1_GPU_LINK_SIZE)
		return mvgal_bad("!dev || !link || size < MVGAL_V1_GPU_LINK_SIZE");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GPU_LINK, &l);
	if (!ret)
		mvgal_out(link, size, &l, sizeof(l));
	return ret;
}

int (mvgal_get_heap)(struct mvgal *dev, struct drm_mvgal_heap_region *regions,
		     uint32_t *nr_regions, struct drm_mvgal_heap_region *nodes,
		     uint32_t *nr_nodes)
{
	return mvgal_get_heap_sz(dev, regions, nr_regions, nodes, nr_nodes,
				 MVGAL_HEAP_REGION_SIZE_V1);
}

int mvgal_get_heap_sz(struct mvgal *dev, struct drm_mvgal_heap_region *regions,
		      uint32_t *nr_regions, struct drm_mvgal_heap_region *nodes,
		      uint32_t *nr_nodes, size_t esz)
{
	struct drm_mvgal_get_heap h = { 0 };
	int ret;

	if (!dev || !nr_regions)
		return mvgal_bad("!dev || !nr_regions");
	h.stride = mvgal_stride(esz, MVGAL_HEAP_REGION_SIZE_V1);
	h.regions = (uintptr_t)regions;
	h.num_regions = regions ? *nr_regions : 0;
	h.nodes = (uintptr_t)nodes;
	h.num_nodes = nodes && nr_nodes ? *nr_nodes : 0;
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h);
	if (ret)
		return ret;
	*nr_regions = h.num_regions;
	if (nr_nodes)
		*nr_nodes = h.num_nodes;
	return 0;
}

/* Opens the card (primary) node of the device behind @fd: dumb buffers
 * can only be created there.
 */
static int mvgal_open_card_node(int fd)
{
	drmDevicePtr d;
	int card;

	if (drmGetNodeTypeFromFd(fd) == DRM_NODE_PRIMARY) {
		card = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		return card < 0 ? -errno : card;
	}
	if (drmGetDevice2(fd, 0, &d))
		return -ENODEV;
	if (!(d->available_nodes & (1 << DRM_NODE_PRIMARY))) {
		drmFreeDevice(&d);
		return -EOPNOTSUPP;
	}
	card = open(d->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC);
	drmFreeDevice(&d);
	return card < 0 ? -errno : card;
}

/*
 * The file the attach hands mvgal: the device's render node where it has
 * one. mvgal may keep that file open for as long as the GPU is attached
 * (a pool its driver may move is followed only while mvgal holds a handle
 * of it), and a card node file could be the DRM master, which the
 * display server needs. Otherwise a file of @fd's own node.
 */
static int mvgal_open_attach_node(int fd)
{
	drmDevicePtr d;
	int node = -1;

	if (!drmGetDevice2(fd, 0, &d)) {
		if (d->available_nodes & (1 << DRM_NODE_RENDER))
			node = open(d->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
		drmFreeDevice(&d);
	}
	if (node < 0)
		node = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return node < 0 ? -errno : node;
}

/*
 * Exports GEM @handle of @fd read-write, then closes the handle: the
 * dma-buf holds the object (a dumb buffer's handle too: DESTROY_DUMB is a
 * GEM close). 0 or -errno.
 */
static int mvgal_export_handle(int fd, uint32_t handle, int *dmabuf_fd)
{
	int ret, out;

	ret = drmPrimeHandleToFD(fd, handle, DRM_CLOEXEC | DRM_RDWR, &out);
	if (ret)
		ret = -errno;
	drmCloseBufferHandle(fd, handle);
	if (!ret)
		*dmabuf_fd = out;
	return ret;
}

/*
 * Creates a dumb buffer of @pages 4 KiB pages on @card (rows of 1024
 * 32-bit pixels: exactly that size on drivers that align pitches to 256
 * bytes or less) and exports it read-write; 0 or -errno.
 */
static int mvgal_dumb_dmabuf(int card, uint64_t pages, int *dmabuf_fd)
{
	struct drm_mode_create_dumb c = { .bpp = 32, .width = 1024 };
	int ret;

	if (pages > UINT32_MAX)
		return -E2BIG;
	c.height = (uint32_t)pages;
	ret = mvgal_ioctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &c);
	return ret ? ret : mvgal_export_handle(card, c.handle, dmabuf_fd);
}

/*
 * virtio-gpu's own allocation, which its render node takes: a 2D resource
 * as its dumb buffers are (virtio_gpu_mode_dumb_create(): XRGB8888 rows
 * of 1024 pixels), exported read-write; 0 or -errno. Its size is a u32:
 * at most 4 GiB less a page (-E2BIG). A device with 3D (virgl) hands the
 * resource to the host's GL, whose textures are far shorter than a pool's
 * rows: not tried, so not made (-ENOSYS).
 */
static int mvgal_virtio_dmabuf(int fd, uint64_t pages, int *dmabuf_fd)
{
	struct drm_virtgpu_resource_create rc = {
		.target = 2,	/* PIPE_TEXTURE_2D: all a 2D device takes */
		.format = 2,	/* VIRTIO_GPU_FORMAT_B8G8R8X8_UNORM */
		.width = 1024, .depth = 1, .array_size = 1,
	};
	int three_d = 0, ret;
	struct drm_virtgpu_getparam gp = {
		.param = VIRTGPU_PARAM_3D_FEATURES,
		.value = (uintptr_t)&three_d,
	};

	if (pages > UINT32_MAX / 4096)
		return -E2BIG;
	ret = mvgal_ioctl(fd, DRM_IOCTL_VIRTGPU_GETPARAM, &gp);
	if (ret)
		return ret;
	if (three_d)
		return -ENOSYS;
	rc.height = (uint32_t)pages;
	rc.size = (uint32_t)pages * 4096;
	rc.stride = 4096;
	ret = mvgal_ioctl(fd, DRM_IOCTL_VIRTGPU_RESOURCE_CREATE, &rc);
	return ret ? ret : mvgal_export_handle(fd, rc.bo_handle, dmabuf_fd);
}

/*
 * How the boot step makes a GPU's pool: a dumb buffer on its card node,
 * or, where only its render node can be opened (a container that passes
 * render nodes alone), the driver's own allocation where libmvgal knows
 * it. Other drivers' render-only pools are not made (-ENOSYS, as for a
 * driver without dumb buffers).
 */
struct mvgal_pool_maker {
	int fd;
	int (*make)(int fd, uint64_t pages, int *dmabuf_fd);
};

static const struct {
	const char *driver;
	int (*make)(int fd, uint64_t pages, int *dmabuf_fd);
} mvgal_render_pools[] = {
	{ "virtio_gpu", mvgal_virtio_dmabuf },
};

static int mvgal_render_maker(int node, struct mvgal_pool_maker *pm)
{
	drmVersionPtr v = drmGetVersion(node);
	size_t i;

	if (!v)
		return -ENODEV;
	for (i = 0; i < sizeof(mvgal_render_pools) / sizeof(mvgal_render_pools[0]); i++) {
		if (v->name && !strcmp(v->name, mvgal_render_pools[i].driver)) {
			pm->make = mvgal_render_pools[i].make;
			break;
		}
	}
	drmFreeVersion(v);
	if (!pm->make)
		return -ENOSYS;
	pm->fd = fcntl(node, F_DUPFD_CLOEXEC, 0);
	return pm->fd < 0 ? -errno : 0;
}

/* The card node's dumb buffers, else the render node's own allocation. */
static int mvgal_pool_maker_get(int fd, int node, struct mvgal_pool_maker *pm)
{
	pm->fd = mvgal_open_card_node(fd);
	pm->make = mvgal_dumb_dmabuf;
	if (pm->fd != -EOPNOTSUPP)
		return pm->fd < 0 ? pm->fd : 0;
	pm->make = NULL;
	return mvgal_render_maker(node, pm);
}

/* Makes a pool of @mb MiB and exports it; 0 or -errno. */
static int mvgal_pool_create(const struct mvgal_pool_maker *pm, uint64_t mb,
			     int *pool_fd)
{
	return pm->make(pm->fd, mb * 256, pool_fd);
}

int mvgal_place_adopt_dumb(struct mvgal *dev, uint32_t handle, uint32_t gpu,
			   int card_fd, int *dmabuf_fd)
{
	uint64_t page = (uint64_t)getpagesize();
	struct drm_mvgal_bo_info info;
	int ret, fd;

	if (!dev || !dmabuf_fd)
		return mvgal_bad("!dev || !dmabuf_fd");
	ret = mvgal_bo_info(dev, handle, &info);
	/* The module wants the buffer's pages: 4 KiB rows of them. */
	if (!ret)
		ret = mvgal_dumb_dmabuf(card_fd, (info.size + page - 1) / page * (page / 4096),
					&fd);
	if (ret)
		return ret;
	ret = mvgal_place_adopt(dev, handle, gpu, fd);
	if (ret) {
		close(fd);
		return ret;
	}
	*dmabuf_fd = fd;
	return 0;
}

/*
 * Errors that mean "not that much memory": try a smaller pool. Once the
 * driver made the buffer, only mvgal's own limit (max_pool_mb) is about
 * size: an attach the driver refused (-ENXIO) or cannot map (-EOPNOTSUPP)
 * fails at any size.
 */
static bool mvgal_pool_too_big(int err, bool made)
{
	if (made)
		return err == -E2BIG;
	return err == -ENOMEM || err == -ENOSPC || err == -E2BIG ||
	       err == -EINVAL || err == -EFBIG;
}

int mvgal_gpu_attach_node(struct mvgal *dev, const char *path,
			  uint64_t pool_mb, uint32_t slot, uint32_t *index)
{
	uint64_t mb = pool_mb ? pool_mb : MVGAL_POOL_DEFAULT_MB;
	struct mvgal_pool_maker pm;
	int fd, node, ret;

	if (!dev || !path)
		return mvgal_bad("!dev || !path");
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	node = mvgal_open_attach_node(fd);
	if (node < 0) {
		close(fd);
		return node;
	}
	ret = mvgal_pool_maker_get(fd, node, &pm);
	if (ret) {
		close(node);
		close(fd);
		return ret;
	}
	for (;;) {
		bool made;
		int pool_fd;

		ret = mvgal_pool_create(&pm, mb, &pool_fd);
		made = !ret;
		if (made) {
			ret = mvgal_gpu_attach(dev, node, pool_fd, slot, index);
			close(pool_fd);
		}
		/* An explicit size is taken or refused as it is; otherwise
		 * halve until the driver grants a pool or the floor is hit.
		 */
		if (!ret || pool_mb || !mvgal_pool_too_big(ret, made) ||
		    mb / 2 < MVGAL_POOL_MIN_MB)
			break;
		mb /= 2;
	}
	close(pm.fd);
	close(node);
	close(fd);
	return ret;
}

static int mvgal_lowest_free_slot(struct mvgal *dev, uint32_t *slot)
{
	struct drm_mvgal_get_info gi = { 0 };
	struct drm_mvgal_gpu_info i;
	uint32_t g;
	int ret;

	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_INFO, &gi);
	if (ret)
		return ret;
	for (g = 0; g < gi.max_gpus; g++) {
		ret = mvgal_gpu_info(dev, g, &i);
		if (ret == -ENODEV) {
			*slot = g;
			return 0;
		}
		if (ret)
			return ret;
	}
	return -ENOSPC;
}

/*
 * The sysfs directory of DRM node @path's device, with @tail appended:
 * 0, or -errno (-ENODEV for a path that is no device node).
 */
static int mvgal_node_sysdir(const char *path, const char *tail, char *dir,
			     size_t len)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENODEV;
	snprintf(dir, len, "/sys/dev/char/%u:%u/device%s",
		 major(st.st_rdev), minor(st.st_rdev), tail);
	return 0;
}

/* Whether sysfs device directory @dir is a PCI function's. */
static bool mvgal_sysfs_is_pci(const char *dir)
{
	char sub[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	snprintf(sub, sizeof(sub), "%s/subsystem", dir);
	n = readlink(sub, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return !strcmp(strrchr(link, '/') ? strrchr(link, '/') + 1 : link, "pci");
}

/*
 * The kernel's name of the device behind DRM node @path, as GPU_INFO's
 * slot has it (mvgal_gpu_identify()): the PCI function the DRM device is
 * or sits under, else the DRM device's own parent. What [gpu:NAME] names.
 * Return: 0, or -errno.
 */
static int mvgal_node_device(const char *path, char *name, size_t len)
{
	char dir[80], real[PATH_MAX], walk[PATH_MAX], *cut;
	const char *base;
	int ret = mvgal_node_sysdir(path, "", dir, sizeof(dir));

	if (ret)
		return ret;
	if (!realpath(dir, real))
		return -errno;
	memcpy(walk, real, sizeof(walk));
	base = strrchr(real, '/') + 1;	/* the device itself */
	/* Up from it: the first directory of a PCI function names it. */
	while ((cut = strrchr(walk, '/')) && cut != walk) {
		if (mvgal_sysfs_is_pci(walk)) {
			base = real + (cut + 1 - walk);
			break;
		}
		*cut = '\0';
	}
	/* One component of the path: up to its '/', if any. */
	if (strcspn(base, "/") >= len)
		return -ENAMETOOLONG;
	snprintf(name, len, "%.*s", (int)strcspn(base, "/"), base);
	return 0;
}

/*
 * Whether the device named @name is attached already: an attached GPU's,
 * one not gone. A re-run of the boot step then makes no pool for it,
 * where it would have made one only to be told -EEXIST.
 */
static bool mvgal_node_attached(struct mvgal *dev, const char *name)
{
	struct drm_mvgal_get_info gi = { 0 };
	struct drm_mvgal_gpu_info i;

	if (mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_INFO, &gi))
		return false;
	for (uint32_t g = 0; g < gi.max_gpus; g++)
		if (!mvgal_gpu_info(dev, g, &i) && i.state != MVGAL_GPU_GONE &&
		    !strncmp(i.slot, name, sizeof(i.slot)))
			return true;
	return false;
}

/*
 * Whether DRM node @path's device is display-only: its driver made no
 * render node (simpledrm, bochs), so it has no GPU memory to lend. The
 * kernel's list in sysfs, not /dev, which a container may have cut.
 */
static bool mvgal_node_display_only(const char *path)
{
	char dir[80];
	struct dirent *e;
	bool render = false;
	DIR *d;

	if (mvgal_node_sysdir(path, "/drm", dir, sizeof(dir)))
		return false;
	d = opendir(dir);
	if (!d)
		return false;
	while (!render && (e = readdir(d)))
		render = !strncmp(e->d_name, "renderD", 7);
	closedir(d);
	return !render;
}

/* Whether a [gpu:NAME] section names device @name. */
static bool mvgal_named(const struct mvgal_config *cfg, const char *name)
{
	const size_t n = sizeof(cfg->gpu_named[0].name);

	for (unsigned int i = 0; i < MVGAL_MAX_GPUS; i++)
		if (cfg->gpu_named[i].name[0] &&
		    !strncmp(cfg->gpu_named[i].name, name, n))
			return true;
	return false;
}

/* The pool size for device @name in slot @slot: [gpu:NAME], else [gpu_N]. */
static uint64_t mvgal_pool_mb(const struct mvgal_config *cfg, const char *name,
			      uint32_t slot)
{
	const size_t n = sizeof(cfg->gpu_named[0].name);

	for (unsigned int i = 0; i < MVGAL_MAX_GPUS; i++)
		if (cfg->gpu_named[i].name[0] &&
		    !strncmp(cfg->gpu_named[i].name, name, n))
			return cfg->gpu_named[i].memory_limit_mb;
	return cfg->memory_limit_mb[slot];
}

/* 1 if @path is a node of mvgal itself, 0 if not, -errno. */

static int mvgal_node_is_mvgal(const char *path)
{
	drmVersionPtr v;
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	v = drmGetVersion(fd);
	close(fd);
	if (!v)
		return -ENODEV; /* not a DRM node at all */
	ret = v->name && !strcmp(v->name, "mvgal");
	drmFreeVersion(v);
	return ret;
}

/* Measures the paths after GPUs were attached, for the path selector. Best
 * effort: a module without the migration engine or any error of the
 * calibration (-EPERM without CAP_SYS_ADMIN) is ignored.
 */
static void mvgal_calibrate_quietly(struct mvgal *dev)
{
	struct drm_mvgal_get_info gi = { 0 };

	if (geteuid() != 0)
		return;
	if (mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_INFO, &gi) ||
	    !(gi.caps & (MVGAL_CAP_STATS | MVGAL_CAP_MIGRATION)))
		return;
	(void)mvgal_calibrate(dev, NULL);
}

int (mvgal_attach_all)(struct mvgal *dev, const struct mvgal_config *cfg,
		       mvgal_attach_cb cb, void *ctx)
{
	return mvgal_attach_all_sz(dev, cfg, cb, ctx, MVGAL_V1_CONFIG_SIZE);
}

int mvgal_attach_all_sz(struct mvgal *dev, const struct mvgal_config *ucfg,
			mvgal_attach_cb cb, void *ctx, size_t size)
{
	int first_err = 0, attached = 0;
	struct mvgal_config full, *cfg = &full;
	glob_t g;
	size_t i;
	int ret;

	if (!dev || !ucfg || size < MVGAL_V1_CONFIG_SIZE)
		return mvgal_bad("!dev || !ucfg || size < MVGAL_V1_CONFIG_SIZE");
	/* What an older caller's struct lacks keeps its default; one
	 * without keys_set had every parameter written.
	 */
	mvgal_config_defaults_sz(&full, sizeof(full));
	memcpy(&full, ucfg, size < sizeof(full) ? size : sizeof(full));
	if (size < offsetof(struct mvgal_config, keys_set) + sizeof(full.keys_set))
		full.keys_set = ~0ULL;
	/* The boot step sets the policy too, as far as it may (root): its
	 * errors are mvgal_config_apply()'s to report.
	 */
	(void)mvgal_config_apply_keys(cfg, cfg->keys_set);
	ret = glob(cfg->device_pattern, 0, NULL, &g);
	if (ret == GLOB_NOMATCH)
		return 0;
	if (ret)
		return -ENOMEM;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *path = g.gl_pathv[i];
		uint32_t slot = MVGAL_GPU_ANY;
		char name[64] = "";

		ret = mvgal_node_is_mvgal(path);
		if (ret == 1)
			continue;
		/* Without a sysfs name, only [gpu_N] can apply. */
		if (ret == 0 && mvgal_node_device(path, name, sizeof(name)))
			name[0] = '\0';
		if (ret == 0 && name[0] && mvgal_node_attached(dev, name))
			ret = -EEXIST;
		if (ret == 0 && mvgal_node_display_only(path) &&
		    !mvgal_named(cfg, name))
			ret = MVGAL_ATTACH_DISPLAY_ONLY;
		if (ret == 0)
			ret = mvgal_lowest_free_slot(dev, &slot);
		if (ret == 0)
			ret = mvgal_gpu_attach_node(dev, path,
						    mvgal_pool_mb(cfg, name, slot),
						    slot, &slot);
		if (cb)
			cb(path, ret, slot, ctx);
		if (!ret)
			attached++;
		else if (ret != -EEXIST && ret != MVGAL_ATTACH_DISPLAY_ONLY &&
			 !first_err)
			first_err = ret;
	}
	globfree(&g);
	if (attached)
		mvgal_calibrate_quietly(dev);
	return first_err ? first_err : attached;
}

const char *mvgal_method_name(uint32_t method)
{
	static const char *const names[MVGAL_METHOD_EXEC + 1] = {
		[MVGAL_METHOD_IN_PLACE] = "in-place",
		[MVGAL_METHOD_P2P] = "p2p",
		[MVGAL_METHOD_CPU_COPY] = "cpu-copy",
		[MVGAL_METHOD_STAGING] = "staging",
		[MVGAL_METHOD_EXEC] = "executor",
	};

	return method <= MVGAL_METHOD_EXEC ? names[method] : "none";
}

const char *mvgal_reason_text(uint32_t reason)
{
	static const char *const text[MVGAL_REASON_COUNT] = {
		[MVGAL_REASON_OK] = "possible",
		[MVGAL_REASON_IMPORT_REFUSED] = "the destination's driver refuses to import the source pool",
		[MVGAL_REASON_NO_DMA_ENGINE] = "no memcpy-capable DMA engine",
		[MVGAL_REASON_NO_CPU_MAPPING] = "a pool has no kernel CPU mapping",
		[MVGAL_REASON_NO_P2P_COPIER] = "a DMA engine exists, but it does not reach both pools (peer-to-peer refused, or a pool that moves)",
		[MVGAL_REASON_P2P_MISMATCH] = "the DMA engine's calibration copy came out wrong: the pair never uses it",
		[MVGAL_REASON_P2P_UNCHECKED] = "no calibration has checked the DMA engine's copy on this pair yet (or one of its copies failed since)",
	};

	return reason < MVGAL_REASON_COUNT ? text[reason] : "unknown";
}

const char *mvgal_why_text(uint32_t why)
{
	static const char *const text[MVGAL_WHY_COUNT] = {
		[MVGAL_WHY_NONE] = "no method is possible",
		[MVGAL_WHY_IMPORTS] = "the destination's driver uses the memory in place",
		[MVGAL_WHY_DMA_ENGINE] = "a DMA engine copies without the CPU",
		[MVGAL_WHY_CPU_DIRECT] = "no DMA engine; the source is cacheable memory, so the CPU copies straight into the destination",
		[MVGAL_WHY_IOMEM_SOURCE] = "the source is I/O memory: read it once into a bounce buffer",
	};

	return why < MVGAL_WHY_COUNT ? text[why] : "unknown";
}
