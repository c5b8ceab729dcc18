// SPDX-License-Identifier: GPL-2.0
/*
 * GPU_ATTACH, GPU_DETACH, GPU_INFO, GPU_LINK and POOL_FD.
 */

#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/dmaengine.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_predict.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_pool.h"
#include "move/mvgal_place.h"
#include "uapi/mvgal_gpu_ioctl.h"

int mvgal_ioctl_gpu_attach(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_gpu_attach *args = data;
	struct drm_device *ddev;
	struct drm_file *dfile;
	struct mvgal_gpu *gpu;
	struct dma_buf *dmabuf;
	struct file *f;
	unsigned int i, slot, max_pool;
	int ret, idx;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (args->flags)
		return -EINVAL;
	if (args->gpu != MVGAL_GPU_ANY && args->gpu >= mvgal_max_gpus)
		return -EINVAL;

	f = fget(args->drm_fd);
	if (!f)
		return -EBADF;
	if (!S_ISCHR(file_inode(f)->i_mode) ||
	    imajor(file_inode(f)) != DRM_MAJOR || !f->private_data) {
		ret = -EINVAL;
		goto out_fput;
	}
	dfile = f->private_data;
	ddev = dfile->minor->dev;
	if (ddev == dev || !ddev->dev) {
		ret = -EINVAL;
		goto out_fput;
	}

	dmabuf = dma_buf_get(args->pool_fd);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_fput;
	}
	max_pool = READ_ONCE(mvgal_max_pool_mb);
	if (max_pool && dmabuf->size > (u64)max_pool << 20) {
		dma_buf_put(dmabuf);
		ret = -E2BIG;
		goto out_fput;
	}

	mutex_lock(&mdev->gpu_lock);
	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		if (mdev->gpus[i] && mdev->gpus[i]->ddev == ddev) {
			ret = -EEXIST;
			goto out_unlock;
		}
	}
	if (args->gpu != MVGAL_GPU_ANY) {
		slot = args->gpu;
		if (mdev->gpus[slot]) {
			ret = -EBUSY;
			goto out_unlock;
		}
	} else {
		for (slot = 0; slot < mvgal_max_gpus; slot++)
			if (!mdev->gpus[slot])
				break;
		if (slot == mvgal_max_gpus) {
			ret = -ENOSPC;
			goto out_unlock;
		}
	}
	if (!mvgal_pool_is_native(ddev, dmabuf)) {
		ret = -EINVAL;
		goto out_unlock;
	}

	gpu = kzalloc(sizeof(*gpu), GFP_KERNEL);
	if (!gpu) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	gpu->mdev = mdev;
	gpu->index = slot;
	INIT_LIST_HEAD(&gpu->lru);
	/* Without it the GPU works, only nothing is prefetched for it. */
	gpu->pred = kvmalloc(sizeof(*gpu->pred), GFP_KERNEL);
	if (gpu->pred)
		mvgal_predict_init(gpu->pred);
	gpu->ddev = ddev;
	drm_dev_get(ddev);
	gpu->dev = get_device(ddev->dev);
	mvgal_gpu_identify(gpu);

	if (drm_dev_enter(ddev, &idx)) {
		ret = mvgal_pool_init(&gpu->pool, dmabuf, gpu->dev);
		drm_dev_exit(idx);
	} else {
		ret = -ENODEV;
	}
	if (ret) {
		mvgal_gpu_put_refs(gpu);
		kvfree(gpu->pred);
		kfree(gpu);
		goto out_unlock;
	}
	dmabuf = NULL; /* the pool owns the reference now */

	mdev->gpus[slot] = gpu;
	mdev->gpu_count++;
	mvgal_gpu_link_all(mdev, gpu);
	drm_info(&mdev->drm, "GPU %u attached: %s %s, NUMA node %d, pool %llu MiB\n",
		 slot, gpu->driver, gpu->slot, gpu->numa_node,
		 gpu->pool.size >> 20);
	args->gpu = slot;
	ret = 0;

out_unlock:
	mutex_unlock(&mdev->gpu_lock);
	if (dmabuf)
		dma_buf_put(dmabuf);
out_fput:
	fput(f);
	return ret;
}

