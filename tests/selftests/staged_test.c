// SPDX-License-Identifier: GPL-2.0
/*
 * Staged writes (BO_PWRITE with MVGAL_RW_STAGED): a small write into
 * chunks that GPU work still uses returns without waiting for it, its
 * source reusable at once; the bytes land after that work, in call order,
 * before anything that comes later (a BEGIN's copies, a CPU read); the
 * staging memory in flight is bounded; a buffer closed with staged
 * writes in flight keeps them; bad requests are refused and change
 * nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/wait.h>
#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

#define MAX_STAGED "/sys/module/mvgal/parameters/max_staged_bytes"
#define STAGING_KB "/sys/module/mvgal/parameters/staging_kb"
#define FILE_JOBS "/sys/module/mvgal/parameters/max_file_jobs"
#define USER_PCT "/sys/module/mvgal/parameters/staging_user_pct"
#define DEBUG_STAGING "/sys/kernel/debug/mvgal/staging"

FIXTURE(stage) {
	COH_FIELDS;
};

FIXTURE_SETUP(stage)
{
	COH_SETUP(self);
	ASSERT_EQ(0, write_param(MAX_STAGED, "65536"));
	ASSERT_EQ(0, write_param(STAGING_KB, "1024"));
	ASSERT_EQ(0, write_param(USER_PCT, "25"));
}

FIXTURE_TEARDOWN(stage)
{
	write_param(MAX_STAGED, "65536");
	write_param(STAGING_KB, "1024");
	write_param(USER_PCT, "25");
	write_param(FILE_JOBS, "256");
	coh_teardown(self->m, self->pool);
}

static uint64_t staged_count(struct mvgal *m)
{
	struct drm_mvgal_stats st;

	if (mvgal_get_stats(m, &st))
		return ~0ULL;
	return st.staged_writes;
}

/* Writes pattern @s (as at offset @off) staged; 0 or -errno. */
static int stage(struct mvgal *m, uint32_t h, uint64_t off, uint64_t len,
		 unsigned int s, uint8_t *model)
{
	uint8_t *buf = malloc(len);
	int ret;

	if (!buf)
		return -ENOMEM;
	for (uint64_t i = 0; i < len; i++)
		buf[i] = pat(off + i, s);
	ret = mvgal_bo_write_flags(m, h, off, buf, len, MVGAL_RW_STAGED);
	if (!ret && model)
		memcpy(model + off, buf, len);
	/* The caller may reuse its memory at once. */
	memset(buf, 0xee, len);
	free(buf);
	return ret;
}

/* A MIGRATE of the whole buffer to @gpu that waits for @vf: a fence pending. */
static int pending_copy(struct mvgal *m, uint32_t h, uint64_t size,
			uint32_t gpu, struct vfence *vf, int *out)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .size = size, .location = 1 + gpu,
		.in_fence_fd = vf->fd,
	};
	int ret = mvgal_migrate(m, &mg);

	*out = mg.out_fence_fd;
	return ret;
}

/* First byte of the buffer (BO_PREAD) that differs from @model, or -1. */
static long bo_cmp(struct mvgal *m, uint32_t h, uint64_t size,
		   const uint8_t *model)
{
	uint8_t *buf = malloc(size);
	long bad = -1;

	if (!buf || mvgal_bo_read(m, h, 0, buf, size)) {
		free(buf);
		return -2;
	}
	for (uint64_t i = 0; i < size && bad < 0; i++)
		if (buf[i] != model[i])
			bad = (long)i;
	free(buf);
	return bad;
}

/* The model of a buffer filled with pattern @s. */
static uint8_t *model_new(uint64_t size, unsigned int s)
{
	uint8_t *p = malloc(size);

	if (p)
		fill(p, size, s);
	return p;
}

/*
 * Behind a migration waiting on a vgem fence, a staged write across a
 * chunk boundary (odd offset and size) returns while the fence is still
 * pending, counted as staged; a BEGIN after it waits for it; once the
 * fence signals, the GPU's copy and BO_PREAD both hold the new bytes
 * where written and the old ones around them.
 */
