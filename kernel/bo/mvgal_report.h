/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a buffer reports about itself: the nodes of its host pages and where
 * each of its chunks is (BO_INFO residency).
 */
#ifndef MVGAL_BO_REPORT_H
#define MVGAL_BO_REPORT_H

#include <linux/types.h>

struct mvgal_bo;

u32 mvgal_bo_pages_node(struct mvgal_bo *bo);
void mvgal_bo_residency(struct mvgal_bo *bo, u64 *valid, u64 *owned);

#endif /* MVGAL_BO_REPORT_H */
