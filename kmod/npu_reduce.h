/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * NPU_OP_REDUCE's arithmetic: one piece of destination and source, both
 * kernel addresses, combined element by element.
 */
#ifndef _NPU_REDUCE_H
#define _NPU_REDUCE_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

/*
 * The size of an element of NPU_REDUCE_* type @type, or 0 for none. Inline:
 * the engine calls it outside the FPU bracket, and npu_reduce.c is built
 * with the FPU allowed.
 */
static inline unsigned int npu_reduce_elem_size(u32 type)
{
	switch (type) {
	case NPU_REDUCE_F32:
	case NPU_REDUCE_S32:
		return 4;
	case NPU_REDUCE_F16:
	case NPU_REDUCE_BF16:
	case NPU_REDUCE_S16:
		return 2;
	case NPU_REDUCE_S8:
		return 1;
	}
	return 0;
}

/*
 * npu_reduce_piece() - dst[i] = op(dst[i], src[i]) for @len bytes
 *
 * @op and @type are valid (NPU_REDUCE_*), @len a multiple of the element
 * size, @dst and @src aligned to it. Floating-point types use the FPU: the
 * caller brackets the call with npu_reduce_fpu_begin()/_end() and keeps
 * @len small (preemption is off in between).
 */
void npu_reduce_piece(void *dst, const void *src, size_t len, u32 op, u32 type);

/* The largest piece the engine hands over between fpu_begin and fpu_end. */
#define NPU_REDUCE_PIECE_MAX	(64 * 1024)

/*
 * The FPU bracket. These two are the only functions of npu_reduce.c called
 * outside it: they hold no floating-point values.
 */
void npu_reduce_fpu_begin(void);
void npu_reduce_fpu_end(void);

#endif /* _NPU_REDUCE_H */
