// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring commands on the mvgal file: the ioctls a GPU runtime submits
 * many of, each posting its completion when its data is in place (see
 * "io_uring commands" in mvgal_drm.h).
 */

#include <linux/dma-fence.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/mvgal_drm.h>

#include "dev/mvgal_compat.h"
#include "uapi/mvgal_job_ioctl.h"
#include "uapi/mvgal_session_ioctl.h"
#include "uapi/mvgal_uring.h"
#include "bo/mvgal_hmm.h"

/* What a command waits on, in the request's own inline space. */
struct mvgal_uring_pdu {
	struct dma_fence_cb cb;
	struct dma_fence *fence;
};

static_assert(sizeof(struct mvgal_uring_pdu) <=
	      sizeof_field(struct io_uring_cmd, pdu));

static struct mvgal_uring_pdu *mvgal_uring_pdu(struct io_uring_cmd *ioucmd)
{
	return (struct mvgal_uring_pdu *)ioucmd->pdu;
}

/* In the submitter's task (or io_uring's fallback): post the result. */
static void mvgal_uring_done(struct io_uring_cmd *ioucmd,
			     unsigned int issue_flags)
{
	struct dma_fence *fence = mvgal_uring_pdu(ioucmd)->fence;
	int status = dma_fence_get_status(fence);

	dma_fence_put(fence);
	io_uring_cmd_done(ioucmd, min(status, 0), 0, issue_flags);
}

/* May run in any context, with the fence's lock held. */
static void mvgal_uring_signalled(struct dma_fence *fence,
				  struct dma_fence_cb *cb)
{
	u8 *pdu = (u8 *)container_of(cb, struct mvgal_uring_pdu, cb);

	io_uring_cmd_complete_in_task((struct io_uring_cmd *)
		(pdu - offsetof(struct io_uring_cmd, pdu)), mvgal_uring_done);
}

/*
 * Completes @ioucmd when @fence (a reference, passed on) signals, or
 * returns its status at once if it has.
 */
static int mvgal_uring_wait(struct io_uring_cmd *ioucmd,
			    struct dma_fence *fence)
{
	struct mvgal_uring_pdu *pdu = mvgal_uring_pdu(ioucmd);
	int status;

	if (!fence)
		return 0;
	pdu->fence = fence;
	if (!dma_fence_add_callback(fence, &pdu->cb, mvgal_uring_signalled))
		return -EIOCBQUEUED;
	status = dma_fence_get_status(fence);
	dma_fence_put(fence);
	return min(status, 0);
}

/* The largest struct a command takes (the ioctl's), and MIGRATE's call. */
#define MVGAL_URING_MAX_ARGS	128

/*
 * Runs @func on the caller's struct as drm_ioctl() would: copied in as
 * long as the caller's version of it, zero-extended, and copied out.
 * @ksize is the kernel's struct; @kdata may be longer (a call with
 * results for the ring after it).
 */
static int mvgal_uring_ioctl(struct file *filp, unsigned int cmd,
			     void __user *uargs, drm_ioctl_t *func,
			     void *kdata, u32 ksize)
{
	u32 usize = _IOC_SIZE(cmd), n = min(usize, ksize);
	int ret;

	if (copy_from_user(kdata, uargs, n))
		return -EFAULT;
	ret = drm_ioctl_kernel(filp, func, kdata, DRM_RENDER_ALLOW);
	if (ret || !(cmd & IOC_OUT))
		return ret;
	if (copy_to_user(uargs, kdata, n) ||
	    (usize > n && clear_user(uargs + n, usize - n)))
		return -EFAULT;
	return 0;
}

/* The ioctls a ring runs as they are, besides BEGIN and MIGRATE. */
#define MVGAL_URING_SYNC						\
	(BIT(DRM_MVGAL_END) | BIT(DRM_MVGAL_CANCEL) |			\
	 BIT(DRM_MVGAL_BO_PWRITE) | BIT(DRM_MVGAL_BO_PREAD) |		\
	 BIT(DRM_MVGAL_BO_COPY) | BIT(DRM_MVGAL_HARVEST))

static int mvgal_uring_migrate(struct io_uring_cmd *ioucmd, unsigned int cmd,
			       void __user *uargs)
{
	struct mvgal_migrate_call call = {};
	int ret;

	ret = mvgal_uring_ioctl(ioucmd->file, cmd, uargs,
				mvgal_ioctl_migrate_fenced, &call,
				sizeof(call.args));
	if (ret) {
		/* Results lost to a struct unmapped meanwhile: the job runs. */
		if (call.fence)
			dma_fence_put(call.fence);
		return ret;
	}
	return mvgal_uring_wait(ioucmd, call.fence);
}

static int mvgal_uring_sync(struct io_uring_cmd *ioucmd, unsigned int cmd,
			    void __user *uargs)
{
	struct drm_file *file = ioucmd->file->private_data;
	const struct drm_driver *drv = file->minor->dev->driver;
	unsigned int nr = _IOC_NR(cmd) - DRM_COMMAND_BASE;
	u8 kdata[MVGAL_URING_MAX_ARGS] = {};
	const struct drm_ioctl_desc *desc;

	/* mvgal_uring_args() let through only the ioctl table's numbers. */
	if (nr >= BITS_PER_LONG || !(MVGAL_URING_SYNC & BIT(nr)))
		return -EOPNOTSUPP;
	desc = &drv->ioctls[nr];
	if (WARN_ON_ONCE(_IOC_SIZE(desc->cmd) > sizeof(kdata)))
		return -EOPNOTSUPP;
	return mvgal_uring_ioctl(ioucmd->file, cmd, uargs, desc->func, kdata,
				 _IOC_SIZE(desc->cmd));
}

