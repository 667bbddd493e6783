// SPDX-License-Identifier: MIT
/* Parsing hl-train's output (progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

void progress_init(struct progress *p)
{
	memset(p, 0, sizeof(*p));
}

/* The number after tag in line, if tag is there and a number follows. */
static bool number_after(const char *line, const char *tag, double *out)
{
	const char *s = strstr(line, tag);
	char *end;

	if (!s)
		return false;
	s += strlen(tag);
	*out = strtod(s, &end);
	return end != s;
}

enum progress_event progress_line(struct progress *p, const char *line)
{
	unsigned int e, m;
	double loss, acc, rate;
	const char *cr = strrchr(line, '\r');

	/* A terminal's redrawn bar: only the last drawing counts. */
	if (cr)
		line = cr + 1;
	if (*line)
		snprintf(p->last, sizeof(p->last), "%s", line);
	if (sscanf(line, "Epoch %u/%u", &e, &m) == 2) {
		p->epoch = e;
		return PROGRESS_NONE;
	}
	if (!strncmp(line, "test loss: ", 11)) {
		if (number_after(line, "test loss: ", &loss) &&
		    number_after(line, "test accuracy: ", &acc)) {
			p->has_test = true;
			p->test_loss = loss;
			p->test_accuracy = acc;
			return PROGRESS_TEST;
		}
		return PROGRESS_NONE;
	}
	if (strstr(line, " samples/s") && number_after(line, "s: ", &rate)) {
		p->samples_per_s = rate;
		return PROGRESS_NONE;
	}
	/* The bar line of the epoch running; a second one for it is a redraw. */
	if (p->epoch > p->epochs_done && strchr(line, '[') &&
	    number_after(line, " - loss: ", &loss) &&
	    number_after(line, " - accuracy: ", &acc)) {
		unsigned int step, steps;

		if (sscanf(line, " %u/%u", &step, &steps) != 2 || step != steps)
			return PROGRESS_NONE;
		p->epochs_done = p->epoch;
		p->loss = loss;
		p->accuracy = acc;
		return PROGRESS_EPOCH_END;
	}
	return PROGRESS_NONE;
}
