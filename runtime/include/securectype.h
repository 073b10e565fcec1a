/* SPDX-License-Identifier: MIT */
/*
 * The types and limits of the secure C library (securec.h includes this):
 * errno_t, the largest sizes its functions accept, and the export macro.
 */
#ifndef NPU_SECURECTYPE_H
#define NPU_SECURECTYPE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifndef SECUREC_HAVE_ERRNO_T
#define SECUREC_HAVE_ERRNO_T
typedef int errno_t;
#endif

/* The largest destMax (bytes) the memory and string functions accept. */
#ifndef SECUREC_MEM_MAX_LEN
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#endif
#ifndef SECUREC_STRING_MAX_LEN
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL
#endif

#ifndef SECUREC_API
#define SECUREC_API __attribute__((visibility("default")))
#endif

/* printf-style format checking of the formatted-output functions. */
#if defined(__GNUC__) && !defined(SECUREC_ATTRIBUTE)
#define SECUREC_ATTRIBUTE(fmt, args) __attribute__((format(printf, fmt, args)))
#elif !defined(SECUREC_ATTRIBUTE)
#define SECUREC_ATTRIBUTE(fmt, args)
#endif

#endif /* NPU_SECURECTYPE_H */
