// SPDX-License-Identifier: MIT
// DeviceManager: the process-wide table of devices. It maps user device ids
// to physical ones (ASCEND_RT_VISIBLE_DEVICES), counts aclrtSetDevice
// references per device, owns each device's session, each set device's
// primary context and the explicit contexts of aclrtCreateContext (with the
// aclrtContext handles of both), and finds the session whose aperture
// contains an address.
// A session may be open without a context: the VMM calls
// (aclrtMallocPhysical, aclrtReserveMemAddress) need none (spec: they take
// explicit device ids or none). A reset that tears the default context
// down closes the session with it, as it always did.
//
// A reset that tears a device down (aclrtResetDevice at count zero,
// aclrtResetDeviceForce, aclFinalize) destroys its explicit contexts too:
// their handles are then not live (aclrtSetCurrentContext: 107000), as
// upstream's. aclrtCreateContext is not an aclrtSetDevice reference.
#ifndef NPU_RT_CORE_DEVICE_MANAGER_H
#define NPU_RT_CORE_DEVICE_MANAGER_H

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "base/singleton.h"
#include "core/context.h"
#include "core/error.h"
#include "core/stream_handles.h"

namespace npu::rt {

class DeviceManager {
  public:
    // The instance (base::Singleton). Never destroyed: device sessions
    // must not be closed from static destructors, when the backend may
    // already be gone. In a forked child: no device set, nothing open; the
    // parent's sessions are leaked, never closed: their files are gone.
    static DeviceManager &Get();

    // Number of devices visible to this process.
    Error DeviceCount(uint32_t *count);
    // Physical id of user device user_id; ACL_ERROR_RT_INVALID_DEVICEID
    // when it is out of range.
    Error ToPhysical(int32_t user_id, uint32_t *phys_id);
    // User id of physical device phys_id; false when it is not visible.
    bool ToUser(uint32_t phys_id, int32_t *user_id);

    // aclrtSetDevice: one more reference on user_id, opening the device and
    // creating its default context on the first; the context becomes the
    // calling thread's current context.
    Error SetDevice(int32_t user_id);
    // aclrtResetDevice: one reference less; the default context is torn
    // down at zero. ACL_ERROR_RT_CONTEXT_RELEASE_ERROR when there is none.
    Error ResetDevice(int32_t user_id);
    // aclrtResetDeviceForce: tear down now, whatever the count.
    Error ResetDeviceForce(int32_t user_id);
    // aclFinalize: tear every device down.
    void ResetAll();

    // aclrtCreateContext: a new explicit context on user_id (opening the
    // device if needed), made the calling thread's current context.
    Error CreateContext(int32_t user_id, void **handle);
    // aclrtDestroyContext: ACL_ERROR_RT_CONTEXT_NULL for a handle that is
    // not a live context or is a primary one (aclrtResetDevice releases those).
    Error DestroyContext(void *handle);
    // The live context of handle, else nullptr.
    std::shared_ptr<Context> FindContext(void *handle);
    // Every live context of user device user_id, primary first.
    std::vector<std::shared_ptr<Context>> ContextsOf(int32_t user_id);
    // Whether user_id's primary context exists (aclrtGetPrimaryCtxState).
    Error PrimaryActive(int32_t user_id, bool *active);

    // References from aclrtSetDevice on user_id (0 when invalid or unset).
    int RefCount(int32_t user_id);

    // The session of user device user_id while it is open, else nullptr.
    std::shared_ptr<DeviceSession> SessionOf(int32_t user_id);
    // The session of user device user_id, opened without a context (and
    // without an aclrtSetDevice reference) if it is not open yet.
    Error OpenSession(int32_t user_id, std::shared_ptr<DeviceSession> *out);
    // The session of the lowest device that is open, else nullptr.
    std::shared_ptr<DeviceSession> AnySession();

    // The open session whose aperture contains [addr, addr + len), if any.
    std::shared_ptr<DeviceSession> FindSession(const void *addr, size_t len);

  private:
    friend class base::Singleton<DeviceManager>;
    DeviceManager();

    struct DeviceSlot {
        int refcount = 0;
        std::shared_ptr<DeviceSession> session;    // open while set, or opened by OpenSession
        std::shared_ptr<Context> default_context;  // uses session
        std::vector<std::shared_ptr<Context>> explicit_contexts;  // use session
    };
    // What a context handle names. Weak: the slots own the contexts.
    struct ContextEntry {
        std::weak_ptr<Context> ctx;
    };

    // Fills visible_ on first use. Caller holds mu_.
    Error EnsureDiscoveredLocked();
    Error CheckUserIdLocked(int32_t user_id);
    // Opens the slot's session if needed. Caller holds mu_; user_id checked.
    Error EnsureSessionLocked(int32_t user_id);
    // Makes a context on the slot's session with a handle. Caller holds mu_.
    Error NewContextLocked(int32_t user_id, Context::Kind kind, std::shared_ptr<Context> *out);
    // Moves what a reset tears down into dying and drops the handles of
    // its contexts. Caller holds mu_.
    void TearDownLocked(DeviceSlot *slot, std::vector<std::shared_ptr<void>> *dying);

    std::mutex mu_;  // Protects: the discovery result, one slot per visible device
    bool discovered_ = false;
    std::vector<uint32_t> visible_;  // user id -> physical id
    std::vector<DeviceSlot> slots_;  // by user id

    // Lock-free lookups (stream_handles.h); entries are added and removed
    // under mu_, so a handle is live exactly while its context is in a slot.
    HandleTable<ContextEntry> context_handles_{0x4358};  // "CX"
};

// Parses an ASCEND_RT_VISIBLE_DEVICES value ("1,3") against physical_count
// devices: the physical ids in the order given, up to the first entry that is
// not a number, is out of range or repeats an earlier one (later entries are
// ignored). nullopt (all devices visible) when text is null or empty.
std::optional<std::vector<uint32_t>> ParseVisibleDevices(const char *text, uint32_t physical_count);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_DEVICE_MANAGER_H
