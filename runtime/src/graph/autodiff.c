// SPDX-License-Identifier: MIT
/*
 * Autodiff: reverse-mode gradients of a scalar loss, built as graph
 * nodes (gemm_dedx/gemm_dedw, relu_bwd, softmax_cross_entropy_bwd, ...),
 * and the fused optimizer nodes that consume them (with their state tensors).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_internal.h"
#include "graph/ops.h"

/* Per-run state: which tensors lie on a path from a parameter. */
struct ad_run {
	struct ad_ctx ac;
	bool *req;
};

static bool requires(const struct ad_ctx *ac, const hlrt_tensor *t)
{
	const struct ad_run *run = (const struct ad_run *)ac;

	return t->id < ac->n_req && run->req[t->id];
}

hlrt_status hlrt_ad_node(struct ad_ctx *ac, const char *guid, hlrt_tensor *const *in, uint32_t n_in,
		    const void *params, size_t psize, const char *suffix,
		    const struct hlrt_node *fwd, hlrt_tensor **out)
{
	char name[HLRT_NAME_MAX];
	struct hlrt_node *n;
	hlrt_status st;

	snprintf(name, sizeof(name), "%.40s/%s", fwd->name, suffix);
	st = hlrt_node_create(ac->g, guid, in, n_in, NULL, 0, params, psize, name, &n);
	if (st)
		return st;
	n->backward = true;
	*out = n->out[0];
	return HLRT_SUCCESS;
}

hlrt_status hlrt_ad_accumulate(struct ad_ctx *ac, hlrt_tensor *t, hlrt_tensor *g)
{
	hlrt_tensor *in[2], *sum;
	struct hlrt_node *n;
	char name[HLRT_NAME_MAX];
	hlrt_status st;

	if (!requires(ac, t))
		return HLRT_SUCCESS;
	if (!t->grad) {
		t->grad = g;
		return HLRT_SUCCESS;
	}
	in[0] = t->grad;
	in[1] = g;
	snprintf(name, sizeof(name), "%.48s/grad_sum", t->name);
	st = hlrt_node_create(ac->g, "add_f32", in, 2, NULL, 0, NULL, 0, name, &n);
	if (st)
		return st;
	n->backward = true;
	sum = n->out[0];
	t->grad = sum;
	return HLRT_SUCCESS;
}

static hlrt_tensor *dout(const struct hlrt_node *n)
{
	return n->out[0]->grad;
}

hlrt_status hlrt_grad_gemm(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2], *g;
	hlrt_status st;

	if (requires(ac, n->in[0])) {
		in[0] = dout(n);
		in[1] = n->in[1];
		st = hlrt_ad_node(ac, "gemm_dedx_f32", in, 2, n->params, n->params_size, "dA", n, &g);
		if (!st)
			st = hlrt_ad_accumulate(ac, n->in[0], g);
		if (st)
			return st;
	}
	if (requires(ac, n->in[1])) {
		in[0] = dout(n);
		in[1] = n->in[0];
		st = hlrt_ad_node(ac, "gemm_dedw_f32", in, 2, n->params, n->params_size, "dB", n, &g);
		if (!st)
			st = hlrt_ad_accumulate(ac, n->in[1], g);
		if (st)
			return st;
	}
	return HLRT_SUCCESS;
}

/*
 * g, of the result's shape, summed over the dimensions t was broadcast
 * along (NumPy rules) and given t's shape: the broadcast axes are moved to
 * the front (transpose_f32, when they are not there already) and the rows
 * summed in order (reduce_sum_f32 over axis 0). t's own shape: g itself.
 */
