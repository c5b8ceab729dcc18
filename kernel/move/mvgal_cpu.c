// SPDX-License-Identifier: GPL-2.0
/*
 * CPU access to buffers: bringing chunks home before the CPU reads or
 * writes them (faults, pread/pwrite, BO_COPY, dma-buf CPU access), the
 * fault handlers of CPU mappings, and taking CPU writes in.
 *
 * CPU mappings are PFN maps filled at fault time, so that every first
 * access to a page passes through mvgal.
 */

#include <linux/cred.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
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
#include <drm/drm_vma_manager.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_chunk.h"
#include "core/mvgal_range.h"
#include "dev/mvgal_compat.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_transfer.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_coherence.h"
#include "bo/mvgal_commit.h"
#include "bo/mvgal_cpuwrite.h"
#include "bo/mvgal_live.h"
#include "bo/mvgal_pages.h"
#include "bo/mvgal_userptr.h"
#include "bo/mvgal_view.h"
#include "move/mvgal_cpu.h"
#include "move/mvgal_fetch.h"
#include "move/mvgal_job.h"

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
 * GPU's write fence). A write marks the chunk written (bo/mvgal_cpuwrite.c). A
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

const struct vm_operations_struct mvgal_bo_vm_ops = {
	.fault = mvgal_bo_fault,
	.pfn_mkwrite = mvgal_bo_pfn_mkwrite,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

int mvgal_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct mvgal_bo *bo = to_mvgal_bo(obj);

	/* Device-only buffers have nothing a CPU could map. */
	if (mvgal_bo_device_only(bo))
		return -EINVAL;
	/* A mirror's pages are the application's mapping's, held briefly. */
	if (mvgal_userptr_mirrored(bo))
		return -EOPNOTSUPP;
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

/*
 * Both buffers' reservations in ww order, then their own locks. The copy
 * adds no fence, but drm_exec locks with at least one slot reserved.
 */
static int mvgal_copy_lock_all(struct drm_gem_object **objs, unsigned int n,
			       struct drm_exec *exec)
{
	unsigned int i;
	int ret = 0;

	drm_exec_init(exec, DRM_EXEC_INTERRUPTIBLE_WAIT, n);
	drm_exec_until_all_locked(exec) {
		ret = drm_exec_prepare_array(exec, objs, n, 1);
		drm_exec_retry_on_contention(exec);
	}
	if (ret) {
		drm_exec_fini(exec);
		return ret;
	}
	for (i = 0; i < n; i++)
		mutex_lock_nest_lock(&to_mvgal_bo(objs[i])->lock,
				     &exec->ticket);
	return 0;
}

/**
 * mvgal_copy_unlock() - drop what mvgal_copy_lock() took
 * @objs: the buffers
 * @n: how many
 * @exec: the locking context
 */
void mvgal_copy_unlock(struct drm_gem_object **objs, unsigned int n,
		       struct drm_exec *exec)
{
	unsigned int i;

	for (i = n; i--;)
		mutex_unlock(&to_mvgal_bo(objs[i])->lock);
	drm_exec_fini(exec);
}

/*
 * Locks both buffers of a copy, their reservations first (as BEGIN does:
 * drm_exec orders them), once no fence either access must wait for
 * is pending, and makes both ranges ready at home.
 *
 * Return: 0 with everything held (mvgal_copy_unlock() drops it), or
 * -errno with nothing held.
 */
int mvgal_copy_lock(struct drm_mvgal_bo_copy *args,
		    struct drm_gem_object **objs, unsigned int n,
		    struct drm_exec *exec)
{
	struct mvgal_bo *src = to_mvgal_bo(objs[0]), *dst = to_mvgal_bo(objs[n - 1]);
	long t;
	int ret;

	for (;;) {
		struct mvgal_bo *busy = NULL;

		ret = mvgal_copy_lock_all(objs, n, exec);
		if (ret)
			return ret;
		if (!dma_resv_test_signaled(src->base.resv, DMA_RESV_USAGE_WRITE))
			busy = src;
		else if (!dma_resv_test_signaled(dst->base.resv,
						 DMA_RESV_USAGE_BOOKKEEP))
			busy = dst;
		if (!busy)
			break;
		mvgal_copy_unlock(objs, n, exec);
		mvgal_resv_boost(busy, busy == dst ? DMA_RESV_USAGE_BOOKKEEP :
				 DMA_RESV_USAGE_WRITE);
		t = dma_resv_wait_timeout(busy->base.resv, busy == dst ?
					  DMA_RESV_USAGE_BOOKKEEP :
					  DMA_RESV_USAGE_WRITE, true,
					  MAX_SCHEDULE_TIMEOUT);
		if (t < 0)
			return t;
	}
	/* The source first: a destination overlapping it in one buffer
	 * then has the overlap home, read before it is overwritten.
	 */
	ret = mvgal_cpu_ready(src, args->src_offset, args->size, false, 0);
	if (!ret)
		ret = mvgal_cpu_ready(dst, args->dst_offset, args->size, true,
				      MVGAL_CPU_WHOLE);
	if (!ret)
		return 0;
	mvgal_copy_unlock(objs, n, exec);
	return ret;
}

/*
 * Copies under both locks, through a bounce buffer. memmove() within one
 * buffer: when the destination starts above an overlapping source, it
 * goes from the end, so that every source byte is read before it is
 * overwritten.
 */
void mvgal_copy_locked(struct mvgal_bo *src, struct mvgal_bo *dst,
		       struct drm_mvgal_bo_copy *args, void *bounce)
{
	u64 size = args->size, done = 0;
	bool backward;

	backward = src == dst && args->dst_offset > args->src_offset &&
		   mvgal_range_overlap(args->src_offset, args->dst_offset, size);
	while (done < size) {
		size_t n = min_t(u64, size - done, MVGAL_BOUNCE_SIZE);
		u64 at = backward ? size - done - n : done;

		mvgal_bo_access_locked(src, args->src_offset + at, bounce, n,
				       false);
		mvgal_bo_access_locked(dst, args->dst_offset + at, bounce, n,
				       true);
		done += n;
	}
	mvgal_cpu_wrote(dst, args->dst_offset, size, false);
}

/*
 * The chunks a write of [off, off + len) covers whole: [*@a, *@b), empty
 * when *@a >= *@b. The buffer's end ends its last chunk.
 */
void mvgal_whole_chunks(struct mvgal_bo *bo, u64 off, u64 len,
			unsigned long *a, unsigned long *b)
{
	mvgal_chunk_whole(off, len, bo->chunk_shift, bo->size, a, b);
}

/*
 * Brings chunks [first, last] home but those of [a, b), which are about to
 * be overwritten whole and are only marked held at home once every page
 * is there. Caller holds bo->lock, as for mvgal_fetch_locked().
 */
static int mvgal_cpu_fetch(struct mvgal_bo *bo, u64 off, u64 len, bool write,
			   unsigned long a, unsigned long b)
{
	unsigned long first, last, c;
	int ret = 0;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	if (a >= b)
		ret = mvgal_fetch_locked(bo, first, last, bo->home_loc, NULL);
	else if (first < a)
		ret = mvgal_fetch_locked(bo, first, a - 1, bo->home_loc, NULL);
	if (!ret && a < b && b <= last)
		ret = mvgal_fetch_locked(bo, b, last, bo->home_loc, NULL);
	/* A mirror's pages are faulted in for reads too: home is them. */
	if (!ret && (write || mvgal_userptr_mirrored(bo)))
		ret = mvgal_bo_populate_dir(bo, off, len, write);
	if (ret || a >= b)
		return ret;
	/* Nothing can fail now: their old bytes will never be read. */
	spin_lock(&bo->state_lock);
	for (c = a; c < b; c++)
		mvgal_chunk_filled(mvgal_chunk_at(bo, c), bo->home_loc);
	spin_unlock(&bo->state_lock);
	return 0;
}

/**
 * mvgal_cpu_ready() - make bytes [off, off + len) current at home, with
 * every page there, for a CPU access
 * @bo: the buffer; caller holds bo->lock and has seen the fences the
 *	access must wait for signaled
 * @off: byte offset; [off, off + len) is in range and @len > 0
 * @len: bytes
 * @write: the CPU will write them
 * @how: MVGAL_CPU_FAULT: a CPU page fault: it cannot be refused for a
 *	 live session (a hand-off, bo/mvgal_cpuwrite.c); it goes ahead.
 *	 MVGAL_CPU_WHOLE: a write of every byte of the range, which cannot
 *	 fail once this returns: chunks it covers whole are not brought home
 *	 first (their old bytes would be overwritten unread).
 *
 * Nothing is marked written: a caller that fails later has changed no
 * byte and no state but where copies are.
 *
 * Return: 0, -EBUSY (a live session conflicts), -ENOMEM or -EDQUOT.
 */
int mvgal_cpu_ready(struct mvgal_bo *bo, u64 off, u64 len, bool write,
		    unsigned int how)
{
	bool fault = how & MVGAL_CPU_FAULT;
	unsigned long first, last, a = 0, b = 0;
	int ret;

	lockdep_assert_held(&bo->lock);
	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	if (!fault && mvgal_live_conflict(bo, first, last, write)) {
		atomic64_inc(&to_mvgal(bo->base.dev)->ctr.busy);
		return -EBUSY;
	}
	/*
	 * A write changes the chunk states: room for them first. A read
	 * needs none: a chunk without a record is at home already.
	 */
	if (write) {
		ret = mvgal_chunks_ensure(bo, first, last);
		if (ret)
			return ret;
	}
	if (write && (how & MVGAL_CPU_WHOLE))
		mvgal_whole_chunks(bo, off, len, &a, &b);
	/* The fences are done: a failed session's chunks go back first. */
	mvgal_session_settle(bo);
	return mvgal_cpu_fetch(bo, off, len, write, a, b);
}

/**
 * mvgal_cpu_wrote() - the CPU wrote bytes [off, off + len) at home
 * @bo: the buffer; caller holds bo->lock, after mvgal_cpu_ready()
 * @off: byte offset
 * @len: bytes, > 0
 * @fault: through a mapping, seen at fault time: the GPU copies are left
 *	   to the next fold of the write-watch
 */
void mvgal_cpu_wrote(struct mvgal_bo *bo, u64 off, u64 len, bool fault)
{
	unsigned long first, last;

	lockdep_assert_held(&bo->lock);
	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	if (!fault)
		mvgal_chunks_written(bo, first, last, bo->home_loc);
	mvgal_watch_mark(bo, first, last, fault);
}

/**
 * mvgal_cpu_wait() - wait for the fences a CPU access of chunks
 * [first, last] must wait for: a read for the last writer, a write for
 * everything
 * @bo: the buffer
 * @first: first chunk
 * @last: last chunk
 * @write: the access writes
 * @fault: a CPU fault, which a live session does not refuse
 *
 * Return: 0 with bo->lock held (nothing new can be planned then), or
 * -EBUSY (a live session conflicts), -ERESTARTSYS, without it.
 */
int mvgal_cpu_wait(struct mvgal_bo *bo, unsigned long first,
		   unsigned long last, bool write, bool fault)
{
	enum dma_resv_usage usage = dma_resv_usage_rw(write);
	long t;

	for (;;) {
		mutex_lock(&bo->lock);
		if (dma_resv_test_signaled(bo->base.resv, usage))
			return 0;
		mutex_unlock(&bo->lock);
		if (!fault && mvgal_live_conflict(bo, first, last, write)) {
			atomic64_inc(&to_mvgal(bo->base.dev)->ctr.busy);
			return -EBUSY;
		}
		/* A prefetch in the way runs before other work now. */
		mvgal_resv_boost(bo, usage);
		t = dma_resv_wait_timeout(bo->base.resv, usage, true,
					  MAX_SCHEDULE_TIMEOUT);
		if (t < 0)
			return t;
	}
}

/**
 * mvgal_cpu_prepare() - make bytes [off, off + len) current at home for
 * a CPU access
 * @bo: the buffer
 * @off: byte offset; [off, off + len) is in range and @len > 0
 * @len: bytes
 * @write: the CPU will write them: home becomes their only holder
 * @how: MVGAL_CPU_FAULT, MVGAL_CPU_WHOLE (see mvgal_cpu_ready())
 *
 * Waits (interruptibly) for the fences the access must wait for: a read
 * for the last writer, a write for everything. Chunks home lacks are
 * copied home from the cheapest holder.
 *
 * Return: 0 with bo->lock held, or -EBUSY (a live session conflicts),
 * -ERESTARTSYS, -ENOMEM, -EDQUOT, without it.
 */
int mvgal_cpu_prepare(struct mvgal_bo *bo, u64 off, u64 len, bool write,
		      unsigned int how)
{
	bool fault = how & MVGAL_CPU_FAULT;
	unsigned long first, last;
	int ret;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	ret = mvgal_cpu_wait(bo, first, last, write, fault);
	if (ret)
		return ret;
	ret = mvgal_cpu_ready(bo, off, len, write, how);
	if (ret) {
		mutex_unlock(&bo->lock);
		return ret;
	}
	if (write)
		mvgal_cpu_wrote(bo, off, len, fault);
	return 0;
}

/**
 * mvgal_cpu_access() - a coherent CPU read or write of buffer bytes
 * @bo: the buffer
 * @off: byte offset; [off, off + len) in range
 * @buf: kernel memory
 * @len: bytes
 * @write: @buf -> buffer, else buffer -> @buf
 *
 * Return: 0 or -errno of mvgal_cpu_prepare().
 */
int mvgal_cpu_access(struct mvgal_bo *bo, u64 off, void *buf, size_t len,
		     bool write)
{
	int ret;

	if (!len)
		return 0;
	ret = mvgal_cpu_prepare(bo, off, len, write, 0);
	if (ret)
		return ret;
	ret = mvgal_bo_access_locked(bo, off, buf, len, write);
	mutex_unlock(&bo->lock);
	return ret;
}

/**
 * mvgal_cpu_overwrite() - the caller is about to write every byte of
 * [off, off + len) through its mapping
 * @bo: the buffer
 * @off: byte offset; [off, off + len) is in range and @len > 0
 * @len: bytes
 *
 * As a BO_PWRITE of the range prepares (MVGAL_CPU_WHOLE): chunks the range
 * covers whole are marked home without a fetch, the others are fetched,
 * and the range is written for the chunk states and the write-watch. The
 * faults of the writes then find every chunk home.
 *
 * Return: 0, -EBUSY (a live session uses the chunks), -ENOMEM, -EDQUOT
 * or -ERESTARTSYS.
 */
int mvgal_cpu_overwrite(struct mvgal_bo *bo, u64 off, u64 len)
{
	int ret = mvgal_cpu_prepare(bo, off, len, true, MVGAL_CPU_WHOLE);

	if (!ret)
		mutex_unlock(&bo->lock);
	return ret;
}

/**
 * mvgal_cpu_mark() - the application of a registered buffer wrote bytes
 * [off, off + len) through its own mapping
 * @bo: the buffer (bo->userptr)
 * @off: byte offset; [off, off + len) is in range and @len > 0
 * @len: bytes
 * @home_held: only the chunks home holds count (mvgal_userptr_mark())
 *
 * Waits for every fence, as a write does; the chunks covering the range
 * then hold their current bytes at home (mvgal_userptr_mark()). Nothing
 * is fetched: that would overwrite what the application wrote.
 *
 * Return: 0, -EBUSY (a live session uses the chunks), -ENOMEM, -EDQUOT
 * or -ERESTARTSYS.
 */
int mvgal_cpu_mark(struct mvgal_bo *bo, u64 off, u64 len, bool home_held)
{
	unsigned long first, last;
	int ret;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	ret = mvgal_cpu_wait(bo, first, last, true, false);
	if (ret)
		return ret;
	if (!home_held && mvgal_live_conflict(bo, first, last, true)) {
		atomic64_inc(&to_mvgal(bo->base.dev)->ctr.busy);
		ret = -EBUSY;
	} else {
		ret = mvgal_chunks_ensure(bo, first, last);
	}
	if (!ret) {
		/* The fences are done: a failed session's chunks go back. */
		mvgal_session_settle(bo);
		mvgal_userptr_mark(bo, first, last, home_held);
		mvgal_watch_mark(bo, first, last, false);
	}
	mutex_unlock(&bo->lock);
	return ret;
}
