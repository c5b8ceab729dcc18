// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the cache-replay benchmark's traces and reference policies
 * (tests/bench/mvgal_trace.h).
 *
 * Belady's MIN is the yardstick the kernel's hit ratio is judged by, so it
 * is checked four ways: on the textbook example worked by hand, against a
 * brute force over every victim choice on small traces, against a second,
 * naive oracle that searches the trace ahead, and against the closed form
 * for the looping trace. The generators are checked against the
 * definitions their comments give.
 */
#include <stdlib.h>
#include <string.h>

#include "../bench/mvgal_trace.h"
#include "kselftest_harness.h"

#define NSEEDS 6

static unsigned int *new_trace(enum mvgal_trace_kind kind, size_t n,
			       unsigned int w, unsigned int c, uint64_t seed)
{
	unsigned int *t = malloc(sizeof(*t) * (n ? n : 1));

	if (t && mvgal_trace_gen(kind, t, n, w, c, seed)) {
		free(t);
		t = NULL;
	}
	return t;
}

/* Buffers used at least once: a lower bound on the misses of any policy. */
static size_t distinct(const unsigned int *t, size_t n, unsigned int w)
{
	bool *seen = calloc(w, sizeof(*seen));
	size_t i, d = 0;

	for (i = 0; i < n; i++)
		if (!seen[t[i]]) {
			seen[t[i]] = true;
			d++;
		}
	free(seen);
	return d;
}

/* FIFO: slots fill in order and each victim's slot takes the newcomer,
 * so the oldest arrival is always the next slot round-robin.
 */
static unsigned int fifo_victim(void *ctx, const unsigned int *res,
				unsigned int nres, size_t pos,
				const unsigned int *t, size_t n)
{
	unsigned int *next = ctx, v = *next;

	*next = (v + 1) % nres;
	return v;
}

static unsigned int random_victim(void *ctx, const unsigned int *res,
				  unsigned int nres, size_t pos,
				  const unsigned int *t, size_t n)
{
	return mvgal_trace_rng_below(ctx, nres);
}

/* MIN written the slow, obvious way: search the trace ahead of @pos. */
static unsigned int ahead_victim(void *ctx, const unsigned int *res,
				 unsigned int nres, size_t pos,
				 const unsigned int *t, size_t n)
{
	unsigned int s, v = 0;
	size_t far = 0, j;

	for (s = 0; s < nres; s++) {
		for (j = pos + 1; j < n && t[j] != res[s]; j++)
			;
		if (j > far) {
			far = j;
			v = s;
		}
	}
	return v;
}

/* LRU written the slow way: search the trace behind @pos. */
static unsigned int behind_victim(void *ctx, const unsigned int *res,
				  unsigned int nres, size_t pos,
				  const unsigned int *t, size_t n)
{
	unsigned int s, v = 0;
	size_t old = pos, j;

	for (s = 0; s < nres; s++) {
		for (j = pos; j-- > 0 && t[j] != res[s];)
			;
		/* Resident, so used before: j did not wrap. */
		if (j < old) {
			old = j;
			v = s;
		}
	}
	return v;
}

/* The most hits any sequence of victim choices gets from @pos on. */
static size_t brute(const unsigned int *t, size_t n, size_t pos,
		    unsigned int c, unsigned int mask)
{
	unsigned int bit, r;
	size_t best = 0, h;

	if (pos == n)
		return 0;
	bit = 1U << t[pos];
	if (mask & bit)
		return 1 + brute(t, n, pos + 1, c, mask);
	if ((unsigned int)__builtin_popcount(mask) < c)
		return brute(t, n, pos + 1, c, mask | bit);
	for (r = 0; r < 32; r++) {
		if (!(mask & (1U << r)))
			continue;
		h = brute(t, n, pos + 1, c, (mask & ~(1U << r)) | bit);
		if (h > best)
			best = h;
	}
	return best;
}

