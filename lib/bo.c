// SPDX-License-Identifier: MIT
/*
 * libmvgal: buffers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include <mvgal/mvgal.h>

#include "internal.h"

int mvgal_bo_create(struct mvgal *dev, uint64_t size, uint32_t flags,
		    uint32_t gpu, uint32_t *handle)
{
	return mvgal_bo_create_shared(dev, size, flags, gpu, MVGAL_SHARING_NONE,
				      handle);
}

int mvgal_bo_userptr(struct mvgal *dev, struct drm_mvgal_bo_userptr *args)
{
	int ret;

	if (!dev || !args)
		return mvgal_bad("!dev || !args");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_USERPTR, args);
	if (!ret) {
		mvgal_count_held(dev, args->handle, args->size, MVGAL_GPU_ANY,
				 false);
		mvgal_watch_note(dev, args);
	}
	return ret;
}

int mvgal_bo_mark(struct mvgal *dev, uint32_t handle, uint64_t offset,
		  uint64_t size)
{
	struct drm_mvgal_bo_mark mk = {
		.handle = handle, .offset = offset, .size = size,
	};

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk);
}

int mvgal_bo_overwrite(struct mvgal *dev, uint32_t handle, uint64_t offset,
		       uint64_t size)
{
	struct drm_mvgal_bo_mark mk = {
		.handle = handle, .flags = MVGAL_MARK_OVERWRITE,
		.offset = offset, .size = size,
	};

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_MARK, &mk);
}

int mvgal_bo_create_shared(struct mvgal *dev, uint64_t size, uint32_t flags,
			   uint32_t gpu, uint32_t sharing, uint32_t *handle)
{
	struct drm_mvgal_bo_create c = {
		.size = size, .flags = flags, .gpu = gpu, .sharing = sharing,
	};
	int ret;

	if (!dev || !handle)
		return mvgal_bad("!dev || !handle");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_CREATE, &c);
	if (ret)
		return ret;
	mvgal_count_held(dev, c.handle, size, gpu, false);
	*handle = c.handle;
	return 0;
}

int mvgal_bo_destroy(struct mvgal *dev, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };
	int ret;

	if (!dev)
		return mvgal_bad("!dev");
	/*
	 * Under the lock: a create in another thread may get this handle
	 * number back as soon as it is closed, and must count it only
	 * after this close took the old buffer out of the counts.
	 */
	pthread_mutex_lock(&dev->lock);
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_GEM_CLOSE, &c);
	if (!ret) {
		mvgal_watch_gone(dev, handle);
		mvgal_count_gone(dev, handle);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

int (mvgal_bo_info)(struct mvgal *dev, uint32_t handle,
		    struct drm_mvgal_bo_info *info)
{
	return mvgal_bo_info_sz(dev, handle, info, MVGAL_V1_BO_INFO_SIZE);
}

int mvgal_bo_info_sz(struct mvgal *dev, uint32_t handle,
		     struct drm_mvgal_bo_info *info, size_t size)
{
	struct drm_mvgal_bo_info i = { .handle = handle };
	int ret;

	if (!dev || !info || size < MVGAL_V1_BO_INFO_SIZE)
		return mvgal_bad("!dev || !info || size < MVGAL_V1_BO_INFO_SIZE");
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_INFO, &i);
	if (!ret)
		mvgal_out(info, size, &i, sizeof(i));
	return ret;
}

int mvgal_bo_map(struct mvgal *dev, uint32_t handle, void **ptr)
{
	struct drm_mvgal_bo_info i;
	long page = 4096;
	uint64_t len;
	void *p;
	int ret;

	if (!ptr)
		return mvgal_bad("!ptr");
	ret = mvgal_bo_info(dev, handle, &i);
	if (ret)
		return ret;
	if (!i.mmap_offset)
		return mvgal_fail(__func__, "a device-only buffer has no mapping",
				  "", -EINVAL);
	page = sysconf(_SC_PAGESIZE);
	len = (i.size + page - 1) & ~(uint64_t)(page - 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		 (off_t)i.mmap_offset);
	if (p == MAP_FAILED)
		return mvgal_fail(__func__, "", "mmap", -errno);
	*ptr = p;
	return 0;
}

