// SPDX-License-Identifier: GPL-2.0
/*
 * Registered user memory (BO_USERPTR). The application's pages become
 * the buffer's host pages: pinned with FOLL_LONGTERM (so they stay where
 * they are for the buffer's life, whatever happens to the mapping) and
 * charged to the registering user's RLIMIT_MEMLOCK, as io_uring charges
 * its buffers; or, with MVGAL_USERPTR_MIRROR, followed through an MMU
 * notifier and faulted in only while copies run (bo/mvgal_hmm.c).
 * Everything else about the buffer is ordinary: sessions, migrations,
 * eviction and (pinned only) exports use these pages as home.
 *
 * mvgal cannot see the application's writes through its own mapping. So
 * a BEGIN takes every chunk it names that home holds to have been written
 * there (home becomes its only holder and the GPU gets a fresh copy),
 * unless the buffer was registered with MVGAL_USERPTR_MARKS: then the
 * application says what it wrote (BO_MARK) and a BEGIN copies only that,
 * as for the chunks mvgal's own mappings see written.
 */

#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/user.h>
#include <linux/sched/signal.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>

#include "core/mvgal_chunk.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_quota.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_hmm.h"
#include "bo/mvgal_live.h"
#include "bo/mvgal_userptr.h"

/*
 * Only ordinary memory may be registered, never a PFN or I/O map (another
 * device's memory, an mvgal buffer's own mapping). Pinned: anonymous or
 * shmem mappings, not a file's page cache. A mirror is written through
 * faults: it must be writable, and may be a private file mapping (copied
 * on write, as any write to it is) but not a file's shared page cache.
 * Return: 0, -EFAULT (a mirror read-only) or -EINVAL.
 */
static int mvgal_userptr_vma_ok(struct vm_area_struct *vma, bool mirror)
{
	if (mirror && !(vma->vm_flags & VM_WRITE))
		return -EFAULT;
	if (vma->vm_flags & (VM_IO | VM_PFNMAP | VM_MIXEDMAP))
		return -EINVAL;
	if (mirror)
		return vma->vm_file && (vma->vm_flags & VM_SHARED) &&
		       !shmem_file(vma->vm_file) ? -EINVAL : 0;
	return !vma_is_anonymous(vma) &&
	       !(vma->vm_file && shmem_file(vma->vm_file)) ? -EINVAL : 0;
}

/*
 * Every byte of the range must be mapped, by mappings
 * mvgal_userptr_vma_ok() takes. Return: 0, -EFAULT (a hole) or -EINVAL.
 */
static int mvgal_userptr_vmas_ok(struct mm_struct *mm, unsigned long start,
				 unsigned long end, bool mirror)
{
	struct vm_area_struct *vma;
	unsigned long at = start;
	int ret = 0;

	mmap_read_lock(mm);
	while (at < end && !ret) {
		vma = vma_lookup(mm, at);
		ret = vma ? mvgal_userptr_vma_ok(vma, mirror) : -EFAULT;
		if (!ret)
			at = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return ret;
}

/* Another registration of @mf by @mm overlapping [start, start + n pages)? */
static bool mvgal_userptr_overlaps(struct mvgal_file *mf, struct mm_struct *mm,
				   unsigned long start, unsigned long n)
{
	struct mvgal_userptr *u;

	lockdep_assert_held(&mf->userptr_lock);
	list_for_each_entry(u, &mf->userptrs, link)
		if (u->mm == mm && start < u->start + (u->npages << PAGE_SHIFT) &&
		    u->start < start + (n << PAGE_SHIFT))
			return true;
	return false;
}

/* Pins the range's pages into @pages: 0 or -errno, nothing held then. */
static int mvgal_userptr_get_pages(unsigned long start, unsigned long n,
				   struct page **pages)
{
	long got = pin_user_pages_fast(start, n, FOLL_WRITE | FOLL_LONGTERM,
				       pages);

	if (got == n && mvgal_hmm_pages_ok(pages, n))
		return 0;
	if (got > 0)
		unpin_user_pages(pages, got);
	if (got == n)
		return -EINVAL;
	return got < 0 ? got : -EFAULT;
}

/* The pinned pages become the buffer's: nothing can fail any more. */
static int mvgal_userptr_store(struct mvgal_bo *bo, struct page **pages)
{
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	unsigned long i;
	int ret;

	for (i = 0; i < bo->npages; i++) {
		ret = xa_err(xa_store(&bo->pages, i, pages[i],
				      GFP_KERNEL_ACCOUNT));
		if (ret) {
			/* Those stored so far leave the array again. */
			while (i--)
				xa_erase(&bo->pages, i);
			return ret;
		}
	}
	bo->nr_pages = bo->npages;
	bo->nid = page_to_nid(pages[0]);
	atomic64_add(bo->npages, &mdev->host_pages);
	return 0;
}

/*
 * Registers @u with @mf unless it overlaps one of the same process's
 * there: 0 or -EEXIST.
 */
static int mvgal_userptr_claim(struct mvgal_file *mf, struct mvgal_userptr *u)
{
	int ret = 0;

	spin_lock(&mf->userptr_lock);
	if (mvgal_userptr_overlaps(mf, u->mm, u->start, u->npages))
		ret = -EEXIST;
	else
		list_add_tail(&u->link, &mf->userptrs);
	spin_unlock(&mf->userptr_lock);
	return ret;
}

static void mvgal_userptr_drop(struct mvgal_file *mf, struct mvgal_userptr *u)
{
	spin_lock(&mf->userptr_lock);
	list_del_init(&u->link);
	spin_unlock(&mf->userptr_lock);
}

/*
 * The pages count against their user's RLIMIT_MEMLOCK over all its
 * processes, as io_uring counts its buffers (a charge on one process's
 * mm would end with that process while the pages stay pinned), and show
 * in the process's VmPin. Atomic, so that uncharging needs no lock.
 * Return: 0 or -ENOMEM (beyond the limit without CAP_IPC_LOCK).
 */
static int mvgal_userptr_charge(struct mvgal_userptr *u)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	unsigned long cur = atomic_long_read(&u->user->locked_vm), new;

	do {
		new = cur + u->npages;
		if (new > limit && !capable(CAP_IPC_LOCK))
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&u->user->locked_vm, &cur, new));
	atomic64_add(u->npages, &u->mm->pinned_vm);
	return 0;
}

