// SPDX-License-Identifier: MIT
/*
 * mvgal-vkexec: a copy executor (see "copy executors" in <drm/mvgal_drm.h>)
 * that makes mvgal's copies between one GPU's pool and host pages on the
 * GPU's own copy engine, through its Vulkan driver: a queue with
 * VK_QUEUE_TRANSFER_BIT (a transfer-only family where the driver has one,
 * which is its copy engine), the pool imported once as a dma-buf, each
 * copy's host pages imported as the dma-buf mvgal hands over, and the
 * completion exported as a SYNC_FD.
 *
 *   mvgal-vkexec [-g GPU] [-s] [-c] [-r FD] [-v]
 *     -g GPU  the mvgal GPU to serve (default 0)
 *     -s      where no Vulkan device is the GPU (by its DRM node or PCI
 *             address), let a CPU device stand in for it: the test bed,
 *             whose GPUs have no Vulkan driver, runs lavapipe
 *     -c      calibrate once serving, so that the path selector prices
 *             the executor (mvgal uses an unmeasured one only if forced)
 *     -r FD   write "ready\n" to FD once registered and serving
 *     -v      say what it does on stderr
 *
 * It needs CAP_SYS_ADMIN (EXEC_REGISTER) and serves until SIGINT or
 * SIGTERM, or until mvgal ends its registration (a copy that came out
 * wrong or too late, the GPU detached). Copies it has taken and not
 * reported when it dies are made by the CPU.
 *
 * Each batch of copies it takes at once (the first waited for, the rest
 * there already) is one command buffer and one submission.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#include <mvgal/mvgal.h>

#define BATCH	16

struct copy {
	struct drm_mvgal_exec_take t;
	VkBuffer buf;
	VkDeviceMemory mem;
};

struct vkexec {
	struct mvgal *m;
	uint32_t gpu;
	struct drm_mvgal_gpu_info info;
	bool stand_in, verbose;
	VkInstance inst;
	VkPhysicalDevice phys;
	VkDevice dev;
	uint32_t family;
	VkQueue queue;
	VkCommandPool cmd_pool;
	VkCommandBuffer cmd;
	VkFence fence;
	bool sync_fd;			/* SYNC_FD export of semaphores */
	uint32_t foreign;		/* the queue family mvgal's pages come from */
	PFN_vkGetMemoryFdPropertiesKHR get_memory_fd_properties;
	PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
	VkBuffer pool;
	VkDeviceMemory pool_mem;
	uint64_t copies, batches;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	stop = 1;
}

static void say(const struct vkexec *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "mvgal-vkexec: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "mvgal-vkexec: %s: %s\n", what, strerror(-err));
	return -1;
}

static int vk_fail(const char *what, VkResult r)
{
	fprintf(stderr, "mvgal-vkexec: %s: VkResult %d\n", what, r);
	return -1;
}

#define VK_OK(x, what) ({ VkResult r_ = (x); r_ == VK_SUCCESS ? 0 : vk_fail(what, r_); })

static bool has_ext(VkPhysicalDevice pd, const char *name)
{
	VkExtensionProperties *e;
	uint32_t n = 0, i;
	bool found = false;

	if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS)
		return false;
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return false;
	if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) == VK_SUCCESS)
		for (i = 0; i < n && !found; i++)
			found = !strcmp(e[i].extensionName, name);
	free(e);
	return found;
}

/* Is @pd the GPU mvgal reports in @info: the same DRM node or PCI function? */
static bool is_the_gpu(VkPhysicalDevice pd, const struct drm_mvgal_gpu_info *info)
{
	VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT,
	};
	VkPhysicalDeviceDrmPropertiesEXT drm = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT,
	};
	VkPhysicalDeviceProperties2 p = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
	};
	unsigned int dom, bus, dev, fn;
	char slot[32];

	if (has_ext(pd, VK_EXT_PHYSICAL_DEVICE_DRM_EXTENSION_NAME)) {
		p.pNext = &drm;
		vkGetPhysicalDeviceProperties2(pd, &p);
		if ((drm.hasRender && info->render_major &&
		     drm.renderMajor == info->render_major &&
		     drm.renderMinor == info->render_minor) ||
		    (drm.hasPrimary && info->primary_major &&
		     drm.primaryMajor == info->primary_major &&
		     drm.primaryMinor == info->primary_minor))
			return true;
	}
	if (info->bus != MVGAL_BUS_PCI ||
	    !has_ext(pd, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME))
		return false;
	p.pNext = &pci;
	vkGetPhysicalDeviceProperties2(pd, &p);
	dom = pci.pciDomain;
	bus = pci.pciBus;
	dev = pci.pciDevice;
	fn = pci.pciFunction;
	snprintf(slot, sizeof(slot), "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	return !strcmp(slot, info->slot);
}

