/*
 * The model as libhlrt graphs (model_graph.h): the layers as nodes on
 * the batch gathered on the device, the loss and the correct count, and
 * for training libhlrt's autodiff and optimizer, compiled to recipes the
 * device backend binds and launches.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model_graph.h"

/* libhlrt prints the placement of every op it compiles (HLRT_LOG_DEVICE_PLACEMENT). */
static bool mg_placement_logged(void)
{
	const char *v = getenv("HLRT_LOG_DEVICE_PLACEMENT");

	return v && (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
		     !strcasecmp(v, "on"));
}

int dev_fail(hlrt_status st, const char *what, struct train_err *err)
{
	if (st == HLRT_SUCCESS)
		return 0;
	if (st == HLRT_OUT_OF_DEVICE_MEMORY)
		return train_err_set(err, "%s: out of device memory (HBM): %s", what,
				     hlrt_last_error());
	return train_err_set(err, "%s: %s (%s)", what, hlrt_last_error(),
			     hlrt_status_name(st));
}

struct mg_graph {
	hlrt_graph *g;
	hlrt_status st;
	char what[96];		/* the failing call, for the message */
};

static hlrt_tensor *mg_tensor(struct mg_graph *gb, const char *name, hlrt_dtype dt,
			       hlrt_tensor_role role, uint32_t ndims, const uint64_t *dims)
{
	struct hlrt_tensor_desc desc = { .name = name, .dtype = dt, .ndims = ndims,
					 .role = role };
	hlrt_tensor *t = NULL;

	if (gb->st)
		return NULL;
	memcpy(desc.dims, dims, ndims * sizeof(dims[0]));
	gb->st = hlrt_tensor_create(gb->g, &desc, &t);
	if (gb->st)
		snprintf(gb->what, sizeof(gb->what), "tensor %s", name ? name : "?");
	return t;
}

/* A node with one output; OUT may be a tensor made by the caller or NULL. */
static hlrt_tensor *mg_node(struct mg_graph *gb, const char *guid, const char *name,
			     hlrt_tensor *const *in, uint32_t n_in, hlrt_tensor *out,
			     const void *params, size_t params_size)
{
	hlrt_node *node = NULL;

	if (gb->st)
		return NULL;
	gb->st = hlrt_node_create(gb->g, guid, in, n_in, &out, 1, params, params_size,
				  name, &node);
	if (gb->st) {
		snprintf(gb->what, sizeof(gb->what), "node %s (%s)", name, guid);
		return NULL;
	}
	return hlrt_node_output(node, 0);
}

static hlrt_tensor *mg_tensor_of(struct mg_graph *gb, const struct params_tensor *p,
				  hlrt_tensor_role role)
{
	uint64_t dims[PARAMS_MAX_DIMS];

	for (uint32_t i = 0; i < p->ndims; i++)
		dims[i] = p->dims[i];
	return mg_tensor(gb, p->name, HLRT_FP32, role, p->ndims, dims);
}

static hlrt_tensor *mg_param(struct mg_graph *gb, const struct params_tensor *p)
{
	return mg_tensor_of(gb, p, HLRT_TENSOR_PARAMETER);
}

/* A constant [C] of VALUE (BatchNormalization without gamma or beta). */
static hlrt_tensor *mg_fill(struct mg_graph *gb, const char *name, uint32_t c, float value)
{
	struct hlrt_tensor_desc d = { .name = name, .dtype = HLRT_FP32, .ndims = 1,
				      .dims = { c }, .role = HLRT_TENSOR_CONSTANT };
	float *v = malloc(sizeof(float) * c);
	hlrt_tensor *t = NULL;

	if (gb->st)
		goto out;
	if (!v) {
		gb->st = HLRT_OUT_OF_HOST_MEMORY;
		snprintf(gb->what, sizeof(gb->what), "%s", name);
		goto out;
	}
	for (uint32_t i = 0; i < c; i++)
		v[i] = value;
	d.data = v;
	gb->st = hlrt_tensor_create(gb->g, &d, &t);
	if (gb->st)
		snprintf(gb->what, sizeof(gb->what), "%s", name);
out:
	free(v);
	return t;
}

/*
 * BatchNormalization (batchnorm_fwd_f32) on x[..., C]: training uses the
 * batch's statistics and updates the moving ones (INPUT tensors, not
 * trained, updated in place); evaluation uses the moving ones.
 */
