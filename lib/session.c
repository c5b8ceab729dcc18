// SPDX-License-Identifier: MIT
/*
 * libmvgal: access sessions, the migration engine, paths and fences.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <sys/ioctl.h>

#include <linux/sync_file.h>

#include <mvgal/mvgal.h>

#include "internal.h"

int (mvgal_begin)(struct mvgal *dev, uint32_t gpu, uint32_t flags,
		  uint32_t priority, int in_fence_fd,
		  struct drm_mvgal_access *accesses, uint32_t count,
		  uint32_t *session, int *out_fence_fd, uint64_t *bytes_copied)
{
	return mvgal_begin_sz(dev, gpu, flags, priority, in_fence_fd, accesses,
			      count, session, out_fence_fd, bytes_copied,
			      MVGAL_ACCESS_SIZE_V1);
}

int mvgal_begin_sz(struct mvgal *dev, uint32_t gpu, uint32_t flags,
		   uint32_t priority, int in_fence_fd,
		   struct drm_mvgal_access *accesses, uint32_t count,
		   uint32_t *session, int *out_fence_fd, uint64_t *bytes_copied,
		   size_t esz)
{
	struct drm_mvgal_begin b = {
		.accesses = (uintptr_t)accesses,
		.count = count,
		.gpu = gpu,
		.flags = flags,
		.in_fence_fd = in_fence_fd,
		.priority = priority,
		.stride = mvgal_stride(esz, MVGAL_ACCESS_SIZE_V1),
	};
	int ret;

	if (!dev || !accesses || !session || !out_fence_fd)
		return mvgal_bad("!dev || !accesses || !session || !out_fence_fd");
	ret = mvgal_watch_begin(dev, accesses, count, esz);
	if (ret)
		return ret;
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BEGIN, &b);
	if (ret)
		return ret;
	*session = b.session;
	*out_fence_fd = b.out_fence_fd;
	if (bytes_copied)
		*bytes_copied = b.bytes_copied;
	return 0;
}

int (mvgal_end)(struct mvgal *dev, uint32_t session, int fence_fd,
		const struct drm_mvgal_access *written, uint32_t count)
{
	return mvgal_end_sz(dev, session, fence_fd, written, count,
			    MVGAL_ACCESS_SIZE_V1);
}

int mvgal_end_sz(struct mvgal *dev, uint32_t session, int fence_fd,
		 const struct drm_mvgal_access *written, uint32_t count,
		 size_t esz)
{
	struct drm_mvgal_end e = {
		.session = session,
		.fence_fd = fence_fd,
		.count = count,
		.written = (uintptr_t)written,
		.stride = mvgal_stride(esz, MVGAL_ACCESS_SIZE_V1),
	};

	if (!dev || (count && !written))
		return mvgal_bad("!dev || (count && !written)");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_END, &e);
}

int (mvgal_session_begin)(struct mvgal *dev, struct drm_mvgal_begin *b)
{
	return mvgal_session_begin_sz(dev, b, MVGAL_V1_BEGIN_SIZE);
}

int mvgal_session_begin_sz(struct mvgal *dev, struct drm_mvgal_begin *b,
			   size_t size)
{
	struct drm_mvgal_begin args;
	int ret;

	if (!dev || !b || size < MVGAL_V1_BEGIN_SIZE)
		return mvgal_bad("!dev || !b || size < MVGAL_V1_BEGIN_SIZE");
	/* As mvgal_migrate_sz(): the caller's struct changes on success. */
	ret = mvgal_in(&args, sizeof(args), b, size);
	if (ret)
		return ret;
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BEGIN, &args);
	if (!ret)
		mvgal_out(b, size, &args, sizeof(args));
	return ret;
}

int (mvgal_session_end)(struct mvgal *dev, const struct drm_mvgal_end *e)
{
	return mvgal_session_end_sz(dev, e, MVGAL_V1_END_SIZE);
}

