// SPDX-License-Identifier: MIT
/*
 * The LAMB optimizer (FusedLamb): optimizer_lamb_f32 expands into three
 * TPC nodes, so that the per-tensor norms are a fixed-order reduction
 * whatever the TPC split:
 *   lamb_moments_f32  the Adam moments (in place) and the raw update u
 *   lamb_sumsq_f32    per 4096-element chunk, sum(w^2) and sum(u^2)
 *   lamb_apply_f32    the chunks' sums in order -> trust ratio, w -= lr r u
 * u and the partial sums are temporaries the memory plan places.
 */
#include <stdio.h>
#include <string.h>

#include "compile/lower/lower.h"
#include "graph/ops.h"

#define LAMB_CHUNK 4096u	/* elements per member, as the kernels walk them */

static uint64_t elems(const hlrt_tensor *t)
{
	return hlrt_elems(t->ndims, t->dims);
}

static bool same_shape(const hlrt_tensor *a, const hlrt_tensor *b)
{
	return a->ndims == b->ndims && !memcmp(a->dims, b->dims, sizeof(a->dims[0]) * a->ndims);
}

static hlrt_status want(const struct hlrt_node *n, uint32_t i, hlrt_dtype dt,
			const hlrt_tensor *like)
{
	const hlrt_tensor *t = n->in[i];

	if (t->dtype != dt)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: input %u \"%s\" is %s, not %s",
				 n->guid, i, t->name, hlrt_dtype_suffix(t->dtype),
				 hlrt_dtype_suffix(dt));
	if (like ? !same_shape(t, like) : elems(t) != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: input %u \"%s\" must be %s", n->guid,
				 i, t->name, like ? "the weights' shape" : "a 1-element tensor");
	return HLRT_SUCCESS;
}

static void desc_of(struct hlrt_tensor_desc *d, const hlrt_tensor *t)
{
	d->dtype = t->dtype;
	d->ndims = t->ndims;
	memcpy(d->dims, t->dims, sizeof(d->dims));
}

static uint64_t chunks_of(const hlrt_tensor *w)
{
	return (elems(w) + LAMB_CHUNK - 1) / LAMB_CHUNK;
}

/* {g, w, m, v, step} -> {m, v, u} */
hlrt_status hlrt_infer_lamb_moments(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const hlrt_tensor *w = n->in[1];
	hlrt_status st = want(n, 1, HLRT_FP32, w);

	if (!st)
		st = want(n, 0, HLRT_FP32, w);
	if (!st)
		st = want(n, 2, HLRT_FP32, w);
	if (!st)
		st = want(n, 3, HLRT_FP32, w);
	if (!st)
		st = want(n, 4, HLRT_INT32, NULL);
	if (!st && elems(w) > UINT32_MAX)
		st = hlrt_fail(HLRT_UNSUPPORTED, "%s: over 2^32 weights", n->guid);
	if (st)
		return st;
	desc_of(&o[0], n->in[2]);
	desc_of(&o[1], n->in[3]);
	desc_of(&o[2], w);
	return HLRT_SUCCESS;
}

/* {w, u} -> {partials[2, chunks, 1]} */
hlrt_status hlrt_infer_lamb_sumsq(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	hlrt_status st = want(n, 0, HLRT_FP32, n->in[0]);

	if (!st)
		st = want(n, 1, HLRT_FP32, n->in[0]);
	if (st)
		return st;
	o[0].dtype = HLRT_FP32;
	o[0].ndims = 3;
	o[0].dims[0] = 2;
	o[0].dims[1] = chunks_of(n->in[0]);
	o[0].dims[2] = 1;
	return HLRT_SUCCESS;
}

/* {u, w, lr, partials} -> {w} */
hlrt_status hlrt_infer_lamb_apply(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const hlrt_tensor *w = n->in[1], *p = n->in[3];
	hlrt_status st = want(n, 0, HLRT_FP32, w);

	if (!st)
		st = want(n, 1, HLRT_FP32, w);
	if (!st)
		st = want(n, 2, HLRT_FP32, NULL);
	if (st)
		return st;
	if (p->dtype != HLRT_FP32 || p->ndims != 3 || p->dims[0] != 2 ||
	    p->dims[1] != chunks_of(w) || p->dims[2] != 1)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s: input 3 \"%s\" must be lamb_sumsq_f32's partial sums of \"%s\"",
				 n->guid, p->name, w->name);
	desc_of(&o[0], w);
	return HLRT_SUCCESS;
}

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static hlrt_status tpc(struct lower_ctx *lc, const char *kernel, struct rwork **out)
{
	hlrt_status st = hlrt_lower_new_work(lc, ENG_TPC, out);
	uint32_t d;

	if (!st)
		st = hlrt_lower_kernel(lc->cs->r, kernel, &(*out)->kernel);
	for (d = 0; !st && d < 5; d++)
		(*out)->ispace[d] = 1;
	return st;
}

/* t as a flat row of e elements. */
static void flat(struct lower_ctx *lc, struct rwork *w, uint32_t slot, const hlrt_tensor *t,
		 bool write)
{
	const uint64_t size[1] = { elems(t) }, stride[1] = { 1 };

	hlrt_lower_tdesc(lc, w, slot, t, size, stride, 1, 0, write);
}

