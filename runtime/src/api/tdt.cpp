// SPDX-License-Identifier: MIT
// CANN's tensor data transfer channels (acl/acl_tdt.h): data items,
// datasets and channels. A channel is a bounded FIFO of this process: a
// send copies every item's payload into device memory of the channel's
// device (core/tdt_payload.h), a receive copies the payloads back into
// host memory that the received dataset owns, so that they live on the
// device while they wait in the channel. acltdtCreateChannel makes a
// channel of kDefaultCapacity; acltdtStopChannel wakes the threads
// waiting on a channel and refuses further sends and receives.
//
// Every handle is looked up in a table before use, so that a foreign,
// stale or destroyed one is refused with ACL_ERROR_INVALID_PARAM rather
// than dereferenced; the tables are capped. Channels are shared_ptrs:
// a thread waiting on one keeps it alive while acltdtDestroyChannel
// wakes it, and it then returns ACL_ERROR_FAILURE.
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_tdt.h"
#include "api/api_boundary.h"
#include "base/singleton.h"
#include "core/device_manager.h"
#include "core/tdt_payload.h"

using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::TdtPayload;

struct acltdtDataItem {
    int32_t tdt_type;  // acltdtTensorType
    std::vector<int64_t> dims;
    int32_t data_type;  // aclDataType
    void *data;         // the program's buffer, or owned.data()
    size_t size;
    size_t slice_num;
    size_t slice_id;
    std::unique_ptr<uint8_t[]> owned;  // a received item's payload (size bytes)
    bool received;                     // made by acltdtReceiveTensor, freed with its dataset
};

struct acltdtDataset {
    std::vector<acltdtDataItem *> items;
    std::string name;
    bool received;  // holds received items (upstream: they are its own)
};

struct acltdtChannelHandle {
    uint32_t device;
    std::string name;
    size_t capacity;
};

namespace {

constexpr size_t kMaxNameLen = 128;       // with its NUL, as a queue name (RT_MQ_MAX_NAME_LEN)
constexpr size_t kMaxDims = 128;          // acltdtCreateDataItem's dimNum
constexpr size_t kMaxItems = 1024;        // items of one dataset
constexpr size_t kMinCapacity = 2;        // a queue's smallest depth upstream
constexpr size_t kMaxCapacity = 8192;     // elements of one channel
constexpr size_t kDefaultCapacity = 128;  // acltdtCreateChannel's
constexpr size_t kMaxHandles = 65536;     // each of: items, datasets
constexpr size_t kMaxChannels = 1024;

// One element of a channel: a dataset's items with their payloads on the
// device.
struct SentItem {
    int32_t tdt_type;
    std::vector<int64_t> dims;
    int32_t data_type;
    size_t slice_num;
    size_t slice_id;
    TdtPayload payload;
};

struct Element {
    std::vector<SentItem> items;
    std::string name;
};

void ReleaseElement(Element *e) {
    for (auto &it : e->items)
        npu::rt::TdtReleasePayload(&it.payload);
    e->items.clear();
}

struct Channel {
    uint32_t device = 0;
    size_t capacity = 0;
    std::deque<Element> fifo;  // under TdtState::mu
    bool stopped = false;      // under TdtState::mu: acltdtStopChannel
    bool destroyed = false;    // under TdtState::mu
    std::condition_variable not_full;
    std::condition_variable not_empty;
};

struct TdtState {
    // A leaf: no device call is made under it (payloads are copied
    // before a send takes it and after a receive drops it).
    std::mutex mu; /* Protects: the tables below and every Channel's fifo and flags */
    std::unordered_set<const acltdtDataItem *> items;
    std::unordered_set<const acltdtDataset *> datasets;
    std::unordered_map<const acltdtChannelHandle *,
                       std::pair<std::unique_ptr<acltdtChannelHandle>, std::shared_ptr<Channel>>>
        channels;