TEST(names)
{
	EXPECT_STREQ("looping", mvgal_trace_name(MVGAL_TRACE_LOOP));
	EXPECT_STREQ("random", mvgal_trace_name(MVGAL_TRACE_RANDOM));
	EXPECT_STREQ("scan", mvgal_trace_name(MVGAL_TRACE_SCAN));
	EXPECT_STREQ("mixed", mvgal_trace_name(MVGAL_TRACE_MIX));
	EXPECT_STREQ("noisy-loop", mvgal_trace_name(MVGAL_TRACE_NOISY));
	EXPECT_NULL(mvgal_trace_name(MVGAL_TRACE_NKINDS));
}

/* Silberschatz's reference string: OPT 9 faults, LRU 12, FIFO 15. */
TEST(textbook_example)
{
	static const unsigned int t[] = {
		7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1,
	};
	size_t n = ARRAY_SIZE(t);
	unsigned int fifo = 0;

	EXPECT_EQ(20U, n);
	EXPECT_EQ(11, mvgal_trace_belady(t, n, 8, 3));
	EXPECT_EQ(8, mvgal_trace_lru(t, n, 8, 3));
	EXPECT_EQ(5, mvgal_trace_simulate(t, n, 8, 3, fifo_victim, &fifo));
	/* Room for all 6 distinct pages: only the compulsory misses. */
	EXPECT_EQ(14, mvgal_trace_belady(t, n, 8, 6));
	EXPECT_EQ(14, mvgal_trace_lru(t, n, 8, 6));
	/* One page: a hit only on an immediate repeat, of which none. */
	EXPECT_EQ(0, mvgal_trace_belady(t, n, 8, 1));
}

TEST(belady_matches_brute_force)
{
	static const struct {
		unsigned int w, c;
		size_t n;
	} cf[] = { { 5, 2, 12 }, { 4, 2, 14 }, { 6, 3, 11 }, { 5, 1, 12 } };
	unsigned int x, t[16];

	/* Every shape, RANDOM and NOISY, 3 * NSEEDS seeds each. */
	for (x = 0; x < ARRAY_SIZE(cf) * 2 * 3 * NSEEDS; x++) {
		unsigned int i = x / (2 * 3 * NSEEDS), seed = x % (3 * NSEEDS);
		enum mvgal_trace_kind k = x / (3 * NSEEDS) % 2 ?
					  MVGAL_TRACE_NOISY : MVGAL_TRACE_RANDOM;
		unsigned int w = cf[i].w, c = cf[i].c;
		size_t n = cf[i].n;
		ssize_t best;

		ASSERT_EQ(0, mvgal_trace_gen(k, t, n, w, c, seed));
		best = brute(t, n, 0, c, 0);
		ASSERT_EQ(best, mvgal_trace_belady(t, n, w, c))
			TH_LOG("w %u c %u %s seed %u", w, c,
			       mvgal_trace_name(k), seed);
	}
}

TEST(belady_matches_a_naive_oracle_and_lru_a_naive_lru)
{
	static const unsigned int wc[][2] = { { 32, 16 }, { 24, 8 }, { 9, 4 } };
	size_t n = 3000;
	unsigned int x;

	/* Every shape, every kind, seeds 1 and 2. */
	for (x = 0; x < ARRAY_SIZE(wc) * MVGAL_TRACE_NKINDS * 2; x++) {
		unsigned int w = wc[x / (MVGAL_TRACE_NKINDS * 2)][0];
		unsigned int c = wc[x / (MVGAL_TRACE_NKINDS * 2)][1];
		enum mvgal_trace_kind k = x / 2 % MVGAL_TRACE_NKINDS;
		unsigned int seed = 1 + x % 2;
		unsigned int *t = new_trace(k, n, w, c, seed);
		ssize_t slow;

		ASSERT_NE(NULL, t);
		slow = mvgal_trace_simulate(t, n, w, c, ahead_victim, NULL);
		EXPECT_EQ(slow, mvgal_trace_belady(t, n, w, c))
			TH_LOG("w %u c %u %s seed %u", w, c,
			       mvgal_trace_name(k), seed);
		slow = mvgal_trace_simulate(t, n, w, c, behind_victim, NULL);
		EXPECT_EQ(slow, mvgal_trace_lru(t, n, w, c))
			TH_LOG("w %u c %u %s seed %u", w, c,
			       mvgal_trace_name(k), seed);
		free(t);
	}
}

