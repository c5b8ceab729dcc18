// SPDX-License-Identifier: GPL-2.0
/*
 * BO_CREATE, BO_INFO and BO_LIST.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_quota.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_coherence.h"
#include "bo/mvgal_cpuwrite.h"
#include "bo/mvgal_pages.h"
#include "bo/mvgal_report.h"
#include "bo/mvgal_ro.h"
#include "bo/mvgal_userptr.h"
#include "move/mvgal_place.h"
#include "move/mvgal_prime.h"
#include "policy/mvgal_advice.h"
#include "uapi/mvgal_bo_ioctl.h"
#include "uapi/mvgal_uapi_array.h"

/* Validates a create request; 0 or -EINVAL, nothing touched. */
static int mvgal_bo_create_check(const struct drm_mvgal_bo_create *args)
{
	u32 f = args->flags;
	bool shared;

	if (f & ~MVGAL_BO_FLAGS)
		return -EINVAL;
	if (!args->size || args->size > MVGAL_BO_MAX_SIZE)
		return -EINVAL;
	if ((f & MVGAL_BO_CPU_CACHED) && (f & MVGAL_BO_CPU_UNCACHED))
		return -EINVAL;
	if (!(f & (MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID)))
		return -EINVAL;
	if (args->gpu != MVGAL_GPU_ANY && args->gpu >= mvgal_max_gpus)
		return -EINVAL;
	/* Device-only: it needs a GPU to live on. */
	if (!(f & MVGAL_BO_HOST_VALID) && args->gpu == MVGAL_GPU_ANY)
		return -EINVAL;
	if (args->sharing >= MVGAL_SHARING_COUNT)
		return -EINVAL;
	/* Exportable, and shared some way, or neither. */
	shared = args->sharing != MVGAL_SHARING_NONE;
	if (!!(f & MVGAL_BO_DMA_BUF) != shared)
		return -EINVAL;
	/* CPU attributes mean nothing without a CPU view. */
	if (!(f & MVGAL_BO_HOST_VALID) &&
	    (f & (MVGAL_BO_CPU_CACHED | MVGAL_BO_CPU_UNCACHED |
		  MVGAL_BO_LAZY_ALLOCATE)))
		return -EINVAL;
	return 0;
}

/* A new buffer, as @args describe it, with no storage yet. */
static struct mvgal_bo *
mvgal_bo_create_new(struct drm_device *dev,
		    const struct drm_mvgal_bo_create *args)
{
	struct mvgal_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return NULL;
	xa_init(&bo->pages);
	xa_init(&bo->leaves);
	bo->size = args->size;
	bo->flags = args->flags;
	bo->gpu = args->gpu;
	bo->sharing = args->sharing;
	bo->nid = numa_mem_id();
	mvgal_bo_lock_init(bo);
	INIT_LIST_HEAD(&bo->link);
	drm_gem_private_object_init(dev, &bo->base, PAGE_ALIGN(args->size));
	bo->base.funcs = &mvgal_bo_funcs;
	bo->npages = bo->base.size >> PAGE_SHIFT;
	return bo;
}

/*
 * A buffer made for one GPU: its pages follow the GPU's NUMA node, and a
 * device-only one lives in a range of the GPU's pool.
 */
static int mvgal_bo_create_bind(struct mvgal_device *mdev,
				struct mvgal_bo *bo, u32 index)
{
	struct mvgal_gpu *gpu;
	int ret = 0;

	/* Held until the pool range is taken: the GPU cannot be detached
	 * in between.
	 */
	down_read(&mdev->gpu_lock);
	gpu = mvgal_gpu_use(mdev, index, &ret);
	if (gpu && gpu->numa_node >= 0)
		bo->nid = gpu->numa_node;
	if (gpu && mvgal_bo_device_only(bo)) {
		ret = mvgal_pool_alloc_evict(gpu, &bo->alloc, bo->size, 0);
		if (!ret) {
			bo->home = gpu;
			bo->map_offset = bo->alloc.node.start;
		}
	}
	up_read(&mdev->gpu_lock);
	/* Without the GPU, mvgal_gpu_use() said why. */
	return ret;
}

