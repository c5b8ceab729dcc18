// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal_dmaeng: a memcpy DMA engine, for mvgal's test bed only.
 *
 * QEMU emulates no x86 memcpy engine (no I/OAT, no DSA) and Linux has no
 * software dmaengine provider, so this module is one. It binds QEMU's "edu"
 * device, because a real engine is a PCI function and pci_p2pdma_distance()
 * takes only PCI clients, and offers DMA_MEMCPY channels whose copies a
 * kernel thread per channel makes with the CPU. The guest has no IOMMU, so
 * the DMA addresses it is given are physical: pages of RAM, or a BAR (a VRAM
 * stand-in's) that has no struct pages and is mapped for the copy.
 *
 * Its module parameters make it slow, make it fail, reorder or stall its
 * copies, so that a client's handling of each can be tested; unbinding the
 * device completes what it has not done as aborted, also while a client
 * still holds a channel.
 */
#include <linux/dmaengine.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define MVGAL_DMAENG_MAX_CHANNELS	64
/* How often a stalled channel looks at its knob again: writes do not wake. */
#define MVGAL_DMAENG_STALL_POLL_MS	10

static unsigned int mvgal_dmaeng_channels = 2;
module_param_named(channels, mvgal_dmaeng_channels, uint, 0444);
MODULE_PARM_DESC(channels, "DMA_MEMCPY channels per device, 1 to 64, read at probe (default 2)");

static unsigned int mvgal_dmaeng_latency_us;
module_param_named(latency_us, mvgal_dmaeng_latency_us, uint, 0644);
MODULE_PARM_DESC(latency_us, "microseconds each descriptor waits before its copy (default 0)");

static unsigned int mvgal_dmaeng_bandwidth_mbps;
module_param_named(bandwidth_mbps, mvgal_dmaeng_bandwidth_mbps, uint, 0644);
MODULE_PARM_DESC(bandwidth_mbps,
		 "when not 0, a descriptor takes at least len / bandwidth: MB/s (10^6 bytes) per channel (default 0)");

static bool mvgal_dmaeng_corrupt;
module_param_named(corrupt, mvgal_dmaeng_corrupt, bool, 0644);
MODULE_PARM_DESC(corrupt,
		 "when set, every copy ends with the last byte of its destination inverted and completes without error: a silently corrupting peer path (default off)");

static unsigned int mvgal_dmaeng_fail_every;
module_param_named(fail_every, mvgal_dmaeng_fail_every, uint, 0644);
MODULE_PARM_DESC(fail_every,
		 "when N > 0, every Nth descriptor a device runs (counted from the time N was set) copies the first half of its bytes and completes with DMA_TRANS_WRITE_FAILED (default 0)");

static bool mvgal_dmaeng_reorder;
module_param_named(reorder, mvgal_dmaeng_reorder, bool, 0644);
MODULE_PARM_DESC(reorder,
		 "a channel takes every descriptor issued so far at once and copies and completes them newest first (default N)");

static bool mvgal_dmaeng_stall;
module_param_named(stall, mvgal_dmaeng_stall, bool, 0644);
MODULE_PARM_DESC(stall,
		 "a channel takes descriptors but neither copies nor completes them until this is cleared or the channel is terminated (default N)");

static atomic_long_t mvgal_dmaeng_completed;
static atomic_long_t mvgal_dmaeng_failed;
static atomic_long_t mvgal_dmaeng_aborted;
static atomic_long_t mvgal_dmaeng_bytes;
static atomic_long_t mvgal_dmaeng_iomem;

static int mvgal_dmaeng_counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

/* Counters of every device since the module was loaded: read-only. */
static const struct kernel_param_ops mvgal_dmaeng_counter_ops = {
	.get = mvgal_dmaeng_counter_get,
};

module_param_cb(completed, &mvgal_dmaeng_counter_ops, &mvgal_dmaeng_completed, 0444);
MODULE_PARM_DESC(completed, "descriptors completed with DMA_TRANS_NOERROR");
module_param_cb(failed, &mvgal_dmaeng_counter_ops, &mvgal_dmaeng_failed, 0444);
MODULE_PARM_DESC(failed, "descriptors completed with DMA_TRANS_WRITE_FAILED or DMA_TRANS_READ_FAILED");
module_param_cb(aborted, &mvgal_dmaeng_counter_ops, &mvgal_dmaeng_aborted, 0444);
MODULE_PARM_DESC(aborted,
		 "descriptors terminated (no callback) or completed with DMA_TRANS_ABORTED by an unbind");
module_param_cb(bytes_copied, &mvgal_dmaeng_counter_ops, &mvgal_dmaeng_bytes, 0444);
MODULE_PARM_DESC(bytes_copied, "bytes copied, the halves of failed descriptors included");
module_param_cb(bytes_iomem, &mvgal_dmaeng_counter_ops, &mvgal_dmaeng_iomem, 0444);
MODULE_PARM_DESC(bytes_iomem,
		 "of those, bytes read from or written to memory that is not RAM (a BAR)");

/* Frees devices and aborts late descriptors; module exit drains it. */
static struct workqueue_struct *mvgal_dmaeng_wq;

struct mvgal_dmaeng_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	dma_addr_t dst;
	dma_addr_t src;
	size_t len;
	/* The channel's epoch at submission: it is terminated once they differ. */
	unsigned int epoch;
};

