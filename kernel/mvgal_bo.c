// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers: creation, host pages, CPU mapping, destruction.
 *
 * Host storage is an array of pages taken from the NUMA node of the GPU
 * the buffer is for, one at a time and (with LAZY_ALLOCATE) only when
 * first touched. CPU mappings are PFN maps filled at fault time, so that
 * every first access to a page passes through mvgal.
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>

#include "mvgal_bo.h"
#include "mvgal_compat.h"

static void mvgal_bo_free_page(struct mvgal_bo *bo, struct page *page)
{
#ifdef CONFIG_X86
	if (bo->flags & MVGAL_BO_CPU_UNCACHED)
		set_pages_array_wb(&page, 1);
#endif
	__free_page(page);
}

/*
 * The host page @idx of @bo, allocated on first need with the contents a
 * new buffer promises: zeroes, or the poison byte. Caller holds bo->lock.
 */
struct page *mvgal_bo_page(struct mvgal_bo *bo, unsigned long idx)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	struct page *page = xa_load(&bo->pages, idx);
	int ret;

	if (page)
		return page;
	/*
	 * Charged to the caller's memory cgroup; at its limit, or when
	 * memory is short, the call fails with -ENOMEM rather than have
	 * the OOM killer pick a process.
	 */
	page = alloc_pages_node(bo->nid, GFP_HIGHUSER | __GFP_ACCOUNT |
				__GFP_RETRY_MAYFAIL | __GFP_NOWARN |
				(bo->flags & MVGAL_BO_ZERO_INITIALIZED ?
				 __GFP_ZERO : 0), 0);
	if (!page)
		return ERR_PTR(-ENOMEM);
	if (!(bo->flags & MVGAL_BO_ZERO_INITIALIZED)) {
		void *va = kmap_local_page(page);

		memset(va, MVGAL_BO_POISON, PAGE_SIZE);
		kunmap_local(va);
	}
#ifdef CONFIG_X86
	/* Write-combined in the kernel's direct map too: no cached alias. */
	if ((bo->flags & MVGAL_BO_CPU_UNCACHED) && set_pages_array_wc(&page, 1)) {
		__free_page(page);
		return ERR_PTR(-ENOMEM);
	}
#endif
	ret = xa_err(xa_store(&bo->pages, idx, page, GFP_KERNEL_ACCOUNT));
	if (ret) {
		mvgal_bo_free_page(bo, page);
		return ERR_PTR(ret);
	}
	bo->nr_pages++;
	atomic64_inc(&mdev->host_pages);
	return page;
}

/**
 * mvgal_bo_page_array() - every host page of @bo in one array, for
 * vmap() and sg tables
 * @bo: the buffer; caller holds bo->lock and every page exists
 *
 * Return: the array (kvfree() it), or NULL.
 */
struct page **mvgal_bo_page_array(struct mvgal_bo *bo)
{
	struct page **pages, *page;
	unsigned long i;

	lockdep_assert_held(&bo->lock);
	pages = kvmalloc_array(bo->npages, sizeof(*pages),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pages)
		return NULL;
	xa_for_each(&bo->pages, i, page)
		pages[i] = page;
	return pages;
}

/**
 * mvgal_bo_access_locked() - copy between @buf and the buffer's home
 * storage, whatever the chunk states say
 * @bo: the buffer; caller holds bo->lock
 * @offset: byte offset in the buffer; [offset, offset + len) is in range
 * @buf: kernel memory
 * @len: bytes
 * @write: true: @buf -> buffer; false: buffer -> @buf
 *
 * Return: 0, or -ENOMEM when a lazily allocated page cannot be had.
 */
int mvgal_bo_access_locked(struct mvgal_bo *bo, u64 offset, void *buf,
			   size_t len, bool write)
{
	struct mvgal_view v;
	int ret;

	ret = mvgal_bo_populate_range(bo, offset, len);
	if (ret)
		return ret;
	mvgal_bo_view(bo, bo->home_loc, &v);
	mvgal_view_rw(&v, offset, buf, len, write);
	return 0;
}

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

