// SPDX-License-Identifier: MIT
/* hl-smi's detailed log (-q / -L), its sections chosen with -d. */
#include <stdarg.h>
#include <string.h>

#include "render.h"
#include "values.h"
#include "hw/gaudisim_hw_regs.h"

/* Values start after the key column. */
#define DETAIL_KEY_COLUMN 36

/* "<indent>Key<pad>: value", the colon in a fixed column; no value: a heading. */
static void kv(FILE *out, int depth, const char *key, const char *fmt, ...)
{
	int used = 4 * depth + (int)strlen(key);
	va_list ap;

	fprintf(out, "%*s%s", 4 * depth, "", key);
	if (!fmt) {
		fputc('\n', out);
		return;
	}
	smi_put_repeat(out, ' ', used < DETAIL_KEY_COLUMN ? DETAIL_KEY_COLUMN - used : 1);
	fputs(": ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

static void detail_memory(FILE *out, const struct smi_device *d)
{
	kv(out, 1, "Memory Usage (HBM)", NULL);
	if (d->have & SMI_HAVE_DRAM) {
		kv(out, 2, "Total", "%llu MiB", smi_mib(d->dram.dram_total_mem));
		kv(out, 2, "Used", "%llu MiB", smi_mib(d->dram.dram_used_mem));
		kv(out, 2, "Free", "%llu MiB", smi_mib(d->dram.dram_free_mem));
	} else {
		kv(out, 2, "Total", SMI_NA);
		kv(out, 2, "Used", SMI_NA);
		kv(out, 2, "Free", SMI_NA);
	}
	if (d->have & SMI_HAVE_HW_IP) {
		kv(out, 2, "Installed", "%llu MiB", smi_mib(d->hw_ext.hbm_total_size));
		kv(out, 2, "Reserved for driver", "%llu MiB",
		   smi_mib(d->hw_ext.hbm_total_size - d->hw.dram_size));
		kv(out, 2, "User base address", "0x%016llx",
		   (unsigned long long)d->hw.dram_base_address);
		kv(out, 1, "SRAM", NULL);
		kv(out, 2, "Size", "%llu MiB", smi_mib(d->hw.sram_size));
		kv(out, 2, "Base address", "0x%016llx",
		   (unsigned long long)d->hw.sram_base_address);
	}
}

static void detail_engines(FILE *out, const struct smi_device *d)
{
	const struct gaudisim_info_hw_ip_ext *hw = &d->hw_ext;

	if (!(d->have & SMI_HAVE_HW_IP))
		return;
	kv(out, 1, "Engines", NULL);
	kv(out, 2, "PCI DMA", "%u", hw->num_pci_dma);
	kv(out, 2, "HBM DMA", "%u", hw->num_hbm_dma);
	kv(out, 2, "MME", "%u", hw->num_mme);
	kv(out, 2, "TPC", "%u (enabled mask 0x%02x)", hw->num_tpc, d->hw.tpc_enabled_mask);
	kv(out, 1, "Queues", NULL);
	kv(out, 2, "Available", "%d of %u",
	   popcount64(hw->queue_mask[0]) + popcount64(hw->queue_mask[1]), hw->num_queues);
	kv(out, 2, "Mask", "0x%016llx%016llx", (unsigned long long)hw->queue_mask[1],
	   (unsigned long long)hw->queue_mask[0]);
}

static void detail_activity(FILE *out, const struct smi_device *d)
{
	if (d->have & SMI_HAVE_IDLE) {
		kv(out, 1, "Activity", "%s", d->idle.is_idle ? "Idle" : "Busy");
		kv(out, 2, "Busy queues mask", "0x%016llx%016llx",
		   (unsigned long long)d->idle.busy_queues_mask[1],
		   (unsigned long long)d->idle.busy_queues_mask[0]);
	} else {
		kv(out, 1, "Activity", SMI_NA);
	}
	kv(out, 1, "Compute Context", NULL);
	if (!(d->have & SMI_HAVE_OPEN_STATS)) {
		kv(out, 2, "Active", SMI_NA);
	} else {
		kv(out, 2, "Active", "%s", d->open_stats.is_compute_ctx_active ? "Yes" : "No");
		if (smi_device_has_holder(d)) {
			kv(out, 2, "PID", "%u", d->open_stats.compute_pid);
			char name[4 * SMI_PROCESS_NAME_LEN];

			smi_text_escape(name, sizeof(name),
					d->process_name[0] ? d->process_name : SMI_NA);
			kv(out, 2, "Process name", "%s", name);
		}
		kv(out, 2, "Opens since load", "%llu",
		   (unsigned long long)d->open_stats.open_counter);
		kv(out, 2, "Last open period", "%llu ms",
		   (unsigned long long)d->open_stats.last_open_period_ms);
	}
}

static void detail_cs_counters(FILE *out, const struct smi_device *d)
{
	const struct smi_cs_counters *c = &d->cs;

	kv(out, 1, "Command Submissions", NULL);
	if (!(d->have & SMI_HAVE_CS_COUNTERS)) {
		kv(out, 2, "Counters", SMI_NA);
		return;
	}
	kv(out, 2, "Submitted", "%llu", (unsigned long long)c->submitted);
	kv(out, 2, "Completed", "%llu", (unsigned long long)c->completed);
	kv(out, 2, "Errors", "%llu", (unsigned long long)c->errors);
	kv(out, 2, "Timed out", "%llu", (unsigned long long)c->timed_out);
	kv(out, 2, "Dropped (validation)", "%llu", (unsigned long long)c->validation_drop);
	kv(out, 2, "Dropped (parsing)", "%llu", (unsigned long long)c->parsing_drop);
	kv(out, 2, "Dropped (queue full)", "%llu", (unsigned long long)c->queue_full_drop);
	kv(out, 2, "Dropped (device not ready)", "%llu",
	   (unsigned long long)c->device_not_ready_drop);
}

static void detail_temperature(FILE *out, const struct smi_device *d)
{
	const struct smi_telemetry *t = &d->tel;

	kv(out, 1, "Temperature", NULL);
	if (!(t->have & SMI_TEL_TEMP)) {
		kv(out, 2, "AIP Current Temp", SMI_NA);
		return;
	}
	kv(out, 2, "AIP Current Temp", "%lld C", t->temp_mc / 1000);
	kv(out, 2, "AIP Slowdown Temp", "%lld C", t->temp_max_mc / 1000);
	kv(out, 2, "AIP Shutdown Temp", "%lld C", t->temp_crit_mc / 1000);
}

static void detail_power(FILE *out, const struct smi_device *d)
{
	const struct smi_telemetry *t = &d->tel;
	char buf[32];

	kv(out, 1, "Power Readings", NULL);
	kv(out, 2, "Power Management", "supported");
	if (t->have & SMI_TEL_POWER) {
		smi_put_watts(buf, sizeof(buf), t->power_mw, true);
		kv(out, 2, "Power Draw", "%s", buf);
		kv(out, 2, "Energy Consumed", "%lld.%03lld J", t->energy_mj / 1000,
		   t->energy_mj % 1000);
	} else {
		kv(out, 2, "Power Draw", SMI_NA);
	}
	if (t->have & SMI_TEL_POWER_CAP) {
		smi_put_watts(buf, sizeof(buf), t->power_cap_mw, true);
		kv(out, 2, "Power Limit", "%s", buf);
		smi_put_watts(buf, sizeof(buf), t->power_cap_max_mw, true);
		kv(out, 2, "Max Power Limit", "%s", buf);
	} else {
		kv(out, 2, "Power Limit", SMI_NA);
	}
}

static const char *active_text(const struct smi_telemetry *t, uint32_t bit)
{
	if (!(t->have & SMI_TEL_THROTTLE))
		return SMI_NA;
	return t->throttle_mask & bit ? "Active" : "Not Active";
}

static void detail_clocks(FILE *out, const struct smi_device *d)
{
	const struct smi_telemetry *t = &d->tel;

	kv(out, 1, "Clocks", NULL);
	if (t->have & SMI_TEL_CLOCK) {
		kv(out, 2, "soc", "%lld MHz", t->clk_cur_mhz);
		kv(out, 1, "Clocks Limit", NULL);
		kv(out, 2, "soc", "%lld MHz", t->clk_max_mhz);
	} else {
		kv(out, 2, "soc", SMI_NA);
	}
	kv(out, 1, "Clocks Throttle Reasons", NULL);
	kv(out, 2, "Power Slowdown", "%s", active_text(t, GAUDISIM_CLK_THROTTLE_POWER));
	kv(out, 2, "Thermal Slowdown", "%s", active_text(t, GAUDISIM_CLK_THROTTLE_THERMAL));
	if (t->have & SMI_TEL_THROTTLE) {
		kv(out, 2, "Power Violation Time", "%llu us",
		   (unsigned long long)(t->violation_power_ns / 1000));
		kv(out, 2, "Thermal Violation Time", "%llu us",
		   (unsigned long long)(t->violation_thermal_ns / 1000));
	}
}

static void detail_utilization(FILE *out, const struct smi_device *d)
{
	const struct smi_telemetry *t = &d->tel;

	kv(out, 1, "Utilization", NULL);
	if (t->have & SMI_TEL_UTIL)
		kv(out, 2, "AIP", "%u %%", t->utilization);
	else
		kv(out, 2, "AIP", SMI_NA);
	if (!(t->have & SMI_TEL_UTIL_CLASSES))
		return;
	/* Share of the sample with work in flight, per engine class. */
	kv(out, 2, "DMA Util", "%u %%", t->util_dma);
	kv(out, 2, "MME Util", "%u %%", t->util_mme);
	kv(out, 2, "TPC Util", "%u %%", t->util_tpc);
	kv(out, 2, "NIC Util", "%u %%", t->util_nic);
	/* What the modelled hardware would have needed for the same work. */
	kv(out, 2, "Modelled Busy", "%llu us of %llu us",
	   (unsigned long long)(t->util_busy_ns / 1000),
	   (unsigned long long)(t->util_period_ns / 1000));
}

static void detail_ecc(FILE *out, const struct smi_device *d)
{
	const struct smi_telemetry *t = &d->tel;

	kv(out, 1, "ECC Errors", NULL);
	if (!(t->have & SMI_TEL_ECC)) {
		kv(out, 2, "Volatile", SMI_NA);
		kv(out, 2, "Aggregate", SMI_NA);
		return;
	}
	kv(out, 2, "Volatile", NULL);
	kv(out, 3, "Single Bit", "%llu",
	   (unsigned long long)t->ecc_corrected_volatile);
	kv(out, 3, "Double Bit", "%llu",
	   (unsigned long long)t->ecc_uncorrected_volatile);
	kv(out, 2, "Aggregate", NULL);
	kv(out, 3, "Single Bit", "%llu",
	   (unsigned long long)t->ecc_corrected_aggregate);
	kv(out, 3, "Double Bit", "%llu",
	   (unsigned long long)t->ecc_uncorrected_aggregate);
}

/* Every port: link state, where its cable goes, its traffic. */
static void detail_nic(FILE *out, const struct smi_device *d)
{
	uint32_t p;

	kv(out, 1, "NIC", NULL);
	if (!(d->have & SMI_HAVE_NIC)) {
		kv(out, 2, "Ports", SMI_NA);
		return;
	}
	for (p = 0; p < d->nic.num_ports && p < GAUDISIM_INFO_NIC_MAX_PORTS; p++) {
		const struct gaudisim_info_nic_port *n = &d->nic.port[p];
		const char *kind = n->link & GAUDISIM_INFO_NIC_LINK_SCALEOUT ? "scale-out" : "in-box";
		char key[16], peer[48];

		snprintf(key, sizeof(key), "Port %u", p);
		if (n->link & GAUDISIM_INFO_NIC_LINK_CABLED)
			snprintf(peer, sizeof(peer), "module %u port %u", n->peer_module,
				 n->peer_port);
		else
			snprintf(peer, sizeof(peer), "not cabled");
		kv(out, 2, key, "%s, %s, %s, TX %llu B, RX %llu B, TX errors %u, link down %u times",
		   n->link & GAUDISIM_INFO_NIC_LINK_UP ? "up" : "down", kind, peer,
		   (unsigned long long)n->tx_bytes, (unsigned long long)n->rx_bytes,
		   n->tx_errors, n->link_down_count);
	}
}

static void detail_pcie(FILE *out, const struct smi_device *d)
{
	kv(out, 1, "PCIe", NULL);
	if (!(d->have & SMI_HAVE_PCI)) {
		kv(out, 2, "Throughput", SMI_NA);
		return;
	}
	kv(out, 2, "Replay Count", "%llu", (unsigned long long)d->pci.replay_cnt);
	kv(out, 2, "TX Throughput", "%llu KB/s", (unsigned long long)d->pci.tx_throughput);
	kv(out, 2, "RX Throughput", "%llu KB/s", (unsigned long long)d->pci.rx_throughput);
}

static void detail_device(FILE *out, const struct smi_device *d, unsigned int sections)
{
	char name[GAUDISIM_CARD_NAME_MAX_LEN + 1], version[GAUDISIM_VERSION_STR_LEN + 1];
	char uuid[40];

	smi_text_device_name(d, name, sizeof(name));
	smi_text_driver_version(d, version, sizeof(version));
	fprintf(out, "\n[%d] AIP (accel%d) %s\n", d->index, d->index, smi_text_bus_id(d));
	kv(out, 1, "Product Name", "%s", name);
	kv(out, 1, "Module status", "%s", smi_text_status(d));
	kv(out, 1, "Driver Version", "%s", version);
	if (d->have & SMI_HAVE_HW_IP)
		kv(out, 1, "HW Revision", "%u.%u", d->hw_ext.hw_version >> 16,
		   d->hw_ext.hw_version & 0xffffu);
	kv(out, 1, "PCI", NULL);
	kv(out, 2, "Bus Id", "%s", smi_text_bus_id(d));
	if (d->have & SMI_HAVE_HW_IP)
		kv(out, 2, "Device Id", "0x%04x%04x", GAUDISIM_PCI_VENDOR_ID, GAUDISIM_PCI_DEVICE_ID);
	if (d->tel.have & SMI_TEL_MODULE_ID)
		kv(out, 1, "Module ID", "%lld", d->tel.module_id);
	kv(out, 1, "Serial Number", "%s", smi_text_serial(d)[0] ? smi_text_serial(d) : SMI_NA);
	smi_text_uuid(d, uuid, sizeof(uuid));
	kv(out, 1, "AIP UUID", "%s", uuid);
	kv(out, 1, "Firmware [CPUCP] Version", "%s",
	   d->tel.have & SMI_TEL_FW ? d->tel.fw_version : SMI_NA);
	kv(out, 1, "CPLD Version", "%s", d->tel.have & SMI_TEL_CPLD ? d->tel.cpld_version : SMI_NA);
	if (sections & SMI_SECTION_PCIE)
		detail_pcie(out, d);
	if (sections & SMI_SECTION_MEMORY) {
		detail_memory(out, d);
		detail_engines(out, d);
	}
	if (sections & SMI_SECTION_TEMPERATURE)
		detail_temperature(out, d);
	if (sections & SMI_SECTION_POWER)
		detail_power(out, d);
	if (sections & SMI_SECTION_CLOCK)
		detail_clocks(out, d);
	if (sections & SMI_SECTION_UTILIZATION)
		detail_utilization(out, d);
	if (sections & SMI_SECTION_ECC)
		detail_ecc(out, d);
	if (sections & SMI_SECTION_PROCESSES) {
		detail_activity(out, d);
		detail_cs_counters(out, d);
	}
	if (sections & SMI_SECTION_NIC)
		detail_nic(out, d);
}

void smi_print_detail(FILE *out, const struct smi_report *r)
{
	char version[GAUDISIM_VERSION_STR_LEN + 1];
	int i;

	smi_text_report_driver_version(r, version, sizeof(version));
	fputs("================ HL-SMI LOG ================\n", out);
	kv(out, 0, "Timestamp", "%s", r->timestamp ? r->timestamp : SMI_NA);
	kv(out, 0, "Driver Version", "%s", version);
	kv(out, 0, "HL-SMI Version", "%s", r->smi_version);
	kv(out, 0, "Attached AIPs", "%d", r->num_devices);
	for (i = 0; i < r->num_devices; i++)
		detail_device(out, &r->devices[i], r->sections ? r->sections : SMI_SECTION_ALL);
}