/* The buffer's chunk records, and its home's bytes made safe to show. */
static int mvgal_bo_create_storage(struct mvgal_bo *bo)
{
	struct iosys_map map;
	int ret;

	bo->home_loc = bo->home ? 1 + bo->home->index : MVGAL_LOC_HOST;
	mvgal_bo_coherence_init(bo);
	if (bo->home) {
		/* The range may hold a freed buffer's bytes: never show
		 * them.
		 */
		ret = mvgal_pool_map_get(&bo->home->pool, &map);
		if (ret)
			return ret;
		iosys_map_memset(&map, bo->alloc.node.start,
				 bo->flags & MVGAL_BO_ZERO_INITIALIZED ?
				 0 : MVGAL_BO_POISON, bo->alloc.node.size);
		mvgal_pool_map_put(&bo->home->pool);
		return 0;
	}
	bo->host = true;
	if (!(bo->flags & MVGAL_BO_LAZY_ALLOCATE))
		return mvgal_bo_populate(bo);
	return 0;
}

/*
 * A complete new buffer becomes the caller's: a handle (written to
 * @handle only on success: a failed ioctl hands its struct back as it
 * came), and the device's list. The creation reference goes either way.
 */
static int mvgal_bo_publish(struct drm_file *file, struct mvgal_bo *bo,
			    u32 *handle)
{
	u32 h;
	int ret = drm_gem_handle_create(file, &bo->base, &h);

	if (!ret) {
		mvgal_bo_track(bo);
		*handle = h;
	}
	drm_gem_object_put(&bo->base);
	return ret;
}

int mvgal_ioctl_bo_create(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_mvgal_bo_create *args = data;
	struct mvgal_bo *bo;
	int ret;

	ret = mvgal_bo_create_check(args);
	if (ret)
		return ret;
#ifndef CONFIG_X86
	if (args->flags & MVGAL_BO_CPU_UNCACHED)
		return -EOPNOTSUPP;
#endif
	bo = mvgal_bo_create_new(dev, args);
	if (!bo)
		return -ENOMEM;
	/* It counts against the file's allowance, and so will its chunk
	 * records as they come (bo/mvgal_chunks.c).
	 */
	bo->meta = sizeof(*bo);
	bo->quota = mvgal_file_charge(file, false, bo->meta, &ret);
	if (!bo->quota)
		goto err_put;
	if (args->gpu != MVGAL_GPU_ANY) {
		ret = mvgal_bo_create_bind(to_mvgal(dev), bo, args->gpu);
		if (ret)
			goto err_put;
	}
	ret = mvgal_bo_create_storage(bo);
	if (ret)
		goto err_put;
	return mvgal_bo_publish(file, bo, &args->handle);

err_put:
	drm_gem_object_put(&bo->base);
	return ret;
}

/*
 * What BO_USERPTR refuses before anything is made: 0, -EINVAL or
 * -EFAULT (a range reaching beyond the user address space, as a hole).
 */
static int mvgal_bo_userptr_check(const struct drm_mvgal_bo_userptr *args,
				  const struct drm_mvgal_bo_create *c)
{
	u64 end;

	if (args->flags & ~MVGAL_USERPTR_FLAGS ||
	    !args->size || !PAGE_ALIGNED(args->user_ptr) ||
	    check_add_overflow(args->user_ptr, PAGE_ALIGN(args->size), &end) ||
	    PAGE_ALIGN(args->size) < args->size)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(args->user_ptr), args->size))
		return -EFAULT;
	/* The memory is the application's: no other kind, no new bytes. */
	if (!(c->flags & MVGAL_BO_HOST_VALID) ||
	    c->flags & (MVGAL_BO_LAZY_ALLOCATE | MVGAL_BO_CPU_UNCACHED |
			MVGAL_BO_ZERO_INITIALIZED))
		return -EINVAL;
	/* A mirror's pages are not held between copies: nothing to export. */
	if (args->flags & MVGAL_USERPTR_MIRROR &&
	    c->flags & (MVGAL_BO_DMA_BUF | MVGAL_BO_P2P))
		return -EOPNOTSUPP;
	return mvgal_bo_create_check(c);
}

