// SPDX-License-Identifier: GPL-2.0
/*
 * GPUs: attach a DRM device and the pool it lends, record what the kernel
 * knows about it (driver, PCI identity, NUMA node, host bridge), and probe
 * how every other attached GPU reaches its pool.
 */

#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_path.h"
#include "core/mvgal_predict.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_params.h"
#include "dev/mvgal_path.h"
#include "dev/mvgal_pool.h"

/**
 * mvgal_gpu_lookup() - the GPU in a slot; caller holds gpu_lock
 * @mdev: the device
 * @index: the slot
 * @err: (out) -EINVAL for a slot out of range, -ENODEV for an empty one
 */
struct mvgal_gpu *mvgal_gpu_lookup(struct mvgal_device *mdev, u32 index,
				   int *err)
{
	lockdep_assert_held(&mdev->gpu_lock);
	if (index >= mvgal_max_gpus) {
		*err = -EINVAL;
		return NULL;
	}
	if (!mdev->gpus[index]) {
		*err = -ENODEV;
		return NULL;
	}
	return mdev->gpus[index];
}

/*
 * mvgal_gpu_any_exportable() - can a placement be exported (PLACE_FD) from
 * some GPU now? A pool its driver may move cannot be: the mapping an
 * export hands out would go with a move.
 */
bool mvgal_gpu_any_exportable(struct mvgal_device *mdev)
{
	bool any = false;
	u32 memory, flags, i;
	u64 moves;

	down_read(&mdev->gpu_lock);
	for (i = 0; i < mvgal_max_gpus && !any; i++) {
		struct mvgal_gpu *gpu = mdev->gpus[i];

		if (!gpu || READ_ONCE(gpu->detaching) ||
		    mvgal_gpu_unplugged(gpu))
			continue;
		mvgal_pool_where(&gpu->pool, &memory, &flags, &moves);
		any = !(flags & MVGAL_POOL_MOVABLE);
	}
	up_read(&mdev->gpu_lock);
	return any;
}

/*
 * mvgal_gpu_unplugged() - has the GPU's device gone (its driver unbound,
 * the device removed)? Its DRM device is unplugged then: drm_dev_enter()
 * fails for good.
 */
bool mvgal_gpu_unplugged(struct mvgal_gpu *gpu)
{
	int idx;

	if (!drm_dev_enter(gpu->ddev, &idx))
		return true;
	drm_dev_exit(idx);
	return false;
}

/**
 * mvgal_gpu_use() - the GPU in a slot, for new use of it: a session, a
 * copy into its pool, a buffer on it, its pool's dma-buf
 * @mdev: the device; caller holds gpu_lock
 * @index: the slot
 * @err: (out) as mvgal_gpu_lookup(), and -ENODEV for a GPU whose device
 *	 was unplugged or that is being detached: what its pool holds can
 *	 still be taken home (CPU access, PLACE_FREE, detach), but nothing
 *	 new goes there
 */
struct mvgal_gpu *mvgal_gpu_use(struct mvgal_device *mdev, u32 index, int *err)
{
	struct mvgal_gpu *gpu = mvgal_gpu_lookup(mdev, index, err);

	if (gpu && (READ_ONCE(gpu->detaching) || mvgal_gpu_unplugged(gpu))) {
		*err = -ENODEV;
		return NULL;
	}
	return gpu;
}

/*
 * Import @dmabuf through @ddev's own PRIME import, exactly as userspace
 * handing the buffer to that driver would. This, not dma_buf_attach(),
 * tells whether the driver can use the memory: drivers refuse foreign
 * buffers in their import hooks.
 */
struct drm_gem_object *mvgal_driver_import(struct drm_device *ddev,
					   struct dma_buf *dmabuf)
{
	struct drm_gem_object *obj;
	int idx;

