/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Access traces and reference replacement policies for the cache-replay
 * benchmark.
 *
 * The benchmark replays a trace of buffer indices 0..w-1 (all buffers the
 * same size) against a GPU pool that holds c of them, and compares the
 * kernel's hit ratio with what Belady's MIN gets on the same trace. MIN
 * is the ceiling no online policy can beat, so "the kernel gets 80% of
 * MIN's hits" says more than a bare hit ratio, which mostly measures the
 * trace. LRU is here as the floor a plain policy reaches.
 *
 * All the simulations use the same setting as the pool: demand fetching
 * (every miss is brought in, nothing is prefetched or bypassed) and an
 * empty cache at the start, so that the compulsory misses count too.
 *
 * Everything is header-only and static so that a benchmark and a unit
 * test can include it without a library; the functions are marked unused
 * so that including the header and calling only part of it still builds
 * with -Werror. Memory is taken with malloc() only where a function says
 * so, and always given back before it returns.
 */
#ifndef MVGAL_TRACE_H
#define MVGAL_TRACE_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#define MVGAL_TRACE_UNUSED __attribute__((unused))

/* A slot index or buffer that is not in the cache. */
#define MVGAL_TRACE_NONE UINT_MAX

/*
 * NOISY replaces one access in 2^MVGAL_TRACE_NOISY_SHIFT (1 in 8) by a
 * random buffer: often enough that a policy tuned for the pure loop is
 * disturbed, rarely enough that the loop still dominates.
 */
#define MVGAL_TRACE_NOISY_SHIFT 3

enum mvgal_trace_kind {
	MVGAL_TRACE_LOOP,
	MVGAL_TRACE_RANDOM,
	MVGAL_TRACE_SCAN,
	MVGAL_TRACE_MIX,
	MVGAL_TRACE_NOISY,
	MVGAL_TRACE_NKINDS,
};

/* NULL for a kind that does not exist, so that a caller can validate. */
static inline const char *mvgal_trace_name(enum mvgal_trace_kind kind)
{
	static const char *const names[MVGAL_TRACE_NKINDS] = {
		[MVGAL_TRACE_LOOP] = "looping",
		[MVGAL_TRACE_RANDOM] = "random",
		[MVGAL_TRACE_SCAN] = "scan",
		[MVGAL_TRACE_MIX] = "mixed",
		[MVGAL_TRACE_NOISY] = "noisy-loop",
	};

	if ((unsigned int)kind >= MVGAL_TRACE_NKINDS)
		return NULL;
	return names[kind];
}

/*
 * splitmix64: every seed, 0 included, gives a full-period sequence of
 * good quality, and it is the same on every machine and libc, which
 * rand() is not; a trace must be the same wherever it is replayed.
 */
struct mvgal_trace_rng {
	uint64_t s;
};

static inline void mvgal_trace_rng_init(struct mvgal_trace_rng *r,
					uint64_t seed)
{
	r->s = seed;
}

