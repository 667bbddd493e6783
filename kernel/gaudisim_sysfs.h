/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs-named sysfs attributes of the PCI device.
 */
#ifndef __GAUDISIM_SYSFS_H__
#define __GAUDISIM_SYSFS_H__

struct attribute_group;
struct gaudisim_device;

/* The PCI driver's dev_groups: habanalabs-named device attributes. */
extern const struct attribute_group *gaudisim_dev_groups[];

/* The accel and control char nodes' attributes (pci_addr). */
extern const struct attribute_group *gaudisim_node_groups[];
int gaudisim_sysfs_accel_node_init(struct gaudisim_device *gdev);

/* habanalabs' text for an enum gaudisim_device_status value. */
const char *gaudisim_status_name(int status);

#endif /* __GAUDISIM_SYSFS_H__ */
