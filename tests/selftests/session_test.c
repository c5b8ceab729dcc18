// SPDX-License-Identifier: GPL-2.0
/*
 * Coherence and migration: access sessions, chunk residency, the path
 * selector's methods, the migration engine, freeing and detaching.
 *
 * A GPU's "work" is played by the test: it reads and writes the pool
 * range BEGIN returns through an mmap of the pool's dma-buf, and its
 * fences are vgem fences it signals when it likes.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <sys/syscall.h>
#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

FIXTURE(sess) {
	COH_FIELDS;
};

FIXTURE_SETUP(sess)
{
	COH_SETUP(self);
}

FIXTURE_TEARDOWN(sess)
{
	coh_teardown(self->m, self->pool);
}

/* CPU-written bytes are at the GPU's placement after BEGIN; only what
 * was named is copied, whole chunks, and the residency says so.
 */
TEST_F(sess, cpu_data_reaches_gpu)
{
	const uint64_t size = 3 * CH + 123;
	static uint8_t buf[3 * CH + 123];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	uint32_t h, s;
	uint64_t copied;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	fill(buf, size, 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
	/* Bytes 70000..75000 lie in chunk 1 only. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 70000,
			    5000, &a, &s, &fence, &copied));
	EXPECT_EQ((uint64_t)CH, copied);
	EXPECT_EQ((uint32_t)self->g1, a.pool_gpu);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->g1] + a.pool_offset + CH, CH, CH, 1));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ((uint64_t)CH, info.valid[1 + self->g1]);
	EXPECT_EQ(size, info.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ(0u, info.owned[1 + self->g1]);
	EXPECT_EQ(1u, info.sessions);
	EXPECT_EQ((uint64_t)CH, info.chunk_size);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));

	/* The whole buffer now: the three chunks missing, last clipped. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(2 * (uint64_t)CH + 4096, copied);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->g1] + a.pool_offset, size, 0, 1));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/* Resident and clean: nothing to copy, nothing to wait for. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(0u, copied);
	EXPECT_EQ(-1, fence);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	mvgal_bo_destroy(self->m, h);
}

/* What the GPU writes in a WRITE session is what the CPU sees after END,
 * through pread and through a CPU mapping, and only the written chunks
 * move.
 */
TEST_F(sess, gpu_data_reaches_cpu)
{
	const uint64_t size = 4 * CH + 777;
	static uint8_t buf[4 * CH + 777], back[4 * CH + 777];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	uint32_t h, s;
	uint64_t copied;
	uint8_t *cpu;
	int fence;

	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID, self->g0, &h));
	fill(buf, size, 2);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&cpu));
	EXPECT_EQ(-1, check(cpu, size, 0, 2));	/* mapped before the GPU */

	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, CH + 5,
			    2 * CH, &a, &s, &fence, &copied));
	EXPECT_EQ(3 * (uint64_t)CH, copied);
	ASSERT_EQ(0, settle(fence));
	/* The GPU writes pattern 3 over [CH + 5, 3 CH + 5). */
	for (uint64_t i = CH + 5; i < 3 * CH + 5; i++)
		self->pool[self->g0][a.pool_offset + i] = pat(i, 3);
	ASSERT_EQ(0, end_written(self->m, s, h, CH + 5, 2 * CH, -1));
	for (uint64_t i = CH + 5; i < 3 * CH + 5; i++)
		buf[i] = pat(i, 3);

	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(3 * (uint64_t)CH, info.owned[1 + self->g0]);
	EXPECT_EQ(size - 3 * CH, info.valid[MVGAL_LOC_HOST]);
	/* The mapping faults the chunks home: byte for byte. */
	EXPECT_EQ(0, memcmp(cpu, buf, size));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(size, info.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ(0u, info.owned[1 + self->g0]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(0, memcmp(back, buf, size));
	munmap(cpu, size);
	mvgal_bo_destroy(self->m, h);
}

/* pread alone brings GPU-owned chunks home (no mapping involved). */
TEST_F(sess, pread_brings_chunks_home)
{
	const uint64_t size = 2 * CH + 10;
	static uint8_t back[2 * CH + 10];
	struct drm_mvgal_access a;
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID |
				     MVGAL_BO_ZERO_INITIALIZED, MVGAL_GPU_ANY,
				     &h));
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < size; i++)
		self->pool[self->vg][a.pool_offset + i] = pat(i, 4);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, size, 0, 4));
	mvgal_bo_destroy(self->m, h);
}

/* Chunk copies made since @st (and @st brought up to date). */
static uint64_t copies_since(struct mvgal *m, struct drm_mvgal_stats *st,
			     uint64_t *bytes)
{
	struct drm_mvgal_stats now;
	uint64_t n = 0;

	*bytes = 0;
	if (mvgal_get_stats(m, &now))
		return ~0ULL;
	/* In place is no copy. */
	for (int i = MVGAL_METHOD_IN_PLACE + 1; i < MVGAL_METHOD_COUNT; i++) {
		n += now.copies[i] - st->copies[i];
		*bytes += now.bytes[i] - st->bytes[i];
	}
	*st = now;
	return n;
}

/*
 * A pwrite brings home only the chunks it covers in part: the old bytes
 * of the others would be overwritten unread. Every byte is right after.
 */
TEST_F(sess, pwrite_fetches_only_the_chunks_it_covers_in_part)
{
	const uint64_t size = 4 * CH + 100;
	static uint8_t buf[4 * CH + 100], back[4 * CH + 100];
	struct drm_mvgal_stats st;
	struct drm_mvgal_access a;
	uint64_t bytes;
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID, MVGAL_GPU_ANY, &h));
	/* The GPU writes all of it: its pool has the only current copy. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &s, &fence,
			    NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < size; i++)
		self->pool[self->g0][a.pool_offset + i] = pat(i, 4);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));

	/* From inside chunk 0 to the end: chunk 0 alone comes home. */
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st));
	fill(buf, size, 5);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, CH - 5, buf + CH - 5,
				    size - CH + 5));
	EXPECT_EQ(1, copies_since(self->m, &st, &bytes));
	EXPECT_EQ((uint64_t)CH, bytes);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, CH - 5, 0, 4));
	EXPECT_EQ(-1, check(back + CH - 5, size - CH + 5, CH - 5, 5));

	/* Again at the GPU; chunks 1 and 2 whole, 3 in part: 3 comes home. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &s, &fence,
			    NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < size; i++)
		self->pool[self->g0][a.pool_offset + i] = pat(i, 6);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st));
	fill(buf, size, 7);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, CH, buf + CH, 2 * CH + 9));
	EXPECT_EQ(1, copies_since(self->m, &st, &bytes));
	EXPECT_EQ((uint64_t)CH, bytes);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, CH, 0, 6));
	EXPECT_EQ(-1, check(back + CH, 2 * CH + 9, CH, 7));
	EXPECT_EQ(-1, check(back + 3 * CH + 9, size - 3 * CH - 9, 3 * CH + 9, 6));
	mvgal_bo_destroy(self->m, h);
}

/* The GPU writes all of @h (pattern @seed): its pool has the only copy. */
static void gpu_writes_all(struct __test_metadata *_metadata,
			   FIXTURE_DATA(sess) *self, uint32_t h, uint64_t size,
			   int seed)
{
	struct drm_mvgal_access a;
	uint32_t s;
	int fence;

	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &s, &fence,
			    NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < size; i++)
		self->pool[self->g0][a.pool_offset + i] = pat(i, seed);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
}

