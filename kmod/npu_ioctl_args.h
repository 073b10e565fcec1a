/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The argument of every ioctl command, as one union: the command table
 * (npu_ioctl.c) copies a caller's argument into it, and the fuzz harness
 * builds its calls in it. Only the uapi is included, so that userspace
 * test code can include it too.
 */
#ifndef _NPU_IOCTL_ARGS_H
#define _NPU_IOCTL_ARGS_H

#include <npu/npu_uapi.h>

#define NPU_IOCTL_ARGS_SIZE	128

union npu_ioctl_args {
	struct npu_version version;
	struct npu_device_info device_info;
	struct npu_ctx_setup ctx_setup;
	struct npu_mem_alloc mem_alloc;
	struct npu_mem_free mem_free;
	struct npu_mem_query mem_query;
	struct npu_mem_info mem_info;
	struct npu_ring_create ring_create;
	struct npu_ring_destroy ring_destroy;
	struct npu_ring_enter ring_enter;
	struct npu_nop nop;
	struct npu_ring_stats ring_stats;
	struct npu_ring_abort ring_abort;
	struct npu_host_register host_register;
	struct npu_host_unregister host_unregister;
	struct npu_peer peer;
	struct npu_ipc_export ipc_export;
	struct npu_share_set_pid share_set_pid;
	struct npu_ipc_import ipc_import;
	struct npu_ipc_unimport ipc_unimport;
	struct npu_ipc_destroy ipc_destroy;
	struct npu_phys_alloc phys_alloc;
	struct npu_phys_free phys_free;
	struct npu_phys_retain phys_retain;
	struct npu_phys_info phys_info;
	struct npu_phys_peer phys_peer;
	struct npu_vmm_reserve vmm_reserve;
	struct npu_vmm_release vmm_release;
	struct npu_vmm_map vmm_map;
	struct npu_vmm_unmap vmm_unmap;
	struct npu_vmm_access vmm_access;
	struct npu_share_export share_export;
	struct npu_share_import share_import;
	struct npu_smi_query smi_query;
	/* Room for any command's argument: no _IOC_SIZE of the uapi is larger. */
	__u8 bytes[NPU_IOCTL_ARGS_SIZE];
};

#endif /* _NPU_IOCTL_ARGS_H */
