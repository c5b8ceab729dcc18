// SPDX-License-Identifier: MIT
/*
 * libmvgal: the write-watch of mirrored user memory. The kernel tells a
 * module of no CPU write to an application's memory; the process itself
 * can learn of its own (Linux 6.7 and later): its pages write-protected
 * with a userfaultfd in asynchronous mode (a write lifts the protection,
 * no thread handles a fault), and PAGEMAP_SCAN reporting the pages
 * written since. Before a BEGIN names a watched registration, the pages
 * written of the ranges it names are protected again and become marks
 * (BO_MARK, MVGAL_MARK_HOME_HELD: mvgal's own writes home lift the
 * protection too, and a copy home that failed half way must not make
 * stale pages win over a GPU's bytes). mvgal takes the protection
 * changes as no change of the bytes, and faults the pages it only reads
 * for reading, which leaves them protected.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mvgal/mvgal.h>

#include "internal.h"
#include "linux_compat.h"

/* The process's page size, as userfaultfd and PAGEMAP_SCAN count. */
static uint64_t mvgal_pg(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* @x rounded up to a page. */
static uint64_t mvgal_pg_up(uint64_t x)
{
	return (x + mvgal_pg() - 1) & ~(mvgal_pg() - 1);
}

/* The device's userfaultfd, made on first use. Under dev->lock. */
static int mvgal_watch_fd(struct mvgal *dev)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED,
	};
	int fd;

	if (dev->uffd >= 0)
		return dev->uffd;
	fd = (int)syscall(SYS_userfaultfd,
			  O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	/* No userfaultfd, or (-EINVAL) one before 5.11's user-mode-only. */
	if (fd < 0)
		return errno == ENOSYS || errno == EINVAL ? -EOPNOTSUPP : -errno;
	if (ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		/* A kernel before 6.7: no asynchronous write-protection. */
		return -EOPNOTSUPP;
	}
	dev->uffd = fd;
	dev->uffd_pid = getpid();
	return fd;
}

/* Write-protects [start, end) (@wp) or lifts it, which reads as written. */
static int mvgal_watch_protect(int uffd, uint64_t start, uint64_t end,
			       bool wp)
{
	struct uffdio_writeprotect w = {
		.range = { start, end - start },
		.mode = wp ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(uffd, UFFDIO_WRITEPROTECT, &w) ? -errno : 0;
}

/* Registers [start, end) with @uffd for write-protection, protected. */
static int mvgal_watch_arm(int uffd, uint64_t start, uint64_t end)
{
	struct uffdio_register r = {
		.range = { start, end - start },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};
	int ret;

	if (ioctl(uffd, UFFDIO_REGISTER, &r))
		return -errno;
	ret = mvgal_watch_protect(uffd, start, end, true);
	if (ret)
		ioctl(uffd, UFFDIO_UNREGISTER, &r.range);
	return ret;
}

/* Does the module take MVGAL_MARK_HOME_HELD, which the marks use? */
static bool mvgal_watch_marks_ok(struct mvgal *dev)
{
	struct drm_mvgal_get_info i = { 0 };

	return !mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_GET_INFO, &i) &&
	       (i.caps & MVGAL_CAP_MARK_HOME_HELD);
}

int mvgal_userptr_watch(struct mvgal *dev, uint32_t handle)
{
	struct mvgal_bo_rec *r;
	int uffd, ret;

	if (!dev)
		return mvgal_bad("!dev");
	if (!mvgal_watch_marks_ok(dev))
		return mvgal_fail(__func__, "the module has no MVGAL_MARK_HOME_HELD",
				  "", -EOPNOTSUPP);
	pthread_mutex_lock(&dev->lock);
	r = handle < dev->nr_recs ? &dev->recs[handle] : NULL;
	ret = -EINVAL;
	if (!r || !r->live || !r->user_ptr ||
	    (r->uflags & MVGAL_WATCH_NEEDS) != MVGAL_WATCH_NEEDS)
		goto out;
	/*
	 * The device's userfaultfd acts on the memory of the process that
	 * made it: a forked child opens a device of its own to watch.
	 */
	ret = -EOPNOTSUPP;
	if (dev->uffd >= 0 && dev->uffd_pid != getpid())
		goto out;
	ret = 0;
	if (r->watched)
		goto out;
	uffd = ret = mvgal_watch_fd(dev);
	if (ret >= 0)
		ret = mvgal_watch_arm(uffd, r->user_ptr,
				      r->user_ptr + mvgal_pg_up(r->size));
	if (!ret) {
		r->watched = true;
		__atomic_add_fetch(&dev->nr_watched, 1, __ATOMIC_RELAXED);
	}
out:
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? mvgal_fail(__func__, "", "userfaultfd", ret) : 0;
}

