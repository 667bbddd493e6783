// SPDX-License-Identifier: MIT
/*
 * The values every hl-smi format prints, as text. Only facts the driver
 * reports are shown; what it cannot report (fan, PCIe link width) prints
 * as N/A.
 */
#include <string.h>

#include "values.h"
#include "hw/gaudisim_hw_regs.h"

static const char *const engine_class_names[SMI_ENGINE_CLASSES] = {
	[SMI_ENGINE_DMA] = "dma",
	[SMI_ENGINE_MME] = "mme",
	[SMI_ENGINE_TPC] = "tpc",
	[SMI_ENGINE_NIC] = "nic",
};

const char *smi_engine_class_name(enum smi_engine_class c)
{
	return (unsigned int)c < SMI_ENGINE_CLASSES ? engine_class_names[c] : "?";
}

const char *smi_status_name(uint32_t status)
{
	switch (status) {
	case GAUDISIM_DEVICE_STATUS_OPERATIONAL:
		return "Operational";
	case GAUDISIM_DEVICE_STATUS_IN_RESET:
		return "In reset";
	case GAUDISIM_DEVICE_STATUS_MALFUNCTION:
		return "Malfunction";
	case GAUDISIM_DEVICE_STATUS_NEEDS_RESET:
		return "Needs reset";
	case GAUDISIM_DEVICE_STATUS_IN_DEVICE_CREATION:
		return "In device creation";
	default:
		return "Unknown";
	}
}

void smi_text_device_name(const struct smi_device *d, char *buf, size_t len)
{
	if (d->have & SMI_HAVE_HW_IP)
		snprintf(buf, len, "%.*s", (int)sizeof(d->hw.card_name), d->hw.card_name);
	else
		snprintf(buf, len, SMI_NA);
}

const char *smi_text_bus_id(const struct smi_device *d)
{
	return d->bus_id[0] ? d->bus_id : SMI_NA;
}

const char *smi_text_status(const struct smi_device *d)
{
	return d->have & SMI_HAVE_STATUS ? smi_status_name(d->status) : SMI_NA;
}

void smi_text_driver_version(const struct smi_device *d, char *buf, size_t len)
{
	if (d->have & SMI_HAVE_DRIVER_VERSION)
		snprintf(buf, len, "%.*s", (int)sizeof(d->driver_version), d->driver_version);
	else
		snprintf(buf, len, SMI_NA);
}

/* The driver version shown once for the whole report: the first one known. */
void smi_text_report_driver_version(const struct smi_report *r, char *buf, size_t len)
{
	int i;

	for (i = 0; i < r->num_devices; i++) {
		if (r->devices[i].have & SMI_HAVE_DRIVER_VERSION) {
			smi_text_driver_version(&r->devices[i], buf, len);
			return;
		}
	}
	snprintf(buf, len, SMI_NA);
}

unsigned long long smi_mib(uint64_t bytes)
{
	return (unsigned long long)(bytes >> SMI_MIB_SHIFT);
}

bool smi_device_has_holder(const struct smi_device *d)
{
	return (d->have & SMI_HAVE_OPEN_STATS) && d->open_stats.is_compute_ctx_active;
}

int smi_device_processes(const struct smi_device *d, struct smi_process *out, int max)
{
	int n = 0;

	if (d->have & SMI_HAVE_PROCS) {
		for (n = 0; n < d->num_procs && n < max; n++)
			out[n] = d->procs[n];
		return n;
	}
	if (!smi_device_has_holder(d) || max < 1)
		return 0;
	memset(out, 0, sizeof(*out));
	out->pid = d->open_stats.compute_pid;
	snprintf(out->name, sizeof(out->name), "%s", d->process_name);
	out->hbm_bytes = d->have & SMI_HAVE_DRAM ? d->dram.dram_used_mem : 0;
	return 1;
}

/* The board serial, "" when the driver did not report it. */
const char *smi_text_serial(const struct smi_device *d)
{
	if (!(d->have & SMI_HAVE_HW_IP) || !d->hw_ext.serial[0] ||
	    !memchr(d->hw_ext.serial, '\0', sizeof(d->hw_ext.serial)))
		return "";
	return d->hw_ext.serial;
}

