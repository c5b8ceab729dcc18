/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Which transfer methods can move data from one GPU's pool to another
 * GPU, why the others cannot, and which one is used. Pure C: the module
 * feeds it facts it probed, the unit tests feed it synthetic topologies.
 */
#ifndef MVGAL_PATH_H
#define MVGAL_PATH_H

#include <drm/mvgal_drm.h>

#include "mvgal_core_types.h"

/*
 * Every method, the copy executor's too: the uapi's per-method arrays stop
 * before it (MVGAL_METHOD_COUNT), mvgal's own do not.
 */
#define MVGAL_NR_METHODS	(MVGAL_METHOD_EXEC + 1)

/* What the module found out about an ordered pair (src pool -> dst GPU). */
struct mvgal_link_facts {
	bool dst_imports_src;	/* dst's driver imported src's pool */
	bool dma_engine;	/* a memcpy DMA engine reaches both pools */
	bool src_mapped;	/* src pool has a kernel mapping */
	bool dst_mapped;
	bool src_iomem;		/* that mapping is I/O memory (e.g. a BAR) */
	bool p2p_copier;	/* mvgal can drive that engine */
	bool p2p_corrupts;	/* calibration found its copies wrong */
	bool p2p_checked;	/* calibration found them right */
	bool executor;		/* a copy executor serves the pair's GPU */
};

struct mvgal_link_verdict {
	unsigned int methods;	/* bit MVGAL_METHOD_x: possible */
	unsigned int reasons[MVGAL_NR_METHODS]; /* MVGAL_REASON_x per method */
	unsigned int chosen;	/* MVGAL_METHOD_x or MVGAL_METHOD_NONE */
	unsigned int why;	/* MVGAL_WHY_x */
};

void mvgal_link_judge(const struct mvgal_link_facts *f,
		      struct mvgal_link_verdict *v);

/* Calibrated figures of one method on one path; bw 0: never measured. */
struct mvgal_path_cal {
	unsigned long long latency_ns;
	unsigned long long bw;		/* bytes per second */
};

#define MVGAL_COST_NEVER	(~0ULL)

unsigned long long mvgal_path_cost(const struct mvgal_path_cal *cal,
				   unsigned long long bytes);

/* What mvgal_path_select() decided and why. */
struct mvgal_path_choice {
	unsigned int method;		/* MVGAL_METHOD_x or _NONE */
	bool forced;			/* the force knob decided */
	bool measured;			/* costs decided, not the static order */
	unsigned long long cost[MVGAL_NR_METHODS]; /* MVGAL_COST_NEVER: none */
};

void mvgal_path_select(const struct mvgal_link_verdict *v,
		       const struct mvgal_path_cal *cal,
		       unsigned long long bytes, int force,
		       struct mvgal_path_choice *out);

/* Two timed copies of @n1 < @n2 bytes -> latency and bandwidth. */
int mvgal_path_fit(unsigned long long n1, unsigned long long t1_ns,
		   unsigned long long n2, unsigned long long t2_ns,
		   struct mvgal_path_cal *cal);

#endif /* MVGAL_PATH_H */
