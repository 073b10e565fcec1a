/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Shared bits of the mock kernel's own tests. */
#ifndef MOCK_TEST_H
#define MOCK_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <mockdev/host.h>
#include <mockdev/mock.h>

/* Every test starts clean and must end with nothing live and no warning. */
static inline int mock_test_setup(void **state)
{
	(void)state;
	mock_fail_reset();
	mock_log_clear();
	return 0;
}

static inline int mock_test_teardown(void **state)
{
	(void)state;
	mock_fail_reset();
	assert_int_equal(mock_live_objects(), 0);
	assert_int_equal(mock_log_warnings(), 0);
	return 0;
}

#define MOCK_TEST(f) \
	cmocka_unit_test_setup_teardown(f, mock_test_setup, mock_test_teardown)

#endif /* MOCK_TEST_H */
