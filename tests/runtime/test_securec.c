// SPDX-License-Identifier: MIT
/*
 * libc_sec.so (securec.h): each function's result on good input, and on
 * every violation its code (EINVAL, ERANGE and the *_AND_RESET codes, or
 * -1 for the formatted-output functions) with the destination left alone
 * or reset as the library documents: the memory functions clear destMax
 * bytes (memset_s fills them), the string functions write '\0' at dest[0].
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "securec.h"

static void test_codes(void **state)
{
	(void)state;
	assert_int_equal(EOK, 0);
	assert_int_equal(EINVAL, 22);
	assert_int_equal(ERANGE, 34);
	assert_int_equal(EINVAL_AND_RESET, 150);
	assert_int_equal(ERANGE_AND_RESET, 162);
	assert_int_equal(EOVERLAP_AND_RESET, 182);
}

static void test_memset_s(void **state)
{
	char b[8];

	(void)state;
	memset(b, 'x', sizeof(b));
	assert_int_equal(memset_s(b, sizeof(b), 'a', 3), EOK);
	assert_memory_equal(b, "aaaxxxxx", 8);
	assert_int_equal(memset_s(b, sizeof(b), 'z', 9), ERANGE_AND_RESET);
	assert_memory_equal(b, "zzzzzzzz", 8);
	assert_int_equal(memset_s(NULL, 8, 0, 1), EINVAL);
	memset(b, 'x', sizeof(b));
	assert_int_equal(memset_s(b, 0, 0, 0), ERANGE);
	assert_int_equal(memset_s(b, SECUREC_MEM_MAX_LEN + 1, 0, 1), ERANGE);
	assert_int_equal(b[0], 'x');
}

static void test_memcpy_s_and_memmove_s(void **state)
{
	char b[8], s[8] = "abcdefg";

	(void)state;
	assert_int_equal(memcpy_s(b, sizeof(b), s, 8), EOK);
	assert_string_equal(b, "abcdefg");
	assert_int_equal(memcpy_s(b, sizeof(b), s, 0), EOK);
	assert_int_equal(memcpy_s(b, 4, s, 5), ERANGE_AND_RESET);
	assert_memory_equal(b, "\0\0\0\0efg", 8);
	memcpy(b, "1234567", 8);
	assert_int_equal(memcpy_s(b, sizeof(b), NULL, 1), EINVAL_AND_RESET);
	assert_memory_equal(b, "\0\0\0\0\0\0\0\0", 8);
	assert_int_equal(memcpy_s(NULL, 8, s, 1), EINVAL);
	assert_int_equal(memcpy_s(b, 0, s, 0), ERANGE);
	memcpy(b, "1234567", 8);
	assert_int_equal(memcpy_s(b + 1, 7, b, 4), EOVERLAP_AND_RESET);
	assert_memory_equal(b, "1\0\0\0\0\0\0\0", 8);
	memcpy(b, "1234567", 8);
	assert_int_equal(memcpy_s(b, 8, b, 8), EOK); /* dest == src */

	memcpy(b, "1234567", 8);
	assert_int_equal(memmove_s(b + 1, 7, b, 4), EOK);
	assert_string_equal(b, "1123467");
	assert_int_equal(memmove_s(b, 2, s, 3), ERANGE_AND_RESET);
	assert_memory_equal(b, "\0\0" "23467", 8);
	assert_int_equal(memmove_s(b, 8, NULL, 1), EINVAL_AND_RESET);
	assert_int_equal(memmove_s(NULL, 8, s, 1), EINVAL);
	assert_int_equal(memmove_s(b, 0, s, 1), ERANGE);
}

static void test_strcpy_s_and_strncpy_s(void **state)
{
	char b[6];

	(void)state;
	assert_int_equal(strcpy_s(b, sizeof(b), "hello"), EOK);
	assert_string_equal(b, "hello");
	assert_int_equal(strcpy_s(b, sizeof(b), "hello!"), ERANGE_AND_RESET);
	assert_string_equal(b, "");
	strcpy(b, "abc");
	assert_int_equal(strcpy_s(b, sizeof(b), NULL), EINVAL_AND_RESET);
	assert_string_equal(b, "");
	assert_int_equal(strcpy_s(NULL, 6, "a"), EINVAL);
	strcpy(b, "abc");
	assert_int_equal(strcpy_s(b, 0, "a"), ERANGE);
	assert_string_equal(b, "abc");
	assert_int_equal(strcpy_s(b + 1, 5, b), EOVERLAP_AND_RESET);
	assert_int_equal(b[1], '\0');

	assert_int_equal(strncpy_s(b, sizeof(b), "abcdefgh", 3), EOK);
	assert_string_equal(b, "abc");
	assert_int_equal(strncpy_s(b, sizeof(b), "xy", 5), EOK);
	assert_string_equal(b, "xy");
	assert_int_equal(strncpy_s(b, sizeof(b), "abcdefgh", 6), ERANGE_AND_RESET);
	assert_string_equal(b, "");
	assert_int_equal(strncpy_s(b, sizeof(b), "abcde", 0), EOK);
	assert_string_equal(b, "");
	assert_int_equal(strncpy_s(b, sizeof(b), NULL, 1), EINVAL_AND_RESET);
	assert_int_equal(strncpy_s(NULL, 6, "a", 1), EINVAL);
}

