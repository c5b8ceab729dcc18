/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the 6.1 headers lack that mvgal uses. Every entry names the
 * release that added the real thing.
 */
#ifndef MVGAL_COMPAT_H
#define MVGAL_COMPAT_H

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
/* 6.2 made dma_buf_vmap() expect the reservation lock held and added
 * these; before, dma_buf_vmap() took what it needed itself.
 */
static inline int dma_buf_vmap_unlocked(struct dma_buf *dmabuf,
					struct iosys_map *map)
{
	return dma_buf_vmap(dmabuf, map);
}

static inline void dma_buf_vunmap_unlocked(struct dma_buf *dmabuf,
					   struct iosys_map *map)
{
	dma_buf_vunmap(dmabuf, map);
}
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
/* 6.3 made vm_flags read-only outside these helpers. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/* PRIME fd ioctls are the DRM core's default since 6.6; before, a driver
 * names the helpers.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
#include <drm/drm_prime.h>
#define MVGAL_DRM_PRIME_FD_OPS \
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd, \
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
#else
#define MVGAL_DRM_PRIME_FD_OPS
#endif

#endif /* MVGAL_COMPAT_H */
