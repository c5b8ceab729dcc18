/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A buffer's per-chunk records, sparse: where each chunk's bytes are, and
 * a few bits per chunk. Leaves of MVGAL_LEAF_CHUNKS chunks are allocated
 * by the first operation that may change one of their chunks; until then
 * every chunk of a leaf is at home with no bit set.
 */
#ifndef MVGAL_CHUNKS_H
#define MVGAL_CHUNKS_H

#include <linux/types.h>

#include "core/mvgal_chunk.h"

struct mvgal_bo;

/* Per-chunk bits. All are under bo->lock. */
enum mvgal_cbit {
	MVGAL_CB_WRITTEN,	/* the CPU wrote it since HARVEST reset it */
	MVGAL_CB_PENDING,	/* ... since the chunk states took it in */
	MVGAL_CB_REFUSED,	/* refused for good after a hand-off */
	MVGAL_CB_READ_MOSTLY,	/* advised read-mostly */
	MVGAL_CB_TOUCHED,	/* named by the last sampled session */
	MVGAL_CB_COUNT,
};

int mvgal_chunks_cache_init(void);
void mvgal_chunks_cache_fini(void);

void mvgal_chunks_init(struct mvgal_bo *bo);
u64 mvgal_chunks_fini(struct mvgal_bo *bo);
int mvgal_chunks_ensure(struct mvgal_bo *bo, unsigned long first,
			unsigned long last);
int mvgal_chunks_ensure_map(struct mvgal_bo *bo, unsigned long base,
			    const unsigned long *map, unsigned long n);
unsigned long mvgal_chunks_leaves(struct mvgal_bo *bo, u64 *bytes);
bool mvgal_chunks_next_leaf(struct mvgal_bo *bo, unsigned long from,
			    unsigned long *first, unsigned long *last);

unsigned long mvgal_chunks_find_missing(struct mvgal_bo *bo, unsigned long c,
					unsigned long last, unsigned int loc);
const struct mvgal_chunk *mvgal_chunk_peek(struct mvgal_bo *bo,
					   unsigned long c);
struct mvgal_chunk *mvgal_chunk_at(struct mvgal_bo *bo, unsigned long c);
struct mvgal_chunk *mvgal_chunk_find(struct mvgal_bo *bo, unsigned long c);

bool mvgal_cbit_test(struct mvgal_bo *bo, enum mvgal_cbit b, unsigned long c);
bool mvgal_cbit_set(struct mvgal_bo *bo, enum mvgal_cbit b, unsigned long c);
void mvgal_cbit_assign(struct mvgal_bo *bo, enum mvgal_cbit b,
		       unsigned long first, unsigned long last, bool set);
void mvgal_cbit_clear_all(struct mvgal_bo *bo, enum mvgal_cbit b);
unsigned long mvgal_cbit_weight(struct mvgal_bo *bo, enum mvgal_cbit b);
bool mvgal_cbit_any(struct mvgal_bo *bo, enum mvgal_cbit b,
		    unsigned long first, unsigned long last);
bool mvgal_cbit_any_of(struct mvgal_bo *bo, enum mvgal_cbit b,
		       unsigned long base, const unsigned long *map,
		       unsigned long n);
bool mvgal_cbit_next_run(struct mvgal_bo *bo, enum mvgal_cbit b,
			 unsigned long from, unsigned long *start,
			 unsigned long *end);

#endif /* MVGAL_CHUNKS_H */
