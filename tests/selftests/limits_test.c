// SPDX-License-Identifier: GPL-2.0
/*
 * Resource limits: what one caller can make the kernel hold. Metadata of
 * lazily allocated buffers grows with what is touched (host pages and
 * chunk records come as they are first needed); kernel memory a caller causes is
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
 * What buffer @h's chunk records take now, from <debugfs>/mvgal/bo_meta
 * ("ID LEAVES BYTES" lines): *@leaves and *@bytes. 0 or -errno.
 */
static int bo_meta(struct mvgal *m, uint32_t h, unsigned long *leaves,
		   unsigned long long *bytes)
{
	struct drm_mvgal_bo_info info;
	unsigned long long id;
	int ret = mvgal_bo_info(m, h, &info);
	FILE *f;

	if (ret)
		return ret;
	f = fopen("/sys/kernel/debug/mvgal/bo_meta", "r");
	if (!f)
		return -errno;
	ret = -ENOENT;
	while (fscanf(f, "%llu %lu %llu\n", &id, leaves, bytes) == 3)
		if (id == info.id) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/* The bytes one chunk record leaf covers: 1024 chunks. */
static uint64_t leaf_span(struct mvgal *m, uint32_t h)
{
	struct drm_mvgal_bo_info info;

	if (mvgal_bo_info(m, h, &info))
		return 0;
	return 1024 * info.chunk_size;
}

/*
 * Twenty never-touched 16 GiB lazy buffers cost next to nothing: no
 * chunk records (a leaf per 1024 chunks comes as chunks are touched), no
 * page array. One byte written every leaf span of one of them adds
 * exactly one leaf each, charged to the writer's cgroup with its page;
 * advice far into another and a session add the leaves their ranges
 * cover, no more.
 */
TEST_F(lim, lazy_buffers_cost_what_is_touched_and_are_charged)
{
	static uint8_t buf[1 << 20];
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	long long before, after, grown;
	unsigned long long bytes;
	unsigned long leaves;
	struct drm_mvgal_advise adv = { 0 };
	uint64_t span;
	uint32_t h[20], hs, sess;
	int fence, n;

	ASSERT_EQ(0, cg_enter(getpid()));
	before = read_ll(CG_T "/memory.current");
	ASSERT_LE(0, before);
	for (int i = 0; i < 20; i++) {
		ASSERT_EQ(0, lazy_bo(self->m, LAZY16, &h[i])) TH_LOG("buffer %d", i);
	}
	after = read_ll(CG_T "/memory.current");
	TH_LOG("20 lazy 16 GiB buffers: %lld KiB charged", (after - before) >> 10);
	/* A page array of their size would be 32 MiB each; the chunk
	 * states alone 1 MiB each. (2 MiB: the cgroup's per-CPU batches.)
	 */
	EXPECT_GT(2LL << 20, after - before);
	ASSERT_EQ(0, bo_meta(self->m, h[0], &leaves, &bytes));
	EXPECT_EQ(0, leaves);
	/* Untouched: all of it at home, as the residency report says. */
	ASSERT_EQ(0, mvgal_bo_info(self->m, h[0], &info));
	EXPECT_EQ(LAZY16, info.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ(LAZY16, info.owned[MVGAL_LOC_HOST]);
	/* Reading makes no records: it reads what never-written bytes hold. */
	memset(buf, 0xee, 3 * CH);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h[0], (7ULL << 30) + 5, buf, 3 * CH));
	n = -1;
	for (int i = 0; i < 3 * CH && n < 0; i++)
		if (buf[i] != MVGAL_BO_POISON)
			n = i;
	EXPECT_EQ(-1, n);	/* the first byte that is not the poison */
	ASSERT_EQ(0, bo_meta(self->m, h[0], &leaves, &bytes));
	EXPECT_EQ(0, leaves);
	/* A one-chunk buffer's record is one chunk's worth, not a leaf's. */
	ASSERT_EQ(0, lazy_bo(self->m, 5000, &hs));
	ASSERT_EQ(0, mvgal_bo_write(self->m, hs, 4999, buf, 1));
	ASSERT_EQ(0, bo_meta(self->m, hs, &leaves, &bytes));
	TH_LOG("a 5000-byte buffer written: %lu leaf of %llu bytes", leaves, bytes);
	EXPECT_EQ(1, leaves);
	EXPECT_GT(128, bytes);
	mvgal_bo_destroy(self->m, hs);

	/* One byte per leaf span, at odd offsets: one leaf each. */
	span = leaf_span(self->m, h[1]);
	ASSERT_NE(0, span);
	n = LAZY16 / span < 256 ? LAZY16 / span : 256;
	before = read_ll(CG_T "/memory.current");
	for (int i = 0; i < n; i++) {
		uint8_t b = (uint8_t)(i + 1);

		ASSERT_EQ(0, mvgal_bo_write(self->m, h[1], (uint64_t)i * span + 4099 + i,
					    &b, 1)) TH_LOG("write %d", i);
	}
	grown = read_ll(CG_T "/memory.current") - before;
	ASSERT_EQ(0, bo_meta(self->m, h[1], &leaves, &bytes));
	TH_LOG("%d bytes written %llu MiB apart: %lu leaves, %llu KiB of records, %lld KiB charged",
	       n, (unsigned long long)span >> 20, leaves, bytes >> 10, grown >> 10);
	EXPECT_EQ((unsigned long)n, leaves);
	/* Charged to the writer: a leaf and a page each (less the
	 * cgroup's per-CPU batches).
	 */
	EXPECT_LE((long long)(bytes + (unsigned long long)n * 4096) - (1LL << 20), grown);
	for (int i = 0; i < n; i += 37) {
		uint8_t b = 0;

		ASSERT_EQ(0, mvgal_bo_read(self->m, h[1], (uint64_t)i * span + 4099 + i, &b, 1));
		EXPECT_EQ((uint8_t)(i + 1), b);
	}
	ASSERT_EQ(0, mvgal_bo_info(self->m, h[1], &info));
	EXPECT_EQ(LAZY16, info.valid[MVGAL_LOC_HOST]);
	EXPECT_EQ((uint64_t)n, info.cpu_written);

	/* Advice on 4 chunks straddling a leaf boundary far in: two. */
	adv.handle = h[2];
	adv.flags = MVGAL_ADVISE_READ_MOSTLY;
	adv.offset = 9 * span - CH - 100;
	adv.size = 2 * CH + 200;
	ASSERT_EQ(0, mvgal_advise(self->m, &adv));
	EXPECT_EQ(4 * CH, adv.read_mostly);
	ASSERT_EQ(0, bo_meta(self->m, h[2], &leaves, &bytes));
	EXPECT_EQ(2, leaves);

	/* A session on a lazy buffer: the leaf its range is in. */
	ASSERT_EQ(0, lazy_bo(self->m, 40 << 20, &hs));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, hs,
			    (5 << 20) + 17, 3 * CH + 5, &a, &sess, &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	ASSERT_EQ(0, bo_meta(self->m, hs, &leaves, &bytes));
	EXPECT_EQ(1, leaves);
	fill(self->pool[self->g0] + a.pool_offset + (5 << 20) + 17, 3 * CH + 5, 4);
	EXPECT_EQ(0, end_written(self->m, sess, hs, (5 << 20) + 17, 3 * CH + 5, -1));
	ASSERT_EQ(0, mvgal_bo_read(self->m, hs, (5 << 20) + 17, buf, 3 * CH + 5));
	EXPECT_EQ(-1, check(buf, 3 * CH + 5, 0, 4));
	ASSERT_EQ(0, mvgal_bo_info(self->m, hs, &info));
	EXPECT_EQ((40ULL << 20) - 4 * CH, info.owned[MVGAL_LOC_HOST]);
	mvgal_bo_destroy(self->m, hs);

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

/*
 * Buffer metadata per file: chunk records come as chunks are touched and
 * count against the creating file's max_file_meta_mb. Past it, a write,
 * a session or a migration touching new chunks is -EDQUOT and changes
 * nothing; what was written stays; another file has its own allowance;
 * freeing a buffer makes room.
 */
TEST_F(lim, buffer_metadata_per_file_is_bounded)
{
	struct drm_mvgal_migrate mg = { .size = CH, .in_fence_fd = -1 };
	struct drm_mvgal_bo_info info;
	struct drm_mvgal_access a;
	unsigned long long bytes;
	unsigned long leaves;
	struct mvgal *other;
	uint32_t h, h2, x, sess, small[64] = { 0 };
	uint64_t span, off = 0;
	int n, k, ret = 0, fence;
	uint8_t b;

	ASSERT_EQ(0, write_param(META, "1"));
	ASSERT_EQ(0, lazy_bo(self->m, LAZY16, &h));
	ASSERT_EQ(0, lazy_bo(self->m, 40 << 20, &h2));
	span = leaf_span(self->m, h);
	ASSERT_NE(0, span);
	for (n = 0; (uint64_t)n * span < LAZY16; n++) {
		b = (uint8_t)(n + 7);
		off = (uint64_t)n * span + 12345;
		ret = mvgal_bo_write(self->m, h, off, &b, 1);
		if (ret)
			break;
	}
	EXPECT_EQ(-EDQUOT, ret);
	ASSERT_EQ(0, bo_meta(self->m, h, &leaves, &bytes));
	TH_LOG("1 MiB of metadata: %d leaves of %llu bytes, then -EDQUOT", n,
	       bytes / (leaves ? leaves : 1));
	EXPECT_EQ((unsigned long)n, leaves);
	EXPECT_LE(100, n);
	EXPECT_GE(1ULL << 20, bytes);
	/* What is left of the allowance goes to one-chunk buffers (a
	 * 60-byte record each), until that is refused too.
	 */
	for (k = 0; k < 64; k++) {
		ret = lazy_bo(self->m, 5000, &small[k]);
		if (!ret)
			ret = mvgal_bo_write(self->m, small[k], 17, &b, 1);
		if (ret)
			break;
	}
	EXPECT_EQ(-EDQUOT, ret);
	TH_LOG("then %d one-chunk buffers", k);
	/* The refused write changed nothing. */
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ((uint64_t)n, info.cpu_written);
	/* Nor does a session or a migration out there, on either buffer. */
	EXPECT_EQ(-EDQUOT, begin1(self->m, self->g0, MVGAL_ACCESS_READ, h,
				  off, 3 * CH + 1, &a, &sess, &fence, NULL));
	mg.handle = h2;
	mg.offset = 7 * CH;
	mg.location = 1 + self->g0;
	EXPECT_EQ(-EDQUOT, mvgal_migrate(self->m, &mg));
	ASSERT_EQ(0, mvgal_bo_info(self->m, h2, &info));
	EXPECT_EQ(0, info.sessions);
	EXPECT_EQ(0, info.valid[1 + self->g0]);
	EXPECT_EQ(0, info.resident[1 + self->g0]);
	ASSERT_EQ(0, bo_meta(self->m, h2, &leaves, &bytes));
	EXPECT_EQ(0, leaves);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h, &info));
	EXPECT_EQ(0, info.sessions);
	/* Chunks already recorded need nothing more. */
	b = 0;
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 12345, &b, 1));
	EXPECT_EQ(7, b);
	b = 99;
	EXPECT_EQ(0, mvgal_bo_write(self->m, h, (uint64_t)(n - 1) * span, &b, 1));
	/* Another file has its own allowance. */
	ASSERT_EQ(0, mvgal_open(&other));
	ASSERT_EQ(0, lazy_bo(other, LAZY16, &x));
	EXPECT_EQ(0, mvgal_bo_write(other, x, 7 * span + 3, &b, 1));
	mvgal_close(other);
	/* Freeing a buffer makes room. */
	for (int i = 0; i <= k && i < 64; i++)
		mvgal_bo_destroy(self->m, small[i]);
	mvgal_bo_destroy(self->m, h);
	EXPECT_EQ(0, mvgal_migrate(self->m, &mg));
	settle(mg.out_fence_fd);
	ASSERT_EQ(0, mvgal_bo_info(self->m, h2, &info));
	EXPECT_EQ(CH, info.valid[1 + self->g0]);
	mvgal_bo_destroy(self->m, h2);
}

TEST_HARNESS_MAIN
