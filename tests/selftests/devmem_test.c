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
 *
 * Not in the stand-in pass (run-selftests.sh): it is the stand-in's own.
 */
#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "caps.h"
#include "standin.h"
#include "../common/write_param.h"

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
	uint32_t pool;		/* the stand-in's handle of the pool, or 0 */
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

/*
 * Lends a POOL_MIB dumb buffer of stand-in 0 in @mode as the boot step
 * does: through a render node file, with no handle of the buffer left
 * once it is lent (the driver then tells importers of moves only through
 * the handle mvgal keeps). GPU_ATTACH's errno.
 */
static int lend(FIXTURE_DATA(devmem) *self, const char *mode)
{
	struct drm_mode_create_dumb d = {
		.width = 1024, .height = POOL_MIB * 256, .bpp = 32,
	};
	struct drm_gem_close c = { 0 };
	int pfd, node, ret;

	if (set_mode(&self->s[0], mode) ||
	    drmIoctl(self->s[0].fd, DRM_IOCTL_MODE_CREATE_DUMB, &d) ||
	    drmPrimeHandleToFD(self->s[0].fd, d.handle, DRM_CLOEXEC | DRM_RDWR, &pfd))
		return -EPROTO;
	c.handle = d.handle;
	node = render_open(&self->s[0]);
	if (drmIoctl(self->s[0].fd, DRM_IOCTL_GEM_CLOSE, &c) || node < 0) {
		close(pfd);
		return -EPROTO;
	}
	self->pool = 0;
	ret = mvgal_gpu_attach(self->m, node, pfd, MVGAL_GPU_ANY, &self->gpu);
	close(node);
	close(pfd);
	self->attached = !ret;
	return ret;
}

/*
 * The stand-in's handle of the lent buffer, to look at it as its driver
 * holds it (an import of mvgal's POOL_FD: the same object). A test that
 * checks that mvgal follows moves on its own takes it only after them.
 */
static int pool_handle(FIXTURE_DATA(devmem) *self)
{
	struct drm_mvgal_pool_fd p = { .gpu = self->gpu };
	int ret;

	if (self->pool)
		return 0;
	if (drmIoctl(mvgal_fd(self->m), DRM_IOCTL_MVGAL_POOL_FD, &p))
		return -errno;
	ret = drmPrimeFDToHandle(self->s[0].fd, p.fd, &self->pool);
	close(p.fd);
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

	if (pool_handle(self) || bo_info(self->s[0].fd, self->pool, &self->pi))
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
	ASSERT_EQ(0, pool_handle(self));
	ASSERT_EQ(0, bo_info(self->s[0].fd, self->pool, &self->pi));
	if (p2p_kernel()) {
		int fd;

		EXPECT_EQ(MVGAL_POOL_MEMORY_DEVICE, gi.pool_memory);
		EXPECT_EQ(MVGAL_POOL_PEER2PEER | MVGAL_POOL_MOVABLE, gi.pool_flags);
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, self->pi.domain);
		EXPECT_EQ(0, self->pi.pin_count);
		/* A movable pool exports no placement: a vmap would move. */
		EXPECT_EQ(-EOPNOTSUPP, mvgal_place_fd(self->m, h, self->gpu, 0, &fd, NULL));
		/* And says so in the capabilities, unless another GPU's
		 * pool can export.
		 */
		EXPECT_EQ(place_fd_cap(self->m), caps_now(self->m) & MVGAL_CAP_PLACE_FD);
		if (gpus_attached(self->m) == 1)
			EXPECT_EQ(0, caps_now(self->m) & MVGAL_CAP_PLACE_FD);
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
 * The pool lent, back in VRAM where its driver keeps it there (other
 * GPUs' import probes may have moved it; see above), mapped again by a
 * write through mvgal; GPU_INFO in *@gi.
 */
static int lend_settled(FIXTURE_DATA(devmem) *self,
			struct drm_mvgal_gpu_info *gi)
{
	static uint8_t data[SIZE];
	uint32_t h;
	int ret;

	ret = lend(self, "amdgpu");
	if (!ret)
		ret = validate(&self->s[0]);
	if (!ret)
		ret = mvgal_bo_create(self->m, SIZE, MVGAL_BO_GPU_VALID, self->gpu, &h);
	if (ret)
		return ret;
	fill(data, SIZE, 25);
	ret = mvgal_bo_write(self->m, h, 0, data, SIZE);
	mvgal_bo_destroy(self->m, h);
	return ret ? ret : mvgal_gpu_info(self->m, self->gpu, gi);
}

/*
 * GET_HEAP says where the pool's region is, as GPU_INFO does: device
 * memory behind the BAR (peer-to-peer, movable) where the kernel lets
 * the driver keep it in VRAM, system RAM elsewhere.
 */
TEST_F(devmem, the_heap_says_where_the_pool_is)
{
	struct drm_mvgal_heap_region r[MVGAL_MAX_GPUS + 1];
	struct drm_mvgal_gpu_info gi;
	uint32_t nr = MVGAL_MAX_GPUS + 1, i, found = 0;

	ASSERT_EQ(0, lend_settled(self, &gi));
	ASSERT_EQ(0, mvgal_get_heap(self->m, r, &nr, NULL, NULL));
	ASSERT_GE(MVGAL_MAX_GPUS + 1, nr);
	EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, r[0].memory);
	EXPECT_EQ(0, r[0].pool_flags);
	for (i = 1; i < nr; i++) {
		if (r[i].gpu != self->gpu)
			continue;
		found++;
		EXPECT_EQ(MVGAL_REGION_POOL, r[i].kind);
		EXPECT_EQ(gi.pool_memory, r[i].memory);
		EXPECT_EQ(gi.pool_flags, r[i].pool_flags);
		if (p2p_kernel()) {
			EXPECT_EQ(MVGAL_POOL_MEMORY_DEVICE, r[i].memory);
			EXPECT_EQ(MVGAL_POOL_PEER2PEER | MVGAL_POOL_MOVABLE,
				  r[i].pool_flags);
		} else {
			EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, r[i].memory);
		}
	}
	EXPECT_EQ(1, found);
}

