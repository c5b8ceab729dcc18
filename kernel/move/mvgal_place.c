// SPDX-License-Identifier: GPL-2.0
/*
 * Placements: a buffer's copy in one GPU's pool, made on first need and
 * drained home before it goes; and the pool budgets and eviction that
 * make room for new ones.
 *
 * Location 0 is the host copy (pages, or an import's vmap); location
 * 1 + N is GPU N's pool. A device-only buffer's home is its GPU's pool
 * range (bo->alloc); every other pool copy is a placement (bo->pools.place[]).
 *
 * Each GPU keeps its placements on an LRU list and every buffer keeps,
 * per GPU, when it was used and how often its uses come round
 * (core/mvgal_evict.c). When a range does not fit below the pool's
 * budget, the evictable placements are ranked, first to go first, and
 * drm_mm's eviction scan picks, in that order, the fewest that free a
 * hole large enough; only then is anything evicted. Evicting is what
 * PLACE_FREE does: the chunks only the pool holds are copied home, then
 * the range goes back.
 *
 * Never evicted: PERSISTENT buffers, placements a live session uses, and
 * placements whose buffer has unsignaled fences (work may still read or
 * write the range; nothing here waits while holding locks), and pinned
 * ones (ADVISE). Victims are taken with mutex_trylock(): the caller holds
 * its own buffers' locks (so a session's buffers never evict each other),
 * and a buffer someone else holds locked is in use. So a request either
 * finds room among idle, unpinned placements or fails with -ENOSPC, and
 * two sessions can never take memory from each other in a loop: what a
 * live session uses stays. The one wait: a buffer locked by its host
 * pages' move to another NUMA node is idle, and a request waits for the
 * batch the move is making (for up to MVGAL_EVICT_WAITS buffers).
 */

#include <linux/bitmap.h>
#include <linux/cred.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>

#include <drm/drm_mm.h>
#include <drm/drm_vma_manager.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_evict.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_pool.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_commit.h"
#include "move/mvgal_fetch.h"
#include "move/mvgal_place.h"

/* Buffers whose page move one eviction waits for before it gives up. */
#define MVGAL_EVICT_WAITS 4

/* Evictions' waits for a page-move batch, for tests (debugfs). */
static atomic_t mvgal_evict_move_waits = ATOMIC_INIT(0);

/**
 * mvgal_place_touch() - a use of @bo by @gpu, through location @loc
 * @bo: the buffer
 * @gpu: the GPU of the session or the migration's destination
 * @loc: the location whose copy is used (a placement moves to the tail
 *	 of its pool's LRU list)
 *
 * Caller holds bo->lock. Each pool's lock is taken in turn, never both.
 */
void mvgal_place_touch(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
		       unsigned int loc)
{
	u64 now = atomic64_inc_return(&gpu->mdev->clock);
	struct mvgal_place *p = NULL;

	lockdep_assert_held(&bo->lock);
	if (loc != MVGAL_LOC_HOST && loc <= MVGAL_MAX_GPUS)
		p = bo->pools.place[loc - 1];
	mutex_lock(&gpu->lru_lock);
	mvgal_reuse_touch(&bo->pools.reuse[gpu->index], now);
	if (p && p->gpu == gpu && !p->adopted)
		list_move_tail(&p->lru, &gpu->lru);
	mutex_unlock(&gpu->lru_lock);
	if (!p || p->gpu == gpu || p->adopted)
		return;
	/* A peer's placement used in place: its own record of use too, by
	 * which its pool ranks it.
	 */
	mutex_lock(&p->gpu->lru_lock);
	list_move_tail(&p->lru, &p->gpu->lru);
	mvgal_reuse_touch(&bo->pools.reuse[p->gpu->index], now);
	mutex_unlock(&p->gpu->lru_lock);
}

/* Evictable by rank? (Its lock and fences are checked once chosen.) */
static bool mvgal_victim_may(struct mvgal_place *p)
{
	struct mvgal_bo *bo = p->bo;
	unsigned int g = p->gpu->index;

	return !(bo->flags & MVGAL_BO_PERSISTENT) && !p->pinned &&
	       !atomic_read(&bo->pools.exported[g]) &&
	       !READ_ONCE(bo->sessions_at[g]);
}