/*
 * Writes through the mapping fault a page at a time, and each fault
 * fetches its whole chunk: MVGAL_MARK_OVERWRITE says first that the range
 * will be overwritten, and only the chunks it covers in part come home.
 * Every byte is right after, read through the mapping and by pread.
 */
TEST_F(sess, a_mapped_overwrite_fetches_only_the_edges)
{
	const uint64_t size = 4 * CH + 100, off = CH - 5, len = 2 * CH + 9;
	static uint8_t back[4 * CH + 100];
	struct drm_mvgal_stats st;
	uint64_t bytes;
	uint8_t *cpu;
	uint32_t h;

	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID, MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&cpu));

	/* Without the hint, the four chunks written come home. */
	gpu_writes_all(_metadata, self, h, size, 4);
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st));
	for (uint64_t i = off; i < off + len; i++)
		cpu[i] = pat(i, 5);
	EXPECT_EQ(4, copies_since(self->m, &st, &bytes));

	/* With it, chunks 0 and 3 (in part), not 1 and 2 (whole). */
	gpu_writes_all(_metadata, self, h, size, 6);
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st));
	ASSERT_EQ(0, mvgal_bo_overwrite(self->m, h, off, len));
	EXPECT_EQ(2, copies_since(self->m, &st, &bytes));
	EXPECT_EQ(2 * (uint64_t)CH, bytes);
	for (uint64_t i = off; i < off + len; i++)
		cpu[i] = pat(i, 7);
	EXPECT_EQ(0, copies_since(self->m, &st, &bytes));
	EXPECT_EQ(-1, check(cpu, off, 0, 6));
	EXPECT_EQ(-1, check(cpu + off, len, off, 7));
	EXPECT_EQ(-1, check(cpu + off + len, size - off - len, off + len, 6));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, off, 0, 6));
	EXPECT_EQ(-1, check(back + off, len, off, 7));
	EXPECT_EQ(-1, check(back + off + len, size - off - len, off + len, 6));
	/* The chunks the CPU wrote go to the GPU again at its next BEGIN. */
	munmap(cpu, size);
	mvgal_bo_destroy(self->m, h);
}

/*
 * MVGAL_MARK_OVERWRITE's rejections change nothing: the GPU's bytes stay
 * where they are, uncopied.
 */
TEST_F(sess, overwrite_rejections)
{
	const uint64_t size = 2 * CH + 10;
	struct drm_mvgal_bo_mark mk = {
		.flags = MVGAL_MARK_OVERWRITE, .size = CH,
	};
	static uint8_t back[2 * CH + 10];
	struct drm_mvgal_access a;
	struct drm_mvgal_stats st;
	struct drm_mvgal_bo_info info;
	uint64_t bytes;
	uint32_t h, s;
	int fence, fd = self->fd;

	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID, MVGAL_GPU_ANY, &h));
	gpu_writes_all(_metadata, self, h, size, 8);
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st));
	mk.handle = h;
	mk.flags = MVGAL_MARK_OVERWRITE | 2;
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	mk.flags = MVGAL_MARK_OVERWRITE;
	mk.offset = size - CH + 1;
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	mk.offset = ~0ULL - 10;
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	mk.offset = 0;
	mk.handle = h + 1000;
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(ENOENT, errno);
	mk.handle = h;
	/* Size 0 marks nothing. */
	mk.size = 0;
	EXPECT_EQ(0, ioctl(fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	/* A live session on the chunks: -EBUSY at once. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, CH,
			    &a, &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st));
	EXPECT_EQ(-EBUSY, mvgal_bo_overwrite(self->m, h, 0, 2 * CH));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	EXPECT_EQ(0, copies_since(self->m, &st, &bytes));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.valid[MVGAL_LOC_HOST]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, size, 0, 8));
	mvgal_bo_destroy(self->m, h);
}

/* Conflicts are refused at once with -EBUSY, per chunk. */
TEST_F(sess, conflicting_access_is_busy)
{
	struct drm_mvgal_access a, b;
	uint8_t x[16] = { 0 };
	uint32_t h, s, s2;
	int fence, f2;

	ASSERT_EQ(0, host_bo(self->m, 4 * CH, &h));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, CH,
			    &a, &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	/* Write live on chunk 0: a read or write of it by anyone is busy. */
	EXPECT_EQ(-EBUSY, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 10, 1,
				 &b, &s2, &f2, NULL));
	EXPECT_EQ(-EBUSY, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 1,
				 &b, &s2, &f2, NULL));
	EXPECT_EQ(-EBUSY, mvgal_bo_write(self->m, h, 100, x, sizeof(x)));
	EXPECT_EQ(-EBUSY, mvgal_bo_read(self->m, h, 100, x, sizeof(x)));
	/* Chunk 1 is free. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, CH, 1, &b,
			    &s2, &f2, NULL));
	ASSERT_EQ(0, settle(f2));
	/* Read live on chunk 1: more readers fine, a writer busy. */
	EXPECT_EQ(-EBUSY, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, CH,
				 5, &b, &s, &f2, NULL));
	EXPECT_EQ(-EBUSY, mvgal_bo_write(self->m, h, CH + 1, x, 1));
	EXPECT_EQ(0, mvgal_bo_read(self->m, h, CH + 1, x, 1));
	ASSERT_EQ(0, mvgal_end(self->m, s2, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/* All ended: everything goes. */
	EXPECT_EQ(0, mvgal_bo_write(self->m, h, 100, x, sizeof(x)));
	mvgal_bo_destroy(self->m, h);
}

/* A reader waits for the last writer's fence; data follows the fence. */
TEST_F(sess, reader_waits_for_writer_fence)
{
	struct drm_mvgal_stats st0, st1;
	struct drm_mvgal_access a;
	struct vfence vf;
	uint8_t back[100];
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, host_bo(self->m, 2 * CH, &h));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < 2 * CH; i++)
		self->pool[self->g0][a.pool_offset + i] = pat(i, 5);
	/* The "GPU work" is still running: its fence is vgem's. END counts
	 * it (an END without a fence does not: see below).
	 */
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	ASSERT_EQ(0, mvgal_end(self->m, s, vf.fd, NULL, 0));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
	EXPECT_EQ(st0.end_fences + 1, st1.end_fences);
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_GE(fence, 0);
	EXPECT_EQ(0, mvgal_fence_status(fence));
	EXPECT_EQ(-ETIME, mvgal_fence_wait(fence, 300));
	vfence_signal(&vf);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->g1] + a.pool_offset, 2 * CH, 0, 5));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	EXPECT_EQ(st1.end_fences, st0.end_fences);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, CH - 50, back, sizeof(back)));
	EXPECT_EQ(-1, check(back, sizeof(back), CH - 50, 5));
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, h);
}

/* Freeing a placement drains what only it holds; then nothing is valid
 * there and the next BEGIN copies again.
 */
