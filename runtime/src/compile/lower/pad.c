// SPDX-License-Identifier: MIT
/*
 * pad2d_f32: spatial padding of NHWC tensors (runtime/kernels/pad2d_f32.tpcs,
 * a member per tile of channels of one output pixel). The kernel reads x
 * at the output's coordinates shifted by the top and left amounts; what
 * falls outside x reads as the descriptor's pad value. Negative amounts
 * crop, which is also the gradient: the padding with the signs turned.
 */
#include <string.h>

#include "compile/lower/lower.h"
#include "graph/ops.h"

static const struct hlrt_pad2d_params *pad_params(const struct hlrt_node *n)
{
	static const struct hlrt_pad2d_params none;

	return n->params_size ? (const void *)n->params : &none;
}

hlrt_status hlrt_infer_pad2d(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_pad2d_params *p = pad_params(n);
	const hlrt_tensor *x = n->in[0];
	int64_t h, w;

	if (x->dtype != HLRT_FP32 || x->ndims != 4)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: \"%s\" must be FP32 [N,H,W,C]",
				 n->guid, x->name);
	h = (int64_t)x->dims[1] + p->top + p->bottom;
	w = (int64_t)x->dims[2] + p->left + p->right;
	if (h < 1 || w < 1 || h > INT32_MAX || w > INT32_MAX || x->dims[3] > INT32_MAX ||
	    x->dims[0] > INT32_MAX)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: padding %d,%d,%d,%d of a %llux%llu input leaves %lldx%lld",
				 n->guid, p->top, p->bottom, p->left, p->right,
				 (unsigned long long)x->dims[1], (unsigned long long)x->dims[2],
				 (long long)h, (long long)w);
	o[0].dtype = HLRT_FP32;
	o[0].ndims = 4;
	o[0].dims[0] = x->dims[0];
	o[0].dims[1] = (uint64_t)h;
	o[0].dims[2] = (uint64_t)w;
	o[0].dims[3] = x->dims[3];
	return HLRT_SUCCESS;
}

/* t [N,H,W,C] as {C, W, H, N}. */
static void nhwc_view(const hlrt_tensor *t, uint64_t *size, uint64_t *stride)
{
	size[0] = t->dims[3];
	size[1] = t->dims[2];
	size[2] = t->dims[1];
	size[3] = t->dims[0];
	stride[0] = 1;
	stride[1] = t->dims[3];
	stride[2] = t->dims[2] * t->dims[3];
	stride[3] = t->dims[1] * t->dims[2] * t->dims[3];
}

hlrt_status hlrt_lower_pad2d(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_pad2d_params *p = pad_params(n);
	uint64_t xs[4], xt[4], ys[4], yt[4];
	uint32_t pad;
	struct rwork *w;
	hlrt_status st = hlrt_lower_new_work(lc, ENG_TPC, &w);

	if (!st)
		st = hlrt_lower_kernel(lc->cs->r, "pad2d_f32", &w->kernel);
	if (st)
		return st;
	memcpy(&pad, &p->value, sizeof(pad));
	nhwc_view(n->in[0], xs, xt);
	nhwc_view(n->out[0], ys, yt);
	hlrt_lower_tdesc(lc, w, 0, n->in[0], xs, xt, 4, pad, false);
	hlrt_lower_tdesc(lc, w, 1, n->out[0], ys, yt, 4, 0, true);
	w->ispace[0] = (uint32_t)((ys[0] + 63) / 64);
	w->ispace[1] = (uint32_t)ys[1];
	w->ispace[2] = (uint32_t)ys[2];
	w->ispace[3] = (uint32_t)ys[3];
	w->ispace[4] = 1;
	w->n_args = 2;
	w->args[0] = (uint32_t)-p->left;
	w->args[1] = (uint32_t)-p->top;
	return HLRT_SUCCESS;
}
