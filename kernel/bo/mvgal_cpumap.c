// SPDX-License-Identifier: GPL-2.0
/*
 * CPU mappings of a buffer: tearing down the PTEs of chunks whose
 * current copy leaves home, so that the next CPU access faults.
 */

#include <linux/mm.h>
#include <linux/vmalloc.h>

#include <drm/drm_device.h>
#include <drm/drm_vma_manager.h>

#include "bo/mvgal_bo.h"
#include "bo/mvgal_cpumap.h"

/*
 * mvgal_bo_zap() - tear down CPU mappings of chunks [first, last]
 * @bo: the buffer; caller holds bo->lock
 *
 * The next CPU access faults and goes through the chunk states.
 */
void mvgal_bo_zap(struct mvgal_bo *bo, unsigned long first, unsigned long last)
{
	loff_t start, len;

	lockdep_assert_held(&bo->lock);
	if (!bo->cpu_mapped)
		return;
	start = drm_vma_node_offset_addr(&bo->base.vma_node) +
		mvgal_chunk_start(bo, first);
	len = mvgal_chunk_start(bo, last) + mvgal_chunk_len(bo, last) -
	      mvgal_chunk_start(bo, first);
	unmap_mapping_range(bo->base.dev->anon_inode->i_mapping, start, len, 1);
	if (bo->dmabuf_mapping)
		unmap_mapping_range(bo->dmabuf_mapping, start, len, 1);
}
