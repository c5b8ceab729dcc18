/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest selftests. Include after kselftest_harness.h.
 */
#ifndef MVGAL_SELFTEST_HELPERS_H
#define MVGAL_SELFTEST_HELPERS_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#define DEBUG_ALLOC "/sys/kernel/debug/mvgal/pool_alloc"
#define POOL_MB 64
#define NR_GPUS 4	/* three virtio-gpu and vgem */

/* The number a file (a sysfs or cgroup value) starts with, or -1. */
static inline long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static inline int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Unloads mvgal, retried for up to 5 s: the last buffers of files just
 * closed end in the background, and their jobs' fences hold the module
 * until they go.
 */
#define RMMOD_MVGAL \
	"(i=0; while [ $i -lt 50 ]; do rmmod mvgal 2>/dev/null && exit 0; " \
	"i=$((i + 1)); sleep 0.1; done; rmmod mvgal)"

static inline int debug_cmd(const char *fmt, unsigned int gpu, unsigned long long size)
{
	char buf[64];
	int fd, n, ret = 0;

	n = snprintf(buf, sizeof(buf), fmt, gpu, size);
	fd = open(DEBUG_ALLOC, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static inline int pool_alloc(unsigned int gpu, unsigned long long size)
{
	return debug_cmd("alloc %u %llu", gpu, size);
}

static inline int pool_free(unsigned int gpu)
{
	return debug_cmd("free %u", gpu, 0);
}

static inline void config_64(struct mvgal_config *cfg)
{
	unsigned int i;

	mvgal_config_defaults(cfg);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		cfg->memory_limit_mb[i] = POOL_MB;
}

/* Finds the attached GPU whose driver is @driver and NUMA node @node
 * (MVGAL_NUMA_NONE, or ~1U for any); -1 if none.
 */
static inline int find_gpu(struct mvgal *m, const char *driver, uint32_t node)
{
	struct drm_mvgal_gpu_info info;
	uint32_t g;

	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		if (mvgal_gpu_info(m, g, &info))
			continue;
		if (strcmp(info.driver, driver))
			continue;
		if (node != ~1U && info.numa_node != node)
			continue;
		return (int)g;
	}
	return -1;
}

static inline int gpu_count(struct mvgal *m)
{
	return mvgal_gpu_list(m, NULL, 0);
}

/* Frees every debugfs allocation and attaches every missing GPU. */
static inline void reset_state(struct __test_metadata *_metadata, struct mvgal *m)
{
	struct mvgal_config cfg;
	uint32_t g;

	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		while (pool_free(g) == 0)
			;
	config_64(&cfg);
	ASSERT_LE(0, mvgal_attach_all(m, &cfg, NULL, NULL));
	ASSERT_EQ(NR_GPUS, gpu_count(m));
}


static inline int pool_region(struct mvgal *m, uint32_t gpu,
		       struct drm_mvgal_heap_region *out)
{
	struct drm_mvgal_heap_region r[MVGAL_MAX_GPUS + 1];
	uint32_t nr = MVGAL_MAX_GPUS + 1, i;
	int ret = mvgal_get_heap(m, r, &nr, NULL, NULL);

	if (ret)
		return ret;
	for (i = 1; i < nr; i++)
		if (r[i].gpu == gpu) {
			*out = r[i];
			return 0;
		}
	return -ENOENT;
}

/* An fd of the card node of the first DRM device of @driver; its path in
 * @path if given.
 */
static inline int open_card(const char *driver, char *path, size_t len)
{
	drmDevicePtr devs[16];
	int n, i, fd = -ENODEV;

	n = drmGetDevices2(0, devs, 16);
	for (i = 0; i < n && fd < 0; i++) {
		drmVersionPtr v;
		int f;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_PRIMARY)))
			continue;
		f = open(devs[i]->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC);
		if (f < 0)
			continue;
		v = drmGetVersion(f);
		if (v && !strcmp(v->name, driver)) {
			fd = f;
			if (path)
				snprintf(path, len, "%s", devs[i]->nodes[DRM_NODE_PRIMARY]);
		} else {
			close(f);
		}
		drmFreeVersion(v);
	}
	drmFreeDevices(devs, n);
	return fd;
}

#endif /* MVGAL_SELFTEST_HELPERS_H */
