/*
 * hl-train's model as libhlrt graphs, for the device backend
 * (device_backend.c binds and launches what these compile): the training
 * or evaluation step of one batch, and for data parallel the gradient
 * step and the optimizer step either side of the all-reduce.
 */
#ifndef MODEL_GRAPH_H
#define MODEL_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "hlrt.h"
#include "model.h"
#include "params.h"
#include "train_err.h"

/* The training step's INT32 input: the count of training steps run before it. */
#define MODEL_GRAPH_STEP "train/step"
/*
 * Data parallel: a training step's correct count as FP32, an output
 * beside the gradients so that one all-reduce sums both (exact: a count
 * below 2^24).
 */
#define MODEL_GRAPH_DP_CORRECT "dp/correct"

struct model_graph_setup {
	const struct model *m;
	const struct dataset *data;
	bool bf16;			/* GEMM and conv inputs in BF16 */
	bool eager;			/* one submission per node */
	uint32_t nranks;		/* > 1: training steps end at the gradients */
};

/*
 * Where libhlrt keeps the optimizer's state (hlrt_graph_optimizer_state):
 * the tensor of each of params_create_state's tensors, in its order, and
 * the update count ("" when the optimizer keeps none).
 */
struct model_graph_state {
	char name[PARAMS_STATE_MAX][HLRT_NAME_MAX];
	uint32_t count;
	char step[HLRT_NAME_MAX];
};

/*
 * The step of BATCH samples: gather them at "offset" of "<split>/order"
 * from "<split>/images" and "<split>/labels", forward, the OUTPUT "loss"
 * and "correct"; training adds autodiff and the optimizer (noting its
 * state in STATE), or with nranks > 1 the gradients times SHARE into the
 * OUTPUT tensors model_graph_grad_name() names.
 */
int model_graph_step(const struct model_graph_setup *s, struct params *p, uint32_t batch,
		     bool train, float share, hlrt_recipe **recipe,
		     struct model_graph_state *state, struct train_err *err);
/* Data parallel: the optimizer of M on the INPUT gradients; its state in STATE. */
int model_graph_optimizer(const struct model *m, bool eager, struct params *p,
			  hlrt_recipe **recipe, struct model_graph_state *state,
			  struct train_err *err);
/* Data parallel: the gradient of parameter P, as the ranks sum it (HLRT_NAME_MAX). */
void model_graph_grad_name(char *name, size_t size, const struct params_tensor *p);
/* A failed libhlrt call (ST) as ERR, -1; 0 on success. The executor's too. */
int dev_fail(hlrt_status st, const char *what, struct train_err *err);

#endif
