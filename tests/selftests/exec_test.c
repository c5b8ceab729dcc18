// SPDX-License-Identifier: GPL-2.0
/*
 * Copy executors (MVGAL_METHOD_EXEC): a process registered for one GPU
 * that copies between its pool and host pages, as a Vulkan transfer queue
 * does. Here the executor is a mock: a child process that copies with the
 * CPU through the dma-bufs mvgal hands it (the pool's, and each copy's
 * host pages), and that on request crashes, hangs, fails, signals an
 * error on its fence, or lies. Every test checks the bytes where mvgal
 * put them: the pool through its own driver's mapping (map_pool()), home
 * through BO_PREAD.
 *
 * With MVGAL_TEST_VKEXEC set to the Vulkan tree's launcher (the guest's
 * /opt/vulkan/run, tests/vulkan/vulkan_test.sh), the executor of the
 * tests that need one that copies right is mvgal-vkexec instead: the
 * copies are then made by a Vulkan transfer queue (lavapipe's).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"
#include "../common/vgem_fence.h"
#include "../common/write_param.h"

#define TMO "/sys/module/mvgal/parameters/exec_timeout_ms"
#define EXECS "/sys/kernel/debug/mvgal/executors"
#define EXIT_SIGBUS 42

enum mode {
	COPY,		/* copies, then reports it done */
	FENCED,		/* reports with a fence, copies, then signals it */
	CRASH,		/* exits holding the copy */
	HANG,		/* reports with a fence it never signals */
	FAIL,		/* reports the copy failed */
	ERR_FENCE,	/* copies, then signals its fence with an error */
	LIE,		/* reports done, copies nothing */
	GARBLE,		/* copies all but its first bytes wrong */
	RACE,		/* the source changes under it (an application's write) */
};

FIXTURE(exec) {
	COH_FIELDS;
	pid_t pid;
};

FIXTURE_SETUP(exec)
{
	COH_SETUP(self);
	self->pid = 0;
	ASSERT_EQ(0, write_param(TMO, "10000"));
}

/* Ends the executor's process (its registration goes with its file). */
static int executor_stop(pid_t pid)
{
	int st;

	if (pid <= 0)
		return -1;
	kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

FIXTURE_TEARDOWN(exec)
{
	executor_stop(self->pid);
	write_param(TMO, "10000");
	coh_teardown(self->m, self->pool);
}

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/*
 * After the deadline the copy's pages are revoked: a write through the
 * executor's mapping is SIGBUS, not a write to the buffer.
 */
static int late_write(uint8_t *h)
{
	signal(SIGBUS, on_bus);
	if (sigsetjmp(bus_jmp, 1))
		_exit(EXIT_SIGBUS);
	h[0] ^= 0xff;
	return 20;
}

/* A fence of mvgal's that signals -ECANCELED: a cancelled MIGRATE's. */
static int cancelled_fence(struct mvgal *m, uint32_t gpu)
{
	struct drm_mvgal_migrate mg = {
		.size = 4096, .location = 1 + gpu, .in_fence_fd = -1,
	};
	struct vfence f = { .vgem = -1, .fd = -1 };
	uint32_t h;

	if (vfence_new(&f) || host_bo(m, 4096, &h))
		return -1;
	mg.handle = h;
	mg.in_fence_fd = f.fd;
	if (mvgal_migrate(m, &mg) || mvgal_cancel(m, mg.job))
		return -1;
	vfence_free(&f);
	return mg.out_fence_fd;
}

static void copy(const struct drm_mvgal_exec_take *t, uint8_t *h, uint8_t *p)
{
	if (t->dir == MVGAL_EXEC_TO_POOL)
		memcpy(p, h, t->length);
	else
		memcpy(h, p, t->length);
}

/* Reports copy @t with a vgem fence, signalled after copying unless HANG. */
static int report_fenced(struct mvgal *m, uint32_t gpu, enum mode mode,
			 const struct drm_mvgal_exec_take *t, uint8_t *h,
			 uint8_t *p)
{
	struct vfence f = { .vgem = -1, .fd = -1 };
	int ret;

	if (vfence_new(&f))
		return -1;
	ret = mvgal_exec_done(m, gpu, t->job, f.fd, 0);
	if (mode == HANG) {
		usleep(1500 * 1000);	/* past exec_timeout_ms */
		return late_write(h);
	}
	copy(t, h, p);
	vfence_signal(&f);
	vfence_free(&f);
	return ret;
}

static int raced;

/* Makes copy @t as @mode says; 0, or the child's exit status. */
static int serve_one(struct mvgal *m, uint32_t gpu, enum mode mode,
		     uint8_t *pool, const struct drm_mvgal_exec_take *t)
{
	size_t span = (t->host_offset + t->length + 4095) & ~4095ULL;
	uint8_t *host, *h, *p = pool + t->pool_offset;
	int fence, ret;

	host = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED,
		    t->host_fd, 0);
	if (host == MAP_FAILED)
		return 14;
	h = host + t->host_offset;
	if (mode == CRASH)
		_exit(0);
	/* Mapped before anything can be revoked. */
	(void)*(volatile uint8_t *)h;
	/*
	 * What an application writing its own pages meanwhile would do,
	 * once: the copies after it are made right.
	 */
	if (mode == RACE && !raced++)
		(t->dir == MVGAL_EXEC_TO_POOL ? h : p)[0] ^= 0x5a;
	if (mode == COPY || mode == ERR_FENCE || mode == GARBLE || mode == RACE)
		copy(t, h, p);
	if (mode == GARBLE)
		(t->dir == MVGAL_EXEC_TO_POOL ? p : h)[0] ^= 0x5a;
	switch (mode) {
	case FAIL:
		ret = mvgal_exec_done(m, gpu, t->job, -1, -EIO);
		break;
	case ERR_FENCE:
		fence = cancelled_fence(m, gpu);
		ret = fence < 0 ? -1 : mvgal_exec_done(m, gpu, t->job, fence, 0);
		if (fence >= 0)
			close(fence);
		break;
	case FENCED:
	case HANG:
		ret = report_fenced(m, gpu, mode, t, h, p);
		break;
	default:
		ret = mvgal_exec_done(m, gpu, t->job, -1, 0);
		break;
	}
	munmap(host, span);
	return ret ? 16 : 0;
}