/* The Vulkan device of the GPU, or with -s a CPU device standing in. */
static int pick_device(struct vkexec *x)
{
	const VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "mvgal-vkexec",
		.apiVersion = VK_API_VERSION_1_1,
	};
	const VkInstanceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	VkPhysicalDevice pd[16], cpu = VK_NULL_HANDLE;
	VkPhysicalDeviceProperties p;
	uint32_t n = 16, i;
	VkResult r;

	if (VK_OK(vkCreateInstance(&ci, NULL, &x->inst), "vkCreateInstance"))
		return -1;
	r = vkEnumeratePhysicalDevices(x->inst, &n, pd);
	if (r != VK_INCOMPLETE && VK_OK(r, "vkEnumeratePhysicalDevices"))
		return -1;
	for (i = 0; i < n; i++) {
		vkGetPhysicalDeviceProperties(pd[i], &p);
		if (p.apiVersion < VK_API_VERSION_1_1)
			continue;
		if (is_the_gpu(pd[i], &x->info)) {
			x->phys = pd[i];
			say(x, "GPU %u (%s at %s) is Vulkan device \"%s\"\n", x->gpu,
			    x->info.driver, x->info.slot, p.deviceName);
			return 0;
		}
		if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !cpu)
			cpu = pd[i];
	}
	if (!x->stand_in || !cpu) {
		fprintf(stderr, "mvgal-vkexec: no Vulkan device is mvgal GPU %u (%s at %s)%s\n",
			x->gpu, x->info.driver, x->info.slot,
			x->stand_in ? ", and no CPU device can stand in" : "");
		return -1;
	}
	x->phys = cpu;
	vkGetPhysicalDeviceProperties(cpu, &p);
	say(x, "GPU %u (%s at %s): the CPU device \"%s\" stands in for it\n",
	    x->gpu, x->info.driver, x->info.slot, p.deviceName);
	return 0;
}

/*
 * A transfer-only queue family (a copy engine) if the device has one,
 * else the first that can transfer (graphics and compute queues can).
 */
static int pick_family(struct vkexec *x)
{
	const VkQueueFlags any = VK_QUEUE_TRANSFER_BIT | VK_QUEUE_GRAPHICS_BIT |
				 VK_QUEUE_COMPUTE_BIT;
	VkQueueFamilyProperties q[16];
	uint32_t n = 16, i, best = UINT32_MAX;

	vkGetPhysicalDeviceQueueFamilyProperties(x->phys, &n, q);
	for (i = 0; i < n; i++) {
		if (!(q[i].queueFlags & any))
			continue;
		if (!(q[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))) {
			best = i;
			break;
		}
		if (best == UINT32_MAX)
			best = i;
	}
	if (best == UINT32_MAX) {
		fprintf(stderr, "mvgal-vkexec: the device has no queue that copies\n");
		return -1;
	}
	x->family = best;
	say(x, "queue family %u (%s)\n", best,
	    q[best].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT) ?
	    "graphics or compute: no transfer-only family" : "transfer only");
	return 0;
}

static bool sync_fd_exportable(VkPhysicalDevice pd)
{
	const VkPhysicalDeviceExternalSemaphoreInfo si = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	VkExternalSemaphoreProperties sp = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES,
	};

	if (!has_ext(pd, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME))
		return false;
	vkGetPhysicalDeviceExternalSemaphoreProperties(pd, &si, &sp);
	return sp.externalSemaphoreFeatures &
	       VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT;
}

