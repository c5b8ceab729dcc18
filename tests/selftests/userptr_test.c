// SPDX-License-Identifier: GPL-2.0
/*
 * Registered user memory (BO_USERPTR): the application's own pages as a
 * buffer's host storage. Sessions see what the application wrote (every
 * named chunk, or only what it marks with MVGAL_USERPTR_MARKS); a GPU's
 * writes reach the application's memory when they come home; migrations,
 * eviction and exports work as for any buffer; RLIMIT_MEMLOCK bounds the
 * pinned pages; fork, MADV_DONTNEED, munmap and the process exiting leave
 * the buffer its pages; every rejection has its errno. Mirrored
 * registrations (MVGAL_USERPTR_MIRROR) pin nothing: each kernel event
 * on the range has its case, the bytes checked where the documented
 * rule puts them.
 */
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"
#include "../common/scm_fd.h"
#include "../common/wp_scan.h"

#define PG 4096UL
#define HVGV (MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID)

FIXTURE(uptr) {
	COH_FIELDS;
};

FIXTURE_SETUP(uptr)
{
	COH_SETUP(self);
}

/* The test hook of the window between planning and counting. */
#define DELAY "/sys/kernel/debug/mvgal/hmm_publish_delay"

/* NUMA balancing's knobs, and what a case that changed them found. */
#define BALANCING "/proc/sys/kernel/numa_balancing"
#define NUMAB "/sys/kernel/debug/sched/numa_balancing/"
static const char *const numab_knob[] = {
	BALANCING, NUMAB "scan_delay_ms", NUMAB "scan_period_min_ms",
	NUMAB "scan_period_max_ms",
};
static long numab_saved[4];
static bool numab_changed;

static void write_long(const char *path, long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%ld", v);
	write_param(path, b);
}

static void numab_restore(void)
{
	for (int i = 0; numab_changed && i < 4; i++)
		write_long(numab_knob[i], numab_saved[i]);
	numab_changed = false;
}

/* Reads an integer from @path into *@v: 0 or -1. */
static int read_long(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ret = f && fscanf(f, "%ld", v) == 1 ? 0 : -1;

	if (f)
		fclose(f);
	return ret;
}

/* The memory manager's knobs the compaction case sets, and what it found. */
static const char *const vm_knob[] = {
	"/proc/sys/vm/compaction_proactiveness",
	"/proc/sys/vm/percpu_pagelist_high_fraction",
};
static long vm_saved[ARRAY_SIZE(vm_knob)] = { -1, -1 };

static void vm_set(int i, long v)
{
	if (read_long(vm_knob[i], &vm_saved[i]))
		vm_saved[i] = -1;
	else
		write_long(vm_knob[i], v);
}

static void vm_restore(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(vm_knob); i++) {
		if (vm_saved[i] >= 0)
			write_long(vm_knob[i], vm_saved[i]);
		vm_saved[i] = -1;
	}
}

FIXTURE_TEARDOWN(uptr)
{
	/* A case that failed inside the window leaves it open. */
	if (!access(DELAY, W_OK))
		write_param(DELAY, "0 0");
	numab_restore();
	vm_restore();
	coh_teardown(self->m, self->pool);
}

/* Anonymous memory of @size bytes (pages), filled with pattern @s. */
static uint8_t *anon(size_t size, unsigned int s)
{
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	fill(p, size, s);
	return p;
}

static int reg(struct mvgal *m, void *p, uint64_t size, uint32_t flags,
	       uint32_t bo_flags, uint32_t *h)
{
	struct drm_mvgal_bo_userptr u = {
		.user_ptr = (uintptr_t)p, .size = size, .flags = flags,
		.bo_flags = bo_flags,
	};
	int ret = mvgal_bo_userptr(m, &u);

	*h = u.handle;
	return ret;
}

/* A READ session of the whole buffer on @gpu: its pool copy, or NULL. */
static uint8_t *read_on(struct __test_metadata *_metadata, struct mvgal *m,
			uint8_t **pool, uint32_t gpu, uint32_t h,
			uint64_t size, uint32_t *session)
{
	struct drm_mvgal_access a;
	uint64_t copied;
	int f;

	if (begin1(m, gpu, MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE, h, 0,
		   size, &a, session, &f, &copied) || settle(f))
		return NULL;
	return pool[a.pool_gpu] + a.pool_offset;
}

/*
 * The registration of pattern 1 at @p reads back (BO_PREAD), GPU @g's
 * session copy holds it, and a write through the application's own
 * mapping reaches the next session.
 */
static void sessions_see_the_application(struct __test_metadata *_metadata,
					 struct mvgal *m, uint8_t **pool,
					 uint32_t g, uint32_t h, uint8_t *p,
					 uint64_t size)
{
	uint8_t *gpu;
	uint32_t s;

	EXPECT_EQ(-1, bo_check(m, h, size, 1));
	gpu = read_on(_metadata, m, pool, g, h, size, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-1, check(gpu, size, 0, 1));
	ASSERT_EQ(0, mvgal_end(m, s, -1, NULL, 0));
	for (uint64_t i = 100; i < 3100; i++)
		p[i] = pat(i, 2);
	gpu = read_on(_metadata, m, pool, g, h, size, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(0, memcmp(gpu, p, size));
	ASSERT_EQ(0, mvgal_end(m, s, -1, NULL, 0));
}

/*
 * The buffer is the application's memory: BO_PREAD reads it, a session's
 * copy holds it, and a write through the application's own mapping
 * reaches the next session (every chunk named counts as written). A GPU's
 * writes reach the application's memory once migrated home.
 */
TEST_F(uptr, sessions_see_the_applications_writes_and_it_sees_theirs)
{
	const uint64_t size = 2 * CH + 5000, map = 2 * CH + 2 * PG;
	uint8_t *p = anon(map, 1), *mp;
	struct drm_mvgal_migrate mg = { .size = size, .in_fence_fd = -1 };
	struct drm_mvgal_access a;
	uint32_t h, s;
	uint64_t copied;
	int f;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, 0, HVGV, &h));
	sessions_see_the_application(_metadata, self->m, self->pool, self->g0,
				     h, p, size);
	/* A GPU writes chunk 1; MIGRATE home brings it to the application. */
	ASSERT_EQ(0, begin1(self->m, self->g1, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, CH, CH, &a, &s, &f,
			    &copied));
	ASSERT_EQ(0, settle(f));
	fill(self->pool[self->g1] + a.pool_offset + CH, CH, 3);
	ASSERT_EQ(0, end_written(self->m, s, h, CH, CH, -1));
	EXPECT_EQ(-1, check(p + CH, CH, CH, 1));
	mg.handle = h;
	mg.location = MVGAL_LOC_HOST;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	ASSERT_EQ(0, settle(mg.out_fence_fd));
	EXPECT_EQ(-1, check(p + CH, CH, 0, 3));
	EXPECT_EQ(-1, check(p + 2 * CH, size - 2 * CH, 2 * CH, 1));
	/* mvgal's own mapping of the buffer is the same memory. */
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&mp));
	EXPECT_EQ(0, memcmp(mp, p, size));
	mp[size - 1] ^= 0x5a;
	EXPECT_EQ(p[size - 1], mp[size - 1]);
	munmap(mp, size);
	mvgal_bo_destroy(self->m, h);
	munmap(p, map);
}

/*
 * The application rewrites its 2 chunks at @p (pattern 4 before) and
 * marks 3 bytes of the first: GPU @g's next copy has the first chunk's
 * new bytes and the second's old ones.
 */
static void marked_chunk_alone(struct __test_metadata *_metadata,
			       struct mvgal *m, uint8_t **pool, uint32_t g,
			       uint32_t h, uint8_t *p)
{
	uint8_t *gpu;
	uint32_t s;

	fill(p, 2 * CH, 5);
	ASSERT_EQ(0, mvgal_bo_mark(m, h, CH - 7, 3));
	gpu = read_on(_metadata, m, pool, g, h, 2 * CH, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-1, check(gpu, CH, 0, 5));
	EXPECT_EQ(-1, check(gpu + CH, CH, CH, 4));
	ASSERT_EQ(0, mvgal_end(m, s, -1, NULL, 0));
}

/*
 * MVGAL_USERPTR_MARKS: only what the application marks is copied again;
 * an unmarked write is not seen (as documented) until marked. BO_MARK's
 * rejections change nothing.
 */
TEST_F(uptr, marks_say_what_was_written)
{
	const uint64_t size = 2 * CH;
	uint8_t *p = anon(size, 4), *gpu;
	struct drm_mvgal_bo_mark mk = { .size = 10 };
	uint32_t h, h2, s;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MVGAL_USERPTR_MARKS, HVGV, &h));
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	ASSERT_NE(NULL, gpu);
	/* A live session uses the chunks: marking them is -EBUSY. */
	EXPECT_EQ(-EBUSY, mvgal_bo_mark(self->m, h, 0, 10));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	marked_chunk_alone(_metadata, self->m, self->pool, self->g0, h, p);
	ASSERT_EQ(0, mvgal_bo_mark(self->m, h, CH, CH));
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-1, check(gpu, size, 0, 5));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	/* Rejections. */
	mk.handle = h;
	mk.flags = 1u << 2;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	/* A registered buffer's pages are the application's: not for it. */
	mk.flags = MVGAL_MARK_OVERWRITE;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, mvgal_bo_overwrite(self->m, h, 0, 10));
	mk.flags = 0;
	mk.offset = size - 5;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	mk.offset = ~0ULL - 3;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	mk.offset = 0;
	mk.handle = h + 100;
	EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	EXPECT_EQ(-EINVAL, mvgal_bo_mark(self->m, h2, 0, 10));
	mvgal_bo_destroy(self->m, h2);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/*
 * An open file of @size bytes on a private ramfs mount: page cache that
 * is not shmem. The mount is detached at once; the file keeps it alive.
 */
static int ramfs_file(size_t size)
{
	char dir[] = "/tmp/mvgal-ramfs-XXXXXX", path[64];
	int fd = -1;

	if (!mkdtemp(dir))
		return -1;
	if (!mount("mvgal", dir, "ramfs", 0, NULL)) {
		snprintf(path, sizeof(path), "%s/f", dir);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0 && ftruncate(fd, size)) {
			close(fd);
			fd = -1;
		}
		umount2(dir, MNT_DETACH);
	}
	rmdir(dir);
	return fd;
}

