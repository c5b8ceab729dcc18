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
#include <linux/dma-fence-unwrap.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_path.h"
#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_path.h"
#include "dev/mvgal_transfer.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_coherence.h"
#include "bo/mvgal_commit.h"
#include "bo/mvgal_cpumap.h"
#include "bo/mvgal_cpuwrite.h"
#include "bo/mvgal_hmm.h"
#include "bo/mvgal_live.h"
#include "bo/mvgal_userptr.h"
#include "bo/mvgal_mirror.h"
#include "bo/mvgal_view.h"
#include "move/mvgal_fetch.h"
#include "move/mvgal_job.h"
#include "move/mvgal_place.h"
#include "move/mvgal_prime.h"
#include "policy/mvgal_handoff.h"
#include "policy/mvgal_numa.h"
#include "policy/mvgal_prefetch.h"
#include "policy/mvgal_replicate.h"
#include "policy/mvgal_session.h"

void mvgal_session_free(struct mvgal_session *s)
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
	if (s->copies)
		dma_fence_put(s->copies);
	kfree(s);
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

/* The bytes of the chunks the session names in @b: whole chunks. */
static u64 mvgal_sbo_bytes(const struct mvgal_sbo *b)
{
	return (u64)bitmap_weight(b->live.chunks, b->live.n) <<
	       b->bo->chunk_shift;
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
	u64 bytes = mvgal_sbo_bytes(b);

	for (p = 0; p < MVGAL_MAX_GPUS; p++) {
		struct mvgal_place *pl = b->bo->pools.place[p];

		if (p == gpu || !mdev->gpus[p] ||
		    mvgal_gpu_unplugged(mdev->gpus[p]))
			continue;
		/* A GPU reaches a peer's pool, not what was lent for one buffer. */
		if (pl && pl->adopted)
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
	bo->policy.host_probed |= bit;
	if (!ret)
		bo->policy.host_ok |= bit;
	mutex_unlock(&bo->lock);
}

/* Asks GPU @index's driver about @bo, if the GPU is still there. */
static void mvgal_probe_gpu(struct mvgal_device *mdev, struct mvgal_bo *bo,
			    u32 index)
{
	struct drm_device *ddev = NULL;
	struct mvgal_gpu *gpu;
	int ret;

	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, index, &ret);
	if (gpu) {
		ddev = gpu->ddev;
		drm_dev_get(ddev);
	}
	up_read(&mdev->gpu_lock);
	if (!ddev)
		return;
	mvgal_sbo_probe_host(bo, ddev, index);
	drm_dev_put(ddev);
}

/*
 * The probe runs here, not in BEGIN: the driver's import maps the buffer
 * for a device, which waits for its pending GPU writes and brings GPU-owned
 * chunks home, and a BEGIN never waits. Until the answer is in, sessions
 * copy. The work holds a reference on @bo.
 */
static void mvgal_probe_work(struct work_struct *work)
{
	struct mvgal_bo *bo = container_of(work, struct mvgal_bo,
					     policy.probe_work);
	unsigned long want;
	unsigned int g;

	mutex_lock(&bo->lock);
	want = bo->policy.host_probing;
	bo->policy.host_probing = 0;
	mutex_unlock(&bo->lock);
	for_each_set_bit(g, &want, MVGAL_MAX_GPUS)
		mvgal_probe_gpu(to_mvgal(bo->base.dev), bo, g);
	drm_gem_object_put(&bo->base);
}

/* Queues the probe of @bo for GPU @index, unless it is queued already. */
static void mvgal_probe_queue(struct mvgal_device *mdev, struct mvgal_bo *bo,
			      u32 index)
{
	bool queue;

	mutex_lock(&bo->lock);
	/* Set up on first use, as numa_work: a new buffer needs none. */
	if (!bo->policy.probe_work.func)
		INIT_WORK(&bo->policy.probe_work, mvgal_probe_work);
	queue = !(bo->policy.host_probing & BIT(index));
	bo->policy.host_probing |= BIT(index);
	mutex_unlock(&bo->lock);
	if (!queue)
		return;
	drm_gem_object_get(&bo->base);
	if (!queue_work(mdev->free_wq, &bo->policy.probe_work))
		drm_gem_object_put(&bo->base);
}

