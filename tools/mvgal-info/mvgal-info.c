// SPDX-License-Identifier: MIT
/*
 * mvgal-info: what the mvgal module and its configuration say.
 *
 * Exit codes: 0 success, 1 error, 2 bad usage, 3 the module is not loaded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mvgal/mvgal.h>

#define EXIT_USAGE	2
#define EXIT_NO_MODULE	3

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mvgal-info [--json] [--config PATH] [--attach] [--buffers]\n"
		"Show the mvgal driver, its ABI, capabilities, settings, GPUs, the unified\n"
		"heap and how every GPU reaches every other's pool.\n"
		"\n"
		"  -b, --buffers      also list the caller's buffers (its user's; all for root)\n"
		"  -a, --attach       first attach every GPU the config's [dri] device_pattern\n"
		"                     names that is not attached yet (needs root)\n"
		"  -j, --json         print one JSON object instead of text\n"
		"  -c, --config PATH  read PATH instead of $MVGAL_CONFIG or %s\n"
		"  -h, --help         show this help\n"
		"\n"
		"Exit status: 0 ok, 1 error, 2 bad usage, 3 mvgal module not loaded.\n",
		MVGAL_CONFIG_PATH);
}

/* Writes @s as a JSON string: quotes, backslashes and control bytes escaped. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static const char *yesno(bool b)
{
	return b ? "true" : "false";
}

struct report {
	struct mvgal *dev;
	const char *node;
	struct mvgal_info info;
	unsigned int nr_gpus;
	uint32_t gpus[MVGAL_MAX_GPUS];
	struct drm_mvgal_gpu_info gi[MVGAL_MAX_GPUS];
	uint32_t nr_regions, nr_nodes;
	struct drm_mvgal_heap_region regions[MVGAL_MAX_GPUS + 1];
	struct drm_mvgal_heap_region nodes[64];
	bool want_buffers;
	uint32_t nr_bos;
	struct drm_mvgal_bo_entry *bos;
	const char *cfg_path;
	const char *cfg_status;	/* "loaded" or "defaults (file not found)" */
	struct mvgal_config cfg;
};

static void print_text_buffers(const struct report *r);
static void print_json_buffers(const struct report *r);

static const char *state_name(uint32_t s)
{
	return s == MVGAL_GPU_ACTIVE ? "active" : "idle";
}

static void numa_text(char *buf, size_t len, uint32_t node)
{
	if (node == MVGAL_NUMA_NONE)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%u", node);
}

static double mib(uint64_t b)
{
	return (double)b / (1 << 20);
}

static void print_text_gpus(const struct report *r)
{
	unsigned int i, j;

	printf("GPUs (%u attached)\n", r->nr_gpus);
	for (i = 0; i < r->nr_gpus; i++) {
		const struct drm_mvgal_gpu_info *g = &r->gi[i];
		char node[16];

		numa_text(node, sizeof(node), g->numa_node);
		printf("  GPU %u: %s", g->gpu, g->driver);
		if (g->bus == MVGAL_BUS_PCI)
			printf(" [%04x:%04x subsys %04x:%04x] PCI %s under %s",
			       g->pci_vendor, g->pci_device, g->pci_subvendor,
			       g->pci_subdevice, g->slot, g->root);
		else
			printf(" platform device %s", g->slot);
		printf(", NUMA node %s\n", node);
		printf("         pool %.1f MiB: %.1f MiB used, %.1f MiB free, %llu allocations; %s (%llu state changes)\n",
		       mib(g->pool_size), mib(g->pool_used),
		       mib(g->pool_size - g->pool_used),
		       (unsigned long long)g->pool_allocations, state_name(g->state),
		       (unsigned long long)g->state_changes);
	}
	printf("unified heap\n");
	for (i = 0; i < r->nr_regions && i < MVGAL_MAX_GPUS + 1; i++) {
		const struct drm_mvgal_heap_region *h = &r->regions[i];

		if (h->kind == MVGAL_REGION_SYSTEM)
			printf("  region %u: system RAM   total %10.1f MiB  used %10.1f MiB  free %10.1f MiB\n",
			       i, mib(h->total), mib(h->used), mib(h->free));
		else
			printf("  region %u: GPU %u pool   total %10.1f MiB  used %10.1f MiB  free %10.1f MiB  largest free %.1f MiB\n",
			       i, h->gpu, mib(h->total), mib(h->used), mib(h->free),
			       mib(h->largest_free));
	}
	for (i = 0; i < r->nr_nodes && i < 64; i++)
		printf("  NUMA node %u RAM  total %10.1f MiB  used %10.1f MiB  free %10.1f MiB\n",
		       r->nodes[i].numa_node, mib(r->nodes[i].total),
		       mib(r->nodes[i].used), mib(r->nodes[i].free));
	if (r->nr_gpus < 2)
		return;
	printf("paths (data in the source's pool, needed by the destination)\n");
	for (i = 0; i < r->nr_gpus; i++) {
		for (j = 0; j < r->nr_gpus; j++) {
			struct drm_mvgal_gpu_link l;
			unsigned int m;

			if (i == j || mvgal_gpu_link(r->dev, r->gpus[i], r->gpus[j], &l))
				continue;
			printf("  GPU %u -> GPU %u: %s, because %s%s%s\n", r->gpus[i],
			       r->gpus[j], mvgal_method_name(l.chosen),
			       mvgal_why_text(l.why),
			       l.link_flags & MVGAL_LINK_SAME_ROOT ? "; same root complex" : "",
			       l.link_flags & MVGAL_LINK_SAME_NUMA ? "; same NUMA node" : "");
			for (m = 0; m < MVGAL_METHOD_COUNT; m++) {
				if (l.methods & (1U << m))
					continue;
				printf("      no %s: %s", mvgal_method_name(m),
				       mvgal_reason_text(l.reasons[m]));
				if (m == MVGAL_METHOD_IN_PLACE && l.import_error)
					printf(" (%s)", strerror((int)l.import_error));
				printf("\n");
			}
		}
	}
}