/* RFC 4122 text of the board UUID; false when unknown (all zero). */
bool smi_text_uuid(const struct smi_device *d, char *buf, size_t len)
{
	const uint8_t *u = d->hw_ext.uuid;
	size_t i;
	bool any = false;

	for (i = 0; i < sizeof(d->hw_ext.uuid); i++)
		any |= u[i] != 0;
	if (!(d->have & SMI_HAVE_HW_IP) || !any) {
		snprintf(buf, len, SMI_NA);
		return false;
	}
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	return true;
}

/* Milliwatts as watts with two decimals. */
void smi_put_watts(char *buf, size_t len, long long mw, bool units)
{
	snprintf(buf, len, "%lld.%02lld%s", mw / 1000, (mw % 1000) / 10, units ? " W" : "");
}

static bool put_number(char *buf, size_t len, unsigned long long v, const char *unit,
		       bool units)
{
	snprintf(buf, len, "%llu%s%s", v, units && unit ? " " : "", units && unit ? unit : "");
	return true;
}

static bool na(char *buf, size_t len)
{
	snprintf(buf, len, SMI_NA);
	return false;
}

static bool telemetry_value(const struct smi_device *d, enum smi_field f, bool units,
			    char *buf, size_t len)
{
	const struct smi_telemetry *t = &d->tel;
	const char *unit = smi_field_unit(f);

	switch (f) {
	case SMI_FIELD_MODULE_ID:
		if (!(t->have & SMI_TEL_MODULE_ID))
			return na(buf, len);
		return put_number(buf, len, (unsigned long long)t->module_id, NULL, units);
	case SMI_FIELD_TEMPERATURE_AIP:
		if (!(t->have & SMI_TEL_TEMP))
			return na(buf, len);
		return put_number(buf, len, (unsigned long long)(t->temp_mc / 1000), unit, units);
	case SMI_FIELD_UTILIZATION_AIP:
		if (!(t->have & SMI_TEL_UTIL))
			return na(buf, len);
		return put_number(buf, len, t->utilization, unit, units);
	case SMI_FIELD_POWER_DRAW:
		if (!(t->have & SMI_TEL_POWER))
			return na(buf, len);
		smi_put_watts(buf, len, t->power_mw, units);
		return true;
	case SMI_FIELD_POWER_LIMIT:
	case SMI_FIELD_POWER_MAX:
		if (!(t->have & SMI_TEL_POWER_CAP))
			return na(buf, len);
		smi_put_watts(buf, len, f == SMI_FIELD_POWER_LIMIT ? t->power_cap_mw :
				    t->power_cap_max_mw, units);
		return true;
	case SMI_FIELD_CLOCKS_CURRENT_SOC:
	case SMI_FIELD_CLOCKS_LIMIT_SOC:
		if (!(t->have & SMI_TEL_CLOCK))
			return na(buf, len);
		return put_number(buf, len, (unsigned long long)(f == SMI_FIELD_CLOCKS_CURRENT_SOC ?
				  t->clk_cur_mhz : t->clk_max_mhz), unit, units);
	case SMI_FIELD_ECC_UNCORRECTED_AGGREGATE:
	case SMI_FIELD_ECC_UNCORRECTED_VOLATILE:
	case SMI_FIELD_ECC_CORRECTED_AGGREGATE:
	case SMI_FIELD_ECC_CORRECTED_VOLATILE:
		if (!(t->have & SMI_TEL_ECC))
			return na(buf, len);
		return put_number(buf, len,
				  f == SMI_FIELD_ECC_UNCORRECTED_AGGREGATE ? t->ecc_uncorrected_aggregate :
				  f == SMI_FIELD_ECC_UNCORRECTED_VOLATILE ? t->ecc_uncorrected_volatile :
				  f == SMI_FIELD_ECC_CORRECTED_AGGREGATE ? t->ecc_corrected_aggregate :
				  t->ecc_corrected_volatile, NULL, units);
	case SMI_FIELD_VIOLATION_POWER:
	case SMI_FIELD_VIOLATION_THERMAL:
		if (!(t->have & SMI_TEL_THROTTLE))
			return na(buf, len);
		return put_number(buf, len, (f == SMI_FIELD_VIOLATION_POWER ? t->violation_power_ns :
				  t->violation_thermal_ns) / 1000, unit, units);
	case SMI_FIELD_RESET_COUNT_HARD:
		if (!(t->have & SMI_TEL_RESETS))
			return na(buf, len);
		return put_number(buf, len, (unsigned long long)t->hard_reset_cnt, NULL, units);
	case SMI_FIELD_SERIAL:
		if (!smi_text_serial(d)[0])
			return na(buf, len);
		snprintf(buf, len, "%s", smi_text_serial(d));
		return true;
	case SMI_FIELD_UUID:
		return smi_text_uuid(d, buf, len);
	case SMI_FIELD_PCIE_RX:
	case SMI_FIELD_PCIE_TX:
	case SMI_FIELD_PCIE_REPLAY_COUNT:
		if (!(d->have & SMI_HAVE_PCI))
			return na(buf, len);
		return put_number(buf, len, (unsigned long long)(f == SMI_FIELD_PCIE_RX ?
				  d->pci.rx_throughput : f == SMI_FIELD_PCIE_TX ?
				  d->pci.tx_throughput : d->pci.replay_cnt), unit, units);
	default:
		return na(buf, len);
	}
}

