/* SPDX-License-Identifier: MIT */
/* npu-smi's parts: npu_smi.c (the reports), npu_smi_cdi.c (CDI specs). */
#ifndef NPU_SMI_H
#define NPU_SMI_H

#include <stddef.h>
#include <stdint.h>

int npu_smi_device_file(uint32_t d, char *buf, size_t len);
int npu_smi_cdi(int argc, char **argv);

#endif /* NPU_SMI_H */
