// SPDX-License-Identifier: MIT
/*
 * hl-smi output formats. Only facts the driver reports are shown; what it
 * cannot report (fan, PCIe link width) prints as N/A.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "format.h"
#include "hw/gaudisim_hw_regs.h"

#define MIB_SHIFT	20
#define NA		"N/A"

/* Default table: three columns between the outer bars. */
#define TABLE_INNER	(SMI_TABLE_WIDTH - 2)
#define COL1		31
#define COL2		22
#define COL3		(TABLE_INNER - COL1 - COL2 - 2)

/* Detailed log: values start after the key column. */
#define DETAIL_KEY_COLUMN 36

static const char *const field_names[SMI_FIELD_COUNT] = {
	[SMI_FIELD_INDEX] = "index",
	[SMI_FIELD_NAME] = "name",
	[SMI_FIELD_BUS_ID] = "bus_id",
	[SMI_FIELD_DRIVER_VERSION] = "driver_version",
	[SMI_FIELD_MEMORY_TOTAL] = "memory.total",
	[SMI_FIELD_MEMORY_USED] = "memory.used",
	[SMI_FIELD_MEMORY_FREE] = "memory.free",
	[SMI_FIELD_STATUS] = "status",
	[SMI_FIELD_TIMESTAMP] = "timestamp",
	[SMI_FIELD_MODULE_ID] = "module_id",
	[SMI_FIELD_SERIAL] = "serial",
	[SMI_FIELD_UUID] = "uuid",
	[SMI_FIELD_TEMPERATURE_AIP] = "temperature.aip",
	[SMI_FIELD_UTILIZATION_AIP] = "utilization.aip",
	[SMI_FIELD_POWER_DRAW] = "power.draw",
	[SMI_FIELD_POWER_LIMIT] = "power.limit",
	[SMI_FIELD_POWER_MAX] = "power.max",
	[SMI_FIELD_CLOCKS_CURRENT_SOC] = "clocks.current.soc",
	[SMI_FIELD_CLOCKS_LIMIT_SOC] = "clocks.limit.soc",
	[SMI_FIELD_ECC_UNCORRECTED_AGGREGATE] = "ecc.errors.uncorrected.aggregate.total",
	[SMI_FIELD_ECC_UNCORRECTED_VOLATILE] = "ecc.errors.uncorrected.volatile.total",
	[SMI_FIELD_ECC_CORRECTED_AGGREGATE] = "ecc.errors.corrected.aggregate.total",
	[SMI_FIELD_ECC_CORRECTED_VOLATILE] = "ecc.errors.corrected.volatile.total",
	[SMI_FIELD_VIOLATION_POWER] = "stats.violation.power",
	[SMI_FIELD_VIOLATION_THERMAL] = "stats.violation.thermal",
	[SMI_FIELD_RESET_COUNT_HARD] = "reset_count.hard",
	[SMI_FIELD_PCIE_RX] = "pcie.rx",
	[SMI_FIELD_PCIE_TX] = "pcie.tx",
	[SMI_FIELD_PCIE_REPLAY_COUNT] = "pcie.replay_count",
};

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

const char *smi_field_name(enum smi_field field)
{
	return (unsigned int)field < SMI_FIELD_COUNT ? field_names[field] : "?";
}

