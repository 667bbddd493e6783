// SPDX-License-Identifier: MIT
/*
 * BF16 autocast: every FP32 GEMM and convolution of the graph (gemm,
 * gemm_dedx, gemm_dedw; spatial_convolution, dedx, dedw) gets its two
 * operands cast to BF16 right before it (a bias stays FP32) and becomes
 * the BF16 variant: the MME multiplies BF16
 * and accumulates and outputs FP32, and the weights, gradients and
 * optimizer stay FP32 (master weights). hlrt_graph_compile runs it on its
 * own copy of the graph, after the cache lookup: the caller's graph stays
 * as built.
 */
#include <stdio.h>
#include <string.h>

#include "compile/compile_state.h"

static const char *bf16_variant(const char *guid)
{
	static const char *const pairs[][2] = {
		{ "gemm_f32", "gemm_bf16" },
		{ "gemm_dedx_f32", "gemm_dedx_bf16" },
		{ "gemm_dedw_f32", "gemm_dedw_bf16" },
		{ "spatial_convolution_f32", "spatial_convolution_bf16" },
		{ "dedx_f32", "dedx_bf16" },
		{ "dedw_f32", "dedw_bf16" },
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (!strcmp(guid, pairs[i][0]))
			return pairs[i][1];
	return NULL;
}

/* Move the node just appended (the last) to position at, renumbering. */
static void move_last_to(hlrt_graph *g, uint32_t at)
{
	struct hlrt_node *n = g->nodes[g->n_nodes - 1];
	uint32_t i;

	memmove(&g->nodes[at + 1], &g->nodes[at], sizeof(g->nodes[0]) * (g->n_nodes - 1 - at));
	g->nodes[at] = n;
	for (i = at; i < g->n_nodes; i++)
		g->nodes[i]->id = i;
}

hlrt_status hlrt_bf16_autocast(hlrt_graph *g)
{
	uint32_t i, j;

	for (i = 0; i < g->n_nodes; i++) {
		struct hlrt_node *n = g->nodes[i];
		const char *v = bf16_variant(n->guid);

		if (!v)
			continue;
		for (j = 0; j < 2; j++) {
			char name[HLRT_NAME_MAX];
			struct hlrt_node *c;
			hlrt_status st;

			snprintf(name, sizeof(name), "%.44s/cast%u_bf16", n->name, j);
			st = hlrt_node_create(g, "cast_f32_to_bf16", &n->in[j], 1, NULL, 0, NULL, 0,
					      name, &c);
			if (st)
				return st;
			c->backward = n->backward;
			move_last_to(g, i);
			i++;		/* n moved one place on */
			n->in[j] = c->out[0];
		}
		snprintf(n->guid, sizeof(n->guid), "%s", v);
		n->op = hlrt_op_find(v);
		if (!n->op)
			return hlrt_fail(HLRT_INTERNAL, "no %s in the registry", v);
	}
	return HLRT_SUCCESS;
}
