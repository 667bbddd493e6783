// SPDX-License-Identifier: MIT
/* MEMORY ioctl: HBM allocations and host-memory (userptr) mappings. */
#include <errno.h>

#include "hlthunk_internal.h"

static int memory_ioctl(int fd, union gaudisim_mem_args *args)
{
	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_MEMORY, args);
}

int hlthunk_device_memory_alloc(int fd, uint64_t size, uint64_t *handle)
{
	union gaudisim_mem_args args = { 0 };
	int rc;

	if (!handle)
		return -EINVAL;
	args.in.op = GAUDISIM_MEM_OP_ALLOC;
	args.in.alloc.mem_size = size;
	rc = memory_ioctl(fd, &args);
	if (!rc)
		*handle = args.out.handle;
	return rc;
}

int hlthunk_device_memory_free(int fd, uint64_t handle)
{
	union gaudisim_mem_args args = { 0 };

	args.in.op = GAUDISIM_MEM_OP_FREE;
	args.in.free.handle = handle;
	return memory_ioctl(fd, &args);
}

int hlthunk_device_memory_map(int fd, uint64_t handle, uint64_t *device_addr)
{
	union gaudisim_mem_args args = { 0 };
	int rc;

	if (!device_addr)
		return -EINVAL;
	args.in.op = GAUDISIM_MEM_OP_MAP;
	args.in.map_device.handle = handle;
	rc = memory_ioctl(fd, &args);
	if (!rc)
		*device_addr = args.out.device_virt_addr;
	return rc;
}

int hlthunk_host_memory_map(int fd, void *ptr, uint64_t size, uint64_t *device_va)
{
	union gaudisim_mem_args args = { 0 };
	int rc;

	if (!device_va)
		return -EINVAL;
	args.in.op = GAUDISIM_MEM_OP_MAP;
	args.in.flags = GAUDISIM_MEM_USERPTR;
	args.in.map_host.host_virt_addr = hlthunk_ptr_to_u64(ptr);
	args.in.map_host.mem_size = size;
	rc = memory_ioctl(fd, &args);
	if (!rc)
		*device_va = args.out.device_virt_addr;
	return rc;
}

int hlthunk_memory_unmap(int fd, uint64_t device_va)
{
	union gaudisim_mem_args args = { 0 };

	args.in.op = GAUDISIM_MEM_OP_UNMAP;
	args.in.unmap.device_virt_addr = device_va;
	return memory_ioctl(fd, &args);
}
