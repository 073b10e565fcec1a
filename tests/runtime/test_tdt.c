// SPDX-License-Identifier: MIT
/*
 * CANN's tensor data transfer API (acl/acl_tdt.h, acl/acl_tdt_queue.h):
 * data items and datasets; channels, bounded FIFOs whose payloads wait in
 * device memory (this process's device usage grows while they do) and
 * come back exactly, in order, with timeouts, capacity and a producer and
 * a consumer thread; queues with acltdtEnqueueData/acltdtDequeueData and
 * routes that forward a source's elements into its destination. Every bad
 * input and destroyed or foreign handle gets its exact code and a message.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
#include "rt_test.h"

#define MIB (1024ULL * 1024ULL)
/* A call returning a pointer (or a value) that records a message. */
#define EXPECT_NULL(expr)                                                       \
	do {                                                                    \
		assert_null(expr);                                              \
		assert_non_null(aclGetRecentErrMsg());                          \
	} while (0)

/* This process's device memory on device 0, all components. */
static uint64_t device_usage(void)
{
	aclrtMemUsageInfo info[8];
	size_t n = 0;
	uint64_t sum = 0;

	ACL_OK(aclrtGetMemUsageInfo(0, info, 8, &n));
	for (size_t i = 0; i < n; i++)
		sum += info[i].curMemSize;
	return sum;
}

/* A dataset of one float tensor (1 x n) at data. */
static acltdtDataset *float_dataset(float *data, size_t n)
{
	int64_t dims[2] = { 1, (int64_t)n };
	acltdtDataItem *item =
		acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT, data, n * sizeof(float));
	acltdtDataset *ds = acltdtCreateDataset();

	assert_non_null(item);
	assert_non_null(ds);
	ACL_OK(acltdtAddDataItem(ds, item));
	return ds;
}

static void destroy_with_items(acltdtDataset *ds)
{
	size_t n = acltdtGetDatasetSize(ds);

	for (size_t i = 0; i < n; i++)
		ACL_OK(acltdtDestroyDataItem(acltdtGetDataItem(ds, i)));
	ACL_OK(acltdtDestroyDataset(ds));
}