static void print_text(const struct report *r)
{
	const struct mvgal_info *i = &r->info;
	const struct mvgal_config *c = &r->cfg;
	unsigned int g;
	int bit;

	printf("mvgal driver %s on %s\n", i->driver_version, r->node);
	printf("  ABI version:    %u (library built for %u)\n", i->abi_version,
	       MVGAL_ABI_VERSION);
	printf("  capabilities:  ");
	for (bit = 0; bit < 64; bit++) {
		const char *name;

		if (!(i->caps & (1ULL << bit)))
			continue;
		name = mvgal_cap_name(1ULL << bit);
		if (name)
			printf(" %s", name);
		else
			printf(" bit%d", bit);
	}
	printf("%s\n", i->caps ? "" : " none");
	printf("  chunk size:     %u bytes\n", i->chunk_size);
	printf("  GPUs attached:  %u of %u\n", i->gpu_count, i->max_gpus);
	printf("module settings ([core] in effect)\n");
	printf("  enable_memory_migration = %s\n",
	       yesno(i->core_flags & MVGAL_CORE_MEMORY_MIGRATION));
	printf("  enable_dmabuf = %s\n", yesno(i->core_flags & MVGAL_CORE_DMABUF));
	printf("  stats_interval = %u\n", i->stats_interval);
	printf("config %s: %s\n", r->cfg_path, r->cfg_status);
	printf("  [core] enable_memory_migration = %s\n",
	       yesno(c->enable_memory_migration));
	printf("  [core] enable_dmabuf = %s\n", yesno(c->enable_dmabuf));
	printf("  [core] stats_interval = %u\n", c->stats_interval);
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (c->memory_limit_mb[g])
			printf("  [gpu_%u] memory_limit_mb = %llu\n", g,
			       (unsigned long long)c->memory_limit_mb[g]);
	printf("  [gpu_N] memory_limit_mb = 0 for every GPU not listed (largest the driver grants)\n");
	printf("  [dri] device_pattern = %s\n", c->device_pattern);
	printf("  [dri] enable_prime = %s\n", yesno(c->enable_prime));
	print_text_gpus(r);
	if (r->want_buffers)
		print_text_buffers(r);
}

static void json_region(const struct drm_mvgal_heap_region *h)
{
	printf("{\"kind\":\"%s\",", h->kind == MVGAL_REGION_SYSTEM ? "system" :
	       h->kind == MVGAL_REGION_POOL ? "pool" : "node");
	if (h->gpu != MVGAL_GPU_ANY)
		printf("\"gpu\":%u,", h->gpu);
	if (h->numa_node != MVGAL_NUMA_NONE)
		printf("\"numa_node\":%u,", h->numa_node);
	else
		printf("\"numa_node\":null,");
	printf("\"total\":%llu,\"used\":%llu,\"free\":%llu",
	       (unsigned long long)h->total, (unsigned long long)h->used,
	       (unsigned long long)h->free);
	if (h->kind == MVGAL_REGION_POOL)
		printf(",\"largest_free\":%llu", (unsigned long long)h->largest_free);
	printf("}");
}

