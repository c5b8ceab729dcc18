// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the transfer-method judge (kernel/core/mvgal_path.c) on
 * synthetic links: what is possible, why not, and what is chosen.
 */
#include <drm/mvgal_drm.h>

#include "core/mvgal_path.h"
#include "kselftest_harness.h"

#define BIT(m) (1U << (m))
#define ALL (BIT(MVGAL_METHOD_IN_PLACE) | BIT(MVGAL_METHOD_P2P) | \
	     BIT(MVGAL_METHOD_CPU_COPY) | BIT(MVGAL_METHOD_STAGING))

TEST(everything_possible_prefers_in_place)
{
	struct mvgal_link_facts f = { true, true, true, true, false, true,
				      false, true };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(ALL, v.methods);
	EXPECT_EQ(MVGAL_METHOD_IN_PLACE, v.chosen);
	EXPECT_EQ(MVGAL_WHY_IMPORTS, v.why);
}

TEST(refused_import_with_dma_engine_is_p2p)
{
	struct mvgal_link_facts f = { false, true, true, true, false, true,
				      false, true };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(ALL & ~BIT(MVGAL_METHOD_IN_PLACE), v.methods);
	EXPECT_EQ(MVGAL_REASON_IMPORT_REFUSED, v.reasons[MVGAL_METHOD_IN_PLACE]);
	EXPECT_EQ(MVGAL_METHOD_P2P, v.chosen);
	EXPECT_EQ(MVGAL_WHY_DMA_ENGINE, v.why);
}

/* The guest's case for vgem -> virtio-gpu: no import, no engine, RAM. */
TEST(ram_without_engine_is_cpu_copy)
{
	struct mvgal_link_facts f = { false, false, true, true, false };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(BIT(MVGAL_METHOD_CPU_COPY) | BIT(MVGAL_METHOD_STAGING), v.methods);
	EXPECT_EQ(MVGAL_REASON_IMPORT_REFUSED, v.reasons[MVGAL_METHOD_IN_PLACE]);
	EXPECT_EQ(MVGAL_REASON_NO_DMA_ENGINE, v.reasons[MVGAL_METHOD_P2P]);
	EXPECT_EQ(MVGAL_REASON_OK, v.reasons[MVGAL_METHOD_CPU_COPY]);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, v.chosen);
	EXPECT_EQ(MVGAL_WHY_CPU_DIRECT, v.why);
}

/* Reading a BAR through the CPU is slow: one pass into a bounce buffer. */
TEST(iomem_source_is_staged)
{
	struct mvgal_link_facts f = { false, false, true, true, true };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(MVGAL_METHOD_STAGING, v.chosen);
	EXPECT_EQ(MVGAL_WHY_IOMEM_SOURCE, v.why);
}

TEST(iomem_source_still_in_place_when_imported)
{
	struct mvgal_link_facts f = { true, false, true, true, true };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(MVGAL_METHOD_IN_PLACE, v.chosen);
}

TEST(unmapped_pool_rules_out_cpu_paths)
{
	struct mvgal_link_facts f = { true, false, true, false, false };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(BIT(MVGAL_METHOD_IN_PLACE), v.methods);
	EXPECT_EQ(MVGAL_REASON_NO_CPU_MAPPING, v.reasons[MVGAL_METHOD_CPU_COPY]);
	EXPECT_EQ(MVGAL_REASON_NO_CPU_MAPPING, v.reasons[MVGAL_METHOD_STAGING]);
	EXPECT_EQ(MVGAL_METHOD_IN_PLACE, v.chosen);
}

TEST(nothing_possible)
{
	struct mvgal_link_facts f = { false, false, false, true, false };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(0, v.methods);
	EXPECT_EQ(MVGAL_METHOD_NONE, v.chosen);
	EXPECT_EQ(MVGAL_WHY_NONE, v.why);
}

/* Every combination of facts: a reason exactly for each impossible method,
 * a chosen method that is possible, and the first possible one in the
 * preference order (staging ahead of CPU copy only for an iomem source).
 */
