// SPDX-License-Identifier: GPL-2.0
/*
 * Reliability: what an independent user found losing data or reaching
 * another user's bytes, one regression test each. Read-only dma-bufs stay
 * read-only; a reused pool range never shows its last owner's bytes; a
 * MOVE queued before a WRITE session never drops the session's writes; a
 * detach waits for work queued on its GPU and stalls no other GPU; a
 * refused write changes no byte; BEGINs naming the same buffers in both
 * orders never deadlock; a writer, GPU or CPU, waits for every reader's
 * fence, not only the last one's; a BEGIN whose struct cannot take its
 * results changes nothing; only the file that queued a job cancels it,
 * even after that file closed and others opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

FIXTURE(rel) {
	COH_FIELDS;
};

FIXTURE_SETUP(rel)
{
	COH_SETUP(self);
}

FIXTURE_TEARDOWN(rel)
{
	coh_teardown(self->m, self->pool);
}

/* The mmap offset of a handle, or 0. */
static uint64_t bo_offset(struct mvgal *m, uint32_t h)
{
	struct drm_mvgal_bo_info i;

	return mvgal_bo_info(m, h, &i) ? 0 : i.mmap_offset;
}

/*
 * Every write path refuses handle @h with -EACCES and changes nothing;
 * reads, copies out of it and READ sessions work and see pattern @s.
 */
static void expect_read_only(struct __test_metadata *_metadata,
			     struct mvgal *m, uint8_t **pool, uint32_t h,
			     uint64_t size, unsigned int s, int g)
{
	struct drm_mvgal_harvest_entry he = { .handle = h };
	struct drm_mvgal_migrate mg = {
		.handle = h, .size = size, .location = 1 + g,
		.flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
	};
	struct drm_mvgal_advise adv = { .handle = h, .flags = MVGAL_ADVISE_SET };
	struct drm_mvgal_access a;
	uint8_t junk[300];
	uint32_t other, sess;
	uint64_t copied, off;
	int fence;
	void *va;

	memset(junk, 0x5a, sizeof(junk));
	EXPECT_EQ(-EACCES, mvgal_bo_write(m, h, 100, junk, sizeof(junk)));
	EXPECT_EQ(-EACCES, mvgal_bo_overwrite(m, h, 0, size));
	ASSERT_EQ(0, host_bo(m, size, &other));
	EXPECT_EQ(-EACCES, mvgal_bo_copy(m, h, 0, other, 0, size));
	EXPECT_EQ(-EACCES, begin1(m, g, MVGAL_ACCESS_WRITE, h, 0, size, &a,
				  &sess, &fence, &copied));
	EXPECT_EQ(-EACCES, mvgal_migrate(m, &mg));
	EXPECT_EQ(-EACCES, mvgal_advise(m, &adv));
	EXPECT_EQ(-EACCES, mvgal_harvest(m, MVGAL_HARVEST_RESET, &he, 1));
	off = bo_offset(m, h);
	ASSERT_NE(0, off);
	va = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mvgal_fd(m), off);
	EXPECT_EQ(MAP_FAILED, va);
	EXPECT_EQ(EACCES, errno);

	/* Reading works, and a read mapping cannot become writable. */
	EXPECT_EQ(-1, bo_check(m, h, size, s));
	va = mmap(NULL, size, PROT_READ, MAP_SHARED, mvgal_fd(m), off);
	ASSERT_NE(MAP_FAILED, va);
	EXPECT_EQ(-1, check(va, size, 0, s));
	EXPECT_NE(0, mprotect(va, size, PROT_READ | PROT_WRITE));
	munmap(va, size);
	EXPECT_EQ(0, mvgal_bo_copy(m, other, 0, h, 0, size));
	EXPECT_EQ(-1, bo_check(m, other, size, s));
	ASSERT_EQ(0, begin1(m, g, MVGAL_ACCESS_READ, h, 0, size, &a, &sess,
			    &fence, &copied));
	EXPECT_EQ(0, settle(fence));
	ASSERT_LT(a.pool_gpu, MVGAL_MAX_GPUS);
	EXPECT_EQ(-1, check(pool[a.pool_gpu] + a.pool_offset, size, 0, s));
	EXPECT_EQ(0, mvgal_end(m, sess, -1, NULL, 0));
	mvgal_bo_destroy(m, other);
}

/* A vgem buffer shared read-only (PRIME without DRM_RDWR) stays
 * read-only in mvgal, and its owner's bytes stay as they were.
 */
TEST_F(rel, readonly_foreign_dmabuf_refuses_every_write)
{
	struct drm_mode_create_dumb d = { .width = 1024, .height = 70, .bpp = 32 };
	struct drm_mode_map_dumb md = { 0 };
	uint64_t size;
	uint8_t *own;
	uint32_t h;
	int vgem, dmabuf;

	vgem = open_card("vgem", NULL, 0);
	ASSERT_LE(0, vgem);
	ASSERT_EQ(0, drmIoctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &d));
	size = d.size;
	md.handle = d.handle;
	ASSERT_EQ(0, drmIoctl(vgem, DRM_IOCTL_MODE_MAP_DUMB, &md));
	own = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vgem, md.offset);
	ASSERT_NE(MAP_FAILED, own);
	fill(own, size, 7);
	ASSERT_EQ(0, drmPrimeHandleToFD(vgem, d.handle, DRM_CLOEXEC, &dmabuf));
	ASSERT_EQ(0, mvgal_bo_import(self->m, dmabuf, &h));
	expect_read_only(_metadata, self->m, self->pool, h, size, 7, self->g0);
	EXPECT_EQ(-1, check(own, size, 0, 7));
	mvgal_bo_destroy(self->m, h);
	close(dmabuf);
	munmap(own, size);
	close(vgem);
}

/* An mvgal buffer its owner shared read-only: another file that imports
 * the dma-buf gets a read-only handle; the owner keeps writing, and the
 * reader sees the owner's new bytes.
 */
TEST_F(rel, readonly_mvgal_dmabuf_gives_a_readonly_handle)
{
	const uint64_t size = 2 * CH + 4321;
	struct mvgal *reader;
	uint32_t h, rh;
	int dmabuf;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, size,
			MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID | MVGAL_BO_DMA_BUF,
			MVGAL_GPU_ANY, MVGAL_SHARING_DMA_BUF, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 3));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->fd, h, DRM_CLOEXEC, &dmabuf));
	ASSERT_EQ(0, mvgal_open(&reader));
	ASSERT_EQ(0, mvgal_bo_import(reader, dmabuf, &rh));
	expect_read_only(_metadata, reader, self->pool, rh, size, 3, self->g1);
	/* The owner writes; the reader reads the new bytes. */
	ASSERT_EQ(0, bo_fill(self->m, h, size, 4));
	EXPECT_EQ(-1, bo_check(reader, rh, size, 4));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 4));
	mvgal_close(reader);
	close(dmabuf);
	mvgal_bo_destroy(self->m, h);
}

/* A new buffer's placement in a range a freed buffer used shows none of
 * its bytes: not in the chunks the session named, not in the others.
 */
