// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA placement of host pages: a buffer's pages belong on the node of the
 * GPU whose sessions use it most.
 *
 * Every BEGIN counts a use per GPU. When the GPU used most (ties keep the
 * current one) sits on another node, new pages come from that node at
 * once, and the pages already there move, from a work item: each is
 * copied to a page of the node and replaces it, a batch at a time. Moving needs the buffer
 * quiet: no live session, no pending fence, no device attached to its
 * dma-buf (its scatterlist points at the pages) and no write-combined
 * pages (their attributes would move too); otherwise the pages stay and
 * the next BEGIN or END tries again. CPU mappings are torn down first and fault
 * the new pages in. Staging bounce buffers are per node already (the
 * migration worker uses the one of the destination's node).
 */

#include <linux/delay.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_cpumap.h"
#include "bo/mvgal_pages.h"
#include "policy/mvgal_numa.h"

/* Pages moved per hold of the locks: a move stalls BEGINs only briefly. */
#define MVGAL_NUMA_BATCH 512

/*
 * A test's hook (debugfs numa_move_delay): each batch sleeps this long
 * with the buffer's lock held and pools.page_move set, so that a test
 * can have eviction find buffers locked by their moves; and the batches
 * begun so far. 0 (no sleep) in normal use.
 */
static unsigned int mvgal_numa_delay_ms;
static atomic_t mvgal_numa_batches = ATOMIC_INIT(0);

/*
 * Moves the pages of @bo in [@i, @i + MVGAL_NUMA_BATCH) that are not on
 * bo->nid there; caller holds bo->lock. Return: false when the node is
 * full (the rest stay where they are).
 */
static bool mvgal_numa_batch(struct mvgal_bo *bo, unsigned long i)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	unsigned long last = i + MVGAL_NUMA_BATCH - 1, moved = 0;
	struct page *old, *new;
	bool room = true;

	/* Nobody may reach the old pages once they go. */
	mvgal_bo_zap(bo, ((u64)i << PAGE_SHIFT) >> bo->chunk_shift,
		     min_t(u64, ((u64)last << PAGE_SHIFT) + PAGE_SIZE - 1,
			   bo->base.size - 1) >> bo->chunk_shift);
	if (bo->vaddr) {
		vunmap(bo->vaddr);
		/* No job runs (the buffer is idle); readers load it once. */
		WRITE_ONCE(bo->vaddr, NULL);
	}
	xa_for_each_range(&bo->pages, i, old, i, last) {
		if (page_to_nid(old) == bo->nid)
			continue;
		new = alloc_pages_node(bo->nid, GFP_HIGHUSER | __GFP_THISNODE |
				       __GFP_NOWARN, 0);
		if (!new) {
			room = false;
			break;
		}
		copy_highpage(new, old);
		/* The slot exists: replacing it allocates nothing. */
		xa_store(&bo->pages, i, new, GFP_KERNEL);
		__free_page(old);
		moved++;
	}
	atomic64_add(moved, &mdev->ctr.numa_moved);
	return room;
}

/* The index of the first page of @bo from @i on not on bo->nid, or -1. */
static long mvgal_numa_next(struct mvgal_bo *bo, unsigned long i)
{
	struct page *page;

	xa_for_each_start(&bo->pages, i, page, i)
		if (page_to_nid(page) != bo->nid)
			return i;
	return -1;
}

/*
 * Moves the next batch of pages of @bo that are not on bo->nid there,
 * under the buffer's lock alone. bo->pools.page_move says so meanwhile:
 * eviction, which takes a locked buffer for one in use, waits for the
 * batch instead (it holds nothing the move needs). A buffer with a
 * session or pending work is left for its next END.
 * Return: whether pages are left to move now.
 */
