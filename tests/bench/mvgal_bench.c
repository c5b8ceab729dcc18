// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal benchmarks, run in the guest by `make bench`. Every figure is
 * measured side by side with its reference in this one run:
 *
 *  - migration throughput (MIGRATE + wait for its fence) host -> pool and
 *    pool -> pool, against the best CPU copy userspace can make of the
 *    same bytes between the same pages (the better of memcpy() and
 *    `rep movsb`, from a mapping of the buffer or of the source pool to a
 *    mapping of the destination pool): a migration the CPU copies is one
 *    copy at best, so about 1 is the limit;
 *  - the same migrations with each transfer method forced (force_method),
 *    in MB/s, the method used confirmed by GET_STATS; in place, which
 *    MIGRATE never uses, as a READ session at the destination;
 *  - BEGIN + END on a resident, clean buffer against a null ioctl
 *    (GET_INFO) on the same fd and against vgem's FENCE_ATTACH +
 *    FENCE_SIGNAL on one buffer (the smallest real driver operation
 *    that takes a reservation and makes a fence); and with a placement
 *    export made and closed per session (PLACE_FD) against without;
 *  - io_uring: 32 BEGIN + END pairs through libmvgal's ring (one submit
 *    for the BEGINs, one for the ENDs) against 64 ioctls; waiting for 64
 *    migrations through their ring completions against poll() on their
 *    64 sync_files;
 *  - write-watch: a BEGIN after the CPU wrote 1% of a 64 MiB buffer
 *    against one after it wrote all of it; a HARVEST of 256 written
 *    one-page runs in a 1 GiB buffer against the same in 64 MiB; a
 *    HARVEST with 1% written against comparing the whole buffer with a
 *    shadow copy (the approach the write-watch replaces);
 *  - eviction: access traces (looping, random, scan, mixed, noisy loop)
 *    replayed through BEGIN/END over a working set twice a pool's
 *    budget, the kernel's hits under each eviction policy against
 *    Belady's MIN on the same trace (computed here);
 *  - prefetch: a repeating sequence of sessions over buffers that do not
 *    all fit, the time spent waiting for data with the prefetcher on
 *    against off;
 *  - the engine's own paths against the kernel's plain building blocks:
 *    BEGIN + END on resident data through the buffers' own locks (the
 *    lean path) against through their reservations (drm_exec); and the
 *    wait of a HIGH copy for a LOW one queued behind NORMAL copies, with
 *    the LOW one inheriting the waiter's priority against without (what
 *    drm_sched's fixed-priority run queues would give);
 *  - device memory ("vram"): MIGRATE of 4 MiB host -> a VRAM stand-in's
 *    pool (tests/vram: a PCI BAR, write-combined, __iomem) and back, each
 *    CPU method forced, against the kernel's memcpy_toio() /
 *    memcpy_fromio() / drm_memcpy_from_wc() of the same size on the same
 *    BAR, timed by the stand-in's driver in the same run;
 *  - the DMA-engine copier ("dma"): 16 MiB host -> pool -> host forced
 *    through the test bed's software engine (tests/dmaeng) against the
 *    CPU copy, in turn: throughput, the guest's busy CPU time per MiB,
 *    and sessions per second on another buffer while each migrates
 *    (against none migrating); then one MIGRATE each way per pair (host
 *    to pool, pool to host, pool to pool) and size (256 KiB, 4 MiB).
 *  - the three copiers side by side ("copiers"): the same 16 MiB round
 *    trip forced through the CPU copy, the DMA engine and the copy
 *    executor (mvgal-vkexec on lavapipe, standing in for a GPU's copy
 *    engine), in turn in each run: throughput, the guest's busy CPU time
 *    per MiB and the executor process's own share of it; then one
 *    MIGRATE each way (host to pool, pool to host) per size (256 KiB,
 *    4 MiB, 16 MiB) and copier.
 *
 * Nothing here passes or fails: each figure's human lines are followed by
 * one line "bench: NAME value=X goal=OP Y met=yes|no" (bench_figure()).
 * Each run times both sides back to back; a ratio is the median of the
 * runs' ratios, so that a slow moment of the host hits both.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "mvgal_trace.h"
#include "bench_time.h"
#include "../common/vgem_fence.h"
#include "../common/write_param.h"
#include "../selftests/standin.h"

#define REPS 15

/* The median of @n times; sorts them. */
static uint64_t median(uint64_t *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_u64);
	return t[n / 2];
}

/* The median of @n times, leaving them in run order. */
static uint64_t median_of(const uint64_t *t, int n)
{
	uint64_t c[n];

	memcpy(c, t, sizeof(c));
	return median(c, n);
}

/* The median of @n ratios, sorting them; NAN if a run failed (a NAN). */
static double median_ratio(double *r, int n)
{
	for (int i = 0; i < n; i++)
		if (isnan(r[i]))
			return NAN;
	qsort(r, n, sizeof(*r), cmp_double);
	return r[n / 2];
}

/* Sets mvgal's module parameter @name. */
static int set_param(const char *name, const char *v)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/mvgal/parameters/%s", name);
	return write_param(path, v);
}

/* A module parameter as sysfs shows it, without its newline: to restore it. */
static int read_param(const char *name, char *v, size_t len)
{
	char path[128];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/sys/module/mvgal/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(v, (int)len, f))
		ret = -EIO;
	fclose(f);
	v[strcspn(v, "\n")] = '\0';
	return ret;
}

/*
 * The policy's own copies, off while a section measures copies: a
 * prefetch (the predictor sees one buffer used over and over) would
 * bring the bytes to the destination behind the bench's back, and the
 * mirror controller would answer repeated reads from another pool with
 * replicas, turning in-place sessions into copies. The values before
 * are restored after.
 */
struct quiet {
	char prefetch[16];
	char mirror[16];
	bool saved;
};

static void quiet_begin(struct quiet *q)
{
	q->saved = !read_param("prefetch", q->prefetch, sizeof(q->prefetch)) &&
		   !read_param("mirror_start_reads", q->mirror, sizeof(q->mirror));
	if (!q->saved)
		return;
	set_param("prefetch", "N");
	set_param("mirror_start_reads", "1000000");
}

static void quiet_end(const struct quiet *q)
{
	if (!q->saved)
		return;
	set_param("prefetch", q->prefetch);
	set_param("mirror_start_reads", q->mirror);
}

static int find(struct mvgal *m, const char *driver, int not)
{
	struct drm_mvgal_gpu_info gi;

	for (int g = 0; g < MVGAL_MAX_GPUS; g++)
		if (g != not && !mvgal_gpu_info(m, g, &gi) &&
		    !strcmp(gi.driver, driver))
			return g;
	return -1;
}

/* ---- moving one buffer between two locations ---- */

static const struct {
	uint64_t size;
	const char *id;		/* in figure names */
} sizes[] = {
	{ 64 << 10, "64k" }, { 1 << 20, "1m" }, { 64 << 20, "64m" },
};

#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/*
 * Mappings of whole pools (POOL_FD, which needs CAP_SYS_ADMIN, as the
 * bench in the guest has): where the userspace baseline copies to and
 * from. NULL where a pool is not mapped.
 */
struct pool_maps {
	uint8_t *va[MVGAL_MAX_GPUS];
	uint64_t size[MVGAL_MAX_GPUS];
};

static int pool_map(struct mvgal *m, struct pool_maps *p, int g)
{
	struct drm_mvgal_pool_fd pf = { .gpu = g };
	struct drm_mvgal_gpu_info gi;
	void *va;
	int ret;

	ret = mvgal_gpu_info(m, g, &gi);
	if (ret)
		return ret;
	if (drmIoctl(mvgal_fd(m), DRM_IOCTL_MVGAL_POOL_FD, &pf))
		return -errno;
	va = mmap(NULL, gi.pool_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		  pf.fd, 0);
	ret = va == MAP_FAILED ? -errno : 0;
	close(pf.fd);
	if (ret)
		return ret;
	p->va[g] = va;
	p->size[g] = gi.pool_size;
	return 0;
}

static void pool_unmap_all(struct pool_maps *p)
{
	for (int g = 0; g < MVGAL_MAX_GPUS; g++)
		if (p->va[g])
			munmap(p->va[g], p->size[g]);
}

/* MIGRATE of the whole of @h to @loc, waited for (flags: MVGAL_MIGRATE_*). */
static int migrate_to(struct mvgal *m, uint32_t h, uint64_t size,
		      uint32_t loc, uint32_t flags)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .flags = flags, .size = size, .location = loc,
		.priority = MVGAL_PRIO_HIGH, .in_fence_fd = -1,
	};
	int ret = mvgal_migrate(m, &mg);

	if (ret)
		return ret;
	if (mg.out_fence_fd >= 0) {
		ret = mvgal_fence_wait(mg.out_fence_fd, 60000);
		close(mg.out_fence_fd);
	}
	return ret;
}

/*
 * Where @h's bytes are in @gpu's own pool: BEGIN reports it. A READ
 * session that may not use another pool in place; the bytes are current
 * there already, so it copies nothing.
 */
static int place_offset(struct mvgal *m, int gpu, uint32_t h, uint64_t *off)
{
	struct drm_mvgal_access a = { .handle = h };
	uint32_t s;
	int fence, ret;

	ret = mvgal_begin(m, gpu, MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE,
			  MVGAL_PRIO_NORMAL, -1, &a, 1, &s, &fence, NULL);
	if (ret)
		return ret;
	if (fence >= 0) {
		mvgal_fence_wait(fence, 60000);
		close(fence);
	}
	ret = mvgal_end(m, s, -1, NULL, 0);
	if (!ret && a.pool_gpu != (uint32_t)gpu)
		ret = -EIO;
	*off = a.pool_offset;
	return ret;
}

/*
 * One buffer that moves from @src to @dst (MVGAL_LOC_HOST or 1 + GPU),
 * and the CPU's view of its bytes at both for the userspace baseline.
 */
struct xfer {
	struct mvgal *m;
	const struct pool_maps *pools;
	uint32_t h;		/* 0: none */
	uint64_t size;
	uint32_t src, dst;
	uint8_t *host;		/* the buffer's own mapping */
	uint8_t *from;		/* its bytes at @src; NULL: not mapped */
	uint8_t *to;		/* its bytes at @dst; NULL: not mapped */
	int replaced;		/* runs after which @to had moved */
};

/* *@at: the CPU's view of @x's placement at GPU location @loc, or NULL. */
static int xfer_locate(struct xfer *x, uint32_t loc, uint8_t **at)
{
	int g = (int)loc - 1;
	uint64_t off;
	int ret;

	*at = NULL;
	if (!x->pools->va[g])
		return 0;
	ret = place_offset(x->m, g, x->h, &off);
	if (ret)
		return ret;
	if (off + x->size > x->pools->size[g])
		return -ERANGE;
	*at = x->pools->va[g] + off;
	return 0;
}

/* Distinct bytes per page: a view of the wrong range cannot pass for the right one. */
static void fill_pages(uint8_t *p, uint64_t size)
{
	for (uint64_t off = 0; off < size; off += 4096)
		memset(p + off, (uint8_t)(0x5a ^ (off >> 12) ^ (off >> 20)),
		       size - off < 4096 ? size - off : 4096);
}

/*
 * A buffer of @size, written through its mapping, current at @src only
 * (moved there when @src is a pool: the host copy is dropped, so the
 * kernel cannot copy from it instead), and placed at @dst once: a
 * placement is made and cleared once per buffer and GPU, the runs
 * measure the copies. @x->to is checked to show the bytes MIGRATE put
 * there before anything else writes through it.
 */
static int xfer_open(struct xfer *x, struct mvgal *m,
		     const struct pool_maps *p, uint32_t src, uint32_t dst,
		     uint64_t size)
{
	int ret;

	*x = (struct xfer) {
		.m = m, .pools = p, .size = size, .src = src, .dst = dst,
	};
	ret = mvgal_bo_create(m, size, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			      MVGAL_GPU_ANY, &x->h);
	if (ret) {
		x->h = 0;
		return ret;
	}
	ret = mvgal_bo_map(m, x->h, (void **)&x->host);
	if (ret) {
		x->host = NULL;
		return ret;
	}
	fill_pages(x->host, size);
	x->from = x->host;
	if (src != MVGAL_LOC_HOST) {
		ret = migrate_to(m, x->h, size, src, MVGAL_MIGRATE_MOVE);
		if (!ret)
			ret = xfer_locate(x, src, &x->from);
	}
	if (!ret)
		ret = migrate_to(m, x->h, size, dst, 0);
	if (!ret)
		ret = xfer_locate(x, dst, &x->to);
	if (!ret && x->from && x->to && memcmp(x->to, x->from, size))
		ret = -EIO;
	return ret;
}

static void xfer_close(struct xfer *x)
{
	if (x->host)
		munmap(x->host, x->size);
	if (x->h)
		mvgal_bo_destroy(x->m, x->h);
}

/*
 * Drops the copy at the destination, untimed, so that the next MIGRATE
 * copies every byte: a MOVE to the source, which holds them all, copies
 * nothing and keeps the destination's placement.
 */
static int xfer_reset(struct xfer *x)
{
	return migrate_to(x->m, x->h, x->size, x->src, MVGAL_MIGRATE_MOVE);
}

/* MIGRATE to the destination, timed (ns in *@t). */
static int xfer_migrate(struct xfer *x, uint64_t *t)
{
	uint64_t t0 = now_ns();
	int ret = migrate_to(x->m, x->h, x->size, x->dst, 0);

	*t = now_ns() - t0;
	return ret;
}

/* The bytes all methods moved between two GET_STATS. */
static uint64_t moved_bytes(const struct drm_mvgal_stats *s0,
			    const struct drm_mvgal_stats *s1)
{
	uint64_t b = 0;

	for (uint32_t k = 0; k < MVGAL_METHOD_COUNT; k++)
		b += s1->bytes[k] - s0->bytes[k];
	return b;
}

/* The bytes each method moved between two GET_STATS, as text. */
static void moved_text(const struct drm_mvgal_stats *s0,
		       const struct drm_mvgal_stats *s1, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t k = 0; k < MVGAL_METHOD_COUNT && n < len; k++) {
		uint64_t b = s1->bytes[k] - s0->bytes[k];

		if (b)
			n += snprintf(buf + n, len - n, "%s%s %llu KiB",
				      n ? ", " : "", mvgal_method_name(k),
				      (unsigned long long)b >> 10);
	}
	if (!n)
		snprintf(buf, len, "nothing copied");
}

/* ---- migrations against the best CPU copy userspace can make ---- */