static hlrt_status unbroadcast(struct ad_ctx *ac, const struct hlrt_node *n, hlrt_tensor *g,
			       const hlrt_tensor *t, const char *suffix, hlrt_tensor **out)
{
	struct hlrt_transpose_params tp = { { 0 } };
	struct hlrt_reshape_params rows = { .ndims = 2 }, back = { .ndims = t->ndims };
	struct hlrt_reduce_params axis0 = { .axis = 0 };
	uint64_t st[HLRT_MAX_DIMS], r = 1;
	uint32_t nd = g->ndims, k = 0, d;
	char name[HLRT_NAME_MAX];
	hlrt_tensor *in[1] = { g };
	bool moved = false;
	hlrt_status s;

	if (hlrt_bcast_is_plain(t, g)) {
		*out = g;
		return HLRT_SUCCESS;
	}
	hlrt_bcast_strides(t, nd, g->dims, st);
	for (d = 0; d < nd; d++) {
		if (!st[d] && g->dims[d] != 1) {
			moved = moved || k != d;
			tp.perm[k++] = d;
			r *= g->dims[d];
		}
	}
	for (d = 0; d < nd; d++)
		if (st[d] || g->dims[d] == 1)
			tp.perm[k++] = d;
	rows.dims[0] = r;
	rows.dims[1] = hlrt_elems(nd, g->dims) / r;
	for (d = 0; d < t->ndims; d++)
		back.dims[d] = t->dims[d];
	s = HLRT_SUCCESS;
	if (moved) {
		snprintf(name, sizeof(name), "%s_t", suffix);
		s = hlrt_ad_node(ac, "transpose_f32", in, 1, &tp, sizeof(tp), name, n, &in[0]);
	}
	if (!s) {
		snprintf(name, sizeof(name), "%s_rows", suffix);
		s = hlrt_ad_node(ac, "reshape", in, 1, &rows, sizeof(rows), name, n, &in[0]);
	}
	if (!s) {
		snprintf(name, sizeof(name), "%s_sum", suffix);
		s = hlrt_ad_node(ac, "reduce_sum_f32", in, 1, &axis0, sizeof(axis0), name, n,
				 &in[0]);
	}
	if (!s)
		s = hlrt_ad_node(ac, "reshape", in, 1, &back, sizeof(back), suffix, n, out);
	return s;
}

/* Accumulate g (the result's shape) into input i's gradient, summed to its shape. */
static hlrt_status accumulate_input(struct ad_ctx *ac, const struct hlrt_node *n, uint32_t i,
				    hlrt_tensor *g, const char *suffix)
{
	hlrt_status st;

	if (!requires(ac, n->in[i]))
		return HLRT_SUCCESS;
	st = unbroadcast(ac, n, g, n->in[i], suffix, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[i], g);
}

hlrt_status hlrt_grad_add(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_status st = accumulate_input(ac, n, 0, dout(n), "dA");

	return st ? st : accumulate_input(ac, n, 1, dout(n), "dB");
}

hlrt_status hlrt_grad_sub(struct ad_ctx *ac, const struct hlrt_node *n)
{
	struct hlrt_scale_params neg = { .alpha = -1.0f };
	hlrt_tensor *in[1] = { dout(n) }, *g;
	hlrt_status st = accumulate_input(ac, n, 0, dout(n), "dA");

	if (st || !requires(ac, n->in[1]))
		return st;
	st = hlrt_ad_node(ac, "scale_f32", in, 1, &neg, sizeof(neg), "dB_neg", n, &g);
	return st ? st : accumulate_input(ac, n, 1, g, "dB");
}

hlrt_status hlrt_grad_mul(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2], *g;
	hlrt_status st;
	uint32_t i;

	for (i = 0; i < 2; i++) {
		if (!requires(ac, n->in[i]))
			continue;
		in[0] = dout(n);
		in[1] = n->in[1 - i];
		st = hlrt_ad_node(ac, "mul_f32", in, 2, NULL, 0, i ? "dB_full" : "dA_full", n, &g);
		if (!st)
			st = accumulate_input(ac, n, i, g, i ? "dB" : "dA");
		if (st)
			return st;
	}
	return HLRT_SUCCESS;
}

