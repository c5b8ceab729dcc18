/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Chunk coherence: where the current bytes of one chunk of a buffer are.
 *
 * Every chunk has, per location (0 = host, 1 + N = GPU N), an MSI state:
 * OWNER (the only current copy, newer than every other), SHARED (a current
 * copy, others may exist) or INVALID. The invariant is that the current
 * bytes are always somewhere: either exactly one location is OWNER and the
 * rest INVALID, or at least one is SHARED and none OWNER.
 *
 * The functions here only change states; moving bytes is the caller's,
 * between the "what do I need" and the "it is done" calls. Pure C: the
 * module uses it, the unit tests check every operation from every state.
 */
#ifndef MVGAL_CHUNK_H
#define MVGAL_CHUNK_H

#include "mvgal_core_types.h"

#define MVGAL_CHUNK_LOCS	9	/* host + MVGAL_MAX_GPUS */
#define MVGAL_CHUNK_NOBODY	0xff

enum mvgal_cstate {
	MVGAL_CS_INVALID,
	MVGAL_CS_SHARED,
	MVGAL_CS_OWNER,
};

struct mvgal_chunk {
	unsigned short valid;	/* bit L: location L holds the bytes */
	unsigned char owner;	/* the OWNER, or MVGAL_CHUNK_NOBODY */
	unsigned char pad;
};

/* A new chunk: its bytes are at @home only. */
static inline void mvgal_chunk_init(struct mvgal_chunk *c, unsigned int home)
{
	c->valid = 1U << home;
	c->owner = home;
	c->pad = 0;
}

static inline bool mvgal_chunk_valid_at(const struct mvgal_chunk *c,
					unsigned int loc)
{
	return c->valid & (1U << loc);
}

enum mvgal_cstate mvgal_chunk_state(const struct mvgal_chunk *c,
				    unsigned int loc);
bool mvgal_chunk_ok(const struct mvgal_chunk *c, unsigned int nlocs);

/*
 * mvgal_chunk_source() - where to copy from so that @loc holds the bytes
 * @cost: per location, what copying from it to @loc costs (any unit;
 *        ~0ULL: impossible). NULL: all equal.
 *
 * Return: @loc itself when it holds them already (nothing to copy), the
 * cheapest location that holds them, or MVGAL_CHUNK_NOBODY when none can
 * be copied from.
 */
unsigned int mvgal_chunk_source(const struct mvgal_chunk *c, unsigned int loc,
				const unsigned long long *cost,
				unsigned int nlocs);

/*
 * The bytes were copied to @loc (a read there): @loc holds them too, and
 * an OWNER elsewhere is now one of several SHARED holders. -EINVAL
 * (nothing changed) on a chunk that breaks the invariant.
 */
int mvgal_chunk_filled(struct mvgal_chunk *c, unsigned int loc);
/* @loc, holding the bytes, wrote them: it is the OWNER, all else INVALID.
 * -EINVAL (nothing changed) if @loc did not hold them.
 */
int mvgal_chunk_written(struct mvgal_chunk *c, unsigned int loc);
/*
 * @loc gives its copy up. -ENODATA (nothing changed) when it is the only
 * one: the caller must copy it elsewhere first.
 */
int mvgal_chunk_drop(struct mvgal_chunk *c, unsigned int loc);
/*
 * A copy to @loc that mvgal_chunk_filled() announced failed: @loc stops
 * holding the bytes unless it has since become their only holder.
 */
void mvgal_chunk_unfill(struct mvgal_chunk *c, unsigned int loc);

/*
 * The writes at @loc that made it the chunk's owner failed: the holders
 * of before (@prev, a valid mask) hold the bytes again, and @loc's copy
 * and every copy filled from it since (whose copies wait for the same
 * failed work, so they never ran) are dropped. Only while @loc still
 * holds the chunk: otherwise something wrote it since. When @loc was the
 * only holder before too, it stays: there is nothing else.
 * Return: 0, or -EBUSY when the chunk was written since (unchanged).
 */
int mvgal_chunk_revert(struct mvgal_chunk *c, unsigned int loc,
		       unsigned int prev);

/*
 * Work that would have changed the chunk failed before it wrote a byte:
 * exactly the holders of @prev (a non-empty valid mask) hold the bytes
 * again, whoever holds them now.
 */
void mvgal_chunk_restore(struct mvgal_chunk *c, unsigned int prev);

/* The chunks [*first, *last] that bytes [off, off + len) touch; len > 0. */
static inline void mvgal_chunk_span(unsigned long long off,
				    unsigned long long len, unsigned int shift,
				    unsigned long *first, unsigned long *last)
{
	*first = off >> shift;
	*last = (off + len - 1) >> shift;
}

/*
 * The chunks [*a, *b) that bytes [off, off + len) of an object of @size
 * bytes cover whole (a short last chunk counts when the range reaches the
 * end); len > 0. Empty when *a >= *b.
 */
static inline void mvgal_chunk_whole(unsigned long long off,
				     unsigned long long len,
				     unsigned int shift,
				     unsigned long long size,
				     unsigned long *a, unsigned long *b)
{
	unsigned long long mask = (1ULL << shift) - 1, end = off + len;
	unsigned long first, last;

	mvgal_chunk_span(off, len, shift, &first, &last);
	*a = first + !!(off & mask);
	*b = last + 1 - !!((end & mask) && end != size);
}

#endif /* MVGAL_CHUNK_H */
