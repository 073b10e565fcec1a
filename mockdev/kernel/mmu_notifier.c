// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: mmu notifiers (->release only) and the end of an address
 * space.
 *
 * In the kernel, exit_mmap() of a process calls ->release of every
 * notifier on its mm, under SRCU; mmu_notifier_unregister() calls it
 * instead if the mm is still alive, then waits (synchronize_srcu()) for
 * any ->release in progress. Here, the mm of a remote process (an npud
 * client) ends when the process exits or execs: a reaper thread polls the
 * pidfd of every remote mm that has notifiers and runs their ->release as
 * soon as it becomes readable. An exec leaves the pidfd quiet (the pid
 * lives on) and the host tells no one, so while it watches any mm the
 * reaper also wakes every MN_EXEC_POLL_MS and asks each whether it still
 * lives (mock_mm_alive()): what an exec'd image held is reclaimed within
 * that time, as on exit. The process's own mm never ends (the driver goes
 * with it). A read-write lock stands for SRCU: ->release runs with it held
 * for reading, and "synchronize" takes it for writing once.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/list.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

#include "internal.h"

/* Protects: every mm's mock_notifiers, mock_watch and mock_exited; mn_watch; reaper_* */
static pthread_mutex_t mn_lock = PTHREAD_MUTEX_INITIALIZER;
/* Remote mms with notifiers whose process has not been seen to exit. */
static LIST_HEAD(mn_watch);
static bool reaper_started;
static int reaper_kick = -1;	/* eventfd: the watch list changed */

/*
 * How often the reaper looks for watched address spaces that ended by an
 * exec: one pread() of each one's mem file per period.
 */
#define MN_EXEC_POLL_MS	50

/* Held for reading around ->release calls; taken for writing to wait for them. */
static pthread_rwlock_t mn_srcu = PTHREAD_RWLOCK_INITIALIZER;

static void mn_synchronize(void)
{
	pthread_rwlock_wrlock(&mn_srcu);
	pthread_rwlock_unlock(&mn_srcu);
}

/* exit_mmap(): every notifier of mm, unhashed one by one, gets ->release. */
static void mn_mm_release(struct mm_struct *mm)
{
	struct mmu_notifier *sub;

	pthread_rwlock_rdlock(&mn_srcu);
	pthread_mutex_lock(&mn_lock);
	while (!list_empty(&mm->mock_notifiers)) {
		sub = list_first_entry(&mm->mock_notifiers, struct mmu_notifier, mock_link);
		list_del_init(&sub->mock_link);
		pthread_mutex_unlock(&mn_lock);
		/* unregister waits for us (mn_srcu), so sub stays valid. */
		if (sub->ops->release)
			sub->ops->release(sub, mm);
		pthread_mutex_lock(&mn_lock);
	}
	pthread_mutex_unlock(&mn_lock);
	pthread_rwlock_unlock(&mn_srcu);
}

static void reaper_kick_locked(void)
{
	uint64_t one = 1;

	/* An eventfd write fails only when its counter would overflow. */
	if (reaper_kick >= 0 && write(reaper_kick, &one, sizeof(one)) < 0)
		return;
}

/*
 * The kernel ends an address space the moment its process execs; the mock
 * learns of an exec only by asking (every MN_EXEC_POLL_MS). A test that
 * knows a watched process has just exec'd asks for the look at once.
 */
MOCK_EXPORT void mock_mm_reap_now(void)
{
	pthread_mutex_lock(&mn_lock);
	reaper_kick_locked();
	pthread_mutex_unlock(&mn_lock);
}

/*
 * The reaper: polls the kick eventfd and the pidfd of every watched mm;
 * an mm whose process exited leaves the list and has its notifiers
 * released. Bounded by the watch list, which only registrations grow.
 */