static void copy_libc(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

/*
 * One `rep movsb`: what the kernel's copy routines use on x86. glibc's
 * memcpy() picks vector loops, which QEMU's TCG emulates slowly, so
 * neither alone is the best userspace can do.
 */
static void copy_movsb(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("rep movsb"
			 : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
#else
	memcpy(dst, src, n);
#endif
}

static uint64_t timed_copy(void (*copy)(void *, const void *, size_t),
			   void *dst, const void *src, size_t n)
{
	uint64_t t0 = now_ns();

	copy(dst, src, n);
	__asm__ volatile("" : : "r"(dst) : "memory");
	return now_ns() - t0;
}

struct vs_run {
	uint64_t libc, movsb, mig;	/* ns */
};

/*
 * One run: memcpy(), rep movsb, then MIGRATE, of the same bytes from the
 * same pages to the same pages; each comes after a write of those bytes
 * to those pages, so all three find the caches alike. The CPU copies
 * write into the destination's placement while its copy there is
 * dropped: the bytes they write are the ones already there.
 */
static int vs_cpu_run(struct xfer *x, struct vs_run *t)
{
	uint8_t *was = x->to;
	int ret = xfer_reset(x);

	if (ret)
		return ret;
	t->libc = timed_copy(copy_libc, x->to, x->from, x->size);
	t->movsb = timed_copy(copy_movsb, x->to, x->from, x->size);
	ret = xfer_migrate(x, &t->mig);
	if (!ret)
		ret = xfer_locate(x, x->dst, &x->to);
	if (!ret && !x->to)
		ret = -EIO;
	x->replaced += !ret && x->to != was;
	return ret;
}

/*
 * MIGRATE of @size bytes from @src to @dst against the better of
 * memcpy() and rep movsb (by their medians) over the same bytes, run by
 * run; the figure is the median of the runs' throughput ratios.
 */
static void migrate_vs_cpu(struct mvgal *m, const struct pool_maps *p,
			   uint32_t src, uint32_t dst, unsigned int k,
			   const char *pair, const char *pair_id)
{
	const uint64_t size = sizes[k].size;
	uint64_t tl[REPS], ts[REPS], tm[REPS], *best;
	struct drm_mvgal_stats s0, s1;
	double r[REPS], ratio = NAN;
	struct vs_run t;
	struct xfer x;
	char name[64], moved[128];
	int ret;

	ret = xfer_open(&x, m, p, src, dst, size);
	if (!ret && (!x.from || !x.to))
		ret = -ENODEV;		/* a pool is not mapped */
	if (!ret)
		ret = vs_cpu_run(&x, &t);	/* warms up, untimed */
	if (!ret)
		ret = mvgal_get_stats(m, &s0);
	for (int i = 0; !ret && i < REPS; i++) {
		ret = vs_cpu_run(&x, &t);
		tl[i] = t.libc;
		ts[i] = t.movsb;
		tm[i] = t.mig;
	}
	if (!ret)
		ret = mvgal_get_stats(m, &s1);
	xfer_close(&x);
	snprintf(name, sizeof(name), "migrate_%s_%s_vs_cpu_copy", pair_id,
		 sizes[k].id);
	if (ret) {
		printf("bench: %6llu KiB %s: %s\n",
		       (unsigned long long)size >> 10, pair, strerror(-ret));
		bench_figure(name, NAN, size >= (1 << 20) ? ">=" : NULL, 0.9);
		return;
	}
	best = median_of(ts, REPS) < median_of(tl, REPS) ? ts : tl;
	for (int i = 0; i < REPS; i++)
		r[i] = (double)best[i] / tm[i];
	/* A run whose MIGRATE found the bytes there already says nothing. */
	if (moved_bytes(&s0, &s1) == REPS * size)
		ratio = median_ratio(r, REPS);
	moved_text(&s0, &s1, moved, sizeof(moved));
	printf("bench: %6llu KiB %s: MIGRATE %7.1f MB/s (%s), CPU copy %7.1f MB/s (%s; %s %7.1f MB/s), ratio %.2f%s\n",
	       (unsigned long long)size >> 10, pair,
	       size * 1e3 / median(tm, REPS), moved,
	       size * 1e3 / median_of(best, REPS),
	       best == ts ? "rep movsb" : "memcpy",
	       best == ts ? "memcpy" : "rep movsb",
	       size * 1e3 / median_of(best == ts ? tl : ts, REPS), ratio,
	       isnan(ratio) ? "  (void: MIGRATE did not copy every byte of every run)" :
	       x.replaced ? "  (the placement moved between runs)" : "");
	bench_figure(name, ratio, size >= (1 << 20) ? ">=" : NULL, 0.9);
}

static void bench_migration(struct mvgal *m, const struct pool_maps *p,
			    int g0, int g1)
{
	struct quiet q;
	char pp[64];

	printf("# migration throughput vs the best CPU copy of the same bytes between the same pages in userspace (the better of memcpy and rep movsb): buffer pages -> GPU %d's pool, GPU %d's pool -> GPU %d's; medians of %d runs (goal: >= 0.90 from 1 MiB)\n",
	       g0, g0, g1, REPS);
	snprintf(pp, sizeof(pp), "pool->pool (GPU %d -> %d)", g0, g1);
	quiet_begin(&q);
	for (unsigned int k = 0; k < NSIZES; k++) {
		migrate_vs_cpu(m, p, MVGAL_LOC_HOST, 1 + g0, k,
			       "host->pool", "host_to_pool");
		migrate_vs_cpu(m, p, 1 + g0, 1 + g1, k, pp, "pool_to_pool");
	}
	quiet_end(&q);
}

/* ---- each transfer method, forced ---- */

#define METHOD_REPS 7

/* Method names in figure names. */
static const char *const method_id[MVGAL_METHOD_COUNT] = {
	[MVGAL_METHOD_IN_PLACE] = "in_place", [MVGAL_METHOD_P2P] = "p2p",
	[MVGAL_METHOD_CPU_COPY] = "cpu_copy", [MVGAL_METHOD_STAGING] = "staging",
};

/*
 * In place, timed: a READ session at the destination (BEGIN, the wait
 * for its copies, END), which must find the bytes in the source's pool
 * and copy nothing (-EXDEV otherwise).
 */
static int in_place_session(struct xfer *x, uint64_t *t)
{
	struct drm_mvgal_access a = { .handle = x->h };
	uint64_t t0 = now_ns(), copied = 0;
	uint32_t s;
	int fence, ret;

	ret = mvgal_begin(x->m, x->dst - 1, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL,
			  -1, &a, 1, &s, &fence, &copied);
	if (ret)
		return ret;
	if (fence >= 0) {
		mvgal_fence_wait(fence, 60000);
		close(fence);
	}
	ret = mvgal_end(x->m, s, -1, NULL, 0);
	*t = now_ns() - t0;
	if (!ret && (a.pool_gpu != x->src - 1 || copied))
		ret = -EXDEV;
	return ret;
}

/*
 * One timed move of the bytes to the destination by @method: MIGRATE
 * after the destination's copy was dropped; in place, which MIGRATE
 * never uses (it copies), a session.
 */
static int method_run(struct xfer *x, uint32_t method, uint64_t *t)
{
	int ret;

	if (method == MVGAL_METHOD_IN_PLACE)
		return in_place_session(x, t);
	ret = xfer_reset(x);
	return ret ? ret : xfer_migrate(x, t);
}

/*
 * Did @method, and only it, move the timed runs' bytes? In place copies
 * none: GET_STATS counts there the bytes the sessions used where they
 * were (whole chunks: every size here is a number of them), and the
 * sessions checked where they found them.
 */
static bool method_confirmed(const struct drm_mvgal_stats *s0,
			     const struct drm_mvgal_stats *s1,
			     uint32_t method, uint64_t bytes)
{
	for (uint32_t k = 0; k < MVGAL_METHOD_COUNT; k++) {
		uint64_t want = k == method ? bytes : 0;

		if (s1->bytes[k] - s0->bytes[k] != want)
			return false;
	}
	return true;
}

/*
 * @x's bytes moved METHOD_REPS times with force_method = @method; MB/s
 * in *@mbps (median), what GET_STATS counted in @moved. force_method is
 * -1 again on return, failed or not. -EXDEV: another method was used.
 */
static int method_measure(struct xfer *x, uint32_t method, double *mbps,
			  char *moved, size_t len)
{
	struct drm_mvgal_stats s0, s1;
	uint64_t t[METHOD_REPS];
	char v[8];
	int ret;

	snprintf(v, sizeof(v), "%u", method);
	ret = set_param("force_method", v);
	/* No copy at the destination: the session must use the source's. */
	if (!ret && method == MVGAL_METHOD_IN_PLACE)
		ret = mvgal_place_free(x->m, x->h, x->dst - 1);
	if (!ret)
		ret = method_run(x, method, &t[0]);	/* warms up */
	if (!ret)
		ret = mvgal_get_stats(x->m, &s0);
	for (int i = 0; !ret && i < METHOD_REPS; i++)
		ret = method_run(x, method, &t[i]);
	if (!ret)
		ret = mvgal_get_stats(x->m, &s1);
	set_param("force_method", "-1");
	if (ret)
		return ret;
	*mbps = x->size * 1e3 / median(t, METHOD_REPS);
	moved_text(&s0, &s1, moved, len);
	return method_confirmed(&s0, &s1, method, METHOD_REPS * x->size) ?
	       0 : -EXDEV;
}

/* Why @method is not possible from @src to @dst, as text. */
static const char *method_why_not(struct mvgal *m, uint32_t src, uint32_t dst,
				  uint32_t method)
{
	struct drm_mvgal_gpu_link l;
	const char *t;

	if (src == MVGAL_LOC_HOST || dst == MVGAL_LOC_HOST)
		return method == MVGAL_METHOD_IN_PLACE ?
		       "host pages are no pool a driver imports" :
		       "not possible between host pages and a pool";
	if (mvgal_gpu_link(m, src - 1, dst - 1, &l))
		return "not possible";
	t = mvgal_reason_text(l.reasons[method]);
	return t ? t : "not possible";
}

/* Every method's figure for one pair and size. */
static void methods_pair(struct mvgal *m, const struct pool_maps *p,
			 uint32_t src, uint32_t dst, unsigned int k,
			 const char *pair, const char *pair_id)
{
	const uint64_t size = sizes[k].size;
	struct drm_mvgal_path path;
	struct xfer x;
	char name[80], moved[128];
	int ret;

	ret = xfer_open(&x, m, p, src, dst, size);
	if (!ret)
		ret = mvgal_get_path(m, src, dst, size, &path);
	for (uint32_t method = 0; method < MVGAL_METHOD_COUNT; method++) {
		double mbps = NAN;
		int err = ret;

		snprintf(name, sizeof(name), "method_%s_%s_%s_mbps",
			 method_id[method], pair_id, sizes[k].id);
		printf("bench: %s %6llu KiB %-9s ", pair,
		       (unsigned long long)size >> 10, mvgal_method_name(method));
		if (!err && !(path.methods & (1U << method))) {
			printf("n/a (%s)\n", method_why_not(m, src, dst, method));
			bench_figure(name, NAN, NULL, 0);
			continue;
		}
		if (!err)
			err = method_measure(&x, method, &mbps, moved,
					     sizeof(moved));
		if (err == -EXDEV && method == MVGAL_METHOD_IN_PLACE &&
		    isnan(mbps)) {
			printf("not in place: the session used its own pool or copied\n");
		} else if (err == -EXDEV) {
			printf("%9.1f MB/s, but not by this method: %s\n",
			       mbps, moved);
			mbps = NAN;
		} else if (err) {
			printf("%s\n", strerror(-err));
			mbps = NAN;
		} else {
			printf("%9.1f MB/s (%s)\n", mbps, moved);
		}
		bench_figure(name, mbps, NULL, 0);
	}
	xfer_close(&x);
}

/*
 * Throughput by method: host pages -> @g0's pool and @g0's pool ->
 * @gp's (vgem where it is attached: its driver imports the others'
 * pools, so in place is possible there).
 */
static void bench_methods(struct mvgal *m, const struct pool_maps *p,
			  int g0, int gp)
{
	struct quiet q;

	printf("# transfer methods forced (force_method), confirmed by GET_STATS: MIGRATE throughput (in place: a READ session at the destination), median of %d; host -> GPU %d, GPU %d -> GPU %d\n",
	       METHOD_REPS, g0, g0, gp);
	quiet_begin(&q);
	for (unsigned int k = 0; k < NSIZES; k++) {
		methods_pair(m, p, MVGAL_LOC_HOST, 1 + g0, k, "host->pool",
			     "host_to_pool");
		methods_pair(m, p, 1 + g0, 1 + gp, k, "pool->pool",
			     "pool_to_pool");
	}
	set_param("force_method", "-1");
	quiet_end(&q);
}

/* ---- sessions ---- */

/* The mean time of @inner BEGIN + END pairs of READ on @h at @g, in ns. */
static uint64_t begin_end_ns(struct mvgal *m, int g, uint32_t h, int inner)
{
	uint64_t t0 = now_ns();
	struct drm_mvgal_access a;
	uint32_t s;
	int fence;

	for (int i = 0; i < inner; i++) {
		a = (struct drm_mvgal_access) { .handle = h };
		if (mvgal_begin(m, g, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL, -1,
				&a, 1, &s, &fence, NULL))
			return 0;
		if (fence >= 0)
			close(fence);
		mvgal_end(m, s, -1, NULL, 0);
	}
	return (now_ns() - t0) / inner;
}

/* A 1 MiB buffer, made resident and clean at @g (its copies waited for). */
static int resident_bo(struct mvgal *m, int g, uint32_t *h)
{
	struct drm_mvgal_access a;
	uint32_t s;
	int fence, ret;

	ret = mvgal_bo_create(m, 1 << 20, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			      MVGAL_GPU_ANY, h);
	if (ret)
		return ret;
	a = (struct drm_mvgal_access) { .handle = *h };
	ret = mvgal_begin(m, g, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL, -1, &a, 1,
			  &s, &fence, NULL);
	if (ret) {
		mvgal_bo_destroy(m, *h);
		return ret;
	}
	if (fence >= 0) {
		mvgal_fence_wait(fence, 60000);
		close(fence);
	}
	return mvgal_end(m, s, -1, NULL, 0);
}

/* The mean time of @inner null ioctls (GET_INFO) on mvgal's fd, in ns. */
static uint64_t null_ioctl_ns(struct mvgal *m, int inner)
{
	struct drm_mvgal_get_info gi;
	uint64_t t0 = now_ns();

	for (int i = 0; i < inner; i++) {
		memset(&gi, 0, sizeof(gi));
		drmIoctl(mvgal_fd(m), DRM_IOCTL_MVGAL_GET_INFO, &gi);
	}
	return (now_ns() - t0) / inner;
}

/* A vgem buffer (a dumb one) on vgem's own fd; closing the fd frees it. */
struct vgem_bo {
	int fd;
	uint32_t handle;
};

static int vgem_bo_open(struct vgem_bo *v)
{
	struct drm_mode_create_dumb d = { .width = 64, .height = 1, .bpp = 32 };
	int ret;

	v->fd = vgem_open();
	if (v->fd < 0)
		return v->fd;
	if (drmIoctl(v->fd, DRM_IOCTL_MODE_CREATE_DUMB, &d)) {
		ret = -errno;
		close(v->fd);
		v->fd = -1;
		return ret;
	}
	v->handle = d.handle;
	return 0;
}

/*
 * The mean time of @inner vgem FENCE_ATTACH + FENCE_SIGNAL pairs on one
 * buffer, in ns; 0 on failure. The smallest real driver operation that,
 * like a session, locks a buffer's reservation and makes a fence (a read
 * fence, as the READ sessions it is compared with); signalling it before
 * the next attach keeps the reservation from filling up.
 */
static uint64_t vgem_pair_ns(const struct vgem_bo *v, int inner)
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < inner; i++) {
		struct drm_vgem_fence_attach a = { .handle = v->handle };
		struct drm_vgem_fence_signal sg = { 0 };

		if (drmIoctl(v->fd, DRM_IOCTL_VGEM_FENCE_ATTACH, &a))
			return 0;
		sg.fence = a.out_fence;
		if (drmIoctl(v->fd, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sg))
			return 0;
	}
	return (now_ns() - t0) / inner;
}

