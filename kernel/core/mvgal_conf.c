// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mvgal.conf schema and value parsing. No kernel or libc calls beyond
 * the string functions both provide, so the module and libmvgal apply the
 * very same rules and the unit tests exercise the code the module runs.
 */
#include "mvgal_conf.h"

/* Largest chunk: the coherence granule must stay far below a pool. */
#define MVGAL_CHUNK_SIZE_MAX	(16ULL << 20)

const struct mvgal_conf_key mvgal_conf_keys[MVGAL_CONF_NKEYS] = {
	[MVGAL_CONF_ENABLE_MEMORY_MIGRATION] = {
		MVGAL_SEC_CORE, "enable_memory_migration", MVGAL_CONF_BOOL,
		0, 1, "true" },
	[MVGAL_CONF_ENABLE_DMABUF] = {
		MVGAL_SEC_CORE, "enable_dmabuf", MVGAL_CONF_BOOL, 0, 1, "true" },
	[MVGAL_CONF_STATS_INTERVAL] = {
		MVGAL_SEC_CORE, "stats_interval", MVGAL_CONF_UINT, 1, 3600, "1" },
	[MVGAL_CONF_MEMORY_LIMIT_MB] = {
		MVGAL_SEC_GPU, "memory_limit_mb", MVGAL_CONF_UINT,
		0, MVGAL_CONF_MEMORY_LIMIT_MB_MAX, "0" },
	[MVGAL_CONF_DEVICE_PATTERN] = {
		MVGAL_SEC_DRI, "device_pattern", MVGAL_CONF_STRING,
		1, MVGAL_CONF_STRING_MAX, "/dev/dri/card*" },
	[MVGAL_CONF_ENABLE_PRIME] = {
		MVGAL_SEC_DRI, "enable_prime", MVGAL_CONF_BOOL, 0, 1, "true" },
	/* [policy]: the module parameters of the same names. */
	[MVGAL_CONF_EVICT_POLICY] = {
		MVGAL_SEC_POLICY, "evict_policy", MVGAL_CONF_UINT, 0, 1, "0" },
	[MVGAL_CONF_PREFETCH] = {
		MVGAL_SEC_POLICY, "prefetch", MVGAL_CONF_BOOL, 0, 1, "true" },
	[MVGAL_CONF_MIRROR_WINDOW_MS] = {
		MVGAL_SEC_POLICY, "mirror_window_ms", MVGAL_CONF_UINT,
		1, 1000000, "1000" },
	[MVGAL_CONF_MIRROR_START_READS] = {
		MVGAL_SEC_POLICY, "mirror_start_reads", MVGAL_CONF_UINT,
		1, 1000000, "8" },
	[MVGAL_CONF_MIRROR_STOP_WRITES] = {
		MVGAL_SEC_POLICY, "mirror_stop_writes", MVGAL_CONF_UINT,
		1, 1000000, "4" },
	[MVGAL_CONF_MIRROR_HOLD_WINDOWS] = {
		MVGAL_SEC_POLICY, "mirror_hold_windows", MVGAL_CONF_UINT,
		0, 1000000, "2" },
	[MVGAL_CONF_GRAPHICS_REPLICATE_MB] = {
		MVGAL_SEC_POLICY, "graphics_replicate_mb", MVGAL_CONF_UINT,
		0, 1000000, "64" },
};

static const char *const mvgal_conf_section_names[] = {
	[MVGAL_SEC_CORE] = "core",
	[MVGAL_SEC_GPU] = "gpu_N",
	[MVGAL_SEC_DRI] = "dri",
	[MVGAL_SEC_POLICY] = "policy",
};

const char *mvgal_conf_section_name(enum mvgal_conf_section sec)
{
	return mvgal_conf_section_names[sec];
}

static bool mvgal_conf_eq(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

static bool mvgal_conf_ieq(const char *s, size_t len, const char *word)
{
	size_t i;

	if (strlen(word) != len)
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = c - 'A' + 'a';
		if (c != word[i])
			return false;
	}
	return true;
}

