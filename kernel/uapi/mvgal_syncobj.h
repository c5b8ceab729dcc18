/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DRM syncobjs BEGIN, END and MIGRATE wait for and signal.
 */
#ifndef MVGAL_UAPI_SYNCOBJ_H
#define MVGAL_UAPI_SYNCOBJ_H

#include <linux/types.h>

struct dma_fence;
struct dma_fence_chain;
struct drm_file;
struct drm_syncobj;

/*
 * An out-syncobj, looked up (and its timeline node allocated) while the
 * call can still fail, signalled once it cannot.
 */
struct mvgal_syncobj_out {
	struct drm_syncobj *syncobj;	/* or NULL: none asked for */
	struct dma_fence_chain *chain;	/* for a timeline point, or NULL */
	u64 point;
};

int mvgal_syncobj_check(u32 in, u64 in_point, u32 out, u64 out_point);
int mvgal_in_fence(struct drm_file *file, s32 fd, u32 syncobj, u64 point,
		   struct dma_fence **fence);
struct dma_fence *mvgal_fence_both(struct dma_fence *a, struct dma_fence *b);
int mvgal_syncobj_out_get(struct drm_file *file, u32 handle, u64 point,
			  struct mvgal_syncobj_out *out);
void mvgal_syncobj_out_signal(struct mvgal_syncobj_out *out,
			      struct dma_fence *fence);
void mvgal_syncobj_out_put(struct mvgal_syncobj_out *out);

#endif /* MVGAL_UAPI_SYNCOBJ_H */
