/* SPDX-License-Identifier: MIT */
/*
 * The Huawei secure C library's interface (libc_sec.so, securec.h) as CANN
 * clients use it: bounded memory and string functions that check their
 * destination's size and, on a violation, return an error code and reset
 * the destination instead of overflowing it. Written for this project from
 * the library's documented behaviour; the names, return codes and their
 * values are the library's.
 *
 * Codes: EOK on success; EINVAL or ERANGE when the destination itself is
 * unusable (NULL, or destMax 0 or above the library's maximum) and so is
 * left alone; the *_AND_RESET codes when the destination was reset: the
 * memory functions clear all destMax bytes (memset_s fills them with c),
 * the string functions write '\0' at dest[0]. The formatted-output
 * functions return the characters written, or -1 after resetting dest.
 */
#ifndef NPU_SECUREC_H
#define NPU_SECUREC_H

#include "securectype.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef EOK
#define EOK 0
#endif
#ifndef EINVAL
#define EINVAL 22 /* bad argument; dest left alone */
#endif
#ifndef EINVAL_AND_RESET
#define EINVAL_AND_RESET (22 | 128) /* bad argument; dest reset */
#endif
#ifndef ERANGE
#define ERANGE 34 /* destMax 0 or too large; dest left alone */
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET (34 | 128) /* the result does not fit destMax; dest reset */
#endif
#ifndef EOVERLAP_AND_RESET
#define EOVERLAP_AND_RESET (54 | 128) /* source and destination overlap; dest reset */
#endif

SECUREC_API errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
SECUREC_API errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count);
SECUREC_API errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count);
SECUREC_API errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);
SECUREC_API errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
SECUREC_API errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);
SECUREC_API errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
SECUREC_API int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
    SECUREC_ATTRIBUTE(3, 4);
SECUREC_API int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
    SECUREC_ATTRIBUTE(3, 0);
SECUREC_API int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
    SECUREC_ATTRIBUTE(4, 5);
SECUREC_API int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format,
                            va_list argList) SECUREC_ATTRIBUTE(4, 0);

#ifdef __cplusplus
}
#endif

#endif /* NPU_SECUREC_H */