/* Parses a decimal number with no sign, no leading '+', no spaces. */
static int mvgal_conf_parse_dec(const char *s, size_t len,
				unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = s[i] - '0';
		if (v > (~0ULL - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/**
 * mvgal_conf_section() - classify a section name (without brackets)
 * @s: the name
 * @len: its length
 * @max_gpus: sections gpu_0 .. gpu_<max_gpus - 1> are accepted
 * @gpu: (out) N of a [gpu_N] section
 *
 * Return: an &enum mvgal_conf_section, -EINVAL for an unknown name,
 * -ERANGE for a GPU index out of range.
 */
int mvgal_conf_section(const char *s, size_t len, unsigned int max_gpus,
		       unsigned int *gpu)
{
	unsigned long long n;
	int ret;

	if (mvgal_conf_eq(s, len, "core"))
		return MVGAL_SEC_CORE;
	if (mvgal_conf_eq(s, len, "dri"))
		return MVGAL_SEC_DRI;
	if (mvgal_conf_eq(s, len, "policy"))
		return MVGAL_SEC_POLICY;
	if (len > 4 && !memcmp(s, "gpu_", 4)) {
		/* "gpu_007" would alias "gpu_7": one spelling per GPU. */
		if (len > 5 && s[4] == '0')
			return -EINVAL;
		ret = mvgal_conf_parse_dec(s + 4, len - 4, &n);
		if (ret == -EINVAL)
			return ret;
		if (ret || n >= max_gpus)
			return -ERANGE;
		*gpu = (unsigned int)n;
		return MVGAL_SEC_GPU;
	}
	return -EINVAL;
}

/**
 * mvgal_conf_lookup() - find a key of a section
 * @sec: the section
 * @name: the key name
 * @len: its length
 *
 * Return: an &enum mvgal_conf_id, or -ENOENT when the section has no such
 * key.
 */
int mvgal_conf_lookup(enum mvgal_conf_section sec, const char *name,
		      size_t len)
{
	int i;

	for (i = 0; i < MVGAL_CONF_NKEYS; i++)
		if (mvgal_conf_keys[i].section == sec &&
		    mvgal_conf_eq(name, len, mvgal_conf_keys[i].name))
			return i;
	return -ENOENT;
}

/**
 * mvgal_conf_parse_bool() - parse true/false, yes/no, on/off, 1/0
 * @s: the value
 * @len: its length
 * @out: (out) the result, written only on success
 *
 * Return: 0 or -EINVAL.
 */
int mvgal_conf_parse_bool(const char *s, size_t len, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (mvgal_conf_ieq(s, len, yes[i])) {
			*out = true;
			return 0;
		}
		if (mvgal_conf_ieq(s, len, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * mvgal_conf_parse_uint() - parse a decimal number within [min, max]
 * @s: the value
 * @len: its length
 * @min: smallest accepted
 * @max: largest accepted
 * @out: (out) the result, written only on success
 *
 * Return: 0, -EINVAL when @s is not a plain decimal number, -ERANGE when it
 * is outside [min, max] or overflows.
 */
int mvgal_conf_parse_uint(const char *s, size_t len, unsigned long long min,
			  unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	int ret;

	ret = mvgal_conf_parse_dec(s, len, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/**
 * mvgal_conf_check_string() - validate a string value
 * @s: the value
 * @len: its length
 *
 * Values are printable ASCII: they are paths, and every consumer (logs,
 * JSON output) can then carry them without re-encoding.
 *
 * Return: 0, -EINVAL when it is empty or holds a byte that is not
 * printable ASCII, -ERANGE when it is longer than MVGAL_CONF_STRING_MAX.
 */
int mvgal_conf_check_string(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return -EINVAL;
	if (len > MVGAL_CONF_STRING_MAX)
		return -ERANGE;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return -EINVAL;
	return 0;
}

/**
 * mvgal_chunk_size_valid() - is @size usable as the coherence chunk size
 * @size: candidate, in bytes
 * @page_size: the CPU page size
 *
 * A chunk is a power of two, at least a page (write-watch works on pages)
 * and at most MVGAL_CHUNK_SIZE_MAX.
 */
bool mvgal_chunk_size_valid(unsigned long long size, unsigned long page_size)
{
	return size >= page_size && size <= MVGAL_CHUNK_SIZE_MAX &&
	       !(size & (size - 1));
}