static void print_json_gpus(const struct report *r)
{
	unsigned int i, j, m;

	printf(",\"gpus\":[");
	for (i = 0; i < r->nr_gpus; i++) {
		const struct drm_mvgal_gpu_info *g = &r->gi[i];

		printf("%s{\"index\":%u,\"driver\":", i ? "," : "", g->gpu);
		json_str(g->driver);
		printf(",\"bus\":\"%s\",\"slot\":", g->bus == MVGAL_BUS_PCI ? "pci" : "platform");
		json_str(g->slot);
		printf(",\"root\":");
		json_str(g->root);
		printf(",\"pci_vendor\":%u,\"pci_device\":%u,\"pci_subvendor\":%u,\"pci_subdevice\":%u,",
		       g->pci_vendor, g->pci_device, g->pci_subvendor, g->pci_subdevice);
		if (g->numa_node == MVGAL_NUMA_NONE)
			printf("\"numa_node\":null,");
		else
			printf("\"numa_node\":%u,", g->numa_node);
		printf("\"pool\":{\"size\":%llu,\"used\":%llu,\"free\":%llu,\"allocations\":%llu},\"state\":\"%s\",\"state_changes\":%llu}",
		       (unsigned long long)g->pool_size, (unsigned long long)g->pool_used,
		       (unsigned long long)(g->pool_size - g->pool_used),
		       (unsigned long long)g->pool_allocations, state_name(g->state),
		       (unsigned long long)g->state_changes);
	}
	printf("],\"heap\":{\"regions\":[");
	for (i = 0; i < r->nr_regions && i < MVGAL_MAX_GPUS + 1; i++) {
		printf(i ? "," : "");
		json_region(&r->regions[i]);
	}
	printf("],\"nodes\":[");
	for (i = 0; i < r->nr_nodes && i < 64; i++) {
		printf(i ? "," : "");
		json_region(&r->nodes[i]);
	}
	printf("]},\"paths\":[");
	for (i = 0; i < r->nr_gpus; i++) {
		for (j = 0; j < r->nr_gpus; j++) {
			static const char *sep = "";
			struct drm_mvgal_gpu_link l;

			if (i == j || mvgal_gpu_link(r->dev, r->gpus[i], r->gpus[j], &l))
				continue;
			printf("%s{\"src\":%u,\"dst\":%u,\"method\":\"%s\",\"why\":", sep,
			       r->gpus[i], r->gpus[j], mvgal_method_name(l.chosen));
			sep = ",";
			json_str(mvgal_why_text(l.why));
			printf(",\"same_root\":%s,\"same_numa\":%s,\"dma_engine\":%s,\"import_error\":%u,\"methods\":{",
			       yesno(l.link_flags & MVGAL_LINK_SAME_ROOT),
			       yesno(l.link_flags & MVGAL_LINK_SAME_NUMA),
			       yesno(l.link_flags & MVGAL_LINK_DMA_ENGINE), l.import_error);
			for (m = 0; m < MVGAL_METHOD_COUNT; m++) {
				printf("%s\"%s\":{\"possible\":%s,\"reason\":", m ? "," : "",
				       mvgal_method_name(m), yesno(l.methods & (1U << m)));
				json_str(mvgal_reason_text(l.reasons[m]));
				printf("}");
			}
			printf("}}");
		}
	}
	printf("]");
}

static void print_json(const struct report *r)
{
	const struct mvgal_info *i = &r->info;
	const struct mvgal_config *c = &r->cfg;
	const char *sep = "";
	unsigned int g;
	int bit;

	printf("{\"driver\":{\"name\":\"mvgal\",\"version\":");
	json_str(i->driver_version);
	printf(",\"node\":");
	json_str(r->node);
	printf("},\"abi_version\":%u,\"library_abi_version\":%u,\"caps\":[",
	       i->abi_version, MVGAL_ABI_VERSION);
	for (bit = 0; bit < 64; bit++) {
		const char *name = mvgal_cap_name(1ULL << bit);
		char unknown[16];

		if (!(i->caps & (1ULL << bit)))
			continue;
		if (!name) {
			snprintf(unknown, sizeof(unknown), "bit%d", bit);
			name = unknown;
		}
		fputs(sep, stdout);
		json_str(name);
		sep = ",";
	}
	printf("],\"chunk_size\":%u,\"gpu_count\":%u,\"max_gpus\":%u,",
	       i->chunk_size, i->gpu_count, i->max_gpus);
	printf("\"module\":{\"enable_memory_migration\":%s,\"enable_dmabuf\":%s,\"stats_interval\":%u},",
	       yesno(i->core_flags & MVGAL_CORE_MEMORY_MIGRATION),
	       yesno(i->core_flags & MVGAL_CORE_DMABUF), i->stats_interval);
	printf("\"config\":{\"path\":");
	json_str(r->cfg_path);
	printf(",\"status\":");
	json_str(r->cfg_status);
	printf(",\"core\":{\"enable_memory_migration\":%s,\"enable_dmabuf\":%s,\"stats_interval\":%u},",
	       yesno(c->enable_memory_migration), yesno(c->enable_dmabuf),
	       c->stats_interval);
	printf("\"gpu\":[");
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		printf("%s{\"index\":%u,\"memory_limit_mb\":%llu}", g ? "," : "",
		       g, (unsigned long long)c->memory_limit_mb[g]);
	printf("],\"dri\":{\"device_pattern\":");
	json_str(c->device_pattern);
	printf(",\"enable_prime\":%s}}", yesno(c->enable_prime));
	print_json_gpus(r);
	if (r->want_buffers)
		print_json_buffers(r);
	printf("}\n");
}

