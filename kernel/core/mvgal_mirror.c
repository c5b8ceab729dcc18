// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mirror controller: the replicate-or-not decision of one buffer, from
 * accesses counted per time window. The semantics are in mvgal_mirror.h.
 *
 * Every access goes through here, so the common path (no window ended)
 * is a subtraction and a compare; the one division is taken only when
 * two or more windows ended since the last call, to skip them at once.
 */
#include "mvgal_mirror.h"

#define MVGAL_NS_PER_MS	1000000ULL

static void mvgal_mirror_inc(unsigned int *v)
{
	if (*v != ~0U)
		(*v)++;
}

/* The GPUs whose remote reads in the open window reached start_reads. */
static unsigned int mvgal_mirror_wanted(const struct mvgal_mirror *m,
					const struct mvgal_mirror_conf *c)
{
	unsigned int g, want = 0;

	for (g = 0; g < MVGAL_MIRROR_GPUS; g++)
		if (m->reads[g] >= c->start_reads)
			want |= 1U << g;
	return want;
}

/*
 * Judge the open window, which has ended, and empty it. The hold is
 * consumed before judging, but a window that found it non-zero may not
 * START or STOP: the change that set it must be followed by hold_windows
 * whole windows without one.
 */
static enum mvgal_mirror_verdict
mvgal_mirror_close(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c)
{
	enum mvgal_mirror_verdict v = MVGAL_MIRROR_KEEP;
	unsigned int want = mvgal_mirror_wanted(m, c);
	bool churn = m->writes >= c->stop_writes;
	bool held = m->hold != 0;

	if (held)
		m->hold--;
	if (!m->replicas) {
		if (!held && want && !churn) {
			m->replicas = want;
			m->hold = c->hold_windows;
			mvgal_mirror_inc(&m->starts);
			v = MVGAL_MIRROR_START;
		}
	} else if (churn) {
		if (!held) {
			m->replicas = 0;
			m->hold = c->hold_windows;
			mvgal_mirror_inc(&m->stops);
			v = MVGAL_MIRROR_STOP;
		}
	} else if (want & ~m->replicas) {
		m->replicas |= want;
		mvgal_mirror_inc(&m->grows);
		v = MVGAL_MIRROR_GROW;
	}
	memset(m->reads, 0, sizeof(m->reads));
	m->writes = 0;
	return v;
}

/*
 * Close every window that ended by @now_ns: the open one is judged, the
 * idle ones after it can change nothing (no reads to want, no writes to
 * churn), so they are skipped at once and only shorten the hold.
 */
static enum mvgal_mirror_verdict
mvgal_mirror_advance(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
		     unsigned long long now_ns)
{
	unsigned long long win = c->window_ms * MVGAL_NS_PER_MS;
	unsigned long long gap, n;
	enum mvgal_mirror_verdict v;

	/* Backwards time is no time; win 0 (unchecked conf) must not trap. */
	if (now_ns <= m->window_start_ns || !win)
		return MVGAL_MIRROR_KEEP;
	gap = now_ns - m->window_start_ns;
	if (gap < win)
		return MVGAL_MIRROR_KEEP;

	v = mvgal_mirror_close(m, c);
	/* win < 2^53, so 2 * win does not wrap. 64-bit division: x86-64. */
	n = gap < 2 * win ? 1 : gap / win;
	if (n - 1 >= m->hold)
		m->hold = 0;
	else
		m->hold -= (unsigned int)(n - 1);
	/* n * win <= gap: no wrap, and the new start is <= now_ns. */
	m->window_start_ns += n * win;
	return v;
}

/**
 * mvgal_mirror_init() - a buffer nobody has accessed yet
 * @m: the controller state, owned by the caller
 * @now_ns: when its first window opens
 */
void mvgal_mirror_init(struct mvgal_mirror *m, unsigned long long now_ns)
{
	memset(m, 0, sizeof(*m));
	m->window_start_ns = now_ns;
}

/**
 * mvgal_mirror_conf_check() - whether a configuration can be used
 * @c: the configuration
 *
 * A zero window would never end, a zero threshold would be crossed by a
 * window without any access. hold_windows 0 is allowed: no hysteresis.
 *
 * Return: 0 or -EINVAL.
 */
int mvgal_mirror_conf_check(const struct mvgal_mirror_conf *c)
{
	if (!c->window_ms || !c->start_reads || !c->stop_writes)
		return -EINVAL;
	return 0;
}

/**
 * mvgal_mirror_read() - record a read of the buffer
 * @m: the controller state
 * @c: a checked configuration
 * @gpu: the reading GPU; one >= MVGAL_MIRROR_GPUS is not counted
 * @remote: the read was served from another GPU's memory
 * @now_ns: the time of the read
 *
 * Return: the verdict of the window closed by @now_ns, if any.
 */
enum mvgal_mirror_verdict
mvgal_mirror_read(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
		  unsigned int gpu, bool remote, unsigned long long now_ns)
{
	enum mvgal_mirror_verdict v = mvgal_mirror_advance(m, c, now_ns);

	if (remote && gpu < MVGAL_MIRROR_GPUS)
		mvgal_mirror_inc(&m->reads[gpu]);
	return v;
}

/**
 * mvgal_mirror_write() - record a write of the buffer
 * @m: the controller state
 * @c: a checked configuration
 * @now_ns: the time of the write
 *
 * Besides closing windows, the write that brings the open window to
 * 2 * stop_writes stops replication at once when the hold allows it.
 * Both cannot happen in one call: the write after a close is the first
 * of its window, and 2 * stop_writes >= 2.
 *
 * Return: the verdict to act on now.
 */
enum mvgal_mirror_verdict
mvgal_mirror_write(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
		   unsigned long long now_ns)
{
	enum mvgal_mirror_verdict v = mvgal_mirror_advance(m, c, now_ns);

	mvgal_mirror_inc(&m->writes);
	/* writes / 2 >= stop_writes is writes >= 2 * stop_writes, unwrapped. */
	if (m->replicas && !m->hold && m->writes / 2 >= c->stop_writes) {
		m->replicas = 0;
		/* The open window's close must not count toward the hold. */
		m->hold = c->hold_windows;
		mvgal_mirror_inc(&m->hold);
		mvgal_mirror_inc(&m->stops);
		v = MVGAL_MIRROR_STOP;
	}
	return v;
}

/**
 * mvgal_mirror_tick() - let time pass without an access
 * @m: the controller state
 * @c: a checked configuration
 * @now_ns: the current time
 *
 * Without it, a buffer that stops being accessed keeps its last open
 * window, and the decision it holds, until the next access.
 *
 * Return: the verdict of the window closed by @now_ns, if any.
 */
enum mvgal_mirror_verdict
mvgal_mirror_tick(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
		  unsigned long long now_ns)
{
	return mvgal_mirror_advance(m, c, now_ns);
}