static int mvgal_bo_rw(struct mvgal *dev, unsigned long req, uint32_t handle,
		       uint64_t offset, uintptr_t ptr, uint64_t size,
		       uint32_t flags)
{
	struct drm_mvgal_bo_rw rw = {
		.handle = handle, .flags = flags, .offset = offset,
		.size = size, .user_ptr = ptr,
	};

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, req, &rw);
}

int mvgal_bo_write(struct mvgal *dev, uint32_t handle, uint64_t offset,
		   const void *src, uint64_t size)
{
	return mvgal_bo_rw(dev, DRM_IOCTL_MVGAL_BO_PWRITE, handle, offset,
			   (uintptr_t)src, size, 0);
}

int mvgal_bo_write_flags(struct mvgal *dev, uint32_t handle, uint64_t offset,
			 const void *src, uint64_t size, uint32_t flags)
{
	return mvgal_bo_rw(dev, DRM_IOCTL_MVGAL_BO_PWRITE, handle, offset,
			   (uintptr_t)src, size, flags);
}

int mvgal_bo_read(struct mvgal *dev, uint32_t handle, uint64_t offset,
		  void *dst, uint64_t size)
{
	return mvgal_bo_rw(dev, DRM_IOCTL_MVGAL_BO_PREAD, handle, offset,
			   (uintptr_t)dst, size, 0);
}

int mvgal_bo_copy(struct mvgal *dev, uint32_t dst, uint64_t dst_offset,
		  uint32_t src, uint64_t src_offset, uint64_t size)
{
	struct drm_mvgal_bo_copy c = {
		.src_handle = src, .dst_handle = dst, .src_offset = src_offset,
		.dst_offset = dst_offset, .size = size,
	};

	if (!dev)
		return mvgal_bad("!dev");
	return mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_COPY, &c);
}

int mvgal_bo_export(struct mvgal *dev, uint32_t handle, int *fd)
{
	if (!dev || !fd)
		return mvgal_bad("!dev || !fd");
	if (dev->no_prime)
		return mvgal_fail(__func__, "[dri] enable_prime = false", "", -EACCES);
	if (drmPrimeHandleToFD(dev->fd, handle, DRM_CLOEXEC | DRM_RDWR, fd))
		return mvgal_fail(__func__, "", "DRM_IOCTL_PRIME_HANDLE_TO_FD", -errno);
	return 0;
}

/* Counts an imported buffer, with the size and GPU the module gives it. */
static void mvgal_bo_count_import(struct mvgal *dev, uint32_t handle)
{
	struct drm_mvgal_bo_info i = { .handle = handle };

	if (ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_INFO, &i))
		i = (struct drm_mvgal_bo_info){ .gpu = MVGAL_GPU_ANY };
	mvgal_count_held(dev, handle, i.size, i.gpu, true);
}

int mvgal_bo_import(struct mvgal *dev, int fd, uint32_t *handle)
{
	if (!dev || !handle || fd < 0)
		return mvgal_bad("!dev || !handle || fd < 0");
	if (dev->no_prime)
		return mvgal_fail(__func__, "[dri] enable_prime = false", "", -EACCES);
	if (drmPrimeFDToHandle(dev->fd, fd, handle))
		return mvgal_fail(__func__, "", "DRM_IOCTL_PRIME_FD_TO_HANDLE", -errno);
	mvgal_bo_count_import(dev, *handle);
	return 0;
}

int (mvgal_bo_list)(struct mvgal *dev, struct drm_mvgal_bo_entry *entries,
		    uint32_t *count)
{
	return mvgal_bo_list_sz(dev, entries, count, MVGAL_BO_ENTRY_SIZE_V1);
}

int mvgal_bo_list_sz(struct mvgal *dev, struct drm_mvgal_bo_entry *entries,
		     uint32_t *count, size_t esz)
{
	struct drm_mvgal_bo_list l = { 0 };
	int ret;

	if (!dev || !count || (*count && !entries))
		return mvgal_bad("!dev || !count || (*count && !entries)");
	l.count = *count;
	l.entries = (uintptr_t)entries;
	l.stride = mvgal_stride(esz, MVGAL_BO_ENTRY_SIZE_V1);
	ret = mvgal_ioctl(dev->fd, DRM_IOCTL_MVGAL_BO_LIST, &l);
	if (!ret)
		*count = l.count;
	return ret;
}
