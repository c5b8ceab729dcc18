/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registered user memory as a buffer's host storage (BO_USERPTR): the
 * pages pinned and charged to their user's RLIMIT_MEMLOCK, or mirrored
 * without a pin (bo/mvgal_hmm.c); one registration per range of a process
 * on an open file, and what mvgal assumes of the writes it cannot see.
 */
#ifndef MVGAL_BO_USERPTR_H
#define MVGAL_BO_USERPTR_H

#include <linux/list.h>
#include <linux/types.h>

struct mm_struct;
struct mvgal_bo;
struct mvgal_hmm;
struct user_struct;

/*
 * A buffer's registration: the range of the registering process's
 * address space its pages were pinned from, on that file's list
 * (mvgal_file.userptrs, under mvgal_file.userptr_lock) from registration
 * until the buffer's last reference goes.
 */
struct mvgal_userptr {
	struct list_head link;
	struct mm_struct *mm;	/* mmgrab()bed: its pinned_vm shows them */
	struct user_struct *user;	/* charged for the pages */
	unsigned long start;
	unsigned long npages;
	bool marks;		/* MVGAL_USERPTR_MARKS */
	/* Mirrored (MVGAL_USERPTR_MIRROR): nothing pinned or charged. */
	struct mvgal_hmm *hmm;
};

int mvgal_userptr_may_charge(unsigned long npages);
int mvgal_userptr_register(struct mvgal_bo *bo, unsigned long start,
			   u32 flags);
bool mvgal_userptr_mirrored(const struct mvgal_bo *bo);
void mvgal_userptr_unclaim(struct mvgal_bo *bo);
void mvgal_userptr_release(struct mvgal_bo *bo);
void mvgal_userptr_assume_written(struct mvgal_bo *bo, unsigned long base,
				  const unsigned long *chunks,
				  unsigned long n);
bool mvgal_userptr_unseen(const struct mvgal_bo *bo);
void mvgal_userptr_mark(struct mvgal_bo *bo, unsigned long first,
			unsigned long last, bool home_held);

#endif /* MVGAL_BO_USERPTR_H */
