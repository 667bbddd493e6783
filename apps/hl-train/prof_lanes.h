/* SPDX-License-Identifier: MIT */
/*
 * Reading a profile (Chrome Trace Event JSON from libhlrt's profiler):
 * per lane the events, the busy time (the union of the lane's event
 * intervals, so nested or overlapping events count once) and the span
 * from the first event's start to the last one's end; per op the summed
 * duration. hl-prof-summary prints it.
 */
#ifndef PROF_LANES_H
#define PROF_LANES_H

#include <jansson.h>

#define PROF_MAX_LANES 64
#define PROF_MAX_OPS 256

struct prof_interval {
	double t0, t1;		/* us */
};

struct prof_lane {
	json_int_t pid, tid;
	char name[64];
	unsigned long events;
	double busy_us;		/* union of the intervals */
	double first_us, last_us;
	struct prof_interval *iv;
	unsigned long n_iv, cap_iv;
};

struct prof_op {
	char name[96];		/* "<category> <last part of the event name>" */
	unsigned long events;
	double busy_us;		/* summed durations */
};

struct prof {
	struct prof_lane lane[PROF_MAX_LANES];
	unsigned n_lanes;
	struct prof_op op[PROF_MAX_OPS];
	unsigned n_ops;
	unsigned long events;
};

/*
 * Read the trace's events into p (zeroed by the caller), then compute the
 * lanes' busy times and sort the ops by time. Returns 0, or -1 when memory
 * ran out.
 */
int prof_read(struct prof *p, json_t *events);
/* The lane whose name starts with prefix and has the most events, or NULL. */
const struct prof_lane *prof_find_lane(const struct prof *p, const char *prefix);
void prof_free(struct prof *p);

#endif /* PROF_LANES_H */
