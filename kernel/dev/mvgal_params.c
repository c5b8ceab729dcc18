// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters: the [core] settings of mvgal.conf, with the same
 * ranges the config parser enforces (core/mvgal_conf.c), plus the chunk
 * size, which is fixed for the life of the module.
 */

#include <linux/mm.h>
#include <linux/moduleparam.h>

#include <drm/mvgal_drm.h>

#include "core/mvgal_conf.h"
#include "dev/mvgal_params.h"

bool mvgal_enable_memory_migration = true;

module_param_named(enable_memory_migration, mvgal_enable_memory_migration,
		   bool, 0644);

MODULE_PARM_DESC(enable_memory_migration,
		 "Allow data to migrate between GPUs and host (default: true)");

/*
 * Pools a driver may move (a dynamic exporter, CONFIG_DMABUF_MOVE_NOTIFY)
 * are pinned unless this is set: following moves keeps the pool in device
 * memory, but the multi-process stress test still finds lost bytes on such
 * pools, so it is not the default yet.
 */
bool mvgal_movable_pools;

module_param_named(movable_pools, mvgal_movable_pools, bool, 0644);

MODULE_PARM_DESC(movable_pools,
		 "Let a pool's driver move it (device memory where the driver keeps it there) instead of pinning it, keeping a handle of it in the attach's DRM file; for pools attached after it is set (default: false)");

bool mvgal_enable_dmabuf = true;

module_param_named(enable_dmabuf, mvgal_enable_dmabuf, bool, 0644);

MODULE_PARM_DESC(enable_dmabuf,
		 "Allow buffers to be shared as DMA-BUF (default: true)");

unsigned int mvgal_stats_interval = 1;

static int mvgal_param_set_stats_interval(const char *val,
					  const struct kernel_param *kp)
{
	const struct mvgal_conf_key *k =
		&mvgal_conf_keys[MVGAL_CONF_STATS_INTERVAL];
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 10, &v);
	if (ret)
		return ret;
	if (v < k->min || v > k->max)
		return -ERANGE;
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops mvgal_stats_interval_ops = {
	.set = mvgal_param_set_stats_interval,
	.get = param_get_uint,
};

module_param_cb(stats_interval, &mvgal_stats_interval_ops,
		&mvgal_stats_interval, 0644);

MODULE_PARM_DESC(stats_interval,
		 "Statistics sampling interval in seconds, 1..3600 (default: 1)");

/* Read-only once loaded: chunk bitmaps of live buffers depend on it. */
unsigned int mvgal_chunk_size = 64 * 1024;

module_param_named(chunk_size, mvgal_chunk_size, uint, 0444);

MODULE_PARM_DESC(chunk_size,
		 "Coherence chunk size in bytes, a power of two from PAGE_SIZE to 16 MiB (default: 65536)");

unsigned int mvgal_max_gpus = MVGAL_MAX_GPUS;

module_param_named(max_gpus, mvgal_max_gpus, uint, 0444);

MODULE_PARM_DESC(max_gpus,
		 "GPUs that can be attached at once, 1..8 (default: 8)");

unsigned int mvgal_max_pool_mb;

module_param_named(max_pool_mb, mvgal_max_pool_mb, uint, 0644);

MODULE_PARM_DESC(max_pool_mb,
		 "Largest pool a GPU may lend, in MiB; 0 = no limit (default: 0)");

/*
 * For tests and for tuning: make the path selector use one method
 * wherever it is possible (-1: let the cost model decide).
 */
int mvgal_force_method = -1;

static int mvgal_param_set_force_method(const char *val,
					const struct kernel_param *kp)
{
	int v, ret;

	ret = kstrtoint(val, 10, &v);
	if (ret)
		return ret;
	if (v < -1 || v > MVGAL_METHOD_EXEC)
		return -ERANGE;
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops mvgal_force_method_ops = {
	.set = mvgal_param_set_force_method,
	.get = param_get_int,
};

module_param_cb(force_method, &mvgal_force_method_ops, &mvgal_force_method,
		0644);

MODULE_PARM_DESC(force_method,
		 "Use this transfer method where possible: -1 auto, 0 in place, 1 p2p, 2 cpu copy, 3 staging, 4 copy executor (default: -1)");

unsigned int mvgal_evict_policy = MVGAL_EVICT_POLICY_PREDICT;

static int mvgal_param_set_evict_policy(const char *val,
					const struct kernel_param *kp)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 10, &v);
	if (ret)
		return ret;
	if (v > MVGAL_EVICT_POLICY_LRU)
		return -ERANGE;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops mvgal_evict_policy_ops = {
	.set = mvgal_param_set_evict_policy,
	.get = param_get_uint,
};

