// SPDX-License-Identifier: GPL-2.0
/*
 * Mirrored registrations (BO_USERPTR with MVGAL_USERPTR_MIRROR): the
 * application's memory is kept as amdgpu and xe keep user memory, without
 * a pin. An MMU interval notifier over the range tells mvgal when the
 * kernel changes what the range maps; a copy that needs the pages has
 * them faulted in by hmm_range_fault() under the notifier's sequence
 * (for writing only if it writes them), holds a reference on them while
 * it runs, and lets them go once the buffer is idle. Between copies the
 * pages are ordinary memory: they swap, migrate, merge and compact, and
 * count against no memlock limit.
 *
 * A fault takes the process's mmap_lock, which a fault on an mvgal
 * mapping holds while it takes a buffer's lock: so the pages are faulted
 * before any buffer lock is taken. A copy planned under bo->lock that
 * finds its pages missing, or held under a sequence an invalidation
 * ended, records what it wanted and fails with -EAGAIN, changing
 * nothing; the ioctl layer faults what was wanted and runs the call
 * again (mvgal_hmm_retry()).
 *
 * The held pages sit in bo->pages, where every copy finds host pages.
 * An invalidation sets the new sequence, waits with a deadline for the
 * work that may use held pages (as amdgpu's and xe's notifiers wait for
 * their fences) and has the held pages let go, then takes the change in
 * as a write of home by the application unless only the protection
 * changed: home, where it held a chunk, becomes its only holder (the
 * GPUs' copies are fetched again when next needed); a chunk a GPU holds
 * alone stays the GPU's and comes home into whatever the range maps
 * then; a chunk a live session uses is the session's until its END, and
 * home's then unless the session wrote it.
 *
 * What a call planned on a mirror counts (its chunks marked, its fence
 * in the reservation, its sessions live) only if no invalidation came
 * between its planning and that moment: both are checked and made under
 * mvgal_hmm_publish_sem, under which the notifier sets the new sequence
 * and, later, changes the chunk states, as xe's exec and notifier share
 * vm->userptr.notifier_lock. A call that lost the race changes nothing
 * and runs again; one that won is seen by the notifier, which waits for
 * its copies before the page tables change.
 */

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/dma-resv.h>
#include <linux/hmm.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/shmem_fs.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/rwsem.h>
#include <linux/workqueue.h>

#include "dev/mvgal_device.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_coherence.h"
#include "bo/mvgal_hmm.h"
#include "bo/mvgal_live.h"
#include "bo/mvgal_userptr.h"

/**
 * mvgal_hmm_pages_ok() - are @pages all anonymous or shmem, as a
 * registration of either mode must be?
 * @pages: pages of a range, referenced
 * @n: how many
 *
 * Asked of the pages themselves: the mapping may have changed since the
 * registration looked (a page cache page written through the kernel
 * would be written without the file system knowing).
 */
bool mvgal_hmm_pages_ok(struct page **pages, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct folio *folio = page_folio(pages[i]);
		struct address_space *m = READ_ONCE(folio->mapping);

		if (!folio_test_anon(folio) &&
		    (!m || ((unsigned long)m & PAGE_MAPPING_FLAGS) ||
		     !shmem_mapping(m)))
			return false;
	}
	return true;
}

#if IS_ENABLED(CONFIG_HMM_MIRROR)

/*
 * Orders the notifier's new sequence and its changes of chunk states
 * against a call's check of both and its marks, fence and live sessions:
 * read-held by every call that makes what it planned on a mirror count,
 * write-held by the notifier twice, briefly: while it sets the sequence,
 * and after the wait while it changes the states. The notifier runs in
 * reclaim: nothing allocates under it.
 */
static DECLARE_RWSEM(mvgal_hmm_publish_sem);

/*
 * A test's hook: which buffer's calls sleep before they make its copies
 * count, how long, and how many times one did, so that a test can
 * invalidate the range in between (debugfs hmm_publish_delay). 0 (no
 * buffer) in normal use.
 */
static u64 mvgal_hmm_delay_id;
static unsigned int mvgal_hmm_delay_ms;
static atomic_t mvgal_hmm_delays = ATOMIC_INIT(0);

/*
 * The mark of a held page faulted in for writing: only such a page may be
 * written (one faulted for reading may be the zero page, or a page still
 * shared copy-on-write, or one whose write-protection the application
 * watches), and only such a page is dirtied when let go.
 */
#define MVGAL_HMM_WRITABLE	XA_MARK_0

/* Held pages go this long after the buffer's last use of them. */
#define MVGAL_HMM_HOLD		msecs_to_jiffies(100)
/*
 * How long an invalidation waits for the work using held pages: longer
 * than any job may run (a job past its timeout is ended, its fence
 * signaled with an error), so it is reached only by a broken job.
 */
#define MVGAL_HMM_DEADLINE	msecs_to_jiffies(30000)

