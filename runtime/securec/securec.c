// SPDX-License-Identifier: MIT
// libc_sec.so: the secure C library functions of securec.h. Each checks
// its destination first (NULL: EINVAL; destMax 0 or above the maximum:
// ERANGE; both leave it alone), then its source and the result's size,
// resetting the destination on every later violation (securec.h says how).
#include "securec.h"

#include <stdint.h>

// [a, a + na) and [b, b + nb) share a byte.
static int Overlap(const void *a, size_t na, const void *b, size_t nb) {
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + nb && y < x + na;
}

errno_t memset_s(void *dest, size_t destMax, int c, size_t count) {
    if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN)
        return ERANGE;
    if (dest == NULL)
        return EINVAL;
    if (count > destMax) {
        memset(dest, c, destMax);
        return ERANGE_AND_RESET;
    }
    memset(dest, c, count);
    return EOK;
}

// The checks memcpy_s and memmove_s share; -1: go on and copy.
static errno_t MemCheck(void *dest, size_t destMax, const void *src, size_t count) {
    if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN)
        return ERANGE;
    if (dest == NULL)
        return EINVAL;
    if (src == NULL) {
        memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    return -1;
}

errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count) {
    const errno_t rc = MemCheck(dest, destMax, src, count);
    if (rc != -1)
        return rc;
    if (dest == src || count == 0)
        return EOK;
    if (Overlap(dest, count, src, count)) {
        memset(dest, 0, destMax);
        return EOVERLAP_AND_RESET;
    }
    memcpy(dest, src, count);
    return EOK;
}

errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count) {
    const errno_t rc = MemCheck(dest, destMax, src, count);
    if (rc != -1)
        return rc;
    if (count != 0 && dest != src)
        memmove(dest, src, count);
    return EOK;
}

// The checks of the string functions' destination and source; -1: go on.
static errno_t StrCheck(char *dest, size_t destMax, const char *src) {
    if (destMax == 0 || destMax > SECUREC_STRING_MAX_LEN)
        return ERANGE;
    if (dest == NULL)
        return EINVAL;
    if (src == NULL) {
        dest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return -1;
}

// Copies n characters of src (already checked to fit with the '\0') to
// dest + at, unless they overlap what the result occupies.
static errno_t PutString(char *dest, size_t destMax, size_t at, const char *src, size_t n) {
    if (Overlap(dest, at + n + 1, src, n + 1)) {
        dest[0] = '\0';
        return EOVERLAP_AND_RESET;
    }
    (void)destMax;
    memcpy(dest + at, src, n);
    dest[at + n] = '\0';
    return EOK;
}

errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc) {
    const errno_t rc = StrCheck(strDest, destMax, strSrc);
    if (rc != -1)
        return rc;
    if (strDest == strSrc)
        return strnlen(strSrc, destMax) < destMax ? EOK : ERANGE_AND_RESET;
    const size_t n = strnlen(strSrc, destMax);
    if (n >= destMax) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    return PutString(strDest, destMax, 0, strSrc, n);
}

errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count) {
    const errno_t rc = StrCheck(strDest, destMax, strSrc);
    if (rc != -1)
        return rc;
    if (count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    // At most count characters of src, and they must leave room for '\0'.
    const size_t n = strnlen(strSrc, count < destMax ? count : destMax);
    if (n >= destMax) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if (strDest == strSrc) {
        strDest[n] = '\0';
        return EOK;
    }
    return PutString(strDest, destMax, 0, strSrc, n);
}

// strcat_s and strncat_s: append at most count characters of src.
static errno_t Append(char *dest, size_t destMax, const char *src, size_t count) {
    const errno_t rc = StrCheck(dest, destMax, src);
    if (rc != -1)
        return rc;
    if (count > SECUREC_STRING_MAX_LEN) {
        dest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    const size_t have = strnlen(dest, destMax);
    if (have == destMax) {  // dest is not a string within destMax
        dest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    const size_t room = destMax - have;  // characters that fit, with the '\0'
    const size_t n = strnlen(src, count < room ? count : room);
    if (n >= room) {
        dest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    return PutString(dest, destMax, have, src, n);
}

errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc) {
    return Append(strDest, destMax, strSrc, SECUREC_STRING_MAX_LEN);
}

errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count) {
    return Append(strDest, destMax, strSrc, count);
}

// The formatted-output functions: count is the most characters wanted
// (SIZE_MAX-like values: as many as fit). A result longer than count is
// cut to count characters and returns -1 when count < destMax; one that
// does not fit destMax resets dest and returns -1.
int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList) {
    if (strDest == NULL || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN)
        return -1;
    if (format == NULL || count == 0) {
        strDest[0] = '\0';
        return -1;
    }
    const int truncate = count < destMax;
    const size_t limit = truncate ? count + 1 : destMax;
    va_list ap;
    va_copy(ap, argList);
    const int n = vsnprintf(strDest, limit, format, ap);
    va_end(ap);
    if (n < 0) {
        strDest[0] = '\0';
        return -1;
    }
    if ((size_t)n >= limit) {
        if (truncate)
            return -1;  // the first count characters, '\0'-terminated
        strDest[0] = '\0';
        return -1;
    }
    return n;
}

int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    const int n = vsnprintf_s(strDest, destMax, count, format, ap);
    va_end(ap);
    return n;
}

int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList) {
    return vsnprintf_s(strDest, destMax, destMax, format, argList);
}

int sprintf_s(char *strDest, size_t destMax, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    const int n = vsprintf_s(strDest, destMax, format, ap);
    va_end(ap);
    return n;
}
