// SPDX-License-Identifier: GPL-2.0
/*
 * Copies the CPU does not make: the DMA-engine copier (MVGAL_METHOD_P2P)
 * driven through the test bed's software memcpy engine (tests/dmaeng), a
 * dmaengine provider on a PCI function behind the VRAM stand-ins' switch.
 *
 * Each test loads the engine and calibrates (mvgal looks for a DMA_MEMCPY
 * channel then, and checks its copy byte for byte before it times it),
 * and ends by unbinding the engine's device, which makes mvgal let the
 * channel go, then removing its module, so the other suites see the
 * test bed without an engine. Every copy is checked on its bytes, read
 * back through another path (the pool's own mapping, BO_PREAD), and the
 * engine's own counters say it made the copies.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "coherence.h"
#include "../common/write_param.h"

#define ENG "/sys/module/mvgal_dmaeng/parameters/"
#define TIMEOUT "/sys/module/mvgal/parameters/dma_timeout_ms"
#define CAL "/sys/kernel/debug/mvgal/path_cal"
#define ENG_DRV "/sys/bus/pci/drivers/mvgal_dmaeng"
/* Unbinds every device of the engine's driver (mvgal lets go first). */
#define ENG_UNBIND \
	"for d in " ENG_DRV "/0000:*; do [ -e \"$d\" ] && " \
	"echo ${d##*/} > " ENG_DRV "/unbind; done; true"

static const char *const knobs[] = {
	"latency_us", "bandwidth_mbps", "fail_every", "reorder", "stall",
	"corrupt",
};

FIXTURE(dma) {
	COH_FIELDS;
	uint32_t paths;
};

static void knobs_off(void)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), ENG "%s", knobs[i]);
		write_param(path, "0");
	}
}

FIXTURE_SETUP(dma)
{
	ASSERT_EQ(0, run("modprobe mvgal_dmaeng"));
	knobs_off();
	ASSERT_EQ(0, write_param(TIMEOUT, "10000"));
	COH_SETUP(self);
	/* Finds the engine's channel and measures it on every pair. */
	ASSERT_EQ(0, mvgal_calibrate(self->m, &self->paths));
}

FIXTURE_TEARDOWN(dma)
{
	knobs_off();
	write_param(TIMEOUT, "10000");
	coh_teardown(self->m, self->pool);
	if (run(ENG_UNBIND " && rmmod mvgal_dmaeng"))
		fprintf(stderr, "# the engine stays loaded\n");
}

/* The engine's counter @name, or -1. */
static long long eng_count(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), ENG "%s", name);
	return read_ll(path);
}

/* The engine's reason on GPU @a -> GPU @b (MVGAL_REASON_*), or -1. */
static int p2p_reason(struct mvgal *m, uint32_t a, uint32_t b)
{
	struct drm_mvgal_gpu_link l;

	return mvgal_gpu_link(m, a, b, &l) ? -1 :
	       (int)l.reasons[MVGAL_METHOD_P2P];
}

/* Does the engine serve @src -> @dst (locations)? */
static bool p2p_possible(struct mvgal *m, uint32_t src, uint32_t dst,
			 struct drm_mvgal_path *p)
{
	return !mvgal_get_path(m, src, dst, 1 << 20, p) &&
	       (p->methods & (1U << MVGAL_METHOD_P2P));
}

/* A buffer of @size bytes of pattern @s. */
static uint32_t pattern_bo(struct __test_metadata *_metadata, struct mvgal *m,
			   uint64_t size, unsigned int s)
{
	uint32_t h;

	EXPECT_EQ(0, host_bo(m, size, &h));
	EXPECT_EQ(0, bo_fill(m, h, size, s));
	return h;
}

/* MIGRATE [off, off + size) of @h to @loc; the fence's status (1: done). */
static int migrate(struct mvgal *m, uint32_t h, uint64_t off, uint64_t size,
		   uint32_t loc, uint32_t flags)
{
	struct drm_mvgal_migrate mg = {
		.handle = h, .offset = off, .size = size, .location = loc,
		.flags = flags, .in_fence_fd = -1,
	};
	int ret = mvgal_migrate(m, &mg);

	if (ret)
		return ret;
	if (mg.out_fence_fd < 0)
		return 1;
	ret = mvgal_fence_wait(mg.out_fence_fd, 60000);
	if (!ret)
		ret = mvgal_fence_status(mg.out_fence_fd);
	close(mg.out_fence_fd);
	return ret;
}

