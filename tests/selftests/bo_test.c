// SPDX-License-Identifier: GPL-2.0
/*
 * Unified buffers: creation flags, host and device-only storage, CPU
 * mappings, ranged copies and statistics. Every data check writes a
 * pattern through one path and reads it back through another.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define PG 4096

/* Byte i of the pattern with seed s. */
static uint8_t pat(uint64_t i, unsigned int s)
{
	return (uint8_t)((i * 131 + s * 7 + (i >> 9)) ^ 0x5c);
}

static void fill(uint8_t *p, uint64_t n, unsigned int s)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = pat(i, s);
}

static bool all_bytes(const uint8_t *p, uint64_t n, uint8_t v)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

FIXTURE(bo) {
	struct mvgal *m;
	int fd;
	int g1;		/* virtio-gpu on NUMA node 1 */
	int g0;		/* virtio-gpu on NUMA node 0 */
};

FIXTURE_SETUP(bo)
{
	ASSERT_EQ(0, mvgal_open(&self->m));
	self->fd = mvgal_fd(self->m);
	reset_state(_metadata, self->m);
	self->g1 = find_gpu(self->m, "virtio_gpu", 1);
	self->g0 = find_gpu(self->m, "virtio_gpu", 0);
	ASSERT_GE(self->g1, 0);
	ASSERT_GE(self->g0, 0);
}

FIXTURE_TEARDOWN(bo)
{
	mvgal_close(self->m);
}

static uint64_t host_held(struct mvgal *m)
{
	struct drm_mvgal_heap_region r[MVGAL_MAX_GPUS + 1];
	uint32_t nr = MVGAL_MAX_GPUS + 1;

	if (mvgal_get_heap(m, r, &nr, NULL, NULL))
		return ~0ULL;
	return r[0].held;
}

/* A rejected create writes nothing back and holds no memory. */
static void expect_create_fails(struct __test_metadata *_metadata,
				struct mvgal *m, struct drm_mvgal_bo_create c,
				int err)
{
	struct drm_mvgal_bo_create before = c;
	uint64_t held = host_held(m);

	errno = 0;
	EXPECT_EQ(-1, ioctl(mvgal_fd(m), DRM_IOCTL_MVGAL_BO_CREATE, &c));
	EXPECT_EQ(err, errno);
	EXPECT_EQ(0, memcmp(&c, &before, sizeof(c)));
	EXPECT_EQ(held, host_held(m));
}

#define HV MVGAL_BO_HOST_VALID
#define GV MVGAL_BO_GPU_VALID

TEST_F(bo, create_rejects_bad_sizes)
{
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = 0, .flags = HV, .gpu = MVGAL_GPU_ANY }, EINVAL);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = MVGAL_BO_MAX_SIZE + 1, .flags = HV, .gpu = MVGAL_GPU_ANY },
		EINVAL);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = ~0ULL, .flags = HV, .gpu = MVGAL_GPU_ANY }, EINVAL);
}

TEST_F(bo, create_rejects_bad_flags)
{
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = HV | (1U << 11), .gpu = MVGAL_GPU_ANY }, EINVAL);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = HV | (1U << 31), .gpu = MVGAL_GPU_ANY }, EINVAL);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = HV | MVGAL_BO_CPU_CACHED | MVGAL_BO_CPU_UNCACHED,
		.gpu = MVGAL_GPU_ANY }, EINVAL);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = MVGAL_BO_DMA_BUF, .gpu = MVGAL_GPU_ANY }, EINVAL);
	/* Device-only: needs a GPU, and CPU attributes make no sense. */
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = GV, .gpu = MVGAL_GPU_ANY }, EINVAL);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = GV | MVGAL_BO_LAZY_ALLOCATE, .gpu = self->g1 },
		EINVAL);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = GV | MVGAL_BO_CPU_UNCACHED, .gpu = self->g1 },
		EINVAL);
}

