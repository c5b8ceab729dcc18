// SPDX-License-Identifier: GPL-2.0
/*
 * GPU attach, pools, topology and the unified heap, against the guest's
 * stand-in GPUs: three virtio-gpu (main host bridge, expander bridge on
 * NUMA node 0, expander bridge on NUMA node 1) and vgem. And the paths
 * between them: where staging bounces, and the path selector's choice by
 * size as migrations carry it out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/sync_file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"

#include "helpers.h"
#include "coherence.h"

/* A dma-buf of @mb MiB from the driver behind @card. */
static int make_pool(int card, unsigned int mb)
{
	struct drm_mode_create_dumb c = { .bpp = 32, .width = 1024,
					  .height = mb * 256 };
	int fd = -1;

	if (drmIoctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		return -errno;
	if (drmPrimeHandleToFD(card, c.handle, DRM_CLOEXEC | DRM_RDWR, &fd))
		fd = -errno;
	drmCloseBufferHandle(card, c.handle);
	return fd;
}

static int read_sysfs(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static unsigned long sysfs_ul(const char *dir, const char *name)
{
	char buf[64];

	if (read_sysfs(dir, name, buf, sizeof(buf)))
		return ULONG_MAX;
	return strtoul(buf, NULL, 0);
}

static long module_refcnt(const char *mod)
{
	char dir[64];
	char buf[32];

	snprintf(dir, sizeof(dir), "/sys/module/%s", mod);
	if (read_sysfs(dir, "refcnt", buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

FIXTURE(gpus) {
	struct mvgal *m;
	int fd;
};

FIXTURE_SETUP(gpus)
{
	ASSERT_EQ(0, mvgal_open(&self->m));
	self->fd = mvgal_fd(self->m);
	reset_state(_metadata, self->m);
}

FIXTURE_TEARDOWN(gpus)
{
	mvgal_close(self->m);
}

TEST_F(gpus, attach_all_finds_every_gpu)
{
	struct mvgal_config cfg;
	uint32_t list[MVGAL_MAX_GPUS];
	int n, i, virtio = 0, vgem = 0;

	standin_skip("it counts the test bed's three virtio-gpus");
	n = mvgal_gpu_list(self->m, list, MVGAL_MAX_GPUS);
	ASSERT_EQ(NR_GPUS, n);
	for (i = 0; i < n; i++) {
		struct drm_mvgal_gpu_info info;

		ASSERT_EQ(0, mvgal_gpu_info(self->m, list[i], &info));
		EXPECT_EQ(list[i], info.gpu);
		virtio += !strcmp(info.driver, "virtio_gpu");
		vgem += !strcmp(info.driver, "vgem");
		EXPECT_EQ(POOL_MB << 20, info.pool_size);
		EXPECT_EQ(0, info.pool_used);
		EXPECT_EQ(MVGAL_GPU_IDLE, info.state);
	}
	EXPECT_EQ(3, virtio);
	EXPECT_EQ(1, vgem);
	/* Everything is attached: a second pass attaches nothing. */
	config_64(&cfg);
	EXPECT_EQ(0, mvgal_attach_all(self->m, &cfg, NULL, NULL));
	EXPECT_EQ(NR_GPUS, gpu_count(self->m));
}

/* Identity and topology agree with what sysfs says about each device. */
/*
 * Is @major:@minor a DRM node of the device mvgal calls @slot, and the
 * st_rdev of /dev/dri/@prefix@minor? sysfs links each node to its
 * device, whose name is the slot ("0000:00:02.0"; "vgem" for vgem).
 */
static bool node_of(uint32_t major, uint32_t minor, const char *slot,
		    const char *prefix)
{
	char link[64], dev[PATH_MAX];
	const char *base;
	struct stat st;

	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device", major, minor);
	if (!major || !realpath(link, dev))
		return false;
	base = strrchr(dev, '/');
	snprintf(link, sizeof(link), "/dev/dri/%s%u", prefix, minor);
	return base && !strcmp(base + 1, slot) && !stat(link, &st) &&
	       st.st_rdev == makedev(major, minor);
}

TEST_F(gpus, identity_matches_sysfs)
{
	uint32_t g;
	int checked = 0;

	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		struct drm_mvgal_gpu_info info;
		char dir[PATH_MAX], real[PATH_MAX], root[40];
		long node;

		if (mvgal_gpu_info(self->m, g, &info))
			continue;
		checked++;
		/* Its nodes by number, as stat() and Vulkan report them. */
		EXPECT_TRUE(node_of(info.render_major, info.render_minor,
				    info.slot, "renderD"));
		EXPECT_TRUE(node_of(info.primary_major, info.primary_minor,
				    info.slot, "card"));
		EXPECT_EQ(0, info.executor);
		EXPECT_EQ(0, info.pad2);
		if (!strcmp(info.driver, "vgem")) {
			EXPECT_EQ(MVGAL_BUS_PLATFORM, info.bus);
			EXPECT_STREQ("vgem", info.slot);
			EXPECT_STREQ("", info.root);
			EXPECT_EQ(MVGAL_NUMA_NONE, info.numa_node);
			EXPECT_EQ(0, info.pci_vendor);
			continue;
		}
		/* The stand-in pass: a virtio-gpu is the VRAM stand-in. */
		if (standin_role() < 0 || strcmp(info.driver, "mvgal_vram"))
			EXPECT_STREQ("virtio_gpu", info.driver);
		EXPECT_EQ(MVGAL_BUS_PCI, info.bus);
		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", info.slot);
		ASSERT_NE(NULL, realpath(dir, real)) TH_LOG("no %s", dir);
		EXPECT_EQ(sysfs_ul(dir, "vendor"), info.pci_vendor);
		EXPECT_EQ(sysfs_ul(dir, "device"), info.pci_device);
		EXPECT_EQ(sysfs_ul(dir, "subsystem_vendor"), info.pci_subvendor);
		EXPECT_EQ(sysfs_ul(dir, "subsystem_device"), info.pci_subdevice);
		EXPECT_EQ(0x1af4, info.pci_vendor); /* virtio, ivshmem (the stand-in) */
		node = (long)sysfs_ul(dir, "numa_node");
		EXPECT_EQ(node < 0 ? MVGAL_NUMA_NONE : (uint32_t)node,
			  info.numa_node);
		/* /sys/devices/pci0000:40/... : the host bridge is the first
		 * component under /sys/devices.
		 */
		ASSERT_EQ(1, sscanf(real, "/sys/devices/%39[^/]", root));
		EXPECT_STREQ(root, info.root);
	}
	EXPECT_EQ(NR_GPUS, checked);
}

TEST_F(gpus, expander_bridge_topology)
{
	standin_skip("the virtio-gpus behind the NUMA nodes' expander bridges are its subject; the stand-in is behind a switch on the main bridge");
	int main_gpu = find_gpu(self->m, "virtio_gpu", MVGAL_NUMA_NONE);
	int n0 = find_gpu(self->m, "virtio_gpu", 0);
	int n1 = find_gpu(self->m, "virtio_gpu", 1);
	struct drm_mvgal_gpu_info a, b, c;
	struct drm_mvgal_gpu_link l;

	ASSERT_GE(main_gpu, 0);
	ASSERT_GE(n0, 0);
	ASSERT_GE(n1, 0);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, main_gpu, &a));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, n1, &b));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, n0, &c));
	EXPECT_STREQ("pci0000:00", a.root);
	EXPECT_STREQ("pci0000:40", b.root);
	EXPECT_STREQ("pci0000:20", c.root);
	EXPECT_EQ(1, b.numa_node);
	EXPECT_EQ(0, c.numa_node);

	ASSERT_EQ(0, mvgal_gpu_link(self->m, main_gpu, n1, &l));
	EXPECT_FALSE(l.link_flags & MVGAL_LINK_SAME_ROOT);
	EXPECT_FALSE(l.link_flags & MVGAL_LINK_SAME_NUMA);
	ASSERT_EQ(0, mvgal_gpu_link(self->m, n0, n1, &l));
	EXPECT_FALSE(l.link_flags & MVGAL_LINK_SAME_ROOT);
	EXPECT_FALSE(l.link_flags & MVGAL_LINK_SAME_NUMA);
	/* No DMA engine in the guest: P2P copies are impossible, and say so. */
	EXPECT_FALSE(l.link_flags & MVGAL_LINK_DMA_ENGINE);
	EXPECT_FALSE(l.methods & (1U << MVGAL_METHOD_P2P));
	EXPECT_EQ(MVGAL_REASON_NO_DMA_ENGINE, l.reasons[MVGAL_METHOD_P2P]);
}