    static TdtState &Get() { return npu::base::Singleton<TdtState>::Get(); }
};

// For the getters, which cannot return a code.
void RecordBadItem(const char *api, const acltdtDataItem *item) {
    RunApi(api, [item] {
        return item == nullptr
                   ? Error::Format(ACL_ERROR_INVALID_PARAM, "dataItem is NULL")
                   : Error::Format(ACL_ERROR_INVALID_PARAM,
                                   "dataItem %p is not a live data item (acltdtCreateDataItem)",
                                   static_cast<const void *>(item));
    });
}

// The checks of an item and a dataset: caller holds TdtState::mu, so that
// neither can be destroyed while the call reads it.
Error CheckItemLocked(const acltdtDataItem *item, const char *what) {
    NPU_ACL_CHECK(item != nullptr, "%s is NULL", what);
    NPU_ACL_CHECK(TdtState::Get().items.count(item) != 0,
                  "%s %p is not a live data item (acltdtCreateDataItem)", what,
                  static_cast<const void *>(item));
    return Error::Ok();
}

Error CheckDatasetLocked(const acltdtDataset *ds) {
    NPU_ACL_CHECK(ds != nullptr, "dataset is NULL");
    NPU_ACL_CHECK(TdtState::Get().datasets.count(ds) != 0,
                  "dataset %p is not a live dataset (acltdtCreateDataset)",
                  static_cast<const void *>(ds));
    return Error::Ok();
}

// A getter of an item: read(item) under the lock if the item is live, else
// fallback and a message.
template <typename T, typename Read>
T ReadItem(const char *api, const acltdtDataItem *item, T fallback, Read read) {
    auto &s = TdtState::Get();
    {
        std::lock_guard<std::mutex> lk(s.mu);
        if (item != nullptr && s.items.count(item) != 0)
            return read(item);
    }
    RecordBadItem(api, item);
    return fallback;
}

// The channel of handle, else an error.
Error FindChannel(const acltdtChannelHandle *handle, std::shared_ptr<Channel> *out) {
    NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
    auto &s = TdtState::Get();
    std::lock_guard<std::mutex> lk(s.mu);
    auto it = s.channels.find(handle);
    NPU_ACL_CHECK(it != s.channels.end(), "handle %p is not a live channel (acltdtCreateChannel)",
                  static_cast<const void *>(handle));
    *out = it->second.second;
    return Error::Ok();
}

// Frees what a received dataset owns. Caller holds TdtState::mu.
void DropReceivedItemsLocked(acltdtDataset *ds) {
    auto &s = TdtState::Get();
    for (auto *item : ds->items) {
        s.items.erase(item);
        delete item;
    }
    ds->items.clear();
    ds->received = false;
}

acltdtChannelHandle *CreateChannel(const char *api, uint32_t deviceId, const char *name,
                                   size_t capacity) {
    acltdtChannelHandle *result = nullptr;
    RunApi(api, [&] {
        NPU_ACL_CHECK(name != nullptr, "name is NULL (device %u)", deviceId);
        const size_t len = strnlen(name, kMaxNameLen);
        NPU_ACL_CHECK(len + 1 <= kMaxNameLen, "name is longer than %zu characters",
                      kMaxNameLen - 1);
        NPU_ACL_CHECK(capacity >= kMinCapacity && capacity <= kMaxCapacity,
                      "capacity %zu is outside [%zu, %zu] (channel \"%s\")", capacity, kMinCapacity,
                      kMaxCapacity, name);
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(
            npu::rt::DeviceManager::Get().ToPhysical(static_cast<int32_t>(deviceId), &phys));
        auto handle = std::make_unique<acltdtChannelHandle>();
        handle->device = deviceId;
        handle->name.assign(name, len);
        handle->capacity = capacity;
        auto ch = std::make_shared<Channel>();
        ch->device = deviceId;
        ch->capacity = capacity;
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_ACL_CHECK(s.channels.size() < kMaxChannels, "this process has %zu channels already",
                      kMaxChannels);
        acltdtChannelHandle *raw = handle.get();
        s.channels.emplace(raw, std::make_pair(std::move(handle), std::move(ch)));
        result = raw;
        return Error::Ok();
    });
    return result;
}

}  // namespace

acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem) {
    return ReadItem(
        "acltdtGetTensorTypeFromItem", dataItem, ACL_TENSOR_DATA_UNDEFINED,
        [](const acltdtDataItem *it) { return static_cast<acltdtTensorType>(it->tdt_type); });
}

aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem) {
    return ReadItem(
        "acltdtGetDataTypeFromItem", dataItem, ACL_DT_UNDEFINED,
        [](const acltdtDataItem *it) { return static_cast<aclDataType>(it->data_type); });
}

void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem) {
    return ReadItem("acltdtGetDataAddrFromItem", dataItem, static_cast<void *>(nullptr),
                    [](const acltdtDataItem *it) { return it->data; });
}

size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem) {
    return ReadItem("acltdtGetDataSizeFromItem", dataItem, size_t{0},
                    [](const acltdtDataItem *it) { return it->size; });
}

size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem) {
    return ReadItem("acltdtGetDimNumFromItem", dataItem, size_t{0},
                    [](const acltdtDataItem *it) { return it->dims.size(); });
}

aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem, size_t *sliceNum,
                                    size_t *sliceId) {
    return RunApi("acltdtGetSliceInfoFromItem", [&] {
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_RETURN_IF_ERROR(CheckItemLocked(dataItem, "dataItem"));
        NPU_ACL_CHECK(sliceNum != nullptr, "sliceNum is NULL");
        NPU_ACL_CHECK(sliceId != nullptr, "sliceId is NULL");
        *sliceNum = dataItem->slice_num;
        *sliceId = dataItem->slice_id;
        return Error::Ok();
    });
}

aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims, size_t dimNum) {
    return RunApi("acltdtGetDimsFromItem", [&] {
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_RETURN_IF_ERROR(CheckItemLocked(dataItem, "dataItem"));
        NPU_ACL_CHECK(dims != nullptr || dimNum == 0, "dims is NULL but dimNum is %zu", dimNum);
        NPU_ACL_CHECK(dims == nullptr || dimNum != 0, "dims is not NULL but dimNum is 0");
        NPU_ACL_CHECK(dimNum >= dataItem->dims.size(),
                      "dimNum %zu is less than the item's %zu dims", dimNum, dataItem->dims.size());
        for (size_t i = 0; i < dataItem->dims.size(); ++i)
            dims[i] = dataItem->dims[i];
        return Error::Ok();
    });
}

acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t *dims, size_t dimNum,
                                     aclDataType dataType, void *data, size_t size) {
    acltdtDataItem *result = nullptr;
    RunApi("acltdtCreateDataItem", [&] {
        const int32_t type = npu::rt::EnumValue(tdtType);
        NPU_ACL_CHECK(type >= ACL_TENSOR_DATA_TENSOR && type <= ACL_TENSOR_DATA_END_TENSOR,
                      "tdtType %d is not an acltdtTensorType", type);
        NPU_ACL_CHECK(dims != nullptr || dimNum == 0, "dims is NULL but dimNum is %zu", dimNum);
        NPU_ACL_CHECK(dims == nullptr || dimNum != 0, "dims is not NULL but dimNum is 0");
        NPU_ACL_CHECK(dimNum <= kMaxDims, "dimNum %zu is larger than %zu", dimNum, kMaxDims);
        NPU_ACL_CHECK(type == ACL_TENSOR_DATA_TENSOR || dims == nullptr,
                      "dims must be NULL for tdtType %d (only tensors have a shape)", type);
        NPU_ACL_CHECK(data != nullptr || size == 0, "data is NULL but size is %zu", size);
        auto item = std::make_unique<acltdtDataItem>();
        item->tdt_type = type;
        if (dims != nullptr)
            item->dims.assign(dims, dims + dimNum);
        // Upstream keeps no data with the other kinds of item.
        const bool tensor = type == ACL_TENSOR_DATA_TENSOR;
        item->data_type = tensor ? npu::rt::EnumValue(dataType) : ACL_DT_UNDEFINED;
        item->data = tensor ? data : nullptr;
        item->size = tensor ? size : 0;
        item->slice_num = 0;
        item->slice_id = 0;
        item->received = false;
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_ACL_CHECK(s.items.size() < kMaxHandles, "this process has %zu data items already",
                      kMaxHandles);
        s.items.insert(item.get());
        result = item.release();
        return Error::Ok();
    });
    return result;
}

