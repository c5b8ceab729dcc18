/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live sessions on a buffer: whether a new use of chunks conflicts with a
 * live one, and whether a live session still uses a location's copy.
 */
#ifndef MVGAL_BO_LIVE_H
#define MVGAL_BO_LIVE_H

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/types.h>

struct mvgal_bo;

/*
 * A live session's use of one buffer, on the buffer's @live list. Its
 * chunk sets are bitmaps over the span of chunks it named: bit i is chunk
 * @base + i, of @n.
 */
struct mvgal_live {
	struct list_head link;
	unsigned long base;
	unsigned long n;
	unsigned long *chunks;	/* the chunks it named */
	/* Chunks the CPU wrote while the session read a GPU copy of them
	 * (hand-offs, bo/mvgal_cpuwrite.c); NULL until there is one. Under the
	 * buffer's lock.
	 */
	unsigned long *cpu_wrote;
	bool write;
	bool gpu_copy;		/* it uses a GPU's copy, not home itself */
	unsigned int loc;	/* where that copy is */
};

/* Does live session @l name chunk @c? */
static inline bool mvgal_live_has(const struct mvgal_live *l, unsigned long c)
{
	return c - l->base < l->n && test_bit(c - l->base, l->chunks);
}

/* Does live session @l name any chunk of [first, last]? */
static inline bool mvgal_live_any(const struct mvgal_live *l,
				  unsigned long first, unsigned long last)
{
	unsigned long lo = max(first, l->base);
	unsigned long hi = min(last, l->base + l->n - 1);

	return lo <= hi &&
	       find_next_bit(l->chunks, hi - l->base + 1, lo - l->base) <=
	       hi - l->base;
}

bool mvgal_live_conflict(struct mvgal_bo *bo, unsigned long first,
			 unsigned long last, bool write);
bool mvgal_live_home_conflict(struct mvgal_bo *bo, unsigned long first,
			      unsigned long last);
bool mvgal_live_names(struct mvgal_bo *bo, unsigned long c);
bool mvgal_live_uses(struct mvgal_bo *bo, struct mvgal_live *self,
		     unsigned long c, unsigned int loc);

#endif /* MVGAL_BO_LIVE_H */