static hlrt_tensor *mg_batchnorm(struct mg_graph *gb, const struct model_layer *l, uint32_t i,
				 struct params *p, bool train, hlrt_tensor *x)
{
	struct hlrt_batchnorm_params bp = { .momentum = l->momentum, .epsilon = l->epsilon,
					    .training = train };
	struct params_tensor *pg = params_find_named(p, i, "gamma");
	struct params_tensor *pb = params_find_named(p, i, "beta");
	char name[MODEL_NAME_LEN + 32];
	hlrt_tensor *in[5], *out[5] = { NULL };
	hlrt_node *node = NULL;

	snprintf(name, sizeof(name), "model/%s/gamma/ones", l->name);
	in[1] = pg ? mg_param(gb, pg) : mg_fill(gb, name, l->in.c, 1.0f);
	snprintf(name, sizeof(name), "model/%s/beta/zeros", l->name);
	in[2] = pb ? mg_param(gb, pb) : mg_fill(gb, name, l->in.c, 0.0f);
	in[3] = out[3] = mg_tensor_of(gb, params_find_named(p, i, "moving_mean"),
				      HLRT_TENSOR_INPUT);
	in[4] = out[4] = mg_tensor_of(gb, params_find_named(p, i, "moving_variance"),
				      HLRT_TENSOR_INPUT);
	in[0] = x;
	if (gb->st)
		return NULL;
	snprintf(name, sizeof(name), "model/%s/FusedBatchNormV3", l->name);
	gb->st = hlrt_node_create(gb->g, "batchnorm_fwd_f32", in, 5, out, train ? 5 : 0, &bp,
				  sizeof(bp), name, &node);
	if (gb->st) {
		snprintf(gb->what, sizeof(gb->what), "node %.60s (batchnorm_fwd_f32)", name);
		return NULL;
	}
	return hlrt_node_output(node, 0);
}

/* Layer L's "same" padding of x as a pad2d_f32 node of VALUE. */
static hlrt_tensor *mg_pad(struct mg_graph *gb, const struct model_layer *l, hlrt_tensor *x,
			   float value)
{
	struct hlrt_pad2d_params pp = { .top = (int32_t)l->pad[0], .bottom = (int32_t)l->pad_end[0],
					 .left = (int32_t)l->pad[1], .right = (int32_t)l->pad_end[1],
					 .value = value };
	char name[MODEL_NAME_LEN + 32];

	snprintf(name, sizeof(name), "model/%s/Pad", l->name);
	return mg_node(gb, "pad2d_f32", name, &x, 1, NULL, &pp, sizeof(pp));
}

/* Dropout in training (dropout_f32, the mask drawn from STEP); evaluation: none. */
static hlrt_tensor *mg_dropout(struct mg_graph *gb, const struct model *m, uint32_t i,
			       hlrt_tensor *step, hlrt_tensor *x)
{
	struct hlrt_dropout_params dp = { .rate = m->layers[i].rate,
					  .seed = model_dropout_seed(m, i), .training = 1 };
	char name[MODEL_NAME_LEN + 32];
	hlrt_tensor *in[2] = { x, step };

	snprintf(name, sizeof(name), "model/%s/Dropout", m->layers[i].name);
	return mg_node(gb, "dropout_f32", name, in, 2, NULL, &dp, sizeof(dp));
}

/* A number of a Lambda expression: a one-element constant of its operand's type. */
static hlrt_tensor *mg_lambda_const(struct mg_graph *gb, const struct lambda_node *n)
{
	int64_t i64 = (int64_t)n->value;
	int32_t i32 = (int32_t)n->value;
	struct hlrt_tensor_desc d = { .ndims = 1, .dims = { 1 }, .role = HLRT_TENSOR_CONSTANT };
	hlrt_tensor *t = NULL;

	if (gb->st)
		return NULL;
	if (n->type == LAMBDA_INDEX) {
		d.dtype = n->i64 ? HLRT_INT64 : HLRT_INT32;
		d.data = n->i64 ? (const void *)&i64 : (const void *)&i32;
	} else {
		d.dtype = HLRT_FP32;
		d.data = &n->value;
	}
	gb->st = hlrt_tensor_create(gb->g, &d, &t);
	if (gb->st)
		snprintf(gb->what, sizeof(gb->what), "a Lambda constant");
	return t;
}

