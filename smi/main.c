// SPDX-License-Identifier: MIT
/*
 * hl-smi: device state of gaudisim accelerators, in the style of Habana's
 * tool. Reads the control node, sysfs and hwmon, so it works while a job
 * runs; resets and power caps go through sysfs (root).
 * Exit status: 0 success, 1 no device, a device could not be read or an
 * action failed, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actions.h"
#include "collect.h"
#include "format.h"
#include "query.h"
#include "render.h"
#include "hlthunk.h"

#define EXIT_USAGE	2

enum smi_mode {
	MODE_TABLE, MODE_DETAIL, MODE_CSV, MODE_JSON, MODE_PROMETHEUS,
	MODE_FW_VERSIONS, MODE_POWER_MAX, MODE_RESET, MODE_SET_POWER_MAX, MODE_TOPO,
};

struct smi_options {
	enum smi_mode mode;
	struct smi_query query;
	const char *fields;	/* -Q */
	const char *format;	/* -f */
	const char *device;	/* -i */
	const char *sections;	/* -d */
	unsigned int section_bits;	/* enum smi_section of -d, 0: all */
	long loop_s;		/* -l: repeat every loop_s seconds; 0 = once */
	long long power_max_mw;	/* --power-max=W */
};

/* Long options without a short one. */
enum { OPT_POWER_MAX = 256, OPT_FW_VERSIONS };

#define DEFAULT_LOOP_S	5
#define MAX_LOOP_S	86400

static void usage(FILE *out)
{
	char field_help[1024];
	size_t used = 0;
	int f, col = 0;

	/* The field list, wrapped under the option text. */
	for (f = 0; f < SMI_FIELD_COUNT && used < sizeof(field_help); f++) {
		const char *name = smi_field_name((enum smi_field)f);

		if (col && col + strlen(name) + 2 > 48) {
			used += (size_t)snprintf(field_help + used, sizeof(field_help) - used, "\n");
			col = 0;
		}
		used += (size_t)snprintf(field_help + used, sizeof(field_help) - used, "%s%s%s",
					 col ? " " : "                              ", name,
					 f + 1 < SMI_FIELD_COUNT ? "," : "\n");
		col += (int)strlen(name) + 2;
	}
	fprintf(out,
		"Usage: hl-smi [options]\n"
		"Show the state of gaudisim AI processors (AIPs).\n\n"
		"  (no option)                 summary table of every device\n"
		"  -L, --list-aips             detailed log of every device\n"
		"  -q, --query                 same as -L\n"
		"  -d, --display=SECTIONS      with -q: only MEMORY, TEMPERATURE, POWER, CLOCK,\n"
		"                              UTILIZATION, ECC, PROCESSES, NIC, PCIE (comma separated)\n"
		"  -Q, --query-aip=FIELDS      print FIELDS (comma separated) per device:\n"
		"%s"
		"  -f, --format=FORMAT         csv[,noheader][,nounits] (with -Q, the default),\n"
		"                              json (every field, or the -Q ones) or\n"
		"                              prometheus (text exposition)\n"
		"  -i, --device=ID             only the device with this index or bus id\n"
		"                              (BB:DD.F or DDDD:BB:DD.F)\n"
		"  -l, --loop[=SECONDS]        repeat every SECONDS (default %d) until interrupted\n"
		"  -r, --reset                 hard-reset the device given by -i (root)\n"
		"      --power-max[=WATTS]     show the power cap, or set it (root)\n"
		"      --fw-versions           show the firmware versions\n"
		"  topo -c                     the NIC link matrix between the AIPs\n"
		"  -v, --version               print the version and exit\n"
		"  -h, --help                  print this help and exit\n", field_help, DEFAULT_LOOP_S);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("hl-smi: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'hl-smi -h' for more information.\n", stderr);
	return EXIT_USAGE;
}

static bool is_number(const char *s)
{
	return *s && s[strspn(s, "0123456789")] == '\0';
}

