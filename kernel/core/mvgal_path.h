/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Which transfer methods can move data from one GPU's pool to another
 * GPU, why the others cannot, and which one is used. Pure C: the module
 * feeds it facts it probed, the unit tests feed it synthetic topologies.
 */
#ifndef MVGAL_PATH_H
#define MVGAL_PATH_H

#include "mvgal_core_types.h"

/* What the module found out about an ordered pair (src pool -> dst GPU). */
struct mvgal_link_facts {
	bool dst_imports_src;	/* dst's driver imported src's pool */
	bool dma_engine;	/* a memcpy DMA engine reaches both pools */
	bool src_mapped;	/* src pool has a kernel mapping */
	bool dst_mapped;
	bool src_iomem;		/* that mapping is I/O memory (e.g. a BAR) */
};

struct mvgal_link_verdict {
	unsigned int methods;	/* bit MVGAL_METHOD_x: possible */
	unsigned int reasons[4]; /* MVGAL_REASON_x per method */
	unsigned int chosen;	/* MVGAL_METHOD_x or MVGAL_METHOD_NONE */
	unsigned int why;	/* MVGAL_WHY_x */
};

void mvgal_link_judge(const struct mvgal_link_facts *f,
		      struct mvgal_link_verdict *v);

#endif /* MVGAL_PATH_H */