/* GPUs on NUMA nodes 0 and 1 produce exactly one warning when paired. */
TEST_F(gpus, numa_straddle_warned_once)
{
	standin_skip("it needs a GPU on each NUMA node; the stand-in has none");
	int n0 = find_gpu(self->m, "virtio_gpu", 0);
	int n1 = find_gpu(self->m, "virtio_gpu", 1);
	char cmd[256];

	ASSERT_GE(n1, 0);
	ASSERT_EQ(0, mvgal_gpu_detach(self->m, n1));
	ASSERT_EQ(0, run("dmesg -c >/dev/null"));
	reset_state(_metadata, self->m);
	n1 = find_gpu(self->m, "virtio_gpu", 1);
	snprintf(cmd, sizeof(cmd),
		 "test \"$(dmesg | grep -c 'GPU %d (.*) and GPU %d (.*) are on different NUMA nodes (1, 0)')\" = 1",
		 n1, n0);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
	/* Nothing else straddles known nodes: one warning in all. */
	EXPECT_EQ(0, run("test \"$(dmesg | grep -c 'different NUMA nodes')\" = 1"));
}

/* vgem uses virtio-gpu's memory in place; virtio-gpu refuses vgem's. */
TEST_F(gpus, pair_matrix_follows_driver_imports)
{
	int virt = find_gpu(self->m, "virtio_gpu", ~1U);
	int vgem = find_gpu(self->m, "vgem", ~1U);
	struct drm_mvgal_gpu_link l;

	ASSERT_GE(virt, 0);
	ASSERT_GE(vgem, 0);
	ASSERT_EQ(0, mvgal_gpu_link(self->m, virt, vgem, &l));
	EXPECT_TRUE(l.methods & (1U << MVGAL_METHOD_IN_PLACE));
	EXPECT_EQ(0, l.import_error);
	EXPECT_EQ(MVGAL_REASON_OK, l.reasons[MVGAL_METHOD_IN_PLACE]);
	EXPECT_EQ(MVGAL_METHOD_IN_PLACE, l.chosen);
	EXPECT_EQ(MVGAL_WHY_IMPORTS, l.why);

	ASSERT_EQ(0, mvgal_gpu_link(self->m, vgem, virt, &l));
	EXPECT_FALSE(l.methods & (1U << MVGAL_METHOD_IN_PLACE));
	EXPECT_EQ(ENODEV, l.import_error);
	EXPECT_EQ(MVGAL_REASON_IMPORT_REFUSED, l.reasons[MVGAL_METHOD_IN_PLACE]);
	/* The fallback is a CPU copy: both pools are mapped RAM. */
	EXPECT_TRUE(l.methods & (1U << MVGAL_METHOD_CPU_COPY));
	EXPECT_TRUE(l.methods & (1U << MVGAL_METHOD_STAGING));
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, l.chosen);
	EXPECT_EQ(MVGAL_WHY_CPU_DIRECT, l.why);
}

/* Every ordered pair has a link, and a chosen method it says is possible. */
TEST_F(gpus, every_pair_has_a_possible_method)
{
	uint32_t list[MVGAL_MAX_GPUS];
	int n = mvgal_gpu_list(self->m, list, MVGAL_MAX_GPUS), i, j;

	ASSERT_EQ(NR_GPUS, n);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			struct drm_mvgal_gpu_link l;

			if (i == j)
				continue;
			ASSERT_EQ(0, mvgal_gpu_link(self->m, list[i], list[j], &l));
			ASSERT_LT(l.chosen, MVGAL_METHOD_COUNT);
			EXPECT_TRUE(l.methods & (1U << l.chosen));
			EXPECT_EQ(!!(l.methods & (1U << MVGAL_METHOD_IN_PLACE)),
				  l.import_error == 0);
		}
}

/*
 * Every method, reason and choice the uapi defines has its own text in
 * the library (mvgal-info and the bench print them); a value past the
 * end has a fixed one, never NULL.
 */
TEST(every_method_reason_and_choice_has_its_own_text)
{
	const char *seen[MVGAL_REASON_COUNT + MVGAL_WHY_COUNT + MVGAL_METHOD_EXEC + 1];
	unsigned int n = 0;

	for (uint32_t m = 0; m <= MVGAL_METHOD_EXEC; m++)
		seen[n++] = mvgal_method_name(m);
	for (uint32_t r = 0; r < MVGAL_REASON_COUNT; r++)
		seen[n++] = mvgal_reason_text(r);
	for (uint32_t w = 0; w < MVGAL_WHY_COUNT; w++)
		seen[n++] = mvgal_why_text(w);
	for (unsigned int i = 0; i < n; i++) {
		ASSERT_NE(NULL, seen[i]) TH_LOG("text %u", i);
		EXPECT_NE(0u, strlen(seen[i])) TH_LOG("text %u", i);
		for (unsigned int j = 0; j < i; j++) {
			EXPECT_NE(0, strcmp(seen[i], seen[j]))
				TH_LOG("texts %u and %u: %s", j, i, seen[i]);
		}
	}
	EXPECT_STREQ("none", mvgal_method_name(MVGAL_METHOD_EXEC + 1));
	EXPECT_STREQ("unknown", mvgal_reason_text(MVGAL_REASON_COUNT));
	EXPECT_STREQ("unknown", mvgal_why_text(MVGAL_WHY_COUNT));
}

TEST_F(gpus, heap_reports_kernel_figures)
{
	struct drm_mvgal_heap_region r[MVGAL_MAX_GPUS + 1], nodes[8];
	uint32_t nr = MVGAL_MAX_GPUS + 1, nn = 8, i;
	unsigned long long node_total = 0;

	ASSERT_EQ(0, mvgal_get_heap(self->m, r, &nr, nodes, &nn));
	ASSERT_EQ(1 + NR_GPUS, nr);
	ASSERT_EQ(2, nn);
	EXPECT_EQ(MVGAL_REGION_SYSTEM, r[0].kind);
	EXPECT_EQ(MVGAL_GPU_ANY, r[0].gpu);
	EXPECT_GT(r[0].total, 1ULL << 30);
	EXPECT_LE(r[0].total, 2ULL << 30);
	EXPECT_LT(r[0].free, r[0].total);
	EXPECT_EQ(r[0].total - r[0].free, r[0].used);
	for (i = 0; i < nn; i++) {
		EXPECT_EQ(MVGAL_REGION_NODE, nodes[i].kind);
		EXPECT_EQ(i, nodes[i].numa_node);
		EXPECT_GT(nodes[i].total, 512ULL << 20);
		EXPECT_LE(nodes[i].total, 1ULL << 30);
		EXPECT_LE(nodes[i].free, nodes[i].total);
		node_total += nodes[i].total;
	}
	/* Both are the page allocator's managed pages. */
	EXPECT_EQ(r[0].total, node_total);
	for (i = 1; i < nr; i++) {
		struct drm_mvgal_gpu_info info;

		EXPECT_EQ(MVGAL_REGION_POOL, r[i].kind);
		ASSERT_EQ(0, mvgal_gpu_info(self->m, r[i].gpu, &info));
		EXPECT_EQ(info.numa_node, r[i].numa_node);
		EXPECT_EQ(POOL_MB << 20, r[i].total);
		EXPECT_EQ(0, r[i].used);
		EXPECT_EQ(r[i].total, r[i].free);
		EXPECT_EQ(r[i].total, r[i].largest_free);
	}
}

