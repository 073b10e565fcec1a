/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_POISON_H
#define MOCK_LINUX_POISON_H

/* Non-canonical on x86-64: any dereference faults at once. */
#define POISON_POINTER_DELTA	0xdead000000000000UL
#define LIST_POISON1		((void *)(0x100 + POISON_POINTER_DELTA))
#define LIST_POISON2		((void *)(0x122 + POISON_POINTER_DELTA))

#endif /* MOCK_LINUX_POISON_H */
