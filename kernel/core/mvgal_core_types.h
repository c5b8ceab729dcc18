/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The pure-C core is compiled into mvgal.ko and into the userspace unit
 * tests and libmvgal. This header is the only place that knows which of
 * the two it is: everything else in core/ uses plain C types, bool, size_t,
 * ARRAY_SIZE() and the errno values, which both worlds provide.
 */
#ifndef MVGAL_CORE_TYPES_H
#define MVGAL_CORE_TYPES_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif /* MVGAL_CORE_TYPES_H */
