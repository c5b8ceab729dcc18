/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the coherence selftests (sessions, write-watch): byte
 * patterns, buffers, pool mappings, one-buffer sessions, vgem fences.
 * Include after kselftest_harness.h and helpers.h.
 */
#ifndef MVGAL_SELFTEST_COHERENCE_H
#define MVGAL_SELFTEST_COHERENCE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "../common/vgem_fence.h"
#include "../common/write_param.h"

#define CH (64 * 1024)
#define POOL_BYTES ((size_t)POOL_MB << 20)
#define FORCE "/sys/module/mvgal/parameters/force_method"
#define MIGRATION "/sys/module/mvgal/parameters/enable_memory_migration"

static inline uint8_t pat(uint64_t i, unsigned int s)
{
	return (uint8_t)((i * 151 + s * 13 + (i >> 11)) ^ 0xa5);
}

static inline void fill(uint8_t *p, uint64_t n, unsigned int s)
{
	for (uint64_t i = 0; i < n; i++)
		p[i] = pat(i, s);
}

/* First index where @p differs from pattern @s at offset @off, or -1. */
static inline long check(const uint8_t *p, uint64_t n, uint64_t off, unsigned int s)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i] != pat(off + i, s))
			return (long)i;
	return -1;
}

/* Writes pattern @s over the whole buffer with BO_PWRITE. */
static inline int bo_fill(struct mvgal *m, uint32_t h, uint64_t size,
			  unsigned int s)
{
	uint8_t *buf = malloc(size);
	int ret;

	if (!buf)
		return -ENOMEM;
	fill(buf, size, s);
	ret = mvgal_bo_write(m, h, 0, buf, size);
	free(buf);
	return ret;
}

/* First byte of the buffer (read with BO_PREAD) not of pattern @s, or -1. */
static inline long bo_check(struct mvgal *m, uint32_t h, uint64_t size,
			    unsigned int s)
{
	uint8_t *buf = malloc(size);
	long bad;

	if (!buf || mvgal_bo_read(m, h, 0, buf, size)) {
		free(buf);
		return -2;
	}
	bad = check(buf, size, 0, s);
	free(buf);
	return bad;
}

/* A buffer with host storage that any GPU may use. */
static inline int host_bo(struct mvgal *m, uint64_t size, uint32_t *h)
{
	return mvgal_bo_create(m, size, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			       MVGAL_GPU_ANY, h);
}

/*
 * The stand-in pass (helpers.h): the stand-in's pool, dma-buf @dmabuf,
 * through the stand-in (its BAR, or its mapping of the pages where its
 * driver pinned the pool in system memory). NULL unless pinned: a pool
 * that may move would leave the mapping behind.
 */
static inline uint8_t *map_standin_pool(int dmabuf)
{
	struct standin s;
	uint32_t where;
	int pinned = 0;
	uint8_t *p;

	if (standin_get(&s))
		return NULL;
	p = standin_map_dmabuf(&s, dmabuf, POOL_BYTES, &where, &pinned);
	close(s.fd);
	if (p && !pinned) {
		fprintf(stderr, "# the stand-in's pool is not pinned (movable_pools?)\n");
		munmap(p, POOL_BYTES);
		p = NULL;
	}
	return p;
}

/*
 * A mapping of GPU @gpu's whole pool, through its own driver (the pool's
 * dma-buf, or for the stand-in, see above): not through mvgal.
 */
static inline uint8_t *map_pool(int fd, uint32_t gpu)
{
	struct drm_mvgal_pool_fd p = { .gpu = gpu };
	struct drm_mvgal_gpu_info gi = { .gpu = gpu };
	void *va;

	if (drmIoctl(fd, DRM_IOCTL_MVGAL_POOL_FD, &p))
		return NULL;
	if (standin_role() >= 0 && !drmIoctl(fd, DRM_IOCTL_MVGAL_GPU_INFO, &gi) &&
	    !strcmp(gi.driver, "mvgal_vram")) {
		va = map_standin_pool(p.fd);
	} else {
		va = mmap(NULL, POOL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, p.fd, 0);
		if (va == MAP_FAILED)
			va = NULL;
	}
	close(p.fd);
	return va;
}

static inline int begin1(struct mvgal *m, uint32_t gpu, uint32_t flags, uint32_t h,
		  uint64_t off, uint64_t size, struct drm_mvgal_access *a,
		  uint32_t *session, int *fence, uint64_t *copied)
{
	static struct drm_mvgal_range r;

	r.offset = off;
	r.size = size;
	*a = (struct drm_mvgal_access) {
		.handle = h, .nr_ranges = size ? 1 : 0,
		.ranges = (uintptr_t)&r,
	};
	return mvgal_begin(m, gpu, flags, MVGAL_PRIO_NORMAL, -1, a, 1, session,
			   fence, copied);
}

/* Waits for a BEGIN fence (-1: nothing to wait for) and closes it. */
static inline int settle(int fence)
{
	int ret;

	if (fence < 0)
		return 0;
	ret = mvgal_fence_wait(fence, 20000);
	close(fence);
	return ret;
}

static inline int end_written(struct mvgal *m, uint32_t session, uint32_t h,
		       uint64_t off, uint64_t size, int fence)
{
	struct drm_mvgal_range r = { .offset = off, .size = size };
	struct drm_mvgal_access w = {
		.handle = h, .nr_ranges = 1, .ranges = (uintptr_t)&r,
	};

	return mvgal_end(m, session, fence, &w, 1);
}

