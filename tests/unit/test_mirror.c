// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the mirror controller (kernel/core/mvgal_mirror.c) on
 * synthetic access sequences.
 *
 * Window k is [T0 + k * W, T0 + (k + 1) * W). The tests close window k - 1
 * with a tick at the start of window k, and put accesses strictly inside
 * a window: so a tick's verdict is the judgement of a whole window, and an
 * access's verdict is an immediate stop.
 */
#include "core/mvgal_mirror.h"
#include "kselftest_harness.h"

#define WMS	10ULL
#define W	(WMS * 1000000ULL)
#define T0	123456789ULL

static const struct mvgal_mirror_conf conf = {
	.window_ms = WMS,
	.start_reads = 4,
	.stop_writes = 3,
	.hold_windows = 2,
};

static unsigned long long win(unsigned long long k)
{
	return T0 + k * W;
}

/*
 * @reads remote reads by each GPU of @gpus, then @writes writes, inside
 * window @k. Return: the last verdict other than KEEP, or KEEP.
 */
static enum mvgal_mirror_verdict feed(struct mvgal_mirror *m,
				      const struct mvgal_mirror_conf *c,
				      unsigned long long k, unsigned int gpus,
				      unsigned int reads, unsigned int writes)
{
	enum mvgal_mirror_verdict v = MVGAL_MIRROR_KEEP, r;
	unsigned long long t = win(k) + 1;
	unsigned int i, g;

	for (i = 0; i < reads; i++)
		for (g = 0; g < MVGAL_MIRROR_GPUS; g++) {
			if (!(gpus & (1U << g)))
				continue;
			r = mvgal_mirror_read(m, c, g, true, t++);
			if (r != MVGAL_MIRROR_KEEP)
				v = r;
		}
	for (i = 0; i < writes; i++) {
		r = mvgal_mirror_write(m, c, t++);
		if (r != MVGAL_MIRROR_KEEP)
			v = r;
	}
	return v;
}

/* Close window @k - 1. */
static enum mvgal_mirror_verdict
close_to(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
	 unsigned long long k)
{
	return mvgal_mirror_tick(m, c, win(k));
}

/* Replication on with the replicas of @gpus, decided at the close of 0. */
static void started(struct mvgal_mirror *m, const struct mvgal_mirror_conf *c,
		    unsigned int gpus)
{
	mvgal_mirror_init(m, T0);
	feed(m, c, 0, gpus, c->start_reads, 0);
	if (close_to(m, c, 1) != MVGAL_MIRROR_START || m->replicas != gpus)
		abort();
}

TEST(remote_reads_start_after_first_window)
{
	struct mvgal_mirror m;
	unsigned int i;

	mvgal_mirror_init(&m, T0);
	EXPECT_FALSE(mvgal_mirror_on(&m));
	EXPECT_EQ(MVGAL_MIRROR_KEEP, feed(&m, &conf, 0, 0x6, 4, 0));
	EXPECT_EQ(MVGAL_MIRROR_KEEP, feed(&m, &conf, 0, 0x8, 3, 0));
	/* Not before the window is over. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP, mvgal_mirror_tick(&m, &conf, win(1) - 1));
	EXPECT_FALSE(mvgal_mirror_on(&m));
	/* The first access of window 1 closes window 0. */
	EXPECT_EQ(MVGAL_MIRROR_START,
		  mvgal_mirror_read(&m, &conf, 1, true, win(1)));
	EXPECT_TRUE(mvgal_mirror_on(&m));
	EXPECT_EQ(0x6U, m.replicas);	/* GPU 3 stayed below start_reads */
	EXPECT_EQ(conf.hold_windows, m.hold);
	EXPECT_EQ(1U, m.starts);
	EXPECT_EQ(win(1), m.window_start_ns);
	/* Steady reads keep it as it is. */
	for (i = 1; i < 10; i++) {
		feed(&m, &conf, i, 0x6, 4, 0);
		EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, i + 1));
	}
	EXPECT_EQ(0x6U, m.replicas);
	EXPECT_EQ(1U, m.starts);
	EXPECT_EQ(0U, m.grows);
}

