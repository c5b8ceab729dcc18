// SPDX-License-Identifier: GPL-2.0
/*
 * mvgal_stress: several processes share buffers and change them every
 * way mvgal allows, against a byte model.
 *
 *   mvgal_stress [--seed N] [--workers N] [--seconds N] [--buffers N]
 *
 * The coordinator creates the buffers (sizes not a multiple of a chunk)
 * and exports them; each worker is a process of its own that imports
 * them: the first through fork (an inherited dma-buf fd), the rest from a
 * unix socket (SCM_RIGHTS). Worker i owns chunk i of every buffer (the
 * last one holds the short tail), so workers conflict only through
 * mvgal's own state, never on bytes. A worker writes its chunks with
 * BO_PWRITE, through a CPU mapping, with BO_COPY from a buffer of its
 * own, and as a GPU would: a WRITE session on a random GPU and the bytes
 * written into that GPU's pool at the session's offset. Between writes it
 * migrates (copy or MOVE), replicates, frees placements and reads back
 * through every path (BO_PREAD, the mapping, a READ session's pool
 * bytes), checking each against the model. The coordinator keeps one
 * GPU's budget small, so placements are evicted all the time.
 *
 * The model lives in shared memory: before each write the worker notes
 * the new version, after it the write is done. Every few seconds the
 * coordinator quiesces the workers and checks every byte of every buffer
 * against the model. Once a run, a worker is killed with SIGKILL in the
 * middle of its work and started again: each byte of the write it was
 * doing must then be the old or the new version, and the check goes on
 * from what it finds. At the end every file is closed and the module
 * must hold no buffer.
 *
 * Prints the seed, the operations, the quiesce checks and the bytes
 * checked; exit status 0, or 1 on any mismatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "../common/rand.h"
#include "../common/scm_fd.h"

#define CH		(64 * 1024)
#define MAXW		8
#define MAXB		8

struct shared {
	atomic_int quiesce;		/* coordinator: stop at the next op */
	atomic_int idle[MAXW];		/* worker: stopped */
	atomic_int stop;
	/* Per buffer and worker: the version of its chunk, and the one a
	 * write in progress is making (== version when none).
	 */
	atomic_uint version[MAXB][MAXW];
	atomic_uint pending[MAXB][MAXW];
	atomic_ulong ops[16];
	atomic_ulong bytes_checked;
	atomic_ulong mismatches;
	atomic_ulong busy;
};

static struct shared *sh;
static int nworkers = 4, nbufs = 4, seconds = 60;
static uint64_t seed = 1, size;
static int dmabuf[MAXB];
static char node[64];

enum { OP_PWRITE, OP_MAP, OP_COPY, OP_GPU_WRITE, OP_GPU_READ, OP_PREAD,
       OP_MIGRATE, OP_MOVE, OP_REPLICATE, OP_PLACE_FREE, OP_COUNT };
static const char *const op_names[OP_COUNT] = {
	"pwrite", "mapped write", "BO_COPY", "GPU write", "GPU read check",
	"pread check", "MIGRATE", "MIGRATE MOVE", "REPLICATE", "PLACE_FREE",
};


/* The byte at @off of buffer @b at version @v. */
static uint8_t pat(int b, uint64_t off, unsigned int v)
{
	uint64_t x = off * 0x9e3779b97f4a7c15ULL + (uint64_t)b * 7919 + v * 104729;

	return (uint8_t)((x >> 29) ^ (x >> 47) ^ v);
}

/* Worker @w's bytes of a buffer: chunk w, the tail for the last. */
static void stripe(int w, uint64_t *off, uint64_t *len)
{
	*off = (uint64_t)w * CH;
	*len = w == nworkers - 1 ? size - *off : CH;
}

static void fill(uint8_t *p, int b, uint64_t off, uint64_t len, unsigned int v)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = pat(b, off + i, v);
}

/* First byte of @p (at buffer offset @off) that is neither version. */
static long bad_byte(const uint8_t *p, int b, uint64_t off, uint64_t len,
		     unsigned int v, unsigned int v2)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != pat(b, off + i, v) && p[i] != pat(b, off + i, v2))
			return (long)i;
	return -1;
}

static int find_gpus(struct mvgal *m, uint32_t *gpus)
{
	int n = 0;

	for (uint32_t g = 0; g < MVGAL_MAX_GPUS; g++) {
		struct drm_mvgal_gpu_info gi;

		if (!mvgal_gpu_info(m, g, &gi))
			gpus[n++] = g;
	}
	return n;
}

