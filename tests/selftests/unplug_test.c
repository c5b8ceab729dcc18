// SPDX-License-Identifier: GPL-2.0
/*
 * GPU loss: a virtio-gpu unbound from its driver while mvgal has it
 * attached, with a placement holding the only current bytes of a buffer,
 * a CPU mapping and a live session. New use is -ENODEV; the bytes come
 * home (the guest's pools are RAM, still readable); detach works; the
 * device bound again is attached again and used. Placement exports of
 * the GPU's pool live over the unbind: imported by another mvgal file
 * here (a virtio-gpu's export has no mmap), mapped by the CPU in the
 * stand-in pass (helpers.h), where the GPU unbound is the VRAM stand-in,
 * from its PCI driver: its BAR's kernel mapping stays until its last
 * reference goes, and the driver revokes the CPU's mappings.
 */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

#define VIRTIO_GPU_DRV "/sys/bus/virtio/drivers/virtio_gpu"
#define STANDIN_DRV "/sys/bus/pci/drivers/mvgal_vram"

/*
 * The device of GPU @g as its driver binds it: the virtio device
 * ("virtioN") under a virtio-gpu's PCI device, or the stand-in's PCI
 * device; its driver's directory in @drv, the driver's module in @mod.
 */
static int device_name(struct mvgal *m, int g, char *name, size_t len,
		       const char **drv, const char **mod)
{
	struct drm_mvgal_gpu_info gi;
	char pattern[128];
	glob_t gl;
	int ret;

	ret = mvgal_gpu_info(m, g, &gi);
	if (ret)
		return ret;
	if (!strcmp(gi.driver, "mvgal_vram")) {
		snprintf(name, len, "%s", gi.slot);
		*drv = STANDIN_DRV;
		*mod = "mvgal_vram";
		return 0;
	}
	*drv = VIRTIO_GPU_DRV;
	*mod = "virtio_gpu";
	snprintf(pattern, sizeof(pattern), "/sys/bus/pci/devices/%s/virtio*", gi.slot);
	if (glob(pattern, 0, NULL, &gl) || gl.gl_pathc != 1) {
		globfree(&gl);
		return -ENOENT;
	}
	snprintf(name, len, "%s", strrchr(gl.gl_pathv[0], '/') + 1);
	globfree(&gl);
	return 0;
}

FIXTURE(unplug) {
	COH_FIELDS;
	char name[32];
	const char *drv;	/* its driver's sysfs directory */
	const char *mod;	/* and module */
};

#define bound(name) drv_has(self->drv, name)
#define drv_write(what) ({						\
	char _p[96];							\
	snprintf(_p, sizeof(_p), "%s/%s", self->drv, what);		\
	write_param(_p, self->name);					\
})

static bool drv_has(const char *drv, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", drv, name);
	return access(path, F_OK) == 0;
}

FIXTURE_SETUP(unplug)
{
	COH_SETUP(self);
	ASSERT_EQ(0, device_name(self->m, self->g1, self->name, sizeof(self->name),
				 &self->drv, &self->mod));
}

FIXTURE_TEARDOWN(unplug)
{
	struct mvgal_config cfg;

	if (!bound(self->name))
		drv_write("bind");
	config_64(&cfg);
	mvgal_attach_all(self->m, &cfg, NULL, NULL);
	coh_teardown(self->m, self->pool);
}