/*
 * A Lambda layer's expression (lambda.h) on x[batch, units] as libhlrt
 * ops, named as TensorFlow names them (model/lambda/ArgMax, .../Equal):
 * argmax with INT64 indices runs on the device, an INT64 comparison on
 * the CPU, the rest on the TPC; autodiff differentiates through it.
 */
static hlrt_tensor *mg_lambda(struct mg_graph *gb, const struct model_layer *l, hlrt_tensor *x)
{
	static const char *const cls[] = {
		[LAMBDA_ARGMAX] = "ArgMax", [LAMBDA_EQUAL] = "Equal",
		[LAMBDA_EXPAND] = "ExpandDims", [LAMBDA_WHERE] = "SelectV2",
		[LAMBDA_SQUARE] = "Square", [LAMBDA_ADD] = "AddV2", [LAMBDA_SUB] = "Sub",
		[LAMBDA_MUL] = "Mul",
	};
	const struct lambda_expr *e = &l->expr;
	hlrt_tensor *t[LAMBDA_MAX_NODES] = { 0 };
	uint32_t seen[LAMBDA_MUL + 1] = { 0 };
	struct hlrt_tensor_desc xd;
	char name[MODEL_NAME_LEN + 48];

	if (gb->st)
		return NULL;
	hlrt_tensor_get_desc(x, &xd);
	for (uint32_t i = 0; i < e->n && !gb->st; i++) {
		const struct lambda_node *n = &e->node[i];
		struct hlrt_argmax_params ap = { .axis = -1 };
		struct hlrt_reshape_params col = { .ndims = 2, .dims = { xd.dims[0], 1 } };
		hlrt_tensor *in[3] = { 0 };
		const char *guid = NULL;
		const void *params = NULL;
		size_t psize = 0;
		uint32_t n_in = 0;

		if (n->op == LAMBDA_X) {
			t[i] = x;
			continue;
		}
		if (n->op == LAMBDA_CONST) {
			t[i] = mg_lambda_const(gb, n);
			continue;
		}
		while (n_in < 3 && n->arg[n_in] >= 0) {
			in[n_in] = t[n->arg[n_in]];
			n_in++;
		}
		switch (n->op) {
		case LAMBDA_ARGMAX:
			guid = n->i64 ? "argmax_i64" : "argmax_i32";
			params = &ap;
			psize = sizeof(ap);
			break;
		case LAMBDA_EQUAL:
			guid = e->node[n->arg[0]].type == LAMBDA_FLOAT ? "equal_f32" :
			       n->i64 ? "equal_i64" : "equal_i32";
			break;
		case LAMBDA_EXPAND:
			guid = "reshape";
			params = &col;
			psize = sizeof(col);
			break;
		case LAMBDA_WHERE:
			guid = "where_f32";
			break;
		case LAMBDA_SQUARE:
			guid = "square_f32";
			break;
		case LAMBDA_ADD:
			guid = "add_f32";
			break;
		case LAMBDA_SUB:
			guid = "sub_f32";
			break;
		default:
			guid = "mul_f32";
			break;
		}
		if (seen[n->op]++)
			snprintf(name, sizeof(name), "model/%s/%s_%u", l->name, cls[n->op],
				 seen[n->op] - 1);
		else
			snprintf(name, sizeof(name), "model/%s/%s", l->name, cls[n->op]);
		t[i] = mg_node(gb, guid, name, in, n_in, NULL, params, psize);
	}
	return gb->st ? NULL : t[e->n - 1];
}

/*
 * The model's layers on x[batch, h, w, c]; returns the logits. TRAIN:
 * Dropout drops (its masks drawn from STEP) and BatchNormalization uses
 * the batch's statistics.
 */
static hlrt_tensor *mg_forward(struct mg_graph *gb, const struct model *m,
				struct params *p, bool train, hlrt_tensor *step, hlrt_tensor *x)
{
	char name[MODEL_NAME_LEN + 32];