/* A mirrored registration. */
struct mvgal_hmm {
	struct mmu_interval_notifier notifier;
	struct mvgal_bo *bo;
	unsigned long start;
	/*
	 * Guards the want, and orders the notifier's new sequence against a fault's check of
	 * it. The notifier takes it: nothing that allocates or sleeps runs
	 * under it.
	 */
	spinlock_t lock;
	/* The sequence the held pages were faulted under; under bo->lock. */
	unsigned long seq;
	/*
	 * Chunks (bits) a call wanted the pages of and did not find held,
	 * and of those, the chunks it wanted to write.
	 */
	bool wanted;
	unsigned long *want;
	unsigned long *want_wr;
	/*
	 * Chunks an invalidation or a home-held mark (mvgal_hmm_defer())
	 * found in use by a live session, home holding them: home wins once
	 * no live session names them (mvgal_hmm_end()). Under
	 * bo->state_lock.
	 */
	unsigned long *deferred;
	/*
	 * Changes of chunk states the notifier made (home won; a deferral
	 * changes none): a call that planned from the states of before
	 * counts only if none came since it looked (mvgal_hmm_gen()).
	 * Written under mvgal_hmm_publish_sem held to write.
	 */
	unsigned long gen;
	unsigned long last_use;		/* jiffies; under bo->lock */
	struct delayed_work release;
	struct list_head link;		/* on mvgal_hmm_list */
};

/*
 * Every mirrored registration, for the ioctl layer to find what a failed
 * call wanted: the want names its buffer, whichever file the call came
 * through (a buffer may be reached through several).
 */
static LIST_HEAD(mvgal_hmm_list);
static DEFINE_SPINLOCK(mvgal_hmm_list_lock);

static struct mvgal_hmm *mvgal_hmm_of(struct mvgal_bo *bo)
{
	return bo->userptr->hmm;
}

/*
 * Waits for mvgal's own jobs on @bo, the only work that may use held
 * pages (their fences are the buffer's KERNEL ones); GPU work that
 * sessions ended with uses the GPUs' copies, not these pages.
 */
static long mvgal_hmm_wait_idle(struct mvgal_bo *bo, bool intr, long timeout)
{
	return dma_resv_wait_timeout(bo->base.resv, DMA_RESV_USAGE_KERNEL,
				     intr, timeout);
}

static bool mvgal_hmm_idle(struct mvgal_bo *bo)
{
	return dma_resv_test_signaled(bo->base.resv, DMA_RESV_USAGE_KERNEL);
}

/*
 * Lets every held page go; those held for writing dirtied, as a copy home
 * may have written them (a page in the swap cache would otherwise be
 * dropped as clean). Caller holds bo->lock and has seen the buffer idle.
 */
static void mvgal_hmm_drop(struct mvgal_hmm *h)
{
	struct mvgal_bo *bo = h->bo;
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	struct page *page;
	unsigned long i;

	lockdep_assert_held(&bo->lock);
	xa_for_each(&bo->pages, i, page) {
		if (xa_get_mark(&bo->pages, i, MVGAL_HMM_WRITABLE))
			set_page_dirty_lock(page);
		xa_erase(&bo->pages, i);
		put_page(page);
	}
	atomic64_sub(bo->nr_pages, &mdev->host_pages);
	WRITE_ONCE(bo->nr_pages, 0);
}

/*
 * Lets the held pages go once the buffer is idle and has not used them
 * for MVGAL_HMM_HOLD, or at once when an invalidation made them stale.
 */
static void mvgal_hmm_release_work(struct work_struct *work)
{
	struct mvgal_hmm *h = container_of(to_delayed_work(work),
					   struct mvgal_hmm, release);
	struct mvgal_bo *bo = h->bo;
	unsigned long due;

	mvgal_hmm_wait_idle(bo, false, MAX_SCHEDULE_TIMEOUT);
	mutex_lock(&bo->lock);
	due = h->last_use + MVGAL_HMM_HOLD;
	if (!bo->nr_pages)
		goto out;
	if (!mmu_interval_check_retry(&h->notifier, h->seq) &&
	    time_before(jiffies, due)) {
		queue_delayed_work(system_unbound_wq, &h->release,
				   due - jiffies);
		goto out;
	}
	if (!mvgal_hmm_idle(bo)) {
		queue_delayed_work(system_unbound_wq, &h->release, 1);
		goto out;
	}
	mvgal_hmm_drop(h);
out:
	mutex_unlock(&bo->lock);
}

/*
 * What the range maps changed for [start, end): home's bytes there are
 * taken as written by the application. A chunk a live session uses is
 * the session's until its END, and home wins then; a chunk without a
 * record is at home alone already. Allocates nothing. Return: did any
 * chunk's state change?
 */
static bool mvgal_hmm_home_wins(struct mvgal_hmm *h, unsigned long start,
				unsigned long end)
{
	struct mvgal_bo *bo = h->bo;
	unsigned long c, first, last;
	bool changed = false;

	start = max(start, h->start);
	end = min(end, h->start + (bo->npages << PAGE_SHIFT));
	if (start >= end)
		return false;
	first = (start - h->start) >> bo->chunk_shift;
	last = (end - 1 - h->start) >> bo->chunk_shift;
	spin_lock(&bo->state_lock);
	for (c = first; c <= last; c++) {
		struct mvgal_chunk *ch = mvgal_chunk_find(bo, c);

		if (!ch || !mvgal_chunk_valid_at(ch, bo->home_loc))
			continue;
		if (mvgal_live_names(bo, c)) {
			mvgal_hmm_defer(bo, c);
		} else {
			changed |= ch->valid != BIT(bo->home_loc);
			mvgal_chunk_written(ch, bo->home_loc);
		}
	}
	spin_unlock(&bo->state_lock);
	return changed;
}

