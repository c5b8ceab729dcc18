// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the chunk coherence states (kernel/core/mvgal_chunk.c).
 *
 * The exhaustive tests run a model next to the state machine: every
 * location has a copy of the chunk with a version number, a write makes a
 * new version, and a copy carries a version from one location to another.
 * From every reachable state, every operation at every location must keep
 * the invariant and must never let the newest version be lost or a stale
 * version be called current.
 */
#include "core/mvgal_chunk.h"
#include "kselftest_harness.h"

#define NLOCS 3

struct model {
	struct mvgal_chunk c;
	unsigned int ver[NLOCS];	/* version each location holds */
	unsigned int newest;
};

/* Every location the state says holds the bytes has the newest version. */
static bool model_ok(const struct model *m)
{
	unsigned int l;

	if (!mvgal_chunk_ok(&m->c, NLOCS))
		return false;
	for (l = 0; l < NLOCS; l++)
		if (mvgal_chunk_valid_at(&m->c, l) && m->ver[l] != m->newest)
			return false;
	return true;
}

/* All states satisfying the invariant for NLOCS locations, with a model
 * in which the valid locations hold version 1 and the others version 0.
 */
static unsigned int all_states(struct model *out)
{
	unsigned int n = 0, valid, l;

	for (valid = 1; valid < (1U << NLOCS); valid++) {
		struct model m = { .newest = 1 };

		m.c.valid = valid;
		m.c.owner = MVGAL_CHUNK_NOBODY;
		for (l = 0; l < NLOCS; l++)
			m.ver[l] = (valid >> l) & 1;
		out[n++] = m;
		/* A single holder may also be the owner. */
		if (!(valid & (valid - 1))) {
			for (l = 0; !(valid & (1U << l)); l++)
				;
			m.c.owner = l;
			out[n++] = m;
		}
	}
	return n;
}

/* Read at @loc: copy from the source the machine names, then filled(). */
static void op_read(struct model *m, unsigned int loc)
{
	unsigned int src = mvgal_chunk_source(&m->c, loc, NULL, NLOCS);

	if (src != loc) {
		m->ver[loc] = m->ver[src];
		mvgal_chunk_filled(&m->c, loc);
	}
}

static void op_write(struct model *m, unsigned int loc)
{
	op_read(m, loc);	/* a partial write needs the current bytes */
	mvgal_chunk_written(&m->c, loc);
	m->ver[loc] = ++m->newest;
}

/* Drop @loc's copy; a sole copy is drained to @home first. */
static void op_drop(struct model *m, unsigned int loc, unsigned int home)
{
	if (mvgal_chunk_drop(&m->c, loc) == -ENODATA) {
		op_read(m, home);
		mvgal_chunk_drop(&m->c, loc);
	}
	m->ver[loc] = 0;	/* its storage is gone */
}

TEST(new_chunk_is_owned_at_home)
{
	struct mvgal_chunk c;
	unsigned int l;

	for (l = 0; l < MVGAL_CHUNK_LOCS; l++) {
		mvgal_chunk_init(&c, l);
		EXPECT_TRUE(mvgal_chunk_ok(&c, MVGAL_CHUNK_LOCS));
		EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, l));
		EXPECT_EQ(MVGAL_CS_INVALID, mvgal_chunk_state(&c, (l + 1) % 9));
	}
}

TEST(invariant_rejects_broken_states)
{
	struct mvgal_chunk c = { .valid = 0, .owner = MVGAL_CHUNK_NOBODY };

	EXPECT_FALSE(mvgal_chunk_ok(&c, NLOCS));	/* bytes lost */
	c.valid = 3;
	c.owner = 0;
	EXPECT_FALSE(mvgal_chunk_ok(&c, NLOCS));	/* owner with sharers */
	c.valid = 1U << NLOCS;
	c.owner = MVGAL_CHUNK_NOBODY;
	EXPECT_FALSE(mvgal_chunk_ok(&c, NLOCS));	/* no such location */
	c.valid = 2;
	c.owner = 0;
	EXPECT_FALSE(mvgal_chunk_ok(&c, NLOCS));	/* owner does not hold */
}