TEST_F(bo, create_rejects_bad_gpu_and_sharing)
{
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = HV, .gpu = MVGAL_MAX_GPUS }, EINVAL);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = HV, .gpu = 7 }, ENODEV);
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = PG, .flags = HV, .gpu = MVGAL_GPU_ANY, .sharing = 99 }, EINVAL);
	/* More than the pool holds. */
	expect_create_fails(_metadata, self->m, (struct drm_mvgal_bo_create){
		.size = (POOL_MB << 20) + 1, .flags = GV, .gpu = self->g1 }, ENOSPC);
}

/* New storage: zeroes with ZERO_INITIALIZED, the poison byte without. */
TEST_F(bo, initial_contents)
{
	static const struct { uint32_t flags; int gpu_is_g1; uint8_t want; } c[] = {
		{ HV | MVGAL_BO_ZERO_INITIALIZED, 0, 0 },
		{ HV, 0, MVGAL_BO_POISON },
		{ HV | MVGAL_BO_LAZY_ALLOCATE | MVGAL_BO_ZERO_INITIALIZED, 0, 0 },
		{ HV | MVGAL_BO_LAZY_ALLOCATE, 0, MVGAL_BO_POISON },
		{ GV | MVGAL_BO_ZERO_INITIALIZED, 1, 0 },
		{ GV, 1, MVGAL_BO_POISON },
	};
	uint64_t size = 3 * PG + 5;
	uint8_t buf[3 * PG + 5];
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint32_t h;

		ASSERT_EQ(0, mvgal_bo_create(self->m, size, c[i].flags,
					     c[i].gpu_is_g1 ? self->g1 : MVGAL_GPU_ANY, &h));
		memset(buf, 0x11, sizeof(buf));
		ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, buf, size));
		EXPECT_TRUE(all_bytes(buf, size, c[i].want)) TH_LOG("case %u", i);
		ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
	}
}

/* A pool range that held a destroyed buffer's data never shows it. */
TEST_F(bo, pool_reuse_never_shows_old_bytes)
{
	uint64_t size = 5 * PG + 77;
	uint8_t data[5 * PG + 77], back[5 * PG + 77];
	struct drm_mvgal_heap_region r;
	unsigned int round;
	uint32_t h;

	fill(data, size, 3);
	ASSERT_EQ(0, mvgal_bo_create(self->m, size, GV, self->g0, &h));
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, size));
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
	for (round = 0; round < 2; round++) {
		ASSERT_EQ(0, mvgal_bo_create(self->m, size,
					     GV | (round ? MVGAL_BO_ZERO_INITIALIZED : 0),
					     self->g0, &h));
		ASSERT_EQ(0, pool_region(self->m, self->g0, &r));
		EXPECT_EQ(6 * PG, r.used); /* the same range is in use again */
		ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
		EXPECT_TRUE(all_bytes(back, size, round ? 0 : MVGAL_BO_POISON));
		ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
	}
}

TEST_F(bo, lazy_allocate_takes_pages_on_first_touch)
{
	struct drm_mvgal_bo_info info;
	uint64_t held0 = host_held(self->m);
	uint8_t byte = 0xee, *p;
	uint32_t h, e;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 256 * PG, HV | MVGAL_BO_LAZY_ALLOCATE,
				     MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.resident[MVGAL_LOC_HOST]);
	EXPECT_EQ(held0, host_held(self->m));

	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 100 * PG + 17, &byte, 1));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(PG, info.resident[MVGAL_LOC_HOST]);
	EXPECT_EQ(held0 + PG, host_held(self->m));

	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	EXPECT_EQ(0xee, p[100 * PG + 17]); /* same page: nothing new */
	p[200 * PG] = 1;		    /* a new page through the CPU */
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(2 * PG, info.resident[MVGAL_LOC_HOST]);
	munmap(p, 256 * PG);

	/* Without LAZY_ALLOCATE every page exists from the start. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, 10 * PG + 1, HV, MVGAL_GPU_ANY, &e));
	ASSERT_EQ(0, mvgal_bo_info(self->m, e, &info));
	EXPECT_EQ(11 * PG, info.resident[MVGAL_LOC_HOST]);
	EXPECT_EQ(held0 + 13 * PG, host_held(self->m));
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, e));
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
	EXPECT_EQ(held0, host_held(self->m));
}

/*
 * Host pages come from the NUMA node of the GPU the buffer is for, not
 * the caller's (each buffer is made on the other node's CPU); for a GPU
 * on no node (the stand-in pass's, behind a switch on the root bus) they
 * come from the caller's, as alloc_pages_node(NUMA_NO_NODE) gives them.
 */
