/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The migration engine: copies between locations run as jobs.
 */
#ifndef MVGAL_MOVE_JOB_H
#define MVGAL_MOVE_JOB_H

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

struct drm_file;
struct mvgal_bo;
struct mvgal_device;
struct mvgal_file;
struct seq_file;
struct sync_file;

/*
 * A job's insides are here, not private to mvgal_job.c, because CANCEL
 * (uapi/mvgal_job_ioctl.c) walks the engine's pending list itself.
 */
enum mvgal_job_state {
	MVGAL_JOB_WAITING,
	MVGAL_JOB_READY,
	MVGAL_JOB_RUNNING,
	MVGAL_JOB_DONE,
};

struct mvgal_copy_seg {
	struct mvgal_bo *bo;
	unsigned int dst, src, method;
	u64 off, len;
};

/*
 * A MOVE: chunks [first, last] of @bo leave every holder but @loc when the
 * job is marked; @prev keeps their holders of before, for a job that
 * fails or is cancelled.
 */
struct mvgal_move {
	struct mvgal_bo *bo;
	unsigned long first, last;
	unsigned int loc;
	u16 *prev;
};

/*
 * One user's part of the device's staging memory (mvgal_stage_reserve()):
 * @held bytes granted and not given back, @waiting writes waiting for
 * room. Under engine.staged_wq.lock; freed when both are 0.
 */
struct mvgal_stage_user {
	struct hlist_node node;		/* in engine.stage_users */
	kuid_t uid;
	u64 held;
	unsigned int waiting;
	bool passed;			/* in this grant pass */
};

/*
 * A staged write: @len bytes held in @buf, written at @off of @bo's home
 * once the job's copies (the rest of its partial chunks) are done. The
 * job holds mvgal_stage_charge(@len) bytes of the engine's staging
 * budget, @user's, until it ends.
 */
struct mvgal_job_write {
	struct mvgal_bo *bo;
	void *buf;
	u64 off, len;
	struct mvgal_stage_user *user;
};

/*
 * What a job waits for. @data: the job uses what the fence's work made
 * (a copy's destination, a writer's bytes, the caller's own in-fence), so
 * that work failing fails the job; otherwise it only comes after it (a
 * reader's work, which changes nothing), and a failure changes nothing.
 */
struct mvgal_job_dep {
	struct dma_fence *fence;
	bool data;
};

/*
 * The chunks [first, last] of @bo a job copies, moves or writes: fixed
 * once the job is published, and kept until its fence is freed, so that
 * later work on other chunks of the buffer need not wait for it.
 */
struct mvgal_job_span {
	const struct mvgal_bo *bo;	/* compared only, never used */
	unsigned long first, last;
};

struct mvgal_job {
	struct dma_fence base;
	spinlock_t fence_lock;		/* the fence's lock */
	struct mvgal_device *mdev;
	u64 id;
	unsigned int prio;
	bool armed;			/* @base is initialized */
	enum mvgal_job_state state;	/* under engine.lock */
	bool cancelled;			/* under engine.lock */
	/* Later work of another file uses what it copies: its file may
	 * not cancel it then. Under engine.lock.
	 */
	bool needed;
	/* Its run began: its copies or write may have changed bytes. */
	bool ran;
	int error;
	/* The allowance of the file that queued it, or NULL: that file
	 * alone may cancel it.
	 */
	struct mvgal_file *quota;
	struct list_head link;		/* on a ready list */
	struct list_head plink;		/* on engine.pending */
	struct work_struct dep_work;
	struct dma_fence_cb cb;
	struct mvgal_job_dep *deps;
	unsigned int ndeps, next_dep;
	struct mvgal_job_span *spans;	/* freed with the fence */
	unsigned int nspans;
	struct mvgal_copy_seg *segs;
	unsigned int nsegs;
	struct mvgal_bo **bos;
	unsigned int nbos;
	struct mvgal_move move;
	struct mvgal_job_write write;
	u64 bytes;
	/* A BEGIN's: its copies are the session's, no migration of the
	 * buffers' (struct mvgal_bo_stats).
	 */
	bool session;
};

struct mvgal_job *mvgal_job_alloc(struct mvgal_device *mdev,
				  unsigned int prio, struct drm_file *owner);
int mvgal_job_add_copy(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned int dst, unsigned int src, u64 off, u64 len,
		       unsigned int method);
int mvgal_job_set_move(struct mvgal_job *job, struct mvgal_bo *bo,
		       unsigned long first, unsigned long last,
		       unsigned int loc);
/*
 * What a staged write of @len bytes holds of the staging budget: at least
 * a page, so that many tiny writes cannot queue without bound.
 */
static inline u64 mvgal_stage_charge(u64 len)
{
	return max_t(u64, len, PAGE_SIZE);
}

int mvgal_job_set_write(struct mvgal_job *job, struct mvgal_bo *bo,
			u64 off, void *buf, u64 len,
			struct mvgal_stage_user *user);
int mvgal_stage_reserve(struct mvgal_device *mdev, u64 len,
			struct mvgal_stage_user **user);
void mvgal_stage_release(struct mvgal_device *mdev,
			 struct mvgal_stage_user *user, u64 len);
void mvgal_stage_show(struct mvgal_device *mdev, struct seq_file *m);
void mvgal_fence_boost(struct dma_fence *fence, unsigned int prio);
void mvgal_resv_boost(struct mvgal_bo *bo, enum dma_resv_usage usage);
int mvgal_job_add_dep(struct mvgal_job *job, struct dma_fence *fence);
struct mvgal_bo *mvgal_job_mirror(const struct mvgal_job *job);
int mvgal_job_commit_locked(struct mvgal_job *job);
int mvgal_job_commit(struct mvgal_job *job);
void mvgal_job_drop_write(struct mvgal_job *job);
bool mvgal_job_empty(const struct mvgal_job *job);
int mvgal_job_add_resv_deps(struct mvgal_job *job, struct mvgal_bo *bo,
			    bool write, unsigned long first,
			    unsigned long last);
int mvgal_fence_fd(struct dma_fence *fence, struct sync_file **sf);
void mvgal_fence_fd_drop(int fd, struct sync_file *sf);
u64 mvgal_job_bytes(const struct mvgal_job *job);
struct dma_fence *mvgal_job_fence(struct mvgal_job *job);
u64 mvgal_job_id(const struct mvgal_job *job);
void mvgal_job_abort(struct mvgal_job *job);
void mvgal_job_finish(struct mvgal_job *job, int error);
void mvgal_job_push(struct mvgal_job *job);
int mvgal_engine_init(struct mvgal_device *mdev);
void mvgal_engine_fini(struct mvgal_device *mdev);

#endif /* MVGAL_MOVE_JOB_H */
