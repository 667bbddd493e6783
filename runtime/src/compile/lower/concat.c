// SPDX-License-Identifier: MIT
/*
 * concat_f32 and slice_f32: joining tensors along an axis and taking a
 * range of one. Both are strided copies on the TPC (the transpose kernel
 * with identity order): a concat writes each input into its place in y
 * (y's strides, the base moved along the axis), a slice reads x from the
 * range's start with x's strides. The gradient of a concat is a slice of
 * dy per input.
 */
#include <string.h>

#include "compile/lower/lower.h"
#include "graph/ops.h"

static hlrt_status bad(const struct hlrt_node *n, const char *what)
{
	return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s \"%s\": %s", n->guid, n->name, what);
}

hlrt_status hlrt_infer_concat(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_concat_params *p = (const void *)n->params;
	const hlrt_tensor *x0 = n->in[0];
	uint64_t along = 0;
	uint32_t i, d;

	if (!n->params_size)
		return bad(n, "give the axis");
	if (p->axis >= x0->ndims)
		return bad(n, "the axis is not a dimension of the inputs");
	for (i = 0; i < n->n_in; i++) {
		const hlrt_tensor *x = n->in[i];

		if (x->dtype != HLRT_FP32 || x->ndims != x0->ndims)
			return bad(n, "the inputs must be FP32 of the same rank");
		for (d = 0; d < x->ndims; d++)
			if (d != p->axis && x->dims[d] != x0->dims[d])
				return bad(n, "the inputs' shapes differ off the axis");
		along += x->dims[p->axis];
	}
	o[0].dtype = HLRT_FP32;
	o[0].ndims = x0->ndims;
	memcpy(o[0].dims, x0->dims, sizeof(o[0].dims));
	o[0].dims[p->axis] = along;
	if (hlrt_elems(o[0].ndims, o[0].dims) > UINT32_MAX)
		return bad(n, "over 2^32 elements");
	return HLRT_SUCCESS;
}

hlrt_status hlrt_infer_slice(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_slice_params *p = (const void *)n->params;
	const hlrt_tensor *x = n->in[0];

	if (!n->params_size)
		return bad(n, "give the axis and the range");
	if (x->dtype != HLRT_FP32)
		return bad(n, "the input must be FP32");
	if (p->axis >= x->ndims || !p->length || p->start > x->dims[p->axis] ||
	    p->length > x->dims[p->axis] - p->start)
		return bad(n, "the range is not inside the input's axis");
	if (hlrt_elems(x->ndims, x->dims) > UINT32_MAX)
		return bad(n, "over 2^32 elements");
	o[0].dtype = HLRT_FP32;
	o[0].ndims = x->ndims;
	memcpy(o[0].dims, x->dims, sizeof(o[0].dims));
	o[0].dims[p->axis] = p->length;
	return HLRT_SUCCESS;
}

/* Row-major strides of t, in elements. */
static void strides_of(const hlrt_tensor *t, uint64_t *stride)
{
	uint64_t acc = 1;
	uint32_t d;

	for (d = t->ndims; d-- > 0;) {
		stride[d] = acc;
		acc *= t->dims[d];
	}
}

/*
 * One strided copy of the shape of small (src or dst): the source at
 * element offset src_off with src's strides, the destination at dst_off
 * with dst's. TPC dimension 0 is the innermost.
 */
static hlrt_status strided_copy(struct lower_ctx *lc, const hlrt_tensor *small,
				const hlrt_tensor *src, uint64_t src_off,
				const hlrt_tensor *dst, uint64_t dst_off)
{
	uint64_t size[5], ss[5], ds[5], sstride[HLRT_MAX_DIMS], dstride[HLRT_MAX_DIMS];
	uint32_t nd = small->ndims, d;
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "transpose_f32", &w);

	if (st)
		return st;
	strides_of(src, sstride);
	strides_of(dst, dstride);
	for (d = 0; d < nd; d++) {
		size[d] = small->dims[nd - 1 - d];
		ss[d] = sstride[nd - 1 - d];
		ds[d] = dstride[nd - 1 - d];
	}
	hlrt_lower_tdesc(lc, w, 0, src, size, ss, nd, 0, false);
	hlrt_lower_tdesc(lc, w, 1, dst, size, ds, nd, 0, true);
	w->t[0].base = hlrt_lower_addr(lc, src, 4 * src_off);
	w->t[1].base = hlrt_lower_addr(lc, dst, 4 * dst_off);
	w->ispace[0] = (uint32_t)((size[0] + 63) / 64);
	for (d = 1; d < 5; d++)
		w->ispace[d] = d < nd ? (uint32_t)size[d] : 1;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_concat(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_concat_params *p = (const void *)n->params;
	uint64_t stride[HLRT_MAX_DIMS], at = 0;
	hlrt_status st = HLRT_SUCCESS;
	uint32_t i;

	strides_of(n->out[0], stride);
	for (i = 0; i < n->n_in && !st; i++) {
		st = strided_copy(lc, n->in[i], n->in[i], 0, n->out[0], at * stride[p->axis]);
		at += n->in[i]->dims[p->axis];
	}
	return st;
}

hlrt_status hlrt_lower_slice(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_slice_params *p = (const void *)n->params;
	uint64_t stride[HLRT_MAX_DIMS];

	strides_of(n->in[0], stride);
	return strided_copy(lc, n->out[0], n->in[0], p->start * stride[p->axis], n->out[0], 0);
}

/* y = concat(x0, x1, ...): dx_i = dy's range of x_i along the axis. */
hlrt_status hlrt_grad_concat(struct ad_ctx *ac, const struct hlrt_node *n)
{
	const struct hlrt_concat_params *p = (const void *)n->params;
	hlrt_tensor *dy = n->out[0]->grad, *g;
	struct hlrt_slice_params sp = { .axis = p->axis };
	hlrt_status st = HLRT_SUCCESS;
	uint32_t i;

	for (i = 0; i < n->n_in && !st; i++) {
		sp.length = n->in[i]->dims[p->axis];
		st = hlrt_ad_node(ac, "slice_f32", &dy, 1, &sp, sizeof(sp), "dx", n, &g);
		if (!st)
			st = hlrt_ad_accumulate(ac, n->in[i], g);
		sp.start += sp.length;
	}
	return st;
}