hlrt_status hlrt_grad_square(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2] = { dout(n), n->in[0] }, *g;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	st = hlrt_ad_node(ac, "square_bwd_f32", in, 2, NULL, 0, "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/* tanh and sigmoid: the gradient from the forward's output y. */
static hlrt_status grad_from_output(struct ad_ctx *ac, const struct hlrt_node *n,
				    const char *guid)
{
	hlrt_tensor *in[2] = { dout(n), n->out[0] }, *g;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	st = hlrt_ad_node(ac, guid, in, 2, NULL, 0, "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

hlrt_status hlrt_grad_tanh(struct ad_ctx *ac, const struct hlrt_node *n)
{
	return grad_from_output(ac, n, "tanh_bwd_f32");
}

hlrt_status hlrt_grad_sigmoid(struct ad_ctx *ac, const struct hlrt_node *n)
{
	return grad_from_output(ac, n, "sigmoid_bwd_f32");
}

/* gelu: gelu_bwd_f32 from the forward's input, in the forward's form. */
hlrt_status hlrt_grad_gelu(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2] = { dout(n), n->in[0] }, *g;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	st = hlrt_ad_node(ac, "gelu_bwd_f32", in, 2, n->params_size ? n->params : NULL,
			  n->params_size, "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/*
 * softmax along the last axis: dx = y * (dy - sum(dy * y, -1)), from the
 * forward's output y; the row sums keep their axis so that they broadcast.
 */
hlrt_status hlrt_grad_softmax(struct ad_ctx *ac, const struct hlrt_node *n)
{
	struct hlrt_reduce_params last = { .axis = -1, .keepdims = 1 };
	hlrt_tensor *in[2] = { dout(n), n->out[0] }, *p, *s, *g;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	st = hlrt_ad_node(ac, "mul_f32", in, 2, NULL, 0, "dy_y", n, &p);
	if (!st)
		st = hlrt_ad_node(ac, "reduce_sum_f32", &p, 1, &last, sizeof(last), "dy_y_sum",
				  n, &s);
	in[1] = s;
	if (!st)
		st = hlrt_ad_node(ac, "sub_f32", in, 2, NULL, 0, "dy_centered", n, &p);
	in[0] = p, in[1] = n->out[0];
	if (!st)
		st = hlrt_ad_node(ac, "mul_f32", in, 2, NULL, 0, "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/* dropout: dx = dy * mask (the forward's second output). */
hlrt_status hlrt_grad_dropout(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2] = { dout(n), n->out[1] }, *g;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	st = hlrt_ad_node(ac, "mul_f32", in, 2, NULL, 0, "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/* batchnorm_bwd_f32 from the forward's mean and invstd: dx, dgamma, dbeta. */
hlrt_status hlrt_grad_batchnorm(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[5] = { dout(n), n->in[0], n->in[1], n->out[1], n->out[2] };
	char name[HLRT_NAME_MAX];
	struct hlrt_node *b;
	uint32_t i;
	hlrt_status st;

	snprintf(name, sizeof(name), "%.40s/grad", n->name);
	st = hlrt_node_create(ac->g, "batchnorm_bwd_f32", in, 5, NULL, 0, n->params,
			      n->params_size, name, &b);
	if (st)
		return st;
	b->backward = true;
	for (i = 0; i < 3 && !st; i++)
		st = hlrt_ad_accumulate(ac, n->in[i], b->out[i]);
	return st;
}

/* pad2d: the gradient crops dy (the padding with the signs turned). */
hlrt_status hlrt_grad_pad2d(struct ad_ctx *ac, const struct hlrt_node *n)
{
	const struct hlrt_pad2d_params *p = (const void *)n->params;
	struct hlrt_pad2d_params crop = { 0 };
	hlrt_tensor *in[1] = { dout(n) }, *g;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	if (n->params_size) {
		crop.top = -p->top;
		crop.bottom = -p->bottom;
		crop.left = -p->left;
		crop.right = -p->right;
	}
	st = hlrt_ad_node(ac, "pad2d_f32", in, 1, &crop, sizeof(crop), "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/* where_bwd_f32 splits dy by cond; each part summed to its input's shape. */
hlrt_status hlrt_grad_where(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2] = { n->in[0], dout(n) };
	struct hlrt_node *bwd;
	char name[HLRT_NAME_MAX];
	hlrt_status st;

	if (!requires(ac, n->in[1]) && !requires(ac, n->in[2]))
		return HLRT_SUCCESS;
	snprintf(name, sizeof(name), "%.40s/dAB", n->name);
	st = hlrt_node_create(ac->g, "where_bwd_f32", in, 2, NULL, 0, NULL, 0, name, &bwd);
	if (st)
		return st;
	bwd->backward = true;
	st = accumulate_input(ac, n, 1, bwd->out[0], "dA");
	return st ? st : accumulate_input(ac, n, 2, bwd->out[1], "dB");
}

hlrt_status hlrt_grad_scale(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[1] = { dout(n) }, *g;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	st = hlrt_ad_node(ac, "scale_f32", in, 1, n->params, n->params_size, "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

hlrt_status hlrt_grad_bias_add(struct ad_ctx *ac, const struct hlrt_node *n)
{
	const hlrt_tensor *x = n->in[0];
	struct hlrt_reduce_params axis0 = { .axis = 0 };
	hlrt_tensor *in[1] = { dout(n) }, *g;
	hlrt_status st = hlrt_ad_accumulate(ac, n->in[0], dout(n));

	if (st || !requires(ac, n->in[1]))
		return st;
	if (x->ndims > 2) {
		struct hlrt_reshape_params rp = { .ndims = 2 };

		rp.dims[0] = hlrt_elems(x->ndims - 1, x->dims);
		rp.dims[1] = x->dims[x->ndims - 1];
		st = hlrt_ad_node(ac, "reshape", in, 1, &rp, sizeof(rp), "dy2d", n, &in[0]);
		if (st)
			return st;
	}
	st = hlrt_ad_node(ac, "reduce_sum_f32", in, 1, &axis0, sizeof(axis0), "db", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[1], g);
}

/* relu_bwd from the output (y > 0 exactly where x > 0), so x may be fused away. */
hlrt_status hlrt_grad_relu(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2] = { dout(n), n->out[0] }, *g;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	st = hlrt_ad_node(ac, "relu_bwd_f32", in, 2, NULL, 0, "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/* dx = dy repeated along the reduced axis (times 1/n for the mean), reshaped to x. */
static hlrt_status grad_reduce(struct ad_ctx *ac, const struct hlrt_node *n, bool mean)
{
	const struct hlrt_reduce_params *rp = (const void *)n->params;
	const hlrt_tensor *x = n->in[0];
	int32_t axis = n->params_size ? rp->axis : 0;
	struct hlrt_broadcast_params bp = { 0 };
	struct hlrt_reshape_params flat = { .ndims = 1 }, back = { .ndims = x->ndims };
	hlrt_tensor *in[1] = { dout(n) }, *g;
	uint32_t i;
	hlrt_status st;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	if (axis < 0)
		axis += (int32_t)x->ndims;
	bp.axis = axis == 0 ? 0 : -1;
	bp.n = x->dims[axis];
	bp.alpha = mean ? 1.0f / (float)bp.n : 1.0f;
	flat.dims[0] = hlrt_elems(x->ndims, x->dims) / bp.n;
	for (i = 0; i < x->ndims; i++)
		back.dims[i] = x->dims[i];
	/* dy as one axis, so the broadcast makes a 2-D gradient of x's size */
	st = hlrt_ad_node(ac, "reshape", in, 1, &flat, sizeof(flat), "dy1d", n, &in[0]);
	if (!st)
		st = hlrt_ad_node(ac, "broadcast_f32", in, 1, &bp, sizeof(bp), "dx2d", n, &in[0]);
	if (!st)
		st = hlrt_ad_node(ac, "reshape", in, 1, &back, sizeof(back), "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

hlrt_status hlrt_grad_reduce_sum(struct ad_ctx *ac, const struct hlrt_node *n)
{
	return grad_reduce(ac, n, false);
}

hlrt_status hlrt_grad_reduce_mean(struct ad_ctx *ac, const struct hlrt_node *n)
{
	return grad_reduce(ac, n, true);
}

hlrt_status hlrt_grad_sce(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2] = { n->in[0], n->in[1] }, *g;
	hlrt_status st;

	if (dout(n) != ac->seed)
		return hlrt_fail(HLRT_UNSUPPORTED,
				 "%s: its loss must be the loss the gradients are taken of",
				 n->guid);
	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	st = hlrt_ad_node(ac, "softmax_cross_entropy_bwd_f32", in, 2, n->params, n->params_size,
		     "dlogits", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

hlrt_status hlrt_grad_reshape(struct ad_ctx *ac, const struct hlrt_node *n)
{
	const hlrt_tensor *x = n->in[0];
	struct hlrt_reshape_params rp = { .ndims = x->ndims };
	hlrt_tensor *in[1] = { dout(n) }, *g;
	hlrt_status st;
	uint32_t i;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	for (i = 0; i < x->ndims; i++)
		rp.dims[i] = x->dims[i];
	st = hlrt_ad_node(ac, "reshape", in, 1, &rp, sizeof(rp), "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/* The gradient of a transpose is the transpose by the inverse permutation. */
hlrt_status hlrt_grad_transpose(struct ad_ctx *ac, const struct hlrt_node *n)
{
	const struct hlrt_transpose_params *p = (const void *)n->params;
	struct hlrt_transpose_params inv = { { 0 } };
	hlrt_tensor *in[1] = { dout(n) }, *g;
	hlrt_status st;
	uint32_t i;

	if (!requires(ac, n->in[0]))
		return HLRT_SUCCESS;
	for (i = 0; i < n->in[0]->ndims; i++)
		inv.perm[p->perm[i]] = i;
	st = hlrt_ad_node(ac, n->guid, in, 1, &inv, sizeof(inv), "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/* ---- drivers --------------------------------------------------------------- */

static hlrt_status backward(hlrt_graph *g, hlrt_tensor *loss, hlrt_tensor *const *params,
			    uint32_t n)
{
	struct ad_run run = { 0 };
	uint32_t n_fwd = g->n_nodes, i, j, n_tensors = g->n_tensors;
	hlrt_status st = HLRT_SUCCESS;
	float one = 1.0f;
	struct hlrt_tensor_desc sd = { .name = NULL, .dtype = HLRT_FP32, .ndims = 1,
				       .dims = { 1 }, .role = HLRT_TENSOR_CONSTANT,
				       .data = &one };

	if (!loss || loss->graph != g || loss->dtype != HLRT_FP32 ||
	    hlrt_elems(loss->ndims, loss->dims) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "the loss must be a 1-element FP32 tensor");
	run.req = calloc(n_tensors, sizeof(bool));
	if (!run.req)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "autodiff");
	run.ac.g = g;
	run.ac.n_req = n_tensors;
	for (i = 0; i < n_tensors; i++)
		g->tensors[i]->grad = NULL;
	for (i = 0; i < n; i++) {
		if (!params[i] || params[i]->graph != g || params[i]->dtype != HLRT_FP32) {
			st = hlrt_fail(HLRT_INVALID_ARGUMENT, "parameter %u: not an FP32 tensor of "
				       "the graph", i);
			goto out;
		}
		run.req[params[i]->id] = true;
	}
	/* forward: a node's outputs require a gradient when an input does */
	for (i = 0; i < n_fwd; i++) {
		struct hlrt_node *nd = g->nodes[i];
		bool r = false;

		for (j = 0; j < nd->n_in; j++)
			r = r || run.req[nd->in[j]->id];
		for (j = 0; j < nd->n_out && r; j++)
			if (nd->out[j]->dtype == HLRT_FP32)
				run.req[nd->out[j]->id] = true;
	}
	if (!run.req[loss->id]) {
		st = hlrt_fail(HLRT_INVALID_ARGUMENT, "the loss does not depend on the parameters");
		goto out;
	}
	st = hlrt_tensor_create(g, &sd, &run.ac.seed);
	if (st)
		goto out;
	loss->grad = run.ac.seed;
	for (i = n_fwd; i-- > 0;) {
		struct hlrt_node *nd = g->nodes[i];
		bool any_in = false;

		if (!nd->out[0]->grad || nd->backward)
			continue;
		for (j = 0; j < nd->n_in; j++)
			any_in = any_in || run.req[nd->in[j]->id];
		if (!any_in)
			continue;
		if (!nd->op->grad) {
			st = hlrt_fail(HLRT_UNSUPPORTED, "%s (%s) has no gradient rule", nd->name,
				       nd->guid);
			goto out;
		}
		st = nd->op->grad(&run.ac, nd);
		if (st)
			goto out;
	}
	for (i = 0; i < n; i++) {
		if (!params[i]->grad) {
			st = hlrt_fail(HLRT_INVALID_ARGUMENT, "the loss does not depend on \"%s\"",
				       params[i]->name);
			goto out;
		}
	}
out:
	free(run.req);
	return st;
}

hlrt_status hlrt_graph_gradients(hlrt_graph *graph, hlrt_tensor *loss,
				 hlrt_tensor *const *params, uint32_t n, hlrt_tensor **grads)
{
	hlrt_status st;
	uint32_t i;

	if (!graph || !params || !grads || !n)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_gradients: bad argument");
	st = backward(graph, loss, params, n);
	if (st)
		return st;
	for (i = 0; i < n; i++)
		grads[i] = params[i]->grad;
	return HLRT_SUCCESS;
}

/* ---- optimizers ------------------------------------------------------------ */

struct opt_kind {
	const char *guid, *label;
	const char *state[HLRT_OPT_STATE_MAX];	/* the suffixes hlrt.h documents */
	bool step;
};

static const struct opt_kind opt_kinds[] = {
	[HLRT_OPT_SGD] = { "optimizer_sgd_f32", "SGD", { "momentum" }, false },
	[HLRT_OPT_ADAMW] = { "optimizer_adamw_f32", "AdamW", { "m", "v" }, true },
	[HLRT_OPT_ADAGRAD] = { "optimizer_adagrad_f32", "Adagrad", { "accum" }, false },
	[HLRT_OPT_LAMB] = { "optimizer_lamb_f32", "LAMB", { "m", "v" }, true },
};

uint32_t hlrt_optimizer_state_count(const struct hlrt_optimizer_desc *opt)
{
	uint32_t n = 0;

	if (!opt || opt->kind > HLRT_OPT_LAMB)
		return 0;
	/* plain SGD keeps no momentum */
	if (opt->kind == HLRT_OPT_SGD && opt->u.sgd.momentum == 0.0f)
		return 0;
	while (n < HLRT_OPT_STATE_MAX && opt_kinds[opt->kind].state[n])
		n++;
	return n;
}

static void state_name(char *name, size_t size, const hlrt_tensor *w, const char *suffix)
{
	snprintf(name, size, "%.*s/%s", HLRT_OPT_STATE_PARAM_CHARS, w->name, suffix);
}

static hlrt_status state_tensor(hlrt_graph *g, const hlrt_tensor *w, const char *what,
				hlrt_tensor **out)
{
	char name[HLRT_NAME_MAX];

	state_name(name, sizeof(name), w, what);
	return hlrt_graph_new_tensor(g, name, HLRT_FP32, w->ndims, w->dims,
				     HLRT_TENSOR_PARAMETER, out);
}

/* One fused optimizer node updating w from grad, with its state tensors. */
static hlrt_status add_optimizer(hlrt_graph *g, const struct hlrt_optimizer_desc *opt,
				 hlrt_tensor *w, hlrt_tensor *grad, hlrt_tensor *lr,
				 hlrt_tensor *step)
{
	const struct opt_kind *k = &opt_kinds[opt->kind];
	hlrt_tensor *in[6] = { grad, w, lr, NULL, NULL, step }, *out[3] = { w, NULL, NULL };
	uint32_t n_state = hlrt_optimizer_state_count(opt), i;
	char name[HLRT_NAME_MAX];
	struct hlrt_node *nd;
	hlrt_status st = HLRT_SUCCESS;

	for (i = 0; i < n_state && !st; i++)
		st = state_tensor(g, w, k->state[i], &in[3 + i]);
	if (st)
		return st;
	out[1] = in[3];
	out[2] = in[4];
	snprintf(name, sizeof(name), "%.48s/%s", w->name, k->label);
	st = hlrt_node_create(g, k->guid, in, k->step ? 6 : 3 + n_state, out, 1 + n_state,
			      &opt->u, opt->kind == HLRT_OPT_SGD ? sizeof(opt->u.sgd) :
			      opt->kind == HLRT_OPT_ADAMW ? sizeof(opt->u.adamw) :
			      opt->kind == HLRT_OPT_ADAGRAD ? sizeof(opt->u.adagrad) :
			      sizeof(opt->u.lamb), name, &nd);
	if (!st)
		nd->backward = true;
	return st;
}

/* The node adding one to the update count, after every optimizer read it. */
static hlrt_status count_step(hlrt_graph *g, hlrt_tensor *step)
{
	int32_t one = 1;
	struct hlrt_tensor_desc d = { .dtype = HLRT_INT32, .ndims = 1, .dims = { 1 },
				      .role = HLRT_TENSOR_CONSTANT, .data = &one };
	hlrt_tensor *in[2] = { step, NULL };
	struct hlrt_node *nd;
	hlrt_status st = hlrt_tensor_create(g, &d, &in[1]);

	if (!st)
		st = hlrt_node_create(g, "add_i32", in, 2, &step, 1, NULL, 0,
				      HLRT_OPT_STEP_NAME "/Add", &nd);
	if (!st)
		nd->backward = true;
	return st;
}

hlrt_status hlrt_graph_apply_optimizer(hlrt_graph *graph,
				       const struct hlrt_optimizer_desc *optimizer,
				       hlrt_tensor *lr, hlrt_tensor *const *params,
				       hlrt_tensor *const *grads, uint32_t n)
{
	hlrt_tensor *step = NULL;
	hlrt_status st = HLRT_SUCCESS;
	uint32_t i;

	if (!graph || !optimizer || !params || !grads || !n)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_apply_optimizer: needs a graph, "
				 "an optimizer and at least one parameter with its gradient");
	if (!lr || lr->graph != graph || lr->dtype != HLRT_FP32 ||
	    hlrt_elems(lr->ndims, lr->dims) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_apply_optimizer: lr must be a "
				 "1-element FP32 tensor of the graph");
	if (optimizer->kind > HLRT_OPT_LAMB)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_apply_optimizer: unknown "
				 "optimizer kind %u", optimizer->kind);
	for (i = 0; i < n; i++) {
		const hlrt_tensor *w = params[i], *gr = grads[i];

		if (!w || w->graph != graph || w->dtype != HLRT_FP32 ||
		    w->role != HLRT_TENSOR_PARAMETER)
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_apply_optimizer: "
					 "parameter %u is not an FP32 PARAMETER tensor of the graph",
					 i);
		if (!gr || gr->graph != graph || gr->dtype != HLRT_FP32 ||
		    hlrt_elems(gr->ndims, gr->dims) != hlrt_elems(w->ndims, w->dims))
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_apply_optimizer: the "
					 "gradient of \"%s\" is not an FP32 tensor of its size",
					 w->name);
	}
	if (opt_kinds[optimizer->kind].step)
		st = hlrt_graph_new_tensor(graph, HLRT_OPT_STEP_NAME, HLRT_INT32, 1,
					   (const uint64_t[]){ 1 }, HLRT_TENSOR_PARAMETER, &step);
	for (i = 0; i < n && !st; i++)
		st = add_optimizer(graph, optimizer, params[i], grads[i], lr, step);
	if (!st && step)
		st = count_step(graph, step);
	return st;
}

hlrt_status hlrt_graph_optimizer_state(hlrt_graph *graph, const hlrt_tensor *param,
				       uint32_t slot, hlrt_tensor **state)
{
	char name[HLRT_NAME_MAX];
	size_t k;

	if (!graph || !state || (param && param->graph != graph))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_optimizer_state: needs a graph, "
				 "a parameter of it (or NULL) and somewhere to put the tensor");
	if (!param)
		return slot ? hlrt_fail(HLRT_NOT_FOUND, "the update count is slot 0") :
		       hlrt_graph_find_tensor(graph, HLRT_OPT_STEP_NAME, state);
	if (slot >= HLRT_OPT_STATE_MAX)
		return hlrt_fail(HLRT_NOT_FOUND, "no optimizer keeps state slot %u", slot);
	/* one optimizer per graph: the first kind whose state tensor exists */
	for (k = 0; k < sizeof(opt_kinds) / sizeof(opt_kinds[0]); k++) {
		if (!opt_kinds[k].state[slot])
			continue;
		state_name(name, sizeof(name), param, opt_kinds[k].state[slot]);
		if (hlrt_graph_find_tensor(graph, name, state) == HLRT_SUCCESS)
			return HLRT_SUCCESS;
	}
	return hlrt_fail(HLRT_NOT_FOUND, "\"%s\" has no optimizer state in slot %u", param->name,
			 slot);
}

hlrt_status hlrt_graph_train(hlrt_graph *graph, hlrt_tensor *loss,
			     const struct hlrt_optimizer_desc *optimizer, hlrt_tensor *lr)
{
	hlrt_tensor **params, **grads;
	uint32_t n = 0, i, n_tensors;
	hlrt_status st;

	if (!graph || !optimizer || !lr || lr->graph != graph || lr->dtype != HLRT_FP32 ||
	    hlrt_elems(lr->ndims, lr->dims) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "hlrt_graph_train: needs a graph, an optimizer and a 1-element "
				 "FP32 lr tensor");
	if (optimizer->kind > HLRT_OPT_LAMB)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_train: unknown optimizer kind %u",
				 optimizer->kind);
	n_tensors = graph->n_tensors;
	params = calloc(n_tensors ? n_tensors : 1, sizeof(*params));
	grads = calloc(n_tensors ? n_tensors : 1, sizeof(*grads));
	if (!params || !grads) {
		free(params);
		free(grads);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "hlrt_graph_train");
	}
	for (i = 0; i < n_tensors; i++)
		if (graph->tensors[i]->role == HLRT_TENSOR_PARAMETER &&
		    graph->tensors[i]->dtype == HLRT_FP32)
			params[n++] = graph->tensors[i];
	if (!n)
		st = hlrt_fail(HLRT_INVALID_ARGUMENT, "the graph has no FP32 PARAMETER tensors");
	else
		st = hlrt_graph_gradients(graph, loss, params, n, grads);
	if (!st)
		st = hlrt_graph_apply_optimizer(graph, optimizer, lr, params, grads, n);
	free(params);
	free(grads);
	return st;
}
