// SPDX-License-Identifier: GPL-2.0
/*
 * The DMA-engine copier: copies between host pages and GPU pools made by
 * a dmaengine DMA_MEMCPY channel (Intel I/OAT and DSA, AMD PTDMA), the
 * way ntb_transport drives one: host pages mapped for the channel's
 * device through the DMA API, a pool through its dma-buf attached for
 * that device, one descriptor per run both sides hold contiguous,
 * completion by callback.
 *
 * There is no kernel API to drive another driver's copy engine, so this
 * is how a module that serves GPUs of any vendor copies without a CPU.
 * What the engine reaches is the pools' drivers' decision: each pool is
 * attached for the engine's device as an importer that allows
 * peer-to-peer, and a driver that will not give that device its memory's
 * bus addresses refuses it. mvgal asks pci_p2pdma_distance() first where
 * the kernel has it, and else applies the host bridge rule of the link
 * probe, so that a pool is never moved out of device memory for it.
 *
 * A descriptor error fails the copy (the caller's job fails and its
 * chunks keep their holders); a stalled engine times out and fails it
 * the same way. Either way the pair does not use the engine again until
 * a calibration has checked its copy anew, as it does before any use.
 * A channel whose device is unbound (or that aborts its descriptors) is
 * given up: the copy in flight returns -ENODEV and its
 * caller makes the whole range again with the CPU, which is harmless for
 * the runs the engine did finish.
 */

#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/dmaengine.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_dma.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_pool.h"

/* Descriptors one copy keeps in flight before it waits for them. */
#define MVGAL_DMA_WINDOW	64

/* The longest run one descriptor carries. */
#define MVGAL_DMA_MAX_RUN	(1024 * 1024)

/* An engine with no pool of device memory to reach still reaches RAM. */
static bool mvgal_dma_may_reach(struct mvgal_gpu *gpu, struct device *dev)
{
	if (!mvgal_pool_is_device(&gpu->pool))
		return true;
	if (!gpu->pdev || !dev_is_pci(dev))
		return false;
#if IS_ENABLED(CONFIG_PCI_P2PDMA)
	return pci_p2pdma_distance(gpu->pdev, dev, false) >= 0;
#else
	/* Without the kernel's check: peers under one host bridge. */
	return pci_find_host_bridge(to_pci_dev(dev)->bus) == gpu->host_bridge;
#endif
}

/*
 * The pool's driver is about to move it (its reservation is held): the
 * engine's copies in flight finish first (they hold @use to read), and
 * none starts with the old addresses after. The work item maps the pool
 * again once the move is done; until then copies go to the CPU.
 */
static void mvgal_dma_pool_moved(struct dma_buf_attachment *att)
{
	struct mvgal_gpu *gpu = att->importer_priv;
	struct mvgal_dma *dma = &gpu->mdev->dma;
	struct sg_table *sgt;

	down_write(&dma->use);
	sgt = gpu->dma.att == att ? gpu->dma.sgt : NULL;
	if (sgt) {
		gpu->dma.sgt = NULL;
		gpu->dma.stale = true;
	}
	up_write(&dma->use);
	/* No mapping: the move is the one the mapping itself asked for. */
	if (!sgt)
		return;
	atomic64_inc(&gpu->dma.moves);
	dma_buf_unmap_attachment(att, sgt, DMA_BIDIRECTIONAL);
	queue_work(system_unbound_wq, &gpu->dma.remap);
}

static const struct dma_buf_attach_ops mvgal_dma_importer_ops = {
	.allow_peer2peer = true,
	.move_notify = mvgal_dma_pool_moved,
};

/*
 * Maps a moved pool again for the engine, under its reservation. The
 * attachment stays while the reservation is held: the engine's unmap
 * and detach (mvgal_dma_unmap()) take it after it was taken under @use.
 */