const char *smi_field_unit(enum smi_field field)
{
	switch (field) {
	case SMI_FIELD_MEMORY_TOTAL:
	case SMI_FIELD_MEMORY_USED:
	case SMI_FIELD_MEMORY_FREE:
		return "MiB";
	case SMI_FIELD_TEMPERATURE_AIP:
		return "C";
	case SMI_FIELD_UTILIZATION_AIP:
		return "%";
	case SMI_FIELD_POWER_DRAW:
	case SMI_FIELD_POWER_LIMIT:
	case SMI_FIELD_POWER_MAX:
		return "W";
	case SMI_FIELD_CLOCKS_CURRENT_SOC:
	case SMI_FIELD_CLOCKS_LIMIT_SOC:
		return "MHz";
	case SMI_FIELD_VIOLATION_POWER:
	case SMI_FIELD_VIOLATION_THERMAL:
		return "us";
	case SMI_FIELD_PCIE_RX:
	case SMI_FIELD_PCIE_TX:
		return "KB/s";
	default:
		return NULL;
	}
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

static void set_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void smi_query_init(struct smi_query *q)
{
	memset(q, 0, sizeof(*q));
	q->header = true;
	q->units = true;
}

static int lookup_field(const char *name, size_t len)
{
	int f;

	for (f = 0; f < SMI_FIELD_COUNT; f++)
		if (strlen(field_names[f]) == len && !strncmp(field_names[f], name, len))
			return f;
	return -1;
}

static void list_valid_fields(char *buf, size_t len)
{
	size_t used = 0;
	int f;

	buf[0] = '\0';
	for (f = 0; f < SMI_FIELD_COUNT && used < len; f++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 f ? ", " : "", field_names[f]);
}

int smi_parse_fields(const char *list, struct smi_query *q, char *err, size_t errlen)
{
	char valid[1024];
	const char *p = list;
	int count = 0;

	list_valid_fields(valid, sizeof(valid));
	if (!list || !*list) {
		set_error(err, errlen, "-Q needs a list of fields (%s)", valid);
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int f;

		/* Tolerate blanks around names, as in "index, name". */
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len) {
			set_error(err, errlen, "empty field name in '%s'", list);
			return -EINVAL;
		}
		f = lookup_field(p, len);
		if (f < 0) {
			set_error(err, errlen, "unknown field '%.*s'; valid fields: %s",
				  (int)len, p, valid);
			return -EINVAL;
		}
		if (count == SMI_MAX_QUERY_FIELDS) {
			set_error(err, errlen, "too many fields (at most %d)",
				  SMI_MAX_QUERY_FIELDS);
			return -EINVAL;
		}
		q->fields[count++] = (enum smi_field)f;
		if (!end)
			break;
		p = end + 1;
	}
	q->num_fields = count;
	return 0;
}

int smi_parse_format(const char *spec, struct smi_query *q, char *err, size_t errlen)
{
	bool header = true, units = true;
	const char *p = spec;
	bool first = true;

	if (!spec || !*spec) {
		set_error(err, errlen, "-f needs a format: csv[,noheader][,nounits]");
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (first && len == 3 && !strncmp(p, "csv", 3)) {
			first = false;
		} else if (first) {
			set_error(err, errlen, "unknown format '%s'; use csv[,noheader][,nounits]",
				  spec);
			return -EINVAL;
		} else if (len == 8 && !strncmp(p, "noheader", 8)) {
			header = false;
		} else if (len == 7 && !strncmp(p, "nounits", 7)) {
			units = false;
		} else {
			set_error(err, errlen, "unknown format option '%.*s'; use csv[,noheader][,nounits]",
				  (int)len, p);
			return -EINVAL;
		}
		if (!end)
			break;
		p = end + 1;
	}
	q->header = header;
	q->units = units;
	return 0;
}

/* ---- Values shared by every format ------------------------------------- */

static void device_name(const struct smi_device *d, char *buf, size_t len)
{
	if (d->have & SMI_HAVE_HW_IP)
		snprintf(buf, len, "%.*s", (int)sizeof(d->hw.card_name), d->hw.card_name);
	else
		snprintf(buf, len, NA);
}

static const char *bus_id_text(const struct smi_device *d)
{
	return d->bus_id[0] ? d->bus_id : NA;
}

static const char *status_text(const struct smi_device *d)
{
	return d->have & SMI_HAVE_STATUS ? smi_status_name(d->status) : NA;
}

