// SPDX-License-Identifier: MIT
// The skeleton of CANN's runtime samples (conventions 3.8), on memory APIs
// only: init, device, stream, a device buffer, a host -> device -> host
// round trip checked byte by byte, then everything released in the
// samples' order. It logs as the samples do ("[INFO]  ", "[ERROR]  " on
// stdout) and, like them, returns -1 (exit status 255) when a call fails.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"

#define INFO_LOG(fmt, ...) std::printf("[INFO]  " fmt "\n", ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) std::printf("[ERROR]  " fmt "\n", ##__VA_ARGS__)

#define CHECK_ERROR(call)                                                                  \
    do {                                                                                   \
        aclError ret_ = (call);                                                            \
        if (ret_ != ACL_SUCCESS) {                                                         \
            ERROR_LOG("Operation failed: %s returned error code %d", #call,                 \
                      static_cast<int>(ret_));                                             \
            return -1;                                                                     \
        }                                                                                  \
    } while (0)

int main()
{
    const int32_t deviceId = 0;
    const size_t size = 4 * 1024 * 1024;
    aclrtStream stream = nullptr;
    void *devPtr = nullptr;
    std::vector<uint8_t> src(size);
    std::vector<uint8_t> dst(size, 0);

    for (size_t i = 0; i < size; ++i) {
        src[i] = static_cast<uint8_t>(i * 31 + 7);
    }

    CHECK_ERROR(aclInit(nullptr));
    CHECK_ERROR(aclrtSetDevice(deviceId));
    CHECK_ERROR(aclrtCreateStream(&stream));
    INFO_LOG("Device %d set, stream created", deviceId);

    CHECK_ERROR(aclrtMalloc(&devPtr, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemcpy(devPtr, size, src.data(), size, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtMemcpy(dst.data(), size, devPtr, size, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < size; ++i) {
        if (dst[i] != src[i]) {
            ERROR_LOG("Round trip differs at byte %zu: wrote %u, read %u", i,
                      static_cast<unsigned>(src[i]), static_cast<unsigned>(dst[i]));
            return -1;
        }
    }
    INFO_LOG("Source data: %u ... %u", static_cast<unsigned>(src[0]),
             static_cast<unsigned>(src[size - 1]));
    INFO_LOG("Destination data: %u ... %u", static_cast<unsigned>(dst[0]),
             static_cast<unsigned>(dst[size - 1]));

    CHECK_ERROR(aclrtFree(devPtr));
    CHECK_ERROR(aclrtDestroyStreamForce(stream));
    CHECK_ERROR(aclrtResetDeviceForce(deviceId));
    CHECK_ERROR(aclFinalize());
    INFO_LOG("Memory round trip of %zu bytes completed successfully", size);
    return 0;
}
