/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What both fuzz harnesses check after every input: the mock kernel's leak
 * counters, the driver's debugfs "counters" of every device and the WARN
 * count are back where they were before it. Anything else aborts, which
 * libFuzzer reports as a crash.
 */
#ifndef NPU_FUZZ_CHECK_H
#define NPU_FUZZ_CHECK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <mockdev/mock.h>

struct fz_base {
	const char *who; /* the harness, for messages */
	unsigned int devices;
	struct mock_counters counters;
	long chunks; /* HBM chunks of all devices, populated or not */
	unsigned long warns;
};

/* The payload of one op: reads past its end give zeros. */
struct fz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t in_u8(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline void in_bytes(struct fz_in *in, void *out, size_t len)
{
	size_t k = len < in->n ? len : in->n;

	memcpy(out, in->p, k);
	memset((uint8_t *)out + k, 0, len - k);
	in->p += k;
	in->n -= k;
}

static inline uint16_t in_u16(struct fz_in *in)
{
	uint16_t v;

	in_bytes(in, &v, sizeof(v));
	return v;
}

static inline uint32_t in_u32(struct fz_in *in)
{
	uint32_t v;

	in_bytes(in, &v, sizeof(v));
	return v;
}

static inline uint64_t in_u64(struct fz_in *in)
{
	uint64_t v;

	in_bytes(in, &v, sizeof(v));
	return v;
}

/*
 * The driver's debugfs "counters" of every device: the first non-zero one
 * (all are 0 with no file open), or NULL.
 */
static inline const char *fz_driver_counters_busy(unsigned int devices)
{
	char path[64], buf[512], *line, *save;
	unsigned int d;

	for (d = 0; d < devices; d++) {
		snprintf(path, sizeof(path), "npu/npu%u/counters", d);
		if (mock_debugfs_read(path, buf, sizeof(buf)) < 0)
			return "debugfs counters unreadable";
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *v = strrchr(line, ' ');

			if (v && strtol(v + 1, NULL, 10) != 0) {
				static char what[128];

				snprintf(what, sizeof(what), "driver npu%u: %s",
					 d, line);
				return what;
			}
		}
	}
	return NULL;
}

/* Sum of "chunks N" in the devices' debugfs "hbm" files. */
static inline long fz_hbm_chunks(unsigned int devices)
{
	char path[64], buf[512], *p;
	long sum = 0;
	unsigned int d;

	for (d = 0; d < devices; d++) {
		snprintf(path, sizeof(path), "npu/npu%u/hbm", d);
		if (mock_debugfs_read(path, buf, sizeof(buf)) < 0)
			abort();
		p = strstr(buf, "chunks ");
		if (!p)
			abort();
		sum += strtol(p + strlen("chunks "), NULL, 10);
	}
	return sum;
}

/* Take the baseline: with every file closed, after a warm-up. */
static inline void fz_base_take(struct fz_base *b, const char *who,
				unsigned int devices)
{
	b->who = who;
	b->devices = devices;
	mock_counters_get(&b->counters);
	b->chunks = fz_hbm_chunks(devices);
	b->warns = mock_warn_count();
}

/* Whether everything is back as it was before the input; why not in *why. */
static inline bool fz_clean(const struct fz_base *b, const char **why)
{
	const struct mock_counters *base = &b->counters;
	struct mock_counters c;

	mock_counters_get(&c);
	*why = NULL;
	if (c.kmalloc != base->kmalloc)
		*why = "kmalloc";
	/* HBM backing chunks (vzalloc) stay until unload: only those may add.
	 */
	else if (c.vmalloc < base->vmalloc ||
		 c.vmalloc > base->vmalloc + b->chunks)
		*why = "vmalloc";
	else if (c.pages != base->pages)
		*why = "pages";
	else if (c.pinned_pages != base->pinned_pages)
		*why = "pinned_pages";
	else if (c.vmaps != base->vmaps)
		*why = "vmaps";
	else if (c.kthreads != base->kthreads)
		*why = "kthreads";
	else if (c.tasks != base->tasks)
		*why = "tasks";
	else if (c.files != base->files)
		*why = "files";
	else
		*why = fz_driver_counters_busy(b->devices);
	return !*why;
}

static inline void fz_check_clean(const struct fz_base *b)
{
	const struct mock_counters *base = &b->counters;
	const char *why;
	int i;

	/*
	 * Release is synchronous, but the engines drop their last references
	 * a moment later, and a dead opener's context is torn down by the
	 * mock's mm reaper thread: allow them time.
	 */
	for (i = 0; i < 20000 && !fz_clean(b, &why); i++)
		usleep(100);
	if (why) {
		struct mock_counters c;

		mock_counters_get(&c);
		fprintf(stderr,
			"%s: leak after the input: %s (kmalloc %ld/%ld vmalloc %ld/%ld "
			"pages %ld/%ld pinned %ld/%ld vmaps %ld/%ld kthreads %ld/%ld tasks %ld/%ld "
			"files %ld/%ld)\n",
			b->who, why, c.kmalloc, base->kmalloc, c.vmalloc,
			base->vmalloc, c.pages, base->pages, c.pinned_pages,
			base->pinned_pages, c.vmaps, base->vmaps, c.kthreads,
			base->kthreads, c.tasks, base->tasks, c.files,
			base->files);
		abort();
	}
	if (mock_warn_count() != b->warns) {
		fprintf(stderr, "%s: the driver WARNed (above)\n", b->who);
		abort();
	}
}

/*
 * The zygote: a process forked at start-up, before any thread exists,
 * that forks the harness's child processes on request (one byte on @req,
 * the child's pid back on @resp), since forking the fuzzer itself costs
 * tens of milliseconds. Each child runs @child. It dies with the harness.
 */
static inline void __attribute__((noreturn))
fuzz_zygote_main(int req, int resp, pid_t parent, void (*child)(void))
{
	struct sigaction sa;
	sigset_t set;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	/*
	 * Blocked here, so that its children have it blocked from their
	 * first instruction: a SIGUSR1 that came before they blocked it
	 * themselves would kill them rather than make them exec.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* Its children are reaped by the kernel: none is left a zombie. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGCHLD, &sa, NULL);
	while (read(req, &c, 1) == 1) {
		pid_t pid = fork();

		if (pid == 0) {
			close(req);
			close(resp);
			child();
			_exit(0);
		}
		if (write(resp, &pid, sizeof(pid)) != sizeof(pid))
			break;
	}
	_exit(0);
}

#endif /* NPU_FUZZ_CHECK_H */
