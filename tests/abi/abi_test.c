// SPDX-License-Identifier: GPL-2.0
/*
 * A program built against ABI 1's headers (tests/abi/v1) and run with
 * today's libmvgal.so and module: every call that fills memory of the
 * caller writes no byte past ABI 1's struct or array (the guard bytes
 * after each stay ABI_GUARD), reads no byte past it (a configuration at
 * the end of a page), and the data is right.
 * Not in the stand-in pass (run-selftests.sh): what it checks is the
 * layout of what the calls fill, the same whatever the GPU.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <xf86drm.h>

#include "kselftest_harness.h"
#include "../selftests/helpers.h"
#include "../selftests/coherence.h"
#include "abi.h"

FIXTURE(abi) {
	COH_FIELDS;
	uint32_t h;	/* a buffer of 3 chunks */
};

FIXTURE_SETUP(abi)
{
	COH_SETUP(self);
	ASSERT_EQ(0, host_bo(self->m, 3 * CH, &self->h));
}

FIXTURE_TEARDOWN(abi)
{
	mvgal_bo_destroy(self->m, self->h);
	coh_teardown(self->m, self->pool);
}

TEST_F(abi, get_info)
{
	struct mvgal_info *i = abi_guarded(sizeof(*i));

	ASSERT_NE(NULL, i);
	ASSERT_EQ(0, mvgal_get_info(self->m, i));
	EXPECT_TRUE(abi_guard_ok(i, sizeof(*i)));
	EXPECT_EQ(2, i->abi_version);	/* today's module */
	EXPECT_EQ(CH, i->chunk_size);
	EXPECT_EQ(MVGAL_MAX_GPUS, i->max_gpus);
	EXPECT_EQ(NR_GPUS, i->gpu_count);
	free(i);
}

TEST_F(abi, gpu_info_and_link)
{
	struct drm_mvgal_gpu_info *gi = abi_guarded(sizeof(*gi));
	struct drm_mvgal_gpu_link *l = abi_guarded(sizeof(*l));

	ASSERT_NE(NULL, gi);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g0, gi));
	EXPECT_TRUE(abi_guard_ok(gi, sizeof(*gi)));
	EXPECT_EQ((uint32_t)self->g0, gi->gpu);
	EXPECT_STREQ("virtio_gpu", gi->driver);
	EXPECT_LT(0, gi->pool_size);
	ASSERT_EQ(0, mvgal_gpu_link(self->m, self->g0, self->g1, l));
	EXPECT_TRUE(abi_guard_ok(l, sizeof(*l)));
	EXPECT_EQ((uint32_t)self->g0, l->src);
	EXPECT_EQ((uint32_t)self->g1, l->dst);
	free(gi);
	free(l);
}

TEST_F(abi, get_heap)
{
	uint32_t nr = 0, nn = 0;
	struct drm_mvgal_heap_region *r, *n;

	ASSERT_EQ(0, mvgal_get_heap(self->m, NULL, &nr, NULL, &nn));
	ASSERT_EQ(1 + NR_GPUS, nr);
	ASSERT_LE(1, nn);
	r = abi_guarded(nr * sizeof(*r));
	n = abi_guarded(nn * sizeof(*n));
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, n);
	ASSERT_EQ(0, mvgal_get_heap(self->m, r, &nr, n, &nn));
	EXPECT_TRUE(abi_guard_ok(r, nr * sizeof(*r)));
	EXPECT_TRUE(abi_guard_ok(n, nn * sizeof(*n)));
	EXPECT_EQ(MVGAL_REGION_SYSTEM, r[0].kind);
	for (uint32_t i = 1; i < nr; i++) {
		EXPECT_EQ(MVGAL_REGION_POOL, r[i].kind);
		EXPECT_LT(0, r[i].total);
	}
	for (uint32_t i = 0; i < nn; i++)
		EXPECT_EQ(MVGAL_REGION_NODE, n[i].kind);
	free(r);
	free(n);
}

TEST_F(abi, bo_info_and_list)
{
	struct drm_mvgal_bo_info *bi = abi_guarded(sizeof(*bi));
	struct drm_mvgal_bo_entry *e;
	uint32_t n = 0;
	bool found = false;

	ASSERT_NE(NULL, bi);
	ASSERT_EQ(0, mvgal_bo_info(self->m, self->h, bi));
	EXPECT_TRUE(abi_guard_ok(bi, sizeof(*bi)));
	EXPECT_EQ(3 * CH, bi->size);
	EXPECT_EQ(CH, bi->chunk_size);
	EXPECT_EQ(MVGAL_GPU_ANY, bi->gpu);

	ASSERT_EQ(0, mvgal_bo_list(self->m, NULL, &n));
	ASSERT_LE(1, n);
	e = abi_guarded(n * sizeof(*e));
	ASSERT_NE(NULL, e);
	ASSERT_EQ(0, mvgal_bo_list(self->m, e, &n));
	EXPECT_TRUE(abi_guard_ok(e, n * sizeof(*e)));
	for (uint32_t i = 0; i < n; i++)
		if (e[i].id == bi->id) {
			found = true;
			EXPECT_EQ(3 * CH, e[i].info.size);
		}
	EXPECT_TRUE(found);
	free(bi);
	free(e);
}