static void stats(struct mvgal *m, struct drm_mvgal_stats *st)
{
	memset(st, 0, sizeof(*st));
	mvgal_get_stats(m, st);
}

/* The engine is found, verified and measured on every pair it reaches. */
TEST_F(dma, calibration_measures_the_engine)
{
	struct drm_mvgal_path p;

	EXPECT_LT(0, self->paths);
	ASSERT_TRUE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g1, &p));
	EXPECT_EQ(MVGAL_REASON_OK, p2p_reason(self->m, self->g1, self->vg));
	EXPECT_LT(0, p.bandwidth[MVGAL_METHOD_P2P]);
	EXPECT_NE(~0ULL, p.cost_ns[MVGAL_METHOD_P2P]);
	ASSERT_TRUE(p2p_possible(self->m, 1 + self->g1, MVGAL_LOC_HOST, &p));
	EXPECT_LT(0, p.bandwidth[MVGAL_METHOD_P2P]);
	ASSERT_TRUE(p2p_possible(self->m, 1 + self->g1, 1 + self->vg, &p));
	EXPECT_LT(0, p.bandwidth[MVGAL_METHOD_P2P]);
	/* Its verification copy and the timings were the engine's. */
	EXPECT_LT(0, eng_count("completed"));
	/* mvgal-info shows it possible and its figures. */
	EXPECT_EQ(0, run("mvgal-info --paths | grep -q ' p2p,cpu-copy,staging .* p2p [0-9.]* us'"));
}

/*
 * Forced, every copy host -> pool -> pool -> host is the engine's: the
 * bytes arrive (odd offset and size, several descriptors per chunk), and
 * GET_STATS counts them as P2P.
 */
static void round_trip(struct __test_metadata *_metadata,
		       FIXTURE_DATA(dma) *self, unsigned int s)
{
	const uint64_t size = 5 * CH + 4321, off = CH + 100;
	struct drm_mvgal_stats a, b;
	struct drm_mvgal_path p;
	uint64_t copied;
	long long at, done;
	uint32_t h;

	if (!p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g0, &p)) {
		/* The stand-in without PCI_P2PDMA: its driver refuses. */
		EXPECT_EQ(MVGAL_REASON_NO_P2P_COPIER,
			  p2p_reason(self->m, self->g0, self->g1));
		SKIP(return, "the engine does not reach GPU %d's pool", self->g0);
	}
	/*
	 * The stand-in pass pins the stand-in's pool, which its amdgpu-like
	 * driver keeps in system memory for importers on both kernels: the
	 * engine reaches another driver's pinned pages, not its VRAM.
	 */
	if (standin_role() >= 0) {
		struct drm_mvgal_gpu_info gi;

		ASSERT_EQ(0, mvgal_gpu_info(self->m, self->g0, &gi));
		EXPECT_EQ(MVGAL_POOL_MEMORY_SYSTEM, gi.pool_memory);
	}
	ASSERT_EQ(0, write_param(FORCE, "1"));
	h = pattern_bo(_metadata, self->m, size, s);
	stats(self->m, &a);
	done = eng_count("completed");
	ASSERT_EQ(1, migrate(self->m, h, off, size - off, 1 + self->g0,
			     MVGAL_MIGRATE_MOVE));
	ASSERT_EQ(1, migrate(self->m, h, 0, size, 1 + self->g1,
			     MVGAL_MIGRATE_MOVE));
	stats(self->m, &b);
	EXPECT_LE(size, b.bytes[MVGAL_METHOD_P2P] - a.bytes[MVGAL_METHOD_P2P]);
	EXPECT_LT(0, b.copies[MVGAL_METHOD_P2P] - a.copies[MVGAL_METHOD_P2P]);
	EXPECT_EQ(a.bytes[MVGAL_METHOD_CPU_COPY], b.bytes[MVGAL_METHOD_CPU_COPY]);
	EXPECT_EQ(a.bytes[MVGAL_METHOD_STAGING], b.bytes[MVGAL_METHOD_STAGING]);
	EXPECT_LT(done, eng_count("completed"));
	/* In g1's pool, read through its own driver's mapping. */
	at = pool_offset(_metadata, self->m, self->g1, h, size, &copied);
	ASSERT_LE(0, at);
	EXPECT_EQ(0, copied);
	EXPECT_EQ(-1, check(self->pool[self->g1] + at, size, 0, s));
	/* And home again through the engine. */
	ASSERT_EQ(1, migrate(self->m, h, 0, size, MVGAL_LOC_HOST,
			     MVGAL_MIGRATE_MOVE));
	EXPECT_EQ(-1, bo_check(self->m, h, size, s));
	mvgal_bo_destroy(self->m, h);
}