#define DEVICE_PROC(x, field, name) \
	((x)->field = (PFN_##name)vkGetDeviceProcAddr((x)->dev, #name))

static int open_device(struct vkexec *x)
{
	const char *ext[4] = {
		VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
		VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME,
	};
	const float prio = 1.0f;
	VkDeviceQueueCreateInfo q = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	VkDeviceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &q,
		.enabledExtensionCount = 2,
		.ppEnabledExtensionNames = ext,
	};
	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	};
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	const VkFenceCreateInfo fci = {
		.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!has_ext(x->phys, ext[i])) {
			fprintf(stderr, "mvgal-vkexec: the device lacks %s\n", ext[i]);
			return -1;
		}
	}
	x->sync_fd = sync_fd_exportable(x->phys);
	if (x->sync_fd)
		ext[ci.enabledExtensionCount++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
	/* mvgal's pages are written and read outside Vulkan. */
	x->foreign = VK_QUEUE_FAMILY_EXTERNAL;
	if (has_ext(x->phys, VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME)) {
		ext[ci.enabledExtensionCount++] = VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME;
		x->foreign = VK_QUEUE_FAMILY_FOREIGN_EXT;
	}
	q.queueFamilyIndex = x->family;
	if (VK_OK(vkCreateDevice(x->phys, &ci, NULL, &x->dev), "vkCreateDevice"))
		return -1;
	vkGetDeviceQueue(x->dev, x->family, 0, &x->queue);
	pci.queueFamilyIndex = x->family;
	if (VK_OK(vkCreateCommandPool(x->dev, &pci, NULL, &x->cmd_pool),
		  "vkCreateCommandPool"))
		return -1;
	ai.commandPool = x->cmd_pool;
	if (VK_OK(vkAllocateCommandBuffers(x->dev, &ai, &x->cmd),
		  "vkAllocateCommandBuffers") ||
	    VK_OK(vkCreateFence(x->dev, &fci, NULL, &x->fence), "vkCreateFence"))
		return -1;
	DEVICE_PROC(x, get_memory_fd_properties, vkGetMemoryFdPropertiesKHR);
	if (x->sync_fd)
		DEVICE_PROC(x, get_semaphore_fd, vkGetSemaphoreFdKHR);
	if (!x->get_memory_fd_properties || (x->sync_fd && !x->get_semaphore_fd)) {
		fprintf(stderr, "mvgal-vkexec: the device lacks an entry point it names\n");
		return -1;
	}
	say(x, "completion by %s\n", x->sync_fd ? "SYNC_FD fences" :
	    "waiting for the queue (no SYNC_FD export)");
	return 0;
}

/*
 * Imports dma-buf @fd as a transfer buffer of all its bytes. Vulkan gets
 * a dup, which it owns once the import succeeded; @fd stays the caller's.
 */
static int import(struct vkexec *x, int fd, VkBuffer *buf, VkDeviceMemory *mem)
{
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = &ext,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
			 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkMemoryFdPropertiesKHR fdp = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR,
	};
	VkImportMemoryFdInfoKHR imp = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkMemoryDedicatedAllocateInfo ded = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.pNext = &imp,
	};
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &ded,
	};
	VkMemoryRequirements req;
	off_t size = lseek(fd, 0, SEEK_END);
	uint32_t types;

	if (size <= 0)
		return fail("the size of a dma-buf", size < 0 ? -errno : -EINVAL);
	bci.size = (VkDeviceSize)size;
	if (VK_OK(vkCreateBuffer(x->dev, &bci, NULL, buf), "vkCreateBuffer"))
		return -1;
	vkGetBufferMemoryRequirements(x->dev, *buf, &req);
	if (VK_OK(x->get_memory_fd_properties(x->dev,
					      VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
					      fd, &fdp), "vkGetMemoryFdPropertiesKHR"))
		goto err_buf;
	types = req.memoryTypeBits & fdp.memoryTypeBits;
	if (!types || req.size > (VkDeviceSize)size) {
		fprintf(stderr, "mvgal-vkexec: the device cannot take the dma-buf as a buffer\n");
		goto err_buf;
	}
	/* A dedicated import: the whole dma-buf is this buffer. */
	ded.buffer = *buf;
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = (uint32_t)__builtin_ctz(types);
	imp.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (imp.fd < 0) {
		fail("dup of a dma-buf", -errno);
		goto err_buf;
	}
	/* After a failed import lavapipe has closed the dup: it is not reused. */
	if (VK_OK(vkAllocateMemory(x->dev, &mai, NULL, mem), "vkAllocateMemory"))
		goto err_buf;
	if (VK_OK(vkBindBufferMemory(x->dev, *buf, *mem, 0), "vkBindBufferMemory")) {
		vkFreeMemory(x->dev, *mem, NULL);
		goto err_buf;
	}
	return 0;

err_buf:
	vkDestroyBuffer(x->dev, *buf, NULL);
	*buf = VK_NULL_HANDLE;
	return -1;
}

static void unimport(struct vkexec *x, VkBuffer buf, VkDeviceMemory mem)
{
	if (buf != VK_NULL_HANDLE) {
		vkDestroyBuffer(x->dev, buf, NULL);
		vkFreeMemory(x->dev, mem, NULL);
	}
}