TEST(read_shares_and_keeps_other_holders)
{
	struct mvgal_chunk c;

	mvgal_chunk_init(&c, 0);
	ASSERT_EQ(0U, mvgal_chunk_source(&c, 1, NULL, NLOCS));
	ASSERT_EQ(0, mvgal_chunk_filled(&c, 1));
	EXPECT_EQ(MVGAL_CS_SHARED, mvgal_chunk_state(&c, 0));
	EXPECT_EQ(MVGAL_CS_SHARED, mvgal_chunk_state(&c, 1));
	EXPECT_EQ(MVGAL_CS_INVALID, mvgal_chunk_state(&c, 2));
	/* Already holding: the source is itself, nothing to copy. */
	EXPECT_EQ(1U, mvgal_chunk_source(&c, 1, NULL, NLOCS));
}

TEST(write_invalidates_everyone_else)
{
	struct mvgal_chunk c;

	mvgal_chunk_init(&c, 0);
	mvgal_chunk_filled(&c, 1);
	mvgal_chunk_filled(&c, 2);
	ASSERT_EQ(0, mvgal_chunk_written(&c, 2));
	EXPECT_EQ(MVGAL_CS_INVALID, mvgal_chunk_state(&c, 0));
	EXPECT_EQ(MVGAL_CS_INVALID, mvgal_chunk_state(&c, 1));
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 2));
	/* A location that does not hold the bytes cannot have written them. */
	EXPECT_EQ(-EINVAL, mvgal_chunk_written(&c, 0));
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 2));
}

TEST(drop_of_the_only_copy_is_refused)
{
	struct mvgal_chunk c, before;

	mvgal_chunk_init(&c, 1);
	before = c;
	EXPECT_EQ(-ENODATA, mvgal_chunk_drop(&c, 1));
	EXPECT_EQ(0, memcmp(&c, &before, sizeof(c)));
	/* Dropping what a location does not hold is a no-op. */
	EXPECT_EQ(0, mvgal_chunk_drop(&c, 0));
	EXPECT_EQ(0, memcmp(&c, &before, sizeof(c)));
}

TEST(cheapest_holder_is_the_source)
{
	unsigned long long cost[NLOCS] = { 50, 10, 30 };
	struct mvgal_chunk c = { .valid = 0x5, .owner = MVGAL_CHUNK_NOBODY };

	EXPECT_EQ(2U, mvgal_chunk_source(&c, 1, cost, NLOCS));
	cost[2] = ~0ULL;	/* impossible path */
	EXPECT_EQ(0U, mvgal_chunk_source(&c, 1, cost, NLOCS));
	cost[0] = ~0ULL;
	EXPECT_EQ((unsigned int)MVGAL_CHUNK_NOBODY,
		  mvgal_chunk_source(&c, 1, cost, NLOCS));
}

TEST(failed_fill_is_undone)
{
	struct mvgal_chunk c;

	mvgal_chunk_init(&c, 0);
	mvgal_chunk_filled(&c, 1);
	mvgal_chunk_unfill(&c, 1);
	EXPECT_EQ(MVGAL_CS_INVALID, mvgal_chunk_state(&c, 1));
	EXPECT_TRUE(mvgal_chunk_ok(&c, NLOCS));
	/* If the location has since written, its copy is the one to keep. */
	mvgal_chunk_filled(&c, 1);
	mvgal_chunk_written(&c, 1);
	mvgal_chunk_unfill(&c, 1);
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 1));
}

