// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal_fuzz: a seeded, structure-aware, multi-threaded fuzzer of the
 * mvgal ioctls and the DRM and dma-buf calls around them.
 *
 *   mvgal_fuzz [--seed N] [--threads N] [--calls N] [--seconds N]
 *              [--user UID] [--rival UID] [--fault PERCENT]
 *
 * Every thread draws calls from one weighted table: each mvgal ioctl with
 * arguments built from live state (handles, sessions, jobs, dma-buf and
 * sync_file fds of this run) and then mutated with edge values (0, 1, -1,
 * 2^31, 2^32-1, 2^63, 2^64-1, a chunk +-1, unaligned) and bad user
 * pointers (NULL, unmapped, read-only, into the argument itself, kernel);
 * GEM close, PRIME both ways, syncobjs, sync_file info and merge,
 * DMA_BUF_IOCTL_SYNC, mmap of buffer and dma-buf offsets with reads and
 * writes through them, munmap and close of what other threads use, fork
 * with a child that is killed mid-call. A quarter of the commands an
 * io_uring takes go through each worker's ring instead, some with a bad
 * command word. GPU_ATTACH gets fds of the right
 * and wrong kinds (a GPU's card node and a dma-buf of its memory, another
 * GPU's, mvgal's own node and dma-bufs, a pipe, a closed fd, -1) and slots
 * in and out of range; the run's GPUs are all attached, so as root it
 * meets -EEXIST and -EBUSY, and a spare GPU it did attach is detached at
 * once: the GPUs the run relies on are never detached.
 *
 * --fault P: failslab and fail_page_alloc fail P% of the allocations
 * this process makes inside mvgal's ioctls and imports; where the kernel
 * has fail_function on ftrace, P% of mvgal's copies between locations
 * (-EIO, a failed copy engine) and pool allocations (-ENOSPC) fail too,
 * in any task: the migration engine's jobs as well as the ioctls.
 * Each thread also keeps a buffer of its own with known bytes: a write
 * into it that fails must leave every byte as it was.
 *
 * --rival UID: a second process, of user UID and seeded apart, runs the
 * same calls on files of its own at the same time; each side sends some
 * of its dma-bufs (read-only or not) to the other over a socket, and
 * the other imports them, so each queues migrations, sessions and staged
 * writes on the other's buffers; CANCEL aims at job ids around the
 * newest either has seen, so it meets the other's jobs; as root, one
 * thread now and then holds a buffer's lock (debugfs bo_hold) while the
 * others list, create and free buffers. Its report follows the first's.
 *
 * Host buffers are at most 128 MiB, and when the guest's available memory
 * falls under a quarter the run lets go of all it holds (memory_low()).
 *
 * Prints the seed first, then per call the count and the errnos seen.
 * Exit status: 0, or 1 when a failed write changed bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <liburing.h>
#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "../common/rand.h"
#include "../common/scm_fd.h"

#define CH		(64 * 1024)
#define NFILES		4
#define NSLOTS		64
#define MAXERR		140

/* ---- randomness (rand.h: one xorshift64* per thread) ---- */

static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

static const uint64_t edges[] = {
	0, 1, 2, 3, 0xffffffffffffffffULL, 0x7fffffff, 0x80000000ULL,
	0xffffffffULL, 0x100000000ULL, 0x8000000000000000ULL,
	0x7fffffffffffffffULL, CH - 1, CH, CH + 1, 4095, 4096, 4097,
	3 * CH + 77, 16ULL << 30, (16ULL << 30) + 1,
};

static uint64_t edge(void)
{
	return chance(20) ? rnd() : edges[below(sizeof(edges) / sizeof(edges[0]))];
}

/* A size or offset: mostly small and unaligned, sometimes an edge. */
static uint64_t size_ish(void)
{
	if (chance(15))
		return edge();
	switch (below(4)) {
	case 0: return below(4 * CH + 300);
	case 1: return below(16) * CH + below(3) - 1;
	case 2: return 1 + below(4096);
	default: return below(64 * CH);
	}
}

/* ---- shared state: what the run made ---- */

struct slots {
	pthread_mutex_t lock;
	uint64_t v[NSLOTS];
	int n;
};

struct file_state {
	int fd;
	struct slots handles;	/* GEM handles of this file */
	struct slots sessions;
	struct slots jobs;
	struct slots syncobjs;	/* syncobj handles of this file */
};

static struct file_state files[NFILES];
/*
 * Every session begun, per file, for the end of a worker: a session may
 * have left the slots (displaced) and still be open, and a call of the
 * other worker may wait for work that waits for it. The first worker to
 * finish ends them all, so that the last is not left waiting for
 * sessions only a finished worker would have ended.
 */
#define NBEGUN 8192
static struct {
	pthread_mutex_t lock;
	unsigned int n;
	uint32_t id[NBEGUN];
} begun[NFILES];
static struct slots fences;	/* sync_file fds */
static struct slots dmabufs;	/* dma-buf fds */
static struct slots maps;	/* addr << 0, len in mapl[] */
static size_t mapl[NSLOTS];
static int vgem = -1;
static int rival_sock = -1;	/* to the other process (--rival), or -1 */
/*
 * The rival says it stalled on this pipe, so that root, which may read
 * the kernel's stacks of its tasks, prints them before it ends.
 */
static int stall_pipe[2] = { -1, -1 };
static pid_t rival_pid_seen;
static _Atomic uint64_t last_job;	/* the newest job id seen */
static char mvgal_path[64];

/* Keeps @v; when full, a random value makes room: true, in *@old. */
static bool put_evict(struct slots *s, uint64_t v, uint64_t *old)
{
	bool evict = false;

	pthread_mutex_lock(&s->lock);
	if (s->n < NSLOTS) {
		s->v[s->n++] = v;
	} else {
		unsigned int i = below(NSLOTS);

		*old = s->v[i];
		s->v[i] = v;
		evict = true;
	}
	pthread_mutex_unlock(&s->lock);
	return evict;
}

static void put(struct slots *s, uint64_t v, void (*drop)(uint64_t))
{
	uint64_t old;

	if (put_evict(s, v, &old) && drop)
		drop(old);
}

/* A live value, or @otherwise when there is none (or by chance). */
static uint64_t get(struct slots *s, uint64_t otherwise)
{
	uint64_t v = otherwise;

	if (chance(5))
		return otherwise;
	pthread_mutex_lock(&s->lock);
	if (s->n)
		v = s->v[below(s->n)];
	pthread_mutex_unlock(&s->lock);
	return v;
}

/* Takes a live value out, for closing; false when there is none. */
static bool take(struct slots *s, uint64_t *v)
{
	bool ok = false;

	pthread_mutex_lock(&s->lock);
	if (s->n) {
		unsigned int i = below(s->n);

		*v = s->v[i];
		s->v[i] = s->v[--s->n];
		ok = true;
	}
	pthread_mutex_unlock(&s->lock);
	return ok;
}

static void drop_fd(uint64_t fd)
{
	close((int)fd);
}

/* A new handle of file @f; the one it displaces is closed, so that the
 * run holds a bounded number of buffers.
 */
static void put_handle(int f, uint32_t h)
{
	uint64_t old;

	if (put_evict(&files[f].handles, h, &old))
		drmCloseBufferHandle(files[f].fd, (uint32_t)old);
}

/* ---- bad user pointers ---- */

static void *unmapped, *readonly, *kernelp = (void *)0xffff888000000000ULL;
/* Where the kernel may write whatever it likes: every output array, and
 * the target of pointers that are merely wrong.
 */
static uint8_t *junk;
#define JUNK (8 << 20)
/*
 * Memory for mirrored registrations (MVGAL_USERPTR_MIRROR), which the
 * fuzzer unmaps, zeroes and write-protects under them: nothing of the
 * fuzzer's own lives there, and only the kernel reads or writes it.
 */
static uint8_t *mira;
#define MIRA (4 << 20)

/*
 * A pointer the kernel only reads through: sometimes a bad one, or one
 * into the argument struct itself (@arg).
 */
static uint64_t uptr(void *good, void *arg)
{
	if (!chance(8))
		return (uintptr_t)good;
	switch (below(6)) {
	case 0: return 0;
	case 1: return (uintptr_t)unmapped;
	case 2: return (uintptr_t)readonly;
	case 3: return (uintptr_t)arg;	/* into the argument itself */
	case 4: return (uintptr_t)kernelp;
	default: return (uintptr_t)junk + below(JUNK - 4096);
	}
}

/* A pointer the kernel writes through: never into the fuzzer's own data. */
static uint64_t uptr_out(void *good)
{
	return uptr(good, junk + below(JUNK / 2));
}

/*
 * Every pointer the kernel may write through points into one 4 GiB
 * window of its own, aligned to 4 GiB, that holds nothing else: the junk
 * area between guard pages, the read-only page and the unmapped one, the
 * rest reserved PROT_NONE. mutate() may replace the low 32 bits of such
 * a pointer with any value, and the result stays in the window: it can
 * never land on a thread's stack or the fuzzer's data, whose corruption
 * would crash the fuzzer instead of testing mvgal. The junk area sits at
 * 2 GiB into the window, so a pointer whose high 32 bits are cleared
 * lands above 2 GiB, where a PIE process maps nothing.
 */
#define WINDOW		(4ULL << 30)

