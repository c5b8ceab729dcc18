// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libmvgal's session/migration helpers that need no module:
 * names, argument checks, and fence waits on file descriptors. Host only.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"

TEST(prio_and_cap_names)
{
	EXPECT_STREQ("high", mvgal_prio_name(MVGAL_PRIO_HIGH));
	EXPECT_STREQ("normal", mvgal_prio_name(MVGAL_PRIO_NORMAL));
	EXPECT_STREQ("low", mvgal_prio_name(MVGAL_PRIO_LOW));
	EXPECT_EQ(NULL, mvgal_prio_name(MVGAL_PRIO_COUNT));
	EXPECT_STREQ("sessions", mvgal_cap_name(MVGAL_CAP_SESSIONS));
	EXPECT_STREQ("migration", mvgal_cap_name(MVGAL_CAP_MIGRATION));
	EXPECT_STREQ("write-watch", mvgal_cap_name(MVGAL_CAP_WRITE_WATCH));
	EXPECT_STREQ("eviction", mvgal_cap_name(MVGAL_CAP_EVICTION));
	EXPECT_STREQ("place-fd", mvgal_cap_name(MVGAL_CAP_PLACE_FD));
	EXPECT_STREQ("uring", mvgal_cap_name(MVGAL_CAP_URING));
	EXPECT_STREQ("sync-syncobjs", mvgal_cap_name(MVGAL_CAP_SYNC_SYNCOBJS));
	EXPECT_STREQ("stats", mvgal_cap_name(MVGAL_CAP_STATS));
	EXPECT_STREQ("mark-overwrite", mvgal_cap_name(MVGAL_CAP_MARK_OVERWRITE));
	EXPECT_STREQ("userptr-mirror",
		     mvgal_cap_name(MVGAL_CAP_USERPTR_MIRROR));
	EXPECT_STREQ("mark-home-held",
		     mvgal_cap_name(MVGAL_CAP_MARK_HOME_HELD));
	EXPECT_STREQ("place-adopt", mvgal_cap_name(MVGAL_CAP_PLACE_ADOPT));
	EXPECT_EQ(NULL, mvgal_cap_name(1ULL << 63));
}

TEST(null_arguments_are_einval)
{
	struct drm_mvgal_access a = { 0 };
	struct drm_mvgal_migrate m = { 0 };
	struct drm_mvgal_stats s;
	struct drm_mvgal_path p;
	uint32_t session;
	int fd;

	EXPECT_EQ(-EINVAL, mvgal_begin(NULL, 0, MVGAL_ACCESS_READ, 0, -1, &a, 1,
				       &session, &fd, NULL));
	EXPECT_EQ(-EINVAL, mvgal_end(NULL, 0, -1, NULL, 0));
	EXPECT_EQ(-EINVAL, mvgal_migrate(NULL, &m));
	EXPECT_EQ(-EINVAL, mvgal_cancel(NULL, 1));
	EXPECT_EQ(-EINVAL, mvgal_place_free(NULL, 1, 0));
	EXPECT_EQ(-EINVAL, mvgal_get_stats(NULL, &s));
	EXPECT_EQ(-EINVAL, mvgal_get_path(NULL, 0, 1, 4096, &p));
	EXPECT_EQ(-EINVAL, mvgal_calibrate(NULL, NULL));
	EXPECT_EQ(-EINVAL, mvgal_harvest(NULL, 0, NULL, 1));
	EXPECT_EQ(-EINVAL, mvgal_set_file_flags(NULL, 0, NULL));
	EXPECT_EQ(-EINVAL, mvgal_gpu_budget(NULL, 0, 0, NULL, NULL));
	EXPECT_EQ(-EINVAL, mvgal_pool_lru(NULL, 0, NULL, NULL));
	EXPECT_EQ(-EINVAL, mvgal_replicate(NULL, 1, 0, 1, &session, 1, -1, &fd));
	EXPECT_EQ(-EINVAL, mvgal_advise(NULL, NULL));
	EXPECT_EQ(-EINVAL, mvgal_fence_wait(-1, 0));
	EXPECT_EQ(-EINVAL, mvgal_fence_status(-1));
}

TEST(ring_arguments_are_checked)
{
	struct drm_mvgal_migrate m = { 0 };
	struct mvgal_completion c;
	struct mvgal_ring *r = NULL;

	EXPECT_EQ(-EINVAL, mvgal_ring_init(NULL, 8, &r));
	EXPECT_EQ(NULL, r);
	EXPECT_EQ(-EINVAL, mvgal_prep_migrate(NULL, &m, 0, 0));
	EXPECT_EQ(-EINVAL, mvgal_ring_submit(NULL));
	EXPECT_EQ(-EINVAL, mvgal_ring_wait(NULL, 0, &c));
	mvgal_ring_free(NULL);
}

/* A pipe stands in for a sync_file: readable = signaled. */
TEST(fence_wait_polls_for_pollin)
{
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	EXPECT_EQ(-ETIME, mvgal_fence_wait(p[0], 0));
	EXPECT_EQ(-ETIME, mvgal_fence_wait(p[0], 20));
	ASSERT_EQ(1, write(p[1], "x", 1));
	EXPECT_EQ(0, mvgal_fence_wait(p[0], 0));
	EXPECT_EQ(0, mvgal_fence_wait(p[0], -1));
	/* Not a sync_file: SYNC_IOC_FILE_INFO is refused. */
	EXPECT_EQ(-ENOTTY, mvgal_fence_status(p[0]));
	close(p[0]);
	close(p[1]);
	EXPECT_EQ(-EBADF, mvgal_fence_wait(p[0], 0));
	EXPECT_EQ(-EBADF, mvgal_fence_status(p[0]));
}

TEST_HARNESS_MAIN
