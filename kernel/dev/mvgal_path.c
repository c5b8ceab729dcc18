// SPDX-License-Identifier: GPL-2.0
/*
 * The one transfer-path selector, and the calibration that feeds it.
 *
 * Every copy mvgal makes (a session's, a migration's, a CPU fault's, a
 * drain's) asks mvgal_select() which method to use for its pair of
 * locations and its size. What is possible comes from the probed pair
 * matrix (GPU to GPU) or from the mappings (host to GPU); what it costs
 * comes from timing each possible copying method on each pair, twice
 * (a small and a large copy), and fitting latency + bytes / bandwidth.
 * The DMA engine's copy is checked byte for byte before it is timed.
 */

#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_path.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_dma.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_path.h"
#include "dev/mvgal_pool.h"
#include "dev/mvgal_transfer.h"

#define MVGAL_CAL_SMALL		(4 * 1024)

#define MVGAL_CAL_LARGE		(1024 * 1024)

#define MVGAL_CAL_REPEAT	3

/* What is known of @src -> @dst; false if a location is absent. */
static bool mvgal_pair_facts(struct mvgal_device *mdev, unsigned int src,
			     unsigned int dst, struct mvgal_link_facts *f)
{
	struct mvgal_gpu *g;

	memset(f, 0, sizeof(*f));
	if (src != MVGAL_LOC_HOST && dst != MVGAL_LOC_HOST) {
		if (!mdev->gpus[src - 1] || !mdev->gpus[dst - 1])
			return false;
		*f = mdev->links[src - 1][dst - 1].facts;
	} else {
		/* Host memory and a pool: the CPU reaches both. */
		g = mdev->gpus[(src == MVGAL_LOC_HOST ? dst : src) - 1];
		if (!g)
			return false;
		f->src_mapped = true;
		f->dst_mapped = true;
		f->src_iomem = src != MVGAL_LOC_HOST &&
			       mvgal_pool_is_device(&g->pool);
		f->dma_engine = mvgal_dma_reaches(mdev, g);
		f->p2p_copier = f->dma_engine;
		f->executor = mvgal_exec_id(mdev, g->index) != 0;
	}
	spin_lock(&mdev->cal_lock);
	f->p2p_corrupts = mdev->dma_bad[src][dst];
	f->p2p_checked = mdev->dma_ok[src][dst];
	spin_unlock(&mdev->cal_lock);
	return true;
}

/*
 * What is possible from @src to @dst; false if a location is absent.
 * Caller holds gpu_lock, or keeps the GPUs by a placement (see
 * mvgal_dma_reaches()).
 */
bool mvgal_pair_verdict(struct mvgal_device *mdev, unsigned int src,
			unsigned int dst, struct mvgal_link_verdict *v)
{
	struct mvgal_link_facts f;

	if (!mvgal_pair_facts(mdev, src, dst, &f))
		return false;
	mvgal_link_judge(&f, v);
	return true;
}

/* The registration of the executor serving @src <-> @dst; 0: none. */
static u64 mvgal_pair_exec(struct mvgal_device *mdev, unsigned int src,
			   unsigned int dst)
{
	bool from_host = src == MVGAL_LOC_HOST, to_host = dst == MVGAL_LOC_HOST;

	if (from_host == to_host)
		return 0;
	return mvgal_exec_id(mdev, (from_host ? dst : src) - 1);
}

/**
 * mvgal_pair_cal() - the calibrated figures of @src -> @dst
 * @mdev: the device
 * @src: location of the data
 * @dst: location that needs it
 * @cal: (out) per method; an executor's only if they were measured on the
 *	 one registered now (a new one is checked anew)
 */
void mvgal_pair_cal(struct mvgal_device *mdev, unsigned int src,
		    unsigned int dst, struct mvgal_path_cal *cal)
{
	u64 id = mvgal_pair_exec(mdev, src, dst);

	spin_lock(&mdev->cal_lock);
	memcpy(cal, mdev->cal[src][dst], sizeof(mdev->cal[src][dst]));
	if (!id || mdev->exec_cal_id[src][dst] != id)
		memset(&cal[MVGAL_METHOD_EXEC], 0, sizeof(*cal));
	spin_unlock(&mdev->cal_lock);
}

/**
 * mvgal_select() - the method that moves @bytes from @src to @dst
 * @mdev: the device
 * @src: location of the data (MVGAL_LOC_HOST or 1 + GPU)
 * @dst: location that needs it
 * @bytes: transfer size
 * @choice: (out) the decision with the cost of every method
 *
 * Return: MVGAL_METHOD_* or MVGAL_METHOD_NONE.
 */
