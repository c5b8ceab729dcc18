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
		"Usage: mvgal-info [--json] [--config PATH]\n"
		"Show the mvgal driver, its ABI, capabilities and the settings in effect.\n"
		"\n"
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
	const char *node;
	struct mvgal_info info;
	const char *cfg_path;
	const char *cfg_status;	/* "loaded" or "defaults (file not found)" */
	struct mvgal_config cfg;
};

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
	printf(",\"enable_prime\":%s}}}\n", yesno(c->enable_prime));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { 0 };
	const char *cfg_path = NULL;
	struct mvgal *dev;
	char err[512];
	bool json = false;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "jc:h", opts, NULL)) != -1) {
		switch (opt) {
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
	ret = mvgal_get_info(dev, &r.info);
	if (ret) {
		fprintf(stderr, "mvgal-info: GET_INFO failed: %s\n",
			strerror(-ret));
		mvgal_close(dev);
		return 1;
	}
	r.node = mvgal_node_path(dev);
	if (json)
		print_json(&r);
	else
		print_text(&r);
	mvgal_close(dev);
	return fflush(stdout) ? 1 : 0;
}