static void driver_version_text(const struct smi_device *d, char *buf, size_t len)
{
	if (d->have & SMI_HAVE_DRIVER_VERSION)
		snprintf(buf, len, "%.*s", (int)sizeof(d->driver_version), d->driver_version);
	else
		snprintf(buf, len, NA);
}

/* The driver version shown once for the whole report: the first one known. */
static void report_driver_version(const struct smi_report *r, char *buf, size_t len)
{
	int i;

	for (i = 0; i < r->num_devices; i++) {
		if (r->devices[i].have & SMI_HAVE_DRIVER_VERSION) {
			driver_version_text(&r->devices[i], buf, len);
			return;
		}
	}
	snprintf(buf, len, NA);
}

static unsigned long long mib(uint64_t bytes)
{
	return (unsigned long long)(bytes >> MIB_SHIFT);
}

static bool device_has_holder(const struct smi_device *d)
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
	if (!device_has_holder(d) || max < 1)
		return 0;
	memset(out, 0, sizeof(*out));
	out->pid = d->open_stats.compute_pid;
	snprintf(out->name, sizeof(out->name), "%s", d->process_name);
	out->hbm_bytes = d->have & SMI_HAVE_DRAM ? d->dram.dram_used_mem : 0;
	return 1;
}

static uint64_t engine_total_ns(const struct smi_process *p)
{
	uint64_t sum = 0;
	int c;

	for (c = 0; c < SMI_ENGINE_CLASSES; c++)
		sum += p->engine_ns[c];
	return sum;
}

/* The board serial, "" when the driver did not report it. */
static const char *serial_text(const struct smi_device *d)
{
	if (!(d->have & SMI_HAVE_HW_IP) || !d->hw_ext.serial[0] ||
	    !memchr(d->hw_ext.serial, '\0', sizeof(d->hw_ext.serial)))
		return "";
	return d->hw_ext.serial;
}

/* RFC 4122 text of the board UUID; false when unknown (all zero). */
static bool uuid_text(const struct smi_device *d, char *buf, size_t len)
{
	const uint8_t *u = d->hw_ext.uuid;
	size_t i;
	bool any = false;

	for (i = 0; i < sizeof(d->hw_ext.uuid); i++)
		any |= u[i] != 0;
	if (!(d->have & SMI_HAVE_HW_IP) || !any) {
		snprintf(buf, len, NA);
		return false;
	}
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	return true;
}

/* Milliwatts as watts with two decimals. */
static void put_watts(char *buf, size_t len, long long mw, bool units)
{
	snprintf(buf, len, "%lld.%02lld%s", mw / 1000, (mw % 1000) / 10, units ? " W" : "");
}

/* ---- Default table ----------------------------------------------------- */

static void put_repeat(FILE *out, char c, int n)
{
	while (n-- > 0)
		fputc(c, out);
}

/* "+-----+-----+-----+" style rule over the three columns. */
static void put_column_rule(FILE *out, char edge, char fill, char join)
{
	fputc(edge, out);
	put_repeat(out, fill, COL1);
	fputc(join, out);
	put_repeat(out, fill, COL2);
	fputc(join, out);
	put_repeat(out, fill, COL3);
	fputc(edge, out);
	fputc('\n', out);
}

static void put_full_rule(FILE *out, char edge, char fill)
{
	fputc(edge, out);
	put_repeat(out, fill, TABLE_INNER);
	fputc(edge, out);
	fputc('\n', out);
}

/* One cell: a blank, the text padded (or cut) to width - 2, a blank. */
static void put_cell(FILE *out, int width, const char *text, bool right)
{
	int inner = width - 2;

	fprintf(out, right ? " %*.*s " : " %-*.*s ", inner, inner, text);
}

static void put_row(FILE *out, const char *c1, const char *c2, const char *c3, bool c3_right)
{
	fputc('|', out);
	put_cell(out, COL1, c1, false);
	fputc('|', out);
	put_cell(out, COL2, c2, false);
	fputc('|', out);
	put_cell(out, COL3, c3, c3_right);
	fputs("|\n", out);
}

