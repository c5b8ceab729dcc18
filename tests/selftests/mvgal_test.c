// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal guest selftests: the module, its first ioctl and its parameters.
 * Run as root inside the test guest (tools/vm/run), with mvgal loaded.
 * Not in the stand-in pass (run-selftests.sh): it uses no GPU's pool.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "caps.h"

#define PARAM_DIR "/sys/module/mvgal/parameters/"

static int read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Returns 0 or -errno of the write(2). */
static int write_param(const char *name, const char *val)
{
	char path[128];
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static bool module_loaded(void)
{
	return access("/sys/module/mvgal", F_OK) == 0;
}

FIXTURE(dev) {
	struct mvgal *m;
	int fd;
};

FIXTURE_SETUP(dev)
{
	ASSERT_EQ(0, mvgal_open(&self->m));
	self->fd = mvgal_fd(self->m);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(dev)
{
	/* A test that failed half-way leaves no switch off behind it. */
	write_param("enable_memory_migration", "Y");
	write_param("enable_dmabuf", "Y");
	mvgal_close(self->m);
}

/* The node libdrm found is a render node of a driver named mvgal. */
TEST_F(dev, node_is_mvgal_render_node)
{
	drmVersionPtr v = drmGetVersion(self->fd);
	struct stat st;

	ASSERT_NE(NULL, v);
	EXPECT_STREQ("mvgal", v->name);
	drmFreeVersion(v);
	EXPECT_EQ(DRM_NODE_RENDER, drmGetNodeTypeFromFd(self->fd));
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(226, major(st.st_rdev));
	EXPECT_EQ(0, strncmp(mvgal_node_path(self->m), "/dev/dri/renderD", 16));
	/* O_CLOEXEC, as the library promises. */
	EXPECT_TRUE(fcntl(self->fd, F_GETFD) & FD_CLOEXEC);
}

TEST_F(dev, get_info_reports_module_state)
{
	struct drm_mvgal_get_info a = { 0 };
	char buf[32];

	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(MVGAL_ABI_VERSION, a.abi_version);
	EXPECT_EQ(MVGAL_MAX_GPUS, a.max_gpus);
	EXPECT_EQ(mvgal_gpu_list(self->m, NULL, 0), a.gpu_count);
	EXPECT_EQ(MVGAL_CAP_SYNCOBJ | MVGAL_CAP_GPU_ATTACH | MVGAL_CAP_SESSIONS |
		  MVGAL_CAP_MIGRATION | MVGAL_CAP_WRITE_WATCH |
		  MVGAL_CAP_EVICTION | place_fd_cap(self->m) | MVGAL_CAP_URING |
		  MVGAL_CAP_SYNC_SYNCOBJS | MVGAL_CAP_PLACE_ADOPT |
		  MVGAL_CAP_STATS | MVGAL_CAP_MARK_OVERWRITE |
		  MVGAL_CAP_USERPTR_MIRROR | MVGAL_CAP_MARK_HOME_HELD, a.caps);
	/* Every figure agrees with the module parameters behind it. */
	ASSERT_EQ(0, read_param("chunk_size", buf, sizeof(buf)));
	EXPECT_EQ(strtoul(buf, NULL, 10), a.chunk_size);
	EXPECT_EQ(65536, a.chunk_size);
	ASSERT_EQ(0, read_param("stats_interval", buf, sizeof(buf)));
	EXPECT_EQ(strtoul(buf, NULL, 10), a.stats_interval);
	EXPECT_EQ(MVGAL_CORE_MEMORY_MIGRATION | MVGAL_CORE_DMABUF, a.core_flags);
	EXPECT_EQ(0, a.flags);
	EXPECT_EQ(0, a.pad);
}

/*
 * The capability bits say what works now: the switches that make an ioctl
 * -EPERM clear theirs, and PLACE_FD needs a pool that can be exported.
 */
TEST_F(dev, caps_follow_the_switches_and_the_pools)
{
	const uint64_t always = MVGAL_CAP_SYNCOBJ | MVGAL_CAP_GPU_ATTACH |
				MVGAL_CAP_SESSIONS | MVGAL_CAP_WRITE_WATCH |
				MVGAL_CAP_EVICTION | MVGAL_CAP_URING |
				MVGAL_CAP_SYNC_SYNCOBJS | MVGAL_CAP_STATS |
				MVGAL_CAP_MARK_OVERWRITE |
				MVGAL_CAP_USERPTR_MIRROR |
				MVGAL_CAP_MARK_HOME_HELD;
	struct drm_mvgal_get_info a = { 0 };
	uint64_t place_fd;

	reset_state(_metadata, self->m);
	place_fd = place_fd_cap(self->m);
	/* Outside the stand-in pass every pool is one that stays put. */
	if (standin_role() < 0)
		ASSERT_EQ(MVGAL_CAP_PLACE_FD, place_fd);
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(always | MVGAL_CAP_MIGRATION | MVGAL_CAP_PLACE_ADOPT | place_fd,
		  a.caps);

	ASSERT_EQ(0, write_param("enable_memory_migration", "N"));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(always | MVGAL_CAP_PLACE_ADOPT | place_fd, a.caps);
	ASSERT_EQ(0, write_param("enable_dmabuf", "N"));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(always, a.caps);
	ASSERT_EQ(0, write_param("enable_memory_migration", "Y"));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(always | MVGAL_CAP_MIGRATION, a.caps);
	ASSERT_EQ(0, write_param("enable_dmabuf", "Y"));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(always | MVGAL_CAP_MIGRATION | MVGAL_CAP_PLACE_ADOPT | place_fd,
		  a.caps);
}

TEST_F(dev, get_info_library_matches_ioctl)
{
	struct drm_mvgal_get_info a = { 0 };
	struct mvgal_info info;

	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	ASSERT_EQ(0, mvgal_get_info(self->m, &info));
	EXPECT_EQ(a.abi_version, info.abi_version);
	EXPECT_EQ(a.caps, info.caps);
	EXPECT_EQ(a.chunk_size, info.chunk_size);
	EXPECT_EQ(a.gpu_count, info.gpu_count);
	EXPECT_EQ(a.max_gpus, info.max_gpus);
	EXPECT_EQ(a.core_flags, info.core_flags);
	EXPECT_EQ(a.stats_interval, info.stats_interval);
	EXPECT_STREQ("0.1.0", info.driver_version);
	EXPECT_EQ(-EINVAL, mvgal_get_info(self->m, NULL));
	EXPECT_EQ(-EINVAL, mvgal_get_info(NULL, &info));
}

/* A rejected call fails with EINVAL and leaves every output untouched. */
static void expect_get_info_rejected(struct __test_metadata *_metadata,
				     int fd, __u32 flags, __u32 pad)
{
	struct drm_mvgal_get_info a, before;

	memset(&a, 0xa5, sizeof(a));
	a.flags = flags;
	a.pad = pad;
	before = a;
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, memcmp(&a, &before, sizeof(a)));
}

TEST_F(dev, get_info_rejects_unknown_flag_low)
{
	expect_get_info_rejected(_metadata, self->fd, 1, 0);
}

TEST_F(dev, get_info_rejects_unknown_flag_high)
{
	expect_get_info_rejected(_metadata, self->fd, 0x80000000u, 0);
}

TEST_F(dev, get_info_rejects_nonzero_pad)
{
	expect_get_info_rejected(_metadata, self->fd, 0, 1);
}

TEST_F(dev, get_info_rejects_nonzero_pad_high)
{
	expect_get_info_rejected(_metadata, self->fd, 0, 0x80000000u);
}

/* An ioctl number mvgal does not define is refused by the DRM core. */
TEST_F(dev, unknown_driver_ioctl_rejected)
{
	struct drm_mvgal_get_info a = { 0 };
	unsigned long req = DRM_IOWR(DRM_COMMAND_BASE + 0x3f,
				     struct drm_mvgal_get_info);

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, req, &a));
	EXPECT_EQ(EINVAL, errno);
}