/*
 * Takes a chosen victim: a reference, so that the buffer outlives its
 * last placement going, its lock (tried: the caller holds its own
 * buffers' locks, and a buffer locked elsewhere is in use), still
 * evictable under it (no pin, export or live session at the GPU: those
 * change under the buffer's lock, and were read without it) and every
 * fence signaled (no job reads or writes the range). A dying one (no
 * reference left, *@ref false) is taken too, and drained without its
 * bytes: a buffer that had a placement is freed from a work item
 * (mvgal_bo_free()) that drains it under its lock and then waits for
 * bo->pools.victim_holds, which counts such victims, to drop to 0.
 */
static bool mvgal_victim_lock(struct mvgal_place *p, bool *ref)
{
	struct mvgal_bo *bo = p->bo;

	if (!mutex_trylock(&bo->lock))
		return false;
	if (!mvgal_victim_may(p) ||
	    !dma_resv_test_signaled(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP)) {
		mutex_unlock(&bo->lock);
		return false;
	}
	*ref = kref_get_unless_zero(&bo->base.refcount);
	if (!*ref)
		atomic_inc(&bo->pools.victim_holds);
	return true;
}

/*
 * Lets a victim go. Dropping what may be its last reference is safe with
 * the caller's locks held: the free runs from the work item, never here.
 * A dying victim's free may go on once its hold is dropped: after the
 * unlock, whose end may still touch the lock.
 */
static void mvgal_victim_unlock(struct mvgal_bo *bo, bool ref)
{
	mutex_unlock(&bo->lock);
	if (ref)
		drm_gem_object_put(&bo->base);
	else if (atomic_dec_and_test(&bo->pools.victim_holds))
		wake_up_var(&bo->pools.victim_holds);
}

/*
 * One pass of drm_mm's eviction scan over the candidates in their order,
 * skipping those in @skip: blocks are added until, with the holes around
 * them, they free a range of @size below the budget; every block added
 * must then come out again, in reverse order, and those that overlap the
 * range are the victims (@victim). The mm must not change meanwhile:
 * pool.lock is held throughout. Return: whether a range was found.
 */
static bool mvgal_evict_scan(struct mvgal_gpu *gpu, u64 size,
			     struct mvgal_evict_cand *cand,
			     struct mvgal_place **places, unsigned int k,
			     const unsigned long *skip, unsigned long *victim)
{
	struct mvgal_pool *pool = &gpu->pool;
	struct drm_mm_scan scan;
	unsigned int j, last = 0;
	bool found = false;

	bitmap_zero(victim, k);
	mutex_lock(&pool->lock);
	drm_mm_scan_init_with_range(&scan, &pool->mm, PAGE_ALIGN(size),
				    PAGE_SIZE, 0, 0, pool->budget,
				    DRM_MM_INSERT_BEST);
	for (j = 0; j < k && !found; j++) {
		if (test_bit(j, skip))
			continue;
		found = drm_mm_scan_add_block(&scan,
					      &places[cand[j].index]->alloc.node);
		last = j + 1;
	}
	for (j = last; j--;) {
		if (test_bit(j, skip))
			continue;
		if (drm_mm_scan_remove_block(&scan,
					     &places[cand[j].index]->alloc.node) &&
		    found)
			__set_bit(j, victim);
	}
	mutex_unlock(&pool->lock);
	return found;
}

/* One eviction's candidates, ranked, and the state of its scans. */
struct mvgal_evict_set {
	struct mvgal_evict_cand *cand;
	struct mvgal_place **places;
	bool *ref;		/* per candidate: its reservation was taken */
	unsigned long *skip;	/* candidates that could not be locked */
	unsigned long *victim;	/* the scan's pick */
	unsigned int k;		/* candidates */
	/*
	 * Candidates found locked by their page move, each waited for once
	 * (a reference; each one's next batch waits for this eviction).
	 */
	struct mvgal_bo *moving[MVGAL_EVICT_WAITS];
	unsigned int nmoving;
};