/* Records the registration @args made (its range, its flags). */
void mvgal_watch_note(struct mvgal *dev, const struct drm_mvgal_bo_userptr *args)
{
	struct mvgal_bo_rec *r;

	pthread_mutex_lock(&dev->lock);
	r = args->handle < dev->nr_recs ? &dev->recs[args->handle] : NULL;
	if (r && r->live) {
		r->user_ptr = args->user_ptr;
		r->uflags = args->flags;
		r->watched = false;
	}
	pthread_mutex_unlock(&dev->lock);
}

/*
 * The buffer of @handle goes: its range is no longer watched (a range
 * unmapped since is unregistered already). Under dev->lock.
 */
void mvgal_watch_gone(struct mvgal *dev, uint32_t handle)
{
	struct mvgal_bo_rec *r;
	struct uffdio_range u;

	if (handle >= dev->nr_recs)
		return;
	r = &dev->recs[handle];
	if (r->watched) {
		u.start = r->user_ptr;
		u.len = mvgal_pg_up(r->size);
		/* Not from a forked child: that would be the parent's range. */
		if (dev->uffd_pid == getpid())
			ioctl(dev->uffd, UFFDIO_UNREGISTER, &u);
		__atomic_sub_fetch(&dev->nr_watched, 1, __ATOMIC_RELAXED);
	}
	r->watched = false;
	r->user_ptr = 0;
	r->uflags = 0;
}

/*
 * The watched registration of @handle, copied (0), or 1: not watched, or
 * not by this process (a forked child's memory is not the registered
 * one). @uffd: the device's userfaultfd.
 */
static int mvgal_watch_get(struct mvgal *dev, uint32_t handle,
			   struct mvgal_bo_rec *out, int *uffd)
{
	int ret = 1;

	pthread_mutex_lock(&dev->lock);
	if (handle < dev->nr_recs && dev->recs[handle].watched &&
	    dev->uffd_pid == getpid()) {
		*out = dev->recs[handle];
		*uffd = dev->uffd;
		ret = 0;
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

/* BO_MARK of bytes [off, end) where home holds them. */
static int mvgal_watch_mark_range(struct mvgal *dev, uint32_t handle,
				  uint64_t off, uint64_t end)
{
	struct drm_mvgal_bo_mark mk = {
		.handle = handle, .flags = MVGAL_MARK_HOME_HELD,
		.offset = off, .size = end - off,
	};

	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk);
}

/*
 * The scan of [start, end) found memory that is not watched: part of
 * the range was unmapped or mapped again over. Whatever is there now is
 * watched from here on where it can be, and bytes [off, end_off) of the
 * buffer are taken as written.
 */
static int mvgal_watch_lost(struct mvgal *dev, int uffd, uint32_t handle,
			    uint64_t start, uint64_t end, uint64_t off,
			    uint64_t end_off)
{
	bool armed = !mvgal_watch_arm(uffd, start, end) ||
		     !mvgal_watch_protect(uffd, start, end, true);
	int ret = mvgal_watch_mark_range(dev, handle, off, end_off);

	/* Not marked: what is there must read as written next time. */
	if (ret && armed)
		mvgal_watch_protect(uffd, start, end, false);
	return ret;
}

/*
 * The written pages @v[0..n) (of registration @r): each protected again,
 * then marked. A page written between the scan and its protection was
 * found written already, and its mark comes after.
 */
static int mvgal_watch_mark(struct mvgal *dev, int uffd, uint32_t handle,
			    const struct mvgal_bo_rec *r,
			    const struct page_region *v, long n)
{
	long i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		uint64_t s = v[i].start - r->user_ptr;
		uint64_t e = v[i].end - r->user_ptr;

		mvgal_watch_protect(uffd, v[i].start, v[i].end, true);
		ret = mvgal_watch_mark_range(dev, handle, s,
					     e < r->size ? e : r->size);
	}
	/* The one not marked reads as written again. */
	if (ret)
		mvgal_watch_protect(uffd, v[i - 1].start, v[i - 1].end, false);
	return ret;
}

/*
 * Turns what was written of bytes [off, off + len) of the watched
 * registration @r (of @handle) into marks, through pagemap file @pm. The
 * scan only reads: protecting what it did not find written would tell
 * mvgal of a change (an invalidation) for nothing.
 */
