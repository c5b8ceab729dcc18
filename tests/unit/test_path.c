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
	struct mvgal_link_facts f = { true, true, true, true, false };
	struct mvgal_link_verdict v;

	mvgal_link_judge(&f, &v);
	EXPECT_EQ(ALL, v.methods);
	EXPECT_EQ(MVGAL_METHOD_IN_PLACE, v.chosen);
	EXPECT_EQ(MVGAL_WHY_IMPORTS, v.why);
}

TEST(refused_import_with_dma_engine_is_p2p)
{
	struct mvgal_link_facts f = { false, true, true, true, false };
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

	for (bits = 0; bits < 32; bits++) {
		struct mvgal_link_facts f = {
			.dst_imports_src = bits & 1, .dma_engine = bits & 2,
			.src_mapped = bits & 4, .dst_mapped = bits & 8,
			.src_iomem = bits & 16,
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
		EXPECT_EQ(!!(v.methods & BIT(MVGAL_METHOD_P2P)), f.dma_engine);
	}
}

TEST_HARNESS_MAIN
