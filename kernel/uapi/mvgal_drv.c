// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal: a virtual DRM render driver that owns buffers shared by several
 * GPUs and the CPU. Like vgem, it sits on a platform device of its own:
 * there is no hardware behind it, the GPUs it serves are attached later.
 */

#include <linux/compat.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/pagemap.h>
#include <linux/platform_device.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/mvgal_drm.h>

#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_dma.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_chunks.h"
#include "move/mvgal_job.h"
#include "move/mvgal_prime.h"
#include "policy/mvgal_prefetch.h"
#include "uapi/mvgal_bo_ioctl.h"
#include "uapi/mvgal_exec_ioctl.h"
#include "uapi/mvgal_debugfs.h"
#include "uapi/mvgal_gpu_ioctl.h"
#include "uapi/mvgal_harvest_ioctl.h"
#include "uapi/mvgal_heap_ioctl.h"
#include "uapi/mvgal_info_ioctl.h"
#include "uapi/mvgal_job_ioctl.h"
#include "uapi/mvgal_path_ioctl.h"
#include "uapi/mvgal_place_ioctl.h"
#include "uapi/mvgal_policy_ioctl.h"
#include "uapi/mvgal_pool_ioctl.h"
#include "uapi/mvgal_rw_ioctl.h"
#include "uapi/mvgal_session_ioctl.h"
#include "uapi/mvgal_uring.h"
#include "bo/mvgal_hmm.h"

static struct mvgal_device *mvgal_dev;