/*
 * BEGIN + END on a resident clean 1 MiB buffer against two peers timed
 * in the same runs: a null ioctl (what any ioctl costs) and vgem's
 * attach + signal pair (what a real driver's smallest fenced operation
 * costs).
 */
static void bench_session(struct mvgal *m, int g0)
{
	uint64_t tn[REPS], ts[REPS], tv[REPS];
	double rn[REPS], rv[REPS], null_ratio = NAN, vgem_ratio = NAN;
	struct vgem_bo v = { .fd = -1 };
	const int inner = 2000;
	bool vgem, ok = true;
	uint32_t h;
	int ret;

	printf("# BEGIN + END on a resident clean buffer vs a null ioctl (goal: <= 3.0x) and vs vgem's FENCE_ATTACH + FENCE_SIGNAL on one buffer (goal: <= 1.5x)\n");
	ret = resident_bo(m, g0, &h);
	if (ret) {
		printf("bench: session: %s\n", strerror(-ret));
		bench_figure("begin_end_vs_null_ioctl", NAN, "<=", 3);
		bench_figure("begin_end_vs_vgem_fence", NAN, "<=", 1.5);
		return;
	}
	vgem = !vgem_bo_open(&v);
	for (int r = 0; r < REPS; r++) {
		tn[r] = null_ioctl_ns(m, inner);
		ts[r] = begin_end_ns(m, g0, h, inner);
		tv[r] = vgem ? vgem_pair_ns(&v, inner) : 0;
		ok = ok && ts[r];
		vgem = vgem && tv[r];
		rn[r] = (double)ts[r] / tn[r];
		rv[r] = vgem ? (double)ts[r] / tv[r] : NAN;
	}
	if (v.fd >= 0)
		close(v.fd);
	mvgal_bo_destroy(m, h);
	if (ok)
		null_ratio = median_ratio(rn, REPS);
	if (ok && vgem)
		vgem_ratio = median_ratio(rv, REPS);
	printf("bench: null ioctl %llu ns  vgem attach+signal %llu ns%s  begin+end %llu ns%s  ratios %.2fx, %.2fx\n",
	       (unsigned long long)median(tn, REPS),
	       (unsigned long long)median(tv, REPS), vgem ? "" : " (failed)",
	       (unsigned long long)median(ts, REPS), ok ? "" : " (failed)",
	       null_ratio, vgem_ratio);
	bench_figure("begin_end_vs_null_ioctl", null_ratio, "<=", 3);
	bench_figure("begin_end_vs_vgem_fence", vgem_ratio, "<=", 1.5);
}

/* BEGIN + END of @h on @g, with a placement export made and closed first. */
static uint64_t export_session(struct mvgal *m, int g, uint32_t h, bool export)
{
	struct drm_mvgal_access a = { .handle = h };
	uint64_t t0 = now_ns();
	int fd = -1, fence;
	uint32_t s;

	if (export && mvgal_place_fd(m, h, g, MVGAL_PLACE_FD_RDWR, &fd, NULL))
		return 0;
	mvgal_begin(m, g, MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE,
		    MVGAL_PRIO_NORMAL, -1, &a, 1, &s, &fence, NULL);
	if (fence >= 0)
		close(fence);
	mvgal_end(m, s, -1, NULL, 0);
	if (fd >= 0)
		close(fd);
	return now_ns() - t0;
}

/*
 * What a placement export adds to a session: PLACE_FD (and the close of
 * its fd) + BEGIN + END against BEGIN + END alone, on a resident clean
 * 1 MiB buffer. An application that keeps the export pays it once.
 */
static void bench_export(struct mvgal *m, int g0)
{
	uint64_t tb[REPS], te[REPS];
	double ratio[REPS], figure;
	const int inner = 500;
	uint32_t h;

	printf("# a placement export per session (PLACE_FD + close) vs BEGIN + END alone, 1 MiB\n");
	if (resident_bo(m, g0, &h)) {
		bench_figure("place_fd_session_vs_session", NAN, NULL, 0);
		return;
	}
	for (int r = 0; r < REPS; r++) {
		tb[r] = te[r] = 0;
		for (int i = 0; i < inner; i++)
			tb[r] += export_session(m, g0, h, false);
		for (int i = 0; i < inner; i++)
			te[r] += export_session(m, g0, h, true);
		tb[r] /= inner;
		te[r] /= inner;
		ratio[r] = (double)te[r] / tb[r];
	}
	figure = median_ratio(ratio, REPS);
	printf("bench: begin+end %llu ns  place_fd+begin+end+close %llu ns  ratio %.2fx\n",
	       (unsigned long long)median(tb, REPS),
	       (unsigned long long)median(te, REPS), figure);
	bench_figure("place_fd_session_vs_session", figure, NULL, 0);
	mvgal_bo_destroy(m, h);
}

/* BEGIN (READ, whole buffer) on @g and the wait for its copies; END. */
static uint64_t timed_begin(struct mvgal *m, int g, uint32_t h)
{
	struct drm_mvgal_access a = { .handle = h };
	uint64_t t0 = now_ns(), t;
	uint32_t s;
	int fence;

	if (mvgal_begin(m, g, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL, -1, &a, 1,
			&s, &fence, NULL))
		return 0;
	if (fence >= 0) {
		mvgal_fence_wait(fence, 60000);
		close(fence);
	}
	t = now_ns() - t0;
	mvgal_end(m, s, -1, NULL, 0);
	return t;
}

/* HARVEST (RESET, runs) of one buffer, timed. */
static uint64_t timed_harvest(struct mvgal *m, uint32_t h,
			      struct drm_mvgal_range *runs, uint32_t cap,
			      uint64_t *chunks)
{
	struct drm_mvgal_harvest_entry e = {
		.handle = h, .flags = MVGAL_HARVEST_RUNS,
		.data = (uintptr_t)runs, .capacity = cap,
	};
	uint64_t t0 = now_ns(), t;

	if (mvgal_harvest(m, MVGAL_HARVEST_RESET, &e, 1))
		return 0;
	t = now_ns() - t0;
	*chunks = e.chunks;
	return t;
}

/*
 * A host buffer of @size, mapped; 0 or -errno. Its pages come on first
 * touch (LAZY_ALLOCATE): a 1 GiB one would not fit the guest otherwise.
 */
static int mapped_bo(struct mvgal *m, uint64_t size, uint32_t *h,
		     uint8_t **p)
{
	int ret = mvgal_bo_create(m, size,
				  MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID |
				  MVGAL_BO_LAZY_ALLOCATE, MVGAL_GPU_ANY, h);

	if (!ret)
		ret = mvgal_bo_map(m, *h, (void **)p);
	return ret;
}

static void bench_watch(struct mvgal *m, int g0)
{
	const uint64_t big = 64ULL << 20, huge = 1ULL << 30, chunk = 64 << 10;
	const uint64_t nchunks = big / chunk, few = nchunks / 100;
	static struct drm_mvgal_range runs[256];
	uint64_t t1[REPS], t100[REPS], th[REPS], tb[REPS], tw[REPS], ts[REPS];
	double r1[REPS], r2[REPS], r3[REPS];
	uint64_t n1 = 0, n2 = 0, n3 = 0;
	uint32_t h, hh;
	uint8_t *p, *ph, *shadow;
	int ret;

	ret = mapped_bo(m, big, &h, &p);
	if (!ret)
		ret = mapped_bo(m, huge, &hh, &ph);
	shadow = malloc(big);
	if (ret || !shadow) {
		fprintf(stderr, "mvgal-bench: write-watch buffers: %s\n",
			strerror(ret ? -ret : ENOMEM));
		bench_figure("begin_after_1pct_vs_100pct_written", NAN, "<=", 0.03);
		bench_figure("harvest_1g_vs_64m", NAN, "<=", 2);
		bench_figure("harvest_vs_shadow_compare", NAN, NULL, 0);
		free(shadow);
		return;
	}
	memset(p, 1, big);
	timed_begin(m, g0, h);			/* the GPU's copy, whole */
	for (int r = 0; r < REPS; r++) {
		/* 1% of the chunks, spread, written whole. */
		for (uint64_t c = 0; c < few; c++)
			memset(p + c * (nchunks / few) * chunk, r, chunk);
		t1[r] = timed_begin(m, g0, h);
		memset(p, r, big);
		t100[r] = timed_begin(m, g0, h);
		r1[r] = (double)t1[r] / t100[r];
	}
	printf("# write-watch: BEGIN after the CPU wrote 1%% vs 100%% of 64 MiB (goal: <= 0.03)\n");
	qsort(r1, REPS, sizeof(r1[0]), cmp_double);
	printf("bench: begin 1%% %llu us  100%% %llu us  ratio %.3f\n",
	       (unsigned long long)median(t1, REPS) / 1000,
	       (unsigned long long)median(t100, REPS) / 1000, r1[REPS / 2]);
	bench_figure("begin_after_1pct_vs_100pct_written", r1[REPS / 2], "<=", 0.03);

	/* Start from empty records: the writes above are in them. */
	timed_harvest(m, h, runs, 256, &n1);
	timed_harvest(m, hh, runs, 256, &n2);
	for (int r = 0; r < REPS; r++) {
		for (int i = 0; i < 256; i++) {
			ph[i * (huge / 256) + 64] = (uint8_t)r;
			p[i * (big / 256) + 64] = (uint8_t)r;
		}
		th[r] = timed_harvest(m, hh, runs, 256, &n2);
		tb[r] = timed_harvest(m, h, runs, 256, &n1);
		r2[r] = (double)th[r] / tb[r];
	}
	printf("# write-watch: HARVEST of 256 one-page runs, 1 GiB vs 64 MiB buffer (goal: <= 2)\n");
	qsort(r2, REPS, sizeof(r2[0]), cmp_double);
	printf("bench: harvest 1 GiB %llu us (%llu chunks)  64 MiB %llu us (%llu chunks)  ratio %.2f\n",
	       (unsigned long long)median(th, REPS) / 1000,
	       (unsigned long long)n2,
	       (unsigned long long)median(tb, REPS) / 1000,
	       (unsigned long long)n1, r2[REPS / 2]);
	bench_figure("harvest_1g_vs_64m", r2[REPS / 2], "<=", 2);

	memcpy(shadow, p, big);
	for (int r = 0; r < REPS; r++) {
		uint64_t t0, changed = 0;

		for (uint64_t c = 0; c < few; c++)
			p[c * (nchunks / few) * chunk + 100] = (uint8_t)(r + 7);
		/* The shadow approach: compare every chunk, refresh changed. */
		t0 = now_ns();
		for (uint64_t c = 0; c < nchunks; c++) {
			if (memcmp(p + c * chunk, shadow + c * chunk, chunk)) {
				memcpy(shadow + c * chunk, p + c * chunk, chunk);
				changed++;
			}
		}
		ts[r] = now_ns() - t0;
		tw[r] = timed_harvest(m, h, runs, 256, &n3);
		if (changed != n3)
			printf("bench: shadow found %llu chunks, harvest %llu\n",
			       (unsigned long long)changed,
			       (unsigned long long)n3);
		r3[r] = (double)tw[r] / ts[r];
	}
	printf("# write-watch: HARVEST with 1%% of 64 MiB written vs comparing a shadow copy\n");
	qsort(r3, REPS, sizeof(r3[0]), cmp_double);
	printf("bench: harvest %llu us  shadow compare %llu us  ratio %.4f\n",
	       (unsigned long long)median(tw, REPS) / 1000,
	       (unsigned long long)median(ts, REPS) / 1000, r3[REPS / 2]);
	bench_figure("harvest_vs_shadow_compare", r3[REPS / 2], NULL, 0);
	munmap(p, big);
	munmap(ph, huge);
	free(shadow);
	mvgal_bo_destroy(m, h);
	mvgal_bo_destroy(m, hh);
}

static int set_budget(struct mvgal *m, int g, uint64_t bytes)
{
	return mvgal_gpu_budget(m, g, MVGAL_BUDGET_SET, &bytes, NULL);
}

#define EV_W	32		/* working set, buffers */
#define EV_C	16		/* the budget holds this many */
#define EV_N	2048		/* accesses per trace */
#define EV_SIZE	(128 << 10)

/*
 * One replay of trace @t through the kernel under eviction @policy, with
 * fresh buffers (no history): the hits are the BEGINs that copied nothing.
 */
static long replay(struct mvgal *m, int g, const unsigned int *t, size_t n,
		   const char *policy)
{
	uint32_t h[EV_W];
	long hits = 0;
	size_t i;
	int k;

	if (set_param("evict_policy", policy))
		return -1;
	for (k = 0; k < EV_W; k++)
		if (mvgal_bo_create(m, EV_SIZE, MVGAL_BO_HOST_VALID |
				    MVGAL_BO_GPU_VALID | MVGAL_BO_ZERO_INITIALIZED,
				    MVGAL_GPU_ANY, &h[k]))
			return -1;
	for (i = 0; i < n && hits >= 0; i++) {
		struct drm_mvgal_access a = { .handle = h[t[i]] };
		uint64_t copied;
		uint32_t s;
		int fence;

		if (mvgal_begin(m, g, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL, -1,
				&a, 1, &s, &fence, &copied)) {
			hits = -1;
			break;
		}
		if (fence >= 0) {
			mvgal_fence_wait(fence, 60000);
			close(fence);
		}
		hits += !copied;
		mvgal_end(m, s, -1, NULL, 0);
	}
	for (k = 0; k < EV_W; k++)
		mvgal_bo_destroy(m, h[k]);
	return hits;
}

/*
 * The figures of one trace: the kernel's hits under each policy over
 * MIN's (a negative count: the replay failed). Only looping and mixed
 * have a goal: a predicting policy cannot beat chance on random
 * accesses, and the others are reported to see where it stands.
 */