TEST_F(stage, returns_before_the_gpu_and_lands_after_it)
{
	const uint64_t size = 3 * CH + 777, off = CH - 1000, len = 5003;
	struct drm_mvgal_access a;
	uint64_t n0 = staged_count(self->m), copied;
	uint32_t h, session;
	uint8_t *model = model_new(size, 1);
	struct vfence vf;
	int mf, bf;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 1));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g0, &vf, &mf));
	ASSERT_EQ(0, stage(self->m, h, off, len, 2, model));
	/* Had the write waited, vgem's own timeout would have signalled. */
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	EXPECT_EQ(n0 + 1, staged_count(self->m));
	/* A READ session on another GPU after it: its copies wait. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a,
			    &session, &bf, &copied));
	ASSERT_GE(bf, 0);
	EXPECT_EQ(0, mvgal_fence_status(bf));
	vfence_signal(&vf);
	ASSERT_EQ(0, settle(bf));
	ASSERT_EQ(0, settle(mf));
	ASSERT_EQ((uint32_t)self->g1, a.pool_gpu);
	EXPECT_EQ(0, memcmp(self->pool[self->g1] + a.pool_offset, model, size));
	ASSERT_EQ(0, mvgal_end(self->m, session, -1, NULL, 0));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	vfence_free(&vf);
	free(model);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A live READ session on a GPU copy of the chunks: a plain write is
 * -EBUSY as before, a staged one returns. The session keeps reading the
 * copy it began with; a BEGIN after its END copies the new bytes.
 */
TEST_F(stage, a_live_read_session_keeps_its_copy)
{
	const uint64_t size = 2 * CH + 4097, off = 300, len = CH - 1;
	struct drm_mvgal_access a, a2;
	uint32_t h, s1, s2;
	uint64_t copied;
	uint8_t *model = model_new(size, 3), junk[16] = { 0 };
	struct vfence vf;
	int f1, f2;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 3));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, 2 * CH, &a,
			    &s1, &f1, &copied));
	ASSERT_EQ(0, settle(f1));
	EXPECT_EQ(-EBUSY, mvgal_bo_write(self->m, h, off, junk, sizeof(junk)));
	ASSERT_EQ(0, stage(self->m, h, off, len, 4, model));
	/* The session's copy is the one it began with. */
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset, 2 * CH, 0, 3));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, mvgal_end(self->m, s1, vf.fd, NULL, 0));
	EXPECT_EQ(-1, check(self->pool[self->g0] + a.pool_offset, 2 * CH, 0, 3));
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a2,
			    &s2, &f2, &copied));
	vfence_signal(&vf);
	ASSERT_EQ(0, settle(f2));
	EXPECT_EQ(0, memcmp(self->pool[self->g1] + a2.pool_offset, model, size));
	ASSERT_EQ(0, mvgal_end(self->m, s2, -1, NULL, 0));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	vfence_free(&vf);
	free(model);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A live WRITE session on the chunks is still -EBUSY, staged or not, and
 * changes nothing: what the GPU wrote is what the buffer holds after END.
 * A staged write into other chunks of the buffer goes through. So is a
 * READ session of a device-only buffer on its own GPU: it reads home in
 * place, which a staged write would change under it.
 */
TEST_F(stage, a_live_write_session_is_still_busy)
{
	const uint64_t size = 3 * CH;
	struct drm_mvgal_access a;
	uint8_t *model = model_new(size, 5);
	uint32_t h, s;
	uint64_t copied;
	int f;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 5));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, CH, &a, &s, &f,
			    &copied));
	ASSERT_EQ(0, settle(f));
	fill(self->pool[self->g0] + a.pool_offset, CH, 6);
	fill(model, CH, 6);
	EXPECT_EQ(-EBUSY, stage(self->m, h, 10, 100, 7, NULL));
	EXPECT_EQ(-EBUSY, stage(self->m, h, CH - 1, 2, 7, NULL));
	ASSERT_EQ(0, stage(self->m, h, 2 * CH + 5, 999, 8, model));
	ASSERT_EQ(0, end_written(self->m, s, h, 0, CH, -1));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	mvgal_bo_destroy(self->m, h);
	/* Device-only on GPU 0, read there in place. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_GPU_VALID,
				     self->g0, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 5));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h, 0, CH,
			    &a, &s, &f, &copied));
	ASSERT_EQ(0, settle(f));
	EXPECT_EQ(-EBUSY, stage(self->m, h, 10, 100, 7, NULL));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, stage(self->m, h, 10, 100, 7, NULL));
	free(model);
	mvgal_bo_destroy(self->m, h);
}

/*
 * Overlapping staged writes behind one pending fence, one of them through
 * the io_uring ring, land in the order of the calls; the buffer's chunks
 * were all at a GPU (moved there), so the job first brings home the rest
 * of each chunk it covers in part.
 */
