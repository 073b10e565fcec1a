// SPDX-License-Identifier: MIT
#include "core/host_pool.h"
#include "core/checker.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/singleton.h"
#include "acl/acl_base.h"
#include "error_codes/rt_error_codes.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kMinAlign = 64;
// Shared segments: big enough that aclrtMallocHost rarely needs a system
// call, small enough that pinning one up front costs little.
constexpr size_t kSegmentSize = 32u << 20;
// Allocations above this get a segment of their own, freed with them.
constexpr size_t kDedicatedAbove = kSegmentSize / 2;
constexpr size_t kDedicatedRound = 2u << 20;
// The whole pool, so a runaway request fails cleanly instead of exhausting
// the address space or the memfd's file size limits.
constexpr size_t kPoolMax = 64ULL << 30;

size_t RoundUp(size_t v, size_t a) {
    return (v + a - 1) / a * a;
}

}  // namespace

HostPool::Segment::~Segment() {
    if (base != nullptr)
        ::munmap(base, size);
    if (fd >= 0) {
        npuHalForkUntrackFd(fd);
        ::close(fd);
    }
}

HostPool &HostPool::Get() {
    // Never destroyed: the segments stay mapped until the process exits.
    return base::Singleton<HostPool>::Get();
}

Error HostPool::NewSegmentLocked(size_t size, bool dedicated, Segment **out) {
    if (size > kPoolMax - segment_bytes_) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "the pinned pool cannot grow by %zu bytes (%zu in use, limit %zu)",
                             size, segment_bytes_, kPoolMax);
    }
    auto seg = std::make_unique<Segment>();
    seg->fd = ::memfd_create("npu-pinned", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (seg->fd < 0) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION, "memfd_create failed: %s",
                             std::strerror(errno));
    }
    // Sealed against shrinking: npud maps only memory that cannot be truncated away.
    if (::ftruncate(seg->fd, static_cast<off_t>(size)) != 0 ||
        ::fcntl(seg->fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "cannot size and seal a pinned segment of %zu bytes: %s", size,
                             std::strerror(errno));
    }
    npuHalForkTrackFd(seg->fd);
    void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, seg->fd, 0);
    if (p == MAP_FAILED) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "cannot map a pinned segment of %zu bytes: %s", size,
                             std::strerror(errno));
    }
    seg->base = static_cast<char *>(p);
    seg->size = size;
    // Pinned memory is this process's: a forked child gets no mapping of it.
    if (::madvise(p, size, MADV_DONTFORK) != 0) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "cannot keep a pinned segment out of forked children: %s",
                             std::strerror(errno));
    }
    seg->dedicated = dedicated;
    seg->free.emplace(0, size);
    // Pin it for every open device. A device that refuses (its pin budget)
    // just copies it the pageable way.
    for (const auto &[dev, phys] : devices_) {
        (void)phys;
        if (npuHalHostRegister(dev, seg->base, seg->size, seg->fd, 0) == 0)
            seg->registered.insert(dev);
    }
    segment_bytes_ += size;
    *out = seg.get();
    segments_.push_back(std::move(seg));
    return Error::Ok();
}

// Blocks are reused inside one process without being cleared, which is safe
// only because no other process ever maps a segment: the memfds are this
// process's own (MFD_CLOEXEC, never passed on), MADV_DONTFORK keeps the
// mappings out of forked children, and a child's runtime starts with an
// empty pool (ForkChild(), from the pthread_atfork child handler).

void HostPool::DropSegmentLocked(Segment *seg) {
    for (npuHalDevice *dev : seg->registered)
        npuHalHostUnregister(dev, seg->base);
    seg->registered.clear();
    segment_bytes_ -= seg->size;
    auto it = std::find_if(segments_.begin(), segments_.end(),
                           [seg](const std::unique_ptr<Segment> &s) { return s.get() == seg; });
    if (it != segments_.end())
        segments_.erase(it);
}

bool HostPool::CarveLocked(Segment *seg, size_t size, size_t align, size_t *off) {
    for (auto it = seg->free.begin(); it != seg->free.end(); ++it) {
        size_t start = RoundUp(it->first, align);
        size_t end = it->first + it->second;
        if (start >= end || end - start < size)
            continue;
        size_t lead = start - it->first;
        size_t tail = end - (start + size);
        size_t block = it->first;
        seg->free.erase(it);
        if (lead != 0)
            seg->free.emplace(block, lead);
        if (tail != 0)
            seg->free.emplace(start + size, tail);
        seg->used += size;
        *off = start;
        return true;
    }
    return false;
}

