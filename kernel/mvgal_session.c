// SPDX-License-Identifier: GPL-2.0
/*
 * Access sessions: a GPU's use of buffers between BEGIN and END.
 *
 * BEGIN makes the GPU's copy of the named chunks current through one job
 * of the migration engine and counts the session live on those chunks;
 * END publishes the fence of the GPU's work in each buffer's dma_resv and
 * moves ownership of what was written. The completion-ledger rules hold
 * per chunk: readers wait for the last writer, a writer waits for all,
 * and a conflicting begin is refused with -EBUSY rather than waited on.
 */
#include <linux/bitmap.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>

#include "core/mvgal_range.h"
#include "mvgal_bo.h"

/*
 * A session's use of one buffer. Its chunk sets are bitmaps over the span
 * of chunks it named (@live.base, @live.n): what it costs grows with what
 * it names, not with the buffer's size.
 */
struct mvgal_sbo {
	struct mvgal_bo *bo;
	unsigned long small;	/* @live.chunks when the span fits a word */
	struct mvgal_live live;	/* its chunks; on the buffer's list while live */
	/* MVGAL_FILE_NO_COPIES: chunks BEGIN copied for this session. */
	unsigned long *staged;
	unsigned int loc;	/* where the session's bytes are */
	bool new_place;		/* BEGIN made the placement (for undo) */
	bool remote;		/* its data was not all in the GPU's pool */
	bool ready;		/* current at the GPU, nothing to wait for */
};

struct mvgal_session {
	struct list_head link;	/* on the file's list */
	/* BEGIN is done with it: END may find it (release/acquire). */
	bool begun;
	u32 id;
	u32 gpu;
	bool write;
	bool no_copies;		/* its file's MVGAL_FILE_NO_COPIES */
	unsigned int count;
	/* The buffers' GEM objects, for drm_gem_lock_reservations(). */
	struct drm_gem_object **objs;
	struct mvgal_sbo b[];
};

static void mvgal_session_free(struct mvgal_session *s)
{
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		if (s->b[i].live.chunks != &s->b[i].small)
			bitmap_free(s->b[i].live.chunks);
		bitmap_free(s->b[i].live.cpu_wrote);
		bitmap_free(s->b[i].staged);
		if (s->b[i].bo)
			drm_gem_object_put(&s->b[i].bo->base);
	}
	kfree(s);
}

/*
 * Reads @nr ranges from user memory (every one non-empty and inside the
 * buffer; @nr 0: the whole buffer) into a bitmap of the chunks they
 * touch, over a span of chunks: with *@n 0, the span from the first to
 * the last of them becomes *@base, *@n; else they must lie in the span
 * given. The bitmap is @small itself when the span fits a word (and
 * @small is given). Return: the bitmap or ERR_PTR(-EINVAL, -EFAULT,
 * -ENOMEM).
 */
static unsigned long *mvgal_ranges_to_chunks(struct mvgal_bo *bo, u64 uptr,
					     u32 nr, unsigned long *base,
					     unsigned long *n,
					     unsigned long *small)
{
	unsigned long *map = ERR_PTR(-EINVAL), lo = 0, hi = bo->nchunks - 1;
	struct drm_mvgal_range one, *r = &one;
	unsigned long first, last;
	u32 i;

	if (nr > MVGAL_SESSION_MAX_RANGES)
		return ERR_PTR(-EINVAL);
	/* Most accesses name one range: no allocation for it. */
	if (nr == 1 && copy_from_user(r, u64_to_user_ptr(uptr), sizeof(*r)))
		return ERR_PTR(-EFAULT);
	if (nr > 1) {
		r = memdup_array_user(u64_to_user_ptr(uptr), nr, sizeof(*r));
		if (IS_ERR(r))
			return ERR_CAST(r);
	}
	if (nr) {
		lo = ULONG_MAX;
		hi = 0;
	}
	for (i = 0; i < nr; i++) {
		if (!r[i].size || !mvgal_range_ok(r[i].offset, r[i].size, bo->size))
			goto out;
		mvgal_chunk_span(r[i].offset, r[i].size, bo->chunk_shift,
				 &first, &last);
		lo = min(lo, first);
		hi = max(hi, last);
	}
	if (!*n) {
		*base = lo;
		*n = hi - lo + 1;
	} else if (lo < *base || hi - *base >= *n) {
		goto out;
	}
	if (small && *n <= BITS_PER_LONG) {
		*small = 0;
		map = small;
	} else {
		map = bitmap_zalloc(*n, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!map) {
			map = ERR_PTR(-ENOMEM);
			goto out;
		}
	}
	if (!nr)
		bitmap_set(map, lo - *base, hi - lo + 1);
	for (i = 0; i < nr; i++) {
		mvgal_chunk_span(r[i].offset, r[i].size, bo->chunk_shift,
				 &first, &last);
		bitmap_set(map, first - *base, last - first + 1);
	}
out:
	if (r != &one)
		kfree(r);
	return map;
}

/* Does the session's access conflict with a live one on its chunks? */
static bool mvgal_sbo_conflict(struct mvgal_sbo *b, bool write)
{
	unsigned long start, end, base = b->live.base;

	for_each_set_bitrange(start, end, b->live.chunks, b->live.n)
		if (mvgal_live_conflict(b->bo, base + start, base + end - 1,
					write))
			return true;
	return false;
}