TEST_F(rel, reused_pool_range_never_shows_old_bytes)
{
	const uint64_t size = 16 * CH;
	struct drm_mvgal_access a;
	uint64_t copied, old_off;
	uint32_t h, sess;
	uint8_t *buf, *p;
	int fence;

	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 9));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a, &sess,
			    &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(self->g0, a.pool_gpu);
	old_off = a.pool_offset;
	EXPECT_EQ(-1, check(self->pool[self->g0] + old_off, size, 0, 9));
	ASSERT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_place_free(self->m, h, self->g0));
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h));

	/* A zero-initialized buffer of the same size names one chunk. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID | MVGAL_BO_ZERO_INITIALIZED,
				     MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 5 * CH + 17, 100, &a,
			    &sess, &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(self->g0, a.pool_gpu);
	/* The same range, or the test shows nothing. */
	ASSERT_EQ(old_off, a.pool_offset);
	p = self->pool[self->g0] + a.pool_offset;
	for (uint64_t i = 0; i < size; i++)
		if (p[i]) {
			EXPECT_EQ(0, p[i]) TH_LOG("byte %llu of the placement",
						  (unsigned long long)i);
			break;
		}
	ASSERT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	mvgal_bo_destroy(self->m, h);
	free(buf);
}

/*
 * Fills a new buffer of @size with pattern @s and queues a MOVE of it to
 * GPU @g behind a vgem fence nobody signaled yet (@vf, @mg: the caller
 * signals, waits and frees).
 */
static int move_behind_fence(struct mvgal *m, uint64_t size, unsigned int s,
			     int g, uint32_t *h, struct vfence *vf,
			     struct drm_mvgal_migrate *mg)
{
	int ret = host_bo(m, size, h);

	if (!ret)
		ret = bo_fill(m, *h, size, s);
	if (!ret)
		ret = vfence_new(vf);
	if (ret)
		return ret;
	*mg = (struct drm_mvgal_migrate){
		.handle = *h, .size = size, .location = 1 + g,
		.flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = vf->fd,
	};
	ret = mvgal_migrate(m, mg);
	return ret ?: (mg->job ? 0 : -ENOENT);
}

/* A MOVE queued (behind a fence) before a WRITE session on the same
 * chunks, and done while the session is live, leaves the session's GPU
 * copy alone: END makes the session's bytes the buffer's.
 */
TEST_F(rel, move_queued_before_a_write_session_keeps_its_writes)
{
	const uint64_t size = 4 * CH + 999;
	struct drm_mvgal_migrate mg;
	struct drm_mvgal_access a;
	struct vfence vf;
	uint64_t copied;
	uint32_t h, sess;
	int fence;

	ASSERT_EQ(0, move_behind_fence(self->m, size, 1, self->g1, &h, &vf,
				       &mg));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a, &sess,
			    &fence, &copied));
	/* The move runs now, then the session's copy. */
	vfence_signal(&vf);
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(0, mvgal_fence_wait(mg.out_fence_fd, 20000));
	close(mg.out_fence_fd);
	ASSERT_EQ(self->g0, a.pool_gpu);
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset, size, 0, 1));
	fill(self->pool[self->g0] + a.pool_offset, size, 2);
	ASSERT_EQ(0, end_written(self->m, sess, h, 0, size, -1));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 2));
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, h);
}

struct detach_arg {
	struct mvgal *m;
	int gpu;
	int ret;
	atomic_int done;
};

static void *detach_worker(void *p)
{
	struct detach_arg *d = p;

	d->ret = mvgal_gpu_detach(d->m, d->gpu);
	atomic_store(&d->done, 1);
	return NULL;
}

/* MIGRATEs @h to GPU @g until it is -ENODEV (the GPU is detaching). */
static int migrate_until_enodev(struct mvgal *m, uint32_t h, uint64_t size,
				int g)
{
	int ret = 0;

	for (int i = 0; i < 5000; i++) {
		struct drm_mvgal_migrate mg = {
			.handle = h, .size = size, .location = 1 + g,
			.in_fence_fd = -1,
		};

		ret = mvgal_migrate(m, &mg);
		if (ret)
			return ret;
		if (mg.out_fence_fd >= 0)
			close(mg.out_fence_fd);
		usleep(1000);
	}
	return ret;
}

/*
 * A detach waits for the work queued on its GPU's pool and takes every
 * byte home. Meanwhile nothing new goes to the GPU (-ENODEV), a second
 * detach is -EBUSY, and a session on another GPU begins, reads its bytes
 * and ends: no device-wide lock is held while the detach waits.
 */
TEST_F(rel, detach_waits_for_queued_work_and_stalls_no_other_gpu)
{
	const uint64_t size = 3 * CH + 4321, osize = CH + 77;
	struct drm_mvgal_migrate mg;
	struct detach_arg d = { .m = self->m, .gpu = self->g1 };
	struct drm_mvgal_access a;
	uint32_t h, other, sess;
	struct vfence vf;
	uint64_t copied;
	pthread_t t;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, osize, &other));
	ASSERT_EQ(0, bo_fill(self->m, other, osize, 4));
	ASSERT_EQ(0, move_behind_fence(self->m, size, 3, self->g1, &h, &vf,
				       &mg));

	ASSERT_EQ(0, pthread_create(&t, NULL, detach_worker, &d));
	EXPECT_EQ(-ENODEV, migrate_until_enodev(self->m, other, osize,
						 self->g1));
	EXPECT_EQ(-EBUSY, mvgal_gpu_detach(self->m, self->g1));
	EXPECT_EQ(-ENODEV, begin1(self->m, self->g1, MVGAL_ACCESS_READ, other,
				  0, osize, &a, &sess, &fence, &copied));
	/* Another GPU: a whole session while the detach waits. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, other, 0, osize, &a,
			    &sess, &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(self->g0, a.pool_gpu);
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset, osize, 0, 4));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	EXPECT_EQ(0, atomic_load(&d.done));

	/* The MOVE runs, then the detach takes the bytes home. */
	vfence_signal(&vf);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, d.ret);
	EXPECT_EQ(0, mvgal_fence_wait(mg.out_fence_fd, 20000));
	close(mg.out_fence_fd);
	EXPECT_EQ(NR_GPUS - 1, gpu_count(self->m));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 3));
	EXPECT_EQ(-1, bo_check(self->m, other, osize, 4));
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, other);
	mvgal_bo_destroy(self->m, h);
	reset_state(_metadata, self->m);
}

/* Do two BO_INFOs say the same about where the bytes are? */
static bool same_residency(const struct drm_mvgal_bo_info *a,
			   const struct drm_mvgal_bo_info *b)
{
	return !memcmp(a->resident, b->resident, sizeof(a->resident)) &&
	       !memcmp(a->valid, b->valid, sizeof(a->valid)) &&
	       !memcmp(a->owned, b->owned, sizeof(a->owned));
}

/*
 * A MIGRATE with MOVE naming chunks a live WRITE session holds (the whole
 * buffer, a byte inside the session's range, a range sharing only a chunk
 * with it; to another GPU and home) is -EBUSY at once and changes
 * nothing: not the struct, not where the bytes are (BO_INFO), not the
 * session's copy nor home's other chunks. After END the same MOVE works
 * and the session's bytes are where it put them, with the rest.
 */
