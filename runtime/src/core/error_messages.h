// SPDX-License-Identifier: MIT
// The per-thread store behind aclGetRecentErrMsg: messages of failed calls
// of this thread, taken (and cleared) newest first.
#ifndef NPU_RT_CORE_ERROR_MESSAGES_H
#define NPU_RT_CORE_ERROR_MESSAGES_H

#include <cstdint>
#include <string>

namespace npu::rt {

class ErrorMessages {
  public:
    // Appends one message to the calling thread's store. Only the newest
    // kMaxMessages are kept, so a loop of failing calls cannot grow it.
    static void Record(std::string message);

    // Joins the calling thread's messages newest first with '\n', clears
    // the store and returns the text, or nullptr when there is none. The
    // pointer stays valid until the next Take() on this thread.
    static const char *Take();

    static constexpr size_t kMaxMessages = 32;

    // aclrtGetLastError / aclrtPeekAtLastError: the calling thread's newest
    // runtime-layer code (1x7xxx, 2x7xxx, 5x7xxx; not the ACL layer's own
    // rejections), 0 when there is none; Last(true) clears it.
    static void RecordCode(int32_t code);
    static int32_t LastCode(bool clear);
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_ERROR_MESSAGES_H