	if (!drm_core_check_feature(ddev, DRIVER_GEM))
		return ERR_PTR(-EOPNOTSUPP);
	/* As drm_ioctl() does for userspace: never call into a driver
	 * whose device is gone.
	 */
	if (!drm_dev_enter(ddev, &idx))
		return ERR_PTR(-ENODEV);
	if (ddev->driver->gem_prime_import)
		obj = ddev->driver->gem_prime_import(ddev, dmabuf);
	else
		obj = drm_gem_prime_import(ddev, dmabuf);
	drm_dev_exit(idx);
	return obj;
}

/*
 * Is @dmabuf memory that @ddev's driver allocated for @ddev itself? Called
 * with no lock held: the driver's import, which tells, may reach any
 * exporter's callbacks, mvgal's own among them.
 */
bool mvgal_gpu_dmabuf_is_native(struct drm_device *ddev,
				struct dma_buf *dmabuf)
{
	struct drm_gem_object *obj = mvgal_driver_import(ddev, dmabuf);
	bool native;

	if (IS_ERR(obj))
		return false;
	/* A driver's import of its own export returns the object the
	 * dma-buf was exported from (a GEM export's priv); anything else is
	 * a new object wrapping foreign memory.
	 */
	native = obj->dev == ddev && !obj->import_attach &&
		 dmabuf->priv == obj;
	drm_gem_object_put(obj);
	return native;
}

/**
 * mvgal_gpu_adopt_pool() - take a driver buffer on as one placement's pool
 * @gpu: the GPU; caller holds gpu_lock (to read), and checked that
 *	 @dmabuf is its driver's own (mvgal_gpu_dmabuf_is_native())
 * @dmabuf: the buffer; on success the pool owns this reference
 * @out: (out) the pool, for mvgal_gpu_adopted_put() (or, while no
 *	 placement has it, mvgal_gpu_adopt_drop()) when it goes
 *
 * Attached as a GPU's pool is, with the same calls into the driver only,
 * but pinned where the driver pins for importers (amdgpu 6.12: in GTT):
 * a pool is followed through moves only with a handle of it that no
 * caller can drop (&struct mvgal_pool_keep), and a handle made from the
 * caller's fd could name another buffer by the time it is made. A
 * dma-buf lent already, or the GPU's pool itself, is refused: one buffer
 * lent twice would hold two buffers' bytes.
 *
 * Return: 0, -EBUSY (lent already, or the GPU's pool), -ENODEV (the
 * device is gone), -ENOMEM, or mvgal_pool_init()'s error (-ENXIO,
 * -EOPNOTSUPP).
 */
int mvgal_gpu_adopt_pool(struct mvgal_gpu *gpu, struct dma_buf *dmabuf,
			 struct mvgal_pool **out)
{
	struct mvgal_pool_keep none = { };
	struct mvgal_pool *pool;
	int ret, idx;

