/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Views of one location's copy of a buffer (host pages, an import's vmap or a
 * pool range), and copies of a byte range between two locations.
 */
#ifndef MVGAL_BO_VIEW_H
#define MVGAL_BO_VIEW_H

#include <linux/types.h>

struct mvgal_bo;
struct mvgal_dma_side;
struct mvgal_exec_host;
struct mvgal_view;

int mvgal_bo_access_locked(struct mvgal_bo *bo, u64 offset, void *buf,
			   size_t len, bool write);
int mvgal_loc_write(struct mvgal_bo *bo, unsigned int loc, u64 off,
		    void *buf, u64 len);
int mvgal_loc_node(struct mvgal_bo *bo, unsigned int loc);
int mvgal_bo_view(struct mvgal_bo *bo, unsigned int loc, struct mvgal_view *v,
		  bool wait);
void mvgal_view_put(struct mvgal_view *v);
int mvgal_loc_copy(struct mvgal_bo *bo, unsigned int dst,
		   unsigned int src, u64 off, u64 len,
		   unsigned int method, void *bounce);
int mvgal_loc_dma_side(struct mvgal_bo *bo, unsigned int loc,
		       struct mvgal_dma_side *sd);
bool mvgal_loc_iomem(struct mvgal_bo *bo, unsigned int loc);
int mvgal_loc_host_pages(struct mvgal_bo *bo, u64 off, u64 len,
			 struct mvgal_exec_host *h);

#define MVGAL_SAMPLES	3
#define MVGAL_SAMPLE	64

/* Windows of a copy's range and their bytes at one location. */
struct mvgal_samples {
	u64 at[MVGAL_SAMPLES];
	u64 n;
	u8 b[MVGAL_SAMPLES][MVGAL_SAMPLE];
};

void mvgal_samples_pick(struct mvgal_samples *s, u64 off, u64 len);
int mvgal_loc_sample(struct mvgal_bo *bo, unsigned int loc,
		     struct mvgal_samples *s);

#endif /* MVGAL_BO_VIEW_H */