TEST_F(dma, forced_copies_are_the_engines)
{
	round_trip(_metadata, self, 1);
}

/* Out-of-order completion, latency and a bandwidth cap change no byte. */
TEST_F(dma, reordered_and_slow_engines_copy_right)
{
	ASSERT_EQ(0, write_param(ENG "reorder", "1"));
	round_trip(_metadata, self, 2);
	ASSERT_EQ(0, write_param(ENG "reorder", "0"));
	ASSERT_EQ(0, write_param(ENG "latency_us", "300"));
	ASSERT_EQ(0, write_param(ENG "bandwidth_mbps", "200"));
	round_trip(_metadata, self, 3);
}

/* A device-only buffer moves pool to pool through the engine alone. */
TEST_F(dma, device_only_buffers_move_by_engine)
{
	const uint64_t size = 3 * CH + 999;
	struct drm_mvgal_stats a, b;
	struct drm_mvgal_path p;
	uint64_t copied;
	long long at;
	uint8_t *buf;
	uint32_t h;

	if (!p2p_possible(self->m, 1 + self->g0, 1 + self->g1, &p))
		SKIP(return, "the engine does not reach GPU %d's pool", self->g0);
	ASSERT_EQ(0, write_param(FORCE, "1"));
	ASSERT_EQ(0, mvgal_bo_create(self->m, size, MVGAL_BO_GPU_VALID |
				     MVGAL_BO_SHARED, self->g0, &h));
	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	fill(buf, size, 4);
	ASSERT_EQ(0, mvgal_bo_write(self->m, h, 0, buf, size));
	stats(self->m, &a);
	ASSERT_EQ(1, migrate(self->m, h, 0, size, 1 + self->g1,
			     MVGAL_MIGRATE_MOVE));
	stats(self->m, &b);
	EXPECT_LE(size, b.bytes[MVGAL_METHOD_P2P] - a.bytes[MVGAL_METHOD_P2P]);
	at = pool_offset(_metadata, self->m, self->g1, h, size, &copied);
	ASSERT_LE(0, at);
	EXPECT_EQ(0, copied);
	EXPECT_EQ(-1, check(self->pool[self->g1] + at, size, 0, 4));
	memset(buf, 0, size);
	ASSERT_EQ(0, mvgal_bo_read(self->m, h, 0, buf, size));
	EXPECT_EQ(-1, check(buf, size, 0, 4));
	free(buf);
	mvgal_bo_destroy(self->m, h);
}

/*
 * A descriptor that fails (after writing half its bytes) fails the job:
 * the chunks keep their holders, the half-written copy is never taken
 * as valid, and the next copy makes it whole.
 */
TEST_F(dma, a_failed_descriptor_fails_the_job_and_loses_nothing)
{
	const uint64_t size = 4 * CH + 555;
	struct drm_mvgal_stats a, b;
	struct drm_mvgal_path p;
	uint64_t copied;
	long long at, failed;
	uint32_t h;

	if (!p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g0, &p))
		SKIP(return, "the engine does not reach GPU %d's pool", self->g0);
	ASSERT_EQ(0, write_param(FORCE, "1"));
	h = pattern_bo(_metadata, self->m, size, 5);
	stats(self->m, &a);
	failed = eng_count("failed");
	ASSERT_EQ(0, write_param(ENG "fail_every", "3"));
	EXPECT_EQ(-EIO, migrate(self->m, h, 0, size, 1 + self->g0,
				MVGAL_MIGRATE_MOVE));
	ASSERT_EQ(0, write_param(ENG "fail_every", "0"));
	stats(self->m, &b);
	EXPECT_LT(failed, eng_count("failed"));
	EXPECT_EQ(a.failed + 1, b.failed);
	/* The pair is not trusted with the engine until checked again. */
	EXPECT_FALSE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g0, &p));
	/* The host copy stayed the only valid one. */
	EXPECT_EQ(-1, bo_check(self->m, h, size, 5));
	/* The pool's copy is made again, whole, before a session uses it. */
	at = pool_offset(_metadata, self->m, self->g0, h, size, &copied);
	ASSERT_LE(0, at);
	EXPECT_LE(size, copied);
	EXPECT_EQ(-1, check(self->pool[self->g0] + at, size, 0, 5));
	mvgal_bo_destroy(self->m, h);
	/* A calibration checks it again, and it is used again. */
	ASSERT_EQ(0, mvgal_calibrate(self->m, &self->paths));
	EXPECT_TRUE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g0, &p));
}

