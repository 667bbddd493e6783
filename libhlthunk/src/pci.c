// SPDX-License-Identifier: MIT
/* PCI addresses and sysfs look-ups: how an accel node maps to its PCI device. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hw/gaudisim_hw_regs.h"
#include "pci.h"

#define PCI_MAX_BUS	0xffu
#define PCI_MAX_DEV	0x1fu
#define PCI_MAX_FN	0x7u

static int addr_in_range(const struct hlthunk_pci_addr *addr)
{
	return addr->bus <= PCI_MAX_BUS && addr->dev <= PCI_MAX_DEV &&
	       addr->fn <= PCI_MAX_FN;
}

int hlthunk_pci_addr_parse(const char *text, struct hlthunk_pci_addr *addr)
{
	struct hlthunk_pci_addr a = { 0 };
	int end = -1;

	if (!text || !addr)
		return -EINVAL;
	/* sscanf would also take blanks, signs and 0x prefixes: allow only digits. */
	if (text[strspn(text, "0123456789abcdefABCDEF:.")] != '\0')
		return -EINVAL;
	/* %n only lands when the whole pattern matched; it must end the text. */
	if (sscanf(text, "%x:%x:%x.%x%n", &a.domain, &a.bus, &a.dev, &a.fn, &end) == 4 &&
	    end > 0 && text[end] == '\0' && addr_in_range(&a)) {
		*addr = a;
		return 0;
	}
	a.domain = 0;
	end = -1;
	if (sscanf(text, "%x:%x.%x%n", &a.bus, &a.dev, &a.fn, &end) == 3 &&
	    end > 0 && text[end] == '\0' && addr_in_range(&a)) {
		*addr = a;
		return 0;
	}
	return -EINVAL;
}

int hlthunk_pci_addr_format(const struct hlthunk_pci_addr *addr, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%04x:%02x:%02x.%x", addr->domain, addr->bus,
			 addr->dev, addr->fn);

	if (n < 0 || (size_t)n >= len)
		return -ERANGE;
	return 0;
}

int hlthunk_sysfs_node_pci_addr(const char *node_dir, struct hlthunk_pci_addr *addr)
{
	char link[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	if (snprintf(link, sizeof(link), "%s/device", node_dir) >= (int)sizeof(link))
		return -ENAMETOOLONG;
	/* The device symlink ends in the PCI function's name, e.g. 0000:00:03.0. */
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	return hlthunk_pci_addr_parse(base, addr) ? -ENODEV : 0;
}

static int read_hex_attr(const char *node_dir, const char *attr, unsigned int *value)
{
	char path[PATH_MAX];
	FILE *f;
	int ok;

	if (snprintf(path, sizeof(path), "%s/device/%s", node_dir, attr) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%x", value) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

int hlthunk_sysfs_node_is_gaudisim(const char *node_dir)
{
	unsigned int vendor, device;
	int rc;

	rc = read_hex_attr(node_dir, "vendor", &vendor);
	if (!rc)
		rc = read_hex_attr(node_dir, "device", &device);
	if (rc)
		return rc;
	return vendor == GAUDISIM_PCI_VENDOR_ID && device == GAUDISIM_PCI_DEVICE_ID;
}

int hlthunk_sysfs_node_of_fd(int fd, char *buf, size_t len)
{
	struct stat st;
	int n;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	n = snprintf(buf, len, "/sys/dev/char/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (n < 0 || (size_t)n >= len)
		return -ERANGE;
	return 0;
}
