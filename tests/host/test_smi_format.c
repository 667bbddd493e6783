// SPDX-License-Identifier: MIT
/*
 * hl-smi formatting against captured device facts: the 79-column table,
 * the detailed log, CSV, JSON and Prometheus output and the parsing of -Q,
 * -f and -d.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "format.h"
#include "query.h"
#include "render.h"
#include "values.h"
#include "hw/gaudisim_hw_nic.h"
#include "suites.h"

#define MiB (1ULL << 20)

static struct smi_device dev[2];
static struct smi_report report;
static char *out_text;
static size_t out_len;

/* A device as hl-smi would collect it while dma-demo holds it. */
static void fill_device(struct smi_device *d, int index)
{
	memset(d, 0, sizeof(*d));
	d->index = index;
	d->have = SMI_HAVE_HW_IP | SMI_HAVE_DRAM | SMI_HAVE_STATUS | SMI_HAVE_IDLE |
		  SMI_HAVE_OPEN_STATS | SMI_HAVE_CS_COUNTERS | SMI_HAVE_DRIVER_VERSION |
		  SMI_HAVE_PCI | SMI_HAVE_PROCS;
	snprintf(d->hw_ext.serial, sizeof(d->hw_ext.serial), "GS67736D00%02X", index);
	for (int i = 0; i < 16; i++)
		d->hw_ext.uuid[i] = (uint8_t)(0x10 * index + i);
	d->pci.rx_throughput = 12345;
	d->pci.tx_throughput = 678;
	d->pci.replay_cnt = 2;
	/* What the /proc scan found: dma-demo's compute file. */
	d->num_procs = 1;
	d->procs[0].pid = 4242;
	snprintf(d->procs[0].name, sizeof(d->procs[0].name), "dma-demo");
	d->procs[0].hbm_bytes = 64 * MiB;
	d->procs[0].engine_ns[SMI_ENGINE_DMA] = 1500000000ull;
	d->procs[0].engine_ns[SMI_ENGINE_TPC] = 250000000ull;
	d->procs[0].engine_known = true;
	snprintf(d->bus_id, sizeof(d->bus_id), "0000:00:%02x.0", 3 + index);
	snprintf(d->driver_version, sizeof(d->driver_version), "0.1.0");
	snprintf((char *)d->hw.card_name, sizeof(d->hw.card_name), "HL-GAUDISIM");
	d->hw.device_id = GAUDISIM_HL_DEVICE_ID_GAUDI;
	d->hw_ext.hw_version = 0x10000;
	d->hw_ext.hbm_total_size = 32768 * MiB;
	d->hw.dram_size = 32256 * MiB;
	d->hw.dram_base_address = 512 * MiB;
	d->hw.sram_size = 20 * MiB;
	d->hw.sram_base_address = 0x7FF0000000ULL;
	d->hw_ext.num_pci_dma = 2;
	d->hw_ext.num_hbm_dma = 6;
	d->hw_ext.num_mme = 1;
	d->hw_ext.num_tpc = 8;
	d->hw.tpc_enabled_mask = 0xff;
	d->hw_ext.num_queues = 73;
	d->hw_ext.queue_mask[0] = 0xff;
	d->dram.dram_total_mem = 32256 * MiB;
	d->dram.dram_used_mem = 64 * MiB;
	d->dram.dram_free_mem = (32256 - 64) * MiB;
	d->status = GAUDISIM_DEVICE_STATUS_OPERATIONAL;
	d->idle.is_idle = 1;
	d->open_stats.open_counter = 3;
	d->open_stats.last_open_period_ms = 1500;
	d->open_stats.is_compute_ctx_active = 1;
	d->open_stats.compute_pid = 4242;
	snprintf(d->process_name, sizeof(d->process_name), "dma-demo");
	d->cs.submitted = 10;
	d->cs.completed = 9;
	d->cs.errors = 1;
	d->tel.have = SMI_TEL_TEMP | SMI_TEL_POWER | SMI_TEL_POWER_CAP | SMI_TEL_CLOCK |
		      SMI_TEL_RESETS | SMI_TEL_MODULE_ID | SMI_TEL_FW | SMI_TEL_UTIL |
		      SMI_TEL_THROTTLE | SMI_TEL_ECC | SMI_TEL_UTIL_CLASSES;
	d->tel.temp_mc = 39500;
	d->tel.temp_max_mc = 90000;
	d->tel.temp_crit_mc = 100000;
	d->tel.power_mw = 60250;
	d->tel.energy_mj = 628110;
	d->tel.power_cap_mw = 350000;
	d->tel.power_cap_max_mw = 600000;
	d->tel.clk_cur_mhz = 2100;
	d->tel.clk_max_mhz = 2200;
	d->tel.hard_reset_cnt = 2;
	d->tel.module_id = 0;
	snprintf(d->tel.fw_version, sizeof(d->tel.fw_version), "gaudisim-fw-1.2.3");
	d->tel.utilization = 37;
	d->tel.util_dma = 12;
	d->tel.util_mme = 30;
	d->tel.util_tpc = 25;
	d->tel.util_nic = 0;
	d->tel.util_busy_ns = 2500000;
	d->tel.util_period_ns = 100000000;
	d->tel.throttle_mask = GAUDISIM_CLK_THROTTLE_POWER;
	d->tel.violation_power_ns = 1500000;
	d->tel.ecc_corrected_volatile = 1;
	d->tel.ecc_corrected_aggregate = 3;
	d->tel.ecc_uncorrected_aggregate = 1;
}

static void setup(void)
{
	fill_device(&dev[0], 0);
	fill_device(&dev[1], 1);
	report.smi_version = "9.9.9";
	report.timestamp = "Mon Jan  5 10:00:00 2026";
	report.query_time = "2026/01/05 10:00:00.250";
	report.sections = 0;
	report.devices = dev;
	report.num_devices = 1;
	out_text = NULL;
	out_len = 0;
}

static void teardown(void)
{
	free(out_text);
}

enum what { TABLE, DETAIL };

static const char *render(enum what what)
{
	FILE *f = open_memstream(&out_text, &out_len);

	ck_assert_ptr_nonnull(f);
	if (what == TABLE)
		smi_print_table(f, &report);
	else
		smi_print_detail(f, &report);
	fclose(f);
	return out_text;
}

