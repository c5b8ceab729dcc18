/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DMA-BUF sharing: export of host buffers under their sharing mode, and
 * import of foreign dma-bufs as buffers the CPU reaches through the
 * exporter's vmap.
 */
#ifndef MVGAL_MOVE_PRIME_H
#define MVGAL_MOVE_PRIME_H

#include <linux/dma-direction.h>
#include <linux/types.h>

struct dma_buf;
struct drm_device;
struct dma_buf_attachment;
struct drm_gem_object;
struct mvgal_pool;
struct sg_table;

/* The GEM object functions of every buffer, created or imported. */
extern const struct drm_gem_object_funcs mvgal_bo_funcs;
/*
 * What mvgal's exporters keep per attachment (attach->priv). A device-only
 * buffer, and a placement export, live in a pool, which is another
 * driver's buffer: the importer gets that driver's own mapping of the pool
 * for the importer's device (mvgal_pool_attach_for(): its rules decide),
 * cut to the range (mvgal_dmabuf_att_slice()).
 */
struct mvgal_dmabuf_att {
	/* The importer's mapping of host pages, synced for CPU access. */
	struct sg_table *sgt;
	struct dma_buf_attachment *pool_att;
	struct sg_table *pool_sgt;
};

int mvgal_dmabuf_att_new(struct mvgal_pool *pool,
			 struct dma_buf_attachment *attach);
void mvgal_dmabuf_att_free(struct mvgal_pool *pool,
			   struct dma_buf_attachment *attach);
struct sg_table *mvgal_dmabuf_att_slice(struct dma_buf_attachment *attach,
					u64 start, u64 len);
void mvgal_dmabuf_slice_free(struct sg_table *sgt);
void mvgal_dmabuf_sync_attachments(struct dma_buf *dmabuf,
				   enum dma_data_direction dir, bool begin);
struct dma_buf *mvgal_bo_export(struct drm_gem_object *obj, int flags);
int mvgal_bo_pin(struct drm_gem_object *obj);
struct sg_table *mvgal_bo_get_sg_table(struct drm_gem_object *obj);
struct drm_gem_object *mvgal_gem_prime_import(struct drm_device *dev,
					      struct dma_buf *dmabuf);

#endif /* MVGAL_MOVE_PRIME_H */
