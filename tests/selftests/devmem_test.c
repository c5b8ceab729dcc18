// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal on device memory: pools lent by the test bed's VRAM stand-in GPU
 * (tests/vram), whose buffers live in a PCI BAR and whose dma-buf rules
 * are amdgpu's, xe's, i915's, nouveau's or NVIDIA's. GPU_INFO says where
 * each pool really is; the bytes mvgal puts there are checked through a
 * path that is not mvgal's (the BAR through sysfs resource2, or the
 * stand-in's own mapping once its driver moved the buffer to system
 * memory); when the driver moves the pool, mvgal follows with every byte.
 *
 * The debug kernel has CONFIG_PCI_P2PDMA and CONFIG_DMABUF_MOVE_NOTIFY, so
 * an amdgpu-like driver keeps the pool in VRAM there; Debian's kernels
 * have neither, and it moves the pool to system memory and pins it.
 */
#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "standin.h"

#define POOL_MIB 64
#define MOVABLE "/sys/module/mvgal/parameters/movable_pools"

static int write_movable(const char *v)
{
	int fd = open(MOVABLE, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, v, 1) == 1 ? 0 : -errno;
	close(fd);
	return ret;
}

FIXTURE(devmem) {
	struct standin s[2];
	int n;
	struct mvgal *m;
	uint32_t pool;		/* the stand-in's handle of the pool buffer */
	struct drm_mvgal_vram_bo_info pi;
	uint32_t gpu;
	bool attached;
};

FIXTURE_SETUP(devmem)
{
	ASSERT_EQ(0, system("modprobe mvgal_vram"));
	self->n = find_standins(self->s, 2);
	ASSERT_EQ(2, self->n);
	ASSERT_EQ(0, mvgal_open(&self->m));
	self->attached = false;
	/* Pools follow their driver's moves (not yet the default). */
	ASSERT_EQ(0, write_movable("1"));
}

FIXTURE_TEARDOWN(devmem)
{
	/* A failed test's buffers go with its file, then the pool. */
	mvgal_close(self->m);
	if (self->attached && !mvgal_open(&self->m)) {
		if (mvgal_gpu_detach(self->m, self->gpu))
			fprintf(stderr, "# the stand-in's pool stays attached\n");
		mvgal_close(self->m);
	}
	for (int i = 0; i < self->n; i++) {
		set_mode(&self->s[i], "amdgpu");
		close(self->s[i].fd);
	}
	write_movable("0");
	/* The other selftests count the GPUs of the stock test bed. */
	if (system("rmmod mvgal_vram"))
		fprintf(stderr, "# rmmod mvgal_vram failed\n");
}

/* Lends a POOL_MIB dumb buffer of stand-in 0 in @mode: GPU_ATTACH's errno. */
static int lend(FIXTURE_DATA(devmem) *self, const char *mode)
{
	struct drm_mode_create_dumb d = {
		.width = 1024, .height = POOL_MIB * 256, .bpp = 32,
	};
	int pfd, ret;

	if (set_mode(&self->s[0], mode) ||
	    drmIoctl(self->s[0].fd, DRM_IOCTL_MODE_CREATE_DUMB, &d) ||
	    drmPrimeHandleToFD(self->s[0].fd, d.handle, DRM_CLOEXEC | DRM_RDWR, &pfd))
		return -EPROTO;
	self->pool = d.handle;
	ret = mvgal_gpu_attach(self->m, self->s[0].fd, pfd, MVGAL_GPU_ANY, &self->gpu);
	close(pfd);
	self->attached = !ret;
	return ret;
}

/* Where byte 0 of device-only buffer @h is in its pool (BEGIN says). */
static int64_t pool_offset(struct mvgal *m, uint32_t gpu, uint32_t h)
{
	struct drm_mvgal_access a = { .handle = h };
	uint32_t session;
	int fence = -1, ret;

	if (mvgal_begin(m, gpu, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL, -1, &a, 1,
			&session, &fence, NULL))
		return -1;
	ret = fence < 0 ? 0 : mvgal_fence_wait(fence, 20000);
	if (fence >= 0)
		close(fence);
	if (ret || mvgal_end(m, session, -1, NULL, 0))
		return -1;
	return a.pool_offset;
}

/*
 * [@off, @off + @len) of the pool as its driver holds it now: the BAR at
 * the buffer's offset, or the stand-in's own mapping of its system pages.
 */