static int window_init(void)
{
	uint8_t *r = mmap(NULL, 2 * WINDOW, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint8_t *w;

	if (r == MAP_FAILED)
		return -1;
	w = (uint8_t *)(((uintptr_t)r + WINDOW - 1) & ~(uintptr_t)(WINDOW - 1));
	/* The reservation stays: no later mmap() is placed inside it. */
	junk = w + WINDOW / 2;
	if (mprotect(junk, JUNK, PROT_READ | PROT_WRITE))
		return -1;
	mira = junk - MIRA - 4096;
	if (mprotect(mira, MIRA, PROT_READ | PROT_WRITE))
		return -1;
	readonly = w + WINDOW / 2 + JUNK + 2 * 4096;
	if (mprotect(readonly, 4096, PROT_READ))
		return -1;
	unmapped = w + WINDOW / 2 + JUNK + 4 * 4096;
	return munmap(unmapped, 4096);
}

/* ---- counting ---- */

enum {
	OP_GET_INFO, OP_GPU_INFO, OP_GPU_LINK, OP_GET_HEAP, OP_BO_CREATE,
	OP_BO_INFO, OP_PWRITE, OP_PREAD, OP_COPY, OP_BO_LIST, OP_BEGIN, OP_END,
	OP_MIGRATE, OP_CANCEL, OP_PLACE_FREE, OP_GET_STATS, OP_GET_PATH,
	OP_POOL_FD, OP_HARVEST, OP_FILE_FLAGS, OP_GPU_BUDGET, OP_POOL_LRU,
	OP_REPLICATE, OP_ADVISE, OP_GPU_DETACH, OP_CALIBRATE, OP_RAW,
	OP_GEM_CLOSE, OP_PRIME_EXPORT, OP_PRIME_IMPORT, OP_VGEM_IMPORT,
	OP_SYNCOBJ, OP_SYNC_INFO, OP_SYNC_MERGE, OP_DMABUF_SYNC, OP_MMAP,
	OP_TOUCH, OP_MUNMAP, OP_CLOSE, OP_REOPEN, OP_FORK, OP_PLACE_FD,
	OP_GPU_ATTACH, OP_BO_USERPTR, OP_BO_MARK, OP_BO_HOLD, OP_EVICT,
	OP_PLACE_ADOPT, OP_MIRROR_CHURN, OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"GET_INFO", "GPU_INFO", "GPU_LINK", "GET_HEAP", "BO_CREATE", "BO_INFO",
	"BO_PWRITE", "BO_PREAD", "BO_COPY", "BO_LIST", "BEGIN", "END",
	"MIGRATE", "CANCEL", "PLACE_FREE", "GET_STATS", "GET_PATH", "POOL_FD",
	"HARVEST", "FILE_FLAGS", "GPU_BUDGET", "POOL_LRU", "REPLICATE",
	"ADVISE", "GPU_DETACH", "CALIBRATE", "raw mvgal ioctl", "GEM_CLOSE",
	"PRIME export", "PRIME import", "vgem import", "syncobj",
	"sync_file info", "sync_file merge", "DMA_BUF_IOCTL_SYNC", "mmap",
	"touch mapping", "munmap", "close", "reopen", "fork+kill", "PLACE_FD",
	"GPU_ATTACH", "BO_USERPTR", "BO_MARK", "bo_hold", "stand-in evict",
	"PLACE_ADOPT", "mirror churn",
};

/* Relative weights: the data paths most. */
static const unsigned int op_weight[OP_COUNT] = {
	1, 1, 1, 1, 8, 3, 6, 5, 5, 1, 8, 6, 5, 2, 2, 1, 1, 1, 3, 1, 1, 1, 2, 2,
	1, 1, 3, 4, 3, 3, 2, 2, 2, 1, 2, 3, 4, 2, 2, 1, 1, 3, 1, 2, 2, 1, 1,
	2, 2,
};

static atomic_ulong counts[OP_COUNT][MAXERR];
static atomic_ulong total;
static atomic_int changed;

static void count(int op, int ret)
{
	int e = ret < 0 ? -ret : 0;

	atomic_fetch_add(&counts[op][e < MAXERR ? e : MAXERR - 1], 1);
	atomic_fetch_add(&total, 1);
}

/* ---- faults in the fuzzer's own mappings are caught ---- */

static __thread sigjmp_buf jb;
static __thread volatile int armed;

static void fault_report_unarmed(int sig, const siginfo_t *si);

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (armed)
		siglongjmp(jb, sig);
	fault_report_unarmed(sig, si);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- fault injection ---- */

static int fault_pct;

static int write_str_err(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void write_str(const char *path, const char *v)
{
	int ret = write_str_err(path, v);

	if (ret && ret != -ENOENT)
		fprintf(stderr, "%s: %s\n", path, strerror(-ret));
}

/* The failure kinds; fail_function is last, and only where it works. */
static const char *const fault_kinds[] = {
	"failslab", "fail_page_alloc", "fail_function",
};
static unsigned int nr_fault_kinds = 2;

/* mvgal's functions that fail_function may fail, and with what. */
static const struct {
	const char *name, *retval;
} fault_funcs[] = {
	{ "mvgal_loc_copy", "0xfffffffffffffffb" },	/* -EIO */
	{ "mvgal_pool_alloc", "0xffffffffffffffe4" },	/* -ENOSPC */
};

/*
 * fail_function fails mvgal's own functions in whichever task runs them.
 * Its probes must run on ftrace (KPROBES_ON_FTRACE), in the probed task:
 * on int3 the handler runs as an NMI and lockdep reports the random draw.
 */
static bool fault_function_setup(void)
{
	unsigned int n = sizeof(fault_funcs) / sizeof(fault_funcs[0]), on_ftrace = 0;
	char path[160], line[256];
	FILE *f;

	for (unsigned int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/fail_function/%s/retval",
			 fault_funcs[i].name);
		if (write_str_err("/sys/kernel/debug/fail_function/inject",
				  fault_funcs[i].name) ||
		    write_str_err(path, fault_funcs[i].retval))
			goto off;
	}
	f = fopen("/sys/kernel/debug/kprobes/list", "re");
	while (f && fgets(line, sizeof(line), f))
		on_ftrace += strstr(line, " mvgal_") && strstr(line, "[FTRACE]");
	if (f)
		fclose(f);
	if (on_ftrace == n)
		return true;
off:
	write_str("/sys/kernel/debug/fail_function/inject", "\n");
	return false;
}

static void fault_setup(void)
{
	const char *const *kinds = fault_kinds;
	char path[128], v[16];

	if (fault_function_setup())
		nr_fault_kinds = 3;
	else
		printf("# fail_function: not on ftrace here, not used\n");
	snprintf(v, sizeof(v), "%d", fault_pct);
	for (unsigned int i = 0; i < nr_fault_kinds; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/probability", kinds[i]);
		write_str(path, v);
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/interval", kinds[i]);
		write_str(path, "1");
		/* Counted down at each failure: what is left tells how many. */
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/times", kinds[i]);
		write_str(path, "1000000000");
		/* Allocations fail in this process; copies anywhere. */
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/task-filter", kinds[i]);
		write_str(path, i < 2 ? "Y" : "N");
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/verbose", kinds[i]);
		write_str(path, "0");
	}
	write_str("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	write_str("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N");
	write_str("/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N");
}

/* No more failures; mvgal's functions leave the injection list. */
static void fault_stop(void)
{
	char path[128];

	for (unsigned int i = 0; i < nr_fault_kinds; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/probability",
			 fault_kinds[i]);
		write_str(path, "0");
	}
	if (nr_fault_kinds > 2)
		write_str("/sys/kernel/debug/fail_function/inject", "\n");
}

/* How many failures each kind injected. */
static void fault_report(void)
{
	const char *const *kinds = fault_kinds;
	char path[128];

	printf("# faults injected:");
	for (unsigned int i = 0; i < nr_fault_kinds; i++) {
		long long left = -1;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/times", kinds[i]);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%lld", &left) != 1)
				left = -1;
			fclose(f);
		}
		printf(" %s %lld", kinds[i], left < 0 ? -1 : 1000000000LL - left);
	}
	printf("\n");
}

/*
 * This thread's calls fail (or not) from now on. Its make-it-fail file is
 * opened once, while nothing fails: opening it with failures on could
 * fail, and leave the thread failing everywhere (fork, page tables).
 */
static void fault_self(bool on)
{
	static __thread int fd = -1;

	if (!fault_pct)
		return;
	if (fd < 0)
		fd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, on ? "1" : "0", 1) != 1) {
		perror("make-it-fail");
		exit(2);
	}
}

/*
 * Whether this thread's current call injects: failures are turned on
 * only across its system calls (inj()), never while the fuzzer's own
 * code runs. A page fault of the fuzzer's own memory with failures on
 * would fail its page-table allocation and end in the kernel's "Huh
 * VM_FAULT_OOM leaked out" report, which is no finding about mvgal.
 */
static __thread bool inject_on;

static void inj(bool on)
{
	if (inject_on)
		fault_self(on);
}

/* ---- argument builders ---- */

static int pick_file(void)
{
	return (int)below(NFILES);
}

/* A priority: valid mostly. */
static uint32_t prio_ish(void)
{
	return chance(90) ? (uint32_t)below(MVGAL_PRIO_COUNT) : (uint32_t)edge();
}

/* A byte range: mostly one inside the small buffers the run makes. */
static void range_ish(__u64 *off, __u64 *len)
{
	if (chance(50)) {
		*off = below(4096);
		*len = 1 + below(8192);
	} else if (chance(50)) {
		*off = below(2 * CH);
		*len = 1 + below(CH + 10);
	} else {
		*off = size_ish();
		*len = size_ish();
	}
}

static uint32_t handle(int f)
{
	return (uint32_t)get(&files[f].handles, chance(50) ? below(8) : edge());
}

static uint32_t gpu_ish(void)
{
	return chance(85) ? (uint32_t)below(5) : (uint32_t)edge();
}

static int fence_ish(void)
{
	switch (below(4)) {
	case 0: return -1;
	case 1: return (int)get(&fences, (uint64_t)-1);
	case 2: return (int)get(&dmabufs, 0);
	default: return chance(50) ? -1 : (int)edge();
	}
}

/* A new syncobj of file @f: binary, or with a sync_file's fence at a point. */
static uint32_t new_syncobj(int f)
{
	int fd = (int)get(&fences, (uint64_t)-1);
	uint32_t h, tmp;
	uint64_t old;

	if (drmSyncobjCreate(files[f].fd, chance(50) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0, &h))
		return 0;
	if (fd >= 0 && chance(60) && !drmSyncobjCreate(files[f].fd, 0, &tmp)) {
		if (!drmSyncobjImportSyncFile(files[f].fd, tmp, fd))
			drmSyncobjTransfer(files[f].fd, h, chance(50) ? 0 : 1 + below(3),
					   tmp, 0, 0);
		drmSyncobjDestroy(files[f].fd, tmp);
	}
	if (put_evict(&files[f].syncobjs, h, &old))
		drmSyncobjDestroy(files[f].fd, (uint32_t)old);
	return h;
}

