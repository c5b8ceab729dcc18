/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placement advice (ADVISE): the GPUs a buffer's advice allows and the rule
 * that picks where it is placed.
 */
#ifndef MVGAL_POLICY_ADVICE_H
#define MVGAL_POLICY_ADVICE_H

#include <linux/types.h>

struct drm_mvgal_advise;
struct mvgal_bo;
struct mvgal_device;

u32 mvgal_bo_gpus_allowed(const struct mvgal_bo *bo);
u32 mvgal_advice_rule(struct mvgal_device *mdev,
		      const struct drm_mvgal_advise *a,
		      const struct mvgal_bo *bo, u32 *target, u32 *gpus);
u32 mvgal_advice_gpus(const struct drm_mvgal_advise *args);
int mvgal_advice_check(struct mvgal_device *mdev,
		       const struct drm_mvgal_advise *args);
void mvgal_advice_set(struct mvgal_bo *bo,
		      const struct drm_mvgal_advise *args);
u32 mvgal_advice_preferred(const struct mvgal_bo *bo);

#endif /* MVGAL_POLICY_ADVICE_H */
