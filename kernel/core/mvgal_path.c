// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Transfer methods between two GPUs: what is possible and what is used.
 *
 * When nothing is measured, methods are preferred from cheap to
 * expensive: using the data in place moves nothing; a DMA engine copies
 * without the CPU (only once a calibration has checked its copy on the
 * pair: peer copies are known to corrupt silently on some platforms);
 * the CPU copies directly between the two mappings unless reading the
 * source is slow (I/O memory such as a write-combined BAR), where one
 * pass into a cacheable bounce buffer is cheaper. Transfer size and
 * measured bandwidth refine this later, in the same function, so every
 * caller keeps getting one answer.
 */
#include <drm/mvgal_drm.h>

#include "mvgal_path.h"

void mvgal_link_judge(const struct mvgal_link_facts *f,
		      struct mvgal_link_verdict *v)
{
	bool cpu = f->src_mapped && f->dst_mapped;
	unsigned int i;

	v->methods = 0;
	for (i = 0; i < MVGAL_NR_METHODS; i++)
		v->reasons[i] = MVGAL_REASON_OK;

	if (f->dst_imports_src)
		v->methods |= 1U << MVGAL_METHOD_IN_PLACE;
	else
		v->reasons[MVGAL_METHOD_IN_PLACE] = MVGAL_REASON_IMPORT_REFUSED;

	if (f->dma_engine && f->p2p_copier && f->p2p_corrupts)
		v->reasons[MVGAL_METHOD_P2P] = MVGAL_REASON_P2P_MISMATCH;
	else if (f->dma_engine && f->p2p_copier && !f->p2p_checked)
		v->reasons[MVGAL_METHOD_P2P] = MVGAL_REASON_P2P_UNCHECKED;
	else if (f->dma_engine && f->p2p_copier)
		v->methods |= 1U << MVGAL_METHOD_P2P;
	else if (f->dma_engine)
		v->reasons[MVGAL_METHOD_P2P] = MVGAL_REASON_NO_P2P_COPIER;
	else
		v->reasons[MVGAL_METHOD_P2P] = MVGAL_REASON_NO_DMA_ENGINE;

	/*
	 * Possible; never in the static order below: only once measured
	 * (a calibration checks its copy first), or forced.
	 */
	if (f->executor)
		v->methods |= 1U << MVGAL_METHOD_EXEC;

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

/*
 * mvgal_path_cost() - modelled time to move @bytes: latency + bytes / bw,
 * in ns. MVGAL_COST_NEVER for a method never measured.
 */
unsigned long long mvgal_path_cost(const struct mvgal_path_cal *cal,
				   unsigned long long bytes)
{
	unsigned long long whole, rest;

	if (!cal->bw)
		return MVGAL_COST_NEVER;
	/* bytes * 1e9 / bw without overflowing for any size up to 2^64. */
	whole = bytes / cal->bw * 1000000000ULL;
	rest = bytes % cal->bw * 1000000000ULL / cal->bw;
	return cal->latency_ns + whole + rest;
}

/**
 * mvgal_path_select() - the one transfer-path decision
 * @v: what is possible on the pair (mvgal_link_judge())
 * @cal: calibrated figures per method of the pair
 * @bytes: the transfer size
 * @force: a method to use when possible, or -1
 * @out: the method and the cost of each
 *
 * In place moves nothing, so it wins whenever it is possible. Among the
 * copying methods, the cheapest by the cost model wins when every
 * possible one has been measured; until then, the static order of
 * mvgal_link_judge() stands, because an unmeasured method has no cost to
 * compare. A copy executor is a process mvgal cannot vouch for: it takes
 * part only once a calibration has checked and measured it, and never
 * holds the others back.
 */
void mvgal_path_select(const struct mvgal_link_verdict *v,
		       const struct mvgal_path_cal *cal,
		       unsigned long long bytes, int force,
		       struct mvgal_path_choice *out)
{
	unsigned long long best = MVGAL_COST_NEVER;
	bool all_measured = true;
	unsigned int m;

	out->method = MVGAL_METHOD_NONE;
	out->forced = false;
	out->measured = false;
	for (m = 0; m < MVGAL_NR_METHODS; m++) {
		out->cost[m] = MVGAL_COST_NEVER;
		if (!(v->methods & (1U << m)))
			continue;
		if (m == MVGAL_METHOD_IN_PLACE)
			out->cost[m] = 0;
		else
			out->cost[m] = mvgal_path_cost(&cal[m], bytes);
		/* An executor not measured is not in the running. */
		if (out->cost[m] == MVGAL_COST_NEVER && m != MVGAL_METHOD_EXEC)
			all_measured = false;
	}
	if (force >= 0 && force <= MVGAL_METHOD_EXEC &&
	    (v->methods & (1U << force))) {
		out->method = force;
		out->forced = true;
		return;
	}
	if (v->methods & (1U << MVGAL_METHOD_IN_PLACE)) {
		out->method = MVGAL_METHOD_IN_PLACE;
		return;
	}
	if (!all_measured) {
		out->method = v->chosen;
		return;
	}
	for (m = 0; m < MVGAL_NR_METHODS; m++) {
		if ((v->methods & (1U << m)) && out->cost[m] < best) {
			best = out->cost[m];
			out->method = m;
		}
	}
	out->measured = out->method != MVGAL_METHOD_NONE;
}

/*
 * mvgal_path_fit() - latency and bandwidth from two timed copies
 *
 * t = latency + n / bw through both points. A larger copy that took no
 * longer (timer noise on a fast path) is refused with -ERANGE rather
 * than turned into an infinite bandwidth; a negative intercept is
 * clamped to 0.
 *
 * Return: 0 or -EINVAL (n2 <= n1), -ERANGE.
 */
int mvgal_path_fit(unsigned long long n1, unsigned long long t1_ns,
		   unsigned long long n2, unsigned long long t2_ns,
		   struct mvgal_path_cal *cal)
{
	unsigned long long dn, dt, per1;

	if (n2 <= n1)
		return -EINVAL;
	if (t2_ns <= t1_ns)
		return -ERANGE;
	dn = n2 - n1;
	dt = t2_ns - t1_ns;
	/* bw = dn / dt (bytes per ns) * 1e9; dn < 2^34 in practice. */
	if (dn > ~0ULL / 1000000000ULL)
		return -ERANGE;
	cal->bw = dn * 1000000000ULL / dt;
	if (!cal->bw)
		return -ERANGE;
	per1 = n1 * dt / dn;	/* time the n1 bytes themselves take */
	cal->latency_ns = t1_ns > per1 ? t1_ns - per1 : 0;
	return 0;
}