/* ---- a worker ---- */

struct wctx {
	int w;
	struct mvgal *m;
	uint32_t h[MAXB];
	uint8_t *map[MAXB];
	uint32_t scratch;
	uint32_t gpus[MVGAL_MAX_GPUS];
	int ngpus;
	uint8_t *pool[MVGAL_MAX_GPUS];
	uint8_t *buf;
	int last_gpu;			/* the pool a session's bytes were in */
};

/* What the wrong byte @got at buffer offset @off is: another version? */
static void mismatch(struct wctx *c, const char *how, int b, long at,
		     uint64_t off, uint8_t got)
{
	unsigned int v = atomic_load(&sh->version[b][c->w]);
	unsigned int p = atomic_load(&sh->pending[b][c->w]);
	char what[64] = "no recent version";

	/* A write of its own that was never counted, or an older one. */
	if (p != v && got == pat(b, off, p))
		snprintf(what, sizeof(what), "the pending version %u", p);
	else
		for (unsigned int back = 1; back <= 8 && back <= v; back++)
			if (got == pat(b, off, v - back)) {
				snprintf(what, sizeof(what),
					 "version %u (%u back)", v - back, back);
				break;
			}
	fprintf(stderr, "stress: worker %d: %s of buffer %d: byte %ld of its chunk is 0x%02x, %s, not version %u\n",
		c->w, how, b, at, got, what, v);
	atomic_fetch_add(&sh->mismatches, 1);
}

static void worker_setup(struct wctx *c, int sock)
{
	if (mvgal_open(&c->m))
		_exit(20);
	for (int b = 0; b < nbufs; b++) {
		/* The first buffer by fork, the others over the socket. */
		int fd = b ? recv_fd(sock) : dmabuf[0];

		if (fd < 0 || mvgal_bo_import(c->m, fd, &c->h[b]) ||
		    mvgal_bo_map(c->m, c->h[b], (void **)&c->map[b]))
			_exit(21);
		if (b)
			close(fd);
	}
	if (mvgal_bo_create(c->m, size, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID,
			    MVGAL_GPU_ANY, &c->scratch))
		_exit(22);
	c->ngpus = find_gpus(c->m, c->gpus);
	for (int i = 0; i < c->ngpus; i++) {
		struct drm_mvgal_pool_fd p = { .gpu = c->gpus[i] };
		struct drm_mvgal_gpu_info gi;

		if (mvgal_gpu_info(c->m, c->gpus[i], &gi) ||
		    drmIoctl(mvgal_fd(c->m), DRM_IOCTL_MVGAL_POOL_FD, &p))
			_exit(23);
		c->pool[i] = mmap(NULL, gi.pool_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				  p.fd, 0);
		close(p.fd);
		if (c->pool[i] == MAP_FAILED)
			_exit(24);
	}
	c->buf = malloc(CH * 2);
	if (!c->buf)
		_exit(25);
}

/* Checks the worker's chunk of buffer @b through @p. */
static void check_bytes(struct wctx *c, const char *how, int b, const uint8_t *p,
			uint64_t off, uint64_t len)
{
	unsigned int v = atomic_load(&sh->version[b][c->w]);
	long at = bad_byte(p, b, off, len, v, v);

	if (at >= 0)
		mismatch(c, how, b, at, off + (uint64_t)at, p[at]);
	atomic_fetch_add(&sh->bytes_checked, len);
}

static int gpu_session(struct wctx *c, int b, uint32_t flags, uint64_t off,
		       uint64_t len, uint32_t *sess, uint8_t **where)
{
	struct drm_mvgal_range r = { .offset = off, .size = len };
	struct drm_mvgal_access a = { .handle = c->h[b], .nr_ranges = 1,
				      .ranges = (uintptr_t)&r };
	int gi = (int)below(c->ngpus), fence, ret;
	uint64_t copied;

	ret = mvgal_begin(c->m, c->gpus[gi], flags, MVGAL_PRIO_NORMAL, -1, &a, 1,
			  sess, &fence, &copied);
	if (ret)
		return ret;
	if (fence >= 0) {
		mvgal_fence_wait(fence, 60000);
		close(fence);
	}
	*where = NULL;
	c->last_gpu = -1;
	for (int i = 0; i < c->ngpus; i++)
		if (c->gpus[i] == a.pool_gpu) {
			*where = c->pool[i] + a.pool_offset + off;
			c->last_gpu = (int)a.pool_gpu;
		}
	if (!*where) {	/* the buffer's own pages: through the mapping */
		*where = c->map[b] + off;
	}
	return 0;
}