static void mvgal_evict_set_free(struct mvgal_evict_set *e)
{
	bitmap_free(e->victim);
	bitmap_free(e->skip);
	kvfree(e->ref);
	kvfree(e->places);
	kvfree(e->cand);
}

/* Room for @n candidates. Return: 0 or -ENOMEM (nothing held). */
static int mvgal_evict_set_alloc(struct mvgal_evict_set *e, unsigned int n)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN;

	e->k = 0;
	e->cand = kvcalloc(n, sizeof(*e->cand), gfp);
	e->places = kvcalloc(n, sizeof(*e->places), gfp);
	e->ref = kvcalloc(n, sizeof(*e->ref), gfp);
	e->skip = bitmap_zalloc(n, gfp);
	e->victim = bitmap_zalloc(n, gfp);
	if (!e->cand || !e->places || !e->ref || !e->skip || !e->victim) {
		mvgal_evict_set_free(e);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Ranks the placements of @gpu that may go: not predicted to be used
 * within @keep_ahead ticks, and evictable. No buffer lock is taken: the
 * GPU's lru_lock, held, keeps the list and the records of use still.
 */
static void mvgal_evict_rank(struct mvgal_gpu *gpu, u64 keep_ahead,
			     struct mvgal_evict_set *e)
{
	enum mvgal_evict_policy policy = READ_ONCE(mvgal_evict_policy) ==
		MVGAL_EVICT_POLICY_LRU ? MVGAL_EVICT_LRU : MVGAL_EVICT_PREDICT;
	u64 now = atomic64_read(&gpu->mdev->clock);
	struct mvgal_place *p;

	lockdep_assert_held(&gpu->lru_lock);
	list_for_each_entry(p, &gpu->lru, lru) {
		struct mvgal_reuse *r = &p->bo->pools.reuse[gpu->index];
		u64 ahead = mvgal_reuse_ahead(r, now);

		if (ahead <= keep_ahead || !mvgal_victim_may(p))
			continue;
		e->places[e->k] = p;
		e->cand[e->k] = (struct mvgal_evict_cand){
			.last = r->last, .ahead = ahead, .index = e->k,
		};
		e->k++;
	}
	mvgal_evict_order(e->cand, e->k, policy);
}

/*
 * Notes @bo, which could not be locked, as a buffer to wait for if its
 * pages are moving and it was not waited for already: its next batch
 * then waits for this eviction. Return: whether it was noted.
 */
static bool mvgal_evict_note_move(struct mvgal_evict_set *e,
				  struct mvgal_bo *bo)
{
	unsigned int i;

	if (e->nmoving == MVGAL_EVICT_WAITS || !READ_ONCE(bo->pools.page_move))
		return false;
	for (i = 0; i < e->nmoving; i++)
		if (e->moving[i] == bo)
			return false;
	if (!kref_get_unless_zero(&bo->base.refcount))
		return false;
	atomic_inc(&bo->pools.evict_waits);
	e->moving[e->nmoving++] = bo;
	return true;
}

/*
 * Scans for the fewest candidates that make room for @size and locks
 * them; one that cannot be taken is left out and the scan runs again,
 * but for one whose pages move: its batch is waited for, once per buffer
 * (by the next scan another buffer's pages may be moving).
 * Return: 0 with every victim locked, -ENOSPC if no room can be made,
 * -EAGAIN with none locked and a batch to wait for (the last of
 * e->moving, noted just now).
 */
static int mvgal_evict_take_victims(struct mvgal_gpu *gpu, u64 size,
				    struct mvgal_evict_set *e)
{
	struct mvgal_place **places = e->places;
	struct mvgal_evict_cand *cand = e->cand;
	unsigned int j;

	while (mvgal_evict_scan(gpu, size, cand, places, e->k, e->skip,
				e->victim)) {
		bool all = true, wait = false;

		for_each_set_bit(j, e->victim, e->k) {
			struct mvgal_place *p = places[cand[j].index];

			if (mvgal_victim_lock(p, &e->ref[j]))
				continue;
			if (!wait)
				wait = mvgal_evict_note_move(e, p->bo);
			__set_bit(j, e->skip);
			__clear_bit(j, e->victim);
			all = false;
		}
		if (all)
			return 0;
		/* One could not be taken: let go and scan without it. */
		for_each_set_bit(j, e->victim, e->k)
			mvgal_victim_unlock(places[cand[j].index]->bo,
					    e->ref[j]);
		/*
		 * Unless its pages move: the caller waits for the batch and
		 * ranks again, rather than evict another in its place.
		 */
		if (wait)
			return -EAGAIN;
	}
	return -ENOSPC;
}

/* Drains one victim home and counts what went. */
static int mvgal_evict_drain_one(struct mvgal_gpu *gpu,
				 struct mvgal_place *x, bool ref)
{
	u64 bytes = x->alloc.node.size, drained = 0;
	int ret;

	ret = mvgal_place_drain_counted(x->bo, gpu->index, !ref, &drained);
	if (ret)
		return ret;
	mutex_lock(&gpu->lru_lock);
	gpu->written_back += drained;
	gpu->evictions++;
	gpu->evicted_bytes += bytes;
	mutex_unlock(&gpu->lru_lock);
	return 0;
}

/*
 * Drains the locked victims home until one fails; unlocks every one.
 * Return: 0 or the first failure.
 */
static int mvgal_evict_drain_victims(struct mvgal_gpu *gpu,
				     struct mvgal_evict_set *e)
{
	unsigned int j;
	int ret = 0;

	for_each_set_bit(j, e->victim, e->k) {
		struct mvgal_place *x = e->places[e->cand[j].index];
		struct mvgal_bo *bo = x->bo;

		if (!ret)
			ret = mvgal_evict_drain_one(gpu, x, e->ref[j]);
		mvgal_victim_unlock(bo, e->ref[j]);
	}
	return ret;
}

/*
 * Ranks the evictable placements of @gpu and locks the victims that make
 * room for @size, all under the GPU's lru_lock. Return: 0 with the
 * victims locked, -ENOSPC or -ENOMEM with none, or -EAGAIN with none
 * and the last of e->moving the buffer whose page move kept it from
 * being taken: room may be made once that batch is done.
 */
static int mvgal_evict_choose(struct mvgal_gpu *gpu, u64 size,
			      u64 keep_ahead, struct mvgal_evict_set *e)
{
	struct mvgal_place *p;
	unsigned int n = 0;
	int ret = -ENOSPC;

	mutex_lock(&gpu->lru_lock);
	list_for_each_entry(p, &gpu->lru, lru)
		n++;
	if (n)
		ret = mvgal_evict_set_alloc(e, n);
	if (!ret) {
		mvgal_evict_rank(gpu, keep_ahead, e);
		ret = mvgal_evict_take_victims(gpu, size, e);
		if (ret)
			mvgal_evict_set_free(e);
	}
	mutex_unlock(&gpu->lru_lock);
	return ret;
}

/* Lets the buffers whose page move eviction waited for move on. */
static void mvgal_evict_release_moves(struct mvgal_evict_set *e)
{
	while (e->nmoving) {
		struct mvgal_bo *bo = e->moving[--e->nmoving];

		if (atomic_dec_and_test(&bo->pools.evict_waits))
			wake_up_var(&bo->pools.evict_waits);
		drm_gem_object_put(&bo->base);
	}
}

/*
 * Evicts placements from @gpu's pool until a range of @size fits below
 * its budget. The evictable placements are ranked without any buffer
 * lock (the GPU's lru_lock keeps them and their records still), the scan
 * picks the fewest that make room, and only those are locked; one that
 * cannot be taken is left out and the scan runs again, but for one whose
 * pages are being moved: that batch is waited for, and the next one waits
 * for this eviction.
 * The victims are drained with their own locks held, not the lru_lock.
 * Caller holds the GPU's evict_lock.
 *
 * Return: 0 (a later allocation of @size fits), -ENOSPC (nothing was
 * evicted), -ENOMEM (possibly after some victims went: their bytes are
 * home, nothing is lost).
 */
static int mvgal_evict(struct mvgal_gpu *gpu, u64 size, u64 keep_ahead)
{
	struct mvgal_evict_set e = {};
	int ret;

	lockdep_assert_held(&gpu->evict_lock);
	if (PAGE_ALIGN(size) > READ_ONCE(gpu->pool.budget))
		return -ENOSPC;
	/*
	 * A buffer whose pages move is waited for (its batch ends, and the
	 * next waits for this eviction) rather than passed by; a choice ends
	 * so at most MVGAL_EVICT_WAITS times, once per buffer.
	 */
	while ((ret = mvgal_evict_choose(gpu, size, keep_ahead, &e)) ==
	       -EAGAIN) {
		struct mvgal_bo *bo = e.moving[e.nmoving - 1];

		atomic_inc(&mvgal_evict_move_waits);
		wait_var_event(&bo->pools.page_move,
			       !READ_ONCE(bo->pools.page_move));
	}
	if (!ret) {
		ret = mvgal_evict_drain_victims(gpu, &e);
		mvgal_evict_set_free(&e);
	}
	mvgal_evict_release_moves(&e);
	return ret;
}

/**
 * mvgal_evict_move_waits_read() - how many times an eviction waited for
 * a page-move batch (the test hook's count)
 *
 * Return: the count since the module loaded.
 */
unsigned int mvgal_evict_move_waits_read(void)
{
	return atomic_read(&mvgal_evict_move_waits);
}

/**
 * mvgal_pool_alloc_evict() - mvgal_pool_alloc(), evicting for room
 * @gpu: the GPU, which the caller keeps attached; the caller holds the
 *	 locks of every buffer that must not lose its placement (they
 *	 cannot be taken), and not the GPU's evict_lock
 *
 * Allocations that may evict in one pool are made one at a time (the
 * GPU's evict_lock), victims' copies home included: other pools' and
 * everything else go on meanwhile.
 * @a: the allocation
 * @size: bytes
 * @keep_ahead: placements predicted to be used within this many ticks
 *		stay (0: any evictable placement may go)
 *
 * Return: 0, -ENOSPC (no room even without every evictable placement;
 * nothing was evicted), -ENOMEM.
 */
int mvgal_pool_alloc_evict(struct mvgal_gpu *gpu, struct mvgal_pool_alloc *a,
			   u64 size, u64 keep_ahead)
{
	int ret;

	/* The room eviction makes is taken before anyone else's turn. */
	mutex_lock(&gpu->evict_lock);
	ret = mvgal_pool_alloc(gpu, a, size);
	if (ret == -ENOSPC) {
		ret = mvgal_evict(gpu, size, keep_ahead);
		if (!ret)
			ret = mvgal_pool_alloc(gpu, a, size);
	}
	mutex_unlock(&gpu->evict_lock);
	if (ret == -ENOSPC && !keep_ahead) {
		mutex_lock(&gpu->lru_lock);
		gpu->refusals++;
		mutex_unlock(&gpu->lru_lock);
	}
	return ret;
}

/**
 * mvgal_place_get() - make sure @bo has a placement in @gpu's pool
 * @bo: the buffer; caller holds bo->lock
 * @gpu: the GPU; caller holds mdev->gpu_lock (to read)
 *
 * A new placement holds no chunk: nothing is valid there until copied.
 * A full pool evicts others (see the top of this file); never placements
 * of buffers whose locks the caller holds.
 *
 * Return: 0, -ENOMEM, -ENOSPC, or -ENODEV for a GPU being detached.
 */
int mvgal_place_get(struct mvgal_bo *bo, struct mvgal_gpu *gpu)
{
	return mvgal_place_get_for(bo, gpu, 0);
}

/*
 * mvgal_place_get_for() - mvgal_place_get(), evicting only placements
 * predicted to be used more than @keep_ahead ticks from now (a prefetch
 * must not push out what is needed before the buffer it brings)
 */
int mvgal_place_get_for(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
			u64 keep_ahead)
{
	struct mvgal_place *p;
	int ret;

	lockdep_assert_held(&bo->lock);
	lockdep_assert_held(&gpu->mdev->gpu_lock);
	if (bo->home == gpu || bo->pools.place[gpu->index])
		return 0;
	/* Its drain runs: nothing new goes there. */
	if (READ_ONCE(gpu->detaching))
		return -ENODEV;
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	ret = mvgal_pool_alloc_evict(gpu, &p->alloc, bo->base.size,
				     keep_ahead);
	if (ret) {
		kfree(p);
		return ret;
	}
	/*
	 * The range may hold a freed buffer's bytes, and the GPU sees the
	 * whole placement, not only the chunks copied in: never show them.
	 */
	ret = mvgal_pool_clear(gpu, &p->alloc);
	if (ret) {
		mvgal_pool_free(gpu, &p->alloc);
		kfree(p);
		return ret;
	}
	p->gpu = gpu;
	p->pool = &gpu->pool;
	p->bo = bo;
	WRITE_ONCE(bo->pools.ever_placed, true);
	mutex_lock(&gpu->lru_lock);
	list_add_tail(&p->lru, &gpu->lru);
	gpu->nr_places++;
	mutex_unlock(&gpu->lru_lock);
	bo->pools.place[gpu->index] = p;
	return 0;
}

/**
 * mvgal_place_adopt() - make @pool, a driver buffer of @gpu lent for @bo
 * alone, @bo's placement there
 * @bo: the buffer; caller holds bo->lock
 * @gpu: the GPU; caller holds mdev->gpu_lock (to read)
 * @pool: the buffer's pool (mvgal_gpu_adopt_pool()), the buffer's size
 *	  rounded up to a page; owned by the placement on success
 *
 * The GPU's own API reaches the placement as its driver's own object
 * (the lender's handle, or its import of the same dma-buf), not as
 * foreign memory. Like a new placement it holds no chunk, and it is
 * cleared: what the lender had in it is not the buffer's (a placement
 * export shows it to whoever shares the buffer). Nothing is cleared
 * when it is refused.
 *
 * Return: 0, -EEXIST (a placement or the buffer's home is there already),
 * -ENODEV (the GPU is being detached), -ENOMEM, or -EIO (it cannot be
 * written).
 */
int mvgal_place_adopt(struct mvgal_bo *bo, struct mvgal_gpu *gpu,
		      struct mvgal_pool *pool)
{
	struct mvgal_place *p;
	int ret;

	lockdep_assert_held(&bo->lock);
	lockdep_assert_held(&gpu->mdev->gpu_lock);
	if (bo->home == gpu || bo->pools.place[gpu->index])
		return -EEXIST;
	if (READ_ONCE(gpu->detaching))
		return -ENODEV;
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	ret = mvgal_pool_zero(pool, 0, pool->size);
	if (ret) {
		kfree(p);
		return ret;
	}
	p->gpu = gpu;
	p->pool = pool;
	p->adopted = true;
	p->bo = bo;
	p->alloc.node.size = pool->size;
	INIT_LIST_HEAD(&p->lru);
	WRITE_ONCE(bo->pools.ever_placed, true);
	bo->pools.place[gpu->index] = p;
	return 0;
}

/**
 * mvgal_place_pin() - pin @bo's placements on the GPUs of @pin (never
 * evicted), and unpin the others
 * @bo: the buffer; caller holds bo->lock
 * @pin: GPUs (bits)
 */
void mvgal_place_pin(struct mvgal_bo *bo, u32 pin)
{
	unsigned int g;

	lockdep_assert_held(&bo->lock);
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (bo->pools.place[g])
			bo->pools.place[g]->pinned = pin & BIT(g);
}

/* The GPUs whose placement of @bo is pinned; caller holds bo->lock. */
u32 mvgal_place_pins(struct mvgal_bo *bo)
{
	unsigned int g;
	u32 pins = 0;

	lockdep_assert_held(&bo->lock);
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (bo->pools.place[g] && bo->pools.place[g]->pinned)
			pins |= BIT(g);
	return pins;
}

/*
 * Gives a placement's range back. Caller holds bo->lock; the GPU stays
 * attached meanwhile (gpu_lock held, the GPU's own drain, or the
 * buffer's free, which a detach waits for).
 */
static void mvgal_place_put(struct mvgal_bo *bo, unsigned int gidx)
{
	struct mvgal_place *p = bo->pools.place[gidx];

	bo->pools.place[gidx] = NULL;
	if (p->adopted) {
		mvgal_gpu_adopted_put(p->gpu, p->pool);
		kfree(p);
		return;
	}
	mutex_lock(&p->gpu->lru_lock);
	list_del(&p->lru);
	p->gpu->nr_places--;
	mutex_unlock(&p->gpu->lru_lock);
	/* Prefetched and gone before any session used it: a miss. */
	if (p->prefetched)
		atomic64_inc(&to_mvgal(bo->base.dev)->ctr.prefetch_misses);
	mvgal_pool_free(p->gpu, &p->alloc);
	kfree(p);
}

/* Chunk @c leaves @loc, what it copies home added to *@mv; see
 * mvgal_place_drain().
 */
static int mvgal_place_drop_chunk(struct mvgal_bo *bo, unsigned long c,
				  unsigned int loc, bool dying,
				  struct mvgal_moved *mv)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	u64 before = mv->bytes;
	bool only;
	int ret;

	spin_lock(&bo->state_lock);
	only = mvgal_chunk_drop(mvgal_chunk_at(bo, c), loc) == -ENODATA;
	/* Nobody can read it any more: hand the chunk home without its
	 * bytes, so the invariant holds.
	 */
	if (only && dying)
		mvgal_chunk_init(mvgal_chunk_at(bo, c), bo->home_loc);
	spin_unlock(&bo->state_lock);
	if (!only || dying)
		return 0;
	ret = mvgal_fetch_locked(bo, c, c, bo->home_loc, mv);
	if (ret)
		return ret;
	atomic64_add(mv->bytes - before, &mdev->ctr.drained);
	spin_lock(&bo->state_lock);
	mvgal_chunk_drop(mvgal_chunk_at(bo, c), loc);
	spin_unlock(&bo->state_lock);
	return 0;
}

