/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one transfer-path selector, and the calibration that feeds it.
 */
#ifndef MVGAL_DEV_PATH_H
#define MVGAL_DEV_PATH_H

#include <linux/types.h>

struct mvgal_device;
struct mvgal_link_verdict;
struct mvgal_path_choice;

bool mvgal_pair_verdict(struct mvgal_device *mdev, unsigned int src,
			unsigned int dst, struct mvgal_link_verdict *v);
void mvgal_pair_cal(struct mvgal_device *mdev, unsigned int src,
		    unsigned int dst, struct mvgal_path_cal *cal);
unsigned int mvgal_select(struct mvgal_device *mdev, unsigned int src,
			  unsigned int dst, u64 bytes,
			  struct mvgal_path_choice *choice);
unsigned int mvgal_calibrate_all(struct mvgal_device *mdev,
				 void *bounce);
void mvgal_cal_forget(struct mvgal_device *mdev, unsigned int loc);

#endif /* MVGAL_DEV_PATH_H */
