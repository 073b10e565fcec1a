// SPDX-License-Identifier: MIT
// The external allocator of acl_rt_allocator.h: descriptors of allocator
// callbacks and their registration per stream (aclrtAllocatorRegister). The
// runtime stores them for the frameworks that read them back; it never calls
// the callbacks itself.
#include "acl/acl_rt_allocator.h"
#include "api/api_boundary.h"
#include "core/allocator_registry.h"

using npu::rt::AllocatorCallbacks;
using npu::rt::AllocatorRegistry;
using npu::rt::Error;
using npu::rt::RunApi;

namespace {

// The setters: desc and the value must not be NULL, desc must be live.
template <typename Update>
Error SetInDesc(aclrtAllocatorDesc desc, const void *value, const char *what, Update &&update) {
    NPU_ACL_CHECK(desc != nullptr, "allocatorDesc is NULL");
    NPU_ACL_CHECK(value != nullptr, "%s is NULL (allocatorDesc %p)", what, desc);
    NPU_ACL_CHECK(AllocatorRegistry::Get().UpdateDesc(desc, update),
                  "allocatorDesc %p is not a descriptor from aclrtAllocatorCreateDesc (or was "
                  "destroyed already)",
                  desc);
    return Error::Ok();
}

// Function pointers compared and printed as data pointers.
template <typename F>
const void *AsPtr(F f) {
    return reinterpret_cast<const void *>(f);
}

}  // namespace

aclrtAllocatorDesc aclrtAllocatorCreateDesc() {
    aclrtAllocatorDesc desc = nullptr;
    RunApi("aclrtAllocatorCreateDesc", [&] {
        desc = AllocatorRegistry::Get().CreateDesc();
        if (desc == nullptr)
            return Error::Format(ACL_ERROR_BAD_ALLOC, "out of host memory for a descriptor");
        return Error::Ok();
    });
    return desc;
}

aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc) {
    return RunApi("aclrtAllocatorDestroyDesc", [&] {
        NPU_ACL_CHECK(allocatorDesc != nullptr, "allocatorDesc is NULL");
        NPU_ACL_CHECK(AllocatorRegistry::Get().DestroyDesc(allocatorDesc),
                      "allocatorDesc %p is not a descriptor from aclrtAllocatorCreateDesc (or "
                      "was destroyed already)",
                      allocatorDesc);
        return Error::Ok();
    });
}

aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator) {
    return RunApi("aclrtAllocatorSetObjToDesc", [&] {
        return SetInDesc(allocatorDesc, allocator, "allocator",
                         [&](AllocatorCallbacks &c) { c.allocator = allocator; });
    });
}

aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                          aclrtAllocatorAllocFunc func) {
    return RunApi("aclrtAllocatorSetAllocFuncToDesc", [&] {
        return SetInDesc(allocatorDesc, AsPtr(func), "func",
                         [&](AllocatorCallbacks &c) { c.alloc = func; });
    });
}

aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                         aclrtAllocatorFreeFunc func) {
    return RunApi("aclrtAllocatorSetFreeFuncToDesc", [&] {
        return SetInDesc(allocatorDesc, AsPtr(func), "func",
                         [&](AllocatorCallbacks &c) { c.free = func; });
    });
}

aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                aclrtAllocatorAllocAdviseFunc func) {
    return RunApi("aclrtAllocatorSetAllocAdviseFuncToDesc", [&] {
        return SetInDesc(allocatorDesc, AsPtr(func), "func",
                         [&](AllocatorCallbacks &c) { c.alloc_advise = func; });
    });
}

aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                     aclrtAllocatorGetAddrFromBlockFunc func) {
    return RunApi("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", [&] {
        return SetInDesc(allocatorDesc, AsPtr(func), "func",
                         [&](AllocatorCallbacks &c) { c.get_addr = func; });
    });
}

aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc) {
    return RunApi("aclrtAllocatorRegister", [&] {
        NPU_ACL_CHECK(stream != nullptr,
                      "stream is NULL (the default stream cannot have an allocator)");
        NPU_ACL_CHECK(allocatorDesc != nullptr, "allocatorDesc is NULL (stream %p)", stream);
        // As upstream, the stream handle itself is not validated: the
        // registration is a record keyed by the handle.
        const char *missing = nullptr;
        bool live = AllocatorRegistry::Get().Register(
            stream, allocatorDesc, [&](const AllocatorCallbacks &c) {
                if (c.allocator == nullptr)
                    missing = "allocator object (aclrtAllocatorSetObjToDesc)";
                else if (c.alloc == nullptr)
                    missing = "alloc function (aclrtAllocatorSetAllocFuncToDesc)";
                else if (c.free == nullptr)
                    missing = "free function (aclrtAllocatorSetFreeFuncToDesc)";
                else if (c.get_addr == nullptr)
                    missing = "get-address function (aclrtAllocatorSetGetAddrFromBlockFuncToDesc)";
                return missing == nullptr;
            });
        NPU_ACL_CHECK(live,
                      "allocatorDesc %p is not a descriptor from aclrtAllocatorCreateDesc (or "
                      "was destroyed already)",
                      allocatorDesc);
        NPU_ACL_CHECK(missing == nullptr, "allocatorDesc %p has no %s", allocatorDesc, missing);
        return Error::Ok();
    });
}

aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                   aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                   aclrtAllocatorFreeFunc *freeFunc,
                                   aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                   aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc) {
    return RunApi("aclrtAllocatorGetByStream", [&] {
        NPU_ACL_CHECK(allocatorDesc != nullptr, "allocatorDesc is NULL (stream %p)", stream);
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL (the default stream has no allocator)");
        aclrtAllocatorDesc desc = nullptr;
        AllocatorCallbacks c;
        NPU_ACL_CHECK(AllocatorRegistry::Get().Lookup(stream, &desc, &c),
                      "stream %p has no registered allocator (aclrtAllocatorRegister)", stream);
        *allocatorDesc = desc;
        if (allocator != nullptr)
            *allocator = c.allocator;
        if (allocFunc != nullptr)
            *allocFunc = c.alloc;
        if (freeFunc != nullptr)
            *freeFunc = c.free;
        if (allocAdviseFunc != nullptr)
            *allocAdviseFunc = c.alloc_advise;
        if (getAddrFromBlockFunc != nullptr)
            *getAddrFromBlockFunc = c.get_addr;
        return Error::Ok();
    });
}

aclError aclrtAllocatorUnregister(aclrtStream stream) {
    return RunApi("aclrtAllocatorUnregister", [&] {
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        AllocatorRegistry::Get().Unregister(stream);
        return Error::Ok();
    });
}