/*
 * Does @range leave the bytes the range maps as they were? A change of
 * protection alone (mprotect, NUMA balancing's hinting, the write
 * protection a fork puts on copy-on-write pages, userfaultfd's and soft
 * dirty tracking's write protection) moves no byte: the GPUs' copies stay
 * good. Every other event may put other bytes there.
 */
static bool mvgal_hmm_keeps_bytes(const struct mmu_notifier_range *range)
{
	switch (range->event) {
	case MMU_NOTIFY_PROTECTION_VMA:
	case MMU_NOTIFY_PROTECTION_PAGE:
	case MMU_NOTIFY_SOFT_DIRTY:
		return true;
	default:
		return false;
	}
}

/*
 * &mmu_interval_notifier_ops.invalidate. Called before the kernel changes
 * the range's page tables: held pages are still mapped while the copies
 * using them finish. Never called again for a range once
 * mmu_interval_notifier_remove() returned.
 */
static bool mvgal_hmm_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct mvgal_hmm *h = container_of(mni, struct mvgal_hmm, notifier);
	/* The OOM reaper may not wait: it tries again later, as with xe. */
	if (!mmu_notifier_range_blockable(range))
		return false;
	/*
	 * From here no copy of the held pages counts (a call checks the
	 * sequence under the same lock), and none is faulted anew before
	 * the invalidation ends: the work to wait for is what counted so
	 * far, its fences in the reservation.
	 */
	down_write(&mvgal_hmm_publish_sem);
	spin_lock(&h->lock);
	mmu_interval_set_seq(mni, cur_seq);
	spin_unlock(&h->lock);
	up_write(&mvgal_hmm_publish_sem);
	/*
	 * Read without bo->lock: pages stored after this read were faulted
	 * under the sequence just ended, and no call uses them. A change of
	 * protection of the mapping (not a fork's of the pages) leaves the
	 * pages mapped as they were: the release waits for the work using
	 * them, not the caller (mprotect, the write-watch's re-protection
	 * inside a BEGIN, a NUMA hinting scan).
	 */
	if (READ_ONCE(h->bo->nr_pages)) {
		if (range->event != MMU_NOTIFY_PROTECTION_VMA &&
		    range->event != MMU_NOTIFY_SOFT_DIRTY &&
		    mvgal_hmm_wait_idle(h->bo, false, MVGAL_HMM_DEADLINE) <= 0)
			pr_warn_ratelimited("mvgal: buffer %llu: its work outlived an invalidation of its registered range\n",
					    h->bo->id);
		mod_delayed_work(system_unbound_wq, &h->release, 0);
	}
	/*
	 * After that work: one that failed has given its chunks back. The
	 * states change at once for a call checking under the same lock: it
	 * read them either after, or its sessions are live by now.
	 */
	if (!mvgal_hmm_keeps_bytes(range)) {
		down_write(&mvgal_hmm_publish_sem);
		if (mvgal_hmm_home_wins(h, range->start, range->end)) {
			/* Pairs with mvgal_hmm_gen(): who reads the new
			 * value sees the states of after.
			 */
			smp_store_release(&h->gen, h->gen + 1);
		}
		up_write(&mvgal_hmm_publish_sem);
	}
	return true;
}

static const struct mmu_interval_notifier_ops mvgal_hmm_ops = {
	.invalidate = mvgal_hmm_invalidate,
};

/*
 * Takes a reference on each of @range's @n pages, into @pages, if the
 * sequence they were found under still holds: they are still mapped
 * then, and the invalidation that would unmap them waits for @h->lock.
 */
static bool mvgal_hmm_take(struct mvgal_hmm *h, struct hmm_range *range,
			   unsigned long n, struct page **pages)
{
	unsigned long i;
	bool ok;

	spin_lock(&h->lock);
	ok = !mmu_interval_read_retry(&h->notifier, range->notifier_seq);
	for (i = 0; ok && i < n; i++) {
		pages[i] = hmm_pfn_to_page(range->hmm_pfns[i]);
		get_page(pages[i]);
	}
	spin_unlock(&h->lock);
	return ok;
}

/*
 * Faults pages [lo, lo + n) of the range in (for writing if @write) and
 * takes a reference on each while the sequence they were found under
 * still holds. Pages only read are faulted for reading: a write fault
 * would break copy-on-write sharing and lift a write-protection the
 * application watches its writes by. Return: 0
 * (*@seq that sequence), -EFAULT (a page the range no longer maps, or
 * maps read-only for a write), -EINVAL (memory that may not be
 * registered: a file's page cache mapped over the range), -EINTR,
 * -EAGAIN (invalidated for too long), -ENOMEM.
 */