int mvgal_session_end_sz(struct mvgal *dev, const struct drm_mvgal_end *e,
			 size_t size)
{
	struct drm_mvgal_end args;
	int ret;

	if (!dev || !e || size < MVGAL_V1_END_SIZE)
		return mvgal_bad("!dev || !e || size < MVGAL_V1_END_SIZE");
	ret = mvgal_in(&args, sizeof(args), e, size);
	if (ret)
		return ret;
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_END, &args);
}

int (mvgal_migrate)(struct mvgal *dev, struct drm_mvgal_migrate *m)
{
	return mvgal_migrate_sz(dev, m, MVGAL_V1_MIGRATE_SIZE);
}

int mvgal_migrate_sz(struct mvgal *dev, struct drm_mvgal_migrate *m,
		     size_t size)
{
	struct drm_mvgal_migrate args;
	int ret;

	if (!dev || !m || size < MVGAL_V1_MIGRATE_SIZE)
		return mvgal_bad("!dev || !m || size < MVGAL_V1_MIGRATE_SIZE");
	/* The module writes the struct back even on failure: work on a copy
	 * so that the caller's is only changed on success.
	 */
	ret = mvgal_in(&args, sizeof(args), m, size);
	if (ret)
		return ret;
	args.out_fence_fd = 0;
	args.job = 0;
	args.bytes = 0;
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_MIGRATE, &args);
	if (!ret)
		mvgal_out(m, size, &args, sizeof(args));
	return ret;
}

int mvgal_cancel(struct mvgal *dev, uint64_t job)
{
	struct drm_mvgal_cancel c = { .job = job };

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_CANCEL, &c);
}

int mvgal_place_free(struct mvgal *dev, uint32_t handle, uint32_t gpu)
{
	struct drm_mvgal_place_free p = { .handle = handle, .gpu = gpu };

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_PLACE_FREE, &p);
}

int mvgal_place_fd(struct mvgal *dev, uint32_t handle, uint32_t gpu,
		   uint32_t flags, int *fd, uint64_t *size)
{
	struct drm_mvgal_place_fd p = {
		.handle = handle, .gpu = gpu, .flags = flags,
	};
	int ret;

	if (!dev || !fd)
		return mvgal_bad("!dev || !fd");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_PLACE_FD, &p);
	if (ret)
		return ret;
	*fd = p.fd;
	if (size)
		*size = p.size;
	return 0;
}

int mvgal_place_adopt(struct mvgal *dev, uint32_t handle, uint32_t gpu,
		      int fd)
{
	struct drm_mvgal_place_adopt p = {
		.handle = handle, .gpu = gpu, .fd = fd,
	};

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_PLACE_ADOPT, &p);
}

int mvgal_exec_register(struct mvgal *dev, uint32_t gpu, uint32_t flags)
{
	struct drm_mvgal_exec_register r = { .gpu = gpu, .flags = flags };

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_EXEC_REGISTER, &r);
}

int mvgal_exec_take(struct mvgal *dev, uint32_t gpu, uint32_t flags,
		    struct drm_mvgal_exec_take *take)
{
	struct drm_mvgal_exec_take t = { .gpu = gpu, .flags = flags };
	int ret;

	if (!dev || !take)
		return mvgal_bad("!dev || !take");
	/*
	 * Not mvgal_ioctl(): -EAGAIN is an answer here, and -EINTR too, so
	 * that a signal can stop an executor waiting for work.
	 */
	ret = ioctl(dev->fd, DRM_IOCTL_MVGAL_EXEC_TAKE, &t);
	if (ret)
		return mvgal_fail(__func__, "", "DRM_IOCTL_MVGAL_EXEC_TAKE",
				  -errno);
	*take = t;
	return 0;
}

int mvgal_exec_done(struct mvgal *dev, uint32_t gpu, uint64_t job,
		    int fence_fd, int status)
{
	struct drm_mvgal_exec_done d = {
		.gpu = gpu, .job = job, .fence_fd = fence_fd, .status = status,
	};

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_EXEC_DONE, &d);
}

int (mvgal_get_stats)(struct mvgal *dev, struct drm_mvgal_stats *stats)
{
	return mvgal_get_stats_sz(dev, stats, MVGAL_V1_STATS_SIZE);
}

