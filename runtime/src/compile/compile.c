// SPDX-License-Identifier: MIT
/*
 * hlrt_graph_compile: the pipeline, one pass after the other, and the
 * graph hash that keys the recipe cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile_state.h"

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Everything that changes the compiled program, and nothing else. */
static uint64_t graph_hash(const hlrt_graph *g, const struct compile_state *cs)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i, j;

	h = fnv(h, &cs->opts, sizeof(cs->opts));
	h = fnv(h, &cs->bf16, sizeof(cs->bf16));
	for (i = 0; i < g->n_tensors; i++) {
		const hlrt_tensor *t = g->tensors[i];

		h = fnv(h, t->name, strlen(t->name) + 1);
		h = fnv(h, &t->dtype, sizeof(t->dtype));
		h = fnv(h, &t->ndims, sizeof(t->ndims));
		h = fnv(h, t->dims, sizeof(t->dims));
		h = fnv(h, &t->role, sizeof(t->role));
		if (t->data)
			h = fnv(h, t->data, hlrt_tensor_bytes(t));
	}
	for (i = 0; i < g->n_nodes; i++) {
		const struct hlrt_node *n = g->nodes[i];

		h = fnv(h, n->guid, strlen(n->guid) + 1);
		h = fnv(h, n->name, strlen(n->name) + 1);
		h = fnv(h, n->params, n->params_size);
		for (j = 0; j < n->n_in; j++)
			h = fnv(h, &n->in[j]->id, sizeof(n->in[j]->id));
		for (j = 0; j < n->n_out; j++)
			h = fnv(h, &n->out[j]->id, sizeof(n->out[j]->id));
	}
	return h;
}

/* The options as the compile uses them, environment included (hashed). */
static hlrt_status resolve_options(struct compile_state *cs,
				   const struct hlrt_compile_options *opts)
{
	if (opts)
		cs->opts = *opts;
	if (!cs->opts.num_tpc || cs->opts.num_tpc > 8)
		cs->opts.num_tpc = 8;
	cs->bf16 = cs->opts.bf16 || hlrt_config_bf16();
	/* resolved before hashing: serial and one-submission recipes never share a slot */
	if (cs->opts.eager > HLRT_EAGER_OFF)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "compile options: bad eager value %u",
				 cs->opts.eager);
	if (cs->opts.eager == HLRT_EAGER_FROM_ENV)
		cs->opts.eager = hlrt_config_lazy() ? HLRT_EAGER_OFF : HLRT_EAGER_ON;
	cs->log_placement = hlrt_log_placement_enabled();
	return HLRT_SUCCESS;
}

static hlrt_status state_init(struct compile_state *cs, hlrt_graph *g)
{
	uint32_t i;

	cs->g = g;
	cs->n_cn = g->n_nodes;
	cs->cn = calloc(g->n_nodes ? g->n_nodes : 1, sizeof(*cs->cn));
	cs->ct = calloc(g->n_tensors ? g->n_tensors : 1, sizeof(*cs->ct));
	if (!cs->cn || !cs->ct)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "compile");
	for (i = 0; i < g->n_nodes; i++) {
		cs->cn[i].node = g->nodes[i];
		cs->cn[i].op = g->nodes[i]->op;
		cs->cn[i].fused_into = -1;
		cs->cn[i].fused_from = -1;
		cs->cn[i].fused_also = -1;
	}
	for (i = 0; i < g->n_tensors; i++) {
		cs->ct[i].t = g->tensors[i];
		cs->ct[i].alias_of = -1;
		cs->ct[i].rt = -1;
		cs->ct[i].first_use = cs->ct[i].last_use = -1;
	}
	return hlrt_recipe_alloc(&cs->r);
}

static void state_free(struct compile_state *cs)
{
	free(cs->cn);
	free(cs->ct);
}

static hlrt_status run_passes(struct compile_state *cs)
{
	hlrt_status st = hlrt_pass_shape_check(cs);

	if (!st)
		st = hlrt_pass_dead_nodes(cs);
	if (!st)
		st = hlrt_pass_fold_logical(cs);
	if (!st)
		st = hlrt_pass_fuse(cs);
	if (!st)
		st = hlrt_pass_placement(cs);
	if (!st)
		st = hlrt_pass_memory_plan(cs);
	if (!st)
		st = hlrt_pass_lower(cs);
	if (!st)
		st = hlrt_pass_dependencies(cs);
	return st;
}

/*
 * The cache is keyed by the caller's graph and the resolved options; on a
 * miss, BF16 autocast rewrites a copy of the graph, never the caller's.
 */
hlrt_status hlrt_graph_compile(hlrt_graph *graph, const struct hlrt_compile_options *opts,
			       hlrt_recipe **recipe)
{
	struct compile_state cs = { 0 };
	struct hlrt_recipe *cached;
	hlrt_graph *copy = NULL;
	uint64_t hash;
	hlrt_status st;

	if (!graph || !recipe)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_compile: NULL argument");
	if (!graph->n_nodes)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_compile: the graph is empty");
	st = resolve_options(&cs, opts);
	if (st)
		return st;
	hash = graph_hash(graph, &cs);
	cached = cs.opts.no_cache || cs.log_placement ? NULL : hlrt_cache_get(hash);
	if (cached) {
		*recipe = cached;
		return HLRT_SUCCESS;
	}

	if (cs.bf16) {
		st = hlrt_graph_clone(graph, &copy);
		if (!st)
			st = hlrt_bf16_autocast(copy);
	}
	if (!st)
		st = state_init(&cs, copy ? copy : graph);
	if (!st) {
		cs.r->hash = hash;
		st = run_passes(&cs);
	}
	if (st) {
		hlrt_recipe_free(cs.r);
	} else {
		cs.r->num_tpc = cs.opts.num_tpc;
		cs.r->serial_launch = cs.opts.eager == HLRT_EAGER_ON;
		if (!cs.opts.no_cache)
			hlrt_cache_put(cs.r);
		*recipe = cs.r;
	}
	state_free(&cs);
	if (copy)
		hlrt_graph_destroy(copy);
	return st;
}