TEST_F(rel, move_of_chunks_a_live_write_session_holds_is_busy_until_end)
{
	const uint64_t size = 4 * CH + 999, off = CH + 100, len = CH + 200;
	const struct { uint64_t offset, size; uint32_t loc; } moves[] = {
		{ 0, size, 1 + self->g1 },
		{ 2 * CH + 7, 1, 1 + self->g1 },
		{ CH, 50, 1 + self->g1 },		/* chunk 1, none of its bytes */
		{ 0, size, MVGAL_LOC_HOST },
		{ CH + 150, 3 * CH, MVGAL_LOC_HOST },
	};
	struct drm_mvgal_bo_info i0, i1;
	struct drm_mvgal_migrate mg, was;
	struct drm_mvgal_access a;
	uint32_t h, sess;
	uint64_t copied;
	uint8_t *gp, *buf;
	int fence;

	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 1));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, off, len, &a, &sess,
			    &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	ASSERT_EQ(self->g0, a.pool_gpu);
	gp = self->pool[self->g0] + a.pool_offset;
	/* The "GPU" writes pattern 2 into its copy of the range. */
	for (uint64_t i = off; i < off + len; i++)
		gp[i] = pat(i, 2);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &i0));

	for (unsigned int k = 0; k < sizeof(moves) / sizeof(moves[0]); k++) {
		mg = (struct drm_mvgal_migrate) {
			.handle = h, .flags = MVGAL_MIGRATE_MOVE,
			.offset = moves[k].offset, .size = moves[k].size,
			.location = moves[k].loc, .in_fence_fd = -1,
			.out_fence_fd = -7, .job = 77, .bytes = 99,
		};
		was = mg;
		errno = 0;
		EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_MIGRATE, &mg))
			TH_LOG("move %u", k);
		EXPECT_EQ(EBUSY, errno) TH_LOG("move %u", k);
		EXPECT_EQ(0, memcmp(&mg, &was, sizeof(mg))) TH_LOG("move %u", k);
		ASSERT_EQ(0, mvgal_bo_info(self->m, h, &i1));
		EXPECT_TRUE(same_residency(&i0, &i1)) TH_LOG("move %u", k);
	}
	EXPECT_EQ(0, i1.resident[1 + self->g1]);
	EXPECT_EQ(1, i1.sessions);
	/* The session's copy and home's other chunks are as they were. */
	for (uint64_t i = off; i < off + len; i++)
		if (gp[i] != pat(i, 2)) {
			EXPECT_EQ(pat(i, 2), gp[i]) TH_LOG("byte %llu", (unsigned long long)i);
			break;
		}
	EXPECT_EQ(-EBUSY, mvgal_bo_read(self->m, h, off, buf, len));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, buf, CH));
	EXPECT_EQ(-1, check(buf, CH, 0, 1));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 3 * CH, buf, size - 3 * CH));
	EXPECT_EQ(-1, check(buf, size - 3 * CH, 3 * CH, 1));

	/* After END the same MOVE goes through, the session's bytes with it. */
	ASSERT_EQ(0, end_written(self->m, sess, h, off, len, -1));
	mg = (struct drm_mvgal_migrate) {
		.handle = h, .flags = MVGAL_MIGRATE_MOVE, .size = size,
		.location = 1 + self->g1, .in_fence_fd = -1,
	};
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	ASSERT_NE(0, mg.job);
	ASSERT_LE(0, mg.out_fence_fd);
	ASSERT_EQ(0, mvgal_fence_wait(mg.out_fence_fd, 20000));
	close(mg.out_fence_fd);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &i1));
	EXPECT_EQ(size, i1.valid[1 + self->g1]);
	EXPECT_EQ(size, i1.owned[1 + self->g1]);
	EXPECT_EQ(0, i1.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ(0, i1.valid[1 + self->g0]);
	/* In g1's pool: a READ session there copies nothing and shows them. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a, &sess,
			    &fence, &copied));
	EXPECT_EQ(0, settle(fence));
	EXPECT_EQ(0, copied);
	ASSERT_EQ(self->g1, a.pool_gpu);
	gp = self->pool[self->g1] + a.pool_offset;
	EXPECT_EQ(-1, check(gp, off, 0, 1));
	EXPECT_EQ(-1, check(gp + off, len, off, 2));
	EXPECT_EQ(-1, check(gp + off + len, size - off - len, off + len, 1));
	EXPECT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	/* And home again through the CPU. */
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, buf, size));
	EXPECT_EQ(-1, check(buf, off, 0, 1));
	EXPECT_EQ(-1, check(buf + off, len, off, 2));
	EXPECT_EQ(-1, check(buf + off + len, size - off - len, off + len, 1));
	free(buf);
	mvgal_bo_destroy(self->m, h);
}

/* A cancelled MOVE leaves every chunk where it was. */
TEST_F(rel, cancelled_move_leaves_the_chunks_where_they_were)
{
	const uint64_t size = 3 * CH + 5;
	struct drm_mvgal_migrate mg = { .size = size, .flags = MVGAL_MIGRATE_MOVE };
	struct drm_mvgal_bo_info info;
	struct vfence vf;
	uint32_t h;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 5));
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + self->g1;
	mg.in_fence_fd = vf.fd;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	ASSERT_EQ(0, mvgal_cancel(self->m, mg.job));
	EXPECT_EQ(-ECANCELED, mvgal_fence_status(mg.out_fence_fd));
	close(mg.out_fence_fd);
	vfence_signal(&vf);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(size, info.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ(0, info.valid[1 + self->g1]);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 5));
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, h);
}

/* A BO_PWRITE or BO_COPY refused for a session on its last chunks, or for
 * user memory that is not all there, changes no byte.
 */
TEST_F(rel, refused_writes_change_nothing)
{
	const uint64_t size = 5 * CH + 77;
	struct drm_mvgal_access a;
	uint32_t h, src, sess;
	uint64_t copied;
	uint8_t *buf, *hole;
	int fence;

	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &src));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 1));
	ASSERT_EQ(0, bo_fill(self->m, src, size, 2));
	/* A WRITE session on the fourth chunk. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, h, 3 * CH + 10,
			    20, &a, &sess, &fence, &copied));
	ASSERT_EQ(0, settle(fence));
	fill(buf, size, 3);
	EXPECT_EQ(-EBUSY, mvgal_bo_write(self->m, h, 5, buf, size - 5));
	EXPECT_EQ(-EBUSY, mvgal_bo_copy(self->m, h, 7, src, 3, size - 8));
	/* Reads of a chunk a WRITE session holds are refused too. */
	EXPECT_EQ(-EBUSY, mvgal_bo_copy(self->m, src, 0, h, 0, size));
	ASSERT_EQ(0, mvgal_end(self->m, sess, -1, NULL, 0));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 1));
	EXPECT_EQ(-1, bo_check(self->m, src, size, 2));

	/* User memory with a hole in it: the third page is gone. */
	hole = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	memset(hole, 0x33, 4 * 4096);
	ASSERT_EQ(0, munmap(hole + 2 * 4096, 4096));
	EXPECT_EQ(-EFAULT, mvgal_bo_write(self->m, h, CH - 100, hole, 4 * 4096));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 1));
	munmap(hole, 2 * 4096);
	munmap(hole + 3 * 4096, 4096);

	/* A write from a mapping of a buffer (memory that cannot be pinned)
	 * lands whole.
	 */
	{
		uint8_t *va;

		ASSERT_EQ(0, mvgal_bo_map(self->m, src, (void **)&va));
		EXPECT_EQ(0, mvgal_bo_write(self->m, h, 0, va, size));
		EXPECT_EQ(-1, bo_check(self->m, h, size, 2));
		EXPECT_EQ(0, mvgal_bo_write(self->m, h, 1000, va + 1000, size - 2000));
		munmap(va, (size + 4095) & ~4095ULL);
	}
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, src);
	free(buf);
}