/*
 * Asks, once per buffer of @s with refused chunks, whether the session's
 * GPU can use the buffer's pages: in the background, so that BEGIN never
 * waits for it.
 */
static void mvgal_begin_probe(struct mvgal_device *mdev,
			      struct mvgal_session *s)
{
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		struct mvgal_bo *bo = s->b[i].bo;

		if (!READ_ONCE(bo->watch.nrefused) ||
		    (READ_ONCE(bo->policy.host_probed) & BIT(s->gpu)))
			continue;
		mvgal_probe_queue(mdev, bo, s->gpu);
	}
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
void mvgal_sbo_live(struct mvgal_session *s, struct mvgal_sbo *b,
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

/*
 * The job of a BEGIN, made when it first has something to copy or wait
 * for: most BEGINs, on resident data, need none.
 */
int mvgal_begin_job(struct mvgal_device *mdev, struct mvgal_job **job,
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
	/* The session counts its buffers' accesses, not its copies. */
	(*job)->session = true;
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
bool mvgal_begin_lean(struct mvgal_session *s, struct mvgal_gpu *gpu)
{
	enum dma_resv_usage usage = dma_resv_usage_rw(s->write);
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		struct mvgal_sbo *b = &s->b[i];

		if (!i)
			mutex_lock(&b->bo->lock);
		else if (!mutex_trylock(&b->bo->lock))
			goto fail;
		b->ready = !mvgal_userptr_unseen(b->bo) &&
			   !b->bo->watch.npending && list_empty(&b->bo->commits) &&
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

/*
 * The CPU's mapped writes make GPU copies stale now: folded in first.
 * A live session in conflict on a named chunk is -EBUSY.
 */
static int mvgal_begin_conflicts(struct mvgal_device *mdev,
				 struct mvgal_session *s)
{
	unsigned int i;

	for (i = 0; i < s->count; i++) {
		mvgal_watch_fold(s->b[i].bo);
		if (mvgal_sbo_conflict(&s->b[i], s->write)) {
			atomic64_inc(&mdev->ctr.busy);
			return -EBUSY;
		}
	}
	return 0;
}

/*
 * Chooses where a buffer whose named chunks are not all current at @gpu
 * is used, and plans what that location lacks: a peer's pool in place,
 * the buffer's own pages for refused chunks, or @gpu's pool (a placement
 * made on first need).
 */
static int mvgal_sbo_stage(struct mvgal_device *mdev, struct mvgal_gpu *gpu,
			   struct mvgal_session *s, struct mvgal_sbo *b,
			   struct mvgal_job **job,
			   const struct drm_mvgal_begin *args,
			   struct drm_file *file)
{
	bool in_place = !(args->flags & MVGAL_ACCESS_NO_IN_PLACE);
	int ret;

	b->remote = true;
	/* Replicated data is read from a copy of the GPU's own. */
	if (in_place && b->bo->home != gpu &&
	    (s->write || !mvgal_policy_replicas(b->bo, gpu->index, &b->live)))
		b->loc = mvgal_sbo_in_place(mdev, b, gpu->index) ?: b->loc;
	/* Refused chunks: the buffer's own pages where the GPU can use
	 * them, rather than a copy per access (unless the caller needs the
	 * bytes in the pool, for a placement export).
	 */
	if (b->loc == 1 + gpu->index && in_place &&
	    (b->bo->policy.host_ok & BIT(gpu->index)) &&
	    mvgal_cbit_any_of(b->bo, MVGAL_CB_REFUSED, b->live.base,
			      b->live.chunks, b->live.n)) {
		b->loc = b->bo->home_loc;
		ret = mvgal_begin_job(mdev, job, args, file);
		if (!ret)
			ret = mvgal_sbo_plan(s, *job, b);
		if (ret)
			return ret;
	}
	if (b->loc != 1 + gpu->index)
		return 0;
	b->new_place = gpu != b->bo->home && !b->bo->pools.place[gpu->index];
	ret = mvgal_place_get(b->bo, gpu);
	if (!ret)
		ret = mvgal_begin_job(mdev, job, args, file);
	if (!ret)
		ret = mvgal_sbo_plan(s, *job, b);
	return ret;
}

/* The session's work waits for the fences its access must wait for. */
static int mvgal_sbo_wait(struct mvgal_device *mdev, struct mvgal_session *s,
			  struct mvgal_sbo *b, struct mvgal_job **job,
			  const struct drm_mvgal_begin *args,
			  struct drm_file *file)
{
	enum dma_resv_usage usage = dma_resv_usage_rw(s->write);
	int ret;

	if (dma_resv_test_signaled(b->bo->base.resv, usage))
		return 0;
	ret = mvgal_begin_job(mdev, job, args, file);
	if (!ret)
		ret = mvgal_job_add_resv_deps(*job, b->bo, s->write,
					      b->live.base,
					      b->live.base + b->live.n - 1);
	return ret;
}

/* Everything BEGIN plans while holding the locks; see the ioctl. */
int mvgal_begin_plan(struct mvgal_device *mdev, struct mvgal_gpu *gpu,
		     struct mvgal_session *s, struct mvgal_job **job,
		     struct drm_mvgal_access *acc,
		     const struct drm_mvgal_begin *args,
		     struct drm_file *file)
{
	unsigned int i;
	int ret;

	ret = mvgal_begin_conflicts(mdev, s);
	if (ret)
		return ret;
	for (i = 0; i < s->count; i++) {
		struct mvgal_sbo *b = &s->b[i];
		struct mvgal_view v;

		/* Current in its own pool already: nothing to plan. */
		b->loc = 1 + gpu->index;
		/* Waits first: a cancelled job it would have waited for
		 * gives its chunks back before their states are read.
		 */
		ret = b->ready ? 0 : mvgal_sbo_wait(mdev, s, b, job, args, file);
		if (ret)
			return ret;
		mvgal_userptr_assume_written(b->bo, b->live.base,
					     b->live.chunks, b->live.n);
		if (!b->ready && !mvgal_sbo_all_at(b, b->loc)) {
			ret = mvgal_sbo_stage(mdev, gpu, s, b, job, args, file);
			if (ret)
				return ret;
		}
		ret = mvgal_bo_view(b->bo, b->loc, &v, true);
		if (ret)
			return ret;
		mvgal_view_put(&v);
		acc[i].pool_gpu = b->loc - 1;
		if (b->loc != MVGAL_LOC_HOST && b->bo->pools.place[b->loc - 1] &&
		    b->bo->pools.place[b->loc - 1]->adopted)
			acc[i].pool_gpu |= MVGAL_POOL_ADOPTED;
		acc[i].pool_offset = v.base;
	}
	return 0;
}

/**
 * mvgal_fence_leaves() - how many fences END's fence is made of
 * @fence: a fence, or an array or chain of them
 *
 * A dma_resv takes no containers: each fence in one goes in by itself,
 * and needs a slot of its own.
 *
 * Return: the count (1 for a plain fence); it can only shrink later.
 */
unsigned int mvgal_fence_leaves(struct dma_fence *fence)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *f;
	unsigned int n = 0;

	dma_fence_unwrap_for_each(f, &iter, fence)
		n++;
	return n;
}

/**
 * mvgal_session_lock() - lock every reservation of the session in ww
 * order, with @nfences fence slots each (drm_exec backs off and retries
 * when another context holds one); drm_exec_fini() unlocks them
 * @s: the session
 * @exec: (out) the locking context
 * @nfences: slots to reserve
 *
 * Return: 0 with all held, or -errno (-EINTR, -ENOMEM, -EALREADY for an
 * object named twice) with none held.
 */
int mvgal_session_lock(struct mvgal_session *s, struct drm_exec *exec,
		       unsigned int nfences)
{
	int ret = 0;

	drm_exec_init(exec, DRM_EXEC_INTERRUPTIBLE_WAIT, s->count);
	drm_exec_until_all_locked(exec) {
		ret = drm_exec_prepare_array(exec, s->objs, s->count,
					     nfences);
		drm_exec_retry_on_contention(exec);
	}
	if (ret)
		drm_exec_fini(exec);
	return ret;
}

/*
 * Locks the session's buffers for planning: the lean path when every
 * named chunk is current at @gpu and nothing waits (the buffers' own
 * locks only), else every reservation and then each buffer's lock.
 * *@lean says which, for mvgal_session_unlock_bos(). Caller holds
 * gpu_lock.
 */
static int mvgal_session_lock_bos(struct mvgal_session *s,
				  struct mvgal_gpu *gpu,
				  struct drm_exec *exec, bool *lean)
{
	unsigned int i;
	int ret;

	*lean = mvgal_lean_begin && mvgal_begin_lean(s, gpu);
	if (*lean)
		return 0;
	ret = mvgal_session_lock(s, exec, 1);
	if (ret)
		return ret;
	/*
	 * The reservations, taken in ww order, serialize everybody who
	 * takes more than one buffer's lock and waits for it: tell lockdep.
	 */
	for (i = 0; i < s->count; i++)
		mutex_lock_nest_lock(&s->b[i].bo->lock, &exec->ticket);
	return 0;
}

/* Drops what mvgal_session_lock_bos() took, in the reverse order. */
static void mvgal_session_unlock_bos(struct mvgal_session *s,
				     struct drm_exec *exec, bool lean)
{
	unsigned int i = s->count;

	while (i--)
		mutex_unlock(&s->b[i].bo->lock);
	if (!lean)
		drm_exec_fini(exec);
}

/*
 * The out-fence of a BEGIN that copies or waits: a sync_file fd, not yet
 * installed. A job that ended up with nothing to do goes: the GPU need
 * not wait for it.
 */
static int mvgal_begin_fence(struct mvgal_job **job,
			     struct mvgal_begin_out *out)
{
	int fd;

	if (*job && mvgal_job_empty(*job)) {
		mvgal_job_abort(*job);
		*job = NULL;
	}
	if (!*job)
		return 0;
	fd = mvgal_fence_fd(mvgal_job_fence(*job), &out->sf);
	if (fd < 0)
		return fd;
	out->fd = fd;
	return 0;
}

/*
 * The session is live on each buffer's chunks (mvgal_begin_commit()):
 * eviction, prefetch, the mirror controller and NUMA placement are told.
 * Cannot fail.
 */
static void mvgal_session_go_live(struct mvgal_device *mdev,
				  struct mvgal_session *s,
				  struct mvgal_gpu *gpu)
{
	unsigned int i;

	atomic64_inc(&mdev->ctr.sessions);
	/*
	 * CPU mappings stay: a page is writable only while its chunk is
	 * marked written (bo/mvgal_cpuwrite.c), and the fold in planning
	 * took every mark in and write-protected the pages again, so the
	 * next CPU write is seen.
	 */
	for (i = 0; i < s->count; i++) {
		struct mvgal_sbo *b = &s->b[i];

		/* Used where they are, in a peer's pool or the buffer's own
		 * pages, instead of copied to @gpu's pool.
		 */
		if (b->loc != 1 + gpu->index)
			atomic64_add(mvgal_sbo_bytes(b),
				     &mdev->ctr.bytes[MVGAL_METHOD_IN_PLACE]);
		mvgal_bo_count_session(b->bo, gpu->index);
		mvgal_place_touch(b->bo, gpu, b->loc);
		mvgal_prefetch_access(gpu, b->bo, b->loc, i == s->count - 1);
		mvgal_policy_begun(b->bo, &b->live);
		mvgal_numa_use(b->bo, gpu);
		if (!s->write)
			mvgal_mirror_note_read(b->bo, gpu->index, b->remote);
	}
}

/* The first mirrored registration among the session's buffers, or NULL. */
static struct mvgal_bo *mvgal_session_mirror(struct mvgal_session *s)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (mvgal_userptr_mirrored(s->b[i].bo))
			return s->b[i].bo;
	return NULL;
}

/*
 * Each mirror's mvgal_hmm_gen(), before anything reads its states (the
 * buffers are the session's references).
 */
static void mvgal_session_gens(struct mvgal_session *s)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		s->b[i].gen = mvgal_hmm_gen(s->b[i].bo);
}