static uint8_t *pool_bytes(FIXTURE_DATA(devmem) *self, uint64_t off,
			   size_t len, void **base, size_t *maplen)
{
	uint8_t *p;

	if (bo_info(self->s[0].fd, self->pool, &self->pi))
		return NULL;
	if (self->pi.domain == MVGAL_VRAM_DOMAIN_VRAM) {
		*maplen = len + ((self->pi.offset + off) & 4095);
		return bar_map(&self->s[0], self->pi.offset + off, len, base);
	}
	*maplen = self->pi.size;
	p = bo_map(self->s[0].fd, self->pool, self->pi.size);
	*base = p;
	return p ? p + off : NULL;
}

/*
 * An amdgpu-like pool stays in VRAM where peer-to-peer and move notify
 * let it (the debug kernel), and GPU_INFO says device memory; elsewhere
 * the driver moves it to system memory and pins it, and GPU_INFO says
 * so. Either way the bytes of a buffer in it are where mvgal says, both
 * ways.
 */
TEST_F(devmem, a_pool_says_where_it_is_and_holds_the_bytes)
{
	static uint8_t data[SIZE], back[SIZE];
	struct drm_mvgal_gpu_info gi;
	size_t maplen;
	int64_t off;
	uint8_t *p;
	void *base;
	uint32_t h;

	ASSERT_EQ(0, lend(self, "amdgpu"));
	/*
	 * Other GPUs' drivers probing whether they import the pool (a static
	 * importer pins it in system memory meanwhile) may have moved it out
	 * of VRAM; the GPU's next use would validate it back, as this does.
	 * The write after waits for mvgal to map the pool again.
	 */
	ASSERT_EQ(0, validate(&self->s[0]));
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, MVGAL_BO_GPU_VALID, self->gpu, &h));
	fill(data, SIZE, 21);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, SIZE));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	ASSERT_EQ(0, bo_info(self->s[0].fd, self->pool, &self->pi));
	if (p2p_kernel()) {
		int fd;

		EXPECT_EQ(MVGAL_POOL_MEMORY_DEVICE, gi.pool_memory);
		EXPECT_EQ(MVGAL_POOL_PEER2PEER | MVGAL_POOL_MOVABLE, gi.pool_flags);
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, self->pi.domain);
		EXPECT_EQ(0, self->pi.pin_count);
		/* A movable pool exports no placement: a vmap would move. */
		EXPECT_EQ(-EOPNOTSUPP, mvgal_place_fd(self->m, h, self->gpu, 0, &fd, NULL));
	} else {
		EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, gi.pool_memory);
		EXPECT_EQ(0, gi.pool_flags);
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, self->pi.domain);
		EXPECT_EQ(1, self->pi.pin_count);
		EXPECT_EQ(0, gi.pool_moves);	/* pinned */
	}

	ASSERT_LE(0, off = pool_offset(self->m, self->gpu, h));
	ASSERT_NE(NULL, p = pool_bytes(self, off, SIZE, &base, &maplen));
	EXPECT_EQ(-1, check(p, SIZE, 21));
	/* Written past mvgal, at an offset: mvgal reads it from the pool. */
	fill(p + 999, SIZE - 999, 22);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 999, back, SIZE - 999));
	EXPECT_EQ(-1, check(back, SIZE - 999, 22));
	munmap(base, maplen);
	mvgal_bo_destroy(self->m, h);
}

/*
 * The driver evicts the pool (TTM's eviction under VRAM pressure): where
 * it may move the pool, mvgal waits for its copies, maps the pool again
 * where the driver put it, and every byte is still there; a pinned pool
 * does not move.
 */
