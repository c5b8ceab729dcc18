// SPDX-License-Identifier: GPL-2.0
/*
 * PLACE_FD, PLACE_ADOPT and PLACE_FREE: exporting, lending and freeing
 * one GPU's placement of a buffer.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_bo.h"
#include "move/mvgal_export.h"
#include "move/mvgal_place.h"
#include "uapi/mvgal_place_ioctl.h"

int mvgal_ioctl_place_fd(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_place_fd *args = data;
	struct mvgal_export *e;
	struct dma_buf *dmabuf;
	struct mvgal_gpu *gpu;
	int ret, fd;

	if (args->flags & ~MVGAL_PLACE_FD_FLAGS || args->pad || args->pad2 ||
	    args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	e->bo = mvgal_bo_lookup_access(file, args->handle,
				       args->flags & MVGAL_PLACE_FD_RDWR, &ret);
	if (!e->bo)
		goto err_free;
	ret = mvgal_export_check(e->bo, args->gpu);
	if (ret)
		goto err_put;
	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, args->gpu, &ret);
	if (gpu) {
		mutex_lock(&e->bo->lock);
		ret = mvgal_export_pin(e, gpu, file);
		mutex_unlock(&e->bo->lock);
	}
	up_read(&mdev->gpu_lock);
	if (ret)
		goto err_put;
	dmabuf = mvgal_export_dmabuf(e, args->flags);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto err_put;
	}
	/* From here on the dma-buf owns @e: its release undoes all. */
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	args->fd = fd;
	args->size = dmabuf->size;
	return 0;

err_put:
	if (e->bo)
		drm_gem_object_put(&e->bo->base);
err_free:
	kfree(e);
	return ret;
}

int mvgal_ioctl_place_free(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_place_free *args = data;
	struct mvgal_gpu *gpu;
	struct mvgal_bo *bo;
	bool adopted;
	int ret = 0;

	if (args->flags || args->pad || args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	bo = mvgal_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;
	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, args->gpu, &ret);
	if (!gpu)
		goto out_unlock;
	if (bo->home == gpu) {
		ret = -EINVAL;
		goto out_unlock;
	}
	/* Pending work may still touch the placement: refuse, not wait. */
	ret = mvgal_bo_lock_idle(bo, true);
	if (ret)
		goto out_unlock;
	adopted = bo->pools.place[gpu->index] &&
		  bo->pools.place[gpu->index]->adopted;
	/* An exported placement stays while the export lives. */
	if (bo->sessions_at[gpu->index] || atomic_read(&bo->pools.exported[gpu->index]))
		ret = -EBUSY;
	else
		ret = mvgal_place_drain(bo, gpu->index, false);
	mutex_unlock(&bo->lock);
	/* A lent buffer is its lender's alone once this returns. */
	if (!ret && adopted)
		flush_work(&gpu->adopted_work);
out_unlock:
	up_read(&mdev->gpu_lock);
	drm_gem_object_put(&bo->base);
	return ret;
}

/*
 * The DRM device of GPU @index, a reference, for a call that may not hold
 * gpu_lock; NULL with *@err set when there is no GPU in use there.
 */
static struct drm_device *mvgal_adopt_ddev(struct mvgal_device *mdev,
					   u32 index, int *err)
{
	struct drm_device *ddev = NULL;
	struct mvgal_gpu *gpu;

	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, index, err);
	if (gpu) {
		ddev = gpu->ddev;
		drm_dev_get(ddev);
	}
	up_read(&mdev->gpu_lock);
	return ddev;
}

/*
 * @dmabuf, @ddev's own, becomes @bo's placement on GPU @index if that is
 * still @ddev; the placement owns the reference to @dmabuf then.
 */
static int mvgal_adopt_install(struct mvgal_device *mdev, struct mvgal_bo *bo,
			       u32 index, struct drm_device *ddev,
			       struct dma_buf *dmabuf)
{
	struct mvgal_pool *pool;
	struct mvgal_gpu *gpu;
	int ret;

	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, index, &ret);
	if (gpu && (gpu->ddev != ddev || READ_ONCE(gpu->detaching))) {
		gpu = NULL;
		ret = -ENODEV;	/* detached (and another attached) meanwhile */
	}
	if (gpu)
		ret = mvgal_gpu_adopt_pool(gpu, dmabuf, &pool);
	if (gpu && !ret) {
		mutex_lock(&bo->lock);
		ret = mvgal_place_adopt(bo, gpu, pool);
		mutex_unlock(&bo->lock);
		if (ret) {
			get_dma_buf(dmabuf);	/* the caller's again */
			mvgal_gpu_adopt_drop(gpu, pool);
		}
	}
	up_read(&mdev->gpu_lock);
	return ret;
}

int mvgal_ioctl_place_adopt(struct drm_device *dev, void *data,
			    struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_place_adopt *args = data;
	struct drm_device *ddev = NULL;
	struct dma_buf *dmabuf;
	struct mvgal_bo *bo;
	long wait;
	int ret;

	if (args->flags || args->pad || args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	bo = mvgal_bo_lookup_access(file, args->handle, true, &ret);
	if (!bo)
		return ret;
	ret = mvgal_export_check(bo, args->gpu);
	if (!ret && mvgal_bo_device_only(bo))
		ret = -EINVAL;
	if (ret)
		goto out_bo;
	dmabuf = dma_buf_get(args->fd);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_bo;
	}
	ret = -EINVAL;
	if (dmabuf->size != (u64)bo->npages << PAGE_SHIFT)
		goto out_dmabuf;
	ddev = mvgal_adopt_ddev(mdev, args->gpu, &ret);
	if (!ddev)
		goto out_dmabuf;
	/* No lock held: the driver's import tells whose buffer it is. */
	if (!mvgal_gpu_dmabuf_is_native(ddev, dmabuf)) {
		ret = -EINVAL;
		goto out_dmabuf;
	}
	/* The lender's work on it ends before mvgal clears and fills it. */
	wait = dma_resv_wait_timeout(dmabuf->resv, DMA_RESV_USAGE_BOOKKEEP,
				     true, MAX_SCHEDULE_TIMEOUT);
	if (wait < 0) {
		ret = wait;
		goto out_dmabuf;
	}
	ret = mvgal_adopt_install(mdev, bo, args->gpu, ddev, dmabuf);
	if (!ret)
		dmabuf = NULL;	/* the placement's */
out_dmabuf:
	if (dmabuf)
		dma_buf_put(dmabuf);
	if (ddev)
		drm_dev_put(ddev);
out_bo:
	drm_gem_object_put(&bo->base);
	return ret;
}
