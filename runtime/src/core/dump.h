// SPDX-License-Identifier: MIT
// Dump (acl/acl_dump.h, aclmdlSetDump, aclInit's "dump" section): which
// dumps are on, where they go, and the one writer of their files.
//
// What an operator dumps: its tensors while data dump is on (dump_op_switch
// "on"; dump_mode says input, output or all), its arguments while
// aclopStartDumpArgs is on. Each dump is one file in this runtime's own
// container (the README's dump section): "NPUDUMP1", a 64-bit little-endian
// header length, a JSON header describing the tensors, then their bytes.
// With a callback registered (acldumpRegCallback) the file's bytes go to it
// in chunks instead of to disk.
#ifndef NPU_RT_CORE_DUMP_H
#define NPU_RT_CORE_DUMP_H

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_dump.h"
#include "base/thread_annotations.h"
#include "core/error.h"

namespace npu::rt::dump {

using Callback = int32_t (*)(const acldumpChunk *, int32_t);

// One tensor of a dump file.
struct Tensor {
    const char *type;   // "input", "output" or "workspace"
    int32_t data_type;  // an aclDataType
    int32_t format;     // an aclFormat
    std::vector<int64_t> shape;
    std::vector<int64_t> origin_shape;
    uint32_t args_offset = 0;
    std::vector<uint8_t> data;
};

// What an operator has to record before and after it runs.
struct Plan {
    bool inputs = false;   // data dump of its inputs
    bool outputs = false;  // data dump of its outputs
    bool args = false;     // aclopStartDumpArgs
    bool any() const { return inputs || outputs || args; }
};

// An operator that ran: its tensors (those Plan asked for) and arguments
// (the addresses its descriptors used, in argument order).
struct OpRun {
    const char *op_type;  // "Add", "Mul"
    const char *op_name;  // "aclnnAdd", "aclnnMul"
    int32_t device_id;
    int32_t stream_id;
    std::vector<Tensor> tensors;
    std::vector<std::pair<const char *, uint64_t>> args;
};

class DumpState {
  public:
    static DumpState &Get();

    // aclInit's configuration (content: its file, possibly empty) or
    // aclmdlSetDump's: the "dump" section turns data and exception dump on.
    // ACL_ERROR_INVALID_DUMP_CONFIG (or ACL_ERROR_PARSE_FILE) when bad.
    Error Configure(const std::string &content, const char *origin);
    // aclFinalize and aclmdlFinalizeDump: data and exception dump off.
    void Reset();

    Error InitModelDump();                 // aclmdlInitDump
    Error SetModelDump(const char *path);  // aclmdlSetDump
    Error FinalizeModelDump();             // aclmdlFinalizeDump

    Error StartArgs(const std::string &path);  // aclopStartDumpArgs
    void StopArgs();                           // aclopStopDumpArgs
    void SetCallback(Callback cb);             // NULL: to disk again

    // acldumpGetPath: NULL when that dump is off. The pointer stays valid
    // until the path changes.
    const char *PathOf(int32_t type);
    // acldumpGetExceptionInfoPath for the calling thread's device.
    Error ExceptionPath(int32_t device_id, std::string *out);

    Plan Current();
    // Writes (or hands to the callback) what Plan asked for.
    Error WriteOperator(const OpRun &run, const Plan &plan);
    // acldumpSaveExceptionInfo's file, its tensors already read.
    Error SaveException(int32_t device_id, const std::string &file_name, const std::string &tag,
                        const std::vector<Tensor> &tensors);

  private:
    Error Emit(const std::string &path, const std::string &bytes);

    std::mutex mu_; /* Protects: everything below */
    bool model_dump_inited_ GUARDED_BY(mu_) = false;
    bool data_on_ GUARDED_BY(mu_) = false;
    bool ops_on_ GUARDED_BY(mu_) = false;  // dump_op_switch "on"
    bool dump_inputs_ GUARDED_BY(mu_) = false;
    bool dump_outputs_ GUARDED_BY(mu_) = false;
    std::string data_path_ GUARDED_BY(mu_);
    std::string data_stamp_ GUARDED_BY(mu_);  // the time directory of this configuration
    bool exception_on_ GUARDED_BY(mu_) = false;
    std::string exception_root_ GUARDED_BY(mu_);
    std::string exception_shown_ GUARDED_BY(mu_);  // what PathOf returned for it
    bool args_on_ GUARDED_BY(mu_) = false;
    std::string args_path_ GUARDED_BY(mu_);
    std::string args_stamp_ GUARDED_BY(mu_);
    Callback callback_ GUARDED_BY(mu_) = nullptr;
    uint64_t next_task_ GUARDED_BY(mu_) = 0;
};

// The container of a dump file: magic, header length, header, data.
std::string Container(const std::string &header_json, const std::vector<const Tensor *> &tensors);

}  // namespace npu::rt::dump

#endif  // NPU_RT_CORE_DUMP_H
