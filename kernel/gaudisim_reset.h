/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device reset: abort the work in flight, bring the queues back, tell user
 * space (uevent, notifiers).
 */
#ifndef __GAUDISIM_RESET_H__
#define __GAUDISIM_RESET_H__

struct gaudisim_device;
struct work_struct;

int gaudisim_device_hard_reset(struct gaudisim_device *gdev, const char *reason);
void gaudisim_device_stop(struct gaudisim_device *gdev);
void gaudisim_reset_work(struct work_struct *work);
void gaudisim_request_reset(struct gaudisim_device *gdev, const char *reason);

#endif /* __GAUDISIM_RESET_H__ */
