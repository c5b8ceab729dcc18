/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fetching chunks: the source each missing chunk is copied from, planned as
 * copies of a job or made at once under the buffer's lock.
 */
#ifndef MVGAL_MOVE_FETCH_H
#define MVGAL_MOVE_FETCH_H

#include <linux/types.h>

struct mvgal_bo;
struct mvgal_job;

/*
 * What fetches made at once copied, for a caller that counts them as one
 * migration (mvgal_bo_count_moves()): bytes, and bit L for each location
 * L copied into or out of.
 */
struct mvgal_moved {
	u64 bytes;
	unsigned long locs;
};

int mvgal_migrate_plan(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned long first, unsigned long last,
		       unsigned int loc);
int mvgal_plan_fetch(struct mvgal_job *job, struct mvgal_bo *bo,
		     unsigned long first, unsigned long last, unsigned int dst);
int mvgal_fetch_locked(struct mvgal_bo *bo, unsigned long first,
		       unsigned long last, unsigned int dst,
		       struct mvgal_moved *moved);

#endif /* MVGAL_MOVE_FETCH_H */