	for (uint32_t i = 0; i < m->nlayers && !gb->st; i++) {
		const struct model_layer *l = &m->layers[i];
		bool weights = l->kind == MODEL_DENSE || l->kind == MODEL_CONV2D;
		struct params_tensor *pw = weights ? params_find(p, i, 0) : NULL;
		struct params_tensor *pb = weights ? params_find(p, i, 1) : NULL;
		hlrt_tensor *w = pw ? mg_param(gb, pw) : NULL;
		hlrt_tensor *b = pb ? mg_param(gb, pb) : NULL;

		switch (l->kind) {
		case MODEL_FLATTEN:
			snprintf(name, sizeof(name), "model/%s/Reshape", l->name);
			x = mg_node(gb, "flatten", name, &x, 1, NULL, NULL, 0);
			break;
		case MODEL_DENSE: {
			hlrt_tensor *in[2] = { x, w };

			snprintf(name, sizeof(name), "model/%s/MatMul", l->name);
			x = mg_node(gb, "gemm_f32", name, in, 2, NULL, NULL, 0);
			if (!b)		/* "use_bias": false */
				break;
			in[0] = x;
			in[1] = b;
			snprintf(name, sizeof(name), "model/%s/BiasAdd", l->name);
			x = mg_node(gb, "bias_add_f32", name, in, 2, NULL, NULL, 0);
			break;
		}
		case MODEL_RELU:
			snprintf(name, sizeof(name), "model/%s/Relu", l->name);
			x = mg_node(gb, "relu_fwd_f32", name, &x, 1, NULL, NULL, 0);
			break;
		case MODEL_CONV2D: {
			bool even = l->pad[0] == l->pad_end[0] && l->pad[1] == l->pad_end[1];
			struct hlrt_conv_params cp = {
				.kernel_h = l->kernel[0], .kernel_w = l->kernel[1],
				.stride_h = l->stride[0], .stride_w = l->stride[1],
				.pad_h = even ? l->pad[0] : 0, .pad_w = even ? l->pad[1] : 0,
			};
			hlrt_tensor *in[3] = { x, w, b };

			/* "same" with an odd total: the padding first, then a "valid" convolution */
			if (!even)
				in[0] = x = mg_pad(gb, l, x, 0.0f);
			snprintf(name, sizeof(name), "model/%s/Conv2D", l->name);
			x = mg_node(gb, "conv2d_fwd_f32", name, in, b ? 3 : 2, NULL, &cp,
				    sizeof(cp));
			break;
		}
		case MODEL_MAXPOOL2D: {
			struct hlrt_pool_params pp = {
				.kernel_h = l->kernel[0], .kernel_w = l->kernel[1],
				.stride_h = l->stride[0], .stride_w = l->stride[1],
			};

			/* "same": the padding takes no part in any maximum */
			if (l->pad[0] || l->pad[1] || l->pad_end[0] || l->pad_end[1])
				x = mg_pad(gb, l, x, -INFINITY);
			snprintf(name, sizeof(name), "model/%s/MaxPool", l->name);
			x = mg_node(gb, "maxpool2d_fwd_f32", name, &x, 1, NULL, &pp, sizeof(pp));
			break;
		}
		case MODEL_LAMBDA:
			x = mg_lambda(gb, l, x);
			break;
		case MODEL_TANH:
			snprintf(name, sizeof(name), "model/%s/Tanh", l->name);
			x = mg_node(gb, "tanh_fwd_f32", name, &x, 1, NULL, NULL, 0);
			break;
		case MODEL_SIGMOID:
			snprintf(name, sizeof(name), "model/%s/Sigmoid", l->name);
			x = mg_node(gb, "sigmoid_fwd_f32", name, &x, 1, NULL, NULL, 0);
			break;
		case MODEL_SOFTMAX:
			snprintf(name, sizeof(name), "model/%s/Softmax", l->name);
			x = mg_node(gb, "softmax_fwd_f32", name, &x, 1, NULL, NULL, 0);
			break;
		case MODEL_DROPOUT:
			if (train)
				x = mg_dropout(gb, m, i, step, x);
			break;
		case MODEL_BATCHNORM:
			x = mg_batchnorm(gb, l, i, p, train, x);
			break;
		}
	}
	return x;
}

/* The optimizer of the model, as hlrt_graph_train() takes it. */
static struct hlrt_optimizer_desc mg_optimizer(const struct model_training *t)
{
	struct hlrt_optimizer_desc opt = { .kind = HLRT_OPT_SGD };

