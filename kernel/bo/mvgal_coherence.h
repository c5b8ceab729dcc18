/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A buffer's coherence records: their setup at creation or import, the search
 * for chunks a location lacks, and taking in chunks a location wrote.
 */
#ifndef MVGAL_BO_COHERENCE_H
#define MVGAL_BO_COHERENCE_H

#include <linux/types.h>

struct mvgal_bo;

void mvgal_bo_coherence_init(struct mvgal_bo *bo);
unsigned long mvgal_next_missing(struct mvgal_bo *bo, unsigned long c,
				 unsigned long last, unsigned int dst);
void mvgal_chunks_written(struct mvgal_bo *bo, unsigned long first,
			  unsigned long last, unsigned int loc);

#endif /* MVGAL_BO_COHERENCE_H */