unsigned int mvgal_select(struct mvgal_device *mdev, unsigned int src,
			  unsigned int dst, u64 bytes,
			  struct mvgal_path_choice *choice)
{
	struct mvgal_path_cal cal[MVGAL_NR_METHODS];
	struct mvgal_link_verdict v;

	if (src >= MVGAL_LOC_COUNT || dst >= MVGAL_LOC_COUNT || src == dst ||
	    !mvgal_pair_verdict(mdev, src, dst, &v)) {
		memset(choice, 0, sizeof(*choice));
		choice->method = MVGAL_METHOD_NONE;
		return MVGAL_METHOD_NONE;
	}
	mvgal_pair_cal(mdev, src, dst, cal);
	mvgal_path_select(&v, cal, bytes, READ_ONCE(mvgal_force_method),
			  choice);
	return choice->method;
}

/* Scratch memory at one location for the timings. */
struct mvgal_cal_loc {
	struct mvgal_view view;
	struct mvgal_gpu *gpu;
	struct mvgal_pool_alloc alloc;
	void *host;
	bool ok;
};

/*
 * Host scratch is vmalloc memory: pages behind one kernel mapping, as a
 * buffer's host copy is once fully populated (see mvgal_bo_view()).
 */
static void mvgal_cal_loc_get(struct mvgal_device *mdev, unsigned int loc,
			      struct mvgal_cal_loc *l)
{
	memset(l, 0, sizeof(*l));
	if (loc == MVGAL_LOC_HOST) {
		l->host = vzalloc(MVGAL_CAL_LARGE);
		if (!l->host)
			return;
		iosys_map_set_vaddr(&l->view.map, l->host);
		l->ok = true;
		return;
	}
	l->gpu = mdev->gpus[loc - 1];
	if (!l->gpu || mvgal_pool_alloc(l->gpu, &l->alloc, MVGAL_CAL_LARGE))
		return;
	/* The mapping is taken pair by pair, for the timing only. */
	l->view.pool = &l->gpu->pool;
	l->view.base = l->alloc.node.start;
	l->ok = true;
}

static void mvgal_cal_loc_put(struct mvgal_cal_loc *l)
{
	if (l->host)
		vfree(l->host);
	else if (l->ok)
		mvgal_pool_free(l->gpu, &l->alloc);
}

/*
 * A pool's mapping for one pair's timing, without gpu_lock. Never waits
 * (the pair's other pool may be held): a pool its driver is moving just
 * now is not timed this time.
 */
static bool mvgal_cal_map(struct mvgal_cal_loc *l)
{
	return !l->view.pool || !mvgal_pool_map_tryget(l->view.pool, &l->view.map);
}

static void mvgal_cal_unmap(struct mvgal_cal_loc *l)
{
	if (l->view.pool)
		mvgal_pool_map_put(l->view.pool);
}

/* The fastest of a few timed transfers of @len bytes, in ns. */
static u64 mvgal_cal_time(struct mvgal_cal_loc *d, struct mvgal_cal_loc *s,
			  u64 len, unsigned int method, void *bounce)
{
	u64 best = U64_MAX;
	unsigned int i;

	for (i = 0; i < MVGAL_CAL_REPEAT; i++) {
		u64 t0 = ktime_get_ns();

		mvgal_view_transfer(&d->view, &s->view, 0, len, method, bounce);
		best = min(best, ktime_get_ns() - t0);
		cond_resched();
	}
	return best;
}

/* One calibration: scratch at every location, what each pair allows. */
struct mvgal_cal {
	struct mvgal_cal_loc loc[MVGAL_LOC_COUNT];
	u32 methods[MVGAL_LOC_COUNT][MVGAL_LOC_COUNT];
};

/*
 * Takes scratch in every pool and notes each pair's possible methods.
 * Caller holds gpu_lock. The scratch then keeps every GPU measured from
 * being detached (its pool is not empty: -EBUSY) until it is released.
 */
static void mvgal_cal_prepare(struct mvgal_device *mdev, struct mvgal_cal *c)
{
	unsigned int src, dst;

	lockdep_assert_held(&mdev->gpu_lock);
	for (src = 0; src < MVGAL_LOC_COUNT; src++)
		mvgal_cal_loc_get(mdev, src, &c->loc[src]);
	for (src = 0; src < MVGAL_LOC_COUNT; src++) {
		for (dst = 0; dst < MVGAL_LOC_COUNT; dst++) {
			struct mvgal_link_verdict v;
			struct mvgal_link_facts f;

			if (src == dst || !c->loc[src].ok || !c->loc[dst].ok ||
			    !mvgal_pair_facts(mdev, src, dst, &f))
				continue;
			/* The engine is what this calibration checks. */
			f.p2p_checked = true;
			mvgal_link_judge(&f, &v);
			c->methods[src][dst] = v.methods;
		}
	}
}