TEST_F(unplug, unbound_gpu_is_refused_its_bytes_come_home_and_it_comes_back)
{
	const uint64_t size = 3 * CH + 5;
	struct drm_mvgal_migrate mg = { .size = size, .in_fence_fd = -1 };
	struct drm_mvgal_pool_fd pf = { 0 };
	struct drm_mvgal_gpu_info gi;
	struct drm_mvgal_access a, b;
	struct mvgal_config cfg;
	uint32_t ha, hb, hd, sa, sb;
	uint64_t copied;
	uint8_t *va, *buf;
	int fence, g;

	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	/* A: its only current bytes in GPU g1's pool. */
	ASSERT_EQ(0, host_bo(self->m, size, &ha));
	fill(buf, size, 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, ha, 0, buf, size));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, ha, 0, size, &a, &sa, &fence,
			    &copied));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(self->g1, a.pool_gpu);
	fill(self->pool[self->g1] + a.pool_offset, size, 2);
	ASSERT_EQ(0, end_written(self->m, sa, ha, 0, size, -1));
	/* B: mapped by the CPU, in a live READ session on g1. */
	ASSERT_EQ(0, host_bo(self->m, size, &hb));
	ASSERT_EQ(0, mvgal_bo_map(self->m, hb, (void **)&va));
	fill(va, size, 3);
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, hb, 0, size,
			    &b, &sb, &fence, &copied));
	ASSERT_EQ(0, settle(fence));

	ASSERT_TRUE(bound(self->name));
	ASSERT_EQ(0, drv_write("unbind"));
	ASSERT_FALSE(bound(self->name));

	/* Noticed: gone, and every new use is -ENODEV. */
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g1, &gi));
	EXPECT_EQ(MVGAL_GPU_GONE, gi.state);
	EXPECT_EQ(-ENODEV, begin1(self->m, self->g1, MVGAL_ACCESS_READ, ha, 0, size,
				  &a, &sa, &fence, &copied));
	mg.handle = ha;
	mg.location = 1 + self->g1;
	EXPECT_EQ(-ENODEV, mvgal_migrate(self->m, &mg));
	EXPECT_EQ(-ENODEV, mvgal_bo_create(self->m, CH, MVGAL_BO_GPU_VALID,
					   self->g1, &hd));
	pf.gpu = self->g1;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_POOL_FD, &pf));
	EXPECT_EQ(ENODEV, errno);
	/* Other GPUs go on. */
	EXPECT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, ha, 0, size, &a, &sa, &fence,
			    &copied));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset, size, 0, 2));
	EXPECT_EQ(0, mvgal_end(self->m, sa, -1, NULL, 0));

	/* What its pool held comes home; the live session ends. */
	memset(buf, 0, size);
	ASSERT_EQ(0, mvgal_bo_read(self->m, ha, 0, buf, size));
	EXPECT_EQ(-1, check(buf, size, 0, 2));
	EXPECT_EQ(0, mvgal_end(self->m, sb, -1, NULL, 0));
	EXPECT_EQ(-1, check(va, size, 0, 3));
	munmap(va, (size + 4095) & ~4095ULL);

	/* Detach works; bound again, it is attached again and used. */
	EXPECT_EQ(0, mvgal_gpu_detach(self->m, self->g1));
	ASSERT_EQ(0, drv_write("bind"));
	config_64(&cfg);
	ASSERT_LE(0, mvgal_attach_all(self->m, &cfg, NULL, NULL));
	ASSERT_EQ(NR_GPUS, gpu_count(self->m));
	g = find_gpu(self->m, "virtio_gpu", 1);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, g, &gi));
	EXPECT_NE(MVGAL_GPU_GONE, gi.state);
	EXPECT_EQ(0, begin1(self->m, g, MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE,
			    ha, 0, size, &a, &sa, &fence, &copied));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, mvgal_end(self->m, sa, -1, NULL, 0));
	mvgal_bo_destroy(self->m, ha);
	mvgal_bo_destroy(self->m, hb);
	free(buf);
}

/*
 * How the tests hold and touch a placement export of GPU g1's pool. Its
 * mmap is the pool driver's mmap at the range's offset: the stand-in's
 * maps (its fault honours the offset, as TTM's does), virtio-gpu's is
 * -ENODEV (the GEM shmem helpers' fault ignores it). So on the stand-in
 * the CPU maps the export; on a virtio-gpu its mmap is checked to be
 * -ENODEV and mvgal imports it in another file, a kernel importer that
 * reads and writes through the export's vmap (the pool at the offset).
 */
struct xuse {
	uint64_t size;
	uint8_t *va;		/* the CPU's mapping (the stand-in) */
	struct mvgal *o;	/* or another file's import (virtio-gpu) */
	uint32_t ih;
};

