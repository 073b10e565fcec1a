/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: wait queues.
 *
 * No lost wakeups, without evaluating the condition under the queue's
 * lock (the condition may take the driver's own locks, which a waker may
 * hold while calling wake_up): each wake_up bumps the queue's sequence
 * number under its lock and broadcasts. A waiter reads the sequence number,
 * then checks the condition, and sleeps only while the sequence number is
 * unchanged; so a wake_up that follows the change of the condition either
 * happened before the read (then the check sees the change) or changes the
 * number (then the waiter does not sleep). This is prepare_to_wait/schedule
 * with a counter in place of the task state.
 *
 * wake_up and wake_up_all both wake every waiter: the driver has no
 * exclusive waits.
 */
#ifndef __KERNEL__
#include_next <linux/wait.h>
#else
#ifndef MOCK_LINUX_WAIT_H
#define MOCK_LINUX_WAIT_H

#include <pthread.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/errno.h>

struct wait_queue_head {
	pthread_mutex_t lock;	/* Protects: seq, the condition variable */
	pthread_cond_t cond;
	unsigned long seq;	/* bumped by every wake_up */
	int waiters;		/* sleepers or sleepers-to-be; read without lock */
};
typedef struct wait_queue_head wait_queue_head_t;

#define __WAIT_QUEUE_HEAD_INITIALIZER(name) {				\
	.lock = PTHREAD_MUTEX_INITIALIZER,				\
	.cond = PTHREAD_COND_INITIALIZER,				\
	.seq = 0, .waiters = 0 }
#define DECLARE_WAIT_QUEUE_HEAD(name) \
	struct wait_queue_head name = __WAIT_QUEUE_HEAD_INITIALIZER(name)

void init_waitqueue_head(struct wait_queue_head *wq_head);

void __wake_up(struct wait_queue_head *wq_head);
#define wake_up(x)			__wake_up(x)
#define wake_up_all(x)			__wake_up(x)

static inline int waitqueue_active(struct wait_queue_head *wq_head)
{
	return __atomic_load_n(&wq_head->waiters, __ATOMIC_RELAXED) != 0;
}

static inline bool wq_has_sleeper(struct wait_queue_head *wq_head)
{
	smp_mb();
	return waitqueue_active(wq_head);
}

/* One waiter's view of a queue. */
struct mock_waiter {
	struct wait_queue_head *wq;
	unsigned long seq;
	unsigned int state;
};

void mock_wait_prepare(struct mock_waiter *w, struct wait_queue_head *wq,
		       unsigned int state);
/*
 * Sleep until a wake_up newer than the last check, a signal (for the
 * states that allow it) or the timeout. Returns the jiffies left (> 0),
 * 0 on timeout, -ERESTARTSYS on a signal.
 */
long mock_wait_sleep(struct mock_waiter *w, long timeout);
void mock_wait_finish(struct mock_waiter *w);

/*
 * The common loop. ret starts as the timeout and ends as: the jiffies left
 * (at least 1) if the condition became true, 0 on timeout with the
 * condition still false, -ERESTARTSYS on a signal.
 */
#define ___mock_wait_event(wq_head, condition, state, timeout) ({	\
	struct mock_waiter __w;						\
	long __ret = (timeout);						\
									\
	mock_wait_prepare(&__w, &(wq_head), (state));			\
	for (;;) {							\
		if (condition) {					\
			if (__ret == 0)					\
				__ret = 1;				\
			break;						\
		}							\
		__ret = mock_wait_sleep(&__w, __ret);			\
		if (__ret <= 0) {					\
			if (__ret == 0 && (condition))			\
				__ret = 1;				\
			break;						\
		}							\
	}								\
	mock_wait_finish(&__w);						\
	__ret;								\
})

#define wait_event(wq_head, condition) do {				\
	if (condition)							\
		break;							\
	(void)___mock_wait_event(wq_head, condition,			\
				 TASK_UNINTERRUPTIBLE,			\
				 MAX_SCHEDULE_TIMEOUT);			\
} while (0)

#define __mock_wait_event_sig(wq_head, condition, state) ({		\
	long __r = 0;							\
	if (!(condition))						\
		__r = ___mock_wait_event(wq_head, condition, state,	\
					 MAX_SCHEDULE_TIMEOUT);		\
	(int)(__r < 0 ? __r : 0);					\
})

/* 0, or -ERESTARTSYS if a signal came first. */
#define wait_event_interruptible(wq_head, condition) \
	__mock_wait_event_sig(wq_head, condition, TASK_INTERRUPTIBLE)

/* 0 on timeout with the condition false, else the jiffies left (>= 1). */
#define wait_event_timeout(wq_head, condition, timeout) ({		\
	long __t = (timeout);						\
	if (!(condition))						\
		__t = ___mock_wait_event(wq_head, condition,		\
					 TASK_UNINTERRUPTIBLE, __t);	\
	else if (__t == 0)						\
		__t = 1;						\
	__t;								\
})

/* As wait_event_timeout, or -ERESTARTSYS if a signal came first. */
#define wait_event_interruptible_timeout(wq_head, condition, timeout) ({ \
	long __t = (timeout);						\
	if (!(condition))						\
		__t = ___mock_wait_event(wq_head, condition,		\
					 TASK_INTERRUPTIBLE, __t);	\
	else if (__t == 0)						\
		__t = 1;						\
	__t;								\
})

#endif /* MOCK_LINUX_WAIT_H */
#endif /* __KERNEL__ */
