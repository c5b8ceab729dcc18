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
#include "uapi/mvgal_uapi_array.h"

static_assert(sizeof(struct drm_mvgal_harvest_entry) >=
	      MVGAL_HARVEST_ENTRY_SIZE_V1);

/*
 * Checks each entry's flags (a zeroed bitmap is a bitmap: not runs) and
 * looks its buffer up into @bos (a reset takes the records from the
 * buffer's writers); a buffer named twice is -EINVAL. Zeroes each entry's
 * outputs.
 */
static int mvgal_harvest_lookup(struct drm_file *file,
				const struct drm_mvgal_harvest *args,
				struct drm_mvgal_harvest_entry *ents,
				struct mvgal_bo **bos)
{
	bool reset = args->flags & MVGAL_HARVEST_RESET;
	int ret = 0;
	u32 i, j;

	for (i = 0; i < args->count; i++) {
		struct drm_mvgal_harvest_entry *e = &ents[i];

		if (e->flags & ~MVGAL_HARVEST_ENTRY_FLAGS ||
		    (e->flags & MVGAL_HARVEST_ZEROED &&
		     e->flags & MVGAL_HARVEST_RUNS))
			return -EINVAL;
		e->count = 0;
		e->chunks = 0;
		bos[i] = mvgal_bo_lookup_access(file, e->handle, reset, &ret);
		if (!bos[i])
			return ret;
		for (j = 0; j < i; j++)
			if (bos[j] == bos[i])
				return -EINVAL;
	}
	return 0;
}

/*
 * Checks that each entry has room for what it is to get, and that its
 * output is writable (cleared). A zeroed bitmap is not touched: clearing
 * it would cost its buffer's size, which is what it is for not to; a
 * failure to write it later undoes the reset instead. Without room for
 * all, the counts needed go to the caller's entries: -ENOSPC.
 */
static int mvgal_harvest_check_room(const struct drm_mvgal_harvest *args,
				    const struct mvgal_uarray *ua,
				    struct drm_mvgal_harvest_entry *ents,
				    struct mvgal_bo **bos)
{
	bool short_room = false;
	int ret = 0;
	u32 i;

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
		} else if (need && !(e->flags & MVGAL_HARVEST_ZEROED) &&
			   clear_user(u64_to_user_ptr(e->data),
				      (size_t)need * elem)) {
			return -EFAULT;
		}
	}
	if (!short_room)
		return 0;
	for (i = 0; i < args->count; i++) {
		struct drm_mvgal_harvest_entry __user *u =
			mvgal_uarray_elem(ua, i);

		if (ents[i].count && put_user(ents[i].count, &u->count))
			ret = -EFAULT;
	}
	return ret ?: -ENOSPC;
}

/* Takes each buffer's report (and with @reset its records) into @outs. */
static int mvgal_harvest_snap_all(const struct drm_mvgal_harvest *args,
				  struct drm_mvgal_harvest_entry *ents,
				  struct mvgal_bo **bos, bool reset,
				  void **outs, size_t *sizes)
{
	int ret = 0;
	u32 i;

	for (i = 0; i < args->count && !ret; i++) {
		mutex_lock(&bos[i]->lock);
		ret = mvgal_harvest_snap(bos[i], &ents[i], reset, &outs[i],
					 &sizes[i]);
		mutex_unlock(&bos[i]->lock);
	}
	return ret;
}

/*
 * A zeroed bitmap's words to the caller's array at @data: each run of
 * consecutive words in one copy, every other word left alone.
 */
static int mvgal_harvest_put_sparse(u64 data,
				    const struct mvgal_harvest_sparse *sp)
{
	u64 __user *dst = u64_to_user_ptr(data);
	u32 i, j;

	for (i = 0; i < sp->n; i = j) {
		j = i + 1;
		while (j < sp->n && sp->idx[j] == sp->idx[j - 1] + 1)
			j++;
		if (copy_to_user(dst + sp->idx[i], &sp->word[i],
				 (j - i) * sizeof(u64)))
			return -EFAULT;
	}
	return 0;
}

