/*
 * A trainable model as the trainers see it: a Keras-like stack of layers
 * over one image input, with shapes inferred, and the training recipe
 * (loss, optimizer, batch size, epochs, seed). Layouts are Keras's (and
 * libhlrt's): activations per sample [height, width, channels], a Dense
 * kernel [in, out], a Conv2D kernel [kh, kw, channels, filters].
 */
#ifndef MODEL_H
#define MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "lambda.h"
#include "train_err.h"

#define MODEL_MAX_LAYERS 32
#define MODEL_NAME_LEN 48
/* training.steps_per_execution: libhlrt's HLRT_LAUNCH_REPEAT_MAX */
#define MODEL_MAX_STEPS_PER_EXECUTION 32

enum model_layer_kind {
	MODEL_FLATTEN,
	MODEL_DENSE,
	MODEL_RELU,
	MODEL_CONV2D,
	MODEL_MAXPOOL2D,
	MODEL_LAMBDA,			/* an elementwise expression of x (lambda.h) */
	MODEL_TANH,			/* Activation("tanh") */
	MODEL_SIGMOID,			/* Activation("sigmoid") */
	MODEL_SOFTMAX,			/* Softmax, Activation("softmax"): the last axis */
	MODEL_DROPOUT,			/* training: a kept share 1 - rate, scaled; eval: identity */
	MODEL_BATCHNORM,		/* BatchNormalization over the channels (the last axis) */
};

/* A per-sample activation shape h x w x c (a vector: h = w = 1, c = n). */
struct model_shape {
	uint32_t c, h, w;
};

struct model_layer {
	enum model_layer_kind kind;
	char name[MODEL_NAME_LEN];
	uint32_t units;			/* Dense */
	uint32_t filters;		/* Conv2D */
	uint32_t kernel[2];		/* Conv2D kernel, MaxPool2D pool size */
	uint32_t stride[2];		/* Conv2D, MaxPool2D */
	bool same;			/* Conv2D, MaxPool2D: "padding": "same" */
	uint32_t pad[2];		/* rows, columns before (0 for "valid") */
	uint32_t pad_end[2];		/* and after: "same" with an odd total puts one more here */
	bool no_bias;			/* Dense, Conv2D: "use_bias": false */
	float rate;			/* Dropout */
	uint32_t seed;			/* Dropout: its "seed", else from the model's */
	bool seed_given;
	float momentum, epsilon;	/* BatchNormalization (Keras: 0.99, 0.001) */
	bool center, scale;		/* BatchNormalization: beta, gamma trained */
	struct model_shape in, out;
	struct lambda_expr expr;	/* Lambda */
};

enum model_optimizer {
	MODEL_OPT_SGD,
	MODEL_OPT_LAMB,			/* FusedLamb: Adam moments, per-tensor trust ratio */
	MODEL_OPT_ADAM,			/* Keras's Adam: AdamW's rule, no weight decay by default */
	MODEL_OPT_ADAMW,		/* decoupled weight decay, bias-corrected moments */
	MODEL_OPT_ADAGRAD,		/* PyTorch's rule: the accumulator starts at 0 */
};

enum model_loss {
	MODEL_LOSS_SPARSE_CCE,		/* sparse_categorical_crossentropy */
	MODEL_LOSS_CCE,			/* categorical_crossentropy: one-hot rows of the labels */
	MODEL_LOSS_MSE,			/* mse: the outputs against the labels' one-hot rows */
};

struct model_training {
	enum model_loss loss;		/* the CCEs: softmax cross-entropy of the logits */
	bool softmax_folded;		/* from_logits false: the final Softmax went into the loss */
	enum model_optimizer optimizer;
	float learning_rate;
	float momentum;			/* SGD */
	float beta1, beta2, epsilon;	/* LAMB, Adam, AdamW (epsilon: Adagrad too) */
	float weight_decay;
	bool nesterov;
	uint32_t batch_size;
	uint32_t epochs;
	uint64_t seed;
	bool bf16;			/* mixed precision for GEMM/conv inputs */
	uint32_t steps_per_execution;	/* training steps per device submission, 1..32 */
};

struct model {
	char name[MODEL_NAME_LEN];
	struct model_shape input;
	uint32_t nlayers;
	struct model_layer layers[MODEL_MAX_LAYERS];
	struct model_training train;
};

/* Parse a model file (JSON); errors name the file and the line and
 * column, or the path of the offending value (layers[2].units). */
int model_load(const char *path, struct model *m, struct train_err *err);
/* The same from a string; SOURCE names it in messages. */
int model_parse(const char *text, const char *source, struct model *m,
		struct train_err *err);
/* Infer every layer's shapes from m->input; checks that the last layer
 * yields CLASSES logits. */
int model_infer_shapes(struct model *m, uint32_t classes, struct train_err *err);
uint32_t model_shape_size(const struct model_shape *s);
const char *model_layer_kind_name(enum model_layer_kind kind);
/* The layer kind of a Keras activation name ("relu", "tanh", "sigmoid", "softmax");
 * *none for "linear"; false for an unknown name. */
bool model_activation_kind(const char *name, enum model_layer_kind *kind, bool *none);
/* The seed of Dropout layer LAYER's masks: its own, else one from the model's seed. */
uint32_t model_dropout_seed(const struct model *m, uint32_t layer);
/* The model has a layer of KIND. */
bool model_has_layer(const struct model *m, enum model_layer_kind kind);
/* The optimizer as model files name it: "sgd", "lamb", "adam", "adamw", "adagrad". */
const char *model_optimizer_name(enum model_optimizer opt);
/* State tensors per parameter (libhlrt's names: "momentum", "m", "v", "accum"). */
uint32_t model_optimizer_slots(const struct model_training *t, const char *const **suffix);
/* The optimizer counts its updates (bias correction): LAMB, Adam, AdamW. */
bool model_optimizer_counts_updates(const struct model_training *t);

#endif