/*
 * A syncobj argument pair: mostly none, else a live syncobj of file @f
 * (another thread may destroy it meanwhile) or a handle that names none,
 * with a point that may not be on its timeline.
 */
static uint32_t syncobj_ish(int f, __u64 *point)
{
	uint32_t h;

	*point = chance(50) ? 0 : chance(85) ? 1 + below(4) : edge();
	if (chance(80)) {
		h = 0;
	} else if (chance(15)) {
		h = (uint32_t)edge();
	} else {
		h = (uint32_t)get(&files[f].syncobjs, 0);
		if (!h || chance(25))
			h = new_syncobj(f);
	}
	if (!h && chance(90))
		*point = 0;
	return h;
}

/* Overwrites a few aligned words of @arg with edge values. */
static void mutate(void *arg, size_t size)
{
	unsigned int n = chance(70) ? 0 : 1 + below(3);

	while (n--) {
		size_t off = below(size / 4) * 4;
		uint64_t v = edge();

		if (off + 8 <= size && chance(50))
			memcpy((char *)arg + off, &v, 8);
		else
			memcpy((char *)arg + off, &v, 4);
	}
}

/*
 * Each worker's io_uring: a quarter of the commands a ring takes go
 * through it (sometimes with a bad command word), and the ring goes with
 * its thread at the end of the run, BEGINs and MIGRATEs still in flight.
 */
static __thread struct io_uring ring;
static __thread bool ring_ok;
static __thread uint64_t ring_seq;

static bool ring_takes(unsigned long nr)
{
	switch (nr) {
	case DRM_IOCTL_MVGAL_BEGIN: case DRM_IOCTL_MVGAL_END:
	case DRM_IOCTL_MVGAL_MIGRATE: case DRM_IOCTL_MVGAL_CANCEL:
	case DRM_IOCTL_MVGAL_BO_PWRITE: case DRM_IOCTL_MVGAL_BO_PREAD:
	case DRM_IOCTL_MVGAL_BO_COPY: case DRM_IOCTL_MVGAL_HARVEST:
		return true;
	}
	return false;
}

/* Reaps what completed; the result of command @me if it is there, else 0. */
static int ring_reap(uint64_t me)
{
	struct io_uring_cqe *cqe;
	int ret = 0;

	while (!io_uring_peek_cqe(&ring, &cqe)) {
		if (cqe->user_data == me)
			ret = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	return ret;
}

/* Waits for command @me's completion, reaping the others; its result. */
static int ring_wait_for(uint64_t me)
{
	struct io_uring_cqe *cqe;

	for (;;) {
		uint64_t ud;
		int res;

		if (io_uring_wait_cqe(&ring, &cqe))
			return -EIO;
		ud = cqe->user_data;
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		if (ud == me)
			return res;
	}
}

/*
 * The call as an IORING_OP_URING_CMD. BEGIN and MIGRATE complete when
 * their copies are done, and are reaped later; every other command is
 * waited for (the ones that may wait run in io_uring's workers, so their
 * completion may come after the submit returns), since its struct and
 * buffers live on this thread's stack.
 */
static int ring_call(int fd, unsigned long nr, void *arg)
{
	struct drm_mvgal_uring_cmd *c;
	struct io_uring_sqe *sqe;
	uint64_t me = ++ring_seq;
	bool punted;
	int ret;

	ring_reap(0);
	sqe = io_uring_get_sqe(&ring);
	if (!sqe)
		return ioctl(fd, nr, arg) ? -errno : 0;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = chance(97) ? (uint32_t)nr : (uint32_t)edge();
	sqe->user_data = me;
	c = (struct drm_mvgal_uring_cmd *)sqe->cmd;
	c->args = chance(98) ? (uintptr_t)arg : edge();
	if (chance(2))
		c->flags = (uint32_t)edge();
	if (chance(2))
		c->pad = (uint32_t)edge();
	/*
	 * BO_PWRITE, BO_PREAD and BO_COPY go to io_uring's workers at once
	 * (-EAGAIN at their inline issue): their mvgal work runs in the
	 * worker, where failures are not on, and what the submission
	 * allocates is io_uring's own, among it a new worker thread, whose
	 * failed stack allocation warns (copy_process()). So only commands
	 * issued inline are submitted with failures on.
	 */
	punted = nr == DRM_IOCTL_MVGAL_BO_PWRITE || nr == DRM_IOCTL_MVGAL_BO_PREAD ||
		 nr == DRM_IOCTL_MVGAL_BO_COPY;
	inj(!punted);
	ret = io_uring_submit(&ring);
	inj(false);
	if (ret < 0)
		return ret;
	if (ret == 1 && nr != DRM_IOCTL_MVGAL_BEGIN && nr != DRM_IOCTL_MVGAL_MIGRATE)
		return ring_wait_for(me);
	return ring_reap(me);
}

/*
 * An io_uring worker made before any failure is on (a no-op forced to a
 * worker): a command that goes to one later (an interrupted inline issue
 * is handed to the workers) finds it rather than creating a thread with
 * failures on. io_uring keeps a ring's last idle worker.
 */
static void ring_start_worker(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	struct io_uring_cqe *cqe;

	if (!sqe)
		return;
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = 0;
	if (io_uring_submit(&ring) == 1 && !io_uring_wait_cqe(&ring, &cqe))
		io_uring_cqe_seen(&ring, cqe);
}

static int xioctl(int fd, unsigned long nr, void *arg)
{
	int ret;

	if (ring_ok && ring_takes(nr) && chance(25))
		return ring_call(fd, nr, arg);
	inj(true);
	ret = ioctl(fd, nr, arg) ? -errno : 0;
	inj(false);
	return ret;
}

/* A private buffer with known bytes: under fault injection, a failed
 * write into it must leave them.
 */
struct sentinel {
	int fd;		/* a file of the thread's own: no other can name it */
	uint32_t h;
	uint64_t size;
	uint8_t *want, *got;
};

static __thread struct sentinel sent;

static void sentinel_init(void)
{
	struct drm_mvgal_bo_create c = {
		.size = 3 * CH + 777, .flags = MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
		.gpu = MVGAL_GPU_ANY,
	};
	struct drm_mvgal_bo_rw w = { 0 };

	sent.fd = open(mvgal_path, O_RDWR | O_CLOEXEC);
	sent.size = c.size;
	sent.want = malloc(c.size);
	sent.got = malloc(c.size);
	if (sent.fd < 0 || !sent.want || !sent.got ||
	    xioctl(sent.fd, DRM_IOCTL_MVGAL_BO_CREATE, &c)) {
		sent.size = 0;
		return;
	}
	sent.h = c.handle;
	for (uint64_t i = 0; i < c.size; i++)
		sent.want[i] = (uint8_t)(rnd() >> 56);
	w.handle = sent.h;
	w.size = c.size;
	w.user_ptr = (uintptr_t)sent.want;
	if (xioctl(sent.fd, DRM_IOCTL_MVGAL_BO_PWRITE, &w))
		sent.size = 0;
}

/*
 * After a write into the sentinel: when it failed (@ret), its bytes must
 * be as they were; when it worked, they are what it wrote, the new model.
 */
static void sentinel_check(const char *what, int ret)
{
	struct drm_mvgal_bo_rw r = {
		.handle = sent.h, .size = sent.size, .user_ptr = (uintptr_t)sent.got,
	};
	bool was = inject_on;
	int rd = -EIO;

	/* The read-back must not fail by injection. */
	inject_on = false;
	for (int k = 0; k < 1000 && rd; k++)
		rd = xioctl(sent.fd, DRM_IOCTL_MVGAL_BO_PREAD, &r);
	if (rd) {
		fprintf(stderr, "fuzz: the sentinel cannot be read back (%d)\n", rd);
		atomic_fetch_add(&changed, 1);
	} else if (!ret) {
		memcpy(sent.want, sent.got, sent.size);
	} else if (memcmp(sent.want, sent.got, sent.size)) {
		fprintf(stderr, "fuzz: a failed %s (%d) changed the sentinel's bytes\n",
			what, ret);
		atomic_fetch_add(&changed, 1);
		memcpy(sent.want, sent.got, sent.size);
	}
	inject_on = was;
}

/* ---- the calls ---- */

static uint8_t *ubuf;	/* 1 MiB of user memory, shared by all */
#define UBUF (1 << 20)

static int do_begin(int f, bool *made)
{
	struct drm_mvgal_range r[4];
	/* The kernel writes results into every entry it is told of: room
	 * for all it may be told of, where nothing of the fuzzer's lives.
	 */
	struct drm_mvgal_access *a = (struct drm_mvgal_access *)
		(junk + JUNK / 2 + below(JUNK / 4) / 64 * 64);
	struct drm_mvgal_begin b = { 0 };
	unsigned int n = 1 + below(3);
	int ret;

	for (unsigned int i = 0; i < 4; i++)
		range_ish(&r[i].offset, &r[i].size);
	for (unsigned int i = 0; i < n; i++) {
		a[i] = (struct drm_mvgal_access){
			.handle = handle(f),
			.nr_ranges = chance(90) ? 1 + below(2) : below(70),
			.ranges = uptr(r, &b),
		};
		/* Mostly distinct buffers: one named twice is -EINVAL. */
		for (unsigned int j = 0; j < i && chance(90); j++)
			if (a[j].handle == a[i].handle)
				n = i;
	}
	b.accesses = uptr_out(a);
	b.count = chance(90) ? n : (uint32_t)edge();
	b.gpu = gpu_ish();
	b.flags = chance(90) ? (chance(50) ? MVGAL_ACCESS_READ : MVGAL_ACCESS_WRITE) |
		  (chance(20) ? MVGAL_ACCESS_NO_IN_PLACE : 0) : (uint32_t)edge();
	b.priority = prio_ish();
	b.in_fence_fd = chance(70) ? -1 : fence_ish();
	b.in_syncobj = syncobj_ish(f, &b.in_point);
	b.out_syncobj = syncobj_ish(f, &b.out_point);
	mutate(&b, sizeof(b));
	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_BEGIN, &b);
	if (!ret) {
		*made = true;
		put(&files[f].sessions, b.session, NULL);
		pthread_mutex_lock(&begun[f].lock);
		if (begun[f].n < NBEGUN)
			begun[f].id[begun[f].n++] = b.session;
		pthread_mutex_unlock(&begun[f].lock);
		if (b.out_fence_fd >= 0)
			put(&fences, b.out_fence_fd, drop_fd);
	}
	return ret;
}

