/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs-named sysfs attributes of the PCI device.
 */
#ifndef __GAUDISIM_SYSFS_H__
#define __GAUDISIM_SYSFS_H__

struct attribute_group;

/* The PCI driver's dev_groups: habanalabs-named device attributes. */
extern const struct attribute_group *gsim_dev_groups[];

/* habanalabs' text for an enum gaudisim_device_status value. */
const char *gsim_status_name(int status);

#endif /* __GAUDISIM_SYSFS_H__ */