/* The mock executor: serves GPU @gpu until its registration ends. */
static int serve(uint32_t gpu, enum mode mode, int ready)
{
	struct drm_mvgal_exec_take t;
	struct mvgal *m;
	uint8_t *pool;
	int ret;

	ret = mvgal_open(&m);
	if (!ret)
		ret = mvgal_exec_register(m, gpu, 0);
	if (ret || write(ready, "ready\n", 6) != 6)
		return 11;
	close(ready);
	pool = map_pool(mvgal_fd(m), gpu);
	if (!pool)
		return 12;
	for (;;) {
		ret = mvgal_exec_take(m, gpu, 0, &t);
		/* Unregistered, while waiting or before. */
		if (ret == -ENODEV || ret == -EPERM)
			return 0;
		if (ret)
			return 13;
		ret = serve_one(m, gpu, mode, pool, &t);
		close(t.host_fd);
		if (ret)
			return ret;
	}
}

/* Starts a mock executor for @gpu; its registration is made on return. */
static pid_t executor_start(struct __test_metadata *_metadata, uint32_t gpu,
			    enum mode mode)
{
	const char *vk = getenv("MVGAL_TEST_VKEXEC");
	char ready[8] = "", g[16], fd[16];
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		close(p[0]);
		if (vk && mode == COPY) {
			snprintf(g, sizeof(g), "%u", gpu);
			snprintf(fd, sizeof(fd), "%d", p[1]);
			execl(vk, vk, "mvgal-vkexec", "-s", "-v", "-g", g, "-r",
			      fd, (char *)NULL);
			_exit(127);
		}
		_exit(serve(gpu, mode, p[1]));
	}
	close(p[1]);
	/* "ready\n" once registered; nothing if the executor failed. */
	EXPECT_EQ(6, read(p[0], ready, 6));
	close(p[0]);
	EXPECT_STREQ("ready\n", ready);
	return strcmp(ready, "ready\n") ? -1 : pid;
}

static void stats(struct mvgal *m, struct drm_mvgal_stats *st)
{
	memset(st, 0, sizeof(*st));
	mvgal_get_stats_sz(m, st, sizeof(*st));
}

/* MIGRATE [off, off + size) of @h to @loc; the fence's status (1: done). */
static int migrate(struct mvgal *m, uint32_t h, uint64_t off, uint64_t size,
		   uint32_t loc)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .offset = off, .size = size, .location = loc,
		.flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
	};
	int ret = mvgal_migrate(m, &mg);

	if (ret)
		return ret;
	if (mg.out_fence_fd < 0)
		return 1;
	ret = mvgal_fence_wait(mg.out_fence_fd, 60000);
	if (!ret)
		ret = mvgal_fence_status(mg.out_fence_fd);
	close(mg.out_fence_fd);
	return ret;
}

/* Is method EXEC possible host -> GPU @g (an executor serves it)? */
static bool exec_possible(struct mvgal *m, uint32_t g)
{
	struct drm_mvgal_path p;

	return !mvgal_get_path(m, MVGAL_LOC_HOST, 1 + g, 1 << 20, &p) &&
	       (p.methods & (1U << MVGAL_METHOD_EXEC));
}

/* Counter @name of <debugfs>/mvgal/executors, or -1. */
static long long execs_count(const char *name)
{
	char cmd[160];
	long long v = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "sed -n 's/.*\\b%s \\([0-9]*\\).*/\\1/p' " EXECS " | head -n 1",
		 name);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	pclose(f);
	return v;
}