static int mvgal_hmm_fault(struct mvgal_hmm *h, unsigned long lo,
			   unsigned long n, struct page **pages,
			   unsigned long *seq, bool write)
{
	struct mm_struct *mm = h->notifier.mm;
	unsigned long timeout, i, *pfns;
	struct hmm_range range = {
		.notifier = &h->notifier,
		.start = h->start + (lo << PAGE_SHIFT),
		.end = h->start + ((lo + n) << PAGE_SHIFT),
		.default_flags = HMM_PFN_REQ_FAULT |
				 (write ? HMM_PFN_REQ_WRITE : 0),
	};
	int ret;

	pfns = kvmalloc_array(n, sizeof(*pfns), GFP_KERNEL_ACCOUNT);
	if (!pfns)
		return -ENOMEM;
	range.hmm_pfns = pfns;
	ret = -EFAULT;		/* the process is gone */
	if (!mmget_not_zero(mm))
		goto out_free;
	timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
	for (;;) {
		range.notifier_seq = mmu_interval_read_begin(&h->notifier);
		ret = mmap_read_lock_killable(mm);
		if (ret)
			break;
		ret = hmm_range_fault(&range);
		mmap_read_unlock(mm);
		if (!ret && !mvgal_hmm_take(h, &range, n, pages))
			ret = -EBUSY;
		if (ret != -EBUSY)
			break;
		if (time_after(jiffies, timeout)) {
			ret = -EAGAIN;
			break;
		}
	}
	if (ret)
		goto out_put;
	*seq = range.notifier_seq;
	if (!mvgal_hmm_pages_ok(pages, n)) {
		for (i = 0; i < n; i++)
			put_page(pages[i]);
		ret = -EINVAL;
	}
out_put:
	mmput(mm);
out_free:
	kvfree(pfns);
	return ret == -EPERM ? -EFAULT : ret;
}

/*
 * Would installing @pages (of sequence @seq) at [lo, lo + n) replace
 * held pages: pages of another sequence, or other pages? (Without an
 * invalidation in between a range maps the same pages; checked all the
 * same, as a page a copy may use is never let go behind it.) Under
 * bo->lock.
 */
static bool mvgal_hmm_stale(struct mvgal_hmm *h, unsigned long lo,
			    unsigned long n, struct page **pages,
			    unsigned long seq)
{
	struct mvgal_bo *bo = h->bo;
	struct page *old;
	unsigned long i;

	if (!bo->nr_pages)
		return false;
	if (h->seq != seq)
		return true;
	for (i = 0; i < n; i++) {
		old = xa_load(&bo->pages, lo + i);
		if (old && old != pages[i])
			return true;
	}
	return false;
}

/*
 * Makes @pages (of sequence @seq; faulted for writing if @write) the
 * buffer's held pages [lo, lo + n); those it already held under @seq
 * stay (marked writable now if @write), and the entries of @pages that
 * are not taken are left for the caller to put. Held pages of an older
 * sequence go first, once the buffer is idle.
 */
static int mvgal_hmm_install(struct mvgal_hmm *h, unsigned long lo,
			     unsigned long n, struct page **pages,
			     unsigned long seq, bool write)
{
	struct mvgal_bo *bo = h->bo;
	struct mvgal_device *mdev = to_mvgal(bo->base.dev);
	unsigned long i, added = 0;
	long t;
	int ret;

	ret = mutex_lock_interruptible(&bo->lock);
	if (ret)
		return ret;
	/* Invalidated since: the caller puts them, the next try faults. */
	if (mmu_interval_check_retry(&h->notifier, seq))
		goto out;
	if (mvgal_hmm_stale(h, lo, n, pages, seq)) {
		t = mvgal_hmm_wait_idle(bo, true, MAX_SCHEDULE_TIMEOUT);
		if (t < 0) {
			ret = t;
			goto out;
		}
		mvgal_hmm_drop(h);
	}
	for (i = 0; i < n && !ret; i++) {
		if (!xa_load(&bo->pages, lo + i)) {
			ret = xa_err(xa_store(&bo->pages, lo + i, pages[i],
					      GFP_KERNEL_ACCOUNT));
			if (ret)
				break;
			pages[i] = NULL;
			added++;
		}
		if (write)
			xa_set_mark(&bo->pages, lo + i, MVGAL_HMM_WRITABLE);
	}
	WRITE_ONCE(bo->nr_pages, bo->nr_pages + added);
	atomic64_add(added, &mdev->host_pages);
	h->seq = seq;
	h->last_use = jiffies;
out:
	mutex_unlock(&bo->lock);
	if (added)
		queue_delayed_work(system_unbound_wq, &h->release,
				   MVGAL_HMM_HOLD);
	return ret;
}

/* Faults pages [lo, hi] in (for writing if @write), holds them: 0/-errno. */
static int mvgal_hmm_hold(struct mvgal_hmm *h, unsigned long lo,
			  unsigned long hi, bool write)
{
	unsigned long i, n = hi - lo + 1, seq;
	struct page **pages;
	int ret;

	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return -ENOMEM;
	ret = mvgal_hmm_fault(h, lo, n, pages, &seq, write);
	if (!ret) {
		ret = mvgal_hmm_install(h, lo, n, pages, seq, write);
		for (i = 0; i < n; i++)
			if (pages[i])
				put_page(pages[i]);
	}
	kvfree(pages);
	return ret;
}

/*
 * Are the pages of chunk @c held (for writing if @write; and, if @fresh,
 * of the sequence that holds now)? Under bo->lock.
 */
static bool mvgal_hmm_chunk_held(struct mvgal_hmm *h, unsigned long c,
				 bool fresh, bool write)
{
	struct mvgal_bo *bo = h->bo;
	unsigned long i = c << (bo->chunk_shift - PAGE_SHIFT);
	unsigned long end = min(bo->npages, i + (1UL << (bo->chunk_shift -
							 PAGE_SHIFT)));

	if (fresh && mmu_interval_check_retry(&h->notifier, h->seq))
		return false;
	for (; i < end; i++)
		if (!xa_load(&bo->pages, i) ||
		    (write && !xa_get_mark(&bo->pages, i, MVGAL_HMM_WRITABLE)))
			return false;
	return true;
}