TEST(local_reads_never_start)
{
	struct mvgal_mirror m;
	unsigned long long k;
	unsigned int i, g;

	mvgal_mirror_init(&m, T0);
	for (k = 0; k < 20; k++) {
		for (i = 0; i < 100; i++)
			for (g = 0; g < MVGAL_MIRROR_GPUS; g++)
				EXPECT_EQ(MVGAL_MIRROR_KEEP,
					  mvgal_mirror_read(&m, &conf, g, false,
							    win(k) + 1 + i));
		EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, k + 1));
	}
	EXPECT_FALSE(mvgal_mirror_on(&m));
	EXPECT_EQ(0U, m.starts);
}

TEST(reads_with_churn_do_not_start)
{
	struct mvgal_mirror m;

	mvgal_mirror_init(&m, T0);
	feed(&m, &conf, 0, 0x1, 10, conf.stop_writes);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 1));
	feed(&m, &conf, 1, 0x1, 10, conf.stop_writes - 1);
	EXPECT_EQ(MVGAL_MIRROR_START, close_to(&m, &conf, 2));
}

TEST(writes_stop_only_after_hold)
{
	struct mvgal_mirror m;

	started(&m, &conf, 0x2);		/* hold 2 */
	EXPECT_EQ(MVGAL_MIRROR_KEEP, feed(&m, &conf, 1, 0, 0, 3));
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 2));
	EXPECT_EQ(1U, m.hold);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, feed(&m, &conf, 2, 0, 0, 5));
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 3));
	EXPECT_EQ(0U, m.hold);
	EXPECT_TRUE(mvgal_mirror_on(&m));
	/* Below stop_writes is no churn. */
	feed(&m, &conf, 3, 0, 0, conf.stop_writes - 1);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 4));
	EXPECT_TRUE(mvgal_mirror_on(&m));
	/* At stop_writes, with the hold over: stop. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP,
		  feed(&m, &conf, 4, 0, 0, conf.stop_writes));
	EXPECT_EQ(MVGAL_MIRROR_STOP, close_to(&m, &conf, 5));
	EXPECT_FALSE(mvgal_mirror_on(&m));
	EXPECT_EQ(0U, m.replicas);
	EXPECT_EQ(conf.hold_windows, m.hold);
	EXPECT_EQ(1U, m.stops);
}

TEST(immediate_stop_at_twice_stop_writes)
{
	struct mvgal_mirror m;
	unsigned int i;

	started(&m, &conf, 0x2);
	/* Held: even a flood of writes does not stop it. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP, feed(&m, &conf, 1, 0, 0, 100));
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 2));
	EXPECT_TRUE(mvgal_mirror_on(&m));
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 3));
	EXPECT_EQ(0U, m.hold);
	/* Window 3: the 6th write stops it, before the window ends. */
	for (i = 1; i < 2 * conf.stop_writes; i++)
		EXPECT_EQ(MVGAL_MIRROR_KEEP,
			  mvgal_mirror_write(&m, &conf, win(3) + i));
	EXPECT_TRUE(mvgal_mirror_on(&m));
	EXPECT_EQ(MVGAL_MIRROR_STOP,
		  mvgal_mirror_write(&m, &conf, win(3) + i));
	EXPECT_FALSE(mvgal_mirror_on(&m));
	EXPECT_EQ(1U, m.stops);
	EXPECT_EQ(conf.hold_windows + 1, m.hold);
	EXPECT_EQ(MVGAL_MIRROR_KEEP,
		  mvgal_mirror_write(&m, &conf, win(3) + i + 1));
	EXPECT_EQ(1U, m.stops);
	/* Reads from now on: the earliest START is hold_windows + 1 on. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 4));	/* 3 */
	feed(&m, &conf, 4, 0x2, 10, 0);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 5));	/* 4 */
	feed(&m, &conf, 5, 0x2, 10, 0);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 6));	/* 5 */
	feed(&m, &conf, 6, 0x2, 10, 0);
	EXPECT_EQ(MVGAL_MIRROR_START, close_to(&m, &conf, 7));	/* 6 */
}

struct pattern {
	unsigned int gpus[2];
	unsigned int reads[2];
	unsigned int writes[2];
};

/* The START/STOP changes seen so far and the window of the last one. */
struct changes {
	unsigned int n;
	unsigned long long last;
};