/* Registers for the GPU and imports its pool, once. */
static int attach(struct vkexec *x)
{
	struct drm_mvgal_pool_fd p = { .gpu = x->gpu };
	int ret;

	ret = mvgal_exec_register(x->m, x->gpu, 0);
	if (ret)
		return fail("EXEC_REGISTER", ret);

	if (ioctl(mvgal_fd(x->m), DRM_IOCTL_MVGAL_POOL_FD, &p))
		return fail("POOL_FD", -errno);
	ret = import(x, p.fd, &x->pool, &x->pool_mem);
	close(p.fd);
	return ret;
}

/* A barrier handing [@off, +@len) of @buf between mvgal and the queue. */
static VkBufferMemoryBarrier handover(const struct vkexec *x, VkBuffer buf,
				      uint64_t off, uint64_t len, bool acquire,
				      VkAccessFlags access)
{
	return (VkBufferMemoryBarrier) {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = acquire ? 0 : access,
		.dstAccessMask = acquire ? access : 0,
		.srcQueueFamilyIndex = acquire ? x->foreign : x->family,
		.dstQueueFamilyIndex = acquire ? x->family : x->foreign,
		.buffer = buf,
		.offset = off,
		.size = len,
	};
}

/* Records copy @c: acquire both ranges from mvgal, copy, release them. */
static void record(struct vkexec *x, const struct copy *c)
{
	const struct drm_mvgal_exec_take *t = &c->t;
	bool to_pool = t->dir == MVGAL_EXEC_TO_POOL;
	VkBuffer src = to_pool ? c->buf : x->pool, dst = to_pool ? x->pool : c->buf;
	const VkBufferCopy region = {
		.srcOffset = to_pool ? t->host_offset : t->pool_offset,
		.dstOffset = to_pool ? t->pool_offset : t->host_offset,
		.size = t->length,
	};
	VkBufferMemoryBarrier b[2];

	b[0] = handover(x, src, region.srcOffset, t->length, true,
			VK_ACCESS_TRANSFER_READ_BIT);
	b[1] = handover(x, dst, region.dstOffset, t->length, true,
			VK_ACCESS_TRANSFER_WRITE_BIT);
	vkCmdPipelineBarrier(x->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
			     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 2, b, 0, NULL);
	vkCmdCopyBuffer(x->cmd, src, dst, 1, &region);
	b[0] = handover(x, src, region.srcOffset, t->length, false,
			VK_ACCESS_TRANSFER_READ_BIT);
	b[1] = handover(x, dst, region.dstOffset, t->length, false,
			VK_ACCESS_TRANSFER_WRITE_BIT);
	vkCmdPipelineBarrier(x->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
			     VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 2, b, 0,
			     NULL);
}

/*
 * Submits the batch's command buffer; *@fence becomes a SYNC_FD that
 * signals when it is done, or -1 once the queue has done it.
 */
static int submit(struct vkexec *x, int *fence)
{
	VkExportSemaphoreCreateInfo exp = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	const VkSemaphoreCreateInfo sci = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
		.pNext = &exp,
	};
	VkSemaphoreGetFdInfoKHR gi = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &x->cmd,
	};
	VkSemaphore sem = VK_NULL_HANDLE;
	int ret = 0;

	*fence = -1;
	if (x->sync_fd) {
		if (VK_OK(vkCreateSemaphore(x->dev, &sci, NULL, &sem), "vkCreateSemaphore"))
			return -1;
		si.signalSemaphoreCount = 1;
		si.pSignalSemaphores = &sem;
	}
	if (VK_OK(vkQueueSubmit(x->queue, 1, &si, x->fence), "vkQueueSubmit")) {
		ret = -1;
	} else if (x->sync_fd) {
		gi.semaphore = sem;
		if (VK_OK(x->get_semaphore_fd(x->dev, &gi, fence), "vkGetSemaphoreFdKHR"))
			ret = -1;
	} else if (VK_OK(vkWaitForFences(x->dev, 1, &x->fence, VK_TRUE, UINT64_MAX),
			 "vkWaitForFences")) {
		ret = -1;
	}
	if (sem != VK_NULL_HANDLE)
		vkDestroySemaphore(x->dev, sem, NULL);
	return ret;
}

/*
 * Runs batch @c[0..@n): imports, one command buffer, one submission;
 * reports each copy with the batch's fence (or its failure). Waits for
 * the queue before the imports go.
 */