/* DRIVER_SYNCOBJ: the standard syncobj ioctls work on the node. */
TEST_F(dev, syncobj_create_signal_wait)
{
	uint32_t h;

	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &h));
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &h, 1));
	EXPECT_EQ(0, drmSyncobjWait(self->fd, &h, 1, 0, 0, NULL));
	EXPECT_EQ(0, drmSyncobjDestroy(self->fd, h));
}

TEST_F(dev, stats_interval_param_validated)
{
	struct drm_mvgal_get_info a = { 0 };
	char buf[32];

	EXPECT_EQ(-ERANGE, write_param("stats_interval", "0"));
	EXPECT_EQ(-ERANGE, write_param("stats_interval", "3601"));
	EXPECT_EQ(-EINVAL, write_param("stats_interval", "abc"));
	ASSERT_EQ(0, read_param("stats_interval", buf, sizeof(buf)));
	EXPECT_STREQ("1", buf);

	ASSERT_EQ(0, write_param("stats_interval", "7"));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(7, a.stats_interval);
	ASSERT_EQ(0, write_param("stats_interval", "1"));
}

TEST_F(dev, core_bool_params_reach_get_info)
{
	struct drm_mvgal_get_info a = { 0 };

	ASSERT_EQ(0, write_param("enable_dmabuf", "0"));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(MVGAL_CORE_MEMORY_MIGRATION, a.core_flags);
	ASSERT_EQ(0, write_param("enable_memory_migration", "N"));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(0, a.core_flags);
	ASSERT_EQ(0, write_param("enable_dmabuf", "1"));
	ASSERT_EQ(0, write_param("enable_memory_migration", "1"));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(MVGAL_CORE_MEMORY_MIGRATION | MVGAL_CORE_DMABUF, a.core_flags);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * The boot step sets every [core] key that has a module parameter: each
 * set to a value that is not its default, and seen in the module.
 */
TEST_F(dev, config_core_keys_reach_the_module)
{
	struct drm_mvgal_get_info a = { 0 };
	struct mvgal_config cfg;
	char buf[16];

	write_file("/tmp/core.conf", "[core]\nenable_memory_migration = no\n"
		   "enable_dmabuf = off\nstats_interval = 9\n");
	ASSERT_EQ(0, mvgal_config_load("/tmp/core.conf", &cfg, NULL, 0));
	ASSERT_EQ(0, mvgal_config_apply(&cfg));
	ASSERT_EQ(0, read_param("enable_memory_migration", buf, sizeof(buf)));
	EXPECT_STREQ("N", buf);
	ASSERT_EQ(0, read_param("enable_dmabuf", buf, sizeof(buf)));
	EXPECT_STREQ("N", buf);
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(0, a.core_flags);
	EXPECT_EQ(9, a.stats_interval);

	/* The defaults, applied, put everything back. */
	mvgal_config_defaults(&cfg);
	ASSERT_EQ(0, mvgal_config_apply(&cfg));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_MVGAL_GET_INFO, &a));
	EXPECT_EQ(MVGAL_CORE_MEMORY_MIGRATION | MVGAL_CORE_DMABUF, a.core_flags);
	EXPECT_EQ(1, a.stats_interval);
	unlink("/tmp/core.conf");
}