static void evict_figures(int k, long opt, long pred, long lru)
{
	bool goal = k == MVGAL_TRACE_LOOP || k == MVGAL_TRACE_MIX;
	const char *trace = mvgal_trace_name(k);
	char id[32], name[64];

	snprintf(id, sizeof(id), "%s", trace ? trace : "unknown");
	for (char *c = id; *c; c++)
		if (*c == '-')
			*c = '_';
	snprintf(name, sizeof(name), "evict_%s_predict_vs_min", id);
	bench_figure(name, opt > 0 && pred >= 0 ? (double)pred / opt : NAN,
		     goal ? ">=" : NULL, 0.9);
	snprintf(name, sizeof(name), "evict_%s_lru_vs_min", id);
	bench_figure(name, opt > 0 && lru >= 0 ? (double)lru / opt : NAN,
		     NULL, 0);
}

static void bench_evict(struct mvgal *m, int g)
{
	static unsigned int t[EV_N];
	struct drm_mvgal_pool_lru l = { 0 };

	printf("# eviction: traces over %u buffers, a budget of %u, %u accesses; hits vs Belady's MIN (goal: >= 0.90 on looping and mixed)\n",
	       EV_W, EV_C, EV_N);
	if (mvgal_pool_lru(m, g, NULL, &l) || l.used)
		printf("  (the pool is not empty: %llu bytes used; fewer than %u fit)\n",
		       (unsigned long long)l.used, EV_C);
	if (set_budget(m, g, (uint64_t)EV_C * EV_SIZE)) {
		for (int k = 0; k < MVGAL_TRACE_NKINDS; k++)
			evict_figures(k, -1, -1, -1);
		return;
	}
	set_param("prefetch", "N");
	for (int k = 0; k < MVGAL_TRACE_NKINDS; k++) {
		long opt, sim_lru, pred, lru;

		mvgal_trace_gen(k, t, EV_N, EV_W, EV_C, 1);
		opt = mvgal_trace_belady(t, EV_N, EV_W, EV_C);
		sim_lru = mvgal_trace_lru(t, EV_N, EV_W, EV_C);
		pred = replay(m, g, t, EV_N, "0");
		lru = replay(m, g, t, EV_N, "1");
		printf("bench: evict %-10s MIN %5ld  predict %5ld ratio %.3f  lru %5ld ratio %.3f  (LRU simulated %ld)\n",
		       mvgal_trace_name(k), opt, pred,
		       opt > 0 ? (double)pred / opt : 0.0, lru,
		       opt > 0 ? (double)lru / opt : 0.0, sim_lru);
		evict_figures(k, opt, pred, lru);
	}
	set_param("evict_policy", "0");
	set_param("prefetch", "Y");
	set_budget(m, g, 0);
}

#define PF_BUFS		6
#define PF_FIT		4	/* the budget holds this many */
#define PF_SIZE		(1 << 20)
#define PF_FRAMES	8	/* the first two teach the order */
#define PF_WORK_US	4000	/* the GPU's work per session */

/* Nanoseconds BEGINs waited for data over the measured frames. */
static uint64_t prefetch_frames(struct mvgal *m, int g, const char *on,
				struct drm_mvgal_stats *st)
{
	struct timespec work = { 0, PF_WORK_US * 1000L };
	uint32_t h[PF_BUFS];
	uint64_t waited = 0;
	int f, i;

	if (set_param("prefetch", on))
		return 0;
	for (i = 0; i < PF_BUFS; i++)
		if (mvgal_bo_create(m, PF_SIZE, MVGAL_BO_HOST_VALID |
				    MVGAL_BO_GPU_VALID | MVGAL_BO_ZERO_INITIALIZED,
				    MVGAL_GPU_ANY, &h[i]))
			return 0;
	for (f = 0; f < PF_FRAMES; f++) {
		for (i = 0; i < PF_BUFS; i++) {
			struct drm_mvgal_access a = { .handle = h[i] };
			uint64_t t0 = now_ns();
			uint32_t s;
			int fence;

			if (mvgal_begin(m, g, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL,
					-1, &a, 1, &s, &fence, NULL))
				return 0;
			if (fence >= 0) {
				mvgal_fence_wait(fence, 60000);
				close(fence);
			}
			if (f >= 2)
				waited += now_ns() - t0;
			nanosleep(&work, NULL);
			mvgal_end(m, s, -1, NULL, 0);
		}
	}
	mvgal_get_stats(m, st);
	for (i = 0; i < PF_BUFS; i++)
		mvgal_bo_destroy(m, h[i]);
	return waited;
}

#define PF_REPS		5

static void bench_prefetch(struct mvgal *m, int g)
{
	struct drm_mvgal_stats s0, s1, s2;
	uint64_t on[PF_REPS], off[PF_REPS];
	double ratio[PF_REPS], figure;

	printf("# prefetch: %u frames of sessions over %u buffers of 1 MiB, %u fit; time waiting for data, prefetch on vs off\n",
	       PF_FRAMES - 2, PF_BUFS, PF_FIT);
	if (set_budget(m, g, (uint64_t)PF_FIT * PF_SIZE)) {
		bench_figure("prefetch_wait_on_vs_off", NAN, NULL, 0);
		return;
	}
	mvgal_get_stats(m, &s0);
	for (int r = 0; r < PF_REPS; r++) {
		on[r] = prefetch_frames(m, g, "Y", &s1);
		off[r] = prefetch_frames(m, g, "N", &s2);
		ratio[r] = off[r] ? (double)on[r] / off[r] : NAN;
	}
	figure = median_ratio(ratio, PF_REPS);
	printf("bench: prefetch waiting on %llu us  off %llu us (medians of %d)  ratio %.3f  (%llu issued, %llu hits, %llu misses, %llu cancelled)\n",
	       (unsigned long long)median(on, PF_REPS) / 1000,
	       (unsigned long long)median(off, PF_REPS) / 1000, PF_REPS,
	       figure,
	       (unsigned long long)(s1.prefetch_issued - s0.prefetch_issued),
	       (unsigned long long)(s1.prefetch_hits - s0.prefetch_hits),
	       (unsigned long long)(s1.prefetch_misses - s0.prefetch_misses),
	       (unsigned long long)(s1.prefetch_cancelled - s0.prefetch_cancelled));
	bench_figure("prefetch_wait_on_vs_off", figure, NULL, 0);
	set_param("prefetch", "Y");
	set_budget(m, g, 0);
}

/*
 * BEGIN + END on a resident clean buffer: the lean path (only the
 * buffer's own lock) against the full one (its reservation through
 * drm_exec, a fence slot, then its lock), alternated run by run.
 */
static void bench_lean(struct mvgal *m, int g0)
{
	uint64_t tl[REPS], tf[REPS];
	double ratio[REPS], figure;
	const int inner = 2000;
	uint32_t h;

	printf("# BEGIN + END on resident data: through the reservations (drm_exec) vs the lean path\n");
	if (resident_bo(m, g0, &h)) {
		bench_figure("begin_end_drm_exec_vs_lean", NAN, NULL, 0);
		return;
	}
	for (int r = 0; r < REPS; r++) {
		set_param("lean_begin", "1");
		tl[r] = begin_end_ns(m, g0, h, inner);
		set_param("lean_begin", "0");
		tf[r] = begin_end_ns(m, g0, h, inner);
		ratio[r] = tl[r] && tf[r] ? (double)tf[r] / tl[r] : NAN;
	}
	set_param("lean_begin", "1");
	figure = median_ratio(ratio, REPS);
	printf("bench: lean %llu ns  drm_exec %llu ns  ratio %.2fx\n",
	       (unsigned long long)median(tl, REPS),
	       (unsigned long long)median(tf, REPS), figure);
	bench_figure("begin_end_drm_exec_vs_lean", figure, NULL, 0);
	mvgal_bo_destroy(m, h);
}

static int queue_migrate(struct mvgal *m, uint32_t h, uint64_t size,
			 uint32_t loc, uint32_t prio, int in_fence)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .size = size, .location = loc,
		.priority = prio, .in_fence_fd = in_fence,
	};
	int ret = mvgal_migrate(m, &mg);

	return ret ? ret : mg.out_fence_fd;
}

#define BOOST_NORMAL	4
#define BOOST_BIG	(16u << 20)
#define BOOST_SMALL	(1u << 20)

/*
 * One round: behind a vgem fence, a LOW copy of @x to @g0's pool, then
 * BOOST_NORMAL NORMAL copies of 16 MiB to @g1's, then a HIGH copy of @x
 * on to @g1, which must wait for the LOW one. The fence signals; the time
 * until the HIGH copy is done is returned (ns), 0 on failure.
 */
static uint64_t boost_round(struct mvgal *m, int g0, int g1, uint32_t x,
			    const uint32_t *big)
{
	int fl, fh, fn[BOOST_NORMAL];
	struct vfence vf = { .vgem = -1, .fd = -1 };
	uint64_t t = 0;

	if (vgem_fence_new(&vf, vgem_open()))
		goto out;
	fl = queue_migrate(m, x, BOOST_SMALL, 1 + g0, MVGAL_PRIO_LOW, vf.fd);
	for (int i = 0; i < BOOST_NORMAL; i++)
		fn[i] = queue_migrate(m, big[i], BOOST_BIG, 1 + g1,
				      MVGAL_PRIO_NORMAL, vf.fd);
	fh = queue_migrate(m, x, BOOST_SMALL, 1 + g1, MVGAL_PRIO_HIGH, -1);
	vfence_signal(&vf);
	if (fh >= 0 && !mvgal_fence_wait(fh, 60000))
		t = fence_time(fh) - fence_time(vf.fd);
	for (int i = 0; i < BOOST_NORMAL; i++)
		if (fn[i] >= 0) {
			mvgal_fence_wait(fn[i], 60000);
			close(fn[i]);
		}
	if (fl >= 0)
		close(fl);
	if (fh >= 0)
		close(fh);
out:
	vfence_free(&vf);
	/* Everything home again, untimed, for the next round. */
	mvgal_place_free(m, x, g0);
	mvgal_place_free(m, x, g1);
	for (int i = 0; i < BOOST_NORMAL; i++)
		mvgal_place_free(m, big[i], g1);
	return t;
}

/*
 * The buffers of the rounds, all written so that every copy moves
 * bytes (a never-written chunk is only cleared at its destination): @x
 * of BOOST_SMALL, @big of BOOST_BIG. The handles come in as 0 (GEM
 * handles start at 1); on failure, those made are destroyed.
 */
static int boost_buffers(struct mvgal *m, uint32_t *x, uint32_t *big)
{
	const uint32_t fl = MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID;
	uint8_t *data = malloc(BOOST_BIG);
	int ret;

	if (!data)
		return -ENOMEM;
	memset(data, 0x5a, BOOST_BIG);
	ret = mvgal_bo_create(m, BOOST_SMALL, fl, MVGAL_GPU_ANY, x);
	if (!ret)
		ret = mvgal_bo_write(m, *x, 0, data, BOOST_SMALL);
	for (int i = 0; !ret && i < BOOST_NORMAL; i++) {
		ret = mvgal_bo_create(m, BOOST_BIG, fl, MVGAL_GPU_ANY, &big[i]);
		if (!ret)
			ret = mvgal_bo_write(m, big[i], 0, data, BOOST_BIG);
	}
	free(data);
	if (ret) {
		if (*x)
			mvgal_bo_destroy(m, *x);
		for (int i = 0; i < BOOST_NORMAL; i++)
			if (big[i])
				mvgal_bo_destroy(m, big[i]);
	}
	return ret;
}

static void bench_boost(struct mvgal *m, int g0, int g1)
{
	uint32_t x = 0, big[BOOST_NORMAL] = { 0 };
	uint64_t ton[REPS], toff[REPS];
	double ratio[REPS], figure;

	printf("# a HIGH copy waiting for a LOW one queued behind %d NORMAL copies of %u MiB: fixed priorities (as drm_sched's run queues) vs the LOW one inheriting HIGH\n",
	       BOOST_NORMAL, BOOST_BIG >> 20);
	if (boost_buffers(m, &x, big)) {
		bench_figure("priority_wait_fixed_vs_inherited", NAN, NULL, 0);
		return;
	}
	for (int r = 0; r < REPS; r++) {
		set_param("job_boost", "1");
		ton[r] = boost_round(m, g0, g1, x, big);
		set_param("job_boost", "0");
		toff[r] = boost_round(m, g0, g1, x, big);
		ratio[r] = ton[r] && toff[r] ? (double)toff[r] / ton[r] : NAN;
	}
	set_param("job_boost", "1");
	figure = median_ratio(ratio, REPS);
	printf("bench: inherited %llu us  fixed %llu us  ratio %.2fx\n",
	       (unsigned long long)median(ton, REPS) / 1000,
	       (unsigned long long)median(toff, REPS) / 1000, figure);
	bench_figure("priority_wait_fixed_vs_inherited", figure, NULL, 0);
	mvgal_bo_destroy(m, x);
	for (int i = 0; i < BOOST_NORMAL; i++)
		mvgal_bo_destroy(m, big[i]);
}

/* ---- io_uring ---- */

#define RING_N 32	/* BEGIN + END pairs per batch */
#define RING_M 64	/* migrations per batch */

/* RING_N READ BEGINs then their ENDs, one ioctl each; ns per pair. */
static uint64_t pairs_ioctl_ns(struct mvgal *m, int g, const uint32_t *h)
{
	uint64_t t0 = now_ns();
	struct drm_mvgal_access a;
	uint32_t s[RING_N];
	int fence;

	for (int i = 0; i < RING_N; i++) {
		a = (struct drm_mvgal_access) { .handle = h[i] };
		if (mvgal_begin(m, g, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL, -1,
				&a, 1, &s[i], &fence, NULL))
			return 0;
		if (fence >= 0)
			close(fence);
	}
	for (int i = 0; i < RING_N; i++)
		if (mvgal_end(m, s[i], -1, NULL, 0))
			return 0;
	return (now_ns() - t0) / RING_N;
}

/* Reaps @n completions; false if one failed or none came. */
static bool ring_reap(struct mvgal_ring *r, int n)
{
	struct mvgal_completion c;

	for (int i = 0; i < n; i++)
		if (mvgal_ring_wait(r, 60000, &c) || c.res)
			return false;
	return true;
}

/* The same pairs through the ring: one submit of the BEGINs, one of the ENDs. */
static uint64_t pairs_ring_ns(struct mvgal_ring *r, int g, const uint32_t *h)
{
	struct drm_mvgal_access a[RING_N];
	struct drm_mvgal_begin b[RING_N];
	struct drm_mvgal_end e[RING_N];
	uint64_t t0 = now_ns();

	for (int i = 0; i < RING_N; i++) {
		a[i] = (struct drm_mvgal_access) { .handle = h[i] };
		b[i] = (struct drm_mvgal_begin) {
			.accesses = (uintptr_t)&a[i], .count = 1, .gpu = g,
			.flags = MVGAL_ACCESS_READ, .in_fence_fd = -1,
			.priority = MVGAL_PRIO_NORMAL,
		};
		if (mvgal_prep_begin(r, &b[i], i, 0))
			return 0;
	}
	if (mvgal_ring_submit(r) != RING_N || !ring_reap(r, RING_N))
		return 0;
	for (int i = 0; i < RING_N; i++) {
		if (b[i].out_fence_fd >= 0)
			close(b[i].out_fence_fd);
		e[i] = (struct drm_mvgal_end) {
			.session = b[i].session, .fence_fd = -1,
		};
		if (mvgal_prep_end(r, &e[i], i, 0))
			return 0;
	}
	if (mvgal_ring_submit(r) != RING_N || !ring_reap(r, RING_N))
		return 0;
	return (now_ns() - t0) / RING_N;
}

