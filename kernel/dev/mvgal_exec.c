// SPDX-License-Identifier: GPL-2.0
/*
 * Copy executors (see "copy executors" in <drm/mvgal_drm.h>): a process
 * registered for one GPU takes copies between that GPU's pool and host
 * pages and makes them with the GPU's own copy engine, through its
 * userspace driver, which is the only way a module reaches those engines.
 *
 * Each copy is a job the copier queues and waits for, in its own context
 * (the migration worker or a CPU access), as it waits for a DMA engine.
 * The executor takes it with an fd of a dma-buf made of exactly the
 * job's host pages, and reports it done with a fence. When the wait ends,
 * however it ends, that dma-buf is revoked: its CPU mappings go and no
 * new one or attachment is made, so the executor keeps no way to the
 * pages past the job (mvgal moves and frees a buffer's host pages).
 * The pages themselves stay referenced until the dma-buf is released,
 * so that a GPU that still holds an attachment writes pages nobody else
 * was given.
 *
 * A job ends in one of five ways: done (and its fence signalled without
 * error); failed (reported, or an error on the fence); not taken before
 * its executor went (unregistered, its file closed, its GPU gone);
 * lost (taken, then the executor went without reporting it); or timed
 * out (exec_timeout_ms, which unregisters the executor). The first three
 * leave nothing in flight, so the caller may make the copy itself. The
 * last two may: the executor's GPU may still be copying, which nothing
 * here can stop, so the copy fails rather than race it.
 */

#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pfn_t.h>
#include <linux/sched.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/wait.h>

#include <drm/drm_file.h>

#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_params.h"

/* The host pages of one job, as a dma-buf. */
struct mvgal_exec_buf {
	/* Orders faults and maps against the revocation. */
	struct mutex lock;
	bool revoked;
	unsigned long npages;
	struct page *pages[];
};

struct mvgal_exec_job {
	/* On its executor's queued or taken list; under execs.lock. */
	struct list_head link;
	struct kref ref;
	u64 id;
	u32 dir;
	u64 host_off;
	u64 pool_off;
	u64 len;
	struct dma_buf *dmabuf;
	struct completion done;
	/* Set before @done: how it ended, or the fence to wait for. */
	int status;
	bool not_taken;
	bool lost;
	struct dma_fence *fence;
	/* On the list of jobs an ending executor settles; its alone. */
	struct list_head gone;
};

/* The event of mvgal_exec_notify(); DRM frees it once read. */
struct mvgal_exec_event {
	struct drm_pending_event base;
	struct drm_mvgal_event_exec ev;
};

struct mvgal_exec {
	struct kref ref;
	struct drm_file *file;
	unsigned int gpu;
	u64 id;				/* of the registration, from 1 */
	pid_t tgid;
	/* Unregistered; under execs.lock, as the lists. */
	bool gone;
	struct list_head queued;
	struct list_head taken;
	wait_queue_head_t wq;
	u64 next_id;
};

static vm_fault_t mvgal_exec_buf_fault(struct vm_fault *vmf)
{
	struct mvgal_exec_buf *b = vmf->vma->vm_private_data;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	mutex_lock(&b->lock);
	if (!b->revoked && vmf->pgoff < b->npages)
		ret = vmf_insert_mixed(vmf->vma, vmf->address,
				       page_to_pfn_t(b->pages[vmf->pgoff]));
	mutex_unlock(&b->lock);
	return ret;
}

static const struct vm_operations_struct mvgal_exec_buf_vm_ops = {
	.fault = mvgal_exec_buf_fault,
};

static int mvgal_exec_buf_mmap(struct dma_buf *dmabuf,
			       struct vm_area_struct *vma)
{
	struct mvgal_exec_buf *b = dmabuf->priv;

	if (READ_ONCE(b->revoked))
		return -ENODEV;
	vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &mvgal_exec_buf_vm_ops;
	vma->vm_private_data = b;
	return 0;
}

static struct sg_table *mvgal_exec_buf_map(struct dma_buf_attachment *a,
					   enum dma_data_direction dir)
{
	struct mvgal_exec_buf *b = a->dmabuf->priv;
	struct sg_table *sgt;
	int ret = -ENODEV;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL_ACCOUNT);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&b->lock);
	if (b->revoked)
		goto err_free;
	ret = sg_alloc_table_from_pages(sgt, b->pages, b->npages, 0,
					(u64)b->npages << PAGE_SHIFT,
					GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_free;
	ret = dma_map_sgtable(a->dev, sgt, dir, 0);
	if (ret)
		goto err_table;
	mutex_unlock(&b->lock);
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	mutex_unlock(&b->lock);
	kfree(sgt);
	return ERR_PTR(ret);
}

