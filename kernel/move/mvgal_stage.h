/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Staged writes: small CPU writes that do not wait for the GPU work on
 * their chunks.
 */
#ifndef MVGAL_MOVE_STAGE_H
#define MVGAL_MOVE_STAGE_H

#include <linux/types.h>

struct drm_file;
struct mvgal_bo;

int mvgal_stage_write(struct mvgal_bo *bo, u64 off, u64 len, void *buf,
		      struct drm_file *file);

#endif /* MVGAL_MOVE_STAGE_H */