/*
 * The path selector on the stand-in's pool, as GET_PATH reports it.
 * Before a calibration, data in a pool in device memory goes to the host
 * through a bounce buffer (STAGING: the BAR is read once, in streaming
 * loads, not with plain loads by the copy itself), and the reason is the
 * I/O-memory source; a pool in system RAM is copied directly. After
 * CALIBRATE both directions have figures for every possible method, and
 * the costs decide. Nothing here depends on what the figures are.
 */
TEST_F(devmem, the_selector_stages_reads_of_the_bar_until_calibrated)
{
	const uint32_t cpu = 1U << MVGAL_METHOD_CPU_COPY | 1U << MVGAL_METHOD_STAGING;
	struct drm_mvgal_gpu_info gi;
	struct drm_mvgal_path to, from;
	uint32_t paths = 0, pool;
	bool device;

	ASSERT_EQ(0, write_param("/sys/module/mvgal/parameters/force_method", "-1"));
	ASSERT_EQ(0, lend_settled(self, &gi));
	pool = 1 + self->gpu;
	device = gi.pool_memory == MVGAL_POOL_MEMORY_DEVICE;
	if (p2p_kernel()) {
		ASSERT_TRUE(device);
	} else {
		ASSERT_EQ(MVGAL_POOL_MEMORY_SYSTEM, gi.pool_memory);
	}

	/* A GPU just attached: its paths are not measured yet. */
	ASSERT_EQ(0, mvgal_get_path(self->m, pool, MVGAL_LOC_HOST, 4 << 20, &from));
	ASSERT_EQ(0, mvgal_get_path(self->m, MVGAL_LOC_HOST, pool, 4 << 20, &to));
	EXPECT_EQ(cpu, from.methods);
	EXPECT_EQ(cpu, to.methods);
	EXPECT_EQ(0, from.forced);
	EXPECT_EQ(0, from.measured);
	EXPECT_EQ(0, to.measured);
	for (int m = 0; m < MVGAL_METHOD_COUNT; m++) {
		EXPECT_EQ(0, from.bandwidth[m]);
		EXPECT_EQ(0, to.bandwidth[m]);
	}
	EXPECT_EQ(device ? MVGAL_METHOD_STAGING : MVGAL_METHOD_CPU_COPY, from.chosen);
	EXPECT_EQ(device ? MVGAL_WHY_IOMEM_SOURCE : MVGAL_WHY_CPU_DIRECT, from.why);
	/* Writes to a BAR stream: the host's pages are read directly. */
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, to.chosen);
	EXPECT_EQ(MVGAL_WHY_CPU_DIRECT, to.why);

	ASSERT_EQ(0, mvgal_calibrate(self->m, &paths));
	EXPECT_LE(2, paths);
	ASSERT_EQ(0, mvgal_get_path(self->m, pool, MVGAL_LOC_HOST, 4 << 20, &from));
	ASSERT_EQ(0, mvgal_get_path(self->m, MVGAL_LOC_HOST, pool, 4 << 20, &to));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	/* Still where it was: the figures are of the same memory. */
	EXPECT_EQ(device, gi.pool_memory == MVGAL_POOL_MEMORY_DEVICE);
	for (int m = 0; m < MVGAL_METHOD_COUNT; m++) {
		if (!(cpu & (1U << m)))
			continue;
		EXPECT_LT(0, from.bandwidth[m]) TH_LOG("pool -> host, method %d", m);
		EXPECT_LT(0, to.bandwidth[m]) TH_LOG("host -> pool, method %d", m);
		EXPECT_NE(~0ULL, from.cost_ns[m]);
		EXPECT_NE(~0ULL, to.cost_ns[m]);
	}
	EXPECT_NE(0, from.calibrated_ns);
	EXPECT_EQ(1, from.measured);
	EXPECT_EQ(1, to.measured);
	EXPECT_TRUE(cpu & (1U << from.chosen));
	EXPECT_TRUE(cpu & (1U << to.chosen));
	/* The choice is the cheapest figure reported. */
	EXPECT_GE(from.cost_ns[MVGAL_METHOD_CPU_COPY + MVGAL_METHOD_STAGING - from.chosen],
		  from.cost_ns[from.chosen]);
	EXPECT_GE(to.cost_ns[MVGAL_METHOD_CPU_COPY + MVGAL_METHOD_STAGING - to.chosen],
		  to.cost_ns[to.chosen]);
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
	uint64_t moves0;
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
	if (p2p_kernel()) {
		ASSERT_EQ(MVGAL_POOL_MEMORY_DEVICE, gi.pool_memory);
	}
	/*
	 * No handle of the buffer but mvgal's: the driver tells mvgal of
	 * the move only through it.
	 */
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
		/*
		 * Out to system memory, and back into VRAM by mvgal's next
		 * map (which asked for that move: mvgal counts the eviction).
		 */
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_VRAM, self->pi.domain);
		EXPECT_EQ(MVGAL_POOL_MEMORY_DEVICE, gi.pool_memory);
		EXPECT_LE(moves0 + 1, gi.pool_moves);
	} else {
		EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, self->pi.domain);
		EXPECT_EQ(moves0, gi.pool_moves);
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
	ASSERT_EQ(0, pool_handle(self));
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
	ASSERT_EQ(0, pool_handle(self));
	ASSERT_EQ(0, bo_info(self->s[0].fd, self->pool, &self->pi));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, self->pi.domain);
	EXPECT_EQ(1, self->pi.pin_count);
	/* Pinned: eviction leaves it where it is. */
	ASSERT_EQ(0, evict(&self->s[0]));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	EXPECT_EQ(0, gi.pool_moves);
}