module_param_cb(evict_policy, &mvgal_evict_policy_ops, &mvgal_evict_policy,
		0644);

MODULE_PARM_DESC(evict_policy,
		 "Which placement a full pool evicts: 0 furthest predicted next use, 1 least recently used (default: 0)");

/* An unsigned setting in @min..@max; a bad one is -ERANGE and changes nothing. */
static int mvgal_param_set_range(const char *val, const struct kernel_param *kp,
				 unsigned int min, unsigned int max)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 10, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static int mvgal_param_set_pos(const char *val, const struct kernel_param *kp)
{
	return mvgal_param_set_range(val, kp, 1, 1000000);
}

static int mvgal_param_set_hold(const char *val, const struct kernel_param *kp)
{
	return mvgal_param_set_range(val, kp, 0, 1000000);
}

static const struct kernel_param_ops mvgal_pos_ops = {
	.set = mvgal_param_set_pos,
	.get = param_get_uint,
};

static const struct kernel_param_ops mvgal_hold_ops = {
	.set = mvgal_param_set_hold,
	.get = param_get_uint,
};

/* A percentage: 1..100. */
static int mvgal_param_set_pct(const char *val, const struct kernel_param *kp)
{
	return mvgal_param_set_range(val, kp, 1, 100);
}

static const struct kernel_param_ops mvgal_pct_ops = {
	.set = mvgal_param_set_pct,
	.get = param_get_uint,
};

unsigned int mvgal_mirror_window_ms = 1000;

module_param_cb(mirror_window_ms, &mvgal_pos_ops, &mvgal_mirror_window_ms,
		0644);

MODULE_PARM_DESC(mirror_window_ms,
		 "Mirror controller: counting window in ms, 1..1000000 (default: 1000)");

unsigned int mvgal_mirror_start_reads = 8;

module_param_cb(mirror_start_reads, &mvgal_pos_ops, &mvgal_mirror_start_reads,
		0644);

MODULE_PARM_DESC(mirror_start_reads,
		 "Mirror controller: remote reads by a GPU in a window that start replicas there (default: 8)");

unsigned int mvgal_mirror_stop_writes = 4;

module_param_cb(mirror_stop_writes, &mvgal_pos_ops, &mvgal_mirror_stop_writes,
		0644);

MODULE_PARM_DESC(mirror_stop_writes,
		 "Mirror controller: writes in a window that stop replicating (default: 4)");

unsigned int mvgal_mirror_hold_windows = 2;

module_param_cb(mirror_hold_windows, &mvgal_hold_ops,
		&mvgal_mirror_hold_windows, 0644);

MODULE_PARM_DESC(mirror_hold_windows,
		 "Mirror controller: windows a start or stop holds before the opposite change (default: 2)");

/* A placement rule's threshold: policy, so a parameter, not the ABI. */
unsigned int mvgal_graphics_replicate_mb = 64;

module_param_cb(graphics_replicate_mb, &mvgal_hold_ops,
		&mvgal_graphics_replicate_mb, 0644);

MODULE_PARM_DESC(graphics_replicate_mb,
		 "ADVISE: graphics buffers smaller than this many MiB, accessed by several GPUs, replicate; larger ones are pinned, 0..1000000 (default: 64)");

/* What one open file may have queued or hold (dev/mvgal_quota.c). */
unsigned int mvgal_max_file_jobs = 256;

module_param_cb(max_file_jobs, &mvgal_pos_ops, &mvgal_max_file_jobs, 0644);

MODULE_PARM_DESC(max_file_jobs,
		 "Migration jobs one open file may have unfinished, 1..1000000; more are -ENOBUFS (default: 256)");

unsigned int mvgal_max_file_meta_mb = 64;

module_param_cb(max_file_meta_mb, &mvgal_pos_ops, &mvgal_max_file_meta_mb,
		0644);

MODULE_PARM_DESC(max_file_meta_mb,
		 "MiB of buffer metadata (the buffers, their chunk records as chunks are touched, the records of placement exports) the buffers one open file created may hold, 1..1000000; a call needing more is -EDQUOT (default: 64)");

/* Staged writes (BO_PWRITE with MVGAL_RW_STAGED, move/mvgal_stage.c). */
unsigned int mvgal_max_staged_bytes = 64 * 1024;

module_param_cb(max_staged_bytes, &mvgal_hold_ops, &mvgal_max_staged_bytes,
		0644);

