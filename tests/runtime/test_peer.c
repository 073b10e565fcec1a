// SPDX-License-Identifier: MIT
/*
 * Two devices: aclrtDeviceCanAccessPeer,
 * aclrtDeviceEnablePeerAccess and aclrtDeviceDisablePeerAccess with every
 * bad-input row, copies between two devices (the INTER_DEVICE case) and
 * inside one device (INNER), synchronous and on streams, in both
 * directions, data checked; what a cross-device copy does without peer
 * access (it fails, as the driver makes it on hardware); and peer access
 * under ASCEND_RT_VISIBLE_DEVICES remapping, in a fresh process; and
 * aclrtMemP2PMap, which has no mapping to make on one host and checks its
 * range and devices.
 *
 * The ACL layer rejects the kinds INNER_DEVICE_TO_DEVICE (6) and
 * INTER_DEVICE_TO_DEVICE (7) themselves: device-to-device copies
 * are asked for with DEVICE_TO_DEVICE or DEFAULT and the addresses decide.
 *
 * Needs two devices: the .inproc variant runs with NPU_INPROC_DEVICES=2,
 * the .fuse one against `npud --devices 2`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_test.h"

#define N (3u << 20)		/* bytes of each buffer */
#define WATCHDOG_MS 10000

static const char *g_self;	/* argv[0], for the re-executed children */

static void *no_context_thread(void *arg)
{
	(void)arg;
	/* flags is checked before the context. */
	assert_int_equal(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
	assert_int_equal(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_RT_CONTEXT_NULL);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_CONTEXT_NULL);
	/* The context comes before the peer id. */
	assert_int_equal(aclrtDeviceEnablePeerAccess(99, 0), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtDeviceDisablePeerAccess(99), ACL_ERROR_RT_CONTEXT_NULL);
	return NULL;
}

static void test_can_access_peer(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	int32_t can = 77;

	(void)state;
	if (n < 2)
		skip();
	ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
	assert_int_equal(can, 1);
	can = 77;
	ACL_OK(aclrtDeviceCanAccessPeer(&can, 1, 0));
	assert_int_equal(can, 1);
	/* Same device: the ACL layer, before anything else (NULL output too). */
	can = 77;
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, 1, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(can, 77);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtDeviceCanAccessPeer(NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
	/* A peer that is not visible, then the NULL output (RT layer). */
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, 0, n), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, 0, -1), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, 0, 64), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, n, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceCanAccessPeer(NULL, 0, n), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(can, 77);
	assert_int_equal(aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "canAccessPeer"));
}

