/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What END does about hand-offs: chunks the CPU wrote while a session read a
 * GPU copy of them.
 */
#ifndef MVGAL_POLICY_HANDOFF_H
#define MVGAL_POLICY_HANDOFF_H

#include <linux/types.h>

struct mvgal_bo;
struct mvgal_live;

void mvgal_watch_end(struct mvgal_bo *bo, struct mvgal_live *l,
		     unsigned int loc, unsigned long *written);
void mvgal_watch_drop(struct mvgal_bo *bo, struct mvgal_live *l,
		      const unsigned long *staged, const unsigned long *written);

#endif /* MVGAL_POLICY_HANDOFF_H */
