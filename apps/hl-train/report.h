/*
 * What a training run prints: Keras-style epoch lines (a live progress
 * bar when stdout is a terminal, one line per epoch otherwise), the test
 * result, throughput, and optionally MLPerf-style ":::MLLOG {...}" lines.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct report {
	FILE *out;
	bool tty;			/* redraw a progress bar in place */
	bool mllog;
	double epoch_t0;		/* seconds, monotonic */
	double last_draw;
	uint32_t steps;			/* steps in the current epoch */
};

void report_init(struct report *r, FILE *out, bool mllog);
/* Monotonic seconds. */
double report_now(void);
void report_epoch_begin(struct report *r, uint32_t epoch, uint32_t epochs,
			uint32_t steps);
/* After step STEP (1-based) of the epoch; loss and accuracy so far. */
void report_step(struct report *r, uint32_t step, double loss, double accuracy);
/*
 * An epoch that --max-steps or a signal cut short: its bar at the steps
 * done, with their loss and accuracy (also when stdout is not a terminal).
 */
void report_epoch_partial(struct report *r, uint64_t steps_done, double loss,
			  double accuracy);
/* f in the fewest digits that read back as the same float (0.01, not 0.00999999978). */
void report_float(char *buf, size_t len, float f);
void report_epoch_end(struct report *r, uint32_t epoch, double loss, double accuracy);
/*
 * One MLLOG line. VALUE_JSON is a JSON text (a number, a string in
 * quotes, "null"); METADATA_JSON an object text or NULL.
 */
void report_mllog(struct report *r, const char *event_type, const char *key,
		  const char *value_json, const char *metadata_json);

#endif
