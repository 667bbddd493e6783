// SPDX-License-Identifier: MIT
/*
 * Kernel glue: how each op becomes engine work. A TPC op names its kernel
 * (runtime/kernels/<name>.tpcs), the index-space geometry, the tensor
 * descriptors (TPC order: dimension 0 is the contiguous one) and the
 * scalar arguments; a GEMM becomes one MME configuration; copies and
 * fills become DMA transfers. Every work records the memory it reads and
 * writes, from which the schedule derives its dependencies.
 */
#include <math.h>
#include <string.h>

#include "compile/lower/lower.h"
#include "hw/gaudisim_hw_mme.h"
#include "graph/ops.h"

#define PAD_NEG_INF	0xff800000u
#define PAD_MINUS_ONE	0xffffffffu

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/*
 * Descriptor slot of w: tensor t seen as a matrix of rows x cols
 * (cols contiguous); row_stride 0 repeats one row (a broadcast).
 */
static void tdesc(struct lower_ctx *lc, struct rwork *w, uint32_t slot, const hlrt_tensor *t,
		  uint64_t cols, uint64_t rows, uint64_t row_stride, uint32_t pad, bool write)
{
	const uint64_t size[2] = { cols, rows }, stride[2] = { 1, row_stride };

	hlrt_lower_tdesc(lc, w, slot, t, size, stride, 2, pad, write);
}

static uint32_t ceil_div(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

static uint64_t last_dim(const hlrt_tensor *t)
{
	return t->dims[t->ndims - 1];
}

static uint64_t lead_rows(const hlrt_tensor *t)
{
	return hlrt_elems(t->ndims - 1, t->dims);
}

/* The TPC kernel of a node: its GUID's name, or a shared one, or by its params. */
static const char *kernel_of(const struct hlrt_node *n)
{
	const char *guid = n->guid;

	if (!strncmp(guid, "gelu_", 5) && n->params_size &&
	    ((const struct hlrt_gelu_params *)n->params)->approximate == HLRT_GELU_TANH)
		return !strcmp(guid, "gelu_fwd_f32") ? "gelu_tanh_fwd_f32" : "gelu_tanh_bwd_f32";
	if (!strcmp(guid, "bias_add_f32"))
		return "add_f32";
	if (!strcmp(guid, "relu_fwd_f32"))
		return "relu";
	if (!strcmp(guid, "select_f32"))
		return "where_f32";
	if (!strcmp(guid, "softmax_fwd_f32"))
		return "softmax";
	return guid;
}

/*
 * Elementwise ops over operands that broadcast (NumPy rules; bias_add is
 * the case of a last-dimension vector): every operand is described with
 * the result's sizes, in TPC order (dimension 0 contiguous), with stride 0
 * along the dimensions it repeats in. Neighbouring dimensions that every
 * operand walks contiguously merge, so same-shape operands are one row.
 * T0.. are the inputs, then the outputs.
 */
hlrt_status hlrt_lower_binary(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *shape = n->out[0], *opnd[HLRT_MAX_IN + HLRT_MAX_OUT];
	uint64_t st[HLRT_MAX_IN + HLRT_MAX_OUT][HLRT_MAX_DIMS], size[HLRT_MAX_DIMS];
	uint32_t n_op = n->n_in + n->n_out, nd = shape->ndims, d, k, i;
	struct rwork *w;
	hlrt_status st_ = hlrt_lower_tpc_work(lc, kernel_of(n), &w);

	if (st_)
		return st_;
	if (n_op > 8)
		return hlrt_fail(HLRT_INTERNAL, "%s: more than 8 operands", n->guid);
	for (i = 0; i < n_op; i++) {
		uint64_t s[HLRT_MAX_DIMS];

		opnd[i] = i < n->n_in ? n->in[i] : n->out[i - n->n_in];
		hlrt_bcast_strides(opnd[i], nd, shape->dims, s);
		for (d = 0; d < nd; d++)
			st[i][d] = s[nd - 1 - d];
	}
	for (d = 0; d < nd; d++)
		size[d] = shape->dims[nd - 1 - d];
	/* merge dimension d + 1 into d where every operand allows it */
	for (d = 0; d + 1 < nd;) {
		bool merge = true;

		for (i = 0; i < n_op && merge; i++)
			merge = st[i][d + 1] == st[i][d] * size[d];
		if (!merge) {
			d++;
			continue;
		}
		size[d] *= size[d + 1];
		for (k = d + 1; k + 1 < nd; k++) {
			size[k] = size[k + 1];
			for (i = 0; i < n_op; i++)
				st[i][k] = st[i][k + 1];
		}
		nd--;
	}
	for (d = 0; d < nd; d++)
		if (size[d] > UINT32_MAX)
			return hlrt_fail(HLRT_UNSUPPORTED, "%s: a dimension over 2^32", n->guid);
	for (i = 0; i < n_op; i++)
		hlrt_lower_tdesc(lc, w, i, opnd[i], size, st[i], nd, 0, i >= n->n_in);
	w->ispace[0] = ceil_div(size[0], 4096);
	for (d = 1; d < nd; d++)
		w->ispace[d] = (uint32_t)size[d];
	return HLRT_SUCCESS;
}

static hlrt_status unary(struct lower_ctx *lc, const struct cnode *cn, const char *kernel,
			 struct rwork **out)
{
	const struct hlrt_node *n = cn->node;
	uint64_t e = hlrt_elems(n->in[0]->ndims, n->in[0]->dims);
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, kernel, &w);

	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], e, 1, e, 0, false);
	tdesc(lc, w, 1, n->out[0], e, 1, e, 0, true);
	w->ispace[0] = ceil_div(e, 4096);
	*out = w;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_unary(struct lower_ctx *lc, const struct cnode *cn)
{
	struct rwork *w;

	return unary(lc, cn, kernel_of(cn->node), &w);
}

