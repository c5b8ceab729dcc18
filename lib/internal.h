/* SPDX-License-Identifier: MIT */
/* libmvgal internals shared between its files; none of it is exported. */
#ifndef MVGAL_LIB_INTERNAL_H
#define MVGAL_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi_v1.h"

struct mvgal_config;

struct mvgal {
	int fd;
	char path[64];
	/* [dri] enable_prime = false in the configuration read at open:
	 * mvgal_bo_export() and mvgal_bo_import() refuse with -EACCES.
	 */
	bool no_prime;
};

int mvgal_ioctl(int fd, unsigned long req, void *arg);

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

#endif /* MVGAL_LIB_INTERNAL_H */
