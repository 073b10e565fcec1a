/* SPDX-License-Identifier: MIT */
/*
 * The log lines and checks of the single-process samples, in the style of
 * CANN samples' utils.h: INFO_LOG and ERROR_LOG print "[INFO]  " and
 * "[ERROR] " lines; CHECK_ACL and CHECK report a failed call (with the
 * runtime's message) or condition and jump to the function's `out:` label,
 * where it unwinds.
 */
#ifndef SAMPLES_COMMON_SAMPLE_LOG_H
#define SAMPLES_COMMON_SAMPLE_LOG_H

#include <stdio.h>

#include "acl/acl.h"

#define INFO_LOG(fmt, ...) fprintf(stdout, "[INFO]  " fmt "\n", ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) fprintf(stderr, "[ERROR] " fmt "\n", ##__VA_ARGS__)

/* On failure: report the call, its code and the runtime's message, then unwind. */
#define CHECK_ACL(expr)                                                          \
	do {                                                                     \
		aclError ret_ = (expr);                                          \
		if (ret_ != ACL_SUCCESS) {                                       \
			const char *msg_ = aclGetRecentErrMsg();                 \
			ERROR_LOG("%s failed, error code %d: %s", #expr, (int)ret_, \
				  msg_ ? msg_ : "(no message)");                 \
			goto out;                                                \
		}                                                                \
	} while (0)

#define CHECK(cond, fmt, ...)                            \
	do {                                             \
		if (!(cond)) {                           \
			ERROR_LOG(fmt, ##__VA_ARGS__);   \
			goto out;                        \
		}                                        \
	} while (0)

#endif /* SAMPLES_COMMON_SAMPLE_LOG_H */
