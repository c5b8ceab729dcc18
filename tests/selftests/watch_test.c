// SPDX-License-Identifier: GPL-2.0
/*
 * Write-watch: the CPU's writes through mappings are seen per chunk
 * without a shadow copy, HARVEST reports and re-arms them in one call for
 * many buffers, and a BEGIN copies only the chunks the CPU wrote since
 * the GPU's copy was made.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

FIXTURE(watch) {
	COH_FIELDS;
};

FIXTURE_SETUP(watch)
{
	COH_SETUP(self);
}

FIXTURE_TEARDOWN(watch)
{
	coh_teardown(self->m, self->pool);
}

/* The record of one buffer as a bitmap word (buffers of <= 64 chunks). */
static int peek_word(struct mvgal *m, uint32_t h, uint64_t *word,
		     uint64_t *chunks)
{
	struct drm_mvgal_harvest_entry e = {
		.handle = h, .data = (uintptr_t)word, .capacity = 1,
	};
	int ret = mvgal_harvest(m, 0, &e, 1);

	if (!ret && chunks)
		*chunks = e.chunks;
	return ret;
}

/* The record of one buffer as a plain bitmap of @n words. */
static int peek_words(struct mvgal *m, uint32_t h, uint64_t *words,
		      uint32_t n, uint64_t *chunks)
{
	struct drm_mvgal_harvest_entry e = {
		.handle = h, .data = (uintptr_t)words, .capacity = n,
	};
	int ret = mvgal_harvest(m, 0, &e, 1);

	if (!ret && chunks)
		*chunks = e.chunks;
	return ret;
}

/* What a word of a ZEROED bitmap holds when the module did not write it. */
#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

static void fill_words(uint64_t *words, int n)
{
	for (int i = 0; i < n; i++)
		words[i] = SENTINEL;
}

static uint64_t cpu_written(struct mvgal *m, uint32_t h)
{
	struct drm_mvgal_bo_info info;

	return mvgal_bo_info(m, h, &info) ? ~0ULL : info.cpu_written;
}

static int reset_all(struct mvgal *m, uint32_t h)
{
	struct drm_mvgal_range r[64];
	struct drm_mvgal_harvest_entry e = {
		.handle = h, .flags = MVGAL_HARVEST_RUNS,
		.data = (uintptr_t)r, .capacity = 64,
	};

	return mvgal_harvest(m, MVGAL_HARVEST_RESET, &e, 1);
}

static uint64_t copied_bytes(struct mvgal *m)
{
	struct drm_mvgal_stats st;
	uint64_t sum = 0;

	if (mvgal_get_stats(m, &st))
		return ~0ULL;
	/* In place is no copy. */
	for (int i = MVGAL_METHOD_IN_PLACE + 1; i < MVGAL_METHOD_COUNT; i++)
		sum += st.bytes[i];
	return sum;
}

/*
 * Writes through a mapping mark their chunks, reads do not; a peek leaves
 * the record, a reset clears it and re-arms the pages, so that the next
 * write to the same page is seen again. The writes land.
 */
TEST_F(watch, mapped_writes_are_marked_per_chunk)
{
	const uint64_t size = 5 * CH + 100;
	struct drm_mvgal_range runs[4];
	struct drm_mvgal_harvest_entry e;
	volatile uint8_t *p;
	uint64_t w, chunks, sum = 0;
	uint8_t back[16];
	uint32_t h;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	for (uint64_t i = 0; i < size; i += 512)
		sum += p[i];		/* every page mapped for reading */
	ASSERT_EQ(0, peek_word(self->m, h, &w, &chunks));
	EXPECT_EQ(0, w) TH_LOG("reads marked 0x%llx (sum %llu)",
			       (unsigned long long)w, (unsigned long long)sum);
	p[CH + 7] = 0x11;
	p[size - 1] = 0x22;
	ASSERT_EQ(0, peek_word(self->m, h, &w, &chunks));
	EXPECT_EQ((1ULL << 1) | (1ULL << 5), w);
	EXPECT_EQ(2, chunks);
	/* A peek changes nothing. */
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ((1ULL << 1) | (1ULL << 5), w);
	/* As runs: the last one clipped to the buffer's size. */
	e = (struct drm_mvgal_harvest_entry) {
		.handle = h, .flags = MVGAL_HARVEST_RUNS,
		.data = (uintptr_t)runs, .capacity = 4,
	};
	ASSERT_EQ(0, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, &e, 1));
	ASSERT_EQ(2, e.count);
	EXPECT_EQ(2, e.chunks);
	EXPECT_EQ((uint64_t)CH, runs[0].offset);
	EXPECT_EQ((uint64_t)CH, runs[0].size);
	EXPECT_EQ(5ULL * CH, runs[1].offset);
	EXPECT_EQ(100, runs[1].size);
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ(0, w);
	/* The same page again, then another page of the same chunk. */
	p[CH + 9] = 0x33;
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ(1ULL << 1, w);
	p[2 * CH + 8192] = 0x44;
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ((1ULL << 1) | (1ULL << 2), w);
	/* The bytes are there, read through another path. */
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, CH + 7, back, 3));
	EXPECT_EQ(0x11, back[0]);
	EXPECT_EQ(0x33, back[2]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, size - 1, back, 1));
	EXPECT_EQ(0x22, back[0]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 2 * CH + 8192, back, 1));
	EXPECT_EQ(0x44, back[0]);
	munmap((void *)p, (size + 4095) & ~4095ULL);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A BEGIN copies exactly the chunks the CPU wrote since that GPU's copy
 * was made current, counted by the BEGIN and by the engine's byte
 * counters, and the GPU's copy then holds the new bytes and the old ones
 * elsewhere. Another GPU's copy is judged on its own.
 */
