/* SPDX-License-Identifier: MIT */
/* libmvgal internals shared between its files; none of it is exported. */
#ifndef MVGAL_LIB_INTERNAL_H
#define MVGAL_LIB_INTERNAL_H

struct mvgal {
	int fd;
	char path[64];
};

int mvgal_ioctl(int fd, unsigned long req, void *arg);

#endif /* MVGAL_LIB_INTERNAL_H */