static void mvgal_dma_remap_work(struct work_struct *work)
{
	struct mvgal_gpu *gpu = container_of(work, struct mvgal_gpu,
					     dma.remap);
	struct dma_resv *resv = gpu->pool.dmabuf->resv;
	struct mvgal_dma *dma = &gpu->mdev->dma;
	struct dma_buf_attachment *att;
	struct sg_table *sgt;

	dma_resv_lock(resv, NULL);
	down_read(&dma->use);
	att = gpu->dma.stale ? gpu->dma.att : NULL;
	up_read(&dma->use);
	if (!att)
		goto out;
	sgt = dma_buf_map_attachment(att, DMA_BIDIRECTIONAL);
	down_write(&dma->use);
	if (gpu->dma.att == att && gpu->dma.stale) {
		gpu->dma.stale = false;
		if (IS_ERR(sgt))
			gpu->dma.err = -PTR_ERR(sgt);
		else
			gpu->dma.sgt = sgt;
		sgt = NULL;
	}
	up_write(&dma->use);
	if (!IS_ERR_OR_NULL(sgt))
		dma_buf_unmap_attachment(att, sgt, DMA_BIDIRECTIONAL);
out:
	dma_resv_unlock(resv);
}

/* At the GPU's creation: its pool is mapped for no engine yet. */
void mvgal_dma_gpu_init(struct mvgal_gpu *gpu)
{
	INIT_WORK(&gpu->dma.remap, mvgal_dma_remap_work);
	atomic64_set(&gpu->dma.moves, 0);
}

/*
 * Whether the engine may keep the attachment: a pool that is or may come
 * to be in device memory only through peer-to-peer, so that the engine
 * never makes its driver move it to system memory (amdgpu and xe do for
 * an importer without it).
 */
static bool mvgal_dma_keeps(struct mvgal_gpu *gpu,
			    struct dma_buf_attachment *att)
{
	return att->peer2peer || (!mvgal_pool_is_device(&gpu->pool) &&
				  !(gpu->pool.flags & MVGAL_POOL_MOVABLE));
}

/* See mvgal_dma_reach_gpu(). */
static void mvgal_dma_map_gpu(struct mvgal_device *mdev, struct mvgal_gpu *gpu)
{
	struct dma_buf *dmabuf = gpu->pool.dmabuf;
	struct mvgal_dma *dma = &mdev->dma;
	struct dma_buf_attachment *att;
	struct sg_table *sgt;

	/* The channel changes only under gpu_lock held to write. */
	lockdep_assert_held_write(&mdev->gpu_lock);
	if (!dma->chan || gpu->dma.att)
		return;
	gpu->dma.err = 0;
	if (!mvgal_dma_may_reach(gpu, dma->dev)) {
		gpu->dma.err = EXDEV;
		return;
	}
	/* Without @use: the driver's attach and map take its reservation. */
	att = dma_buf_dynamic_attach(dmabuf, dma->dev, &mvgal_dma_importer_ops,
				     gpu);
	if (IS_ERR(att)) {
		gpu->dma.err = -PTR_ERR(att);
		return;
	}
	if (!mvgal_dma_keeps(gpu, att)) {
		gpu->dma.err = EXDEV;
		dma_buf_detach(dmabuf, att);
		return;
	}
	/* Published first: a move while it is mapped finds it. */
	down_write(&dma->use);
	gpu->dma.att = att;
	up_write(&dma->use);
	dma_resv_lock(dmabuf->resv, NULL);
	sgt = dma_buf_map_attachment(att, DMA_BIDIRECTIONAL);
	down_write(&dma->use);
	if (IS_ERR(sgt)) {
		gpu->dma.err = -PTR_ERR(sgt);
		gpu->dma.att = NULL;
	} else {
		gpu->dma.sgt = sgt;
	}
	up_write(&dma->use);
	dma_resv_unlock(dmabuf->resv);
	if (IS_ERR(sgt))
		dma_buf_detach(dmabuf, att);
}

/**
 * mvgal_dma_reach_gpu() - map @gpu's pool for the copier's device
 * @mdev: the device; caller holds gpu_lock to write
 * @gpu: the GPU
 *
 * A pool its driver may move is mapped as any other: the driver's
 * move_notify waits for the engine's copies and unmaps it, and a work
 * item maps it again after the move.
 */
void mvgal_dma_reach_gpu(struct mvgal_device *mdev, struct mvgal_gpu *gpu)
{
	mvgal_dma_map_gpu(mdev, gpu);
	if (gpu->dma.err)
		drm_info(&mdev->drm, "DMA engine does not reach GPU %u's pool: %pe\n",
			 gpu->index, ERR_PTR(-gpu->dma.err));
}

/*
 * The engine stops using @gpu's pool: under gpu_lock held to write and
 * @use held to write, so no copy holds its addresses. Its mapping goes
 * with mvgal_dma_unmap() once @use is dropped (the driver's unmap takes
 * the pool's reservation, which is never taken under @use).
 */
