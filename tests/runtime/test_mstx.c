// SPDX-License-Identifier: MIT
/*
 * mstx/ms_tools_ext.h: marks and ranges of the default domain and of named
 * domains are events of category "mstx" in a profiling session's file, a
 * named domain's with args.domain; outside a session they record nothing;
 * a destroyed domain, an unknown range id and NULL arguments are ignored
 * (with a message for aclGetRecentErrMsg).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "json_reader.h"
#include "mstx/ms_tools_ext.h"
#include "rt_test.h"

static char g_dir[64];
static aclrtStream g_stream;

static int group_setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof(g_dir), "/tmp/npu-mstx-XXXXXX");
	if (mkdtemp(g_dir) == NULL || aclrtSetDevice(0) != ACL_SUCCESS ||
	    aclrtCreateStream(&g_stream) != ACL_SUCCESS)
		return -1;
	return aclprofInit(g_dir, strlen(g_dir)) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	aclprofFinalize();
	aclrtDestroyStream(g_stream);
	aclrtResetDevice(0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Stops the session and parses its one file (then removed). */
static void stop_and_read(struct jval *root)
{
	DIR *d;
	struct dirent *e;
	char path[512] = "";
	int n = 0;

	ACL_OK(aclprofStop(NULL));
	d = opendir(g_dir);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "aclprof_", 8) == 0) {
			snprintf(path, sizeof(path), "%s/%s", g_dir, e->d_name);
			n++;
		}
	}
	closedir(d);
	assert_int_equal(n, 1);
	read_trace(path, root);
	unlink(path);
}

/* The number of events of phase ph, category mstx, named name, in domain
 * (NULL: none). */
static int count(const struct jval *root, const char *ph, const char *name, const char *domain)
{
	const struct jval *ev = jget(root, "traceEvents");
	int n = 0;

	for (size_t i = 0; i < ev->n; i++) {
		const struct jval *x = &ev->items[i];
		const char *p = jstr(x, "ph"), *c = jstr(x, "cat"), *nm = jstr(x, "name");
		const char *d = jstr(jget(x, "args"), "domain");

		if (!p || !c || !nm || strcmp(p, ph) || strcmp(c, "mstx") || strcmp(nm, name))
			continue;
		if ((domain == NULL) != (d == NULL) || (domain && strcmp(domain, d)))
			continue;
		n++;
	}
	return n;
}

static void test_marks_and_ranges_in_domains(void **state)
{
	struct jval root;
	mstxDomainHandle_t d, again;
	mstxRangeId r1, r2;

	(void)state;
	d = mstxDomainCreateA("inner");
	assert_non_null(d);
	again = mstxDomainCreateA("inner");
	assert_ptr_equal(d, again);
	ACL_OK(aclprofStart(NULL));
	r1 = mstxRangeStartA("outer range", g_stream);
	assert_int_not_equal(r1, MSTX_INVALID_RANGE_ID);
	mstxMarkA("plain mark", g_stream);
	mstxMarkA("thread mark", NULL);
	mstxDomainMarkA(d, "domain mark", g_stream);
	r2 = mstxDomainRangeStartA(d, "domain range", g_stream);
	assert_int_not_equal(r2, r1);
	mstxDomainRangeEnd(d, r2);
	mstxRangeEnd(r1);
	stop_and_read(&root);
	assert_int_equal(count(&root, "i", "plain mark", NULL), 1);
	assert_int_equal(count(&root, "i", "thread mark", NULL), 1);
	assert_int_equal(count(&root, "i", "domain mark", "inner"), 1);
	assert_int_equal(count(&root, "b", "outer range", NULL), 1);
	assert_int_equal(count(&root, "e", "outer range", NULL), 1);
	assert_int_equal(count(&root, "b", "domain range", "inner"), 1);
	assert_int_equal(count(&root, "e", "domain range", "inner"), 1);
	jfree(&root);
	mstxDomainDestroy(d);
}

static void test_bad_and_out_of_session(void **state)
{
	struct jval root;
	mstxDomainHandle_t d;
	mstxRangeId r;

	(void)state;
	/* Outside a session: nothing recorded, a range still has an id. */
	mstxMarkA("before", NULL);
	r = mstxRangeStartA("before range", NULL);
	assert_int_not_equal(r, MSTX_INVALID_RANGE_ID);
	assert_null(mstxDomainCreateA(NULL));
	assert_non_null(aclGetRecentErrMsg());
	assert_null(mstxDomainCreateA(""));
	d = mstxDomainCreateA("gone");
	assert_non_null(d);
	ACL_OK(aclprofStart(NULL));
	mstxRangeEnd(r); /* opened before the session: its start is in no file */
	assert_int_equal(mstxRangeStartA(NULL, NULL), MSTX_INVALID_RANGE_ID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "message is NULL"));
	mstxRangeEnd(987654321);
	assert_non_null(strstr(aclGetRecentErrMsg(), "is not open"));
	r = mstxDomainRangeStartA(d, "cut", NULL);
	/* A range of one domain is not ended through another. */
	mstxRangeEnd(r);
	assert_non_null(strstr(aclGetRecentErrMsg(), "is not open"));
	mstxDomainDestroy(d);
	mstxDomainMarkA(d, "after destroy", NULL);
	assert_non_null(strstr(aclGetRecentErrMsg(), "not a live domain"));
	assert_int_equal(mstxDomainRangeStartA(d, "after destroy", NULL), MSTX_INVALID_RANGE_ID);
	mstxDomainRangeEnd(d, r);
	mstxDomainMarkA(NULL, "null domain", NULL);
	mstxMarkA(NULL, NULL);
	mstxMarkA("inside", NULL);
	stop_and_read(&root);
	assert_int_equal(count(&root, "i", "inside", NULL), 1);
	assert_int_equal(count(&root, "i", "before", NULL), 0);
	assert_int_equal(count(&root, "i", "after destroy", "gone"), 0);
	assert_int_equal(count(&root, "b", "cut", "gone"), 0);
	jfree(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marks_and_ranges_in_domains),
		cmocka_unit_test(test_bad_and_out_of_session),
	};

	return cmocka_run_group_tests_name("mstx", tests, group_setup, group_teardown);
}
