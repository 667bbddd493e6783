// SPDX-License-Identifier: MIT
/*
 * Compiler passes over the graph being compiled: shape check, dead-node
 * elimination, folding of logical ops, fusion, placement
 * (with the placement log), and the dependencies between works that the
 * schedule turns into sync-manager waits. Lowering to engine work is
 * lower/pass_lower.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile_state.h"
#include "graph/ops.h"

static bool is_persistent(const hlrt_tensor *t)
{
	return t->role == HLRT_TENSOR_INPUT || t->role == HLRT_TENSOR_PARAMETER ||
	       t->role == HLRT_TENSOR_OUTPUT;
}

static bool live(const struct cnode *c)
{
	return !c->dead && !c->folded && c->fused_into < 0;
}

/* Shapes were inferred at node creation; check nothing changed since. */
hlrt_status hlrt_pass_shape_check(struct compile_state *cs)
{
	uint32_t i, j;

	for (i = 0; i < cs->n_cn; i++) {
		struct hlrt_node *n = cs->cn[i].node;
		struct hlrt_tensor_desc outs[HLRT_MAX_OUT];
		uint32_t n_out = n->n_out;
		hlrt_status st;

		memset(outs, 0, sizeof(outs));
		st = n->op->infer(n, outs);
		if (st)
			return st;
		for (j = 0; j < n_out; j++) {
			const hlrt_tensor *t = n->out[j];

			if (t->dtype != outs[j].dtype ||
			    hlrt_elems(t->ndims, t->dims) !=
			    hlrt_elems(outs[j].ndims ? outs[j].ndims : 1, outs[j].dims))
				return hlrt_fail(HLRT_INTERNAL, "%s: output %u changed shape",
						 n->name, j);
		}
	}
	return HLRT_SUCCESS;
}

/* A node is live when it writes a persistent tensor or feeds a live node. */
hlrt_status hlrt_pass_dead_nodes(struct compile_state *cs)
{
	bool *needed = calloc(cs->g->n_tensors, sizeof(bool));
	uint32_t i, j, dead = 0;

	if (!needed)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "compile");
	for (i = cs->n_cn; i-- > 0;) {
		struct cnode *c = &cs->cn[i];
		bool l = false;

		for (j = 0; j < c->node->n_out; j++)
			l = l || is_persistent(c->node->out[j]) || needed[c->node->out[j]->id];
		c->dead = !l;
		if (!l) {
			dead++;
			continue;
		}
		for (j = 0; j < c->node->n_in; j++)
			needed[c->node->in[j]->id] = true;
	}
	free(needed);
	cs->r->stats.dead_nodes = dead;
	for (i = 0; i < cs->n_cn; i++)
		if (!cs->cn[i].dead)
			return HLRT_SUCCESS;
	return hlrt_fail(HLRT_INVALID_ARGUMENT,
			 "nothing to compute: no node writes an OUTPUT or PARAMETER tensor");
}

/* reshape and flatten: the output is a view of the input's storage. */
hlrt_status hlrt_pass_fold_logical(struct compile_state *cs)
{
	uint32_t i, n = 0;

	for (i = 0; i < cs->n_cn; i++) {
		struct cnode *c = &cs->cn[i];
		const struct hlrt_node *nd = c->node;

		if (c->dead || nd->op->engine != ENG_NONE)
			continue;
		/* a persistent result has storage of its own: it becomes a copy */
		if (is_persistent(nd->out[0]))
			continue;
		cs->ct[nd->out[0]->id].alias_of = (int32_t)nd->in[0]->id;
		cs->ct[nd->out[0]->id].alias_offset = 0;
		c->folded = true;
		n++;
	}
	cs->r->stats.folded_nodes = n;
	return HLRT_SUCCESS;
}

/* Live nodes reading tensor t (by identity). */
static uint32_t readers(const struct compile_state *cs, const hlrt_tensor *t, int32_t *first)
{
	uint32_t i, j, n = 0;

	for (i = 0; i < cs->n_cn; i++) {
		if (cs->cn[i].dead)
			continue;
		for (j = 0; j < cs->cn[i].node->n_in; j++) {
			if (cs->cn[i].node->in[j] == t) {
				if (!n++)
					*first = (int32_t)i;
				break;
			}
		}
	}
	return n;
}

