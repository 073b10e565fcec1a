// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npud's sandbox: a root daemon that serves untrusted clients keeps only
 * what it uses (docs/security.md, "What npud keeps: privileges").
 *
 * Capabilities. npud keeps
 *  - CAP_SYS_PTRACE: it reaches a client only as far as the kernel's ptrace
 *    checks allow (/proc/PID/mem and /proc/PID/maps, pidfd_getfd, the
 *    links in /proc/PID/fd), and a client of another uid, or a root client
 *    whose capabilities are not a subset of npud's, passes them only with
 *    this capability;
 *  - CAP_DAC_OVERRIDE: those files belong to the client's uid, /proc/PID/mem
 *    with mode 0600 (npud opens it read-write, mockdev/kernel/mm_remote.c)
 *    and /proc/PID/fd with 0500 (listed, gup.c); for a client of another
 *    uid only this capability passes their permission check
 *    (CAP_DAC_READ_SEARCH would pass the listing but not the write);
 *  - CAP_SYS_ADMIN, with --fuse only, and only when npud mounts DIR itself:
 *    the unmount at shutdown (libfuse's fuse_session_unmount calls umount2
 *    when npud runs as root), and the removal of a stale mount and the
 *    mount itself at start. An npud that serves a connection its service
 *    manager mounted (npud_fdstore.c) keeps neither it nor umount2.
 * Every other capability leaves the effective, permitted, inheritable and
 * bounding sets, and the ambient set is cleared. npud keeps what it was
 * given of these three and no more: started without one, it runs without.
 *
 * Capabilities belong to a thread, not to the process: a thread starts
 * with its creator's, and a later capset() changes only the caller. So
 * npud drops them in main() before it loads the driver, while it has no
 * other thread (the driver starts its engine kthreads at load, the mock
 * kernel its mm reaper at the first open, libfuse its workers in the
 * session loop), and every thread after inherits the reduced sets. Nothing
 * in setup needs more: the mount keeps CAP_SYS_ADMIN, and /dev/cuse is a
 * root-owned node that npud's uid 0 opens without any capability.
 *
 * no_new_privs and seccomp. Once the sessions are set up (mounted, or
 * /dev/cuse attached) and before they serve, npud sets no_new_privs and
 * loads an allow-list of the system calls it makes, with
 * SECCOMP_FILTER_FLAG_TSYNC: the threads already running (the engine
 * kthreads) get the filter and no_new_privs at once, the ones created
 * later inherit both.
 *
 * A call outside the list fails with EPERM rather than killing npud: npud
 * holds every client's device state, and every system call it makes is
 * checked for failure, so a rare path that was missed fails one request
 * instead of all clients' work. So that the missing entry is found, the
 * first refusal of each call is logged: the filter traps (SIGSYS), and the
 * handler logs and makes the call return -EPERM. On a CPU where npud does
 * not know the register that carries the return value, the filter fails
 * the call with EPERM itself, unlogged.
 *
 * --no-sandbox skips all of this, for debugging.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <linux/capability.h>
#include <seccomp.h>

#include "npud.h"

/* The capabilities npud keeps (see above). */
#define NPUD_CAPS_ALWAYS	(1ULL << CAP_SYS_PTRACE | 1ULL << CAP_DAC_OVERRIDE)
#define NPUD_CAPS_FUSE		(1ULL << CAP_SYS_ADMIN)

/*
 * The system calls npud makes after setup: its own code, the mock kernel,
 * glibc (threads, malloc, stdio, time) and libfuse's session loop. Names
 * that an architecture lacks (open, stat, ...) are skipped there.
 */
static const char *const npud_syscalls[] = {
	/* files: /proc of clients and of npud itself, the session's /dev/fuse */
	"read", "readv", "pread64", "write", "writev", "pwrite64",
	"open", "openat", "close", "lseek", "fcntl", "dup", "dup3",
	"fstat", "newfstatat", "stat", "lstat", "statx", "getdents64",
	"readlink", "readlinkat", "access", "faccessat", "faccessat2",
	"splice", "pipe2",
	"poll", "ppoll", "eventfd2",
	/* memory: malloc, thread stacks, the driver's HBM and pinned client files */
	"brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore",
	/* threads and waits */
	"clone", "clone3", "set_robust_list", "rseq", "futex", "futex_waitv", "exit", "exit_group",
	"sched_yield", "sched_getaffinity", "getrlimit", "prlimit64",
	"nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres",
	"gettimeofday", "time",
	/* signals: the shutdown, SIGUSR1 to a session thread, the uaccess fault guard */
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigtimedwait",
	"sigaltstack", "restart_syscall",
	/* identity */
	"getpid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	/* clients: their files (mockdev/kernel/gup.c); their memory is pread/pwrite of mm_remote.c's files */
	"pidfd_open", "pidfd_getfd",
	/* sd_notify (AF_UNIX only, below) */
	"sendto",
	/* randomness for glibc's malloc */
	"getrandom",
};