/* 1..MAX_LOOP_S, or -1. */
static long parse_seconds(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > MAX_LOOP_S)
		return -1;
	return v;
}

/* getopt leaves optopt set for a short option, 0 for a long one. */
static int unknown_option(const char *arg)
{
	char name[3] = { '-', (char)optopt, '\0' };

	return usage_error("unknown option '%s'", optopt ? name : arg);
}

/* Returns -1 to go on, or the exit status to leave with. */
static int parse_options(int argc, char **argv, struct smi_options *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ "list-aips", no_argument, NULL, 'L' },
		{ "query", no_argument, NULL, 'q' },
		{ "query-aip", required_argument, NULL, 'Q' },
		{ "format", required_argument, NULL, 'f' },
		{ "device", required_argument, NULL, 'i' },
		{ "loop", optional_argument, NULL, 'l' },
		{ "display", required_argument, NULL, 'd' },
		{ "reset", no_argument, NULL, 'r' },
		{ "power-max", optional_argument, NULL, OPT_POWER_MAX },
		{ "fw-versions", no_argument, NULL, OPT_FW_VERSIONS },
		{ NULL, 0, NULL, 0 },
	};
	bool detail = false, reset = false, fw_versions = false, power_max = false;
	char err[1024];
	int c;

	memset(o, 0, sizeof(*o));
	smi_query_init(&o->query);
	/* "hl-smi topo -c": a subcommand with one option of its own. */
	if (argc > 1 && !strcmp(argv[1], "topo")) {
		if (argc != 3 || strcmp(argv[2], "-c"))
			return usage_error("%s", "topo takes -c (the link matrix)");
		o->mode = MODE_TOPO;
		return -1;
	}
	opterr = 0;	/* our own messages, and exit status 2 */
	while ((c = getopt_long(argc, argv, ":hvLqQ:f:i:l::d:r", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'v': {
			char *lib = hlthunk_get_version();

			printf("hl-smi %s (libhlthunk %s)\n", SMI_VERSION, lib ? lib : "?");
			hlthunk_free(lib);
			return EXIT_SUCCESS;
		}
		case 'L':
		case 'q':
			detail = true;
			break;
		case 'Q':
			o->fields = optarg;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'i':
			o->device = optarg;
			break;
		case 'l':
			/* "-l 1" as well as "-l1" and "--loop=1" (nvidia-smi's habit). */
			if (!optarg && optind < argc && is_number(argv[optind]))
				optarg = argv[optind++];
			o->loop_s = DEFAULT_LOOP_S;
			if (optarg && (o->loop_s = parse_seconds(optarg)) < 0)
				return usage_error("-l needs a number of seconds, not '%s'", optarg);
			break;
		case 'd':
			o->sections = optarg;
			break;
		case 'r':
			reset = true;
			break;
		case OPT_POWER_MAX:
			power_max = true;
			if (optarg && (o->power_max_mw = smi_parse_watts(optarg)) < 0)
				return usage_error("--power-max needs a power in watts, not '%s'",
						   optarg);
			break;
		case OPT_FW_VERSIONS:
			fw_versions = true;
			break;
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return unknown_option(argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->fields && detail)
		return usage_error("%s", "-Q cannot be combined with -q/-L");
	if (o->sections && !detail)
		return usage_error("%s", "-d is only valid with -q");
	if (o->sections && smi_parse_sections(o->sections, &o->section_bits, err, sizeof(err)))
		return usage_error("%s", err);
	if ((reset || fw_versions || power_max) &&
	    (reset + fw_versions + power_max > 1 || o->fields || detail || o->format))
		return usage_error("%s", "-r, --power-max and --fw-versions go alone (with -i)");
	if (reset && !o->device)
		return usage_error("%s", "-r needs -i to name the device to reset");
	if ((reset || o->power_max_mw) && o->loop_s)
		return usage_error("%s", "-l cannot repeat an action");
	if (o->fields && smi_parse_fields(o->fields, &o->query, err, sizeof(err)))
		return usage_error("%s", err);
	if (o->format && !strcmp(o->format, "json")) {
		o->mode = MODE_JSON;
	} else if (o->format && !strcmp(o->format, "prometheus")) {
		if (o->fields || detail)
			return usage_error("%s", "the prometheus format takes no -Q or -q");
		o->mode = MODE_PROMETHEUS;
	} else if (o->format) {
		if (smi_parse_format(o->format, &o->query, err, sizeof(err)))
			return usage_error("%s", err);
		if (!o->fields)
			return usage_error("%s", "-f csv is only valid with -Q");
		o->mode = MODE_CSV;
	} else {
		o->mode = o->fields ? MODE_CSV : detail ? MODE_DETAIL : MODE_TABLE;
	}
	if (o->device && !is_number(o->device) && hlthunk_parse_pci_bus_id(o->device, NULL, 0))
		return usage_error("'%s' is neither a device index nor a bus id", o->device);
	if (reset)
		o->mode = MODE_RESET;
	else if (fw_versions)
		o->mode = MODE_FW_VERSIONS;
	else if (power_max)
		o->mode = o->power_max_mw ? MODE_SET_POWER_MAX : MODE_POWER_MAX;
	return -1;
}

/*
 * Narrow indices[] to the device named by -i. Returns -1 to go on or an
 * exit status.
 */
static int select_device(const char *selector, int *indices, int *count)
{
	int i, want;

	if (is_number(selector)) {
		want = atoi(selector);
		for (i = 0; i < *count; i++) {
			if (indices[i] == want) {
				indices[0] = want;
				*count = 1;
				return -1;
			}
		}
		fprintf(stderr, "hl-smi: no gaudisim device with index %s\n", selector);
		return EXIT_FAILURE;
	}
	want = hlthunk_get_device_index_from_pci_bus_id(selector);
	if (want < 0) {
		fprintf(stderr, "hl-smi: no gaudisim device at bus id %s\n", selector);
		return EXIT_FAILURE;
	}
	indices[0] = want;
	*count = 1;
	return -1;
}

/* nvidia-smi's -Q timestamp: "2026/12/02 01:30:00.123". */
static void format_query_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char day[32];

	if (clock_gettime(CLOCK_REALTIME, &ts) || !localtime_r(&ts.tv_sec, &tm) ||
	    !strftime(day, sizeof(day), "%Y/%m/%d %H:%M:%S", &tm))
		snprintf(buf, len, "N/A");
	else
		snprintf(buf, len, "%s.%03ld", day, ts.tv_nsec / 1000000);
}

static void print_fw_versions(const struct smi_report *r)
{
	int i;

	for (i = 0; i < r->num_devices; i++) {
		const struct smi_device *d = &r->devices[i];

		printf("[%d] AIP (accel%d) %s\n", d->index, d->index,
		       d->bus_id[0] ? d->bus_id : "N/A");
		printf("    Firmware [CPUCP] Version          : %s\n",
		       d->tel.have & SMI_TEL_FW ? d->tel.fw_version : "N/A");
		printf("    CPLD Version                      : %s\n",
		       d->tel.have & SMI_TEL_CPLD ? d->tel.cpld_version : "N/A");
	}
}

static void print_power_max(const struct smi_report *r)
{
	int i;

	for (i = 0; i < r->num_devices; i++) {
		const struct smi_telemetry *t = &r->devices[i].tel;

		if (!(t->have & SMI_TEL_POWER_CAP)) {
			printf("AIP %d: power cap N/A\n", r->devices[i].index);
			continue;
		}
		printf("AIP %d: power cap %lld.%03lld W (settable up to %lld.%03lld W)\n",
		       r->devices[i].index, t->power_cap_mw / 1000, t->power_cap_mw % 1000,
		       t->power_cap_max_mw / 1000, t->power_cap_max_mw % 1000);
	}
}

static void format_timestamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm))
		snprintf(buf, len, "N/A");
}

