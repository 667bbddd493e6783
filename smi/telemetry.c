// SPDX-License-Identifier: MIT
/* hl-smi: sensors and limits from sysfs, hwmon and the control node. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlthunk.h"
#include "hw/gaudisim_hw_eq.h"
#include "telemetry.h"

int smi_sysfs_path(int index, const char *attr, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/sys/class/accel/accel%d/device/%s", index, attr);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* First line of a file, newline removed; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		rc = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return rc;
}

static bool read_ll(const char *path, long long *v)
{
	char buf[64], *end;

	if (read_line(path, buf, sizeof(buf)))
		return false;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return !errno && end != buf && *end == '\0';
}

static bool read_attr(int index, const char *attr, long long *v)
{
	char path[256];

	return !smi_sysfs_path(index, attr, path, sizeof(path)) && read_ll(path, v);
}

/* The device's hwmon folder (the one named "gaudisim"), or "" . */
static void find_hwmon(int index, char *buf, size_t len)
{
	char dir[256], path[512], name[64];
	struct dirent *de;
	DIR *d;

	buf[0] = '\0';
	if (smi_sysfs_path(index, "hwmon", dir, sizeof(dir)))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/name", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (!read_line(path, name, sizeof(name)) && !strcmp(name, "gaudisim")) {
			if (snprintf(buf, len, "%s/%s", dir, de->d_name) >= (int)len)
				buf[0] = '\0';
			break;
		}
	}
	closedir(d);
}

static bool read_hwmon(const char *hwmon, const char *chan, long long *v)
{
	char path[600];

	if (!hwmon[0] || snprintf(path, sizeof(path), "%s/%s", hwmon, chan) >= (int)sizeof(path))
		return false;
	return read_ll(path, v);
}

static void collect_sensors(int index, struct smi_telemetry *t)
{
	long long uw, uj, cap_uw, cap_max_uw;
	char hwmon[300];

	find_hwmon(index, hwmon, sizeof(hwmon));
	if (read_hwmon(hwmon, "temp1_input", &t->temp_mc) &&
	    read_hwmon(hwmon, "temp1_max", &t->temp_max_mc) &&
	    read_hwmon(hwmon, "temp1_crit", &t->temp_crit_mc))
		t->have |= SMI_TEL_TEMP;
	if (read_hwmon(hwmon, "power1_input", &uw) && read_hwmon(hwmon, "energy1_input", &uj)) {
		t->power_mw = uw / 1000;
		t->energy_mj = uj / 1000;
		t->have |= SMI_TEL_POWER;
	}
	if (read_hwmon(hwmon, "power1_cap", &cap_uw) &&
	    read_hwmon(hwmon, "power1_cap_max", &cap_max_uw)) {
		t->power_cap_mw = cap_uw / 1000;
		t->power_cap_max_mw = cap_max_uw / 1000;
		t->have |= SMI_TEL_POWER_CAP;
	}
}

static void collect_attrs(int index, struct smi_telemetry *t)
{
	char path[256];

	if (read_attr(index, "clk_cur_freq_mhz", &t->clk_cur_mhz) &&
	    read_attr(index, "clk_max_freq_mhz", &t->clk_max_mhz))
		t->have |= SMI_TEL_CLOCK;
	if (read_attr(index, "hard_reset_cnt", &t->hard_reset_cnt) &&
	    read_attr(index, "soft_reset_cnt", &t->soft_reset_cnt))
		t->have |= SMI_TEL_RESETS;
	if (read_attr(index, "module_id", &t->module_id))
		t->have |= SMI_TEL_MODULE_ID;
	if (!smi_sysfs_path(index, "cpucp_ver", path, sizeof(path)) &&
	    !read_line(path, t->fw_version, sizeof(t->fw_version)))
		t->have |= SMI_TEL_FW;
	if (!smi_sysfs_path(index, "cpld_ver", path, sizeof(path)) &&
	    !read_line(path, t->cpld_version, sizeof(t->cpld_version)))
		t->have |= SMI_TEL_CPLD;
}

static void collect_info(int fd, struct smi_telemetry *t)
{
	uint32_t volatile_ev[GAUDISIM_INFO_HW_EVENTS_NUM], aggregate[GAUDISIM_INFO_HW_EVENTS_NUM];
	struct hlthunk_clk_throttle_info th;

	struct gaudisim_info_engine_utilization u;

	/* One sample gives the card and the classes; older drivers have only the card. */
	if (!hlthunk_get_engine_utilization(fd, SMI_UTIL_PERIOD_MS, &u)) {
		t->utilization = u.card;
		t->util_dma = u.dma;
		t->util_mme = u.mme;
		t->util_tpc = u.tpc;
		t->util_nic = u.nic;
		t->util_busy_ns = u.busy_ns;
		t->util_period_ns = u.period_ns;
		t->have |= SMI_TEL_UTIL | SMI_TEL_UTIL_CLASSES;
	} else if (!hlthunk_get_device_utilization(fd, SMI_UTIL_PERIOD_MS, &t->utilization)) {
		t->have |= SMI_TEL_UTIL;
	}
	if (!hlthunk_get_clk_throttle_info(fd, &th)) {
		t->throttle_mask = th.clk_throttle_reason_bitmask;
		t->violation_power_ns = th.clk_throttle_duration_ns[GAUDISIM_CLK_THROTTLE_TYPE_POWER];
		t->violation_thermal_ns =
			th.clk_throttle_duration_ns[GAUDISIM_CLK_THROTTLE_TYPE_THERMAL];
		t->have |= SMI_TEL_THROTTLE;
	}
	/* ECC errors are the device's ECC events, counted per type by the driver. */
	if (!hlthunk_get_hw_events_arr(fd, false, sizeof(volatile_ev), volatile_ev) &&
	    !hlthunk_get_hw_events_arr(fd, true, sizeof(aggregate), aggregate)) {
		t->ecc_corrected_volatile = volatile_ev[GAUDISIM_EQ_EVENT_ECC_CORRECTABLE];
		t->ecc_uncorrected_volatile = volatile_ev[GAUDISIM_EQ_EVENT_ECC_UNCORRECTABLE];
		t->ecc_corrected_aggregate = aggregate[GAUDISIM_EQ_EVENT_ECC_CORRECTABLE];
		t->ecc_uncorrected_aggregate = aggregate[GAUDISIM_EQ_EVENT_ECC_UNCORRECTABLE];
		t->have |= SMI_TEL_ECC;
	}
}

void smi_collect_telemetry(int index, int ctl_fd, struct smi_telemetry *t)
{
	memset(t, 0, sizeof(*t));
	collect_sensors(index, t);
	collect_attrs(index, t);
	if (ctl_fd >= 0)
		collect_info(ctl_fd, t);
}
