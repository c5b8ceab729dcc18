/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DMA-engine copier: a dmaengine DMA_MEMCPY channel that copies
 * between host pages and GPU pools without a CPU (MVGAL_METHOD_P2P).
 */
#ifndef MVGAL_DEV_DMA_H
#define MVGAL_DEV_DMA_H

#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct dma_buf_attachment;
struct dma_chan;
struct device;
struct mvgal_device;
struct mvgal_gpu;
struct seq_file;
struct sg_table;
struct xarray;

/*
 * struct mvgal_dma - the device's DMA-engine copier
 *
 * @chan and every GPU's struct mvgal_dma_reach change under gpu_lock held
 * to write and @use held to write; copies hold @use to read (they run
 * without gpu_lock, in the migration worker or a calibration). The unbind
 * of the channel's device marks @gone first, so that copies in flight
 * stop waiting for it and new ones go to the CPU, then takes the locks.
 */
struct mvgal_dma {
	/* One look for a channel at a time (mvgal_dma_scan()). */
	struct mutex scan_lock;
	struct rw_semaphore use;
	struct dma_chan *chan;
	struct device *owner;		/* the channel's device, whose unbind ends it */
	struct device *dev;		/* the device DMA addresses are mapped for */
	bool gone;
	/* Copies waiting for their descriptors; woken by callbacks, @gone. */
	wait_queue_head_t wq;
	/* Times a copy ended every descriptor on the channel (a timeout). */
	atomic_t ends;
	/*
	 * On the bus of @watched (a reference), registered once and kept
	 * until unload: a notifier cannot leave its chain from its own call.
	 */
	struct notifier_block nb;
	struct device *watched;
	atomic64_t timeouts;
	atomic64_t errors;
	atomic64_t takeovers;
};

/*
 * A GPU's pool mapped for the copier's device: an importer that allows
 * peer-to-peer, so the pool's driver decides by its own rules (its
 * pci_p2pdma_distance() check) whether the engine reaches device memory.
 * @err: why not, as a positive errno, 0 when reached or never tried.
 * @stale: the pool's driver moved it; @remap maps it again (a pool that
 * may move). @att, @sgt, @err and @stale change under mvgal_dma.use held
 * to write.
 */
struct mvgal_dma_reach {
	struct dma_buf_attachment *att;
	struct sg_table *sgt;
	int err;
	bool stale;
	struct work_struct remap;
	atomic64_t moves;
};

/* One side of a copy: host pages (an xarray or vmalloc memory) or a pool. */
struct mvgal_dma_side {
	struct xarray *pages;
	void *vmem;
	struct mvgal_gpu *gpu;
	u64 base;			/* in the pool */
};

void mvgal_dma_init(struct mvgal_device *mdev);
void mvgal_dma_fini(struct mvgal_device *mdev);
void mvgal_dma_scan(struct mvgal_device *mdev);
void mvgal_dma_gpu_init(struct mvgal_gpu *gpu);
void mvgal_dma_show(struct seq_file *m, struct mvgal_device *mdev);
bool mvgal_dma_reaches(struct mvgal_device *mdev, struct mvgal_gpu *gpu);
void mvgal_dma_reach_gpu(struct mvgal_device *mdev, struct mvgal_gpu *gpu);
void mvgal_dma_unreach_gpu(struct mvgal_device *mdev, struct mvgal_gpu *gpu);
void mvgal_dma_distrust(struct mvgal_device *mdev, unsigned int src,
			unsigned int dst);
int mvgal_dma_copy(struct mvgal_device *mdev, const struct mvgal_dma_side *d,
		   const struct mvgal_dma_side *s, u64 off, u64 len);

#endif /* MVGAL_DEV_DMA_H */
