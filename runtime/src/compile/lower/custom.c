// SPDX-License-Identifier: MIT
/*
 * Custom kernels' lowering: one TPC work over the kernel the node's
 * description names, rows or 4096-element chunks as index space, the
 * node's scalars (or the description's defaults) as arguments.
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

hlrt_status hlrt_lower_custom(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	struct hlrt_custom_launch k;
	uint64_t cols = n->in[0]->dims[n->in[0]->ndims - 1];
	uint64_t total = hlrt_elems(n->in[0]->ndims, n->in[0]->dims), rows;
	const float *scalars;
	struct rwork *w;
	hlrt_status st;
	uint32_t i, t;

	if (!hlrt_custom_launch_of(n, &k))
		return hlrt_fail(HLRT_INTERNAL, "%s: not a custom kernel", n->guid);
	scalars = n->params_size ? (const float *)n->params : k.defaults;
	if (!k.rows)
		cols = total;
	rows = total / cols;
	st = hlrt_lower_new_work(lc, ENG_TPC, &w);
	if (!st)
		st = hlrt_lower_kernel(lc->cs->r, k.kernel, &w->kernel);
	if (st)
		return st;
	for (t = 0; t < k.n_in + k.n_out; t++) {
		const uint64_t size[2] = { cols, rows }, stride[2] = { 1, cols };

		hlrt_lower_tdesc(lc, w, t, t < k.n_in ? n->in[t] : n->out[t - k.n_in], size, stride,
				 2, 0, t >= k.n_in);
	}
	for (i = 0; i < 5; i++)
		w->ispace[i] = 1;
	if (k.rows)
		w->ispace[1] = (uint32_t)rows;
	else
		w->ispace[0] = (uint32_t)((cols + 4095) / 4096);
	w->n_args = k.n_scalars;
	for (i = 0; i < k.n_scalars; i++)
		w->args[i] = f32_bits(scalars[i]);
	return HLRT_SUCCESS;
}