struct mvgal_dma_taken {
	struct dma_buf_attachment *att;
	struct sg_table *sgt;
};

static void mvgal_dma_take(struct mvgal_gpu *gpu, struct mvgal_dma_taken *out)
{
	out->att = gpu->dma.att;
	out->sgt = gpu->dma.sgt;
	gpu->dma.att = NULL;
	gpu->dma.sgt = NULL;
	gpu->dma.err = 0;
	gpu->dma.stale = false;
}

/* After it the remap work does not run again: no attachment is left. */
static void mvgal_dma_unmap(struct mvgal_gpu *gpu, struct mvgal_dma_taken *r)
{
	if (r->sgt)
		mvgal_pool_detach_for(&gpu->pool, r->att, r->sgt);
	else if (r->att)
		dma_buf_detach(gpu->pool.dmabuf, r->att);
	cancel_work_sync(&gpu->dma.remap);
}

/**
 * mvgal_dma_unreach_gpu() - @gpu's pool is no longer mapped for the engine
 * @mdev: the device; caller holds gpu_lock to write
 * @gpu: the GPU, about to go
 */
void mvgal_dma_unreach_gpu(struct mvgal_device *mdev, struct mvgal_gpu *gpu)
{
	struct mvgal_dma_taken r;

	lockdep_assert_held_write(&mdev->gpu_lock);
	down_write(&mdev->dma.use);
	mvgal_dma_take(gpu, &r);
	up_write(&mdev->dma.use);
	mvgal_dma_unmap(gpu, &r);
}

/**
 * mvgal_dma_reaches() - can the copier reach @gpu's pool?
 * @mdev: the device
 * @gpu: the GPU, kept by gpu_lock or by a placement of a buffer whose
 *	 lock the caller holds (a CPU access picking a source)
 *
 * Without gpu_lock the answer may be stale by the time of the copy:
 * mvgal_dma_copy() asks again under @use, and the CPU makes a copy the
 * engine no longer can.
 */
bool mvgal_dma_reaches(struct mvgal_device *mdev, struct mvgal_gpu *gpu)
{
	return READ_ONCE(gpu->dma.sgt) && !READ_ONCE(mdev->dma.gone);
}

/* Every pair's facts: what the copier reaches now that it came or went. */
static void mvgal_dma_relink(struct mvgal_device *mdev)
{
	unsigned int i, j;

	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		for (j = 0; j < MVGAL_MAX_GPUS; j++) {
			struct mvgal_link *l = &mdev->links[i][j];

			if (!mdev->gpus[i] || !mdev->gpus[j] || i == j)
				continue;
			l->facts.dma_engine = mvgal_dma_reaches(mdev, mdev->gpus[i]) &&
					      mvgal_dma_reaches(mdev, mdev->gpus[j]);
			l->facts.p2p_copier = l->facts.dma_engine;
			l->link_flags &= ~MVGAL_LINK_DMA_ENGINE;
			if (l->facts.dma_engine)
				l->link_flags |= MVGAL_LINK_DMA_ENGINE;
		}
	}
}

/* No path is measured for the engine any more, nor refused by it. */
static void mvgal_dma_forget(struct mvgal_device *mdev)
{
	unsigned int i, j;

	spin_lock(&mdev->cal_lock);
	for (i = 0; i < MVGAL_LOC_COUNT; i++) {
		for (j = 0; j < MVGAL_LOC_COUNT; j++) {
			memset(&mdev->cal[i][j][MVGAL_METHOD_P2P], 0,
			       sizeof(mdev->cal[i][j][MVGAL_METHOD_P2P]));
			mdev->dma_ok[i][j] = false;
			mdev->dma_bad[i][j] = false;
		}
	}
	spin_unlock(&mdev->cal_lock);
}

/**
 * mvgal_dma_distrust() - a copy @src -> @dst failed on the engine: the pair
 * does not use it again until a calibration has checked it anew
 * @mdev: the device
 * @src: source location
 * @dst: destination location
 */
void mvgal_dma_distrust(struct mvgal_device *mdev, unsigned int src,
			unsigned int dst)
{
	spin_lock(&mdev->cal_lock);
	mdev->dma_ok[src][dst] = false;
	spin_unlock(&mdev->cal_lock);
}

