/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mirrored registrations (BO_USERPTR with MVGAL_USERPTR_MIRROR): user
 * memory followed through an MMU interval notifier and faulted in with
 * hmm_range_fault() when a copy needs it, never pinned.
 */
#ifndef MVGAL_BO_HMM_H
#define MVGAL_BO_HMM_H

#include <linux/types.h>

struct mvgal_bo;
struct page;

/* How many times a call runs again after faulting what it wanted. */
#define MVGAL_HMM_TRIES		8
/* The most registrations one try faults in (others' wants included). */
#define MVGAL_HMM_FAULTS	16

int mvgal_hmm_register(struct mvgal_bo *bo, unsigned long start);
void mvgal_hmm_unregister(struct mvgal_bo *bo);
int mvgal_hmm_ready(struct mvgal_bo *bo, u64 off, u64 len, bool write);
int mvgal_hmm_held(struct mvgal_bo *bo, u64 off, u64 len, bool write);
int mvgal_hmm_ready_chunks(struct mvgal_bo *bo, unsigned long first,
			   unsigned long last, unsigned int dst);
bool mvgal_hmm_any(void);
void mvgal_hmm_publish_lock(const struct mvgal_bo *bo);
void mvgal_hmm_publish_unlock(void);
int mvgal_hmm_current(struct mvgal_bo *bo, u64 off, u64 len,
		      unsigned int src, unsigned int dst);
unsigned long mvgal_hmm_gen(struct mvgal_bo *bo);
int mvgal_hmm_gen_check(struct mvgal_bo *bo, unsigned long gen);
void mvgal_hmm_defer(struct mvgal_bo *bo, unsigned long c);
void mvgal_hmm_end(struct mvgal_bo *bo);
void mvgal_hmm_delay_set(u64 id, unsigned int ms);
void mvgal_hmm_delay_get(u64 *id, unsigned int *ms, unsigned int *delays);
bool mvgal_hmm_pages_ok(struct page **pages, unsigned long n);
bool mvgal_hmm_retry(long *ret, unsigned int *tries);

#endif /* MVGAL_BO_HMM_H */
