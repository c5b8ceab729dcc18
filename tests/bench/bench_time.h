/* SPDX-License-Identifier: GPL-2.0 */
/* Timing and reporting helpers shared by the benchmarks. */
#ifndef MVGAL_BENCH_TIME_H
#define MVGAL_BENCH_TIME_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The machine-readable line of one figure, printed after its human
 * lines, so that runs can be compared by a script:
 *
 *   bench: NAME value=X goal=OP Y met=yes|no
 *   bench: NAME value=X goal=none met=n/a
 *
 * @name is a stable snake_case identifier; @op is "<=", ">=" or NULL (no
 * goal). A figure that could not be measured is passed as NAN and printed
 * "value=n/a"; it has not met its goal, if it has one.
 */
static inline void bench_figure(const char *name, double value,
				const char *op, double goal)
{
	char v[32];
	const char *met;

	if (isnan(value))
		snprintf(v, sizeof(v), "n/a");
	else if (value >= 10000 || value <= -10000)
		snprintf(v, sizeof(v), "%.0f", value);
	else
		snprintf(v, sizeof(v), "%.4g", value);
	if (!op) {
		printf("bench: %s value=%s goal=none met=n/a\n", name, v);
		return;
	}
	if (isnan(value))
		met = "no";
	else if (!strcmp(op, "<="))
		met = value <= goal ? "yes" : "no";
	else
		met = value >= goal ? "yes" : "no";
	printf("bench: %s value=%s goal=%s %g met=%s\n", name, v, op, goal, met);
}

#endif