static void mvgal_userptr_uncharge(struct mvgal_userptr *u)
{
	atomic_long_sub(u->npages, &u->user->locked_vm);
	atomic64_sub(u->npages, &u->mm->pinned_vm);
}

/**
 * mvgal_userptr_may_charge() - would @npages more pages fit the caller's
 * RLIMIT_MEMLOCK?
 * @npages: pages of a registration about to be made
 *
 * Asked before anything is made for the registration, so that one far
 * beyond the limit costs the kernel nothing; mvgal_userptr_pin() takes
 * the charge itself (another registration may come in between).
 *
 * Return: 0 or -ENOMEM (beyond the limit without CAP_IPC_LOCK).
 */
int mvgal_userptr_may_charge(unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;

	if (npages + atomic_long_read(&current_user()->locked_vm) > limit &&
	    !capable(CAP_IPC_LOCK))
		return -ENOMEM;
	return 0;
}

/*
 * Charges @u, then pins its pages and stores them as @bo's: 0, or -errno
 * with nothing charged or held. The list of the pages (8 bytes a page)
 * is made only once the charge is taken, so that what a refused call
 * allocates does not grow with the range; it lives for this call only.
 */
static int mvgal_userptr_charge_pin(struct mvgal_bo *bo,
				    struct mvgal_userptr *u)
{
	struct page **pages;
	int ret;

	ret = mvgal_userptr_charge(u);
	if (ret)
		return ret;
	pages = kvmalloc_array(u->npages, sizeof(*pages), GFP_KERNEL_ACCOUNT |
			       __GFP_NOWARN);
	if (!pages) {
		ret = -ENOMEM;
		goto out_uncharge;
	}
	ret = mvgal_userptr_get_pages(u->start, u->npages, pages);
	if (!ret) {
		ret = mvgal_userptr_store(bo, pages);
		if (ret)
			unpin_user_pages(pages, u->npages);
	}
	kvfree(pages);
out_uncharge:
	if (ret)
		mvgal_userptr_uncharge(u);
	return ret;
}

/* Pins and charges @u's pages, or follows them (mirrored): 0 or -errno. */
static int mvgal_userptr_take(struct mvgal_bo *bo, struct mvgal_userptr *u,
			      bool mirror)
{
	int ret;

	if (!mirror)
		return mvgal_userptr_charge_pin(bo, u);
	bo->userptr = u;
	ret = mvgal_hmm_register(bo, u->start);
	if (ret)
		bo->userptr = NULL;
	return ret;
}

/**
 * mvgal_userptr_register() - make the caller's memory at @start the host
 * storage of @bo
 * @bo: a new buffer of npages pages with no storage, charged to its
 *	file (bo->quota)
 * @start: page-aligned user address
 * @flags: MVGAL_USERPTR_MARKS (the application will mark what it writes,
 *	   BO_MARK), MVGAL_USERPTR_MIRROR (follow the pages, do not pin)
 *
 * Return: 0, or -errno with nothing held: -EINVAL (not ordinary memory),
 * -EFAULT (unmapped, or a page that cannot be pinned for writing; for a
 * mirror, memory mapped read-only), -EEXIST (overlaps a registration of
 * the same process on the same file), -ENOMEM (pinned: beyond
 * RLIMIT_MEMLOCK without CAP_IPC_LOCK; or no memory).
 */
