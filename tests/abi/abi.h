/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ABI tests share. They are compiled with -I tests/abi/v1: the
 * headers of ABI 1 (libmvgal 0.1 to 0.4), as a program built then saw
 * them, and linked against today's libmvgal.so, as that program runs now.
 * Include after kselftest_harness.h.
 */
#ifndef MVGAL_TEST_ABI_H
#define MVGAL_TEST_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#include "../../lib/abi_v1.h"

/* These programs must see ABI 1's headers, not today's. */
#if MVGAL_ABI_VERSION != 1
#error "tests/abi must be compiled against tests/abi/v1"
#endif

/* The library's ABI 1 sizes are those of the stored headers. */
_Static_assert(sizeof(struct mvgal_info) == MVGAL_V1_INFO_SIZE, "info");
_Static_assert(sizeof(struct mvgal_config) == MVGAL_V1_CONFIG_SIZE, "config");
_Static_assert(sizeof(struct drm_mvgal_bo_info) == MVGAL_V1_BO_INFO_SIZE, "bo_info");
_Static_assert(sizeof(struct drm_mvgal_gpu_info) == MVGAL_V1_GPU_INFO_SIZE, "gpu_info");
_Static_assert(sizeof(struct drm_mvgal_gpu_link) == MVGAL_V1_GPU_LINK_SIZE, "gpu_link");
_Static_assert(sizeof(struct drm_mvgal_stats) == MVGAL_V1_STATS_SIZE, "stats");
_Static_assert(sizeof(struct drm_mvgal_path) == MVGAL_V1_PATH_SIZE, "path");
_Static_assert(sizeof(struct drm_mvgal_migrate) == MVGAL_V1_MIGRATE_SIZE, "migrate");
_Static_assert(sizeof(struct drm_mvgal_pool_lru) == MVGAL_V1_POOL_LRU_SIZE, "pool_lru");
_Static_assert(sizeof(struct drm_mvgal_advise) == MVGAL_V1_ADVISE_SIZE, "advise");
/*
 * The arrays' element sizes the library uses are today's uapi's
 * MVGAL_*_SIZE_V1, names ABI 1's headers do not have, so their values
 * are spelled out here; tests/unit/test_lib_sizes.c asserts that the
 * uapi's names have these same values.
 */
_Static_assert(sizeof(struct drm_mvgal_bo_entry) == 448, "MVGAL_BO_ENTRY_SIZE_V1");
_Static_assert(sizeof(struct drm_mvgal_heap_region) == 56, "MVGAL_HEAP_REGION_SIZE_V1");
_Static_assert(sizeof(struct drm_mvgal_lru_entry) == 40, "MVGAL_LRU_ENTRY_SIZE_V1");
_Static_assert(sizeof(struct drm_mvgal_harvest_entry) == 32, "MVGAL_HARVEST_ENTRY_SIZE_V1");
_Static_assert(sizeof(struct drm_mvgal_access) == 32, "MVGAL_ACCESS_SIZE_V1");

#define ABI_GUARD 0xA5
#define ABI_SLACK 256	/* guard bytes after each struct or array */

/*
 * A buffer for @n bytes of struct(s) with ABI_SLACK guard bytes after
 * them, all ABI_GUARD. Freed with free().
 */
static inline void *abi_guarded(size_t n)
{
	unsigned char *p = malloc(n + ABI_SLACK);

	if (p)
		memset(p, ABI_GUARD, n + ABI_SLACK);
	return p;
}

/* Are the guard bytes after the first @n bytes of @p intact? */
static inline bool abi_guard_ok(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p + n;

	for (size_t i = 0; i < ABI_SLACK; i++)
		if (b[i] != ABI_GUARD)
			return false;
	return true;
}

/*
 * Room for @n bytes that end where an inaccessible page begins: reading
 * one byte past them faults. Freed with abi_fenced_free().
 */
static inline void *abi_fenced(size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = ((n + pg - 1) / pg + 1) * pg;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + len - pg, pg, PROT_NONE)) {
		munmap(p, len);
		return NULL;
	}
	return p + len - pg - n;
}

static inline void abi_fenced_free(void *q, size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = ((n + pg - 1) / pg + 1) * pg;

	munmap((unsigned char *)q + n + pg - len, len);
}

#endif /* MVGAL_TEST_ABI_H */