/* Two writers of [A, B] and [B, A], on two GPUs, over and over: some
 * BEGINs are busy, none hangs. Half the rounds the CPU writes first, so
 * that BEGIN takes its full path (reservations, then the buffers' locks).
 */
struct pair_arg {
	struct mvgal *m;
	uint32_t first, second;
	int gpu, rounds;
	int ok, busy, err;
};

static void *pair_worker(void *p)
{
	struct pair_arg *w = p;
	struct drm_mvgal_range r = { .offset = 0, .size = CH + 3 };
	struct drm_mvgal_access acc[2] = {
		{ .handle = w->first, .nr_ranges = 1, .ranges = (uintptr_t)&r },
		{ .handle = w->second, .nr_ranges = 1, .ranges = (uintptr_t)&r },
	};
	uint8_t byte = 1;

	for (int i = 0; i < w->rounds; i++) {
		uint32_t sess;
		uint64_t copied;
		int fence, ret;

		if (i & 1)
			mvgal_bo_write(w->m, w->first, 7, &byte, 1);
		ret = mvgal_begin(w->m, w->gpu, MVGAL_ACCESS_WRITE, MVGAL_PRIO_NORMAL,
				  -1, acc, 2, &sess, &fence, &copied);
		if (ret == -EBUSY) {
			w->busy++;
			continue;
		}
		if (ret) {
			w->err = ret;
			break;
		}
		settle(fence);
		if (mvgal_end(w->m, sess, -1, NULL, 0)) {
			w->err = -EIO;
			break;
		}
		w->ok++;
	}
	return NULL;
}

TEST_F(rel, begins_naming_two_buffers_in_both_orders_never_deadlock)
{
	struct pair_arg w[2];
	pthread_t t[2];
	uint32_t a, b;

	ASSERT_EQ(0, host_bo(self->m, 2 * CH, &a));
	ASSERT_EQ(0, host_bo(self->m, 2 * CH, &b));
	w[0] = (struct pair_arg){ .m = self->m, .first = a, .second = b,
				  .gpu = self->g0, .rounds = 300 };
	w[1] = (struct pair_arg){ .m = self->m, .first = b, .second = a,
				  .gpu = self->g1, .rounds = 300 };
	/* A deadlock ends the test by its timeout (kselftest's alarm). */
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, pair_worker, &w[i]));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(0, w[i].err);
		EXPECT_EQ(300, w[i].ok + w[i].busy);
		TH_LOG("worker %d: %d sessions, %d busy", i, w[i].ok, w[i].busy);
	}
	EXPECT_LT(0, w[0].ok + w[1].ok);
	mvgal_bo_destroy(self->m, a);
	mvgal_bo_destroy(self->m, b);
}

/*
 * A CPU fault mvgal cannot serve (the page for a write cannot be had:
 * fail_page_alloc fails the next page allocation of the child) is
 * SIGBUS, not VM_FAULT_OOM, which the fault handler would only retry.
 * Needs the debug kernel's fault injection.
 */
/*
 * In a child of fork: fail this task's page allocations, then write
 * to @p, a page mvgal has not allocated. Only raw system calls between the
 * two, each made once before with the same stack, so that no copy-on-write
 * fault of the child's own memory (which would only be retried) comes
 * before mvgal's.
 */
static void __attribute__((noinline))
write_unallocated_page_failing(volatile uint8_t *p)
{
	int fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "0", 1) != 1 || write(fd, "1", 1) != 1)
		_exit(2);
	*p = 1;
	_exit(0);
}

TEST_F(rel, unservable_fault_is_sigbus)
{
	const char *fpa = "/sys/kernel/debug/fail_page_alloc";
	char path[128];
	uint32_t h;
	uint8_t *va;
	int st;
	pid_t pid;

	if (access(fpa, F_OK))
		SKIP(return, "no fail_page_alloc (the debug kernel has it)");
	ASSERT_EQ(0, mvgal_bo_create(self->m, 4 * CH, MVGAL_BO_HOST_VALID |
				     MVGAL_BO_GPU_VALID | MVGAL_BO_LAZY_ALLOCATE,
				     MVGAL_GPU_ANY, &h));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&va));
	/*
	 * Page tables for the whole range now (its first and last pages;
	 * 256 KiB spans at most two page tables), which fork copies for a
	 * PFN mapping, so that the child's next page allocation is mvgal's.
	 */
	EXPECT_EQ(MVGAL_BO_POISON, va[0]);
	EXPECT_EQ(MVGAL_BO_POISON, va[4 * CH - 1]);
#define FPA(k, v) do { \
		snprintf(path, sizeof(path), "%s/%s", fpa, k); \
		ASSERT_EQ(0, write_param(path, v)); \
	} while (0)
	FPA("probability", "100");
	FPA("interval", "1");
	FPA("task-filter", "Y");
	FPA("ignore-gfp-highmem", "N");
	FPA("ignore-gfp-wait", "N");
	FPA("min-order", "0");
	FPA("verbose", "0");
	/*
	 * Not just one: where the slab allocator wants a new slab it tries
	 * a high order first and falls back, so the first failure may go
	 * unseen. Every page allocation of the child fails, then.
	 */
	FPA("times", "64");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		write_unallocated_page_failing(&va[CH + 5]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	FPA("probability", "0");
#undef FPA
	ASSERT_TRUE(WIFSIGNALED(st)) TH_LOG("exit status %d", WEXITSTATUS(st));
	EXPECT_EQ(SIGBUS, WTERMSIG(st));
	/* Nothing was lost: the page can be written now. */
	va[CH + 5] = 7;
	EXPECT_EQ(7, va[CH + 5]);
	munmap(va, 4 * CH);
	mvgal_bo_destroy(self->m, h);
}

/*
 * READ sessions of all of @h on g0 and on g1, each ended with a fence of
 * its own (@vf: the GPU still reads); each session's copy held pattern @s.
 */
static void two_readers(struct __test_metadata *_metadata,
			FIXTURE_DATA(rel) *self, uint32_t h, uint64_t size,
			unsigned int s, struct vfence *vf)
{
	const int gpu[2] = { self->g0, self->g1 };
	struct drm_mvgal_access a;
	uint32_t sess;
	int fence;

	for (int r = 0; r < 2; r++) {
		ASSERT_EQ(0, vfence_new(&vf[r]));
		ASSERT_EQ(0, begin1(self->m, gpu[r], MVGAL_ACCESS_READ |
				    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a,
				    &sess, &fence, NULL));
		ASSERT_EQ(0, settle(fence));
		ASSERT_EQ((uint32_t)gpu[r], a.pool_gpu);
		EXPECT_EQ(-1, check(self->pool[gpu[r]] + a.pool_offset, size,
				    0, s));
		ASSERT_EQ(0, mvgal_end(self->m, sess, vf[r].fd, NULL, 0));
	}
}

