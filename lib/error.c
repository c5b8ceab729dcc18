// SPDX-License-Identifier: MIT
/*
 * libmvgal: what the last failure was, per thread, and what an errno
 * means from mvgal.
 */
#include <errno.h>
#include <string.h>

#include <mvgal/mvgal.h>

#include "internal.h"

/* Each thread's own, as errno is: another thread's failure never shows. */
static __thread struct mvgal_error mvgal_err = { .call = "", .arg = "",
						 .ioctl = "" };

int mvgal_fail(const char *call, const char *arg, const char *ioctl, int err)
{
	mvgal_err.err = err;
	mvgal_err.call = call;
	mvgal_err.arg = arg;
	mvgal_err.ioctl = ioctl;
	return err;
}

const struct mvgal_error *mvgal_last_error(void)
{
	return &mvgal_err;
}

void mvgal_clear_error(void)
{
	mvgal_fail("", "", "", 0);
}

/* The errnos mvgal's calls give, in the words of what they mean there. */
static const struct {
	int err;
	const char *text;
} mvgal_errors[] = {
	{ EINVAL, "invalid argument: unknown flags, non-zero padding, a range beyond its buffer, or a value out of range" },
	{ ENOENT, "no such buffer, session, job or syncobj" },
	{ ENODEV, "no such GPU, or it is gone" },
	{ EBUSY, "busy: a conflicting session, a running job, or in use" },
	{ ENOSPC, "the GPU's pool cannot hold it" },
	{ EDQUOT, "the file's buffer metadata limit (max_file_meta_mb) is reached" },
	{ ENOBUFS, "the file has too many unfinished jobs (max_file_jobs)" },
	{ EACCES, "not allowed by the handle's access or the sharing mode" },
	{ EPERM, "not allowed: the buffer's flags, or a privileged call" },
	{ ECANCELED, "the job was cancelled" },
	{ EFAULT, "a user pointer is not readable or writable" },
	{ ENOMEM, "out of memory, or the memory cgroup's limit" },
	{ E2BIG, "more than the call takes (entries, bytes, or unknown fields)" },
	{ EOPNOTSUPP, "not supported by this module, GPU or kernel" },
	{ ETIME, "timed out" },
	{ EEXIST, "already there (a GPU attached twice)" },
	{ EIO, "a copy between locations failed" },
	{ EBADF, "not an open file descriptor of the right kind" },
};

const char *mvgal_strerror(int err)
{
	const char *s;

	if (err < 0)
		err = -err;
	if (!err)
		return "success";
	for (size_t i = 0; i < sizeof(mvgal_errors) / sizeof(mvgal_errors[0]); i++)
		if (mvgal_errors[i].err == err)
			return mvgal_errors[i].text;
	/* glibc's own words, which need no buffer (not strerror()'s). */
	s = strerrordesc_np(err);
	return s ? s : "unknown error";
}