/* The copier goes: every pool unmapped, the channel released. */
static void mvgal_dma_drop(struct mvgal_device *mdev)
{
	struct mvgal_dma_taken r[MVGAL_MAX_GPUS];
	struct mvgal_dma *dma = &mdev->dma;
	struct dma_chan *chan;
	unsigned int i;

	/*
	 * Copies in flight stop waiting and end their own descriptors
	 * (mvgal_dma_wait()); new ones see @gone and go to the CPU.
	 */
	WRITE_ONCE(dma->gone, true);
	/* Seen by a copy that submitted before it looked (the wait's test). */
	smp_mb();
	wake_up_all(&dma->wq);
	down_write(&mdev->gpu_lock);
	down_write(&dma->use);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (mdev->gpus[i])
			mvgal_dma_take(mdev->gpus[i], &r[i]);
	chan = dma->chan;
	dma->chan = NULL;
	dma->owner = NULL;
	dma->dev = NULL;
	mvgal_dma_relink(mdev);
	mvgal_dma_forget(mdev);
	up_write(&dma->use);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (mdev->gpus[i])
			mvgal_dma_unmap(mdev->gpus[i], &r[i]);
	up_write(&mdev->gpu_lock);
	if (chan)
		dma_release_channel(chan);
}

/*
 * The channel's device is being unbound: its driver is about to remove
 * the channel, so mvgal lets it go first (the copies in flight are
 * ended and made again by the CPU).
 */
static int mvgal_dma_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct mvgal_device *mdev = container_of(nb, struct mvgal_device,
						 dma.nb);

	if (action != BUS_NOTIFY_UNBIND_DRIVER ||
	    data != READ_ONCE(mdev->dma.owner))
		return NOTIFY_DONE;
	drm_info(&mdev->drm, "DMA engine %s unbound: the CPU copies\n",
		 dev_name(data));
	mvgal_dma_drop(mdev);
	return NOTIFY_OK;
}

/*
 * The channel's bus tells mvgal when its device goes. Only channels on
 * the first one's bus are used: another's unbind would go unseen.
 */
static int mvgal_dma_watch(struct mvgal_device *mdev, struct device *dev)
{
	struct mvgal_dma *dma = &mdev->dma;
	int ret;

	if (dma->watched)
		return dma->watched->bus == dev->bus ? 0 : -EBUSY;
	dma->nb.notifier_call = mvgal_dma_notify;
	ret = bus_register_notifier(dev->bus, &dma->nb);
	if (!ret)
		dma->watched = get_device(dev);
	return ret;
}

/*
 * A channel mvgal can stop: a copy that times out, or whose engine goes,
 * must know that no descriptor of it runs any more before its pages go.
 */
static bool mvgal_dma_usable(struct dma_chan *chan)
{
	return chan->device->device_terminate_all &&
	       chan->device->device_synchronize;
}

/* The channel becomes the copier's and every pool is mapped for it. */
static void mvgal_dma_install(struct mvgal_device *mdev, struct dma_chan *chan)
{
	struct mvgal_dma *dma = &mdev->dma;
	unsigned int i;

	down_write(&mdev->gpu_lock);
	down_write(&dma->use);
	dma->chan = chan;
	dma->owner = chan->device->dev;
	dma->dev = dmaengine_get_dma_device(chan);
	WRITE_ONCE(dma->gone, false);
	up_write(&dma->use);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (mdev->gpus[i])
			mvgal_dma_reach_gpu(mdev, mdev->gpus[i]);
	mvgal_dma_relink(mdev);
	up_write(&mdev->gpu_lock);
	drm_info(&mdev->drm, "DMA engine %s (%s) copies\n",
		 dma_chan_name(chan), dev_name(dma->owner));
}

/**
 * mvgal_dma_scan() - find a DMA_MEMCPY channel if none is held, and map
 * every GPU's pool for it
 * @mdev: the device; caller holds neither gpu_lock nor cal_mutex
 *
 * Private channels are found too: dma_request_chan_by_mask() takes any
 * channel with the capability that no one holds exclusively.
 */
