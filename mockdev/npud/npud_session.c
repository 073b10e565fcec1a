// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Session threads and shutdown. Every thread of npud blocks the shutdown
 * signals; the main thread collects them with sigtimedwait(). Each FUSE or
 * CUSE session runs fuse_session_loop_mt() in a thread of its own, so that
 * a stop can mark the session exited and then interrupt that thread's wait
 * with SIGUSR1 (a no-op handler) until the loop notices.
 *
 * Shutdown is bounded by NPUD_STOP_MS from npud_stop_begin(): every call
 * in the driver is signalled (its waits end), the sessions stop, the
 * mounts go, and the files left open are released and the driver
 * unloaded. Whatever has not finished by the deadline (a call stuck in the
 * driver, a release that takes too long) is abandoned: npud exits at once
 * and the kernel ends the rest with the process.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "npud.h"

/* Worker threads that sit idle before libfuse retires them. */
#define NPUD_IDLE_THREADS	8

static void npud_kick(int sig)
{
	(void)sig;
}

static void npud_shutdown_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/**
 * npud_signals_init() - block the shutdown signals in every thread
 *
 * Call before any thread starts, so that all of them inherit the mask and
 * only npud_wait() sees SIGINT/SIGTERM (shutdown) and SIGHUP (ignored).
 */