static int worker_op(struct wctx *c)
{
	int op = (int)below(OP_COUNT), b = (int)below(nbufs), ret = 0;
	unsigned int v = atomic_load(&sh->version[b][c->w]), nv = v + 1;
	uint64_t off, len;
	uint32_t sess;
	uint8_t *where;

	stripe(c->w, &off, &len);
	switch (op) {
	case OP_PWRITE:
	case OP_MAP:
	case OP_COPY:
	case OP_GPU_WRITE:
		atomic_store(&sh->pending[b][c->w], nv);
		if (op == OP_PWRITE) {
			fill(c->buf, b, off, len, nv);
			ret = mvgal_bo_write(c->m, c->h[b], off, c->buf, len);
		} else if (op == OP_MAP) {
			fill(c->map[b] + off, b, off, len, nv);
		} else if (op == OP_COPY) {
			fill(c->buf, b, off, len, nv);
			ret = mvgal_bo_write(c->m, c->scratch, off, c->buf, len);
			if (!ret)
				ret = mvgal_bo_copy(c->m, c->h[b], off, c->scratch, off, len);
		} else {
			struct drm_mvgal_range r = { .offset = off, .size = len };
			struct drm_mvgal_access w = { .handle = c->h[b], .nr_ranges = 1,
						      .ranges = (uintptr_t)&r };

			ret = gpu_session(c, b, MVGAL_ACCESS_WRITE |
					  (below(2) ? MVGAL_ACCESS_NO_IN_PLACE : 0),
					  off, len, &sess, &where);
			if (!ret) {
				fill(where, b, off, len, nv);
				ret = mvgal_end(c->m, sess, -1, &w, 1);
			}
		}
		if (ret) {
			/* Refused: nothing changed. */
			atomic_store(&sh->pending[b][c->w], v);
		} else {
			atomic_store(&sh->version[b][c->w], nv);
		}
		break;
	case OP_GPU_READ:
		ret = gpu_session(c, b, MVGAL_ACCESS_READ, off, len, &sess, &where);
		if (!ret) {
			char how[32];

			snprintf(how, sizeof(how), "GPU read (pool %d)", c->last_gpu);
			check_bytes(c, how, b, where, off, len);
			ret = mvgal_end(c->m, sess, -1, NULL, 0);
		}
		break;
	case OP_PREAD:
		ret = mvgal_bo_read(c->m, c->h[b], off, c->buf, len);
		if (!ret)
			check_bytes(c, "pread", b, c->buf, off, len);
		if (!ret)
			check_bytes(c, "mapping", b, c->map[b] + off, off, len);
		break;
	case OP_MIGRATE:
	case OP_MOVE: {
		struct drm_mvgal_migrate mg = {
			.handle = c->h[b], .offset = off, .size = len,
			.location = below(2) ? MVGAL_LOC_HOST : 1 + c->gpus[below(c->ngpus)],
			.flags = op == OP_MOVE ? MVGAL_MIGRATE_MOVE : 0,
			.priority = below(MVGAL_PRIO_COUNT), .in_fence_fd = -1,
		};

		ret = mvgal_migrate(c->m, &mg);
		if (!ret && mg.out_fence_fd >= 0)
			close(mg.out_fence_fd);
		break;
	}
	case OP_REPLICATE: {
		uint32_t g[2] = { c->gpus[below(c->ngpus)], c->gpus[below(c->ngpus)] };
		int fd;

		ret = mvgal_replicate(c->m, c->h[b], off, len, g, g[0] == g[1] ? 1 : 2,
				      -1, &fd);
		if (!ret && fd >= 0)
			close(fd);
		break;
	}
	default:
		ret = mvgal_place_free(c->m, c->h[b], c->gpus[below(c->ngpus)]);
		break;
	}
	if (ret == -EBUSY || ret == -ENOSPC)
		atomic_fetch_add(&sh->busy, 1);
	else if (ret && ret != -ENOENT)
		fprintf(stderr, "stress: worker %d: %s: %s\n", c->w, op_names[op],
			strerror(-ret));
	atomic_fetch_add(&sh->ops[op], 1);
	return 0;
}