/* An engine that never finishes times out: the job fails, nothing lost. */
TEST_F(dma, a_stalled_engine_times_out)
{
	const uint64_t size = 2 * CH + 77;
	struct drm_mvgal_path p;
	uint32_t h;

	if (!p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g0, &p))
		SKIP(return, "the engine does not reach GPU %d's pool", self->g0);
	ASSERT_EQ(0, write_param(FORCE, "1"));
	h = pattern_bo(_metadata, self->m, size, 6);
	/* A timeout of nothing, or of no number, is refused and changes none. */
	EXPECT_EQ(-ERANGE, write_param(TIMEOUT, "0"));
	EXPECT_EQ(-ERANGE, write_param(TIMEOUT, "1000001"));
	EXPECT_EQ(-EINVAL, write_param(TIMEOUT, "5s"));
	EXPECT_EQ(10000, read_ll(TIMEOUT));
	ASSERT_EQ(0, write_param(TIMEOUT, "300"));
	ASSERT_EQ(0, write_param(ENG "stall", "1"));
	EXPECT_EQ(-ETIMEDOUT, migrate(self->m, h, 0, size, 1 + self->g0,
				      MVGAL_MIGRATE_MOVE));
	ASSERT_EQ(0, write_param(ENG "stall", "0"));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 6));
	/* Not trusted there until checked: the CPU makes the next copy. */
	EXPECT_FALSE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g0, &p));
	ASSERT_EQ(1, migrate(self->m, h, 0, size, 1 + self->g0,
			     MVGAL_MIGRATE_MOVE));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 6));
	/* Checked again, the engine makes the copy home. */
	ASSERT_EQ(0, mvgal_calibrate(self->m, &self->paths));
	ASSERT_TRUE(p2p_possible(self->m, 1 + self->g0, MVGAL_LOC_HOST, &p));
	ASSERT_EQ(1, migrate(self->m, h, 0, size, MVGAL_LOC_HOST,
			     MVGAL_MIGRATE_MOVE));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 6));
	mvgal_bo_destroy(self->m, h);
}

/*
 * The engine's device unbound while its descriptors are in flight: mvgal
 * lets the channel go, the CPU makes the rest of the copy, no byte is
 * lost, and the paths no longer offer the engine.
 */
TEST_F(dma, an_unbound_engine_hands_its_copies_to_the_cpu)
{
	const uint64_t size = 64 * CH + 4000;
	struct drm_mvgal_migrate mg;
	struct drm_mvgal_stats a, b;
	struct drm_mvgal_path p;
	uint32_t h;

	if (!p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g0, &p))
		SKIP(return, "the engine does not reach GPU %d's pool", self->g0);
	ASSERT_EQ(0, write_param(FORCE, "1"));
	h = pattern_bo(_metadata, self->m, size, 7);
	ASSERT_EQ(0, write_param(ENG "latency_us", "2000"));
	stats(self->m, &a);
	mg = (struct drm_mvgal_migrate){
		.handle = h, .size = size, .location = 1 + self->g0,
		.flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
	};
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	usleep(200 * 1000);
	EXPECT_EQ(0, mvgal_fence_status(mg.out_fence_fd));
	ASSERT_EQ(0, run(ENG_UNBIND));
	EXPECT_EQ(0, mvgal_fence_wait(mg.out_fence_fd, 60000));
	EXPECT_EQ(1, mvgal_fence_status(mg.out_fence_fd));
	close(mg.out_fence_fd);
	stats(self->m, &b);
	EXPECT_LT(a.bytes[MVGAL_METHOD_CPU_COPY], b.bytes[MVGAL_METHOD_CPU_COPY]);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 7));
	/* The channel is released: the engine's module may go. */
	ASSERT_EQ(0, mvgal_get_path(self->m, MVGAL_LOC_HOST, 1 + self->g0,
				    1 << 20, &p));
	EXPECT_FALSE(p.methods & (1U << MVGAL_METHOD_P2P));
	EXPECT_EQ(MVGAL_REASON_NO_DMA_ENGINE,
		  p2p_reason(self->m, self->g0, self->g1));
	EXPECT_EQ(0, run("rmmod mvgal_dmaeng"));
	/* Back, it is found again. */
	ASSERT_EQ(0, run("modprobe mvgal_dmaeng"));
	ASSERT_EQ(0, mvgal_calibrate(self->m, &self->paths));
	EXPECT_TRUE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g0, &p));
	mvgal_bo_destroy(self->m, h);
}