TEST(invariants_over_all_facts)
{
	unsigned int bits, m;

	for (bits = 0; bits < 256; bits++) {
		struct mvgal_link_facts f = {
			.dst_imports_src = bits & 1, .dma_engine = bits & 2,
			.src_mapped = bits & 4, .dst_mapped = bits & 8,
			.src_iomem = bits & 16, .p2p_copier = bits & 32,
			.p2p_corrupts = bits & 64, .p2p_checked = bits & 128,
		};
		struct mvgal_link_verdict v;
		unsigned int order[4] = { MVGAL_METHOD_IN_PLACE, MVGAL_METHOD_P2P,
					  MVGAL_METHOD_CPU_COPY, MVGAL_METHOD_STAGING };
		unsigned int want = MVGAL_METHOD_NONE;

		if (f.src_iomem) {
			order[2] = MVGAL_METHOD_STAGING;
			order[3] = MVGAL_METHOD_CPU_COPY;
		}
		mvgal_link_judge(&f, &v);
		for (m = 0; m < MVGAL_METHOD_COUNT; m++)
			EXPECT_EQ(!(v.methods & BIT(m)), v.reasons[m] != MVGAL_REASON_OK)
				TH_LOG("facts %#x method %u", bits, m);
		for (m = 0; m < 4 && want == MVGAL_METHOD_NONE; m++)
			if (v.methods & BIT(order[m]))
				want = order[m];
		EXPECT_EQ(want, v.chosen) TH_LOG("facts %#x", bits);
		EXPECT_EQ(v.chosen == MVGAL_METHOD_NONE, v.why == MVGAL_WHY_NONE);
		EXPECT_EQ(!!(v.methods & BIT(MVGAL_METHOD_IN_PLACE)), f.dst_imports_src);
		EXPECT_EQ(!!(v.methods & BIT(MVGAL_METHOD_P2P)),
			  f.dma_engine && f.p2p_copier && !f.p2p_corrupts &&
			  f.p2p_checked);
	}
}

/* An engine whose calibration copy came out wrong is never used. */
TEST(engine_that_corrupts_is_not_p2p)
{
	struct mvgal_link_facts f = {
		.dma_engine = true, .src_mapped = true, .dst_mapped = true,
		.p2p_copier = true, .p2p_corrupts = true, .p2p_checked = true,
	};
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_FALSE(v.methods & BIT(MVGAL_METHOD_P2P));
	EXPECT_EQ(MVGAL_REASON_P2P_MISMATCH, v.reasons[MVGAL_METHOD_P2P]);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, v.chosen);
	f.p2p_corrupts = false;
	mvgal_link_judge(&f, &v);
	EXPECT_EQ(MVGAL_METHOD_P2P, v.chosen);
	/* Not checked yet: not used, even ahead of the CPU in the order. */
	f.p2p_checked = false;
	mvgal_link_judge(&f, &v);
	EXPECT_FALSE(v.methods & BIT(MVGAL_METHOD_P2P));
	EXPECT_EQ(MVGAL_REASON_P2P_UNCHECKED, v.reasons[MVGAL_METHOD_P2P]);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, v.chosen);
}

/* An engine mvgal cannot drive is reported as such, not as missing. */
TEST(engine_without_copier_is_not_p2p)
{
	struct mvgal_link_facts f = { false, true, true, true, false, false };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(MVGAL_REASON_NO_P2P_COPIER, v.reasons[MVGAL_METHOD_P2P]);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, v.chosen);
}

/* The selector: synthetic calibration tables and transfer sizes. */
#define MB (1000ULL * 1000ULL)

static const struct mvgal_link_verdict cpu_and_staging = {
	.methods = BIT(MVGAL_METHOD_CPU_COPY) | BIT(MVGAL_METHOD_STAGING),
	.chosen = MVGAL_METHOD_CPU_COPY,
};

TEST(cost_is_latency_plus_bytes_over_bandwidth)
{
	struct mvgal_path_cal c = { .latency_ns = 1000, .bw = 1000 * MB };

	EXPECT_EQ(1000ULL, mvgal_path_cost(&c, 0));
	EXPECT_EQ(2000ULL, mvgal_path_cost(&c, 1000));
	EXPECT_EQ(1000ULL + 1000000000ULL, mvgal_path_cost(&c, 1000 * MB));
	/* No overflow at the largest sizes. */
	EXPECT_EQ(1000ULL + 16ULL * 1073741824ULL,
		  mvgal_path_cost(&c, 16ULL << 30));
	c.bw = 0;
	EXPECT_EQ(MVGAL_COST_NEVER, mvgal_path_cost(&c, 1));
}

