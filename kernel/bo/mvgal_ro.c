// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only handles. GEM turns an import of a dma-buf that mvgal itself
 * exported back into the buffer it came from, with every right, whatever
 * the dma-buf file allows. A dma-buf opened read-only gives a handle of
 * its own kind instead: it stands for the buffer in every ioctl that
 * reads it (mvgal_bo_lookup()), every ioctl that writes refuses it with
 * -EACCES, and it maps read-only, through the dma-buf, so that the
 * buffer's write-watch and coherence see the mapping as they see any
 * mapping of the dma-buf.
 */

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>

#include "dev/mvgal_compat.h"
#include "bo/mvgal_bo.h"
#include "bo/mvgal_ro.h"

struct mvgal_ro {
	struct drm_gem_object base;
	struct mvgal_bo *bo;		/* a reference */
	struct dma_buf *dmabuf;		/* a reference: mappings go through it */
};

static struct mvgal_ro *to_mvgal_ro(struct drm_gem_object *obj)
{
	return container_of(obj, struct mvgal_ro, base);
}

static void mvgal_ro_free(struct drm_gem_object *obj)
{
	struct mvgal_ro *ro = to_mvgal_ro(obj);

	dma_buf_put(ro->dmabuf);
	drm_gem_object_put(&ro->bo->base);
	drm_gem_object_release(obj);
	kfree(ro);
}

static int mvgal_ro_mmap(struct drm_gem_object *obj,
			 struct vm_area_struct *vma)
{
	struct mvgal_ro *ro = to_mvgal_ro(obj);
	int ret;

	if (vma->vm_flags & VM_WRITE)
		return -EACCES;
	vm_flags_clear(vma, VM_MAYWRITE);
	/* The dma-buf's own mmap sets the mapping up; as for an import. */
	vma->vm_private_data = NULL;
	vma->vm_ops = NULL;
	ret = dma_buf_mmap(ro->dmabuf, vma, 0);
	/* Drop the reference drm_gem_mmap_obj() took. */
	if (!ret)
		drm_gem_object_put(obj);
	return ret;
}

/* Exported again, it is the dma-buf it came from, as an import is. */
static struct dma_buf *mvgal_ro_export(struct drm_gem_object *obj, int flags)
{
	struct mvgal_ro *ro = to_mvgal_ro(obj);

	get_dma_buf(ro->dmabuf);
	return ro->dmabuf;
}

static const struct drm_gem_object_funcs mvgal_ro_funcs = {
	.free = mvgal_ro_free,
	.mmap = mvgal_ro_mmap,
	.export = mvgal_ro_export,
};

/**
 * mvgal_ro_create() - a read-only handle's object for @bo
 * @bo: the buffer @dmabuf exports
 * @dmabuf: a dma-buf of @bo whose file was opened without write access
 *
 * Return: the object, or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *mvgal_ro_create(struct mvgal_bo *bo,
				       struct dma_buf *dmabuf)
{
	struct mvgal_ro *ro = kzalloc(sizeof(*ro), GFP_KERNEL_ACCOUNT);

	if (!ro)
		return ERR_PTR(-ENOMEM);
	drm_gem_private_object_init(bo->base.dev, &ro->base, bo->base.size);
	ro->base.funcs = &mvgal_ro_funcs;
	drm_gem_object_get(&bo->base);
	ro->bo = bo;
	get_dma_buf(dmabuf);
	ro->dmabuf = dmabuf;
	return &ro->base;
}

/* The buffer behind a read-only handle's object, or NULL for another. */
struct mvgal_bo *mvgal_ro_target(struct drm_gem_object *obj)
{
	return obj->funcs == &mvgal_ro_funcs ? to_mvgal_ro(obj)->bo : NULL;
}

/**
 * mvgal_ro_mmap_offset() - the mmap offset of a read-only handle
 * @file: the caller
 * @handle: GEM handle
 *
 * Return: the offset to map the handle at, 0 when it is not a read-only
 * handle, or a negative errno.
 */
s64 mvgal_ro_mmap_offset(struct drm_file *file, u32 handle)
{
	struct drm_gem_object *obj = drm_gem_object_lookup(file, handle);
	s64 ret = 0;

	if (!obj)
		return 0;
	if (obj->funcs == &mvgal_ro_funcs) {
		ret = drm_gem_create_mmap_offset(obj);
		if (!ret)
			ret = drm_vma_node_offset_addr(&obj->vma_node);
	}
	drm_gem_object_put(obj);
	return ret;
}
