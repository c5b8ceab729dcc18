// SPDX-License-Identifier: GPL-2.0
/*
 * The test bed's VRAM stand-in GPU (tests/vram) keeps the rules of the
 * drivers it stands in for. Buffers live in its BAR, checked through the
 * BAR itself (sysfs resource2); each mode's dma-buf rules hold for a
 * static importer (vgem) and for a dynamic one that allows peer-to-peer
 * (the other stand-in, behind the same PCIe switch); a buffer moved by an
 * export keeps every byte.
 *
 * Not in the stand-in pass (run-selftests.sh): it is the stand-in's own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <xf86drm.h>

#include "kselftest_harness.h"
#include "standin.h"


FIXTURE(vram) {
	struct standin s[2];
	int n;
	int vgem;
};

FIXTURE_SETUP(vram)
{
	ASSERT_EQ(0, system("modprobe mvgal_vram"));
	self->n = find_standins(self->s, 2);
	ASSERT_EQ(2, self->n);
	self->vgem = -1;
	for (int i = 0; i < 16 && self->vgem < 0; i++) {
		char path[32];
		drmVersionPtr v;
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, "vgem"))
			self->vgem = fd;
		else
			close(fd);
		drmFreeVersion(v);
	}
	ASSERT_LE(0, self->vgem);
}

FIXTURE_TEARDOWN(vram)
{
	for (int i = 0; i < self->n; i++) {
		set_mode(&self->s[i], "amdgpu");
		close(self->s[i].fd);
	}
	if (self->vgem >= 0)
		close(self->vgem);
	/* The other selftests count the GPUs of the stock test bed. */
	if (system("rmmod mvgal_vram"))
		fprintf(stderr, "# rmmod mvgal_vram failed\n");
}

/* A buffer's bytes are in the BAR at the offset the driver reports. */
TEST_F(vram, buffers_live_in_the_bar)
{
	struct drm_mvgal_vram_bo_info info;
	uint8_t *p, *bar;
	uint32_t h = 0;
	void *base;

	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &h));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, info.domain);
	EXPECT_EQ(MAPPED, info.size);
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, h, MAPPED));
	ASSERT_NE(NULL, bar = bar_map(&self->s[0], info.offset, MAPPED, &base));
	fill(p, SIZE, 1);
	EXPECT_EQ(-1, check(bar, SIZE, 1));
	/* And the other way, at a non-zero offset. */
	fill(bar + 1000, SIZE - 1000, 2);
	EXPECT_EQ(-1, check(p + 1000, SIZE - 1000, 2));
	munmap(base, MAPPED);
	munmap(p, MAPPED);
}

/* New buffers are cleared, though their BAR range held another's bytes. */
TEST_F(vram, new_buffers_are_cleared)
{
	struct drm_mvgal_vram_bo_info a, b;
	uint8_t *p, *bar;
	uint32_t h = 0;
	void *base;

	ASSERT_EQ(0, dumb_create(self->s[0].fd, &h));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &a));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, a.domain);
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, h, a.size));
	memset(p, 0xa5, a.size);
	munmap(p, a.size);
	ASSERT_EQ(0, drmCloseBufferHandle(self->s[0].fd, h));
	ASSERT_EQ(0, dumb_create(self->s[0].fd, &h));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &b));
	ASSERT_NE(NULL, bar = bar_map(&self->s[0], b.offset, b.size, &base));
	for (uint64_t i = 0; i < b.size; i++)
		ASSERT_EQ(0, bar[i]);
	munmap(base, b.size);
}

/*
 * amdgpu: a static importer pins the buffer into GTT, so it moves to system
 * pages with every byte; the BAR range is given back; the pin goes with
 * the import, and the buffer stays where it is.
 */
TEST_F(vram, amdgpu_static_import_moves_to_system)
{
	struct drm_mvgal_vram_bo_info info;
	uint32_t h = 0, vh = 0;
	uint8_t *p, *d;
	int dfd;

	ASSERT_EQ(0, dumb_create(self->s[0].fd, &h));
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, h, MAPPED));
	fill(p, SIZE, 3);
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[0].fd, h, DRM_CLOEXEC | DRM_RDWR, &dfd));
	ASSERT_EQ(0, drmPrimeFDToHandle(self->vgem, dfd, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, info.domain);
	EXPECT_EQ(1, info.pin_count);
	EXPECT_EQ(1, info.moves);
	/* The old mapping faults in the new place; the dma-buf maps it too. */
	EXPECT_EQ(-1, check(p, SIZE, 3));
	d = mmap(NULL, MAPPED, PROT_READ, MAP_SHARED, dfd, 0);
	ASSERT_NE(MAP_FAILED, d);
	EXPECT_EQ(-1, check(d, SIZE, 3));
	munmap(d, MAPPED);
	ASSERT_EQ(0, drmCloseBufferHandle(self->vgem, vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &info));
	EXPECT_EQ(0, info.pin_count);
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, info.domain);
	munmap(p, MAPPED);
	close(dfd);
}

