// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: noticing changes of the SIGSEGV and SIGBUS handlers without
 * a system call.
 *
 * A guarded copy (uaccess.c) recovers from a fault on the user side only
 * while the mock's handler is the one installed, and programs replace it
 * behind our back (cmocka does before every test). Asking the kernel
 * costs two rt_sigaction calls: about 2.4 us under the CI machine's
 * hypervisor, several times the 4 KiB copy it guards. So the C library's
 * functions that change a handler (sigaction, signal and their aliases)
 * are wrapped here, as a JVM's libjsig wraps them: every call goes on,
 * unchanged, to the C library's function, and one that may have changed
 * SIGSEGV or SIGBUS bumps a sequence number. uaccess.c asks the kernel
 * again only when the number moved since it last did.
 *
 * The wrappers see a call only if they come first in the process's global
 * symbol scope: libascendcl.so (or npud) linked ahead of libc, and no
 * preloaded library or sanitizer runtime defining these names before us.
 * The first snapshot checks that once; where it fails (libascendcl opened
 * with dlopen, a library preloaded with its own) the snapshot is
 * MOCK_SIGWATCH_BLIND and uaccess.c asks the kernel at every entry, as it
 * must. A program that changes a handler with a raw rt_sigaction system
 * call is not seen.
 *
 * Builds with AddressSanitizer or ThreadSanitizer define no wrappers and
 * are always blind: their runtime wraps these functions ahead of everyone,
 * and calls the next definition during its own start-up, before
 * instrumented code may run. Nor do builds that link statically
 * (NPU_MOCK_SIGWATCH unset, mockdev/CMakeLists.txt): there is no next
 * definition to forward to.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/kernel.h>

#include "internal.h"

unsigned long mock_sigwatch_seq;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(NPU_MOCK_SIGWATCH)

void mock_sigwatch_quiet(bool quiet)
{
	(void)quiet;
}

unsigned long mock_sigwatch_snapshot(void)
{
	return MOCK_SIGWATCH_BLIND;
}

#else /* the wrappers */

/*
 * The wrapped functions, by kind: ACTION for the sigaction family, HANDLER
 * for the signal family. The pointers to the C library's functions, the
 * wrappers and the check that they are in front are all made from this list.
 */
#define SIGWATCH_FUNCTIONS(ACTION, HANDLER) \
	ACTION(sigaction) \
	ACTION(__sigaction) \
	HANDLER(signal) \
	HANDLER(bsd_signal) \
	HANDLER(ssignal) \
	HANDLER(sysv_signal) \
	HANDLER(__sysv_signal) \
	HANDLER(sigset)

