// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Mock kernel: the gates a test closes over user ranges (mockdev/mock.h). */
#include <errno.h>
#include <pthread.h>

#include <linux/kernel.h>

#include "internal.h"
#include "uaccess.h"

/*
 * Gates (mock_gate_close()): a user copy that meets a closed gate's range
 * waits until the gate opens, so a test can hold an engine inside a
 * descriptor at a point of its choosing. gates_closed lets every copy pass
 * with one load while no gate is closed.
 */
static struct {
	pthread_mutex_t lock;	/* protects: the gates, their waiters */
	pthread_cond_t opened;
	struct {
		unsigned long lo, hi;	/* [lo, hi); hi == 0: free */
		unsigned long waiting;
	} gate[MOCK_GATES];
} gates = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { { 0 } } };
static int gates_closed;

MOCK_EXPORT int mock_gate_close(const void *addr, size_t len)
{
	unsigned long lo = (unsigned long)addr;
	int i;

	if (!len || lo + len < lo)
		return -EINVAL;
	pthread_mutex_lock(&gates.lock);
	for (i = 0; i < MOCK_GATES && gates.gate[i].hi; i++)
		;
	if (i < MOCK_GATES) {
		gates.gate[i].lo = lo;
		gates.gate[i].hi = lo + len;
		__atomic_add_fetch(&gates_closed, 1, __ATOMIC_SEQ_CST);
	}
	pthread_mutex_unlock(&gates.lock);
	return i < MOCK_GATES ? i : -ENOSPC;
}

MOCK_EXPORT void mock_gate_open(int id)
{
	if (id < 0 || id >= MOCK_GATES)
		return;
	pthread_mutex_lock(&gates.lock);
	if (gates.gate[id].hi) {
		gates.gate[id].hi = 0;
		__atomic_sub_fetch(&gates_closed, 1, __ATOMIC_SEQ_CST);
		pthread_cond_broadcast(&gates.opened);
	}
	pthread_mutex_unlock(&gates.lock);
}

MOCK_EXPORT unsigned long mock_gate_waiting(int id)
{
	unsigned long n = 0;

	if (id < 0 || id >= MOCK_GATES)
		return 0;
	pthread_mutex_lock(&gates.lock);
	n = gates.gate[id].waiting;
	pthread_mutex_unlock(&gates.lock);
	return n;
}

void mock_gate_pass(unsigned long addr, unsigned long n)
{
	int i;

	if (!__atomic_load_n(&gates_closed, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&gates.lock);
	for (i = 0; i < MOCK_GATES; i++) {
		while (gates.gate[i].hi && addr < gates.gate[i].hi &&
		       gates.gate[i].lo < addr + n) {
			gates.gate[i].waiting++;
			pthread_cond_wait(&gates.opened, &gates.lock);
			gates.gate[i].waiting--;
		}
	}
	pthread_mutex_unlock(&gates.lock);
}
