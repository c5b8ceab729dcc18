/* SPDX-License-Identifier: GPL-2.0 */
/* The capability bits a test can predict from what the module reports. */
#ifndef MVGAL_SELFTEST_CAPS_H
#define MVGAL_SELFTEST_CAPS_H

#include <stdint.h>

#include <mvgal/mvgal.h>

/*
 * MVGAL_CAP_PLACE_FD as the module should compute it from what GPU_INFO
 * says: some attached GPU's pool is one its driver does not move.
 */
static inline uint64_t place_fd_cap(struct mvgal *m)
{
	struct drm_mvgal_gpu_info gi;
	uint32_t g;

	for (g = 0; g < MVGAL_MAX_GPUS; g++)
		if (!mvgal_gpu_info(m, g, &gi) && gi.state != MVGAL_GPU_GONE &&
		    !(gi.pool_flags & MVGAL_POOL_MOVABLE))
			return MVGAL_CAP_PLACE_FD;
	return 0;
}

/* GET_INFO's capability bits now; 0 if it fails. */
static inline uint64_t caps_now(struct mvgal *m)
{
	struct mvgal_info i;

	return mvgal_get_info(m, &i) ? 0 : i.caps;
}

/* GPUs attached now, gone ones included. */
static inline int gpus_attached(struct mvgal *m)
{
	return mvgal_gpu_list(m, NULL, 0);
}

#endif
