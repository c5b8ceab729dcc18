// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Access-sequence predictor. See mvgal_predict.h.
 */
#include "mvgal_predict.h"

/*
 * Fibonacci hashing: ids may be sequential or share low bits (handles,
 * aligned addresses); the multiply spreads them and the high bits are the
 * best mixed ones. The modulo is on 32 bits, which 32-bit kernels can do.
 */
static unsigned int mvgal_predict_set(unsigned long long id)
{
	unsigned int h = (id * 0x9e3779b97f4a7c15ULL) >> 32;

	return h % MVGAL_PREDICT_SETS;
}

/* The slot of @id, or -1. */
static int mvgal_predict_find(const struct mvgal_predict *p,
			      unsigned long long id)
{
	unsigned int base = mvgal_predict_set(id) * MVGAL_PREDICT_WAYS;
	unsigned int w;

	for (w = 0; w < MVGAL_PREDICT_WAYS; w++)
		if (p->slot[base + w].id == id)
			return base + w;
	return -1;
}

/*
 * The entry of @id, marked used now; made in its set if absent, in an
 * empty slot or else in place of the least recently used one.
 */
static struct mvgal_predict_entry *mvgal_predict_get(struct mvgal_predict *p,
						     unsigned long long id)
{
	unsigned int base = mvgal_predict_set(id) * MVGAL_PREDICT_WAYS;
	struct mvgal_predict_entry *e, *victim = NULL;
	unsigned int w, age, oldest = 0;

	for (w = 0; w < MVGAL_PREDICT_WAYS; w++) {
		e = &p->slot[base + w];
		if (e->id == id)
			goto found;
		/* Unsigned difference: the age stays right across a wrap. */
		age = e->id ? p->tick - e->seen : ~0U;
		if (!victim || age > oldest) {
			victim = e;
			oldest = age;
		}
	}
	e = victim;
	e->id = id;
	e->next = 0;
	e->conf = 0;
found:
	e->seen = p->tick;
	return e;
}

void mvgal_predict_init(struct mvgal_predict *p)
{
	memset(p, 0, sizeof(*p));
}

void mvgal_predict_access(struct mvgal_predict *p, unsigned long long id)
{
	struct mvgal_predict_entry *e;

	if (!id)
		return;
	p->tick++;
	if (p->last && p->last != id) {
		e = mvgal_predict_get(p, p->last);
		if (e->next == id) {
			if (e->conf < MVGAL_PREDICT_CONF_MAX)
				e->conf++;
		} else {
			/* One deviation voids the old order: it may be a
			 * new phase, and a wrong prefetch costs a copy.
			 */
			e->next = id;
			e->conf = 0;
		}
	}
	/* Even without a transition @id is in use: keep it from eviction. */
	mvgal_predict_get(p, id);
	p->last = id;
}

unsigned int mvgal_predict_next(const struct mvgal_predict *p,
				unsigned long long from, unsigned int min_conf,
				unsigned long long *out, unsigned int max)
{
	unsigned long long cur = from, nx;
	unsigned int n = 0, i;
	int s;

	if (!from)
		return 0;
	while (n < max) {
		s = mvgal_predict_find(p, cur);
		if (s < 0 || !p->slot[s].next || p->slot[s].conf < min_conf)
			break;
		nx = p->slot[s].next;
		/* A cycle: everything after it is already in @out. */
		if (nx == from)
			break;
		for (i = 0; i < n && out[i] != nx; i++)
			;
		if (i < n)
			break;
		out[n++] = nx;
		cur = nx;
	}
	return n;
}

void mvgal_predict_forget(struct mvgal_predict *p, unsigned long long id)
{
	unsigned int i;
	int s;

	if (!id)
		return;
	s = mvgal_predict_find(p, id);
	if (s >= 0)
		memset(&p->slot[s], 0, sizeof(p->slot[s]));
	/*
	 * Ids are not reused, so a stale edge would only predict a buffer
	 * that no longer exists; clearing them keeps the kernel from even
	 * looking it up. Frees are rare, the scan is cheap.
	 */
	for (i = 0; i < MVGAL_PREDICT_SLOTS; i++) {
		if (p->slot[i].next == id) {
			p->slot[i].next = 0;
			p->slot[i].conf = 0;
		}
	}
	if (p->last == id)
		p->last = 0;
}

bool mvgal_predict_known(const struct mvgal_predict *p, unsigned long long id)
{
	return id && mvgal_predict_find(p, id) >= 0;
}
