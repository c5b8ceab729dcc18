// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal Vulkan benchmark, run in the guest by `make bench` (lavapipe
 * stands in for each GPU there). One round trip host -> GPU A -> GPU B ->
 * host, two ways, measured side by side in this one run:
 *
 *  - mvgal placements: the flow of tools/examples/mvgal-vulkan.c, whose
 *    code this file includes. The CPU writes the input into buf through
 *    a mapping it keeps (what an application streaming its input does;
 *    --pwrite: mvgal_bo_write() instead), a WRITE session of buf on A
 *    runs mvgal-transform.comp, a READ session of buf and a WRITE one of
 *    out on B run mvgal-reduce.comp, SYNC_FD fences order the steps, and
 *    the CPU reads out back with mvgal_bo_read(). Set up once, as an
 *    application would: the Vulkan devices and pipelines, the placement
 *    exports (an export pins its placement; each BEGIN makes the chunks
 *    current in it again) and their imports, the command buffers. Per
 *    trip: the sessions, the semaphores of BEGIN's fences.
 *  - Vulkan staging, as one writes it without mvgal: on each device a
 *    host-visible staging buffer and device buffers (a DEVICE_LOCAL
 *    memory type where there is one); memcpy() into A's staging,
 *    vkCmdCopyBuffer() to the device, the transform, vkCmdCopyBuffer()
 *    back, a fence; memcpy() from A's staging into B's (the host hop
 *    between two devices); on B the copy in, the reduce into a device
 *    out, the copy of out back, a fence; memcpy() of out to the host.
 *
 * Same N, shaders and work groups. Each trip's input differs, and every
 * trip's out is checked (every word) on both sides, outside the timing;
 * buf after the last trip too. One warm-up trip, then --trips R (20)
 * timed ones; each trip times both sides back to back, and the figures
 * are the medians of the trips' times and of their ratios, as in
 * mvgal_bench.c.
 *
 * Usage: mvgal_vkbench [--trips R] [--pwrite]
 * Exit status: 0 every word right, 1 a failure or a wrong word, 2 usage,
 * 77 skipped (fewer than two mvgal GPUs, a module without sessions or
 * dma-bufs, or no Vulkan device that imports dma-bufs).
 */
#define main mvgal_vulkan_example_main
#include "../../tools/examples/mvgal-vulkan.c"
#undef main
#include "bench_time.h"

#include <stdint.h>
#include <time.h>

#define TRIPS	20			/* timed trips, after one warm-up */

/* The Vulkan-only baseline on one device. */
struct staged {
	struct step step;		/* in[]: device buffers made by Vulkan */
	struct import stage;		/* host-visible staging buffer, N words */
	void *map;			/* its mapping */
	VkFence fence;
};

struct bench {
	struct app a;			/* the example's: mvgal, devices, the mvgal steps */
	unsigned int trips;
	bool pwrite;			/* input by mvgal_bo_write(), not the mapping */
	uint32_t *map;			/* buf, mapped for the CPU's input */
	size_t map_len;
	uint32_t *in;			/* this trip's input */
	uint32_t *staged_got;		/* the baseline's out */
	struct staged vk[2];		/* on A, on B */
};

static int bench_fail(const char *what)
{
	fprintf(stderr, "mvgal-vkbench: %s\n", what);
	return -1;
}

/* The median of @n values, sorted here: the middle one, or the mean of the two. */
static double median_u64(uint64_t *t, unsigned int n)
{
	qsort(t, n, sizeof(*t), cmp_u64);
	return n % 2 ? (double)t[n / 2] : ((double)t[n / 2 - 1] + (double)t[n / 2]) / 2;
}

static double median_double(double *r, unsigned int n)
{
	qsort(r, n, sizeof(*r), cmp_double);
	return n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
}

/* ---- the data: a different input every trip ---- */

static void make_input(uint32_t *in, unsigned int trip)
{
	uint32_t i;

	for (i = 0; i < N; i++)
		in[i] = pattern(i) + (trip + 1) * 0x01000193u;	/* not what buf starts with */
}

