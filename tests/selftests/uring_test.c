// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal's io_uring commands, through libmvgal's ring: each gives what
 * its ioctl gives, BEGIN and MIGRATE complete only once their data is in
 * place, links run in order, CANCEL reaches queued jobs, bad commands
 * are refused with exact errors (raw SQEs, through liburing), and a
 * process killed with commands in flight loses nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <liburing.h>
#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

FIXTURE(ring) {
	COH_FIELDS;
	struct mvgal_ring *r;
};

FIXTURE_SETUP(ring)
{
	COH_SETUP(self);
	ASSERT_EQ(0, mvgal_ring_init(self->m, 64, &self->r));
}

FIXTURE_TEARDOWN(ring)
{
	mvgal_ring_free(self->r);
	coh_teardown(self->m, self->pool);
}

/* Submits what was prepared and reaps one completion. */
static int run1(struct mvgal_ring *r, struct mvgal_completion *c)
{
	int ret = mvgal_ring_submit(r);

	if (ret < 0)
		return ret;
	return mvgal_ring_wait(r, 20000, c);
}

/*
 * A MIGRATE (a MOVE) behind a vgem fence completes only after the fence
 * and the copy: no completion while the fence is pending, and when it
 * comes the job's own fence has signalled. The results are the ioctl's,
 * and BO_PREAD then reads the bytes from the GPU's pool.
 */
TEST_F(ring, migrate_completes_when_its_data_is_in_place)
{
	const uint64_t size = 3 * CH + 5;
	struct drm_mvgal_migrate mg = { .size = size }, io;
	struct drm_mvgal_bo_info info;
	struct mvgal_completion c;
	struct vfence vf;
	uint32_t h, h2;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 7));
	ASSERT_EQ(0, bo_fill(self->m, h2, size, 7));
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + self->g1;
	mg.flags = MVGAL_MIGRATE_MOVE;
	mg.in_fence_fd = vf.fd;
	io = mg;
	io.handle = h2;
	io.in_fence_fd = -1;
	ASSERT_EQ(0, mvgal_prep_migrate(self->r, &mg, 42, 0));
	ASSERT_EQ(1, mvgal_ring_submit(self->r));
	/* Issued: the results are there, the completion is not. */
	ASSERT_NE(0, mg.job);
	EXPECT_EQ(-EAGAIN, mvgal_ring_wait(self->r, 0, &c));
	EXPECT_EQ(-ETIME, mvgal_ring_wait(self->r, 200, &c));
	EXPECT_EQ(0, mvgal_fence_status(mg.out_fence_fd));
	vfence_signal(&vf);
	ASSERT_EQ(0, mvgal_ring_wait(self->r, 20000, &c));
	EXPECT_EQ(42, c.user_data);
	EXPECT_EQ(0, c.res);
	EXPECT_EQ(1, mvgal_fence_status(mg.out_fence_fd));
	close(mg.out_fence_fd);
	vfence_free(&vf);
	/* The same through the ioctl. */
	ASSERT_EQ(0, mvgal_migrate(self->m, &io));
	EXPECT_EQ(io.bytes, mg.bytes);
	EXPECT_EQ(0, mvgal_fence_wait(io.out_fence_fd, 20000));
	close(io.out_fence_fd);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(size, info.valid[1 + self->g1]);
	EXPECT_EQ(0, info.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 7));
	EXPECT_EQ(-1, bo_check(self->m, h2, size, 7));
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/*
 * BEGIN completes when its copies are done; END through the ring ends
 * the session (a CPU write goes through again). bytes_copied is the
 * ioctl's for the same range.
 */
