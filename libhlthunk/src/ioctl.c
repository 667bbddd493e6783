// SPDX-License-Identifier: MIT
/* The one place where libhlthunk enters the kernel. */
#include <errno.h>

#include <xf86drm.h>

#include "hlthunk_internal.h"

const char *hlthunk_get_version(void)
{
	return HLTHUNK_LIB_VERSION;
}

int hlthunk_ioctl(int fd, unsigned long request, void *arg)
{
	/* drmIoctl retries EINTR and EAGAIN, so "queue full" becomes a retry. */
	if (drmIoctl(fd, request, arg) == -1)
		return -errno;
	return 0;
}
