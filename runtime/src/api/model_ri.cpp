// SPDX-License-Identifier: MIT
// Model runtime instances (aclmdlRI*: stream capture, task groups and their
// update, build with bound streams, execution, debug dumps) and labels
// (aclrtCreateLabel .. aclrtSwitchLabelByIndex). The model itself is
// core/model_ri.h; these are the checks of the C API, in upstream's order:
// NULL arguments (ACL_ERROR_INVALID_PARAM), then the stream and context.
#include <cstdio>
#include <memory>
#include <string>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/model_ri.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::StreamRef;

namespace {

// The explicit stream of a model call, in the current context.
Error ModelStream(aclrtStream stream, std::shared_ptr<Context> *ctx, StreamRef *ref) {
    return npu::rt::CurrentContextStream(stream, ctx, ref);
}

}  // namespace

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
    return RunApi("aclmdlRICaptureBegin", [&] {
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::CaptureBegin(*ctx, *ref.get(), npu::rt::EnumValue(mode));
    });
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
                                aclmdlRI *modelRI) {
    return RunApi("aclmdlRICaptureGetInfo", [&] {
        NPU_ACL_CHECK(status != nullptr, "status is NULL");
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        int32_t st = 0;
        void *m = nullptr;
        NPU_RETURN_IF_ERROR(npu::rt::CaptureInfo(*ref.get(), &st, &m));
        *status = static_cast<aclmdlRICaptureStatus>(st);
        *modelRI = static_cast<aclmdlRI>(m);
        return Error::Ok();
    });
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI) {
    return RunApi("aclmdlRICaptureEnd", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        void *m = nullptr;
        NPU_RETURN_IF_ERROR(npu::rt::CaptureEnd(*ref.get(), &m));
        *modelRI = static_cast<aclmdlRI>(m);
        return Error::Ok();
    });
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode) {
    return RunApi("aclmdlRICaptureThreadExchangeMode", [&] {
        NPU_ACL_CHECK(mode != nullptr, "mode is NULL");
        int32_t m = npu::rt::EnumValue(*mode);
        NPU_RETURN_IF_ERROR(npu::rt::ExchangeCaptureMode(&m));
        *mode = static_cast<aclmdlRICaptureMode>(m);
        return Error::Ok();
    });
}

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream) {
    return RunApi("aclmdlRICaptureTaskGrpBegin", [&] {
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::TaskGroupBegin(*ref.get());
    });
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle) {
    return RunApi("aclmdlRICaptureTaskGrpEnd", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        void *g = nullptr;
        NPU_RETURN_IF_ERROR(npu::rt::TaskGroupEnd(*ref.get(), &g));
        *handle = static_cast<aclrtTaskGrp>(g);
        return Error::Ok();
    });
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle) {
    return RunApi("aclmdlRICaptureTaskUpdateBegin", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::TaskUpdateBegin(*ref.get(), handle);
    });
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream) {
    return RunApi("aclmdlRICaptureTaskUpdateEnd", [&] {
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::TaskUpdateEnd(*ref.get());
    });
}

aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag) {
    return RunApi("aclmdlRIBuildBegin", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        NPU_ACL_CHECK(flag == 0, "flag %u is reserved and must be 0", flag);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(npu::rt::ThreadState::RequireContext(&ctx));
        void *m = nullptr;
        NPU_RETURN_IF_ERROR(npu::rt::BuildBegin(*ctx, &m));
        *modelRI = static_cast<aclmdlRI>(m);
        return Error::Ok();
    });
}

aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag) {
    return RunApi("aclmdlRIBindStream", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        (void)flag;  // head or not: the model's tasks run on one stream here
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        NPU_RETURN_IF_ERROR(npu::rt::CheckModel(modelRI, ctx.get()));
        return npu::rt::BindStream(modelRI, *ref.get());
    });
}

aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream) {
    return RunApi("aclmdlRIUnbindStream", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::UnbindStream(modelRI, *ref.get());
    });
}

aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream) {
    return RunApi("aclmdlRIEndTask", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::EndTask(modelRI, *ref.get());
    });
}

aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve) {
    return RunApi("aclmdlRIBuildEnd", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        NPU_ACL_CHECK(reserve == nullptr, "reserve is a reserved parameter and must be NULL");
        return npu::rt::BuildEnd(modelRI);
    });
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
    return RunApi("aclmdlRIExecuteAsync", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::Execute(modelRI, ref, ctx.get());
    });
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout) {
    return RunApi("aclmdlRIExecute", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        NPU_ACL_CHECK(timeout >= -1, "timeout %d ms is neither -1 (forever) nor positive", timeout);
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        // On the context's default stream, which is never captured.
        NPU_RETURN_IF_ERROR(ModelStream(nullptr, &ctx, &ref));
        NPU_RETURN_IF_ERROR(npu::rt::Execute(modelRI, ref, ctx.get()));
        const uint64_t ns = timeout <= 0 ? 0 : static_cast<uint64_t>(timeout) * 1000000;
        return ref->Synchronize(ns);
    });
}

aclError aclmdlRIDestroy(aclmdlRI modelRI) {
    return RunApi("aclmdlRIDestroy", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        return npu::rt::DestroyModel(modelRI);
    });
}

aclError aclmdlRIDebugPrint(aclmdlRI modelRI) {
    return RunApi("aclmdlRIDebugPrint", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        std::string text;
        NPU_RETURN_IF_ERROR(npu::rt::DebugText(modelRI, &text));
        std::fputs(text.c_str(), stderr);
        return Error::Ok();
    });
}

aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags) {
    return RunApi("aclmdlRIDebugJsonPrint", [&] {
        NPU_ACL_CHECK(modelRI != nullptr, "modelRI is NULL");
        NPU_ACL_CHECK(path != nullptr, "path is NULL");
        NPU_ACL_CHECK(flags == 0, "flags %u is reserved and must be 0", flags);
        std::string json;
        NPU_RETURN_IF_ERROR(npu::rt::DebugJson(modelRI, &json));
        std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path, "w"), std::fclose);
        if (!f)
            return Error::Format(ACL_ERROR_INVALID_PARAM, "cannot write the JSON to %s", path);
        if (std::fwrite(json.data(), 1, json.size(), f.get()) != json.size())
            return Error::Format(ACL_ERROR_INVALID_PARAM, "cannot write the JSON to %s", path);
        return Error::Ok();
    });
}

aclError aclrtCreateLabel(aclrtLabel *label) {
    return RunApi("aclrtCreateLabel", [&] {
        NPU_ACL_CHECK(label != nullptr, "label is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(npu::rt::ThreadState::RequireContext(&ctx));
        void *l = nullptr;
        NPU_RETURN_IF_ERROR(npu::rt::CreateLabel(&l));
        *label = static_cast<aclrtLabel>(l);
        return Error::Ok();
    });
}

aclError aclrtDestroyLabel(aclrtLabel label) {
    return RunApi("aclrtDestroyLabel", [&] {
        NPU_ACL_CHECK(label != nullptr, "label is NULL");
        return npu::rt::DestroyLabel(label);
    });
}

aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream) {
    return RunApi("aclrtSetLabel", [&] {
        NPU_ACL_CHECK(label != nullptr, "label is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::SetLabel(label, *ref.get());
    });
}

aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList) {
    return RunApi("aclrtCreateLabelList", [&] {
        NPU_ACL_CHECK(labels != nullptr, "labels is NULL");
        NPU_ACL_CHECK(labelList != nullptr, "labelList is NULL");
        NPU_ACL_CHECK(num != 0, "num is 0");
        void *l = nullptr;
        NPU_RETURN_IF_ERROR(
            npu::rt::CreateLabelList(reinterpret_cast<void *const *>(labels), num, &l));
        *labelList = static_cast<aclrtLabelList>(l);
        return Error::Ok();
    });
}

aclError aclrtDestroyLabelList(aclrtLabelList labelList) {
    return RunApi("aclrtDestroyLabelList", [&] {
        NPU_ACL_CHECK(labelList != nullptr, "labelList is NULL");
        return npu::rt::DestroyLabelList(labelList);
    });
}

aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
                                 aclrtStream stream) {
    return RunApi("aclrtSwitchLabelByIndex", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL");
        NPU_ACL_CHECK(labelList != nullptr, "labelList is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ModelStream(stream, &ctx, &ref));
        return npu::rt::SwitchLabelByIndex(ptr, maxValue, labelList, *ref.get());
    });
}
