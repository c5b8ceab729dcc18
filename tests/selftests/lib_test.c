// SPDX-License-Identifier: GPL-2.0
/*
 * libmvgal keeps count: a handle's totals against the module's own list
 * of the process's buffers, buffers shared between threads by reference
 * counting (written by every thread, read back, destroyed with the last
 * reference), and the per-thread description of the last failure.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

FIXTURE(lib) {
	COH_FIELDS;
};

FIXTURE_SETUP(lib)
{
	COH_SETUP(self);
}

FIXTURE_TEARDOWN(lib)
{
	coh_teardown(self->m, self->pool);
}

/* The module's count of this process's buffers, and their bytes. */
static int listed(struct mvgal *m, uint64_t *n, uint64_t *bytes)
{
	struct drm_mvgal_bo_entry *e;
	uint32_t count = 0;
	int ret;

	ret = mvgal_bo_list(m, NULL, &count);
	if (ret)
		return ret;
	count += 16;
	e = calloc(count, sizeof(*e));
	if (!e)
		return -ENOMEM;
	ret = mvgal_bo_list(m, e, &count);
	*n = 0;
	*bytes = 0;
	for (uint32_t i = 0; !ret && i < count; i++) {
		if (e[i].pid != (uint32_t)getpid())
			continue;
		*n += 1;
		*bytes += e[i].info.size;
	}
	free(e);
	return ret;
}

/* A dma-buf of a 2-page vgem dumb buffer; its vgem file in *@vgem. */
static int vgem_dmabuf(int *vgem, int *fd)
{
	struct drm_mode_create_dumb c = { .bpp = 32, .width = 1024, .height = 2 };
	int ret;

	*vgem = open_card("vgem", NULL, 0);
	if (*vgem < 0)
		return *vgem;
	ret = drmIoctl(*vgem, DRM_IOCTL_MODE_CREATE_DUMB, &c) ? -errno :
	      drmPrimeHandleToFD(*vgem, c.handle, DRM_CLOEXEC | DRM_RDWR, fd);
	if (ret)
		close(*vgem);
	return ret;
}

/*
 * Buffers of sizes that are no multiple of a page, made for no GPU and
 * for two GPUs, one exported and imported again (the same handle: it
 * counts once), a vgem buffer imported, some destroyed: the totals say
 * what the module lists for this process at every step, and a failed
 * create changes nothing.
 */