/* Every refusal with its errno; nothing is registered by one. */
TEST_F(uptr, rejections)
{
	const uint64_t size = 4 * PG;
	uint8_t *p = anon(size, 6), *file, *bo_map;
	struct drm_mvgal_bo_userptr u;
	struct mvgal *m2;
	uint32_t h, h2;
	int fd;

	ASSERT_NE(NULL, p);
	struct { uint64_t ptr, size; uint32_t flags, bo_flags, sharing; int err; } bad[] = {
		{ (uintptr_t)p + 1, PG, 0, HVGV, 0, EINVAL },
		{ (uintptr_t)p, 0, 0, HVGV, 0, EINVAL },
		{ (uintptr_t)p, PG, 4, HVGV, 0, EINVAL },
		{ (uintptr_t)p, PG, 0, MVGAL_BO_GPU_VALID, 0, EINVAL },
		{ (uintptr_t)p, PG, 0, HVGV | MVGAL_BO_LAZY_ALLOCATE, 0, EINVAL },
		{ (uintptr_t)p, PG, 0, HVGV | MVGAL_BO_ZERO_INITIALIZED, 0, EINVAL },
		{ (uintptr_t)p, PG, 0, HVGV | MVGAL_BO_CPU_UNCACHED, 0, EINVAL },
		{ (uintptr_t)p, PG, 0, HVGV, MVGAL_SHARING_CROSS_VENDOR, EINVAL },
		{ ~0ULL & ~(PG - 1), 2 * PG, 0, HVGV, 0, EINVAL },
		{ 0x7ffffffff000ULL, 16 * PG, 0, HVGV, 0, EFAULT },
	};
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		u = (struct drm_mvgal_bo_userptr) {
			.user_ptr = bad[i].ptr, .size = bad[i].size,
			.flags = bad[i].flags, .bo_flags = bad[i].bo_flags,
			.sharing = bad[i].sharing,
		};
		EXPECT_EQ(-1, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_USERPTR, &u))
			TH_LOG("case %u", i);
		EXPECT_EQ(bad[i].err, errno) TH_LOG("case %u", i);
	}
	/* A hole in the range. */
	ASSERT_EQ(0, munmap(p + PG, PG));
	EXPECT_EQ(-EFAULT, reg(self->m, p, size, 0, HVGV, &h));
	ASSERT_EQ(p + PG, mmap(p + PG, PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	/*
	 * Not ordinary memory: a file's page cache (on ramfs, since the
	 * test guest's own root is tmpfs, which is shmem and allowed), an
	 * mvgal buffer's mapping.
	 */
	fd = ramfs_file(PG);
	ASSERT_LE(0, fd);
	file = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, file);
	EXPECT_EQ(-EINVAL, reg(self->m, file, PG, 0, HVGV, &h));
	munmap(file, PG);
	ASSERT_EQ(0, host_bo(self->m, 2 * PG, &h2));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h2, (void **)&bo_map));
	EXPECT_EQ(-EINVAL, reg(self->m, bo_map, 2 * PG, 0, HVGV, &h));
	munmap(bo_map, 2 * PG);
	mvgal_bo_destroy(self->m, h2);
	/* Overlapping registrations of one file; another file may. */
	ASSERT_EQ(0, reg(self->m, p, 2 * PG, 0, HVGV, &h));
	EXPECT_EQ(-EEXIST, reg(self->m, p + PG, 2 * PG, 0, HVGV, &h2));
	ASSERT_EQ(0, mvgal_open(&m2));
	ASSERT_EQ(0, reg(m2, p + PG, 2 * PG, 0, HVGV, &h2));
	mvgal_bo_destroy(m2, h2);
	mvgal_close(m2);
	/* Another process on the same file: its own memory, so it may. */
	{
		int st;
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			static uint8_t back[2 * PG];

			if (reg(self->m, p + PG, 2 * PG, 0, HVGV, &h2))
				_exit(1);
			if (mvgal_bo_read(self->m, h2, 0, back, 2 * PG) ||
			    memcmp(back, p + PG, 2 * PG))
				_exit(2);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		EXPECT_EQ(0, WEXITSTATUS(st));
	}
	ASSERT_EQ(0, reg(self->m, p + 2 * PG, 2 * PG, 0, HVGV, &h2));
	mvgal_bo_destroy(self->m, h);
	ASSERT_EQ(0, reg(self->m, p, 2 * PG, 0, HVGV, &h));
	mvgal_bo_destroy(self->m, h);
	mvgal_bo_destroy(self->m, h2);
	munmap(p, size);
}

/* Drops CAP_IPC_LOCK from this process's effective set. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct hd = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hd, d))
		return -1;
	d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	return syscall(SYS_capset, &hd, d);
}

/*
 * Without CAP_IPC_LOCK, RLIMIT_MEMLOCK bounds what a process registers:
 * 16 pages fit a 64 KiB limit, one more is -ENOMEM; freeing a buffer
 * gives its pages back to the limit.
 */
TEST_F(uptr, memlock_limit_bounds_registrations)
{
	int st;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 64 << 10, 64 << 10 };
		uint8_t *p = anon(17 * PG, 7);
		struct mvgal *m;
		uint32_t h, h2;

		if (!p || drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    mvgal_open(&m))
			_exit(10);
		if (reg(m, p, 16 * PG, 0, HVGV, &h))
			_exit(11);
		if (reg(m, p + 16 * PG, PG, 0, HVGV, &h2) != -ENOMEM)
			_exit(12);
		mvgal_bo_destroy(m, h);
		if (reg(m, p + 16 * PG, PG, 0, HVGV, &h2))
			_exit(13);
		{
			uint8_t back[PG];

			if (mvgal_bo_read(m, h2, 0, back, PG) ||
			    memcmp(back, p + 16 * PG, PG))
				_exit(14);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

#define CG "/sys/fs/cgroup"
#define CG_U CG "/mvgal-userptr"

/* This process, in a new memory cgroup of its own (cgroup v2). */
static int cg_enter_new(void)
{
	char pid[32];

	mkdir(CG, 0755);
	if (access(CG "/cgroup.controllers", F_OK) &&
	    mount("none", CG, "cgroup2", 0, NULL))
		return -1;
	if (write_param(CG "/cgroup.subtree_control", "+memory"))
		return -1;
	rmdir(CG_U);
	if (mkdir(CG_U, 0755))
		return -1;
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_param(CG_U "/cgroup.procs", pid);
}

/* The kB of line @key (with its colon) of /proc/self/@file, or -1. */
static long proc_kb(const char *file, const char *key)
{
	char path[64], line[128];
	size_t n = strlen(key);
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && sscanf(line + n, "%ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* The caller's pinned memory (VmPin) in KiB, or -1. */
static long vmpin_kb(void)
{
	return proc_kb("status", "VmPin:");
}

/*
 * A registration beyond RLIMIT_MEMLOCK is refused before anything is
 * made for it. 16 GiB of address space, reserved and never touched, is
 * a range every earlier check accepts (mapped throughout, anonymous);
 * with a 1 MiB limit and no CAP_IPC_LOCK it is -ENOMEM, eight times. A
 * list of its pages would be 32 MiB, charged to the caller's memory
 * cgroup: the cgroup's peak usage shows whether one was made, so the
 * child runs in a new cgroup and its peak stays within 2 MiB of where it
 * was before the calls. Nothing stays charged to the limit (VmPin), and
 * a registration within it still works.
 */
TEST_F(uptr, a_registration_beyond_the_limit_allocates_nothing)
{
	int st;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		const uint64_t huge = 16ULL << 30;
		struct rlimit rl = { 1 << 20, 1 << 20 };
		uint8_t *p = anon(16 * PG, 13), *r;
		long long before, after;
		struct mvgal *m;
		uint32_t h;

		r = mmap(NULL, huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_NORESERVE, -1, 0);
		if (!p || r == MAP_FAILED || cg_enter_new() || drop_ipc_lock() ||
		    setrlimit(RLIMIT_MEMLOCK, &rl) || mvgal_open(&m))
			_exit(10);
		before = read_ll(CG_U "/memory.peak");
		for (int i = 0; i < 8; i++)
			if (reg(m, r, huge, 0, HVGV, &h) != -ENOMEM)
				_exit(11);
		after = read_ll(CG_U "/memory.peak");
		fprintf(stderr, "# peak %lld -> %lld bytes\n", before, after);
		if (before < 0 || after - before > (2LL << 20))
			_exit(12);
		if (vmpin_kb() != 0)
			_exit(13);
		if (reg(m, p, 16 * PG, 0, HVGV, &h) || bo_check(m, h, 16 * PG, 13) != -1)
			_exit(14);
		mvgal_bo_destroy(m, h);
		mvgal_close(m);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	rmdir(CG_U);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/*
 * The buffer keeps the pages it pinned: a forked child's writes go to
 * its own copies; after MADV_DONTNEED the application's range is new
 * (zero) memory while the buffer still holds the old bytes; after
 * munmap() the buffer still reads and reaches a GPU.
 */
TEST_F(uptr, fork_madvise_and_munmap_leave_the_buffer_its_pages)
{
	const uint64_t size = 4 * PG;
	uint8_t *p = anon(size, 8), *gpu, back[PG];
	uint32_t h, s;
	int st;
	pid_t pid;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, 0, HVGV, &h));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		fill(p, size, 9);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(-1, check(p, size, 0, 8));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 8));
	/* The parent's writes still reach the buffer. */
	fill(p, PG, 10);
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-1, check(gpu, PG, 0, 10));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, madvise(p + PG, PG, MADV_DONTNEED));
	EXPECT_EQ(0, p[PG]);
	EXPECT_EQ(0, p[2 * PG - 1]);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, PG, back, PG));
	EXPECT_EQ(-1, check(back, PG, PG, 8));
	ASSERT_EQ(0, munmap(p, size));
	gpu = read_on(_metadata, self->m, self->pool, self->g1, h, size, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-1, check(gpu, PG, 0, 10));
	EXPECT_EQ(-1, check(gpu + PG, size - PG, PG, 8));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	mvgal_bo_destroy(self->m, h);
}

/*
 * A process registers its memory, exports the buffer as a dma-buf, hands
 * it over and exits (with a session live on another buffer of its own):
 * the pages outlive it, and the importer reads the bytes it left. PRIME
 * import into vgem works too.
 */
TEST_F(uptr, the_pages_outlive_the_process_that_registered_them)
{
	const uint64_t size = CH + 3 * PG;
	int sv[2], dfd, st, vgem;
	uint32_t h, vh;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint8_t *p = anon(size, 11), *q = anon(2 * PG, 12);
		struct mvgal *m;
		uint32_t hc, hq, s;
		int fd;

		if (!p || !q || mvgal_open(&m))
			_exit(10);
		if (reg(m, p, size, 0, HVGV | MVGAL_BO_DMA_BUF, &hc) != -EINVAL)
			_exit(11);
		{
			struct drm_mvgal_bo_userptr u = {
				.user_ptr = (uintptr_t)p, .size = size,
				.bo_flags = HVGV | MVGAL_BO_DMA_BUF |
					    MVGAL_BO_SHARED,
				.sharing = MVGAL_SHARING_CROSS_VENDOR,
			};

			if (mvgal_bo_userptr(m, &u))
				_exit(12);
			hc = u.handle;
		}
		if (mvgal_bo_export(m, hc, &fd) || send_fd(sv[1], fd))
			_exit(13);
		{
			struct drm_mvgal_access a;
			uint64_t cp;
			int f;

			if (reg(m, q, 2 * PG, 0, HVGV, &hq) ||
			    begin1(m, self->g0, MVGAL_ACCESS_READ, hq, 0,
				   2 * PG, &a, &s, &f, &cp))
				_exit(14);
		}
		_exit(0);	/* exits with all of it held */
	}
	dfd = recv_fd(sv[0]);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	ASSERT_EQ(0, mvgal_bo_import(self->m, dfd, &h));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 11));
	vgem = open_card("vgem", NULL, 0);
	ASSERT_LE(0, vgem);
	EXPECT_EQ(0, drmPrimeFDToHandle(vgem, dfd, &vh));
	close(vgem);
	close(dfd);
	close(sv[0]);
	close(sv[1]);
	mvgal_bo_destroy(self->m, h);
}

/*
 * The last reference of a registered buffer may go in munmap() of
 * mvgal's mapping of it, with the mmap lock held (the first version's
 * end took that lock to uncharge, and hung): the charge comes back
 * (VmPin) and the range may be registered again.
 */
TEST_F(uptr, the_last_reference_may_go_in_munmap)
{
	const uint64_t size = 3 * PG + 100;
	uint8_t *p = anon(4 * PG, 14), *mp;
	long lck0 = vmpin_kb();
	uint32_t h;

	ASSERT_NE(NULL, p);
	ASSERT_LE(0, lck0);
	ASSERT_EQ(0, reg(self->m, p, size, 0, HVGV, &h));
	EXPECT_EQ(lck0 + 16, vmpin_kb());
	ASSERT_EQ(0, mvgal_bo_map(self->m, h, (void **)&mp));
	EXPECT_EQ(0, memcmp(mp, p, size));
	mvgal_bo_destroy(self->m, h);
	ASSERT_EQ(0, munmap(mp, size));
	/* The end runs in a worker: wait for it, for 10 s at most. */
	for (int i = 0; i < 1000 && vmpin_kb() != lck0; i++)
		usleep(10000);
	EXPECT_EQ(lck0, vmpin_kb());
	ASSERT_EQ(0, reg(self->m, p, size, 0, HVGV, &h));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 14));
	mvgal_bo_destroy(self->m, h);
	munmap(p, 4 * PG);
}

