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

/* 6.12's DRM_GEM_FOPS flags offsets past 2^63 as valid; the flag came in
 * 6.12 with file_operations.fop_flags.
 */
#ifdef FOP_UNSIGNED_OFFSET
#define MVGAL_FOP_FLAGS .fop_flags = FOP_UNSIGNED_OFFSET,
#else
#define MVGAL_FOP_FLAGS
#endif

/*
 * io_uring commands: 6.6 gave struct io_uring_cmd the SQE itself (before,
 * a pointer to its command area) and io_uring_sqe_cmd(); 6.7 moved the
 * declarations to <linux/io_uring/cmd.h>. io_uring_cmd_done() and
 * io_uring_cmd_complete_in_task() keep their use across both.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define mvgal_uring_cmd_area(ioucmd) io_uring_sqe_cmd((ioucmd)->sqe)
#else
#define mvgal_uring_cmd_area(ioucmd) ((ioucmd)->cmd)
#endif

/* drm_driver.date went in 6.14: DRM_IOCTL_VERSION reports it empty since. */
#define MVGAL_HAS_DRIVER_DATE \
	(LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0))

/*
 * drm_exec came in 6.5 (its init took the object count from 6.8, the form
 * used here). Before, drm_gem_lock_reservations() locks a fixed array in
 * ww order the same way, backing off and retrying on contention itself;
 * this stand-in serves that one use: a single drm_exec_prepare_array()
 * per context, which locks everything or nothing.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#include <linux/dma-resv.h>
#include <drm/drm_gem.h>

#define DRM_EXEC_INTERRUPTIBLE_WAIT	BIT(0)

struct drm_exec {
	struct ww_acquire_ctx ticket;
	struct drm_gem_object **objects;
	unsigned int num_objects;
};

static inline void drm_exec_init(struct drm_exec *exec, u32 flags,
				 unsigned int nr)
{
	exec->objects = NULL;
	exec->num_objects = 0;
}

#define drm_exec_until_all_locked(exec) \
	for (bool __mvgal_once = (exec); __mvgal_once; __mvgal_once = false)

#define drm_exec_retry_on_contention(exec) ((void)(exec))

static inline int drm_exec_prepare_array(struct drm_exec *exec,
					 struct drm_gem_object **objs,
					 unsigned int n, unsigned int fences)
{
	unsigned int i;
	int ret;

	ret = drm_gem_lock_reservations(objs, n, &exec->ticket);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = dma_resv_reserve_fences(objs[i]->resv, fences);
		if (ret) {
			drm_gem_unlock_reservations(objs, n, &exec->ticket);
			return ret;
		}
	}
	exec->objects = objs;
	exec->num_objects = n;
	return 0;
}

static inline void drm_exec_fini(struct drm_exec *exec)
{
	if (exec->num_objects)
		drm_gem_unlock_reservations(exec->objects, exec->num_objects,
					    &exec->ticket);
}
#else
#include <drm/drm_exec.h>
#endif

#endif /* MVGAL_COMPAT_H */