static bool mvgal_numa_move(struct mvgal_bo *bo)
{
	bool room = true, more = false;
	long i;

	/* An eviction waits to take this buffer as a victim: it goes first. */
	wait_var_event(&bo->pools.evict_waits, !atomic_read(&bo->pools.evict_waits));
	mutex_lock(&bo->lock);
	if (!bo->host || bo->userptr || bo->sessions || bo->nr_attach ||
	    bo->flags & MVGAL_BO_CPU_UNCACHED ||
	    !dma_resv_test_signaled(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		goto out_unlock;
	WRITE_ONCE(bo->pools.page_move, true);
	i = mvgal_numa_next(bo, 0);
	if (i >= 0) {
		atomic_inc(&mvgal_numa_batches);
		if (unlikely(READ_ONCE(mvgal_numa_delay_ms)))
			msleep(READ_ONCE(mvgal_numa_delay_ms));
		room = mvgal_numa_batch(bo, i);
		i = mvgal_numa_next(bo, i);
	}
	/* Pages left behind on a full node move at a later END. */
	bo->policy.numa_pending = i >= 0;
	more = bo->policy.numa_pending && room;
	/* One mapping of all pages again, once all exist (never allocating
	 * the pages a lazy buffer has not touched).
	 */
	if (i < 0 && !bo->vaddr && bo->nr_pages == bo->npages)
		mvgal_bo_populate_range(bo, 0, bo->base.size);
out_unlock:
	mutex_unlock(&bo->lock);
	/* The caller's reference keeps @bo: eviction retries after this. */
	if (READ_ONCE(bo->pools.page_move)) {
		WRITE_ONCE(bo->pools.page_move, false);
		/* wake_up_var() looks for waiters without a barrier: the
		 * store must be seen by a waiter that is not seen here.
		 */
		smp_mb();
		wake_up_var(&bo->pools.page_move);
	}
	return more;
}

static void mvgal_numa_work(struct work_struct *work)
{
	struct mvgal_bo *bo = container_of(work, struct mvgal_bo,
					     policy.numa_work);

	/* More to move: the reference goes on with the work. */
	if (mvgal_numa_move(bo) &&
	    queue_work(to_mvgal(bo->base.dev)->free_wq, work))
		return;
	drm_gem_object_put(&bo->base);
}

/**
 * mvgal_numa_kick() - move @bo's pages now if they should move and the
 * buffer has no live session
 * @bo: the buffer; caller holds bo->lock
 */
void mvgal_numa_kick(struct mvgal_bo *bo)
{
	lockdep_assert_held(&bo->lock);
	if (!bo->policy.numa_pending || !bo->nr_pages || bo->sessions)
		return;
	/* Set up on first use, under @bo->lock, so that creating a buffer
	 * needs nothing of this file.
	 */
	if (!bo->policy.numa_work.func)
		INIT_WORK(&bo->policy.numa_work, mvgal_numa_work);
	drm_gem_object_get(&bo->base);
	if (!queue_work(to_mvgal(bo->base.dev)->free_wq, &bo->policy.numa_work))
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
	if (bo->policy.uses[gpu->index] < U32_MAX)
		bo->policy.uses[gpu->index]++;
	/* Write-combined pages stay: their attributes would move too. */
	if (!bo->host || bo->userptr || bo->flags & MVGAL_BO_CPU_UNCACHED)
		return;
	/* The GPU used most; a tie keeps the one the pages follow now. */
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (bo->policy.uses[g] > bo->policy.uses[top] ||
		    (bo->policy.uses[g] == bo->policy.uses[top] &&
		     g + 1 == bo->policy.numa_gpu))
			top = g;
	if (!mdev->gpus[top] || mdev->gpus[top]->numa_node < 0 ||
	    (top + 1 == bo->policy.numa_gpu &&
	     mdev->gpus[top]->numa_node == bo->nid))
		return;
	bo->policy.numa_gpu = top + 1;
	bo->nid = mdev->gpus[top]->numa_node;
	bo->policy.numa_pending = true;
}

/**
 * mvgal_numa_delay_set() - the test hook: every page-move batch sleeps
 * @ms with its buffer's lock held
 * @ms: 0 for no sleep
 */
void mvgal_numa_delay_set(unsigned int ms)
{
	WRITE_ONCE(mvgal_numa_delay_ms, ms);
}

/**
 * mvgal_numa_delay_get() - the test hook's setting, and the batches so far
 * @ms: (out) the sleep
 * @batches: (out) page-move batches begun since the module loaded
 */
void mvgal_numa_delay_get(unsigned int *ms, unsigned int *batches)
{
	*ms = READ_ONCE(mvgal_numa_delay_ms);
	*batches = atomic_read(&mvgal_numa_batches);
}