	if (t->optimizer == MODEL_OPT_LAMB) {
		opt.kind = HLRT_OPT_LAMB;
		opt.u.lamb.beta1 = t->beta1;
		opt.u.lamb.beta2 = t->beta2;
		opt.u.lamb.eps = t->epsilon;
		opt.u.lamb.weight_decay = t->weight_decay;
	} else if (t->optimizer == MODEL_OPT_ADAM || t->optimizer == MODEL_OPT_ADAMW) {
		opt.kind = HLRT_OPT_ADAMW;
		opt.u.adamw.beta1 = t->beta1;
		opt.u.adamw.beta2 = t->beta2;
		opt.u.adamw.eps = t->epsilon;
		opt.u.adamw.weight_decay = t->weight_decay;
	} else if (t->optimizer == MODEL_OPT_ADAGRAD) {
		opt.kind = HLRT_OPT_ADAGRAD;
		opt.u.adagrad.eps = t->epsilon;
		opt.u.adagrad.weight_decay = t->weight_decay;
	} else {
		opt.u.sgd.momentum = t->momentum;
		opt.u.sgd.weight_decay = t->weight_decay;
		opt.u.sgd.nesterov = t->nesterov;
	}
	return opt;
}

void model_graph_grad_name(char *name, size_t size, const struct params_tensor *p)
{
	snprintf(name, size, "%.*s/grad", HLRT_NAME_MAX - (int)sizeof("/grad"), p->name);
}

static hlrt_tensor *mg_grad(struct mg_graph *gb, const struct params_tensor *p,
			     hlrt_tensor_role role)
{
	uint64_t dims[PARAMS_MAX_DIMS];
	char name[HLRT_NAME_MAX];

	for (uint32_t i = 0; i < p->ndims; i++)
		dims[i] = p->dims[i];
	model_graph_grad_name(name, sizeof(name), p);
	return mg_tensor(gb, name, HLRT_FP32, role, p->ndims, dims);
}

/* Where libhlrt keeps the optimizer's state of P's parameters in GB's graph. */
static void mg_note_state(const struct model *m, struct mg_graph *gb, struct params *p,
			  struct model_graph_state *state)
{
	struct hlrt_optimizer_desc opt = mg_optimizer(&m->train);
	uint32_t slots = hlrt_optimizer_state_count(&opt);
	hlrt_tensor *w, *t;

	state->count = 0;
	for (uint32_t k = 0; k < slots && !gb->st; k++)
		for (uint32_t i = 0; i < p->trainable && !gb->st; i++) {
			snprintf(gb->what, sizeof(gb->what), "optimizer state of %s", p->t[i].name);
			gb->st = hlrt_graph_find_tensor(gb->g, p->t[i].name, &w);
			if (!gb->st)
				gb->st = hlrt_graph_optimizer_state(gb->g, w, k, &t);
			if (!gb->st)
				snprintf(state->name[state->count++], HLRT_NAME_MAX, "%s",
					 hlrt_tensor_name(t));
		}
	state->step[0] = '\0';
	if (!gb->st && model_optimizer_counts_updates(&m->train)) {
		snprintf(gb->what, sizeof(gb->what), "the optimizer's update count");
		gb->st = hlrt_graph_optimizer_state(gb->g, NULL, 0, &t);
		if (!gb->st)
			snprintf(state->step, sizeof(state->step), "%s", hlrt_tensor_name(t));
	}
}

/*
 * Data parallel: autodiff of the slice's mean loss; the gradients, times
 * the slice's share of the batch, into the OUTPUT tensors "<param>/grad".
 */
static void mg_gradients(struct mg_graph *gb, struct params *p, hlrt_tensor *loss,
			  float share)
{
	struct hlrt_scale_params sp = { .alpha = share };
	hlrt_tensor *w[PARAMS_MAX], *g[PARAMS_MAX];
	char name[HLRT_NAME_MAX];

	for (uint32_t i = 0; i < p->trainable && !gb->st; i++) {
		gb->st = hlrt_graph_find_tensor(gb->g, p->t[i].name, &w[i]);
		snprintf(gb->what, sizeof(gb->what), "parameter %s", p->t[i].name);
	}
	if (!gb->st) {
		gb->st = hlrt_graph_gradients(gb->g, loss, w, p->trainable, g);
		snprintf(gb->what, sizeof(gb->what), "autodiff");
	}
	for (uint32_t i = 0; i < p->trainable && !gb->st; i++) {
		hlrt_tensor *out = mg_grad(gb, &p->t[i], HLRT_TENSOR_OUTPUT);

		snprintf(name, sizeof(name), "%.48s/grad/Share", p->t[i].name);
		mg_node(gb, "scale_f32", name, &g[i], 1, out, &sp, sizeof(sp));
	}
}

