/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Which placement leaves a full pool first.
 *
 * Every buffer keeps, per GPU, when it was last used, the period of its
 * uses and the beat they fall on, in ticks of the device's access clock
 * (one tick per buffer named by a session or migration). A buffer whose
 * uses repeat with a period is predicted to be used again on its next
 * beat; a use off the beat (a stray access between two rounds of a loop)
 * leaves the beat alone, and two in a row mean the pattern changed: the
 * period is learnt again. A buffer whose gaps vary (their mean deviation
 * over a quarter of their mean, both averaged over the last few uses) has
 * no beat to speak of: its next use is put at one and a half mean gaps,
 * as uncertain reuse is worth less than certain reuse at the same
 * distance. Eviction takes first the placement whose next use
 * is furthest away, as Belady's MIN would: a placement never reused yet
 * (no period) counts as used never, and among equals the least recently
 * used goes first. With MVGAL_EVICT_LRU, only recency counts.
 *
 * A pure LRU evicts exactly the wrong placement when a working set larger
 * than the pool is walked in a loop (every access then misses); the
 * period is what tells the loop apart.
 */
#ifndef MVGAL_EVICT_H
#define MVGAL_EVICT_H

#include "mvgal_core_types.h"

enum mvgal_evict_policy {
	MVGAL_EVICT_PREDICT,	/* furthest predicted next use first */
	MVGAL_EVICT_LRU,	/* least recently used first */
	MVGAL_EVICT_POLICIES,
};

/* No reuse seen: the next use is predicted never. */
#define MVGAL_REUSE_NEVER	(~0ULL)

struct mvgal_reuse {
	unsigned long long last;	/* tick of the last use; 0: none */
	unsigned long long period;	/* between uses; 0: not known */
	unsigned long long beat;	/* the last use on the period's beat */
	unsigned int strays;		/* uses off the beat in a row */
	unsigned int pad;
	/* Averages of the gaps and of their deviation, in 1/16 ticks. */
	unsigned long long mean;
	unsigned long long dev;
};

void mvgal_reuse_touch(struct mvgal_reuse *r, unsigned long long now);
unsigned long long mvgal_reuse_ahead(const struct mvgal_reuse *r,
				     unsigned long long now);

/* A placement that could be evicted, as the policy sees it. */
struct mvgal_evict_cand {
	unsigned long long last;	/* last use */
	unsigned long long ahead;	/* mvgal_reuse_ahead() */
	unsigned int index;		/* the caller's */
};

bool mvgal_evict_before(const struct mvgal_evict_cand *a,
			const struct mvgal_evict_cand *b,
			enum mvgal_evict_policy policy);
void mvgal_evict_order(struct mvgal_evict_cand *c, unsigned int n,
		       enum mvgal_evict_policy policy);

#endif /* MVGAL_EVICT_H */