/* Is every named chunk held at @loc? */
static bool mvgal_sbo_all_at(struct mvgal_sbo *b, unsigned int loc)
{
	unsigned long start, end, base = b->live.base;

	for_each_set_bitrange(start, end, b->live.chunks, b->live.n)
		if (mvgal_next_missing(b->bo, base + start, base + end - 1,
				       loc) < base + end)
			return false;
	return true;
}

/*
 * A peer whose pool @gpu's driver uses in place and that holds every
 * named chunk: the session can use the bytes there. 0 when none.
 */
static unsigned int mvgal_sbo_in_place(struct mvgal_device *mdev,
				       struct mvgal_sbo *b, u32 gpu)
{
	struct mvgal_path_choice ch;
	unsigned int p;
	u64 bytes = (u64)bitmap_weight(b->live.chunks, b->live.n) <<
		    b->bo->chunk_shift;

	for (p = 0; p < MVGAL_MAX_GPUS; p++) {
		if (p == gpu || !mdev->gpus[p] ||
		    mvgal_gpu_unplugged(mdev->gpus[p]))
			continue;
		if (mvgal_select(mdev, 1 + p, 1 + gpu, bytes, &ch) !=
		    MVGAL_METHOD_IN_PLACE)
			continue;
		if (mvgal_sbo_all_at(b, 1 + p))
			return 1 + p;
	}
	return 0;
}

/*
 * Can @gpu's driver use @bo's own pages? Asked once per buffer and GPU by
 * importing the buffer's dma-buf through that driver, as userspace handing
 * it over would, so the buffer's sharing rules answer too. Only buffers
 * with refused chunks ask: there the answer saves a copy per access.
 * Caller holds neither mdev->gpu_lock nor bo->lock: the import attaches,
 * and an attach takes both.
 */
static void mvgal_sbo_probe_host(struct mvgal_bo *bo, struct drm_device *ddev,
				 u32 index)
{
	u16 bit = BIT(index);
	struct drm_gem_object *obj;
	struct dma_buf *dmabuf;
	int ret;

	/* The probe's attachment would hold an exclusive buffer's slot. */
	if (bo->sharing == MVGAL_SHARING_EXCLUSIVE)
		return;
	dmabuf = mvgal_bo_export(&bo->base, O_RDWR);
	ret = PTR_ERR_OR_ZERO(dmabuf);
	if (!ret) {
		obj = mvgal_driver_import(ddev, dmabuf);
		ret = PTR_ERR_OR_ZERO(obj);
		if (!ret)
			drm_gem_object_put(obj);
		dma_buf_put(dmabuf);
	}
	/* A passing failure (a signal, memory) is asked again next time. */
	if (ret == -ERESTARTSYS || ret == -EINTR || ret == -ENOMEM ||
	    ret == -EAGAIN || ret == -EBUSY)
		return;
	mutex_lock(&bo->lock);
	bo->host_probed |= bit;
	if (!ret)
		bo->host_ok |= bit;
	mutex_unlock(&bo->lock);
}

/*
 * Probes, for buffers of @s with refused chunks, whether the session's GPU
 * can use their pages, once. Outside every lock; the GPU's device is held
 * meanwhile.
 */
static void mvgal_begin_probe(struct mvgal_device *mdev,
			      struct mvgal_session *s)
{
	struct drm_device *ddev = NULL;
	struct mvgal_gpu *gpu;
	unsigned int i;
	int ret;

	for (i = 0; i < s->count; i++) {
		struct mvgal_bo *bo = s->b[i].bo;

		if (!READ_ONCE(bo->nrefused) ||
		    (READ_ONCE(bo->host_probed) & BIT(s->gpu)))
			continue;
		if (!ddev) {
			mutex_lock(&mdev->gpu_lock);
			gpu = mvgal_gpu_use(mdev, s->gpu, &ret);
			if (gpu) {
				ddev = gpu->ddev;
				drm_dev_get(ddev);
			}
			mutex_unlock(&mdev->gpu_lock);
			if (!ddev)
				return;
		}
		mvgal_sbo_probe_host(bo, ddev, s->gpu);
	}
	if (ddev)
		drm_dev_put(ddev);
}

/*
 * Plans the copies of one buffer: runs of named chunks. For a file that
 * keeps no copies, notes which chunks they bring, for END to drop.
 */
static int mvgal_sbo_plan(struct mvgal_session *s, struct mvgal_job *job,
			  struct mvgal_sbo *b)
{
	unsigned long start, end, i, base = b->live.base;
	struct mvgal_bo *bo = b->bo;
	int ret;

	if (s->no_copies && b->loc != bo->home_loc) {
		if (!b->staged)
			b->staged = bitmap_zalloc(b->live.n, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!b->staged)
			return -ENOMEM;
		spin_lock(&bo->state_lock);
		for_each_set_bit(i, b->live.chunks, b->live.n)
			if (!mvgal_chunk_valid_at(mvgal_chunk_peek(bo, base + i),
						  b->loc))
				__set_bit(i, b->staged);
		spin_unlock(&bo->state_lock);
	}