/* A buffer of @size bytes of pattern @s, then moved to GPU @g's pool. */
#define SIZE (5 * CH + 4321)
#define OFF (CH + 100)

/*
 * Buffer @h's pattern @s arrived in GPU @g's pool: read through the pool's
 * own mapping, with no copy made by the session that finds it there.
 */
static void in_pool(struct __test_metadata *_metadata, FIXTURE_DATA(exec) *self,
		    uint32_t h, unsigned int s)
{
	uint64_t copied = 1;
	long long at;

	at = pool_offset(_metadata, self->m, self->g0, h, SIZE, &copied);
	ASSERT_LE(0, at);
	EXPECT_EQ(0, copied);
	EXPECT_EQ(-1, check(self->pool[self->g0] + at, SIZE, 0, s));
}

/*
 * With the executor forced, a migration to the pool and back home, and a
 * session's copies, are all the executor's: the bytes arrive (an odd
 * offset and size), and GET_STATS counts them as MVGAL_METHOD_EXEC.
 */
static void round_trip(struct __test_metadata *_metadata,
		       FIXTURE_DATA(exec) *self, enum mode mode, unsigned int s)
{
	struct drm_mvgal_gpu_info gi;
	struct drm_mvgal_stats a, b;
	uint32_t h, h2;
	uint64_t copied;

	self->pid = executor_start(_metadata, self->g0, mode);
	ASSERT_LT(0, self->pid);
	ASSERT_TRUE(exec_possible(self->m, self->g0));
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g0, &gi));
	EXPECT_EQ(1, gi.executor);
	/* mvgal-info --paths shows it possible, and forced. */
	ASSERT_EQ(0, write_param(FORCE, "4"));
	EXPECT_EQ(0, run("mvgal-info --paths | grep -q ' host .*,executor  *executor\\* '"));
	ASSERT_EQ(0, host_bo(self->m, SIZE, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, SIZE, s));
	stats(self->m, &a);
	ASSERT_EQ(1, migrate(self->m, h, OFF, SIZE - OFF, 1 + self->g0));
	ASSERT_EQ(1, migrate(self->m, h, 0, OFF, 1 + self->g0));
	in_pool(_metadata, self, h, s);
	ASSERT_EQ(1, migrate(self->m, h, 0, SIZE, MVGAL_LOC_HOST));
	EXPECT_EQ(-1, bo_check(self->m, h, SIZE, s));
	/* A session's copy to the pool is the executor's too. */
	ASSERT_EQ(0, host_bo(self->m, SIZE, &h2));
	ASSERT_EQ(0, bo_fill(self->m, h2, SIZE, s + 1));
	ASSERT_LE(0, pool_offset(_metadata, self->m, self->g0, h2, SIZE,
				 &copied));
	EXPECT_LE(SIZE, copied);
	stats(self->m, &b);
	EXPECT_LE(3 * SIZE, b.exec_bytes - a.exec_bytes);
	EXPECT_LE(6, b.exec_copies - a.exec_copies);
	EXPECT_EQ(a.exec_fallbacks, b.exec_fallbacks);
	EXPECT_EQ(a.bytes[MVGAL_METHOD_CPU_COPY], b.bytes[MVGAL_METHOD_CPU_COPY]);
	EXPECT_EQ(a.bytes[MVGAL_METHOD_STAGING], b.bytes[MVGAL_METHOD_STAGING]);
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
}

TEST_F(exec, forced_copies_are_the_executors)
{
	round_trip(_metadata, self, COPY, 11);
	EXPECT_EQ(0, run("grep -q '^gpu [0-9]* pid [0-9]* queued 0 taken 0' " EXECS));
}

/* Reported with a fence that signals after the copy: mvgal waits for it. */
TEST_F(exec, a_fenced_copy_is_waited_for)
{
	round_trip(_metadata, self, FENCED, 12);
}

/*
 * One misbehaving executor: the migration still ends with every byte in
 * the pool, made by the CPU (@cpu: the CPU's bytes grew) or not at all
 * (@ok false: the migration failed and its chunks stayed home).
 */
static void misbehaves(struct __test_metadata *_metadata,
		       FIXTURE_DATA(exec) *self, enum mode mode,
		       unsigned int s, struct drm_mvgal_stats *a,
		       struct drm_mvgal_stats *b)
{
	uint32_t h;

	self->pid = executor_start(_metadata, self->g0, mode);
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(0, write_param(FORCE, "4"));
	ASSERT_EQ(0, host_bo(self->m, SIZE, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, SIZE, s));
	stats(self->m, a);
	if (mode == HANG) {
		EXPECT_EQ(-ETIMEDOUT, migrate(self->m, h, OFF, CH, 1 + self->g0));
	} else if (mode == CRASH) {
		EXPECT_EQ(-EIO, migrate(self->m, h, OFF, CH, 1 + self->g0));
	} else {
		EXPECT_EQ(1, migrate(self->m, h, OFF, SIZE - OFF, 1 + self->g0));
		ASSERT_EQ(1, migrate(self->m, h, 0, OFF, 1 + self->g0));
	}
	stats(self->m, b);
	/* Where the migration failed, the bytes are still home, whole. */
	ASSERT_EQ(-1, bo_check(self->m, h, SIZE, s));
	if (mode != HANG && mode != CRASH)
		in_pool(_metadata, self, h, s);
	mvgal_bo_destroy(self->m, h);
}