/* A bias_add whose temporary sum only feeds a relu_fwd: bias_add_relu_f32, the sum never stored. */
static bool fuse_bias_relu(struct compile_state *cs, uint32_t i)
{
	struct cnode *c = &cs->cn[i];
	const hlrt_tensor *mid = c->node->out[0];
	int32_t r = -1;

	if (strcmp(c->node->guid, "bias_add_f32") || mid->role != HLRT_TENSOR_TEMPORARY ||
	    readers(cs, mid, &r) != 1 || strcmp(cs->cn[r].node->guid, "relu_fwd_f32"))
		return false;
	c->fused_into = r;
	cs->cn[r].fused_from = (int32_t)i;
	cs->cn[r].fusion = CFUSION_BIAS_RELU;
	return true;
}

/* The first live node after i for which match() holds, or -1. */
static int32_t later_node(const struct compile_state *cs, uint32_t i,
			  bool (*match)(const struct hlrt_node *n, const struct hlrt_node *f))
{
	uint32_t j;

	for (j = i + 1; j < cs->n_cn; j++)
		if (live(&cs->cn[j]) && match(cs->cn[j].node, cs->cn[i].node))
			return (int32_t)j;
	return -1;
}

/* The backward of sce_fwd f: the same logits, labels and mode. */
static bool is_sce_bwd_of(const struct hlrt_node *n, const struct hlrt_node *f)
{
	const struct hlrt_sce_params *pf = (const void *)f->params, *pn = (const void *)n->params;
	uint32_t mf = f->params_size ? pf->mode : HLRT_SCE_MEAN;
	uint32_t mn = n->params_size ? pn->mode : HLRT_SCE_MEAN;

	return !strcmp(n->guid, "softmax_cross_entropy_bwd_f32") && n->in[0] == f->in[0] &&
	       n->in[1] == f->in[1] && mn == mf;
}

/* An INT32 argmax of f's logits (the accuracy's; infer checked 2-D, last axis). */
static bool is_argmax_of(const struct hlrt_node *n, const struct hlrt_node *f)
{
	return !strcmp(n->guid, "argmax_i32") && n->in[0] == f->in[0] &&
	       n->out[0]->dtype == HLRT_INT32;
}

/*
 * A softmax_cross_entropy_bwd of the same logits and labels as this
 * forward (autodiff makes one per loss) runs in the forward's work: one
 * kernel, the row's max and sum of exp computed once; so does a later
 * argmax of the logits (the accuracy's), from the same max. The partners'
 * inputs are the forward's, so moving their work earlier changes no value;
 * their outputs are first written there (memplan counts them from there).
 * Returns the nodes fused away.
 */
static uint32_t fuse_sce(struct compile_state *cs, uint32_t i)
{
	struct cnode *c = &cs->cn[i];
	int32_t b, a;

	if (strcmp(c->node->guid, "softmax_cross_entropy_fwd_f32") || c->fused_from >= 0)
		return 0;
	b = later_node(cs, i, is_sce_bwd_of);
	if (b < 0)
		return 0;
	cs->cn[b].fused_into = (int32_t)i;
	c->fused_from = b;
	c->fusion = CFUSION_SCE_FWD_BWD;
	a = later_node(cs, i, is_argmax_of);
	if (a < 0)
		return 1;
	cs->cn[a].fused_into = (int32_t)i;
	c->fused_also = a;
	return 2;
}

/*
 * Fusion: nodes that run as one TPC work (bias_add+relu; an SCE forward
 * with its backward and the accuracy's argmax), so one launch and one
 * pass over the data instead of two or three.
 */
hlrt_status hlrt_pass_fuse(struct compile_state *cs)
{
	uint32_t i, n = 0;

	if (cs->opts.no_fusion)
		return HLRT_SUCCESS;
	for (i = 0; i < cs->n_cn; i++) {
		if (!live(&cs->cn[i]))
			continue;
		n += fuse_bias_relu(cs, i) ? 1 : fuse_sce(cs, i);
	}
	cs->r->stats.fused_nodes = n;
	return HLRT_SUCCESS;
}

static bool has_int64(const struct hlrt_node *n)
{
	uint32_t i;

	for (i = 0; i < n->n_in; i++)
		if (n->in[i]->dtype == HLRT_INT64)
			return true;
	for (i = 0; i < n->n_out; i++)
		if (n->out[i]->dtype == HLRT_INT64)
			return true;
	return false;
}