static const char *render_csv(const char *fields, const char *format)
{
	struct smi_query q;
	char err[256];
	FILE *f;

	smi_query_init(&q);
	ck_assert_int_eq(smi_parse_fields(fields, &q, err, sizeof(err)), 0);
	if (format)
		ck_assert_int_eq(smi_parse_format(format, &q, err, sizeof(err)), 0);
	f = open_memstream(&out_text, &out_len);
	ck_assert_ptr_nonnull(f);
	smi_print_csv(f, &report, &q);
	fclose(f);
	return out_text;
}

/* Every non-empty line of the table is exactly SMI_TABLE_WIDTH columns. */
static void assert_table_width(const char *text)
{
	const char *line = text;
	int lines = 0;

	while (*line) {
		size_t len = strcspn(line, "\n");

		if (len)
			ck_assert_msg(len == SMI_TABLE_WIDTH, "line %d is %zu columns: '%.*s'",
				      lines, len, (int)len, line);
		lines++;
		line += len + (line[len] == '\n');
	}
	ck_assert_int_gt(lines, 8);
}

/* ---- Table ------------------------------------------------------------- */

static const char golden_table[] =
"+-----------------------------------------------------------------------------+\n"
"| HL-SMI Version: 9.9.9                                 Driver Version: 0.1.0 |\n"
"|-------------------------------+----------------------+----------------------|\n"
"| AIP  Name                     | Bus-Id               | Memory-Usage         |\n"
"| Temp   Pwr:Usage/Cap          | Status       Engines | AIP-Util             |\n"
"|===============================+======================+======================|\n"
"|   0  HL-GAUDISIM              | 0000:00:03.0         |     64MiB / 32256MiB |\n"
"| 39C         60W / 350W        | Operational  Idle    |                  37% |\n"
"+-------------------------------+----------------------+----------------------+\n"
"\n"
"+-----------------------------------------------------------------------------+\n"
"| Compute Processes:                                                          |\n"
"|  AIP       PID   Process name                      Engine Time   AIP Memory |\n"
"|=============================================================================|\n"
"|    0      4242   dma-demo                               1750ms        64MiB |\n"
"+-----------------------------------------------------------------------------+\n";

START_TEST(table_matches_golden)
{
	ck_assert_str_eq(render(TABLE), golden_table);
}
END_TEST

START_TEST(table_is_79_columns)
{
	assert_table_width(render(TABLE));
}
END_TEST

START_TEST(table_two_devices)
{
	const char *t;

	report.num_devices = 2;
	dev[1].open_stats.is_compute_ctx_active = 0;
	dev[1].open_stats.compute_pid = 0;
	dev[1].num_procs = 0;
	dev[1].idle.is_idle = 0;
	dev[1].status = GAUDISIM_DEVICE_STATUS_NEEDS_RESET;
	t = render(TABLE);
	assert_table_width(t);
	ck_assert_ptr_nonnull(strstr(t, "|   1  HL-GAUDISIM "));
	ck_assert_ptr_nonnull(strstr(t, "0000:00:04.0"));
	ck_assert_ptr_nonnull(strstr(t, "Needs reset"));
	ck_assert_ptr_nonnull(strstr(t, "Needs reset  Busy "));
	/* Only the device with a holder is in the process table. */
	ck_assert_ptr_nonnull(strstr(t, "4242"));
	ck_assert_ptr_null(strstr(strstr(t, "4242"), "|    1 "));
}
END_TEST

START_TEST(table_without_processes)
{
	const char *t;

	dev[0].open_stats.is_compute_ctx_active = 0;
	dev[0].num_procs = 0;
	t = render(TABLE);
	assert_table_width(t);
	ck_assert_ptr_nonnull(strstr(t, "| No running processes found "));
	ck_assert_ptr_null(strstr(t, "4242"));
}
END_TEST

START_TEST(table_has_no_invented_columns)
{
	const char *t = render(TABLE);

	/* The model has no fan; everything shown was reported. */
	ck_assert_ptr_null(strstr(t, "Fan"));
	ck_assert_ptr_null(strstr(t, "N/A"));
}
END_TEST

START_TEST(table_missing_telemetry_is_na)
{
	const char *t;

	dev[0].tel.have = 0;
	t = render(TABLE);
	assert_table_width(t);
	ck_assert_ptr_nonnull(strstr(t, "| N/A         N/A / N/A "));
	ck_assert_ptr_nonnull(strstr(t, "N/A |\n"));
}
END_TEST

START_TEST(table_missing_info_is_na)
{
	const char *t;

	dev[0].have = 0;
	dev[0].bus_id[0] = '\0';
	t = render(TABLE);
	assert_table_width(t);
	ck_assert_ptr_nonnull(strstr(t, "|   0  N/A "));
	ck_assert_ptr_nonnull(strstr(t, "Driver Version: N/A"));
	ck_assert_ptr_null(strstr(t, "MiB"));
	ck_assert_ptr_nonnull(strstr(t, "| No running processes found "));
}
END_TEST

START_TEST(table_long_name_is_cut)
{
	memset(dev[0].hw.card_name, 'X', sizeof(dev[0].hw.card_name));	/* no NUL */
	assert_table_width(render(TABLE));
}
END_TEST

START_TEST(table_no_devices)
{
	report.num_devices = 0;
	assert_table_width(render(TABLE));
}
END_TEST

/* ---- Detailed log ------------------------------------------------------ */

/* Value of "Key : value" lines: the text after " : " on the line naming key. */
static const char *detail_value(const char *text, const char *key, char *buf, size_t len)
{
	const char *line = text;

	while (*line) {
		size_t n = strcspn(line, "\n");
		const char *k = line + strspn(line, " ");

		if (!strncmp(k, key, strlen(key)) && k[strlen(key)] == ' ') {
			const char *sep = strstr(line, " : ");

			ck_assert_ptr_nonnull(sep);
			snprintf(buf, len, "%.*s", (int)(line + n - sep - 3), sep + 3);
			return buf;
		}
		line += n + (line[n] == '\n');
	}
	return NULL;
}

