/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU mappings of a buffer: tearing down the PTEs of chunks whose current
 * copy leaves home, so that the next CPU access faults.
 */
#ifndef MVGAL_BO_CPUMAP_H
#define MVGAL_BO_CPUMAP_H

#include <linux/types.h>

struct mvgal_bo;

void mvgal_bo_zap(struct mvgal_bo *bo, unsigned long first, unsigned long last);

#endif /* MVGAL_BO_CPUMAP_H */
