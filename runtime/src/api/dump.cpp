// SPDX-License-Identifier: MIT
// The dump API: acl/acl_dump.h (libascend_dump.so) and the model dump
// calls of acl_rt.h (aclmdlInitDump, aclmdlSetDump, aclmdlFinalizeDump),
// over core/dump.h. Argument checks and codes in upstream's order: the
// adump calls fail with ACL_ERROR_FAILURE where upstream's do, the
// aclmdl*Dump calls need aclInit first (ACL_ERROR_UNINITIALIZE).
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_dump.h"
#include "api/api_boundary.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/dump.h"
#include "core/library.h"
#include "core/thread_state.h"

using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::dump::DumpState;

namespace {

Error RequireInit(const char *api) {
    if (!npu::rt::Library::Get().Initialized())
        return Error::Format(ACL_ERROR_UNINITIALIZE, "aclInit must be called before %s", api);
    return Error::Ok();
}

// Whether path p has a ".." segment (upstream refuses those).
bool HasParentSegment(const char *p) {
    const std::string s = p;
    size_t i = 0;
    while (i <= s.size()) {
        size_t j = s.find('/', i);
        if (j == std::string::npos)
            j = s.size();
        if (s.compare(i, j - i, "..") == 0 && j - i == 2)
            return true;
        i = j + 1;
    }
    return false;
}

// The checks of one acldumpTensorInfo, then its bytes read from the device.
Error ReadTensor(const npu::rt::Context &ctx, const acldumpTensorInfo &t, size_t i,
                 npu::rt::dump::Tensor *out) {
    NPU_ACL_CHECK(t.tensorAddr != nullptr, "tensors[%zu].tensorAddr is NULL", i);
    NPU_ACL_CHECK(t.tensorSize > 0, "tensors[%zu].tensorSize is 0", i);
    NPU_ACL_CHECK(
        t.shapeNum <= ACL_DUMP_MAX_SHAPE_NUM && t.originShapeNum <= ACL_DUMP_MAX_SHAPE_NUM,
        "tensors[%zu] has %u shape and %u origin shape dimensions, at most %d each", i, t.shapeNum,
        t.originShapeNum, ACL_DUMP_MAX_SHAPE_NUM);
    const int32_t addr_type = npu::rt::EnumValue(t.addrType);
    const int32_t placement = npu::rt::EnumValue(t.placement);
    NPU_ACL_CHECK(addr_type == ACL_DUMP_ADDR_RAW && placement == ACL_DUMP_PLACEMENT_DEVICE,
                  "tensors[%zu] is not a raw device address (addrType %d, placement %d)", i,
                  addr_type, placement);
    const int32_t type = npu::rt::EnumValue(t.type);
    NPU_ACL_CHECK(type >= ACL_DUMP_TENSOR_INPUT && type <= ACL_DUMP_TENSOR_WORKSPACE,
                  "tensors[%zu].type %d is not an acldumpTensorType", i, type);
    static const char *const kTypes[] = {"input", "output", "workspace"};
    out->type = kTypes[type];
    out->data_type = t.dataType;
    out->format = t.format;
    out->args_offset = t.argsOffset;
    for (uint32_t k = 0; k < t.shapeNum; k++)
        out->shape.push_back(static_cast<int64_t>(t.shape[k]));
    for (uint32_t k = 0; k < t.originShapeNum; k++)
        out->origin_shape.push_back(static_cast<int64_t>(t.originShape[k]));
    npu::rt::Operand o;
    Error e = npu::rt::ClassifyDeviceChecked(t.tensorAddr, t.tensorSize, "tensorAddr", &o);
    if (!e.ok())
        return Error::Format(ACL_ERROR_INVALID_PARAM, "tensors[%zu]: %s", i, e.message().c_str());
    out->data.resize(t.tensorSize);
    return npu::rt::CopyNow(ctx, out->data.data(), t.tensorAddr, t.tensorSize);
}

}  // namespace

aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t),
                            int32_t flag) {
    return RunApi("acldumpRegCallback", [&] {
        if (messageCallback == nullptr)
            return Error::Format(ACL_ERROR_FAILURE, "messageCallback is NULL");
        if (flag != 0)
            return Error::Format(ACL_ERROR_FAILURE, "flag %d is reserved and must be 0", flag);
        DumpState::Get().SetCallback(messageCallback);
        return Error::Ok();
    });
}

