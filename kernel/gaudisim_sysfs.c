// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs attributes of the PCI device, with habanalabs' names, so tools
 * written for /sys/class/accel/accelN/device/ find what they expect.
 *
 * The attributes are the PCI driver's dev_groups: the driver core adds
 * them after probe and removes them before remove, so a handler always
 * sees a fully set-up device.
 */

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/pci.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include <hw/gaudisim_hw_telemetry.h>

#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
#include "gaudisim_reset.h"
#include "gaudisim_sysfs.h"

static struct gaudisim_device *gaudisim_from_dev(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

static u32 gaudisim_tel_reg(u32 reg)
{
	return GAUDISIM_BLOCK_TELEMETRY + reg;
}

/* Read a telemetry register, or -ENODEV once the device is unplugged. */
static int gaudisim_sysfs_read_tel(struct gaudisim_device *gdev, u32 reg, u32 *value)
{
	int idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	*value = gaudisim_rreg(gdev, gaudisim_tel_reg(reg));
	drm_dev_exit(idx);
	return 0;
}

static ssize_t gaudisim_show_tel(struct device *dev, char *buf, u32 reg)
{
	u32 value;
	int rc;

	rc = gaudisim_sysfs_read_tel(gaudisim_from_dev(dev), reg, &value);
	if (rc)
		return rc;
	return sysfs_emit(buf, "%u\n", value);
}

/*
 * Write a telemetry limit after checking it against [@min, @max]; the
 * device refuses out-of-range writes silently, so the driver answers them.
 */
static ssize_t gaudisim_store_tel(struct device *dev, const char *buf, size_t count,
				  u32 reg, u32 min, u32 max)
{
	struct gaudisim_device *gdev = gaudisim_from_dev(dev);
	u32 value;
	int rc, idx;

	rc = kstrtou32(buf, 0, &value);
	if (rc)
		return rc;
	if (value < min || value > max)
		return -ERANGE;
	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	gaudisim_wreg(gdev, gaudisim_tel_reg(reg), value);
	drm_dev_exit(idx);
	return count;
}

static ssize_t device_type_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	/* The ASIC family habanalabs reports for Gaudi-1. */
	return sysfs_emit(buf, "GAUDI\n");
}
static DEVICE_ATTR_RO(device_type);

static const char *const gaudisim_status_names[] = {
	[GAUDISIM_DEVICE_STATUS_OPERATIONAL] = "operational",
	[GAUDISIM_DEVICE_STATUS_IN_RESET] = "in reset",
	[GAUDISIM_DEVICE_STATUS_MALFUNCTION] = "disabled",
	[GAUDISIM_DEVICE_STATUS_NEEDS_RESET] = "needs reset",
	[GAUDISIM_DEVICE_STATUS_IN_DEVICE_CREATION] = "in device creation",
};

const char *gaudisim_status_name(int status)
{
	if (status < 0 || status >= ARRAY_SIZE(gaudisim_status_names) ||
	    !gaudisim_status_names[status])
		return "unknown";
	return gaudisim_status_names[status];
}

static ssize_t status_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  gaudisim_status_name(gaudisim_status(gaudisim_from_dev(dev))));
}
static DEVICE_ATTR_RO(status);

static ssize_t gaudisim_emit_pci_addr(struct pci_dev *pdev, char *buf)
{
	return sysfs_emit(buf, "%04x:%02x:%02x.%x\n", pci_domain_nr(pdev->bus),
			  pdev->bus->number, PCI_SLOT(pdev->devfn), PCI_FUNC(pdev->devfn));
}

static ssize_t pci_addr_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return gaudisim_emit_pci_addr(to_pci_dev(dev), buf);
}
static DEVICE_ATTR_RO(pci_addr);

/* The char nodes' pci_addr: their parent is the PCI device. */
static ssize_t node_pci_addr_show(struct device *dev, struct device_attribute *attr,
				  char *buf)
{
	return gaudisim_emit_pci_addr(to_pci_dev(dev->parent), buf);
}

static struct device_attribute dev_attr_node_pci_addr =
	__ATTR(pci_addr, 0444, node_pci_addr_show, NULL);

/* The power cap in mW, as habanalabs' max_power. */
static ssize_t max_power_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return gaudisim_show_tel(dev, buf, GAUDISIM_TEL_POWER_MAX_MW);
}

static ssize_t max_power_store(struct device *dev, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct gaudisim_device *gdev = gaudisim_from_dev(dev);
	u32 idle;
	int rc;

	rc = gaudisim_sysfs_read_tel(gdev, GAUDISIM_TEL_POWER_IDLE_MW, &idle);
	if (rc)
		return rc;
	return gaudisim_store_tel(dev, buf, count, GAUDISIM_TEL_POWER_MAX_MW, idle,
			      GAUDISIM_TEL_POWER_MAX_LIMIT_MW);
}
static DEVICE_ATTR_RW(max_power);

static ssize_t clk_max_freq_mhz_show(struct device *dev, struct device_attribute *attr,
				     char *buf)
{
	return gaudisim_show_tel(dev, buf, GAUDISIM_TEL_CLOCK_MAX_MHZ);
}

