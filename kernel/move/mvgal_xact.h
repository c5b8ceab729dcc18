/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locking a buffer for planning copies: its reservation, a fence slot and its
 * lock, with the CPU's pending writes taken in; and MIGRATE, the plain copy
 * made that way.
 */
#ifndef MVGAL_MOVE_XACT_H
#define MVGAL_MOVE_XACT_H

#include <linux/types.h>

struct dma_fence;
struct drm_file;
struct mvgal_bo;
struct mvgal_device;

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
};

int mvgal_bo_lock_copies(struct mvgal_bo *bo);
void mvgal_bo_unlock_copies(struct mvgal_bo *bo);
int mvgal_migrate(struct mvgal_device *mdev, struct mvgal_migration *m,
		  struct drm_file *file);

#endif /* MVGAL_MOVE_XACT_H */
