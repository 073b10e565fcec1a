// SPDX-License-Identifier: MIT
/*
 * The exporting process: shares an aclrtMalloc buffer under an IPC key
 * whitelisted for the importer, and physical memory (VMM) through a
 * shareable handle; then checks what the importer wrote into both.
 *
 *   exporter DIR    (start importer DIR too; both use device 0)
 */
#include "common.h"

int main(int argc, char **argv)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle phys;
	unsigned char *host;
	uint64_t shareable;
	size_t granularity;
	int32_t importer;
	char key[65], done;
	void *buf, *va;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	host = malloc(IPC_BYTES);
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(SHARE_DEVICE));
	get_file(argv[1], "importer.pid", &importer, sizeof(importer));

	/* IPC: a whole allocation under a key, for the importer only. */
	CHECK(aclrtMalloc(&buf, IPC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
	pattern(host, IPC_BYTES, 1);
	CHECK(aclrtMemcpy(buf, IPC_BYTES, host, IPC_BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(aclrtIpcMemGetExportKey(buf, IPC_BYTES, key, sizeof(key),
				      ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
	CHECK(aclrtIpcMemSetImportPid(key, &importer, 1));

	/* VMM: physical memory, mapped here, exported as a shareable handle. */
	memset(&prop, 0, sizeof(prop));
	prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop.memAttr = ACL_HBM_MEM_HUGE;
	prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = SHARE_DEVICE;
	CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
					       &granularity));
	CHECK(aclrtMallocPhysical(&phys, granularity, &prop, 0));
	CHECK(aclrtReserveMemAddress(&va, granularity, 0, NULL, 0));
	CHECK(aclrtMapMem(va, granularity, 0, phys, 0));
	pattern(host, granularity, 2);
	CHECK(aclrtMemcpy(va, granularity, host, granularity, ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(aclrtMemExportToShareableHandle(phys, ACL_MEM_HANDLE_TYPE_NONE,
					      ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &shareable));
	CHECK(aclrtMemSetPidToShareableHandle(shareable, &importer, 1));

	put_file(argv[1], "key", key, sizeof(key));
	put_file(argv[1], "handle", &shareable, sizeof(shareable));
	get_file(argv[1], "done", &done, 1);

	CHECK(aclrtMemcpy(host, IPC_BYTES, buf, IPC_BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
	if (!has_pattern(host, IPC_BYTES, 3)) {
		fprintf(stderr, "exporter: the importer's IPC write is missing\n");
		return 1;
	}
	CHECK(aclrtMemcpy(host, granularity, va, granularity, ACL_MEMCPY_DEVICE_TO_HOST));
	if (!has_pattern(host, granularity, 4)) {
		fprintf(stderr, "exporter: the importer's VMM write is missing\n");
		return 1;
	}
	printf("exporter: saw the importer's data in the IPC buffer and the VMM mapping\n");

	CHECK(aclrtIpcMemClose(key));
	CHECK(aclrtFree(buf));
	CHECK(aclrtUnmapMem(va));
	CHECK(aclrtReleaseMemAddress(va));
	CHECK(aclrtFreePhysical(phys));
	CHECK(aclrtResetDevice(SHARE_DEVICE));
	CHECK(aclFinalize());
	free(host);
	return 0;
}