TEST_F(ring, begin_and_end_through_the_ring)
{
	const uint64_t size = 2 * CH + 333;
	struct drm_mvgal_range rg = { .offset = 100, .size = CH + 17 };
	struct drm_mvgal_access a = { .nr_ranges = 1, .ranges = (uintptr_t)&rg };
	struct drm_mvgal_begin b = {
		.accesses = (uintptr_t)&a, .count = 1, .gpu = self->g1,
		.flags = MVGAL_ACCESS_READ, .in_fence_fd = -1,
		.priority = MVGAL_PRIO_NORMAL,
	};
	struct drm_mvgal_end e = { .fence_fd = -1 };
	struct drm_mvgal_access a2;
	struct mvgal_completion c;
	uint64_t copied2;
	uint32_t h, h2, s2;
	int f2;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 3));
	ASSERT_EQ(0, bo_fill(self->m, h2, size, 3));
	a.handle = h;
	ASSERT_EQ(0, mvgal_prep_begin(self->r, &b, 1, 0));
	ASSERT_EQ(0, run1(self->r, &c));
	EXPECT_EQ(1, c.user_data);
	ASSERT_EQ(0, c.res);
	ASSERT_NE(0, b.session);
	EXPECT_LT(0, b.bytes_copied);
	if (b.out_fence_fd >= 0) {
		EXPECT_EQ(1, mvgal_fence_status(b.out_fence_fd));
		close(b.out_fence_fd);
	}
	/* The pool holds the named bytes when the completion comes. */
	ASSERT_GT(MVGAL_MAX_GPUS, a.pool_gpu);
	ASSERT_NE(NULL, self->pool[a.pool_gpu]);
	EXPECT_EQ(-1, check(self->pool[a.pool_gpu] + a.pool_offset + rg.offset,
			    rg.size, rg.offset, 3));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ, h2, rg.offset,
			    rg.size, &a2, &s2, &f2, &copied2));
	EXPECT_EQ(copied2, b.bytes_copied);
	EXPECT_EQ(0, settle(f2));
	EXPECT_EQ(0, mvgal_end(self->m, s2, -1, NULL, 0));

	e.session = b.session;
	ASSERT_EQ(0, mvgal_prep_end(self->r, &e, 2, 0));
	ASSERT_EQ(0, run1(self->r, &c));
	EXPECT_EQ(2, c.user_data);
	EXPECT_EQ(0, c.res);
	/* Ended: the same END again is refused, as by the ioctl. */
	ASSERT_EQ(0, mvgal_prep_end(self->r, &e, 3, 0));
	ASSERT_EQ(0, run1(self->r, &c));
	EXPECT_EQ(mvgal_end(self->m, b.session, -1, NULL, 0), c.res);
	EXPECT_GT(0, c.res);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/*
 * BO_PWRITE, BO_PREAD and BO_COPY through the ring, at offsets and sizes
 * that are not page multiples, give the bytes the ioctls give.
 */
TEST_F(ring, copies_give_the_bytes_of_their_ioctls)
{
	const uint64_t size = 2 * CH + 999, off = 4097, n = CH + 3;
	uint8_t *src = malloc(n), *dst = malloc(n), *ref = malloc(n);
	struct drm_mvgal_bo_rw w = { .offset = off, .size = n };
	struct drm_mvgal_bo_rw rd = { .offset = off, .size = n };
	struct drm_mvgal_bo_copy cp = {
		.src_offset = off, .dst_offset = 77, .size = n,
	};
	struct mvgal_completion c;
	uint32_t h, h2;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 1));
	ASSERT_EQ(0, bo_fill(self->m, h2, size, 2));
	fill(src, n, 9);
	w.handle = rd.handle = cp.src_handle = h;
	cp.dst_handle = h2;
	w.user_ptr = (uintptr_t)src;
	rd.user_ptr = (uintptr_t)dst;
	/* Linked: the read sees the write, the copy the same bytes. */
	ASSERT_EQ(0, mvgal_prep_pwrite(self->r, &w, 1, MVGAL_RING_LINK));
	ASSERT_EQ(0, mvgal_prep_pread(self->r, &rd, 2, MVGAL_RING_LINK));
	ASSERT_EQ(0, mvgal_prep_copy(self->r, &cp, 3, 0));
	ASSERT_EQ(3, mvgal_ring_submit(self->r));
	for (int i = 1; i <= 3; i++) {
		ASSERT_EQ(0, mvgal_ring_wait(self->r, 20000, &c));
		EXPECT_EQ(i, c.user_data);
		EXPECT_EQ(0, c.res);
	}
	EXPECT_EQ(0, memcmp(src, dst, n));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h2, 77, ref, n));
	EXPECT_EQ(0, memcmp(src, ref, n));
	/* Around them, the old bytes. */
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, off - 1, ref, 1));
	EXPECT_EQ(pat(off - 1, 1), ref[0]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h2, 77 + n, ref, 1));
	EXPECT_EQ(pat(77 + n, 2), ref[0]);
	free(src);
	free(dst);
	free(ref);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/*
 * Unlinked commands complete as their data is in place: a PWRITE
 * submitted after a MIGRATE that waits on a fence completes first. A
 * CANCEL through the ring cancels the queued job, whose completion then
 * says -ECANCELED; nothing moved.
 */