/* A full-width row: text left, optional text right, padded to the width. */
static void put_wide_row(FILE *out, const char *left, const char *right)
{
	int room = TABLE_INNER - 2 - (int)strlen(left) - (int)strlen(right);

	fprintf(out, "| %s", left);
	put_repeat(out, ' ', room > 1 ? room : 1);
	fprintf(out, "%s |\n", right);
}

/* "39C   60W / 350W": temperature and power draw / cap. */
static void table_sensors(const struct smi_device *d, char *buf, size_t len)
{
	const struct smi_telemetry *t = &d->tel;
	char temp[24], draw[24], cap[24];

	if (t->have & SMI_TEL_TEMP)
		snprintf(temp, sizeof(temp), "%lldC", t->temp_mc / 1000);
	else
		snprintf(temp, sizeof(temp), NA);
	if (t->have & SMI_TEL_POWER)
		snprintf(draw, sizeof(draw), "%lldW", (t->power_mw + 500) / 1000);
	else
		snprintf(draw, sizeof(draw), NA);
	if (t->have & SMI_TEL_POWER_CAP)
		snprintf(cap, sizeof(cap), "%lldW", (t->power_cap_mw + 500) / 1000);
	else
		snprintf(cap, sizeof(cap), NA);
	snprintf(buf, len, "%-5s %9s / %s", temp, draw, cap);
}

static void put_device_rows(FILE *out, const struct smi_device *d)
{
	char name[GAUDISIM_CARD_NAME_MAX_LEN + 1];
	char c1[96], c2[96], c3[96];

	device_name(d, name, sizeof(name));
	snprintf(c1, sizeof(c1), "%3d  %s", d->index, name);
	if (d->have & SMI_HAVE_DRAM)
		snprintf(c3, sizeof(c3), "%lluMiB / %lluMiB", mib(d->dram.dram_used_mem),
			 mib(d->dram.dram_total_mem));
	else
		snprintf(c3, sizeof(c3), NA);
	put_row(out, c1, bus_id_text(d), c3, true);

	table_sensors(d, c1, sizeof(c1));
	snprintf(c2, sizeof(c2), "%-12s %s", status_text(d), !(d->have & SMI_HAVE_IDLE) ? NA :
		 d->idle.is_idle ? "Idle" : "Busy");
	if (d->tel.have & SMI_TEL_UTIL)
		snprintf(c3, sizeof(c3), "%u%%", d->tel.utilization);
	else
		snprintf(c3, sizeof(c3), NA);
	put_row(out, c1, c2, c3, true);
	put_column_rule(out, '+', '-', '+');
}

static void put_process_table(FILE *out, const struct smi_report *r)
{
	const char *row_fmt = "| %4s  %8s   %-32.32s %12s %12s |\n";
	struct smi_process procs[SMI_MAX_PROCS];
	bool any = false;
	int i, j, n;

	fputc('\n', out);
	put_full_rule(out, '+', '-');
	put_wide_row(out, "Compute Processes:", "");
	fprintf(out, row_fmt, "AIP", "PID", "Process name", "Engine Time", "AIP Memory");
	put_full_rule(out, '|', '=');
	for (i = 0; i < r->num_devices; i++) {
		const struct smi_device *d = &r->devices[i];

		n = smi_device_processes(d, procs, SMI_MAX_PROCS);
		for (j = 0; j < n; j++) {
			const struct smi_process *p = &procs[j];
			char index[16], pid[16], memory[32], engine[32];

			any = true;
			snprintf(index, sizeof(index), "%d", d->index);
			snprintf(pid, sizeof(pid), "%u", p->pid);
			if (p->engine_known || (d->have & SMI_HAVE_DRAM))
				snprintf(memory, sizeof(memory), "%lluMiB", mib(p->hbm_bytes));
			else
				snprintf(memory, sizeof(memory), NA);
			if (p->engine_known)
				snprintf(engine, sizeof(engine), "%llums",
					 (unsigned long long)(engine_total_ns(p) / 1000000));
			else
				snprintf(engine, sizeof(engine), NA);
			fprintf(out, row_fmt, index, pid, p->name[0] ? p->name : NA, engine,
				memory);
		}
	}
	if (!any)
		put_wide_row(out, "No running processes found", "");
	put_full_rule(out, '+', '-');
}

