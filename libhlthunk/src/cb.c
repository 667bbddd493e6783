// SPDX-License-Identifier: MIT
/* CB ioctl: command buffers in host memory, and mapping them to write packets. */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>

#include "hlthunk_internal.h"

static int cb_ioctl(int fd, union gaudisim_cb_args *args)
{
	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CB, args);
}

int hlthunk_request_command_buffer(int fd, uint32_t size, uint64_t *handle)
{
	union gaudisim_cb_args args = { 0 };
	int rc;

	if (!handle)
		return -EINVAL;
	args.in.op = GAUDISIM_CB_OP_CREATE;
	args.in.cb_size = size;
	rc = cb_ioctl(fd, &args);
	if (!rc)
		*handle = args.out.cb_handle;
	return rc;
}

int hlthunk_destroy_command_buffer(int fd, uint64_t handle)
{
	union gaudisim_cb_args args = { 0 };

	args.in.op = GAUDISIM_CB_OP_DESTROY;
	args.in.cb_handle = handle;
	return cb_ioctl(fd, &args);
}

int hlthunk_get_cb_info(int fd, uint64_t handle, uint32_t *usage_cnt, uint32_t *size)
{
	union gaudisim_cb_args args = { 0 };
	int rc;

	args.in.op = GAUDISIM_CB_OP_INFO;
	args.in.cb_handle = handle;
	rc = cb_ioctl(fd, &args);
	if (rc)
		return rc;
	if (usage_cnt)
		*usage_cnt = args.out.usage_cnt;
	if (size)
		*size = args.out.size;
	return 0;
}

int hlthunk_get_cb_usage_count(int fd, uint64_t cb_handle, uint32_t *usage_cnt)
{
	if (!usage_cnt)
		return -EINVAL;
	return hlthunk_get_cb_info(fd, cb_handle, usage_cnt, NULL);
}

void *hlthunk_cb_mmap(int fd, uint64_t handle, uint32_t size)
{
	void *cb;

	if (!size || handle > (uint64_t)INT64_MAX) {
		errno = EINVAL;
		return NULL;
	}
	/* The CB handle is the mmap offset. */
	cb = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)handle);
	return cb == MAP_FAILED ? NULL : cb;
}

int hlthunk_cb_munmap(void *cb, uint32_t size)
{
	return munmap(cb, size) ? -errno : 0;
}
