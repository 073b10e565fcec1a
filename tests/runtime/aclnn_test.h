/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the runtime tests that run aclnnAdd and aclnnMul (test_aclnn,
 * test_dump, test_prof_subscribe): tensors over device memory and one
 * operator call, run on a stream and waited for.
 */
#ifndef NPU_TESTS_RUNTIME_ACLNN_TEST_H
#define NPU_TESTS_RUNTIME_ACLNN_TEST_H

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "rt_test.h"

#define ACLNN_TEST_MAX_DIMS 8

/* A contiguous ND tensor of shape[0..ndims) over data. */
static inline aclTensor *aclnn_test_tensor(void *data, const int64_t *shape, uint64_t ndims,
					   aclDataType type)
{
	int64_t stride[ACLNN_TEST_MAX_DIMS];
	int64_t step = 1;
	aclTensor *t;

	assert_true(ndims >= 1 && ndims <= ACLNN_TEST_MAX_DIMS);
	for (uint64_t i = ndims; i-- > 0;) {
		stride[i] = step;
		step *= shape[i];
	}
	t = aclCreateTensor(shape, ndims, type, stride, 0, ACL_FORMAT_ND, shape, ndims, data);
	assert_non_null(t);
	return t;
}

/*
 * out = self + alpha * other (add) or self * other, on stream s, waited
 * for. Both ask for no workspace and give an executor.
 */
static inline void aclnn_test_run(aclrtStream s, int add, aclTensor *self, aclTensor *other,
				  aclScalar *alpha, aclTensor *out)
{
	uint64_t ws = 99;
	aclOpExecutor *ex = NULL;

	if (add) {
		ACL_OK(aclnnAddGetWorkspaceSize(self, other, alpha, out, &ws, &ex));
		assert_int_equal(ws, 0);
		assert_non_null(ex);
		ACL_OK(aclnnAdd(NULL, ws, ex, s));
	} else {
		ACL_OK(aclnnMulGetWorkspaceSize(self, other, out, &ws, &ex));
		assert_int_equal(ws, 0);
		assert_non_null(ex);
		ACL_OK(aclnnMul(NULL, ws, ex, s));
	}
	ACL_OK(aclrtSynchronizeStream(s));
}

/* out = a + b (add, alpha 1) or a * b over float tensors of one shape. */
static inline void aclnn_test_run_float(aclrtStream s, int add, void *a, void *b, void *out,
					const int64_t *shape, uint64_t ndims)
{
	aclTensor *ta = aclnn_test_tensor(a, shape, ndims, ACL_FLOAT);
	aclTensor *tb = aclnn_test_tensor(b, shape, ndims, ACL_FLOAT);
	aclTensor *to = aclnn_test_tensor(out, shape, ndims, ACL_FLOAT);
	float one = 1.0f;
	aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);

	assert_non_null(alpha);
	aclnn_test_run(s, add, ta, tb, alpha, to);
	aclDestroyTensor(ta);
	aclDestroyTensor(tb);
	aclDestroyTensor(to);
	aclDestroyScalar(alpha);
}

#endif /* NPU_TESTS_RUNTIME_ACLNN_TEST_H */
