// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The table of the driver's device instances.
 *
 * Module init (npu_drv.c) creates the devices and pushes each here in
 * index order; module exit pops them. Everything else names a device by
 * index (a peer, a memory location, the device count of DEVICE_INFO) and
 * looks it up here, so the files that do need not call up into the
 * module's own file.
 */
#include "npu_internal.h"
#include "npu_dev.h"

/* Written only by module init and exit, which no open file overlaps. */
static struct npu_device *npu_devices[NPU_MAX_DEVICES];
static unsigned int npu_nr_devices;

/**
 * npu_dev_push() - add the device with the next index
 * @ndev: the device; its index is npu_dev_count() before the call
 */
void npu_dev_push(struct npu_device *ndev)
{
	if (WARN_ON(npu_nr_devices >= NPU_MAX_DEVICES))
		return;
	npu_devices[npu_nr_devices++] = ndev;
}

/**
 * npu_dev_pop() - take the device with the highest index out of the table
 *
 * Return: the device, or NULL when the table is empty.
 */
struct npu_device *npu_dev_pop(void)
{
	return npu_nr_devices ? npu_devices[--npu_nr_devices] : NULL;
}

/**
 * npu_dev_count() - devices of this driver instance
 *
 * Return: the number of devices created at module init.
 */
unsigned int npu_dev_count(void)
{
	return npu_nr_devices;
}

/**
 * npu_dev_get() - a device of this driver instance
 * @index: its index
 *
 * Return: the device, or NULL if @index is out of range. Devices live
 * until module exit, which no open file survives.
 */
struct npu_device *npu_dev_get(unsigned int index)
{
	return index < npu_nr_devices ? npu_devices[index] : NULL;
}
