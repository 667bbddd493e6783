// SPDX-License-Identifier: MIT
/* MEMORY ioctl: HBM allocations, host-memory (userptr) mappings, NIC registrations. */
#include <errno.h>

#include "hlthunk_internal.h"

static int memory_ioctl(int fd, union gaudisim_mem_args *args)
{
	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_MEMORY, args);
}

/* The handle / address calls answer 0 on failure, with errno set. */
static uint64_t fail(int rc)
{
	errno = -rc;
	return 0;
}

uint64_t hlthunk_device_memory_alloc(int fd, uint64_t size, uint64_t page_size,
				     bool contiguous, bool shared)
{
	union gaudisim_mem_args args = { 0 };
	int rc;

	/* The driver has no shared allocations to offer. */
	if (shared)
		return fail(-EOPNOTSUPP);
	args.in.op = GAUDISIM_MEM_OP_ALLOC;
	args.in.flags = contiguous ? GAUDISIM_MEM_CONTIGUOUS : 0;
	args.in.alloc.mem_size = size;
	args.in.alloc.page_size = page_size;
	rc = memory_ioctl(fd, &args);
	if (rc)
		return fail(rc);
	/* Handles start at 1, so 0 can mean failure. */
	return args.out.handle;
}

int hlthunk_device_memory_free(int fd, uint64_t handle)
{
	union gaudisim_mem_args args = { 0 };

	args.in.op = GAUDISIM_MEM_OP_FREE;
	args.in.free.handle = handle;
	return memory_ioctl(fd, &args);
}

uint64_t hlthunk_device_memory_map(int fd, uint64_t handle, uint64_t hint_addr)
{
	union gaudisim_mem_args args = { 0 };
	int rc;

	args.in.op = GAUDISIM_MEM_OP_MAP;
	args.in.map_device.handle = handle;
	args.in.map_device.hint_addr = hint_addr;
	rc = memory_ioctl(fd, &args);
	return rc ? fail(rc) : args.out.device_virt_addr;
}

uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr, uint64_t hint_addr,
				 uint64_t host_size)
{
	union gaudisim_mem_args args = { 0 };
	int rc;

	args.in.op = GAUDISIM_MEM_OP_MAP;
	args.in.flags = GAUDISIM_MEM_USERPTR;
	args.in.map_host.host_virt_addr = hlthunk_ptr_to_u64(host_virt_addr);
	args.in.map_host.hint_addr = hint_addr;
	args.in.map_host.mem_size = host_size;
	rc = memory_ioctl(fd, &args);
	return rc ? fail(rc) : args.out.device_virt_addr;
}

int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr)
{
	union gaudisim_mem_args args = { 0 };

	args.in.op = GAUDISIM_MEM_OP_UNMAP;
	args.in.unmap.device_virt_addr = device_virt_addr;
	return memory_ioctl(fd, &args);
}

int hlthunk_nic_register(int fd, uint64_t device_addr, uint64_t size, uint32_t sob_first,
			 uint32_t sob_count, uint64_t *handle)
{
	union gaudisim_mem_args args = { 0 };
	int rc;

	if (!handle || (!size && !sob_count))
		return -EINVAL;
	args.in.op = GAUDISIM_MEM_OP_NIC_REGISTER;
	args.in.nic_register.device_addr = device_addr;
	args.in.nic_register.size = size;
	args.in.nic_register.sob_first = sob_first;
	args.in.nic_register.sob_count = sob_count;
	rc = memory_ioctl(fd, &args);
	if (rc)
		return rc;
	*handle = args.out.handle;
	return 0;
}

int hlthunk_nic_deregister(int fd, uint64_t handle)
{
	union gaudisim_mem_args args = { 0 };

	if (!handle)
		return -EINVAL;
	args.in.op = GAUDISIM_MEM_OP_NIC_DEREGISTER;
	args.in.nic_deregister.handle = handle;
	return memory_ioctl(fd, &args);
}
