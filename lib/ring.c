// SPDX-License-Identifier: MIT
/*
 * libmvgal: asynchronous submission on io_uring (liburing). Each command
 * is the ioctl's struct handed to the module as IORING_OP_URING_CMD; its
 * completion comes when its data is in place (see "io_uring commands" in
 * mvgal_drm.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <liburing.h>

#include <mvgal/mvgal.h>

#include "internal.h"

struct mvgal_ring {
	struct io_uring ring;
	struct mvgal *dev;	/* not owned */
	int fd;			/* the device's; not owned */
	bool linked;		/* the last command links to the next */
};

int mvgal_ring_init(struct mvgal *dev, unsigned int entries,
		    struct mvgal_ring **out)
{
	struct mvgal_ring *r;
	int ret;

	if (!dev || !out || !entries)
		return mvgal_bad("!dev || !out || !entries");
	r = calloc(1, sizeof(*r));
	if (!r)
		return mvgal_fail(__func__, "", "", -ENOMEM);
	ret = io_uring_queue_init(entries, &r->ring, 0);
	if (ret) {
		free(r);
		return mvgal_fail(__func__, "", "io_uring_setup", ret);
	}
	r->fd = dev->fd;
	r->dev = dev;
	*out = r;
	return 0;
}

void mvgal_ring_free(struct mvgal_ring *ring)
{
	if (!ring)
		return;
	io_uring_queue_exit(&ring->ring);
	free(ring);
}

int mvgal_ring_prep(struct mvgal_ring *ring, unsigned int cmd, void *args,
		    uint64_t user_data, unsigned int flags)
{
	struct drm_mvgal_uring_cmd *c;
	struct io_uring_sqe *sqe;

	if (!ring || !args || (flags & ~MVGAL_RING_FLAGS))
		return mvgal_bad("!ring || !args || (flags & ~MVGAL_RING_FLAGS)");
	if (cmd == DRM_IOCTL_MVGAL_BEGIN) {
		const struct drm_mvgal_begin *b = args;
		int ret = mvgal_watch_begin(ring->dev,
					    (const void *)(uintptr_t)b->accesses,
					    b->count, b->stride ? b->stride :
					    MVGAL_ACCESS_SIZE_V1);

		if (ret)
			return ret;
	}
	sqe = io_uring_get_sqe(&ring->ring);
	if (!sqe)
		return mvgal_fail(__func__, "the submission queue is full", "", -EBUSY);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = ring->fd;
	sqe->cmd_op = cmd;
	sqe->user_data = user_data;
	/*
	 * A linked command is issued when the one before it completes, and
	 * 6.12 (unlike 6.1) reads a driver command's SQE only then, from
	 * the submission queue, where later commands may have been written
	 * since. IOSQE_ASYNC has io_uring copy the SQE when it is submitted
	 * (and issue the command from its workers).
	 */
	if (ring->linked)
		sqe->flags |= IOSQE_ASYNC;
	ring->linked = flags & MVGAL_RING_LINK;
	if (ring->linked)
		sqe->flags |= IOSQE_IO_LINK;
	c = (struct drm_mvgal_uring_cmd *)sqe->cmd;
	c->args = (uintptr_t)args;
	return 0;
}

int mvgal_ring_submit(struct mvgal_ring *ring)
{
	if (!ring)
		return mvgal_bad("!ring");
	return io_uring_submit(&ring->ring);
}

int mvgal_ring_wait(struct mvgal_ring *ring, int timeout_ms,
		    struct mvgal_completion *done)
{
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (long long)(timeout_ms % 1000) * 1000000,
	};
	struct io_uring_cqe *cqe;
	int ret;

	if (!ring || !done)
		return mvgal_bad("!ring || !done");
	if (timeout_ms == 0)
		ret = io_uring_peek_cqe(&ring->ring, &cqe);
	else
		ret = io_uring_wait_cqe_timeout(&ring->ring, &cqe,
						timeout_ms < 0 ? NULL : &ts);
	if (ret)
		return ret == -EAGAIN && timeout_ms ? -ETIME : ret;
	done->user_data = cqe->user_data;
	done->res = cqe->res;
	done->pad = 0;
	io_uring_cqe_seen(&ring->ring, cqe);
	return 0;
}