/* A change decided on window @at: never within hold_windows of the last. */
static void change(struct __test_metadata *_metadata,
		   const struct mvgal_mirror_conf *c, struct changes *ch,
		   unsigned long long at)
{
	if (ch->n)
		EXPECT_GE(at - ch->last, c->hold_windows + 1ULL);
	ch->last = at;
	ch->n++;
}

/*
 * Run @nwin windows, each of the two kinds of @p in turn, or at random
 * with @seed. Return: how many START/STOP changes there were.
 */
static unsigned int run_changes(struct __test_metadata *_metadata,
				const struct mvgal_mirror_conf *c,
				unsigned int nwin, const struct pattern *p,
				unsigned int *seed)
{
	struct changes ch = { 0 };
	enum mvgal_mirror_verdict v;
	struct mvgal_mirror m;
	unsigned int k, j;

	mvgal_mirror_init(&m, T0);
	for (k = 0; k < nwin; k++) {
		v = close_to(&m, c, k);
		if (v == MVGAL_MIRROR_START || v == MVGAL_MIRROR_STOP)
			change(_metadata, c, &ch, k - 1);
		if (seed) {
			*seed = *seed * 1103515245U + 12345U;
			j = (*seed >> 16) & 1;
		} else {
			j = k & 1;
		}
		v = feed(&m, c, k, p->gpus[j], p->reads[j], p->writes[j]);
		/* Only closes start or grow. */
		EXPECT_NE(MVGAL_MIRROR_START, v);
		EXPECT_NE(MVGAL_MIRROR_GROW, v);
		if (v == MVGAL_MIRROR_STOP)
			change(_metadata, c, &ch, k);
	}
	return ch.n;
}

TEST(flapping_is_damped)
{
	static const struct pattern close_only = {
		.gpus = { 0x2, 0 }, .reads = { 5, 0 }, .writes = { 0, 3 },
	};
	static const struct pattern immediate = {
		.gpus = { 0x2, 0 }, .reads = { 5, 0 }, .writes = { 0, 7 },
	};
	static const struct pattern mixed = {
		.gpus = { 0x6, 0x2 }, .reads = { 5, 5 }, .writes = { 1, 9 },
	};
	const struct pattern *pats[] = { &close_only, &immediate, &mixed };
	struct mvgal_mirror_conf c = conf;
	unsigned int h, p, n, seed;

	for (h = 0; h < 8; h++) {
		c.hold_windows = h;
		for (p = 0; p < ARRAY_SIZE(pats); p++) {
			n = run_changes(_metadata, &c, 100, pats[p], NULL);
			EXPECT_GE(n, 2U);
			EXPECT_LE(n, (100 + h) / (h + 1));
			seed = 1 + h * 7 + p;
			n = run_changes(_metadata, &c, 100, pats[p], &seed);
			EXPECT_LE(n, (100 + h) / (h + 1));
		}
	}
}