static int do_end(int f)
{
	struct drm_mvgal_range r = { .offset = size_ish(), .size = size_ish() };
	struct drm_mvgal_access a = { .handle = handle(f), .nr_ranges = 1 };
	struct drm_mvgal_end e = { 0 };
	uint64_t s;

	a.ranges = uptr(&r, &e);
	if (!take(&files[f].sessions, &s))
		s = edge();
	e.session = (uint32_t)s;
	e.fence_fd = fence_ish();
	e.count = below(2);
	e.written = uptr(&a, &e);
	e.in_syncobj = syncobj_ish(f, &e.in_point);
	e.out_syncobj = syncobj_ish(f, &e.out_point);
	mutate(&e, sizeof(e));
	return xioctl(files[f].fd, DRM_IOCTL_MVGAL_END, &e);
}

static int do_create(int f)
{
	struct drm_mvgal_bo_create c = { 0 };
	int ret;

	c.size = chance(80) ? 1 + below(6 * CH) : edge();
	c.flags = chance(80) ? MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID |
		  (uint32_t)(below(2) ? MVGAL_BO_LAZY_ALLOCATE : 0) |
		  (uint32_t)(below(2) ? MVGAL_BO_ZERO_INITIALIZED : 0) :
		  (uint32_t)below(MVGAL_BO_FLAGS + 2);
	c.gpu = chance(60) ? MVGAL_GPU_ANY : gpu_ish();
	c.sharing = chance(50) ? 0 : below(MVGAL_SHARING_COUNT + 1);
	if (c.sharing && chance(80))
		c.flags |= MVGAL_BO_DMA_BUF;
	mutate(&c, sizeof(c));
	/*
	 * A buffer of all its size at once is real memory: past 32 MiB it
	 * is lazy; and no host buffer is over 128 MiB, so that one copy into
	 * it cannot fill the guest at once (see memory_low(); limits_test
	 * bounds what huge lazy buffers take with a memory cgroup).
	 */
	if (c.size > (32 << 20) && (c.flags & MVGAL_BO_HOST_VALID))
		c.flags |= MVGAL_BO_LAZY_ALLOCATE;
	if (c.size > (128 << 20) && c.size < (1ULL << 62) &&
	    (c.flags & MVGAL_BO_HOST_VALID))
		c.size = (128 << 20) - below(CH);
	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_BO_CREATE, &c);
	if (!ret)
		put_handle(f, c.handle);
	return ret;
}

/*
 * Registered user memory: a range of the junk area, whose pages the
 * kernel may then write whenever a GPU's bytes come home. A mutated
 * range that leaves the pointer window is put back into the junk area
 * (unless the kernel refuses it before looking at memory: unaligned,
 * empty or overflowing), so that no page of the fuzzer's own is pinned
 * and written.
 */
static int do_userptr(int f)
{
	uintptr_t w = (uintptr_t)junk - WINDOW / 2;
	struct drm_mvgal_bo_userptr u = {
		.user_ptr = (uintptr_t)junk + below(JUNK / 2) / 4096 * 4096,
		.size = chance(80) ? 1 + below(16 * 4096) : size_ish(),
		.flags = chance(50) ? MVGAL_USERPTR_MARKS : 0,
		.bo_flags = MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
	};
	int ret;

	if (chance(20))
		u.bo_flags |= MVGAL_BO_DMA_BUF | MVGAL_BO_SHARED;
	if (u.bo_flags & MVGAL_BO_DMA_BUF)
		u.sharing = 1 + below(MVGAL_SHARING_COUNT - 1);
	if (chance(10))
		u.user_ptr = uptr(junk, &u) & ~4095ULL;
	/* Half are mirrors, of the area the churn changes under them. */
	if (chance(50)) {
		u.flags |= MVGAL_USERPTR_MIRROR;
		u.bo_flags &= ~(MVGAL_BO_DMA_BUF | MVGAL_BO_SHARED);
		u.sharing = 0;
		u.user_ptr = (uintptr_t)mira + below(MIRA / 2) / 4096 * 4096;
		u.size = chance(80) ? 1 + below(16 * 4096) : 1 + below(MIRA / 2);
	}
	mutate(&u, sizeof(u));
	if ((u.user_ptr & 4095) == 0 && u.size &&
	    u.user_ptr + u.size > u.user_ptr &&
	    (u.user_ptr < w || u.user_ptr + u.size > w + WINDOW))
		u.user_ptr = (uintptr_t)junk;
	if (u.user_ptr == (uintptr_t)junk && u.size > JUNK)
		u.size = JUNK;
	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_BO_USERPTR, &u);
	if (!ret)
		put_handle(f, u.handle);
	return ret;
}

/*
 * What the kernel does to a mirrored registration's memory, made under
 * it while other threads use the buffers: pages zeroed, write-protected
 * for a moment, or replaced by new memory (a fixed mmap() over them,
 * which leaves no hole in the window's reservation). A fork (OP_FORK)
 * write-protects them all.
 */
static int do_mirror_churn(void)
{
	size_t off = below(MIRA / 4096) * 4096;
	size_t len = (1 + below(64)) * 4096;
	uint8_t *at = mira + off;

	if (len > MIRA - off)
		len = MIRA - off;
	switch (below(3)) {
	case 0:
		return madvise(at, len, MADV_DONTNEED) ? -errno : 0;
	case 1:
		if (mprotect(at, len, PROT_READ))
			return -errno;
		usleep(below(2000));
		return mprotect(at, len, PROT_READ | PROT_WRITE) ? -errno : 0;
	default:
		return mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
			    MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ?
		       -errno : 0;
	}
}

static int do_mark(int f)
{
	struct drm_mvgal_bo_mark m = { .handle = handle(f) };

	range_ish(&m.offset, &m.size);
	mutate(&m, sizeof(m));
	return xioctl(files[f].fd, DRM_IOCTL_MVGAL_BO_MARK, &m);
}

static int do_rw(int f, bool write)
{
	struct drm_mvgal_bo_rw w = { .handle = handle(f) };
	bool into_sentinel = write && fault_pct && sent.size && chance(30);
	int ret;

	range_ish(&w.offset, &w.size);
	if (chance(10))
		w.size = below(UBUF / 4);
	/* What the kernel writes lands in the junk area only. */
	w.user_ptr = write ? uptr(ubuf + below(UBUF / 2), &w) :
			  uptr_out(junk + below(JUNK / 2));
	if (into_sentinel) {
		w.handle = sent.h;
		w.offset = below(sent.size);
	}
	/* Staged writes: behind the other threads' sessions and jobs. */
	if (write && chance(30))
		w.flags = MVGAL_RW_STAGED;
	mutate(&w, sizeof(w));
	ret = xioctl(into_sentinel ? sent.fd : files[f].fd,
		     write ? DRM_IOCTL_MVGAL_BO_PWRITE : DRM_IOCTL_MVGAL_BO_PREAD, &w);
	if (into_sentinel && w.handle == sent.h)
		sentinel_check("BO_PWRITE", ret);
	return ret;
}

static int do_copy(int f)
{
	struct drm_mvgal_bo_copy c = {
		.src_handle = handle(f), .dst_handle = handle(f),
	};
	bool into_sentinel = fault_pct && sent.size && chance(30);
	int ret;

	range_ish(&c.src_offset, &c.size);
	c.dst_offset = chance(75) ? below(2 * CH) : size_ish();
	if (into_sentinel) {
		/* Within the sentinel (its file has no other buffer). */
		c.src_handle = chance(80) ? sent.h : c.src_handle;
		c.dst_handle = sent.h;
		c.dst_offset = below(sent.size);
	}
	mutate(&c, sizeof(c));
	ret = xioctl(into_sentinel ? sent.fd : files[f].fd, DRM_IOCTL_MVGAL_BO_COPY, &c);
	if (into_sentinel && c.dst_handle == sent.h)
		sentinel_check("BO_COPY", ret);
	return ret;
}

static int do_migrate(int f)
{
	struct drm_mvgal_migrate m = {
		.handle = handle(f), .location = below(6), .priority = prio_ish(),
		.flags = chance(40) ? MVGAL_MIGRATE_MOVE : 0,
	};
	int ret;

	range_ish(&m.offset, &m.size);
	m.in_fence_fd = chance(70) ? -1 : fence_ish();
	m.in_syncobj = syncobj_ish(f, &m.in_point);
	m.out_syncobj = syncobj_ish(f, &m.out_point);
	mutate(&m, sizeof(m));
	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_MIGRATE, &m);
	if (!ret) {
		if (m.job > atomic_load(&last_job))
			atomic_store(&last_job, m.job);
		put(&files[f].jobs, m.job, NULL);
		if (m.out_fence_fd >= 0)
			put(&fences, m.out_fence_fd, drop_fd);
	}
	return ret;
}

static int do_harvest(int f)
{
	uint64_t *words = (uint64_t *)(junk + below(JUNK / 2) / 8 * 8);
	/* As for BEGIN: the kernel writes every entry it is told of. */
	struct drm_mvgal_harvest_entry *e = (struct drm_mvgal_harvest_entry *)
		(junk + JUNK / 2 + below(JUNK / 4) / 64 * 64);
	struct drm_mvgal_harvest h = { 0 };

	for (int i = 0; i < 2; i++)
		e[i] = (struct drm_mvgal_harvest_entry){
			.handle = handle(f), .flags = chance(90) ? below(2) : below(4),
			.data = uptr_out(words), .capacity = below(70),
		};
	h.entries = uptr_out(e);
	h.count = chance(90) ? 1 + below(2) : (uint32_t)edge();
	if (h.count == 2 && e[1].handle == e[0].handle)
		h.count = 1;
	h.flags = chance(90) ? below(2) : below(4);
	mutate(&h, sizeof(h));
	return xioctl(files[f].fd, DRM_IOCTL_MVGAL_HARVEST, &h);
}

