/*
 * Sharing benchmarks for npu-bench: medians in microseconds, or a negative
 * aclError when the step failed. The caller has set a device.
 */
#ifndef NPU_BENCH_SHARE_H
#define NPU_BENCH_SHARE_H

/* IPC import plus close of a 2 MiB allocation (same process, no whitelist). */
double bench_ipc_import_us(int iters);
/* aclrtMapMem plus aclrtUnmapMem of one 2 MiB physical handle. */
double bench_vmm_map_unmap_2m_us(int iters);

#endif /* NPU_BENCH_SHARE_H */