static void test_items_and_datasets(void **state)
{
	int64_t dims[3] = { 2, 3, 4 }, out[3] = { 0 }, small[2];
	float data[24];
	size_t num = 7, id = 7;
	struct { char junk[64]; } foreign;
	acltdtDataItem *item, *eos;
	acltdtDataset *ds;

	(void)state;
	item = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 3, ACL_FLOAT16, data, sizeof(data));
	assert_non_null(item);
	assert_int_equal(acltdtGetTensorTypeFromItem(item), ACL_TENSOR_DATA_TENSOR);
	assert_int_equal(acltdtGetDataTypeFromItem(item), ACL_FLOAT16);
	assert_ptr_equal(acltdtGetDataAddrFromItem(item), data);
	assert_int_equal(acltdtGetDataSizeFromItem(item), sizeof(data));
	assert_int_equal(acltdtGetDimNumFromItem(item), 3);
	ACL_OK(acltdtGetDimsFromItem(item, out, 3));
	assert_memory_equal(out, dims, sizeof(dims));
	ACL_OK(acltdtGetSliceInfoFromItem(item, &num, &id));
	assert_int_equal(num, 0);
	assert_int_equal(id, 0);
	EXPECT_FAIL(acltdtGetDimsFromItem(item, small, 2), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetDimsFromItem(item, NULL, 3), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetDimsFromItem(item, out, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetSliceInfoFromItem(item, NULL, &id), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetSliceInfoFromItem(item, &num, NULL), ACL_ERROR_INVALID_PARAM);

	/* Other kinds carry no shape and no data. */
	eos = acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, NULL, 0, ACL_FLOAT, data, 4);
	assert_non_null(eos);
	assert_int_equal(acltdtGetDataTypeFromItem(eos), ACL_DT_UNDEFINED);
	assert_null(acltdtGetDataAddrFromItem(eos));
	assert_int_equal(acltdtGetDataSizeFromItem(eos), 0);

	EXPECT_NULL(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 2, ACL_FLOAT, data, 4));
	EXPECT_NULL(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 0, ACL_FLOAT, data, 4));
	EXPECT_NULL(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 129, ACL_FLOAT, data, 4));
	EXPECT_NULL(acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, dims, 3, ACL_FLOAT, NULL, 0));
	EXPECT_NULL(acltdtCreateDataItem((acltdtTensorType)9, NULL, 0, ACL_FLOAT, NULL, 0));
	EXPECT_NULL(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 3, ACL_FLOAT, NULL, 8));

	ds = acltdtCreateDataset();
	assert_non_null(ds);
	assert_int_equal(acltdtGetDatasetSize(ds), 0);
	assert_string_equal(acltdtGetDatasetName(ds), "");
	ACL_OK(acltdtAddDataItem(ds, item));
	ACL_OK(acltdtAddDataItem(ds, eos));
	assert_int_equal(acltdtGetDatasetSize(ds), 2);
	assert_ptr_equal(acltdtGetDataItem(ds, 0), item);
	assert_ptr_equal(acltdtGetDataItem(ds, 1), eos);
	EXPECT_NULL(acltdtGetDataItem(ds, 2));
	EXPECT_FAIL(acltdtAddDataItem(NULL, item), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtAddDataItem(ds, NULL), ACL_ERROR_INVALID_PARAM);

	/* Foreign and destroyed handles are refused, never read. */
	memset(&foreign, 0x5a, sizeof(foreign));
	EXPECT_FAIL(acltdtDestroyDataItem((acltdtDataItem *)&foreign), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDestroyDataset((acltdtDataset *)&foreign), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtAddDataItem(ds, (acltdtDataItem *)&foreign), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(acltdtGetDatasetSize((acltdtDataset *)&foreign), 0);
	assert_int_equal(acltdtGetDimNumFromItem((acltdtDataItem *)&foreign), 0);
	ACL_OK(acltdtDestroyDataItem(eos));
	EXPECT_FAIL(acltdtDestroyDataItem(eos), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(acltdtGetTensorTypeFromItem(eos), ACL_TENSOR_DATA_UNDEFINED);
	EXPECT_NULL(acltdtGetDataAddrFromItem(eos));
	assert_int_equal(acltdtGetDataSizeFromItem(eos), 0);
	ACL_OK(acltdtDestroyDataItem(item));
	ACL_OK(acltdtDestroyDataset(ds));
	EXPECT_FAIL(acltdtDestroyDataset(ds), ACL_ERROR_INVALID_PARAM);
	EXPECT_NULL(acltdtGetDatasetName(ds));
	EXPECT_FAIL(acltdtDestroyDataset(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDestroyDataItem(NULL), ACL_ERROR_INVALID_PARAM);
}

static void test_channel_fifo_on_device(void **state)
{
	enum { N = 3, COUNT = (int)(MIB / sizeof(float)) };
	static float bufs[N + 1][COUNT];
	acltdtDataset *sent[N + 1], *recv, *mine;
	acltdtChannelHandle *ch;
	uint64_t base, t0;
	size_t size = 99;
	int64_t dims[2];

	(void)state;
	base = device_usage();
	ch = acltdtCreateChannelWithCapacity(0, "fifo", N);
	assert_non_null(ch);
	for (int i = 0; i <= N; i++) {
		rt_fill_pattern(bufs[i], sizeof(bufs[i]), 100 + i);
		sent[i] = float_dataset(bufs[i], COUNT);
	}
	for (int i = 0; i < N; i++)
		ACL_OK(acltdtSendTensor(ch, sent[i], i == 0 ? -1 : 1000));
	ACL_OK(acltdtQueryChannelSize(ch, &size));
	assert_int_equal(size, N);
	/* The payloads wait on the device, not in the program's buffers. */
	assert_true(device_usage() >= base + N * MIB);
	memset(bufs[0], 0, sizeof(bufs[0]));

	/* Full: at once, and after the timeout. */
	EXPECT_FAIL(acltdtSendTensor(ch, sent[N], 0), ACL_ERROR_RT_QUEUE_FULL);
	t0 = rt_now_ms();
	EXPECT_FAIL(acltdtSendTensor(ch, sent[N], 60), ACL_ERROR_RT_QUEUE_FULL);
	assert_true(rt_now_ms() - t0 >= 55);

	recv = acltdtCreateDataset();
	assert_non_null(recv);
	for (int i = 0; i < N; i++) {
		acltdtDataItem *item;
		float expect[COUNT];

		ACL_OK(acltdtReceiveTensor(ch, recv, 1000));
		assert_int_equal(acltdtGetDatasetSize(recv), 1);
		item = acltdtGetDataItem(recv, 0);
		assert_non_null(item);
		assert_int_equal(acltdtGetDataTypeFromItem(item), ACL_FLOAT);
		assert_int_equal(acltdtGetDataSizeFromItem(item), sizeof(bufs[i]));
		ACL_OK(acltdtGetDimsFromItem(item, dims, 2));
		assert_int_equal(dims[0], 1);
		assert_int_equal(dims[1], COUNT);
		/* In order, exactly what was sent (buffer 0 was cleared since). */
		rt_fill_pattern(expect, sizeof(expect), 100 + i);
		assert_memory_equal(acltdtGetDataAddrFromItem(item), expect, sizeof(expect));
		assert_ptr_not_equal(acltdtGetDataAddrFromItem(item), bufs[i]);
		/* A received dataset owns its items. */
		EXPECT_FAIL(acltdtDestroyDataItem(item), ACL_ERROR_INVALID_PARAM);
		EXPECT_FAIL(acltdtAddDataItem(recv, item), ACL_ERROR_FEATURE_UNSUPPORTED);
	}
	ACL_OK(acltdtQueryChannelSize(ch, &size));
	assert_int_equal(size, 0);
	assert_int_equal(device_usage(), base);

	/* Empty: at once, and after the timeout. */
	EXPECT_FAIL(acltdtReceiveTensor(ch, recv, 0), ACL_ERROR_RT_QUEUE_EMPTY);
	t0 = rt_now_ms();
	EXPECT_FAIL(acltdtReceiveTensor(ch, recv, 60), ACL_ERROR_RT_QUEUE_EMPTY);
	assert_true(rt_now_ms() - t0 >= 55);

	/* A dataset with the program's items cannot receive. */
	mine = float_dataset(bufs[N], 4);
	ACL_OK(acltdtSendTensor(ch, sent[N], 0));
	EXPECT_FAIL(acltdtReceiveTensor(ch, mine, 0), ACL_ERROR_INVALID_PARAM);
	destroy_with_items(mine);

	/* Bad inputs. */
	EXPECT_FAIL(acltdtSendTensor(ch, NULL, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtSendTensor(NULL, sent[0], 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtSendTensor(ch, sent[0], -2), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtReceiveTensor(ch, NULL, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtReceiveTensor(ch, recv, -5), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtQueryChannelSize(ch, NULL), ACL_ERROR_INVALID_PARAM);

	ACL_OK(acltdtDestroyChannel(ch));
	assert_int_equal(device_usage(), base);
	ACL_OK(acltdtDestroyDataset(recv));
	for (int i = 0; i <= N; i++)
		destroy_with_items(sent[i]);
}

static void test_channel_lifecycle(void **state)
{
	char long_name[200];
	float v[4] = { 1, 2, 3, 4 };
	acltdtDataset *ds = float_dataset(v, 4), *recv = acltdtCreateDataset();
	acltdtChannelHandle *ch, *def;
	uint64_t base = device_usage();
	size_t size = 9;
	struct { char junk[64]; } foreign;

	(void)state;
	memset(long_name, 'q', sizeof(long_name));
	/* 127 characters and the NUL fit a name, 128 do not. */
	long_name[128] = 0;
	EXPECT_NULL(acltdtCreateChannelWithCapacity(0, long_name, 4));
	long_name[127] = 0;
	def = acltdtCreateChannelWithCapacity(0, long_name, 4);
	assert_non_null(def);
	ACL_OK(acltdtDestroyChannel(def));
	EXPECT_NULL(acltdtCreateChannelWithCapacity(0, NULL, 4));
	EXPECT_NULL(acltdtCreateChannelWithCapacity(0, "c", 1));
	EXPECT_NULL(acltdtCreateChannelWithCapacity(0, "c", 8193));
	EXPECT_NULL(acltdtCreateChannelWithCapacity(99, "c", 4));
	EXPECT_NULL(acltdtCreateChannel(0, NULL));

	/* The default capacity holds more than a few. */
	def = acltdtCreateChannel(0, "default");
	assert_non_null(def);
	for (int i = 0; i < 16; i++)
		ACL_OK(acltdtSendTensor(def, ds, 0));
	ACL_OK(acltdtQueryChannelSize(def, &size));
	assert_int_equal(size, 16);
	/* Clean drops them, device memory included. */
	ACL_OK(acltdtCleanChannel(def));
	ACL_OK(acltdtQueryChannelSize(def, &size));
	assert_int_equal(size, 0);
	assert_int_equal(device_usage(), base);
	ACL_OK(acltdtDestroyChannel(def));

	/* Stop: sends and receives are refused. */
	ch = acltdtCreateChannelWithCapacity(0, "stop", 2);
	assert_non_null(ch);
	ACL_OK(acltdtSendTensor(ch, ds, 0));
	ACL_OK(acltdtStopChannel(ch));
	EXPECT_FAIL(acltdtSendTensor(ch, ds, 0), ACL_ERROR_FAILURE);
	EXPECT_FAIL(acltdtReceiveTensor(ch, recv, -1), ACL_ERROR_FAILURE);
	/* Destroy frees what was left. */
	ACL_OK(acltdtDestroyChannel(ch));
	assert_int_equal(device_usage(), base);

	/* A destroyed or foreign handle is refused by every call. */
	memset(&foreign, 0, sizeof(foreign));
	EXPECT_FAIL(acltdtSendTensor(ch, ds, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtReceiveTensor(ch, recv, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtQueryChannelSize(ch, &size), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtCleanChannel(ch), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtStopChannel(ch), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDestroyChannel(ch), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDestroyChannel((acltdtChannelHandle *)&foreign), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDestroyChannel(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtStopChannel(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtCleanChannel(NULL), ACL_ERROR_INVALID_PARAM);

	/* A size the driver's rounding would overflow is refused before any copy. */
	{
		acltdtDataset *huge = float_dataset(v, 4);
		acltdtDataItem *big = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_UINT8,
							   v, SIZE_MAX);

		assert_non_null(big);
		ch = acltdtCreateChannelWithCapacity(0, "huge", 2);
		assert_non_null(ch);
		ACL_OK(acltdtAddDataItem(huge, big));
		EXPECT_FAIL(acltdtSendTensor(ch, huge, 0), ACL_ERROR_INVALID_PARAM);
		ACL_OK(acltdtQueryChannelSize(ch, &size));
		assert_int_equal(size, 0);
		ACL_OK(acltdtDestroyChannel(ch));
		destroy_with_items(huge);
		assert_int_equal(device_usage(), base);
	}

	/* A destroyed item in a dataset is not read. */
	ACL_OK(acltdtDestroyDataItem(acltdtGetDataItem(ds, 0)));
	ch = acltdtCreateChannelWithCapacity(0, "stale", 2);
	assert_non_null(ch);
	EXPECT_FAIL(acltdtSendTensor(ch, ds, 0), ACL_ERROR_INVALID_PARAM);
	ACL_OK(acltdtDestroyChannel(ch));
	ACL_OK(acltdtDestroyDataset(ds));
	ACL_OK(acltdtDestroyDataset(recv));
}

enum { THREAD_COUNT = 300 };

struct producer {
	acltdtChannelHandle *ch;
	uint32_t qid;
	aclError rc;
};

/* Sends THREAD_COUNT datasets of one uint32 (0, 1, ...), waiting forever. */
static void *channel_producer(void *arg)
{
	struct producer *p = arg;

	p->rc = ACL_SUCCESS;
	for (uint32_t i = 0; i < THREAD_COUNT && p->rc == ACL_SUCCESS; i++) {
		uint32_t v = i;
		int64_t dims[1] = { 1 };
		acltdtDataItem *item =
			acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_UINT32, &v, sizeof(v));
		acltdtDataset *ds = acltdtCreateDataset();

		if (item == NULL || ds == NULL) {
			p->rc = ACL_ERROR_BAD_ALLOC;
			break;
		}
		p->rc = acltdtAddDataItem(ds, item);
		if (p->rc == ACL_SUCCESS)
			p->rc = acltdtSendTensor(p->ch, ds, -1);
		(void)acltdtDestroyDataItem(item);
		(void)acltdtDestroyDataset(ds);
	}
	return NULL;
}

static void *receive_forever(void *arg)
{
	struct producer *p = arg;
	acltdtDataset *ds = acltdtCreateDataset();

	p->rc = acltdtReceiveTensor(p->ch, ds, -1);
	(void)acltdtDestroyDataset(ds);
	return NULL;
}

static void test_channel_threads(void **state)
{
	struct producer p;
	pthread_t t;
	acltdtDataset *recv = acltdtCreateDataset();
	uint64_t base = device_usage();

	(void)state;
	p.ch = acltdtCreateChannelWithCapacity(0, "threads", 2);
	assert_non_null(p.ch);
	assert_int_equal(pthread_create(&t, NULL, channel_producer, &p), 0);
	for (uint32_t i = 0; i < THREAD_COUNT; i++) {
		ACL_OK(acltdtReceiveTensor(p.ch, recv, 10000));
		assert_int_equal(acltdtGetDatasetSize(recv), 1);
		assert_int_equal(*(uint32_t *)acltdtGetDataAddrFromItem(acltdtGetDataItem(recv, 0)), i);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(p.rc, ACL_SUCCESS);

	/* A receiver waiting forever is woken by the destroy. */
	assert_int_equal(pthread_create(&t, NULL, receive_forever, &p), 0);
	usleep(50000);
	ACL_OK(acltdtDestroyChannel(p.ch));
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(p.rc, ACL_ERROR_FAILURE);
	assert_int_equal(device_usage(), base);
	ACL_OK(acltdtDestroyDataset(recv));
}

static acltdtQueueAttr *queue_attr(const char *name, uint32_t depth)
{
	acltdtQueueAttr *attr = acltdtCreateQueueAttr();

	assert_non_null(attr);
	if (name != NULL)
		ACL_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof(name), &name));
	ACL_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof(depth), &depth));
	return attr;
}

static uint32_t new_queue(const char *name, uint32_t depth)
{
	acltdtQueueAttr *attr = queue_attr(name, depth);
	uint32_t qid = 0xffffffffu;

	ACL_OK(acltdtCreateQueue(attr, &qid));
	ACL_OK(acltdtDestroyQueueAttr(attr));
	return qid;
}

static void test_queue_attrs(void **state)
{
	acltdtQueueAttr *attr = acltdtCreateQueueAttr();
	const char *name = NULL, *set = "attrs";
	uint32_t depth = 0;
	size_t ret = 0;
	char long_name[200];
	const char *lp = long_name;

	(void)state;
	assert_non_null(attr);
	/* Defaults: no name, depth 8. */
	ACL_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof(name), &ret, &name));
	assert_int_equal(ret, sizeof(name));
	assert_string_equal(name, "");
	ACL_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof(depth), &ret, &depth));
	assert_int_equal(ret, 4);
	assert_int_equal(depth, 8);

	ACL_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof(set), &set));
	depth = 5;
	ACL_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof(depth), &depth));
	depth = 0;
	ACL_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof(name), &ret, &name));
	assert_string_equal(name, "attrs");
	assert_ptr_not_equal(name, set);
	ACL_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof(depth), &ret, &depth));
	assert_int_equal(depth, 5);

	EXPECT_FAIL(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 8, &depth), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 2, &ret, &depth), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, 4, &ret, &name), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtSetQueueAttr(attr, (acltdtQueueAttrType)2, 4, &depth), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueAttr(attr, (acltdtQueueAttrType)2, 4, &ret, &depth), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, NULL, &depth), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, &ret, NULL), ACL_ERROR_INVALID_PARAM);
	memset(long_name, 'n', sizeof(long_name));
	long_name[128] = 0;
	EXPECT_FAIL(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof(lp), &lp), ACL_ERROR_INVALID_PARAM);
	lp = NULL;
	EXPECT_FAIL(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof(lp), &lp), ACL_ERROR_INVALID_PARAM);
	/* The refused name left the earlier one. */
	ACL_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof(name), &ret, &name));
	assert_string_equal(name, "attrs");

	ACL_OK(acltdtDestroyQueueAttr(attr));
	EXPECT_FAIL(acltdtDestroyQueueAttr(attr), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, &depth), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDestroyQueueAttr(NULL), ACL_ERROR_INVALID_PARAM);
}