/*
 * Two READ sessions, on g0 and on g1, end with two vgem fences of work
 * still reading. A WRITE session on a third GPU (vgem) must not start
 * before both are done: its BEGIN fence stays pending when either one
 * signals alone (the first reader's or the last one's: both orders), and
 * signals after the second. Its copy then holds the bytes the readers
 * read, and what it writes becomes the buffer's.
 */
TEST_F(rel, write_session_waits_for_every_readers_fence)
{
	const uint64_t size = 3 * CH + 777;

	for (int first = 0; first < 2; first++) {
		struct drm_mvgal_access a;
		struct vfence vf[2];
		uint32_t h, sess;
		int fence;

		ASSERT_EQ(0, host_bo(self->m, size, &h));
		ASSERT_EQ(0, bo_fill(self->m, h, size, 40 + first));
		two_readers(_metadata, self, h, size, 40 + first, vf);
		ASSERT_EQ(0, begin1(self->m, self->vg, MVGAL_ACCESS_WRITE |
				    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a,
				    &sess, &fence, NULL));
		ASSERT_GE(fence, 0);
		EXPECT_EQ(-ETIME, mvgal_fence_wait(fence, 300));
		vfence_signal(&vf[first]);
		ASSERT_NE(0, fence_time(vf[first].fd));
		/* One reader is done, the other one still reads. */
		EXPECT_EQ(-ETIME, mvgal_fence_wait(fence, 300))
			TH_LOG("the writer went after reader %d alone", first);
		EXPECT_EQ(0, fence_time(fence));
		vfence_signal(&vf[!first]);
		ASSERT_EQ(0, mvgal_fence_wait(fence, 20000));
		EXPECT_EQ(1, mvgal_fence_status(fence));
		EXPECT_LE(fence_time(vf[0].fd), fence_time(fence));
		EXPECT_LE(fence_time(vf[1].fd), fence_time(fence));
		close(fence);
		ASSERT_EQ((uint32_t)self->vg, a.pool_gpu);
		EXPECT_EQ(-1, check(self->pool[self->vg] + a.pool_offset, size,
				    0, 40 + first));
		fill(self->pool[self->vg] + a.pool_offset, size, 50 + first);
		ASSERT_EQ(0, end_written(self->m, sess, h, 0, size, -1));
		EXPECT_EQ(-1, bo_check(self->m, h, size, 50 + first));
		vfence_free(&vf[0]);
		vfence_free(&vf[1]);
		mvgal_bo_destroy(self->m, h);
	}
}

struct pwrite_arg {
	struct mvgal *m;
	uint32_t h;
	const uint8_t *buf;
	uint64_t size;
	int ret;
	atomic_int done;
};

static void *pwrite_worker(void *p)
{
	struct pwrite_arg *w = p;

	w->ret = mvgal_bo_write(w->m, w->h, 0, w->buf, w->size);
	atomic_store(&w->done, 1);
	return NULL;
}

/* Waits up to @ms for @w's BO_PWRITE to return; true if it did. */
static bool pwrite_returned(struct pwrite_arg *w, int ms)
{
	for (int i = 0; i < ms && !atomic_load(&w->done); i++)
		usleep(1000);
	return atomic_load(&w->done);
}

/*
 * Likewise for the CPU: a BO_PWRITE over two readers' chunks waits for
 * both readers' fences, in either order. Until then not a byte of it
 * lands (a BO_PREAD, which waits for writers only, still reads the old
 * bytes); after the second, all of it has.
 */
TEST_F(rel, cpu_write_waits_for_every_readers_fence)
{
	const uint64_t size = 3 * CH + 777;
	uint8_t *buf = malloc(size);

	ASSERT_NE(NULL, buf);
	for (int first = 0; first < 2; first++) {
		struct pwrite_arg w = { .m = self->m, .buf = buf, .size = size };
		struct vfence vf[2];
		pthread_t t;

		ASSERT_EQ(0, host_bo(self->m, size, &w.h));
		ASSERT_EQ(0, bo_fill(self->m, w.h, size, 44 + first));
		two_readers(_metadata, self, w.h, size, 44 + first, vf);
		fill(buf, size, 46 + first);
		ASSERT_EQ(0, pthread_create(&t, NULL, pwrite_worker, &w));
		EXPECT_FALSE(pwrite_returned(&w, 300));
		EXPECT_EQ(-1, bo_check(self->m, w.h, size, 44 + first));
		vfence_signal(&vf[first]);
		EXPECT_FALSE(pwrite_returned(&w, 300))
			TH_LOG("the write went after reader %d alone", first);
		EXPECT_EQ(-1, bo_check(self->m, w.h, size, 44 + first));
		vfence_signal(&vf[!first]);
		EXPECT_TRUE(pwrite_returned(&w, 20000));
		ASSERT_EQ(0, pthread_join(t, NULL));
		EXPECT_EQ(0, w.ret);
		EXPECT_EQ(-1, bo_check(self->m, w.h, size, 46 + first));
		vfence_free(&vf[0]);
		vfence_free(&vf[1]);
		mvgal_bo_destroy(self->m, w.h);
	}
	free(buf);
}

/* Open fds of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

/*
 * A BEGIN whose struct is read-only cannot hand out its session and fd:
 * it fails with -EFAULT and nothing took effect: no session holds the
 * chunks (a write to them goes through), no fd was added, no job was
 * queued, no session counted, nothing copied to the GPU, and the same
 * BEGIN from writable memory then works.
 */
TEST_F(rel, begin_with_a_read_only_struct_changes_nothing)
{
	const uint64_t size = 2 * CH + 100;
	struct drm_mvgal_range r = { .offset = CH - 3, .size = CH + 9 };
	struct drm_mvgal_access a = {
		.nr_ranges = 1, .ranges = (uintptr_t)&r,
	};
	struct drm_mvgal_stats st0, st1;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_begin *ro, w;
	uint32_t h;
	int nfd;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 1));
	a.handle = h;
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	*ro = (struct drm_mvgal_begin) {
		.accesses = (uintptr_t)&a, .count = 1, .gpu = self->g0,
		.flags = MVGAL_ACCESS_WRITE, .in_fence_fd = -1,
		.priority = MVGAL_PRIO_NORMAL,
	};
	w = *ro;
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	nfd = count_fds();
	ASSERT_LT(0, nfd);
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	for (int i = 0; i < 3; i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BEGIN, ro));
		EXPECT_EQ(EFAULT, errno);
	}
	EXPECT_EQ(nfd, count_fds());
	EXPECT_EQ(0, ro->session);
	/* Nothing ran behind the refusal: no job, no session, no copy. */
	usleep(100000);
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
	EXPECT_EQ(st0.scheduled, st1.scheduled);
	EXPECT_EQ(st0.sessions, st1.sessions);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.resident[1 + self->g0]);
	EXPECT_EQ(0, info.valid[1 + self->g0]);
	EXPECT_EQ(0, info.bytes_to_gpu[self->g0]);
	/* No WRITE session holds the chunks: the CPU's write goes through. */
	EXPECT_EQ(0, bo_fill(self->m, h, size, 2));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 2));

	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_BEGIN, &w));
	EXPECT_NE(0, w.session);
	EXPECT_EQ(0, settle(w.out_fence_fd));
	EXPECT_EQ(-EBUSY, bo_fill(self->m, h, size, 3));
	EXPECT_EQ(0, mvgal_end(self->m, w.session, -1, NULL, 0));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 2));
	munmap(ro, 4096);
	mvgal_bo_destroy(self->m, h);
}

