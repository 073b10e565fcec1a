/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_KREF_H
#define MOCK_LINUX_KREF_H

#include <linux/refcount.h>

struct kref {
	refcount_t refcount;
};

static inline void kref_init(struct kref *kref)
{
	refcount_set(&kref->refcount, 1);
}

static inline void kref_get(struct kref *kref)
{
	refcount_inc(&kref->refcount);
}

/* Drop a reference; call release and return 1 if it was the last one. */
static inline int kref_put(struct kref *kref,
			   void (*release)(struct kref *kref))
{
	if (refcount_dec_and_test(&kref->refcount)) {
		release(kref);
		return 1;
	}
	return 0;
}

#endif /* MOCK_LINUX_KREF_H */
