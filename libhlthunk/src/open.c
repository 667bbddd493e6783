// SPDX-License-Identifier: MIT
/* Opening device nodes and enumerating gaudisim devices through sysfs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "hlthunk_internal.h"
#include "pci.h"

static int open_node(const char *fmt, int index)
{
	char path[64];
	int fd;

	if (index < 0 || index >= HLTHUNK_MAX_MINOR)
		return -EINVAL;
	snprintf(path, sizeof(path), fmt, index);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The compute node is a DRM file: its driver name tells whose it is. */
static int check_driver_name(int fd)
{
	drmVersionPtr version;
	int rc;

	errno = 0;
	version = drmGetVersion(fd);
	if (!version)
		return errno ? -errno : -ENODEV;
	rc = version->name && !strcmp(version->name, GAUDISIM_DRIVER_NAME) ? 0 : -ENODEV;
	drmFreeVersion(version);
	return rc;
}

int hlthunk_open_by_index(int index)
{
	int fd = open_node(HLTHUNK_DEV_NAME_PRIMARY, index);
	int rc;

	if (fd < 0)
		return fd;
	rc = check_driver_name(fd);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

static int open_control_index(int index)
{
	char node[64];
	int fd = open_node(HLTHUNK_DEV_NAME_CONTROL, index);
	int rc;

	if (fd < 0)
		return fd;
	/* The control node serves INFO only, so identify it by its PCI IDs. */
	rc = hlthunk_sysfs_node_of_fd(fd, node, sizeof(node));
	if (!rc) {
		rc = hlthunk_sysfs_node_is_gaudisim(node);
		rc = rc == 1 ? 0 : rc == 0 ? -ENODEV : rc;
	}
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

int hlthunk_close(int fd)
{
	return close(fd) ? -errno : 0;
}

/* Index N of a sysfs entry named exactly "accel<N>", or -1. */
static int accel_entry_index(const char *name)
{
	int index, end = -1;

	if (sscanf(name, "accel%d%n", &index, &end) != 1 || end < 0 || name[end] != '\0')
		return -1;
	if (index < 0 || index >= HLTHUNK_MAX_MINOR)
		return -1;
	return index;
}

static void sysfs_accel_dir(int index, char *buf, size_t len)
{
	snprintf(buf, len, HLTHUNK_SYSFS_ACCEL_CLASS "/accel%d", index);
}

int hlthunk_list_devices(int *indices, int max)
{
	unsigned char present[HLTHUNK_MAX_MINOR] = { 0 };
	struct dirent *entry;
	DIR *dir;
	int index, count = 0;

	dir = opendir(HLTHUNK_SYSFS_ACCEL_CLASS);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((entry = readdir(dir))) {
		char node[PATH_MAX];

		index = accel_entry_index(entry->d_name);
		if (index < 0)
			continue;
		sysfs_accel_dir(index, node, sizeof(node));
		if (hlthunk_sysfs_node_is_gaudisim(node) == 1)
			present[index] = 1;
	}
	closedir(dir);
	/* readdir order is arbitrary; report ascending minors. */
	for (index = 0; index < HLTHUNK_MAX_MINOR; index++) {
		if (!present[index])
			continue;
		if (indices && count < max)
			indices[count] = index;
		count++;
	}
	return count;
}

/* Every gaudisim device is a Gaudi; other names match none. */
static bool name_matches(enum hlthunk_device_name device_name)
{
	return device_name == HLTHUNK_DEVICE_DONT_CARE || device_name == HLTHUNK_DEVICE_GAUDI;
}

int hlthunk_get_device_count(enum hlthunk_device_name device_name)
{
	if ((unsigned int)device_name >= HLTHUNK_DEVICE_MAX)
		return -EINVAL;
	return name_matches(device_name) ? hlthunk_list_devices(NULL, 0) : 0;
}

int hlthunk_parse_pci_bus_id(const char *busid, char *normalized, size_t len)
{
	struct hlthunk_pci_addr addr;

	if (hlthunk_pci_addr_parse(busid, &addr))
		return -EINVAL;
	return normalized ? hlthunk_pci_addr_format(&addr, normalized, len) : 0;
}

int hlthunk_get_device_index_from_pci_bus_id(const char *busid)
{
	int indices[HLTHUNK_MAX_MINOR];
	struct hlthunk_pci_addr want, have;
	int i, n;

	if (hlthunk_pci_addr_parse(busid, &want))
		return -EINVAL;
	n = hlthunk_list_devices(indices, HLTHUNK_MAX_MINOR);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < HLTHUNK_MAX_MINOR; i++) {
		char node[PATH_MAX];

		sysfs_accel_dir(indices[i], node, sizeof(node));
		if (hlthunk_sysfs_node_pci_addr(node, &have))
			continue;
		if (!memcmp(&have, &want, sizeof(want)))
			return indices[i];
	}
	return -ENODEV;
}

int hlthunk_open(enum hlthunk_device_name device_name, const char *busid)
{
	int indices[HLTHUNK_MAX_MINOR];
	int i, n, fd, rc = -ENODEV;

	if ((unsigned int)device_name >= HLTHUNK_DEVICE_MAX)
		return -EINVAL;
	if (!name_matches(device_name))
		return -ENODEV;
	if (busid) {
		int index = hlthunk_get_device_index_from_pci_bus_id(busid);

		return index < 0 ? index : hlthunk_open_by_index(index);
	}
	n = hlthunk_list_devices(indices, HLTHUNK_MAX_MINOR);
	if (n < 0)
		return n;
	/* The first one free: a held device answers -EBUSY, try the next. */
	for (i = 0; i < n && i < HLTHUNK_MAX_MINOR; i++) {
		fd = hlthunk_open_by_index(indices[i]);
		if (fd >= 0)
			return fd;
		if (rc == -ENODEV || fd == -EBUSY)
			rc = fd;
	}
	return rc;
}

int hlthunk_open_by_busid(const char *busid)
{
	if (!busid)
		return -EINVAL;
	return hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, busid);
}

int hlthunk_open_control(int dev_id, const char *busid)
{
	if (busid) {
		int index = hlthunk_get_device_index_from_pci_bus_id(busid);

		/* The accel core gives a device the same index on both nodes. */
		return index < 0 ? index : open_control_index(index);
	}
	return open_control_index(dev_id);
}

int hlthunk_open_control_by_bus_id(const char *busid)
{
	if (!busid)
		return -EINVAL;
	return hlthunk_open_control(0, busid);
}

int hlthunk_open_control_by_name(enum hlthunk_device_name device_name)
{
	int index;

	if ((unsigned int)device_name >= HLTHUNK_DEVICE_MAX)
		return -EINVAL;
	if (!name_matches(device_name) || hlthunk_list_devices(&index, 1) < 1)
		return -ENODEV;
	return open_control_index(index);
}

int hlthunk_get_pci_bus_id_from_fd(int fd, char *busid, int len)
{
	struct hlthunk_pci_addr addr;
	char node[64];
	int rc;

	if (!busid || len <= 0)
		return -EINVAL;
	rc = hlthunk_sysfs_node_of_fd(fd, node, sizeof(node));
	if (!rc)
		rc = hlthunk_sysfs_node_pci_addr(node, &addr);
	if (!rc)
		rc = hlthunk_pci_addr_format(&addr, busid, (size_t)len);
	return rc;
}