TEST_F(abi, sessions_stats_and_path)
{
	struct drm_mvgal_access *a = abi_guarded(sizeof(*a));
	struct drm_mvgal_range r = { .offset = 0, .size = CH };
	struct drm_mvgal_stats *st = abi_guarded(sizeof(*st));
	struct drm_mvgal_path *p = abi_guarded(sizeof(*p));
	uint32_t s;
	int fence;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, st);
	ASSERT_NE(NULL, p);
	memset(a, 0, sizeof(*a));
	a->handle = self->h;
	a->nr_ranges = 1;
	a->ranges = (uintptr_t)&r;
	ASSERT_EQ(0, mvgal_begin(self->m, self->g0, MVGAL_ACCESS_WRITE,
				 MVGAL_PRIO_NORMAL, -1, a, 1, &s, &fence, NULL));
	EXPECT_TRUE(abi_guard_ok(a, sizeof(*a)));
	EXPECT_EQ((uint32_t)self->g0, a->pool_gpu);
	EXPECT_EQ(0, settle(fence));
	a->pool_gpu = 0;
	a->pool_offset = 0;
	EXPECT_EQ(0, mvgal_end(self->m, s, -1, a, 1));
	EXPECT_TRUE(abi_guard_ok(a, sizeof(*a)));

	ASSERT_EQ(0, mvgal_get_stats(self->m, st));
	EXPECT_TRUE(abi_guard_ok(st, sizeof(*st)));
	EXPECT_LE(1, st->sessions);
	ASSERT_EQ(0, mvgal_get_path(self->m, MVGAL_LOC_HOST, 1 + self->g0,
				    CH, p));
	EXPECT_TRUE(abi_guard_ok(p, sizeof(*p)));
	EXPECT_EQ(MVGAL_LOC_HOST, p->src);
	EXPECT_EQ(1u + self->g0, p->dst);
	free(a);
	free(st);
	free(p);
}

TEST_F(abi, migrate_and_pool_lru)
{
	struct drm_mvgal_migrate *mg = abi_guarded(sizeof(*mg));
	struct drm_mvgal_pool_lru *l = abi_guarded(sizeof(*l));
	struct drm_mvgal_lru_entry *e;
	uint32_t n;

	ASSERT_NE(NULL, mg);
	ASSERT_NE(NULL, l);
	memset(mg, 0, sizeof(*mg));
	mg->handle = self->h;
	mg->size = 3 * CH;
	mg->location = 1 + self->g0;
	mg->priority = MVGAL_PRIO_NORMAL;
	mg->in_fence_fd = -1;
	ASSERT_EQ(0, mvgal_migrate(self->m, mg));
	EXPECT_TRUE(abi_guard_ok(mg, sizeof(*mg)));
	EXPECT_EQ(3 * CH, mg->bytes);
	EXPECT_EQ(0, settle(mg->out_fence_fd));

	/* The pool_lru struct grew in ABI 2: the old one must not. */
	memset(l, 0, sizeof(*l));
	ASSERT_EQ(0, mvgal_pool_lru(self->m, self->g0, NULL, l));
	EXPECT_TRUE(abi_guard_ok(l, sizeof(*l)));
	n = l->count;
	ASSERT_LE(1, n);
	e = abi_guarded(n * sizeof(*e));
	ASSERT_NE(NULL, e);
	memset(l, 0, sizeof(*l));
	l->count = n;
	ASSERT_EQ(0, mvgal_pool_lru(self->m, self->g0, e, l));
	EXPECT_TRUE(abi_guard_ok(l, sizeof(*l)));
	EXPECT_TRUE(abi_guard_ok(e, n * sizeof(*e)));
	EXPECT_LE((uint64_t)3 * CH, l->used);
	EXPECT_NE(0, e[0].bytes);
	free(mg);
	free(l);
	free(e);
}

TEST_F(abi, harvest_and_advise)
{
	struct drm_mvgal_harvest_entry *e = abi_guarded(sizeof(*e));
	struct drm_mvgal_advise *ad = abi_guarded(sizeof(*ad));
	uint64_t word = 0;
	uint8_t b = 1;

	ASSERT_NE(NULL, e);
	ASSERT_NE(NULL, ad);
	ASSERT_EQ(0, mvgal_bo_write(self->m, self->h, CH, &b, 1));
	memset(e, 0, sizeof(*e));
	e->handle = self->h;
	e->data = (uintptr_t)&word;
	e->capacity = 1;
	ASSERT_EQ(0, mvgal_harvest(self->m, MVGAL_HARVEST_RESET, e, 1));
	EXPECT_TRUE(abi_guard_ok(e, sizeof(*e)));
	EXPECT_EQ(1, e->count);
	EXPECT_EQ(1, e->chunks);
	EXPECT_EQ(2ull, word);

	memset(ad, 0, sizeof(*ad));
	ad->handle = self->h;
	ASSERT_EQ(0, mvgal_advise(self->m, ad));
	EXPECT_TRUE(abi_guard_ok(ad, sizeof(*ad)));
	EXPECT_EQ(MVGAL_WORKLOAD_NONE, ad->workload);
	EXPECT_EQ(MVGAL_PLACEMENT_HOST, ad->placement);
	free(e);
	free(ad);
}

/*
 * The configuration calls with a device: defaults and attach_all read
 * and write only the old struct, which ends where a page ends.
 */
TEST_F(abi, config_and_attach_all)
{
	struct mvgal_config *c = abi_guarded(sizeof(*c));
	struct mvgal_config *f = abi_fenced(sizeof(*f));

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, f);
	mvgal_config_defaults(c);
	EXPECT_TRUE(abi_guard_ok(c, sizeof(*c)));
	EXPECT_EQ(2, c->mirror_hold_windows);
	mvgal_config_defaults(f);
	for (int g = 0; g < MVGAL_MAX_GPUS; g++)
		f->memory_limit_mb[g] = POOL_MB;
	/* Every GPU is attached already: none new, no error. */
	EXPECT_EQ(0, mvgal_attach_all(self->m, f, NULL, NULL));
	EXPECT_EQ(NR_GPUS, gpu_count(self->m));
	free(c);
	abi_fenced_free(f, sizeof(*f));
}

TEST_HARNESS_MAIN
