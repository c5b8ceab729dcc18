// SPDX-License-Identifier: MIT
/*
 * mvgal-info: what the mvgal module and its configuration say.
 *
 * Exit codes: 0 success, 1 error, 2 bad usage, 3 the module is not loaded.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#define EXIT_USAGE	2
#define EXIT_NO_MODULE	3

static void usage_watch(FILE *f);

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mvgal-info [--json] [--config PATH] [--attach] [--buffers]\n"
		"                  [--paths] [--stats]\n"
		"       mvgal-info --watch [SECONDS] [--count N] [--json] [--config PATH]\n"
		"                  [--attach]\n"
		"Show the mvgal driver, its ABI, capabilities, settings, GPUs, the unified\n"
		"heap, how every GPU reaches every other's pool and, when the module has the\n"
		"migration engine, its counters and the transfer paths between host memory\n"
		"and the GPUs' pools; or, with --watch, the rates of those counters live.\n"
		"\n"
		"  -b, --buffers      also list the caller's buffers (its user's; all for root)\n"
		"                     with their residency per location\n"
		"  -p, --paths        show only the transfer paths: for every ordered pair of\n"
		"                     host and GPUs the possible methods, the one chosen for\n"
		"                     64 KiB and for 64 MiB, and each method's calibrated\n"
		"                     latency and bandwidth ('-' if not measured)\n"
		"  -s, --stats        show only the migration engine's counters\n"
		"                     (without --paths or --stats both are part of the full\n"
		"                     report; either may be combined with the other and\n"
		"                     with --buffers)\n"
		"  -a, --attach       first attach every GPU the config's [dri] device_pattern\n"
		"                     names that is not attached yet (needs root)\n"
		"  -j, --json         print one JSON object instead of text (with --watch:\n"
		"                     one object per sample, one per line)\n"
		"  -c, --config PATH  read PATH instead of $MVGAL_CONFIG or %s\n"
		"  -w, --watch [SECONDS]\n"
		"                     a live view: every SECONDS (1..3600; default: the\n"
		"                     module's stats_interval) a sample of what happened\n"
		"                     since the previous one, computed from the differences\n"
		"                     between two reads of the module's counters; the first\n"
		"                     comes one interval after the start. On a terminal the\n"
		"                     screen is redrawn; otherwise each sample is one line of\n"
		"                     key=value fields (below). SIGINT or SIGTERM ends it\n"
		"                     (exit status 0). Not with --buffers, --paths, --stats.\n"
		"      --count N      with --watch: stop after N samples (default: never)\n"
		"  -h, --help         show this help\n"
		"\n",
		MVGAL_CONFIG_PATH);
	usage_watch(f);
	fprintf(f, "\nExit status: 0 ok, 1 error, 2 bad usage, 3 mvgal module not loaded.\n");
}

/* The --watch line format: a stable interface, documented here and in the
 * README.
 */
static void usage_watch(FILE *f)
{
	fputs(
		"--watch fields, in this order, separated by one space (\"-\" where there is\n"
		"no figure; the JSON object has the same figures, null for \"-\"):\n"
		"  sample=N                 1, 2, ... (JSON \"sample\", and likewise)\n"
		"  time=T                   when it was printed, seconds since the epoch\n"
		"  interval_s=S             SECONDS\n"
		"  elapsed_s=X              seconds between the two reads the rates come from\n"
		"  sessions_per_s=X         access sessions begun (BEGIN)\n"
		"  bytes_per_s_M=X          bytes per second by transfer method M: in_place\n"
		"                           (used where they lie, not copied), p2p, cpu_copy,\n"
		"                           staging (JSON \"bytes_per_s\": {\"in-place\": X,\n"
		"                           \"p2p\": X, \"cpu-copy\": X, \"staging\": X})\n"
		"  evictions_per_s=X        placements evicted, all pools (\"-\" when the\n"
		"                           module has no eviction capability)\n"
		"  cpu_faults_per_s=X       CPU faults that brought chunks home\n"
		"  prefetch_hits=N          prefetched placements a session then used, and\n"
		"  prefetch_misses=N        those evicted or freed unused, in the interval\n"
		"  prefetch_hit_rate=X      hits / (hits + misses), 0..1; \"-\" if both are 0\n"
		"                           (JSON \"prefetch\": {\"hits\", \"misses\", \"hit_rate\"})\n"
		"  gpus=N                   GPUs attached; then for each, by slot G:\n"
		"  gpuG_state=S             idle or active\n"
		"  gpuG_pool_used=B         bytes allocated in its pool\n"
		"  gpuG_pool_size=B         bytes it lent\n"
		"  gpuG_budget=B            bytes of the pool mvgal may use (\"-\": no eviction)\n"
		"  gpuG_evictions_per_s=X   evictions from its pool (\"-\" also on the first\n"
		"                           sample after the GPU was attached)\n"
		"  (JSON \"gpus\": [{\"index\": G, \"state\", \"pool_used\", \"pool_size\",\n"
		"  \"budget\", \"evictions_per_s\"}]. X: a decimal number; N, T, S, B: integers)\n",
		f);
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

/* Sizes the transfer paths are shown for. */
#define PATH_SMALL	(64ULL << 10)
#define PATH_LARGE	(64ULL << 20)

/* One ordered pair of locations (MVGAL_LOC_*) and its paths by size. */
struct loc_path {
	uint32_t src, dst;
	struct drm_mvgal_path small, large;
};

/* Placements listed per pool; the count says how many there are. */
#define LRU_SHOWN 32

struct report {
	struct mvgal *dev;
	const char *node;
	struct mvgal_info info;
	unsigned int nr_gpus;
	uint32_t gpus[MVGAL_MAX_GPUS];
	struct drm_mvgal_gpu_info gi[MVGAL_MAX_GPUS];
	/* MVGAL_CAP_EVICTION: each pool's eviction order and counters. */
	bool eviction;
	struct drm_mvgal_pool_lru lru[MVGAL_MAX_GPUS];
	struct drm_mvgal_lru_entry order[MVGAL_MAX_GPUS][LRU_SHOWN];
	uint32_t nr_regions, nr_nodes;
	struct drm_mvgal_heap_region regions[MVGAL_MAX_GPUS + 1];
	struct drm_mvgal_heap_region nodes[64];
	bool want_buffers;
	bool want_paths;	/* --paths: only the sections asked for */
	bool want_stats;	/* --stats: likewise */
	bool migration;		/* MVGAL_CAP_STATS (or MIGRATION): stats, paths */
	bool sessions;		/* MVGAL_CAP_SESSIONS: buffer residency */
	bool watch;		/* MVGAL_CAP_WRITE_WATCH: CPU writes */
	struct drm_mvgal_stats stats;
	unsigned int nr_paths;
	struct loc_path paths[MVGAL_LOC_COUNT * (MVGAL_LOC_COUNT - 1)];
	uint32_t nr_bos;
	struct drm_mvgal_bo_entry *bos;
	const char *cfg_path;
	const char *cfg_status;	/* "loaded" or "defaults (file not found)" */
	struct mvgal_config cfg;
};

static void print_text_buffers(const struct report *r);
static void print_json_buffers(const struct report *r, bool *first);

/* The full report, or only the sections --paths / --stats asked for. */
static bool full_report(const struct report *r)
{
	return !r->want_paths && !r->want_stats;
}

static bool show_stats(const struct report *r)
{
	return r->migration && (full_report(r) || r->want_stats);
}

static bool show_paths(const struct report *r)
{
	return r->migration && (full_report(r) || r->want_paths);
}

/* "host" for MVGAL_LOC_HOST, "gpu<N>" for location 1 + N. */
static const char *loc_name(uint32_t loc, char *buf, size_t len)
{
	if (loc == MVGAL_LOC_HOST)
		snprintf(buf, len, "host");
	else
		snprintf(buf, len, "gpu%u", loc - 1);
	return buf;
}

/* Writes the key of a JSON member, with a comma unless it is the first. */
static void json_key(bool *first, const char *key)
{
	printf("%s\"%s\":", *first ? "" : ",", key);
	*first = false;
}

static const char *pool_memory_name(uint32_t memory)
{
	switch (memory) {
	case MVGAL_POOL_MEMORY_SYSTEM:
		return "system";
	case MVGAL_POOL_MEMORY_DEVICE:
		return "device";
	case MVGAL_POOL_MEMORY_UNMAPPED:
		return "unmapped";
	default:
		return "unknown";
	}
}

/*
 * Where a pool is, said plainly: what came of the attach, not what was
 * asked (GPU_INFO's pool_memory and pool_flags, or a GET_HEAP region's).
 */
static const char *pool_where_text(uint32_t memory, uint32_t flags,
				   uint64_t moves)
{
	static char buf[192];
	bool p2p = flags & MVGAL_POOL_PEER2PEER;
	bool movable = flags & MVGAL_POOL_MOVABLE;

	switch (memory) {
	case MVGAL_POOL_MEMORY_DEVICE:
		snprintf(buf, sizeof(buf), "device memory behind a PCI BAR (I/O memory: CPU reads are slow, no PLACE_FD)%s%s",
			 p2p ? ", peer-to-peer" : "",
			 movable ? ", its driver may move it" : ", pinned");
		break;
	case MVGAL_POOL_MEMORY_SYSTEM:
		snprintf(buf, sizeof(buf), "system RAM%s%s",
			 p2p ? " (peer-to-peer granted)" : " (without peer-to-peer: where the driver put or moved it to share it)",
			 movable ? ", its driver may move it" : "");
		break;
	case MVGAL_POOL_MEMORY_UNMAPPED:
		snprintf(buf, sizeof(buf), "moved by its driver, not mapped again");
		break;
	default:
		snprintf(buf, sizeof(buf), "unknown (an older kernel module)");
		break;
	}
	if (moves)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "; moved %llu times",
			 (unsigned long long)moves);
	return buf;
}

