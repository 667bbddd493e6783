/* SPDX-License-Identifier: MIT */
/*
 * hl-smi: the device's sensors and limits, read from the driver's sysfs
 * attributes (/sys/class/accel/accelN/device) and hwmon channels, plus
 * utilization, clock throttling and ECC counts from the control node.
 */
#ifndef SMI_TELEMETRY_H
#define SMI_TELEMETRY_H

#include <stdint.h>

/* Which values a struct smi_telemetry holds (the rest print as N/A). */
enum smi_tel_have {
	SMI_TEL_TEMP = 1u << 0,		/* temp_mc, temp_max_mc, temp_crit_mc */
	SMI_TEL_POWER = 1u << 1,	/* power_mw, energy_mj */
	SMI_TEL_POWER_CAP = 1u << 2,	/* power_cap_mw, power_cap_max_mw */
	SMI_TEL_CLOCK = 1u << 3,	/* clk_cur_mhz, clk_max_mhz */
	SMI_TEL_RESETS = 1u << 4,	/* hard_reset_cnt, soft_reset_cnt */
	SMI_TEL_MODULE_ID = 1u << 5,
	SMI_TEL_FW = 1u << 6,		/* fw_version */
	SMI_TEL_UTIL = 1u << 7,		/* utilization */
	SMI_TEL_THROTTLE = 1u << 8,	/* throttle_mask, violation_*_ns */
	SMI_TEL_ECC = 1u << 9,		/* ecc_* */
	SMI_TEL_CPLD = 1u << 10,	/* cpld_version */
	SMI_TEL_UTIL_CLASSES = 1u << 11,	/* util_dma..util_period_ns */
};

#define SMI_FW_VERSION_LEN	64

struct smi_telemetry {
	unsigned int have;		/* enum smi_tel_have bits */
	long long temp_mc;		/* die, milli-degrees C */
	long long temp_max_mc;		/* throttling starts here */
	long long temp_crit_mc;
	long long power_mw;
	long long energy_mj;
	long long power_cap_mw;
	long long power_cap_max_mw;
	long long clk_cur_mhz;
	long long clk_max_mhz;
	long long hard_reset_cnt;
	long long soft_reset_cnt;
	long long module_id;
	char fw_version[SMI_FW_VERSION_LEN];
	char cpld_version[SMI_FW_VERSION_LEN];	/* sysfs cpld_ver, "0x..." */
	uint32_t utilization;		/* percent of the sample period, any engine */
	/* With SMI_TEL_UTIL_CLASSES: the same per engine class, and the modelled time. */
	uint32_t util_dma, util_mme, util_tpc, util_nic;
	uint64_t util_busy_ns;		/* busiest engine's modelled busy time */
	uint64_t util_period_ns;
	uint32_t throttle_mask;		/* GAUDISIM_CLK_THROTTLE_* active now */
	uint64_t violation_power_ns;	/* time throttled, since reset */
	uint64_t violation_thermal_ns;
	uint64_t ecc_corrected_volatile;	/* since the last reset */
	uint64_t ecc_uncorrected_volatile;
	uint64_t ecc_corrected_aggregate;	/* since the driver loaded */
	uint64_t ecc_uncorrected_aggregate;
};

/* Utilization sample period, ms (the driver takes 100..1000). */
#define SMI_UTIL_PERIOD_MS	100

/*
 * Fill t for device index; ctl_fd is its open control node. Missing
 * files or refused ops leave their bits out of t->have.
 */
void smi_collect_telemetry(int index, int ctl_fd, struct smi_telemetry *t);

/* sysfs attribute path of device index: /sys/class/accel/accelN/device/<attr>. */
int smi_sysfs_path(int index, const char *attr, char *buf, size_t len);

#endif /* SMI_TELEMETRY_H */
