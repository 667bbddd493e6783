/*
 * hl-prof-summary: where a profiled run's time went. Reads a Chrome
 * Trace Event file written by libhlrt's profiler (HLRT_PROFILE or
 * hl-train --profile) and prints, per lane (each DMA, the MME, each TPC,
 * the host API), the events and their busy time, then the ops that took
 * the most time.
 *
 *   hl-prof-summary [--require LANE]... FILE
 *
 * --require LANE fails (exit status 1) unless some lane whose name starts
 * with LANE ("MME", "TPC", "DMA") has events. A file that does not parse
 * is an error naming the line and column.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROF_MAX_LANES 64
#define PROF_MAX_OPS 256
#define PROF_TOP_OPS 10

struct prof_lane {
	json_int_t pid, tid;
	char name[64];
	unsigned long events;
	double busy_us;
};

struct prof_op {
	char name[96];		/* "<category> <last part of the event name>" */
	unsigned long events;
	double busy_us;
};

struct prof {
	struct prof_lane lane[PROF_MAX_LANES];
	unsigned n_lanes;
	struct prof_op op[PROF_MAX_OPS];
	unsigned n_ops;
	unsigned long events;
};

static struct prof_lane *prof_lane(struct prof *p, json_int_t pid, json_int_t tid)
{
	for (unsigned i = 0; i < p->n_lanes; i++)
		if (p->lane[i].pid == pid && p->lane[i].tid == tid)
			return &p->lane[i];
	if (p->n_lanes == PROF_MAX_LANES)
		return NULL;
	p->lane[p->n_lanes] = (struct prof_lane){ .pid = pid, .tid = tid };
	snprintf(p->lane[p->n_lanes].name, sizeof(p->lane[0].name), "pid %lld tid %lld",
		 (long long)pid, (long long)tid);
	return &p->lane[p->n_lanes++];
}

static void prof_add_op(struct prof *p, const char *cat, const char *name, double dur)
{
	const char *base = strrchr(name, '/');
	char key[96];
	unsigned i;

	snprintf(key, sizeof(key), "%s %s", cat, base ? base + 1 : name);
	for (i = 0; i < p->n_ops; i++)
		if (strcmp(p->op[i].name, key) == 0)
			break;
	if (i == p->n_ops) {
		if (p->n_ops == PROF_MAX_OPS)
			return;
		snprintf(p->op[p->n_ops++].name, sizeof(p->op[0].name), "%s", key);
	}
	p->op[i].events++;
	p->op[i].busy_us += dur;
}

/* Lane names ("thread_name" metadata) and complete ("X") events. */
static void prof_read(struct prof *p, json_t *events)
{
	size_t i;
	json_t *e;

	json_array_foreach(events, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		json_int_t pid = json_integer_value(json_object_get(e, "pid"));
		json_int_t tid = json_integer_value(json_object_get(e, "tid"));
		struct prof_lane *l;

		if (!ph)
			continue;
		l = prof_lane(p, pid, tid);
		if (!l)
			continue;
		if (strcmp(ph, "M") == 0 &&
		    strcmp(json_string_value(json_object_get(e, "name")) ?: "", "thread_name") == 0) {
			const char *n = json_string_value(json_object_get(json_object_get(e, "args"),
									  "name"));

			if (n)
				snprintf(l->name, sizeof(l->name), "%s", n);
		} else if (strcmp(ph, "X") == 0) {
			double dur = json_number_value(json_object_get(e, "dur"));

			l->events++;
			l->busy_us += dur;
			p->events++;
			prof_add_op(p, json_string_value(json_object_get(e, "cat")) ?: "?",
				    json_string_value(json_object_get(e, "name")) ?: "?", dur);
		}
	}
}

static int prof_by_busy(const void *a, const void *b)
{
	double x = ((const struct prof_op *)a)->busy_us, y = ((const struct prof_op *)b)->busy_us;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void prof_print(const struct prof *p, const char *path)
{
	/* (The host lane runs on the host's clock, the others on the device's.) */
	printf("%s: %lu events\n", path, p->events);
	printf("%-20s %10s %12s\n", "lane", "events", "busy ms");
	for (unsigned i = 0; i < p->n_lanes; i++)
		if (p->lane[i].events)
			printf("%-20s %10lu %12.1f\n", p->lane[i].name, p->lane[i].events,
			       p->lane[i].busy_us / 1000);
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
	prof_read(p, events);
	json_decref(root);
	qsort(p->op, p->n_ops, sizeof(p->op[0]), prof_by_busy);
	prof_print(p, path);
	for (unsigned r = 0; r < n_required; r++) {
		unsigned long n = 0;

		for (unsigned i = 0; i < p->n_lanes; i++)
			if (strncmp(p->lane[i].name, required[r], strlen(required[r])) == 0)
				n += p->lane[i].events;
		if (!n) {
			fprintf(stderr, "hl-prof-summary: %s: no events on a %s lane\n", path,
				required[r]);
			status = 1;
		}
	}
	if (!p->events) {
		fprintf(stderr, "hl-prof-summary: %s: no events\n", path);
		status = 1;
	}
	free(p);
	return status;
}