TEST_F(bo, host_pages_on_the_gpus_node)
{
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_gpu_info gi;
	cpu_set_t all;
	uint32_t h0, h1, want0;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g0, &gi));
	want0 = gi.numa_node == MVGAL_NUMA_NONE ? 1 : gi.numa_node;
	ASSERT_EQ(0, run_on_node(0));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 64 * PG, HV, self->g1, &h1));
	ASSERT_EQ(0, run_on_node(1));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 64 * PG, HV, self->g0, &h0));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h1, &info));
	EXPECT_EQ(1, info.numa_node);
	EXPECT_EQ((uint32_t)self->g1, info.gpu);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h0, &info));
	EXPECT_EQ(want0, info.numa_node);
	mvgal_bo_destroy(self->m, h0);
	mvgal_bo_destroy(self->m, h1);
}

/* CPU writes through mmap are what the copy path reads, and back. */
TEST_F(bo, mmap_and_copies_see_the_same_bytes)
{
	static const uint32_t flags[] = {
		HV, HV | MVGAL_BO_CPU_CACHED, HV | MVGAL_BO_CPU_UNCACHED,
		HV | MVGAL_BO_LAZY_ALLOCATE,
	};
	uint64_t size = 3 * PG + 123;
	uint8_t data[3 * PG + 123], back[3 * PG + 123];
	unsigned int i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct drm_mvgal_bo_info info;
		uint8_t *p;
		uint32_t h;

		ASSERT_EQ(0, mvgal_bo_create(self->m, size, flags[i], self->g1, &h));
		ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
		EXPECT_EQ(flags[i], info.bo_flags);
		EXPECT_NE(0, info.mmap_offset);
		ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
		fill(data, size, i);
		memcpy(p, data, size);
		memset(back, 0, size);
		ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
		EXPECT_EQ(0, memcmp(data, back, size)) TH_LOG("flags %#x", flags[i]);

		/* pwrite at an odd offset, seen through the mapping. */
		fill(data, 2 * PG, i + 100);
		ASSERT_EQ(0, mvgal_bo_write(self->m, h, PG + 11, data, 2 * PG));
		EXPECT_EQ(0, memcmp(p + PG + 11, data, 2 * PG));
		EXPECT_EQ(pat(PG + 10, i), p[PG + 10]); /* neighbours intact */
		EXPECT_EQ(pat(3 * PG + 11, i), p[3 * PG + 11]);
		munmap(p, 4 * PG);
		ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
	}
}

/* A mapping outlives the handle: the object lives while it is mapped. */
TEST_F(bo, mapping_outlives_handle)
{
	uint8_t *p;
	uint32_t h;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 2 * PG, HV, MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	p[PG + 5] = 0x42;
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
	EXPECT_EQ(0x42, p[PG + 5]);
	p[0] = 1;
	EXPECT_EQ(0, munmap(p, 2 * PG));
}

TEST_F(bo, device_only_cannot_be_mapped)
{
	struct drm_mvgal_bo_info info;
	void *p = NULL;
	uint32_t h;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 2 * PG, GV, self->g1, &h));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.mmap_offset);
	EXPECT_EQ(MVGAL_NUMA_NONE, info.numa_node);
	EXPECT_EQ(0, info.resident[MVGAL_LOC_HOST]);
	EXPECT_EQ(2 * PG, info.resident[1 + self->g1]);
	EXPECT_EQ(-EINVAL, mvgal_bo_map(self->m, h, &p));
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
}

