/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest selftests. Include after kselftest_harness.h.
 */
#ifndef MVGAL_SELFTEST_HELPERS_H
#define MVGAL_SELFTEST_HELPERS_H

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "standin_dev.h"

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

/*
 * The stand-in pass (run-selftests.sh, MVGAL_TEST_STANDIN=node0 or
 * node1): the test bed's first VRAM stand-in GPU (tests/vram, loaded by
 * the runner, in its amdgpu mode) takes the place of the virtio-gpu on
 * that NUMA node. The fixtures attach it instead (config_64()'s device
 * pattern names the card nodes to attach, reset_state() detaches what
 * it replaces), find_gpu() returns it when asked for that virtio-gpu,
 * and map_pool() (coherence.h) maps its pool through the stand-in, not
 * mvgal: the BAR (sysfs resource2) where its driver keeps the pool in
 * VRAM, the stand-in's own mapping of its pages where the driver pinned
 * it in system memory (amdgpu pins an importer's buffer into GTT; mvgal
 * pins pools a driver could move, module parameter movable_pools).
 * Everything else of the test is unchanged; a test that cannot run so
 * says why (standin_skip()).
 */
#define STANDIN_ENV "MVGAL_TEST_STANDIN"

/* The NUMA node of the virtio-gpu the stand-in replaces, or -1. */
static inline int standin_role(void)
{
	const char *e = getenv(STANDIN_ENV);

	if (!e || !*e)
		return -1;
	if (!strcmp(e, "node0"))
		return 0;
	if (!strcmp(e, "node1"))
		return 1;
	fprintf(stderr, "# " STANDIN_ENV "=%s: node0 or node1\n", e);
	exit(1);
}

/* The stand-in the pass uses (the first in PCI order); 0 if found. */
static inline int standin_get(struct standin *s)
{
	struct standin all[4];
	int n = standin_find(all, 4);

	for (int i = 1; i < n; i++)
		close(all[i].fd);
	if (n < 1)
		return -ENODEV;
	*s = all[0];
	return 0;
}

/* The test bed's NUMA node @node has CPU @node alone: runs the caller there. */
static inline int run_on_node(int node)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(node, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The NUMA node of card node N's device (-1: none), or -2. */
static inline int card_numa_node(int card)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/class/drm/card%d/device/numa_node", card);
	return (int)read_ll(path);
}

/* The DRM driver name of /dev/dri/cardN in @name; 0, or -errno. */
static inline int card_driver(int card, char *name, size_t len)
{
	char path[32];
	drmVersionPtr v;
	int fd;

	snprintf(path, sizeof(path), "/dev/dri/card%d", card);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	v = drmGetVersion(fd);
	close(fd);
	if (!v)
		return -ENODEV;
	snprintf(name, len, "%s", v->name);
	drmFreeVersion(v);
	return 0;
}

/*
 * The stand-in pass's device pattern: every card node but the replaced
 * virtio-gpu's and the other stand-ins', as one glob ("/dev/dri/card[0235]";
 * the test bed has fewer than ten cards). Empty if something is amiss, so
 * that the fixture's GPU count fails.
 */
static inline void standin_pattern(char *pat, size_t len)
{
	int role = standin_role(), n = 0;
	struct standin s;
	char digits[16], name[64];

	pat[0] = 0;
	if (standin_get(&s))
		return;
	close(s.fd);
	for (int c = 0; c < 10; c++) {
		char path[32];

		snprintf(path, sizeof(path), "/dev/dri/card%d", c);
		if (access(path, F_OK) || card_driver(c, name, sizeof(name)))
			continue;
		if (!strcmp(name, "virtio_gpu") && card_numa_node(c) == role)
			continue;
		if (!strcmp(name, "mvgal_vram") && c != s.card)
			continue;
		digits[n++] = (char)('0' + c);
	}
	digits[n] = 0;
	if (s.card > 9 || !n)
		return;
	snprintf(pat, len, "/dev/dri/card[%s]", digits);
}

static inline void config_64(struct mvgal_config *cfg)
{
	unsigned int i;

	mvgal_config_defaults(cfg);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		cfg->memory_limit_mb[i] = POOL_MB;
	if (standin_role() >= 0)
		standin_pattern(cfg->device_pattern, sizeof(cfg->device_pattern));
}

/* Finds the attached GPU whose driver is @driver and NUMA node @node
 * (MVGAL_NUMA_NONE, or ~1U for any); -1 if none.
 */
static inline int find_gpu(struct mvgal *m, const char *driver, uint32_t node)
{
	struct drm_mvgal_gpu_info info;
	uint32_t g;

	/* The stand-in pass: the stand-in is asked for as that virtio-gpu. */
	if (standin_role() >= 0 && !strcmp(driver, "virtio_gpu") &&
	    node == (uint32_t)standin_role()) {
		driver = "mvgal_vram";
		node = ~1U;
	}
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

/*
 * The stand-in pass: detaches the GPUs the pass does not use (the
 * replaced virtio-gpu, other stand-ins), waiting up to 20 s for buffers
 * of tests before to give their pools back.
 */
static inline void standin_detach_others(struct __test_metadata *_metadata,
					 struct mvgal *m)
{
	struct drm_mvgal_gpu_info info;
	struct standin s;
	const char *pci;
	uint32_t g;
	int ret;

	ASSERT_EQ(0, standin_get(&s)) TH_LOG("no VRAM stand-in: modprobe mvgal_vram");
	close(s.fd);
	pci = strrchr(s.pci, '/') + 1;
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		if (mvgal_gpu_info(m, g, &info))
			continue;
		if (!(!strcmp(info.driver, "virtio_gpu") &&
		      info.numa_node == (uint32_t)standin_role()) &&
		    !(!strcmp(info.driver, "mvgal_vram") && strcmp(info.slot, pci)))
			continue;
		for (int i = 0; i < 200; i++) {
			ret = mvgal_gpu_detach(m, g);
			if (ret != -EBUSY)
				break;
			usleep(100 * 1000);
		}
		ASSERT_EQ(0, ret) TH_LOG("GPU %u (%s) stays attached", g, info.driver);
	}
}

/*
 * In the stand-in pass, a test that cannot run on a stand-in pool says
 * why and is skipped: use at the top of a TEST_F, with the reason.
 */
#define standin_skip(why) do {						\
	if (standin_role() >= 0)					\
		SKIP(return, "not on a stand-in pool: %s", why);	\
} while (0)

/* Frees every debugfs allocation and attaches every missing GPU. */
static inline void reset_state(struct __test_metadata *_metadata, struct mvgal *m)
{
	struct mvgal_config cfg;
	uint32_t g;

	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		while (pool_free(g) == 0)
			;
	if (standin_role() >= 0)
		standin_detach_others(_metadata, m);
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
