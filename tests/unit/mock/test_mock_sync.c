// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Wait queues, schedule and kthreads across real threads. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

#include "mock_test.h"

/* Ping-pong: each side waits for the other's counter; a lost wake-up hangs. */
struct pingpong {
	wait_queue_head_t wq;
	int turn;
	int rounds;
};

static int pong_fn(void *data)
{
	struct pingpong *pp = data;

	for (int i = 0; i < pp->rounds; i++) {
		wait_event(pp->wq, READ_ONCE(pp->turn) == 1);
		WRITE_ONCE(pp->turn, 0);
		wake_up(&pp->wq);
	}
	return 42;
}

static void test_wait_queue_ping_pong_loses_no_wakeup(void **state)
{
	static struct pingpong pp;
	struct task_struct *k;

	(void)state;
	init_waitqueue_head(&pp.wq);
	pp.turn = 0;
	pp.rounds = 20000;
	k = kthread_run(pong_fn, &pp, "pong%d", 1);
	assert_false(IS_ERR(k));
	for (int i = 0; i < pp.rounds; i++) {
		WRITE_ONCE(pp.turn, 1);
		wake_up(&pp.wq);
		wait_event(pp.wq, READ_ONCE(pp.turn) == 0);
	}
	assert_int_equal(kthread_stop(k), 42);
}

static void test_wait_event_timeout_return_values(void **state)
{
	DECLARE_WAIT_QUEUE_HEAD(wq);
	int cond = 0;
	unsigned long t0 = jiffies;
	long r;

	(void)state;
	r = wait_event_timeout(wq, cond, msecs_to_jiffies(40));
	assert_int_equal(r, 0);
	assert_true(time_after_eq(jiffies, t0 + msecs_to_jiffies(40) - 1));
	cond = 1;
	r = wait_event_timeout(wq, cond, 100);
	assert_int_equal(r, 100);
	r = wait_event_timeout(wq, cond, 0);
	assert_int_equal(r, 1);
	assert_int_equal(wait_event_interruptible(wq, cond), 0);
}

static int stopper_fn(void *data)
{
	DECLARE_WAIT_QUEUE_HEAD(never);
	int *ran = data;

	WRITE_ONCE(*ran, 1);
	/* kthread_stop must wake this sleep: nobody calls wake_up(&never). */
	wait_event_interruptible(never, kthread_should_stop());
	return 7;
}

static void test_kthread_stop_wakes_a_sleeping_kthread(void **state)
{
	struct mock_counters c;
	struct task_struct *k;
	int ran = 0;

	(void)state;
	k = kthread_create(stopper_fn, &ran, "stopper");
	assert_false(IS_ERR(k));
	assert_null(k->mm);
	assert_string_equal(k->comm, "stopper");
	mock_counters_get(&c);
	assert_int_equal(c.kthreads, 1);
	wake_up_process(k);
	while (!READ_ONCE(ran))
		msleep(1);
	msleep(10);
	assert_int_equal(kthread_stop(k), 7);
}

static int never_runs(void *data)
{
	*(int *)data = 1;
	return 0;
}

static void test_kthread_stopped_before_wake_never_runs(void **state)
{
	struct task_struct *k;
	int ran = 0;

	(void)state;
	k = kthread_create(never_runs, &ran, "idle");
	assert_false(IS_ERR(k));
	assert_int_equal(kthread_stop(k), -EINTR);
	assert_int_equal(ran, 0);
}

static int sleeper_fn(void *data)
{
	int *woke = data;

	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop() && !READ_ONCE(*woke)) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	WRITE_ONCE(*woke, 2);
	while (!kthread_should_stop())
		msleep(1);
	return 0;
}

static void test_schedule_sleeps_until_wake_up_process(void **state)
{
	struct task_struct *k;
	int woke = 0;

	(void)state;
	k = kthread_run(sleeper_fn, &woke, "sleeper");
	msleep(20);
	assert_int_equal(READ_ONCE(woke), 0);
	WRITE_ONCE(woke, 1);
	wake_up_process(k);
	for (int i = 0; i < 1000 && READ_ONCE(woke) != 2; i++)
		msleep(1);
	assert_int_equal(READ_ONCE(woke), 2);
	kthread_stop(k);
}

struct sigwait {
	wait_queue_head_t wq;
	int result;
	int done;
};

static int sigwait_fn(void *data)
{
	struct sigwait *s = data;

	s->result = wait_event_interruptible(s->wq, kthread_should_stop() &&
						     false);
	WRITE_ONCE(s->done, 1);
	while (!kthread_should_stop())
		msleep(1);
	return 0;
}

static void test_signal_interrupts_interruptible_wait(void **state)
{
	static struct sigwait s;
	struct task_struct *k;

	(void)state;
	init_waitqueue_head(&s.wq);
	s.done = 0;
	k = kthread_run(sigwait_fn, &s, "sigwait");
	msleep(10);
	assert_int_equal(READ_ONCE(s.done), 0);
	mockdev_task_signal(k, false);
	for (int i = 0; i < 1000 && !READ_ONCE(s.done); i++)
		msleep(1);
	assert_int_equal(s.result, -ERESTARTSYS);
	kthread_stop(k);
}

static void test_plain_thread_is_the_process_itself(void **state)
{
	(void)state;
	assert_ptr_equal(current, mockdev_task_self());
	assert_non_null(current->mm);
	assert_int_equal(task_tgid_nr(current), getpid());
	assert_int_equal(mockdev_tid_to_tgid(gettid()), getpid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MOCK_TEST(test_wait_queue_ping_pong_loses_no_wakeup),
		MOCK_TEST(test_wait_event_timeout_return_values),
		MOCK_TEST(test_kthread_stop_wakes_a_sleeping_kthread),
		MOCK_TEST(test_kthread_stopped_before_wake_never_runs),
		MOCK_TEST(test_schedule_sleeps_until_wake_up_process),
		MOCK_TEST(test_signal_interrupts_interruptible_wait),
		MOCK_TEST(test_plain_thread_is_the_process_itself),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
