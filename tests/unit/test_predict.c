// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the access-sequence predictor (kernel/core/mvgal_predict.c):
 * when it starts predicting a repeated sequence, how it reacts to a change,
 * that it stays quiet on random access, and that a full table, freed ids
 * and id 0 do no harm.
 */
#include "core/mvgal_predict.h"
#include "kselftest_harness.h"

static void feed(struct mvgal_predict *p, const unsigned long long *ids,
		 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		mvgal_predict_access(p, ids[i]);
}

/* A loop of 8: silent for two passes, then the next 3 from everywhere. */
TEST(loop_predicts_after_one_repeat)
{
	static const unsigned long long ids[8] = {
		101, 102, 103, 104, 105, 106, 107, 108 };
	unsigned long long out[3];
	struct mvgal_predict p;
	unsigned int pass, i, j;

	mvgal_predict_init(&p);
	for (pass = 0; pass < 5; pass++) {
		for (i = 0; i < 8; i++) {
			unsigned int n;

			mvgal_predict_access(&p, ids[i]);
			n = mvgal_predict_next(&p, ids[i], 1, out, 3);
			if (pass < 2) {
				/* Each edge out of ids[i] seen once at most. */
				EXPECT_EQ(0U, n);
				continue;
			}
			ASSERT_EQ(3U, n);
			for (j = 0; j < 3; j++)
				EXPECT_EQ(ids[(i + 1 + j) % 8], out[j]);
		}
		if (pass == 1) {
			/* Both passes done: all but the wrap edge confirmed. */
			EXPECT_EQ(3U, mvgal_predict_next(&p, ids[0], 1, out, 3));
			EXPECT_EQ(2U, mvgal_predict_next(&p, ids[5], 1, out, 3));
			EXPECT_EQ(0U, mvgal_predict_next(&p, ids[7], 1, out, 3));
		}
	}
}

/* With min_conf 0 one pass is enough: any observed successor counts. */
TEST(min_conf_zero_predicts_after_one_pass)
{
	static const unsigned long long ids[4] = { 1, 2, 3, 4 };
	unsigned long long out[4];
	struct mvgal_predict p;

	mvgal_predict_init(&p);
	feed(&p, ids, 4);
	ASSERT_EQ(3U, mvgal_predict_next(&p, 1, 0, out, 4));
	EXPECT_EQ(2ULL, out[0]);
	EXPECT_EQ(3ULL, out[1]);
	EXPECT_EQ(4ULL, out[2]);
	EXPECT_EQ(0U, mvgal_predict_next(&p, 1, 1, out, 4));
}

/* A B C D -> A B X D: B's edge restarts and must repeat to be used. */
TEST(changed_successor_loses_confidence)
{
	static const unsigned long long abcd[4] = { 1, 2, 3, 4 };
	static const unsigned long long abxd[4] = { 1, 2, 9, 4 };
	unsigned long long out[4];
	struct mvgal_predict p;
	unsigned int i;

	mvgal_predict_init(&p);
	for (i = 0; i < 3; i++)
		feed(&p, abcd, 4);
	ASSERT_EQ(3U, mvgal_predict_next(&p, 1, 1, out, 3));
	EXPECT_EQ(3ULL, out[1]);

	feed(&p, abxd, 4);
	/* A -> B still holds; B -> X is new, so the walk stops at B. */
	ASSERT_EQ(1U, mvgal_predict_next(&p, 1, 1, out, 3));
	EXPECT_EQ(2ULL, out[0]);
	EXPECT_EQ(0U, mvgal_predict_next(&p, 2, 1, out, 3));
	EXPECT_EQ(0U, mvgal_predict_next(&p, 9, 1, out, 3));
	/* The new successor is remembered, just not trusted. */
	ASSERT_EQ(1U, mvgal_predict_next(&p, 2, 0, out, 1));
	EXPECT_EQ(9ULL, out[0]);

	feed(&p, abxd, 4);
	ASSERT_EQ(3U, mvgal_predict_next(&p, 1, 1, out, 3));
	EXPECT_EQ(2ULL, out[0]);
	EXPECT_EQ(9ULL, out[1]);
	EXPECT_EQ(4ULL, out[2]);

	/* Going back is a change too. */
	feed(&p, abcd, 4);
	EXPECT_EQ(1U, mvgal_predict_next(&p, 1, 1, out, 3));
}