/*
 * Reads and checks the command area: @cmd must be an ioctl of mvgal's
 * table that takes a struct, which a ring may still not offer (that is
 * mvgal_uring_run()'s to say). Return: 0 or -EINVAL.
 */
static int mvgal_uring_args(struct io_uring_cmd *ioucmd, void __user **uargs)
{
	const struct drm_mvgal_uring_cmd *c = mvgal_uring_cmd_area(ioucmd);
	struct drm_file *file = ioucmd->file->private_data;
	const struct drm_driver *drv = file->minor->dev->driver;
	unsigned int cmd = ioucmd->cmd_op;
	unsigned int nr = _IOC_NR(cmd) - DRM_COMMAND_BASE;

	/* The SQE is shared with user space: read each field once. */
	*uargs = u64_to_user_ptr(READ_ONCE(c->args));
	if (READ_ONCE(c->flags) || READ_ONCE(c->pad))
		return -EINVAL;
	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE || !(cmd & IOC_IN) ||
	    _IOC_NR(cmd) < DRM_COMMAND_BASE || nr >= drv->num_ioctls)
		return -EINVAL;
	/* BEGIN has no handler in the table: mvgal_ioctl() runs it. */
	if (!drv->ioctls[nr].func && nr != DRM_MVGAL_BEGIN)
		return -EINVAL;
	return 0;
}

/*
 * The commands that wait for other work (a buffer's fences, staging
 * memory): they run in io_uring's workers, never inline.
 */
#define MVGAL_URING_WAITS						\
	(BIT(DRM_MVGAL_BO_PWRITE) | BIT(DRM_MVGAL_BO_PREAD) |		\
	 BIT(DRM_MVGAL_BO_COPY))

/*
 * A command issued inline (IO_URING_F_NONBLOCK) runs in the submitter's
 * task, where io_uring's own task work (another command completing)
 * makes signal_pending() true: an interruptible wait there ends with no
 * signal sent, where the ioctl would have been restarted. -EAGAIN hands
 * the command to io_uring's workers, which copy its SQE and issue it
 * again, blocking; no signal but SIGKILL reaches them.
 */
static bool mvgal_uring_punt(unsigned int cmd, unsigned int issue_flags,
			     int ret)
{
	unsigned int nr = _IOC_NR(cmd) - DRM_COMMAND_BASE;

	if (!(issue_flags & IO_URING_F_NONBLOCK))
		return false;
	if (!ret)
		return nr < BITS_PER_LONG && (MVGAL_URING_WAITS & BIT(nr));
	/* A call that was interrupted changed nothing, as for a restart. */
	return ret == -EINTR || ret == -ERESTARTSYS ||
	       ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND;
}

static int mvgal_uring_run(struct io_uring_cmd *ioucmd, unsigned int cmd,
			   void __user *uargs)
{
	struct dma_fence *fence;
	int ret;

	switch (_IOC_NR(cmd) - DRM_COMMAND_BASE) {
	case DRM_MVGAL_BEGIN:
		ret = mvgal_begin_user(ioucmd->file, cmd, uargs, &fence);
		return ret ?: mvgal_uring_wait(ioucmd, fence);
	case DRM_MVGAL_MIGRATE:
		return mvgal_uring_migrate(ioucmd, cmd, uargs);
	}
	return mvgal_uring_sync(ioucmd, cmd, uargs);
}

/*
 * Runs the command again while it failed for want of a mirrored
 * registration's pages, once they are faulted in (mvgal_hmm_retry()).
 * The struct needs no putting back: the commands copy their results out
 * only when they succeed. Issued inline, nothing is faulted (it may wait
 * for swap): -EAGAIN has io_uring's workers issue it again, blocking.
 */
static int mvgal_uring_run_faulting(struct io_uring_cmd *ioucmd,
				    unsigned int cmd, void __user *uargs,
				    unsigned int issue_flags)
{
	unsigned int tries = 0;
	long ret;

	do
		ret = mvgal_uring_run(ioucmd, cmd, uargs);
	while (!(issue_flags & IO_URING_F_NONBLOCK) &&
	       mvgal_hmm_retry(&ret, &tries));
	return ret;
}

/**
 * mvgal_uring_cmd() - &file_operations.uring_cmd of the mvgal file
 * @ioucmd: the command
 * @issue_flags: io_uring's IO_URING_F_*
 *
 * Return: the result, or -EIOCBQUEUED when it completes later.
 */
int mvgal_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	unsigned int cmd = ioucmd->cmd_op;
	void __user *uargs;
	int ret;

	ret = mvgal_uring_args(ioucmd, &uargs);
	if (ret)
		return ret;
	if (mvgal_uring_punt(cmd, issue_flags, 0))
		return -EAGAIN;
	/* As the ioctls: an unwritable struct fails before anything runs. */
	if ((cmd & IOC_OUT) && fault_in_safe_writeable(uargs, _IOC_SIZE(cmd)))
		return -EFAULT;
	ret = mvgal_uring_run_faulting(ioucmd, cmd, uargs, issue_flags);
	if (mvgal_uring_punt(cmd, issue_flags, ret))
		return -EAGAIN;
	/* Only SIGKILL interrupts a worker: the ring is going away. */
	if (ret == -ERESTARTSYS || ret == -ERESTARTNOINTR ||
	    ret == -ERESTARTNOHAND)
		return -EINTR;
	return ret;
}