/*
 * Records chunk @c as wanted (for writing if @write) unless held so: was
 * it? Under bo->lock.
 */
static bool mvgal_hmm_want(struct mvgal_hmm *h, unsigned long c,
			   bool fresh, bool write)
{
	if (mvgal_hmm_chunk_held(h, c, fresh, write))
		return false;
	spin_lock(&h->lock);
	__set_bit(c, h->want);
	if (write)
		__set_bit(c, h->want_wr);
	h->wanted = true;
	spin_unlock(&h->lock);
	return true;
}

/* The chunks of bytes [off, off + len) held, or wanted: 0 or -EAGAIN. */
static int mvgal_hmm_span(struct mvgal_bo *bo, u64 off, u64 len, bool fresh,
			  bool write)
{
	struct mvgal_hmm *h = mvgal_hmm_of(bo);
	unsigned long c, first, last;
	bool missing = false;

	lockdep_assert_held(&bo->lock);
	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	for (c = first; c <= last; c++)
		missing |= mvgal_hmm_want(h, c, fresh, write);
	if (missing)
		return -EAGAIN;
	h->last_use = jiffies;
	return 0;
}

/**
 * mvgal_hmm_ready() - are the held pages of bytes [off, off + len) of a
 * mirrored buffer there and current?
 * @bo: the buffer; caller holds bo->lock
 * @off: byte offset
 * @len: bytes, at least 1
 * @write: the caller writes them (copies home into them)
 *
 * Return: 0, or -EAGAIN with the chunks lacking them recorded as wanted:
 * the caller fails, changing nothing, and mvgal_hmm_retry() faults them
 * in.
 */
int mvgal_hmm_ready(struct mvgal_bo *bo, u64 off, u64 len, bool write)
{
	return mvgal_hmm_span(bo, off, len, true, write);
}

/**
 * mvgal_hmm_held() - are the pages of bytes [off, off + len) of a mirror
 * held, current or not?
 * @bo: the buffer; caller holds bo->lock
 * @off: byte offset
 * @len: bytes, at least 1
 * @write: the caller writes them
 *
 * For a copy that its caller readied (mvgal_hmm_ready()) under the same
 * hold of bo->lock: the pages cannot go meanwhile, and an invalidation
 * since only means the copy's bytes count as the application's write
 * (the notifier took it in so).
 *
 * Return: 0, or -EAGAIN with the missing chunks wanted.
 */
int mvgal_hmm_held(struct mvgal_bo *bo, u64 off, u64 len, bool write)
{
	return mvgal_hmm_span(bo, off, len, false, write);
}

/**
 * mvgal_hmm_ready_chunks() - are the held pages there of every chunk of
 * [first, last] that @dst lacks and whose copy home takes part in?
 * @bo: the buffer; caller holds bo->lock
 * @first: first chunk
 * @last: last chunk
 * @dst: where the chunks are to be copied
 *
 * Asked before a fetch plans its first copy, so that a mirror's pages
 * are wanted, and faulted in, all at once rather than a chunk per try.
 * A chunk copied to a GPU counts when home holds it (home is the likely
 * source); one that only GPUs hold needs no page of the application's.
 *
 * Return: 0 (also for any buffer but a mirror), or -EAGAIN as
 * mvgal_hmm_ready().
 */
int mvgal_hmm_ready_chunks(struct mvgal_bo *bo, unsigned long first,
			   unsigned long last, unsigned int dst)
{
	struct mvgal_hmm *h;
	bool missing = false, home;
	unsigned long c;

	if (!bo->userptr || !bo->userptr->hmm)
		return 0;
	h = mvgal_hmm_of(bo);
	for (c = mvgal_next_missing(bo, first, last, dst); c <= last;
	     c = mvgal_next_missing(bo, c + 1, last, dst)) {
		spin_lock(&bo->state_lock);
		home = mvgal_chunk_valid_at(mvgal_chunk_peek(bo, c),
					    bo->home_loc);
		spin_unlock(&bo->state_lock);
		if (dst == bo->home_loc || home)
			missing |= mvgal_hmm_want(h, c, true,
						  dst == bo->home_loc);
	}
	if (missing)
		return -EAGAIN;
	h->last_use = jiffies;
	return 0;
}

/**
 * mvgal_hmm_publish_lock() - enter the section in which a call makes what
 * it planned on mirrors count: its chunk marks, its job's fence, its
 * sessions going live
 * @bo: a mirror the call planned on (for the test hook)
 *
 * After every allocation the call makes (the notifier, in reclaim, waits
 * for the section), under the buffers' locks; mvgal_hmm_current() and
 * mvgal_hmm_gen_check() say whether what was planned may count.
 */
void mvgal_hmm_publish_lock(const struct mvgal_bo *bo)
{
	if (unlikely(READ_ONCE(mvgal_hmm_delay_id) == bo->id)) {
		atomic_inc(&mvgal_hmm_delays);
		msleep(READ_ONCE(mvgal_hmm_delay_ms));
	}
	down_read(&mvgal_hmm_publish_sem);
}

