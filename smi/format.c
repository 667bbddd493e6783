// SPDX-License-Identifier: MIT
/*
 * hl-smi output formats. Only facts the driver reports are shown; fields
 * it cannot report (temperature, power, fan, utilisation) have no column.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "format.h"
#include "hw/gaudisim_regs.h"

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
};

const char *smi_field_name(enum smi_field field)
{
	return (unsigned int)field < SMI_FIELD_COUNT ? field_names[field] : "?";
}

static bool field_has_mib_unit(enum smi_field field)
{
	return field == SMI_FIELD_MEMORY_TOTAL || field == SMI_FIELD_MEMORY_USED ||
	       field == SMI_FIELD_MEMORY_FREE;
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
	char valid[256];
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

static void put_device_rows(FILE *out, const struct smi_device *d)
{
	char name[GAUDISIM_CARD_NAME_MAX_LEN + 1];
	char c1[64], c2[64], c3[64];

	device_name(d, name, sizeof(name));
	snprintf(c1, sizeof(c1), "%3d  %s", d->index, name);
	if (d->have & SMI_HAVE_DRAM)
		snprintf(c3, sizeof(c3), "%lluMiB / %lluMiB", mib(d->dram.dram_used_mem),
			 mib(d->dram.dram_total_mem));
	else
		snprintf(c3, sizeof(c3), NA);
	put_row(out, c1, bus_id_text(d), c3, true);

	snprintf(c1, sizeof(c1), "     %s", status_text(d));
	snprintf(c2, sizeof(c2), "%s", !(d->have & SMI_HAVE_IDLE) ? NA :
		 d->idle.is_idle ? "Idle" : "Busy");
	put_row(out, c1, c2, "", false);
	put_column_rule(out, '+', '-', '+');
}

static void put_process_table(FILE *out, const struct smi_report *r)
{
	const char *row_fmt = "| %4s  %8s   %-45.45s %12s |\n";
	bool any = false;
	int i;

	fputc('\n', out);
	put_full_rule(out, '+', '-');
	put_wide_row(out, "Compute Processes:", "");
	fprintf(out, row_fmt, "AIP", "PID", "Process name", "AIP Memory");
	put_full_rule(out, '|', '=');
	for (i = 0; i < r->num_devices; i++) {
		const struct smi_device *d = &r->devices[i];
		char index[16], pid[16], memory[32];

		if (!device_has_holder(d))
			continue;
		any = true;
		snprintf(index, sizeof(index), "%d", d->index);
		snprintf(pid, sizeof(pid), "%u", d->open_stats.compute_pid);
		if (d->have & SMI_HAVE_DRAM)
			snprintf(memory, sizeof(memory), "%lluMiB", mib(d->dram.dram_used_mem));
		else
			snprintf(memory, sizeof(memory), NA);
		fprintf(out, row_fmt, index, pid,
			d->process_name[0] ? d->process_name : NA, memory);
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
	put_row(out, "     Status", "Engines", "", false);
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
		kv(out, 2, "Installed", "%llu MiB", mib(d->hw.hbm_total_size));
		kv(out, 2, "Reserved for driver", "%llu MiB",
		   mib(d->hw.hbm_total_size - d->hw.dram_size));
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
	const struct gaudisim_info_hw_ip_info *hw = &d->hw;

	if (!(d->have & SMI_HAVE_HW_IP))
		return;
	kv(out, 1, "Engines", NULL);
	kv(out, 2, "PCI DMA", "%u", hw->num_pci_dma);
	kv(out, 2, "HBM DMA", "%u", hw->num_hbm_dma);
	kv(out, 2, "MME", "%u", hw->num_mme);
	kv(out, 2, "TPC", "%u (enabled mask 0x%02x)", hw->num_tpc, hw->tpc_enabled_mask);
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
	const struct gaudisim_info_cs_counters *c = &d->cs;

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

static void detail_device(FILE *out, const struct smi_device *d)
{
	char name[GAUDISIM_CARD_NAME_MAX_LEN + 1], version[GAUDISIM_VERSION_STR_LEN + 1];

	device_name(d, name, sizeof(name));
	driver_version_text(d, version, sizeof(version));
	fprintf(out, "\n[%d] AIP (accel%d) %s\n", d->index, d->index, bus_id_text(d));
	kv(out, 1, "Product Name", "%s", name);
	kv(out, 1, "Module status", "%s", status_text(d));
	kv(out, 1, "Driver Version", "%s", version);
	if (d->have & SMI_HAVE_HW_IP)
		kv(out, 1, "HW Revision", "%u.%u", d->hw.hw_version >> 16,
		   d->hw.hw_version & 0xffffu);
	kv(out, 1, "PCI", NULL);
	kv(out, 2, "Bus Id", "%s", bus_id_text(d));
	if (d->have & SMI_HAVE_HW_IP)
		kv(out, 2, "Device Id", "0x%04x%04x", GAUDISIM_PCI_VENDOR_ID, d->hw.device_id);
	detail_memory(out, d);
	detail_engines(out, d);
	detail_activity(out, d);
	detail_cs_counters(out, d);
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
		detail_device(out, &r->devices[i]);
}

/* ---- CSV (-Q ... -f csv) ------------------------------------------------ */

static void csv_value(FILE *out, const struct smi_device *d, enum smi_field f, bool units)
{
	char buf[GAUDISIM_VERSION_STR_LEN + GAUDISIM_CARD_NAME_MAX_LEN];
	uint64_t bytes = 0;

	switch (f) {
	case SMI_FIELD_INDEX:
		fprintf(out, "%d", d->index);
		return;
	case SMI_FIELD_NAME:
		device_name(d, buf, sizeof(buf));
		fputs(buf, out);
		return;
	case SMI_FIELD_BUS_ID:
		fputs(bus_id_text(d), out);
		return;
	case SMI_FIELD_DRIVER_VERSION:
		driver_version_text(d, buf, sizeof(buf));
		fputs(buf, out);
		return;
	case SMI_FIELD_STATUS:
		fputs(status_text(d), out);
		return;
	case SMI_FIELD_MEMORY_TOTAL:
		bytes = d->dram.dram_total_mem;
		break;
	case SMI_FIELD_MEMORY_USED:
		bytes = d->dram.dram_used_mem;
		break;
	case SMI_FIELD_MEMORY_FREE:
		bytes = d->dram.dram_free_mem;
		break;
	default:
		fputs(NA, out);
		return;
	}
	if (!(d->have & SMI_HAVE_DRAM))
		fputs(NA, out);
	else
		fprintf(out, units ? "%llu MiB" : "%llu", mib(bytes));
}

void smi_print_csv(FILE *out, const struct smi_report *r, const struct smi_query *q)
{
	int i, f;

	if (q->header) {
		for (f = 0; f < q->num_fields; f++)
			fprintf(out, "%s%s%s", f ? ", " : "", smi_field_name(q->fields[f]),
				q->units && field_has_mib_unit(q->fields[f]) ? " [MiB]" : "");
		fputc('\n', out);
	}
	for (i = 0; i < r->num_devices; i++) {
		for (f = 0; f < q->num_fields; f++) {
			if (f)
				fputs(", ", out);
			csv_value(out, &r->devices[i], q->fields[f], q->units);
		}
		fputc('\n', out);
	}
}