int mvgal_get_stats_sz(struct mvgal *dev, struct drm_mvgal_stats *stats,
		       size_t size)
{
	struct drm_mvgal_stats s = { 0 };
	int ret;

	if (!dev || !stats || size < MVGAL_V1_STATS_SIZE)
		return mvgal_bad("!dev || !stats || size < MVGAL_V1_STATS_SIZE");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_STATS, &s);
	if (!ret)
		mvgal_out(stats, size, &s, sizeof(s));
	return ret;
}

int (mvgal_get_path)(struct mvgal *dev, uint32_t src, uint32_t dst,
		     uint64_t size, struct drm_mvgal_path *path)
{
	return mvgal_get_path_sz(dev, src, dst, size, path, MVGAL_V1_PATH_SIZE);
}

int mvgal_get_path_sz(struct mvgal *dev, uint32_t src, uint32_t dst,
		      uint64_t size, struct drm_mvgal_path *path, size_t psize)
{
	struct drm_mvgal_path p = { .src = src, .dst = dst, .size = size };
	int ret;

	if (!dev || !path || psize < MVGAL_V1_PATH_SIZE)
		return mvgal_bad("!dev || !path || psize < MVGAL_V1_PATH_SIZE");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_PATH, &p);
	if (!ret)
		mvgal_out(path, psize, &p, sizeof(p));
	return ret;
}

int mvgal_calibrate(struct mvgal *dev, uint32_t *paths)
{
	struct drm_mvgal_calibrate c = { 0 };
	int ret;

	if (!dev)
		return mvgal_bad("!dev");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_CALIBRATE, &c);
	if (!ret && paths)
		*paths = c.paths;
	return ret;
}

static int64_t mvgal_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int mvgal_fence_wait(int fence_fd, int timeout_ms)
{
	struct pollfd p = { .fd = fence_fd, .events = POLLIN };
	int64_t deadline = 0;
	int ret, left = timeout_ms;

	if (fence_fd < 0)
		return mvgal_bad("fence_fd < 0");
	if (timeout_ms > 0)
		deadline = mvgal_now_ms() + timeout_ms;
	for (;;) {
		ret = poll(&p, 1, left);
		if (ret > 0)
			break;
		if (ret == 0)
			return -ETIME;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
		/* Interrupted: wait only for what is left of the timeout. */
		if (timeout_ms > 0) {
			int64_t rest = deadline - mvgal_now_ms();

			left = rest > 0 ? (int)rest : 0;
		}
	}
	if (p.revents & POLLNVAL)
		return -EBADF;
	if (!(p.revents & POLLIN))
		return -EINVAL; /* POLLERR/POLLHUP: not a fence */
	return 0;
}

int mvgal_fence_status(int fence_fd)
{
	struct sync_file_info info;
	int ret;

	if (fence_fd < 0)
		return mvgal_bad("fence_fd < 0");
	/* num_fences 0: only the status of the whole sync_file. */
	memset(&info, 0, sizeof(info));
	ret = mvgal_ioctl(fence_fd, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		return ret;
	return info.status > 0 ? 1 : info.status;
}

const char *mvgal_prio_name(uint32_t prio)
{
	static const char *const names[MVGAL_PRIO_COUNT] = {
		[MVGAL_PRIO_HIGH] = "high",
		[MVGAL_PRIO_NORMAL] = "normal",
		[MVGAL_PRIO_LOW] = "low",
	};

	return prio < MVGAL_PRIO_COUNT ? names[prio] : NULL;
}

int (mvgal_harvest)(struct mvgal *dev, uint32_t flags,
		    struct drm_mvgal_harvest_entry *entries, uint32_t count)
{
	return mvgal_harvest_sz(dev, flags, entries, count,
				MVGAL_HARVEST_ENTRY_SIZE_V1);
}

int mvgal_harvest_sz(struct mvgal *dev, uint32_t flags,
		     struct drm_mvgal_harvest_entry *entries, uint32_t count,
		     size_t esz)
{
	struct drm_mvgal_harvest h = {
		.entries = (uintptr_t)entries,
		.count = count,
		.flags = flags,
		.stride = mvgal_stride(esz, MVGAL_HARVEST_ENTRY_SIZE_V1),
	};

	if (!dev || !entries)
		return mvgal_bad("!dev || !entries");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_HARVEST, &h);
}

