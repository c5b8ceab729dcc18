/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Byte ranges of buffers: the one check every ranged operation makes.
 */
#ifndef MVGAL_RANGE_H
#define MVGAL_RANGE_H

#include "mvgal_core_types.h"

/*
 * mvgal_range_ok() - does [off, off + len) lie inside [0, size)?
 *
 * Written so that no sum can overflow: a huge @off or @len that would
 * wrap around is out of range, never a small range.
 */
static inline bool mvgal_range_ok(unsigned long long off,
				  unsigned long long len,
				  unsigned long long size)
{
	return off <= size && len <= size - off;
}

/* Do [a, a + len) and [b, b + len) overlap? (Both already in range.) */
static inline bool mvgal_range_overlap(unsigned long long a,
				       unsigned long long b,
				       unsigned long long len)
{
	return len && (a < b ? b - a < len : a - b < len);
}

#endif /* MVGAL_RANGE_H */