/*
 * Exits holding a copy it took: its GPU may be copying still, so the
 * migration fails with the bytes where they were (home, whole); the
 * registration ends, and the CPU makes the next copy.
 */
TEST_F(exec, a_crashed_executors_copy_fails_and_the_bytes_stay)
{
	struct drm_mvgal_stats a, b;
	long long gone = execs_count("gone");
	uint64_t copied = 0;
	uint32_t h;
	int st;

	misbehaves(_metadata, self, CRASH, 21, &a, &b);
	EXPECT_EQ(a.exec_bytes, b.exec_bytes);
	EXPECT_EQ(a.exec_fallbacks, b.exec_fallbacks);
	EXPECT_EQ(a.failed + 1, b.failed);
	EXPECT_EQ(gone + 1, execs_count("gone"));
	ASSERT_EQ(0, host_bo(self->m, SIZE, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, SIZE, 22));
	ASSERT_LE(0, pool_offset(_metadata, self->m, self->g0, h, SIZE,
				 &copied));
	EXPECT_LE(SIZE, copied);
	in_pool(_metadata, self, h, 22);
	mvgal_bo_destroy(self->m, h);
	EXPECT_FALSE(exec_possible(self->m, self->g0));
	ASSERT_EQ(self->pid, waitpid(self->pid, &st, 0));
	self->pid = 0;
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
}

/*
 * A fence that never signals: past exec_timeout_ms the migration fails
 * (its chunks stay home), the executor is unregistered, and the copy's
 * pages are revoked: its late write is SIGBUS, and no byte changed.
 */
TEST_F(exec, a_hung_executor_times_out_and_loses_the_pages)
{
	struct drm_mvgal_stats a, b;
	uint64_t copied = 0;
	int st;
	uint32_t h;

	/* The deadline: 1 ms to a minute (the wait is uninterruptible). */
	EXPECT_NE(0, write_param(TMO, "0"));
	EXPECT_NE(0, write_param(TMO, "60001"));
	EXPECT_NE(0, write_param(TMO, "5s"));
	EXPECT_EQ(10000, read_ll(TMO));
	ASSERT_EQ(0, write_param(TMO, "300"));
	misbehaves(_metadata, self, HANG, 31, &a, &b);
	EXPECT_EQ(a.exec_timeouts + 1, b.exec_timeouts);
	EXPECT_EQ(a.failed + 1, b.failed);
	EXPECT_FALSE(exec_possible(self->m, self->g0));
	ASSERT_EQ(self->pid, waitpid(self->pid, &st, 0));
	self->pid = 0;
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(EXIT_SIGBUS, WEXITSTATUS(st));
	/* The CPU makes the next copy; the pool then has the bytes. */
	ASSERT_EQ(0, host_bo(self->m, SIZE, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, SIZE, 32));
	ASSERT_LE(0, pool_offset(_metadata, self->m, self->g0, h, SIZE,
				 &copied));
	EXPECT_LE(SIZE, copied);
	in_pool(_metadata, self, h, 32);
	mvgal_bo_destroy(self->m, h);
}

/* Reports failure: the CPU makes each copy; the executor stays. */
TEST_F(exec, a_failed_copy_is_made_by_the_cpu)
{
	struct drm_mvgal_stats a, b;
	long long errors = execs_count("errors");

	misbehaves(_metadata, self, FAIL, 41, &a, &b);
	EXPECT_EQ(a.exec_bytes, b.exec_bytes);
	EXPECT_LE(2, b.exec_fallbacks - a.exec_fallbacks);
	EXPECT_LE(errors + 2, execs_count("errors"));
	EXPECT_TRUE(exec_possible(self->m, self->g0));
}

/* A fence that signals an error fails the copy as a report does. */
TEST_F(exec, an_error_on_the_fence_is_a_failed_copy)
{
	struct drm_mvgal_stats a, b;

	misbehaves(_metadata, self, ERR_FENCE, 51, &a, &b);
	EXPECT_EQ(a.exec_bytes, b.exec_bytes);
	EXPECT_LE(2, b.exec_fallbacks - a.exec_fallbacks);
	EXPECT_TRUE(exec_possible(self->m, self->g0));
}

struct migration {
	struct mvgal *m;
	uint32_t h, gpu;
	int status;
	int done;
};

