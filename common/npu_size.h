/* SPDX-License-Identifier: MIT */
/*
 * Sizes as the user writes them ("123", "4K", "16M", "2G"; K/M/G are
 * binary), for npud's options and the runtime's environment variables.
 * Plain C, callable from C++.
 */
#ifndef NPU_SIZE_H
#define NPU_SIZE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Digits with at most one K, M or G after them, in bytes: 0 or -EINVAL. */
int npu_parse_size(const char *text, uint64_t *bytes);

/* A size as npu_parse_size() reads it that is a non-zero multiple of 1 MiB, in MiB. */
int npu_parse_size_mb(const char *text, uint64_t *mb);

#ifdef __cplusplus
}
#endif

#endif /* NPU_SIZE_H */