static void mvgal_exec_buf_unmap(struct dma_buf_attachment *a,
				 struct sg_table *sgt,
				 enum dma_data_direction dir)
{
	dma_unmap_sgtable(a->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void mvgal_exec_buf_free(struct mvgal_exec_buf *b)
{
	unsigned long i;

	for (i = 0; i < b->npages; i++)
		put_page(b->pages[i]);
	mutex_destroy(&b->lock);
	kvfree(b);
}

static void mvgal_exec_buf_release(struct dma_buf *dmabuf)
{
	mvgal_exec_buf_free(dmabuf->priv);
}

static const struct dma_buf_ops mvgal_exec_buf_ops = {
	.map_dma_buf = mvgal_exec_buf_map,
	.unmap_dma_buf = mvgal_exec_buf_unmap,
	.mmap = mvgal_exec_buf_mmap,
	.release = mvgal_exec_buf_release,
};

static struct dma_buf *mvgal_exec_buf_new(const struct mvgal_exec_host *h)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct mvgal_exec_buf *b;
	struct dma_buf *dmabuf;
	unsigned long i;

	b = kvzalloc(struct_size(b, pages, h->npages), GFP_KERNEL_ACCOUNT);
	if (!b)
		return ERR_PTR(-ENOMEM);
	mutex_init(&b->lock);
	b->npages = h->npages;
	for (i = 0; i < h->npages; i++) {
		b->pages[i] = h->pages[i];
		get_page(b->pages[i]);
	}
	info.ops = &mvgal_exec_buf_ops;
	info.size = (size_t)h->npages << PAGE_SHIFT;
	info.flags = O_RDWR;
	info.priv = b;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf))
		mvgal_exec_buf_free(b);
	return dmabuf;
}

/* No mapping of the job's pages is left, and no new one can be made. */
static void mvgal_exec_buf_revoke(struct dma_buf *dmabuf)
{
	struct mvgal_exec_buf *b = dmabuf->priv;

	mutex_lock(&b->lock);
	b->revoked = true;
	mutex_unlock(&b->lock);
	unmap_mapping_range(dmabuf->file->f_mapping, 0, 0, 1);
}

static void mvgal_exec_job_release(struct kref *ref)
{
	struct mvgal_exec_job *j = container_of(ref, struct mvgal_exec_job,
						ref);

	if (j->fence)
		dma_fence_put(j->fence);
	dma_buf_put(j->dmabuf);
	kfree(j);
}

static void mvgal_exec_job_put(struct mvgal_exec_job *j)
{
	kref_put(&j->ref, mvgal_exec_job_release);
}

static void mvgal_exec_release(struct kref *ref)
{
	kfree(container_of(ref, struct mvgal_exec, ref));
}

static void mvgal_exec_put(struct mvgal_exec *e)
{
	kref_put(&e->ref, mvgal_exec_release);
}

void mvgal_exec_init(struct mvgal_device *mdev)
{
	spin_lock_init(&mdev->exec.lock);
}

/* Ends @j under execs.lock, its list reference handed to @gone. */
static void mvgal_exec_job_end(struct mvgal_exec_job *j, bool taken,
			       struct list_head *gone)
{
	list_del_init(&j->link);
	j->not_taken = !taken;
	j->lost = taken;
	complete(&j->done);
	list_add_tail(&j->gone, gone);
}

/*
 * Unregisters @e (execs.lock held). Its jobs not reported yet end here,
 * under the lock, so that a copier timing out meanwhile finds them off
 * their lists and leaves their list references alone: those go to
 * @gone, for mvgal_exec_orphan() once the lock is dropped. Returns
 * whether there were any.
 */
static bool mvgal_exec_end_locked(struct mvgal_execs *x, struct mvgal_exec *e,
				  struct list_head *gone)
{
	struct mvgal_exec_job *j, *tmp;
	bool had = false;

	lockdep_assert_held(&x->lock);
	e->gone = true;
	x->by_gpu[e->gpu] = NULL;
	list_for_each_entry_safe(j, tmp, &e->queued, link) {
		mvgal_exec_job_end(j, false, gone);
		had = true;
	}
	list_for_each_entry_safe(j, tmp, &e->taken, link) {
		mvgal_exec_job_end(j, true, gone);
		had = true;
	}
	return had;
}