/* Where @h's copy in GPU @g's pool is, through a READ session. */
static inline long long pool_offset(struct __test_metadata *_metadata,
			     struct mvgal *m, uint32_t g, uint32_t h,
			     uint64_t size, uint64_t *copied)
{
	struct drm_mvgal_access a;
	uint32_t sess;
	int fence;

	if (begin1(m, g, MVGAL_ACCESS_READ, h, 0, size, &a, &sess, &fence,
		   copied))
		return -1;
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, mvgal_end(m, sess, -1, NULL, 0));
	EXPECT_EQ(g, a.pool_gpu);
	return a.pool_offset;
}

/* A vgem fence the test signals: its sync_file and its vgem id. */
static inline int vfence_new(struct vfence *f)
{
	return vgem_fence_new(f, open_card("vgem", NULL, 0));
}

/* Does a line of `mvgal-info --buffers` contain @want? */
static inline bool info_shows(const char *want)
{
	char line[512];
	bool found = false;
	FILE *f = popen("mvgal-info --buffers", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, want) != NULL;
	pclose(f);
	return found;
}

/*
 * The fixture of the coherence tests: the device, its fd, two virtio-gpu
 * GPUs (NUMA nodes 0 and 1) and vgem, and a mapping of every GPU's pool.
 */
#define COH_FIELDS \
	struct mvgal *m; \
	int fd; \
	int g0, g1, vg;	/* virtio node 0, virtio node 1, vgem */ \
	uint8_t *pool[MVGAL_MAX_GPUS]

#define COH_SETUP(self) \
	coh_setup(_metadata, &(self)->m, &(self)->fd, &(self)->g0, \
		  &(self)->g1, &(self)->vg, (self)->pool)

/*
 * The DMA pass (run-selftests.sh): the test bed's DMA engine is loaded.
 * A calibration finds it; then every pair it serves is priced as the
 * cheapest copy, so the selector has it make every copy the tests cause
 * while in place still wins where a driver imports (forcing the method
 * would pass in place by too).
 */
#define DMA_ENV "MVGAL_TEST_DMA"

static inline void dma_pass_prices(struct __test_metadata *_metadata,
				   struct mvgal *m)
{
	struct drm_mvgal_path h;
	bool unchecked = false;
	char line[96];

	/*
	 * A calibration finds the engine and checks its copy on each pair
	 * (the engine is used on checked pairs only): when a GPU is new.
	 */
	for (unsigned int i = 0; i < MVGAL_MAX_GPUS; i++)
		if (!mvgal_get_path(m, MVGAL_LOC_HOST, 1 + i, 1 << 20, &h))
			unchecked |= !(h.methods & (1U << MVGAL_METHOD_P2P));
	if (unchecked)
		ASSERT_EQ(0, mvgal_calibrate(m, NULL));
	for (unsigned int s = 0; s <= MVGAL_MAX_GPUS; s++) {
		for (unsigned int d = 0; d <= MVGAL_MAX_GPUS; d++) {
			struct drm_mvgal_path p;

			if (s == d || mvgal_get_path(m, s, d, 1 << 20, &p) ||
			    !(p.methods & (1U << MVGAL_METHOD_P2P)))
				continue;
			snprintf(line, sizeof(line), "%u %u %u 1 1000000000000",
				 s, d, MVGAL_METHOD_P2P);
			ASSERT_EQ(0, write_param("/sys/kernel/debug/mvgal/path_cal",
						 line));
		}
	}
}

static inline void coh_setup(struct __test_metadata *_metadata,
			     struct mvgal **m, int *fd, int *g0, int *g1,
			     int *vg, uint8_t **pool)
{
	ASSERT_EQ(0, mvgal_open(m));
	*fd = mvgal_fd(*m);
	reset_state(_metadata, *m);
	ASSERT_EQ(0, write_param(FORCE, "-1"));
	if (getenv(DMA_ENV))
		dma_pass_prices(_metadata, *m);
	ASSERT_EQ(0, write_param(MIGRATION, "Y"));
	*g0 = find_gpu(*m, "virtio_gpu", 0);
	*g1 = find_gpu(*m, "virtio_gpu", 1);
	*vg = find_gpu(*m, "vgem", ~1U);
	ASSERT_GE(*g0, 0);
	ASSERT_GE(*g1, 0);
	ASSERT_GE(*vg, 0);
	for (int g = 0; g < MVGAL_MAX_GPUS; g++) {
		struct drm_mvgal_gpu_info gi;

		if (mvgal_gpu_info(*m, g, &gi))
			continue;
		pool[g] = map_pool(*fd, g);
		ASSERT_NE(NULL, pool[g]) TH_LOG("pool of GPU %d", g);
	}
}

static inline void coh_teardown(struct mvgal *m, uint8_t **pool)
{
	write_param(FORCE, "-1");
	write_param(MIGRATION, "Y");
	for (int g = 0; g < MVGAL_MAX_GPUS; g++)
		if (pool[g])
			munmap(pool[g], POOL_BYTES);
	mvgal_close(m);
}

#endif /* MVGAL_SELFTEST_COHERENCE_H */