TEST_F(sess, free_placement_drains_home)
{
	const uint64_t size = 3 * CH + 1;
	static uint8_t back[3 * CH + 1];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_stats st0, st1;
	struct drm_mvgal_access a;
	uint32_t h, s;
	uint64_t copied;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < size; i++)
		self->pool[self->g1][a.pool_offset + i] = pat(i, 6);
	/* Live: the placement cannot go. */
	EXPECT_EQ(-EBUSY, mvgal_place_free(self->m, h, self->g1));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	ASSERT_EQ(0, mvgal_place_free(self->m, h, self->g1));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
	/* Whole chunks; the last one ends with the buffer's last page. */
	EXPECT_EQ(3 * (uint64_t)CH + 4096, st1.drained - st0.drained);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0u, info.valid[1 + self->g1]);
	EXPECT_EQ(0u, info.resident[1 + self->g1]);
	EXPECT_EQ(size, info.owned[MVGAL_LOC_HOST]);
	/* Poison the freed range: a stale placement would show it. */
	memset(self->pool[self->g1] + a.pool_offset, 0xee, size);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, size, 0, 6));
	/* Idempotent, and the next session copies everything again. */
	EXPECT_EQ(0, mvgal_place_free(self->m, h, self->g1));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(3 * (uint64_t)CH + 4096, copied);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->g1] + a.pool_offset, size, 0, 6));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	mvgal_bo_destroy(self->m, h);
}

/* vgem uses virtio-gpu's pool in place; virtio-gpu refuses vgem's, so
 * that direction is a copy. GET_STATS counts the bytes used in place,
 * and only those. In the stand-in pass g0 is the VRAM stand-in, whose
 * driver (amdgpu's rules) imports vgem's pool: that direction is in
 * place too, read through vgem's pool.
 */
TEST_F(sess, in_place_only_where_the_driver_imports)
{
	struct drm_mvgal_stats st0, st1;
	struct drm_mvgal_access a;
	uint32_t h, s;
	uint64_t copied;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, 2 * CH, &h));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < 2 * CH; i++)
		self->pool[self->g0][a.pool_offset + i] = pat(i, 7);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));

	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(0u, copied);
	EXPECT_EQ((uint32_t)self->g0, a.pool_gpu);
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset, 2 * CH, 0, 7));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
	EXPECT_EQ(2 * (uint64_t)CH, st1.bytes[MVGAL_METHOD_IN_PLACE] -
				    st0.bytes[MVGAL_METHOD_IN_PLACE]);
	EXPECT_EQ(st0.copies[MVGAL_METHOD_IN_PLACE],
		  st1.copies[MVGAL_METHOD_IN_PLACE]);

	/* Asked not to, it copies into its own pool. */
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &s, &fence,
			    &copied));
	EXPECT_EQ(2 * (uint64_t)CH, copied);
	EXPECT_EQ((uint32_t)self->vg, a.pool_gpu);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->vg] + a.pool_offset, 2 * CH, 0, 7));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	EXPECT_EQ(st1.bytes[MVGAL_METHOD_IN_PLACE],
		  st0.bytes[MVGAL_METHOD_IN_PLACE]);

	/* vgem now writes: only vgem's pool has the bytes. */
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &s, &fence,
			    NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < 2 * CH; i++)
		self->pool[self->vg][a.pool_offset + i] = pat(i, 8);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	if (standin_role() >= 0) {
		EXPECT_EQ(0u, copied);
		EXPECT_EQ((uint32_t)self->vg, a.pool_gpu);
	} else {
		EXPECT_EQ(2 * (uint64_t)CH, copied);
		EXPECT_EQ((uint32_t)self->g0, a.pool_gpu);
	}
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[a.pool_gpu] + a.pool_offset, 2 * CH, 0, 8));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	mvgal_bo_destroy(self->m, h);
}

/* Each CPU-driven method, forced in turn, moves correct bytes and is
 * counted as itself.
 */
TEST_F(sess, forced_methods_move_correct_bytes)
{
	static const struct { const char *v; unsigned int m; } force[] = {
		{ "2", MVGAL_METHOD_CPU_COPY }, { "3", MVGAL_METHOD_STAGING },
	};

	for (unsigned int k = 0; k < 2; k++) {
		const uint64_t size = 5 * CH + 99;
		static uint8_t buf[5 * CH + 99];
		struct drm_mvgal_stats st0, st1;
		struct drm_mvgal_access a;
		uint32_t h, s;
		int fence;

		ASSERT_EQ(0, write_param(FORCE, force[k].v));
		ASSERT_EQ(0, host_bo(self->m, size, &h));
		fill(buf, size, 10 + k);
		ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
		ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
		/* host -> g0, then g0 -> vgem: in place is possible there,
		 * but a forced copy method wins.
		 */
		ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0,
				    0, &a, &s, &fence, NULL));
		ASSERT_EQ(0, settle(fence));
		EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset, size,
				    0, 10 + k));
		ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
		ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_READ, h, 0,
				    0, &a, &s, &fence, NULL));
		EXPECT_EQ((uint32_t)self->vg, a.pool_gpu);
		ASSERT_EQ(0, settle(fence));
		EXPECT_EQ(-1, check(self->pool[self->vg] + a.pool_offset, size,
				    0, 10 + k));
		ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
		ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
		/* Two copies of 5 chunks and the last page. */
		EXPECT_EQ(2 * (5 * (uint64_t)CH + 4096),
			  st1.bytes[force[k].m] - st0.bytes[force[k].m]);
		EXPECT_EQ(0u, st1.bytes[MVGAL_METHOD_CPU_COPY + MVGAL_METHOD_STAGING -
					force[k].m] -
			      st0.bytes[MVGAL_METHOD_CPU_COPY + MVGAL_METHOD_STAGING -
					force[k].m]);
		mvgal_bo_destroy(self->m, h);
	}
}

/* MIGRATE runs as a job; a job behind an unsignaled fence can be
 * cancelled, and then nothing moved.
 */
TEST_F(sess, migrate_and_cancel)
{
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_stats st0, st1;
	struct drm_mvgal_migrate mg;
	struct vfence vf;
	uint32_t h;

	ASSERT_EQ(0, host_bo(self->m, 3 * CH, &h));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	mg = (struct drm_mvgal_migrate) {
		.handle = h, .offset = CH, .size = CH + 1,
		.location = 1 + self->g1, .priority = MVGAL_PRIO_LOW,
		.in_fence_fd = -1,
	};
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	EXPECT_EQ(2 * (uint64_t)CH, mg.bytes);
	EXPECT_NE(0u, mg.job);
	ASSERT_EQ(0, settle(mg.out_fence_fd));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(2 * (uint64_t)CH, info.valid[1 + self->g1]);

	ASSERT_EQ(0, vfence_new(&vf));
	mg = (struct drm_mvgal_migrate) {
		.handle = h, .offset = 0, .size = 3 * CH,
		.location = 1 + self->g0, .priority = MVGAL_PRIO_LOW,
		.in_fence_fd = vf.fd,
	};
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	EXPECT_EQ(0, mvgal_fence_status(mg.out_fence_fd));
	EXPECT_EQ(0, mvgal_cancel(self->m, mg.job));
	EXPECT_EQ(-ECANCELED, mvgal_fence_status(mg.out_fence_fd));
	EXPECT_EQ(-ENOENT, mvgal_cancel(self->m, mg.job + 1000));
	close(mg.out_fence_fd);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0u, info.valid[1 + self->g0]);
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
	EXPECT_EQ(2u, st1.scheduled - st0.scheduled);
	EXPECT_EQ(1u, st1.completed - st0.completed);
	EXPECT_EQ(1u, st1.cancelled - st0.cancelled);
	EXPECT_EQ(2u, st1.jobs[MVGAL_PRIO_LOW] - st0.jobs[MVGAL_PRIO_LOW]);
	vfence_signal(&vf);
	vfence_free(&vf);

	/* Switched off: refused, but sessions still copy. */
	ASSERT_EQ(0, write_param(MIGRATION, "N"));
	mg.in_fence_fd = -1;
	EXPECT_EQ(-EPERM, mvgal_migrate(self->m, &mg));
	mvgal_bo_destroy(self->m, h);
}

