/* SPDX-License-Identifier: MIT */
/* PCI addresses and sysfs look-ups behind device enumeration; not installed. */
#ifndef HLTHUNK_PCI_H
#define HLTHUNK_PCI_H

#include <stddef.h>

/* Shared between the library's files but not exported from the .so. */
#define HLTHUNK_HIDDEN __attribute__((visibility("hidden")))

struct hlthunk_pci_addr {
	unsigned int domain;
	unsigned int bus;
	unsigned int dev;
	unsigned int fn;
};

/* Parse "BB:DD.F" (domain 0) or "DDDD:BB:DD.F"; 0 or -EINVAL. */
HLTHUNK_HIDDEN int hlthunk_pci_addr_parse(const char *text, struct hlthunk_pci_addr *addr);

/* Format as "DDDD:BB:DD.F"; 0 or -ERANGE when len is too small. */
HLTHUNK_HIDDEN int hlthunk_pci_addr_format(const struct hlthunk_pci_addr *addr, char *buf, size_t len);

/*
 * PCI address of the device a sysfs node (a directory with a "device"
 * symlink) belongs to. 0 or -errno.
 */
HLTHUNK_HIDDEN int hlthunk_sysfs_node_pci_addr(const char *node_dir, struct hlthunk_pci_addr *addr);

/* 1 when the sysfs node's PCI device is a gaudisim, 0 when not, -errno on failure. */
HLTHUNK_HIDDEN int hlthunk_sysfs_node_is_gaudisim(const char *node_dir);

/* sysfs directory (/sys/dev/char/MAJ:MIN) of the character device behind fd. */
HLTHUNK_HIDDEN int hlthunk_sysfs_node_of_fd(int fd, char *buf, size_t len);

#endif /* HLTHUNK_PCI_H */