static int do_replicate(int f)
{
	uint32_t gpus[4] = { gpu_ish(), gpu_ish(), gpu_ish(), gpu_ish() };
	struct drm_mvgal_replicate r = {
		.handle = handle(f), .nr_gpus = chance(90) ? 1 + below(2) : below(9),
		.priority = prio_ish(),
	};
	int ret;

	if (gpus[1] == gpus[0] && chance(90))
		gpus[1] = (gpus[0] + 1) % 4;
	range_ish(&r.offset, &r.size);
	r.gpus = uptr(gpus, &r);
	r.in_fence_fd = chance(70) ? -1 : fence_ish();
	mutate(&r, sizeof(r));
	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_REPLICATE, &r);
	if (!ret && r.out_fence_fd >= 0)
		put(&fences, r.out_fence_fd, drop_fd);
	return ret;
}

static int do_advise(int f)
{
	static const uint32_t kinds[] = {
		0, MVGAL_ADVISE_SET, MVGAL_ADVISE_SET | MVGAL_ADVISE_APPLY,
		MVGAL_ADVISE_READ_MOSTLY, MVGAL_ADVISE_NOT_READ_MOSTLY,
	};
	struct drm_mvgal_advise a = {
		.handle = handle(f),
		.flags = chance(80) ? kinds[below(5)] : (uint32_t)below(MVGAL_ADVISE_FLAGS + 2),
		.preferred = chance(50) ? MVGAL_GPU_ANY : gpu_ish(),
		.accessed_by = below(16),
	};
	int ret;

	if (a.flags & MVGAL_ADVISE_SET)
		a.workload = below(5);
	else
		a.preferred = a.accessed_by = 0;
	if (a.flags & (MVGAL_ADVISE_READ_MOSTLY | MVGAL_ADVISE_NOT_READ_MOSTLY))
		range_ish(&a.offset, &a.size);

	mutate(&a, sizeof(a));
	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_ADVISE, &a);
	if (!ret && a.out_fence_fd >= 0 && a.out_fence_fd < 65536)
		put(&fences, a.out_fence_fd, drop_fd);
	return ret;
}

/* The other mvgal ioctls: templates with state where it matters. */
static int do_simple(int op, int f)
{
	union {
		struct drm_mvgal_get_info gi;
		struct drm_mvgal_gpu_info g;
		struct drm_mvgal_gpu_link l;
		struct drm_mvgal_get_heap h;
		struct drm_mvgal_bo_info bi;
		struct drm_mvgal_bo_list bl;
		struct drm_mvgal_cancel c;
		struct drm_mvgal_place_free pf;
		struct drm_mvgal_stats st;
		struct drm_mvgal_path p;
		struct drm_mvgal_pool_fd pool;
		struct drm_mvgal_file_flags ff;
		struct drm_mvgal_gpu_budget gb;
		struct drm_mvgal_pool_lru lru;
		struct drm_mvgal_gpu_detach d;
		struct drm_mvgal_calibrate cal;
		struct drm_mvgal_place_fd pl;
		uint8_t raw[512];
	} u;
	uint8_t *out = junk + below(JUNK / 4);
	unsigned long nr = 0;
	size_t size = 0;
	int ret;

	memset(&u, 0, sizeof(u));
	switch (op) {
	case OP_GET_INFO: nr = DRM_IOCTL_MVGAL_GET_INFO; size = sizeof(u.gi); break;
	case OP_GPU_INFO:
		u.g.gpu = gpu_ish();
		nr = DRM_IOCTL_MVGAL_GPU_INFO; size = sizeof(u.g); break;
	case OP_GPU_LINK:
		u.l.src = gpu_ish(); u.l.dst = gpu_ish();
		nr = DRM_IOCTL_MVGAL_GPU_LINK; size = sizeof(u.l); break;
	case OP_GET_HEAP:
		u.h.num_regions = below(12); u.h.regions = uptr_out(out);
		u.h.num_nodes = below(4); u.h.nodes = uptr_out(out + 4096);
		nr = DRM_IOCTL_MVGAL_GET_HEAP; size = sizeof(u.h); break;
	case OP_BO_INFO:
		u.bi.handle = handle(f);
		nr = DRM_IOCTL_MVGAL_BO_INFO; size = sizeof(u.bi); break;
	case OP_BO_LIST:
		u.bl.count = chance(80) ? below(40) : (uint32_t)edge();
		u.bl.entries = uptr_out(out);
		nr = DRM_IOCTL_MVGAL_BO_LIST; size = sizeof(u.bl); break;
	case OP_CANCEL:
		/* Around the newest id: a rival's jobs are there too. */
		u.c.job = chance(30) ? atomic_load(&last_job) + below(16) - 8 :
			  get(&files[f].jobs, edge());
		nr = DRM_IOCTL_MVGAL_CANCEL; size = sizeof(u.c); break;
	case OP_PLACE_FREE:
		u.pf.handle = handle(f); u.pf.gpu = gpu_ish();
		nr = DRM_IOCTL_MVGAL_PLACE_FREE; size = sizeof(u.pf); break;
	case OP_GET_STATS: nr = DRM_IOCTL_MVGAL_GET_STATS; size = sizeof(u.st); break;
	case OP_GET_PATH:
		u.p.src = below(6); u.p.dst = below(6); u.p.size = size_ish();
		nr = DRM_IOCTL_MVGAL_GET_PATH; size = sizeof(u.p); break;
	case OP_POOL_FD:
		u.pool.gpu = gpu_ish();
		nr = DRM_IOCTL_MVGAL_POOL_FD; size = sizeof(u.pool); break;
	case OP_FILE_FLAGS:
		u.ff.flags = chance(80) ? (uint32_t)below(2) : (uint32_t)edge();
		nr = DRM_IOCTL_MVGAL_FILE_FLAGS; size = sizeof(u.ff); break;
	case OP_GPU_BUDGET:
		u.gb.gpu = gpu_ish(); u.gb.flags = below(3); u.gb.budget = size_ish();
		nr = DRM_IOCTL_MVGAL_GPU_BUDGET; size = sizeof(u.gb); break;
	case OP_POOL_LRU:
		u.lru.gpu = gpu_ish(); u.lru.count = below(100);
		u.lru.entries = uptr_out(out);
		nr = DRM_IOCTL_MVGAL_POOL_LRU; size = sizeof(u.lru); break;
	case OP_GPU_DETACH:
		u.d.gpu = gpu_ish();
		nr = DRM_IOCTL_MVGAL_GPU_DETACH; size = sizeof(u.d); break;
	case OP_CALIBRATE:
		nr = DRM_IOCTL_MVGAL_CALIBRATE; size = sizeof(u.cal); break;
	case OP_PLACE_FD:
		u.pl.handle = handle(f); u.pl.gpu = gpu_ish();
		u.pl.flags = chance(70) ? MVGAL_PLACE_FD_RDWR : below(4);
		nr = DRM_IOCTL_MVGAL_PLACE_FD; size = sizeof(u.pl); break;
	default: {	/* any command number, any bytes */
		unsigned int cmd = below(0x30);

		for (size_t i = 0; i < sizeof(u.raw); i++)
			u.raw[i] = (uint8_t)rnd();
		size = below(sizeof(u.raw));
		if (!getuid() && (cmd == 0x02 || cmd == 0x13 || cmd == 0x17))
			cmd = 0x01;	/* no detach, calibrate, budget as root */
		nr = DRM_IOWR(DRM_COMMAND_BASE + cmd, uint8_t[1]);
		nr = (nr & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		     ((unsigned long)size << _IOC_SIZESHIFT);
		return xioctl(files[f].fd, nr, &u);
	}
	}
	mutate(&u, size);
	ret = xioctl(files[f].fd, nr, &u);
	if (!ret && op == OP_POOL_FD && u.pool.fd >= 0 && u.pool.fd < 65536)
		close(u.pool.fd);
	/* An export joins the dma-bufs that are mapped, synced, imported. */
	if (!ret && op == OP_PLACE_FD && u.pl.fd >= 0 && u.pl.fd < 65536)
		put(&dmabufs, u.pl.fd, drop_fd);
	return ret;
}

/*
 * GPU_ATTACH's fds, made at start (as root, before --user drops it): the
 * card node of every DRM device but mvgal, with a 64 KiB dma-buf of its
 * own memory (a dumb buffer, as libmvgal makes pools), a pipe, and an fd
 * number closed at once, far above what the run opens.
 */
#define NCARDS 8
static int cards[NCARDS], card_pools[NCARDS], nr_cards;
static int apipe[2] = { -1, -1 }, dead_fd = -1;

static void attach_fds_init(void)
{
	drmDevicePtr devs[16];
	int n = drmGetDevices2(0, devs, 16);

	for (int i = 0; i < n && nr_cards < NCARDS; i++) {
		struct drm_mode_create_dumb d = { .width = 128, .height = 128, .bpp = 32 };
		drmVersionPtr v;
		int f, pool = -1;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_PRIMARY)))
			continue;
		f = open(devs[i]->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC);
		if (f < 0)
			continue;
		v = drmGetVersion(f);
		if (!v || !strcmp(v->name, "mvgal")) {
			drmFreeVersion(v);
			close(f);
			continue;
		}
		drmFreeVersion(v);
		if (!drmIoctl(f, DRM_IOCTL_MODE_CREATE_DUMB, &d)) {
			if (drmPrimeHandleToFD(f, d.handle, DRM_CLOEXEC | DRM_RDWR, &pool))
				pool = -1;
			drmCloseBufferHandle(f, d.handle);
		}
		cards[nr_cards] = f;
		card_pools[nr_cards++] = pool;
	}
	drmFreeDevices(devs, n);
	if (pipe2(apipe, O_CLOEXEC))
		apipe[0] = apipe[1] = -1;
	dead_fd = fcntl(0, F_DUPFD_CLOEXEC, 900);
	if (dead_fd >= 0)
		close(dead_fd);
}

/* A drm_fd (@pool false) or pool_fd for GPU_ATTACH; card @k is the GPU
 * the call is about.
 */
