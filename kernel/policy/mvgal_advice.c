// SPDX-License-Identifier: GPL-2.0
/*
 * Placement advice (ADVISE): the GPUs a buffer's advice allows and the
 * rule that picks where it is placed.
 */

#include <linux/bitmap.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_pool.h"
#include "bo/mvgal_bo.h"
#include "policy/mvgal_advice.h"

/* The GPUs that may use @bo (see mvgal_bo_gpu_may_use()). */
u32 mvgal_bo_gpus_allowed(const struct mvgal_bo *bo)
{
	u32 g, mask = 0;

	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (!mvgal_bo_gpu_may_use(bo, g))
			mask |= BIT(g);
	return mask;
}

/* The pool with the most room of @gpus (all attached ones for 0). */
static u32 mvgal_most_free(struct mvgal_device *mdev, u32 gpus)
{
	u64 best = 0, used, largest, allocs, room;
	u32 g, pick = MVGAL_GPU_ANY;

	down_read(&mdev->gpu_lock);
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		struct mvgal_gpu *gpu = mdev->gpus[g];

		if (!gpu || (gpus && !(gpus & BIT(g))))
			continue;
		mvgal_pool_usage(&gpu->pool, &used, &largest, &allocs);
		room = gpu->pool.budget > used ? gpu->pool.budget - used : 0;
		if (pick == MVGAL_GPU_ANY || room > best) {
			best = room;
			pick = g;
		}
	}
	up_read(&mdev->gpu_lock);
	return pick;
}

/*
 * The placement rules for @bo under its advice, in the order struct
 * drm_mvgal_advise gives them: the placement, the GPU it names, and the
 * GPUs to copy to.
 */
u32 mvgal_advice_rule(struct mvgal_device *mdev,
		      const struct drm_mvgal_advise *a,
		      const struct mvgal_bo *bo, u32 *target, u32 *gpus)
{
	u64 replicate_max = (u64)READ_ONCE(mvgal_graphics_replicate_mb) << 20;
	u64 size = bo->size;
	u32 by = a->accessed_by, first;

	first = a->preferred != MVGAL_GPU_ANY ? a->preferred :
		by ? __ffs(by) : MVGAL_GPU_ANY;
	*target = first;
	*gpus = first != MVGAL_GPU_ANY ? BIT(first) : 0;
	switch (a->workload) {
	case MVGAL_WORKLOAD_GRAPHICS:
		if (size < replicate_max && hweight32(by) > 1) {
			*gpus |= by;
			*target = first;
			return MVGAL_PLACEMENT_REPLICATE;
		}
		if (size >= replicate_max && *gpus)
			return MVGAL_PLACEMENT_PIN;
		if (*gpus)
			return MVGAL_PLACEMENT_FIRST;
		break;
	case MVGAL_WORKLOAD_COMPUTE:
	case MVGAL_WORKLOAD_AI:
		*target = mvgal_most_free(mdev, by ?: mvgal_bo_gpus_allowed(bo));
		*gpus = *target != MVGAL_GPU_ANY ? BIT(*target) : 0;
		if (*gpus)
			return MVGAL_PLACEMENT_MOST_FREE;
		break;
	default:
		if (*gpus)
			return MVGAL_PLACEMENT_FIRST;
		break;
	}
	*target = MVGAL_GPU_ANY;
	*gpus = 0;
	return MVGAL_PLACEMENT_HOST;
}

/* The GPUs new advice names (checked to be in range). */
u32 mvgal_advice_gpus(const struct drm_mvgal_advise *args)
{
	u32 gpus = args->accessed_by;

	if (args->preferred != MVGAL_GPU_ANY)
		gpus |= BIT(args->preferred);
	return gpus;
}

/* Checks the GPUs of new advice: in range (-EINVAL) and attached (-ENODEV). */
int mvgal_advice_check(struct mvgal_device *mdev,
		       const struct drm_mvgal_advise *args)
{
	u32 gpus, g;
	int ret = 0;

	if (args->workload > MVGAL_WORKLOAD_AI ||
	    (args->preferred != MVGAL_GPU_ANY &&
	     args->preferred >= mvgal_max_gpus) ||
	    args->accessed_by >> mvgal_max_gpus)
		return -EINVAL;
	gpus = mvgal_advice_gpus(args);
	down_read(&mdev->gpu_lock);
	for (g = 0; g < MVGAL_MAX_GPUS && !ret; g++)
		if (gpus & BIT(g) && !mdev->gpus[g])
			ret = -ENODEV;
	up_read(&mdev->gpu_lock);
	return ret;
}

/**
 * mvgal_advice_set() - @args's advice becomes @bo's
 * @bo: the buffer; caller holds bo->lock
 * @args: checked advice (mvgal_advice_check())
 */
void mvgal_advice_set(struct mvgal_bo *bo,
		      const struct drm_mvgal_advise *args)
{
	lockdep_assert_held(&bo->lock);
	bo->policy.workload = args->workload;
	/* A new buffer's zero is no preference: the GPU is kept plus one. */
	bo->policy.preferred = args->preferred == MVGAL_GPU_ANY ? 0 :
			       args->preferred + 1;
	bo->policy.accessed_by = args->accessed_by;
}

/* The GPU @bo's advice prefers, or MVGAL_GPU_ANY; caller holds bo->lock. */
u32 mvgal_advice_preferred(const struct mvgal_bo *bo)
{
	return bo->policy.preferred ? bo->policy.preferred - 1 : MVGAL_GPU_ANY;
}
