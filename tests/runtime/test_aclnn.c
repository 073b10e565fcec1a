// SPDX-License-Identifier: MIT
/*
 * aclnnAdd and aclnnMul over the device's reduction: CANN's quickstart
 * (a float vector sum with alpha 1), sums and products of float and int32
 * elements read back exactly (int32 wrapping), out aliasing self, the work
 * ordered on a stream behind an asynchronous copy and ahead of the next,
 * single-use executors, the bad inputs and the unsupported cases with their
 * codes and messages, and destroyed or foreign handles.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn/opdev/op_errno.h"
#include "aclnn_test.h"

#define N 64
#define BUF (N * 8)

static void *g_a, *g_b, *g_o;
static aclrtStream g_stream;

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc(&g_a, BUF, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMalloc(&g_b, BUF, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return -1;
	return aclrtMalloc(&g_o, BUF, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_a);
	aclrtFree(g_b);
	aclrtFree(g_o);
	aclrtDestroyStream(g_stream);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

/* A contiguous tensor of n elements over data. */
static aclTensor *vec(void *data, int64_t n, aclDataType type)
{
	return aclnn_test_tensor(data, &n, 1, type);
}

static aclScalar *scalar_f(float v)
{
	aclScalar *s = aclCreateScalar(&v, ACL_FLOAT);

	assert_non_null(s);
	return s;
}

/* out = self + alpha * other (add) or self * other, run on g_stream and waited for. */
static void run(int add, aclTensor *self, aclTensor *other, aclScalar *alpha, aclTensor *out)
{
	aclnn_test_run(g_stream, add, self, other, alpha, out);
}

static void expect(aclnnStatus rc, aclnnStatus code, const char *api, const char *says,
		   const char *what)
{
	const char *m = aclGetRecentErrMsg();

	if (rc != code)
		fail_msg("%s: %d, expected %d (%s)", what, rc, code, m ? m : "no message");
	if (!m || !strstr(m, api) || !strstr(m, says))
		fail_msg("%s: message \"%s\" does not say \"%s\" from %s", what, m ? m : "", says,
			 api);
}

