// SPDX-License-Identifier: MIT
/* The one place where libhlthunk enters the kernel. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "hlthunk_internal.h"

void *hlthunk_malloc(size_t size)
{
	return malloc(size);
}

void hlthunk_free(void *pt)
{
	free(pt);
}

char *hlthunk_get_version(void)
{
	/* hl-thunk hands out a copy the caller frees with hlthunk_free. */
	return strdup(HLTHUNK_LIB_VERSION);
}

int hlthunk_ioctl(int fd, unsigned long request, void *arg)
{
	/* drmIoctl retries EINTR and EAGAIN, so "queue full" becomes a retry. */
	if (drmIoctl(fd, request, arg) == -1)
		return -errno;
	return 0;
}
