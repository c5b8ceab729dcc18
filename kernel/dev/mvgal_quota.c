// SPDX-License-Identifier: GPL-2.0
/*
 * The allowance of an open file: jobs it has queued and bytes of buffer
 * metadata it holds, against max_file_jobs and max_file_meta_mb.
 */

#include <linux/dma-resv.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "dev/mvgal_params.h"
#include "dev/mvgal_quota.h"

void mvgal_file_release(struct kref *ref)
{
	struct mvgal_file *mf = container_of(ref, struct mvgal_file, ref);

	mutex_destroy(&mf->lock);
	kfree(mf);
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
