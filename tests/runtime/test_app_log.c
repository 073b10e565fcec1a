// SPDX-License-Identifier: MIT
/*
 * aclAppLog and ACL_APP_LOG: one record on stderr naming the
 * level, file, line and function, under the NPU_LOG threshold (info here),
 * with messages cut at 1023 characters and marked. It never fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_test.h"

static char g_out[8192];

/* Runs fn with stderr going to a file; returns what it wrote. */
static const char *capture_stderr(void (*fn)(void))
{
	char path[] = "/tmp/npu-test-app-log-XXXXXX";
	int fd = mkstemp(path);
	int saved;
	ssize_t n;

	assert_true(fd >= 0);
	unlink(path);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	fn();
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	n = read(fd, g_out, sizeof(g_out) - 1);
	close(fd);
	assert_true(n >= 0);
	g_out[n] = '\0';
	return g_out;
}

static int g_line;

static void log_info(void)
{
	g_line = __LINE__ + 1;
	ACL_APP_LOG(ACL_INFO, "hello %d %s", 42, "world");
}

static void test_record_names_level_file_line_and_function(void **state)
{
	char want[256];
	const char *out;

	(void)state;
	out = capture_stderr(log_info);
	snprintf(want, sizeof(want), "npu: info: app: test_app_log.c:%d log_info: hello 42 world\n",
		 g_line);
	assert_string_equal(out, want);
	/* Logging is not a failure: no message for aclGetRecentErrMsg. */
	assert_null(aclGetRecentErrMsg());
}

static void log_every_level(void)
{
	ACL_APP_LOG(ACL_DEBUG, "below the threshold");
	ACL_APP_LOG(ACL_INFO, "one");
	ACL_APP_LOG(ACL_WARNING, "two");
	ACL_APP_LOG(ACL_ERROR, "three");
	aclAppLog((aclLogLevel)7, "f", "dir/file.c", 9, "not a level");
}

static void test_levels_and_threshold(void **state)
{
	const char *out;

	(void)state;
	out = capture_stderr(log_every_level);
	assert_null(strstr(out, "below the threshold"));
	assert_non_null(strstr(out, "npu: info: app: "));
	assert_non_null(strstr(out, "log_every_level: one\n"));
	assert_non_null(strstr(out, "npu: warning: app: "));
	assert_non_null(strstr(out, "log_every_level: two\n"));
	assert_non_null(strstr(out, "npu: error: app: "));
	assert_non_null(strstr(out, "log_every_level: three\n"));
	/* A value outside aclLogLevel is kept, as an error. */
	assert_non_null(strstr(out, "npu: error: app: file.c:9 f: not a level\n"));
}

static void log_long(void)
{
	char msg[2001];

	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	aclAppLog(ACL_ERROR, "f", "g.c", 1, "%s", msg);
	/* 1023 characters fit exactly. */
	msg[1023] = '\0';
	aclAppLog(ACL_ERROR, "f", "g.c", 2, "%s|", msg + 1);
}

static void test_long_message_is_cut_and_marked(void **state)
{
	const char *out, *second;
	size_t xs;

	(void)state;
	out = capture_stderr(log_long);
	assert_int_equal(strncmp(out, "npu: error: app: g.c:1 f: ", 26), 0);
	xs = strspn(out + 26, "x");
	assert_int_equal(xs, 1023);
	assert_int_equal(strncmp(out + 26 + xs, " [truncated]\n", 13), 0);
	second = out + 26 + xs + 13;
	assert_int_equal(strncmp(second, "npu: error: app: g.c:2 f: ", 26), 0);
	assert_int_equal(strspn(second + 26, "x"), 1022);
	assert_string_equal(second + 26 + 1022, "|\n");
}

static void log_null_arguments(void)
{
	aclAppLog(ACL_ERROR, "f", "g.c", 1, NULL);
	aclAppLog(ACL_ERROR, NULL, NULL, 3, "no function or file");
}

static void test_null_arguments(void **state)
{
	(void)state;
	/* No format: nothing; no function or file: "?". */
	assert_string_equal(capture_stderr(log_null_arguments),
			    "npu: error: app: ?:3 ?: no function or file\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_names_level_file_line_and_function),
		cmocka_unit_test(test_levels_and_threshold),
		cmocka_unit_test(test_long_message_is_cut_and_marked),
		cmocka_unit_test(test_null_arguments),
	};

	/* The threshold is read once, at the first record. */
	setenv("NPU_LOG", "info", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
