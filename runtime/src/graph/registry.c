// SPDX-License-Identifier: MIT
/*
 * The op registry: every GUID with its engine, signature, shape rule,
 * lowering, gradient rule and host implementation. docs/ops.md is
 * generated from this table (runtime/tools/gen-ops-doc.c).
 */
#include <stdio.h>
#include <string.h>

#include "graph/graph_internal.h"
#include "graph/ops.h"

/* ---- shape rules ----------------------------------------------------------- */

static void desc_like(struct hlrt_tensor_desc *d, const hlrt_tensor *t, hlrt_dtype dtype)
{
	uint32_t i;

	d->dtype = dtype;
	d->ndims = t->ndims;
	for (i = 0; i < HLRT_MAX_DIMS; i++)
		d->dims[i] = t->dims[i];
}

static hlrt_status want_dtype(const struct hlrt_node *n, uint32_t i, hlrt_dtype dt)
{
	if (n->in[i]->dtype != dt)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: input %u \"%s\" is %s, not %s",
				 n->guid, i, n->in[i]->name, hlrt_dtype_suffix(n->in[i]->dtype),
				 hlrt_dtype_suffix(dt));
	return HLRT_SUCCESS;
}

static bool shapes_equal(const hlrt_tensor *a, const hlrt_tensor *b)
{
	uint32_t i;

	if (a->ndims != b->ndims)
		return false;
	for (i = 0; i < a->ndims; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return true;
}

static hlrt_status shape_mismatch(const struct hlrt_node *n, uint32_t a, uint32_t b)
{
	return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: inputs \"%s\" and \"%s\" differ in shape",
			 n->guid, n->in[a]->name, n->in[b]->name);
}

/* The dtype a GUID names in its suffix. */
hlrt_dtype hlrt_op_dtype(const struct hlrt_node *n)
{
	return (hlrt_dtype)n->op->dtype;
}

/* {a, b} -> {c}: same shapes and dtype. */
static hlrt_status infer_binary(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = want_dtype(n, 0, hlrt_op_dtype(n));

	if (!st)
		st = want_dtype(n, 1, hlrt_op_dtype(n));
	if (st)
		return st;
	if (!shapes_equal(n->in[0], n->in[1]))
		return shape_mismatch(n, 0, 1);
	desc_like(&o[0], n->in[0], hlrt_op_dtype(n));
	return HLRT_SUCCESS;
}

static void shape_text(char *buf, size_t len, const hlrt_tensor *t)
{
	size_t k = (size_t)snprintf(buf, len, "[");
	uint32_t i;

	for (i = 0; i < t->ndims && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, i ? ",%llu" : "%llu",
				      (unsigned long long)t->dims[i]);
	if (k < len)
		snprintf(buf + k, len - k, "]");
}

/* Inputs first..n_in-1 broadcast (NumPy rules) to o's shape; dtype dt. */
static hlrt_status bcast_out(struct hlrt_node *n, uint32_t first, struct hlrt_tensor_desc *o,
			     hlrt_dtype dt)
{
	char sa[96], sb[96];
	uint32_t i, j, nd;
	uint64_t dims[HLRT_MAX_DIMS];

	if (hlrt_bcast_shape((const hlrt_tensor *const *)n->in + first, n->n_in - first,
			     &o[0].ndims, o[0].dims)) {
		o[0].dtype = dt;
		return HLRT_SUCCESS;
	}
	for (i = first; i < n->n_in; i++) {
		for (j = i + 1; j < n->n_in; j++) {
			const hlrt_tensor *pair[2] = { n->in[i], n->in[j] };

			if (hlrt_bcast_shape(pair, 2, &nd, dims))
				continue;
			shape_text(sa, sizeof(sa), pair[0]);
			shape_text(sb, sizeof(sb), pair[1]);
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "%s: inputs \"%s\" %s and \"%s\" %s do not broadcast",
					 n->guid, pair[0]->name, sa, pair[1]->name, sb);
		}
	}
	return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: inputs do not broadcast", n->guid);
}

/* {a, b} -> {c}: the GUID's dtype, shapes broadcast. */
static hlrt_status infer_bcast_binary(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = want_dtype(n, 0, hlrt_op_dtype(n));

	if (!st)
		st = want_dtype(n, 1, hlrt_op_dtype(n));
	return st ? st : bcast_out(n, 0, o, hlrt_op_dtype(n));
}

/* Comparisons: {a, b} -> {c i32}, shapes broadcast. */
static hlrt_status infer_equal(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = infer_bcast_binary(n, o);

	if (!st)
		o[0].dtype = HLRT_INT32;
	return st;
}

/* {cond i32, a, b} -> {c}: the three broadcast. */
static hlrt_status infer_where(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = want_dtype(n, 0, HLRT_INT32);

	if (!st)
		st = want_dtype(n, 1, hlrt_op_dtype(n));
	if (!st)
		st = want_dtype(n, 2, hlrt_op_dtype(n));
	return st ? st : bcast_out(n, 0, o, hlrt_op_dtype(n));
}

/* {cond i32, dy} -> {da, db}: cond broadcasts to dy's shape. */
static hlrt_status infer_where_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = want_dtype(n, 0, HLRT_INT32);

	if (!st)
		st = want_dtype(n, 1, hlrt_op_dtype(n));
	if (!st)
		st = bcast_out(n, 0, o, hlrt_op_dtype(n));
	if (st)
		return st;
	if (o[0].ndims != n->in[1]->ndims ||
	    hlrt_elems(o[0].ndims, o[0].dims) != hlrt_elems(n->in[1]->ndims, n->in[1]->dims))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: cond \"%s\" must broadcast to dy's shape",
				 n->guid, n->in[0]->name);
	o[1] = o[0];
	return HLRT_SUCCESS;
}

/* {x} -> {y}: same shape and dtype. */
static hlrt_status infer_unary(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = want_dtype(n, 0, hlrt_op_dtype(n));

	if (st)
		return st;
	desc_like(&o[0], n->in[0], hlrt_op_dtype(n));
	return HLRT_SUCCESS;
}

static hlrt_status check_gelu(const struct hlrt_node *n)
{
	const struct hlrt_gelu_params *p = (const void *)n->params;

	if (n->params_size && p->approximate > HLRT_GELU_TANH)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: unknown approximate %u", n->guid,
				 p->approximate);
	return HLRT_SUCCESS;
}

/* gelu_fwd_f32 {x} -> {y} */
static hlrt_status infer_gelu(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = check_gelu(n);

	return st ? st : infer_unary(n, o);
}

/* gelu_bwd_f32 {dy, x} -> {dx} */
static hlrt_status infer_gelu_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = check_gelu(n);

	return st ? st : infer_binary(n, o);
}

static hlrt_status infer_cast(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = want_dtype(n, 0, (hlrt_dtype)n->op->from);

	if (st)
		return st;
	desc_like(&o[0], n->in[0], hlrt_op_dtype(n));
	return HLRT_SUCCESS;
}

static hlrt_status infer_bias_add(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const hlrt_tensor *x = n->in[0], *b = n->in[1];
	hlrt_status st = want_dtype(n, 0, hlrt_op_dtype(n));

	if (!st)
		st = want_dtype(n, 1, hlrt_op_dtype(n));
	if (st)
		return st;
	if (b->ndims != 1 || b->dims[0] != x->dims[x->ndims - 1])
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: bias \"%s\" must be 1-D of the last dimension of \"%s\" (%llu)",
				 n->guid, b->name, x->name,
				 (unsigned long long)x->dims[x->ndims - 1]);
	desc_like(&o[0], x, hlrt_op_dtype(n));
	return HLRT_SUCCESS;
}

/* Rows and columns of a matrix operand: leading dimensions fold into rows. */
static void as_matrix(const hlrt_tensor *t, uint64_t *rows, uint64_t *cols)
{
	*cols = t->dims[t->ndims - 1];
	*rows = hlrt_elems(t->ndims - 1, t->dims);
}