/* A process that exits inside a WRITE session: the session ends, the
 * chunks it may have written stay the GPU's, nothing is live after.
 */
TEST_F(sess, exit_ends_sessions)
{
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	uint8_t back[64];
	uint32_t h, s;
	int fence, status, dmabuf;
	pid_t pid;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, 2 * CH,
					    MVGAL_BO_HOST_VALID |
					    MVGAL_BO_GPU_VALID | MVGAL_BO_DMA_BUF,
					    MVGAL_GPU_ANY, MVGAL_SHARING_DMA_BUF,
					    &h));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &dmabuf));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct mvgal *m;
		uint32_t ch;

		if (mvgal_open(&m) || mvgal_bo_import(m, dmabuf, &ch))
			_exit(2);
		if (begin1(m, self->g0, MVGAL_ACCESS_WRITE, ch, 0, 0, &a, &s,
			   &fence, NULL) || settle(fence))
			_exit(3);
		for (uint64_t i = 0; i < 64; i++)
			self->pool[self->g0][a.pool_offset + i] = pat(i, 9);
		_exit(0);	/* no END */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0u, info.sessions);
	EXPECT_EQ(2 * (uint64_t)CH, info.owned[1 + self->g0]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, sizeof(back)));
	EXPECT_EQ(-1, check(back, sizeof(back), 0, 9));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	close(dmabuf);
	mvgal_bo_destroy(self->m, h);
}

/* Raw BEGIN: the library would catch some of these itself. */
static int raw_begin(int fd, struct drm_mvgal_begin *b)
{
	return drmIoctl(fd, DRM_IOCTL_MVGAL_BEGIN, b) ? -errno : 0;
}

/* Every malformed BEGIN is refused, and nothing changes. */
TEST_F(sess, begin_rejections)
{
	struct drm_mvgal_range r = { .offset = 0, .size = 1 };
	struct drm_mvgal_access a[2];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_stats st0, st1;
	struct drm_mvgal_begin b;
	uint32_t h, h2;
	const struct {
		const char *what;
		uint32_t flags, count, gpu, prio, stride, apad, nr;
		uint64_t roff, rsize;
		int dup, handle, badptr;
		int err;
	} cases[] = {
		{ "unknown flag", 1u << 7, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "no mode", 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "read and write", 3, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "count 0", 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "count too big", 1, 65, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "gpu out of range", 1, 1, 8, 1, 0, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "empty gpu slot", 1, 1, 7, 1, 0, 0, 1, 0, 1, 0, 0, 0, -ENODEV },
		{ "bad priority", 1, 1, 0, 3, 0, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		/* The stride took ABI 1's padding: 1 is below any access. */
		{ "stride 1", 1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "stride below ABI 1", 1, 1, 0, 1, MVGAL_ACCESS_SIZE_V1 - 8, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "stride too big", 1, 1, 0, 1, MVGAL_STRIDE_MAX + 8, 0, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "access padding", 1, 1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0, -EINVAL },
		{ "too many ranges", 1, 1, 0, 1, 0, 0, 65, 0, 1, 0, 0, 0, -EINVAL },
		{ "empty range", 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, -EINVAL },
		{ "range past the end", 1, 1, 0, 1, 0, 0, 1, 3 * CH - 1, 2, 0, 0, 0, -EINVAL },
		{ "overflowing range", 1, 1, 0, 1, 0, 0, 1, ~0ull, 2, 0, 0, 0, -EINVAL },
		{ "handle twice", 1, 2, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, -EINVAL },
		{ "bad handle", 1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, -ENOENT },
		{ "bad pointer", 1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, -EFAULT },
	};

	ASSERT_EQ(0, host_bo(self->m, 3 * CH, &h));
	ASSERT_EQ(0, host_bo(self->m, CH, &h2));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct drm_mvgal_begin before;

		r = (struct drm_mvgal_range) { cases[i].roff, cases[i].rsize };
		for (int k = 0; k < 2; k++)
			a[k] = (struct drm_mvgal_access) {
				.handle = k && !cases[i].dup ? h2 : h,
				.nr_ranges = cases[i].nr,
				.ranges = (uintptr_t)&r, .pad = cases[i].apad,
			};
		if (cases[i].handle)
			a[0].handle = 0xdead;
		b = (struct drm_mvgal_begin) {
			.accesses = cases[i].badptr ? 8 : (uintptr_t)a,
			.count = cases[i].count,
			.gpu = cases[i].gpu == 0 ? (uint32_t)self->g0 :
			       cases[i].gpu == 7 ? 7 : cases[i].gpu,
			.flags = cases[i].flags, .in_fence_fd = -1,
			.priority = cases[i].prio, .stride = cases[i].stride,
		};
		before = b;
		EXPECT_EQ(cases[i].err, raw_begin(self->fd, &b))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(0, memcmp(&before, &b, sizeof(b)))
			TH_LOG("%s: struct written", cases[i].what);
	}
	/* A bad in-fence. */
	a[0] = (struct drm_mvgal_access) { .handle = h };
	b = (struct drm_mvgal_begin) {
		.accesses = (uintptr_t)a, .count = 1, .gpu = self->g0,
		.flags = MVGAL_ACCESS_READ, .in_fence_fd = self->fd,
	};
	EXPECT_EQ(-EINVAL, raw_begin(self->fd, &b));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
	EXPECT_EQ(st0.scheduled, st1.scheduled);
	EXPECT_EQ(st0.sessions, st1.sessions);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0u, info.sessions);
	EXPECT_EQ(0u, info.resident[1 + self->g0]);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/* END, MIGRATE, CANCEL, PLACE_FREE, GET_STATS, GET_PATH, CALIBRATE and
 * POOL_FD refuse malformed input; a refused END leaves the session live.
 */
TEST_F(sess, other_rejections)
{
	struct drm_mvgal_range r = { .offset = 2 * CH, .size = 1 };
	struct drm_mvgal_access a, w;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_end e;
	struct drm_mvgal_migrate mg;
	struct drm_mvgal_cancel c = { 0 };
	struct drm_mvgal_place_free pf;
	struct drm_mvgal_stats st = { 0 };
	struct drm_mvgal_path p;
	struct drm_mvgal_calibrate cal = { 0 };
	struct drm_mvgal_pool_fd pfd;
	uint32_t h, s, rs;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, 3 * CH, &h));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, CH,
			    &a, &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	w = (struct drm_mvgal_access) { .handle = h, .nr_ranges = 1,
					.ranges = (uintptr_t)&r };