static const char *pool_memory_text(const struct drm_mvgal_gpu_info *g)
{
	return pool_where_text(g->pool_memory, g->pool_flags, g->pool_moves);
}

static const char *state_name(uint32_t s)
{
	return s == MVGAL_GPU_GONE ? "gone" :
	       s == MVGAL_GPU_ACTIVE ? "active" : "idle";
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

static const char *policy_name(uint32_t p)
{
	return p == MVGAL_EVICT_POLICY_LRU ? "lru" : "predict";
}

/* Budget, eviction counters and order of GPU @i's pool. */
static void print_text_eviction(const struct report *r, unsigned int i)
{
	const struct drm_mvgal_pool_lru *l = &r->lru[i];
	uint32_t k;

	printf("         budget %.1f MiB; %llu evictions (%.1f MiB, %.1f MiB written back first), %llu requests refused\n",
	       mib(l->budget), (unsigned long long)l->evictions,
	       mib(l->evicted_bytes), mib(l->written_back),
	       (unsigned long long)l->refusals);
	printf("         eviction order (%s, first to go first):", policy_name(l->policy));
	if (!l->count)
		printf(" empty");
	for (k = 0; k < l->count && k < LRU_SHOWN; k++) {
		const struct drm_mvgal_lru_entry *e = &r->order[i][k];

		printf("%s buffer %llu (%.1f MiB, last use %llu, ", k ? "," : "",
		       (unsigned long long)e->bo_id, mib(e->bytes),
		       (unsigned long long)e->last_use);
		if (e->ahead == MVGAL_LRU_NEVER)
			printf("no reuse seen");
		else
			printf("next use in %llu", (unsigned long long)e->ahead);
		printf("%s%s%s)", e->flags & MVGAL_LRU_PERSISTENT ? ", persistent" : "",
		       e->flags & MVGAL_LRU_LIVE ? ", live" : "",
		       e->flags & MVGAL_LRU_BUSY ? ", busy" : "");
	}
	if (l->count > LRU_SHOWN)
		printf(", ... (%u in all)", l->count);
	printf("\n");
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
		printf("         pool memory: %s\n", pool_memory_text(g));
		if (r->eviction)
			print_text_eviction(r, i);
	}
	printf("unified heap\n");
	for (i = 0; i < r->nr_regions && i < MVGAL_MAX_GPUS + 1; i++) {
		const struct drm_mvgal_heap_region *h = &r->regions[i];

		if (h->kind == MVGAL_REGION_SYSTEM)
			printf("  region %u: system RAM   total %10.1f MiB  used %10.1f MiB  free %10.1f MiB\n",
			       i, mib(h->total), mib(h->used), mib(h->free));
		else
			printf("  region %u: GPU %u pool   total %10.1f MiB  used %10.1f MiB  free %10.1f MiB  largest free %.1f MiB\n"
			       "            in %s\n",
			       i, h->gpu, mib(h->total), mib(h->used), mib(h->free),
			       mib(h->largest_free),
			       pool_where_text(h->memory, h->pool_flags, 0));
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

static void print_text_module(const struct report *r)
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
	for (g = 0; g < MVGAL_MAX_GPUS && c->gpu_named[g].name[0]; g++)
		printf("  [gpu:%s] memory_limit_mb = %llu\n", c->gpu_named[g].name,
		       (unsigned long long)c->gpu_named[g].memory_limit_mb);
	printf("  [gpu_N] memory_limit_mb = 0 for every GPU not listed (largest the driver grants)\n");
	printf("  [dri] device_pattern = %s\n", c->device_pattern);
	printf("  [dri] enable_prime = %s\n", yesno(c->enable_prime));
	printf("  [policy] evict_policy = %u (%s), prefetch = %s\n",
	       c->evict_policy, policy_name(c->evict_policy), yesno(c->prefetch));
	printf("  [policy] graphics_replicate_mb = %u\n", c->graphics_replicate_mb);
	printf("  [policy] mirror_window_ms = %u, mirror_start_reads = %u, mirror_stop_writes = %u, mirror_hold_windows = %u\n",
	       c->mirror_window_ms, c->mirror_start_reads,
	       c->mirror_stop_writes, c->mirror_hold_windows);
	print_text_gpus(r);
}

static void print_text_stats(const struct report *r)
{
	const struct drm_mvgal_stats *s = &r->stats;
	unsigned int m, p;

	printf("migration statistics (since load)\n");
	printf("  jobs:         %llu scheduled, %llu completed, %llu failed, %llu cancelled; queue depth %llu\n",
	       (unsigned long long)s->scheduled,
	       (unsigned long long)s->completed,
	       (unsigned long long)s->failed,
	       (unsigned long long)s->cancelled,
	       (unsigned long long)s->queue_depth);
	printf("  by priority: ");
	for (p = 0; p < MVGAL_PRIO_COUNT; p++)
		printf("%s %s %llu", p ? "," : "", mvgal_prio_name(p),
		       (unsigned long long)s->jobs[p]);
	printf("\n");
	for (m = 0; m < MVGAL_METHOD_COUNT; m++) {
		char label[16];

		snprintf(label, sizeof(label), "%s:", mvgal_method_name(m));
		printf("  %-13s %llu bytes in %llu chunk copies\n", label,
		       (unsigned long long)s->bytes[m],
		       (unsigned long long)s->copies[m]);
	}
	printf("  sessions:     %llu begun, %llu refused busy (begins and CPU accesses)\n",
	       (unsigned long long)s->sessions, (unsigned long long)s->busy);
	printf("  CPU faults:   %llu (chunks brought home)\n",
	       (unsigned long long)s->cpu_faults);
	printf("  drained:      %llu bytes (copied home by frees and detaches)\n",
	       (unsigned long long)s->drained);
	printf("  prefetch:     %llu issued, %llu hits, %llu misses, %llu cancelled\n",
	       (unsigned long long)s->prefetch_issued,
	       (unsigned long long)s->prefetch_hits,
	       (unsigned long long)s->prefetch_misses,
	       (unsigned long long)s->prefetch_cancelled);
	printf("  NUMA:         %llu host pages moved to the node of the GPU using them most\n",
	       (unsigned long long)s->numa_moved);
	printf("  staged:       %llu writes handed to the engine behind GPU work\n",
	       (unsigned long long)s->staged_writes);
	printf("  END fences:   %llu sessions ended with their GPU work's fence\n",
	       (unsigned long long)s->end_fences);
}

/* Paths measured, and the newest calibration time, over every pair. */
static unsigned int paths_calibrated(const struct report *r, uint64_t *newest)
{
	unsigned int i, n = 0;

	*newest = 0;
	for (i = 0; i < r->nr_paths; i++) {
		uint64_t t = r->paths[i].small.calibrated_ns;

		if (!t)
			continue;
		n++;
		if (t > *newest)
			*newest = t;
	}
	return n;
}

static void methods_text(uint32_t methods, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int m;

	snprintf(buf, len, "none");
	for (m = 0; m <= MVGAL_METHOD_EXEC; m++)
		if (methods & (1U << m))
			at += snprintf(buf + at, at < len ? len - at : 0, "%s%s",
				       at ? "," : "", mvgal_method_name(m));
}

static void print_text_paths(const struct report *r)
{
	uint64_t newest;
	unsigned int i, m, n = paths_calibrated(r, &newest);
	bool forced = false;

	printf("transfer paths between host memory and GPU pools (method chosen for 64K and 64M)\n");
	if (!r->nr_paths) {
		printf("  calibrated: no (no GPU attached)\n");
		return;
	}
	if (n == r->nr_paths) {
		struct timespec ts;
		uint64_t now;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		printf("  calibrated: yes (%llu s ago)\n", now > newest ?
		       (unsigned long long)((now - newest) / 1000000000ULL) : 0ULL);
	} else if (n) {
		printf("  calibrated: no (%u of %u paths measured)\n", n,
		       r->nr_paths);
	} else {
		printf("  calibrated: no\n");
	}
	printf("  %-5s %-5s %-30s %-9s %-9s %s\n", "src", "dst", "possible",
	       "64K", "64M", "per method: latency, bandwidth");
	for (i = 0; i < r->nr_paths; i++) {
		const struct loc_path *lp = &r->paths[i];
		char src[16], dst[16], methods[64], small[16], large[16];
		const char *sep = "";

		methods_text(lp->small.methods, methods, sizeof(methods));
		snprintf(small, sizeof(small), "%s%s",
			 mvgal_method_name(lp->small.chosen),
			 lp->small.forced ? "*" : "");
		snprintf(large, sizeof(large), "%s%s",
			 mvgal_method_name(lp->large.chosen),
			 lp->large.forced ? "*" : "");
		forced |= lp->small.forced || lp->large.forced;
		printf("  %-5s %-5s %-30s %-9s %-9s ",
		       loc_name(lp->src, src, sizeof(src)),
		       loc_name(lp->dst, dst, sizeof(dst)), methods, small, large);
		for (m = 0; m < MVGAL_METHOD_COUNT; m++) {
			uint64_t lat = lp->small.latency_ns[m];
			uint64_t bw = lp->small.bandwidth[m];

			if (!(lp->small.methods & (1U << m)))
				continue;
			printf("%s%s ", sep, mvgal_method_name(m));
			if (lat)
				printf("%.1f us, ", (double)lat / 1e3);
			else
				printf("- us, ");
			if (bw)
				printf("%.0f MB/s", (double)bw / 1e6);
			else
				printf("- MB/s");
			sep = "; ";
		}
		printf("%s\n", *sep ? "" : "-");
	}
	if (forced)
		printf("  * forced by the force_method setting\n");
}

static void print_text(const struct report *r)
{
	if (full_report(r))
		print_text_module(r);
	if (show_stats(r))
		print_text_stats(r);
	else if (r->want_stats)
		printf("migration statistics: not available (the module has no migration engine)\n");
	if (show_paths(r))
		print_text_paths(r);
	else if (r->want_paths)
		printf("transfer paths: not available (the module has no migration engine)\n");
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
	printf(",\"memory\":\"%s\"", pool_memory_name(h->memory));
	if (h->kind == MVGAL_REGION_POOL)
		printf(",\"largest_free\":%llu,\"peer2peer\":%s,\"movable\":%s",
		       (unsigned long long)h->largest_free,
		       yesno(h->pool_flags & MVGAL_POOL_PEER2PEER),
		       yesno(h->pool_flags & MVGAL_POOL_MOVABLE));
	printf("}");
}

static void print_json_eviction(const struct report *r, unsigned int i)
{
	const struct drm_mvgal_pool_lru *l = &r->lru[i];
	uint32_t k;

	printf(",\"eviction\":{\"budget\":%llu,\"policy\":\"%s\",\"evictions\":%llu,\"evicted_bytes\":%llu,\"written_back\":%llu,\"refusals\":%llu,\"placements\":%u,\"order\":[",
	       (unsigned long long)l->budget, policy_name(l->policy),
	       (unsigned long long)l->evictions,
	       (unsigned long long)l->evicted_bytes,
	       (unsigned long long)l->written_back,
	       (unsigned long long)l->refusals, l->count);
	for (k = 0; k < l->count && k < LRU_SHOWN; k++) {
		const struct drm_mvgal_lru_entry *e = &r->order[i][k];

		printf("%s{\"buffer\":%llu,\"bytes\":%llu,\"last_use\":%llu,\"next_use_in\":",
		       k ? "," : "", (unsigned long long)e->bo_id,
		       (unsigned long long)e->bytes,
		       (unsigned long long)e->last_use);
		if (e->ahead == MVGAL_LRU_NEVER)
			printf("null");
		else
			printf("%llu", (unsigned long long)e->ahead);
		printf(",\"persistent\":%s,\"live\":%s,\"busy\":%s}",
		       yesno(e->flags & MVGAL_LRU_PERSISTENT),
		       yesno(e->flags & MVGAL_LRU_LIVE),
		       yesno(e->flags & MVGAL_LRU_BUSY));
	}
	printf("]}");
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
		printf("\"pool\":{\"size\":%llu,\"used\":%llu,\"free\":%llu,\"allocations\":%llu,\"memory\":\"%s\",\"peer2peer\":%s,\"movable\":%s,\"moves\":%llu},\"state\":\"%s\",\"state_changes\":%llu",
		       (unsigned long long)g->pool_size, (unsigned long long)g->pool_used,
		       (unsigned long long)(g->pool_size - g->pool_used),
		       (unsigned long long)g->pool_allocations,
		       pool_memory_name(g->pool_memory),
		       g->pool_flags & MVGAL_POOL_PEER2PEER ? "true" : "false",
		       g->pool_flags & MVGAL_POOL_MOVABLE ? "true" : "false",
		       (unsigned long long)g->pool_moves, state_name(g->state),
		       (unsigned long long)g->state_changes);
		if (r->eviction)
			print_json_eviction(r, i);
		printf("}");
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

/* The members of the full report, without the enclosing braces. */
static void print_json_module(const struct report *r)
{
	const struct mvgal_info *i = &r->info;
	const struct mvgal_config *c = &r->cfg;
	const char *sep = "";
	unsigned int g;
	int bit;

	printf("\"driver\":{\"name\":\"mvgal\",\"version\":");
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
	printf("],\"gpu_named\":[");
	for (g = 0; g < MVGAL_MAX_GPUS && c->gpu_named[g].name[0]; g++) {
		printf("%s{\"name\":", g ? "," : "");
		json_str(c->gpu_named[g].name);
		printf(",\"memory_limit_mb\":%llu}",
		       (unsigned long long)c->gpu_named[g].memory_limit_mb);
	}
	printf("],\"dri\":{\"device_pattern\":");
	json_str(c->device_pattern);
	printf(",\"enable_prime\":%s},\"policy\":{\"evict_policy\":%u,\"prefetch\":%s,\"mirror_window_ms\":%u,\"mirror_start_reads\":%u,\"mirror_stop_writes\":%u,\"mirror_hold_windows\":%u,\"graphics_replicate_mb\":%u}}",
	       yesno(c->enable_prime), c->evict_policy, yesno(c->prefetch),
	       c->mirror_window_ms, c->mirror_start_reads,
	       c->mirror_stop_writes, c->mirror_hold_windows,
	       c->graphics_replicate_mb);
	print_json_gpus(r);
}

/* {"high":N,"normal":N,"low":N} */
static void json_per_prio(const __u64 *v)
{
	unsigned int p;

	printf("{");
	for (p = 0; p < MVGAL_PRIO_COUNT; p++)
		printf("%s\"%s\":%llu", p ? "," : "", mvgal_prio_name(p),
		       (unsigned long long)v[p]);
	printf("}");
}

/* {"in-place":N,...} for the methods whose bit is set in @only */
static void json_per_method(const __u64 *v, uint32_t only)
{
	const char *sep = "";
	unsigned int m;

	printf("{");
	for (m = 0; m < MVGAL_METHOD_COUNT; m++) {
		if (!(only & (1U << m)))
			continue;
		printf("%s\"%s\":%llu", sep, mvgal_method_name(m),
		       (unsigned long long)v[m]);
		sep = ",";
	}
	printf("}");
}

static void print_json_stats(const struct report *r, bool *first)
{
	const struct drm_mvgal_stats *s = &r->stats;
	const uint32_t all = (1U << MVGAL_METHOD_COUNT) - 1;

	json_key(first, "stats");
	printf("{\"scheduled\":%llu,\"completed\":%llu,\"failed\":%llu,\"cancelled\":%llu,\"queue_depth\":%llu,\"jobs\":",
	       (unsigned long long)s->scheduled,
	       (unsigned long long)s->completed,
	       (unsigned long long)s->failed,
	       (unsigned long long)s->cancelled,
	       (unsigned long long)s->queue_depth);
	json_per_prio(s->jobs);
	printf(",\"bytes\":");
	json_per_method(s->bytes, all);
	printf(",\"copies\":");
	json_per_method(s->copies, all);
	printf(",\"sessions\":%llu,\"busy\":%llu,\"cpu_faults\":%llu,\"drained\":%llu",
	       (unsigned long long)s->sessions, (unsigned long long)s->busy,
	       (unsigned long long)s->cpu_faults,
	       (unsigned long long)s->drained);
	printf(",\"prefetch\":{\"issued\":%llu,\"hits\":%llu,\"misses\":%llu,\"cancelled\":%llu},\"numa_moved\":%llu,\"staged_writes\":%llu,\"end_fences\":%llu}",
	       (unsigned long long)s->prefetch_issued,
	       (unsigned long long)s->prefetch_hits,
	       (unsigned long long)s->prefetch_misses,
	       (unsigned long long)s->prefetch_cancelled,
	       (unsigned long long)s->numa_moved,
	       (unsigned long long)s->staged_writes,
	       (unsigned long long)s->end_fences);
}

static void print_json_paths(const struct report *r, bool *first)
{
	uint64_t newest;
	unsigned int i, m, n = paths_calibrated(r, &newest);

	json_key(first, "transfer_paths");
	printf("[");
	for (i = 0; i < r->nr_paths; i++) {
		const struct loc_path *lp = &r->paths[i];
		const char *sep = "";
		char src[16], dst[16];

		printf("%s{\"src\":\"%s\",\"dst\":\"%s\",\"methods\":[",
		       i ? "," : "", loc_name(lp->src, src, sizeof(src)),
		       loc_name(lp->dst, dst, sizeof(dst)));
		for (m = 0; m < MVGAL_METHOD_COUNT; m++) {
			if (!(lp->small.methods & (1U << m)))
				continue;
			printf("%s\"%s\"", sep, mvgal_method_name(m));
			sep = ",";
		}
		printf("],\"chosen_64k\":\"%s\",\"chosen_64m\":\"%s\",\"forced\":%s,\"latency_ns\":",
		       mvgal_method_name(lp->small.chosen),
		       mvgal_method_name(lp->large.chosen),
		       yesno(lp->small.forced || lp->large.forced));
		json_per_method(lp->small.latency_ns, lp->small.methods);
		printf(",\"bandwidth\":");
		json_per_method(lp->small.bandwidth, lp->small.methods);
		printf(",\"calibrated\":%s}", yesno(lp->small.calibrated_ns));
	}
	printf("]");
	json_key(first, "paths_calibrated");
	printf("%s", yesno(r->nr_paths && n == r->nr_paths));
}

static void print_json(const struct report *r)
{
	bool first = true;

	printf("{");
	if (full_report(r)) {
		print_json_module(r);
		first = false;
	}
	if (show_stats(r))
		print_json_stats(r, &first);
	if (show_paths(r))
		print_json_paths(r, &first);
	if (r->want_buffers)
		print_json_buffers(r, &first);
	printf("}\n");
}

/* What a failed attach of a GPU's pool says about its driver. */
static const char *attach_error_text(int err)
{
	switch (err) {
	case -ENXIO:
		return "its driver would not share the buffer it made for the pool (a dma-buf attach or map failed; the kernel log says how)";
	case -EOPNOTSUPP:
		return "its driver gives no kernel mapping of the pool (no vmap): mvgal cannot copy into it";
	case -ENOSYS:
		return "its driver makes no dumb buffers, from which the pool is made (reached by its render node alone: libmvgal knows no allocation of that driver's)";
	default:
		return strerror(-err);
	}
}

/*
 * A [gpu:NAME] section that names no attached GPU is most likely a typo
 * (the slot as mvgal-info shows it is what it must say): say so.
 */
static void warn_unmatched_sections(struct mvgal *dev,
				    const struct mvgal_config *c)
{
	struct drm_mvgal_gpu_info gi;
	unsigned int i;
	uint32_t g;

	for (i = 0; i < MVGAL_MAX_GPUS && c->gpu_named[i].name[0]; i++) {
		bool found = false;

		for (g = 0; g < MVGAL_MAX_GPUS && !found; g++)
			found = !mvgal_gpu_info(dev, g, &gi) &&
				!strncmp(gi.slot, c->gpu_named[i].name, sizeof(gi.slot));
		if (!found)
			fprintf(stderr, "mvgal-info: [gpu:%s] names no attached GPU (its name must be the slot mvgal-info shows)\n",
				c->gpu_named[i].name);
	}
}

static void attach_report(const char *path, int result, uint32_t gpu, void *ctx)
{
	if (!result)
		fprintf(stderr, "mvgal-info: %s attached as GPU %u\n", path, gpu);
	else if (result == -EEXIST)
		fprintf(stderr, "mvgal-info: %s is attached already\n", path);
	else if (result == MVGAL_ATTACH_DISPLAY_ONLY)
		fprintf(stderr, "mvgal-info: %s skipped: display-only (no render node: no GPU memory to lend; a [gpu:NAME] section attaches it anyway)\n",
			path);
	else
		fprintf(stderr, "mvgal-info: %s not attached: %s\n", path,
			attach_error_text(result));
}

/* GET_PATH for every ordered pair of host and the attached GPUs. */
static int gather_paths(struct report *r)
{
	uint32_t locs[MVGAL_LOC_COUNT];
	unsigned int i, j, nr_locs = 0;
	int ret;

	locs[nr_locs++] = MVGAL_LOC_HOST;
	for (i = 0; i < r->nr_gpus && nr_locs < MVGAL_LOC_COUNT; i++)
		locs[nr_locs++] = 1 + r->gpus[i];
	r->nr_paths = 0;
	for (i = 0; i < nr_locs; i++) {
		for (j = 0; j < nr_locs; j++) {
			struct loc_path *lp = &r->paths[r->nr_paths];

			if (i == j)
				continue;
			lp->src = locs[i];
			lp->dst = locs[j];
			ret = mvgal_get_path(r->dev, lp->src, lp->dst,
					     PATH_SMALL, &lp->small);
			if (!ret)
				ret = mvgal_get_path(r->dev, lp->src, lp->dst,
						     PATH_LARGE, &lp->large);
			if (ret == -ENODEV)
				continue; /* detached meanwhile */
			if (ret)
				return ret;
			r->nr_paths++;
		}
	}
	return 0;
}

static int gather(struct report *r, const char **what)
{
	unsigned int i;
	int n;

	*what = "reading GPUs and heap";
	/* Modules before MVGAL_CAP_STATS had the reports under MIGRATION. */
	r->migration = r->info.caps & (MVGAL_CAP_STATS | MVGAL_CAP_MIGRATION);
	r->sessions = r->info.caps & MVGAL_CAP_SESSIONS;
	r->watch = r->info.caps & MVGAL_CAP_WRITE_WATCH;
	r->eviction = r->info.caps & MVGAL_CAP_EVICTION;

	n = mvgal_gpu_list(r->dev, r->gpus, MVGAL_MAX_GPUS);
	if (n < 0)
		return n;
	r->nr_gpus = n > MVGAL_MAX_GPUS ? MVGAL_MAX_GPUS : n;
	for (i = 0; i < r->nr_gpus; i++) {
		int ret = mvgal_gpu_info(r->dev, r->gpus[i], &r->gi[i]);

		if (ret)
			return ret;
		if (!r->eviction)
			continue;
		*what = "POOL_LRU";
		r->lru[i].count = LRU_SHOWN;
		ret = mvgal_pool_lru(r->dev, r->gpus[i], r->order[i], &r->lru[i]);
		if (ret)
			return ret;
		*what = "reading GPUs and heap";
	}
	r->nr_regions = MVGAL_MAX_GPUS + 1;
	r->nr_nodes = 64;
	n = mvgal_get_heap(r->dev, r->regions, &r->nr_regions, r->nodes,
			   &r->nr_nodes);
	if (n)
		return n;
	if (show_stats(r)) {
		*what = "GET_STATS";
		n = mvgal_get_stats(r->dev, &r->stats);
		if (n)
			return n;
	}
	if (show_paths(r)) {
		*what = "GET_PATH";
		n = gather_paths(r);
		if (n)
			return n;
	}
	if (!r->want_buffers)
		return 0;
	*what = "listing buffers";
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

/* Valid / owned bytes per location that has any, and live sessions. */
static void print_text_residency(const struct drm_mvgal_bo_info *b)
{
	const char *sep = "";
	unsigned int l;

	printf("      valid / owned:");
	for (l = 0; l < MVGAL_LOC_COUNT; l++) {
		char name[16];

		if (!b->resident[l] && !b->valid[l] && !b->owned[l])
			continue;
		printf("%s %s: %llu / %llu B", sep,
		       loc_name(l, name, sizeof(name)),
		       (unsigned long long)b->valid[l],
		       (unsigned long long)b->owned[l]);
		sep = ",";
	}
	printf("%s; sessions %u (chunk %llu B)\n", *sep ? "" : " none",
	       b->sessions, (unsigned long long)b->chunk_size);
}

static const char *workload_name(uint32_t w)
{
	static const char *const names[] = { "none", "graphics", "compute", "ai" };

	return w < 4 ? names[w] : "?";
}

/* "GPUs 0,2" for bits 0 and 2, "none" for no bit. */
static const char *gpu_bits(uint32_t bits, char *buf, size_t len)
{
	size_t at = 0;

	snprintf(buf, len, "none");
	for (uint32_t g = 0; g < 32 && at < len; g++)
		if (bits & (1U << g))
			at += snprintf(buf + at, len - at, "%s%u",
				       at ? "," : "GPUs ", g);
	return buf;
}

static void print_text_advice(const struct drm_mvgal_bo_info *b)
{
	char by[64], mir[64], pin[64], pref[16] = "none";

	if (b->preferred != MVGAL_GPU_ANY)
		snprintf(pref, sizeof(pref), "GPU %u", b->preferred);
	printf("      advice: %s, preferred %s, accessed by %s, read-mostly %llu B; replicas kept for %s (mirror changes %u); pinned on %s\n",
	       workload_name(b->workload), pref,
	       gpu_bits(b->accessed_by, by, sizeof(by)),
	       (unsigned long long)b->read_mostly,
	       gpu_bits(b->mirrored, mir, sizeof(mir)), b->mirror_changes,
	       gpu_bits(b->pinned, pin, sizeof(pin)));
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
		if (r->sessions)
			print_text_residency(b);
		if (r->watch)
			printf("      CPU-written chunks %llu, hand-offs %llu, refused chunks %llu\n",
			       (unsigned long long)b->cpu_written,
			       (unsigned long long)b->handoffs,
			       (unsigned long long)b->refused);
		if (r->eviction)
			print_text_advice(b);
	}
}

/* Whether location @l of buffer @b is a member of its "valid"/"owned". */
static bool json_loc_shown(const struct report *r,
			   const struct drm_mvgal_bo_info *b, uint32_t l)
{
	unsigned int g;

	if (l == MVGAL_LOC_HOST || b->resident[l] || b->valid[l] || b->owned[l])
		return true;
	for (g = 0; g < r->nr_gpus; g++)
		if (r->gpus[g] + 1 == l)
			return true;
	return false;
}

static void json_per_loc(const struct report *r,
			 const struct drm_mvgal_bo_info *b, const __u64 *v)
{
	const char *sep = "";
	uint32_t l;

	printf("{");
	for (l = 0; l < MVGAL_LOC_COUNT; l++) {
		char name[16];

		if (!json_loc_shown(r, b, l))
			continue;
		printf("%s\"%s\":%llu", sep, loc_name(l, name, sizeof(name)),
		       (unsigned long long)v[l]);
		sep = ",";
	}
	printf("}");
}

static void print_json_buffers(const struct report *r, bool *first)
{
	uint32_t i, l;

	json_key(first, "buffers");
	printf("[");
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
		printf("]}");
		if (r->sessions) {
			printf(",\"valid\":");
			json_per_loc(r, b, b->valid);
			printf(",\"owned\":");
			json_per_loc(r, b, b->owned);
			printf(",\"sessions\":%u,\"chunk_size\":%llu",
			       b->sessions, (unsigned long long)b->chunk_size);
		}
		if (r->watch)
			printf(",\"cpu_written\":%llu,\"handoffs\":%llu,\"refused\":%llu",
			       (unsigned long long)b->cpu_written,
			       (unsigned long long)b->handoffs,
			       (unsigned long long)b->refused);
		if (r->eviction) {
			printf(",\"advice\":{\"workload\":\"%s\",\"preferred\":",
			       workload_name(b->workload));
			if (b->preferred == MVGAL_GPU_ANY)
				printf("null");
			else
				printf("%u", b->preferred);
			printf(",\"accessed_by\":%u,\"read_mostly\":%llu},\"mirrored\":%u,\"mirror_changes\":%u,\"pinned\":%u",
			       b->accessed_by, (unsigned long long)b->read_mostly,
			       b->mirrored, b->mirror_changes, b->pinned);
		}
		printf("}");
	}
	printf("]");
}

/*
 * --watch: a live view of the module's counters. Every sample is the
 * difference between two reads of them divided by the time between the
 * reads (measured, not the interval asked for: reading and printing take
 * time too), plus the gauges of the later read (pool use, budgets).
 */
#define WATCH_MAX_SECONDS	3600

/* One read of everything a sample is computed from. */
struct watch_read {
	struct timespec at;	/* CLOCK_MONOTONIC, just before GET_STATS */
	struct drm_mvgal_stats stats;
	bool present[MVGAL_MAX_GPUS];	/* by slot: attached at this read */
	struct drm_mvgal_gpu_info gi[MVGAL_MAX_GPUS];
	/* MVGAL_CAP_EVICTION: the pool's budget and eviction counter. */
	struct drm_mvgal_pool_lru lru[MVGAL_MAX_GPUS];
};

/* A sample: rates over the interval between two reads. */
struct watch_rates {
	double secs;
	double sessions, cpu_faults, evictions;
	double bytes[MVGAL_METHOD_COUNT];
	uint64_t hits, misses;	/* prefetches resolved in the interval */
	/* Per slot: a rate only for a GPU attached at both reads. */
	bool gpu_known[MVGAL_MAX_GPUS];
	double gpu_evictions[MVGAL_MAX_GPUS];
};

struct watch {
	struct mvgal *dev;
	unsigned int every;	/* seconds between samples */
	unsigned long count;	/* samples to print; 0: until a signal */
	unsigned long n;	/* samples printed */
	uint32_t max_gpus;	/* slots to read */
	bool json, tty, eviction;
	struct timespec next;	/* when the next read is due */
	sigset_t waitmask;	/* the signal mask while asleep */
	struct watch_read prev, cur;
	struct watch_rates rates;
};

static volatile sig_atomic_t watch_stop;

static void watch_signal(int sig)
{
	watch_stop = 1;
}

/*
 * SIGINT and SIGTERM set watch_stop. They stay blocked except inside
 * ppoll(), which unblocks them atomically with going to sleep: one that
 * comes while a sample is read or printed is taken at the next sleep, so
 * no sample is cut in half and none is lost between a check of the flag
 * and the sleep. The handler is installed even when SIGINT was ignored on
 * entry (as a non-interactive shell leaves it for a job started with &),
 * so that `kill -INT` ends a watch running in the background too.
 */
static int watch_signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = watch_signal };
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, waitmask) ||
	    sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	return 0;
}