void mvgal_dma_scan(struct mvgal_device *mdev)
{
	struct mvgal_dma *dma = &mdev->dma;
	struct device *owner;
	struct dma_chan *chan;
	dma_cap_mask_t mask;

	if (READ_ONCE(dma->chan))
		return;
	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	mutex_lock(&dma->scan_lock);
	if (dma->chan)
		goto out;
	chan = dma_request_chan_by_mask(&mask);
	if (IS_ERR(chan))
		goto out;
	owner = chan->device->dev;
	/* Outside gpu_lock: the notifier's call takes it under the bus's. */
	if (!mvgal_dma_usable(chan) || mvgal_dma_watch(mdev, owner)) {
		dma_release_channel(chan);
		goto out;
	}
	/*
	 * An unbind holds the device's lock from its notice to its end: a
	 * device still bound under it is not being unbound, so its notice
	 * is still to come.
	 */
	device_lock(owner);
	if (!owner->driver) {
		device_unlock(owner);
		dma_release_channel(chan);
		goto out;
	}
	mvgal_dma_install(mdev, chan);
	device_unlock(owner);
out:
	mutex_unlock(&dma->scan_lock);
}

void mvgal_dma_init(struct mvgal_device *mdev)
{
	mutex_init(&mdev->dma.scan_lock);
	init_rwsem(&mdev->dma.use);
	init_waitqueue_head(&mdev->dma.wq);
}

/* At unload, after every GPU went. */
void mvgal_dma_fini(struct mvgal_device *mdev)
{
	struct mvgal_dma *dma = &mdev->dma;

	mvgal_dma_drop(mdev);
	if (dma->watched) {
		bus_unregister_notifier(dma->watched->bus, &dma->nb);
		put_device(dma->watched);
	}
}

/**
 * mvgal_dma_show() - the copier's state, for debugfs
 * @m: the file
 * @mdev: the device
 *
 * "channel NAME DEVICE" (or "channel none"), the copies the engine did
 * not finish, then per GPU whether its pool is mapped for the engine
 * ("mapped", "moving" while its driver moves it, or "no" and why) and
 * how often its driver moved it under the engine's mapping.
 */
void mvgal_dma_show(struct seq_file *m, struct mvgal_device *mdev)
{
	struct mvgal_dma *dma = &mdev->dma;
	unsigned int i;

	down_read(&mdev->gpu_lock);
	down_read(&dma->use);
	if (dma->chan)
		seq_printf(m, "channel %s %s\n", dma_chan_name(dma->chan),
			   dev_name(dma->owner));
	else
		seq_puts(m, "channel none\n");
	seq_printf(m, "timeouts %lld errors %lld takeovers %lld\n",
		   atomic64_read(&dma->timeouts), atomic64_read(&dma->errors),
		   atomic64_read(&dma->takeovers));
	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		struct mvgal_gpu *gpu = mdev->gpus[i];

		if (!gpu)
			continue;
		seq_printf(m, "gpu %u %s %d moves %lld\n", i,
			   gpu->dma.sgt ? "mapped" :
			   gpu->dma.stale ? "moving" : "no", -gpu->dma.err,
			   atomic64_read(&gpu->dma.moves));
	}
	up_read(&dma->use);
	up_read(&mdev->gpu_lock);
}

/* Where a side's byte @pos is for the engine, and how far that runs. */
struct mvgal_dma_cursor {
	struct scatterlist *sg;
	u64 sg_start;
	unsigned int left;		/* entries from @sg on */
};

/* One descriptor: its run, its host mappings, how it ended. */
struct mvgal_dma_slot {
	struct mvgal_dma_batch *b;
	/* The part of a host page mapped for it, per side (@mapped[i]). */
	dma_addr_t map[2];
	u32 map_len[2];
	bool mapped[2];
	u64 len;
	enum dmaengine_tx_result result;
	bool done;
};

struct mvgal_dma_batch {
	struct mvgal_dma *dma;
	struct device *dev;
	atomic_t left;
	unsigned int n;
	/* @dma->ends when the window began: another copy ended it since. */
	unsigned int ends;
	struct mvgal_dma_slot slot[MVGAL_DMA_WINDOW];
};

static void mvgal_dma_done(void *param, const struct dmaengine_result *res)
{
	struct mvgal_dma_slot *s = param;
	struct mvgal_dma *dma = s->b->dma;

	s->result = res ? res->result : DMA_TRANS_NOERROR;
	WRITE_ONCE(s->done, true);
	/* The batch may be gone once @left drops: only @dma after it. */
	if (atomic_dec_and_test(&s->b->left))
		wake_up_all(&dma->wq);
}

