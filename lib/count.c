// SPDX-License-Identifier: MIT
/*
 * libmvgal: the counts a device handle keeps of its buffers, and buffers
 * shared by reference counting.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <mvgal/mvgal.h>

#include "internal.h"

/* Adds (@sign 1) or takes away (-1) @r from @t. Under dev->lock. */
static void mvgal_count_rec(struct mvgal_totals *t,
			    const struct mvgal_bo_rec *r, int64_t sign)
{
	t->buffers += sign;
	t->bytes += sign * (int64_t)r->size;
	if (r->gpu < MVGAL_MAX_GPUS) {
		t->gpu_buffers[r->gpu] += sign;
		t->gpu_bytes[r->gpu] += sign * (int64_t)r->size;
	} else {
		t->host_buffers += sign;
		t->host_bytes += sign * (int64_t)r->size;
	}
}

/* The record of @handle, the table grown to hold it; NULL without memory. */
static struct mvgal_bo_rec *mvgal_rec(struct mvgal *dev, uint32_t handle)
{
	struct mvgal_bo_rec *recs;
	size_t n;

	if (handle < dev->nr_recs)
		return &dev->recs[handle];
	n = dev->nr_recs ? dev->nr_recs : 64;
	while (n <= handle)
		n *= 2;
	recs = realloc(dev->recs, n * sizeof(*recs));
	if (!recs)
		return NULL;
	memset(recs + dev->nr_recs, 0, (n - dev->nr_recs) * sizeof(*recs));
	dev->recs = recs;
	dev->nr_recs = n;
	return &recs[handle];
}

void mvgal_count_held(struct mvgal *dev, uint32_t handle, uint64_t size,
		      uint32_t gpu, bool imported)
{
	struct mvgal_bo_rec *r;

	pthread_mutex_lock(&dev->lock);
	r = mvgal_rec(dev, handle);
	/* A handle already held (the same buffer imported again) counts once;
	 * without memory for the table the buffer goes uncounted.
	 */
	if (r && !r->live) {
		*r = (struct mvgal_bo_rec){ .size = size, .gpu = gpu, .live = true };
		mvgal_count_rec(&dev->totals, r, 1);
		if (imported)
			dev->totals.imported++;
		else
			dev->totals.created++;
	}
	pthread_mutex_unlock(&dev->lock);
}

void mvgal_count_gone(struct mvgal *dev, uint32_t handle)
{
	if (handle < dev->nr_recs && dev->recs[handle].live) {
		mvgal_count_rec(&dev->totals, &dev->recs[handle], -1);
		dev->recs[handle].live = false;
		dev->totals.destroyed++;
	}
}

void mvgal_count_fini(struct mvgal *dev)
{
	free(dev->recs);
	dev->recs = NULL;
	dev->nr_recs = 0;
}

int mvgal_get_totals_sz(struct mvgal *dev, struct mvgal_totals *t,
			size_t size)
{
	struct mvgal_totals copy;

	if (!dev || !t || !size)
		return mvgal_bad("!dev || !t || !size");
	pthread_mutex_lock(&dev->lock);
	copy = dev->totals;
	pthread_mutex_unlock(&dev->lock);
	mvgal_out(t, size, &copy, sizeof(copy));
	return 0;
}

struct mvgal_buffer {
	atomic_uint refs;
	struct mvgal *dev;
	uint32_t handle;
	uint64_t size;
};

int mvgal_buffer_create(struct mvgal *dev, uint64_t size, uint32_t flags,
			uint32_t gpu, uint32_t sharing,
			struct mvgal_buffer **out)
{
	struct mvgal_buffer *buf;
	int ret;

	if (!dev || !out)
		return mvgal_bad("!dev || !out");
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return mvgal_fail(__func__, "", "", -ENOMEM);
	ret = mvgal_bo_create_shared(dev, size, flags, gpu, sharing,
				     &buf->handle);
	if (ret) {
		free(buf);
		return ret;
	}
	atomic_init(&buf->refs, 1);
	buf->dev = dev;
	buf->size = size;
	*out = buf;
	return 0;
}

struct mvgal_buffer *mvgal_buffer_retain(struct mvgal_buffer *buf)
{
	if (buf)
		atomic_fetch_add_explicit(&buf->refs, 1, memory_order_relaxed);
	return buf;
}

int mvgal_buffer_release(struct mvgal_buffer *buf)
{
	int ret;

	if (!buf)
		return mvgal_bad("!buf");
	/* Release, then acquire by the last: every other holder's use of
	 * the buffer happens before it is destroyed.
	 */
	if (atomic_fetch_sub_explicit(&buf->refs, 1, memory_order_release) != 1)
		return 0;
	atomic_thread_fence(memory_order_acquire);
	ret = mvgal_bo_destroy(buf->dev, buf->handle);
	free(buf);
	return ret;
}

uint32_t mvgal_buffer_handle(const struct mvgal_buffer *buf)
{
	return buf ? buf->handle : 0;
}

uint64_t mvgal_buffer_size(const struct mvgal_buffer *buf)
{
	return buf ? buf->size : 0;
}

unsigned int mvgal_buffer_refs(const struct mvgal_buffer *buf)
{
	return buf ? atomic_load_explicit(&((struct mvgal_buffer *)buf)->refs,
					  memory_order_relaxed) : 0;
}