TEST(long_idle_gap_is_one_step)
{
	struct mvgal_mirror_conf c = conf;
	struct mvgal_mirror m;
	unsigned long long ws;

	c.hold_windows = 1000000;
	started(&m, &c, 0x2);
	EXPECT_EQ(1000000U, m.hold);
	/* Half the hold, ending mid-window. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP,
		  mvgal_mirror_tick(&m, &c, win(500001) + 5));
	EXPECT_EQ(500000U, m.hold);
	EXPECT_EQ(win(500001), m.window_start_ns);
	/* The rest of it; idle windows are no reason to stop. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &c, 1000001));
	EXPECT_EQ(0U, m.hold);
	EXPECT_TRUE(mvgal_mirror_on(&m));
	/* The hold is over: a churning window stops at once. */
	feed(&m, &c, 1000001, 0, 0, c.stop_writes);
	EXPECT_EQ(MVGAL_MIRROR_STOP, close_to(&m, &c, 1000002));

	/* ~4.6e12 windows of 1 ms: a loop over them would time out. */
	c.window_ms = 1;
	c.hold_windows = ~0U;
	mvgal_mirror_init(&m, 7);
	mvgal_mirror_read(&m, &c, 5, true, 8);
	m.reads[5] = c.start_reads;
	EXPECT_EQ(MVGAL_MIRROR_START,
		  mvgal_mirror_tick(&m, &c, 1ULL << 62));
	EXPECT_EQ(0U, m.hold);		/* ~0U windows passed and more */
	ws = m.window_start_ns;
	EXPECT_LE(ws, 1ULL << 62);
	EXPECT_GT(ws + 1000000ULL, 1ULL << 62);
	EXPECT_EQ(0ULL, (ws - 7) % 1000000ULL);
	/* Near the end of time, windows still close without wrapping. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP, mvgal_mirror_tick(&m, &c, ~0ULL));
	EXPECT_GT(m.window_start_ns, ~0ULL - 1000000ULL);
}

TEST(counted_window_before_gap_is_judged)
{
	struct mvgal_mirror_conf c = conf;
	struct mvgal_mirror m;

	c.hold_windows = 5;
	mvgal_mirror_init(&m, T0);
	feed(&m, &c, 0, 0x1, 4, 0);
	/* Window 0 starts it, the 99 idle ones after use up the hold. */
	EXPECT_EQ(MVGAL_MIRROR_START, close_to(&m, &c, 100));
	EXPECT_EQ(0x1U, m.replicas);
	EXPECT_EQ(0U, m.hold);
	EXPECT_EQ(win(100), m.window_start_ns);
	/* Partly used up. */
	mvgal_mirror_init(&m, T0);
	feed(&m, &c, 0, 0x1, 4, 0);
	EXPECT_EQ(MVGAL_MIRROR_START, close_to(&m, &c, 3));
	EXPECT_EQ(3U, m.hold);
}

TEST(grow_ignores_hold)
{
	struct mvgal_mirror_conf c = conf;
	struct mvgal_mirror m;

	c.hold_windows = 5;
	started(&m, &c, 0x2);
	feed(&m, &c, 1, 0x4, c.start_reads, 0);
	EXPECT_EQ(MVGAL_MIRROR_GROW, close_to(&m, &c, 2));
	EXPECT_EQ(0x6U, m.replicas);
	EXPECT_EQ(4U, m.hold);		/* still counting down */
	EXPECT_EQ(1U, m.grows);
	EXPECT_EQ(1U, m.starts);
	/* Not while the window churns. */
	feed(&m, &c, 2, 0x8, c.start_reads, c.stop_writes);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &c, 3));
	EXPECT_EQ(0x6U, m.replicas);
	/* Below the threshold: nothing. */
	feed(&m, &c, 3, 0x8, c.start_reads - 1, 0);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &c, 4));
	/* Two at once, one of them already a holder. */
	feed(&m, &c, 4, 0x82, c.start_reads, 0);
	EXPECT_EQ(MVGAL_MIRROR_GROW, close_to(&m, &c, 5));
	EXPECT_EQ(0x86U, m.replicas);
	EXPECT_EQ(2U, m.grows);
}

TEST(conf_check_rejects_zeros)
{
	struct mvgal_mirror_conf c = conf;
	struct mvgal_mirror m;

	EXPECT_EQ(0, mvgal_mirror_conf_check(&c));
	c.hold_windows = 0;
	EXPECT_EQ(0, mvgal_mirror_conf_check(&c));
	c = conf;
	c.window_ms = 0;
	EXPECT_EQ(-EINVAL, mvgal_mirror_conf_check(&c));
	c = conf;
	c.start_reads = 0;
	EXPECT_EQ(-EINVAL, mvgal_mirror_conf_check(&c));
	c = conf;
	c.stop_writes = 0;
	EXPECT_EQ(-EINVAL, mvgal_mirror_conf_check(&c));

	/* Used anyway, a zero window must not divide by zero. */
	c = conf;
	c.window_ms = 0;
	mvgal_mirror_init(&m, T0);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, mvgal_mirror_tick(&m, &c, ~0ULL));
}