TEST_F(stage, overlapping_writes_land_in_call_order)
{
	const uint64_t size = 4 * CH + 123;
	struct drm_mvgal_migrate mv = {
		.size = size, .flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
	};
	uint8_t *model = model_new(size, 9), *rb;
	struct drm_mvgal_bo_rw rw = { .flags = MVGAL_RW_STAGED };
	struct mvgal_completion c;
	struct mvgal_ring *r;
	struct vfence vf;
	uint32_t h;
	int mf;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 9));
	mv.handle = h;
	mv.location = 1 + self->g1;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mv));
	ASSERT_EQ(0, settle(mv.out_fence_fd));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g0, &vf, &mf));
	ASSERT_EQ(0, stage(self->m, h, 100, 30001, 10, model));
	ASSERT_EQ(0, stage(self->m, h, 5000, 65536, 11, model));
	/* The third through the ring: it completes at once too. */
	rb = malloc(1000);
	ASSERT_NE(NULL, rb);
	for (int i = 0; i < 1000; i++)
		rb[i] = pat(20000 + i, 12);
	memcpy(model + 20000, rb, 1000);
	rw.handle = h;
	rw.offset = 20000;
	rw.size = 1000;
	rw.user_ptr = (uintptr_t)rb;
	ASSERT_EQ(0, mvgal_ring_init(self->m, 8, &r));
	ASSERT_EQ(0, mvgal_prep_pwrite(r, &rw, 7, 0));
	ASSERT_EQ(1, mvgal_ring_submit(r));
	ASSERT_EQ(0, mvgal_ring_wait(r, 20000, &c));
	EXPECT_EQ(7, c.user_data);
	EXPECT_EQ(0, c.res);
	memset(rb, 0, 1000);
	ASSERT_EQ(0, stage(self->m, h, 3 * CH + 200, CH - 77, 13, model));
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	vfence_signal(&vf);
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	ASSERT_EQ(0, settle(mf));
	mvgal_ring_free(r);
	free(rb);
	vfence_free(&vf);
	free(model);
	mvgal_bo_destroy(self->m, h);
}

struct stager {
	struct mvgal *m;
	uint32_t h;
	uint64_t off, len;
	uint8_t *model;
	volatile int done;
	int ret;
};

static void *stager_run(void *arg)
{
	struct stager *s = arg;

	s->ret = stage(s->m, s->h, s->off, s->len, 15, s->model);
	s->done = 1;
	return NULL;
}

/* Sends SIGUSR1 to @target every 50 ms until @stop: a wait is interrupted. */
struct interrupter {
	pthread_t target;
	volatile int stop;
};

static void on_usr1(int sig)
{
	(void)sig;
}

static void *interrupter_run(void *arg)
{
	struct interrupter *in = arg;

	while (!in->stop) {
		pthread_kill(in->target, SIGUSR1);
		usleep(50 * 1000);
	}
	return NULL;
}

/*
 * A staged write waiting for staging memory, interrupted by a signal
 * whose handler does not restart calls: -EINTR, nothing written. A raw
 * ioctl, since libmvgal (like drmIoctl) retries EINTR.
 */
static int stage_interrupted(int fd, uint32_t h, uint64_t off, uint64_t len)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	struct interrupter in = { .target = pthread_self() };
	uint8_t *buf = calloc(1, len);
	struct drm_mvgal_bo_rw rw = {
		.handle = h, .offset = off, .size = len,
		.user_ptr = (uintptr_t)buf, .flags = MVGAL_RW_STAGED,
	};
	pthread_t t;
	int ret;

	if (!buf || sigaction(SIGUSR1, &sa, &old)) {
		free(buf);
		return -ENOMEM;
	}
	if (pthread_create(&t, NULL, interrupter_run, &in)) {
		sigaction(SIGUSR1, &old, NULL);
		free(buf);
		return -EAGAIN;
	}
	ret = ioctl(fd, DRM_IOCTL_MVGAL_BO_PWRITE, &rw) ? -errno : 0;
	in.stop = 1;
	pthread_join(t, NULL);
	sigaction(SIGUSR1, &old, NULL);
	free(buf);
	return ret;
}