	lockdep_assert_held(&gpu->mdev->gpu_lock);
	if (dmabuf == gpu->pool.dmabuf)
		return -EBUSY;
	pool = kzalloc(sizeof(*pool), GFP_KERNEL_ACCOUNT);
	if (!pool)
		return -ENOMEM;
	ret = xa_insert(&gpu->adopted, (unsigned long)dmabuf, dmabuf,
			GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_free;
	ret = -ENODEV;
	if (drm_dev_enter(gpu->ddev, &idx)) {
		ret = mvgal_pool_init(pool, dmabuf, gpu->dev, &none);
		drm_dev_exit(idx);
	}
	if (ret)
		goto err_unreserve;
	*out = pool;
	return 0;

err_unreserve:
	xa_erase(&gpu->adopted, (unsigned long)dmabuf);
err_free:
	kfree(pool);
	return ret;
}

/**
 * mvgal_gpu_adopt_drop() - give back a pool mvgal_gpu_adopt_pool() made
 * @gpu: its GPU, which stays attached meanwhile
 * @pool: the pool, which no placement has
 *
 * Takes the dma-buf's reservation: never under a buffer's lock.
 */
void mvgal_gpu_adopt_drop(struct mvgal_gpu *gpu, struct mvgal_pool *pool)
{
	struct dma_buf *dmabuf = pool->dmabuf;

	mvgal_pool_fini(pool);
	kfree(pool);
	/* Only now may it be lent again: mvgal holds nothing of it. */
	xa_erase(&gpu->adopted, (unsigned long)dmabuf);
}

/* Gives back the pools of adopted placements that went. */
static void mvgal_gpu_adopted_work(struct work_struct *work)
{
	struct mvgal_gpu *gpu = container_of(work, struct mvgal_gpu,
					     adopted_work);
	struct mvgal_pool *pool, *next;

	llist_for_each_entry_safe(pool, next, llist_del_all(&gpu->adopted_gone),
				  gone)
		mvgal_gpu_adopt_drop(gpu, pool);
}

/**
 * mvgal_gpu_adopted_put() - an adopted placement's pool is no longer used
 * @gpu: its GPU, which stays attached until the pool is given back
 * @pool: the pool; it holds no allocation and no view of it is held
 *
 * Callable under buffers' locks: the pool is given back from a work item.
 */
void mvgal_gpu_adopted_put(struct mvgal_gpu *gpu, struct mvgal_pool *pool)
{
	if (llist_add(&pool->gone, &gpu->adopted_gone))
		queue_work(system_unbound_wq, &gpu->adopted_work);
}

/* Probes how GPU @dst reaches the pool of GPU @src. */
static void mvgal_link_probe(struct mvgal_link *link, struct mvgal_gpu *src,
			     struct mvgal_gpu *dst)
{
	struct mvgal_device *mdev = src->mdev;
	bool dma_engine = mvgal_dma_reaches(mdev, src) &&
			  mvgal_dma_reaches(mdev, dst);
	struct mvgal_link_facts facts = {
		.dma_engine = dma_engine,
		.src_mapped = true,
		.dst_mapped = true,
		.src_iomem = mvgal_pool_is_device(&src->pool),
		.p2p_copier = dma_engine,
	};
	struct drm_gem_object *obj;

	obj = mvgal_driver_import(dst->ddev, src->pool.dmabuf);
	if (IS_ERR(obj)) {
		link->import_error = -PTR_ERR(obj);
	} else {
		link->import_error = 0;
		facts.dst_imports_src = true;
		drm_gem_object_put(obj);
	}

	link->link_flags = 0;
	if (src->host_bridge && src->host_bridge == dst->host_bridge)
		link->link_flags |= MVGAL_LINK_SAME_ROOT;
	if (src->numa_node >= 0 && src->numa_node == dst->numa_node)
		link->link_flags |= MVGAL_LINK_SAME_NUMA;
	if (dma_engine)
		link->link_flags |= MVGAL_LINK_DMA_ENGINE;
	link->facts = facts;
}

/* Reads identity and topology of @gpu->dev from the kernel. */
static void mvgal_gpu_identify(struct mvgal_gpu *gpu)
{
	struct device *d;

	strscpy(gpu->driver, gpu->ddev->driver->name, sizeof(gpu->driver));
	/* Most DRM devices are the PCI function itself; some sit on a child
	 * device of it. Either way the PCI function is the GPU's identity,
	 * held by a reference of its own: a reference to a child does not
	 * keep a removed parent alive.
	 */
	for (d = gpu->dev; d; d = d->parent)
		if (dev_is_pci(d))
			break;
	if (d) {
		struct pci_host_bridge *bridge;

		gpu->pdev = pci_dev_get(to_pci_dev(d));
		bridge = pci_find_host_bridge(gpu->pdev->bus);
		gpu->host_bridge = bridge;
		strscpy(gpu->slot, pci_name(gpu->pdev), sizeof(gpu->slot));
		strscpy(gpu->root, dev_name(&bridge->dev), sizeof(gpu->root));
		gpu->numa_node = dev_to_node(&gpu->pdev->dev);
	} else {
		strscpy(gpu->slot, dev_name(gpu->dev), sizeof(gpu->slot));
		gpu->root[0] = '\0';
		gpu->numa_node = dev_to_node(gpu->dev);
	}
	if (gpu->numa_node < 0)
		gpu->numa_node = NUMA_NO_NODE;
	/*
	 * Its nodes' numbers, as userspace matches devices by them (Vulkan's
	 * VK_EXT_physical_device_drm): the minors' device numbers, which
	 * DRM keeps for as long as the drm_device lives.
	 */
	if (gpu->ddev->render && gpu->ddev->render->kdev)
		gpu->render_devt = gpu->ddev->render->kdev->devt;
	if (gpu->ddev->primary && gpu->ddev->primary->kdev)
		gpu->primary_devt = gpu->ddev->primary->kdev->devt;
}

static void mvgal_gpu_put_refs(struct mvgal_gpu *gpu)
{
	pci_dev_put(gpu->pdev);
	put_device(gpu->dev);
	drm_dev_put(gpu->ddev);
}

static void mvgal_gpu_free(struct mvgal_gpu *gpu)
{
	/* The pool's dma-buf holds its own references to the exporting
	 * device and module; ours go first.
	 */
	flush_work(&gpu->adopted_work);
	xa_destroy(&gpu->adopted);
	mvgal_gpu_put_refs(gpu);
	mvgal_pool_fini(&gpu->pool);
	kvfree(gpu->pred);
	mutex_destroy(&gpu->evict_lock);
	mutex_destroy(&gpu->lru_lock);
	kfree(gpu);
}

/* Links of the newly attached @gpu with every other GPU, both ways. */
static void mvgal_gpu_link_all(struct mvgal_device *mdev,
			       struct mvgal_gpu *gpu)
{
	unsigned int i;

	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		struct mvgal_gpu *other = mdev->gpus[i];

