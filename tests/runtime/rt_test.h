/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the runtime tests (cmocka).
 */
#ifndef NPU_TESTS_RUNTIME_RT_TEST_H
#define NPU_TESTS_RUNTIME_RT_TEST_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <time.h>
#include <cmocka.h>

#include "acl/acl.h"

/* An ACL call that must succeed; on failure the message says why. */
#define ACL_OK(expr)                                                            \
	do {                                                                    \
		aclError acl_ok_rc_ = (expr);                                   \
		if (acl_ok_rc_ != ACL_SUCCESS) {                                \
			const char *m_ = aclGetRecentErrMsg();                  \
			fail_msg("%s = %d (%s)", #expr, acl_ok_rc_, m_ ? m_ : "no message"); \
		}                                                               \
	} while (0)

/* An ACL call that must fail with code, and leave a message saying why. */
#define EXPECT_FAIL(expr, code)                                                 \
	do {                                                                    \
		assert_int_equal((expr), (code));                               \
		assert_non_null(aclGetRecentErrMsg());                          \
	} while (0)

/* CLOCK_MONOTONIC in milliseconds, for the watchdogs of tests that could hang. */
static inline uint64_t rt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Group setup and teardown of the tests that need just device 0. */
static inline int rt_setup_device0(void **state)
{
	(void)state;
	return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static inline int rt_teardown_device0(void **state)
{
	(void)state;
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

/* Deterministic bytes that differ for every offset and seed. */
static inline void rt_fill_pattern(void *buf, size_t n, uint32_t seed)
{
	uint8_t *p = (uint8_t *)buf;
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* Index of the first byte of buf that is not value, or n if all are. */
static inline size_t rt_first_not(const void *buf, size_t n, uint8_t value)
{
	const uint8_t *p = (const uint8_t *)buf;

	for (size_t i = 0; i < n; i++)
		if (p[i] != value)
			return i;
	return n;
}

/* Runs fn(arg) in a new thread (which has no current context) and waits. */
static inline void rt_run_in_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* Number of visible devices. */
static inline uint32_t rt_device_count(void)
{
	uint32_t n = 0;

	ACL_OK(aclrtGetDeviceCount(&n));
	return n;
}

#endif /* NPU_TESTS_RUNTIME_RT_TEST_H */
