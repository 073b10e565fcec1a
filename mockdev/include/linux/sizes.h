/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_SIZES_H
#define MOCK_LINUX_SIZES_H

#include <linux/const.h>

#define SZ_4K		0x00001000
#define SZ_64K		0x00010000
#define SZ_1M		0x00100000
#define SZ_2M		0x00200000
#define SZ_8M		0x00800000
#define SZ_1G		0x40000000

#endif /* MOCK_LINUX_SIZES_H */