aclError acltdtDestroyDataItem(acltdtDataItem *dataItem) {
    return RunApi("acltdtDestroyDataItem", [&] {
        NPU_ACL_CHECK(dataItem != nullptr, "dataItem is NULL");
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_ACL_CHECK(s.items.count(dataItem) != 0,
                      "dataItem %p is not a live data item (acltdtCreateDataItem)",
                      static_cast<const void *>(dataItem));
        NPU_ACL_CHECK(!dataItem->received,
                      "dataItem %p belongs to a received dataset: acltdtDestroyDataset frees it",
                      static_cast<const void *>(dataItem));
        s.items.erase(dataItem);
        delete dataItem;
        return Error::Ok();
    });
}

acltdtDataset *acltdtCreateDataset(void) {
    acltdtDataset *result = nullptr;
    RunApi("acltdtCreateDataset", [&] {
        auto ds = std::make_unique<acltdtDataset>();
        ds->received = false;
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_ACL_CHECK(s.datasets.size() < kMaxHandles, "this process has %zu datasets already",
                      kMaxHandles);
        s.datasets.insert(ds.get());
        result = ds.release();
        return Error::Ok();
    });
    return result;
}

aclError acltdtDestroyDataset(acltdtDataset *dataset) {
    return RunApi("acltdtDestroyDataset", [&] {
        NPU_ACL_CHECK(dataset != nullptr, "dataset is NULL");
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_ACL_CHECK(s.datasets.count(dataset) != 0,
                      "dataset %p is not a live dataset (acltdtCreateDataset)",
                      static_cast<const void *>(dataset));
        if (dataset->received)
            DropReceivedItemsLocked(dataset);
        s.datasets.erase(dataset);
        delete dataset;
        return Error::Ok();
    });
}

acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index) {
    acltdtDataItem *result = nullptr;
    RunApi("acltdtGetDataItem", [&] {
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_RETURN_IF_ERROR(CheckDatasetLocked(dataset));
        NPU_ACL_CHECK(index < dataset->items.size(),
                      "index %zu is not below the dataset's size %zu", index,
                      dataset->items.size());
        result = dataset->items[index];
        return Error::Ok();
    });
    return result;
}

aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem) {
    return RunApi("acltdtAddDataItem", [&] {
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_RETURN_IF_ERROR(CheckDatasetLocked(dataset));
        NPU_RETURN_IF_ERROR(CheckItemLocked(dataItem, "dataItem"));
        if (dataset->received)
            return Error::Format(ACL_ERROR_FEATURE_UNSUPPORTED,
                                 "dataset %p holds received items: items cannot be added to it",
                                 static_cast<const void *>(dataset));
        NPU_ACL_CHECK(!dataItem->received, "dataItem %p belongs to a received dataset",
                      static_cast<const void *>(dataItem));
        NPU_ACL_CHECK(dataset->items.size() < kMaxItems, "the dataset has %zu items already",
                      kMaxItems);
        dataset->items.push_back(dataItem);
        return Error::Ok();
    });
}

size_t acltdtGetDatasetSize(const acltdtDataset *dataset) {
    size_t n = 0;
    RunApi("acltdtGetDatasetSize", [&] {
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_RETURN_IF_ERROR(CheckDatasetLocked(dataset));
        n = dataset->items.size();
        return Error::Ok();
    });
    return n;
}

const char *acltdtGetDatasetName(const acltdtDataset *dataset) {
    const char *name = nullptr;
    RunApi("acltdtGetDatasetName", [&] {
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_RETURN_IF_ERROR(CheckDatasetLocked(dataset));
        name = dataset->name.c_str();
        return Error::Ok();
    });
    return name;
}

acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name) {
    return CreateChannel("acltdtCreateChannel", deviceId, name, kDefaultCapacity);
}

acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId, const char *name,
                                                     size_t capacity) {
    return CreateChannel("acltdtCreateChannelWithCapacity", deviceId, name, capacity);
}