void npud_signals_init(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = npud_kick;	/* no SA_RESTART: interrupt the wait */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	npud_shutdown_set(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *npud_session_thread(void *data)
{
	struct npud_session *s = data;
	struct fuse_loop_config *cfg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	cfg = fuse_loop_cfg_create();
	if (!cfg) {
		s->result = -ENOMEM;
	} else {
		fuse_loop_cfg_set_clone_fd(cfg, 0);
		fuse_loop_cfg_set_idle_threads(cfg, NPUD_IDLE_THREADS);
		/* libfuse's default is 10: ten waiting calls would stop npud. */
		fuse_loop_cfg_set_max_threads(cfg, NPUD_MAX_THREADS);
		s->result = fuse_session_loop_mt(s->se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/**
 * npud_session_start() - serve session s->se in a new thread
 * @s: the session; s->se is set up and mounted
 *
 * Return: 0 or -errno.
 */
int npud_session_start(struct npud_session *s)
{
	int ret;

	s->done = false;
	ret = pthread_create(&s->thread, NULL, npud_session_thread, s);
	if (ret)
		return -ret;
	s->started = true;
	return 0;
}

/* Protects: npud_stop_started, npud_stop_deadline */
static pthread_mutex_t npud_stop_lock = PTHREAD_MUTEX_INITIALIZER;
static bool npud_stop_started;
static struct timespec npud_stop_deadline;	/* CLOCK_MONOTONIC */

static bool npud_stop_expired(void)
{
	struct timespec now, end;

	pthread_mutex_lock(&npud_stop_lock);
	end = npud_stop_deadline;
	pthread_mutex_unlock(&npud_stop_lock);
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > end.tv_sec ||
	       (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec);
}

/**
 * npud_notify() - tell the service manager (systemd Type=notify) our state
 * @state: "READY=1" once serving, "STOPPING=1" when the shutdown begins
 *
 * The sd_notify protocol without libsystemd: one datagram to the AF_UNIX
 * socket that $NOTIFY_SOCKET names (a path, or '@' and an abstract name).
 * Nothing happens without the variable; a failure to send changes nothing.
 */
void npud_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		fprintf(stderr, "npud: cannot notify %s: %s\n", path, strerror(errno));
	close(fd);
}

/**
 * npud_stop_begin() - start the shutdown clock and end every wait
 *
 * Sets the deadline NPUD_STOP_MS from now (once; later calls keep it) and
 * signals every call in the driver, as if its client had been killed.
 */
void npud_stop_begin(void)
{
	pthread_mutex_lock(&npud_stop_lock);
	if (!npud_stop_started) {
		clock_gettime(CLOCK_MONOTONIC, &npud_stop_deadline);
		npud_stop_deadline.tv_sec += NPUD_STOP_MS / 1000;
		npud_stop_deadline.tv_nsec += (NPUD_STOP_MS % 1000) * 1000000L;
		if (npud_stop_deadline.tv_nsec >= 1000000000L) {
			npud_stop_deadline.tv_sec++;
			npud_stop_deadline.tv_nsec -= 1000000000L;
		}
		npud_stop_started = true;
		npud_notify("STOPPING=1");
	}
	pthread_mutex_unlock(&npud_stop_lock);
	npud_calls_stop();
}

struct npud_bounded {
	void *(*fn)(void *);
	void *arg;
	pthread_mutex_t lock;	/* Protects: done */
	pthread_cond_t cond;	/* signalled when done is set */
	bool done;
};

/*
 * The work reports its end under a mutex, not only through the thread's
 * exit: the waiter then sees everything the work did (and ThreadSanitizer
 * knows it), and a wait on a condition variable can have a deadline.
 */
static void *npud_bounded_thread(void *data)
{
	struct npud_bounded *b = data;

	b->fn(b->arg);
	pthread_mutex_lock(&b->lock);
	b->done = true;
	pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/**
 * npud_run_bounded() - run fn(arg) until the shutdown deadline
 * @fn: the work
 * @arg: its argument
 *
 * Call after npud_stop_begin().
 *
 * Return: true if fn returned in time; false if it still runs (in a thread
 * of its own, which the caller must then abandon with the process).
 */
bool npud_run_bounded(void *(*fn)(void *), void *arg)
{
	/* Static: a thread abandoned at the deadline may still use it. */
	static struct npud_bounded b;
	pthread_condattr_t attr;
	struct timespec end;
	bool done;
	pthread_t t;

	b.fn = fn;
	b.arg = arg;
	b.done = false;
	pthread_mutex_init(&b.lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&b.cond, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&t, NULL, npud_bounded_thread, &b)) {
		fn(arg);
		return true;
	}
	pthread_mutex_lock(&npud_stop_lock);
	end = npud_stop_deadline;
	pthread_mutex_unlock(&npud_stop_lock);
	pthread_mutex_lock(&b.lock);
	while (!b.done && pthread_cond_timedwait(&b.cond, &b.lock, &end) != ETIMEDOUT)
		;
	done = b.done;
	pthread_mutex_unlock(&b.lock);
	if (!done)
		return false;
	pthread_join(t, NULL);
	pthread_cond_destroy(&b.cond);
	pthread_mutex_destroy(&b.lock);
	return true;
}

/**
 * npud_abandon() - exit now, leaving what is stuck to the kernel
 * @ret: the exit status
 *
 * The mounts must be gone already. No destructor or atexit handler runs:
 * other threads may still be inside the driver.
 */
void npud_abandon(int ret)
{
	npud_log(NPUD_LOG_WARNING,
		 "npud: shutdown did not finish in %d ms; exit %d without cleanup\n",
		 NPUD_STOP_MS, ret);
	fflush(stderr);
	_exit(ret);
}

static void *npud_release_thread(void *arg)
{
	*(unsigned int *)arg = npud_clients_release_all();
	return NULL;
}

/**
 * npud_release_bounded() - release the files left open, within the deadline
 *
 * For shutdown, after every session has stopped. Abandons the process
 * (exit @ret) if the releases do not finish in time.
 */
void npud_release_bounded(int ret)
{
	unsigned int left = 0;

	if (!npud_run_bounded(npud_release_thread, &left))
		npud_abandon(ret);
	if (left)
		npud_log(NPUD_LOG_INFO, "npud: released %u file(s) left open\n", left);
}

/**
 * npud_session_stop() - end a session's loop and join its thread
 * @s: a session started with npud_session_start(), or never started
 *
 * Call after npud_stop_begin(): the calls in the driver are signalled and
 * return soon; libfuse cancels its other workers while they wait for the
 * next request.
 *
 * Return: true once the session's thread is joined; false if its loop
 * still runs at the shutdown deadline (a call stuck in the driver).
 */
bool npud_session_stop(struct npud_session *s)
{
	if (!s->started)
		return true;
	fuse_session_exit(s->se);
	/* The loop may test the exit flag just before it sleeps: kick again. */
	while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
		if (npud_stop_expired())
			return false;
		pthread_kill(s->thread, SIGUSR1);
		usleep(10000);
	}
	pthread_join(s->thread, NULL);
	s->started = false;
	return true;
}

/**
 * npud_wait() - wait for a shutdown signal or for a session to end
 * @sessions: the running sessions
 * @count: how many
 *
 * Return: the signal number, or 0 if a session ended on its own (e.g. the
 * mount was removed behind npud's back).
 */
int npud_wait(struct npud_session **sessions, unsigned int count)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };
	sigset_t set;
	unsigned int i;
	int sig;

	npud_shutdown_set(&set);
	for (;;) {
		sig = sigtimedwait(&set, NULL, &tick);
		if (sig == SIGHUP) {
			/* What daemons do on SIGHUP is reopen their logs: npud has none. */
			npud_log(NPUD_LOG_INFO, "npud: SIGHUP: logging goes to stderr, nothing "
						"to reopen; still serving\n");
			continue;
		}
		if (sig > 0)
			return sig;
		if (sig < 0 && errno != EAGAIN && errno != EINTR)
			return 0;
		for (i = 0; i < count; i++) {
			if (__atomic_load_n(&sessions[i]->done, __ATOMIC_ACQUIRE)) {
				npud_log(NPUD_LOG_INFO, "npud: %s: session ended (%d)\n",
					 sessions[i]->name, sessions[i]->result);
				return 0;
			}
		}
	}
}
