// SPDX-License-Identifier: MIT
/*
 * mvgal-vulkan: a Vulkan driver computes on mvgal memory, on two GPUs.
 *
 * The flow, as an application writes it:
 *
 *  1. Open mvgal and take the first two attached GPUs whose Vulkan device
 *     can import their placement exports, A and B (gpus_choose()).
 *  2. Create `buf` (N words, not a whole number of pages) for A and fill it
 *     from the CPU through its mapping; create `out` (one word per 64 of
 *     buf) for B.
 *  3. GPU A: a placement export of buf (mvgal_place_fd: a dma-buf of buf's
 *     copy in A's pool), then a WRITE session (mvgal_begin, with
 *     MVGAL_ACCESS_NO_IN_PLACE) that makes that copy current. A's Vulkan
 *     device imports the dma-buf (VK_EXT_external_memory_dma_buf) and
 *     BEGIN's fence (a SYNC_FD semaphore), runs mvgal-transform.comp
 *     (data[i] = data[i] * 3 + i), and signals a semaphore whose SYNC_FD
 *     goes to mvgal_end(): what A wrote is buf's once that fence signals.
 *  4. GPU B: exports of buf and out in B's pool, a READ session of buf
 *     (mvgal copies A's result over after A's fence) and a WRITE session
 *     of out. B's Vulkan device waits for both BEGIN fences, runs
 *     mvgal-reduce.comp (out[j] = the sum of buf[64 j .. 64 j + 63]) and
 *     both sessions end with its fence.
 *  5. The CPU reads buf and out through mvgal (which brings the chunks
 *     home after the GPUs' fences) and checks every word.
 *
 * Between the steps only fences order the work: no thread waits for a GPU.
 * Where the driver cannot import or export a SYNC_FD (lavapipe without
 * /dev/udmabuf has no VK_KHR_external_semaphore_fd at all), the CPU waits
 * instead, for BEGIN's fence before the submission and for the queue
 * before END (with -1), and the program says so.
 *
 * Each mvgal GPU gets the Vulkan device with its PCI address
 * (VK_EXT_pci_bus_info) or DRM node (VK_EXT_physical_device_drm). Where
 * none matches (the test guest has virtio-gpus, which have no Vulkan
 * driver, and lavapipe), a CPU device stands in for the GPU, and the
 * program says so; it then computes on the same pool pages all the same.
 * Such a device imports a dma-buf by mapping it, and a placement export
 * maps only where the pool's driver maps at an offset (TTM drivers such
 * as amdgpu and nouveau, and the test bed's VRAM stand-in; not the GEM
 * shmem helpers' vgem and virtio-gpu, whose exports' mmap is -ENODEV): a
 * GPU whose export does not map is passed over, and the program says why.
 * In the test guest the two VRAM stand-ins (`modprobe mvgal_vram`, then
 * `mvgal-info --attach`) are A and B.
 *
 * Build (the shaders become C arrays first):
 *   glslangValidator -V --target-env vulkan1.1 --vn mvgal_transform_spv \
 *	-o mvgal-transform.spv.h mvgal-transform.comp
 *   glslangValidator -V --target-env vulkan1.1 --vn mvgal_reduce_spv \
 *	-o mvgal-reduce.spv.h mvgal-reduce.comp
 *   cc -I. mvgal-vulkan.c $(pkg-config --cflags --libs mvgal vulkan)
 *
 * Exit status: 0 every word is right, 1 a failure or a wrong word, 77
 * skipped (fewer than two GPUs a Vulkan device can import the exports of,
 * or a module without sessions or dma-bufs).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#include <mvgal/mvgal.h>

#include "mvgal-transform.spv.h"	/* mvgal_transform_spv[] */
#include "mvgal-reduce.spv.h"		/* mvgal_reduce_spv[] */

#define N	300007u			/* words of buf: 1200028 bytes */
#define GROUP	64u			/* local_size_x of both shaders */
#define M	((N + GROUP - 1) / GROUP)	/* words of out */
#define SKIP	77

/* What one mvgal GPU needs on the Vulkan side. */
struct gpu {
	char name;			/* 'A' or 'B' */
	uint32_t slot;			/* mvgal GPU index */
	struct drm_mvgal_gpu_info info;
	VkPhysicalDevice phys;
	bool stand_in;			/* a CPU device stands in for it */
	bool dedicated;			/* dma-buf imports must be dedicated */
	bool sync_fd_import;		/* semaphores can wait for a SYNC_FD */
	bool sync_fd_export;		/* semaphores can export a SYNC_FD */
	bool cpu_waited;		/* the CPU had to wait for a fence or the queue */
	uint32_t family;		/* a compute queue family */
	uint32_t foreign;		/* queue family of mvgal's own copies */
	VkDevice dev;
	VkQueue queue;
	VkCommandPool pool;
	PFN_vkGetMemoryFdPropertiesKHR get_memory_fd_properties;
	PFN_vkImportSemaphoreFdKHR import_semaphore_fd;
	PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
};

/* A dma-buf imported as a storage buffer. */
struct import {
	VkBuffer buf;
	VkDeviceMemory mem;
};

/* One GPU's work: a compute pipeline over @nbuf imports, and its submission. */
struct step {
	struct gpu *gpu;
	unsigned int nbuf;
	struct import in[2];
	VkShaderModule module;
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkDescriptorPool desc_pool;
	VkDescriptorSet set;
	VkCommandBuffer cmd;
	unsigned int nwait;
	VkSemaphore wait[2];		/* BEGIN's fences */
	VkSemaphore done;		/* signalled by the work; its SYNC_FD goes to END */
};

/* One access session on one whole buffer. */
struct sess {
	const char *what;
	uint32_t handle;
	const struct gpu *g;
	uint32_t flags;
	bool live;
	uint32_t id;
	int fence;			/* BEGIN's out fence until Vulkan takes it */
	uint64_t copied;		/* bytes BEGIN copies */
	uint32_t pool_gpu;
};

