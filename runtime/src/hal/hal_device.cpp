// SPDX-License-Identifier: MIT
/*
 * halDevice: one driver context of this process on one device, with its
 * device-VA aperture and the ring that synchronous copies go through.
 */
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include <fcntl.h>
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
constexpr uint64_t kApertureSize = kTiB;
// The smallest window ReserveAperture falls back to.
constexpr uint64_t kMinApertureSize = 64 * kGiB;
// Fixed home of device devId's aperture: 16 TiB + devId TiB. A fixed
// window keeps device addresses recognisable and leaves room for the VMM
// reservations a later ABI adds; any 1 GiB aligned address works too.
constexpr uint64_t kApertureHint = 16 * kTiB;
constexpr uint32_t kSyncRingEntries = 64;

// A mapping of this process, unmapped on destruction.
class Mapping {
public:
	Mapping() = default;
	Mapping(void *addr, size_t size) : addr_(addr), size_(size) {}
	~Mapping() { Reset(); }
	Mapping(Mapping &&o) noexcept
		: addr_(std::exchange(o.addr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
	Mapping &operator=(Mapping &&o) noexcept
	{
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
	void Reset()
	{
		if (addr_ != nullptr)
			::munmap(addr_, size_);
		addr_ = nullptr;
		size_ = 0;
	}

	void *addr_ = nullptr;
	size_t size_ = 0;
};

class UniqueFd {
public:
	UniqueFd() = default;
	explicit UniqueFd(int fd) : fd_(fd) {}
	~UniqueFd()
	{
		if (fd_ >= 0)
			::close(fd_);
	}
	UniqueFd(UniqueFd &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
	UniqueFd &operator=(UniqueFd &&o) noexcept
	{
		std::swap(fd_, o.fd_);
		return *this;
	}
	UniqueFd(const UniqueFd &) = delete;
	UniqueFd &operator=(const UniqueFd &) = delete;

	int get() const { return fd_; }

private:
	int fd_ = -1;
};

// Reserve an inaccessible window for device addresses, 1 TiB: at the fixed
// home if it is free, else anywhere, trimmed to 1 GiB alignment. Where the
// address space has no room for that (ThreadSanitizer leaves ~1.5 TiB for
// all mappings of a process, an address-space rlimit), a smaller window:
// the driver places every mapping inside whatever it is given.
int ReserveApertureOf(uint64_t size, Mapping *out)
{
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

int ReserveAperture(uint32_t devId, Mapping *out)
{
	if (devId < 64) {
		const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE;
		void *hint = reinterpret_cast<void *>(kApertureHint + devId * kTiB);
		void *p = ::mmap(hint, kApertureSize, PROT_NONE, flags, -1, 0);
		if (p == hint) {
			*out = Mapping(p, kApertureSize);
			return 0;
		}
		// Kernels before 4.17 treat the flag as a hint: drop a stray mapping.
		if (p != MAP_FAILED)
			::munmap(p, kApertureSize);
	}
	int ret = -ENOMEM;
	for (uint64_t size = kApertureSize; size >= kMinApertureSize; size /= 4) {
		ret = ReserveApertureOf(size, out);
		if (ret != -ENOMEM)
			return ret;
	}
	return ret;
}

size_t PageRound(uint64_t bytes)
{
	const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
	return static_cast<size_t>((bytes + page - 1) & ~(page - 1));
}

template <typename T> T AtomicLoadAcquire(const T *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

template <typename T> void AtomicStoreRelease(T *p, T v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

} // namespace
} // namespace npu::hal

using npu::hal::DeviceFile;
using npu::hal::Mapping;
using npu::hal::UniqueFd;

struct halDevice {
	uint32_t devId = 0;
	uint32_t ctx_id = 0;	/* from CTX_SETUP */
	uint32_t tgid = 0;	/* from CTX_SETUP */
	std::unique_ptr<DeviceFile> file;
	Mapping aperture;

	// The synchronous ring: a memfd mapped shared. The memfd stays open
	// for the ring's lifetime so npud can duplicate it (pidfd_getfd).
	UniqueFd ring_fd;
	Mapping ring_mem;
	bool ring_live = false;
	uint32_t ring_id = 0;
	uint32_t trace_lane = 0; // NPU_TRACE's lane for the ring; 0: not tracing

	std::mutex ring_lock; /* Protects: the ring's SQ/CQ entries, cq_head, sq_tail, seq */
	uint64_t seq = 0;

	~halDevice()
	{
		halForkUntrackFd(ring_fd.get());
		if (ring_live) {
			struct npu_ring_destroy rd = {};
			rd.ring_id = ring_id;
			file->Ioctl(NPU_IOCTL_RING_DESTROY, &rd);
		}
		// Members go in reverse order: ring memory, memfd, aperture are
		// declared after file, so close the file explicitly first.
		file.reset();
	}

	struct npu_ring_hdr *hdr() const
	{
		return static_cast<struct npu_ring_hdr *>(ring_mem.addr());
	}
	struct npu_sqe *sqes() const
	{
		return reinterpret_cast<struct npu_sqe *>(static_cast<char *>(ring_mem.addr()) +
							   NPU_RING_SQES_OFF);
	}
	struct npu_cqe *cqes() const
	{
		return reinterpret_cast<struct npu_cqe *>(static_cast<char *>(ring_mem.addr()) +
							   NPU_RING_SQES_OFF +
							   npu::hal::kSyncRingEntries * sizeof(struct npu_sqe));
	}

	int CreateRing();
	int Submit(const struct npu_sqe &proto);
};

int halDevice::CreateRing()
{
	using npu::hal::kSyncRingEntries;
	const size_t bytes = npu::hal::PageRound(npu_ring_bytes(kSyncRingEntries, kSyncRingEntries));
	UniqueFd fd(::memfd_create("npu-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	if (fd.get() < 0)
		return -errno;
	// Sealed against shrinking: npud maps only memory that cannot be truncated away.
	if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) < 0 ||
	    ::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK) < 0)
		return -errno;
	void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
	if (p == MAP_FAILED)
		return -errno;
	Mapping mem(p, bytes);
	// The ring is this process's: a forked child gets no mapping of it.
	if (::madvise(p, bytes, MADV_DONTFORK) < 0)
		return -errno;

	struct npu_ring_create rc = {};
	rc.addr = reinterpret_cast<uint64_t>(p);
	rc.size = bytes;
	rc.sq_entries = kSyncRingEntries;
	rc.cq_entries = kSyncRingEntries;
	int ret = file->Ioctl(NPU_IOCTL_RING_CREATE, &rc);
	if (ret < 0)
		return ret;
	if (rc.sqes_off != NPU_RING_SQES_OFF ||
	    rc.cqes_off != NPU_RING_SQES_OFF + kSyncRingEntries * sizeof(struct npu_sqe)) {
		struct npu_ring_destroy rd = {};
		rd.ring_id = rc.ring_id;
		file->Ioctl(NPU_IOCTL_RING_DESTROY, &rd);
		return -EPROTO;
	}
	ring_fd = std::move(fd);
	halForkTrackFd(ring_fd.get());
	ring_mem = std::move(mem);
	ring_id = rc.ring_id;
	ring_live = true;
	npu::hal::trace::Start();
	trace_lane = npu::hal::trace::LaneOpen(devId, ring_id);
	if (trace_lane != 0) {
		npu::hal::trace::SetLaneName(trace_lane, "synchronous calls of device " +
								 std::to_string(devId));
	}
	return 0;
}

// Post one descriptor, ring the doorbell, wait for its completion and
// return its result. A completion left over from an earlier call whose
// wait failed (user_data older than ours) is consumed and dropped. The
// driver returns from a wait with nothing in flight at once, so a missing
// completion is retried a few times, then reported as -EIO. A wait ended
// by a signal (-EINTR) or declined by npud (-EAGAIN) is waited again.
int halDevice::Submit(const struct npu_sqe &proto)
{
	using npu::hal::kSyncRingEntries;
	constexpr int kMaxEnters = 4;
	std::lock_guard<std::mutex> guard(ring_lock);
	struct npu_ring_hdr *h = hdr();
	const uint32_t mask = kSyncRingEntries - 1;

	uint32_t tail = h->sq_tail; // only we write it
	if (tail - npu::hal::AtomicLoadAcquire(&h->sq_head) >= kSyncRingEntries)
		return -EBUSY;
	const uint64_t tag = ++seq;
	struct npu_sqe *sqe = &sqes()[tail & mask];
	*sqe = proto;
	sqe->user_data = tag;
	if (trace_lane != 0)
		npu::hal::trace::Queued(trace_lane, tag, &proto, 1, npu::hal::trace::NowNs());
	npu::hal::AtomicStoreRelease(&h->sq_tail, tail + 1);

	struct npu_ring_enter re = {};
	re.ring_id = ring_id;
	re.to_submit = 1;
	re.min_complete = 1;
	re.flags = NPU_ENTER_GETEVENTS;
	unsigned declined = 0;
	for (int i = 0; i < kMaxEnters;) {
		const uint64_t t0 = trace_lane != 0 ? npu::hal::trace::NowNs() : 0;
		int ret = file->RingEnter(&re);
		if (t0 != 0) {
			npu::hal::trace::ThreadSlice("doorbell and wait", t0, npu::hal::trace::NowNs(),
						     trace_lane, tag, ret);
		}
		// A signal handler ran, or npud declined to wait (the doorbell
		// was rung either way): wait again.
		if (ret == -EINTR)
			continue;
		if (ret == -EAGAIN) {
			npu::hal::WaitRetryPause(&declined);
			continue;
		}
		if (ret < 0)
			return ret;
		i++;
		uint32_t head = h->cq_head; // only we write it
		uint32_t ctail = npu::hal::AtomicLoadAcquire(&h->cq_tail);
		while (head != ctail) {
			struct npu_cqe cqe = cqes()[head & mask];
			head++;
			npu::hal::AtomicStoreRelease(&h->cq_head, head);
			if (cqe.user_data == tag) {
				if (trace_lane != 0) {
					npu::hal::trace::Completed(trace_lane, tag, cqe.res,
								   npu::hal::trace::NowNs());
				}
				return cqe.res;
			}
		}
		// Ours is not there yet: submit it if the driver has not taken
		// it, else just wait for it.
		re.to_submit = npu::hal::AtomicLoadAcquire(&h->sq_head) == tail ? 1 : 0;
	}
	return -EIO;
}

npu::hal::DeviceFile *npu::hal::DeviceFileOf(halDevice *dev)
{
	return dev->file.get();
}

uint32_t npu::hal::DeviceCtxId(const halDevice *dev)
{
	return dev->ctx_id;
}

uint32_t npu::hal::DeviceTgid(const halDevice *dev)
{
	return dev->tgid;
}

uint32_t npu::hal::DeviceIndex(const halDevice *dev)
{
	return dev->devId;
}

extern "C" {

const char *halBackendName(void)
{
	return npu::hal::Backend::Get().name().c_str();
}

int halBackendIsInproc(void)
{
	return npu::hal::Backend::Get().inproc() ? 1 : 0;
}

int halGetDeviceCount(uint32_t *count)
{
	if (count == nullptr)
		return -EINVAL;
	return npu::hal::Backend::Get().DeviceCount(count);
}

int halDeviceOpen(uint32_t devId, halDevice **out)
{
	if (out == nullptr)
		return -EINVAL;
	std::unique_ptr<halDevice> dev(new (std::nothrow) halDevice);
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

	ret = dev->CreateRing();
	if (ret < 0)
		return ret;
	*out = dev.release();
	return 0;
}

void halDeviceClose(halDevice *dev)
{
	delete dev;
}

uint64_t halApertureBase(const halDevice *dev)
{
	return reinterpret_cast<uint64_t>(dev->aperture.addr());
}

uint64_t halApertureSize(const halDevice *dev)
{
	return dev->aperture.size();
}

int halIsDeviceAddress(const halDevice *dev, const void *addr, size_t size)
{
	const uint64_t base = halApertureBase(dev);
	const uint64_t len = halApertureSize(dev);
	const uint64_t a = reinterpret_cast<uint64_t>(addr);
	if (a < base || a - base >= len)
		return 0;
	return size <= len - (a - base) ? 1 : 0;
}

int halGetVersion(halDevice *dev, struct npu_version *version)
{
	*version = {};
	return dev->file->Ioctl(NPU_IOCTL_GET_VERSION, version);
}

int halDeviceInfo(halDevice *dev, struct npu_device_info *info)
{
	*info = {};
	return dev->file->Ioctl(NPU_IOCTL_DEVICE_INFO, info);
}

int halMemInfo(halDevice *dev, struct npu_mem_info *info)
{
	*info = {};
	return dev->file->Ioctl(NPU_IOCTL_MEM_INFO, info);
}

int halMemAlloc(halDevice *dev, uint64_t size, uint32_t policy, uint32_t flags,
		struct npu_mem_alloc *out)
{
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

int halMemFree(halDevice *dev, uint64_t va)
{
	struct npu_mem_free mf = {};
	mf.va = va;
	return dev->file->Ioctl(NPU_IOCTL_MEM_FREE, &mf);
}

int halMemQuery(halDevice *dev, uint64_t va, struct npu_mem_query *out)
{
	struct npu_mem_query mq = {};
	mq.va = va;
	int ret = dev->file->Ioctl(NPU_IOCTL_MEM_QUERY, &mq);
	if (ret < 0)
		return ret;
	*out = mq;
	return 0;
}

int halMemcpy(halDevice *dev, void *dst, const void *src, uint64_t count, uint32_t dir)
{
	if (dir >= NPU_DIR_COUNT)
		return -EINVAL;
	struct npu_sqe sqe = {};
	sqe.opcode = NPU_OP_COPY;
	sqe.dir = static_cast<uint8_t>(dir);
	sqe.dst = reinterpret_cast<uint64_t>(dst);
	sqe.src = reinterpret_cast<uint64_t>(src);
	sqe.len = count;
	return dev->Submit(sqe);
}

int halMemset(halDevice *dev, void *dst, uint8_t value, uint64_t count, uint32_t dir)
{
	if (dir >= NPU_DIR_COUNT)
		return -EINVAL;
	struct npu_sqe sqe = {};
	sqe.opcode = NPU_OP_MEMSET;
	sqe.dir = static_cast<uint8_t>(dir);
	sqe.dst = reinterpret_cast<uint64_t>(dst);
	sqe.len = count;
	sqe.value = value;
	return dev->Submit(sqe);
}

int halNop(halDevice *dev)
{
	static std::atomic<uint64_t> cookies{ 1 };
	struct npu_nop nop = {};
	nop.cookie = cookies.fetch_add(1, std::memory_order_relaxed);
	int ret = dev->file->Ioctl(NPU_IOCTL_NOP, &nop);
	if (ret < 0)
		return ret;
	return nop.out == nop.cookie ? 0 : -EIO;
}

// halHostRegister/halHostUnregister and halPeer*: hal_host.cpp.

} // extern "C"

namespace npu::hal {
// For the other HAL files (sharing): one raw command on dev's driver file.
int DeviceIoctl(halDevice *dev, unsigned int cmd, void *arg)
{
	return dev->file->Ioctl(cmd, arg);
}
} // namespace npu::hal