/*
 * With staging_kb at 64, one 40 KiB staged write fits and returns; a
 * second waits until the first has landed (after the vgem fence), then
 * returns, and both land. Meanwhile a staged write into an idle buffer
 * is made at once (nothing to stage, so no staging memory needed), and
 * one interrupted in its wait is -EINTR and writes nothing.
 */
TEST_F(stage, a_full_staging_memory_makes_the_next_write_wait)
{
	const uint64_t size = 2 * CH;
	uint8_t *model = model_new(size, 14);
	uint8_t *idle_model = model_new(CH, 25);
	struct stager s = { .m = self->m, .off = CH + 3, .len = 40 * 1024 };
	struct vfence vf;
	uint32_t h, idle;
	pthread_t t;
	uint64_t n;
	int mf;

	ASSERT_NE(NULL, model);
	ASSERT_NE(NULL, idle_model);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 14));
	ASSERT_EQ(0, host_bo(self->m, CH, &idle));
	ASSERT_EQ(0, bo_fill(self->m, idle, CH, 25));
	ASSERT_EQ(0, write_param(STAGING_KB, "64"));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g0, &vf, &mf));
	ASSERT_EQ(0, stage(self->m, h, 7, 40 * 1024, 16, model));
	s.h = h;
	s.model = model;
	ASSERT_EQ(0, pthread_create(&t, NULL, stager_run, &s));
	/* It cannot return while the first holds the staging memory. */
	usleep(300 * 1000);
	EXPECT_EQ(0, s.done);
	n = staged_count(self->m);
	ASSERT_EQ(0, stage(self->m, idle, 5, 3000, 24, idle_model));
	EXPECT_EQ(n, staged_count(self->m));
	EXPECT_EQ(-1, bo_cmp(self->m, idle, CH, idle_model));
	EXPECT_EQ(-EINTR, stage_interrupted(self->fd, h, 100, 40 * 1024));
	EXPECT_EQ(0, s.done);
	EXPECT_EQ(n, staged_count(self->m));
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	vfence_signal(&vf);
	pthread_join(t, NULL);
	EXPECT_EQ(0, s.ret);
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	ASSERT_EQ(0, settle(mf));
	vfence_free(&vf);
	free(model);
	free(idle_model);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, idle);
}

/*
 * What <debugfs>/mvgal/staging says of user @uid: the bytes of staging
 * memory it holds (@held) and its staged writes waiting for room; both 0
 * when it has no line (it holds nothing and waits for nothing).
 */
static unsigned int staging_of(unsigned int uid, unsigned long long *held)
{
	FILE *f = fopen(DEBUG_STAGING, "r");
	unsigned long long h;
	unsigned int u, w, waiting = 0;

	*held = 0;
	if (!f)
		return 0;
	while (fscanf(f, "%u %llu %u", &u, &h, &w) == 3) {
		if (u == uid) {
			*held = h;
			waiting = w;
		}
	}
	fclose(f);
	return waiting;
}

#define OTHER_UID	65534
#define THIRD_UID	65533
#define FILL_LEN	4000	/* charged a page each */
#define FILL_WRITES	16	/* staging_kb=64 of pages */

/*
 * What a child of another user stages: @first writes of a page's worth
 * (FILL_LEN, each at the next page), a byte to @report after each; then,
 * with @last set, after a byte from @go, one more of @last bytes.
 */
struct child_plan {
	unsigned int uid;
	struct vfence *vf;
	uint32_t gpu;
	unsigned int first;
	uint64_t last;
	int go, report;
};

/*
 * A child switched to @c->uid, with a file of its own, stages @c's
 * writes into a buffer behind a migration waiting for @c->vf (a vgem
 * fence of the parent's, which it never signals). Once they all returned
 * (after the fences signalled, when staging memory made them wait),
 * their bytes must all be the buffer's. Exits 0 when they are.
 */
