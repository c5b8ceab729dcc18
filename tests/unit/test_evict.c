// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the eviction order (kernel/core/mvgal_evict.c): the
 * reuse record, the order of candidates, and the policy replayed over the
 * benchmark's access traces next to Belady's MIN and a plain LRU
 * (tests/bench/mvgal_trace.h), as the module would run it: one clock
 * tick per use, the victim chosen before the new use is recorded.
 */
#include <stdlib.h>

#include "core/mvgal_evict.h"
#include "kselftest_harness.h"
#include "../bench/mvgal_trace.h"

TEST(reuse_record)
{
	struct mvgal_reuse r = { 0 };

	EXPECT_EQ(MVGAL_REUSE_NEVER, mvgal_reuse_ahead(&r, 5));
	mvgal_reuse_touch(&r, 10);
	EXPECT_EQ(MVGAL_REUSE_NEVER, mvgal_reuse_ahead(&r, 11));
	mvgal_reuse_touch(&r, 18);
	EXPECT_EQ(8, r.period);
	EXPECT_EQ(8, mvgal_reuse_ahead(&r, 18));
	EXPECT_EQ(3, mvgal_reuse_ahead(&r, 23));
	/* Overdue: the next beat. */
	EXPECT_EQ(6, mvgal_reuse_ahead(&r, 28));
	EXPECT_EQ(8, mvgal_reuse_ahead(&r, 34));
	mvgal_reuse_touch(&r, 26);
	EXPECT_EQ(7, mvgal_reuse_ahead(&r, 27));
	/* A stray use off the beat keeps period and beat... */
	mvgal_reuse_touch(&r, 29);
	EXPECT_EQ(8, r.period);
	EXPECT_EQ(29, r.last);
	EXPECT_EQ(5, mvgal_reuse_ahead(&r, 29));
	/* ...and the next use on the beat moves it. */
	mvgal_reuse_touch(&r, 34);
	EXPECT_EQ(8, mvgal_reuse_ahead(&r, 34));
}

/* Two strays in a row: the period is learnt again from the last gap. */
TEST(reuse_relearns_a_changed_period)
{
	struct mvgal_reuse r = { 0 };

	mvgal_reuse_touch(&r, 10);
	mvgal_reuse_touch(&r, 18);
	mvgal_reuse_touch(&r, 21);
	EXPECT_EQ(8, r.period);
	mvgal_reuse_touch(&r, 36);
	EXPECT_EQ(15, r.period);
	EXPECT_EQ(36, r.beat);
}

/* Gaps all over the place: no beat, the next use at 1.5 mean gaps. */
TEST(reuse_irregular_gaps)
{
	struct mvgal_reuse r = { 0 };
	unsigned long long t[] = { 10, 12, 30, 31, 60, 61, 90 };

	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++)
		mvgal_reuse_touch(&r, t[i]);
	EXPECT_GT(r.dev * 4, r.mean);
	EXPECT_EQ((r.mean * 3 / 2 + 15) / 16, mvgal_reuse_ahead(&r, 90));
	EXPECT_EQ(mvgal_reuse_ahead(&r, 90), mvgal_reuse_ahead(&r, 95));
}

TEST(order_predict_then_lru)
{
	struct mvgal_evict_cand c[] = {
		{ .last = 5, .ahead = 3, .index = 0 },
		{ .last = 2, .ahead = MVGAL_REUSE_NEVER, .index = 1 },
		{ .last = 9, .ahead = 40, .index = 2 },
		{ .last = 1, .ahead = 40, .index = 3 },
		{ .last = 7, .ahead = MVGAL_REUSE_NEVER, .index = 4 },
	};
	struct mvgal_evict_cand l[ARRAY_SIZE(c)];
	unsigned int want_p[] = { 1, 4, 3, 2, 0 }, want_l[] = { 3, 1, 0, 4, 2 };

	memcpy(l, c, sizeof(c));
	mvgal_evict_order(c, ARRAY_SIZE(c), MVGAL_EVICT_PREDICT);
	mvgal_evict_order(l, ARRAY_SIZE(l), MVGAL_EVICT_LRU);
	for (unsigned int i = 0; i < ARRAY_SIZE(c); i++) {
		EXPECT_EQ(want_p[i], c[i].index);
		EXPECT_EQ(want_l[i], l[i].index);
	}
}

