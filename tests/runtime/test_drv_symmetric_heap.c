// SPDX-License-Identifier: MIT
/*
 * A symmetric heap across two processes built only through libascend_hal.so,
 * as a symmetric-heap library builds one: each rank reserves a window, re-
 * reserves per-rank slots at chosen addresses in it, maps device and host
 * physical memory in its own slots, exports them as V2 (fabric) shareable
 * handles without a whitelist, imports the peer's into the peer's slots, and
 * reads the peer's data there. The processes share a device, so this runs on
 * a device node or npud, not on the in-process device (exit 77 there).
 * Then the same with whitelists: named IPC memory and a V1 handle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "driver/ascend_hal.h"

#define MiB (1024UL * 1024UL)
#define SLOT (2 * MiB)
#define RANKS 2

/* Slots of the window: [rank][0] device memory, [rank][1] host memory. */
#define SLOT_AT(base, rank, kind) ((char *)(base) + ((rank) * 2 + (kind)) * SLOT)

#define CHECK(expr)                                                                  \
	do {                                                                         \
		long check_rc_ = (long)(expr);                                       \
		if (check_rc_ != 0) {                                                \
			fprintf(stderr, "rank %d: %s = %ld (line %d)\n", rank, #expr,  \
				check_rc_, __LINE__);                                \
			return 1;                                                    \
		}                                                                    \
	} while (0)

