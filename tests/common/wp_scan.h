/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's own write tracking (Linux 6.7 and later): its memory
 * write-protected with a userfaultfd in asynchronous mode (a write lifts
 * the protection, no thread handles a fault), and PAGEMAP_SCAN on
 * /proc/self/pagemap reporting which pages were written since. The uapi
 * values are defined here where the build's headers (Debian 12's, of
 * 6.1) lack them; <linux/fs.h>, which has them in newer ones, clashes
 * with <sys/mount.h>.
 */
#ifndef MVGAL_TEST_WP_SCAN_H
#define MVGAL_TEST_WP_SCAN_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/userfaultfd.h>

#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_UNPOPULATED	(1 << 13)
#define UFFD_FEATURE_WP_ASYNC		(1 << 15)
#endif

#ifndef PAGEMAP_SCAN
struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGEMAP_SCAN		_IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WRITTEN		(1 << 1)
#define PAGE_IS_PRESENT		(1 << 3)
#define PAGE_IS_PFNZERO		(1 << 5)
#define PM_SCAN_WP_MATCHING	(1 << 0)
#endif

/*
 * [@p, @p + @len) write-protected for the caller's own tracking: the
 * userfaultfd, or -errno (-EINVAL: a kernel before 6.7).
 */
static inline int wp_watch(void *p, uint64_t len)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED,
	};
	struct uffdio_register r = {
		.range = { (uintptr_t)p, len }, .mode = UFFDIO_REGISTER_MODE_WP,
	};
	struct uffdio_writeprotect wp = {
		.range = { (uintptr_t)p, len }, .mode = UFFDIO_WRITEPROTECT_MODE_WP,
	};
	int fd = (int)syscall(SYS_userfaultfd,
			      O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	int err;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &r) ||
	    ioctl(fd, UFFDIO_WRITEPROTECT, &wp)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Pages of [@p, @p + @len) in every category of @cat (PAGE_IS_*), or -errno. */
static inline long wp_scan_count(void *p, uint64_t len, uint64_t cat)
{
	struct page_region v[32];
	struct pm_scan_arg a = {
		.size = sizeof(a), .start = (uintptr_t)p,
		.end = (uintptr_t)p + len, .vec = (uintptr_t)v, .vec_len = 32,
		.category_mask = cat, .return_mask = cat,
	};
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long n = 0, r;

	if (fd < 0)
		return -errno;
	for (;;) {
		r = ioctl(fd, PAGEMAP_SCAN, &a);
		if (r < 0) {
			n = -errno;
			break;
		}
		for (long i = 0; i < r; i++)
			n += (long)((v[i].end - v[i].start) / 4096);
		if (a.walk_end >= a.end)
			break;
		a.start = a.walk_end;
	}
	close(fd);
	return n;
}

#endif /* MVGAL_TEST_WP_SCAN_H */
