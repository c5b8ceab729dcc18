/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring commands on the mvgal file (IORING_OP_URING_CMD).
 */
#ifndef MVGAL_UAPI_URING_H
#define MVGAL_UAPI_URING_H

struct io_uring_cmd;

int mvgal_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);

#endif /* MVGAL_UAPI_URING_H */