TEST_F(watch, begin_copies_only_what_the_cpu_wrote)
{
	const uint64_t size = 16 * CH + 333;
	const uint64_t whole = 16 * CH + 4096;	/* copies move whole pages */
	static uint8_t buf[16 * CH + 333];
	struct drm_mvgal_access a, a1;
	uint64_t copied, before;
	volatile uint8_t *p;
	uint32_t h, s;
	uint8_t *gpu;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	fill(buf, size, 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(whole, copied);
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	gpu = self->pool[self->g0] + a.pool_offset;
	EXPECT_EQ(-1, check(gpu, size, 0, 1));

	/* The CPU writes 10 bytes in chunk 3 and the last byte of chunk 9. */
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	for (int i = 0; i < 10; i++)
		p[3 * CH + 5 + i] = (uint8_t)(0xc0 + i);
	p[10 * CH - 1] = 0x5c;
	before = copied_bytes(self->m);
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(2ULL * CH, copied);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(2ULL * CH, copied_bytes(self->m) - before);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ((uint8_t)(0xc0 + i), gpu[3 * CH + 5 + i]);
	EXPECT_EQ(0x5c, gpu[10 * CH - 1]);
	EXPECT_EQ(-1, check(gpu, 3 * CH + 5, 0, 1));
	EXPECT_EQ(-1, check(gpu + 3 * CH + 15, 10 * CH - 1 - (3 * CH + 15),
			    3 * CH + 15, 1));
	EXPECT_EQ(-1, check(gpu + 10 * CH, size - 10 * CH, 10 * CH, 1));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));

	/* Nothing written since: nothing moves, nothing to wait for. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(0, copied);
	EXPECT_EQ(-1, fence);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));

	/* GPU 1 never had a copy: all of it; then one write, one chunk on
	 * each GPU.
	 */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a1,
			    &s, &fence, &copied));
	EXPECT_EQ(whole, copied);
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	p[4 * CH] = 0x77;
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a1,
			    &s, &fence, &copied));
	EXPECT_EQ((uint64_t)CH, copied);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(0x77, self->pool[self->g1][a1.pool_offset + 4 * CH]);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/*
	 * The stand-in (g0 in the stand-in pass) imports GPU 1's pool and
	 * would use it in place, whole there: asked for its own copy.
	 */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    (standin_role() >= 0 ? MVGAL_ACCESS_NO_IN_PLACE : 0),
			    h, 0, 0, &a, &s, &fence, &copied));
	EXPECT_EQ((uint64_t)CH, copied);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(0x77, gpu[4 * CH]);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	munmap((void *)p, (size + 4095) & ~4095ULL);
	mvgal_bo_destroy(self->m, h);
}

/* Writes through the kernel (BO_PWRITE, BO_COPY) are in the record too. */
TEST_F(watch, kernel_writes_are_marked)
{
	uint8_t x[100] = { 1 };
	uint32_t h, h2;
	uint64_t w;

	ASSERT_EQ(0, host_bo(self->m, 8 * CH, &h));
	ASSERT_EQ(0, host_bo(self->m, 8 * CH, &h2));
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 2 * CH - 50, x, sizeof(x)));
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ((1ULL << 1) | (1ULL << 2), w);
	ASSERT_EQ(0, mvgal_bo_copy(self->m, h2, 6 * CH + 1, h, 0, 10));
	ASSERT_EQ(0, peek_word(self->m, h2, &w, NULL));
	EXPECT_EQ(1ULL << 6, w);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/*
 * One call harvests many buffers, bitmaps and runs mixed, and a reset
 * clears every one of them.
 */
TEST_F(watch, one_harvest_for_many_buffers)
{
	struct drm_mvgal_harvest_entry e[3];
	struct drm_mvgal_range r[2][8];
	uint64_t words[2] = { 0, 0 }, w;
	volatile uint8_t *p[3];
	uint32_t h[3];

	/* 100 chunks: a bitmap of two words. */
	ASSERT_EQ(0, host_bo(self->m, 100 * CH, &h[0]));
	ASSERT_EQ(0, host_bo(self->m, 3 * CH, &h[1]));
	ASSERT_EQ(0, host_bo(self->m, 9 * CH + 1, &h[2]));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, mvgal_bo_map(self->m, h[i], (void **)&p[i]));
	p[0][70 * CH + 3] = 1;
	p[0][2 * CH] = 1;
	p[1][0] = 1;
	p[1][2 * CH + 4095] = 1;
	p[2][9 * CH] = 1;
	e[0] = (struct drm_mvgal_harvest_entry) {
		.handle = h[0], .data = (uintptr_t)words, .capacity = 2,
	};
	for (int i = 1; i < 3; i++)
		e[i] = (struct drm_mvgal_harvest_entry) {
			.handle = h[i], .flags = MVGAL_HARVEST_RUNS,
			.data = (uintptr_t)r[i - 1], .capacity = 8,
		};
	ASSERT_EQ(0, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, e, 3));
	EXPECT_EQ(2, e[0].count);
	EXPECT_EQ(2, e[0].chunks);
	EXPECT_EQ(1ULL << 2, words[0]);
	EXPECT_EQ(1ULL << (70 - 64), words[1]);
	ASSERT_EQ(2, e[1].count);
	EXPECT_EQ(0, r[0][0].offset);
	EXPECT_EQ((uint64_t)CH, r[0][0].size);
	EXPECT_EQ(2ULL * CH, r[0][1].offset);
	ASSERT_EQ(1, e[2].count);
	EXPECT_EQ(9ULL * CH, r[1][0].offset);
	EXPECT_EQ(1, r[1][0].size);
	for (int i = 1; i < 3; i++) {
		ASSERT_EQ(0, peek_word(self->m, h[i], &w, NULL));
		EXPECT_EQ(0, w);
	}
	e[0].capacity = 2;
	ASSERT_EQ(0, mvgal_harvest(self->m, 0, e, 1));
	EXPECT_EQ(0, e[0].chunks);
	EXPECT_EQ(0, words[0] | words[1]);
	for (int i = 0; i < 3; i++)
		mvgal_bo_destroy(self->m, h[i]);
}

/*
 * Writes through the mapping of an exported dma-buf are seen as well,
 * and a read-only mapping (no VM_MAYWRITE: the kernel's write-protect
 * walk stops at it) does not leave a later write unseen. The read-only
 * one is made first, through a read-only open of the same node, so that
 * the walk meets it before the writable one.
 */