/*
 * Only the file that queued a job may cancel it: not another file while
 * it is open, nor any file opened after it closed (the job outlives it),
 * whatever memory the new files reuse. The job then runs to its end.
 */
TEST_F(rel, cancel_reaches_only_the_queuing_file)
{
	const uint64_t size = 3 * CH + 5;
	struct drm_mvgal_migrate mg = { .size = size };
	struct drm_mvgal_bo_info info;
	struct mvgal *owner, *other;
	struct vfence vf;
	uint32_t h, mine;
	int dmabuf;

	ASSERT_EQ(0, mvgal_open(&owner));
	ASSERT_EQ(0, mvgal_bo_create_shared(owner, size, MVGAL_BO_HOST_VALID |
			MVGAL_BO_GPU_VALID | MVGAL_BO_DMA_BUF, MVGAL_GPU_ANY,
			MVGAL_SHARING_DMA_BUF, &h));
	ASSERT_EQ(0, bo_fill(owner, h, size, 7));
	/* The same buffer in this test's file, to look at it afterwards. */
	ASSERT_EQ(0, mvgal_bo_export(owner, h, &dmabuf));
	ASSERT_EQ(0, mvgal_bo_import(self->m, dmabuf, &mine));
	close(dmabuf);
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + self->g1;
	mg.in_fence_fd = vf.fd;
	ASSERT_EQ(0, mvgal_migrate(owner, &mg));
	ASSERT_NE(0, mg.job);
	EXPECT_EQ(-ENOENT, mvgal_cancel(self->m, mg.job));
	/*
	 * The owner closes; the job keeps its buffer. New files come. vgem
	 * signals its fence by itself after 10 s, which a slow (debug)
	 * kernel may reach: from then on the job may have started, and
	 * CANCEL is -EBUSY for anyone.
	 */
	mvgal_close(owner);
	for (int i = 0; i < 32; i++) {
		int ret;

		ASSERT_EQ(0, mvgal_open(&other));
		ret = mvgal_cancel(other, mg.job);
		if (ret != -EBUSY || !mvgal_fence_status(vf.fd))
			EXPECT_EQ(-ENOENT, ret) TH_LOG("file %d", i);
		mvgal_close(other);
	}
	if (!mvgal_fence_status(vf.fd))
		EXPECT_EQ(0, mvgal_fence_status(mg.out_fence_fd));
	vfence_signal(&vf);
	EXPECT_EQ(0, mvgal_fence_wait(mg.out_fence_fd, 20000));
	EXPECT_EQ(1, mvgal_fence_status(mg.out_fence_fd));
	close(mg.out_fence_fd);
	vfence_free(&vf);
	ASSERT_EQ(0, mvgal_bo_info(self->m, mine, &info));
	EXPECT_EQ(size, info.valid[1 + self->g1]);
	EXPECT_EQ(-1, bo_check(self->m, mine, size, 7));
	mvgal_bo_destroy(self->m, mine);
}

/* Buffers the caller can see (all of them, for root). */
static uint32_t bo_count(struct mvgal *m)
{
	uint32_t n = 0;

	return mvgal_bo_list(m, NULL, &n) ? ~0U : n;
}

/*
 * Calls that make a job, a handle or an fd, given a read-only struct to
 * write their results to, fail with -EFAULT before any of it exists: no
 * job queued, no data moved, no buffer, no placement, no fd. The same
 * calls from writable memory then work.
 */
TEST_F(rel, calls_with_a_read_only_struct_change_nothing)
{
	const uint64_t size = 2 * CH + 777;
	struct drm_mvgal_stats st0, st1;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_migrate *mg, wmg;
	struct drm_mvgal_bo_create *cr, wcr;
	struct drm_mvgal_place_fd *pf, wpf;
	struct drm_mvgal_pool_fd *po;
	uint32_t h, nbo;
	uint8_t *ro;
	int nfd;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 5));
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	/* Odd offsets in the page: the struct need not be aligned to it. */
	mg = (void *)(ro + 8);
	cr = (void *)(ro + 1000);
	pf = (void *)(ro + 2000);
	po = (void *)(ro + 3000);
	*mg = (struct drm_mvgal_migrate) {
		.handle = h, .offset = 0, .size = size,
		.location = 1 + self->g1, .in_fence_fd = -1,
		.priority = MVGAL_PRIO_NORMAL,
	};
	*cr = (struct drm_mvgal_bo_create) {
		.size = size, .flags = MVGAL_BO_HOST_VALID,
		.gpu = MVGAL_GPU_ANY,
	};
	*pf = (struct drm_mvgal_place_fd) { .handle = h, .gpu = self->g0 };
	*po = (struct drm_mvgal_pool_fd) { .gpu = self->g0 };
	wmg = *mg;
	wcr = *cr;
	wpf = *pf;
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	nfd = count_fds();
	nbo = bo_count(self->m);
	ASSERT_NE(~0U, nbo);
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_MIGRATE, mg));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_CREATE, cr));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_PLACE_FD, pf));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, DRM_IOCTL_MVGAL_POOL_FD, po));
	EXPECT_EQ(EFAULT, errno);

	EXPECT_EQ(nfd, count_fds());
	EXPECT_EQ(nbo, bo_count(self->m));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
	EXPECT_EQ(st0.scheduled, st1.scheduled);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.valid[1 + self->g1]);
	EXPECT_EQ(0, info.valid[1 + self->g0]);
	EXPECT_EQ(0, mg->job);
	EXPECT_EQ(0, cr->handle);
	EXPECT_EQ(0, pf->size);

	/* From writable memory, the same calls take effect. */
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_MIGRATE, &wmg));
	ASSERT_NE(0, wmg.job);
	EXPECT_EQ(0, mvgal_fence_wait(wmg.out_fence_fd, 20000));
	close(wmg.out_fence_fd);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(size, info.valid[1 + self->g1]);
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_PLACE_FD, &wpf));
	EXPECT_LE(size, wpf.size);
	close(wpf.fd);
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_BO_CREATE, &wcr));
	EXPECT_EQ(nbo + 1, bo_count(self->m));
	mvgal_bo_destroy(self->m, wcr.handle);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 5));
	munmap(ro, 4096);
	mvgal_bo_destroy(self->m, h);
}

#define BO_HOLD "/sys/kernel/debug/mvgal/bo_hold"

