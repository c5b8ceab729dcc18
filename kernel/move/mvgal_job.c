// SPDX-License-Identifier: GPL-2.0
/*
 * The migration engine: copies between locations run as jobs.
 *
 * A job is a list of copies (a buffer, a chunk-aligned range, source,
 * destination, method) and a dma_fence. It waits for its dependency
 * fences one at a time through callbacks, as drm_sched's entities do,
 * then joins the ready list of its priority. One worker runs ready jobs,
 * highest priority first, so a prefetch never delays a copy that a GPU
 * is waiting for; and a job that a higher one (or a CPU access) comes to
 * wait for inherits its priority (mvgal_fence_boost()), so nothing waits
 * behind a prefetch. A job that has not started can be cancelled; a job that
 * fails or is cancelled gives its chunks back (they were marked held at
 * the destination when it was planned) before its fence signals with the
 * error.
 *
 * A job may also carry a staged write: bytes a BO_PWRITE handed over
 * before the work on the buffer was done, written at home after it, once
 * the job's own copies have brought the rest of their chunks home. It
 * fails, and its write is lost, as any job fails: when work it waited
 * for failed, or a copy fails, or its file cancels it.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/cred.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sync_file.h>

#include <drm/drm_file.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_quota.h"
#include "dev/mvgal_transfer.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_hmm.h"
#include "bo/mvgal_userptr.h"
#include "bo/mvgal_view.h"
#include "move/mvgal_copier.h"
#include "move/mvgal_job.h"

static const char *mvgal_job_driver_name(struct dma_fence *f)
{
	return MVGAL_DRIVER_NAME;
}

static const char *mvgal_job_timeline_name(struct dma_fence *f)
{
	return "migration";
}

/*
 * Every job holds the module from its allocation until its fence goes:
 * the fence's ops, the callbacks on its dependencies and the work that
 * finishes it are this module's code, reachable through a sync_file or a
 * reservation that any process may hold after every mvgal file closed.
 * So rmmod is refused (-EBUSY) while one lives. The put is the last call
 * of the release (a sibling call where the compiler makes one): nothing
 * of the module runs after it but the return.
 */
static void mvgal_job_release(struct dma_fence *f)
{
	struct mvgal_job *job = container_of(f, struct mvgal_job, base);

	/* Everything else went when the job finished; later planners may
	 * read the spans for as long as the fence is in a reservation.
	 */
	kfree(job->spans);
	kfree(job->segs);
	dma_fence_free(&job->base);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops mvgal_job_fence_ops = {
	.get_driver_name = mvgal_job_driver_name,
	.get_timeline_name = mvgal_job_timeline_name,
	.release = mvgal_job_release,
};

static void mvgal_job_dep_work(struct work_struct *work);

/**
 * mvgal_job_alloc() - a new, empty job
 * @mdev: the device
 * @prio: MVGAL_PRIO_*
 * @owner: the file that queues it, who alone may cancel it, and whose
 *	   allowance it counts against until it ends; or NULL
 *
 * The fence is set up only when somebody asks for it (mvgal_job_fence()):
 * most BEGINs on resident data plan nothing and drop the job unused.
 *
 * Return: the job, or ERR_PTR(-ENOMEM), or ERR_PTR(-ENOBUFS) when @owner
 * has max_file_jobs unfinished already.
 */
struct mvgal_job *mvgal_job_alloc(struct mvgal_device *mdev,
				  unsigned int prio, struct drm_file *owner)
{
	struct mvgal_job *job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!job)
		return ERR_PTR(-ENOMEM);
	if (owner) {
		job->quota = mvgal_file_charge(owner, true, 0, &ret);
		if (!job->quota) {
			kfree(job);
			return ERR_PTR(ret);
		}
	}
	/* Called from an ioctl or a work of a loaded module: it is live. */
	__module_get(THIS_MODULE);
	job->mdev = mdev;
	job->prio = prio;
	INIT_LIST_HEAD(&job->link);
	INIT_LIST_HEAD(&job->plink);
	INIT_LIST_HEAD(&job->cb.node);
	INIT_WORK(&job->dep_work, mvgal_job_dep_work);
	return job;
}

