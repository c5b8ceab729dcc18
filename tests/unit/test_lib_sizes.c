// SPDX-License-Identifier: GPL-2.0
/*
 * libmvgal's sized entry points, as a program built against a later
 * header than the library's calls them: a struct larger than the library
 * knows gets its tail zeroed, never left as it was; a struct of ABI 1's
 * size gets exactly that many bytes. The configuration calls need no
 * device (the device calls: tests/selftests/uapi_test.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"

#define GUARD 0xA5
#define MORE 32
#define V1_CONFIG 360	/* sizeof(struct mvgal_config) in ABI 1 */

/*
 * The element sizes of ABI 1 that the library's unsized calls and a
 * stride of 0 use: the sizes tests/abi/abi.h asserts for ABI 1's stored
 * headers, which do not have these names.
 */
_Static_assert(MVGAL_BO_ENTRY_SIZE_V1 == 448, "bo_entry");
_Static_assert(MVGAL_HEAP_REGION_SIZE_V1 == 56, "heap_region");
_Static_assert(MVGAL_LRU_ENTRY_SIZE_V1 == 40, "lru_entry");
_Static_assert(MVGAL_HARVEST_ENTRY_SIZE_V1 == 32, "harvest_entry");
_Static_assert(MVGAL_ACCESS_SIZE_V1 == 32, "access");

/*
 * Today's sizes of the structs that grew past ABI 1 at their end: whole
 * 8-byte units, each version a size of its own. A struct that grows
 * again changes these on purpose.
 */
_Static_assert(sizeof(struct drm_mvgal_bo_info) == 688,
	       "bo_info: 432 in ABI 1, + per-GPU bytes and accesses");
_Static_assert(sizeof(struct drm_mvgal_bo_entry) == 704,
	       "bo_entry: 448 in ABI 1, ends with a bo_info");

static bool all_are(const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

TEST(config_defaults_zero_a_larger_struct)
{
	uint8_t buf[sizeof(struct mvgal_config) + MORE];
	struct mvgal_config *c = (struct mvgal_config *)buf, ref;

	memset(buf, GUARD, sizeof(buf));
	mvgal_config_defaults_sz(c, sizeof(buf));
	EXPECT_TRUE(all_are(buf + sizeof(*c), MORE, 0));
	mvgal_config_defaults(&ref);
	EXPECT_EQ(0, memcmp(&ref, c, sizeof(ref)));
	EXPECT_EQ(64, c->graphics_replicate_mb);
	EXPECT_EQ(0, c->pad_v1);
	EXPECT_EQ(0, c->pad_v2);
}

TEST(config_defaults_fill_exactly_abi1s_size)
{
	uint8_t buf[sizeof(struct mvgal_config) + MORE];
	struct mvgal_config *c = (struct mvgal_config *)buf;

	_Static_assert(sizeof(struct mvgal_config) > V1_CONFIG,
		       "a grown struct needs a size of its own");
	memset(buf, GUARD, sizeof(buf));
	mvgal_config_defaults_sz(c, V1_CONFIG);
	EXPECT_TRUE(all_are(buf + V1_CONFIG, sizeof(buf) - V1_CONFIG, GUARD));
	EXPECT_EQ(2, c->mirror_hold_windows);
}

TEST(config_load_zeroes_a_larger_struct)
{
	uint8_t buf[sizeof(struct mvgal_config) + MORE];
	struct mvgal_config *c = (struct mvgal_config *)buf;
	char path[] = "/tmp/mvgal-sizes-XXXXXX";
	const char *text = "[policy]\ngraphics_replicate_mb = 7\n";
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(text), write(fd, text, strlen(text)));
	close(fd);
	memset(buf, GUARD, sizeof(buf));
	ASSERT_EQ(0, mvgal_config_load_sz(path, c, NULL, 0, sizeof(buf)));
	EXPECT_TRUE(all_are(buf + sizeof(*c), MORE, 0));
	EXPECT_EQ(7, c->graphics_replicate_mb);
	/* Into ABI 1's struct: its bytes only. */
	memset(buf, GUARD, sizeof(buf));
	ASSERT_EQ(0, mvgal_config_load_sz(path, c, NULL, 0, V1_CONFIG));
	EXPECT_TRUE(all_are(buf + V1_CONFIG, sizeof(buf) - V1_CONFIG, GUARD));
	EXPECT_EQ(8, c->mirror_start_reads);
	unlink(path);
	/* Smaller than any struct there was: refused, nothing written. */
	memset(buf, GUARD, sizeof(buf));
	EXPECT_EQ(-EINVAL, mvgal_config_load_sz(path, c, NULL, 0, 100));
	EXPECT_TRUE(all_are(buf, sizeof(buf), GUARD));
	EXPECT_EQ(-EINVAL, mvgal_config_apply_sz(c, 100));
}

TEST_HARNESS_MAIN
