// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA placement of host pages: a buffer's pages belong on the node of the
 * GPU whose sessions use it most.
 *
 * Every BEGIN counts a use per GPU. When the GPU used most (ties keep the
 * current one) sits on another node, new pages come from that node at
 * once, and the pages already there move, from a work item: each is
 * copied to a page of the node and replaces it. Moving needs the buffer
 * quiet: no live session, no pending fence, no device attached to its
 * dma-buf (its scatterlist points at the pages) and no write-combined
 * pages (their attributes would move too); otherwise the pages stay and
 * the next BEGIN or END tries again. CPU mappings are torn down first and fault
 * the new pages in. Staging bounce buffers are per node already (the
 * migration worker uses the one of the destination's node).
 */
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "mvgal_bo.h"

/* Moves the pages of @bo that are not on bo->nid there. Holds bo->lock. */
static void mvgal_numa_move(struct mvgal_bo *bo)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	unsigned long i, moved = 0;
	struct page *old, *new;
	int nid;

	mutex_lock(&bo->lock);
	nid = bo->nid;
	if (!bo->host || bo->sessions || bo->nr_attach ||
	    bo->flags & MVGAL_BO_CPU_UNCACHED ||
	    !dma_resv_test_signaled(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		goto out_unlock;
	xa_for_each(&bo->pages, i, old)
		if (page_to_nid(old) != nid)
			break;
	if (!old) {
		bo->numa_pending = false;
		goto out_unlock;
	}
	/* Nobody may reach the old pages once they go. */
	mvgal_bo_zap(bo, 0, bo->nchunks - 1);
	if (bo->vaddr) {
		vunmap(bo->vaddr);
		bo->vaddr = NULL;
	}
	xa_for_each_start(&bo->pages, i, old, i) {
		if (page_to_nid(old) == nid)
			continue;
		new = alloc_pages_node(nid, GFP_HIGHUSER | __GFP_THISNODE |
				       __GFP_NOWARN, 0);
		if (!new)
			break;	/* the node is full: the rest stay */
		copy_highpage(new, old);
		/* The slot exists: replacing it allocates nothing. */
		xa_store(&bo->pages, i, new, GFP_KERNEL);
		__free_page(old);
		moved++;
	}
	bo->numa_pending = !!old;
	/* One mapping of all pages again, once all exist (never allocating
	 * the pages a lazy buffer has not touched).
	 */
	if (bo->nr_pages == bo->npages)
		mvgal_bo_populate_range(bo, 0, bo->base.size);
	atomic64_add(moved, &mdev->ctr.numa_moved);
out_unlock:
	mutex_unlock(&bo->lock);
}

static void mvgal_numa_work(struct work_struct *work)
{
	struct mvgal_bo *bo = container_of(work, struct mvgal_bo, numa_work);

	mvgal_numa_move(bo);
	drm_gem_object_put(&bo->base);
}

void mvgal_numa_init(struct mvgal_bo *bo)
{
	INIT_WORK(&bo->numa_work, mvgal_numa_work);
}

/**
 * mvgal_numa_kick() - move @bo's pages now if they should move and the
 * buffer has no live session
 * @bo: the buffer; caller holds bo->lock
 */
void mvgal_numa_kick(struct mvgal_bo *bo)
{
	lockdep_assert_held(&bo->lock);
	if (!bo->numa_pending || !bo->nr_pages || bo->sessions)
		return;
	drm_gem_object_get(&bo->base);
	if (!queue_work(to_mvgal(bo->base.dev)->free_wq, &bo->numa_work))
		drm_gem_object_put(&bo->base);
}

/**
 * mvgal_numa_use() - GPU @gpu began a session on @bo
 * @bo: the buffer; caller holds bo->lock
 * @gpu: the GPU; caller holds gpu_lock
 *
 * The pages move once the buffer is quiet: mvgal_numa_kick() at END.
 */
void mvgal_numa_use(struct mvgal_bo *bo, struct mvgal_gpu *gpu)
{
	struct mvgal_device *mdev = gpu->mdev;
	unsigned int g, top = gpu->index;

	lockdep_assert_held(&bo->lock);
	if (bo->uses[gpu->index] < U32_MAX)
		bo->uses[gpu->index]++;
	/* Write-combined pages stay: their attributes would move too. */
	if (!bo->host || bo->flags & MVGAL_BO_CPU_UNCACHED)
		return;
	/* The GPU used most; a tie keeps the one the pages follow now. */
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (bo->uses[g] > bo->uses[top] ||
		    (bo->uses[g] == bo->uses[top] && g == bo->nid_gpu))
			top = g;
	if (!mdev->gpus[top] || mdev->gpus[top]->numa_node < 0 ||
	    (top == bo->nid_gpu && mdev->gpus[top]->numa_node == bo->nid))
		return;
	bo->nid_gpu = top;
	bo->nid = mdev->gpus[top]->numa_node;
	bo->numa_pending = true;
}
