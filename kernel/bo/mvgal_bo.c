// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers: their lock, lookup by handle or id, the device's list of them,
 * their I/O counters, and the release of their data once nothing uses
 * them.
 */

#include <linux/bitmap.h>
#include <linux/cred.h>
#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_pool.h"
#include "dev/mvgal_quota.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_userptr.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_commit.h"
#include "bo/mvgal_pages.h"
#include "bo/mvgal_ro.h"

/**
 * mvgal_bo_lock_init() - set up bo->lock
 * @bo: a new buffer, created or imported
 *
 * Every buffer's lock is of one lockdep class, whichever way the buffer
 * came: code that holds two (BEGIN, BO_COPY) takes them under a ww
 * acquire context (mutex_lock_nest_lock()), which lockdep accepts for one
 * class; two classes taken in both orders would look like an inversion.
 */
void mvgal_bo_lock_init(struct mvgal_bo *bo)
{
	mutex_init(&bo->lock);
}

void mvgal_bo_release(struct mvgal_bo *bo)
{
	struct drm_gem_object *obj = &bo->base;
	struct mvgal_device *mdev = to_mvgal(obj->dev);
	unsigned long i;
	u64 meta;

	if (!list_empty(&bo->link)) {
		mutex_lock(&mdev->bos_lock);
		list_del(&bo->link);
		mutex_unlock(&mdev->bos_lock);
	}
	if (bo->vaddr)
		vunmap(bo->vaddr);
	/* Registered pages go back to their process, unpinned. */
	if (bo->userptr) {
		mvgal_userptr_release(bo);
	} else if (bo->host) {
		struct page *page;

		xa_for_each(&bo->pages, i, page)
			mvgal_bo_free_page(bo, page);
	}
	if (bo->host) {
		atomic64_sub(bo->nr_pages, &mdev->host_pages);
		xa_destroy(&bo->pages);
	}
	if (bo->home)
		mvgal_pool_free(bo->home, &bo->alloc);
	if (obj->import_attach) {
		struct dma_buf *dmabuf = obj->import_attach->dmabuf;

		dma_buf_vunmap_unlocked(dmabuf, &bo->map);
		dma_buf_detach(dmabuf, obj->import_attach);
		dma_buf_put(dmabuf);
	}
	meta = mvgal_chunks_fini(bo);
	mvgal_session_commits_free(bo);
	mvgal_file_uncharge(bo->quota, false, bo->meta + meta);
	drm_gem_object_release(obj);
	mutex_destroy(&bo->lock);
	kfree(bo);
}

/**
 * mvgal_bo_lookup_access() - the buffer behind a handle, with a
 * reference, for an access that reads or writes it
 * @file: the caller
 * @handle: GEM handle
 * @write: the caller will change the buffer's bytes (or what its chunks
 *	   hold, as a MOVE does, or its records, as HARVEST's reset does)
 * @err: (out) why there is none
 *
 * A read-only handle (bo/mvgal_ro.c) stands for the buffer it was made
 * from: reads reach that buffer; writes through it, or to an import of a
 * dma-buf opened read-only, are -EACCES.
 *
 * Return: the buffer (*@err is 0), or NULL with *@err set: -ENOENT (no
 * mvgal buffer behind @handle), -EACCES.
 */
struct mvgal_bo *mvgal_bo_lookup_access(struct drm_file *file, u32 handle,
					bool write, int *err)
{
	struct drm_gem_object *obj = drm_gem_object_lookup(file, handle);
	struct mvgal_bo *bo;

	*err = -ENOENT;
	if (!obj)
		return NULL;
	/* Every object of an mvgal file is a buffer or a read-only handle. */
	bo = mvgal_ro_target(obj) ?: to_mvgal_bo(obj);
	if (bo && write && (bo->read_only || &bo->base != obj))
		*err = -EACCES;
	else if (bo)
		*err = 0;
	/* The lookup's reference is the caller's when @obj is the buffer. */
	if (!*err && &bo->base == obj)
		return bo;
	if (!*err)
		drm_gem_object_get(&bo->base);
	drm_gem_object_put(obj);
	return *err ? NULL : bo;
}