TEST_F(watch, every_mapping_is_watched)
{
	const uint64_t size = 4 * CH;
	volatile uint8_t *rw, *ro, *db;
	struct drm_mvgal_bo_info info;
	char path[64];
	uint32_t h, hro;
	int fd, rofd;
	uint64_t w;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, size,
					    MVGAL_BO_HOST_VALID |
					    MVGAL_BO_GPU_VALID |
					    MVGAL_BO_DMA_BUF, MVGAL_GPU_ANY,
					    MVGAL_SHARING_DMA_BUF, &h));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", self->fd);
	rofd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(rofd, 0);
	ASSERT_EQ(0, drmPrimeFDToHandle(rofd, fd, &hro));
	info = (struct drm_mvgal_bo_info) { .handle = hro };
	ASSERT_EQ(0, drmIoctl(rofd, DRM_IOCTL_MVGAL_BO_INFO, &info));
	ro = mmap(NULL, size, PROT_READ, MAP_SHARED, rofd, info.mmap_offset);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(MVGAL_BO_POISON, ro[CH + 1]);	/* mapped, read-only */
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&rw));
	rw[CH + 1] = 9;
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ(1ULL << 1, w);
	EXPECT_EQ(9, ro[CH + 1]);
	ASSERT_EQ(0, reset_all(self->m, h));
	/* The same page again, and another chunk. */
	rw[CH + 2] = 10;
	rw[3 * CH] = 11;
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ((1ULL << 1) | (1ULL << 3), w);
	EXPECT_EQ(10, ro[CH + 2]);
	EXPECT_EQ(11, ro[3 * CH]);

	/* Through the dma-buf's own mapping. */
	db = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, db);
	ASSERT_EQ(0, reset_all(self->m, h));
	db[2 * CH + 5] = 12;
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ(1ULL << 2, w);
	ASSERT_EQ(0, reset_all(self->m, h));
	db[2 * CH + 6] = 13;
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ(1ULL << 2, w);
	EXPECT_EQ(13, rw[2 * CH + 6]);
	munmap((void *)db, size);
	munmap((void *)ro, size);
	munmap((void *)rw, size);
	close(rofd);
	close(fd);
	mvgal_bo_destroy(self->m, h);
}

/* How many kernel log lines contain @what. */
static int log_count(const char *what)
{
	char cmd[160];
	int n = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "dmesg | grep -c '%s'", what);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	pclose(f);
	return n;
}

/* A host buffer of @size, mapped, holding pattern @seed written there. */
static int filled_bo(struct mvgal *m, uint64_t size, unsigned int seed,
		     uint32_t *h, volatile uint8_t **p)
{
	int ret = host_bo(m, size, h);

	if (!ret)
		ret = mvgal_bo_map(m, *h, (void **)p);
	for (uint64_t i = 0; !ret && i < size; i++)
		(*p)[i] = pat(i, seed);
	return ret;
}

static int bo_counts(struct mvgal *m, uint32_t h, uint64_t *handoffs,
		     uint64_t *refused)
{
	struct drm_mvgal_bo_info info;
	int ret = mvgal_bo_info(m, h, &info);

	*handoffs = info.handoffs;
	*refused = info.refused;
	return ret;
}

/*
 * The CPU writes a chunk while a GPU session reads its copy: a hand-off.
 * At END the copy is dropped and the chunk refused for good: every later
 * session stages it again (and only it), with the CPU's bytes, and no GPU
 * keeps it. The buffer counts it and the kernel log says so.
 */
TEST_F(watch, handoff_refuses_the_chunk)
{
	const uint64_t size = 4 * CH + 10;
	struct drm_mvgal_migrate mg;
	struct drm_mvgal_access a;
	uint64_t copied, hand, refused;
	volatile uint8_t *p;
	uint32_t h, s;
	uint8_t *gpu;
	int fence, warned;

	ASSERT_EQ(0, filled_bo(self->m, size, 3, &h, &p));
	warned = log_count("CPU wrote 1 chunk(s) while GPU");
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	gpu = self->pool[self->g0] + a.pool_offset;
	/* While the GPU reads: the CPU writes chunk 2. Not refused. */
	p[2 * CH + 1] = 0xee;
	ASSERT_EQ(0, bo_counts(self->m, h, &hand, &refused));
	EXPECT_EQ(0, hand);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, bo_counts(self->m, h, &hand, &refused));
	EXPECT_EQ(1, hand);
	EXPECT_EQ(1, refused);
	EXPECT_EQ(warned + 1, log_count("CPU wrote 1 chunk(s) while GPU"));
	/* The CPU wrote every chunk (the fill), one hand-off, one refused. */
	EXPECT_TRUE(info_shows("CPU-written chunks 5, hand-offs 1, refused chunks 1"));

	/* Each later session stages chunk 2, and only it. */
	for (int k = 0; k < 2; k++) {
		ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0,
				    &a, &s, &fence, &copied));
		EXPECT_EQ((uint64_t)CH, copied) TH_LOG("session %d", k);
		ASSERT_EQ(0, settle(fence));
		EXPECT_EQ(0xee, gpu[2 * CH + 1]);
		EXPECT_EQ(-1, check(gpu, 2 * CH, 0, 3));
		EXPECT_EQ(-1, check(gpu + 3 * CH, size - 3 * CH, 3 * CH, 3));
		ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	}
	/* A migration to another GPU leaves it out; a session stages it. */
	mg = (struct drm_mvgal_migrate) {
		.handle = h, .size = size, .location = 1 + self->g1,
		.priority = MVGAL_PRIO_HIGH, .in_fence_fd = -1,
	};
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	EXPECT_EQ(3ULL * CH + 4096, mg.bytes);	/* 0, 1, 3 and 4 (a page) */
	ASSERT_EQ(0, settle(mg.out_fence_fd));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ((uint64_t)CH, copied);
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ((uint64_t)CH, copied);
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	munmap((void *)p, (size + 4095) & ~4095ULL);
	mvgal_bo_destroy(self->m, h);
}

/*
 * The first BEGIN on a GPU of a buffer with refused chunks asks that GPU's
 * driver whether it can use the buffer's pages. The ask maps the buffer
 * for the driver, which waits for pending GPU writes: it runs in the
 * background, and the BEGIN returns while such a write is still pending.
 * Its copy lands after that write.
 */