/* Releases the scratch; caller holds gpu_lock. */
static void mvgal_cal_release(struct mvgal_device *mdev, struct mvgal_cal *c)
{
	unsigned int l;

	lockdep_assert_held(&mdev->gpu_lock);
	for (l = 0; l < MVGAL_LOC_COUNT; l++)
		mvgal_cal_loc_put(&c->loc[l]);
}

/* The engine's view of a scratch location. */
static void mvgal_cal_side(struct mvgal_cal_loc *l, struct mvgal_dma_side *sd)
{
	memset(sd, 0, sizeof(*sd));
	sd->vmem = l->host;
	sd->gpu = l->host ? NULL : l->gpu;
	sd->base = l->alloc.node.start;
}

/* A copy by an engine between two scratch locations. */
typedef int (*mvgal_cal_copy_t)(struct mvgal_device *mdev,
				struct mvgal_cal_loc *d,
				struct mvgal_cal_loc *s, u64 off, u64 len);

static int mvgal_cal_copy_dma(struct mvgal_device *mdev,
			      struct mvgal_cal_loc *d, struct mvgal_cal_loc *s,
			      u64 off, u64 len)
{
	struct mvgal_dma_side ds, ss;

	mvgal_cal_side(d, &ds);
	mvgal_cal_side(s, &ss);
	return mvgal_dma_copy(mdev, &ds, &ss, off, len);
}

/* The pool's GPU's executor copies between host scratch and the pool's. */
static int mvgal_cal_copy_exec(struct mvgal_device *mdev,
			       struct mvgal_cal_loc *d, struct mvgal_cal_loc *s,
			       u64 off, u64 len)
{
	struct mvgal_cal_loc *host = d->host ? d : s, *pool = d->host ? s : d;
	pgoff_t first = off >> PAGE_SHIFT;
	struct mvgal_exec_host h;
	unsigned long i;
	u64 id;
	int ret;

	h.off = off & ~PAGE_MASK;
	h.npages = ((off + len - 1) >> PAGE_SHIFT) - first + 1;
	h.pages = kmalloc_array(h.npages, sizeof(*h.pages), GFP_KERNEL_ACCOUNT);
	if (!h.pages)
		return -ENOMEM;
	for (i = 0; i < h.npages; i++)
		h.pages[i] = vmalloc_to_page(host->host +
					     ((first + i) << PAGE_SHIFT));
	ret = mvgal_exec_copy(mdev, pool->gpu->index,
			      d->host ? MVGAL_EXEC_FROM_POOL : MVGAL_EXEC_TO_POOL,
			      &h, pool->alloc.node.start + off, len, &id);
	kfree(h.pages);
	return ret;
}

/*
 * Does the engine copy @src -> @dst right? A range that starts and ends
 * inside pages is copied over other bytes, and both the range and what
 * lies around it are compared: peer copies are known to corrupt silently
 * on some platforms, and a pair whose copy is wrong must never use it.
 * Return: 0, -EILSEQ for a wrong copy, or the copy's error.
 */
static int mvgal_cal_verify(struct mvgal_device *mdev, struct mvgal_cal_loc *d,
			    struct mvgal_cal_loc *s, mvgal_cal_copy_t copy)
{
	const u64 off = 100, len = MVGAL_CAL_LARGE - 300;
	u8 *want, *got;
	int ret;

	want = kvmalloc(2 * MVGAL_CAL_LARGE, GFP_KERNEL_ACCOUNT);
	if (!want)
		return -ENOMEM;
	got = want + MVGAL_CAL_LARGE;
	get_random_bytes(want, MVGAL_CAL_LARGE);
	mvgal_view_rw(&s->view, 0, want, MVGAL_CAL_LARGE, true);
	memset(got, 0xa5, MVGAL_CAL_LARGE);
	mvgal_view_rw(&d->view, 0, got, MVGAL_CAL_LARGE, true);
	ret = copy(mdev, d, s, off, len);
	if (ret)
		goto out;
	mvgal_view_rw(&d->view, 0, got, MVGAL_CAL_LARGE, false);
	if (memcmp(got + off, want + off, len) ||
	    memchr_inv(got, 0xa5, off) ||
	    memchr_inv(got + off + len, 0xa5, MVGAL_CAL_LARGE - off - len))
		ret = -EILSEQ;
out:
	kvfree(want);
	return ret;
}

