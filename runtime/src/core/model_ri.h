// SPDX-License-Identifier: MIT
// Model runtime instances (aclmdlRI): a recorded list of stream work that
// aclmdlRIExecuteAsync replays, in order, on a stream, any number of times.
//
// A model is filled in two ways. Stream capture (aclmdlRICaptureBegin ..
// aclmdlRICaptureEnd): work that the APIs would queue on the capturing
// stream is recorded instead (RecordTask). Build (aclmdlRIBuildBegin,
// aclmdlRIBindStream .. aclmdlRIBuildEnd): work queued on a bound stream is
// recorded the same way, labels and label switches included.
//
// A task is the API's own queueing step with its arguments taken by value
// (device addresses included, as upstream: the model refers to the same
// memory), so a replay goes through the same submission path as the call
// it was recorded from. Work queued on a capturing stream by an API that
// records no task is refused (ACL_ERROR_RT_FEATURE_NOT_SUPPORT) rather than
// run at capture time.
#ifndef NPU_RT_CORE_MODEL_RI_H
#define NPU_RT_CORE_MODEL_RI_H

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "core/error.h"

namespace npu::rt {

class Context;
class Stream;
class StreamRef;

// aclmdlRITaskType's order for the kinds it names; the rest are ours.
enum class TaskKind {
    kDefault,
    kKernel,
    kEventRecord,
    kEventWait,
    kEventReset,
    kMemcpy,
    kMemset,
    kReduce,
    kHostFunc,
    kLabelSet,
    kLabelSwitch,
    kEnd,
};
const char *TaskKindName(TaskKind k);

// Queues the recorded work on ref's stream, in ctx (the executing
// thread's current context).
using TaskRun = std::function<Error(StreamRef &ref, Context *ctx)>;

// When s is capturing (or bound to a model being built, or updating a task
// group), records the task into its model and sets *recorded; else leaves
// *recorded false and the caller queues the work. text: what a debug print
// shows.
// event: the event handle of an event record or wait (a wait on an event
// recorded in a capture joins the waiting stream to that capture).
Error RecordTaskText(Stream &s, TaskKind kind, std::string text, TaskRun run, bool *recorded,
                     void *event = nullptr);
// Whether any stream of the process records its work now: one atomic load.
bool AnyRecording();
// printf into a task's text.
std::string TaskText(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// RecordTaskText for the APIs' queueing paths, which run on every call:
// while nothing records, it costs one atomic load, and neither the text
// (describe(), a std::string) nor the task's function is made.
template <typename Describe, typename Run>
Error RecordTask(Stream &s, TaskKind kind, Describe &&describe, Run &&run, bool *recorded,
                 void *event = nullptr) {
    *recorded = false;
    if (!AnyRecording())
        return Error::Ok();
    return RecordTaskText(s, kind, describe(), TaskRun(std::forward<Run>(run)), recorded, event);
}
// Whether s records its work (Stream::Submit refuses raw submissions then).
bool StreamRecording(const Stream &s);
// A stream that is destroyed leaves any capture or model it was part of,
// and its executions' runner goes (after the stream ran what it reached).
void ForgetStreamRecording(const void *stream_handle);
// Before a stream is destroyed: its model executions stop looping (a label
// switch that jumps back ends the execution) and waiting for events never
// recorded; abort (aclrtDestroyStreamForce, the context destroyed): they
// end at their next task.
void StopModelRuns(const void *stream_handle, bool abort);
// After aclrtStreamAbort of a stream: the model executions queued on it so
// far end (at their next task), the work they queued is dropped.
void AbortModelRuns(const void *stream_handle);

// The synchronous APIs refused while a capture is active, by mode
// (aclmdlRICaptureThreadExchangeMode): ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT.
Error CheckCaptureMode(const Context *ctx, const char *api);

// The C entry points' work (api/model_ri.cpp did the NULL checks).
Error CaptureBegin(Context &ctx, Stream &s, int32_t mode);
Error CaptureEnd(Stream &s, void **model);
Error CaptureInfo(Stream &s, int32_t *status, void **model);
Error ExchangeCaptureMode(int32_t *mode);
Error TaskGroupBegin(Stream &s);
Error TaskGroupEnd(Stream &s, void **group);
Error TaskUpdateBegin(Stream &s, void *group);
Error TaskUpdateEnd(Stream &s);
Error BuildBegin(Context &ctx, void **model);
Error BindStream(void *model, Stream &s);
Error UnbindStream(void *model, Stream &s);
Error EndTask(void *model, Stream &s);
Error BuildEnd(void *model);
Error Execute(void *model, StreamRef &ref, Context *ctx);
Error DestroyModel(void *model);
// The models made in ctx go with it, as upstream's context teardown deletes
// them: aclrtDestroyContext, and aclrtResetDevice of a primary context.
// Their handles are no longer live; running executions finish.
void DropContextModels(const Context *ctx);
// A model that is live and belongs to ctx.
Error CheckModel(void *model, const Context *ctx);
Error DebugText(void *model, std::string *out);
Error DebugJson(void *model, std::string *out);

// Labels (aclrtCreateLabel ..) and label lists.
Error CreateLabel(void **label);
Error DestroyLabel(void *label);
Error SetLabel(void *label, Stream &s);
Error CreateLabelList(void *const *labels, size_t n, void **list);
Error DestroyLabelList(void *list);
Error SwitchLabelByIndex(void *ptr, uint32_t max_value, void *list, Stream &s);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MODEL_RI_H