struct app {
	struct mvgal *m;
	uint32_t buf, out;		/* GEM handles; 0 = none */
	uint32_t *want_buf, *want_out, *got;
	VkInstance inst;
	uint32_t gpus[MVGAL_MAX_GPUS];	/* the attached GPUs */
	int ngpus;
	struct gpu gpu[2];		/* A, B */
	struct step step[2];		/* A's transform, B's reduce */
	struct sess sess[3];		/* A WRITE buf, B READ buf, B WRITE out */
};

/* ---- messages ---- */

/*
 * The program says what each step did as it goes. A program that reuses
 * these steps (tests/bench/mvgal_vkbench.c repeats them in a timed loop)
 * turns that off; errors are always reported.
 */
static bool verbose = true;

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static int mv_fail(const char *what, int err)
{
	fprintf(stderr, "mvgal-vulkan: %s: %s\n", what, strerror(-err));
	return -1;
}

static int fail(const char *what)
{
	fprintf(stderr, "mvgal-vulkan: %s\n", what);
	return -1;
}

static const char *vk_name(VkResult r)
{
#define R(x) { x, #x }
	static const struct {
		VkResult r;
		const char *name;
	} names[] = {
		R(VK_SUCCESS), R(VK_NOT_READY), R(VK_TIMEOUT), R(VK_INCOMPLETE),
		R(VK_ERROR_OUT_OF_HOST_MEMORY), R(VK_ERROR_OUT_OF_DEVICE_MEMORY),
		R(VK_ERROR_INITIALIZATION_FAILED), R(VK_ERROR_DEVICE_LOST),
		R(VK_ERROR_MEMORY_MAP_FAILED), R(VK_ERROR_LAYER_NOT_PRESENT),
		R(VK_ERROR_EXTENSION_NOT_PRESENT), R(VK_ERROR_FEATURE_NOT_PRESENT),
		R(VK_ERROR_INCOMPATIBLE_DRIVER), R(VK_ERROR_TOO_MANY_OBJECTS),
		R(VK_ERROR_FORMAT_NOT_SUPPORTED), R(VK_ERROR_INVALID_EXTERNAL_HANDLE),
		R(VK_ERROR_UNKNOWN),
	};
#undef R
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].r == r)
			return names[i].name;
	return "VkResult";
}

/* 0 on VK_SUCCESS; else says which call failed how, and -1. */
static int vk_check(VkResult r, const char *call)
{
	if (r == VK_SUCCESS)
		return 0;
	fprintf(stderr, "mvgal-vulkan: %s: %s (%d)\n", call, vk_name(r), r);
	return -1;
}

#define VK_CHECK(call) vk_check((call), #call)

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- the data and what the GPUs must make of it ---- */

/* What the CPU writes into word i of buf. */
static uint32_t pattern(uint32_t i)
{
	return i * 2654435761u + 0x9e3779b9u;
}

/* buf after the transform, and out after the reduce, as the CPU computes them. */
static void expect(uint32_t *want_buf, uint32_t *want_out)
{
	uint32_t i;

	memset(want_out, 0, M * sizeof(*want_out));
	for (i = 0; i < N; i++) {
		want_buf[i] = pattern(i) * 3u + i;
		want_out[i / GROUP] += want_buf[i];
	}
}

/* The first index where @got differs from @want, or -1. */
static long first_mismatch(const uint32_t *got, const uint32_t *want, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i])
			return i;
	return -1;
}

/* ---- Vulkan: instance and devices ---- */

static int instance_create(VkInstance *inst)
{
	const VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "mvgal-vulkan",
		.apiVersion = VK_API_VERSION_1_1,
	};
	const VkInstanceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	uint32_t version = VK_API_VERSION_1_0;

	if (VK_CHECK(vkEnumerateInstanceVersion(&version)))
		return -1;
	if (version < VK_API_VERSION_1_1)
		return fail("the Vulkan loader is older than 1.1");
	return VK_CHECK(vkCreateInstance(&ci, NULL, inst));
}

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

/* Is the PCI function at @slot ("0000:41:00.0") the one of this device? */
static bool match_pci(VkPhysicalDevice pd, const struct drm_mvgal_gpu_info *info)
{
	VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT,
	};
	VkPhysicalDeviceProperties2 p = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		.pNext = &pci,
	};
	unsigned int dom, bus, dev, fn;

	if (info->bus != MVGAL_BUS_PCI || !has_ext(pd, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME))
		return false;
	if (sscanf(info->slot, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return false;
	vkGetPhysicalDeviceProperties2(pd, &p);
	return pci.pciDomain == dom && pci.pciBus == bus && pci.pciDevice == dev &&
	       pci.pciFunction == fn;
}

static bool match_drm(VkPhysicalDevice pd, const struct drm_mvgal_gpu_info *info)
{
	VkPhysicalDeviceDrmPropertiesEXT drm = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT,
	};
	VkPhysicalDeviceProperties2 p = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		.pNext = &drm,
	};

	if (!has_ext(pd, VK_EXT_PHYSICAL_DEVICE_DRM_EXTENSION_NAME))
		return false;
	vkGetPhysicalDeviceProperties2(pd, &p);
	/* GPU_INFO reports the GPU's nodes as Vulkan does: by number. */
	return (drm.hasRender && info->render_major &&
		drm.renderMajor == info->render_major &&
		drm.renderMinor == info->render_minor) ||
	       (drm.hasPrimary && info->primary_major &&
		drm.primaryMajor == info->primary_major &&
		drm.primaryMinor == info->primary_minor);
}