static int attach_fd_ish(int f, int k, bool pool)
{
	int other = nr_cards ? (int)below(nr_cards) : 0;

	switch (nr_cards ? below(10) : 6 + below(4)) {
	case 0: case 1: case 2:		/* the right kind, of that GPU */
		return pool ? card_pools[k] : cards[k];
	case 3:				/* of another (or the same) GPU */
		return pool ? card_pools[other] : cards[other];
	case 4:				/* the other kind */
		return pool ? cards[k] : card_pools[k];
	case 5:
		return chance(50) ? vgem : card_pools[other];
	case 6:				/* mvgal's own node, or its dma-bufs */
		return chance(50) ? files[f].fd : (int)get(&dmabufs, (uint64_t)-1);
	case 7:
		return apipe[below(2)];
	case 8:
		return dead_fd;
	default:
		return chance(50) ? -1 : (int)edge();
	}
}

static int do_gpu_attach(int f)
{
	struct drm_mvgal_gpu_attach a = { 0 };
	int k = nr_cards ? (int)below(nr_cards) : 0, ret;

	a.drm_fd = attach_fd_ish(f, k, false);
	a.pool_fd = attach_fd_ish(f, k, true);
	a.flags = chance(85) ? 0 : (chance(50) ? 1U << below(32) : (uint32_t)edge());
	switch (below(5)) {
	case 0: case 1: a.gpu = MVGAL_GPU_ANY; break;
	case 2: case 3: a.gpu = below(MVGAL_MAX_GPUS); break;	/* taken or free */
	default: a.gpu = chance(50) ? MVGAL_MAX_GPUS + below(3) : (uint32_t)edge(); break;
	}
	mutate(&a, sizeof(a));
	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_GPU_ATTACH, &a);
	/* A spare GPU attached: the run does not rely on it, it goes again. */
	if (!ret && a.gpu < MVGAL_MAX_GPUS) {
		struct drm_mvgal_gpu_detach d = { .gpu = a.gpu };

		xioctl(files[f].fd, DRM_IOCTL_MVGAL_GPU_DETACH, &d);
	}
	return ret;
}

/*
 * PLACE_ADOPT of a dumb buffer made now on any card node (the GPU's own
 * driver or another's), mostly of the buffer's pages, at times a page
 * more or a buffer's size picked blindly; the lent dma-buf then joins the
 * others (mapped, synced, imported, sent to the rival) as a GPU API's
 * would be used.
 */
static int do_place_adopt(int f)
{
	struct drm_mvgal_place_adopt a = { .handle = handle(f), .gpu = gpu_ish() };
	struct drm_mvgal_bo_info bi = { .handle = a.handle };
	struct drm_mode_create_dumb c = { .bpp = 32, .width = 1024 };
	struct drm_mode_destroy_dumb d = { 0 };
	int card, fd, ret;

	if (!nr_cards)
		return -ENODEV;
	card = cards[below(nr_cards)];
	if (xioctl(files[f].fd, DRM_IOCTL_MVGAL_BO_INFO, &bi) || chance(10) ||
	    bi.size > (4u << 20))
		bi.size = 4096 * (1 + below(16));
	c.height = (uint32_t)((bi.size + 4095) / 4096) + (chance(10) ? 1 : 0);
	if (drmIoctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		return -errno;
	ret = drmPrimeHandleToFD(card, c.handle, DRM_CLOEXEC | DRM_RDWR, &fd);
	ret = ret ? -errno : 0;
	d.handle = c.handle;
	drmIoctl(card, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
	if (ret)
		return ret;
	a.fd = chance(95) ? fd : (int)edge();
	a.flags = chance(95) ? 0 : (uint32_t)edge();
	a.pad = chance(95) ? 0 : 1;
	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_PLACE_ADOPT, &a);
	put(&dmabufs, fd, drop_fd);
	return ret;
}

static int do_prime_export(int f)
{
	int fd, ret;

	ret = drmPrimeHandleToFD(files[f].fd, handle(f),
				 DRM_CLOEXEC | (chance(50) ? DRM_RDWR : 0), &fd);
	if (ret)
		return -errno;
	/* The rival gets its own reference; a full socket drops it. */
	if (rival_sock >= 0 && chance(30))
		send_fd(rival_sock, fd);
	put(&dmabufs, fd, drop_fd);
	return 0;
}

static int do_prime_import(int f, bool from_vgem)
{
	uint32_t h;
	int fd = -1, ret;

	if (from_vgem) {
		struct drm_mode_create_dumb d = {
			.width = 1 + below(600), .height = 1 + below(40), .bpp = 32,
		};

		if (vgem < 0 || drmIoctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &d))
			return -errno;
		ret = drmPrimeHandleToFD(vgem, d.handle, DRM_CLOEXEC |
					 (chance(50) ? DRM_RDWR : 0), &fd);
		drmCloseBufferHandle(vgem, d.handle);
		if (ret)
			return -errno;
	} else if (rival_sock >= 0 && chance(40) &&
		   (fd = recv_fd(rival_sock)) >= 0) {
		/* The rival's buffer: imported, then kept as ours are. */
		put(&dmabufs, fd, drop_fd);
	} else {
		fd = (int)get(&dmabufs, (uint64_t)edge());
	}
	inj(true);
	ret = drmPrimeFDToHandle(files[f].fd, fd, &h) ? -errno : 0;
	inj(false);
	if (!ret)
		put_handle(f, h);
	if (from_vgem)
		put(&dmabufs, fd, drop_fd);
	return ret;
}

/* Holds one of our buffers' lock for up to 40 ms (root only). */
static int do_bo_hold(int f)
{
	struct drm_mvgal_bo_info i = { .handle = handle(f) };
	char cmd[64];
	int fd, ret;

	ret = xioctl(files[f].fd, DRM_IOCTL_MVGAL_BO_INFO, &i);
	if (ret)
		return ret;
	fd = open("/sys/kernel/debug/mvgal/bo_hold", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(cmd, sizeof(cmd), "%llu %u", (unsigned long long)i.id,
		 (unsigned int)below(40));
	ret = write(fd, cmd, strlen(cmd)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * The VRAM stand-in GPUs' drivers move every unpinned buffer, pools mvgal
 * holds included, to system memory, as TTM's eviction does: mvgal must
 * stop its copies, map the pools again and keep every byte. Root only.
 */
static int do_evict(void)
{
	glob_t g;
	int ret = -ENODEV;

	if (glob("/sys/bus/pci/drivers/mvgal_vram/*/evict", 0, NULL, &g))
		return -ENODEV;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		int fd = open(g.gl_pathv[i], O_WRONLY | O_CLOEXEC);

		if (fd < 0) {
			ret = -errno;
			continue;
		}
		ret = write(fd, "1", 1) < 0 ? -errno : 0;
		close(fd);
	}
	globfree(&g);
	return ret;
}

static int do_syncobj(int f)
{
	uint32_t h;
	int ret = drmSyncobjCreate(files[f].fd, chance(50) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0, &h);

	if (ret)
		return ret;
	if (chance(50)) {
		int fd = (int)get(&fences, (uint64_t)-1);

		if (fd >= 0)
			ret = drmSyncobjImportSyncFile(files[f].fd, h, fd);
	}
	if (!ret && chance(50)) {
		int out;

		ret = drmSyncobjExportSyncFile(files[f].fd, h, &out);
		if (!ret)
			put(&fences, out, drop_fd);
	}
	/*
	 * Never a large handle count: the DRM core (not mvgal) WARNs in
	 * drm_syncobj_array_find() from 2^20 handles on, which would fail
	 * the run on a report that is not ours.
	 */
	if (!ret)
		ret = drmSyncobjWait(files[f].fd, &h, 1, 0, 0, NULL);
	drmSyncobjDestroy(files[f].fd, h);
	return ret == -ETIME ? 0 : ret;
}

static int do_sync_info(void)
{
	struct sync_fence_info fi[2];
	struct sync_file_info info = { .num_fences = below(3) };

	info.sync_fence_info = uptr_out(fi);
	return xioctl((int)get(&fences, (uint64_t)-1), SYNC_IOC_FILE_INFO, &info);
}

static int do_sync_merge(void)
{
	struct sync_merge_data m = { .name = "fuzz", .fd2 = (int)get(&fences, (uint64_t)-1) };
	int ret = xioctl((int)get(&fences, (uint64_t)-1), SYNC_IOC_MERGE, &m);

	if (!ret)
		put(&fences, m.fence, drop_fd);
	return ret;
}

static int do_dmabuf_sync(void)
{
	struct dma_buf_sync s = { .flags = chance(90) ?
		DMA_BUF_SYNC_START + (uint64_t)below(2) * DMA_BUF_SYNC_END +
		(uint64_t)below(3) + 1 : edge() };
	int fd = (int)get(&dmabufs, (uint64_t)-1), ret;

	ret = xioctl(fd, DMA_BUF_IOCTL_SYNC, &s);
	if (!ret && chance(50)) {
		struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_RW };

		if (!xioctl(fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e))
			put(&fences, e.fd, drop_fd);
	}
	return ret;
}

static void drop_map(uint64_t addr)
{
	(void)addr;	/* unmapped by OP_MUNMAP only: length lives in mapl */
}

static int do_mmap(int f)
{
	struct drm_mvgal_bo_info i = { .handle = handle(f) };
	size_t len;
	void *va;
	int fd = files[f].fd;
	off_t off;

	if (chance(40)) {
		fd = (int)get(&dmabufs, (uint64_t)-1);
		off = 0;
		len = (size_t)(1 + below(5)) * 4096;
	} else {
		if (xioctl(fd, DRM_IOCTL_MVGAL_BO_INFO, &i) || !i.mmap_offset)
			return -ENOENT;
		off = (off_t)i.mmap_offset;
		len = (i.size + 4095) & ~4095ULL;
	}
	va = mmap(NULL, len, chance(80) ? PROT_READ | PROT_WRITE : PROT_READ,
		  chance(95) ? MAP_SHARED : MAP_PRIVATE, fd, off);
	if (va == MAP_FAILED)
		return -errno;
	pthread_mutex_lock(&maps.lock);
	if (maps.n < NSLOTS) {
		mapl[maps.n] = len;
		maps.v[maps.n++] = (uintptr_t)va;
		va = NULL;
	}
	pthread_mutex_unlock(&maps.lock);
	if (va)
		munmap(va, len);
	drop_map(0);
	return 0;
}

static int do_touch(void)
{
	volatile uint8_t *p;
	size_t len;
	int sig;

	/* Held throughout: no other thread unmaps it (and maps something
	 * else there) meanwhile. A SIGBUS or SIGSEGV from mvgal is caught.
	 */
	pthread_mutex_lock(&maps.lock);
	if (!maps.n) {
		pthread_mutex_unlock(&maps.lock);
		return -ENOENT;
	}
	{
		unsigned int i = below(maps.n);

		p = (volatile uint8_t *)(uintptr_t)maps.v[i];
		len = mapl[i];
	}
	armed = 1;
	sig = sigsetjmp(jb, 1);
	if (!sig) {
		for (unsigned int k = 0; k < 8; k++) {
			size_t at = below(len);

			if (chance(50))
				p[at] = (uint8_t)rnd();
			else
				(void)p[at];
		}
	}
	armed = 0;
	pthread_mutex_unlock(&maps.lock);
	return sig ? -EFAULT : 0;
}

static int do_munmap(void)
{
	void *va = NULL;
	size_t len = 0;

	pthread_mutex_lock(&maps.lock);
	if (maps.n) {
		unsigned int i = below(maps.n);

		va = (void *)(uintptr_t)maps.v[i];
		len = mapl[i];
		maps.v[i] = maps.v[maps.n - 1];
		mapl[i] = mapl[maps.n - 1];
		maps.n--;
	}
	pthread_mutex_unlock(&maps.lock);
	return va ? (munmap(va, len) ? -errno : 0) : -ENOENT;
}

static int do_close(void)
{
	uint64_t fd;

	if (take(chance(50) ? &fences : &dmabufs, &fd))
		return close((int)fd) ? -errno : 0;
	return -ENOENT;
}

static int do_gem_close(int f)
{
	uint64_t h;

	if (!take(&files[f].handles, &h))
		h = edge();
	return drmCloseBufferHandle(files[f].fd, (uint32_t)h) ? -errno : 0;
}

/* A file is closed and opened anew: its sessions end, its handles go. */
static int reopen_file(int f)
{
	int fd, old;

	fd = open(mvgal_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	old = files[f].fd;
	files[f].fd = fd;
	pthread_mutex_lock(&files[f].handles.lock);
	files[f].handles.n = 0;
	pthread_mutex_unlock(&files[f].handles.lock);
	pthread_mutex_lock(&files[f].sessions.lock);
	files[f].sessions.n = 0;
	pthread_mutex_unlock(&files[f].sessions.lock);
	pthread_mutex_lock(&files[f].syncobjs.lock);
	files[f].syncobjs.n = 0;
	pthread_mutex_unlock(&files[f].syncobjs.lock);
	close(old);
	return 0;
}

static int do_reopen(void)
{
	return reopen_file(1 + (int)below(NFILES - 1));
}

/*
 * Buffers' pages are the kernel's, not the process's: the OOM killer does
 * not see them, and a run that filled the guest would end in its report,
 * which is about the test bed, not mvgal. When the guest's available
 * memory falls under a quarter, a thread lets go of everything the run
 * holds: every file's handles, dma-buf fds and mappings.
 */
static atomic_int shed_wanted, sheds;

static bool memory_low(void)
{
	long long total = 0, avail = -1, v;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemTotal: %lld kB", &v) == 1)
			total = v;
		else if (sscanf(line, "MemAvailable: %lld kB", &v) == 1)
			avail = v;
	}
	fclose(f);
	return avail >= 0 && avail < total / 4;
}

static void shed(void)
{
	uint64_t fd;

	for (int f = 0; f < NFILES; f++)
		reopen_file(f);
	while (take(&dmabufs, &fd))
		close((int)fd);
	while (!do_munmap())
		;
	atomic_fetch_add(&sheds, 1);
}

/* A child shares the files, makes a few calls and is killed mid-way. */
static int do_fork(int f)
{
	struct drm_mvgal_bo_rw w = { .handle = handle(f), .size = CH };
	struct drm_mvgal_begin b = { 0 };
	struct drm_mvgal_access a = { .handle = w.handle };
	int fd = files[f].fd, st;
	pid_t pid;

	b.accesses = (uintptr_t)&a;
	b.count = 1;
	b.flags = MVGAL_ACCESS_WRITE;
	b.in_fence_fd = -1;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		for (int i = 0; i < 50; i++) {
			w.user_ptr = (uintptr_t)ubuf;
			ioctl(fd, DRM_IOCTL_MVGAL_BO_PWRITE, &w);
			ioctl(fd, DRM_IOCTL_MVGAL_BEGIN, &b);
		}
		_exit(0);
	}
	if (chance(70)) {
		usleep((useconds_t)below(2000));
		kill(pid, SIGKILL);
	}
	waitpid(pid, &st, 0);
	return 0;
}

