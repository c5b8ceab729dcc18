// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: <debugfs>/mvgal/pool_alloc drives the pool allocator directly,
 * so tests can watch pool figures and GPU states move before anything
 * else allocates from pools. Root only (0600).
 *
 *   echo "alloc GPU SIZE" > pool_alloc   allocate SIZE bytes from GPU's pool
 *   echo "free GPU" > pool_alloc         free the newest allocation on GPU
 *   cat pool_alloc                       one "GPU OFFSET SIZE" line each
 *
 * <debugfs>/mvgal/bo_memtype (x86) reads, from the kernel's own page
 * tables, the memory type of every host page of every buffer:
 *   cat bo_memtype                       one "ID wb=N wc=N other=N" line each
 * so tests can see that CPU_UNCACHED pages really are write-combined.
 *
 * <debugfs>/mvgal/bo_meta: what each buffer's chunk records take now,
 *   cat bo_meta                          one "ID LEAVES BYTES" line each
 * so tests can see that they grow with what is touched.
 *
 * <debugfs>/mvgal/dmabuf_sg reads a dma-buf as an importing device sees
 * it: attached to mvgal's own device and mapped, its bytes read through
 * the DMA addresses of the sg table the exporter gave, as the device
 * would (not through its vmap, mmap or the table's pages; -EOPNOTSUPP
 * behind an IOMMU):
 *   echo "FD OFFSET LEN" > dmabuf_sg     FD in the writer's fd table
 *   cat dmabuf_sg                        "SG_BYTES NENTS\n", then the bytes
 * so tests can check what a GPU driver importing an export would get.
 * One result per open file; LEN is 1..16 MiB. Root only (0600).
 *
 * <debugfs>/mvgal/staged: bytes of buffer copies (sessions', migrations',
 * CPU accesses') that went through a bounce buffer, by the NUMA node its
 * memory is on:
 *   cat staged                           one "NODE BYTES" line per node
 * so tests can see that staging happens on the node the rule names.
 *
 * <debugfs>/mvgal/staging: the staging memory of staged writes (BO_PWRITE
 * with MVGAL_RW_STAGED) each user holds, and its writes waiting for room:
 *   cat staging                          one "UID HELD WAITING" line per
 *                                        user that holds or waits
 * so tests can see each user's share and when a write waits for it.
 *
 * <debugfs>/mvgal/dma_engine: the DMA-engine copier (dev/mvgal_dma.c):
 *   cat dma_engine                       "channel NAME DEVICE" or "channel
 *                                        none", "timeouts N errors N
 *                                        takeovers N", then one "gpu I
 *                                        mapped|moving|no ERRNO moves N"
 *                                        line per GPU
 * so tests can see which pools the engine reaches and that it follows
 * their drivers' moves.
 *
 * <debugfs>/mvgal/executors: the copy executors (dev/mvgal_exec.c):
 *   cat executors                        "copies N fallbacks N timeouts N
 *                                        errors N wrong N gone N", then
 *                                        one "gpu I pid P queued N taken
 *                                        N" line per registered executor
 * so tests can see how each executor's copies ended.
 *
 * <debugfs>/mvgal/path_cal sets the figures of one method on one path by
 * hand, as if a calibration had measured them, so that tests can make
 * the path selector's choice depend on the size. Root only (0200).
 *   echo "SRC DST METHOD LATENCY_NS BYTES_PER_S" > path_cal
 * SRC and DST are locations (0 the host, 1 + GPU), METHOD an
 * MVGAL_METHOD_* (an executor's figures count only once a calibration
 * has checked it); a bandwidth of 0 is "not measured". GET_PATH shows the
 * figures, and the next CALIBRATE replaces them.
 *
 * <debugfs>/mvgal/bo_hold holds one buffer's lock for a while, as a slow
 * CPU access (a first touch making a large buffer's pages) does, so that
 * tests can show what else waits for it. Root only (0200).
 *   echo "ID MS" > bo_hold               the write returns after MS ms
 * ID is the buffer's id (BO_INFO), MS at most 10000; a signal ends the
 * wait early.
 *
 * <debugfs>/mvgal/hmm_publish_delay makes every call that planned on one
 * mirrored registration (the first a job or session names) sleep MS ms
 * before what it planned counts (a CPU access's fetch once per chunk),
 * so that tests can change what the range maps in between. Root only
 * (0600).
 *   echo "ID MS" > hmm_publish_delay     MS 0 (the default) for none
 *   cat hmm_publish_delay                "ID MS SLEEPS": sleeps begun so far
 * ID is the buffer's id (BO_INFO), MS at most 10000.
 *
 * <debugfs>/mvgal/numa_move_delay makes every batch of a NUMA page move
 * (policy/mvgal_numa.c) sleep MS ms with its buffer's lock held, so that
 * tests can have eviction find buffers locked by their moves. Root only
 * (0600).
 *   echo MS > numa_move_delay            MS 0 (the default) for none
 *   cat numa_move_delay                  "MS BATCHES WAITS": page-move
 *                                        batches begun, and evictions'
 *                                        waits for one, so far
 * MS is at most 10000.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-buf.h>
#include <linux/dma-direct.h>
#include <linux/io.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/pgtable_types.h>
#endif

#include "core/mvgal_path.h"
#include "dev/mvgal_device.h"
#include "dev/mvgal_dma.h"
#include "dev/mvgal_exec.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_path.h"
#include "dev/mvgal_pool.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_chunks.h"
#include "bo/mvgal_hmm.h"
#include "move/mvgal_job.h"
#include "move/mvgal_place.h"
#include "policy/mvgal_numa.h"
#include "uapi/mvgal_debugfs.h"

struct mvgal_debug_alloc {
	struct list_head link;
	struct mvgal_gpu *gpu;
	struct mvgal_pool_alloc alloc;
};

static int mvgal_debug_alloc_show(struct seq_file *m, void *unused)
{
	struct mvgal_device *mdev = m->private;
	struct mvgal_debug_alloc *d;

	down_read(&mdev->gpu_lock);
	list_for_each_entry(d, &mdev->debug_allocs, link)
		seq_printf(m, "%u %llu %llu\n", d->gpu->index,
			   d->alloc.node.start, d->alloc.node.size);
	up_read(&mdev->gpu_lock);
	return 0;
}

static int mvgal_debug_alloc_open(struct inode *inode, struct file *file)
{
	return single_open(file, mvgal_debug_alloc_show, inode->i_private);
}

static int mvgal_debug_do_alloc(struct mvgal_device *mdev, u32 index, u64 size)
{
	struct mvgal_debug_alloc *d;
	struct mvgal_gpu *gpu;
	int ret;

	gpu = mvgal_gpu_lookup(mdev, index, &ret);
	if (!gpu)
		return ret;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	ret = mvgal_pool_alloc(gpu, &d->alloc, size);
	if (ret) {
		kfree(d);
		return ret;
	}
	d->gpu = gpu;
	list_add(&d->link, &mdev->debug_allocs);
	return 0;
}

static int mvgal_debug_do_free(struct mvgal_device *mdev, u32 index)
{
	struct mvgal_debug_alloc *d;
	struct mvgal_gpu *gpu;
	int ret;

	gpu = mvgal_gpu_lookup(mdev, index, &ret);
	if (!gpu)
		return ret;
	list_for_each_entry(d, &mdev->debug_allocs, link) {
		if (d->gpu == gpu) {
			list_del(&d->link);
			mvgal_pool_free(gpu, &d->alloc);
			kfree(d);
			return 0;
		}
	}
	return -ENOENT;
}

static ssize_t mvgal_debug_alloc_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *pos)
{
	struct mvgal_device *mdev = file_inode(file)->i_private;
	char buf[64];
	u32 index;
	u64 size;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	down_write(&mdev->gpu_lock);
	if (sscanf(buf, "alloc %u %llu", &index, &size) == 2)
		ret = mvgal_debug_do_alloc(mdev, index, size);
	else if (sscanf(buf, "free %u", &index) == 1)
		ret = mvgal_debug_do_free(mdev, index);
	else
		ret = -EINVAL;
	up_write(&mdev->gpu_lock);
	return ret ? ret : len;
}

static const struct file_operations mvgal_debug_alloc_fops = {
	.owner = THIS_MODULE,
	.open = mvgal_debug_alloc_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = mvgal_debug_alloc_write,
};

static int mvgal_debug_meta_show(struct seq_file *m, void *unused)
{
	struct mvgal_device *mdev = m->private;
	struct mvgal_bo *bo;

	mutex_lock(&mdev->bos_lock);
	list_for_each_entry(bo, &mdev->bos, link) {
		u64 bytes;
		unsigned long n = mvgal_chunks_leaves(bo, &bytes);

		seq_printf(m, "%llu %lu %llu\n", bo->id, n, bytes);
	}
	mutex_unlock(&mdev->bos_lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(mvgal_debug_meta);

#ifdef CONFIG_X86

/* The cache mode bits of the direct-map entry of @page, 4K encoding. */
static unsigned long mvgal_page_cache_bits(struct page *page)
{
	unsigned int level;
	pte_t *pte = lookup_address((unsigned long)page_address(page), &level);
	pgprot_t prot;

	if (!pte)
		return ~0UL;
	prot = pte_pgprot(*pte);
	if (level != PG_LEVEL_4K)
		prot = pgprot_large_2_4k(prot);
	return pgprot_val(prot) & _PAGE_CACHE_MASK;
}

static int mvgal_debug_memtype_show(struct seq_file *m, void *unused)
{
	struct mvgal_device *mdev = m->private;
	unsigned long wc = cachemode2protval(_PAGE_CACHE_MODE_WC);
	unsigned long wb = cachemode2protval(_PAGE_CACHE_MODE_WB);
	struct mvgal_bo *bo;

	mutex_lock(&mdev->bos_lock);
	list_for_each_entry(bo, &mdev->bos, link) {
		unsigned long i, n_wb = 0, n_wc = 0, n_other = 0;
		struct page *page;

		mutex_lock(&bo->lock);
		xa_for_each(&bo->pages, i, page) {
			unsigned long bits = mvgal_page_cache_bits(page);

			if (bits == wb)
				n_wb++;
			else if (bits == wc)
				n_wc++;
			else
				n_other++;
		}
		mutex_unlock(&bo->lock);
		seq_printf(m, "%llu wb=%lu wc=%lu other=%lu\n", bo->id, n_wb,
			   n_wc, n_other);
	}
	mutex_unlock(&mdev->bos_lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(mvgal_debug_memtype);

#endif

/* What one reader of dmabuf_sg got: a header line, then the bytes. */
struct mvgal_debug_sg {
	char *buf;
	size_t size;
};

#define MVGAL_DEBUG_SG_MAX	SZ_16M
#define MVGAL_DEBUG_SG_HDR	48

/*
 * Copies [@off, @off + @len) of what @sgt maps for @dev into @dst, read
 * the way the device would: through the DMA addresses (an importer must
 * not touch the pages behind a table, and device memory has none).
 * Without an IOMMU a DMA address is a physical one. *@bytes: the table's
 * length. Return: 0, -EINVAL if the table ends before the range, -ENOMEM.
 */
static int mvgal_debug_sg_copy(struct device *dev, struct sg_table *sgt,
			       u64 off, u64 len, u8 *dst, u64 *bytes)
{
	struct scatterlist *sg;
	u64 pos = 0, total = 0, a, b;
	unsigned int i;
	void *va;

	for_each_sgtable_dma_sg(sgt, sg, i)
		total += sg_dma_len(sg);
	*bytes = total;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		a = max(pos, off);
		b = min(pos + sg_dma_len(sg), off + len);
		if (a < b) {
			va = memremap(dma_to_phys(dev, sg_dma_address(sg) + (a - pos)),
				      b - a, MEMREMAP_WB);
			if (!va)
				return -ENOMEM;
			memcpy(dst + (a - off), va, b - a);
			memunmap(va);
		}
		pos += sg_dma_len(sg);
	}
	return pos >= off + len ? 0 : -EINVAL;
}

/* Attaches mvgal's device to @dmabuf, maps it and reads the range. */
static int mvgal_debug_sg_read(struct mvgal_device *mdev,
			       struct dma_buf *dmabuf, u64 off, u64 len,
			       struct mvgal_debug_sg *r)
{
	struct dma_buf_attachment *att;
	struct sg_table *sgt;
	u64 bytes;
	int ret;

	r->buf = kvzalloc(MVGAL_DEBUG_SG_HDR + len, GFP_KERNEL_ACCOUNT);
	if (!r->buf)
		return -ENOMEM;
	att = dma_buf_attach(dmabuf, mdev->drm.dev);
	if (IS_ERR(att))
		return PTR_ERR(att);
	sgt = dma_buf_map_attachment_unlocked(att, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto out_detach;
	}
	ret = mvgal_debug_sg_copy(mdev->drm.dev, sgt, off, len,
				  r->buf + MVGAL_DEBUG_SG_HDR, &bytes);
	if (!ret) {
		int n = scnprintf(r->buf, MVGAL_DEBUG_SG_HDR, "%llu %u\n",
				  bytes, sgt->orig_nents);

		memmove(r->buf + n, r->buf + MVGAL_DEBUG_SG_HDR, len);
		r->size = n + len;
	}
	dma_buf_unmap_attachment_unlocked(att, sgt, DMA_BIDIRECTIONAL);
out_detach:
	dma_buf_detach(dmabuf, att);
	return ret;
}

static ssize_t mvgal_debug_sg_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct mvgal_device *mdev = file_inode(file)->i_private;
	struct mvgal_debug_sg *r = file->private_data;
	struct dma_buf *dmabuf;
	char cmd[64];
	u64 off, len;
	int fd, ret;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	if (sscanf(cmd, "%d %llu %llu", &fd, &off, &len) != 3 || !len ||
	    len > MVGAL_DEBUG_SG_MAX || off > U64_MAX - len)
		return -EINVAL;
	/* DMA addresses are physical ones only without an IOMMU. */
	if (device_iommu_mapped(mdev->drm.dev))
		return -EOPNOTSUPP;
	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	kvfree(r->buf);
	*r = (struct mvgal_debug_sg){};
	ret = mvgal_debug_sg_read(mdev, dmabuf, off, len, r);
	dma_buf_put(dmabuf);
	if (ret) {
		kvfree(r->buf);
		*r = (struct mvgal_debug_sg){};
		return ret;
	}
	return count;
}

static ssize_t mvgal_debug_sg_read_out(struct file *file, char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	struct mvgal_debug_sg *r = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, r->buf, r->size);
}

static int mvgal_debug_sg_open(struct inode *inode, struct file *file)
{
	struct mvgal_debug_sg *r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);

	file->private_data = r;
	return r ? 0 : -ENOMEM;
}

static int mvgal_debug_sg_release(struct inode *inode, struct file *file)
{
	struct mvgal_debug_sg *r = file->private_data;

	kvfree(r->buf);
	kfree(r);
	return 0;
}

static const struct file_operations mvgal_debug_sg_fops = {
	.owner = THIS_MODULE,
	.open = mvgal_debug_sg_open,
	.read = mvgal_debug_sg_read_out,
	.write = mvgal_debug_sg_write,
	.release = mvgal_debug_sg_release,
	.llseek = default_llseek,
};

static int mvgal_debug_staged_show(struct seq_file *m, void *unused)
{
	struct mvgal_device *mdev = m->private;
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++) {
		u64 bytes = atomic64_read(&mdev->staged[nid]);

		if (bytes || node_state(nid, N_MEMORY))
			seq_printf(m, "%d %llu\n", nid, bytes);
	}
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(mvgal_debug_staged);

static int mvgal_debug_staging_show(struct seq_file *m, void *unused)
{
	mvgal_stage_show(m->private, m);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(mvgal_debug_staging);

static int mvgal_debug_dma_show(struct seq_file *m, void *unused)
{
	mvgal_dma_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mvgal_debug_dma);

static int mvgal_debug_exec_show(struct seq_file *m, void *unused)
{
	mvgal_exec_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mvgal_debug_exec);

/*
 * The figures of @method on the path @src -> @dst become @cal. Only
 * between locations that exist: figures left in an empty slot would
 * price the next GPU attached there. An executor's count only for the
 * registration a calibration checked: these change its price, not that.
 */
static int mvgal_debug_cal_set(struct mvgal_device *mdev, u32 src, u32 dst,
			       u32 method, const struct mvgal_path_cal *cal)
{
	struct mvgal_link_verdict v;
	int ret = 0;

	if (src >= MVGAL_LOC_COUNT || dst >= MVGAL_LOC_COUNT || src == dst ||
	    method > MVGAL_METHOD_EXEC)
		return -EINVAL;
	/* Not into a calibration under way, which would overwrite them. */
	mutex_lock(&mdev->cal_mutex);
	down_read(&mdev->gpu_lock);
	if (mvgal_pair_verdict(mdev, src, dst, &v)) {
		spin_lock(&mdev->cal_lock);
		mdev->cal[src][dst][method] = *cal;
		spin_unlock(&mdev->cal_lock);
	} else {
		ret = -ENODEV;
	}
	up_read(&mdev->gpu_lock);
	mutex_unlock(&mdev->cal_mutex);
	return ret;
}

static ssize_t mvgal_debug_cal_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *pos)
{
	struct mvgal_device *mdev = file_inode(file)->i_private;
	struct mvgal_path_cal cal;
	u32 src, dst, method;
	char buf[96];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u %u %llu %llu", &src, &dst, &method,
		   &cal.latency_ns, &cal.bw) != 5)
		return -EINVAL;
	ret = mvgal_debug_cal_set(mdev, src, dst, method, &cal);
	return ret ? ret : len;
}