/*
 * A buffer whose last reference goes while GPU work on it is pending (a
 * session ended with a vgem fence) keeps its pages pinned, and charged,
 * until that work is done; but its range may be registered again at
 * once: the new registration is another buffer with the same pages.
 */
TEST_F(uptr, a_range_is_free_again_when_its_buffer_goes)
{
	const uint64_t size = CH + 2 * PG;
	uint8_t *p = anon(size, 15), *gpu;
	long pin0 = vmpin_kb(), kb = (long)(size >> 10);
	struct vfence vf;
	uint32_t h, s;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, 0, HVGV, &h));
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	ASSERT_NE(NULL, gpu);
	ASSERT_EQ(0, vfence_new(&vf));
	ASSERT_EQ(0, mvgal_end(self->m, s, vf.fd, NULL, 0));
	mvgal_bo_destroy(self->m, h);
	ASSERT_EQ(0, reg(self->m, p, size, 0, HVGV, &h));
	EXPECT_EQ(pin0 + 2 * kb, vmpin_kb());	/* both until the work ends */
	vfence_signal(&vf);
	for (int i = 0; i < 1000 && vmpin_kb() != pin0 + kb; i++)
		usleep(10000);
	EXPECT_EQ(pin0 + kb, vmpin_kb());
	EXPECT_EQ(-1, bo_check(self->m, h, size, 15));
	vfence_free(&vf);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/*
 * Eviction writes a GPU-only copy home, into the application's pages:
 * after a MOVE to GPU 0 and a GPU write, another buffer takes the pool
 * and the application reads the GPU's bytes in its own memory.
 */
TEST_F(uptr, eviction_brings_the_gpus_bytes_into_the_applications_memory)
{
	const uint64_t size = 2 * CH;
	uint8_t *p = anon(size, 13);
	struct drm_mvgal_migrate mg = {
		.size = size, .flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
	};
	struct drm_mvgal_access a;
	uint64_t budget = 2 * CH, whole = 0, copied;
	uint32_t h, h2, s;
	int f;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, 0, HVGV, &h));
	ASSERT_EQ(0, mvgal_gpu_budget(self->m, self->g0, MVGAL_BUDGET_SET,
				      &budget, NULL));
	mg.handle = h;
	mg.location = 1 + self->g0;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	ASSERT_EQ(0, settle(mg.out_fence_fd));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE |
			    MVGAL_ACCESS_NO_IN_PLACE, h, 0, size, &a, &s, &f,
			    &copied));
	ASSERT_EQ(0, settle(f));
	fill(self->pool[self->g0] + a.pool_offset, size, 14);
	ASSERT_EQ(0, end_written(self->m, s, h, 0, size, -1));
	EXPECT_EQ(-1, check(p, size, 0, 13));
	/* Another buffer needs the whole pool budget. */
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_READ |
			    MVGAL_ACCESS_NO_IN_PLACE, h2, 0, size, &a, &s, &f,
			    &copied));
	ASSERT_EQ(0, settle(f));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	EXPECT_EQ(-1, check(p, size, 0, 14));
	mvgal_gpu_budget(self->m, self->g0, MVGAL_BUDGET_SET, &whole, NULL);
	mvgal_bo_destroy(self->m, h2);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/* Bytes [off, off + n) of @h equal @want: -1, or the first that differs. */
static long bo_check_at(struct mvgal *m, uint32_t h, uint64_t off, uint64_t n,
			const uint8_t *want)
{
	uint8_t *back = malloc(n);
	long ret = -2;

	if (back && !mvgal_bo_read(m, h, off, back, n)) {
		ret = -1;
		for (uint64_t i = 0; i < n && ret == -1; i++)
			if (back[i] != want[i])
				ret = (long)i;
	}
	free(back);
	return ret;
}

/*
 * Mirrored registrations (MVGAL_USERPTR_MIRROR): nothing pinned, the
 * pages faulted in while copies run; what the kernel does to the range
 * counts as the application's write.
 */
#define MIR MVGAL_USERPTR_MIRROR

/* Moves [off, off + size) of @h to @loc (MVGAL_LOC_HOST or 1 + GPU). */
static int move_to(struct mvgal *m, uint32_t h, uint32_t loc, uint64_t off,
		   uint64_t size)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .location = loc, .offset = off, .size = size,
		.in_fence_fd = -1,
	};
	int ret = mvgal_migrate(m, &mg);

	return ret ?: settle(mg.out_fence_fd);
}

/*
 * A session (@flags) of GPU @g on [off, off + size) of @h, in its own
 * pool: where byte @off is there once its copies are done, or NULL.
 */
static uint8_t *session_on(struct mvgal *m, uint8_t **pool, uint32_t g,
			   uint32_t flags, uint32_t h, uint64_t off,
			   uint64_t size, uint32_t *sess)
{
	struct drm_mvgal_access a;
	uint64_t copied;
	int f;

	if (begin1(m, g, flags | MVGAL_ACCESS_NO_IN_PLACE, h, off, size, &a,
		   sess, &f, &copied) || settle(f))
		return NULL;
	return pool[a.pool_gpu] + a.pool_offset + off;
}

/* GPU @g writes pattern @s over [off, off + size) of @h: its copy alone. */
static int gpu_writes(struct __test_metadata *_metadata, struct mvgal *m,
		      uint8_t **pool, uint32_t g, uint32_t h, uint64_t off,
		      uint64_t size, unsigned int s)
{
	uint32_t sess;
	uint8_t *at = session_on(m, pool, g, MVGAL_ACCESS_WRITE, h, off, size,
				 &sess);

	if (!at)
		return -1;
	for (uint64_t i = 0; i < size; i++)
		at[i] = pat(off + i, s);
	return end_written(m, sess, h, off, size, -1);
}

/* GPU @g's copy of [off, off + size) of @h, through a READ session. */
static long gpu_check(struct __test_metadata *_metadata, struct mvgal *m,
		      uint8_t **pool, uint32_t g, uint32_t h, uint64_t off,
		      uint64_t size, unsigned int s)
{
	uint32_t sess;
	uint8_t *at = session_on(m, pool, g, MVGAL_ACCESS_READ, h, off, size,
				 &sess);
	long ret;

	if (!at)
		return -2;
	ret = check(at, size, off, s);
	mvgal_end(m, sess, -1, NULL, 0);
	return ret;
}

/*
 * The first case again, mirrored: BO_PREAD reads the application's
 * memory, sessions see its writes, a GPU's writes come home into it;
 * nothing is pinned; mvgal's own mapping is refused (the application
 * has one).
 */
TEST_F(uptr, mirror_sessions_see_the_applications_writes_and_it_sees_theirs)
{
	const uint64_t size = 2 * CH + 5000, map = 2 * CH + 2 * PG;
	uint8_t *p = anon(map, 1), *mp;
	long pin0 = vmpin_kb();
	uint32_t h, h2;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR, HVGV, &h));
	EXPECT_EQ(pin0, vmpin_kb());
	sessions_see_the_application(_metadata, self->m, self->pool, self->g0,
				     h, p, size);
	/* GPU 1 writes chunk 1 from an odd offset; it comes home. */
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g1, h,
				CH + 300, CH - 300, 3));
	EXPECT_EQ(-1, check(p + CH, CH, CH, 1));
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-1, check(p + CH, 300, CH, 1));
	EXPECT_EQ(-1, check(p + CH + 300, CH - 300, CH + 300, 3));
	EXPECT_EQ(-1, check(p + 2 * CH, size - 2 * CH, 2 * CH, 1));
	EXPECT_EQ(pin0, vmpin_kb());
	EXPECT_EQ(-EOPNOTSUPP, mvgal_bo_map(self->m, h, (void **)&mp));
	/*
	 * BO_COPY out of it and into it once its pages were let go: the
	 * bytes of the application's memory, both ways, from odd offsets.
	 */
	usleep(300000);
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_EQ(0, mvgal_bo_copy(self->m, h2, 7, h, 7, size - 7));
	EXPECT_EQ(-1, bo_check_at(self->m, h2, 7, size - 7, p + 7));
	fill(p, size, 4);
	usleep(300000);
	ASSERT_EQ(0, bo_fill(self->m, h2, size, 5));
	ASSERT_EQ(0, mvgal_bo_copy(self->m, h, CH + 3, h2, CH + 3, 999));
	EXPECT_EQ(-1, check(p + CH + 3, 999, CH + 3, 5));
	EXPECT_EQ(-1, check(p, CH + 3, 0, 4));
	EXPECT_EQ(-1, check(p + CH + 1002, size - CH - 1002, CH + 1002, 4));
	mvgal_bo_destroy(self->m, h2);
	mvgal_bo_destroy(self->m, h);
	munmap(p, map);
}

/* MARKS with a mirror: only marked chunks are copied again. */
TEST_F(uptr, mirror_marks_say_what_was_written)
{
	const uint64_t size = 2 * CH;
	uint8_t *p = anon(size, 4), *gpu;
	uint32_t h, s;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR | MVGAL_USERPTR_MARKS, HVGV, &h));
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-1, check(gpu, size, 0, 4));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	marked_chunk_alone(_metadata, self->m, self->pool, self->g0, h, p);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/* Every refusal of a mirror with its errno; what it accepts works. */
TEST_F(uptr, mirror_rejections)
{
	const uint64_t size = 3 * PG;
	uint8_t *p = anon(4 * PG, 6), *q, *mp;
	uint32_t h, h2, h3;
	int fd;

	ASSERT_NE(NULL, p);
	EXPECT_EQ(-EINVAL, reg(self->m, p, size, MIR | 4, HVGV, &h));
	EXPECT_EQ(-EOPNOTSUPP, reg(self->m, p, size, MIR,
				   HVGV | MVGAL_BO_DMA_BUF, &h));
	EXPECT_EQ(-EOPNOTSUPP, reg(self->m, p, size, MIR,
				   HVGV | MVGAL_BO_P2P, &h));
	ASSERT_EQ(0, mprotect(p + PG, PG, PROT_READ));
	EXPECT_EQ(-EFAULT, reg(self->m, p, size, MIR, HVGV, &h));
	ASSERT_EQ(0, mprotect(p + PG, PG, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, munmap(p + 3 * PG, PG));
	EXPECT_EQ(-EFAULT, reg(self->m, p, 4 * PG, MIR, HVGV, &h));
	fd = ramfs_file(size);
	ASSERT_LE(0, fd);
	q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(-EINVAL, reg(self->m, q, size, MIR, HVGV, &h));
	munmap(q, size);
	/* A private file mapping is copied on write: accepted. */
	q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, q);
	fill(q, size, 7);
	ASSERT_EQ(0, reg(self->m, q, size, MIR, HVGV, &h2));
	EXPECT_EQ(-1, bo_check(self->m, h2, size, 7));
	mvgal_bo_destroy(self->m, h2);
	munmap(q, size);
	close(fd);
	ASSERT_EQ(0, reg(self->m, p, size, MIR, HVGV, &h));
	EXPECT_EQ(-EEXIST, reg(self->m, p + PG, PG, MIR, HVGV, &h2));
	EXPECT_EQ(-EEXIST, reg(self->m, p + PG, PG, 0, HVGV, &h2));
	EXPECT_EQ(-EOPNOTSUPP, mvgal_bo_map(self->m, h, (void **)&mp));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 6));
	/* An mvgal buffer's mapping is no memory to follow. */
	ASSERT_EQ(0, host_bo(self->m, 2 * PG, &h2));
	ASSERT_EQ(0, mvgal_bo_map(self->m, h2, (void **)&mp));
	EXPECT_EQ(-EINVAL, reg(self->m, mp, 2 * PG, MIR, HVGV, &h3));
	munmap(mp, 2 * PG);
	mvgal_bo_destroy(self->m, h2);
	mvgal_bo_destroy(self->m, h);
	munmap(p, 3 * PG);
}

