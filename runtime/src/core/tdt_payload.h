// SPDX-License-Identifier: MIT
// What the tensor data transfer channels and queues (acl/acl_tdt.h,
// acl/acl_tdt_queue.h) hold: payloads copied into device memory of a
// device, and the bounded waits of their senders and receivers.
#ifndef NPU_RT_CORE_TDT_PAYLOAD_H
#define NPU_RT_CORE_TDT_PAYLOAD_H

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/device_session.h"
#include "core/error.h"

namespace npu::rt {

// size bytes in device memory of user device device. The session is weak:
// a reset of the device frees the memory with it, and a payload from a
// closed session is then neither read nor freed.
struct TdtPayload {
    int32_t device = 0;
    void *dev_ptr = nullptr;  // nullptr when size is 0
    size_t size = 0;
    std::weak_ptr<DeviceSession> session;
};

// Copies size bytes at host into new device memory of device (which needs
// a context: aclrtSetDevice). ACL_ERROR_RT_CONTEXT_NULL when it has none.
Error TdtStorePayload(int32_t device, const void *host, size_t size, TdtPayload *out);
// Copies the payload back into host (which holds p.size bytes).
Error TdtLoadPayload(const TdtPayload &p, void *host);
// Frees the payload's device memory if its session is still open; the
// payload is empty afterwards.
void TdtReleasePayload(TdtPayload *p);

// Waits on cv under lk until ready() or timeout_ms (-1: forever, 0: not
// at all) has passed; returns ready().
template <typename Pred>
bool TdtWait(std::condition_variable &cv, std::unique_lock<std::mutex> &lk, int32_t timeout_ms,
             Pred ready) {
    if (timeout_ms < 0) {
        cv.wait(lk, ready);
        return true;
    }
    if (timeout_ms == 0)
        return ready();
    return cv.wait_for(lk, std::chrono::milliseconds(timeout_ms), ready);
}

}  // namespace npu::rt

#endif  // NPU_RT_CORE_TDT_PAYLOAD_H
