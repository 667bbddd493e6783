// SPDX-License-Identifier: MIT
/*
 * The op registry: every GUID with its engine, signature, shape rule,
 * lowering, gradient rule and host implementation. docs/ops.md is
 * generated from this table (runtime/tools/gen-ops-doc.c).
 */
#include <stdio.h>
#include <string.h>

#include "hlrt_internal.h"
#include "compile/conv.h"
#include "compile/lamb.h"
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

static hlrt_status infer_equal(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = infer_binary(n, o);

	if (!st)
		o[0].dtype = HLRT_INT32;
	return st;
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
static hlrt_status infer_batch_gemm(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const hlrt_tensor *a = n->in[0], *b = n->in[1];

	if (want_dtype(n, 0, hlrt_op_dtype(n)) || want_dtype(n, 1, hlrt_op_dtype(n)))
		return HLRT_INVALID_ARGUMENT;
	if (a->ndims != 3 || b->ndims != 3 || a->dims[0] != b->dims[0] || a->dims[2] != b->dims[1])
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: A must be [b,M,K] and B [b,K,N] (same b and K)", n->guid);
	o[0].dtype = HLRT_FP32;
	o[0].ndims = 3;
	o[0].dims[0] = a->dims[0];
	o[0].dims[1] = a->dims[1];
	o[0].dims[2] = b->dims[2];
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
	{ "gemm_f32", "MatMul", ENG_MME, "{A[M,K], B[K,N]} -> {C[M,N]}",
	  "C = alpha * op(A) op(B); leading dims of A fold into M", 2, 2, 1, 0, 0,
	  P(hlrt_gemm_params), infer_gemm, hlrt_lower_gemm, hlrt_grad_gemm, NULL, F32, NONE, NULL },
	{ "gemm_bf16", "MatMul", ENG_MME, "{A[M,K], B[K,N]} -> {C[M,N] f32}",
	  "BF16 inputs, FP32 accumulation and output", 2, 2, 1, 0, 0,
	  P(hlrt_gemm_params), infer_gemm, hlrt_lower_gemm, NULL, NULL, BF16, NONE, NULL },
	{ "gemm_dedx_f32", "MatMulGradA", ENG_MME, "{dC[M,N], B[K,N]} -> {dA[M,K]}",
	  "dA = dC B^T (the gradient of gemm for A)", 2, 2, 1, 0, 0,
	  P(hlrt_gemm_params), infer_gemm_dedx, hlrt_lower_gemm_dedx, NULL, NULL, F32, NONE, NULL },
	{ "gemm_dedw_f32", "MatMulGradB", ENG_MME, "{dC[M,N], A[M,K]} -> {dB[K,N]}",
	  "dB = A^T dC (the gradient of gemm for B)", 2, 2, 1, 0, 0,
	  P(hlrt_gemm_params), infer_gemm_dedw, hlrt_lower_gemm_dedw, NULL, NULL, F32, NONE, NULL },
	{ "batch_gemm_f32", "BatchMatMul", ENG_MME, "{A[b,M,K], B[b,K,N]} -> {C[b,M,N]}",
	  "b GEMMs in one MME launch", 2, 2, 1, 0, 0, 0, infer_batch_gemm, hlrt_lower_batch_gemm,
	  NULL, NULL, F32, NONE, NULL },
	{ "gemm_dedx_bf16", "MatMulGradA", ENG_MME, "{dC[M,N], B[K,N]} -> {dA[M,K] f32}",
	  "BF16 inputs, FP32 accumulation and output", 2, 2, 1, 0, 0,
	  P(hlrt_gemm_params), infer_gemm_dedx, hlrt_lower_gemm_dedx, NULL, NULL, BF16, NONE, NULL },
	{ "gemm_dedw_bf16", "MatMulGradB", ENG_MME, "{dC[M,N], A[M,K]} -> {dB[K,N] f32}",
	  "BF16 inputs, FP32 accumulation and output", 2, 2, 1, 0, 0,
	  P(hlrt_gemm_params), infer_gemm_dedw, hlrt_lower_gemm_dedw, NULL, NULL, BF16, NONE, NULL },
	{ "add_f32", "Add", ENG_TPC, "{a, b} -> {c}", "c = a + b", 2, 2, 1, 1, 0, 0,
	  infer_binary, hlrt_lower_binary, hlrt_grad_add, NULL, F32, NONE, NULL },
	{ "add_i32", "Add", ENG_TPC, "{a, b} -> {c}", "c = a + b (wrapping); c may be a",
	  2, 2, 1, 1, 1, 0, infer_binary, hlrt_lower_binary, NULL, NULL, I32, NONE, NULL },
	{ "sub_f32", "Sub", ENG_TPC, "{a, b} -> {c}", "c = a - b", 2, 2, 1, 1, 0, 0,
	  infer_binary, hlrt_lower_binary, hlrt_grad_sub, NULL, F32, NONE, NULL },
	{ "mul_f32", "Mul", ENG_TPC, "{a, b} -> {c}", "c = a * b", 2, 2, 1, 1, 0, 0,
	  infer_binary, hlrt_lower_binary, hlrt_grad_mul, NULL, F32, NONE, NULL },
	{ "scale_f32", "Scale", ENG_TPC, "{x} -> {y}", "y = alpha * x", 1, 1, 1, 1, 0,
	  P(hlrt_scale_params), infer_unary, hlrt_lower_scale, hlrt_grad_scale, NULL, F32, NONE, NULL },
	{ "bias_add_f32", "BiasAdd", ENG_TPC, "{x[..., N], b[N]} -> {y}",
	  "y = x + b, b broadcast over the leading dims", 2, 2, 1, 0, 0, 0,
	  infer_bias_add, hlrt_lower_binary, hlrt_grad_bias_add, NULL, F32, NONE, NULL },
	{ "relu_fwd_f32", "Relu", ENG_TPC, "{x} -> {y}", "y = max(x, 0)", 1, 1, 1, 1, 0, 0,
	  infer_unary, hlrt_lower_unary, hlrt_grad_relu, NULL, F32, NONE, NULL },
	{ "relu_bwd_f32", "ReluGrad", ENG_TPC, "{dy, x} -> {dx}", "dx = x > 0 ? dy : 0",
	  2, 2, 1, 1, 0, 0, infer_binary, hlrt_lower_binary, NULL, NULL, F32, NONE, NULL },
	{ "reduce_sum_f32", "Sum", ENG_TPC, "{x} -> {y}", "sum over the first or last axis",
	  1, 1, 1, 0, 0, P(hlrt_reduce_params), infer_reduce, hlrt_lower_reduce, hlrt_grad_reduce_sum,
	  NULL, F32, NONE, NULL },
	{ "reduce_sum_i32", "Sum", ENG_TPC, "{x} -> {y}", "sum over the first or last axis",
	  1, 1, 1, 0, 0, P(hlrt_reduce_params), infer_reduce, hlrt_lower_reduce, NULL, NULL, I32,
	  NONE, NULL },
	{ "broadcast_f32", "Broadcast", ENG_TPC, "{x} -> {y}",
	  "alpha * x repeated n times along a new first or last axis (the gradient of the "
	  "reductions)", 1, 1, 1, 0, 0, P(hlrt_broadcast_params), infer_broadcast,
	  hlrt_lower_broadcast, NULL, NULL, F32, NONE, NULL },
	{ "reduce_mean_f32", "Mean", ENG_TPC, "{x} -> {y}", "mean over the first or last axis",
	  1, 1, 1, 0, 0, P(hlrt_reduce_params), infer_reduce, hlrt_lower_reduce, hlrt_grad_reduce_mean,
	  NULL, F32, NONE, NULL },
	{ "softmax_fwd_f32", "Softmax", ENG_TPC, "{x[..., C]} -> {y}",
	  "softmax along the last axis (max-subtracted)", 1, 1, 1, 0, 0, 0, infer_softmax,
	  hlrt_lower_softmax, NULL, NULL, F32, NONE, NULL },
	{ "softmax_cross_entropy_fwd_f32", "SparseSoftmaxCrossEntropyWithLogits", ENG_TPC,
	  "{logits[B,C], labels i32[B]} -> {loss[1], row_loss[B]}",
	  "mean (or sum) over the batch of -log softmax(logits)[label]", 2, 2, 2, 0, 0,
	  P(hlrt_sce_params), infer_sce_fwd, hlrt_lower_sce_fwd, hlrt_grad_sce, NULL, F32, NONE, NULL },
	{ "softmax_cross_entropy_bwd_f32", "SparseSoftmaxCrossEntropyGrad", ENG_TPC,
	  "{logits[B,C], labels i32[B]} -> {dlogits[B,C]}",
	  "(softmax(logits) - onehot(labels)) / B (mean) or without / B (sum)", 2, 2, 1, 0, 0,
	  P(hlrt_sce_params), infer_sce_bwd, hlrt_lower_sce_bwd, NULL, NULL, F32, NONE, NULL },
	{ "argmax_i32", "ArgMax", ENG_TPC, "{x[B,C]} -> {idx i32[B]}",
	  "index of the first maximum along the last axis", 1, 1, 1, 0, 0,
	  P(hlrt_argmax_params), infer_argmax, hlrt_lower_argmax, NULL, hlrt_cpu_argmax, I32, NONE, NULL },
	{ "argmax_i64", "ArgMax", ENG_CPU, "{x[B,C]} -> {idx i64[B]}",
	  "INT64 output: runs on the CPU", 1, 1, 1, 0, 0, P(hlrt_argmax_params),
	  infer_argmax, NULL, NULL, hlrt_cpu_argmax, I64, NONE, NULL },
	{ "equal_i32", "Equal", ENG_TPC, "{a, b} -> {c i32}", "c = a == b ? 1 : 0",
	  2, 2, 1, 1, 0, 0, infer_equal, hlrt_lower_binary, NULL, hlrt_cpu_equal, I32, NONE, NULL },
	{ "equal_i64", "Equal", ENG_CPU, "{a, b} -> {c i32}", "INT64 inputs: runs on the CPU",
	  2, 2, 1, 0, 0, 0, infer_equal, NULL, NULL, hlrt_cpu_equal, I64, NONE, NULL },
	{ "gather_rows_f32", "GatherRows", ENG_TPC,
	  "{src[R,...], index i32[N], offset i32[1]} -> {dst[B,...]}",
	  "dst[i] = src[index[offset + i]]; B from reshape params dims[0], else N",
	  3, 3, 1, 0, 0, P(hlrt_reshape_params), infer_gather, hlrt_lower_gather, NULL, NULL, F32,
	  NONE, NULL },
	{ "gather_rows_i32", "GatherRows", ENG_TPC,
	  "{src[R,...], index i32[N], offset i32[1]} -> {dst[B,...]}",
	  "dst[i] = src[index[offset + i]]", 3, 3, 1, 0, 0, P(hlrt_reshape_params),
	  infer_gather, hlrt_lower_gather, NULL, NULL, I32, NONE, NULL },
	{ "optimizer_sgd_f32", "SGD", ENG_TPC,
	  "{grad, weights, lr[1] (, momentum)} -> {weights (, momentum)}",
	  "SGD with weight decay, momentum, dampening, nesterov (PyTorch's rule), in place",
	  3, 4, 2, 0, 1, P(hlrt_sgd_params), infer_sgd, hlrt_lower_sgd, NULL, NULL, F32, NONE, NULL },
	{ "optimizer_adamw_f32", "AdamW", ENG_TPC,
	  "{grad, weights, lr[1], m, v, step i32[1]} -> {weights, m, v}",
	  "AdamW (decoupled weight decay, bias-corrected), in place; step counts the completed "
	  "steps", 6, 6, 3, 0, 1, P(hlrt_adamw_params), infer_opt_state, hlrt_lower_opt_state, NULL,
	  NULL, F32, NONE, NULL },
	{ "optimizer_adagrad_f32", "Adagrad", ENG_TPC,
	  "{grad, weights, lr[1], accum} -> {weights, accum}",
	  "Adagrad with weight decay, in place", 4, 4, 2, 0, 1, P(hlrt_adagrad_params),
	  infer_opt_state, hlrt_lower_opt_state, NULL, NULL, F32, NONE, NULL },
	{ "optimizer_lamb_f32", "Lamb", ENG_TPC,
	  "{grad, weights, lr[1], m, v, step i32[1]} -> {weights, m, v}",
	  "LAMB (Adam moments, bias-corrected, decoupled weight decay, per-tensor trust ratio), "
	  "in place: lamb_moments + lamb_sumsq + lamb_apply", 6, 6, 3, 0, 1, P(hlrt_lamb_params),
	  NULL, NULL, NULL, NULL, F32, NONE, hlrt_expand_lamb },
	{ "lamb_moments_f32", "LambMoments", ENG_TPC, "{grad, weights, m, v, step} -> {m, v, u}",
	  "LAMB stage 1: the moments in place and the raw update u", 5, 5, 3, 0, 1,
	  P(hlrt_lamb_params), hlrt_infer_lamb_moments, hlrt_lower_lamb, NULL, NULL, F32, NONE, NULL },
	{ "lamb_sumsq_f32", "LambSumSquares", ENG_TPC, "{weights, u} -> {partials[2, chunks, 1]}",
	  "LAMB stage 2: sums of squares per 4096-element chunk, fixed order", 2, 2, 1, 0, 0, 0,
	  hlrt_infer_lamb_sumsq, hlrt_lower_lamb, NULL, NULL, F32, NONE, NULL },
	{ "lamb_apply_f32", "LambApply", ENG_TPC, "{u, weights, lr[1], partials} -> {weights}",
	  "LAMB stage 3: the norms in chunk order, the trust ratio, the update in place",
	  4, 4, 1, 0, 1, 0, hlrt_infer_lamb_apply, hlrt_lower_lamb, NULL, NULL, F32, NONE, NULL },
	{ "cast_f32_to_bf16", "Cast", ENG_TPC, "{x f32} -> {y bf16}", "round to nearest even",
	  1, 1, 1, 1, 0, 0, infer_cast, hlrt_lower_unary, NULL, NULL, BF16, F32, NULL },
	{ "cast_bf16_to_f32", "Cast", ENG_TPC, "{x bf16} -> {y f32}", "exact", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, F32, BF16, NULL },
	{ "cast_f32_to_i32", "Cast", ENG_TPC, "{x f32} -> {y i32}",
	  "toward zero, saturated; NaN gives 0", 1, 1, 1, 1, 0, 0, infer_cast, hlrt_lower_unary,
	  NULL, NULL, I32, F32, NULL },
	{ "cast_i32_to_f32", "Cast", ENG_TPC, "{x i32} -> {y f32}", "round to nearest even",
	  1, 1, 1, 1, 0, 0, infer_cast, hlrt_lower_unary, NULL, NULL, F32, I32, NULL },
	{ "cast_u8_to_f32", "Cast", ENG_TPC, "{x u8} -> {y f32}", "exact", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, F32, U8, NULL },
	{ "cast_i32_to_i8", "Cast", ENG_TPC, "{x i32} -> {y i8}", "saturated", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, HLRT_INT8, I32, NULL },
	{ "cast_i32_to_u8", "Cast", ENG_TPC, "{x i32} -> {y u8}", "saturated", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, U8, I32, NULL },
	{ "cast_i32_to_i16", "Cast", ENG_TPC, "{x i32} -> {y i16}", "saturated", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, HLRT_INT16, I32, NULL },
	{ "cast_i32_to_u16", "Cast", ENG_TPC, "{x i32} -> {y u16}", "saturated", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, HLRT_UINT16, I32, NULL },
	{ "cast_i8_to_i32", "Cast", ENG_TPC, "{x i8} -> {y i32}", "exact", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, I32, HLRT_INT8, NULL },
	{ "cast_u8_to_i32", "Cast", ENG_TPC, "{x u8} -> {y i32}", "exact", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, I32, U8, NULL },
	{ "cast_i16_to_i32", "Cast", ENG_TPC, "{x i16} -> {y i32}", "exact", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, I32, HLRT_INT16, NULL },
	{ "cast_u16_to_i32", "Cast", ENG_TPC, "{x u16} -> {y i32}", "exact", 1, 1, 1, 1, 0, 0,
	  infer_cast, hlrt_lower_unary, NULL, NULL, I32, HLRT_UINT16, NULL },
	{ "cast_i32_to_i64", "Cast", ENG_CPU, "{x i32} -> {y i64}", "runs on the CPU",
	  1, 1, 1, 0, 0, 0, infer_cast, NULL, NULL, hlrt_cpu_cast, I64, I32, NULL },
	{ "cast_i64_to_i32", "Cast", ENG_CPU, "{x i64} -> {y i32}", "saturated; on the CPU",
	  1, 1, 1, 0, 0, 0, infer_cast, NULL, NULL, hlrt_cpu_cast, I32, I64, NULL },
	{ "conv2d_fwd_f32", "Conv2D", ENG_MME, "{x[N,H,W,C], w[KH,KW,C,F] (, b[F])} -> {y[N,OH,OW,F]}",
	  "NHWC convolution, any stride, zero padding: spatial_convolution (MME, bias fused)",
	  2, 3, 1, 0, 0, P(hlrt_conv_params), NULL, NULL, NULL, NULL, F32, NONE,
	  hlrt_expand_conv2d_fwd },
	{ "conv2d_dedx_f32", "Conv2DBackpropInput", ENG_MME, "{dy[N,OH,OW,F], w} -> {dx[N,H,W,C]}",
	  "dedx (MME); H, W the smallest that give OH, OW", 2, 2, 1, 0, 0, P(hlrt_conv_params),
	  NULL, NULL, NULL, NULL, F32, NONE, hlrt_expand_conv2d_dedx },
	{ "conv2d_dedw_f32", "Conv2DBackpropFilter", ENG_MME, "{dy[N,OH,OW,F], x} -> {dw[KH,KW,C,F]}",
	  "dedw (MME)", 2, 2, 1, 0, 0, P(hlrt_conv_params), NULL, NULL, NULL,
	  NULL, F32, NONE, hlrt_expand_conv2d_dedw },
	{ "spatial_convolution_f32", "Conv2D", ENG_MME,
	  "{x[N,H,W,C], w[KH,KW,C,F] (, b[F])} -> {y[N,OH,OW,F]}",
	  "the MME's convolution mode, on tensor geometry (no im2col in memory)", 2, 3, 1, 0, 0,
	  P(hlrt_conv_params), hlrt_infer_conv_mme, hlrt_lower_conv_mme, hlrt_grad_conv_mme, NULL, F32, NONE,
	  NULL },
	{ "dedx_f32", "Conv2DBackpropInput", ENG_MME, "{dy[N,OH,OW,F], w[KH,KW,C,F]} -> {dx[N,H,W,C]}",
	  "the MME's data-gradient mode; params give dx's shape", 2, 2, 1, 0, 0,
	  P(hlrt_col2im_params), hlrt_infer_conv_mme, hlrt_lower_conv_mme, NULL, NULL, F32, NONE, NULL },
	{ "dedw_f32", "Conv2DBackpropFilter", ENG_MME, "{dy[N,OH,OW,F], x[N,H,W,C]} -> {dw[KH,KW,C,F]}",
	  "the MME's filter-gradient mode", 2, 2, 1, 0, 0, P(hlrt_conv_params), hlrt_infer_conv_mme,
	  hlrt_lower_conv_mme, NULL, NULL, F32, NONE, NULL },
	{ "im2col_f32", "Im2Col", ENG_TPC, "{x[N,H,W,C]} -> {cols[N*OH*OW, KH*KW*C]}",
	  "the column matrix of a stride-1 convolution (zero padding)", 1, 1, 1, 0, 0,
	  P(hlrt_conv_params), hlrt_infer_im2col, hlrt_lower_im2col, hlrt_grad_im2col, NULL, F32, NONE, NULL },
	{ "col2im_f32", "Col2Im", ENG_TPC, "{dcols} -> {dx[N,H,W,C]}",
	  "the gradient of im2col: sums the columns back, fixed order", 1, 1, 1, 0, 0,
	  P(hlrt_col2im_params), hlrt_infer_col2im, hlrt_lower_col2im, NULL, NULL, F32, NONE, NULL },
	{ "maxpool2d_fwd_f32", "MaxPool", ENG_TPC, "{x[N,H,W,C]} -> {y[N,OH,OW,C]}",
	  "maximum over each window, no padding", 1, 1, 1, 0, 0, P(hlrt_pool_params),
	  hlrt_infer_maxpool_fwd, hlrt_lower_maxpool_fwd, hlrt_grad_maxpool, NULL, F32, NONE, NULL },
	{ "maxpool2d_bwd_f32", "MaxPoolGrad", ENG_TPC, "{dy, x (, y)} -> {dx}",
	  "dy to the first maximum of each window (windows must not overlap); y: the "
	  "forward's output, so the maxima are not recomputed", 2, 3, 1, 0, 0,
	  P(hlrt_pool_params), hlrt_infer_maxpool_bwd, hlrt_lower_maxpool_bwd, NULL, NULL, F32, NONE,
	  NULL },
	{ "transpose_f32", "Transpose", ENG_TPC, "{x} -> {y}",
	  "y.dims[i] = x.dims[perm[i]], up to 5-D: a strided copy on the TPC", 1, 1, 1, 0, 0,
	  P(hlrt_transpose_params), infer_transpose, hlrt_lower_transpose, hlrt_grad_transpose, NULL, F32,
	  NONE, NULL },
	{ "transpose_bf16", "Transpose", ENG_TPC, "{x} -> {y}",
	  "y.dims[i] = x.dims[perm[i]], up to 5-D: a strided copy on the TPC", 1, 1, 1, 0, 0,
	  P(hlrt_transpose_params), infer_transpose, hlrt_lower_transpose, hlrt_grad_transpose, NULL,
	  BF16, NONE, NULL },
	{ "memcpy", "Identity", ENG_DMA, "{x} -> {y}", "copy on a DMA engine", 1, 1, 1, 0, 0,
	  0, infer_memcpy, hlrt_lower_memcpy, NULL, NULL, NONE, NONE, NULL },
	{ "memset", "Fill", ENG_DMA, "{} -> {y}", "fill with a repeated byte on a DMA engine",
	  0, 0, 1, 0, 0, P(hlrt_memset_params), infer_memset, hlrt_lower_memset, NULL, NULL, NONE,
	  NONE, NULL },
	{ "reshape", "Reshape", ENG_NONE, "{x} -> {y}", "a view with new dims: no work",
	  1, 1, 1, 0, 0, P(hlrt_reshape_params), infer_reshape, NULL, hlrt_grad_reshape, NULL,
	  NONE, NONE, NULL },
	{ "flatten", "Flatten", ENG_NONE, "{x[B,...]} -> {y[B,rest]}", "a view: no work",
	  1, 1, 1, 0, 0, 0, infer_reshape, NULL, hlrt_grad_reshape, NULL, NONE, NONE, NULL },
};

/* GUIDs of the list that are not implemented yet (none left). */
static const char *const planned[] = { NULL };

const struct op_def *hlrt_op_find(const char *guid)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].guid, guid))
			return &ops[i];
	return hlrt_custom_find(guid);
}

bool hlrt_op_planned(const char *guid)
{
	size_t i;

	for (i = 0; planned[i]; i++)
		if (!strcmp(planned[i], guid))
			return true;
	return false;
}

const char *hlrt_op_planned_at(uint32_t i)
{
	return i < sizeof(planned) / sizeof(planned[0]) ? planned[i] : NULL;	/* NULL-ended */
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

const char *hlrt_engine_name(enum hlrt_engine e)
{
	switch (e) {
	case ENG_MME:
		return "MME";
	case ENG_TPC:
		return "TPC";
	case ENG_DMA:
		return "DMA";
	case ENG_CPU:
		return "CPU";
	default:
		return "view";
	}
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
