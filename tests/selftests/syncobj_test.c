// SPDX-License-Identifier: GPL-2.0
/*
 * BEGIN, END and MIGRATE with DRM syncobjs as in- and out-fences: a
 * Vulkan-style timeline runs vgem fence -> point 1 -> BEGIN's copies ->
 * END -> point 2, and each point signals only once the bytes are where
 * it says; the ioctls and the ring take the same fields; every bad
 * syncobj argument is refused with its exact errno and changes nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

FIXTURE(sobj) {
	COH_FIELDS;
};

FIXTURE_SETUP(sobj)
{
	COH_SETUP(self);
}

FIXTURE_TEARDOWN(sobj)
{
	coh_teardown(self->m, self->pool);
}

/* An absolute CLOCK_MONOTONIC deadline @ms from now, as libdrm takes it. */
static int64_t deadline(int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec +
	       (int64_t)ms * 1000000LL;
}

/* Waits up to @ms for @point of @h (0: a binary syncobj): 0 or -errno. */
static int point_wait(int fd, uint32_t h, uint64_t point, int ms)
{
	int ret;

	if (point)
		ret = drmSyncobjTimelineWait(fd, &h, &point, 1, deadline(ms),
					     0, NULL);
	else
		ret = drmSyncobjWait(fd, &h, 1, deadline(ms), 0, NULL);
	return ret ? -errno : 0;
}

/* The last signalled point of timeline @h. */
static uint64_t point_now(int fd, uint32_t h)
{
	uint64_t p = ~0ULL;

	drmSyncobjQuery(fd, &h, &p, 1);
	return p;
}

/* Puts a sync_file's fence at @point of timeline @t (0: binary @t). */
static int point_set(int fd, uint32_t t, uint64_t point, int sync_file)
{
	uint32_t tmp;
	int ret;

	if (!point)
		return drmSyncobjImportSyncFile(fd, t, sync_file);
	ret = drmSyncobjCreate(fd, 0, &tmp);
	if (ret)
		return ret;
	ret = drmSyncobjImportSyncFile(fd, tmp, sync_file) ?:
	      drmSyncobjTransfer(fd, t, point, tmp, 0, 0);
	drmSyncobjDestroy(fd, tmp);
	return ret;
}

/*
 * The timeline a Vulkan application would build: point 1 is a vgem
 * fence, a READ BEGIN waits on it, END (the GPU work done, -1) signals
 * point 2. Nothing signals while the vgem fence is pending; once it
 * signals, point 2 follows, and by then the bytes BEGIN named are in
 * the GPU's pool where BEGIN said (odd offset and size).
 */
TEST_F(sobj, a_timeline_runs_through_begin_and_end)
{
	const uint64_t size = 2 * CH + 333, off = 100, len = CH + 17;
	struct drm_mvgal_range rg = { .offset = off, .size = len };
	struct drm_mvgal_access a = { .nr_ranges = 1, .ranges = (uintptr_t)&rg };
	struct drm_mvgal_begin b = {
		.accesses = (uintptr_t)&a, .count = 1, .gpu = self->g1,
		.flags = MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE,
		.in_fence_fd = -1, .priority = MVGAL_PRIO_NORMAL,
		.in_point = 1,
	};
	struct drm_mvgal_end e = { .fence_fd = -1, .out_point = 2 };
	struct vfence vf;
	uint32_t h, t;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 3));
	a.handle = h;
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &t));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, point_set(self->fd, t, 1, vf.fd));
	b.in_syncobj = t;
	ASSERT_EQ(0, mvgal_session_begin(self->m, &b));
	ASSERT_GE(b.out_fence_fd, 0);
	EXPECT_EQ(0, mvgal_fence_status(b.out_fence_fd));
	e.session = b.session;
	e.out_syncobj = t;
	ASSERT_EQ(0, mvgal_session_end(self->m, &e));
	EXPECT_EQ(0, point_now(self->fd, t));
	EXPECT_EQ(-ETIME, point_wait(self->fd, t, 2, 200));
	EXPECT_EQ(0, mvgal_fence_status(b.out_fence_fd));
	vfence_signal(&vf);
	ASSERT_EQ(0, point_wait(self->fd, t, 2, 20000));
	EXPECT_EQ(2, point_now(self->fd, t));
	EXPECT_EQ(1, mvgal_fence_status(b.out_fence_fd));
	ASSERT_EQ((uint32_t)self->g1, a.pool_gpu);
	EXPECT_EQ(-1, check(self->pool[self->g1] + a.pool_offset + off, len,
			    off, 3));
	close(b.out_fence_fd);
	vfence_free(&vf);
	drmSyncobjDestroy(self->fd, t);
	mvgal_bo_destroy(self->m, h);
}