static const struct hlrt_gemm_params *gemm_params(const struct hlrt_node *n)
{
	static const struct hlrt_gemm_params plain;

	return n->params_size ? (const struct hlrt_gemm_params *)n->params : &plain;
}

static hlrt_status infer_gemm(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_gemm_params *p = gemm_params(n);
	uint64_t ar, ac, br, bc, m, ka, kb, nn;
	hlrt_status st = want_dtype(n, 0, hlrt_op_dtype(n));

	if (!st)
		st = want_dtype(n, 1, hlrt_op_dtype(n));
	if (st)
		return st;
	if (n->in[1]->ndims != 2 || (p->transpose_a && n->in[0]->ndims != 2))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: B must be 2-D (and A, if transposed)",
				 n->guid);
	as_matrix(n->in[0], &ar, &ac);
	as_matrix(n->in[1], &br, &bc);
	m = p->transpose_a ? ac : ar;
	ka = p->transpose_a ? ar : ac;
	kb = p->transpose_b ? bc : br;
	nn = p->transpose_b ? br : bc;
	if (ka != kb)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: inner dimensions differ: \"%s\" gives %llu, \"%s\" %llu",
				 n->guid, n->in[0]->name, (unsigned long long)ka, n->in[1]->name,
				 (unsigned long long)kb);
	o[0].dtype = HLRT_FP32;
	if (p->transpose_a) {
		o[0].ndims = 2;
		o[0].dims[0] = m;
	} else {
		desc_like(&o[0], n->in[0], HLRT_FP32);
	}
	o[0].dims[o[0].ndims - 1] = nn;
	if (hlrt_op_dtype(n) == HLRT_BF16)
		o[0].dtype = HLRT_FP32;	/* FP32 accumulation and output */
	return HLRT_SUCCESS;
}

/* {dC[M,N], B} -> {dA}: the shape of the forward A. */
static hlrt_status infer_gemm_dedx(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_gemm_params *p = gemm_params(n);
	uint64_t cr, cc, br, bc, k, nn;

	if (want_dtype(n, 0, hlrt_op_dtype(n)) || want_dtype(n, 1, hlrt_op_dtype(n)))
		return HLRT_INVALID_ARGUMENT;
	if (n->in[1]->ndims != 2)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: B must be 2-D", n->guid);
	as_matrix(n->in[0], &cr, &cc);
	as_matrix(n->in[1], &br, &bc);
	k = p->transpose_b ? bc : br;
	nn = p->transpose_b ? br : bc;
	if (nn != cc)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: dC has %llu columns, B gives N = %llu",
				 n->guid, (unsigned long long)cc, (unsigned long long)nn);
	o[0].dtype = HLRT_FP32;
	if (p->transpose_a) {
		o[0].ndims = 2;
		o[0].dims[0] = k;
		o[0].dims[1] = cr;
	} else {
		desc_like(&o[0], n->in[0], HLRT_FP32);
		o[0].dims[o[0].ndims - 1] = k;
	}
	return HLRT_SUCCESS;
}

/* {dC[M,N], A} -> {dB}: the shape of the forward B. */
static hlrt_status infer_gemm_dedw(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_gemm_params *p = gemm_params(n);
	uint64_t cr, cc, ar, ac, m, k;

	if (want_dtype(n, 0, hlrt_op_dtype(n)) || want_dtype(n, 1, hlrt_op_dtype(n)))
		return HLRT_INVALID_ARGUMENT;
	as_matrix(n->in[0], &cr, &cc);
	as_matrix(n->in[1], &ar, &ac);
	m = p->transpose_a ? ac : ar;
	k = p->transpose_a ? ar : ac;
	if (m != cr)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: dC has %llu rows, A gives M = %llu",
				 n->guid, (unsigned long long)cr, (unsigned long long)m);
	o[0].dtype = HLRT_FP32;
	o[0].ndims = 2;
	o[0].dims[0] = p->transpose_b ? cc : k;
	o[0].dims[1] = p->transpose_b ? k : cc;
	return HLRT_SUCCESS;
}

static int32_t norm_axis(const hlrt_tensor *t, int32_t axis)
{
	return axis < 0 ? axis + (int32_t)t->ndims : axis;
}

static hlrt_status infer_reduce(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_reduce_params *p = (const void *)n->params;
	const hlrt_tensor *x = n->in[0];
	int32_t axis = n->params_size ? norm_axis(x, p->axis) : 0;
	uint32_t i, k = 0;
	hlrt_status st = want_dtype(n, 0, hlrt_op_dtype(n));

	if (st)
		return st;
	if (axis < 0 || axis >= (int32_t)x->ndims)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: axis %d outside 0..%u", n->guid,
				 n->params_size ? p->axis : 0, x->ndims - 1);
	if (axis != 0 && axis != (int32_t)x->ndims - 1)
		return hlrt_fail(HLRT_UNSUPPORTED,
				 "%s: only the first or the last axis can be reduced", n->guid);
	o[0].dtype = hlrt_op_dtype(n);
	for (i = 0; i < x->ndims; i++) {
		if ((int32_t)i == axis) {
			if (n->params_size && p->keepdims)
				o[0].dims[k++] = 1;
			continue;
		}
		o[0].dims[k++] = x->dims[i];
	}
	if (!k)
		o[0].dims[k++] = 1;
	o[0].ndims = k;
	return HLRT_SUCCESS;
}

static const struct hlrt_broadcast_params *bcast_params(const struct hlrt_node *n)
{
	return (const struct hlrt_broadcast_params *)n->params;
}

static hlrt_status infer_broadcast(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_broadcast_params *p = bcast_params(n);
	const hlrt_tensor *x = n->in[0];
	uint32_t i;

	if (want_dtype(n, 0, HLRT_FP32))
		return HLRT_INVALID_ARGUMENT;
	if (!n->params_size || !p->n || (p->axis != 0 && p->axis != -1) ||
	    x->ndims >= HLRT_MAX_DIMS)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: axis 0 or -1, n >= 1, at most 4 dims",
				 n->guid);
	o[0].dtype = HLRT_FP32;
	o[0].ndims = x->ndims + 1;
	for (i = 0; i < x->ndims; i++)
		o[0].dims[p->axis == 0 ? i + 1 : i] = x->dims[i];
	o[0].dims[p->axis == 0 ? 0 : x->ndims] = p->n;
	return HLRT_SUCCESS;
}

/* {x[..., C]} -> {y}: along the last axis. */
static hlrt_status infer_softmax(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	return infer_unary(n, o);
}

/* {A[b,M,K], B[b,K,N]} -> {C[b,M,N]} */
/* op(A) [b,M,K] op(B) [b,K,N]; a transposed operand is stored [b,K,M] or [b,N,K]. */
static hlrt_status infer_batch_gemm(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_gemm_params *p = gemm_params(n);
	const hlrt_tensor *a = n->in[0], *b = n->in[1];

	if (want_dtype(n, 0, hlrt_op_dtype(n)) || want_dtype(n, 1, hlrt_op_dtype(n)))
		return HLRT_INVALID_ARGUMENT;
	if (a->ndims != 3 || b->ndims != 3 || a->dims[0] != b->dims[0] ||
	    a->dims[p->transpose_a ? 1 : 2] != b->dims[p->transpose_b ? 2 : 1])
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: op(A) must be [b,M,K] and op(B) [b,K,N] (same b and K)",
				 n->guid);
	o[0].dtype = HLRT_FP32;
	o[0].ndims = 3;
	o[0].dims[0] = a->dims[0];
	o[0].dims[1] = a->dims[p->transpose_a ? 2 : 1];
	o[0].dims[2] = b->dims[p->transpose_b ? 1 : 2];
	return HLRT_SUCCESS;
}

static hlrt_status check_logits_labels(const struct hlrt_node *n)
{
	const hlrt_tensor *x = n->in[0], *l = n->in[1];

	if (want_dtype(n, 0, HLRT_FP32) || want_dtype(n, 1, HLRT_INT32))
		return HLRT_INVALID_ARGUMENT;
	if (x->ndims != 2 || l->ndims != 1 || l->dims[0] != x->dims[0])
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: logits must be [B, C] and labels [B] (got \"%s\" %u-D, \"%s\" %u-D)",
				 n->guid, x->name, x->ndims, l->name, l->ndims);
	return HLRT_SUCCESS;
}