/* The Vulkan device of mvgal GPU @g, or a CPU device standing in for it. */
static int gpu_pick(VkInstance inst, struct gpu *g)
{
	VkPhysicalDevice pd[16], cpu = VK_NULL_HANDLE;
	VkPhysicalDeviceProperties p;
	uint32_t n = 16, i;
	VkResult r;

	r = vkEnumeratePhysicalDevices(inst, &n, pd);
	if (r != VK_INCOMPLETE && VK_CHECK(r))
		return -1;
	for (i = 0; i < n; i++) {
		vkGetPhysicalDeviceProperties(pd[i], &p);
		if (p.apiVersion < VK_API_VERSION_1_1)
			continue;
		if (match_pci(pd[i], &g->info) || match_drm(pd[i], &g->info)) {
			g->phys = pd[i];
			say("GPU %c = mvgal GPU %u (%s at %s): Vulkan device \"%s\"\n",
			    g->name, g->slot, g->info.driver, g->info.slot, p.deviceName);
			return 0;
		}
		if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !cpu)
			cpu = pd[i];
	}
	if (!cpu) {
		fprintf(stderr, "mvgal-vulkan: no Vulkan device is mvgal GPU %u (%s at %s), and no CPU device can stand in for it\n",
			g->slot, g->info.driver, g->info.slot);
		return -1;
	}
	vkGetPhysicalDeviceProperties(cpu, &p);
	g->phys = cpu;
	g->stand_in = true;
	say("GPU %c = mvgal GPU %u (%s at %s): no Vulkan device has its PCI address or DRM node;\n"
	    "        the CPU device \"%s\" stands in for it (same pool pages, CPU compute)\n",
	    g->name, g->slot, g->info.driver, g->info.slot, p.deviceName);
	return 0;
}

/*
 * Can @g import dma-bufs as storage buffers? Notes whether such an import
 * must be a dedicated allocation, and whether semaphores can import and
 * export SYNC_FDs (VK_KHR_external_semaphore_fd; lavapipe offers it only
 * where /dev/udmabuf exists).
 */
static int gpu_check_external(struct gpu *g)
{
	const VkPhysicalDeviceExternalBufferInfo bi = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
		.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	const VkPhysicalDeviceExternalSemaphoreInfo si = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	VkExternalBufferProperties bp = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES,
	};
	VkExternalSemaphoreProperties sp = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES,
	};
	const char *const need[] = {
		VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
		VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME,
	};
	VkExternalMemoryFeatureFlags mf;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!has_ext(g->phys, need[i])) {
			fprintf(stderr, "mvgal-vulkan: GPU %c's Vulkan device lacks %s\n",
				g->name, need[i]);
			return -1;
		}
	}
	vkGetPhysicalDeviceExternalBufferProperties(g->phys, &bi, &bp);
	mf = bp.externalMemoryProperties.externalMemoryFeatures;
	if (!(mf & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT)) {
		fprintf(stderr, "mvgal-vulkan: GPU %c's Vulkan device cannot import a dma-buf as a storage buffer\n",
			g->name);
		return -1;
	}
	g->dedicated = mf & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
	if (!has_ext(g->phys, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME)) {
		say("GPU %c: the Vulkan device has no %s (lavapipe: no /dev/udmabuf):\n"
		    "        the CPU waits for BEGIN's fences and for the work, END gets -1\n",
		    g->name, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
		return 0;
	}
	vkGetPhysicalDeviceExternalSemaphoreProperties(g->phys, &si, &sp);
	g->sync_fd_import = sp.externalSemaphoreFeatures &
			    VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT;
	g->sync_fd_export = sp.externalSemaphoreFeatures &
			    VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT;
	return 0;
}

static int gpu_queue_family(struct gpu *g)
{
	VkQueueFamilyProperties q[16];
	uint32_t n = 16, i;

	vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &n, q);
	for (i = 0; i < n; i++) {
		if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
			g->family = i;
			return 0;
		}
	}
	fprintf(stderr, "mvgal-vulkan: GPU %c's Vulkan device has no compute queue\n", g->name);
	return -1;
}

