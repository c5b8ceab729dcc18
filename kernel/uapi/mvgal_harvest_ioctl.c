// SPDX-License-Identifier: GPL-2.0
/*
 * HARVEST: the chunks the CPU wrote since the last HARVEST, per buffer.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_gem.h>

#include <drm/mvgal_drm.h>

#include "bo/mvgal_bo.h"
#include "bo/mvgal_cpuwrite.h"
#include "uapi/mvgal_harvest_ioctl.h"

/**
 * mvgal_ioctl_harvest() - DRM_IOCTL_MVGAL_HARVEST
 * @dev: the mvgal DRM device
 * @data: &struct drm_mvgal_harvest
 * @file: the caller
 *
 * Two passes: the first checks every entry (handles, flags, room) and
 * that every output is writable, changing nothing; the second reports
 * and resets. Return: 0 or -errno, see &struct drm_mvgal_harvest.
 */
int mvgal_ioctl_harvest(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_mvgal_harvest *args = data;
	bool reset = args->flags & MVGAL_HARVEST_RESET;
	struct drm_mvgal_harvest_entry *ents;
	struct mvgal_bo **bos = NULL;
	size_t *sizes = NULL;
	void **outs = NULL;
	bool short_room = false;
	u32 i, j;
	int ret = 0;

	if (args->flags & ~MVGAL_HARVEST_FLAGS || !args->count ||
	    args->count > MVGAL_HARVEST_MAX_BUFFERS)
		return -EINVAL;
	ents = memdup_array_user(u64_to_user_ptr(args->entries), args->count,
				 sizeof(*ents));
	if (IS_ERR(ents))
		return PTR_ERR(ents);
	bos = kcalloc(args->count, sizeof(*bos), GFP_KERNEL_ACCOUNT);
	if (!bos) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < args->count; i++) {
		struct drm_mvgal_harvest_entry *e = &ents[i];

		if (e->flags & ~MVGAL_HARVEST_ENTRY_FLAGS) {
			ret = -EINVAL;
			goto out;
		}
		e->count = 0;
		e->chunks = 0;
		/* A reset takes the records from the buffer's writers. */
		bos[i] = mvgal_bo_lookup_access(file, e->handle,
						args->flags & MVGAL_HARVEST_RESET,
						&ret);
		if (!bos[i])
			goto out;
		for (j = 0; j < i; j++) {
			if (bos[j] == bos[i]) {
				ret = -EINVAL;
				goto out;
			}
		}
	}
	for (i = 0; i < args->count; i++) {
		struct drm_mvgal_harvest_entry *e = &ents[i];
		size_t elem = e->flags & MVGAL_HARVEST_RUNS ?
			      sizeof(struct drm_mvgal_range) : sizeof(u64);
		u32 need;

		mutex_lock(&bos[i]->lock);
		need = mvgal_harvest_need(bos[i], e);
		mutex_unlock(&bos[i]->lock);
		if (need > e->capacity) {
			e->count = need;
			short_room = true;
		} else if (need && clear_user(u64_to_user_ptr(e->data),
					      (size_t)need * elem)) {
			ret = -EFAULT;
			goto out;
		}
	}
	if (short_room) {
		for (i = 0; i < args->count; i++)
			if (ents[i].count &&
			    put_user(ents[i].count,
				     &((struct drm_mvgal_harvest_entry __user *)
				       u64_to_user_ptr(args->entries))[i].count))
				ret = -EFAULT;
		ret = ret ?: -ENOSPC;
		goto out;
	}
	outs = kcalloc(args->count, sizeof(*outs), GFP_KERNEL_ACCOUNT);
	sizes = kcalloc(args->count, sizeof(*sizes), GFP_KERNEL_ACCOUNT);
	if (!outs || !sizes) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < args->count && !ret; i++) {
		mutex_lock(&bos[i]->lock);
		ret = mvgal_harvest_snap(bos[i], &ents[i], reset, &outs[i],
					 &sizes[i]);
		mutex_unlock(&bos[i]->lock);
	}
	/* Out to the caller with no lock held; all or nothing. */
	for (i = 0; i < args->count && !ret; i++)
		if (sizes[i] && copy_to_user(u64_to_user_ptr(ents[i].data),
					     outs[i], sizes[i]))
			ret = -EFAULT;
	if (!ret && copy_to_user(u64_to_user_ptr(args->entries), ents,
				 array_size(args->count, sizeof(*ents))))
		ret = -EFAULT;
	if (ret && reset)
		for (i = 0; i < args->count && outs[i]; i++)
			mvgal_harvest_restore(bos[i], &ents[i], outs[i]);
out:
	if (outs) {
		for (i = 0; i < args->count; i++)
			kvfree(outs[i]);
	}
	kfree(outs);
	kfree(sizes);
	if (bos) {
		for (i = 0; i < args->count; i++)
			if (bos[i])
				drm_gem_object_put(&bos[i]->base);
		kfree(bos);
	}
	kfree(ents);
	return ret;
}
