// SPDX-License-Identifier: MIT
/*
 * hl-thunk's debugfs helpers over the driver's addr / data32 files: the
 * accel core names a device's debugfs folder after its PCI function.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlthunk_internal.h"

#define HLTHUNK_DEBUGFS_ROOT	"/sys/kernel/debug/accel"

static int open_file(const char *dir, const char *name)
{
	char path[128];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int hlthunk_debugfs_open(int fd, struct hlthunk_debugfs *debugfs)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN], dir[96];
	int rc;

	if (!debugfs)
		return -EINVAL;
	rc = hlthunk_get_pci_bus_id_from_fd(fd, busid, sizeof(busid));
	if (rc)
		return rc;
	snprintf(dir, sizeof(dir), HLTHUNK_DEBUGFS_ROOT "/%s", busid);
	memset(debugfs, 0, sizeof(*debugfs));
	debugfs->clk_gate_fd = -1;
	debugfs->addr_fd = open_file(dir, "addr");
	if (debugfs->addr_fd < 0) {
		rc = debugfs->addr_fd;
		debugfs->addr_fd = debugfs->data_fd = -1;
		return rc;
	}
	debugfs->data_fd = open_file(dir, "data32");
	if (debugfs->data_fd < 0) {
		rc = debugfs->data_fd;
		close(debugfs->addr_fd);
		debugfs->addr_fd = debugfs->data_fd = -1;
		return rc;
	}
	return 0;
}

/* The files are not seekable; a write takes the whole text whatever the position. */
static int write_text(int fd, const char *text)
{
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int set_addr(struct hlthunk_debugfs *debugfs, uint64_t full_address)
{
	char text[24];

	snprintf(text, sizeof(text), "0x%" PRIx64, full_address);
	return write_text(debugfs->addr_fd, text);
}

int hlthunk_debugfs_read(struct hlthunk_debugfs *debugfs, uint64_t full_address, uint32_t *val)
{
	char text[32], path[40], *end;
	unsigned long long v;
	ssize_t n;
	int rc, fd;

	if (!debugfs || !val || debugfs->addr_fd < 0 || debugfs->data_fd < 0)
		return -EINVAL;
	rc = set_addr(debugfs, full_address);
	if (rc)
		return rc;
	/*
	 * The value is fetched when a file is read from its start, and the
	 * files cannot seek: read through a fresh open of the same file.
	 */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", debugfs->data_fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	rc = n < 0 ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	text[n] = '\0';
	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text || v > UINT32_MAX)
		return -EIO;
	*val = (uint32_t)v;
	return 0;
}

int hlthunk_debugfs_write(struct hlthunk_debugfs *debugfs, uint64_t full_address, uint32_t val)
{
	char text[16];
	int rc;

	if (!debugfs || debugfs->addr_fd < 0 || debugfs->data_fd < 0)
		return -EINVAL;
	rc = set_addr(debugfs, full_address);
	if (rc)
		return rc;
	snprintf(text, sizeof(text), "0x%" PRIx32, val);
	return write_text(debugfs->data_fd, text);
}

int hlthunk_debugfs_close(struct hlthunk_debugfs *debugfs)
{
	int rc = 0;

	if (!debugfs)
		return -EINVAL;
	if (debugfs->data_fd >= 0 && close(debugfs->data_fd))
		rc = -errno;
	if (debugfs->addr_fd >= 0 && close(debugfs->addr_fd) && !rc)
		rc = -errno;
	if (debugfs->clk_gate_fd >= 0 && close(debugfs->clk_gate_fd) && !rc)
		rc = -errno;
	debugfs->addr_fd = debugfs->data_fd = debugfs->clk_gate_fd = -1;
	return rc;
}