		if (!other || other == gpu)
			continue;
		mvgal_link_probe(&mdev->links[gpu->index][i], gpu, other);
		mvgal_link_probe(&mdev->links[i][gpu->index], other, gpu);
		if (gpu->numa_node >= 0 && other->numa_node >= 0 &&
		    gpu->numa_node != other->numa_node)
			drm_warn(&mdev->drm,
				 "GPU %u (%s) and GPU %u (%s) are on different NUMA nodes (%d, %d): data between them crosses the interconnect\n",
				 gpu->index, gpu->slot, i, other->slot,
				 gpu->numa_node, other->numa_node);
	}
}

/*
 * The slot a new GPU goes in: @want, or the first free one for
 * MVGAL_GPU_ANY. Caller holds gpu_lock.
 *
 * Return: the slot, or -EEXIST (@ddev is attached already), -EBUSY (@want
 * is taken), -ENOSPC (none free).
 */
static int mvgal_gpu_pick_slot(struct mvgal_device *mdev,
			       struct drm_device *ddev, u32 want)
{
	unsigned int i;

	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (mdev->gpus[i] && mdev->gpus[i]->ddev == ddev)
			return -EEXIST;
	if (want != MVGAL_GPU_ANY)
		return mdev->gpus[want] ? -EBUSY : want;
	for (i = 0; i < mvgal_max_gpus; i++)
		if (!mdev->gpus[i])
			return i;
	return -ENOSPC;
}

/* A GPU for @ddev in @slot, holding its references, its identity read. */
static struct mvgal_gpu *mvgal_gpu_new(struct mvgal_device *mdev,
				       unsigned int slot,
				       struct drm_device *ddev)
{
	struct mvgal_gpu *gpu;

	gpu = kzalloc(sizeof(*gpu), GFP_KERNEL);
	if (!gpu)
		return NULL;
	gpu->mdev = mdev;
	gpu->index = slot;
	mutex_init(&gpu->lru_lock);
	mutex_init(&gpu->evict_lock);
	INIT_LIST_HEAD(&gpu->lru);
	init_llist_head(&gpu->adopted_gone);
	xa_init(&gpu->adopted);
	INIT_WORK(&gpu->adopted_work, mvgal_gpu_adopted_work);
	mvgal_dma_gpu_init(gpu);
	/* Without it the GPU works, only nothing is prefetched for it. */
	gpu->pred = kvmalloc(sizeof(*gpu->pred), GFP_KERNEL);
	if (gpu->pred)
		mvgal_predict_init(gpu->pred);
	gpu->ddev = ddev;
	drm_dev_get(ddev);
	gpu->dev = get_device(ddev->dev);
	mvgal_gpu_identify(gpu);
	return gpu;
}