static int mvgal_watch_scan(struct mvgal *dev, int uffd, int pm,
			    uint32_t handle, const struct mvgal_bo_rec *r,
			    uint64_t off, uint64_t len)
{
	struct page_region v[32];
	struct pm_scan_arg a = {
		.size = sizeof(a),
		.flags = PM_SCAN_CHECK_WPASYNC,
		.vec = (uintptr_t)v,
		.vec_len = 32,
		.category_mask = PAGE_IS_WRITTEN,
		.return_mask = PAGE_IS_WRITTEN,
	};
	uint64_t end;
	long n;
	int ret;

	/* Out of range or empty: the kernel refuses the BEGIN. */
	if (off >= r->size || !len)
		return 0;
	end = len > r->size - off ? r->size : off + len;
	a.start = (r->user_ptr + off) & ~(mvgal_pg() - 1);
	a.end = mvgal_pg_up(r->user_ptr + end);
	for (;;) {
		n = ioctl(pm, PAGEMAP_SCAN, &a);
		if (n < 0 && errno == EPERM)
			return mvgal_watch_lost(dev, uffd, handle, a.start,
						a.end, a.start - r->user_ptr <
						off ? off : a.start - r->user_ptr,
						end);
		if (n < 0)
			return mvgal_fail(__func__, "", "PAGEMAP_SCAN", -errno);
		ret = mvgal_watch_mark(dev, uffd, handle, r, v, n);
		if (ret || a.walk_end >= a.end)
			return ret;
		a.start = a.walk_end;
	}
}

/* The ranges of access entry @e of a watched registration, scanned. */
static int mvgal_watch_entry(struct mvgal *dev, int uffd, int pm,
			     const struct drm_mvgal_access *e,
			     const struct mvgal_bo_rec *r)
{
	const struct drm_mvgal_range *rg =
		(const struct drm_mvgal_range *)(uintptr_t)e->ranges;
	uint32_t k;
	int ret = 0;

	if (!e->nr_ranges)
		return mvgal_watch_scan(dev, uffd, pm, e->handle, r, 0, r->size);
	if (!rg || e->nr_ranges > MVGAL_SESSION_MAX_RANGES)
		return 0;	/* the kernel refuses it */
	for (k = 0; k < e->nr_ranges && !ret; k++)
		ret = mvgal_watch_scan(dev, uffd, pm, e->handle, r,
				       rg[k].offset, rg[k].size);
	return ret;
}

/* What mvgal_watch_begin() does, under dev->watch_lock. */
static int mvgal_watch_begin_locked(struct mvgal *dev, const void *acc,
				    uint32_t count, size_t esz)
{
	struct mvgal_bo_rec r;
	int pm = -1, uffd, ret = 0;
	uint32_t i;

	for (i = 0; i < count && !ret; i++) {
		const struct drm_mvgal_access *e =
			(const void *)((const char *)acc + (size_t)i * esz);

		if (mvgal_watch_get(dev, e->handle, &r, &uffd))
			continue;
		/* This process's page tables: opened here, as a fork's differ. */
		if (pm < 0)
			pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
		if (pm < 0)
			return mvgal_fail(__func__, "", "/proc/self/pagemap", -errno);
		ret = mvgal_watch_entry(dev, uffd, pm, e, &r);
	}
	if (pm >= 0)
		close(pm);
	return ret;
}

/**
 * mvgal_watch_begin() - before a BEGIN of @count entries at @acc (each
 * @esz bytes): what was written of the watched registrations it names,
 * marked
 *
 * Return: 0, or -errno of a mark, a scan or opening the pagemap (the
 * writes not marked stay recorded as written).
 */
int mvgal_watch_begin(struct mvgal *dev, const void *acc, uint32_t count,
		      size_t esz)
{
	struct mvgal_bo_rec r;
	uint32_t i;
	int uffd, ret;

	/* A BEGIN the kernel refuses is not scanned. */
	if (!__atomic_load_n(&dev->nr_watched, __ATOMIC_RELAXED) || !acc ||
	    esz < sizeof(struct drm_mvgal_access) ||
	    count > MVGAL_SESSION_MAX_BUFFERS)
		return 0;
	/* Only a BEGIN that names a watched buffer waits for another's. */
	for (i = 0; i < count; i++)
		if (!mvgal_watch_get(dev, ((const struct drm_mvgal_access *)
					   ((const char *)acc + i * esz))->handle,
				     &r, &uffd))
			break;
	if (i == count)
		return 0;
	pthread_mutex_lock(&dev->watch_lock);
	ret = mvgal_watch_begin_locked(dev, acc, count, esz);
	pthread_mutex_unlock(&dev->watch_lock);
	return ret;
}