START_TEST(detail_values)
{
	const char *t = render(DETAIL);
	char v[128];

	ck_assert_ptr_nonnull(strstr(t, "================ HL-SMI LOG ================\n"));
	ck_assert_ptr_nonnull(strstr(t, "\n[0] AIP (accel0) 0000:00:03.0\n"));
	ck_assert_str_eq(detail_value(t, "Timestamp", v, sizeof(v)), "Mon Jan  5 10:00:00 2026");
	ck_assert_str_eq(detail_value(t, "Attached AIPs", v, sizeof(v)), "1");
	ck_assert_str_eq(detail_value(t, "Product Name", v, sizeof(v)), "HL-GAUDISIM");
	ck_assert_str_eq(detail_value(t, "Module status", v, sizeof(v)), "Operational");
	ck_assert_str_eq(detail_value(t, "HW Revision", v, sizeof(v)), "1.0");
	ck_assert_str_eq(detail_value(t, "Device Id", v, sizeof(v)), "0x1de5ff10");
	ck_assert_str_eq(detail_value(t, "Total", v, sizeof(v)), "32256 MiB");
	ck_assert_str_eq(detail_value(t, "Used", v, sizeof(v)), "64 MiB");
	ck_assert_str_eq(detail_value(t, "Free", v, sizeof(v)), "32192 MiB");
	ck_assert_str_eq(detail_value(t, "Reserved for driver", v, sizeof(v)), "512 MiB");
	ck_assert_str_eq(detail_value(t, "TPC", v, sizeof(v)), "8 (enabled mask 0xff)");
	ck_assert_str_eq(detail_value(t, "Available", v, sizeof(v)), "8 of 73");
	ck_assert_str_eq(detail_value(t, "Mask", v, sizeof(v)),
			 "0x000000000000000000000000000000ff");
	ck_assert_str_eq(detail_value(t, "Activity", v, sizeof(v)), "Idle");
	ck_assert_str_eq(detail_value(t, "PID", v, sizeof(v)), "4242");
	ck_assert_str_eq(detail_value(t, "Process name", v, sizeof(v)), "dma-demo");
	ck_assert_str_eq(detail_value(t, "Opens since load", v, sizeof(v)), "3");
	ck_assert_str_eq(detail_value(t, "Last open period", v, sizeof(v)), "1500 ms");
	ck_assert_str_eq(detail_value(t, "Submitted", v, sizeof(v)), "10");
	ck_assert_str_eq(detail_value(t, "Errors", v, sizeof(v)), "1");
	ck_assert_str_eq(detail_value(t, "DMA Util", v, sizeof(v)), "12 %");
	ck_assert_str_eq(detail_value(t, "MME Util", v, sizeof(v)), "30 %");
	ck_assert_str_eq(detail_value(t, "TPC Util", v, sizeof(v)), "25 %");
	ck_assert_str_eq(detail_value(t, "NIC Util", v, sizeof(v)), "0 %");
	ck_assert_str_eq(detail_value(t, "Modelled Busy", v, sizeof(v)), "2500 us of 100000 us");
}
END_TEST

START_TEST(detail_colons_line_up)
{
	const char *line = render(DETAIL);
	int checked = 0;

	while (*line) {
		size_t n = strcspn(line, "\n");
		const char *sep = strstr(line, " : ");

		if (sep && sep < line + n && line[0] != '[') {
			ck_assert_msg(sep - line == 35, "colon in column %td: '%.*s'",
				      sep - line + 1, (int)n, line);
			checked++;
		}
		line += n + (line[n] == '\n');
	}
	ck_assert_int_gt(checked, 20);
}
END_TEST

START_TEST(detail_idle_holder_absent)
{
	const char *t;
	char v[64];

	dev[0].open_stats.is_compute_ctx_active = 0;
	t = render(DETAIL);
	ck_assert_str_eq(detail_value(t, "Active", v, sizeof(v)), "No");
	ck_assert_ptr_null(detail_value(t, "PID", v, sizeof(v)));
}
END_TEST

START_TEST(detail_two_devices)
{
	const char *t;
	char v[64];

	report.num_devices = 2;
	t = render(DETAIL);
	ck_assert_str_eq(detail_value(t, "Attached AIPs", v, sizeof(v)), "2");
	ck_assert_ptr_nonnull(strstr(t, "\n[1] AIP (accel1) 0000:00:04.0\n"));
}
END_TEST

/* ---- CSV ---------------------------------------------------------------- */

START_TEST(csv_with_header_and_units)
{
	ck_assert_str_eq(render_csv("index,name,memory.used", "csv"),
			 "index, name, memory.used [MiB]\n"
			 "0, HL-GAUDISIM, 64 MiB\n");
}
END_TEST

START_TEST(csv_noheader_nounits)
{
	report.num_devices = 2;
	ck_assert_str_eq(render_csv("index,bus_id,memory.total", "csv,noheader,nounits"),
			 "0, 0000:00:03.0, 32256\n"
			 "1, 0000:00:04.0, 32256\n");
}
END_TEST

START_TEST(csv_options_in_any_order)
{
	ck_assert_str_eq(render_csv("memory.free", "csv,nounits,noheader"), "32192\n");
}
END_TEST

START_TEST(csv_every_field)
{
	ck_assert_str_eq(render_csv("index, name, bus_id, driver_version, memory.total, "
				    "memory.used, memory.free, status", NULL),
			 "index, name, bus_id, driver_version, memory.total [MiB], "
			 "memory.used [MiB], memory.free [MiB], status\n"
			 "0, HL-GAUDISIM, 0000:00:03.0, 0.1.0, 32256 MiB, 64 MiB, "
			 "32192 MiB, Operational\n");
}
END_TEST

START_TEST(csv_missing_info_is_na)
{
	dev[0].have &= ~(unsigned int)(SMI_HAVE_DRAM | SMI_HAVE_STATUS);
	ck_assert_str_eq(render_csv("memory.used,status,index", "csv,noheader"),
			 "N/A, N/A, 0\n");
}
END_TEST

START_TEST(csv_repeated_field)
{
	ck_assert_str_eq(render_csv("index,index", "csv,noheader"), "0, 0\n");
}
END_TEST