TEST_F(watch, begin_on_a_buffer_with_refused_chunks_never_waits)
{
	const uint64_t size = 4 * CH + 10;
	struct drm_mvgal_access a;
	uint64_t copied, hand, refused;
	volatile uint8_t *p;
	struct vfence vf;
	uint32_t h, s;
	uint8_t *gpu;
	int fence;

	ASSERT_EQ(0, filled_bo(self->m, size, 3, &h, &p));
	/* A hand-off refuses chunk 2, as in handoff_refuses_the_chunk. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	p[2 * CH + 1] = 0xee;
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, bo_counts(self->m, h, &hand, &refused));
	ASSERT_EQ(1, refused);

	/* GPU 0 writes into chunk 0; the write is pending on a vgem fence. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, CH,
			    &a, &s, &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	gpu = self->pool[self->g0] + a.pool_offset;
	memset(gpu + 5, 0x77, 100);
	ASSERT_EQ(0, vgem_fence_new(&vf, vgem_open()));
	ASSERT_EQ(0, mvgal_end(self->m, s, vf.fd, NULL, 0));

	/* GPU 1's first BEGIN since the refusal returns at once. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(0, fence_time(vf.fd));	/* the write is still pending */
	ASSERT_GE(fence, 0);
	EXPECT_EQ(0, fence_time(fence));	/* the copy waits for it */
	vfence_signal(&vf);
	ASSERT_EQ(0, settle(fence));
	gpu = self->pool[self->g1] + a.pool_offset;
	EXPECT_EQ(-1, check(gpu, 5, 0, 3));
	for (int i = 5; i < 105; i++) {
		ASSERT_EQ(0x77, gpu[i]) TH_LOG("byte %d", i);
	}
	EXPECT_EQ(-1, check(gpu + 105, 2 * CH - 105, 105, 3));
	EXPECT_EQ(0xee, gpu[2 * CH + 1]);
	EXPECT_EQ(-1, check(gpu + 3 * CH, size - 3 * CH, 3 * CH, 3));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/* The CPU reads what the GPU wrote, too. */
	EXPECT_EQ(0x77, p[5]);
	EXPECT_EQ(0x77, p[104]);
	vfence_free(&vf);
	munmap((void *)p, (size + 4095) & ~4095ULL);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A hand-off in a WRITE session: of a chunk both wrote, the GPU's bytes
 * land last (the CPU then reads them); of a chunk only the CPU wrote, the
 * CPU's stay. Both are refused, and the warning says the GPU wrote too.
 */
TEST_F(watch, handoff_in_a_write_session_lands_the_gpu_last)
{
	const uint64_t size = 4 * CH;
	struct drm_mvgal_access a;
	uint64_t hand, refused;
	volatile uint8_t *p;
	uint8_t back[4];
	uint32_t h, s;
	uint8_t *gpu;
	int fence, warned;

	ASSERT_EQ(0, filled_bo(self->m, size, 4, &h, &p));
	warned = log_count("its bytes land last");
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	gpu = self->pool[self->g0] + a.pool_offset;
	/* The GPU writes chunk 1; the CPU writes chunks 1 and 3. */
	memset(gpu + CH, 0x61, 4);
	p[CH] = 0x99;
	p[3 * CH] = 0x77;
	ASSERT_EQ(0, end_written(self->m, s, h, CH, 4, -1));
	ASSERT_EQ(0, bo_counts(self->m, h, &hand, &refused));
	EXPECT_EQ(2, hand);
	EXPECT_EQ(2, refused);
	EXPECT_EQ(warned + 1, log_count("its bytes land last"));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, CH, back, 4));
	EXPECT_EQ(0x61, back[0]);
	EXPECT_EQ(0x61, back[3]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 3 * CH, back, 1));
	EXPECT_EQ(0x77, back[0]);
	EXPECT_EQ(0x61, p[CH + 1]);
	EXPECT_EQ(pat(2 * CH, 4), p[2 * CH]);
	munmap((void *)p, size);
	mvgal_bo_destroy(self->m, h);
}

/* A hand-off on chunk 1 of @h at GPU @g: a READ session, a CPU write. */
static int handoff(struct mvgal *m, int g, uint32_t h, volatile uint8_t *p)
{
	struct drm_mvgal_access a;
	uint32_t s;
	int fence, ret;

	ret = begin1(m, g, MVGAL_ACCESS_READ, h, 0, 0, &a, &s, &fence, NULL);
	if (!ret)
		ret = settle(fence);
	p[CH + 3] = 0xab;
	return mvgal_end(m, s, -1, NULL, 0) ?: ret;
}

/*
 * Refused chunks are served from the buffer's own pages where the GPU's
 * driver imports its dma-buf (vgem here; the buffer must be shareable):
 * no copy at all. Where it does not (virtio-gpu), or the buffer cannot be
 * shared, they are staged per access.
 */