static hlrt_status check_sce_params(const struct hlrt_node *n)
{
	const struct hlrt_sce_params *p = (const void *)n->params;

	if (n->params_size && p->mode > HLRT_SCE_SUM)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: unknown mode %u", n->guid, p->mode);
	return HLRT_SUCCESS;
}

/* {logits[B,C], labels[B]} -> {loss[1], row_loss[B]} */
static hlrt_status infer_sce_fwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = check_logits_labels(n);

	if (!st)
		st = check_sce_params(n);
	if (st)
		return st;
	o[0].dtype = HLRT_FP32;
	o[0].ndims = 1;
	o[0].dims[0] = 1;
	o[1].dtype = HLRT_FP32;
	o[1].ndims = 1;
	o[1].dims[0] = n->in[0]->dims[0];
	return HLRT_SUCCESS;
}

static hlrt_status infer_sce_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = check_logits_labels(n);

	if (!st)
		st = check_sce_params(n);
	if (st)
		return st;
	desc_like(&o[0], n->in[0], HLRT_FP32);
	return HLRT_SUCCESS;
}

static hlrt_status check_nll_labels(const struct hlrt_node *n, const hlrt_tensor *l)
{
	if (want_dtype(n, 1, HLRT_INT32))
		return HLRT_INVALID_ARGUMENT;
	if (l->ndims != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: labels \"%s\" must be [B]", n->guid,
				 l->name);
	return HLRT_SUCCESS;
}

/* {logp[B,C], labels[B]} -> {loss[B], weight[B]} */
static hlrt_status infer_nll_fwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = check_logits_labels(n);

	if (st)
		return st;
	o[0].dtype = o[1].dtype = HLRT_FP32;
	o[0].ndims = o[1].ndims = 1;
	o[0].dims[0] = o[1].dims[0] = n->in[0]->dims[0];
	return HLRT_SUCCESS;
}

/* {s[1], labels[B]} -> {dx[B, classes]} */
static hlrt_status infer_nll_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_nll_params *p = (const void *)n->params;
	hlrt_status st = want_dtype(n, 0, HLRT_FP32);

	if (!st)
		st = check_nll_labels(n, n->in[1]);
	if (st)
		return st;
	if (hlrt_elems(n->in[0]->ndims, n->in[0]->dims) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: \"%s\" must have one element",
				 n->guid, n->in[0]->name);
	if (!n->params_size || !p->classes)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: hlrt_nll_params.classes is 0",
				 n->guid);
	o[0].dtype = HLRT_FP32;
	o[0].ndims = 2;
	o[0].dims[0] = n->in[1]->dims[0];
	o[0].dims[1] = p->classes;
	return HLRT_SUCCESS;
}

/* {dy, y} -> {dx}: same shapes, per row of the last axis. */
static hlrt_status infer_log_softmax_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	return infer_binary(n, o);
}

static hlrt_status infer_argmax(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_argmax_params *p = (const void *)n->params;
	const hlrt_tensor *x = n->in[0];

	if (want_dtype(n, 0, HLRT_FP32))
		return HLRT_INVALID_ARGUMENT;
	if (x->ndims != 2)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: input must be [B, C]", n->guid);
	if (n->params_size && norm_axis(x, p->axis) != 1)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: only the last axis", n->guid);
	o[0].dtype = hlrt_op_dtype(n);
	o[0].ndims = 1;
	o[0].dims[0] = x->dims[0];
	return HLRT_SUCCESS;
}

static hlrt_status infer_gather(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const hlrt_tensor *src = n->in[0], *idx = n->in[1], *off = n->in[2];
	const struct hlrt_reshape_params *p = (const void *)n->params;
	uint64_t rows;

	if (want_dtype(n, 0, hlrt_op_dtype(n)) || want_dtype(n, 1, HLRT_INT32) ||
	    want_dtype(n, 2, HLRT_INT32))
		return HLRT_INVALID_ARGUMENT;
	if (idx->ndims != 1 || hlrt_elems(off->ndims, off->dims) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: index must be 1-D and offset a 1-element tensor", n->guid);
	/* the batch: params dims[0] if given, else the whole index */
	rows = n->params_size && p->ndims ? p->dims[0] : idx->dims[0];
	desc_like(&o[0], src, hlrt_op_dtype(n));
	o[0].dims[0] = rows;
	return HLRT_SUCCESS;
}

static const struct hlrt_sgd_params *sgd_params(const struct hlrt_node *n)
{
	static const struct hlrt_sgd_params plain;

	return n->params_size ? (const void *)n->params : &plain;
}

/* {grad, weights, lr (, momentum)} -> {weights (, momentum)} */
static hlrt_status infer_sgd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_sgd_params *p = sgd_params(n);
	hlrt_status st = infer_binary(n, o);
	bool mom = p->momentum != 0.0f;

	if (st)
		return st;
	if (want_dtype(n, 2, HLRT_FP32))
		return HLRT_INVALID_ARGUMENT;
	if (hlrt_elems(n->in[2]->ndims, n->in[2]->dims) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: lr must have 1 element", n->guid);
	if (mom != (n->n_in == 4))
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: a momentum tensor goes with momentum != 0, and only then",
				 n->guid);
	if (mom && !shapes_equal(n->in[3], n->in[1]))
		return shape_mismatch(n, 1, 3);
	if (p->nesterov && !mom)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: nesterov needs momentum", n->guid);
	n->n_out = mom ? 2 : 1;
	if (mom)
		desc_like(&o[1], n->in[3], HLRT_FP32);
	return HLRT_SUCCESS;
}

/* Optimizers beyond SGD: {grad, weights, lr, state...} -> {weights, state...} in place. */
static hlrt_status infer_opt_state(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	bool adam = !strcmp(n->op->guid, "optimizer_adamw_f32");
	uint32_t n_state = adam ? 2 : 1, i;
	hlrt_status st = infer_binary(n, o);

	if (st)
		return st;
	if (want_dtype(n, 2, HLRT_FP32) || hlrt_elems(n->in[2]->ndims, n->in[2]->dims) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: lr must be 1 FP32 element", n->guid);
	for (i = 0; i < n_state; i++) {
		if (want_dtype(n, 3 + i, HLRT_FP32))
			return HLRT_INVALID_ARGUMENT;
		if (!shapes_equal(n->in[3 + i], n->in[1]))
			return shape_mismatch(n, 1, 3 + i);
		desc_like(&o[1 + i], n->in[3 + i], HLRT_FP32);
	}
	if (adam && (want_dtype(n, 5, HLRT_INT32) || hlrt_elems(n->in[5]->ndims, n->in[5]->dims) != 1))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: step must be 1 INT32 element", n->guid);
	if (adam) {
		const struct hlrt_adamw_params *p = (const void *)n->params;

		/* No silent defaults: a zeroed struct would mean beta2 = eps = 0. */
		if (!(p->beta1 >= 0 && p->beta1 < 1) || !(p->beta2 > 0 && p->beta2 < 1) ||
		    !(p->eps > 0) || !(p->weight_decay >= 0))
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "%s: beta1 %g must be in [0, 1), beta2 %g in (0, 1), eps %g "
					 "> 0 and weight_decay %g >= 0 (Keras: 0.9, 0.999, 1e-7)",
					 n->guid, p->beta1, p->beta2, p->eps, p->weight_decay);
	}
	n->n_out = 1 + n_state;
	return HLRT_SUCCESS;
}

static hlrt_status infer_memcpy(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	desc_like(&o[0], n->in[0], n->in[0]->dtype);
	return HLRT_SUCCESS;
}

/* memset {} -> {y}: the output must be given (its shape is the caller's). */
static hlrt_status infer_memset(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	(void)o;
	return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: create it with hlrt_graph_memset()",
			 n->guid);
}