/* buf after the transform of @in, and out after the reduce. */
static void expect_of(const uint32_t *in, uint32_t *want_buf, uint32_t *want_out)
{
	uint32_t i;

	memset(want_out, 0, M * sizeof(*want_out));
	for (i = 0; i < N; i++) {
		want_buf[i] = in[i] * 3u + i;
		want_out[i / GROUP] += want_buf[i];
	}
}

static int check_words(const char *path, const char *what, unsigned int trip,
		       const uint32_t *got, const uint32_t *want, uint32_t n)
{
	long bad = first_mismatch(got, want, n);

	if (bad < 0)
		return 0;
	fprintf(stderr, "mvgal-vkbench: %s, trip %u: %s[%ld] is 0x%08x, expected 0x%08x\n",
		path, trip, what, bad, got[bad], want[bad]);
	return -1;
}

/* ---- setup ---- */

/*
 * The example's Vulkan setup, telling a missing device or extension
 * (skip) from a failure.
 */
static int bench_vulkan_setup(struct app *a)
{
	int i, ret;

	if (instance_create(&a->inst)) {
		printf("mvgal-vkbench: skipped: no Vulkan 1.1 instance\n");
		return SKIP;
	}
	ret = gpus_choose(a);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		if (gpu_check_external(&a->gpu[i])) {
			printf("mvgal-vkbench: skipped: no Vulkan device for GPU %c that imports dma-bufs\n",
			       a->gpu[i].name);
			return SKIP;
		}
		if (gpu_open(&a->gpu[i]))
			return -1;
	}
	return 0;
}

/*
 * The mvgal side, once: pipelines, the placement exports of buf in A's
 * and B's pools and of out in B's, their imports, the command buffers.
 * The sessions are described once and begun on every trip.
 */
static int mvgal_path_setup(struct bench *b)
{
	struct app *a = &b->a;
	struct step *sa = &a->step[0], *sb = &a->step[1];
	struct gpu *ga = &a->gpu[0], *gb = &a->gpu[1];
	const VkDeviceSize bytes[3] = { N * 4ull, N * 4ull, M * 4ull };
	struct gpu *g[3] = { ga, gb, gb };
	struct import *im[3] = { &sa->in[0], &sb->in[0], &sb->in[1] };
	int fd[3] = { -1, -1, -1 }, i, ret = -1;
	uint64_t size[3];

	sa->gpu = ga;
	sa->nbuf = 1;
	sb->gpu = gb;
	sb->nbuf = 2;
	a->sess[0] = (struct sess) {
		.what = "buf", .handle = a->buf, .g = ga,
		.flags = MVGAL_ACCESS_WRITE, .fence = -1,
	};
	a->sess[1] = (struct sess) {
		.what = "buf", .handle = a->buf, .g = gb,
		.flags = MVGAL_ACCESS_READ, .fence = -1,
	};
	a->sess[2] = (struct sess) {
		.what = "out", .handle = a->out, .g = gb,
		.flags = MVGAL_ACCESS_WRITE, .fence = -1,
	};
	if (step_pipeline(sa, mvgal_transform_spv, sizeof(mvgal_transform_spv)) ||
	    step_pipeline(sb, mvgal_reduce_spv, sizeof(mvgal_reduce_spv)))
		goto out;
	for (i = 0; i < 3; i++)
		if (place_export(a, &a->sess[i], &fd[i], &size[i]) ||
		    import_dmabuf(g[i], fd[i], size[i], bytes[i], im[i]))
			goto out;
	if (step_record(sa, N, M) || step_record(sb, N, M))
		goto out;
	ret = 0;
out:
	for (i = 0; i < 3; i++)
		close_fd(&fd[i]);
	return ret;
}

/* The first memory type in @bits with all of @need, one with @prefer too if any; or -1. */
static int memory_type(VkPhysicalDevice pd, uint32_t bits, VkMemoryPropertyFlags need,
		       VkMemoryPropertyFlags prefer)
{
	VkPhysicalDeviceMemoryProperties mp;
	int fallback = -1;
	uint32_t i;

	vkGetPhysicalDeviceMemoryProperties(pd, &mp);
	for (i = 0; i < mp.memoryTypeCount; i++) {
		VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;

		if (!(bits & (1u << i)) || (f & need) != need)
			continue;
		if ((f & prefer) == prefer)
			return (int)i;
		if (fallback < 0)
			fallback = (int)i;
	}
	return fallback;
}

