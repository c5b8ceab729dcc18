// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Eviction order of placements (see mvgal_evict.h). Pure C: the module
 * ranks a pool's placements with it, the unit tests replay traces.
 */
#include "mvgal_evict.h"

/* A beat is kept to within an eighth of the period. */
static bool mvgal_reuse_on_beat(const struct mvgal_reuse *r,
				unsigned long long now)
{
	unsigned long long d = (now - r->beat) % r->period;

	return d <= r->period / 8 || r->period - d <= r->period / 8;
}

/**
 * mvgal_reuse_touch() - a use of the buffer at tick @now
 * @r: its record at one location
 * @now: the access clock, never 0, not going backwards
 *
 * The first reuse sets the period. Then a use on the beat moves the beat
 * to it; one use off the beat is a stray access and changes nothing but
 * @last, so that one random touch does not make a looping buffer look
 * due; a second in a row learns the period again from the last gap.
 */
void mvgal_reuse_touch(struct mvgal_reuse *r, unsigned long long now)
{
	if (r->last && now > r->last) {
		unsigned long long gap = (now - r->last) * 16, d;

		/* Running averages over about four uses. */
		if (!r->mean) {
			r->mean = gap;
		} else {
			d = gap > r->mean ? gap - r->mean : r->mean - gap;
			r->dev = (3 * r->dev + d) / 4;
			r->mean = (3 * r->mean + gap) / 4;
		}
		if (!r->period) {
			r->period = now - r->last;
			r->beat = now;
		} else if (mvgal_reuse_on_beat(r, now)) {
			r->beat = now;
			r->strays = 0;
		} else if (++r->strays >= 2) {
			r->period = now - r->last;
			r->beat = now;
			r->strays = 0;
		}
	}
	r->last = now;
}

/**
 * mvgal_reuse_ahead() - ticks until the buffer's next use, as predicted
 * @r: its record
 * @now: the access clock, not before the last use
 *
 * Return: MVGAL_REUSE_NEVER with no period known; for irregular gaps, one
 * and a half mean gaps; else the ticks to the next beat after @now (a
 * beat missed means the loop went round once more without the buffer).
 */
unsigned long long mvgal_reuse_ahead(const struct mvgal_reuse *r,
				     unsigned long long now)
{
	if (!r->period || now < r->beat)
		return MVGAL_REUSE_NEVER;
	if (r->dev * 4 > r->mean)
		return (r->mean * 3 / 2 + 15) / 16;
	return r->period - (now - r->beat) % r->period;
}

/**
 * mvgal_evict_before() - should @a leave before @b?
 * @a: a candidate
 * @b: another
 * @policy: MVGAL_EVICT_*
 *
 * Return: true when @a goes first.
 */
bool mvgal_evict_before(const struct mvgal_evict_cand *a,
			const struct mvgal_evict_cand *b,
			enum mvgal_evict_policy policy)
{
	if (policy == MVGAL_EVICT_PREDICT && a->ahead != b->ahead)
		return a->ahead > b->ahead;
	if (a->last != b->last)
		return a->last < b->last;
	return a->index < b->index;
}

/**
 * mvgal_evict_order() - sort candidates, the first to leave first
 * @c: the candidates
 * @n: how many
 * @policy: MVGAL_EVICT_*
 *
 * An insertion sort: a pool holds tens of placements, not thousands, and
 * the order is stable, so equal candidates keep their LRU order.
 */
void mvgal_evict_order(struct mvgal_evict_cand *c, unsigned int n,
		       enum mvgal_evict_policy policy)
{
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		struct mvgal_evict_cand x = c[i];

		for (j = i; j && mvgal_evict_before(&x, &c[j - 1], policy); j--)
			c[j] = c[j - 1];
		c[j] = x;
	}
}