static void child_stages(const struct child_plan *c)
{
	const uint64_t size = 2 * CH;
	uint8_t *model = model_new(size, 40);
	uint64_t off = 7;
	struct mvgal *m;
	uint32_t h;
	int mf;
	char b;

	if (!model || mvgal_open(&m) || setresgid(c->uid, c->uid, c->uid) ||
	    setresuid(c->uid, c->uid, c->uid) || host_bo(m, size, &h) ||
	    bo_fill(m, h, size, 40) || pending_copy(m, h, size, c->gpu, c->vf,
						    &mf))
		_exit(10);
	for (unsigned int i = 0; i < c->first; i++, off += 4096) {
		if (stage(m, h, off, FILL_LEN, 41 + i, model))
			_exit(11);
		if (write(c->report, "w", 1) != 1)
			_exit(12);
	}
	if (c->last && (read(c->go, &b, 1) != 1 ||
			stage(m, h, off, c->last, 70, model) ||
			write(c->report, "w", 1) != 1))
		_exit(13);
	if (bo_cmp(m, h, size, model) != -1)
		_exit(14);
	if (settle(mf))
		_exit(15);
	_exit(0);
}

/* Forks a child_stages(@c); its pid, or -1. */
static pid_t fork_child(struct child_plan *c, int report[2], int go[2])
{
	pid_t pid;

	if (pipe2(report, O_NONBLOCK) || pipe(go))
		return -1;
	c->report = report[1];
	c->go = go[0];
	pid = fork();
	if (!pid) {
		close(report[0]);
		close(go[1]);
		child_stages(c);
	}
	close(report[1]);
	close(go[0]);
	return pid;
}

/*
 * Counts in *@n the writes a child reported on @rd until it reported
 * @all, or @some with a write of user @uid waiting for staging memory.
 * 0, or -1 when neither came within 5 s (well before vgem's timeout).
 */
static int wait_reports(int rd, int *n, int all, int some, unsigned int uid)
{
	unsigned long long held;
	char c;

	for (int t = 0; t < 500; t++) {
		while (read(rd, &c, 1) == 1)
			(*n)++;
		if (*n >= all || (*n >= some && staging_of(uid, &held)))
			return 0;
		usleep(10 * 1000);
	}
	return -1;
}

/*
 * One user must not starve another: another user's staged writes,
 * behind GPU work that has not ended (a vgem fence), fill all they may
 * of the staging memory (staging_kb=64: its share, a quarter, 4 writes
 * of a page each; more wait). This user's own staged writes, behind its
 * own pending work, still return while the other's work is pending: had
 * they waited for room, they would have returned only once the other's
 * fence signalled (vgem's own timeout, 10 s, bounds that wait). Every
 * byte of both lands once the fences signal.
 */
TEST_F(stage, another_users_writes_leave_room_for_mine)
{
	const uint64_t size = 4 * 4096 + 333;
	uint8_t *model = model_new(size, 50);
	unsigned long long held;
	struct child_plan c = { .uid = OTHER_UID, .first = FILL_WRITES };
	struct vfence vf, mine;
	int rep[2], go[2], st, n = 0, mf;
	uint32_t h;
	pid_t pid;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, write_param(STAGING_KB, "64"));
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 50));
	ASSERT_EQ(0, vfence_new(&vf));
	c.vf = &vf;
	c.gpu = self->g0;
	pid = fork_child(&c, rep, go);
	ASSERT_LE(0, pid);
	/* All its writes returned, or its share did and one more waits. */
	ASSERT_EQ(0, wait_reports(rep[0], &n, FILL_WRITES, 4, OTHER_UID));
	ASSERT_EQ(0, vfence_new(&mine));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g1, &mine, &mf));
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(0, stage(self->m, h, 4096 * i + 11, FILL_LEN,
				   51 + i, model));
	/* They returned while the other user's GPU work was pending. */
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	EXPECT_EQ(0, mvgal_fence_status(mine.fd));
	/* The other user held its share, no more; it had one waiting. */
	EXPECT_EQ(1, staging_of(OTHER_UID, &held));
	EXPECT_EQ(4 * 4096, held);
	vfence_signal(&vf);
	vfence_signal(&mine);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	ASSERT_EQ(0, settle(mf));
	/* Every write landed: nobody holds staging memory any more. */
	EXPECT_EQ(0, staging_of(OTHER_UID, &held));
	EXPECT_EQ(0, held);
	EXPECT_EQ(0, staging_of(0, &held));
	EXPECT_EQ(0, held);
	close(rep[0]);
	close(go[1]);
	vfence_free(&vf);
	vfence_free(&mine);
	free(model);
	mvgal_bo_destroy(self->m, h);
}