int mvgal_ioctl_bo_userptr(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct drm_mvgal_bo_userptr *args = data;
	struct drm_mvgal_bo_create c = {
		.size = args->size, .flags = args->bo_flags,
		.gpu = MVGAL_GPU_ANY, .sharing = args->sharing,
	};
	struct mvgal_bo *bo;
	int ret;

	ret = mvgal_bo_userptr_check(args, &c);
	if (ret)
		return ret;
	/* Beyond the limit: refused before anything is made for it. */
	if (!(args->flags & MVGAL_USERPTR_MIRROR))
		ret = mvgal_userptr_may_charge(PAGE_ALIGN(args->size) >>
					       PAGE_SHIFT);
	if (ret)
		return ret;
	bo = mvgal_bo_create_new(dev, &c);
	if (!bo)
		return -ENOMEM;
	bo->meta = sizeof(*bo);
	bo->quota = mvgal_file_charge(file, false, bo->meta, &ret);
	if (!bo->quota)
		goto err_put;
	bo->home_loc = MVGAL_LOC_HOST;
	mvgal_bo_coherence_init(bo);
	bo->host = true;
	ret = mvgal_userptr_register(bo, args->user_ptr, args->flags);
	if (ret)
		goto err_put;
	return mvgal_bo_publish(file, bo, &args->handle);

err_put:
	drm_gem_object_put(&bo->base);
	return ret;
}

/* The statistics of @args (struct mvgal_bo_stats); no lock needed. */
static void mvgal_bo_fill_stats(struct mvgal_bo *bo,
				struct drm_mvgal_bo_info *args)
{
	struct mvgal_bo_stats *st = &bo->stats;
	unsigned int i;

	args->bytes_read = atomic64_read(&st->bytes_read);
	args->bytes_written = atomic64_read(&st->bytes_written);
	args->access_total = 0;
	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		args->bytes_to_gpu[i] = atomic64_read(&st->to_gpu[i]);
		args->bytes_from_gpu[i] = atomic64_read(&st->from_gpu[i]);
		args->session_count[i] = atomic64_read(&st->sessions[i]);
		args->migration_count[i] = atomic64_read(&st->migrations[i]);
		/* Every access of the GPU's, whatever its kind. */
		args->access_count[i] = args->session_count[i] +
					args->migration_count[i] +
					atomic64_read(&st->cpu[i]);
		args->access_total += args->access_count[i];
	}
}

/* Fills everything of @args but the handle; 0 or -errno. */
static int mvgal_bo_fill_info(struct mvgal_bo *bo, struct drm_mvgal_bo_info *args)
{
	u64 offset = 0;
	unsigned int i;
	int ret;

	if (!mvgal_bo_device_only(bo)) {
		/* Imports are mapped too: through their exporter. */
		ret = drm_gem_create_mmap_offset(&bo->base);
		if (ret)
			return ret;
		offset = drm_vma_node_offset_addr(&bo->base.vma_node);
	}
	args->flags = 0;
	args->size = bo->size;
	args->mmap_offset = offset;
	args->bo_flags = bo->flags;
	args->gpu = bo->gpu;
	args->numa_node = mvgal_bo_pages_node(bo);
	args->sharing = bo->sharing;
	mvgal_bo_fill_stats(bo, args);
	memset(args->resident, 0, sizeof(args->resident));
	mutex_lock(&bo->lock);
	args->resident[MVGAL_LOC_HOST] = (u64)bo->nr_pages << PAGE_SHIFT;
	if (bo->home)
		args->resident[1 + bo->home->index] = bo->alloc.node.size;
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (bo->pools.place[i])
			args->resident[1 + i] = bo->pools.place[i]->alloc.node.size;
	/* GPU copies the CPU has written since are not current. */
	mvgal_watch_fold(bo);
	mvgal_bo_residency(bo, args->valid, args->owned);
	args->sessions = bo->sessions;
	args->cpu_written = bo->watch.nwritten;
	args->handoffs = bo->watch.handoffs;
	args->refused = bo->watch.nrefused;
	args->id = bo->id;
	args->workload = bo->policy.workload;
	args->preferred = mvgal_advice_preferred(bo);
	args->accessed_by = bo->policy.accessed_by;
	args->mirrored = bo->mirror_set;
	args->pinned = mvgal_place_pins(bo);
	args->mirror_changes = bo->mirror.starts + bo->mirror.stops;
	args->read_mostly =
		min_t(u64, (u64)mvgal_cbit_weight(bo, MVGAL_CB_READ_MOSTLY) <<
		      bo->chunk_shift, bo->base.size);
	args->touched =
		min_t(u64, (u64)mvgal_cbit_weight(bo, MVGAL_CB_TOUCHED) <<
		      bo->chunk_shift, bo->base.size);
	mutex_unlock(&bo->lock);
	args->chunk_size = 1ULL << bo->chunk_shift;
	args->pad = 0;
	return 0;
}

