/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ring doorbell as an io_uring command (file_operations.uring_cmd).
 *
 * Kbuild builds npu_uring.o, and defines NPU_URING_CMD, only for a kernel
 * with io_uring and the command API; the mock kernel has no io_uring and
 * never defines it.
 */
#ifndef _NPU_URING_H
#define _NPU_URING_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

#ifdef NPU_URING_CMD
struct io_uring_cmd;

int npu_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);

/* What NPU_IOCTL_GET_VERSION adds to its features. */
#define NPU_URING_FEATURES	NPU_FEATURE_URING_CMD
#else
#define NPU_URING_FEATURES	0
#endif

#endif /* _NPU_URING_H */