#define DEVICE_PROC(g, field, name)					\
	((g)->field = (PFN_##name)vkGetDeviceProcAddr((g)->dev, #name))

/* A VkDevice with one compute queue and the external memory extensions. */
static int gpu_open(struct gpu *g)
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
	};

	if (gpu_check_external(g) || gpu_queue_family(g))
		return -1;
	if (g->sync_fd_import || g->sync_fd_export)
		ext[ci.enabledExtensionCount++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
	/*
	 * mvgal's copies (the CPU, or a DMA engine) are foreign to Vulkan:
	 * the buffers are acquired from, and released to, the foreign queue
	 * family where the driver knows it, else the external one.
	 */
	g->foreign = VK_QUEUE_FAMILY_EXTERNAL;
	if (has_ext(g->phys, VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME)) {
		ext[ci.enabledExtensionCount++] = VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME;
		g->foreign = VK_QUEUE_FAMILY_FOREIGN_EXT;
	}
	q.queueFamilyIndex = g->family;
	if (VK_CHECK(vkCreateDevice(g->phys, &ci, NULL, &g->dev)))
		return -1;
	vkGetDeviceQueue(g->dev, g->family, 0, &g->queue);
	pci.queueFamilyIndex = g->family;
	if (VK_CHECK(vkCreateCommandPool(g->dev, &pci, NULL, &g->pool)))
		return -1;
	DEVICE_PROC(g, get_memory_fd_properties, vkGetMemoryFdPropertiesKHR);
	if (!g->get_memory_fd_properties)
		return fail("the device has no vkGetMemoryFdPropertiesKHR");
	if (g->sync_fd_import || g->sync_fd_export) {
		DEVICE_PROC(g, import_semaphore_fd, vkImportSemaphoreFdKHR);
		DEVICE_PROC(g, get_semaphore_fd, vkGetSemaphoreFdKHR);
		if (!g->import_semaphore_fd || !g->get_semaphore_fd)
			return fail("the device has no vkImportSemaphoreFdKHR or vkGetSemaphoreFdKHR");
	}
	return 0;
}

/* ---- Vulkan: pipelines, imports, submissions ---- */

/* A compute pipeline of @code over @s->nbuf storage buffers and a uint push constant. */
static int step_pipeline(struct step *s, const uint32_t *code, size_t bytes)
{
	VkDevice dev = s->gpu->dev;
	VkDescriptorSetLayoutBinding b[2];
	const VkShaderModuleCreateInfo mci = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = bytes,
		.pCode = code,
	};
	const VkDescriptorSetLayoutCreateInfo sci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = s->nbuf,
		.pBindings = b,
	};
	const VkPushConstantRange push = {
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		.size = sizeof(uint32_t),
	};
	VkPipelineLayoutCreateInfo lci = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &push,
	};
	VkComputePipelineCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_COMPUTE_BIT,
			.pName = "main",
		},
	};
	const VkDescriptorPoolSize size = {
		.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.descriptorCount = s->nbuf,
	};
	const VkDescriptorPoolCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 1,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	VkDescriptorSetAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorSetCount = 1,
	};
	unsigned int i;

	for (i = 0; i < s->nbuf; i++) {
		b[i] = (VkDescriptorSetLayoutBinding) {
			.binding = i,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = 1,
			.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	}
	if (VK_CHECK(vkCreateShaderModule(dev, &mci, NULL, &s->module)) ||
	    VK_CHECK(vkCreateDescriptorSetLayout(dev, &sci, NULL, &s->set_layout)))
		return -1;
	lci.pSetLayouts = &s->set_layout;
	if (VK_CHECK(vkCreatePipelineLayout(dev, &lci, NULL, &s->layout)))
		return -1;
	pci.stage.module = s->module;
	pci.layout = s->layout;
	if (VK_CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &pci, NULL, &s->pipeline)) ||
	    VK_CHECK(vkCreateDescriptorPool(dev, &dci, NULL, &s->desc_pool)))
		return -1;
	ai.descriptorPool = s->desc_pool;
	ai.pSetLayouts = &s->set_layout;
	return VK_CHECK(vkAllocateDescriptorSets(dev, &ai, &s->set));
}

/*
 * Imports dma-buf @fd of @fd_size bytes as a storage buffer of @size bytes
 * at its offset 0. Vulkan gets a dup of @fd, which it owns once the import
 * succeeds; the caller keeps @fd and may close it at once (the imported
 * memory holds the dma-buf).
 */
static int import_dmabuf(struct gpu *g, int fd, uint64_t fd_size, VkDeviceSize size,
			 struct import *im)
{
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	const VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = &ext,
		.size = size,
		.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
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
		.pNext = &imp,
	};
	VkMemoryRequirements req;
	uint32_t types;

	if (VK_CHECK(vkCreateBuffer(g->dev, &bci, NULL, &im->buf)))
		return -1;
	vkGetBufferMemoryRequirements(g->dev, im->buf, &req);
	if (VK_CHECK(g->get_memory_fd_properties(g->dev,
						 VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
						 fd, &fdp)))
		return -1;
	types = req.memoryTypeBits & fdp.memoryTypeBits;
	if (!types)
		return fail("no memory type of the device takes both the buffer and the dma-buf");
	if (req.size > fd_size) {
		fprintf(stderr, "mvgal-vulkan: the buffer needs %llu bytes of memory, the dma-buf has %llu\n",
			(unsigned long long)req.size, (unsigned long long)fd_size);
		return -1;
	}
	if (g->dedicated) {
		ded.buffer = im->buf;
		mai.pNext = &ded;
	}
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = (uint32_t)__builtin_ctz(types);
	imp.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (imp.fd < 0)
		return mv_fail("dup of the dma-buf", -errno);
	/*
	 * After a failed import the spec leaves the fd to the caller, but
	 * lavapipe 25.0 closes it: leak it rather than close a number that
	 * may be in use again.
	 */
	if (VK_CHECK(vkAllocateMemory(g->dev, &mai, NULL, &im->mem)))
		return -1;
	return VK_CHECK(vkBindBufferMemory(g->dev, im->buf, im->mem, 0));
}

/*
 * Makes @s wait for sync_file *@fence (BEGIN's): a semaphore with the
 * fence as its temporary payload; Vulkan owns the fd then (*@fence
 * becomes -1). A fence of -1 (nothing to wait for) needs no semaphore.
 * Where the device cannot import a SYNC_FD, the CPU waits for the fence.
 */
static int step_wait(struct step *s, int *fence)
{
	const VkSemaphoreCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
	};
	VkImportSemaphoreFdInfoKHR imp = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
		.flags = VK_SEMAPHORE_IMPORT_TEMPORARY_BIT,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	struct gpu *g = s->gpu;
	VkSemaphore *sem = &s->wait[s->nwait];
	int ret;

	if (*fence < 0)
		return 0;
	if (!g->sync_fd_import) {
		g->cpu_waited = true;
		ret = mvgal_fence_wait(*fence, -1);
		if (!ret)
			ret = mvgal_fence_status(*fence);
		close_fd(fence);
		return ret < 0 ? mv_fail("waiting for BEGIN's fence", ret) : 0;
	}
	if (VK_CHECK(vkCreateSemaphore(g->dev, &ci, NULL, sem)))
		return -1;
	s->nwait++;
	imp.semaphore = *sem;
	imp.fd = *fence;
	if (VK_CHECK(g->import_semaphore_fd(g->dev, &imp)))
		return -1;
	*fence = -1;
	return 0;
}