/* Two GPUs walk the same buffers in opposite orders, interleaved. */
TEST(predictors_are_independent)
{
	static const unsigned long long fwd[4] = { 1, 2, 3, 4 };
	static const unsigned long long rev[4] = { 4, 3, 2, 1 };
	unsigned long long out[3];
	struct mvgal_predict g0, g1;
	unsigned int pass, i;

	mvgal_predict_init(&g0);
	mvgal_predict_init(&g1);
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < 4; i++) {
			mvgal_predict_access(&g0, fwd[i]);
			mvgal_predict_access(&g1, rev[i]);
		}
	}
	ASSERT_EQ(3U, mvgal_predict_next(&g0, 1, 1, out, 3));
	EXPECT_EQ(2ULL, out[0]);
	EXPECT_EQ(3ULL, out[1]);
	EXPECT_EQ(4ULL, out[2]);
	ASSERT_EQ(3U, mvgal_predict_next(&g1, 4, 1, out, 3));
	EXPECT_EQ(3ULL, out[0]);
	EXPECT_EQ(2ULL, out[1]);
	EXPECT_EQ(1ULL, out[2]);
}

/* A loop of 3 gives the 2 others, never @from, however many are asked. */
TEST(walk_stops_at_a_cycle)
{
	static const unsigned long long loop[3] = { 1, 2, 3 };
	unsigned long long out[10];
	struct mvgal_predict p;
	unsigned int i;

	mvgal_predict_init(&p);
	for (i = 0; i < 3; i++)
		feed(&p, loop, 3);
	mvgal_predict_access(&p, 1);
	ASSERT_EQ(2U, mvgal_predict_next(&p, 1, 1, out, 10));
	EXPECT_EQ(2ULL, out[0]);
	EXPECT_EQ(3ULL, out[1]);
	EXPECT_EQ(0U, mvgal_predict_next(&p, 1, 1, out, 0));

	/* X into the loop: the walk stops when it comes back to 1. */
	mvgal_predict_init(&p);
	mvgal_predict_access(&p, 7);
	feed(&p, loop, 3);
	feed(&p, loop, 3);
	ASSERT_EQ(3U, mvgal_predict_next(&p, 7, 0, out, 10));
	EXPECT_EQ(1ULL, out[0]);
	EXPECT_EQ(2ULL, out[1]);
	EXPECT_EQ(3ULL, out[2]);
}

/* The same id twice in a row is one use, not an edge to itself. */
TEST(repeated_access_is_not_a_transition)
{
	static const unsigned long long seq[5] = { 1, 1, 1, 2, 2 };
	unsigned long long out[4];
	struct mvgal_predict p;
	unsigned int i;

	mvgal_predict_init(&p);
	for (i = 0; i < 3; i++)
		feed(&p, seq, 5);
	ASSERT_EQ(1U, mvgal_predict_next(&p, 1, 1, out, 4));
	EXPECT_EQ(2ULL, out[0]);
	ASSERT_EQ(1U, mvgal_predict_next(&p, 2, 1, out, 4));
	EXPECT_EQ(1ULL, out[0]);
}

/* Confidence saturates and still drops to 0 on a change. */
TEST(confidence_saturates)
{
	static const unsigned long long ab[2] = { 1, 2 };
	unsigned long long out[2];
	struct mvgal_predict p;
	unsigned int i;

	mvgal_predict_init(&p);
	for (i = 0; i < 3 * MVGAL_PREDICT_CONF_MAX; i++)
		feed(&p, ab, 2);
	EXPECT_EQ(1U, mvgal_predict_next(&p, 1, MVGAL_PREDICT_CONF_MAX,
					 out, 2));
	EXPECT_EQ(0U, mvgal_predict_next(&p, 1, MVGAL_PREDICT_CONF_MAX + 1,
					 out, 2));
	mvgal_predict_access(&p, 1);
	mvgal_predict_access(&p, 3);
	EXPECT_EQ(0U, mvgal_predict_next(&p, 1, 1, out, 2));
}