/*
 * Did an invalidation change a mirror's chunk states since the planning
 * read them? 0 or -EAGAIN. Under mvgal_hmm_publish_lock().
 */
static int mvgal_session_gens_check(struct mvgal_session *s)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < s->count && !ret; i++)
		ret = mvgal_hmm_gen_check(s->b[i].bo, s->b[i].gen);
	return ret;
}

/*
 * What was planned counts: the job's chunks are marked and its fence
 * goes into the reservations, and the session goes live on each buffer's
 * chunks. For a session on a mirror, in one section with the notifier's
 * changes: an invalidation either came before the planning read the
 * states, or finds the job's fence to wait for and the session's chunks
 * live; otherwise nothing happens and the out-fence goes (-EAGAIN).
 */
static int mvgal_begin_commit(struct mvgal_session *s, struct mvgal_job *job,
			      struct mvgal_begin_out *out)
{
	struct mvgal_bo *mirror = mvgal_session_mirror(s);
	unsigned int i;
	int ret;

	if (mirror)
		mvgal_hmm_publish_lock(mirror);
	ret = mvgal_session_gens_check(s);
	if (!ret && job)
		ret = mvgal_job_commit_locked(job);
	for (i = 0; i < s->count && !ret; i++)
		mvgal_sbo_live(s, &s->b[i], 1);
	if (mirror)
		mvgal_hmm_publish_unlock();
	if (ret && out->sf) {
		mvgal_fence_fd_drop(out->fd, out->sf);
		*out = (struct mvgal_begin_out){ .fd = -1 };
	}
	return ret;
}

