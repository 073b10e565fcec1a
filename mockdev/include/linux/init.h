/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_INIT_H
#define MOCK_LINUX_INIT_H

#include <linux/compiler_types.h>

/* No init sections in userspace: the code stays. */
#define __init		__cold
#define __exit		__cold

#endif /* MOCK_LINUX_INIT_H */
