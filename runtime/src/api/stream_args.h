// SPDX-License-Identifier: MIT
// Helpers of the stream-taking APIs: resolve the aclrtStream argument and
// check that it belongs to the caller's current context.
#ifndef NPU_RT_API_STREAM_ARGS_H
#define NPU_RT_API_STREAM_ARGS_H

#include <memory>

#include "core/context.h"
#include "core/error.h"
#include "core/stream.h"
#include "core/thread_state.h"

namespace npu::rt {

inline Error NoContextError() {
    return ThreadState::NoContextError();
}

// A non-null stream handle must be live (ACL_ERROR_RT_INVALID_HANDLE). The
// NULL stream is resolved later by UseStream, once the context is checked.
inline Error PinStream(void *stream, StreamRef *ref) {
    if (stream == nullptr)
        return Error::Ok();
    return AcquireStream(stream, ref);
}

// ctx must be set. Makes ref the stream to use: the pinned one, or ctx's
// default stream.
inline Error UseStream(Context &ctx, StreamRef *ref) {
    if (*ref)
        return Error::Ok();
    return DefaultStream(ctx, ref);
}

// The stream a call works on: stream, or ctx's default stream when it is
// NULL (ACL_ERROR_RT_CONTEXT_NULL when ctx is null too).
inline Error ResolveStream(void *stream, const std::shared_ptr<Context> &ctx, StreamRef *ref) {
    if (stream != nullptr)
        return AcquireStream(stream, ref);
    if (!ctx)
        return NoContextError();
    return DefaultStream(*ctx, ref);
}

// The stream of a call that works in the current context, in upstream's
// check order: a non-null handle must be live (ACL_ERROR_RT_INVALID_HANDLE),
// then a context must be current (ACL_ERROR_RT_CONTEXT_NULL); NULL means its
// default stream; a stream of another context is ACL_ERROR_RT_STREAM_CONTEXT.
inline Error CurrentContextStream(void *stream, std::shared_ptr<Context> *ctx, StreamRef *ref) {
    *ctx = ThreadState::CurrentContext();
    NPU_RETURN_IF_ERROR(PinStream(stream, ref));
    if (!*ctx)
        return NoContextError();
    NPU_RETURN_IF_ERROR(UseStream(**ctx, ref));
    return CheckStreamContext(*ref, **ctx);
}

}  // namespace npu::rt

#endif  // NPU_RT_API_STREAM_ARGS_H