/* Pool figures move with allocations and come back; the GPU turns active
 * with its first allocation and idle with its last.
 */
TEST_F(gpus, heap_follows_pool_allocations)
{
	int g = find_gpu(self->m, "virtio_gpu", 1);
	struct drm_mvgal_heap_region r;
	struct drm_mvgal_gpu_info info;
	unsigned long long changes;

	ASSERT_GE(g, 0);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, g, &info));
	changes = info.state_changes;

	ASSERT_EQ(0, pool_alloc(g, (1 << 20) + 3));
	ASSERT_EQ(0, pool_region(self->m, g, &r));
	EXPECT_EQ((1 << 20) + 4096, r.used);
	EXPECT_EQ((POOL_MB << 20) - (1 << 20) - 4096, r.free);
	EXPECT_EQ(r.free, r.largest_free);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, g, &info));
	EXPECT_EQ(MVGAL_GPU_ACTIVE, info.state);
	EXPECT_EQ(changes + 1, info.state_changes);
	EXPECT_EQ(1, info.pool_allocations);
	EXPECT_EQ(r.used, info.pool_used);

	ASSERT_EQ(0, pool_alloc(g, 8 << 20));
	ASSERT_EQ(0, pool_region(self->m, g, &r));
	EXPECT_EQ((9 << 20) + 4096, r.used);
	/* More than is free: refused, nothing changes. */
	EXPECT_EQ(-ENOSPC, pool_alloc(g, POOL_MB << 20));
	EXPECT_EQ(-EINVAL, pool_alloc(g, 0));
	ASSERT_EQ(0, pool_region(self->m, g, &r));
	EXPECT_EQ((9 << 20) + 4096, r.used);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, g, &info));
	EXPECT_EQ(2, info.pool_allocations);
	EXPECT_EQ(changes + 1, info.state_changes);

	ASSERT_EQ(0, pool_free(g));
	ASSERT_EQ(0, pool_free(g));
	ASSERT_EQ(0, pool_region(self->m, g, &r));
	EXPECT_EQ(0, r.used);
	EXPECT_EQ(POOL_MB << 20, r.free);
	EXPECT_EQ(POOL_MB << 20, r.largest_free);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, g, &info));
	EXPECT_EQ(MVGAL_GPU_IDLE, info.state);
	EXPECT_EQ(changes + 2, info.state_changes);
	EXPECT_EQ(0, info.pool_allocations);
}

TEST_F(gpus, detach_busy_then_reattach)
{
	int g = find_gpu(self->m, "virtio_gpu", 0);
	struct drm_mvgal_gpu_info before, after;
	struct drm_mvgal_gpu_link l;

	ASSERT_GE(g, 0);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, g, &before));
	ASSERT_EQ(0, pool_alloc(g, 4096));
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, g));
	EXPECT_EQ(NR_GPUS, gpu_count(self->m));
	ASSERT_EQ(0, pool_free(g));

	ASSERT_EQ(0, mvgal_gpu_detach(self->m, g));
	EXPECT_EQ(NR_GPUS - 1, gpu_count(self->m));
	EXPECT_EQ(-ENODEV, mvgal_gpu_info(self->m, g, &after));
	EXPECT_EQ(-ENODEV, mvgal_gpu_link(self->m, g, g ? 0 : 1, &l));
	EXPECT_EQ(-ENODEV, mvgal_gpu_detach(self->m, g));

	reset_state(_metadata, self->m);
	g = find_gpu(self->m, "virtio_gpu", 0);
	ASSERT_GE(g, 0);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, g, &after));
	EXPECT_STREQ(before.slot, after.slot);
	EXPECT_STREQ(before.root, after.root);
	EXPECT_EQ(before.numa_node, after.numa_node);
}

TEST_F(gpus, attach_same_gpu_twice_is_eexist)
{
	char path[64];
	int card = open_card("vgem", path, sizeof(path));

	ASSERT_GE(card, 0);
	close(card);
	EXPECT_EQ(-EEXIST, mvgal_gpu_attach_node(self->m, path, POOL_MB,
						 MVGAL_GPU_ANY, NULL));
	EXPECT_EQ(NR_GPUS, gpu_count(self->m));
}

/* Detaches the vgem GPU; @path gets its card node for re-attaching. */
static void detach_vgem(struct __test_metadata *_metadata, struct mvgal *m,
			char *path, size_t len)
{
	int g = find_gpu(m, "vgem", ~1U);
	int card;

	ASSERT_GE(g, 0);
	ASSERT_EQ(0, mvgal_gpu_detach(m, g));
	card = open_card("vgem", path, len);
	ASSERT_GE(card, 0);
	close(card);
}

/* With limit 0 the pool is the largest the driver grants from the default. */
TEST_F(gpus, default_pool_size)
{
	struct drm_mvgal_gpu_info info;
	uint32_t idx;
	char path[64];

	detach_vgem(_metadata, self->m, path, sizeof(path));
	ASSERT_EQ(0, mvgal_gpu_attach_node(self->m, path, 0, MVGAL_GPU_ANY, &idx));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, idx, &info));
	EXPECT_EQ((uint64_t)MVGAL_POOL_DEFAULT_MB << 20, info.pool_size);
	ASSERT_EQ(0, mvgal_gpu_detach(self->m, idx));
}

/* A pool the driver (here: the module's max_pool_mb) will not grant is
 * halved until one is granted.
 */
TEST_F(gpus, default_pool_size_halves_until_granted)
{
	struct drm_mvgal_gpu_info info;
	uint32_t idx;
	char path[64];

	detach_vgem(_metadata, self->m, path, sizeof(path));
	ASSERT_EQ(0, run("echo 100 > /sys/module/mvgal/parameters/max_pool_mb"));
	EXPECT_EQ(0, mvgal_gpu_attach_node(self->m, path, 0, MVGAL_GPU_ANY, &idx));
	/* An explicit size is not halved: refused as asked. */
	EXPECT_EQ(-E2BIG, mvgal_gpu_attach_node(self->m, path, 128, MVGAL_GPU_ANY, NULL));
	ASSERT_EQ(0, run("echo 0 > /sys/module/mvgal/parameters/max_pool_mb"));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, idx, &info));
	EXPECT_EQ(64ULL << 20, info.pool_size); /* 256 and 128 refused */
	ASSERT_EQ(0, mvgal_gpu_detach(self->m, idx));
	/* Below the floor nothing is tried. */
	ASSERT_EQ(0, run("echo 32 > /sys/module/mvgal/parameters/max_pool_mb"));
	EXPECT_EQ(-E2BIG, mvgal_gpu_attach_node(self->m, path, 0, MVGAL_GPU_ANY, NULL));
	ASSERT_EQ(0, run("echo 0 > /sys/module/mvgal/parameters/max_pool_mb"));
	EXPECT_EQ(NR_GPUS - 1, gpu_count(self->m));
}

/* ---- rejections: each changes nothing ---- */

/* A fixture with vgem detached, its card node and a pool of its own. */
FIXTURE(attach) {
	struct mvgal *m;
	int fd, card, pool;
};

FIXTURE_SETUP(attach)
{
	char path[64];
	int g;

	ASSERT_EQ(0, mvgal_open(&self->m));
	self->fd = mvgal_fd(self->m);
	reset_state(_metadata, self->m);
	g = find_gpu(self->m, "vgem", ~1U);
	ASSERT_GE(g, 0);
	ASSERT_EQ(0, mvgal_gpu_detach(self->m, g));
	self->card = open_card("vgem", path, sizeof(path));
	ASSERT_GE(self->card, 0);
	self->pool = make_pool(self->card, 1);
	ASSERT_GE(self->pool, 0);
}