/*
 * Data parallel: the optimizer graph, libhlrt's update (the one
 * hlrt_graph_train() adds) on the INPUT gradients "<param>/grad".
 */
int model_graph_optimizer(const struct model *m, bool eager, struct params *p,
			  hlrt_recipe **recipe, struct model_graph_state *state,
			  struct train_err *err)
{
	struct hlrt_optimizer_desc opt = mg_optimizer(&m->train);
	struct hlrt_compile_options copts = {
		.eager = eager ? HLRT_EAGER_ON : HLRT_EAGER_FROM_ENV,
	};
	struct mg_graph gb = { 0 };
	hlrt_tensor *w[PARAMS_MAX], *g[PARAMS_MAX], *lr;
	uint64_t one = 1;

	gb.st = hlrt_graph_create(&gb.g);
	if (gb.st)
		return dev_fail(gb.st, "creating a graph", err);
	lr = mg_tensor(&gb, "lr", HLRT_FP32, HLRT_TENSOR_INPUT, 1, &one);
	for (uint32_t i = 0; i < p->trainable && !gb.st; i++) {
		g[i] = mg_grad(&gb, &p->t[i], HLRT_TENSOR_INPUT);
		w[i] = mg_param(&gb, &p->t[i]);
	}
	if (!gb.st) {
		gb.st = hlrt_graph_apply_optimizer(gb.g, &opt, lr, w, g, p->trainable);
		snprintf(gb.what, sizeof(gb.what), "the optimizer");
	}
	mg_note_state(m, &gb, p, state);
	if (!gb.st) {
		if (mg_placement_logged())
			fprintf(stderr, "placement of the optimizer:\n");
		gb.st = hlrt_graph_compile(gb.g, &copts, recipe);
		snprintf(gb.what, sizeof(gb.what), "compiling the optimizer");
	}
	hlrt_graph_destroy(gb.g);
	return dev_fail(gb.st, gb.what, err);
}

/*
 * mse: alpha * the sum over the batch of (out - onehot(labels))^2, the
 * one-hot rows from equal_i32 of the labels against a constant 0..C-1 row.
 * Into OUT when not NULL.
 */
static hlrt_tensor *mg_mse(struct mg_graph *gb, hlrt_tensor *logits, hlrt_tensor *labels,
			   uint64_t batch, float alpha, hlrt_tensor *out)
{
	int32_t iota[DATASET_CLASSES];
	struct hlrt_tensor_desc d = { .name = "model/loss/Classes", .dtype = HLRT_INT32,
				      .ndims = 2, .dims = { 1, DATASET_CLASSES },
				      .role = HLRT_TENSOR_CONSTANT, .data = iota };
	struct hlrt_reshape_params rows = { .ndims = 2, .dims = { batch, DATASET_CLASSES } };
	struct hlrt_reshape_params col = { .ndims = 2, .dims = { batch, 1 } };
	struct hlrt_reshape_params all = { .ndims = 2, .dims = { batch * DATASET_CLASSES, 1 } };
	struct hlrt_reduce_params sum0 = { .axis = 0 };
	struct hlrt_scale_params sp = { .alpha = alpha };
	hlrt_tensor *t[2] = { NULL, NULL }, *x;

	for (int32_t j = 0; j < DATASET_CLASSES; j++)
		iota[j] = j;
	if (gb->st)
		return NULL;
	gb->st = hlrt_tensor_create(gb->g, &d, &t[1]);
	if (gb->st) {
		snprintf(gb->what, sizeof(gb->what), "the loss's class constant");
		return NULL;
	}
	t[0] = mg_node(gb, "reshape", "model/loss/Labels", &labels, 1, NULL, &col, sizeof(col));
	t[1] = mg_node(gb, "equal_i32", "model/loss/OneHot", t, 2, NULL, NULL, 0);
	t[1] = mg_node(gb, "cast_i32_to_f32", "model/loss/OneHot/Cast", &t[1], 1, NULL, NULL, 0);
	t[0] = mg_node(gb, "reshape", "model/loss/Outputs", &logits, 1, NULL, &rows,
		       sizeof(rows));
	x = mg_node(gb, "sub_f32", "model/loss/Sub", t, 2, NULL, NULL, 0);
	x = mg_node(gb, "square_f32", "model/loss/Square", &x, 1, NULL, NULL, 0);
	x = mg_node(gb, "reshape", "model/loss/Flat", &x, 1, NULL, &all, sizeof(all));
	x = mg_node(gb, "reduce_sum_f32", "model/loss/Sum", &x, 1, NULL, &sum0, sizeof(sum0));
	return mg_node(gb, "scale_f32", "model/loss/Mean", &x, 1, out, &sp, sizeof(sp));
}

