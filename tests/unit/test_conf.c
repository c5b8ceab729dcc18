// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the config core (kernel/core/mvgal_conf.c, the code the
 * module runs) and of libmvgal's mvgal.conf parser. Host only, no module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#include "core/mvgal_conf.h"
#include "kselftest_harness.h"

#define S(x) x, strlen(x)

TEST(bool_values)
{
	static const char *const yes[] = { "true", "yes", "on", "1", "TRUE", "Yes" };
	static const char *const no[] = { "false", "no", "off", "0", "False", "OFF" };
	static const char *const bad[] = { "", "tru", "2", " true", "true ", "y", "nope" };
	unsigned int i;
	bool b;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		EXPECT_EQ(0, mvgal_conf_parse_bool(S(yes[i]), &b));
		EXPECT_TRUE(b);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		EXPECT_EQ(0, mvgal_conf_parse_bool(S(no[i]), &b));
		EXPECT_FALSE(b);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = true;
		EXPECT_EQ(-EINVAL, mvgal_conf_parse_bool(S(bad[i]), &b));
		EXPECT_TRUE(b); /* untouched on failure */
	}
}

TEST(uint_values)
{
	unsigned long long v = 42;

	EXPECT_EQ(0, mvgal_conf_parse_uint(S("0"), 0, 10, &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(0, mvgal_conf_parse_uint(S("3600"), 1, 3600, &v));
	EXPECT_EQ(3600, v);
	EXPECT_EQ(0, mvgal_conf_parse_uint(S("18446744073709551615"), 0, ~0ULL, &v));
	EXPECT_EQ(~0ULL, v);
	v = 42;
	EXPECT_EQ(-ERANGE, mvgal_conf_parse_uint(S("18446744073709551616"), 0, ~0ULL, &v));
	EXPECT_EQ(-ERANGE, mvgal_conf_parse_uint(S("99999999999999999999999"), 0, ~0ULL, &v));
	EXPECT_EQ(-ERANGE, mvgal_conf_parse_uint(S("0"), 1, 3600, &v));
	EXPECT_EQ(-ERANGE, mvgal_conf_parse_uint(S("3601"), 1, 3600, &v));
	EXPECT_EQ(-EINVAL, mvgal_conf_parse_uint(S(""), 0, 10, &v));
	EXPECT_EQ(-EINVAL, mvgal_conf_parse_uint(S("-1"), 0, 10, &v));
	EXPECT_EQ(-EINVAL, mvgal_conf_parse_uint(S("+1"), 0, 10, &v));
	EXPECT_EQ(-EINVAL, mvgal_conf_parse_uint(S("1a"), 0, 10, &v));
	EXPECT_EQ(-EINVAL, mvgal_conf_parse_uint(S("0x10"), 0, 100, &v));
	EXPECT_EQ(-EINVAL, mvgal_conf_parse_uint(S("1 0"), 0, 100, &v));
	EXPECT_EQ(42, v); /* untouched on failure */
}

TEST(section_names)
{
	unsigned int gpu = 99;

	EXPECT_EQ(MVGAL_SEC_CORE, mvgal_conf_section(S("core"), 8, &gpu));
	EXPECT_EQ(MVGAL_SEC_DRI, mvgal_conf_section(S("dri"), 8, &gpu));
	EXPECT_EQ(MVGAL_SEC_GPU, mvgal_conf_section(S("gpu_0"), 8, &gpu));
	EXPECT_EQ(0, gpu);
	EXPECT_EQ(MVGAL_SEC_GPU, mvgal_conf_section(S("gpu_7"), 8, &gpu));
	EXPECT_EQ(7, gpu);
	EXPECT_EQ(-ERANGE, mvgal_conf_section(S("gpu_8"), 8, &gpu));
	EXPECT_EQ(-ERANGE, mvgal_conf_section(S("gpu_99999999999999999999"), 8, &gpu));
	EXPECT_EQ(-EINVAL, mvgal_conf_section(S("gpu_"), 8, &gpu));
	EXPECT_EQ(-EINVAL, mvgal_conf_section(S("gpu_01"), 8, &gpu));
	EXPECT_EQ(-EINVAL, mvgal_conf_section(S("gpu_x"), 8, &gpu));
	EXPECT_EQ(-EINVAL, mvgal_conf_section(S("gpu"), 8, &gpu));
	EXPECT_EQ(-EINVAL, mvgal_conf_section(S("Core"), 8, &gpu));
	EXPECT_EQ(-EINVAL, mvgal_conf_section(S(""), 8, &gpu));
	EXPECT_EQ(7, gpu);
}

TEST(key_lookup)
{
	int i;

	for (i = 0; i < MVGAL_CONF_NKEYS; i++)
		EXPECT_EQ(i, mvgal_conf_lookup(mvgal_conf_keys[i].section,
					       S(mvgal_conf_keys[i].name)));
	EXPECT_EQ(-ENOENT, mvgal_conf_lookup(MVGAL_SEC_DRI, S("enable_dmabuf")));
	EXPECT_EQ(-ENOENT, mvgal_conf_lookup(MVGAL_SEC_CORE, S("memory_limit_mb")));
	EXPECT_EQ(-ENOENT, mvgal_conf_lookup(MVGAL_SEC_CORE, S("enable_dmabu")));
	EXPECT_EQ(-ENOENT, mvgal_conf_lookup(MVGAL_SEC_CORE, S("")));
}

TEST(string_values)
{
	char s[300];

	EXPECT_EQ(0, mvgal_conf_check_string(S("/dev/dri/card*")));
	EXPECT_EQ(-EINVAL, mvgal_conf_check_string(S("")));
	EXPECT_EQ(-EINVAL, mvgal_conf_check_string(S("/dev/\tx")));
	EXPECT_EQ(-EINVAL, mvgal_conf_check_string(S("/dev/\x7f")));
	EXPECT_EQ(-EINVAL, mvgal_conf_check_string(S("/dev/\xc3\xa9")));
	memset(s, 'a', sizeof(s));
	EXPECT_EQ(0, mvgal_conf_check_string(s, 255));
	EXPECT_EQ(-ERANGE, mvgal_conf_check_string(s, 256));
}

TEST(chunk_sizes)
{
	EXPECT_TRUE(mvgal_chunk_size_valid(4096, 4096));
	EXPECT_TRUE(mvgal_chunk_size_valid(65536, 4096));
	EXPECT_TRUE(mvgal_chunk_size_valid(16 << 20, 4096));
	EXPECT_FALSE(mvgal_chunk_size_valid(32 << 20, 4096));
	EXPECT_FALSE(mvgal_chunk_size_valid(2048, 4096));
	EXPECT_FALSE(mvgal_chunk_size_valid(12288, 4096));
	EXPECT_FALSE(mvgal_chunk_size_valid(0, 4096));
	EXPECT_FALSE(mvgal_chunk_size_valid(1ULL << 63, 4096));
}

/* ---- the file parser ---- */

FIXTURE(file) {
	char path[64];
	char err[512];
	struct mvgal_config cfg;
	struct mvgal_config defaults;
};

FIXTURE_SETUP(file)
{
	int fd;

	strcpy(self->path, "/tmp/mvgal-conf-XXXXXX");
	fd = mkstemp(self->path);
	ASSERT_GE(fd, 0);
	close(fd);
	mvgal_config_defaults(&self->defaults);
}

FIXTURE_TEARDOWN(file)
{
	unlink(self->path);
}

static void put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		abort();
}

static int load(FIXTURE_DATA(file) *self, const char *text)
{
	put(self->path, text, strlen(text));
	memset(&self->cfg, 0x5a, sizeof(self->cfg));
	return mvgal_config_load(self->path, &self->cfg, self->err,
				 sizeof(self->err));
}

/* Asserts a rejection: -EINVAL, a message "path:line: ...needle...",
 * and every setting back at its default.
 */
#define EXPECT_REJECTED(text, line, needle) do {				\
	char prefix[96];							\
	EXPECT_EQ(-EINVAL, load(self, text));					\
	snprintf(prefix, sizeof(prefix), "%s:%d: ", self->path, line);		\
	EXPECT_EQ(0, strncmp(self->err, prefix, strlen(prefix)))		\
		TH_LOG("message: %s", self->err);				\
	EXPECT_NE(NULL, strstr(self->err, needle))				\
		TH_LOG("message: %s", self->err);				\
	EXPECT_EQ(0, memcmp(&self->cfg, &self->defaults, sizeof(self->cfg)));	\
} while (0)