	for_each_set_bitrange(start, end, b->live.chunks, b->live.n) {
		ret = mvgal_plan_fetch(job, bo, base + start, base + end - 1,
				       b->loc);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The session is live on its chunks (+1) or no longer (-1). Caller holds
 * bo->lock.
 */
static void mvgal_sbo_live(struct mvgal_session *s, struct mvgal_sbo *b,
			   int d)
{
	struct mvgal_bo *bo = b->bo;

	spin_lock(&bo->state_lock);
	if (d > 0) {
		b->live.write = s->write;
		b->live.gpu_copy = b->loc != bo->home_loc;
		b->live.loc = b->loc;
		list_add_tail(&b->live.link, &bo->live);
	} else {
		list_del(&b->live.link);
	}
	spin_unlock(&bo->state_lock);
	bo->sessions += d;
	bo->sessions_at[s->gpu] += d;
	if (b->loc != 1 + s->gpu && b->loc != MVGAL_LOC_HOST)
		bo->sessions_at[b->loc - 1] += d;
}

/* Zaps the chunks of @map, a set over the session's span. */
static void mvgal_sbo_zap(struct mvgal_sbo *b, unsigned long *map)
{
	unsigned long start, end, base = b->live.base;

	for_each_set_bitrange(start, end, map, b->live.n)
		mvgal_bo_zap(b->bo, base + start, base + end - 1);
}

/* Reads and checks the buffers of a BEGIN into @s. */
static int mvgal_begin_read(struct drm_file *file, struct mvgal_session *s,
			    struct drm_mvgal_access *acc)
{
	unsigned int i, j;
	int ret;

	for (i = 0; i < s->count; i++) {
		struct mvgal_sbo *b = &s->b[i];

		if (acc[i].pad)
			return -EINVAL;
		b->bo = mvgal_bo_lookup_access(file, acc[i].handle, s->write,
					       &ret);
		if (!b->bo)
			return ret;
		s->objs[i] = &b->bo->base;
		ret = mvgal_bo_gpu_may_use(b->bo, s->gpu);
		if (ret)
			return ret;
		for (j = 0; j < i; j++)
			if (s->b[j].bo == b->bo)
				return -EINVAL;
		b->live.chunks = mvgal_ranges_to_chunks(b->bo, acc[i].ranges,
							acc[i].nr_ranges,
							&b->live.base,
							&b->live.n, &b->small);
		if (IS_ERR(b->live.chunks)) {
			ret = PTR_ERR(b->live.chunks);
			b->live.chunks = NULL;
			return ret;
		}
		/* The chunks a session names change state: room for that
		 * now, while BEGIN can still fail with nothing changed.
		 */
		ret = mvgal_chunks_ensure_map(b->bo, b->live.base,
					      b->live.chunks, b->live.n);
		if (ret)
			return ret;
	}
	return 0;
}

/* Locks every reservation of the session and reserves a fence slot. */
static int mvgal_session_lock(struct mvgal_session *s,
			      struct ww_acquire_ctx *ctx)
{
	struct drm_gem_object **objs = s->objs;
	unsigned int i;
	int ret;

	ret = drm_gem_lock_reservations(objs, s->count, ctx);
	if (ret)
		return ret;
	for (i = 0; i < s->count; i++) {
		ret = dma_resv_reserve_fences(objs[i]->resv, 1);
		if (ret) {
			drm_gem_unlock_reservations(objs, s->count, ctx);
			return ret;
		}
	}
	return 0;
}

static int mvgal_begin_check(const struct drm_mvgal_begin *args)
{
	u32 mode = args->flags & (MVGAL_ACCESS_READ | MVGAL_ACCESS_WRITE);

	if (args->flags & ~MVGAL_ACCESS_FLAGS || args->pad ||
	    (mode != MVGAL_ACCESS_READ && mode != MVGAL_ACCESS_WRITE) ||
	    !args->count || args->count > MVGAL_SESSION_MAX_BUFFERS ||
	    args->priority >= MVGAL_PRIO_COUNT || args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	return 0;
}

/*
 * The job of a BEGIN, made when it first has something to copy or wait
 * for: most BEGINs, on resident data, need none.
 */
static int mvgal_begin_job(struct mvgal_device *mdev, struct mvgal_job **job,
			   const struct drm_mvgal_begin *args,
			   struct drm_file *file)
{
	if (!*job)
		*job = mvgal_job_alloc(mdev, args->priority, file);
	if (IS_ERR(*job)) {
		int ret = PTR_ERR(*job);

		*job = NULL;
		return ret;
	}
	return 0;
}

/*
 * The common BEGIN: every buffer's named chunks already current in the
 * GPU's own pool and no fence to wait for. It plans and publishes
 * nothing, so it needs no reservation locks, only the buffers' own. The
 * first is waited for; the others are only tried, as without a ww
 * context waiting for a second one could deadlock with another BEGIN.
 * Any miss unlocks and takes the full path.
 *
 * Return: true with every bo->lock held.
 */
static bool mvgal_begin_lean(struct mvgal_session *s, struct mvgal_gpu *gpu)
{
	enum dma_resv_usage usage = dma_resv_usage_rw(s->write);
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		struct mvgal_sbo *b = &s->b[i];

		if (!i)
			mutex_lock(&b->bo->lock);
		else if (!mutex_trylock(&b->bo->lock))
			goto fail;
		b->ready = !b->bo->npending && list_empty(&b->bo->commits) &&
			   mvgal_sbo_all_at(b, 1 + gpu->index) &&
			   dma_resv_test_signaled(b->bo->base.resv, usage);
		if (!b->ready) {
			i++;
			goto fail;
		}
	}
	return true;
fail:
	while (i--) {
		s->b[i].ready = false;
		mutex_unlock(&s->b[i].bo->lock);
	}
	return false;
}

/* Everything BEGIN plans while holding the locks; see the ioctl. */
static int mvgal_begin_plan(struct mvgal_device *mdev, struct mvgal_gpu *gpu,
			    struct mvgal_session *s, struct mvgal_job **job,
			    struct drm_mvgal_access *acc,
			    const struct drm_mvgal_begin *args,
			    struct drm_file *file)
{
	enum dma_resv_usage usage = dma_resv_usage_rw(s->write);
	unsigned int i;
	int ret;

	for (i = 0; i < s->count; i++) {
		/* The CPU's mapped writes make GPU copies stale now. */
		mvgal_watch_fold(s->b[i].bo);
		if (mvgal_sbo_conflict(&s->b[i], s->write)) {
			atomic64_inc(&mdev->ctr.busy);
			return -EBUSY;
		}
	}
	for (i = 0; i < s->count; i++) {
		struct mvgal_sbo *b = &s->b[i];
		struct mvgal_view v;

		/* Current in its own pool already: nothing to plan. */
		b->loc = 1 + gpu->index;
		if (b->ready)
			goto view;
		if (mvgal_sbo_all_at(b, b->loc))
			goto planned;
		b->remote = true;
		/* Replicated data is read from a copy of the GPU's own. */
		if (!(args->flags & MVGAL_ACCESS_NO_IN_PLACE) &&
		    b->bo->home != gpu &&
		    (s->write ||
		     !mvgal_policy_replicas(b->bo, gpu->index, &b->live)))
			b->loc = mvgal_sbo_in_place(mdev, b, gpu->index) ?:
				 b->loc;
		/* Refused chunks: the buffer's own pages where the GPU can
		 * use them, rather than a copy per access (unless the caller
		 * needs the bytes in the pool, for a placement export).
		 */
		if (b->loc == 1 + gpu->index &&
		    !(args->flags & MVGAL_ACCESS_NO_IN_PLACE) &&
		    (b->bo->host_ok & BIT(gpu->index)) &&
		    mvgal_cbit_any_of(b->bo, MVGAL_CB_REFUSED, b->live.base,
				      b->live.chunks, b->live.n)) {
			b->loc = b->bo->home_loc;
			ret = mvgal_begin_job(mdev, job, args, file);
			if (!ret)
				ret = mvgal_sbo_plan(s, *job, b);
			if (ret)
				return ret;
		}
		if (b->loc == 1 + gpu->index) {
			b->new_place = gpu != b->bo->home &&
				       !b->bo->place[gpu->index];
			ret = mvgal_place_get(b->bo, gpu);
			if (!ret)
				ret = mvgal_begin_job(mdev, job, args, file);
			if (!ret)
				ret = mvgal_sbo_plan(s, *job, b);
			if (ret)
				return ret;
		}
planned:
		if (!dma_resv_test_signaled(b->bo->base.resv, usage)) {
			ret = mvgal_begin_job(mdev, job, args, file);
			if (!ret)
				ret = mvgal_job_add_resv_deps(*job, b->bo,
							      s->write);
			if (ret)
				return ret;
		}
view:
		mvgal_bo_view(b->bo, b->loc, &v);
		acc[i].pool_gpu = b->loc - 1;
		acc[i].pool_offset = v.base;
	}
	return 0;
}

/* Every buffer of a WRITE session that wrote nothing, for an undo. */
static unsigned long *mvgal_nothing_written[MVGAL_SESSION_MAX_BUFFERS];

static void mvgal_session_finish(struct mvgal_session *s,
				 unsigned long **written,
				 struct dma_fence *fence,
				 struct mvgal_commit **commits);

/* Writes BEGIN's (out) fields of each access: a few stores, not the array. */
static int mvgal_begin_results(const struct drm_mvgal_begin *args,
			       const struct drm_mvgal_access *acc)
{
	struct drm_mvgal_access __user *u = u64_to_user_ptr(args->accesses);
	unsigned int i;

	for (i = 0; i < args->count; i++)
		if (put_user(acc[i].pool_offset, &u[i].pool_offset) ||
		    put_user(acc[i].pool_gpu, &u[i].pool_gpu))
			return -EFAULT;
	return 0;
}

int mvgal_ioctl_begin(struct drm_device *dev, void *data,
		      struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct mvgal_file *mf = file->driver_priv;
	struct drm_mvgal_access acc_small[4];
	struct drm_mvgal_begin *args = data, in = *args;
	struct drm_gem_object **objs = NULL;
	struct drm_mvgal_access *acc;
	struct dma_fence *in_fence = NULL;
	struct sync_file *sf = NULL;
	struct ww_acquire_ctx ctx;
	struct mvgal_session *s;
	struct mvgal_session *begun = NULL;
	struct mvgal_job *job = NULL;
	struct mvgal_gpu *gpu;
	unsigned int i, locked = 0;
	bool lean = false;
	int ret, fd = -1;
	u32 id;

	ret = mvgal_begin_check(args);
	if (ret)
		return ret;
	/* Most sessions name a few buffers: no allocation for those. */
	if (args->count <= ARRAY_SIZE(acc_small)) {
		acc = acc_small;
		if (copy_from_user(acc, u64_to_user_ptr(args->accesses),
				   args->count * sizeof(*acc)))
			return -EFAULT;
	} else {
		acc = memdup_array_user(u64_to_user_ptr(args->accesses),
					args->count, sizeof(*acc));
		if (IS_ERR(acc))
			return PTR_ERR(acc);
	}
	/* One allocation: the session, its buffers, their objects. */
	s = kzalloc(struct_size(s, b, args->count) +
		    array_size(args->count, sizeof(*s->objs)), GFP_KERNEL_ACCOUNT);
	if (!s) {
		ret = -ENOMEM;
		goto out_acc;
	}
	s->objs = (struct drm_gem_object **)&s->b[args->count];
	s->count = args->count;
	s->gpu = args->gpu;
	s->write = args->flags & MVGAL_ACCESS_WRITE;
	s->no_copies = READ_ONCE(mf->flags) & MVGAL_FILE_NO_COPIES;
	ret = mvgal_begin_read(file, s, acc);
	if (ret)
		goto out_session;
	if (args->in_fence_fd != -1) {
		in_fence = sync_file_get_fence(args->in_fence_fd);
		if (!in_fence) {
			ret = -EINVAL;
			goto out_session;
		}
	}
	if (in_fence && !dma_fence_is_signaled(in_fence)) {
		ret = mvgal_begin_job(mdev, &job, args, file);
		if (!ret)
			ret = mvgal_job_add_dep(job, in_fence);
		if (ret)
			goto out_session;
	}

	mutex_lock(&mf->lock);
	if (mf->count >= MVGAL_SESSIONS_PER_FILE) {
		mutex_unlock(&mf->lock);
		ret = -EBUSY;
		goto out_session;
	}
	/* The slot is taken now; END finds the session once begun. */
	mf->count++;
	id = ++mf->next_id ?: ++mf->next_id;
	s->id = id;
	list_add_tail(&s->link, &mf->sessions);
	mutex_unlock(&mf->lock);

	mvgal_begin_probe(mdev, s);
	mutex_lock(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, args->gpu, &ret);
	if (!gpu)
		goto out_gpu;
	objs = s->objs;
	lean = mvgal_begin_lean(s, gpu);
	if (lean) {
		locked = s->count;
	} else {
		ret = mvgal_session_lock(s, &ctx);
		if (ret)
			goto out_gpu;
		/*
		 * The reservations, taken in ww order, serialize everybody
		 * who takes more than one buffer's lock and waits for it:
		 * tell lockdep.
		 */
		for (locked = 0; locked < s->count; locked++)
			mutex_lock_nest_lock(&s->b[locked].bo->lock, &ctx);
	}
	ret = mvgal_begin_plan(mdev, gpu, s, &job, acc, args, file);
	if (ret)
		goto out_unlock;
	if (job && mvgal_job_empty(job)) {
		mvgal_job_abort(job);
		job = NULL;
	}
	if (job) {
		fd = mvgal_fence_fd(mvgal_job_fence(job), &sf);
		if (fd < 0) {
			ret = fd;
			goto out_unlock;
		}
	}
	/* Nothing can fail from here on, but handing out the results. */
	begun = s;
	atomic64_inc(&mdev->ctr.sessions);
	/*
	 * CPU mappings stay: a page is writable only while its chunk is
	 * marked written (mvgal_watch.c), and the fold above took every
	 * mark in and write-protected the pages again, so the next CPU
	 * write is seen.
	 */
	for (i = 0; i < s->count; i++) {
		mvgal_sbo_live(s, &s->b[i], 1);
		mvgal_place_touch(s->b[i].bo, gpu, s->b[i].loc);
		mvgal_prefetch_access(gpu, s->b[i].bo, s->b[i].loc,
				      i == s->count - 1);
		mvgal_policy_begun(s->b[i].bo, &s->b[i].live);
		mvgal_numa_use(s->b[i].bo, gpu);
		if (!s->write)
			mvgal_policy_read(s->b[i].bo, gpu->index,
					  s->b[i].remote);
	}
	args->bytes_copied = job ? mvgal_job_bytes(job) : 0;
	args->session = id;
	args->out_fence_fd = fd;
	if (job) {
		mvgal_job_mark(job);
		mvgal_job_publish(job);
		mvgal_job_push(job);
	}
	job = NULL;
	s = NULL;
	ret = 0;
	goto out_locked;

out_unlock:
	if (sf) {
		fput(sf->file);
		put_unused_fd(fd);
	}
	for (i = 0; i < s->count; i++)
		if (s->b[i].new_place)
			mvgal_place_drain(s->b[i].bo, gpu->index, true);
out_locked:
	while (locked--)
		mutex_unlock(&to_mvgal_bo(objs[locked])->lock);
	if (!lean)
		drm_gem_unlock_reservations(objs, args->count, &ctx);
out_gpu:
	mutex_unlock(&mdev->gpu_lock);
	/*
	 * The results go out with no lock held: a fault on the array may
	 * need a buffer's lock (it may lie in a mapping of one of the
	 * session's own buffers) or mmap_lock, which faults take first.
	 */
	if (begun && mvgal_begin_results(args, acc)) {
		/* Undone as an END of work that wrote nothing. */
		if (sf) {
			fput(sf->file);
			put_unused_fd(fd);
		}
		mutex_lock(&mf->lock);
		list_del(&begun->link);
		mf->count--;
		mutex_unlock(&mf->lock);
		mvgal_session_finish(begun, mvgal_nothing_written, NULL, NULL);
		mvgal_session_free(begun);
		begun = NULL;
		*args = in;
		ret = -EFAULT;
	} else if (begun) {
		if (sf)
			fd_install(fd, sf->file);
		/* Only now, when BEGIN no longer touches it, may END find
		 * (and free) it; pairs with mvgal_session_find().
		 */
		smp_store_release(&begun->begun, true);
	} else {
		mutex_lock(&mf->lock);
		list_del(&s->link);
		mf->count--;
		mutex_unlock(&mf->lock);
	}
out_session:
	if (job)
		mvgal_job_abort(job);
	dma_fence_put(in_fence);
	if (s)
		mvgal_session_free(s);
out_acc:
	if (acc != acc_small)
		kfree(acc);
	return ret;
}

/**
 * mvgal_session_settle() - drop what failed sessions wrote
 * @bo: the buffer; caller holds bo->lock
 *
 * For every WRITE session whose fence has signaled since its END: with an
 * error, the GPU's copies of what it wrote are dropped and the holders of
 * before (whose bytes nothing has touched: every copy from the GPU waited
 * for that fence and failed with it) hold the chunks again. Everything
 * that plans copies or reads chunk states calls this first.
 */
void mvgal_session_settle(struct mvgal_bo *bo)
{
	struct mvgal_commit *cm, *tmp;
	unsigned int i;

	lockdep_assert_held(&bo->lock);
	list_for_each_entry_safe(cm, tmp, &bo->commits, link) {
		if (!dma_fence_is_signaled(cm->fence))
			continue;
		if (cm->fence->error) {
			spin_lock(&bo->state_lock);
			for (i = 0; i < cm->n; i++)
				mvgal_chunk_revert(mvgal_chunk_at(bo, cm->e[i].chunk),
						   cm->loc, cm->e[i].prev);
			spin_unlock(&bo->state_lock);
			/* The work wrote the home pages themselves (in place):
			 * CPU mappings must fault and fetch the good copy.
			 */
			for (i = 0; cm->loc == bo->home_loc && i < cm->n; i++)
				mvgal_bo_zap(bo, cm->e[i].chunk, cm->e[i].chunk);
			pr_warn_ratelimited("mvgal: buffer %llu: the work of a session on GPU %u failed (%d): its writes to %u chunk(s) dropped\n",
					    bo->id, cm->loc - 1, cm->fence->error,
					    cm->n);
		}
		list_del(&cm->link);
		dma_fence_put(cm->fence);
		kfree(cm);
	}
}

void mvgal_session_commits_free(struct mvgal_bo *bo)
{
	struct mvgal_commit *cm, *tmp;

	if (!bo->commits.next)		/* coherence never set up */
		return;
	list_for_each_entry_safe(cm, tmp, &bo->commits, link) {
		dma_fence_put(cm->fence);
		kfree(cm);
	}
}

/*
 * Ends a session: ownership of what was written, the fence, live counts.
 * @written: per buffer, the chunks written (WRITE sessions), or NULL:
 *	     everything named
 * @fence: the GPU work, or NULL
 * @commits: with @fence for a WRITE session, per buffer a record with
 *	     room for every chunk written, which the buffer takes (the entry
 *	     is then NULL); else NULL
 * With @fence, caller holds every buffer's reservation with a fence slot
 * reserved. The session is off the file's list.
 */
static void mvgal_session_finish(struct mvgal_session *s,
				 unsigned long **written,
				 struct dma_fence *fence,
				 struct mvgal_commit **commits)
{
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		struct mvgal_sbo *b = &s->b[i];
		struct mvgal_bo *bo = b->bo;
		unsigned long *w = written ? written[i] : b->live.chunks;
		struct mvgal_commit *cm = commits ? commits[i] : NULL;
		unsigned long j, c;

		mutex_lock(&bo->lock);
		/* Before the GPU's writes: a chunk the CPU wrote meanwhile is
		 * then no longer held at the GPU, and stays the CPU's.
		 */
		mvgal_watch_fold(bo);
		if (b->live.gpu_copy)
			mvgal_watch_end(bo, &b->live, b->loc,
					s->write ? w : NULL);
		/* A file that keeps no copies: what was staged for it
		 * goes, but what it wrote.
		 */
		if (b->staged)
			mvgal_watch_drop(bo, &b->live, b->staged,
					 s->write ? w : NULL);
		mvgal_sbo_live(s, b, -1);
		if (s->write)
			mvgal_policy_write(bo);
		if (s->write && w) {
			spin_lock(&bo->state_lock);
			for_each_set_bit(j, w, b->live.n) {
				struct mvgal_chunk *ch;

				c = b->live.base + j;
				ch = mvgal_chunk_at(bo, c);

				/* Not held there any more only if the CPU
				 * wrote the chunk meanwhile: it keeps it.
				 */
				if (cm && mvgal_chunk_valid_at(ch, b->loc))
					cm->e[cm->n++] = (struct mvgal_commit_chunk) {
						.chunk = c, .prev = ch->valid,
					};
				mvgal_chunk_written(ch, b->loc);
			}
			spin_unlock(&bo->state_lock);
			if (b->loc != bo->home_loc)
				mvgal_sbo_zap(b, w);
		}
		if (fence)
			dma_resv_add_fence(bo->base.resv, fence,
					   s->write ? DMA_RESV_USAGE_WRITE :
					   DMA_RESV_USAGE_READ);
		if (cm && cm->n) {
			cm->fence = dma_fence_get(fence);
			cm->loc = b->loc;
			list_add_tail(&cm->link, &bo->commits);
			commits[i] = NULL;
			/* Failed already: drop its writes now. */
			if (dma_fence_is_signaled(fence))
				mvgal_session_settle(bo);
		}
		mvgal_numa_kick(bo);
		mutex_unlock(&bo->lock);
	}
}

/* Reads END's written ranges into per-buffer bitmaps; NULL entries for
 * buffers with none. Every chunk must be one the session named.
 */
static int mvgal_end_read(struct drm_file *file, struct mvgal_session *s,
			  const struct drm_mvgal_end *args,
			  unsigned long **written)
{
	struct drm_mvgal_access *acc;
	unsigned int i, j;
	int ret = 0;

	acc = memdup_array_user(u64_to_user_ptr(args->written), args->count,
				sizeof(*acc));
	if (IS_ERR(acc))
		return PTR_ERR(acc);
	for (i = 0; i < args->count && !ret; i++) {
		struct mvgal_sbo *b = NULL;
		struct mvgal_bo *bo;
		unsigned long *map;

		if (acc[i].pad || acc[i].pool_offset || acc[i].pool_gpu) {
			ret = -EINVAL;
			break;
		}
		/* Only compared, never used: the session holds references. */
		bo = mvgal_bo_lookup(file, acc[i].handle);
		if (bo)
			drm_gem_object_put(&bo->base);
		for (j = 0; bo && j < s->count; j++) {
			if (bo == s->b[j].bo) {
				b = &s->b[j];
				break;
			}
		}
		if (!b || written[j]) {
			ret = -EINVAL;	/* not in the session, or twice */
			break;
		}
		/* Over the session's span: chunks outside it are refused. */
		map = mvgal_ranges_to_chunks(b->bo, acc[i].ranges,
					     acc[i].nr_ranges, &b->live.base,
					     &b->live.n, NULL);
		if (IS_ERR(map)) {
			ret = PTR_ERR(map);
			break;
		}
		written[j] = map;
		if (!bitmap_subset(map, b->live.chunks, b->live.n))
			ret = -EINVAL;
	}
	kfree(acc);
	return ret;
}

static void mvgal_commits_free(struct mvgal_commit **cms, unsigned int n)
{
	unsigned int i;

	if (!cms)
		return;
	for (i = 0; i < n; i++)
		kfree(cms[i]);
	kfree(cms);
}

/*
 * Records for what a WRITE session's END hands to the GPU under @fence
 * (mvgal_session_settle()): one per buffer, room for every chunk it may
 * write. Allocated before anything changes. Return: the array or NULL.
 */
static struct mvgal_commit **mvgal_commits_alloc(struct mvgal_session *s,
						 unsigned long **written)
{
	struct mvgal_commit **cms = kcalloc(s->count, sizeof(*cms), GFP_KERNEL_ACCOUNT);
	unsigned int i;

	if (!cms)
		return NULL;
	for (i = 0; i < s->count; i++) {
		unsigned long *w = written ? written[i] : s->b[i].live.chunks;
		unsigned int n = w ? bitmap_weight(w, s->b[i].live.n) : 0;

		cms[i] = kzalloc(struct_size(cms[i], e, n), GFP_KERNEL_ACCOUNT);
		if (!cms[i]) {
			mvgal_commits_free(cms, i);
			return NULL;
		}
	}
	return cms;
}

/* The file's live session @id, or NULL. Caller holds mf->lock. */
static struct mvgal_session *mvgal_session_find(struct mvgal_file *mf, u32 id)
{
	struct mvgal_session *s;