typedef int sigwatch_action_fn(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t sigwatch_handler_fn(int, sighandler_t);

#define NEXT_ACTION(name) sigwatch_action_fn *name;
#define NEXT_HANDLER(name) sigwatch_handler_fn *name;

/* The C library's functions, found once: RTLD_NEXT from here. */
static struct sigwatch_next {
	SIGWATCH_FUNCTIONS(NEXT_ACTION, NEXT_HANDLER)
} next;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

#define NEXT_FIND(name) next.name = dlsym(RTLD_NEXT, #name);

/*
 * Past us there is no C library when the library holding the wrappers is
 * loaded after it: a dependency of a library the program links (a program
 * linking only libascend_hal.so). The C library then comes first in the
 * global scope, so the names found there are its functions; the wrappers
 * see no call, and the snapshot says so (sees_check).
 */
#define SIGWATCH_DECLARE_ACTION(name) static sigwatch_action_fn watch_##name;
#define SIGWATCH_DECLARE_HANDLER(name) static sigwatch_handler_fn watch_##name;
SIGWATCH_FUNCTIONS(SIGWATCH_DECLARE_ACTION, SIGWATCH_DECLARE_HANDLER)
#define DEFAULT_FIND(name) \
	if (!next.name && dlsym(RTLD_DEFAULT, #name) != (void *)watch_##name) \
		next.name = dlsym(RTLD_DEFAULT, #name);

static void next_find(void)
{
	static const char msg[] = "npu mock kernel: the C library's sigaction is not found past "
				  "the signal wrappers (a static link?): build without them, "
				  "see mockdev/CMakeLists.txt\n";

	SIGWATCH_FUNCTIONS(NEXT_FIND, NEXT_FIND)
	if (!next.sigaction) {
		SIGWATCH_FUNCTIONS(DEFAULT_FIND, DEFAULT_FIND)
	}
	if (!next.sigaction) {
		/* Every call to sigaction would fail: say why, and stop at once. */
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			abort();
		abort();
	}
}

/*
 * Resolved by a constructor, so that a wrapper called from a signal
 * handler finds the pointers set; pthread_once covers a call made by a
 * constructor that runs before ours.
 */
static __attribute__((constructor)) void sigwatch_init(void)
{
	pthread_once(&next_once, next_find);
}

static const struct sigwatch_next *next_get(void)
{
	pthread_once(&next_once, next_find);
	return &next;
}

/* Set while the mock installs its own handler: not a change to notice. */
static __thread bool sigwatch_quiet __attribute__((tls_model("initial-exec")));

void mock_sigwatch_quiet(bool quiet)
{
	sigwatch_quiet = quiet;
}

/* After a call that may have changed @sig's handler. */
static void sigwatch_changed(int sig)
{
	if ((sig == SIGSEGV || sig == SIGBUS) && !sigwatch_quiet)
		__atomic_fetch_add(&mock_sigwatch_seq, 1, __ATOMIC_RELEASE);
}

static int watch_action(sigwatch_action_fn *fn, int sig, const struct sigaction *act,
			struct sigaction *old)
{
	int ret;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	ret = fn(sig, act, old);
	if (act)
		sigwatch_changed(sig);
	return ret;
}

static sighandler_t watch_handler(sigwatch_handler_fn *fn, int sig, sighandler_t handler)
{
	sighandler_t ret;

	if (!fn) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	ret = fn(sig, handler);
	sigwatch_changed(sig);
	return ret;
}

/*
 * Each wrapper is watch_NAME, exported as NAME by an alias, so that the
 * address of watch_NAME is ours whatever the global scope binds NAME to.
 */
#define SIGWATCH_ALIAS(name) \
	extern __typeof__(watch_##name) name \
		__attribute__((alias("watch_" #name), visibility("default")))

#define SIGWATCH_ACTION(name) \
	static int watch_##name(int sig, const struct sigaction *act, struct sigaction *old) \
	{ \
		return watch_action(next_get()->name, sig, act, old); \
	} \
	SIGWATCH_ALIAS(name);

#define SIGWATCH_HANDLER(name) \
	static sighandler_t watch_##name(int sig, sighandler_t handler) \
	{ \
		return watch_handler(next_get()->name, sig, handler); \
	} \
	SIGWATCH_ALIAS(name);

SIGWATCH_FUNCTIONS(SIGWATCH_ACTION, SIGWATCH_HANDLER)

static bool sigwatch_sees_all;
static pthread_once_t sees_once = PTHREAD_ONCE_INIT;

#define SIGWATCH_OURS(name) { #name, (void *)watch_##name },

/* Does every name resolve, in the global scope, to our wrapper? */
static void sees_check(void)
{
	static const struct {
		const char *name;
		void *ours;
	} names[] = { SIGWATCH_FUNCTIONS(SIGWATCH_OURS, SIGWATCH_OURS) };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (dlsym(RTLD_DEFAULT, names[i].name) != names[i].ours)
			return;
	sigwatch_sees_all = true;
}

unsigned long mock_sigwatch_snapshot(void)
{
	pthread_once(&sees_once, sees_check);
	if (!sigwatch_sees_all)
		return MOCK_SIGWATCH_BLIND;
	return __atomic_load_n(&mock_sigwatch_seq, __ATOMIC_ACQUIRE);
}

#endif /* the wrappers */

MOCK_EXPORT bool mock_sigwatch_blind(void)
{
	return mock_sigwatch_snapshot() == MOCK_SIGWATCH_BLIND;
}