static bool pool_maps(struct mvgal *m, int g)
{
	struct drm_mvgal_gpu_info gi;

	return !mvgal_gpu_info(m, g, &gi) && !strcmp(gi.driver, "mvgal_vram");
}

static int xuse_open(struct mvgal *m, int g, int fd, uint64_t size, struct xuse *x)
{
	void *va;
	int ret;

	memset(x, 0, sizeof(*x));
	x->size = size;
	errno = 0;
	va = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pool_maps(m, g)) {
		if (va == MAP_FAILED)
			return -errno;
		x->va = va;
		return 0;
	}
	if (va != MAP_FAILED) {
		munmap(va, size);
		return -EPROTO;		/* a shmem pool must not map */
	}
	if (errno != ENODEV)
		return -errno;
	ret = mvgal_open(&x->o);
	if (ret)
		return ret;
	ret = mvgal_bo_import(x->o, fd, &x->ih);
	if (ret) {
		mvgal_close(x->o);
		x->o = NULL;
	}
	return ret;
}

/* The whole export written with pattern @seed, as its importer writes. */
static int xuse_fill(struct xuse *x, unsigned int seed)
{
	uint8_t *buf;
	int ret;

	if (x->va) {
		fill(x->va, x->size, seed);
		return 0;
	}
	buf = malloc(x->size);
	if (!buf)
		return -ENOMEM;
	fill(buf, x->size, seed);
	ret = mvgal_bo_write(x->o, x->ih, 0, buf, x->size);
	free(buf);
	return ret;
}

/* The first byte of [0, @n) that is not pattern @seed, as the importer
 * reads it; -1 if none, -2 if the read failed.
 */
static long xuse_check(struct xuse *x, uint64_t n, unsigned int seed)
{
	uint8_t *buf;
	long ret;

	if (x->va)
		return check(x->va, n, 0, seed);
	buf = malloc(n);
	if (!buf)
		return -2;
	ret = mvgal_bo_read(x->o, x->ih, 0, buf, n) ? -2 : check(buf, n, 0, seed);
	free(buf);
	return ret;
}

/*
 * After the unbind: the import still reads the GPU's copy (the pool is
 * RAM, and mvgal's mapping of it stays until the detach); the CPU's
 * mapping is the driver's, which revoked it (the stand-in's remove zaps
 * every mapping of its device's address space, as amdgpu's does, and its
 * fault refuses a device gone). That the zap reached the export's mapping
 * shows the mapping is filed under the pool's address space, where the
 * driver looks. A child reads it: SIGBUS, not the old bytes.
 */
static long xuse_check_gone(struct xuse *x, uint64_t n, unsigned int seed)
{
	int status;
	pid_t pid;

	if (!x->va)
		return xuse_check(x, n, seed);
	pid = fork();
	if (pid < 0)
		return -2;
	if (!pid)
		_exit(x->va[0] == 0xa5 ? 3 : 4);
	if (waitpid(pid, &status, 0) != pid)
		return -2;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS ? -1 : 0;
}

static void xuse_close(struct xuse *x)
{
	if (x->va)
		munmap(x->va, x->size);
	if (x->o) {
		mvgal_bo_destroy(x->o, x->ih);
		mvgal_close(x->o);
	}
	x->va = NULL;
	x->o = NULL;
}

/* Detaches GPU @g, waiting (at most 20 s) for buffers destroyed just now
 * to give its pool back: their end may run in a worker.
 */
static int detach_when_free(struct mvgal *m, int g)
{
	int ret, i;

	for (i = 0; i < 200; i++) {
		ret = mvgal_gpu_detach(m, g);
		if (ret != -EBUSY)
			return ret;
		usleep(100 * 1000);
	}
	return ret;
}