/* The stand-in module's references: open files, dma-bufs, imports. */
static int vram_refs(void)
{
	FILE *f = fopen("/sys/module/mvgal_vram/refcnt", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/*
 * A pool that follows its driver's moves keeps a handle of the buffer in
 * the file the attach was given, open until the detach, which gives both
 * up: the driver's module is then held by nothing of mvgal's.
 */
TEST_F(devmem, a_followed_pool_holds_its_file_until_the_detach)
{
	struct drm_mvgal_gpu_info gi;
	int refs = vram_refs();

	ASSERT_LE(0, refs);
	ASSERT_EQ(0, lend(self, "amdgpu"));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	if (p2p_kernel()) {
		EXPECT_EQ(MVGAL_POOL_MOVABLE, gi.pool_flags & MVGAL_POOL_MOVABLE);
	} else {
		EXPECT_EQ(0, gi.pool_flags & MVGAL_POOL_MOVABLE);
	}
	/* The dma-buf at least; with a kept file, that too. */
	EXPECT_LE(refs + (p2p_kernel() ? 2 : 1), vram_refs());
	ASSERT_EQ(0, mvgal_gpu_detach(self->m, self->gpu));
	self->attached = false;
	EXPECT_EQ(refs, vram_refs());
}

/*
 * mvgal never keeps a DRM master's file open (the display server could
 * not become master): given one, it pins the pool instead of following.
 */
TEST_F(devmem, a_masters_file_is_not_kept)
{
	struct drm_mode_create_dumb d = {
		.width = 1024, .height = POOL_MIB * 256, .bpp = 32,
	};
	struct drm_mvgal_gpu_info gi;
	int pfd;

	if (!p2p_kernel())
		SKIP(return, "pools are pinned anyway without CONFIG_DMABUF_MOVE_NOTIFY");
	if (!drmIsMaster(self->s[0].fd))
		SKIP(return, "the stand-in's card node has another master");
	ASSERT_EQ(0, set_mode(&self->s[0], "amdgpu"));
	ASSERT_EQ(0, drmIoctl(self->s[0].fd, DRM_IOCTL_MODE_CREATE_DUMB, &d));
	self->pool = d.handle;
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[0].fd, d.handle, DRM_CLOEXEC | DRM_RDWR, &pfd));
	ASSERT_EQ(0, mvgal_gpu_attach(self->m, self->s[0].fd, pfd, MVGAL_GPU_ANY,
				      &self->gpu));
	close(pfd);
	self->attached = true;
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->gpu, &gi));
	EXPECT_EQ(0, gi.pool_flags & MVGAL_POOL_MOVABLE);
	EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, gi.pool_memory);
	ASSERT_EQ(0, bo_info(self->s[0].fd, self->pool, &self->pi));
	EXPECT_EQ(1, self->pi.pin_count);
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

