/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writes a value into a sysfs or debugfs file (a module parameter, a
 * debugfs knob): 0, or the -errno of the open, the write or the close
 * (a kernel that refuses the value answers at the close, which flushes).
 */
#ifndef MVGAL_TEST_WRITE_PARAM_H
#define MVGAL_TEST_WRITE_PARAM_H

#include <errno.h>
#include <stdio.h>

static inline int write_param(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(v, f) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

#endif