hlrt_status hlrt_pass_placement(struct compile_state *cs)
{
	struct hlrt_recipe_stats *s = &cs->r->stats;
	uint32_t i;

	for (i = 0; i < cs->n_cn; i++) {
		struct cnode *c = &cs->cn[i];
		const struct hlrt_node *n = c->node;

		if (c->dead)
			continue;
		c->engine = n->op->engine;
		if (c->engine == ENG_NONE && !c->folded)
			c->engine = ENG_DMA;	/* an unfolded view: a copy */
		else if (c->engine != ENG_NONE &&
			 ((has_int64(n) && !n->op->device_i64) || !n->op->lower))
			c->engine = ENG_CPU;
		if (c->engine == ENG_CPU && !n->op->cpu)
			return hlrt_fail(HLRT_UNSUPPORTED, "%s (%s): no device kernel and no "
					 "host implementation", n->name, n->guid);
		if (cs->log_placement)
			fprintf(stderr, "%s: (%s): /device:%s:0\n", n->name, n->op->op_class,
				c->engine == ENG_CPU ? "CPU" : "HPU");
		if (!live(c))
			continue;
		s->mme_nodes += c->engine == ENG_MME;
		s->tpc_nodes += c->engine == ENG_TPC;
		s->dma_nodes += c->engine == ENG_DMA;
		s->cpu_nodes += c->engine == ENG_CPU;
	}
	return HLRT_SUCCESS;
}

/* ---- dependencies ---------------------------------------------------------- */

/* Where an access lands: persistent tensors by identity, workspace by offset. */
static bool conflict(const struct hlrt_recipe *r, const struct raccess *a,
		     const struct raccess *b)
{
	const struct rtensor *ta = &r->tensors[a->rt], *tb = &r->tensors[b->rt];
	uint64_t a0, b0;

	if (!a->write && !b->write)
		return false;
	if (ta->kind != tb->kind || ta->kind == RT_CONST)
		return false;
	if (ta->kind == RT_PERSISTENT) {
		if (a->rt != b->rt)
			return false;
		a0 = a->offset;
		b0 = b->offset;
	} else {
		a0 = ta->offset + a->offset;
		b0 = tb->offset + b->offset;
	}
	return a0 < b0 + b->size && b0 < a0 + a->size;
}

static bool works_conflict(const struct hlrt_recipe *r, const struct rwork *x,
			   const struct rwork *y)
{
	uint32_t i, j;

	for (i = 0; i < x->n_acc; i++)
		for (j = 0; j < y->n_acc; j++)
			if (conflict(r, &x->acc[i], &y->acc[j]))
				return true;
	return false;
}

/*
 * Work j waits for every earlier work it conflicts with (read after
 * write, write after read, write after write), minus those another of its
 * waits already implies. CPU works order everything around them.
 */
hlrt_status hlrt_pass_dependencies(struct compile_state *cs)
{
	struct hlrt_recipe *r = cs->r;
	uint32_t n = r->n_works, words = (n + 63) / 64, i, j, k;
	uint64_t *reach = calloc((size_t)n * words + 1, sizeof(uint64_t));

	if (!reach)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "compile");
	for (j = 0; j < n; j++) {
		struct rwork *w = &r->works[j];
		uint64_t *rj = reach + (size_t)j * words;

		w->n_deps = 0;
		for (i = j; i-- > 0;) {
			const struct rwork *p = &r->works[i];
			bool need = w->engine == ENG_CPU || p->engine == ENG_CPU ||
				    works_conflict(r, p, w);

			if (!need || (rj[i / 64] >> (i % 64) & 1))
				continue;
			if (w->n_deps == sizeof(w->deps) / sizeof(w->deps[0])) {
				free(reach);
				return hlrt_fail(HLRT_UNSUPPORTED,
						 "%s waits for more than %zu others",
						 r->nodes[w->node].name,
						 sizeof(w->deps) / sizeof(w->deps[0]));
			}
			w->deps[w->n_deps++] = i;
			rj[i / 64] |= 1ull << (i % 64);
			for (k = 0; k < words; k++)
				rj[k] |= reach[(size_t)i * words + k];
		}
	}
	free(reach);
	return HLRT_SUCCESS;
}
