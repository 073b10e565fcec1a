/* SPDX-License-Identifier: MIT */
/*
 * Built against the older toolkit layout: acl_dvpp.h media buffers, a copy
 * through CANN's rt* functions, and libruntime.so found by name as the
 * memory clients' loaders find it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "runtime/rt.h"

#define CHECK(expr)                                                                  \
	do {                                                                         \
		int rc_ = (int)(expr);                                               \
		if (rc_ != 0) {                                                      \
			fprintf(stderr, "%s = %d: %s\n", #expr, rc_, aclGetRecentErrMsg()); \
			return 1;                                                    \
		}                                                                    \
	} while (0)

int main(void)
{
	unsigned char in[4096], out[4096];
	void *media = NULL, *dev = NULL, *rt = NULL;

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 1);
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(acldvppMalloc(&media, sizeof(in)));
	CHECK(rtMalloc(&dev, sizeof(in), RT_MEMORY_HBM, 0));
	CHECK(aclrtMemcpy(media, sizeof(in), in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(rtMemcpy(dev, sizeof(in), media, sizeof(in), RT_MEMCPY_DEVICE_TO_DEVICE));
	CHECK(rtMemcpy(out, sizeof(out), dev, sizeof(out), RT_MEMCPY_DEVICE_TO_HOST));
	if (memcmp(in, out, sizeof(in)) != 0) {
		fprintf(stderr, "the data read back differs\n");
		return 1;
	}
	rt = dlopen("libruntime.so", RTLD_NOW);
	if (rt == NULL || dlsym(rt, "rtIpcSetMemoryName") == NULL ||
	    dlsym(rt, "rtStreamGetSqid") == NULL) {
		fprintf(stderr, "libruntime.so: %s\n", dlerror());
		return 1;
	}
	dlclose(rt);
	CHECK(rtFree(dev));
	CHECK(acldvppFree(media));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	printf("legacy layout sample: passed\n");
	return 0;
}
