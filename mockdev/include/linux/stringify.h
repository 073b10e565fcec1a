/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_STRINGIFY_H
#define MOCK_LINUX_STRINGIFY_H

#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)

#endif /* MOCK_LINUX_STRINGIFY_H */