/* CANN's quickstart: two float vectors of 8, alpha 1.0f. */
static void test_quickstart(void **state)
{
	const float a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const float b[8] = { 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4 };
	float o[8];

	(void)state;
	ACL_OK(aclrtMemcpy(g_a, BUF, a, sizeof(a), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(g_b, BUF, b, sizeof(b), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemset(g_o, BUF, 0, BUF));
	aclTensor *self = vec(g_a, 8, ACL_FLOAT), *other = vec(g_b, 8, ACL_FLOAT);
	aclTensor *out = vec(g_o, 8, ACL_FLOAT);
	aclScalar *alpha = scalar_f(1.0f);

	run(1, self, other, alpha, out);
	ACL_OK(aclrtMemcpy(o, sizeof(o), g_o, sizeof(o), ACL_MEMCPY_DEVICE_TO_HOST));
	for (int i = 0; i < 8; i++)
		assert_true(o[i] == a[i] + b[i]);
	/* The inputs are untouched. */
	ACL_OK(aclrtMemcpy(o, sizeof(o), g_a, sizeof(o), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(o, a, sizeof(a));
	ACL_OK(aclDestroyTensor(self));
	ACL_OK(aclDestroyTensor(other));
	ACL_OK(aclDestroyTensor(out));
	ACL_OK(aclDestroyScalar(alpha));
}

/* Sums and products, float and int32, in shapes of 2 dimensions. */
static void test_add_mul_float_int32(void **state)
{
	float fa[N], fb[N], fo[N];
	int32_t ia[N], ib[N], io[N];
	const int64_t shape[2] = { 4, N / 4 }, stride[2] = { N / 4, 1 };
	const int32_t one = 1;

	(void)state;
	for (int i = 0; i < N; i++) {
		fa[i] = (float)i * 0.37f - 5.0f;
		fb[i] = 1.0f / (float)(i + 3);
		ia[i] = i * 1000003 - 7;
		ib[i] = (i & 1) ? INT32_MAX - i : -3 * i;
	}
	ia[0] = INT32_MAX; /* the sum and the product wrap */
	ib[0] = 2;
	for (int t = 0; t < 2; t++) {
		const aclDataType type = t ? ACL_INT32 : ACL_FLOAT;
		aclTensor *self = aclCreateTensor(shape, 2, type, stride, 0, ACL_FORMAT_ND, shape, 2, g_a);
		aclTensor *other = aclCreateTensor(shape, 2, type, stride, 0, ACL_FORMAT_ND, shape, 2, g_b);
		aclTensor *out = aclCreateTensor(shape, 2, type, stride, 0, ACL_FORMAT_ND, shape, 2, g_o);
		/* An int32 alpha of 1 is alpha 1 as well. */
		aclScalar *alpha = aclCreateScalar((void *)&one, ACL_INT32);

		assert_non_null(self);
		assert_non_null(other);
		assert_non_null(out);
		assert_non_null(alpha);
		for (int add = 0; add < 2; add++) {
			ACL_OK(aclrtMemcpy(g_a, BUF, t ? (void *)ia : (void *)fa, N * 4,
					   ACL_MEMCPY_HOST_TO_DEVICE));
			ACL_OK(aclrtMemcpy(g_b, BUF, t ? (void *)ib : (void *)fb, N * 4,
					   ACL_MEMCPY_HOST_TO_DEVICE));
			run(add, self, other, alpha, out);
			ACL_OK(aclrtMemcpy(t ? (void *)io : (void *)fo, N * 4, g_o, N * 4,
					   ACL_MEMCPY_DEVICE_TO_HOST));
			for (int i = 0; i < N; i++) {
				if (t) {
					int32_t want = add ? (int32_t)((uint32_t)ia[i] + (uint32_t)ib[i]) :
							     (int32_t)((uint32_t)ia[i] * (uint32_t)ib[i]);
					if (io[i] != want)
						fail_msg("int32 %s %d: %d, want %d", add ? "add" : "mul",
							 i, io[i], want);
				} else {
					float want = add ? fa[i] + fb[i] : fa[i] * fb[i];
					if (memcmp(&fo[i], &want, sizeof(want)))
						fail_msg("float %s %d: %a, want %a", add ? "add" : "mul",
							 i, fo[i], want);
				}
			}
		}
		ACL_OK(aclDestroyTensor(self));
		ACL_OK(aclDestroyTensor(other));
		ACL_OK(aclDestroyTensor(out));
		ACL_OK(aclDestroyScalar(alpha));
	}
}

/* out == self: in place, no copy; twice, so the second reads the first's result. */
static void test_out_aliases_self(void **state)
{
	int32_t a[N], b[N], o[N];

	(void)state;
	for (int i = 0; i < N; i++) {
		a[i] = i - 10;
		b[i] = 3;
	}
	ACL_OK(aclrtMemcpy(g_a, BUF, a, sizeof(a), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(g_b, BUF, b, sizeof(b), ACL_MEMCPY_HOST_TO_DEVICE));
	aclTensor *self = vec(g_a, N, ACL_INT32), *other = vec(g_b, N, ACL_INT32);
	aclTensor *same = vec(g_a, N, ACL_INT32);
	aclScalar *alpha = scalar_f(1.0f);

	run(1, self, other, alpha, same); /* a + 3 */
	run(0, self, other, NULL, self);  /* (a + 3) * 3 */
	ACL_OK(aclrtMemcpy(o, sizeof(o), g_a, sizeof(o), ACL_MEMCPY_DEVICE_TO_HOST));
	for (int i = 0; i < N; i++)
		assert_int_equal(o[i], (a[i] + 3) * 3);
	ACL_OK(aclDestroyTensor(self));
	ACL_OK(aclDestroyTensor(other));
	ACL_OK(aclDestroyTensor(same));
	ACL_OK(aclDestroyScalar(alpha));
}

/*
 * alpha other than 1: a workspace of the operands' size, where alpha *
 * other is made on the device before the sum (float 1.5, int32 -3). A
 * missing, short or overlapping workspace is refused, and the executor
 * stays usable.
 */
static void test_alpha(void **state)
{
	float fa[N], fb[N], fo[N];
	int32_t ia[N], ib[N], io[N];
	const float f15 = 1.5f;
	const int64_t m3 = -3;
	void *ws = NULL;

	(void)state;
	for (int i = 0; i < N; i++) {
		fa[i] = (float)i * 0.25f - 3.0f;
		fb[i] = (float)(i % 7) * 0.3f;
		ia[i] = 1000 * i - 17;
		ib[i] = i - 30;
	}
	ACL_OK(aclrtMalloc(&ws, BUF, ACL_MEM_MALLOC_HUGE_FIRST));
	for (int t = 0; t < 2; t++) {
		const aclDataType type = t ? ACL_INT32 : ACL_FLOAT;
		aclTensor *self = vec(g_a, N, type), *other = vec(g_b, N, type), *out = vec(g_o, N, type);
		aclScalar *alpha = t ? aclCreateScalar((void *)&m3, ACL_INT64) :
				       aclCreateScalar((void *)&f15, ACL_FLOAT);
		uint64_t size = 0;
		aclOpExecutor *ex = NULL;

		assert_non_null(alpha);
		ACL_OK(aclrtMemcpy(g_a, BUF, t ? (void *)ia : (void *)fa, N * 4,
				   ACL_MEMCPY_HOST_TO_DEVICE));
		ACL_OK(aclrtMemcpy(g_b, BUF, t ? (void *)ib : (void *)fb, N * 4,
				   ACL_MEMCPY_HOST_TO_DEVICE));
		ACL_OK(aclnnAddGetWorkspaceSize(self, other, alpha, out, &size, &ex));
		assert_int_equal(size, N * 4);
		expect(aclnnAdd(NULL, size, ex, g_stream), ACLNN_ERR_PARAM_NULLPTR, "aclnnAdd",
		       "workspace is NULL", "no workspace");
		expect(aclnnAdd(ws, size - 4, ex, g_stream), ACLNN_ERR_PARAM_INVALID, "aclnnAdd",
		       "below the", "short workspace");
		expect(aclnnAdd(g_b, size, ex, g_stream), ACLNN_ERR_PARAM_INVALID, "aclnnAdd",
		       "overlaps", "workspace on other");
		ACL_OK(aclnnAdd(ws, size, ex, g_stream));
		ACL_OK(aclrtSynchronizeStream(g_stream));
		ACL_OK(aclrtMemcpy(t ? (void *)io : (void *)fo, N * 4, g_o, N * 4,
				   ACL_MEMCPY_DEVICE_TO_HOST));
		for (int i = 0; i < N; i++) {
			if (t) {
				assert_int_equal(io[i], ia[i] - 3 * ib[i]);
			} else {
				volatile float scaled = f15 * fb[i]; /* rounded, as on the device */
				float want = fa[i] + scaled;
				if (memcmp(&fo[i], &want, sizeof(want)))
					fail_msg("float %d: %a, want %a", i, fo[i], want);
			}
		}
		/* other is untouched. */
		ACL_OK(aclrtMemcpy(t ? (void *)io : (void *)fo, N * 4, g_b, N * 4,
				   ACL_MEMCPY_DEVICE_TO_HOST));
		assert_memory_equal(t ? (void *)io : (void *)fo, t ? (void *)ib : (void *)fb, N * 4);
		ACL_OK(aclDestroyTensor(self));
		ACL_OK(aclDestroyTensor(other));
		ACL_OK(aclDestroyTensor(out));
		ACL_OK(aclDestroyScalar(alpha));
	}
	ACL_OK(aclrtFree(ws));
}

/*
 * Queued, not run: an asynchronous copy puts self on the device, the add
 * follows it on the stream, and a copy back follows the add; only the
 * final synchronisation waits. The operands are large, so that an add that
 * ran early would read the old contents.
 */
static void test_stream_order(void **state)
{
	enum { M = 1 << 20 };
	float *h, *back;
	void *a, *b, *o;
	const int64_t shape[1] = { M }, stride[1] = { 1 };

	(void)state;
	ACL_OK(aclrtMallocHost((void **)&h, M * sizeof(float)));
	ACL_OK(aclrtMallocHost((void **)&back, M * sizeof(float)));
	ACL_OK(aclrtMalloc(&a, M * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, M * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&o, M * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
	for (int i = 0; i < M; i++)
		h[i] = 2.0f;
	ACL_OK(aclrtMemcpy(b, M * sizeof(float), h, M * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemset(a, M * sizeof(float), 0, M * sizeof(float)));
	for (int i = 0; i < M; i++)
		h[i] = (float)(i & 1023);
	aclTensor *self = aclCreateTensor(shape, 1, ACL_FLOAT, stride, 0, ACL_FORMAT_ND, shape, 1, a);
	aclTensor *other = aclCreateTensor(shape, 1, ACL_FLOAT, stride, 0, ACL_FORMAT_ND, shape, 1, b);
	aclTensor *out = aclCreateTensor(shape, 1, ACL_FLOAT, stride, 0, ACL_FORMAT_ND, shape, 1, o);
	aclScalar *alpha = scalar_f(1.0f);
	uint64_t ws = 1;
	aclOpExecutor *ex = NULL;

	ACL_OK(aclnnAddGetWorkspaceSize(self, other, alpha, out, &ws, &ex));
	/* The executor keeps what it needs: the handles may go before it runs. */
	ACL_OK(aclDestroyTensor(self));
	ACL_OK(aclDestroyTensor(other));
	ACL_OK(aclDestroyTensor(out));
	ACL_OK(aclDestroyScalar(alpha));
	ACL_OK(aclrtMemcpyAsync(a, M * sizeof(float), h, M * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE,
				g_stream));
	ACL_OK(aclnnAdd(NULL, 0, ex, g_stream));
	ACL_OK(aclrtMemcpyAsync(back, M * sizeof(float), o, M * sizeof(float),
				ACL_MEMCPY_DEVICE_TO_HOST, g_stream));
	ACL_OK(aclrtSynchronizeStream(g_stream));
	for (int i = 0; i < M; i++)
		if (back[i] != (float)(i & 1023) + 2.0f)
			fail_msg("element %d: %g, want %g", i, back[i], (float)(i & 1023) + 2.0f);
	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
	ACL_OK(aclrtFree(o));
	ACL_OK(aclrtFreeHost(h));
	ACL_OK(aclrtFreeHost(back));
}

/* NULL arguments, and executors used twice or by the other operator. */
static void test_bad_inputs(void **state)
{
	aclTensor *t = vec(g_a, 4, ACL_FLOAT), *u = vec(g_b, 4, ACL_FLOAT), *o = vec(g_o, 4, ACL_FLOAT);
	aclScalar *one = scalar_f(1.0f);
	uint64_t ws;
	aclOpExecutor *ex;
	const char *gws = "aclnnAddGetWorkspaceSize";

	(void)state;
	expect(aclnnAddGetWorkspaceSize(NULL, u, one, o, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, gws,
	       "self is NULL", "self NULL");
	expect(aclnnAddGetWorkspaceSize(t, NULL, one, o, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, gws,
	       "other is NULL", "other NULL");
	expect(aclnnAddGetWorkspaceSize(t, u, NULL, o, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, gws,
	       "alpha is NULL", "alpha NULL");
	expect(aclnnAddGetWorkspaceSize(t, u, one, NULL, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, gws,
	       "out is NULL", "out NULL");
	expect(aclnnAddGetWorkspaceSize(t, u, one, o, NULL, &ex), ACLNN_ERR_PARAM_NULLPTR, gws,
	       "workspaceSize is NULL", "workspaceSize NULL");
	expect(aclnnAddGetWorkspaceSize(t, u, one, o, &ws, NULL), ACLNN_ERR_PARAM_NULLPTR, gws,
	       "executor is NULL", "executor NULL");
	expect(aclnnMulGetWorkspaceSize(t, u, o, &ws, NULL), ACLNN_ERR_PARAM_NULLPTR,
	       "aclnnMulGetWorkspaceSize", "executor is NULL", "mul executor NULL");
	expect(aclnnAdd(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR, "aclnnAdd",
	       "executor is NULL", "aclnnAdd executor NULL");
	expect(aclnnMul(NULL, 0, NULL, g_stream), ACLNN_ERR_PARAM_NULLPTR, "aclnnMul",
	       "executor is NULL", "aclnnMul executor NULL");

	/* An add's executor is refused by aclnnMul, and stays usable; then it is spent. */
	ACL_OK(aclnnAddGetWorkspaceSize(t, u, one, o, &ws, &ex));
	expect(aclnnMul(NULL, 0, ex, g_stream), ACLNN_ERR_PARAM_INVALID, "aclnnMul",
	       "not made by aclnnMulGetWorkspaceSize", "add executor to aclnnMul");
	ACL_OK(aclnnAdd(NULL, 0, ex, g_stream));
	expect(aclnnAdd(NULL, 0, ex, g_stream), ACLNN_ERR_PARAM_INVALID, "aclnnAdd",
	       "not a live executor", "executor used twice");
	/* A foreign executor. */
	expect(aclnnAdd(NULL, 0, (aclOpExecutor *)&ws, g_stream), ACLNN_ERR_PARAM_INVALID,
	       "aclnnAdd", "not a live executor", "foreign executor");
	ACL_OK(aclrtSynchronizeStream(g_stream));

	/* Bad tensors and scalars are not made. */
	const int64_t sh[1] = { 4 }, st[1] = { 1 }, neg[1] = { -1 }, nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	assert_null(aclCreateTensor(NULL, 1, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sh, 1, g_a));
	expect(0, 0, "aclCreateTensor", "viewDims is NULL", "viewDims NULL");
	assert_null(aclCreateTensor(sh, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, sh, 1, g_a));
	expect(0, 0, "aclCreateTensor", "stride is NULL", "stride NULL");
	assert_null(aclCreateTensor(neg, 1, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sh, 1, g_a));
	expect(0, 0, "aclCreateTensor", "negative dimension", "negative dimension");
	assert_null(aclCreateTensor(sh, 1, ACL_FLOAT, st, -1, ACL_FORMAT_ND, sh, 1, g_a));
	expect(0, 0, "aclCreateTensor", "offset -1", "negative offset");
	assert_null(aclCreateTensor(nine, 9, ACL_FLOAT, nine, 0, ACL_FORMAT_ND, sh, 1, g_a));
	expect(0, 0, "aclCreateTensor", "at most 8", "9 dimensions");
	assert_null(aclCreateTensor(sh, 1, ACL_STRING, st, 0, ACL_FORMAT_ND, sh, 1, g_a));
	expect(0, 0, "aclCreateTensor", "dataType 13", "string tensor");
	assert_null(aclCreateTensor(sh, 1, ACL_DT_UNDEFINED, st, 0, ACL_FORMAT_ND, sh, 1, g_a));
	expect(0, 0, "aclCreateTensor", "dataType -1", "undefined data type");
	assert_null(aclCreateScalar(NULL, ACL_FLOAT));
	expect(0, 0, "aclCreateScalar", "value is NULL", "scalar value NULL");
	assert_null(aclCreateScalar(&ws, ACL_STRING));
	expect(0, 0, "aclCreateScalar", "dataType", "string scalar");

	ACL_OK(aclDestroyTensor(t));
	ACL_OK(aclDestroyTensor(u));
	ACL_OK(aclDestroyTensor(o));
	ACL_OK(aclDestroyScalar(one));
}

/* What is refused at the first call, with the operator's code and a message. */
static void test_unsupported(void **state)
{
	const int64_t s4[1] = { 4 }, s24[2] = { 2, 4 }, st24[2] = { 4, 1 };
	const int64_t st1[1] = { 1 }, st2[1] = { 2 }, s8[1] = { 8 };
	aclTensor *a = vec(g_a, 4, ACL_FLOAT), *b = vec(g_b, 4, ACL_FLOAT), *o = vec(g_o, 4, ACL_FLOAT);
	aclTensor *b3 = vec(g_b, 3, ACL_FLOAT);
	aclTensor *o24 = aclCreateTensor(s24, 2, ACL_FLOAT, st24, 0, ACL_FORMAT_ND, s24, 2, g_o);
	aclTensor *a24 = aclCreateTensor(s24, 2, ACL_FLOAT, st24, 0, ACL_FORMAT_ND, s24, 2, g_a);
	aclTensor *strided = aclCreateTensor(s4, 1, ACL_FLOAT, st2, 0, ACL_FORMAT_ND, s8, 1, g_b);
	aclTensor *ai = vec(g_a, 4, ACL_INT32), *oi = vec(g_o, 4, ACL_INT32);
	aclTensor *bi = vec(g_b, 4, ACL_INT32), *ad = vec(g_a, 4, ACL_DOUBLE);
	aclTensor *bd = vec(g_b, 4, ACL_DOUBLE), *od = vec(g_o, 4, ACL_DOUBLE);
	aclTensor *au8 = vec(g_a, 4, ACL_UINT8), *bu8 = vec(g_b, 4, ACL_UINT8), *ou8 = vec(g_o, 4, ACL_UINT8);
	aclTensor *o_on_b = vec((char *)g_b + 8, 4, ACL_FLOAT);
	aclTensor *o_in_a = vec((char *)g_a + 4, 4, ACL_FLOAT);
	aclTensor *nz = aclCreateTensor(s4, 1, ACL_FLOAT, st1, 0, ACL_FORMAT_FRACTAL_NZ, s4, 1, g_b);
	aclTensor *past = aclCreateTensor(s4, 1, ACL_FLOAT, st1, 2, ACL_FORMAT_ND, s4, 1, g_b);
	aclTensor *nodata = aclCreateTensor(s4, 1, ACL_FLOAT, st1, 0, ACL_FORMAT_ND, s4, 1, NULL);
	aclTensor *wraps = aclCreateTensor(s4, 1, ACL_FLOAT, st1, 0, ACL_FORMAT_ND, s4, 1,
					   (void *)(uintptr_t)-8);
	const float f15 = 1.5f;
	const double one_d = 1.0;
	aclScalar *alpha15 = aclCreateScalar((void *)&f15, ACL_FLOAT);
	aclScalar *one = aclCreateScalar((void *)&one_d, ACL_DOUBLE);
	uint64_t ws;
	aclOpExecutor *ex;
	const char *gws = "aclnnAddGetWorkspaceSize";
	const struct {
		const char *what;
		aclTensor *self, *other, *out;
		aclScalar *alpha;
		aclnnStatus code;
		const char *says;
	} rows[] = {
		{ "int32 alpha 1.5", ai, bi, oi, alpha15, ACLNN_ERR_PARAM_INVALID,
		  "alpha 1.5 is not a value of self's type ACL_INT32" },
		{ "broadcast", a24, b, o24, one, ACLNN_ERR_PARAM_INVALID, "broadcasting is not supported" },
		{ "no broadcast", a, b3, o, one, ACLNN_ERR_PARAM_INVALID, "do not broadcast" },
		{ "out shape", a, b, o24, one, ACLNN_ERR_PARAM_INVALID, "out has shape [2,4]" },
		{ "strided", a, strided, o, one, ACLNN_ERR_PARAM_INVALID, "not contiguous" },
		{ "mixed", a, bi, o, one, ACLNN_ERR_PARAM_INVALID, "mixed data types" },
		{ "double", ad, bd, od, one, ACLNN_ERR_PARAM_INVALID, "self has data type 11" },
		{ "uint8", au8, bu8, ou8, one, ACLNN_ERR_PARAM_INVALID, "self has data type 4" },
		{ "out on other", a, b, o_on_b, one, ACLNN_ERR_PARAM_INVALID, "out and other overlap" },
		{ "out inside self", a, b, o_in_a, one, ACLNN_ERR_PARAM_INVALID, "out and self overlap" },
		{ "format", a, nz, o, one, ACLNN_ERR_PARAM_INVALID, "format 29" },
		{ "past storage", a, past, o, one, ACLNN_ERR_PARAM_INVALID, "inside its storage" },
		{ "no data", a, nodata, o, one, ACLNN_ERR_PARAM_NULLPTR, "other's data is NULL" },
		{ "wraps", a, wraps, o, one, ACLNN_ERR_PARAM_INVALID, "past the end of the address space" },
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ex = NULL;
		expect(aclnnAddGetWorkspaceSize(rows[i].self, rows[i].other, rows[i].alpha, rows[i].out,
						&ws, &ex),
		       rows[i].code, gws, rows[i].says, rows[i].what);
		assert_null(ex);
	}
	/* aclnnMul's checks are the same but for alpha. */
	expect(aclnnMulGetWorkspaceSize(a, strided, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
	       "aclnnMulGetWorkspaceSize", "not contiguous", "mul strided");
	/* An alpha of 1 in double is accepted, as the float one. */
	ACL_OK(aclnnAddGetWorkspaceSize(a, b, one, o, &ws, &ex));
	ACL_OK(aclnnAdd(NULL, 0, ex, g_stream));
	ACL_OK(aclrtSynchronizeStream(g_stream));

	aclTensor *all[] = { a, b, o, ai, oi, b3, o24, a24, strided, bi, ad, bd, od, au8, bu8, ou8,
			     o_on_b, o_in_a, nz, past, nodata, wraps };
	for (unsigned int i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		assert_non_null(all[i]);
		ACL_OK(aclDestroyTensor(all[i]));
	}
	ACL_OK(aclDestroyScalar(alpha15));
	ACL_OK(aclDestroyScalar(one));
}

/*
 * Failures only the run finds (memory that is not the device's) are
 * ACLNN_ERR_RUNTIME_ERROR and queue nothing: out keeps its contents. An
 * empty tensor runs nothing.
 */
static void test_runtime_errors_and_empty(void **state)
{
	float host[4] = { 1, 2, 3, 4 }, o[4];
	const float keep[4] = { 9, 9, 9, 9 };
	aclTensor *a = vec(g_a, 4, ACL_FLOAT), *h = vec(host, 4, ACL_FLOAT), *out = vec(g_o, 4, ACL_FLOAT);
	aclTensor *e1 = vec(g_a, 0, ACL_FLOAT), *e2 = vec(g_b, 0, ACL_FLOAT), *e3 = vec(g_o, 0, ACL_FLOAT);
	aclScalar *one = scalar_f(1.0f);
	uint64_t ws;
	aclOpExecutor *ex;

	(void)state;
	ACL_OK(aclrtMemcpy(g_o, BUF, keep, sizeof(keep), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclnnAddGetWorkspaceSize(a, h, one, out, &ws, &ex));
	expect(aclnnAdd(NULL, 0, ex, g_stream), ACLNN_ERR_RUNTIME_ERROR, "aclnnAdd", "other",
	       "host memory as other");
	ACL_OK(aclnnMulGetWorkspaceSize(h, a, out, &ws, &ex));
	expect(aclnnMul(NULL, 0, ex, g_stream), ACLNN_ERR_RUNTIME_ERROR, "aclnnMul", "self",
	       "host memory as self");
	ACL_OK(aclnnAddGetWorkspaceSize(e1, e2, one, e3, &ws, &ex));
	assert_int_equal(ws, 0);
	ACL_OK(aclnnAdd(NULL, 0, ex, g_stream));
	ACL_OK(aclrtSynchronizeStream(g_stream));
	ACL_OK(aclrtMemcpy(o, sizeof(o), g_o, sizeof(o), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(o, keep, sizeof(keep));
	ACL_OK(aclDestroyTensor(a));
	ACL_OK(aclDestroyTensor(h));
	ACL_OK(aclDestroyTensor(out));
	ACL_OK(aclDestroyTensor(e1));
	ACL_OK(aclDestroyTensor(e2));
	ACL_OK(aclDestroyTensor(e3));
	ACL_OK(aclDestroyScalar(one));
}

/* Destroyed and foreign handles are refused, never used; NULL is fine to destroy. */
static void test_destroyed_handles(void **state)
{
	aclTensor *a = vec(g_a, 4, ACL_FLOAT), *b = vec(g_b, 4, ACL_FLOAT), *o = vec(g_o, 4, ACL_FLOAT);
	aclScalar *one = scalar_f(1.0f);
	int64_t junk[16] = { 0 };
	uint64_t ws;
	aclOpExecutor *ex = NULL;

	(void)state;
	ACL_OK(aclDestroyTensor(b));
	expect(aclnnAddGetWorkspaceSize(a, b, one, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
	       "aclnnAddGetWorkspaceSize", "not a live tensor", "destroyed other");
	assert_null(ex);
	expect(aclDestroyTensor(b), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor", "not a live tensor",
	       "tensor destroyed twice");
	expect(aclDestroyTensor((aclTensor *)junk), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor",
	       "not a live tensor", "foreign tensor");
	expect(aclnnMulGetWorkspaceSize((aclTensor *)junk, a, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
	       "aclnnMulGetWorkspaceSize", "self", "foreign self");
	/* A scalar is not a tensor, nor a tensor a scalar. */
	expect(aclDestroyTensor((aclTensor *)one), ACLNN_ERR_PARAM_INVALID, "aclDestroyTensor",
	       "not a live tensor", "scalar as tensor");
	expect(aclnnAddGetWorkspaceSize(a, a, (aclScalar *)o, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
	       "aclnnAddGetWorkspaceSize", "not a live scalar", "tensor as alpha");
	ACL_OK(aclDestroyScalar(one));
	expect(aclDestroyScalar(one), ACLNN_ERR_PARAM_INVALID, "aclDestroyScalar",
	       "not a live scalar", "scalar destroyed twice");
	expect(aclnnAddGetWorkspaceSize(a, a, one, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
	       "aclnnAddGetWorkspaceSize", "alpha", "destroyed alpha");
	assert_int_equal(aclDestroyTensor(NULL), ACLNN_SUCCESS);
	assert_int_equal(aclDestroyScalar(NULL), ACLNN_SUCCESS);
	ACL_OK(aclDestroyTensor(a));
	ACL_OK(aclDestroyTensor(o));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quickstart),
		cmocka_unit_test(test_add_mul_float_int32),
		cmocka_unit_test(test_out_aliases_self),
		cmocka_unit_test(test_stream_order),
		cmocka_unit_test(test_alpha),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_runtime_errors_and_empty),
		cmocka_unit_test(test_destroyed_handles),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