/*
 * amdgpu with a dynamic importer that allows peer-to-peer: where the PCI
 * path works (the debug kernel has CONFIG_PCI_P2PDMA and DMABUF_MOVE_NOTIFY;
 * both stand-ins sit behind one switch) the buffer stays in VRAM and the
 * importer gets the BAR's bus addresses; where it does not (Debian's
 * kernels), it moves to system memory. Then a static importer pins it into
 * system memory: the dynamic importer is told it moved and maps it anew.
 */
TEST_F(vram, amdgpu_peer_import_keeps_vram_where_p2p_works)
{
	struct drm_mvgal_vram_bo_info ex, im;
	uint32_t h = 0, ih = 0, vh = 0;
	uint8_t *p;
	int dfd;

	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &h));
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, h, MAPPED));
	fill(p, SIZE, 4);
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &ex));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[0].fd, h, DRM_CLOEXEC | DRM_RDWR, &dfd));
	ASSERT_EQ(0, drmPrimeFDToHandle(self->s[1].fd, dfd, &ih));
	ASSERT_EQ(0, bo_info(self->s[1].fd, ih, &im));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_IMPORT, im.domain);
	EXPECT_TRUE(im.flags & MVGAL_VRAM_INFO_MAPPED);
	if (p2p_kernel()) {
		ASSERT_TRUE(im.flags & MVGAL_VRAM_INFO_PEER2PEER);
		EXPECT_EQ(self->s[0].bar + ex.offset, im.dma_addr);
		ASSERT_EQ(0, bo_info(self->s[0].fd, h, &ex));
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, ex.domain);
		EXPECT_EQ(0, ex.pin_count);
	} else {
		EXPECT_FALSE(im.flags & MVGAL_VRAM_INFO_PEER2PEER);
		ASSERT_EQ(0, bo_info(self->s[0].fd, h, &ex));
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, ex.domain);
		EXPECT_TRUE(im.dma_addr < self->s[0].bar ||
			    im.dma_addr >= self->s[0].bar + self->s[0].bar_size);
	}
	EXPECT_EQ(-1, check(p, SIZE, 4));

	/* A static importer: the buffer goes to system pages and stays. */
	ASSERT_EQ(0, drmPrimeFDToHandle(self->vgem, dfd, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &ex));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, ex.domain);
	ASSERT_EQ(0, bo_info(self->s[1].fd, ih, &im));
	EXPECT_TRUE(im.dma_addr < self->s[0].bar ||
		    im.dma_addr >= self->s[0].bar + self->s[0].bar_size);
	EXPECT_EQ(-1, check(p, SIZE, 4));
	ASSERT_EQ(0, drmCloseBufferHandle(self->vgem, vh));
	ASSERT_EQ(0, drmCloseBufferHandle(self->s[1].fd, ih));
	munmap(p, MAPPED);
	close(dfd);
}

/*
 * A dma-buf of this device imported by another file of the same device is
 * the same buffer (amdgpu_gem_prime_import()): no attachment, no move, the
 * same bytes in VRAM.
 */
TEST_F(vram, same_device_import_is_the_same_buffer)
{
	struct drm_mvgal_vram_bo_info a, b;
	uint32_t h = 0, h2 = 0;
	uint8_t *p, *q;
	char path[64];
	int dfd, fd2;

	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &h));
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, h, MAPPED));
	fill(p, SIZE, 5);
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[0].fd, h, DRM_CLOEXEC | DRM_RDWR, &dfd));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", self->s[0].fd);
	ASSERT_LE(0, fd2 = open(path, O_RDWR | O_CLOEXEC));
	ASSERT_EQ(0, drmPrimeFDToHandle(fd2, dfd, &h2));
	ASSERT_EQ(0, bo_info(fd2, h2, &b));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &a));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, b.domain);
	EXPECT_EQ(a.offset, b.offset);
	EXPECT_EQ(0, b.moves);
	EXPECT_EQ(0, b.pin_count);
	ASSERT_NE(NULL, q = bo_map(fd2, h2, MAPPED));
	EXPECT_EQ(-1, check(q, SIZE, 5));
	fill(q + 77, SIZE - 77, 6);
	EXPECT_EQ(-1, check(p + 77, SIZE - 77, 6));
	munmap(q, MAPPED);
	munmap(p, MAPPED);
	close(fd2);
	close(dfd);
}

