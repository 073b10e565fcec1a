// SPDX-License-Identifier: MIT
/*
 * The ceiling for one stream, measured on this machine in this run
 * (spsc_ring_floor_per_s; bench_async.c runs it in turn with the small
 * async copies and reports it): two plain threads pass 64-byte descriptors
 * through a ring in memory. The producer writes each descriptor (a
 * 64-byte store) and publishes the tail; the consumer reads it, does the
 * 64-byte copy it names, and publishes its head and a completion count the
 * producer waits on at the end. Both spin (no system call); the ring has
 * the shape of the driver's (4096 entries, indices on their own cache
 * lines, release/acquire).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_report.h"

#define SPSC_ENTRIES 4096

struct spsc_desc {
	const uint8_t *src;
	uint8_t *dst;
	uint64_t len;
	uint64_t seq;
	uint8_t pad[32];
};

struct spsc_ring {
	_Alignas(64) uint32_t tail;	/* producer */
	_Alignas(64) uint32_t head;	/* consumer */
	_Alignas(64) uint64_t done;	/* consumer: descriptors completed */
	_Alignas(64) struct spsc_desc d[SPSC_ENTRIES];
	uint64_t ops;
	uint8_t src[64], dst[64];
};

_Static_assert(sizeof(struct spsc_desc) == 64, "a descriptor is 64 bytes, like an SQE");

static void *spsc_consumer(void *arg)
{
	struct spsc_ring *r = arg;
	uint32_t head = 0;

	while (head != (uint32_t)r->ops) {
		uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);

		while (head != tail) {
			struct spsc_desc d = r->d[head & (SPSC_ENTRIES - 1)];

			memcpy(d.dst, d.src, d.len);
			head++;
			__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
			__atomic_store_n(&r->done, r->done + 1, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

/* Descriptors per second of one run of @ops, or a negative value. */
static double spsc_run(struct spsc_ring *r, uint64_t ops)
{
	struct timespec t0, t1;
	pthread_t consumer;
	uint32_t tail = 0;

	r->tail = r->head = 0;
	r->done = 0;
	r->ops = ops;
	if (pthread_create(&consumer, NULL, spsc_consumer, r))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint64_t i = 0; i < ops; i++) {
		struct spsc_desc d = { r->src, r->dst, sizeof(r->src), i, { 0 } };

		while (tail - __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == SPSC_ENTRIES)
			;
		r->d[tail & (SPSC_ENTRIES - 1)] = d;
		tail++;
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) != ops)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(consumer, NULL);
	return (double)ops /
	       ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}

double bench_spsc_once(unsigned int ops)
{
	struct spsc_ring *r = aligned_alloc(64, sizeof(*r));
	double v = -1;

	if (r) {
		memset(r, 0, sizeof(*r));
		v = spsc_run(r, ops);
		free(r);
	}
	return v;
}
