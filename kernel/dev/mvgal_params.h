/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameters: the [core] settings of mvgal.conf, with the same ranges
 * the config parser enforces (core/mvgal_conf.c), plus the chunk size, which
 * is fixed for the life of the module.
 */
#ifndef MVGAL_DEV_PARAMS_H
#define MVGAL_DEV_PARAMS_H

#include <linux/types.h>

/* [core] settings, module parameters. */
extern bool mvgal_enable_memory_migration;
extern bool mvgal_enable_dmabuf;
extern bool mvgal_movable_pools;
extern unsigned int mvgal_stats_interval;
extern unsigned int mvgal_chunk_size;
extern unsigned int mvgal_max_gpus;
extern unsigned int mvgal_max_pool_mb;
extern int mvgal_force_method;
extern unsigned int mvgal_dma_timeout_ms;
extern unsigned int mvgal_exec_timeout_ms;
extern unsigned int mvgal_evict_policy;
extern bool mvgal_prefetch;
extern unsigned int mvgal_mirror_window_ms;
extern unsigned int mvgal_mirror_start_reads;
extern unsigned int mvgal_mirror_stop_writes;
extern unsigned int mvgal_mirror_hold_windows;
extern unsigned int mvgal_graphics_replicate_mb;
extern unsigned int mvgal_max_file_jobs;
extern unsigned int mvgal_max_file_meta_mb;
extern unsigned int mvgal_max_staged_bytes;
extern unsigned int mvgal_staging_kb;
extern unsigned int mvgal_staging_user_pct;
extern bool mvgal_lean_begin;
extern bool mvgal_job_boost;

int mvgal_params_check(void);

#endif /* MVGAL_DEV_PARAMS_H */
