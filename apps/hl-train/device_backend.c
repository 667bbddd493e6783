/*
 * The device backend of hl-train, on libhlrt. The training and test sets
 * are uploaded to HBM once; each epoch uploads its sample order; a step
 * is one launch of a compiled recipe that gathers its batch on the
 * device (gather_rows at an offset into the order), runs the forward
 * pass, the loss, autodiff's backward pass and the fused SGD update, and
 * copies the loss and the count of correct predictions back in the same
 * submission. Per step the host writes one 4-byte offset and patches
 * nothing that did not move: its work does not grow with the data.
 *
 * Data parallel (setup->nranks > 1), one process per rank: the step is
 * split in two recipes. The first runs the rank's slice of the batch and
 * autodiff, its gradients and loss scaled by the slice's share of the
 * batch, into "<param>/grad" buffers; those, the loss and the count are
 * summed over the ranks (hlrt_all_reduce, on the same stream); the
 * second recipe applies the optimizer to the summed gradients, which
 * are the whole batch's, so every rank keeps the same parameters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "hlrt.h"

#define DEV_MAX_BUFS (3 * PARAMS_MAX + 16)
#define DEV_EVAL_BATCH 1000
/* Steps in flight: the host queues the next ones while the device runs. */
#define DEV_DEPTH 8
#define DEV_MiB (1024.0 * 1024.0)

/* A device buffer named like the persistent tensor bound to it. */
struct dev_buf {
	char name[HLRT_NAME_MAX];
	uint64_t addr;
	uint64_t bytes;
	bool view;		/* a part of another buffer: not freed alone */
};

/* One compiled step: a batch size and the recipe for it. */
struct dev_step {
	uint32_t batch;
	hlrt_recipe *recipe;
	struct hlrt_tensor_binding bind[DEV_MAX_BUFS];
	uint32_t n_bind;
};

struct dev_ctx {
	const struct model *m;
	const struct dataset *data;
	bool bf16;
	bool eager;			/* --eager: one submission per node */
	hlrt_device *dev;
	hlrt_stream *stream;
	struct dev_buf buf[DEV_MAX_BUFS];
	uint32_t n_buf;
	/* train: full batches and the last partial one; eval: the same */
	struct dev_step train, train_tail, eval, eval_tail;
	uint64_t workspace, workspace_bytes;
	/*
	 * Pinned host memory, one slot per queued step: its offset (and
	 * learning rate) in, its loss and correct count out.
	 */
	struct dev_slot {
		int32_t offset;
		float lr;
		float loss;
		int32_t correct;
		uint32_t count;
	} *slot;
	uint32_t queued;	/* steps launched, not yet collected */
	bool lr_valid;		/* lr_dev is on the device */
	float lr_dev;
	int32_t *order;		/* pinned staging of an epoch's order */
	bool profiling;
	/* Data parallel: train/train_tail run this rank's slice of a batch. */
	hlrt_comm *comm;
	uint32_t rank, nranks;
	uint32_t batch, tail;	/* the whole batches train, train_tail serve */
	struct dev_step opt;	/* the optimizer on the summed gradients */
	struct dev_buf *sum;	/* every "<param>/grad" and the loss, summed at once */
	/*
	 * The tensors libhlrt made for the optimizer's state, in the order of
	 * params_create_state, and its update count ("" when it keeps none),
	 * as hlrt_graph_optimizer_state names them.
	 */
	char state[PARAMS_STATE_MAX][HLRT_NAME_MAX];
	uint32_t n_state;
	char step_name[HLRT_NAME_MAX];
};

static int dev_fail(hlrt_status st, const char *what, struct train_err *err)
{
	if (st == HLRT_SUCCESS)
		return 0;
	if (st == HLRT_OUT_OF_DEVICE_MEMORY)
		return train_err_set(err, "%s: out of device memory (HBM): %s", what,
				     hlrt_last_error());
	return train_err_set(err, "%s: %s (%s)", what, hlrt_last_error(),
			     hlrt_status_name(st));
}

/* ---- device buffers, by tensor name --------------------------------------- */

static struct dev_buf *dev_buf_find(struct dev_ctx *d, const char *name)
{
	for (uint32_t i = 0; i < d->n_buf; i++)
		if (strcmp(d->buf[i].name, name) == 0)
			return &d->buf[i];
	return NULL;
}

/* The buffer for NAME, allocated (and zeroed) on first use. */
static struct dev_buf *dev_buf_get(struct dev_ctx *d, const char *name, uint64_t bytes,
				   struct train_err *err)
{
	struct dev_buf *b = dev_buf_find(d, name);
	char what[HLRT_NAME_MAX + 32];
	hlrt_status st;

	if (b) {
		if (b->bytes < bytes) {
			train_err_set(err, "tensor %s: %" PRIu64 " bytes bound, %" PRIu64
				      " needed", name, b->bytes, bytes);
			return NULL;
		}
		return b;
	}
	if (d->n_buf == DEV_MAX_BUFS) {
		train_err_set(err, "too many device tensors");
		return NULL;
	}
	b = &d->buf[d->n_buf];
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->bytes = bytes;
	snprintf(what, sizeof(what), "allocating %s", name);
	st = hlrt_device_malloc(d->dev, bytes, &b->addr);
	if (st == HLRT_SUCCESS)
		st = hlrt_memset_async(d->stream, b->addr, 0, bytes);
	if (dev_fail(st, what, err))
		return NULL;
	d->n_buf++;
	return b;
}

