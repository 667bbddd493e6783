/* SPDX-License-Identifier: MIT */
/*
 * Reading a trial's progress from hl-train's output: "Epoch N/M" starts an
 * epoch, its bar line ("469/469 [===] - 0.6s - loss: L - accuracy: A",
 * printed once per epoch when the output is not a terminal) ends it, and
 * "test loss: L - test accuracy: A" and "... samples/s" close the run.
 */
#ifndef HL_TRIALS_PROGRESS_H
#define HL_TRIALS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#define PROGRESS_LINE_MAX	256

struct progress {
	uint32_t epoch;		/* the epoch running (from "Epoch N/M"), 0 before */
	uint32_t epochs_done;	/* epochs whose metrics were read */
	double loss, accuracy;	/* of the last epoch done */
	bool has_test;
	double test_loss, test_accuracy;
	double samples_per_s;	/* 0 until the run reports it */
	char last[PROGRESS_LINE_MAX];	/* last non-empty line, for error reports */
};

enum progress_event { PROGRESS_NONE, PROGRESS_EPOCH_END, PROGRESS_TEST };

void progress_init(struct progress *p);
/* One line of output (without its newline). */
enum progress_event progress_line(struct progress *p, const char *line);

#endif /* HL_TRIALS_PROGRESS_H */