/* After mvgal_exec_end_locked(): the references it handed over go. */
static void mvgal_exec_orphan(struct mvgal_exec *e, struct list_head *gone)
{
	struct mvgal_exec_job *j, *tmp;

	list_for_each_entry_safe(j, tmp, gone, gone) {
		list_del(&j->gone);
		mvgal_exec_job_put(j);
	}
	wake_up_all(&e->wq);
	mvgal_exec_put(e);		/* the registration's */
}

/*
 * Unregisters GPU @gpu's executor if @file is it (any file if NULL), and
 * if @id is its registration (any if 0).
 */
static int mvgal_exec_end(struct mvgal_device *mdev, struct drm_file *file,
			  unsigned int gpu, u64 id, atomic64_t *ctr)
{
	struct mvgal_execs *x = &mdev->exec;
	struct mvgal_exec *e;
	LIST_HEAD(orphans);
	bool had;

	spin_lock(&x->lock);
	e = x->by_gpu[gpu];
	if (!e || (file && e->file != file) || (id && e->id != id)) {
		spin_unlock(&x->lock);
		return -ENOENT;
	}
	had = mvgal_exec_end_locked(x, e, &orphans);
	spin_unlock(&x->lock);
	if (had && ctr)
		atomic64_inc(ctr);
	mvgal_exec_orphan(e, &orphans);
	return 0;
}

/**
 * mvgal_exec_register() - make @file the copy executor of GPU @gpu
 * @mdev: the device
 * @file: the executor's file
 * @gpu: a GPU slot the caller found attached and not detaching
 *
 * Return: 0, -EBUSY (@gpu has an executor), -ENOMEM.
 */
int mvgal_exec_register(struct mvgal_device *mdev, struct drm_file *file,
			unsigned int gpu)
{
	struct mvgal_execs *x = &mdev->exec;
	struct mvgal_exec *e;

	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	kref_init(&e->ref);
	e->file = file;
	e->gpu = gpu;
	e->tgid = task_tgid_nr(current);
	INIT_LIST_HEAD(&e->queued);
	INIT_LIST_HEAD(&e->taken);
	init_waitqueue_head(&e->wq);
	spin_lock(&x->lock);
	if (x->by_gpu[gpu]) {
		spin_unlock(&x->lock);
		kfree(e);
		return -EBUSY;
	}
	e->id = ++x->next_id;
	x->by_gpu[gpu] = e;
	spin_unlock(&x->lock);
	return 0;
}

/* Return: 0, or -ENOENT when @file is not GPU @gpu's executor. */
int mvgal_exec_unregister(struct mvgal_device *mdev, struct drm_file *file,
			  unsigned int gpu)
{
	return mvgal_exec_end(mdev, file, gpu, 0, NULL);
}

/* @file closes: its registrations end, copies outstanding counted. */
void mvgal_exec_file_close(struct mvgal_device *mdev, struct drm_file *file)
{
	unsigned int i;

	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		mvgal_exec_end(mdev, file, i, 0, &mdev->exec.gone);
}

/* GPU @gpu goes: so does its executor. */
void mvgal_exec_gpu_gone(struct mvgal_device *mdev, unsigned int gpu)
{
	mvgal_exec_end(mdev, NULL, gpu, 0, NULL);
}

/**
 * mvgal_exec_redo() - a copy an executor made is made again by the CPU
 * @mdev: the device
 * @gpu: the executor's GPU
 * @id: the registration that made it
 * @wrong: its bytes came out wrong: that registration copies no more
 */
void mvgal_exec_redo(struct mvgal_device *mdev, unsigned int gpu, u64 id,
		     bool wrong)
{
	atomic64_inc(&mdev->exec.fallbacks);
	if (!wrong)
		return;
	atomic64_inc(&mdev->exec.wrong);
	mvgal_exec_end(mdev, NULL, gpu, id, NULL);
}

/* Registration @id of GPU @gpu's executor copied wrong: it ends. */
void mvgal_exec_distrust(struct mvgal_device *mdev, unsigned int gpu, u64 id)
{
	atomic64_inc(&mdev->exec.wrong);
	mvgal_exec_end(mdev, NULL, gpu, id, NULL);
}

