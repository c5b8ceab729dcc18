// SPDX-License-Identifier: GPL-2.0
/*
 * Resource limits: what one caller can make the kernel hold. Metadata of
 * lazily allocated buffers grows with what is touched (chunk states, not
 * a page array of the whole size); kernel memory a caller causes is
 * charged to its memory cgroup; one open file may queue max_file_jobs
 * jobs and hold max_file_meta_mb of buffer metadata; BO_LIST allocates
 * for what exists, not for the capacity it is given.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

#define CG "/sys/fs/cgroup"
#define CG_T CG "/mvgal-limits"
#define JOBS "/sys/module/mvgal/parameters/max_file_jobs"
#define META "/sys/module/mvgal/parameters/max_file_meta_mb"
#define LAZY16 (16ULL << 30)

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* A memory cgroup of its own for the test (cgroup v2). */
static int cg_setup(void)
{
	mkdir(CG, 0755);
	if (access(CG "/cgroup.controllers", F_OK) &&
	    mount("none", CG, "cgroup2", 0, NULL))
		return -errno;
	if (write_param(CG "/cgroup.subtree_control", "+memory"))
		return -EIO;
	if (mkdir(CG_T, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int cg_enter(pid_t pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", pid);
	return write_param(CG_T "/cgroup.procs", buf);
}

static void cg_teardown(void)
{
	write_param(CG "/cgroup.procs", "0");
	rmdir(CG_T);
}

static int lazy_bo(struct mvgal *m, uint64_t size, uint32_t *h)
{
	return mvgal_bo_create(m, size, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID |
			       MVGAL_BO_LAZY_ALLOCATE, MVGAL_GPU_ANY, h);
}

FIXTURE(lim) {
	COH_FIELDS;
};

FIXTURE_SETUP(lim)
{
	COH_SETUP(self);
	ASSERT_EQ(0, cg_setup());
}

FIXTURE_TEARDOWN(lim)
{
	write_param(JOBS, "256");
	write_param(META, "64");
	cg_teardown();
	coh_teardown(self->m, self->pool);
}

/*
 * Twenty never-touched 16 GiB lazy buffers: their metadata is charged to
 * the creator's cgroup and is about a megabyte each (the chunk states),
 * not the 32 MiB a page array of their size would be.
 */
TEST_F(lim, lazy_buffers_cost_what_is_touched_and_are_charged)
{
	static uint8_t buf[1 << 20];
	long long before, after;
	uint32_t h[20];

	ASSERT_EQ(0, cg_enter(getpid()));
	before = read_ll(CG_T "/memory.current");
	ASSERT_LE(0, before);
	for (int i = 0; i < 20; i++) {
		ASSERT_EQ(0, lazy_bo(self->m, LAZY16, &h[i])) TH_LOG("buffer %d", i);
	}
	after = read_ll(CG_T "/memory.current");
	TH_LOG("20 lazy 16 GiB buffers: %lld KiB charged", (after - before) >> 10);
	/* Charged: at least the chunk states, 1 MiB a buffer... */
	EXPECT_LE(20LL << 19, after - before);
	/* ...and far from a page pointer per page (32 MiB a buffer). */
	EXPECT_GT(20LL * (3 << 20), after - before);
	/* Bytes far into one go in and come back. */
	fill(buf, sizeof(buf), 1);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h[3], 5ULL << 30, buf, sizeof(buf)));
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(0, mvgal_bo_read(self->m, h[3], 5ULL << 30, buf, sizeof(buf)));
	EXPECT_EQ(-1, check(buf, sizeof(buf), 0, 1));
	for (int i = 0; i < 20; i++)
		mvgal_bo_destroy(self->m, h[i]);
	ASSERT_EQ(0, write_param(CG "/cgroup.procs", "0"));
}

/*
 * A process whose cgroup may hold 48 MiB writes 96 MiB into a lazy
 * buffer: its own cgroup stops it with -ENOMEM (no OOM kill), never the
 * machine, and the cgroup never went past its limit.
 */
TEST_F(lim, host_pages_are_bounded_by_the_callers_cgroup)
{
	int st;
	pid_t pid;

	ASSERT_EQ(0, write_param(CG_T "/memory.max", "48M"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct mvgal *m;
		uint8_t *buf;
		uint32_t h;
		int ret;

		if (cg_enter(getpid()) || mvgal_open(&m) || lazy_bo(m, 1ULL << 30, &h))
			_exit(10);
		buf = malloc(4 << 20);
		if (!buf)
			_exit(11);
		memset(buf, 0x77, 4 << 20);
		for (int i = 0; i < 24; i++) {
			ret = mvgal_bo_write(m, h, (uint64_t)i << 22, buf, 4 << 20);
			if (ret)
				_exit(ret == -ENOMEM ? 0 : 12);
		}
		_exit(13);	/* all 96 MiB went in: no limit */
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_GE(48LL << 20, read_ll(CG_T "/memory.peak"));
	write_param(CG_T "/memory.max", "max");
}

/* BO_LIST with a huge capacity allocates for the buffers that exist. */
TEST_F(lim, bo_list_allocates_for_what_exists)
{
	struct drm_mvgal_bo_entry *e;
	long long before;
	uint32_t h, count = 1U << 20;

	ASSERT_EQ(0, host_bo(self->m, 3 * CH, &h));
	ASSERT_EQ(0, cg_enter(getpid()));
	/* Room for 2^20 entries, mapped but never touched but by the kernel. */
	e = mmap(NULL, (size_t)count * sizeof(*e), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, e);
	before = read_ll(CG_T "/memory.peak");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, mvgal_bo_list(self->m, e, &count));
	EXPECT_LE(1, count);
	EXPECT_GT(before + (16LL << 20), read_ll(CG_T "/memory.peak"));
	munmap(e, (size_t)(1U << 20) * sizeof(*e));
	mvgal_bo_destroy(self->m, h);
	ASSERT_EQ(0, write_param(CG "/cgroup.procs", "0"));
}

/* One file may have max_file_jobs unfinished jobs; more are -ENOBUFS, and
 * another file is not held back.
 */
TEST_F(lim, jobs_per_file_are_bounded)
{
	struct drm_mvgal_migrate mg = { .size = CH, .in_fence_fd = -1 };
	struct vfence vf = { .fd = -1 };
	struct mvgal *other;
	int fds[16], n = 0;
	uint32_t h, h2;

	ASSERT_EQ(0, write_param(JOBS, "16"));
	ASSERT_EQ(0, host_bo(self->m, 32 * CH, &h));
	ASSERT_EQ(0, vfence_new(&vf));
	mg.handle = h;
	mg.location = 1 + self->g0;
	mg.in_fence_fd = vf.fd;
	for (n = 0; n < 16; n++) {
		mg.offset = (uint64_t)n * CH;
		ASSERT_EQ(0, mvgal_migrate(self->m, &mg)) {
			TH_LOG("job %d", n);
		}
		fds[n] = mg.out_fence_fd;
	}
	mg.offset = 16 * CH;
	EXPECT_EQ(-ENOBUFS, mvgal_migrate(self->m, &mg));
	/* Another file queues as it likes. */
	ASSERT_EQ(0, mvgal_open(&other));
	ASSERT_EQ(0, host_bo(other, CH, &h2));
	mg.handle = h2;
	mg.offset = 0;
	EXPECT_EQ(0, mvgal_migrate(other, &mg));
	if (mg.out_fence_fd >= 0)
		close(mg.out_fence_fd);
	vfence_signal(&vf);
	for (n = 0; n < 16; n++) {
		EXPECT_EQ(0, settle(fds[n]));
	}
	/* Finished jobs leave the allowance. */
	mg.handle = h;
	mg.offset = 20 * CH;
	mg.in_fence_fd = -1;
	EXPECT_EQ(0, mvgal_migrate(self->m, &mg));
	settle(mg.out_fence_fd);
	mvgal_close(other);
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, h);
}

/* Buffer metadata per file: past max_file_meta_mb a new buffer is
 * -EDQUOT; freeing one makes room; another file has its own allowance.
 */
TEST_F(lim, buffer_metadata_per_file_is_bounded)
{
	struct mvgal *other;
	uint32_t h[8], x;
	int n;

	ASSERT_EQ(0, write_param(META, "4"));
	for (n = 0; n < 8; n++) {
		int ret = lazy_bo(self->m, LAZY16, &h[n]);

		if (ret) {
			EXPECT_EQ(-EDQUOT, ret);
			break;
		}
	}
	TH_LOG("%d lazy 16 GiB buffers within 4 MiB of metadata", n);
	EXPECT_LE(2, n);
	EXPECT_GT(8, n);
	ASSERT_EQ(0, mvgal_open(&other));
	EXPECT_EQ(0, lazy_bo(other, LAZY16, &x));
	mvgal_bo_destroy(self->m, h[0]);
	EXPECT_EQ(0, lazy_bo(self->m, LAZY16, &h[0]));
	for (int i = 0; i < n; i++)
		mvgal_bo_destroy(self->m, h[i]);
	mvgal_close(other);
}

TEST_HARNESS_MAIN