/*
 * No memlock limit for a mirror: with the default 8 MiB limit and no
 * CAP_IPC_LOCK, a process registers 48 MiB of its memory (pinned, the
 * same is -ENOMEM), has GPU 0 read and rewrite all of it in 16 MiB
 * windows, and reads the GPU's bytes in its own memory; VmPin stays 0.
 */
TEST_F(uptr, mirror_beyond_an_8_mib_memlock_limit)
{
	int st;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		const uint64_t size = 48ULL << 20, win = 16ULL << 20;
		struct rlimit rl = { 8 << 20, 8 << 20 };
		uint8_t *p = anon(size, 21);
		struct mvgal *m;
		uint32_t h, h2;

		if (!p || drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    mvgal_open(&m))
			_exit(10);
		if (reg(m, p, size, 0, HVGV, &h2) != -ENOMEM)
			_exit(11);
		if (reg(m, p, size, MIR, HVGV, &h) || vmpin_kb() != 0)
			_exit(12);
		for (uint64_t off = 0; off < size; off += win) {
			if (gpu_check(_metadata, m, self->pool, self->g0, h,
				      off, win, 21) != -1)
				_exit(13);
			if (gpu_writes(_metadata, m, self->pool, self->g0, h,
				       off, win, 22) ||
			    move_to(m, h, MVGAL_LOC_HOST, off, win))
				_exit(14);
		}
		if (check(p, size, 0, 22) != -1 || vmpin_kb() != 0)
			_exit(15);
		mvgal_bo_destroy(m, h);
		mvgal_close(m);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/*
 * munmap: a chunk the GPU held with home loses the GPU's copy; a chunk a
 * GPU holds alone stays its own (a call that would bring it home is
 * -EFAULT, and the GPU still reads it) until the range maps memory again,
 * when it comes home into that memory.
 */
TEST_F(uptr, mirror_munmap_keeps_the_gpus_chunks_until_memory_is_back)
{
	const uint64_t size = 2 * CH;
	uint8_t *p = anon(size, 30), *q, back[64];
	uint32_t h;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR, HVGV, &h));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				0, CH, 30));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g1, h,
				CH, CH, 31));
	ASSERT_EQ(0, munmap(p, size));
	EXPECT_EQ(-EFAULT, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-EFAULT, mvgal_bo_read(self->m, h, CH, back, sizeof(back)));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g1, h,
				CH, CH, 31));
	q = mmap(p, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(p, q);
	fill(q, size, 32);
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-1, check(q, CH, 0, 32));
	EXPECT_EQ(-1, check(q + CH, CH, CH, 31));
	/* GPU 0's old copy of chunk 0 was dropped: it reads the new bytes. */
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				0, CH, 32));
	mvgal_bo_destroy(self->m, h);
	munmap(q, size);
}

/*
 * MADV_DONTNEED: the range reads zeroes, and so does what a GPU is given
 * next (its copy of before is dropped); a chunk the GPU held alone comes
 * home into the zeroed range.
 */
TEST_F(uptr, mirror_dontneed_zeroes_and_the_gpu_follows)
{
	const uint64_t size = 2 * CH + 3 * PG;
	uint8_t *p = anon(size, 33), zero[CH], *gpu;
	uint32_t h, s;

	memset(zero, 0, sizeof(zero));
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR | MVGAL_USERPTR_MARKS, HVGV, &h));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				0, size, 33));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				CH, CH, 34));
	ASSERT_EQ(0, madvise(p, size, MADV_DONTNEED));
	/* Marks were promised, none made: the kernel's change is seen. */
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, CH, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(0, memcmp(gpu, zero, CH));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(0, memcmp(p, zero, CH));
	EXPECT_EQ(-1, check(p + CH, CH, CH, 34));
	EXPECT_EQ(0, p[2 * CH]);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/*
 * An invalidation while what a call planned on a mirror does not count
 * yet: the debugfs hook makes the buffer's calls sleep there, and a
 * thread of the test empties the range (MADV_DONTNEED) once one does.
 */

/* Sleeps begun in the window so far, or -1. */
static long window_sleeps(void)
{
	FILE *f = fopen(DELAY, "r");
	unsigned long long id;
	unsigned int ms;
	long n = -1;

	if (f && fscanf(f, "%llu %u %ld", &id, &ms, &n) != 3)
		n = -1;
	if (f)
		fclose(f);
	return n;
}

struct racer {
	pthread_t t;
	uint8_t *p;
	size_t len;
	long base;
	int ret;
};

static void *racer_run(void *arg)
{
	struct racer *r = arg;

	r->ret = -1;
	for (int i = 0; i < 5000; i++) {
		if (window_sleeps() > r->base) {
			r->ret = madvise(r->p, r->len, MADV_DONTNEED);
			break;
		}
		usleep(1000);
	}
	return NULL;
}

/*
 * The calls on @h sleep 3 s in the window from now on (a loaded guest
 * may take a while to run the racer); @r empties @p once the first does.
 */
static int racer_start(struct racer *r, struct mvgal *m, uint32_t h,
		       uint8_t *p, size_t len)
{
	struct drm_mvgal_bo_info i;
	char cmd[48];

	r->p = p;
	r->len = len;
	r->base = window_sleeps();
	if (r->base < 0 || mvgal_bo_info(m, h, &i))
		return -1;
	snprintf(cmd, sizeof(cmd), "%llu 3000", (unsigned long long)i.id);
	if (write_param(DELAY, cmd))
		return -1;
	if (!pthread_create(&r->t, NULL, racer_run, r))
		return 0;
	write_param(DELAY, "0 0");
	return -1;
}

/* Sleeps in the window since racer_start(), the hook off again. */
static long racer_stop(struct racer *r)
{
	pthread_join(r->t, NULL);
	write_param(DELAY, "0 0");
	return window_sleeps() - r->base;
}

/* Pattern @s in @map bytes, the first @size registered mirrored with marks. */
static uint8_t *marked_mirror(struct mvgal *m, uint64_t map, uint64_t size,
			      unsigned int s, uint32_t *h)
{
	uint8_t *p = anon(map, s);

	if (p && reg(m, p, size, MIR | MVGAL_USERPTR_MARKS, HVGV, h)) {
		munmap(p, map);
		p = NULL;
	}
	return p;
}

/*
 * The invalidation comes after the planning and before what was planned
 * counts: it never counts, and the call runs again on what the range
 * maps now (two sleeps). Otherwise a GPU's chunk would come home into
 * the emptied pages and be lost, a GPU would keep the bytes of before as
 * current, or a session would go live on a copy the states no longer
 * hold, and its writes be dropped at END. Each way a call makes what it
 * planned count: a job of a MIGRATE, of a BEGIN, a BO_PREAD's own copy
 * home, and a BEGIN that copies nothing.
 */
TEST_F_TIMEOUT(uptr, mirror_invalidation_before_the_copies_count, 180)
{
	const uint64_t size = CH + 5000, map = CH + 2 * PG;
	uint8_t zero[CH], back[CH + 5000], *p, *gpu;
	struct racer r;
	uint32_t h, s;

	memset(zero, 0, sizeof(zero));
	if (access(DELAY, W_OK))
		SKIP(return, "no %s", DELAY);
	/* MIGRATE home: chunk 1 the GPU's alone, chunk 0 also home's. */
	p = marked_mirror(self->m, map, size, 50, &h);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				0, CH, 50));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				CH, size - CH, 51));
	ASSERT_EQ(0, racer_start(&r, self->m, h, p, map));
	EXPECT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_LE(2, racer_stop(&r));
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(0, memcmp(p, zero, CH));
	EXPECT_EQ(-1, check(p + CH, size - CH, CH, 51));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				CH, size - CH, 51));
	mvgal_bo_destroy(self->m, h);
	munmap(p, map);

	/* BEGIN: home to a GPU; the session and the next see the zeroes. */
	p = marked_mirror(self->m, map, size, 52, &h);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, racer_start(&r, self->m, h, p, map));
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	EXPECT_LE(2, racer_stop(&r));
	ASSERT_EQ(0, r.ret);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(0, memcmp(gpu, zero, CH));
	EXPECT_EQ(0, memcmp(gpu + CH, zero, size - CH));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(0, memcmp(gpu, p, size));
	EXPECT_EQ(0, memcmp(gpu + CH, zero, size - CH));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	mvgal_bo_destroy(self->m, h);
	munmap(p, map);

	/* BO_PREAD: its copy of the GPU's chunk home, made on the spot. */
	p = marked_mirror(self->m, map, size, 53, &h);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				0, CH, 53));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				CH + 7, size - CH - 7, 54));
	ASSERT_EQ(0, racer_start(&r, self->m, h, p, map));
	EXPECT_EQ(0, mvgal_bo_read(self->m, h, 3, back, size - 3));
	EXPECT_LE(2, racer_stop(&r));
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(0, memcmp(back, zero, CH - 3));
	EXPECT_EQ(-1, check(back + CH - 3, 7, CH, 53));
	EXPECT_EQ(-1, check(back + CH + 4, size - CH - 7, CH + 7, 54));
	EXPECT_EQ(0, memcmp(p + 3, back, size - 3));
	mvgal_bo_destroy(self->m, h);
	munmap(p, map);

	/*
	 * A WRITE BEGIN that copies nothing (GPU 0 holds every chunk, and
	 * so does home): it goes live on the zeroes it copies on its
	 * second run, and the GPU's writes come home at END's bidding.
	 */
	p = marked_mirror(self->m, map, size, 55, &h);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				0, size, 55));
	ASSERT_EQ(0, racer_start(&r, self->m, h, p, map));
	gpu = session_on(self->m, self->pool, self->g0, MVGAL_ACCESS_WRITE, h,
			 0, size, &s);
	EXPECT_LE(2, racer_stop(&r));
	ASSERT_EQ(0, r.ret);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(0, memcmp(gpu, zero, CH));
	for (uint64_t i = 100; i < size; i++)
		gpu[i] = pat(i, 56);
	ASSERT_EQ(0, end_written(self->m, s, h, 100, size - 100, -1));
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(0, memcmp(p, zero, 100));
	EXPECT_EQ(-1, check(p + 100, size - 100, 100, 56));
	mvgal_bo_destroy(self->m, h);
	munmap(p, map);
}


/*
 * fork: the child's memory is the parent's of the moment of the fork; a
 * GPU's chunk brought home after it reaches the parent only.
 */
TEST_F(uptr, mirror_fork_gpu_writes_reach_the_parent_only)
{
	const uint64_t size = 2 * CH;
	uint8_t *p = anon(size, 35);
	int go[2], st;
	uint32_t h;
	pid_t pid;
	char c;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR, HVGV, &h));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				0, CH, 36));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (read(go[0], &c, 1) != 1)
			_exit(10);
		_exit(check(p, size, 0, 35) == -1 ? 0 : 11);
	}
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-1, check(p, CH, 0, 36));
	EXPECT_EQ(-1, check(p + CH, CH, CH, 35));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	/* The parent's writes after the fork reach the GPU. */
	fill(p, size, 37);
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g1, h,
				0, size, 37));
	close(go[0]);
	close(go[1]);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/*
 * mprotect to read-only: a GPU's chunk cannot come home (-EFAULT) and
 * stays the GPU's, nothing lost; writable again, it comes home.
 */
