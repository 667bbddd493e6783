/*
 * Training checkpoints as safetensors: every parameter under its Keras
 * name ("dense/kernel"), the optimizer state under the names hlrt.h
 * documents (SGD "<name>/momentum", LAMB "<name>/m" and "<name>/v"), and in the
 * metadata the model's name, the seed, the epochs and steps done and
 * LAMB's update count, so a resumed run continues exactly where the
 * saved one stopped.
 */
#ifndef CHECKPOINT_H
#define CHECKPOINT_H

#include <stdint.h>

#include "model.h"
#include "params.h"

struct checkpoint_state {
	uint32_t epochs_done;
	uint64_t steps_done;
	uint64_t seed;
};

/* state (params_create_state) may be NULL or empty (plain SGD). */
int checkpoint_save(const char *path, const struct model *m, const struct params *p,
		    const struct params *state, const struct checkpoint_state *st,
		    struct train_err *err);
/*
 * Fail now, naming path, when a checkpoint could not be written there
 * (before a run spends an epoch on it).
 */
int checkpoint_check_writable(const char *path, struct train_err *err);
/* Fill p (and state, if not NULL) from path; the names and shapes
 * must be the model's. */
int checkpoint_load(const char *path, const struct model *m, struct params *p,
		    struct params *state, struct checkpoint_state *st,
		    struct train_err *err);

#endif