TEST_F(lib, totals_are_what_the_module_lists)
{
	const uint32_t host = MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID;
	struct mvgal_totals t0, t;
	uint64_t n0, b0, n, b;
	uint32_t h[4], again, hv;
	int fd, vgem;

	ASSERT_EQ(0, listed(self->m, &n0, &b0));
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t0));
	EXPECT_EQ(0, t0.buffers);

	ASSERT_EQ(0, mvgal_bo_create(self->m, 5000, host, MVGAL_GPU_ANY, &h[0]));
	ASSERT_EQ(0, mvgal_bo_create_shared(self->m, CH + 3, host | MVGAL_BO_DMA_BUF,
					    MVGAL_GPU_ANY, MVGAL_SHARING_DMA_BUF,
					    &h[1]));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 3 * CH - 7, host, self->g0, &h[2]));
	ASSERT_EQ(0, mvgal_bo_create(self->m, 77, host, self->g1, &h[3]));
	EXPECT_EQ(-EINVAL, mvgal_bo_create(self->m, 100, 0x80000000U,
					   MVGAL_GPU_ANY, &again));
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t));
	EXPECT_EQ(4, t.buffers);
	EXPECT_EQ(5000 + CH + 3 + 3 * CH - 7 + 77, t.bytes);
	EXPECT_EQ(2, t.host_buffers);
	EXPECT_EQ(5000 + CH + 3, t.host_bytes);
	EXPECT_EQ(1, t.gpu_buffers[self->g0]);
	EXPECT_EQ(3 * CH - 7, t.gpu_bytes[self->g0]);
	EXPECT_EQ(1, t.gpu_buffers[self->g1]);
	EXPECT_EQ(77, t.gpu_bytes[self->g1]);
	EXPECT_EQ(4, t.created);
	ASSERT_EQ(0, listed(self->m, &n, &b));
	EXPECT_EQ(n - n0, t.buffers);
	EXPECT_EQ(b - b0, t.bytes);

	/* The same buffer back: GEM gives the same handle, counted once. */
	ASSERT_EQ(0, mvgal_bo_export(self->m, h[1], &fd));
	ASSERT_EQ(0, mvgal_bo_import(self->m, fd, &again));
	close(fd);
	EXPECT_EQ(h[1], again);
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t));
	EXPECT_EQ(4, t.buffers);
	EXPECT_EQ(0, t.imported);

	/* Another driver's buffer: counted with the size the module gives. */
	ASSERT_EQ(0, vgem_dmabuf(&vgem, &fd));
	ASSERT_EQ(0, mvgal_bo_import(self->m, fd, &hv));
	close(fd);
	close(vgem);
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t));
	EXPECT_EQ(5, t.buffers);
	EXPECT_EQ(1, t.imported);
	ASSERT_EQ(0, listed(self->m, &n, &b));
	EXPECT_EQ(n - n0, t.buffers);
	EXPECT_EQ(b - b0, t.bytes);

	ASSERT_EQ(0, mvgal_bo_destroy(self->m, h[2]));
	ASSERT_EQ(0, mvgal_bo_destroy(self->m, hv));
	EXPECT_EQ(-EINVAL, mvgal_bo_destroy(self->m, hv));
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t));
	EXPECT_EQ(3, t.buffers);
	EXPECT_EQ(0, t.gpu_buffers[self->g0]);
	EXPECT_EQ(0, t.gpu_bytes[self->g0]);
	EXPECT_EQ(2, t.destroyed);
	ASSERT_EQ(0, listed(self->m, &n, &b));
	EXPECT_EQ(n - n0, t.buffers);
	EXPECT_EQ(b - b0, t.bytes);

	for (int i = 0; i < 4; i++)
		if (i != 2)
			ASSERT_EQ(0, mvgal_bo_destroy(self->m, h[i]));
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t));
	EXPECT_EQ(0, t.buffers);
	EXPECT_EQ(0, t.bytes);
	EXPECT_EQ(0, t.host_bytes);
	EXPECT_EQ(-EINVAL, mvgal_get_totals(NULL, &t));
}

#define THREADS 4
#define SHARED 6

struct sharer {
	struct mvgal *m;
	struct mvgal_buffer *buf[SHARED];	/* one reference each, its own */
	int id;
	int ret;
};

/* Writes its quarter of each buffer, then lets go of its references. */
static void *sharer_run(void *p)
{
	struct sharer *s = p;

	for (int i = 0; i < SHARED && !s->ret; i++) {
		uint64_t q = mvgal_buffer_size(s->buf[i]) / THREADS;
		uint8_t *d = malloc(q);

		if (!d) {
			s->ret = -ENOMEM;
			break;
		}
		fill(d, q, 16 * i + s->id);
		s->ret = mvgal_bo_write(s->m, mvgal_buffer_handle(s->buf[i]),
					q * s->id, d, q);
		free(d);
	}
	for (int i = 0; i < SHARED; i++)
		if (mvgal_buffer_release(s->buf[i]) && !s->ret)
			s->ret = -EIO;
	return NULL;
}

/*
 * Buffers shared by threads: each thread holds a reference, writes its
 * part and releases; the buffer lives while any reference does (the
 * main thread's last one reads every byte back), and the last release
 * destroys it: the module no longer knows the handle.
 */