static const struct file_operations mvgal_debug_cal_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = mvgal_debug_cal_write,
	.llseek = default_llseek,
};

/* Reads "ID MS" (MS at most 10000) from a write: 0 or -errno. */
static int mvgal_debug_id_ms(const char __user *ubuf, size_t len, u64 *id,
			     unsigned int *ms)
{
	char buf[48];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%llu %u", id, ms) != 2 || *ms > 10000)
		return -EINVAL;
	return 0;
}

static ssize_t mvgal_debug_hold_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *pos)
{
	struct mvgal_device *mdev = file_inode(file)->i_private;
	struct mvgal_bo *bo;
	unsigned int ms;
	u64 id;
	int ret;

	ret = mvgal_debug_id_ms(ubuf, len, &id, &ms);
	if (ret)
		return ret;
	bo = mvgal_bo_by_id(mdev, id);
	if (!bo)
		return -ENOENT;
	mutex_lock(&bo->lock);
	msleep_interruptible(ms);
	mutex_unlock(&bo->lock);
	drm_gem_object_put(&bo->base);
	return len;
}

static int mvgal_debug_delay_show(struct seq_file *m, void *unused)
{
	unsigned int ms, sleeps;
	u64 id;

	mvgal_hmm_delay_get(&id, &ms, &sleeps);
	seq_printf(m, "%llu %u %u\n", id, ms, sleeps);
	return 0;
}

