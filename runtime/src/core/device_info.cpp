// SPDX-License-Identifier: MIT
#include "core/device_info.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "core/device_manager.h"
#include "npu/hal.h"

namespace npu::rt {

namespace {

// The memory size of each physical device asked so far (0: not yet), so
// that a process that never sets a device opens it for the question once,
// not per call. Atomic words: no lock a fork could leave held.
constexpr uint32_t kCachedDevices = 64;
std::array<std::atomic<uint64_t>, kCachedDevices> g_size_of{};

// The driver's (busy, up) figures at the previous utilisation query, per
// physical device. Two atomic words, no lock: two queries racing may each
// measure a slightly different window, and the result is clamped to 0-100.
std::array<std::atomic<uint64_t>, kCachedDevices> g_last_busy{};
std::array<std::atomic<uint64_t>, kCachedDevices> g_last_up{};

// npuHalDeviceInfo of user device user_id: its open session's, else a
// short-lived open's.
Error DeviceInfoOf(int32_t user_id, uint32_t phys, struct npu_device_info *info) {
    std::shared_ptr<DeviceSession> session = DeviceManager::Get().SessionOf(user_id);
    int err = 0;
    if (session) {
        err = npuHalDeviceInfo(session->hal(), info);
    } else {
        npuHalDevice *dev = nullptr;
        err = npuHalDeviceOpen(phys, &dev);
        if (err == 0) {
            err = npuHalDeviceInfo(dev, info);
            npuHalDeviceClose(dev);
        }
    }
    if (err != 0)
        return Error::FromHal(err, "cannot query device %d", user_id);
    return Error::Ok();
}

}  // namespace

Error EngineUtilization(int32_t user_id, int32_t *percent) {
    uint32_t phys = 0;
    NPU_RETURN_IF_ERROR(DeviceManager::Get().ToPhysical(user_id, &phys));
    struct npu_device_info info = {};
    NPU_RETURN_IF_ERROR(DeviceInfoOf(user_id, phys, &info));
    uint64_t busy = info.busy_ns, up = info.up_ns;
    if (phys < kCachedDevices) {
        const uint64_t last_busy = g_last_busy[phys].exchange(info.busy_ns);
        const uint64_t last_up = g_last_up[phys].exchange(info.up_ns);
        // A device restarted since (npud) counts from its start.
        if (last_up < info.up_ns && last_busy <= info.busy_ns) {
            busy -= last_busy;
            up -= last_up;
        }
    }
    const double capacity = static_cast<double>(up) * (info.engines ? info.engines : 1);
    const double share = capacity > 0 ? 100.0 * static_cast<double>(busy) / capacity : 0.0;
    *percent = static_cast<int32_t>(std::min(100.0, std::max(0.0, share + 0.5)));
    return Error::Ok();
}

Error DeviceMemorySize(int32_t user_id, uint64_t *bytes) {
    uint32_t phys = 0;
    NPU_RETURN_IF_ERROR(DeviceManager::Get().ToPhysical(user_id, &phys));
    if (phys < kCachedDevices) {
        uint64_t cached = g_size_of[phys].load(std::memory_order_relaxed);
        if (cached != 0) {
            *bytes = cached;
            return Error::Ok();
        }
    }
    struct npu_version version = {};
    std::shared_ptr<DeviceSession> session = DeviceManager::Get().SessionOf(user_id);
    int err = 0;
    if (session) {
        err = npuHalGetVersion(session->hal(), &version);
    } else {
        npuHalDevice *dev = nullptr;
        err = npuHalDeviceOpen(phys, &dev);
        if (err == 0) {
            err = npuHalGetVersion(dev, &version);
            npuHalDeviceClose(dev);
        }
    }
    if (err != 0)
        return Error::FromHal(err, "cannot query the memory size of device %d", user_id);
    if (phys < kCachedDevices)
        g_size_of[phys].store(version.hbm_size, std::memory_order_relaxed);
    *bytes = version.hbm_size;
    return Error::Ok();
}

void DeviceUuid(uint32_t phys_id, char out[16]) {
    // "npu-emu-dev" and the physical id, big endian: readable in a dump.
    static const char kPrefix[12] = "npu-emu-dev";
    std::memcpy(out, kPrefix, sizeof(kPrefix));
    for (int i = 0; i < 4; i++)
        out[12 + i] = static_cast<char>((phys_id >> (24 - 8 * i)) & 0xff);
}

std::string DevicePciBusId(uint32_t phys_id) {
    char buf[32];
    uint64_t n = uint64_t{phys_id} + 1;  // domain:bus as one 24-bit number
    std::snprintf(buf, sizeof(buf), "%04x:%02x:00.0", static_cast<unsigned>((n >> 8) & 0xffff),
                  static_cast<unsigned>(n & 0xff));
    return buf;
}

namespace {

// n hex digits at *p; advances *p.
bool Hex(const char **p, int n, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            return false;
        v = v * 16 +
            static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c))
                                      ? c - '0'
                                      : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    }
    *p += n;
    *out = v;
    return true;
}

}  // namespace

bool ParsePciBusId(const char *text, uint32_t *phys_id) {
    const char *p = text;
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    // With the domain: "DDDD:BB:DD.F"; without: "BB:DD.F".
    if (std::strlen(p) == 12) {
        if (!Hex(&p, 4, &domain) || *p++ != ':')
            return false;
    }
    if (!Hex(&p, 2, &bus) || *p++ != ':' || !Hex(&p, 2, &dev) || *p++ != '.' || !Hex(&p, 1, &fn) ||
        *p != '\0')
        return false;
    uint32_t n = (domain << 8) | bus;
    if (dev != 0 || fn != 0 || n == 0)
        return false;
    *phys_id = n - 1;
    return true;
}

}  // namespace npu::rt
