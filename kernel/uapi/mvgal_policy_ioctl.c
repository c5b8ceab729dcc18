// SPDX-License-Identifier: GPL-2.0
/*
 * REPLICATE and ADVISE.
 */

#include <linux/bitmap.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_range.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "move/mvgal_place.h"
#include "policy/mvgal_advice.h"
#include "policy/mvgal_replicate.h"
#include "uapi/mvgal_policy_ioctl.h"

int mvgal_ioctl_replicate(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_replicate *args = data;
	u32 list[MVGAL_MAX_GPUS], gpus = 0, i;
	struct dma_fence *in_fence = NULL;
	unsigned long first, last;
	struct mvgal_bo *bo;
	int ret, fd;

	if (args->flags || !args->size || !args->nr_gpus ||
	    args->nr_gpus > MVGAL_MAX_GPUS || args->priority >= MVGAL_PRIO_COUNT)
		return -EINVAL;
	if (copy_from_user(list, u64_to_user_ptr(args->gpus),
			   args->nr_gpus * sizeof(list[0])))
		return -EFAULT;
	for (i = 0; i < args->nr_gpus; i++) {
		if (list[i] >= mvgal_max_gpus || gpus & BIT(list[i]))
			return -EINVAL;
		gpus |= BIT(list[i]);
	}
	if (!READ_ONCE(mvgal_enable_memory_migration))
		return -EPERM;
	bo = mvgal_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;
	ret = -EINVAL;
	if (!mvgal_range_ok(args->offset, args->size, bo->size))
		goto out_put;
	if (args->in_fence_fd != -1) {
		in_fence = sync_file_get_fence(args->in_fence_fd);
		if (!in_fence)
			goto out_put;
	}
	mvgal_chunk_span(args->offset, args->size, bo->chunk_shift, &first,
			 &last);
	ret = mvgal_place_copies(mdev, file, bo, first, last, gpus, false, 0,
				 args->priority, in_fence, &fd, &args->bytes);
	if (!ret)
		args->out_fence_fd = fd;
	dma_fence_put(in_fence);
out_put:
	drm_gem_object_put(&bo->base);
	return ret;
}

static int mvgal_advise_check(struct mvgal_device *mdev,
			      const struct drm_mvgal_advise *args, u32 rm)
{
	if (args->flags & ~MVGAL_ADVISE_FLAGS ||
	    rm == (MVGAL_ADVISE_READ_MOSTLY | MVGAL_ADVISE_NOT_READ_MOSTLY) ||
	    (!rm && (args->offset || args->size)) ||
	    (!(args->flags & MVGAL_ADVISE_SET) &&
	     (args->workload || args->preferred || args->accessed_by)))
		return -EINVAL;
	if (args->flags & MVGAL_ADVISE_SET)
		return mvgal_advice_check(mdev, args);
	return 0;
}

/*
 * Checks the advice against @bo: the GPUs it names may use it, the
 * READ_MOSTLY range lies in it (its chunks into *@first, *@last). Room
 * for the chunks' bits is made before anything changes (none to clear
 * bits: a chunk without a record has none).
 */
static int mvgal_advise_validate(struct mvgal_bo *bo,
				 const struct drm_mvgal_advise *args, u32 rm,
				 unsigned long *first, unsigned long *last)
{
	int ret = 0;

	if (args->flags & MVGAL_ADVISE_SET &&
	    mvgal_advice_gpus(args) & ~mvgal_bo_gpus_allowed(bo))
		return -EPERM;
	if (!rm)
		return 0;
	if (!args->size || !mvgal_range_ok(args->offset, args->size, bo->size))
		return -EINVAL;
	mvgal_chunk_span(args->offset, args->size, bo->chunk_shift, first,
			 last);
	if (rm == MVGAL_ADVISE_READ_MOSTLY) {
		mutex_lock(&bo->lock);
		ret = mvgal_chunks_ensure(bo, *first, *last);
		mutex_unlock(&bo->lock);
	}
	return ret;
}

