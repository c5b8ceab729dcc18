// SPDX-License-Identifier: GPL-2.0
/*
 * Arrays of structs with an element stride (ABI 2): a stride of 0 is the
 * ABI 1 element size, so old binaries see no change; a larger stride
 * puts each element at its place and clears (output) or requires zero
 * (input) the bytes the kernel does not know; a stride below the ABI 1
 * size or above MVGAL_STRIDE_MAX is refused with nothing written. Also
 * the signed fds of GPU_ATTACH.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"

#define GUARD 0xAA
#define EXTRA 16	/* bytes a "newer" element has beyond the kernel's */
#define NBO 3
#define REPLICATE_MB "/sys/module/mvgal/parameters/graphics_replicate_mb"

FIXTURE(uapi) {
	COH_FIELDS;
	uint32_t h[NBO];
};

FIXTURE_SETUP(uapi)
{
	COH_SETUP(self);
	for (int i = 0; i < NBO; i++)
		ASSERT_EQ(0, host_bo(self->m, (i + 1) * CH, &self->h[i]));
}

FIXTURE_TEARDOWN(uapi)
{
	write_param(REPLICATE_MB, "64");
	for (int i = 0; i < NBO; i++)
		mvgal_bo_destroy(self->m, self->h[i]);
	coh_teardown(self->m, self->pool);
}

