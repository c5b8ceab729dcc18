// SPDX-License-Identifier: GPL-2.0
/*
 * BEGIN, END and FILE_FLAGS, and the open and close of a file: the
 * ioctls of access sessions.
 */

#include <linux/bitmap.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_range.h"
#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_quota.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_commit.h"
#include "bo/mvgal_mirror.h"
#include "move/mvgal_job.h"
#include "move/mvgal_place.h"
#include "policy/mvgal_numa.h"
#include "policy/mvgal_prefetch.h"
#include "policy/mvgal_replicate.h"
#include "policy/mvgal_session.h"
#include "uapi/mvgal_session_ioctl.h"
#include "uapi/mvgal_syncobj.h"
#include "uapi/mvgal_uapi_array.h"

static_assert(sizeof(struct drm_mvgal_access) >= MVGAL_ACCESS_SIZE_V1);

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

static int mvgal_begin_check(const struct drm_mvgal_begin *args)
{
	u32 mode = args->flags & (MVGAL_ACCESS_READ | MVGAL_ACCESS_WRITE);

	if (args->flags & ~MVGAL_ACCESS_FLAGS ||
	    (mode != MVGAL_ACCESS_READ && mode != MVGAL_ACCESS_WRITE) ||
	    !args->count || args->count > MVGAL_SESSION_MAX_BUFFERS ||
	    args->priority >= MVGAL_PRIO_COUNT || args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	return mvgal_syncobj_check(args->in_syncobj, args->in_point,
				   args->out_syncobj, args->out_point);
}

/* Every buffer of a WRITE session that wrote nothing, for an undo. */
static unsigned long *mvgal_nothing_written[MVGAL_SESSION_MAX_BUFFERS];

/* BEGIN's accesses as a user array; -EINVAL for a bad stride. */
static int mvgal_begin_uarray(const struct drm_mvgal_begin *args,
			      struct mvgal_uarray *ua)
{
	return mvgal_uarray_init(ua, args->accesses, args->count,
				 args->stride, MVGAL_ACCESS_SIZE_V1,
				 sizeof(struct drm_mvgal_access));
}

/* Writes BEGIN's (out) fields of each access: a few stores, not the array. */
static int mvgal_begin_results(const struct drm_mvgal_begin *args,
			       const struct drm_mvgal_access *acc)
{
	struct mvgal_uarray ua;
	unsigned int i;

	if (mvgal_begin_uarray(args, &ua))
		return -EINVAL;
	for (i = 0; i < args->count; i++) {
		struct drm_mvgal_access __user *u = mvgal_uarray_elem(&ua, i);

		if (put_user(acc[i].pool_offset, &u->pool_offset) ||
		    put_user(acc[i].pool_gpu, &u->pool_gpu))
			return -EFAULT;
	}
	return 0;
}

/*
 * Copies BEGIN's accesses in. Most sessions name a few buffers: those
 * go into @small, with no allocation. Return: the array or ERR_PTR.
 */
static struct drm_mvgal_access *
mvgal_begin_copy_in(const struct drm_mvgal_begin *args,
		    struct drm_mvgal_access *small, unsigned int nsmall)
{
	struct mvgal_uarray ua;
	int ret;

	ret = mvgal_begin_uarray(args, &ua);
	if (ret)
		return ERR_PTR(ret);
	/* BEGIN writes each access's results: an array it cannot write
	 * fails the call before anything is planned or queued.
	 */
	if (!mvgal_uarray_writable(&ua, args->count))
		return ERR_PTR(-EFAULT);
	if (args->count <= nsmall) {
		ret = mvgal_uarray_read(&ua, small);
		return ret ? ERR_PTR(ret) : small;
	}
	return mvgal_uarray_dup(&ua);
}

/* One allocation: the session, its buffers, their objects. */
static struct mvgal_session *
mvgal_begin_session_alloc(const struct drm_mvgal_begin *args,
			  struct mvgal_file *mf)
{
	struct mvgal_session *s;

	s = kzalloc(struct_size(s, b, args->count) +
		    array_size(args->count, sizeof(*s->objs)), GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	s->objs = (struct drm_gem_object **)&s->b[args->count];
	s->count = args->count;
	s->gpu = args->gpu;
	s->write = args->flags & MVGAL_ACCESS_WRITE;
	s->no_copies = READ_ONCE(mf->flags) & MVGAL_FILE_NO_COPIES;
	return s;
}

/*
 * BEGIN's in-fence, if any, into *@in_fence; one not yet signaled makes
 * the session's job now, waiting for it.
 */
static int mvgal_begin_in_fence(struct mvgal_device *mdev,
				const struct drm_mvgal_begin *args,
				struct drm_file *file,
				struct dma_fence **in_fence,
				struct mvgal_job **job)
{
	int ret;

	ret = mvgal_in_fence(file, args->in_fence_fd, args->in_syncobj,
			     args->in_point, in_fence);
	if (ret || !*in_fence || dma_fence_is_signaled(*in_fence))
		return ret;
	ret = mvgal_begin_job(mdev, job, args, file);
	if (!ret)
		ret = mvgal_job_add_dep(*job, *in_fence);
	return ret;
}

/*
 * Takes a session slot in the file and puts @s on its list; END finds
 * it only once it is marked begun.
 */
static int mvgal_file_session_add(struct mvgal_file *mf,
				  struct mvgal_session *s)
{
	mutex_lock(&mf->lock);
	if (mf->count >= MVGAL_SESSIONS_PER_FILE) {
		mutex_unlock(&mf->lock);
		return -EBUSY;
	}
	mf->count++;
	s->id = ++mf->next_id ?: ++mf->next_id;
	list_add_tail(&s->link, &mf->sessions);
	mutex_unlock(&mf->lock);
	return 0;
}

/* Gives back the slot mvgal_file_session_add() took. */
static void mvgal_file_session_del(struct mvgal_file *mf,
				   struct mvgal_session *s)
{
	mutex_lock(&mf->lock);
	list_del(&s->link);
	mf->count--;
	mutex_unlock(&mf->lock);
}

/*
 * A BEGIN whose results could not be handed out: undone as an END of
 * work that wrote nothing, and freed.
 */
static void mvgal_begin_undo(struct mvgal_file *mf, struct mvgal_session *s,
			     struct mvgal_begin_out *out)
{
	if (out->sf)
		mvgal_fence_fd_drop(out->fd, out->sf);
	mvgal_file_session_del(mf, s);
	mvgal_session_finish(s, mvgal_nothing_written, NULL, NULL);
	mvgal_session_free(s);
}

/*
 * BEGIN copies its results out itself, before the session can be found
 * and its fd is installed, so that a fault undoes it: drm_ioctl() would
 * copy them out after the handler returned, when a live session and an
 * installed fd could no longer be taken back.
 */
struct mvgal_begin_call {
	struct drm_mvgal_begin args;		/* first: the handler's data */
	struct drm_mvgal_begin __user *uargs;	/* where they came from */
	u32 out_size;				/* bytes to copy out */
	u32 user_size;				/* the caller's struct */
	struct dma_fence **fence;		/* (out) the out-fence, or NULL */
	struct mvgal_syncobj_out sync;		/* the out-syncobj */
};

/* The struct itself, then zeroes past our version of it, as drm_ioctl(). */
static int mvgal_begin_copy_out(const struct mvgal_begin_call *call)
{
	char __user *u = (char __user *)call->uargs;

	if (copy_to_user(u, &call->args, call->out_size))
		return -EFAULT;
	if (call->user_size > call->out_size &&
	    clear_user(u + call->out_size, call->user_size - call->out_size))
		return -EFAULT;
	return 0;
}

/*
 * Hands out the results of a live session, with no lock held: a fault
 * on the arrays or the struct may need a buffer's lock (they may lie in a
 * mapping of one of the session's own buffers) or mmap_lock, which faults
 * take first. The out-fence's fd is installed only once they are out. On
 * a fault the session is undone (and freed): what was written before it
 * stays written, but names nothing that exists.
 */
static int mvgal_begin_publish(struct mvgal_file *mf, struct mvgal_session *s,
			       struct mvgal_begin_call *call,
			       const struct drm_mvgal_access *acc,
			       struct mvgal_begin_out *out)
{
	struct drm_mvgal_begin *args = &call->args;

	args->bytes_copied = out->bytes;
	args->session = s->id;
	args->out_fence_fd = out->fd;
	if (mvgal_begin_results(args, acc) || mvgal_begin_copy_out(call)) {
		mvgal_begin_undo(mf, s, out);
		return -EFAULT;
	}
	if (out->sf) {
		s->copies = dma_fence_get(out->sf->fence);
		if (call->fence)
			*call->fence = dma_fence_get(s->copies);
	}
	mvgal_syncobj_out_signal(&call->sync, s->copies);
	if (out->sf)
		fd_install(out->fd, out->sf->file);
	/* Only now, when BEGIN no longer touches it, may END find (and
	 * free) it; pairs with mvgal_session_find().
	 */
	smp_store_release(&s->begun, true);
	return 0;
}

/* The handler, under drm_ioctl_kernel(): @data is a mvgal_begin_call. */
static int mvgal_ioctl_begin(struct drm_device *dev, void *data,
			     struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct mvgal_file *mf = file->driver_priv;
	struct drm_mvgal_access acc_small[4], *acc;
	struct mvgal_begin_call *call = data;
	struct drm_mvgal_begin *args = &call->args;
	struct dma_fence *in_fence = NULL;
	struct mvgal_job *job = NULL;
	struct mvgal_begin_out out;
	struct mvgal_session *s;
	int ret;

	ret = mvgal_begin_check(args);
	if (ret)
		return ret;
	acc = mvgal_begin_copy_in(args, acc_small, ARRAY_SIZE(acc_small));
	if (IS_ERR(acc))
		return PTR_ERR(acc);
	s = mvgal_begin_session_alloc(args, mf);
	if (!s) {
		ret = -ENOMEM;
		goto out_acc;
	}
	ret = mvgal_begin_read(file, s, acc);
	if (ret)
		goto out_session;
	ret = mvgal_begin_in_fence(mdev, args, file, &in_fence, &job);
	if (ret)
		goto out_session;
	ret = mvgal_syncobj_out_get(file, args->out_syncobj, args->out_point,
				    &call->sync);
	if (ret)
		goto out_session;
	ret = mvgal_file_session_add(mf, s);
	if (ret)
		goto out_session;
	ret = mvgal_session_begin(mdev, s, &job, acc, args, file, &out);
	if (ret)
		goto out_file;
	/* The session is the file's now, or undone and freed. */
	ret = mvgal_begin_publish(mf, s, call, acc, &out);
	dma_fence_put(in_fence);
	if (acc != acc_small)
		kfree(acc);
	return ret;

out_file:
	mvgal_file_session_del(mf, s);
out_session:
	if (job)
		mvgal_job_abort(job);
	dma_fence_put(in_fence);
	mvgal_session_free(s);
out_acc:
	if (acc != acc_small)
		kfree(acc);
	return ret;
}

/**
 * mvgal_begin_user() - DRM_IOCTL_MVGAL_BEGIN, of any size the caller's
 * struct has
 * @filp: the DRM file
 * @cmd: the ioctl command: its size and direction say what to copy, as
 *	 drm_ioctl() reads them
 * @uargs: the caller's struct
 * @fence: (out, or NULL) on success a reference on the out-fence, or
 *	   NULL when nothing had to be copied
 *
 * drm_ioctl_kernel() makes the checks drm_ioctl() makes (an unplugged
 * device, DRM_RENDER_ALLOW).
 *
 * Return: 0 or -errno; on any error nothing took effect.
 */
long mvgal_begin_user(struct file *filp, unsigned int cmd, void __user *uargs,
		      struct dma_fence **fence)
{
	struct mvgal_begin_call call = { .uargs = uargs, .fence = fence };
	u32 size = _IOC_SIZE(cmd);
	u32 in = cmd & IOC_IN ? min_t(u32, size, sizeof(call.args)) : 0;
	long ret;

	if (fence)
		*fence = NULL;

	call.user_size = cmd & IOC_OUT ? size : 0;
	call.out_size = min_t(u32, call.user_size, sizeof(call.args));
	/* As for every call with results: a struct that cannot be written
	 * fails before a job is queued, which no undo could take back.
	 */
	if (call.user_size && fault_in_safe_writeable(uargs, call.user_size))
		return -EFAULT;
	if (copy_from_user(&call.args, uargs, in))
		return -EFAULT;
	ret = drm_ioctl_kernel(filp, mvgal_ioctl_begin, &call,
			       DRM_RENDER_ALLOW);
	/* Signalled, or not when BEGIN failed: released either way. */
	mvgal_syncobj_out_put(&call.sync);
	return ret;
}

/* Reads END's written ranges into per-buffer bitmaps; NULL entries for
 * buffers with none. Every chunk must be one the session named.
 */
static int mvgal_end_read(struct drm_file *file, struct mvgal_session *s,
			  const struct drm_mvgal_end *args,
			  unsigned long **written)
{
	struct drm_mvgal_access *acc;
	struct mvgal_uarray ua;
	unsigned int i, j;
	int ret;

	ret = mvgal_uarray_init(&ua, args->written, args->count, args->stride,
				MVGAL_ACCESS_SIZE_V1, sizeof(*acc));
	if (ret)
		return ret;
	acc = mvgal_uarray_dup(&ua);
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

/*
 * END's arguments against the session: a READ session names nothing
 * written, a WRITE one no more buffers than it has. The GPU work's
 * fence, if any, into *@fence; with an out-syncobj, what it gets into
 * *@done: a fence for the session's copies and that work.
 */
static int mvgal_end_args(struct drm_file *file,
			  const struct drm_mvgal_end *args,
			  const struct mvgal_session *s,
			  const struct mvgal_syncobj_out *out,
			  struct dma_fence **fence, struct dma_fence **done)
{
	int ret;

	if ((!s->write && args->count) || args->count > s->count)
		return -EINVAL;
	ret = mvgal_in_fence(file, args->fence_fd, args->in_syncobj,
			     args->in_point, fence);
	if (ret || !out->syncobj)
		return ret;
	*done = mvgal_fence_both(s->copies, *fence);
	if (!IS_ERR(*done))
		return 0;
	ret = PTR_ERR(*done);
	*done = NULL;
	return ret;
}

/* The per-buffer bitmaps of what END says was written, into *@written. */
static int mvgal_end_written(struct drm_file *file, struct mvgal_session *s,
			     const struct drm_mvgal_end *args,
			     unsigned long ***written)
{
	*written = kcalloc(s->count, sizeof(**written), GFP_KERNEL_ACCOUNT);
	if (!*written)
		return -ENOMEM;
	return mvgal_end_read(file, s, args, *written);
}

static void mvgal_end_written_free(unsigned long **written, unsigned int n)
{
	unsigned int i;

	if (!written)
		return;
	for (i = 0; i < n; i++)
		bitmap_free(written[i]);
	kfree(written);
}

/*
 * Ends @s, off the file's list: only a fence to publish needs the
 * reservations. Caller holds mf->lock. Return: 0 with @s freed, or
 * -errno with nothing changed.
 */
static int mvgal_end_session(struct mvgal_file *mf, struct mvgal_session *s,
			     unsigned long **written, struct dma_fence *fence,
			     struct mvgal_commit **commits)
{
	struct drm_exec exec;
	int ret;

	if (fence) {
		ret = mvgal_session_lock(s, &exec, mvgal_fence_leaves(fence));
		if (ret)
			return ret;
	}
	list_del(&s->link);
	mf->count--;
	mvgal_session_finish(s, written, fence, commits);
	if (fence)
		drm_exec_fini(&exec);
	mvgal_session_free(s);
	return 0;
}

int mvgal_ioctl_end(struct drm_device *dev, void *data,
		    struct drm_file *file)
{
	struct mvgal_file *mf = file->driver_priv;
	struct drm_mvgal_end *args = data;
	struct dma_fence *fence = NULL, *done = NULL;
	struct mvgal_commit **commits = NULL;
	unsigned long **written = NULL;
	struct mvgal_syncobj_out out;
	struct mvgal_session *s;
	unsigned int n = 0;
	int ret;

	/* The stride is checked here too, though only read with @count:
	 * a bad one fails whether or not the array is used.
	 */
	if (args->flags || args->pad ||
	    mvgal_uarray_check_stride(args->stride, MVGAL_ACCESS_SIZE_V1) ||
	    mvgal_syncobj_check(args->in_syncobj, args->in_point,
				args->out_syncobj, args->out_point))
		return -EINVAL;
	ret = mvgal_syncobj_out_get(file, args->out_syncobj, args->out_point,
				    &out);
	if (ret)
		return ret;
	mutex_lock(&mf->lock);
	/* Held across the ioctl: a second END of the same session waits,
	 * then finds nothing.
	 */
	s = mvgal_session_find(mf, args->session);
	ret = s ? mvgal_end_args(file, args, s, &out, &fence, &done) : -ENOENT;
	if (ret)
		goto out_unlock;
	n = s->count;
	if (args->count) {
		ret = mvgal_end_written(file, s, args, &written);
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
	ret = mvgal_end_session(mf, s, written, fence, commits);
	if (!ret)
		mvgal_syncobj_out_signal(&out, done);
	if (!ret && fence)
		atomic64_inc(&to_mvgal(dev)->ctr.end_fences);
out_unlock:
	mutex_unlock(&mf->lock);
	mvgal_commits_free(commits, n);
	mvgal_end_written_free(written, n);
	dma_fence_put(fence);
	dma_fence_put(done);
	mvgal_syncobj_out_put(&out);
	return ret;
}

int mvgal_file_open(struct drm_device *dev, struct drm_file *file)
{
	struct mvgal_file *mf = kzalloc(sizeof(*mf), GFP_KERNEL_ACCOUNT);

	if (!mf)
		return -ENOMEM;
	kref_init(&mf->ref);
	mutex_init(&mf->lock);
	INIT_LIST_HEAD(&mf->sessions);
	spin_lock_init(&mf->userptr_lock);
	INIT_LIST_HEAD(&mf->userptrs);
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
