/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write-watch: which chunks the CPU wrote, without a shadow copy.
 */
#ifndef MVGAL_BO_CPUWRITE_H
#define MVGAL_BO_CPUWRITE_H

#include <linux/types.h>

struct drm_mvgal_harvest_entry;
struct mvgal_bo;

/**
 * struct mvgal_harvest_sparse - a bitmap report (MVGAL_HARVEST_ZEROED) as
 * its non-zero words only, so that it costs what was written
 * @n: words
 * @idx: @n word indices in the caller's bitmap, increasing
 * @word: @n words
 */
struct mvgal_harvest_sparse {
	u32 n;
	u32 *idx;
	u64 word[];
};

void mvgal_watch_mark(struct mvgal_bo *bo, unsigned long first,
		      unsigned long last, bool pending);
bool mvgal_watch_writable(struct mvgal_bo *bo, unsigned long c);
void mvgal_watch_fold(struct mvgal_bo *bo);
u32 mvgal_harvest_need(struct mvgal_bo *bo,
		       const struct drm_mvgal_harvest_entry *e);
int mvgal_harvest_snap(struct mvgal_bo *bo,
		       struct drm_mvgal_harvest_entry *e, bool reset,
		       void **out, size_t *bytes);
void mvgal_harvest_restore(struct mvgal_bo *bo,
			   const struct drm_mvgal_harvest_entry *e,
			   const void *buf);

#endif /* MVGAL_BO_CPUWRITE_H */