static int raw(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

static bool all_are(const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

static void *elem(void *base, uint32_t i, size_t stride)
{
	return (uint8_t *)base + (size_t)i * stride;
}

/* ---- BO_LIST ---- */

static int bo_list(int fd, void *buf, uint32_t *count, uint32_t stride)
{
	struct drm_mvgal_bo_list l = {
		.count = *count, .entries = (uintptr_t)buf, .stride = stride,
	};
	int ret = raw(fd, DRM_IOCTL_MVGAL_BO_LIST, &l);

	*count = l.count;
	return ret;
}

TEST_F(uapi, bo_list_strides)
{
	static uint8_t v1[2][64 * MVGAL_BO_ENTRY_SIZE_V1];
	const uint32_t v1_strides[] = { 0, MVGAL_BO_ENTRY_SIZE_V1 };
	struct drm_mvgal_bo_entry ref[64];
	uint32_t n = 64, nb;
	const size_t big = sizeof(struct drm_mvgal_bo_entry) + EXTRA;
	uint8_t *buf;

	/* The entry grew after ABI 1 (BO_INFO's statistics). */
	ASSERT_LT(MVGAL_BO_ENTRY_SIZE_V1, sizeof(struct drm_mvgal_bo_entry));
	ASSERT_EQ(0, bo_list(self->fd, ref, &n, sizeof(ref[0])));
	ASSERT_GE(n, NBO);
	ASSERT_LE(n, 63);
	/* A stride of 0 is ABI 1's element: the same entries, packed, and
	 * not one byte past them.
	 */
	for (unsigned int k = 0; k < 2; k++) {
		uint32_t n1 = 64;

		memset(v1[k], GUARD, sizeof(v1[k]));
		ASSERT_EQ(0, bo_list(self->fd, v1[k], &n1, v1_strides[k]));
		ASSERT_EQ(n, n1);
		for (uint32_t i = 0; i < n; i++) {
			struct drm_mvgal_bo_entry *e =
				elem(v1[k], i, MVGAL_BO_ENTRY_SIZE_V1);

			EXPECT_EQ(ref[i].id, e->id);
			EXPECT_EQ(ref[i].info.size, e->info.size);
		}
		EXPECT_TRUE(all_are(elem(v1[k], n, MVGAL_BO_ENTRY_SIZE_V1),
				    (64 - n) * MVGAL_BO_ENTRY_SIZE_V1, GUARD));
	}
	EXPECT_EQ(0, memcmp(v1[0], v1[1], n * MVGAL_BO_ENTRY_SIZE_V1));

	/* Room for one more element than asked for: it stays untouched. */
	buf = malloc((n + 1) * big);
	ASSERT_NE(NULL, buf);
	memset(buf, GUARD, (n + 1) * big);
	nb = n;
	ASSERT_EQ(0, bo_list(self->fd, buf, &nb, big));
	EXPECT_EQ(n, nb);
	for (uint32_t i = 0; i < n; i++) {
		struct drm_mvgal_bo_entry *e = elem(buf, i, big);

		EXPECT_EQ(ref[i].id, e->id);
		EXPECT_EQ(ref[i].info.size, e->info.size);
		EXPECT_EQ(ref[i].info.chunk_size, e->info.chunk_size);
		EXPECT_TRUE(all_are(e + 1, EXTRA, 0)) TH_LOG("tail of %u", i);
	}
	EXPECT_TRUE(all_are(elem(buf, n, big), big, GUARD));
	free(buf);
}

TEST_F(uapi, bo_list_bad_strides_write_nothing)
{
	const uint32_t bad[] = {
		1, MVGAL_BO_ENTRY_SIZE_V1 - 8, MVGAL_BO_ENTRY_SIZE_V1 - 1,
		MVGAL_STRIDE_MAX + 1, ~0u,
	};
	static uint8_t buf[8 * MVGAL_BO_ENTRY_SIZE_V1];

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drm_mvgal_bo_list l = {
			.count = 8, .entries = (uintptr_t)buf, .stride = bad[i],
		}, before = l;

		memset(buf, GUARD, sizeof(buf));
		EXPECT_EQ(-EINVAL, raw(self->fd, DRM_IOCTL_MVGAL_BO_LIST, &l))
			TH_LOG("stride %u", bad[i]);
		EXPECT_EQ(0, memcmp(&l, &before, sizeof(l)));
		EXPECT_TRUE(all_are(buf, sizeof(buf), GUARD));
	}
	{
		struct drm_mvgal_bo_list l = {
			.count = 8, .entries = (uintptr_t)buf, .pad = 1,
		}, before = l;

		memset(buf, GUARD, sizeof(buf));
		EXPECT_EQ(-EINVAL, raw(self->fd, DRM_IOCTL_MVGAL_BO_LIST, &l));
		EXPECT_EQ(0, memcmp(&l, &before, sizeof(l)));
		EXPECT_TRUE(all_are(buf, sizeof(buf), GUARD));
	}
}

/* The largest stride is allowed, and only the known bytes are written. */
TEST_F(uapi, bo_list_max_stride)
{
	uint32_t n = 2;
	uint8_t *buf = malloc(3 * MVGAL_STRIDE_MAX);
	struct drm_mvgal_bo_entry *e;

	ASSERT_NE(NULL, buf);
	memset(buf, GUARD, 3 * MVGAL_STRIDE_MAX);
	ASSERT_EQ(0, bo_list(self->fd, buf, &n, MVGAL_STRIDE_MAX));
	ASSERT_GE(n, NBO);
	for (uint32_t i = 0; i < 2; i++) {
		e = elem(buf, i, MVGAL_STRIDE_MAX);
		EXPECT_NE(0, e->id);
		EXPECT_TRUE(all_are(e + 1, MVGAL_STRIDE_MAX - sizeof(*e), 0));
	}
	EXPECT_TRUE(all_are(elem(buf, 2, MVGAL_STRIDE_MAX), MVGAL_STRIDE_MAX,
			    GUARD));
	free(buf);
}

/* ---- GET_HEAP ---- */

static int heap(int fd, void *r, uint32_t *nr, void *n, uint32_t *nn,
		uint32_t stride)
{
	struct drm_mvgal_get_heap h = {
		.num_regions = *nr, .regions = (uintptr_t)r,
		.num_nodes = *nn, .nodes = (uintptr_t)n, .stride = stride,
	};
	int ret = raw(fd, DRM_IOCTL_MVGAL_GET_HEAP, &h);

	*nr = h.num_regions;
	*nn = h.num_nodes;
	return ret;
}

TEST_F(uapi, heap_strides)
{
	static uint8_t v1[2][9 * MVGAL_HEAP_REGION_SIZE_V1];
	const uint32_t v1_strides[] = { 0, MVGAL_HEAP_REGION_SIZE_V1 };
	struct drm_mvgal_heap_region r0[9], n0[8];
	const size_t big = sizeof(struct drm_mvgal_heap_region) + EXTRA;
	uint32_t nr = 9, nn = 8, nrb, nnb;
	uint8_t *rb, *nb;

	/* The region grew after ABI 1 (where it is: memory, pool_flags). */
	ASSERT_LT(MVGAL_HEAP_REGION_SIZE_V1,
		  sizeof(struct drm_mvgal_heap_region));
	ASSERT_EQ(0, heap(self->fd, r0, &nr, n0, &nn, sizeof(r0[0])));
	ASSERT_LE(1, nr);
	EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, r0[0].memory);
	for (uint32_t i = 1; i < nr; i++) {
		struct drm_mvgal_gpu_info gi = { .gpu = r0[i].gpu };

		ASSERT_EQ(0, raw(self->fd, DRM_IOCTL_MVGAL_GPU_INFO, &gi));
		EXPECT_EQ(gi.pool_memory, r0[i].memory);
		EXPECT_EQ(gi.pool_flags, r0[i].pool_flags);
	}
	for (uint32_t i = 0; i < nn; i++)
		EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, n0[i].memory);
	/* A stride of 0 is ABI 1's element: the same regions, packed, and
	 * not one byte past them.
	 */
	for (unsigned int k = 0; k < 2; k++) {
		uint32_t nr1 = 9, nn1 = 0;

		memset(v1[k], GUARD, sizeof(v1[k]));
		ASSERT_EQ(0, heap(self->fd, v1[k], &nr1, NULL, &nn1, v1_strides[k]));
		ASSERT_EQ(nr, nr1);
		for (uint32_t i = 0; i < nr; i++) {
			struct drm_mvgal_heap_region *e =
				elem(v1[k], i, MVGAL_HEAP_REGION_SIZE_V1);

			EXPECT_EQ(r0[i].kind, e->kind);
			EXPECT_EQ(r0[i].gpu, e->gpu);
			EXPECT_EQ(r0[i].total, e->total);
		}
		EXPECT_TRUE(all_are(elem(v1[k], nr, MVGAL_HEAP_REGION_SIZE_V1),
				    (9 - nr) * MVGAL_HEAP_REGION_SIZE_V1, GUARD));
	}
	EXPECT_EQ(0, memcmp(v1[0], v1[1], nr * MVGAL_HEAP_REGION_SIZE_V1));

	rb = malloc((nr + 1) * big);
	nb = malloc((nn + 1) * big);
	ASSERT_NE(NULL, rb);
	ASSERT_NE(NULL, nb);
	memset(rb, GUARD, (nr + 1) * big);
	memset(nb, GUARD, (nn + 1) * big);
	nrb = nr;
	nnb = nn;
	ASSERT_EQ(0, heap(self->fd, rb, &nrb, nb, &nnb, big));
	EXPECT_EQ(nr, nrb);
	EXPECT_EQ(nn, nnb);
	for (uint32_t i = 0; i < nr; i++) {
		struct drm_mvgal_heap_region *e = elem(rb, i, big);

		EXPECT_EQ(r0[i].kind, e->kind);
		EXPECT_EQ(r0[i].gpu, e->gpu);
		EXPECT_EQ(r0[i].total, e->total);
		EXPECT_EQ(r0[i].memory, e->memory);
		EXPECT_EQ(r0[i].pool_flags, e->pool_flags);
		EXPECT_TRUE(all_are(e + 1, EXTRA, 0));
	}
	for (uint32_t i = 0; i < nn; i++) {
		struct drm_mvgal_heap_region *e = elem(nb, i, big);

		EXPECT_EQ(MVGAL_REGION_NODE, e->kind);
		EXPECT_EQ(n0[i].numa_node, e->numa_node);
		EXPECT_EQ(n0[i].total, e->total);
		EXPECT_TRUE(all_are(e + 1, EXTRA, 0));
	}
	EXPECT_TRUE(all_are(elem(rb, nr, big), big, GUARD));
	EXPECT_TRUE(all_are(elem(nb, nn, big), big, GUARD));
	free(rb);
	free(nb);
}