TEST_F(ring, unlinked_complete_out_of_order_and_cancel)
{
	const uint64_t size = CH + 4321;
	struct drm_mvgal_migrate mg = { .size = size };
	struct drm_mvgal_cancel cn = { 0 };
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_bo_rw w = { .offset = 5, .size = 100 };
	struct mvgal_completion c;
	uint8_t src[100];
	struct vfence vf;
	uint32_t h, h2;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 4));
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + self->g0;
	mg.in_fence_fd = vf.fd;
	fill(src, sizeof(src), 5);
	w.handle = h2;
	w.user_ptr = (uintptr_t)src;
	ASSERT_EQ(0, mvgal_prep_migrate(self->r, &mg, 10, 0));
	ASSERT_EQ(0, mvgal_prep_pwrite(self->r, &w, 11, 0));
	ASSERT_EQ(2, mvgal_ring_submit(self->r));
	ASSERT_EQ(0, mvgal_ring_wait(self->r, 20000, &c));
	EXPECT_EQ(11, c.user_data);
	EXPECT_EQ(0, c.res);
	EXPECT_EQ(-EAGAIN, mvgal_ring_wait(self->r, 0, &c));

	cn.job = mg.job;
	ASSERT_EQ(0, mvgal_prep_cancel(self->r, &cn, 12, 0));
	ASSERT_EQ(1, mvgal_ring_submit(self->r));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, mvgal_ring_wait(self->r, 20000, &c));
		EXPECT_EQ(c.user_data == 12 ? 0 : -ECANCELED, c.res)
			TH_LOG("completion of %llu",
			       (unsigned long long)c.user_data);
	}
	EXPECT_EQ(-ECANCELED, mvgal_fence_status(mg.out_fence_fd));
	close(mg.out_fence_fd);
	vfence_signal(&vf);
	vfence_free(&vf);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.valid[1 + self->g0]);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 4));
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/*
 * A linked command issued long after its submission, when the ring's
 * submission slots have been reused by later commands, still does what
 * it was given: a PREAD linked behind a MIGRATE that waits on a fence,
 * then more PWRITEs than the ring has slots, then the fence.
 */