/* No policy beats MIN, and none beats having only compulsory misses. */
TEST(belady_beats_lru_fifo_and_random_victims)
{
	static const unsigned int wc[][2] = { { 32, 16 }, { 64, 32 },
					      { 20, 5 }, { 128, 64 } };
	size_t n = 20000;
	unsigned int x, rs;

	/* Every shape, every kind, seeds 1..NSEEDS. */
	for (x = 0; x < ARRAY_SIZE(wc) * MVGAL_TRACE_NKINDS * NSEEDS; x++) {
		unsigned int w = wc[x / (MVGAL_TRACE_NKINDS * NSEEDS)][0];
		unsigned int c = wc[x / (MVGAL_TRACE_NKINDS * NSEEDS)][1];
		enum mvgal_trace_kind k = x / NSEEDS % MVGAL_TRACE_NKINDS;
		unsigned int seed = 1 + x % NSEEDS, fifo = 0;
		unsigned int *t = new_trace(k, n, w, c, seed);
		ssize_t opt, bound;

		ASSERT_NE(NULL, t);
		opt = mvgal_trace_belady(t, n, w, c);
		ASSERT_LE(0, opt);
		bound = n - distinct(t, n, w);
		EXPECT_GE(bound, opt);
		EXPECT_GE(opt, mvgal_trace_lru(t, n, w, c))
			TH_LOG("w %u c %u %s seed %u", w, c,
			       mvgal_trace_name(k), seed);
		EXPECT_GE(opt, mvgal_trace_simulate(t, n, w, c, fifo_victim,
						    &fifo));
		for (rs = 0; rs < 3; rs++) {
			struct mvgal_trace_rng r;

			mvgal_trace_rng_init(&r, 100 + rs);
			EXPECT_GE(opt, mvgal_trace_simulate(t, n, w, c,
							    random_victim,
							    &r))
				TH_LOG("w %u c %u %s seed %u", w, c,
				       mvgal_trace_name(k), seed);
		}
		free(t);
	}
}

/* The closed form of mvgal_trace_loop_belady(), for every small shape. */
TEST(loop_belady_closed_form_and_lru_gets_nothing)
{
	unsigned int w, c;
	size_t n;

	for (w = 2; w <= 12; w++)
		for (c = 1; c < w; c++)
			for (n = 0; n <= 6 * w; n++) {
				unsigned int *t;
				ssize_t want = mvgal_trace_loop_belady(n, w, c);

				t = new_trace(MVGAL_TRACE_LOOP, n, w, c, 0);
				ASSERT_NE(NULL, t);
				ASSERT_EQ(want, mvgal_trace_belady(t, n, w, c))
					TH_LOG("w %u c %u n %zu", w, c, n);
				ASSERT_EQ(0, mvgal_trace_lru(t, n, w, c));
				free(t);
			}
}

/* The benchmark's shape, w = 2c: MIN keeps c - 1 of every 2c - 1. */
TEST(loop_twice_the_pool)
{
	static const unsigned int cs[] = { 2, 8, 16, 64 };
	size_t n = 100000;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cs); i++) {
		unsigned int c = cs[i], w = 2 * c;
		unsigned int *t = new_trace(MVGAL_TRACE_LOOP, n, w, c, 0);
		size_t m = n - w;
		ssize_t opt;

		ASSERT_NE(NULL, t);
		opt = mvgal_trace_belady(t, n, w, c);
		EXPECT_EQ((ssize_t)mvgal_trace_loop_belady(n, w, c), opt);
		/* Whole periods of 2c - 1 after the first lap, and a part. */
		EXPECT_LE((ssize_t)(m / (w - 1) * (c - 1)), opt);
		EXPECT_GE((ssize_t)(m / (w - 1) * (c - 1) + c - 1), opt);
		EXPECT_EQ(0, mvgal_trace_lru(t, n, w, c));
		free(t);
	}
}

