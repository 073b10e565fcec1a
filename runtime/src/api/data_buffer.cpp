// SPDX-License-Identifier: MIT
// Data buffers (aclCreateDataBuffer and its getters and setters): a host
// object that describes (data, size) and does not own the memory. Upstream
// never validates the pair; NULL buffers are rejected by Destroy and Update
// (ACL_ERROR_INVALID_PARAM) and read as NULL / 0 by the getters.
#include <cstdint>

#include "acl/acl.h"
#include "api/api_boundary.h"

using npu::rt::Error;
using npu::rt::RunApi;

// The object behind the opaque aclDataBuffer of acl_base_rt.h.
struct aclDataBuffer {
    void *data;
    uint64_t length;
};

namespace {

// For the getters, which cannot return a code: the message of a NULL buffer.
void RecordNullBuffer(const char *api) {
    RunApi(api, [] { return Error::Format(ACL_ERROR_INVALID_PARAM, "dataBuffer is NULL"); });
}

}  // namespace

aclDataBuffer *aclCreateDataBuffer(void *data, size_t size) {
    aclDataBuffer *buffer = nullptr;
    // RunApi turns a failed allocation into a message and NULL.
    RunApi("aclCreateDataBuffer", [&] {
        buffer = new aclDataBuffer{data, size};
        return Error::Ok();
    });
    return buffer;
}

aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer) {
    return RunApi("aclDestroyDataBuffer", [&] {
        NPU_ACL_CHECK(dataBuffer != nullptr, "dataBuffer is NULL");
        delete dataBuffer;
        return Error::Ok();
    });
}

aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size) {
    return RunApi("aclUpdateDataBuffer", [&] {
        NPU_ACL_CHECK(dataBuffer != nullptr, "dataBuffer is NULL (data %p, size %zu)", data, size);
        dataBuffer->data = data;
        dataBuffer->length = size;
        return Error::Ok();
    });
}

void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer) {
    if (dataBuffer == nullptr) {
        RecordNullBuffer("aclGetDataBufferAddr");
        return nullptr;
    }
    return dataBuffer->data;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer) {
    if (dataBuffer == nullptr) {
        RecordNullBuffer("aclGetDataBufferSizeV2");
        return 0;
    }
    return dataBuffer->length;
}

// Deprecated: the size truncated to 32 bits, as upstream.
uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer) {
    if (dataBuffer == nullptr) {
        RecordNullBuffer("aclGetDataBufferSize");
        return 0;
    }
    return static_cast<uint32_t>(dataBuffer->length);
}