/* Import @h of stand-in 0 into vgem; the errno, or 0 (and @vh). */
static int vgem_import(FIXTURE_DATA(vram) *self, uint32_t h, uint32_t *vh)
{
	int dfd, ret;

	if (drmPrimeHandleToFD(self->s[0].fd, h, DRM_CLOEXEC | DRM_RDWR, &dfd))
		return -errno;
	ret = drmPrimeFDToHandle(self->vgem, dfd, vh) ? -errno : 0;
	close(dfd);
	return ret;
}

/*
 * xe: a buffer that cannot leave VRAM (every dumb buffer) cannot be shared
 * without peer-to-peer (xe_dma_buf_attach()); one that can migrate moves
 * to system memory for a static importer.
 */
TEST_F(vram, xe_refuses_vram_only_buffers_without_p2p)
{
	struct drm_mvgal_vram_bo_info info;
	uint32_t h = 0, h2 = 0, vh = 0;
	uint8_t *p;

	ASSERT_EQ(0, set_mode(&self->s[0], "xe"));
	ASSERT_EQ(0, dumb_create(self->s[0].fd, &h));
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, h, MAPPED));
	fill(p, SIZE, 7);
	EXPECT_EQ(-EOPNOTSUPP, vgem_import(self, h, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, info.domain);
	EXPECT_EQ(0, info.pin_count);
	EXPECT_EQ(-1, check(p, SIZE, 7));
	munmap(p, MAPPED);

	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &h2));
	ASSERT_EQ(0, vgem_import(self, h2, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h2, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, info.domain);
	EXPECT_EQ(1, info.pin_count);
}

/*
 * i915: any importer migrates the object to system memory and pins it for
 * the attachment's life; an LMEM-only object (a dumb buffer) is refused.
 */
TEST_F(vram, i915_migrates_on_attach_or_refuses)
{
	struct drm_mvgal_vram_bo_info info;
	uint32_t h = 0, h2 = 0, vh = 0;
	uint8_t *p;

	ASSERT_EQ(0, set_mode(&self->s[0], "i915"));
	ASSERT_EQ(0, dumb_create(self->s[0].fd, &h));
	EXPECT_EQ(-EOPNOTSUPP, vgem_import(self, h, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, info.domain);

	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &h2));
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, h2, MAPPED));
	fill(p, SIZE, 8);
	ASSERT_EQ(0, vgem_import(self, h2, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h2, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, info.domain);
	EXPECT_EQ(1, info.pin_count);
	EXPECT_EQ(-1, check(p, SIZE, 8));
	ASSERT_EQ(0, drmCloseBufferHandle(self->vgem, vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h2, &info));
	EXPECT_EQ(0, info.pin_count);
	munmap(p, MAPPED);
}

/* nouveau: every importer pins the buffer into GART (system memory). */
TEST_F(vram, nouveau_pins_into_system_memory)
{
	struct drm_mvgal_vram_bo_info info;
	uint32_t h = 0, vh = 0, ih = 0;
	uint8_t *p;
	int dfd;

	ASSERT_EQ(0, set_mode(&self->s[0], "nouveau"));
	ASSERT_EQ(0, dumb_create(self->s[0].fd, &h));
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, h, MAPPED));
	fill(p, SIZE, 9);
	ASSERT_EQ(0, vgem_import(self, h, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, info.domain);
	EXPECT_EQ(1, info.pin_count);
	EXPECT_EQ(-1, check(p, SIZE, 9));
	/* Even for an importer that allows peer-to-peer. */
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[0].fd, h, DRM_CLOEXEC | DRM_RDWR, &dfd));
	ASSERT_EQ(0, drmPrimeFDToHandle(self->s[1].fd, dfd, &ih));
	ASSERT_EQ(0, bo_info(self->s[1].fd, ih, &info));
	EXPECT_TRUE(info.dma_addr < self->s[0].bar ||
		    info.dma_addr >= self->s[0].bar + self->s[0].bar_size);
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &info));
	EXPECT_EQ(2, info.pin_count);
	close(dfd);
	munmap(p, MAPPED);
}