/* mvgal_hmm_publish_unlock() - leave mvgal_hmm_publish_lock()'s section */
void mvgal_hmm_publish_unlock(void)
{
	up_read(&mvgal_hmm_publish_sem);
}

/* Does home hold any chunk of bytes [off, off + len)? */
static bool mvgal_hmm_home_any(struct mvgal_bo *bo, u64 off, u64 len)
{
	unsigned long c, first, last;
	bool any = false;

	mvgal_chunk_span(off, len, bo->chunk_shift, &first, &last);
	spin_lock(&bo->state_lock);
	for (c = first; c <= last && !any; c++)
		any = mvgal_chunk_valid_at(mvgal_chunk_peek(bo, c),
					   bo->home_loc);
	spin_unlock(&bo->state_lock);
	return any;
}

/**
 * mvgal_hmm_current() - may a copy of bytes [off, off + len) of @bo from
 * @src to @dst, planned under this hold of bo->lock, count?
 * @bo: the buffer; caller holds bo->lock and mvgal_hmm_publish_lock()
 * @off: byte offset
 * @len: bytes, at least 1
 * @src: where the copy reads
 * @dst: where it writes
 *
 * A copy that reads or writes home used the held pages; one between GPUs
 * of chunks home holds too was planned from states an invalidation
 * changes (home becomes their only holder). Either counts only if the
 * range was not invalidated since the pages were faulted: the planner
 * saw them current then, so the states it read still hold.
 *
 * Return: 0 (also for any buffer but a mirror), or -EAGAIN with the
 * chunks wanted: the caller changes nothing, and its call runs again.
 */
int mvgal_hmm_current(struct mvgal_bo *bo, u64 off, u64 len,
		      unsigned int src, unsigned int dst)
{
	if (!bo->userptr || !bo->userptr->hmm)
		return 0;
	if (src != bo->home_loc && dst != bo->home_loc &&
	    !mvgal_hmm_home_any(bo, off, len))
		return 0;
	return mvgal_hmm_span(bo, off, len, true, dst == bo->home_loc);
}

/**
 * mvgal_hmm_gen() - the notifier's changes of @bo's chunk states so far
 * @bo: a buffer the caller holds a reference on, before the call reads
 *	any of its chunk states
 *
 * Return: a value for mvgal_hmm_gen_check() (0 for any buffer but a
 * mirror).
 */
unsigned long mvgal_hmm_gen(struct mvgal_bo *bo)
{
	if (!bo->userptr || !bo->userptr->hmm)
		return 0;
	/* Pairs with the notifier's release: the states read next are at
	 * least those of this value.
	 */
	return smp_load_acquire(&mvgal_hmm_of(bo)->gen);
}

/**
 * mvgal_hmm_gen_check() - did the notifier leave @bo's chunk states as
 * they were when mvgal_hmm_gen() gave @gen?
 * @bo: the buffer; caller holds mvgal_hmm_publish_lock()
 * @gen: mvgal_hmm_gen() before the call read the states
 *
 * Return: 0, or -EAGAIN: the call changes nothing and runs again.
 */
int mvgal_hmm_gen_check(struct mvgal_bo *bo, unsigned long gen)
{
	if (!bo->userptr || !bo->userptr->hmm)
		return 0;
	return mvgal_hmm_of(bo)->gen == gen ? 0 : -EAGAIN;
}

/**
 * mvgal_hmm_defer() - home wins chunk @c of @bo once no live session
 * names it (at the END of the last)
 * @bo: a mirror; caller holds bo->state_lock
 * @c: a chunk a live session names
 */
void mvgal_hmm_defer(struct mvgal_bo *bo, unsigned long c)
{
	lockdep_assert_held(&bo->state_lock);
	__set_bit(c, mvgal_hmm_of(bo)->deferred);
}

/**
 * mvgal_hmm_end() - a session stopped using @bo: home wins the chunks an
 * invalidation found in use by it, now that no live session names them
 * @bo: the buffer; caller holds bo->lock
 *
 * A chunk the session wrote is its GPU's alone by now: its writes came
 * after the change and stay. Any other goes to home alone, and the GPUs'
 * copies are fetched again when next needed.
 */
void mvgal_hmm_end(struct mvgal_bo *bo)
{
	struct mvgal_hmm *h;
	unsigned long c;

	if (!bo->userptr || !bo->userptr->hmm)
		return;
	h = mvgal_hmm_of(bo);
	lockdep_assert_held(&bo->lock);
	spin_lock(&bo->state_lock);
	for_each_set_bit(c, h->deferred, bo->nchunks) {
		struct mvgal_chunk *ch;

		if (mvgal_live_names(bo, c))
			continue;
		__clear_bit(c, h->deferred);
		ch = mvgal_chunk_at(bo, c);
		if (mvgal_chunk_valid_at(ch, bo->home_loc))
			mvgal_chunk_written(ch, bo->home_loc);
	}
	spin_unlock(&bo->state_lock);
}

/**
 * mvgal_hmm_delay_set() - the test hook: calls that planned on buffer @id
 * (the first mirror a job or session names) sleep @ms before what they
 * planned counts, a CPU access's fetch once per chunk
 * @id: the buffer's id
 * @ms: 0 for no sleep
 */
void mvgal_hmm_delay_set(u64 id, unsigned int ms)
{
	WRITE_ONCE(mvgal_hmm_delay_ms, ms);
	WRITE_ONCE(mvgal_hmm_delay_id, ms ? id : 0);
}

