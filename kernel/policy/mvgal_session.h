/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Access sessions: a GPU's use of buffers between BEGIN and END. The
 * structs are shared with uapi/mvgal_session_ioctl.c, whose BEGIN and END
 * build and read them.
 */
#ifndef MVGAL_POLICY_SESSION_H
#define MVGAL_POLICY_SESSION_H

#include <linux/list.h>
#include <linux/types.h>

#include "bo/mvgal_live.h"

struct dma_fence;
struct drm_file;
struct drm_gem_object;
struct drm_mvgal_access;
struct drm_mvgal_begin;
struct mvgal_bo;
struct mvgal_commit;
struct mvgal_device;
struct mvgal_gpu;
struct mvgal_job;
struct sync_file;
struct drm_exec;

/*
 * A session's use of one buffer. Its chunk sets are bitmaps over the span
 * of chunks it named (@live.base, @live.n): what it costs grows with what
 * it names, not with the buffer's size.
 */
struct mvgal_sbo {
	struct mvgal_bo *bo;
	unsigned long small;	/* @live.chunks when the span fits a word */
	struct mvgal_live live;	/* its chunks; on the buffer's list while live */
	/* MVGAL_FILE_NO_COPIES: chunks BEGIN copied for this session. */
	unsigned long *staged;
	unsigned int loc;	/* where the session's bytes are */
	bool new_place;		/* BEGIN made the placement (for undo) */
	bool remote;		/* its data was not all in the GPU's pool */
	bool ready;		/* current at the GPU, nothing to wait for */
	/* A mirror's mvgal_hmm_gen() before BEGIN read its chunk states. */
	unsigned long gen;
};

struct mvgal_session {
	struct list_head link;	/* on the file's list */
	/* BEGIN is done with it: END may find it (release/acquire). */
	bool begun;
	u32 id;
	u32 gpu;
	bool write;
	bool no_copies;		/* its file's MVGAL_FILE_NO_COPIES */
	unsigned int count;
	/* BEGIN's out-fence (referenced) or NULL, for END's out-syncobj. */
	struct dma_fence *copies;
	/* The buffers' GEM objects, for mvgal_session_lock(). */
	struct drm_gem_object **objs;
	struct mvgal_sbo b[];
};

/* What BEGIN hands back once the session is live. */
struct mvgal_begin_out {
	struct sync_file *sf;	/* the out-fence, or NULL */
	int fd;			/* its fd, not yet installed, or -1 */
	u64 bytes;		/* what the job copies */
};

void mvgal_session_free(struct mvgal_session *s);
void mvgal_sbo_live(struct mvgal_session *s, struct mvgal_sbo *b,
		    int d);
unsigned int mvgal_fence_leaves(struct dma_fence *fence);
int mvgal_session_lock(struct mvgal_session *s, struct drm_exec *exec,
		       unsigned int nfences);
int mvgal_begin_job(struct mvgal_device *mdev, struct mvgal_job **job,
		    const struct drm_mvgal_begin *args,
		    struct drm_file *file);
bool mvgal_begin_lean(struct mvgal_session *s, struct mvgal_gpu *gpu);
int mvgal_begin_plan(struct mvgal_device *mdev, struct mvgal_gpu *gpu,
		     struct mvgal_session *s, struct mvgal_job **job,
		     struct drm_mvgal_access *acc,
		     const struct drm_mvgal_begin *args,
		     struct drm_file *file);
int mvgal_session_begin(struct mvgal_device *mdev, struct mvgal_session *s,
			struct mvgal_job **job, struct drm_mvgal_access *acc,
			const struct drm_mvgal_begin *args,
			struct drm_file *file, struct mvgal_begin_out *out);
void mvgal_session_finish(struct mvgal_session *s,
			  unsigned long **written,
			  struct dma_fence *fence,
			  struct mvgal_commit **commits);
struct mvgal_commit **mvgal_commits_alloc(struct mvgal_session *s,
					  unsigned long **written);

#endif /* MVGAL_POLICY_SESSION_H */