TEST_F(uapi, heap_bad_strides_write_nothing)
{
	const uint32_t bad[] = {
		1, MVGAL_HEAP_REGION_SIZE_V1 - 8, MVGAL_STRIDE_MAX + 8, ~0u,
	};
	static uint8_t r[4 * MVGAL_STRIDE_MAX], n[4 * MVGAL_STRIDE_MAX];

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drm_mvgal_get_heap h = {
			.num_regions = 3, .regions = (uintptr_t)r,
			.num_nodes = 2, .nodes = (uintptr_t)n,
			.stride = bad[i],
		}, before = h;

		memset(r, GUARD, sizeof(r));
		memset(n, GUARD, sizeof(n));
		EXPECT_EQ(-EINVAL, raw(self->fd, DRM_IOCTL_MVGAL_GET_HEAP, &h))
			TH_LOG("stride %u", bad[i]);
		EXPECT_EQ(0, memcmp(&h, &before, sizeof(h)));
		EXPECT_TRUE(all_are(r, sizeof(r), GUARD));
		EXPECT_TRUE(all_are(n, sizeof(n), GUARD));
	}
}

/* ---- POOL_LRU ---- */

/* Places all of @h in @g's pool through a READ session. */
static int place(struct mvgal *m, uint32_t g, uint32_t h)
{
	struct drm_mvgal_access a;
	uint32_t s;
	int fence, ret;

	ret = begin1(m, g, MVGAL_ACCESS_READ, h, 0, 0, &a, &s, &fence, NULL);
	if (ret)
		return ret;
	ret = settle(fence);
	return mvgal_end(m, s, -1, NULL, 0) ?: ret;
}

static int lru(int fd, uint32_t g, void *buf, uint32_t *count,
	       uint32_t stride)
{
	struct drm_mvgal_pool_lru l = {
		.gpu = g, .count = *count, .entries = (uintptr_t)buf,
		.stride = stride,
	};
	int ret = raw(fd, DRM_IOCTL_MVGAL_POOL_LRU, &l);

	*count = l.count;
	return ret;
}

TEST_F(uapi, pool_lru_strides)
{
	struct drm_mvgal_lru_entry e0[16], e1[16];
	const size_t big = sizeof(struct drm_mvgal_lru_entry) + EXTRA;
	uint32_t n = 16, n1 = 16, nb;
	uint8_t *buf;

	ASSERT_EQ(MVGAL_LRU_ENTRY_SIZE_V1, sizeof(struct drm_mvgal_lru_entry));
	for (int i = 0; i < NBO; i++)
		ASSERT_EQ(0, place(self->m, self->g0, self->h[i]));
	ASSERT_EQ(0, lru(self->fd, self->g0, e0, &n, 0));
	ASSERT_GE(n, NBO);
	ASSERT_LE(n, 15);
	ASSERT_EQ(0, lru(self->fd, self->g0, e1, &n1, MVGAL_LRU_ENTRY_SIZE_V1));
	ASSERT_EQ(n, n1);
	for (uint32_t i = 0; i < n; i++) {
		EXPECT_EQ(e0[i].bo_id, e1[i].bo_id);
		EXPECT_EQ(e0[i].bytes, e1[i].bytes);
	}

	buf = malloc((n + 1) * big);
	ASSERT_NE(NULL, buf);
	memset(buf, GUARD, (n + 1) * big);
	nb = n;
	ASSERT_EQ(0, lru(self->fd, self->g0, buf, &nb, big));
	EXPECT_EQ(n, nb);
	for (uint32_t i = 0; i < n; i++) {
		struct drm_mvgal_lru_entry *e = elem(buf, i, big);

		EXPECT_EQ(e0[i].bo_id, e->bo_id);
		EXPECT_EQ(e0[i].bytes, e->bytes);
		EXPECT_EQ(0, e->pad);
		EXPECT_TRUE(all_are(e + 1, EXTRA, 0));
	}
	EXPECT_TRUE(all_are(elem(buf, n, big), big, GUARD));
	free(buf);
}

