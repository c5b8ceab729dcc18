// SPDX-License-Identifier: GPL-2.0
/*
 * MIGRATE, CANCEL and GET_STATS: jobs of the migration engine as user
 * space queues, cancels and counts them.
 */

#include <linux/dma-fence.h>
#include <linux/slab.h>

#include <drm/drm_file.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_range.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_params.h"
#include "bo/mvgal_bo.h"
#include "move/mvgal_job.h"
#include "move/mvgal_xact.h"
#include "uapi/mvgal_job_ioctl.h"
#include "uapi/mvgal_syncobj.h"

int mvgal_ioctl_cancel(struct drm_device *dev, void *data,
		       struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct mvgal_engine *e = &mdev->engine;
	struct drm_mvgal_cancel *args = data;
	struct mvgal_job *job = NULL, *j;
	bool finish = false, foreign = false;
	int ret = 0;

	if (args->flags || args->pad)
		return -EINVAL;
	spin_lock(&e->lock);
	list_for_each_entry(j, &e->pending, plink) {
		if (j->id != args->job)
			continue;
		/*
		 * Only the file that queued it. The job holds a reference
		 * on that file's allowance, so no file opened later can
		 * have the same driver_priv while the job lives.
		 */
		if (j->quota == file->driver_priv)
			job = j;
		else
			foreign = true;
		break;
	}
	if (!job) {
		/* A job that already started, or none at all. */
		ret = !foreign && args->job && args->job <= e->next_id ?
		      -EBUSY : -ENOENT;
		spin_unlock(&e->lock);
		return ret;
	}
	/* Another file's work waits for its copies: it runs for them. */
	if (job->needed) {
		spin_unlock(&e->lock);
		return -EBUSY;
	}
	list_del_init(&job->plink);
	job->cancelled = true;
	if (job->state == MVGAL_JOB_READY) {
		list_del_init(&job->link);
		/* Off every list for good: a boost must not put it back. */
		job->state = MVGAL_JOB_DONE;
		finish = true;
	} else if (job->next_dep < job->ndeps) {
		/* Still waiting: if the callback has not fired, nothing
		 * else will touch the job; if it has, the dependency work
		 * sees the flag and finishes it.
		 */
		finish = dma_fence_remove_callback(job->deps[job->next_dep].fence,
						   &job->cb);
	}
	spin_unlock(&e->lock);
	if (finish)
		mvgal_job_finish(job, -ECANCELED);
	return 0;
}

int mvgal_ioctl_get_stats(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct mvgal_counters *c = &mdev->ctr;
	struct drm_mvgal_stats *args = data;
	unsigned int i;

	if (args->flags || args->pad)
		return -EINVAL;
	args->scheduled = atomic64_read(&c->scheduled);
	args->completed = atomic64_read(&c->completed);
	args->failed = atomic64_read(&c->failed);
	args->cancelled = atomic64_read(&c->cancelled);
	args->queue_depth = atomic64_read(&c->depth);
	for (i = 0; i < MVGAL_PRIO_COUNT; i++)
		args->jobs[i] = atomic64_read(&c->jobs[i]);
	args->pad2 = 0;
	for (i = 0; i < MVGAL_METHOD_COUNT; i++) {
		args->bytes[i] = atomic64_read(&c->bytes[i]);
		args->copies[i] = atomic64_read(&c->copies[i]);
	}
	args->sessions = atomic64_read(&c->sessions);
	args->busy = atomic64_read(&c->busy);
	args->cpu_faults = atomic64_read(&c->cpu_faults);
	args->drained = atomic64_read(&c->drained);
	args->prefetch_issued = atomic64_read(&c->prefetch_issued);
	args->prefetch_hits = atomic64_read(&c->prefetch_hits);
	args->prefetch_misses = atomic64_read(&c->prefetch_misses);
	args->prefetch_cancelled = atomic64_read(&c->prefetch_cancelled);
	args->numa_moved = atomic64_read(&c->numa_moved);
	args->staged_writes = atomic64_read(&c->staged_writes);
	args->exec_bytes = atomic64_read(&c->bytes[MVGAL_METHOD_EXEC]);
	args->exec_copies = atomic64_read(&c->copies[MVGAL_METHOD_EXEC]);
	args->exec_fallbacks = atomic64_read(&mdev->exec.fallbacks);
	args->exec_timeouts = atomic64_read(&mdev->exec.timeouts);
	args->end_fences = atomic64_read(&c->end_fences);
	return 0;
}

