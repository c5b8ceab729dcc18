/* SPDX-License-Identifier: MIT */
/*
 * libmvgal: the public API.
 *
 * Conventions: functions return 0 or a negative errno; handles are
 * opaque; file descriptors are opened O_CLOEXEC; EINTR is retried.
 */
#ifndef MVGAL_MVGAL_H
#define MVGAL_MVGAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/mvgal_drm.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MVGAL_API __attribute__((visibility("default")))

/* Default location of the configuration file; MVGAL_CONFIG overrides. */
#define MVGAL_CONFIG_PATH "/etc/mvgal/mvgal.conf"

/** An open mvgal device. */
struct mvgal;

/** What the module says about itself (DRM_IOCTL_MVGAL_GET_INFO). */
struct mvgal_info {
	uint32_t abi_version;	/* MVGAL_ABI_VERSION of the module */
	uint32_t chunk_size;	/* coherence chunk in bytes */
	uint32_t gpu_count;	/* GPUs attached now */
	uint32_t max_gpus;	/* MVGAL_MAX_GPUS */
	uint32_t core_flags;	/* MVGAL_CORE_* */
	uint32_t stats_interval; /* seconds */
	uint64_t caps;		/* MVGAL_CAP_* */
	char driver_version[32]; /* "major.minor.patch" of the DRM driver */
};

/**
 * mvgal_open() - open the mvgal render node
 * @out: (out) the device
 *
 * Finds the DRM device whose driver is "mvgal" through libdrm's device
 * enumeration. Return: 0, -ENODEV when the module is not loaded, or the
 * errno of the failed open (e.g. -EACCES).
 */
MVGAL_API int mvgal_open(struct mvgal **out);

/** mvgal_open_path() - open a given DRM node that must be an mvgal node. */
MVGAL_API int mvgal_open_path(const char *path, struct mvgal **out);

/** mvgal_close() - close a device; NULL is allowed. */
MVGAL_API void mvgal_close(struct mvgal *dev);

/** mvgal_fd() - the DRM file descriptor of the device. */
MVGAL_API int mvgal_fd(const struct mvgal *dev);

/** mvgal_node_path() - the /dev/dri path the device was opened from. */
MVGAL_API const char *mvgal_node_path(const struct mvgal *dev);

/** mvgal_get_info() - fill @info from the module. */
MVGAL_API int mvgal_get_info(struct mvgal *dev, struct mvgal_info *info);

/** mvgal_cap_name() - name of one MVGAL_CAP_* bit, or NULL if unknown. */
MVGAL_API const char *mvgal_cap_name(uint64_t cap);

/** The contents of mvgal.conf; see etc/mvgal.conf for every key. */
struct mvgal_config {
	/* [core] */
	bool enable_memory_migration;
	bool enable_dmabuf;
	unsigned int stats_interval;
	/* [gpu_N] */
	uint64_t memory_limit_mb[MVGAL_MAX_GPUS];
	/* [dri] */
	char device_pattern[256];
	bool enable_prime;
};

/** mvgal_config_defaults() - fill @cfg with every key's default. */
MVGAL_API void mvgal_config_defaults(struct mvgal_config *cfg);

/**
 * mvgal_config_load() - parse a configuration file
 * @path: the file; NULL means $MVGAL_CONFIG, else MVGAL_CONFIG_PATH
 * @cfg: (out) defaults overlaid with the file's keys; on failure, defaults
 * @err: (out, optional) a message naming the file, line and key
 * @errlen: size of @err
 *
 * Unknown sections or keys, duplicate keys and malformed values are
 * rejected. Return: 0, -ENOENT when the file does not exist, -EINVAL when
 * it is malformed, -EFBIG when it is larger than 1 MiB, or the errno of a
 * failed read.
 */
MVGAL_API int mvgal_config_load(const char *path, struct mvgal_config *cfg,
				char *err, size_t errlen);

/** mvgal_config_path() - the path mvgal_config_load(NULL, ...) reads. */
MVGAL_API const char *mvgal_config_path(void);

#ifdef __cplusplus
}
#endif

#endif /* MVGAL_MVGAL_H */