/* Collect and print once; returns the exit status. */
static int report_once(const struct smi_options *o, const int *indices, int count)
{
	static struct smi_device devices[HLTHUNK_MAX_MINOR];
	struct smi_report report = { .smi_version = SMI_VERSION, .devices = devices };
	char timestamp[64], query_time[64];
	int i, rc, status = EXIT_SUCCESS;

	for (i = 0; i < count; i++) {
		rc = smi_collect_device(indices[i], &devices[report.num_devices]);
		if (rc) {
			fprintf(stderr, "hl-smi: cannot open the control node of accel%d: %s\n",
				indices[i], strerror(-rc));
			status = EXIT_FAILURE;
			continue;
		}
		report.num_devices++;
	}
	if (!report.num_devices)
		return EXIT_FAILURE;

	format_timestamp(timestamp, sizeof(timestamp));
	format_query_time(query_time, sizeof(query_time));
	report.timestamp = timestamp;
	report.query_time = query_time;
	report.sections = o->section_bits;
	switch (o->mode) {
	case MODE_CSV:
		smi_print_csv(stdout, &report, &o->query);
		break;
	case MODE_JSON:
		smi_print_json(stdout, &report, &o->query);
		break;
	case MODE_PROMETHEUS:
		smi_print_prometheus(stdout, &report);
		break;
	case MODE_FW_VERSIONS:
		print_fw_versions(&report);
		break;
	case MODE_POWER_MAX:
		print_power_max(&report);
		break;
	case MODE_DETAIL:
		smi_print_detail(stdout, &report);
		break;
	case MODE_TOPO:
		smi_print_topo(stdout, &report);
		break;
	default:
		smi_print_table(stdout, &report);
		break;
	}
	fflush(stdout);
	return status;
}