void HostPool::ReleaseLocked(Segment *seg, size_t off, size_t size) {
    seg->used -= size;
    auto next = seg->free.lower_bound(off);
    if (next != seg->free.end() && next->first == off + size) {
        size += next->second;
        next = seg->free.erase(next);
    }
    if (next != seg->free.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == off) {
            prev->second += size;
            return;
        }
    }
    seg->free.emplace(off, size);
}

Error HostPool::Allocate(size_t size, bool staging, void **out) {
    if (size == 0 || size > kPoolMax) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "cannot allocate %zu bytes of pinned host memory (limit %zu)", size,
                             kPoolMax);
    }
    size_t align = size >= kPage ? kPage : kMinAlign;
    size_t carved = RoundUp(size, kMinAlign);
    std::lock_guard<std::mutex> lock(mu_);
    Segment *seg = nullptr;
    size_t off = 0;
    if (carved > kDedicatedAbove) {
        NPU_RETURN_IF_ERROR(NewSegmentLocked(RoundUp(carved, kDedicatedRound), true, &seg));
        if (!CarveLocked(seg, carved, align, &off))
            return Error::Format(ACL_ERROR_RT_INTERNAL_ERROR, "pinned segment too small");
    } else {
        for (const auto &s : segments_) {
            if (!s->dedicated && CarveLocked(s.get(), carved, align, &off)) {
                seg = s.get();
                break;
            }
        }
        if (seg == nullptr) {
            NPU_RETURN_IF_ERROR(NewSegmentLocked(kSegmentSize, false, &seg));
            if (!CarveLocked(seg, carved, align, &off))
                return Error::Format(ACL_ERROR_RT_INTERNAL_ERROR, "pinned segment too small");
        }
    }
    char *p = seg->base + off;
    PoolAlloc a;
    a.segment = seg;
    a.size = carved;
    a.requested = size;
    a.staging = staging;
    allocs_.emplace(reinterpret_cast<uintptr_t>(p), a);
    if (!staging && check::On())
        check::HostAllocated(p, size, false);
    *out = p;
    return Error::Ok();
}

Error HostPool::Free(void *ptr, bool staging) {
    if (!staging && check::On())
        check::HostFreeing(ptr, false);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocs_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == allocs_.end() || it->second.staging != staging) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%p is not the start of pinned host memory from aclrtMallocHost", ptr);
    }
    Segment *seg = it->second.segment;
    size_t off = static_cast<size_t>(static_cast<char *>(ptr) - seg->base);
    size_t size = it->second.size;
    allocs_.erase(it);
    ReleaseLocked(seg, off, size);
    if (seg->used != 0)
        return Error::Ok();
    // Keep one empty shared segment for the next allocation; a registration
    // inside a segment keeps it too (the caller registered pool memory and
    // freed it first: undefined, but not a reason to unmap under it).
    bool in_use = std::any_of(regs_.begin(), regs_.end(),
                              [seg](const auto &r) { return r.second.segment == seg; });
    if (in_use)
        return Error::Ok();
    if (!seg->dedicated) {
        size_t empty_shared = 0;
        for (const auto &s : segments_)
            empty_shared += (!s->dedicated && s->used == 0) ? 1 : 0;
        if (empty_shared <= 1)
            return Error::Ok();
    }
    DropSegmentLocked(seg);
    return Error::Ok();
}

HostPool::Segment *HostPool::SegmentOfLocked(uintptr_t addr, size_t len) {
    for (const auto &s : segments_) {
        auto base = reinterpret_cast<uintptr_t>(s->base);
        if (addr >= base && addr - base < s->size && len <= s->size - (addr - base))
            return s.get();
    }
    return nullptr;
}

Error HostPool::Register(void *ptr, uint64_t size, bool mapped) {
    auto addr = reinterpret_cast<uintptr_t>(ptr);
    if (size > UINTPTR_MAX - addr) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "range %p + %llu bytes wraps", ptr,
                             static_cast<unsigned long long>(size));
    }
    std::lock_guard<std::mutex> lock(mu_);
    // The first registration at or after addr, and the one before it.
    auto next = regs_.lower_bound(addr);
    bool overlap = next != regs_.end() && next->first < addr + size;
    if (!overlap && next != regs_.begin()) {
        auto prev = std::prev(next);
        overlap = prev->first + prev->second.size > addr;
    }
    if (overlap) {
        return Error::Format(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                             "%p + %llu bytes overlaps a registered host range", ptr,
                             static_cast<unsigned long long>(size));
    }
    Registration r;
    r.size = size;
    r.mapped = mapped;
    r.segment = SegmentOfLocked(addr, size);
    if (r.segment == nullptr) {
        // The driver pins whole pages.
        uintptr_t first = addr & ~(uintptr_t)(kPage - 1);
        uintptr_t end = RoundUp(addr + size, kPage);
        for (const auto &[dev, phys] : devices_) {
            (void)phys;
            if (npuHalHostRegister(dev, reinterpret_cast<void *>(first), end - first, -1, 0) == 0)
                r.registered.insert(dev);
        }
    }
    regs_.emplace(addr, std::move(r));
    if (check::On())
        check::HostAllocated(ptr, size, true);
    return Error::Ok();
}