TEST(generators_are_deterministic_and_in_range)
{
	static const unsigned int wc[][2] = { { 32, 16 }, { 3, 2 },
					      { 1000, 64 }, { 2, 3 },
					      { 3, 8 } };
	size_t n = 10000, i;
	unsigned int j, k, seed;

	for (j = 0; j < ARRAY_SIZE(wc); j++)
		for (k = 0; k < MVGAL_TRACE_NKINDS; k++)
			for (seed = 0; seed < NSEEDS; seed++) {
				unsigned int w = wc[j][0], c = wc[j][1];
				unsigned int *a = new_trace(k, n, w, c, seed);
				unsigned int *b = new_trace(k, n, w, c, seed);
				unsigned int *o = new_trace(k, n, w, c,
							    seed + 1);
				bool seeded = k == MVGAL_TRACE_RANDOM ||
					      k == MVGAL_TRACE_MIX ||
					      k == MVGAL_TRACE_NOISY;

				if ((k == MVGAL_TRACE_SCAN && c / 2 >= w) ||
				    (k == MVGAL_TRACE_MIX &&
				     (!(c / 4) || c / 4 + c / 2 >= w))) {
					EXPECT_NULL(a);	/* an empty set */
					continue;
				}
				ASSERT_NE(NULL, a);
				ASSERT_NE(NULL, b);
				ASSERT_NE(NULL, o);
				EXPECT_EQ(0, memcmp(a, b, sizeof(*a) * n));
				/* Only the random kinds depend on the seed. */
				EXPECT_EQ(seeded,
					  !!memcmp(a, o, sizeof(*a) * n))
					TH_LOG("w %u %s seed %u", w,
					       mvgal_trace_name(k), seed);
				for (i = 0; i < n; i++)
					ASSERT_GT(w, a[i]);
				free(a);
				free(b);
				free(o);
			}
}

TEST(bad_arguments)
{
	unsigned int g[4], t[4] = { 0, 1, 4, 3 }, slot = 7;

	EXPECT_EQ(-EINVAL, mvgal_trace_gen(MVGAL_TRACE_NKINDS, g, 4, 4, 2, 1));
	EXPECT_EQ(-EINVAL, mvgal_trace_gen(MVGAL_TRACE_LOOP, g, 4, 0, 2, 1));
	/* SCAN needs a hot buffer and a cold one. */
	EXPECT_EQ(-EINVAL, mvgal_trace_gen(MVGAL_TRACE_SCAN, g, 4, 4, 1, 1));
	EXPECT_EQ(-EINVAL, mvgal_trace_gen(MVGAL_TRACE_SCAN, g, 4, 2, 4, 1));
	EXPECT_EQ(0, mvgal_trace_gen(MVGAL_TRACE_SCAN, g, 4, 2, 2, 1));
	EXPECT_EQ(0, mvgal_trace_gen(MVGAL_TRACE_LOOP, g, 0, 4, 2, 1));

	/* t[2] is out of range for w = 4. */
	EXPECT_EQ(-EINVAL, mvgal_trace_belady(t, 4, 4, 2));
	EXPECT_EQ(-EINVAL, mvgal_trace_lru(t, 4, 4, 2));
	EXPECT_EQ(-EINVAL, mvgal_trace_belady(t, 4, 4, 0));
	t[2] = 0;	/* now 0 1 0 3: one hit with room for two */
	EXPECT_EQ(0, mvgal_trace_belady(t, 0, 4, 2));
	EXPECT_EQ(0, mvgal_trace_belady(t, 4, 4, 0));	/* caches nothing */
	EXPECT_EQ(1, mvgal_trace_belady(t, 4, 4, 9));	/* as c = w */
	EXPECT_EQ(1, mvgal_trace_lru(t, 4, 4, 9));
	/* A policy must name a slot, and must exist when it is needed. */
	EXPECT_EQ(-EINVAL, mvgal_trace_simulate(t, 4, 4, 1, fifo_victim,
						&slot));
	EXPECT_EQ(-EINVAL, mvgal_trace_simulate(t, 4, 4, 1, NULL, NULL));
	EXPECT_EQ(1, mvgal_trace_simulate(t, 4, 4, 4, NULL, NULL));
}

