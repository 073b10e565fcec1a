// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: the user side of a copy, in the address space of current:
 *
 *  - local mm (the process itself): through the fault guard
 *    (fault_guard.c);
 *  - remote mm (an npud client): the client's address space as it was
 *    bound when the mm was made (mm_remote.c), with its protections.
 */
#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "uaccess.h"

/*
 * Remote process memory: through the files that bind the client's address
 * space (mm_remote.c), never through its pid.
 */
static size_t remote_rw(const struct mm_struct *mm, void *local,
			unsigned long remote, size_t n, bool write)
{
	return mock_mm_remote_rw(mm, local, remote, n, write);
}

/* The user-memory side, with the mm of the calling context. */

size_t mock_user_read(void *to, unsigned long from, size_t n)
{
	struct mm_struct *mm = current->mm;

	if (!n)
		return 0;
	if (!access_ok((const void __user *)from, n))
		return n;
	if (!mm) {
		WARN_ONCE(1, "copy_from_user by %s without an mm\n",
			  current->comm);
		return n;
	}
	if (mm->kind == MOCK_MM_REMOTE)
		return remote_rw(mm, to, from, n, false);
	return mock_guarded_copy(to, (const void *)from, n, from, from + n);
}

size_t mock_user_write(unsigned long to, const void *from, size_t n)
{
	struct mm_struct *mm = current->mm;

	if (!n)
		return 0;
	if (!access_ok((void __user *)to, n))
		return n;
	if (!mm) {
		WARN_ONCE(1, "copy_to_user by %s without an mm\n",
			  current->comm);
		return n;
	}
	if (mm->kind == MOCK_MM_REMOTE)
		return remote_rw(mm, (void *)from, to, n, true);
	return mock_guarded_copy((void *)to, from, n, to, to + n);
}