TEST_F(watch, refused_chunks_zero_copy_where_the_driver_imports)
{
	const uint64_t size = 4 * CH;
	struct drm_mvgal_access a;
	volatile uint8_t *p, *q;
	uint64_t copied;
	uint32_t h, h2, s, vh;
	int fence, fd, vgem;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, size,
					    MVGAL_BO_HOST_VALID |
					    MVGAL_BO_GPU_VALID |
					    MVGAL_BO_SHARED | MVGAL_BO_DMA_BUF,
					    MVGAL_GPU_ANY,
					    MVGAL_SHARING_CROSS_VENDOR, &h));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	for (uint64_t i = 0; i < size; i++)
		p[i] = pat(i, 8);
	ASSERT_EQ(0, handoff(self->m, self->vg, h, p));
	/*
	 * The first session since the refusal asked vgem's driver in the
	 * background; until it said yes, sessions stage the refused chunk.
	 * Then: the buffer's own pages, nothing copied or waited for.
	 */
	for (int tries = 0; tries < 200; tries++) {
		ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_READ, h, 0,
				    0, &a, &s, &fence, &copied));
		if (a.pool_gpu == MVGAL_POOL_HOST)
			break;
		EXPECT_EQ((uint32_t)self->vg, a.pool_gpu);
		EXPECT_EQ((uint64_t)CH, copied);
		ASSERT_EQ(0, settle(fence));
		ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
		usleep(10000);
	}
	EXPECT_EQ(MVGAL_POOL_HOST, a.pool_gpu);
	EXPECT_EQ(0, a.pool_offset);
	EXPECT_EQ(0, copied);
	EXPECT_EQ(-1, fence);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/* Unless the session needs the bytes in vgem's own pool. */
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &s, &fence,
			    &copied));
	EXPECT_EQ((uint32_t)self->vg, a.pool_gpu);
	EXPECT_LT(0, copied);
	ASSERT_EQ(0, settle(fence));
	if (self->pool[self->vg])
		EXPECT_EQ(0xab, self->pool[self->vg][a.pool_offset + CH + 3]);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/* ... which vgem does import. */
	vgem = open_card("vgem", NULL, 0);
	ASSERT_GE(vgem, 0);
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	EXPECT_EQ(0, drmPrimeFDToHandle(vgem, fd, &vh));
	close(fd);
	close(vgem);
	/* virtio-gpu: staged, chunk 1 only, with the CPU's byte. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	if (standin_role() >= 0) {
		/*
		 * The stand-in pass: g0 is the VRAM stand-in, whose driver
		 * (amdgpu's rules) imports the buffer too. As for vgem: its
		 * first sessions stage (all of it, then the refused chunk)
		 * until the probe said yes, then its pages in place.
		 */
		for (int tries = 0; tries < 200; tries++) {
			if (a.pool_gpu == MVGAL_POOL_HOST)
				break;
			EXPECT_EQ((uint32_t)self->g0, a.pool_gpu);
			EXPECT_EQ(tries ? (uint64_t)CH : size, copied);
			ASSERT_EQ(0, settle(fence));
			EXPECT_EQ(0xab, self->pool[self->g0][a.pool_offset + CH + 3]);
			ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
			usleep(10000);
			ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h,
					    0, 0, &a, &s, &fence, &copied));
		}
		EXPECT_EQ(MVGAL_POOL_HOST, a.pool_gpu);
		EXPECT_EQ(0, copied);
		EXPECT_EQ(-1, fence);
		ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	} else {
		EXPECT_EQ((uint32_t)self->g0, a.pool_gpu);
		EXPECT_EQ(size, copied);	/* its first session: all of it */
		ASSERT_EQ(0, settle(fence));
		EXPECT_EQ(0xab, self->pool[self->g0][a.pool_offset + CH + 3]);
		ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
		ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
				    &s, &fence, &copied));
		EXPECT_EQ((uint64_t)CH, copied);
		ASSERT_EQ(0, settle(fence));
		ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	}

	/* A buffer that cannot be shared: staged on vgem too. */
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h2, (void **)&q));
	ASSERT_EQ(0, handoff(self->m, self->vg, h2, q));
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_READ, h2, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ((uint32_t)self->vg, a.pool_gpu);
	EXPECT_EQ((uint64_t)CH, copied);
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	munmap((void *)q, size);
	munmap((void *)p, size);
	mvgal_bo_destroy(self->m, h2);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A fence that fails: a migration job waiting for a vgem fence, then
 * cancelled (its fence signals -ECANCELED). Return: its sync_file fd.
 */
static int failing_fence(struct mvgal *m, int g, struct vfence *vf,
			 uint32_t *h, uint64_t *job)
{
	struct drm_mvgal_migrate mg = { .size = CH, .location = 1 + g,
					.priority = MVGAL_PRIO_LOW };
	int ret = vfence_new(vf);

	if (!ret)
		ret = host_bo(m, CH, h);
	if (ret)
		return ret;
	mg.handle = *h;
	mg.in_fence_fd = vf->fd;
	ret = mvgal_migrate(m, &mg);
	if (ret)
		return ret;
	*job = mg.job;
	return mg.out_fence_fd;
}

/*
 * The GPU work of a WRITE session fails (its fence signals an error after
 * END): what it wrote is dropped, not copied back. The CPU reads the
 * bytes of before, another GPU gets them, and the GPU's copy is gone.
 * Ending with a fence that has failed already does the same at once.
 */
TEST_F(watch, failed_work_is_dropped)
{
	const uint64_t size = 3 * CH + 5;
	static uint8_t buf[3 * CH + 5];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	struct vfence vf = { .vgem = -1, .fd = -1 };
	uint32_t h, h2, s;
	uint8_t back[8];
	uint64_t job = 0;
	int fence, f;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	fill(buf, size, 6);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
	f = failing_fence(self->m, self->g1, &vf, &h2, &job);
	ASSERT_GE(f, 0);
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	/* The "GPU" writes chunk 1, its work is still running at END. */
	memset(self->pool[self->g0] + a.pool_offset + CH, 0xf0, 8);
	ASSERT_EQ(0, end_written(self->m, s, h, CH, 8, f));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ((uint64_t)CH, info.owned[1 + self->g0]);
	/* ... and fails. */
	ASSERT_EQ(0, mvgal_cancel(self->m, job));
	EXPECT_EQ(-ECANCELED, mvgal_fence_status(f));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, CH, back, 8));
	EXPECT_EQ(-1, check(back, 8, CH, 6));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.owned[1 + self->g0]);
	/* GPU 0 keeps chunks 0, 2 and 3 (5 bytes), not chunk 1. */
	EXPECT_EQ(2ULL * CH + 5, info.valid[1 + self->g0]);
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, CH, 1, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->g1] + a.pool_offset + CH, 8, CH, 6));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));

	/* Failed before END: dropped at once. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	memset(self->pool[self->g0] + a.pool_offset + 2 * CH, 0xf1, 8);
	ASSERT_EQ(0, end_written(self->m, s, h, 2 * CH, 8, f));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.owned[1 + self->g0]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 2 * CH, back, 8));
	EXPECT_EQ(-1, check(back, 8, 2 * CH, 6));
	close(f);
	vfence_signal(&vf);
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, h2);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A file that keeps no GPU copies (the per-thread switch of the write-
 * watch document, per fd here): its sessions stage what they use and drop
 * it at END, every time; copies another process's sessions made are used
 * and left as they were, and that process keeps its copies. Unknown flags
 * are refused.
 */