static void attach_report(const char *path, int result, uint32_t gpu, void *ctx)
{
	if (!result)
		fprintf(stderr, "mvgal-info: %s attached as GPU %u\n", path, gpu);
	else if (result == -EEXIST)
		fprintf(stderr, "mvgal-info: %s is attached already\n", path);
	else
		fprintf(stderr, "mvgal-info: %s not attached: %s\n", path,
			strerror(-result));
}

static int gather(struct report *r)
{
	unsigned int i;
	int n;

	n = mvgal_gpu_list(r->dev, r->gpus, MVGAL_MAX_GPUS);
	if (n < 0)
		return n;
	r->nr_gpus = n > MVGAL_MAX_GPUS ? MVGAL_MAX_GPUS : n;
	for (i = 0; i < r->nr_gpus; i++) {
		int ret = mvgal_gpu_info(r->dev, r->gpus[i], &r->gi[i]);

		if (ret)
			return ret;
	}
	r->nr_regions = MVGAL_MAX_GPUS + 1;
	r->nr_nodes = 64;
	n = mvgal_get_heap(r->dev, r->regions, &r->nr_regions, r->nodes,
			   &r->nr_nodes);
	if (n || !r->want_buffers)
		return n;
	/* Buffers come and go: ask for the count, then for that many plus
	 * room for a few more.
	 */
	r->nr_bos = 0;
	n = mvgal_bo_list(r->dev, NULL, &r->nr_bos);
	if (n)
		return n;
	r->nr_bos += 16;
	r->bos = calloc(r->nr_bos, sizeof(*r->bos));
	if (!r->bos)
		return -ENOMEM;
	n = mvgal_bo_list(r->dev, r->bos, &r->nr_bos);
	return n;
}

static const char *sharing_name(uint32_t s)
{
	static const char *const names[MVGAL_SHARING_COUNT] = {
		"none", "exclusive", "concurrent", "cross-vendor", "dma-buf",
	};

	return s < MVGAL_SHARING_COUNT ? names[s] : "unknown";
}

static void flags_text(uint32_t f, char *buf, size_t len)
{
	static const char *const names[] = {
		"host", "gpu", "cached", "uncached", "shared", "dma-buf", "p2p",
		"replicated", "persistent", "lazy", "zero",
	};
	size_t at = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & (1U << i))
			at += snprintf(buf + at, at < len ? len - at : 0, "%s%s",
				       at ? "," : "", names[i]);
}

static void print_text_buffers(const struct report *r)
{
	uint32_t i, n = r->nr_bos;

	printf("buffers (%u)\n", n);
	for (i = 0; i < n; i++) {
		const struct drm_mvgal_bo_info *b = &r->bos[i].info;
		char flags[128], gpu[16];
		unsigned int l;

		flags_text(b->bo_flags, flags, sizeof(flags));
		if (b->gpu == MVGAL_GPU_ANY)
			snprintf(gpu, sizeof(gpu), "any");
		else
			snprintf(gpu, sizeof(gpu), "%u", b->gpu);
		printf("  buffer %llu (pid %u): %llu bytes, flags %s, GPU %s, sharing %s\n",
		       (unsigned long long)r->bos[i].id, r->bos[i].pid,
		       (unsigned long long)b->size, flags, gpu,
		       sharing_name(b->sharing));
		printf("      read %llu B, written %llu B, GPU accesses %llu",
		       (unsigned long long)b->bytes_read,
		       (unsigned long long)b->bytes_written,
		       (unsigned long long)b->access_total);
		for (l = 0; l < MVGAL_MAX_GPUS; l++)
			if (b->access_count[l])
				printf(" (GPU %u: %llu)", l,
				       (unsigned long long)b->access_count[l]);
		printf("; resident: host %llu B", (unsigned long long)b->resident[0]);
		for (l = 1; l < MVGAL_LOC_COUNT; l++)
			if (b->resident[l])
				printf(", GPU %u %llu B", l - 1,
				       (unsigned long long)b->resident[l]);
		printf("\n");
	}
}

