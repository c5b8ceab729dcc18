/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mirror controller: when to replicate a buffer that several GPUs read.
 *
 * A read served from another GPU's memory (a remote read) crosses the
 * link every time; a read-only replica on the reader makes it local. But
 * every write invalidates every other copy, so replicas of a buffer that
 * is also written are refilled and thrown away over and over (churn).
 * The controller counts accesses per buffer over fixed time windows and
 * decides from whole windows, with hysteresis so that a buffer whose use
 * alternates does not flap between replicated and not.
 *
 * Windows. Window k covers [start + k * W, start + (k + 1) * W), with W =
 * window_ms milliseconds and start the time given to mvgal_mirror_init().
 * Every call takes the current time and first closes every window that
 * ended at or before it, in O(1) however many: the open window is judged
 * on its counts, every window after it that saw no call is an idle window
 * (no reads, no writes), which never changes the state but does count
 * toward @hold. A time before the open window's start (the clock went
 * backwards) counts as no time passed: the access goes into the open
 * window.
 *
 * Judging a closed window. A GPU "wants" a replica when its remote reads
 * in the window reached start_reads; the window "churns" when its writes
 * reached stop_writes.
 *  - Off, hold 0, some GPU wants, no churn: START, @replicas = the GPUs
 *    that want.
 *  - On, hold 0, churn: STOP, @replicas = 0.
 *  - On, no churn, a GPU outside @replicas wants: GROW, it is added. Hold
 *    does not apply: adding a reader changes no on/off decision.
 *  - Otherwise KEEP.
 * A window that closes with hold > 0 only decrements it (and may GROW).
 * START and STOP set hold = hold_windows, so after a change at the close
 * of window k the next one can come at the close of window k +
 * hold_windows + 1 at the earliest: at most one change in any
 * hold_windows + 1 consecutive windows.
 *
 * Immediate stop. While on with hold 0, the write that brings the open
 * window's writes to 2 * stop_writes stops replication at once: copies
 * are being thrown away that fast, waiting for the window to end only
 * costs more refills. The open window has not closed, so hold is set to
 * hold_windows + 1 (its close is the first to count), keeping the bound
 * above.
 *
 * Reads by a GPU holding a replica are local: the caller passes remote =
 * false for them, and local reads count for nothing but the time. A gpu
 * >= MVGAL_MIRROR_GPUS is not counted (its time still is). All counters
 * saturate. The caller owns the memory and serialises calls per buffer.
 */
#ifndef MVGAL_MIRROR_H
#define MVGAL_MIRROR_H

#include "mvgal_core_types.h"

#define MVGAL_MIRROR_GPUS	8

struct mvgal_mirror_conf {
	unsigned int window_ms;		/* length of a window (> 0) */
	unsigned int start_reads;	/* remote reads by one GPU in a window
					 * that make it want a replica (> 0)
					 */
	unsigned int stop_writes;	/* writes in a window that churn (> 0) */
	unsigned int hold_windows;	/* windows to close after a START or
					 * STOP before the opposite change
					 */
};

struct mvgal_mirror {
	unsigned long long window_start_ns;	/* the open window's start */
	unsigned int reads[MVGAL_MIRROR_GPUS];	/* remote reads, open window */
	unsigned int writes;			/* writes, open window */
	unsigned int replicas;	/* bit g: GPU g should hold a replica; 0: off */
	unsigned int hold;	/* window closes left before START/STOP */
	unsigned int starts;	/* for reporting */
	unsigned int stops;
	unsigned int grows;
};

/* What to do now; the replica set to reach is in mvgal_mirror.replicas. */
enum mvgal_mirror_verdict {
	MVGAL_MIRROR_KEEP,	/* nothing changed */
	MVGAL_MIRROR_START,	/* make the replicas */
	MVGAL_MIRROR_GROW,	/* make the added replicas */
	MVGAL_MIRROR_STOP,	/* drop every replica */
};

static inline bool mvgal_mirror_on(const struct mvgal_mirror *m)
{
	return m->replicas != 0;
}

/* Off, hold 0, nothing counted; the first window opens at @now_ns. */
void mvgal_mirror_init(struct mvgal_mirror *m, unsigned long long now_ns);
/* 0, or -EINVAL when window_ms, start_reads or stop_writes is 0. */
int mvgal_mirror_conf_check(const struct mvgal_mirror_conf *c);

/*
 * Each call closes the windows that ended by @now_ns, records its access
 * and returns the verdict to act on now. @c must have passed
 * mvgal_mirror_conf_check(); one call can cause at most one change.
 */
enum mvgal_mirror_verdict
mvgal_mirror_read(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
		  unsigned int gpu, bool remote, unsigned long long now_ns);
enum mvgal_mirror_verdict
mvgal_mirror_write(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
		   unsigned long long now_ns);
/* No access: only close the windows that ended by @now_ns. */
enum mvgal_mirror_verdict
mvgal_mirror_tick(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
		  unsigned long long now_ns);

#endif /* MVGAL_MIRROR_H */