/**
 * mvgal_hmm_delay_get() - the test hook's settings, and its sleeps so far
 * @id: (out) the buffer, 0 for none
 * @ms: (out) how long
 * @delays: (out) how many sleeps began
 */
void mvgal_hmm_delay_get(u64 *id, unsigned int *ms, unsigned int *delays)
{
	*id = READ_ONCE(mvgal_hmm_delay_id);
	*ms = READ_ONCE(mvgal_hmm_delay_ms);
	*delays = atomic_read(&mvgal_hmm_delays);
}

/*
 * A read of chunks [rs, re) found pages that are not the application's
 * own yet: the zero page (small or huge) of untouched memory, or a
 * private file mapping's page cache. Chunk by chunk, those that have
 * such pages are faulted for writing, which makes the pages its own.
 */
static int mvgal_hmm_hold_each(struct mvgal_hmm *h, unsigned long rs,
			       unsigned long re)
{
	struct mvgal_bo *bo = h->bo;
	unsigned int per = bo->chunk_shift - PAGE_SHIFT;
	unsigned long c, last;
	int ret = 0;

	for (c = rs; c < re && !ret; c++) {
		last = min(bo->npages, (c + 1) << per) - 1;
		ret = mvgal_hmm_hold(h, c << per, last, false);
		if (ret == -EINVAL)
			ret = mvgal_hmm_hold(h, c << per, last, true);
	}
	return ret;
}

/*
 * Faults in (for writing if @write) and holds the pages of each run of
 * chunks set in @want.
 */
static int mvgal_hmm_hold_runs(struct mvgal_hmm *h, const unsigned long *want,
			       bool write)
{
	struct mvgal_bo *bo = h->bo;
	unsigned int per = bo->chunk_shift - PAGE_SHIFT;
	unsigned long rs, re;
	int ret = 0;

	for_each_set_bitrange(rs, re, want, bo->nchunks) {
		ret = mvgal_hmm_hold(h, rs << per,
				     min(bo->npages, re << per) - 1, write);
		if (ret == -EINVAL && !write)
			ret = mvgal_hmm_hold_each(h, rs, re);
		if (ret)
			break;
	}
	return ret;
}

/* The longs of one of a registration's bitmaps (want, want_wr, deferred). */
static size_t mvgal_hmm_want_longs(const struct mvgal_bo *bo)
{
	return BITS_TO_LONGS(bo->nchunks);
}

/*
 * Faults in what one registration wanted. Return: 1 (one was faulted),
 * 0 (none wanted anything), or the fault's -errno.
 */
static int mvgal_hmm_fault_one(void)
{
	struct mvgal_hmm *h = NULL, *it;
	unsigned long *want;
	int ret = -ENOMEM;
	size_t n;

	spin_lock(&mvgal_hmm_list_lock);
	list_for_each_entry(it, &mvgal_hmm_list, link) {
		if (READ_ONCE(it->wanted) &&
		    kref_get_unless_zero(&it->bo->base.refcount)) {
			h = it;
			break;
		}
	}
	spin_unlock(&mvgal_hmm_list_lock);
	if (!h)
		return 0;
	n = mvgal_hmm_want_longs(h->bo);
	want = kcalloc(2 * n, sizeof(*want), GFP_KERNEL_ACCOUNT);
	if (want) {
		spin_lock(&h->lock);
		memcpy(want, h->want, 2 * n * sizeof(*want));
		memset(h->want, 0, 2 * n * sizeof(*want));
		h->wanted = false;
		spin_unlock(&h->lock);
		/* What is written, then what is only read. */
		bitmap_andnot(want, want, want + n, h->bo->nchunks);
		ret = mvgal_hmm_hold_runs(h, want + n, true);
		if (!ret)
			ret = mvgal_hmm_hold_runs(h, want, false);
		kfree(want);
	}
	drm_gem_object_put(&h->bo->base);
	return ret ?: 1;
}

/* Is there a mirrored registration at all? A hint, read without a lock. */
bool mvgal_hmm_any(void)
{
	return !list_empty_careful(&mvgal_hmm_list);
}

/**
 * mvgal_hmm_retry() - should a call that ended with *@ret run again?
 * @ret: its result; set to a fault's error when one fails
 * @tries: times it ran again so far (start at 0)
 *
 * A call that failed for want of mirrored pages (-EAGAIN from its own
 * buffer; an eviction that could not bring a mirrored victim home may
 * have turned that into -ENOSPC) runs again once what was wanted is
 * faulted in, up to MVGAL_HMM_TRIES times (each invalidation in between
 * costs a try); a failed call changed nothing but what counts on its
 * own (the chunks a CPU access fetched before its -EAGAIN are held
 * where it put them), so running it again is safe. Any other error is
 * the call's own. What any call wanted is faulted, at most
 * MVGAL_HMM_FAULTS registrations a try: a fault's error may so be
 * another registration's, which its own call then sees too.
 */
