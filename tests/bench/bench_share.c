// SPDX-License-Identifier: MIT
/*
 * Sharing benchmarks: the median cost of an IPC import plus close, and of
 * mapping plus unmapping 2 MiB of physical memory.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"

#include "bench_report.h"

#define MAX_ITERS 4096

static double bench_ipc_import_us(int iters)
{
	static double t[MAX_ITERS];
	char key[65];
	void *p, *q;
	aclError e;
	int i;

	if (iters <= 0 || iters > MAX_ITERS)
		iters = MAX_ITERS;
	e = aclrtMalloc(&p, 2u << 20, ACL_MEM_MALLOC_HUGE_ONLY);
	if (e)
		return -(double)e;
	e = aclrtIpcMemGetExportKey(p, 2u << 20, key, sizeof(key),
				    ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	for (i = 0; !e && i < iters; i++) {
		double t0 = bench_now_us();

		e = aclrtIpcMemImportByKey(&q, key, 0);
		if (!e)
			e = aclrtIpcMemClose(key);
		t[i] = bench_now_us() - t0;
	}
	if (e) {
		aclrtFree(p);
		return -(double)e;
	}
	aclrtIpcMemClose(key);
	aclrtFree(p);
	return bench_median(t, iters);
}

static double bench_vmm_map_unmap_2m_us(int iters)
{
	static double t[MAX_ITERS];
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h;
	int32_t dev = 0;
	void *va;
	aclError e;
	int i;

	if (iters <= 0 || iters > MAX_ITERS)
		iters = MAX_ITERS;
	aclrtGetDevice(&dev);
	memset(&prop, 0, sizeof(prop));
	prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop.memAttr = ACL_MEM_HUGE;
	prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = (uint32_t)dev;
	e = aclrtMallocPhysical(&h, 2u << 20, &prop, 0);
	if (e)
		return -(double)e;
	e = aclrtReserveMemAddress(&va, 2u << 20, 0, NULL, 0);
	for (i = 0; !e && i < iters; i++) {
		double t0 = bench_now_us();

		e = aclrtMapMem(va, 2u << 20, 0, h, 0);
		if (!e)
			e = aclrtUnmapMem(va);
		t[i] = bench_now_us() - t0;
	}
	if (!e)
		aclrtReleaseMemAddress(va);
	aclrtFreePhysical(h);
	return e ? -(double)e : bench_median(t, iters);
}

void bench_share(unsigned int iters, struct bench_report *rep)
{
	bench_report_add(rep, "ipc_import_us", "aclrtIpcMemImportByKey+Close", "us",
			 bench_ipc_import_us((int)iters));
	bench_report_add(rep, "vmm_map_unmap_2m_us", "aclrtMapMem+UnmapMem 2 MiB", "us",
			 bench_vmm_map_unmap_2m_us((int)iters));
}
