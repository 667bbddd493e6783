/* SPDX-License-Identifier: MIT */
/*
 * hl-smi actions that change a device, through the driver's sysfs
 * attributes (root only): reset (-r) and the power cap (--power-max=W).
 */
#ifndef SMI_ACTIONS_H
#define SMI_ACTIONS_H

/* Hard-reset device index; returns 0 or -errno (the message is printed). */
int smi_reset_device(int index, const char *bus_id);

/* Set the power cap of device index to mw milliwatts; 0 or -errno (printed). */
int smi_set_power_max(int index, const char *bus_id, long long mw);

/*
 * Parse a power in watts ("300", "287.5") into milliwatts; -1 when it is
 * not a positive number with at most three decimals.
 */
long long smi_parse_watts(const char *text);

#endif /* SMI_ACTIONS_H */
