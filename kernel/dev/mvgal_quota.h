/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The allowance of an open file: jobs it has queued and bytes of buffer
 * metadata it holds, against max_file_jobs and max_file_meta_mb.
 */
#ifndef MVGAL_DEV_QUOTA_H
#define MVGAL_DEV_QUOTA_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct drm_file;
struct kref;

/*
 * Per open file: its live sessions, its settings, and what it has queued
 * or holds against its allowance (max_file_jobs, max_file_meta_mb).
 */
struct mvgal_file {
	/* The drm_file's, and one per job or buffer charged here: a job or
	 * a buffer may outlive the file.
	 */
	struct kref ref;
	atomic_t jobs;			/* jobs not finished */
	atomic64_t meta;		/* bytes of buffer metadata */
	/* Guards the rest but @flags; held across END. */
	struct mutex lock;
	struct list_head sessions;	/* live, most recent last */
	/*
	 * Its registrations (struct mvgal_userptr): none of one process
	 * overlap. A lock of their own: a buffer's last reference, which
	 * takes its registration off, may go with @lock held (END).
	 */
	spinlock_t userptr_lock;
	struct list_head userptrs;
	unsigned int count;		/* live or being begun */
	u32 next_id;
	u32 flags;			/* MVGAL_FILE_*, READ/WRITE_ONCE */
};

void mvgal_file_release(struct kref *ref);
struct mvgal_file *mvgal_file_charge(struct drm_file *file, bool job,
				     u64 meta, int *err);
int mvgal_file_meta_charge(struct mvgal_file *mf, u64 bytes);
void mvgal_file_meta_uncharge(struct mvgal_file *mf, u64 bytes);
void mvgal_file_uncharge(struct mvgal_file *mf, bool job, u64 meta);

#endif /* MVGAL_DEV_QUOTA_H */
