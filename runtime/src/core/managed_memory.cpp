// SPDX-License-Identifier: MIT
#include "core/managed_memory.h"

#include <cinttypes>

#include "base/singleton.h"
#include "core/host_pool.h"

namespace npu::rt {

ManagedMemory &ManagedMemory::Get() {
    // Never destroyed, like the pool whose memory it describes; empty in a
    // forked child, like the pool.
    return base::Singleton<ManagedMemory>::Get();
}

Error ManagedMemory::Allocate(int32_t user_device, uint64_t size, void **out) {
    if (size > kProcessLimit) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "size %" PRIu64 " is over the limit of 3 TiB of managed memory", size);
    }
    const uint64_t rounded = (size + kGranularity - 1) / kGranularity * kGranularity;
    std::lock_guard<std::mutex> lock(mu_);
    if (rounded > kProcessLimit - bytes_) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "%" PRIu64
                             " more bytes of managed memory would pass the process "
                             "limit of 3 TiB (%" PRIu64 " in use)",
                             rounded, bytes_);
    }
    void *p = nullptr;
    NPU_RETURN_IF_ERROR(HostPool::Get().Allocate(static_cast<size_t>(rounded), false, &p));
    ManagedRange r;
    r.base = reinterpret_cast<uintptr_t>(p);
    r.size = static_cast<size_t>(rounded);
    r.user_device = user_device;
    by_base_.emplace(r.base, Allocation{r, ManagedAdvice(r.size)});
    bytes_ += rounded;
    *out = p;
    return Error::Ok();
}

Error ManagedMemory::Free(void *ptr) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_base_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == by_base_.end()) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%p is inside managed memory but not the start of an allocation", ptr);
    }
    NPU_RETURN_IF_ERROR(HostPool::Get().Free(ptr, false));
    bytes_ -= it->second.range.size;
    by_base_.erase(it);
    return Error::Ok();
}

const ManagedMemory::Allocation *ManagedMemory::Find(uintptr_t addr, size_t len) const {
    auto it = by_base_.upper_bound(addr);
    if (it == by_base_.begin())
        return nullptr;
    --it;
    const ManagedRange &r = it->second.range;
    const size_t off = addr - r.base;
    if (off >= r.size || len > r.size - off)
        return nullptr;
    return &it->second;
}

Error ManagedMemory::NotManaged(const void *ptr, size_t len) {
    return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                         "%p + %zu bytes is not inside one aclrtMemAllocManaged allocation", ptr,
                         len);
}

bool ManagedMemory::Lookup(const void *ptr, size_t len, ManagedRange *out) const {
    std::lock_guard<std::mutex> lock(mu_);
    const Allocation *a = Find(reinterpret_cast<uintptr_t>(ptr), len);
    if (a != nullptr && out != nullptr)
        *out = a->range;
    return a != nullptr;
}

Error ManagedMemory::Advise(const void *ptr, size_t len,
                            const std::function<void(RangeAdvice &)> &change) {
    const auto addr = reinterpret_cast<uintptr_t>(ptr);
    std::lock_guard<std::mutex> lock(mu_);
    Allocation *a = Find(addr, len);
    if (a == nullptr || len == 0)
        return NotManaged(ptr, len);
    a->advice.Apply(addr - a->range.base, len, change);
    return Error::Ok();
}

Error ManagedMemory::Advice(const void *ptr, size_t len, std::vector<RangeAdvice> *out) const {
    const auto addr = reinterpret_cast<uintptr_t>(ptr);
    std::lock_guard<std::mutex> lock(mu_);
    const Allocation *a = Find(addr, len);
    if (a == nullptr || len == 0)
        return NotManaged(ptr, len);
    *out = a->advice.Collect(addr - a->range.base, len);
    return Error::Ok();
}

uint64_t ManagedMemory::bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
}

}  // namespace npu::rt
