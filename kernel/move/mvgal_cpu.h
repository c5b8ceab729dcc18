/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU access to buffers: bringing chunks home before the CPU reads or writes
 * them (faults, pread/pwrite, BO_COPY, dma-buf CPU access), the fault
 * handlers of CPU mappings, and taking CPU writes in.
 */
#ifndef MVGAL_MOVE_CPU_H
#define MVGAL_MOVE_CPU_H

#include <linux/types.h>

struct drm_gem_object;
struct drm_mvgal_bo_copy;
struct mvgal_bo;
struct vm_area_struct;
struct drm_exec;

/* How a CPU access goes: see mvgal_cpu_ready(). */
#define MVGAL_CPU_FAULT	BIT(0)
#define MVGAL_CPU_WHOLE	BIT(1)

extern const struct vm_operations_struct mvgal_bo_vm_ops;
int mvgal_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma);
int mvgal_copy_lock(struct drm_mvgal_bo_copy *args,
		    struct drm_gem_object **objs, unsigned int n,
		    struct drm_exec *exec);
void mvgal_copy_unlock(struct drm_gem_object **objs, unsigned int n,
		       struct drm_exec *exec);
void mvgal_copy_locked(struct mvgal_bo *src, struct mvgal_bo *dst,
		       struct drm_mvgal_bo_copy *args, void *bounce);
void mvgal_whole_chunks(struct mvgal_bo *bo, u64 off, u64 len,
			unsigned long *a, unsigned long *b);
int mvgal_cpu_wait(struct mvgal_bo *bo, unsigned long first,
		   unsigned long last, bool write, bool fault);
int mvgal_cpu_ready(struct mvgal_bo *bo, u64 off, u64 len, bool write,
		    unsigned int how);
void mvgal_cpu_wrote(struct mvgal_bo *bo, u64 off, u64 len, bool fault);
int mvgal_cpu_prepare(struct mvgal_bo *bo, u64 off, u64 len, bool write,
		      unsigned int how);
int mvgal_cpu_mark(struct mvgal_bo *bo, u64 off, u64 len, bool home_held);
int mvgal_cpu_overwrite(struct mvgal_bo *bo, u64 off, u64 len);
int mvgal_cpu_access(struct mvgal_bo *bo, u64 off, void *buf, size_t len,
		     bool write);

#endif /* MVGAL_MOVE_CPU_H */
