/*
 * The parameters of a model: for each Dense and Conv2D layer a kernel and
 * a bias, named "<layer>/kernel" and "<layer>/bias" as Keras names them;
 * for BatchNormalization "<layer>/gamma" and "<layer>/beta" (trained) and
 * "<layer>/moving_mean" and "<layer>/moving_variance" (not trained, after
 * all the trained ones); all in one FP32 allocation, and their
 * initialisation from the model's seed (kernels Glorot-uniform).
 */
#ifndef PARAMS_H
#define PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define PARAMS_MAX (2 * MODEL_MAX_LAYERS)
#define PARAMS_MAX_DIMS 4
/* Optimizer state: at most two tensors per parameter (LAMB's m and v). */
#define PARAMS_STATE_MAX (2 * PARAMS_MAX)

struct params_tensor {
	char name[MODEL_NAME_LEN + 20];	/* "<layer>/kernel", "<layer>/kernel/m" */
	uint32_t layer;			/* index into model.layers */
	uint32_t ndims;
	uint32_t dims[PARAMS_MAX_DIMS];
	size_t count;
	float *data;			/* inside params.storage */
};

struct params {
	uint32_t count;
	/*
	 * The first `trainable` tensors (trainable_total floats) are trained;
	 * the rest (BatchNormalization's moving statistics) are state the
	 * forward pass updates, saved with the weights as Keras does.
	 */
	uint32_t trainable;
	size_t trainable_total;
	struct params_tensor t[PARAMS_STATE_MAX];
	size_t total;			/* floats in storage */
	float *storage;
	uint64_t updates;		/* optimizer state: steps applied (LAMB's t) */
};

/* Names and shapes of the parameters of M (shapes inferred), no storage. */
int params_layout(const struct model *m, struct params *p, struct train_err *err);
/* The layout with storage, all zero. */
int params_create(const struct model *m, struct params *p, struct train_err *err);
/*
 * The optimizer's state of M's parameters, all zero, each tensor under
 * the name hlrt.h documents for it (checkpoints store these): SGD with
 * momentum "<param>/momentum"; LAMB "<param>/m" for every parameter,
 * then "<param>/v" (m of parameter i at storage[i's offset], v at
 * storage[total / 2 + i's offset]), in libhlrt's slot order. Plain SGD
 * has no state: count 0, no storage. The device backend finds each
 * tensor's device copy through hlrt_graph_optimizer_state, not by name.
 */
int params_create_state(const struct model *m, struct params *s, struct train_err *err);
/* Kernels Glorot-uniform from the seed's init stream, biases, betas and
 * moving means zero, gammas and moving variances one. */
void params_init_glorot(const struct model *m, struct params *p);
/* The parameter of layer LAYER: kernel (bias = 0) or bias (bias = 1). */
struct params_tensor *params_find(struct params *p, uint32_t layer, int bias);
/* The tensor of layer LAYER named "<layer>/WHAT" (BatchNormalization's), or NULL. */
struct params_tensor *params_find_named(struct params *p, uint32_t layer, const char *what);
void params_copy(struct params *dst, const struct params *src);
void params_free(struct params *p);

#endif