struct mvgal_dmaeng_dev;

struct mvgal_dmaeng_chan {
	struct dma_chan chan;
	struct mvgal_dmaeng_dev *edev;
	struct task_struct *thread;
	spinlock_t lock;		/* the lists and every field below */
	struct list_head prepared;	/* prepared, not yet submitted */
	struct list_head submitted;	/* submitted, not yet issued */
	struct list_head issued;	/* issued, not yet taken by the thread */
	struct list_head taken;		/* the thread's, oldest first */
	dma_cookie_t batch_last;	/* the newest cookie taken */
	unsigned int epoch;		/* bumped by each terminate_all */
	unsigned int callbacks;		/* contexts running callbacks */
	bool dead;			/* the device is unbound */
	wait_queue_head_t wake;		/* the thread waits for work here */
	wait_queue_head_t idle;		/* synchronize waits here */
	struct work_struct abort_work;	/* aborts what is issued after unbind */
};

struct mvgal_dmaeng_dev {
	struct dma_device dma;
	struct pci_dev *pdev;
	struct work_struct free_work;
	spinlock_t fail_lock;		/* fail_every and fail_seq */
	unsigned int fail_every;	/* the knob's value fail_seq counts for */
	unsigned int fail_seq;		/* descriptors run since it was set */
	unsigned int nr_chans;
	struct mvgal_dmaeng_chan chans[];
};

static struct mvgal_dmaeng_chan *to_mvgal_dmaeng_chan(struct dma_chan *chan)
{
	return container_of(chan, struct mvgal_dmaeng_chan, chan);
}

static struct mvgal_dmaeng_desc *
to_mvgal_dmaeng_desc(struct dma_async_tx_descriptor *tx)
{
	return container_of(tx, struct mvgal_dmaeng_desc, tx);
}

/*
 * The cookie helpers of drivers/dma/dmaengine.h, which is not installed
 * with the kernel's headers: cookies count up from DMA_MIN_COOKIE and wrap.
 */
static void mvgal_dmaeng_cookie_init(struct dma_chan *chan)
{
	chan->cookie = DMA_MIN_COOKIE;
	chan->completed_cookie = DMA_MIN_COOKIE;
}

static dma_cookie_t mvgal_dmaeng_cookie_assign(struct dma_async_tx_descriptor *tx)
{
	struct dma_chan *chan = tx->chan;
	dma_cookie_t cookie = chan->cookie + 1;

	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	chan->cookie = cookie;
	tx->cookie = cookie;
	return cookie;
}

static bool mvgal_dmaeng_stale(struct mvgal_dmaeng_chan *c,
			       struct mvgal_dmaeng_desc *d)
{
	return d->epoch != READ_ONCE(c->epoch);
}

/*
 * As the kernel's dmaengine_desc_callback_invoke(): a client that set only
 * the old callback learns of a failure or an abort from nothing else.
 */
static void mvgal_dmaeng_callback(struct mvgal_dmaeng_desc *d,
				  enum dmaengine_tx_result result, u32 residue)
{
	struct dmaengine_result res = { .result = result, .residue = residue };
	struct dma_async_tx_descriptor *tx = &d->tx;

	if (tx->callback_result)
		tx->callback_result(tx->callback_param, &res);
	else if (tx->callback)
		tx->callback(tx->callback_param);
}

static void mvgal_dmaeng_free_desc(struct mvgal_dmaeng_desc *d)
{
	dma_descriptor_unmap(&d->tx);
	kfree(d);
}

/* Dropped without a callback: terminated, or never submitted. */
static void mvgal_dmaeng_drop_list(struct list_head *list, bool count)
{
	struct mvgal_dmaeng_desc *d, *n;

	list_for_each_entry_safe(d, n, list, node) {
		list_del(&d->node);
		if (count)
			atomic_long_inc(&mvgal_dmaeng_aborted);
		mvgal_dmaeng_free_desc(d);
	}
}

