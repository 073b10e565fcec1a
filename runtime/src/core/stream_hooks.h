// SPDX-License-Identifier: MIT
// StreamHooks: the named callbacks of aclrtRegStreamStateCallback, run
// with ACL_RT_STREAM_STATE_CREATE_POST once a stream exists and with
// ACL_RT_STREAM_STATE_DESTROY_PRE before it goes (default streams and the
// streams a destroyed context takes with it included).
//
// The hooks run on the thread that creates or destroys the stream, with no
// lock of the runtime held, in the order they were registered; the handle
// is live during both calls.
#ifndef NPU_RT_CORE_STREAM_HOOKS_H
#define NPU_RT_CORE_STREAM_HOOKS_H

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "core/error.h"

namespace npu::rt {

class StreamHooks {
  public:
    static StreamHooks &Get();

    // Adds hook name; ACL_ERROR_RT_PARAM_INVALID when the name is taken.
    // A null callback removes the name (no error when absent).
    Error Register(const std::string &name, aclrtStreamStateCallback callback, void *args);
    // Runs every hook for stream handle h.
    void Notify(void *h, aclrtStreamState state);

  private:
    struct Hook {
        std::string name;
        aclrtStreamStateCallback callback;
        void *args;
    };

    std::mutex mu_;  // Protects: hooks_
    std::vector<Hook> hooks_;
    // Whether hooks_ is non-empty: the stream paths look at this only.
    std::atomic<bool> any_{false};
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_STREAM_HOOKS_H