FIXTURE_TEARDOWN(attach)
{
	close(self->pool);
	close(self->card);
	mvgal_close(self->m);
}

static void expect_attach_fails(struct __test_metadata *_metadata, int fd,
				struct drm_mvgal_gpu_attach a, int err)
{
	struct drm_mvgal_gpu_attach before = a;
	struct drm_mvgal_get_info gi_before = { 0 }, gi_after = { 0 };

	ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_MVGAL_GET_INFO, &gi_before));
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_MVGAL_GPU_ATTACH, &a));
	EXPECT_EQ(err, errno);
	EXPECT_EQ(0, memcmp(&a, &before, sizeof(a)));
	ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_MVGAL_GET_INFO, &gi_after));
	EXPECT_EQ(gi_before.gpu_count, gi_after.gpu_count);
}

TEST_F(attach, good_input_attaches)
{
	struct drm_mvgal_gpu_attach a = { .drm_fd = self->card,
					  .pool_fd = self->pool,
					  .gpu = MVGAL_GPU_ANY };
	struct drm_mvgal_gpu_info info;

	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GPU_ATTACH, &a));
	ASSERT_LT(a.gpu, MVGAL_MAX_GPUS);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, a.gpu, &info));
	EXPECT_STREQ("vgem", info.driver);
	EXPECT_EQ(1 << 20, info.pool_size);
	ASSERT_EQ(0, mvgal_gpu_detach(self->m, a.gpu));
}

TEST_F(attach, rejects_flags)
{
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = self->pool, .flags = 1,
		.gpu = MVGAL_GPU_ANY }, EINVAL);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = self->pool, .flags = 1U << 31,
		.gpu = MVGAL_GPU_ANY }, EINVAL);
}

TEST_F(attach, rejects_closed_drm_fd)
{
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = 1000, .pool_fd = self->pool, .gpu = MVGAL_GPU_ANY },
		EBADF);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = -1, .pool_fd = self->pool,
		.gpu = MVGAL_GPU_ANY }, EBADF);
}

/* fds are signed: any negative one is -EBADF, the pool's too. */
TEST_F(attach, rejects_negative_fds)
{
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = -2, .pool_fd = self->pool, .gpu = MVGAL_GPU_ANY },
		EBADF);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = -1, .gpu = MVGAL_GPU_ANY },
		EBADF);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = INT32_MIN,
		.gpu = MVGAL_GPU_ANY }, EBADF);
}

TEST_F(attach, rejects_non_drm_fd)
{
	int f = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	ASSERT_GE(f, 0);
	ASSERT_GE(null, 0);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = f, .pool_fd = self->pool, .gpu = MVGAL_GPU_ANY }, EINVAL);
	/* A character device that is not DRM. */
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = null, .pool_fd = self->pool, .gpu = MVGAL_GPU_ANY },
		EINVAL);
	close(f);
	close(null);
}

TEST_F(attach, rejects_mvgal_itself)
{
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->fd, .pool_fd = self->pool,
		.gpu = MVGAL_GPU_ANY }, EINVAL);
}

TEST_F(attach, rejects_bad_pool_fd)
{
	int f = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = 1000, .gpu = MVGAL_GPU_ANY },
		EBADF);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = f, .gpu = MVGAL_GPU_ANY },
		EINVAL);
	close(f);
}

/* A pool must be memory of the GPU being attached, not another's. */
TEST_F(attach, rejects_pool_of_another_gpu)
{
	char path[64];
	int virt = open_card("virtio_gpu", path, sizeof(path));
	int vpool;

	ASSERT_GE(virt, 0);
	vpool = make_pool(virt, 1);
	ASSERT_GE(vpool, 0);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = vpool, .gpu = MVGAL_GPU_ANY },
		EINVAL);
	close(vpool);
	close(virt);
}

TEST_F(attach, rejects_pool_over_max_pool_mb)
{
	ASSERT_EQ(0, run("echo 1 > /sys/module/mvgal/parameters/max_pool_mb"));
	close(self->pool);
	self->pool = make_pool(self->card, 2);
	ASSERT_GE(self->pool, 0);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = self->pool,
		.gpu = MVGAL_GPU_ANY }, E2BIG);
	ASSERT_EQ(0, run("echo 0 > /sys/module/mvgal/parameters/max_pool_mb"));
}

TEST_F(attach, rejects_bad_slot)
{
	struct drm_mvgal_get_info gi = { 0 };
	uint32_t list[MVGAL_MAX_GPUS];

	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &gi));
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = self->pool,
		.gpu = gi.max_gpus }, EINVAL);
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = self->pool,
		.gpu = 0x7fffffff }, EINVAL);
	ASSERT_LT(0, mvgal_gpu_list(self->m, list, MVGAL_MAX_GPUS));
	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = self->pool,
		.gpu = list[0] }, EBUSY);
}

/* Without CAP_SYS_ADMIN: attach and detach are -EPERM, queries work. */
TEST_F(attach, unprivileged)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct drm_mvgal_gpu_detach det = { 0 };
	struct drm_mvgal_gpu_info info;
	uint32_t list[MVGAL_MAX_GPUS], nr = 1;
	struct drm_mvgal_heap_region r;

	ASSERT_LT(0, mvgal_gpu_list(self->m, list, MVGAL_MAX_GPUS));
	ASSERT_EQ(0, syscall(SYS_capget, &h, d));
	d[0].effective &= ~(1U << CAP_SYS_ADMIN);
	ASSERT_EQ(0, syscall(SYS_capset, &h, d));

	expect_attach_fails(_metadata, self->fd, (struct drm_mvgal_gpu_attach){
		.drm_fd = self->card, .pool_fd = self->pool,
		.gpu = MVGAL_GPU_ANY }, EPERM);
	det.gpu = list[0];
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GPU_DETACH, &det));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(0, mvgal_gpu_info(self->m, list[0], &info));
	EXPECT_EQ(0, mvgal_get_heap(self->m, &r, &nr, NULL, NULL));
}

/* ---- rejections of the query ioctls ---- */

FIXTURE(query) {
	struct mvgal *m;
	int fd;
	uint32_t gpu;		/* an attached GPU */
	uint32_t empty;		/* an empty slot below max_gpus */
};

FIXTURE_SETUP(query)
{
	uint32_t list[MVGAL_MAX_GPUS];

	ASSERT_EQ(0, mvgal_open(&self->m));
	self->fd = mvgal_fd(self->m);
	reset_state(_metadata, self->m);
	ASSERT_EQ(NR_GPUS, mvgal_gpu_list(self->m, list, MVGAL_MAX_GPUS));
	self->gpu = list[0];
	self->empty = NR_GPUS; /* slots 0..3 are taken in order */
}

FIXTURE_TEARDOWN(query)
{
	mvgal_close(self->m);
}

TEST_F(query, detach_rejections)
{
	struct drm_mvgal_gpu_detach d;

	d = (struct drm_mvgal_gpu_detach){ .gpu = self->gpu, .flags = 1 };
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GPU_DETACH, &d));
	EXPECT_EQ(EINVAL, errno);
	d = (struct drm_mvgal_gpu_detach){ .gpu = MVGAL_MAX_GPUS };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GPU_DETACH, &d));
	EXPECT_EQ(EINVAL, errno);
	d = (struct drm_mvgal_gpu_detach){ .gpu = self->empty };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GPU_DETACH, &d));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(NR_GPUS, gpu_count(self->m));
}

static void expect_info_fails(struct __test_metadata *_metadata, int fd,
			      uint32_t gpu, uint32_t flags, int err)
{
	struct drm_mvgal_gpu_info a, before;

	memset(&a, 0x5a, sizeof(a));
	a.gpu = gpu;
	a.flags = flags;
	before = a;
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_MVGAL_GPU_INFO, &a));
	EXPECT_EQ(err, errno);
	EXPECT_EQ(0, memcmp(&a, &before, sizeof(a)));
}