/*
 * mvgal_place_drain() - give up the copy at GPU @gidx: chunks only it
 * holds are copied home first (unless the buffer is dying), then the
 * placement's range goes back to the pool
 * @bo: the buffer; caller holds bo->lock and keeps the GPU attached (see
 *	mvgal_place_put()), no session is live at the GPU and every fence
 *	has signaled
 *
 * Afterwards no chunk is valid at the GPU, placement or not: a buffer
 * that only ever used a peer's pool in place has nothing to free, and
 * still nothing is left pointing at the GPU.
 *
 * Return: 0, or -ENOMEM (nothing lost: the placement stays).
 */
int mvgal_place_drain(struct mvgal_bo *bo, unsigned int gidx, bool dying)
{
	u64 drained = 0;

	return mvgal_place_drain_counted(bo, gidx, dying, &drained);
}

/*
 * mvgal_place_drain_counted() - mvgal_place_drain(), adding the bytes
 * copied home to *@drained
 */
int mvgal_place_drain_counted(struct mvgal_bo *bo, unsigned int gidx,
			      bool dying, u64 *drained)
{
	unsigned long first, last, c = 0;
	struct mvgal_moved mv = { 0 };
	unsigned int loc = 1 + gidx;
	int ret = 0;

	lockdep_assert_held(&bo->lock);
	/* A failed session's bytes are not to be brought home. */
	mvgal_session_settle(bo);
	/* Chunks without a record are at home only. */
	while (mvgal_chunks_next_leaf(bo, c, &first, &last)) {
		for (c = first; c <= last; c++) {
			ret = mvgal_place_drop_chunk(bo, c, loc, dying, &mv);
			if (ret)
				goto out;
		}
	}
	if (bo->pools.place[gidx])
		mvgal_place_put(bo, gidx);
out:
	/* The drain is one migration, however many chunks it copied. */
	*drained += mv.bytes;
	mvgal_bo_count_moves(bo, mv.locs);
	return ret;
}