static void test_strcat_s_and_strncat_s(void **state)
{
	char b[8];

	(void)state;
	strcpy(b, "ab");
	assert_int_equal(strcat_s(b, sizeof(b), "cde"), EOK);
	assert_string_equal(b, "abcde");
	assert_int_equal(strcat_s(b, sizeof(b), "fgh"), ERANGE_AND_RESET);
	assert_string_equal(b, "");
	strcpy(b, "ab");
	assert_int_equal(strcat_s(b, sizeof(b), NULL), EINVAL_AND_RESET);
	assert_string_equal(b, "");
	memset(b, 'x', sizeof(b)); /* not terminated within destMax */
	assert_int_equal(strcat_s(b, sizeof(b), "a"), EINVAL_AND_RESET);
	assert_int_equal(b[0], '\0');
	assert_int_equal(strcat_s(NULL, 8, "a"), EINVAL);
	assert_int_equal(strcat_s(b, 0, "a"), ERANGE);

	strcpy(b, "ab");
	assert_int_equal(strncat_s(b, sizeof(b), "cdefghij", 3), EOK);
	assert_string_equal(b, "abcde");
	assert_int_equal(strncat_s(b, sizeof(b), "fg", 2), EOK);
	assert_string_equal(b, "abcdefg");
	assert_int_equal(strncat_s(b, sizeof(b), "h", 1), ERANGE_AND_RESET);
	assert_string_equal(b, "");
	strcpy(b, "ab");
	assert_int_equal(strncat_s(b, sizeof(b), b, 1), EOVERLAP_AND_RESET);
}

static int call_vsnprintf_s(char *d, size_t m, size_t c, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf_s(d, m, c, f, ap);
	va_end(ap);
	return n;
}

static void test_printf_family(void **state)
{
	char b[8];

	(void)state;
	assert_int_equal(sprintf_s(b, sizeof(b), "%d-%s", 42, "ab"), 5);
	assert_string_equal(b, "42-ab");
	assert_int_equal(sprintf_s(b, sizeof(b), "%s", "too long!"), -1);
	assert_string_equal(b, "");
	assert_int_equal(sprintf_s(NULL, 8, "x"), -1);
	strcpy(b, "keep");
	assert_int_equal(sprintf_s(b, 0, "x"), -1);
	assert_string_equal(b, "keep");

	/* count below destMax: cut to count characters, -1. */
	assert_int_equal(snprintf_s(b, sizeof(b), 3, "%s", "abcdef"), -1);
	assert_string_equal(b, "abc");
	assert_int_equal(snprintf_s(b, sizeof(b), 3, "%s", "ab"), 2);
	assert_string_equal(b, "ab");
	/* count not below destMax and the output does not fit: reset, -1. */
	assert_int_equal(snprintf_s(b, sizeof(b), sizeof(b), "%s", "abcdefgh"), -1);
	assert_string_equal(b, "");
	assert_int_equal(snprintf_s(b, sizeof(b), sizeof(b), "%s", "abcdefg"), 7);
	assert_string_equal(b, "abcdefg");
	assert_int_equal(call_vsnprintf_s(b, sizeof(b), 7, "%d", 123), 3);
	assert_string_equal(b, "123");
	assert_int_equal(call_vsnprintf_s(b, sizeof(b), 0, "%d", 1), -1);
	assert_string_equal(b, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes),
		cmocka_unit_test(test_memset_s),
		cmocka_unit_test(test_memcpy_s_and_memmove_s),
		cmocka_unit_test(test_strcpy_s_and_strncpy_s),
		cmocka_unit_test(test_strcat_s_and_strncat_s),
		cmocka_unit_test(test_printf_family),
	};

	return cmocka_run_group_tests_name("securec", tests, NULL, NULL);
}
