/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copy executors: userspace processes that copy between a GPU's pool and
 * host pages with that GPU's own copy engine (MVGAL_METHOD_EXEC).
 */
#ifndef MVGAL_DEV_EXEC_H
#define MVGAL_DEV_EXEC_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <drm/mvgal_drm.h>

struct drm_file;
struct mvgal_device;
struct mvgal_exec;
struct page;
struct seq_file;

/*
 * struct mvgal_execs - the device's executors, one per GPU at most
 *
 * @lock is never held across a wait, an fd install or a dma-buf call.
 */
struct mvgal_execs {
	/* Guards @by_gpu, and each executor's queues and state. */
	spinlock_t lock;
	struct mvgal_exec *by_gpu[MVGAL_MAX_GPUS];
	u64 next_id;
	atomic64_t copies;
	atomic64_t fallbacks;	/* the CPU made the copy instead */
	atomic64_t timeouts;
	atomic64_t errors;	/* reported failed, or a fence with an error */
	atomic64_t wrong;	/* bytes that came out wrong */
	atomic64_t gone;	/* ended with copies outstanding */
};

/* The host side of one copy: @len bytes from @off in @pages. */
struct mvgal_exec_host {
	struct page **pages;
	unsigned long npages;
	u64 off;
};

void mvgal_exec_init(struct mvgal_device *mdev);
int mvgal_exec_register(struct mvgal_device *mdev, struct drm_file *file,
			unsigned int gpu);
int mvgal_exec_unregister(struct mvgal_device *mdev, struct drm_file *file,
			  unsigned int gpu);
void mvgal_exec_file_close(struct mvgal_device *mdev, struct drm_file *file);
void mvgal_exec_gpu_gone(struct mvgal_device *mdev, unsigned int gpu);
void mvgal_exec_distrust(struct mvgal_device *mdev, unsigned int gpu, u64 id);
void mvgal_exec_redo(struct mvgal_device *mdev, unsigned int gpu, u64 id,
		     bool wrong);
u64 mvgal_exec_id(struct mvgal_device *mdev, unsigned int gpu);
int mvgal_exec_take(struct mvgal_device *mdev, struct drm_file *file,
		    struct drm_mvgal_exec_take *args);
int mvgal_exec_done(struct mvgal_device *mdev, struct drm_file *file,
		    const struct drm_mvgal_exec_done *args);
int mvgal_exec_copy(struct mvgal_device *mdev, unsigned int gpu, u32 dir,
		    const struct mvgal_exec_host *host, u64 pool_off, u64 len,
		    u64 *id);
void mvgal_exec_show(struct seq_file *m, struct mvgal_device *mdev);

#endif /* MVGAL_DEV_EXEC_H */