/* The two threads of bo_list_never_stalls_other_users. */
struct list_race {
	uint64_t id;			/* the buffer held */
	atomic_int hold_tid, list_tid;	/* their kernel stacks are read */
	atomic_int hold_done;		/* the buffer's lock went */
	atomic_int list_done;		/* BO_LIST returned */
	int hold_ret, list_ret;
	uint32_t listed;
};

/* Thread: holds the buffer's lock for 3 s, as a slow CPU access would. */
static void *hold_bo(void *arg)
{
	struct list_race *r = arg;
	char cmd[64];
	int fd = open(BO_HOLD, O_WRONLY | O_CLOEXEC);

	atomic_store(&r->hold_tid, gettid());
	snprintf(cmd, sizeof(cmd), "%llu 3000", (unsigned long long)r->id);
	r->hold_ret = fd < 0 || write(fd, cmd, strlen(cmd)) < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	atomic_store(&r->hold_done, 1);
	return NULL;
}

static void *list_all(void *arg)
{
	struct list_race *r = arg;
	struct drm_mvgal_bo_entry *e = calloc(1024, sizeof(*e));
	struct mvgal *m;

	r->listed = 1024;
	r->list_ret = e ? mvgal_open(&m) : -ENOMEM;
	if (!r->list_ret) {
		atomic_store(&r->list_tid, gettid());
		r->list_ret = mvgal_bo_list(m, e, &r->listed);
		mvgal_close(m);
	}
	free(e);
	atomic_store(&r->list_done, 1);
	return NULL;
}

/* Does thread @tid's kernel stack name @fn? -1: no stack to read. */
static int in_kernel_fn(int tid, const char *fn)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, fn) != NULL;
	fclose(f);
	return found;
}

/*
 * Polls (1 ms) until thread *@tid, once it is known, sleeps in the
 * kernel in @fn; false if @done is set first.
 */
static bool wait_in(atomic_int *tid, const char *fn, atomic_int *done)
{
	while (!atomic_load(done)) {
		if (atomic_load(tid) && in_kernel_fn(atomic_load(tid), fn) == 1)
			return true;
		usleep(1000);
	}
	return false;
}

/*
 * BO_LIST waits for each buffer it reports, never with the device's list
 * locked: while one user's BO_LIST waits for a buffer whose lock is held
 * (debugfs bo_hold stands for a slow CPU access, such as the first touch
 * of a large buffer making its pages), another user's BO_CREATE and the
 * close of its buffer go through at once. The order is what is checked,
 * not a time: with the list locked they would return only after the
 * lock went. Each thread's state is read from its kernel stack while it
 * sleeps there.
 */
TEST_F(rel, bo_list_never_stalls_other_users)
{
	struct drm_mvgal_bo_info info;
	struct list_race r = { 0 };
	pthread_t holder, lister;
	bool created_first, shown;
	struct mvgal *other;
	uint32_t h, mine;

	if (access(BO_HOLD, W_OK) || in_kernel_fn(gettid(), "") < 0)
		SKIP(return, "no debugfs bo_hold or /proc/PID/stack");
	ASSERT_EQ(0, host_bo(self->m, 3 * CH + 5, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, 3 * CH + 5, 6));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	r.id = info.id;
	ASSERT_EQ(0, mvgal_open(&other));
	ASSERT_EQ(0, pthread_create(&holder, NULL, hold_bo, &r));
	ASSERT_TRUE(wait_in(&r.hold_tid, "mvgal_debug_hold_write", &r.hold_done));
	ASSERT_EQ(0, pthread_create(&lister, NULL, list_all, &r));
	/* BO_LIST waits for the held buffer's lock. */
	shown = wait_in(&r.list_tid, "mvgal_bo_pages_node", &r.list_done) &&
		!atomic_load(&r.hold_done);
	ASSERT_EQ(0, host_bo(other, 3 * CH + 11, &mine));
	mvgal_bo_destroy(other, mine);
	created_first = !atomic_load(&r.hold_done);
	pthread_join(holder, NULL);
	pthread_join(lister, NULL);
	EXPECT_EQ(0, r.hold_ret);
	EXPECT_EQ(0, r.list_ret);
	EXPECT_LT(0, r.listed);
	EXPECT_TRUE(shown) TH_LOG("BO_LIST never waited for the held buffer");
	EXPECT_TRUE(created_first)
		TH_LOG("another user's BO_CREATE waited for BO_LIST");
	EXPECT_EQ(-1, bo_check(self->m, h, 3 * CH + 5, 6));
	mvgal_close(other);
	mvgal_bo_destroy(self->m, h);
}

/* Waits for @fd and says how it ended: 1 (no error) or -errno; closes it. */
static int fence_end(int fd)
{
	int st;

	if (fd < 0)
		return 1;
	st = mvgal_fence_wait(fd, 20000) ?: mvgal_fence_status(fd);
	close(fd);
	return st;
}

/*
 * Work is ordered by the chunks it touches: a READ session of chunk 8
 * does not wait for a MIGRATE of chunk 0 queued behind pending work, and
 * cancelling that MIGRATE fails nothing of it: its copy is made (before
 * the work the MIGRATE waits for ends) and its GPU holds the bytes.
 */
TEST_F(rel, a_cancelled_job_fails_no_work_on_other_chunks)
{
	const uint64_t size = 10 * CH + 123, off = 8 * CH + 7, len = CH + 50;
	struct drm_mvgal_migrate mg = { .offset = 5, .size = CH - 10 };
	struct drm_mvgal_access a;
	struct vfence vf;
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 3));
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + self->g1;
	mg.in_fence_fd = vf.fd;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	ASSERT_NE(0, mg.job);
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, off, len, &a, &s,
			    &fence, NULL));
	ASSERT_EQ(0, mvgal_cancel(self->m, mg.job));
	/* Done while the MIGRATE's own in-fence is still pending. */
	EXPECT_EQ(1, fence_end(fence));
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	EXPECT_EQ(-ECANCELED, fence_end(mg.out_fence_fd));
	ASSERT_EQ((uint32_t)self->g0, a.pool_gpu);
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset + off, len,
			    off, 3));
	EXPECT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	vfence_signal(&vf);
	vfence_free(&vf);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 3));
	mvgal_bo_destroy(self->m, h);
}

/*
 * One file's CANCEL never fails another file's work: once the owner's
 * session waits for a MIGRATE a read-only importer queued on the same
 * chunks, the importer's CANCEL is -EBUSY and the MIGRATE runs; the
 * session's copy is made with the owner's bytes. A MIGRATE the importer
 * cancels before anything waits for it is cancelled, and the owner's
 * next session is planned as if it had never been queued. The owner's
 * own CANCEL of a job its own session waits for still fails the session.
 */