TEST_F(watch, a_file_can_keep_no_copies)
{
	const uint64_t size = 4 * CH;
	struct drm_mvgal_file_flags ff = { .flags = 1U << 9, .old = 77 };
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	uint32_t h, h2, s, old = 9;
	uint64_t copied;
	struct mvgal *m2;
	uint8_t back[4];
	int fence, fd, status;
	pid_t pid;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, size,
					    MVGAL_BO_HOST_VALID |
					    MVGAL_BO_GPU_VALID |
					    MVGAL_BO_DMA_BUF, MVGAL_GPU_ANY,
					    MVGAL_SHARING_DMA_BUF, &h));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	ASSERT_EQ(0, mvgal_open(&m2));
	ASSERT_EQ(0, mvgal_bo_import(m2, fd, &h2));
	close(fd);
	EXPECT_EQ(-1, drmIoctl(mvgal_fd(m2), DRM_IOCTL_MVGAL_FILE_FLAGS, &ff));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(77, ff.old);
	ASSERT_EQ(0, mvgal_set_file_flags(m2, MVGAL_FILE_NO_COPIES, &old));
	EXPECT_EQ(0, old);

	/* Every session of m2 stages it all anew, and keeps nothing. */
	for (int k = 0; k < 2; k++) {
		ASSERT_EQ(0, begin1(m2, self->g0, MVGAL_ACCESS_READ, h2, 0, 0,
				    &a, &s, &fence, &copied));
		EXPECT_EQ(size, copied);
		ASSERT_EQ(0, settle(fence));
		ASSERT_EQ(0, mvgal_end(m2, s, -1, NULL, 0));
		ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
		EXPECT_EQ(0, info.valid[1 + self->g0]);
	}
	/*
	 * Another process, its own file: its sessions keep their copies as
	 * ever (exit status: 0 when its BEGIN copied everything and the copy
	 * stayed after END).
	 */
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &fd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct drm_mvgal_bo_info ci;
		struct mvgal *mc;
		uint32_t hc;
		int bad;

		if (mvgal_open(&mc) || mvgal_bo_import(mc, fd, &hc) ||
		    begin1(mc, self->g0, MVGAL_ACCESS_READ, hc, 0, 0, &a, &s,
			   &fence, &copied) || settle(fence) ||
		    mvgal_end(mc, s, -1, NULL, 0) || mvgal_bo_info(mc, hc, &ci))
			_exit(2);
		bad = copied != size || ci.valid[1 + self->g0] != size;
		_exit(bad);
	}
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* m2 uses them and leaves them. */
	ASSERT_EQ(0, begin1(m2, self->g0, MVGAL_ACCESS_READ, h2, 0, 0, &a, &s,
			    &fence, &copied));
	EXPECT_EQ(0, copied);
	ASSERT_EQ(0, mvgal_end(m2, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(size, info.valid[1 + self->g0]);
	/* What an m2 session wrote is not lost. */
	ASSERT_EQ(0, mvgal_place_free(self->m, h, self->g0));
	ASSERT_EQ(0, begin1(m2, self->g0, MVGAL_ACCESS_WRITE, h2, 0, 0, &a, &s,
			    &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	memset(self->pool[self->g0] + a.pool_offset + CH, 0x3c, 4);
	ASSERT_EQ(0, end_written(m2, s, h2, CH, 4, -1));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, CH, back, 4));
	EXPECT_EQ(0x3c, back[0]);
	EXPECT_EQ(0x3c, back[3]);
	ASSERT_EQ(0, mvgal_set_file_flags(m2, 0, &old));
	EXPECT_EQ(MVGAL_FILE_NO_COPIES, old);
	mvgal_bo_destroy(m2, h2);
	mvgal_close(m2);
	mvgal_bo_destroy(self->m, h);
}

/*
 * HARVEST's output may lie in a mapping of the very buffer it harvests
 * (the reset write-protects it, and the output then faults there): it
 * works, and the output's own chunk is marked written afterwards. When
 * the results cannot reach the caller (entries in read-only memory), the
 * call fails and the reset is undone: no mark is lost.
 */
TEST_F(watch, harvest_is_all_or_nothing)
{
	const uint64_t size = 8 * CH;
	struct drm_mvgal_harvest_entry e, *ro;
	struct drm_mvgal_range *runs;
	volatile uint8_t *p;
	uint64_t w, chunks;
	uint32_t h;

	ASSERT_EQ(0, filled_bo(self->m, size, 9, &h, &p));
	ASSERT_EQ(0, reset_all(self->m, h));
	(void)p[7 * CH];		/* the output's page: mapped, read-only */
	p[0] = 1;
	p[5 * CH] = 1;
	runs = (struct drm_mvgal_range *)(p + 7 * CH);
	e = (struct drm_mvgal_harvest_entry) {
		.handle = h, .flags = MVGAL_HARVEST_RUNS,
		.data = (uintptr_t)runs, .capacity = 2,
	};
	ASSERT_EQ(0, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, &e, 1));
	ASSERT_EQ(2, e.count);
	EXPECT_EQ(0, runs[0].offset);
	EXPECT_EQ(5ULL * CH, runs[1].offset);
	ASSERT_EQ(0, peek_word(self->m, h, &w, NULL));
	EXPECT_EQ(1ULL << 7, w);

	/* Entries the module cannot write back: -EFAULT, nothing reset. */
	p[2 * CH] = 1;
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro[0] = (struct drm_mvgal_harvest_entry) {
		.handle = h, .data = (uintptr_t)&w, .capacity = 1,
	};
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	EXPECT_EQ(-EFAULT, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, ro, 1));
	ASSERT_EQ(0, peek_word(self->m, h, &w, &chunks));
	EXPECT_EQ((1ULL << 2) | (1ULL << 7), w);
	EXPECT_EQ(2, chunks);
	munmap(ro, 4096);
	munmap((void *)p, size);
	mvgal_bo_destroy(self->m, h);
}

/* Expects HARVEST to fail with @err and the struct to keep its input. */
static void expect_harvest_fails(struct __test_metadata *_metadata,
				 struct mvgal *m, struct drm_mvgal_harvest h,
				 int err, const char *what)
{
	struct drm_mvgal_harvest in = h;
	int ret = drmIoctl(mvgal_fd(m), DRM_IOCTL_MVGAL_HARVEST, &h) ? -errno : 0;

	EXPECT_EQ(err, ret) TH_LOG("%s", what);
	EXPECT_EQ(0, memcmp(&in, &h, sizeof(h))) TH_LOG("%s: struct written", what);
}