TEST(uncalibrated_keeps_static_order)
{
	struct mvgal_path_cal cal[MVGAL_NR_METHODS] = { 0 };
	struct mvgal_path_choice ch;

	mvgal_path_select(&cpu_and_staging, cal, 1 << 20, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, ch.method);
	EXPECT_FALSE(ch.measured);
	EXPECT_FALSE(ch.forced);
	/* One measured method is not enough to compare. */
	cal[MVGAL_METHOD_STAGING].bw = 100000 * MB;
	mvgal_path_select(&cpu_and_staging, cal, 1 << 20, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, ch.method);
}

/* A slow-to-read source: direct CPU copy has low latency, staging has a
 * fixed cost but reads the source once at full speed: small transfers go
 * direct, large ones staged. The crossover is where the costs meet.
 */
TEST(size_decides_between_direct_and_staged)
{
	struct mvgal_path_cal cal[MVGAL_NR_METHODS] = {
		[MVGAL_METHOD_CPU_COPY] = { .latency_ns = 500, .bw = 100 * MB },
		[MVGAL_METHOD_STAGING] = { .latency_ns = 20000, .bw = 1000 * MB },
	};
	struct mvgal_path_choice ch;

	mvgal_path_select(&cpu_and_staging, cal, 1024, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, ch.method);
	EXPECT_TRUE(ch.measured);
	mvgal_path_select(&cpu_and_staging, cal, 64 << 10, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_STAGING, ch.method);
	mvgal_path_select(&cpu_and_staging, cal, 64 << 20, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_STAGING, ch.method);
	EXPECT_LT(ch.cost[MVGAL_METHOD_STAGING], ch.cost[MVGAL_METHOD_CPU_COPY]);
	/* 500 + 10 n = 20000 + n (ns) at n = 2166.7 bytes. */
	mvgal_path_select(&cpu_and_staging, cal, 2166, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, ch.method);
	mvgal_path_select(&cpu_and_staging, cal, 2167, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_STAGING, ch.method);
}

/* A DMA engine: slow to start, fast once going. */
TEST(size_decides_between_cpu_and_engine)
{
	struct mvgal_link_verdict v = {
		.methods = BIT(MVGAL_METHOD_P2P) | BIT(MVGAL_METHOD_CPU_COPY) |
			   BIT(MVGAL_METHOD_STAGING),
		.chosen = MVGAL_METHOD_P2P,
	};
	struct mvgal_path_cal cal[MVGAL_NR_METHODS] = {
		[MVGAL_METHOD_P2P] = { .latency_ns = 50000, .bw = 12000 * MB },
		[MVGAL_METHOD_CPU_COPY] = { .latency_ns = 200, .bw = 3000 * MB },
		[MVGAL_METHOD_STAGING] = { .latency_ns = 400, .bw = 1500 * MB },
	};
	struct mvgal_path_choice ch;

	mvgal_path_select(&v, cal, 64 << 10, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, ch.method);
	mvgal_path_select(&v, cal, 64 << 20, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_P2P, ch.method);
}

TEST(in_place_wins_unless_forced)
{
	struct mvgal_link_verdict v = {
		.methods = BIT(MVGAL_METHOD_IN_PLACE) | BIT(MVGAL_METHOD_CPU_COPY) |
			   BIT(MVGAL_METHOD_STAGING),
		.chosen = MVGAL_METHOD_IN_PLACE,
	};
	struct mvgal_path_cal cal[MVGAL_NR_METHODS] = {
		[MVGAL_METHOD_CPU_COPY] = { .latency_ns = 1, .bw = 100000 * MB },
		[MVGAL_METHOD_STAGING] = { .latency_ns = 1, .bw = 100000 * MB },
	};
	struct mvgal_path_choice ch;

	mvgal_path_select(&v, cal, 1, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_IN_PLACE, ch.method);
	EXPECT_EQ(0ULL, ch.cost[MVGAL_METHOD_IN_PLACE]);
	mvgal_path_select(&v, cal, 1, MVGAL_METHOD_STAGING, &ch);
	EXPECT_EQ(MVGAL_METHOD_STAGING, ch.method);
	EXPECT_TRUE(ch.forced);
}

/* Forcing a method the pair cannot do changes nothing. */
TEST(impossible_force_is_ignored)
{
	struct mvgal_path_cal cal[MVGAL_NR_METHODS] = { 0 };
	struct mvgal_path_choice ch;

	mvgal_path_select(&cpu_and_staging, cal, 1, MVGAL_METHOD_IN_PLACE, &ch);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, ch.method);
	EXPECT_FALSE(ch.forced);
	mvgal_path_select(&cpu_and_staging, cal, 1, MVGAL_METHOD_P2P, &ch);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, ch.method);
	mvgal_path_select(&cpu_and_staging, cal, 1, 99, &ch);
	EXPECT_FALSE(ch.forced);
	EXPECT_EQ(MVGAL_COST_NEVER, ch.cost[MVGAL_METHOD_P2P]);
}