aclError acltdtStopChannel(acltdtChannelHandle *handle) {
    return RunApi("acltdtStopChannel", [&] {
        std::shared_ptr<Channel> ch;
        NPU_RETURN_IF_ERROR(FindChannel(handle, &ch));
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        ch->stopped = true;
        ch->not_full.notify_all();
        ch->not_empty.notify_all();
        return Error::Ok();
    });
}

aclError acltdtDestroyChannel(acltdtChannelHandle *handle) {
    return RunApi("acltdtDestroyChannel", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        auto &s = TdtState::Get();
        std::shared_ptr<Channel> ch;
        std::unique_ptr<acltdtChannelHandle> owned;
        std::deque<Element> left;
        {
            std::lock_guard<std::mutex> lk(s.mu);
            auto it = s.channels.find(handle);
            NPU_ACL_CHECK(it != s.channels.end(),
                          "handle %p is not a live channel (acltdtCreateChannel)",
                          static_cast<const void *>(handle));
            owned = std::move(it->second.first);
            ch = std::move(it->second.second);
            s.channels.erase(it);
            ch->destroyed = true;
            left.swap(ch->fifo);
            ch->not_full.notify_all();
            ch->not_empty.notify_all();
        }
        for (auto &e : left)
            ReleaseElement(&e);
        return Error::Ok();
    });
}

aclError acltdtCleanChannel(acltdtChannelHandle *handle) {
    return RunApi("acltdtCleanChannel", [&] {
        std::shared_ptr<Channel> ch;
        NPU_RETURN_IF_ERROR(FindChannel(handle, &ch));
        auto &s = TdtState::Get();
        std::deque<Element> left;
        {
            std::lock_guard<std::mutex> lk(s.mu);
            left.swap(ch->fifo);
            ch->not_full.notify_all();
        }
        for (auto &e : left)
            ReleaseElement(&e);
        return Error::Ok();
    });
}

aclError acltdtSendTensor(const acltdtChannelHandle *handle, const acltdtDataset *dataset,
                          int32_t timeout) {
    return RunApi("acltdtSendTensor", [&] {
        std::shared_ptr<Channel> ch;
        NPU_RETURN_IF_ERROR(FindChannel(handle, &ch));
        NPU_ACL_CHECK(timeout >= -1, "timeout %d is not -1 (forever), 0 or a number of ms",
                      timeout);
        // What to copy, taken under the lock: the items must be live.
        struct Source {
            SentItem meta;
            const void *data;
        };
        std::vector<Source> sources;
        Element e;
        {
            auto &s = TdtState::Get();
            std::lock_guard<std::mutex> lk(s.mu);
            NPU_RETURN_IF_ERROR(CheckDatasetLocked(dataset));
            NPU_ACL_CHECK(!dataset->items.empty(), "dataset %p is empty",
                          static_cast<const void *>(dataset));
            for (size_t i = 0; i < dataset->items.size(); ++i) {
                const acltdtDataItem *item = dataset->items[i];
                NPU_ACL_CHECK(s.items.count(item) != 0,
                              "item %zu of the dataset (%p) was destroyed", i,
                              static_cast<const void *>(item));
                sources.push_back({SentItem{item->tdt_type, item->dims, item->data_type,
                                            item->slice_num, item->slice_id, TdtPayload{}},
                                   item->data});
                sources.back().meta.payload.size = item->size;
            }
            e.name = dataset->name;
        }
        // The program's buffers are read outside the lock, as every copy.
        for (auto &src : sources) {
            SentItem si = src.meta;
            Error err = npu::rt::TdtStorePayload(static_cast<int32_t>(ch->device), src.data,
                                                 src.meta.payload.size, &si.payload);
            if (!err.ok()) {
                ReleaseElement(&e);
                return err;
            }
            e.items.push_back(std::move(si));
        }
        auto &s = TdtState::Get();
        std::unique_lock<std::mutex> lk(s.mu);
        const bool room = npu::rt::TdtWait(ch->not_full, lk, timeout, [&] {
            return ch->stopped || ch->destroyed || ch->fifo.size() < ch->capacity;
        });
        Error err;
        if (ch->destroyed || ch->stopped)
            err = Error::Format(ACL_ERROR_FAILURE, "the channel was %s",
                                ch->destroyed ? "destroyed" : "stopped");
        else if (!room)
            err = Error::Format(ACL_ERROR_RT_QUEUE_FULL,
                                "the channel holds %zu datasets, its capacity, after %d ms",
                                ch->fifo.size(), timeout);
        if (!err.ok()) {
            lk.unlock();
            ReleaseElement(&e);
            return err;
        }
        ch->fifo.push_back(std::move(e));
        ch->not_empty.notify_one();
        return Error::Ok();
    });
}