TEST_F(bo, one_byte_buffer)
{
	uint8_t v = 0x9d, back[2] = { 0, 0 };
	uint32_t h;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 1, HV, MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, &v, 1));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, 1));
	EXPECT_EQ(0x9d, back[0]);
	EXPECT_EQ(-EINVAL, mvgal_bo_read(self->m, h, 0, back, 2));
	EXPECT_EQ(-EINVAL, mvgal_bo_write(self->m, h, 1, &v, 1));
	EXPECT_EQ(0, mvgal_bo_read(self->m, h, 1, back, 0)); /* empty, at the end */
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
}

/*
 * Copies between every pair of storage kinds, with non-zero offsets on
 * both sides, sizes that are not multiples of a page or of the copy chunk,
 * and a range that ends at the source's last byte.
 */
TEST_F(bo, copies_between_every_kind)
{
	const uint64_t size = 200 * 1024 + 3 * PG + 9;
	const uint64_t soff = 1000, doff = 2 * PG + 7, len = size - soff;
	struct { uint32_t flags; int gpu; } kind[3];
	uint8_t *src, *dst, *back;
	unsigned int a, b;

	kind[0].flags = HV;
	kind[0].gpu = MVGAL_GPU_ANY;
	kind[1].flags = GV;
	kind[1].gpu = self->g1;
	kind[2].flags = GV;
	kind[2].gpu = self->g0;
	src = malloc(size);
	dst = malloc(size + doff);
	back = malloc(size + doff);
	ASSERT_TRUE(src && dst && back);
	for (a = 0; a < 3; a++) {
		for (b = 0; b < 3; b++) {
			uint32_t hs, hd;

			ASSERT_EQ(0, mvgal_bo_create(self->m, size, kind[a].flags,
						     kind[a].gpu, &hs));
			ASSERT_EQ(0, mvgal_bo_create(self->m, len + doff, kind[b].flags,
						     kind[b].gpu, &hd));
			fill(src, size, a * 3 + b);
			fill(dst, len + doff, 50 + a * 3 + b);
			ASSERT_EQ(0, mvgal_bo_write(self->m, hs, 0, src, size));
			ASSERT_EQ(0, mvgal_bo_write(self->m, hd, 0, dst, len + doff));
			ASSERT_EQ(0, mvgal_bo_copy(self->m, hd, doff, hs, soff, len));
			memcpy(dst + doff, src + soff, len);
			ASSERT_EQ(0, mvgal_bo_read(self->m, hd, 0, back, len + doff));
			EXPECT_EQ(0, memcmp(dst, back, len + doff))
				TH_LOG("copy kind %u -> %u", a, b);
			/* The source is unchanged. */
			ASSERT_EQ(0, mvgal_bo_read(self->m, hs, 0, back, size));
			EXPECT_EQ(0, memcmp(src, back, size));
			mvgal_bo_destroy(self->m, hs);
			mvgal_bo_destroy(self->m, hd);
		}
	}
	free(src);
	free(dst);
	free(back);
}

/* Overlapping ranges in one buffer behave as memmove(), both directions,
 * across several copy chunks.
 */
TEST_F(bo, overlapping_copy_is_memmove)
{
	static const struct { uint64_t s, d, n; } c[] = {
		{ 0, 1, 300 * 1024 },		/* forward by one byte */
		{ 5, 0, 300 * 1024 },		/* backward */
		{ 100, 70000, 150000 },		/* overlap past a chunk */
		{ 70000, 100, 150000 },
		{ 10, 10, 1000 },		/* onto itself */
	};
	const uint64_t size = 320 * 1024 + 5;
	uint8_t *model = malloc(size), *back = malloc(size);
	unsigned int i, kind;

	ASSERT_TRUE(model && back);
	for (kind = 0; kind < 2; kind++) {
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			uint32_t h;

			ASSERT_EQ(0, mvgal_bo_create(self->m, size, kind ? GV : HV,
						     kind ? self->g1 : MVGAL_GPU_ANY, &h));
			fill(model, size, i);
			ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, model, size));
			ASSERT_EQ(0, mvgal_bo_copy(self->m, h, c[i].d, h, c[i].s, c[i].n));
			memmove(model + c[i].d, model + c[i].s, c[i].n);
			ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
			EXPECT_EQ(0, memcmp(model, back, size))
				TH_LOG("kind %u case %u", kind, i);
			mvgal_bo_destroy(self->m, h);
		}
	}
	free(model);
	free(back);
}