/**
 * mvgal_bo_lookup() - the buffer behind a handle, with a reference, to
 * read it or learn about it
 * @file: the caller
 * @handle: GEM handle
 *
 * Return: the buffer, or NULL when the handle names none.
 */
struct mvgal_bo *mvgal_bo_lookup(struct drm_file *file, u32 handle)
{
	int err;

	return mvgal_bo_lookup_access(file, handle, false, &err);
}

/**
 * mvgal_bo_track() - put a new buffer on the device's list, as its
 * creator's
 * @bo: the buffer, just given its first handle
 */
void mvgal_bo_track(struct mvgal_bo *bo)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);

	bo->id = atomic64_inc_return(&mdev->next_bo_id);
	bo->uid = current_uid();
	bo->pid = task_tgid_nr(current);
	mutex_lock(&mdev->bos_lock);
	list_add_tail(&bo->link, &mdev->bos);
	mutex_unlock(&mdev->bos_lock);
}

/**
 * mvgal_bo_count() - a CPU copy ioctl read or wrote @len bytes of @bo
 * @bo: the buffer
 * @len: bytes copied
 * @write: into the buffer (BO_PWRITE, BO_COPY's destination)
 *
 * A device-only buffer's bytes are in its home GPU's pool: the copy is
 * an access of that pool and its bytes went into or out of it.
 */
void mvgal_bo_count(struct mvgal_bo *bo, u64 len, bool write)
{
	struct mvgal_bo_stats *st = &bo->stats;
	unsigned int g;

	atomic64_add(len, write ? &st->bytes_written : &st->bytes_read);
	if (!bo->home)
		return;
	g = bo->home->index;
	atomic64_add(len, write ? &st->to_gpu[g] : &st->from_gpu[g]);
	atomic64_inc(&st->cpu[g]);
}

/**
 * mvgal_bo_count_copy() - @len bytes of @bo were copied from location
 * @src to @dst (MVGAL_LOC_*): a chunk copy that succeeded
 * @bo: the buffer
 * @dst: where they went
 * @src: where they came from
 * @len: bytes copied
 */
void mvgal_bo_count_copy(struct mvgal_bo *bo, unsigned int dst,
			 unsigned int src, u64 len)
{
	if (dst != MVGAL_LOC_HOST)
		atomic64_add(len, &bo->stats.to_gpu[dst - 1]);
	if (src != MVGAL_LOC_HOST)
		atomic64_add(len, &bo->stats.from_gpu[src - 1]);
}

/* A session on GPU @gpu went live on @bo: one access, copy or not. */
void mvgal_bo_count_session(struct mvgal_bo *bo, unsigned int gpu)
{
	atomic64_inc(&bo->stats.sessions[gpu]);
}

/**
 * mvgal_bo_count_moves() - one migration of @bo's bytes copied into or
 * out of the pools of @locs
 * @bo: the buffer
 * @locs: bit L: location L (MVGAL_LOC_*) was a source or destination;
 *	  the host's bit counts for no GPU
 *
 * One access per GPU and migration, however many copies it made there.
 */
void mvgal_bo_count_moves(struct mvgal_bo *bo, unsigned long locs)
{
	unsigned int l;

	for_each_set_bit(l, &locs, MVGAL_LOC_COUNT)
		if (l != MVGAL_LOC_HOST)
			atomic64_inc(&bo->stats.migrations[l - 1]);
}

/* The live buffer with id @id, referenced, or NULL. */
struct mvgal_bo *mvgal_bo_by_id(struct mvgal_device *mdev, u64 id)
{
	struct mvgal_bo *bo, *found = NULL;

	mutex_lock(&mdev->bos_lock);
	list_for_each_entry(bo, &mdev->bos, link) {
		if (bo->id == id) {
			if (kref_get_unless_zero(&bo->base.refcount))
				found = bo;
			break;
		}
	}
	mutex_unlock(&mdev->bos_lock);
	return found;
}