TEST_F(uapi, pool_lru_bad_strides_write_nothing)
{
	const uint32_t bad[] = {
		1, MVGAL_LRU_ENTRY_SIZE_V1 - 8, MVGAL_STRIDE_MAX + 1, ~0u,
	};
	static uint8_t buf[4 * MVGAL_STRIDE_MAX];

	ASSERT_EQ(0, place(self->m, self->g0, self->h[0]));
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct drm_mvgal_pool_lru l = {
			.gpu = self->g0, .count = 4,
			.entries = (uintptr_t)buf, .stride = bad[i],
		}, before = l;

		memset(buf, GUARD, sizeof(buf));
		EXPECT_EQ(-EINVAL, raw(self->fd, DRM_IOCTL_MVGAL_POOL_LRU, &l))
			TH_LOG("stride %u", bad[i]);
		EXPECT_EQ(0, memcmp(&l, &before, sizeof(l)));
		EXPECT_TRUE(all_are(buf, sizeof(buf), GUARD));
	}
	{
		struct drm_mvgal_pool_lru l = {
			.gpu = self->g0, .count = 4,
			.entries = (uintptr_t)buf, .pad = 1,
		}, before = l;

		memset(buf, GUARD, sizeof(buf));
		EXPECT_EQ(-EINVAL, raw(self->fd, DRM_IOCTL_MVGAL_POOL_LRU, &l));
		EXPECT_EQ(0, memcmp(&l, &before, sizeof(l)));
		EXPECT_TRUE(all_are(buf, sizeof(buf), GUARD));
	}
}

/* ---- HARVEST (entries are in and out) ---- */

/* Bitmap words of each buffer's record, peeked or reset. */
static int harvest(int fd, void *buf, uint32_t stride, size_t esz,
		   uint64_t words[NBO], const uint32_t *h, uint32_t flags)
{
	struct drm_mvgal_harvest args = {
		.entries = (uintptr_t)buf, .count = NBO, .flags = flags,
		.stride = stride,
	};

	for (uint32_t i = 0; i < NBO; i++) {
		struct drm_mvgal_harvest_entry *e = elem(buf, i, esz);

		words[i] = ~0ull;
		e->handle = h[i];
		e->flags = 0;
		e->data = (uintptr_t)&words[i];
		e->capacity = 1;
	}
	return raw(fd, DRM_IOCTL_MVGAL_HARVEST, &args);
}

/* Writes chunk 0 of every buffer (pwrite marks it written). */
static void dirty(struct __test_metadata *_metadata, struct mvgal *m,
		  const uint32_t *h)
{
	uint8_t b = 1;

	for (int i = 0; i < NBO; i++)
		ASSERT_EQ(0, mvgal_bo_write(m, h[i], 0, &b, 1));
}

TEST_F(uapi, harvest_strides)
{
	const size_t esz = sizeof(struct drm_mvgal_harvest_entry);
	const size_t big = esz + EXTRA;
	struct drm_mvgal_harvest_entry v0[NBO], v1[NBO];
	uint64_t w0[NBO], w1[NBO], wb[NBO];
	uint8_t *buf;

	ASSERT_EQ(MVGAL_HARVEST_ENTRY_SIZE_V1, esz);
	dirty(_metadata, self->m, self->h);
	ASSERT_EQ(0, harvest(self->fd, v0, 0, esz, w0, self->h, 0));
	ASSERT_EQ(0, harvest(self->fd, v1, MVGAL_HARVEST_ENTRY_SIZE_V1, esz,
			     w1, self->h, 0));
	buf = malloc((NBO + 1) * big);
	ASSERT_NE(NULL, buf);
	/* Input: the bytes past the kernel's entry must be zero. */
	memset(buf, 0, NBO * big);
	memset(elem(buf, NBO, big), GUARD, big);
	ASSERT_EQ(0, harvest(self->fd, buf, big, big, wb, self->h, 0));
	for (uint32_t i = 0; i < NBO; i++) {
		struct drm_mvgal_harvest_entry *e = elem(buf, i, big);

		EXPECT_EQ(1, v0[i].count);
		EXPECT_EQ(1, v0[i].chunks);
		EXPECT_EQ(1ull, w0[i]);
		EXPECT_EQ(v0[i].count, v1[i].count);
		EXPECT_EQ(v0[i].chunks, v1[i].chunks);
		EXPECT_EQ(w0[i], w1[i]);
		EXPECT_EQ(self->h[i], e->handle);
		EXPECT_EQ(v0[i].count, e->count);
		EXPECT_EQ(v0[i].chunks, e->chunks);
		EXPECT_EQ(w0[i], wb[i]);
		EXPECT_TRUE(all_are(e + 1, EXTRA, 0));
	}
	EXPECT_TRUE(all_are(elem(buf, NBO, big), big, GUARD));
	free(buf);
}

