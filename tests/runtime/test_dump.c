// SPDX-License-Identifier: MIT
/*
 * Dump (acl/acl_dump.h, aclmdlSetDump, aclInit's "dump" section): with
 * dump_op_switch on, aclnnAdd and aclnnMul write their input and output
 * tensors (dump_mode) to a file under the dump path, in this runtime's
 * container ("NPUDUMP1", header length, JSON header, data), read back here
 * byte for byte; a registered callback gets the same bytes in chunks and
 * nothing goes to disk; aclopStartDumpArgs dumps the operator's arguments
 * (the addresses); acldumpSaveExceptionInfo writes named device tensors
 * under the exception dump path. Every call's bad inputs and calls out of
 * order get upstream's codes.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/acl_dump.h"
#include "aclnn_test.h"
#include "json_reader.h"

#define N 8

static char g_root[64];
static char g_config[128];
static void *g_a, *g_b, *g_o;
static aclrtStream g_stream;
static const float g_av[N] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static const float g_bv[N] = { 10, 20, 30, 40, 50, 60, 70, 80 };

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A dump configuration file named name in g_root with the "dump" members given. */
static const char *config(const char *name, const char *members)
{
	static char path[160];
	char text[512];

	snprintf(path, sizeof(path), "%s/%s", g_root, name);
	snprintf(text, sizeof(text), "{\"dump\": {\"dump_path\": \"%s/data\", %s}}", g_root,
		 members);
	write_file(path, text);
	return path;
}

/* Every regular file under dir (recursively) whose name starts with prefix
 * and ends with suffix: how many, and the last one's path. */
static int find_files(const char *dir, const char *prefix, const char *suffix, char *out,
		      size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char p[1024];
		struct stat st;
		size_t l = strlen(e->d_name), sl = strlen(suffix);

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			n += find_files(p, prefix, suffix, out, len);
			continue;
		}
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && l >= sl &&
		    strcmp(e->d_name + l - sl, suffix) == 0) {
			n++;
			snprintf(out, len, "%s", p);
		}
	}
	closedir(d);
	return n;
}

