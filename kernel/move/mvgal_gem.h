/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The free of a buffer: its placements are drained from a work item once
 * its fences have signaled.
 */
#ifndef MVGAL_MOVE_GEM_H
#define MVGAL_MOVE_GEM_H

struct drm_gem_object;

/* &drm_gem_object_funcs.free of a buffer. */
void mvgal_bo_free(struct drm_gem_object *obj);

#endif /* MVGAL_MOVE_GEM_H */
