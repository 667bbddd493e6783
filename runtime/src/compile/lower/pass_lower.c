// SPDX-License-Identifier: MIT
/*
 * The lowering pass: each live node, in schedule order, becomes engine
 * works through its op's rule (or the CPU, fused and view cases here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/lower/lower.h"
#include "graph/ops.h"

static bool live(const struct cnode *c)
{
	return !c->dead && !c->folded && c->fused_into < 0;
}

static hlrt_status add_rnode(struct compile_state *cs, const struct cnode *c)
{
	struct hlrt_recipe *r = cs->r;
	struct rnode_info *ni;
	struct rnode_info *p = realloc(r->nodes, sizeof(*p) * (r->n_nodes + 1));

	if (!p)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "compile");
	r->nodes = p;
	ni = &r->nodes[r->n_nodes++];
	memset(ni, 0, sizeof(*ni));
	snprintf(ni->name, sizeof(ni->name), "%s", c->node->name);
	snprintf(ni->op_class, sizeof(ni->op_class), "%s",
		 c->fusion == CFUSION_BIAS_RELU ? "BiasAddRelu" :
		 c->fusion == CFUSION_SCE_FWD_BWD ? "SparseSoftmaxCrossEntropyWithGrad" :
		 c->node->op->op_class);
	snprintf(ni->guid, sizeof(ni->guid), "%s",
		 c->fusion == CFUSION_BIAS_RELU ? "bias_add_relu_f32" :
		 c->fusion == CFUSION_SCE_FWD_BWD && c->fused_also >= 0 ? "sce_fwd_bwd_argmax_f32" :
		 c->fusion == CFUSION_SCE_FWD_BWD ? "sce_fwd_bwd_f32" :
		 c->node->guid);
	ni->engine = c->engine;
	return HLRT_SUCCESS;
}

/* A broadcasting op on the CPU: its operands' layout goes in the params. */
static hlrt_status cpu_bcast(struct rwork *w, const struct hlrt_node *n)
{
	const hlrt_tensor *out = n->out[0];
	struct hlrt_cpu_bcast b = { .ndims = out->ndims };
	uint64_t s[HLRT_MAX_DIMS];
	uint32_t i, d;

	_Static_assert(sizeof(b) <= HLRT_MAX_PARAMS, "broadcast layout in the params");
	if (n->n_in != 2 || n->params_size || hlrt_elems(out->ndims, out->dims) > UINT32_MAX)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: the CPU broadcasts two inputs of under "
				 "2^32 elements", n->name);
	for (d = 0; d < out->ndims; d++)
		b.dims[d] = (uint32_t)out->dims[d];
	for (i = 0; i < 2; i++) {
		hlrt_bcast_strides(n->in[i], out->ndims, out->dims, s);
		for (d = 0; d < out->ndims; d++)
			b.stride[i][d] = (uint32_t)s[d];
	}
	memcpy(w->params, &b, sizeof(b));
	w->params_size = sizeof(b);
	return HLRT_SUCCESS;
}

static hlrt_status lower_cpu(struct lower_ctx *lc, const struct cnode *c)
{
	const struct hlrt_node *n = c->node;
	struct rwork *w;
	hlrt_status st = hlrt_lower_new_work(lc, ENG_CPU, &w);
	uint32_t i;

	if (st)
		return st;
	if (n->n_in > 4 || n->n_out > 2)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: too many operands for the CPU", n->name);
	snprintf(w->guid, sizeof(w->guid), "%s", n->guid);
	memcpy(w->params, n->params, n->params_size);
	w->params_size = n->params_size;
	w->n_cin = n->n_in;
	w->n_cout = n->n_out;
	for (i = 0; i < n->n_in; i++) {
		w->cin[i] = hlrt_lower_addr(lc, n->in[i], 0);
		w->cin_bytes[i] = hlrt_tensor_bytes(n->in[i]);
	}
	for (i = 0; i < n->n_out; i++) {
		w->cout[i] = hlrt_lower_addr(lc, n->out[i], 0);
		w->cout_bytes[i] = hlrt_tensor_bytes(n->out[i]);
	}
	if (n->op->broadcast) {
		st = cpu_bcast(w, n);
		if (st)
			return st;
	}
	w->cols = n->in[0]->dims[n->in[0]->ndims - 1];
	w->rows = hlrt_elems(n->in[0]->ndims, n->in[0]->dims) / w->cols;
	if (strncmp(n->guid, "argmax", 6)) {
		w->cols *= w->rows;
		w->rows = 1;
	}
	w->n_acc = 0;
	return HLRT_SUCCESS;
}

/* bias_add + relu_fwd as one TPC work. */
static hlrt_status lower_fused(struct lower_ctx *lc, const struct cnode *relu,
			       const struct cnode *bias)
{
	struct cnode tmp = *bias;
	struct hlrt_node fused = *bias->node;
	hlrt_status st;

	snprintf(fused.guid, sizeof(fused.guid), "bias_add_relu_f32");
	fused.out[0] = relu->node->out[0];
	tmp.node = &fused;
	st = bias->node->op->lower(lc, &tmp);
	return st;
}

hlrt_status hlrt_pass_lower(struct compile_state *cs)
{
	struct lower_ctx lc = { .cs = cs };
	uint32_t i;
	hlrt_status st;

	for (i = 0; i < cs->n_cn; i++) {
		struct cnode *c = &cs->cn[i];

		if (!live(c))
			continue;
		st = add_rnode(cs, c);
		if (st)
			return st;
		lc.cn = c;
		c->first_work = cs->r->n_works;
		if (c->engine == ENG_CPU)
			st = lower_cpu(&lc, c);
		else if (c->fusion == CFUSION_BIAS_RELU)
			st = lower_fused(&lc, c, &cs->cn[c->fused_from]);
		else if (c->fusion == CFUSION_SCE_FWD_BWD)
			st = hlrt_lower_sce_fwd_bwd(&lc, c->node, cs->cn[c->fused_from].node,
						    c->fused_also >= 0 ?
						    cs->cn[c->fused_also].node : NULL);
		else if (c->node->op->engine == ENG_NONE)
			st = hlrt_lower_memcpy(&lc, c);
		else
			st = c->node->op->lower(&lc, c);
		if (st)
			return st;
		c->n_works = cs->r->n_works - c->first_work;
	}
	cs->r->stats.nodes = cs->r->n_nodes;
	return HLRT_SUCCESS;
}