/* A buffer barrier handing @im between mvgal (@from) and the queue (@to). */
static VkBufferMemoryBarrier handover(const struct import *im, uint32_t from, uint32_t to,
				      VkAccessFlags src, VkAccessFlags dst)
{
	return (VkBufferMemoryBarrier) {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = src,
		.dstAccessMask = dst,
		.srcQueueFamilyIndex = from,
		.dstQueueFamilyIndex = to,
		.buffer = im->buf,
		.size = VK_WHOLE_SIZE,
	};
}

/*
 * Records: take the imports over from mvgal, run @groups workgroups with
 * push constant @n, hand the imports back. Not for one submission only:
 * a program that runs the step session after session submits it again.
 */
static int step_record(struct step *s, uint32_t n, uint32_t groups)
{
	const VkAccessFlags rw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
	const VkPipelineStageFlags cs = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
	struct gpu *g = s->gpu;
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = g->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	const VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	};
	VkDescriptorBufferInfo db[2];
	VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = s->set,
		.descriptorCount = s->nbuf,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		.pBufferInfo = db,
	};
	VkBufferMemoryBarrier acquire[2], release[2];
	unsigned int i;

	for (i = 0; i < s->nbuf; i++) {
		db[i] = (VkDescriptorBufferInfo) { s->in[i].buf, 0, VK_WHOLE_SIZE };
		acquire[i] = handover(&s->in[i], g->foreign, g->family, 0, rw);
		release[i] = handover(&s->in[i], g->family, g->foreign, rw, 0);
	}
	vkUpdateDescriptorSets(g->dev, 1, &w, 0, NULL);
	if (VK_CHECK(vkAllocateCommandBuffers(g->dev, &ai, &s->cmd)) ||
	    VK_CHECK(vkBeginCommandBuffer(s->cmd, &bi)))
		return -1;
	/* The semaphore waits happen at the compute stage: the acquire follows them. */
	vkCmdPipelineBarrier(s->cmd, cs, cs, 0, 0, NULL, s->nbuf, acquire, 0, NULL);
	vkCmdBindPipeline(s->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
	vkCmdBindDescriptorSets(s->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 1,
				&s->set, 0, NULL);
	vkCmdPushConstants(s->cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(n), &n);
	vkCmdDispatch(s->cmd, groups, 1, 1);
	vkCmdPipelineBarrier(s->cmd, cs, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL,
			     s->nbuf, release, 0, NULL);
	return VK_CHECK(vkEndCommandBuffer(s->cmd));
}

/*
 * Submits @s after its waits, and gives back in *@fence_fd a sync_file
 * that signals when the work is done; where the driver cannot export one,
 * waits for the work and gives -1 ("done") instead.
 */
static int step_submit(struct step *s, int *fence_fd)
{
	static const VkPipelineStageFlags stages[2] = {
		VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
	};
	const VkExportSemaphoreCreateInfo exp = {
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
		.waitSemaphoreCount = s->nwait,
		.pWaitSemaphores = s->wait,
		.pWaitDstStageMask = stages,
		.commandBufferCount = 1,
		.pCommandBuffers = &s->cmd,
	};
	struct gpu *g = s->gpu;
	VkResult r;

	*fence_fd = -1;
	if (g->sync_fd_export) {
		if (VK_CHECK(vkCreateSemaphore(g->dev, &sci, NULL, &s->done)))
			return -1;
		si.signalSemaphoreCount = 1;
		si.pSignalSemaphores = &s->done;
	}
	if (VK_CHECK(vkQueueSubmit(g->queue, 1, &si, VK_NULL_HANDLE)))
		return -1;
	say("GPU %c: %s submitted, waiting on the GPU for %u BEGIN fence(s)\n", g->name,
	    s->nbuf == 1 ? "mvgal-transform" : "mvgal-reduce", s->nwait);
	if (!g->sync_fd_export) {
		g->cpu_waited = true;
		say("GPU %c: the device cannot export a SYNC_FD: waiting for the queue, END gets -1\n",
		    g->name);
		return VK_CHECK(vkQueueWaitIdle(g->queue));
	}
	gi.semaphore = s->done;
	r = g->get_semaphore_fd(g->dev, &gi, fence_fd);
	if (r == VK_SUCCESS) {
		say("GPU %c: its semaphore's SYNC_FD goes to END\n", g->name);
		return 0;
	}
	*fence_fd = -1;
	g->cpu_waited = true;
	say("GPU %c: vkGetSemaphoreFdKHR(SYNC_FD) failed (%s; lavapipe needs /dev/udmabuf): waiting for the queue, END gets -1\n",
	    g->name, vk_name(r));
	return VK_CHECK(vkQueueWaitIdle(g->queue));
}

static void step_release(struct step *s)
{
	VkDevice dev = s->gpu ? s->gpu->dev : VK_NULL_HANDLE;
	unsigned int i;

	if (!dev)
		return;
	vkDestroySemaphore(dev, s->done, NULL);
	for (i = 0; i < s->nwait; i++)
		vkDestroySemaphore(dev, s->wait[i], NULL);
	if (s->cmd)
		vkFreeCommandBuffers(dev, s->gpu->pool, 1, &s->cmd);
	vkDestroyDescriptorPool(dev, s->desc_pool, NULL);
	vkDestroyPipeline(dev, s->pipeline, NULL);
	vkDestroyPipelineLayout(dev, s->layout, NULL);
	vkDestroyDescriptorSetLayout(dev, s->set_layout, NULL);
	vkDestroyShaderModule(dev, s->module, NULL);
	for (i = 0; i < 2; i++) {
		vkDestroyBuffer(dev, s->in[i].buf, NULL);
		vkFreeMemory(dev, s->in[i].mem, NULL);
	}
	memset(s, 0, sizeof(*s));
}

static void gpu_release(struct gpu *g)
{
	if (!g->dev)
		return;
	vkDestroyCommandPool(g->dev, g->pool, NULL);
	vkDestroyDevice(g->dev, NULL);
	g->dev = VK_NULL_HANDLE;
}

