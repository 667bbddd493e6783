// SPDX-License-Identifier: GPL-2.0
/*
 * hwmon channels of the device's telemetry block, in standard units
 * (m°C, µW, µJ), so lm-sensors shows the card:
 *   temp1  die temperature: input, max (throttle point), crit, highest,
 *          max_alarm (the clock is throttled for heat), crit_alarm
 *   temp2  inlet (ambient) temperature of the thermal model
 *   power1 average power: input, input_highest, cap (rw), cap_min,
 *          cap_max, average_interval, cap_alarm (throttled for power)
 *   energy1 energy since power-on
 * The model has no voltage or current sensors, so there are no in or curr
 * channels. Writing reset_history clears both peaks (one device register).
 */

#include <linux/hwmon.h>
#include <linux/mutex.h>
#include <linux/pci.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include <hw/gaudisim_hw_telemetry.h>

#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
#include "gaudisim_hwmon.h"

/**
 * struct gaudisim_hwmon - hwmon state of one device
 * @gdev: the device
 * @energy_lock: one reader at a time of the LO/HI energy pair (reading LO
 *               latches HI for the next HI read)
 */
struct gaudisim_hwmon {
	struct gaudisim_device *gdev;
	/* Serialises LO/HI reads of the energy counter. */
	struct mutex energy_lock;
};

static u32 gaudisim_tel(struct gaudisim_device *gdev, u32 reg)
{
	return gaudisim_rreg(gdev, GAUDISIM_BLOCK_TELEMETRY + reg);
}

static u64 gaudisim_hwmon_energy_mj(struct gaudisim_hwmon *hw)
{
	u64 lo, hi;

	mutex_lock(&hw->energy_lock);
	lo = gaudisim_tel(hw->gdev, GAUDISIM_TEL_ENERGY_MJ_LO);
	hi = gaudisim_tel(hw->gdev, GAUDISIM_TEL_ENERGY_MJ_HI);
	mutex_unlock(&hw->energy_lock);
	return lo | hi << 32;
}