/* Grows @*arr of @n elements of @size by one slot when @n is a power of 2. */
static int mvgal_grow(void **arr, unsigned int n, size_t size)
{
	void *p;

	if (n & (n - 1) || (n && n < 4))
		return 0;
	p = krealloc_array(*arr, n ? n * 2 : 4, size, GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

/* The job copies @bo: hold a reference until done. 0 or -ENOMEM. */
static int mvgal_job_add_bo(struct mvgal_job *job, struct mvgal_bo *bo)
{
	unsigned int i;

	for (i = 0; i < job->nbos; i++)
		if (job->bos[i] == bo)
			return 0;
	if (mvgal_grow((void **)&job->bos, job->nbos, sizeof(*job->bos)))
		return -ENOMEM;
	drm_gem_object_get(&bo->base);
	job->bos[job->nbos++] = bo;
	return 0;
}

/*
 * The job touches chunks [first, last] of @bo: the union with what it
 * touched there before. Return: 0 or -ENOMEM.
 */
static int mvgal_job_touch(struct mvgal_job *job, const struct mvgal_bo *bo,
			   unsigned long first, unsigned long last)
{
	struct mvgal_job_span *sp;
	unsigned int i;

	for (i = 0; i < job->nspans; i++) {
		sp = &job->spans[i];
		if (sp->bo == bo) {
			sp->first = min(sp->first, first);
			sp->last = max(sp->last, last);
			return 0;
		}
	}
	if (mvgal_grow((void **)&job->spans, job->nspans, sizeof(*job->spans)))
		return -ENOMEM;
	job->spans[job->nspans++] = (struct mvgal_job_span) {
		.bo = bo, .first = first, .last = last,
	};
	return 0;
}

/* The same for bytes [off, off + len) of @bo; @len > 0. */
static int mvgal_job_touch_bytes(struct mvgal_job *job,
				 const struct mvgal_bo *bo, u64 off, u64 len)
{
	unsigned long first, last;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	return mvgal_job_touch(job, bo, first, last);
}

/*
 * mvgal_job_add_copy() - one more copy, merged with the last when it
 * continues it
 * Return: 0 or -ENOMEM.
 */
int mvgal_job_add_copy(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned int dst, unsigned int src, u64 off, u64 len,
		       unsigned int method)
{
	struct mvgal_copy_seg *last = job->nsegs ? &job->segs[job->nsegs - 1] :
				      NULL;
	int ret;

	ret = mvgal_job_add_bo(job, bo);
	if (!ret)
		ret = mvgal_job_touch_bytes(job, bo, off, len);
	if (ret)
		return ret;
	job->bytes += len;
	if (last && last->bo == bo && last->dst == dst && last->src == src &&
	    last->method == method && last->off + last->len == off) {
		last->len += len;
		return 0;
	}
	if (mvgal_grow((void **)&job->segs, job->nsegs, sizeof(*job->segs)))
		return -ENOMEM;
	job->segs[job->nsegs++] = (struct mvgal_copy_seg) {
		.bo = bo, .dst = dst, .src = src, .method = method,
		.off = off, .len = len,
	};
	return 0;
}

/*
 * Staging memory is shared between users: the writes of one user hold at
 * most staging_user_pct of staging_kb (a user holding nothing may always
 * have one write, however large, as the device may when it holds
 * nothing), so that a user whose staged writes wait behind long GPU work
 * cannot make every other user's wait for that work. Waiting writes are
 * granted first come first: one whose user is at its share is passed
 * over (it waits for its user's own writes to land), with its user's
 * later ones; the first one the device's room cannot take stops the
 * pass, so that no later write takes the room it waits for. A write is
 * granted by whoever frees the room, never by the race of the woken.
 */

/*
 * @uid's record; made of *@fresh (then taken: NULL) if it has none, or
 * NULL when *@fresh is. Under staged_wq.lock.
 */
static struct mvgal_stage_user *
mvgal_stage_user_get(struct mvgal_engine *e, kuid_t uid,
		     struct mvgal_stage_user **fresh)
{
	struct mvgal_stage_user *u;

	hash_for_each_possible(e->stage_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	u = *fresh;
	if (u) {
		u->uid = uid;
		hash_add(e->stage_users, &u->node, __kuid_val(uid));
		*fresh = NULL;
	}
	return u;
}

/* Frees @u once it holds nothing and waits for nothing; staged_wq.lock. */
static void mvgal_stage_user_put(struct mvgal_stage_user *u)
{
	if (u->held || u->waiting)
		return;
	hash_del(&u->node);
	kfree(u);
}

/* A staged write waiting for room, on engine.stage_waiters. */
struct mvgal_stage_wait {
	struct list_head link;
	struct mvgal_stage_user *user;
	u64 len;
	bool granted;
};

/*
 * Grants the waiting writes what they may have (see above) and wakes
 * them if any was. Under staged_wq.lock.
 */
static void mvgal_stage_grant(struct mvgal_engine *e)
{
	u64 cap = (u64)READ_ONCE(mvgal_staging_kb) << 10;
	u64 share = div_u64(cap * READ_ONCE(mvgal_staging_user_pct), 100);
	struct mvgal_stage_wait *w, *n;
	bool granted = false;

	list_for_each_entry_safe(w, n, &e->stage_waiters, link) {
		struct mvgal_stage_user *u = w->user;

		if (u->passed || (u->held && u->held + w->len > share)) {
			u->passed = true;
			continue;
		}
		if (e->staged && e->staged + w->len > cap)
			break;
		e->staged += w->len;
		u->held += w->len;
		u->waiting--;
		w->granted = true;
		list_del_init(&w->link);
		granted = true;
	}
	list_for_each_entry(w, &e->stage_waiters, link)
		w->user->passed = false;
	if (granted)
		wake_up_locked(&e->staged_wq);
}

/**
 * mvgal_stage_reserve() - hold @len bytes of the device's staging memory
 * for the caller's user
 * @mdev: the device
 * @len: bytes
 * @user: (out) the user the bytes are held for, for mvgal_stage_release()
 *
 * Waits (interruptibly) while the device's staged writes in flight hold
 * too much of staging_kb for @len more, or the user's hold its share of
 * it (staging_user_pct): each one gives its bytes back when its job ends.
 *
 * Return: 0, or -ENOMEM or -ERESTARTSYS (a signal) with nothing held.
 */
int mvgal_stage_reserve(struct mvgal_device *mdev, u64 len,
			struct mvgal_stage_user **user)
{
	struct mvgal_engine *e = &mdev->engine;
	struct mvgal_stage_wait w = { .len = len };
	struct mvgal_stage_user *fresh = NULL;
	kuid_t uid = current_uid();
	int ret;

	spin_lock(&e->staged_wq.lock);
	w.user = mvgal_stage_user_get(e, uid, &fresh);
	if (!w.user) {
		/* Its first write in flight: a record, made unlocked. */
		spin_unlock(&e->staged_wq.lock);
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
		if (!fresh)
			return -ENOMEM;
		spin_lock(&e->staged_wq.lock);
		w.user = mvgal_stage_user_get(e, uid, &fresh);
	}
	w.user->waiting++;
	list_add_tail(&w.link, &e->stage_waiters);
	mvgal_stage_grant(e);
	ret = wait_event_interruptible_locked(e->staged_wq, w.granted);
	/* A signal that came with the grant: the write goes on. */
	if (w.granted) {
		ret = 0;
		*user = w.user;
	} else {
		list_del(&w.link);
		w.user->waiting--;
		mvgal_stage_user_put(w.user);
		/* It may have held back those behind it. */
		mvgal_stage_grant(e);
	}
	spin_unlock(&e->staged_wq.lock);
	kfree(fresh);		/* another call made the record meanwhile */
	return ret;
}

/* mvgal_stage_release() - gives back what mvgal_stage_reserve() held */
void mvgal_stage_release(struct mvgal_device *mdev,
			 struct mvgal_stage_user *user, u64 len)
{
	struct mvgal_engine *e = &mdev->engine;

	spin_lock(&e->staged_wq.lock);
	e->staged -= len;
	user->held -= len;
	mvgal_stage_user_put(user);
	mvgal_stage_grant(e);
	spin_unlock(&e->staged_wq.lock);
}

/**
 * mvgal_stage_show() - one "UID HELD WAITING" line per user that holds
 * staging memory or waits for some (debugfs)
 * @mdev: the device
 * @m: where to
 */
void mvgal_stage_show(struct mvgal_device *mdev, struct seq_file *m)
{
	struct mvgal_engine *e = &mdev->engine;
	struct mvgal_stage_user *u;
	unsigned int bkt;

	spin_lock(&e->staged_wq.lock);
	hash_for_each(e->stage_users, bkt, u, node)
		seq_printf(m, "%u %llu %u\n",
			   from_kuid_munged(&init_user_ns, u->uid), u->held,
			   u->waiting);
	spin_unlock(&e->staged_wq.lock);
}

/**
 * mvgal_job_set_write() - the job writes @len bytes of @buf at @off of
 * @bo's home after its copies
 * @job: a job not queued yet
 * @bo: the buffer; its home pages of the range are populated
 * @off: byte offset
 * @buf: kvmalloc()ed bytes; the job frees them when it ends
 * @len: bytes; the job takes over mvgal_stage_charge(@len) bytes of
 *	 mvgal_stage_reserve()
 * @user: whose they are
 *
 * Return: 0, or -ENOMEM with @buf and the staging memory still the
 * caller's.
 */
int mvgal_job_set_write(struct mvgal_job *job, struct mvgal_bo *bo,
			u64 off, void *buf, u64 len,
			struct mvgal_stage_user *user)
{
	int ret = mvgal_job_add_bo(job, bo);

	if (!ret)
		ret = mvgal_job_touch_bytes(job, bo, off, len);
	if (ret)
		return ret;
	job->write = (struct mvgal_job_write) {
		.bo = bo, .buf = buf, .off = off, .len = len, .user = user,
	};
	return 0;
}

/**
 * mvgal_fence_boost() - if @fence is a job of ours that has not started,
 * raise its priority to @prio
 * @fence: any fence, referenced by the caller
 * @prio: MVGAL_PRIO_*
 *
 * Priority inheritance: a prefetch (LOW) that a session's copies, a CPU
 * fault or a migration comes to wait for must not wait behind every
 * other job: it runs at the priority of who waits.
 */
void mvgal_fence_boost(struct dma_fence *fence, unsigned int prio)
{
	struct mvgal_job *job;
	struct mvgal_engine *e;

	if (!mvgal_job_boost || fence->ops != &mvgal_job_fence_ops)
		return;
	job = container_of(fence, struct mvgal_job, base);
	e = &job->mdev->engine;
	spin_lock(&e->lock);
	if (job->prio > prio && !job->cancelled &&
	    (job->state == MVGAL_JOB_WAITING ||
	     (job->state == MVGAL_JOB_READY && !list_empty(&job->link)))) {
		job->prio = prio;
		if (job->state == MVGAL_JOB_READY)
			list_move_tail(&job->link, &e->ready[prio]);
	}
	spin_unlock(&e->lock);
}

/**
 * mvgal_resv_boost() - mvgal_fence_boost() every fence of @bo that an
 * access of @usage waits for, to MVGAL_PRIO_HIGH (a CPU access waits)
 * @bo: the buffer
 * @usage: the dma_resv usage waited for
 */
void mvgal_resv_boost(struct mvgal_bo *bo, enum dma_resv_usage usage)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;

	dma_resv_iter_begin(&cursor, bo->base.resv, usage);
	dma_resv_for_each_fence_unlocked(&cursor, fence)
		mvgal_fence_boost(fence, MVGAL_PRIO_HIGH);
	dma_resv_iter_end(&cursor);
}

/**
 * mvgal_job_set_move() - make the job a MOVE of chunks [first, last] of
 * @bo to @loc
 * @job: the job
 * @bo: the buffer; in the job's copies, or it needs none
 * @first: first chunk
 * @last: last chunk
 * @loc: MVGAL_LOC_*, where the chunks go
 *
 * When the job is marked, @loc becomes the only holder of every chunk in
 * the range it holds (or will once the job's copies are done), exactly as
 * a copy counts as there from the mark on: every access planned later is
 * ordered after the job by its fence and sees the state after the move. A
 * WRITE session begun later therefore never has its copy taken away by
 * the move. Should the job fail or be cancelled, the holders of before
 * get the chunks back.
 *
 * Return: 0 or -ENOMEM.
 */
int mvgal_job_set_move(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned long first, unsigned long last,
		       unsigned int loc)
{
	struct mvgal_move *m = &job->move;

	if (mvgal_job_touch(job, bo, first, last))
		return -ENOMEM;
	m->prev = kvmalloc_array(last - first + 1, sizeof(*m->prev),
				 GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!m->prev)
		return -ENOMEM;
	drm_gem_object_get(&bo->base);
	m->bo = bo;
	m->first = first;
	m->last = last;
	m->loc = loc;
	return 0;
}

/* Marks the move: @loc alone holds what it holds of the range. */
static void mvgal_move_mark(struct mvgal_move *m)
{
	struct mvgal_bo *bo = m->bo;
	unsigned long c;

	spin_lock(&bo->state_lock);
	for (c = m->first; c <= m->last; c++) {
		struct mvgal_chunk *ch = mvgal_chunk_at(bo, c);

		m->prev[c - m->first] = ch->valid;
		mvgal_chunk_written(ch, m->loc);
	}
	spin_unlock(&bo->state_lock);
}

/*
 * The locations failed work the job used was to fill chunk @c of @bo
 * at: that work's copies never came, so they hold nothing it made. Its
 * copy list stays with its fence, which the job holds.
 */
static unsigned int mvgal_job_failed_dsts(const struct mvgal_job *job,
					  const struct mvgal_bo *bo,
					  unsigned long c)
{
	unsigned int i, j, mask = 0;

	for (i = 0; i < job->ndeps; i++) {
		const struct dma_fence *f = job->deps[i].fence;
		const struct mvgal_job *dep;

		if (!f->error || f->ops != &mvgal_job_fence_ops)
			continue;
		dep = container_of(f, struct mvgal_job, base);
		for (j = 0; j < dep->nsegs; j++) {
			const struct mvgal_copy_seg *sg = &dep->segs[j];
			unsigned long first, last;

			mvgal_chunk_span(sg->off, sg->len, bo->chunk_shift,
					 &first, &last);
			if (sg->bo == bo && first <= c && c <= last)
				mask |= BIT(sg->dst);
		}
	}
	return mask;
}

/*
 * A failed or cancelled move: chunks still held at @loc alone (nothing
 * wrote them elsewhere since) go back to their holders of before, less
 * the ones failed work was to fill. A job that never ran wrote nothing:
 * @loc keeps its copy if it had one before; one whose run failed may have
 * written @loc's copy in part, so it is dropped unless it is all there is.
 */
static void mvgal_move_revert(struct mvgal_job *job)
{
	struct mvgal_move *m = &job->move;
	struct mvgal_bo *bo = m->bo;
	unsigned long c;

	spin_lock(&bo->state_lock);
	for (c = m->first; c <= m->last; c++) {
		struct mvgal_chunk *ch = mvgal_chunk_at(bo, c);
		unsigned int prev = m->prev[c - m->first], failed;

		if (ch->valid != BIT(m->loc))
			continue;
		/* Never every holder: something holds the bytes. */
		failed = mvgal_job_failed_dsts(job, bo, c);
		if (prev & ~failed)
			prev &= ~failed;
		if (job->ran)
			mvgal_chunk_revert(ch, m->loc, prev | BIT(m->loc));
		else
			mvgal_chunk_restore(ch, prev);
	}
	spin_unlock(&bo->state_lock);
}

static void mvgal_move_put(struct mvgal_move *m)
{
	if (!m->bo)
		return;
	kvfree(m->prev);
	m->prev = NULL;
	drm_gem_object_put(&m->bo->base);
	m->bo = NULL;
}

/* The job starts after @fence; @data: see struct mvgal_job_dep. */
static int mvgal_job_dep(struct mvgal_job *job, struct dma_fence *fence,
			 bool data)
{
	if (!fence || dma_fence_is_signaled(fence))
		return 0;
	mvgal_fence_boost(fence, job->prio);
	if (mvgal_grow((void **)&job->deps, job->ndeps, sizeof(*job->deps)))
		return -ENOMEM;
	job->deps[job->ndeps++] = (struct mvgal_job_dep) {
		.fence = dma_fence_get(fence), .data = data,
	};
	return 0;
}

/**
 * mvgal_job_add_dep() - the job starts after @fence, and fails if it
 * fails (the caller's own in-fence)
 * @job: a job not queued yet
 * @fence: any fence, or NULL; the job takes a reference
 *
 * Return: 0 or -ENOMEM.
 */
int mvgal_job_add_dep(struct mvgal_job *job, struct dma_fence *fence)
{
	return mvgal_job_dep(job, fence, true);
}

enum mvgal_job_op { MVGAL_JOB_MARK, MVGAL_JOB_UNFILL };

/* Applies @op to every chunk the job's copies fill. */
static void mvgal_job_chunks(struct mvgal_job *job, enum mvgal_job_op op)
{
	unsigned int i;

	for (i = 0; i < job->nsegs; i++) {
		struct mvgal_copy_seg *s = &job->segs[i];
		unsigned long first, last, c;

		mvgal_chunk_span(s->off, s->len, s->bo->chunk_shift, &first,
				 &last);
		spin_lock(&s->bo->state_lock);
		for (c = first; c <= last; c++) {
			struct mvgal_chunk *chunk = mvgal_chunk_at(s->bo, c);

			if (op == MVGAL_JOB_MARK)
				mvgal_chunk_filled(chunk, s->dst);
			else
				mvgal_chunk_unfill(chunk, s->dst);
		}
		spin_unlock(&s->bo->state_lock);
	}
}

/*
 * The chunks a staged write covers whole count as held at home: their
 * old bytes will never be read.
 */
static void mvgal_job_write_fill(struct mvgal_job *job)
{
	struct mvgal_bo *bo = job->write.bo;
	unsigned long a, b, c;

	mvgal_chunk_whole(job->write.off, job->write.len, bo->chunk_shift,
			  bo->size, &a, &b);
	spin_lock(&bo->state_lock);
	for (c = a; c < b; c++)
		mvgal_chunk_filled(mvgal_chunk_at(bo, c), bo->home_loc);
	spin_unlock(&bo->state_lock);
}

/*
 * The chunks the job fills count as held there from now on (its fence
 * orders every access after the copies).
 */
static void mvgal_job_mark(struct mvgal_job *job)
{
	if (job->write.buf)
		mvgal_job_write_fill(job);
	mvgal_job_chunks(job, MVGAL_JOB_MARK);
	if (job->move.bo)
		mvgal_move_mark(&job->move);
}

/*
 * Puts the job's fence into the dma_resv of every buffer it copies, as a
 * KERNEL fence: every later access, ours or an importer's, waits for the
 * copies. Caller holds each reservation with a fence slot reserved.
 */
static void mvgal_job_publish(struct mvgal_job *job)
{
	unsigned int i;

	/* Buffers join a job only through a copy or a staged write. */
	for (i = 0; i < job->nbos; i++)
		dma_resv_add_fence(job->bos[i]->base.resv, &job->base,
				   DMA_RESV_USAGE_KERNEL);
}

/**
 * mvgal_job_mirror() - a mirrored registration the job copies or writes
 * @job: the job
 *
 * Return: the first such buffer, or NULL.
 */
struct mvgal_bo *mvgal_job_mirror(const struct mvgal_job *job)
{
	unsigned int i;

	for (i = 0; i < job->nbos; i++)
		if (mvgal_userptr_mirrored(job->bos[i]))
			return job->bos[i];
	return NULL;
}

/*
 * May each copy and the write of the job count? 0 or -EAGAIN; every
 * chunk whose pages went stale is wanted, so that one try faults them.
 */
static int mvgal_job_current(struct mvgal_job *job)
{
	struct mvgal_bo *wbo = job->write.bo;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < job->nsegs; i++) {
		struct mvgal_copy_seg *s = &job->segs[i];

		ret = mvgal_hmm_current(s->bo, s->off, s->len, s->src,
					s->dst) ?: ret;
	}
	if (job->write.buf)
		ret = mvgal_hmm_current(wbo, job->write.off, job->write.len,
					wbo->home_loc, wbo->home_loc) ?: ret;
	return ret;
}

/**
 * mvgal_job_commit_locked() - the job's chunks marked (see
 * mvgal_job_mark()) and its fence published (mvgal_job_publish()),
 * unless it copies a mirrored registration invalidated since its pages
 * were faulted
 * @job: the job, armed; caller holds the locks of every buffer it copies,
 *	 their reservations with a fence slot, and, if mvgal_job_mirror()
 *	 names one, mvgal_hmm_publish_lock(); it allocates nothing from
 *	 here until mvgal_job_push()
 *
 * Return: 0, or -EAGAIN with nothing changed: the caller aborts the job,
 * and its call runs again once the pages are faulted anew.
 */
int mvgal_job_commit_locked(struct mvgal_job *job)
{
	int ret = mvgal_job_current(job);

	if (ret)
		return ret;
	mvgal_job_mark(job);
	mvgal_job_publish(job);
	return 0;
}

/**
 * mvgal_job_commit() - mvgal_job_commit_locked(), taking
 * mvgal_hmm_publish_lock() where the job copies a mirror
 * @job: as for mvgal_job_commit_locked(), the mirrors' lock not held
 *
 * Return: 0 or -EAGAIN, as mvgal_job_commit_locked().
 */
int mvgal_job_commit(struct mvgal_job *job)
{
	struct mvgal_bo *mirror = mvgal_job_mirror(job);
	int ret;

	if (mirror)
		mvgal_hmm_publish_lock(mirror);
	ret = mvgal_job_commit_locked(job);
	if (mirror)
		mvgal_hmm_publish_unlock();
	return ret;
}

/**
 * mvgal_job_drop_write() - the staged write's bytes and staging memory
 * are the caller's again
 * @job: a job about to be aborted
 */
void mvgal_job_drop_write(struct mvgal_job *job)
{
	job->write = (struct mvgal_job_write){ 0 };
}

bool mvgal_job_empty(const struct mvgal_job *job)
{
	return !job->nsegs && !job->ndeps && !job->write.buf;
}

/* Does @job copy, move or write any of chunks [first, last] of @bo? */
static bool mvgal_job_touches(const struct mvgal_job *job,
			      const struct mvgal_bo *bo, unsigned long first,
			      unsigned long last)
{
	unsigned int i;

	for (i = 0; i < job->nspans; i++) {
		const struct mvgal_job_span *sp = &job->spans[i];

		if (sp->bo == bo && sp->first <= last && first <= sp->last)
			return true;
	}
	return false;
}

/*
 * @job is to use what @dep, a job of ours on the same chunks, makes.
 * Another file's job it comes to need cannot be cancelled from then on:
 * that file's CANCEL must not fail this one's work (a job of no file,
 * a prefetch, may fail with it). One cancelled already is waited for: it
 * gives its chunks back before its fence signals, and the caller plans
 * only after its dependencies, from the states as they are then, as if
 * it had never been queued.
 *
 * Return: true when @job must wait for @dep.
 */
static bool mvgal_job_needs(struct mvgal_job *job, struct mvgal_job *dep)
{
	struct mvgal_engine *e = &job->mdev->engine;
	bool cancelled;

	spin_lock(&e->lock);
	cancelled = dep->cancelled;
	if (!cancelled && job->quota && dep->quota != job->quota)
		dep->needed = true;
	spin_unlock(&e->lock);
	if (cancelled)
		dma_fence_wait(&dep->base, false);
	return !cancelled;
}

/*
 * mvgal_job_add_resv_deps() - the job waits for @bo's fences that an
 * access of this kind to chunks [first, last] must wait for
 * @write: a writer waits for everything, a reader for the last writer
 * @first: first chunk the access names
 * @last: last chunk
 *
 * Our own jobs (KERNEL fences: copies we published) are ordered by the
 * chunks they touch: one on other chunks of the buffer is not waited
 * for. Other fences (GPU work that END published, whatever fence it was)
 * cover chunks we do not know: they are all waited for, but only a
 * writer's failure fails the job; a reader's work changes nothing.
 * The caller plans its copies after this, from the chunk states as they
 * are then.
 *
 * Return: 0 or -ENOMEM.
 */
int mvgal_job_add_resv_deps(struct mvgal_job *job, struct mvgal_bo *bo,
			    bool write, unsigned long first,
			    unsigned long last)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	int ret;

	dma_resv_for_each_fence(&cursor, bo->base.resv,
				dma_resv_usage_rw(write), fence) {
		enum dma_resv_usage usage = dma_resv_iter_usage(&cursor);

		if (dma_fence_is_signaled(fence))
			continue;
		/* A job's fence END handed in is GPU work: not ours. */
		if (usage == DMA_RESV_USAGE_KERNEL &&
		    fence->ops == &mvgal_job_fence_ops) {
			struct mvgal_job *dep = container_of(fence,
						struct mvgal_job, base);

			if (!mvgal_job_touches(dep, bo, first, last) ||
			    !mvgal_job_needs(job, dep))
				continue;
		}
		ret = mvgal_job_dep(job, fence, usage != DMA_RESV_USAGE_READ);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * mvgal_fence_fd() - a sync_file fd (O_CLOEXEC) for @fence, not yet
 * installed
 * @sf: (out) the sync_file, for fd_install() once nothing can fail
 *
 * Return: the fd or -errno.
 */
int mvgal_fence_fd(struct dma_fence *fence, struct sync_file **sf)
{
	int fd = get_unused_fd_flags(O_CLOEXEC);

	if (fd < 0)
		return fd;
	*sf = sync_file_create(fence);
	if (!*sf) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	return fd;
}

/**
 * mvgal_fence_fd_drop() - undo mvgal_fence_fd()
 * @fd: the fd it gave, not installed
 * @sf: the sync_file it made
 */
void mvgal_fence_fd_drop(int fd, struct sync_file *sf)
{
	put_unused_fd(fd);
	fput(sf->file);
}

u64 mvgal_job_bytes(const struct mvgal_job *job)
{
	return job->bytes;
}

/*
 * mvgal_job_fence() - the job's fence, set up on first use. Each job's
 * fence has a context of its own: jobs finish out of order, and dma_resv
 * would otherwise take a later job for a newer version of an earlier one.
 */
struct dma_fence *mvgal_job_fence(struct mvgal_job *job)
{
	if (!job->armed) {
		spin_lock_init(&job->fence_lock);
		dma_fence_init(&job->base, &mvgal_job_fence_ops,
			       &job->fence_lock, dma_fence_context_alloc(1), 1);
		job->armed = true;
	}
	return &job->base;
}

u64 mvgal_job_id(const struct mvgal_job *job)
{
	return job->id;
}

/* A staged write's bytes and the staging memory they held. */
static void mvgal_job_put_write(struct mvgal_job *job)
{
	if (!job->write.buf)
		return;
	kvfree(job->write.buf);
	job->write.buf = NULL;
	mvgal_stage_release(job->mdev, job->write.user,
			    mvgal_stage_charge(job->write.len));
}

/* Drops what the job held: dependencies, buffers, the copy list. */
static void mvgal_job_put_refs(struct mvgal_job *job)
{
	unsigned int i;

	for (i = 0; i < job->ndeps; i++)
		dma_fence_put(job->deps[i].fence);
	kfree(job->deps);
	job->deps = NULL;
	for (i = 0; i < job->nbos; i++)
		drm_gem_object_put(&job->bos[i]->base);
	kfree(job->bos);
	job->bos = NULL;
	mvgal_job_put_write(job);
	mvgal_move_put(&job->move);
	mvgal_file_uncharge(job->quota, true, 0);
	job->quota = NULL;
}

/**
 * mvgal_job_abort() - drop a job that was never pushed
 * @job: the job; nothing was marked for it yet
 */
void mvgal_job_abort(struct mvgal_job *job)
{
	mvgal_job_put_refs(job);
	if (!job->armed) {
		kfree(job->spans);
		kfree(job->segs);
		kfree(job);
		module_put(THIS_MODULE);
		return;
	}
	/* A sync_file may hold it still: it must end signaled. */
	dma_fence_set_error(&job->base, -ECANCELED);
	dma_fence_signal(&job->base);
	dma_fence_put(&job->base);
}

/* Ends a job: chunks, counters, fence, references. */
void mvgal_job_finish(struct mvgal_job *job, int error)
{
	struct mvgal_counters *ctr = &job->mdev->ctr;

	if (error) {
		/* The chunks it would have filled are not there. */
		if (job->move.bo)
			mvgal_move_revert(job);
		mvgal_job_chunks(job, MVGAL_JOB_UNFILL);
		dma_fence_set_error(&job->base, error);
		atomic64_inc(error == -ECANCELED ? &ctr->cancelled : &ctr->failed);
	} else {
		atomic64_inc(&ctr->completed);
	}
	atomic64_dec(&ctr->depth);
	/* Before the fence: who waited for the write finds its room free. */
	mvgal_job_put_write(job);
	dma_fence_signal(&job->base);
	mvgal_job_put_refs(job);
	dma_fence_put(&job->base);
}

static void mvgal_job_dep_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct mvgal_job *job = container_of(cb, struct mvgal_job, cb);

	/* Fence callbacks run under the fence's lock: move on from a work. */
	queue_work(job->mdev->engine.wq, &job->dep_work);
}

/*
 * A dependency whose work the job uses and that failed fails the job:
 * its inputs are not valid. A staged write too: the rest of its chunks
 * would come from failed work. One it only came after changes nothing.
 */
static void mvgal_job_dep_error(struct mvgal_job *job,
				const struct mvgal_job_dep *dep)
{
	if (dep->data && dep->fence->error && !job->error)
		job->error = dep->fence->error;
}

/*
 * Waits for the next unsignaled dependency, or puts the job on its ready
 * list. A dependency that failed fails the job: its inputs are not
 * valid. Caller holds engine.lock, which CANCEL takes too: the current
 * dependency (next_dep) only moves under it.
 *
 * Return: true when the job is ready and the worker must be kicked,
 * false while it waits, or when it was cancelled (then *@cancelled).
 */
static bool mvgal_job_next_dep(struct mvgal_job *job, bool *cancelled)
{
	struct mvgal_engine *e = &job->mdev->engine;

	lockdep_assert_held(&e->lock);
	*cancelled = false;
	while (!job->cancelled && job->next_dep < job->ndeps) {
		struct mvgal_job_dep *dep = &job->deps[job->next_dep];

		if (!dma_fence_add_callback(dep->fence, &job->cb,
					    mvgal_job_dep_cb))
			return false;
		job->next_dep++;
		mvgal_job_dep_error(job, dep);
	}
	if (job->cancelled) {
		*cancelled = true;
		return false;
	}
	job->state = MVGAL_JOB_READY;
	list_add_tail(&job->link, &e->ready[job->prio]);
	return true;
}

/* Steps a job on after a dependency signaled, outside the fence lock. */
static void mvgal_job_step(struct mvgal_job *job, bool consumed)
{
	struct mvgal_engine *e = &job->mdev->engine;
	bool ready, cancelled;

	spin_lock(&e->lock);
	if (consumed)
		mvgal_job_dep_error(job, &job->deps[job->next_dep++]);
	ready = mvgal_job_next_dep(job, &cancelled);
	spin_unlock(&e->lock);
	if (ready)
		queue_work(e->wq, &e->work);
	else if (cancelled)
		mvgal_job_finish(job, -ECANCELED);
}

static void mvgal_job_dep_work(struct work_struct *work)
{
	mvgal_job_step(container_of(work, struct mvgal_job, dep_work), true);
}

/**
 * mvgal_job_push() - hand a planned job to the engine
 * @job: the job; its chunks are marked and its fence published
 *
 * The engine owns the caller's reference from here on.
 */
void mvgal_job_push(struct mvgal_job *job)
{
	struct mvgal_device *mdev = job->mdev;
	struct mvgal_engine *e = &mdev->engine;

	mvgal_job_fence(job);
	atomic64_inc(&mdev->ctr.scheduled);
	atomic64_inc(&mdev->ctr.jobs[job->prio]);
	atomic64_inc(&mdev->ctr.depth);
	spin_lock(&e->lock);
	job->id = ++e->next_id;
	job->state = MVGAL_JOB_WAITING;
	list_add_tail(&job->plink, &e->pending);
	spin_unlock(&e->lock);
	mvgal_job_step(job, false);
}

/*
 * The first @n copies of a migration job were made: one migration per
 * buffer, counted for each pool they went into or came out of.
 */
static void mvgal_job_count_moves(struct mvgal_job *job, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < job->nbos; i++) {
		unsigned long locs = 0;

		for (j = 0; j < n; j++)
			if (job->segs[j].bo == job->bos[i])
				locs |= BIT(job->segs[j].dst) |
					BIT(job->segs[j].src);
		mvgal_bo_count_moves(job->bos[i], locs);
	}
}