/* The DMA address of byte @pos of a pool side and the run from it. */
static int mvgal_dma_pool_addr(struct mvgal_dma_cursor *c, u64 pos,
			       dma_addr_t *addr, u64 *run)
{
	while (c->sg && c->left && c->sg_start + sg_dma_len(c->sg) <= pos) {
		c->sg_start += sg_dma_len(c->sg);
		c->sg = sg_next(c->sg);
		c->left--;
	}
	if (!c->sg || !c->left || pos < c->sg_start)
		return -EINVAL;
	*addr = sg_dma_address(c->sg) + (pos - c->sg_start);
	*run = c->sg_start + sg_dma_len(c->sg) - pos;
	return 0;
}

/*
 * The host page of byte @pos of a host side, from @pos to the page's end
 * mapped for the engine: only what the run covers, so that a bounce
 * buffer (swiotlb) copied back at the unmap writes no byte outside it.
 */
static int mvgal_dma_host_addr(struct mvgal_dma_slot *s, int i,
			       const struct mvgal_dma_side *sd, u64 pos,
			       u64 end, dma_addr_t *addr, u64 *run)
{
	enum dma_data_direction dir = i ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	pgoff_t idx = pos >> PAGE_SHIFT;
	struct page *page;
	u32 len;

	page = sd->pages ? xa_load(sd->pages, idx) :
	       vmalloc_to_page(sd->vmem + ((u64)idx << PAGE_SHIFT));
	if (!page)
		return -EINVAL;
	len = min_t(u64, PAGE_SIZE - offset_in_page(pos), end - pos);
	*addr = dma_map_page(s->b->dev, page, offset_in_page(pos), len, dir);
	if (dma_mapping_error(s->b->dev, *addr))
		return -ENOMEM;
	s->map[i] = *addr;
	s->map_len[i] = len;
	s->mapped[i] = true;
	*run = len;
	return 0;
}

static void mvgal_dma_unmap_host(struct mvgal_dma_batch *b,
				 struct mvgal_dma_slot *s)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (s->mapped[i])
			dma_unmap_page(b->dev, s->map[i], s->map_len[i],
				       i ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
		s->mapped[i] = false;
	}
}

/* The copy's state across its windows. */
struct mvgal_dma_xfer {
	const struct mvgal_dma_side *side[2];	/* destination, source */
	struct mvgal_dma_cursor cur[2];
	struct dma_chan *chan;
	u64 pos, end;
};

/* Queue the next run as a descriptor of @b; -ENODEV: the engine refused. */
static int mvgal_dma_queue(struct mvgal_dma_xfer *x, struct mvgal_dma_batch *b)
{
	struct mvgal_dma_slot *s = &b->slot[b->n];
	struct dma_async_tx_descriptor *tx;
	dma_addr_t addr[2];
	u64 run[2], len;
	int i, ret;

	memset(s, 0, sizeof(*s));
	s->b = b;
	for (i = 0; i < 2; i++) {
		const struct mvgal_dma_side *sd = x->side[i];

		ret = sd->gpu ? mvgal_dma_pool_addr(&x->cur[i], sd->base + x->pos,
						    &addr[i], &run[i]) :
		      mvgal_dma_host_addr(s, i, sd, x->pos, x->end, &addr[i],
					  &run[i]);
		if (ret)
			goto err;
	}
	len = min3(run[0], run[1], x->end - x->pos);
	len = min_t(u64, len, MVGAL_DMA_MAX_RUN);
	/* What the engine cannot take, the CPU copies (all of it). */
	ret = -ENODEV;
	if (!is_dma_copy_aligned(x->chan->device, addr[1], addr[0], len))
		goto err;
	tx = dmaengine_prep_dma_memcpy(x->chan, addr[0], addr[1], len,
				       DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
	if (!tx)
		goto err;
	tx->callback_result = mvgal_dma_done;
	tx->callback_param = s;
	s->len = len;
	atomic_inc(&b->left);
	if (dma_submit_error(dmaengine_submit(tx))) {
		atomic_dec(&b->left);
		goto err;
	}
	b->n++;
	x->pos += len;
	return 0;
err:
	mvgal_dma_unmap_host(b, s);
	return -ENODEV;
}

/*
 * How the window ended: 0, -EIO for a descriptor that failed, -ENODEV
 * for one the engine aborted (its device is going).
 */
static int mvgal_dma_verdict(struct mvgal_dma_batch *b)
{
	int ret = 0;
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		struct mvgal_dma_slot *s = &b->slot[i];

		mvgal_dma_unmap_host(b, s);
		if (!s->done || s->result == DMA_TRANS_ABORTED)
			ret = ret ?: -ENODEV;
		else if (s->result != DMA_TRANS_NOERROR)
			ret = -EIO;
	}
	return ret;
}