/* RING_M MOVEs of 64 KiB buffers to @loc, waited for with poll(). */
static uint64_t migrations_poll_ns(struct mvgal *m, const uint32_t *h,
				   uint32_t loc)
{
	struct pollfd pfd[RING_M];
	uint64_t t0 = now_ns();
	int left = 0;

	for (int i = 0; i < RING_M; i++) {
		struct drm_mvgal_migrate mg = {
			.handle = h[i], .size = 64 << 10, .location = loc,
			.flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
		};

		if (mvgal_migrate(m, &mg))
			return 0;
		pfd[i] = (struct pollfd) { .fd = mg.out_fence_fd, .events = POLLIN };
		left += mg.out_fence_fd >= 0;
	}
	while (left > 0) {
		if (poll(pfd, RING_M, 60000) <= 0)
			return 0;
		for (int i = 0; i < RING_M; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & POLLIN))
				continue;
			close(pfd[i].fd);
			pfd[i].fd = -1;
			left--;
		}
	}
	return now_ns() - t0;
}

/* The same through the ring: one submit, RING_M completions reaped. */
static uint64_t migrations_ring_ns(struct mvgal_ring *r, const uint32_t *h,
				   uint32_t loc)
{
	struct drm_mvgal_migrate mg[RING_M];
	uint64_t t0 = now_ns();

	for (int i = 0; i < RING_M; i++) {
		mg[i] = (struct drm_mvgal_migrate) {
			.handle = h[i], .size = 64 << 10, .location = loc,
			.flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
		};
		if (mvgal_prep_migrate(r, &mg[i], i, 0))
			return 0;
	}
	if (mvgal_ring_submit(r) != RING_M || !ring_reap(r, RING_M))
		return 0;
	for (int i = 0; i < RING_M; i++)
		if (mg[i].out_fence_fd >= 0)
			close(mg[i].out_fence_fd);
	return now_ns() - t0;
}

/* Writes @size bytes into @h: its chunks then exist, and a MOVE copies them. */
static int bo_fill_bytes(struct mvgal *m, uint32_t h, size_t size)
{
	uint8_t *data = malloc(size);
	int ret = -ENOMEM;

	if (data) {
		for (size_t i = 0; i < size; i++)
			data[i] = (uint8_t)(i * 7 + h);
		ret = mvgal_bo_write(m, h, 0, data, size);
		free(data);
	}
	return ret;
}

static int ring_buffers(struct mvgal *m, int g, uint32_t *h, int n,
			bool resident)
{
	int ret = 0;

	for (int i = 0; i < n && !ret; i++) {
		if (resident) {
			ret = resident_bo(m, g, &h[i]);
			continue;
		}
		ret = mvgal_bo_create(m, 64 << 10, MVGAL_BO_HOST_VALID |
				      MVGAL_BO_GPU_VALID, MVGAL_GPU_ANY, &h[i]);
		if (!ret)
			ret = bo_fill_bytes(m, h[i], 64 << 10);
	}
	return ret;
}

static void ring_sessions(struct mvgal *m, struct mvgal_ring *r, int g0)
{
	uint64_t ti[REPS], tr[REPS];
	double ratio[REPS], v = NAN;
	uint32_t h[RING_N] = { 0 };
	bool ok = !ring_buffers(m, g0, h, RING_N, true);

	for (int k = 0; k < REPS && ok; k++) {
		ti[k] = pairs_ioctl_ns(m, g0, h);
		tr[k] = pairs_ring_ns(r, g0, h);
		ok = ti[k] && tr[k];
		ratio[k] = ok ? (double)ti[k] / tr[k] : NAN;
	}
	if (ok) {
		v = median_ratio(ratio, REPS);
		printf("bench: %d BEGIN+END pairs: ioctls %llu ns/pair, ring %llu ns/pair, throughput ring/ioctl %.2fx\n",
		       RING_N, (unsigned long long)median(ti, REPS),
		       (unsigned long long)median(tr, REPS), v);
	}
	for (int i = 0; i < RING_N; i++)
		if (h[i])
			mvgal_bo_destroy(m, h[i]);
	bench_figure("ring_begin_end_throughput_vs_ioctl", v, ">=", 2);
}

static void ring_migrations(struct mvgal *m, struct mvgal_ring *r, int g0,
			    int g1)
{
	uint64_t tp[REPS], tr[REPS];
	double ratio[REPS], v = NAN;
	uint32_t h[RING_M] = { 0 };
	bool ok = !ring_buffers(m, g0, h, RING_M, false);

	/* poll() moves the buffers to GPU 1, the ring back: every MOVE copies. */
	for (int k = 0; k < REPS && ok; k++) {
		tp[k] = migrations_poll_ns(m, h, 1 + g1);
		tr[k] = migrations_ring_ns(r, h, 1 + g0);
		ok = tp[k] && tr[k];
		ratio[k] = ok ? (double)tr[k] / tp[k] : NAN;
	}
	if (ok) {
		v = median_ratio(ratio, REPS);
		printf("bench: %d MOVEs of 64 KiB: poll() on sync_files %llu us, ring %llu us, time ring/poll %.2fx\n",
		       RING_M, (unsigned long long)median(tp, REPS) / 1000,
		       (unsigned long long)median(tr, REPS) / 1000, v);
	}
	for (int i = 0; i < RING_M; i++)
		if (h[i])
			mvgal_bo_destroy(m, h[i]);
	bench_figure("ring_migrations_wait_vs_poll", v, NULL, 0);
}

/* RING_N CANCELs of a job that does not exist (-ENOENT), one ioctl each. */
static uint64_t cancels_ioctl_ns(struct mvgal *m)
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < RING_N; i++)
		if (mvgal_cancel(m, ~0ULL - i) != -ENOENT)
			return 0;
	return (now_ns() - t0) / RING_N;
}

/* The same CANCELs in one submit; ns per command. */
static uint64_t cancels_ring_ns(struct mvgal_ring *r)
{
	struct drm_mvgal_cancel cn[RING_N];
	struct mvgal_completion c;
	uint64_t t0 = now_ns();

	for (int i = 0; i < RING_N; i++) {
		cn[i] = (struct drm_mvgal_cancel) { .job = ~0ULL - i };
		if (mvgal_prep_cancel(r, &cn[i], i, 0))
			return 0;
	}
	if (mvgal_ring_submit(r) != RING_N)
		return 0;
	for (int i = 0; i < RING_N; i++)
		if (mvgal_ring_wait(r, 60000, &c) || c.res != -ENOENT)
			return 0;
	return (now_ns() - t0) / RING_N;
}

/*
 * What the ring saves on its own: the way in, for a command whose work
 * is a lookup that fails.
 */
static void ring_cancels(struct mvgal *m, struct mvgal_ring *r)
{
	uint64_t ti[REPS], tr[REPS];
	double ratio[REPS], v = NAN;
	bool ok = true;

	for (int k = 0; k < REPS && ok; k++) {
		ti[k] = cancels_ioctl_ns(m);
		tr[k] = cancels_ring_ns(r);
		ok = ti[k] && tr[k];
		ratio[k] = ok ? (double)ti[k] / tr[k] : NAN;
	}
	if (ok) {
		v = median_ratio(ratio, REPS);
		printf("bench: %d CANCELs of no job: ioctls %llu ns each, ring %llu ns each, throughput ring/ioctl %.2fx\n",
		       RING_N, (unsigned long long)median(ti, REPS),
		       (unsigned long long)median(tr, REPS), v);
	}
	bench_figure("ring_cancel_throughput_vs_ioctl", v, NULL, 0);
}

/*
 * io_uring against the ioctls it replaces, timed in the same runs:
 * RING_N BEGIN + END pairs (one submit for the BEGINs, one for the ENDs,
 * against 2 * RING_N ioctls), and waiting for RING_M migrations (their
 * completions against poll() on their sync_files).
 */
static void bench_ring(struct mvgal *m, int g0, int g1)
{
	struct mvgal_ring *r;
	struct quiet q;
	int ret;

	printf("# io_uring: %d BEGIN+END pairs through one ring submit each vs ioctls (goal: >= 2x throughput); waiting for %d migrations through the ring vs poll() on their sync_files (ratio of times, no goal)\n",
	       RING_N, RING_M);
	ret = mvgal_ring_init(m, 2 * RING_M, &r);
	if (ret) {
		printf("bench: ring: %s\n", strerror(-ret));
		bench_figure("ring_begin_end_throughput_vs_ioctl", NAN, ">=", 2);
		bench_figure("ring_migrations_wait_vs_poll", NAN, NULL, 0);
		bench_figure("ring_cancel_throughput_vs_ioctl", NAN, NULL, 0);
		return;
	}
	/* The same buffers in the same order: no prefetch competes. */
	quiet_begin(&q);
	ring_sessions(m, r, g0);
	ring_migrations(m, r, g0, g1);
	ring_cancels(m, r);
	quiet_end(&q);
	mvgal_ring_free(r);
}

#define STAGE_N 1000		/* 4 KiB writes per run */
#define STAGE_CHUNKS 8		/* 64 KiB chunks of the buffer they go to */
#define STAGE_GPU_US 100	/* the stand-in GPU's time per session */
#define STAGE_Q 64		/* vgem buffers: sessions the GPU may queue */

/*
 * The stand-in GPU: each session's work is a vgem fence that this thread
 * signals STAGE_GPU_US after the work can start (when it was queued, and
 * the work before it is done), in queue order, spinning on the guest's
 * second CPU. @queued and @done count fences; the main thread waits for
 * room before it reuses one of the STAGE_Q vgem buffers.
 */
struct stage_gpu {
	int vgem;
	uint32_t bo[STAGE_Q];
	int dmabuf[STAGE_Q];
	uint32_t id[STAGE_Q];
	uint64_t at[STAGE_Q];
	_Atomic unsigned int queued, done;
	_Atomic bool stop;
	/* MVGAL_BENCH_GPU_STALL_MS: once, the GPU stalls this long before a
	 * fence (past vgem's 10 s, its fences signal with -ETIMEDOUT), to
	 * see what a stalled stand-in GPU does to the run.
	 */
	unsigned int stall_ms;
};

static void *stage_gpu_run(void *arg)
{
	struct stage_gpu *g = arg;
	uint64_t free_at = 0;

	while (!g->stop || g->done != g->queued) {
		unsigned int k = g->done % STAGE_Q;
		struct drm_vgem_fence_signal sg;
		uint64_t end;

		if (g->done == g->queued)
			continue;
		if (g->stall_ms && g->done == STAGE_N / 2) {
			usleep(g->stall_ms * 1000U);
			g->stall_ms = 0;
		}
		end = (g->at[k] > free_at ? g->at[k] : free_at) +
		      STAGE_GPU_US * 1000ULL;
		while (now_ns() < end)
			;
		sg = (struct drm_vgem_fence_signal) { .fence = g->id[k] };
		drmIoctl(g->vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sg);
		free_at = end;
		g->done++;
	}
	return NULL;
}

static void stage_gpu_fini(struct stage_gpu *g)
{
	for (int k = 0; k < STAGE_Q; k++)
		if (g->dmabuf[k] > 0)
			close(g->dmabuf[k]);
	if (g->vgem >= 0)
		close(g->vgem);
}

static int stage_gpu_init(struct stage_gpu *g)
{
	g->vgem = vgem_open();
	if (g->vgem < 0)
		return g->vgem;
	for (int k = 0; k < STAGE_Q; k++) {
		struct drm_mode_create_dumb d = { .width = 64, .height = 1,
						  .bpp = 32 };

		if (drmIoctl(g->vgem, DRM_IOCTL_MODE_CREATE_DUMB, &d) ||
		    drmPrimeHandleToFD(g->vgem, d.handle, O_CLOEXEC | O_RDWR,
				       &g->dmabuf[k]))
			return -errno;
		g->bo[k] = d.handle;
	}
	return 0;
}

/* Queues one session's GPU work: its fence as a sync_file, or -errno. */
static int stage_gpu_queue(struct stage_gpu *g)
{
	unsigned int k = g->queued % STAGE_Q;
	struct drm_vgem_fence_attach a = { .handle = g->bo[k],
					   .flags = VGEM_FENCE_WRITE };
	struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_RW };

	while (g->queued - g->done >= STAGE_Q)
		;
	if (drmIoctl(g->vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &a) ||
	    ioctl(g->dmabuf[k], DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e))
		return -errno;
	g->id[k] = a.out_fence;
	g->at[k] = now_ns();
	g->queued++;
	return e.fd;
}

/* What made a staged-write run fail: the call and its errno, or bytes. */
struct stage_err {
	const char *call;	/* NULL: none failed */
	int err;		/* -errno of @call */
	int write;		/* the write it was at */
	long off;		/* first differing byte, or -1 */
	uint8_t got, want;
};

static bool stage_fail(struct stage_err *e, const char *call, int err, int i)
{
	*e = (struct stage_err) { .call = call, .err = err, .write = i,
				  .off = -1 };
	return false;
}

/* One write of stage_run(): the session, its GPU work, the write. */
static bool stage_one(struct mvgal *m, int gpu, struct stage_gpu *g,
		      uint32_t h, uint32_t flags, uint8_t *model, int i,
		      struct stage_err *e)
{
	uint64_t c = i % STAGE_CHUNKS, off = c * (64 << 10) +
		     (uint64_t)(i / STAGE_CHUNKS) % 16 * 4096;
	struct drm_mvgal_range r = { .offset = c * (64 << 10),
				     .size = 64 << 10 };
	struct drm_mvgal_access a = { .handle = h, .nr_ranges = 1,
				      .ranges = (uintptr_t)&r };
	uint8_t buf[4096];
	int fence, work, ret;
	uint32_t s;

	ret = mvgal_begin(m, gpu, MVGAL_ACCESS_READ | MVGAL_ACCESS_NO_IN_PLACE,
			  MVGAL_PRIO_NORMAL, -1, &a, 1, &s, &fence, NULL);
	if (ret)
		return stage_fail(e, "BEGIN", ret, i);
	if (fence >= 0)
		close(fence);
	work = stage_gpu_queue(g);
	if (work < 0)
		return stage_fail(e, "the stand-in GPU's fence", work, i);
	ret = mvgal_end(m, s, work, NULL, 0);
	close(work);
	if (ret)
		return stage_fail(e, "END", ret, i);
	memset(buf, (uint8_t)(i * 29 + flags), sizeof(buf));
	ret = mvgal_bo_write_flags(m, h, off, buf, sizeof(buf), flags);
	if (ret)
		return stage_fail(e, flags ? "BO_PWRITE (staged)" : "BO_PWRITE",
				  ret, i);
	memcpy(model + off, buf, sizeof(buf));
	return true;
}