/*
 * Unforced, the selector takes the engine where its calibrated cost is
 * the lowest, and GET_STATS counts the copies it made.
 */
TEST_F(dma, the_selector_takes_the_engine_where_it_is_cheapest)
{
	const uint64_t size = 3 * CH + 1;
	struct drm_mvgal_stats a, b;
	struct drm_mvgal_path p;
	char line[96];
	uint32_t h, dst = 1 + self->g1;

	ASSERT_TRUE(p2p_possible(self->m, MVGAL_LOC_HOST, dst, &p));
	/* Each CPU method made dear, the engine cheap. */
	for (int m = MVGAL_METHOD_P2P; m <= MVGAL_METHOD_STAGING; m++) {
		snprintf(line, sizeof(line), "%u %u %d %llu %llu", MVGAL_LOC_HOST,
			 dst, m, m == MVGAL_METHOD_P2P ? 1000ULL : 1000000ULL,
			 m == MVGAL_METHOD_P2P ? 10000000000ULL : 1000000ULL);
		ASSERT_EQ(0, write_param(CAL, line));
	}
	ASSERT_EQ(0, mvgal_get_path(self->m, MVGAL_LOC_HOST, dst, size, &p));
	EXPECT_EQ(MVGAL_METHOD_P2P, p.chosen);
	EXPECT_EQ(1, p.measured);
	EXPECT_EQ(0, p.forced);
	h = pattern_bo(_metadata, self->m, size, 8);
	stats(self->m, &a);
	ASSERT_EQ(1, migrate(self->m, h, 0, size, dst, 0));
	stats(self->m, &b);
	/* All of it, in whole pages. */
	EXPECT_LE(size, b.bytes[MVGAL_METHOD_P2P] - a.bytes[MVGAL_METHOD_P2P]);
	EXPECT_GT(size + 4096, b.bytes[MVGAL_METHOD_P2P] - a.bytes[MVGAL_METHOD_P2P]);
	EXPECT_EQ(a.bytes[MVGAL_METHOD_CPU_COPY], b.bytes[MVGAL_METHOD_CPU_COPY]);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 8));
	mvgal_bo_destroy(self->m, h);
	/* Priced dearer than the CPU, it is passed by. */
	snprintf(line, sizeof(line), "%u %u %d %llu %llu", MVGAL_LOC_HOST, dst,
		 MVGAL_METHOD_P2P, 100000000ULL, 1000ULL);
	ASSERT_EQ(0, write_param(CAL, line));
	ASSERT_EQ(0, mvgal_get_path(self->m, MVGAL_LOC_HOST, dst, size, &p));
	EXPECT_NE(MVGAL_METHOD_P2P, p.chosen);
}

/*
 * An engine whose copies come out wrong without an error (a corrupting
 * peer path): calibration finds it out and the pairs lose the method,
 * even forced; the CPU copies, right. Only a new engine gets it back.
 */
TEST_F(dma, an_engine_that_corrupts_loses_the_method)
{
	const uint64_t size = 2 * CH + 3000;
	struct drm_mvgal_stats a, b;
	struct drm_mvgal_path p;
	uint32_t h;

	ASSERT_TRUE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g1, &p));
	ASSERT_EQ(0, write_param(ENG "corrupt", "1"));
	ASSERT_EQ(0, mvgal_calibrate(self->m, &self->paths));
	ASSERT_EQ(0, write_param(ENG "corrupt", "0"));
	EXPECT_FALSE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g1, &p));
	EXPECT_FALSE(p2p_possible(self->m, 1 + self->g1, MVGAL_LOC_HOST, &p));
	EXPECT_EQ(MVGAL_REASON_P2P_MISMATCH,
		  p2p_reason(self->m, self->g1, self->vg));
	EXPECT_EQ(0, run("dmesg | grep -q 'DMA engine copied .* wrong'"));
	/* Forced, the engine is not used: the CPU copies, right. */
	ASSERT_EQ(0, write_param(FORCE, "1"));
	h = pattern_bo(_metadata, self->m, size, 9);
	stats(self->m, &a);
	ASSERT_EQ(1, migrate(self->m, h, 0, size, 1 + self->g1,
			     MVGAL_MIGRATE_MOVE));
	ASSERT_EQ(1, migrate(self->m, h, 0, size, MVGAL_LOC_HOST,
			     MVGAL_MIGRATE_MOVE));
	stats(self->m, &b);
	EXPECT_EQ(a.bytes[MVGAL_METHOD_P2P], b.bytes[MVGAL_METHOD_P2P]);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 9));
	mvgal_bo_destroy(self->m, h);
	/* Calibrated again, the pair stays refused. */
	ASSERT_EQ(0, mvgal_calibrate(self->m, &self->paths));
	EXPECT_FALSE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g1, &p));
	/* A new engine (unbound, loaded again) is checked afresh. */
	ASSERT_EQ(0, run(ENG_UNBIND " && rmmod mvgal_dmaeng && modprobe mvgal_dmaeng"));
	ASSERT_EQ(0, mvgal_calibrate(self->m, &self->paths));
	EXPECT_TRUE(p2p_possible(self->m, MVGAL_LOC_HOST, 1 + self->g1, &p));
}

