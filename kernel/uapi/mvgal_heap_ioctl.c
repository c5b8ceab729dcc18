// SPDX-License-Identifier: GPL-2.0
/*
 * The unified heap: system RAM, as the page allocator counts it, and each
 * GPU pool, as its range allocator counts it.
 */

#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmstat.h>

#include <drm/mvgal_drm.h>

#include "dev/mvgal_device.h"
#include "dev/mvgal_gpu.h"
#include "dev/mvgal_pool.h"
#include "uapi/mvgal_heap_ioctl.h"
#include "uapi/mvgal_uapi_array.h"

static_assert(sizeof(struct drm_mvgal_heap_region) >=
	      MVGAL_HEAP_REGION_SIZE_V1);

static void mvgal_heap_node(struct drm_mvgal_heap_region *r, int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long total = 0, free = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (!populated_zone(zone))
			continue;
		total += zone_managed_pages(zone);
		free += zone_page_state(zone, NR_FREE_PAGES);
	}
	r->kind = MVGAL_REGION_NODE;
	r->gpu = MVGAL_GPU_ANY;
	r->numa_node = nid;
	r->total = (u64)total << PAGE_SHIFT;
	r->free = (u64)free << PAGE_SHIFT;
	r->used = r->total - r->free;
	r->memory = MVGAL_POOL_MEMORY_SYSTEM;
}

static void mvgal_heap_system(struct drm_mvgal_heap_region *r,
			      struct mvgal_device *mdev)
{
	struct sysinfo si;

	si_meminfo(&si);
	r->kind = MVGAL_REGION_SYSTEM;
	r->gpu = MVGAL_GPU_ANY;
	r->numa_node = MVGAL_NUMA_NONE;
	r->total = (u64)si.totalram * si.mem_unit;
	r->free = (u64)si.freeram * si.mem_unit;
	r->used = r->total - r->free;
	r->held = (u64)atomic64_read(&mdev->host_pages) << PAGE_SHIFT;
	r->memory = MVGAL_POOL_MEMORY_SYSTEM;
}

static void mvgal_heap_pool(struct drm_mvgal_heap_region *r,
			    struct mvgal_gpu *gpu)
{
	u64 nr, moves;

	r->kind = MVGAL_REGION_POOL;
	r->gpu = gpu->index;
	r->numa_node = gpu->numa_node < 0 ? MVGAL_NUMA_NONE : gpu->numa_node;
	r->total = gpu->pool.size;
	mvgal_pool_usage(&gpu->pool, &r->used, &r->largest_free, &nr);
	r->free = r->total - r->used;
	r->held = r->used;
	/* As GPU_INFO says it (pool_memory, pool_flags). */
	mvgal_pool_where(&gpu->pool, &r->memory, &r->pool_flags, &moves);
}

/*
 * Up to *@n online nodes into a new array (NULL for none); *@n becomes
 * how many were written: a node that went offline meanwhile leaves no
 * blank entry. Return: 0 or -ENOMEM.
 */
static int mvgal_heap_nodes_snapshot(struct drm_mvgal_heap_region **out,
				     u32 *n)
{
	struct drm_mvgal_heap_region *nodes;
	u32 i = 0;
	int nid;

	*out = NULL;
	if (!*n)
		return 0;
	nodes = kcalloc(*n, sizeof(*nodes), GFP_KERNEL_ACCOUNT);
	if (!nodes)
		return -ENOMEM;
	for_each_online_node(nid) {
		if (i == *n)
			break;
		mvgal_heap_node(&nodes[i++], nid);
	}
	*n = i;
	*out = nodes;
	return 0;
}

/*
 * The system region and each pool's, at most @want, into a new array
 * (NULL for none) under gpu_lock; *@n is how many were asked for
 * (capped at @want), *@nr how many there are. Return: 0 or -ENOMEM.
 */
static int mvgal_heap_regions_snapshot(struct mvgal_device *mdev, u32 want,
				       struct drm_mvgal_heap_region **out,
				       u32 *n, u32 *nr)
{
	struct drm_mvgal_heap_region *regions;
	u32 i, j;

	*out = NULL;
	down_read(&mdev->gpu_lock);
	*nr = 1 + mdev->gpu_count;
	*n = min(want, *nr);
	if (!*n)
		goto out;
	regions = kcalloc(*n, sizeof(*regions), GFP_KERNEL_ACCOUNT);
	if (!regions) {
		up_read(&mdev->gpu_lock);
		return -ENOMEM;
	}
	mvgal_heap_system(&regions[0], mdev);
	for (i = 0, j = 1; i < MVGAL_MAX_GPUS && j < *n; i++)
		if (mdev->gpus[i])
			mvgal_heap_pool(&regions[j++], mdev->gpus[i]);
	*out = regions;
out:
	up_read(&mdev->gpu_lock);
	return 0;
}

/*
 * Both arrays out, or neither: both destinations are faulted in first
 * (without writing to them), so a bad second pointer cannot fail the
 * call after the first array was written.
 */
static int mvgal_heap_copy_out(const struct mvgal_uarray *ur,
			       const struct drm_mvgal_heap_region *regions,
			       u32 nr_regions, const struct mvgal_uarray *un,
			       const struct drm_mvgal_heap_region *nodes,
			       u32 nr_nodes)
{
	if (!mvgal_uarray_writable(ur, nr_regions) ||
	    !mvgal_uarray_writable(un, nr_nodes))
		return -EFAULT;
	if (mvgal_uarray_copy_out(ur, regions, nr_regions) ||
	    mvgal_uarray_copy_out(un, nodes, nr_nodes))
		return -EFAULT;
	return 0;
}

int mvgal_ioctl_get_heap(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct drm_mvgal_get_heap *args = data;
	struct drm_mvgal_heap_region *regions = NULL, *nodes = NULL;
	u32 nr_regions, nr_nodes, nr, nn;
	struct mvgal_uarray ur, un;
	int ret;

	if (args->flags)
		return -EINVAL;
	ret = mvgal_uarray_init(&ur, args->regions, args->num_regions,
				args->stride, MVGAL_HEAP_REGION_SIZE_V1,
				sizeof(*regions));
	if (!ret)
		ret = mvgal_uarray_init(&un, args->nodes, args->num_nodes,
					args->stride, MVGAL_HEAP_REGION_SIZE_V1,
					sizeof(*nodes));
	if (ret)
		return ret;
	/* Output is built in kernel memory first: no user access happens
	 * under gpu_lock, and nothing is written unless all of it can be.
	 */
	nn = num_online_nodes();
	nr_nodes = min(args->num_nodes, nn);
	ret = mvgal_heap_nodes_snapshot(&nodes, &nr_nodes);
	if (ret)
		return ret;
	ret = mvgal_heap_regions_snapshot(to_mvgal(dev), args->num_regions,
					  &regions, &nr_regions, &nr);
	if (!ret)
		ret = mvgal_heap_copy_out(&ur, regions, nr_regions, &un, nodes,
					  nr_nodes);
	if (!ret) {
		args->num_regions = nr;
		args->num_nodes = nn;
	}
	kfree(regions);
	kfree(nodes);
	return ret;
}