bool smi_field_value(const struct smi_report *r, const struct smi_device *d,
		     enum smi_field f, bool units, char *buf, size_t len)
{
	uint64_t bytes;

	switch (f) {
	case SMI_FIELD_INDEX:
		return put_number(buf, len, (unsigned long long)d->index, NULL, units);
	case SMI_FIELD_NAME:
		smi_text_device_name(d, buf, len);
		return d->have & SMI_HAVE_HW_IP;
	case SMI_FIELD_BUS_ID:
		snprintf(buf, len, "%s", smi_text_bus_id(d));
		return d->bus_id[0];
	case SMI_FIELD_DRIVER_VERSION:
		smi_text_driver_version(d, buf, len);
		return d->have & SMI_HAVE_DRIVER_VERSION;
	case SMI_FIELD_STATUS:
		snprintf(buf, len, "%s", smi_text_status(d));
		return d->have & SMI_HAVE_STATUS;
	case SMI_FIELD_TIMESTAMP:
		if (!r->query_time)
			return na(buf, len);
		snprintf(buf, len, "%s", r->query_time);
		return true;
	case SMI_FIELD_MEMORY_TOTAL:
	case SMI_FIELD_MEMORY_USED:
	case SMI_FIELD_MEMORY_FREE:
		if (!(d->have & SMI_HAVE_DRAM))
			return na(buf, len);
		bytes = f == SMI_FIELD_MEMORY_TOTAL ? d->dram.dram_total_mem :
			f == SMI_FIELD_MEMORY_USED ? d->dram.dram_used_mem : d->dram.dram_free_mem;
		return put_number(buf, len, smi_mib(bytes), "MiB", units);
	default:
		return telemetry_value(d, f, units, buf, len);
	}
}

void smi_text_escape(char *buf, size_t len, const char *text)
{
	size_t used = 0;

	if (!len)
		return;
	for (; *text; text++) {
		unsigned char c = (unsigned char)*text;
		bool plain = c >= 0x20 && c < 0x7f && c != '\\';
		size_t need = plain ? 1 : 4;

		if (used + need >= len)
			break;
		if (plain)
			buf[used] = (char)c;
		else
			snprintf(buf + used, 5, "\\x%02x", c);
		used += need;
	}
	buf[used] = '\0';
}

/* n copies of c: the table rules and the detailed log's padding. */
void smi_put_repeat(FILE *out, char c, int n)
{
	while (n-- > 0)
		fputc(c, out);
}