/* ---- Parsing ------------------------------------------------------------ */

static const char *const bad_field_lists[] = {
	"", "temperature", "index,", ",index", "index,,name", "INDEX", "memory",
	"power.drawn", "index;name", " ", "ecc.errors", "clocks.current",
};

START_TEST(fields_refused)
{
	struct smi_query q;
	char err[256] = "";

	smi_query_init(&q);
	ck_assert_int_eq(smi_parse_fields(bad_field_lists[_i], &q, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strlen(err) > 0, "no message for '%s'", bad_field_lists[_i]);
}
END_TEST

START_TEST(field_error_names_the_field)
{
	struct smi_query q;
	char err[256];

	smi_query_init(&q);
	ck_assert_int_eq(smi_parse_fields("index,utilization", &q, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'utilization'"));
	ck_assert_ptr_nonnull(strstr(err, "memory.used"));	/* lists the valid ones */
}
END_TEST

START_TEST(fields_limit)
{
	struct smi_query q;
	char list[SMI_MAX_QUERY_FIELDS * 8 + 16] = "";
	char err[256];
	int i;

	smi_query_init(&q);
	for (i = 0; i < SMI_MAX_QUERY_FIELDS; i++)
		strcat(list, i ? ",index" : "index");
	ck_assert_int_eq(smi_parse_fields(list, &q, err, sizeof(err)), 0);
	ck_assert_int_eq(q.num_fields, SMI_MAX_QUERY_FIELDS);
	strcat(list, ",name");
	ck_assert_int_eq(smi_parse_fields(list, &q, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(fields_parsed_in_order)
{
	struct smi_query q;
	char err[64];

	smi_query_init(&q);
	ck_assert_int_eq(smi_parse_fields("status,memory.free,bus_id", &q, err, sizeof(err)), 0);
	ck_assert_int_eq(q.num_fields, 3);
	ck_assert_int_eq(q.fields[0], SMI_FIELD_STATUS);
	ck_assert_int_eq(q.fields[1], SMI_FIELD_MEMORY_FREE);
	ck_assert_int_eq(q.fields[2], SMI_FIELD_BUS_ID);
	ck_assert_str_eq(smi_field_name(SMI_FIELD_MEMORY_FREE), "memory.free");
}
END_TEST

static const char *const bad_formats[] = {
	"", "json", "csv,", "csv,foo", "noheader", "csv,noheader,", "CSV", "csv;noheader",
	"csvx",
};

START_TEST(formats_refused)
{
	struct smi_query q;
	char err[256] = "";

	smi_query_init(&q);
	ck_assert_int_eq(smi_parse_format(bad_formats[_i], &q, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strlen(err) > 0, "no message for '%s'", bad_formats[_i]);
	/* A refused spec leaves the query as it was. */
	ck_assert(q.header);
	ck_assert(q.units);
}
END_TEST

START_TEST(formats_accepted)
{
	struct smi_query q;
	char err[64];

	smi_query_init(&q);
	ck_assert_int_eq(smi_parse_format("csv", &q, err, sizeof(err)), 0);
	ck_assert(q.header && q.units);
	ck_assert_int_eq(smi_parse_format("csv,noheader", &q, err, sizeof(err)), 0);
	ck_assert(!q.header && q.units);
	smi_query_init(&q);
	ck_assert_int_eq(smi_parse_format("csv,nounits", &q, err, sizeof(err)), 0);
	ck_assert(q.header && !q.units);
}
END_TEST

START_TEST(status_names)
{
	ck_assert_str_eq(smi_status_name(GAUDISIM_DEVICE_STATUS_OPERATIONAL), "Operational");
	ck_assert_str_eq(smi_status_name(GAUDISIM_DEVICE_STATUS_IN_RESET), "In reset");
	ck_assert_str_eq(smi_status_name(GAUDISIM_DEVICE_STATUS_MALFUNCTION), "Malfunction");
	ck_assert_str_eq(smi_status_name(GAUDISIM_DEVICE_STATUS_NEEDS_RESET), "Needs reset");
	ck_assert_str_eq(smi_status_name(GAUDISIM_DEVICE_STATUS_IN_DEVICE_CREATION),
			 "In device creation");
	ck_assert_str_eq(smi_status_name(77), "Unknown");
}
END_TEST

/* ---- Telemetry in the detailed log, CSV, JSON, Prometheus ------------- */

START_TEST(detail_telemetry_sections)
{
	const char *t = render(DETAIL);
	char v[128];

	ck_assert_str_eq(detail_value(t, "AIP Current Temp", v, sizeof(v)), "39 C");
	ck_assert_str_eq(detail_value(t, "AIP Slowdown Temp", v, sizeof(v)), "90 C");
	ck_assert_str_eq(detail_value(t, "AIP Shutdown Temp", v, sizeof(v)), "100 C");
	ck_assert_str_eq(detail_value(t, "Power Draw", v, sizeof(v)), "60.25 W");
	ck_assert_str_eq(detail_value(t, "Power Limit", v, sizeof(v)), "350.00 W");
	ck_assert_str_eq(detail_value(t, "Max Power Limit", v, sizeof(v)), "600.00 W");
	ck_assert_str_eq(detail_value(t, "Energy Consumed", v, sizeof(v)), "628.110 J");
	ck_assert_str_eq(detail_value(t, "soc", v, sizeof(v)), "2100 MHz");
	ck_assert_str_eq(detail_value(t, "Power Slowdown", v, sizeof(v)), "Active");
	ck_assert_str_eq(detail_value(t, "Thermal Slowdown", v, sizeof(v)), "Not Active");
	ck_assert_str_eq(detail_value(t, "Power Violation Time", v, sizeof(v)), "1500 us");
	ck_assert_str_eq(detail_value(strstr(t, "    Utilization\n"), "AIP", v, sizeof(v)), "37 %");
	ck_assert_str_eq(detail_value(strstr(t, "Volatile"), "Single Bit", v, sizeof(v)), "1");
	ck_assert_str_eq(detail_value(strstr(t, "Aggregate"), "Single Bit", v, sizeof(v)), "3");
	ck_assert_str_eq(detail_value(t, "Firmware [CPUCP] Version", v, sizeof(v)),
			 "gaudisim-fw-1.2.3");
	ck_assert_str_eq(detail_value(t, "Serial Number", v, sizeof(v)), "GS67736D0000");
	ck_assert_str_eq(detail_value(t, "AIP UUID", v, sizeof(v)),
			 "00010203-0405-0607-0809-0a0b0c0d0e0f");
	ck_assert_str_eq(detail_value(strstr(t, "    PCIe\n"), "Replay Count", v, sizeof(v)), "2");
	ck_assert_str_eq(detail_value(t, "TX Throughput", v, sizeof(v)), "678 KB/s");
	ck_assert_str_eq(detail_value(t, "RX Throughput", v, sizeof(v)), "12345 KB/s");
}
END_TEST

START_TEST(detail_sections_selected)
{
	const char *t;

	report.sections = SMI_SECTION_POWER | SMI_SECTION_ECC;
	t = render(DETAIL);
	ck_assert_ptr_nonnull(strstr(t, "Power Readings"));
	ck_assert_ptr_nonnull(strstr(t, "ECC Errors"));
	ck_assert_ptr_null(strstr(t, "Memory Usage"));
	ck_assert_ptr_null(strstr(t, "Temperature"));
	ck_assert_ptr_null(strstr(t, "Clocks"));
	ck_assert_ptr_null(strstr(t, "Utilization"));
	ck_assert_ptr_null(strstr(t, "Compute Context"));
	/* The identity lines are always there. */
	ck_assert_ptr_nonnull(strstr(t, "Product Name"));
}
END_TEST

START_TEST(sections_parsed)
{
	unsigned int bits = 0;
	char err[256] = "";

	ck_assert_int_eq(smi_parse_sections("MEMORY,power,Ecc", &bits, err, sizeof(err)), 0);
	ck_assert_uint_eq(bits, SMI_SECTION_MEMORY | SMI_SECTION_POWER | SMI_SECTION_ECC);
	ck_assert_int_eq(smi_parse_sections("TEMPERATURE,FAN", &bits, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'FAN'"));
	ck_assert_int_eq(smi_parse_sections("", &bits, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(smi_parse_sections("MEMORY,", &bits, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(smi_parse_sections("NIC", &bits, err, sizeof(err)), 0);
	ck_assert_uint_eq(bits, SMI_SECTION_NIC);
	ck_assert_int_eq(smi_parse_sections("net,ecc", &bits, err, sizeof(err)), 0);
	ck_assert_uint_eq(bits, SMI_SECTION_NIC | SMI_SECTION_ECC);
}
END_TEST

START_TEST(csv_telemetry_fields)
{
	ck_assert_str_eq(render_csv("temperature.aip,power.draw,power.limit,utilization.aip,"
				    "clocks.current.soc,clocks.limit.soc,module_id", "csv"),
			 "temperature.aip [C], power.draw [W], power.limit [W], "
			 "utilization.aip [%], clocks.current.soc [MHz], clocks.limit.soc [MHz], "
			 "module_id\n"
			 "39 C, 60.25 W, 350.00 W, 37 %, 2100 MHz, 2200 MHz, 0\n");
	free(out_text);
	out_text = NULL;
	ck_assert_str_eq(render_csv("ecc.errors.corrected.volatile.total,"
				    "ecc.errors.corrected.aggregate.total,"
				    "ecc.errors.uncorrected.aggregate.total,stats.violation.power,"
				    "serial,uuid,timestamp,reset_count.hard", "csv,noheader,nounits"),
			 "1, 3, 1, 1500, GS67736D0000, 00010203-0405-0607-0809-0a0b0c0d0e0f, "
			 "2026/01/05 10:00:00.250, 2\n");
}
END_TEST

START_TEST(csv_missing_telemetry_is_na)
{
	dev[0].tel.have = 0;
	ck_assert_str_eq(render_csv("temperature.aip,power.draw,utilization.aip,module_id",
				    "csv,noheader"), "N/A, N/A, N/A, N/A\n");
}
END_TEST

static const char *render_export(bool prometheus, const char *fields)
{
	struct smi_query q;
	char err[256];
	FILE *f;

	smi_query_init(&q);
	if (fields)
		ck_assert_int_eq(smi_parse_fields(fields, &q, err, sizeof(err)), 0);
	f = open_memstream(&out_text, &out_len);
	ck_assert_ptr_nonnull(f);
	if (prometheus)
		smi_print_prometheus(f, &report);
	else
		smi_print_json(f, &report, &q);
	fclose(f);
	return out_text;
}

START_TEST(json_selected_fields)
{
	ck_assert_str_eq(render_export(false, "index,name,power.draw,serial"),
			 "{\n"
			 "  \"hl_smi_version\": \"9.9.9\",\n"
			 "  \"timestamp\": \"2026/01/05 10:00:00.250\",\n"
			 "  \"aips\": [\n"
			 "    {\n"
			 "      \"index\": 0,\n"
			 "      \"name\": \"HL-GAUDISIM\",\n"
			 "      \"power.draw\": 60.25,\n"
			 "      \"serial\": \"GS67736D0000\",\n"
			 "      \"processes\": [{\"pid\": 4242, \"name\": \"dma-demo\", "
			 "\"memory.used\": 64, \"engine_ns\": {\"dma\": 1500000000, \"mme\": 0, "
			 "\"tpc\": 250000000, \"nic\": 0}}]\n"
			 "    }\n"
			 "  ]\n"
			 "}\n");
}
END_TEST

START_TEST(json_every_field_two_devices)
{
	const char *t;
	int i;

	report.num_devices = 2;
	snprintf(dev[1].procs[0].name, sizeof(dev[1].procs[0].name), "a\"b\\c");
	/* Not a JSON number, although strtod() reads it as one. */
	snprintf((char *)dev[1].hw.card_name, sizeof(dev[1].hw.card_name), "inf");
	t = render_export(false, NULL);
	for (i = 0; i < SMI_FIELD_COUNT; i++) {
		char key[64];

		snprintf(key, sizeof(key), "\"%s\": ", smi_field_name((enum smi_field)i));
		ck_assert_msg(strstr(t, key) != NULL, "no %s in:\n%s", key, t);
	}
	ck_assert_ptr_nonnull(strstr(t, "\"status\": \"Operational\""));
	ck_assert_ptr_nonnull(strstr(t, "\"name\": \"a\\\"b\\\\c\""));	/* escaped */
	ck_assert_ptr_nonnull(strstr(t, "    },\n    {"));
	ck_assert_ptr_nonnull(strstr(t, "\"name\": \"inf\""));
}
END_TEST

START_TEST(prometheus_exposition)
{
	const char *t;

	report.num_devices = 2;
	dev[1].tel.have = 0;
	t = render_export(true, NULL);
	ck_assert_ptr_nonnull(strstr(t, "# TYPE hlsmi_power_draw_watts gauge\n"
				       "hlsmi_power_draw_watts{aip=\"0\",bus_id=\"0000:00:03.0\"} 60.25\n"
				       "# HELP"));
	ck_assert_ptr_nonnull(strstr(t, "hlsmi_up{aip=\"1\",bus_id=\"0000:00:04.0\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "hlsmi_throttle_seconds_total{aip=\"0\",bus_id="
				       "\"0000:00:03.0\",reason=\"power\"} 0.0015\n"));
	ck_assert_ptr_nonnull(strstr(t, "hlsmi_utilization_ratio{aip=\"0\",bus_id="
				       "\"0000:00:03.0\"} 0.37\n"));
	ck_assert_ptr_nonnull(strstr(t, "# TYPE hlsmi_energy_joules_total counter\n"));
	ck_assert_ptr_nonnull(strstr(t, "hlsmi_pcie_rx_bytes_per_second{aip=\"0\",bus_id="
				       "\"0000:00:03.0\"} 12345000\n"));
	ck_assert_ptr_nonnull(strstr(t, "hlsmi_pcie_replays_total{aip=\"0\",bus_id="
				       "\"0000:00:03.0\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(t, "hlsmi_process_engine_seconds_total{aip=\"0\",bus_id="
				       "\"0000:00:03.0\",pid=\"4242\",engine=\"dma\"} 1.5\n"));
	ck_assert_ptr_nonnull(strstr(t, "hlsmi_process_memory_used_bytes{aip=\"0\",bus_id="
				       "\"0000:00:03.0\",pid=\"4242\"} 67108864\n"));
	/* Nothing for what device 1 did not report. */
	ck_assert_ptr_null(strstr(t, "hlsmi_temperature_celsius{aip=\"1\""));
}
END_TEST

START_TEST(pcie_fields_and_section)
{
	unsigned int sections = 0;
	char err[256];
	const char *t;

	ck_assert_str_eq(render_csv("pcie.rx,pcie.tx,pcie.replay_count", "csv"),
			 "pcie.rx [KB/s], pcie.tx [KB/s], pcie.replay_count\n"
			 "12345 KB/s, 678 KB/s, 2\n");
	free(out_text);
	out_text = NULL;
	ck_assert_int_eq(smi_parse_sections("pcie", &sections, err, sizeof(err)), 0);
	ck_assert_uint_eq(sections, SMI_SECTION_PCIE);
	report.sections = SMI_SECTION_PCIE;
	t = render(DETAIL);
	ck_assert_ptr_nonnull(strstr(t, "    PCIe\n"));
	ck_assert_ptr_null(strstr(t, "Power Readings"));
	free(out_text);
	out_text = NULL;
	/* A driver without the op: N/A, not 0. */
	dev[0].have &= ~SMI_HAVE_PCI;
	ck_assert_str_eq(render_csv("pcie.rx,pcie.replay_count", "csv,noheader"), "N/A, N/A\n");
}
END_TEST

START_TEST(process_list_without_proc_scan)
{
	const char *t;

	/* /proc unreadable: the holder INFO names, engine time unknown. */
	dev[0].have &= ~SMI_HAVE_PROCS;
	t = render(TABLE);
	assert_table_width(t);
	ck_assert_ptr_nonnull(strstr(t, "|    0      4242   dma-demo                                  N/A"
				       "        64MiB |\n"));
	free(out_text);
	out_text = NULL;
	t = render_export(false, "index");
	ck_assert_ptr_nonnull(strstr(t, "\"memory.used\": 64, \"engine_ns\": null}"));
}
END_TEST

START_TEST(process_list_several_processes)
{
	const char *t;

	dev[0].num_procs = 2;
	dev[0].procs[1] = dev[0].procs[0];
	dev[0].procs[1].pid = 5000;
	dev[0].procs[1].engine_ns[SMI_ENGINE_DMA] = 3000000;
	dev[0].procs[1].engine_ns[SMI_ENGINE_TPC] = 0;
	dev[0].procs[1].hbm_bytes = 2 * MiB;
	t = render(TABLE);
	assert_table_width(t);
	ck_assert_ptr_nonnull(strstr(t, "   4242   dma-demo "));
	ck_assert_ptr_nonnull(strstr(t, "   5000   dma-demo                                  3ms"
				       "         2MiB |\n"));
}
END_TEST

/* A process name is another user's text: no byte of it reaches the terminal raw. */
START_TEST(process_names_are_escaped)
{
	const char *t;

	snprintf(dev[0].procs[0].name, sizeof(dev[0].procs[0].name), "ev\x1b]0;x\a\\il");
	snprintf(dev[0].process_name, sizeof(dev[0].process_name), "%s", dev[0].procs[0].name);
	t = render(TABLE);
	assert_table_width(t);
	ck_assert_ptr_nonnull(strstr(t, " ev\\x1b]0;x\\x07\\x5cil "));
	ck_assert_ptr_null(strchr(t, 0x1b));
	ck_assert_ptr_null(strchr(t, 0x07));
	free(out_text);
	out_text = NULL;
	t = render(DETAIL);
	ck_assert_ptr_nonnull(strstr(t, ": ev\\x1b]0;x\\x07\\x5cil\n"));
	ck_assert_ptr_null(strchr(t, 0x1b));
}
END_TEST

/* ---- procs.c: the /proc/<pid>/fdinfo scan, on a tree made for the test --- */

static char proc_root[64];

static void put_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc_root, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void put_dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", proc_root, rel);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static const char fdinfo_ours[] =
	"pos:\t0\nflags:\t02100002\n"
	"drm-driver:\tgaudisim\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:03.0\n"
	"drm-engine-dma:\t2000000 ns\ndrm-engine-mme:\t0 ns\ndrm-engine-tpc:\t500 ns\n"
	"drm-engine-nic:\t0 ns\ndrm-total-hbm:\t4194304\ndrm-resident-hbm:\t4194304\n";

START_TEST(proc_scan_sums_files_per_process)
{
	struct smi_device d;

	snprintf(proc_root, sizeof(proc_root), "%s/smi-proc-XXXXXX", P_tmpdir);
	ck_assert_ptr_nonnull(mkdtemp(proc_root));
	/* 300: two compute files of this device, and a file of another device. */
	put_dir("300");
	put_dir("300/fdinfo");
	put_file("300/comm", "trainer\n");
	put_file("300/fdinfo/3", fdinfo_ours);
	put_file("300/fdinfo/4", fdinfo_ours);
	put_file("300/fdinfo/5", "drm-driver:\tgaudisim\ndrm-pdev:\t0000:00:04.0\n"
				 "drm-engine-dma:\t99 ns\ndrm-total-hbm:\t99\n");
	/* 20: another driver's DRM file on the same address (not ours). */
	put_dir("20");
	put_dir("20/fdinfo");
	put_file("20/comm", "glxgears\n");
	put_file("20/fdinfo/9", "drm-driver:\ti915\ndrm-pdev:\t0000:00:03.0\n");
	/* 7: one file; "self" and other names are skipped. */
	put_dir("7");
	put_dir("7/fdinfo");
	put_file("7/comm", "hl-smi\n");
	put_file("7/fdinfo/0", fdinfo_ours);
	put_dir("self");

	memset(&d, 0, sizeof(d));
	snprintf(d.bus_id, sizeof(d.bus_id), "0000:00:03.0");
	smi_collect_processes(proc_root, &d);
	ck_assert(d.have & SMI_HAVE_PROCS);
	ck_assert_int_eq(d.num_procs, 2);
	ck_assert_uint_eq(d.procs[0].pid, 7);
	ck_assert_str_eq(d.procs[0].name, "hl-smi");
	ck_assert_uint_eq(d.procs[1].pid, 300);
	ck_assert_str_eq(d.procs[1].name, "trainer");
	ck_assert_uint_eq(d.procs[1].engine_ns[SMI_ENGINE_DMA], 4000000);
	ck_assert_uint_eq(d.procs[1].engine_ns[SMI_ENGINE_TPC], 1000);
	ck_assert_uint_eq(d.procs[1].hbm_bytes, 8 * MiB);
	ck_assert(d.procs[1].engine_known);

	/* No proc tree: the scan did not run, nothing is invented. */
	memset(&d, 0, sizeof(d));
	snprintf(d.bus_id, sizeof(d.bus_id), "0000:00:03.0");
	ck_assert_int_eq(nftw(proc_root, remove_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
	smi_collect_processes(proc_root, &d);
	ck_assert(!(d.have & SMI_HAVE_PROCS));
	ck_assert_int_eq(d.num_procs, 0);
}
END_TEST

/* ---- NIC: -q section and topo -c ----------------------------------------- */

/* Module m of an n-card box: in-box ports cabled all-to-all, up; scale-out free. */
static void nic_box(struct smi_device *d, uint32_t m, uint32_t n)
{
	uint32_t p;

	d->have |= SMI_HAVE_NIC;
	memset(&d->nic, 0, sizeof(d->nic));
	d->nic.module_id = m;
	d->nic.num_ports = GAUDISIM_INFO_NIC_MAX_PORTS;
	for (p = 0; p < GAUDISIM_INFO_NIC_MAX_PORTS; p++) {
		struct gaudisim_info_nic_port *q = &d->nic.port[p];
		int peer = gaudisim_nic_intra_peer(m, p);

		if (peer < 0) {
			q->link = GAUDISIM_INFO_NIC_LINK_SCALEOUT;
			continue;
		}
		if ((uint32_t)peer >= n)
			continue;
		q->link = GAUDISIM_INFO_NIC_LINK_CABLED | GAUDISIM_INFO_NIC_LINK_UP;
		q->peer_module = (uint32_t)peer;
		q->peer_port = (uint32_t)gaudisim_nic_port_to((uint32_t)peer, m);
	}
}

/* Cut the cable between modules a and b (both ends down). */
static void nic_cut(struct smi_device *d, uint32_t a, uint32_t b)
{
	d[a].nic.port[gaudisim_nic_port_to(a, b)].link &= ~GAUDISIM_INFO_NIC_LINK_UP;
	d[b].nic.port[gaudisim_nic_port_to(b, a)].link &= ~GAUDISIM_INFO_NIC_LINK_UP;
	d[a].nic.port[gaudisim_nic_port_to(a, b)].link_down_count = 1;
}

START_TEST(detail_nic_ports)
{
	struct smi_device box[2];
	const char *t;
	char v[160];

	fill_device(&box[0], 0);
	fill_device(&box[1], 1);
	nic_box(&box[0], 0, 2);
	nic_box(&box[1], 1, 2);
	box[0].nic.port[0].tx_bytes = 4096;
	box[0].nic.port[0].rx_bytes = 8192;
	box[0].nic.port[7].link |= GAUDISIM_INFO_NIC_LINK_CABLED | GAUDISIM_INFO_NIC_LINK_UP;
	box[0].nic.port[7].peer_module = 0;
	box[0].nic.port[7].peer_port = 7;
	report.devices = box;
	report.sections = SMI_SECTION_NIC;
	t = render(DETAIL);
	ck_assert_ptr_nonnull(strstr(t, "    NIC\n"));
	ck_assert_str_eq(detail_value(t, "Port 0", v, sizeof(v)),
			 "up, in-box, module 1 port 0, TX 4096 B, RX 8192 B, TX errors 0, "
			 "link down 0 times");
	ck_assert_str_eq(detail_value(t, "Port 1", v, sizeof(v)),
			 "down, in-box, not cabled, TX 0 B, RX 0 B, TX errors 0, link down 0 times");
	ck_assert_str_eq(detail_value(t, "Port 7", v, sizeof(v)),
			 "up, scale-out, module 0 port 7, TX 0 B, RX 0 B, TX errors 0, "
			 "link down 0 times");
	ck_assert_ptr_nonnull(detail_value(t, "Port 9", v, sizeof(v)));
	ck_assert_ptr_null(detail_value(t, "Port 10", v, sizeof(v)));
	ck_assert_ptr_null(strstr(t, "Power Readings"));
	free(out_text);
	/* A cut cable is down and counted; a driver without the op prints N/A. */
	nic_cut(box, 0, 1);
	box[1].have &= ~SMI_HAVE_NIC;
	report.num_devices = 2;
	t = render(DETAIL);
	ck_assert_ptr_nonnull(strstr(detail_value(t, "Port 0", v, sizeof(v)), "link down 1 times"));
	ck_assert_str_eq(strstr(t, "[1] AIP") ? detail_value(strstr(t, "[1] AIP"), "Ports", v,
							     sizeof(v)) : "", "N/A");
	free(out_text);
	/* The NIC section is in the full log, and -d takes NIC and NET. */
	report.sections = 0;
	t = render(DETAIL);
	ck_assert_ptr_nonnull(strstr(t, "    NIC\n"));
}
END_TEST

static const char golden_topo[] =
"        AIP0    AIP1    AIP2    AIP3    Module  Scale-out\n"
"AIP0    X       1       1       0/1     0       -\n"
"AIP1    1       X       1       1       1       -\n"
"AIP2    1       1       X       1       2       1\n"
"AIP3    0/1     1       1       X       3       -\n"
"\n"
"Legend:\n"
"  X    = self\n"
"  N    = N NIC links, all up\n"
"  U/C  = U of C cabled links up (the others cut)\n"
"  -    = not connected\n";

START_TEST(topo_matrix)
{
	struct smi_device box[4];
	FILE *f;
	uint32_t i;

	for (i = 0; i < 4; i++) {
		fill_device(&box[i], (int)i);
		nic_box(&box[i], i, 4);
	}
	nic_cut(box, 0, 3);
	/* A scale-out cable on card 2 (to another box). */
	box[2].nic.port[8].link |= GAUDISIM_INFO_NIC_LINK_CABLED | GAUDISIM_INFO_NIC_LINK_UP;
	box[2].nic.port[8].peer_module = 2;
	report.devices = box;
	report.num_devices = 4;
	f = open_memstream(&out_text, &out_len);
	ck_assert_ptr_nonnull(f);
	smi_print_topo(f, &report);
	fclose(f);
	ck_assert_str_eq(out_text, golden_topo);
	free(out_text);
	/* A card without NIC facts: N/A, not a guess. */
	box[1].have &= ~SMI_HAVE_NIC;
	f = open_memstream(&out_text, &out_len);
	smi_print_topo(f, &report);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out_text, "\nAIP1    N/A     X       N/A     N/A     N/A     N/A\n"));
	ck_assert_ptr_nonnull(strstr(out_text, "\nAIP0    X       N/A     1       0/1 "));
}
END_TEST

Suite *smi_format_suite(void)
{
	Suite *s = suite_create("smi-format");
	TCase *table = tcase_create("table");
	TCase *detail = tcase_create("detail");
	TCase *csv = tcase_create("csv");
	TCase *parse = tcase_create("parse");

	tcase_add_checked_fixture(table, setup, teardown);
	tcase_add_test(table, table_matches_golden);
	tcase_add_test(table, table_is_79_columns);
	tcase_add_test(table, table_two_devices);
	tcase_add_test(table, table_without_processes);
	tcase_add_test(table, table_has_no_invented_columns);
	tcase_add_test(table, table_missing_telemetry_is_na);
	tcase_add_test(table, table_missing_info_is_na);
	tcase_add_test(table, table_long_name_is_cut);
	tcase_add_test(table, table_no_devices);
	suite_add_tcase(s, table);

	tcase_add_checked_fixture(detail, setup, teardown);
	tcase_add_test(detail, detail_values);
	tcase_add_test(detail, detail_colons_line_up);
	tcase_add_test(detail, detail_idle_holder_absent);
	tcase_add_test(detail, detail_two_devices);
	tcase_add_test(detail, detail_telemetry_sections);
	tcase_add_test(detail, detail_sections_selected);
	tcase_add_test(detail, detail_nic_ports);
	tcase_add_test(detail, topo_matrix);
	suite_add_tcase(s, detail);

	tcase_add_checked_fixture(csv, setup, teardown);
	tcase_add_test(csv, csv_with_header_and_units);
	tcase_add_test(csv, csv_noheader_nounits);
	tcase_add_test(csv, csv_options_in_any_order);
	tcase_add_test(csv, csv_every_field);
	tcase_add_test(csv, csv_missing_info_is_na);
	tcase_add_test(csv, csv_repeated_field);
	tcase_add_test(csv, csv_telemetry_fields);
	tcase_add_test(csv, csv_missing_telemetry_is_na);
	tcase_add_test(csv, json_selected_fields);
	tcase_add_test(csv, json_every_field_two_devices);
	tcase_add_test(csv, prometheus_exposition);
	tcase_add_test(csv, pcie_fields_and_section);
	tcase_add_test(csv, process_list_without_proc_scan);
	tcase_add_test(csv, process_list_several_processes);
	tcase_add_test(csv, process_names_are_escaped);
	tcase_add_test(csv, proc_scan_sums_files_per_process);
	suite_add_tcase(s, csv);

	tcase_add_loop_test(parse, fields_refused, 0,
			    (int)(sizeof(bad_field_lists) / sizeof(bad_field_lists[0])));
	tcase_add_test(parse, field_error_names_the_field);
	tcase_add_test(parse, fields_limit);
	tcase_add_test(parse, fields_parsed_in_order);
	tcase_add_loop_test(parse, formats_refused, 0,
			    (int)(sizeof(bad_formats) / sizeof(bad_formats[0])));
	tcase_add_test(parse, formats_accepted);
	tcase_add_test(parse, status_names);
	tcase_add_test(parse, sections_parsed);
	suite_add_tcase(s, parse);
	return s;
}