/* The ioctl of /proc/PID/maps that mockdev/kernel/mm_remote.c makes (Linux 6.11). */
#define NPUD_PROCMAP_QUERY	_IOC(_IOC_READ | _IOC_WRITE, 'f', 17, 104)

/* Only with --fuse, when npud mounted DIR itself: the unmount at shutdown. */
static const char *const npud_syscalls_fuse[] = { "umount2" };

/* Only with --cuse: --mode, after the sessions start (the nodes appear then). */
static const char *const npud_syscalls_cuse[] = { "chmod", "fchmodat" };

/*
 * What the sanitizers' runtimes do besides (these builds are for tests):
 * LeakSanitizer stops the world with a ptrace tracer at exit, and a report
 * is symbolized by an external program.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NPUD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NPUD_SANITIZED 1
#endif
#endif
#ifdef NPUD_SANITIZED
static const bool npud_sanitized = true;
#else
static const bool npud_sanitized;
#endif
static const char *const npud_syscalls_sanitizer[] = {
	"ptrace", "wait4", "waitid", "prctl", "getppid", "tkill", "getdents",
	"sched_getparam", "sched_getscheduler", "sysinfo", "uname", "pipe",
	"dup2", "fork", "vfork", "execve", "setrlimit", "personality",
	"mkdir", "unlink", "getcwd", "rename",
};

#define NPUD_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The system call numbers already logged as refused. */
#define NPUD_REFUSED_MAX	1024
static unsigned long npud_refused[NPUD_REFUSED_MAX / (8 * sizeof(unsigned long))];

/* Signal-safe: no stdio in the SIGSYS handler. */
static void npud_sandbox_log_refused(int nr)
{
	static const char head[] = "npud: the sandbox refused system call ";
	static const char tail[] = " (it failed with EPERM); if npud misbehaves, "
				   "try --no-sandbox and report this line\n";
	char num[16];
	unsigned int v = (unsigned int)nr, i = sizeof(num);
	ssize_t ignored;

	do {
		num[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i);
	ignored = write(STDERR_FILENO, head, sizeof(head) - 1);
	ignored = write(STDERR_FILENO, num + i, sizeof(num) - i);
	ignored = write(STDERR_FILENO, tail, sizeof(tail) - 1);
	(void)ignored;
}

#if defined(__x86_64__) || defined(__aarch64__)
#define NPUD_TRAP_RETURNS 1

static void npud_sandbox_sigsys(int sig, siginfo_t *info, void *ctx)
{
	ucontext_t *uc = ctx;
	unsigned long bit, *word;
	int nr = info->si_syscall;

	(void)sig;
	if (nr >= 0 && nr < NPUD_REFUSED_MAX) {
		word = &npud_refused[nr / (8 * sizeof(unsigned long))];
		bit = 1UL << (nr % (8 * sizeof(unsigned long)));
		if (!(__atomic_fetch_or(word, bit, __ATOMIC_RELAXED) & bit))
			npud_sandbox_log_refused(nr);
	}
	/* The trapped call returns to the instruction after it with -EPERM. */
#ifdef __x86_64__
	uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#else
	uc->uc_mcontext.regs[0] = (unsigned long long)-EPERM;
#endif
}

static int npud_sandbox_trap_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = npud_sandbox_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGSYS, &sa, NULL) ? -errno : 0;
}
#else
#define NPUD_TRAP_RETURNS 0

static int npud_sandbox_trap_init(void)
{
	return 0;
}
#endif

/**
 * npud_sandbox_caps() - keep only the capabilities npud uses
 * @opts: parsed options
 *
 * Call while npud has no other thread: capabilities are per thread, and
 * the threads created later inherit the caller's. Does nothing with
 * --no-sandbox.
 *
 * Return: 0 or -errno.
 */