/* The job, committed, is queued. */
static void mvgal_begin_start_job(struct mvgal_job **job,
				  struct mvgal_begin_out *out)
{
	if (!*job)
		return;
	out->bytes = mvgal_job_bytes(*job);
	mvgal_job_push(*job);
	*job = NULL;
}

/* Undoes the placements a failed BEGIN made. Caller holds the locks. */
static void mvgal_begin_undo_places(struct mvgal_session *s,
				    struct mvgal_gpu *gpu)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (s->b[i].new_place)
			mvgal_place_drain(s->b[i].bo, gpu->index, true);
}

/**
 * mvgal_session_begin() - lock, plan and start a session BEGIN has read
 * @mdev: the device
 * @s: the session: its buffers looked up, their chunks read, its slot in
 *     the file taken (END does not find it until it is marked begun)
 * @job: the job waiting for BEGIN's in-fence, or NULL; made on first
 *       need. On success it is queued and *@job is NULL; on failure the
 *       caller aborts what is left in it.
 * @acc: the accesses; their (out) fields are filled in
 * @args: BEGIN's arguments
 * @file: the caller, charged for the job
 * @out: (out) the out-fence (a sync_file and an fd not yet installed, or
 *       NULL and -1) and the bytes the job copies
 *
 * Under gpu_lock: the buffers' locks (lean or full), the plan, the
 * out-fence; then the job is published and the session goes live on its
 * chunks, unless a mirror was invalidated since the planning looked
 * (-EAGAIN); from there nothing fails: the job is queued and the policy
 * told. Every lock is dropped before it returns, so the caller may copy
 * the results to user space.
 *
 * Return: 0, or -errno with nothing changed but *@job.
 */