int mvgal_ioctl_gpu_detach(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_gpu_detach *args = data;
	struct mvgal_gpu *gpu;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (args->flags)
		return -EINVAL;

	mutex_lock(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, args->gpu, &ret);
	if (!gpu)
		goto out;
	/* Every placement goes home first; a pool that still holds a
	 * device-only buffer (or a live session) cannot go.
	 */
	ret = mvgal_gpu_drain(mdev, gpu);
	if (!ret) {
		mutex_lock(&gpu->pool.lock);
		if (gpu->pool.nr_allocs)
			ret = -EBUSY;
		mutex_unlock(&gpu->pool.lock);
	}
	if (!ret)
		mvgal_gpu_remove(mdev, gpu);
out:
	mutex_unlock(&mdev->gpu_lock);
	return ret;
}

int mvgal_ioctl_gpu_info(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_gpu_info *args = data;
	struct mvgal_gpu *gpu;
	u64 used, largest, nr;
	int ret = 0;

	if (args->flags)
		return -EINVAL;

	mutex_lock(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, args->gpu, &ret);
	if (!gpu)
		goto out;
	mvgal_pool_usage(&gpu->pool, &used, &largest, &nr);
	args->bus = gpu->pdev ? MVGAL_BUS_PCI : MVGAL_BUS_PLATFORM;
	args->numa_node = gpu->numa_node < 0 ? MVGAL_NUMA_NONE : gpu->numa_node;
	args->pci_vendor = gpu->pdev ? gpu->pdev->vendor : 0;
	args->pci_device = gpu->pdev ? gpu->pdev->device : 0;
	args->pci_subvendor = gpu->pdev ? gpu->pdev->subsystem_vendor : 0;
	args->pci_subdevice = gpu->pdev ? gpu->pdev->subsystem_device : 0;
	mutex_lock(&gpu->pool.lock);
	args->state = gpu->active ? MVGAL_GPU_ACTIVE : MVGAL_GPU_IDLE;
	if (mvgal_gpu_unplugged(gpu))
		args->state = MVGAL_GPU_GONE;
	args->state_changes = gpu->state_changes;
	mutex_unlock(&gpu->pool.lock);
	args->pad = 0;
	args->pool_size = gpu->pool.size;
	args->pool_used = used;
	args->pool_allocations = nr;
	memcpy(args->driver, gpu->driver, sizeof(args->driver));
	memcpy(args->slot, gpu->slot, sizeof(args->slot));
	memcpy(args->root, gpu->root, sizeof(args->root));
out:
	mutex_unlock(&mdev->gpu_lock);
	return ret;
}

int mvgal_ioctl_gpu_link(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_gpu_link *args = data;
	const struct mvgal_link *link;
	unsigned int i;
	int ret = 0;

	if (args->flags || args->src == args->dst)
		return -EINVAL;

	mutex_lock(&mdev->gpu_lock);
	if (!mvgal_gpu_lookup(mdev, args->src, &ret) ||
	    !mvgal_gpu_lookup(mdev, args->dst, &ret))
		goto out;
	link = &mdev->links[args->src][args->dst];
	args->link_flags = link->link_flags;
	args->methods = link->verdict.methods;
	args->chosen = link->verdict.chosen;
	args->why = link->verdict.why;
	args->import_error = link->import_error;
	for (i = 0; i < MVGAL_METHOD_COUNT; i++)
		args->reasons[i] = link->verdict.reasons[i];
out:
	mutex_unlock(&mdev->gpu_lock);
	return ret;
}

int mvgal_ioctl_pool_fd(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_pool_fd *args = data;
	struct dma_buf *dmabuf = NULL;
	struct mvgal_gpu *gpu;
	int ret = 0, fd;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (args->flags || args->pad || args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	mutex_lock(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, args->gpu, &ret);
	if (gpu) {
		dmabuf = gpu->pool.dmabuf;
		get_dma_buf(dmabuf);
	}
	mutex_unlock(&mdev->gpu_lock);
	if (!dmabuf)
		return ret;
	fd = dma_buf_fd(dmabuf, O_CLOEXEC | O_RDWR);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	args->fd = fd;
	return 0;
}