/*
 * The step graph: gather the batch at "offset" of "order" from the images
 * and labels of a split, forward, loss and correct count as outputs; for
 * training, autodiff and SGD on top.
 */
int model_graph_step(const struct model_graph_setup *d, struct params *p, uint32_t batch,
		     bool train, float share, hlrt_recipe **recipe,
		     struct model_graph_state *state, struct train_err *err)
{
	const struct dataset_split *s = train ? &d->data->train : &d->data->test;
	const struct model_shape *in = &d->m->input;
	const char *pfx = train ? "train" : "test";
	struct mg_graph gb = { 0 };
	uint64_t dims[4] = { s->count, in->h, in->w, in->c }, one = 1, n = s->count;
	uint64_t bdims[4] = { batch, in->h, in->w, in->c };
	struct hlrt_sce_params sce = { train ? HLRT_SCE_MEAN : HLRT_SCE_SUM };
	bool mse = d->m->train.loss == MODEL_LOSS_MSE;
	struct hlrt_reduce_params sum0 = { .axis = 0 };
	struct hlrt_reshape_params as_col = { .ndims = 2, .dims = { batch, 1 } };
	/* gather_rows takes its batch size from dims[0] */
	struct hlrt_reshape_params rows = { .ndims = 1, .dims = { batch } };
	/* eager: the same recipe, each node its own submission (bit-identical) */
	struct hlrt_compile_options copts = {
		.bf16 = d->bf16, .eager = d->eager ? HLRT_EAGER_ON : HLRT_EAGER_FROM_ENV,
	};
	char name[32];
	hlrt_tensor *images, *labels, *order, *offset, *x, *y, *logits, *t2[3];
	hlrt_tensor *loss, *correct, *eq, *mean = NULL, *step = NULL;

	gb.st = hlrt_graph_create(&gb.g);
	if (gb.st)
		return dev_fail(gb.st, "creating a graph", err);
	snprintf(name, sizeof(name), "%s/images", pfx);
	images = mg_tensor(&gb, name, HLRT_FP32, HLRT_TENSOR_INPUT, 4, dims);
	snprintf(name, sizeof(name), "%s/labels", pfx);
	labels = mg_tensor(&gb, name, HLRT_INT32, HLRT_TENSOR_INPUT, 1, &n);
	snprintf(name, sizeof(name), "%s/order", pfx);
	order = mg_tensor(&gb, name, HLRT_INT32, HLRT_TENSOR_INPUT, 1, &n);
	offset = mg_tensor(&gb, "offset", HLRT_INT32, HLRT_TENSOR_INPUT, 1, &one);
	x = mg_tensor(&gb, NULL, HLRT_FP32, HLRT_TENSOR_TEMPORARY, 4, bdims);
	y = mg_tensor(&gb, NULL, HLRT_INT32, HLRT_TENSOR_TEMPORARY, 1, &bdims[0]);
	t2[0] = images, t2[1] = order, t2[2] = offset;
	x = mg_node(&gb, "gather_rows_f32", "model/input/Gather", t2, 3, x, &rows,
		     sizeof(rows));
	t2[0] = labels;
	y = mg_node(&gb, "gather_rows_i32", "model/labels/Gather", t2, 3, y, &rows,
		     sizeof(rows));
	/* Dropout's masks: a new draw each training step (the step count, uploaded) */
	if (train && model_has_layer(d->m, MODEL_DROPOUT))
		step = mg_tensor(&gb, MODEL_GRAPH_STEP, HLRT_INT32, HLRT_TENSOR_INPUT, 1, &one);
	logits = mg_forward(&gb, d->m, p, train, step, x);