TEST_F(uptr, mirror_read_only_range_keeps_the_gpus_chunk)
{
	const uint64_t size = CH + 2 * PG;
	uint8_t *p = anon(size, 38);
	uint32_t h;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR, HVGV, &h));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				PG, CH - PG + 5, 39));
	ASSERT_EQ(0, mprotect(p, size, PROT_READ));
	EXPECT_EQ(-EFAULT, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-1, check(p, size, 0, 38));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				PG, CH - PG + 5, 39));
	ASSERT_EQ(0, mprotect(p, size, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-1, check(p, PG, 0, 38));
	EXPECT_EQ(-1, check(p + PG, CH - PG + 5, PG, 39));
	EXPECT_EQ(-1, check(p + CH + 5, 2 * PG - 5, CH + 5, 38));
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/* Bytes a READ session of all of @h on @g copied, its bytes checked. */
static long long read_copied(struct __test_metadata *_metadata,
			     struct mvgal *m, uint8_t **pool, uint32_t g,
			     uint32_t h, uint64_t size, unsigned int s)
{
	struct drm_mvgal_access a;
	uint64_t copied;
	uint32_t sess;
	int f;

	if (begin1(m, g, MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE, h, 0,
		   size, &a, &sess, &f, &copied) || settle(f))
		return -2;
	if (check(pool[a.pool_gpu] + a.pool_offset, size, 0, s) != -1)
		copied = -3;
	mvgal_end(m, sess, -1, NULL, 0);
	return (long long)copied;
}

/*
 * An invalidation while a READ session is live on a mirror's chunks:
 * the session keeps the bytes of before, and home wins at its END (the
 * next session reads the zeroes). A WRITE session's written chunks stay
 * its GPU's (its writes came after the change); home wins the others. A
 * home-held mark of a chunk in use waits for the END alike.
 */
TEST_F(uptr, mirror_invalidation_during_a_session_wins_at_its_end)
{
	const uint64_t size = 2 * CH + 3000, map = 2 * CH + PG;
	uint8_t zero[2 * CH + 3000], *p = anon(map, 57), *gpu;
	uint32_t h, s, w;

	memset(zero, 0, sizeof(zero));
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR | MVGAL_USERPTR_MARKS, HVGV, &h));
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, CH, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(-1, check(gpu, CH, 0, 57));
	/* GPU 1 writes chunk 1 and the short chunk 2 meanwhile. */
	ASSERT_NE(NULL, session_on(self->m, self->pool, self->g1,
				   MVGAL_ACCESS_WRITE, h, CH, size - CH, &w));
	ASSERT_EQ(0, madvise(p, map, MADV_DONTNEED));
	EXPECT_EQ(-1, check(gpu, CH, 0, 57));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, end_written(self->m, w, h, CH + 9, 100, -1));
	/* Chunk 0 is home's (zeroes); chunk 1, written, GPU 1's. */
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				CH + 9, 100, 57));
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	ASSERT_NE(NULL, gpu);
	EXPECT_EQ(0, memcmp(gpu, zero, CH));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(0, memcmp(p, zero, CH));
	EXPECT_EQ(-1, check(p + CH, CH, CH, 57));
	/* Chunk 2 was named, not written: home's too. */
	EXPECT_EQ(0, memcmp(p + 2 * CH, zero, size - 2 * CH));
	/*
	 * A home-held mark (the write-watch's) of a chunk a live session
	 * reads waits for its END the same way: the next session copies it.
	 */
	gpu = read_on(_metadata, self->m, self->pool, self->g0, h, CH, &s);
	ASSERT_NE(NULL, gpu);
	fill(p, CH, 58);
	struct drm_mvgal_bo_mark mk = {
		.handle = h, .flags = MVGAL_MARK_HOME_HELD, .size = CH,
	};
	ASSERT_EQ(0, drmIoctl(self->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	EXPECT_EQ(CH, read_copied(_metadata, self->m, self->pool, self->g0, h,
				  CH, 58));
	mvgal_bo_destroy(self->m, h);
	munmap(p, map);
}

/*
 * A change of protection alone moves no byte: after mprotect to
 * read-only and back, and after a fork (its copy-on-write protection),
 * the GPU's copy of a mirror registered with marks is still good and a
 * session copies nothing; MADV_DONTNEED of one page does change the
 * bytes, and its chunk alone is copied again.
 */
TEST_F(uptr, mirror_protection_changes_keep_the_gpus_copies)
{
	const uint64_t size = 3 * CH + 7 * PG;
	uint8_t *p = anon(size, 40);
	uint32_t h;
	int st;
	pid_t pid;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR | MVGAL_USERPTR_MARKS, HVGV,
			 &h));
	EXPECT_LE((long long)size, read_copied(_metadata, self->m, self->pool,
					       self->g0, h, size, 40));
	ASSERT_EQ(0, mprotect(p, size, PROT_READ));
	ASSERT_EQ(0, mprotect(p, size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, read_copied(_metadata, self->m, self->pool, self->g0,
				 h, size, 40));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(check(p, size, 0, 40) == -1 ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, read_copied(_metadata, self->m, self->pool, self->g0,
				 h, size, 40));
	/* Zeroes in one page of chunk 1: that chunk is copied again. */
	ASSERT_EQ(0, madvise(p + CH + 2 * PG, PG, MADV_DONTNEED));
	for (uint64_t i = 0; i < PG; i++)
		p[CH + 2 * PG + i] = pat(CH + 2 * PG + i, 40);
	EXPECT_EQ((long long)CH, read_copied(_metadata, self->m, self->pool,
					     self->g0, h, size, 40));
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/*
 * Reads leave the application's memory as it was: a GPU reading a
 * mirror has its pages faulted in for reading, so pages the application
 * write-protected to learn of its own writes (a userfaultfd in
 * asynchronous mode, as the write-watch does) are not shown written.
 * Writes are: the application's own, and a GPU's coming home. Memory
 * never touched is faulted for writing (the zero page is no page of the
 * application's to hold), and so shown written.
 */
TEST_F(uptr, mirror_reads_leave_the_memory_as_it_was)
{
	const uint64_t size = 4 * CH;
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *at;
	uint32_t h, s;
	int uffd;

	ASSERT_NE(MAP_FAILED, p);
	for (uint64_t i = 0; i < 3 * CH; i++)
		p[i] = pat(i, 41);
	uffd = wp_watch(p, size);
	if (uffd < 0) {
		munmap(p, size);
		SKIP(return, "no asynchronous userfaultfd write-protection: %d",
		     uffd);
	}
	ASSERT_EQ(0, reg(self->m, p, size, MIR | MVGAL_USERPTR_MARKS, HVGV,
			 &h));
	at = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s);
	ASSERT_NE(NULL, at);
	EXPECT_EQ(-1, check(at, 3 * CH, 0, 41));
	for (uint64_t i = 3 * CH; i < size; i++)
		ASSERT_EQ(0, at[i]);
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	EXPECT_EQ(0, wp_scan_count(p, 3 * CH, PAGE_IS_WRITTEN));
	EXPECT_EQ((long)(CH / PG), wp_scan_count(p + 3 * CH, CH,
						 PAGE_IS_WRITTEN));
	/* The application's write, and a GPU's chunk brought home. */
	p[2 * CH + 5] ^= 0xff;
	EXPECT_EQ(1, wp_scan_count(p, 3 * CH, PAGE_IS_WRITTEN));
	p[2 * CH + 5] ^= 0xff;
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				CH, CH, 42));
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ((long)(1 + CH / PG), wp_scan_count(p, 3 * CH,
						     PAGE_IS_WRITTEN));
	EXPECT_EQ(-1, check(p, CH, 0, 41));
	EXPECT_EQ(-1, check(p + CH, CH, CH, 42));
	EXPECT_EQ(-1, check(p + 2 * CH, CH, 2 * CH, 41));
	close(uffd);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/* Bytes a READ BEGIN of all of @h on @g through a ring copied, or -1. */
static long long ring_read_copied(struct mvgal *m, uint32_t g, uint32_t h)
{
	struct drm_mvgal_access a = { .handle = h };
	struct drm_mvgal_begin b = {
		.accesses = (uintptr_t)&a, .count = 1, .gpu = g,
		.flags = MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE,
		.in_fence_fd = -1, .priority = MVGAL_PRIO_NORMAL,
	};
	struct mvgal_completion c;
	struct mvgal_ring *r;
	long long ret = -1;

	if (mvgal_ring_init(m, 4, &r))
		return -1;
	if (!mvgal_prep_begin(r, &b, 1, 0) && mvgal_ring_submit(r) >= 0 &&
	    !mvgal_ring_wait(r, 20000, &c) && !c.res) {
		ret = (long long)b.bytes_copied;
		if (b.out_fence_fd >= 0)
			close(b.out_fence_fd);
		mvgal_end(m, b.session, -1, NULL, 0);
	}
	mvgal_ring_free(r);
	return ret;
}

/*
 * The watch's marks (MVGAL_MARK_HOME_HELD) leave a chunk a GPU holds
 * alone to the GPU: its bytes, not the stale pages, come home. The flag
 * with MVGAL_MARK_OVERWRITE, or on a buffer that is not registered, is
 * -EINVAL. @h registers @p, pattern @s, on GPU @g.
 */
