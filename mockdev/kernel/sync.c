// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: locks, wait queues and RCU over pthreads.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "internal.h"

static __thread unsigned long thread_id
	__attribute__((tls_model("initial-exec")));

unsigned long mock_thread_id(void)
{
	if (unlikely(!thread_id))
		thread_id = (unsigned long)syscall(SYS_gettid);
	return thread_id;
}

static void lock_or_die(int err, const char *what)
{
	if (unlikely(err))
		mock_bug(__FILE__, __LINE__, what);
}

/* Mutexes */

void mutex_init(struct mutex *lock)
{
	lock_or_die(pthread_mutex_init(&lock->lock, NULL), "mutex_init");
	lock->mock_owner.tid = 0;
}

void mutex_destroy(struct mutex *lock)
{
	WARN(mutex_is_locked(lock), "mutex_destroy of a locked mutex\n");
	pthread_mutex_destroy(&lock->lock);
}

void mutex_lock(struct mutex *lock)
{
	/* A recursive lock is a self-deadlock in the kernel: say so. */
	if (unlikely(mock_lock_owner_is_me(&lock->mock_owner)))
		mock_bug(__FILE__, __LINE__, "mutex_lock: recursive locking");
	lock_or_die(pthread_mutex_lock(&lock->lock), "mutex_lock");
	mock_lock_owner_set(&lock->mock_owner);
}

void mutex_unlock(struct mutex *lock)
{
	if (unlikely(!mock_lock_owner_is_me(&lock->mock_owner)))
		mock_bug(__FILE__, __LINE__,
			 "mutex_unlock: not locked by this thread");
	mock_lock_owner_clear(&lock->mock_owner);
	lock_or_die(pthread_mutex_unlock(&lock->lock), "mutex_unlock");
}

/* Spinlocks */

void spin_lock_init(spinlock_t *lock)
{
	lock_or_die(pthread_mutex_init(&lock->lock, NULL), "spin_lock_init");
	lock->mock_owner.tid = 0;
}

void spin_lock(spinlock_t *lock)
{
	if (unlikely(mock_lock_owner_is_me(&lock->mock_owner)))
		mock_bug(__FILE__, __LINE__, "spin_lock: recursive locking");
	lock_or_die(pthread_mutex_lock(&lock->lock), "spin_lock");
	mock_lock_owner_set(&lock->mock_owner);
}

void spin_unlock(spinlock_t *lock)
{
	if (unlikely(!mock_lock_owner_is_me(&lock->mock_owner)))
		mock_bug(__FILE__, __LINE__,
			 "spin_unlock: not locked by this thread");
	mock_lock_owner_clear(&lock->mock_owner);
	lock_or_die(pthread_mutex_unlock(&lock->lock), "spin_unlock");
}

/* Reader/writer semaphores */

void init_rwsem(struct rw_semaphore *sem)
{
	lock_or_die(pthread_rwlock_init(&sem->lock, NULL), "init_rwsem");
	sem->mock_owner.tid = 0;
}

void down_read(struct rw_semaphore *sem)
{
	lock_or_die(pthread_rwlock_rdlock(&sem->lock), "down_read");
}

void up_read(struct rw_semaphore *sem)
{
	lock_or_die(pthread_rwlock_unlock(&sem->lock), "up_read");
}

void down_write(struct rw_semaphore *sem)
{
	lock_or_die(pthread_rwlock_wrlock(&sem->lock), "down_write");
	mock_lock_owner_set(&sem->mock_owner);
}

void up_write(struct rw_semaphore *sem)
{
	mock_lock_owner_clear(&sem->mock_owner);
	lock_or_die(pthread_rwlock_unlock(&sem->lock), "up_write");
}

/* Wait queues */

void init_waitqueue_head(struct wait_queue_head *wq)
{
	lock_or_die(pthread_mutex_init(&wq->lock, NULL), "init_waitqueue_head");
	lock_or_die(pthread_cond_init(&wq->cond, NULL), "init_waitqueue_head");
	wq->seq = 0;
	wq->waiters = 0;
}