static int mvgal_debug_delay_open(struct inode *inode, struct file *file)
{
	return single_open(file, mvgal_debug_delay_show, NULL);
}

static ssize_t mvgal_debug_delay_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *pos)
{
	unsigned int ms;
	u64 id;
	int ret;

	ret = mvgal_debug_id_ms(ubuf, len, &id, &ms);
	if (ret)
		return ret;
	mvgal_hmm_delay_set(id, ms);
	return len;
}

static const struct file_operations mvgal_debug_delay_fops = {
	.owner = THIS_MODULE,
	.open = mvgal_debug_delay_open,
	.read = seq_read,
	.write = mvgal_debug_delay_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int mvgal_debug_numa_show(struct seq_file *m, void *unused)
{
	unsigned int ms, batches;

	mvgal_numa_delay_get(&ms, &batches);
	seq_printf(m, "%u %u %u\n", ms, batches,
		   mvgal_evict_move_waits_read());
	return 0;
}

static int mvgal_debug_numa_open(struct inode *inode, struct file *file)
{
	return single_open(file, mvgal_debug_numa_show, NULL);
}

static ssize_t mvgal_debug_numa_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *pos)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 10, &ms);
	if (ret)
		return ret;
	if (ms > 10000)
		return -EINVAL;
	mvgal_numa_delay_set(ms);
	return len;
}

