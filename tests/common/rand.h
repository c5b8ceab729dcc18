/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The random numbers of the fuzzer and the stress test: one xorshift64*
 * state per thread, seeded by the caller, so that a seed replays a run.
 */
#ifndef MVGAL_TEST_RAND_H
#define MVGAL_TEST_RAND_H

#include <stdint.h>

static __thread uint64_t rs;

static inline uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 2685821657736338717ULL;
}

static inline uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

#endif /* MVGAL_TEST_RAND_H */