int mvgal_ioctl_bo_info(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_mvgal_bo_info *args = data, info;
	struct mvgal_bo *bo;
	int ret;

	if (args->flags)
		return -EINVAL;
	bo = mvgal_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;
	ret = mvgal_bo_fill_info(bo, &info);
	if (!ret && info.mmap_offset) {
		/* A read-only handle maps as itself, never as the buffer. */
		s64 ro = mvgal_ro_mmap_offset(file, args->handle);

		if (ro < 0)
			ret = ro;
		else if (ro)
			info.mmap_offset = ro;
	}
	if (!ret) {
		info.handle = args->handle;
		*args = info;
	}
	drm_gem_object_put(&bo->base);
	return ret;
}

static_assert(sizeof(struct drm_mvgal_bo_entry) >= MVGAL_BO_ENTRY_SIZE_V1);

/*
 * References on the buffers BO_LIST reports (all, or the caller's), in
 * list order: *@got of them, at most @cap; *@n gets how many are live.
 * The list lock is held only to take them: reading a buffer's state may
 * wait for its lock (a fault, a page allocation), and no one else's
 * BO_CREATE or buffer release may wait behind that.
 */
static struct mvgal_bo **mvgal_bo_list_get(struct mvgal_device *mdev,
					   bool all, u32 cap, u32 *got, u32 *n)
{
	kuid_t uid = current_uid();
	struct mvgal_bo *bo, **bos;
	u32 have = 0;

	mutex_lock(&mdev->bos_lock);
	/* Room for what exists, not for what was asked: @cap is the
	 * caller's to choose.
	 */
	list_for_each_entry(bo, &mdev->bos, link)
		if (all || uid_eq(bo->uid, uid))
			have++;
	cap = min(cap, have);
	bos = kvcalloc(cap ?: 1, sizeof(*bos), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!bos) {
		mutex_unlock(&mdev->bos_lock);
		return ERR_PTR(-ENOMEM);
	}
	have = 0;
	*got = 0;
	list_for_each_entry(bo, &mdev->bos, link) {
		if (!all && !uid_eq(bo->uid, uid))
			continue;
		/* A buffer whose last reference went is no longer live. */
		if (*got < cap) {
			if (!kref_get_unless_zero(&bo->base.refcount))
				continue;
			bos[(*got)++] = bo;
		} else if (!kref_read(&bo->base.refcount)) {
			continue;
		}
		have++;
	}
	mutex_unlock(&mdev->bos_lock);
	*n = have;
	return bos;
}

int mvgal_ioctl_bo_list(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_bo_list *args = data;
	struct drm_mvgal_bo_entry *e = NULL;
	struct mvgal_bo **bos;
	struct mvgal_uarray ua;
	u32 n, cap, i;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	ret = mvgal_uarray_init(&ua, args->entries, args->count, args->stride,
				MVGAL_BO_ENTRY_SIZE_V1, sizeof(*e));
	if (ret)
		return ret;
	bos = mvgal_bo_list_get(mdev, capable(CAP_SYS_ADMIN), args->count,
				&cap, &n);
	if (IS_ERR(bos))
		return PTR_ERR(bos);
	if (cap) {
		e = kvcalloc(cap, sizeof(*e), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!e)
			ret = -ENOMEM;
	}
	for (i = 0; i < cap && !ret; i++) {
		e[i].id = bos[i]->id;
		e[i].uid = from_kuid_munged(current_user_ns(), bos[i]->uid);
		e[i].pid = bos[i]->pid;
		ret = mvgal_bo_fill_info(bos[i], &e[i].info);
	}
	for (i = 0; i < cap; i++)
		drm_gem_object_put(&bos[i]->base);
	kvfree(bos);
	/* Faulted in first, without writing, so a bad pointer fails the
	 * call before any entry is written.
	 */
	if (!ret && (!mvgal_uarray_writable(&ua, cap) ||
		     mvgal_uarray_copy_out(&ua, e, cap)))
		ret = -EFAULT;
	if (!ret)
		args->count = n;
	kvfree(e);
	return ret;
}
