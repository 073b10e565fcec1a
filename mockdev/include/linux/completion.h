/* SPDX-License-Identifier: GPL-2.0 */
/* Mock kernel: completions on top of the mock wait queues. */
#ifndef MOCK_LINUX_COMPLETION_H
#define MOCK_LINUX_COMPLETION_H

#include <linux/wait.h>

struct completion {
	unsigned int done;	/* atomic; UINT_MAX after complete_all */
	struct wait_queue_head wait;
};

#define COMPLETION_INITIALIZER(work) \
	{ 0, __WAIT_QUEUE_HEAD_INITIALIZER((work).wait) }
#define DECLARE_COMPLETION(work) \
	struct completion work = COMPLETION_INITIALIZER(work)

void init_completion(struct completion *x);
void reinit_completion(struct completion *x);
void complete(struct completion *x);
void complete_all(struct completion *x);
void wait_for_completion(struct completion *x);
/* 0, or -ERESTARTSYS on a signal. */
int __must_check wait_for_completion_interruptible(struct completion *x);
int __must_check wait_for_completion_killable(struct completion *x);
/* 0 on timeout, else the jiffies left (>= 1). */
unsigned long __must_check wait_for_completion_timeout(struct completion *x,
						       unsigned long timeout);
long __must_check
wait_for_completion_interruptible_timeout(struct completion *x,
					  unsigned long timeout);
bool try_wait_for_completion(struct completion *x);
bool completion_done(struct completion *x);

#endif /* MOCK_LINUX_COMPLETION_H */