static double ts_secs(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

/*
 * Sleeps until w->next, then sets the following deadline: samples keep
 * their cadence however long a read takes, and a watch that fell behind
 * (a stopped process) starts afresh rather than sampling in a burst.
 * Returns 0 when the time came, 1 when a signal asked to stop, or -errno.
 */
static int watch_sleep(struct watch *w)
{
	struct timespec now, left;
	double d;

	while (!watch_stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		d = ts_secs(&w->next) - ts_secs(&now);
		if (d <= 0) {
			w->next.tv_sec += w->every;
			if (ts_secs(&w->next) < ts_secs(&now))
				w->next = now;
			return 0;
		}
		left.tv_sec = (time_t)d;
		left.tv_nsec = (long)((d - (double)left.tv_sec) * 1e9);
		if (ppoll(NULL, 0, &left, &w->waitmask) < 0 && errno != EINTR)
			return -errno;
	}
	return 1;
}

/* GPU slot @g at this read; a slot with no GPU (or one detached just now)
 * is absent, not an error.
 */
static int watch_read_gpu(struct watch *w, struct watch_read *rd, uint32_t g)
{
	int ret = mvgal_gpu_info(w->dev, g, &rd->gi[g]);

	if (!ret && w->eviction) {
		/* No entries: only the budget and the counters. */
		rd->lru[g].count = 0;
		ret = mvgal_pool_lru(w->dev, g, NULL, &rd->lru[g]);
	}
	if (ret == -ENODEV)
		return 0;
	rd->present[g] = !ret;
	return ret;
}

static int watch_read(struct watch *w, struct watch_read *rd,
		      const char **what)
{
	uint32_t g;
	int ret;

	memset(rd, 0, sizeof(*rd));
	clock_gettime(CLOCK_MONOTONIC, &rd->at);
	*what = "GET_STATS";
	ret = mvgal_get_stats(w->dev, &rd->stats);
	if (ret)
		return ret;
	*what = w->eviction ? "reading GPUs and POOL_LRU" : "reading GPUs";
	for (g = 0; !ret && g < w->max_gpus; g++)
		ret = watch_read_gpu(w, rd, g);
	return ret;
}

/* The module's counters only grow while it is loaded (and our open file
 * keeps it loaded). A GPU's restart at 0 when its slot is attached again:
 * watch_rates() gives no rate for a counter that went down.
 */
static double per_s(uint64_t cur, uint64_t prev, double secs)
{
	return cur > prev && secs > 0 ? (double)(cur - prev) / secs : 0;
}

static void watch_rates(struct watch *w)
{
	const struct drm_mvgal_stats *a = &w->prev.stats, *b = &w->cur.stats;
	struct watch_rates *r = &w->rates;
	unsigned int m, g;

	memset(r, 0, sizeof(*r));
	r->secs = ts_secs(&w->cur.at) - ts_secs(&w->prev.at);
	r->sessions = per_s(b->sessions, a->sessions, r->secs);
	r->cpu_faults = per_s(b->cpu_faults, a->cpu_faults, r->secs);
	for (m = 0; m < MVGAL_METHOD_COUNT; m++)
		r->bytes[m] = per_s(b->bytes[m], a->bytes[m], r->secs);
	r->hits = b->prefetch_hits - a->prefetch_hits;
	r->misses = b->prefetch_misses - a->prefetch_misses;
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		uint64_t e0 = w->prev.lru[g].evictions, e1 = w->cur.lru[g].evictions;

		r->gpu_known[g] = w->eviction && w->prev.present[g] &&
				  w->cur.present[g] && e1 >= e0;
		if (!r->gpu_known[g])
			continue;
		r->gpu_evictions[g] = per_s(e1, e0, r->secs);
		r->evictions += r->gpu_evictions[g];
	}
}

