// SPDX-License-Identifier: GPL-2.0
/*
 * A program built against ABI 1's headers (tests/abi/v1) and run with
 * today's libmvgal.so: the configuration calls read and fill exactly its
 * struct mvgal_config, not the larger one of today's header, with the
 * values documented for ABI 1. Runs on the host, with the unit tests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "abi.h"

/* The defaults etc/mvgal.conf and README document for every ABI 1 key. */
static void expect_defaults(struct __test_metadata *_metadata,
			    const struct mvgal_config *c)
{
	EXPECT_TRUE(c->enable_memory_migration);
	EXPECT_TRUE(c->enable_dmabuf);
	EXPECT_EQ(1, c->stats_interval);
	for (int g = 0; g < MVGAL_MAX_GPUS; g++)
		EXPECT_EQ(0, c->memory_limit_mb[g]);
	EXPECT_STREQ("/dev/dri/card*", c->device_pattern);
	EXPECT_TRUE(c->enable_prime);
	EXPECT_EQ(0, c->evict_policy);
	EXPECT_TRUE(c->prefetch);
	EXPECT_EQ(1000, c->mirror_window_ms);
	EXPECT_EQ(8, c->mirror_start_reads);
	EXPECT_EQ(4, c->mirror_stop_writes);
	EXPECT_EQ(2, c->mirror_hold_windows);
}

TEST(config_defaults_fill_only_the_old_struct)
{
	struct mvgal_config *c = abi_guarded(sizeof(*c));

	ASSERT_NE(NULL, c);
	mvgal_config_defaults(c);
	EXPECT_TRUE(abi_guard_ok(c, sizeof(*c)));
	expect_defaults(_metadata, c);
	free(c);
}

static char *write_conf(const char *text)
{
	static char path[32];
	int fd;

	strcpy(path, "/tmp/mvgal-abi-XXXXXX");
	fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

TEST(config_load_fills_only_the_old_struct)
{
	struct mvgal_config *c = abi_guarded(sizeof(*c));
	char *path = write_conf("[core]\nstats_interval = 9\n"
				"[gpu_3]\nmemory_limit_mb = 128\n"
				"[policy]\nmirror_hold_windows = 5\n");
	char err[128];

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, path);
	ASSERT_EQ(0, mvgal_config_load(path, c, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_TRUE(abi_guard_ok(c, sizeof(*c)));
	EXPECT_EQ(9, c->stats_interval);
	EXPECT_EQ(128, c->memory_limit_mb[3]);
	EXPECT_EQ(5, c->mirror_hold_windows);
	EXPECT_EQ(8, c->mirror_start_reads);
	unlink(path);

	/* A rejected file: the defaults, and still nothing past the struct. */
	memset(c, ABI_GUARD, sizeof(*c) + ABI_SLACK);
	path = write_conf("[core]\nno_such_key = 1\n");
	ASSERT_NE(NULL, path);
	EXPECT_EQ(-EINVAL, mvgal_config_load(path, c, err, sizeof(err)));
	EXPECT_TRUE(abi_guard_ok(c, sizeof(*c)));
	expect_defaults(_metadata, c);
	unlink(path);

	/* A file that does not exist: the same. */
	memset(c, ABI_GUARD, sizeof(*c) + ABI_SLACK);
	EXPECT_EQ(-ENOENT, mvgal_config_load("/nonexistent/mvgal.conf", c,
					     NULL, 0));
	EXPECT_TRUE(abi_guard_ok(c, sizeof(*c)));
	expect_defaults(_metadata, c);
	free(c);
}

/*
 * The calls that read a configuration read no byte past the old struct:
 * it ends where an inaccessible page begins. (On the host there is no
 * module: writing the parameters fails, after the reads.)
 */
TEST(config_readers_stay_inside_the_old_struct)
{
	struct mvgal_config *c = abi_fenced(sizeof(*c));
	int ret;

	ASSERT_NE(NULL, c);
	mvgal_config_defaults(c);
	expect_defaults(_metadata, c);
	ret = mvgal_config_apply(c);
	EXPECT_NE(-EINVAL, ret);
	EXPECT_EQ(-ENOENT, mvgal_config_load("/nonexistent", c, NULL, 0));
	expect_defaults(_metadata, c);
	abi_fenced_free(c, sizeof(*c));
}

TEST_HARNESS_MAIN
