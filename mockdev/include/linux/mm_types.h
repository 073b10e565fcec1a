/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_MM_TYPES_H
#define MOCK_LINUX_MM_TYPES_H

#include <linux/mm.h>

#endif /* MOCK_LINUX_MM_TYPES_H */