bool mvgal_hmm_retry(long *ret, unsigned int *tries)
{
	int n, done = 0;

	if ((*ret != -EAGAIN && *ret != -ENOSPC) || !mvgal_hmm_any() ||
	    *tries >= MVGAL_HMM_TRIES || fatal_signal_pending(current))
		return false;
	++*tries;
	while (done < MVGAL_HMM_FAULTS && (n = mvgal_hmm_fault_one()) > 0)
		done++;
	if (n < 0) {
		*ret = n;
		return false;
	}
	/*
	 * Another caller may have faulted in what this one wanted: an
	 * -EAGAIN runs again all the same, as often as a fault would.
	 */
	return done > 0 || *ret == -EAGAIN;
}

/**
 * mvgal_hmm_register() - follow the caller's memory at @start as the
 * host storage of @bo, without pinning it
 * @bo: a new buffer whose bo->userptr is set up, no pages held
 * @start: page-aligned user address of a range mvgal_userptr_register()
 *	   found writable, ordinary memory
 *
 * Return: 0 or -ENOMEM.
 */
int mvgal_hmm_register(struct mvgal_bo *bo, unsigned long start)
{
	unsigned long len = bo->npages << PAGE_SHIFT;
	struct mvgal_hmm *h;
	int ret;

	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!h)
		return -ENOMEM;
	h->want = kcalloc(3 * mvgal_hmm_want_longs(bo), sizeof(*h->want),
			  GFP_KERNEL_ACCOUNT);
	if (!h->want) {
		kfree(h);
		return -ENOMEM;
	}
	h->want_wr = h->want + mvgal_hmm_want_longs(bo);
	h->deferred = h->want_wr + mvgal_hmm_want_longs(bo);
	/* Teach lockdep at once that the notifier takes it in reclaim. */
	if (IS_ENABLED(CONFIG_LOCKDEP)) {
		fs_reclaim_acquire(GFP_KERNEL_ACCOUNT);
		might_lock(&mvgal_hmm_publish_sem);
		fs_reclaim_release(GFP_KERNEL_ACCOUNT);
	}
	h->bo = bo;
	h->start = start;
	spin_lock_init(&h->lock);
	INIT_DELAYED_WORK(&h->release, mvgal_hmm_release_work);
	ret = mmu_interval_notifier_insert(&h->notifier, current->mm, start,
					   len, &mvgal_hmm_ops);
	if (ret) {
		kfree(h->want);
		kfree(h);
		return ret;
	}
	/* Nothing held yet: any sequence is as good as none. */
	h->seq = mmu_interval_read_begin(&h->notifier);
	bo->userptr->hmm = h;
	spin_lock(&mvgal_hmm_list_lock);
	list_add_tail(&h->link, &mvgal_hmm_list);
	spin_unlock(&mvgal_hmm_list_lock);
	return 0;
}

/**
 * mvgal_hmm_unregister() - the buffer goes: no more notifications, its
 * held pages let go
 * @bo: the buffer, idle, with no reference left; from a work item, never
 *	under the mmap_lock (the notifier's removal waits for
 *	invalidations in progress)
 */
void mvgal_hmm_unregister(struct mvgal_bo *bo)
{
	struct mvgal_hmm *h = mvgal_hmm_of(bo);

	spin_lock(&mvgal_hmm_list_lock);
	list_del(&h->link);
	spin_unlock(&mvgal_hmm_list_lock);
	mmu_interval_notifier_remove(&h->notifier);
	cancel_delayed_work_sync(&h->release);
	mutex_lock(&bo->lock);
	mvgal_hmm_drop(h);
	mutex_unlock(&bo->lock);
	kfree(h->want);
	kfree(h);
	bo->userptr->hmm = NULL;
}

#else /* !CONFIG_HMM_MIRROR */

/* A kernel without HMM_MIRROR mirrors nothing: the flag is refused. */
int mvgal_hmm_register(struct mvgal_bo *bo, unsigned long start)
{
	return -EOPNOTSUPP;
}

void mvgal_hmm_unregister(struct mvgal_bo *bo)
{
}

int mvgal_hmm_ready(struct mvgal_bo *bo, u64 off, u64 len, bool write)
{
	return 0;
}

int mvgal_hmm_held(struct mvgal_bo *bo, u64 off, u64 len, bool write)
{
	return 0;
}

int mvgal_hmm_ready_chunks(struct mvgal_bo *bo, unsigned long first,
			   unsigned long last, unsigned int dst)
{
	return 0;
}

bool mvgal_hmm_any(void)
{
	return false;
}

void mvgal_hmm_publish_lock(const struct mvgal_bo *bo)
{
}

void mvgal_hmm_publish_unlock(void)
{
}

int mvgal_hmm_current(struct mvgal_bo *bo, u64 off, u64 len,
		      unsigned int src, unsigned int dst)
{
	return 0;
}

unsigned long mvgal_hmm_gen(struct mvgal_bo *bo)
{
	return 0;
}

int mvgal_hmm_gen_check(struct mvgal_bo *bo, unsigned long gen)
{
	return 0;
}

void mvgal_hmm_defer(struct mvgal_bo *bo, unsigned long c)
{
}

void mvgal_hmm_end(struct mvgal_bo *bo)
{
}

void mvgal_hmm_delay_set(u64 id, unsigned int ms)
{
}

void mvgal_hmm_delay_get(u64 *id, unsigned int *ms, unsigned int *delays)
{
	*id = 0;
	*ms = 0;
	*delays = 0;
}

bool mvgal_hmm_retry(long *ret, unsigned int *tries)
{
	return false;
}

#endif /* CONFIG_HMM_MIRROR */