struct policy {
	enum mvgal_evict_policy kind;
	struct mvgal_reuse *r;
	unsigned long long clock;
};

static unsigned int policy_victim(void *ctx, const unsigned int *res,
				  unsigned int nres, size_t pos,
				  const unsigned int *t, size_t n)
{
	struct policy *p = ctx;
	struct mvgal_evict_cand c[64];

	for (unsigned int i = 0; i < nres; i++)
		c[i] = (struct mvgal_evict_cand){
			.last = p->r[res[i]].last,
			.ahead = mvgal_reuse_ahead(&p->r[res[i]], p->clock),
			.index = i,
		};
	mvgal_evict_order(c, nres, p->kind);
	return c[0].index;
}

static const unsigned int *trace_now;

static void policy_touch(void *ctx, unsigned int slot, size_t pos, bool hit)
{
	struct policy *p = ctx;

	mvgal_reuse_touch(&p->r[trace_now[pos]], ++p->clock);
}

static ssize_t replay(const unsigned int *t, size_t n, unsigned int w,
		      unsigned int c, enum mvgal_evict_policy kind)
{
	struct mvgal_reuse r[256] = { 0 };
	struct policy p = { .kind = kind, .r = r };
	const struct mvgal_trace_ops ops = {
		.victim = policy_victim, .touch = policy_touch,
	};

	trace_now = t;
	return mvgal_trace_simulate_ops(t, n, w, c, &ops, &p);
}

/*
 * The benchmark's traces, over a working set twice the pool. The goal is
 * 0.9 of MIN's hits on the looping and mixed traces (here 0.997..0.999
 * and 0.925..0.935). The noisy loop, whose random accesses no predictor
 * of the past can foresee, is only reported (0.77..0.78; a policy that
 * knows the loop's phase gets 0.87). The LRU order of the module must be
 * a true LRU.
 */
TEST(policy_against_belady)
{
	const size_t n = 20000;
	unsigned int *t = malloc(n * sizeof(*t));
	unsigned int sizes[][2] = { { 32, 16 }, { 16, 8 }, { 64, 32 } };

	ASSERT_NE(NULL, t);
	for (unsigned int s = 0; s < ARRAY_SIZE(sizes); s++) {
		unsigned int w = sizes[s][0], c = sizes[s][1];

		for (int k = 0; k < MVGAL_TRACE_NKINDS; k++) {
			ssize_t opt, pred, lru, ref;

			ASSERT_EQ(0, mvgal_trace_gen(k, t, n, w, c, 1 + s));
			opt = mvgal_trace_belady(t, n, w, c);
			ref = mvgal_trace_lru(t, n, w, c);
			pred = replay(t, n, w, c, MVGAL_EVICT_PREDICT);
			lru = replay(t, n, w, c, MVGAL_EVICT_LRU);
			TH_LOG("w %u c %u %-8s MIN %zd predict %zd (%.3f) lru %zd",
			       w, c, mvgal_trace_name(k), opt, pred,
			       (double)pred / opt, lru);
			EXPECT_EQ(ref, lru);
			EXPECT_LE(pred, opt);
			if (k == MVGAL_TRACE_LOOP || k == MVGAL_TRACE_MIX)
				EXPECT_GE(pred * 10, opt * 9);
			/* LRU gets nothing or little on these. */
			if (k == MVGAL_TRACE_LOOP || k == MVGAL_TRACE_MIX)
				EXPECT_GT(pred, 4 * lru);
		}
	}
	free(t);
}

TEST_HARNESS_MAIN