static const struct file_operations mvgal_debug_numa_fops = {
	.owner = THIS_MODULE,
	.open = mvgal_debug_numa_open,
	.read = seq_read,
	.write = mvgal_debug_numa_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static const struct file_operations mvgal_debug_hold_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = mvgal_debug_hold_write,
	.llseek = default_llseek,
};

void mvgal_debugfs_init(struct mvgal_device *mdev)
{
	INIT_LIST_HEAD(&mdev->debug_allocs);
	/* debugfs failures are not errors: the driver works without it. */
	mdev->debugfs = debugfs_create_dir("mvgal", NULL);
	debugfs_create_file("pool_alloc", 0600, mdev->debugfs, mdev,
			    &mvgal_debug_alloc_fops);
	debugfs_create_file("bo_meta", 0400, mdev->debugfs, mdev,
			    &mvgal_debug_meta_fops);
	debugfs_create_file("dmabuf_sg", 0600, mdev->debugfs, mdev,
			    &mvgal_debug_sg_fops);
	debugfs_create_file("staged", 0400, mdev->debugfs, mdev,
			    &mvgal_debug_staged_fops);
	debugfs_create_file("staging", 0400, mdev->debugfs, mdev,
			    &mvgal_debug_staging_fops);
	debugfs_create_file("dma_engine", 0400, mdev->debugfs, mdev,
			    &mvgal_debug_dma_fops);
	debugfs_create_file("executors", 0400, mdev->debugfs, mdev,
			    &mvgal_debug_exec_fops);
	debugfs_create_file("path_cal", 0200, mdev->debugfs, mdev,
			    &mvgal_debug_cal_fops);
	debugfs_create_file("bo_hold", 0200, mdev->debugfs, mdev,
			    &mvgal_debug_hold_fops);
	debugfs_create_file("hmm_publish_delay", 0600, mdev->debugfs, mdev,
			    &mvgal_debug_delay_fops);
	debugfs_create_file("numa_move_delay", 0600, mdev->debugfs, mdev,
			    &mvgal_debug_numa_fops);
#ifdef CONFIG_X86
	debugfs_create_file("bo_memtype", 0400, mdev->debugfs, mdev,
			    &mvgal_debug_memtype_fops);
#endif
}

/* Removes the files and frees what tests left allocated. */
void mvgal_debugfs_fini(struct mvgal_device *mdev)
{
	struct mvgal_debug_alloc *d, *tmp;

	debugfs_remove_recursive(mdev->debugfs);
	down_write(&mdev->gpu_lock);
	list_for_each_entry_safe(d, tmp, &mdev->debug_allocs, link) {
		list_del(&d->link);
		mvgal_pool_free(d->gpu, &d->alloc);
		kfree(d);
	}
	up_write(&mdev->gpu_lock);
}