/* NAME: BYTES of buffer B at OFFSET, bound like a buffer of its own. */
static int dev_buf_view(struct dev_ctx *d, const char *name, const struct dev_buf *b,
			uint64_t offset, uint64_t bytes, struct train_err *err)
{
	struct dev_buf *v;

	if (dev_buf_find(d, name))
		return train_err_set(err, "tensor %s: bound twice", name);
	if (d->n_buf == DEV_MAX_BUFS)
		return train_err_set(err, "too many device tensors");
	v = &d->buf[d->n_buf++];
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->addr = b->addr + offset;
	v->bytes = bytes;
	v->view = true;
	return 0;
}

static int dev_upload(struct dev_ctx *d, const char *name, const void *src,
		      uint64_t bytes, struct train_err *err)
{
	struct dev_buf *b = dev_buf_get(d, name, bytes, err);

	if (!b)
		return -1;
	return dev_fail(hlrt_memcpy_h2d(d->dev, b->addr, src, bytes), name, err);
}

/* ---- graph building ------------------------------------------------------- */

struct dev_graph {
	hlrt_graph *g;
	hlrt_status st;
	char what[96];		/* the failing call, for the message */
};

static hlrt_tensor *dev_tensor(struct dev_graph *gb, const char *name, hlrt_dtype dt,
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
static hlrt_tensor *dev_node(struct dev_graph *gb, const char *guid, const char *name,
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

static hlrt_tensor *dev_param(struct dev_graph *gb, const struct params_tensor *p)
{
	uint64_t dims[PARAMS_MAX_DIMS];

	for (uint32_t i = 0; i < p->ndims; i++)
		dims[i] = p->dims[i];
	return dev_tensor(gb, p->name, HLRT_FP32, HLRT_TENSOR_PARAMETER, p->ndims, dims);
}

/* The model's layers on x[batch, h, w, c]; returns the logits. */
static hlrt_tensor *dev_forward(struct dev_graph *gb, const struct model *m,
				struct params *p, hlrt_tensor *x)
{
	char name[MODEL_NAME_LEN + 32];

	for (uint32_t i = 0; i < m->nlayers && !gb->st; i++) {
		const struct model_layer *l = &m->layers[i];
		struct params_tensor *pw = params_find(p, i, 0), *pb = params_find(p, i, 1);
		hlrt_tensor *w = pw ? dev_param(gb, pw) : NULL;
		hlrt_tensor *b = pb ? dev_param(gb, pb) : NULL;

		switch (l->kind) {
		case MODEL_FLATTEN:
			snprintf(name, sizeof(name), "model/%s/Reshape", l->name);
			x = dev_node(gb, "flatten", name, &x, 1, NULL, NULL, 0);
			break;
		case MODEL_DENSE: {
			hlrt_tensor *in[2] = { x, w };

			snprintf(name, sizeof(name), "model/%s/MatMul", l->name);
			x = dev_node(gb, "gemm_f32", name, in, 2, NULL, NULL, 0);
			in[0] = x;
			in[1] = b;
			snprintf(name, sizeof(name), "model/%s/BiasAdd", l->name);
			x = dev_node(gb, "bias_add_f32", name, in, 2, NULL, NULL, 0);
			break;
		}
		case MODEL_RELU:
			snprintf(name, sizeof(name), "model/%s/Relu", l->name);
			x = dev_node(gb, "relu_fwd_f32", name, &x, 1, NULL, NULL, 0);
			break;
		case MODEL_CONV2D: {
			struct hlrt_conv_params cp = {
				.kernel_h = l->kernel[0], .kernel_w = l->kernel[1],
				.stride_h = l->stride[0], .stride_w = l->stride[1],
				.pad_h = l->pad[0], .pad_w = l->pad[1],
			};
			hlrt_tensor *in[3] = { x, w, b };

			snprintf(name, sizeof(name), "model/%s/Conv2D", l->name);
			x = dev_node(gb, "conv2d_fwd_f32", name, in, 3, NULL, &cp, sizeof(cp));
			break;
		}
		case MODEL_MAXPOOL2D: {
			struct hlrt_pool_params pp = {
				.kernel_h = l->kernel[0], .kernel_w = l->kernel[1],
				.stride_h = l->stride[0], .stride_w = l->stride[1],
			};

			snprintf(name, sizeof(name), "model/%s/MaxPool", l->name);
			x = dev_node(gb, "maxpool2d_fwd_f32", name, &x, 1, NULL, &pp, sizeof(pp));
			break;
		}
		}
	}
	return x;
}

/* The optimizer of the model, as hlrt_graph_train() takes it. */
static struct hlrt_optimizer_desc dev_optimizer(const struct model_training *t)
{
	struct hlrt_optimizer_desc opt = { .kind = HLRT_OPT_SGD };

	if (t->optimizer == MODEL_OPT_LAMB) {
		opt.kind = HLRT_OPT_LAMB;
		opt.u.lamb.beta1 = t->beta1;
		opt.u.lamb.beta2 = t->beta2;
		opt.u.lamb.eps = t->epsilon;
		opt.u.lamb.weight_decay = t->weight_decay;
	} else {
		opt.u.sgd.momentum = t->momentum;
		opt.u.sgd.weight_decay = t->weight_decay;
		opt.u.sgd.nesterov = t->nesterov;
	}
	return opt;
}

/* Data parallel: the gradient of parameter P, as the ranks sum it (HLRT_NAME_MAX). */
static void dev_grad_name(char *name, size_t size, const struct params_tensor *p)
{
	snprintf(name, size, "%.*s/grad", HLRT_NAME_MAX - (int)sizeof("/grad"), p->name);
}

static hlrt_tensor *dev_grad(struct dev_graph *gb, const struct params_tensor *p,
			     hlrt_tensor_role role)
{
	uint64_t dims[PARAMS_MAX_DIMS];
	char name[HLRT_NAME_MAX];

	for (uint32_t i = 0; i < p->ndims; i++)
		dims[i] = p->dims[i];
	dev_grad_name(name, sizeof(name), p);
	return dev_tensor(gb, name, HLRT_FP32, role, p->ndims, dims);
}

/*
 * Note the names of the optimizer's state tensors that libhlrt made in
 * G for P's parameters: load and store find the state through them.
 */
static void dev_note_state(struct dev_ctx *d, struct dev_graph *gb, struct params *p)
{
	struct hlrt_optimizer_desc opt = dev_optimizer(&d->m->train);
	uint32_t slots = hlrt_optimizer_state_count(&opt);
	hlrt_tensor *w, *t;

	d->n_state = 0;
	for (uint32_t k = 0; k < slots && !gb->st; k++)
		for (uint32_t i = 0; i < p->count && !gb->st; i++) {
			snprintf(gb->what, sizeof(gb->what), "optimizer state of %s", p->t[i].name);
			gb->st = hlrt_graph_find_tensor(gb->g, p->t[i].name, &w);
			if (!gb->st)
				gb->st = hlrt_graph_optimizer_state(gb->g, w, k, &t);
			if (!gb->st)
				snprintf(d->state[d->n_state++], HLRT_NAME_MAX, "%s",
					 hlrt_tensor_name(t));
		}
	d->step_name[0] = '\0';
	if (!gb->st && d->m->train.optimizer == MODEL_OPT_LAMB) {
		snprintf(gb->what, sizeof(gb->what), "LAMB's update count");
		gb->st = hlrt_graph_optimizer_state(gb->g, NULL, 0, &t);
		if (!gb->st)
			snprintf(d->step_name, sizeof(d->step_name), "%s", hlrt_tensor_name(t));
	}
}

/*
 * Data parallel: autodiff of the slice's mean loss; the gradients, times
 * the slice's share of the batch, into the OUTPUT tensors "<param>/grad".
 */
static void dev_gradients(struct dev_graph *gb, struct params *p, hlrt_tensor *loss,
			  float share)
{
	struct hlrt_scale_params sp = { .alpha = share };
	hlrt_tensor *w[PARAMS_MAX], *g[PARAMS_MAX];
	char name[HLRT_NAME_MAX];

	for (uint32_t i = 0; i < p->count && !gb->st; i++) {
		gb->st = hlrt_graph_find_tensor(gb->g, p->t[i].name, &w[i]);
		snprintf(gb->what, sizeof(gb->what), "parameter %s", p->t[i].name);
	}
	if (!gb->st) {
		gb->st = hlrt_graph_gradients(gb->g, loss, w, p->count, g);
		snprintf(gb->what, sizeof(gb->what), "autodiff");
	}
	for (uint32_t i = 0; i < p->count && !gb->st; i++) {
		hlrt_tensor *out = dev_grad(gb, &p->t[i], HLRT_TENSOR_OUTPUT);

		snprintf(name, sizeof(name), "%.48s/grad/Share", p->t[i].name);
		dev_node(gb, "scale_f32", name, &g[i], 1, out, &sp, sizeof(sp));
	}
}

/*
 * Data parallel: the optimizer graph, libhlrt's update (the one
 * hlrt_graph_train() adds) on the INPUT gradients "<param>/grad".
 */
static int dev_build_optimizer(struct dev_ctx *d, struct params *p, hlrt_recipe **recipe,
			       struct train_err *err)
{
	struct hlrt_optimizer_desc opt = dev_optimizer(&d->m->train);
	struct hlrt_compile_options copts = {
		.eager = d->eager ? HLRT_EAGER_ON : HLRT_EAGER_FROM_ENV,
	};
	struct dev_graph gb = { 0 };
	hlrt_tensor *w[PARAMS_MAX], *g[PARAMS_MAX], *lr;
	uint64_t one = 1;

	gb.st = hlrt_graph_create(&gb.g);
	if (gb.st)
		return dev_fail(gb.st, "creating a graph", err);
	lr = dev_tensor(&gb, "lr", HLRT_FP32, HLRT_TENSOR_INPUT, 1, &one);
	for (uint32_t i = 0; i < p->count && !gb.st; i++) {
		g[i] = dev_grad(&gb, &p->t[i], HLRT_TENSOR_INPUT);
		w[i] = dev_param(&gb, &p->t[i]);
	}
	if (!gb.st) {
		gb.st = hlrt_graph_apply_optimizer(gb.g, &opt, lr, w, g, p->count);
		snprintf(gb.what, sizeof(gb.what), "the optimizer");
	}
	dev_note_state(d, &gb, p);
	if (!gb.st) {
		gb.st = hlrt_graph_compile(gb.g, &copts, recipe);
		snprintf(gb.what, sizeof(gb.what), "compiling the optimizer");
	}
	hlrt_graph_destroy(gb.g);
	return dev_fail(gb.st, gb.what, err);
}

/*
 * The step graph: gather the batch at "offset" of "order" from the images
 * and labels of a split, forward, loss and correct count as outputs; for
 * training, autodiff and SGD on top.
 */
static int dev_build(struct dev_ctx *d, struct params *p, uint32_t batch, bool train,
		     float share, hlrt_recipe **recipe, struct train_err *err)
{
	const struct dataset_split *s = train ? &d->data->train : &d->data->test;
	const struct model_shape *in = &d->m->input;
	const char *pfx = train ? "train" : "test";
	struct dev_graph gb = { 0 };
	uint64_t dims[4] = { s->count, in->h, in->w, in->c }, one = 1, n = s->count;
	uint64_t bdims[4] = { batch, in->h, in->w, in->c };
	struct hlrt_sce_params sce = { train ? HLRT_SCE_MEAN : HLRT_SCE_SUM };
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
	hlrt_tensor *loss, *correct, *eq, *mean = NULL;

	gb.st = hlrt_graph_create(&gb.g);
	if (gb.st)
		return dev_fail(gb.st, "creating a graph", err);
	snprintf(name, sizeof(name), "%s/images", pfx);
	images = dev_tensor(&gb, name, HLRT_FP32, HLRT_TENSOR_INPUT, 4, dims);
	snprintf(name, sizeof(name), "%s/labels", pfx);
	labels = dev_tensor(&gb, name, HLRT_INT32, HLRT_TENSOR_INPUT, 1, &n);
	snprintf(name, sizeof(name), "%s/order", pfx);
	order = dev_tensor(&gb, name, HLRT_INT32, HLRT_TENSOR_INPUT, 1, &n);
	offset = dev_tensor(&gb, "offset", HLRT_INT32, HLRT_TENSOR_INPUT, 1, &one);
	x = dev_tensor(&gb, NULL, HLRT_FP32, HLRT_TENSOR_TEMPORARY, 4, bdims);
	y = dev_tensor(&gb, NULL, HLRT_INT32, HLRT_TENSOR_TEMPORARY, 1, &bdims[0]);
	t2[0] = images, t2[1] = order, t2[2] = offset;
	x = dev_node(&gb, "gather_rows_f32", "model/input/Gather", t2, 3, x, &rows,
		     sizeof(rows));
	t2[0] = labels;
	y = dev_node(&gb, "gather_rows_i32", "model/labels/Gather", t2, 3, y, &rows,
		     sizeof(rows));
	logits = dev_forward(&gb, d->m, p, x);

	loss = dev_tensor(&gb, "loss", HLRT_FP32, HLRT_TENSOR_OUTPUT, 1, &one);
	t2[0] = logits, t2[1] = y;
	if (train && d->nranks > 1) {
		/*
		 * The slice's mean (autodiff's seed) times the slice's share of
		 * the batch: the ranks' sum is the batch's mean.
		 */
		struct hlrt_scale_params sp = { .alpha = share };

		mean = dev_node(&gb, "softmax_cross_entropy_fwd_f32",
				"model/loss/SoftmaxCrossEntropy", t2, 2, NULL, &sce, sizeof(sce));
		loss = dev_node(&gb, "scale_f32", "model/loss/Share", &mean, 1, loss, &sp,
				sizeof(sp));
	} else {
		loss = dev_node(&gb, "softmax_cross_entropy_fwd_f32",
				"model/loss/SoftmaxCrossEntropy", t2, 2, loss, &sce, sizeof(sce));
	}
	/* accuracy: argmax == label, counted on the device */
	t2[0] = dev_node(&gb, "argmax_i32", "model/ArgMax", &logits, 1, NULL, NULL, 0);
	t2[1] = y;
	eq = dev_node(&gb, "equal_i32", "model/Equal", t2, 2, NULL, NULL, 0);
	eq = dev_node(&gb, "reshape", "model/Equal/Reshape", &eq, 1, NULL, &as_col,
		      sizeof(as_col));
	correct = dev_tensor(&gb, "correct", HLRT_INT32, HLRT_TENSOR_OUTPUT, 1, &one);
	correct = dev_node(&gb, "reduce_sum_i32", "model/Correct/Sum", &eq, 1, correct,
			   &sum0, sizeof(sum0));
	if (!gb.st && train && d->nranks > 1) {
		dev_gradients(&gb, p, mean, share);
	} else if (!gb.st && train) {
		const struct model_training *t = &d->m->train;
		struct hlrt_optimizer_desc opt = dev_optimizer(t);
		hlrt_tensor *lr = dev_tensor(&gb, "lr", HLRT_FP32, HLRT_TENSOR_INPUT, 1, &one);

		if (!gb.st) {
			gb.st = hlrt_graph_train(gb.g, loss, &opt, lr);
			snprintf(gb.what, sizeof(gb.what), "autodiff and %s",
				 t->optimizer == MODEL_OPT_LAMB ? "LAMB" : "SGD");
		}
		dev_note_state(d, &gb, p);
	}
	if (!gb.st) {
		gb.st = hlrt_graph_compile(gb.g, &copts, recipe);
		snprintf(gb.what, sizeof(gb.what), "compiling the %s step (batch %u)",
			 pfx, batch);
	}
	hlrt_graph_destroy(gb.g);
	return dev_fail(gb.st, gb.what, err);
}

/* Bindings for every persistent tensor of a recipe, from dev buffers. */
static int dev_bind(struct dev_ctx *d, struct dev_step *s, struct train_err *err)
{
	uint32_t count;
	uint64_t ws;

	if (dev_fail(hlrt_recipe_persistent_count(s->recipe, &count), "recipe", err) ||
	    dev_fail(hlrt_recipe_workspace_size(s->recipe, &ws), "recipe", err))
		return -1;
	if (count > DEV_MAX_BUFS)
		return train_err_set(err, "recipe binds %u tensors (at most %d)", count,
				     DEV_MAX_BUFS);
	if (ws > d->workspace_bytes)
		d->workspace_bytes = ws;
	s->n_bind = 0;
	for (uint32_t i = 0; i < count; i++) {
		struct hlrt_persistent_info pi;
		struct dev_buf *b;

		if (dev_fail(hlrt_recipe_persistent_info(s->recipe, i, &pi), "recipe", err))
			return -1;
		/* Optimizer state ("<param>/momentum", "<param>/m", ..) starts at zero. */
		b = dev_buf_get(d, pi.name, pi.bytes, err);
		if (!b)
			return -1;
		s->bind[s->n_bind].name = b->name;
		s->bind[s->n_bind].device_addr = b->addr;
		s->n_bind++;
	}
	return 0;
}

static int dev_prepare_step(struct dev_ctx *d, struct params *p, struct dev_step *s,
			    uint32_t batch, bool train, float share, struct train_err *err)
{
	s->batch = batch;
	if (batch == 0)
		return 0;
	return dev_build(d, p, batch, train, share, &s->recipe, err) ||
	       dev_bind(d, s, err) ? -1 : 0;
}

/* Data parallel: this rank's samples [*lo, *lo + return) of a batch of COUNT. */
static uint32_t dev_slice(const struct dev_ctx *d, uint32_t count, uint32_t *lo)
{
	uint64_t a = (uint64_t)d->rank * count / d->nranks;
	uint64_t b = (uint64_t)(d->rank + 1) * count / d->nranks;

	*lo = (uint32_t)a;
	return (uint32_t)(b - a);
}

/*
 * Data parallel: the gradients and the loss side by side in one buffer,
 * so that one all-reduce sums them all (its latency, not its size, is
 * what a step of a small model pays); the slices' steps; the optimizer.
 */
static int dev_prepare_dp(struct dev_ctx *d, struct params *p, uint32_t batch,
			  struct train_err *err)
{
	const uint64_t align = 256;
	uint64_t total = align, off = 0;
	uint32_t lo, n;

	for (uint32_t i = 0; i < p->count; i++)
		total += (p->t[i].count * sizeof(float) + align - 1) / align * align;
	d->sum = dev_buf_get(d, "dp/sum", total, err);
	if (!d->sum)
		return -1;
	for (uint32_t i = 0; i < p->count; i++) {
		char name[HLRT_NAME_MAX];
		uint64_t bytes = p->t[i].count * sizeof(float);

		dev_grad_name(name, sizeof(name), &p->t[i]);
		if (dev_buf_view(d, name, d->sum, off, bytes, err))
			return -1;
		off += (bytes + align - 1) / align * align;
	}
	if (dev_buf_view(d, "loss", d->sum, off, sizeof(float), err))
		return -1;
	d->batch = batch;
	d->tail = d->data->train.count % batch;
	n = dev_slice(d, d->batch, &lo);
	if (dev_prepare_step(d, p, &d->train, n, true, (float)n / d->batch, err))
		return -1;
	n = d->tail ? dev_slice(d, d->tail, &lo) : 0;
	if (dev_prepare_step(d, p, &d->train_tail, n, true, n ? (float)n / d->tail : 0, err))
		return -1;
	return dev_build_optimizer(d, p, &d->opt.recipe, err) || dev_bind(d, &d->opt, err) ?
	       -1 : 0;
}

/* ---- HBM budget ------------------------------------------------------------ */

/* Refuse up front a model whose parameters and data cannot fit in HBM. */
static int dev_check_hbm(struct dev_ctx *d, const struct params *p, struct train_err *err)
{
	struct hlrt_device_info info;
	const struct dataset *ds = d->data;
	uint64_t sample = model_shape_size(&d->m->input) * 4ull + 8;
	uint32_t copies = (d->m->train.optimizer == MODEL_OPT_LAMB ? 3 :
			   d->m->train.momentum != 0.0f ? 2 : 1) + (d->nranks > 1);
	uint64_t need = (uint64_t)p->total * 4 * copies +
			((uint64_t)ds->train.count + ds->test.count) * sample;

	if (dev_fail(hlrt_device_get_info(d->dev, &info), "device info", err))
		return -1;
	if (need > info.hbm_free)
		return train_err_set(err,
			"model %s does not fit in device memory: its %zu parameters and the data "
			"need %.1f MiB of HBM, %.1f MiB are free", d->m->name, p->total,
			need / DEV_MiB, info.hbm_free / DEV_MiB);
	return 0;
}

/* ---- backend operations ---------------------------------------------------- */

static void dev_close(void *ctx)
{
	struct dev_ctx *d = ctx;
	struct dev_step *steps[] = { &d->train, &d->train_tail, &d->eval, &d->eval_tail,
				     &d->opt };

	if (!d)
		return;
	if (d->stream)
		hlrt_stream_synchronize(d->stream);
	/* Waits for its work; the peers see this rank leave. */
	if (d->comm)
		hlrt_comm_destroy(d->comm);
	/* The profile is written now, with every launch of the run in it. */
	if (d->profiling)
		hlrt_profiler_stop(d->dev);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i]->recipe)
			hlrt_recipe_destroy(steps[i]->recipe);
	if (d->dev) {
		for (uint32_t i = 0; i < d->n_buf; i++)
			if (!d->buf[i].view)
				hlrt_device_free(d->dev, d->buf[i].addr);
		if (d->workspace)
			hlrt_device_free(d->dev, d->workspace);
		if (d->slot)
			hlrt_host_free(d->dev, d->slot);
		if (d->order)
			hlrt_host_free(d->dev, d->order);
		if (d->stream)
			hlrt_stream_destroy(d->stream);
		/* Releases whatever is left and the device itself. */
		hlrt_device_release(d->dev);
	}
	free(d);
}