static int gaudisim_hwmon_read_temp(struct gaudisim_device *gdev, u32 attr, int channel,
				    long *val)
{
	u32 reg;

	if (channel == 1 && attr == hwmon_temp_input) {
		*val = gaudisim_tel(gdev, GAUDISIM_TEL_TEMP_AMBIENT_MC);
		return 0;
	}
	switch (attr) {
	case hwmon_temp_input:
		reg = GAUDISIM_TEL_TEMP_MC;
		break;
	case hwmon_temp_max:
		reg = GAUDISIM_TEL_TEMP_THROTTLE_MC;
		break;
	case hwmon_temp_crit:
		reg = GAUDISIM_TEL_TEMP_CRIT_MC;
		break;
	case hwmon_temp_highest:
		reg = GAUDISIM_TEL_TEMP_PEAK_MC;
		break;
	case hwmon_temp_max_alarm:
		*val = !!(gaudisim_tel(gdev,
				       GAUDISIM_TEL_THROTTLE) & GAUDISIM_TEL_THROTTLE_THERMAL);
		return 0;
	case hwmon_temp_crit_alarm:
		*val = gaudisim_tel(gdev, GAUDISIM_TEL_TEMP_MC) >=
		       gaudisim_tel(gdev, GAUDISIM_TEL_TEMP_CRIT_MC);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
	*val = gaudisim_tel(gdev, reg);
	return 0;
}

static int gaudisim_hwmon_read_power(struct gaudisim_device *gdev, u32 attr, long *val)
{
	switch (attr) {
	case hwmon_power_input:
		*val = (long)gaudisim_tel(gdev, GAUDISIM_TEL_POWER_MW) * 1000;
		return 0;
	case hwmon_power_input_highest:
		*val = (long)gaudisim_tel(gdev, GAUDISIM_TEL_POWER_PEAK_MW) * 1000;
		return 0;
	case hwmon_power_cap:
		*val = (long)gaudisim_tel(gdev, GAUDISIM_TEL_POWER_MAX_MW) * 1000;
		return 0;
	case hwmon_power_cap_min:
		*val = (long)gaudisim_tel(gdev, GAUDISIM_TEL_POWER_IDLE_MW) * 1000;
		return 0;
	case hwmon_power_cap_max:
		*val = (long)GAUDISIM_TEL_POWER_MAX_LIMIT_MW * 1000;
		return 0;
	case hwmon_power_cap_alarm:
		*val = !!(gaudisim_tel(gdev, GAUDISIM_TEL_THROTTLE) & GAUDISIM_TEL_THROTTLE_POWER);
		return 0;
	case hwmon_power_average_interval:
		*val = DIV_ROUND_CLOSEST(gaudisim_tel(gdev, GAUDISIM_TEL_POWER_WINDOW_US), 1000);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int gaudisim_hwmon_read(struct device *dev, enum hwmon_sensor_types type,
			       u32 attr, int channel, long *val)
{
	struct gaudisim_hwmon *hw = dev_get_drvdata(dev);
	struct gaudisim_device *gdev = hw->gdev;
	int rc, idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	switch (type) {
	case hwmon_temp:
		rc = gaudisim_hwmon_read_temp(gdev, attr, channel, val);
		break;
	case hwmon_power:
		rc = gaudisim_hwmon_read_power(gdev, attr, val);
		break;
	case hwmon_energy:
		/* µJ in a long: 2^63 µJ is far beyond any run. */
		*val = (long)(gaudisim_hwmon_energy_mj(hw) * 1000);
		rc = 0;
		break;
	default:
		rc = -EOPNOTSUPP;
		break;
	}
	drm_dev_exit(idx);
	return rc;
}

static const char *const gaudisim_temp_labels[] = { "die", "inlet" };

static int gaudisim_hwmon_read_string(struct device *dev, enum hwmon_sensor_types type,
				      u32 attr, int channel, const char **str)
{
	if (type == hwmon_temp && attr == hwmon_temp_label &&
	    channel < ARRAY_SIZE(gaudisim_temp_labels)) {
		*str = gaudisim_temp_labels[channel];
		return 0;
	}
	if (type == hwmon_power && attr == hwmon_power_label) {
		*str = "card";
		return 0;
	}
	return -EOPNOTSUPP;
}

static int gaudisim_hwmon_write(struct device *dev, enum hwmon_sensor_types type,
				u32 attr, int channel, long val)
{
	struct gaudisim_hwmon *hw = dev_get_drvdata(dev);
	struct gaudisim_device *gdev = hw->gdev;
	int rc = 0, idx;
	long idle_uw;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	if ((type == hwmon_temp && attr == hwmon_temp_reset_history) ||
	    (type == hwmon_power && attr == hwmon_power_reset_history)) {
		if (val != 1)
			rc = -EINVAL;
		else
			gaudisim_wreg(gdev, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_RESET_HISTORY,
				      1);
	} else if (type == hwmon_power && attr == hwmon_power_cap) {
		/* A cap below idle power could never be met; the device refuses it. */
		idle_uw = (long)gaudisim_tel(gdev, GAUDISIM_TEL_POWER_IDLE_MW) * 1000;
		if (val < idle_uw || val > (long)GAUDISIM_TEL_POWER_MAX_LIMIT_MW * 1000)
			rc = -ERANGE;
		else
			gaudisim_wreg(gdev, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_POWER_MAX_MW,
				      (u32)(val / 1000));
	} else {
		rc = -EOPNOTSUPP;
	}
	drm_dev_exit(idx);
	return rc;
}

static umode_t gaudisim_hwmon_is_visible(const void *data, enum hwmon_sensor_types type,
					 u32 attr, int channel)
{
	if ((type == hwmon_temp && attr == hwmon_temp_reset_history) ||
	    (type == hwmon_power && attr == hwmon_power_reset_history))
		return 0200;
	if (type == hwmon_power && attr == hwmon_power_cap)
		return 0644;
	return 0444;
}

static const struct hwmon_channel_info *const gaudisim_hwmon_info[] = {
	HWMON_CHANNEL_INFO(temp,
			   HWMON_T_INPUT | HWMON_T_MAX | HWMON_T_CRIT | HWMON_T_HIGHEST |
			   HWMON_T_MAX_ALARM | HWMON_T_CRIT_ALARM | HWMON_T_RESET_HISTORY |
			   HWMON_T_LABEL,
			   HWMON_T_INPUT | HWMON_T_LABEL),
	HWMON_CHANNEL_INFO(power,
			   HWMON_P_INPUT | HWMON_P_INPUT_HIGHEST | HWMON_P_CAP |
			   HWMON_P_CAP_MIN | HWMON_P_CAP_MAX | HWMON_P_CAP_ALARM |
			   HWMON_P_AVERAGE_INTERVAL | HWMON_P_RESET_HISTORY | HWMON_P_LABEL),
	HWMON_CHANNEL_INFO(energy, HWMON_E_INPUT),
	NULL,
};

static const struct hwmon_ops gaudisim_hwmon_ops = {
	.is_visible = gaudisim_hwmon_is_visible,
	.read = gaudisim_hwmon_read,
	.read_string = gaudisim_hwmon_read_string,
	.write = gaudisim_hwmon_write,
};

static const struct hwmon_chip_info gaudisim_hwmon_chip = {
	.ops = &gaudisim_hwmon_ops,
	.info = gaudisim_hwmon_info,
};

int gaudisim_hwmon_init(struct gaudisim_device *gdev)
{
	struct device *dev = &gdev->pdev->dev;
	struct device *hwmon;
	struct gaudisim_hwmon *hw;
	int rc;

	hw = devm_kzalloc(dev, sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	hw->gdev = gdev;
	rc = devm_mutex_init(dev, &hw->energy_lock);
	if (rc)
		return rc;

	hwmon = devm_hwmon_device_register_with_info(dev, GAUDISIM_DRIVER_NAME, hw,
						     &gaudisim_hwmon_chip, NULL);
	return PTR_ERR_OR_ZERO(hwmon);
}
