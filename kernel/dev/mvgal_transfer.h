/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transfers between two views of memory (host pages or a mapped range): the
 * CPU copy methods and their staging through a bounce buffer.
 */
#ifndef MVGAL_DEV_TRANSFER_H
#define MVGAL_DEV_TRANSFER_H

#include <linux/iosys-map.h>
#include <linux/types.h>

struct mvgal_pool;
struct xarray;

/* Staging copies move through bounce buffers of this size. */
#define MVGAL_BOUNCE_SIZE	(64 * 1024)

/* One location's copy of a buffer, as transfers reach it. */
struct mvgal_view {
	struct xarray *pages;	/* host pages, or NULL: @map */
	struct iosys_map map;
	u64 base;
	/* The pool whose mapping @map is, held (mvgal_pool_map_get()). */
	struct mvgal_pool *pool;
};

void mvgal_view_rw(struct mvgal_view *v, u64 off, void *buf, size_t len,
		   bool write);
int mvgal_view_transfer(struct mvgal_view *d, struct mvgal_view *s, u64 off,
			u64 len, unsigned int method, void *bounce);
bool mvgal_view_bounces(const struct mvgal_view *d,
			const struct mvgal_view *s, unsigned int method);

#endif /* MVGAL_DEV_TRANSFER_H */