/* Rejected copies copy nothing. */
TEST_F(bo, copy_rejections)
{
	struct drm_mvgal_bo_copy c;
	uint8_t data[2 * PG], back[2 * PG];
	uint32_t a, b;
	unsigned int i;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 2 * PG, HV, MVGAL_GPU_ANY, &a));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 2 * PG, GV, self->g1, &b));
	fill(data, sizeof(data), 9);
	ASSERT_EQ(0, mvgal_bo_write(self->m, b, 0, data, sizeof(data)));
	struct drm_mvgal_bo_copy bad[] = {
		{ .src_handle = a, .dst_handle = b, .size = 1, .flags = 1 },
		{ .src_handle = a, .dst_handle = b, .size = 1, .pad = 1 },
		{ .src_handle = a, .dst_handle = b, .src_offset = 1, .size = 2 * PG },
		{ .src_handle = a, .dst_handle = b, .dst_offset = 2 * PG, .size = 1 },
		{ .src_handle = a, .dst_handle = b, .src_offset = ~0ULL, .size = 2 },
		{ .src_handle = a, .dst_handle = b, .dst_offset = 8, .size = ~0ULL - 4 },
		{ .src_handle = a, .dst_handle = b, .src_offset = 2 * PG + 1 },
		{ .src_handle = 999, .dst_handle = b, .size = 1 },
		{ .src_handle = a, .dst_handle = 999, .size = 1 },
	};
	int want[] = { EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL,
		       ENOENT, ENOENT };

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drm_mvgal_bo_copy before = bad[i];

		c = bad[i];
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_COPY, &c))
			TH_LOG("case %u", i);
		EXPECT_EQ(want[i], errno) TH_LOG("case %u", i);
		EXPECT_EQ(0, memcmp(&c, &before, sizeof(c)));
	}
	ASSERT_EQ(0, mvgal_bo_read(self->m, b, 0, back, sizeof(back)));
	EXPECT_EQ(0, memcmp(data, back, sizeof(data)));
	mvgal_bo_destroy(self->m, a);
	mvgal_bo_destroy(self->m, b);
}

TEST_F(bo, pwrite_pread_rejections)
{
	uint8_t data[PG + 1], back[PG + 1];
	struct drm_mvgal_bo_rw rw;
	void *hole;
	uint32_t h;
	unsigned int i;

	ASSERT_EQ(0, mvgal_bo_create(self->m, PG + 1, HV, MVGAL_GPU_ANY, &h));
	fill(data, sizeof(data), 4);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, sizeof(data)));
	hole = mmap(NULL, 2 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	struct drm_mvgal_bo_rw bad[] = {
		{ .handle = h, .flags = 2, .size = 1, .user_ptr = (uintptr_t)back },
		{ .handle = h, .offset = 1, .size = PG + 1, .user_ptr = (uintptr_t)back },
		{ .handle = h, .offset = ~0ULL, .size = 2, .user_ptr = (uintptr_t)back },
		{ .handle = h, .offset = 2, .size = ~0ULL, .user_ptr = (uintptr_t)back },
		{ .handle = 999, .size = 1, .user_ptr = (uintptr_t)back },
		{ .handle = h, .size = PG, .user_ptr = (uintptr_t)hole },
		{ .handle = h, .size = 16, .user_ptr = (uintptr_t)back + sizeof(back) - 8 + 0x7ff0000000000000ULL },
	};
	int want[] = { EINVAL, EINVAL, EINVAL, EINVAL, ENOENT, EFAULT, EFAULT };

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rw = bad[i];
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_PWRITE, &rw))
			TH_LOG("pwrite case %u", i);
		EXPECT_EQ(want[i], errno) TH_LOG("pwrite case %u", i);
		rw = bad[i];
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_PREAD, &rw))
			TH_LOG("pread case %u", i);
		EXPECT_EQ(want[i], errno) TH_LOG("pread case %u", i);
	}
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, sizeof(back)));
	EXPECT_EQ(0, memcmp(data, back, sizeof(back)));
	munmap(hole, 2 * PG);
	mvgal_bo_destroy(self->m, h);
}

