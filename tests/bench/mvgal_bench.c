// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal benchmarks, run in the guest by `make bench`. Every figure is a
 * ratio of two things measured side by side in this one run:
 *
 *  - migration throughput (MIGRATE + wait for its fence) host -> pool and
 *    pool -> pool, against a plain memcpy() of the same bytes between two
 *    buffers of this process;
 *  - BEGIN + END on a resident, clean buffer against a null ioctl
 *    (GET_INFO) on the same fd; and with a placement export made and
 *    closed per session (PLACE_FD) against without;
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
 *    drm_sched's fixed-priority run queues would give).
 *
 * Nothing here passes or fails: the goals are printed next to the
 * ratios. Each run times both sides back to back; a ratio is the median
 * of the runs' ratios, so that a slow moment of the host hits both.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "mvgal_trace.h"
#include "bench_time.h"
#include "../common/vgem_fence.h"

#define REPS 15

static uint64_t median(uint64_t *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_u64);
	return t[n / 2];
}

/* One timed memcpy() of @size bytes between two buffers of this process. */
static uint64_t memcpy_once(uint8_t *dst, const uint8_t *src, size_t size)
{
	uint64_t t0 = now_ns();

	memcpy(dst, src, size);
	__asm__ volatile("" : : "r"(dst) : "memory");
	return now_ns() - t0;
}

static int migrate_wait(struct mvgal *m, uint32_t h, uint64_t size,
			uint32_t loc)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .size = size, .location = loc,
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
 * Moving @size bytes to @dst_gpu's pool from the host (@src_gpu < 0) or
 * from @src_gpu's pool, against memcpy() of as many bytes: each run times
 * both, back to back, so that both see the same machine; the figures are
 * the medians of the runs' times and of their ratios. The placement at
 * the destination is freed between runs (untimed), so every run copies.
 */