static int run_batch(struct vkexec *x, struct copy *c, unsigned int n)
{
	const VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	int fence = -1, err = 0, ret = 0;
	bool submitted = false;
	unsigned int i;

	for (i = 0; i < n && !err; i++)
		err = import(x, c[i].t.host_fd, &c[i].buf, &c[i].mem);
	if (!err)
		err = VK_OK(vkResetCommandBuffer(x->cmd, 0), "vkResetCommandBuffer") ||
		      VK_OK(vkBeginCommandBuffer(x->cmd, &bi), "vkBeginCommandBuffer");
	for (i = 0; i < n && !err; i++)
		record(x, &c[i]);
	if (!err)
		err = VK_OK(vkEndCommandBuffer(x->cmd), "vkEndCommandBuffer") ||
		      submit(x, &fence);
	submitted = !err;
	for (i = 0; i < n; i++) {
		int r = mvgal_exec_done(x->m, x->gpu, c[i].t.job, err ? -1 : fence,
					err ? -EIO : 0);

		/* Unregistered meanwhile: mvgal no longer waits for it. */
		if (r && r != -EPERM && r != -ENOENT)
			ret = fail("EXEC_DONE", r);
	}
	if (fence >= 0)
		close(fence);
	if (submitted) {
		vkWaitForFences(x->dev, 1, &x->fence, VK_TRUE, UINT64_MAX);
		vkResetFences(x->dev, 1, &x->fence);
	}
	for (i = 0; i < n; i++) {
		unimport(x, c[i].buf, c[i].mem);
		close(c[i].t.host_fd);
	}
	x->copies += n;
	x->batches++;
	return ret;
}

static void *calibrate(void *arg)
{
	struct vkexec *x = arg;
	uint32_t paths = 0;
	int ret = mvgal_calibrate(x->m, &paths);

	if (ret)
		fail("CALIBRATE", ret);
	else
		say(x, "calibrated %u paths\n", paths);
	return NULL;
}

/* Serves until a signal or the end of the registration. */
static int serve(struct vkexec *x)
{
	struct copy c[BATCH];
	unsigned int n;
	int ret;

	while (!stop) {
		memset(c, 0, sizeof(c));
		ret = mvgal_exec_take(x->m, x->gpu, 0, &c[0].t);
		if (ret == -EINTR)
			continue;
		if (ret == -ENODEV || ret == -EPERM) {
			say(x, "registration ended\n");
			return 0;
		}
		if (ret)
			return fail("EXEC_TAKE", ret);
		for (n = 1; n < BATCH; n++)
			if (mvgal_exec_take(x->m, x->gpu, MVGAL_EXEC_TAKE_NONBLOCK,
					    &c[n].t))
				break;
		if (run_batch(x, c, n))
			return -1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: mvgal-vkexec [-g GPU] [-s] [-c] [-r FD] [-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct vkexec x = { .gpu = 0 };
	struct sigaction sa = { .sa_handler = on_stop };
	bool cal = false;
	pthread_t thr;
	int opt, ready = -1, ret;

	while ((opt = getopt(argc, argv, "g:scr:v")) != -1) {
		switch (opt) {
		case 'g': x.gpu = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': x.stand_in = true; break;
		case 'c': cal = true; break;
		case 'r': ready = atoi(optarg); break;
		case 'v': x.verbose = true; break;
		default: return usage();
		}
	}
	if (optind != argc)
		return usage();
	/* No SA_RESTART: a signal ends the wait in EXEC_TAKE. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = mvgal_open(&x.m);
	if (ret)
		return fail("opening mvgal", ret), 1;
	ret = mvgal_gpu_info(x.m, x.gpu, &x.info);
	if (ret)
		return fail("GPU_INFO", ret), 1;
	if (pick_device(&x) || pick_family(&x) || open_device(&x) || attach(&x))
		return 1;
	if (cal && pthread_create(&thr, NULL, calibrate, &x))
		return fail("a calibration thread", -errno), 1;
	if (ready >= 0 && (write(ready, "ready\n", 6) != 6 || close(ready)))
		return fail("the ready fd", -errno), 1;
	ret = serve(&x);
	say(&x, "%llu copies in %llu batches\n",
	    (unsigned long long)x.copies, (unsigned long long)x.batches);
	if (cal)
		pthread_join(thr, NULL);
	mvgal_exec_register(x.m, x.gpu, MVGAL_EXEC_UNREGISTER);
	vkDeviceWaitIdle(x.dev);
	unimport(&x, x.pool, x.pool_mem);
	mvgal_close(x.m);
	return ret ? 1 : 0;
}