void smi_print_table(FILE *out, const struct smi_report *r)
{
	char left[96], right[96], version[GAUDISIM_VERSION_STR_LEN + 1];
	int i;

	report_driver_version(r, version, sizeof(version));
	snprintf(left, sizeof(left), "HL-SMI Version: %s", r->smi_version);
	snprintf(right, sizeof(right), "Driver Version: %s", version);

	put_full_rule(out, '+', '-');
	put_wide_row(out, left, right);
	put_column_rule(out, '|', '-', '+');
	put_row(out, "AIP  Name", "Bus-Id", "Memory-Usage", false);
	put_row(out, "Temp   Pwr:Usage/Cap", "Status       Engines", "AIP-Util", false);
	put_column_rule(out, '|', '=', '+');
	for (i = 0; i < r->num_devices; i++)
		put_device_rows(out, &r->devices[i]);
	put_process_table(out, r);
}

/* ---- Detailed log (-q / -L) -------------------------------------------- */

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
	put_repeat(out, ' ', used < DETAIL_KEY_COLUMN ? DETAIL_KEY_COLUMN - used : 1);
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
		kv(out, 2, "Total", "%llu MiB", mib(d->dram.dram_total_mem));
		kv(out, 2, "Used", "%llu MiB", mib(d->dram.dram_used_mem));
		kv(out, 2, "Free", "%llu MiB", mib(d->dram.dram_free_mem));
	} else {
		kv(out, 2, "Total", NA);
		kv(out, 2, "Used", NA);
		kv(out, 2, "Free", NA);
	}
	if (d->have & SMI_HAVE_HW_IP) {
		kv(out, 2, "Installed", "%llu MiB", mib(d->hw_ext.hbm_total_size));
		kv(out, 2, "Reserved for driver", "%llu MiB",
		   mib(d->hw_ext.hbm_total_size - d->hw.dram_size));
		kv(out, 2, "User base address", "0x%016llx",
		   (unsigned long long)d->hw.dram_base_address);
		kv(out, 1, "SRAM", NULL);
		kv(out, 2, "Size", "%llu MiB", mib(d->hw.sram_size));
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
		kv(out, 1, "Activity", NA);
	}
	kv(out, 1, "Compute Context", NULL);
	if (!(d->have & SMI_HAVE_OPEN_STATS)) {
		kv(out, 2, "Active", NA);
	} else {
		kv(out, 2, "Active", "%s", d->open_stats.is_compute_ctx_active ? "Yes" : "No");
		if (device_has_holder(d)) {
			kv(out, 2, "PID", "%u", d->open_stats.compute_pid);
			kv(out, 2, "Process name", "%s",
			   d->process_name[0] ? d->process_name : NA);
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
		kv(out, 2, "Counters", NA);
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
		kv(out, 2, "AIP Current Temp", NA);
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
		put_watts(buf, sizeof(buf), t->power_mw, true);
		kv(out, 2, "Power Draw", "%s", buf);
		kv(out, 2, "Energy Consumed", "%lld.%03lld J", t->energy_mj / 1000,
		   t->energy_mj % 1000);
	} else {
		kv(out, 2, "Power Draw", NA);
	}
	if (t->have & SMI_TEL_POWER_CAP) {
		put_watts(buf, sizeof(buf), t->power_cap_mw, true);
		kv(out, 2, "Power Limit", "%s", buf);
		put_watts(buf, sizeof(buf), t->power_cap_max_mw, true);
		kv(out, 2, "Max Power Limit", "%s", buf);
	} else {
		kv(out, 2, "Power Limit", NA);
	}
}