static int call(int op)
{
	int f = pick_file();
	bool made = false;

	switch (op) {
	case OP_BO_CREATE: return do_create(f);
	case OP_PWRITE: return do_rw(f, true);
	case OP_PREAD: return do_rw(f, false);
	case OP_COPY: return do_copy(f);
	case OP_BEGIN: return do_begin(f, &made);
	case OP_END: return do_end(f);
	case OP_MIGRATE: return do_migrate(f);
	case OP_HARVEST: return do_harvest(f);
	case OP_REPLICATE: return do_replicate(f);
	case OP_ADVISE: return do_advise(f);
	case OP_GEM_CLOSE: return do_gem_close(f);
	case OP_PRIME_EXPORT: return do_prime_export(f);
	case OP_PRIME_IMPORT: return do_prime_import(f, false);
	case OP_VGEM_IMPORT: return do_prime_import(f, true);
	case OP_SYNCOBJ: return do_syncobj(f);
	case OP_SYNC_INFO: return do_sync_info();
	case OP_SYNC_MERGE: return do_sync_merge();
	case OP_DMABUF_SYNC: return do_dmabuf_sync();
	case OP_MMAP: return do_mmap(f);
	case OP_TOUCH: return do_touch();
	case OP_MUNMAP: return do_munmap();
	case OP_CLOSE: return do_close();
	case OP_REOPEN: return do_reopen();
	case OP_FORK: return do_fork(f);
	case OP_GPU_ATTACH: return do_gpu_attach(f);
	case OP_BO_USERPTR: return do_userptr(f);
	case OP_BO_MARK: return do_mark(f);
	case OP_BO_HOLD: return do_bo_hold(f);
	case OP_EVICT: return do_evict();
	case OP_PLACE_ADOPT: return do_place_adopt(f);
	case OP_MIRROR_CHURN: return do_mirror_churn();
	default: return do_simple(op, f);
	}
}

/* ---- the run ---- */

static uint64_t seed, calls_max;
static unsigned int seconds_max;
static atomic_int stop;
static unsigned int weight_sum;

static int pick_op(void)
{
	unsigned int w = below(weight_sum);

	for (int op = 0; op < OP_COUNT; op++) {
		if (w < op_weight[op])
			/* As root, never detach the run's GPUs nor spend
			 * seconds calibrating: unprivileged runs call both.
			 */
			return (op == OP_CALIBRATE || op == OP_GPU_DETACH) &&
			       !getuid() ? OP_GET_STATS : op;
		w -= op_weight[op];
	}
	return OP_GET_INFO;
}

/*
 * What each worker is doing, for the report of a run that stopped making
 * calls: a hang of the fuzzer itself, not of mvgal, must say where it is.
 */
static _Atomic int busy_op[16];
static _Atomic int busy_tid[16];

/* Ends every session this process began that is still open. */
static void end_begun(void)
{
	for (int f = 0; f < NFILES; f++) {
		pthread_mutex_lock(&begun[f].lock);
		for (unsigned int i = 0; i < begun[f].n; i++) {
			struct drm_mvgal_end e = {
				.session = begun[f].id[i], .fence_fd = -1,
			};

			ioctl(files[f].fd, DRM_IOCTL_MVGAL_END, &e);
		}
		begun[f].n = 0;
		pthread_mutex_unlock(&begun[f].lock);
	}
}

static void *worker(void *p)
{
	uintptr_t id = (uintptr_t)p;

	atomic_store(&busy_tid[id], (int)gettid());

	rs = seed * 0x9e3779b97f4a7c15ULL + id * 0xbf58476d1ce4e5b9ULL + 1;
	sentinel_init();
	ring_ok = !io_uring_queue_init(8, &ring, 0);
	if (ring_ok)
		ring_start_worker();
	while (!atomic_load(&stop)) {
		int op = pick_op(), ret;

		if (atomic_exchange(&shed_wanted, 0))
			shed();
		/*
		 * Allocations fail only inside mvgal's ioctls and imports:
		 * elsewhere (fork, mmap, page tables) the kernel's own
		 * allocation-failure warnings would drown what matters.
		 */
		bool inject = op <= OP_RAW || op == OP_PRIME_IMPORT ||
			      op == OP_VGEM_IMPORT ||
			      (op >= OP_BO_USERPTR && op != OP_MIRROR_CHURN);

		inject_on = inject;
		atomic_store(&busy_op[id], op + 1);
		ret = call(op);
		atomic_store(&busy_op[id], 0);
		inject_on = false;

		count(op, ret);
		if (calls_max && atomic_load(&total) >= calls_max)
			atomic_store(&stop, 1);
	}
	end_begun();
	if (ring_ok)
		io_uring_queue_exit(&ring);
	return NULL;
}

/*
 * A fault outside do_touch() is a bug of the fuzzer (or memory of its own
 * that the kernel wrote): say where, and what each worker was calling.
 */
static void fault_report_unarmed(int sig, const siginfo_t *si)
{
	char line[160];
	int n;

	n = snprintf(line, sizeof(line), "fuzz: %s at %p in tid %d\n",
		     sig == SIGBUS ? "SIGBUS" : "SIGSEGV", si->si_addr, (int)gettid());
	if (write(2, line, (size_t)n) < 0)
		return;
	for (unsigned int i = 0; i < 16; i++) {
		int op = atomic_load(&busy_op[i]);

		if (!atomic_load(&busy_tid[i]))
			continue;
		n = snprintf(line, sizeof(line), "fuzz: worker %u, tid %d: %s\n", i,
			     atomic_load(&busy_tid[i]),
			     op ? op_names[op - 1] : "between calls");
		if (write(2, line, (size_t)n) < 0)
			return;
	}
}

