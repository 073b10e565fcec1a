// SPDX-License-Identifier: MIT
/*
 * Backend selection and the two ways of reaching a driver file: a file
 * descriptor (kmod, CUSE, FUSE) or the mock-kernel build of the driver
 * linked into this process. Both issue the same commands with the same
 * structs; only the transport differs.
 */
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mockdev/host.h"
#include "npu_size.h"
#include "mockdev/mock.h"

#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

#include "hal_internal.h"
#include "hal_host_copy.h"

namespace npu::hal {
namespace {

constexpr const char *kInprocName = "inproc";
// The kernel module's node, then npud's FUSE file: npud (its systemd unit and its container
// image) serves the subdirectory dev/ of /run/npu, so that containers can share /run/npu and
// still see npud's mount after it restarts; last, the file of an npud started by hand on
// /run/npu itself.
constexpr const char *kDefaultPaths[] = {"/dev/npu0", "/run/npu/dev/npu0", "/run/npu/npu0"};
constexpr uint32_t kMaxDevices = 64;
constexpr uint64_t kDefaultHbmBytes = 16ULL << 30;

bool PathExists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

// A device node or FUSE file opened by this process. In a forked child
// the descriptor is closed (npuHalForkChild) and every call gets -EBADF.
class FdFile final : public DeviceFile {
  public:
    explicit FdFile(int fd) : fd_(fd), gen_(ForkGeneration()) { npuHalForkTrackFd(fd_); }
    ~FdFile() override {
        if (gen_ == ForkGeneration()) {
            npuHalForkUntrackFd(fd_);
            ::close(fd_);
        }
    }
    FdFile(const FdFile &) = delete;
    FdFile &operator=(const FdFile &) = delete;

    int Ioctl(unsigned int cmd, void *arg) override {
        if (gen_ != ForkGeneration())
            return -EBADF;
        for (;;) {
            int ret = ::ioctl(fd_, cmd, arg);
            if (ret >= 0)
                return ret;
            if (errno == ENOTCONN || errno == ECONNABORTED) {
                // FUSE: the npud that served this file is gone (killed,
                // stopped or restarted, or its connection aborted); the
                // file never works again.
                return -ENODEV;
            }
            if (errno != EINTR)
                return -errno;
        }
    }

    int Fd() const override { return gen_ == ForkGeneration() ? fd_ : -1; }

  private:
    int fd_;
    const uint32_t gen_;  // ForkGeneration() at open
};

// The mock-kernel driver in this process: its file_operations called
// directly, with this process as the current task.
class InprocFile final : public DeviceFile {
  public:
    explicit InprocFile(struct file *filp) : filp_(filp), gen_(ForkGeneration()) {}
    ~InprocFile() override {
        if (gen_ == ForkGeneration())
            mockdev_file_release(filp_, mockdev_task_self());
    }
    InprocFile(const InprocFile &) = delete;
    InprocFile &operator=(const InprocFile &) = delete;

    int Ioctl(unsigned int cmd, void *arg) override {
        // A forked child's copy of the parent's driver is not ours to use.
        if (gen_ != ForkGeneration())
            return -EBADF;
        // The argument is our own struct: the driver's copies of it are
        // plain copies (the relay window), not guarded user accesses,
        // whose fault-handler check costs two system calls.
        const auto uarg = reinterpret_cast<unsigned long>(arg);
        long ret = mockdev_file_ioctl_relayed(filp_, mockdev_task_self(), cmd, uarg, arg);
        return static_cast<int>(ret);
    }

