// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal benchmarks, run in the guest by `make bench`. Every figure is a
 * ratio of two things measured side by side in this one run:
 *
 *  - migration throughput (MIGRATE + wait for its fence) host -> pool and
 *    pool -> pool, against a plain memcpy() of the same bytes between two
 *    buffers of this process;
 *  - BEGIN + END on a resident, clean buffer against a null ioctl
 *    (GET_INFO) on the same fd.
 *
 * Nothing here passes or fails: the goals are printed next to the
 * ratios. Timings are the median of several runs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#define REPS 9

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_u64);
	return t[n / 2];
}

static uint64_t memcpy_ns(size_t size)
{
	uint8_t *a = malloc(size), *b = malloc(size);
	uint64_t t[REPS];

	memset(a, 0x5a, size);
	memset(b, 0xa5, size);
	for (int i = 0; i < REPS; i++) {
		uint64_t t0 = now_ns();

		memcpy(b, a, size);
		__asm__ volatile("" : : "r"(b) : "memory");
		t[i] = now_ns() - t0;
	}
	free(a);
	free(b);
	return median(t, REPS);
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
 * Median time of moving @size bytes to @dst_gpu's pool from the host
 * (@src_gpu < 0) or from @src_gpu's pool. The placement at the
 * destination is freed between runs (untimed), so that every run copies.
 */
static int migrate_ns(struct mvgal *m, int src_gpu, int dst_gpu, size_t size,
		      uint64_t *out)
{
	uint64_t t[REPS];
	uint32_t h;
	int ret;

	ret = mvgal_bo_create(m, size, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			      MVGAL_GPU_ANY, &h);
	if (ret)
		return ret;
	if (src_gpu >= 0)
		ret = migrate_wait(m, h, size, 1 + src_gpu);
	for (int i = 0; !ret && i < REPS; i++) {
		uint64_t t0;

		ret = mvgal_place_free(m, h, dst_gpu);
		if (ret)
			break;
		t0 = now_ns();
		ret = migrate_wait(m, h, size, 1 + dst_gpu);
		t[i] = now_ns() - t0;
	}
	mvgal_bo_destroy(m, h);
	if (!ret)
		*out = median(t, REPS);
	return ret;
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
		uint64_t mc = memcpy_ns(size), hp, pp;
		int r1 = migrate_ns(m, -1, g0, size, &hp);
		int r2 = migrate_ns(m, g0, g1, size, &pp);

		printf("bench: %6zu KiB  memcpy %8.1f MB/s", size >> 10,
		       size * 1e3 / mc);
		if (r1)
			printf("  host->pool: %s", strerror(-r1));
		else
			printf("  host->pool %8.1f MB/s ratio %.2f", size * 1e3 / hp,
			       (double)mc / hp);
		if (r2)
			printf("  pool->pool: %s\n", strerror(-r2));
		else
			printf("  pool->pool %8.1f MB/s ratio %.2f\n",
			       size * 1e3 / pp, (double)mc / pp);
	}
}

static void bench_session(struct mvgal *m, int g0)
{
	struct drm_mvgal_get_info gi;
	struct drm_mvgal_access a;
	uint64_t tn[REPS], ts[REPS];
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
		t0 = now_ns();
		for (int i = 0; i < inner; i++) {
			a = (struct drm_mvgal_access) { .handle = h };
			mvgal_begin(m, g0, MVGAL_ACCESS_READ, MVGAL_PRIO_NORMAL,
				    -1, &a, 1, &s, &fence, NULL);
			if (fence >= 0)
				close(fence);
			mvgal_end(m, s, -1, NULL, 0);
		}
		ts[r] = (now_ns() - t0) / inner;
	}
	printf("# BEGIN + END on a resident clean buffer vs a null ioctl (goal: <= 3.0x)\n");
	printf("bench: null ioctl %llu ns  begin+end %llu ns  ratio %.2fx\n",
	       (unsigned long long)median(tn, REPS),
	       (unsigned long long)median(ts, REPS),
	       (double)median(ts, REPS) / median(tn, REPS));
	mvgal_bo_destroy(m, h);
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
	bench_migration(m, g0, g1);
	bench_session(m, g0);
	mvgal_close(m);
	return 0;
}