/* gelu_fwd_f32 {x} like the unary ops, gelu_bwd_f32 {dy, x} like the binary ones. */
hlrt_status hlrt_lower_gelu(struct lower_ctx *lc, const struct cnode *cn)
{
	return cn->node->n_in == 1 ? hlrt_lower_unary(lc, cn) : hlrt_lower_binary(lc, cn);
}

hlrt_status hlrt_lower_scale(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_scale_params *p = (const void *)cn->node->params;
	struct rwork *w;
	hlrt_status st = unary(lc, cn, "scale_f32", &w);

	if (st)
		return st;
	w->n_args = 1;
	w->args[0] = f32_bits(cn->node->params_size ? p->alpha : 1.0f);
	return HLRT_SUCCESS;
}

/* y[c] = sum over rows of x[r, c] */
static hlrt_status reduce_cols(struct lower_ctx *lc, const hlrt_tensor *x, const hlrt_tensor *y,
			       uint64_t rows, uint64_t cols, bool i32, struct rwork **out)
{
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, i32 ? "reduce_cols_i32" : "reduce_cols_f32", &w);

	if (st)
		return st;
	tdesc(lc, w, 0, x, cols, rows, cols, 0, false);
	tdesc(lc, w, 1, y, cols, 1, cols, 0, true);
	w->ispace[0] = ceil_div(cols, 64);
	*out = w;
	return HLRT_SUCCESS;
}

