/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Access-sequence prediction for predictive prefetch.
 *
 * Workloads replay the same buffer sequence over and over (frames,
 * training iterations). One predictor per GPU remembers, for each buffer
 * that GPU used recently, which buffer it used right after it last time
 * and how many times in a row that same successor followed. Following
 * those successor edges from the buffer just accessed gives the buffers
 * to prefetch next; the confidence threshold keeps one-off orders (and
 * random access) from causing useless copies.
 *
 * Confidence of an edge X -> Y: 0 the first time Y follows X, +1 each
 * further time Y follows X with no other successor in between (saturating
 * at MVGAL_PREDICT_CONF_MAX), back to 0 when another buffer follows X.
 * An edge is thus usable with threshold min_conf once it has been seen
 * min_conf + 1 times in a row.
 *
 * When prediction starts: a caller that asks for the successors of each
 * buffer right after accessing it, in a loop A B C D A B C D ..., gets
 * nothing during the first min_conf + 1 passes and full predictions from
 * the first access of pass min_conf + 2 on. With min_conf 1: after
 * A B C D A B C D, from A it gets B C D (D -> A was seen once only, so the
 * walk stops before it); at the third A, D -> A is confirmed too.
 *
 * Bounded and allocation-free: a fixed table of MVGAL_PREDICT_SLOTS
 * entries, set-associative (MVGAL_PREDICT_WAYS entries per set, picked by
 * a hash of the id), replacing the least recently used entry of the set.
 * Every operation but mvgal_predict_forget() and mvgal_predict_init()
 * costs O(MVGAL_PREDICT_WAYS) per id touched. No locking: the caller
 * serialises access to one predictor (one per GPU, under that GPU's lock).
 *
 * Buffer ids are never 0; 0 marks an empty slot and "no successor".
 */
#ifndef MVGAL_PREDICT_H
#define MVGAL_PREDICT_H

#include "mvgal_core_types.h"

#define MVGAL_PREDICT_WAYS	8
#define MVGAL_PREDICT_SETS	32
#define MVGAL_PREDICT_SLOTS	(MVGAL_PREDICT_SETS * MVGAL_PREDICT_WAYS)
#define MVGAL_PREDICT_CONF_MAX	255U

struct mvgal_predict_entry {
	unsigned long long id;		/* 0: slot empty */
	unsigned long long next;	/* successor last seen; 0: none yet */
	unsigned int conf;		/* repeats of @next in a row */
	unsigned int seen;		/* tick of the last use, for LRU */
};

struct mvgal_predict {
	struct mvgal_predict_entry slot[MVGAL_PREDICT_SLOTS];
	unsigned long long last;	/* previous id accessed; 0: none */
	unsigned int tick;		/* accesses so far, wraps harmlessly */
};

/**
 * mvgal_predict_init() - empty a predictor
 * @p: the predictor
 *
 * It predicts nothing until sequences have been observed again.
 */
void mvgal_predict_init(struct mvgal_predict *p);

/**
 * mvgal_predict_access() - the GPU accessed buffer @id
 * @p: that GPU's predictor
 * @id: the buffer; 0 is ignored (no buffer has it)
 *
 * Records the transition from the previous access to @id and makes @id
 * the previous access. The same id twice in a row is one use, not a
 * transition: it refreshes @id's entry and keeps its successor.
 */
void mvgal_predict_access(struct mvgal_predict *p, unsigned long long id);

/**
 * mvgal_predict_next() - the buffers likely to follow @from
 * @p: the predictor
 * @from: the buffer just accessed (usually the last mvgal_predict_access())
 * @min_conf: confidence every edge followed must have at least
 * @out: where to write the predicted ids, nearest first
 * @max: room in @out
 *
 * Follows successor edges from @from while they have a confidence of at
 * least @min_conf. Stops at @max ids, at an id with no usable edge, or when
 * the next id is @from or one already written: in a loop of N buffers at
 * most N - 1 ids come back, never @from itself.
 *
 * Return: the number of ids written to @out; 0 for @from == 0.
 */
unsigned int mvgal_predict_next(const struct mvgal_predict *p,
				unsigned long long from, unsigned int min_conf,
				unsigned long long *out, unsigned int max);

/**
 * mvgal_predict_forget() - buffer @id was freed
 * @p: the predictor
 * @id: the buffer
 *
 * Drops @id's entry and clears every edge leading to it, so it is never
 * predicted again, and stops the next access from counting as its
 * successor. Scans the whole table: meant for the rare free, not the
 * access path.
 */
void mvgal_predict_forget(struct mvgal_predict *p, unsigned long long id);

/**
 * mvgal_predict_known() - whether @id has an entry
 * @p: the predictor
 * @id: the buffer
 *
 * Return: true while @id is remembered (not evicted, not forgotten).
 */
bool mvgal_predict_known(const struct mvgal_predict *p, unsigned long long id);

#endif /* MVGAL_PREDICT_H */