static int mvgal_job_run(struct mvgal_job *job)
{
	struct mvgal_engine *e = &job->mdev->engine;
	struct mvgal_counters *ctr = &job->mdev->ctr;
	unsigned int i;
	int ret = 0;

	if (job->error)
		return job->error;
	job->ran = true;
	for (i = 0; i < job->nsegs; i++) {
		struct mvgal_copy_seg *s = &job->segs[i];
		int nid = mvgal_loc_node(s->bo, s->dst);
		void *bounce = e->bounce[nid == NUMA_NO_NODE ? first_online_node
					 : nid];
		unsigned int method = s->method;

		ret = mvgal_copy(s->bo, s->dst, s->src, s->off, s->len,
				 &method, bounce ?: e->bounce[first_online_node]);
		if (ret)
			break;
		mvgal_bo_count_copy(s->bo, s->dst, s->src, s->len);
		atomic64_add(s->len, &ctr->bytes[method]);
		atomic64_add(DIV_ROUND_UP_ULL(s->len, 1ULL << s->bo->chunk_shift),
			     &ctr->copies[method]);
	}
	/* What was copied before a failure moved all the same; bringing a
	 * staged write's chunks home is a CPU access, no migration.
	 */
	if (!job->session && !job->write.buf)
		mvgal_job_count_moves(job, i);
	if (!ret && job->write.buf)
		ret = mvgal_loc_write(job->write.bo, job->write.bo->home_loc,
				      job->write.off, job->write.buf,
				      job->write.len);
	return ret;
}