int mvgal_session_begin(struct mvgal_device *mdev, struct mvgal_session *s,
			struct mvgal_job **job, struct drm_mvgal_access *acc,
			const struct drm_mvgal_begin *args,
			struct drm_file *file, struct mvgal_begin_out *out)
{
	struct drm_exec exec;
	struct mvgal_gpu *gpu;
	bool lean;
	int ret;

	*out = (struct mvgal_begin_out){ .fd = -1 };
	mvgal_begin_probe(mdev, s);
	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, args->gpu, &ret);
	if (!gpu)
		goto out_gpu;
	/* Before the lean path's look at the states, too. */
	mvgal_session_gens(s);
	ret = mvgal_session_lock_bos(s, gpu, &exec, &lean);
	if (ret)
		goto out_gpu;
	ret = mvgal_begin_plan(mdev, gpu, s, job, acc, args, file);
	if (ret)
		goto out_places;
	ret = mvgal_begin_fence(job, out);
	if (!ret)
		ret = mvgal_begin_commit(s, *job, out);
	if (ret)
		goto out_places;
	/* Nothing can fail from here on. */
	mvgal_begin_start_job(job, out);
	mvgal_session_go_live(mdev, s, gpu);
	mvgal_session_unlock_bos(s, &exec, lean);
	up_read(&mdev->gpu_lock);
	return 0;

out_places:
	mvgal_begin_undo_places(s, gpu);
	mvgal_session_unlock_bos(s, &exec, lean);
out_gpu:
	up_read(&mdev->gpu_lock);
	return ret;
}

