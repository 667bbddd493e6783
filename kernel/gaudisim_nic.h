/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NIC ports: what peers may write on this device, and their link state.
 */
#ifndef __GAUDISIM_NIC_H__
#define __GAUDISIM_NIC_H__

#include <linux/types.h>

struct gaudisim_device;
struct gaudisim_info_nic_links;

/* Open every port's receive window and SOB range to the user's; after reset too. */
void gaudisim_nic_hw_init(struct gaudisim_device *gdev);
/* INFO NIC_LINKS; the caller is inside drm_dev_enter(). */
void gaudisim_nic_info(struct gaudisim_device *gdev, struct gaudisim_info_nic_links *links);

#endif /* __GAUDISIM_NIC_H__ */