/* Far more ids than slots: bounded, and recent loops still predict. */
TEST(full_table_keeps_the_recent)
{
	unsigned long long loop[32], out[3];
	struct mvgal_predict p;
	unsigned int i, j, pass, known = 0;

	mvgal_predict_init(&p);
	for (i = 0; i < 16 * MVGAL_PREDICT_SLOTS; i++)
		mvgal_predict_access(&p, 1000000 + i);
	for (i = 0; i < 16 * MVGAL_PREDICT_SLOTS; i++)
		known += mvgal_predict_known(&p, 1000000 + i);
	EXPECT_EQ(MVGAL_PREDICT_SLOTS, known);
	EXPECT_FALSE(mvgal_predict_known(&p, 1000000));
	/* Each set keeps its last WAYS ids, so the last few are all in. */
	for (i = 16 * MVGAL_PREDICT_SLOTS - 16; i < 16 * MVGAL_PREDICT_SLOTS;
	     i++)
		EXPECT_TRUE(mvgal_predict_known(&p, 1000000 + i));

	for (i = 0; i < 32; i++)
		loop[i] = 0x7f0000001000ULL + (unsigned long long)i * 4096;
	for (pass = 0; pass < 3; pass++)
		feed(&p, loop, 32);
	for (i = 0; i < 32; i++) {
		ASSERT_EQ(3U, mvgal_predict_next(&p, loop[i], 1, out, 3));
		for (j = 0; j < 3; j++)
			EXPECT_EQ(loop[(i + 1 + j) % 32], out[j]);
	}
}

/* A freed buffer is neither remembered nor predicted. */
TEST(forget_removes_an_id)
{
	static const unsigned long long abcd[4] = { 1, 2, 3, 4 };
	unsigned long long out[4];
	struct mvgal_predict p;
	unsigned int i;

	mvgal_predict_init(&p);
	for (i = 0; i < 3; i++)
		feed(&p, abcd, 4);
	ASSERT_TRUE(mvgal_predict_known(&p, 3));
	mvgal_predict_forget(&p, 3);
	EXPECT_FALSE(mvgal_predict_known(&p, 3));
	EXPECT_EQ(0U, mvgal_predict_next(&p, 3, 0, out, 4));
	/* The edge B -> C is gone: the walk from A stops at B. */
	ASSERT_EQ(1U, mvgal_predict_next(&p, 1, 0, out, 4));
	EXPECT_EQ(2ULL, out[0]);
	EXPECT_EQ(0U, mvgal_predict_next(&p, 2, 0, out, 4));

	/* Forgetting the last access: the next one follows nothing. */
	mvgal_predict_forget(&p, 4);
	mvgal_predict_access(&p, 1);
	EXPECT_FALSE(mvgal_predict_known(&p, 4));
	EXPECT_TRUE(mvgal_predict_known(&p, 1));
	/* Unknown ids are fine. */
	mvgal_predict_forget(&p, 12345);
}

static unsigned int lcg(unsigned long long *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* Random order over a small pool: almost never confident. A loop: always. */
TEST(random_access_is_not_predicted)
{
	unsigned long long seed = 42, out[1];
	unsigned int i, hits = 0, right = 0, steps = 10000;
	struct mvgal_predict p;

	mvgal_predict_init(&p);
	for (i = 0; i < steps; i++) {
		unsigned long long id = 1 + lcg(&seed) % 64;

		mvgal_predict_access(&p, id);
		hits += mvgal_predict_next(&p, id, 2, out, 1);
	}
	/* Chance of three equal successors in a row is ~1/4096 a step. */
	EXPECT_LT(hits, steps / 100);

	/* 16 buffers, 20 passes: quiet for 3 passes (min_conf 2), then on. */
	mvgal_predict_init(&p);
	for (i = 0; i < 20 * 16; i++) {
		unsigned long long id = 1 + i % 16;

		mvgal_predict_access(&p, id);
		if (mvgal_predict_next(&p, id, 2, out, 1) == 1 &&
		    out[0] == 1 + (i + 1) % 16)
			right++;
	}
	EXPECT_EQ(17U * 16, right);
}

/* Id 0 is no buffer: ignored everywhere, without changing the state. */
TEST(id_zero_is_ignored)
{
	static const unsigned long long seq[6] = { 1, 0, 2, 0, 0, 3 };
	struct mvgal_predict p, before;
	unsigned long long out[4];
	unsigned int i;

	mvgal_predict_init(&p);
	for (i = 0; i < 3; i++)
		feed(&p, seq, 6);
	ASSERT_EQ(2U, mvgal_predict_next(&p, 1, 1, out, 4));
	EXPECT_EQ(2ULL, out[0]);
	EXPECT_EQ(3ULL, out[1]);

	memcpy(&before, &p, sizeof(p));
	mvgal_predict_access(&p, 0);
	mvgal_predict_forget(&p, 0);
	EXPECT_EQ(0, memcmp(&p, &before, sizeof(p)));
	EXPECT_FALSE(mvgal_predict_known(&p, 0));
	EXPECT_EQ(0U, mvgal_predict_next(&p, 0, 0, out, 4));
}

TEST_HARNESS_MAIN