/* y[r] = alpha * sum over i of x[r, i] */
static hlrt_status reduce_rows(struct lower_ctx *lc, const hlrt_tensor *x, const hlrt_tensor *y,
			       uint64_t rows, uint64_t cols, bool i32, float alpha)
{
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, i32 ? "reduce_rows_i32" : "reduce_rows_f32", &w);

	if (st)
		return st;
	tdesc(lc, w, 0, x, cols, rows, cols, 0, false);
	tdesc(lc, w, 1, y, 1, rows, 1, 0, true);
	w->ispace[1] = (uint32_t)rows;
	if (!i32) {
		w->n_args = 1;
		w->args[0] = f32_bits(alpha);
	}
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_reduce(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_reduce_params *p = (const void *)n->params;
	const hlrt_tensor *x = n->in[0], *y = n->out[0];
	int32_t axis = n->params_size ? p->axis : 0;
	bool mean = strstr(n->guid, "mean") != NULL, i32 = x->dtype == HLRT_INT32;
	uint64_t total = hlrt_elems(x->ndims, x->dims);
	struct rwork *w;
	hlrt_status st;

	if (axis < 0)
		axis += (int32_t)x->ndims;
	if (axis == (int32_t)x->ndims - 1)
		return reduce_rows(lc, x, y, total / last_dim(x), last_dim(x), i32,
				   mean ? 1.0f / (float)last_dim(x) : 1.0f);
	st = reduce_cols(lc, x, y, x->dims[0], total / x->dims[0], i32, &w);
	if (st || !mean)
		return st;
	/* the mean over the first axis: scale the sums in place */
	st = hlrt_lower_tpc_work(lc, "scale_f32", &w);
	if (st)
		return st;
	tdesc(lc, w, 0, y, total / x->dims[0], 1, 0, 0, false);
	tdesc(lc, w, 1, y, total / x->dims[0], 1, 0, 0, true);
	w->ispace[0] = ceil_div(total / x->dims[0], 4096);
	w->n_args = 1;
	w->args[0] = f32_bits(1.0f / (float)x->dims[0]);
	return HLRT_SUCCESS;
}

/* The scale kernel over y seen as {cols, rows}, reading x with a zero stride. */
hlrt_status hlrt_lower_broadcast(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_broadcast_params *p = (const void *)n->params;
	uint64_t e = hlrt_elems(n->in[0]->ndims, n->in[0]->dims), cols, rows;
	uint64_t xs[2], xt[2], ys[2], yt[2];
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "scale_f32", &w);

	if (st)
		return st;
	if (p->axis == 0) {		/* y[r, c] = x[c] */
		cols = e;
		rows = p->n;
		xt[0] = 1;
		xt[1] = 0;
	} else {			/* y[r, c] = x[r] */
		cols = p->n;
		rows = e;
		xt[0] = 0;
		xt[1] = 1;
	}
	xs[0] = ys[0] = cols;
	xs[1] = ys[1] = rows;
	yt[0] = 1;
	yt[1] = cols;
	hlrt_lower_tdesc(lc, w, 0, n->in[0], xs, xt, 2, 0, false);
	hlrt_lower_tdesc(lc, w, 1, n->out[0], ys, yt, 2, 0, true);
	w->ispace[0] = ceil_div(cols, 4096);
	w->ispace[1] = (uint32_t)rows;
	w->n_args = 1;
	w->args[0] = f32_bits(p->alpha != 0.0f ? p->alpha : 1.0f);
	return HLRT_SUCCESS;
}

/* softmax.tpcs and log_softmax_fwd_f32.tpcs: a member per row. */
hlrt_status hlrt_lower_softmax(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t c = last_dim(n->in[0]), rows = lead_rows(n->in[0]);
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, kernel_of(n), &w);

	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], c, rows, c, PAD_NEG_INF, false);
	tdesc(lc, w, 1, n->out[0], c, rows, c, 0, true);
	w->ispace[1] = (uint32_t)rows;
	return HLRT_SUCCESS;
}

/* A member per row of the last axis. */
hlrt_status hlrt_lower_log_softmax_bwd(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t c = last_dim(n->in[0]), rows = lead_rows(n->in[0]);
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "log_softmax_bwd_f32", &w);

	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], c, rows, c, 0, false);
	tdesc(lc, w, 1, n->in[1], c, rows, c, 0, false);
	tdesc(lc, w, 2, n->out[0], c, rows, c, 0, true);
	w->ispace[1] = (uint32_t)rows;
	return HLRT_SUCCESS;
}