TEST_F(ring, a_linked_command_survives_its_slot_being_reused)
{
	const uint64_t size = CH + 123;
	struct drm_mvgal_migrate mg = { .size = size };
	struct drm_mvgal_bo_rw rd = { .offset = 3, .size = 1000 };
	struct drm_mvgal_bo_rw w[8];
	struct mvgal_completion c;
	uint8_t dst[1000], src[8][64];
	struct mvgal_ring *r;
	struct vfence vf;
	uint32_t h, h2;
	int done = 0;

	ASSERT_EQ(0, mvgal_ring_init(self->m, 4, &r));
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 8));
	ASSERT_EQ(0, vfence_new(&vf));
	memset(dst, 0, sizeof(dst));
	mg.handle = h;
	mg.location = 1 + self->g0;
	mg.in_fence_fd = vf.fd;
	rd.handle = h;
	rd.user_ptr = (uintptr_t)dst;
	ASSERT_EQ(0, mvgal_prep_migrate(r, &mg, 100, MVGAL_RING_LINK));
	ASSERT_EQ(0, mvgal_prep_pread(r, &rd, 101, 0));
	ASSERT_EQ(2, mvgal_ring_submit(r));
	for (int i = 0; i < 8; i++) {
		memset(src[i], i + 1, sizeof(src[i]));
		w[i] = (struct drm_mvgal_bo_rw) {
			.handle = h2, .offset = 64 * i, .size = 64,
			.user_ptr = (uintptr_t)src[i],
		};
		ASSERT_EQ(0, mvgal_prep_pwrite(r, &w[i], i, 0));
		ASSERT_EQ(1, mvgal_ring_submit(r));
		ASSERT_EQ(0, mvgal_ring_wait(r, 20000, &c));
		EXPECT_EQ(i, c.user_data);
		EXPECT_EQ(0, c.res);
	}
	vfence_signal(&vf);
	while (done < 2 && !mvgal_ring_wait(r, 20000, &c)) {
		EXPECT_EQ(0, c.res);
		EXPECT_EQ(100 + done, c.user_data);
		done++;
	}
	EXPECT_EQ(2, done);
	EXPECT_EQ(-1, check(dst, sizeof(dst), 3, 8));
	close(mg.out_fence_fd);
	vfence_free(&vf);
	mvgal_ring_free(r);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/* One raw command through liburing; its completion's res. */
static int raw_cmd(int fd, unsigned int op, uint64_t args, uint32_t flags,
		   uint32_t pad)
{
	struct drm_mvgal_uring_cmd *c;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int ret;

	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		return 1000 + ret;
	sqe = io_uring_get_sqe(&ring);
	if (!sqe) {
		io_uring_queue_exit(&ring);
		return 3000;
	}
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	c = (struct drm_mvgal_uring_cmd *)sqe->cmd;
	c->args = args;
	c->flags = flags;
	c->pad = pad;
	ret = io_uring_submit(&ring);
	if (ret == 1)
		ret = io_uring_wait_cqe(&ring, &cqe);
	else
		ret = 2000 + ret;
	if (!ret) {
		ret = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return ret;
}

/* The next completion of @ring within 20 s: its res, *@ud its user data. */
static int raw_reap(struct io_uring *ring, uint64_t *ud)
{
	struct __kernel_timespec ts = { .tv_sec = 20 };
	struct io_uring_cqe *cqe;
	int ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

	if (ret)
		return 4000 + ret;
	*ud = cqe->user_data;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/*
 * IORING_OP_ASYNC_CANCEL does not reach a driver's command on 6.1 and
 * 6.12 (io_uring cancels its own request kinds only), which is why the
 * uapi does not offer it: it finds no request (-ENOENT) and the queued
 * MIGRATE stays queued; CANCEL naming the job cancels it.
 */
TEST_F(ring, async_cancel_cannot_reach_a_queued_migration)
{
	const uint64_t size = CH + 99;
	struct drm_mvgal_migrate mg = { .size = size };
	struct drm_mvgal_uring_cmd *c;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct vfence vf;
	uint64_t ud;
	uint32_t h;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 6));
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + self->g0;
	mg.in_fence_fd = vf.fd;
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));
	sqe = io_uring_get_sqe(&ring);
	ASSERT_NE(NULL, sqe);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = self->fd;
	sqe->cmd_op = DRM_IOCTL_MVGAL_MIGRATE;
	sqe->user_data = 21;
	c = (struct drm_mvgal_uring_cmd *)sqe->cmd;
	c->args = (uintptr_t)&mg;
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_NE(0, mg.job);

	sqe = io_uring_get_sqe(&ring);
	ASSERT_NE(NULL, sqe);
	io_uring_prep_cancel64(sqe, 21, 0);
	sqe->user_data = 22;
	ASSERT_EQ(1, io_uring_submit(&ring));
	EXPECT_EQ(-ENOENT, raw_reap(&ring, &ud));
	EXPECT_EQ(22, ud);
	EXPECT_EQ(0, mvgal_fence_status(mg.out_fence_fd));

	ASSERT_EQ(0, mvgal_cancel(self->m, mg.job));
	EXPECT_EQ(-ECANCELED, raw_reap(&ring, &ud));
	EXPECT_EQ(21, ud);
	vfence_signal(&vf);
	vfence_free(&vf);
	close(mg.out_fence_fd);
	io_uring_queue_exit(&ring);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 6));
	mvgal_bo_destroy(self->m, h);
}