static ssize_t clk_max_freq_mhz_store(struct device *dev, struct device_attribute *attr,
				      const char *buf, size_t count)
{
	struct gaudisim_device *gdev = gaudisim_from_dev(dev);
	u32 min;
	int rc;

	rc = gaudisim_sysfs_read_tel(gdev, GAUDISIM_TEL_CLOCK_MIN_MHZ, &min);
	if (rc)
		return rc;
	return gaudisim_store_tel(dev, buf, count, GAUDISIM_TEL_CLOCK_MAX_MHZ, min,
			      GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
}
static DEVICE_ATTR_RW(clk_max_freq_mhz);

static ssize_t clk_cur_freq_mhz_show(struct device *dev, struct device_attribute *attr,
				     char *buf)
{
	return gaudisim_show_tel(dev, buf, GAUDISIM_TEL_CLOCK_MHZ);
}
static DEVICE_ATTR_RO(clk_cur_freq_mhz);

static ssize_t hard_reset_cnt_show(struct device *dev, struct device_attribute *attr,
				   char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&gaudisim_from_dev(dev)->hard_reset_cnt));
}
static DEVICE_ATTR_RO(hard_reset_cnt);

/* Gaudi has no soft reset: a soft-reset request is done as a hard one. */
static ssize_t soft_reset_cnt_show(struct device *dev, struct device_attribute *attr,
				   char *buf)
{
	return sysfs_emit(buf, "0\n");
}
static DEVICE_ATTR_RO(soft_reset_cnt);

/* The device's place in its box: the MODULE_ID register (property module-id). */
static ssize_t module_id_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", gaudisim_from_dev(dev)->module_id);
}
static DEVICE_ATTR_RO(module_id);

/* Write 1 to reset; anything else is refused, like habanalabs' value check. */
static ssize_t gaudisim_store_reset(struct device *dev, const char *buf, size_t count,
				    const char *reason)
{
	struct gaudisim_device *gdev = gaudisim_from_dev(dev);
	int rc, idx;
	u32 value;

	rc = kstrtou32(buf, 0, &value);
	if (rc)
		return rc;
	if (value != 1)
		return -EINVAL;
	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	rc = gaudisim_device_hard_reset(gdev, reason);
	drm_dev_exit(idx);
	return rc ? rc : count;
}

static ssize_t hard_reset_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	return gaudisim_store_reset(dev, buf, count, "hard reset requested through sysfs");
}
static DEVICE_ATTR_WO(hard_reset);

static ssize_t soft_reset_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	return gaudisim_store_reset(dev, buf, count,
				"soft reset requested through sysfs (done as hard reset)");
}
static DEVICE_ATTR_WO(soft_reset);

/*
 * Firmware versions, from the device's FW_VERSION register in the form
 * habanalabs' cpucp_version takes (armcp_ver is its older name).
 */
static ssize_t gaudisim_show_fw(struct device *dev, char *buf)
{
	int len = gaudisim_hw_fw_string(gaudisim_from_dev(dev), buf, PAGE_SIZE - 1);

	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t cpucp_ver_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return gaudisim_show_fw(dev, buf);
}
static DEVICE_ATTR_RO(cpucp_ver);

static ssize_t armcp_ver_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return gaudisim_show_fw(dev, buf);
}
static DEVICE_ATTR_RO(armcp_ver);

/* habanalabs prints the CPLD timestamp then its version; ours has no timestamp. */
static ssize_t cpld_ver_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "0x%08x%08x\n", 0, gaudisim_from_dev(dev)->cpld_version);
}
static DEVICE_ATTR_RO(cpld_ver);

/* Project-only: habanalabs keeps serial and UUID in its binary eeprom file. */
static ssize_t serial_number_show(struct device *dev, struct device_attribute *attr,
				  char *buf)
{
	return sysfs_emit(buf, "%s\n", gaudisim_from_dev(dev)->serial);
}
static DEVICE_ATTR_RO(serial_number);

static ssize_t uuid_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%pUb\n", gaudisim_from_dev(dev)->uuid);
}
static DEVICE_ATTR_RO(uuid);

static struct attribute *gaudisim_dev_attrs[] = {
	&dev_attr_device_type.attr,
	&dev_attr_status.attr,
	&dev_attr_pci_addr.attr,
	&dev_attr_max_power.attr,
	&dev_attr_clk_max_freq_mhz.attr,
	&dev_attr_clk_cur_freq_mhz.attr,
	&dev_attr_hard_reset_cnt.attr,
	&dev_attr_soft_reset_cnt.attr,
	&dev_attr_module_id.attr,
	&dev_attr_hard_reset.attr,
	&dev_attr_soft_reset.attr,
	&dev_attr_cpucp_ver.attr,
	&dev_attr_armcp_ver.attr,
	&dev_attr_cpld_ver.attr,
	&dev_attr_serial_number.attr,
	&dev_attr_uuid.attr,
	NULL,
};

static const struct attribute_group gaudisim_dev_group = {
	.attrs = gaudisim_dev_attrs,
};

const struct attribute_group *gaudisim_dev_groups[] = {
	&gaudisim_dev_group,
	NULL,
};

/*
 * hl-thunk finds a device's PCI address from an open fd through
 * /sys/dev/char/MAJ:MIN/pci_addr, so the accel and control nodes carry it.
 */
static struct attribute *gaudisim_node_attrs[] = {
	&dev_attr_node_pci_addr.attr,
	NULL,
};

static const struct attribute_group gaudisim_node_group = {
	.attrs = gaudisim_node_attrs,
};

const struct attribute_group *gaudisim_node_groups[] = {
	&gaudisim_node_group,
	NULL,
};

/* Add the node attributes to the registered accel node; device_del drops them. */
int gaudisim_sysfs_accel_node_init(struct gaudisim_device *gdev)
{
	return device_add_groups(gdev->drm.accel->kdev, gaudisim_node_groups);
}