static void mvgal_bo_release(struct mvgal_bo *bo)
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
	if (bo->host) {
		struct page *page;

		xa_for_each(&bo->pages, i, page)
			mvgal_bo_free_page(bo, page);
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

static bool mvgal_bo_has_places(struct mvgal_bo *bo)
{
	unsigned int i;

	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (bo->place[i])
			return true;
	return false;
}

/*
 * The deferred end of a buffer that still had fences or placements:
 * destroying waits for its fences, and giving placements back needs
 * gpu_lock, which the final reference may have been dropped under.
 */
static void mvgal_bo_free_work(struct work_struct *work)
{
	struct mvgal_bo *bo = container_of(work, struct mvgal_bo, free_work);
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	unsigned int i;

	dma_resv_wait_timeout(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);
	mutex_lock(&mdev->gpu_lock);
	mutex_lock(&bo->lock);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (bo->place[i])
			mvgal_place_drain(bo, i, true);
	mutex_unlock(&bo->lock);
	mutex_unlock(&mdev->gpu_lock);
	mvgal_bo_release(bo);
}

static void mvgal_bo_free(struct drm_gem_object *obj)
{
	struct mvgal_bo *bo = to_mvgal_bo(obj);
	struct mvgal_device *mdev = to_mvgal(obj->dev);

	/*
	 * A buffer that ever had a placement may lose its last reference
	 * where eviction lets it go, with other buffers' locks held, and may
	 * be drained as a victim while dying: its end (which takes bos_lock,
	 * and an import's reservation) waits for the work item, which takes
	 * gpu_lock first.
	 */
	if (READ_ONCE(bo->ever_placed) || mvgal_bo_has_places(bo) ||
	    !dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP)) {
		INIT_WORK(&bo->free_work, mvgal_bo_free_work);
		queue_work(mdev->free_wq, &bo->free_work);
		return;
	}
	mvgal_bo_release(bo);
}

/* The buffer page a fault in @vma at @address falls on. */
static unsigned long mvgal_bo_fault_index(struct vm_area_struct *vma,
					  unsigned long address)
{
	struct drm_gem_object *obj = vma->vm_private_data;
	unsigned long start = drm_vma_node_start(&obj->vma_node);
	unsigned long pgoff = vma->vm_pgoff;

	/* Mapped through the DRM node, vm_pgoff is the fake offset; through
	 * a dma-buf, it may be the page offset into the buffer. Fake offsets
	 * start far above any buffer's page count, so the two cannot mix.
	 */
	if (pgoff >= start)
		pgoff -= start;
	return pgoff + ((address - vma->vm_start) >> PAGE_SHIFT);
}

/* The protection of a page of @bo in @vma: writable or not. */
static pgprot_t mvgal_bo_prot(struct mvgal_bo *bo, struct vm_area_struct *vma,
			      bool writable)
{
	vm_flags_t flags = vma->vm_flags;
	pgprot_t prot;

	prot = vm_get_page_prot(writable ? flags : flags & ~VM_WRITE);
	if (bo->flags & MVGAL_BO_CPU_UNCACHED)
		prot = pgprot_writecombine(prot);
	return prot;
}

/*
 * A CPU fault is a CPU access of the chunk around the page: the chunk is
 * brought home first if a GPU holds its only current copy (after that
 * GPU's write fence). A write marks the chunk written (mvgal_watch.c). A
 * read maps the page read-only unless the chunk is marked already, so
 * that the first write faults again (pfn_mkwrite) and is seen. The PTE
 * goes in under bo->lock, so that no re-protection slips in between.
 */