#define END(...) ({ e = (struct drm_mvgal_end) { __VA_ARGS__ }; \
	drmIoctl(self->fd, DRM_IOCTL_MVGAL_END, &e) ? -errno : 0; })
	EXPECT_EQ(-EINVAL, END(.session = s, .fence_fd = -1, .flags = 1));
	EXPECT_EQ(-ENOENT, END(.session = s + 100, .fence_fd = -1));
	EXPECT_EQ(-EINVAL, END(.session = s, .fence_fd = self->fd));
	/* A written range the session did not name. */
	EXPECT_EQ(-EINVAL, END(.session = s, .fence_fd = -1, .count = 1,
			       .written = (uintptr_t)&w));
	r.offset = 0;
	w.pool_offset = 1;
	EXPECT_EQ(-EINVAL, END(.session = s, .fence_fd = -1, .count = 1,
			       .written = (uintptr_t)&w));
	w.pool_offset = 0;
	w.handle = 0xdead;
	EXPECT_EQ(-EINVAL, END(.session = s, .fence_fd = -1, .count = 1,
			       .written = (uintptr_t)&w));
	EXPECT_EQ(-EFAULT, END(.session = s, .fence_fd = -1, .count = 1,
			       .written = 8));
	EXPECT_EQ(-EINVAL, END(.session = s, .fence_fd = -1, .count = 2,
			       .written = (uintptr_t)&w));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(1u, info.sessions);
	w.handle = h;
	EXPECT_EQ(0, END(.session = s, .fence_fd = -1, .count = 1,
			 .written = (uintptr_t)&w));
	EXPECT_EQ(-ENOENT, END(.session = s, .fence_fd = -1));
	/* A READ session takes no written ranges. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, CH,
			    &a, &rs, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-EINVAL, END(.session = rs, .fence_fd = -1, .count = 1,
			       .written = (uintptr_t)&w));
	EXPECT_EQ(0, END(.session = rs, .fence_fd = -1));

#define MIG(...) ({ mg = (struct drm_mvgal_migrate) { .handle = h, \
	.size = 1, .location = 1 + self->g1, .in_fence_fd = -1, __VA_ARGS__ }; \
	drmIoctl(self->fd, DRM_IOCTL_MVGAL_MIGRATE, &mg) ? -errno : 0; })
	EXPECT_EQ(-EINVAL, MIG(.flags = 2));
	EXPECT_EQ(-EINVAL, MIG(.size = 0));
	EXPECT_EQ(-EINVAL, MIG(.offset = 3 * CH));
	EXPECT_EQ(-EINVAL, MIG(.offset = ~0ull, .size = 2));
	EXPECT_EQ(-EINVAL, MIG(.location = 9));
	EXPECT_EQ(-ENODEV, MIG(.location = 8));
	EXPECT_EQ(-EINVAL, MIG(.priority = 3));
	EXPECT_EQ(-EINVAL, MIG(.in_fence_fd = self->fd));
	EXPECT_EQ(-ENOENT, MIG(.handle = 0xdead));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0u, info.resident[1 + self->g1]);

	c.flags = 1;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_CANCEL, &c));
	EXPECT_EQ(EINVAL, errno);
	c = (struct drm_mvgal_cancel) { .job = ~0ull };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_CANCEL, &c));
	EXPECT_EQ(ENOENT, errno);

#define PF(...) ({ pf = (struct drm_mvgal_place_free) { .handle = h, \
	.gpu = self->g0, __VA_ARGS__ }; \
	drmIoctl(self->fd, DRM_IOCTL_MVGAL_PLACE_FREE, &pf) ? -errno : 0; })
	EXPECT_EQ(-EINVAL, PF(.flags = 1));
	EXPECT_EQ(-EINVAL, PF(.pad = 1));
	EXPECT_EQ(-EINVAL, PF(.gpu = 8));
	EXPECT_EQ(-ENODEV, PF(.gpu = 7));
	EXPECT_EQ(-ENOENT, PF(.handle = 0xdead));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_NE(0u, info.resident[1 + self->g0]);

	st.pad = 1;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
#define PATH(...) ({ p = (struct drm_mvgal_path) { .src = 0, .dst = 1, \
	__VA_ARGS__ }; drmIoctl(self->fd, DRM_IOCTL_MVGAL_GET_PATH, &p) ? -errno : 0; })
	EXPECT_EQ(-EINVAL, PATH(.flags = 1));
	EXPECT_EQ(-EINVAL, PATH(.dst = 0));
	EXPECT_EQ(-EINVAL, PATH(.dst = 9));
	EXPECT_EQ(-ENODEV, PATH(.dst = 8));
	cal.flags = 1;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_CALIBRATE, &cal));
	EXPECT_EQ(EINVAL, errno);
	pfd = (struct drm_mvgal_pool_fd) { .gpu = 8 };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_POOL_FD, &pfd));
	EXPECT_EQ(EINVAL, errno);
	pfd = (struct drm_mvgal_pool_fd) { .gpu = 7 };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_POOL_FD, &pfd));
	EXPECT_EQ(ENODEV, errno);
	pfd = (struct drm_mvgal_pool_fd) { .gpu = self->g0, .flags = 1 };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_POOL_FD, &pfd));
	EXPECT_EQ(EINVAL, errno);
	mvgal_bo_destroy(self->m, h);
}

/* Detaching a GPU drains its placements home, losing nothing. */
TEST_F(sess, detach_drains_placements)
{
	const uint64_t size = 2 * CH + 300;
	static uint8_t back[2 * CH + 300];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 0, &a, &s, &fence,
			    NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < size; i++)
		self->pool[self->vg][a.pool_offset + i] = pat(i, 12);
	/* Live: the GPU cannot go. */
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, self->vg));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	munmap(self->pool[self->vg], POOL_BYTES);
	self->pool[self->vg] = NULL;
	ASSERT_EQ(0, mvgal_gpu_detach(self->m, self->vg));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(size, info.owned[MVGAL_LOC_HOST]);
	EXPECT_EQ(0u, info.resident[1 + self->vg]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, size, 0, 12));
	mvgal_bo_destroy(self->m, h);
}

/* When a signaled sync_file's fence signaled (CLOCK_MONOTONIC ns). */
static int migrate_job(struct mvgal *m, uint32_t h, uint64_t size,
		       uint32_t loc, uint32_t prio, int in_fence,
		       struct drm_mvgal_migrate *mg)
{
	*mg = (struct drm_mvgal_migrate) {
		.handle = h, .size = size, .location = loc, .priority = prio,
		.in_fence_fd = in_fence,
	};
	return mvgal_migrate(m, mg);
}

/*
 * Ready jobs run highest priority first: a NORMAL, a LOW and then a HIGH
 * job wait for one fence; it signals, all three are ready at once, and
 * they finish HIGH, NORMAL, LOW, although HIGH was queued last. (Which
 * one runs first cannot hang on how long a job takes: all are ready
 * before the worker looks.)
 */
TEST_F(sess, ready_jobs_run_by_priority)
{
	struct drm_mvgal_migrate normal, low, high;
	struct vfence vf = { .fd = -1 };
	uint32_t hn, hl, hh;

	ASSERT_EQ(0, host_bo(self->m, 4 * CH + 5, &hn));
	ASSERT_EQ(0, host_bo(self->m, CH, &hl));
	ASSERT_EQ(0, host_bo(self->m, CH, &hh));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, migrate_job(self->m, hn, 4 * CH + 5, 1 + self->g0,
				 MVGAL_PRIO_NORMAL, vf.fd, &normal));
	ASSERT_EQ(0, migrate_job(self->m, hl, CH, 1 + self->g1, MVGAL_PRIO_LOW,
				 vf.fd, &low));
	ASSERT_EQ(0, migrate_job(self->m, hh, CH, 1 + self->g1,
				 MVGAL_PRIO_HIGH, vf.fd, &high));
	EXPECT_EQ(0, mvgal_fence_status(normal.out_fence_fd));
	EXPECT_EQ(0, mvgal_fence_status(low.out_fence_fd));
	EXPECT_EQ(0, mvgal_fence_status(high.out_fence_fd));
	vfence_signal(&vf);
	ASSERT_EQ(0, mvgal_fence_wait(normal.out_fence_fd, 20000));
	ASSERT_EQ(0, mvgal_fence_wait(low.out_fence_fd, 20000));
	ASSERT_EQ(0, mvgal_fence_wait(high.out_fence_fd, 20000));
	EXPECT_LT(fence_time(high.out_fence_fd), fence_time(normal.out_fence_fd));
	EXPECT_LT(fence_time(normal.out_fence_fd), fence_time(low.out_fence_fd));
	close(normal.out_fence_fd);
	close(low.out_fence_fd);
	close(high.out_fence_fd);
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, hn);
	mvgal_bo_destroy(self->m, hl);
	mvgal_bo_destroy(self->m, hh);
}

