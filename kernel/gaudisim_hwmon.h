/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwmon channels of the device's telemetry (temperature, power, energy).
 */
#ifndef __GAUDISIM_HWMON_H__
#define __GAUDISIM_HWMON_H__

struct gaudisim_device;

/* Register the hwmon device; device-managed, so it goes after remove. */
int gaudisim_hwmon_init(struct gaudisim_device *gdev);

#endif /* __GAUDISIM_HWMON_H__ */