static void print_owner(const char *name, pthread_mutex_t *m)
{
	if (m->__data.__owner)
		fprintf(stderr, "fuzz: %s is held by tid %d\n", name, m->__data.__owner);
}

/*
 * The kernel stacks (root only) of the tasks in directory @dir: every one,
 * or those whose stack names @only (kernel threads working for mvgal).
 */
static void dump_stacks(const char *dir, const char *only)
{
	char path[300], comm[64], stack[4096];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		ssize_t n;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/stack", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, stack, sizeof(stack) - 1);
		close(fd);
		if (n <= 0)
			continue;
		stack[n] = '\0';
		if (only && !strstr(stack, only))
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, comm, sizeof(comm) - 1);
		if (fd >= 0)
			close(fd);
		comm[n > 0 ? n - 1 : 0] = '\0';
		fprintf(stderr, "fuzz: task %s (%s):\n%s", e->d_name, comm, stack);
	}
	closedir(d);
}

/* No call has returned for a long time: say where each worker is, and end. */
static void stall_check(unsigned int threads)
{
	static unsigned long last = (unsigned long)-1;
	static time_t since;
	unsigned long now_total = atomic_load(&total);
	time_t now = time(NULL);
	char name[32];

	if (now_total != last) {
		last = now_total;
		since = now;
		return;
	}
	if (now - since < 120)
		return;
	fprintf(stderr, "fuzz: no call returned for %ld s\n", (long)(now - since));
	for (unsigned int i = 0; i < threads; i++) {
		int op = atomic_load(&busy_op[i]);

		fprintf(stderr, "fuzz: worker %u, tid %d: %s\n", i,
			atomic_load(&busy_tid[i]), op ? op_names[op - 1] : "between calls");
	}
	for (int f = 0; f < NFILES; f++) {
		snprintf(name, sizeof(name), "file %d handles", f);
		print_owner(name, &files[f].handles.lock);
		snprintf(name, sizeof(name), "file %d sessions", f);
		print_owner(name, &files[f].sessions.lock);
		snprintf(name, sizeof(name), "file %d jobs", f);
		print_owner(name, &files[f].jobs.lock);
	}
	print_owner("fences", &fences.lock);
	print_owner("dma-bufs", &dmabufs.lock);
	print_owner("mappings", &maps.lock);
	/* Where the kernel has them: this process's and mvgal's workers. */
	if (getuid() && stall_pipe[1] >= 0) {
		if (write(stall_pipe[1], "s", 1) == 1)
			sleep(5);
	} else {
		dump_stacks("/proc/self/task", NULL);
		dump_stacks("/proc", "mvgal");
	}
	_exit(3);
}

static int find_mvgal(void)
{
	drmDevicePtr devs[16];
	int n = drmGetDevices2(0, devs, 16), fd = -1;

	for (int i = 0; i < n && fd < 0; i++) {
		drmVersionPtr v;
		int f;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		f = open(devs[i]->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
		if (f < 0)
			continue;
		v = drmGetVersion(f);
		if (v && !strcmp(v->name, "mvgal")) {
			fd = f;
			snprintf(mvgal_path, sizeof(mvgal_path), "%s",
				 devs[i]->nodes[DRM_NODE_RENDER]);
		} else {
			close(f);
		}
		drmFreeVersion(v);
	}
	for (int i = 0; i < n; i++)
		if (vgem < 0 && devs[i]->available_nodes & (1 << DRM_NODE_PRIMARY)) {
			int f = open(devs[i]->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC);
			drmVersionPtr v = f < 0 ? NULL : drmGetVersion(f);

			if (v && !strcmp(v->name, "vgem"))
				vgem = f;
			else if (f >= 0)
				close(f);
			drmFreeVersion(v);
		}
	drmFreeDevices(devs, n);
	return fd;
}

/*
 * Forks the rival process (--rival): both ends of a socket for dma-bufs,
 * neither blocking. Return: the rival's pid in this process, 0 in the
 * rival, -1 on failure.
 */
static pid_t rival_start(unsigned int uid)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       sv) || pipe2(stall_pipe, O_CLOEXEC | O_NONBLOCK)) {
		perror("socketpair");
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return -1;
	}
	rival_sock = sv[pid ? 0 : 1];
	close(sv[pid ? 1 : 0]);
	close(stall_pipe[pid ? 1 : 0]);
	stall_pipe[pid ? 1 : 0] = -1;
	rival_pid_seen = pid;
	if (!pid)
		printf("# rival: uid %u\n", uid);
	return pid;
}

/* In root: the rival stalled, and its tasks' kernel stacks are printed. */
static void rival_watch(void)
{
	char dir[64], c;

	if (stall_pipe[0] < 0 || read(stall_pipe[0], &c, 1) != 1)
		return;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)rival_pid_seen);
	fprintf(stderr, "fuzz: the rival stalled; its tasks:\n");
	dump_stacks(dir, NULL);
	dump_stacks("/proc", "mvgal");
}

/* Waits for the rival; true when it found changed bytes or failed. */
static bool rival_end(pid_t pid)
{
	pid_t got;
	int st;

	while (!(got = waitpid(pid, &st, WNOHANG))) {
		rival_watch();
		usleep(100000);
	}
	if (got != pid)
		return true;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("# the rival ended with status 0x%x\n", st);
		return true;
	}
	return false;
}

static void report(double secs)
{
	printf("# %lu calls in %.0f s (%.0f/s), seed %llu\n",
	       (unsigned long)atomic_load(&total), secs,
	       secs > 0 ? (double)atomic_load(&total) / secs : 0.0,
	       (unsigned long long)seed);
	for (int op = 0; op < OP_COUNT; op++) {
		unsigned long n = 0;

		for (int e = 0; e < MAXERR; e++)
			n += atomic_load(&counts[op][e]);
		if (!n)
			continue;
		printf("# %-20s %8lu:", op_names[op], n);
		for (int e = 0; e < MAXERR; e++) {
			unsigned long c = atomic_load(&counts[op][e]);

			if (c)
				printf(" %s %lu", e ? strerrorname_np(e) ?: "E?" : "ok", c);
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	unsigned int threads = 2, uid = 0, rival = 0;
	pid_t rival_pid = -1;
	pthread_t tid[16];
	struct timespec t0, t1;
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };
	double secs;

	seed = (uint64_t)time(NULL);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls_max = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds_max = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--user") && i + 1 < argc)
			uid = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rival") && i + 1 < argc)
			rival = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--fault") && i + 1 < argc)
			fault_pct = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--seed N] [--threads N] [--calls N] [--seconds N] [--user UID] [--rival UID] [--fault PERCENT]\n",
				argv[0]);
			return 2;
		}
	}
	if (!threads || threads > 16)
		threads = 2;
	if (!calls_max && !seconds_max)
		calls_max = 10000;
	printf("# mvgal_fuzz seed %llu, %u threads, %s %llu%s, fault %d%%\n",
	       (unsigned long long)seed, threads, calls_max ? "calls" : "seconds",
	       (unsigned long long)(calls_max ? calls_max : seconds_max),
	       uid ? ", unprivileged" : "", fault_pct);
	fflush(stdout);
	for (int op = 0; op < OP_COUNT; op++)
		weight_sum += op_weight[op];
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	files[0].fd = find_mvgal();
	if (files[0].fd < 0) {
		fprintf(stderr, "fuzz: no mvgal device\n");
		return 2;
	}
	attach_fds_init();
	if (rival) {
		rival_pid = rival_start(rival);
		if (rival_pid < 0)
			return 2;
		if (!rival_pid) {
			/* The rival: another user, other calls, no faults. */
			uid = rival;
			seed ^= 0x9e3779b97f4a7c15ULL;
			fault_pct = 0;
		}
	}
	if (uid) {
		/* The nodes open to everybody, then no privilege at all. */
		chmod(mvgal_path, 0666);
		if (setgid(uid) || setuid(uid)) {
			perror("setuid");
			return 2;
		}
	}
	/* The rival's files are its own, opened as its user. */
	if (!rival_pid) {
		close(files[0].fd);
		files[0].fd = open(mvgal_path, O_RDWR | O_CLOEXEC);
	}
	for (int f = 1; f < NFILES; f++)
		files[f].fd = open(mvgal_path, O_RDWR | O_CLOEXEC);
	for (int f = 0; f < NFILES; f++) {
		pthread_mutex_init(&files[f].handles.lock, NULL);
		pthread_mutex_init(&files[f].sessions.lock, NULL);
		pthread_mutex_init(&files[f].jobs.lock, NULL);
		pthread_mutex_init(&begun[f].lock, NULL);
	}
	pthread_mutex_init(&fences.lock, NULL);
	pthread_mutex_init(&dmabufs.lock, NULL);
	pthread_mutex_init(&maps.lock, NULL);
	ubuf = mmap(NULL, UBUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ubuf == MAP_FAILED || window_init())
		return 2;
	if (fault_pct && !uid)
		fault_setup();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uintptr_t i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, (void *)i);
	while (!atomic_load(&stop)) {
		usleep(100000);
		if (memory_low())
			atomic_store(&shed_wanted, 1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (seconds_max && t1.tv_sec - t0.tv_sec >= seconds_max)
			atomic_store(&stop, 1);
		stall_check(threads);
		rival_watch();
	}
	for (unsigned int i = 0; i < threads; i++) {
		struct timespec until;

		do {
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec++;
			stall_check(threads);
		} while (pthread_timedjoin_np(tid[i], NULL, &until) == ETIMEDOUT);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (fault_pct && !uid)
		fault_stop();
	report(secs);
	if (fault_pct && !uid)
		fault_report();
	if (atomic_load(&sheds))
		printf("# memory ran low %d times: everything held let go\n",
		       atomic_load(&sheds));
	if (atomic_load(&changed))
		printf("# %d failed writes changed bytes\n", atomic_load(&changed));
	/* Everything this run made goes with its files. */
	for (int f = 0; f < NFILES; f++)
		close(files[f].fd);
	if (rival_pid > 0)
		return rival_end(rival_pid) || atomic_load(&changed) ? 1 : 0;
	return atomic_load(&changed) ? 1 : 0;
}