static void home_held_marks(struct __test_metadata *_metadata,
			    struct mvgal *m, int fd, uint8_t **pool,
			    uint32_t g, uint32_t h, uint8_t *p, unsigned int s)
{
	struct drm_mvgal_bo_mark mk = {
		.handle = h, .flags = MVGAL_MARK_HOME_HELD, .size = 2 * CH,
	};
	uint32_t other;

	ASSERT_EQ(0, gpu_writes(_metadata, m, pool, g, h, 0, CH, 46));
	ASSERT_EQ(0, drmIoctl(fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	ASSERT_EQ(0, move_to(m, h, MVGAL_LOC_HOST, 0, 2 * CH));
	EXPECT_EQ(-1, check(p, CH, 0, 46));
	EXPECT_EQ(-1, check(p + CH, CH, CH, s));
	mk.flags = MVGAL_MARK_FLAGS;
	EXPECT_EQ(-1, drmIoctl(fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, host_bo(m, CH, &other));
	mk.handle = other;
	mk.flags = MVGAL_MARK_HOME_HELD;
	mk.size = CH;
	EXPECT_EQ(-1, drmIoctl(fd, DRM_IOCTL_MVGAL_BO_MARK, &mk));
	EXPECT_EQ(EINVAL, errno);
	mvgal_bo_destroy(m, other);
}

/*
 * A READ BEGIN and END of all of @h on @g through the ioctl itself, not
 * the library (no write-watch): the bytes it copied, or -1.
 */
static long long raw_read_all(int fd, struct mvgal *m, uint32_t g, uint32_t h)
{
	struct drm_mvgal_access a = { .handle = h };
	struct drm_mvgal_begin b = {
		.accesses = (uintptr_t)&a, .count = 1, .gpu = g,
		.flags = MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE,
		.in_fence_fd = -1, .priority = MVGAL_PRIO_NORMAL,
	};

	if (drmIoctl(fd, DRM_IOCTL_MVGAL_BEGIN, &b) || settle(b.out_fence_fd))
		return -1;
	mvgal_end(m, b.session, -1, NULL, 0);
	return (long long)b.bytes_copied;
}

/*
 * The library's write-watch (mvgal_userptr_watch()): a BEGIN copies what
 * the application wrote through its own mapping, and nothing else,
 * without a mark from it: one byte written, its chunk; nothing written,
 * nothing. A live session's chunks are left to it (no -EBUSY). A GPU's
 * chunk brought home is copied to the GPU once more (bringing it home
 * wrote the pages). Memory mapped again over the range is taken as
 * written all through, then watched in turn. A BEGIN
 * through the ring is watched as one through the ioctl. Only mirrors
 * with marks are watched. The watch's marks leave a GPU's chunk alone.
 */
TEST_F(uptr, mirror_watch_sees_the_applications_writes)
{
	const uint64_t size = 4 * CH + 3 * PG;
	uint8_t *p = anon(size, 43), *q = anon(2 * PG, 45), *at, at_home[5];
	uint32_t h, pinned, nomarks, s1, s2;
	int ret;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR | MVGAL_USERPTR_MARKS, HVGV, &h));
	ret = mvgal_userptr_watch(self->m, h);
	if (ret == -EOPNOTSUPP) {
		mvgal_bo_destroy(self->m, h);
		munmap(p, size);
		SKIP(return, "no asynchronous userfaultfd write-protection");
	}
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, mvgal_userptr_watch(self->m, h));
	EXPECT_EQ(-EINVAL, mvgal_userptr_watch(self->m, h + 100));
	ASSERT_NE(NULL, q);
	ASSERT_EQ(0, reg(self->m, q, PG, 0, HVGV, &pinned));
	EXPECT_EQ(-EINVAL, mvgal_userptr_watch(self->m, pinned));
	mvgal_bo_destroy(self->m, pinned);
	ASSERT_EQ(0, reg(self->m, q + PG, PG, MIR, HVGV, &nomarks));
	EXPECT_EQ(-EINVAL, mvgal_userptr_watch(self->m, nomarks));
	mvgal_bo_destroy(self->m, nomarks);
	munmap(q, 2 * PG);

	EXPECT_EQ((long long)size, read_copied(_metadata, self->m, self->pool,
					       self->g0, h, size, 43));
	EXPECT_EQ(0, read_copied(_metadata, self->m, self->pool, self->g0, h,
				 size, 43));
	/* One byte of chunk 2 and one of the last (short) chunk. */
	p[2 * CH + 7] = 0;
	p[4 * CH + PG + 1] = 0;
	p[2 * CH + 7] = pat(2 * CH + 7, 43);
	p[4 * CH + PG + 1] = pat(4 * CH + PG + 1, 43);
	EXPECT_EQ((long long)(CH + 3 * PG),
		  read_copied(_metadata, self->m, self->pool, self->g0, h,
			      size, 43));
	/* A BEGIN through the ring is watched too. */
	p[CH + 9] ^= 1;
	EXPECT_EQ((long long)CH, ring_read_copied(self->m, self->g0, h));
	p[CH + 9] ^= 1;
	EXPECT_EQ((long long)CH, read_copied(_metadata, self->m, self->pool,
					     self->g0, h, size, 43));
	/* A live session's chunks are left to it: the next BEGIN works. */
	at = read_on(_metadata, self->m, self->pool, self->g0, h, size, &s1);
	ASSERT_NE(NULL, at);
	p[2 * CH + 1] ^= 1;
	ASSERT_NE(NULL, read_on(_metadata, self->m, self->pool, self->g1, h,
				size, &s2));
	ASSERT_EQ(0, mvgal_end(self->m, s2, -1, NULL, 0));
	ASSERT_EQ(0, mvgal_end(self->m, s1, -1, NULL, 0));
	p[2 * CH + 1] ^= 1;
	EXPECT_EQ((long long)CH, read_copied(_metadata, self->m, self->pool,
					     self->g0, h, size, 43));
	/*
	 * GPU 0's chunk 1 read home (it keeps its copy): bringing it home
	 * wrote the pages, so GPU 0 gets it once more.
	 */
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				CH, CH, 43));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, CH, at_home, 5));
	EXPECT_EQ((long long)CH, read_copied(_metadata, self->m, self->pool,
					     self->g0, h, size, 43));
	EXPECT_EQ(0, read_copied(_metadata, self->m, self->pool, self->g0, h,
				 size, 43));
	/*
	 * Other memory mapped over the range: the kernel's change is
	 * copied first (a BEGIN the library does not see), then what the
	 * application writes there is found only by the scan.
	 */
	ASSERT_EQ(p, mmap(p, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	EXPECT_LE(0, raw_read_all(self->fd, self->m, self->g0, h));
	fill(p, size, 44);
	EXPECT_EQ((long long)size, read_copied(_metadata, self->m, self->pool,
					       self->g0, h, size, 44));
	p[3 * CH] = pat(3 * CH, 43);
	p[3 * CH] = pat(3 * CH, 44);
	EXPECT_EQ((long long)CH, read_copied(_metadata, self->m, self->pool,
					     self->g0, h, size, 44));
	home_held_marks(_metadata, self->m, self->fd, self->pool, self->g0, h,
			p, 44);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/*
 * Eviction of a mirror's GPU-only chunks brings them into the
 * application's memory, as for pinned memory.
 */
TEST_F(uptr, mirror_eviction_brings_the_gpus_bytes_home)
{
	const uint64_t size = 2 * CH;
	uint8_t *p = anon(size, 40);
	uint64_t budget = 2 * CH, whole = 0;
	uint32_t h, h2, s;

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, reg(self->m, p, size, MIR, HVGV, &h));
	ASSERT_EQ(0, mvgal_gpu_budget(self->m, self->g0, MVGAL_BUDGET_SET,
				      &budget, NULL));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				0, size, 41));
	EXPECT_EQ(-1, check(p, size, 0, 40));
	usleep(300000);		/* the pages are let go meanwhile */
	ASSERT_EQ(0, host_bo(self->m, size, &h2));
	ASSERT_NE(NULL, session_on(self->m, self->pool, self->g0,
				   MVGAL_ACCESS_READ, h2, 0, size, &s));
	ASSERT_EQ(0, mvgal_end(self->m, s, -1, NULL, 0));
	EXPECT_EQ(-1, check(p, size, 0, 41));
	mvgal_gpu_budget(self->m, self->g0, MVGAL_BUDGET_SET, &whole, NULL);
	mvgal_bo_destroy(self->m, h2);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

/*
 * Exit: a child registers its memory on the file it shares with its
 * parent, a GPU writes it and the child exits. The GPU's chunk stays
 * (the GPU still reads it); bringing it home is -EFAULT, as is reading
 * home; freeing the buffer works.
 */
TEST_F(uptr, mirror_exit_leaves_the_gpus_chunks)
{
	const uint64_t size = 2 * CH;
	uint8_t back[64];
	uint32_t h;
	int pfd[2], st;
	pid_t pid;

	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint8_t *p = anon(size, 42);

		if (!p || reg(self->m, p, size, MIR, HVGV, &h) ||
		    gpu_writes(_metadata, self->m, self->pool, self->g0, h, CH,
			       CH, 43) ||
		    write(pfd[1], &h, sizeof(h)) != sizeof(h))
			_exit(10);
		_exit(0);
	}
	ASSERT_EQ(sizeof(h), read(pfd[0], &h, sizeof(h)));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(-EFAULT, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-EFAULT, mvgal_bo_read(self->m, h, 0, back, sizeof(back)));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				CH, CH, 43));
	mvgal_bo_destroy(self->m, h);
	close(pfd[0]);
	close(pfd[1]);
}

#define MPOL_MF_MOVE	(1 << 1)

/* Moves @n pages at @p to NUMA node @node: how many landed there. */
static int pages_to_node(uint8_t *p, int n, int node)
{
	void *pages[64];
	int nodes[64], status[64], on = 0;

	for (int i = 0; i < n; i++) {
		pages[i] = p + i * PG;
		nodes[i] = node;
		status[i] = -1;
	}
	/* A positive result counts pages that did not move. */
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		on += status[i] == node;
	return on;
}

/*
 * Page migration: between copies nothing holds the pages, so move_pages
 * moves every one to the other node (a pinned range's pages stay); the
 * bytes are the same, and GPUs read and write them as before.
 */
TEST_F(uptr, mirror_pages_migrate_between_copies)
{
	const uint64_t size = 16 * PG;
	uint8_t *p = anon(size, 44), *q = anon(size, 44);
	uint32_t h, hq;
	int on = 0;

	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, q);
	if (pages_to_node(p, 16, 1) != 16 || pages_to_node(q, 16, 1) != 16)
		SKIP(return, "no second NUMA node to move pages to");
	ASSERT_EQ(0, reg(self->m, p, size, MIR, HVGV, &h));
	ASSERT_EQ(0, reg(self->m, q, size, 0, HVGV, &hq));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				0, size, 44));
	/* Let go within a second of the last copy. */
	for (int i = 0; i < 100 && on != 16; i++) {
		usleep(20000);
		on = pages_to_node(p, 16, 0);
	}
	EXPECT_EQ(16, on);
	/* The pinned range next to it: none of its pages may move. */
	EXPECT_EQ(0, pages_to_node(q, 16, 0));
	EXPECT_EQ(-1, check(p, size, 0, 44));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 44));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g1, h,
				PG + 9, 3 * PG, 45));
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-1, check(p + PG + 9, 3 * PG, PG + 9, 45));
	EXPECT_EQ(-1, check(p, PG + 9, 0, 44));
	mvgal_bo_destroy(self->m, hq);
	mvgal_bo_destroy(self->m, h);
	munmap(q, size);
	munmap(p, size);
}

/* How many of the @n (at most 64) pages at @p are on @node, or -1. */
static int pages_on(uint8_t *p, int n, int node)
{
	void *pages[64];
	int status[64], on = 0;

	for (int i = 0; i < n; i++) {
		pages[i] = p + i * PG;
		status[i] = -1;
	}
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		on += status[i] == node;
	return on;
}

/* The first CPU of node @node, or -1. */
static int node_cpu(int node)
{
	char path[64];
	int cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	f = fopen(path, "r");
	if (f && fscanf(f, "%d", &cpu) != 1)
		cpu = -1;
	if (f)
		fclose(f);
	return cpu;
}

/* Node @node's free memory in bytes, or 0. */
static uint64_t node_free(int node)
{
	char path[64], line[128];
	unsigned long long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 node);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "MemFree:"))
			sscanf(strstr(line, "MemFree:") + 8, "%llu", &kb);
	if (f)
		fclose(f);
	return kb << 10;
}


/*
 * NUMA balancing: a process on a CPU of node 1 that keeps reading its
 * mirrored memory on node 0 has it moved by the kernel's hinting faults. Its
 * hinting scans are changes of protection (the GPUs' copies stay); the
 * moves are migrations: the bytes are the same, a GPU reads them again,
 * and a GPU's chunk comes home into the moved pages.
 */
TEST_F_TIMEOUT(uptr, mirror_numa_balancing_moves_the_pages, 240)
{
	const long want[] = { 1, 0, 100, 400 };
	const uint64_t size = 4 * CH;
	uint8_t *p = anon(size, 48);
	int cpu = node_cpu(1);
	cpu_set_t one, all;
	long on = 0;
	uint32_t h;

	ASSERT_NE(NULL, p);
	if (cpu < 0 || !node_free(1) || pages_to_node(p, 64, 0) != 64)
		SKIP(return, "no second NUMA node with a CPU");
	for (int i = 0; i < 4; i++)
		if (read_long(numab_knob[i], &numab_saved[i]))
			SKIP(return, "no %s", numab_knob[i]);
	ASSERT_EQ(0, reg(self->m, p, size, MIR, HVGV, &h));
	EXPECT_EQ(3 * CH, read_copied(_metadata, self->m, self->pool, self->g0,
				      h, 3 * CH, 48));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g1, h,
				3 * CH + 5, CH - 5, 49));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	numab_changed = true;
	for (int i = 0; i < 4; i++)
		write_long(numab_knob[i], want[i]);
	/* Reads only, on the CPU of node 1, until every page is there. */
	for (time_t end = time(NULL) + 120; on != 64 && time(NULL) < end;) {
		volatile uint8_t sum = 0;

		for (int r = 0; r < 200; r++)
			for (uint64_t i = 0; i < size; i += PG)
				sum += p[i + r];
		on = pages_on(p, 64, 1);
	}
	TH_LOG("NUMA balancing moved %ld of 64 pages to node 1", on);
	/* Still on node 1's CPU, where the pages are local now. */
	EXPECT_EQ(64, on);
	EXPECT_EQ(-1, check(p, size, 0, 48));
	/* Every page moved: the GPU's copies of its chunks went. */
	EXPECT_EQ(3 * CH, read_copied(_metadata, self->m, self->pool, self->g0,
				      h, 3 * CH, 48));
	EXPECT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-1, check(p, 3 * CH + 5, 0, 48));
	EXPECT_EQ(-1, check(p + 3 * CH + 5, CH - 5, 3 * CH + 5, 49));
	EXPECT_EQ(64, pages_on(p, 64, 1));
	numab_restore();
	sched_setaffinity(0, sizeof(all), &all);
	mvgal_bo_destroy(self->m, h);
	munmap(p, size);
}

