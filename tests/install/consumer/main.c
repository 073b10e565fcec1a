// SPDX-License-Identifier: MIT
/*
 * Built against an installed libascendcl, through find_package (CMake) or
 * pkg-config: allocate device memory, copy into it and back, check it.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                           \
	do {                                                                  \
		aclError e_ = (call);                                         \
		if (e_ != ACL_SUCCESS) {                                      \
			fprintf(stderr, "%s: %d (%s)\n", #call, e_,            \
				aclGetRecentErrMsg());                        \
			return 1;                                             \
		}                                                             \
	} while (0)

int main(void)
{
	char in[4096], out[4096];
	void *dev = NULL;

	memset(in, 0x5a, sizeof(in));
	memset(out, 0, sizeof(out));
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtMalloc(&dev, sizeof(in), ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMemcpy(dev, sizeof(in), in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(aclrtMemcpy(out, sizeof(out), dev, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
	CHECK(aclrtFree(dev));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	if (memcmp(in, out, sizeof(in))) {
		fprintf(stderr, "consumer: data differs after the round trip\n");
		return 1;
	}
	printf("consumer: 4 KiB round trip through the installed libascendcl: ok\n");
	return 0;
}
