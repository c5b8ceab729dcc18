// SPDX-License-Identifier: GPL-2.0
/*
 * CALIBRATE and GET_PATH: the path selector's calibration and choices
 * as user space sees them.
 */

#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_path.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_path.h"
#include "dev/mvgal_transfer.h"
#include "uapi/mvgal_path_ioctl.h"

int mvgal_ioctl_calibrate(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_calibrate *args = data;
	void *bounce;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (args->flags)
		return -EINVAL;
	bounce = kmalloc(MVGAL_BOUNCE_SIZE, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	args->paths = mvgal_calibrate_all(mdev, bounce);
	kfree(bounce);
	return 0;
}

int mvgal_ioctl_get_path(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_path *args = data;
	struct mvgal_path_cal cal[MVGAL_NR_METHODS];
	struct mvgal_path_choice ch;
	struct mvgal_link_verdict v;
	unsigned int m;
	int ret = 0;

	if (args->flags || args->src >= 1 + mvgal_max_gpus ||
	    args->dst >= 1 + mvgal_max_gpus || args->src == args->dst)
		return -EINVAL;
	down_read(&mdev->gpu_lock);
	if (!mvgal_pair_verdict(mdev, args->src, args->dst, &v)) {
		ret = -ENODEV;
		goto out;
	}
	mvgal_select(mdev, args->src, args->dst, args->size, &ch);
	mvgal_pair_cal(mdev, args->src, args->dst, cal);
	spin_lock(&mdev->cal_lock);
	args->calibrated_ns = mdev->calibrated_ns;
	spin_unlock(&mdev->cal_lock);
	args->methods = v.methods;
	args->chosen = ch.method;
	args->forced = ch.forced;
	args->why = v.why;
	args->measured = ch.measured;
	for (m = 0; m < MVGAL_METHOD_COUNT; m++) {
		args->latency_ns[m] = cal[m].latency_ns;
		args->bandwidth[m] = cal[m].bw;
		args->cost_ns[m] = ch.cost[m];
	}
	args->exec_latency_ns = cal[MVGAL_METHOD_EXEC].latency_ns;
	args->exec_bandwidth = cal[MVGAL_METHOD_EXEC].bw;
	args->exec_cost_ns = ch.cost[MVGAL_METHOD_EXEC];
out:
	up_read(&mdev->gpu_lock);
	return ret;
}