/*
 * Waiting writes get room in the order they came. With staging_kb=64 and
 * a share of half: this user holds its share (8 pages) behind its
 * pending work, a second user 5 pages behind its own; a third user's
 * 16 KiB write does not fit in the 12 KiB left and waits. The second
 * user's next page would fit, and its user is under its share, but it
 * waits behind the third's: a stream of small writes cannot starve a
 * larger one. Once this user's work ends and its writes land, both go
 * on, and every byte of all three lands.
 */
TEST_F(stage, waiting_writes_get_room_in_arrival_order)
{
	const uint64_t size = 2 * CH;
	struct child_plan a = { .uid = OTHER_UID, .first = 5, .last = 4000 };
	struct child_plan b = { .uid = THIRD_UID, .last = 16384 };
	int ra[2], ga[2], rb[2], gb[2], st, na = 0, nb = 0, mf;
	uint8_t *model = model_new(size, 90);
	struct vfence vf, fa, fb;
	unsigned long long held;
	pid_t pa, pb;
	uint32_t h;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, write_param(STAGING_KB, "64"));
	ASSERT_EQ(0, write_param(USER_PCT, "50"));
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 90));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, vfence_new(&fa));
	ASSERT_EQ(0, vfence_new(&fb));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g1, &vf, &mf));
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(0, stage(self->m, h, 4096 * i + 1, FILL_LEN, 91 + i,
				   model));
	a.vf = &fa;
	b.vf = &fb;
	a.gpu = b.gpu = self->g0;
	pa = fork_child(&a, ra, ga);
	ASSERT_LE(0, pa);
	pb = fork_child(&b, rb, gb);
	ASSERT_LE(0, pb);
	ASSERT_EQ(0, wait_reports(ra[0], &na, 5, 6, OTHER_UID));
	ASSERT_EQ(1, write(gb[1], "g", 1));
	ASSERT_EQ(0, wait_reports(rb[0], &nb, 1, 0, THIRD_UID));
	EXPECT_EQ(0, nb);
	ASSERT_EQ(1, write(ga[1], "g", 1));
	ASSERT_EQ(0, wait_reports(ra[0], &na, 6, 5, OTHER_UID));
	/* The second user's page waits behind the third's 16 KiB. */
	EXPECT_EQ(5, na);
	EXPECT_EQ(1, staging_of(OTHER_UID, &held));
	EXPECT_EQ(5 * 4096, held);
	EXPECT_EQ(1, staging_of(THIRD_UID, &held));
	EXPECT_EQ(0, held);
	EXPECT_EQ(0, staging_of(0, &held));
	EXPECT_EQ(8 * 4096, held);
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	/* This user's writes land: room for both. */
	vfence_signal(&vf);
	EXPECT_EQ(0, wait_reports(rb[0], &nb, 1, 2, THIRD_UID));
	EXPECT_EQ(0, wait_reports(ra[0], &na, 6, 7, OTHER_UID));
	EXPECT_EQ(1, nb);
	EXPECT_EQ(6, na);
	vfence_signal(&fa);
	vfence_signal(&fb);
	ASSERT_EQ(pa, waitpid(pa, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	ASSERT_EQ(pb, waitpid(pb, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	ASSERT_EQ(0, settle(mf));
	close(ra[0]);
	close(ga[1]);
	close(rb[0]);
	close(gb[1]);
	vfence_free(&vf);
	vfence_free(&fa);
	vfence_free(&fb);
	free(model);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A MIGRATE of [@off, @off + @size) like pending_copy(), whose job goes
 * to @job (for CANCEL).
 */
static int pending_job(struct mvgal *m, uint32_t h, uint64_t off,
		       uint64_t size, uint32_t gpu, struct vfence *vf, int *out,
		       uint64_t *job)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .offset = off, .size = size, .location = 1 + gpu,
		.in_fence_fd = vf->fd,
	};
	int ret = mvgal_migrate(m, &mg);

	*out = mg.out_fence_fd;
	*job = mg.job;
	return ret;
}

/*
 * A user alone cannot hold more than its share of the staging memory
 * (a quarter of staging_kb=64: 4 writes of a page each) though the rest
 * is free: its fifth staged write waits, and interrupted by a signal it
 * is -EINTR with nothing written. Its writes give their memory back
 * however they end: failed (the migration of their chunk they wait for
 * is cancelled, so their bytes are lost and the chunk keeps its bytes
 * where they were) or landed.
 */
TEST_F(stage, one_user_holds_at_most_its_share)
{
	const uint64_t size = 2 * CH;
	uint8_t *model = model_new(size, 60), *orig = model_new(size, 60);
	unsigned long long held;
	struct vfence vf;
	uint64_t n0, job;
	uint32_t h;
	int mf;

	ASSERT_NE(NULL, model);
	ASSERT_NE(NULL, orig);
	ASSERT_EQ(0, write_param(STAGING_KB, "64"));
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 60));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_job(self->m, h, 0, CH, self->g0, &vf, &mf, &job));
	n0 = staged_count(self->m);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(0, stage(self->m, h, 4096 * i + 3, FILL_LEN, 61 + i,
				   model));
	EXPECT_EQ(-EINTR, stage_interrupted(self->fd, h, 5 * 4096, 100));
	EXPECT_EQ(n0 + 4, staged_count(self->m));
	EXPECT_EQ(0, staging_of(0, &held));
	EXPECT_EQ(4 * 4096, held);
	/* The migration cancelled: the writes fail, their memory comes back. */
	ASSERT_EQ(0, mvgal_cancel(self->m, job));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, orig));
	EXPECT_EQ(0, staging_of(0, &held));
	EXPECT_EQ(0, held);
	EXPECT_EQ(-ECANCELED, mvgal_fence_status(mf));
	ASSERT_EQ(0, settle(mf));
	vfence_signal(&vf);
	vfence_free(&vf);
	/* The whole share again, and the writes land. */
	memcpy(model, orig, size);
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g0, &vf, &mf));
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(0, stage(self->m, h, 4096 * i + 5, FILL_LEN, 71 + i,
				   model));
	EXPECT_EQ(0, staging_of(0, &held));
	EXPECT_EQ(4 * 4096, held);
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	vfence_signal(&vf);
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	ASSERT_EQ(0, settle(mf));
	EXPECT_EQ(0, staging_of(0, &held));
	EXPECT_EQ(0, held);
	vfence_free(&vf);
	free(model);
	free(orig);
	mvgal_bo_destroy(self->m, h);
}