TEST_F(file, every_key)
{
	ASSERT_EQ(0, load(self,
		"# comment\n"
		"; another comment\n"
		"\n"
		"[core]\n"
		"enable_memory_migration = false\n"
		"  enable_dmabuf=no  \n"
		"stats_interval = 30\n"
		"[gpu_0]\n"
		"memory_limit_mb = 512\n"
		"[ gpu_7 ]\n"
		"memory_limit_mb = 1048576\n"
		"[dri]\n"
		"device_pattern = /dev/dri/renderD*\n"
		"enable_prime = off\n"
		"[policy]\n"
		"evict_policy = 1\n"
		"prefetch = no\n"
		"mirror_window_ms = 250\n"
		"mirror_start_reads = 3\n"
		"mirror_stop_writes = 9\n"
		"mirror_hold_windows = 0\n"
		"graphics_replicate_mb = 0\n")) TH_LOG("%s", self->err);
	EXPECT_FALSE(self->cfg.enable_memory_migration);
	EXPECT_FALSE(self->cfg.enable_dmabuf);
	EXPECT_EQ(30, self->cfg.stats_interval);
	EXPECT_EQ(512, self->cfg.memory_limit_mb[0]);
	EXPECT_EQ(0, self->cfg.memory_limit_mb[1]);
	EXPECT_EQ(1048576, self->cfg.memory_limit_mb[7]);
	EXPECT_STREQ("/dev/dri/renderD*", self->cfg.device_pattern);
	EXPECT_FALSE(self->cfg.enable_prime);
	EXPECT_EQ(1, self->cfg.evict_policy);
	EXPECT_FALSE(self->cfg.prefetch);
	EXPECT_EQ(250, self->cfg.mirror_window_ms);
	EXPECT_EQ(3, self->cfg.mirror_start_reads);
	EXPECT_EQ(9, self->cfg.mirror_stop_writes);
	EXPECT_EQ(0, self->cfg.mirror_hold_windows);
	EXPECT_EQ(0, self->cfg.graphics_replicate_mb);
	/* Every key was set, and says so. */
	EXPECT_EQ((1ULL << 13) - 1, self->cfg.keys_set);
}