/*
 * Non-zero bytes past the kernel's entry are something this kernel cannot
 * honour: -E2BIG, and no entry, output or record changes (a RESET would
 * have cleared the record).
 */
TEST_F(uapi, harvest_nonzero_tail_is_e2big)
{
	const size_t esz = sizeof(struct drm_mvgal_harvest_entry);
	const size_t big = esz + EXTRA;
	uint8_t buf[NBO * (sizeof(struct drm_mvgal_harvest_entry) + EXTRA)];
	uint8_t before[sizeof(buf)];
	struct drm_mvgal_harvest_entry v[NBO];
	uint64_t w[NBO], chk[NBO];

	dirty(_metadata, self->m, self->h);
	/* The first and the last byte of the second entry's tail. */
	for (unsigned int at = 0; at < EXTRA; at += EXTRA - 1) {
		struct drm_mvgal_harvest a = {
			.entries = (uintptr_t)buf, .count = NBO,
			.flags = MVGAL_HARVEST_RESET, .stride = big,
		};

		memset(buf, 0, sizeof(buf));
		for (uint32_t i = 0; i < NBO; i++) {
			struct drm_mvgal_harvest_entry *e = elem(buf, i, big);

			e->handle = self->h[i];
			e->data = (uintptr_t)&w[i];
			e->capacity = 1;
			w[i] = ~0ull;
		}
		((uint8_t *)elem(buf, 1, big))[esz + at] = GUARD;
		memcpy(before, buf, sizeof(buf));
		EXPECT_EQ(-E2BIG, raw(self->fd, DRM_IOCTL_MVGAL_HARVEST, &a))
			TH_LOG("tail byte %u", at);
		EXPECT_EQ(0, memcmp(before, buf, sizeof(buf)));
		for (uint32_t i = 0; i < NBO; i++)
			EXPECT_EQ(~0ull, w[i]);
	}
	/* The records are intact: a peek still sees chunk 0 of each. */
	ASSERT_EQ(0, harvest(self->fd, v, 0, esz, chk, self->h, 0));
	for (uint32_t i = 0; i < NBO; i++)
		EXPECT_EQ(1ull, chk[i]);
}

TEST_F(uapi, harvest_bad_strides_change_nothing)
{
	const uint32_t bad[] = {
		1, MVGAL_HARVEST_ENTRY_SIZE_V1 - 8, MVGAL_STRIDE_MAX + 1, ~0u,
	};
	struct drm_mvgal_harvest_entry e[NBO], before[NBO], v[NBO];
	uint64_t w[NBO], chk[NBO];

	dirty(_metadata, self->m, self->h);
	for (unsigned int i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		struct drm_mvgal_harvest a = {
			.entries = (uintptr_t)e, .count = NBO,
			.flags = MVGAL_HARVEST_RESET,
		};

		for (uint32_t j = 0; j < NBO; j++) {
			e[j] = (struct drm_mvgal_harvest_entry){
				.handle = self->h[j], .data = (uintptr_t)&w[j],
				.capacity = 1, .count = 0x5a5a5a5a,
				.chunks = 0x5a5a5a5a,
			};
			w[j] = ~0ull;
		}
		memcpy(before, e, sizeof(e));
		if (i < sizeof(bad) / sizeof(bad[0]))
			a.stride = bad[i];
		else
			a.pad = 1;
		EXPECT_EQ(-EINVAL, raw(self->fd, DRM_IOCTL_MVGAL_HARVEST, &a))
			TH_LOG("case %u", i);
		EXPECT_EQ(0, memcmp(before, e, sizeof(e)));
		for (uint32_t j = 0; j < NBO; j++)
			EXPECT_EQ(~0ull, w[j]);
	}
	ASSERT_EQ(0, harvest(self->fd, v, 0, sizeof(v[0]), chk, self->h, 0));
	for (uint32_t i = 0; i < NBO; i++)
		EXPECT_EQ(1ull, chk[i]);
}

/* ---- BEGIN and END (drm_mvgal_access) ---- */

static uint32_t live_sessions(struct mvgal *m, uint32_t h)
{
	struct drm_mvgal_bo_info i;

	return mvgal_bo_info(m, h, &i) ? ~0u : i.sessions;
}

/* BEGIN with @n accesses at @stride in @buf (whole buffers, READ). */
static int begin_at(int fd, uint32_t g, void *buf, uint32_t n,
		    uint32_t stride, uint32_t flags, struct drm_mvgal_begin *b)
{
	*b = (struct drm_mvgal_begin){
		.accesses = (uintptr_t)buf, .count = n, .gpu = g,
		.flags = flags, .in_fence_fd = -1,
		.priority = MVGAL_PRIO_NORMAL, .stride = stride,
	};
	return raw(fd, DRM_IOCTL_MVGAL_BEGIN, b);
}

static int end_at(int fd, uint32_t session, void *buf, uint32_t n,
		  uint32_t stride)
{
	struct drm_mvgal_end e = {
		.session = session, .fence_fd = -1, .count = n,
		.written = (uintptr_t)buf, .stride = stride,
	};

	return raw(fd, DRM_IOCTL_MVGAL_END, &e);
}