/* Without SET, the advice in effect is what the call reads and keeps. */
static void mvgal_advise_current(struct mvgal_bo *bo,
				 struct drm_mvgal_advise *args)
{
	if (args->flags & MVGAL_ADVISE_SET)
		return;
	mutex_lock(&bo->lock);
	args->workload = bo->policy.workload;
	args->preferred = mvgal_advice_preferred(bo);
	args->accessed_by = bo->policy.accessed_by;
	mutex_unlock(&bo->lock);
}

/*
 * Applies the placement the rule chose on @gpus, pinning them for a PIN
 * placement; advice set or applied without placing drops the pins.
 * Placed first: should that fail, the advice stays as it was. The pins
 * are what this advice applied pins: none once the advice changes
 * without being applied.
 */
static int mvgal_advise_apply(struct mvgal_device *mdev,
			      struct drm_file *file, struct mvgal_bo *bo,
			      const struct drm_mvgal_advise *args,
			      u32 placement, u32 gpus, int *fd)
{
	u64 bytes;

	if (args->flags & MVGAL_ADVISE_APPLY && gpus) {
		if (!READ_ONCE(mvgal_enable_memory_migration))
			return -EPERM;
		return mvgal_place_copies(mdev, file, bo, 0, bo->nchunks - 1,
					  gpus, true,
					  placement == MVGAL_PLACEMENT_PIN ?
					  gpus : 0, MVGAL_PRIO_NORMAL, NULL,
					  fd, &bytes);
	}
	if (args->flags & (MVGAL_ADVISE_SET | MVGAL_ADVISE_APPLY)) {
		down_read(&mdev->gpu_lock);
		mutex_lock(&bo->lock);
		mvgal_place_pin(bo, 0);
		mutex_unlock(&bo->lock);
		up_read(&mdev->gpu_lock);
	}
	return 0;
}

/* Stores the advice and the READ_MOSTLY bits; reports the bytes marked. */
static void mvgal_advise_store(struct mvgal_bo *bo,
			       struct drm_mvgal_advise *args, u32 rm,
			       unsigned long first, unsigned long last)
{
	mutex_lock(&bo->lock);
	if (args->flags & MVGAL_ADVISE_SET)
		mvgal_advice_set(bo, args);
	if (rm)
		mvgal_cbit_assign(bo, MVGAL_CB_READ_MOSTLY, first, last,
				  rm == MVGAL_ADVISE_READ_MOSTLY);
	args->read_mostly =
		(u64)mvgal_cbit_weight(bo, MVGAL_CB_READ_MOSTLY) <<
		bo->chunk_shift;
	args->read_mostly = min_t(u64, args->read_mostly, bo->base.size);
	mutex_unlock(&bo->lock);
}

int mvgal_ioctl_advise(struct drm_device *dev, void *data,
		       struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_advise *args = data;
	const struct drm_mvgal_advise in = *args;
	u32 rm = args->flags & (MVGAL_ADVISE_READ_MOSTLY |
				MVGAL_ADVISE_NOT_READ_MOSTLY);
	unsigned long first = 0, last = 0;
	u32 placement, target, gpus;
	struct mvgal_bo *bo;
	int ret, fd = -1;

	ret = mvgal_advise_check(mdev, args, rm);
	if (ret)
		return ret;
	/* Advice changes how the buffer is kept for every user of it. */
	bo = mvgal_bo_lookup_access(file, args->handle,
				    (args->flags & MVGAL_ADVISE_SET) || rm, &ret);
	if (!bo)
		return ret;
	/* One ADVISE at a time: advice and pins change together. */
	mutex_lock(&mdev->advise_lock);
	ret = mvgal_advise_validate(bo, args, rm, &first, &last);
	if (ret)
		goto out_put;
	mvgal_advise_current(bo, args);
	placement = mvgal_advice_rule(mdev, args, bo, &target, &gpus);
	ret = mvgal_advise_apply(mdev, file, bo, args, placement, gpus, &fd);
	if (ret)
		goto out_put;
	mvgal_advise_store(bo, args, rm, first, last);
	args->placement = placement;
	args->target = target;
	args->out_fence_fd = fd;
out_put:
	mutex_unlock(&mdev->advise_lock);
	drm_gem_object_put(&bo->base);
	/* drm_ioctl() copies the struct back even on failure: a refused
	 * call hands it back as it was sent.
	 */
	if (ret)
		*args = in;
	return ret;
}
