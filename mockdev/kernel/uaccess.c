// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: copies between the "kernel" (the mock's own memory) and
 * user memory, which is current->mm. Each passes the gates a test closed
 * (gate.c) and failure injection, then goes through the relay window of a
 * restricted ioctl where it meets it (relay.c), else to current's mm
 * (user_mm.c): this process's memory under the fault guard
 * (fault_guard.c), or an npud client's.
 */
#include <string.h>

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "uaccess.h"

unsigned long mock_copy_from_user(void *to, const void __user *from,
				  unsigned long n)
{
	size_t left;

	mock_gate_pass((unsigned long)from, n);
	if (mock_inject_copy_from_user_failure())
		left = n;
	else
		left = mock_relay_copy(to, (unsigned long)from, n, false);
	/* The kernel zero-fills what it could not read. */
	if (left)
		memset((char *)to + (n - left), 0, left);
	return left;
}

unsigned long mock_copy_to_user(void __user *to, const void *from,
				unsigned long n)
{
	mock_gate_pass((unsigned long)to, n);
	if (mock_inject_copy_to_user_failure())
		return n;
	return mock_relay_copy((void *)from, (unsigned long)to, n, true);
}

unsigned long mock_clear_user(void __user *to, unsigned long n)
{
	static const char zeros[4096];
	struct mm_struct *mm = current->mm;
	unsigned long addr = (unsigned long)to, done = 0;

	if (mock_inject_copy_to_user_failure())
		return n;
	if (!n)
		return 0;
	if (mock_relay_active() || !mm || mm->kind == MOCK_MM_REMOTE) {
		while (done < n) {
			size_t chunk = min_t(size_t, n - done, sizeof(zeros));
			size_t left = mock_relay_copy((void *)zeros, addr + done,
						      chunk, true);

			done += chunk - left;
			if (left)
				break;
		}
		return n - done;
	}
	if (!access_ok(to, n))
		return n;
	return mock_guarded_clear(to, n);
}