/*
 * NVIDIA's open modules: the attach succeeds and the map of video memory
 * fails with -ENOMEM (a static importer maps at import); a buffer in system
 * memory maps.
 */
TEST_F(vram, nvidia_cannot_map_video_memory)
{
	struct drm_mvgal_vram_bo_info info;
	uint32_t h = 0, h2 = 0, vh = 0;

	ASSERT_EQ(0, set_mode(&self->s[0], "nvidia"));
	ASSERT_EQ(0, dumb_create(self->s[0].fd, &h));
	EXPECT_EQ(-ENOMEM, vgem_import(self, h, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, info.domain);
	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, MVGAL_VRAM_BO_SYSTEM, &h2));
	EXPECT_EQ(0, vgem_import(self, h2, &vh));
}

/*
 * When VRAM is full a buffer that may move starts in system memory (TTM's
 * GTT fallback); one that may not is refused.
 */
TEST_F(vram, full_vram_falls_back_or_refuses)
{
	struct drm_mvgal_vram_bo_info info;
	uint64_t big = self->s[0].bar_size - 8192;
	uint32_t h = 0, h2 = 0, h3 = 0;

	ASSERT_EQ(0, bo_create(&self->s[0], big, MVGAL_VRAM_BO_VRAM_ONLY, &h));
	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &h2));
	ASSERT_EQ(0, bo_info(self->s[0].fd, h2, &info));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, info.domain);
	EXPECT_EQ(-ENOSPC, bo_create(&self->s[0], SIZE, MVGAL_VRAM_BO_VRAM_ONLY, &h3));
	ASSERT_EQ(0, drmCloseBufferHandle(self->s[0].fd, h));
	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, MVGAL_VRAM_BO_VRAM_ONLY, &h3));
}

/*
 * Eviction (TTM's under memory pressure) moves unpinned buffers to system
 * memory with every byte; buffers that are pinned or cannot leave VRAM
 * stay.
 */
TEST_F(vram, eviction_moves_unpinned_buffers_only)
{
	struct drm_mvgal_vram_bo_info a, b, c;
	uint32_t ha = 0, hb = 0, hc = 0, vh = 0;
	uint8_t *p;

	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &ha));
	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, MVGAL_VRAM_BO_VRAM_ONLY, &hb));
	ASSERT_EQ(0, set_mode(&self->s[0], "i915"));
	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &hc));
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, ha, MAPPED));
	fill(p, SIZE, 10);
	ASSERT_EQ(0, evict(&self->s[0]));
	ASSERT_EQ(0, bo_info(self->s[0].fd, ha, &a));
	ASSERT_EQ(0, bo_info(self->s[0].fd, hb, &b));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, a.domain);
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, b.domain);
	EXPECT_EQ(-1, check(p, SIZE, 10));
	/* A pinned buffer stays where it is pinned. */
	ASSERT_EQ(0, vgem_import(self, hc, &vh));
	ASSERT_EQ(0, bo_info(self->s[0].fd, hc, &c));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, c.domain);
	EXPECT_EQ(1, c.pin_count);
	ASSERT_EQ(0, evict(&self->s[0]));
	ASSERT_EQ(0, bo_info(self->s[0].fd, hc, &c));
	EXPECT_EQ(1, c.moves);
	munmap(p, MAPPED);
}

TEST_F(vram, ioctl_rejections)
{
	struct drm_mvgal_vram_bo_info info;
	uint32_t h = 0;

	EXPECT_EQ(-EINVAL, bo_create(&self->s[0], SIZE, 1u << 7, &h));
	EXPECT_EQ(-EINVAL, bo_create(&self->s[0], 0, 0, &h));
	EXPECT_EQ(-EINVAL, bo_create(&self->s[0], SIZE, MVGAL_VRAM_BO_FLAGS, &h));
	EXPECT_EQ(-EINVAL, bo_create(&self->s[0], UINT64_MAX, 0, &h));
	EXPECT_EQ(-ENOENT, bo_info(self->s[0].fd, 12345, &info));
	ASSERT_EQ(0, bo_create(&self->s[0], SIZE, 0, &h));
	memset(&info, 0, sizeof(info));
	info.handle = h;
	info.pad = 1;
	EXPECT_EQ(-1, drmIoctl(self->s[0].fd, DRM_IOCTL_MVGAL_VRAM_BO_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, set_mode(&self->s[0], "radeon"));
}

TEST_HARNESS_MAIN