TEST_F(query, info_rejections)
{
	expect_info_fails(_metadata, self->fd, self->gpu, 1, EINVAL);
	expect_info_fails(_metadata, self->fd, MVGAL_MAX_GPUS, 0, EINVAL);
	expect_info_fails(_metadata, self->fd, MVGAL_GPU_ANY, 0, EINVAL);
	expect_info_fails(_metadata, self->fd, self->empty, 0, ENODEV);
}

static void expect_link_fails(struct __test_metadata *_metadata, int fd,
			      uint32_t src, uint32_t dst, uint32_t flags,
			      int err)
{
	struct drm_mvgal_gpu_link a, before;

	memset(&a, 0x5a, sizeof(a));
	a.src = src;
	a.dst = dst;
	a.flags = flags;
	before = a;
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_MVGAL_GPU_LINK, &a));
	EXPECT_EQ(err, errno);
	EXPECT_EQ(0, memcmp(&a, &before, sizeof(a)));
}

TEST_F(query, link_rejections)
{
	uint32_t other = self->gpu ? 0 : 1;

	expect_link_fails(_metadata, self->fd, self->gpu, other, 1, EINVAL);
	expect_link_fails(_metadata, self->fd, self->gpu, self->gpu, 0, EINVAL);
	expect_link_fails(_metadata, self->fd, self->gpu, MVGAL_MAX_GPUS, 0, EINVAL);
	expect_link_fails(_metadata, self->fd, MVGAL_MAX_GPUS, self->gpu, 0, EINVAL);
	expect_link_fails(_metadata, self->fd, self->gpu, self->empty, 0, ENODEV);
	expect_link_fails(_metadata, self->fd, self->empty, self->gpu, 0, ENODEV);
}

TEST_F(query, heap_rejections)
{
	struct drm_mvgal_heap_region r[3];
	struct drm_mvgal_get_heap h, before;

	memset(r, 0x5a, sizeof(r));
	h = (struct drm_mvgal_get_heap){ .flags = 1, .num_regions = 3,
					 .regions = (uintptr_t)r };
	before = h;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, memcmp(&h, &before, sizeof(h)));
	/* What was padding in ABI 1 is the stride: 1 is below any element. */
	h = (struct drm_mvgal_get_heap){ .stride = 1, .num_regions = 3,
					 .regions = (uintptr_t)r };
	before = h;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, memcmp(&h, &before, sizeof(h)));
	EXPECT_EQ(0x5a5a5a5a, r[0].kind); /* nothing written */

	h = (struct drm_mvgal_get_heap){ .num_regions = 3, .regions = 16 };
	before = h;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, memcmp(&h, &before, sizeof(h)));
	h = (struct drm_mvgal_get_heap){ .num_nodes = 1, .nodes = 16 };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h));
	EXPECT_EQ(EFAULT, errno);
	/* A bad second array fails the call before the first is written. */
	h = (struct drm_mvgal_get_heap){ .num_regions = 3, .regions = (uintptr_t)r,
					 .num_nodes = 1, .nodes = 16 };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0x5a5a5a5a, r[0].kind);
}

/* Capacities: 0 asks for counts only; a short array gets that many. */
TEST_F(query, heap_capacities)
{
	struct drm_mvgal_heap_region r[3];
	struct drm_mvgal_get_heap h = { 0 };

	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h));
	EXPECT_EQ(1 + NR_GPUS, h.num_regions);
	EXPECT_EQ(2, h.num_nodes);

	memset(r, 0x5a, sizeof(r));
	/* Today's elements (a stride of 0 would be ABI 1's, packed). */
	h = (struct drm_mvgal_get_heap){ .num_regions = 2,
					 .regions = (uintptr_t)r,
					 .stride = sizeof(r[0]) };
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h));
	EXPECT_EQ(1 + NR_GPUS, h.num_regions);
	EXPECT_EQ(MVGAL_REGION_SYSTEM, r[0].kind);
	EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, r[0].memory);
	EXPECT_EQ(MVGAL_REGION_POOL, r[1].kind);
	EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, r[1].memory);
	EXPECT_EQ(0x5a5a5a5a, r[2].kind); /* beyond the capacity: untouched */
}

/* ---- paths: staging's bounce buffer, the choice by size ---- */

#define STAGED "/sys/kernel/debug/mvgal/staged"
#define PATH_CAL "/sys/kernel/debug/mvgal/path_cal"
#define NODES 2

FIXTURE(paths) {
	COH_FIELDS;
	/* The figures of a path a test set by hand, as they were before. */
	bool cal_set;
	struct drm_mvgal_path saved;
};

FIXTURE_SETUP(paths)
{
	COH_SETUP(self);
}

/* Sets one method's figures on one path through <debugfs>/mvgal/path_cal. */
static int set_cal(uint32_t src, uint32_t dst, uint32_t method,
		   uint64_t latency_ns, uint64_t bw)
{
	char buf[96];

	snprintf(buf, sizeof(buf), "%u %u %u %llu %llu", src, dst, method,
		 (unsigned long long)latency_ns, (unsigned long long)bw);
	return write_param(PATH_CAL, buf);
}

FIXTURE_TEARDOWN(paths)
{
	const struct drm_mvgal_path *p = &self->saved;

	for (uint32_t m = 0; self->cal_set && m < MVGAL_METHOD_COUNT; m++)
		EXPECT_EQ(0, set_cal(p->src, p->dst, m, p->latency_ns[m],
				     p->bandwidth[m]));
	coh_teardown(self->m, self->pool);
}

/* Bytes staged so far on nodes 0..NODES-1; the nodes listed, or -errno. */
static int staged_bytes(uint64_t *per_node)
{
	FILE *f = fopen(STAGED, "r");
	unsigned long long b;
	int nid, n = 0;

	if (!f)
		return -errno;
	memset(per_node, 0, NODES * sizeof(*per_node));
	while (fscanf(f, "%d %llu", &nid, &b) == 2) {
		if (nid >= 0 && nid < NODES)
			per_node[nid] = b;
		n++;
	}
	fclose(f);
	return n;
}

/*
 * A session on @g finds all of @h current in its own pool (it copies
 * nothing) with pattern @s.
 */
static void expect_current_at(struct __test_metadata *_metadata,
			      FIXTURE_DATA(paths) *self, int g, uint32_t h,
			      uint64_t size, unsigned int s)
{
	struct drm_mvgal_access a;
	uint64_t copied;
	uint32_t sess;
	int fence;

	ASSERT_EQ(0, begin1(self->m, g, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a, &sess,
			    &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(0, copied);
	ASSERT_EQ((uint32_t)g, a.pool_gpu);
	EXPECT_EQ(-1, check(self->pool[g] + a.pool_offset, size, 0, s));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
}

/* MIGRATEs all of @h to @loc (MOVE) and waits; the bytes it moved. */
static uint64_t move_to(struct __test_metadata *_metadata, struct mvgal *m,
			uint32_t h, uint64_t size, uint32_t loc)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .size = size, .location = loc,
		.flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
	};

	EXPECT_EQ(0, mvgal_migrate(m, &mg));
	if (mg.out_fence_fd >= 0) {
		EXPECT_EQ(0, mvgal_fence_wait(mg.out_fence_fd, 20000));
		EXPECT_EQ(1, mvgal_fence_status(mg.out_fence_fd));
		close(mg.out_fence_fd);
	}
	return mg.bytes;
}

/*
 * A staging copy goes through a bounce buffer on its destination's NUMA
 * node, wherever the source is: with staging forced, a MOVE from host to
 * g0 (node 0), from g0 to g1 (node 1), and back to g0 puts every byte it
 * moved through a bounce buffer on the destination's node and none on
 * the other. A CPU copy between the two pools (both mapped RAM: one
 * side points at the other) bounces nothing.
 */
