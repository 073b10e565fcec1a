/* SPDX-License-Identifier: MIT */
/*
 * NPU_CHECK: every kind of finding, each with a program that has the bug
 * (reported, with the right kind, address and both sides) and a similar
 * correct one (not reported). The test runs itself again with NPU_CHECK=all
 * and NPU_CHECK_LOG set when they are not, and reads the JSON lines of the
 * log that each case appended.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_test.h"

#define BUF (64 * 1024)

static char g_log[256];
static long g_mark;

/* Everything logged from now on belongs to the case. */
static void mark(void)
{
	struct stat st;

	g_mark = stat(g_log, &st) == 0 ? (long)st.st_size : 0;
}

/* The log lines since mark() (caller frees), or an empty string. */
static char *since_mark(void)
{
	FILE *f = fopen(g_log, "r");
	char *out = calloc(1, 1 << 20);

	assert_non_null(out);
	if (f == NULL)
		return out;
	fseek(f, g_mark, SEEK_SET);
	size_t n = fread(out, 1, (1 << 20) - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

static int count_kind(const char *log, const char *kind)
{
	char key[64];
	int n = 0;

	snprintf(key, sizeof(key), "\"kind\":\"%s\"", kind);
	for (const char *p = strstr(log, key); p != NULL; p = strstr(p + 1, key))
		n++;
	return n;
}

/* The first line of kind; its copy in line. */
static int find_kind(const char *log, const char *kind, char *line, size_t len)
{
	char key[64];
	const char *p, *start, *end;

	snprintf(key, sizeof(key), "\"kind\":\"%s\"", kind);
	p = strstr(log, key);
	if (p == NULL)
		return 0;
	start = p;
	while (start > log && start[-1] != '\n')
		start--;
	end = strchr(p, '\n');
	if (end == NULL)
		end = p + strlen(p);
	snprintf(line, len, "%.*s", (int)(end - start), start);
	return 1;
}

static uint64_t field_u64(const char *line, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(line, key);
	assert_non_null(p);
	return strtoull(p + strlen(key), NULL, 10);
}

static void field_str(const char *line, const char *name, char *out, size_t len)
{
	char key[64];
	const char *p, *q;

	snprintf(key, sizeof(key), "\"%s\":\"", name);
	p = strstr(line, key);
	assert_non_null(p);
	p += strlen(key);
	q = strchr(p, '"');
	assert_non_null(q);
	snprintf(out, len, "%.*s", (int)(q - p), p);
}

static void stream_name(aclrtStream s, char *out, size_t len)
{
	snprintf(out, len, "%p", s);
}

/* Asserts one finding of kind at addr, on stream (NULL: the host). */
static void expect_finding(const char *kind, const void *addr, aclrtStream stream,
			   aclrtStream other, int has_other)
{
	char *log = since_mark();
	char line[4096], s[64], want[64];

	if (!find_kind(log, kind, line, sizeof(line)))
		fail_msg("no %s finding; the log has: %s", kind, log);
	assert_int_equal(field_u64(line, "address"), (uint64_t)(uintptr_t)addr);
	field_str(line, "api", s, sizeof(s));
	assert_true(strncmp(s, "acl", 3) == 0);
	field_str(line, "stream", s, sizeof(s));
	if (stream != NULL)
		stream_name(stream, want, sizeof(want));
	else
		snprintf(want, sizeof(want), "host");
	assert_string_equal(s, want);
	if (has_other) {
		field_str(line, "other_stream", s, sizeof(s));
		if (other != NULL)
			stream_name(other, want, sizeof(want));
		else
			snprintf(want, sizeof(want), "host");
		assert_string_equal(s, want);
		field_str(line, "other_api", s, sizeof(s));
		assert_true(strncmp(s, "acl", 3) == 0);
	}
	free(log);
}

static void expect_nothing(void)
{
	char *log = since_mark();

	if (log[0] != '\0')
		fail_msg("unexpected findings: %s", log);
	free(log);
}

struct fixture {
	aclrtStream s1, s2;
	void *src, *a, *b;
	void *pinned;
};

static void setup(struct fixture *f)
{
	ACL_OK(aclrtCreateStream(&f->s1));
	ACL_OK(aclrtCreateStream(&f->s2));
	ACL_OK(aclrtMalloc(&f->src, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&f->a, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&f->b, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(f->src, BUF, 1, BUF));
	ACL_OK(aclrtMemset(f->a, BUF, 2, BUF));
	ACL_OK(aclrtMemset(f->b, BUF, 3, BUF));
	ACL_OK(aclrtMallocHost(&f->pinned, BUF));
	memset(f->pinned, 7, BUF);
}

static void teardown(struct fixture *f)
{
	/* A case with a bug may have made a queued copy fail. */
	(void)aclrtSynchronizeStream(f->s1);
	(void)aclrtSynchronizeStream(f->s2);
	ACL_OK(aclrtFree(f->src));
	ACL_OK(aclrtFree(f->a));
	ACL_OK(aclrtFree(f->b));
	ACL_OK(aclrtFreeHost(f->pinned));
	ACL_OK(aclrtDestroyStream(f->s1));
	ACL_OK(aclrtDestroyStream(f->s2));
}

static void test_race_between_two_streams_is_reported(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f);
	mark();
	/* s1 writes a, s2 reads the same bytes with nothing between them. */
	ACL_OK(aclrtMemcpyAsync(f.a, 4096, f.src, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1));
	ACL_OK(aclrtMemcpyAsync(f.b, 4096, f.a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s2));
	expect_finding("race", f.a, f.s2, f.s1, 1);
	teardown(&f);
}

static void test_ordered_or_disjoint_accesses_are_not_races(void **state)
{
	struct fixture f;
	aclrtEvent ev;
	aclrtNotify n;
	char *half;

	(void)state;
	setup(&f);
	ACL_OK(aclrtCreateEvent(&ev));
	ACL_OK(aclrtCreateNotify(&n, 0));
	half = (char *)f.a + BUF / 2;
	mark();
	/* Disjoint halves of one allocation written on two streams at once. */
	ACL_OK(aclrtMemcpyAsync(f.a, BUF / 2, f.src, BUF / 2, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1));
	ACL_OK(aclrtMemcpyAsync(half, BUF / 2, f.src, BUF / 2, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s2));
	/* Ordered by an event. */
	ACL_OK(aclrtRecordEvent(ev, f.s1));
	ACL_OK(aclrtStreamWaitEvent(f.s2, ev));
	ACL_OK(aclrtMemcpyAsync(f.b, 4096, f.a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s2));
	/* Ordered by a notify. */
	ACL_OK(aclrtMemcpyAsync(f.a, 4096, f.src, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s2));
	ACL_OK(aclrtRecordNotify(n, f.s2));
	ACL_OK(aclrtWaitAndResetNotify(n, f.s1, 0));
	ACL_OK(aclrtMemcpyAsync(f.b, 4096, f.a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1));
	/* Ordered by a stream synchronisation. */
	ACL_OK(aclrtSynchronizeStream(f.s1));
	ACL_OK(aclrtMemcpyAsync(f.b, 4096, f.src, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s2));
	ACL_OK(aclrtSynchronizeDevice());
	ACL_OK(aclrtMemcpyAsync(f.b, 4096, f.a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	expect_nothing();
	ACL_OK(aclrtDestroyNotify(n));
	ACL_OK(aclrtDestroyEvent(ev));
	teardown(&f);
}

/*
 * The checker keeps a bounded number of recent accesses per allocation:
 * many queued copies on one stream, some superseded by a wider one, still
 * leave the last of them to race with (and nothing once ordered).
 */
static void test_race_after_many_accesses_is_reported(void **state)
{
	struct fixture f;
	int i;

	(void)state;
	setup(&f);
	mark();
	for (i = 0; i < 40; i++)
		ACL_OK(aclrtMemcpyAsync((char *)f.a + i * 64, 64, (char *)f.src + i * 64, 64,
					ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	ACL_OK(aclrtMemcpyAsync(f.b, 64, (char *)f.a + 38 * 64, 64, ACL_MEMCPY_DEVICE_TO_DEVICE,
				f.s2));
	ACL_OK(aclrtSynchronizeStream(f.s2));
	expect_nothing();
	for (i = 0; i < 40; i++)
		ACL_OK(aclrtMemcpyAsync((char *)f.a + i * 64, 64, (char *)f.src + i * 64, 64,
					ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1));
	/* One write over two of the last ones replaces them. */
	ACL_OK(aclrtMemcpyAsync((char *)f.a + 30 * 64, 128, f.src, 128, ACL_MEMCPY_DEVICE_TO_DEVICE,
				f.s1));
	ACL_OK(aclrtMemcpyAsync(f.b, 64, (char *)f.a + 35 * 64, 64, ACL_MEMCPY_DEVICE_TO_DEVICE,
				f.s2));
	expect_finding("race", (char *)f.a + 35 * 64, f.s2, f.s1, 1);
	mark();
	ACL_OK(aclrtMemcpyAsync(f.b, 64, (char *)f.a + 31 * 64, 64, ACL_MEMCPY_DEVICE_TO_DEVICE,
				f.s2));
	expect_finding("race", (char *)f.a + 31 * 64, f.s2, f.s1, 1);
	teardown(&f);
}

static void test_host_write_to_a_pending_copy_source_is_reported(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f);
	mark();
	ACL_OK(aclrtMemcpyAsync(f.a, BUF, f.pinned, BUF, ACL_MEMCPY_HOST_TO_DEVICE, f.s1));
	memset(f.pinned, 9, 64); /* before the copy is known to have read it */
	ACL_OK(aclrtSynchronizeStream(f.s1));
	expect_finding("host-race", f.pinned, NULL, f.s1, 1);
	teardown(&f);
}

static void test_host_write_after_synchronize_is_not_reported(void **state)
{
	struct fixture f;

	(void)state;
	setup(&f);
	mark();
	ACL_OK(aclrtMemcpyAsync(f.a, BUF, f.pinned, BUF, ACL_MEMCPY_HOST_TO_DEVICE, f.s1));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	memset(f.pinned, 9, 64);
	ACL_OK(aclrtMemcpyAsync(f.a, BUF, f.pinned, BUF, ACL_MEMCPY_HOST_TO_DEVICE, f.s1));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	expect_nothing();
	teardown(&f);
}

/*
 * A queued fill of host memory changes bytes a queued copy read before it
 * on the same stream: the stream wrote them, not the host.
 */
static void test_queued_fill_after_a_host_read_is_not_reported(void **state)
{
	struct fixture f;
	uint8_t *m = NULL;

	(void)state;
	setup(&f);
	ACL_OK(aclrtMemAllocManaged((void **)&m, 2 * BUF, ACL_RT_MEM_ATTACH_GLOBAL));
	memset(m, 7, 2 * BUF);
	mark();
	ACL_OK(aclrtMemcpyAsync(f.a, BUF, m, BUF, ACL_MEMCPY_HOST_TO_DEVICE, f.s1));
	ACL_OK(aclrtMemsetAsync(m, 64, 0x11, 64, f.s1));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	assert_int_equal(m[0], 0x11);
	expect_nothing();
	ACL_OK(aclrtFree(m));
	teardown(&f);
}

static void test_free_of_host_memory_a_copy_reads_is_reported(void **state)
{
	struct fixture f;
	void *h;

	(void)state;
	setup(&f);
	ACL_OK(aclrtMallocHost(&h, 4096));
	memset(h, 1, 4096);
	mark();
	ACL_OK(aclrtMemcpyAsync(f.a, 4096, h, 4096, ACL_MEMCPY_HOST_TO_DEVICE, f.s1));
	ACL_OK(aclrtFreeHost(h));
	expect_finding("host-race", h, NULL, f.s1, 1);
	teardown(&f);
}

static void test_use_after_free_is_reported(void **state)
{
	struct fixture f;
	void *d, *host = malloc(4096);

	(void)state;
	assert_non_null(host);
	setup(&f);
	ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(d, 4096, 0, 4096));
	ACL_OK(aclrtFree(d));
	mark();
	assert_int_not_equal(aclrtMemcpy(host, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST),
			     ACL_SUCCESS);
	expect_finding("use-after-free", d, NULL, NULL, 0);

	/* Freed while a queued copy still reads it. */
	ACL_OK(aclrtMalloc(&d, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(d, BUF, 0, BUF));
	mark();
	ACL_OK(aclrtMemcpyAsync(f.b, BUF, d, BUF, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1));
	ACL_OK(aclrtFree(d));
	expect_finding("use-after-free", d, NULL, f.s1, 1);
	/* The copy fails when the free came first: the bug the report is about. */
	(void)aclrtSynchronizeStream(f.s1);

	/* The same, synchronised before the free: nothing. */
	ACL_OK(aclrtMalloc(&d, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(d, BUF, 0, BUF));
	mark();
	ACL_OK(aclrtMemcpyAsync(f.b, BUF, d, BUF, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	ACL_OK(aclrtFree(d));
	expect_nothing();
	teardown(&f);
	free(host);
}

static void test_double_and_invalid_free_are_reported(void **state)
{
	void *d;

	(void)state;
	ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	mark();
	assert_int_not_equal(aclrtFree((char *)d + 16), ACL_SUCCESS);
	expect_finding("invalid-free", (char *)d + 16, NULL, NULL, 0);
	mark();
	ACL_OK(aclrtFree(d));
	expect_nothing();
	mark();
	assert_int_not_equal(aclrtFree(d), ACL_SUCCESS);
	expect_finding("double-free", d, NULL, NULL, 0);
}

static void test_out_of_bounds_is_reported(void **state)
{
	struct fixture f;
	void *d;
	char *host = malloc(8192);

	(void)state;
	assert_non_null(host);
	setup(&f);
	ACL_OK(aclrtMalloc(&d, 100, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(d, 100, 0, 100));
	mark();
	ACL_OK(aclrtMemcpy(host, 100, d, 100, ACL_MEMCPY_DEVICE_TO_HOST));
	expect_nothing();
	/* Past the 100 bytes asked for: the call may succeed (page rounding). */
	mark();
	(void)aclrtMemcpy(host, 128, d, 128, ACL_MEMCPY_DEVICE_TO_HOST);
	expect_finding("out-of-bounds", d, NULL, NULL, 0);
	/* Far past the end: the call fails, and the checker says why. */
	mark();
	assert_int_not_equal(aclrtMemcpy(host, 8192, d, 8192, ACL_MEMCPY_DEVICE_TO_HOST),
			     ACL_SUCCESS);
	expect_finding("out-of-bounds", d, NULL, NULL, 0);
	/* On a stream. */
	mark();
	(void)aclrtMemcpyAsync((char *)d + 64, 64, f.src, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, f.s1);
	(void)aclrtSynchronizeStream(f.s1);
	expect_finding("out-of-bounds", (char *)d + 64, f.s1, NULL, 0);
	ACL_OK(aclrtFree(d));
	teardown(&f);
	free(host);
}

static void test_uninitialized_reads_are_reported(void **state)
{
	struct fixture f;
	void *d, *e;
	char *host = malloc(BUF);

	(void)state;
	assert_non_null(host);
	setup(&f);
	ACL_OK(aclrtMalloc(&d, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&e, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	mark();
	ACL_OK(aclrtMemcpy(host, BUF, d, BUF, ACL_MEMCPY_DEVICE_TO_HOST));
	expect_finding("uninitialized", d, NULL, NULL, 0);

	/* Written half, read whole: reported; the written half alone is not. */
	ACL_OK(aclrtMemcpy(e, BUF / 2, host, BUF / 2, ACL_MEMCPY_HOST_TO_DEVICE));
	mark();
	ACL_OK(aclrtMemcpy(host, BUF / 2, e, BUF / 2, ACL_MEMCPY_DEVICE_TO_HOST));
	expect_nothing();
	mark();
	ACL_OK(aclrtMemcpyAsync(f.pinned, BUF, e, BUF, ACL_MEMCPY_DEVICE_TO_HOST, f.s1));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	expect_finding("uninitialized", e, f.s1, NULL, 0);
	ACL_OK(aclrtFree(e));

	/* Initialisation follows D2D copies: uninitialised in, uninitialised out. */
	ACL_OK(aclrtMalloc(&e, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(d, BUF, 0, 4096));
	ACL_OK(aclrtMemcpy(e, BUF, d, BUF, ACL_MEMCPY_DEVICE_TO_DEVICE)); /* reported: d's tail */
	mark();
	ACL_OK(aclrtMemcpy(host, 4096, e, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	expect_nothing();
	mark();
	ACL_OK(aclrtMemcpy(host, 4096, (char *)e + 4096, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	expect_finding("uninitialized", (char *)e + 4096, NULL, NULL, 0);

	/* A reduction reads both operands: a source never written is reported. */
	ACL_OK(aclrtFree(e));
	ACL_OK(aclrtMalloc(&e, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(d, BUF, 0, BUF));
	mark();
	ACL_OK(aclrtReduceAsync(d, e, 4096, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, f.s1, NULL));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	expect_finding("uninitialized", e, f.s1, NULL, 0);
	ACL_OK(aclrtMemset(e, BUF, 0, BUF));
	mark();
	ACL_OK(aclrtReduceAsync(d, e, 4096, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT, f.s1, NULL));
	ACL_OK(aclrtSynchronizeStream(f.s1));
	expect_nothing();

	/* memset, then D2H: nothing. */
	ACL_OK(aclrtMemset(d, BUF, 0, BUF));
	mark();
	ACL_OK(aclrtMemcpy(host, BUF, d, BUF, ACL_MEMCPY_DEVICE_TO_HOST));
	expect_nothing();
	ACL_OK(aclrtFree(d));
	ACL_OK(aclrtFree(e));
	teardown(&f);
	free(host);
}

/* The leak child: leaks device and pinned memory, finalises, exits 0. */
static int leak_child(int leak)
{
	void *d, *h;

	if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
		return 2;
	if (aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMallocHost(&h, 4096) != ACL_SUCCESS)
		return 2;
	printf("leak-child %" PRIuPTR " %" PRIuPTR "\n", (uintptr_t)d, (uintptr_t)h);
	fflush(stdout);
	if (!leak) {
		aclrtFree(d);
		aclrtFreeHost(h);
	}
	aclrtResetDevice(0);
	aclFinalize();
	return 0;
}

static int run_leak_child(int leak, uintptr_t *d, uintptr_t *h)
{
	char cmd[512];
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "NPU_CHECK_EXITCODE=42 /proc/%d/exe %s", (int)getpid(),
		 leak ? "--leak-child" : "--no-leak-child");
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "leak-child %" SCNuPTR " %" SCNuPTR, d, h), 2);
	status = pclose(p);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_leaks_are_reported_at_finalize_and_exit_code_is_set(void **state)
{
	uintptr_t d = 0, h = 0;
	char *log, line[4096];

	(void)state;
	mark();
	assert_int_equal(run_leak_child(1, &d, &h), 42);
	log = since_mark();
	assert_int_equal(count_kind(log, "leak"), 2);
	assert_true(find_kind(log, "leak", line, sizeof(line)));
	assert_true(field_u64(line, "address") == d || field_u64(line, "address") == h);
	free(log);

	mark();
	assert_int_equal(run_leak_child(0, &d, &h), 0);
	expect_nothing();
}

int main(int argc, char **argv)
{
	const char *check = getenv("NPU_CHECK");

	if (argc > 1 && strcmp(argv[1], "--leak-child") == 0)
		return leak_child(1);
	if (argc > 1 && strcmp(argv[1], "--no-leak-child") == 0)
		return leak_child(0);
	if (check == NULL || strcmp(check, "all") != 0 || getenv("NPU_CHECK_LOG") == NULL) {
		/* The checker reads its settings when the library loads. */
		char path[128];

		snprintf(path, sizeof(path), "%s/npu-check-%d.log",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
		setenv("NPU_CHECK", "all", 1);
		setenv("NPU_CHECK_LOG", path, 1);
		unlink(path);
		execv("/proc/self/exe", argv);
		perror("execv");
		return 1;
	}
	snprintf(g_log, sizeof(g_log), "%s", getenv("NPU_CHECK_LOG"));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_race_between_two_streams_is_reported),
		cmocka_unit_test(test_ordered_or_disjoint_accesses_are_not_races),
		cmocka_unit_test(test_race_after_many_accesses_is_reported),
		cmocka_unit_test(test_host_write_to_a_pending_copy_source_is_reported),
		cmocka_unit_test(test_host_write_after_synchronize_is_not_reported),
		cmocka_unit_test(test_queued_fill_after_a_host_read_is_not_reported),
		cmocka_unit_test(test_free_of_host_memory_a_copy_reads_is_reported),
		cmocka_unit_test(test_use_after_free_is_reported),
		cmocka_unit_test(test_double_and_invalid_free_are_reported),
		cmocka_unit_test(test_out_of_bounds_is_reported),
		cmocka_unit_test(test_uninitialized_reads_are_reported),
		cmocka_unit_test(test_leaks_are_reported_at_finalize_and_exit_code_is_set),
	};
	int rc = cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);

	unlink(g_log);
	return rc;
}
