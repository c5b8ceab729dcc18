/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host pages of a buffer: allocated one at a time on the buffer's node,
 * looked up by index, and mapped all at once for copies.
 */
#ifndef MVGAL_BO_PAGES_H
#define MVGAL_BO_PAGES_H

#include <linux/types.h>

struct mvgal_bo;
struct page;

void mvgal_bo_free_page(struct mvgal_bo *bo, struct page *page);
struct page *mvgal_bo_page(struct mvgal_bo *bo, unsigned long idx);
struct page **mvgal_bo_page_array(struct mvgal_bo *bo);
int mvgal_bo_populate(struct mvgal_bo *bo);
int mvgal_bo_populate_range(struct mvgal_bo *bo, u64 off, u64 len);
int mvgal_bo_populate_dir(struct mvgal_bo *bo, u64 off, u64 len, bool write);

#endif /* MVGAL_BO_PAGES_H */