/* ---- mvgal: buffers and sessions ---- */

static int buffers_create(struct app *a)
{
	const uint32_t flags = MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID | MVGAL_BO_SHARED;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t *cpu, i;
	int ret;

	ret = mvgal_bo_create(a->m, N * 4ull, flags, a->gpu[0].slot, &a->buf);
	if (ret)
		return mv_fail("creating buf", ret);
	ret = mvgal_bo_create(a->m, M * 4ull, flags, a->gpu[1].slot, &a->out);
	if (ret)
		return mv_fail("creating out", ret);
	ret = mvgal_bo_map(a->m, a->buf, (void **)&cpu);
	if (ret)
		return mv_fail("mapping buf", ret);
	for (i = 0; i < N; i++)
		cpu[i] = pattern(i);
	/* Done with the mapping: a CPU write during a session is a hand-off. */
	munmap(cpu, (N * 4ul + page - 1) / page * page);
	say("buf: %u words (%u bytes) written by the CPU, for GPU %c; out: %u words, for GPU %c\n",
	    N, N * 4, a->gpu[0].name, M, a->gpu[1].name);
	return 0;
}

static const char *access_name(uint32_t flags)
{
	return flags & MVGAL_ACCESS_WRITE ? "WRITE" : "READ";
}

/* Begins session @s on its whole buffer, on its GPU's own pool. */
static int sess_begin(struct app *a, struct sess *s)
{
	struct drm_mvgal_access acc = { .handle = s->handle };	/* 0 ranges: all of it */
	char what[96];
	int ret;

	ret = mvgal_begin(a->m, s->g->slot, s->flags | MVGAL_ACCESS_NO_IN_PLACE,
			  MVGAL_PRIO_NORMAL, -1, &acc, 1, &s->id, &s->fence, &s->copied);
	if (ret) {
		snprintf(what, sizeof(what), "BEGIN %s of %s on GPU %c", access_name(s->flags),
			 s->what, s->g->name);
		return mv_fail(what, ret);
	}
	s->live = true;
	s->pool_gpu = acc.pool_gpu;
	say("GPU %c: BEGIN %s of %s: %llu bytes to copy into its pool, %s\n", s->g->name,
	    access_name(s->flags), s->what, (unsigned long long)s->copied,
	    s->fence < 0 ? "nothing to wait for" : "a fence to wait for");
	return 0;
}

/*
 * The dma-buf the session's GPU must use: the placement export *@fd
 * where the bytes are in its own pool (the rule with NO_IN_PLACE); the
 * buffer's own dma-buf where the session uses the buffer's pages in place
 * (MVGAL_POOL_HOST: refused chunks, buffers made with MVGAL_BO_DMA_BUF).
 */
static int sess_dmabuf(struct app *a, const struct sess *s, int *fd, uint64_t *size)
{
	off_t end;
	int ret;

	if (s->pool_gpu == s->g->slot)
		return 0;
	if (s->pool_gpu != MVGAL_POOL_HOST) {
		fprintf(stderr, "mvgal-vulkan: BEGIN put %s in mvgal GPU %u's pool, not GPU %c's (%u), despite MVGAL_ACCESS_NO_IN_PLACE\n",
			s->what, s->pool_gpu, s->g->name, s->g->slot);
		return -1;
	}
	say("GPU %c: the session uses %s's own pages (MVGAL_POOL_HOST): importing its dma-buf\n",
	    s->g->name, s->what);
	close_fd(fd);
	ret = mvgal_bo_export(a->m, s->handle, fd);
	if (ret)
		return mv_fail("exporting the buffer (it needs MVGAL_BO_DMA_BUF and a sharing mode)",
			       ret);
	end = lseek(*fd, 0, SEEK_END);
	if (end < 0)
		return mv_fail("sizing the buffer's dma-buf", -errno);
	*size = (uint64_t)end;
	return 0;
}

static int sess_end(struct app *a, struct sess *s, int fence)
{
	char what[64];
	int ret;

	ret = mvgal_end(a->m, s->id, fence, NULL, 0);
	if (ret) {
		snprintf(what, sizeof(what), "END of %s on GPU %c", s->what, s->g->name);
		return mv_fail(what, ret);
	}
	s->live = false;
	return 0;
}

/*
 * A placement export of the session's buffer in its GPU's pool. It stays
 * valid across sessions: while it lives the placement stays put, and each
 * session on the GPU makes the chunks current there again.
 */
static int place_export(struct app *a, const struct sess *s, int *fd, uint64_t *size)
{
	const struct gpu *g = s->g;
	char what[64];
	int ret;

	ret = mvgal_place_fd(a->m, s->handle, g->slot, MVGAL_PLACE_FD_RDWR, fd, size);
	if (ret) {
		snprintf(what, sizeof(what), "placement export of %s in GPU %c's pool",
			 s->what, g->name);
		return mv_fail(what, ret);
	}
	return 0;
}

/* A placement export of the session's buffer in its GPU's pool, and the session. */
static int export_and_begin(struct app *a, struct sess *s, int *fd, uint64_t *size)
{
	if (place_export(a, s, fd, size) || sess_begin(a, s))
		return -1;
	return sess_dmabuf(a, s, fd, size);
}

/* ---- the two GPUs' work ---- */