/*
 * Every command number, against the ioctl table: a ring runs the ioctls it
 * offers as the ioctl does (same error for the same zeroed struct), says
 * -EOPNOTSUPP for the other ioctls of the table, -EINVAL for numbers that
 * are none.
 */
TEST_F(ring, every_command_number_follows_the_ioctl_table)
{
	static const unsigned int table[] = {
		DRM_IOCTL_MVGAL_GET_INFO, DRM_IOCTL_MVGAL_GPU_ATTACH,
		DRM_IOCTL_MVGAL_GPU_DETACH, DRM_IOCTL_MVGAL_GPU_INFO,
		DRM_IOCTL_MVGAL_GPU_LINK, DRM_IOCTL_MVGAL_GET_HEAP,
		DRM_IOCTL_MVGAL_BO_CREATE, DRM_IOCTL_MVGAL_BO_INFO,
		DRM_IOCTL_MVGAL_BO_PWRITE, DRM_IOCTL_MVGAL_BO_PREAD,
		DRM_IOCTL_MVGAL_BO_COPY, DRM_IOCTL_MVGAL_BO_LIST,
		DRM_IOCTL_MVGAL_BEGIN, DRM_IOCTL_MVGAL_END,
		DRM_IOCTL_MVGAL_MIGRATE, DRM_IOCTL_MVGAL_CANCEL,
		DRM_IOCTL_MVGAL_PLACE_FREE, DRM_IOCTL_MVGAL_GET_STATS,
		DRM_IOCTL_MVGAL_GET_PATH, DRM_IOCTL_MVGAL_CALIBRATE,
		DRM_IOCTL_MVGAL_POOL_FD, DRM_IOCTL_MVGAL_HARVEST,
		DRM_IOCTL_MVGAL_FILE_FLAGS, DRM_IOCTL_MVGAL_GPU_BUDGET,
		DRM_IOCTL_MVGAL_POOL_LRU, DRM_IOCTL_MVGAL_REPLICATE,
		DRM_IOCTL_MVGAL_ADVISE, DRM_IOCTL_MVGAL_PLACE_FD,
		DRM_IOCTL_MVGAL_BO_USERPTR, DRM_IOCTL_MVGAL_BO_MARK,
		DRM_IOCTL_MVGAL_PLACE_ADOPT, DRM_IOCTL_MVGAL_EXEC_REGISTER,
		DRM_IOCTL_MVGAL_EXEC_TAKE, DRM_IOCTL_MVGAL_EXEC_DONE,
	};
	const uint64_t offered = 1ULL << DRM_MVGAL_BEGIN | 1ULL << DRM_MVGAL_END |
		1ULL << DRM_MVGAL_MIGRATE | 1ULL << DRM_MVGAL_CANCEL |
		1ULL << DRM_MVGAL_BO_PWRITE | 1ULL << DRM_MVGAL_BO_PREAD |
		1ULL << DRM_MVGAL_BO_COPY | 1ULL << DRM_MVGAL_HARVEST;
	const unsigned int n = sizeof(table) / sizeof(table[0]);
	uint64_t buf[64];
	unsigned int nr;

	for (nr = 0; nr + DRM_COMMAND_BASE < 0x100; nr++) {
		unsigned int op = DRM_IOWR(DRM_COMMAND_BASE + nr, struct drm_mvgal_migrate);
		int want, got;

		if (nr < n) {
			op = table[nr];
			ASSERT_EQ(DRM_COMMAND_BASE + nr, _IOC_NR(op));
		}
		memset(buf, 0, sizeof(buf));
		if (nr >= n)
			want = -EINVAL;
		else if (!(offered & 1ULL << nr))
			want = -EOPNOTSUPP;
		else
			want = ioctl(self->fd, op, buf) ? -errno : 0;
		memset(buf, 0, sizeof(buf));
		got = raw_cmd(self->fd, op, (uintptr_t)buf, 0, 0);
		EXPECT_EQ(want, got)
			TH_LOG("command 0x%02x: %d, not %d", nr, got, want);
		if (offered & 1ULL << nr)
			EXPECT_NE(-EOPNOTSUPP, got);
	}
	/* And the table is the uapi's: nothing after EXEC_DONE. */
	EXPECT_EQ(DRM_MVGAL_EXEC_DONE + 1, n);
}