static void *reaper_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct mm_struct **mms = NULL;
		struct pollfd *fds;
		struct mm_struct *mm;
		size_t n = 0, i;
		uint64_t v;

		pthread_mutex_lock(&mn_lock);
		list_for_each_entry(mm, &mn_watch, mock_watch)
			n++;
		fds = mock_xzalloc((n + 1) * sizeof(*fds));
		if (n)
			mms = mock_xzalloc(n * sizeof(*mms));
		fds[0].fd = reaper_kick;
		fds[0].events = POLLIN;
		i = 0;
		list_for_each_entry(mm, &mn_watch, mock_watch) {
			mmgrab(mm);	/* the pidfd stays open while we poll it */
			mms[i] = mm;
			fds[i + 1].fd = mm->pidfd;
			fds[i + 1].events = POLLIN;
			i++;
		}
		pthread_mutex_unlock(&mn_lock);

		while (poll(fds, n + 1, n ? MN_EXEC_POLL_MS : -1) < 0 && errno == EINTR)
			;
		if (fds[0].revents & POLLIN) {
			/* Empties the counter; a failed read leaves it for the next poll. */
			ssize_t r = read(reaper_kick, &v, sizeof(v));

			(void)r;
		}
		for (i = 0; i < n; i++) {
			bool exited = false;

			mm = mms[i];
			if (fds[i + 1].revents || !mock_mm_alive(mm)) {
				pthread_mutex_lock(&mn_lock);
				if (!mm->mock_exited) {
					mm->mock_exited = true;
					if (!list_empty(&mm->mock_watch))
						list_del_init(&mm->mock_watch);
					exited = true;
				}
				pthread_mutex_unlock(&mn_lock);
			}
			if (exited)
				mn_mm_release(mm);
			mmdrop(mm);
		}
		free(mms);
		free(fds);
	}
	return NULL;
}

/* Caller holds mn_lock. */
static int reaper_start_locked(void)
{
	pthread_attr_t attr;
	pthread_t thread;
	int err;

	if (reaper_started)
		return 0;
	reaper_kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (reaper_kick < 0)
		return -errno;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&thread, &attr, reaper_main, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		close(reaper_kick);
		reaper_kick = -1;
		return -err;
	}
	pthread_setname_np(thread, "mock-mm-reaper");
	reaper_started = true;
	return 0;
}

int mmu_notifier_register(struct mmu_notifier *subscription, struct mm_struct *mm)
{
	bool exited;
	int ret = 0;

	BUG_ON(atomic_read(&mm->mm_users) <= 0);
	/* The kernel's mm_take_all_locks() gives up on a pending signal. */
	if (signal_pending(current))
		return -EINTR;
	pthread_mutex_lock(&mn_lock);
	if (mm->kind == MOCK_MM_REMOTE && !mm->mock_exited) {
		ret = reaper_start_locked();
		if (ret) {
			pthread_mutex_unlock(&mn_lock);
			return ret == -EAGAIN ? -ENOMEM : ret;
		}
		if (list_empty(&mm->mock_watch)) {
			list_add_tail(&mm->mock_watch, &mn_watch);
			reaper_kick_locked();
		}
	}
	mmgrab(mm);
	subscription->mm = mm;
	subscription->users = 1;
	list_add_tail(&subscription->mock_link, &mm->mock_notifiers);
	exited = mm->mock_exited;
	pthread_mutex_unlock(&mn_lock);
	/* Registered on an mm whose process is already gone: released at once. */
	if (exited)
		mn_mm_release(mm);
	return 0;
}

void mmu_notifier_unregister(struct mmu_notifier *subscription, struct mm_struct *mm)
{
	bool hashed;

	BUG_ON(atomic_read(&mm->mm_count) <= 0);
	pthread_mutex_lock(&mn_lock);
	hashed = !list_empty(&subscription->mock_link);
	pthread_mutex_unlock(&mn_lock);
	if (hashed) {
		pthread_rwlock_rdlock(&mn_srcu);
		if (subscription->ops->release)
			subscription->ops->release(subscription, mm);
		pthread_rwlock_unlock(&mn_srcu);
		pthread_mutex_lock(&mn_lock);
		list_del_init(&subscription->mock_link);
		/* The reaper need not watch (and hold the pidfd of) an mm nobody follows. */
		if (list_empty(&mm->mock_notifiers) && !list_empty(&mm->mock_watch)) {
			list_del_init(&mm->mock_watch);
			reaper_kick_locked();
		}
		pthread_mutex_unlock(&mn_lock);
	}
	mn_synchronize();
	mmdrop(mm);
}