static void *migrate_thread(void *arg)
{
	struct migration *mg = arg;

	mg->status = migrate(mg->m, mg->h, 0, SIZE, 1 + mg->gpu);
	__atomic_store_n(&mg->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Says done without copying, or garbles a copy's first bytes: the sample
 * after the copy sees it, the CPU makes the copy, and the executor is
 * unregistered (its next TAKE is -EPERM, so it ends on its own).
 */
static void lies(struct __test_metadata *_metadata, FIXTURE_DATA(exec) *self,
		 enum mode mode, unsigned int s)
{
	long long wrong = execs_count("wrong");
	struct drm_mvgal_stats a, b;
	int st;

	misbehaves(_metadata, self, mode, s, &a, &b);
	EXPECT_EQ(wrong + 1, execs_count("wrong"));
	EXPECT_FALSE(exec_possible(self->m, self->g0));
	EXPECT_LT(a.bytes[MVGAL_METHOD_CPU_COPY], b.bytes[MVGAL_METHOD_CPU_COPY]);
	ASSERT_EQ(self->pid, waitpid(self->pid, &st, 0));
	self->pid = 0;
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
}

TEST_F(exec, a_lying_executor_is_caught)
{
	lies(_metadata, self, LIE, 61);
}

TEST_F(exec, a_garbled_copy_is_caught)
{
	lies(_metadata, self, GARBLE, 62);
}

/*
 * The source changes while the executor copies (an application writing
 * its own pages): the check cannot tell, so the CPU makes the copy of
 * what the source holds now, and the executor is not blamed.
 */
TEST_F(exec, a_source_written_meanwhile_blames_no_executor)
{
	long long wrong = execs_count("wrong");
	const uint64_t size = CH - 1000;
	struct drm_mvgal_stats a, b;
	uint8_t want[CH], got[CH];
	uint64_t copied = 1;
	long long at;
	uint32_t h;

	self->pid = executor_start(_metadata, self->g0, RACE);
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(0, write_param(FORCE, "4"));
	ASSERT_EQ(0, host_bo(self->m, size, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, size, 63));
	fill(want, size, 63);
	want[0] ^= 0x5a;	/* the executor's "application" wrote it */
	stats(self->m, &a);
	ASSERT_EQ(1, migrate(self->m, h, 0, size, 1 + self->g0));
	stats(self->m, &b);
	EXPECT_EQ(a.exec_fallbacks + 1, b.exec_fallbacks);
	EXPECT_EQ(wrong, execs_count("wrong"));
	/* Later copies (home, for the read below) are the executor's again. */
	EXPECT_TRUE(exec_possible(self->m, self->g0));
	/* Home and the pool agree on what the source held last. */
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, got, size));
	EXPECT_EQ(0, memcmp(want, got, size));
	at = pool_offset(_metadata, self->m, self->g0, h, size, &copied);
	ASSERT_LE(0, at);
	EXPECT_EQ(0, copied);
	EXPECT_EQ(0, memcmp(want, self->pool[self->g0] + at, size));
	mvgal_bo_destroy(self->m, h);
}

/*
 * Goes (unregisters) with a copy queued that it never took: nothing is in
 * flight, so the CPU makes it and the migration ends with its bytes.
 */
TEST_F(exec, a_copy_not_taken_is_made_by_the_cpu)
{
	struct migration mg = { .m = self->m, .gpu = self->g0 };
	struct drm_mvgal_stats a, b;
	struct mvgal *m2;
	pthread_t thr;
	int i;

	ASSERT_EQ(0, mvgal_open(&m2));
	ASSERT_EQ(0, mvgal_exec_register(m2, self->g0, 0));
	ASSERT_EQ(0, write_param(FORCE, "4"));
	ASSERT_EQ(0, host_bo(self->m, SIZE, &mg.h));
	ASSERT_EQ(0, bo_fill(self->m, mg.h, SIZE, 64));
	stats(self->m, &a);
	ASSERT_EQ(0, pthread_create(&thr, NULL, migrate_thread, &mg));
	for (i = 0; i < 500 && run("grep -q 'queued 1 taken 0' " EXECS); i++)
		usleep(10000);
	ASSERT_LT(i, 500);
	EXPECT_EQ(0, mvgal_exec_register(m2, self->g0, MVGAL_EXEC_UNREGISTER));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	EXPECT_EQ(1, mg.status);
	stats(self->m, &b);
	EXPECT_LE(1, b.exec_fallbacks - a.exec_fallbacks);
	EXPECT_EQ(a.exec_bytes, b.exec_bytes);
	mvgal_close(m2);
	ASSERT_EQ(0, write_param(FORCE, "-1"));
	in_pool(_metadata, self, mg.h, 64);
	mvgal_bo_destroy(self->m, mg.h);
}

/* Prices @src -> @dst's executor as cheapest (over measured figures). */
static int price_cheap(uint32_t src, uint32_t dst)
{
	char line[96];

	snprintf(line, sizeof(line), "%u %u %u 1 1000000000000", src, dst,
		 MVGAL_METHOD_EXEC);
	return write_param("/sys/kernel/debug/mvgal/path_cal", line);
}

