// SPDX-License-Identifier: MIT
/* Reading a profile into lanes and ops (prof_lanes.h). */
#include <stdlib.h>
#include <string.h>

#include "prof_lanes.h"

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

static int prof_add_interval(struct prof_lane *l, double t0, double t1)
{
	if (l->n_iv == l->cap_iv) {
		unsigned long cap = l->cap_iv ? 2 * l->cap_iv : 256;
		struct prof_interval *n = realloc(l->iv, cap * sizeof(*n));

		if (!n)
			return -1;
		l->iv = n;
		l->cap_iv = cap;
	}
	l->iv[l->n_iv++] = (struct prof_interval){ t0, t1 };
	if (l->events == 1 || t0 < l->first_us)
		l->first_us = t0;
	if (l->events == 1 || t1 > l->last_us)
		l->last_us = t1;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	double x = ((const struct prof_interval *)a)->t0, y = ((const struct prof_interval *)b)->t0;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The union of a lane's intervals. */
static double prof_union(struct prof_lane *l)
{
	double busy = 0, end = 0;
	unsigned long i;

	qsort(l->iv, l->n_iv, sizeof(l->iv[0]), by_start);
	for (i = 0; i < l->n_iv; i++) {
		double t0 = l->iv[i].t0 > end || i == 0 ? l->iv[i].t0 : end;

		if (l->iv[i].t1 > t0)
			busy += l->iv[i].t1 - t0;
		if (i == 0 || l->iv[i].t1 > end)
			end = l->iv[i].t1;
	}
	return busy;
}

static int prof_by_busy(const void *a, const void *b)
{
	double x = ((const struct prof_op *)a)->busy_us, y = ((const struct prof_op *)b)->busy_us;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Lane names ("thread_name" metadata) and complete ("X") events. */
int prof_read(struct prof *p, json_t *events)
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
			double ts = json_number_value(json_object_get(e, "ts"));
			double dur = json_number_value(json_object_get(e, "dur"));

			l->events++;
			p->events++;
			if (prof_add_interval(l, ts, ts + dur))
				return -1;
			prof_add_op(p, json_string_value(json_object_get(e, "cat")) ?: "?",
				    json_string_value(json_object_get(e, "name")) ?: "?", dur);
		}
	}
	for (unsigned k = 0; k < p->n_lanes; k++)
		p->lane[k].busy_us = prof_union(&p->lane[k]);
	qsort(p->op, p->n_ops, sizeof(p->op[0]), prof_by_busy);
	return 0;
}

const struct prof_lane *prof_find_lane(const struct prof *p, const char *prefix)
{
	const struct prof_lane *best = NULL;

	for (unsigned i = 0; i < p->n_lanes; i++)
		if (strncmp(p->lane[i].name, prefix, strlen(prefix)) == 0 && p->lane[i].events &&
		    (!best || p->lane[i].events > best->events))
			best = &p->lane[i];
	return best;
}

void prof_free(struct prof *p)
{
	for (unsigned i = 0; i < p->n_lanes; i++)
		free(p->lane[i].iv);
}