int npud_sandbox_caps(const struct npud_options *opts)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint64_t keep = NPUD_CAPS_ALWAYS, have;
	bool bounded = true;
	int cap;

	if (opts->no_sandbox)
		return 0;
	if (!opts->cuse && opts->fuse_fd < 0)
		keep |= NPUD_CAPS_FUSE;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	have = data[0].permitted | (uint64_t)data[1].permitted << 32;
	keep &= have;

	/*
	 * The bounding set first: that takes CAP_SETPCAP, which capset drops.
	 * Only what is there is dropped, so that under a service manager that
	 * already bounds npud (packaging/systemd) no call is needed at all.
	 */
	for (cap = 0; cap < 64; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (in < 0)
			break;		/* past the kernel's last capability */
		if (!in || keep & 1ULL << cap)
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			/* Not root: nothing to drop there, and no_new_privs covers exec. */
			if (errno != EPERM)
				return -errno;
			bounded = false;
			break;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;

	/* Already so (a bounded service): systemd's filter may refuse capset. */
	if (have != keep || data[0].effective != data[0].permitted ||
	    data[1].effective != data[1].permitted || data[0].inheritable ||
	    data[1].inheritable) {
		memset(data, 0, sizeof(data));
		data[0].effective = data[0].permitted = (uint32_t)keep;
		data[1].effective = data[1].permitted = (uint32_t)(keep >> 32);
		if (syscall(SYS_capset, &hdr, data))
			return -errno;
	}
	npud_log(NPUD_LOG_DEBUG, "npud: capabilities kept: %#llx%s\n",
		 (unsigned long long)keep,
		 bounded ? "" : " (bounding set unchanged: no CAP_SETPCAP)");
	return 0;
}

static int npud_sandbox_allow(scmp_filter_ctx ctx, const char *const *names,
			      size_t count)
{
	size_t i;
	int nr, ret;

	for (i = 0; i < count; i++) {
		nr = seccomp_syscall_resolve_name(names[i]);
		if (nr == __NR_SCMP_ERROR || nr < 0)
			continue;	/* not a call of this architecture */
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (ret) {
			npud_log(NPUD_LOG_ERROR, "npud: sandbox: cannot allow %s: %s\n",
				 names[i], strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/**
 * npud_sandbox_filter() - set no_new_privs and load npud's seccomp filter
 * @opts: parsed options
 *
 * Call after setup (the mounts, /dev/cuse) and before the sessions serve;
 * the filter applies to every thread of npud, present and future. Does
 * nothing with --no-sandbox.
 *
 * Return: 0 or -errno.
 */
int npud_sandbox_filter(const struct npud_options *opts)
{
	/*
	 * A trap in a thread that blocks SIGSYS kills the process instead; the
	 * sanitizers' runtimes run such threads (LeakSanitizer's tracer at
	 * exit), so their builds get the plain EPERM.
	 */
	uint32_t deny = NPUD_TRAP_RETURNS && !npud_sanitized ? SCMP_ACT_TRAP :
							       SCMP_ACT_ERRNO(EPERM);
	scmp_filter_ctx ctx;
	int ret;

	if (opts->no_sandbox) {
		npud_log(NPUD_LOG_WARNING, "npud: --no-sandbox: running with all of root's "
					   "capabilities and no system call filter\n");
		return 0;
	}
	ret = npud_sandbox_trap_init();
	if (ret)
		return ret;
	ctx = seccomp_init(deny);
	if (!ctx)
		return -ENOMEM;
	/* no_new_privs with the filter, on every thread (TSYNC). */
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	if (!ret)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!ret)
		ret = npud_sandbox_allow(ctx, npud_syscalls, NPUD_ARRAY_SIZE(npud_syscalls));
	if (!ret && opts->cuse)
		ret = npud_sandbox_allow(ctx, npud_syscalls_cuse,
					 NPUD_ARRAY_SIZE(npud_syscalls_cuse));
	if (!ret && !opts->cuse && opts->fuse_fd < 0)
		ret = npud_sandbox_allow(ctx, npud_syscalls_fuse,
					 NPUD_ARRAY_SIZE(npud_syscalls_fuse));
	if (!ret && npud_sanitized)
		ret = npud_sandbox_allow(ctx, npud_syscalls_sanitizer,
					 NPUD_ARRAY_SIZE(npud_syscalls_sanitizer));
	/* ioctl: PROCMAP_QUERY on a client's maps file, and stdio's tty check. */
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, NPUD_PROCMAP_QUERY));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, TCGETS));
	/*
	 * Signals: tgkill only within npud (SIGUSR1 to a session thread,
	 * abort), kill only as the probe whether a pid exists (signal 0,
	 * mockdev/kernel/pid.c).
	 */
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
				       SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1,
				       SCMP_A1(SCMP_CMP_EQ, 0));
	/* sd_notify's datagram is npud's only socket. */
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				       SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	if (ret)
		return ret < 0 ? ret : -EPERM;	/* TSYNC: a thread that would not sync */
	npud_log(NPUD_LOG_DEBUG, "npud: no_new_privs set, system call filter loaded\n");
	return 0;
}