Error HostPool::Unregister(void *ptr) {
    if (check::On())
        check::HostFreeing(ptr, true);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = regs_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == regs_.end()) {
        return Error::Format(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
                             "%p is not the start of a registered host range", ptr);
    }
    auto first = reinterpret_cast<void *>(it->first & ~(uintptr_t)(kPage - 1));
    for (npuHalDevice *dev : it->second.registered)
        npuHalHostUnregister(dev, first);
    regs_.erase(it);
    return Error::Ok();
}

bool HostPool::Lookup(const void *ptr, size_t len, HostMemoryInfo *info) {
    auto addr = reinterpret_cast<uintptr_t>(ptr);
    std::lock_guard<std::mutex> lock(mu_);
    auto r = regs_.upper_bound(addr);
    if (r != regs_.begin()) {
        --r;
        uint64_t off = addr - r->first;
        if (off < r->second.size && len <= r->second.size - off) {
            if (info != nullptr) {
                info->kind = HostMemoryInfo::Kind::kRegistered;
                info->base = reinterpret_cast<void *>(r->first);
                info->size = r->second.size;
                // The alias is the host address itself: the engines reach
                // the range by it (what ACL_RT_MEM_ATTR_VA_FLAG asks for).
                info->device_base = r->second.mapped ? info->base : nullptr;
            }
            return true;
        }
    }
    auto a = allocs_.upper_bound(addr);
    if (a != allocs_.begin()) {
        --a;
        uint64_t off = addr - a->first;
        if (!a->second.staging && off < a->second.requested && len <= a->second.requested - off) {
            if (info != nullptr) {
                info->kind = HostMemoryInfo::Kind::kMallocHost;
                info->base = reinterpret_cast<void *>(a->first);
                info->size = a->second.requested;
                info->device_base = nullptr;
            }
            return true;
        }
    }
    return false;
}

bool HostPool::PinnedOnLocked(const std::set<npuHalDevice *> &devs, uint32_t phys_id) {
    for (npuHalDevice *dev : devs) {
        auto it = devices_.find(dev);
        if (it != devices_.end() && it->second == phys_id)
            return true;
    }
    return false;
}

bool HostPool::PinnedFor(const void *ptr, size_t len, uint32_t phys_id) {
    auto addr = reinterpret_cast<uintptr_t>(ptr);
    std::lock_guard<std::mutex> lock(mu_);
    if (Segment *seg = SegmentOfLocked(addr, len == 0 ? 1 : len))
        return PinnedOnLocked(seg->registered, phys_id);
    auto r = regs_.upper_bound(addr);
    if (r == regs_.begin())
        return false;
    --r;
    uint64_t off = addr - r->first;
    if (off >= r->second.size || len > r->second.size - off)
        return false;
    return PinnedOnLocked(r->second.registered, phys_id);
}

void HostPool::DeviceOpened(npuHalDevice *dev, uint32_t phys_id) {
    std::lock_guard<std::mutex> lock(mu_);
    devices_[dev] = phys_id;
    for (const auto &s : segments_) {
        if (npuHalHostRegister(dev, s->base, s->size, s->fd, 0) == 0)
            s->registered.insert(dev);
    }
    for (auto &[addr, r] : regs_) {
        if (r.segment != nullptr)
            continue;
        uintptr_t first = addr & ~(uintptr_t)(kPage - 1);
        uintptr_t end = RoundUp(addr + r.size, kPage);
        if (npuHalHostRegister(dev, reinterpret_cast<void *>(first), end - first, -1, 0) == 0)
            r.registered.insert(dev);
    }
}

void HostPool::DeviceClosing(npuHalDevice *dev) {
    // The driver drops the registrations when the file closes.
    std::lock_guard<std::mutex> lock(mu_);
    devices_.erase(dev);
    for (const auto &s : segments_)
        s->registered.erase(dev);
    for (auto &[addr, r] : regs_) {
        (void)addr;
        r.registered.erase(dev);
    }
}

HostPool::Stats HostPool::GetStats() {
    std::lock_guard<std::mutex> lock(mu_);
    Stats s;
    s.segment_bytes = segment_bytes_;
    s.allocations = allocs_.size();
    s.registrations = regs_.size();
    return s;
}

}  // namespace npu::rt
