// SPDX-License-Identifier: MIT
/*
 * hl-smi machine formats: JSON (--format json) with the -Q field names as
 * keys, and the Prometheus text exposition (--format prometheus), e.g. for
 * node_exporter's textfile collector.
 */
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "values.h"

/* ---- JSON ------------------------------------------------------------------ */

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* A number as a JSON number, N/A as null, anything else as a string. */
static void json_value(FILE *out, const char *text, bool known)
{
	char *end;

	if (!known) {
		fputs("null", out);
		return;
	}
	/* Digits first: strtod() would also take "inf", "nan" and "+1". */
	strtod(text, &end);
	if (text[0] >= '0' && text[0] <= '9' && *end == '\0')
		fputs(text, out);
	else
		json_string(out, text);
}

/* Each process: pid, name, memory.used (MiB), engine_ns per class or null. */
static void json_processes(FILE *out, const struct smi_device *d)
{
	struct smi_process procs[SMI_MAX_PROCS];
	int i, c, n = smi_device_processes(d, procs, SMI_MAX_PROCS);

	for (i = 0; i < n; i++) {
		const struct smi_process *p = &procs[i];

		fprintf(out, "%s{\"pid\": %u, \"name\": ", i ? ", " : "", p->pid);
		json_string(out, p->name);
		if (p->engine_known || (d->have & SMI_HAVE_DRAM))
			fprintf(out, ", \"memory.used\": %llu",
				(unsigned long long)(p->hbm_bytes >> 20));
		else
			fputs(", \"memory.used\": null", out);
		if (!p->engine_known) {
			fputs(", \"engine_ns\": null}", out);
			continue;
		}
		fputs(", \"engine_ns\": {", out);
		for (c = 0; c < SMI_ENGINE_CLASSES; c++)
			fprintf(out, "%s\"%s\": %llu", c ? ", " : "", smi_engine_class_name(c),
				(unsigned long long)p->engine_ns[c]);
		fputs("}}", out);
	}
}

static void json_device(FILE *out, const struct smi_report *r, const struct smi_device *d,
			const struct smi_query *q)
{
	int n = q->num_fields ? q->num_fields : SMI_FIELD_COUNT;
	char value[256];
	int i;

	fputs("    {", out);
	for (i = 0; i < n; i++) {
		enum smi_field f = q->num_fields ? q->fields[i] : (enum smi_field)i;
		bool known = smi_field_value(r, d, f, false, value, sizeof(value));

		fprintf(out, "%s\n      ", i ? "," : "");
		json_string(out, smi_field_name(f));
		fputs(": ", out);
		json_value(out, value, known);
	}
	fputs(",\n      \"processes\": [", out);
	json_processes(out, d);
	fputs("]\n    }", out);
}

void smi_print_json(FILE *out, const struct smi_report *r, const struct smi_query *q)
{
	int i;

	fputs("{\n  \"hl_smi_version\": ", out);
	json_string(out, r->smi_version);
	fputs(",\n  \"timestamp\": ", out);
	json_value(out, r->query_time ? r->query_time : "", r->query_time != NULL);
	fputs(",\n  \"aips\": [\n", out);
	for (i = 0; i < r->num_devices; i++) {
		json_device(out, r, &r->devices[i], q);
		fputs(i + 1 < r->num_devices ? ",\n" : "\n", out);
	}
	fputs("  ]\n}\n", out);
}

/* ---- Prometheus ------------------------------------------------------------- */

struct metric {
	const char *name, *type, *help;
};

static void metric_header(FILE *out, const struct metric *m)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name, m->type);
}

/* One sample; extra is a further label ("reason=\"power\"") or NULL. */
static void sample(FILE *out, const char *name, const struct smi_device *d, const char *extra,
		   double value)
{
	fprintf(out, "%s{aip=\"%d\",bus_id=\"%s\"%s%s} %.17g\n", name, d->index,
		d->bus_id[0] ? d->bus_id : "unknown", extra ? "," : "", extra ? extra : "", value);
}

