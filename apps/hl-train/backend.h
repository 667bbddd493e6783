/*
 * What the training loop asks of an executor: the device (libhlrt) and
 * the CPU reference trainer implement the same operations, so one loop
 * drives both and their runs can be compared step by step.
 */
#ifndef BACKEND_H
#define BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "dataset.h"
#include "model.h"
#include "params.h"
#include "train_err.h"

struct backend_setup {
	const struct model *model;
	const struct dataset *data;
	uint32_t batch;			/* training batch size */
	bool bf16;			/* mixed precision (device only) */
	bool eager;			/* op-by-op execution (device only) */
	const char *profile;		/* profile file, or NULL */
	/*
	 * Training steps per submission (device only; 0 or 1: one each):
	 * full batches go N at a time through hlrt_launch_repeat.
	 */
	uint32_t steps_per_execution;
	/*
	 * Data parallel (device only): rank of nranks, meeting through
	 * comm_id; each step trains on the rank's slice of the batch and
	 * the gradients are summed over the ranks. nranks 0: one device.
	 */
	uint32_t rank, nranks;
	const char *comm_id;
};

struct backend_step_result {
	float loss;			/* mean over the batch */
	uint32_t correct;		/* samples whose argmax is the label */
	uint32_t count;			/* samples in the batch */
};

struct backend_eval_result {
	double loss_sum;		/* summed over the test set */
	uint32_t correct;
	uint32_t count;
};

struct backend_ops {
	const char *name;		/* shown to the user: "HPU:0", "CPU" */
	int (*open)(void **ctx, const struct backend_setup *setup,
		    struct train_err *err);
	/*
	 * Parameters and the optimizer's state (params_create_state, with
	 * its update count; NULL: start from zero) host -> executor.
	 */
	int (*load_params)(void *ctx, const struct params *p,
			   const struct params *state, struct train_err *err);
	int (*store_params)(void *ctx, struct params *p, struct params *state,
			    struct train_err *err);
	/* The training-set order of one epoch (data->train.count indices). */
	int (*begin_epoch)(void *ctx, const uint32_t *order, struct train_err *err);
	/*
	 * Queue one training step (forward, backward, optimizer update) on
	 * order[first .. first + count); at most `depth` steps are queued
	 * before collect() takes their results. Data parallel: every rank
	 * gets the whole batch and takes its slice; the results are the
	 * whole batch's.
	 */
	int (*step)(void *ctx, uint32_t first, uint32_t count, float lr,
		    struct train_err *err);
	/* Wait for the N steps queued (N <= depth); their results in order. */
	int (*collect)(void *ctx, struct backend_step_result *out, uint32_t n,
		       struct train_err *err);
	uint32_t depth;
	/* Loss and accuracy over the whole test set. */
	int (*evaluate)(void *ctx, struct backend_eval_result *out,
			struct train_err *err);
	void (*close)(void *ctx);
};

extern const struct backend_ops ref_trainer_ops;
extern const struct backend_ops device_backend_ops;

#endif
