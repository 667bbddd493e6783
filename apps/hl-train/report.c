/* Keras-style progress output and MLLOG lines (report.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

#define REPORT_BAR 30
/* Redraw a live bar at most this often (seconds). */
#define REPORT_REDRAW 0.1

void report_init(struct report *r, FILE *out, bool mllog)
{
	memset(r, 0, sizeof(*r));
	r->out = out;
	r->tty = isatty(fileno(out));
	r->mllog = mllog;
}

double report_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void report_epoch_begin(struct report *r, uint32_t epoch, uint32_t epochs,
			uint32_t steps)
{
	char meta[64];

	snprintf(meta, sizeof(meta), "{\"epoch_num\": %u}", epoch);
	report_mllog(r, "INTERVAL_START", "epoch_start", "null", meta);
	fprintf(r->out, "Epoch %u/%u\n", epoch, epochs);
	fflush(r->out);
	r->steps = steps;
	r->epoch_t0 = report_now();
	r->last_draw = 0;
}

/* "469/469 [==============================] - 0.7s - loss: 0.4512 - accuracy: 0.8811" */
static void report_line(struct report *r, uint32_t step, double loss, double accuracy)
{
	char bar[REPORT_BAR + 1];
	uint32_t full = (uint32_t)((uint64_t)step * REPORT_BAR / r->steps);

	for (uint32_t i = 0; i < REPORT_BAR; i++)
		bar[i] = i < full ? '=' : (i == full && step < r->steps ? '>' : '.');
	bar[REPORT_BAR] = '\0';
	fprintf(r->out, "%*u/%u [%s] - %.1fs - loss: %.4f - accuracy: %.4f",
		(int)snprintf(NULL, 0, "%u", r->steps), step, r->steps, bar,
		report_now() - r->epoch_t0, loss, accuracy);
}

void report_step(struct report *r, uint32_t step, double loss, double accuracy)
{
	double now;

	if (!r->tty || step == r->steps)
		return;
	now = report_now();
	if (now - r->last_draw < REPORT_REDRAW)
		return;
	r->last_draw = now;
	fputc('\r', r->out);
	report_line(r, step, loss, accuracy);
	fflush(r->out);
}

void report_epoch_partial(struct report *r, uint64_t steps_done, double loss,
			  double accuracy)
{
	if (r->tty)
		fputc('\r', r->out);
	report_line(r, (uint32_t)(steps_done < r->steps ? steps_done : r->steps), loss, accuracy);
	fputc('\n', r->out);
	fflush(r->out);
}

void report_float(char *buf, size_t len, float f)
{
	for (int digits = 1; digits <= 9; digits++) {
		snprintf(buf, len, "%.*g", digits, (double)f);
		if (strtof(buf, NULL) == f)
			return;
	}
}

/* The fewest significant digits (1..17) that read back as d. */
static int report_double_digits(double d)
{
	char buf[32];

	for (int digits = 1; digits < 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, d);
		if (strtod(buf, NULL) == d)
			return digits;
	}
	return 17;
}

void report_epoch_end(struct report *r, uint32_t epoch, double loss, double accuracy)
{
	char meta[64];

	if (r->tty)
		fputc('\r', r->out);
	report_line(r, r->steps, loss, accuracy);
	fputc('\n', r->out);
	fflush(r->out);
	snprintf(meta, sizeof(meta), "{\"epoch_num\": %u}", epoch);
	report_mllog(r, "INTERVAL_END", "epoch_stop", "null", meta);
}

void report_mllog(struct report *r, const char *event_type, const char *key,
		  const char *value_json, const char *metadata_json)
{
	json_t *line, *value, *meta;
	struct timespec ts;
	char *text;

	if (!r->mllog)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	value = json_loads(value_json, JSON_DECODE_ANY, NULL);
	meta = metadata_json ? json_loads(metadata_json, 0, NULL) : json_object();
	line = json_pack("{s:s, s:I, s:s, s:s, s:o, s:o}", "namespace", "",
			 "time_ms", (json_int_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
			 "event_type", event_type, "key", key,
			 "value", value ? value : json_null(),
			 "metadata", meta ? meta : json_object());
	/* Reals as short as they read back exactly: 0.01, not 0.01000000000000000021. */
	text = json_dumps(line, JSON_PRESERVE_ORDER |
			  (json_is_real(value) ?
			   JSON_REAL_PRECISION(report_double_digits(json_real_value(value))) : 0));
	if (text)
		fprintf(r->out, ":::MLLOG %s\n", text);
	fflush(r->out);
	free(text);
	json_decref(line);
}