#define MPOL_DEFAULT	0
#define MPOL_BIND	2
#define COMPACT1 "/sys/devices/system/node/node1/compact"

/* The page frames of the @n pages at @p into @pfn (0 where none): 0 or -1. */
static int page_frames(const uint8_t *p, unsigned long n, uint64_t *pfn)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ssize_t want = (ssize_t)(n * 8);
	ssize_t got = fd < 0 ? -1 : pread(fd, pfn, want, (uintptr_t)p / PG * 8);

	if (fd >= 0)
		close(fd);
	for (unsigned long i = 0; got == want && i < n; i++)
		pfn[i] = pfn[i] >> 63 ? pfn[i] & ((1ULL << 55) - 1) : 0;
	return got == want ? 0 : -1;
}

/* The highest of the @n page frames at @pfn. */
static uint64_t highest(const uint64_t *pfn, unsigned long n)
{
	uint64_t hi = 0;

	for (unsigned long i = 0; i < n; i++)
		hi = pfn[i] > hi ? pfn[i] : hi;
	return hi;
}

/* Where in @pfn the @w-page window with the lowest highest frame starts. */
static unsigned long lowest_window(const uint64_t *pfn, unsigned long n,
				   unsigned long w, uint64_t *top)
{
	unsigned long best = 0;

	*top = UINT64_MAX;
	for (unsigned long i = 0; i + w <= n; i += w)
		if (highest(pfn + i, w) < *top) {
			*top = highest(pfn + i, w);
			best = i;
		}
	return best;
}

/*
 * The three @w-page thirds at @p (frames @pfn), by their highest frame:
 * @lo lowest, then @mid, then @hi.
 */
static void thirds(uint8_t *p, const uint64_t *pfn, unsigned long w,
		   uint8_t **lo, uint8_t **mid, uint8_t **hi)
{
	int o[3] = { 0, 1, 2 };

	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (highest(pfn + o[j] * w, w) < highest(pfn + o[i] * w, w)) {
				int t = o[i];

				o[i] = o[j];
				o[j] = t;
			}
	*lo = p + o[0] * w * PG;
	*mid = p + o[1] * w * PG;
	*hi = p + o[2] * w * PG;
}

/* How many of the @n pages at @p are present on other frames than @was. */
static int frames_moved(const uint8_t *p, unsigned long n, const uint64_t *was)
{
	uint64_t now[64];
	int moved = 0;

	if (n > 64 || page_frames(p, n, now))
		return -1;
	for (unsigned long i = 0; i < n; i++)
		moved += now[i] && now[i] != was[i];
	return moved;
}

/*
 * Compaction moves a zone's movable pages from its low end into free
 * pages of partly used pageblocks at its high end (a wholly free block is
 * no target: suitable_migration_target()), until the two scanners meet.
 * The case takes the 192 pages of 128 MiB on node 1 whose highest frame
 * is lowest, registers a third mirrored and a third pinned, keeps the
 * third with the highest frame as plain memory, and frees half of every
 * pageblock above them, so that compacting node 1 moves the mirror's
 * pages; the pinned range's stay. A migration, as for move_pages: the
 * bytes are the same, the GPU's copies went, and a GPU's chunk comes home
 * into the new pages. Where the scanners meet depends on the rest of the
 * node: if they met below the plain third (not all of it moved), the
 * mirror was not reached either, and the case cannot tell; it skips.
 */
TEST_F_TIMEOUT(uptr, mirror_compaction_moves_the_pages, 240)
{
	const unsigned long n = 32768, w = 64;
	const uint64_t size = w * PG;
	unsigned long node1 = 1UL << 1, at;
	uint64_t *pfn = calloc(n, sizeof(*pfn)), was[3][64], top;
	uint8_t *r, *mir, *pin, *ctl, *buf = malloc(size);
	int moved = 0, pinned = 0, plain = 0;
	uint32_t h, hq;

	ASSERT_NE(NULL, pfn);
	ASSERT_NE(NULL, buf);
	if (access(COMPACT1, W_OK) || node_free(1) < 2 * n * PG)
		SKIP(return, "no second NUMA node with 256 MiB free to compact");
	/*
	 * Else kcompactd may move the window's pages as soon as the holes
	 * are made, before the ranges are registered, to where the case's
	 * compaction does not move them again. And the holes would stay on
	 * the CPU's free lists (pcp->high grows up to an eighth of the zone
	 * as the range is allocated), where the free scanner does not look.
	 */
	vm_set(0, 0);
	vm_set(1, 100000);
	/*
	 * On the node the case compacts, to the end: nor may NUMA balancing
	 * move the pages to the CPU's node meanwhile.
	 */
	ASSERT_EQ(0, syscall(SYS_set_mempolicy, MPOL_BIND, &node1, 64));
	r = mmap(NULL, n * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	/* Small pages, each of which may land anywhere on the node. */
	ASSERT_EQ(0, madvise(r, n * PG, MADV_NOHUGEPAGE));
	memset(r, 1, n * PG);
	ASSERT_EQ(0, page_frames(r, n, pfn));
	if (!pfn[0])
		SKIP(return, "pagemap gives no page frames (not root)");
	at = lowest_window(pfn, n, 3 * w, &top);
	/*
	 * By the highest frame of each third: the pinned range lowest, then
	 * the mirror, then the plain memory. Once all of the plain third
	 * moved, the migration scanner has been past every other page.
	 */
	thirds(r + at * PG, pfn + at, w, &pin, &mir, &ctl);
	fill(mir, size, 50);
	fill(pin, size, 52);
	/*
	 * Holes above the window: the first 32 of every 64 page frames, each
	 * an aligned free block of 32 pages, and half of every pageblock
	 * used. Past the blocks above that give it nothing, the free scanner
	 * looks at one page in 32 (isolate_freepages()'s stride doubles up
	 * to COMPACT_CLUSTER_MAX), and it finds a free block only at its
	 * first page (PageBuddy): holes of other shapes can hide from it.
	 */
	for (unsigned long i = 0, run = 0; i <= n; i++) {
		bool hole = i < n && (i < at || i >= at + 3 * w) &&
			    pfn[i] > top && !(pfn[i] & 32);

		if (hole) {
			run++;
			continue;
		}
		if (run)
			ASSERT_EQ(0, madvise(r + (i - run) * PG, run * PG,
					     MADV_DONTNEED));
		run = 0;
	}
	ASSERT_EQ(0, reg(self->m, mir, size, MIR, HVGV, &h));
	ASSERT_EQ(0, reg(self->m, pin, size, 0, HVGV, &hq));
	EXPECT_EQ(3 * CH, read_copied(_metadata, self->m, self->pool, self->g0,
				      h, 3 * CH, 50));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g1, h,
				3 * CH + 5, CH - 5, 51));
	ASSERT_EQ(0, page_frames(mir, w, was[0]));
	ASSERT_EQ(0, page_frames(pin, w, was[1]));
	ASSERT_EQ(0, page_frames(ctl, w, was[2]));
	/* A page a copy held a moment ago moves in a later round. */
	for (int round = 0; round < 10 && moved != (int)w; round++) {
		ASSERT_EQ(0, write_param(COMPACT1, "1"));
		moved = frames_moved(mir, w, was[0]);
		pinned = frames_moved(pin, w, was[1]);
		plain = frames_moved(ctl, w, was[2]);
		if (moved != (int)w)
			usleep(100000);
	}
	TH_LOG("compaction moved %d of the mirror's %lu pages, %d of the plain third's",
	       moved, w, plain);
	if (moved != (int)w && plain != (int)w)
		SKIP(return, "compaction stopped short of the window (%d of %lu plain pages moved)",
		     plain, w);
	EXPECT_EQ((int)w, moved);
	EXPECT_EQ(0, pinned);
	EXPECT_EQ(-1, check(mir, size, 0, 50));
	EXPECT_EQ(-1, check(pin, size, 0, 52));
	/* The pages moved: the GPU's copies of their chunks went. */
	EXPECT_EQ(3 * CH, read_copied(_metadata, self->m, self->pool, self->g0,
				      h, 3 * CH, 50));
	EXPECT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, size));
	EXPECT_EQ(-1, check(mir, 3 * CH + 5, 0, 50));
	EXPECT_EQ(-1, check(mir + 3 * CH + 5, CH - 5, 3 * CH + 5, 51));
	/* The pinned buffer's bytes, read through the ioctl. */
	ASSERT_EQ(0, mvgal_bo_read(self->m, hq, 0, buf, size));
	EXPECT_EQ(-1, check(buf, size, 0, 52));
	vm_restore();
	syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
	mvgal_bo_destroy(self->m, hq);
	mvgal_bo_destroy(self->m, h);
	munmap(r, n * PG);
	free(buf);
	free(pfn);
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define HPAGE (2UL << 20)

/* The AnonHugePages of this process, in kB. */
static long anon_huge_kb(void)
{
	return proc_kb("smaps_rollup", "AnonHugePages:");
}

/*
 * A transparent huge page under the range: splitting it (a 4 KiB
 * mprotect in its middle) and collapsing it again (MADV_COLLAPSE) move
 * no byte; a GPU reads the same before and after, and its writes come
 * home into whichever pages are there.
 */
TEST_F(uptr, mirror_huge_pages_split_and_collapse)
{
	uint8_t *raw = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p;
	long huge0 = anon_huge_kb();
	uint32_t h;

	ASSERT_NE(MAP_FAILED, raw);
	p = (uint8_t *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	madvise(p, HPAGE, MADV_HUGEPAGE);
	fill(p, HPAGE, 46);
	if (anon_huge_kb() < huge0 + 2048)
		SKIP(goto out, "no transparent huge page here");
	ASSERT_EQ(0, reg(self->m, p, 4 * CH, MIR, HVGV, &h));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g0, h,
				0, 4 * CH, 46));
	ASSERT_EQ(0, mprotect(p + 8 * PG, PG, PROT_READ));
	ASSERT_EQ(0, mprotect(p + 8 * PG, PG, PROT_READ | PROT_WRITE));
	EXPECT_EQ(-1, gpu_check(_metadata, self->m, self->pool, self->g1, h,
				0, 4 * CH, 46));
	ASSERT_EQ(0, gpu_writes(_metadata, self->m, self->pool, self->g0, h,
				CH - 3, CH + 6, 47));
	usleep(300000);
	if (madvise(p, HPAGE, MADV_COLLAPSE) == 0)
		EXPECT_LE(huge0 + 2048, anon_huge_kb());
	ASSERT_EQ(0, move_to(self->m, h, MVGAL_LOC_HOST, 0, 4 * CH));
	EXPECT_EQ(-1, check(p, CH - 3, 0, 46));
	EXPECT_EQ(-1, check(p + CH - 3, CH + 6, CH - 3, 47));
	EXPECT_EQ(-1, check(p + 2 * CH + 3, HPAGE - 2 * CH - 3, 2 * CH + 3, 46));
	mvgal_bo_destroy(self->m, h);
out:
	munmap(raw, 2 * HPAGE);
}

#define ZRAM "/sys/block/zram0"

/* /dev/zram0 as swap, @mb MiB: 0, or -1 where the kernel has no zram. */
static int zram_swap_on(unsigned int mb)
{
	static uint8_t hdr[PG];
	uint32_t *v = (uint32_t *)(hdr + 1024);
	char size[32];
	int fd, ret;

	if (access(ZRAM, F_OK) && system("modprobe zram 2>/dev/null"))
		return -1;
	snprintf(size, sizeof(size), "%uM", mb);
	write_param(ZRAM "/reset", "1");
	if (write_param(ZRAM "/disksize", size))
		return -1;
	/* mkswap's header: version 1, the last page, no bad pages. */
	memset(hdr, 0, sizeof(hdr));
	v[0] = 1;
	v[1] = ((uint64_t)mb << 20) / PG - 1;
	memcpy(hdr + PG - 10, "SWAPSPACE2", 10);
	fd = open("/dev/zram0", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = pwrite(fd, hdr, PG, 0) == PG ? 0 : -1;
	close(fd);
	return ret ?: (int)syscall(SYS_swapon, "/dev/zram0", 0);
}

static void zram_swap_off(void)
{
	syscall(SYS_swapoff, "/dev/zram0");
	write_param(ZRAM "/reset", "1");
}

/* How many of the @n pages at @p have pagemap bit @bit set. */
static long pagemap_count(const uint8_t *p, unsigned long n, unsigned int bit)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long out = 0;
	uint64_t e;

	if (fd < 0)
		return -1;
	for (unsigned long i = 0; i < n; i++)
		if (pread(fd, &e, 8, ((uintptr_t)p / PG + i) * 8) == 8 &&
		    (e >> bit & 1))
			out++;
	close(fd);
	return out;
}