/* GPU @gpu's executor's registration (never 0), or 0: none. */
u64 mvgal_exec_id(struct mvgal_device *mdev, unsigned int gpu)
{
	u64 id = 0;

	spin_lock(&mdev->exec.lock);
	if (gpu < MVGAL_MAX_GPUS && mdev->exec.by_gpu[gpu])
		id = mdev->exec.by_gpu[gpu]->id;
	spin_unlock(&mdev->exec.lock);
	return id;
}

/* @file's registration for @gpu, referenced; NULL if it has none. */
static struct mvgal_exec *mvgal_exec_get_mine(struct mvgal_execs *x,
					      struct drm_file *file,
					      unsigned int gpu)
{
	struct mvgal_exec *e;

	spin_lock(&x->lock);
	e = x->by_gpu[gpu];
	if (e && e->file == file)
		kref_get(&e->ref);
	else
		e = NULL;
	spin_unlock(&x->lock);
	return e;
}

/* The next queued job, moved to the taken list and referenced. */
static struct mvgal_exec_job *mvgal_exec_next(struct mvgal_execs *x,
					      struct mvgal_exec *e, int *err)
{
	struct mvgal_exec_job *j = NULL;

	spin_lock(&x->lock);
	if (e->gone) {
		*err = -ENODEV;
	} else if (!list_empty(&e->queued)) {
		j = list_first_entry(&e->queued, struct mvgal_exec_job, link);
		list_move_tail(&j->link, &e->taken);
		kref_get(&j->ref);
	}
	spin_unlock(&x->lock);
	return j;
}

static bool mvgal_exec_wakes(struct mvgal_execs *x, struct mvgal_exec *e)
{
	bool ret;

	spin_lock(&x->lock);
	ret = e->gone || !list_empty(&e->queued);
	spin_unlock(&x->lock);
	return ret;
}

static struct mvgal_exec_job *mvgal_exec_wait_job(struct mvgal_execs *x,
						  struct mvgal_exec *e,
						  bool block, int *err)
{
	struct mvgal_exec_job *j;

	for (;;) {
		*err = 0;
		j = mvgal_exec_next(x, e, err);
		if (j || *err)
			return j;
		if (!block) {
			*err = -EAGAIN;
			return NULL;
		}
		if (wait_event_interruptible(e->wq, mvgal_exec_wakes(x, e))) {
			*err = -EINTR;
			return NULL;
		}
	}
}

/* An fd could not be made: the job goes back to the head of the queue. */
static void mvgal_exec_requeue(struct mvgal_execs *x, struct mvgal_exec *e,
			       struct mvgal_exec_job *j)
{
	spin_lock(&x->lock);
	if (!e->gone && !list_empty(&j->link))
		list_move(&j->link, &e->queued);
	spin_unlock(&x->lock);
}

/**
 * mvgal_exec_take() - hand GPU @args->gpu's executor its next copy
 * @mdev: the device
 * @file: the caller's file
 * @args: the ioctl's arguments, checked but for the executor
 *
 * Return: 0, -EPERM, -EAGAIN, -ENODEV, -EINTR, or dma_buf_fd()'s error.
 */
int mvgal_exec_take(struct mvgal_device *mdev, struct drm_file *file,
		    struct drm_mvgal_exec_take *args)
{
	struct mvgal_execs *x = &mdev->exec;
	struct mvgal_exec_job *j;
	struct mvgal_exec *e;
	int fd, err;

	e = mvgal_exec_get_mine(x, file, args->gpu);
	if (!e)
		return -EPERM;
	j = mvgal_exec_wait_job(x, e,
				!(args->flags & MVGAL_EXEC_TAKE_NONBLOCK), &err);
	if (!j)
		goto out;
	get_dma_buf(j->dmabuf);
	fd = dma_buf_fd(j->dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(j->dmabuf);
		mvgal_exec_requeue(x, e, j);
		err = fd;
		goto out_job;
	}
	args->job = j->id;
	args->dir = j->dir;
	args->host_fd = fd;
	args->host_offset = j->host_off;
	args->pool_offset = j->pool_off;
	args->length = j->len;
out_job:
	mvgal_exec_job_put(j);
out:
	mvgal_exec_put(e);
	return err;
}

static struct mvgal_exec_job *mvgal_exec_find(struct mvgal_exec *e, u64 id)
{
	struct mvgal_exec_job *j;

	list_for_each_entry(j, &e->taken, link)
		if (j->id == id)
			return j;
	return NULL;
}