/*
 * END waits for the GPU work given both ways (a sync_file and a syncobj):
 * its out-syncobj signals only after both, and the CPU then reads what
 * the work wrote... here, what the session left, byte for byte.
 */
TEST_F(sobj, end_signals_after_both_of_its_fences)
{
	const uint64_t size = CH + 4097;
	struct drm_mvgal_access a = { 0 };
	struct drm_mvgal_begin b = {
		.accesses = (uintptr_t)&a, .count = 1, .gpu = self->g0,
		.flags = MVGAL_ACCESS_WRITE | MVGAL_ACCESS_NO_IN_PLACE,
		.in_fence_fd = -1, .priority = MVGAL_PRIO_NORMAL,
	};
	struct drm_mvgal_end e = { 0 };
	struct vfence fa, fb;
	uint32_t h, in, out;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 5));
	a.handle = h;
	ASSERT_EQ(0, mvgal_session_begin(self->m, &b));
	ASSERT_EQ(0, mvgal_fence_wait(b.out_fence_fd, 20000));
	close(b.out_fence_fd);
	/* The "GPU" writes a new pattern into its copy, then ends. */
	fill(self->pool[self->g0] + a.pool_offset, size, 6);
	ASSERT_EQ(0, vfence_new(&fa));
	ASSERT_EQ(0, vfence_new(&fb));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &in));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &out));
	ASSERT_EQ(0, point_set(self->fd, in, 0, fb.fd));
	e.session = b.session;
	e.fence_fd = fa.fd;
	e.in_syncobj = in;
	e.out_syncobj = out;
	ASSERT_EQ(0, mvgal_session_end(self->m, &e));
	EXPECT_EQ(-ETIME, point_wait(self->fd, out, 0, 200));
	vfence_signal(&fa);
	EXPECT_EQ(-ETIME, point_wait(self->fd, out, 0, 200));
	vfence_signal(&fb);
	ASSERT_EQ(0, point_wait(self->fd, out, 0, 20000));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 6));
	vfence_free(&fa);
	vfence_free(&fb);
	drmSyncobjDestroy(self->fd, in);
	drmSyncobjDestroy(self->fd, out);
	mvgal_bo_destroy(self->m, h);
}

/*
 * MIGRATE waits on a binary syncobj and signals a timeline point, by
 * ioctl and through the ring alike; a MIGRATE with nothing to move gives
 * its syncobj a signalled fence.
 */
