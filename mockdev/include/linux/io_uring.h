/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: io_uring command passthrough types only. The mock has no
 * io_uring; file_operations.uring_cmd is never called here.
 */
#ifndef MOCK_LINUX_IO_URING_H
#define MOCK_LINUX_IO_URING_H

#include <linux/types.h>

struct file;

struct io_uring_cmd {
	struct file *file;
	const void *cmd;
	void (*task_work_cb)(struct io_uring_cmd *cmd);
	u32 cmd_op;
	u32 pad;
	u8 pdu[32];
};

struct io_comp_batch;

#define IO_URING_F_NONBLOCK	(1U << 31)
#define IO_URING_F_SQE128	(1U << 8)
#define IO_URING_F_CQE32	(1U << 9)

static inline void io_uring_cmd_done(struct io_uring_cmd *cmd, ssize_t ret,
				     ssize_t res2)
{
	(void)cmd;
	(void)ret;
	(void)res2;
}

#endif /* MOCK_LINUX_IO_URING_H */