static vm_fault_t mvgal_bo_cpu_fault(struct vm_fault *vmf, bool write)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mvgal_bo *bo = to_mvgal_bo(vma->vm_private_data);
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	unsigned long idx = mvgal_bo_fault_index(vma, vmf->address);
	u64 off = (u64)idx << PAGE_SHIFT;
	unsigned long c = off >> bo->chunk_shift;
	bool home_before;
	struct page *page;
	vm_fault_t vret;
	int ret;

	if (idx >= bo->npages)
		return VM_FAULT_SIGBUS;
	spin_lock(&bo->state_lock);
	home_before = mvgal_chunk_valid_at(mvgal_chunk_peek(bo, c),
					   bo->home_loc);
	spin_unlock(&bo->state_lock);
	ret = mvgal_cpu_prepare(bo, off, PAGE_SIZE, write, MVGAL_CPU_FAULT);
	if (ret == -ERESTARTSYS || ret == -EINTR)
		return VM_FAULT_NOPAGE;	/* a signal: fault again later */
	/*
	 * Not VM_FAULT_OOM: the page allocator has run the OOM killer
	 * already where it could, and a failure it did not report as OOM
	 * (a fault injected, a memory cgroup at its limit) would only be
	 * retried forever. As drm_gem_shmem does, the access fails.
	 */
	if (ret)
		return VM_FAULT_SIGBUS;
	if (!home_before)
		atomic64_inc(&mdev->ctr.cpu_faults);
	page = mvgal_bo_page(bo, idx);
	if (IS_ERR(page)) {
		mutex_unlock(&bo->lock);
		return VM_FAULT_SIGBUS;
	}
	/* pfn_mkwrite: the read-only PTE must go for the new one. */
	if (vmf->flags & FAULT_FLAG_MKWRITE)
		zap_vma_ptes(vma, vmf->address & PAGE_MASK, PAGE_SIZE);
	vret = vmf_insert_pfn_prot(vma, vmf->address & PAGE_MASK,
				   page_to_pfn(page),
				   mvgal_bo_prot(bo, vma, write ||
						 mvgal_watch_writable(bo, c)));
	mutex_unlock(&bo->lock);
	return vret;
}

static vm_fault_t mvgal_bo_fault(struct vm_fault *vmf)
{
	return mvgal_bo_cpu_fault(vmf, vmf->flags & FAULT_FLAG_WRITE);
}

/*
 * A write to a page mapped read-only: the chunk is marked written and the
 * page mapped writable anew, under bo->lock (rather than letting the core
 * upgrade the old PTE after this returns, when a re-protection could have
 * come and gone).
 */
static vm_fault_t mvgal_bo_pfn_mkwrite(struct vm_fault *vmf)
{
	return mvgal_bo_cpu_fault(vmf, true);
}

static const struct vm_operations_struct mvgal_bo_vm_ops = {
	.fault = mvgal_bo_fault,
	.pfn_mkwrite = mvgal_bo_pfn_mkwrite,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static int mvgal_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct mvgal_bo *bo = to_mvgal_bo(obj);

	/* Device-only buffers have nothing a CPU could map. */
	if (mvgal_bo_device_only(bo))
		return -EINVAL;
	/* An import of a dma-buf opened read-only stays read-only. */
	if (bo->read_only) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	/* An import is mapped by its exporter, as drm_gem_shmem does. */
	if (obj->import_attach) {
		int ret;

		vma->vm_private_data = NULL;
		vma->vm_ops = NULL;
		ret = dma_buf_mmap(obj->import_attach->dmabuf, vma, 0);
		/* Drop the reference drm_gem_mmap_obj() took. */
		if (!ret)
			drm_gem_object_put(obj);
		return ret;
	}
	/* A private writable mapping would copy pages behind mvgal's back. */
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;
	mutex_lock(&bo->lock);
	bo->cpu_mapped = true;
	if (!(vma->vm_flags & VM_MAYWRITE))
		bo->wp_unmaps = true;
	if (vma->vm_file && vma->vm_file->f_mapping !=
	    obj->dev->anon_inode->i_mapping)
		bo->dmabuf_mapping = vma->vm_file->f_mapping;
	mutex_unlock(&bo->lock);
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	if (bo->flags & MVGAL_BO_CPU_UNCACHED)
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	return 0;
}

const struct drm_gem_object_funcs mvgal_bo_funcs = {
	.free = mvgal_bo_free,
	.mmap = mvgal_bo_mmap,
	.vm_ops = &mvgal_bo_vm_ops,
	.export = mvgal_bo_export,
	.pin = mvgal_bo_pin,
	.get_sg_table = mvgal_bo_get_sg_table,
};

/**
 * mvgal_bo_populate() - give a host buffer every page it lacks
 * @bo: the buffer
 *
 * Return: 0 or -ENOMEM (pages allocated so far stay).
 */
int mvgal_bo_populate(struct mvgal_bo *bo)
{
	unsigned long i;
	int ret = 0;

	mutex_lock(&bo->lock);
	for (i = 0; i < bo->npages; i++) {
		struct page *page = mvgal_bo_page(bo, i);

		if (IS_ERR(page)) {
			ret = PTR_ERR(page);
			break;
		}
	}
	mutex_unlock(&bo->lock);
	return ret;
}

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