  private:
    struct file *filp_;
    const uint32_t gen_;  // ForkGeneration() at open
};

uint32_t InprocDeviceCount() {
    const char *env = std::getenv("NPU_INPROC_DEVICES");
    if (env == nullptr || *env == '\0')
        return 1;
    char *end = nullptr;
    unsigned long n = std::strtoul(env, &end, 10);
    if (*end != '\0' || n == 0 || n > kMaxDevices) {
        std::fprintf(stderr, "npu: ignoring NPU_INPROC_DEVICES=%s (want 1..%u)\n", env,
                     kMaxDevices);
        return 1;
    }
    return static_cast<uint32_t>(n);
}

uint64_t InprocHbmMiB() {
    uint64_t bytes = kDefaultHbmBytes;
    const char *env = std::getenv("NPU_HBM_SIZE");
    if (env != nullptr && *env != '\0' && (npu_parse_size(env, &bytes) != 0 || bytes == 0)) {
        std::fprintf(stderr, "npu: ignoring NPU_HBM_SIZE=%s\n", env);
        bytes = kDefaultHbmBytes;
    }
    return (bytes + (1ULL << 20) - 1) >> 20;
}

// The driver's per-process limits for the in-process backend, from the
// environment (the npud --limit-* options): " limit_x=N ..." to append to
// the module parameters. Bad values are reported and ignored (the driver's
// default stays).
std::string InprocLimitParams() {
    static const struct {
        const char *env;
        const char *param;
        bool size;  // SIZE with K/M/G, a multiple of 1M, passed in MiB
    } kLimits[] = {
        {"NPU_LIMIT_RINGS", "limit_rings", false},
        {"NPU_LIMIT_ALLOCATIONS", "limit_allocations", false},
        {"NPU_LIMIT_PHYS_HANDLES", "limit_phys_handles", false},
        {"NPU_LIMIT_IPC_KEYS", "limit_ipc_keys", false},
        {"NPU_LIMIT_SHARE_HANDLES", "limit_share_handles", false},
        {"NPU_LIMIT_PIN", "limit_pin_mb", true},
        {"NPU_LIMIT_HBM", "limit_hbm_mb", true},
    };
    std::string out;
    for (const auto &l : kLimits) {
        const char *env = std::getenv(l.env);
        if (env == nullptr || *env == '\0')
            continue;
        uint64_t v = 0;
        bool ok;
        if (l.size) {
            ok = npu_parse_size_mb(env, &v) == 0;
        } else {
            char *end = nullptr;
            errno = 0;
            v = std::strtoull(env, &end, 10);
            ok = *env >= '0' && *env <= '9' && errno == 0 && *end == '\0' && v != 0;
        }
        if (!ok || v > UINT32_MAX) {
            std::fprintf(stderr, "npu: ignoring %s=%s\n", l.env, env);
            continue;
        }
        out += " ";
        out += l.param;
        out += "=";
        out += std::to_string(v);
    }
    return out;
}
std::atomic<bool> g_inproc_loaded{false};

// Loads the in-process driver once per process, on first use. The module
// is never unloaded: files may be open until the process exits, and the
// process's exit frees everything anyway.
int InprocLoad() {
    static std::once_flag once;
    static int result;
    std::call_once(once, [] {
        g_inproc_loaded.store(true, std::memory_order_relaxed);
        char params[96];
        std::snprintf(params, sizeof(params), "devices=%u hbm_mb=%" PRIu64, InprocDeviceCount(),
                      InprocHbmMiB());
        result = mockdev_module_load((params + InprocLimitParams()).c_str());
        if (result < 0)
            std::fprintf(stderr, "npu: in-process device failed to load: %s\n",
                         std::strerror(-result));
    });
    return result;
}

}  // namespace

bool InprocLoaded() {
    return g_inproc_loaded.load(std::memory_order_relaxed);
}

namespace {

// Why the backend is what it is, for the log.
void LogBackendChoice(const std::string &name, bool from_env) {
    if (from_env) {
        Log(LogLevel::kInfo, "backend %s (from NPU_DEVICE)", name.c_str());
    } else if (name == kInprocName) {
        Log(LogLevel::kInfo,
            "backend inproc: no %s, %s or %s and NPU_DEVICE is not set, so this process has "
            "a private in-process device that no other process can reach (IPC and shareable "
            "handles work only inside this process); load npu.ko or start npud to share one",
            kDefaultPaths[0], kDefaultPaths[1], kDefaultPaths[2]);
    } else {
        Log(LogLevel::kInfo, "backend %s (found; NPU_DEVICE is not set)", name.c_str());
    }
}

}  // namespace

Backend::Backend() {
    const char *env = std::getenv("NPU_DEVICE");
    bool from_env = env != nullptr && *env != '\0';
    if (from_env) {
        name_ = env;
    } else {
        name_ = kInprocName;
        for (const char *path : kDefaultPaths) {
            if (PathExists(path)) {
                name_ = path;
                break;
            }
        }
    }
    LogBackendChoice(name_, from_env);
    inproc_ = name_ == kInprocName;
    if (!inproc_ && name_.size() > 1 && name_.back() == '0')
        stem_ = name_.substr(0, name_.size() - 1);
}

const Backend &Backend::Get() {
    static const Backend backend;
    return backend;
}

std::string Backend::DevicePath(uint32_t devId) const {
    if (devId == 0)
        return name_;
    if (stem_.empty())
        return std::string();
    return stem_ + std::to_string(devId);
}

int Backend::DeviceCount(uint32_t *count) const {
    uint32_t n = 0;
    if (inproc_) {
        int ret = InprocLoad();
        if (ret < 0)
            return ret;
        char name[16];
        for (; n < kMaxDevices; n++) {
            std::snprintf(name, sizeof(name), "npu%u", n);
            if (mockdev_misc_find(name) == nullptr)
                break;
        }
    } else {
        for (; n < kMaxDevices; n++) {
            std::string path = DevicePath(n);
            if (path.empty() || !PathExists(path))
                break;
        }
    }
    *count = n;
    return 0;
}

int Backend::Open(uint32_t devId, std::unique_ptr<DeviceFile> *file) const {
    if (inproc_) {
        // A forked child has a copy of the parent's in-process driver,
        // without its engine threads and with whatever locks the parent's
        // other threads held at the fork: not a driver it can use.
        if (npuHalForkInprocUnusable())
            return -EOPNOTSUPP;
        int ret = InprocLoad();
        if (ret < 0)
            return ret;
        char name[16];
        std::snprintf(name, sizeof(name), "npu%u", devId);
        struct miscdevice *misc = mockdev_misc_find(name);
        if (misc == nullptr)
            return -ENODEV;
        struct file *filp = nullptr;
        ret = mockdev_file_open(misc, mockdev_task_self(), &filp);
        if (ret < 0)
            return ret;
        *file = std::make_unique<InprocFile>(filp);
        return 0;
    }

    std::string path = DevicePath(devId);
    if (path.empty())
        return -ENODEV;
    int fd;
    do {
        fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return errno == ENOENT ? -ENODEV : -errno;
    *file = std::make_unique<FdFile>(fd);
    return 0;
}

}  // namespace npu::hal

extern "C" long npuHalInprocDebugfsRead(const char *path, char *buf, size_t len) {
    if (path == nullptr || buf == nullptr)
        return -EINVAL;
    return mock_debugfs_read(path, buf, len);
}

size_t npu::hal::HostCopyGuarded(void *dst, const void *src, size_t n, bool from_host) {
    return mock_host_copy(dst, src, n, from_host);
}
