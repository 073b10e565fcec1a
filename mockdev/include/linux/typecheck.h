/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_TYPECHECK_H
#define MOCK_LINUX_TYPECHECK_H

/* Warns ("comparison of distinct pointer types") when x is not of type. */
#define typecheck(type, x) ({			\
	type __dummy;				\
	typeof(x) __dummy2;			\
	(void)(&__dummy == &__dummy2);		\
	1;					\
})

#endif /* MOCK_LINUX_TYPECHECK_H */