/* keys_set names exactly the keys the file set, nothing from defaults. */
TEST_F(file, keys_set_is_what_the_file_set)
{
	ASSERT_EQ(0, load(self, "[policy]\nprefetch = true\nevict_policy = 0\n"
			  "[core]\nstats_interval = 1\n"))
		TH_LOG("%s", self->err);
	EXPECT_EQ(MVGAL_CONFIG_SET_PREFETCH | MVGAL_CONFIG_SET_EVICT_POLICY |
		  MVGAL_CONFIG_SET_STATS_INTERVAL, self->cfg.keys_set);
	ASSERT_EQ(0, load(self, "[dri]\n# device_pattern = /x\n"));
	EXPECT_EQ(0, self->cfg.keys_set);
	EXPECT_EQ(0, self->defaults.keys_set);
}

/* [gpu:NAME] sections: by device name, kept apart from [gpu_N]. */
TEST_F(file, gpu_sections_by_name)
{
	ASSERT_EQ(0, load(self,
		"[gpu:0000:03:00.0]\nmemory_limit_mb = 96\n"
		"[gpu_0]\nmemory_limit_mb = 128\n"
		"[ gpu:vgem ]\n"
		"[gpu:0000:40:00.0]\nmemory_limit_mb = 0\n"))
		TH_LOG("%s", self->err);
	EXPECT_STREQ("0000:03:00.0", self->cfg.gpu_named[0].name);
	EXPECT_EQ(96, self->cfg.gpu_named[0].memory_limit_mb);
	EXPECT_STREQ("vgem", self->cfg.gpu_named[1].name);
	EXPECT_EQ(0, self->cfg.gpu_named[1].memory_limit_mb);
	EXPECT_STREQ("0000:40:00.0", self->cfg.gpu_named[2].name);
	EXPECT_STREQ("", self->cfg.gpu_named[3].name);
	EXPECT_EQ(128, self->cfg.memory_limit_mb[0]);
	EXPECT_EQ(0, self->cfg.memory_limit_mb[1]);
	EXPECT_EQ(MVGAL_CONFIG_SET_MEMORY_LIMIT_MB, self->cfg.keys_set);
	/* Blanks around the name go; the longest slot name fits. */
	ASSERT_EQ(0, load(self, "[gpu:  x1 ]\n[gpu:1234567890123456789012345678901]\n"))
		TH_LOG("%s", self->err);
	EXPECT_STREQ("x1", self->cfg.gpu_named[0].name);
	EXPECT_EQ(31, strlen(self->cfg.gpu_named[1].name));
}