	list_for_each_entry(s, &mf->sessions, link)
		/* Pairs with BEGIN's release: all it wrote is seen. */
		if (s->id == id && smp_load_acquire(&s->begun))
			return s;
	return NULL;
}

int mvgal_ioctl_end(struct drm_device *dev, void *data,
		    struct drm_file *file)
{
	struct mvgal_file *mf = file->driver_priv;
	struct drm_mvgal_end *args = data;
	struct mvgal_commit **commits = NULL;
	unsigned long **written = NULL;
	struct dma_fence *fence = NULL;
	struct ww_acquire_ctx ctx;
	struct mvgal_session *s;
	unsigned int i, n = 0;
	int ret;

	if (args->flags)
		return -EINVAL;
	mutex_lock(&mf->lock);
	s = mvgal_session_find(mf, args->session);
	if (!s) {
		mutex_unlock(&mf->lock);
		return -ENOENT;
	}
	/* Held across the ioctl: a second END of the same session waits,
	 * then finds nothing.
	 */
	if ((!s->write && args->count) || args->count > s->count) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (args->fence_fd != -1) {
		fence = sync_file_get_fence(args->fence_fd);
		if (!fence) {
			ret = -EINVAL;
			goto out_unlock;
		}
	}
	n = s->count;
	if (args->count) {
		written = kcalloc(n, sizeof(*written), GFP_KERNEL_ACCOUNT);
		if (!written) {
			ret = -ENOMEM;
			goto out_unlock;
		}
		ret = mvgal_end_read(file, s, args, written);
		if (ret)
			goto out_unlock;
	}
	if (fence && s->write) {
		commits = mvgal_commits_alloc(s, written);
		if (!commits) {
			ret = -ENOMEM;
			goto out_unlock;
		}
	}
	/* Only a fence to publish needs the reservations. */
	if (fence) {
		ret = mvgal_session_lock(s, &ctx);
		if (ret)
			goto out_unlock;
	}
	list_del(&s->link);
	mf->count--;
	mvgal_session_finish(s, written, fence, commits);
	if (fence)
		drm_gem_unlock_reservations(s->objs, s->count, &ctx);
	mvgal_session_free(s);
	s = NULL;
out_unlock:
	mutex_unlock(&mf->lock);
	mvgal_commits_free(commits, n);
	if (written) {
		for (i = 0; i < n; i++)
			bitmap_free(written[i]);
		kfree(written);
	}
	dma_fence_put(fence);
	return ret;
}

static void mvgal_file_release(struct kref *ref)
{
	struct mvgal_file *mf = container_of(ref, struct mvgal_file, ref);

	mutex_destroy(&mf->lock);
	kfree(mf);
}

int mvgal_file_open(struct drm_device *dev, struct drm_file *file)
{
	struct mvgal_file *mf = kzalloc(sizeof(*mf), GFP_KERNEL_ACCOUNT);

	if (!mf)
		return -ENOMEM;
	kref_init(&mf->ref);
	mutex_init(&mf->lock);
	INIT_LIST_HEAD(&mf->sessions);
	file->driver_priv = mf;
	return 0;
}

/*
 * A file closed with sessions open: each ends as if its work wrote all
 * it named and is done. The GPU driver owns the work; the chunks it may
 * have written stay owned by the GPU, so nothing written is lost.
 */
void mvgal_file_close(struct drm_device *dev, struct drm_file *file)
{
	struct mvgal_file *mf = file->driver_priv;
	struct mvgal_session *s, *tmp;

	/* No fence is added, so no reservation needs to be held. */
	list_for_each_entry_safe(s, tmp, &mf->sessions, link) {
		list_del(&s->link);
		mvgal_session_finish(s, NULL, NULL, NULL);
		mvgal_session_free(s);
	}
	kref_put(&mf->ref, mvgal_file_release);
}

/**
 * mvgal_file_charge() - charge a job and/or @meta bytes of buffer
 * metadata to @file's allowance
 * @file: the caller
 * @job: one more unfinished job
 * @meta: bytes of metadata of a new buffer
 * @err: (out) -ENOBUFS (max_file_jobs reached: some must finish first; not
 *	 -EAGAIN, which libdrm's drmIoctl() retries at once) or
 *	 -EDQUOT (max_file_meta_mb reached) when NULL is returned
 *
 * Return: the file's allowance, referenced, for mvgal_file_uncharge().
 */
struct mvgal_file *mvgal_file_charge(struct drm_file *file, bool job,
				     u64 meta, int *err)
{
	struct mvgal_file *mf = file->driver_priv;

	if (job && atomic_inc_return(&mf->jobs) >
		   READ_ONCE(mvgal_max_file_jobs)) {
		atomic_dec(&mf->jobs);
		*err = -ENOBUFS;
		return NULL;
	}
	if (meta && mvgal_file_meta_charge(mf, meta)) {
		if (job)
			atomic_dec(&mf->jobs);
		*err = -EDQUOT;
		return NULL;
	}
	kref_get(&mf->ref);
	return mf;
}

/**
 * mvgal_file_meta_charge() - @bytes more metadata of the buffers @mf
 * created (a buffer's chunk records as they are first touched)
 * @mf: the allowance, held by the buffer
 * @bytes: how much
 *
 * Return: 0, or -EDQUOT (max_file_meta_mb reached; nothing charged).
 */
int mvgal_file_meta_charge(struct mvgal_file *mf, u64 bytes)
{
	u64 limit = (u64)READ_ONCE(mvgal_max_file_meta_mb) << 20;

	if (atomic64_add_return(bytes, &mf->meta) > limit) {
		atomic64_sub(bytes, &mf->meta);
		return -EDQUOT;
	}
	return 0;
}

void mvgal_file_meta_uncharge(struct mvgal_file *mf, u64 bytes)
{
	atomic64_sub(bytes, &mf->meta);
}

void mvgal_file_uncharge(struct mvgal_file *mf, bool job, u64 meta)
{
	if (!mf)
		return;
	if (job)
		atomic_dec(&mf->jobs);
	atomic64_sub(meta, &mf->meta);
	kref_put(&mf->ref, mvgal_file_release);
}

/**
 * mvgal_ioctl_file_flags() - DRM_IOCTL_MVGAL_FILE_FLAGS
 * @dev: the mvgal DRM device
 * @data: &struct drm_mvgal_file_flags
 * @file: the file whose settings change
 *
 * Sessions begun from now on follow the new settings.
 *
 * Return: 0, or -EINVAL for unknown flags.
 */
int mvgal_ioctl_file_flags(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct drm_mvgal_file_flags *args = data;
	struct mvgal_file *mf = file->driver_priv;

	if (args->flags & ~MVGAL_FILE_FLAGS)
		return -EINVAL;
	args->old = xchg(&mf->flags, args->flags);
	return 0;
}