TEST_F(paths, staging_bounces_on_the_destination_node)
{
	const uint64_t size = 5 * CH + 99, moved = 5 * CH + 4096;
	const struct { const char *force; uint32_t method; int gpu; } step[] = {
		{ "3", MVGAL_METHOD_STAGING, self->g0 },
		{ "3", MVGAL_METHOD_STAGING, self->g1 },
		{ "3", MVGAL_METHOD_STAGING, self->g0 },
		{ "2", MVGAL_METHOD_CPU_COPY, self->g1 },
	};
	uint8_t *buf;
	uint32_t h;

	standin_skip("it counts staged bytes per NUMA node of each GPU; the stand-in has none");
	buf = malloc(size);

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	fill(buf, size, 60);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
	free(buf);
	for (unsigned int i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		uint64_t b0[NODES], b1[NODES], want[NODES] = { 0 };
		struct drm_mvgal_stats st0, st1;
		struct drm_mvgal_gpu_info gi;

		ASSERT_EQ(0, mvgal_gpu_info(self->m, step[i].gpu, &gi));
		ASSERT_LT(gi.numa_node, NODES);
		if (step[i].method == MVGAL_METHOD_STAGING)
			want[gi.numa_node] = moved;
		ASSERT_EQ(0, write_param(FORCE, step[i].force));
		ASSERT_EQ(NODES, staged_bytes(b0));
		ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
		EXPECT_EQ(moved, move_to(_metadata, self->m, h, size,
					 1 + step[i].gpu));
		ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
		ASSERT_EQ(NODES, staged_bytes(b1));
		EXPECT_EQ(moved, st1.bytes[step[i].method] -
				 st0.bytes[step[i].method]) TH_LOG("step %u", i);
		for (int n = 0; n < NODES; n++) {
			EXPECT_EQ(want[n], b1[n] - b0[n])
				TH_LOG("step %u to GPU %d: node %d", i,
				       step[i].gpu, n);
		}
		expect_current_at(_metadata, self, step[i].gpu, h, size, 60);
	}
	mvgal_bo_destroy(self->m, h);
}

/*
 * path_cal refuses what it cannot apply, and a refusal changes no figure:
 * text that is not five numbers, or too long for the knob (-EINVAL), a
 * location or method out of range (the executor's is in range), a path
 * from a location to itself
 * (-EINVAL), a location with no GPU (-ENODEV).
 */
TEST_F(paths, path_cal_rejects_bad_input_and_changes_nothing)
{
	const uint32_t src = MVGAL_LOC_HOST, dst = 1 + self->g0;
	const uint32_t cpu = MVGAL_METHOD_CPU_COPY;
	char longer[128];
	const struct { const char *text; int err; } bad[] = {
		{ "0 1 2 3", -EINVAL },
		{ "zero one two three four", -EINVAL },
		{ longer, -EINVAL },
	};
	struct drm_mvgal_path p;
	int slot = -1;

	/* Good figures, padded past the knob's 96 bytes. */
	memset(longer, ' ', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	longer[snprintf(longer, sizeof(longer), "%u %u %u 1 1", src, dst, cpu)] = ' ';
	ASSERT_EQ(0, mvgal_get_path(self->m, src, dst, 64 << 10, &self->saved));
	self->cal_set = true;
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(bad[i].err, write_param(PATH_CAL, bad[i].text))
			TH_LOG("\"%.20s\"", bad[i].text);
	}
	EXPECT_EQ(-EINVAL, set_cal(MVGAL_LOC_COUNT, dst, cpu, 1, 1));
	EXPECT_EQ(-EINVAL, set_cal(src, MVGAL_LOC_COUNT, cpu, 1, 1));
	EXPECT_EQ(-EINVAL, set_cal(dst, dst, cpu, 1, 1));
	EXPECT_EQ(-EINVAL, set_cal(src, dst, MVGAL_METHOD_EXEC + 1, 1, 1));
	for (int g = MVGAL_MAX_GPUS - 1; g >= 0 && slot < 0; g--) {
		struct drm_mvgal_gpu_info gi;

		if (mvgal_gpu_info(self->m, g, &gi) == -ENODEV)
			slot = g;
	}
	ASSERT_GE(slot, 0);
	EXPECT_EQ(-ENODEV, set_cal(src, 1 + slot, cpu, 1, 1));
	EXPECT_EQ(-ENODEV, set_cal(1 + slot, dst, cpu, 1, 1));

	ASSERT_EQ(0, mvgal_get_path(self->m, src, dst, 64 << 10, &p));
	for (uint32_t m = 0; m < MVGAL_METHOD_COUNT; m++) {
		EXPECT_EQ(self->saved.latency_ns[m], p.latency_ns[m]);
		EXPECT_EQ(self->saved.bandwidth[m], p.bandwidth[m]);
	}
	EXPECT_EQ(self->saved.chosen, p.chosen);
}

/* Waits (up to 20 s) until GPU @g's pool uses no more than @used. */
static bool pool_back_to(struct mvgal *m, uint32_t g, uint64_t used)
{
	struct drm_mvgal_gpu_info gi;

	for (int i = 0; i < 2000; i++) {
		if (mvgal_gpu_info(m, g, &gi))
			return false;
		if (gi.pool_used <= used)
			return true;
		usleep(10000);
	}
	return false;
}

#define KIB64 (64ULL << 10)
#define MIB64 (64ULL << 20)

/*
 * Figures set by hand on the path host -> g0: a CPU copy costs 1 us and
 * 1 ns a byte, staging 1 ms and 0.01 ns a byte. 64 KiB is then cheaper
 * by CPU copy (66,536 ns against 1,000,655), 64 MiB by staging
 * (1,671,088 ns against 67,109,864): GET_PATH says so, and a MIGRATE of
 * each size moves all its bytes by that method and none by the other,
 * intact. The path's figures of before come back at teardown.
 */
TEST_F_TIMEOUT(paths, migrations_go_by_the_method_chosen_for_their_size, 120)
{
	const uint32_t cpu = MVGAL_METHOD_CPU_COPY, stg = MVGAL_METHOD_STAGING;
	const uint32_t src = MVGAL_LOC_HOST, dst = 1 + self->g0;
	const struct { uint64_t size; uint32_t method, other; uint64_t cost[2]; }
	want[] = {
		{ MIB64, stg, cpu, { 67109864, 1671088 } },
		{ KIB64, cpu, stg, { 66536, 1000655 } },
	};
	struct drm_mvgal_gpu_info gi;
	struct drm_mvgal_path p;
	uint64_t used0;

	/* The buffers of the tests before may still be going. */
	pool_back_to(self->m, self->g0, 0);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g0, &gi));
	used0 = gi.pool_used;
	ASSERT_EQ(0, mvgal_get_path(self->m, src, dst, KIB64, &self->saved));
	/* Only the two CPU methods: the figures decide between them. */
	ASSERT_EQ((1u << cpu) | (1u << stg), self->saved.methods);
	self->cal_set = true;
	ASSERT_EQ(0, set_cal(src, dst, cpu, 1000, 1000000000ULL));
	ASSERT_EQ(0, set_cal(src, dst, stg, 1000000, 100000000000ULL));
	for (unsigned int i = 0; i < 2; i++) {
		ASSERT_EQ(0, mvgal_get_path(self->m, src, dst, want[i].size, &p));
		EXPECT_EQ(0, p.forced);
		EXPECT_EQ(1000, p.latency_ns[cpu]);
		EXPECT_EQ(1000000000ULL, p.bandwidth[cpu]);
		EXPECT_EQ(1000000, p.latency_ns[stg]);
		EXPECT_EQ(100000000000ULL, p.bandwidth[stg]);
		EXPECT_EQ(want[i].cost[0], p.cost_ns[cpu]);
		EXPECT_EQ(want[i].cost[1], p.cost_ns[stg]);
		EXPECT_EQ(want[i].method, p.chosen);
	}
	for (unsigned int i = 0; i < 2; i++) {
		const uint64_t size = want[i].size;
		struct drm_mvgal_stats st0, st1;
		uint8_t *buf = malloc(size);
		uint32_t h;

		ASSERT_NE(NULL, buf);
		ASSERT_EQ(0, host_bo(self->m, size, &h));
		fill(buf, size, 61 + i);
		ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
		free(buf);
		ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
		EXPECT_EQ(size, move_to(_metadata, self->m, h, size, dst));
		ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
		EXPECT_EQ(size, st1.bytes[want[i].method] -
				st0.bytes[want[i].method])
			TH_LOG("%llu bytes: %llu by %s, %llu by %s, %s chosen",
			       (unsigned long long)size,
			       (unsigned long long)(st1.bytes[cpu] - st0.bytes[cpu]),
			       mvgal_method_name(cpu),
			       (unsigned long long)(st1.bytes[stg] - st0.bytes[stg]),
			       mvgal_method_name(stg),
			       mvgal_method_name(want[i].method));
		EXPECT_EQ(0, st1.bytes[want[i].other] - st0.bytes[want[i].other]);
		EXPECT_EQ(size / CH, st1.copies[want[i].method] -
				     st0.copies[want[i].method]);
		expect_current_at(_metadata, self, self->g0, h, size, 61 + i);
		mvgal_bo_destroy(self->m, h);
		/*
		 * A buffer's storage goes in the background: until its
		 * placement has left g0's pool, the next move would evict it,
		 * a copy of its own that the figures would count.
		 */
		ASSERT_TRUE(pool_back_to(self->m, self->g0, used0));
	}
}