TEST(out_of_range_gpu_is_ignored)
{
	struct {
		struct mvgal_mirror m;
		unsigned int guard[4];
	} s;
	unsigned int gpus[] = { MVGAL_MIRROR_GPUS, 31, 32, 1000, ~0U };
	unsigned int i, j;

	memset(&s, 0xa5, sizeof(s));
	mvgal_mirror_init(&s.m, T0);
	for (i = 0; i < ARRAY_SIZE(gpus); i++)
		for (j = 0; j < 100; j++)
			EXPECT_EQ(MVGAL_MIRROR_KEEP,
				  mvgal_mirror_read(&s.m, &conf, gpus[i], true,
						    win(0) + 1 + j));
	for (j = 0; j < ARRAY_SIZE(s.m.reads); j++)
		EXPECT_EQ(0U, s.m.reads[j]);
	for (j = 0; j < ARRAY_SIZE(s.guard); j++)
		EXPECT_EQ(0xa5a5a5a5U, s.guard[j]);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&s.m, &conf, 1));
	EXPECT_FALSE(mvgal_mirror_on(&s.m));
	/* The highest valid one counts. */
	feed(&s.m, &conf, 1, 1U << (MVGAL_MIRROR_GPUS - 1), 4, 0);
	EXPECT_EQ(MVGAL_MIRROR_START, close_to(&s.m, &conf, 2));
	EXPECT_EQ(1U << (MVGAL_MIRROR_GPUS - 1), s.m.replicas);
}

TEST(time_going_backwards_is_no_time)
{
	struct mvgal_mirror m;
	unsigned int i;

	mvgal_mirror_init(&m, T0);
	/* Before the first window: counted in it. */
	for (i = 0; i < 4; i++)
		EXPECT_EQ(MVGAL_MIRROR_KEEP,
			  mvgal_mirror_read(&m, &conf, 0, true, i));
	EXPECT_EQ(4U, m.reads[0]);
	EXPECT_EQ(T0, m.window_start_ns);
	EXPECT_EQ(MVGAL_MIRROR_START, close_to(&m, &conf, 1));

	/* Move to window 5, then back into window 2: stays in window 5. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &conf, 5));
	EXPECT_EQ(0U, m.hold);
	EXPECT_EQ(MVGAL_MIRROR_KEEP, mvgal_mirror_write(&m, &conf, win(2)));
	EXPECT_EQ(MVGAL_MIRROR_KEEP, mvgal_mirror_tick(&m, &conf, 0));
	EXPECT_EQ(win(5), m.window_start_ns);
	EXPECT_EQ(1U, m.writes);
	feed(&m, &conf, 5, 0, 0, conf.stop_writes - 1);
	EXPECT_EQ(MVGAL_MIRROR_STOP, close_to(&m, &conf, 6));
}

TEST(counters_saturate)
{
	struct mvgal_mirror_conf c = conf;
	struct mvgal_mirror m;

	c.stop_writes = ~0U;
	mvgal_mirror_init(&m, T0);
	m.reads[3] = ~0U - 1;
	m.writes = ~0U - 1;
	mvgal_mirror_read(&m, &c, 3, true, T0 + 1);
	mvgal_mirror_read(&m, &c, 3, true, T0 + 2);
	mvgal_mirror_write(&m, &c, T0 + 3);
	mvgal_mirror_write(&m, &c, T0 + 4);
	EXPECT_EQ(~0U, m.reads[3]);
	EXPECT_EQ(~0U, m.writes);
	/* writes >= stop_writes: churn, no start. */
	EXPECT_EQ(MVGAL_MIRROR_KEEP, close_to(&m, &c, 1));

	/* 2 * stop_writes beyond the counter: no immediate stop, no wrap. */
	c.stop_writes = (~0U >> 1) + 1;
	c.hold_windows = 0;
	started(&m, &c, 0x1);
	m.writes = ~0U - 1;
	EXPECT_EQ(MVGAL_MIRROR_KEEP, mvgal_mirror_write(&m, &c, win(1) + 1));
	EXPECT_EQ(MVGAL_MIRROR_KEEP, mvgal_mirror_write(&m, &c, win(1) + 2));
	EXPECT_TRUE(mvgal_mirror_on(&m));
	EXPECT_EQ(MVGAL_MIRROR_STOP, close_to(&m, &c, 2));

	m.starts = ~0U;
	m.hold = 0;
	feed(&m, &c, 2, 0x1, c.start_reads, 0);
	EXPECT_EQ(MVGAL_MIRROR_START, close_to(&m, &c, 3));
	EXPECT_EQ(~0U, m.starts);
}

TEST_HARNESS_MAIN