/*
 * STAGE_N times: a READ session on GPU @gpu of one chunk (its BEGIN
 * copies the chunk, which the last write changed), ended with its GPU
 * work (a fence of @g's), then a 4 KiB write into that chunk, plain or
 * staged. The plain write waits for the GPU; the staged one does not.
 * The run ends when every write has landed (a BO_PREAD waits for them);
 * @model is what the buffer must hold. Return: ns, or 0 on a failure
 * (said in @e).
 */
static uint64_t stage_run(struct mvgal *m, int gpu, struct stage_gpu *g,
			  uint32_t h, uint32_t flags, uint8_t *model,
			  struct stage_err *e)
{
	uint64_t t0 = now_ns();
	uint8_t byte;
	int ret;

	for (int i = 0; i < STAGE_N; i++)
		if (!stage_one(m, gpu, g, h, flags, model, i, e))
			return 0;
	ret = mvgal_bo_read(m, h, 0, &byte, 1);
	if (ret) {
		stage_fail(e, "BO_PREAD", ret, STAGE_N);
		return 0;
	}
	return now_ns() - t0;
}

/* Does the buffer hold @model? If not, @e says where it differs first. */
static bool stage_check(struct mvgal *m, uint32_t h, const uint8_t *model,
			struct stage_err *e)
{
	size_t size = STAGE_CHUNKS * (64 << 10);
	uint8_t *got = malloc(size);
	int ret = got ? mvgal_bo_read(m, h, 0, got, size) : -ENOMEM;

	if (ret) {
		free(got);
		return stage_fail(e, "BO_PREAD of the whole buffer", ret, STAGE_N);
	}
	for (size_t i = 0; i < size; i++) {
		if (got[i] != model[i]) {
			*e = (struct stage_err) { .off = (long)i, .got = got[i],
						  .want = model[i] };
			break;
		}
	}
	free(got);
	return e->off < 0;
}

/* Says why a staged-write run failed: a call's errno, or a lost byte. */
static void stage_report(const struct stage_err *e, bool staged)
{
	const char *run = staged ? "staged" : "pwrite";

	if (e->call)
		printf("bench: staged: %s run: %s failed at write %d: %s\n",
		       run, e->call, e->write, strerror(-e->err));
	else if (e->off >= 0)
		printf("bench: staged: %s run: the bytes differ from offset %ld (chunk %ld): 0x%02x where 0x%02x was written\n",
		       run, e->off, e->off >> 16, e->got, e->want);
	else
		printf("bench: staged: failed before the runs (set-up)\n");
}

/*
 * Staged writes against plain BO_PWRITE, timed in the same runs: STAGE_N
 * 4 KiB updates, each after a READ session on its chunk whose GPU work
 * (the stand-in GPU's fence) takes STAGE_GPU_US: the pattern of a
 * runtime updating constants between submissions. Ratio of throughputs,
 * no goal; each run's bytes are checked.
 */
static void bench_staged(struct mvgal *m, int g0)
{
	size_t size = STAGE_CHUNKS * (64 << 10);
	uint64_t tp[REPS], ts[REPS];
	double ratio[REPS], v = NAN;
	uint8_t *model = calloc(1, size);
	struct drm_mvgal_stats st0, st1;
	struct stage_gpu g = { .vgem = -1 };
	bool ok = model && !stage_gpu_init(&g), started = false, staged = false;
	struct stage_err e = { .off = -1 };
	pthread_t t;
	uint32_t h = 0;

	if (getenv("MVGAL_BENCH_GPU_STALL_MS"))
		g.stall_ms = (unsigned int)atoi(getenv("MVGAL_BENCH_GPU_STALL_MS"));
	printf("# staged writes: %d 4 KiB writes, each after a READ session on its chunk whose GPU work takes %d us (a vgem fence a second thread signals), MVGAL_RW_STAGED vs plain BO_PWRITE (ratio of throughputs, no goal)\n",
	       STAGE_N, STAGE_GPU_US);
	ok = ok && !mvgal_bo_create(m, size, MVGAL_BO_HOST_VALID |
				    MVGAL_BO_GPU_VALID, MVGAL_GPU_ANY, &h);
	ok = ok && !mvgal_bo_write(m, h, 0, model, size);
	ok = ok && !mvgal_get_stats(m, &st0);
	started = ok && !pthread_create(&t, NULL, stage_gpu_run, &g);
	ok = started;
	for (int k = 0; k < REPS && ok; k++) {
		staged = false;
		tp[k] = stage_run(m, g0, &g, h, 0, model, &e);
		ok = tp[k] && stage_check(m, h, model, &e);
		staged = true;
		ts[k] = ok ? stage_run(m, g0, &g, h, MVGAL_RW_STAGED, model, &e) : 0;
		ok = ok && ts[k] && stage_check(m, h, model, &e);
		ratio[k] = ok ? (double)tp[k] / ts[k] : NAN;
	}
	if (started) {
		g.stop = true;
		pthread_join(t, NULL);
	}
	ok = ok && !mvgal_get_stats(m, &st1);
	if (ok) {
		v = median_ratio(ratio, REPS);
		printf("bench: %d writes with sessions: pwrite %llu us, staged %llu us (%llu of %d staged per run), throughput staged/pwrite %.2fx\n",
		       STAGE_N, (unsigned long long)median(tp, REPS) / 1000,
		       (unsigned long long)median(ts, REPS) / 1000,
		       (unsigned long long)(st1.staged_writes -
					    st0.staged_writes) / REPS,
		       STAGE_N, v);
	} else {
		stage_report(&e, staged);
	}
	if (h)
		mvgal_bo_destroy(m, h);
	stage_gpu_fini(&g);
	free(model);
	bench_figure("staged_writes_vs_pwrite", v, NULL, 0);
}

/* mvgal_bench [GROUP...]: every group, or the ones named (evict, ring...). */
/* ---- device memory: a VRAM stand-in's pool against the kernel's I/O copies ---- */

#define VRAM_SIZE	(4 << 20)
#define VRAM_POOL_MIB	64
#define VRAM_REPS	7

/* One timed kernel copy of the stand-in's (MVGAL_VRAM_COPY_*): ns, or 0. */
static uint64_t vram_kernel_copy(const struct standin *s, uint32_t h,
				 uint32_t op)
{
	struct drm_mvgal_vram_copy_time c = {
		.handle = h, .op = op, .size = VRAM_SIZE,
	};

	return drmIoctl(s->fd, DRM_IOCTL_MVGAL_VRAM_COPY_TIME, &c) ? 0 : c.ns;
}

/*
 * A buffer current at @src only, whose copy at @dst the runs make again
 * (xfer_reset() and xfer_migrate()); the host side is the buffer's own
 * pages, so no pool mapping is needed.
 */
static int vram_xfer_open(struct xfer *x, struct mvgal *m, uint32_t src,
			  uint32_t dst)
{
	int ret;

	*x = (struct xfer) { .m = m, .size = VRAM_SIZE, .src = src, .dst = dst };
	ret = mvgal_bo_create(m, VRAM_SIZE, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			      MVGAL_GPU_ANY, &x->h);
	if (ret) {
		x->h = 0;
		return ret;
	}
	ret = mvgal_bo_map(m, x->h, (void **)&x->host);
	if (ret) {
		x->host = NULL;
		return ret;
	}
	fill_pages(x->host, VRAM_SIZE);
	if (src != MVGAL_LOC_HOST)
		ret = migrate_to(m, x->h, VRAM_SIZE, src, MVGAL_MIGRATE_MOVE);
	return ret ? ret : migrate_to(m, x->h, VRAM_SIZE, dst, 0);
}

/* The baselines of one direction: memcpy_toio, or memcpy_fromio and drm_memcpy_from_wc. */
struct vram_dir {
	const char *name, *id;
	uint32_t ops[2];
	int nops;
};

/*
 * @method forced, VRAM_REPS runs, each the kernel's baseline copies of
 * the same size on the same BAR then the MIGRATE; prints MB/s and the
 * median of the runs' ratios (baseline time / MIGRATE time: the share
 * of the kernel copy's throughput MIGRATE reaches).
 */
static void vram_method(struct mvgal *m, const struct standin *s, uint32_t bh,
			uint32_t src, uint32_t dst, const struct vram_dir *d,
			uint32_t method)
{
	static const char *const op_name[MVGAL_VRAM_COPY_OPS] = {
		"memcpy_toio", "memcpy_fromio", "drm_memcpy_from_wc",
	};
	static const char *const op_id[MVGAL_VRAM_COPY_OPS] = {
		"memcpy_toio", "memcpy_fromio", "from_wc",
	};
	uint64_t tb[2][VRAM_REPS], tm[VRAM_REPS];
	struct drm_mvgal_stats s0, s1;
	double r[VRAM_REPS], ratio[2];
	char v[8], moved[128], name[96];
	bool confirmed = false;
	struct xfer x;
	int ret;

	snprintf(v, sizeof(v), "%u", method);
	ret = vram_xfer_open(&x, m, src, dst);
	if (!ret)
		ret = set_param("force_method", v);
	if (!ret)
		ret = xfer_reset(&x);
	if (!ret)
		ret = xfer_migrate(&x, &tm[0]);	/* warms up */
	if (!ret)
		ret = mvgal_get_stats(m, &s0);
	for (int i = 0; !ret && i < VRAM_REPS; i++) {
		for (int k = 0; k < d->nops; k++)
			if (!(tb[k][i] = vram_kernel_copy(s, bh, d->ops[k])))
				ret = -errno;
		if (!ret)
			ret = xfer_reset(&x);
		if (!ret)
			ret = xfer_migrate(&x, &tm[i]);
	}
	if (!ret)
		ret = mvgal_get_stats(m, &s1);
	set_param("force_method", "-1");
	xfer_close(&x);
	printf("bench: %s %6u KiB %-9s ", d->name, VRAM_SIZE >> 10,
	       mvgal_method_name(method));
	if (ret) {
		printf("%s\n", strerror(-ret));
	} else {
		confirmed = method_confirmed(&s0, &s1, method,
					     (uint64_t)VRAM_REPS * VRAM_SIZE);
		moved_text(&s0, &s1, moved, sizeof(moved));
		printf("MIGRATE %7.1f MB/s (%s%s)", VRAM_SIZE * 1e3 / median_of(tm, VRAM_REPS),
		       confirmed ? "" : "NOT this method only: ", moved);
	}
	for (int k = 0; k < d->nops; k++) {
		ratio[k] = NAN;
		if (!ret && confirmed) {
			for (int i = 0; i < VRAM_REPS; i++)
				r[i] = (double)tb[k][i] / tm[i];
			ratio[k] = median_ratio(r, VRAM_REPS);
		}
		if (!ret)
			printf("; %s %7.1f MB/s, ratio %.2f", op_name[d->ops[k]],
			       VRAM_SIZE * 1e3 / median_of(tb[k], VRAM_REPS),
			       ratio[k]);
	}
	if (!ret)
		printf("\n");
	for (int k = 0; k < d->nops; k++) {
		snprintf(name, sizeof(name), "vram_%s_%s_vs_%s", d->id,
			 method_id[method], op_id[d->ops[k]]);
		bench_figure(name, ratio[k], NULL, 0);
	}
}

/* What the selector picks for a direction now, as GET_PATH says. */
static void vram_choice(struct mvgal *m, uint32_t src, uint32_t dst,
			const char *name)
{
	struct drm_mvgal_path p;

	if (mvgal_get_path(m, src, dst, VRAM_SIZE, &p)) {
		printf("# %s: GET_PATH failed\n", name);
		return;
	}
	printf("# %s: the selector picks %s (%s)\n", name,
	       mvgal_method_name(p.chosen),
	       p.measured ? "cheapest by the calibrated costs" :
	       mvgal_why_text(p.why));
}

/*
 * Lends a VRAM_POOL_MIB dumb buffer of stand-in @s (amdgpu's rules) to
 * mvgal as a pool and makes a VRAM_SIZE buffer of its own in VRAM for the
 * baselines; *@g: the GPU, *@bh: the baseline buffer.
 */
static int vram_setup(struct mvgal *m, struct standin *s, uint32_t *g,
		      uint32_t *bh)
{
	struct drm_mode_create_dumb d = {
		.width = 1024, .height = VRAM_POOL_MIB * 256, .bpp = 32,
	};
	int pfd, node, ret;

	if (set_mode(s, "amdgpu") ||
	    drmIoctl(s->fd, DRM_IOCTL_MODE_CREATE_DUMB, &d) ||
	    drmPrimeHandleToFD(s->fd, d.handle, DRM_CLOEXEC | DRM_RDWR, &pfd))
		return errno ? -errno : -EIO;
	/* Through the render node, as the boot step: mvgal keeps that file
	 * (a card node file may be the master, which it never keeps).
	 */
	node = render_open(s);
	if (node < 0) {
		close(pfd);
		return -ENODEV;
	}
	ret = mvgal_gpu_attach(m, node, pfd, MVGAL_GPU_ANY, g);
	close(node);
	close(pfd);
	if (ret)
		return ret;
	/* Back in VRAM if other drivers' import probes moved it (devmem_test). */
	validate(s);
	return bo_create(s, VRAM_SIZE, MVGAL_VRAM_BO_VRAM_ONLY, bh);
}