int mvgal_userptr_register(struct mvgal_bo *bo, unsigned long start,
			   u32 flags)
{
	bool mirror = flags & MVGAL_USERPTR_MIRROR;
	struct mvgal_file *mf = bo->quota;
	unsigned long n = bo->npages;
	struct mvgal_userptr *u;
	int ret;

	ret = mvgal_userptr_vmas_ok(current->mm, start,
				    start + (n << PAGE_SHIFT), mirror);
	if (ret)
		return ret;
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u)
		return -ENOMEM;
	*u = (struct mvgal_userptr) {
		.mm = current->mm, .user = current_user(), .start = start,
		.npages = n, .marks = flags & MVGAL_USERPTR_MARKS,
	};
	ret = mvgal_userptr_claim(mf, u);
	if (ret)
		goto out_free;
	ret = mvgal_userptr_take(bo, u, mirror);
	if (ret) {
		mvgal_userptr_drop(mf, u);
		goto out_free;
	}
	mmgrab(u->mm);
	get_uid(u->user);
	bo->userptr = u;
	u = NULL;
out_free:
	kfree(u);
	return ret;
}

/**
 * mvgal_userptr_unclaim() - the buffer's last reference went: its range
 * may be registered again at once
 * @bo: a registered buffer whose end may still wait for its fences
 *
 * Any context the last reference may go in (under mvgal_file.lock, in
 * munmap()); the pages stay pinned and charged until
 * mvgal_userptr_release().
 */
void mvgal_userptr_unclaim(struct mvgal_bo *bo)
{
	mvgal_userptr_drop(bo->quota, bo->userptr);
}

/**
 * mvgal_userptr_release() - the buffer goes: its pages are unpinned
 * (dirty: copies home wrote them) and uncharged, or no longer followed
 * @bo: the buffer, with no user left, after mvgal_userptr_unclaim(); a
 *	mirrored one from a work item (mvgal_hmm_unregister())
 */
void mvgal_userptr_release(struct mvgal_bo *bo)
{
	struct mvgal_userptr *u = bo->userptr;
	struct page *page;
	unsigned long i;

	if (u->hmm) {
		mvgal_hmm_unregister(bo);
	} else {
		xa_for_each(&bo->pages, i, page)
			unpin_user_pages_dirty_lock(&page, 1, true);
		mvgal_userptr_uncharge(u);
	}
	free_uid(u->user);
	mmdrop(u->mm);
	kfree(u);
	bo->userptr = NULL;
}

/* Registered and mirrored (nothing pinned)? */
bool mvgal_userptr_mirrored(const struct mvgal_bo *bo)
{
	return bo->userptr && bo->userptr->hmm;
}

/* Registered, and its application does not mark what it writes? */
bool mvgal_userptr_unseen(const struct mvgal_bo *bo)
{
	return bo->userptr && !bo->userptr->marks;
}

/**
 * mvgal_userptr_assume_written() - the chunks a BEGIN names, of a buffer
 * whose application does not mark its writes, are taken as written at
 * home where home holds them: home becomes their only holder
 * @bo: the buffer; caller holds bo->lock, the chunks' records exist
 * @base: the first chunk of @chunks
 * @chunks: the chunks named, a bitmap over @n from @base
 * @n: bits of @chunks
 *
 * A chunk a GPU holds alone (it wrote it, and it has not come home) stays
 * the GPU's: the application's writes to its pages since are not seen.
 * Called before the BEGIN plans its copies; one that fails later leaves
 * the chunks so, which loses nothing (home holds them): the next BEGIN
 * copies them again.
 */
void mvgal_userptr_assume_written(struct mvgal_bo *bo, unsigned long base,
				  const unsigned long *chunks,
				  unsigned long n)
{
	unsigned long i;

	if (!mvgal_userptr_unseen(bo))
		return;
	lockdep_assert_held(&bo->lock);
	spin_lock(&bo->state_lock);
	for_each_set_bit(i, chunks, n)
		mvgal_chunk_written(mvgal_chunk_at(bo, base + i), bo->home_loc);
	spin_unlock(&bo->state_lock);
}

/**
 * mvgal_userptr_mark() - the application wrote chunks [first, last]
 * through its own mapping: home's bytes of them are the current ones
 * @bo: a registered buffer; caller holds bo->lock, has seen its fences
 *	signaled, and ensured the chunks' records
 * @first: first chunk
 * @last: last chunk
 * @home_held: only where home holds the chunk
 *
 * Home becomes the only holder, also of a chunk a GPU held alone (the
 * application's pages win: bring a GPU's writes home before writing),
 * unless @home_held: a chunk a GPU holds alone then stays the GPU's, and
 * one a live session uses is the session's until its END (a mirror's is
 * home's then, unless the session wrote it).
 */
void mvgal_userptr_mark(struct mvgal_bo *bo, unsigned long first,
			unsigned long last, bool home_held)
{
	unsigned long c;

	lockdep_assert_held(&bo->lock);
	spin_lock(&bo->state_lock);
	for (c = first; c <= last; c++) {
		struct mvgal_chunk *ch = mvgal_chunk_at(bo, c);

		if (home_held && !mvgal_chunk_valid_at(ch, bo->home_loc))
			continue;
		/* A mirror's is home's at the END of the last session. */
		if (home_held && mvgal_live_names(bo, c)) {
			if (mvgal_userptr_mirrored(bo))
				mvgal_hmm_defer(bo, c);
			continue;
		}
		mvgal_chunk_filled(ch, bo->home_loc);
		mvgal_chunk_written(ch, bo->home_loc);
	}
	spin_unlock(&bo->state_lock);
}