/*
 * Each staged write is a job of its file: with max_file_jobs at 3 and a
 * migration queued behind a vgem fence, staged writes succeed until the
 * file has 3 jobs unfinished; the next is -ENOBUFS and writes nothing;
 * once the fence signals, the others land.
 */
TEST_F(stage, staged_writes_count_against_max_file_jobs)
{
	const uint64_t size = 2 * CH + 77;
	uint8_t *model = model_new(size, 26);
	unsigned int ok = 0;
	struct vfence vf;
	uint64_t n0;
	uint32_t h;
	int mf, ret;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 26));
	ASSERT_EQ(0, write_param(FILE_JOBS, "3"));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g0, &vf, &mf));
	n0 = staged_count(self->m);
	for (;;) {
		ret = stage(self->m, h, 1000 + 4000 * ok, 999, 27 + ok,
			    model);
		if (ret || ok == 8)
			break;
		ok++;
	}
	EXPECT_EQ(-ENOBUFS, ret);
	EXPECT_EQ(2, ok);	/* the migration is the third */
	EXPECT_EQ(n0 + ok, staged_count(self->m));
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	vfence_signal(&vf);
	ASSERT_EQ(0, settle(mf));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	vfence_free(&vf);
	free(model);
	mvgal_bo_destroy(self->m, h);
}

/*
 * The buffer's handle closed with staged writes in flight: the writes
 * hold the buffer until they land, so a dma-buf of it, imported again
 * once the fence signalled, reads them.
 */