static const struct drm_ioctl_desc mvgal_ioctls[] = {
	DRM_IOCTL_DEF_DRV(MVGAL_GET_INFO, mvgal_ioctl_get_info,
			  DRM_RENDER_ALLOW),
	/* Attach and detach check CAP_SYS_ADMIN themselves: DRM_ROOT_ONLY
	 * would answer -EACCES, and the ABI promises -EPERM.
	 */
	DRM_IOCTL_DEF_DRV(MVGAL_GPU_ATTACH, mvgal_ioctl_gpu_attach,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_GPU_DETACH, mvgal_ioctl_gpu_detach,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_GPU_INFO, mvgal_ioctl_gpu_info,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_GPU_LINK, mvgal_ioctl_gpu_link,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_GET_HEAP, mvgal_ioctl_get_heap,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_BO_CREATE, mvgal_ioctl_bo_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_BO_INFO, mvgal_ioctl_bo_info, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_BO_PWRITE, mvgal_ioctl_bo_pwrite,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_BO_PREAD, mvgal_ioctl_bo_pread,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_BO_COPY, mvgal_ioctl_bo_copy, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_BO_LIST, mvgal_ioctl_bo_list, DRM_RENDER_ALLOW),
	/* MVGAL_BEGIN: mvgal_ioctl() hands it to mvgal_begin_user(). */
	DRM_IOCTL_DEF_DRV(MVGAL_END, mvgal_ioctl_end, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_MIGRATE, mvgal_ioctl_migrate, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_CANCEL, mvgal_ioctl_cancel, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_PLACE_FREE, mvgal_ioctl_place_free,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_GET_STATS, mvgal_ioctl_get_stats,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_GET_PATH, mvgal_ioctl_get_path,
			  DRM_RENDER_ALLOW),
	/* CAP_SYS_ADMIN, checked inside: it takes pool space for a while. */
	DRM_IOCTL_DEF_DRV(MVGAL_CALIBRATE, mvgal_ioctl_calibrate,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_POOL_FD, mvgal_ioctl_pool_fd, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_PLACE_FD, mvgal_ioctl_place_fd, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_BO_USERPTR, mvgal_ioctl_bo_userptr,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_BO_MARK, mvgal_ioctl_bo_mark, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_PLACE_ADOPT, mvgal_ioctl_place_adopt,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_HARVEST, mvgal_ioctl_harvest, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_FILE_FLAGS, mvgal_ioctl_file_flags,
			  DRM_RENDER_ALLOW),
	/* Setting needs CAP_SYS_ADMIN, checked inside; reading does not. */
	DRM_IOCTL_DEF_DRV(MVGAL_GPU_BUDGET, mvgal_ioctl_gpu_budget,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_POOL_LRU, mvgal_ioctl_pool_lru,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_REPLICATE, mvgal_ioctl_replicate,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_ADVISE, mvgal_ioctl_advise, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_EXEC_REGISTER, mvgal_ioctl_exec_register,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_EXEC_TAKE, mvgal_ioctl_exec_take,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(MVGAL_EXEC_DONE, mvgal_ioctl_exec_done,
			  DRM_RENDER_ALLOW),
};

/*
 * BEGIN copies its own results out (mvgal_begin_user()) so that a fault
 * there undoes it; every other ioctl goes through drm_ioctl().
 */
static bool mvgal_is_begin(unsigned int cmd)
{
	return _IOC_TYPE(cmd) == DRM_IOCTL_BASE &&
	       _IOC_NR(cmd) == DRM_COMMAND_BASE + DRM_MVGAL_BEGIN;
}

/* The calls that only report: their results lost to a fault lose nothing. */
#define MVGAL_QUERIES							\
	(BIT(DRM_MVGAL_GET_INFO) | BIT(DRM_MVGAL_GPU_INFO) |		\
	 BIT(DRM_MVGAL_GET_HEAP) | BIT(DRM_MVGAL_BO_INFO) |		\
	 BIT(DRM_MVGAL_BO_LIST) | BIT(DRM_MVGAL_GET_STATS) |		\
	 BIT(DRM_MVGAL_GET_PATH) | BIT(DRM_MVGAL_POOL_LRU))

/*
 * drm_ioctl() copies results out after the handler returned, when a
 * queued job, a new handle or an installed fd can no longer be taken
 * back. Faulting the struct in for writing first (without writing to
 * it) turns a read-only or unmapped struct into -EFAULT before anything
 * happened; only a thread that unmaps it while the call runs can still
 * lose the results. Queries skip the probe: it costs a page walk.
 */
static bool mvgal_out_unwritable(unsigned int cmd, void __user *uargs)
{
	unsigned int nr = _IOC_NR(cmd) - DRM_COMMAND_BASE;

	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE ||
	    _IOC_NR(cmd) < DRM_COMMAND_BASE || !(cmd & IOC_OUT) ||
	    (nr < BITS_PER_LONG && (MVGAL_QUERIES & BIT(nr))))
		return false;
	return fault_in_safe_writeable(uargs, _IOC_SIZE(cmd)) != 0;
}

/*
 * drm_ioctl() fits a caller's shorter struct by zero-filling the rest and
 * copying out only what fits. The executors' calls hand out a job and an
 * fd, or take a fence, that would be lost or misread that way: they take
 * their struct at exactly its size.
 */
static bool mvgal_size_wrong(unsigned int cmd)
{
	static const unsigned int exact[] = {
		DRM_IOCTL_MVGAL_EXEC_REGISTER, DRM_IOCTL_MVGAL_EXEC_TAKE,
		DRM_IOCTL_MVGAL_EXEC_DONE,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(exact); i++)
		if (_IOC_TYPE(cmd) == DRM_IOCTL_BASE &&
		    _IOC_NR(cmd) == _IOC_NR(exact[i]))
			return cmd != exact[i];
	return false;
}

/* The largest struct a call that may run again has its bytes kept of. */
#define MVGAL_KEEP_MAX	256

/*
 * Runs a call; again while it failed for want of a mirrored registration's
 * pages, once they are faulted in (mvgal_hmm_retry()). drm_ioctl() copies
 * even a failed call's struct out, so the caller's bytes are put back
 * before the call runs again; a struct too large to keep is not retried.
 */
