/* SPDX-License-Identifier: MIT */
/*
 * For system tests whose child processes use the ACL API (test_share,
 * test_tenancy): a child's check that exits with the line number, and the
 * start of such a child.
 */
#ifndef NPU_SYS_ACL_H
#define NPU_SYS_ACL_H

#include <stdio.h>
#include <unistd.h>

#include "acl/acl.h"

#include "npu_sys.h"

/* A child's check: on failure print where and exit with the line number. */
#define CK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s failed (%s)\n", __FILE__,	\
				__LINE__, #cond, aclGetRecentErrMsg() ?: "");	\
			_exit(__LINE__ % 250 + 1);			\
		}							\
	} while (0)
#define CK_CODE(call, code) CK((call) == (code))

/* A child starts: ACL up, the watched device set. */
static inline void sys_actor_init(void)
{
	CK_CODE(aclInit(NULL), ACL_SUCCESS);
	CK_CODE(aclrtSetDevice(SYS_DEVICE), ACL_SUCCESS);
}

#endif /* NPU_SYS_ACL_H */
