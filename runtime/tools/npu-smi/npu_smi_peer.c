// SPDX-License-Identifier: MIT
/*
 * Helper of the npu-smi test: exports a 4 MiB allocation of device 1 under
 * a key without whitelist, imports it once itself, prints "ready <tgid>"
 * and waits for a line on stdin before cleaning up.
 */
#include <stdio.h>

#include "acl/acl.h"

int main(void)
{
	char key[65], line[16];
	void *p, *q;
	int32_t tgid;

	if (aclInit(NULL) || aclrtSetDevice(1) ||
	    aclrtMalloc(&p, 4u << 20, ACL_MEM_MALLOC_HUGE_ONLY) ||
	    aclrtIpcMemGetExportKey(p, 4u << 20, key, sizeof(key),
				    ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION) ||
	    aclrtIpcMemImportByKey(&q, key, 0) || aclrtDeviceGetBareTgid(&tgid)) {
		fprintf(stderr, "npu_smi_peer: %s\n", aclGetRecentErrMsg());
		return 1;
	}
	printf("ready %d %.8s\n", tgid, key);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	aclrtIpcMemClose(key);
	aclrtIpcMemClose(key);
	aclrtFree(p);
	aclrtResetDevice(1);
	return 0;
}