TEST_F(uapi, begin_end_strides)
{
	const size_t esz = sizeof(struct drm_mvgal_access);
	const uint32_t strides[] = { 0, MVGAL_ACCESS_SIZE_V1, esz + EXTRA };
	struct drm_mvgal_begin b;

	ASSERT_EQ(MVGAL_ACCESS_SIZE_V1, esz);
	for (unsigned int k = 0; k < 3; k++) {
		size_t st = strides[k] ?: esz;
		uint8_t *buf = calloc(NBO + 1, st);

		ASSERT_NE(NULL, buf);
		memset(elem(buf, NBO, st), GUARD, st);
		for (uint32_t i = 0; i < NBO; i++) {
			struct drm_mvgal_access *a = elem(buf, i, st);

			a->handle = self->h[i];
			a->pool_gpu = 0x5a5a5a5a;
			a->pool_offset = 0x5a5a5a5a;
		}
		ASSERT_EQ(0, begin_at(self->fd, self->g0, buf, NBO, strides[k],
				      MVGAL_ACCESS_WRITE, &b))
			TH_LOG("stride %u", strides[k]);
		EXPECT_EQ(0, settle(b.out_fence_fd));
		for (uint32_t i = 0; i < NBO; i++) {
			struct drm_mvgal_access *a = elem(buf, i, st);

			EXPECT_EQ(self->h[i], a->handle);
			EXPECT_EQ((uint32_t)self->g0, a->pool_gpu);
			EXPECT_NE(0x5a5a5a5a, a->pool_offset);
			EXPECT_EQ(0, a->pad);
			EXPECT_TRUE(all_are(a + 1, st - esz, 0));
			EXPECT_EQ(1, live_sessions(self->m, self->h[i]));
		}
		EXPECT_TRUE(all_are(elem(buf, NBO, st), st, GUARD));
		/* END's written list at the same stride: handles only. */
		for (uint32_t i = 0; i < NBO; i++) {
			struct drm_mvgal_access *a = elem(buf, i, st);

			a->pool_gpu = 0;
			a->pool_offset = 0;
		}
		EXPECT_EQ(0, end_at(self->fd, b.session, buf, NBO, strides[k]));
		for (uint32_t i = 0; i < NBO; i++)
			EXPECT_EQ(0, live_sessions(self->m, self->h[i]));
		free(buf);
	}
}

/* A non-zero byte past the kernel's access: -E2BIG, no session. */
TEST_F(uapi, begin_nonzero_tail_is_e2big)
{
	const size_t st = sizeof(struct drm_mvgal_access) + EXTRA;
	uint8_t buf[NBO * (sizeof(struct drm_mvgal_access) + EXTRA)];
	uint8_t before[sizeof(buf)];
	struct drm_mvgal_stats s0, s1;
	struct drm_mvgal_begin b;

	memset(buf, 0, sizeof(buf));
	for (uint32_t i = 0; i < NBO; i++)
		((struct drm_mvgal_access *)elem(buf, i, st))->handle =
			self->h[i];
	((uint8_t *)elem(buf, 2, st))[st - 1] = 1;
	memcpy(before, buf, sizeof(buf));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &s0));
	EXPECT_EQ(-E2BIG, begin_at(self->fd, self->g0, buf, NBO, st,
				   MVGAL_ACCESS_READ, &b));
	EXPECT_EQ(0, b.session);
	EXPECT_EQ(0, b.bytes_copied);
	EXPECT_EQ(0, memcmp(before, buf, sizeof(buf)));
	ASSERT_EQ(0, mvgal_get_stats(self->m, &s1));
	EXPECT_EQ(s0.sessions, s1.sessions);
	EXPECT_EQ(s0.scheduled, s1.scheduled);
	for (uint32_t i = 0; i < NBO; i++)
		EXPECT_EQ(0, live_sessions(self->m, self->h[i]));
}

/* END refuses a bad stride or a non-zero tail and leaves the session. */
TEST_F(uapi, end_rejections_leave_the_session)
{
	const size_t st = sizeof(struct drm_mvgal_access) + EXTRA;
	uint8_t buf[sizeof(struct drm_mvgal_access) + EXTRA];
	const uint32_t bad[] = {
		1, MVGAL_ACCESS_SIZE_V1 - 8, MVGAL_STRIDE_MAX + 1, ~0u,
	};
	struct drm_mvgal_access a;
	uint32_t s;
	int fence;

	ASSERT_EQ(0, begin1(self->m, self->g0, MVGAL_ACCESS_WRITE, self->h[0],
			    0, 0, &a, &s, &fence, NULL));
	EXPECT_EQ(0, settle(fence));
	memset(buf, 0, sizeof(buf));
	((struct drm_mvgal_access *)buf)->handle = self->h[0];
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, end_at(self->fd, s, buf, 1, bad[i]))
			TH_LOG("stride %u", bad[i]);
		/* With no array at all, a bad stride is refused too. */
		EXPECT_EQ(-EINVAL, end_at(self->fd, s, NULL, 0, bad[i]));
	}
	{
		struct drm_mvgal_end e = {
			.session = s, .fence_fd = -1, .pad = 1,
		};

		EXPECT_EQ(-EINVAL, raw(self->fd, DRM_IOCTL_MVGAL_END, &e));
	}
	buf[st - 1] = GUARD;
	EXPECT_EQ(-E2BIG, end_at(self->fd, s, buf, 1, st));
	EXPECT_EQ(1, live_sessions(self->m, self->h[0]));
	buf[st - 1] = 0;
	EXPECT_EQ(0, end_at(self->fd, s, buf, 1, st));
	EXPECT_EQ(0, live_sessions(self->m, self->h[0]));
}

