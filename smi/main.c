// SPDX-License-Identifier: MIT
/*
 * hl-smi: device state of gaudisim accelerators, in the style of Habana's
 * tool. Reads only the control node, so it works while a job runs.
 * Exit status: 0 success, 1 no device or a device could not be read,
 * 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "format.h"
#include "hlthunk.h"

#define EXIT_USAGE	2

enum smi_mode { MODE_TABLE, MODE_DETAIL, MODE_CSV };

struct smi_options {
	enum smi_mode mode;
	struct smi_query query;
	const char *fields;	/* -Q */
	const char *format;	/* -f */
	const char *device;	/* -i */
	long loop_s;		/* -l: repeat every loop_s seconds; 0 = once */
};

#define DEFAULT_LOOP_S	5
#define MAX_LOOP_S	86400

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: hl-smi [options]\n"
		"Show the state of gaudisim AI processors (AIPs).\n\n"
		"  (no option)                 summary table of every device\n"
		"  -L, --list-aips             detailed log of every device\n"
		"  -q, --query                 same as -L\n"
		"  -Q, --query-aip=FIELDS      print FIELDS (comma separated) per device:\n"
		"                              index, name, bus_id, driver_version,\n"
		"                              memory.total, memory.used, memory.free, status\n"
		"  -f, --format=csv[,noheader][,nounits]\n"
		"                              output format of -Q (default csv)\n"
		"  -i, --device=ID             only the device with this index or bus id\n"
		"                              (BB:DD.F or DDDD:BB:DD.F)\n"
		"  -l, --loop[=SECONDS]        repeat every SECONDS (default %d) until interrupted\n"
		"  -v, --version               print the version and exit\n"
		"  -h, --help                  print this help and exit\n", DEFAULT_LOOP_S);
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
		{ NULL, 0, NULL, 0 },
	};
	bool detail = false;
	char err[512];
	int c;

	memset(o, 0, sizeof(*o));
	smi_query_init(&o->query);
	opterr = 0;	/* our own messages, and exit status 2 */
	while ((c = getopt_long(argc, argv, ":hvLqQ:f:i:l::", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'v':
			printf("hl-smi %s (libhlthunk %s)\n", SMI_VERSION, hlthunk_get_version());
			return EXIT_SUCCESS;
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
			o->loop_s = DEFAULT_LOOP_S;
			if (optarg && (o->loop_s = parse_seconds(optarg)) < 0)
				return usage_error("-l needs a number of seconds, not '%s'", optarg);
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
	if (o->format && !o->fields)
		return usage_error("%s", "-f is only valid with -Q");
	if (o->fields && smi_parse_fields(o->fields, &o->query, err, sizeof(err)))
		return usage_error("%s", err);
	if (o->format && smi_parse_format(o->format, &o->query, err, sizeof(err)))
		return usage_error("%s", err);
	if (o->device && !is_number(o->device) && hlthunk_parse_pci_bus_id(o->device, NULL, 0))
		return usage_error("'%s' is neither a device index nor a bus id", o->device);
	o->mode = o->fields ? MODE_CSV : detail ? MODE_DETAIL : MODE_TABLE;
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
	want = hlthunk_get_device_index_by_busid(selector);
	if (want < 0) {
		fprintf(stderr, "hl-smi: no gaudisim device at bus id %s\n", selector);
		return EXIT_FAILURE;
	}
	indices[0] = want;
	*count = 1;
	return -1;
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
	char timestamp[64];
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
	report.timestamp = timestamp;
	switch (o->mode) {
	case MODE_CSV:
		smi_print_csv(stdout, &report, &o->query);
		break;
	case MODE_DETAIL:
		smi_print_detail(stdout, &report);
		break;
	default:
		smi_print_table(stdout, &report);
		break;
	}
	fflush(stdout);
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

	rc = report_once(&o, indices, count);
	while (o.loop_s) {
		sleep((unsigned int)o.loop_s);
		if (o.mode != MODE_CSV)
			putchar('\n');
		rc = report_once(&o, indices, count);
	}
	return rc;
}