static int dev_open(void **ctx, const struct backend_setup *setup, struct train_err *err)
{
	const struct dataset *ds = setup->data;
	const struct model_shape *in = &setup->model->input;
	uint64_t sample = model_shape_size(in) * sizeof(float);
	uint32_t eval_batch = ds->test.count < DEV_EVAL_BATCH ? ds->test.count : DEV_EVAL_BATCH;
	struct params shapes;
	struct dev_ctx *d;
	int32_t *test_order = NULL;
	hlrt_status st;
	int ret = -1;

	d = calloc(1, sizeof(*d));
	if (!d)
		return train_err_set(err, "out of memory");
	d->m = setup->model;
	d->data = ds;
	d->bf16 = setup->bf16;
	d->eager = setup->eager;
	d->rank = setup->rank;
	d->nranks = setup->nranks > 1 ? setup->nranks : 1;
	if (params_layout(d->m, &shapes, err)) {
		free(d);
		return -1;
	}
	st = hlrt_device_acquire(0, &d->dev);
	if (st == HLRT_DEVICE_BUSY) {
		train_err_set(err, "device HPU:0 is busy (another process holds it)");
		goto out;
	}
	if (dev_fail(st, "acquiring device HPU:0", err) || dev_check_hbm(d, &shapes, err))
		goto out;
	if (setup->profile) {
		st = hlrt_profiler_start(d->dev, setup->profile);
		if (st)
			fprintf(stderr, "hl-train: warning: no profile: %s (%s)\n",
				hlrt_last_error(), hlrt_status_name(st));
		d->profiling = st == HLRT_SUCCESS;
	}
	if (dev_fail(hlrt_stream_create(d->dev, &d->stream), "creating a stream", err) ||
	    dev_fail(hlrt_host_malloc(d->dev, DEV_DEPTH * sizeof(*d->slot),
				      (void **)&d->slot), "pinned memory", err) ||
	    dev_fail(hlrt_host_malloc(d->dev, ds->train.count * sizeof(int32_t),
				      (void **)&d->order), "pinned memory", err))
		goto out;
	if (d->nranks > 1) {
		hlrt_comm_id id;

		if (dev_fail(hlrt_comm_id_parse(setup->comm_id ? setup->comm_id : "", &id),
			     "the communicator id", err) ||
		    dev_fail(hlrt_comm_init_rank(&d->comm, d->nranks, &id, d->rank, d->dev),
			     "joining the other ranks", err))
			goto out;
	}
	/* The data sets, once. */
	test_order = malloc(ds->test.count * sizeof(int32_t));
	if (!test_order) {
		train_err_set(err, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < ds->test.count; i++)
		test_order[i] = (int32_t)i;
	if (dev_upload(d, "train/images", ds->train.images, ds->train.count * sample, err) ||
	    dev_upload(d, "train/labels", ds->train.labels, ds->train.count * 4ull, err) ||
	    dev_upload(d, "test/images", ds->test.images, ds->test.count * sample, err) ||
	    dev_upload(d, "test/labels", ds->test.labels, ds->test.count * 4ull, err) ||
	    dev_upload(d, "test/order", test_order, ds->test.count * 4ull, err) ||
	    !dev_buf_get(d, "train/order", ds->train.count * 4ull, err))
		goto out;
	if (d->nranks > 1) {
		if (dev_prepare_dp(d, &shapes, setup->batch, err))
			goto out;
	} else if (dev_prepare_step(d, &shapes, &d->train, setup->batch, true, 1.0f, err) ||
		   dev_prepare_step(d, &shapes, &d->train_tail, ds->train.count % setup->batch,
				    true, 1.0f, err)) {
		goto out;
	}
	if (dev_prepare_step(d, &shapes, &d->eval, eval_batch, false, 1.0f, err) ||
	    dev_prepare_step(d, &shapes, &d->eval_tail, ds->test.count % eval_batch,
			     false, 1.0f, err))
		goto out;
	if (d->workspace_bytes &&
	    dev_fail(hlrt_device_malloc(d->dev, d->workspace_bytes, &d->workspace),
		     "allocating the workspace", err))
		goto out;
	if (dev_fail(hlrt_stream_synchronize(d->stream), "uploading the data", err))
		goto out;
	ret = 0;
out:
	free(test_order);
	params_free(&shapes);
	if (ret) {
		dev_close(d);
		return -1;
	}
	*ctx = d;
	return 0;
}

/*
 * The device buffer of tensor I of P: a parameter's by its name, the
 * optimizer's state by the name libhlrt gave it (dev_note_state).
 */
static struct dev_buf *dev_params_buf(struct dev_ctx *d, const struct params *p, uint32_t i,
				      bool state, struct train_err *err)
{
	const char *name = state ? d->state[i] : p->t[i].name;
	struct dev_buf *b;

	if (state && (p->count != d->n_state || i >= d->n_state)) {
		train_err_set(err, "%u optimizer state tensors, libhlrt keeps %u", p->count,
			      d->n_state);
		return NULL;
	}
	b = dev_buf_find(d, name);
	if (!b || b->bytes != p->t[i].count * sizeof(float)) {
		train_err_set(err, "tensor %s: no device buffer of its size", name);
		return NULL;
	}
	return b;
}

/* Copy every tensor of p (parameters or optimizer state) to or from the device. */
static int dev_params_xfer(struct dev_ctx *d, const struct params *p, bool state,
			   bool to_device, struct train_err *err)
{
	for (uint32_t i = 0; i < p->count; i++) {
		const struct params_tensor *t = &p->t[i];
		struct dev_buf *b = dev_params_buf(d, p, i, state, err);
		hlrt_status st;

		if (!b)
			return -1;
		st = to_device ? hlrt_memcpy_h2d(d->dev, b->addr, t->data, b->bytes)
			       : hlrt_memcpy_d2h(d->dev, t->data, b->addr, b->bytes);
		if (dev_fail(st, b->name, err))
			return -1;
	}
	return 0;
}

/* LAMB's update count (INT32 on the device): the host's *updates to the device or back. */
static int dev_step_xfer(struct dev_ctx *d, uint64_t *updates, bool to_device,
			 struct train_err *err)
{
	const char *name = d->step_name;
	struct dev_buf *b;
	int32_t step;

	if (d->m->train.optimizer != MODEL_OPT_LAMB)
		return 0;
	b = dev_buf_find(d, name);
	if (!b || b->bytes != sizeof(step))
		return train_err_set(err, "LAMB's update count %s: no device buffer of its size",
				     name);
	if (to_device) {
		if (*updates > INT32_MAX)
			return train_err_set(err, "LAMB: %" PRIu64 " updates done, at most %d",
					     *updates, INT32_MAX);
		step = (int32_t)*updates;
		return dev_fail(hlrt_memcpy_h2d(d->dev, b->addr, &step, sizeof(step)), name, err);
	}
	if (dev_fail(hlrt_memcpy_d2h(d->dev, &step, b->addr, sizeof(step)), name, err))
		return -1;
	*updates = (uint64_t)step;
	return 0;
}

/* Data parallel: every tensor of p from rank 0, so all ranks start alike. */
static int dev_bcast(struct dev_ctx *d, const struct params *p, bool state,
		     struct train_err *err)
{
	for (uint32_t i = 0; i < p->count; i++) {
		struct dev_buf *b = dev_params_buf(d, p, i, state, err);

		if (!b)
			return -1;
		if (dev_fail(hlrt_broadcast(d->comm, b->addr, b->addr, p->t[i].count, HLRT_FP32,
					    0, d->stream), b->name, err))
			return -1;
	}
	return 0;
}

static int dev_load_params(void *ctx, const struct params *p, const struct params *state,
			   struct train_err *err)
{
	struct dev_ctx *d = ctx;
	uint64_t updates = state ? state->updates : 0;

	if (dev_params_xfer(d, p, false, true, err))
		return -1;
	if (state && dev_params_xfer(d, state, true, true, err))
		return -1;
	/* no state: the moments stay as allocated (zero), the count restarts */
	if (dev_step_xfer(d, &updates, true, err))
		return -1;
	if (d->nranks > 1 && (dev_bcast(d, p, false, err) ||
			      (state && dev_bcast(d, state, true, err)) ||
			      dev_fail(hlrt_stream_synchronize(d->stream),
				       "broadcasting the parameters", err)))
		return -1;
	return 0;
}

static int dev_store_params(void *ctx, struct params *p, struct params *state,
			    struct train_err *err)
{
	struct dev_ctx *d = ctx;

	if (dev_fail(hlrt_stream_synchronize(d->stream), "synchronising", err) ||
	    dev_params_xfer(d, p, false, false, err))
		return -1;
	if (!state)
		return 0;
	return dev_params_xfer(d, state, true, false, err) ||
	       dev_step_xfer(d, &state->updates, false, err);
}

static int dev_begin_epoch(void *ctx, const uint32_t *order, struct train_err *err)
{
	struct dev_ctx *d = ctx;
	uint32_t n = d->data->train.count;
	struct dev_buf *b = dev_buf_find(d, "train/order");

	for (uint32_t i = 0; i < n; i++)
		d->order[i] = (int32_t)order[i];
	return dev_fail(hlrt_memcpy_h2d_async(d->stream, b->addr, d->order, n * 4ull),
			"uploading the epoch's order", err);
}

/*
 * Queue one launch of S at OFFSET (LR 0: an evaluation step, which has
 * none) in the next slot: the offset (and a changed learning rate) ride
 * in as "pre" copies, the loss and the correct count come back as "post"
 * copies, all in the one submission of the step.
 */
static int dev_launch(struct dev_ctx *d, struct dev_step *s, uint32_t offset, float lr,
		      struct train_err *err)
{
	struct dev_slot *sl = &d->slot[d->queued];
	struct dev_buf *lrb = dev_buf_find(d, "lr");
	struct hlrt_host_copy pre[2] = {
		{ &sl->offset, dev_buf_find(d, "offset")->addr, sizeof(int32_t) },
	};
	struct hlrt_host_copy post[2] = {
		{ &sl->loss, dev_buf_find(d, "loss")->addr, sizeof(float) },
		{ &sl->correct, dev_buf_find(d, "correct")->addr, sizeof(int32_t) },
	};
	uint32_t n_pre = 1;

	if (d->queued == DEV_DEPTH)
		return train_err_set(err, "more than %d steps queued", DEV_DEPTH);
	sl->offset = (int32_t)offset;
	sl->count = s->batch;
	if (lr > 0 && lrb && (!d->lr_valid || lr != d->lr_dev)) {
		sl->lr = lr;
		d->lr_dev = lr;
		d->lr_valid = true;
		pre[n_pre++] = (struct hlrt_host_copy){ &sl->lr, lrb->addr, sizeof(float) };
	}
	if (dev_fail(hlrt_launch_ex(d->stream, s->recipe, s->bind, s->n_bind, d->workspace,
				    pre, n_pre, post, 2), "launch", err))
		return -1;
	d->queued++;
	return 0;
}

/* Wait for every queued step; their slots become free. */
static int dev_wait(struct dev_ctx *d, struct train_err *err)
{
	hlrt_status st = hlrt_stream_synchronize(d->stream);

	d->queued = 0;
	return dev_fail(st, "step", err);
}

/*
 * Data parallel: the slice's gradients, their sum over the ranks with the
 * loss and the correct count, then the optimizer, whose launch brings the
 * summed loss and count back; all queued on the stream, in order.
 */
static int dev_step_dp(struct dev_ctx *d, uint32_t first, uint32_t count, float lr,
		       struct train_err *err)
{
	struct dev_step *s = count == d->batch ? &d->train :
			     count == d->tail ? &d->train_tail : NULL;
	struct dev_slot *sl = &d->slot[d->queued];
	struct dev_buf *loss = dev_buf_find(d, "loss"), *correct = dev_buf_find(d, "correct");
	struct hlrt_host_copy pre[1], post[2] = {
		{ &sl->loss, loss->addr, sizeof(float) },
		{ &sl->correct, correct->addr, sizeof(int32_t) },
	};
	hlrt_status st = HLRT_SUCCESS;
	uint32_t lo, n, n_pre = 0;

	if (!s || first + count > d->data->train.count)
		return train_err_set(err, "no compiled step for a batch of %u at %u", count, first);
	if (d->queued == DEV_DEPTH)
		return train_err_set(err, "more than %d steps queued", DEV_DEPTH);
	n = dev_slice(d, count, &lo);
	sl->offset = (int32_t)(first + lo);
	sl->count = count;
	if (n) {
		pre[0] = (struct hlrt_host_copy){ &sl->offset, dev_buf_find(d, "offset")->addr,
						  sizeof(int32_t) };
		st = hlrt_launch_ex(d->stream, s->recipe, s->bind, s->n_bind, d->workspace,
				    pre, 1, NULL, 0);
	} else {
		/* a batch smaller than the ranks: this one adds nothing */
		st = hlrt_memset_async(d->stream, d->sum->addr, 0, d->sum->bytes);
		if (!st)
			st = hlrt_memset_async(d->stream, correct->addr, 0, sizeof(int32_t));
	}
	if (dev_fail(st, "gradients", err))
		return -1;
	st = hlrt_all_reduce(d->comm, d->sum->addr, d->sum->addr, d->sum->bytes / sizeof(float),
			     HLRT_FP32, HLRT_REDUCE_SUM, d->stream);
	if (!st)
		st = hlrt_all_reduce(d->comm, correct->addr, correct->addr, 1, HLRT_INT32,
				     HLRT_REDUCE_SUM, d->stream);
	if (dev_fail(st, "all-reduce", err))
		return -1;
	if (!d->lr_valid || lr != d->lr_dev) {
		sl->lr = lr;
		d->lr_dev = lr;
		d->lr_valid = true;
		pre[0] = (struct hlrt_host_copy){ &sl->lr, dev_buf_find(d, "lr")->addr,
						  sizeof(float) };
		n_pre = 1;
	}
	if (dev_fail(hlrt_launch_ex(d->stream, d->opt.recipe, d->opt.bind, d->opt.n_bind,
				    d->workspace, pre, n_pre, post, 2), "optimizer", err))
		return -1;
	d->queued++;
	return 0;
}

static int dev_step(void *ctx, uint32_t first, uint32_t count, float lr,
		    struct train_err *err)
{
	struct dev_ctx *d = ctx;

	if (d->nranks > 1)
		return dev_step_dp(d, first, count, lr, err);
	struct dev_step *s = count == d->train.batch ? &d->train :
			     count == d->train_tail.batch ? &d->train_tail : NULL;

	if (!s || first + count > d->data->train.count)
		return train_err_set(err, "no compiled step for a batch of %u at %u", count, first);
	return dev_launch(d, s, first, lr, err);
}

static int dev_collect(void *ctx, struct backend_step_result *out, uint32_t n,
		       struct train_err *err)
{
	struct dev_ctx *d = ctx;
	uint32_t queued = d->queued;

	if (n != queued)
		return train_err_set(err, "%u results asked, %u steps queued", n, queued);
	if (dev_wait(d, err))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		out[i].loss = d->slot[i].loss;
		out[i].correct = (uint32_t)d->slot[i].correct;
		out[i].count = d->slot[i].count;
	}
	return 0;
}

static int dev_evaluate(void *ctx, struct backend_eval_result *out, struct train_err *err)
{
	struct dev_ctx *d = ctx;
	uint32_t n = d->data->test.count;

	memset(out, 0, sizeof(*out));
	for (uint32_t first = 0; first < n;) {
		struct dev_step *s = n - first >= d->eval.batch ? &d->eval : &d->eval_tail;

		if (dev_launch(d, s, first, 0.0f, err) || dev_wait(d, err))
			return -1;
		out->loss_sum += d->slot[0].loss;
		out->correct += (uint32_t)d->slot[0].correct;
		out->count += s->batch;
		first += s->batch;
	}
	return 0;
}

const struct backend_ops device_backend_ops = {
	.name = "HPU:0",
	.open = dev_open,
	.load_params = dev_load_params,
	.store_params = dev_store_params,
	.begin_epoch = dev_begin_epoch,
	.step = dev_step,
	.collect = dev_collect,
	.depth = DEV_DEPTH,
	.evaluate = dev_evaluate,
	.close = dev_close,
};