static void mvgal_dmaeng_callbacks_done(struct mvgal_dmaeng_chan *c)
{
	spin_lock_irq(&c->lock);
	c->callbacks--;
	spin_unlock_irq(&c->lock);
	wake_up_all(&c->idle);
}

/*
 * Completes every descriptor the device will never run, as a device event
 * aborts them (provider.rst): those the thread had taken (only once it is
 * stopped: @taken), then the issued and submitted ones, oldest first.
 * Terminated ones get no callback.
 */
static void mvgal_dmaeng_abort(struct mvgal_dmaeng_chan *c, bool taken)
{
	struct mvgal_dmaeng_desc *d, *n;
	LIST_HEAD(gone);

	spin_lock_irq(&c->lock);
	if (taken)
		list_splice_tail_init(&c->taken, &gone);
	list_splice_tail_init(&c->issued, &gone);
	list_splice_tail_init(&c->submitted, &gone);
	c->callbacks++;
	spin_unlock_irq(&c->lock);
	list_for_each_entry_safe(d, n, &gone, node) {
		list_del(&d->node);
		if (!mvgal_dmaeng_stale(c, d))
			mvgal_dmaeng_callback(d, DMA_TRANS_ABORTED, d->len);
		atomic_long_inc(&mvgal_dmaeng_aborted);
		mvgal_dmaeng_free_desc(d);
	}
	mvgal_dmaeng_callbacks_done(c);
}

static void mvgal_dmaeng_abort_work(struct work_struct *work)
{
	mvgal_dmaeng_abort(container_of(work, struct mvgal_dmaeng_chan,
					abort_work), false);
}

static dma_cookie_t mvgal_dmaeng_tx_submit(struct dma_async_tx_descriptor *tx)
{
	struct mvgal_dmaeng_chan *c = to_mvgal_dmaeng_chan(tx->chan);
	struct mvgal_dmaeng_desc *d = to_mvgal_dmaeng_desc(tx);
	unsigned long flags;
	dma_cookie_t cookie;

	spin_lock_irqsave(&c->lock, flags);
	cookie = mvgal_dmaeng_cookie_assign(tx);
	d->epoch = c->epoch;
	list_move_tail(&d->node, &c->submitted);
	spin_unlock_irqrestore(&c->lock, flags);
	return cookie;
}

/* Clients may prepare in atomic context: no sleeping allocation. */
static struct dma_async_tx_descriptor *
mvgal_dmaeng_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
			 size_t len, unsigned long flags)
{
	struct mvgal_dmaeng_chan *c = to_mvgal_dmaeng_chan(chan);
	struct mvgal_dmaeng_desc *d;
	unsigned long irqflags;

	d = kzalloc(sizeof(*d), GFP_NOWAIT);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->tx, chan);
	d->tx.flags = flags;
	d->tx.tx_submit = mvgal_dmaeng_tx_submit;
	d->dst = dst;
	d->src = src;
	d->len = len;
	spin_lock_irqsave(&c->lock, irqflags);
	if (c->dead) {
		spin_unlock_irqrestore(&c->lock, irqflags);
		kfree(d);
		return NULL;
	}
	list_add_tail(&d->node, &c->prepared);
	spin_unlock_irqrestore(&c->lock, irqflags);
	return &d->tx;
}

/* Past the unbind there is no thread: what is issued then is aborted. */
static void mvgal_dmaeng_issue_pending(struct dma_chan *chan)
{
	struct mvgal_dmaeng_chan *c = to_mvgal_dmaeng_chan(chan);
	unsigned long flags;
	bool dead;

	spin_lock_irqsave(&c->lock, flags);
	list_splice_tail_init(&c->submitted, &c->issued);
	dead = c->dead;
	spin_unlock_irqrestore(&c->lock, flags);
	if (dead)
		queue_work(mvgal_dmaeng_wq, &c->abort_work);
	else
		wake_up(&c->wake);
}

/*
 * As dma_cookie_status(): a cookie is complete once the channel's
 * completed cookie has passed it. A reordered batch moves that cookie only
 * when its oldest descriptor completes (the last one it does), so no
 * descriptor reads as complete before its bytes are copied.
 */
static enum dma_status mvgal_dmaeng_tx_status(struct dma_chan *chan,
					      dma_cookie_t cookie,
					      struct dma_tx_state *state)
{
	dma_cookie_t used = READ_ONCE(chan->cookie);
	dma_cookie_t done = READ_ONCE(chan->completed_cookie);

	dma_set_tx_state(state, done, used, 0);
	return dma_async_is_complete(cookie, done, used);
}