static uint32_t nll_ignore(const struct hlrt_node *n)
{
	const struct hlrt_nll_params *p = (const void *)n->params;

	return n->params_size ? (uint32_t)p->ignore_index : (uint32_t)-100;
}

/* T0 = a loss node's logits [B, C] (pad -inf: a bad label reads it), T1 = its labels [B]. */
static void logits_labels(struct lower_ctx *lc, struct rwork *w, const struct hlrt_node *n)
{
	uint64_t b = n->in[0]->dims[0], c = n->in[0]->dims[1];

	tdesc(lc, w, 0, n->in[0], c, b, c, PAD_NEG_INF, false);
	tdesc(lc, w, 1, n->in[1], b, 1, b, 0, false);
}

hlrt_status hlrt_lower_nll_fwd(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t b = n->in[0]->dims[0];
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "nll_loss_fwd_f32", &w);

	if (st)
		return st;
	logits_labels(lc, w, n);
	tdesc(lc, w, 2, n->out[0], 1, b, 1, 0, true);
	tdesc(lc, w, 3, n->out[1], 1, b, 1, 0, true);
	w->ispace[1] = (uint32_t)b;
	w->n_args = 1;
	w->args[0] = nll_ignore(n);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_nll_bwd(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t b = n->out[0]->dims[0], c = n->out[0]->dims[1];
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "nll_loss_bwd_f32", &w);

	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], 1, 1, 1, 0, false);
	tdesc(lc, w, 1, n->in[1], b, 1, b, 0, false);
	tdesc(lc, w, 2, n->out[0], c, b, c, 0, true);
	w->ispace[1] = (uint32_t)b;
	w->n_args = 1;
	w->args[0] = nll_ignore(n);
	return HLRT_SUCCESS;
}

static float sce_alpha(const struct hlrt_node *n)
{
	const struct hlrt_sce_params *p = (const void *)n->params;
	bool sum = n->params_size && p->mode == HLRT_SCE_SUM;

	return sum ? 1.0f : 1.0f / (float)n->in[0]->dims[0];
}

hlrt_status hlrt_lower_sce_fwd(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t b = n->in[0]->dims[0];
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "sce_fwd_f32", &w);

	if (st)
		return st;
	logits_labels(lc, w, n);
	tdesc(lc, w, 2, n->out[1], 1, b, 1, 0, true);
	w->ispace[1] = (uint32_t)b;
	/* the batch reduction, in a fixed order on one TPC */
	return reduce_rows(lc, n->out[1], n->out[0], 1, b, false, sce_alpha(n));
}

hlrt_status hlrt_lower_sce_bwd(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t b = n->in[0]->dims[0], c = n->in[0]->dims[1];
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "sce_bwd_f32", &w);

	if (st)
		return st;
	logits_labels(lc, w, n);
	tdesc(lc, w, 2, n->out[0], c, b, c, 0, true);
	w->ispace[1] = (uint32_t)b;
	w->n_args = 1;
	w->args[0] = f32_bits(sce_alpha(n));
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_sce_fwd_bwd(struct lower_ctx *lc, const struct hlrt_node *f,
				   const struct hlrt_node *b, const struct hlrt_node *a)
{
	uint64_t rows = f->in[0]->dims[0], c = f->in[0]->dims[1];
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "sce_fwd_bwd_f32", &w);

	if (st)
		return st;
	logits_labels(lc, w, f);
	tdesc(lc, w, 2, f->out[1], 1, rows, 1, 0, true);
	tdesc(lc, w, 3, b->out[0], c, rows, c, 0, true);
	/* without an argmax the kernel never touches T4: any INT32 tensor fills the slot */
	if (a)
		tdesc(lc, w, 4, a->out[0], 1, rows, 1, 0, true);
	else
		tdesc(lc, w, 4, f->in[1], 1, rows, 1, 0, false);
	w->ispace[1] = (uint32_t)rows;
	w->n_args = 2;
	w->args[0] = f32_bits(sce_alpha(b));
	w->args[1] = a != NULL;
	return reduce_rows(lc, f->out[1], f->out[0], 1, rows, false, sce_alpha(f));
}

