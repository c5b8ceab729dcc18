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

#include "dev/mvgal_device.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_path.h"
#include "dev/mvgal_pool.h"
#include "move/mvgal_place.h"
#include "uapi/mvgal_gpu_ioctl.h"

static int mvgal_attach_check(const struct drm_mvgal_gpu_attach *args)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (args->flags)
		return -EINVAL;
	if (args->gpu != MVGAL_GPU_ANY && args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	/* Said outright: fget() would take a negative fd as a large one. */
	if (args->drm_fd < 0 || args->pool_fd < 0)
		return -EBADF;
	return 0;
}

/*
 * The DRM device an open file @f is a node of, if it is one and not of
 * @dev itself. Return: the device (as long as @f is held) or NULL.
 */
static struct drm_device *mvgal_attach_ddev(struct drm_device *dev,
					    struct file *f)
{
	struct drm_file *dfile;
	struct drm_device *ddev;

	if (!S_ISCHR(file_inode(f)->i_mode) ||
	    imajor(file_inode(f)) != DRM_MAJOR || !f->private_data)
		return NULL;
	dfile = f->private_data;
	ddev = dfile->minor->dev;
	if (ddev == dev || !ddev->dev)
		return NULL;
	return ddev;
}

/* The pool's dma-buf, within max_pool_mb. Return: it or ERR_PTR. */
static struct dma_buf *mvgal_attach_pool_dmabuf(int fd)
{
	struct dma_buf *dmabuf;
	unsigned int max_pool;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return dmabuf;
	max_pool = READ_ONCE(mvgal_max_pool_mb);
	if (max_pool && dmabuf->size > (u64)max_pool << 20) {
		dma_buf_put(dmabuf);
		return ERR_PTR(-E2BIG);
	}
	return dmabuf;
}

int mvgal_ioctl_gpu_attach(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct drm_mvgal_gpu_attach *args = data;
	struct drm_device *ddev;
	struct dma_buf *dmabuf;
	struct file *f;
	int ret;

	ret = mvgal_attach_check(args);
	if (ret)
		return ret;
	f = fget(args->drm_fd);
	if (!f)
		return -EBADF;
	ddev = mvgal_attach_ddev(dev, f);
	if (!ddev) {
		ret = -EINVAL;
		goto out_fput;
	}
	dmabuf = mvgal_attach_pool_dmabuf(args->pool_fd);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_fput;
	}
	/* The attach takes the dma-buf's reference over. */
	ret = mvgal_gpu_attach(to_mvgal(dev), ddev, dmabuf, f, args->pool_fd,
			       args->gpu);
	if (ret >= 0) {
		args->gpu = ret;
		ret = 0;
	}
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

	gpu = mvgal_gpu_detach_begin(mdev, args->gpu, &ret);
	if (!gpu)
		return ret;
	/* Every placement goes home first, with no device-wide lock held:
	 * sessions on other GPUs go on. A pool that still holds a
	 * device-only buffer (or a live session) cannot go.
	 */
	ret = mvgal_gpu_drain(mdev, gpu);
	return mvgal_gpu_detach_end(mdev, gpu, ret);
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

	down_read(&mdev->gpu_lock);
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
	mvgal_pool_where(&gpu->pool, &args->pool_memory, &args->pool_flags,
			 &args->pool_moves);
	args->pool_allocations = nr;
	memcpy(args->driver, gpu->driver, sizeof(args->driver));
	memcpy(args->slot, gpu->slot, sizeof(args->slot));
	memcpy(args->root, gpu->root, sizeof(args->root));
	args->render_major = MAJOR(gpu->render_devt);
	args->render_minor = MINOR(gpu->render_devt);
	args->primary_major = MAJOR(gpu->primary_devt);
	args->primary_minor = MINOR(gpu->primary_devt);
	args->executor = mvgal_exec_id(mdev, gpu->index) != 0;
	args->pad2 = 0;
out:
	up_read(&mdev->gpu_lock);
	return ret;
}

int mvgal_ioctl_gpu_link(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_gpu_link *args = data;
	const struct mvgal_link *link;
	struct mvgal_link_verdict v;
	unsigned int i;
	int ret = 0;

	if (args->flags || args->src == args->dst)
		return -EINVAL;

	down_read(&mdev->gpu_lock);
	if (!mvgal_gpu_lookup(mdev, args->src, &ret) ||
	    !mvgal_gpu_lookup(mdev, args->dst, &ret))
		goto out;
	link = &mdev->links[args->src][args->dst];
	/* As the selector judges it: a calibration may have taken P2P. */
	mvgal_pair_verdict(mdev, 1 + args->src, 1 + args->dst, &v);
	args->link_flags = link->link_flags;
	args->methods = v.methods;
	args->chosen = v.chosen;
	args->why = v.why;
	args->import_error = link->import_error;
	for (i = 0; i < MVGAL_METHOD_COUNT; i++)
		args->reasons[i] = v.reasons[i];
out:
	up_read(&mdev->gpu_lock);
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
	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, args->gpu, &ret);
	if (gpu) {
		dmabuf = gpu->pool.dmabuf;
		get_dma_buf(dmabuf);
	}
	up_read(&mdev->gpu_lock);
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
