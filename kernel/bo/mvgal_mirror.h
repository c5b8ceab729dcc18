/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mirror controller's bookkeeping per buffer: READ sessions that read a
 * remote copy and writes, counted over windows (core/mvgal_mirror.c); the
 * policy layer decides what the verdict means.
 */
#ifndef MVGAL_BO_MIRROR_H
#define MVGAL_BO_MIRROR_H

#include <linux/types.h>

struct mvgal_bo;

void mvgal_mirror_note_read(struct mvgal_bo *bo, unsigned int gpu, bool remote);
void mvgal_mirror_note_write(struct mvgal_bo *bo);

#endif /* MVGAL_BO_MIRROR_H */
