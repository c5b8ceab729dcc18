/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copy transactions: the copies of one buffer planned under its locks and
 * published together, or none of them; and MIGRATE, the plain one.
 */
#ifndef MVGAL_MOVE_XACT_H
#define MVGAL_MOVE_XACT_H

#include <linux/types.h>

#include <drm/mvgal_drm.h>

struct dma_fence;
struct drm_file;
struct mvgal_bo;
struct mvgal_device;
struct mvgal_gpu;
struct mvgal_job;

/**
 * struct mvgal_xact - a copy transaction on one buffer
 * @mdev: the device
 * @bo: the buffer (a reference the caller holds)
 * @job: the job its copies go into, until committed or aborted
 * @gpu: the GPUs named at begin, each usable (attached, not unplugged)
 * @made: the placements this transaction made, which an abort takes away
 * @bytes: (out of commit) what the job copies
 * @id: (out of commit) the job's id, or 0 when it had nothing to copy
 */
struct mvgal_xact {
	struct mvgal_device *mdev;
	struct mvgal_bo *bo;
	struct mvgal_job *job;
	struct mvgal_gpu *gpu[MVGAL_MAX_GPUS];
	u32 made;
	u64 bytes;
	u64 id;
};

int mvgal_xact_begin(struct mvgal_xact *x, struct mvgal_device *mdev,
		     struct mvgal_bo *bo, u32 gpus, u32 prio,
		     struct drm_file *file);
int mvgal_xact_wait(struct mvgal_xact *x, struct dma_fence *fence,
		    bool write, unsigned long first, unsigned long last);
int mvgal_xact_place(struct mvgal_xact *x, unsigned int g, u64 ahead);
int mvgal_xact_plan(struct mvgal_xact *x, unsigned long first,
		    unsigned long last, unsigned int loc);
int mvgal_xact_move(struct mvgal_xact *x, unsigned long first,
		    unsigned long last, unsigned int loc);
bool mvgal_xact_empty(const struct mvgal_xact *x);
int mvgal_xact_commit(struct mvgal_xact *x, int *fd,
		      struct dma_fence **fence);
void mvgal_xact_end(struct mvgal_xact *x);
void mvgal_xact_abort(struct mvgal_xact *x);

int mvgal_bo_lock_copies(struct mvgal_bo *bo);
void mvgal_bo_unlock_copies(struct mvgal_bo *bo);

/* A MIGRATE: what is to be current where, and what it handed back. */
struct mvgal_migration {
	struct mvgal_bo *bo;
	unsigned long first, last;	/* the chunks */
	unsigned int loc;
	bool move;			/* take the other copies away */
	u32 priority;
	struct dma_fence *in_fence;	/* or NULL */
	u64 bytes;			/* (out) what the job copies */
	u64 job;			/* (out) its id, or 0 */
	int fd;				/* (out) its fence's fd, or -1 */
	/* (in) where to put a reference on its fence (NULL: none), or NULL */
	struct dma_fence **fence;
};

int mvgal_migrate(struct mvgal_device *mdev, struct mvgal_migration *m,
		  struct drm_file *file);

#endif /* MVGAL_MOVE_XACT_H */