aclError acltdtReceiveTensor(const acltdtChannelHandle *handle, acltdtDataset *dataset,
                             int32_t timeout) {
    return RunApi("acltdtReceiveTensor", [&] {
        std::shared_ptr<Channel> ch;
        NPU_RETURN_IF_ERROR(FindChannel(handle, &ch));
        NPU_ACL_CHECK(timeout >= -1, "timeout %d is not -1 (forever), 0 or a number of ms",
                      timeout);
        auto &s = TdtState::Get();
        {
            std::lock_guard<std::mutex> lk(s.mu);
            NPU_RETURN_IF_ERROR(CheckDatasetLocked(dataset));
            NPU_ACL_CHECK(dataset->items.empty() || dataset->received,
                          "dataset %p holds items the program added: receive into an empty one",
                          static_cast<const void *>(dataset));
        }
        Element e;
        {
            std::unique_lock<std::mutex> lk(s.mu);
            const bool got = npu::rt::TdtWait(ch->not_empty, lk, timeout, [&] {
                return ch->stopped || ch->destroyed || !ch->fifo.empty();
            });
            if (ch->destroyed || ch->stopped)
                return Error::Format(ACL_ERROR_FAILURE, "the channel was %s",
                                     ch->destroyed ? "destroyed" : "stopped");
            if (!got)
                return Error::Format(ACL_ERROR_RT_QUEUE_EMPTY, "the channel is empty after %d ms",
                                     timeout);
            e = std::move(ch->fifo.front());
            ch->fifo.pop_front();
            ch->not_full.notify_one();
        }
        // Copy back outside the lock; the element is gone from the channel.
        std::vector<std::unique_ptr<acltdtDataItem>> made;
        Error err;
        for (auto &si : e.items) {
            auto item = std::make_unique<acltdtDataItem>();
            item->tdt_type = si.tdt_type;
            item->dims = si.dims;
            item->data_type = si.data_type;
            item->slice_num = si.slice_num;
            item->slice_id = si.slice_id;
            item->received = true;
            // Not zeroed first: the copy writes every byte.
            if (si.payload.size != 0)
                item->owned = std::make_unique_for_overwrite<uint8_t[]>(si.payload.size);
            item->size = si.payload.size;
            item->data = item->owned.get();
            err = npu::rt::TdtLoadPayload(si.payload, item->data);
            if (!err.ok())
                break;
            made.push_back(std::move(item));
        }
        ReleaseElement(&e);
        if (!err.ok())
            return err;
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_ACL_CHECK(s.datasets.count(dataset) != 0, "dataset %p was destroyed during the receive",
                      static_cast<const void *>(dataset));
        NPU_ACL_CHECK(s.items.size() + made.size() <= kMaxHandles,
                      "this process has %zu data items already", s.items.size());
        // A dataset that received before gets the new items instead.
        if (dataset->received)
            DropReceivedItemsLocked(dataset);
        for (auto &item : made) {
            s.items.insert(item.get());
            dataset->items.push_back(item.release());
        }
        dataset->received = true;
        dataset->name = e.name;
        return Error::Ok();
    });
}

aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle, size_t *size) {
    return RunApi("acltdtQueryChannelSize", [&] {
        std::shared_ptr<Channel> ch;
        NPU_RETURN_IF_ERROR(FindChannel(handle, &ch));
        NPU_ACL_CHECK(size != nullptr, "size is NULL");
        auto &s = TdtState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        *size = ch->fifo.size();
        return Error::Ok();
    });
}