/* ---- module lifetime (these reload mvgal; they run last) ---- */

/* More GPUs than slots: the extra attach is -ENOSPC. */
TEST(enospc_when_slots_are_full)
{
	struct mvgal_config cfg;
	struct mvgal *m;

	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal max_gpus=2"));
	ASSERT_EQ(0, mvgal_open(&m));
	config_64(&cfg);
	EXPECT_EQ(-ENOSPC, mvgal_attach_all(m, &cfg, NULL, NULL));
	EXPECT_EQ(2, gpu_count(m));
	mvgal_close(m);
	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The kernel's name of the device behind DRM node @path, as in GPU_INFO. */
static int node_device(const char *path, char *name, size_t len)
{
	char dir[64], link[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (stat(path, &st))
		return -errno;
	snprintf(dir, sizeof(dir), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(dir, link, sizeof(link) - 1);
	if (n <= 0)
		return -ENOENT;
	link[n] = '\0';
	snprintf(name, len, "%s", strrchr(link, '/') + 1);
	return 0;
}

/*
 * device_pattern decides which nodes the boot step takes: one card node
 * attaches that GPU alone. Then a [gpu:NAME] section sizes the pool of
 * the device it names, whichever slot it lands in, over [gpu_N].
 */
TEST(device_pattern_and_named_sections)
{
	char name[64], other[64], text[512];
	struct drm_mvgal_gpu_info gi;
	struct mvgal_config cfg;
	struct mvgal *m;
	int g;

	standin_skip("it picks the test bed's own card nodes");
	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
	ASSERT_EQ(0, mvgal_open(&m));
	ASSERT_EQ(0, node_device("/dev/dri/card1", name, sizeof(name)));
	ASSERT_EQ(0, node_device("/dev/dri/card0", other, sizeof(other)));
	ASSERT_STRNE(name, other);
	config_64(&cfg);
	snprintf(cfg.device_pattern, sizeof(cfg.device_pattern), "/dev/dri/card1");
	ASSERT_EQ(1, mvgal_attach_all(m, &cfg, NULL, NULL));
	ASSERT_EQ(1, gpu_count(m));
	ASSERT_EQ(0, mvgal_gpu_info(m, 0, &gi));
	EXPECT_STREQ(name, gi.slot);
	EXPECT_EQ(POOL_MB << 20, gi.pool_size);
	mvgal_close(m);

	/* Slot 0 goes to card0's device now; card1's is named. */
	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
	ASSERT_EQ(0, mvgal_open(&m));
	snprintf(text, sizeof(text),
		 "[gpu_0]\nmemory_limit_mb = 128\n[gpu_1]\nmemory_limit_mb = 128\n"
		 "[gpu:%s]\nmemory_limit_mb = 64\n"
		 "[dri]\ndevice_pattern = /dev/dri/card[01]\n", name);
	write_text("/tmp/named.conf", text);
	ASSERT_EQ(0, mvgal_config_load("/tmp/named.conf", &cfg, NULL, 0));
	ASSERT_EQ(2, mvgal_attach_all(m, &cfg, NULL, NULL));
	for (g = 0; g < 2; g++) {
		ASSERT_EQ(0, mvgal_gpu_info(m, g, &gi));
		EXPECT_EQ(strcmp(gi.slot, name) ? 128ULL << 20 : 64ULL << 20,
			  gi.pool_size) TH_LOG("slot %d: %s", g, gi.slot);
	}
	ASSERT_EQ(0, mvgal_gpu_info(m, 1, &gi));
	EXPECT_STREQ(name, gi.slot);
	mvgal_close(m);
	unlink("/tmp/named.conf");
	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
}

/*
 * The card and render node of the device whose driver is @driver (the
 * @nth one): 0 or -ENOENT.
 */
static int driver_nodes(const char *driver, int nth, char *card, char *render,
			size_t len)
{
	drmDevicePtr devs[16];
	int n = drmGetDevices2(0, devs, 16), i, ret = -ENOENT;

	for (i = 0; i < n; i++) {
		drmDevicePtr d = devs[i];
		drmVersionPtr v = NULL;
		int fd = -1;

		if (ret && (d->available_nodes & (1 << DRM_NODE_PRIMARY)) &&
		    (d->available_nodes & (1 << DRM_NODE_RENDER)))
			fd = open(d->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			v = drmGetVersion(fd);
		if (v && !strcmp(v->name, driver) && !nth--) {
			snprintf(card, len, "%s", d->nodes[DRM_NODE_PRIMARY]);
			snprintf(render, len, "%s", d->nodes[DRM_NODE_RENDER]);
			ret = 0;
		}
		if (v)
			drmFreeVersion(v);
		if (fd >= 0)
			close(fd);
	}
	if (n > 0)
		drmFreeDevices(devs, n);
	return ret;
}

/*
 * Where only a GPU's render node can be reached (a container that passes
 * render nodes alone: here its card node is moved out of /dev/dri), the
 * boot step makes the pool with the driver's own allocation where libmvgal
 * knows it (virtio_gpu), and says -ENOSYS where it does not (vgem). The
 * pool then holds a buffer's bytes.
 */
TEST(a_render_node_alone_lends_a_pool)
{
	char card[64], render[64], vcard[64], vrender[64];
	const uint64_t size = 3 * 65536 + 1234;
	struct drm_mvgal_gpu_info gi;
	struct drm_mvgal_bo_info bi;
	struct mvgal *m;
	uint8_t *data, *back;
	uint32_t g, h;

	standin_skip("it hides the test bed's own card nodes");
	ASSERT_EQ(0, driver_nodes("virtio_gpu", 1, card, render, sizeof(card)));
	ASSERT_EQ(0, driver_nodes("vgem", 0, vcard, vrender, sizeof(vcard)));
	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
	ASSERT_EQ(0, mvgal_open(&m));
	ASSERT_EQ(0, rename(card, "/dev/hidden-card"));
	ASSERT_EQ(0, rename(vcard, "/dev/hidden-vcard"));
	EXPECT_EQ(0, mvgal_gpu_attach_node(m, render, POOL_MB, MVGAL_GPU_ANY, &g));
	EXPECT_EQ(-ENOSYS, mvgal_gpu_attach_node(m, vrender, POOL_MB,
						 MVGAL_GPU_ANY, NULL));
	ASSERT_EQ(0, rename("/dev/hidden-card", card));
	ASSERT_EQ(0, rename("/dev/hidden-vcard", vcard));
	ASSERT_EQ(1, gpu_count(m));
	ASSERT_EQ(0, mvgal_gpu_info(m, g, &gi));
	EXPECT_STREQ("virtio_gpu", gi.driver);
	EXPECT_EQ(POOL_MB << 20, gi.pool_size);

	data = malloc(size);
	back = malloc(size);
	ASSERT_TRUE(data && back);
	fill(data, size, 31);
	ASSERT_EQ(0, mvgal_bo_create(m, size, MVGAL_BO_GPU_VALID, g, &h));
	ASSERT_EQ(0, mvgal_bo_write(m, h, 0, data, size));
	ASSERT_EQ(0, mvgal_bo_info(m, h, &bi));
	EXPECT_NE(0, bi.valid[1 + g]);
	ASSERT_EQ(0, mvgal_bo_read(m, h, 0, back, size));
	EXPECT_EQ(0, memcmp(data, back, size));
	mvgal_bo_destroy(m, h);
	free(data);
	free(back);
	mvgal_close(m);
	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
}

static void record(const char *path, int result, uint32_t gpu, void *ctx)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 1024 - n, "%s=%d\n", path, result);
}

/*
 * A display-only device (bochs: a KMS driver with no render node) has no
 * GPU memory to lend: the boot step skips it, says why, and fails nothing;
 * a [gpu:NAME] section naming it makes the boot step try it anyway.
 */
TEST(the_boot_step_skips_display_only_devices)
{
	char card[64] = "", name[64], text[512], seen[1024] = "", want[96];
	struct mvgal_config cfg;
	struct mvgal *m;
	drmDevicePtr devs[16];
	int n, i;

	standin_skip("it counts the test bed's GPUs");
	if (run("modprobe bochs"))
		SKIP(return, "no bochs driver in this kernel");
	n = drmGetDevices2(0, devs, 16);
	for (i = 0; i < n; i++) {
		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)) &&
		    (devs[i]->available_nodes & (1 << DRM_NODE_PRIMARY)))
			snprintf(card, sizeof(card), "%s",
				 devs[i]->nodes[DRM_NODE_PRIMARY]);
	}
	if (n > 0)
		drmFreeDevices(devs, n);
	ASSERT_NE(0, card[0]);
	ASSERT_EQ(0, node_device(card, name, sizeof(name)));
	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
	ASSERT_EQ(0, mvgal_open(&m));
	config_64(&cfg);
	EXPECT_EQ(NR_GPUS, mvgal_attach_all(m, &cfg, record, seen));
	snprintf(want, sizeof(want), "%s=%d\n", card, MVGAL_ATTACH_DISPLAY_ONLY);
	EXPECT_NE(NULL, strstr(seen, want)) TH_LOG("%s", seen);
	EXPECT_EQ(NR_GPUS, gpu_count(m));
	mvgal_close(m);

	/* Named, it is tried: whatever its driver says, not skipped. */
	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
	ASSERT_EQ(0, mvgal_open(&m));
	snprintf(text, sizeof(text), "[gpu:%s]\nmemory_limit_mb = 64\n"
		 "[dri]\ndevice_pattern = %s\n", name, card);
	write_text("/tmp/display.conf", text);
	ASSERT_EQ(0, mvgal_config_load("/tmp/display.conf", &cfg, NULL, 0));
	seen[0] = '\0';
	mvgal_attach_all(m, &cfg, record, seen);
	EXPECT_EQ(NULL, strstr(seen, want)) TH_LOG("%s", seen);
	EXPECT_NE(NULL, strstr(seen, card)) TH_LOG("%s", seen);
	mvgal_close(m);
	unlink("/tmp/display.conf");
	ASSERT_EQ(0, run(RMMOD_MVGAL " && rmmod bochs && modprobe mvgal"));
}