/* How many of the @n pages at @p are swapped out. */
static long swapped_pages(const uint8_t *p, unsigned long n)
{
	return pagemap_count(p, n, 62);
}

/*
 * Swap: in a memory cgroup limited to 40 MiB, a process registers 32 MiB
 * mirrored, has a GPU read it, then touches 48 MiB more. With no session
 * using the registration its pages swap out (to zram), as a pinned
 * registration's could not; the next session brings them back, bytes
 * intact, and a GPU's writes come home into them.
 */
TEST_F_TIMEOUT(uptr, mirror_pages_swap_out_under_a_memcg_limit, 300)
{
	int st;
	pid_t pid;

	if (zram_swap_on(128))
		SKIP(return, "no zram swap in this kernel");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		const uint64_t size = 32ULL << 20, more = 48ULL << 20;
		uint8_t *p, *r;
		long out;
		uint32_t h;

		/* In the cgroup first: pages are charged where they are made. */
		if (cg_enter_new() || write_param(CG_U "/memory.max", "40M"))
			_exit(10);
		p = anon(size, 48);
		if (!p)
			_exit(10);
		if (reg(self->m, p, size, MIR, HVGV, &h) ||
		    gpu_check(_metadata, self->m, self->pool, self->g0, h, 0,
			      size, 48) != -1)
			_exit(11);
		usleep(300000);
		r = anon(more, 50);
		out = swapped_pages(p, size / PG);
		fprintf(stderr, "# %ld of %lu registered pages swapped out\n",
			out, (unsigned long)(size / PG));
		if (!r || out < (long)(size / PG / 4))
			_exit(12);
		if (gpu_check(_metadata, self->m, self->pool, self->g1, h, 0,
			      size, 48) != -1)
			_exit(13);
		if (gpu_writes(_metadata, self->m, self->pool, self->g0, h,
			       CH + 1, 5 * CH, 49) ||
		    move_to(self->m, h, MVGAL_LOC_HOST, 0, size))
			_exit(14);
		if (check(p, CH + 1, 0, 48) != -1 ||
		    check(p + CH + 1, 5 * CH, CH + 1, 49) != -1 ||
		    check(p + 6 * CH + 1, size - 6 * CH - 1, 6 * CH + 1, 48) != -1)
			_exit(15);
		mvgal_bo_destroy(self->m, h);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	rmdir(CG_U);
	zram_swap_off();
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/*
 * MADV_FREE: the range is the kernel's to take until written again.
 * Once reclaim has taken the freed pages (the process's memory cgroup is
 * asked to reclaim), the range reads zeroes and so does the GPU: the
 * chunks home held are fetched again, and a chunk the GPU held alone
 * stays its own and comes home into the zeroed range. The pages are let
 * go (100 ms unused) before the call: mvgal dirties the pages it lets go,
 * which would keep them.
 */
TEST_F_TIMEOUT(uptr, mirror_free_then_reclaim_zeroes_and_the_gpu_follows, 120)
{
	int st;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		const uint64_t size = 3 * CH + 5 * PG + 9;
		uint8_t zero[CH], *p, *gpu;
		long left = -1;
		cpu_set_t one;
		uint32_t h, s;

		memset(zero, 0, sizeof(zero));
		/*
		 * On one CPU: MADV_FREE leaves the pages in this CPU's batch
		 * for the LRU, which reclaim drains only on its own CPU.
		 */
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (cg_enter_new() || sched_setaffinity(0, sizeof(one), &one))
			_exit(10);
		p = anon(size, 36);
		if (!p || reg(self->m, p, size, MIR, HVGV, &h) ||
		    gpu_check(_metadata, self->m, self->pool, self->g0, h, 0,
			      size, 36) != -1 ||
		    gpu_writes(_metadata, self->m, self->pool, self->g0, h, CH,
			       CH, 37))
			_exit(11);
		usleep(300000);
		if (madvise(p, size & ~(PG - 1), MADV_FREE))
			_exit(12);
		for (int i = 0; i < 5 && left; i++) {
			write_param(CG_U "/memory.reclaim", "16M");
			left = pagemap_count(p, size / PG, 63);
		}
		fprintf(stderr, "# %ld of %lu freed pages left\n", left,
			(unsigned long)(size / PG));
		if (left)
			_exit(13);
		gpu = read_on(_metadata, self->m, self->pool, self->g0, h, size,
			      &s);
		if (!gpu || memcmp(gpu, zero, CH) ||
		    check(gpu + CH, CH, CH, 37) != -1 ||
		    memcmp(gpu + 2 * CH, zero, CH) ||
		    memcmp(gpu + 3 * CH, zero, 5 * PG) ||
		    check(gpu + 3 * CH + 5 * PG, 9, 3 * CH + 5 * PG, 36) != -1 ||
		    mvgal_end(self->m, s, -1, NULL, 0))
			_exit(14);
		if (move_to(self->m, h, MVGAL_LOC_HOST, 0, size) ||
		    memcmp(p, zero, CH) || check(p + CH, CH, CH, 37) != -1 ||
		    memcmp(p + 2 * CH, zero, CH) ||
		    memcmp(p + 3 * CH, zero, 5 * PG) ||
		    check(p + 3 * CH + 5 * PG, 9, 3 * CH + 5 * PG, 36) != -1)
			_exit(15);
		mvgal_bo_destroy(self->m, h);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	rmdir(CG_U);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/* GPU @g (vgem) detached and attached again with a pool of @mb MiB, mapped. */
static uint8_t *pool_again(struct __test_metadata *_metadata,
			   FIXTURE_DATA(uptr) *self, int g, unsigned int mb)
{
	struct drm_mvgal_pool_fd pf = { .gpu = (uint32_t)g };
	struct mvgal_config cfg;
	void *va;
	int ret;

	munmap(self->pool[g], POOL_BYTES);
	self->pool[g] = NULL;
	ret = mvgal_gpu_detach(self->m, (uint32_t)g);
	if (ret) {
		TH_LOG("detach: %d", ret);
		return NULL;
	}
	config_64(&cfg);
	cfg.memory_limit_mb[g] = mb;
	ret = mvgal_attach_all(self->m, &cfg, NULL, NULL);
	if (ret < 0 || find_gpu(self->m, "vgem", ~1U) != g ||
	    drmIoctl(self->fd, DRM_IOCTL_MVGAL_POOL_FD, &pf)) {
		TH_LOG("attach %d, vgem is %d", ret,
		       find_gpu(self->m, "vgem", ~1U));
		return NULL;
	}
	va = mmap(NULL, (size_t)mb << 20, PROT_READ | PROT_WRITE, MAP_SHARED,
		  pf.fd, 0);
	close(pf.fd);
	return va == MAP_FAILED ? NULL : va;
}

/* This process as user and group nobody, with no capability left. */
static int become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	/* A changed uid makes /proc/self root's; pagemap is read below. */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/*
 * What the child of the 256 MiB case does, as nobody with an 8 MiB
 * memlock limit, on GPU @g whose pool @big holds the whole buffer: 0, or
 * the step that failed. @ready and @go are the pipe ends it tells the
 * parent on (its pages idle) and waits on (the memcg limit lowered).
 */
static int mirror_256_child(struct __test_metadata *_metadata, uint32_t g,
			    uint8_t *big, int ready, int go)
{
	const uint64_t size = 256ULL << 20, mid = size / 2 + 3;
	const uint64_t w = 16ULL << 20, o = 5 * CH + 7, n = 4ULL << 20;
	uint8_t *pool[MVGAL_MAX_GPUS] = { NULL }, *p, *at, c;
	struct rlimit rl = { 8 << 20, 8 << 20 };
	struct mvgal *m;
	uint32_t h, sess;
	long out;

	pool[g] = big;
	if (cg_enter_new() || setrlimit(RLIMIT_MEMLOCK, &rl) ||
	    mvgal_open(&m) || become_nobody())
		return 10;
	p = anon(size, 60);
	if (!p || reg(m, p, size, MIR, HVGV, &h) || vmpin_kb() != 0)
		return 11;
	/* All of it on the GPU: the session copy holds the bytes. */
	at = session_on(m, pool, g, MVGAL_ACCESS_WRITE, h, 0, size, &sess);
	if (!at || check(at, size, 0, 60) != -1)
		return 12;
	for (uint64_t i = CH + 1; i < size - CH - 2; i++)
		at[i] = pat(i, 61);
	if (end_written(m, sess, h, CH + 1, size - 2 * CH - 3, -1) ||
	    move_to(m, h, MVGAL_LOC_HOST, 0, size))
		return 13;
	/* ... and back in the application's memory. */
	if (check(p, CH + 1, 0, 60) != -1 ||
	    check(p + CH + 1, size - 2 * CH - 3, CH + 1, 61) != -1 ||
	    check(p + size - CH - 2, CH + 2, size - CH - 2, 60) != -1 ||
	    vmpin_kb() != 0)
		return 14;
	usleep(300000);
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		return 15;
	out = swapped_pages(p, size / PG);
	fprintf(stderr, "# %ld of %lu registered pages swapped out\n", out,
		(unsigned long)(size / PG));
	if (out < (long)(size / PG / 2))
		return 16;
	/* A session of 16 MiB brings its part back within the limit. */
	if (gpu_check(_metadata, m, pool, g, h, mid, w, 61) != -1 ||
	    gpu_writes(_metadata, m, pool, g, h, o, n, 62) ||
	    move_to(m, h, MVGAL_LOC_HOST, o, n))
		return 17;
	if (check(p, CH + 1, 0, 60) != -1 ||
	    check(p + CH + 1, o - CH - 1, CH + 1, 61) != -1 ||
	    check(p + o, n, o, 62) != -1 ||
	    check(p + o + n, size - CH - 2 - o - n, o + n, 61) != -1)
		return 18;
	mvgal_bo_destroy(m, h);
	mvgal_close(m);
	return 0;
}

/*
 * An unprivileged process (nobody, no capability, the default 8 MiB
 * memlock limit) registers 256 MiB of its memory mirrored, has a GPU
 * read all of it and write most of it, and has it back; nothing is
 * pinned. While no session uses it, its memory cgroup's limit is
 * lowered to 64 MiB: the pages swap out (to zram). A 16 MiB session
 * brings its part back, a GPU's writes come home, every byte is where
 * it was written.
 */
TEST_F_TIMEOUT(uptr, mirror_256_mib_unprivileged_on_a_gpu_then_swapped, 600)
{
	int ready[2], go[2], st;
	uint8_t *big, c;
	pid_t pid;

	if (zram_swap_on(512))
		SKIP(return, "no zram swap in this kernel");
	big = pool_again(_metadata, self, self->vg, 320);
	ASSERT_NE(NULL, big);
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(mirror_256_child(_metadata, self->vg, big, ready[1],
				       go[0]));
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], &c, 1) == 1) {
		EXPECT_EQ(0, write_param(CG_U "/memory.max", "64M"));
		EXPECT_EQ(1, write(go[1], "g", 1));
	}
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	close(ready[0]);
	rmdir(CG_U);
	zram_swap_off();
	munmap(big, 320ULL << 20);
	self->pool[self->vg] = pool_again(_metadata, self, self->vg, POOL_MB);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

TEST_HARNESS_MAIN