static long mvgal_ioctl_run(struct file *filp, unsigned int cmd,
			    unsigned long arg, void __user *uargs,
			    long (*call)(struct file *, unsigned int,
					 unsigned long))
{
	size_t size = _IOC_SIZE(cmd);
	bool keep = (cmd & IOC_IN) && (cmd & IOC_OUT);
	unsigned int tries = 0;
	u8 kept[MVGAL_KEEP_MAX];
	long ret;

	if (mvgal_is_begin(cmd)) {
		do
			ret = mvgal_begin_user(filp, cmd, uargs, NULL);
		while (mvgal_hmm_retry(&ret, &tries));
		return ret;
	}
	if (!mvgal_hmm_any() || (keep && size > sizeof(kept)))
		return call(filp, cmd, arg);
	if (keep && copy_from_user(kept, uargs, size))
		return -EFAULT;
	for (;;) {
		ret = call(filp, cmd, arg);
		if (!mvgal_hmm_retry(&ret, &tries))
			return ret;
		if (keep && copy_to_user(uargs, kept, size))
			return -EFAULT;
	}
}

static long mvgal_ioctl(struct file *filp, unsigned int cmd,
			unsigned long arg)
{
	void __user *uargs = (void __user *)arg;

	if (mvgal_size_wrong(cmd))
		return -EINVAL;
	if (!mvgal_is_begin(cmd) && mvgal_out_unwritable(cmd, uargs))
		return -EFAULT;
	return mvgal_ioctl_run(filp, cmd, arg, uargs, drm_ioctl);
}

#ifdef CONFIG_COMPAT
/* mvgal's structs are the same for 32-bit callers: only the pointer differs. */
static long mvgal_compat_ioctl(struct file *filp, unsigned int cmd,
			       unsigned long arg)
{
	void __user *uargs = compat_ptr(arg);

	if (mvgal_size_wrong(cmd))
		return -EINVAL;
	if (!mvgal_is_begin(cmd) && mvgal_out_unwritable(cmd, uargs))
		return -EFAULT;
	return mvgal_ioctl_run(filp, cmd, arg, uargs, drm_compat_ioctl);
}
#else
#define mvgal_compat_ioctl NULL
#endif

/*
 * A file's executor registrations end before DRM releases its events
 * (drm_file_free() calls postclose only after that): an executor's event
 * sent to a file whose events were released would never be freed.
 */
static int mvgal_release(struct inode *inode, struct file *filp)
{
	struct drm_file *file = filp->private_data;

	mvgal_exec_file_close(to_mvgal(file->minor->dev), file);
	return drm_release(inode, filp);
}

/* DEFINE_DRM_GEM_FOPS() with mvgal's own ioctl and io_uring entry points. */
static const struct file_operations mvgal_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = mvgal_release,
	.unlocked_ioctl = mvgal_ioctl,
	.compat_ioctl = mvgal_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	.uring_cmd = mvgal_uring_cmd,
	MVGAL_FOP_FLAGS
};

static const struct drm_driver mvgal_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.ioctls = mvgal_ioctls,
	.num_ioctls = ARRAY_SIZE(mvgal_ioctls),
	.fops = &mvgal_fops,
	.open = mvgal_file_open,
	.postclose = mvgal_file_close,
	.gem_prime_import = mvgal_gem_prime_import,
	MVGAL_DRM_PRIME_FD_OPS
	.name = MVGAL_DRIVER_NAME,
	.desc = MVGAL_DRIVER_DESC,
#if MVGAL_HAS_DRIVER_DATE
	.date = MVGAL_DRIVER_DATE,
#endif
	.major = MVGAL_DRIVER_MAJOR,
	.minor = MVGAL_DRIVER_MINOR,
};

