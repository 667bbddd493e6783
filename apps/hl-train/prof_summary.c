/*
 * hl-prof-summary: where a profiled run's time went. Reads a Chrome
 * Trace Event file written by libhlrt's profiler (HLRT_PROFILE or
 * hl-train --profile) and prints, per lane (each DMA, the MME, each TPC,
 * the launches' engine spans, the CPU ops, the collectives, the host API),
 * the events, the busy time (the union of the lane's events) and its
 * share of the profile's span, then the ops that took the most time. All
 * lanes are on one clock (prof_lanes.h).
 *
 *   hl-prof-summary [--require LANE]... FILE
 *
 * --require LANE fails (exit status 1) unless some lane whose name starts
 * with LANE ("MME", "TPC", "DMA") has events. A file that does not parse
 * is an error naming the line and column.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "prof_lanes.h"

#define PROF_TOP_OPS 10

static void prof_print(const struct prof *p, const char *path)
{
	double first = 0, last = 0, span;
	bool any = false;

	for (unsigned i = 0; i < p->n_lanes; i++) {
		const struct prof_lane *l = &p->lane[i];

		if (!l->events)
			continue;
		if (!any || l->first_us < first)
			first = l->first_us;
		if (!any || l->last_us > last)
			last = l->last_us;
		any = true;
	}
	span = last - first;
	printf("%s: %lu events over %.1f ms\n", path, p->events, span / 1000);
	/* first: the lane's first event, from the profile's start (one clock for all) */
	printf("%-20s %10s %12s %12s %7s\n", "lane", "events", "first ms", "busy ms", "busy %");
	for (unsigned i = 0; i < p->n_lanes; i++)
		if (p->lane[i].events)
			printf("%-20s %10lu %12.3f %12.3f %6.1f%%\n", p->lane[i].name,
			       p->lane[i].events, p->lane[i].first_us / 1000,
			       p->lane[i].busy_us / 1000,
			       span > 0 ? 100.0 * p->lane[i].busy_us / span : 0.0);
	printf("ops by time:\n");
	for (unsigned i = 0; i < p->n_ops && i < PROF_TOP_OPS; i++)
		printf("  %-34s %8lu %10.1f ms %8.3f ms each\n", p->op[i].name, p->op[i].events,
		       p->op[i].busy_us / 1000, p->op[i].busy_us / 1000 / p->op[i].events);
}

int main(int argc, char **argv)
{
	const char *required[16], *path = NULL;
	unsigned n_required = 0;
	json_error_t jerr;
	struct prof *p;
	json_t *root, *events;
	int status = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--require") == 0 && i + 1 < argc && n_required < 16) {
			required[n_required++] = argv[++i];
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "usage: hl-prof-summary [--require LANE]... FILE\n");
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, "usage: hl-prof-summary [--require LANE]... FILE\n");
		return 2;
	}
	/* A missing or unreadable file is named as such, not as a parse error. */
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "hl-prof-summary: %s: %s\n", path, strerror(errno));
		return 1;
	}
	root = json_load_file(path, 0, &jerr);
	if (!root) {
		fprintf(stderr, "hl-prof-summary: %s:%d:%d: %s\n", path, jerr.line, jerr.column,
			jerr.text);
		return 1;
	}
	events = json_is_array(root) ? root : json_object_get(root, "traceEvents");
	if (!json_is_array(events)) {
		fprintf(stderr, "hl-prof-summary: %s: no traceEvents array\n", path);
		json_decref(root);
		return 1;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		json_decref(root);
		return 1;
	}
	if (prof_read(p, events)) {
		fprintf(stderr, "hl-prof-summary: %s: out of memory\n", path);
		json_decref(root);
		prof_free(p);
		free(p);
		return 1;
	}
	json_decref(root);
	prof_print(p, path);
	for (unsigned r = 0; r < n_required; r++) {
		if (!prof_find_lane(p, required[r])) {
			fprintf(stderr, "hl-prof-summary: %s: no events on a %s lane\n", path,
				required[r]);
			status = 1;
		}
	}
	if (!p->events) {
		fprintf(stderr, "hl-prof-summary: %s: no events\n", path);
		status = 1;
	}
	prof_free(p);
	free(p);
	return status;
}