/*
 * On a gone GPU: PLACE_FD is -ENODEV (with or without a placement there,
 * for a device-only buffer of it too), and so is REPLICATE to it, alone
 * or with a live GPU, placing nothing anywhere. An export taken before
 * the unplug keeps its placement: an importer's vmap still shows the
 * GPU's copy, a CPU mapping (the stand-in's) is revoked by the driver
 * (xuse_check_gone()), and a CPU read through mvgal brings the copy home;
 * PLACE_FREE and the detach stay -EBUSY until the export is gone. A device-only buffer of the gone GPU
 * still reads its bytes (the pool is RAM) by BO_PREAD and BO_COPY.
 */
TEST_F(unplug, exports_and_device_only_buffers_of_a_gone_gpu)
{
	const uint64_t size = 3 * CH + 5, dsize = 2 * CH + 333;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	struct mvgal_config cfg;
	uint32_t hx, hd, hh, hc, sess, gl[2];
	struct xuse x;
	uint64_t xsize;
	uint8_t *buf;
	int xfd, fd, fence;

	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	/* X: exported at g1, the GPU's writes through the export its only copy. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID | MVGAL_BO_SHARED,
				     MVGAL_GPU_ANY, &hx));
	fill(buf, size, 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, hx, 0, buf, size));
	ASSERT_EQ(0, mvgal_place_fd(self->m, hx, self->g1, MVGAL_PLACE_FD_RDWR,
				    &xfd, &xsize));
	ASSERT_EQ(0, xuse_open(self->m, self->g1, xfd, xsize, &x));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, hx, 0, size, &a, &sess,
			    &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, xuse_fill(&x, 4));
	EXPECT_EQ(-1, xuse_check(&x, size, 4));
	ASSERT_EQ(0, end_written(self->m, sess, hx, 0, size, -1));
	ASSERT_EQ(0, mvgal_bo_info(self->m, hx, &info));
	ASSERT_EQ(size, info.owned[1 + self->g1]);
	/* D: device-only on g1. H: a host buffer nothing placed anywhere. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, dsize, MVGAL_BO_GPU_VALID,
				     self->g1, &hd));
	fill(buf, dsize, 5);
	ASSERT_EQ(0, mvgal_bo_write(self->m, hd, 0, buf, dsize));
	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID | MVGAL_BO_SHARED,
				     MVGAL_GPU_ANY, &hh));
	fill(buf, size, 6);
	ASSERT_EQ(0, mvgal_bo_write(self->m, hh, 0, buf, size));

	ASSERT_EQ(0, drv_write("unbind"));
	ASSERT_FALSE(bound(self->name));

	/* PLACE_FD and REPLICATE to the gone GPU: -ENODEV, nothing placed. */
	fd = -5;
	EXPECT_EQ(-ENODEV, mvgal_place_fd(self->m, hh, self->g1, 0, &fd, NULL));
	EXPECT_EQ(-ENODEV, mvgal_place_fd(self->m, hh, self->g1,
					  MVGAL_PLACE_FD_RDWR, &fd, NULL));
	EXPECT_EQ(-ENODEV, mvgal_place_fd(self->m, hx, self->g1, 0, &fd, NULL));
	EXPECT_EQ(-ENODEV, mvgal_place_fd(self->m, hd, self->g1, 0, &fd, NULL));
	EXPECT_EQ(-5, fd);
	gl[0] = self->g1;
	fence = -5;
	EXPECT_EQ(-ENODEV, mvgal_replicate(self->m, hh, 0, size, gl, 1, -1, &fence));
	EXPECT_EQ(-ENODEV, mvgal_replicate(self->m, hh, CH + 1, CH, gl, 1, -1, &fence));
	gl[0] = self->g0;
	gl[1] = self->g1;
	EXPECT_EQ(-ENODEV, mvgal_replicate(self->m, hh, 0, size, gl, 2, -1, &fence));
	ASSERT_EQ(0, mvgal_bo_info(self->m, hh, &info));
	EXPECT_EQ(0, info.resident[1 + self->g0]);
	EXPECT_EQ(0, info.resident[1 + self->g1]);
	EXPECT_EQ(size, info.owned[MVGAL_LOC_HOST]);

	/* The export of before: its importer sees the GPU's copy still. */
	EXPECT_EQ(-1, xuse_check_gone(&x, size, 4));
	EXPECT_EQ(-EBUSY, mvgal_place_free(self->m, hx, self->g1));
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, self->g1));
	/* ... and a CPU read through mvgal brings those bytes home. */
	memset(buf, 0, size);
	ASSERT_EQ(0, mvgal_bo_read(self->m, hx, 0, buf, size));
	EXPECT_EQ(-1, check(buf, size, 0, 4));
	ASSERT_EQ(0, mvgal_bo_info(self->m, hx, &info));
	EXPECT_EQ(size, info.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ(-1, xuse_check_gone(&x, size, 4));
	EXPECT_EQ(-EBUSY, mvgal_place_free(self->m, hx, self->g1));
	xuse_close(&x);
	close(xfd);
	EXPECT_EQ(0, mvgal_place_free(self->m, hx, self->g1));
	ASSERT_EQ(0, mvgal_bo_info(self->m, hx, &info));
	EXPECT_EQ(0, info.resident[1 + self->g1]);
	memset(buf, 0, size);
	ASSERT_EQ(0, mvgal_bo_read(self->m, hx, 0, buf, size));
	EXPECT_EQ(-1, check(buf, size, 0, 4));

	/* The device-only buffer's bytes read back, by BO_PREAD and BO_COPY. */
	memset(buf, 0, size);
	ASSERT_EQ(0, mvgal_bo_read(self->m, hd, 0, buf, dsize));
	EXPECT_EQ(-1, check(buf, dsize, 0, 5));
	ASSERT_EQ(0, mvgal_bo_read(self->m, hd, CH + 17, buf, 1000));
	EXPECT_EQ(-1, check(buf, 1000, CH + 17, 5));
	ASSERT_EQ(0, host_bo(self->m, dsize, &hc));
	ASSERT_EQ(0, mvgal_bo_copy(self->m, hc, 0, hd, 0, dsize));
	memset(buf, 0, size);
	ASSERT_EQ(0, mvgal_bo_read(self->m, hc, 0, buf, dsize));
	EXPECT_EQ(-1, check(buf, dsize, 0, 5));
	/* While it lives the gone GPU stays attached. */
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, self->g1));
	mvgal_bo_destroy(self->m, hd);
	EXPECT_EQ(0, detach_when_free(self->m, self->g1));

	/* Bound again and attached again, for the tests after this one. */
	ASSERT_EQ(0, drv_write("bind"));
	config_64(&cfg);
	ASSERT_LE(0, mvgal_attach_all(self->m, &cfg, NULL, NULL));
	ASSERT_EQ(NR_GPUS, gpu_count(self->m));
	mvgal_bo_destroy(self->m, hx);
	mvgal_bo_destroy(self->m, hh);
	mvgal_bo_destroy(self->m, hc);
	free(buf);
}

