// SPDX-License-Identifier: MIT
/*
 * The io_uring doorbell: RING_ENTER as an IORING_OP_URING_CMD command
 * (NPU_URING_CMD_ENTER) on the device file, for the kernel module on a
 * kernel with io_uring. Every other command still goes through ioctl.
 *
 * One io_uring serves one RingEnter at a time, because a call may wait for
 * completions. Concurrent callers each take an idle ring from the file's
 * pool, or set up a new one; the pool keeps a few for reuse. The rings use
 * 128-byte SQEs, whose 80-byte command area holds the whole struct
 * npu_ring_enter (with its timeout).
 */
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include <liburing.h>

#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

#include "hal_internal.h"

namespace npu::hal {
namespace {

enum class UringMode { kOff, kAuto, kRequired };

UringMode ModeFromEnv() {
    static const UringMode mode = [] {
        const char *v = std::getenv("NPU_URING");
        if (v != nullptr && std::strcmp(v, "0") == 0)
            return UringMode::kOff;
        if (v != nullptr && std::strcmp(v, "1") == 0)
            return UringMode::kRequired;
        return UringMode::kAuto;
    }();
    return mode;
}

// One io_uring with room for a single command.
class Uring {
  public:
    Uring() = default;
    ~Uring() {
        if (live_ && gen_ == ForkGeneration()) {
            npuHalForkUntrackFd(ring_.ring_fd);
            io_uring_queue_exit(&ring_);
        }
    }
    Uring(const Uring &) = delete;
    Uring &operator=(const Uring &) = delete;

    // 0 or -errno (ENOSYS without io_uring, EPERM if it is disabled).
    int Init() {
        struct io_uring_params p = {};
        p.flags = IORING_SETUP_SQE128;
        int ret = io_uring_queue_init_params(2, &ring_, &p);
        if (ret < 0)
            return ret;
        live_ = true;
        gen_ = ForkGeneration();
        // Its rings are the parent's alone; the child closes the descriptor.
        (void)io_uring_ring_dontfork(&ring_);
        npuHalForkTrackFd(ring_.ring_fd);
        return 0;
    }

    // NPU_URING_CMD_ENTER on fd: the ioctl's result, submitted in *re.
    int Enter(int fd, struct npu_ring_enter *re) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring_);
        if (sqe == nullptr)
            return -EBUSY;                      // cannot happen: one command at a time
        std::memset(sqe, 0, 2 * sizeof(*sqe));  // an SQE128 slot
        sqe->opcode = IORING_OP_URING_CMD;
        sqe->fd = fd;
        sqe->cmd_op = NPU_URING_CMD_ENTER;
        struct npu_ring_enter args = *re;
        args.submitted = 0;
        args.pad = 0;
        static_assert(sizeof(args) <= 80, "the SQE128 command area holds 80 bytes");
        std::memcpy(sqe->cmd, &args, sizeof(args));

        // An interrupted io_uring_enter leaves the SQE in the ring; the
        // next call submits it. Once submitted, the command must be reaped.
        int ret;
        do {
            ret = io_uring_submit_and_wait(&ring_, 1);
        } while (ret == -EINTR);
        if (ret < 0)
            return ret;
        struct io_uring_cqe *cqe = nullptr;
        do {
            ret = io_uring_wait_cqe(&ring_, &cqe);
        } while (ret == -EINTR);
        if (ret < 0)
            return ret;
        const int res = cqe->res;
        io_uring_cqe_seen(&ring_, cqe);
        if (res < 0)
            return res;
        re->submitted = static_cast<uint32_t>(res);
        return 0;
    }

  private:
    struct io_uring ring_ = {};
    bool live_ = false;
    uint32_t gen_ = 0;  // ForkGeneration() at Init
};

class UringFile final : public DeviceFile {
  public:
    UringFile(std::unique_ptr<DeviceFile> inner, std::unique_ptr<Uring> first)
        : inner_(std::move(inner)) {
        idle_[0] = std::move(first);
    }
    UringFile(const UringFile &) = delete;
    UringFile &operator=(const UringFile &) = delete;

    int Ioctl(unsigned int cmd, void *arg) override { return inner_->Ioctl(cmd, arg); }
    int Fd() const override { return inner_->Fd(); }

    int RingEnter(struct npu_ring_enter *re) override {
        if (inner_->Fd() < 0)
            return -EBADF;  // the parent's file, in a forked child
        std::unique_ptr<Uring> u = Take();
        if (!u) {
            u.reset(new (std::nothrow) Uring);
            if (!u)
                return -ENOMEM;
            int ret = u->Init();
            if (ret < 0)
                return ret;
        }
        int ret = u->Enter(inner_->Fd(), re);
        Give(std::move(u));
        return ret;
    }

  private:
    std::unique_ptr<Uring> Take() {
        std::lock_guard<std::mutex> guard(lock_);
        for (auto &slot : idle_) {
            if (slot)
                return std::move(slot);
        }
        return nullptr;
    }

    // Back into the pool, or freed if the pool is full.
    void Give(std::unique_ptr<Uring> u) {
        std::lock_guard<std::mutex> guard(lock_);
        for (auto &slot : idle_) {
            if (!slot) {
                slot = std::move(u);
                return;
            }
        }
    }

    // Declared first, destroyed last: the rings go before the file closes.
    std::unique_ptr<DeviceFile> inner_;
    std::mutex lock_; /* Protects: idle_ */
    std::array<std::unique_ptr<Uring>, 4> idle_;
};

}  // namespace

int UseUringDoorbell(std::unique_ptr<DeviceFile> *file, uint64_t features) {
    const UringMode mode = ModeFromEnv();
    if (mode == UringMode::kOff)
        return 0;
    if (!(features & NPU_FEATURE_URING_CMD) || (*file)->Fd() < 0)
        return mode == UringMode::kRequired ? -EOPNOTSUPP : 0;
    // Set up the first ring now, so that a kernel without usable io_uring
    // falls back (or fails, if required) here rather than at the first
    // doorbell.
    std::unique_ptr<Uring> first(new (std::nothrow) Uring);
    if (!first)
        return -ENOMEM;
    int ret = first->Init();
    if (ret < 0)
        return mode == UringMode::kRequired ? ret : 0;
    std::unique_ptr<DeviceFile> wrapped(new (std::nothrow)
                                            UringFile(std::move(*file), std::move(first)));
    if (!wrapped)
        return -ENOMEM;  // nothing was moved: no allocation, no construction
    *file = std::move(wrapped);
    return 0;
}

}  // namespace npu::hal