/* Host pages and GPU copies; MVGAL_BO_GPU_VALID alone is device-only. */
#define HG (MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID)

/* The stand-in's import of @fd: its handle and where the buffer is. */
static int import_info(FIXTURE_DATA(devmem) *self, int i, int fd,
		       uint32_t *h, struct drm_mvgal_vram_bo_info *bi)
{
	int ret = drmPrimeFDToHandle(self->s[i].fd, fd, h);

	return ret ? -errno : bo_info(self->s[i].fd, *h, bi);
}

/* BEGIN of all of @h on the lent GPU with @flags; settled, or -errno. */
static int begin_all(FIXTURE_DATA(devmem) *self, uint32_t h, uint32_t flags,
		     struct drm_mvgal_access *a, uint32_t *session)
{
	int fence = -1, ret;

	*a = (struct drm_mvgal_access){ .handle = h };
	ret = mvgal_begin(self->m, self->gpu, flags, MVGAL_PRIO_NORMAL, -1, a, 1,
			  session, &fence, NULL);
	if (ret)
		return ret;
	ret = fence < 0 ? 0 : mvgal_fence_wait(fence, 20000);
	if (fence >= 0)
		close(fence);
	return ret;
}

/*
 * A buffer of the stand-in's own lent as a placement (PLACE_ADOPT, here a
 * dumb buffer made for it by libmvgal): the driver's import of its fd is
 * its own object again, which is what the application's GPU API gets,
 * where an import of a placement export of a range of mvgal's pool is
 * foreign memory to it. A session fills the lent buffer (read through
 * the driver's own mapping, not mvgal), what is written there in a WRITE
 * session is the buffer's after END, a placement export of it is its
 * range, and PLACE_FREE brings the chunks home, leaving the lender its
 * buffer with the bytes, no longer attached by mvgal.
 */