/*
 * Bad commands: each refused with its exact error, and none moves a
 * byte or queues a job.
 */
TEST_F(ring, bad_commands_are_refused)
{
	const uint64_t size = CH + 1;
	struct drm_mvgal_migrate mg = { .size = size, .in_fence_fd = -1 };
	struct drm_mvgal_get_info gi = { 0 };
	struct drm_mvgal_stats st0, st1;
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_migrate *ro;
	uint32_t h;
	int fd = self->fd;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	mg.handle = h;
	mg.location = 1 + self->g1;
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st0));
	EXPECT_EQ(-EINVAL, raw_cmd(fd, DRM_IOCTL_MVGAL_MIGRATE,
				   (uintptr_t)&mg, 1, 0));
	EXPECT_EQ(-EINVAL, raw_cmd(fd, DRM_IOCTL_MVGAL_MIGRATE,
				   (uintptr_t)&mg, 0, 1));
	EXPECT_EQ(-EINVAL, raw_cmd(fd, DRM_IOCTL_VERSION, (uintptr_t)&mg, 0, 0));
	EXPECT_EQ(-EINVAL, raw_cmd(fd, DRM_IOWR(DRM_COMMAND_BASE + 0x5f,
					       struct drm_mvgal_migrate),
				   (uintptr_t)&mg, 0, 0));
	EXPECT_EQ(-EOPNOTSUPP, raw_cmd(fd, DRM_IOCTL_MVGAL_GET_INFO,
				       (uintptr_t)&gi, 0, 0));
	EXPECT_EQ(-EFAULT, raw_cmd(fd, DRM_IOCTL_MVGAL_MIGRATE, 0, 0, 0));
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	*ro = mg;
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	EXPECT_EQ(-EFAULT, raw_cmd(fd, DRM_IOCTL_MVGAL_MIGRATE,
				   (uintptr_t)ro, 0, 0));
	munmap(ro, 4096);
	mg.handle = h + 1000;
	EXPECT_EQ(-ENOENT, raw_cmd(fd, DRM_IOCTL_MVGAL_MIGRATE,
				   (uintptr_t)&mg, 0, 0));
	mg.handle = h;
	mg.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, raw_cmd(fd, DRM_IOCTL_MVGAL_MIGRATE,
				   (uintptr_t)&mg, 0, 0));
	/* And the library's own checks. */
	EXPECT_EQ(-EINVAL, mvgal_prep_migrate(self->r, &mg, 0, 1U << 5));
	EXPECT_EQ(-EINVAL, mvgal_prep_migrate(NULL, &mg, 0, 0));
	EXPECT_EQ(-EINVAL, mvgal_ring_prep(self->r, DRM_IOCTL_MVGAL_MIGRATE,
					   NULL, 0, 0));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &st1));
	EXPECT_EQ(st0.scheduled, st1.scheduled);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.valid[1 + self->g1]);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A process killed with a MIGRATE in flight on its ring: the job still
 * runs when its fence signals and moves every byte; the engine ends with
 * nothing queued (the debug lane's kmemleak checks nothing leaked).
 */
TEST_F(ring, a_process_killed_with_commands_in_flight_loses_nothing)
{
	const uint64_t size = 2 * CH + 11;
	struct drm_mvgal_bo_info info = { 0 };
	struct drm_mvgal_stats st;
	struct vfence vf;
	uint32_t h;
	pid_t pid;
	int status;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 6));
	ASSERT_EQ(0, vfence_new(&vf));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct drm_mvgal_migrate mg = {
			.handle = h, .size = size, .location = 1 + self->g1,
			.in_fence_fd = vf.fd,
		};
		struct mvgal_ring *r;

		if (mvgal_ring_init(self->m, 4, &r) ||
		    mvgal_prep_migrate(r, &mg, 1, 0) ||
		    mvgal_ring_submit(r) != 1 || !mg.job)
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	vfence_signal(&vf);
	vfence_free(&vf);
	for (int i = 0; i < 200; i++) {
		ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
		if (info.valid[1 + self->g1] == size)
			break;
		usleep(100000);
	}
	EXPECT_EQ(size, info.valid[1 + self->g1]);
	for (int i = 0; i < 200; i++) {
		ASSERT_EQ(0, mvgal_get_stats(self->m, &st));
		if (!st.queue_depth)
			break;
		usleep(100000);
	}
	EXPECT_EQ(0, st.queue_depth);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 6));
	mvgal_bo_destroy(self->m, h);
}