TEST_F(bo, statistics_count_what_moved)
{
	struct drm_mvgal_bo_info hi, di;
	uint8_t data[3 * PG];
	uint32_t h, d;
	unsigned int i;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 3 * PG, HV, MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 3 * PG, GV, self->g0, &d));
	fill(data, sizeof(data), 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, data, 3 * PG));	/* h: w 3PG */
	ASSERT_EQ(0, mvgal_bo_copy(self->m, d, 10, h, 20, 1000));	/* h: r 1000, d: w 1000 */
	ASSERT_EQ(0, mvgal_bo_copy(self->m, d, 0, d, 100, 50));		/* d: r 50, w 50 */
	ASSERT_EQ(0, mvgal_bo_read(self->m, d, 0, data, 777));		/* d: r 777 */
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &hi));
	ASSERT_EQ(0, mvgal_bo_info(self->m, d, &di));
	EXPECT_EQ(3 * PG, hi.bytes_written);
	EXPECT_EQ(1000, hi.bytes_read);
	EXPECT_EQ(0, hi.access_total); /* host storage: no GPU touched it */
	EXPECT_EQ(1050, di.bytes_written);
	EXPECT_EQ(827, di.bytes_read);
	/* Accesses of d's pool: the copy in, the copy within (read and
	 * write), the read out.
	 */
	EXPECT_EQ(4, di.access_count[self->g0]);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (i != (unsigned int)self->g0)
			EXPECT_EQ(0, di.access_count[i]);
	EXPECT_EQ(4, di.access_total);
	/* d's bytes are in g0's pool: the CPU copies moved them in and
	 * out of it. They are neither sessions nor migrations, and h's
	 * host pages are no pool.
	 */
	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		int mine = i == (unsigned int)self->g0;

		EXPECT_EQ(mine ? 1050 : 0, di.bytes_to_gpu[i]);
		EXPECT_EQ(mine ? 827 : 0, di.bytes_from_gpu[i]);
		EXPECT_EQ(0, di.session_count[i] + di.migration_count[i]);
		EXPECT_EQ(0, hi.bytes_to_gpu[i] + hi.bytes_from_gpu[i]);
	}
	EXPECT_EQ(3 * PG, di.resident[1 + self->g0]);
	EXPECT_EQ(3 * PG, hi.resident[MVGAL_LOC_HOST]);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, d);
}

/* A device-only buffer holds its pool: the GPU cannot be detached. */
TEST_F(bo, device_only_buffer_holds_its_gpu)
{
	struct drm_mvgal_heap_region r;
	uint32_t h;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 10 * PG + 1, GV, self->g1, &h));
	ASSERT_EQ(0, pool_region(self->m, self->g1, &r));
	EXPECT_EQ(11 * PG, r.used);
	EXPECT_EQ(11 * PG, r.held);
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, self->g1));
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
	ASSERT_EQ(0, pool_region(self->m, self->g1, &r));
	EXPECT_EQ(0, r.used);
	EXPECT_EQ(0, mvgal_gpu_detach(self->m, self->g1));
}

TEST_F(bo, info_rejections)
{
	struct drm_mvgal_bo_info i, before;
	uint32_t h;

	ASSERT_EQ(0, mvgal_bo_create(self->m, PG, HV, MVGAL_GPU_ANY, &h));
	memset(&i, 0x33, sizeof(i));
	i.handle = h;
	i.flags = 1;
	before = i;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_INFO, &i));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, memcmp(&i, &before, sizeof(i)));
	i.handle = 999;
	i.flags = 0;
	before = i;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_INFO, &i));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, memcmp(&i, &before, sizeof(i)));
	mvgal_bo_destroy(self->m, h);
}