TEST_F(stage, a_buffer_closed_with_writes_in_flight_keeps_them)
{
	const uint64_t size = CH + 5000;
	uint8_t *model = model_new(size, 17);
	struct vfence vf;
	uint32_t h, h2, h3;
	int mf, mf3, dfd;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, size, MVGAL_BO_HOST_VALID |
					    MVGAL_BO_GPU_VALID | MVGAL_BO_DMA_BUF,
					    MVGAL_GPU_ANY,
					    MVGAL_SHARING_CROSS_VENDOR, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &h3));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 17));
	ASSERT_EQ(0, mvgal_bo_export(self->m, h, &dfd));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g0, &vf, &mf));
	ASSERT_EQ(0, pending_copy(self->m, h3, size, self->g0, &vf, &mf3));
	ASSERT_EQ(0, stage(self->m, h, 11, 3000, 18, model));
	ASSERT_EQ(0, stage(self->m, h, CH - 2, 9, 19, model));
	/* And one on a buffer nobody keeps: it must leak nothing. */
	ASSERT_EQ(0, stage(self->m, h3, 0, 4096, 20, NULL));
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h3);
	vfence_signal(&vf);
	ASSERT_EQ(0, settle(mf));
	ASSERT_EQ(0, settle(mf3));
	ASSERT_EQ(0, mvgal_bo_import(self->m, dfd, &h2));
	EXPECT_EQ(-1, bo_cmp(self->m, h2, size, model));
	close(dfd);
	vfence_free(&vf);
	free(model);
	mvgal_bo_destroy(self->m, h2);
}

/*
 * Refused with the exact errno, changing nothing: MVGAL_RW_STAGED on a
 * read, an unknown flag, a bad handle, a range past the end or
 * overflowing, an unreadable source. A write above max_staged_bytes, or
 * any with max_staged_bytes 0, is an ordinary one (not staged).
 */
TEST_F(stage, bad_requests_are_refused_and_change_nothing)
{
	const uint64_t size = CH + 99;
	uint8_t *model = model_new(size, 21), buf[64] = { 0 };
	struct drm_mvgal_bo_rw rw = { .flags = MVGAL_RW_STAGED, .size = 64 };
	struct vfence vf;
	uint64_t n0;
	uint32_t h;
	int mf;

	ASSERT_NE(NULL, model);
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 21));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g0, &vf, &mf));
	n0 = staged_count(self->m);
	rw.handle = h;
	rw.user_ptr = (uintptr_t)buf;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_PREAD, &rw));
	EXPECT_EQ(EINVAL, errno);
	rw.flags = MVGAL_RW_STAGED | 2;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_PWRITE, &rw));
	EXPECT_EQ(EINVAL, errno);
	rw.flags = MVGAL_RW_STAGED;
	rw.handle = h + 1000;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_PWRITE, &rw));
	EXPECT_EQ(ENOENT, errno);
	rw.handle = h;
	rw.offset = size - 63;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_PWRITE, &rw));
	EXPECT_EQ(EINVAL, errno);
	rw.offset = ~0ULL - 10;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_PWRITE, &rw));
	EXPECT_EQ(EINVAL, errno);
	rw.offset = 0;
	rw.user_ptr = 8;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_PWRITE, &rw));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(n0, staged_count(self->m));
	EXPECT_EQ(0, mvgal_fence_status(vf.fd));
	vfence_signal(&vf);
	ASSERT_EQ(0, settle(mf));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	/* Too large to stage, or staging off: ordinary writes, which wait. */
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, pending_copy(self->m, h, size, self->g1, &vf, &mf));
	vfence_signal(&vf);
	ASSERT_EQ(0, stage(self->m, h, 0, CH + 1, 22, model));
	ASSERT_EQ(0, write_param(MAX_STAGED, "0"));
	ASSERT_EQ(0, stage(self->m, h, 5, 10, 23, model));
	EXPECT_EQ(n0, staged_count(self->m));
	EXPECT_EQ(-1, bo_cmp(self->m, h, size, model));
	ASSERT_EQ(0, settle(mf));
	vfence_free(&vf);
	free(model);
	mvgal_bo_destroy(self->m, h);
}

TEST_HARNESS_MAIN