TEST_F(file, gpu_sections_by_name_rejected)
{
	char text[700];
	int i, n = 0;

	EXPECT_REJECTED("[gpu:]\n", 1, "must be 1..31 bytes");
	EXPECT_REJECTED("[gpu:a b]\n", 1, "byte 0x20 cannot be in a device name");
	EXPECT_REJECTED("[gpu:../x]\n", 1, "byte 0x2f cannot be in a device name");
	EXPECT_REJECTED("[gpu:a\x01]\n", 1, "byte 0x01 cannot be in a device name");
	EXPECT_REJECTED("[gpu:x]\n[gpu:x]\n", 2, "section [gpu:x] twice");
	EXPECT_REJECTED("[gpu:x]\nmemory_limit_mb = 1\nmemory_limit_mb = 2\n", 3,
			"set twice");
	EXPECT_REJECTED("[gpu:x]\nevict_policy = 1\n", 2,
			"unknown key 'evict_policy'");
	snprintf(text, sizeof(text), "[gpu:%032d]\n", 0);
	EXPECT_REJECTED(text, 1, "must be 1..31 bytes");
	for (i = 0; i <= 8; i++)
		n += snprintf(text + n, sizeof(text) - n, "[gpu:g%d]\n", i);
	EXPECT_REJECTED(text, 9, "more than 8 [gpu:NAME] sections");
}

/* [policy] values outside their ranges name the key. */
TEST_F(file, policy_ranges)
{
	EXPECT_REJECTED("[policy]\nevict_policy = 2\n", 2, "key 'evict_policy'");
	EXPECT_REJECTED("[policy]\nmirror_window_ms = 0\n", 2,
			"key 'mirror_window_ms'");
	EXPECT_REJECTED("[policy]\nmirror_start_reads = 0\n", 2,
			"key 'mirror_start_reads'");
	EXPECT_REJECTED("[policy]\nmirror_stop_writes = 1000001\n", 2,
			"key 'mirror_stop_writes'");
	EXPECT_REJECTED("[policy]\nprefetch = maybe\n", 2, "key 'prefetch'");
	EXPECT_REJECTED("[policy]\ngraphics_replicate_mb = 1000001\n", 2,
			"key 'graphics_replicate_mb'");
	EXPECT_REJECTED("[core]\nprefetch = 1\n", 2,
			"unknown key 'prefetch' in section [core]");
}

TEST_F(file, empty_file_gives_defaults)
{
	ASSERT_EQ(0, load(self, ""));
	EXPECT_EQ(0, memcmp(&self->cfg, &self->defaults, sizeof(self->cfg)));
	EXPECT_TRUE(self->cfg.enable_memory_migration);
	EXPECT_TRUE(self->cfg.enable_dmabuf);
	EXPECT_EQ(1, self->cfg.stats_interval);
	EXPECT_STREQ("/dev/dri/card*", self->cfg.device_pattern);
	EXPECT_TRUE(self->cfg.enable_prime);
	EXPECT_EQ(0, self->cfg.evict_policy);
	EXPECT_TRUE(self->cfg.prefetch);
	EXPECT_EQ(1000, self->cfg.mirror_window_ms);
	EXPECT_EQ(8, self->cfg.mirror_start_reads);
	EXPECT_EQ(4, self->cfg.mirror_stop_writes);
	EXPECT_EQ(2, self->cfg.mirror_hold_windows);
	EXPECT_EQ(64, self->cfg.graphics_replicate_mb);
}