/* -r and --power-max=W: root only, on the selected devices. */
static int run_action(const struct smi_options *o, const int *indices, int count)
{
	char bus_id[HLTHUNK_BUS_ID_MAX_LEN];
	int i, fd, status = EXIT_SUCCESS;

	if (geteuid() != 0) {
		fprintf(stderr, "hl-smi: %s needs root\n", o->mode == MODE_RESET ? "-r" :
			"--power-max=WATTS");
		return EXIT_FAILURE;
	}
	for (i = 0; i < count; i++) {
		fd = hlthunk_open_control(indices[i], NULL);
		if (fd < 0 || hlthunk_get_pci_bus_id_from_fd(fd, bus_id, sizeof(bus_id)))
			snprintf(bus_id, sizeof(bus_id), "accel%d", indices[i]);
		if (fd >= 0)
			hlthunk_close(fd);
		if ((o->mode == MODE_RESET ? smi_reset_device(indices[i], bus_id) :
		     smi_set_power_max(indices[i], bus_id, o->power_max_mw)))
			status = EXIT_FAILURE;
	}
	return status;
}

int main(int argc, char **argv)
{
	int indices[HLTHUNK_MAX_MINOR];
	struct smi_options o;
	int count, rc;

	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;

	count = hlthunk_list_devices(indices, HLTHUNK_MAX_MINOR);
	if (count < 0) {
		fprintf(stderr, "hl-smi: cannot list devices: %s\n", strerror(-count));
		return EXIT_FAILURE;
	}
	if (count == 0) {
		fprintf(stderr, "hl-smi: no gaudisim devices were found "
				"(is the gaudisim driver loaded?)\n");
		return EXIT_FAILURE;
	}
	if (o.device) {
		rc = select_device(o.device, indices, &count);
		if (rc >= 0)
			return rc;
	}

	if (o.mode == MODE_RESET || o.mode == MODE_SET_POWER_MAX)
		return run_action(&o, indices, count);

	rc = report_once(&o, indices, count);
	/* CSV under -l: the header once, then only rows (nvidia-smi's habit). */
	o.query.header = false;
	while (o.loop_s) {
		sleep((unsigned int)o.loop_s);
		if (o.mode != MODE_CSV)
			putchar('\n');
		rc = report_once(&o, indices, count);
	}
	return rc;
}