/* GPU A: buf[i] = buf[i] * 3 + i, in a WRITE session of buf. */
static int gpu_a_transform(struct app *a)
{
	struct step *s = &a->step[0];
	struct sess *w = &a->sess[0];
	int fd = -1, fence = -1, ret = -1;
	uint64_t size;

	s->gpu = &a->gpu[0];
	s->nbuf = 1;
	*w = (struct sess) {
		.what = "buf", .handle = a->buf, .g = s->gpu,
		.flags = MVGAL_ACCESS_WRITE, .fence = -1,
	};
	if (step_pipeline(s, mvgal_transform_spv, sizeof(mvgal_transform_spv)) ||
	    export_and_begin(a, w, &fd, &size) ||
	    import_dmabuf(s->gpu, fd, size, N * 4ull, &s->in[0]) ||
	    step_wait(s, &w->fence) ||
	    step_record(s, N, M) ||
	    step_submit(s, &fence) ||
	    sess_end(a, w, fence))
		goto out;
	ret = 0;
out:
	close_fd(&fd);
	close_fd(&fence);
	return ret;
}

/* GPU B: out[j] = sum of buf[64 j + k], in a READ session of buf and a WRITE one of out. */
static int gpu_b_reduce(struct app *a)
{
	struct step *s = &a->step[1];
	struct sess *r = &a->sess[1], *w = &a->sess[2];
	int fd[2] = { -1, -1 }, fence = -1, ret = -1;
	uint64_t size[2];

	s->gpu = &a->gpu[1];
	s->nbuf = 2;
	*r = (struct sess) {
		.what = "buf", .handle = a->buf, .g = s->gpu,
		.flags = MVGAL_ACCESS_READ, .fence = -1,
	};
	*w = (struct sess) {
		.what = "out", .handle = a->out, .g = s->gpu,
		.flags = MVGAL_ACCESS_WRITE, .fence = -1,
	};
	if (step_pipeline(s, mvgal_reduce_spv, sizeof(mvgal_reduce_spv)) ||
	    export_and_begin(a, r, &fd[0], &size[0]) ||
	    export_and_begin(a, w, &fd[1], &size[1]) ||
	    import_dmabuf(s->gpu, fd[0], size[0], N * 4ull, &s->in[0]) ||
	    import_dmabuf(s->gpu, fd[1], size[1], M * 4ull, &s->in[1]) ||
	    step_wait(s, &r->fence) ||
	    step_wait(s, &w->fence) ||
	    step_record(s, N, M) ||
	    step_submit(s, &fence))
		goto out;
	/* END takes a reference to the fence, not the fd: one fd serves both. */
	if (sess_end(a, r, fence) || sess_end(a, w, fence))
		goto out;
	ret = 0;
out:
	close_fd(&fd[0]);
	close_fd(&fd[1]);
	close_fd(&fence);
	return ret;
}

/* ---- checks and report ---- */

static int check(struct app *a, const char *what, uint32_t handle, const uint32_t *want,
		 uint32_t n)
{
	long bad;
	int ret;

	ret = mvgal_bo_read(a->m, handle, 0, a->got, n * 4ull);
	if (ret)
		return mv_fail("reading back through mvgal", ret);
	bad = first_mismatch(a->got, want, n);
	if (bad >= 0) {
		fprintf(stderr, "mvgal-vulkan: %s[%ld] is 0x%08x, expected 0x%08x\n",
			what, bad, a->got[bad], want[bad]);
		return -1;
	}
	say("CPU: all %u words of %s are right\n", n, what);
	return 0;
}

static void show_bo(struct app *a, const char *what, uint32_t handle)
{
	const unsigned int la = 1 + a->gpu[0].slot, lb = 1 + a->gpu[1].slot;
	struct drm_mvgal_bo_info i;
	int ret;

	ret = mvgal_bo_info(a->m, handle, &i);
	if (ret) {
		mv_fail("buffer statistics", ret);
		return;
	}
	printf("  %s: allocated host %llu, GPU %c %llu, GPU %c %llu bytes; current at host %llu, GPU %c %llu, GPU %c %llu bytes\n",
	       what, (unsigned long long)i.resident[MVGAL_LOC_HOST],
	       a->gpu[0].name, (unsigned long long)i.resident[la],
	       a->gpu[1].name, (unsigned long long)i.resident[lb],
	       (unsigned long long)i.valid[MVGAL_LOC_HOST],
	       a->gpu[0].name, (unsigned long long)i.valid[la],
	       a->gpu[1].name, (unsigned long long)i.valid[lb]);
}

/* ---- setup and teardown ---- */

/* The capability bits now (they follow the attached GPUs); 0 on error. */
static uint64_t caps_of(struct mvgal *m)
{
	struct mvgal_info mi;

	return mvgal_get_info(m, &mi) ? 0 : mi.caps;
}

static int mvgal_setup(struct app *a)
{
	struct mvgal_info mi;
	int n, ret;

	ret = mvgal_open(&a->m);
	if (ret)
		return mv_fail("mvgal_open (is the module loaded?)", ret);
	ret = mvgal_get_info(a->m, &mi);
	if (ret)
		return mv_fail("mvgal_get_info", ret);
	/* PLACE_FD is there only once a GPU whose pool can export is. */
	if (!(mi.caps & MVGAL_CAP_SESSIONS) ||
	    !(mi.core_flags & MVGAL_CORE_DMABUF)) {
		printf("mvgal-vulkan: skipped: the module %s\n",
		       !(mi.caps & MVGAL_CAP_SESSIONS) ? "has no sessions" :
		       "has enable_dmabuf off");
		return SKIP;
	}
	n = mvgal_gpu_list(a->m, a->gpus, MVGAL_MAX_GPUS);
	if (n < 0)
		return mv_fail("listing GPUs", n);
	if (n < 2) {
		printf("mvgal-vulkan: skipped: %d GPU(s) attached, two needed (attach them first: mvgal-info --attach)\n",
		       n);
		return SKIP;
	}
	if (!(caps_of(a->m) & MVGAL_CAP_PLACE_FD)) {
		printf("mvgal-vulkan: skipped: no attached GPU's pool can export placements\n");
		return SKIP;
	}
	a->ngpus = n;
	return 0;
}