/* ---- the graphics replica threshold, a module parameter since ABI 2 ---- */

static uint32_t graphics_placement(struct mvgal *m, uint32_t h, int g0,
				   int g1)
{
	struct drm_mvgal_advise a = {
		.handle = h, .flags = MVGAL_ADVISE_SET,
		.workload = MVGAL_WORKLOAD_GRAPHICS,
		.preferred = MVGAL_GPU_ANY,
		.accessed_by = (1u << g0) | (1u << g1),
	};

	return mvgal_advise(m, &a) ? ~0u : a.placement;
}

TEST_F(uapi, graphics_replicate_mb_moves_the_rule)
{
	/* h[0] is one chunk: below the default 64 MiB it replicates. */
	EXPECT_EQ(MVGAL_PLACEMENT_REPLICATE,
		  graphics_placement(self->m, self->h[0], self->g0, self->g1));
	ASSERT_EQ(0, write_param(REPLICATE_MB, "0"));
	EXPECT_EQ(MVGAL_PLACEMENT_PIN,
		  graphics_placement(self->m, self->h[0], self->g0, self->g1));
	ASSERT_EQ(0, write_param(REPLICATE_MB, "1"));
	EXPECT_EQ(MVGAL_PLACEMENT_REPLICATE,
		  graphics_placement(self->m, self->h[0], self->g0, self->g1));
	/* Out of range: refused, the value stays. */
	EXPECT_NE(0, write_param(REPLICATE_MB, "1000001"));
	EXPECT_EQ(MVGAL_PLACEMENT_REPLICATE,
		  graphics_placement(self->m, self->h[0], self->g0, self->g1));
	ASSERT_EQ(0, write_param(REPLICATE_MB, "64"));
}

/* ---- libmvgal's sized entry points, with structs larger than it knows ---- */

#define MORE 32
#define LIB_GUARD 0xA5
#define V1_BO_INFO 432	/* sizeof(struct drm_mvgal_bo_info) in ABI 1 */

/* A struct of @n bytes as a later header would have it: @n + MORE. */
static void *bigger(size_t n)
{
	uint8_t *p = malloc(n + MORE);

	if (p)
		memset(p, LIB_GUARD, n + MORE);
	return p;
}

TEST_F(uapi, lib_zeroes_the_tail_of_larger_structs)
{
	struct drm_mvgal_bo_info *bi = bigger(sizeof(*bi));
	struct drm_mvgal_gpu_info *gi = bigger(sizeof(*gi));
	struct drm_mvgal_gpu_link *gl = bigger(sizeof(*gl));
	struct drm_mvgal_stats *st = bigger(sizeof(*st));
	struct drm_mvgal_path *pa = bigger(sizeof(*pa));
	struct mvgal_info *in = bigger(sizeof(*in));

	ASSERT_TRUE(bi && gi && gl && st && pa && in);
	ASSERT_EQ(0, mvgal_bo_info_sz(self->m, self->h[1], bi,
				      sizeof(*bi) + MORE));
	EXPECT_EQ(2 * CH, bi->size);
	EXPECT_TRUE(all_are(bi + 1, MORE, 0));
	ASSERT_EQ(0, mvgal_gpu_info_sz(self->m, self->g0, gi,
				       sizeof(*gi) + MORE));
	EXPECT_EQ((uint32_t)self->g0, gi->gpu);
	EXPECT_TRUE(all_are(gi + 1, MORE, 0));
	ASSERT_EQ(0, mvgal_gpu_link_sz(self->m, self->g0, self->g1, gl,
				       sizeof(*gl) + MORE));
	EXPECT_EQ((uint32_t)self->g1, gl->dst);
	EXPECT_TRUE(all_are(gl + 1, MORE, 0));
	ASSERT_EQ(0, mvgal_get_stats_sz(self->m, st, sizeof(*st) + MORE));
	EXPECT_TRUE(all_are(st + 1, MORE, 0));
	ASSERT_EQ(0, mvgal_get_path_sz(self->m, MVGAL_LOC_HOST, 1 + self->g0,
				       CH, pa, sizeof(*pa) + MORE));
	EXPECT_EQ(1u + self->g0, pa->dst);
	EXPECT_TRUE(all_are(pa + 1, MORE, 0));
	ASSERT_EQ(0, mvgal_get_info_sz(self->m, in, sizeof(*in) + MORE));
	EXPECT_EQ(MVGAL_ABI_VERSION, in->abi_version);
	EXPECT_TRUE(all_are(in + 1, MORE, 0));
	/* ABI 1's struct, smaller than today's: exactly its bytes. */
	memset(bi, LIB_GUARD, sizeof(*bi) + MORE);
	ASSERT_EQ(0, mvgal_bo_info_sz(self->m, self->h[1], bi, V1_BO_INFO));
	EXPECT_EQ(2 * CH, bi->size);
	EXPECT_TRUE(all_are((uint8_t *)bi + V1_BO_INFO,
			    sizeof(*bi) + MORE - V1_BO_INFO, LIB_GUARD));
	/* Smaller than ABI 1's struct: refused, nothing written. */
	memset(bi, LIB_GUARD, sizeof(*bi) + MORE);
	EXPECT_EQ(-EINVAL, mvgal_bo_info_sz(self->m, self->h[1], bi,
					    V1_BO_INFO - 8));
	EXPECT_TRUE(all_are(bi, sizeof(*bi) + MORE, LIB_GUARD));
	free(bi);
	free(gi);
	free(gl);
	free(st);
	free(pa);
	free(in);
}