/* The shipped etc/mvgal.conf parses and states exactly the defaults. */
TEST_F(file, shipped_config_is_the_defaults)
{
	ASSERT_EQ(0, mvgal_config_load(MVGAL_TOP "/etc/mvgal.conf", &self->cfg,
				       self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0, memcmp(&self->cfg, &self->defaults, sizeof(self->cfg)));
	/* It sets no key: the boot step leaves every module parameter be. */
	EXPECT_EQ(0, self->cfg.keys_set);
}

/* Each key is in the shipped file, commented out at its default. */
TEST_F(file, shipped_config_names_every_key_at_its_default)
{
	char *text = NULL, line[400];
	size_t cap = 0;
	FILE *f = fopen(MVGAL_TOP "/etc/mvgal.conf", "r");
	int id;

	ASSERT_NE(NULL, f);
	ASSERT_LT(0, getdelim(&text, &cap, '\0', f));
	fclose(f);
	for (id = 0; id < MVGAL_CONF_NKEYS; id++) {
		snprintf(line, sizeof(line), "\n#%s = %s\n",
			 mvgal_conf_keys[id].name, mvgal_conf_keys[id].def);
		EXPECT_NE(NULL, strstr(text, line)) TH_LOG("no line '%s'", line + 1);
	}
	free(text);
}

TEST_F(file, crlf_and_no_final_newline)
{
	ASSERT_EQ(0, load(self, "[core]\r\nstats_interval = 5\r\n[dri]\r\nenable_prime = 0"))
		TH_LOG("%s", self->err);
	EXPECT_EQ(5, self->cfg.stats_interval);
	EXPECT_FALSE(self->cfg.enable_prime);
}

TEST_F(file, missing_file)
{
	memset(&self->cfg, 0x5a, sizeof(self->cfg));
	EXPECT_EQ(-ENOENT, mvgal_config_load("/nonexistent/mvgal.conf", &self->cfg,
					     self->err, sizeof(self->err)));
	EXPECT_EQ(0, memcmp(&self->cfg, &self->defaults, sizeof(self->cfg)));
	EXPECT_NE(NULL, strstr(self->err, "/nonexistent/mvgal.conf"));
}

TEST_F(file, unknown_section)
{
	EXPECT_REJECTED("[core]\nstats_interval = 2\n\n[video]\n", 4,
			"unknown section [video]");
}

TEST_F(file, gpu_section_out_of_range)
{
	EXPECT_REJECTED("[gpu_8]\nmemory_limit_mb = 1\n", 1, "GPU index");
}

TEST_F(file, unknown_key)
{
	EXPECT_REJECTED("[core]\nenable_memory_migration = true\nturbo = 1\n", 3,
			"unknown key 'turbo'");
}

TEST_F(file, key_in_wrong_section)
{
	EXPECT_REJECTED("[dri]\nstats_interval = 1\n", 2,
			"unknown key 'stats_interval' in section [dri]");
}

TEST_F(file, key_outside_section)
{
	EXPECT_REJECTED("stats_interval = 1\n", 1, "outside any section");
}

TEST_F(file, line_without_equals)
{
	EXPECT_REJECTED("[core]\nstats_interval 1\n", 2, "neither a section");
}

TEST_F(file, malformed_section_header)
{
	EXPECT_REJECTED("[core\nstats_interval = 1\n", 1, "malformed section");
}

TEST_F(file, missing_key)
{
	EXPECT_REJECTED("[core]\n = 1\n", 2, "missing key");
}

TEST_F(file, bad_bool)
{
	EXPECT_REJECTED("[core]\nenable_dmabuf = maybe\n", 2,
			"key 'enable_dmabuf': 'maybe' is not a boolean");
}

TEST_F(file, empty_value)
{
	EXPECT_REJECTED("[dri]\nenable_prime =\n", 2, "key 'enable_prime'");
}

TEST_F(file, inline_comment_is_not_a_comment)
{
	EXPECT_REJECTED("[core]\nenable_dmabuf = true # on\n", 2,
			"key 'enable_dmabuf'");
}

TEST_F(file, uint_out_of_range)
{
	EXPECT_REJECTED("[core]\nstats_interval = 0\n", 2,
			"key 'stats_interval': 0 is outside 1..3600");
	EXPECT_REJECTED("[gpu_1]\nmemory_limit_mb = 1048577\n", 2,
			"key 'memory_limit_mb'");
}

TEST_F(file, uint_malformed)
{
	EXPECT_REJECTED("[core]\nstats_interval = -5\n", 2,
			"key 'stats_interval': '-5' is not a decimal number");
	EXPECT_REJECTED("[gpu_2]\nmemory_limit_mb = 1G\n", 2,
			"'1G' is not a decimal number");
}

TEST_F(file, duplicate_key)
{
	EXPECT_REJECTED("[core]\nstats_interval = 2\nstats_interval = 3\n", 3,
			"set twice");
	/* Reopening a section does not make a second value legal. */
	EXPECT_REJECTED("[dri]\nenable_prime = 1\n[core]\n[dri]\nenable_prime = 0\n", 5,
			"set twice");
}

TEST_F(file, same_key_in_two_gpu_sections)
{
	ASSERT_EQ(0, load(self, "[gpu_0]\nmemory_limit_mb = 64\n[gpu_1]\nmemory_limit_mb = 128\n"))
		TH_LOG("%s", self->err);
	EXPECT_EQ(64, self->cfg.memory_limit_mb[0]);
	EXPECT_EQ(128, self->cfg.memory_limit_mb[1]);
}

TEST_F(file, device_pattern_rules)
{
	char text[400];

	EXPECT_REJECTED("[dri]\ndevice_pattern = dri/card*\n", 2,
			"not an absolute path");
	snprintf(text, sizeof(text), "[dri]\ndevice_pattern = /%0256d\n", 0);
	EXPECT_REJECTED(text, 2, "longer than 255");
	EXPECT_REJECTED("[dri]\ndevice_pattern = /dev/\xc3\xa9\n", 2,
			"not printable ASCII");
	/* Quotes and backslashes are legal; JSON output escapes them. */
	ASSERT_EQ(0, load(self, "[dri]\ndevice_pattern = /dev/dri/\"a\\b\"*\n"));
	EXPECT_STREQ("/dev/dri/\"a\\b\"*", self->cfg.device_pattern);
}

TEST_F(file, nul_byte)
{
	static const char text[] = "[core]\nstats_interval = 1\0\n";

	put(self->path, text, sizeof(text) - 1);
	EXPECT_EQ(-EINVAL, mvgal_config_load(self->path, &self->cfg, self->err,
					     sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, ":2: NUL byte"));
}

TEST_F(file, too_large)
{
	size_t len = (1 << 20) + 1;
	char *text = malloc(len);

	ASSERT_NE(NULL, text);
	memset(text, '#', len);
	put(self->path, text, len);
	free(text);
	EXPECT_EQ(-EFBIG, mvgal_config_load(self->path, &self->cfg, self->err,
					    sizeof(self->err)));
	EXPECT_EQ(0, memcmp(&self->cfg, &self->defaults, sizeof(self->cfg)));
}

TEST_F(file, env_overrides_default_path)
{
	put(self->path, "[core]\nstats_interval = 9\n", 26);
	setenv("MVGAL_CONFIG", self->path, 1);
	EXPECT_STREQ(self->path, mvgal_config_path());
	ASSERT_EQ(0, mvgal_config_load(NULL, &self->cfg, NULL, 0));
	EXPECT_EQ(9, self->cfg.stats_interval);
	unsetenv("MVGAL_CONFIG");
	EXPECT_STREQ("/etc/mvgal/mvgal.conf", mvgal_config_path());
}

TEST_F(file, small_error_buffer_is_safe)
{
	char tiny[8];

	put(self->path, "[nope]\n", 7);
	EXPECT_EQ(-EINVAL, mvgal_config_load(self->path, &self->cfg, tiny,
					     sizeof(tiny)));
	EXPECT_EQ(7, strlen(tiny));
	EXPECT_EQ(-EINVAL, mvgal_config_load(self->path, &self->cfg, NULL, 0));
	EXPECT_EQ(-EINVAL, mvgal_config_load(self->path, NULL, NULL, 0));
}

TEST_HARNESS_MAIN