/*
 * Submitted and issued descriptors go, with no callback; those the thread
 * holds become stale, and it drops them instead of completing them.
 */
static int mvgal_dmaeng_terminate_all(struct dma_chan *chan)
{
	struct mvgal_dmaeng_chan *c = to_mvgal_dmaeng_chan(chan);
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&c->lock, flags);
	WRITE_ONCE(c->epoch, c->epoch + 1);
	list_splice_init(&c->submitted, &gone);
	list_splice_init(&c->issued, &gone);
	spin_unlock_irqrestore(&c->lock, flags);
	wake_up(&c->wake);
	mvgal_dmaeng_drop_list(&gone, true);
	return 0;
}

static bool mvgal_dmaeng_quiet(struct mvgal_dmaeng_chan *c)
{
	struct mvgal_dmaeng_desc *d;
	bool quiet;

	spin_lock_irq(&c->lock);
	quiet = !c->callbacks;
	list_for_each_entry(d, &c->taken, node)
		quiet &= !mvgal_dmaeng_stale(c, d);
	spin_unlock_irq(&c->lock);
	return quiet;
}

/*
 * Returns once no callback runs and the thread holds no terminated
 * descriptor, so that their memory is no longer touched.
 */
static void mvgal_dmaeng_synchronize(struct dma_chan *chan)
{
	struct mvgal_dmaeng_chan *c = to_mvgal_dmaeng_chan(chan);

	flush_work(&c->abort_work);
	wait_event(c->idle, mvgal_dmaeng_quiet(c));
}

static int mvgal_dmaeng_alloc_chan_resources(struct dma_chan *chan)
{
	mvgal_dmaeng_cookie_init(chan);
	return 0;
}

/* dma_chan_put() synchronized already; this client's leftovers go. */
static void mvgal_dmaeng_free_chan_resources(struct dma_chan *chan)
{
	struct mvgal_dmaeng_chan *c = to_mvgal_dmaeng_chan(chan);
	LIST_HEAD(gone);

	mvgal_dmaeng_terminate_all(chan);
	mvgal_dmaeng_synchronize(chan);
	spin_lock_irq(&c->lock);
	list_splice_init(&c->prepared, &gone);
	spin_unlock_irq(&c->lock);
	mvgal_dmaeng_drop_list(&gone, false);
}

/* One side of a copy, and the mapping of the I/O memory it is in. */
struct mvgal_dmaeng_side {
	phys_addr_t addr;	/* the next byte */
	size_t left;		/* bytes from there to the end of the copy */
	bool ram;		/* addr is in a page of RAM */
	void *win;		/* non-RAM mapped from win_start to win_end */
	phys_addr_t win_start;
	phys_addr_t win_end;
};

/*
 * RAM has a struct page that is not a device's (P2PDMA's ZONE_DEVICE pages
 * describe a BAR). Asked per page, so it must be cheap: page_is_ram()
 * walks the resource tree, which cost more than the copy of the page.
 */
static bool mvgal_dmaeng_is_ram(phys_addr_t addr)
{
	unsigned long pfn = PHYS_PFN(addr);

	return pfn_valid(pfn) && !is_zone_device_page(pfn_to_page(pfn));
}

/*
 * Memory that is not RAM (a BAR: no struct pages, or P2PDMA's ZONE_DEVICE
 * ones) is mapped write-combined: the rest of the copy at once when no RAM
 * is in it, else up to the end of this page (memremap() refuses a range
 * that mixes both).
 */