static hlrt_status infer_reshape(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_reshape_params *p = (const void *)n->params;
	const hlrt_tensor *x = n->in[0];
	uint32_t i;

	o[0].dtype = x->dtype;
	if (!strcmp(n->op->guid, "flatten")) {
		o[0].ndims = 2;
		o[0].dims[0] = x->dims[0];
		o[0].dims[1] = x->ndims > 1 ? hlrt_elems(x->ndims - 1, x->dims + 1) : 1;
		return HLRT_SUCCESS;
	}
	if (!n->params_size || !p->ndims || p->ndims > HLRT_MAX_DIMS)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "reshape: give 1..5 dims");
	o[0].ndims = p->ndims;
	for (i = 0; i < p->ndims; i++)
		o[0].dims[i] = p->dims[i];
	if (hlrt_elems(p->ndims, p->dims) != hlrt_elems(x->ndims, x->dims))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "reshape of \"%s\": element counts differ",
				 x->name);
	return HLRT_SUCCESS;
}

/* transpose: y.dims[i] = x.dims[perm[i]]; perm a permutation of 0..ndims-1. */
static hlrt_status infer_transpose(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_transpose_params *p = (const void *)n->params;
	const hlrt_tensor *x = n->in[0];
	hlrt_status st = want_dtype(n, 0, hlrt_op_dtype(n));
	uint32_t i, seen = 0;

	if (st)
		return st;
	if (!n->params_size)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: give the permutation", n->guid);
	for (i = 0; i < x->ndims; i++) {
		if (p->perm[i] >= x->ndims || (seen & (1u << p->perm[i])))
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "%s of \"%s\": perm is not a permutation of 0..%u",
					 n->guid, x->name, x->ndims - 1);
		seen |= 1u << p->perm[i];
		o[0].dims[i] = x->dims[p->perm[i]];
	}
	if (hlrt_elems(x->ndims, x->dims) > UINT32_MAX)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s of \"%s\": over 2^32 elements", n->guid,
				 x->name);
	o[0].dtype = x->dtype;
	o[0].ndims = x->ndims;
	return HLRT_SUCCESS;
}

/* ---- the table ------------------------------------------------------------- */

#define F32 HLRT_FP32
#define BF16 HLRT_BF16
#define I32 HLRT_INT32
#define I64 HLRT_INT64
#define U8 HLRT_UINT8
#define NONE (-1)

#define P(type) sizeof(struct type)

