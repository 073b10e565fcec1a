// SPDX-License-Identifier: MIT
/*
 * The CANN headers compile as C (this file is built with -pedantic) and
 * carry upstream's values and layouts.
 */
#include <stddef.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "rt_test.h"

_Static_assert(ACLNN_ERR_PARAM_NULLPTR == 161001 && ACLNN_ERR_PARAM_INVALID == 161002 &&
		       ACLNN_ERR_RUNTIME_ERROR == 361001 && ACLNN_ERR_INNER_NULLPTR == 561103,
	       "ACLNN_ERR_*");
_Static_assert(sizeof(aclnnStatus) == 4, "aclnnStatus");
_Static_assert(sizeof(aclprofTensor) == 48, "aclprofTensor");
_Static_assert(sizeof(aclprofTensorInfo) == 48, "aclprofTensorInfo");
_Static_assert(offsetof(aclprofTensorInfo, stream) == 32, "aclprofTensorInfo.stream");
_Static_assert(sizeof(aclprofEventAttributes) == 16, "aclprofEventAttributes");
_Static_assert(offsetof(aclprofEventAttributes, message) == 8, "aclprofEventAttributes.message");
_Static_assert(ACL_PROF_MSPROFTX == 0x80 && ACL_PROF_AICORE_SHAPE == 0x800000000ULL, "ACL_PROF_*");
_Static_assert(ACL_PROF_PATH == 16 && ACL_PROF_ARGS_MAX == 17, "aclprofConfigType");
_Static_assert(ACL_TENSOR_DATA_UNDEFINED == -1 && ACL_TENSOR_DATA_END_TENSOR == 4, "acltdtTensorType");
_Static_assert(ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL == 100, "acltdtQueueRouteQueryMode");
_Static_assert(ACL_TDT_QUEUE_PERMISSION_ENQUEUE == 4 && ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL == 2,
	       "acl_tdt_queue.h values");
_Static_assert(sizeof(aclrtMemLocation) == 8, "aclrtMemLocation");
_Static_assert(offsetof(aclrtMemLocation, type) == 4, "aclrtMemLocation.type");
_Static_assert(sizeof(aclrtPtrAttributes) == 28, "aclrtPtrAttributes");
_Static_assert(offsetof(aclrtPtrAttributes, pageSize) == 8, "aclrtPtrAttributes.pageSize");
_Static_assert(sizeof(aclrtPhysicalMemProp) == 32, "aclrtPhysicalMemProp");
_Static_assert(offsetof(aclrtPhysicalMemProp, location) == 12, "aclrtPhysicalMemProp.location");
_Static_assert(offsetof(aclrtPhysicalMemProp, reserve) == 24, "aclrtPhysicalMemProp.reserve");
_Static_assert(offsetof(aclrtPtrAttributes, rsv) == 12, "aclrtPtrAttributes.rsv");
_Static_assert(offsetof(aclrtPhysicalMemProp, memAttr) == 8, "aclrtPhysicalMemProp.memAttr");
_Static_assert(sizeof(aclrtMemcpyBatchAttr) == 32, "aclrtMemcpyBatchAttr");
_Static_assert(offsetof(aclrtMemcpyBatchAttr, srcLoc) == 8, "aclrtMemcpyBatchAttr.srcLoc");
_Static_assert(offsetof(aclrtMemcpyBatchAttr, rsv) == 16, "aclrtMemcpyBatchAttr.rsv");
_Static_assert(sizeof(aclrtMallocAttrValue) == 8, "aclrtMallocAttrValue");
_Static_assert(_Alignof(aclrtMallocAttrValue) == 4, "aclrtMallocAttrValue alignment");
_Static_assert(sizeof(aclrtMallocAttribute) == 12, "aclrtMallocAttribute");
_Static_assert(offsetof(aclrtMallocAttribute, value) == 4, "aclrtMallocAttribute.value");
_Static_assert(sizeof(aclrtMallocConfig) == 16, "aclrtMallocConfig");
_Static_assert(offsetof(aclrtMallocConfig, numAttrs) == 8, "aclrtMallocConfig.numAttrs");
_Static_assert(sizeof(aclrtMemAccessDesc) == 24, "aclrtMemAccessDesc");
_Static_assert(offsetof(aclrtMemAccessDesc, location) == 4, "aclrtMemAccessDesc.location");
_Static_assert(offsetof(aclrtMemAccessDesc, rsv) == 12, "aclrtMemAccessDesc.rsv");
_Static_assert(sizeof(aclrtMemFabricHandle) == 128, "aclrtMemFabricHandle");
_Static_assert(sizeof(aclrtServerPid) == 24, "aclrtServerPid");
_Static_assert(offsetof(aclrtServerPid, pid) == 8, "aclrtServerPid.pid");
_Static_assert(offsetof(aclrtServerPid, num) == 16, "aclrtServerPid.num");
_Static_assert(sizeof(aclrtMemUsageInfo) == 112, "aclrtMemUsageInfo");
_Static_assert(sizeof(aclrtIpcEventHandle) == 64, "aclrtIpcEventHandle");
_Static_assert(sizeof(aclrtMemManagedLocation) == 8, "aclrtMemManagedLocation");

static void test_enum_values_match_upstream(void **state)
{
	(void)state;
	assert_int_equal(ACL_MEMCPY_DEFAULT, 4);
	assert_int_equal(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 7);
	assert_int_equal(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 7);
	assert_int_equal(ACL_MEM_ACCESS_USER_SPACE_READONLY, 0x100000);
	assert_int_equal(ACL_MEM_P2P_HUGE1G, 17);
	assert_int_equal(HUGE1G_PAGE_TYPE, 2);
	assert_int_equal(P2P_DDR_TYPE, 3);
	assert_int_equal(ACL_MEM_LOCATION_TYPE_HOST_NUMA, 4);
	assert_int_equal(ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, 0xFFFF);
	assert_int_equal(ACL_EVENT_RECORDED_STATUS_COMPLETE, 1);
	assert_int_equal(ACL_EVENT_STATUS_COMPLETE, 0);
	assert_int_equal(ACL_HOST_REG_PINNED, 0x10000000UL);
	assert_int_equal(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000);
	assert_int_equal(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007);
	assert_int_equal(ACL_ERROR_REPEAT_FINALIZE, 100037);
	assert_int_equal(ACL_ERROR_FEATURE_UNSUPPORTED, 200006);
	assert_int_equal(ACL_ERROR_RT_CCU_EXCEPTION, 507916);
	assert_int_equal(sizeof(aclrtMemcpyKind), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enum_values_match_upstream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