/* @gpu's pool, carved from @dmabuf unless its device is gone already. */
static int mvgal_gpu_pool_init(struct mvgal_gpu *gpu, struct dma_buf *dmabuf,
			       struct mvgal_pool_keep *keep)
{
	int ret, idx;

	if (!drm_dev_enter(gpu->ddev, &idx))
		return -ENODEV;
	ret = mvgal_pool_init(&gpu->pool, dmabuf, gpu->dev, keep);
	drm_dev_exit(idx);
	return ret;
}

/* @gpu takes its slot; its links with every other GPU are probed. */
static void mvgal_gpu_publish(struct mvgal_device *mdev,
			      struct mvgal_gpu *gpu)
{
	mdev->gpus[gpu->index] = gpu;
	mdev->gpu_count++;
	mvgal_dma_reach_gpu(mdev, gpu);
	mvgal_gpu_link_all(mdev, gpu);
	drm_info(&mdev->drm, "GPU %u attached: %s %s, NUMA node %d, pool %llu MiB\n",
		 gpu->index, gpu->driver, gpu->slot, gpu->numa_node,
		 gpu->pool.size >> 20);
}

/**
 * mvgal_gpu_attach() - attach a DRM device and the pool it lends
 * @mdev: the device
 * @ddev: the GPU's DRM device (another driver's)
 * @dmabuf: the pool, exported by @ddev's driver; the reference is taken
 *	    over (by the pool, or dropped on failure)
 * @f: the file of one of @ddev's nodes the attach was given
 * @pool_fd: @dmabuf's fd in the calling process
 * @want: the slot (below mvgal_max_gpus), or MVGAL_GPU_ANY
 *
 * Return: the slot, or -errno (-EEXIST, -EBUSY, -ENOSPC, -EINVAL for a
 * pool @ddev did not export, -ENOMEM, -ENODEV, or the pool's set-up).
 */
int mvgal_gpu_attach(struct mvgal_device *mdev, struct drm_device *ddev,
		     struct dma_buf *dmabuf, struct file *f, int pool_fd,
		     u32 want)
{
	struct mvgal_pool_keep keep = { };
	struct mvgal_gpu *gpu;
	int slot, ret;

	/* Outside gpu_lock: the driver's import may reach any exporter's
	 * callbacks, mvgal's own among them.
	 */
	if (!mvgal_gpu_dmabuf_is_native(ddev, dmabuf)) {
		ret = -EINVAL;
		goto out_put;
	}
	/* Also outside gpu_lock: the handle is the driver's own import. */
	mvgal_pool_keep_get(&keep, ddev, f, dmabuf, pool_fd);
	/* A DMA engine bound since the last look reaches the new pool too. */
	mvgal_dma_scan(mdev);
	down_write(&mdev->gpu_lock);
	slot = mvgal_gpu_pick_slot(mdev, ddev, want);
	if (slot < 0) {
		ret = slot;
		goto out_unlock;
	}
	gpu = mvgal_gpu_new(mdev, slot, ddev);
	if (!gpu) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	ret = mvgal_gpu_pool_init(gpu, dmabuf, &keep);
	if (ret)
		goto out_free;
	/* The pool owns the reference to @dmabuf now. */
	mvgal_gpu_publish(mdev, gpu);
	up_write(&mdev->gpu_lock);
	return slot;

out_free:
	mvgal_gpu_put_refs(gpu);
	kvfree(gpu->pred);
	kfree(gpu);
out_unlock:
	up_write(&mdev->gpu_lock);
out_put:
	mvgal_pool_keep_put(&keep);
	dma_buf_put(dmabuf);
	return ret;
}