TEST_F(lib, a_buffer_lives_while_a_reference_does)
{
	struct mvgal_buffer *buf[SHARED];
	struct sharer s[THREADS];
	pthread_t tid[THREADS];
	struct drm_mvgal_bo_info info;
	struct mvgal_totals t;

	for (int i = 0; i < SHARED; i++) {
		ASSERT_EQ(0, mvgal_buffer_create(self->m, THREADS * (CH / 2 + 123 * i + 5),
						 MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
						 i % 2 ? self->g0 : MVGAL_GPU_ANY,
						 MVGAL_SHARING_NONE, &buf[i]));
		EXPECT_EQ(1, mvgal_buffer_refs(buf[i]));
	}
	for (int k = 0; k < THREADS; k++) {
		s[k] = (struct sharer){ .m = self->m, .id = k };
		for (int i = 0; i < SHARED; i++)
			s[k].buf[i] = mvgal_buffer_retain(buf[i]);
	}
	EXPECT_EQ(1 + THREADS, mvgal_buffer_refs(buf[0]));
	for (int k = 0; k < THREADS; k++)
		ASSERT_EQ(0, pthread_create(&tid[k], NULL, sharer_run, &s[k]));
	for (int k = 0; k < THREADS; k++) {
		pthread_join(tid[k], NULL);
		EXPECT_EQ(0, s[k].ret);
	}
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t));
	EXPECT_EQ(SHARED, t.buffers);
	for (int i = 0; i < SHARED; i++) {
		uint64_t size = mvgal_buffer_size(buf[i]), q = size / THREADS;
		uint32_t h = mvgal_buffer_handle(buf[i]);
		uint8_t *got = malloc(size), *want = malloc(q);

		ASSERT_NE(NULL, got);
		ASSERT_NE(NULL, want);
		EXPECT_EQ(1, mvgal_buffer_refs(buf[i]));
		ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, got, size));
		for (int k = 0; k < THREADS; k++) {
			fill(want, q, 16 * i + k);
			EXPECT_EQ(0, memcmp(got + q * k, want, q))
				TH_LOG("buffer %d, thread %d's part", i, k);
		}
		free(got);
		free(want);
		EXPECT_EQ(0, mvgal_buffer_release(buf[i]));
		EXPECT_EQ(-ENOENT, mvgal_bo_info(self->m, h, &info));
	}
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t));
	EXPECT_EQ(0, t.buffers);
	EXPECT_EQ(SHARED, t.destroyed);
	EXPECT_EQ(-EINVAL, mvgal_buffer_release(NULL));
	EXPECT_EQ(NULL, mvgal_buffer_retain(NULL));
}

struct churner {
	struct mvgal *m;
	int id;
	int ret;
	uint32_t kept;	/* one buffer it keeps */
};

/* Makes and destroys buffers; keeps the last one. */
static void *churn(void *p)
{
	struct churner *c = p;
	uint32_t h;

	for (int i = 0; i < 150 && !c->ret; i++) {
		c->ret = mvgal_bo_create(c->m, 1 + 97 * i + c->id,
					 MVGAL_BO_HOST_VALID, MVGAL_GPU_ANY, &h);
		if (!c->ret && i < 149)
			c->ret = mvgal_bo_destroy(c->m, h);
	}
	c->kept = h;
	return NULL;
}

/*
 * Threads making and destroying buffers on one handle at once (the
 * module hands a closed handle's number to the next create): the totals
 * stay exact.
 */
TEST_F(lib, totals_stay_exact_under_threads)
{
	struct churner c[THREADS];
	pthread_t tid[THREADS];
	struct mvgal_totals t;
	uint64_t n0, b0, n, b;

	ASSERT_EQ(0, listed(self->m, &n0, &b0));
	for (int k = 0; k < THREADS; k++) {
		c[k] = (struct churner){ .m = self->m, .id = k };
		ASSERT_EQ(0, pthread_create(&tid[k], NULL, churn, &c[k]));
	}
	for (int k = 0; k < THREADS; k++) {
		pthread_join(tid[k], NULL);
		EXPECT_EQ(0, c[k].ret);
	}
	ASSERT_EQ(0, mvgal_get_totals(self->m, &t));
	EXPECT_EQ(THREADS, t.buffers);
	EXPECT_EQ(150 * THREADS, t.created);
	EXPECT_EQ(149 * THREADS, t.destroyed);
	ASSERT_EQ(0, listed(self->m, &n, &b));
	EXPECT_EQ(n - n0, t.buffers);
	EXPECT_EQ(b - b0, t.bytes);
	for (int k = 0; k < THREADS; k++)
		EXPECT_EQ(0, mvgal_bo_destroy(self->m, c[k].kept));
}