static inline uint64_t mvgal_trace_rng_next(struct mvgal_trace_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Uniform in [0, @bound), @bound > 0. A bare modulo would favour the low
 * values; the draws below 2^64 mod @bound are thrown away so that every
 * value has the same number of 64-bit draws mapping to it.
 */
static inline unsigned int mvgal_trace_rng_below(struct mvgal_trace_rng *r,
						 unsigned int bound)
{
	uint64_t b = bound, thresh = -b % b, x;

	do {
		x = mvgal_trace_rng_next(r);
	} while (x < thresh);
	return (unsigned int)(x % b);
}

/* Number of hot buffers in a SCAN trace for a pool of @c buffers. */
static inline unsigned int mvgal_trace_scan_hot(unsigned int c)
{
	return c / 2;
}

/**
 * mvgal_trace_gen() - write a trace of @n accesses to @out
 * @kind: which trace
 * @out: @n buffer indices, each in [0, @w)
 * @n: length of the trace
 * @w: number of buffers in the working set (the benchmark uses 2 * @c)
 * @c: pool capacity in buffers; only SCAN uses it
 * @seed: seed of the random choices; LOOP and SCAN make none and ignore it
 *
 * The traces, with i the position in the trace from 0:
 *
 * LOOP: out[i] = i mod w. A cyclic scan of the whole working set, as a
 * renderer touching every buffer once a frame; LRU always evicts the
 * buffer needed soonest, so with w > c it gets no hit at all.
 *
 * RANDOM: out[i] uniform in [0, w), independently. No locality: every
 * policy gets about c / w.
 *
 * SCAN: h = c / 2 hot buffers 0..h-1 and w - h cold ones h..w-1. Even
 * positions take the hot buffers round-robin, out[2k] = k mod h; odd
 * positions sweep the cold ones, out[2k + 1] = h + (k mod (w - h)). A
 * hot buffer comes back after 2h <= c accesses, with 2h - 1 <= c - 1
 * other buffers in between, so a policy that keeps what was used
 * recently hits it every time. A cold buffer comes back after w - 1
 * other buffers, so with w > c it is a one-pass scan that only pollutes
 * the pool: a policy that lets it push out hot buffers loses. LRU gets
 * exactly the hot accesses after the first h: ceil(n / 2) - h hits.
 *
 * MIX: the three patterns of a frame loop in one trace. h = c / 4 hot
 * buffers 0..h-1 (constants, touched at random), s = c / 2 streamed ones
 * h..h+s-1 (uploads, each back only after s frames) and the l = w - h - s
 * others, touched in a loop. Every 8 positions are one step: six loop
 * accesses, out[i] = h + s + (k mod l) for the k-th loop access, then a
 * hot buffer drawn uniformly, then the next streamed one in turn,
 * h + (i / 8 mod s). Needs h, s, l all non-zero.
 *
 * NOISY: the LOOP with noise. For each position, independently, with
 * probability 1 / 2^MVGAL_TRACE_NOISY_SHIFT (1/8) out[i] is a buffer drawn
 * uniformly from [0, w), otherwise out[i] = i mod w. A random access
 * replaces the loop's access at that position rather than delaying it:
 * the loop keeps its phase, as a frame keeps its order when something
 * else is touched. A random draw can equal i mod w, so the share of
 * positions differing from the LOOP is (1/8)(1 - 1/w).
 *
 * Its random accesses cannot be foreseen: even a policy that knows the
 * loop's phase exactly gets about 0.87 of Belady's hits on it.
 *
 * Return: 0, or -EINVAL for an unknown @kind, @w == 0, a SCAN whose hot
 * or cold set would be empty (c / 2 == 0 or c / 2 >= w), or a MIX with an
 * empty set.
 */
static MVGAL_TRACE_UNUSED int mvgal_trace_gen(enum mvgal_trace_kind kind,
					      unsigned int *out, size_t n,
					      unsigned int w, unsigned int c,
					      uint64_t seed)
{
	unsigned int h = mvgal_trace_scan_hot(c);
	struct mvgal_trace_rng r;
	size_t i;

	if (!w)
		return -EINVAL;
	mvgal_trace_rng_init(&r, seed);
	switch (kind) {
	case MVGAL_TRACE_LOOP:
		for (i = 0; i < n; i++)
			out[i] = (unsigned int)(i % w);
		return 0;
	case MVGAL_TRACE_RANDOM:
		for (i = 0; i < n; i++)
			out[i] = mvgal_trace_rng_below(&r, w);
		return 0;
	case MVGAL_TRACE_SCAN:
		if (!h || h >= w)
			return -EINVAL;
		for (i = 0; i < n; i++)
			out[i] = (i & 1) ? h + (unsigned int)(i / 2 % (w - h))
				       : (unsigned int)(i / 2 % h);
		return 0;
	case MVGAL_TRACE_MIX: {
		unsigned int hot = c / 4, s = c / 2, l;

		if (!hot || !s || hot + s >= w)
			return -EINVAL;
		l = w - hot - s;
		for (i = 0; i < n; i++) {
			size_t step = i / 8, at = i % 8;

			if (at < 6)
				out[i] = hot + s +
					 (unsigned int)((step * 6 + at) % l);
			else if (at == 6)
				out[i] = mvgal_trace_rng_below(&r, hot);
			else
				out[i] = hot + (unsigned int)(step % s);
		}
		return 0;
	}
	case MVGAL_TRACE_NOISY:
		for (i = 0; i < n; i++) {
			/* The top bits: the best ones of splitmix64. */
			if (!(mvgal_trace_rng_next(&r) >>
			      (64 - MVGAL_TRACE_NOISY_SHIFT)))
				out[i] = mvgal_trace_rng_below(&r, w);
			else
				out[i] = (unsigned int)(i % w);
		}
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * A replacement policy, called by mvgal_trace_simulate_ops().
 *
 * @victim is called on a miss when all c slots are full and returns the
 * slot to evict: an index into @res, where res[s] is the buffer in slot s
 * and @nres the number of slots. The new buffer takes the victim's slot.
 * @pos is the position of the missing access in the trace @t of length
 * @n: a policy may look back (LRU, LFU) or, to be an oracle, ahead.
 *
 * @touch, if not NULL, is called after every access with the slot that
 * now holds t[pos]: @hit is true if it was there already, false if it was
 * just brought in. It lets a policy keep per-slot state (a timestamp, a
 * reference bit, a count) without searching the trace.
 */
struct mvgal_trace_ops {
	unsigned int (*victim)(void *ctx, const unsigned int *res,
			       unsigned int nres, size_t pos,
			       const unsigned int *t, size_t n);
	void (*touch)(void *ctx, unsigned int slot, size_t pos, bool hit);
};

/**
 * mvgal_trace_simulate_ops() - replay a trace under a replacement policy
 * @t: the trace, @n buffer indices each in [0, @w)
 * @n: length of the trace
 * @w: number of buffers
 * @c: capacity of the cache in buffers; a capacity above @w is the same
 *     as @w (there are no more buffers to hold), 0 caches nothing
 * @ops: the policy; @ops->victim is required when 0 < @c < @w
 * @ctx: passed to the policy's callbacks
 *
 * Allocates @w + @c unsigned ints for the time of the call.
 *
 * Return: the number of hits, -EINVAL for a buffer index out of range, a
 * missing victim callback or a victim that is not a slot, -ENOMEM.
 */
static MVGAL_TRACE_UNUSED ssize_t
mvgal_trace_simulate_ops(const unsigned int *t, size_t n, unsigned int w,
			 unsigned int c, const struct mvgal_trace_ops *ops,
			 void *ctx)
{
	unsigned int *where, *res, used = 0, slot, b;
	ssize_t hits = 0;
	size_t i;

	if (c > w)
		c = w;
	if (!c) {
		for (i = 0; i < n; i++)
			if (t[i] >= w)
				return -EINVAL;
		return 0;
	}
	if (c < w && !ops->victim)
		return -EINVAL;
	where = malloc(sizeof(*where) * w);
	res = malloc(sizeof(*res) * c);
	if (!where || !res) {
		hits = -ENOMEM;
		goto out;
	}
	for (b = 0; b < w; b++)
		where[b] = MVGAL_TRACE_NONE;

	for (i = 0; i < n; i++) {
		bool hit;

		b = t[i];
		if (b >= w) {
			hits = -EINVAL;
			goto out;
		}
		slot = where[b];
		hit = slot != MVGAL_TRACE_NONE;
		if (hit) {
			hits++;
		} else if (used < c) {
			slot = used++;
		} else {
			slot = ops->victim(ctx, res, c, i, t, n);
			if (slot >= c) {
				hits = -EINVAL;
				goto out;
			}
			where[res[slot]] = MVGAL_TRACE_NONE;
		}
		res[slot] = b;
		where[b] = slot;
		if (ops->touch)
			ops->touch(ctx, slot, i, hit);
	}
out:
	free(res);
	free(where);
	return hits;
}

/**
 * mvgal_trace_simulate() - replay a trace under a victim-choosing policy
 * @victim_cb: on a miss with a full cache, the slot to evict (see struct
 *             mvgal_trace_ops); it sees only misses, so it must find
 *             anything else it needs in the trace
 *
 * The rest as mvgal_trace_simulate_ops().
 */
static MVGAL_TRACE_UNUSED ssize_t
mvgal_trace_simulate(const unsigned int *t, size_t n, unsigned int w,
		     unsigned int c,
		     unsigned int (*victim_cb)(void *ctx,
					       const unsigned int *res,
					       unsigned int nres, size_t pos,
					       const unsigned int *t, size_t n),
		     void *ctx)
{
	const struct mvgal_trace_ops ops = { .victim = victim_cb };

	return mvgal_trace_simulate_ops(t, n, w, c, &ops, ctx);
}

/**
 * mvgal_trace_next_use() - where each access's buffer is used next
 * @next: out, @n entries: next[i] is the smallest j > i with t[j] == t[i],
 *        or @n if the buffer is not used again
 *
 * One backward pass, remembering where each buffer was last seen from the
 * right. Allocates @w size_ts for the time of the call.
 *
 * Return: 0, -EINVAL for a buffer index out of range, -ENOMEM.
 */
static MVGAL_TRACE_UNUSED int mvgal_trace_next_use(const unsigned int *t,
						   size_t n, unsigned int w,
						   size_t *next)
{
	size_t *seen, i;
	unsigned int b;

	seen = malloc(sizeof(*seen) * (w ? w : 1));
	if (!seen)
		return -ENOMEM;
	for (b = 0; b < w; b++)
		seen[b] = n;
	for (i = n; i-- > 0;) {
		if (t[i] >= w) {
			free(seen);
			return -EINVAL;
		}
		next[i] = seen[t[i]];
		seen[t[i]] = i;
	}
	free(seen);
	return 0;
}

/*
 * Per-slot key for Belady and LRU: the victim is the slot with the
 * largest key (Belady: next use) or the smallest (LRU: last use).
 */
struct mvgal_trace_keyed {
	const size_t *next;	/* Belady only */
	size_t *key;		/* per slot */
};

static inline void mvgal_trace_belady_touch(void *ctx, unsigned int slot,
					    size_t pos, bool hit)
{
	struct mvgal_trace_keyed *k = ctx;

	k->key[slot] = k->next[pos];
}

/*
 * Furthest next use; a buffer never used again has next use n, the
 * furthest of all, so it goes first. Ties are between buffers not used
 * again, and which of them goes does not change the hits.
 */
static inline unsigned int mvgal_trace_belady_victim(void *ctx,
						     const unsigned int *res,
						     unsigned int nres,
						     size_t pos,
						     const unsigned int *t,
						     size_t n)
{
	struct mvgal_trace_keyed *k = ctx;
	unsigned int s, v = 0;

	for (s = 1; s < nres; s++)
		if (k->key[s] > k->key[v])
			v = s;
	return v;
}

static inline void mvgal_trace_lru_touch(void *ctx, unsigned int slot,
					 size_t pos, bool hit)
{
	struct mvgal_trace_keyed *k = ctx;

	k->key[slot] = pos;
}

static inline unsigned int mvgal_trace_lru_victim(void *ctx,
						  const unsigned int *res,
						  unsigned int nres, size_t pos,
						  const unsigned int *t,
						  size_t n)
{
	struct mvgal_trace_keyed *k = ctx;
	unsigned int s, v = 0;

	for (s = 1; s < nres; s++)
		if (k->key[s] < k->key[v])
			v = s;
	return v;
}

/**
 * mvgal_trace_belady() - hits of Belady's MIN (the optimal offline policy)
 * @t: the trace, @n buffer indices each in [0, @w)
 * @n: length of the trace
 * @w: number of buffers
 * @c: capacity of the cache in buffers
 *
 * On a miss with a full cache, evicts the buffer whose next use is the
 * furthest ahead, one never used again first. With demand fetching this
 * is optimal: no policy gets more hits on the trace. O(n * c) time;
 * allocates @n + @c size_ts besides what mvgal_trace_simulate_ops() does.
 *
 * Return: the number of hits, -EINVAL for a buffer index out of range,
 * -ENOMEM.
 */
static MVGAL_TRACE_UNUSED ssize_t mvgal_trace_belady(const unsigned int *t,
						     size_t n, unsigned int w,
						     unsigned int c)
{
	static const struct mvgal_trace_ops ops = {
		.victim = mvgal_trace_belady_victim,
		.touch = mvgal_trace_belady_touch,
	};
	struct mvgal_trace_keyed k;
	size_t *next;
	ssize_t ret;

	next = malloc(sizeof(*next) * (n ? n : 1));
	k.key = malloc(sizeof(*k.key) * (c ? c : 1));
	if (!next || !k.key) {
		ret = -ENOMEM;
		goto out;
	}
	ret = mvgal_trace_next_use(t, n, w, next);
	if (ret)
		goto out;
	k.next = next;
	ret = mvgal_trace_simulate_ops(t, n, w, c, &ops, &k);
out:
	free(k.key);
	free(next);
	return ret;
}

/**
 * mvgal_trace_lru() - hits of least-recently-used replacement
 *
 * Arguments and return as mvgal_trace_belady(); O(n * c) time, allocates
 * @c size_ts besides what mvgal_trace_simulate_ops() does.
 */
static MVGAL_TRACE_UNUSED ssize_t mvgal_trace_lru(const unsigned int *t,
						  size_t n, unsigned int w,
						  unsigned int c)
{
	static const struct mvgal_trace_ops ops = {
		.victim = mvgal_trace_lru_victim,
		.touch = mvgal_trace_lru_touch,
	};
	struct mvgal_trace_keyed k = { .next = NULL };
	ssize_t ret;

	k.key = malloc(sizeof(*k.key) * (c ? c : 1));
	if (!k.key)
		return -ENOMEM;
	ret = mvgal_trace_simulate_ops(t, n, w, c, &ops, &k);
	free(k.key);
	return ret;
}

/**
 * mvgal_trace_loop_belady() - Belady's hits on LOOP, in closed form
 * @n: length of the trace
 * @w: number of buffers, @w > @c
 * @c: capacity of the cache, @c >= 1
 *
 * On a cyclic trace the buffer used next the furthest ahead is the one
 * used most recently, so MIN is MRU here. The first lap is all misses
 * (c compulsory, then each new buffer replaces the one just brought in);
 * from then on the hits and misses alternate with a period of w - 1
 * accesses: c - 1 hits, then w - c misses, the run of kept buffers
 * moving back by one each period. In the long run MIN gets
 * (c - 1) / (w - 1) of the accesses, LRU none.
 *
 * Return: the hits, for the benchmark to print next to the measured
 * ratio; 0 for arguments outside the range above.
 */
static inline size_t mvgal_trace_loop_belady(size_t n, unsigned int w,
					     unsigned int c)
{
	size_t m;

	if (!c || c >= w || n <= w)
		return 0;
	m = n - w;
	return m / (w - 1) * (c - 1) +
	       (m % (w - 1) < c - 1 ? m % (w - 1) : c - 1);
}

#endif /* MVGAL_TRACE_H */