static const char *active_text(const struct smi_telemetry *t, uint32_t bit)
{
	if (!(t->have & SMI_TEL_THROTTLE))
		return NA;
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
		kv(out, 2, "soc", NA);
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
	kv(out, 1, "Utilization", NULL);
	if (d->tel.have & SMI_TEL_UTIL)
		kv(out, 2, "AIP", "%u %%", d->tel.utilization);
	else
		kv(out, 2, "AIP", NA);
}

static void detail_ecc(FILE *out, const struct smi_device *d)
{
	const struct smi_telemetry *t = &d->tel;

	kv(out, 1, "ECC Errors", NULL);
	if (!(t->have & SMI_TEL_ECC)) {
		kv(out, 2, "Volatile", NA);
		kv(out, 2, "Aggregate", NA);
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
		kv(out, 2, "Ports", NA);
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
		kv(out, 2, "Throughput", NA);
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

	device_name(d, name, sizeof(name));
	driver_version_text(d, version, sizeof(version));
	fprintf(out, "\n[%d] AIP (accel%d) %s\n", d->index, d->index, bus_id_text(d));
	kv(out, 1, "Product Name", "%s", name);
	kv(out, 1, "Module status", "%s", status_text(d));
	kv(out, 1, "Driver Version", "%s", version);
	if (d->have & SMI_HAVE_HW_IP)
		kv(out, 1, "HW Revision", "%u.%u", d->hw_ext.hw_version >> 16,
		   d->hw_ext.hw_version & 0xffffu);
	kv(out, 1, "PCI", NULL);
	kv(out, 2, "Bus Id", "%s", bus_id_text(d));
	if (d->have & SMI_HAVE_HW_IP)
		kv(out, 2, "Device Id", "0x%04x%04x", GAUDISIM_PCI_VENDOR_ID, GAUDISIM_PCI_DEVICE_ID);
	if (d->tel.have & SMI_TEL_MODULE_ID)
		kv(out, 1, "Module ID", "%lld", d->tel.module_id);
	kv(out, 1, "Serial Number", "%s", serial_text(d)[0] ? serial_text(d) : NA);
	uuid_text(d, uuid, sizeof(uuid));
	kv(out, 1, "AIP UUID", "%s", uuid);
	kv(out, 1, "Firmware [CPUCP] Version", "%s",
	   d->tel.have & SMI_TEL_FW ? d->tel.fw_version : NA);
	kv(out, 1, "CPLD Version", "%s", d->tel.have & SMI_TEL_CPLD ? d->tel.cpld_version : NA);
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

static const struct {
	const char *name;
	unsigned int bit;
} section_names[] = {
	{ "MEMORY", SMI_SECTION_MEMORY },
	{ "TEMPERATURE", SMI_SECTION_TEMPERATURE },
	{ "POWER", SMI_SECTION_POWER },
	{ "CLOCK", SMI_SECTION_CLOCK },
	{ "UTILIZATION", SMI_SECTION_UTILIZATION },
	{ "ECC", SMI_SECTION_ECC },
	{ "PROCESSES", SMI_SECTION_PROCESSES },
	{ "NIC", SMI_SECTION_NIC },
	{ "NET", SMI_SECTION_NIC },	/* the real tool's name */
	{ "PCIE", SMI_SECTION_PCIE },
};

int smi_parse_sections(const char *list, unsigned int *sections, char *err, size_t errlen)
{
	const char *p = list;
	unsigned int bits = 0;
	size_t i;

	if (!list || !*list) {
		set_error(err, errlen, "-d needs a list of sections: MEMORY, TEMPERATURE, POWER, "
			  "CLOCK, UTILIZATION, ECC, PROCESSES, NIC, PCIE");
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		for (i = 0; i < sizeof(section_names) / sizeof(section_names[0]); i++)
			if (strlen(section_names[i].name) == len &&
			    !strncasecmp(section_names[i].name, p, len))
				break;
		if (i == sizeof(section_names) / sizeof(section_names[0])) {
			set_error(err, errlen, "unknown section '%.*s'; valid sections: MEMORY, "
				  "TEMPERATURE, POWER, CLOCK, UTILIZATION, ECC, PROCESSES, NIC, PCIE",
				  (int)len, p);
			return -EINVAL;
		}
		bits |= section_names[i].bit;
		if (!end)
			break;
		p = end + 1;
	}
	*sections = bits;
	return 0;
}

void smi_print_detail(FILE *out, const struct smi_report *r)
{
	char version[GAUDISIM_VERSION_STR_LEN + 1];
	int i;

	report_driver_version(r, version, sizeof(version));
	fputs("================ HL-SMI LOG ================\n", out);
	kv(out, 0, "Timestamp", "%s", r->timestamp ? r->timestamp : NA);
	kv(out, 0, "Driver Version", "%s", version);
	kv(out, 0, "HL-SMI Version", "%s", r->smi_version);
	kv(out, 0, "Attached AIPs", "%d", r->num_devices);
	for (i = 0; i < r->num_devices; i++)
		detail_device(out, &r->devices[i], r->sections ? r->sections : SMI_SECTION_ALL);
}

/* ---- Field values (-Q, JSON) ------------------------------------------- */

static bool put_number(char *buf, size_t len, unsigned long long v, const char *unit,
		       bool units)
{
	snprintf(buf, len, "%llu%s%s", v, units && unit ? " " : "", units && unit ? unit : "");
	return true;
}

static bool na(char *buf, size_t len)
{
	snprintf(buf, len, NA);
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
		put_watts(buf, len, t->power_mw, units);
		return true;
	case SMI_FIELD_POWER_LIMIT:
	case SMI_FIELD_POWER_MAX:
		if (!(t->have & SMI_TEL_POWER_CAP))
			return na(buf, len);
		put_watts(buf, len, f == SMI_FIELD_POWER_LIMIT ? t->power_cap_mw :
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
		if (!serial_text(d)[0])
			return na(buf, len);
		snprintf(buf, len, "%s", serial_text(d));
		return true;
	case SMI_FIELD_UUID:
		return uuid_text(d, buf, len);
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
		device_name(d, buf, len);
		return d->have & SMI_HAVE_HW_IP;
	case SMI_FIELD_BUS_ID:
		snprintf(buf, len, "%s", bus_id_text(d));
		return d->bus_id[0];
	case SMI_FIELD_DRIVER_VERSION:
		driver_version_text(d, buf, len);
		return d->have & SMI_HAVE_DRIVER_VERSION;
	case SMI_FIELD_STATUS:
		snprintf(buf, len, "%s", status_text(d));
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
		return put_number(buf, len, mib(bytes), "MiB", units);
	default:
		return telemetry_value(d, f, units, buf, len);
	}
}

/* ---- CSV (-Q ... -f csv) ------------------------------------------------ */

void smi_print_csv(FILE *out, const struct smi_report *r, const struct smi_query *q)
{
	char value[256];
	int i, f;

	if (q->header) {
		for (f = 0; f < q->num_fields; f++) {
			const char *unit = smi_field_unit(q->fields[f]);

			fprintf(out, "%s%s", f ? ", " : "", smi_field_name(q->fields[f]));
			if (q->units && unit)
				fprintf(out, " [%s]", unit);
		}
		fputc('\n', out);
	}
	for (i = 0; i < r->num_devices; i++) {
		for (f = 0; f < q->num_fields; f++) {
			smi_field_value(r, &r->devices[i], q->fields[f], q->units, value,
					sizeof(value));
			fprintf(out, "%s%s", f ? ", " : "", value);
		}
		fputc('\n', out);
	}
}