int mvgal_gpu_budget(struct mvgal *dev, uint32_t gpu, uint32_t flags,
		     uint64_t *budget, uint64_t *size)
{
	struct drm_mvgal_gpu_budget b = { .gpu = gpu, .flags = flags };
	int ret;

	if (!dev || !budget)
		return mvgal_bad("!dev || !budget");
	b.budget = *budget;
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GPU_BUDGET, &b);
	if (ret)
		return ret;
	*budget = b.budget;
	if (size)
		*size = b.size;
	return 0;
}

int (mvgal_pool_lru)(struct mvgal *dev, uint32_t gpu,
		     struct drm_mvgal_lru_entry *entries,
		     struct drm_mvgal_pool_lru *lru)
{
	return mvgal_pool_lru_sz(dev, gpu, entries, lru,
				 MVGAL_LRU_ENTRY_SIZE_V1,
				 MVGAL_V1_POOL_LRU_SIZE);
}

int mvgal_pool_lru_sz(struct mvgal *dev, uint32_t gpu,
		      struct drm_mvgal_lru_entry *entries,
		      struct drm_mvgal_pool_lru *lru, size_t esz, size_t lsize)
{
	struct drm_mvgal_pool_lru l;
	int ret;

	if (!dev || !lru || lsize < MVGAL_V1_POOL_LRU_SIZE ||
	    (lru->count && !entries))
		return mvgal_bad("!dev || !lru || lsize < MVGAL_V1_POOL_LRU_SIZE || (lru->count && !entries)");
	memset(&l, 0, sizeof(l));
	l.gpu = gpu;
	l.count = lru->count;
	l.entries = (uintptr_t)entries;
	l.stride = mvgal_stride(esz, MVGAL_LRU_ENTRY_SIZE_V1);
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_POOL_LRU, &l);
	/* The stride was the library's business, not the caller's. */
	l.stride = 0;
	if (!ret)
		mvgal_out(lru, lsize, &l, sizeof(l));
	return ret;
}

int mvgal_replicate(struct mvgal *dev, uint32_t handle, uint64_t offset,
		    uint64_t size, const uint32_t *gpus, uint32_t nr_gpus,
		    int in_fence, int *out_fence)
{
	struct drm_mvgal_replicate r = {
		.handle = handle, .offset = offset, .size = size,
		.gpus = (uintptr_t)gpus, .nr_gpus = nr_gpus,
		.priority = MVGAL_PRIO_NORMAL, .in_fence_fd = in_fence,
	};
	int ret;

	if (!dev || !gpus || !out_fence)
		return mvgal_bad("!dev || !gpus || !out_fence");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_REPLICATE, &r);
	if (!ret)
		*out_fence = r.out_fence_fd;
	return ret;
}

int (mvgal_advise)(struct mvgal *dev, struct drm_mvgal_advise *advice)
{
	return mvgal_advise_sz(dev, advice, MVGAL_V1_ADVISE_SIZE);
}

int mvgal_advise_sz(struct mvgal *dev, struct drm_mvgal_advise *advice,
		    size_t size)
{
	struct drm_mvgal_advise a;
	int ret;

	if (!dev || !advice || size < MVGAL_V1_ADVISE_SIZE)
		return mvgal_bad("!dev || !advice || size < MVGAL_V1_ADVISE_SIZE");
	ret = mvgal_in(&a, sizeof(a), advice, size);
	if (ret)
		return ret;
	/* As the module does it: the struct comes back, failed or not. */
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_ADVISE, &a);
	mvgal_out(advice, size, &a, sizeof(a));
	return ret;
}

int mvgal_set_file_flags(struct mvgal *dev, uint32_t flags, uint32_t *old)
{
	struct drm_mvgal_file_flags f = { .flags = flags };
	int ret;

	if (!dev)
		return mvgal_bad("!dev");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_FILE_FLAGS, &f);
	if (!ret && old)
		*old = f.old;
	return ret;
}