/* Arrays: the element size reaches the module as the stride. */
TEST_F(uapi, lib_arrays_of_larger_elements)
{
	const size_t esz = sizeof(struct drm_mvgal_lru_entry) + MORE;
	struct drm_mvgal_pool_lru *l = bigger(sizeof(*l));
	uint8_t *e, *r;
	uint32_t nr = 1 + NR_GPUS, n;

	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, place(self->m, self->g0, self->h[0]));
	memset(l, 0, sizeof(*l));
	ASSERT_EQ(0, mvgal_pool_lru_sz(self->m, self->g0, NULL, l, esz,
				       sizeof(*l) + MORE));
	EXPECT_TRUE(all_are(l + 1, MORE, 0));
	n = l->count;
	ASSERT_LE(1, n);
	e = malloc((n + 1) * esz);
	ASSERT_NE(NULL, e);
	memset(e, LIB_GUARD, (n + 1) * esz);
	memset(l, 0, sizeof(*l));
	l->count = n;
	ASSERT_EQ(0, mvgal_pool_lru_sz(self->m, self->g0,
				       (struct drm_mvgal_lru_entry *)e, l, esz,
				       sizeof(*l) + MORE));
	EXPECT_EQ(0, l->stride);
	for (uint32_t i = 0; i < n; i++) {
		struct drm_mvgal_lru_entry *x = elem(e, i, esz);

		EXPECT_NE(0, x->bytes);
		EXPECT_TRUE(all_are(x + 1, MORE, 0));
	}
	EXPECT_TRUE(all_are(elem(e, n, esz), esz, LIB_GUARD));

	r = malloc((nr + 1) * (sizeof(struct drm_mvgal_heap_region) + MORE));
	ASSERT_NE(NULL, r);
	memset(r, LIB_GUARD,
	       (nr + 1) * (sizeof(struct drm_mvgal_heap_region) + MORE));
	ASSERT_EQ(0, mvgal_get_heap_sz(self->m,
				       (struct drm_mvgal_heap_region *)r, &nr,
				       NULL, NULL,
				       sizeof(struct drm_mvgal_heap_region) + MORE));
	EXPECT_EQ(1 + NR_GPUS, nr);
	for (uint32_t i = 0; i < nr; i++) {
		struct drm_mvgal_heap_region *x =
			elem(r, i, sizeof(*x) + MORE);

		EXPECT_EQ(i ? MVGAL_REGION_POOL : MVGAL_REGION_SYSTEM, x->kind);
		EXPECT_TRUE(all_are(x + 1, MORE, 0));
	}
	free(l);
	free(e);
	free(r);
}

/*
 * In-out structs: bytes past what the library knows are a request it
 * cannot honour unless 0 (-E2BIG, nothing done); with zeros they come
 * back zero.
 */
TEST_F(uapi, lib_inout_structs_with_tails)
{
	struct drm_mvgal_advise *ad = bigger(sizeof(*ad));
	struct drm_mvgal_migrate *mg = bigger(sizeof(*mg));
	uint8_t before[sizeof(*mg) + MORE];

	ASSERT_TRUE(ad && mg);
	memset(ad, 0, sizeof(*ad));
	ad->handle = self->h[0];
	EXPECT_EQ(-E2BIG, mvgal_advise_sz(self->m, ad, sizeof(*ad) + MORE));
	memset(ad + 1, 0, MORE);
	ASSERT_EQ(0, mvgal_advise_sz(self->m, ad, sizeof(*ad) + MORE));
	EXPECT_EQ(MVGAL_PLACEMENT_HOST, ad->placement);
	EXPECT_TRUE(all_are(ad + 1, MORE, 0));

	memset(mg, 0, sizeof(*mg));
	mg->handle = self->h[0];
	mg->size = CH;
	mg->location = 1 + self->g1;
	mg->in_fence_fd = -1;
	mg->priority = MVGAL_PRIO_NORMAL;
	memset(mg + 1, LIB_GUARD, MORE);
	memcpy(before, mg, sizeof(before));
	EXPECT_EQ(-E2BIG, mvgal_migrate_sz(self->m, mg, sizeof(*mg) + MORE));
	EXPECT_EQ(0, memcmp(before, mg, sizeof(before)));
	memset(mg + 1, 0, MORE);
	ASSERT_EQ(0, mvgal_migrate_sz(self->m, mg, sizeof(*mg) + MORE));
	EXPECT_EQ(CH, mg->bytes);
	EXPECT_EQ(0, settle(mg->out_fence_fd));
	EXPECT_TRUE(all_are(mg + 1, MORE, 0));
	free(ad);
	free(mg);
}

TEST_HARNESS_MAIN