/* The fastest of a few timed engine copies of @len bytes, in ns. */
static u64 mvgal_cal_time_engine(struct mvgal_device *mdev,
				 struct mvgal_cal_loc *d,
				 struct mvgal_cal_loc *s, u64 len,
				 mvgal_cal_copy_t copy)
{
	u64 best = U64_MAX;
	unsigned int i;

	for (i = 0; i < MVGAL_CAL_REPEAT; i++) {
		u64 t0 = ktime_get_ns();

		if (copy(mdev, d, s, 0, len))
			return U64_MAX;
		best = min(best, ktime_get_ns() - t0);
		cond_resched();
	}
	return best;
}

/* An engine's latency and bandwidth from timed copies; false: none. */
static bool mvgal_cal_fit_engine(struct mvgal_device *mdev,
				 struct mvgal_cal_loc *d,
				 struct mvgal_cal_loc *s, mvgal_cal_copy_t copy,
				 struct mvgal_path_cal *cal)
{
	u64 t1 = mvgal_cal_time_engine(mdev, d, s, MVGAL_CAL_SMALL, copy);
	u64 t2 = mvgal_cal_time_engine(mdev, d, s, MVGAL_CAL_LARGE, copy);

	if (t1 == U64_MAX || t2 == U64_MAX || !t2)
		return false;
	if (!mvgal_path_fit(MVGAL_CAL_SMALL, t1, MVGAL_CAL_LARGE, t2, cal))
		return true;
	/*
	 * A small copy that took as long as the large one: the engine's
	 * completion (an interrupt, a wake-up) dwarfs its copying. Priced
	 * as that fixed time plus the large copy's whole time per byte, it
	 * is never cheaper than it is.
	 */
	cal->latency_ns = t1;
	cal->bw = div64_u64((u64)MVGAL_CAL_LARGE * NSEC_PER_SEC, t2) ?: 1;
	return true;
}

/*
 * The engine's figures on @src -> @dst, once its copy is verified; a
 * wrong copy takes the method from the pair for good (until the engine
 * goes). Both pools are mapped by the caller.
 */
static bool mvgal_cal_p2p(struct mvgal_device *mdev, struct mvgal_cal *c,
			  unsigned int src, unsigned int dst,
			  struct mvgal_path_cal *cal)
{
	struct mvgal_cal_loc *d = &c->loc[dst], *s = &c->loc[src];
	int ret;

	ret = mvgal_cal_verify(mdev, d, s, mvgal_cal_copy_dma);
	if (ret == -EILSEQ)
		drm_warn(&mdev->drm, "DMA engine copied %u -> %u wrong: the pair copies with the CPU\n",
			 src, dst);
	spin_lock(&mdev->cal_lock);
	mdev->dma_bad[src][dst] |= ret == -EILSEQ;
	mdev->dma_ok[src][dst] = !ret;
	spin_unlock(&mdev->cal_lock);
	return !ret && mvgal_cal_fit_engine(mdev, d, s, mvgal_cal_copy_dma, cal);
}

/*
 * The executor's figures on @src -> @dst (host pages and its GPU's pool),
 * once its copy is verified; a wrong copy unregisters it. @id: the
 * registration measured.
 */
static bool mvgal_cal_exec(struct mvgal_device *mdev, struct mvgal_cal *c,
			   unsigned int src, unsigned int dst,
			   struct mvgal_path_cal *cal, u64 *id)
{
	struct mvgal_cal_loc *d = &c->loc[dst], *s = &c->loc[src];
	unsigned int gpu = (d->host ? s : d)->gpu->index;
	int ret;

	*id = mvgal_exec_id(mdev, gpu);
	if (!*id)
		return false;
	ret = mvgal_cal_verify(mdev, d, s, mvgal_cal_copy_exec);
	if (ret == -EILSEQ) {
		drm_warn(&mdev->drm, "copy executor of GPU %u copied %u -> %u wrong: unregistered\n",
			 gpu, src, dst);
		mvgal_exec_distrust(mdev, gpu, *id);
	}
	return !ret && mvgal_cal_fit_engine(mdev, d, s, mvgal_cal_copy_exec, cal);
}

