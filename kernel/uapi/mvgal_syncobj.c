// SPDX-License-Identifier: GPL-2.0
/*
 * The DRM syncobjs BEGIN, END and MIGRATE take next to their sync_files
 * (see "syncobjs" in mvgal_drm.h): the in-fence a call waits for, and
 * the syncobj (or timeline point) its out-fence signals.
 */

#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/sync_file.h>

#include <drm/drm_syncobj.h>

#include "uapi/mvgal_syncobj.h"

/* A point with no syncobj is as wrong as non-zero padding. */
int mvgal_syncobj_check(u32 in, u64 in_point, u32 out, u64 out_point)
{
	return (!in && in_point) || (!out && out_point) ? -EINVAL : 0;
}

/**
 * mvgal_fence_both() - one fence for two: it signals after @a and @b
 * @a: a fence, or NULL
 * @b: a fence, or NULL
 *
 * Return: a new reference (NULL when both are NULL), or ERR_PTR(-ENOMEM).
 */
struct dma_fence *mvgal_fence_both(struct dma_fence *a, struct dma_fence *b)
{
	struct dma_fence *f;

	if (!a || !b)
		return dma_fence_get(a ?: b);
	f = dma_fence_unwrap_merge(a, b);
	return f ?: ERR_PTR(-ENOMEM);
}

/**
 * mvgal_in_fence() - the fence a call waits for
 * @file: the caller's file, whose syncobjs @syncobj names
 * @fd: a sync_file, or -1
 * @syncobj: a syncobj handle, or 0
 * @point: its timeline point, or 0
 * @fence: (out) a reference on what to wait for, or NULL for nothing
 *
 * Return: 0, -EINVAL (@fd is no sync_file, @point was not submitted),
 * -ENOENT (no such syncobj) or -ENOMEM.
 */
int mvgal_in_fence(struct drm_file *file, s32 fd, u32 syncobj, u64 point,
		   struct dma_fence **fence)
{
	struct dma_fence *a = NULL, *b = NULL, *f;
	int ret;

	*fence = NULL;
	if (fd != -1) {
		a = sync_file_get_fence(fd);
		if (!a)
			return -EINVAL;
	}
	if (syncobj) {
		ret = drm_syncobj_find_fence(file, syncobj, point, 0, &b);
		if (ret) {
			dma_fence_put(a);
			return ret;
		}
	}
	f = mvgal_fence_both(a, b);
	dma_fence_put(a);
	dma_fence_put(b);
	if (IS_ERR(f))
		return PTR_ERR(f);
	*fence = f;
	return 0;
}

/**
 * mvgal_syncobj_out_get() - look up an out-syncobj while the call can fail
 * @file: the caller's file
 * @handle: a syncobj handle, or 0 for none
 * @point: a timeline point, or 0 to replace the syncobj's fence
 * @out: (out) what mvgal_syncobj_out_signal() or _put() takes
 *
 * Return: 0, -ENOENT (no such syncobj) or -ENOMEM.
 */
int mvgal_syncobj_out_get(struct drm_file *file, u32 handle, u64 point,
			  struct mvgal_syncobj_out *out)
{
	*out = (struct mvgal_syncobj_out){ .point = point };
	if (!handle)
		return 0;
	out->syncobj = drm_syncobj_find(file, handle);
	if (!out->syncobj)
		return -ENOENT;
	if (!point)
		return 0;
	out->chain = dma_fence_chain_alloc();
	if (out->chain)
		return 0;
	mvgal_syncobj_out_put(out);
	return -ENOMEM;
}

/**
 * mvgal_syncobj_out_signal() - hand the call's out-fence to its syncobj
 * @out: from mvgal_syncobj_out_get(); released
 * @fence: the out-fence, or NULL when the call had nothing to wait for
 */
void mvgal_syncobj_out_signal(struct mvgal_syncobj_out *out,
			      struct dma_fence *fence)
{
	struct dma_fence *f;

	if (!out->syncobj)
		return;
	/* Both take their own reference. */
	f = fence ? dma_fence_get(fence) : dma_fence_get_stub();
	if (out->chain)
		drm_syncobj_add_point(out->syncobj, out->chain, f, out->point);
	else
		drm_syncobj_replace_fence(out->syncobj, f);
	out->chain = NULL;
	dma_fence_put(f);
	mvgal_syncobj_out_put(out);
}

/* Releases what mvgal_syncobj_out_get() took, unsignalled. */
void mvgal_syncobj_out_put(struct mvgal_syncobj_out *out)
{
	dma_fence_chain_free(out->chain);
	out->chain = NULL;
	if (out->syncobj)
		drm_syncobj_put(out->syncobj);
	out->syncobj = NULL;
}