static int migrate_vs_memcpy(struct mvgal *m, int src_gpu, int dst_gpu,
			     size_t size, uint64_t *mig, uint64_t *mc,
			     double *ratio)
{
	uint8_t *a = malloc(size), *b = malloc(size);
	uint64_t tm[REPS], tc[REPS];
	double r[REPS];
	uint32_t h;
	int ret;

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	memset(a, 0x5a, size);
	memset(b, 0xa5, size);
	ret = mvgal_bo_create(m, size, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			      MVGAL_GPU_ANY, &h);
	if (!ret && src_gpu >= 0)
		ret = migrate_wait(m, h, size, 1 + src_gpu);
	for (int i = 0; !ret && i < REPS; i++) {
		uint64_t t0;

		ret = mvgal_place_free(m, h, dst_gpu);
		if (ret)
			break;
		tc[i] = memcpy_once(b, a, size);
		t0 = now_ns();
		ret = migrate_wait(m, h, size, 1 + dst_gpu);
		tm[i] = now_ns() - t0;
		r[i] = (double)tc[i] / tm[i];
	}
	mvgal_bo_destroy(m, h);
	free(a);
	free(b);
	if (ret)
		return ret;
	*mig = median(tm, REPS);
	*mc = median(tc, REPS);
	qsort(r, REPS, sizeof(r[0]), cmp_double);
	*ratio = r[REPS / 2];
	return 0;
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

static void bench_migration(struct mvgal *m, int g0, int g1)
{
	static const size_t sizes[] = { 64 << 10, 1 << 20, 64 << 20 };

	printf("# migration throughput vs memcpy (goal: >= 0.90 for >= 1 MiB)\n");
	for (unsigned int k = 0; k < 3; k++) {
		size_t size = sizes[k];
		uint64_t hp, pp, mc1, mc2;
		double r1, r2;
		int e1 = migrate_vs_memcpy(m, -1, g0, size, &hp, &mc1, &r1);
		int e2 = migrate_vs_memcpy(m, g0, g1, size, &pp, &mc2, &r2);

		printf("bench: %6zu KiB", size >> 10);
		if (e1)
			printf("  host->pool: %s", strerror(-e1));
		else
			printf("  host->pool %7.1f MB/s vs memcpy %7.1f MB/s ratio %.2f",
			       size * 1e3 / hp, size * 1e3 / mc1, r1);
		if (e2)
			printf("  pool->pool: %s\n", strerror(-e2));
		else
			printf("  pool->pool %7.1f MB/s vs memcpy %7.1f MB/s ratio %.2f\n",
			       size * 1e3 / pp, size * 1e3 / mc2, r2);
	}
}

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

static void bench_session(struct mvgal *m, int g0)
{
	struct drm_mvgal_get_info gi;
	struct drm_mvgal_access a;
	uint64_t tn[REPS], ts[REPS];
	double ratio[REPS];
	const int inner = 2000;
	uint32_t h, s;
	int fence;

	if (mvgal_bo_create(m, 1 << 20, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			    MVGAL_GPU_ANY, &h))
		return;
	a = (struct drm_mvgal_access) { .handle = h };
	/* Make it resident and clean at the GPU. */
	if (mvgal_begin(m, g0, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL, -1, &a, 1,
			&s, &fence, NULL))
		return;
	if (fence >= 0) {
		mvgal_fence_wait(fence, 60000);
		close(fence);
	}
	mvgal_end(m, s, -1, NULL, 0);
	for (int r = 0; r < REPS; r++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < inner; i++) {
			memset(&gi, 0, sizeof(gi));
			drmIoctl(mvgal_fd(m), DRM_IOCTL_MVGAL_GET_INFO, &gi);
		}
		tn[r] = (now_ns() - t0) / inner;
		ts[r] = begin_end_ns(m, g0, h, inner);
		ratio[r] = (double)ts[r] / tn[r];
	}
	printf("# BEGIN + END on a resident clean buffer vs a null ioctl (goal: <= 3.0x)\n");
	qsort(ratio, REPS, sizeof(ratio[0]), cmp_double);
	printf("bench: null ioctl %llu ns  begin+end %llu ns  ratio %.2fx\n",
	       (unsigned long long)median(tn, REPS),
	       (unsigned long long)median(ts, REPS), ratio[REPS / 2]);
	mvgal_bo_destroy(m, h);
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
	double ratio[REPS];
	const int inner = 500;
	uint32_t h;

	if (mvgal_bo_create(m, 1 << 20, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			    MVGAL_GPU_ANY, &h))
		return;
	/* Resident and clean at the GPU. */
	export_session(m, g0, h, false);
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
	qsort(ratio, REPS, sizeof(ratio[0]), cmp_double);
	printf("# a placement export per session (PLACE_FD + close) vs BEGIN + END alone, 1 MiB\n");
	printf("bench: begin+end %llu ns  place_fd+begin+end+close %llu ns  ratio %.2fx\n",
	       (unsigned long long)median(tb, REPS),
	       (unsigned long long)median(te, REPS), ratio[REPS / 2]);
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
	munmap(p, big);
	munmap(ph, huge);
	free(shadow);
	mvgal_bo_destroy(m, h);
	mvgal_bo_destroy(m, hh);
}

static int write_param(const char *name, const char *v)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/mvgal/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fputs(v, f) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
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

	if (write_param("evict_policy", policy))
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

