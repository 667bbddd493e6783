// SPDX-License-Identifier: MIT
/*
 * The layers with a training and an inference mode: dropout_f32 (a
 * counter-based keep mask, runtime/kernels/dropout_f32.tpcs) and batch
 * normalization over the last axis (batchnorm_fwd_f32 / batchnorm_bwd_f32,
 * a member per 64 channels summing the rows in order, so the statistics do
 * not depend on the TPC split). Shape rules and lowerings.
 */
#include <string.h>

#include "compile/lower/lower.h"
#include "graph/ops.h"

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static uint64_t elems(const hlrt_tensor *t)
{
	return hlrt_elems(t->ndims, t->dims);
}

static void desc_of(struct hlrt_tensor_desc *d, const hlrt_tensor *t)
{
	d->dtype = t->dtype;
	d->ndims = t->ndims;
	memcpy(d->dims, t->dims, sizeof(d->dims));
}

static hlrt_status want_f32(const struct hlrt_node *n, uint32_t i)
{
	if (n->in[i]->dtype != HLRT_FP32)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: input %u \"%s\" is %s, not f32",
				 n->guid, i, n->in[i]->name, hlrt_dtype_suffix(n->in[i]->dtype));
	return HLRT_SUCCESS;
}

/* Slot of w: t as {cols, rows}, rows contiguous. */
static void tdesc(struct lower_ctx *lc, struct rwork *w, uint32_t slot, const hlrt_tensor *t,
		  uint64_t cols, uint64_t rows, bool write)
{
	const uint64_t size[2] = { cols, rows }, stride[2] = { 1, cols };

	hlrt_lower_tdesc(lc, w, slot, t, size, stride, 2, 0, write);
}

/* ---- dropout ------------------------------------------------------------- */

static const struct hlrt_dropout_params *dropout_params(const struct hlrt_node *n)
{
	static const struct hlrt_dropout_params eval;

	return n->params_size ? (const void *)n->params : &eval;
}

/* {x, step i32[1]} -> {y, mask} */
hlrt_status hlrt_infer_dropout(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_dropout_params *p = dropout_params(n);
	hlrt_status st = want_f32(n, 0);

	if (st)
		return st;
	if (n->in[1]->dtype != HLRT_INT32 || elems(n->in[1]) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: step \"%s\" must be 1 INT32 element",
				 n->guid, n->in[1]->name);
	if (!(p->rate >= 0.0f && p->rate < 1.0f))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: rate %g must be in [0, 1)", n->guid,
				 (double)p->rate);
	if (p->training > 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: training is 0 or 1, not %u", n->guid,
				 p->training);
	if (elems(n->in[0]) > UINT32_MAX)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: over 2^32 elements", n->guid);
	desc_of(&o[0], n->in[0]);
	desc_of(&o[1], n->in[0]);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_dropout(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_dropout_params *p = dropout_params(n);
	uint64_t e = elems(n->in[0]);
	struct rwork *w;
	hlrt_status st = hlrt_lower_tpc_work(lc, "dropout_f32", &w);

	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], e, 1, false);
	tdesc(lc, w, 1, n->in[1], 1, 1, false);
	tdesc(lc, w, 2, n->out[0], e, 1, true);
	tdesc(lc, w, 3, n->out[1], e, 1, true);
	w->ispace[0] = (uint32_t)((e + 4095) / 4096);
	w->n_args = 3;
	w->args[0] = p->seed;
	w->args[1] = p->training ? hlrt_dropout_threshold(p->rate) : 0;
	w->args[2] = f32_bits(p->training ? 1.0f / (1.0f - p->rate) : 1.0f);
	return HLRT_SUCCESS;
}

/* ---- batch normalization --------------------------------------------------- */

static const struct hlrt_batchnorm_params *bn_params(const struct hlrt_node *n)
{
	static const struct hlrt_batchnorm_params none;

	return n->params_size ? (const void *)n->params : &none;
}

static hlrt_status check_bn_params(const struct hlrt_node *n)
{
	const struct hlrt_batchnorm_params *p = bn_params(n);

	if (!(p->epsilon > 0.0f) || !(p->momentum >= 0.0f && p->momentum <= 1.0f) ||
	    p->training > 1 || p->unbiased_moving_var > 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: epsilon %g must be > 0, momentum %g in [0, 1], training and "
				 "unbiased_moving_var 0 or 1 (Keras: 0.99, 1e-3)", n->guid,
				 (double)p->epsilon, (double)p->momentum);
	return HLRT_SUCCESS;
}

/* x[..., C]: R rows of C channels, both under 2^31 (TPC coordinates). */
static hlrt_status bn_geometry(const struct hlrt_node *n, const hlrt_tensor *x, uint64_t *rows,
			       uint64_t *chans)
{
	*chans = x->dims[x->ndims - 1];
	*rows = elems(x) / *chans;
	if (*rows > INT32_MAX || *chans > INT32_MAX)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: \"%s\" has over 2^31 rows or channels",
				 n->guid, x->name);
	return HLRT_SUCCESS;
}