enum prom_metric {
	PROM_UP, PROM_TEMP, PROM_TEMP_MAX, PROM_POWER, PROM_POWER_LIMIT, PROM_ENERGY,
	PROM_UTIL, PROM_MEM_TOTAL, PROM_MEM_USED, PROM_CLOCK, PROM_CLOCK_LIMIT,
	PROM_THROTTLE, PROM_ECC, PROM_RESETS, PROM_PCIE_RX, PROM_PCIE_TX, PROM_PCIE_REPLAYS,
	PROM_PROC_MEMORY, PROM_PROC_ENGINE, PROM_COUNT,
};

static const struct metric metrics[PROM_COUNT] = {
	[PROM_UP] = { "hlsmi_up", "gauge", "1 when the AIP is operational." },
	[PROM_TEMP] = { "hlsmi_temperature_celsius", "gauge", "AIP die temperature." },
	[PROM_TEMP_MAX] = { "hlsmi_temperature_slowdown_celsius", "gauge",
			    "Temperature at which the clock throttles." },
	[PROM_POWER] = { "hlsmi_power_draw_watts", "gauge", "Average board power." },
	[PROM_POWER_LIMIT] = { "hlsmi_power_limit_watts", "gauge", "Power cap." },
	[PROM_ENERGY] = { "hlsmi_energy_joules_total", "counter", "Energy since power-on." },
	[PROM_UTIL] = { "hlsmi_utilization_ratio", "gauge",
			"Busy fraction of the busiest engine over the sample period." },
	[PROM_MEM_TOTAL] = { "hlsmi_memory_total_bytes", "gauge", "HBM available to users." },
	[PROM_MEM_USED] = { "hlsmi_memory_used_bytes", "gauge", "HBM allocated by users." },
	[PROM_CLOCK] = { "hlsmi_clock_soc_hertz", "gauge", "Current engine clock." },
	[PROM_CLOCK_LIMIT] = { "hlsmi_clock_limit_soc_hertz", "gauge", "Engine clock limit." },
	[PROM_THROTTLE] = { "hlsmi_throttle_seconds_total", "counter",
			    "Time the clock spent throttled, by reason, since reset." },
	[PROM_ECC] = { "hlsmi_ecc_errors_total", "counter",
		       "HBM ECC error reports since the driver loaded." },
	[PROM_RESETS] = { "hlsmi_hard_resets_total", "counter", "Hard resets since load." },
	[PROM_PCIE_RX] = { "hlsmi_pcie_rx_bytes_per_second", "gauge",
			   "PCIe traffic from the host over the firmware's 10 ms window." },
	[PROM_PCIE_TX] = { "hlsmi_pcie_tx_bytes_per_second", "gauge",
			   "PCIe traffic to the host over the firmware's 10 ms window." },
	[PROM_PCIE_REPLAYS] = { "hlsmi_pcie_replays_total", "counter",
				"PCIe replays since the last hard reset." },
	[PROM_PROC_MEMORY] = { "hlsmi_process_memory_used_bytes", "gauge",
			       "HBM a process allocated on the AIP." },
	[PROM_PROC_ENGINE] = { "hlsmi_process_engine_seconds_total", "counter",
			       "Engine time of a process's command submissions, by engine class." },
};

static bool metric_known(enum prom_metric m, const struct smi_device *d)
{
	const struct smi_telemetry *t = &d->tel;

	switch (m) {
	case PROM_UP:
		return d->have & SMI_HAVE_STATUS;
	case PROM_TEMP:
	case PROM_TEMP_MAX:
		return t->have & SMI_TEL_TEMP;
	case PROM_POWER:
	case PROM_ENERGY:
		return t->have & SMI_TEL_POWER;
	case PROM_POWER_LIMIT:
		return t->have & SMI_TEL_POWER_CAP;
	case PROM_UTIL:
		return t->have & SMI_TEL_UTIL;
	case PROM_MEM_TOTAL:
	case PROM_MEM_USED:
		return d->have & SMI_HAVE_DRAM;
	case PROM_CLOCK:
	case PROM_CLOCK_LIMIT:
		return t->have & SMI_TEL_CLOCK;
	case PROM_THROTTLE:
		return t->have & SMI_TEL_THROTTLE;
	case PROM_ECC:
		return t->have & SMI_TEL_ECC;
	case PROM_RESETS:
		return t->have & SMI_TEL_RESETS;
	case PROM_PCIE_RX:
	case PROM_PCIE_TX:
	case PROM_PCIE_REPLAYS:
		return d->have & SMI_HAVE_PCI;
	case PROM_PROC_MEMORY:
	case PROM_PROC_ENGINE:
		return (d->have & SMI_HAVE_PROCS) && d->num_procs > 0;
	default:
		return false;
	}
}

