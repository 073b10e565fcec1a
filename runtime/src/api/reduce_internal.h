// SPDX-License-Identifier: MIT
// The reduction path of aclrtReduceAsync (reduce.cpp), shared with the
// operators that run on it (aclnn.cpp): NPU_OP_REDUCE on a stream.
#ifndef NPU_RT_API_REDUCE_INTERNAL_H
#define NPU_RT_API_REDUCE_INTERNAL_H

#include <cstdint>

#include "core/error.h"

namespace npu::rt {

class Context;
class StreamRef;

// The device's element type (NPU_REDUCE_*) for an aclDataType: -1 for a
// type upstream's acl layer does not map (100000), -2 for one it maps but
// this device's copy engine does not reduce (207000, as a SoC without that
// type answers).
int32_t ReduceElementType(int32_t acl_type);
// Bytes of an element of a device element type (NPU_REDUCE_*).
uint32_t ReduceElementSize(int32_t dtype);
// ACL_ERROR_RT_FEATURE_NOT_SUPPORT when the driver of ref's device has no
// NPU_OP_REDUCE.
Error CheckReduceDriver(StreamRef &ref);
// Queues dst[i] = op(dst[i], src[i]) over count bytes of elements of dtype
// (NPU_REDUCE_*) on ref, a stream of ctx, once the driver is known to
// reduce, the operands are aligned, inside live device allocations and dst
// is memory of the stream's device. op is an NPU_REDUCE_* operation.
Error QueueReduce(StreamRef &ref, Context *ctx, void *dst, const void *src, uint64_t count,
                  uint32_t op, int32_t dtype);

}  // namespace npu::rt

#endif  // NPU_RT_API_REDUCE_INTERNAL_H
