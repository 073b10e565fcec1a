// SPDX-License-Identifier: MIT
// IpcSignal: device words another process can reach, for IPC events
// (aclrtIpcGetEventHandle, aclrtIpcOpenEventHandle) and IPC notifies
// (aclrtNotifyGetExportKey, aclrtNotifyImportByKey). The exporter owns a
// device allocation of its own (never the shared event slab, whose other
// words belong to other objects of the process) and exports it under a
// driver IPC key; an importer maps that key in its current context's
// device. The driver checks who may import (the key's PID whitelist, or
// none with NPU_SHARE_NO_WHITELIST) and keeps the frames alive while
// mapped, as for aclrtIpcMem* memory.
//
// These mappings are private to the object that made them: they are not
// in the IPC memory registry, so aclrtIpcMemClose on a notify's key cannot
// unmap a notify in use.
#ifndef NPU_RT_CORE_IPC_SIGNAL_H
#define NPU_RT_CORE_IPC_SIGNAL_H

#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"

namespace npu::rt {

class Context;
class DeviceSession;

class IpcSignal {
  public:
    static constexpr size_t kKeyLength = 64;  // NPU_IPC_KEY_LEN
    static constexpr uint64_t kBytes = 4096;  // the smallest allocation

    // Zeroed words on ctx's device, exported under a new key.
    static Error Export(Context &ctx, bool no_whitelist, std::unique_ptr<IpcSignal> *out);
    // The words behind key, mapped in ctx's device.
    static Error Import(Context &ctx, const std::string &key, std::unique_ptr<IpcSignal> *out);
    // The exporter destroys the key and frees its memory (importers keep
    // theirs mapped until they let go); an importer unmaps.
    ~IpcSignal();
    IpcSignal(const IpcSignal &) = delete;
    IpcSignal &operator=(const IpcSignal &) = delete;

    // Keeps signal (its words mapped, its key alive) until the process
    // exits: for an owner that goes while queued device work may still
    // touch the words, which must then never be freed or reused. Kept on a
    // list of the process, not leaked, so leak checkers see it as live.
    static void KeepForever(std::unique_ptr<IpcSignal> signal);

    const std::string &key() const { return key_; }
    uint64_t va() const { return va_; }
    DeviceSession &session() const { return *session_; }
    bool imported() const { return imported_; }

    // The word at va() + offset, read or written now from the host.
    Error Read(uint64_t offset, uint64_t *value) const;
    Error Write(uint64_t offset, uint64_t value) const;
    // Adds TGIDs to the exported key's whitelist.
    Error SetImportPid(const int32_t *pid, size_t count) const;

  private:
    IpcSignal(std::shared_ptr<DeviceSession> session, bool imported)
        : session_(std::move(session)), imported_(imported) {}

    const std::shared_ptr<DeviceSession> session_;
    const bool imported_;
    std::string key_;
    uint64_t va_ = 0;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_IPC_SIGNAL_H