/* A buffer of Vulkan's own memory; mapped into *@map if @map. */
static int vk_buffer(struct gpu *g, VkDeviceSize size, VkBufferUsageFlags usage,
		     VkMemoryPropertyFlags need, VkMemoryPropertyFlags prefer,
		     struct import *b, void **map)
{
	const VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	};
	VkMemoryRequirements req;
	int type;

	if (VK_CHECK(vkCreateBuffer(g->dev, &bci, NULL, &b->buf)))
		return -1;
	vkGetBufferMemoryRequirements(g->dev, b->buf, &req);
	type = memory_type(g->phys, req.memoryTypeBits, need, prefer);
	if (type < 0)
		return bench_fail("no memory type of the device fits a buffer");
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = (uint32_t)type;
	if (VK_CHECK(vkAllocateMemory(g->dev, &mai, NULL, &b->mem)) ||
	    VK_CHECK(vkBindBufferMemory(g->dev, b->buf, b->mem, 0)))
		return -1;
	return map ? VK_CHECK(vkMapMemory(g->dev, b->mem, 0, VK_WHOLE_SIZE, 0, map)) : 0;
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src,
		    VkPipelineStageFlags dst_stage, VkAccessFlags dst)
{
	const VkMemoryBarrier mb = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = src,
		.dstAccessMask = dst,
	};

	vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

/*
 * Records, once: staging -> in[0], the shader over in[], the last of in[]
 * (buf on A, out on B) -> staging.
 */
