/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NUMA placement of host pages: a buffer's pages belong on the node of the
 * GPU whose sessions use it most.
 */
#ifndef MVGAL_POLICY_NUMA_H
#define MVGAL_POLICY_NUMA_H

#include <linux/types.h>

struct mvgal_bo;
struct mvgal_gpu;

void mvgal_numa_kick(struct mvgal_bo *bo);
void mvgal_numa_use(struct mvgal_bo *bo, struct mvgal_gpu *gpu);
void mvgal_numa_delay_set(unsigned int ms);
void mvgal_numa_delay_get(unsigned int *ms, unsigned int *batches);

#endif /* MVGAL_POLICY_NUMA_H */