/*
 * The engine on a pool in device memory: a VRAM stand-in's pool, lent as
 * the boot step lends one and following its driver's moves (movable
 * pools). Where the kernel has PCI_P2PDMA (the debug kernel), the
 * amdgpu-like driver keeps the pool in VRAM and grants the engine, a PCI
 * function behind the same switch, the BAR's bus addresses: mvgal asks
 * pci_p2pdma_distance() before it attaches and the driver asks it again.
 * The engine then copies to and from the BAR itself. Elsewhere (Debian's
 * kernels) the driver keeps the pool pinned in system memory and the
 * engine copies to those pages. Not in the stand-in pass, whose boot
 * step lent the stand-ins' pools already.
 */
#define VRAM_POOL_MIB 16
#define MOVABLE "/sys/module/mvgal/parameters/movable_pools"
#define DMA_STATE "/sys/kernel/debug/mvgal/dma_engine"

FIXTURE(vram) {
	struct standin s;
	bool found;
	struct mvgal *m;
	uint32_t gpu, paths;
	bool attached;
};

/* Lends a VRAM_POOL_MIB dumb buffer of the stand-in: GPU_ATTACH's errno. */
static int vram_lend(FIXTURE_DATA(vram) *self)
{
	struct drm_mode_create_dumb d = {
		.width = 1024, .height = VRAM_POOL_MIB * 256, .bpp = 32,
	};
	struct drm_gem_close c = { 0 };
	int pfd, node, ret;

	if (standin_set_mode(&self->s, "amdgpu") ||
	    drmIoctl(self->s.fd, DRM_IOCTL_MODE_CREATE_DUMB, &d) ||
	    drmPrimeHandleToFD(self->s.fd, d.handle, DRM_CLOEXEC | DRM_RDWR, &pfd))
		return -EPROTO;
	/* No handle of it but mvgal's: moves reach mvgal through it alone. */
	c.handle = d.handle;
	node = standin_render_open(&self->s);
	if (drmIoctl(self->s.fd, DRM_IOCTL_GEM_CLOSE, &c) || node < 0) {
		close(pfd);
		return -EPROTO;
	}
	ret = mvgal_gpu_attach(self->m, node, pfd, MVGAL_GPU_ANY, &self->gpu);
	close(node);
	close(pfd);
	self->attached = !ret;
	return ret;
}

FIXTURE_SETUP(vram)
{
	if (standin_role() >= 0)
		SKIP(return, "the stand-in pass lent the stand-ins' pools already");
	ASSERT_EQ(0, run("modprobe mvgal_dmaeng && modprobe mvgal_vram"));
	knobs_off();
	ASSERT_EQ(0, standin_get(&self->s));
	self->found = true;
	ASSERT_EQ(0, mvgal_open(&self->m));
	ASSERT_EQ(0, write_param(MOVABLE, "1"));
	ASSERT_EQ(0, vram_lend(self));
	/* In VRAM (the debug kernel), whatever moved it before. */
	ASSERT_EQ(0, standin_validate(&self->s));
	/* The engine reaches the new pool; its copy there is not checked. */
	ASSERT_EQ(MVGAL_REASON_P2P_UNCHECKED, p2p_reason(self->m, self->gpu, 0));
	ASSERT_EQ(0, mvgal_calibrate(self->m, &self->paths));
	ASSERT_EQ(MVGAL_REASON_OK, p2p_reason(self->m, self->gpu, 0));
}

FIXTURE_TEARDOWN(vram)
{
	if (!self->found)
		return;
	write_param(FORCE, "0");
	mvgal_close(self->m);
	if (self->attached && !mvgal_open(&self->m)) {
		if (mvgal_gpu_detach(self->m, self->gpu))
			fprintf(stderr, "# the stand-in's pool stays attached\n");
		mvgal_close(self->m);
	}
	close(self->s.fd);
	write_param(MOVABLE, "0");
	if (run(ENG_UNBIND " && rmmod mvgal_dmaeng && rmmod mvgal_vram"))
		fprintf(stderr, "# the engine or the stand-in stays loaded\n");
}