TEST_F(sobj, migrate_waits_on_and_signals_syncobjs)
{
	const uint64_t size = 3 * CH + 5;
	struct drm_mvgal_migrate mg = {
		.size = size, .flags = MVGAL_MIGRATE_MOVE,
		.in_fence_fd = -1, .out_point = 5,
	}, rm;
	struct drm_mvgal_bo_info info;
	struct mvgal_completion c;
	struct mvgal_ring *r;
	struct vfence vf;
	uint32_t h, h2, in, t;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 8));
	ASSERT_EQ(0, bo_fill(self->m, h2, size, 9));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &in));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &t));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, point_set(self->fd, in, 0, vf.fd));
	mg.handle = h;
	mg.location = 1 + self->g1;
	mg.in_syncobj = in;
	mg.out_syncobj = t;
	rm = mg;
	rm.handle = h2;
	rm.out_point = 6;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	ASSERT_NE(0, mg.job);
	ASSERT_EQ(0, mvgal_ring_init(self->m, 8, &r));
	ASSERT_EQ(0, mvgal_prep_migrate(r, &rm, 7, 0));
	ASSERT_EQ(1, mvgal_ring_submit(r));
	EXPECT_EQ(-ETIME, point_wait(self->fd, t, 5, 200));
	EXPECT_EQ(-EAGAIN, mvgal_ring_wait(r, 0, &c));
	vfence_signal(&vf);
	ASSERT_EQ(0, point_wait(self->fd, t, 6, 20000));
	ASSERT_EQ(0, point_wait(self->fd, t, 5, 20000));
	ASSERT_EQ(0, mvgal_ring_wait(r, 20000, &c));
	EXPECT_EQ(7, c.user_data);
	EXPECT_EQ(0, c.res);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, mvgal_bo_info(self->m, i ? h2 : h, &info));
		EXPECT_EQ(size, info.valid[1 + self->g1]);
		EXPECT_EQ(0, info.valid[MVGAL_LOC_HOST]);
	}
	EXPECT_EQ(-1, bo_check(self->m, h, size, 8));
	EXPECT_EQ(-1, bo_check(self->m, h2, size, 9));
	close(mg.out_fence_fd);
	close(rm.out_fence_fd);
	/* Already there: no job, and point 7 is signalled at once. */
	mg.in_syncobj = 0;
	mg.out_point = 7;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	EXPECT_EQ(0, mg.job);
	EXPECT_EQ(-1, mg.out_fence_fd);
	EXPECT_EQ(0, point_wait(self->fd, t, 7, 0));
	mvgal_ring_free(r);
	vfence_free(&vf);
	drmSyncobjDestroy(self->fd, in);
	drmSyncobjDestroy(self->fd, t);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

/* The syncobj arguments that are wrong, each with its errno. */
struct bad_sync {
	const char *what;
	int err;
	uint32_t in, out;	/* 1: the test's binary, 2: its timeline, 9: none */
	uint64_t in_point, out_point;
};

static const struct bad_sync bad_syncs[] = {
	{ "in point without a syncobj", EINVAL, 0, 0, 1, 0 },
	{ "out point without a syncobj", EINVAL, 0, 0, 0, 1 },
	{ "no such in syncobj", ENOENT, 9, 0, 0, 0 },
	{ "no such out syncobj", ENOENT, 0, 9, 0, 0 },
	{ "binary in syncobj with no fence", EINVAL, 1, 0, 0, 0 },
	{ "timeline point not submitted", EINVAL, 2, 0, 3, 0 },
};

/* The handle a bad_sync's code stands for. */
static uint32_t sobj_of(uint32_t code, uint32_t bin, uint32_t tl)
{
	return code == 1 ? bin : code == 2 ? tl : code == 9 ? 0xdead : 0;
}

/*
 * Each bad syncobj argument, on BEGIN, END and MIGRATE: the exact errno,
 * and nothing changed: no session and no job (nothing reached the GPU
 * they named), the session given to a failed END still live (a WRITE
 * BEGIN is busy), the out-syncobjs untouched.
 * A call that fails for another reason (-EBUSY) signals nothing either.
 */