/* Unloading mvgal with GPUs attached lets go of every reference: the
 * GPU drivers' module counts return and vgem can be unloaded.
 */
TEST(unload_releases_references)
{
	long virtio0, vgem0;
	struct mvgal_config cfg;
	struct mvgal *m;

	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
	virtio0 = module_refcnt("virtio_gpu");
	vgem0 = module_refcnt("vgem");
	ASSERT_GE(virtio0, 0);

	ASSERT_EQ(0, mvgal_open(&m));
	config_64(&cfg);
	ASSERT_EQ(NR_GPUS, mvgal_attach_all(m, &cfg, NULL, NULL));
	mvgal_close(m);
	/* Each pool's dma-buf pins the driver that exported it. */
	EXPECT_LT(virtio0, module_refcnt("virtio_gpu"));
	EXPECT_LT(vgem0, module_refcnt("vgem"));

	ASSERT_EQ(0, run(RMMOD_MVGAL));
	EXPECT_EQ(virtio0, module_refcnt("virtio_gpu"));
	EXPECT_EQ(vgem0, module_refcnt("vgem"));
	EXPECT_EQ(0, run("rmmod vgem"));
	ASSERT_EQ(0, run("modprobe vgem && modprobe mvgal"));
}

/* SYNC_IOC_FILE_INFO of @fd: its status; its name must be mvgal's. */
static int sync_file_mvgal_status(int fd)
{
	struct sync_file_info info = { 0 };

	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	if (strncmp(info.name, "mvgal", 5))
		return -EINVAL;
	return info.status;
}

/*
 * mvgal's fences hold the module: with every mvgal file closed, rmmod is
 * refused while a job waits for another driver's fence (vgem calls back
 * into mvgal when it signals) and while a finished job's sync_file is
 * held (its name comes from mvgal's code). Meanwhile the fence works; once
 * it goes, mvgal unloads.
 */
TEST(fences_hold_the_module)
{
	const uint64_t size = 2 * 65536 + 77;
	struct drm_mvgal_migrate mg = { .size = size };
	struct mvgal_config cfg;
	struct vfence vf = { 0 };
	struct mvgal *m;
	uint8_t *buf;
	uint32_t h;
	int g;

	ASSERT_EQ(0, run(RMMOD_MVGAL " && modprobe mvgal"));
	ASSERT_EQ(0, mvgal_open(&m));
	config_64(&cfg);
	ASSERT_EQ(NR_GPUS, mvgal_attach_all(m, &cfg, NULL, NULL));
	g = find_gpu(m, "virtio_gpu", ~1U);
	ASSERT_LE(0, g);
	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	fill(buf, size, 9);
	ASSERT_EQ(0, mvgal_bo_create(m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID, MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, mvgal_bo_write(m, h, 0, buf, size));
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + g;
	mg.in_fence_fd = vf.fd;
	ASSERT_EQ(0, mvgal_migrate(m, &mg));
	mvgal_close(m);

	/* A job waits for vgem: mvgal must stay. */
	EXPECT_NE(0, run("rmmod mvgal 2>/dev/null"));
	EXPECT_EQ(0, sync_file_mvgal_status(mg.out_fence_fd));
	vfence_signal(&vf);
	EXPECT_EQ(0, mvgal_fence_wait(mg.out_fence_fd, 20000));
	/* Done, but its sync_file is held. */
	EXPECT_NE(0, run("rmmod mvgal 2>/dev/null"));
	EXPECT_EQ(1, sync_file_mvgal_status(mg.out_fence_fd));
	close(mg.out_fence_fd);
	vfence_free(&vf);
	ASSERT_EQ(0, run(RMMOD_MVGAL));
	ASSERT_EQ(0, run("modprobe mvgal"));
	free(buf);
}

TEST_HARNESS_MAIN
