// SPDX-License-Identifier: MIT
// aclInit, aclFinalize, aclFinalizeReference, and the
// hooks they call: aclInitCallbackRegister, aclInitCallbackUnRegister,
// aclFinalizeCallbackRegister, aclFinalizeCallbackUnRegister.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/library.h"

using npu::rt::EnumValue;
using npu::rt::Error;
using npu::rt::Library;
using npu::rt::RunApi;

aclError aclInit(const char *configPath) {
    return RunApi("aclInit", [&] { return Library::Get().Init(configPath); });
}

aclError aclFinalize() {
    return RunApi("aclFinalize", [&] { return Library::Get().Finalize(); });
}

aclError aclFinalizeReference(uint64_t *refCount) {
    return RunApi("aclFinalizeReference",
                  [&] { return Library::Get().FinalizeReference(refCount); });
}

namespace {

// A module of aclRegisterCallbackType: 0..7 or ACL_REG_TYPE_OTHER.
// t is the caller's value as an int: values outside the enum are not read
// through its type (api_boundary.h, EnumValue).
Error CheckHookType(int32_t t) {
    NPU_ACL_CHECK(
        (t >= ACL_REG_TYPE_ACL_MODEL && t <= ACL_REG_TYPE_ACL_RETR) || t == ACL_REG_TYPE_OTHER,
        "type %d is not an aclRegisterCallbackType", t);
    return Error::Ok();
}

}  // namespace

aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc,
                                 void *userData) {
    return RunApi("aclInitCallbackRegister", [&] {
        NPU_RETURN_IF_ERROR(CheckHookType(EnumValue(type)));
        NPU_ACL_CHECK(cbFunc != nullptr, "cbFunc is NULL");
        Library::Get().AddInitHook(EnumValue(type), cbFunc, userData);
        return Error::Ok();
    });
}

aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc) {
    return RunApi("aclInitCallbackUnRegister", [&] {
        NPU_RETURN_IF_ERROR(CheckHookType(EnumValue(type)));
        NPU_ACL_CHECK(cbFunc != nullptr, "cbFunc is NULL");
        Library::Get().RemoveInitHook(EnumValue(type), cbFunc);
        return Error::Ok();
    });
}

aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc,
                                     void *userData) {
    return RunApi("aclFinalizeCallbackRegister", [&] {
        NPU_RETURN_IF_ERROR(CheckHookType(EnumValue(type)));
        NPU_ACL_CHECK(cbFunc != nullptr, "cbFunc is NULL");
        Library::Get().AddFinalizeHook(EnumValue(type), cbFunc, userData);
        return Error::Ok();
    });
}

aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
                                       aclFinalizeCallbackFunc cbFunc) {
    return RunApi("aclFinalizeCallbackUnRegister", [&] {
        NPU_RETURN_IF_ERROR(CheckHookType(EnumValue(type)));
        NPU_ACL_CHECK(cbFunc != nullptr, "cbFunc is NULL");
        Library::Get().RemoveFinalizeHook(EnumValue(type), cbFunc);
        return Error::Ok();
    });
}