static int staged_record(struct staged *v)
{
	const VkPipelineStageFlags xfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
	const VkPipelineStageFlags cs = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
	struct step *s = &v->step;
	struct gpu *g = s->gpu;
	const VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = g->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	const VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	};
	const VkBufferCopy in = { .size = N * 4ull };
	const VkBufferCopy back = { .size = (s->nbuf == 2 ? M : N) * 4ull };
	const uint32_t n = N;
	VkDescriptorBufferInfo db[2];
	const VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = s->set,
		.descriptorCount = s->nbuf,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.pBufferInfo = db,
	};
	unsigned int i;

	for (i = 0; i < s->nbuf; i++)
		db[i] = (VkDescriptorBufferInfo) { s->in[i].buf, 0, VK_WHOLE_SIZE };
	vkUpdateDescriptorSets(g->dev, 1, &w, 0, NULL);
	if (VK_CHECK(vkAllocateCommandBuffers(g->dev, &ai, &s->cmd)) ||
	    VK_CHECK(vkBeginCommandBuffer(s->cmd, &bi)))
		return -1;
	vkCmdCopyBuffer(s->cmd, v->stage.buf, s->in[0].buf, 1, &in);
	barrier(s->cmd, xfer, VK_ACCESS_TRANSFER_WRITE_BIT,
		cs, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
	vkCmdBindPipeline(s->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
	vkCmdBindDescriptorSets(s->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 1,
				&s->set, 0, NULL);
	vkCmdPushConstants(s->cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(n), &n);
	vkCmdDispatch(s->cmd, M, 1, 1);
	barrier(s->cmd, cs, VK_ACCESS_SHADER_WRITE_BIT, xfer, VK_ACCESS_TRANSFER_READ_BIT);
	vkCmdCopyBuffer(s->cmd, s->in[s->nbuf - 1].buf, v->stage.buf, 1, &back);
	barrier(s->cmd, xfer, VK_ACCESS_TRANSFER_WRITE_BIT,
		VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
	return VK_CHECK(vkEndCommandBuffer(s->cmd));
}

/* The baseline on GPU @i's device: the transform on A, the reduce on B. */
static int staged_setup(struct bench *b, int i)
{
	const VkBufferUsageFlags xfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
					VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	const VkBufferUsageFlags dev = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | xfer;
	const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
					   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	const VkFenceCreateInfo fci = {
		.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	};
	struct staged *v = &b->vk[i];
	struct step *s = &v->step;

	s->gpu = &b->a.gpu[i];
	s->nbuf = i ? 2 : 1;
	if (i ? step_pipeline(s, mvgal_reduce_spv, sizeof(mvgal_reduce_spv)) :
		step_pipeline(s, mvgal_transform_spv, sizeof(mvgal_transform_spv)))
		return -1;
	if (vk_buffer(s->gpu, N * 4ull, dev, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
		      &s->in[0], NULL) ||
	    (i && vk_buffer(s->gpu, M * 4ull, dev, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
			    &s->in[1], NULL)) ||
	    vk_buffer(s->gpu, N * 4ull, xfer, host, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
		      &v->stage, &v->map) ||
	    VK_CHECK(vkCreateFence(s->gpu->dev, &fci, NULL, &v->fence)))
		return -1;
	return staged_record(v);
}

static void staged_release(struct staged *v)
{
	VkDevice dev = v->step.gpu ? v->step.gpu->dev : VK_NULL_HANDLE;

	if (!dev)
		return;
	vkDestroyFence(dev, v->fence, NULL);
	vkDestroyBuffer(dev, v->stage.buf, NULL);
	vkFreeMemory(dev, v->stage.mem, NULL);	/* unmaps it */
	step_release(&v->step);
}

/* ---- one trip each way ---- */

/* BEGIN of @s, which must use the GPU's own pool: the placement imported once. */
static int begin_own_pool(struct app *a, struct sess *s)
{
	if (sess_begin(a, s))
		return -1;
	if (s->pool_gpu == s->g->slot)
		return 0;
	fprintf(stderr, "mvgal-vkbench: BEGIN %s of %s on GPU %c used pool %d, not its own\n",
		access_name(s->flags), s->what, s->g->name, (int)s->pool_gpu);
	return -1;
}

/*
 * After a trip (its result read, so its work is done): the semaphores
 * of this trip's fences go.
 */
static int step_retire(struct step *s)
{
	struct gpu *g = s->gpu;
	unsigned int i;

	if (VK_CHECK(vkQueueWaitIdle(g->queue)))
		return -1;
	for (i = 0; i < s->nwait; i++) {
		vkDestroySemaphore(g->dev, s->wait[i], NULL);
		s->wait[i] = VK_NULL_HANDLE;
	}
	s->nwait = 0;
	vkDestroySemaphore(g->dev, s->done, NULL);
	s->done = VK_NULL_HANDLE;
	return 0;
}

/* host -> GPU A -> GPU B -> host through mvgal placements; out lands in a->got. */
static int mvgal_trip(struct bench *b)
{
	struct app *a = &b->a;
	struct step *sa = &a->step[0], *sb = &a->step[1];
	struct sess *wa = &a->sess[0], *rb = &a->sess[1], *wb = &a->sess[2];
	int fence = -1, ret = -1, err;

	/* The CPU's input, while no session is live (else it is a hand-off). */
	if (b->pwrite) {
		err = mvgal_bo_write(a->m, a->buf, 0, b->in, N * 4ull);
		if (err)
			return mv_fail("mvgal_bo_write of the input", err);
	} else {
		memcpy(b->map, b->in, N * 4ull);
	}
	/* GPU A: the transform in a WRITE session of buf. */
	if (begin_own_pool(a, wa) ||
	    step_wait(sa, &wa->fence) ||
	    step_submit(sa, &fence) ||
	    sess_end(a, wa, fence))
		goto out;
	close_fd(&fence);
	/* GPU B: the reduce in a READ session of buf and a WRITE one of out. */
	if (begin_own_pool(a, rb) ||
	    begin_own_pool(a, wb) ||
	    step_wait(sb, &rb->fence) ||
	    step_wait(sb, &wb->fence) ||
	    step_submit(sb, &fence) ||
	    sess_end(a, rb, fence) ||
	    sess_end(a, wb, fence))
		goto out;
	/* The CPU reads out: mvgal brings it home after B's fence. */
	err = mvgal_bo_read(a->m, a->out, 0, a->got, M * 4ull);
	if (err) {
		mv_fail("mvgal_bo_read of out", err);
		goto out;
	}
	if (step_retire(sa) || step_retire(sb))
		goto out;
	ret = 0;
out:
	close_fd(&fence);
	return ret;
}

/* The work on one device, and the wait for it. */
static int staged_run(struct staged *v)
{
	struct gpu *g = v->step.gpu;
	const VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &v->step.cmd,
	};

	if (VK_CHECK(vkQueueSubmit(g->queue, 1, &si, v->fence)) ||
	    VK_CHECK(vkWaitForFences(g->dev, 1, &v->fence, VK_TRUE, UINT64_MAX)))
		return -1;
	return VK_CHECK(vkResetFences(g->dev, 1, &v->fence));
}

/* host -> GPU A -> host -> GPU B -> host by staging buffers; out lands in staged_got. */
static int staged_trip(struct bench *b)
{
	struct staged *va = &b->vk[0], *vb = &b->vk[1];

	memcpy(va->map, b->in, N * 4ull);
	if (staged_run(va))
		return -1;
	memcpy(vb->map, va->map, N * 4ull);
	if (staged_run(vb))
		return -1;
	memcpy(b->staged_got, vb->map, M * 4ull);
	return 0;
}

/* ---- the run ---- */

static void show_setup(const struct bench *b)
{
	const struct app *a = &b->a;
	VkPhysicalDeviceProperties p[2];
	int i;

	for (i = 0; i < 2; i++)
		vkGetPhysicalDeviceProperties(a->gpu[i].phys, &p[i]);
	printf("# mvgal-vkbench: GPU A = mvgal GPU %u (%s at %s), Vulkan \"%s\"%s; GPU B = mvgal GPU %u (%s at %s), Vulkan \"%s\"%s\n",
	       a->gpu[0].slot, a->gpu[0].info.driver, a->gpu[0].info.slot, p[0].deviceName,
	       a->gpu[0].stand_in ? " standing in" : "",
	       a->gpu[1].slot, a->gpu[1].info.driver, a->gpu[1].info.slot, p[1].deviceName,
	       a->gpu[1].stand_in ? " standing in" : "");
}

/* The figure's name: the two ways of giving the input are two figures. */
static const char *figure_name(const struct bench *b)
{
	return b->pwrite ? "vulkan_round_trip_pwrite_vs_staging" :
			   "vulkan_round_trip_mapped_vs_staging";
}

static int bench_run(struct bench *b, uint64_t *tm, uint64_t *tv, double *ratio)
{
	struct app *a = &b->a;
	long page = sysconf(_SC_PAGESIZE);
	unsigned int t, r = b->trips;
	uint64_t t0, t1, t2, t3;
	double figure;
	int ret;

	ret = mvgal_setup(a);
	if (ret)
		return ret;
	a->want_buf = malloc(N * sizeof(uint32_t));
	a->want_out = malloc(M * sizeof(uint32_t));
	a->got = malloc(N * sizeof(uint32_t));
	b->in = malloc(N * sizeof(uint32_t));
	b->staged_got = malloc(M * sizeof(uint32_t));
	if (!a->want_buf || !a->want_out || !a->got || !b->in || !b->staged_got)
		return mv_fail("malloc", -ENOMEM);
	ret = bench_vulkan_setup(a);
	if (ret)
		return ret;
	if (buffers_create(a))
		return -1;
	ret = mvgal_bo_map(a->m, a->buf, (void **)&b->map);
	if (ret)
		return mv_fail("mapping buf", ret);
	b->map_len = (N * 4ul + page - 1) / page * page;
	if (mvgal_path_setup(b) || staged_setup(b, 0) || staged_setup(b, 1))
		return -1;
	show_setup(b);

	/* Trip 0 warms both up; each trip times both, back to back. */
	for (t = 0; t <= r; t++) {
		make_input(b->in, t);
		expect_of(b->in, a->want_buf, a->want_out);
		t0 = now_ns();
		if (mvgal_trip(b))
			return -1;
		t1 = now_ns();
		if (check_words("mvgal placements", "out", t, a->got, a->want_out, M))
			return -1;
		t2 = now_ns();
		if (staged_trip(b))
			return -1;
		t3 = now_ns();
		if (check_words("vulkan staging", "out", t, b->staged_got, a->want_out, M))
			return -1;
		if (t) {
			tm[t - 1] = t1 - t0;
			tv[t - 1] = t3 - t2;
			ratio[t - 1] = (double)tm[t - 1] / (double)tv[t - 1];
		}
	}
	/* buf after the last trip, every word: mvgal's at home, A's staging. */
	ret = mvgal_bo_read(a->m, a->buf, 0, a->got, N * 4ull);
	if (ret)
		return mv_fail("mvgal_bo_read of buf", ret);
	if (check_words("mvgal placements", "buf", r, a->got, a->want_buf, N) ||
	    check_words("vulkan staging", "buf", r, b->vk[0].map, a->want_buf, N))
		return -1;

	printf("# vulkan round trip (%u words, host -> GPU A -> GPU B -> host), %u trips\n", N, r);
	printf("bench: mvgal placements: %.0f us/trip\n", median_u64(tm, r) / 1000);
	printf("bench: vulkan staging (vkCmdCopyBuffer): %.0f us/trip\n", median_u64(tv, r) / 1000);
	figure = median_double(ratio, r);
	printf("bench: ratio mvgal/vulkan-staging: %.2f\n", figure);
	printf("# medians after 1 warm-up; mvgal: input %s, BEGINs copied %llu bytes into A's pool and %llu into B's on the last trip, %s; every word of out checked on every trip, of buf after the last\n",
	       b->pwrite ? "by mvgal_bo_write()" : "through buf's mapping",
	       (unsigned long long)a->sess[0].copied,
	       (unsigned long long)(a->sess[1].copied + a->sess[2].copied),
	       a->gpu[0].cpu_waited || a->gpu[1].cpu_waited ?
	       "the CPU waiting for fences (no SYNC_FD)" : "ordered by SYNC_FD fences only");
	bench_figure(figure_name(b), figure, NULL, 0);
	return 0;
}

static void bench_teardown(struct bench *b)
{
	int i;

	for (i = 0; i < 2; i++)
		if (b->a.gpu[i].dev)
			vkDeviceWaitIdle(b->a.gpu[i].dev);
	for (i = 0; i < 2; i++)
		staged_release(&b->vk[i]);
	if (b->map)
		munmap(b->map, b->map_len);
	free(b->in);
	free(b->staged_got);
	teardown(&b->a);
}

static int usage(void)
{
	fprintf(stderr, "usage: mvgal_vkbench [--trips R] [--pwrite]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct bench b = { .trips = TRIPS };
	uint64_t *tm, *tv;
	double *ratio;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--trips") && i + 1 < argc) {
			char *end;
			long r = strtol(argv[++i], &end, 10);

			if (*end || r < 1 || r > 100000)
				return usage();
			b.trips = (unsigned int)r;
		} else if (!strcmp(argv[i], "--pwrite")) {
			b.pwrite = true;
		} else {
			return usage();
		}
	}
	verbose = false;	/* the example's steps run silently */
	for (i = 0; i < 3; i++)
		b.a.sess[i].fence = -1;
	tm = calloc(b.trips, sizeof(*tm));
	tv = calloc(b.trips, sizeof(*tv));
	ratio = calloc(b.trips, sizeof(*ratio));
	ret = tm && tv && ratio ? bench_run(&b, tm, tv, ratio) : mv_fail("malloc", -ENOMEM);
	/* Skipped or failed: the figure is still reported, as not measured. */
	if (ret)
		bench_figure(figure_name(&b), NAN, NULL, 0);
	bench_teardown(&b);
	free(tm);
	free(tv);
	free(ratio);
	if (ret == SKIP)
		return SKIP;
	return ret ? 1 : 0;
}
