// SPDX-License-Identifier: GPL-2.0
/*
 * Live sessions on a buffer: whether a new use of chunks conflicts with
 * a live one, and whether a live session still uses a location's copy.
 */

#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "bo/mvgal_bo.h"
#include "bo/mvgal_live.h"

/*
 * Is a live session on chunks [first, last] in the way: any (@any), a
 * writer, or (@home) one reading home itself rather than a GPU's copy?
 */
static bool mvgal_live_in_way(struct mvgal_bo *bo, unsigned long first,
			      unsigned long last, bool any, bool home)
{
	struct mvgal_live *l;
	bool busy = false;

	if (!READ_ONCE(bo->sessions))
		return false;
	spin_lock(&bo->state_lock);
	list_for_each_entry(l, &bo->live, link) {
		if ((any || l->write || (home && !l->gpu_copy)) &&
		    mvgal_live_any(l, first, last)) {
			busy = true;
			break;
		}
	}
	spin_unlock(&bo->state_lock);
	return busy;
}

/*
 * mvgal_live_conflict() - would an access of chunks [first, last]
 * conflict with a live session: a write with any, a read with a writer
 */
bool mvgal_live_conflict(struct mvgal_bo *bo, unsigned long first,
			 unsigned long last, bool write)
{
	return mvgal_live_in_way(bo, first, last, write, false);
}

/**
 * mvgal_live_home_conflict() - would a write at home into chunks
 * [first, last], made while sessions stay live, conflict with one: a
 * writer, or a reader of home itself (in place, not a GPU's copy)
 * @bo: the buffer
 * @first: first chunk
 * @last: last chunk
 */
bool mvgal_live_home_conflict(struct mvgal_bo *bo, unsigned long first,
			      unsigned long last)
{
	return mvgal_live_in_way(bo, first, last, false, true);
}

/*
 * Does any live session name chunk @c? Caller holds bo->lock, or
 * bo->state_lock (sessions join and leave the list under both).
 */
bool mvgal_live_names(struct mvgal_bo *bo, unsigned long c)
{
	struct mvgal_live *l;

	list_for_each_entry(l, &bo->live, link)
		if (mvgal_live_has(l, c))
			return true;
	return false;
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
