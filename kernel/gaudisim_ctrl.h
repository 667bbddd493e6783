/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control node /dev/accel/accel_controlDN: INFO only, any number of
 * opens.
 */
#ifndef __GAUDISIM_CTRL_H__
#define __GAUDISIM_CTRL_H__

struct gaudisim_device;

int gaudisim_ctrl_module_init(void);
void gaudisim_ctrl_module_exit(void);
int gaudisim_ctrl_init(struct gaudisim_device *gdev);
void gaudisim_ctrl_fini(struct gaudisim_device *gdev);

#endif /* __GAUDISIM_CTRL_H__ */
