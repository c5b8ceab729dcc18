/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locking a buffer for planning copies: its reservation, a fence slot and its
 * lock, with the CPU's pending writes taken in.
 */
#ifndef MVGAL_MOVE_XACT_H
#define MVGAL_MOVE_XACT_H

#include <linux/types.h>

struct mvgal_bo;

int mvgal_bo_lock_copies(struct mvgal_bo *bo);
void mvgal_bo_unlock_copies(struct mvgal_bo *bo);

#endif /* MVGAL_MOVE_XACT_H */