/*
 * GPU @gpu's line of the copier's state: 1 if mapped for the engine, 0
 * if not (moving, or refused), -1 if there is none; @moves its count.
 */
static int dma_mapped(uint32_t gpu, long long *moves)
{
	char line[128], state[16];
	unsigned int g;
	int err, ret = -1;
	FILE *f = fopen(DMA_STATE, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "gpu %u %15s %d moves %lld", &g, state, &err,
			   moves) == 4 && g == gpu)
			ret = !strcmp(state, "mapped");
	fclose(f);
	return ret;
}

/*
 * Waits up to 10 s for the pool to settle after its driver moved it:
 * mvgal's mapping and the engine's made again, the pool where its driver
 * keeps it (VRAM on the P2PDMA kernel). 0 when it did.
 */
static int vram_settled(FIXTURE_DATA(vram) *self, long long *moves)
{
	struct drm_mvgal_gpu_info gi;

	for (int i = 0; i < 100; i++) {
		if (dma_mapped(self->gpu, moves) == 1 &&
		    !mvgal_gpu_info(self->m, self->gpu, &gi) &&
		    gi.pool_memory == (p2p_kernel() ? MVGAL_POOL_MEMORY_DEVICE :
						      MVGAL_POOL_MEMORY_SYSTEM))
			return 0;
		usleep(100000);
	}
	return -1;
}

/*
 * Bytes [@at, @at + @len) of the pool as its driver holds them, compared
 * with pattern @s from byte @off of the buffer: the BAR through sysfs (not
 * a mapping of mvgal's) while the pool is in VRAM, else the stand-in's own
 * mapping of its system pages. The index of the first wrong byte, or -1.
 */
static long vram_check(struct __test_metadata *_metadata,
		       FIXTURE_DATA(vram) *self, uint64_t at, uint64_t len,
		       uint64_t off, unsigned int s)
{
	struct drm_mvgal_pool_fd pf = { .gpu = self->gpu };
	struct drm_mvgal_vram_bo_info pi;
	struct drm_gem_close c = { 0 };
	size_t maplen = len + ((at) & 4095);
	uint8_t *p;
	void *base;
	long ret;

	if (drmIoctl(mvgal_fd(self->m), DRM_IOCTL_MVGAL_POOL_FD, &pf))
		return -2;
	ret = drmPrimeFDToHandle(self->s.fd, pf.fd, &c.handle);
	close(pf.fd);
	if (ret || standin_bo_info(self->s.fd, c.handle, &pi))
		return -2;
	EXPECT_EQ(p2p_kernel() ? MVGAL_VRAM_DOMAIN_VRAM : MVGAL_VRAM_DOMAIN_SYSTEM,
		  pi.domain);
	if (pi.domain == MVGAL_VRAM_DOMAIN_VRAM) {
		maplen = len + ((pi.offset + at) & 4095);
		p = standin_bar_map(&self->s, pi.offset + at, len, &base);
	} else {
		p = standin_bo_map(self->s.fd, c.handle, at + len);
		base = p;
		maplen = at + len;
		if (p)
			p += at;
	}
	ret = p ? check(p, len, off, s) : -2;
	if (p)
		munmap(base, maplen);
	drmIoctl(self->s.fd, DRM_IOCTL_GEM_CLOSE, &c);
	return ret;
}

/*
 * MOVE [@off, @off + @len) of @h to @loc, forced to the engine: at least
 * @least bytes are the engine's copies and none the CPU's; on the P2PDMA
 * kernel they are the BAR's too (the engine's count of bytes outside RAM),
 * elsewhere none is.
 */
static void engine_move(struct __test_metadata *_metadata,
			FIXTURE_DATA(vram) *self, uint32_t h, uint64_t off,
			uint64_t len, uint32_t loc, uint64_t least)
{
	long long iom = eng_count("bytes_iomem");
	struct drm_mvgal_stats a, b;

	stats(self->m, &a);
	ASSERT_EQ(1, migrate(self->m, h, off, len, loc, MVGAL_MIGRATE_MOVE));
	stats(self->m, &b);
	EXPECT_LE(least, b.bytes[MVGAL_METHOD_P2P] - a.bytes[MVGAL_METHOD_P2P]);
	EXPECT_EQ(a.bytes[MVGAL_METHOD_CPU_COPY], b.bytes[MVGAL_METHOD_CPU_COPY]);
	EXPECT_EQ(a.bytes[MVGAL_METHOD_STAGING], b.bytes[MVGAL_METHOD_STAGING]);
	if (p2p_kernel()) {
		EXPECT_LE(iom + (long long)least, eng_count("bytes_iomem"));
	} else {
		EXPECT_EQ(iom, eng_count("bytes_iomem"));
	}
}