static void bench_vram(struct mvgal *m)
{
	static const struct vram_dir to = {
		"host->stand-in", "host_to_vram", { MVGAL_VRAM_COPY_TOIO }, 1,
	}, from = {
		"stand-in->host", "vram_to_host",
		{ MVGAL_VRAM_COPY_FROMIO, MVGAL_VRAM_COPY_FROM_WC }, 2,
	};
	struct drm_mvgal_gpu_info gi;
	char movable[16] = "";
	struct standin s[2];
	uint32_t g = MVGAL_GPU_ANY, bh = 0;
	bool attached = false, stays = false;
	struct quiet q;
	int n, ret;

	if (system("modprobe mvgal_vram")) {
		printf("# vram: modprobe mvgal_vram failed: no stand-in GPU\n");
		return;
	}
	n = find_standins(s, 2);
	if (n < 1) {
		printf("# vram: no stand-in GPU found\n");
		return;
	}
	/* A pool its driver may keep in VRAM (devmem_test does the same). */
	if (!read_param("movable_pools", movable, sizeof(movable)))
		set_param("movable_pools", "1");
	ret = vram_setup(m, &s[0], &g, &bh);
	attached = g != MVGAL_GPU_ANY;
	if (!ret)
		ret = mvgal_gpu_info(m, g, &gi);
	if (ret) {
		printf("# vram: lending a stand-in's pool: %s\n", strerror(-ret));
		goto out;
	}
	printf("# device memory: MIGRATE of %d KiB between host pages and GPU %u's pool (a VRAM stand-in's dumb buffer, amdgpu's rules, movable_pools=1), each CPU method forced and confirmed by GET_STATS, against the stand-in driver's kernel copies of the same size between vmalloc memory and its BAR (DRM_IOCTL_MVGAL_VRAM_COPY_TIME), run by run; medians of %d; ratio = kernel copy time / MIGRATE time\n",
	       VRAM_SIZE >> 10, g, VRAM_REPS);
	printf("# the pool is in %s%s\n",
	       gi.pool_memory == MVGAL_POOL_MEMORY_DEVICE ? "device memory behind the BAR (I/O memory)" :
	       gi.pool_memory == MVGAL_POOL_MEMORY_SYSTEM ? "system RAM" : "no mapped memory",
	       gi.pool_memory == MVGAL_POOL_MEMORY_DEVICE ? "" :
	       ": NOT the BAR the baselines copy to (this kernel lacks CONFIG_PCI_P2PDMA or CONFIG_DMABUF_MOVE_NOTIFY, so the stand-in moved it to share it: the debug kernel keeps it in VRAM); the ratios compare unlike memory");
	vram_choice(m, MVGAL_LOC_HOST, 1 + g, to.name);
	vram_choice(m, 1 + g, MVGAL_LOC_HOST, from.name);
	quiet_begin(&q);
	for (uint32_t k = MVGAL_METHOD_CPU_COPY; k <= MVGAL_METHOD_STAGING; k++)
		vram_method(m, &s[0], bh, MVGAL_LOC_HOST, 1 + g, &to, k);
	for (uint32_t k = MVGAL_METHOD_CPU_COPY; k <= MVGAL_METHOD_STAGING; k++)
		vram_method(m, &s[0], bh, 1 + g, MVGAL_LOC_HOST, &from, k);
	quiet_end(&q);
out:
	stays = attached && mvgal_gpu_detach(m, g);
	if (stays)
		printf("# vram: GPU %u stays attached\n", g);
	if (movable[0])
		set_param("movable_pools", movable);
	for (int i = 0; i < n; i++)
		close(s[i].fd);
	/* The other sections count the stock test bed's GPUs. */
	if (!stays && system("rmmod mvgal_vram"))
		printf("# vram: rmmod mvgal_vram failed\n");
}

static bool wanted(int argc, char **argv, const char *group)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], group))
			return true;
	return false;
}

/*
 * Busy CPU time of the whole guest so far, in clock ticks (/proc/stat:
 * user, nice, system, irq, softirq, steal): what a copy costs the CPUs,
 * whoever's thread makes it (the migration worker, the engine's).
 */
static long long busy_ticks(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return -1;
	return (long long)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);
}

#define DMA_SIZE (16ULL << 20)
#define DMA_REPS 5

/* One method's figures: MB/s host->pool->host, CPU ms per MiB, sessions/s. */
struct dma_run {
	double mbps, cpu_ms_mib, sessions;
};

/* BEGIN+END pairs per second on @hs at @g1 until @fence signals. */
static double sessions_while(struct mvgal *m, int g1, uint32_t hs, int fence)
{
	struct pollfd p = { .fd = fence, .events = POLLIN };
	uint64_t t0 = now_ns(), n = 0;

	while (poll(&p, 1, 0) == 0) {
		if (!begin_end_ns(m, g1, hs, 1))
			return NAN;
		n++;
	}
	return n * 1e9 / (double)(now_ns() - t0);
}

/* Forced @method: a round trip of @h timed, then one with sessions. */
static int dma_measure(struct mvgal *m, int g0, int g1, uint32_t h, uint32_t hs,
		       const char *method, struct dma_run *r)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .flags = MVGAL_MIGRATE_MOVE, .size = DMA_SIZE,
		.location = 1 + g0, .in_fence_fd = -1,
	};
	long long b0, b1;
	uint64_t t0, t;
	int ret;

	set_param("force_method", method);
	b0 = busy_ticks();
	t0 = now_ns();
	ret = migrate_to(m, h, DMA_SIZE, 1 + g0, MVGAL_MIGRATE_MOVE) ?:
	      migrate_to(m, h, DMA_SIZE, MVGAL_LOC_HOST, MVGAL_MIGRATE_MOVE);
	t = now_ns() - t0;
	b1 = busy_ticks();
	if (ret)
		return ret;
	r->mbps = 2.0 * DMA_SIZE / 1e6 / (t / 1e9);
	r->cpu_ms_mib = (b1 - b0) * 1000.0 / sysconf(_SC_CLK_TCK) /
			(2.0 * DMA_SIZE / (1 << 20));
	ret = mvgal_migrate(m, &mg);
	if (ret)
		return ret;
	r->sessions = sessions_while(m, g1, hs, mg.out_fence_fd);
	mvgal_fence_wait(mg.out_fence_fd, 60000);
	close(mg.out_fence_fd);
	return migrate_to(m, h, DMA_SIZE, MVGAL_LOC_HOST, MVGAL_MIGRATE_MOVE);
}

static void dma_figures(const struct dma_run *p, const struct dma_run *c,
			double idle)
{
	double tput[DMA_REPS], cpu[DMA_REPS], sp[DMA_REPS], sc[DMA_REPS];

	printf("bench: dma: %.0f sessions/s with no migration\n", idle);
	for (int i = 0; i < DMA_REPS; i++) {
		tput[i] = p[i].mbps / c[i].mbps;
		cpu[i] = c[i].cpu_ms_mib > 0 ? p[i].cpu_ms_mib / c[i].cpu_ms_mib : NAN;
		sp[i] = p[i].sessions / idle;
		sc[i] = c[i].sessions / idle;
		printf("bench: dma %llu MiB round trip: engine %7.1f MB/s %6.2f CPU ms/MiB %7.0f sessions/s; CPU copy %7.1f MB/s %6.2f CPU ms/MiB %7.0f sessions/s\n",
		       DMA_SIZE >> 20, p[i].mbps, p[i].cpu_ms_mib, p[i].sessions,
		       c[i].mbps, c[i].cpu_ms_mib, c[i].sessions);
	}
	bench_figure("dma_migrate_engine_vs_cpu", median_ratio(tput, DMA_REPS),
		     NULL, 0);
	bench_figure("dma_cpu_time_engine_vs_cpu", median_ratio(cpu, DMA_REPS),
		     NULL, 0);
	bench_figure("dma_sessions_during_engine_vs_idle",
		     median_ratio(sp, DMA_REPS), NULL, 0);
	bench_figure("dma_sessions_during_cpu_vs_idle",
		     median_ratio(sc, DMA_REPS), NULL, 0);
}

/* One timed MIGRATE MOVE of @h from @from to @to with @method, MB/s. */
static double dma_one(struct mvgal *m, uint32_t h, uint64_t size,
		      uint32_t from, uint32_t to, const char *method)
{
	uint64_t t0;

	set_param("force_method", "2");
	if (migrate_to(m, h, size, from, MVGAL_MIGRATE_MOVE))
		return NAN;
	set_param("force_method", method);
	t0 = now_ns();
	if (migrate_to(m, h, size, to, MVGAL_MIGRATE_MOVE))
		return NAN;
	return size / 1e6 / ((now_ns() - t0) / 1e9);
}

/* MIGRATE throughput per copier, pair and size: engine against CPU. */
static void dma_pairs(struct mvgal *m, int g0, int g1, uint32_t h)
{
	const struct { const char *name; uint32_t from, to; } pair[] = {
		{ "host_to_pool", MVGAL_LOC_HOST, 1 + g0 },
		{ "pool_to_host", 1 + g0, MVGAL_LOC_HOST },
		{ "pool_to_pool", 1 + g0, 1 + g1 },
	};
	const uint64_t sizes[] = { 256 << 10, 4 << 20 };
	char name[96];

	for (size_t i = 0; i < sizeof(pair) / sizeof(pair[0]); i++) {
		for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			double e[3], c[3], r[3];

			for (int k = 0; k < 3; k++) {
				e[k] = dma_one(m, h, sizes[j], pair[i].from,
					       pair[i].to, "1");
				c[k] = dma_one(m, h, sizes[j], pair[i].from,
					       pair[i].to, "2");
				r[k] = e[k] / c[k];
			}
			qsort(e, 3, sizeof(e[0]), cmp_double);
			qsort(c, 3, sizeof(c[0]), cmp_double);
			printf("bench: dma %-12s %5llu KiB: engine %7.1f MB/s, CPU copy %7.1f MB/s (medians of 3)\n",
			       pair[i].name,
			       (unsigned long long)(sizes[j] >> 10), e[1], c[1]);
			snprintf(name, sizeof(name), "dma_%s_%lluk_engine_vs_cpu",
				 pair[i].name,
				 (unsigned long long)(sizes[j] >> 10));
			bench_figure(name, median_ratio(r, 3), NULL, 0);
		}
	}
	set_param("force_method", "2");
	migrate_to(m, h, DMA_SIZE, MVGAL_LOC_HOST, MVGAL_MIGRATE_MOVE);
}

/*
 * The DMA-engine copier on the test bed's software engine (tests/dmaeng)
 * against the CPU copy, forced in turn, on the same buffers: MIGRATE
 * throughput, the guest's busy CPU time per MiB moved, and how many
 * sessions another buffer gets while a migration is in flight. The
 * software engine copies with a CPU of its own (a kernel thread): its
 * figures say what the copier's overhead is, not what I/OAT or DSA do.
 */
static void bench_dma(struct mvgal *m, int g0, int g1)
{
	struct dma_run p[DMA_REPS], c[DMA_REPS];
	struct quiet q;
	uint32_t h, hs;
	uint64_t t;
	int ret;

	printf("# DMA engine (tests/dmaeng, a software engine) vs CPU copy: %llu MiB host -> GPU %d -> host, forced\n",
	       DMA_SIZE >> 20, g0);
	if (system("modprobe mvgal_dmaeng") || mvgal_calibrate(m, NULL) ||
	    mvgal_bo_create(m, DMA_SIZE, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			    MVGAL_GPU_ANY, &h)) {
		printf("bench: dma: no engine\n");
		bench_figure("dma_migrate_engine_vs_cpu", NAN, NULL, 0);
		return;
	}
	quiet_begin(&q);
	ret = resident_bo(m, g1, &hs);
	t = ret ? 0 : begin_end_ns(m, g1, hs, 2000);
	for (int i = 0; !ret && i < DMA_REPS; i++)
		ret = dma_measure(m, g0, g1, h, hs, "1", &p[i]) ?:
		      dma_measure(m, g0, g1, h, hs, "2", &c[i]);
	if (!ret)
		dma_pairs(m, g0, g1, h);
	set_param("force_method", "-1");
	quiet_end(&q);
	if (ret)
		printf("bench: dma: %s\n", strerror(-ret));
	else
		dma_figures(p, c, t ? 1e9 / t : NAN);
	mvgal_bo_destroy(m, hs);
	mvgal_bo_destroy(m, h);
	if (system("for d in /sys/bus/pci/drivers/mvgal_dmaeng/0000:*; do echo ${d##*/} > /sys/bus/pci/drivers/mvgal_dmaeng/unbind; done; rmmod mvgal_dmaeng"))
		printf("bench: dma: the engine stays loaded\n");
}

#define VKRUN "/opt/vulkan/run"

/* mvgal-vkexec serving GPU @g, registered on return; its pid or -1. */
static pid_t vkexec_start(int g)
{
	char ready[8] = "", gs[16], fd[16];
	int p[2];
	pid_t pid;

	if (access(VKRUN, X_OK) || pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		close(p[0]);
		snprintf(gs, sizeof(gs), "%d", g);
		snprintf(fd, sizeof(fd), "%d", p[1]);
		execl(VKRUN, VKRUN, "mvgal-vkexec", "-s", "-c", "-g", gs, "-r",
		      fd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], ready, 6) != 6 || strcmp(ready, "ready\n")) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* CPU ticks process @pid has used (user + system), or -1. */
static long long proc_ticks(pid_t pid)
{
	unsigned long long ut, st;
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* Fields 14 and 15; the command (field 2) has no space here. */
	n = fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &ut, &st);
	fclose(f);
	return n == 2 ? (long long)(ut + st) : -1;
}

struct copier_run {
	double mbps, cpu_ms_mib, exec_ms_mib;
};

static const char *const copier_name[] = { "CPU copy", "DMA engine", "executor" };
static const char *const copier_force[] = { "2", "1", "4" };

/* A forced round trip host -> GPU @g -> host of @h; figures in @r. */
static int copier_round_trip(struct mvgal *m, int g, uint32_t h, int c,
			     pid_t ex, struct copier_run *r)
{
	long long b0, b1, e0, e1;
	uint64_t t0, t;
	int ret;

	set_param("force_method", copier_force[c]);
	b0 = busy_ticks();
	e0 = proc_ticks(ex);
	t0 = now_ns();
	ret = migrate_to(m, h, DMA_SIZE, 1 + g, MVGAL_MIGRATE_MOVE) ?:
	      migrate_to(m, h, DMA_SIZE, MVGAL_LOC_HOST, MVGAL_MIGRATE_MOVE);
	t = now_ns() - t0;
	b1 = busy_ticks();
	e1 = proc_ticks(ex);
	if (ret)
		return ret;
	r->mbps = 2.0 * DMA_SIZE / 1e6 / (t / 1e9);
	r->cpu_ms_mib = (b1 - b0) * 1000.0 / sysconf(_SC_CLK_TCK) /
			(2.0 * DMA_SIZE / (1 << 20));
	r->exec_ms_mib = (e1 - e0) * 1000.0 / sysconf(_SC_CLK_TCK) /
			 (2.0 * DMA_SIZE / (1 << 20));
	return 0;
}

/* Did the copier of @c make the last round trip's bytes (GET_STATS)? */
static bool copier_made_it(const struct drm_mvgal_stats *a,
			   const struct drm_mvgal_stats *b, int c)
{
	if (c == 2)
		return b->exec_bytes - a->exec_bytes >= 2 * DMA_SIZE;
	return b->bytes[c == 1 ? MVGAL_METHOD_P2P : MVGAL_METHOD_CPU_COPY] -
	       a->bytes[c == 1 ? MVGAL_METHOD_P2P : MVGAL_METHOD_CPU_COPY] >=
	       2 * DMA_SIZE;
}

static void copiers_figures(struct copier_run (*r)[3], int n)
{
	double dma[DMA_REPS], ex[DMA_REPS], cd[DMA_REPS], ce[DMA_REPS];
	double cs[DMA_REPS];

	for (int i = 0; i < n; i++) {
		printf("bench: copiers %llu MiB round trip:", DMA_SIZE >> 20);
		for (int c = 0; c < 3; c++)
			printf(" %s %7.1f MB/s %5.2f CPU ms/MiB%s", copier_name[c],
			       r[i][c].mbps, r[i][c].cpu_ms_mib, c < 2 ? ";" : "");
		printf(" (of which the executor's own %5.2f)\n", r[i][2].exec_ms_mib);
		dma[i] = r[i][1].mbps / r[i][0].mbps;
		ex[i] = r[i][2].mbps / r[i][0].mbps;
		cd[i] = r[i][1].cpu_ms_mib / r[i][0].cpu_ms_mib;
		ce[i] = r[i][2].cpu_ms_mib / r[i][0].cpu_ms_mib;
		/* Without the executor's own: what the submitting side spent. */
		cs[i] = (r[i][2].cpu_ms_mib - r[i][2].exec_ms_mib) /
			r[i][0].cpu_ms_mib;
	}
	bench_figure("copiers_engine_vs_cpu", median_ratio(dma, n), NULL, 0);
	bench_figure("copiers_executor_vs_cpu", median_ratio(ex, n), NULL, 0);
	bench_figure("copiers_cpu_time_engine_vs_cpu", median_ratio(cd, n), NULL, 0);
	bench_figure("copiers_cpu_time_executor_vs_cpu", median_ratio(ce, n), NULL, 0);
	bench_figure("copiers_submitting_cpu_time_executor_vs_cpu",
		     median_ratio(cs, n), NULL, 0);
}

