// SPDX-License-Identifier: MIT
/*
 * Internals of the HAL: how a device file is reached (the backend), shared
 * by the backend selection and the device code. Nothing here is exported.
 */
#ifndef NPU_HAL_INTERNAL_H
#define NPU_HAL_INTERNAL_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "base/log.h"
#include "npu/npu_uapi.h"

struct npuHalDevice;
struct npuHalQueue;

namespace npu::hal {

// One open driver file. Ioctl() issues one command with arg pointing at
// the command's struct in this process and returns the driver's result:
// 0 (or a non-negative value) or -errno. Implementations are thread safe;
// the destructor is the last close of the file.
class DeviceFile {
  public:
    virtual ~DeviceFile() = default;
    virtual int Ioctl(unsigned int cmd, void *arg) = 0;
    // The ring doorbell and completion wait (NPU_IOCTL_RING_ENTER). Every
    // RING_ENTER goes through here so a backend can use a faster path
    // (the kmod's io_uring command) without the ring code knowing.
    virtual int RingEnter(struct npu_ring_enter *re) { return Ioctl(NPU_IOCTL_RING_ENTER, re); }
    // The file descriptor, for io_uring; -1 for the in-process driver.
    virtual int Fd() const { return -1; }
};

// hal_uring.cpp: the io_uring doorbell. Called once a device file is open
// with the features GET_VERSION reported: if the device supports
// NPU_URING_CMD_ENTER (NPU_FEATURE_URING_CMD) and NPU_URING allows it,
// *file is wrapped so that RingEnter goes through IORING_OP_URING_CMD.
// NPU_URING=0: always the ioctl; NPU_URING=1: io_uring or the open fails
// (-EOPNOTSUPP, or why io_uring could not be set up); unset or anything
// else: io_uring when possible, else the ioctl. Returns 0 or -errno.
int UseUringDoorbell(std::unique_ptr<DeviceFile> *file, uint64_t features);

// The log is base's; the HAL's files log through these names.
using base::Log;
using base::LogEnabled;
using base::LogLevel;

// The backend this process uses, decided once from NPU_DEVICE.
class Backend {
  public:
    static const Backend &Get();

    bool inproc() const { return inproc_; }
    // "inproc" or the path of device 0.
    const std::string &name() const { return name_; }
    // Path of device devId (file backends only).
    std::string DevicePath(uint32_t devId) const;
    // Number of devices, or -errno.
    int DeviceCount(uint32_t *count) const;
    // Open device devId: 0 or -errno.
    int Open(uint32_t devId, std::unique_ptr<DeviceFile> *file) const;

  private:
    Backend();

    bool inproc_ = false;
    std::string name_;
    // For device paths: name_ without its trailing "0" (empty if the path
    // does not end in "0", then only device 0 exists).
    std::string stem_;
};

// hal_fork.cpp: the fork generation, 0 in the process that loaded the
// library and one more in each forked child. An object that holds a file
// of the parent (made in an older generation) fails every call with -EBADF.
uint32_t ForkGeneration();
// hal_backend.cpp: true once this process (or the parent it was forked
// from) loaded the in-process device.
bool InprocLoaded();
// hal_queue.cpp: a queue that npuHalQueueStatsTotal does not count (the
// device's synchronous queue), and its one call: submit n descriptors, wait
// for them in the same driver entry (the driver may run them in this
// thread) and return the first error of them (0 when all succeeded). Calls
// on one queue must be serialised by the caller.
int QueueCreateUnlisted(npuHalDevice *dev, uint32_t entries, npuHalQueue **out);
int QueueRun(npuHalQueue *q, const struct npu_sqe *sqes, uint32_t n);

// A completion wait that returned -EAGAIN: npud declined to wait because
// this process already has its share of the daemon's workers waiting (the
// doorbell was rung). Sleep before waiting again, 100 us doubling up to
// 20 ms (a blocked wait's own slice) with *attempt, so that the retry is no
// busy loop.
inline void WaitRetryPause(unsigned *attempt) {
    constexpr unsigned kMaxShift = 8;  // 100 us << 8 = 25.6 ms, capped below
    const unsigned shift = std::min(*attempt, kMaxShift);
    std::this_thread::sleep_for(std::chrono::microseconds(std::min(100u << shift, 20000u)));
    ++*attempt;
}

}  // namespace npu::hal

#endif /* NPU_HAL_INTERNAL_H */
