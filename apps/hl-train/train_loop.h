/*
 * One training run, whatever executes it: load the model and the data,
 * initialise or resume the parameters, run the epochs with the same
 * per-epoch sample order on any backend, evaluate on the test set, save
 * the checkpoint, and stop cleanly on Ctrl-C or a failing step.
 */
#ifndef TRAIN_LOOP_H
#define TRAIN_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

struct train_options {
	const char *model_path;
	const char *data_name;		/* mnist | fashion-mnist */
	const char *data_root;		/* folder holding <data_name>/ */
	uint32_t epochs;		/* 0: the model's */
	uint32_t batch;			/* 0: the model's */
	float lr;			/* 0: the model's */
	bool has_seed;
	uint64_t seed;
	bool bf16, eager, mllog;
	const char *save;		/* checkpoint written after each epoch */
	const char *resume;		/* checkpoint to continue from */
	const char *dump_losses;	/* per-step losses, one line each */
	const char *profile;		/* profile file for the device backend */
	uint64_t max_steps;		/* stop after this many steps (0: no limit) */
	bool no_eval;			/* skip the test-set evaluation */
	uint32_t devices;		/* --devices (0: not given) */
	uint32_t steps_per_execution;	/* 0: the model's */
	/* Data parallel (dp_launch.c): this process is rank of nranks. */
	uint32_t rank, nranks;		/* nranks 0: one device */
	const char *comm_id;		/* the communicator's id (HLRT_COMM_ID) */
};

/* Run training; returns the process exit status (0, 1 on error, 130 on SIGINT). */
int train_run(const struct train_options *opt, const struct backend_ops *ops);

#endif
