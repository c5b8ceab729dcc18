// SPDX-License-Identifier: GPL-2.0
/*
 * What a buffer reports about itself: the nodes of its host pages and
 * where each of its chunks is (BO_INFO residency).
 */

#include <linux/cred.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

#include <drm/drm_file.h>
#include <drm/drm_vma_manager.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_report.h"

/* The node all of the buffer's host pages are on, as the page allocator
 * placed them; MVGAL_NUMA_NONE when they are none or on several nodes.
 */
u32 mvgal_bo_pages_node(struct mvgal_bo *bo)
{
	u32 node = MVGAL_NUMA_NONE;
	struct page *page;
	unsigned long i;

	mutex_lock(&bo->lock);
	xa_for_each(&bo->pages, i, page) {
		u32 nid = page_to_nid(page);

		if (node == MVGAL_NUMA_NONE) {
			node = nid;
		} else if (node != nid) {
			node = MVGAL_NUMA_NONE;
			break;
		}
	}
	mutex_unlock(&bo->lock);
	return node;
}

/*
 * Bytes held and bytes held alone per location. Caller holds bo->lock.
 * Chunks without a record are at home only.
 */
void mvgal_bo_residency(struct mvgal_bo *bo, u64 *valid, u64 *owned)
{
	unsigned long first, last, c = 0;
	u64 recorded = 0;
	unsigned int l;

	memset(valid, 0, sizeof(u64) * MVGAL_LOC_COUNT);
	memset(owned, 0, sizeof(u64) * MVGAL_LOC_COUNT);
	spin_lock(&bo->state_lock);
	while (mvgal_chunks_next_leaf(bo, c, &first, &last)) {
		for (c = first; c <= last; c++) {
			const struct mvgal_chunk *ch = mvgal_chunk_peek(bo, c);
			/* Clipped to the size the buffer was created with. */
			u64 start = mvgal_chunk_start(bo, c);
			u64 len = min_t(u64, bo->size - start,
					1ULL << bo->chunk_shift);

			recorded += len;
			for (l = 0; l < MVGAL_LOC_COUNT; l++) {
				if (!mvgal_chunk_valid_at(ch, l))
					continue;
				valid[l] += len;
				if (ch->valid == 1U << l)
					owned[l] += len;
			}
		}
	}
	spin_unlock(&bo->state_lock);
	valid[bo->home_loc] += bo->size - recorded;
	owned[bo->home_loc] += bo->size - recorded;
}