TEST(failed_write_reverts_to_the_holders_of_before)
{
	struct mvgal_chunk c;

	/* Host and GPU 1 held it, GPU 0 (loc 1) wrote: back to both. */
	mvgal_chunk_init(&c, 0);
	mvgal_chunk_filled(&c, 2);
	mvgal_chunk_filled(&c, 1);
	unsigned int prev = c.valid;

	mvgal_chunk_written(&c, 1);
	EXPECT_EQ(0, mvgal_chunk_revert(&c, 1, prev));
	EXPECT_EQ(MVGAL_CS_SHARED, mvgal_chunk_state(&c, 0));
	EXPECT_EQ(MVGAL_CS_SHARED, mvgal_chunk_state(&c, 2));
	EXPECT_EQ(MVGAL_CS_INVALID, mvgal_chunk_state(&c, 1));
	EXPECT_TRUE(mvgal_chunk_ok(&c, NLOCS));
	/* One holder before: it owns it again. */
	mvgal_chunk_init(&c, 0);
	mvgal_chunk_filled(&c, 1);
	mvgal_chunk_written(&c, 1);
	EXPECT_EQ(0, mvgal_chunk_revert(&c, 1, 1U << 0));
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 0));
	EXPECT_TRUE(mvgal_chunk_ok(&c, NLOCS));
	/* A copy from it planned since (its job fails with the work):
	 * dropped too.
	 */
	mvgal_chunk_init(&c, 0);
	mvgal_chunk_filled(&c, 1);
	mvgal_chunk_written(&c, 1);
	mvgal_chunk_filled(&c, 3);
	EXPECT_EQ(0, mvgal_chunk_revert(&c, 1, (1U << 0) | (1U << 1)));
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 0));
	EXPECT_EQ(MVGAL_CS_INVALID, mvgal_chunk_state(&c, 3));
	/* Written elsewhere since: left alone. */
	mvgal_chunk_init(&c, 0);
	mvgal_chunk_filled(&c, 1);
	mvgal_chunk_written(&c, 1);
	mvgal_chunk_filled(&c, 0);
	mvgal_chunk_written(&c, 0);
	EXPECT_EQ(-EBUSY, mvgal_chunk_revert(&c, 1, 1U << 0));
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 0));
	/* Nobody else before: the only copy stays. */
	mvgal_chunk_init(&c, 1);
	EXPECT_EQ(0, mvgal_chunk_revert(&c, 1, 1U << 1));
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 1));
}

/*
 * Work that failed before writing a byte: exactly the holders of before,
 * the location it was for among them when it held the bytes then too.
 */
TEST(restore_gives_back_exactly_the_holders_of_before)
{
	struct mvgal_chunk c;

	mvgal_chunk_init(&c, 0);
	ASSERT_EQ(0, mvgal_chunk_filled(&c, 2));
	ASSERT_EQ(0, mvgal_chunk_written(&c, 0));
	mvgal_chunk_restore(&c, (1U << 0) | (1U << 2));
	EXPECT_EQ(MVGAL_CS_SHARED, mvgal_chunk_state(&c, 0));
	EXPECT_EQ(MVGAL_CS_SHARED, mvgal_chunk_state(&c, 2));
	EXPECT_TRUE(mvgal_chunk_ok(&c, MVGAL_CHUNK_LOCS));
	mvgal_chunk_restore(&c, 1U << 2);
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 2));
	EXPECT_EQ(MVGAL_CS_INVALID, mvgal_chunk_state(&c, 0));
	EXPECT_TRUE(mvgal_chunk_ok(&c, MVGAL_CHUNK_LOCS));
	/* Nothing named: the bytes stay where they are. */
	mvgal_chunk_restore(&c, 0);
	EXPECT_EQ(MVGAL_CS_OWNER, mvgal_chunk_state(&c, 2));
}

/* Every operation from every state at every location, twice deep. */
TEST(exhaustive_two_steps)
{
	struct model states[64];
	unsigned int n = all_states(states), i, op1, op2, l1, l2;
	unsigned int checked = 0;

	ASSERT_EQ(10U, n);	/* 7 sharer sets + 3 owners */
	for (i = 0; i < n; i++) {
		for (op1 = 0; op1 < 3; op1++)
		for (l1 = 0; l1 < NLOCS; l1++)
		for (op2 = 0; op2 < 3; op2++)
		for (l2 = 0; l2 < NLOCS; l2++) {
			struct model m = states[i];
			unsigned int ops[2] = { op1, op2 }, locs[2] = { l1, l2 };
			unsigned int k;

			ASSERT_TRUE(model_ok(&m));
			for (k = 0; k < 2; k++) {
				unsigned int loc = locs[k];

				if (ops[k] == 0) {
					op_read(&m, loc);
					ASSERT_TRUE(mvgal_chunk_valid_at(&m.c, loc));
				} else if (ops[k] == 1) {
					op_write(&m, loc);
					ASSERT_EQ(MVGAL_CS_OWNER,
						  mvgal_chunk_state(&m.c, loc));
				} else {
					op_drop(&m, loc, (loc + 1) % NLOCS);
					ASSERT_FALSE(mvgal_chunk_valid_at(&m.c, loc));
				}
				ASSERT_TRUE(model_ok(&m))
					TH_LOG("state %u op %u@%u then %u@%u: step %u",
					       i, op1, l1, op2, l2, k);
				checked++;
			}
		}
	}
	EXPECT_EQ(10U * 81 * 2, checked);
}