static int xfer(int fd, void *buf, size_t n, int out)
{
	char *p = buf;

	while (n > 0) {
		ssize_t r = out ? write(fd, p, n) : read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static void fill(unsigned char *buf, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 131 + seed * 29 + (i >> 12));
}

struct exported {
	void *window;
	struct MemShareHandle sh[2];
};

struct named {
	char name[128];
	uint64_t share;
};

/*
 * Sharing with a whitelist: rank 0 exports named IPC memory (halShmem*) and
 * a V1 shareable handle for rank 1's TGID only; rank 1 opens both and reads
 * rank 0's data through them.
 */
static int whitelisted(int rank, int rfd, int wfd, unsigned char *buf, unsigned char *want)
{
	struct memcpy_info h2d = { DRV_MEMCPY_HOST_TO_DEVICE, 0, { 0, 0 } };
	struct memcpy_info d2h = { DRV_MEMCPY_DEVICE_TO_HOST, 0, { 0, 0 } };
	struct drv_mem_prop prop;
	struct named msg;
	drv_mem_handle_t *h = NULL;
	void *dev = NULL, *va = NULL;
	char ack = 'k';
	int tgid = 0;

	memset(&prop, 0, sizeof(prop));
	prop.side = MEM_DEV_SIDE;
	prop.pg_type = MEM_HUGE_PAGE_TYPE;
	memset(&msg, 0, sizeof(msg));
	CHECK(halMemAddressReserve(&va, SLOT, 0, NULL, 0));
	if (rank == 1) {
		DVdeviceptr p = 0;

		tgid = drvDeviceGetBareTgid();
		CHECK(tgid <= 0);
		CHECK(xfer(wfd, &tgid, sizeof(tgid), 1));
		CHECK(xfer(rfd, &msg, sizeof(msg), 0));
		CHECK(halShmemOpenHandle(msg.name, &p));
		CHECK(halMemcpy(buf, SLOT, (void *)(uintptr_t)p, SLOT, &d2h));
		fill(want, SLOT, 7);
		CHECK(memcmp(buf, want, SLOT) != 0);
		CHECK(halShmemCloseHandle(p));
		CHECK(halMemImportFromShareableHandle(msg.share, 0, &h));
		CHECK(halMemMap(va, SLOT, 0, h, 0));
		CHECK(halMemcpy(buf, SLOT, va, SLOT, &d2h));
		fill(want, SLOT, 8);
		CHECK(memcmp(buf, want, SLOT) != 0);
		CHECK(halMemUnmap(va));
		CHECK(halMemRelease(h));
		CHECK(xfer(wfd, &ack, 1, 1));
	} else {
		CHECK(xfer(rfd, &tgid, sizeof(tgid), 0));
		CHECK(halMemAlloc(&dev, SLOT, MEM_DEV));
		fill(buf, SLOT, 7);
		CHECK(halMemcpy(dev, SLOT, buf, SLOT, &h2d));
		CHECK(halShmemCreateHandle((uintptr_t)dev, SLOT, msg.name, sizeof(msg.name)));
		CHECK(halShmemSetPidHandle(msg.name, &tgid, 1));
		CHECK(halMemCreate(&h, SLOT, &prop, 0));
		CHECK(halMemMap(va, SLOT, 0, h, 0));
		fill(buf, SLOT, 8);
		CHECK(halMemcpy(va, SLOT, buf, SLOT, &h2d));
		CHECK(halMemExportToShareableHandle(h, MEM_HANDLE_TYPE_NONE, 0, &msg.share));
		CHECK(halMemSetPidToShareableHandle(msg.share, &tgid, 1));
		CHECK(xfer(wfd, &msg, sizeof(msg), 1));
		CHECK(xfer(rfd, &ack, 1, 0));
		CHECK(halShmemDestroyHandle(msg.name));
		CHECK(halMemFree(dev));
		CHECK(halMemUnmap(va));
		CHECK(halMemRelease(h));
	}
	CHECK(halMemAddressFree(va));
	return 0;
}

static int run_rank(int rank, int rfd, int wfd)
{
	const int peer = 1 - rank;
	struct drv_mem_prop prop[2];
	drv_mem_handle_t *mine[2], *theirs[2];
	struct exported out, in;
	struct drv_mem_access_desc desc;
	struct ShareHandleAttr attr;
	struct memcpy_info h2d = { DRV_MEMCPY_HOST_TO_DEVICE, 0, { 0, 0 } };
	struct memcpy_info d2h = { DRV_MEMCPY_DEVICE_TO_HOST, 0, { 0, 0 } };
	unsigned char *buf = malloc(SLOT), *want = malloc(SLOT);
	void *window = NULL, *slot[RANKS][2];
	char ack = 'k';
	size_t g = 0;

	if (buf == NULL || want == NULL)
		return 1;
	memset(prop, 0, sizeof(prop));
	prop[0].side = MEM_DEV_SIDE;
	prop[0].devid = 0;
	prop[0].pg_type = MEM_HUGE_PAGE_TYPE;
	prop[0].mem_type = MEM_HBM_TYPE;
	prop[1].side = MEM_HOST_NUMA_SIDE;
	prop[1].devid = UINT32_MAX; /* any node */
	prop[1].pg_type = MEM_HUGE_PAGE_TYPE;
	prop[1].mem_type = MEM_P2P_DDR_TYPE;
	CHECK(halMemGetAllocationGranularity(&prop[0], MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	CHECK(g != SLOT);

	/* Rank 0 picks the window; rank 1 takes the same addresses. */
	if (rank == 0) {
		CHECK(halMemAddressReserve(&window, RANKS * 2 * SLOT, 0, NULL, 0));
	} else {
		CHECK(xfer(rfd, &in, sizeof(in), 0));
		window = in.window;
		CHECK(halMemAddressReserve(&window, RANKS * 2 * SLOT, 0, in.window, 0));
		CHECK(window != in.window);
	}
	/* Re-reserved as per-rank slots at chosen addresses. */
	CHECK(halMemAddressFree(window));
	for (int r = 0; r < RANKS; r++) {
		for (int k = 0; k < 2; k++) {
			CHECK(halMemAddressReserve(&slot[r][k], SLOT, 0, SLOT_AT(window, r, k), 0));
			CHECK(slot[r][k] != SLOT_AT(window, r, k));
		}
	}

	/* Own memory, mapped in own slots, filled. */
	memset(&desc, 0, sizeof(desc));
	desc.type = MEM_ACCESS_TYPE_READWRITE;
	desc.location.side = MEM_DEV_SIDE;
	out.window = window;
	memset(&attr, 0, sizeof(attr));
	attr.enableFlag = SHR_HANDLE_NO_WLIST_ENABLE;
	for (int k = 0; k < 2; k++) {
		uint64_t share = 0;
		uint32_t server = 1;

		CHECK(halMemCreate(&mine[k], SLOT, &prop[k], 0));
		CHECK(halMemMap(slot[rank][k], SLOT, 0, mine[k], 0));
		CHECK(halMemSetAccess(slot[rank][k], SLOT, &desc, 1));
		fill(buf, SLOT, rank * 2 + k + 1);
		CHECK(halMemcpy(slot[rank][k], SLOT, buf, SLOT, &h2d));
		CHECK(halMemExportToShareableHandleV2(mine[k], MEM_HANDLE_TYPE_FABRIC, 0,
						       &out.sh[k]));
		CHECK(halMemTransShareableHandle(MEM_HANDLE_TYPE_FABRIC, &out.sh[k], &server,
						 &share));
		CHECK(server != 0);
		CHECK(halMemShareHandleSetAttribute(share, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER,
						    attr));
	}

	/* Exchange the handles (rank 0 sent nothing yet). */
	if (rank == 0) {
		CHECK(xfer(wfd, &out, sizeof(out), 1));
		CHECK(xfer(rfd, &in, sizeof(in), 0));
	} else {
		CHECK(xfer(wfd, &out, sizeof(out), 1));
	}

	/* The peer's memory in the peer's slots, read back here. */
	for (int k = 0; k < 2; k++) {
		CHECK(halMemImportFromShareableHandleV2(MEM_HANDLE_TYPE_FABRIC, &in.sh[k], 0,
							 &theirs[k]));
		CHECK(halMemMap(slot[peer][k], SLOT, 0, theirs[k], 0));
		CHECK(halMemSetAccess(slot[peer][k], SLOT, &desc, 1));
		memset(buf, 0, SLOT);
		CHECK(halMemcpy(buf, SLOT, slot[peer][k], SLOT, &d2h));
		fill(want, SLOT, peer * 2 + k + 1);
		CHECK(memcmp(buf, want, SLOT) != 0);
	}
	/* Both have read before anything goes. */
	CHECK(xfer(wfd, &ack, 1, 1));
	CHECK(xfer(rfd, &ack, 1, 0));

	CHECK(whitelisted(rank, rfd, wfd, buf, want));

	for (int k = 0; k < 2; k++) {
		CHECK(halMemUnmap(slot[peer][k]));
		CHECK(halMemRelease(theirs[k]));
		CHECK(halMemUnmap(slot[rank][k]));
		CHECK(halMemRelease(mine[k]));
	}
	for (int r = 0; r < RANKS; r++)
		for (int k = 0; k < 2; k++)
			CHECK(halMemAddressFree(slot[r][k]));
	free(buf);
	free(want);
	return 0;
}

static void test_two_ranks(void **state)
{
	int to_child[2], to_parent[2], status = 0, rc;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(to_parent), 0);
	/* Before any call of the library: the child starts clean. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		_exit(run_rank(1, to_child[0], to_parent[1]));
	}
	close(to_child[0]);
	close(to_parent[1]);
	rc = run_rank(0, to_parent[0], to_child[1]);
	/* On failure the closed pipes end the peer's wait. */
	close(to_child[1]);
	close(to_parent[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(rc, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const char *dev = getenv("NPU_DEVICE");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_ranks),
	};

	if ((dev != NULL && strcmp(dev, "inproc") == 0) ||
	    (dev == NULL && access("/dev/npu0", F_OK) != 0 && access("/run/npu/npu0", F_OK) != 0)) {
		printf("skipped: two processes need a shared device (a device node or npud)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