/*
 * A copy executor is possible where one serves the pair, never in the
 * static order: unmeasured, it is used only where forced, and it does not
 * hold the measured methods back; measured, it wins where it is cheaper.
 */
TEST(executor_is_used_only_where_forced)
{
	struct mvgal_link_facts f = { .src_mapped = true, .dst_mapped = true,
				      .executor = true };
	struct mvgal_path_cal cal[MVGAL_NR_METHODS] = {
		[MVGAL_METHOD_CPU_COPY] = { .latency_ns = 1, .bw = 1000 * MB },
		[MVGAL_METHOD_STAGING] = { .latency_ns = 1, .bw = 2000 * MB },
	};
	struct mvgal_link_verdict v;
	struct mvgal_path_choice ch;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(BIT(MVGAL_METHOD_EXEC) | BIT(MVGAL_METHOD_CPU_COPY) |
		  BIT(MVGAL_METHOD_STAGING), v.methods);
	EXPECT_EQ(MVGAL_METHOD_CPU_COPY, v.chosen);
	/* Unmeasured: the measured methods are priced as without it. */
	mvgal_path_select(&v, cal, 64 << 20, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_STAGING, ch.method);
	EXPECT_TRUE(ch.measured);
	EXPECT_EQ(MVGAL_COST_NEVER, ch.cost[MVGAL_METHOD_EXEC]);
	/* Measured: a fixed cost, then more bandwidth than the CPU's. */
	cal[MVGAL_METHOD_EXEC] = (struct mvgal_path_cal){ .latency_ns = 1000000,
							 .bw = 10000 * MB };
	mvgal_path_select(&v, cal, 4096, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_STAGING, ch.method);
	mvgal_path_select(&v, cal, 64 << 20, -1, &ch);
	EXPECT_EQ(MVGAL_METHOD_EXEC, ch.method);
	EXPECT_FALSE(ch.forced);
	cal[MVGAL_METHOD_EXEC] = (struct mvgal_path_cal){ 0 };
	mvgal_path_select(&v, cal, 64 << 20, MVGAL_METHOD_EXEC, &ch);
	EXPECT_EQ(MVGAL_METHOD_EXEC, ch.method);
	EXPECT_TRUE(ch.forced);
	/* Without an executor, forcing it changes nothing. */
	f.executor = false;
	mvgal_link_judge(&f, &v);
	EXPECT_FALSE(v.methods & BIT(MVGAL_METHOD_EXEC));
	mvgal_path_select(&v, cal, 64 << 20, MVGAL_METHOD_EXEC, &ch);
	EXPECT_EQ(MVGAL_METHOD_STAGING, ch.method);
	EXPECT_FALSE(ch.forced);
}

TEST(nothing_possible_selects_none)
{
	struct mvgal_link_verdict v = { .methods = 0, .chosen = MVGAL_METHOD_NONE };
	struct mvgal_path_cal cal[MVGAL_NR_METHODS] = { 0 };
	struct mvgal_path_choice ch;

	mvgal_path_select(&v, cal, 1, MVGAL_METHOD_CPU_COPY, &ch);
	EXPECT_EQ(MVGAL_METHOD_NONE, ch.method);
}

TEST(fit_two_points)
{
	struct mvgal_path_cal c;

	/* 4 KiB in 5 us, 1 MiB in 1005 us: ~1 GB/s with ~1 us latency. */
	ASSERT_EQ(0, mvgal_path_fit(4096, 5000, 4096 + 1000000, 1005000, &c));
	EXPECT_EQ(1000 * MB, c.bw);
	EXPECT_EQ(5000ULL - 4096, c.latency_ns);
	/* Negative intercept clamps to 0. */
	ASSERT_EQ(0, mvgal_path_fit(1000000, 100, 2000000, 1000100, &c));
	EXPECT_EQ(0ULL, c.latency_ns);
	EXPECT_EQ(-ERANGE, mvgal_path_fit(4096, 5000, 1 << 20, 5000, &c));
	EXPECT_EQ(-EINVAL, mvgal_path_fit(4096, 1, 4096, 2, &c));
}

TEST_HARNESS_MAIN