/* Flags whose effect comes later are stored and reported as given. */
TEST_F(bo, later_flags_are_stored)
{
	const uint32_t f = HV | GV | MVGAL_BO_REPLICATED | MVGAL_BO_PERSISTENT |
			   MVGAL_BO_SHARED | MVGAL_BO_P2P;
	struct drm_mvgal_bo_info info;
	uint32_t h;

	ASSERT_EQ(0, mvgal_bo_create(self->m, PG, f, self->g0, &h));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(f, info.bo_flags);
	EXPECT_EQ(MVGAL_SHARING_NONE, info.sharing);
	mvgal_bo_destroy(self->m, h);
}

/* The entries of BO_LIST created by this process with size @size. */
static int find_entry(struct drm_mvgal_bo_entry *e, uint32_t n, uint64_t size)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (e[i].pid == (uint32_t)getpid() && e[i].info.size == size)
			return (int)i;
	return -1;
}

TEST_F(bo, list_shows_the_callers_buffers)
{
	struct drm_mvgal_bo_entry e[64];
	struct drm_mvgal_bo_info info;
	uint8_t data[100];
	uint32_t a, b, n = 64;
	int ia, ib;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 12345, HV, MVGAL_GPU_ANY, &a));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 54321, GV, self->g1, &b));
	fill(data, sizeof(data), 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, b, 7, data, sizeof(data)));
	ASSERT_EQ(0, mvgal_bo_list(self->m, e, &n));
	ia = find_entry(e, n, 12345);
	ib = find_entry(e, n, 54321);
	ASSERT_GE(ia, 0);
	ASSERT_GE(ib, 0);
	EXPECT_NE(e[ia].id, e[ib].id);
	EXPECT_EQ(0, e[ia].uid);
	EXPECT_EQ(0, e[ia].info.handle);
	ASSERT_EQ(0, mvgal_bo_info(self->m, b, &info));
	info.handle = 0;
	EXPECT_EQ(0, memcmp(&info, &e[ib].info, sizeof(info)));
	EXPECT_EQ(100, e[ib].info.bytes_written);
	EXPECT_EQ(1, e[ib].info.access_count[self->g1]);

	/* mvgal-info --buffers shows them, with their statistics. */
	EXPECT_EQ(0, run("mvgal-info --buffers > /tmp/bufs.txt"));
	char cmd[160];

	snprintf(cmd, sizeof(cmd),
		 "grep -q 'buffer %llu (pid %d): 54321 bytes, flags gpu, GPU %d, sharing none' /tmp/bufs.txt",
		 (unsigned long long)e[ib].id, getpid(), self->g1);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
	EXPECT_EQ(0, run("grep -q 'read 0 B, written 100 B, GPU accesses 1' /tmp/bufs.txt"));

	/* Once destroyed, gone from the list. */
	mvgal_bo_destroy(self->m, a);
	n = 64;
	ASSERT_EQ(0, mvgal_bo_list(self->m, e, &n));
	EXPECT_EQ(-1, find_entry(e, n, 12345));
	mvgal_bo_destroy(self->m, b);
}

TEST_F(bo, list_capacity_and_rejections)
{
	struct drm_mvgal_bo_entry e[2];
	struct drm_mvgal_bo_list l;
	uint32_t a, b, n = 0;

	ASSERT_EQ(0, mvgal_bo_create(self->m, PG, HV, MVGAL_GPU_ANY, &a));
	ASSERT_EQ(0, mvgal_bo_create(self->m, PG, HV, MVGAL_GPU_ANY, &b));
	ASSERT_EQ(0, mvgal_bo_list(self->m, NULL, &n));
	ASSERT_GE(n, 2);
	memset(e, 0x77, sizeof(e));
	l = (struct drm_mvgal_bo_list){ .count = 1, .entries = (uintptr_t)e };
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_LIST, &l));
	EXPECT_EQ(n, l.count);
	EXPECT_NE(0x7777777777777777ULL, e[0].id);
	EXPECT_EQ(0x7777777777777777ULL, e[1].id); /* beyond the capacity */

	l = (struct drm_mvgal_bo_list){ .flags = 1, .count = 2, .entries = (uintptr_t)e };
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_LIST, &l));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(2, l.count);
	l = (struct drm_mvgal_bo_list){ .count = 2, .entries = 16 };
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_LIST, &l));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(2, l.count);
	mvgal_bo_destroy(self->m, a);
	mvgal_bo_destroy(self->m, b);
}

