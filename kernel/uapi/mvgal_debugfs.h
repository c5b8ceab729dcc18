/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs files for tests: direct pool allocations, host page memory
 * types, the size of each buffer's chunk records, dma-buf reads as an
 * importer sees them, bytes staged per NUMA node, and path figures set
 * by hand.
 */
#ifndef MVGAL_UAPI_DEBUGFS_H
#define MVGAL_UAPI_DEBUGFS_H

#include <linux/types.h>

struct mvgal_device;

void mvgal_debugfs_init(struct mvgal_device *mdev);
void mvgal_debugfs_fini(struct mvgal_device *mdev);

#endif /* MVGAL_UAPI_DEBUGFS_H */