/* INT64 output: the kernel writes each index as two INT32 words (low, then 0). */
hlrt_status hlrt_lower_argmax(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t b = n->in[0]->dims[0], c = n->in[0]->dims[1];
	bool i64 = n->out[0]->dtype == HLRT_INT64;
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, i64 ? "argmax_i64" : "argmax_f32", &w);

	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], c, b, c, PAD_NEG_INF, false);
	tdesc(lc, w, 1, n->out[0], i64 ? 2 : 1, b, i64 ? 2 : 1, 0, true);
	w->t[1].dtype = HLRT_INT32;
	w->ispace[1] = (uint32_t)b;
	return HLRT_SUCCESS;
}

/* Rows of one 4-byte element (labels): a loop of scalar copies, the FP32 bits as INT32. */
static hlrt_status gather_elems(struct lower_ctx *lc, const struct hlrt_node *n)
{
	const hlrt_tensor *src = n->in[0], *dst = n->out[0];
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "gather_elems_i32", &w);

	if (st)
		return st;
	tdesc(lc, w, 0, src, src->dims[0], 1, 0, 0, false);
	tdesc(lc, w, 1, n->in[1], n->in[1]->dims[0], 1, 0, PAD_MINUS_ONE, false);
	tdesc(lc, w, 2, n->in[2], 1, 1, 0, 0, false);
	tdesc(lc, w, 3, dst, dst->dims[0], 1, 0, 0, true);
	w->t[0].dtype = HLRT_INT32;
	w->t[3].dtype = HLRT_INT32;
	w->ispace[0] = ceil_div(dst->dims[0], 256);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_gather(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *src = n->in[0], *dst = n->out[0];
	const uint64_t row = hlrt_elems(src->ndims - 1, src->dims + 1);
	/*
	 * Both ends at (c, r, source row): the source ignores r (stride 0),
	 * the destination the source row, so one coordinate register walks
	 * the copy (gather_rows_f32.tpcs).
	 */
	const uint64_t size[3] = { row, dst->dims[0], src->dims[0] },
		       src_stride[3] = { 1, 0, row }, dst_stride[3] = { 1, row, 0 };
	struct rwork *w;
	hlrt_status st;

	if (row == 1)
		return gather_elems(lc, n);
	st = hlrt_lower_tpc_work(lc, n->guid, &w);
	if (st)
		return st;
	hlrt_lower_tdesc(lc, w, 0, src, size, src_stride, 3, 0, false);
	tdesc(lc, w, 1, n->in[1], n->in[1]->dims[0], 1, 0, PAD_MINUS_ONE, false);
	tdesc(lc, w, 2, n->in[2], 1, 1, 0, 0, false);
	hlrt_lower_tdesc(lc, w, 3, dst, size, dst_stride, 3, 0, true);
	w->ispace[1] = (uint32_t)dst->dims[0];
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_sgd(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_sgd_params *p = (const void *)n->params;
	bool mom = n->n_in == 4;
	uint64_t e = hlrt_elems(n->in[1]->ndims, n->in[1]->dims);
	struct rwork *w;
	hlrt_status st;

	if (n->out[0] != n->in[1] || (mom && n->out[1] != n->in[3]))
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: the optimizer updates in place: outputs must be the "
				 "weights (and momentum) inputs", n->guid);
	st = hlrt_lower_tpc_work(lc, mom ? "sgd_momentum_f32" : "sgd_f32", &w);
	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], e, 1, e, 0, false);
	tdesc(lc, w, 1, n->out[0], e, 1, e, 0, true);
	tdesc(lc, w, 2, n->in[2], 1, 1, 0, 0, false);
	w->ispace[0] = ceil_div(e, 4096);
	w->n_args = mom ? 4 : 1;
	w->args[0] = f32_bits(n->params_size ? p->weight_decay : 0.0f);
	if (mom) {
		tdesc(lc, w, 3, n->out[1], e, 1, e, 0, true);
		w->args[1] = f32_bits(p->momentum);
		w->args[2] = f32_bits(1.0f - p->dampening);
		w->args[3] = p->nesterov ? 1 : 0;
	}
	return HLRT_SUCCESS;
}