TEST_F(devmem, the_pool_follows_its_driver_when_it_moves)
{
	static uint8_t data[SIZE], back[SIZE];
	struct drm_mvgal_gpu_info gi;
	uint64_t moves0, bo_moves0;
	size_t maplen;
	int64_t off;
	uint8_t *p;
	void *base;
	uint32_t h;

	ASSERT_EQ(0, lend(self, "amdgpu"));
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, MVGAL_BO_GPU_VALID, self->gpu, &h));
	fill(data, SIZE, 23);
	/* Back in VRAM if other drivers' probes moved it (see above). */
	ASSERT_EQ(0, validate(&self->s[0]));
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, SIZE));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	moves0 = gi.pool_moves;
	ASSERT_EQ(0, bo_info(self->s[0].fd, self->pool, &self->pi));
	bo_moves0 = self->pi.moves;
	if (p2p_kernel()) {
		ASSERT_EQ(MVGAL_VRAM_DOMAIN_VRAM, self->pi.domain);
	}
	ASSERT_EQ(0, evict(&self->s[0]));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	if (p2p_kernel()) {
		EXPECT_LE(moves0 + 1, gi.pool_moves);
	} else {
		EXPECT_EQ(moves0, gi.pool_moves);	/* pinned */
	}
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, SIZE));
	EXPECT_EQ(-1, check(back, SIZE, 23));

	/* Mapped again: a write lands where the driver has the pool now. */
	fill(data, SIZE, 24);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, SIZE));
	ASSERT_LE(0, off = pool_offset(self->m, self->gpu, h));
	ASSERT_NE(NULL, p = pool_bytes(self, off, SIZE, &base, &maplen));
	EXPECT_EQ(-1, check(p, SIZE, 24));
	munmap(base, maplen);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	if (p2p_kernel()) {
		/* Out to system memory, and back into VRAM by its next map. */
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, self->pi.domain);
		EXPECT_EQ(MVGAL_POOL_MEMORY_DEVICE, gi.pool_memory);
		EXPECT_LE(bo_moves0 + 2, self->pi.moves);
	} else {
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, self->pi.domain);
		EXPECT_EQ(bo_moves0, self->pi.moves);
	}
	mvgal_bo_destroy(self->m, h);
}

/*
 * PLACE_FD of a buffer in a stand-in's pool (pinned: movable_pools off),
 * at a non-zero offset of the pool, of a size that is no page multiple:
 * the export is the pool's exporter's. Its mmap (the stand-in's own, at
 * the range's offset: at 0 and from the second page) shows the bytes
 * BO_PWRITE put there; bytes written through it are in the pool where
 * BEGIN says the buffer is (the BAR through resource2 when the pool is in
 * VRAM, the stand-in's own mapping otherwise) and BO_PREAD reads them.
 * The other stand-in imports it (a dynamic importer that allows P2P):
 * the export's size, and its first DMA address is the range's (the BAR
 * plus the offset where the pool is in VRAM, not the BAR otherwise).
 */
TEST_F(devmem, a_placement_export_is_the_pool_drivers_range)
{
	static uint8_t data[SIZE], back[SIZE];
	struct drm_mvgal_vram_bo_info im;
	struct drm_mvgal_gpu_info gi;
	uint8_t *va, *va2, *p;
	uint32_t h0, h, ih;
	uint64_t size;
	size_t maplen;
	int64_t off;
	long bad = -1;
	void *base;
	int fd;

	ASSERT_EQ(0, write_movable("0"));
	ASSERT_EQ(0, lend(self, "amdgpu"));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	ASSERT_EQ(0, gi.pool_flags & MVGAL_POOL_MOVABLE);
	/* Another buffer first: this one lies at a non-zero offset. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, 5000, MVGAL_BO_GPU_VALID, self->gpu, &h0));
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, MVGAL_BO_GPU_VALID, self->gpu, &h));
	fill(data, SIZE, 31);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, SIZE));
	ASSERT_LT(0, off = pool_offset(self->m, self->gpu, h));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->gpu, MVGAL_PLACE_FD_RDWR, &fd, &size));
	ASSERT_EQ(MAPPED, size);

	va = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, va);
	va2 = mmap(NULL, size - 4096, PROT_READ, MAP_SHARED, fd, 4096);
	ASSERT_NE(MAP_FAILED, va2);
	EXPECT_EQ(-1, check(va, SIZE, 31));
	EXPECT_EQ(0, memcmp(va + 4096, va2, SIZE - 4096));
	/* Past the buffer, in its last page: its own poison, no one else's. */
	for (size_t i = SIZE; i < size && bad < 0; i++)
		if (va[i] != MVGAL_BO_POISON)
			bad = i;
	EXPECT_EQ(-1, bad);

	/* Written through the export's mapping, from byte 999. */
	fill(data, SIZE - 999, 32);
	memcpy(va + 999, data, SIZE - 999);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 999, back, SIZE - 999));
	EXPECT_EQ(-1, check(back, SIZE - 999, 32));
	p = pool_bytes(self, off, SIZE, &base, &maplen);
	EXPECT_NE(NULL, p);
	if (p) {
		EXPECT_EQ(-1, check(p + 999, SIZE - 999, 32));
		munmap(base, maplen);
	}
	EXPECT_EQ(0, memcmp(va2, va + 4096, SIZE - 4096));

	/* The other stand-in's import: exactly the range. */
	EXPECT_EQ(0, drmPrimeFDToHandle(self->s[1].fd, fd, &ih));
	EXPECT_EQ(0, bo_info(self->s[1].fd, ih, &im));
	EXPECT_TRUE(im.flags & MVGAL_VRAM_INFO_MAPPED);
	EXPECT_EQ(MAPPED, im.size);
	EXPECT_EQ(0, bo_info(self->s[0].fd, self->pool, &self->pi));
	if (self->pi.domain == MVGAL_VRAM_DOMAIN_VRAM) {
		EXPECT_EQ(self->s[0].bar + self->pi.offset + off, im.dma_addr);
	} else {
		EXPECT_TRUE(im.dma_addr < self->s[0].bar ||
			    im.dma_addr >= self->s[0].bar + self->s[0].bar_size);
	}
	EXPECT_EQ(0, drmCloseBufferHandle(self->s[1].fd, ih));

	/* The mappings hold the export, which holds the placement. */
	close(fd);
	EXPECT_EQ(-1, check(va + 999, SIZE - 999, 32));
	munmap(va, size);
	munmap(va2, size - 4096);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h0);
}

