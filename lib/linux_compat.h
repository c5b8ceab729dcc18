/* SPDX-License-Identifier: MIT */
/*
 * uapi values of Linux 6.7 and later that the build's headers (Debian
 * 12's, of 6.1) lack: asynchronous userfaultfd write-protection and
 * PAGEMAP_SCAN. They are ABI; <linux/fs.h>, which has the latter in newer
 * headers, clashes with <sys/mount.h>, so they are defined here only
 * where missing.
 */
#ifndef MVGAL_LINUX_COMPAT_H
#define MVGAL_LINUX_COMPAT_H

#include <sys/ioctl.h>

#include <linux/types.h>
#include <linux/userfaultfd.h>

#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED	(1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
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
#define PM_SCAN_CHECK_WPASYNC	(1 << 1)
#endif

#endif /* MVGAL_LINUX_COMPAT_H */
