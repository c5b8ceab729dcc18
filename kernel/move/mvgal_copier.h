/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The copiers: who makes each copy the migration engine and CPU accesses
 * plan, by the method the path selector chose.
 */
#ifndef MVGAL_MOVE_COPIER_H
#define MVGAL_MOVE_COPIER_H

#include <linux/types.h>

struct mvgal_bo;

int mvgal_copy(struct mvgal_bo *bo, unsigned int dst, unsigned int src,
	       u64 off, u64 len, unsigned int *method, void *bounce);

#endif /* MVGAL_MOVE_COPIER_H */