/* One session, two buffers, one fence: both wait for it, both hold the
 * GPU's bytes at their own offsets.
 */
TEST_F(sess, one_fence_covers_many_buffers)
{
	struct drm_mvgal_access a[2], r;
	struct vfence vf;
	uint32_t h[2], s, sr;
	int fence, fr[2];

	ASSERT_EQ(0, vfence_new(&vf));
	for (int k = 0; k < 2; k++)
		ASSERT_EQ(0, host_bo(self->m, CH + 100 * k + 1, &h[k]));
	a[0] = (struct drm_mvgal_access) { .handle = h[0] };
	a[1] = (struct drm_mvgal_access) { .handle = h[1] };
	ASSERT_EQ(0, mvgal_begin(self->m, self->g0, MVGAL_ACCESS_WRITE,
				 MVGAL_PRIO_NORMAL, -1, a, 2, &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	EXPECT_NE(a[0].pool_offset, a[1].pool_offset);
	for (int k = 0; k < 2; k++)
		for (uint64_t i = 0; i < CH + 100 * k + 1; i++)
			self->pool[self->g0][a[k].pool_offset + i] = pat(i, 20 + k);
	ASSERT_EQ(0, mvgal_end(self->m, s, vf.fd, NULL, 0));
	for (int k = 0; k < 2; k++) {
		ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h[k],
				    0, 0, &r, &sr, &fr[k], NULL));
		ASSERT_GE(fr[k], 0);
		EXPECT_EQ(-ETIME, mvgal_fence_wait(fr[k], 200));
		a[k] = r;
		ASSERT_EQ(0, mvgal_end(self->m, sr, -1, NULL, 0));
	}
	vfence_signal(&vf);
	for (int k = 0; k < 2; k++) {
		ASSERT_EQ(0, settle(fr[k]));
		EXPECT_EQ(-1, check(self->pool[self->g1] + a[k].pool_offset,
				    CH + 100 * k + 1, 0, 20 + k));
	}
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, h[0]);
	mvgal_bo_destroy(self->m, h[1]);
}

/* A CPU fault on a chunk the GPU owns waits for the GPU's write fence. */
TEST_F(sess, cpu_fault_waits_for_the_write_fence)
{
	struct drm_mvgal_access a;
	struct vfence vf;
	struct pollfd p;
	uint8_t *cpu, got[64];
	int fence, pipefd[2], status;
	uint32_t h, s;
	pid_t pid;

	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, host_bo(self->m, CH, &h));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&cpu));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < CH; i++)
		self->pool[self->g0][a.pool_offset + i] = pat(i, 30);
	ASSERT_EQ(0, mvgal_end(self->m, s, vf.fd, NULL, 0));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		memcpy(got, cpu + 1000, sizeof(got));	/* faults, waits */
		_exit(write(pipefd[1], got, sizeof(got)) == sizeof(got) ? 0 : 1);
	}
	p = (struct pollfd) { .fd = pipefd[0], .events = POLLIN };
	EXPECT_EQ(0, poll(&p, 1, 300));		/* still waiting */
	vfence_signal(&vf);
	ASSERT_EQ(1, poll(&p, 1, 20000));
	ASSERT_EQ((ssize_t)sizeof(got), read(pipefd[0], got, sizeof(got)));
	EXPECT_EQ(-1, check(got, sizeof(got), 1000, 30));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(pipefd[0]);
	close(pipefd[1]);
	vfence_free(&vf);
	munmap(cpu, CH);
	mvgal_bo_destroy(self->m, h);
}

/* Destroying a buffer waits for its fences: its placement stays in the
 * pool until the GPU work is done, then goes.
 */
TEST_F(sess, destroy_waits_for_fences)
{
	struct drm_mvgal_heap_region r0, r1;
	struct drm_mvgal_access a;
	struct vfence vf;
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pool_region(self->m, self->g1, &r0));
	ASSERT_EQ(0, host_bo(self->m, 4 * CH, &h));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, vf.fd, NULL, 0));
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));
	usleep(200 * 1000);
	ASSERT_EQ(0, pool_region(self->m, self->g1, &r1));
	EXPECT_EQ(r0.used + 4 * CH, r1.used);	/* the GPU may still write */
	vfence_signal(&vf);
	for (int i = 0; i < 200 && r1.used != r0.used; i++) {
		usleep(50 * 1000);
		ASSERT_EQ(0, pool_region(self->m, self->g1, &r1));
	}
	EXPECT_EQ(r0.used, r1.used);
	vfence_free(&vf);
}

/*
 * The transparent case: a GPU that only used a peer's pool in place has
 * no placement to free, and freeing it still leaves nothing pointing at
 * it; freeing the peer's drains home, and the next session copies.
 */
TEST_F(sess, in_place_then_free)
{
	const uint64_t size = 2 * CH + 5;
	static uint8_t back[2 * CH + 5];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	uint32_t h, s;
	uint64_t copied;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/* vgem writes where the bytes are: in g0's pool. */
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(0u, copied);
	ASSERT_EQ((uint32_t)self->g0, a.pool_gpu);
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < size; i++)
		self->pool[self->g0][a.pool_offset + i] = pat(i, 40);
	/* Live in place: the peer's placement cannot go either. */
	EXPECT_EQ(-EBUSY, mvgal_place_free(self->m, h, self->g0));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_place_free(self->m, h, self->vg));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0u, info.valid[1 + self->vg]);
	EXPECT_EQ(size, info.owned[1 + self->g0]);
	ASSERT_EQ(0, mvgal_place_free(self->m, h, self->g0));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(size, info.owned[MVGAL_LOC_HOST]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, size, 0, 40));
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(2 * (uint64_t)CH + 4096, copied);
	EXPECT_EQ((uint32_t)self->vg, a.pool_gpu);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->vg] + a.pool_offset, size, 0, 40));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	mvgal_bo_destroy(self->m, h);
}

/* Refusals that need state: busy migrations and frees, device-only
 * homes, started jobs, the per-file session limit, and the privileged
 * ioctls without CAP_SYS_ADMIN.
 */
