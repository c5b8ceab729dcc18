/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placement exports: a dma-buf of one buffer's copy in one GPU's pool, for
 * the process that holds the buffer to hand to its GPU API.
 */
#ifndef MVGAL_MOVE_EXPORT_H
#define MVGAL_MOVE_EXPORT_H

#include <linux/types.h>

struct dma_buf;
struct drm_file;
struct mvgal_bo;
struct mvgal_file;
struct mvgal_gpu;
struct mvgal_pool;

/* One placement export; PLACE_FD (uapi/mvgal_place_ioctl.c) fills it. */
struct mvgal_export {
	struct mvgal_bo *bo;		/* a reference */
	struct mvgal_gpu *gpu;
	/* The GPU's pool, or an adopted placement's own; held by the export. */
	struct mvgal_pool *pool;
	u64 start;			/* of the range, in @pool */
	unsigned long npages;
	struct mvgal_file *quota;	/* charged for the export itself */
};

int mvgal_export_check(struct mvgal_bo *bo, u32 gpu);
int mvgal_export_pin(struct mvgal_export *e, struct mvgal_gpu *gpu,
		     struct drm_file *file);
struct dma_buf *mvgal_export_dmabuf(struct mvgal_export *e, u32 flags);

#endif /* MVGAL_MOVE_EXPORT_H */
