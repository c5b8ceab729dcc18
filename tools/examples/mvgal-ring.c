// SPDX-License-Identifier: MIT
/*
 * mvgal-ring: 64 migrations and READ sessions over every GPU, pipelined
 * through one io_uring.
 *
 * Each of 64 buffers (filled by the CPU, sizes not page multiples) is
 * moved to a GPU (round robin over the attached GPUs) by a MIGRATE linked
 * to a READ session on that GPU: the BEGIN is issued only once the
 * migration's data is in place, and its completion says the session's
 * bytes are in the GPU's pool. One submit sends all 128 commands; the
 * completions come back in whatever order the copies finish. The ENDs go
 * in one more submit; then every buffer is read back and compared.
 * Build: cc mvgal-ring.c $(pkg-config --cflags --libs mvgal)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#define NBUF	64
#define SIZE(i)	((uint64_t)65536 + 4096 * (i) + 7 * (i) + 1)

struct item {
	uint32_t handle;
	struct drm_mvgal_migrate mg;
	struct drm_mvgal_access acc;
	struct drm_mvgal_begin begin;
	struct drm_mvgal_end end;
};

static int fail(const char *what, int err)
{
	fprintf(stderr, "mvgal-ring: %s: %s\n", what, strerror(-err));
	return 1;
}

static uint8_t pattern(int buf, uint64_t i)
{
	return (uint8_t)(buf * 31 + i * 7 + (i >> 12));
}

/* A buffer of SIZE(@i) bytes holding pattern(@i, .). */
static int make_buffer(struct mvgal *m, int i, uint32_t *h)
{
	uint8_t *p = malloc(SIZE(i));
	int ret;

	if (!p)
		return -ENOMEM;
	for (uint64_t k = 0; k < SIZE(i); k++)
		p[k] = pattern(i, k);
	ret = mvgal_bo_create(m, SIZE(i), MVGAL_BO_HOST_VALID |
			      MVGAL_BO_GPU_VALID, MVGAL_GPU_ANY, h);
	if (!ret)
		ret = mvgal_bo_write(m, *h, 0, p, SIZE(i));
	free(p);
	return ret;
}

/* MIGRATE to @gpu, linked to a READ BEGIN there. */
static int prep_item(struct mvgal_ring *r, struct item *it, int i,
		     uint32_t gpu)
{
	int ret;

	it->mg = (struct drm_mvgal_migrate) {
		.handle = it->handle, .size = SIZE(i), .location = 1 + gpu,
		.in_fence_fd = -1,
	};
	it->acc = (struct drm_mvgal_access) { .handle = it->handle };
	it->begin = (struct drm_mvgal_begin) {
		.accesses = (uintptr_t)&it->acc, .count = 1, .gpu = gpu,
		.flags = MVGAL_ACCESS_READ, .in_fence_fd = -1,
		.priority = MVGAL_PRIO_NORMAL,
	};
	ret = mvgal_prep_migrate(r, &it->mg, 2 * i, MVGAL_RING_LINK);
	return ret ?: mvgal_prep_begin(r, &it->begin, 2 * i + 1, 0);
}

/* Reaps @n completions; the first failure's -errno. */
static int reap(struct mvgal_ring *r, int n, int *order)
{
	struct mvgal_completion c;
	int ret;

	for (int k = 0; k < n; k++) {
		ret = mvgal_ring_wait(r, 60000, &c);
		if (ret)
			return ret;
		if (c.res)
			return c.res;
		if (order)
			order[k] = (int)c.user_data;
	}
	return 0;
}

/* Every buffer's bytes, read back and compared. */
static int verify(struct mvgal *m, const struct item *items)
{
	uint8_t *p = malloc(SIZE(NBUF));
	int ret = 0;

	if (!p)
		return -ENOMEM;
	for (int i = 0; i < NBUF && !ret; i++) {
		ret = mvgal_bo_read(m, items[i].handle, 0, p, SIZE(i));
		for (uint64_t k = 0; k < SIZE(i) && !ret; k++)
			if (p[k] != pattern(i, k))
				ret = -EIO;
	}
	free(p);
	return ret;
}

static int run(struct mvgal *m, struct mvgal_ring *r, struct item *items,
	       const uint32_t *gpus, int ngpu)
{
	int order[2 * NBUF], inversions = 0, ret;

	for (int i = 0; i < NBUF; i++) {
		ret = prep_item(r, &items[i], i, gpus[i % ngpu]);
		if (ret)
			return fail("preparing", ret);
	}
	ret = mvgal_ring_submit(r);
	if (ret != 2 * NBUF)
		return fail("submitting", ret < 0 ? ret : -EIO);
	ret = reap(r, 2 * NBUF, order);
	if (ret)
		return fail("a migration or session", ret);
	for (int k = 1; k < 2 * NBUF; k++)
		inversions += order[k] < order[k - 1];
	for (int i = 0; i < NBUF; i++) {
		if (items[i].begin.out_fence_fd >= 0)
			close(items[i].begin.out_fence_fd);
		if (items[i].mg.out_fence_fd >= 0)
			close(items[i].mg.out_fence_fd);
		items[i].end = (struct drm_mvgal_end) {
			.session = items[i].begin.session, .fence_fd = -1,
		};
		ret = mvgal_prep_end(r, &items[i].end, 1000 + i, 0);
		if (ret)
			return fail("preparing an END", ret);
	}
	if (mvgal_ring_submit(r) != NBUF || (ret = reap(r, NBUF, NULL)))
		return fail("ending the sessions", ret ?: -EIO);
	printf("%d migrations and %d sessions over %d GPU(s) in one submit; completions out of submission order %d times\n",
	       NBUF, NBUF, ngpu, inversions);
	return 0;
}

int main(void)
{
	static struct item items[NBUF];
	uint32_t gpus[MVGAL_MAX_GPUS];
	struct mvgal_ring *r;
	struct mvgal *m;
	int n, ret;

	ret = mvgal_open(&m);
	if (ret)
		return fail("mvgal_open (is the module loaded?)", ret);
	n = mvgal_gpu_list(m, gpus, MVGAL_MAX_GPUS);
	if (n <= 0)
		return fail("listing GPUs (none attached?)", n ?: -ENODEV);
	ret = mvgal_ring_init(m, 2 * NBUF, &r);
	if (ret)
		return fail("mvgal_ring_init", ret);
	for (int i = 0; i < NBUF; i++) {
		ret = make_buffer(m, i, &items[i].handle);
		if (ret)
			return fail("making a buffer", ret);
	}
	if (run(m, r, items, gpus, n))
		return 1;
	ret = verify(m, items);
	if (ret)
		return fail("the bytes read back", ret);
	printf("ring: OK, every byte of %d buffers came back unchanged\n", NBUF);
	for (int i = 0; i < NBUF; i++)
		mvgal_bo_destroy(m, items[i].handle);
	mvgal_ring_free(r);
	mvgal_close(m);
	return 0;
}