static void print_json_buffers(const struct report *r)
{
	uint32_t i, l;

	printf(",\"buffers\":[");
	for (i = 0; i < r->nr_bos; i++) {
		const struct drm_mvgal_bo_info *b = &r->bos[i].info;

		printf("%s{\"id\":%llu,\"uid\":%u,\"pid\":%u,\"size\":%llu,\"flags\":%u,",
		       i ? "," : "", (unsigned long long)r->bos[i].id,
		       r->bos[i].uid, r->bos[i].pid,
		       (unsigned long long)b->size, b->bo_flags);
		if (b->gpu == MVGAL_GPU_ANY)
			printf("\"gpu\":null,");
		else
			printf("\"gpu\":%u,", b->gpu);
		printf("\"sharing\":\"%s\",\"bytes_read\":%llu,\"bytes_written\":%llu,\"access_total\":%llu,\"access_count\":[",
		       sharing_name(b->sharing), (unsigned long long)b->bytes_read,
		       (unsigned long long)b->bytes_written,
		       (unsigned long long)b->access_total);
		for (l = 0; l < MVGAL_MAX_GPUS; l++)
			printf("%s%llu", l ? "," : "",
			       (unsigned long long)b->access_count[l]);
		printf("],\"resident\":{\"host\":%llu,\"gpu\":[",
		       (unsigned long long)b->resident[0]);
		for (l = 1; l < MVGAL_LOC_COUNT; l++)
			printf("%s%llu", l > 1 ? "," : "",
			       (unsigned long long)b->resident[l]);
		printf("]}}");
	}
	printf("]");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "attach", no_argument, NULL, 'a' },
		{ "buffers", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { 0 };
	const char *cfg_path = NULL;
	struct mvgal *dev;
	char err[512];
	bool json = false, attach = false;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "abjc:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			r.want_buffers = true;
			break;
		case 'a':
			attach = true;
			break;
		case 'j':
			json = true;
			break;
		case 'c':
			cfg_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "mvgal-info: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}

	r.cfg_path = cfg_path ? cfg_path : mvgal_config_path();
	ret = mvgal_config_load(r.cfg_path, &r.cfg, err, sizeof(err));
	if (ret == -ENOENT && !cfg_path) {
		/* No file at the default place: every key has its default. */
		r.cfg_status = "defaults (file not found)";
	} else if (ret) {
		fprintf(stderr, "mvgal-info: %s\n", err);
		return 1;
	} else {
		r.cfg_status = "loaded";
	}

	ret = mvgal_open(&dev);
	if (ret == -ENODEV) {
		fprintf(stderr,
			"mvgal-info: the mvgal kernel module is not loaded (no DRM device named \"mvgal\"); load it with 'modprobe mvgal'\n");
		return EXIT_NO_MODULE;
	}
	if (ret) {
		fprintf(stderr, "mvgal-info: cannot open the mvgal device: %s\n",
			strerror(-ret));
		return 1;
	}
	r.dev = dev;
	if (attach) {
		ret = mvgal_attach_all(dev, &r.cfg, attach_report, NULL);
		if (ret < 0) {
			fprintf(stderr, "mvgal-info: attaching GPUs failed: %s\n",
				strerror(-ret));
			mvgal_close(dev);
			return 1;
		}
	}
	ret = mvgal_get_info(dev, &r.info);
	if (ret) {
		fprintf(stderr, "mvgal-info: GET_INFO failed: %s\n",
			strerror(-ret));
		mvgal_close(dev);
		return 1;
	}
	r.node = mvgal_node_path(dev);
	ret = gather(&r);
	if (ret) {
		fprintf(stderr, "mvgal-info: reading GPUs and heap failed: %s\n",
			strerror(-ret));
		mvgal_close(dev);
		return 1;
	}
	if (json)
		print_json(&r);
	else
		print_text(&r);
	free(r.bos);
	mvgal_close(dev);
	return fflush(stdout) ? 1 : 0;
}