/* Out to the caller with no lock held; all or nothing. */
static int mvgal_harvest_copy_out(const struct mvgal_uarray *ua,
				  const struct drm_mvgal_harvest_entry *ents,
				  void **outs, const size_t *sizes)
{
	u32 i;

	for (i = 0; i < ua->count; i++) {
		if (ents[i].flags & MVGAL_HARVEST_ZEROED) {
			if (mvgal_harvest_put_sparse(ents[i].data, outs[i]))
				return -EFAULT;
		} else if (sizes[i] &&
			   copy_to_user(u64_to_user_ptr(ents[i].data), outs[i],
					sizes[i])) {
			return -EFAULT;
		}
	}
	return mvgal_uarray_copy_out(ua, ents, ua->count);
}

static void mvgal_harvest_free(u32 count, struct mvgal_bo **bos,
			       void **outs, size_t *sizes)
{
	u32 i;

	if (outs) {
		for (i = 0; i < count; i++)
			kvfree(outs[i]);
	}
	kfree(outs);
	kfree(sizes);
	if (bos) {
		for (i = 0; i < count; i++)
			if (bos[i])
				drm_gem_object_put(&bos[i]->base);
		kfree(bos);
	}
}

/**
 * mvgal_ioctl_harvest() - DRM_IOCTL_MVGAL_HARVEST
 * @dev: the mvgal DRM device
 * @data: &struct drm_mvgal_harvest
 * @file: the caller
 *
 * Two passes: the first checks every entry (handles, flags, room) and
 * that every output but a zeroed bitmap's is writable, changing nothing;
 * the second reports and resets, and undoes the reset if the results
 * cannot be written. Return: 0 or -errno, see &struct drm_mvgal_harvest.
 */
int mvgal_ioctl_harvest(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_mvgal_harvest *args = data;
	bool reset = args->flags & MVGAL_HARVEST_RESET;
	struct drm_mvgal_harvest_entry *ents;
	struct mvgal_bo **bos = NULL;
	struct mvgal_uarray ua;
	size_t *sizes = NULL;
	void **outs = NULL;
	int ret;
	u32 i;

	if (args->flags & ~MVGAL_HARVEST_FLAGS || !args->count ||
	    args->count > MVGAL_HARVEST_MAX_BUFFERS || args->pad)
		return -EINVAL;
	ret = mvgal_uarray_init(&ua, args->entries, args->count, args->stride,
				MVGAL_HARVEST_ENTRY_SIZE_V1, sizeof(*ents));
	if (ret)
		return ret;
	ents = mvgal_uarray_dup(&ua);
	if (IS_ERR(ents))
		return PTR_ERR(ents);
	bos = kcalloc(args->count, sizeof(*bos), GFP_KERNEL_ACCOUNT);
	if (!bos) {
		ret = -ENOMEM;
		goto out;
	}
	ret = mvgal_harvest_lookup(file, args, ents, bos);
	if (!ret)
		ret = mvgal_harvest_check_room(args, &ua, ents, bos);
	if (ret)
		goto out;
	outs = kcalloc(args->count, sizeof(*outs), GFP_KERNEL_ACCOUNT);
	sizes = kcalloc(args->count, sizeof(*sizes), GFP_KERNEL_ACCOUNT);
	if (!outs || !sizes) {
		ret = -ENOMEM;
		goto out;
	}
	ret = mvgal_harvest_snap_all(args, ents, bos, reset, outs, sizes);
	if (!ret)
		ret = mvgal_harvest_copy_out(&ua, ents, outs, sizes);
	if (ret && reset)
		for (i = 0; i < args->count && outs[i]; i++)
			mvgal_harvest_restore(bos[i], &ents[i], outs[i]);
out:
	mvgal_harvest_free(args->count, bos, outs, sizes);
	kfree(ents);
	return ret;
}