/*
 * Does a placement export of GPU @slot's pool map into a process? Its
 * mmap is the pool driver's at the export's offset: 1 if it maps, 0 if
 * not (*@why: -ENODEV where the driver's fault ignores the offset, the
 * GEM shmem helpers'), or -1 on another failure.
 */
static int export_maps(struct mvgal *m, uint32_t slot, int *why)
{
	uint32_t h;
	uint64_t size;
	void *va;
	int fd, ret;

	ret = mvgal_bo_create(m, 4096, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID |
			      MVGAL_BO_SHARED, slot, &h);
	if (ret)
		return mv_fail("a buffer to try an export with", ret);
	ret = mvgal_place_fd(m, h, slot, MVGAL_PLACE_FD_RDWR, &fd, &size);
	if (ret) {
		mvgal_bo_destroy(m, h);
		*why = ret;
		return 0;
	}
	va = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	*why = va == MAP_FAILED ? -errno : 0;
	if (va != MAP_FAILED)
		munmap(va, size);
	close(fd);
	mvgal_bo_destroy(m, h);
	return va != MAP_FAILED;
}

/*
 * A and B: the first two attached GPUs that have a Vulkan device (their
 * own, or a CPU device standing in) able to import their placement
 * exports. A CPU device imports a dma-buf by mapping it, so a GPU it
 * stands in for needs exports that map (export_maps()). 0, SKIP if
 * fewer than two qualify, or -1.
 */
static int gpus_choose(struct app *a)
{
	int i, k = 0, why, ret;

	for (i = 0; i < a->ngpus && k < 2; i++) {
		struct gpu *g = &a->gpu[k];

		memset(g, 0, sizeof(*g));
		g->name = "AB"[k];
		g->slot = a->gpus[i];
		ret = mvgal_gpu_info(a->m, g->slot, &g->info);
		if (ret)
			return mv_fail("mvgal_gpu_info", ret);
		if (gpu_pick(a->inst, g))
			return -1;
		if (g->stand_in) {
			ret = export_maps(a->m, g->slot, &why);
			if (ret < 0)
				return -1;
			if (!ret) {
				say("        passed over: a CPU device imports a dma-buf by mapping it, and mvgal GPU %u's\n"
				    "        placement exports do not map (%s: its driver maps no offset into its buffers)\n",
				    g->slot, strerror(-why));
				continue;
			}
		}
		k++;
	}
	if (k < 2) {
		printf("mvgal-vulkan: skipped: %d of %d attached GPU(s) have a Vulkan device that imports their placement exports, two needed\n",
		       k, a->ngpus);
		return SKIP;
	}
	return 0;
}

static int vulkan_setup(struct app *a)
{
	int i, ret;

	if (instance_create(&a->inst))
		return -1;
	ret = gpus_choose(a);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++)
		if (gpu_open(&a->gpu[i]))
			return -1;
	return 0;
}

static void teardown(struct app *a)
{
	int i;

	/* Nothing may still run on the memory, nor wait for a session. */
	for (i = 0; i < 2; i++)
		if (a->gpu[i].dev)
			vkDeviceWaitIdle(a->gpu[i].dev);
	for (i = 0; i < 3; i++) {
		if (a->sess[i].live)
			sess_end(a, &a->sess[i], -1);
		close_fd(&a->sess[i].fence);
	}
	for (i = 0; i < 2; i++)
		step_release(&a->step[i]);
	for (i = 0; i < 2; i++)
		gpu_release(&a->gpu[i]);
	if (a->inst)
		vkDestroyInstance(a->inst, NULL);
	if (a->buf)
		mvgal_bo_destroy(a->m, a->buf);
	if (a->out)
		mvgal_bo_destroy(a->m, a->out);
	mvgal_close(a->m);
	free(a->want_buf);
	free(a->want_out);
	free(a->got);
}

static int run(struct app *a)
{
	int ret;

	ret = mvgal_setup(a);
	if (ret)
		return ret;
	a->want_buf = malloc(N * sizeof(uint32_t));
	a->want_out = malloc(M * sizeof(uint32_t));
	a->got = malloc(N * sizeof(uint32_t));
	if (!a->want_buf || !a->want_out || !a->got)
		return mv_fail("malloc", -ENOMEM);
	expect(a->want_buf, a->want_out);
	ret = vulkan_setup(a);
	if (ret)
		return ret;
	if (buffers_create(a) || gpu_a_transform(a) || gpu_b_reduce(a))
		return -1;
	printf("after the GPUs:\n");
	show_bo(a, "buf", a->buf);
	show_bo(a, "out", a->out);
	if (check(a, "buf", a->buf, a->want_buf, N) || check(a, "out", a->out, a->want_out, M))
		return -1;
	printf("after the CPU's reads:\n");
	show_bo(a, "buf", a->buf);
	show_bo(a, "out", a->out);
	printf("mvgal-vulkan: OK, GPU %c (mvgal GPU %u, %s%s) transformed %u words in its pool, GPU %c (mvgal GPU %u, %s%s) reduced them to %u, %s; every word checked\n",
	       a->gpu[0].name, a->gpu[0].slot, a->gpu[0].info.driver,
	       a->gpu[0].stand_in ? ", CPU stand-in" : "", N,
	       a->gpu[1].name, a->gpu[1].slot, a->gpu[1].info.driver,
	       a->gpu[1].stand_in ? ", CPU stand-in" : "", M,
	       a->gpu[0].cpu_waited || a->gpu[1].cpu_waited ?
	       "the CPU waiting for fences (no SYNC_FD)" : "ordered by SYNC_FD fences only");
	return 0;
}

int main(void)
{
	struct app a = { 0 };
	int i, ret;

	for (i = 0; i < 3; i++)
		a.sess[i].fence = -1;
	ret = run(&a);
	teardown(&a);
	if (ret == SKIP)
		return SKIP;
	return ret ? 1 : 0;
}
