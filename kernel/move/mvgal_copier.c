// SPDX-License-Identifier: GPL-2.0
/*
 * The copiers: every copy of a buffer's bytes between two locations (a
 * job's runs, a CPU access bringing chunks home, a drain) goes to the
 * copier of the method the path selector chose for its pair and size:
 * the CPU (a direct copy, or staged through a bounce buffer), a DMA
 * engine (MVGAL_METHOD_P2P, dev/mvgal_dma.c) or the copy executor of the
 * GPU whose pool is one side (MVGAL_METHOD_EXEC, dev/mvgal_exec.c).
 *
 * A copier returns when its copy is done, in the caller's context (the
 * migration worker, whose job's fence then signals); an error fails the
 * caller's work, and the chunks keep the holders they had. A copier that
 * cannot make a copy at all (its engine went, or does not reach a side)
 * says so with -ENODEV before or after trying, and the CPU makes the
 * whole copy instead: the bytes an engine did write are written again,
 * so nothing depends on how far it got.
 */

#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_dma.h"
#include "dev/mvgal_exec.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_view.h"
#include "move/mvgal_copier.h"

struct mvgal_copier {
	/* 0, -ENODEV: the CPU is to make it, or the copy's error. */
	int (*copy)(struct mvgal_bo *bo, unsigned int dst, unsigned int src,
		    u64 off, u64 len, unsigned int method, void *bounce);
};

/* The DMA engine reaches both copies through their DMA addresses. */
static int mvgal_copy_dma(struct mvgal_bo *bo, unsigned int dst,
			  unsigned int src, u64 off, u64 len,
			  unsigned int method, void *bounce)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	struct mvgal_dma_side d, s;
	int ret;

	if (mvgal_loc_dma_side(bo, dst, &d) || mvgal_loc_dma_side(bo, src, &s))
		return -ENODEV;
	ret = mvgal_dma_copy(mdev, &d, &s, off, len);
	/* A failed or stalled engine is not trusted there until checked. */
	if (ret && ret != -ENODEV)
		mvgal_dma_distrust(mdev, src, dst);
	return ret;
}

/*
 * Did the executor copy right? The destination's windows must hold what
 * the source's held before the copy (@want). If the source's changed
 * meanwhile (an application writing its own pages), nothing can be told:
 * the CPU makes the copy again, and the executor is not blamed.
 */
static int mvgal_copy_exec_check(struct mvgal_bo *bo, unsigned int dst,
				 unsigned int src, struct mvgal_samples *want,
				 unsigned int gpu, u64 id)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	struct mvgal_samples *got = want + 1;
	bool wrong;

	*got = *want;
	if (!mvgal_loc_sample(bo, dst, got) &&
	    !memcmp(got->b, want->b, sizeof(want->b)))
		return 0;
	wrong = !mvgal_loc_sample(bo, src, got) &&
		!memcmp(got->b, want->b, sizeof(want->b));
	mvgal_exec_redo(mdev, gpu, id, wrong);
	return -ENODEV;
}

/*
 * The executor of the GPU whose pool is one side copies between that pool
 * and the buffer's host pages, checked at a few windows after.
 */
static int mvgal_copy_exec(struct mvgal_bo *bo, unsigned int dst,
			   unsigned int src, u64 off, u64 len,
			   unsigned int method, void *bounce)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	bool to_pool = src == MVGAL_LOC_HOST;
	struct mvgal_samples *want;
	struct mvgal_exec_host host;
	struct mvgal_dma_side sd;
	u64 id;
	int ret;

	if ((src != MVGAL_LOC_HOST && dst != MVGAL_LOC_HOST) ||
	    mvgal_loc_dma_side(bo, to_pool ? dst : src, &sd))
		return -ENODEV;
	/* Two sets: the source's before, anything's after. */
	want = kmalloc_array(2, sizeof(*want), GFP_KERNEL_ACCOUNT);
	if (!want)
		return -ENODEV;
	mvgal_samples_pick(want, off, len);
	ret = -ENODEV;
	if (mvgal_loc_sample(bo, src, want) ||
	    mvgal_loc_host_pages(bo, off, len, &host))
		goto out;
	ret = mvgal_exec_copy(mdev, sd.gpu->index,
			      to_pool ? MVGAL_EXEC_TO_POOL : MVGAL_EXEC_FROM_POOL,
			      &host, sd.base + off, len, &id);
	kvfree(host.pages);
	if (!ret)
		ret = mvgal_copy_exec_check(bo, dst, src, want, sd.gpu->index,
					    id);
out:
	kfree(want);
	return ret;
}

static const struct mvgal_copier mvgal_cpu_copier = {
	.copy = mvgal_loc_copy,
};

static const struct mvgal_copier mvgal_dma_copier = {
	.copy = mvgal_copy_dma,
};

static const struct mvgal_copier mvgal_exec_copier = {
	.copy = mvgal_copy_exec,
};

/* In place moves nothing: a copy planned that way is the CPU's. */
static const struct mvgal_copier *const mvgal_copiers[MVGAL_NR_METHODS] = {
	[MVGAL_METHOD_IN_PLACE] = &mvgal_cpu_copier,
	[MVGAL_METHOD_P2P] = &mvgal_dma_copier,
	[MVGAL_METHOD_CPU_COPY] = &mvgal_cpu_copier,
	[MVGAL_METHOD_STAGING] = &mvgal_cpu_copier,
	[MVGAL_METHOD_EXEC] = &mvgal_exec_copier,
};

/**
 * mvgal_copy() - copy bytes of @bo from location @src to @dst
 * @bo: the buffer; both locations have storage, host pages populated
 * @dst: destination location
 * @src: source location
 * @off: byte offset, the same at both ends
 * @len: bytes
 * @method: (in) the MVGAL_METHOD_* chosen; (out) the one that copied
 * @bounce: MVGAL_BOUNCE_SIZE bytes on the destination's node
 *
 * Return: 0, the copier's error (-EIO, -ETIMEDOUT for a DMA engine's or
 * an executor's), or
 * -EOPNOTSUPP for an unknown method.
 */
int mvgal_copy(struct mvgal_bo *bo, unsigned int dst, unsigned int src,
	       u64 off, u64 len, unsigned int *method, void *bounce)
{
	const struct mvgal_copier *c;
	int ret;

	if (*method >= MVGAL_NR_METHODS)
		return -EOPNOTSUPP;
	c = mvgal_copiers[*method];
	if (*method == MVGAL_METHOD_IN_PLACE)
		*method = MVGAL_METHOD_CPU_COPY;
	ret = c->copy(bo, dst, src, off, len, *method, bounce);
	if (ret != -ENODEV || c == &mvgal_cpu_copier)
		return ret;
	/* As the selector's static order: read I/O memory once. */
	*method = mvgal_loc_iomem(bo, src) ? MVGAL_METHOD_STAGING :
		  MVGAL_METHOD_CPU_COPY;
	return mvgal_cpu_copier.copy(bo, dst, src, off, len, *method, bounce);
}