/* The one worker: ready jobs, highest priority first. */
static void mvgal_engine_work(struct work_struct *work)
{
	struct mvgal_engine *e = container_of(work, struct mvgal_engine, work);

	for (;;) {
		struct mvgal_job *job = NULL;
		unsigned int p;

		spin_lock(&e->lock);
		for (p = 0; p < MVGAL_PRIO_COUNT && !job; p++) {
			job = list_first_entry_or_null(&e->ready[p],
						       struct mvgal_job, link);
		}
		if (job) {
			list_del_init(&job->link);
			job->state = MVGAL_JOB_RUNNING;
			list_del_init(&job->plink);
		}
		spin_unlock(&e->lock);
		if (!job)
			return;
		mvgal_job_finish(job, mvgal_job_run(job));
		cond_resched();
	}
}

int mvgal_engine_init(struct mvgal_device *mdev)
{
	struct mvgal_engine *e = &mdev->engine;
	unsigned int p;
	int nid;

	spin_lock_init(&e->lock);
	for (p = 0; p < MVGAL_PRIO_COUNT; p++)
		INIT_LIST_HEAD(&e->ready[p]);
	INIT_LIST_HEAD(&e->pending);
	hash_init(e->stage_users);
	INIT_LIST_HEAD(&e->stage_waiters);
	init_waitqueue_head(&e->staged_wq);
	INIT_WORK(&e->work, mvgal_engine_work);
	e->bounce = kcalloc(nr_node_ids, sizeof(*e->bounce), GFP_KERNEL_ACCOUNT);
	if (!e->bounce)
		return -ENOMEM;
	/* Staging goes through memory on the destination's node. */
	for_each_node_state(nid, N_MEMORY) {
		e->bounce[nid] = kmalloc_node(MVGAL_BOUNCE_SIZE, GFP_KERNEL, nid);
		if (!e->bounce[nid])
			goto err;
	}
	/*
	 * Per-CPU and high priority: the job runs on the CPU that queued it
	 * as soon as the submitter sleeps on the fence, without a wake-up
	 * of another CPU (under TCG that hand-off cost more than a 1 MiB
	 * copy's fixed part). One work item runs all jobs, so nothing is
	 * lost by not spreading them.
	 */
	e->wq = alloc_workqueue("mvgal-migrate", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!e->wq)
		goto err;
	return 0;
err:
	for_each_node(nid)
		kfree(e->bounce[nid]);
	kfree(e->bounce);
	return -ENOMEM;
}

/* At unload: every file is closed, so every job has finished or will. */
void mvgal_engine_fini(struct mvgal_device *mdev)
{
	struct mvgal_engine *e = &mdev->engine;
	int nid;

	destroy_workqueue(e->wq);
	WARN_ON(!list_empty(&e->pending));
	/* Every staged write's job ended and gave its memory back. */
	WARN_ON(!hash_empty(e->stage_users) || e->staged);
	for_each_node(nid)
		kfree(e->bounce[nid]);
	kfree(e->bounce);
}