/*
 * The example (tools/examples/mvgal-ring.c): 64 MIGRATEs each linked to
 * a READ BEGIN, over every attached GPU, in one submit; it checks every
 * byte it gets back.
 */
TEST_F(ring, the_example_pipelines_migrations_and_sessions)
{
	EXPECT_EQ(0, run("mvgal-ring >/tmp/mvgal-ring.out 2>&1"));
	EXPECT_EQ(0, run("grep -q '^ring: OK' /tmp/mvgal-ring.out"));
	run("sed 's/^/# /' /tmp/mvgal-ring.out");
}

/* Signals @a (another command's completion), then @b (what one waits for). */
struct two_fences {
	struct vfence *a, *b;
};

static void *signal_two(void *arg)
{
	struct two_fences *t = arg;

	usleep(150000);
	vfence_signal(t->a);
	usleep(150000);
	vfence_signal(t->b);
	return NULL;
}

/*
 * Every command that waits for other work (BO_PWRITE, BO_PREAD, BO_COPY)
 * gives on a ring what its ioctl gives, however it is issued: submitted
 * alone (inline, in the submitter's task) while a MIGRATE of the same
 * ring completes (task work for that task) before the fence the command
 * waits for signals, it completes with 0 and its bytes, never -EINTR.
 */
TEST_F(ring, waiting_commands_are_not_interrupted_by_other_completions)
{
	const uint64_t size = 2 * CH + 333;
	static const unsigned int cmds[] = {
		DRM_IOCTL_MVGAL_BO_PWRITE, DRM_IOCTL_MVGAL_BO_PREAD,
		DRM_IOCTL_MVGAL_BO_COPY,
	};
	uint8_t *buf = malloc(size), *want = malloc(size);

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, want);
	for (unsigned int k = 0; k < 3; k++) {
		struct drm_mvgal_migrate mg = { .size = size };
		struct drm_mvgal_bo_rw rw = { .offset = 7, .size = size - 7 };
		struct drm_mvgal_bo_copy cp = {
			.src_offset = 7, .dst_offset = 7, .size = size - 7,
		};
		struct mvgal_completion c[2];
		struct two_fences t;
		struct vfence va, vb;
		uint32_t h, other, dst;
		pthread_t th;
		int busy, ret;
		void *arg;

		ASSERT_EQ(0, host_bo(self->m, size, &h));
		ASSERT_EQ(0, host_bo(self->m, size, &other));
		ASSERT_EQ(0, host_bo(self->m, size, &dst));
		ASSERT_EQ(0, bo_fill(self->m, h, size, 4));
		ASSERT_EQ(0, bo_fill(self->m, other, size, 5));
		ASSERT_EQ(0, vfence_new(&va));
		ASSERT_EQ(0, vfence_new(&vb));
		/* @h is busy until @vb; the ring's MIGRATE of @other ends at @va. */
		mg.handle = h;
		mg.location = 1 + self->g1;
		mg.in_fence_fd = vb.fd;
		ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
		busy = mg.out_fence_fd;
		mg = (struct drm_mvgal_migrate) {
			.handle = other, .size = size, .location = 1 + self->g0,
			.in_fence_fd = va.fd,
		};
		ASSERT_EQ(0, mvgal_prep_migrate(self->r, &mg, 100, 0));
		ASSERT_EQ(1, mvgal_ring_submit(self->r));

		fill(buf, size, 6);
		rw.handle = h;
		rw.user_ptr = (uintptr_t)buf;
		cp.src_handle = h;
		cp.dst_handle = dst;
		arg = cmds[k] == DRM_IOCTL_MVGAL_BO_COPY ? (void *)&cp : (void *)&rw;
		if (cmds[k] == DRM_IOCTL_MVGAL_BO_PREAD)
			memset(buf, 0, size);
		t = (struct two_fences) { .a = &va, .b = &vb };
		ASSERT_EQ(0, pthread_create(&th, NULL, signal_two, &t));
		ASSERT_EQ(0, mvgal_ring_prep(self->r, cmds[k], arg, 200, 0));
		ret = mvgal_ring_submit(self->r);
		ASSERT_EQ(1, ret);
		ASSERT_EQ(0, mvgal_ring_wait(self->r, 20000, &c[0]));
		ASSERT_EQ(0, mvgal_ring_wait(self->r, 20000, &c[1]));
		pthread_join(th, NULL);
		EXPECT_EQ(0, c[0].res) TH_LOG("command %u: user_data %llu", k,
					      (unsigned long long)c[0].user_data);
		EXPECT_EQ(0, c[1].res) TH_LOG("command %u: user_data %llu", k,
					      (unsigned long long)c[1].user_data);
		EXPECT_EQ(0, mvgal_fence_wait(busy, 20000));
		close(busy);
		close(mg.out_fence_fd);
		/* The bytes each command moved. */
		switch (cmds[k]) {
		case DRM_IOCTL_MVGAL_BO_PWRITE:
			fill(want, size, 6);
			memset(buf, 0, size);
			ASSERT_EQ(0, mvgal_bo_read(self->m, h, 7, buf, size - 7));
			EXPECT_EQ(0, memcmp(buf, want, size - 7));
			break;
		case DRM_IOCTL_MVGAL_BO_PREAD:
			EXPECT_EQ(-1, check(buf, size - 7, 7, 4));
			break;
		default:
			EXPECT_EQ(-1, bo_check(self->m, other, size, 5));
			ASSERT_EQ(0, mvgal_bo_read(self->m, dst, 7, buf, size - 7));
			EXPECT_EQ(-1, check(buf, size - 7, 7, 4));
		}
		vfence_free(&va);
		vfence_free(&vb);
		mvgal_bo_destroy(self->m, h);
		mvgal_bo_destroy(self->m, other);
		mvgal_bo_destroy(self->m, dst);
	}
	free(buf);
	free(want);
}

TEST_HARNESS_MAIN
