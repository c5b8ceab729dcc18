/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's own write tracking (Linux 6.7 and later): its memory
 * write-protected with a userfaultfd in asynchronous mode (a write lifts
 * the protection, no thread handles a fault), and PAGEMAP_SCAN on
 * /proc/self/pagemap reporting which pages were written since (the uapi
 * values from libmvgal's lib/linux_compat.h, as the build's headers may
 * lack them).
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

#include "../../lib/linux_compat.h"

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