static const struct op_def ops[] = {
	{ .guid = "gemm_f32", .op_class = "MatMul", .engine = ENG_MME,
	  .signature = "{A[M,K], B[K,N]} -> {C[M,N]}",
	  .summary = "C = alpha * op(A) op(B); leading dims of A fold into M",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_gemm_params),
	  .infer = infer_gemm, .lower = hlrt_lower_gemm, .grad = hlrt_grad_gemm, .dtype = F32,
	  .from = NONE },
	{ .guid = "gemm_bf16", .op_class = "MatMul", .engine = ENG_MME,
	  .signature = "{A[M,K], B[K,N]} -> {C[M,N] f32}",
	  .summary = "BF16 inputs, FP32 accumulation and output",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_gemm_params),
	  .infer = infer_gemm, .lower = hlrt_lower_gemm, .dtype = BF16, .from = NONE },
	{ .guid = "gemm_dedx_f32", .op_class = "MatMulGradA", .engine = ENG_MME,
	  .signature = "{dC[M,N], B[K,N]} -> {dA[M,K]}",
	  .summary = "dA = dC B^T (the gradient of gemm for A)",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_gemm_params),
	  .infer = infer_gemm_dedx, .lower = hlrt_lower_gemm_dedx, .dtype = F32, .from = NONE },
	{ .guid = "gemm_dedw_f32", .op_class = "MatMulGradB", .engine = ENG_MME,
	  .signature = "{dC[M,N], A[M,K]} -> {dB[K,N]}",
	  .summary = "dB = A^T dC (the gradient of gemm for B)",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_gemm_params),
	  .infer = infer_gemm_dedw, .lower = hlrt_lower_gemm_dedw, .dtype = F32, .from = NONE },
	{ .guid = "batch_gemm_f32", .op_class = "BatchMatMul", .engine = ENG_MME,
	  .signature = "{A[b,M,K], B[b,K,N]} -> {C[b,M,N]}",
	  .summary = "b GEMMs in one MME launch; params may transpose A ([b,K,M]) or B ([b,N,K])",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_gemm_params),
	  .infer = infer_batch_gemm,
	  .lower = hlrt_lower_batch_gemm, .dtype = F32, .from = NONE },
	{ .guid = "gemm_dedx_bf16", .op_class = "MatMulGradA", .engine = ENG_MME,
	  .signature = "{dC[M,N], B[K,N]} -> {dA[M,K] f32}",
	  .summary = "BF16 inputs, FP32 accumulation and output",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_gemm_params),
	  .infer = infer_gemm_dedx, .lower = hlrt_lower_gemm_dedx, .dtype = BF16, .from = NONE },
	{ .guid = "gemm_dedw_bf16", .op_class = "MatMulGradB", .engine = ENG_MME,
	  .signature = "{dC[M,N], A[M,K]} -> {dB[K,N] f32}",
	  .summary = "BF16 inputs, FP32 accumulation and output",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_gemm_params),
	  .infer = infer_gemm_dedw, .lower = hlrt_lower_gemm_dedw, .dtype = BF16, .from = NONE },
	{ .guid = "add_f32", .op_class = "Add", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c}",
	  .summary = "c = a + b; shapes broadcast (NumPy rules)",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_bcast_binary,
	  .lower = hlrt_lower_binary, .grad = hlrt_grad_add, .dtype = F32, .from = NONE },
	{ .guid = "add_i32", .op_class = "Add", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c}",
	  .summary = "c = a + b (wrapping); shapes broadcast; c may be a",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .in_place_ok = 1,
	  .broadcast = 1, .infer = infer_bcast_binary, .lower = hlrt_lower_binary, .dtype = I32, .from = NONE },
	{ .guid = "sub_f32", .op_class = "Sub", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c}",
	  .summary = "c = a - b; shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_bcast_binary,
	  .lower = hlrt_lower_binary, .grad = hlrt_grad_sub, .dtype = F32, .from = NONE },
	{ .guid = "mul_f32", .op_class = "Mul", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c}",
	  .summary = "c = a * b; shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_bcast_binary,
	  .lower = hlrt_lower_binary, .grad = hlrt_grad_mul, .dtype = F32, .from = NONE },
	{ .guid = "div_f32", .op_class = "RealDiv", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c}",
	  .summary = "c = a * (1 / b) (two roundings); shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_bcast_binary, .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "maximum_f32", .op_class = "Maximum", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c}",
	  .summary = "c = a > b ? a : b (a NaN operand gives b); shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_bcast_binary, .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "minimum_f32", .op_class = "Minimum", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c}",
	  .summary = "c = a < b ? a : b (a NaN operand gives b); shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_bcast_binary, .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "tanh_fwd_f32", .op_class = "Tanh", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "y = tanh(x) (the host C library's tanhf)",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_unary,
	  .lower = hlrt_lower_unary, .grad = hlrt_grad_tanh, .dtype = F32, .from = NONE },
	{ .guid = "tanh_bwd_f32", .op_class = "TanhGrad", .engine = ENG_TPC,
	  .signature = "{dy, y} -> {dx}",
	  .summary = "dx = dy * (1 - y * y), y the forward's output",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .infer = infer_binary,
	  .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "sigmoid_fwd_f32", .op_class = "Sigmoid", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "y = 1 / (1 + exp(-x)) (expf, then a reciprocal)",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_unary,
	  .lower = hlrt_lower_unary, .grad = hlrt_grad_sigmoid, .dtype = F32, .from = NONE },
	{ .guid = "sigmoid_bwd_f32", .op_class = "SigmoidGrad", .engine = ENG_TPC,
	  .signature = "{dy, y} -> {dx}",
	  .summary = "dx = dy * (y * (1 - y)), y the forward's output",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .infer = infer_binary,
	  .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "gelu_fwd_f32", .op_class = "Gelu", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "y = x * Phi(x): by erf (an erfc fit, relative error < 1.2e-7) or, " "approximate = TANH, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1,
	  .params_size = P(hlrt_gelu_params), .infer = infer_gelu, .lower = hlrt_lower_gelu,
	  .grad = hlrt_grad_gelu, .dtype = F32, .from = NONE },
	{ .guid = "gelu_bwd_f32", .op_class = "GeluGrad", .engine = ENG_TPC,
	  .signature = "{dy, x} -> {dx}",
	  .summary = "dx = dy * gelu'(x), in the forward's form",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1,
	  .params_size = P(hlrt_gelu_params), .infer = infer_gelu_bwd, .lower = hlrt_lower_gelu,
	  .dtype = F32, .from = NONE },
	{ .guid = "square_f32", .op_class = "Square", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "y = x * x",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_unary,
	  .lower = hlrt_lower_unary, .grad = hlrt_grad_square, .dtype = F32, .from = NONE },
	{ .guid = "square_bwd_f32", .op_class = "SquareGrad", .engine = ENG_TPC,
	  .signature = "{dy, x} -> {dx}",
	  .summary = "dx = dy * (x + x)",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .infer = infer_binary,
	  .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "where_f32", .op_class = "SelectV2", .engine = ENG_TPC,
	  .signature = "{cond i32, a, b} -> {c}",
	  .summary = "c = cond != 0 ? a : b (tf.where); the three broadcast",
	  .n_in_min = 3, .n_in_max = 3, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_where, .lower = hlrt_lower_binary, .grad = hlrt_grad_where,
	  .dtype = F32, .from = NONE },
	{ .guid = "select_f32", .op_class = "Select", .engine = ENG_TPC,
	  .signature = "{cond i32, a, b} -> {c}",
	  .summary = "where_f32 under its other name",
	  .n_in_min = 3, .n_in_max = 3, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_where, .lower = hlrt_lower_binary, .grad = hlrt_grad_where,
	  .dtype = F32, .from = NONE },
	{ .guid = "where_bwd_f32", .op_class = "SelectGrad", .engine = ENG_TPC,
	  .signature = "{cond i32, dy} -> {da, db}",
	  .summary = "da = cond != 0 ? dy : 0, db = cond != 0 ? 0 : dy (cond broadcast to dy)",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 2, .broadcast = 1, .infer = infer_where_bwd,
	  .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "dropout_f32", .op_class = "Dropout", .engine = ENG_TPC,
	  .signature = "{x, step i32[1]} -> {y, mask}",
	  .summary = "training: y = x * mask, mask = 0 or 1/(1-rate) by hlrt_dropout_keep(rate, seed, " "step, index); eval: y = x",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 2, .params_size = P(hlrt_dropout_params),
	  .infer = hlrt_infer_dropout, .lower = hlrt_lower_dropout, .grad = hlrt_grad_dropout,
	  .dtype = F32, .from = NONE },
	{ .guid = "batchnorm_fwd_f32", .op_class = "FusedBatchNormV3", .engine = ENG_TPC,
	  .signature = "{x[..., C], gamma, beta, moving_mean, moving_var} -> {y, mean, invstd (, " "moving_mean, moving_var)}",
	  .summary = "batch normalization over the last axis; training: batch statistics, the moving " "ones updated in place; eval: the moving ones",
	  .n_in_min = 5, .n_in_max = 5, .n_out = 5, .in_place_ok = 1,
	  .params_size = P(hlrt_batchnorm_params), .infer = hlrt_infer_batchnorm_fwd,
	  .lower = hlrt_lower_batchnorm_fwd, .grad = hlrt_grad_batchnorm, .dtype = F32,
	  .from = NONE },
	{ .guid = "batchnorm_bwd_f32", .op_class = "FusedBatchNormGradV3", .engine = ENG_TPC,
	  .signature = "{dy, x, gamma, mean, invstd} -> {dx, dgamma, dbeta}",
	  .summary = "the gradient of batchnorm_fwd_f32 (training: through the batch statistics)",
	  .n_in_min = 5, .n_in_max = 5, .n_out = 3, .params_size = P(hlrt_batchnorm_params),
	  .infer = hlrt_infer_batchnorm_bwd, .lower = hlrt_lower_batchnorm_bwd, .dtype = F32,
	  .from = NONE },
	{ .guid = "scale_f32", .op_class = "Scale", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "y = alpha * x",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1,
	  .params_size = P(hlrt_scale_params), .infer = infer_unary, .lower = hlrt_lower_scale,
	  .grad = hlrt_grad_scale, .dtype = F32, .from = NONE },
	{ .guid = "bias_add_f32", .op_class = "BiasAdd", .engine = ENG_TPC,
	  .signature = "{x[..., N], b[N]} -> {y}",
	  .summary = "y = x + b, b broadcast over the leading dims",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .infer = infer_bias_add,
	  .lower = hlrt_lower_binary, .grad = hlrt_grad_bias_add, .dtype = F32, .from = NONE },
	{ .guid = "relu_fwd_f32", .op_class = "Relu", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "y = max(x, 0)",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_unary,
	  .lower = hlrt_lower_unary, .grad = hlrt_grad_relu, .dtype = F32, .from = NONE },
	{ .guid = "relu_bwd_f32", .op_class = "ReluGrad", .engine = ENG_TPC,
	  .signature = "{dy, x} -> {dx}",
	  .summary = "dx = x > 0 ? dy : 0",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .infer = infer_binary,
	  .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "reduce_sum_f32", .op_class = "Sum", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "sum over the first or last axis",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_reduce_params),
	  .infer = infer_reduce, .lower = hlrt_lower_reduce, .grad = hlrt_grad_reduce_sum,
	  .dtype = F32, .from = NONE },
	{ .guid = "reduce_sum_i32", .op_class = "Sum", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "sum over the first or last axis",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_reduce_params),
	  .infer = infer_reduce, .lower = hlrt_lower_reduce, .dtype = I32, .from = NONE },
	{ .guid = "broadcast_f32", .op_class = "Broadcast", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "alpha * x repeated n times along a new first or last axis (the gradient of the " "reductions)",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_broadcast_params),
	  .infer = infer_broadcast, .lower = hlrt_lower_broadcast, .dtype = F32, .from = NONE },
	{ .guid = "reduce_mean_f32", .op_class = "Mean", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "mean over the first or last axis",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_reduce_params),
	  .infer = infer_reduce, .lower = hlrt_lower_reduce, .grad = hlrt_grad_reduce_mean,
	  .dtype = F32, .from = NONE },
	{ .guid = "softmax_fwd_f32", .op_class = "Softmax", .engine = ENG_TPC,
	  .signature = "{x[..., C]} -> {y}",
	  .summary = "softmax along the last axis (max-subtracted)",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .infer = infer_softmax,
	  .lower = hlrt_lower_softmax, .grad = hlrt_grad_softmax, .dtype = F32, .from = NONE },
	{ .guid = "log_softmax_fwd_f32", .op_class = "LogSoftmax", .engine = ENG_TPC,
	  .signature = "{x[..., C]} -> {y}",
	  .summary = "log softmax along the last axis: (x - max) - log(sum(exp(x - max)))",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .infer = infer_softmax,
	  .lower = hlrt_lower_softmax, .dtype = F32, .from = NONE },
	{ .guid = "log_softmax_bwd_f32", .op_class = "LogSoftmaxGrad", .engine = ENG_TPC,
	  .signature = "{dy, y} -> {dx}",
	  .summary = "dx = dy - exp(y) * sum(dy) along the last axis, y the forward's output",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .infer = infer_log_softmax_bwd,
	  .lower = hlrt_lower_log_softmax_bwd, .dtype = F32, .from = NONE },
	{ .guid = "nll_loss_fwd_f32", .op_class = "NLLLoss", .engine = ENG_TPC,
	  .signature = "{logp[B,C], labels i32[B]} -> {loss[B], weight[B]}",
	  .summary = "per row -logp[label] and weight 1, both 0 where the label is ignore_index "
		     "(the batch's sum or mean is a reduction after it)",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 2, .params_size = P(hlrt_nll_params),
	  .infer = infer_nll_fwd, .lower = hlrt_lower_nll_fwd, .dtype = F32, .from = NONE },
	{ .guid = "nll_loss_bwd_f32", .op_class = "NLLLossGrad", .engine = ENG_TPC,
	  .signature = "{s[1], labels i32[B]} -> {dx[B,classes]}",
	  .summary = "dx = -s at each row's label, 0 elsewhere and on rows whose label is "
		     "ignore_index",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_nll_params),
	  .infer = infer_nll_bwd, .lower = hlrt_lower_nll_bwd, .dtype = F32, .from = NONE },
	{ .guid = "softmax_cross_entropy_fwd_f32",
	  .op_class = "SparseSoftmaxCrossEntropyWithLogits", .engine = ENG_TPC,
	  .signature = "{logits[B,C], labels i32[B]} -> {loss[1], row_loss[B]}",
	  .summary = "mean (or sum) over the batch of -log softmax(logits)[label]",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 2, .params_size = P(hlrt_sce_params),
	  .infer = infer_sce_fwd, .lower = hlrt_lower_sce_fwd, .grad = hlrt_grad_sce, .dtype = F32,
	  .from = NONE },
	{ .guid = "softmax_cross_entropy_bwd_f32", .op_class = "SparseSoftmaxCrossEntropyGrad",
	  .engine = ENG_TPC,
	  .signature = "{logits[B,C], labels i32[B]} -> {dlogits[B,C]}",
	  .summary = "(softmax(logits) - onehot(labels)) / B (mean) or without / B (sum)",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_sce_params),
	  .infer = infer_sce_bwd, .lower = hlrt_lower_sce_bwd, .dtype = F32, .from = NONE },
	{ .guid = "argmax_i32", .op_class = "ArgMax", .engine = ENG_TPC,
	  .signature = "{x[B,C]} -> {idx i32[B]}",
	  .summary = "index of the first maximum along the last axis",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_argmax_params),
	  .infer = infer_argmax, .lower = hlrt_lower_argmax, .cpu = hlrt_cpu_argmax, .dtype = I32,
	  .from = NONE },
	{ .guid = "argmax_i64", .op_class = "ArgMax", .engine = ENG_TPC,
	  .signature = "{x[B,C]} -> {idx i64[B]}",
	  .summary = "index of the first maximum along the last axis, INT64 output (on the device)",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_argmax_params),
	  .device_i64 = 1, .infer = infer_argmax, .lower = hlrt_lower_argmax,
	  .cpu = hlrt_cpu_argmax, .dtype = I64, .from = NONE },
	{ .guid = "equal_i32", .op_class = "Equal", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c i32}",
	  .summary = "c = a == b ? 1 : 0; shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_equal, .lower = hlrt_lower_binary, .cpu = hlrt_cpu_compare, .dtype = I32,
	  .from = NONE },
	{ .guid = "equal_f32", .op_class = "Equal", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c i32}",
	  .summary = "c = a == b ? 1 : 0 (NaN: 0, -0 == +0); shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_equal, .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "greater_f32", .op_class = "Greater", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c i32}",
	  .summary = "c = a > b ? 1 : 0 (NaN: 0); shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_equal, .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "less_f32", .op_class = "Less", .engine = ENG_TPC,
	  .signature = "{a, b} -> {c i32}",
	  .summary = "c = a < b ? 1 : 0 (NaN: 0); shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .elementwise = 1, .broadcast = 1,
	  .infer = infer_equal, .lower = hlrt_lower_binary, .dtype = F32, .from = NONE },
	{ .guid = "equal_i64", .op_class = "Equal", .engine = ENG_CPU,
	  .signature = "{a, b} -> {c i32}",
	  .summary = "INT64 inputs: runs on the CPU; shapes broadcast",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .broadcast = 1, .infer = infer_equal,
	  .cpu = hlrt_cpu_compare, .dtype = I64, .from = NONE },
	{ .guid = "gather_rows_f32", .op_class = "GatherRows", .engine = ENG_TPC,
	  .signature = "{src[R,...], index i32[N], offset i32[1]} -> {dst[B,...]}",
	  .summary = "dst[i] = src[index[offset + i]]; B from reshape params dims[0], else N",
	  .n_in_min = 3, .n_in_max = 3, .n_out = 1, .params_size = P(hlrt_reshape_params),
	  .infer = infer_gather, .lower = hlrt_lower_gather, .dtype = F32, .from = NONE },
	{ .guid = "gather_rows_i32", .op_class = "GatherRows", .engine = ENG_TPC,
	  .signature = "{src[R,...], index i32[N], offset i32[1]} -> {dst[B,...]}",
	  .summary = "dst[i] = src[index[offset + i]]",
	  .n_in_min = 3, .n_in_max = 3, .n_out = 1, .params_size = P(hlrt_reshape_params),
	  .infer = infer_gather, .lower = hlrt_lower_gather, .dtype = I32, .from = NONE },
	{ .guid = "optimizer_sgd_f32", .op_class = "SGD", .engine = ENG_TPC,
	  .signature = "{grad, weights, lr[1] (, momentum)} -> {weights (, momentum)}",
	  .summary = "SGD with weight decay, momentum, dampening, nesterov (PyTorch's rule), in place",
	  .n_in_min = 3, .n_in_max = 4, .n_out = 2, .in_place_ok = 1,
	  .params_size = P(hlrt_sgd_params), .infer = infer_sgd, .lower = hlrt_lower_sgd,
	  .dtype = F32, .from = NONE },
	{ .guid = "optimizer_adamw_f32", .op_class = "AdamW", .engine = ENG_TPC,
	  .signature = "{grad, weights, lr[1], m, v, step i32[1]} -> {weights, m, v}",
	  .summary = "AdamW (decoupled weight decay, bias-corrected), in place; step counts the completed " "steps",
	  .n_in_min = 6, .n_in_max = 6, .n_out = 3, .in_place_ok = 1,
	  .params_size = P(hlrt_adamw_params), .infer = infer_opt_state,
	  .lower = hlrt_lower_opt_state, .dtype = F32, .from = NONE },
	{ .guid = "optimizer_adagrad_f32", .op_class = "Adagrad", .engine = ENG_TPC,
	  .signature = "{grad, weights, lr[1], accum} -> {weights, accum}",
	  .summary = "Adagrad with weight decay, in place",
	  .n_in_min = 4, .n_in_max = 4, .n_out = 2, .in_place_ok = 1,
	  .params_size = P(hlrt_adagrad_params), .infer = infer_opt_state,
	  .lower = hlrt_lower_opt_state, .dtype = F32, .from = NONE },
	{ .guid = "optimizer_lamb_f32", .op_class = "Lamb", .engine = ENG_TPC,
	  .signature = "{grad, weights, lr[1], m, v, step i32[1]} -> {weights, m, v}",
	  .summary = "LAMB (Adam moments, bias-corrected, decoupled weight decay, per-tensor trust ratio), " "in place: lamb_moments + lamb_sumsq + lamb_apply",
	  .n_in_min = 6, .n_in_max = 6, .n_out = 3, .in_place_ok = 1,
	  .params_size = P(hlrt_lamb_params), .dtype = F32, .from = NONE,
	  .expand = hlrt_expand_lamb },
	{ .guid = "lamb_moments_f32", .op_class = "LambMoments", .engine = ENG_TPC,
	  .signature = "{grad, weights, m, v, step} -> {m, v, u}",
	  .summary = "LAMB stage 1: the moments in place and the raw update u",
	  .n_in_min = 5, .n_in_max = 5, .n_out = 3, .in_place_ok = 1,
	  .params_size = P(hlrt_lamb_params), .infer = hlrt_infer_lamb_moments,
	  .lower = hlrt_lower_lamb, .dtype = F32, .from = NONE },
	{ .guid = "lamb_sumsq_f32", .op_class = "LambSumSquares", .engine = ENG_TPC,
	  .signature = "{weights, u} -> {partials[2, chunks, 1]}",
	  .summary = "LAMB stage 2: sums of squares per 4096-element chunk, fixed order",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .infer = hlrt_infer_lamb_sumsq,
	  .lower = hlrt_lower_lamb, .dtype = F32, .from = NONE },
	{ .guid = "lamb_apply_f32", .op_class = "LambApply", .engine = ENG_TPC,
	  .signature = "{u, weights, lr[1], partials} -> {weights}",
	  .summary = "LAMB stage 3: the norms in chunk order, the trust ratio, the update in place",
	  .n_in_min = 4, .n_in_max = 4, .n_out = 1, .in_place_ok = 1,
	  .infer = hlrt_infer_lamb_apply, .lower = hlrt_lower_lamb, .dtype = F32, .from = NONE },
	{ .guid = "cast_f32_to_bf16", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x f32} -> {y bf16}",
	  .summary = "round to nearest even",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = BF16, .from = F32 },
	{ .guid = "cast_bf16_to_f32", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x bf16} -> {y f32}",
	  .summary = "exact",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = F32, .from = BF16 },
	{ .guid = "cast_f32_to_i32", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x f32} -> {y i32}",
	  .summary = "toward zero, saturated; NaN gives 0",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = I32, .from = F32 },
	{ .guid = "cast_i32_to_f32", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x i32} -> {y f32}",
	  .summary = "round to nearest even",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = F32, .from = I32 },
	{ .guid = "cast_u8_to_f32", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x u8} -> {y f32}",
	  .summary = "exact",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = F32, .from = U8 },
	{ .guid = "cast_i32_to_i8", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x i32} -> {y i8}",
	  .summary = "saturated",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = HLRT_INT8, .from = I32 },
	{ .guid = "cast_i32_to_u8", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x i32} -> {y u8}",
	  .summary = "saturated",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = U8, .from = I32 },
	{ .guid = "cast_i32_to_i16", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x i32} -> {y i16}",
	  .summary = "saturated",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = HLRT_INT16, .from = I32 },
	{ .guid = "cast_i32_to_u16", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x i32} -> {y u16}",
	  .summary = "saturated",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = HLRT_UINT16, .from = I32 },
	{ .guid = "cast_i8_to_i32", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x i8} -> {y i32}",
	  .summary = "exact",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = I32, .from = HLRT_INT8 },
	{ .guid = "cast_u8_to_i32", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x u8} -> {y i32}",
	  .summary = "exact",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = I32, .from = U8 },
	{ .guid = "cast_i16_to_i32", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x i16} -> {y i32}",
	  .summary = "exact",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = I32, .from = HLRT_INT16 },
	{ .guid = "cast_u16_to_i32", .op_class = "Cast", .engine = ENG_TPC,
	  .signature = "{x u16} -> {y i32}",
	  .summary = "exact",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .elementwise = 1, .infer = infer_cast,
	  .lower = hlrt_lower_unary, .dtype = I32, .from = HLRT_UINT16 },
	{ .guid = "cast_i32_to_i64", .op_class = "Cast", .engine = ENG_CPU,
	  .signature = "{x i32} -> {y i64}",
	  .summary = "runs on the CPU",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .infer = infer_cast, .cpu = hlrt_cpu_cast,
	  .dtype = I64, .from = I32 },
	{ .guid = "cast_i64_to_i32", .op_class = "Cast", .engine = ENG_CPU,
	  .signature = "{x i64} -> {y i32}",
	  .summary = "saturated; on the CPU",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .infer = infer_cast, .cpu = hlrt_cpu_cast,
	  .dtype = I32, .from = I64 },
	{ .guid = "conv2d_fwd_f32", .op_class = "Conv2D", .engine = ENG_MME,
	  .signature = "{x[N,H,W,C], w[KH,KW,C,F] (, b[F])} -> {y[N,OH,OW,F]}",
	  .summary = "NHWC convolution, any stride, zero padding: spatial_convolution (MME, bias fused)",
	  .n_in_min = 2, .n_in_max = 3, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .dtype = F32, .from = NONE, .expand = hlrt_expand_conv2d_fwd },
	{ .guid = "conv2d_dedx_f32", .op_class = "Conv2DBackpropInput", .engine = ENG_MME,
	  .signature = "{dy[N,OH,OW,F], w} -> {dx[N,H,W,C]}",
	  .summary = "dedx (MME); H, W the smallest that give OH, OW",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .dtype = F32, .from = NONE, .expand = hlrt_expand_conv2d_dedx },
	{ .guid = "conv2d_dedw_f32", .op_class = "Conv2DBackpropFilter", .engine = ENG_MME,
	  .signature = "{dy[N,OH,OW,F], x} -> {dw[KH,KW,C,F]}",
	  .summary = "dedw (MME)",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .dtype = F32, .from = NONE, .expand = hlrt_expand_conv2d_dedw },
	{ .guid = "conv2d_fwd_bf16", .op_class = "Conv2D", .engine = ENG_MME,
	  .signature = "{x[N,H,W,C] bf16, w[KH,KW,C,F] bf16 (, b[F])} -> {y[N,OH,OW,F] f32}",
	  .summary = "conv2d_fwd_f32 with BF16 operands, FP32 accumulation: spatial_convolution_bf16",
	  .n_in_min = 2, .n_in_max = 3, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .dtype = BF16, .from = NONE, .expand = hlrt_expand_conv2d_fwd_bf16 },
	{ .guid = "conv2d_dedx_bf16", .op_class = "Conv2DBackpropInput", .engine = ENG_MME,
	  .signature = "{dy[N,OH,OW,F] bf16, w bf16} -> {dx[N,H,W,C] f32}",
	  .summary = "conv2d_dedx_f32 with BF16 operands, FP32 accumulation: dedx_bf16",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .dtype = BF16, .from = NONE, .expand = hlrt_expand_conv2d_dedx_bf16 },
	{ .guid = "conv2d_dedw_bf16", .op_class = "Conv2DBackpropFilter", .engine = ENG_MME,
	  .signature = "{dy[N,OH,OW,F] bf16, x bf16} -> {dw[KH,KW,C,F] f32}",
	  .summary = "conv2d_dedw_f32 with BF16 operands, FP32 accumulation: dedw_bf16",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .dtype = BF16, .from = NONE, .expand = hlrt_expand_conv2d_dedw_bf16 },
	{ .guid = "spatial_convolution_f32", .op_class = "Conv2D", .engine = ENG_MME,
	  .signature = "{x[N,H,W,C], w[KH,KW,C,F] (, b[F])} -> {y[N,OH,OW,F]}",
	  .summary = "the MME's convolution mode, on tensor geometry (no im2col in memory)",
	  .n_in_min = 2, .n_in_max = 3, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .infer = hlrt_infer_conv_mme, .lower = hlrt_lower_conv_mme, .grad = hlrt_grad_conv_mme,
	  .dtype = F32, .from = NONE },
	{ .guid = "dedx_f32", .op_class = "Conv2DBackpropInput", .engine = ENG_MME,
	  .signature = "{dy[N,OH,OW,F], w[KH,KW,C,F]} -> {dx[N,H,W,C]}",
	  .summary = "the MME's data-gradient mode; params give dx's shape",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_col2im_params),
	  .infer = hlrt_infer_conv_mme, .lower = hlrt_lower_conv_mme, .dtype = F32, .from = NONE },
	{ .guid = "dedw_f32", .op_class = "Conv2DBackpropFilter", .engine = ENG_MME,
	  .signature = "{dy[N,OH,OW,F], x[N,H,W,C]} -> {dw[KH,KW,C,F]}",
	  .summary = "the MME's filter-gradient mode",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .infer = hlrt_infer_conv_mme, .lower = hlrt_lower_conv_mme, .dtype = F32, .from = NONE },
	{ .guid = "spatial_convolution_bf16", .op_class = "Conv2D", .engine = ENG_MME,
	  .signature = "{x[N,H,W,C] bf16, w[KH,KW,C,F] bf16 (, b[F] f32)} -> {y[N,OH,OW,F] f32}",
	  .summary = "the MME's convolution mode with BF16 operands, FP32 accumulation and output",
	  .n_in_min = 2, .n_in_max = 3, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .infer = hlrt_infer_conv_mme, .lower = hlrt_lower_conv_mme, .dtype = BF16, .from = NONE },
	{ .guid = "dedx_bf16", .op_class = "Conv2DBackpropInput", .engine = ENG_MME,
	  .signature = "{dy[N,OH,OW,F] bf16, w[KH,KW,C,F] bf16} -> {dx[N,H,W,C] f32}",
	  .summary = "the MME's data-gradient mode with BF16 operands, FP32 accumulation",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_col2im_params),
	  .infer = hlrt_infer_conv_mme, .lower = hlrt_lower_conv_mme, .dtype = BF16, .from = NONE },
	{ .guid = "dedw_bf16", .op_class = "Conv2DBackpropFilter", .engine = ENG_MME,
	  .signature = "{dy[N,OH,OW,F] bf16, x[N,H,W,C] bf16} -> {dw[KH,KW,C,F] f32}",
	  .summary = "the MME's filter-gradient mode with BF16 operands, FP32 accumulation",
	  .n_in_min = 2, .n_in_max = 2, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .infer = hlrt_infer_conv_mme, .lower = hlrt_lower_conv_mme, .dtype = BF16, .from = NONE },
	{ .guid = "im2col_f32", .op_class = "Im2Col", .engine = ENG_TPC,
	  .signature = "{x[N,H,W,C]} -> {cols[N*OH*OW, KH*KW*C]}",
	  .summary = "the column matrix of a stride-1 convolution (zero padding)",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_conv_params),
	  .infer = hlrt_infer_im2col, .lower = hlrt_lower_im2col, .grad = hlrt_grad_im2col,
	  .dtype = F32, .from = NONE },
	{ .guid = "col2im_f32", .op_class = "Col2Im", .engine = ENG_TPC,
	  .signature = "{dcols} -> {dx[N,H,W,C]}",
	  .summary = "the gradient of im2col: sums the columns back, fixed order",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_col2im_params),
	  .infer = hlrt_infer_col2im, .lower = hlrt_lower_col2im, .dtype = F32, .from = NONE },
	{ .guid = "maxpool2d_fwd_f32", .op_class = "MaxPool", .engine = ENG_TPC,
	  .signature = "{x[N,H,W,C]} -> {y[N,OH,OW,C]}",
	  .summary = "maximum over each window, no padding",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_pool_params),
	  .infer = hlrt_infer_maxpool_fwd, .lower = hlrt_lower_maxpool_fwd,
	  .grad = hlrt_grad_maxpool, .dtype = F32, .from = NONE },
	{ .guid = "maxpool2d_bwd_f32", .op_class = "MaxPoolGrad", .engine = ENG_TPC,
	  .signature = "{dy, x (, y)} -> {dx}",
	  .summary = "dy to the first maximum of each window, summed where windows overlap; y: the " "forward's output, so the maxima are not recomputed (windows that do not tile the " "input recompute them)",
	  .n_in_min = 2, .n_in_max = 3, .n_out = 1, .params_size = P(hlrt_pool_params),
	  .infer = hlrt_infer_maxpool_bwd, .lower = hlrt_lower_maxpool_bwd, .dtype = F32,
	  .from = NONE },
	{ .guid = "pad2d_f32", .op_class = "Pad", .engine = ENG_TPC,
	  .signature = "{x[N,H,W,C]} -> {y[N,H+top+bottom,W+left+right,C]}",
	  .summary = "spatial padding with a value (0; -inf before max pooling); negative amounts " "crop",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_pad2d_params),
	  .infer = hlrt_infer_pad2d, .lower = hlrt_lower_pad2d, .grad = hlrt_grad_pad2d,
	  .dtype = F32, .from = NONE },
	{ .guid = "transpose_f32", .op_class = "Transpose", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "y.dims[i] = x.dims[perm[i]], up to 5-D: a strided copy on the TPC",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_transpose_params),
	  .infer = infer_transpose, .lower = hlrt_lower_transpose, .grad = hlrt_grad_transpose,
	  .dtype = F32, .from = NONE },
	{ .guid = "transpose_bf16", .op_class = "Transpose", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "y.dims[i] = x.dims[perm[i]], up to 5-D: a strided copy on the TPC",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_transpose_params),
	  .infer = infer_transpose, .lower = hlrt_lower_transpose, .grad = hlrt_grad_transpose,
	  .dtype = BF16, .from = NONE },
	{ .guid = "concat_f32", .op_class = "ConcatV2", .engine = ENG_TPC,
	  .signature = "{x0, .., x7} -> {y}",
	  .summary = "joined along params.axis (shapes equal off it): a strided copy per input",
	  .n_in_min = 1, .n_in_max = HLRT_MAX_CONCAT, .n_out = 1,
	  .params_size = P(hlrt_concat_params),
	  .infer = hlrt_infer_concat, .lower = hlrt_lower_concat, .grad = hlrt_grad_concat,
	  .dtype = F32, .from = NONE },
	{ .guid = "slice_f32", .op_class = "Slice", .engine = ENG_TPC,
	  .signature = "{x} -> {y}",
	  .summary = "elements start .. start + length - 1 of params.axis: a strided copy",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_slice_params),
	  .infer = hlrt_infer_slice, .lower = hlrt_lower_slice, .dtype = F32, .from = NONE },
	{ .guid = "memcpy", .op_class = "Identity", .engine = ENG_DMA,
	  .signature = "{x} -> {y}",
	  .summary = "copy on a DMA engine",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .infer = infer_memcpy,
	  .lower = hlrt_lower_memcpy, .dtype = NONE, .from = NONE },
	{ .guid = "memset", .op_class = "Fill", .engine = ENG_DMA,
	  .signature = "{} -> {y}",
	  .summary = "fill with a repeated byte on a DMA engine",
	  .n_out = 1, .params_size = P(hlrt_memset_params), .infer = infer_memset,
	  .lower = hlrt_lower_memset, .dtype = NONE, .from = NONE },
	{ .guid = "reshape", .op_class = "Reshape", .engine = ENG_NONE,
	  .signature = "{x} -> {y}",
	  .summary = "a view with new dims: no work",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .params_size = P(hlrt_reshape_params),
	  .infer = infer_reshape, .grad = hlrt_grad_reshape, .dtype = NONE, .from = NONE },
	{ .guid = "flatten", .op_class = "Flatten", .engine = ENG_NONE,
	  .signature = "{x[B,...]} -> {y[B,rest]}",
	  .summary = "a view: no work",
	  .n_in_min = 1, .n_in_max = 1, .n_out = 1, .infer = infer_reshape,
	  .grad = hlrt_grad_reshape, .dtype = NONE, .from = NONE },
};