/*
 * A calibration checks the executor's copy byte for byte and measures it
 * both ways; priced cheapest, the selector then picks it unforced. A new
 * registration is not priced until a calibration has checked it.
 */
TEST_F(exec, calibration_checks_and_prices_the_executor)
{
	const uint32_t host = MVGAL_LOC_HOST, gpu = 1 + self->g0;
	long long copies = execs_count("copies");
	struct drm_mvgal_stats a, b;
	struct drm_mvgal_path p;
	uint32_t h;

	self->pid = executor_start(_metadata, self->g0, COPY);
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(0, mvgal_get_path(self->m, host, gpu, 1 << 20, &p));
	EXPECT_EQ(0, p.exec_bandwidth);
	EXPECT_EQ(~0ULL, p.exec_cost_ns);
	/* Unmeasured, it does not take part: nothing forced picks it. */
	EXPECT_EQ(0, price_cheap(host, gpu));
	ASSERT_EQ(0, mvgal_get_path(self->m, host, gpu, 1 << 20, &p));
	EXPECT_NE(MVGAL_METHOD_EXEC, p.chosen);
	ASSERT_EQ(0, mvgal_calibrate(self->m, NULL));
	/* A check and two timings of 3 copies, each way. */
	EXPECT_LE(copies + 14, execs_count("copies"));
	ASSERT_EQ(0, mvgal_get_path(self->m, host, gpu, 1 << 20, &p));
	EXPECT_LT(0, p.exec_bandwidth);
	EXPECT_NE(~0ULL, p.exec_cost_ns);
	ASSERT_EQ(0, mvgal_get_path(self->m, gpu, host, 1 << 20, &p));
	EXPECT_LT(0, p.exec_bandwidth);
	ASSERT_EQ(0, price_cheap(host, gpu));
	ASSERT_EQ(0, mvgal_get_path(self->m, host, gpu, 1 << 20, &p));
	EXPECT_EQ(MVGAL_METHOD_EXEC, p.chosen);
	EXPECT_EQ(0, p.forced);
	EXPECT_EQ(1, p.measured);
	ASSERT_EQ(0, host_bo(self->m, SIZE, &h));
	ASSERT_EQ(0, bo_fill(self->m, h, SIZE, 81));
	stats(self->m, &a);
	ASSERT_EQ(1, migrate(self->m, h, 0, SIZE, gpu));
	stats(self->m, &b);
	EXPECT_LE(SIZE, b.exec_bytes - a.exec_bytes);
	in_pool(_metadata, self, h, 81);
	mvgal_bo_destroy(self->m, h);
	/* Another registration: its figures are not the last one's. */
	executor_stop(self->pid);
	self->pid = executor_start(_metadata, self->g0, COPY);
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(0, mvgal_get_path(self->m, host, gpu, 1 << 20, &p));
	EXPECT_EQ(0, p.exec_bandwidth);
	EXPECT_NE(MVGAL_METHOD_EXEC, p.chosen);
}

/* A calibration's check catches an executor that copies wrong. */
TEST_F(exec, calibration_catches_a_lying_executor)
{
	long long wrong = execs_count("wrong");
	struct drm_mvgal_path p;
	int st;

	self->pid = executor_start(_metadata, self->g0, GARBLE);
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(0, mvgal_calibrate(self->m, NULL));
	EXPECT_EQ(wrong + 1, execs_count("wrong"));
	EXPECT_FALSE(exec_possible(self->m, self->g0));
	ASSERT_EQ(0, mvgal_get_path(self->m, MVGAL_LOC_HOST, 1 + self->g0,
				    1 << 20, &p));
	EXPECT_EQ(0, p.exec_bandwidth);
	ASSERT_EQ(self->pid, waitpid(self->pid, &st, 0));
	self->pid = 0;
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
}

static void drop_cap_sys_admin(struct __test_metadata *_metadata)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	ASSERT_EQ(0, syscall(SYS_capget, &h, d));
	d[0].effective &= ~(1U << CAP_SYS_ADMIN);
	ASSERT_EQ(0, syscall(SYS_capset, &h, d));
}

