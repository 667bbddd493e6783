/* SPDX-License-Identifier: MIT */
/*
 * Running trials: each one an hl-train process on one device of its own
 * (HABANA_VISIBLE_MODULES set to that card), its output read through a
 * pipe for per-epoch metrics and kept in a log; the scheduler's STOP ends
 * a trial with SIGINT, which hl-train answers with a clean stop. A trial
 * that fails or crashes is recorded and its device goes to the next one.
 */
#ifndef HL_TRIALS_RUNNER_H
#define HL_TRIALS_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "asha.h"
#include "progress.h"
#include "space.h"

#define RUNNER_MAX_MODULES	64

enum trial_state {
	TRIAL_PENDING, TRIAL_RUNNING,
	TRIAL_DONE,	/* ran every epoch */
	TRIAL_STOPPED,	/* stopped early by the scheduler */
	TRIAL_FAILED,	/* exited non-zero on its own */
	TRIAL_CRASHED,	/* killed by a signal */
	TRIAL_INTERRUPTED,	/* stopped because hl-trials was interrupted */
};

enum trial_metric { METRIC_ACCURACY, METRIC_LOSS };

struct trial {
	uint32_t id;
	struct trial_config cfg;
	enum trial_state state;
	int module;		/* the card it ran on, -1 before */
	pid_t pid;
	int fd;			/* read end of its output pipe */
	bool stop_sent;
	bool interrupted;	/* hl-trials passed its SIGINT/SIGTERM on */
	uint32_t stopped_at;	/* rung epoch of the STOP */
	int exit_status;	/* exit code, or signal number when crashed */
	double t_start, t_end;	/* seconds since the search began */
	struct progress prog;
	char buf[PROGRESS_LINE_MAX * 4];
	size_t used;
	FILE *log;
};

struct runner_options {
	const char *trainer;	/* hl-train or a stand-in with its CLI */
	const char *model, *data, *data_dir;
	uint32_t epochs;
	bool no_eval;
	const char *log_dir;	/* NULL: no per-trial logs */
	int modules[RUNNER_MAX_MODULES];
	uint32_t n_modules;
	uint32_t parallel;	/* trials at once, <= n_modules */
	enum trial_metric metric;
	struct asha *asha;	/* NULL: every trial runs to the end */
	bool quiet;		/* no per-epoch lines */
};

const char *trial_state_name(enum trial_state s);
/* The trial's metric of its last epoch (NaN when it finished none). */
double trial_metric(const struct trial *t, enum trial_metric m);

/*
 * CPUs a trial keeps busy: its trainer's process (which loads the data,
 * builds and submits the steps) and its card's engine work, on the CPUs of
 * the machine that hosts the card, mostly take turns: the trainer waits
 * for its step, the card for the next one. So one CPU a trial: two trials
 * on two CPUs overlap one's trainer with the other's card (docs/
 * multi-device.md has the figures); more trials at once than the CPUs
 * hold make each slower than running them in turn.
 */
#define RUNNER_CPUS_PER_TRIAL	1u

/*
 * Trials at once by default on n_modules cards and a machine of 'cpus'
 * CPUs: one per card, as many as the CPUs hold (at least one).
 */
uint32_t runner_default_parallel(uint32_t n_modules, long cpus);

/* Run every trial; returns 0, or -1 when the search itself broke (pipe, fork). */
int runner_run(const struct runner_options *o, struct trial *trials, uint32_t n);

/*
 * SIGINT and SIGTERM end the search: runner_run() passes the signal on to
 * the running trials, waits for them (killing them after a grace period)
 * and returns; runner_interrupted() then says which signal, else 0.
 */
int runner_catch_signals(void);
int runner_interrupted(void);

#endif /* HL_TRIALS_RUNNER_H */