/* "in_place" for "in-place": keys of the key=value format are words. */
static const char *method_key(unsigned int m, char *buf, size_t len)
{
	char *p;

	snprintf(buf, len, "%s", mvgal_method_name(m));
	for (p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
	return buf;
}

/* @v with one decimal, or @none when there is no figure. */
static void opt_rate(bool known, double v, const char *none)
{
	if (known)
		printf("%.1f", v);
	else
		fputs(none, stdout);
}

static void opt_hit_rate(const struct watch_rates *r, const char *none)
{
	if (r->hits + r->misses)
		printf("%.3f", (double)r->hits / (double)(r->hits + r->misses));
	else
		fputs(none, stdout);
}

static unsigned int watch_gpus(const struct watch *w)
{
	unsigned int g, n = 0;

	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		n += w->cur.present[g];
	return n;
}

static void watch_line_gpu(const struct watch *w, unsigned int g)
{
	const struct drm_mvgal_gpu_info *gi = &w->cur.gi[g];

	printf(" gpu%u_state=%s gpu%u_pool_used=%llu gpu%u_pool_size=%llu gpu%u_budget=",
	       g, state_name(gi->state), g, (unsigned long long)gi->pool_used,
	       g, (unsigned long long)gi->pool_size, g);
	if (w->eviction)
		printf("%llu", (unsigned long long)w->cur.lru[g].budget);
	else
		putchar('-');
	printf(" gpu%u_evictions_per_s=", g);
	opt_rate(w->rates.gpu_known[g], w->rates.gpu_evictions[g], "-");
}

/* One line of space-separated key=value fields, documented in usage(). */
static void watch_print_line(const struct watch *w)
{
	const struct watch_rates *r = &w->rates;
	unsigned int m, g;
	char key[16];

	printf("sample=%lu time=%lld interval_s=%u elapsed_s=%.3f sessions_per_s=%.1f",
	       w->n, (long long)time(NULL), w->every, r->secs, r->sessions);
	for (m = 0; m < MVGAL_METHOD_COUNT; m++)
		printf(" bytes_per_s_%s=%.0f", method_key(m, key, sizeof(key)),
		       r->bytes[m]);
	printf(" evictions_per_s=");
	opt_rate(w->eviction, r->evictions, "-");
	printf(" cpu_faults_per_s=%.1f prefetch_hits=%llu prefetch_misses=%llu prefetch_hit_rate=",
	       r->cpu_faults, (unsigned long long)r->hits,
	       (unsigned long long)r->misses);
	opt_hit_rate(r, "-");
	printf(" gpus=%u", watch_gpus(w));
	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (w->cur.present[g])
			watch_line_gpu(w, g);
	putchar('\n');
}

static void watch_json_gpus(const struct watch *w)
{
	const char *sep = "";
	unsigned int g;

	printf("\"gpus\":[");
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		const struct drm_mvgal_gpu_info *gi = &w->cur.gi[g];

		if (!w->cur.present[g])
			continue;
		printf("%s{\"index\":%u,\"state\":\"%s\",\"pool_used\":%llu,\"pool_size\":%llu,\"budget\":",
		       sep, g, state_name(gi->state),
		       (unsigned long long)gi->pool_used,
		       (unsigned long long)gi->pool_size);
		if (w->eviction)
			printf("%llu", (unsigned long long)w->cur.lru[g].budget);
		else
			printf("null");
		printf(",\"evictions_per_s\":");
		opt_rate(w->rates.gpu_known[g], w->rates.gpu_evictions[g], "null");
		printf("}");
		sep = ",";
	}
	printf("]");
}

