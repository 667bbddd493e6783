// SPDX-License-Identifier: MIT
/*
 * Memory: HBM through the driver's MEMORY ioctl, pinned host memory
 * mapped into the device MMU, and the lookup that turns a host pointer
 * into the device VA a copy uses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device/device.h"

hlrt_status hlrt_device_malloc(hlrt_device *device, uint64_t size, uint64_t *device_addr)
{
	struct dev_alloc *a;
	int rc;

	if (!device || !device_addr || !size)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_device_malloc: bad argument");
	a = calloc(1, sizeof(*a));
	if (!a)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "hlrt_device_malloc");
	rc = device->be->ops->hbm_alloc(device->be, size, &a->handle, &a->addr);
	if (rc) {
		free(a);
		if (rc == -ENOMEM || rc == -ENOSPC)
			return hlrt_fail(HLRT_OUT_OF_DEVICE_MEMORY,
					 "out of device memory: %llu bytes requested",
					 (unsigned long long)size);
		return hlrt_fail_errno(rc, "allocating device memory");
	}
	a->size = size;
	a->next = device->allocs;
	device->allocs = a;
	*device_addr = a->addr;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_device_free(hlrt_device *device, uint64_t device_addr)
{
	struct dev_alloc **pp, *a;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_device_free: NULL device");
	for (pp = &device->allocs; (a = *pp); pp = &a->next) {
		if (a->addr != device_addr)
			continue;
		*pp = a->next;
		device->be->ops->hbm_free(device->be, a->handle);
		free(a);
		return HLRT_SUCCESS;
	}
	return hlrt_fail(HLRT_INVALID_ARGUMENT, "0x%llx is not a device allocation",
			 (unsigned long long)device_addr);
}

hlrt_status hlrt_device_nic_register(hlrt_device *dev, uint64_t addr, uint64_t size,
				     uint32_t sob_first, uint32_t sob_count, uint64_t *handle)
{
	int rc = dev->be->ops->nic_register(dev->be, addr, size, sob_first, sob_count, handle);

	if (rc)
		return hlrt_fail_errno(rc, "registering device memory and sync objects for NIC peers");
	return HLRT_SUCCESS;
}

void hlrt_device_nic_deregister(hlrt_device *dev, uint64_t handle)
{
	dev->be->ops->nic_deregister(dev->be, handle);
}

hlrt_status hlrt_host_malloc(hlrt_device *device, size_t size, void **ptr)
{
	long page = sysconf(_SC_PAGESIZE);
	struct host_alloc *h;
	uint64_t bytes;
	void *p;
	int rc;

	if (!device || !ptr || !size)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_host_malloc: bad argument");
	bytes = hlrt_align_up(size, (uint64_t)page);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		 -1, 0);
	if (p == MAP_FAILED)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "hlrt_host_malloc: %zu bytes", size);
	h = calloc(1, sizeof(*h));
	if (!h) {
		munmap(p, bytes);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "hlrt_host_malloc");
	}
	rc = device->be->ops->host_map(device->be, p, bytes, &h->va);
	if (rc) {
		munmap(p, bytes);
		free(h);
		return hlrt_fail_errno(rc, "mapping host memory for the device");
	}
	h->ptr = p;
	h->size = bytes;
	h->next = device->host_allocs;
	device->host_allocs = h;
	*ptr = p;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_host_free(hlrt_device *device, void *ptr)
{
	struct host_alloc **pp, *h;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_host_free: NULL device");
	for (pp = &device->host_allocs; (h = *pp); pp = &h->next) {
		if (h->ptr != ptr)
			continue;
		*pp = h->next;
		device->be->ops->host_unmap(device->be, h->va);
		munmap(h->ptr, h->size);
		free(h);
		return HLRT_SUCCESS;
	}
	return hlrt_fail(HLRT_INVALID_ARGUMENT, "%p is not hlrt_host_malloc memory", ptr);
}

hlrt_status hlrt_host_va(hlrt_device *dev, const void *ptr, uint64_t size, uint64_t *va)
{
	const uint8_t *p = ptr;
	struct host_alloc *h;

	for (h = dev->host_allocs; h; h = h->next) {
		const uint8_t *b = h->ptr;

		if (p >= b && p + size <= b + h->size && p + size >= p) {
			*va = h->va + (uint64_t)(p - b);
			return HLRT_SUCCESS;
		}
	}
	return HLRT_NOT_FOUND;
}

void hlrt_memory_release_all(hlrt_device *dev)
{
	while (dev->allocs)
		hlrt_device_free(dev, dev->allocs->addr);
	while (dev->host_allocs)
		hlrt_host_free(dev, dev->host_allocs->ptr);
}