/* Only processes the /proc scan found: their PIDs are labels. */
static void process_samples(FILE *out, enum prom_metric m, const struct smi_device *d)
{
	char label[64];
	int i, c;

	for (i = 0; i < d->num_procs; i++) {
		const struct smi_process *p = &d->procs[i];

		if (m == PROM_PROC_MEMORY) {
			snprintf(label, sizeof(label), "pid=\"%u\"", p->pid);
			sample(out, metrics[m].name, d, label, (double)p->hbm_bytes);
			continue;
		}
		for (c = 0; c < SMI_ENGINE_CLASSES; c++) {
			snprintf(label, sizeof(label), "pid=\"%u\",engine=\"%s\"", p->pid,
				 smi_engine_class_name(c));
			sample(out, metrics[m].name, d, label, p->engine_ns[c] / 1e9);
		}
	}
}

static void metric_samples(FILE *out, enum prom_metric m, const struct smi_device *d)
{
	const struct smi_telemetry *t = &d->tel;
	const char *name = metrics[m].name;

	switch (m) {
	case PROM_UP:
		sample(out, name, d, NULL, d->status == GAUDISIM_DEVICE_STATUS_OPERATIONAL);
		break;
	case PROM_TEMP:
		sample(out, name, d, NULL, t->temp_mc / 1e3);
		break;
	case PROM_TEMP_MAX:
		sample(out, name, d, NULL, t->temp_max_mc / 1e3);
		break;
	case PROM_POWER:
		sample(out, name, d, NULL, t->power_mw / 1e3);
		break;
	case PROM_POWER_LIMIT:
		sample(out, name, d, NULL, t->power_cap_mw / 1e3);
		break;
	case PROM_ENERGY:
		sample(out, name, d, NULL, t->energy_mj / 1e3);
		break;
	case PROM_UTIL:
		sample(out, name, d, NULL, t->utilization / 100.0);
		break;
	case PROM_MEM_TOTAL:
		sample(out, name, d, NULL, (double)d->dram.dram_total_mem);
		break;
	case PROM_MEM_USED:
		sample(out, name, d, NULL, (double)d->dram.dram_used_mem);
		break;
	case PROM_CLOCK:
		sample(out, name, d, NULL, t->clk_cur_mhz * 1e6);
		break;
	case PROM_CLOCK_LIMIT:
		sample(out, name, d, NULL, t->clk_max_mhz * 1e6);
		break;
	case PROM_THROTTLE:
		sample(out, name, d, "reason=\"power\"", t->violation_power_ns / 1e9);
		sample(out, name, d, "reason=\"thermal\"", t->violation_thermal_ns / 1e9);
		break;
	case PROM_ECC:
		sample(out, name, d, "type=\"corrected\"", (double)t->ecc_corrected_aggregate);
		sample(out, name, d, "type=\"uncorrected\"", (double)t->ecc_uncorrected_aggregate);
		break;
	case PROM_RESETS:
		sample(out, name, d, NULL, (double)t->hard_reset_cnt);
		break;
	case PROM_PCIE_RX:
		sample(out, name, d, NULL, (double)d->pci.rx_throughput * 1000);
		break;
	case PROM_PCIE_TX:
		sample(out, name, d, NULL, (double)d->pci.tx_throughput * 1000);
		break;
	case PROM_PCIE_REPLAYS:
		sample(out, name, d, NULL, (double)d->pci.replay_cnt);
		break;
	case PROM_PROC_MEMORY:
	case PROM_PROC_ENGINE:
		process_samples(out, m, d);
		break;
	default:
		break;
	}
}

void smi_print_prometheus(FILE *out, const struct smi_report *r)
{
	int m, i;

	for (m = 0; m < PROM_COUNT; m++) {
		bool header = false;

		for (i = 0; i < r->num_devices; i++) {
			if (!metric_known((enum prom_metric)m, &r->devices[i]))
				continue;
			if (!header)
				metric_header(out, &metrics[m]);
			header = true;
			metric_samples(out, (enum prom_metric)m, &r->devices[i]);
		}
	}
}
