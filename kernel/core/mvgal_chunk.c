// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Chunk coherence states. See mvgal_chunk.h.
 */
#include "mvgal_chunk.h"

enum mvgal_cstate mvgal_chunk_state(const struct mvgal_chunk *c,
				    unsigned int loc)
{
	if (!mvgal_chunk_valid_at(c, loc))
		return MVGAL_CS_INVALID;
	return c->owner == loc ? MVGAL_CS_OWNER : MVGAL_CS_SHARED;
}

/* The invariant of mvgal_chunk.h, for @nlocs locations. */
bool mvgal_chunk_ok(const struct mvgal_chunk *c, unsigned int nlocs)
{
	if (!c->valid || (c->valid >> nlocs))
		return false;
	if (c->owner == MVGAL_CHUNK_NOBODY)
		return true;
	return c->owner < nlocs && c->valid == 1U << c->owner;
}

unsigned int mvgal_chunk_source(const struct mvgal_chunk *c, unsigned int loc,
				const unsigned long long *cost,
				unsigned int nlocs)
{
	unsigned long long best_cost = ~0ULL;
	unsigned int best = MVGAL_CHUNK_NOBODY;
	unsigned int l;

	if (mvgal_chunk_valid_at(c, loc))
		return loc;
	for (l = 0; l < nlocs; l++) {
		unsigned long long k = cost ? cost[l] : 0;

		if (!mvgal_chunk_valid_at(c, l) || k == ~0ULL)
			continue;
		/* Ties go to the owner, whose copy is the one that counts. */
		if (best == MVGAL_CHUNK_NOBODY || k < best_cost ||
		    (k == best_cost && l == c->owner)) {
			best = l;
			best_cost = k;
		}
	}
	return best;
}

int mvgal_chunk_filled(struct mvgal_chunk *c, unsigned int loc)
{
	if (!c->valid)
		return -EINVAL;
	c->valid |= 1U << loc;
	if (c->owner != loc || c->valid != 1U << loc)
		c->owner = MVGAL_CHUNK_NOBODY;
	return 0;
}

int mvgal_chunk_written(struct mvgal_chunk *c, unsigned int loc)
{
	if (!mvgal_chunk_valid_at(c, loc))
		return -EINVAL;
	c->valid = 1U << loc;
	c->owner = loc;
	return 0;
}

int mvgal_chunk_drop(struct mvgal_chunk *c, unsigned int loc)
{
	if (!mvgal_chunk_valid_at(c, loc))
		return 0;
	if (c->valid == 1U << loc)
		return -ENODATA;
	c->valid &= ~(1U << loc);
	return 0;
}

void mvgal_chunk_unfill(struct mvgal_chunk *c, unsigned int loc)
{
	mvgal_chunk_drop(c, loc);
}

void mvgal_chunk_restore(struct mvgal_chunk *c, unsigned int prev)
{
	unsigned int l;

	if (!prev)
		return;
	c->valid = prev;
	c->owner = MVGAL_CHUNK_NOBODY;
	for (l = 0; l < MVGAL_CHUNK_LOCS; l++)
		if (prev == 1U << l)
			c->owner = l;
}

int mvgal_chunk_revert(struct mvgal_chunk *c, unsigned int loc,
		       unsigned int prev)
{
	if (!mvgal_chunk_valid_at(c, loc))
		return -EBUSY;
	mvgal_chunk_restore(c, prev & ~(1U << loc));
	return 0;
}