static int mvgal_dmaeng_side_map(struct mvgal_dmaeng_side *s)
{
	size_t size = s->left;

	if (s->win)
		memunmap(s->win);
	s->win = NULL;
	if (region_intersects(s->addr, s->left, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT)
		size = min_t(size_t, size, PAGE_SIZE - offset_in_page(s->addr));
	s->win = memremap(s->addr, size, MEMREMAP_WC);
	if (!s->win)
		return -ENOMEM;
	s->win_start = s->addr;
	s->win_end = s->addr + size;
	return 0;
}

/* How many bytes from s->addr one mapping reaches; 0 if it cannot map. */
static size_t mvgal_dmaeng_side_reach(struct mvgal_dmaeng_side *s)
{
	s->ram = mvgal_dmaeng_is_ram(s->addr);
	if (s->ram)
		return min_t(size_t, s->left, PAGE_SIZE - offset_in_page(s->addr));
	if ((!s->win || s->addr >= s->win_end) && mvgal_dmaeng_side_map(s))
		return 0;
	return min_t(size_t, s->left, s->win_end - s->addr);
}

static void *mvgal_dmaeng_side_get(struct mvgal_dmaeng_side *s)
{
	if (!s->ram)
		return s->win + (s->addr - s->win_start);
	return kmap_local_pfn(PHYS_PFN(s->addr)) + offset_in_page(s->addr);
}

static void mvgal_dmaeng_side_put(struct mvgal_dmaeng_side *s, void *p)
{
	if (s->ram)
		kunmap_local(p);
}

static void mvgal_dmaeng_side_advance(struct mvgal_dmaeng_side *s, size_t n)
{
	s->addr += n;
	s->left -= n;
}

/* Copies the first n bytes of d; *done says how many it did. */
static enum dmaengine_tx_result
mvgal_dmaeng_copy(struct mvgal_dmaeng_desc *d, size_t n, size_t *done)
{
	struct mvgal_dmaeng_side dst = { .addr = d->dst, .left = n };
	struct mvgal_dmaeng_side src = { .addr = d->src, .left = n };
	enum dmaengine_tx_result res = DMA_TRANS_NOERROR;
	size_t ns, nd;
	void *s, *t;

	for (*done = 0; *done < n; *done += ns) {
		ns = mvgal_dmaeng_side_reach(&src);
		nd = mvgal_dmaeng_side_reach(&dst);
		if (!ns || !nd) {
			res = ns ? DMA_TRANS_WRITE_FAILED : DMA_TRANS_READ_FAILED;
			break;
		}
		ns = min(ns, nd);
		s = mvgal_dmaeng_side_get(&src);
		t = mvgal_dmaeng_side_get(&dst);
		memcpy(t, s, ns);
		if (!src.ram || !dst.ram)
			atomic_long_add(ns, &mvgal_dmaeng_iomem);
		mvgal_dmaeng_side_put(&dst, t);
		mvgal_dmaeng_side_put(&src, s);
		mvgal_dmaeng_side_advance(&src, ns);
		mvgal_dmaeng_side_advance(&dst, ns);
		cond_resched();
	}
	/* Write-combined stores drained: the bytes are there at completion. */
	wmb();
	if (src.win)
		memunmap(src.win);
	if (dst.win)
		memunmap(dst.win);
	return res;
}

/* corrupt: the last byte written is inverted, and nothing says so. */
static void mvgal_dmaeng_spoil(struct mvgal_dmaeng_desc *d)
{
	struct mvgal_dmaeng_side dst = { .addr = d->dst + d->len - 1, .left = 1 };
	u8 *t;

	if (!d->len || !mvgal_dmaeng_side_reach(&dst))
		return;
	t = mvgal_dmaeng_side_get(&dst);
	*t ^= 0xff;
	mvgal_dmaeng_side_put(&dst, t);
	wmb();
	if (dst.win)
		memunmap(dst.win);
}

/* fail_every counts per device, from the time the knob took its value. */
static bool mvgal_dmaeng_should_fail(struct mvgal_dmaeng_dev *edev)
{
	unsigned int every = READ_ONCE(mvgal_dmaeng_fail_every);
	bool fail;

	spin_lock(&edev->fail_lock);
	if (every != edev->fail_every) {
		edev->fail_every = every;
		edev->fail_seq = 0;
	}
	fail = every && ++edev->fail_seq % every == 0;
	spin_unlock(&edev->fail_lock);
	return fail;
}

/*
 * The thread's sleeps (latency, pacing, stall) end early when it is to
 * stop or the descriptor is terminated. Interruptible, so that a long one
 * is not a hung task: a kthread takes no signals.
 */
static void mvgal_dmaeng_sleep(struct mvgal_dmaeng_chan *c,
			       struct mvgal_dmaeng_desc *d, u64 ns)
{
	if (ns)
		wait_event_interruptible_hrtimeout(c->wake,
						   kthread_should_stop() ||
						   mvgal_dmaeng_stale(c, d),
						   ns_to_ktime(ns));
}

/* Sleeps until len bytes at bandwidth_mbps have taken their time from t0. */
static void mvgal_dmaeng_pace(struct mvgal_dmaeng_chan *c,
			      struct mvgal_dmaeng_desc *d, ktime_t t0)
{
	unsigned int mbps = READ_ONCE(mvgal_dmaeng_bandwidth_mbps);
	u64 want, took;

	if (!mbps)
		return;
	/* 1 MB/s is 10^6 bytes a second: a byte takes 1000 / mbps ns. */
	want = div_u64((u64)d->len * 1000, mbps);
	took = ktime_to_ns(ktime_sub(ktime_get(), t0));
	if (want > took)
		mvgal_dmaeng_sleep(c, d, want - took);
}

/*
 * Takes d off the taken list and completes it, unless it was terminated.
 * The channel's completed cookie moves when the oldest taken descriptor
 * completes, to the newest taken: in a reversed batch that is the last.
 */
static void mvgal_dmaeng_complete(struct mvgal_dmaeng_chan *c,
				  struct mvgal_dmaeng_desc *d,
				  enum dmaengine_tx_result res, size_t done)
{
	bool stale;

	spin_lock_irq(&c->lock);
	stale = mvgal_dmaeng_stale(c, d);
	if (!stale && d == list_first_entry(&c->taken, typeof(*d), node))
		c->chan.completed_cookie = c->batch_last;
	list_del(&d->node);
	c->callbacks++;
	spin_unlock_irq(&c->lock);
	if (stale)
		atomic_long_inc(&mvgal_dmaeng_aborted);
	else if (res == DMA_TRANS_NOERROR)
		atomic_long_inc(&mvgal_dmaeng_completed);
	else
		atomic_long_inc(&mvgal_dmaeng_failed);
	atomic_long_add(done, &mvgal_dmaeng_bytes);
	if (!stale)
		mvgal_dmaeng_callback(d, res, d->len - done);
	mvgal_dmaeng_free_desc(d);
	mvgal_dmaeng_callbacks_done(c);
}

/*
 * Runs one taken descriptor. A stop leaves it taken for the unbind to
 * abort, unless its bytes are copied already: those complete as copied.
 */
static void mvgal_dmaeng_run(struct mvgal_dmaeng_chan *c,
			     struct mvgal_dmaeng_desc *d)
{
	enum dmaengine_tx_result res = DMA_TRANS_NOERROR;
	size_t n = d->len, done = 0;
	ktime_t t0;

	mvgal_dmaeng_sleep(c, d, READ_ONCE(mvgal_dmaeng_latency_us) *
			   (u64)NSEC_PER_USEC);
	if (kthread_should_stop())
		return;
	if (!mvgal_dmaeng_stale(c, d)) {
		if (mvgal_dmaeng_should_fail(c->edev))
			n = d->len / 2;
		t0 = ktime_get();
		res = mvgal_dmaeng_copy(d, n, &done);
		if (res == DMA_TRANS_NOERROR && n < d->len)
			res = DMA_TRANS_WRITE_FAILED;
		else if (res == DMA_TRANS_NOERROR &&
			 READ_ONCE(mvgal_dmaeng_corrupt))
			mvgal_dmaeng_spoil(d);
		mvgal_dmaeng_pace(c, d, t0);
	}
	mvgal_dmaeng_complete(c, d, res, done);
}

/* One descriptor, or with reorder all issued ones; false if none. */
static bool mvgal_dmaeng_take(struct mvgal_dmaeng_chan *c, bool all)
{
	struct mvgal_dmaeng_desc *d;
	bool took;

	spin_lock_irq(&c->lock);
	took = !list_empty(&c->issued);
	if (took && all)
		list_splice_tail_init(&c->issued, &c->taken);
	else if (took)
		list_move_tail(c->issued.next, &c->taken);
	if (took) {
		d = list_last_entry(&c->taken, typeof(*d), node);
		c->batch_last = d->tx.cookie;
	}
	spin_unlock_irq(&c->lock);
	return took;
}

static struct mvgal_dmaeng_desc *mvgal_dmaeng_next(struct mvgal_dmaeng_chan *c,
						   bool reverse)
{
	struct mvgal_dmaeng_desc *d = NULL;

	spin_lock_irq(&c->lock);
	if (!list_empty(&c->taken))
		d = reverse ? list_last_entry(&c->taken, typeof(*d), node) :
			      list_first_entry(&c->taken, typeof(*d), node);
	spin_unlock_irq(&c->lock);
	return d;
}

/* A stalled engine holds its batch until the knob clears or a terminate. */
static void mvgal_dmaeng_hold(struct mvgal_dmaeng_chan *c)
{
	struct mvgal_dmaeng_desc *d = mvgal_dmaeng_next(c, false);

	while (READ_ONCE(mvgal_dmaeng_stall) && !kthread_should_stop() &&
	       !mvgal_dmaeng_stale(c, d))
		wait_event_interruptible_timeout(c->wake, kthread_should_stop() ||
						 mvgal_dmaeng_stale(c, d),
						 msecs_to_jiffies(MVGAL_DMAENG_STALL_POLL_MS));
}

static int mvgal_dmaeng_thread(void *arg)
{
	struct mvgal_dmaeng_chan *c = arg;
	struct mvgal_dmaeng_desc *d;
	bool reverse;

	while (!kthread_should_stop()) {
		wait_event_interruptible(c->wake, kthread_should_stop() ||
					 !list_empty(&c->issued));
		reverse = READ_ONCE(mvgal_dmaeng_reorder);
		if (!mvgal_dmaeng_take(c, reverse))
			continue;
		mvgal_dmaeng_hold(c);
		while (!kthread_should_stop() &&
		       (d = mvgal_dmaeng_next(c, reverse)))
			mvgal_dmaeng_run(c, d);
	}
	return 0;
}

/*
 * dma_release_channel() still reads the channel (chan->slave, its debugfs
 * name) after dma_chan_put() has called device_release, under
 * dma_list_mutex. A request that matches no channel takes that mutex, so
 * once it returns nothing reads the channel any more.
 */
static bool mvgal_dmaeng_match_none(struct dma_chan *chan, void *param)
{
	return false;
}

static void mvgal_dmaeng_free(struct mvgal_dmaeng_dev *edev)
{
	pci_dev_put(edev->pdev);
	kfree(edev);
}

static void mvgal_dmaeng_free_work(struct work_struct *work)
{
	struct mvgal_dmaeng_dev *edev = container_of(work, struct mvgal_dmaeng_dev,
						     free_work);
	dma_cap_mask_t mask;
	unsigned int i;

	dma_cap_zero(mask);
	dma_request_channel(mask, mvgal_dmaeng_match_none, NULL);
	/* Flushed by the last client's synchronize already; to be sure. */
	for (i = 0; i < edev->nr_chans; i++)
		cancel_work_sync(&edev->chans[i].abort_work);
	mvgal_dmaeng_free(edev);
}

/*
 * The last reference to the dma_device: with a client holding a channel
 * across the unbind, that is its dma_release_channel(), so the memory
 * outlives the PCI driver's remove(). It is freed from a work item, as
 * the caller holds dma_list_mutex.
 */
static void mvgal_dmaeng_release(struct dma_device *dma)
{
	struct mvgal_dmaeng_dev *edev = container_of(dma, struct mvgal_dmaeng_dev,
						     dma);

	queue_work(mvgal_dmaeng_wq, &edev->free_work);
}

static void mvgal_dmaeng_init_chan(struct mvgal_dmaeng_dev *edev,
				   struct mvgal_dmaeng_chan *c)
{
	c->edev = edev;
	c->chan.device = &edev->dma;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->prepared);
	INIT_LIST_HEAD(&c->submitted);
	INIT_LIST_HEAD(&c->issued);
	INIT_LIST_HEAD(&c->taken);
	init_waitqueue_head(&c->wake);
	init_waitqueue_head(&c->idle);
	INIT_WORK(&c->abort_work, mvgal_dmaeng_abort_work);
	mvgal_dmaeng_cookie_init(&c->chan);
	list_add_tail(&c->chan.device_node, &edev->dma.channels);
}