static void *fail_in_thread(void *p)
{
	struct mvgal *m = p;
	uint32_t h;

	/* A failure of this thread's own: not the main thread's. */
	mvgal_bo_map(m, 0, NULL);
	return (void *)(intptr_t)(mvgal_last_error()->err == -EINVAL &&
				  mvgal_bo_create(m, 1, 0x80000000U,
						  MVGAL_GPU_ANY, &h) == -EINVAL);
}

/*
 * The last failure, per thread: which call, which check or ioctl, the
 * errno; another thread's failures do not show; mvgal_strerror() says
 * what an errno means from mvgal.
 */
TEST_F(lib, the_last_failure_names_its_call)
{
	const struct mvgal_error *e = mvgal_last_error();
	struct drm_mvgal_migrate mg = { .in_fence_fd = -1 };
	void *ok = NULL;
	pthread_t tid;
	uint32_t h;

	mvgal_clear_error();
	EXPECT_EQ(0, e->err);
	EXPECT_STREQ("", e->call);

	EXPECT_EQ(-EINVAL, mvgal_bo_create(self->m, 100, 0x80000000U,
					   MVGAL_GPU_ANY, &h));
	EXPECT_EQ(-EINVAL, e->err);
	EXPECT_STREQ("mvgal_bo_create_shared", e->call);
	EXPECT_STREQ("DRM_IOCTL_MVGAL_BO_CREATE", e->ioctl);
	EXPECT_STREQ("", e->arg);

	EXPECT_EQ(-EINVAL, mvgal_bo_create(self->m, 100, 0, 0, NULL));
	EXPECT_STREQ("mvgal_bo_create_shared", e->call);
	EXPECT_STREQ("!dev || !handle", e->arg);
	EXPECT_STREQ("", e->ioctl);

	mg.handle = 0x7fffffff;
	mg.size = 1;
	mg.location = 1 + self->g0;
	EXPECT_EQ(-ENOENT, mvgal_migrate(self->m, &mg));
	EXPECT_EQ(-ENOENT, e->err);
	EXPECT_STREQ("mvgal_migrate_sz", e->call);
	EXPECT_STREQ("DRM_IOCTL_MVGAL_MIGRATE", e->ioctl);

	ASSERT_EQ(0, pthread_create(&tid, NULL, fail_in_thread, self->m));
	pthread_join(tid, &ok);
	EXPECT_NE(NULL, ok);
	EXPECT_EQ(-ENOENT, e->err);
	EXPECT_STREQ("mvgal_migrate_sz", e->call);

	/* A call that succeeds leaves the failure before it, as errno. */
	ASSERT_EQ(0, mvgal_bo_create(self->m, 100, MVGAL_BO_HOST_VALID,
				     MVGAL_GPU_ANY, &h));
	EXPECT_EQ(-ENOENT, e->err);
	mvgal_clear_error();
	EXPECT_EQ(0, e->err);
	EXPECT_EQ(0, mvgal_bo_destroy(self->m, h));

	EXPECT_NE(NULL, strstr(mvgal_strerror(-EDQUOT), "max_file_meta_mb"));
	EXPECT_NE(NULL, strstr(mvgal_strerror(ENOBUFS), "max_file_jobs"));
	EXPECT_NE(NULL, strstr(mvgal_strerror(-ENOENT), "no such buffer"));
	EXPECT_STREQ("success", mvgal_strerror(0));
	EXPECT_STREQ("unknown error", mvgal_strerror(-99999));
	EXPECT_STREQ(strerrordesc_np(EXDEV), mvgal_strerror(-EXDEV));
}

TEST_HARNESS_MAIN