/* Another user sees only its own buffers. */
TEST_F(bo, list_is_per_user)
{
	struct drm_mvgal_bo_entry e[64];
	uint32_t a, n = 64, mine;
	int i;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 4242, HV, MVGAL_GPU_ANY, &a));
	ASSERT_EQ(0, setresgid(1000, 1000, 1000));
	ASSERT_EQ(0, setresuid(1000, 1000, 1000));
	ASSERT_EQ(0, mvgal_bo_list(self->m, e, &n));
	EXPECT_EQ(0, n); /* root's buffers are not listed */
	ASSERT_EQ(0, mvgal_bo_create(self->m, 2424, HV, MVGAL_GPU_ANY, &mine));
	n = 64;
	ASSERT_EQ(0, mvgal_bo_list(self->m, e, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(1000, e[0].uid);
	EXPECT_EQ(2424, e[0].info.size);
	for (i = 0; i < (int)n; i++)
		EXPECT_NE(4242, e[i].info.size);
}

/* "wb=N wc=N other=N" of buffer @id in <debugfs>/mvgal/bo_memtype. */
static int memtype(uint64_t id, unsigned long *wb, unsigned long *wc,
		   unsigned long *other)
{
	FILE *f = fopen("/sys/kernel/debug/mvgal/bo_memtype", "r");
	unsigned long long got;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%llu wb=%lu wc=%lu other=%lu\n", &got, wb, wc, other) == 4)
		if (got == id) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/*
 * CPU_UNCACHED pages are write-combined in the kernel's own page tables
 * (and so in every mapping); cached ones are write-back.
 */
TEST_F(bo, uncached_pages_are_write_combined)
{
	struct drm_mvgal_bo_entry e[64];
	unsigned long wb, wc, other;
	uint32_t a, b, n = 64;
	uint8_t *p, byte = 0;
	int ia, ib;

	ASSERT_EQ(0, mvgal_bo_create(self->m, 3 * PG - 9, HV | MVGAL_BO_CPU_UNCACHED,
				     MVGAL_GPU_ANY, &a));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 5 * PG - 9, HV | MVGAL_BO_CPU_CACHED,
				     MVGAL_GPU_ANY, &b));
	ASSERT_EQ(0, mvgal_bo_list(self->m, e, &n));
	ia = find_entry(e, n, 3 * PG - 9);
	ib = find_entry(e, n, 5 * PG - 9);
	ASSERT_GE(ia, 0);
	ASSERT_GE(ib, 0);
	ASSERT_EQ(0, memtype(e[ia].id, &wb, &wc, &other));
	EXPECT_EQ(3, wc);
	EXPECT_EQ(0, wb);
	EXPECT_EQ(0, other);
	ASSERT_EQ(0, memtype(e[ib].id, &wb, &wc, &other));
	EXPECT_EQ(5, wb);
	EXPECT_EQ(0, wc);
	EXPECT_EQ(0, other);
	/* And the data path through a write-combined mapping holds. */
	ASSERT_EQ(0, mvgal_bo_map(self->m, a, (void **)&p));
	p[2 * PG + 1] = 0x5e;
	munmap(p, 3 * PG);
	ASSERT_EQ(0, mvgal_bo_read(self->m, a, 2 * PG + 1, &byte, 1));
	EXPECT_EQ(0x5e, byte);
	mvgal_bo_destroy(self->m, a);
	mvgal_bo_destroy(self->m, b);
}

TEST_HARNESS_MAIN