static void mvgal_dmaeng_init_dma(struct mvgal_dmaeng_dev *edev)
{
	struct dma_device *dma = &edev->dma;

	dma_cap_set(DMA_MEMCPY, dma->cap_mask);
	dma->dev = &edev->pdev->dev;
	dma->directions = BIT(DMA_MEM_TO_MEM);
	dma->residue_granularity = DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
	dma->copy_align = DMAENGINE_ALIGN_1_BYTE;
	dma->device_alloc_chan_resources = mvgal_dmaeng_alloc_chan_resources;
	dma->device_free_chan_resources = mvgal_dmaeng_free_chan_resources;
	dma->device_prep_dma_memcpy = mvgal_dmaeng_prep_memcpy;
	dma->device_issue_pending = mvgal_dmaeng_issue_pending;
	dma->device_tx_status = mvgal_dmaeng_tx_status;
	dma->device_terminate_all = mvgal_dmaeng_terminate_all;
	dma->device_synchronize = mvgal_dmaeng_synchronize;
	dma->device_release = mvgal_dmaeng_release;
	INIT_LIST_HEAD(&dma->channels);
}

static void mvgal_dmaeng_stop_threads(struct mvgal_dmaeng_dev *edev)
{
	unsigned int i;

	for (i = 0; i < edev->nr_chans; i++) {
		if (edev->chans[i].thread)
			kthread_stop(edev->chans[i].thread);
		edev->chans[i].thread = NULL;
	}
}

