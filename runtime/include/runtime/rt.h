/* SPDX-License-Identifier: MIT */
/* CANN's runtime API (libruntime.so, and libascendcl.so): every rt* header. */
#ifndef NPU_CANN_RUNTIME_RT_H
#define NPU_CANN_RUNTIME_RT_H

#include "runtime/base.h"
#include "runtime/dev.h"
#include "runtime/event.h"
#include "runtime/mem.h"
#include "runtime/stream.h"

#endif /* NPU_CANN_RUNTIME_RT_H */