TEST(random_is_uniform)
{
	unsigned int w = 32, count[32] = { 0 }, b;
	size_t n = 320000, i;
	unsigned int *t = new_trace(MVGAL_TRACE_RANDOM, n, w, 16, 1);

	ASSERT_NE(NULL, t);
	for (i = 0; i < n; i++)
		count[t[i]]++;
	/* 10000 expected a buffer, a standard deviation of about 100. */
	for (b = 0; b < w; b++) {
		EXPECT_LT(9500U, count[b]);
		EXPECT_GT(10500U, count[b]);
	}
	free(t);
}

TEST(noisy_replaces_one_access_in_eight)
{
	unsigned int w = 32, seed;
	size_t n = 200000, i;

	for (seed = 1; seed <= NSEEDS; seed++) {
		unsigned int *t = new_trace(MVGAL_TRACE_NOISY, n, w, 16, seed);
		unsigned int *loop = new_trace(MVGAL_TRACE_LOOP, n, w, 16, 0);
		size_t off = 0, hist[32] = { 0 };
		double want = 1.0 / 8 * (1.0 - 1.0 / w), got;

		ASSERT_NE(NULL, t);
		ASSERT_NE(NULL, loop);
		for (i = 0; i < n; i++)
			if (t[i] != loop[i]) {
				off++;
				hist[t[i]]++;
			}
		got = (double)off / n;
		/* The standard deviation is 0.0007. */
		EXPECT_GT(want + 0.005, got);
		EXPECT_LT(want - 0.005, got);
		/* The replacements go everywhere, not to a few buffers. */
		for (i = 0; i < w; i++)
			EXPECT_LT(off / w / 2, hist[i]);
		free(loop);
		free(t);
	}
}

TEST(scan_is_a_hot_set_and_a_sweep)
{
	static const unsigned int cs[] = { 2, 3, 8, 16, 64 };
	size_t n = 20001, i;
	unsigned int j;

	for (j = 0; j < ARRAY_SIZE(cs); j++) {
		unsigned int c = cs[j], w = 2 * c, h = c / 2;
		unsigned int *t = new_trace(MVGAL_TRACE_SCAN, n, w, c, 1);
		ssize_t lru, opt;

		ASSERT_NE(NULL, t);
		for (i = 0; i < n; i++) {
			if (i % 2 == 0) {
				/* Hot: round-robin over 0..h-1. */
				ASSERT_EQ(i / 2 % h, t[i]);
			} else {
				/* Cold: h..w-1 in order, then again. */
				ASSERT_EQ(h + i / 2 % (w - h), t[i]);
			}
		}
		/* LRU keeps the hot set and never hits a cold buffer. */
		lru = mvgal_trace_lru(t, n, w, c);
		EXPECT_EQ((ssize_t)((n + 1) / 2 - h), lru);
		/* MIN also keeps some cold buffers around a sweep. */
		opt = mvgal_trace_belady(t, n, w, c);
		EXPECT_LE(lru, opt);
		if (c - 2 * h > 0 || h > 1)
			EXPECT_LT(lru, opt);
		free(t);
	}
}

TEST_HARNESS_MAIN