static int mvgal_dmaeng_start_threads(struct mvgal_dmaeng_dev *edev)
{
	struct task_struct *t;
	unsigned int i;

	for (i = 0; i < edev->nr_chans; i++) {
		t = kthread_run(mvgal_dmaeng_thread, &edev->chans[i],
				"mvgal_dmaeng/%s/%u", pci_name(edev->pdev), i);
		if (IS_ERR(t)) {
			mvgal_dmaeng_stop_threads(edev);
			return PTR_ERR(t);
		}
		edev->chans[i].thread = t;
	}
	return 0;
}

/* The struct outlives the binding (see mvgal_dmaeng_release()): no devm. */
static struct mvgal_dmaeng_dev *mvgal_dmaeng_alloc(struct pci_dev *pdev,
						   unsigned int nr_chans)
{
	struct mvgal_dmaeng_dev *edev;
	unsigned int i;

	edev = kzalloc(struct_size(edev, chans, nr_chans), GFP_KERNEL);
	if (!edev)
		return NULL;
	edev->pdev = pci_dev_get(pdev);
	edev->nr_chans = nr_chans;
	spin_lock_init(&edev->fail_lock);
	INIT_WORK(&edev->free_work, mvgal_dmaeng_free_work);
	mvgal_dmaeng_init_dma(edev);
	for (i = 0; i < nr_chans; i++)
		mvgal_dmaeng_init_chan(edev, &edev->chans[i]);
	return edev;
}

