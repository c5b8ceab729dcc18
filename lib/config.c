// SPDX-License-Identifier: MIT
/*
 * libmvgal: the mvgal.conf parser. The schema and value rules are the
 * core's (kernel/core/mvgal_conf.c), shared with the module; this file
 * reads the file, splits it into lines and words, and says precisely what
 * is wrong with a line it refuses.
 *
 * Syntax: "[section]" lines, "key = value" lines, blank lines, and
 * comment lines starting with '#' or ';'. Leading and trailing blanks are
 * ignored; there are no inline comments and no quoting.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#include "core/mvgal_conf.h"
#include "internal.h"

#define MVGAL_CONFIG_MAX_BYTES (1 << 20)

/* keys_set's bits are the schema's ids, in the file's order. */
#define MVGAL_SET_IS(key) \
	_Static_assert(MVGAL_CONFIG_SET_##key == 1ULL << MVGAL_CONF_##key, #key)
MVGAL_SET_IS(ENABLE_MEMORY_MIGRATION);
MVGAL_SET_IS(ENABLE_DMABUF);
MVGAL_SET_IS(STATS_INTERVAL);
MVGAL_SET_IS(MEMORY_LIMIT_MB);
MVGAL_SET_IS(DEVICE_PATTERN);
MVGAL_SET_IS(ENABLE_PRIME);
MVGAL_SET_IS(EVICT_POLICY);
MVGAL_SET_IS(PREFETCH);
MVGAL_SET_IS(MIRROR_WINDOW_MS);
MVGAL_SET_IS(MIRROR_START_READS);
MVGAL_SET_IS(MIRROR_STOP_WRITES);
MVGAL_SET_IS(MIRROR_HOLD_WINDOWS);
MVGAL_SET_IS(GRAPHICS_REPLICATE_MB);
_Static_assert(MVGAL_CONF_NKEYS == 13, "a key without a MVGAL_CONFIG_SET_ bit");

const char *mvgal_config_path(void)
{
	const char *p = getenv("MVGAL_CONFIG");

	return p && *p ? p : MVGAL_CONFIG_PATH;
}

void (mvgal_config_defaults)(struct mvgal_config *cfg)
{
	mvgal_config_defaults_sz(cfg, MVGAL_V1_CONFIG_SIZE);
}

void mvgal_config_defaults_sz(struct mvgal_config *out, size_t size)
{
	struct mvgal_config c, *cfg = &c;

	if (!out)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->enable_memory_migration = true;
	cfg->enable_dmabuf = true;
	cfg->stats_interval = 1;
	snprintf(cfg->device_pattern, sizeof(cfg->device_pattern), "%s",
		 mvgal_conf_keys[MVGAL_CONF_DEVICE_PATTERN].def);
	cfg->enable_prime = true;
	cfg->prefetch = true;
	cfg->mirror_window_ms = 1000;
	cfg->mirror_start_reads = 8;
	cfg->mirror_stop_writes = 4;
	cfg->mirror_hold_windows = 2;
	cfg->graphics_replicate_mb = 64;
	mvgal_out(out, size, cfg, sizeof(*cfg));
}

static int mvgal_param_write(const char *name, unsigned int v, bool is_bool)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/mvgal/parameters/%s", name);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	ret = (is_bool ? fputs(v ? "Y" : "N", f) : fprintf(f, "%u", v)) < 0 ?
	      -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int (mvgal_config_apply)(const struct mvgal_config *cfg)
{
	return mvgal_config_apply_sz(cfg, MVGAL_V1_CONFIG_SIZE);
}

int mvgal_config_apply_sz(const struct mvgal_config *ucfg, size_t size)
{
	struct mvgal_config full;

	if (!ucfg || size < MVGAL_V1_CONFIG_SIZE)
		return mvgal_bad("!ucfg || size < MVGAL_V1_CONFIG_SIZE");
	/* What an older caller's struct lacks keeps its default; what a
	 * newer one has beyond this library's is not known here.
	 */
	mvgal_config_defaults_sz(&full, sizeof(full));
	memcpy(&full, ucfg, size < sizeof(full) ? size : sizeof(full));
	return mvgal_config_apply_full(&full);
}

int mvgal_config_apply_full(const struct mvgal_config *cfg)
{
	return mvgal_config_apply_keys(cfg, ~0ULL);
}

/* Writes the module parameters of @cfg's keys in @keys (keys_set bits). */
int mvgal_config_apply_keys(const struct mvgal_config *cfg, uint64_t keys)
{
	const struct {
		int id;
		unsigned int v;
	} p[] = {
		{ MVGAL_CONF_ENABLE_MEMORY_MIGRATION,
		  cfg ? cfg->enable_memory_migration : 0 },
		{ MVGAL_CONF_ENABLE_DMABUF, cfg ? cfg->enable_dmabuf : 0 },
		{ MVGAL_CONF_STATS_INTERVAL, cfg ? cfg->stats_interval : 0 },
		{ MVGAL_CONF_EVICT_POLICY, cfg ? cfg->evict_policy : 0 },
		{ MVGAL_CONF_PREFETCH, cfg ? cfg->prefetch : 0 },
		{ MVGAL_CONF_MIRROR_WINDOW_MS, cfg ? cfg->mirror_window_ms : 0 },
		{ MVGAL_CONF_MIRROR_START_READS, cfg ? cfg->mirror_start_reads : 0 },
		{ MVGAL_CONF_MIRROR_STOP_WRITES, cfg ? cfg->mirror_stop_writes : 0 },
		{ MVGAL_CONF_MIRROR_HOLD_WINDOWS, cfg ? cfg->mirror_hold_windows : 0 },
		{ MVGAL_CONF_GRAPHICS_REPLICATE_MB,
		  cfg ? cfg->graphics_replicate_mb : 0 },
	};
	int ret = 0, err;
	size_t i;

	if (!cfg)
		return mvgal_bad("!cfg");
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		const struct mvgal_conf_key *k = &mvgal_conf_keys[p[i].id];

		if (!(keys & 1ULL << p[i].id))
			continue;
		err = mvgal_param_write(k->name, p[i].v,
					k->type == MVGAL_CONF_BOOL);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

struct mvgal_conf_ctx {
	const char *path;
	unsigned int line;
	char *err;
	size_t errlen;
	/* Keys already set, to refuse duplicates: one bit per key per
	 * [gpu_N], then per [gpu:NAME] (other sections use slot 0).
	 */
	unsigned char seen[MVGAL_CONF_NKEYS][2 * MVGAL_MAX_GPUS];
};

__attribute__((format(printf, 2, 3)))
static int mvgal_conf_error(struct mvgal_conf_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!c->err || !c->errlen)
		return -EINVAL;
	n = snprintf(c->err, c->errlen, "%s:%u: ", c->path, c->line);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool mvgal_is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* Trims [*s, *s + *len) of blanks on both ends. */
static void mvgal_trim(const char **s, size_t *len)
{
	while (*len && mvgal_is_blank(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && mvgal_is_blank((*s)[*len - 1]))
		(*len)--;
}

static int mvgal_conf_set(struct mvgal_conf_ctx *c, struct mvgal_config *cfg,
			  int id, unsigned int gpu, const char *key,
			  size_t klen, const char *val, size_t vlen)
{
	const struct mvgal_conf_key *k = &mvgal_conf_keys[id];
	unsigned long long u = 0;
	bool b = false;
	int ret;

	switch (k->type) {
	case MVGAL_CONF_BOOL:
		ret = mvgal_conf_parse_bool(val, vlen, &b);
		if (ret)
			return mvgal_conf_error(c,
				"key '%.*s': '%.*s' is not a boolean (true/false, yes/no, on/off, 1/0)",
				(int)klen, key, (int)vlen, val);
		break;
	case MVGAL_CONF_UINT:
		ret = mvgal_conf_parse_uint(val, vlen, k->min, k->max, &u);
		if (ret == -ERANGE)
			return mvgal_conf_error(c,
				"key '%.*s': %.*s is outside %llu..%llu",
				(int)klen, key, (int)vlen, val, k->min, k->max);
		if (ret)
			return mvgal_conf_error(c,
				"key '%.*s': '%.*s' is not a decimal number",
				(int)klen, key, (int)vlen, val);
		break;
	case MVGAL_CONF_STRING:
		ret = mvgal_conf_check_string(val, vlen);
		if (ret == -ERANGE)
			return mvgal_conf_error(c,
				"key '%.*s': value is longer than %d bytes",
				(int)klen, key, MVGAL_CONF_STRING_MAX);
		if (ret)
			return mvgal_conf_error(c,
				"key '%.*s': value is empty or not printable ASCII",
				(int)klen, key);
		if (val[0] != '/')
			return mvgal_conf_error(c,
				"key '%.*s': '%.*s' is not an absolute path",
				(int)klen, key, (int)vlen, val);
		break;
	}

	switch (id) {
	case MVGAL_CONF_ENABLE_MEMORY_MIGRATION:
		cfg->enable_memory_migration = b;
		break;
	case MVGAL_CONF_ENABLE_DMABUF:
		cfg->enable_dmabuf = b;
		break;
	case MVGAL_CONF_STATS_INTERVAL:
		cfg->stats_interval = (unsigned int)u;
		break;
	case MVGAL_CONF_MEMORY_LIMIT_MB:
		if (gpu < MVGAL_MAX_GPUS)
			cfg->memory_limit_mb[gpu] = u;
		else
			cfg->gpu_named[gpu - MVGAL_MAX_GPUS].memory_limit_mb = u;
		break;
	case MVGAL_CONF_DEVICE_PATTERN:
		memcpy(cfg->device_pattern, val, vlen);
		cfg->device_pattern[vlen] = '\0';
		break;
	case MVGAL_CONF_ENABLE_PRIME:
		cfg->enable_prime = b;
		break;
	case MVGAL_CONF_EVICT_POLICY:
		cfg->evict_policy = (unsigned int)u;
		break;
	case MVGAL_CONF_PREFETCH:
		cfg->prefetch = b;
		break;
	case MVGAL_CONF_MIRROR_WINDOW_MS:
		cfg->mirror_window_ms = (unsigned int)u;
		break;
	case MVGAL_CONF_MIRROR_START_READS:
		cfg->mirror_start_reads = (unsigned int)u;
		break;
	case MVGAL_CONF_MIRROR_STOP_WRITES:
		cfg->mirror_stop_writes = (unsigned int)u;
		break;
	case MVGAL_CONF_MIRROR_HOLD_WINDOWS:
		cfg->mirror_hold_windows = (unsigned int)u;
		break;
	case MVGAL_CONF_GRAPHICS_REPLICATE_MB:
		cfg->graphics_replicate_mb = (unsigned int)u;
		break;
	}
	cfg->keys_set |= 1ULL << id;
	return 0;
}

/*
 * A [gpu:NAME] section: its entry of cfg->gpu_named, as the index
 * MVGAL_MAX_GPUS + i in *@gpu. NAME is a kernel device name as GPU_INFO's
 * slot holds it: printable, no blanks or '/', at most MVGAL_NAME_LEN - 1.
 */
static int mvgal_conf_named(struct mvgal_conf_ctx *c, struct mvgal_config *cfg,
			    const char *name, size_t len, unsigned int *gpu)
{
	struct mvgal_config_gpu *e = cfg->gpu_named;
	unsigned int i;
	size_t k;

	mvgal_trim(&name, &len);
	if (!len || len >= MVGAL_NAME_LEN)
		return mvgal_conf_error(c,
			"section [gpu:%.*s]: the device name must be 1..%d bytes",
			(int)len, name, MVGAL_NAME_LEN - 1);
	for (k = 0; k < len; k++)
		if (name[k] <= ' ' || name[k] > '~' || name[k] == '/')
			return mvgal_conf_error(c,
				"section [gpu:...]: byte 0x%02x cannot be in a device name",
				(unsigned char)name[k]);
	for (i = 0; i < MVGAL_MAX_GPUS && e[i].name[0]; i++)
		if (strlen(e[i].name) == len && !memcmp(e[i].name, name, len))
			return mvgal_conf_error(c, "section [gpu:%.*s] twice",
						(int)len, name);
	if (i == MVGAL_MAX_GPUS)
		return mvgal_conf_error(c, "more than %d [gpu:NAME] sections",
					MVGAL_MAX_GPUS);
	memcpy(e[i].name, name, len);
	e[i].name[len] = '\0';
	*gpu = MVGAL_MAX_GPUS + i;
	return 0;
}

static int mvgal_conf_parse(struct mvgal_conf_ctx *c, struct mvgal_config *cfg,
			    const char *buf, size_t size)
{
	const char *end = buf + size, *p = buf;
	int sec = -1;
	unsigned int gpu = 0;

	for (c->line = 1; p < end; c->line++) {
		const char *nl = memchr(p, '\n', end - p);
		const char *s = p, *eq, *key, *val;
		size_t len = (nl ? nl : end) - p, klen, vlen;
		int id;

		p = nl ? nl + 1 : end;
		mvgal_trim(&s, &len);
		if (!len || s[0] == '#' || s[0] == ';')
			continue;
		if (memchr(s, '\0', len))
			return mvgal_conf_error(c, "NUL byte in line");

		if (s[0] == '[') {
			const char *name = s + 1;
			size_t nlen = len - 2;

			if (len < 2 || s[len - 1] != ']')
				return mvgal_conf_error(c,
					"malformed section header '%.*s'",
					(int)len, s);
			mvgal_trim(&name, &nlen);
			if (nlen >= 4 && !memcmp(name, "gpu:", 4)) {
				if (mvgal_conf_named(c, cfg, name + 4, nlen - 4,
						     &gpu))
					return -EINVAL;
				sec = MVGAL_SEC_GPU;
				continue;
			}
			sec = mvgal_conf_section(name, nlen, MVGAL_MAX_GPUS,
						 &gpu);
			if (sec == -ERANGE)
				return mvgal_conf_error(c,
					"section [%.*s]: GPU index must be 0..%d",
					(int)nlen, name, MVGAL_MAX_GPUS - 1);
			if (sec < 0)
				return mvgal_conf_error(c,
					"unknown section [%.*s] (known: core, gpu:NAME, gpu_N, dri, policy)",
					(int)nlen, name);
			continue;
		}

		eq = memchr(s, '=', len);
		if (!eq)
			return mvgal_conf_error(c,
				"'%.*s' is neither a section nor key = value",
				(int)len, s);
		key = s;
		klen = eq - s;
		val = eq + 1;
		vlen = s + len - val;
		mvgal_trim(&key, &klen);
		mvgal_trim(&val, &vlen);
		if (!klen)
			return mvgal_conf_error(c, "missing key before '='");
		if (sec < 0)
			return mvgal_conf_error(c,
				"key '%.*s' outside any section",
				(int)klen, key);
		id = mvgal_conf_lookup(sec, key, klen);
		if (id < 0)
			return mvgal_conf_error(c,
				"unknown key '%.*s' in section [%s]",
				(int)klen, key,
				mvgal_conf_section_name(sec));
		if (c->seen[id][sec == MVGAL_SEC_GPU ? gpu : 0])
			return mvgal_conf_error(c,
				"key '%.*s' set twice in one section",
				(int)klen, key);
		c->seen[id][sec == MVGAL_SEC_GPU ? gpu : 0] = 1;
		if (mvgal_conf_set(c, cfg, id, gpu, key, klen, val, vlen))
			return -EINVAL;
	}
	return 0;
}

int (mvgal_config_load)(const char *path, struct mvgal_config *cfg,
			char *err, size_t errlen)
{
	return mvgal_config_load_sz(path, cfg, err, errlen, MVGAL_V1_CONFIG_SIZE);
}

static int mvgal_config_load_full(const char *path, struct mvgal_config *cfg,
				  char *err, size_t errlen);

int mvgal_config_load_sz(const char *path, struct mvgal_config *cfg,
			 char *err, size_t errlen, size_t size)
{
	struct mvgal_config full;
	int ret;

	if (!cfg || size < MVGAL_V1_CONFIG_SIZE)
		return mvgal_bad("!cfg || size < MVGAL_V1_CONFIG_SIZE");
	ret = mvgal_config_load_full(path, &full, err, errlen);
	mvgal_out(cfg, size, &full, sizeof(full));
	return ret;
}

static int mvgal_config_load_full(const char *path, struct mvgal_config *cfg,
				  char *err, size_t errlen)
{
	struct mvgal_conf_ctx *c;
	char *buf = NULL;
	size_t size = 0;
	int fd, ret = 0;

	if (!cfg)
		return mvgal_bad("!cfg");
	mvgal_config_defaults(cfg);
	if (err && errlen)
		err[0] = '\0';
	if (!path)
		path = mvgal_config_path();

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	buf = malloc(MVGAL_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf + size, MVGAL_CONFIG_MAX_BYTES + 1 - size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			if (err && errlen)
				snprintf(err, errlen, "%s: %s", path,
					 strerror(-ret));
			goto out;
		}
		if (!n)
			break;
		size += n;
		if (size > MVGAL_CONFIG_MAX_BYTES) {
			ret = -EFBIG;
			if (err && errlen)
				snprintf(err, errlen, "%s: larger than %d bytes",
					 path, MVGAL_CONFIG_MAX_BYTES);
			goto out;
		}
	}

	c = calloc(1, sizeof(*c));
	if (!c) {
		ret = -ENOMEM;
		goto out;
	}
	c->path = path;
	c->err = err;
	c->errlen = errlen;
	ret = mvgal_conf_parse(c, cfg, buf, size);
	free(c);
	/* A rejected file leaves no half-applied settings behind. */
	if (ret)
		mvgal_config_defaults(cfg);
out:
	free(buf);
	close(fd);
	return ret;
}