int mvgal_ioctl_bo_create(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_bo_create *args = data;
	struct mvgal_gpu *gpu = NULL;
	struct mvgal_bo *bo;
	u32 handle;
	int ret;

	ret = mvgal_bo_create_check(args);
	if (ret)
		return ret;
#ifndef CONFIG_X86
	if (args->flags & MVGAL_BO_CPU_UNCACHED)
		return -EOPNOTSUPP;
#endif

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return -ENOMEM;
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
	/* It counts against the file's allowance, and so will its chunk
	 * records as they come (mvgal_chunks.c).
	 */
	bo->meta = sizeof(*bo);
	bo->quota = mvgal_file_charge(file, false, bo->meta, &ret);
	if (!bo->quota)
		goto err_put;

	if (args->gpu != MVGAL_GPU_ANY) {
		/* Held until the pool range is taken: the GPU cannot be
		 * detached in between.
		 */
		mutex_lock(&mdev->gpu_lock);
		gpu = mvgal_gpu_use(mdev, args->gpu, &ret);
		if (gpu && gpu->numa_node >= 0)
			bo->nid = gpu->numa_node;
		if (gpu && mvgal_bo_device_only(bo)) {
			ret = mvgal_pool_alloc_evict(gpu, &bo->alloc, args->size, 0);
			if (!ret) {
				bo->home = gpu;
				bo->map = gpu->pool.map;
				bo->map_offset = bo->alloc.node.start;
			}
		}
		mutex_unlock(&mdev->gpu_lock);
		if (!gpu || ret)
			goto err_put;
	}

	bo->home_loc = bo->home ? 1 + bo->home->index : MVGAL_LOC_HOST;
	mvgal_bo_coherence_init(bo);
	if (bo->home) {
		struct iosys_map map = bo->home->pool.map;

		/* The range may hold a freed buffer's bytes: never show them. */
		iosys_map_memset(&map, bo->alloc.node.start,
				 bo->flags & MVGAL_BO_ZERO_INITIALIZED ?
				 0 : MVGAL_BO_POISON, bo->alloc.node.size);
	} else {
		bo->host = true;
		if (!(bo->flags & MVGAL_BO_LAZY_ALLOCATE)) {
			ret = mvgal_bo_populate(bo);
			if (ret)
				goto err_put;
		}
	}

	ret = drm_gem_handle_create(file, &bo->base, &handle);
	if (ret)
		goto err_put;
	mvgal_bo_track(bo);
	drm_gem_object_put(&bo->base);
	args->handle = handle;
	return 0;

err_put:
	drm_gem_object_put(&bo->base);
	return ret;
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
 * A read-only handle (mvgal_ro.c) stands for the buffer it was made
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
	bo = obj->funcs == &mvgal_bo_funcs ? to_mvgal_bo(obj) :
					     mvgal_ro_target(obj);
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

/* The node all of the buffer's host pages are on, as the page allocator
 * placed them; MVGAL_NUMA_NONE when they are none or on several nodes.
 */
static u32 mvgal_bo_pages_node(struct mvgal_bo *bo)
{
	u32 node = MVGAL_NUMA_NONE;
	struct page *page;
	unsigned long i;

	mutex_lock(&bo->lock);
	xa_for_each(&bo->pages, i, page) {
		u32 nid = page_to_nid(page);

		if (node == MVGAL_NUMA_NONE) {
			node = nid;
		} else if (node != nid) {
			node = MVGAL_NUMA_NONE;
			break;
		}
	}
	mutex_unlock(&bo->lock);
	return node;
}

/*
 * Bytes held and bytes held alone per location. Caller holds bo->lock.
 * Chunks without a record are at home only.
 */
static void mvgal_bo_residency(struct mvgal_bo *bo, u64 *valid, u64 *owned)
{
	unsigned long first, last, c = 0;
	u64 recorded = 0;
	unsigned int l;

	memset(valid, 0, sizeof(u64) * MVGAL_LOC_COUNT);
	memset(owned, 0, sizeof(u64) * MVGAL_LOC_COUNT);
	spin_lock(&bo->state_lock);
	while (mvgal_chunks_next_leaf(bo, c, &first, &last)) {
		for (c = first; c <= last; c++) {
			const struct mvgal_chunk *ch = mvgal_chunk_peek(bo, c);
			/* Clipped to the size the buffer was created with. */
			u64 start = mvgal_chunk_start(bo, c);
			u64 len = min_t(u64, bo->size - start,
					1ULL << bo->chunk_shift);

			recorded += len;
			for (l = 0; l < MVGAL_LOC_COUNT; l++) {
				if (!mvgal_chunk_valid_at(ch, l))
					continue;
				valid[l] += len;
				if (ch->valid == 1U << l)
					owned[l] += len;
			}
		}
	}
	spin_unlock(&bo->state_lock);
	valid[bo->home_loc] += bo->size - recorded;
	owned[bo->home_loc] += bo->size - recorded;
}

/* Fills everything of @args but the handle; 0 or -errno. */
static int mvgal_bo_fill_info(struct mvgal_bo *bo, struct drm_mvgal_bo_info *args)
{
	u64 total = 0, offset = 0;
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
	args->bytes_read = atomic64_read(&bo->bytes_read);
	args->bytes_written = atomic64_read(&bo->bytes_written);
	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		args->access_count[i] = atomic64_read(&bo->access[i]);
		total += args->access_count[i];
	}
	args->access_total = total;
	memset(args->resident, 0, sizeof(args->resident));
	mutex_lock(&bo->lock);
	args->resident[MVGAL_LOC_HOST] = (u64)bo->nr_pages << PAGE_SHIFT;
	if (bo->home)
		args->resident[1 + bo->home->index] = bo->alloc.node.size;
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (bo->place[i])
			args->resident[1 + i] = bo->place[i]->alloc.node.size;
	/* GPU copies the CPU has written since are not current. */
	mvgal_watch_fold(bo);
	mvgal_bo_residency(bo, args->valid, args->owned);
	args->sessions = bo->sessions;
	args->cpu_written = bo->nwritten;
	args->handoffs = bo->handoffs;
	args->refused = bo->nrefused;
	args->id = bo->id;
	args->workload = bo->workload;
	args->preferred = bo->preferred;
	args->accessed_by = bo->accessed_by;
	args->mirrored = bo->mirror_set;
	args->pinned = READ_ONCE(bo->pinned);
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

int mvgal_ioctl_bo_list(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct mvgal_device *mdev = to_mvgal(dev);
	struct drm_mvgal_bo_list *args = data;
	struct drm_mvgal_bo_entry *e = NULL;
	bool all = capable(CAP_SYS_ADMIN);
	kuid_t uid = current_uid();
	u32 n = 0, cap = args->count;
	struct mvgal_bo *bo;
	size_t len;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	mutex_lock(&mdev->bos_lock);
	/* Room for what exists, not for what was asked: @count is the
	 * caller's to choose.
	 */
	list_for_each_entry(bo, &mdev->bos, link)
		if (all || uid_eq(bo->uid, uid))
			n++;
	cap = min(cap, n);
	n = 0;
	if (cap) {
		e = kvcalloc(cap, sizeof(*e), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!e) {
			mutex_unlock(&mdev->bos_lock);
			return -ENOMEM;
		}
	}
	list_for_each_entry(bo, &mdev->bos, link) {
		if (!all && !uid_eq(bo->uid, uid))
			continue;
		if (n < cap) {
			e[n].id = bo->id;
			e[n].uid = from_kuid_munged(current_user_ns(), bo->uid);
			e[n].pid = bo->pid;
			ret = mvgal_bo_fill_info(bo, &e[n].info);
			if (ret)
				break;
		}
		n++;
	}
	mutex_unlock(&mdev->bos_lock);
	len = (size_t)min(n, cap) * sizeof(*e);
	/* Faulted in first, without writing, so a bad pointer fails the
	 * call before any entry is written.
	 */
	if (!ret && len &&
	    (fault_in_safe_writeable(u64_to_user_ptr(args->entries), len) ||
	     copy_to_user(u64_to_user_ptr(args->entries), e, len)))
		ret = -EFAULT;
	if (!ret)
		args->count = n;
	kvfree(e);
	return ret;
}