/* Inputs first..last: FP32 vectors of C elements. */
static hlrt_status want_channels(const struct hlrt_node *n, uint32_t first, uint32_t last,
				 uint64_t c)
{
	uint32_t i;

	for (i = first; i <= last; i++) {
		hlrt_status st = want_f32(n, i);

		if (st)
			return st;
		if (n->in[i]->ndims != 1 || n->in[i]->dims[0] != c)
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "%s: input %u \"%s\" must be 1-D of the channel count %llu",
					 n->guid, i, n->in[i]->name, (unsigned long long)c);
	}
	return HLRT_SUCCESS;
}

/* {x, gamma, beta, moving_mean, moving_var} -> {y, mean, invstd (, moving_mean, moving_var)} */
hlrt_status hlrt_infer_batchnorm_fwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	uint64_t r, c;
	hlrt_status st = check_bn_params(n);

	if (!st)
		st = want_f32(n, 0);
	if (!st)
		st = bn_geometry(n, n->in[0], &r, &c);
	if (!st)
		st = want_channels(n, 1, 4, c);
	if (st)
		return st;
	desc_of(&o[0], n->in[0]);
	desc_of(&o[1], n->in[1]);
	desc_of(&o[2], n->in[1]);
	n->n_out = bn_params(n)->training ? 5 : 3;
	desc_of(&o[3], n->in[3]);
	desc_of(&o[4], n->in[4]);
	return HLRT_SUCCESS;
}

/* {dy, x, gamma, mean, invstd} -> {dx, dgamma, dbeta} */
hlrt_status hlrt_infer_batchnorm_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	uint64_t r, c, i;
	hlrt_status st = check_bn_params(n);

	if (!st)
		st = want_f32(n, 0);
	if (!st)
		st = want_f32(n, 1);
	if (!st)
		st = bn_geometry(n, n->in[1], &r, &c);
	if (!st)
		st = want_channels(n, 2, 4, c);
	if (st)
		return st;
	if (n->in[0]->ndims != n->in[1]->ndims)
		goto differ;
	for (i = 0; i < n->in[0]->ndims; i++)
		if (n->in[0]->dims[i] != n->in[1]->dims[i])
			goto differ;
	desc_of(&o[0], n->in[1]);
	desc_of(&o[1], n->in[2]);
	desc_of(&o[2], n->in[2]);
	return HLRT_SUCCESS;
differ:
	return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: dy \"%s\" and x \"%s\" differ in shape",
			 n->guid, n->in[0]->name, n->in[1]->name);
}

hlrt_status hlrt_lower_batchnorm_fwd(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_batchnorm_params *p = bn_params(n);
	bool train = p->training;
	uint64_t r, c;
	struct rwork *w;
	hlrt_status st = bn_geometry(n, n->in[0], &r, &c);

	if (st)
		return st;
	if (train && (n->out[3] != n->in[3] || n->out[4] != n->in[4]))
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: in training the moving statistics update in place: outputs 3 "
				 "and 4 must be inputs 3 and 4", n->guid);
	st = hlrt_lower_tpc_work(lc, "batchnorm_fwd_f32", &w);
	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], c, r, false);
	tdesc(lc, w, 1, n->in[1], c, 1, false);
	tdesc(lc, w, 2, n->in[2], c, 1, false);
	tdesc(lc, w, 3, n->in[3], c, 1, train);
	tdesc(lc, w, 4, n->in[4], c, 1, train);
	tdesc(lc, w, 5, n->out[0], c, r, true);
	tdesc(lc, w, 6, n->out[1], c, 1, true);
	tdesc(lc, w, 7, n->out[2], c, 1, true);
	w->ispace[0] = (uint32_t)((c + 63) / 64);
	w->n_args = 6;
	w->args[0] = f32_bits(1.0f / (float)r);
	w->args[1] = f32_bits(p->epsilon);
	w->args[2] = f32_bits(p->momentum);
	w->args[3] = f32_bits(1.0f - p->momentum);
	w->args[4] = f32_bits(p->unbiased_moving_var && r > 1 ? (float)r / (float)(r - 1) : 1.0f);
	w->args[5] = train;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_batchnorm_bwd(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t r, c;
	struct rwork *w;
	uint32_t i;
	hlrt_status st = bn_geometry(n, n->in[1], &r, &c);

	if (!st)
		st = hlrt_lower_tpc_work(lc, "batchnorm_bwd_f32", &w);
	if (st)
		return st;
	tdesc(lc, w, 0, n->in[0], c, r, false);
	tdesc(lc, w, 1, n->in[1], c, r, false);
	for (i = 2; i <= 4; i++)
		tdesc(lc, w, i, n->in[i], c, 1, false);
	tdesc(lc, w, 5, n->out[0], c, r, true);
	tdesc(lc, w, 6, n->out[1], c, 1, true);
	tdesc(lc, w, 7, n->out[2], c, 1, true);
	w->ispace[0] = (uint32_t)((c + 63) / 64);
	w->n_args = 2;
	w->args[0] = f32_bits(1.0f / (float)r);
	w->args[1] = bn_params(n)->training;
	return HLRT_SUCCESS;
}
