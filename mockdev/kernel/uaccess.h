/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The relay window of mockdev_file_ioctl_relayed (uaccess.c, fs.c). */
#ifndef MOCKDEV_KERNEL_UACCESS_H
#define MOCKDEV_KERNEL_UACCESS_H

#include <stddef.h>

/* While pushed, user addresses [uarg, uarg + size) are buf. */
struct mock_relay {
	unsigned long uarg;
	size_t size;
	void *buf;
	struct mock_relay *prev;	/* relays nest per thread */
};

void mock_relay_push(struct mock_relay *r, unsigned long uarg, size_t size,
		     void *buf);
void mock_relay_pop(struct mock_relay *r);

#endif /* MOCKDEV_KERNEL_UACCESS_H */