static void worker(int w, int sock)
{
	struct wctx c = { .w = w };

	rs = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)w * 7 + (uint64_t)getpid();
	worker_setup(&c, sock);
	while (!atomic_load(&sh->stop)) {
		if (atomic_load(&sh->quiesce)) {
			atomic_store(&sh->idle[w], 1);
			while (atomic_load(&sh->quiesce) && !atomic_load(&sh->stop))
				usleep(1000);
			atomic_store(&sh->idle[w], 0);
			continue;
		}
		worker_op(&c);
	}
	mvgal_close(c.m);
	_exit(0);
}

/* ---- the coordinator ---- */

static pid_t start_worker(int w)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	pid = fork();
	if (!pid) {
		close(sv[0]);
		worker(w, sv[1]);
	}
	close(sv[1]);
	for (int b = 1; b < nbufs; b++)
		send_fd(sv[0], dmabuf[b]);
	close(sv[0]);
	return pid;
}

/*
 * Stops every worker at its next operation and waits until all have.
 * A worker that ended instead (its setup failed: nothing else would
 * ever mark it idle) fails the run. Return: 0 or -1.
 */
static int quiesce_all(pid_t *pids)
{
	atomic_store(&sh->quiesce, 1);
	for (int w = 0; w < nworkers; w++) {
		while (!atomic_load(&sh->idle[w])) {
			int st;

			if (waitpid(pids[w], &st, WNOHANG) == pids[w]) {
				fprintf(stderr, "stress: worker %d ended (status %#x) while running\n",
					w, st);
				pids[w] = -1;
				return -1;
			}
			usleep(1000);
		}
	}
	return 0;
}

/* Every byte of every buffer against the model. A write in progress when
 * its worker was killed may have landed in part: each byte is then the
 * old or the new version, and the model takes what is there.
 */
static void verify(struct mvgal *m, uint32_t *h, int *checks)
{
	uint8_t *buf = malloc(size);

	for (int b = 0; b < nbufs; b++) {
		if (mvgal_bo_read(m, h[b], 0, buf, size)) {
			fprintf(stderr, "stress: verify: pread of buffer %d failed\n", b);
			atomic_fetch_add(&sh->mismatches, 1);
			continue;
		}
		for (int w = 0; w < nworkers; w++) {
			unsigned int v = atomic_load(&sh->version[b][w]);
			unsigned int p = atomic_load(&sh->pending[b][w]);
			uint64_t off, len;
			long at;

			stripe(w, &off, &len);
			at = bad_byte(buf + off, b, off, len, v, p);
			if (at >= 0) {
				fprintf(stderr, "stress: verify: buffer %d, worker %d's chunk: byte %ld is neither version %u nor %u\n",
					b, w, at, v, p);
				atomic_fetch_add(&sh->mismatches, 1);
			} else if (p != v) {
				/* Rewrite the torn chunk whole, at the new version. */
				uint8_t *t = malloc(len);

				fill(t, b, off, len, p);
				if (mvgal_bo_write(m, h[b], off, t, len))
					atomic_fetch_add(&sh->mismatches, 1);
				free(t);
				atomic_store(&sh->version[b][w], p);
			}
			atomic_fetch_add(&sh->bytes_checked, len);
		}
	}
	free(buf);
	(*checks)++;
}

static int held_buffers(void)
{
	struct mvgal *m;
	uint32_t n = 0;

	if (mvgal_open(&m))
		return -1;
	mvgal_bo_list(m, NULL, &n);
	mvgal_close(m);
	return (int)n;
}