TEST_F(devmem, an_adopted_placement_is_the_drivers_own_buffer)
{
	static uint8_t data[SIZE], back[SIZE];
	struct drm_mvgal_vram_bo_info bi, xi;
	struct drm_mvgal_range r = { .offset = 999, .size = SIZE - 999 };
	struct drm_mvgal_access a, w = {
		.handle = 0, .nr_ranges = 1, .ranges = (uintptr_t)&r,
	};
	struct drm_mvgal_bo_info info;
	uint32_t h, h2, sh, xh, session;
	uint64_t size;
	int afd, xfd;
	uint8_t *p, bad = 0;

	ASSERT_EQ(0, write_movable("0"));
	ASSERT_EQ(0, lend(self, "amdgpu"));
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, HG, MVGAL_GPU_ANY, &h));
	fill(data, SIZE, 41);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, SIZE));
	ASSERT_EQ(0, mvgal_place_adopt_dumb(self->m, h, self->gpu, self->s[0].fd, &afd));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(MAPPED, info.resident[1 + self->gpu]);

	/* Its driver's own object, pinned (the pool is) where it pins. */
	ASSERT_EQ(0, import_info(self, 0, afd, &sh, &bi));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, bi.domain);
	EXPECT_EQ(1, bi.pin_count);
	EXPECT_EQ(MAPPED, bi.size);
	/* A placement export of mvgal's pool: an import of foreign memory. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, HG, MVGAL_GPU_ANY, &h2));
	ASSERT_EQ(0, mvgal_place_fd(self->m, h2, self->gpu, 0, &xfd, &size));
	ASSERT_EQ(0, import_info(self, 0, xfd, &xh, &xi));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_IMPORT, xi.domain);
	EXPECT_EQ(0, drmCloseBufferHandle(self->s[0].fd, xh));
	close(xfd);

	/* A session fills it: BEGIN says so; the driver's mapping shows it. */
	ASSERT_EQ(0, begin_all(self, h, MVGAL_ACCESS_READ, &a, &session));
	EXPECT_EQ(self->gpu | MVGAL_POOL_ADOPTED, a.pool_gpu);
	EXPECT_EQ(0, a.pool_offset);
	ASSERT_EQ(0, mvgal_end(self->m, session, -1, NULL, 0));
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, sh, MAPPED));
	EXPECT_EQ(-1, check(p, SIZE, 41));

	/* The "GPU" writes its own memory from byte 999; END hands it over. */
	ASSERT_EQ(0, begin_all(self, h, MVGAL_ACCESS_WRITE | MVGAL_ACCESS_NO_IN_PLACE,
			       &a, &session));
	fill(p + 999, SIZE - 999, 42);
	w.handle = h;
	ASSERT_EQ(0, mvgal_end(self->m, session, -1, &w, 1));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 999, back, SIZE - 999));
	EXPECT_EQ(-1, check(back, SIZE - 999, 42));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, 999));
	EXPECT_EQ(-1, check(back, 999, 41));

	/* A placement export of it is exactly its range. */
	ASSERT_EQ(0, mvgal_place_fd(self->m, h, self->gpu, 0, &xfd, &size));
	EXPECT_EQ(MAPPED, size);
	ASSERT_EQ(0, import_info(self, 1, xfd, &xh, &xi));
	EXPECT_TRUE(xi.flags & MVGAL_VRAM_INFO_MAPPED);
	EXPECT_EQ(MAPPED, xi.size);
	EXPECT_EQ(-EBUSY, mvgal_place_free(self->m, h, self->gpu));
	EXPECT_EQ(0, drmCloseBufferHandle(self->s[1].fd, xh));
	close(xfd);

	/* Freed: the bytes come home, the lender keeps its buffer and them. */
	ASSERT_EQ(0, mvgal_place_free(self->m, h, self->gpu));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.resident[1 + self->gpu]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 999, back, SIZE - 999));
	EXPECT_EQ(-1, check(back, SIZE - 999, 42));
	EXPECT_EQ(-1, check(p + 999, SIZE - 999, 42));
	ASSERT_EQ(0, bo_info(self->s[0].fd, sh, &bi));
	EXPECT_EQ(0, bi.pin_count);
	/*
	 * Lent again, it is the buffer's placement again, cleared as a new
	 * placement is: what the lender had there is not the buffer's.
	 */
	EXPECT_EQ(0, mvgal_place_adopt(self->m, h, self->gpu, afd));
	for (size_t i = 0; i < MAPPED && !bad; i++)
		bad = p[i];
	EXPECT_EQ(0, bad);
	munmap(p, MAPPED);
	close(afd);
	mvgal_bo_destroy(self->m, h2);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A lent buffer is pinned where its driver pins for importers (the
 * stand-in in its amdgpu mode: system memory, as amdgpu 6.12 pins into
 * GTT), also where the GPU's pool follows its driver's moves (the debug
 * kernel with movable_pools set): the driver's eviction leaves it, and
 * its bytes stay where the driver's own mapping shows them.
 */