void acldumpUnregCallback(void) {
    RunApi("acldumpUnregCallback", [&] {
        DumpState::Get().SetCallback(nullptr);
        return Error::Ok();
    });
}

aclError aclopStartDumpArgs(uint32_t dumpType, const char *path) {
    return RunApi("aclopStartDumpArgs", [&] {
        if (path == nullptr)
            return Error::Format(ACL_ERROR_FAILURE, "path is NULL");
        if ((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) != ACL_OP_DUMP_OP_AICORE_ARGS)
            return Error::Format(ACL_ERROR_FAILURE,
                                 "dumpType 0x%x does not include ACL_OP_DUMP_OP_AICORE_ARGS",
                                 dumpType);
        return DumpState::Get().StartArgs(path);
    });
}

aclError aclopStopDumpArgs(uint32_t dumpType) {
    return RunApi("aclopStopDumpArgs", [&] {
        if ((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) == ACL_OP_DUMP_OP_AICORE_ARGS)
            DumpState::Get().StopArgs();
        return Error::Ok();
    });
}

const char *acldumpGetPath(acldumpType dumpType) {
    const char *path = nullptr;
    RunApi("acldumpGetPath", [&] {
        path = DumpState::Get().PathOf(npu::rt::EnumValue(dumpType));
        return Error::Ok();
    });
    return path;
}

aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
                                  const acldumpTensorInfo *tensors, size_t tensorCount) {
    return RunApi("acldumpSaveExceptionInfo", [&] {
        NPU_ACL_CHECK(fileName != nullptr, "fileName is NULL");
        NPU_ACL_CHECK(fileName[0] != '\0', "fileName is empty");
        NPU_ACL_CHECK(!HasParentSegment(fileName), "fileName \"%s\" has a \"..\" segment",
                      fileName);
        NPU_ACL_CHECK(tensors != nullptr, "tensors is NULL");
        NPU_ACL_CHECK(tensorCount > 0, "tensorCount is 0");
        std::shared_ptr<npu::rt::Context> ctx;
        NPU_RETURN_IF_ERROR(npu::rt::ThreadState::RequireContext(&ctx));
        std::string root;
        NPU_RETURN_IF_ERROR(DumpState::Get().ExceptionPath(ctx->user_device_id(), &root));
        std::vector<npu::rt::dump::Tensor> read(tensorCount);
        for (size_t i = 0; i < tensorCount; i++)
            NPU_RETURN_IF_ERROR(ReadTensor(*ctx, tensors[i], i, &read[i]));
        return DumpState::Get().SaveException(ctx->user_device_id(), fileName,
                                              userTag != nullptr ? userTag : "", read);
    });
}

aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen) {
    return RunApi("acldumpGetExceptionInfoPath", [&] {
        NPU_ACL_CHECK(path != nullptr, "path is NULL");
        NPU_ACL_CHECK(maxLen > 1, "maxLen %zu is not greater than 1", maxLen);
        // The device of the calling thread's context (device 0 without one).
        std::shared_ptr<npu::rt::Context> ctx = npu::rt::ThreadState::CurrentContext();
        std::string root;
        NPU_RETURN_IF_ERROR(DumpState::Get().ExceptionPath(ctx ? ctx->user_device_id() : 0, &root));
        NPU_ACL_CHECK(root.size() + 1 <= maxLen,
                      "maxLen %zu is too small for the path (%zu bytes with its NUL)", maxLen,
                      root.size() + 1);
        std::memcpy(path, root.c_str(), root.size() + 1);
        return Error::Ok();
    });
}

aclError aclmdlInitDump(void) {
    return RunApi("aclmdlInitDump", [&] {
        NPU_RETURN_IF_ERROR(RequireInit("aclmdlInitDump"));
        return DumpState::Get().InitModelDump();
    });
}

aclError aclmdlSetDump(const char *dumpCfgPath) {
    return RunApi("aclmdlSetDump", [&] {
        NPU_RETURN_IF_ERROR(RequireInit("aclmdlSetDump"));
        return DumpState::Get().SetModelDump(dumpCfgPath);
    });
}

aclError aclmdlFinalizeDump(void) {
    return RunApi("aclmdlFinalizeDump", [&] {
        NPU_RETURN_IF_ERROR(RequireInit("aclmdlFinalizeDump"));
        return DumpState::Get().FinalizeModelDump();
    });
}