static void bench_evict(struct mvgal *m, int g)
{
	static unsigned int t[EV_N];
	struct drm_mvgal_pool_lru l = { 0 };

	printf("# eviction: traces over %u buffers, a budget of %u, %u accesses; hits vs Belady's MIN (goal: >= 0.90 on looping and mixed)\n",
	       EV_W, EV_C, EV_N);
	if (mvgal_pool_lru(m, g, NULL, &l) || l.used)
		printf("  (the pool is not empty: %llu bytes used; fewer than %u fit)\n",
		       (unsigned long long)l.used, EV_C);
	if (set_budget(m, g, (uint64_t)EV_C * EV_SIZE))
		return;
	write_param("prefetch", "N");
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
	}
	write_param("evict_policy", "0");
	write_param("prefetch", "Y");
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

	if (write_param("prefetch", on))
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
	double ratio[PF_REPS];

	printf("# prefetch: %u frames of sessions over %u buffers of 1 MiB, %u fit; time waiting for data, prefetch on vs off\n",
	       PF_FRAMES - 2, PF_BUFS, PF_FIT);
	if (set_budget(m, g, (uint64_t)PF_FIT * PF_SIZE))
		return;
	mvgal_get_stats(m, &s0);
	for (int r = 0; r < PF_REPS; r++) {
		on[r] = prefetch_frames(m, g, "Y", &s1);
		off[r] = prefetch_frames(m, g, "N", &s2);
		ratio[r] = off[r] ? (double)on[r] / off[r] : 0.0;
	}
	qsort(ratio, PF_REPS, sizeof(ratio[0]), cmp_double);
	printf("bench: prefetch waiting on %llu us  off %llu us (medians of %d)  ratio %.3f  (%llu issued, %llu hits, %llu misses, %llu cancelled)\n",
	       (unsigned long long)median(on, PF_REPS) / 1000,
	       (unsigned long long)median(off, PF_REPS) / 1000, PF_REPS,
	       ratio[PF_REPS / 2],
	       (unsigned long long)(s1.prefetch_issued - s0.prefetch_issued),
	       (unsigned long long)(s1.prefetch_hits - s0.prefetch_hits),
	       (unsigned long long)(s1.prefetch_misses - s0.prefetch_misses),
	       (unsigned long long)(s1.prefetch_cancelled - s0.prefetch_cancelled));
	write_param("prefetch", "Y");
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
	double ratio[REPS];
	const int inner = 2000;
	uint32_t h;

	if (mvgal_bo_create(m, 1 << 20, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			    MVGAL_GPU_ANY, &h))
		return;
	begin_end_ns(m, g0, h, 1);
	for (int r = 0; r < REPS; r++) {
		write_param("lean_begin", "1");
		tl[r] = begin_end_ns(m, g0, h, inner);
		write_param("lean_begin", "0");
		tf[r] = begin_end_ns(m, g0, h, inner);
		ratio[r] = tl[r] ? (double)tf[r] / tl[r] : 0;
	}
	write_param("lean_begin", "1");
	qsort(ratio, REPS, sizeof(ratio[0]), cmp_double);
	printf("# BEGIN + END on resident data: through the reservations (drm_exec) vs the lean path\n");
	printf("bench: lean %llu ns  drm_exec %llu ns  ratio %.2fx\n",
	       (unsigned long long)median(tl, REPS),
	       (unsigned long long)median(tf, REPS), ratio[REPS / 2]);
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

static void bench_boost(struct mvgal *m, int g0, int g1)
{
	uint32_t x, big[BOOST_NORMAL];
	uint64_t ton[REPS], toff[REPS];
	double ratio[REPS];
	const uint32_t fl = MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID;

	uint8_t *data = malloc(BOOST_BIG);

	/* Written, so that every copy moves bytes (a never-written chunk
	 * is only cleared at its destination).
	 */
	if (!data || mvgal_bo_create(m, BOOST_SMALL, fl, MVGAL_GPU_ANY, &x))
		return;
	memset(data, 0x5a, BOOST_BIG);
	mvgal_bo_write(m, x, 0, data, BOOST_SMALL);
	for (int i = 0; i < BOOST_NORMAL; i++)
		if (mvgal_bo_create(m, BOOST_BIG, fl, MVGAL_GPU_ANY, &big[i]) ||
		    mvgal_bo_write(m, big[i], 0, data, BOOST_BIG))
			return;
	free(data);
	for (int r = 0; r < REPS; r++) {
		write_param("job_boost", "1");
		ton[r] = boost_round(m, g0, g1, x, big);
		write_param("job_boost", "0");
		toff[r] = boost_round(m, g0, g1, x, big);
		ratio[r] = ton[r] ? (double)toff[r] / ton[r] : 0;
	}
	write_param("job_boost", "1");
	qsort(ratio, REPS, sizeof(ratio[0]), cmp_double);
	printf("# a HIGH copy waiting for a LOW one queued behind %d NORMAL copies of %u MiB: fixed priorities (as drm_sched's run queues) vs the LOW one inheriting HIGH\n",
	       BOOST_NORMAL, BOOST_BIG >> 20);
	printf("bench: inherited %llu us  fixed %llu us  ratio %.2fx\n",
	       (unsigned long long)median(ton, REPS) / 1000,
	       (unsigned long long)median(toff, REPS) / 1000, ratio[REPS / 2]);
	mvgal_bo_destroy(m, x);
	for (int i = 0; i < BOOST_NORMAL; i++)
		mvgal_bo_destroy(m, big[i]);
}

int main(void)
{
	struct mvgal_config cfg;
	struct mvgal *m;
	int g0, g1, ret;

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
	printf("# mvgal-bench: GPU %d -> GPU %d (virtio-gpu pools), chunk copies by the CPU\n",
	       g0, g1);
	bench_evict(m, g0);
	bench_prefetch(m, g0);
	bench_migration(m, g0, g1);
	bench_session(m, g0);
	bench_lean(m, g0);
	bench_boost(m, g0, g1);
	bench_export(m, g0);
	bench_watch(m, g0);
	mvgal_close(m);
	return 0;
}
