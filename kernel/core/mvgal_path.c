// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Transfer methods between two GPUs: what is possible and what is used.
 *
 * The preference order is the cheap-to-expensive order DESIGN.md gives
 * when nothing is measured: using the data in place moves nothing; a DMA
 * engine copies without the CPU; the CPU copies directly between the two
 * mappings unless reading the source is slow (I/O memory such as a
 * write-combined BAR), where one pass into a cacheable bounce buffer is
 * cheaper. Transfer size and measured bandwidth refine this later, in the
 * same function, so every caller keeps getting one answer.
 */
#include <drm/mvgal_drm.h>

#include "mvgal_path.h"

void mvgal_link_judge(const struct mvgal_link_facts *f,
		      struct mvgal_link_verdict *v)
{
	bool cpu = f->src_mapped && f->dst_mapped;
	unsigned int i;

	v->methods = 0;
	for (i = 0; i < MVGAL_METHOD_COUNT; i++)
		v->reasons[i] = MVGAL_REASON_OK;

	if (f->dst_imports_src)
		v->methods |= 1U << MVGAL_METHOD_IN_PLACE;
	else
		v->reasons[MVGAL_METHOD_IN_PLACE] = MVGAL_REASON_IMPORT_REFUSED;

	if (f->dma_engine)
		v->methods |= 1U << MVGAL_METHOD_P2P;
	else
		v->reasons[MVGAL_METHOD_P2P] = MVGAL_REASON_NO_DMA_ENGINE;

	if (cpu) {
		v->methods |= 1U << MVGAL_METHOD_CPU_COPY;
		v->methods |= 1U << MVGAL_METHOD_STAGING;
	} else {
		v->reasons[MVGAL_METHOD_CPU_COPY] = MVGAL_REASON_NO_CPU_MAPPING;
		v->reasons[MVGAL_METHOD_STAGING] = MVGAL_REASON_NO_CPU_MAPPING;
	}

	if (v->methods & (1U << MVGAL_METHOD_IN_PLACE)) {
		v->chosen = MVGAL_METHOD_IN_PLACE;
		v->why = MVGAL_WHY_IMPORTS;
	} else if (v->methods & (1U << MVGAL_METHOD_P2P)) {
		v->chosen = MVGAL_METHOD_P2P;
		v->why = MVGAL_WHY_DMA_ENGINE;
	} else if (cpu && f->src_iomem) {
		v->chosen = MVGAL_METHOD_STAGING;
		v->why = MVGAL_WHY_IOMEM_SOURCE;
	} else if (cpu) {
		v->chosen = MVGAL_METHOD_CPU_COPY;
		v->why = MVGAL_WHY_CPU_DIRECT;
	} else {
		v->chosen = MVGAL_METHOD_NONE;
		v->why = MVGAL_WHY_NONE;
	}
}