/* Times each method @src -> @dst allows; true if one fit. */
static bool mvgal_cal_pair(struct mvgal_device *mdev, struct mvgal_cal *c,
			   unsigned int src, unsigned int dst, void *bounce)
{
	struct mvgal_path_cal cal[MVGAL_NR_METHODS] = { };
	bool measured = false;
	unsigned int m;
	u64 id = 0;

	if (!mvgal_cal_map(&c->loc[dst]))
		return false;
	if (!mvgal_cal_map(&c->loc[src])) {
		mvgal_cal_unmap(&c->loc[dst]);
		return false;
	}
	for (m = MVGAL_METHOD_CPU_COPY; m <= MVGAL_METHOD_STAGING; m++) {
		u64 t1, t2;

		if (!(c->methods[src][dst] & (1U << m)))
			continue;
		t1 = mvgal_cal_time(&c->loc[dst], &c->loc[src],
				    MVGAL_CAL_SMALL, m, bounce);
		t2 = mvgal_cal_time(&c->loc[dst], &c->loc[src],
				    MVGAL_CAL_LARGE, m, bounce);
		if (!mvgal_path_fit(MVGAL_CAL_SMALL, t1, MVGAL_CAL_LARGE, t2,
				    &cal[m]))
			measured = true;
	}
	if ((c->methods[src][dst] & (1U << MVGAL_METHOD_P2P)) &&
	    mvgal_cal_p2p(mdev, c, src, dst, &cal[MVGAL_METHOD_P2P]))
		measured = true;
	if ((c->methods[src][dst] & (1U << MVGAL_METHOD_EXEC)) &&
	    mvgal_cal_exec(mdev, c, src, dst, &cal[MVGAL_METHOD_EXEC], &id))
		measured = true;
	mvgal_cal_unmap(&c->loc[src]);
	mvgal_cal_unmap(&c->loc[dst]);
	spin_lock(&mdev->cal_lock);
	memcpy(mdev->cal[src][dst], cal, sizeof(cal));
	mdev->exec_cal_id[src][dst] = id;
	spin_unlock(&mdev->cal_lock);
	return measured;
}

/**
 * mvgal_calibrate_all() - measure every possible copying method of every
 * ordered pair of locations, after looking for a DMA engine
 * @mdev: the device; the caller holds neither gpu_lock nor cal_mutex
 * @bounce: a MVGAL_BOUNCE_SIZE buffer for staged copies
 *
 * The timing loops run without gpu_lock, so sessions, migrations and
 * eviction go on meanwhile; only the scratch allocation and its release
 * take it. Calibrations run one at a time (cal_mutex), so that two never
 * time each other's copies.
 *
 * Return: pairs measured.
 */
unsigned int mvgal_calibrate_all(struct mvgal_device *mdev, void *bounce)
{
	unsigned int src, dst, pairs = 0;
	struct mvgal_cal *c;

	lockdep_assert_not_held(&mdev->gpu_lock);
	mvgal_dma_scan(mdev);
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return 0;
	mutex_lock(&mdev->cal_mutex);
	down_read(&mdev->gpu_lock);
	mvgal_cal_prepare(mdev, c);
	up_read(&mdev->gpu_lock);
	for (src = 0; src < MVGAL_LOC_COUNT; src++)
		for (dst = 0; dst < MVGAL_LOC_COUNT; dst++)
			if (c->methods[src][dst])
				pairs += mvgal_cal_pair(mdev, c, src, dst,
							bounce);
	down_read(&mdev->gpu_lock);
	mvgal_cal_release(mdev, c);
	up_read(&mdev->gpu_lock);
	spin_lock(&mdev->cal_lock);
	mdev->calibrated_ns = ktime_get_ns();
	spin_unlock(&mdev->cal_lock);
	mutex_unlock(&mdev->cal_mutex);
	kfree(c);
	return pairs;
}

/**
 * mvgal_cal_forget() - a GPU went: its paths are not measured any more
 * @mdev: the device; caller holds gpu_lock
 * @loc: its location
 */
void mvgal_cal_forget(struct mvgal_device *mdev, unsigned int loc)
{
	unsigned int l;

	spin_lock(&mdev->cal_lock);
	for (l = 0; l < MVGAL_LOC_COUNT; l++) {
		memset(mdev->cal[loc][l], 0, sizeof(mdev->cal[loc][l]));
		memset(mdev->cal[l][loc], 0, sizeof(mdev->cal[l][loc]));
		mdev->dma_ok[loc][l] = false;
		mdev->dma_ok[l][loc] = false;
		mdev->dma_bad[loc][l] = false;
		mdev->dma_bad[l][loc] = false;
	}
	spin_unlock(&mdev->cal_lock);
}