static void scalar(struct lower_ctx *lc, struct rwork *w, uint32_t slot, const hlrt_tensor *t)
{
	const uint64_t size[1] = { 1 }, stride[1] = { 1 };

	hlrt_lower_tdesc(lc, w, slot, t, size, stride, 1, 0, false);
}

/* The partial sums, TPC order: {1, chunks, 2}. */
static void partials(struct lower_ctx *lc, struct rwork *w, uint32_t slot, const hlrt_tensor *t,
		     bool write)
{
	const uint64_t size[3] = { 1, t->dims[1], 2 }, stride[3] = { 1, 1, t->dims[1] };

	hlrt_lower_tdesc(lc, w, slot, t, size, stride, 3, 0, write);
}

static hlrt_status check_in_place(const struct hlrt_node *n, const uint32_t *pairs, uint32_t np)
{
	uint32_t i;

	for (i = 0; i < np; i++)
		if (n->out[pairs[2 * i]] != n->in[pairs[2 * i + 1]])
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "%s: output %u must be input %u (updated in place)",
					 n->guid, pairs[2 * i], pairs[2 * i + 1]);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_lamb(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *w = !strcmp(n->guid, "lamb_sumsq_f32") ? n->in[0] : n->in[1];
	uint32_t ispace0 = (uint32_t)chunks_of(w);
	struct rwork *k;
	hlrt_status st;

	if (!strcmp(n->guid, "lamb_moments_f32")) {
		const struct hlrt_lamb_params *p = (const void *)n->params;
		static const uint32_t pairs[] = { 0, 2, 1, 3 };

		st = check_in_place(n, pairs, 2);
		if (!st)
			st = tpc(lc, "lamb_moments_f32", &k);
		if (st)
			return st;
		flat(lc, k, 0, n->in[0], false);
		flat(lc, k, 1, w, false);
		flat(lc, k, 2, n->out[2], true);
		flat(lc, k, 3, n->in[2], true);
		flat(lc, k, 4, n->in[3], true);
		scalar(lc, k, 5, n->in[4]);
		k->n_args = 4;
		k->args[0] = f32_bits(p->beta1);
		k->args[1] = f32_bits(p->beta2);
		k->args[2] = f32_bits(p->eps);
		k->args[3] = f32_bits(p->weight_decay);
	} else if (!strcmp(n->guid, "lamb_sumsq_f32")) {
		st = tpc(lc, "lamb_sumsq_f32", &k);
		if (st)
			return st;
		flat(lc, k, 0, n->in[0], false);
		flat(lc, k, 1, n->in[1], false);
		partials(lc, k, 2, n->out[0], true);
	} else {
		static const uint32_t pairs[] = { 0, 1 };

		st = check_in_place(n, pairs, 1);
		if (!st)
			st = tpc(lc, "lamb_apply_f32", &k);
		if (st)
			return st;
		flat(lc, k, 0, n->in[0], false);
		flat(lc, k, 1, w, true);
		scalar(lc, k, 2, n->in[2]);
		partials(lc, k, 3, n->in[3], false);
	}
	k->ispace[0] = ispace0;
	return HLRT_SUCCESS;
}

static hlrt_status step_node(hlrt_graph *g, const char *guid, hlrt_tensor *const *in,
			     uint32_t n_in, hlrt_tensor **out, uint32_t n_out, const void *params,
			     size_t psize, const char *name, const char *what, struct hlrt_node **nd)
{
	char full[HLRT_NAME_MAX];

	snprintf(full, sizeof(full), "%.40s/%s", name, what);
	return hlrt_node_create(g, guid, in, n_in, out, n_out, params, psize, full, nd);
}

/*
 * optimizer_lamb_f32 {g, w, lr, m, v, step} -> {w, m, v}: the three
 * stages; w, m and v are updated in place (out, when given, must be w).
 */
hlrt_status hlrt_expand_lamb(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			const void *params, const char *name, hlrt_tensor *out,
			struct hlrt_node **last)
{
	hlrt_tensor *gr = in[0], *w = in[1], *lr = in[2], *m = in[3], *v = in[4], *step = in[5];
	hlrt_tensor *t[5], *o[3], *u, *part;
	struct hlrt_node *nd;
	hlrt_status st;

	(void)n_in;
	if (out && out != w)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "optimizer_lamb_f32: updates in place: the output must be the "
				 "weights \"%s\"", w->name);
	t[0] = gr, t[1] = w, t[2] = m, t[3] = v, t[4] = step;
	o[0] = m, o[1] = v, o[2] = NULL;
	st = step_node(g, "lamb_moments_f32", t, 5, o, 3, params, sizeof(struct hlrt_lamb_params),
		       name, "Moments", &nd);
	if (st)
		return st;
	u = nd->out[2];
	t[0] = w, t[1] = u;
	st = step_node(g, "lamb_sumsq_f32", t, 2, NULL, 0, NULL, 0, name, "SumSquares", &nd);
	if (st)
		return st;
	part = nd->out[0];
	t[0] = u, t[1] = w, t[2] = lr, t[3] = part;
	o[0] = w;
	st = step_node(g, "lamb_apply_f32", t, 4, o, 1, NULL, 0, name, "TrustRatioUpdate", &nd);
	if (!st && last)
		*last = nd;
	return st;
}
