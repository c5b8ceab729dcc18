// SPDX-License-Identifier: GPL-2.0
/*
 * Transfers between two views of memory (host pages or a mapped range):
 * the CPU copy methods and their staging through a bounce buffer.
 */

#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include <drm/drm_cache.h>
#include <drm/mvgal_drm.h>

#include "dev/mvgal_transfer.h"

/*
 * Reads of device memory behind a BAR: one non-posted PCIe read at a time
 * unless the CPU streams them. drm_memcpy_from_wc() does (movntdqa, where
 * the CPU has SSE4.1 and is not a guest, which DRM cannot trust with it);
 * elsewhere it is memcpy_fromio().
 */
static void mvgal_iomem_read(void *buf, const struct iosys_map *map, u64 off,
			     size_t len)
{
	struct iosys_map src = IOSYS_MAP_INIT_OFFSET(map, off);
	struct iosys_map dst = IOSYS_MAP_INIT_VADDR(buf);

	drm_memcpy_from_wc(&dst, &src, len);
}

/* Copy between @buf and bytes [off, off + len) of a view. */
void mvgal_view_rw(struct mvgal_view *v, u64 off, void *buf, size_t len,
		   bool write)
{
	if (!v->pages) {
		if (write)
			iosys_map_memcpy_to(&v->map, v->base + off, buf, len);
		else if (v->map.is_iomem)
			mvgal_iomem_read(buf, &v->map, v->base + off, len);
		else
			iosys_map_memcpy_from(buf, &v->map, v->base + off, len);
		return;
	}
	while (len) {
		struct page *page = xa_load(v->pages, off >> PAGE_SHIFT);
		size_t in = off & ~PAGE_MASK;
		size_t n = min_t(size_t, len, PAGE_SIZE - in);
		void *va;

		/* Pages are populated before any copy is planned. */
		if (!WARN_ON_ONCE(!page)) {
			va = kmap_local_page(page);
			if (write)
				memcpy(va + in, buf, n);
			else
				memcpy(buf, va + in, n);
			kunmap_local(va);
		}
		buf += n;
		off += n;
		len -= n;
	}
}

/* Through the bounce buffer: read the source once, then write. */
static void mvgal_view_stage(struct mvgal_view *d, struct mvgal_view *s,
			     u64 off, u64 len, void *bounce)
{
	while (len) {
		size_t n = min_t(u64, len, MVGAL_BOUNCE_SIZE);

		mvgal_view_rw(s, off, bounce, n, false);
		mvgal_view_rw(d, off, bounce, n, true);
		off += n;
		len -= n;
	}
}

/* Is @v a mapping of system memory, which the other side can point at? */
static bool mvgal_view_direct(const struct mvgal_view *v)
{
	return !v->pages && !v->map.is_iomem;
}

/*
 * The direct CPU copy, one pass: when either side is a mapping of system
 * memory, the other side copies straight to or from it. Only pages or I/O
 * memory at both ends (never two host copies: a buffer has one) leave
 * nothing to point at, and go through the bounce buffer.
 */
static void mvgal_view_copy(struct mvgal_view *d, struct mvgal_view *s,
			    u64 off, u64 len, void *bounce)
{
	if (mvgal_view_direct(s))
		mvgal_view_rw(d, off, s->map.vaddr + s->base + off, len, true);
	else if (mvgal_view_direct(d))
		mvgal_view_rw(s, off, d->map.vaddr + d->base + off, len, false);
	else
		mvgal_view_stage(d, s, off, len, bounce);
}

/**
 * mvgal_view_bounces() - does a transfer from @s to @d with @method go
 * through the bounce buffer (see mvgal_view_transfer())?
 * @d: the destination
 * @s: the source
 * @method: MVGAL_METHOD_*
 */
bool mvgal_view_bounces(const struct mvgal_view *d,
			const struct mvgal_view *s, unsigned int method)
{
	if (method == MVGAL_METHOD_STAGING)
		return true;
	return method == MVGAL_METHOD_CPU_COPY && !mvgal_view_direct(s) &&
	       !mvgal_view_direct(d);
}

/*
 * mvgal_view_transfer() - move bytes [off, off + len) from @s to @d
 * with @method (see mvgal_loc_copy()); the calibration times this too
 */
int mvgal_view_transfer(struct mvgal_view *d, struct mvgal_view *s, u64 off,
			u64 len, unsigned int method, void *bounce)
{
	switch (method) {
	case MVGAL_METHOD_CPU_COPY:
		mvgal_view_copy(d, s, off, len, bounce);
		return 0;
	case MVGAL_METHOD_STAGING:
		/* The bounce buffer is on the destination's node. */
		mvgal_view_stage(d, s, off, len, bounce);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}