/* One JSON object on one line, the same figures as watch_print_line(). */
static void watch_print_json(const struct watch *w)
{
	const struct watch_rates *r = &w->rates;
	unsigned int m;

	printf("{\"sample\":%lu,\"time\":%lld,\"interval_s\":%u,\"elapsed_s\":%.3f,",
	       w->n, (long long)time(NULL), w->every, r->secs);
	printf("\"sessions_per_s\":%.1f,\"bytes_per_s\":{", r->sessions);
	for (m = 0; m < MVGAL_METHOD_COUNT; m++)
		printf("%s\"%s\":%.0f", m ? "," : "", mvgal_method_name(m),
		       r->bytes[m]);
	printf("},\"evictions_per_s\":");
	opt_rate(w->eviction, r->evictions, "null");
	printf(",\"cpu_faults_per_s\":%.1f,\"prefetch\":{\"hits\":%llu,\"misses\":%llu,\"hit_rate\":",
	       r->cpu_faults, (unsigned long long)r->hits,
	       (unsigned long long)r->misses);
	opt_hit_rate(r, "null");
	printf("},");
	watch_json_gpus(w);
	printf("}\n");
}

/* Bytes (per second) for people: B, KiB, MiB or GiB. */
static const char *human(double b, char *buf, size_t len)
{
	if (b < 1024)
		snprintf(buf, len, "%.0f B", b);
	else if (b < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", b / 1024);
	else if (b < 1024.0 * 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", b / (1024 * 1024));
	else
		snprintf(buf, len, "%.2f GiB", b / (1024.0 * 1024 * 1024));
	return buf;
}

static void watch_tty_gpus(const struct watch *w)
{
	char used[16], size[16], budget[16];
	unsigned int g;

	printf("\n  GPU  %-6s  %10s / %-10s %10s  %s\n", "state", "pool used",
	       "size", "budget", "evictions/s");
	for (g = 0; g < MVGAL_MAX_GPUS; g++) {
		const struct drm_mvgal_gpu_info *gi = &w->cur.gi[g];

		if (!w->cur.present[g])
			continue;
		if (w->eviction)
			human((double)w->cur.lru[g].budget, budget, sizeof(budget));
		else
			snprintf(budget, sizeof(budget), "-");
		printf("  %3u  %-6s  %10s / %-10s %10s  ", g, state_name(gi->state),
		       human((double)gi->pool_used, used, sizeof(used)),
		       human((double)gi->pool_size, size, sizeof(size)), budget);
		opt_rate(w->rates.gpu_known[g], w->rates.gpu_evictions[g], "-");
		putchar('\n');
	}
	if (!watch_gpus(w))
		printf("  (no GPU attached)\n");
}

/* The screen, redrawn from its top-left corner: one frame per sample. */
static void watch_print_tty(const struct watch *w)
{
	const struct watch_rates *r = &w->rates;
	char when[32], b[16];
	time_t now = time(NULL);
	unsigned int m;

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	printf("\033[H\033[J");
	printf("mvgal-info --watch: every %u s; sample %lu over %.2f s at %s\n\n",
	       w->every, w->n, r->secs, when);
	printf("  sessions    %8.1f/s    CPU faults %8.1f/s    evictions ",
	       r->sessions, r->cpu_faults);
	opt_rate(w->eviction, r->evictions, "-");
	printf("/s\n  prefetch    %llu hits, %llu misses: hit rate ",
	       (unsigned long long)r->hits, (unsigned long long)r->misses);
	if (r->hits + r->misses)
		printf("%.1f%%\n", 100.0 * (double)r->hits /
		       (double)(r->hits + r->misses));
	else
		printf("-\n");
	printf("  moved/s    ");
	for (m = 0; m < MVGAL_METHOD_COUNT; m++)
		printf(" %s %s%s", mvgal_method_name(m),
		       human(r->bytes[m], b, sizeof(b)),
		       m + 1 < MVGAL_METHOD_COUNT ? "," : "\n");
	watch_tty_gpus(w);
	printf("\n(Ctrl-C quits)\n");
}

static void watch_print(const struct watch *w)
{
	if (w->json)
		watch_print_json(w);
	else if (w->tty)
		watch_print_tty(w);
	else
		watch_print_line(w);
}

/* Read, sleep, read and print until --count samples or a signal. */
static int watch_loop(struct watch *w, const char **what)
{
	int ret = watch_read(w, &w->prev, what);

	w->next = w->prev.at;
	w->next.tv_sec += w->every;
	while (!ret) {
		*what = "sleeping";
		ret = watch_sleep(w);
		if (ret)
			break;
		ret = watch_read(w, &w->cur, what);
		if (ret)
			break;
		w->n++;
		watch_rates(w);
		watch_print(w);
		*what = "writing";
		/* Each sample reaches a pipe when it is taken. */
		if (fflush(stdout))
			return -errno;
		w->prev = w->cur;
		if (w->count && w->n == w->count)
			break;
	}
	return ret;
}

/* Runs --watch; returns the exit status. */
static int watch_main(struct report *r, unsigned int every, unsigned long count,
		      bool json)
{
	struct watch w = { 0 };
	const char *what = "setting up signals";
	int ret;

	if (!(r->info.caps & (MVGAL_CAP_STATS | MVGAL_CAP_MIGRATION))) {
		fprintf(stderr, "mvgal-info: --watch: the module has no migration engine (no counters)\n");
		return 1;
	}
	w.dev = r->dev;
	/* stats_interval ([core] in the config, a module parameter of
	 * 1..3600) is the configured statistics interval. The module only
	 * reports it (its counters are always current): it is what a
	 * watch without SECONDS uses.
	 */
	w.every = every ? every : r->info.stats_interval;
	if (!w.every || w.every > WATCH_MAX_SECONDS)
		w.every = 1;
	w.count = count;
	w.json = json;
	w.tty = !json && isatty(STDOUT_FILENO);
	w.eviction = r->info.caps & MVGAL_CAP_EVICTION;
	w.max_gpus = r->info.max_gpus < MVGAL_MAX_GPUS ? r->info.max_gpus : MVGAL_MAX_GPUS;
	ret = watch_signals(&w.waitmask);
	if (!ret && w.tty) {
		/* One write per frame: no half-drawn screen. */
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
		printf("\033[?25l\033[H\033[Jmvgal-info --watch: first sample in %u s\n",
		       w.every);
		fflush(stdout);
	}
	if (!ret)
		ret = watch_loop(&w, &what);
	if (w.tty)	/* the cursor back, and the prompt on a line of its own */
		printf("\033[?25h\n");
	if (fflush(stdout) && ret >= 0) {
		what = "writing";
		ret = -errno;
	}
	if (ret >= 0)
		return 0;
	fprintf(stderr, "mvgal-info: --watch: %s failed: %s\n", what, strerror(-ret));
	return 1;
}

/* What the command line asks for besides the report's sections. */
struct args {
	const char *cfg_path;
	bool json, attach;
	bool watch;		/* --watch */
	unsigned int every;	/* --watch SECONDS; 0: the module's stats_interval */
	unsigned long count;	/* --count N; 0: until a signal */
};

#define OPT_COUNT	256	/* --count: no short form */

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("mvgal-info: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see mvgal-info --help)\n", stderr);
	return EXIT_USAGE;
}

/* @s as a whole number in 1..@max (digits only: no sign, no blank), else 0. */
static unsigned long parse_positive(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || *end || v > max ? 0 : v;
}

/*
 * The word after --watch is its SECONDS unless it is another option:
 * getopt_long() itself attaches an optional argument only when it is
 * written "--watch=5", and mvgal-info has no operands that "--watch 5"
 * could mean instead. "-5" is taken too, to be refused as SECONDS rather
 * than reported as an unknown option.
 */
static const char *watch_arg(int argc, char **argv)
{
	const char *s;

	if (optarg)
		return optarg;
	if (optind >= argc)
		return NULL;
	s = argv[optind];
	if (s[0] == '-' && !isdigit((unsigned char)s[1]))
		return NULL;
	optind++;
	return s;
}

/* Options that exclude each other; returns -1 when all is well. */
static int check_args(int argc, char **argv, const struct report *r,
		      const struct args *a)
{
	if (optind != argc) {
		fprintf(stderr, "mvgal-info: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (a->count && !a->watch)
		return usage_error("--count needs --watch");
	if (a->watch && (r->want_buffers || r->want_paths || r->want_stats))
		return usage_error("--watch cannot be combined with --buffers, --paths or --stats");
	return -1;
}

/* Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, struct report *r, struct args *a)
{
	static const struct option opts[] = {
		{ "attach", no_argument, NULL, 'a' },
		{ "buffers", no_argument, NULL, 'b' },
		{ "paths", no_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "watch", optional_argument, NULL, 'w' },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *arg;
	int opt;

	while ((opt = getopt_long(argc, argv, "abpsjc:w::h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			r->want_buffers = true;
			break;
		case 'p':
			r->want_paths = true;
			break;
		case 's':
			r->want_stats = true;
			break;
		case 'a':
			a->attach = true;
			break;
		case 'j':
			a->json = true;
			break;
		case 'c':
			a->cfg_path = optarg;
			break;
		case 'w':
			a->watch = true;
			arg = watch_arg(argc, argv);
			if (arg && !(a->every = parse_positive(arg, WATCH_MAX_SECONDS)))
				return usage_error("--watch takes whole seconds from 1 to %d, not '%s'",
						   WATCH_MAX_SECONDS, arg);
			break;
		case OPT_COUNT:
			a->count = parse_positive(optarg, ULONG_MAX);
			if (!a->count)
				return usage_error("--count takes a whole number of samples from 1, not '%s'",
						   optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	return check_args(argc, argv, r, a);
}

/* Returns 0, or the exit status of a config that cannot be read. */
static int load_config(struct report *r, const char *cfg_path)
{
	char err[512];
	int ret;

	r->cfg_path = cfg_path ? cfg_path : mvgal_config_path();
	ret = mvgal_config_load(r->cfg_path, &r->cfg, err, sizeof(err));
	if (ret == -ENOENT && !cfg_path) {
		/* No file at the default place: every key has its default. */
		r->cfg_status = "defaults (file not found)";
	} else if (ret) {
		fprintf(stderr, "mvgal-info: %s\n", err);
		return 1;
	} else {
		r->cfg_status = "loaded";
	}
	return 0;
}

/* Opens the device, attaches GPUs if asked and reads GET_INFO.
 * Returns -1 to go on (r->dev open), or the exit status.
 */
static int open_device(struct report *r, bool attach)
{
	int ret = mvgal_open(&r->dev);

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
	if (attach) {
		ret = mvgal_attach_all(r->dev, &r->cfg, attach_report, NULL);
		if (ret < 0) {
			fprintf(stderr, "mvgal-info: attaching GPUs failed: %s\n",
				strerror(-ret));
			mvgal_close(r->dev);
			return 1;
		}
		warn_unmatched_sections(r->dev, &r->cfg);
	}
	ret = mvgal_get_info(r->dev, &r->info);
	if (ret) {
		fprintf(stderr, "mvgal-info: GET_INFO failed: %s\n",
			strerror(-ret));
		mvgal_close(r->dev);
		return 1;
	}
	r->node = mvgal_node_path(r->dev);
	return -1;
}

/* The one-shot report; returns the exit status. */
static int report_main(struct report *r, bool json)
{
	const char *what;
	int ret = gather(r, &what);

	if (ret) {
		fprintf(stderr, "mvgal-info: %s failed: %s\n", what,
			strerror(-ret));
		free(r->bos);
		return 1;
	}
	if (json)
		print_json(r);
	else
		print_text(r);
	free(r->bos);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct report r = { 0 };
	struct args a = { 0 };
	int ret;

	ret = parse_args(argc, argv, &r, &a);
	if (ret >= 0)
		return ret;
	ret = load_config(&r, a.cfg_path);
	if (ret)
		return ret;
	ret = open_device(&r, a.attach);
	if (ret >= 0)
		return ret;
	if (a.watch)
		ret = watch_main(&r, a.every, a.count, a.json);
	else
		ret = report_main(&r, a.json);
	mvgal_close(r.dev);
	return ret;
}