	loss = mg_tensor(&gb, "loss", HLRT_FP32, HLRT_TENSOR_OUTPUT, 1, &one);
	t2[0] = logits, t2[1] = y;
	if (train && d->nranks > 1) {
		/*
		 * The slice's mean (autodiff's seed) times the slice's share of
		 * the batch: the ranks' sum is the batch's mean.
		 */
		struct hlrt_scale_params sp = { .alpha = share };

		if (mse)
			mean = mg_mse(&gb, logits, y, batch, 1.0f / (float)(batch * DATASET_CLASSES),
				      NULL);
		else
			mean = mg_node(&gb, "softmax_cross_entropy_fwd_f32",
					"model/loss/SoftmaxCrossEntropy", t2, 2, NULL, &sce,
					sizeof(sce));
		loss = mg_node(&gb, "scale_f32", "model/loss/Share", &mean, 1, loss, &sp,
				sizeof(sp));
	} else if (mse) {
		/* training: the batch's mean; evaluation: the sum of the samples' means */
		loss = mg_mse(&gb, logits, y, batch,
			      1.0f / (float)((train ? batch : 1) * DATASET_CLASSES), loss);
	} else {
		loss = mg_node(&gb, "softmax_cross_entropy_fwd_f32",
				"model/loss/SoftmaxCrossEntropy", t2, 2, loss, &sce, sizeof(sce));
	}
	/* accuracy: argmax == label, counted on the device */
	t2[0] = mg_node(&gb, "argmax_i32", "model/ArgMax", &logits, 1, NULL, NULL, 0);
	t2[1] = y;
	eq = mg_node(&gb, "equal_i32", "model/Equal", t2, 2, NULL, NULL, 0);
	eq = mg_node(&gb, "reshape", "model/Equal/Reshape", &eq, 1, NULL, &as_col,
		      sizeof(as_col));
	if (train && d->nranks > 1) {
		/* the count travels with the gradients, as FP32 */
		correct = mg_node(&gb, "reduce_sum_i32", "model/Correct/Sum", &eq, 1, NULL,
				   &sum0, sizeof(sum0));
		t2[0] = mg_tensor(&gb, MODEL_GRAPH_DP_CORRECT, HLRT_FP32, HLRT_TENSOR_OUTPUT, 1,
				  &one);
		mg_node(&gb, "cast_i32_to_f32", "model/Correct/Cast", &correct, 1, t2[0], NULL, 0);
	} else {
		correct = mg_tensor(&gb, "correct", HLRT_INT32, HLRT_TENSOR_OUTPUT, 1, &one);
		mg_node(&gb, "reduce_sum_i32", "model/Correct/Sum", &eq, 1, correct, &sum0,
			sizeof(sum0));
	}
	if (!gb.st && train && d->nranks > 1) {
		mg_gradients(&gb, p, mean, share);
	} else if (!gb.st && train) {
		const struct model_training *t = &d->m->train;
		struct hlrt_optimizer_desc opt = mg_optimizer(t);
		hlrt_tensor *lr = mg_tensor(&gb, "lr", HLRT_FP32, HLRT_TENSOR_INPUT, 1, &one);

		if (!gb.st) {
			gb.st = hlrt_graph_train(gb.g, loss, &opt, lr);
			snprintf(gb.what, sizeof(gb.what), "autodiff and %s",
				 model_optimizer_name(t->optimizer));
		}
		mg_note_state(d->m, &gb, p, state);
	}
	if (!gb.st) {
		/* each recipe is compiled once: its placement lines under a header naming it */
		if (mg_placement_logged())
			fprintf(stderr, "placement of the %s step (batch %u):\n", pfx, batch);
		gb.st = hlrt_graph_compile(gb.g, &copts, recipe);
		snprintf(gb.what, sizeof(gb.what), "compiling the %s step (batch %u)",
			 pfx, batch);
	}
	hlrt_graph_destroy(gb.g);
	return dev_fail(gb.st, gb.what, err);
}