/*
 * The CPU makes the copies, so the device is never a bus master; the DMA
 * mask still says what a client may map for it: everything.
 */
static int mvgal_dmaeng_probe(struct pci_dev *pdev,
			      const struct pci_device_id *id)
{
	unsigned int nr_chans = READ_ONCE(mvgal_dmaeng_channels);
	struct mvgal_dmaeng_dev *edev;
	int ret;

	if (!nr_chans || nr_chans > MVGAL_DMAENG_MAX_CHANNELS)
		return -EINVAL;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	edev = mvgal_dmaeng_alloc(pdev, nr_chans);
	if (!edev)
		return -ENOMEM;
	ret = mvgal_dmaeng_start_threads(edev);
	if (ret)
		goto free;
	ret = dma_async_device_register(&edev->dma);
	if (ret)
		goto stop;
	pci_set_drvdata(pdev, edev);
	return 0;

stop:
	mvgal_dmaeng_stop_threads(edev);
free:
	mvgal_dmaeng_free(edev);
	return ret;
}

/*
 * No new descriptor is prepared, the threads stop (a copy under way
 * finishes and completes), and everything else completes as aborted
 * before the channels are unregistered. A client may hold a channel on:
 * it can still submit, terminate and release it (mvgal_dmaeng_release()).
 */
static void mvgal_dmaeng_remove(struct pci_dev *pdev)
{
	struct mvgal_dmaeng_dev *edev = pci_get_drvdata(pdev);
	unsigned int i;

	for (i = 0; i < edev->nr_chans; i++) {
		spin_lock_irq(&edev->chans[i].lock);
		edev->chans[i].dead = true;
		spin_unlock_irq(&edev->chans[i].lock);
	}
	mvgal_dmaeng_stop_threads(edev);
	for (i = 0; i < edev->nr_chans; i++)
		mvgal_dmaeng_abort(&edev->chans[i], true);
	dma_async_device_unregister(&edev->dma);
}

static const struct pci_device_id mvgal_dmaeng_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },	/* QEMU edu */
	{ }
};
MODULE_DEVICE_TABLE(pci, mvgal_dmaeng_ids);

static struct pci_driver mvgal_dmaeng_pci_driver = {
	.name = "mvgal_dmaeng",
	.id_table = mvgal_dmaeng_ids,
	.probe = mvgal_dmaeng_probe,
	.remove = mvgal_dmaeng_remove,
};

static int __init mvgal_dmaeng_init(void)
{
	int ret;

	mvgal_dmaeng_wq = alloc_workqueue("mvgal_dmaeng", 0, 0);
	if (!mvgal_dmaeng_wq)
		return -ENOMEM;
	ret = pci_register_driver(&mvgal_dmaeng_pci_driver);
	if (ret)
		destroy_workqueue(mvgal_dmaeng_wq);
	return ret;
}
module_init(mvgal_dmaeng_init);

/*
 * A client holding a channel holds the module too (dma_chan_get()), so
 * every device has been released by now; its free may still be queued.
 */
static void __exit mvgal_dmaeng_exit(void)
{
	pci_unregister_driver(&mvgal_dmaeng_pci_driver);
	destroy_workqueue(mvgal_dmaeng_wq);
}
module_exit(mvgal_dmaeng_exit);

MODULE_DESCRIPTION("mvgal test bed: a software memcpy DMA engine on QEMU's edu device");
MODULE_LICENSE("GPL");
