// SPDX-License-Identifier: MIT
// HostPool: the process's pinned host memory. Two kinds of ranges:
//
//  - Pool allocations (aclrtMallocHost*, and the runtime's own staging):
//    carved out of segments, each a memfd mapped shared in this process and
//    registered (NPU_IOCTL_HOST_REGISTER with the memfd) with every open
//    device, so the driver maps the same pages and the engines copy them
//    directly; npud maps the memfd through the client's /proc/PID/fd.
//  - Registrations (aclrtHostRegister*): the caller's memory, registered
//    with every open device (anonymous memory: fd -1). A backend that cannot
//    pin the range (npud cannot pin anonymous memory of another process)
//    leaves it registered with the runtime only: it still reports HOST, and
//    copies take the pageable path.
//
// Devices opened later get every segment and registration too
// (DeviceOpened); a closing device forgets them (DeviceClosing; the driver
// drops its side on close). All members are thread safe.
#ifndef NPU_RT_CORE_HOST_POOL_H
#define NPU_RT_CORE_HOST_POOL_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "base/singleton.h"
#include "core/error.h"
#include "core/host_memory.h"
#include <sys/types.h>

struct npuHalDevice;

namespace npu::rt {

class HostPool {
  public:
    // The instance (base::Singleton). In a forked child: an empty pool.
    // The parent's segments are not mapped in the child (MADV_DONTFORK)
    // and their memfds are closed by npuHalForkChild().
    static HostPool &Get();

    // A pool allocation of size bytes (> 0): 64-byte aligned, page aligned
    // from 4 KiB up. staging: invisible to Lookup (runtime-internal).
    // ACL_ERROR_RT_MEMORY_ALLOCATION when the pool cannot grow.
    Error Allocate(size_t size, bool staging, void **out);
    // Frees the pool allocation based at ptr (of the same staging kind):
    // ACL_ERROR_RT_PARAM_INVALID when there is none.
    Error Free(void *ptr, bool staging);

    // aclrtHostRegister*: the range must not overlap another registration
    // (ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED). mapped: the range has a
    // device alias (aclrtHostGetDevicePointer).
    Error Register(void *ptr, uint64_t size, bool mapped);
    // ACL_ERROR_HOST_MEMORY_NOT_REGISTERED unless ptr is a registered base.
    Error Unregister(void *ptr);

    bool Lookup(const void *ptr, size_t len, HostMemoryInfo *info);
    bool PinnedFor(const void *ptr, size_t len, uint32_t phys_id);

    // Device session hooks (DeviceSession::Open / ~DeviceSession).
    void DeviceOpened(npuHalDevice *dev, uint32_t phys_id);
    void DeviceClosing(npuHalDevice *dev);

    // For tests and diagnostics: bytes in segments, live allocations and
    // registrations.
    struct Stats {
        size_t segment_bytes = 0;
        size_t allocations = 0;
        size_t registrations = 0;
    };
    Stats GetStats();

  private:
    friend class base::Singleton<HostPool>;
    HostPool() = default;

    struct Segment {
        int fd = -1;
        char *base = nullptr;
        size_t size = 0;
        bool dedicated = false;               // made for one large allocation
        std::map<size_t, size_t> free;        // offset -> length, coalesced
        size_t used = 0;                      // bytes allocated
        std::set<npuHalDevice *> registered;  // devices that pinned it
        ~Segment();
    };
    struct PoolAlloc {
        Segment *segment = nullptr;
        size_t size = 0;  // as carved (rounded)
        size_t requested = 0;
        bool staging = false;
    };
    struct Registration {
        uint64_t size = 0;
        bool mapped = false;
        Segment *segment = nullptr;           // inside a pool segment: pinned with it
        std::set<npuHalDevice *> registered;  // devices that pinned it (segment == null)
    };

    Segment *SegmentOfLocked(uintptr_t addr, size_t len);
    Error NewSegmentLocked(size_t size, bool dedicated, Segment **out);
    void DropSegmentLocked(Segment *seg);
    bool CarveLocked(Segment *seg, size_t size, size_t align, size_t *off);
    void ReleaseLocked(Segment *seg, size_t off, size_t size);
    bool PinnedOnLocked(const std::set<npuHalDevice *> &devs, uint32_t phys_id);

    std::mutex mu_;  // Protects: everything below
    std::vector<std::unique_ptr<Segment>> segments_;
    size_t segment_bytes_ = 0;
    std::map<uintptr_t, PoolAlloc> allocs_;       // by base
    std::map<uintptr_t, Registration> regs_;      // by base
    std::map<npuHalDevice *, uint32_t> devices_;  // open devices -> physical id
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_HOST_POOL_H