/*
 * Forced, the engine copies host -> VRAM pool -> host; on the P2PDMA
 * kernel its copies are the BAR's (its own count of bytes outside RAM),
 * and the bytes are in the BAR, read through sysfs. The driver moves the
 * pool to system memory and back: mvgal's engine mapping follows (its
 * move count), and the engine's next copies reach the pool where it is.
 */
TEST_F(vram, the_engine_copies_to_vram_and_follows_the_pools_moves)
{
	const uint64_t size = 3 * CH + 4321, off = CH + 100;
	long long moves0, moves;
	uint64_t copied;
	long long at;
	uint32_t h;

	ASSERT_EQ(1, dma_mapped(self->gpu, &moves0));
	ASSERT_EQ(0, write_param(FORCE, "1"));
	h = pattern_bo(_metadata, self->m, size, 31);
	engine_move(_metadata, self, h, off, size - off, 1 + self->gpu,
		    size - off);
	at = pool_offset(_metadata, self->m, self->gpu, h, size, &copied);
	ASSERT_LE(0, at);
	/* The part still at home came with the session, by the engine too. */
	EXPECT_EQ(-1, vram_check(_metadata, self, at, size, 0, 31));

	/* Out to system memory: the engine's mapping goes with mvgal's. */
	ASSERT_EQ(0, standin_evict(&self->s));
	ASSERT_EQ(0, vram_settled(self, &moves));
	if (p2p_kernel()) {
		EXPECT_LT(moves0, moves);
	} else {
		EXPECT_EQ(moves0, moves);	/* pinned: never moved */
	}
	EXPECT_EQ(-1, vram_check(_metadata, self, at, size, 0, 31));

	/*
	 * Home again by the engine, from where the pool is now: what the
	 * move took away (the session copied the rest, which home kept).
	 */
	engine_move(_metadata, self, h, 0, size, MVGAL_LOC_HOST, size - off);
	EXPECT_EQ(-1, bo_check(self->m, h, size, 31));
	mvgal_bo_destroy(self->m, h);
}

/*
 * A move while the engine copies: the driver's move_notify waits for the
 * engine's descriptors (slowed to take long), so no byte lands in the
 * memory the pool left; what comes after the move goes to the CPU until
 * the engine's mapping is made again. Every byte is where it should be.
 */
TEST_F(vram, a_move_waits_for_the_engines_copies)
{
	const uint64_t size = 4 * CH + 777;
	struct drm_mvgal_migrate mg = {
		.offset = 0, .size = size, .location = 0,
		.flags = MVGAL_MIGRATE_MOVE, .in_fence_fd = -1,
	};
	long long moves0, moves;
	uint32_t h;

	ASSERT_EQ(1, dma_mapped(self->gpu, &moves0));
	ASSERT_EQ(0, write_param(FORCE, "1"));
	h = pattern_bo(_metadata, self->m, size, 32);
	/* Each descriptor takes 20 ms: the copy is in flight at the move. */
	ASSERT_EQ(0, write_param(ENG "latency_us", "20000"));
	mg.handle = h;
	mg.location = 1 + self->gpu;
	ASSERT_EQ(0, mvgal_migrate(self->m, &mg));
	usleep(50000);
	ASSERT_EQ(0, standin_evict(&self->s));
	if (mg.out_fence_fd >= 0) {
		EXPECT_EQ(0, mvgal_fence_wait(mg.out_fence_fd, 60000));
		EXPECT_EQ(1, mvgal_fence_status(mg.out_fence_fd));
		close(mg.out_fence_fd);
	}
	ASSERT_EQ(0, write_param(ENG "latency_us", "0"));
	ASSERT_EQ(0, vram_settled(self, &moves));
	if (p2p_kernel()) {
		EXPECT_LT(moves0, moves);
	}
	EXPECT_EQ(-1, bo_check(self->m, h, size, 32));
	ASSERT_EQ(1, migrate(self->m, h, 0, size, MVGAL_LOC_HOST,
			     MVGAL_MIGRATE_MOVE));
	EXPECT_EQ(-1, bo_check(self->m, h, size, 32));
	mvgal_bo_destroy(self->m, h);
}

TEST_HARNESS_MAIN
