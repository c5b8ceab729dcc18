/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Predictive prefetch.
 */
#ifndef MVGAL_POLICY_PREFETCH_H
#define MVGAL_POLICY_PREFETCH_H

#include <linux/types.h>

struct mvgal_bo;
struct mvgal_device;
struct mvgal_gpu;

void mvgal_prefetch_access(struct mvgal_gpu *gpu, struct mvgal_bo *bo,
			   unsigned int loc, bool last);
void mvgal_prefetch_init(struct mvgal_device *mdev);

#endif /* MVGAL_POLICY_PREFETCH_H */
