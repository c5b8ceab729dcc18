// SPDX-License-Identifier: GPL-2.0
/*
 * GPU loss: a virtio-gpu unbound from its driver while mvgal has it
 * attached, with a placement holding the only current bytes of a buffer,
 * a CPU mapping and a live session. New use is -ENODEV; the bytes come
 * home (the guest's pools are RAM, still readable); detach works; the
 * device bound again is attached again and used.
 */
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

#define VIRTIO_GPU_DRV "/sys/bus/virtio/drivers/virtio_gpu"

/* The virtio device ("virtioN") under the PCI device of GPU @g. */
static int virtio_name(struct mvgal *m, int g, char *name, size_t len)
{
	struct drm_mvgal_gpu_info gi;
	char pattern[128];
	glob_t gl;
	int ret;

	ret = mvgal_gpu_info(m, g, &gi);
	if (ret)
		return ret;
	snprintf(pattern, sizeof(pattern), "/sys/bus/pci/devices/%s/virtio*", gi.slot);
	if (glob(pattern, 0, NULL, &gl) || gl.gl_pathc != 1) {
		globfree(&gl);
		return -ENOENT;
	}
	snprintf(name, len, "%s", strrchr(gl.gl_pathv[0], '/') + 1);
	globfree(&gl);
	return 0;
}

static bool bound(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), VIRTIO_GPU_DRV "/%s", name);
	return access(path, F_OK) == 0;
}

FIXTURE(unplug) {
	COH_FIELDS;
	char name[32];
};

FIXTURE_SETUP(unplug)
{
	COH_SETUP(self);
	ASSERT_EQ(0, virtio_name(self->m, self->g1, self->name, sizeof(self->name)));
}

FIXTURE_TEARDOWN(unplug)
{
	struct mvgal_config cfg;

	if (!bound(self->name))
		write_param(VIRTIO_GPU_DRV "/bind", self->name);
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
	ASSERT_EQ(0, write_param(VIRTIO_GPU_DRV "/unbind", self->name));
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
	ASSERT_EQ(0, write_param(VIRTIO_GPU_DRV "/bind", self->name));
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

TEST_HARNESS_MAIN