/*
 * Waits for every fence of @bo, then takes bo->lock with them all still
 * signaled. Return: 0 (locked), -EBUSY when @nowait and busy, or
 * -ERESTARTSYS.
 */
int mvgal_bo_lock_idle(struct mvgal_bo *bo, bool nowait)
{
	long t;

	for (;;) {
		if (!nowait) {
			t = dma_resv_wait_timeout(bo->base.resv,
						  DMA_RESV_USAGE_BOOKKEEP, true,
						  MAX_SCHEDULE_TIMEOUT);
			if (t < 0)
				return t;
		}
		mutex_lock(&bo->lock);
		if (dma_resv_test_signaled(bo->base.resv,
					   DMA_RESV_USAGE_BOOKKEEP))
			return 0;
		mutex_unlock(&bo->lock);
		if (nowait)
			return -EBUSY;
	}
}

/*
 * One buffer's placement on a detaching GPU goes home once its fences
 * have signaled. Return: 0, -EBUSY (a live session or an export there),
 * -ERESTARTSYS or -ENOMEM.
 */
static int mvgal_gpu_drain_one(struct mvgal_bo *bo, struct mvgal_gpu *gpu)
{
	unsigned int g = gpu->index;
	int ret;

	if (READ_ONCE(bo->sessions_at[g]))
		return -EBUSY;
	ret = mvgal_bo_lock_idle(bo, false);
	if (ret)
		return ret;
	if (bo->sessions_at[g] || atomic_read(&bo->pools.exported[g]))
		ret = -EBUSY;
	else
		ret = mvgal_place_drain(bo, g, false);
	mutex_unlock(&bo->lock);
	return ret;
}