/* Each rejection of EXEC_REGISTER, and that it changed nothing. */
TEST_F(exec, register_rejects_bad_input)
{
	struct drm_mvgal_exec_register r = { .gpu = self->g0 };
	struct mvgal *m2;

	EXPECT_EQ(-EINVAL, mvgal_exec_register(self->m, self->g0, 2));
	EXPECT_EQ(-EINVAL, mvgal_exec_register(self->m, MVGAL_MAX_GPUS, 0));
	EXPECT_EQ(-ENODEV, mvgal_exec_register(self->m, MVGAL_MAX_GPUS - 1, 0));
	EXPECT_EQ(-ENOENT, mvgal_exec_register(self->m, self->g0,
					       MVGAL_EXEC_UNREGISTER));
	/* A struct of another size. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOW(DRM_IOCTL_BASE, DRM_COMMAND_BASE +
					   DRM_MVGAL_EXEC_REGISTER, __u32), &r));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_FALSE(exec_possible(self->m, self->g0));
	/* One executor per GPU, from one file once. */
	ASSERT_EQ(0, mvgal_exec_register(self->m, self->g0, 0));
	EXPECT_EQ(-EBUSY, mvgal_exec_register(self->m, self->g0, 0));
	ASSERT_EQ(0, mvgal_open(&m2));
	EXPECT_EQ(-EBUSY, mvgal_exec_register(m2, self->g0, 0));
	EXPECT_EQ(-ENOENT, mvgal_exec_register(m2, self->g0,
					       MVGAL_EXEC_UNREGISTER));
	EXPECT_TRUE(exec_possible(self->m, self->g0));
	EXPECT_EQ(0, mvgal_exec_register(self->m, self->g0,
					 MVGAL_EXEC_UNREGISTER));
	EXPECT_FALSE(exec_possible(self->m, self->g0));
	/* Without CAP_SYS_ADMIN. */
	drop_cap_sys_admin(_metadata);
	EXPECT_EQ(-EPERM, mvgal_exec_register(m2, self->g0, 0));
	EXPECT_FALSE(exec_possible(self->m, self->g0));
	mvgal_close(m2);
}

/* Makes copy @t with the CPU, as an executor, and reports it. */
static int copy_and_report(struct mvgal *m, uint32_t gpu, uint8_t *pool,
			   const struct drm_mvgal_exec_take *t)
{
	int ret = serve_one(m, gpu, COPY, pool, t);

	close(t->host_fd);
	return ret;
}

/* EXEC_DONE with unknown flags, and with a struct of another size. */
static void done_raw_rejections(struct __test_metadata *_metadata,
				struct mvgal *m, uint32_t gpu, uint64_t job)
{
	struct drm_mvgal_exec_done d = {
		.gpu = gpu, .flags = 1, .job = job, .fence_fd = -1,
	};

	EXPECT_EQ(-1, ioctl(mvgal_fd(m), DRM_IOCTL_MVGAL_EXEC_DONE, &d));
	EXPECT_EQ(EINVAL, errno);
	d.flags = 0;
	EXPECT_EQ(-1, ioctl(mvgal_fd(m), _IOW(DRM_IOCTL_BASE, DRM_COMMAND_BASE +
					      DRM_MVGAL_EXEC_DONE, __u64[2]),
			    &d));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * As an executor on @m: makes taken copy @t, reports it (once only), then
 * every further copy until migration @mg has ended.
 */
static void serve_rest(struct __test_metadata *_metadata, struct mvgal *m,
		       uint32_t gpu, const struct drm_mvgal_exec_take *t,
		       struct migration *mg)
{
	uint8_t *pool = map_pool(mvgal_fd(m), gpu);
	struct drm_mvgal_exec_take t2;
	int r;

