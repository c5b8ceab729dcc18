/* SPDX-License-Identifier: MIT */
/* libmvgal internals shared between its files; none of it is exported. */
#ifndef MVGAL_LIB_INTERNAL_H
#define MVGAL_LIB_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mvgal/mvgal.h>

#include "abi_v1.h"

struct mvgal_config;

/* A buffer the handle holds, for its totals: indexed by GEM handle. */
struct mvgal_bo_rec {
	uint64_t size;
	uint32_t gpu;	/* made for, or MVGAL_GPU_ANY */
	bool live;
	/* A registration of user memory: its address and MVGAL_USERPTR_*. */
	uint64_t user_ptr;
	uint32_t uflags;
	bool watched;	/* mvgal_userptr_watch() armed it */
};

/* The registrations mvgal_userptr_watch() takes. */
#define MVGAL_WATCH_NEEDS	(MVGAL_USERPTR_MIRROR | MVGAL_USERPTR_MARKS)

struct mvgal {
	int fd;
	char path[64];
	/* [dri] enable_prime = false in the configuration read at open:
	 * mvgal_bo_export() and mvgal_bo_import() refuse with -EACCES.
	 */
	bool no_prime;
	/* Threads share a handle: the lock keeps its counts and the
	 * table of buffers they come from (GEM handles are small and
	 * reused, so an array) in step.
	 */
	pthread_mutex_t lock;
	struct mvgal_totals totals;
	struct mvgal_bo_rec *recs;
	size_t nr_recs;
	/* The write-watch's userfaultfd (-1 until the first), the process
	 * that made it (its registrations are that process's memory), and
	 * how many registrations it watches (read without a lock as a
	 * hint). watch_lock makes each BEGIN's scan and marks one step: a
	 * page found written and protected again by one thread is marked
	 * before another thread's scan can find it clean.
	 */
	int uffd;
	pid_t uffd_pid;
	unsigned int nr_watched;
	pthread_mutex_t watch_lock;
};

/*
 * An ioctl on @fd, EINTR and EAGAIN retried. A failure is recorded as the
 * thread's last error, naming the calling function and the ioctl.
 */
int mvgal_ioctl_at(const char *call, const char *name, int fd,
		   unsigned long req, void *arg);
#define mvgal_ioctl(fd, req, arg) mvgal_ioctl_at(__func__, #req, fd, req, arg)

/* Records a failure as the thread's last error; returns @err. */
int mvgal_fail(const char *call, const char *arg, const char *ioctl, int err);
/* A failed check of the caller's arguments: -EINVAL, recorded. */
#define mvgal_bad(check) mvgal_fail(__func__, check, "", -EINVAL)

/* The handle now holds buffer @handle of @size bytes, made for @gpu. */
void mvgal_count_held(struct mvgal *dev, uint32_t handle, uint64_t size,
		      uint32_t gpu, bool imported);
/* The handle no longer holds buffer @handle. Under dev->lock. */
void mvgal_count_gone(struct mvgal *dev, uint32_t handle);

struct drm_mvgal_bo_userptr;
void mvgal_watch_note(struct mvgal *dev,
		      const struct drm_mvgal_bo_userptr *args);
void mvgal_watch_gone(struct mvgal *dev, uint32_t handle);
int mvgal_watch_begin(struct mvgal *dev, const void *acc, uint32_t count,
		      size_t esz);
/* Frees the table of buffers, at close. */
void mvgal_count_fini(struct mvgal *dev);

/*
 * The caller's struct of @size bytes gets what both sides know of the
 * library's @n bytes at @src; the rest of a larger caller struct is
 * zeroed.
 */
void mvgal_out(void *dst, size_t size, const void *src, size_t n);

/*
 * A caller's in-out struct of @size bytes into the library's zeroed @n
 * bytes at @dst. Return: 0, or -E2BIG when bytes beyond what the library
 * knows are not zero.
 */
int mvgal_in(void *dst, size_t n, const void *src, size_t size);

/* The stride the module gets for elements of @esz bytes (@v1: ABI 1's):
 * 0 for ABI 1's size, so a module of ABI 1 accepts it too.
 */
static inline uint32_t mvgal_stride(size_t esz, size_t v1)
{
	if (esz == v1)
		return 0;
	return esz > UINT32_MAX ? UINT32_MAX : (uint32_t)esz;
}

/* mvgal_config_apply() of a complete struct, for mvgal_attach_all(). */
int mvgal_config_apply_full(const struct mvgal_config *cfg);
int mvgal_config_apply_keys(const struct mvgal_config *cfg, uint64_t keys);

#endif /* MVGAL_LIB_INTERNAL_H */