/*
 * Every bad HARVEST is refused with its errno and changes no record: the
 * marks are all still there afterwards, even with RESET asked for.
 */
TEST_F(watch, harvest_rejections)
{
	struct drm_mvgal_harvest_entry e[MVGAL_HARVEST_MAX_BUFFERS + 1], one;
	struct drm_mvgal_range r[4];
	uint64_t words[2], w;
	volatile uint8_t *p;
	uint32_t h, h2;

	/* 70 chunks, two runs written: chunk 0 and chunk 69. */
	ASSERT_EQ(0, host_bo(self->m, 70 * CH, &h));
	ASSERT_EQ(0, host_bo(self->m, CH, &h2));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	p[0] = 1;
	p[69 * CH] = 1;
	memset(e, 0, sizeof(e));
	for (unsigned int i = 0; i <= MVGAL_HARVEST_MAX_BUFFERS; i++) {
		e[i].handle = h;
		e[i].data = (uintptr_t)words;
		e[i].capacity = 2;
	}
	one = e[0];
	struct drm_mvgal_harvest good = {
		.entries = (uintptr_t)&one, .count = 1,
		.flags = MVGAL_HARVEST_RESET,
	}, bad;

	bad = good;
	bad.flags |= 1U << 7;
	expect_harvest_fails(_metadata, self->m, bad, -EINVAL, "unknown flag");
	bad = good;
	bad.count = 0;
	expect_harvest_fails(_metadata, self->m, bad, -EINVAL, "no entries");
	bad = good;
	bad.entries = (uintptr_t)e;
	bad.count = MVGAL_HARVEST_MAX_BUFFERS + 1;
	expect_harvest_fails(_metadata, self->m, bad, -EINVAL, "too many");
	bad.count = 2;
	expect_harvest_fails(_metadata, self->m, bad, -EINVAL, "named twice");
	bad = good;
	bad.entries = 8;
	expect_harvest_fails(_metadata, self->m, bad, -EFAULT, "entries pointer");
	one.flags = 1U << 5;
	expect_harvest_fails(_metadata, self->m, good, -EINVAL, "entry flag");
	one = e[0];
	one.handle = 0xdead;
	expect_harvest_fails(_metadata, self->m, good, -ENOENT, "handle");
	one = e[0];
	one.data = 8;
	expect_harvest_fails(_metadata, self->m, good, -EFAULT, "data pointer");
	one = e[0];
	one.flags = MVGAL_HARVEST_RUNS;
	one.data = 8;
	one.capacity = 4;
	expect_harvest_fails(_metadata, self->m, good, -EFAULT, "runs pointer");
	/* A zeroed bitmap is a bitmap: not runs too. */
	one = e[0];
	one.flags = MVGAL_HARVEST_ZEROED | MVGAL_HARVEST_RUNS;
	expect_harvest_fails(_metadata, self->m, good, -EINVAL, "zeroed runs");
	/* Its output is first written after the reset, which is undone. */
	one = e[0];
	one.flags = MVGAL_HARVEST_ZEROED;
	one.data = 8;
	expect_harvest_fails(_metadata, self->m, good, -EFAULT, "zeroed pointer");

	/* A zeroed bitmap needs room for all of it; nothing is written. */
	fill_words(words, 2);
	one = e[0];
	one.flags = MVGAL_HARVEST_ZEROED;
	one.capacity = 1;
	EXPECT_EQ(-ENOSPC, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, &one, 1));
	EXPECT_EQ(2, one.count);
	EXPECT_EQ(SENTINEL, words[0]);
	EXPECT_EQ(SENTINEL, words[1]);
	EXPECT_EQ(2, cpu_written(self->m, h));

	/* Too little room: -ENOSPC, and what it needs. */
	one = e[0];
	one.capacity = 1;
	EXPECT_EQ(-ENOSPC, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, &one, 1));
	EXPECT_EQ(2, one.count);
	one = (struct drm_mvgal_harvest_entry) {
		.handle = h, .flags = MVGAL_HARVEST_RUNS,
		.data = (uintptr_t)r, .capacity = 1,
	};
	EXPECT_EQ(-ENOSPC, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, &one, 1));
	EXPECT_EQ(2, one.count);
	/* One entry fits, the other does not: neither is reset. */
	e[0] = (struct drm_mvgal_harvest_entry) {
		.handle = h2, .data = (uintptr_t)&w, .capacity = 1,
	};
	ASSERT_EQ(0, mvgal_bo_write(self->m, h2, 5, words, 1));
	e[1] = one;
	EXPECT_EQ(-ENOSPC, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, e, 2));
	EXPECT_EQ(2, e[1].count);
	ASSERT_EQ(0, peek_word(self->m, h2, &w, NULL));
	EXPECT_EQ(1, w);

	/* After all of that, the record is whole. */
	one = (struct drm_mvgal_harvest_entry) {
		.handle = h, .data = (uintptr_t)words, .capacity = 2,
	};
	ASSERT_EQ(0, mvgal_harvest(self->m, 0, &one, 1));
	EXPECT_EQ(2, one.chunks);
	EXPECT_EQ(1, words[0]);
	EXPECT_EQ(1ULL << (69 - 64), words[1]);
	munmap((void *)p, 70 * CH);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/*
 * MVGAL_HARVEST_ZEROED writes only the words that hold written chunks,
 * each whole, and leaves every other word of the caller's array as it
 * was (a sentinel here, where the caller would have zero): 201 chunks,
 * the last one short, are 4 words, of which the writes touch words 0 and
 * 2. A reset clears what it reported and re-arms those pages; a run
 * across a word's end fills both words.
 */