MODULE_PARM_DESC(max_staged_bytes,
		 "Largest BO_PWRITE that MVGAL_RW_STAGED stages rather than waits, in bytes, 0..1000000; 0 stages none (default: 65536)");

unsigned int mvgal_staging_kb = 1024;

module_param_cb(staging_kb, &mvgal_pos_ops, &mvgal_staging_kb, 0644);

MODULE_PARM_DESC(staging_kb,
		 "KiB of kernel memory the staged writes in flight may hold per device, 1..1000000; a staged write waits for room (default: 1024)");

/*
 * How long a DMA-engine copy may take before mvgal gives up on the
 * engine for it: the copy fails, as a failed descriptor does.
 */
unsigned int mvgal_dma_timeout_ms = 10000;

module_param_cb(dma_timeout_ms, &mvgal_pos_ops, &mvgal_dma_timeout_ms, 0644);

MODULE_PARM_DESC(dma_timeout_ms,
		 "Milliseconds a window of DMA-engine descriptors may take before the copy fails (default: 10000)");

/*
 * How long a copy executor may take to report a copy and have its fence
 * signal. Past it the copy fails and the executor is unregistered: its
 * GPU may still write, so the CPU does not make the copy in its place.
 * The wait is uninterruptible (a CPU fault may be waiting, holding its
 * process's mmap lock), so it stays well under the hung-task watchdog's
 * 120 s: at most a minute.
 */
unsigned int mvgal_exec_timeout_ms = 10000;

static int mvgal_param_set_exec_timeout(const char *val,
					const struct kernel_param *kp)
{
	return mvgal_param_set_range(val, kp, 1, 60000);
}

static const struct kernel_param_ops mvgal_exec_timeout_ops = {
	.set = mvgal_param_set_exec_timeout,
	.get = param_get_uint,
};

module_param_cb(exec_timeout_ms, &mvgal_exec_timeout_ops,
		&mvgal_exec_timeout_ms, 0644);

MODULE_PARM_DESC(exec_timeout_ms,
		 "Milliseconds a copy executor may take for one copy, 1..60000 (default: 10000)");

/*
 * What one user's staged writes may hold of staging_kb. Each waits for
 * GPU work that may take any time, so a user holding it all would make
 * every other user's staged writes wait for its work. A quarter leaves
 * room for three more users at their full share, and is still 64 writes
 * of a page at the default staging_kb, enough to keep a GPU's queue fed.
 */
unsigned int mvgal_staging_user_pct = 25;

module_param_cb(staging_user_pct, &mvgal_pct_ops, &mvgal_staging_user_pct,
		0644);

MODULE_PARM_DESC(staging_user_pct,
		 "Percent of staging_kb the staged writes in flight of one user (uid) may hold, 1..100; more wait for that user's own to land (default: 25)");

bool mvgal_prefetch = true;

module_param_named(prefetch, mvgal_prefetch, bool, 0644);

MODULE_PARM_DESC(prefetch,
		 "Prefetch the buffers a GPU is predicted to use next (default: true)");

/**
 * mvgal_params_check() - validate the load-time parameters
 *
 * Return: 0, or -EINVAL naming the parameter in the kernel log.
 */
int mvgal_params_check(void)
{
	if (!mvgal_chunk_size_valid(mvgal_chunk_size, PAGE_SIZE)) {
		pr_err("mvgal: chunk_size=%u is not a power of two in [%lu, 16 MiB]\n",
		       mvgal_chunk_size, PAGE_SIZE);
		return -EINVAL;
	}
	if (!mvgal_max_gpus || mvgal_max_gpus > MVGAL_MAX_GPUS) {
		pr_err("mvgal: max_gpus=%u is not in [1, %d]\n", mvgal_max_gpus,
		       MVGAL_MAX_GPUS);
		return -EINVAL;
	}
	return 0;
}

/*
 * Two fast paths that can be turned off, so that a benchmark can measure
 * what each one saves against the plain way (tests/bench).
 */
bool mvgal_lean_begin = true;

module_param_named(lean_begin, mvgal_lean_begin, bool, 0644);

MODULE_PARM_DESC(lean_begin,
		 "A BEGIN whose data is current at the GPU takes only the buffers' own locks, not their reservations (default: true)");

bool mvgal_job_boost = true;

module_param_named(job_boost, mvgal_job_boost, bool, 0644);

MODULE_PARM_DESC(job_boost,
		 "A queued migration job that a higher-priority job or a CPU access waits for runs at that priority (default: true)");