/* The full machine for all 9 locations: random walks keep the invariant
 * and the newest version (a deterministic generator, so a failure
 * reproduces).
 */
TEST(random_walks_all_locations)
{
	unsigned int seed = 12345, step;
	struct mvgal_chunk c;
	unsigned int ver[MVGAL_CHUNK_LOCS] = { 1 }, newest = 1;

	mvgal_chunk_init(&c, 0);
	for (step = 0; step < 200000; step++) {
		unsigned int op, loc, src, l;

		seed = seed * 1103515245 + 12345;
		op = (seed >> 16) % 3;
		loc = (seed >> 8) % MVGAL_CHUNK_LOCS;
		src = mvgal_chunk_source(&c, loc, NULL, MVGAL_CHUNK_LOCS);
		ASSERT_NE((unsigned int)MVGAL_CHUNK_NOBODY, src);
		if (op < 2 && src != loc) {
			ver[loc] = ver[src];
			mvgal_chunk_filled(&c, loc);
		}
		if (op == 1) {
			ASSERT_EQ(0, mvgal_chunk_written(&c, loc));
			ver[loc] = ++newest;
		} else if (op == 2 && mvgal_chunk_drop(&c, loc) == -ENODATA) {
			ver[0] = ver[loc];
			mvgal_chunk_filled(&c, 0);
			if (loc)
				ASSERT_EQ(0, mvgal_chunk_drop(&c, loc));
		}
		ASSERT_TRUE(mvgal_chunk_ok(&c, MVGAL_CHUNK_LOCS));
		for (l = 0; l < MVGAL_CHUNK_LOCS; l++)
			if (mvgal_chunk_valid_at(&c, l))
				ASSERT_EQ(newest, ver[l]) TH_LOG("step %u loc %u", step, l);
	}
}

TEST(span_of_unaligned_ranges)
{
	unsigned long first, last;

	mvgal_chunk_span(0, 1, 16, &first, &last);
	EXPECT_EQ(0UL, first);
	EXPECT_EQ(0UL, last);
	mvgal_chunk_span(65535, 2, 16, &first, &last);
	EXPECT_EQ(0UL, first);
	EXPECT_EQ(1UL, last);
	mvgal_chunk_span(65536, 65536, 16, &first, &last);
	EXPECT_EQ(1UL, first);
	EXPECT_EQ(1UL, last);
	mvgal_chunk_span(100, 3 * 65536, 16, &first, &last);
	EXPECT_EQ(0UL, first);
	EXPECT_EQ(3UL, last);
}

TEST(whole_chunks_of_unaligned_ranges)
{
	unsigned long a, b;

	/* Within one chunk: none whole. */
	mvgal_chunk_whole(100, 200, 16, 4 * 65536, &a, &b);
	EXPECT_LE(b, a);
	/* From an odd offset over two boundaries: chunk 1 alone. */
	mvgal_chunk_whole(100, 2 * 65536, 16, 4 * 65536, &a, &b);
	EXPECT_EQ(1UL, a);
	EXPECT_EQ(2UL, b);
	/* Aligned both ends. */
	mvgal_chunk_whole(65536, 2 * 65536, 16, 4 * 65536, &a, &b);
	EXPECT_EQ(1UL, a);
	EXPECT_EQ(3UL, b);
	/* A short last chunk counts when the range reaches the end. */
	mvgal_chunk_whole(65536, 65536 + 5000, 16, 2 * 65536 + 5000, &a, &b);
	EXPECT_EQ(1UL, a);
	EXPECT_EQ(3UL, b);
	/* ... and not when it stops short of it. */
	mvgal_chunk_whole(65536, 65536 + 4999, 16, 2 * 65536 + 5000, &a, &b);
	EXPECT_EQ(1UL, a);
	EXPECT_EQ(2UL, b);
}

TEST_HARNESS_MAIN