TEST_F(devmem, an_adopted_placement_is_pinned_where_its_driver_pins)
{
	static uint8_t data[SIZE];
	struct drm_mvgal_vram_bo_info bi;
	struct drm_mvgal_access a;
	uint32_t h, sh, session, moves0;
	uint8_t *p;
	int afd;

	ASSERT_EQ(0, lend(self, "amdgpu"));
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, HG, MVGAL_GPU_ANY, &h));
	fill(data, SIZE, 43);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, SIZE));
	ASSERT_EQ(0, mvgal_place_adopt_dumb(self->m, h, self->gpu, self->s[0].fd, &afd));
	ASSERT_EQ(0, import_info(self, 0, afd, &sh, &bi));
	EXPECT_EQ(MVGAL_VRAM_DOMAIN_SYSTEM, bi.domain);
	EXPECT_EQ(1, bi.pin_count);
	ASSERT_EQ(0, begin_all(self, h, MVGAL_ACCESS_READ, &a, &session));
	ASSERT_EQ(0, mvgal_end(self->m, session, -1, NULL, 0));
	moves0 = bi.moves;
	ASSERT_EQ(0, evict(&self->s[0]));
	ASSERT_EQ(0, bo_info(self->s[0].fd, sh, &bi));
	EXPECT_EQ(moves0, bi.moves);
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, sh, MAPPED));
	EXPECT_EQ(-1, check(p, SIZE, 43));
	munmap(p, MAPPED);
	close(afd);
	mvgal_bo_destroy(self->m, h);
}

/*
 * PLACE_ADOPT takes only a buffer of the GPU's own driver for that GPU,
 * exactly the buffer's pages, once, for a writable GPU_VALID buffer of
 * that GPU that has no placement there; every refusal changes nothing.
 */
