// SPDX-License-Identifier: MIT
/* hl-smi's default table. */
#include <string.h>

#include "render.h"
#include "values.h"

/* Three columns between the outer bars. */
#define TABLE_INNER	(SMI_TABLE_WIDTH - 2)
#define COL1		31
#define COL2		22
#define COL3		(TABLE_INNER - COL1 - COL2 - 2)

static uint64_t engine_total_ns(const struct smi_process *p)
{
	uint64_t sum = 0;
	int c;

	for (c = 0; c < SMI_ENGINE_CLASSES; c++)
		sum += p->engine_ns[c];
	return sum;
}

/* The board serial, "" when the driver did not report it. */
/* "+-----+-----+-----+" style rule over the three columns. */
static void put_column_rule(FILE *out, char edge, char fill, char join)
{
	fputc(edge, out);
	smi_put_repeat(out, fill, COL1);
	fputc(join, out);
	smi_put_repeat(out, fill, COL2);
	fputc(join, out);
	smi_put_repeat(out, fill, COL3);
	fputc(edge, out);
	fputc('\n', out);
}

static void put_full_rule(FILE *out, char edge, char fill)
{
	fputc(edge, out);
	smi_put_repeat(out, fill, TABLE_INNER);
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
	smi_put_repeat(out, ' ', room > 1 ? room : 1);
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
		snprintf(temp, sizeof(temp), SMI_NA);
	if (t->have & SMI_TEL_POWER)
		snprintf(draw, sizeof(draw), "%lldW", (t->power_mw + 500) / 1000);
	else
		snprintf(draw, sizeof(draw), SMI_NA);
	if (t->have & SMI_TEL_POWER_CAP)
		snprintf(cap, sizeof(cap), "%lldW", (t->power_cap_mw + 500) / 1000);
	else
		snprintf(cap, sizeof(cap), SMI_NA);
	snprintf(buf, len, "%-5s %9s / %s", temp, draw, cap);
}

static void put_device_rows(FILE *out, const struct smi_device *d)
{
	char name[GAUDISIM_CARD_NAME_MAX_LEN + 1];
	char c1[96], c2[96], c3[96];

	smi_text_device_name(d, name, sizeof(name));
	snprintf(c1, sizeof(c1), "%3d  %s", d->index, name);
	if (d->have & SMI_HAVE_DRAM)
		snprintf(c3, sizeof(c3), "%lluMiB / %lluMiB", smi_mib(d->dram.dram_used_mem),
			 smi_mib(d->dram.dram_total_mem));
	else
		snprintf(c3, sizeof(c3), SMI_NA);
	put_row(out, c1, smi_text_bus_id(d), c3, true);

	table_sensors(d, c1, sizeof(c1));
	snprintf(c2, sizeof(c2), "%-12s %s", smi_text_status(d), !(d->have & SMI_HAVE_IDLE) ? SMI_NA :
		 d->idle.is_idle ? "Idle" : "Busy");
	if (d->tel.have & SMI_TEL_UTIL)
		snprintf(c3, sizeof(c3), "%u%%", d->tel.utilization);
	else
		snprintf(c3, sizeof(c3), SMI_NA);
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
			char name[4 * SMI_PROCESS_NAME_LEN];

			any = true;
			snprintf(index, sizeof(index), "%d", d->index);
			snprintf(pid, sizeof(pid), "%u", p->pid);
			if (p->engine_known || (d->have & SMI_HAVE_DRAM))
				snprintf(memory, sizeof(memory), "%lluMiB", smi_mib(p->hbm_bytes));
			else
				snprintf(memory, sizeof(memory), SMI_NA);
			if (p->engine_known)
				snprintf(engine, sizeof(engine), "%llums",
					 (unsigned long long)(engine_total_ns(p) / 1000000));
			else
				snprintf(engine, sizeof(engine), SMI_NA);
			smi_text_escape(name, sizeof(name), p->name[0] ? p->name : SMI_NA);
			fprintf(out, row_fmt, index, pid, name, engine, memory);
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

	smi_text_report_driver_version(r, version, sizeof(version));
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