void __wake_up(struct wait_queue_head *wq)
{
	/*
	 * Pairs with the fence in mock_wait_prepare(): either we see the
	 * waiter, or the waiter sees the condition the caller just changed.
	 */
	smp_mb();
	if (!__atomic_load_n(&wq->waiters, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&wq->lock);
	wq->seq++;
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

void mock_wait_prepare(struct mock_waiter *w, struct wait_queue_head *wq,
		       unsigned int state)
{
	w->wq = wq;
	w->state = state;
	pthread_mutex_lock(&wq->lock);
	__atomic_fetch_add(&wq->waiters, 1, __ATOMIC_RELAXED);
	w->seq = wq->seq;
	pthread_mutex_unlock(&wq->lock);
	smp_mb();		/* waiters++ before the condition is read */
}

void mock_wait_finish(struct mock_waiter *w)
{
	pthread_mutex_lock(&w->wq->lock);
	__atomic_fetch_sub(&w->wq->waiters, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&w->wq->lock);
}

static bool wait_interrupted(unsigned int state)
{
	return signal_pending_state(state, current);
}

/* CLOCK_MONOTONIC deadline timeout jiffies from now. */
static struct timespec deadline_after(long timeout)
{
	struct timespec ts;
	u64 ns = jiffies_to_nsecs(timeout);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ns / NSEC_PER_SEC;
	ts.tv_nsec += ns % NSEC_PER_SEC;
	if (ts.tv_nsec >= NSEC_PER_SEC) {
		ts.tv_sec++;
		ts.tv_nsec -= NSEC_PER_SEC;
	}
	return ts;
}

static long jiffies_left(const struct timespec *deadline)
{
	struct timespec now;
	s64 ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (s64)(deadline->tv_sec - now.tv_sec) * NSEC_PER_SEC +
	     (deadline->tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return 0;
	return max(1UL, nsecs_to_jiffies(ns));
}

/*
 * A client's thread killed while it waits in the driver normally reaches us
 * as a signal (npud turns a FUSE interrupt into one); as a fallback, its
 * interruptible and killable sleeps look at the host every slice.
 */
#define MOCK_DEATH_CHECK_MS	200

static bool timespec_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static bool wait_watches_host(const struct mock_waiter *w)
{
	struct mock_task *mt = to_mock_task(current);

	return (w->state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)) &&
	       (mt->kind == MOCK_TASK_REMOTE || mt->kind == MOCK_TASK_THREAD);
}

long mock_wait_sleep(struct mock_waiter *w, long timeout)
{
	struct mock_task *mt = to_mock_task(current);
	struct wait_queue_head *wq = w->wq;
	bool forever = timeout >= MAX_SCHEDULE_TIMEOUT;
	bool watch = wait_watches_host(w);
	struct timespec deadline = { 0 }, until;
	long ret = timeout;

	if (wait_interrupted(w->state))
		return -ERESTARTSYS;
	if (!forever)
		deadline = deadline_after(timeout);

	/*
	 * wake_up_process() and signals find us through waiting_on; a
	 * wake-up that came before (woken) ends this sleep at once.
	 */
	pthread_mutex_lock(&mt->lock);
	if (mt->woken) {
		mt->woken = false;
		pthread_mutex_unlock(&mt->lock);
		return timeout;
	}
	mt->waiting_on = wq;
	pthread_mutex_unlock(&mt->lock);

	pthread_mutex_lock(&wq->lock);
	while (wq->seq == w->seq && !wait_interrupted(w->state)) {
		bool slice = false;

		until = deadline;
		if (watch) {
			struct timespec s = deadline_after(msecs_to_jiffies(MOCK_DEATH_CHECK_MS));

			if (forever || timespec_before(&s, &deadline)) {
				until = s;
				slice = true;
			}
		}
		if (forever && !slice) {
			pthread_cond_wait(&wq->cond, &wq->lock);
		} else if (pthread_cond_clockwait(&wq->cond, &wq->lock,
						  CLOCK_MONOTONIC,
						  &until) == ETIMEDOUT) {
			if (!slice)
				break;
			pthread_mutex_unlock(&wq->lock);
			mock_task_check_host_death(current);
			pthread_mutex_lock(&wq->lock);
		}
	}
	w->seq = wq->seq;
	pthread_mutex_unlock(&wq->lock);

	pthread_mutex_lock(&mt->lock);
	mt->waiting_on = NULL;
	mt->woken = false;
	pthread_mutex_unlock(&mt->lock);

	smp_mb();		/* the wake-up before the condition re-check */
	if (wait_interrupted(w->state))
		return -ERESTARTSYS;
	if (!forever)
		ret = jiffies_left(&deadline);
	return ret;
}

/* RCU: a reader-preferring rwlock (readers may nest). */

static pthread_rwlock_t rcu_lock = PTHREAD_RWLOCK_INITIALIZER;

void rcu_read_lock(void)
{
	lock_or_die(pthread_rwlock_rdlock(&rcu_lock), "rcu_read_lock");
}

void rcu_read_unlock(void)
{
	lock_or_die(pthread_rwlock_unlock(&rcu_lock), "rcu_read_unlock");
}
