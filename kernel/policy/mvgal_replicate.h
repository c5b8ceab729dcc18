/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replication: whether a READ session gets a replica, the chunks sessions
 * touch (what a prefetch copies), and copying a range to several GPUs.
 */
#ifndef MVGAL_POLICY_REPLICATE_H
#define MVGAL_POLICY_REPLICATE_H

#include <linux/types.h>

struct dma_fence;
struct drm_file;
struct mvgal_bo;
struct mvgal_device;
struct mvgal_live;

/* Sessions a buffer's touched chunks are sampled from: one in this many. */
#define MVGAL_TOUCH_SAMPLE	16

bool mvgal_policy_replicas(struct mvgal_bo *bo, unsigned int gpu,
			   const struct mvgal_live *l);
void mvgal_policy_begun(struct mvgal_bo *bo, const struct mvgal_live *l);
int mvgal_place_copies(struct mvgal_device *mdev, struct drm_file *file,
		       struct mvgal_bo *bo,
		       unsigned long first, unsigned long last,
		       u32 gpus, bool set_pins, u32 pin, u32 prio,
		       struct dma_fence *in_fence, int *fd, u64 *bytes);

#endif /* MVGAL_POLICY_REPLICATE_H */
