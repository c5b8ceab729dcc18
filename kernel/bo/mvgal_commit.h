/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commit log of a buffer: what WRITE sessions made a GPU's, kept until
 * each session's fence signals so that a failed GPU job gives the chunks back
 * to their holders before.
 */
#ifndef MVGAL_BO_COMMIT_H
#define MVGAL_BO_COMMIT_H

#include <linux/list.h>
#include <linux/types.h>

struct dma_fence;
struct mvgal_bo;

/*
 * What a WRITE session's END made a GPU's, until the session's fence
 * signals: should the GPU work fail, the holders of before get the chunks
 * back (mvgal_session_settle()).
 */
struct mvgal_commit {
	struct list_head link;		/* on the buffer's @commits */
	struct dma_fence *fence;
	unsigned int loc;
	unsigned int n;
	struct mvgal_commit_chunk {
		u32 chunk;
		u16 prev;		/* valid mask before the END */
		u16 pad;
	} e[];
};

void mvgal_session_settle(struct mvgal_bo *bo);
void mvgal_session_commits_free(struct mvgal_bo *bo);
void mvgal_commits_free(struct mvgal_commit **cms, unsigned int n);

#endif /* MVGAL_BO_COMMIT_H */