const struct op_def *hlrt_op_find(const char *guid)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].guid, guid))
			return &ops[i];
	return hlrt_custom_find(guid);
}

uint32_t hlrt_op_count(void)
{
	return sizeof(ops) / sizeof(ops[0]);
}

const struct op_def *hlrt_op_at(uint32_t i)
{
	return i < hlrt_op_count() ? &ops[i] : NULL;
}

hlrt_status hlrt_registry_count(uint32_t *count)
{
	if (!count)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_registry_count: NULL count");
	*count = hlrt_op_count() + hlrt_custom_count();
	return HLRT_SUCCESS;
}

hlrt_status hlrt_registry_get(uint32_t i, struct hlrt_op_info *info)
{
	bool custom = i >= hlrt_op_count();
	const struct op_def *op = custom ? hlrt_custom_at(i - hlrt_op_count()) : hlrt_op_at(i);

	if (!op || !info)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_registry_get: no op %u", i);
	memset(info, 0, sizeof(*info));
	snprintf(info->guid, sizeof(info->guid), "%s", op->guid);
	info->engine = hlrt_engine_name(op->engine);
	info->signature = op->signature;
	info->summary = op->summary;
	info->has_gradient = op->grad != NULL;
	info->custom = custom;
	return HLRT_SUCCESS;
}