/* Done, or no longer waited for: the engine went, or a copy ended it. */
static bool mvgal_dma_settled(struct mvgal_dma_batch *b)
{
	struct mvgal_dma *dma = b->dma;

	return !atomic_read_acquire(&b->left) || READ_ONCE(dma->gone) ||
	       atomic_read(&dma->ends) != b->ends;
}

/*
 * Waits for the window. A timeout ends every descriptor on the channel,
 * the other copies' too: they see @dma->ends move and are made by the
 * CPU, as when the engine goes.
 */
static int mvgal_dma_wait(struct mvgal_dma_xfer *x, struct mvgal_dma_batch *b)
{
	struct mvgal_dma *dma = b->dma;
	bool timed_out;

	dma_async_issue_pending(x->chan);
	timed_out = !wait_event_timeout(dma->wq, mvgal_dma_settled(b),
					msecs_to_jiffies(mvgal_dma_timeout_ms));
	if (atomic_read_acquire(&b->left)) {
		timed_out &= !READ_ONCE(dma->gone) &&
			     atomic_read(&dma->ends) == b->ends;
		/* No callback runs after this: the window is the caller's. */
		dmaengine_terminate_sync(x->chan);
		atomic_inc(&dma->ends);
		wake_up_all(&dma->wq);
		if (timed_out) {
			atomic64_inc(&dma->timeouts);
			mvgal_dma_verdict(b);
			return -ETIMEDOUT;
		}
	}
	return mvgal_dma_verdict(b);
}

static int mvgal_dma_run(struct mvgal_dma_xfer *x, struct mvgal_dma_batch *b)
{
	int ret = 0;

	while (!ret && x->pos < x->end) {
		b->n = 0;
		atomic_set(&b->left, 0);
		b->ends = atomic_read(&b->dma->ends);
		while (b->n < MVGAL_DMA_WINDOW && x->pos < x->end) {
			ret = mvgal_dma_queue(x, b);
			if (ret)
				break;
		}
		if (!b->n)
			break;
		ret = mvgal_dma_wait(x, b) ?: ret;
	}
	return ret;
}

static void mvgal_dma_cursor_init(struct mvgal_dma_cursor *c,
				  const struct mvgal_dma_side *sd)
{
	struct sg_table *sgt = sd->gpu ? sd->gpu->dma.sgt : NULL;

	c->sg = sgt ? sgt->sgl : NULL;
	c->sg_start = 0;
	c->left = sgt ? sgt->nents : 0;
}

/**
 * mvgal_dma_copy() - copy bytes [@off, @off + @len) of one side to the
 * other with the DMA engine
 * @mdev: the device
 * @d: the destination
 * @s: the source
 * @off: byte offset, the same at both sides
 * @len: bytes
 *
 * Return: 0; -ENODEV when the engine cannot make this copy (there is none,
 * it does not reach or cannot address a side, it went or another copy
 * ended its descriptors meanwhile): the caller makes it with the CPU,
 * all of it; -EIO when a descriptor failed, -ETIMEDOUT when the engine
 * did not finish in dma_timeout_ms: the copy failed and what it wrote is
 * not to be used.
 */
int mvgal_dma_copy(struct mvgal_device *mdev, const struct mvgal_dma_side *d,
		   const struct mvgal_dma_side *s, u64 off, u64 len)
{
	struct mvgal_dma *dma = &mdev->dma;
	struct mvgal_dma_batch *b;
	struct mvgal_dma_xfer x = {
		.side = { d, s }, .pos = off, .end = off + len,
	};
	int ret = -ENODEV;

	/* Without room for its state the copy is the CPU's. */
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENODEV;
	down_read(&dma->use);
	x.chan = dma->chan;
	if (!x.chan || READ_ONCE(dma->gone) ||
	    (d->gpu && !d->gpu->dma.sgt) || (s->gpu && !s->gpu->dma.sgt))
		goto out;
	b->dma = dma;
	b->dev = dma->dev;
	mvgal_dma_cursor_init(&x.cur[0], d);
	mvgal_dma_cursor_init(&x.cur[1], s);
	ret = mvgal_dma_run(&x, b);
	if (ret == -ENODEV)
		atomic64_inc(&dma->takeovers);
	else if (ret)
		atomic64_inc(&dma->errors);
out:
	up_read(&dma->use);
	kfree(b);
	return ret;
}