static void *create_queue_without_context(void *arg)
{
	acltdtQueueAttr *attr = arg;
	uint32_t qid;

	assert_int_equal(acltdtCreateQueue(attr, &qid), ACL_ERROR_RT_CONTEXT_NULL);
	return NULL;
}

static void test_queue_data(void **state)
{
	enum { SIZE = 256 * 1024 };
	static uint8_t in[3][SIZE], out[SIZE];
	uint8_t user_in[96], user_out[100];
	size_t got = 0;
	uint64_t base = device_usage(), t0;
	uint32_t q, q2, qid;
	acltdtQueueAttr *attr;

	(void)state;
	q = new_queue("data", 2);
	for (int i = 0; i < 3; i++)
		rt_fill_pattern(in[i], SIZE, 7 + i);
	memset(user_in, 0x3c, sizeof(user_in));
	ACL_OK(acltdtEnqueueData(q, in[0], SIZE, user_in, sizeof(user_in), -1, 0));
	ACL_OK(acltdtEnqueueData(q, in[1], SIZE / 2, NULL, 0, 1000, 0));
	assert_true(device_usage() >= base + SIZE + SIZE / 2);
	EXPECT_FAIL(acltdtEnqueueData(q, in[2], SIZE, NULL, 0, 0, 0), ACL_ERROR_RT_QUEUE_FULL);
	t0 = rt_now_ms();
	EXPECT_FAIL(acltdtEnqueueData(q, in[2], SIZE, NULL, 0, 40, 0), ACL_ERROR_RT_QUEUE_FULL);
	assert_true(rt_now_ms() - t0 >= 35);

	/* Too small a buffer: refused, the size told, the element kept. */
	EXPECT_FAIL(acltdtDequeueData(q, out, SIZE - 1, &got, NULL, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(got, SIZE);
	memset(user_out, 0xee, sizeof(user_out));
	ACL_OK(acltdtDequeueData(q, out, SIZE, &got, user_out, sizeof(user_out), 0));
	assert_int_equal(got, SIZE);
	assert_memory_equal(out, in[0], SIZE);
	assert_memory_equal(user_out, user_in, sizeof(user_in));
	assert_int_equal(rt_first_not(user_out + 96, 4, 0), 4);
	ACL_OK(acltdtDequeueData(q, out, SIZE, &got, NULL, 0, -1));
	assert_int_equal(got, SIZE / 2);
	assert_memory_equal(out, in[1], SIZE / 2);
	assert_int_equal(device_usage(), base);
	EXPECT_FAIL(acltdtDequeueData(q, out, SIZE, &got, NULL, 0, 0), ACL_ERROR_RT_QUEUE_EMPTY);
	t0 = rt_now_ms();
	EXPECT_FAIL(acltdtDequeueData(q, out, SIZE, &got, NULL, 0, 40), ACL_ERROR_RT_QUEUE_EMPTY);
	assert_true(rt_now_ms() - t0 >= 35);

	/* Bad inputs. */
	EXPECT_FAIL(acltdtEnqueueData(q, NULL, 4, NULL, 0, 0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtEnqueueData(q, in[0], 0, NULL, 0, 0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtEnqueueData(q, in[0], 4, NULL, 4, 0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtEnqueueData(q, in[0], 4, user_in, 97, 0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtEnqueueData(q, in[0], 4, NULL, 0, -2, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtEnqueueData(q + 1000, in[0], 4, NULL, 0, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(acltdtDequeueData(q, NULL, 4, &got, NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDequeueData(q, out, 4, NULL, NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDequeueData(q, out, 0, &got, NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDequeueData(q, out, 4, &got, NULL, 4, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtDequeueData(q + 1000, out, 4, &got, NULL, 0, 0), ACL_ERROR_RT_PARAM_INVALID);

	/* Names are unique; depths within [2, 8192]; a context is needed. */
	attr = queue_attr("data", 4);
	EXPECT_FAIL(acltdtCreateQueue(attr, &qid), ACL_ERROR_INVALID_PARAM);
	rt_run_in_thread(create_queue_without_context, attr);
	ACL_OK(acltdtDestroyQueueAttr(attr));
	attr = queue_attr(NULL, 1);
	EXPECT_FAIL(acltdtCreateQueue(attr, &qid), ACL_ERROR_INVALID_PARAM);
	ACL_OK(acltdtDestroyQueueAttr(attr));
	attr = queue_attr(NULL, 8193);
	EXPECT_FAIL(acltdtCreateQueue(attr, &qid), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtCreateQueue(attr, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtCreateQueue(NULL, &qid), ACL_ERROR_INVALID_PARAM);
	ACL_OK(acltdtDestroyQueueAttr(attr));
	/* Unnamed queues are many. */
	q2 = new_queue(NULL, 2);
	qid = new_queue(NULL, 2);
	assert_int_not_equal(q2, qid);

	/* Destroy frees what is left and the id is gone. */
	ACL_OK(acltdtEnqueueData(q, in[0], SIZE, NULL, 0, 0, 0));
	ACL_OK(acltdtDestroyQueue(q));
	assert_int_equal(device_usage(), base);
	EXPECT_FAIL(acltdtDestroyQueue(q), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(acltdtEnqueueData(q, in[0], 4, NULL, 0, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(acltdtDestroyQueue(q2));
	ACL_OK(acltdtDestroyQueue(qid));
}

static acltdtQueueRouteList *route_list(uint32_t src, uint32_t dst)
{
	acltdtQueueRouteList *list = acltdtCreateQueueRouteList();
	acltdtQueueRoute *r = acltdtCreateQueueRoute(src, dst);

	assert_non_null(list);
	assert_non_null(r);
	ACL_OK(acltdtAddQueueRoute(list, r));
	ACL_OK(acltdtDestroyQueueRoute(r));
	return list;
}

/* The list's route index i: source, destination, status. */
static void route_at(acltdtQueueRouteList *list, size_t i, uint32_t *src, uint32_t *dst,
		     int32_t *status)
{
	acltdtQueueRoute *r = acltdtCreateQueueRoute(0, 0);
	size_t ret = 0;

	assert_non_null(r);
	ACL_OK(acltdtGetQueueRoute(list, i, r));
	ACL_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, &ret, src));
	assert_int_equal(ret, 4);
	ACL_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_DST_UINT32, 4, &ret, dst));
	ACL_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, 4, &ret, status));
	ACL_OK(acltdtDestroyQueueRoute(r));
}

static size_t query_routes(int32_t mode, uint32_t src, uint32_t dst, acltdtQueueRouteList *out)
{
	acltdtQueueRouteQueryInfo *info = acltdtCreateQueueRouteQueryInfo();

	assert_non_null(info);
	ACL_OK(acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, 4, &mode));
	ACL_OK(acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, 4, &src));
	ACL_OK(acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32, 4, &dst));
	ACL_OK(acltdtQueryQueueRoutes(info, out));
	ACL_OK(acltdtDestroyQueueRouteQueryInfo(info));
	return acltdtGetQueueRouteNum(out);
}

static void test_queue_routes(void **state)
{
	uint32_t src = new_queue("src", 4), dst = new_queue("dst", 2), other = new_queue(NULL, 2);
	acltdtQueueRouteList *bind = route_list(src, dst), *back = route_list(dst, src);
	acltdtQueueRouteList *bad = route_list(src, 4000), *out = acltdtCreateQueueRouteList();
	acltdtQueueRouteQueryInfo *info = acltdtCreateQueueRouteQueryInfo();
	acltdtQueueRoute *r = acltdtCreateQueueRoute(1, 2);
	uint32_t v, s, d, mode = 7;
	int32_t status;
	size_t got, ret;
	uint64_t base = device_usage();

	(void)state;
	/* Two elements before the bind: forwarded at once. */
	for (v = 0; v < 2; v++)
		ACL_OK(acltdtEnqueueData(src, &v, sizeof(v), NULL, 0, 0, 0));
	route_at(bind, 0, &s, &d, &status);
	assert_int_equal(status, ACL_TDT_QUEUE_ROUTE_UNBIND);
	ACL_OK(acltdtBindQueueRoutes(bind));
	route_at(bind, 0, &s, &d, &status);
	assert_int_equal(s, src);
	assert_int_equal(d, dst);
	assert_int_equal(status, ACL_TDT_QUEUE_ROUTE_BIND);
	EXPECT_FAIL(acltdtDequeueData(src, &v, sizeof(v), &got, NULL, 0, 0), ACL_ERROR_RT_QUEUE_EMPTY);
	/* dst (depth 2) is full: later ones wait in src, then follow in order. */
	for (v = 2; v < 6; v++)
		ACL_OK(acltdtEnqueueData(src, &v, sizeof(v), NULL, 0, 0, 0));
	EXPECT_FAIL(acltdtEnqueueData(src, &v, sizeof(v), NULL, 0, 0, 0), ACL_ERROR_RT_QUEUE_FULL);
	for (uint32_t i = 0; i < 6; i++) {
		ACL_OK(acltdtDequeueData(dst, &v, sizeof(v), &got, NULL, 0, 0));
		assert_int_equal(v, i);
	}
	assert_int_equal(device_usage(), base);

	/* Queries. */
	assert_int_equal(query_routes(ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST, src, dst, out), 1);
	route_at(out, 0, &s, &d, &status);
	assert_int_equal(s, src);
	assert_int_equal(d, dst);
	assert_int_equal(status, ACL_TDT_QUEUE_ROUTE_BIND);
	assert_int_equal(query_routes(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 999, out), 1);
	assert_int_equal(query_routes(ACL_TDT_QUEUE_ROUTE_QUERY_DST, 999, dst, out), 1);
	assert_int_equal(query_routes(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, dst, 0, out), 0);
	assert_int_equal(query_routes(ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST, src, other, out), 0);
	assert_int_equal(query_routes(ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL, 0, 0, out), 0);
	/* A query needs its mode and the ids the mode names. */
	EXPECT_FAIL(acltdtQueryQueueRoutes(info, out), ACL_ERROR_INVALID_PARAM);
	ACL_OK(acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, 4, &mode));
	EXPECT_FAIL(acltdtQueryQueueRoutes(info, out), ACL_ERROR_INVALID_PARAM);
	mode = ACL_TDT_QUEUE_ROUTE_QUERY_SRC;
	ACL_OK(acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, 4, &mode));
	EXPECT_FAIL(acltdtQueryQueueRoutes(info, out), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtSetQueueRouteQueryInfo(info, (acltdtQueueRouteQueryInfoParamType)3, 4, &mode),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, 8, &base),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtSetQueueRouteQueryInfo(info, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, 4, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtQueryQueueRoutes(NULL, out), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtQueryQueueRoutes(info, NULL), ACL_ERROR_INVALID_PARAM);

	/* A cycle, an unknown queue: not bound, marked abnormal. */
	EXPECT_FAIL(acltdtBindQueueRoutes(back), ACL_ERROR_FAILURE);
	route_at(back, 0, &s, &d, &status);
	assert_int_equal(status, ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL);
	EXPECT_FAIL(acltdtBindQueueRoutes(bad), ACL_ERROR_FAILURE);
	assert_int_equal(query_routes(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 0, out), 1);
	/* A bound queue cannot be destroyed. */
	EXPECT_FAIL(acltdtDestroyQueue(src), ACL_ERROR_FAILURE);
	EXPECT_FAIL(acltdtDestroyQueue(dst), ACL_ERROR_FAILURE);

	/* Unbound: elements stay in src. */
	ACL_OK(acltdtUnbindQueueRoutes(bind));
	route_at(bind, 0, &s, &d, &status);
	assert_int_equal(status, ACL_TDT_QUEUE_ROUTE_UNBIND);
	assert_int_equal(query_routes(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 0, out), 0);
	v = 42;
	ACL_OK(acltdtEnqueueData(src, &v, sizeof(v), NULL, 0, 0, 0));
	EXPECT_FAIL(acltdtDequeueData(dst, &v, sizeof(v), &got, NULL, 0, 0), ACL_ERROR_RT_QUEUE_EMPTY);
	ACL_OK(acltdtDequeueData(src, &v, sizeof(v), &got, NULL, 0, 0));
	assert_int_equal(v, 42);

	/* Handles and lists. */
	EXPECT_FAIL(acltdtGetQueueRoute(bind, 1, r), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueRoute(bind, 0, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 2, &ret, &v),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueRouteParam(r, (acltdtQueueRouteParamType)3, 4, &ret, &v),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, NULL, &v),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtAddQueueRoute(bind, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtAddQueueRoute(NULL, r), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtBindQueueRoutes(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtUnbindQueueRoutes(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(acltdtGetQueueRouteNum(NULL), 0);
	ACL_OK(acltdtDestroyQueueRoute(r));
	EXPECT_FAIL(acltdtDestroyQueueRoute(r), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, &ret, &v),
		    ACL_ERROR_INVALID_PARAM);
	ACL_OK(acltdtDestroyQueueRouteQueryInfo(info));
	EXPECT_FAIL(acltdtDestroyQueueRouteQueryInfo(info), ACL_ERROR_INVALID_PARAM);
	ACL_OK(acltdtDestroyQueueRouteList(back));
	EXPECT_FAIL(acltdtDestroyQueueRouteList(back), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(acltdtBindQueueRoutes(back), ACL_ERROR_INVALID_PARAM);
	ACL_OK(acltdtDestroyQueueRouteList(bad));
	ACL_OK(acltdtDestroyQueueRouteList(out));
	ACL_OK(acltdtDestroyQueueRouteList(bind));
	ACL_OK(acltdtDestroyQueue(src));
	ACL_OK(acltdtDestroyQueue(dst));
	ACL_OK(acltdtDestroyQueue(other));
}

/* Enqueues THREAD_COUNT uint32s (0, 1, ...) to p->qid, waiting forever,
 * each with itself as user data. */
static void *queue_producer(void *arg)
{
	struct producer *p = arg;

	/* No context in this thread: the queue's device is used. */
	p->rc = ACL_SUCCESS;
	for (uint32_t i = 0; i < THREAD_COUNT && p->rc == ACL_SUCCESS; i++)
		p->rc = acltdtEnqueueData(p->qid, &i, sizeof(i), &i, sizeof(i), -1, 0);
	return NULL;
}

static void test_queue_threads_through_route(void **state)
{
	uint32_t src = new_queue(NULL, 2), mid = new_queue(NULL, 2), dst = new_queue(NULL, 3);
	acltdtQueueRouteList *a = route_list(src, mid), *b = route_list(mid, dst);
	struct producer p = { .qid = src };
	pthread_t t;

	(void)state;
	ACL_OK(acltdtBindQueueRoutes(a));
	ACL_OK(acltdtBindQueueRoutes(b));
	assert_int_equal(pthread_create(&t, NULL, queue_producer, &p), 0);
	for (uint32_t i = 0; i < THREAD_COUNT; i++) {
		uint32_t v = 0, u = 0;
		size_t got = 0;

		ACL_OK(acltdtDequeueData(dst, &v, sizeof(v), &got, &u, sizeof(u), 10000));
		assert_int_equal(got, sizeof(v));
		assert_int_equal(v, i);
		assert_int_equal(u, i);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(p.rc, ACL_SUCCESS);
	ACL_OK(acltdtUnbindQueueRoutes(a));
	ACL_OK(acltdtUnbindQueueRoutes(b));
	ACL_OK(acltdtDestroyQueueRouteList(a));
	ACL_OK(acltdtDestroyQueueRouteList(b));
	ACL_OK(acltdtDestroyQueue(src));
	ACL_OK(acltdtDestroyQueue(mid));
	ACL_OK(acltdtDestroyQueue(dst));
}

static void test_mbufs_unsupported(void **state)
{
	acltdtBuf buf = NULL;
	uint32_t perm = 0, num = 0;
	size_t len = 0;
	void *p = NULL;
	char c = 0;

	(void)state;
	EXPECT_FAIL(acltdtAllocBuf(16, ACL_TDT_NORMAL_MEM, &buf), ACL_ERROR_FEATURE_UNSUPPORTED);
	assert_null(buf);
	EXPECT_FAIL(acltdtFreeBuf(&c), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtGetBufData(&c, &p, &len), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtSetBufDataLen(&c, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtGetBufDataLen(&c, &len), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtAppendBufChain(&c, &c), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtGetBufChainNum(&c, &num), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtGetBufFromChain(&c, 0, &buf), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtGetBufUserData(&c, &c, 1, 0), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtSetBufUserData(&c, &c, 1, 0), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtCopyBufRef(&c, &buf), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtEnqueue(0, &c, 0), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtDequeue(0, &buf, 0), ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtGrantQueue(0, 1, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, 0),
		    ACL_ERROR_FEATURE_UNSUPPORTED);
	EXPECT_FAIL(acltdtAttachQueue(0, 0, &perm), ACL_ERROR_FEATURE_UNSUPPORTED);
	assert_int_equal(perm, 0);
}

/* A forked child starts with none of the parent's channels and queues. */
static void test_fork_child_forgets(void **state)
{
	float v[2] = { 1, 2 };
	acltdtDataset *ds = float_dataset(v, 2);
	acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "fork", 2);
	uint32_t q = new_queue("fork", 2);
	size_t size = 0;
	int status = 0;
	pid_t pid;

	(void)state;
	assert_non_null(ch);
	ACL_OK(acltdtSendTensor(ch, ds, 0));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int bad = acltdtQueryChannelSize(ch, &size) != ACL_ERROR_INVALID_PARAM ||
			  acltdtDestroyQueue(q) != ACL_ERROR_RT_PARAM_INVALID ||
			  acltdtGetDatasetSize(ds) != 0;
		_exit(bad ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The parent's are untouched. */
	ACL_OK(acltdtQueryChannelSize(ch, &size));
	assert_int_equal(size, 1);
	ACL_OK(acltdtDestroyChannel(ch));
	ACL_OK(acltdtDestroyQueue(q));
	destroy_with_items(ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_items_and_datasets),
		cmocka_unit_test(test_channel_fifo_on_device),
		cmocka_unit_test(test_channel_lifecycle),
		cmocka_unit_test(test_channel_threads),
		cmocka_unit_test(test_queue_attrs),
		cmocka_unit_test(test_queue_data),
		cmocka_unit_test(test_queue_routes),
		cmocka_unit_test(test_queue_threads_through_route),
		cmocka_unit_test(test_mbufs_unsupported),
		cmocka_unit_test(test_fork_child_forgets),
	};

	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