TEST_F(sess, stateful_rejections)
{
	struct __user_cap_header_struct ch = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cd[2];
	struct drm_mvgal_access a;
	struct drm_mvgal_migrate mg;
	struct drm_mvgal_cancel c;
	struct drm_mvgal_calibrate cal = { 0 };
	struct drm_mvgal_pool_fd pfd = { 0 };
	struct drm_mvgal_stats st = { .flags = 1 };
	struct drm_mvgal_path p;
	struct vfence vf;
	uint32_t h, dev_only, s, ss[MVGAL_SESSIONS_PER_FILE + 1];
	int fence, f;

	ASSERT_EQ(0, host_bo(self->m, 2 * CH, &h));
	ASSERT_EQ(0, mvgal_bo_create(self->m, CH, MVGAL_BO_GPU_VALID,
				     self->g0, &dev_only));
	/* A device-only buffer has no host location and its home cannot
	 * be freed.
	 */
	EXPECT_EQ(-EINVAL, migrate_job(self->m, dev_only, 1, MVGAL_LOC_HOST,
				       MVGAL_PRIO_NORMAL, -1, &mg));
	EXPECT_EQ(-EINVAL, mvgal_place_free(self->m, dev_only, self->g0));
	/* A live write session: migrating or freeing into it is busy. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-EBUSY, migrate_job(self->m, h, 1, 1 + self->g1,
				      MVGAL_PRIO_NORMAL, -1, &mg));
	EXPECT_EQ(-EBUSY, mvgal_place_free(self->m, h, self->g0));
	/* Ended with a pending fence: freeing is still busy, not a wait. */
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, mvgal_end(self->m, s, vf.fd, NULL, 0));
	EXPECT_EQ(-EBUSY, mvgal_place_free(self->m, h, self->g0));
	vfence_signal(&vf);
	vfence_free(&vf);
	/* A job that ran cannot be cancelled; padding is refused. */
	ASSERT_EQ(0, migrate_job(self->m, h, 1, 1 + self->g1, MVGAL_PRIO_NORMAL,
				 -1, &mg));
	ASSERT_EQ(0, settle(mg.out_fence_fd));
	EXPECT_EQ(-EBUSY, mvgal_cancel(self->m, mg.job));
	c = (struct drm_mvgal_cancel) { .job = mg.job, .pad = 1 };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_CANCEL, &c));
	EXPECT_EQ(EINVAL, errno);
	/* GET_STATS flags, GET_PATH source, POOL_FD padding. */
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	p = (struct drm_mvgal_path) { .src = 9, .dst = 0 };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_GET_PATH, &p));
	EXPECT_EQ(EINVAL, errno);
	p = (struct drm_mvgal_path) { .src = 8, .dst = 0 };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_GET_PATH, &p));
	EXPECT_EQ(ENODEV, errno);
	pfd = (struct drm_mvgal_pool_fd) { .gpu = self->g0, .pad = 1 };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_POOL_FD, &pfd));
	EXPECT_EQ(EINVAL, errno);
	/* At most MVGAL_SESSIONS_PER_FILE live sessions per file. */
	for (unsigned int i = 0; i < MVGAL_SESSIONS_PER_FILE; i++) {
		ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0,
				    1, &a, &ss[i], &f, NULL)) TH_LOG("session %u", i);
		ASSERT_EQ(0, settle(f));
	}
	EXPECT_EQ(-EBUSY, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 1,
				 &a, &ss[MVGAL_SESSIONS_PER_FILE], &f, NULL));
	for (unsigned int i = 0; i < MVGAL_SESSIONS_PER_FILE; i++)
		ASSERT_EQ(0, mvgal_end(self->m, ss[i], -1, NULL, 0));
	/* Without CAP_SYS_ADMIN: no calibration, no pool fd. */
	ASSERT_EQ(0, syscall(SYS_capget, &ch, cd));
	cd[0].effective &= ~(1U << CAP_SYS_ADMIN);
	ASSERT_EQ(0, syscall(SYS_capset, &ch, cd));
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_CALIBRATE, &cal));
	EXPECT_EQ(EPERM, errno);
	pfd = (struct drm_mvgal_pool_fd) { .gpu = self->g0 };
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_POOL_FD, &pfd));
	EXPECT_EQ(EPERM, errno);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, dev_only);
}

/* mvgal-info --buffers shows a buffer's residency per location. */
TEST_F(sess, info_shows_residency)
{
	struct drm_mvgal_access a;
	char want[128];
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, 3 * CH, &h));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_WRITE, h, CH, 10,
			    &a, &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/* host: 2 chunks valid, none alone; gpuN: 1 chunk, owned. */
	snprintf(want, sizeof(want), "host: %u / %u B, gpu%d: %u / %u B",
		 2 * CH, 2 * CH, self->g1, CH, CH);
	EXPECT_TRUE(info_shows(want)) TH_LOG("no line with \"%s\"", want);
	mvgal_bo_destroy(self->m, h);
}

/*
 * BEGIN's access array may lie in a mapping of a buffer of the session
 * itself: the results are written there once no lock is held (a fault
 * there needs the buffer's lock). The kernel's write into the buffer is
 * a CPU write during the session like any other: a hand-off at END.
 */
TEST_F(sess, begin_results_into_the_sessions_own_buffer)
{
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access *acc;
	uint8_t *p;
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, 2 * CH, &h));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&p));
	fill(p, CH, 12);
	acc = (struct drm_mvgal_access *)(p + CH);
	*acc = (struct drm_mvgal_access) { .handle = h };
	ASSERT_EQ(0, mvgal_begin(self->m, self->g0, MVGAL_ACCESS_READ,
				 MVGAL_PRIO_NORMAL, -1, acc, 1, &s, &fence,
				 NULL));
	EXPECT_EQ((uint32_t)self->g0, acc->pool_gpu);
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[self->g0] + acc->pool_offset, CH, 0, 12));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(1, info.handoffs);
	munmap(p, 2 * CH);
	mvgal_bo_destroy(self->m, h);
}

/*
 * Results that cannot be handed out (the access array is read-only):
 * -EFAULT, and the session is undone: nothing live, the struct as given,
 * a WRITE session on the same chunks begins at once.
 */
TEST_F(sess, begin_undone_when_results_cannot_be_written)
{
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access *ro, a;
	struct drm_mvgal_begin b;
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, 2 * CH, &h));
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro[0] = (struct drm_mvgal_access) { .handle = h };
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	b = (struct drm_mvgal_begin) {
		.accesses = (uintptr_t)ro, .count = 1, .gpu = self->g0,
		.flags = MVGAL_ACCESS_READ, .in_fence_fd = -1,
		.session = 77, .out_fence_fd = 78,
	};
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BEGIN, &b));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(77, b.session);
	EXPECT_EQ(78, b.out_fence_fd);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.sessions);
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, NULL));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	munmap(ro, 4096);
	mvgal_bo_destroy(self->m, h);
}

/* What BO_INFO should say of a host buffer's moves, per GPU. */
struct moves {
	uint64_t to[MVGAL_MAX_GPUS], from[MVGAL_MAX_GPUS];
	uint64_t sessions[MVGAL_MAX_GPUS], migrations[MVGAL_MAX_GPUS];
};

/*
 * @h's per-GPU byte and access counts are @w's exactly; a host buffer has
 * no CPU-copy accesses of a pool, so every access is a session's or a
 * migration's.
 */
