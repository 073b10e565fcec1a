// SPDX-License-Identifier: MIT
/*
 * The importing process: sends its TGID for the whitelists, imports the
 * exporter's key and shareable handle, checks the data and writes its own.
 *
 *   importer DIR    (start exporter DIR too; both use device 0)
 */
#include "common.h"

int main(int argc, char **argv)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle phys;
	unsigned char *host;
	uint64_t shareable;
	size_t size;
	int32_t me;
	char key[65];
	void *buf, *va;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	host = malloc(IPC_BYTES);
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(SHARE_DEVICE));
	CHECK(aclrtDeviceGetBareTgid(&me));
	put_file(argv[1], "importer.pid", &me, sizeof(me));
	get_file(argv[1], "key", key, sizeof(key));
	get_file(argv[1], "handle", &shareable, sizeof(shareable));

	CHECK(aclrtIpcMemImportByKey(&buf, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT));
	CHECK(aclrtMemcpy(host, IPC_BYTES, buf, IPC_BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
	if (!has_pattern(host, IPC_BYTES, 1)) {
		fprintf(stderr, "importer: the IPC buffer does not hold the exporter's data\n");
		return 1;
	}
	pattern(host, IPC_BYTES, 3);
	CHECK(aclrtMemcpy(buf, IPC_BYTES, host, IPC_BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(aclrtIpcMemClose(key));

	CHECK(aclrtMemImportFromShareableHandle(shareable, SHARE_DEVICE, &phys));
	CHECK(aclrtMemGetAllocationPropertiesFromHandle(phys, &prop));
	CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &size));
	CHECK(aclrtReserveMemAddress(&va, size, 0, NULL, 0));
	CHECK(aclrtMapMem(va, size, 0, phys, 0));
	CHECK(aclrtMemcpy(host, size, va, size, ACL_MEMCPY_DEVICE_TO_HOST));
	if (!has_pattern(host, size, 2)) {
		fprintf(stderr, "importer: the VMM mapping does not hold the exporter's data\n");
		return 1;
	}
	pattern(host, size, 4);
	CHECK(aclrtMemcpy(va, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(aclrtUnmapMem(va));
	CHECK(aclrtReleaseMemAddress(va));
	CHECK(aclrtFreePhysical(phys));
	printf("importer: read the exporter's data through a key and a shareable handle\n");

	put_file(argv[1], "done", "d", 1);
	CHECK(aclrtResetDevice(SHARE_DEVICE));
	CHECK(aclFinalize());
	free(host);
	return 0;
}