/* AdamW and Adagrad: T0 = g, T1 = w, T2 = lr, T3.. = state (, T5 = step). */
hlrt_status hlrt_lower_opt_state(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	bool adam = !strcmp(n->guid, "optimizer_adamw_f32");
	uint64_t e = hlrt_elems(n->in[1]->ndims, n->in[1]->dims);
	uint32_t i, n_state = adam ? 2 : 1;
	struct rwork *w;
	hlrt_status st;

	for (i = 0; i <= n_state; i++)
		if (n->out[i] != n->in[i ? 2 + i : 1])
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "%s: the optimizer updates in place: outputs must be the "
					 "weights and state inputs", n->guid);
	st = hlrt_lower_tpc_work(lc, adam ? "adamw_f32" : "adagrad_f32", &w);
	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], e, 1, e, 0, false);
	tdesc(lc, w, 1, n->in[1], e, 1, e, 0, true);
	tdesc(lc, w, 2, n->in[2], 1, 1, 0, 0, false);
	for (i = 0; i < n_state; i++)
		tdesc(lc, w, 3 + i, n->in[3 + i], e, 1, e, 0, true);
	w->ispace[0] = ceil_div(e, 4096);
	if (adam) {
		const struct hlrt_adamw_params *p = (const void *)n->params;

		tdesc(lc, w, 5, n->in[5], 1, 1, 0, 0, false);
		w->n_args = 4;
		w->args[0] = f32_bits(p->beta1);
		w->args[1] = f32_bits(p->beta2);
		w->args[2] = f32_bits(p->eps);
		w->args[3] = f32_bits(p->weight_decay);
	} else {
		const struct hlrt_adagrad_params *p = (const void *)n->params;

		w->n_args = 2;
		w->args[0] = f32_bits(p->eps);
		w->args[1] = f32_bits(p->weight_decay);
	}
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_memcpy(struct lower_ctx *lc, const struct cnode *cn)
{
	struct rwork *w;
	hlrt_status st = hlrt_lower_new_work(lc, ENG_DMA, &w);

	if (st)
		return st;
	w->src = hlrt_lower_addr(lc, cn->node->in[0], 0);
	w->dst = hlrt_lower_addr(lc, cn->node->out[0], 0);
	w->size = hlrt_tensor_bytes(cn->node->in[0]);
	hlrt_lower_access(w, w->src, w->size, false);
	hlrt_lower_access(w, w->dst, w->size, true);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_memset(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_memset_params *p = (const void *)cn->node->params;
	uint32_t v = cn->node->params_size ? p->value : 0;
	size_t es = hlrt_dtype_size(cn->node->out[0]->dtype);
	struct rwork *w;
	hlrt_status st;

	if ((es >= 2 && (v & 0xff) != ((v >> 8) & 0xff)) ||
	    (es == 4 && (v & 0xffff) != (v >> 16)))
		return hlrt_fail(HLRT_UNSUPPORTED,
				 "memset of \"%s\": the value must repeat one byte",
				 cn->node->out[0]->name);
	st = hlrt_lower_new_work(lc, ENG_DMA, &w);
	if (st)
		return st;
	w->dst = hlrt_lower_addr(lc, cn->node->out[0], 0);
	w->size = hlrt_tensor_bytes(cn->node->out[0]);
	w->memset = 1;
	w->memset_value = v & 0xff;
	hlrt_lower_access(w, w->dst, w->size, true);
	return HLRT_SUCCESS;
}

/* ---- MME ------------------------------------------------------------------- */

struct mme_op {
	const hlrt_tensor *a, *b, *d;
	bool ta, tb;
	uint64_t lda, ldb, m, n, k;
	float alpha;
};

static hlrt_status mme(struct lower_ctx *lc, const struct mme_op *o)
{
	struct rwork *w;
	hlrt_status st = hlrt_lower_new_work(lc, ENG_MME, &w);
	uint32_t dt;

	if (st)
		return st;
	dt = o->a->dtype == HLRT_BF16 ? GAUDISIM_DTYPE_BF16 : GAUDISIM_DTYPE_FP32;
	w->a = hlrt_lower_addr(lc, o->a, 0);
	w->b = hlrt_lower_addr(lc, o->b, 0);
	w->d = hlrt_lower_addr(lc, o->d, 0);
	w->c = w->d;
	w->m = (uint32_t)o->m;
	w->n = (uint32_t)o->n;
	w->k = (uint32_t)o->k;
	w->batch = 1;
	w->lda = (uint32_t)o->lda;
	w->ldb = (uint32_t)o->ldb;
	w->ldc = w->ldd = (uint32_t)o->n;
	w->mme_dtype = GAUDISIM_MME_DTYPE_VALUE(dt, GAUDISIM_DTYPE_FP32);
	w->ctrl = (o->ta ? GAUDISIM_MME_CTRL_TRANSPOSE_A : 0) |
		  (o->tb ? GAUDISIM_MME_CTRL_TRANSPOSE_B : 0);
	w->alpha = f32_bits(o->alpha);
	w->beta = 0;
	hlrt_lower_access(w, w->a, hlrt_tensor_bytes(o->a), false);
	hlrt_lower_access(w, w->b, hlrt_tensor_bytes(o->b), false);
	hlrt_lower_access(w, w->d, hlrt_tensor_bytes(o->d), true);
	return HLRT_SUCCESS;
}

static float gemm_alpha(const struct hlrt_node *n)
{
	const struct hlrt_gemm_params *p = (const void *)n->params;

	return n->params_size && p->alpha != 0.0f ? p->alpha : 1.0f;
}

static void gemm_flags(const struct hlrt_node *n, bool *ta, bool *tb)
{
	const struct hlrt_gemm_params *p = (const void *)n->params;

	*ta = n->params_size && p->transpose_a;
	*tb = n->params_size && p->transpose_b;
}

/* C = op(A) op(B) */
hlrt_status hlrt_lower_gemm(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *a = n->in[0], *b = n->in[1];
	struct mme_op o = { .a = a, .b = b, .d = n->out[0], .alpha = gemm_alpha(n) };

	gemm_flags(n, &o.ta, &o.tb);
	o.lda = last_dim(a);
	o.ldb = last_dim(b);
	o.m = o.ta ? last_dim(a) : lead_rows(a);
	o.k = o.ta ? lead_rows(a) : last_dim(a);
	o.n = o.tb ? b->dims[0] : last_dim(b);
	return mme(lc, &o);
}

/* b GEMMs: one MME launch with batch strides. */
hlrt_status hlrt_lower_batch_gemm(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *a = n->in[0], *b = n->in[1];
	struct mme_op o = { .a = a, .b = b, .d = n->out[0], .alpha = gemm_alpha(n) };
	struct rwork *w;
	hlrt_status st;

	gemm_flags(n, &o.ta, &o.tb);
	o.m = a->dims[o.ta ? 2 : 1];
	o.k = a->dims[o.ta ? 1 : 2];
	o.n = b->dims[o.tb ? 1 : 2];
	o.lda = a->dims[2];
	o.ldb = b->dims[2];
	st = mme(lc, &o);
	if (st)
		return st;
	w = &lc->cs->r->works[lc->cs->r->n_works - 1];
	w->batch = (uint32_t)a->dims[0];
	w->sa = o.m * o.k;
	w->sb = o.k * o.n;
	w->sc = w->sd = o.m * o.n;
	return HLRT_SUCCESS;
}

/* dA for C = op(A) op(B): dop(A) = dC op(B)^T, transposed back when A was. */
hlrt_status hlrt_lower_gemm_dedx(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *dc = n->in[0], *b = n->in[1];
	uint64_t m = lead_rows(dc), nn = last_dim(dc), k = n->out[0]->dims[n->out[0]->ndims - 1];
	struct mme_op o = { .d = n->out[0], .alpha = gemm_alpha(n) };
	bool ta, tb;

	gemm_flags(n, &ta, &tb);
	k = tb ? last_dim(b) : b->dims[0];
	if (!ta) {		/* dA[M,K] = dC op(B)^T */
		o.a = dc;
		o.lda = nn;
		o.b = b;
		o.tb = !tb;
		o.ldb = last_dim(b);
		o.m = m;
		o.n = k;
		o.k = nn;
	} else {		/* dA[K,M] = op(B) dC^T */
		o.a = b;
		o.ta = tb;
		o.lda = last_dim(b);
		o.b = dc;
		o.tb = true;
		o.ldb = nn;
		o.m = k;
		o.n = m;
		o.k = nn;
	}
	return mme(lc, &o);
}

/* dB for C = op(A) op(B): dop(B) = op(A)^T dC, transposed back when B was. */
hlrt_status hlrt_lower_gemm_dedw(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *dc = n->in[0], *a = n->in[1];
	uint64_t nn = last_dim(dc), m = lead_rows(dc), k;
	struct mme_op o = { .d = n->out[0], .alpha = gemm_alpha(n) };
	bool ta, tb;

	gemm_flags(n, &ta, &tb);
	k = ta ? lead_rows(a) : last_dim(a);
	if (!tb) {		/* dB[K,N] = op(A)^T dC */
		o.a = a;
		o.ta = !ta;
		o.lda = last_dim(a);
		o.b = dc;
		o.ldb = nn;
		o.m = k;
		o.n = nn;
		o.k = m;
	} else {		/* dB[N,K] = dC^T op(A) */
		o.a = dc;
		o.ta = true;
		o.lda = nn;
		o.b = a;
		o.tb = ta;
		o.ldb = last_dim(a);
		o.m = nn;
		o.n = k;
		o.k = m;
	}
	return mme(lc, &o);
}

/*
 * transpose: a copy on the TPC in y's order; x's descriptor takes y's
 * sizes with x's strides of the permuted dimensions (TPC dim 0 is the
 * innermost, row-major's last).
 */
hlrt_status hlrt_lower_transpose(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_transpose_params *p = (const void *)n->params;
	const hlrt_tensor *x = n->in[0], *y = n->out[0];
	uint64_t xstride[HLRT_MAX_DIMS], size[5], sx[5], sy[5], acc = 1;
	uint32_t nd = x->ndims, d;
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, hlrt_op_dtype(n) == HLRT_BF16 ? "transpose_bf16" :
								  "transpose_f32", &w);

	if (st)
		return st;
	for (d = nd; d-- > 0;) {
		xstride[d] = acc;
		acc *= x->dims[d];
	}
	acc = 1;
	for (d = 0; d < nd; d++) {
		uint32_t axis = nd - 1 - d;	/* y's axis of TPC dim d */

		size[d] = y->dims[axis];
		sy[d] = acc;
		sx[d] = xstride[p->perm[axis]];
		acc *= y->dims[axis];
	}
	hlrt_lower_tdesc(lc, w, 0, x, size, sx, nd, 0, false);
	hlrt_lower_tdesc(lc, w, 1, y, size, sy, nd, 0, true);
	w->ispace[0] = ceil_div(size[0], 64);
	for (d = 1; d < 5; d++)
		w->ispace[d] = d < nd ? (uint32_t)size[d] : 1;
	return HLRT_SUCCESS;
}