/* The module's reference count: each live dma-buf of a driver holds one. */
static long module_refcnt(const char *mod)
{
	char path[96], buf[32];
	FILE *f;
	long n = -1;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", mod);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		n = strtol(buf, NULL, 10);
	fclose(f);
	return n;
}

enum export_order {
	FD_CLOSED_FIRST,	/* the mapping (or import) alone keeps the export */
	UNMAPPED_THEN_CLOSED,
	FD_OUTLIVES_MAPPING,	/* the fd alone keeps it, after the mapping */
	HANDLE_GONE_FIRST,	/* the export holds the buffer's last reference */
};

/*
 * A placement export at GPU g1, mapped by the CPU (the stand-in) or
 * imported by another mvgal file (virtio-gpu: xuse_open()), over g1's
 * unbind: the export (its mapping, import or fd) keeps the placement, so
 * the detach is
 * -EBUSY; once it is gone the detach succeeds, and lets go of the last
 * hold anyone had on the gone device (the fixture's mapping of the pool
 * is dropped first): its dma-buf, whose release releases the device.
 * Detaching takes nothing but mvgal's own reference: the driver's module
 * count drops by exactly that one. Should the driver have left an object
 * of its own behind (virtio-gpu 6.12 can, when its fbdev emulation
 * draws during the unbind: see tests/run-check.sh), the device's
 * release WARNs on the way out of this detach; that is not mvgal's.
 */