/*
 * Drivers that will not share the buffer with their own device are
 * refused with -ENXIO (xe and i915 without peer-to-peer: their dumb
 * buffers cannot leave VRAM; NVIDIA: video memory cannot be mapped);
 * an xe buffer shared over peer-to-peer still has no kernel mapping:
 * -EOPNOTSUPP. nouveau moves it to system memory, pinned.
 */
TEST_F(devmem, each_drivers_rules_decide_the_pool)
{
	struct drm_mvgal_gpu_info gi;

	EXPECT_EQ(p2p_kernel() ? -EOPNOTSUPP : -ENXIO, lend(self, "xe"));
	EXPECT_EQ(-ENXIO, lend(self, "i915"));
	EXPECT_EQ(-ENXIO, lend(self, "nvidia"));
	ASSERT_EQ(0, lend(self, "nouveau"));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, gi.pool_memory);
	EXPECT_EQ(0, gi.pool_flags & MVGAL_POOL_MOVABLE);
	ASSERT_EQ(0, bo_info(self->s[0].fd, self->pool, &self->pi));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, self->pi.domain);
	EXPECT_EQ(1, self->pi.pin_count);
}

/*
 * By default (movable_pools off) mvgal pins a pool its driver could move:
 * an amdgpu-like driver then keeps it in system memory, pinned, as it
 * does for any importer that pins.
 */
TEST_F(devmem, by_default_a_movable_pool_is_pinned)
{
	struct drm_mvgal_gpu_info gi;

	ASSERT_EQ(0, write_movable("0"));
	ASSERT_EQ(0, lend(self, "amdgpu"));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, gi.pool_memory);
	EXPECT_EQ(0, gi.pool_flags & MVGAL_POOL_MOVABLE);
	ASSERT_EQ(0, bo_info(self->s[0].fd, self->pool, &self->pi));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, self->pi.domain);
	EXPECT_EQ(1, self->pi.pin_count);
	/* Pinned: eviction leaves it where it is. */
	ASSERT_EQ(0, evict(&self->s[0]));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	EXPECT_EQ(0, gi.pool_moves);
}

/*
 * The boot step's attach of a driver that refuses is one try, not a pool
 * halved until it is 64 MiB: the error says the driver would not share.
 */
TEST_F(devmem, the_boot_step_does_not_halve_a_refused_pool)
{
	char path[64];
	uint32_t g;

	ASSERT_EQ(0, set_mode(&self->s[0], "nvidia"));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", self->s[0].fd);
	EXPECT_EQ(-ENXIO, mvgal_gpu_attach_node(self->m, path, 0, MVGAL_GPU_ANY, &g));
}

TEST_HARNESS_MAIN