TEST_F(rel, one_files_cancel_is_not_anothers_failure)
{
	const uint64_t size = 4 * CH + 999, off = 100, len = 2 * CH;
	struct drm_mvgal_migrate mg = { .offset = 0, .size = CH };
	struct drm_mvgal_access a;
	struct mvgal *imp;
	struct vfence vf;
	uint32_t h, ih, s;
	int dmabuf, fence;

	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, size, MVGAL_BO_HOST_VALID |
			MVGAL_BO_GPU_VALID | MVGAL_BO_DMA_BUF, MVGAL_GPU_ANY,
			MVGAL_SHARING_DMA_BUF, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 8));
	/* Read-only: PRIME without DRM_RDWR. */
	ASSERT_EQ(0, drmPrimeHandleToFD(self->fd, h, DRM_CLOEXEC, &dmabuf));
	ASSERT_EQ(0, mvgal_open(&imp));
	ASSERT_EQ(0, mvgal_bo_import(imp, dmabuf, &ih));
	close(dmabuf);
	ASSERT_EQ(-EACCES, mvgal_bo_write(imp, ih, 0, "x", 1));

	/* Waited for by the owner: not cancelled, runs, fails nothing. */
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = ih;
	mg.location = 1 + self->g1;
	mg.in_fence_fd = vf.fd;
	ASSERT_EQ(0, mvgal_migrate(imp, &mg));
	ASSERT_NE(0, mg.job);
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, off, len, &a, &s,
			    &fence, NULL));
	EXPECT_EQ(-EBUSY, mvgal_cancel(imp, mg.job));
	vfence_signal(&vf);
	vfence_free(&vf);
	EXPECT_EQ(1, fence_end(fence));
	EXPECT_EQ(1, fence_end(mg.out_fence_fd));
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset + off, len,
			    off, 8));
	EXPECT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));

	/* Cancelled before anything waits for it: as if never queued. */
	ASSERT_EQ(0, vfence_new(&vf));
	mg = (struct drm_mvgal_migrate) {
		.handle = ih, .offset = 2 * CH, .size = CH + 1,
		.location = 1 + self->g1, .in_fence_fd = vf.fd,
	};
	ASSERT_EQ(0, mvgal_migrate(imp, &mg));
	ASSERT_EQ(0, mvgal_cancel(imp, mg.job));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 2 * CH + 3, CH + 9,
			    &a, &s, &fence, NULL));
	EXPECT_EQ(1, fence_end(fence));
	EXPECT_EQ(-ECANCELED, fence_end(mg.out_fence_fd));
	EXPECT_EQ(-1, check(self->pool[self->g1] + a.pool_offset + 2 * CH + 3,
			    CH + 9, 2 * CH + 3, 8));
	EXPECT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	vfence_signal(&vf);
	vfence_free(&vf);

	/* The owner's own cancellation fails its own waiting session. */
	ASSERT_EQ(0, vfence_new(&vf));
	mg = (struct drm_mvgal_migrate) {
		.handle = h, .offset = 0, .size = CH,
		.location = 1 + self->vg, .in_fence_fd = vf.fd,
	};
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, CH, &a, &s,
			    &fence, NULL));
	ASSERT_EQ(0, mvgal_cancel(self->m, mg.job));
	EXPECT_EQ(-ECANCELED, fence_end(fence));
	EXPECT_EQ(-ECANCELED, fence_end(mg.out_fence_fd));
	EXPECT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	vfence_signal(&vf);
	vfence_free(&vf);

	EXPECT_EQ(-1, bo_check(self->m, h, size, 8));
	mvgal_bo_destroy(imp, ih);
	mvgal_close(imp);
	mvgal_bo_destroy(self->m, h);
}

/*
 * GPU work that only read a buffer changes none of its bytes: when it
 * fails, what comes after it still runs. A READ session's work (here a
 * job's fence, which its CANCEL fails) is followed by a MOVE of the same
 * chunks and a staged write into them: both complete, and the write's
 * bytes land.
 */
TEST_F(rel, a_readers_failed_work_fails_no_later_writer)
{
	const uint64_t size = 3 * CH + 31;
	struct drm_mvgal_migrate other = { .size = CH };
	struct drm_mvgal_migrate mv = { .size = size };
	uint8_t buf[777], got[777];
	struct drm_mvgal_access a;
	struct vfence vf;
	uint32_t h, x, s;
	int fence, gpu;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, CH, &x));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 2));
	/* The stand-in GPU work: a job of another buffer, cancelled later. */
	ASSERT_EQ(0, vfence_new(&vf));
	other.handle = x;
	other.location = 1 + self->g1;
	other.in_fence_fd = vf.fd;
	ASSERT_EQ(0, mvgal_migrate(self->m, &other));
	gpu = dup(other.out_fence_fd);
	ASSERT_LE(0, gpu);
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, size,
			    &a, &s, &fence, NULL));
	EXPECT_EQ(1, fence_end(fence));
	ASSERT_EQ(0, mvgal_end(self->m, s, gpu, NULL, 0));
	close(gpu);
	/* Writers after the reader: a MOVE to a GPU, and a staged write. */
	mv.handle = h;
	mv.location = 1 + self->g1;
	mv.flags = MVGAL_MIGRATE_MOVE;
	mv.in_fence_fd = -1;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mv));
	for (unsigned int i = 0; i < sizeof(buf); i++)
		buf[i] = pat(CH + 5 + i, 9);
	ASSERT_EQ(0, mvgal_bo_write_flags(self->m, h, CH + 5, buf, sizeof(buf),
					  MVGAL_RW_STAGED));
	/* The reader's work fails. */
	ASSERT_EQ(0, mvgal_cancel(self->m, other.job));
	EXPECT_EQ(-ECANCELED, fence_end(other.out_fence_fd));
	EXPECT_EQ(1, fence_end(mv.out_fence_fd));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, CH + 5, got, sizeof(got)));
	EXPECT_EQ(0, memcmp(buf, got, sizeof(got)));
	/* The rest as it was. */
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, got, sizeof(got)));
	EXPECT_EQ(-1, check(got, sizeof(got), 0, 2));
	vfence_signal(&vf);
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, x);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A staged write that waits for a MIGRATE of its chunk fails with it
 * when its file cancels the MIGRATE: the write is lost, as documented,
 * but the chunk keeps its bytes where they were. The GPU the MIGRATE
 * would have filled does not come to count as a holder, and home keeps
 * its copy: every byte reads back as before, and a MIGRATE to that GPU
 * then copies the chunk and brings the right bytes.
 */
TEST_F(rel, a_failed_staged_write_leaves_its_chunks_as_they_were)
{
	const uint64_t size = 2 * CH + 77;
	struct drm_mvgal_migrate mg = { .size = size };
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	uint8_t buf[500];
	struct vfence vf;
	uint32_t h, s;
	int fence;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 5));
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + self->g0;
	mg.in_fence_fd = vf.fd;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	memset(buf, 0x3c, sizeof(buf));
	ASSERT_EQ(0, mvgal_bo_write_flags(self->m, h, 100, buf, sizeof(buf),
					  MVGAL_RW_STAGED));
	ASSERT_EQ(0, mvgal_cancel(self->m, mg.job));
	EXPECT_EQ(-ECANCELED, fence_end(mg.out_fence_fd));
	/* Every byte as before, the staged ones included (the write failed). */
	EXPECT_EQ(-1, bo_check(self->m, h, size, 5));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.valid[1 + self->g0]);
	EXPECT_EQ(size, info.valid[MVGAL_LOC_HOST]);
	/* The GPU's copy is made from home now. */
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a, &s,
			    &fence, NULL));
	EXPECT_EQ(1, fence_end(fence));
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset, size, 0, 5));
	EXPECT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	vfence_signal(&vf);
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, h);
}

TEST_HARNESS_MAIN