/* The device's own locks, lists and counters, before anything uses it. */
static int __init mvgal_dev_setup(struct mvgal_device *mdev)
{
	init_rwsem(&mdev->gpu_lock);
	mutex_init(&mdev->bos_lock);
	mutex_init(&mdev->advise_lock);
	mutex_init(&mdev->cal_mutex);
	INIT_LIST_HEAD(&mdev->bos);
	spin_lock_init(&mdev->cal_lock);
	mvgal_exec_init(mdev);
	/* Freed with the devres group, as the device is. */
	mdev->staged = devm_kcalloc(&mdev->pdev->dev, nr_node_ids,
				    sizeof(*mdev->staged), GFP_KERNEL);
	return mdev->staged ? 0 : -ENOMEM;
}

static int __init mvgal_init(void)
{
	struct platform_device *pdev;
	int ret;

	ret = mvgal_params_check();
	if (ret)
		return ret;
	ret = mvgal_chunks_cache_init();
	if (ret)
		return ret;

	pdev = platform_device_register_simple(MVGAL_DRIVER_NAME, -1, NULL, 0);
	if (IS_ERR(pdev)) {
		ret = PTR_ERR(pdev);
		goto out_cache;
	}

	/* Everything devm_ below is released with this group at exit. */
	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto out_unregister;
	}

	/* Buffers are CPU pages that any GPU may DMA from: no mask limit. */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto out_devres;

	mvgal_dev = devm_drm_dev_alloc(&pdev->dev, &mvgal_driver,
				       struct mvgal_device, drm);
	if (IS_ERR(mvgal_dev)) {
		ret = PTR_ERR(mvgal_dev);
		goto out_devres;
	}
	mvgal_dev->pdev = pdev;
	ret = mvgal_dev_setup(mvgal_dev);
	if (ret)
		goto out_devres;
	mvgal_dma_init(mvgal_dev);
	ret = mvgal_engine_init(mvgal_dev);
	if (ret)
		goto out_devres;
	mvgal_dev->free_wq = alloc_workqueue("mvgal-free", WQ_UNBOUND, 0);
	if (!mvgal_dev->free_wq) {
		ret = -ENOMEM;
		goto out_engine;
	}
	mvgal_prefetch_init(mvgal_dev);
	mvgal_debugfs_init(mvgal_dev);

	ret = drm_dev_register(&mvgal_dev->drm, 0);
	if (ret)
		goto out_debugfs;

	return 0;

out_debugfs:
	mvgal_debugfs_fini(mvgal_dev);
	destroy_workqueue(mvgal_dev->free_wq);
out_engine:
	mvgal_engine_fini(mvgal_dev);

out_devres:
	devres_release_group(&pdev->dev, NULL);
out_unregister:
	platform_device_unregister(pdev);
out_cache:
	mvgal_chunks_cache_fini();
	return ret;
}

static void __exit mvgal_exit(void)
{
	struct platform_device *pdev = mvgal_dev->pdev;

	/* No ioctl runs after unregister; then the GPUs and the references
	 * they hold on other drivers go.
	 */
	drm_dev_unregister(&mvgal_dev->drm);
	mvgal_debugfs_fini(mvgal_dev);
	/* Buffers still ending give their placements back first. */
	destroy_workqueue(mvgal_dev->free_wq);
	mvgal_engine_fini(mvgal_dev);
	mvgal_gpu_detach_all(mvgal_dev);
	/* The GPUs' pools were the engine's last mappings. */
	mvgal_dma_fini(mvgal_dev);
	mutex_destroy(&mvgal_dev->cal_mutex);
	mutex_destroy(&mvgal_dev->advise_lock);
	mutex_destroy(&mvgal_dev->bos_lock);
	devres_release_group(&pdev->dev, NULL);
	platform_device_unregister(pdev);
	mvgal_chunks_cache_fini();
}

module_init(mvgal_init);

module_exit(mvgal_exit);

MODULE_AUTHOR("The mvgal developers");

MODULE_DESCRIPTION("mvgal: multi-GPU unified memory (virtual DRM render driver)");

MODULE_LICENSE("GPL");

MODULE_IMPORT_NS(DMA_BUF);

MODULE_VERSION("0.1.0");