static void expect_moves(struct __test_metadata *_metadata, struct mvgal *m,
			 uint32_t h, const struct moves *w, const char *when)
{
	struct drm_mvgal_bo_info i;
	uint64_t total = 0;

	ASSERT_EQ(0, mvgal_bo_info(m, h, &i));
	for (int g = 0; g < MVGAL_MAX_GPUS; g++) {
		EXPECT_EQ(w->to[g], i.bytes_to_gpu[g])
			TH_LOG("%s: bytes_to_gpu[%d]", when, g);
		EXPECT_EQ(w->from[g], i.bytes_from_gpu[g])
			TH_LOG("%s: bytes_from_gpu[%d]", when, g);
		EXPECT_EQ(w->sessions[g], i.session_count[g])
			TH_LOG("%s: session_count[%d]", when, g);
		EXPECT_EQ(w->migrations[g], i.migration_count[g])
			TH_LOG("%s: migration_count[%d]", when, g);
		EXPECT_EQ(w->sessions[g] + w->migrations[g], i.access_count[g])
			TH_LOG("%s: access_count[%d]", when, g);
		total += w->sessions[g] + w->migrations[g];
	}
	EXPECT_EQ(total, i.access_total) TH_LOG("%s", when);
}

/*
 * The peer whose pool a session on @gpu uses in place when @a and @b both
 * hold its @bytes of chunks: the first by index whose path to @gpu the
 * selector takes in place, as BEGIN asks it; -1: it copies.
 */
static int in_place_peer(struct mvgal *m, int gpu, int a, int b,
			 uint64_t bytes)
{
	struct drm_mvgal_path p;

	for (int g = 0; g < MVGAL_MAX_GPUS; g++) {
		if (g != a && g != b)
			continue;
		if (mvgal_get_path(m, 1 + g, 1 + gpu, bytes, &p))
			continue;
		if (p.chosen == MVGAL_METHOD_IN_PLACE)
			return g;
	}
	return -1;
}

/*
 * BO_INFO counts the bytes that went into and out of each GPU's pool and
 * each GPU's accesses: a WRITE session at an offset copies its chunks
 * into g0's pool (one session access); MIGRATE brings the whole buffer
 * to g1, the written chunks out of g0's pool (one migration for each
 * pool); a reader on vgem uses a peer's pool in place or copies, as the
 * path selector says; reading the bytes back brings the written chunks
 * home from a pool, and that is no migration. Copies move whole chunks,
 * the last one ending with the buffer's last page.
 */
TEST_F(sess, statistics_count_sessions_and_migrations)
{
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	const uint64_t size = 5 * CH + 5000;	/* 6 chunks, the last partial */
	const uint64_t last = ((size + pg - 1) & ~(pg - 1)) - 5 * CH;
	const uint64_t off = 3 * CH + 10, len = size - off; /* chunks 3..5 */
	const uint64_t span = 2 * CH + last, whole = 5 * CH + last;
	static uint8_t buf[5 * CH + 5000], back[5 * CH + 5000];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_migrate mg;
	struct drm_mvgal_access a;
	struct moves w = { 0 };
	uint64_t copied, from = 0;
	uint32_t h, s;
	int fence, via;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	fill(buf, size, 50);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
	expect_moves(_metadata, self->m, h, &w, "host only");

	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, off, len,
			    &a, &s, &fence, &copied));
	EXPECT_EQ(span, copied);
	ASSERT_EQ((uint32_t)self->g0, a.pool_gpu);
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = off; i < size; i++)
		buf[i] = self->pool[self->g0][a.pool_offset + i] = pat(i, 51);
	ASSERT_EQ(0, end_written(self->m, s, h, off, len, -1));
	w.to[self->g0] = span;
	w.sessions[self->g0] = 1;
	expect_moves(_metadata, self->m, h, &w, "after the WRITE session");

	mg = (struct drm_mvgal_migrate) {
		.handle = h, .size = size, .location = 1 + self->g1,
		.priority = MVGAL_PRIO_NORMAL, .in_fence_fd = -1,
	};
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	EXPECT_EQ(whole, mg.bytes);
	ASSERT_EQ(0, settle(mg.out_fence_fd));
	w.to[self->g1] = whole;		/* chunks 0..2 from home, 3..5 from g0 */
	w.from[self->g0] = span;
	w.migrations[self->g0] = 1;
	w.migrations[self->g1] = 1;
	expect_moves(_metadata, self->m, h, &w, "after MIGRATE");

	/* g0 and g1 hold chunks 3..5: in place from one, or a copy. */
	via = in_place_peer(self->m, self->vg, self->g0, self->g1, 3 * CH);
	ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_READ, h, off, len,
			    &a, &s, &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	EXPECT_EQ(-1, check(self->pool[a.pool_gpu] + a.pool_offset + off, len,
			    off, 51));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	w.sessions[self->vg] = 1;
	if (via >= 0) {
		EXPECT_EQ(0u, copied);
		EXPECT_EQ((uint32_t)via, a.pool_gpu);
	} else {
		EXPECT_EQ(span, copied);
		EXPECT_EQ((uint32_t)self->vg, a.pool_gpu);
		w.to[self->vg] = span;
	}
	/* A copy comes out of whichever of the two pools is cheaper. */
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(w.from[self->g0] + w.from[self->g1] + w.to[self->vg],
		  info.bytes_from_gpu[self->g0] + info.bytes_from_gpu[self->g1]);
	w.from[self->g0] = info.bytes_from_gpu[self->g0];
	w.from[self->g1] = info.bytes_from_gpu[self->g1];
	expect_moves(_metadata, self->m, h, &w, "after the vgem session");

	/* Reading back brings chunks 3..5 home from a pool: bytes only. */
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(0, memcmp(buf, back, size));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(size, info.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ(size, info.bytes_written);
	EXPECT_EQ(size, info.bytes_read);
	for (int g = 0; g < MVGAL_MAX_GPUS; g++) {
		from += info.bytes_from_gpu[g] - w.from[g];
		w.from[g] = info.bytes_from_gpu[g];
	}
	EXPECT_EQ(span, from);
	expect_moves(_metadata, self->m, h, &w, "after reading back");
	mvgal_bo_destroy(self->m, h);
}

/*
 * A drain of a placement is one migration out of its pool, however many
 * chunks it copies home; a placement whose chunks are held elsewhere too
 * drains without a copy, and counts nothing.
 */
TEST_F(sess, statistics_count_a_drain_once)
{
	const uint64_t size = 3 * CH + 1;
	const uint64_t whole = 3 * CH + (uint64_t)sysconf(_SC_PAGESIZE);
	static uint8_t back[3 * CH + 1];
	struct drm_mvgal_access a;
	struct moves w = { 0 };
	uint32_t h, s;
	uint64_t copied;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_WRITE, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(whole, copied);
	ASSERT_EQ(0, settle(fence));
	for (uint64_t i = 0; i < size; i++)
		self->pool[self->g1][a.pool_offset + i] = pat(i, 52);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	w.to[self->g1] = whole;
	w.sessions[self->g1] = 1;
	expect_moves(_metadata, self->m, h, &w, "after the WRITE session");

	ASSERT_EQ(0, mvgal_place_free(self->m, h, self->g1));
	w.from[self->g1] = whole;	/* four chunks, one drain */
	w.migrations[self->g1] = 1;
	expect_moves(_metadata, self->m, h, &w, "after PLACE_FREE");
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, back, size));
	EXPECT_EQ(-1, check(back, size, 0, 52));

	/* Held at home too: this drain copies nothing. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h, 0, 0, &a,
			    &s, &fence, &copied));
	EXPECT_EQ(whole, copied);
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_place_free(self->m, h, self->g1));
	w.to[self->g1] += whole;
	w.sessions[self->g1]++;
	expect_moves(_metadata, self->m, h, &w, "after a clean PLACE_FREE");
	mvgal_bo_destroy(self->m, h);
}

TEST_HARNESS_MAIN