TEST_F(devmem, adopt_rejections)
{
	struct drm_mvgal_place_adopt pa;
	struct drm_mvgal_gpu_info gi;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_pool_fd pf;
	uint32_t h, big, plain, donly, sh = 0, oh = 0, s2h = 0, ro;
	int afd, ofd, sfd, s2fd, closed, rofd;
	struct mvgal *other;
	uint8_t *p;

	ASSERT_EQ(0, write_movable("0"));
	ASSERT_EQ(0, lend(self, "amdgpu"));
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, HG, MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, bo_create(&self->s[0], MAPPED, 0, &sh));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[0].fd, sh, DRM_CLOEXEC | DRM_RDWR, &afd));
	ASSERT_EQ(0, bo_create(&self->s[1], MAPPED, 0, &oh));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[1].fd, oh, DRM_CLOEXEC | DRM_RDWR, &ofd));
	ASSERT_EQ(0, bo_create(&self->s[0], MAPPED + 4096, 0, &oh));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[0].fd, oh, DRM_CLOEXEC | DRM_RDWR, &sfd));
	ASSERT_EQ(0, bo_create(&self->s[0], MAPPED, 0, &s2h));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->s[0].fd, s2h, DRM_CLOEXEC | DRM_RDWR, &s2fd));
	closed = dup(afd);
	close(closed);

	pa = (struct drm_mvgal_place_adopt){ .handle = h, .gpu = self->gpu, .fd = afd, .flags = 1 };
	EXPECT_EQ(-1, drmIoctl(mvgal_fd(self->m), DRM_IOCTL_MVGAL_PLACE_ADOPT, &pa));
	EXPECT_EQ(EINVAL, errno);
	pa.flags = 0;
	pa.pad = 1;
	EXPECT_EQ(-1, drmIoctl(mvgal_fd(self->m), DRM_IOCTL_MVGAL_PLACE_ADOPT, &pa));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, mvgal_place_adopt(self->m, h, MVGAL_MAX_GPUS, afd));
	ASSERT_EQ(-ENODEV, mvgal_gpu_info(self->m, MVGAL_MAX_GPUS - 1, &gi));
	EXPECT_EQ(-ENODEV, mvgal_place_adopt(self->m, h, MVGAL_MAX_GPUS - 1, afd));
	EXPECT_EQ(-ENOENT, mvgal_place_adopt(self->m, h + 1000, self->gpu, afd));
	EXPECT_EQ(-EBADF, mvgal_place_adopt(self->m, h, self->gpu, closed));
	EXPECT_EQ(-EINVAL, mvgal_place_adopt(self->m, h, self->gpu, self->s[0].fd));
	EXPECT_EQ(-EINVAL, mvgal_place_adopt(self->m, h, self->gpu, sfd));	/* a page more */
	EXPECT_EQ(-EINVAL, mvgal_place_adopt(self->m, h, self->gpu, ofd));	/* another GPU's */
	/* Not for GPUs, or device-only: nothing to lend for. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, MVGAL_BO_HOST_VALID, MVGAL_GPU_ANY, &plain));
	EXPECT_EQ(-EPERM, mvgal_place_adopt(self->m, plain, self->gpu, afd));
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, MVGAL_BO_GPU_VALID,
				     self->gpu, &donly));
	EXPECT_EQ(-EINVAL, mvgal_place_adopt(self->m, donly, self->gpu, afd));
	/* A read-only handle may not have its copy written by a GPU. */
	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, SIZE, HG | MVGAL_BO_DMA_BUF,
					    MVGAL_GPU_ANY, MVGAL_SHARING_CROSS_VENDOR, &big));
	ASSERT_EQ(0, drmPrimeHandleToFD(mvgal_fd(self->m), big, O_CLOEXEC, &rofd));
	ASSERT_EQ(0, mvgal_open(&other));
	ASSERT_EQ(0, mvgal_bo_import(other, rofd, &ro));
	close(rofd);
	EXPECT_EQ(-EACCES, mvgal_place_adopt(other, ro, self->gpu, afd));
	mvgal_close(other);
	mvgal_bo_destroy(self->m, big);
	/* Nothing of those changed the buffer. */
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.resident[1 + self->gpu]);

	/* Once: a second placement, or the same buffer lent twice. */
	ASSERT_EQ(0, mvgal_place_adopt(self->m, h, self->gpu, afd));
	/* The lender's bytes of a refused buffer stay as they were. */
	ASSERT_NE(NULL, p = bo_map(self->s[0].fd, s2h, MAPPED));
	fill(p, MAPPED, 45);
	EXPECT_EQ(-EEXIST, mvgal_place_adopt(self->m, h, self->gpu, s2fd));
	EXPECT_EQ(-1, check(p, MAPPED, 45));
	munmap(p, MAPPED);
	ASSERT_EQ(0, mvgal_bo_create(self->m, SIZE, HG, MVGAL_GPU_ANY, &plain));
	EXPECT_EQ(-EBUSY, mvgal_place_adopt(self->m, plain, self->gpu, afd));
	/* The GPU's pool itself, which holds every buffer's bytes. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, (uint64_t)POOL_MIB << 20, HG,
				     MVGAL_GPU_ANY, &big));
	pf = (struct drm_mvgal_pool_fd){ .gpu = self->gpu };
	ASSERT_EQ(0, drmIoctl(mvgal_fd(self->m), DRM_IOCTL_MVGAL_POOL_FD, &pf));
	EXPECT_EQ(-EBUSY, mvgal_place_adopt(self->m, big, self->gpu, pf.fd));
	close(pf.fd);
	ASSERT_EQ(0, mvgal_bo_info(self->m, big, &info));
	EXPECT_EQ(0, info.resident[1 + self->gpu]);
	close(afd);
	close(ofd);
	close(sfd);
	close(s2fd);
}

TEST_HARNESS_MAIN
