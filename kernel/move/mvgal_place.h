/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placements of buffers in GPU pools, and the eviction that makes room
 * for them.
 */
#ifndef MVGAL_MOVE_PLACE_H
#define MVGAL_MOVE_PLACE_H

#include <linux/types.h>

#include "dev/mvgal_pool.h"

struct mvgal_bo;
struct mvgal_device;
struct mvgal_gpu;
struct mvgal_pool;

void mvgal_place_touch(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
		       unsigned int loc);
int mvgal_pool_alloc_evict(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a,
			   u64 size, u64 keep_ahead);
int mvgal_place_get(struct mvgal_bo *bo, struct mvgal_gpu *gpu);
int mvgal_place_get_for(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
			u64 keep_ahead);
int mvgal_place_adopt(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
		      struct mvgal_pool *pool);
void mvgal_place_pin(struct mvgal_bo *bo, u32 pin);
u32 mvgal_place_pins(struct mvgal_bo *bo);
int mvgal_place_drain(struct mvgal_bo *bo, unsigned int gidx, bool dying);
int mvgal_place_drain_counted(struct mvgal_bo *bo, unsigned int gidx,
			      bool dying, u64 *drained);
int mvgal_bo_lock_idle(struct mvgal_bo *bo, bool nowait);
int mvgal_gpu_drain(struct mvgal_device *mdev, struct mvgal_gpu *gpu);
unsigned int mvgal_evict_move_waits_read(void);

#endif /* MVGAL_MOVE_PLACE_H */
