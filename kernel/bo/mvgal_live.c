// SPDX-License-Identifier: GPL-2.0
/*
 * Live sessions on a buffer: whether a new use of chunks conflicts with
 * a live one, and whether a live session still uses a location's copy.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "dev/mvgal_device.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_live.h"

/*
 * A session's gate: a fence of its own, signalled by the buffer when the
 * session ends (after the GPU work END names). Like a job, it holds the
 * module while it lives: its ops are this module's code.
 */
struct mvgal_gate {
	struct dma_fence base;
	spinlock_t lock;		/* the fence's lock */
	struct dma_fence_cb cb;
};

static const char *mvgal_gate_driver_name(struct dma_fence *f)
{
	return MVGAL_DRIVER_NAME;
}

static const char *mvgal_gate_timeline_name(struct dma_fence *f)
{
	return "session-end";
}

static void mvgal_gate_release(struct dma_fence *f)
{
	dma_fence_free(f);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops mvgal_gate_ops = {
	.get_driver_name = mvgal_gate_driver_name,
	.get_timeline_name = mvgal_gate_timeline_name,
	.release = mvgal_gate_release,
};

/* The gate of live session @l, made on first use; NULL: no memory. */
static struct dma_fence *mvgal_live_gate(struct mvgal_live *l)
{
	struct mvgal_gate *g;

	if (l->gate)
		return l->gate;
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return NULL;
	/* Called from an ioctl of a loaded module: it is live. */
	__module_get(THIS_MODULE);
	spin_lock_init(&g->lock);
	dma_fence_init(&g->base, &mvgal_gate_ops, &g->lock,
		       dma_fence_context_alloc(1), 1);
	l->gate = &g->base;
	return l->gate;
}

/**
 * mvgal_live_gates() - hand @add the gate of every live session that
 * names a chunk of [first, last]
 * @bo: the buffer; caller holds bo->lock, under which sessions go live
 *	and end
 * @first: first chunk
 * @last: last chunk
 * @add: takes a reference on the gate it keeps; 0 or -errno
 * @arg: for @add
 *
 * Return: 0, -ENOMEM, or the first error of @add.
 */
int mvgal_live_gates(struct mvgal_bo *bo, unsigned long first,
		     unsigned long last,
		     int (*add)(void *arg, struct dma_fence *gate), void *arg)
{
	struct mvgal_live *l;
	int ret = 0;

	lockdep_assert_held(&bo->lock);
	list_for_each_entry(l, &bo->live, link) {
		struct dma_fence *gate;

		if (!mvgal_live_any(l, first, last))
			continue;
		gate = mvgal_live_gate(l);
		ret = gate ? add(arg, gate) : -ENOMEM;
		if (ret)
			break;
	}
	return ret;
}

static void mvgal_gate_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct mvgal_gate *g = container_of(cb, struct mvgal_gate, cb);

	dma_fence_signal(&g->base);
	dma_fence_put(&g->base);
}

/**
 * mvgal_live_open_gate() - session @l ended: its gate (if any) signals
 * once @after has
 * @l: the session's use of the buffer, off the buffer's list
 * @after: the GPU work END named, or NULL
 *
 * The session's reference on the gate goes to the callback.
 */
void mvgal_live_open_gate(struct mvgal_live *l, struct dma_fence *after)
{
	struct mvgal_gate *g;

	if (!l->gate)
		return;
	g = container_of(l->gate, struct mvgal_gate, base);
	l->gate = NULL;
	if (after && !dma_fence_add_callback(after, &g->cb, mvgal_gate_cb))
		return;
	mvgal_gate_cb(after, &g->cb);
}

/*
 * mvgal_live_conflict() - would an access of chunks [first, last]
 * conflict with a live session: a write with any, a read with a writer
 */
bool mvgal_live_conflict(struct mvgal_bo *bo, unsigned long first,
			 unsigned long last, bool write)
{
	struct mvgal_live *l;
	bool busy = false;

	if (!READ_ONCE(bo->sessions))
		return false;
	spin_lock(&bo->state_lock);
	list_for_each_entry(l, &bo->live, link) {
		if ((write || l->write) && mvgal_live_any(l, first, last)) {
			busy = true;
			break;
		}
	}
	spin_unlock(&bo->state_lock);
	return busy;
}

/*
 * Does a live session other than @self use the copy of chunk @c at @loc?
 * Then it must not be dropped under it. Caller holds bo->lock.
 */
bool mvgal_live_uses(struct mvgal_bo *bo, struct mvgal_live *self,
		     unsigned long c, unsigned int loc)
{
	struct mvgal_live *l;

	list_for_each_entry(l, &bo->live, link)
		if (l != self && l->loc == loc && mvgal_live_has(l, c))
			return true;
	return false;
}
