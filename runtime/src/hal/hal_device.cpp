// SPDX-License-Identifier: MIT
/*
 * npuHalDevice: one driver context of this process on one device, with its
 * device-VA aperture and the queue that synchronous copies go through.
 */
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

// The library is built with hidden visibility; the HAL is part of its ABI.
#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

#include "hal_device.h"
#include "hal_internal.h"
#include "hal_share.h"
#include "hal_trace.h"

#define NPU_UAPI_ASSERT_SIZE(type, size) static_assert(sizeof(type) == (size), #type);
NPU_UAPI_SIZES(NPU_UAPI_ASSERT_SIZE)
#undef NPU_UAPI_ASSERT_SIZE

namespace npu::hal {
namespace {

constexpr uint64_t kGiB = 1ULL << 30;
constexpr uint64_t kTiB = 1ULL << 40;
// The devices' windows share [16 TiB, 84 TiB) of the address space: the
// SVM range of the real driver's layout starts at 16 TiB and its dynamic
// reservations reach far above it, so device addresses and large VMM
// reservations (tens of TiB, at fixed addresses such as 40 TiB) sit where
// programs written for that layout expect them. Each device gets an equal,
// 1 TiB aligned share, at least 1 TiB: 68 TiB for one device, 34 TiB each
// for two. An inaccessible window costs nothing until something is mapped.
constexpr uint64_t kWindowStart = 16 * kTiB;
// Below 84 TiB: a position-independent executable and its heap load from
// 2/3 of the 128 TiB address space (85.3 TiB) up.
constexpr uint64_t kWindowEnd = 84 * kTiB;
// The size of the window ReserveAperture falls back to, anywhere.
constexpr uint64_t kApertureSize = kTiB;
// The smallest window ReserveAperture falls back to.
constexpr uint64_t kMinApertureSize = 64 * kGiB;
// Synchronous calls have one descriptor in flight per device.
constexpr uint32_t kSyncQueueEntries = 64;

// A mapping of this process, unmapped on destruction.
class Mapping {
  public:
    Mapping() = default;
    Mapping(void *addr, size_t size) : addr_(addr), size_(size) {}
    ~Mapping() { Reset(); }
    Mapping(Mapping &&o) noexcept
        : addr_(std::exchange(o.addr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    Mapping &operator=(Mapping &&o) noexcept {
        if (this != &o) {
            Reset();
            addr_ = std::exchange(o.addr_, nullptr);
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    Mapping(const Mapping &) = delete;
    Mapping &operator=(const Mapping &) = delete;

    void *addr() const { return addr_; }
    size_t size() const { return size_; }
    explicit operator bool() const { return addr_ != nullptr; }

  private:
    void Reset() {
        if (addr_ != nullptr)
            ::munmap(addr_, size_);
        addr_ = nullptr;
        size_ = 0;
    }

    void *addr_ = nullptr;
    size_t size_ = 0;
};

// Reserve an inaccessible window for device addresses anywhere (when the
// device's share of the fixed window is taken), trimmed to 1 GiB alignment. Where the
// address space has no room for that (ThreadSanitizer leaves ~1.5 TiB for
// all mappings of a process, an address-space rlimit), a smaller window:
// the driver places every mapping inside whatever it is given.
int ReserveApertureOf(uint64_t size, Mapping *out) {
    const int prot = PROT_NONE;
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    const size_t span = size + kGiB;
    void *p = ::mmap(nullptr, span, prot, flags, -1, 0);
    if (p == MAP_FAILED)
        return -errno;
    uintptr_t start = reinterpret_cast<uintptr_t>(p);
    uintptr_t base = (start + kGiB - 1) & ~(kGiB - 1);
    if (base > start)
        ::munmap(p, base - start);
    uintptr_t tail = base + size;
    uintptr_t end = start + span;
    if (end > tail)
        ::munmap(reinterpret_cast<void *>(tail), end - tail);
    *out = Mapping(reinterpret_cast<void *>(base), size);
    return 0;
}

// Device devId's share of the window (0 when it has none: more devices
// than whole TiB in the window).
uint64_t ApertureShare(uint32_t devId) {
    uint32_t count = 0;
    if (Backend::Get().DeviceCount(&count) < 0 || count == 0)
        count = 1;
    const uint64_t share = (kWindowEnd - kWindowStart) / count / kTiB * kTiB;
    // More devices than whole TiB: 1 TiB each while the window lasts.
    if (share < kTiB || devId >= count)
        return kWindowStart + (uint64_t{devId} + 1) * kTiB <= kWindowEnd ? kTiB : 0;
    return share;
}

int ReserveAperture(uint32_t devId, Mapping *out) {
    const uint64_t share = ApertureShare(devId);
    if (share != 0) {
        const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE;
        void *hint = reinterpret_cast<void *>(kWindowStart + uint64_t{devId} * share);
        void *p = ::mmap(hint, share, PROT_NONE, flags, -1, 0);
        if (p == hint) {
            *out = Mapping(p, share);
            return 0;
        }
        // Kernels before 4.17 treat the flag as a hint: drop a stray mapping.
        if (p != MAP_FAILED)
            ::munmap(p, share);
    }
    int ret = -ENOMEM;
    for (uint64_t size = kApertureSize; size >= kMinApertureSize; size /= 4) {
        ret = ReserveApertureOf(size, out);
        if (ret != -ENOMEM)
            return ret;
    }
    return ret;
}

}  // namespace
}  // namespace npu::hal

using npu::hal::DeviceFile;
using npu::hal::Mapping;

struct npuHalDevice {
    uint32_t devId = 0;
    uint32_t ctx_id = 0;   /* from CTX_SETUP */
    uint32_t tgid = 0;     /* from CTX_SETUP */
    uint64_t features = 0; /* from GET_VERSION */
    std::unique_ptr<DeviceFile> file;
    Mapping aperture;

    // The queue of synchronous calls (npuHalDeviceRun): one ring
    // client for everything, see hal_queue.cpp.
    npuHalQueue *sync_queue = nullptr;
    std::mutex sync_lock; /* Protects: sync_queue (serialises the calls on it) */

    ~npuHalDevice() {
        // Its ring is destroyed through file: close the file after it.
        npuHalQueueDestroy(sync_queue);
        file.reset();
    }

    // In a forked child, sync_lock may be held by a thread that does not
    // exist there: answer -EBADF before taking it.
    uint32_t generation = npu::hal::ForkGeneration();

    int Run(const struct npu_sqe *sqes, uint32_t n) {
        if (generation != npu::hal::ForkGeneration())
            return -EBADF;
        std::lock_guard<std::mutex> guard(sync_lock);
        return npu::hal::QueueRun(sync_queue, sqes, n);
    }
};

npu::hal::DeviceFile *npu::hal::DeviceFileOf(npuHalDevice *dev) {
    return dev->file.get();
}

uint32_t npu::hal::DeviceCtxId(const npuHalDevice *dev) {
    return dev->ctx_id;
}

uint32_t npu::hal::DeviceTgid(const npuHalDevice *dev) {
    return dev->tgid;
}

uint64_t npu::hal::DeviceFeatures(const npuHalDevice *dev) {
    return dev->features;
}

uint32_t npu::hal::DeviceIndex(const npuHalDevice *dev) {
    return dev->devId;
}

extern "C" {

const char *npuHalBackendName(void) {
    return npu::hal::Backend::Get().name().c_str();
}

int npuHalBackendIsInproc(void) {
    return npu::hal::Backend::Get().inproc() ? 1 : 0;
}

int npuHalGetDeviceCount(uint32_t *count) {
    if (count == nullptr)
        return -EINVAL;
    return npu::hal::Backend::Get().DeviceCount(count);
}

int npuHalDeviceOpen(uint32_t devId, npuHalDevice **out) {
    if (out == nullptr)
        return -EINVAL;
    std::unique_ptr<npuHalDevice> dev(new (std::nothrow) npuHalDevice);
    if (!dev)
        return -ENOMEM;
    dev->devId = devId;
    int ret = npu::hal::Backend::Get().Open(devId, &dev->file);
    if (ret < 0)
        return ret;

    struct npu_version ver = {};
    ret = dev->file->Ioctl(NPU_IOCTL_GET_VERSION, &ver);
    if (ret < 0)
        return ret;
    if (ver.abi_major != NPU_ABI_VERSION_MAJOR)
        return -EPROTO;
    dev->features = ver.features;
    ret = npu::hal::UseUringDoorbell(&dev->file, ver.features);
    if (ret < 0)
        return ret;

    ret = npu::hal::ReserveAperture(devId, &dev->aperture);
    if (ret < 0)
        return ret;
    // A forked child gets no aperture: its own context reserves one afresh.
    if (::madvise(dev->aperture.addr(), dev->aperture.size(), MADV_DONTFORK) < 0)
        return -errno;
    struct npu_ctx_setup cs = {};
    cs.va_base = reinterpret_cast<uint64_t>(dev->aperture.addr());
    cs.va_size = dev->aperture.size();
    ret = dev->file->Ioctl(NPU_IOCTL_CTX_SETUP, &cs);
    if (ret < 0)
        return ret;
    dev->ctx_id = cs.ctx_id;
    dev->tgid = cs.tgid;

    ret = npu::hal::QueueCreateUnlisted(dev.get(), npu::hal::kSyncQueueEntries, &dev->sync_queue);
    if (ret < 0)
        return ret;
    npu::hal::trace::NameQueue(dev->sync_queue,
                               "synchronous calls of device " + std::to_string(devId));
    *out = dev.release();
    return 0;
}

void npuHalDeviceClose(npuHalDevice *dev) {
    delete dev;
}

uint64_t npuHalApertureBase(const npuHalDevice *dev) {
    return reinterpret_cast<uint64_t>(dev->aperture.addr());
}

uint64_t npuHalApertureSize(const npuHalDevice *dev) {
    return dev->aperture.size();
}

int npuHalIsDeviceAddress(const npuHalDevice *dev, const void *addr, size_t size) {
    const uint64_t base = npuHalApertureBase(dev);
    const uint64_t len = npuHalApertureSize(dev);
    const uint64_t a = reinterpret_cast<uint64_t>(addr);
    if (a < base || a - base >= len)
        return 0;
    return size <= len - (a - base) ? 1 : 0;
}

int npuHalGetVersion(npuHalDevice *dev, struct npu_version *version) {
    *version = {};
    return dev->file->Ioctl(NPU_IOCTL_GET_VERSION, version);
}

int npuHalDeviceInfo(npuHalDevice *dev, struct npu_device_info *info) {
    *info = {};
    return dev->file->Ioctl(NPU_IOCTL_DEVICE_INFO, info);
}

int npuHalMemInfo(npuHalDevice *dev, struct npu_mem_info *info) {
    *info = {};
    return dev->file->Ioctl(NPU_IOCTL_MEM_INFO, info);
}

int npuHalMemAlloc(npuHalDevice *dev, uint64_t size, uint32_t policy, uint32_t flags,
                   struct npu_mem_alloc *out) {
    struct npu_mem_alloc ma = {};
    ma.size = size;
    ma.policy = policy;
    ma.flags = flags;
    int ret = dev->file->Ioctl(NPU_IOCTL_MEM_ALLOC, &ma);
    if (ret < 0)
        return ret;
    *out = ma;
    return 0;
}

int npuHalMemFree(npuHalDevice *dev, uint64_t va) {
    struct npu_mem_free mf = {};
    mf.va = va;
    return dev->file->Ioctl(NPU_IOCTL_MEM_FREE, &mf);
}

int npuHalMemQuery(npuHalDevice *dev, uint64_t va, struct npu_mem_query *out) {
    struct npu_mem_query mq = {};
    mq.va = va;
    int ret = dev->file->Ioctl(NPU_IOCTL_MEM_QUERY, &mq);
    if (ret < 0)
        return ret;
    *out = mq;
    return 0;
}

int npuHalDeviceRun(npuHalDevice *dev, const struct npu_sqe *sqes, uint32_t n) {
    if (n == 0)
        return 0;
    if (sqes == nullptr)
        return -EINVAL;
    return dev->Run(sqes, n);
}

int npuHalDeviceRunStats(npuHalDevice *dev, struct npu_ring_stats *out) {
    if (dev == nullptr || out == nullptr)
        return -EINVAL;
    if (dev->generation != npu::hal::ForkGeneration())
        return -EBADF;
    std::lock_guard<std::mutex> guard(dev->sync_lock);
    return npuHalQueueStats(dev->sync_queue, out);
}

int npuHalNop(npuHalDevice *dev) {
    static std::atomic<uint64_t> cookies{1};
    struct npu_nop nop = {};
    nop.cookie = cookies.fetch_add(1, std::memory_order_relaxed);
    int ret = dev->file->Ioctl(NPU_IOCTL_NOP, &nop);
    if (ret < 0)
        return ret;
    return nop.out == nop.cookie ? 0 : -EIO;
}

// npuHalHostRegister/npuHalHostUnregister and npuHalPeer*: hal_host.cpp.

}  // extern "C"

namespace npu::hal {
// For the other HAL files (sharing): one raw command on dev's driver file.
int DeviceIoctl(npuHalDevice *dev, unsigned int cmd, void *arg) {
    return dev->file->Ioctl(cmd, arg);
}
}  // namespace npu::hal