/**
 * mvgal_exec_done() - GPU @args->gpu's executor reports a copy
 * @mdev: the device
 * @file: the caller's file
 * @args: the ioctl's arguments, checked but for the executor, the job
 *	  and the fence
 *
 * Return: 0, -EPERM, -ENOENT, -EINVAL (a fence fd that is no sync_file).
 */
int mvgal_exec_done(struct mvgal_device *mdev, struct drm_file *file,
		    const struct drm_mvgal_exec_done *args)
{
	struct mvgal_execs *x = &mdev->exec;
	struct dma_fence *fence = NULL;
	struct mvgal_exec_job *j;
	struct mvgal_exec *e;
	int ret = 0;

	if (args->fence_fd != -1) {
		fence = sync_file_get_fence(args->fence_fd);
		if (!fence)
			return -EINVAL;
	}
	spin_lock(&x->lock);
	e = x->by_gpu[args->gpu];
	j = e && e->file == file ? mvgal_exec_find(e, args->job) : NULL;
	if (j) {
		list_del_init(&j->link);
		j->status = args->status;
		j->fence = fence;
		fence = NULL;
		complete(&j->done);
	} else {
		ret = e && e->file == file ? -ENOENT : -EPERM;
	}
	spin_unlock(&x->lock);
	if (j)
		mvgal_exec_job_put(j);	/* the list's */
	if (fence)
		dma_fence_put(fence);
	return ret;
}

static struct mvgal_exec_job *
mvgal_exec_job_new(const struct mvgal_exec_host *host, u32 dir, u64 pool_off,
		   u64 len)
{
	struct mvgal_exec_job *j;

	j = kzalloc(sizeof(*j), GFP_KERNEL_ACCOUNT);
	if (!j)
		return NULL;
	j->dmabuf = mvgal_exec_buf_new(host);
	if (IS_ERR(j->dmabuf)) {
		kfree(j);
		return NULL;
	}
	kref_init(&j->ref);
	INIT_LIST_HEAD(&j->link);
	init_completion(&j->done);
	j->dir = dir;
	j->host_off = host->off;
	j->pool_off = pool_off;
	j->len = len;
	return j;
}

/* Queues @j on GPU @gpu's executor; returns it referenced, or NULL. */
/* A DRM event on @e's file: copies are there (execs.lock held). */
static int mvgal_exec_notify(struct mvgal_device *mdev, struct mvgal_exec *e,
			     struct mvgal_exec_event *ev)
{
	int ret;

	ev->ev.base.type = MVGAL_EVENT_EXEC_WORK;
	ev->ev.base.length = sizeof(ev->ev);
	ev->ev.gpu = e->gpu;
	ret = drm_event_reserve_init(&mdev->drm, e->file, &ev->base,
				     &ev->ev.base);
	if (!ret)
		drm_send_event(&mdev->drm, &ev->base);
	return ret;
}

static struct mvgal_exec *mvgal_exec_queue(struct mvgal_device *mdev,
					   unsigned int gpu,
					   struct mvgal_exec_job *j)
{
	struct mvgal_execs *x = &mdev->exec;
	struct mvgal_exec_event *ev;
	struct mvgal_exec *e;

	/* Made before the lock, used only by the first of a run of copies. */
	ev = kzalloc(sizeof(*ev), GFP_KERNEL_ACCOUNT);
	spin_lock(&x->lock);
	e = x->by_gpu[gpu];
	if (e) {
		kref_get(&e->ref);
		j->id = ++e->next_id;
		if (list_empty(&e->queued) && ev &&
		    !mvgal_exec_notify(mdev, e, ev))
			ev = NULL;
		kref_get(&j->ref);	/* the list's */
		list_add_tail(&j->link, &e->queued);
	}
	spin_unlock(&x->lock);
	kfree(ev);
	if (e)
		wake_up(&e->wq);
	return e;
}

/*
 * Past the deadline: the job leaves its list, and its executor, whose GPU
 * may still be copying, is unregistered.
 */
static int mvgal_exec_timed_out(struct mvgal_execs *x, struct mvgal_exec *e,
				struct mvgal_exec_job *j)
{
	bool queued = false, end = false;
	LIST_HEAD(orphans);

