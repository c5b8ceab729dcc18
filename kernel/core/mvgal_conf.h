/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mvgal.conf schema and value rules, shared by the module (which applies
 * the same limits to its parameters) and libmvgal (which parses the file).
 */
#ifndef MVGAL_CONF_H
#define MVGAL_CONF_H

#include "mvgal_core_types.h"

enum mvgal_conf_type {
	MVGAL_CONF_BOOL,
	MVGAL_CONF_UINT,
	MVGAL_CONF_STRING,
};

/* Sections; a [gpu_N] section carries its N separately. */
enum mvgal_conf_section {
	MVGAL_SEC_CORE,
	MVGAL_SEC_GPU,
	MVGAL_SEC_DRI,
	MVGAL_SEC_POLICY,
};

enum mvgal_conf_id {
	MVGAL_CONF_ENABLE_MEMORY_MIGRATION,
	MVGAL_CONF_ENABLE_DMABUF,
	MVGAL_CONF_STATS_INTERVAL,
	MVGAL_CONF_MEMORY_LIMIT_MB,
	MVGAL_CONF_DEVICE_PATTERN,
	MVGAL_CONF_ENABLE_PRIME,
	MVGAL_CONF_EVICT_POLICY,
	MVGAL_CONF_PREFETCH,
	MVGAL_CONF_MIRROR_WINDOW_MS,
	MVGAL_CONF_MIRROR_START_READS,
	MVGAL_CONF_MIRROR_STOP_WRITES,
	MVGAL_CONF_MIRROR_HOLD_WINDOWS,
	MVGAL_CONF_GRAPHICS_REPLICATE_MB,
	MVGAL_CONF_NKEYS,
};

/* Longest device_pattern accepted, without the terminating NUL. */
#define MVGAL_CONF_STRING_MAX	255

/* memory_limit_mb: 0 means "as large as the driver grants". */
#define MVGAL_CONF_MEMORY_LIMIT_MB_MAX	1048576ULL

struct mvgal_conf_key {
	enum mvgal_conf_section section;
	const char *name;
	enum mvgal_conf_type type;
	unsigned long long min;
	unsigned long long max;
	const char *def;
};

extern const struct mvgal_conf_key mvgal_conf_keys[MVGAL_CONF_NKEYS];

int mvgal_conf_section(const char *s, size_t len, unsigned int max_gpus,
		       unsigned int *gpu);
int mvgal_conf_lookup(enum mvgal_conf_section sec, const char *name,
		      size_t len);
int mvgal_conf_parse_bool(const char *s, size_t len, bool *out);
int mvgal_conf_parse_uint(const char *s, size_t len, unsigned long long min,
			  unsigned long long max, unsigned long long *out);
int mvgal_conf_check_string(const char *s, size_t len);
const char *mvgal_conf_section_name(enum mvgal_conf_section sec);

bool mvgal_chunk_size_valid(unsigned long long size, unsigned long page_size);

#endif /* MVGAL_CONF_H */