/* One MIGRATE per direction and size with each copier, MB/s medians of 3. */
static void copiers_pairs(struct mvgal *m, int g, uint32_t h)
{
	const struct { const char *name; uint32_t from, to; } pair[] = {
		{ "host_to_pool", MVGAL_LOC_HOST, 1 + g },
		{ "pool_to_host", 1 + g, MVGAL_LOC_HOST },
	};
	const uint64_t sizes[] = { 256 << 10, 4 << 20, 16 << 20 };
	char name[96];

	for (size_t i = 0; i < 2; i++) {
		for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			double v[3][3], r[3];

			for (int k = 0; k < 3; k++)
				for (int c = 0; c < 3; c++)
					v[c][k] = dma_one(m, h, sizes[j], pair[i].from,
							  pair[i].to, copier_force[c]);
			for (int k = 0; k < 3; k++)
				r[k] = v[2][k] / v[0][k];
			for (int c = 0; c < 3; c++)
				qsort(v[c], 3, sizeof(v[c][0]), cmp_double);
			printf("bench: copiers %-12s %5llu KiB: CPU copy %7.1f, DMA engine %7.1f, executor %7.1f MB/s (medians of 3)\n",
			       pair[i].name, (unsigned long long)(sizes[j] >> 10),
			       v[0][1], v[1][1], v[2][1]);
			snprintf(name, sizeof(name), "copiers_%s_%lluk_executor_vs_cpu",
				 pair[i].name, (unsigned long long)(sizes[j] >> 10));
			bench_figure(name, median_ratio(r, 3), NULL, 0);
		}
	}
}

/*
 * The CPU copy, the DMA engine (tests/dmaeng) and the copy executor
 * (mvgal-vkexec, lavapipe) forced in turn on the same buffer, each run.
 * Both engines of the test bed copy with a CPU of their own (a kernel
 * thread; lavapipe's memcpy): what they show is each copier's overhead
 * and whose CPU time the copy takes, not what SDMA or DSA would do.
 */
static void bench_copiers(struct mvgal *m, int g0)
{
	struct copier_run r[DMA_REPS][3];
	struct drm_mvgal_stats a, b;
	pid_t ex = -1;
	uint32_t h;
	int i, c, ret = 0;

	printf("# copiers side by side: %llu MiB host -> GPU %d -> host forced through the CPU, the DMA engine (tests/dmaeng) and the copy executor (mvgal-vkexec on lavapipe)\n",
	       DMA_SIZE >> 20, g0);
	if (system("modprobe mvgal_dmaeng") ||
	    mvgal_bo_create(m, DMA_SIZE, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			    MVGAL_GPU_ANY, &h)) {
		printf("bench: copiers: no DMA engine\n");
		bench_figure("copiers_executor_vs_cpu", NAN, NULL, 0);
		return;
	}
	ex = vkexec_start(g0);
	/* The executor calibrates (-c): the engine is found then too. */
	if (ex < 0 || mvgal_calibrate(m, NULL)) {
		printf("bench: copiers: no executor (%s)\n", VKRUN);
		bench_figure("copiers_executor_vs_cpu", NAN, NULL, 0);
		goto out;
	}
	for (i = 0; !ret && i < DMA_REPS; i++) {
		for (c = 0; !ret && c < 3; c++) {
			mvgal_get_stats(m, &a);
			ret = copier_round_trip(m, g0, h, c, ex, &r[i][c]);
			mvgal_get_stats(m, &b);
			if (!ret && !copier_made_it(&a, &b, c))
				ret = -EPROTO;
		}
	}
	if (!ret)
		copiers_pairs(m, g0, h);
	if (ret)
		printf("bench: copiers: %s (the %s did not make the copy?)\n",
		       strerror(-ret), copier_name[c - 1]);
	else
		copiers_figures(r, DMA_REPS);
out:
	set_param("force_method", "-1");
	if (ex > 0) {
		kill(ex, SIGTERM);
		waitpid(ex, NULL, 0);
	}
	mvgal_bo_destroy(m, h);
	if (system("for d in /sys/bus/pci/drivers/mvgal_dmaeng/0000:*; do echo ${d##*/} > /sys/bus/pci/drivers/mvgal_dmaeng/unbind; done; rmmod mvgal_dmaeng"))
		printf("bench: copiers: the engine stays loaded\n");
}

/* Registers @size bytes at @p (MVGAL_USERPTR_* @flags) and BEGINs it all. */
static uint64_t timed_register_begin(struct mvgal *m, int g, uint8_t *p,
				     uint64_t size, uint32_t flags,
				     uint32_t *h)
{
	struct drm_mvgal_bo_userptr u = {
		.user_ptr = (uintptr_t)p, .size = size, .flags = flags,
		.bo_flags = MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
	};
	uint64_t t0 = now_ns();
	int ret = mvgal_bo_userptr(m, &u);

	if (ret) {
		printf("bench: userptr: register: %s\n", strerror(-ret));
		return 0;
	}
	*h = u.handle;
	return timed_begin(m, g, u.handle) ? now_ns() - t0 : 0;
}

/*
 * Registered user memory, 64 MiB: registration plus the first BEGIN of
 * all of it, mirrored (faulted in, nothing pinned) vs pinned; and, of a
 * mirror whose application marks its writes, a BEGIN after the kernel
 * invalidated 1% of the range (MADV_DONTNEED of 1% of the chunks,
 * spread: those are copied again, the rest only faulted) vs the first.
 */
static void bench_userptr(struct mvgal *m, int g0)
{
	const uint64_t size = 64ULL << 20, chunk = 64 << 10;
	const uint64_t nchunks = size / chunk, few = nchunks / 100;
	uint64_t tp[REPS] = { 0 }, tm[REPS] = { 0 }, t1[REPS] = { 0 };
	double r1[REPS], r2[REPS];
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t h;
	int r;

	printf("# registered memory, 64 MiB: register + first BEGIN, mirrored vs pinned; a mirror's BEGIN after 1%% of it was invalidated vs its first (medians of %d)\n",
	       REPS);
	for (r = 0; p != MAP_FAILED && r < REPS; r++) {
		memset(p, r + 1, size);
		tp[r] = timed_register_begin(m, g0, p, size, 0, &h);
		if (tp[r])
			mvgal_bo_destroy(m, h);
		tm[r] = timed_register_begin(m, g0, p, size,
					     MVGAL_USERPTR_MIRROR |
					     MVGAL_USERPTR_MARKS, &h);
		if (!tp[r] || !tm[r])
			break;
		for (uint64_t c = 0; c < few; c++)
			madvise(p + c * (nchunks / few) * chunk, chunk,
				MADV_DONTNEED);
		t1[r] = timed_begin(m, g0, h);
		mvgal_bo_destroy(m, h);
		if (!t1[r])
			break;
		r1[r] = (double)tm[r] / tp[r];
		r2[r] = (double)t1[r] / tm[r];
	}
	if (p != MAP_FAILED)
		munmap(p, size);
	if (r < REPS) {
		printf("bench: userptr: run %d: pinned %s, mirrored %s, after 1%% %s\n",
		       r, tp[r] ? "ok" : "failed", tm[r] ? "ok" : "failed",
		       tp[r] && tm[r] && t1[r] ? "ok" : "failed");
		bench_figure("userptr_mirror_vs_pinned_register_begin", NAN,
			     "<=", 2);
		bench_figure("userptr_begin_after_1pct_invalidated_vs_first",
			     NAN, "<=", 0.2);
		return;
	}
	printf("bench: register+begin pinned %llu us  mirrored %llu us  ratio %.2f\n",
	       (unsigned long long)median(tp, REPS) / 1000,
	       (unsigned long long)median(tm, REPS) / 1000,
	       median_ratio(r1, REPS));
	printf("bench: mirror begin after 1%% invalidated %llu us  ratio to its first %.3f\n",
	       (unsigned long long)median(t1, REPS) / 1000,
	       median_ratio(r2, REPS));
	bench_figure("userptr_mirror_vs_pinned_register_begin",
		     median_ratio(r1, REPS), "<=", 2);
	bench_figure("userptr_begin_after_1pct_invalidated_vs_first",
		     median_ratio(r2, REPS), "<=", 0.2);
}

/* A mirror of @size at @p (@flags besides MIRROR), BEGUN once: 0 or -errno. */
static int mirror_begun(struct mvgal *m, int g, uint8_t *p, uint64_t size,
			uint32_t flags, bool watch, uint32_t *h)
{
	int ret = timed_register_begin(m, g, p, size,
				       MVGAL_USERPTR_MIRROR | flags, h) ? 0 : -EIO;

	if (!ret && watch) {
		ret = mvgal_userptr_watch(m, *h);
		if (ret)
			mvgal_bo_destroy(m, *h);
	}
	return ret;
}

/* A byte written at the start of @n chunks spread over @size at @p. */
static void write_spread(uint8_t *p, uint64_t size, uint64_t chunk,
			 uint64_t n, uint8_t v)
{
	for (uint64_t c = 0; c < n; c++)
		p[c * (size / chunk / n) * chunk] = v;
}

/*
 * The write-watch of a mirror (mvgal_userptr_watch()), 64 MiB: a BEGIN
 * after the application wrote a byte in 1% of the chunks, watched (those
 * chunks copied, the rest scanned) vs not (without marks, every named
 * chunk is taken as written and copied).
 */
static void bench_userptr_watch(struct mvgal *m, int g0)
{
	const uint64_t size = 64ULL << 20, chunk = 64 << 10;
	const uint64_t few = size / chunk / 100;
	uint64_t tw[REPS] = { 0 }, tu[REPS] = { 0 };
	double ratio[REPS];
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t h;
	int r, ret = p == MAP_FAILED ? -ENOMEM : 0;

	printf("# mirror write-watch, 64 MiB: a BEGIN after a byte written in 1%% of the chunks, watched vs unwatched without marks (medians of %d)\n",
	       REPS);
	for (r = 0; !ret && r < REPS; r++) {
		memset(p, r + 1, size);
		ret = mirror_begun(m, g0, p, size, 0, false, &h);
		if (ret)
			break;
		write_spread(p, size, chunk, few, 0xee);
		tu[r] = timed_begin(m, g0, h);
		mvgal_bo_destroy(m, h);
		ret = mirror_begun(m, g0, p, size, MVGAL_USERPTR_MARKS, true,
				   &h);
		if (ret)
			break;
		write_spread(p, size, chunk, few, 0xdd);
		tw[r] = timed_begin(m, g0, h);
		mvgal_bo_destroy(m, h);
		if (!tu[r] || !tw[r])
			ret = -EIO;
		else
			ratio[r] = (double)tw[r] / tu[r];
	}
	if (p != MAP_FAILED)
		munmap(p, size);
	if (ret) {
		printf("bench: userptr watch: %s\n", strerror(-ret));
		bench_figure("userptr_watched_begin_after_1pct_vs_unwatched", NAN,
			     "<=", 0.2);
		return;
	}
	printf("bench: mirror begin after 1%% written: watched %llu us  unwatched %llu us  ratio %.3f\n",
	       (unsigned long long)median(tw, REPS) / 1000,
	       (unsigned long long)median(tu, REPS) / 1000,
	       median_ratio(ratio, REPS));
	bench_figure("userptr_watched_begin_after_1pct_vs_unwatched",
		     median_ratio(ratio, REPS), "<=", 0.2);
}

int main(int argc, char **argv)
{
	struct pool_maps pools = { 0 };
	struct mvgal_config cfg;
	struct mvgal *m;
	int g0, g1, gv, ret;

	ret = mvgal_open(&m);
	if (ret) {
		fprintf(stderr, "mvgal-bench: open: %s\n", strerror(-ret));
		return 1;
	}
	mvgal_config_defaults(&cfg);
	for (int i = 0; i < MVGAL_MAX_GPUS; i++)
		cfg.memory_limit_mb[i] = 256;
	ret = mvgal_attach_all(m, &cfg, NULL, NULL);
	if (ret < 0) {
		fprintf(stderr, "mvgal-bench: attach: %s\n", strerror(-ret));
		return 1;
	}
	g0 = find(m, "virtio_gpu", -1);
	g1 = find(m, "virtio_gpu", g0);
	if (g0 < 0 || g1 < 0) {
		fprintf(stderr, "mvgal-bench: needs two virtio-gpu GPUs\n");
		return 1;
	}
	/* vgem imports the others' pools: in place is possible to it. */
	gv = find(m, "vgem", -1);
	for (int g = 0; g < 2; g++) {
		ret = pool_map(m, &pools, g ? g1 : g0);
		if (ret)
			fprintf(stderr, "mvgal-bench: mapping GPU %d's pool: %s\n",
				g ? g1 : g0, strerror(-ret));
	}
	printf("# mvgal-bench: GPU %d -> GPU %d (virtio-gpu pools), chunk copies by the CPU\n",
	       g0, g1);
	if (wanted(argc, argv, "evict"))
		bench_evict(m, g0);
	if (wanted(argc, argv, "prefetch"))
		bench_prefetch(m, g0);
	if (wanted(argc, argv, "migration"))
		bench_migration(m, &pools, g0, g1);
	if (wanted(argc, argv, "methods"))
		bench_methods(m, &pools, g0, gv >= 0 ? gv : g1);
	if (wanted(argc, argv, "session"))
		bench_session(m, g0);
	if (wanted(argc, argv, "ring"))
		bench_ring(m, g0, g1);
	if (wanted(argc, argv, "staged"))
		bench_staged(m, g0);
	if (wanted(argc, argv, "lean"))
		bench_lean(m, g0);
	if (wanted(argc, argv, "boost"))
		bench_boost(m, g0, g1);
	if (wanted(argc, argv, "export"))
		bench_export(m, g0);
	if (wanted(argc, argv, "watch"))
		bench_watch(m, g0);
	if (wanted(argc, argv, "vram"))
		bench_vram(m);
	if (wanted(argc, argv, "dma"))
		bench_dma(m, g0, g1);
	if (wanted(argc, argv, "copiers"))
		bench_copiers(m, g0);
	if (wanted(argc, argv, "userptr")) {
		bench_userptr(m, g0);
		bench_userptr_watch(m, g0);
	}
	pool_unmap_all(&pools);
	mvgal_close(m);
	return 0;
}