/*
 * The boot step writes only the [core] and [policy] keys its file sets:
 * those reach the module, and what an administrator gave modprobe for the
 * others stays.
 */
TEST_F(dev, the_boot_step_writes_only_the_keys_the_file_sets)
{
	static const char *const set[][2] = {
		{ "prefetch", "N" }, { "mirror_start_reads", "5" },
		{ "mirror_stop_writes", "6" }, { "mirror_hold_windows", "3" },
		{ "graphics_replicate_mb", "9" }, { "enable_dmabuf", "N" },
	};
	static const char *const kept[][2] = {
		{ "evict_policy", "1" }, { "mirror_window_ms", "777" },
		{ "stats_interval", "5" }, { "enable_memory_migration", "N" },
	};
	struct mvgal_config cfg;
	char buf[16];
	unsigned int i;

	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		ASSERT_EQ(0, write_param(kept[i][0], kept[i][1]));
	write_file("/tmp/boot.conf", "[policy]\nprefetch = no\n"
		   "mirror_start_reads = 5\nmirror_stop_writes = 6\n"
		   "mirror_hold_windows = 3\ngraphics_replicate_mb = 9\n"
		   "[core]\nenable_dmabuf = false\n"
		   "[dri]\ndevice_pattern = /dev/dri/none*\n");
	ASSERT_EQ(0, mvgal_config_load("/tmp/boot.conf", &cfg, NULL, 0));
	/* No node matches: only the parameters change. */
	EXPECT_EQ(0, mvgal_attach_all(self->m, &cfg, NULL, NULL));
	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		ASSERT_EQ(0, read_param(set[i][0], buf, sizeof(buf)));
		EXPECT_STREQ(set[i][1], buf) TH_LOG("%s", set[i][0]);
	}
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		ASSERT_EQ(0, read_param(kept[i][0], buf, sizeof(buf)));
		EXPECT_STREQ(kept[i][1], buf) TH_LOG("%s", kept[i][0]);
	}
	/* A caller built before keys_set had every parameter written. */
	mvgal_config_defaults(&cfg);
	snprintf(cfg.device_pattern, sizeof(cfg.device_pattern), "/dev/dri/none*");
	EXPECT_EQ(0, mvgal_attach_all_sz(self->m, &cfg, NULL, NULL,
					 offsetof(struct mvgal_config, keys_set)));
	ASSERT_EQ(0, read_param("evict_policy", buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
	ASSERT_EQ(0, read_param("mirror_window_ms", buf, sizeof(buf)));
	EXPECT_STREQ("1000", buf);
	/* mvgal_config_apply() writes every key: the defaults again. */
	mvgal_config_defaults(&cfg);
	ASSERT_EQ(0, mvgal_config_apply(&cfg));
	ASSERT_EQ(0, read_param("evict_policy", buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
	ASSERT_EQ(0, read_param("prefetch", buf, sizeof(buf)));
	EXPECT_STREQ("Y", buf);
	unlink("/tmp/boot.conf");
}

/* Exports a new shareable buffer of @m; 0 or -errno of the export. */
static int export_new(struct mvgal *m, uint32_t *h, int *fd)
{
	int ret = mvgal_bo_create_shared(m, 4096, MVGAL_BO_HOST_VALID |
					 MVGAL_BO_DMA_BUF, MVGAL_GPU_ANY,
					 MVGAL_SHARING_CROSS_VENDOR, h);

	return ret ? ret : mvgal_bo_export(m, *h, fd);
}

/*
 * [dri] enable_prime = false: libmvgal refuses PRIME export and import
 * with -EACCES; the module still allows them (enable_dmabuf is its
 * switch), so a library opened under the default configuration can.
 */
TEST_F(dev, config_enable_prime_false_refuses_prime_in_the_library)
{
	uint8_t b[4096], back[4096];
	struct mvgal *off;
	uint32_t h, h2, h3;
	int fd = -1;

	write_file("/tmp/noprime.conf", "[dri]\nenable_prime = false\n");
	ASSERT_EQ(0, setenv("MVGAL_CONFIG", "/tmp/noprime.conf", 1));
	ASSERT_EQ(0, mvgal_open(&off));
	unsetenv("MVGAL_CONFIG");
	EXPECT_EQ(-EACCES, export_new(off, &h, &fd));
	/* The default: export works; the other device may not import. */
	ASSERT_EQ(0, export_new(self->m, &h2, &fd));
	EXPECT_EQ(-EACCES, mvgal_bo_import(off, fd, &h3));
	memset(b, 0x5c, sizeof(b));
	ASSERT_EQ(0, mvgal_bo_write(self->m, h2, 0, b, sizeof(b)));
	ASSERT_EQ(0, mvgal_bo_import(self->m, fd, &h3));
	ASSERT_EQ(0, mvgal_bo_read(self->m, h3, 0, back, sizeof(back)));
	EXPECT_EQ(0, memcmp(b, back, sizeof(b)));
	close(fd);
	mvgal_close(off);
	unlink("/tmp/noprime.conf");
}

TEST_F(dev, chunk_size_is_read_only)
{
	EXPECT_EQ(-EACCES, write_param("chunk_size", "4096"));
}

/*
 * Unload and reload; a load with an invalid chunk size or stats interval
 * fails and leaves no module behind; a valid one takes effect. The test
 * ends with the module loaded with its defaults.
 */
TEST(module_unload_reload)
{
	struct mvgal *m;
	struct mvgal_info info;

	ASSERT_TRUE(module_loaded());
	ASSERT_EQ(0, run(RMMOD_MVGAL));
	EXPECT_FALSE(module_loaded());
	EXPECT_EQ(-ENODEV, mvgal_open(&m));

	EXPECT_NE(0, run("modprobe mvgal chunk_size=12345 2>/dev/null"));
	EXPECT_FALSE(module_loaded());
	EXPECT_NE(0, run("modprobe mvgal chunk_size=2048 2>/dev/null"));
	EXPECT_FALSE(module_loaded());
	EXPECT_NE(0, run("modprobe mvgal chunk_size=33554432 2>/dev/null"));
	EXPECT_FALSE(module_loaded());
	EXPECT_NE(0, run("modprobe mvgal stats_interval=0 2>/dev/null"));
	EXPECT_FALSE(module_loaded());

	ASSERT_EQ(0, run("modprobe mvgal chunk_size=4096"));
	ASSERT_EQ(0, mvgal_open(&m));
	ASSERT_EQ(0, mvgal_get_info(m, &info));
	EXPECT_EQ(4096, info.chunk_size);
	mvgal_close(m);

	ASSERT_EQ(0, run(RMMOD_MVGAL));
	ASSERT_EQ(0, run("modprobe mvgal"));
	ASSERT_EQ(0, mvgal_open(&m));
	ASSERT_EQ(0, mvgal_get_info(m, &info));
	EXPECT_EQ(65536, info.chunk_size);
	mvgal_close(m);
}

/* An open file holds the module: unload is refused, nothing breaks. */
TEST(module_busy_while_open)
{
	struct mvgal *m;
	struct mvgal_info info;

	ASSERT_EQ(0, mvgal_open(&m));
	EXPECT_NE(0, run("rmmod mvgal 2>/dev/null"));
	EXPECT_TRUE(module_loaded());
	EXPECT_EQ(0, mvgal_get_info(m, &info));
	mvgal_close(m);
}

TEST(open_path_rejects_other_drivers)
{
	struct mvgal *m = NULL;
	drmDevicePtr devs[16];
	int n, i, others = 0;

	n = drmGetDevices2(0, devs, 16);
	ASSERT_GT(n, 0);
	for (i = 0; i < n; i++) {
		drmVersionPtr v;
		int fd;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		fd = open(devs[i]->nodes[DRM_NODE_RENDER], O_RDWR);
		ASSERT_GE(fd, 0);
		v = drmGetVersion(fd);
		close(fd);
		ASSERT_NE(NULL, v);
		if (strcmp(v->name, "mvgal")) {
			EXPECT_EQ(-ENODEV,
				  mvgal_open_path(devs[i]->nodes[DRM_NODE_RENDER], &m));
			others++;
		}
		drmFreeVersion(v);
	}
	drmFreeDevices(devs, n);
	/* The guest has three virtio-gpu and one vgem besides mvgal. */
	EXPECT_EQ(4, others);
	EXPECT_EQ(-ENOENT, mvgal_open_path("/dev/dri/nonexistent", &m));
	EXPECT_EQ(-EINVAL, mvgal_open_path(NULL, &m));
}

TEST_HARNESS_MAIN
