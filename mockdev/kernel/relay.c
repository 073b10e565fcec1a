// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: the relay window of a CUSE/FUSE restricted ioctl, the
 * argument bytes that the kernel already copied for us
 * (mockdev_file_ioctl_relayed): while it is pushed, user copies that meet
 * the argument's range copy from and to those bytes instead.
 */
#include <linux/kernel.h>

#include "uaccess.h"

static __thread struct mock_relay *relay
	__attribute__((tls_model("initial-exec")));

void mock_relay_push(struct mock_relay *r, unsigned long uarg, size_t size,
		     void *buf)
{
	r->uarg = uarg;
	r->size = size;
	r->buf = buf;
	r->prev = relay;
	relay = r;
}

void mock_relay_pop(struct mock_relay *r)
{
	relay = r->prev;
}

bool mock_relay_active(void)
{
	return relay != NULL;
}

/*
 * Split [addr, addr + n) into the part before the window, the part inside
 * and the part after, and run each through the right path, in order,
 * stopping at the first failure. Returns the bytes not copied.
 */
size_t mock_relay_copy(void *kbuf, unsigned long addr, size_t n, bool write)
{
	struct mock_relay *r = relay;
	unsigned long end = addr + n;
	unsigned long wlo, whi, cut[4];
	size_t done = 0;
	int i;

	if (!r || !r->size || end <= r->uarg || addr >= r->uarg + r->size ||
	    end < addr) {
		return write ? mock_user_write(addr, kbuf, n) :
			       mock_user_read(kbuf, addr, n);
	}
	wlo = max(addr, r->uarg);
	whi = min(end, r->uarg + r->size);
	cut[0] = addr;
	cut[1] = wlo;
	cut[2] = whi;
	cut[3] = end;
	for (i = 0; i < 3; i++) {
		size_t len = cut[i + 1] - cut[i];
		char *k = (char *)kbuf + (cut[i] - addr);
		size_t left;

		if (!len)
			continue;
		if (i == 1) {
			char *w = (char *)r->buf + (cut[i] - r->uarg);

			__builtin_memcpy(write ? w : k, write ? k : w, len);
			left = 0;
		} else {
			left = write ? mock_user_write(cut[i], k, len) :
				       mock_user_read(k, cut[i], len);
		}
		done += len - left;
		if (left)
			break;
	}
	return n - done;
}