/**
 * mvgal_gpu_drain() - before a detach: every placement in @gpu's pool
 * goes home
 * @mdev: the device
 * @gpu: the GPU, marked detaching by the caller (mvgal_gpu_detach_begin()):
 *	 nothing new is placed there, and only this caller frees it. No
 *	 device-wide lock is held: sessions elsewhere go on.
 *
 * Buffers whose home is the pool (device-only) cannot leave it: with any
 * of them, nothing is touched and the answer is -EBUSY. So it is with a
 * live session at the GPU, or an exported placement in its pool. Dying
 * buffers lose their placements without a copy.
 *
 * Return: 0, -EBUSY, -ERESTARTSYS or -ENOMEM.
 */
int mvgal_gpu_drain(struct mvgal_device *mdev, struct mvgal_gpu *gpu)
{
	struct mvgal_bo *bo, **bos = NULL;
	unsigned int n = 0, cap = 0, i, places;
	u64 used, largest, allocs;
	int ret = 0;

	lockdep_assert_not_held(&mdev->gpu_lock);
	mutex_lock(&gpu->lru_lock);
	mvgal_pool_usage(&gpu->pool, &used, &largest, &allocs);
	places = gpu->nr_places;
	mutex_unlock(&gpu->lru_lock);
	if (allocs > places)
		return -EBUSY;

	mutex_lock(&mdev->bos_lock);
	list_for_each_entry(bo, &mdev->bos, link)
		cap++;
	bos = kvcalloc(cap ?: 1, sizeof(*bos), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!bos) {
		mutex_unlock(&mdev->bos_lock);
		return -ENOMEM;
	}
	list_for_each_entry(bo, &mdev->bos, link) {
		if (!READ_ONCE(bo->pools.place[gpu->index]))
			continue;
		/* An export holds a reference: its buffer is not dying. */
		if (atomic_read(&bo->pools.exported[gpu->index]))
			ret = -EBUSY;
		if (kref_get_unless_zero(&bo->base.refcount)) {
			bos[n++] = bo;
			continue;
		}
		/* Dying: nothing to keep; bos_lock keeps it (its end takes
		 * it first).
		 */
		mutex_lock(&bo->lock);
		if (bo->pools.place[gpu->index])
			mvgal_place_drain(bo, gpu->index, true);
		mutex_unlock(&bo->lock);
	}
	mutex_unlock(&mdev->bos_lock);

	for (i = 0; i < n && !ret; i++)
		ret = mvgal_gpu_drain_one(bos[i], gpu);
	for (i = 0; i < n; i++)
		drm_gem_object_put(&bos[i]->base);
	kvfree(bos);
	return ret;
}
