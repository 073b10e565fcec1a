// SPDX-License-Identifier: GPL-2.0
/*
 * Session threads and shutdown. Every thread of npud blocks the shutdown
 * signals; the main thread collects them with sigtimedwait(). Each FUSE or
 * CUSE session runs fuse_session_loop_mt() in a thread of its own, so that
 * a stop can mark the session exited and then interrupt that thread's wait
 * with SIGUSR1 (a no-op handler) until the loop notices.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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
 * only npud_wait() sees SIGINT/SIGTERM/SIGHUP.
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
	struct fuse_loop_config cfg = {
		.clone_fd = 0,
		.max_idle_threads = NPUD_IDLE_THREADS,
	};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	s->result = fuse_session_loop_mt(s->se, &cfg);
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

/**
 * npud_session_stop() - end a session's loop and join its thread
 * @s: a session started with npud_session_start(), or never started
 *
 * Requests already in the driver run to completion first: libfuse cancels
 * its workers only while they wait for the next request.
 */
void npud_session_stop(struct npud_session *s)
{
	if (!s->started)
		return;
	fuse_session_exit(s->se);
	/* The loop may test the exit flag just before it sleeps: kick again. */
	while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
		pthread_kill(s->thread, SIGUSR1);
		usleep(20000);
	}
	pthread_join(s->thread, NULL);
	s->started = false;
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
		if (sig > 0)
			return sig;
		if (sig < 0 && errno != EAGAIN && errno != EINTR)
			return 0;
		for (i = 0; i < count; i++) {
			if (__atomic_load_n(&sessions[i]->done, __ATOMIC_ACQUIRE)) {
				fprintf(stderr, "npud: %s: session ended (%d)\n",
					sessions[i]->name, sessions[i]->result);
				return 0;
			}
		}
	}
}