/* Removes @gpu from @mdev; caller holds gpu_lock to write, the pool is
 * empty.
 */
static void mvgal_gpu_remove(struct mvgal_device *mdev, struct mvgal_gpu *gpu)
{
	unsigned int i;

	lockdep_assert_held_write(&mdev->gpu_lock);
	mdev->gpus[gpu->index] = NULL;
	mdev->gpu_count--;
	mvgal_cal_forget(mdev, 1 + gpu->index);
	for (i = 0; i < MVGAL_MAX_GPUS; i++) {
		memset(&mdev->links[gpu->index][i], 0, sizeof(struct mvgal_link));
		memset(&mdev->links[i][gpu->index], 0, sizeof(struct mvgal_link));
	}
	drm_info(&mdev->drm, "GPU %u detached: %s %s\n", gpu->index,
		 gpu->driver, gpu->slot);
	mvgal_dma_unreach_gpu(mdev, gpu);
	mvgal_exec_gpu_gone(mdev, gpu->index);
	mvgal_gpu_free(gpu);
}

/**
 * mvgal_gpu_detach_begin() - mark a GPU detaching: from here on nothing
 * new goes to it (mvgal_gpu_use() and new placements are -ENODEV), and
 * every ioctl that was using it has returned
 * @mdev: the device; caller holds no gpu_lock
 * @index: the slot
 * @err: (out) as mvgal_gpu_lookup(), or -EBUSY while another detach of
 *	 the GPU runs
 *
 * The caller, alone now to free the GPU, drains its pool without
 * gpu_lock and ends with mvgal_gpu_detach_end().
 */
struct mvgal_gpu *mvgal_gpu_detach_begin(struct mvgal_device *mdev,
					 u32 index, int *err)
{
	struct mvgal_gpu *gpu;

	down_write(&mdev->gpu_lock);
	gpu = mvgal_gpu_lookup(mdev, index, err);
	if (gpu && gpu->detaching) {
		*err = -EBUSY;
		gpu = NULL;
	}
	if (gpu)
		WRITE_ONCE(gpu->detaching, true);
	up_write(&mdev->gpu_lock);
	return gpu;
}

/**
 * mvgal_gpu_detach_end() - remove a detaching GPU whose pool is empty, or
 * put it back to use
 * @mdev: the device
 * @gpu: from mvgal_gpu_detach_begin()
 * @ret: the drain's outcome: 0 to remove @gpu (freed then)
 *
 * Return: @ret, or -EBUSY when the pool still holds an allocation (a
 * calibration's scratch, a test's debugfs one): the GPU stays.
 */
int mvgal_gpu_detach_end(struct mvgal_device *mdev, struct mvgal_gpu *gpu,
			 int ret)
{
	/*
	 * Lent buffers the drain gave back are released; one a buffer's end
	 * gives back only now is still noted in gpu->adopted until it is.
	 */
	flush_work(&gpu->adopted_work);
	down_write(&mdev->gpu_lock);
	if (!ret) {
		mutex_lock(&gpu->pool.lock);
		if (gpu->pool.nr_allocs || !xa_empty(&gpu->adopted))
			ret = -EBUSY;
		mutex_unlock(&gpu->pool.lock);
	}
	if (ret)
		WRITE_ONCE(gpu->detaching, false);
	else
		mvgal_gpu_remove(mdev, gpu);
	up_write(&mdev->gpu_lock);
	return ret;
}

/**
 * mvgal_gpu_detach_all() - at unload: let every GPU and its pool go
 * @mdev: the device; no ioctl can run any more and the pools are empty
 */
void mvgal_gpu_detach_all(struct mvgal_device *mdev)
{
	unsigned int i;

	down_write(&mdev->gpu_lock);
	for (i = 0; i < MVGAL_MAX_GPUS; i++)
		if (mdev->gpus[i])
			mvgal_gpu_remove(mdev, mdev->gpus[i]);
	up_write(&mdev->gpu_lock);
}