/*
 * The chunks of @w a WRITE session wrote become its location's only
 * copy, each noted in @cm (if any) with who held it before, and CPU
 * mappings of them are zapped. Caller holds bo->lock.
 */
static void mvgal_sbo_commit_writes(struct mvgal_sbo *b, unsigned long *w,
				    struct mvgal_commit *cm)
{
	struct mvgal_bo *bo = b->bo;
	unsigned long j, c;

	spin_lock(&bo->state_lock);
	for_each_set_bit(j, w, b->live.n) {
		struct mvgal_chunk *ch;

		c = b->live.base + j;
		ch = mvgal_chunk_at(bo, c);

		/* Not held there any more only if the CPU wrote the chunk
		 * meanwhile: it keeps it.
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

/* Publishes each fence @fence is made of (see mvgal_fence_leaves()). */
static void mvgal_resv_add_leaves(struct dma_resv *resv,
				  struct dma_fence *fence,
				  enum dma_resv_usage usage)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *f;

	dma_fence_unwrap_for_each(f, &iter, fence)
		dma_resv_add_fence(resv, f, usage);
}

/*
 * Ends the session's use of one buffer (see mvgal_session_finish()); *@cmp,
 * the buffer's commit record or NULL, is taken (and cleared) when it
 * notes any chunk.
 */
static void mvgal_sbo_finish(struct mvgal_session *s, struct mvgal_sbo *b,
			     unsigned long *w, struct dma_fence *fence,
			     struct mvgal_commit **cmp)
{
	struct mvgal_commit *cm = cmp ? *cmp : NULL;
	struct mvgal_bo *bo = b->bo;

	mutex_lock(&bo->lock);
	/* Before the GPU's writes: a chunk the CPU wrote meanwhile is then
	 * no longer held at the GPU, and stays the CPU's.
	 */
	mvgal_watch_fold(bo);
	if (b->live.gpu_copy)
		mvgal_watch_end(bo, &b->live, b->loc, s->write ? w : NULL);
	/* A file that keeps no copies: what was staged for it goes, but
	 * what it wrote.
	 */
	if (b->staged)
		mvgal_watch_drop(bo, &b->live, b->staged, s->write ? w : NULL);
	if (s->write)
		mvgal_mirror_note_write(bo);
	/* Still live: an invalidation meanwhile leaves the chunks to it. */
	if (s->write && w)
		mvgal_sbo_commit_writes(b, w, cm);
	mvgal_sbo_live(s, b, -1);
	/* What an invalidation left to the session is home's now. */
	mvgal_hmm_end(bo);
	if (fence)
		mvgal_resv_add_leaves(bo->base.resv, fence,
				      s->write ? DMA_RESV_USAGE_WRITE :
				      DMA_RESV_USAGE_READ);
	if (cm && cm->n) {
		cm->fence = dma_fence_get(fence);
		cm->loc = b->loc;
		list_add_tail(&cm->link, &bo->commits);
		*cmp = NULL;
		/* Failed already: drop its writes now. */
		if (dma_fence_is_signaled(fence))
			mvgal_session_settle(bo);
	}
	mvgal_numa_kick(bo);
	mutex_unlock(&bo->lock);
}

/*
 * Ends a session: ownership of what was written, the fence, live counts.
 * @written: per buffer, the chunks written (WRITE sessions), or NULL:
 *	     everything named
 * @fence: the GPU work, or NULL
 * @commits: with @fence for a WRITE session, per buffer a record with
 *	     room for every chunk written, which the buffer takes (the entry
 *	     is then NULL); else NULL
 * With @fence, caller holds every buffer's reservation with
 * mvgal_fence_leaves(@fence) fence slots reserved. The session is off the file's list.
 */
void mvgal_session_finish(struct mvgal_session *s,
			  unsigned long **written,
			  struct dma_fence *fence,
			  struct mvgal_commit **commits)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		mvgal_sbo_finish(s, &s->b[i],
				 written ? written[i] : s->b[i].live.chunks,
				 fence, commits ? &commits[i] : NULL);
}

/*
 * Records for what a WRITE session's END hands to the GPU under @fence
 * (mvgal_session_settle()): one per buffer, room for every chunk it may
 * write. Allocated before anything changes. Return: the array or NULL.
 */
struct mvgal_commit **mvgal_commits_alloc(struct mvgal_session *s,
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