TEST_F(watch, zeroed_harvest_writes_only_written_words)
{
	const uint64_t size = 200 * CH + 1000;
	const unsigned int written[] = { 3, 63, 128, 129, 130, 191 };
	const uint64_t w0 = (1ULL << 3) | (1ULL << 63);
	const uint64_t w2 = 7 | (1ULL << 63);
	struct drm_mvgal_harvest_entry e;
	volatile uint8_t *p;
	uint64_t words[5];	/* the last beyond @capacity */
	uint32_t h;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	for (unsigned int i = 0; i < 6; i++)
		p[written[i] * CH + 17] = 1;
	/* A peek, then a reset: the same report. */
	for (int reset = 0; reset < 2; reset++) {
		fill_words(words, 5);
		e = (struct drm_mvgal_harvest_entry) {
			.handle = h, .flags = MVGAL_HARVEST_ZEROED,
			.data = (uintptr_t)words, .capacity = 4,
		};
		ASSERT_EQ(0, mvgal_harvest(self->m,
					   reset ? MVGAL_HARVEST_RESET : 0,
					   &e, 1));
		EXPECT_EQ(2, e.count) TH_LOG("reset %d", reset);
		EXPECT_EQ(6, e.chunks);
		EXPECT_EQ(w0, words[0]);
		EXPECT_EQ(SENTINEL, words[1]);
		EXPECT_EQ(w2, words[2]);
		EXPECT_EQ(SENTINEL, words[3]);
		EXPECT_EQ(SENTINEL, words[4]);
	}
	EXPECT_EQ(0, cpu_written(self->m, h));
	/* Nothing left: nothing written, and the plain bitmap agrees. */
	fill_words(words, 5);
	ASSERT_EQ(0, mvgal_harvest(self->m, 0, &e, 1));
	EXPECT_EQ(0, e.count);
	EXPECT_EQ(0, e.chunks);
	for (int i = 0; i < 5; i++) {
		EXPECT_EQ(SENTINEL, words[i]) TH_LOG("word %d", i);
	}
	e.flags = 0;
	ASSERT_EQ(0, mvgal_harvest(self->m, 0, &e, 1));
	EXPECT_EQ(4, e.count);
	EXPECT_EQ(0, e.chunks);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(0, words[i]) TH_LOG("word %d", i);
	}
	EXPECT_EQ(SENTINEL, words[4]);

	/* Chunks 62-66 (words 0 and 1) and the short last one (word 3). */
	for (unsigned int c = 62; c <= 66; c++)
		p[c * CH + 9] = 2;
	p[size - 1] = 2;
	fill_words(words, 5);
	e.flags = MVGAL_HARVEST_ZEROED;
	ASSERT_EQ(0, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, &e, 1));
	EXPECT_EQ(3, e.count);
	EXPECT_EQ(6, e.chunks);
	EXPECT_EQ(3ULL << 62, words[0]);
	EXPECT_EQ(7, words[1]);
	EXPECT_EQ(SENTINEL, words[2]);
	EXPECT_EQ(1ULL << (200 - 192), words[3]);
	EXPECT_EQ(SENTINEL, words[4]);
	EXPECT_EQ(0, cpu_written(self->m, h));
	munmap((void *)p, (size + 4095) & ~4095ULL);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A zeroed bitmap is not written before the reset (not to cost its
 * buffer's size), so an output the module cannot write is found only
 * after: the call fails with -EFAULT and the reset is undone in every
 * buffer of the call, the one whose output was written included, down to
 * the count of written chunks BO_INFO reports.
 */
TEST_F(watch, zeroed_harvest_is_all_or_nothing)
{
	const uint64_t size = 150 * CH + 5;	/* 151 chunks: 3 words */
	const uint64_t w2 = (3ULL << 2) | (1ULL << 22);
	struct drm_mvgal_harvest_entry e[2];
	uint64_t ok[3], words[3], chunks;
	volatile uint8_t *p, *p2;
	uint64_t *ro;
	uint32_t h, h2;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h2, (void **)&p2));
	p[CH] = 1;			/* word 0 */
	p[130 * CH] = 1;		/* word 2: chunks 130, 131, 150 */
	p[131 * CH + 7] = 1;
	p[size - 1] = 1;
	p2[64 * CH] = 1;		/* word 1 */
	/* Zero, as ZEROED asks, but read-only. */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	memset(ok, 0, sizeof(ok));
	e[0] = (struct drm_mvgal_harvest_entry) {
		.handle = h2, .flags = MVGAL_HARVEST_ZEROED,
		.data = (uintptr_t)ok, .capacity = 3,
	};
	e[1] = (struct drm_mvgal_harvest_entry) {
		.handle = h, .flags = MVGAL_HARVEST_ZEROED,
		.data = (uintptr_t)ro, .capacity = 3,
	};
	EXPECT_EQ(-EFAULT, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, e, 2));
	ASSERT_EQ(0, peek_words(self->m, h, words, 3, &chunks));
	EXPECT_EQ(4, chunks);
	EXPECT_EQ(1ULL << 1, words[0]);
	EXPECT_EQ(0, words[1]);
	EXPECT_EQ(w2, words[2]);
	EXPECT_EQ(4, cpu_written(self->m, h));
	ASSERT_EQ(0, peek_words(self->m, h2, words, 3, &chunks));
	EXPECT_EQ(1, chunks);
	EXPECT_EQ(0, words[0]);
	EXPECT_EQ(1, words[1]);
	EXPECT_EQ(0, words[2]);
	EXPECT_EQ(1, cpu_written(self->m, h2));

	/* With room it can write, the same call takes everything. */
	memset(ok, 0, sizeof(ok));
	memset(words, 0, sizeof(words));
	e[1].data = (uintptr_t)words;
	ASSERT_EQ(0, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, e, 2));
	EXPECT_EQ(1, e[0].count);
	EXPECT_EQ(1, e[0].chunks);
	EXPECT_EQ(0, ok[0]);
	EXPECT_EQ(1, ok[1]);
	EXPECT_EQ(0, ok[2]);
	EXPECT_EQ(2, e[1].count);
	EXPECT_EQ(4, e[1].chunks);
	EXPECT_EQ(1ULL << 1, words[0]);
	EXPECT_EQ(0, words[1]);
	EXPECT_EQ(w2, words[2]);
	EXPECT_EQ(0, cpu_written(self->m, h));
	EXPECT_EQ(0, cpu_written(self->m, h2));
	munmap(ro, 4096);
	munmap((void *)p, (size + 4095) & ~4095ULL);
	munmap((void *)p2, (size + 4095) & ~4095ULL);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

TEST_HARNESS_MAIN
