/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
/*
 * The loaders of CANN's memory clients, as they run: they dlopen
 * "libascendcl.so" and "libruntime.so" by name and dlsym the functions
 * they use (Ascend/memcache, hicann/shmem, Ascend/memfabric_hybrid). Every
 * name must resolve, to the function libascendcl exports, and a resolved
 * rt* function must work. The libraries are found by name as a client
 * finds them: through this program's RUNPATH (or LD_LIBRARY_PATH). Where
 * only libascendcl's SONAME (libascendcl.so.0) is installed, as in a
 * runtime-only install, the development name is reported missing and the
 * SONAME is used.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rt_test.h"
#include "runtime/rt.h"

/* What the clients' loaders ask libascendcl.so for. */
static const char *const k_ascendcl_names[] = {
	"aclrtCreateStream", "aclrtCreateStreamWithConfig", "aclrtDestroyStream",
	"aclrtDeviceEnablePeerAccess", "aclrtFree", "aclrtFreeHost", "aclrtGetDevice",
	"aclrtGetPhyDevIdByLogicDevId", "aclrtGetPhyDevIdByUserDevId", "aclrtGetSocName",
	"aclrtMalloc", "aclrtMallocHost", "aclrtMemcpy", "aclrtMemcpy2d", "aclrtMemcpy2dAsync",
	"aclrtMemcpyAsync", "aclrtMemcpyBatch", "aclrtMemset", "aclrtReleaseMemAddress",
	"aclrtReserveMemAddress", "aclrtSetDevice", "aclrtSynchronizeStream",
	"rtDeviceGetBareTgid", "rtDisableP2P", "rtEnableP2P", "rtGetDeviceInfo",
	"rtGetLogicDevIdByUserDevId", "rtIpcCloseMemory", "rtIpcDestroyMemoryName",
	"rtIpcOpenMemory", "rtIpcSetMemoryName", "rtMemcpyAsyncWithoutCheckKind",
	"rtSetIpcMemorySuperPodPid",
};

/* What they ask libruntime.so for: the rt* functions of runtime/rt.h. */
static const char *const k_runtime_names[] = {
	"rtDeviceGetBareTgid", "rtDeviceCanAccessPeer", "rtDeviceReset", "rtDisableP2P",
	"rtEnableP2P", "rtFree", "rtFreeHost", "rtGetDevice", "rtGetDeviceCount",
	"rtGetDeviceInfo", "rtGetDevicePhyIdByIndex", "rtGetLogicDevIdByUserDevId",
	"rtGetP2PStatus", "rtGetTaskIdAndStreamID", "rtGetUserDevIdByLogicDevId",
	"rtIpcCloseMemory", "rtIpcDestroyMemoryName", "rtIpcOpenMemory", "rtIpcSetMemoryName",
	"rtMalloc", "rtMallocHost", "rtMemGetInfo", "rtMemcpy", "rtMemcpyAsync",
	"rtMemcpyAsyncWithoutCheckKind", "rtMemset", "rtNotifyCreate", "rtNotifyDestroy",
	"rtNotifyGetAddrOffset", "rtSetDevice", "rtSetIpcMemPid", "rtSetIpcMemorySuperPodPid",
	"rtStreamCreate", "rtStreamDestroy", "rtStreamGetCqid", "rtStreamGetSqid",
	"rtStreamSynchronize",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* dlopen by name; libascendcl.so falls back to its SONAME. */
static void *open_by_name(const char *name, const char *fallback)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL && fallback != NULL) {
		print_message("%s: not installed here (%s); using %s\n", name, dlerror(), fallback);
		h = dlopen(fallback, RTLD_NOW | RTLD_LOCAL);
	}
	if (h == NULL)
		fail_msg("dlopen(\"%s\"): %s", fallback ? fallback : name, dlerror());
	return h;
}

static void expect_all(void *h, const char *lib, const char *const *names, size_t n)
{
	size_t missing = 0;

	for (size_t i = 0; i < n; i++) {
		void *sym = dlsym(h, names[i]);

		if (sym == NULL) {
			print_error("%s: dlsym(\"%s\") failed: %s\n", lib, names[i], dlerror());
			missing++;
			continue;
		}
		/* The same function as the one this program links. */
		void *linked = dlsym(RTLD_DEFAULT, names[i]);

		if (linked != sym)
			fail_msg("%s: %s resolves to %p, the linked one is %p", lib, names[i], sym,
				 linked);
	}
	if (missing != 0)
		fail_msg("%s: %zu of %zu names do not resolve", lib, missing, n);
	print_message("%s: all %zu names resolve\n", lib, n);
}

static void test_ascendcl_names(void **state)
{
	(void)state;
	void *h = open_by_name("libascendcl.so", "libascendcl.so.0");

	expect_all(h, "libascendcl", k_ascendcl_names, COUNT(k_ascendcl_names));
	expect_all(h, "libascendcl", k_runtime_names, COUNT(k_runtime_names));
	assert_int_equal(dlclose(h), 0);
}

static void test_runtime_names(void **state)
{
	(void)state;
	void *h = open_by_name("libruntime.so", NULL);

	expect_all(h, "libruntime", k_runtime_names, COUNT(k_runtime_names));
	/* What libruntime.so resolves works: a device round trip through it. */
	typedef rtError_t (*set_fn)(int32_t);
	typedef rtError_t (*malloc_fn)(void **, uint64_t, rtMemType_t, uint16_t);
	typedef rtError_t (*memcpy_fn)(void *, uint64_t, const void *, uint64_t, rtMemcpyKind_t);
	typedef rtError_t (*free_fn)(void *);
	typedef rtError_t (*reset_fn)(int32_t);
	set_fn set = (set_fn)dlsym(h, "rtSetDevice");
	malloc_fn mal = (malloc_fn)dlsym(h, "rtMalloc");
	memcpy_fn cpy = (memcpy_fn)dlsym(h, "rtMemcpy");
	free_fn fre = (free_fn)dlsym(h, "rtFree");
	reset_fn rst = (reset_fn)dlsym(h, "rtDeviceReset");
	uint8_t in[512], out[512];
	void *d = NULL;

	rt_fill_pattern(in, sizeof(in), 3);
	memset(out, 0, sizeof(out));
	assert_int_equal(set(0), RT_ERROR_NONE);
	assert_int_equal(mal(&d, sizeof(in), RT_MEMORY_HBM, 0), RT_ERROR_NONE);
	assert_int_equal(cpy(d, sizeof(in), in, sizeof(in), RT_MEMCPY_HOST_TO_DEVICE),
			 RT_ERROR_NONE);
	assert_int_equal(cpy(out, sizeof(out), d, sizeof(out), RT_MEMCPY_DEVICE_TO_HOST),
			 RT_ERROR_NONE);
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(fre(d), RT_ERROR_NONE);
	assert_int_equal(rst(0), RT_ERROR_NONE);
	/* A name no library has stays unresolved. */
	assert_null(dlsym(h, "rtNoSuchFunction"));
	assert_int_equal(dlclose(h), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascendcl_names),
		cmocka_unit_test(test_runtime_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
