// SPDX-License-Identifier: MIT
// rtMemcpy, rtMemcpyAsync and rtMemcpyAsyncWithoutCheckKind.
#include "rt_api/rt_call.h"

using npu::rt::EnumValue;
using npu::rt::Error;
using npu::rt::FromAcl;
using npu::rt::RunApi;

namespace {

// The aclrtMemcpyKind of an rtMemcpyKind_t: the four directions and
// RT_MEMCPY_DEFAULT; the other kinds are other operations.
Error KindOf(const rtMemcpyKind_t &kind, aclrtMemcpyKind *out) {
    const int32_t k = EnumValue(kind);
    switch (k) {
        case RT_MEMCPY_HOST_TO_HOST:
            *out = ACL_MEMCPY_HOST_TO_HOST;
            return Error::Ok();
        case RT_MEMCPY_HOST_TO_DEVICE:
            *out = ACL_MEMCPY_HOST_TO_DEVICE;
            return Error::Ok();
        case RT_MEMCPY_DEVICE_TO_HOST:
            *out = ACL_MEMCPY_DEVICE_TO_HOST;
            return Error::Ok();
        case RT_MEMCPY_DEVICE_TO_DEVICE:
            *out = ACL_MEMCPY_DEVICE_TO_DEVICE;
            return Error::Ok();
        case RT_MEMCPY_DEFAULT:
            *out = ACL_MEMCPY_DEFAULT;
            return Error::Ok();
        case RT_MEMCPY_MANAGED:
        case RT_MEMCPY_ADDR_DEVICE_TO_DEVICE:
        case RT_MEMCPY_HOST_TO_DEVICE_EX:
        case RT_MEMCPY_DEVICE_TO_HOST_EX:
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "kind %d is not a plain copy; only RT_MEMCPY_HOST_TO_HOST to "
                                 "_DEVICE_TO_DEVICE and RT_MEMCPY_DEFAULT are supported",
                                 k);
        default:
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "kind %d is not an rtMemcpyKind_t", k);
    }
}

}  // namespace

rtError_t rtMemcpy(void *dst, uint64_t destMax, const void *src, uint64_t cnt,
                   rtMemcpyKind_t kind) {
    return RunApi("rtMemcpy", [&] {
        aclrtMemcpyKind k = ACL_MEMCPY_DEFAULT;
        NPU_RETURN_IF_ERROR(KindOf(kind, &k));
        return FromAcl(aclrtMemcpy(dst, destMax, src, cnt, k), "aclrtMemcpy");
    });
}

rtError_t rtMemcpyAsync(void *dst, uint64_t destMax, const void *src, uint64_t cnt,
                        rtMemcpyKind_t kind, rtStream_t stm) {
    return RunApi("rtMemcpyAsync", [&] {
        aclrtMemcpyKind k = ACL_MEMCPY_DEFAULT;
        NPU_RETURN_IF_ERROR(KindOf(kind, &k));
        return FromAcl(aclrtMemcpyAsync(dst, destMax, src, cnt, k, stm), "aclrtMemcpyAsync");
    });
}

rtError_t rtMemcpyAsyncWithoutCheckKind(void *dst, uint64_t destMax, const void *src, uint64_t cnt,
                                        rtMemcpyKind_t kind, rtStream_t stm) {
    return RunApi("rtMemcpyAsyncWithoutCheckKind", [&] {
        aclrtMemcpyKind k = ACL_MEMCPY_DEFAULT;
        NPU_RETURN_IF_ERROR(KindOf(kind, &k));
        return FromAcl(aclrtMemcpyAsync(dst, destMax, src, cnt, ACL_MEMCPY_DEFAULT, stm),
                       "aclrtMemcpyAsync");
    });
}