static void test_enable_disable_bad_inputs(void **state)
{
	const int32_t n = (int32_t)rt_device_count();

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	/* 1. flags, before everything (200006, not 100000). */
	assert_int_equal(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
	assert_int_equal(aclrtDeviceEnablePeerAccess(0, 0x80000000u), ACL_ERROR_FEATURE_UNSUPPORTED);
	assert_int_equal(aclrtDeviceEnablePeerAccess(99, 2), ACL_ERROR_FEATURE_UNSUPPORTED);
	assert_non_null(strstr(aclGetRecentErrMsg(), "flags"));
	/* 2. no current device. */
	rt_run_in_thread(no_context_thread, NULL);
	/* 3. the current device is not its own peer. */
	assert_int_equal(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_INVALID_PARAM);
	/* 4. a peer that is not visible. */
	assert_int_equal(aclrtDeviceEnablePeerAccess(n, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtDeviceEnablePeerAccess(-1, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceEnablePeerAccess(64, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceDisablePeerAccess(n), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceDisablePeerAccess(-7), ACL_ERROR_RT_INVALID_DEVICEID);
	if (n >= 2) {
		/* Enabling twice and disabling what is not enabled are harmless. */
		ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
		ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
		ACL_OK(aclrtDeviceDisablePeerAccess(1));
		ACL_OK(aclrtDeviceDisablePeerAccess(1));
	}
	ACL_OK(aclrtResetDevice(0));
}

/* Device buffers of both devices, filled with known bytes; device 0 is current. */
struct pair {
	uint8_t *d0, *d0b, *d1, *d1b;
	uint8_t *pat0, *pat1, *back;
};

static void pair_setup(struct pair *p)
{
	p->pat0 = malloc(N);
	p->pat1 = malloc(N);
	p->back = malloc(N);
	assert_non_null(p->pat0);
	assert_non_null(p->pat1);
	assert_non_null(p->back);
	rt_fill_pattern(p->pat0, N, 100);
	rt_fill_pattern(p->pat1, N, 101);
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMalloc((void **)&p->d1, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc((void **)&p->d1b, N, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemcpy(p->d1, N, p->pat1, N, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemset(p->d1b, N, 0, N));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtMalloc((void **)&p->d0, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc((void **)&p->d0b, N, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemcpy(p->d0, N, p->pat0, N, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemset(p->d0b, N, 0, N));
}

static void pair_teardown(struct pair *p)
{
	ACL_OK(aclrtFree(p->d0));
	ACL_OK(aclrtFree(p->d0b));
	ACL_OK(aclrtFree(p->d1));
	ACL_OK(aclrtFree(p->d1b));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtResetDevice(1));
	free(p->pat0);
	free(p->pat1);
	free(p->back);
}

/* Reads len bytes of device memory at dev and compares them with want. */
static void expect_bytes(struct pair *p, const void *dev, const void *want, size_t len)
{
	memset(p->back, 0xEE, len);
	ACL_OK(aclrtMemcpy(p->back, N, dev, len, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(p->back, want, len);
}

static void test_copy_without_peer_access_fails(void **state)
{
	struct pair p;
	aclrtStream s = NULL;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	pair_setup(&p);
	ACL_OK(aclrtCreateStream(&s));
	assert_int_equal(aclrtMemcpy(p.d1b, N, p.d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "peer access"));
	assert_int_equal(aclrtMemcpy(p.d0b, N, p.d1, N, ACL_MEMCPY_DEFAULT),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(p.d1b, N, p.d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(p.d0b, N, p.d1, N, ACL_MEMCPY_DEFAULT, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(aclGetRecentErrMsg());
	ACL_OK(aclrtSynchronizeStream(s));
	/* Nothing moved. */
	ACL_OK(aclrtMemcpy(p.back, N, p.d1b, N, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(p.back, N, 0), N);
	ACL_OK(aclrtMemcpy(p.back, N, p.d0b, N, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(p.back, N, 0), N);
	/* Inside one device no peer access is needed. */
	ACL_OK(aclrtMemcpy(p.d0b, N, p.d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
	expect_bytes(&p, p.d0b, p.pat0, N);
	ACL_OK(aclrtDestroyStream(s));
	pair_teardown(&p);
}

static void test_p2p_map(void **state)
{
	struct pair p;
	void *pinned;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	pair_setup(&p);
	ACL_OK(aclrtMemP2PMap(p.d0, N, 1, 0));
	ACL_OK(aclrtMemP2PMap(p.d1 + 4096, 4096, 0, 0));
	/* The owner itself needs no mapping either. */
	ACL_OK(aclrtMemP2PMap(p.d0, N, 0, 0));
	assert_int_equal(aclrtMemP2PMap(NULL, N, 1, 0), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "aclrtMemP2PMap: devPtr is NULL"));
	assert_int_equal(aclrtMemP2PMap(p.d0, 0, 1, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemP2PMap(p.d0, N, 1, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemP2PMap(p.d0, N, 64, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtMemP2PMap(p.d0, N, -1, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	/* Ranges that are not device memory. */
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	assert_int_equal(aclrtMemP2PMap(pinned, 4096, 1, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "not device memory"));
	ACL_OK(aclrtFreeHost(pinned));
	assert_int_equal(aclrtMemP2PMap(p.d0, (size_t)64 << 20, 1, 0), ACL_ERROR_RT_PARAM_INVALID);
	pair_teardown(&p);
	assert_int_equal(aclrtMemP2PMap(p.d0, 4096, 1, 0), ACL_ERROR_RT_PARAM_INVALID);
}

static void test_kinds_6_and_7_are_rejected(void **state)
{
	struct pair p;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	pair_setup(&p);
	ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	assert_int_equal(aclrtMemcpy(p.d1b, N, p.d0, N, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpy(p.d0b, N, p.d0, N, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpyAsync(p.d1b, N, p.d0, N, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
					  NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpyAsync(p.d0b, N, p.d0, N, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
					  NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_non_null(aclGetRecentErrMsg());
	ACL_OK(aclrtSynchronizeStream(NULL));
	ACL_OK(aclrtMemcpy(p.back, N, p.d1b, N, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(p.back, N, 0), N);
	ACL_OK(aclrtDeviceDisablePeerAccess(1));
	pair_teardown(&p);
}

/* Synchronous copies both ways, each direction of access on its own. */
static void test_sync_peer_copies_both_directions(void **state)
{
	struct pair p;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	pair_setup(&p);
	/* Access from device 0 to device 1 only. */
	ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ACL_OK(aclrtMemcpy(p.d1b, N, p.d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
	expect_bytes(&p, p.d1b, p.pat0, N);
	ACL_OK(aclrtMemcpy(p.d0b, N, p.d1, N, ACL_MEMCPY_DEFAULT));
	expect_bytes(&p, p.d0b, p.pat1, N);
	/* Interior addresses and odd lengths. */
	ACL_OK(aclrtMemcpy(p.d1b + 4097, N - 4097, p.d0 + 3, 123457, ACL_MEMCPY_DEVICE_TO_DEVICE));
	expect_bytes(&p, p.d1b + 4097, p.pat0 + 3, 123457);
	/* Past the end of the peer's allocation. */
	void *base = NULL;
	size_t size = 0;

	ACL_OK(aclrtMemGetAddressRange(p.d1b, &base, &size));
	assert_ptr_equal(base, p.d1b);
	assert_true(size >= N && size < 2 * N);
	assert_int_equal(aclrtMemcpy(p.d1b + size - 4096, N, p.d0, 8192,
				     ACL_MEMCPY_DEVICE_TO_DEVICE),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtDeviceDisablePeerAccess(1));
	assert_int_equal(aclrtMemcpy(p.d1b, N, p.d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE),
			 ACL_ERROR_RT_PARAM_INVALID);

	/* Access from device 1 to device 0 only, enabled while device 1 is current. */
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMemset(p.d1b, N, 0, N));
	ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtMemset(p.d0b, N, 0, N));
	ACL_OK(aclrtMemcpy(p.d1b, N, p.d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
	expect_bytes(&p, p.d1b, p.pat0, N);
	ACL_OK(aclrtMemcpy(p.d0b, N, p.d1, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
	expect_bytes(&p, p.d0b, p.pat1, N);
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtDeviceDisablePeerAccess(0));
	ACL_OK(aclrtResetDevice(1));	/* this SetDevice's reference */
	pair_teardown(&p);
}

/*
 * Asynchronous copies on a stream of each device, both directions, with
 * access enabled both ways. Each copy is queued behind a ValueWait on the
 * same stream: a peer copy that went through the synchronous fallback
 * instead of the ring would block the call (the watchdog catches that).
 */
struct async_call {
	void *dst, *src;
	size_t len;
	aclrtStream s;
	int32_t dev;
	volatile int done;
	aclError rc;
};

static void *async_copy_thread(void *arg)
{
	struct async_call *c = arg;

	if (aclrtSetDevice(c->dev) == ACL_SUCCESS) {
		c->rc = aclrtMemcpyAsync(c->dst, c->len, c->src, c->len,
					 ACL_MEMCPY_DEVICE_TO_DEVICE, c->s);
		aclrtResetDevice(c->dev);
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void queued_peer_copy(struct pair *p, int32_t dev, void *word, void *dst,
			     const void *src, const void *want)
{
	struct async_call c = { dst, (void *)src, N, NULL, dev, 0, -1 };
	uint64_t one = 1, t0;
	pthread_t t;

	ACL_OK(aclrtSetDevice(dev));
	ACL_OK(aclrtCreateStream(&c.s));
	ACL_OK(aclrtMemset(word, 8, 0, 8));
	ACL_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, c.s));
	assert_int_equal(pthread_create(&t, NULL, async_copy_thread, &c), 0);
	t0 = rt_now_ms();
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) && rt_now_ms() - t0 < WATCHDOG_MS)
		usleep(1000);
	const int returned = __atomic_load_n(&c.done, __ATOMIC_ACQUIRE);

	/* Not yet run: the stream is held. */
	if (returned) {
		ACL_OK(aclrtMemcpy(p->back, N, dst, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
		assert_int_equal(rt_first_not(p->back, 4096, 0), 4096);
	}
	/* Release the wait (a host write: synchronous copies do not wait for streams). */
	ACL_OK(aclrtMemcpy(word, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	pthread_join(t, NULL);
	assert_true(returned);	/* else the async call blocked on the stream */
	assert_int_equal(c.rc, ACL_SUCCESS);
	ACL_OK(aclrtSynchronizeStream(c.s));
	expect_bytes(p, dst, want, N);
	ACL_OK(aclrtDestroyStream(c.s));
	ACL_OK(aclrtResetDevice(dev));
}

static void test_async_peer_copies_on_the_ring(void **state)
{
	struct pair p;
	void *w0 = NULL, *w1 = NULL;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	pair_setup(&p);
	ACL_OK(aclrtMalloc(&w0, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMalloc(&w1, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
	ACL_OK(aclrtSetDevice(0));

	/* Stream of device 0: push to device 1, pull from device 1. */
	queued_peer_copy(&p, 0, w0, p.d1b, p.d0, p.pat0);
	queued_peer_copy(&p, 0, w0, p.d0b, p.d1, p.pat1);
	ACL_OK(aclrtMemset(p.d0b, N, 0, N));
	ACL_OK(aclrtMemset(p.d1b, N, 0, N));
	/* Stream of device 1: the same the other way round. */
	queued_peer_copy(&p, 1, w1, p.d0b, p.d1, p.pat1);
	queued_peer_copy(&p, 1, w1, p.d1b, p.d0, p.pat0);
	ACL_OK(aclrtSetDevice(0));	/* current again; reset below */
	/* Inside one device, on the default stream. */
	ACL_OK(aclrtMemset(p.d0b, N, 0, N));
	ACL_OK(aclrtMemcpyAsync(p.d0b, N, p.d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, NULL));
	ACL_OK(aclrtSynchronizeStream(NULL));
	expect_bytes(&p, p.d0b, p.pat0, N);

	ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtDeviceDisablePeerAccess(0));
	ACL_OK(aclrtFree(w1));
	ACL_OK(aclrtResetDevice(1));
	ACL_OK(aclrtFree(w0));
	ACL_OK(aclrtResetDevice(0));
	pair_teardown(&p);
}

/*
 * With access from device 0 to 1 only, a stream of device 1 cannot name
 * device 0's memory: the copy still happens (synchronously, on device 0's
 * engine), and ordering on the stream is kept.
 */
static void test_async_copy_with_access_one_way(void **state)
{
	struct pair p;
	aclrtStream s1 = NULL;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	pair_setup(&p);
	ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtCreateStream(&s1));
	ACL_OK(aclrtMemsetAsync(p.d1b, N, 0x42, N, s1));
	ACL_OK(aclrtMemcpyAsync(p.d1b, N, p.d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
	ACL_OK(aclrtSynchronizeStream(s1));
	expect_bytes(&p, p.d1b, p.pat0, N);
	ACL_OK(aclrtMemcpyAsync(p.d0b, N, p.d1, N, ACL_MEMCPY_DEFAULT, s1));
	ACL_OK(aclrtSynchronizeStream(s1));
	expect_bytes(&p, p.d0b, p.pat1, N);
	ACL_OK(aclrtDestroyStream(s1));
	ACL_OK(aclrtResetDevice(1));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ACL_OK(aclrtResetDevice(0));
	pair_teardown(&p);
}

/* Peer access is device-wide and outlives a reset of the peer. */
static void test_access_survives_reset_of_peer(void **state)
{
	uint8_t pat[8192], back[8192];
	void *d0 = NULL, *d1 = NULL;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	rt_fill_pattern(pat, sizeof(pat), 9);
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ACL_OK(aclrtMalloc(&d0, sizeof(pat), ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemcpy(d0, sizeof(pat), pat, sizeof(pat), ACL_MEMCPY_HOST_TO_DEVICE));
	for (int round = 0; round < 2; round++) {
		ACL_OK(aclrtSetDevice(1));
		ACL_OK(aclrtMalloc(&d1, sizeof(pat), ACL_MEM_MALLOC_NORMAL_ONLY));
		ACL_OK(aclrtMemcpyAsync(d1, sizeof(pat), d0, sizeof(pat),
					ACL_MEMCPY_DEVICE_TO_DEVICE, NULL));
		ACL_OK(aclrtSynchronizeStream(NULL));
		memset(back, 0, sizeof(back));
		ACL_OK(aclrtMemcpy(back, sizeof(back), d1, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
		assert_memory_equal(back, pat, sizeof(pat));
		ACL_OK(aclrtFree(d1));
		/* Device 1 closes; the next round opens it again. */
		ACL_OK(aclrtResetDeviceForce(1));
	}
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ACL_OK(aclrtFree(d0));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtResetDevice(0));
}

/*
 * ASCEND_RT_VISIBLE_DEVICES: user ids are remapped, and peer
 * access and pointer attributes speak user ids. Runs in a re-executed
 * copy of this program, which discovers the devices with the variable set.
 */
static int visible_child(const char *visible)
{
	aclrtPtrAttributes a;
	void *p0 = NULL, *p1 = NULL;
	uint8_t pat[4096], back[4096];
	uint32_t n = 0;
	int32_t can = -1;

	if (aclrtGetDeviceCount(&n) != ACL_SUCCESS)
		return 10;
	if (strcmp(visible, "1") == 0) {
		/* Only physical device 1, as user device 0: no peer. */
		if (n != 1)
			return 11;
		if (aclrtDeviceCanAccessPeer(&can, 0, 1) != ACL_ERROR_RT_INVALID_DEVICEID)
			return 12;
		if (aclrtSetDevice(0) != ACL_SUCCESS)
			return 13;
		if (aclrtDeviceEnablePeerAccess(1, 0) != ACL_ERROR_RT_INVALID_DEVICEID)
			return 14;
		if (aclrtMalloc(&p0, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS)
			return 15;
		if (aclrtPointerGetAttributes(p0, &a) != ACL_SUCCESS ||
		    a.location.type != ACL_MEM_LOCATION_TYPE_DEVICE || a.location.id != 0)
			return 16;
		aclrtFree(p0);
		aclrtResetDevice(0);
		return 0;
	}
	/* "1,0": user 0 is physical 1 and user 1 is physical 0. */
	if (n != 2)
		return 20;
	if (aclrtDeviceCanAccessPeer(&can, 1, 0) != ACL_SUCCESS || can != 1)
		return 21;
	if (aclrtDeviceCanAccessPeer(&can, 0, 2) != ACL_ERROR_RT_INVALID_DEVICEID)
		return 22;
	if (aclrtSetDevice(1) != ACL_SUCCESS ||
	    aclrtMalloc(&p1, sizeof(pat), ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS)
		return 23;
	if (aclrtSetDevice(0) != ACL_SUCCESS ||
	    aclrtMalloc(&p0, sizeof(pat), ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS)
		return 24;
	if (aclrtPointerGetAttributes(p1, &a) != ACL_SUCCESS || a.location.id != 1)
		return 25;
	if (aclrtPointerGetAttributes(p0, &a) != ACL_SUCCESS || a.location.id != 0)
		return 26;
	rt_fill_pattern(pat, sizeof(pat), 77);
	if (aclrtMemcpy(p0, sizeof(pat), pat, sizeof(pat), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
		return 27;
	if (aclrtMemcpy(p1, sizeof(pat), p0, sizeof(pat), ACL_MEMCPY_DEVICE_TO_DEVICE) !=
	    ACL_ERROR_RT_PARAM_INVALID)
		return 28;
	aclGetRecentErrMsg();
	if (aclrtDeviceEnablePeerAccess(1, 0) != ACL_SUCCESS)
		return 29;
	if (aclrtMemcpyAsync(p1, sizeof(pat), p0, sizeof(pat), ACL_MEMCPY_DEVICE_TO_DEVICE, NULL) !=
		    ACL_SUCCESS ||
	    aclrtSynchronizeStream(NULL) != ACL_SUCCESS)
		return 30;
	memset(back, 0, sizeof(back));
	if (aclrtMemcpy(back, sizeof(back), p1, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST) !=
		    ACL_SUCCESS ||
	    memcmp(back, pat, sizeof(pat)) != 0)
		return 31;
	if (aclrtDeviceDisablePeerAccess(1) != ACL_SUCCESS)
		return 32;
	aclrtFree(p0);
	aclrtFree(p1);
	aclrtResetDeviceForce(0);
	aclrtResetDeviceForce(1);
	return 0;
}

static int run_child(const char *visible)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("ASCEND_RT_VISIBLE_DEVICES", visible, 1);
		execl(g_self, g_self, "--visible-child", visible, (char *)NULL);
		_exit(127);
	}
	int status = 0;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_visible_devices_remap_peers(void **state)
{
	(void)state;
	if (rt_device_count() < 2)
		skip();
	assert_int_equal(run_child("1"), 0);
	assert_int_equal(run_child("1,0"), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_can_access_peer),
		cmocka_unit_test(test_enable_disable_bad_inputs),
		cmocka_unit_test(test_copy_without_peer_access_fails),
		cmocka_unit_test(test_kinds_6_and_7_are_rejected),
		cmocka_unit_test(test_p2p_map),
		cmocka_unit_test(test_sync_peer_copies_both_directions),
		cmocka_unit_test(test_async_peer_copies_on_the_ring),
		cmocka_unit_test(test_async_copy_with_access_one_way),
		cmocka_unit_test(test_access_survives_reset_of_peer),
		cmocka_unit_test(test_visible_devices_remap_peers),
	};

	if (argc == 3 && strcmp(argv[1], "--visible-child") == 0)
		return visible_child(argv[2]);
	g_self = argv[0];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