	ASSERT_NE(NULL, pool);
	ASSERT_EQ(0, copy_and_report(m, gpu, pool, t));
	EXPECT_EQ(-ENOENT, mvgal_exec_done(m, gpu, t->job, -1, 0));
	while (!__atomic_load_n(&mg->done, __ATOMIC_ACQUIRE)) {
		r = mvgal_exec_take(m, gpu, MVGAL_EXEC_TAKE_NONBLOCK, &t2);
		if (r == -EAGAIN) {
			usleep(1000);
			continue;
		}
		ASSERT_EQ(0, r);
		ASSERT_EQ(0, copy_and_report(m, gpu, pool, &t2));
	}
	munmap(pool, POOL_BYTES);
}

/*
 * Each rejection of EXEC_TAKE and EXEC_DONE, with a copy taken and not
 * reported: none of them loses it, and it then completes with its bytes.
 */
TEST_F(exec, take_and_done_reject_bad_input)
{
	struct drm_mvgal_exec_take t, t2;
	struct migration mg = { .m = self->m, .gpu = self->g0 };
	struct mvgal *m2;
	pthread_t thr;
	int pipefd[2];

	ASSERT_EQ(0, mvgal_open(&m2));
	EXPECT_EQ(-EPERM, mvgal_exec_take(self->m, self->g0,
					  MVGAL_EXEC_TAKE_NONBLOCK, &t));
	ASSERT_EQ(0, mvgal_exec_register(m2, self->g0, 0));
	EXPECT_EQ(-EINVAL, mvgal_exec_take(m2, self->g0, 2, &t));
	EXPECT_EQ(-EINVAL, mvgal_exec_take(m2, MVGAL_MAX_GPUS, 0, &t));
	EXPECT_EQ(-EAGAIN, mvgal_exec_take(m2, self->g0,
					   MVGAL_EXEC_TAKE_NONBLOCK, &t));
	EXPECT_EQ(-EPERM, mvgal_exec_take(self->m, self->g0,
					  MVGAL_EXEC_TAKE_NONBLOCK, &t));
	/* A copy in flight, taken by m2. */
	ASSERT_EQ(0, write_param(FORCE, "4"));
	ASSERT_EQ(0, host_bo(self->m, SIZE, &mg.h));
	ASSERT_EQ(0, bo_fill(self->m, mg.h, SIZE, 71));
	ASSERT_EQ(0, pthread_create(&thr, NULL, migrate_thread, &mg));
	/* A struct of another size takes nothing. */
	memset(&t, 0, sizeof(t));
	t.gpu = self->g0;
	EXPECT_EQ(-1, ioctl(mvgal_fd(m2), _IOWR(DRM_IOCTL_BASE,
		DRM_COMMAND_BASE + DRM_MVGAL_EXEC_TAKE, __u64[2]), &t));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, mvgal_exec_take(m2, self->g0, 0, &t));
	EXPECT_EQ(MVGAL_EXEC_TO_POOL, t.dir);
	EXPECT_LT(0, t.length);
	ASSERT_EQ(0, pipe(pipefd));
	EXPECT_EQ(-EINVAL, mvgal_exec_done(m2, self->g0, t.job, -1, 1));
	EXPECT_EQ(-EINVAL, mvgal_exec_done(m2, self->g0, t.job, -1, -5000));
	EXPECT_EQ(-EINVAL, mvgal_exec_done(m2, self->g0, t.job, pipefd[0], -EIO));
	EXPECT_EQ(-EINVAL, mvgal_exec_done(m2, self->g0, t.job, pipefd[0], 0));
	EXPECT_EQ(-EINVAL, mvgal_exec_done(m2, MVGAL_MAX_GPUS, t.job, -1, 0));
	EXPECT_EQ(-ENOENT, mvgal_exec_done(m2, self->g0, t.job + 1000, -1, 0));
	EXPECT_EQ(-EPERM, mvgal_exec_done(self->m, self->g0, t.job, -1, 0));
	done_raw_rejections(_metadata, m2, self->g0, t.job);
	close(pipefd[0]);
	close(pipefd[1]);
	/* Nothing was lost: the copy is still m2's to make. */
	EXPECT_EQ(-EAGAIN, mvgal_exec_take(m2, self->g0,
					   MVGAL_EXEC_TAKE_NONBLOCK, &t2));
	serve_rest(_metadata, m2, self->g0, &t, &mg);
	ASSERT_EQ(0, pthread_join(thr, NULL));
	EXPECT_EQ(1, mg.status);
	mvgal_close(m2);
	ASSERT_EQ(0, write_param(FORCE, "-1"));
	in_pool(_metadata, self, mg.h, 71);
	mvgal_bo_destroy(self->m, mg.h);
}

/*
 * An executor may poll its file instead of waiting in EXEC_TAKE: copies
 * that come to an empty queue send one DRM event, read() as DRM's, and
 * are then taken without waiting.
 */
TEST_F(exec, copies_make_the_executors_file_readable)
{
	struct migration mg = { .m = self->m, .gpu = self->g0 };
	struct drm_mvgal_event_exec ev;
	struct drm_mvgal_exec_take t;
	struct pollfd p;
	struct mvgal *m2;
	pthread_t thr;

	ASSERT_EQ(0, mvgal_open(&m2));
	ASSERT_EQ(0, mvgal_exec_register(m2, self->g0, 0));
	p = (struct pollfd){ .fd = mvgal_fd(m2), .events = POLLIN };
	EXPECT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(0, write_param(FORCE, "4"));
	ASSERT_EQ(0, host_bo(self->m, SIZE, &mg.h));
	ASSERT_EQ(0, bo_fill(self->m, mg.h, SIZE, 91));
	ASSERT_EQ(0, pthread_create(&thr, NULL, migrate_thread, &mg));
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_EQ(sizeof(ev), read(p.fd, &ev, sizeof(ev)));
	EXPECT_EQ(MVGAL_EVENT_EXEC_WORK, ev.base.type);
	EXPECT_EQ(sizeof(ev), ev.base.length);
	EXPECT_EQ(self->g0, ev.gpu);
	EXPECT_EQ(0, ev.pad);
	ASSERT_EQ(0, mvgal_exec_take(m2, self->g0, MVGAL_EXEC_TAKE_NONBLOCK, &t));
	serve_rest(_metadata, m2, self->g0, &t, &mg);
	ASSERT_EQ(0, pthread_join(thr, NULL));
	EXPECT_EQ(1, mg.status);
	mvgal_close(m2);
	ASSERT_EQ(0, write_param(FORCE, "-1"));
	in_pool(_metadata, self, mg.h, 91);
	mvgal_bo_destroy(self->m, mg.h);
}

TEST_HARNESS_MAIN