	/* Who unlinks @j under the lock owns its list reference. */
	spin_lock(&x->lock);
	if (!list_empty(&j->link)) {
		list_del_init(&j->link);
		queued = true;
	}
	if (!e->gone) {
		mvgal_exec_end_locked(x, e, &orphans);
		end = true;
	}
	spin_unlock(&x->lock);
	if (queued)
		mvgal_exec_job_put(j);
	if (end)
		mvgal_exec_orphan(e, &orphans);
	atomic64_inc(&x->timeouts);
	return -ETIMEDOUT;
}

/* 0 when @j's copy is complete, -ENODEV when it ended without it. */
static int mvgal_exec_wait(struct mvgal_execs *x, struct mvgal_exec *e,
			   struct mvgal_exec_job *j)
{
	unsigned long left = msecs_to_jiffies(READ_ONCE(mvgal_exec_timeout_ms));
	long r;

	left = wait_for_completion_timeout(&j->done, left);
	if (!left)
		return mvgal_exec_timed_out(x, e, j);
	if (j->not_taken)
		return -ENODEV;		/* nothing in flight */
	if (j->lost)
		return -EIO;		/* its GPU may be copying still */
	if (j->status)
		goto failed;
	if (!j->fence)
		return 0;
	r = dma_fence_wait_timeout(j->fence, false, left);
	if (!r)
		return mvgal_exec_timed_out(x, e, j);
	if (r > 0 && dma_fence_get_status(j->fence) == 1)
		return 0;
failed:
	atomic64_inc(&x->errors);
	return -ENODEV;
}

/**
 * mvgal_exec_copy() - have GPU @gpu's executor copy @len bytes
 * @mdev: the device
 * @gpu: the GPU whose pool is one side
 * @dir: MVGAL_EXEC_TO_POOL or MVGAL_EXEC_FROM_POOL
 * @host: the host pages of the copy
 * @pool_off: the copy's first byte in the pool
 * @len: bytes
 *
 * Waits (uninterruptibly, up to exec_timeout_ms) for the copy and the
 * GPU work behind it. The executor must not be the caller's own thread.
 *
 * @id: (out) the registration it went to, 0 if none
 *
 * Return: 0; -ENODEV when no copy was made and none is in flight (no
 * executor, it went before taking it, it failed the copy, no memory to
 * hand it over): the caller makes it; -EIO when the executor went with
 * the copy taken, and -ETIMEDOUT (the executor unregistered): its GPU
 * may still be copying, and the copy fails.
 */
int mvgal_exec_copy(struct mvgal_device *mdev, unsigned int gpu, u32 dir,
		    const struct mvgal_exec_host *host, u64 pool_off, u64 len,
		    u64 *id)
{
	struct mvgal_execs *x = &mdev->exec;
	struct mvgal_exec_job *j;
	struct mvgal_exec *e;
	int ret;

	j = mvgal_exec_job_new(host, dir, pool_off, len);
	if (!j)
		return -ENODEV;
	*id = 0;
	e = mvgal_exec_queue(mdev, gpu, j);
	if (!e) {
		mvgal_exec_job_put(j);
		return -ENODEV;
	}
	*id = e->id;
	ret = mvgal_exec_wait(x, e, j);
	mvgal_exec_buf_revoke(j->dmabuf);
	if (ret == -ENODEV)
		atomic64_inc(&x->fallbacks);
	else if (!ret)
		atomic64_inc(&x->copies);
	mvgal_exec_put(e);
	mvgal_exec_job_put(j);
	return ret;
}

void mvgal_exec_show(struct seq_file *m, struct mvgal_device *mdev)
{
	struct mvgal_execs *x = &mdev->exec;
	unsigned int i, queued, taken;
	struct mvgal_exec_job *j;
	struct mvgal_exec *e;

	seq_printf(m, "copies %lld fallbacks %lld timeouts %lld errors %lld wrong %lld gone %lld\n",
		   atomic64_read(&x->copies), atomic64_read(&x->fallbacks),
		   atomic64_read(&x->timeouts), atomic64_read(&x->errors),
		   atomic64_read(&x->wrong), atomic64_read(&x->gone));
	spin_lock(&x->lock);
	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		e = x->by_gpu[i];
		if (!e)
			continue;
		queued = 0;
		taken = 0;
		list_for_each_entry(j, &e->queued, link)
			queued++;
		list_for_each_entry(j, &e->taken, link)
			taken++;
		seq_printf(m, "gpu %u pid %d queued %u taken %u\n", i, e->tgid,
			   queued, taken);
	}
	spin_unlock(&x->lock);
}
