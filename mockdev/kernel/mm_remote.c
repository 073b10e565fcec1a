// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: the address space of another process (an npud client).
 *
 * The kernel binds a driver's file to the opener's mm, not to its pid: an
 * exec gives the process a new mm, and the old one ends (->release of its
 * mmu notifiers) although the pid lives on. npud runs as root, so an
 * access it made through the pid (process_vm_readv/writev) after an exec
 * would reach the new image with root's rights: a setuid program would
 * become a read/write primitive for whoever queued the copy.
 *
 * So a remote mm holds two files of the host's procfs opened when the mm
 * was made, while the opener waits for npud in its open request (a thread
 * whose FUSE request was read by the daemon waits uninterruptibly, so its
 * process cannot finish an exec meanwhile):
 *
 *  - /proc/PID/mem, for the data: procfs pins the mm at open, and every
 *    later read or write goes to that mm, or fails once it has ended.
 *  - /proc/PID/maps, for the protections: mem bypasses them (FOLL_FORCE),
 *    which would let a copy read a PROT_NONE page or write a read-only
 *    one that copy_to_user() would fault on. Each access asks first
 *    whether the mapping allows it: the PROCMAP_QUERY ioctl where the host
 *    has it (Linux 6.11), else the text of the same, equally bound, file.
 *
 * An mm is alive while a read of its mem file can still reach it: a read
 * of address 0 (never mapped) fails with EIO while it lives and returns 0
 * once it has ended. That is how an exec is told apart from a live
 * process: the reaper (mmu_notifier.c) and npud's check of each call ask.
 *
 * A client may change its own mappings between our check and our access,
 * as it may race a real kernel's copy: either outcome is its own doing.
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/errno.h>

#include "internal.h"

/* The PROCMAP_QUERY ioctl of /proc/PID/maps (Linux 6.11 uapi, linux/fs.h). */
struct mock_procmap_query {
	__u64 size;
	__u64 query_flags;
	__u64 query_addr;
	__u64 vma_start;
	__u64 vma_end;
	__u64 vma_flags;
	__u64 vma_page_size;
	__u64 vma_offset;
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 vma_name_size;
	__u32 build_id_size;
	__u64 vma_name_addr;
	__u64 build_id_addr;
};

#define MOCK_PROCMAP_QUERY		_IOWR('f', 17, struct mock_procmap_query)
#define MOCK_PROCMAP_VMA_READABLE	0x01
#define MOCK_PROCMAP_VMA_WRITABLE	0x02
#define MOCK_PROCMAP_VMA_SHARED		0x08

static_assert(sizeof(struct mock_procmap_query) == 104, "PROCMAP_QUERY's struct");

/* Cleared for good the first time the host answers ENOTTY. */
static bool procmap_query_works = true;

/* Open /proc/<pid>/<what>, for the mm of pid as it is now. */
static int proc_open(pid_t pid, pid_t tid, const char *what, int flags)
{
	char path[96];

	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid, what);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	return open(path, flags | O_CLOEXEC);
}

static bool mem_fd_alive(int fd)
{
	char c;

	/* Address 0 is never mapped: EIO while the mm lives, 0 once it ended. */
	return fd >= 0 && pread(fd, &c, 1, 0) != 0;
}

/*
 * The mem file of the process, from a thread whose mm is alive: a thread
 * group leader that exited before its threads no longer has one.
 */
static int mem_open_live(pid_t tgid)
{
	struct dirent *de;
	int fd = proc_open(tgid, 0, "mem", O_RDWR);
	char path[64];
	DIR *dir;

	if (mem_fd_alive(fd))
		return fd;
	if (fd >= 0)
		close(fd);
	else if (errno != ENOENT && errno != ESRCH)
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	dir = opendir(path);
	if (!dir)
		return -ESRCH;
	fd = -ESRCH;
	while ((de = readdir(dir))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		int t;

		if (*end || end == de->d_name || tid <= 0 || tid > INT_MAX)
			continue;
		t = proc_open(tgid, (pid_t)tid, "mem", O_RDWR);
		if (mem_fd_alive(t)) {
			fd = t;
			break;
		}
		if (t >= 0)
			close(t);
	}
	closedir(dir);
	return fd;
}

/**
 * mock_mm_remote_bind() - bind @mm to the address space @tgid has now
 * @mm: a new remote mm
 * @tgid: its process
 *
 * Return: 0, or -errno: -ESRCH if the process has no address space (it is
 * exiting), -EACCES/-EPERM if the host refuses us its mem file.
 */
int mock_mm_remote_bind(struct mm_struct *mm, pid_t tgid)
{
	int mem, maps;

	mem = mem_open_live(tgid);
	if (mem < 0)
		return mem == -ENOENT ? -ESRCH : mem;
	maps = proc_open(tgid, 0, "maps", O_RDONLY);
	if (maps < 0) {
		int err = errno;

		close(mem);
		return err == ENOENT ? -ESRCH : -err;
	}
	mm->mem_fd = mem;
	mm->maps_fd = maps;
	/* Both must be of one address space: still the one mem saw? */
	if (!mem_fd_alive(mem)) {
		mock_mm_remote_unbind(mm);
		return -ESRCH;
	}
	return 0;
}