static void export_over_unbind(struct __test_metadata *_metadata,
			       FIXTURE_DATA(unplug) *self,
			       enum export_order order, int g)
{
	const uint64_t size = 3 * CH + 5;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	struct mvgal_config cfg;
	uint32_t hx, sess;
	struct xuse x;
	uint64_t xsize;
	uint8_t *buf;
	int xfd, fence;
	long refs;

	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	/* The fixture's mapping of g1's pool would hold the device. */
	munmap(self->pool[g], POOL_BYTES);
	self->pool[g] = NULL;
	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID | MVGAL_BO_SHARED,
				     MVGAL_GPU_ANY, &hx));
	fill(buf, size, 7);
	ASSERT_EQ(0, mvgal_bo_write(self->m, hx, 0, buf, size));
	ASSERT_EQ(0, mvgal_place_fd(self->m, hx, g, MVGAL_PLACE_FD_RDWR,
				    &xfd, &xsize));
	ASSERT_EQ(0, xuse_open(self->m, g, xfd, xsize, &x));
	/* The GPU's writes through the export (every page faulted in). */
	ASSERT_EQ(0, begin1(self->m, g, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, hx, 0, size, &a, &sess,
			    &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, xuse_fill(&x, 8));
	ASSERT_EQ(0, end_written(self->m, sess, hx, 0, size, -1));
	if (order == FD_CLOSED_FIRST)
		close(xfd);
	if (order == HANDLE_GONE_FIRST)
		mvgal_bo_destroy(self->m, hx);

	ASSERT_EQ(0, drv_write("unbind"));
	ASSERT_FALSE(bound(self->name));

	EXPECT_EQ(-1, xuse_check_gone(&x, size, 8));
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, g));
	if (order != HANDLE_GONE_FIRST) {
		ASSERT_EQ(0, mvgal_bo_info(self->m, hx, &info));
		EXPECT_EQ(xsize, info.resident[1 + g]);
	}
	xuse_close(&x);
	if (order == FD_OUTLIVES_MAPPING)
		EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, g));
	if (order != FD_CLOSED_FIRST)
		close(xfd);
	refs = module_refcnt(self->mod);
	ASSERT_LT(0, refs);
	EXPECT_EQ(0, detach_when_free(self->m, g));
	EXPECT_EQ(refs - 1, module_refcnt(self->mod));
	if (order != HANDLE_GONE_FIRST) {
		ASSERT_EQ(0, mvgal_bo_info(self->m, hx, &info));
		EXPECT_EQ(0, info.resident[1 + g]);
		memset(buf, 0, size);
		ASSERT_EQ(0, mvgal_bo_read(self->m, hx, 0, buf, size));
		EXPECT_EQ(-1, check(buf, size, 0, 8));
		mvgal_bo_destroy(self->m, hx);
	}

	ASSERT_EQ(0, drv_write("bind"));
	config_64(&cfg);
	ASSERT_LE(0, mvgal_attach_all(self->m, &cfg, NULL, NULL));
	ASSERT_EQ(NR_GPUS, gpu_count(self->m));
	free(buf);
}

TEST_F(unplug, mapped_export_over_unbind_fd_closed_first)
{
	export_over_unbind(_metadata, self, FD_CLOSED_FIRST, self->g1);
}

TEST_F(unplug, mapped_export_over_unbind_unmapped_then_closed)
{
	export_over_unbind(_metadata, self, UNMAPPED_THEN_CLOSED, self->g1);
}

TEST_F(unplug, mapped_export_over_unbind_fd_outlives_mapping)
{
	export_over_unbind(_metadata, self, FD_OUTLIVES_MAPPING, self->g1);
}

TEST_F(unplug, mapped_export_over_unbind_holds_the_last_buffer_reference)
{
	export_over_unbind(_metadata, self, HANDLE_GONE_FIRST, self->g1);
}

TEST_HARNESS_MAIN