TEST_F(sobj, bad_syncobj_arguments_change_nothing)
{
	const uint64_t size = CH + 99;
	struct drm_mvgal_access a = { 0 };
	struct drm_mvgal_bo_info info;
	uint32_t h, bin, tl, out;
	struct vfence vf;

	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 4));
	a.handle = h;
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &bin));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &tl));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &out));
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, point_set(self->fd, tl, 1, vf.fd));
	vfence_signal(&vf);
	for (size_t i = 0; i < sizeof(bad_syncs) / sizeof(bad_syncs[0]); i++) {
		const struct bad_sync *bs = &bad_syncs[i];
		struct drm_mvgal_begin b = {
			.accesses = (uintptr_t)&a, .count = 1, .gpu = self->g1,
			.flags = MVGAL_ACCESS_WRITE, .in_fence_fd = -1,
			.in_syncobj = sobj_of(bs->in, bin, tl),
			.out_syncobj = sobj_of(bs->out, bin, out),
			.in_point = bs->in_point, .out_point = bs->out_point,
		};
		struct drm_mvgal_end e = {
			.fence_fd = -1, .in_syncobj = b.in_syncobj,
			.out_syncobj = b.out_syncobj, .in_point = b.in_point,
			.out_point = b.out_point,
		};
		struct drm_mvgal_migrate mg = {
			.handle = h, .size = size, .location = 1 + self->g1,
			.in_fence_fd = -1, .in_syncobj = b.in_syncobj,
			.out_syncobj = b.out_syncobj, .in_point = b.in_point,
			.out_point = b.out_point,
		};

		if (!b.out_syncobj && bs->out != 9 && !bs->out_point)
			b.out_syncobj = e.out_syncobj = mg.out_syncobj = out;
		EXPECT_EQ(-bs->err, mvgal_session_begin(self->m, &b))
			TH_LOG("BEGIN: %s", bs->what);
		EXPECT_EQ(-bs->err, mvgal_migrate(self->m, &mg))
			TH_LOG("MIGRATE: %s", bs->what);
		ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
		EXPECT_EQ(0, info.valid[1 + self->g1]) TH_LOG("%s", bs->what);
		/* A good READ session on the other GPU, for the bad END. */
		b.in_syncobj = b.out_syncobj = 0;
		b.in_point = b.out_point = 0;
		b.flags = MVGAL_ACCESS_READ;
		b.gpu = self->g0;
		ASSERT_EQ(0, mvgal_session_begin(self->m, &b)) TH_LOG("%s", bs->what);
		e.session = b.session;
		EXPECT_EQ(-bs->err, mvgal_session_end(self->m, &e))
			TH_LOG("END: %s", bs->what);
		/* Still live: a WRITE is busy; the END then goes through. */
		b.flags = MVGAL_ACCESS_WRITE;
		EXPECT_EQ(-EBUSY, mvgal_session_begin(self->m, &b));
		ASSERT_EQ(0, mvgal_end(self->m, e.session, -1, NULL, 0));
		if (b.out_fence_fd >= 0)
			close(b.out_fence_fd);
		EXPECT_EQ(-EINVAL, point_wait(self->fd, out, 0, 0))
			TH_LOG("%s: the out syncobj got a fence", bs->what);
		EXPECT_EQ(1, point_now(self->fd, tl));
	}
	/* -EBUSY for a live WRITE session: the out syncobj stays as it was. */
	{
		struct drm_mvgal_begin b = {
			.accesses = (uintptr_t)&a, .count = 1, .gpu = self->g1,
			.flags = MVGAL_ACCESS_WRITE, .in_fence_fd = -1,
		};
		struct drm_mvgal_begin b2 = b;

		ASSERT_EQ(0, mvgal_session_begin(self->m, &b));
		b2.flags = MVGAL_ACCESS_READ;
		b2.out_syncobj = out;
		EXPECT_EQ(-EBUSY, mvgal_session_begin(self->m, &b2));
		EXPECT_EQ(-EINVAL, point_wait(self->fd, out, 0, 0));
		ASSERT_EQ(0, mvgal_end(self->m, b.session, -1, NULL, 0));
		if (b.out_fence_fd >= 0)
			close(b.out_fence_fd);
	}
	EXPECT_EQ(-1, bo_check(self->m, h, size, 4));
	vfence_free(&vf);
	drmSyncobjDestroy(self->fd, bin);
	drmSyncobjDestroy(self->fd, tl);
	drmSyncobjDestroy(self->fd, out);
	mvgal_bo_destroy(self->m, h);
}

TEST_HARNESS_MAIN