void mock_mm_remote_unbind(struct mm_struct *mm)
{
	if (mm->mem_fd >= 0)
		close(mm->mem_fd);
	if (mm->maps_fd >= 0)
		close(mm->maps_fd);
	mm->mem_fd = -1;
	mm->maps_fd = -1;
}

bool mock_mm_alive(const struct mm_struct *mm)
{
	if (mm->kind != MOCK_MM_REMOTE)
		return true;
	return mem_fd_alive(mm->mem_fd);
}

/*
 * The mapping at addr, from the text of the bound maps file (hosts
 * without PROCMAP_QUERY). O(mappings below addr): only such hosts pay it.
 */
static int maps_text_find(const struct mm_struct *mm, unsigned long addr,
			  struct mock_remote_vma *vma)
{
	char buf[8192];
	size_t have = 0;
	off_t off = 0;

	for (;;) {
		ssize_t n = pread(mm->maps_fd, buf + have, sizeof(buf) - 1 - have, off);
		char *line, *nl;

		if (n < 0)
			return -EFAULT;
		off += n;
		have += (size_t)n;
		buf[have] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n'))) {
			struct mock_remote_vma v;

			*nl = '\0';
			if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu", &v.start, &v.end,
				   v.perms, &v.offset, &v.major, &v.minor, &v.inode) == 7) {
				/* Sorted by address: past addr, nothing covers it. */
				if (v.start > addr)
					return -EFAULT;
				if (addr < v.end) {
					*vma = v;
					return 0;
				}
			}
			line = nl + 1;
		}
		/* Keep a partial last line for the next read. */
		have = strlen(line);
		memmove(buf, line, have);
		if (n == 0 || have >= sizeof(buf) - 1)
			return -EFAULT;
	}
}

/**
 * mock_mm_remote_vma() - the client's mapping that covers @addr
 * @mm: a remote mm
 * @addr: an address in it
 * @vma: its bounds, protections and file
 *
 * Return: 0, or -EFAULT if nothing is mapped there or the address space
 * has ended.
 */
int mock_mm_remote_vma(const struct mm_struct *mm, unsigned long addr,
		       struct mock_remote_vma *vma)
{
	struct mock_procmap_query q;

	if (mm->maps_fd < 0)
		return -EFAULT;
	if (__atomic_load_n(&procmap_query_works, __ATOMIC_RELAXED)) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_addr = addr;
		if (ioctl(mm->maps_fd, MOCK_PROCMAP_QUERY, &q) == 0) {
			vma->start = q.vma_start;
			vma->end = q.vma_end;
			vma->offset = q.vma_offset;
			vma->major = q.dev_major;
			vma->minor = q.dev_minor;
			vma->inode = q.inode;
			vma->perms[0] = q.vma_flags & MOCK_PROCMAP_VMA_READABLE ? 'r' : '-';
			vma->perms[1] = q.vma_flags & MOCK_PROCMAP_VMA_WRITABLE ? 'w' : '-';
			vma->perms[2] = '-';
			vma->perms[3] = q.vma_flags & MOCK_PROCMAP_VMA_SHARED ? 's' : 'p';
			vma->perms[4] = '\0';
			return 0;
		}
		/* Not this host's (qemu-user answers ENOSYS for ioctls it does not know). */
		if (errno != ENOTTY && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -EFAULT;
		__atomic_store_n(&procmap_query_works, false, __ATOMIC_RELAXED);
	}
	return maps_text_find(mm, addr, vma);
}

/**
 * mock_mm_remote_rw() - copy between @local and the client's @remote
 * @mm: the client's (remote) mm
 * @local: our buffer
 * @remote: the client's address
 * @n: bytes
 * @write: true to write the client's memory
 *
 * Mapping by mapping, each checked to allow the access as the client's
 * own loads and stores would need, then copied through the mem file.
 *
 * Return: the bytes not transferred (all of them once the mm has ended).
 */
size_t mock_mm_remote_rw(const struct mm_struct *mm, void *local,
			 unsigned long remote, size_t n, bool write)
{
	size_t done = 0;

	while (done < n) {
		unsigned long addr = remote + done;
		struct mock_remote_vma vma;
		size_t chunk;
		ssize_t got;

		if (mock_mm_remote_vma(mm, addr, &vma) ||
		    vma.perms[write ? 1 : 0] == '-')
			break;
		chunk = min_t(size_t, n - done, vma.end - addr);
		got = write ? pwrite(mm->mem_fd, (const char *)local + done, chunk, (off_t)addr) :
			      pread(mm->mem_fd, (char *)local + done, chunk, (off_t)addr);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	return n - done;
}