static int mvgal_migrate_check(const struct drm_mvgal_migrate *args)
{
	if (args->flags & ~MVGAL_MIGRATE_FLAGS || !args->size ||
	    args->location >= 1 + mvgal_max_gpus ||
	    args->priority >= MVGAL_PRIO_COUNT)
		return -EINVAL;
	return mvgal_syncobj_check(args->in_syncobj, args->in_point,
				   args->out_syncobj, args->out_point);
}

/*
 * Looks MIGRATE's buffer up and checks the range and the location for
 * it. Return: the buffer (a reference) or NULL with *@err set.
 */
static struct mvgal_bo *
mvgal_migrate_lookup(struct drm_file *file,
		     const struct drm_mvgal_migrate *args, int *err)
{
	bool move = args->flags & MVGAL_MIGRATE_MOVE;
	struct mvgal_bo *bo;

	/* A MOVE writes the chunks back to the home copy one day. */
	bo = mvgal_bo_lookup_access(file, args->handle, move, err);
	if (!bo)
		return NULL;
	if (!mvgal_range_ok(args->offset, args->size, bo->size) ||
	    (args->location == MVGAL_LOC_HOST && mvgal_bo_device_only(bo))) {
		*err = -EINVAL;
		goto out_put;
	}
	if (args->location != MVGAL_LOC_HOST) {
		*err = mvgal_bo_gpu_may_use(bo, args->location - 1);
		if (*err)
			goto out_put;
	}
	return bo;

out_put:
	drm_gem_object_put(&bo->base);
	return NULL;
}

/* MIGRATE's in-fence and out-syncobj, looked up before anything runs. */
static int mvgal_migrate_fences(struct drm_file *file,
				const struct drm_mvgal_migrate *args,
				struct mvgal_migration *m,
				struct mvgal_syncobj_out *out)
{
	int ret;

	ret = mvgal_in_fence(file, args->in_fence_fd, args->in_syncobj,
			     args->in_point, &m->in_fence);
	if (ret)
		return ret;
	ret = mvgal_syncobj_out_get(file, args->out_syncobj, args->out_point,
				    out);
	if (ret) {
		dma_fence_put(m->in_fence);
		m->in_fence = NULL;
	}
	return ret;
}

/* MIGRATE; with @fence, a reference on the job's fence (NULL: no job). */
static int mvgal_migrate_args(struct drm_device *dev,
			      struct drm_mvgal_migrate *args,
			      struct drm_file *file, struct dma_fence **fence)
{
	struct dma_fence *job_fence = NULL;
	struct mvgal_migration m = {
		.loc = args->location,
		.move = args->flags & MVGAL_MIGRATE_MOVE,
		.priority = args->priority,
		.fence = &job_fence,
	};
	struct mvgal_syncobj_out out;
	int ret;

	ret = mvgal_migrate_check(args);
	if (ret)
		return ret;
	if (!READ_ONCE(mvgal_enable_memory_migration))
		return -EPERM;
	m.bo = mvgal_migrate_lookup(file, args, &ret);
	if (!m.bo)
		return ret;
	ret = mvgal_migrate_fences(file, args, &m, &out);
	if (ret)
		goto out_put;
	mvgal_chunk_span(args->offset, args->size, m.bo->chunk_shift,
			 &m.first, &m.last);
	ret = mvgal_migrate(to_mvgal(dev), &m, file);
	if (!ret) {
		args->bytes = m.bytes;
		args->out_fence_fd = m.fd;
		args->job = m.job;
		mvgal_syncobj_out_signal(&out, job_fence);
	}
	mvgal_syncobj_out_put(&out);
	dma_fence_put(m.in_fence);
	if (fence)
		*fence = job_fence;
	else
		dma_fence_put(job_fence);
out_put:
	drm_gem_object_put(&m.bo->base);
	return ret;
}

int mvgal_ioctl_migrate(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	return mvgal_migrate_args(dev, data, file, NULL);
}

/* The io_uring form: @data is a struct mvgal_migrate_call. */
int mvgal_ioctl_migrate_fenced(struct drm_device *dev, void *data,
			       struct drm_file *file)
{
	struct mvgal_migrate_call *call = data;

	return mvgal_migrate_args(dev, &call->args, file, &call->fence);
}