int main(int argc, char **argv)
{
	uint32_t h[MAXB], budget_gpu[MVGAL_MAX_GPUS];
	pid_t pids[MAXW];
	struct mvgal *m;
	time_t t0, next, killed_at;
	int checks = 0, kills = 0, ngpus, left;
	bool failed = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
			nworkers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--buffers") && i + 1 < argc)
			nbufs = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--seed N] [--workers N] [--seconds N] [--buffers N]\n",
				argv[0]);
			return 2;
		}
	}
	if (nworkers < 2 || nworkers > MAXW || nbufs < 1 || nbufs > MAXB)
		return 2;
	rs = seed + 1;
	size = (uint64_t)nworkers * CH - 777;
	printf("# mvgal_stress seed %llu, %d workers, %d buffers of %llu bytes, %d s\n",
	       (unsigned long long)seed, nworkers, nbufs, (unsigned long long)size, seconds);
	fflush(stdout);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || mvgal_open(&m))
		return 2;
	snprintf(node, sizeof(node), "%s", mvgal_node_path(m));
	ngpus = find_gpus(m, budget_gpu);
	if (ngpus < 2) {
		fprintf(stderr, "stress: needs two attached GPUs (mvgal-info --attach)\n");
		return 2;
	}
	/* Eviction pressure: the first GPU's pool holds a few buffers only. */
	{
		uint64_t bud = (3 * size + 4095) & ~4095ULL;

		mvgal_gpu_budget(m, budget_gpu[0], MVGAL_BUDGET_SET, &bud, NULL);
	}
	for (int b = 0; b < nbufs; b++) {
		uint8_t *buf = malloc(size);

		if (mvgal_bo_create_shared(m, size, MVGAL_BO_HOST_VALID | MVGAL_BO_GPU_VALID |
					   MVGAL_BO_DMA_BUF, MVGAL_GPU_ANY,
					   MVGAL_SHARING_DMA_BUF, &h[b]) ||
		    mvgal_bo_export(m, h[b], &dmabuf[b]))
			return 2;
		fill(buf, b, 0, size, 0);
		if (mvgal_bo_write(m, h[b], 0, buf, size))
			return 2;
		free(buf);
		/* Workers inherit the first buffer's fd through fork. */
		if (!b)
			fcntl(dmabuf[0], F_SETFD, 0);
	}
	for (int w = 0; w < nworkers; w++)
		pids[w] = -1;
	for (int w = 0; w < nworkers; w++) {
		pids[w] = start_worker(w);
		if (pids[w] < 0)
			goto fail;
	}

	t0 = time(NULL);
	next = t0 + 3;
	killed_at = t0 + seconds / 2;
	while (time(NULL) - t0 < seconds) {
		usleep(50000);
		if (!kills && time(NULL) >= killed_at) {
			/* In the middle of whatever it does. */
			int w = (int)below(nworkers);
			int st;

			kill(pids[w], SIGKILL);
			waitpid(pids[w], &st, 0);
			/*
			 * Its last write may have landed in part, and its new
			 * self checks the chunk against the model: verify()
			 * rewrites it whole first, at the new version.
			 */
			atomic_store(&sh->idle[w], 1);
			if (quiesce_all(pids))
				goto fail;
			verify(m, h, &checks);
			atomic_store(&sh->idle[w], 0);
			pids[w] = start_worker(w);
			if (pids[w] < 0)
				goto fail;
			atomic_store(&sh->quiesce, 0);
			kills++;
		}
		if (time(NULL) >= next) {
			if (quiesce_all(pids))
				goto fail;
			verify(m, h, &checks);
			atomic_store(&sh->quiesce, 0);
			next = time(NULL) + 3;
		}
	}
	if (quiesce_all(pids))
		goto fail;
	verify(m, h, &checks);
	atomic_store(&sh->stop, 1);
	for (int w = 0; w < nworkers; w++) {
		int st;

		if (waitpid(pids[w], &st, 0) != pids[w] || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "stress: worker %d ended with status %#x\n",
				w, st);
			failed = true;
		}
	}
	{
		uint64_t whole = 0;

		mvgal_gpu_budget(m, budget_gpu[0], MVGAL_BUDGET_SET, &whole, NULL);
	}
	for (int b = 0; b < nbufs; b++)
		close(dmabuf[b]);
	mvgal_close(m);

	for (int op = 0; op < OP_COUNT; op++)
		printf("# %-16s %lu\n", op_names[op], (unsigned long)atomic_load(&sh->ops[op]));
	printf("# %d quiesce checks, %d worker killed and restarted, %lu refused (busy or full), %lu bytes checked\n",
	       checks, kills, (unsigned long)atomic_load(&sh->busy),
	       (unsigned long)atomic_load(&sh->bytes_checked));
	/* Buffers end in a work item: give it time. */
	for (left = 100; left && held_buffers() > 0; left--)
		usleep(100000);
	if (held_buffers() != 0) {
		fprintf(stderr, "stress: the module still holds %d buffers\n", held_buffers());
		return 1;
	}
	printf("# %lu mismatches; the module holds no buffer\n",
	       (unsigned long)atomic_load(&sh->mismatches));
	return atomic_load(&sh->mismatches) || failed ? 1 : 0;

fail:
	atomic_store(&sh->stop, 1);
	for (int w = 0; w < nworkers; w++) {
		if (pids[w] > 0) {
			kill(pids[w], SIGKILL);
			waitpid(pids[w], NULL, 0);
		}
	}
	return 1;
}