/* Removes everything under dir, and dir. */
static void remove_tree(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (f == NULL)
		fail_msg("%s was not written", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* A dump container: checks the magic, parses the header into *hdr and
 * returns where the data starts. */
static const unsigned char *parse_container(const unsigned char *buf, size_t len,
					    struct jval *hdr)
{
	uint64_t hlen = 0;
	struct jparser j;

	assert_true(len >= 16);
	assert_memory_equal(buf, "NPUDUMP1", 8);
	for (int i = 0; i < 8; i++)
		hlen |= (uint64_t)buf[8 + i] << (8 * i);
	assert_true(16 + hlen <= len);
	j.p = (const char *)buf + 16;
	j.end = j.p + hlen;
	j.bad = 0;
	jvalue(&j, hdr);
	assert_false(j.bad);
	assert_int_equal(hdr->t, J_OBJ);
	return buf + 16 + hlen;
}

/* Tensor i of a header: its type, size and data (at its offset). */
static void expect_tensor(const struct jval *hdr, const unsigned char *data, size_t i,
			  const char *type, const void *want, size_t size)
{
	const struct jval *ts = jget(hdr, "tensors");
	const struct jval *t;

	assert_non_null(ts);
	assert_true(i < ts->n);
	t = &ts->items[i];
	assert_string_equal(jstr(t, "type"), type);
	assert_int_equal((size_t)jnum(t, "size"), size);
	assert_int_equal((int)jnum(t, "data_type"), ACL_FLOAT);
	assert_memory_equal(data + (size_t)jnum(t, "offset"), want, size);
}

/* g_o = g_a + g_b (add) or g_a * g_b, as 4x2 floats, waited for. */
static void run(int add)
{
	const int64_t shape[2] = { 4, 2 };

	aclnn_test_run_float(g_stream, add, g_a, g_b, g_o, shape, 2);
}

static void sums(float *s)
{
	for (int i = 0; i < N; i++)
		s[i] = g_av[i] + g_bv[i];
}

/* Before aclInit: the model dump calls need it. */
static void test_before_acl_init(void **state)
{
	(void)state;
	EXPECT_FAIL(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
	EXPECT_FAIL(aclmdlSetDump("x.json"), ACL_ERROR_UNINITIALIZE);
	EXPECT_FAIL(aclmdlFinalizeDump(), ACL_ERROR_UNINITIALIZE);
	assert_null(acldumpGetPath(DATA_DUMP));
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(g_root, sizeof(g_root), "/tmp/npu-dump-XXXXXX");
	if (mkdtemp(g_root) == NULL)
		return -1;
	snprintf(g_config, sizeof(g_config), "%s", config("acl.json",
		 "\"dump_op_switch\": \"on\", \"dump_mode\": \"all\", "
		 "\"dump_list\": [], \"dump_scene\": \"aic_err_brief_dump\""));
	if (aclInit(g_config) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
	    aclrtCreateStream(&g_stream) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc(&g_a, sizeof(g_av), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMalloc(&g_b, sizeof(g_bv), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMalloc(&g_o, sizeof(g_av), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return -1;
	if (aclrtMemcpy(g_a, sizeof(g_av), g_av, sizeof(g_av), ACL_MEMCPY_HOST_TO_DEVICE) ||
	    aclrtMemcpy(g_b, sizeof(g_bv), g_bv, sizeof(g_bv), ACL_MEMCPY_HOST_TO_DEVICE))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_a);
	aclrtFree(g_b);
	aclrtFree(g_o);
	aclrtDestroyStream(g_stream);
	aclrtResetDevice(0);
	aclFinalize();
	remove_tree(g_root);
	return 0;
}

static void test_data_dump_writes_inputs_and_output(void **state)
{
	char dir[128], path[1024];
	unsigned char *buf;
	size_t len;
	struct jval hdr;
	const unsigned char *data;
	float want[N];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/data", g_root);
	remove_tree(dir);
	assert_int_equal(mkdir(dir, 0750), 0);
	run(1);
	assert_int_equal(find_files(dir, "Add.aclnnAdd.", "", path, sizeof(path)), 1);
	/* <dump_path>/<time>/<device>/<type>.<name>.<task>.<stream>.<timestamp> */
	assert_non_null(strstr(path, "/0/Add.aclnnAdd."));
	buf = read_all(path, &len);
	data = parse_container(buf, len, &hdr);
	assert_string_equal(jstr(&hdr, "op_type"), "Add");
	assert_string_equal(jstr(&hdr, "op_name"), "aclnnAdd");
	assert_int_equal((int)jnum(&hdr, "device_id"), 0);
	assert_int_equal(jget(&hdr, "tensors")->n, 3);
	expect_tensor(&hdr, data, 0, "input", g_av, sizeof(g_av));
	expect_tensor(&hdr, data, 1, "input", g_bv, sizeof(g_bv));
	sums(want);
	expect_tensor(&hdr, data, 2, "output", want, sizeof(want));
	assert_int_equal(len, (size_t)(data - buf) + 3 * sizeof(want));
	jfree(&hdr);
	free(buf);
	/* Two operators, two files. */
	run(0);
	run(1);
	assert_int_equal(find_files(dir, "Mul.aclnnMul.", "", path, sizeof(path)), 1);
	assert_int_equal(find_files(dir, "Add.aclnnAdd.", "", path, sizeof(path)), 2);
}

static void test_get_path(void **state)
{
	char want[128];

	(void)state;
	snprintf(want, sizeof(want), "%s/data", g_root);
	assert_string_equal(acldumpGetPath(DATA_DUMP), want);
	assert_string_equal(acldumpGetPath(OVERFLOW_DUMP), want);
	snprintf(want, sizeof(want), "%s/data/extra-info", g_root);
	assert_string_equal(acldumpGetPath(AIC_ERR_BRIEF_DUMP), want);
	assert_null(acldumpGetPath((acldumpType)0));
	assert_null(acldumpGetPath((acldumpType)99));
}

static unsigned char g_got[4096];
static size_t g_got_len;
static int g_chunks, g_last, g_cb_rc;
static char g_got_name[ACL_DUMP_MAX_FILE_PATH_LENGTH];

static int32_t collect(const acldumpChunk *c, int32_t len)
{
	assert_int_equal((size_t)len, sizeof(acldumpChunk) + c->bufLen);
	assert_int_equal(c->offset, (int64_t)g_got_len);
	assert_true(g_got_len + c->bufLen <= sizeof(g_got));
	memcpy(g_got + g_got_len, c->dataBuf, c->bufLen);
	g_got_len += c->bufLen;
	g_chunks++;
	g_last = (int)c->isLastChunk;
	snprintf(g_got_name, sizeof(g_got_name), "%s", c->fileName);
	return g_cb_rc;
}

static void test_callback_gets_the_file(void **state)
{
	char dir[128], path[1024];
	struct jval hdr;
	const unsigned char *data;
	float want[N];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/data", g_root);
	remove_tree(dir);
	EXPECT_FAIL(acldumpRegCallback(NULL, 0), ACL_ERROR_FAILURE);
	EXPECT_FAIL(acldumpRegCallback(collect, 1), ACL_ERROR_FAILURE);
	ACL_OK(acldumpRegCallback(collect, 0));
	g_got_len = 0;
	g_chunks = 0;
	g_cb_rc = 0;
	run(0);
	assert_int_equal(g_chunks, 1);
	assert_int_equal(g_last, 1);
	assert_non_null(strstr(g_got_name, "/data/"));
	assert_non_null(strstr(g_got_name, "/0/Mul.aclnnMul."));
	/* Not on disk. */
	assert_int_equal(find_files(dir, "", "", path, sizeof(path)), 0);
	data = parse_container(g_got, g_got_len, &hdr);
	assert_string_equal(jstr(&hdr, "op_type"), "Mul");
	for (int i = 0; i < N; i++)
		want[i] = g_av[i] * g_bv[i];
	expect_tensor(&hdr, data, 2, "output", want, sizeof(want));
	jfree(&hdr);
	/* A callback that refuses: the operator still succeeds. */
	g_cb_rc = -1;
	g_got_len = 0;
	run(1);
	acldumpUnregCallback();
	run(1);
	assert_int_equal(find_files(dir, "Add.aclnnAdd.", "", path, sizeof(path)), 1);
}

static void test_args_dump(void **state)
{
	char dir[128], path[1024];
	unsigned char *buf;
	size_t len;
	struct jval hdr;
	const unsigned char *data;
	uint64_t words[4];
	const uint64_t want[4] = { (uintptr_t)g_a, (uintptr_t)g_b, (uintptr_t)g_o, 0 };

	(void)state;
	snprintf(dir, sizeof(dir), "%s/args", g_root);
	EXPECT_FAIL(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, NULL), ACL_ERROR_FAILURE);
	EXPECT_FAIL(aclopStartDumpArgs(2, dir), ACL_ERROR_FAILURE);
	ACL_OK(aclopStopDumpArgs(2)); /* not started: nothing to do */
	ACL_OK(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, dir));
	run(1);
	assert_int_equal(find_files(dir, "Add.aclnnAdd.", ".args", path, sizeof(path)), 1);
	buf = read_all(path, &len);
	data = parse_container(buf, len, &hdr);
	assert_int_equal(jget(&hdr, "args")->n, 4);
	assert_string_equal(jget(&hdr, "args")->items[2].str, "out");
	memcpy(words, data, sizeof(words));
	assert_memory_equal(words, want, sizeof(want));
	assert_int_equal(len, (size_t)(data - buf) + sizeof(words));
	jfree(&hdr);
	free(buf);
	ACL_OK(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS));
	run(1);
	assert_int_equal(find_files(dir, "Add.aclnnAdd.", ".args", path, sizeof(path)), 1);
}

static acldumpTensorInfo info(void *addr, acldumpTensorType type)
{
	acldumpTensorInfo t;

	memset(&t, 0, sizeof(t));
	t.type = type;
	t.tensorSize = N * sizeof(float);
	t.format = ACL_FORMAT_ND;
	t.dataType = ACL_FLOAT;
	t.tensorAddr = (int64_t *)addr;
	t.addrType = ACL_DUMP_ADDR_RAW;
	t.placement = ACL_DUMP_PLACEMENT_DEVICE;
	t.shapeNum = t.originShapeNum = 2;
	t.shape[0] = t.originShape[0] = 4;
	t.shape[1] = t.originShape[1] = 2;
	return t;
}

static void test_exception_info(void **state)
{
	char path[ACL_DUMP_MAX_FILE_PATH_LENGTH], want[256], file[1024];
	acldumpTensorInfo ts[2] = { info(g_a, ACL_DUMP_TENSOR_INPUT),
				    info(g_b, ACL_DUMP_TENSOR_OUTPUT) }, bad[1];
	unsigned char *buf;
	size_t len;
	struct jval hdr;
	const unsigned char *data;

	(void)state;
	ACL_OK(acldumpGetExceptionInfoPath(path, sizeof(path)));
	snprintf(want, sizeof(want), "%s/data/extra-info/data-dump/0/", g_root);
	assert_string_equal(path, want);
	EXPECT_FAIL(acldumpGetExceptionInfoPath(NULL, sizeof(path)), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acldumpGetExceptionInfoPath(path, 1), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acldumpGetExceptionInfoPath(path, strlen(want)), ACL_ERROR_INVALID_PARAM);
	ACL_OK(acldumpGetExceptionInfoPath(path, strlen(want) + 1));

	ACL_OK(acldumpSaveExceptionInfo("sub/info", "stage=forward", ts, 2));
	assert_int_equal(find_files(want, "info.custom.", "", file, sizeof(file)), 1);
	assert_non_null(strstr(file, "/data-dump/0//sub/info.custom.")); /* want ends with '/' */
	assert_int_equal(strlen(strstr(file, ".custom.") + 8), 17); /* YYYYMMDDhhmmssmmm */
	buf = read_all(file, &len);
	data = parse_container(buf, len, &hdr);
	assert_string_equal(jstr(&hdr, "user_tag"), "stage=forward");
	expect_tensor(&hdr, data, 0, "input", g_av, sizeof(g_av));
	expect_tensor(&hdr, data, 1, "output", g_bv, sizeof(g_bv));
	jfree(&hdr);
	free(buf);

	EXPECT_FAIL(acldumpSaveExceptionInfo(NULL, NULL, ts, 2), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acldumpSaveExceptionInfo("", NULL, ts, 2), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acldumpSaveExceptionInfo("a/../b", NULL, ts, 2), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acldumpSaveExceptionInfo("x", NULL, NULL, 2), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acldumpSaveExceptionInfo("x", NULL, ts, 0), ACL_ERROR_INVALID_PARAM);
	bad[0] = info(NULL, ACL_DUMP_TENSOR_INPUT);
	EXPECT_FAIL(acldumpSaveExceptionInfo("x", NULL, bad, 1), ACL_ERROR_INVALID_PARAM);
	bad[0] = info(g_a, ACL_DUMP_TENSOR_INPUT);
	bad[0].tensorSize = 0;
	EXPECT_FAIL(acldumpSaveExceptionInfo("x", NULL, bad, 1), ACL_ERROR_INVALID_PARAM);
	bad[0] = info(g_a, ACL_DUMP_TENSOR_INPUT);
	bad[0].shapeNum = ACL_DUMP_MAX_SHAPE_NUM + 1;
	EXPECT_FAIL(acldumpSaveExceptionInfo("x", NULL, bad, 1), ACL_ERROR_INVALID_PARAM);
	bad[0] = info(g_a, ACL_DUMP_TENSOR_INPUT);
	bad[0].addrType = ACL_DUMP_ADDR_PTR;
	EXPECT_FAIL(acldumpSaveExceptionInfo("x", NULL, bad, 1), ACL_ERROR_INVALID_PARAM);
	bad[0] = info(g_a, ACL_DUMP_TENSOR_INPUT);
	bad[0].tensorAddr = (int64_t *)bad; /* host memory */
	EXPECT_FAIL(acldumpSaveExceptionInfo("x", NULL, bad, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(find_files(want, "x.custom.", "", file, sizeof(file)), 0);
}

/* Last: it changes the configuration. */
static void test_model_dump_config(void **state)
{
	char dir[128], path[1024];
	unsigned char *buf;
	size_t len;
	struct jval hdr;
	const unsigned char *data;
	char xp[160];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/data", g_root);
	EXPECT_FAIL(aclmdlSetDump(g_config), ACL_ERROR_DUMP_NOT_RUN);
	EXPECT_FAIL(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN);
	ACL_OK(aclmdlInitDump());
	EXPECT_FAIL(aclmdlInitDump(), ACL_ERROR_REPEAT_INITIALIZE);
	EXPECT_FAIL(aclmdlSetDump(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlSetDump("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
	EXPECT_FAIL(aclmdlSetDump(config("m1.json", "\"dump_op_switch\": \"on\", "
					  "\"dump_mode\": \"inputs\"")),
		    ACL_ERROR_INVALID_DUMP_CONFIG);
	EXPECT_FAIL(aclmdlSetDump(config("m2.json", "\"dump_op_switch\": \"yes\"")),
		    ACL_ERROR_INVALID_DUMP_CONFIG);
	EXPECT_FAIL(aclmdlSetDump(config("m3.json", "\"dump_op_switch\": \"on\", "
					  "\"dump_data\": \"stats\"")),
		    ACL_ERROR_INVALID_DUMP_CONFIG);
	EXPECT_FAIL(aclmdlSetDump(config("m4.json", "\"dump_scene\": \"everything\"")),
		    ACL_ERROR_INVALID_DUMP_CONFIG);
	snprintf(xp, sizeof(xp), "%s/bad.json", g_root);
	write_file(xp, "{\"dump\": ");
	EXPECT_FAIL(aclmdlSetDump(xp), ACL_ERROR_PARSE_FILE);
	/* A refused configuration changed nothing. */
	assert_non_null(acldumpGetPath(AIC_ERR_BRIEF_DUMP));

	/* Inputs only, and no exception dump. */
	ACL_OK(aclmdlSetDump(config("m5.json", "\"dump_op_switch\": \"on\", "
				    "\"dump_mode\": \"input\"")));
	EXPECT_FAIL(acldumpGetExceptionInfoPath(path, sizeof(path)), ACL_ERROR_FAILURE);
	assert_null(acldumpGetPath(AIC_ERR_BRIEF_DUMP));
	remove_tree(dir);
	run(1);
	assert_int_equal(find_files(dir, "Add.aclnnAdd.", "", path, sizeof(path)), 1);
	buf = read_all(path, &len);
	data = parse_container(buf, len, &hdr);
	assert_int_equal(jget(&hdr, "tensors")->n, 2);
	expect_tensor(&hdr, data, 1, "input", g_bv, sizeof(g_bv));
	jfree(&hdr);
	free(buf);

	/* Off. */
	ACL_OK(aclmdlFinalizeDump());
	assert_null(acldumpGetPath(DATA_DUMP));
	remove_tree(dir);
	run(1);
	assert_int_equal(find_files(dir, "", "", path, sizeof(path)), 0);
}

int main(void)
{
	const struct CMUnitTest before[] = {
		cmocka_unit_test(test_before_acl_init),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_dump_writes_inputs_and_output),
		cmocka_unit_test(test_get_path),
		cmocka_unit_test(test_callback_gets_the_file),
		cmocka_unit_test(test_args_dump),
		cmocka_unit_test(test_exception_info),
		cmocka_unit_test(test_model_dump_config),
	};
	int rc = cmocka_run_group_tests_name("dump before aclInit", before, NULL, NULL);

	return rc | cmocka_run_group_tests_name("dump", tests, group_setup, group_teardown);
}
