// SPDX-License-Identifier: MIT
/*
 * Memory plan: every storage the recipe touches becomes a recipe tensor.
 * Persistent tensors are bound at launch (in order of creation),
 * constants go into the recipe's constant section, and temporaries get
 * workspace offsets from their liveness: two temporaries share bytes only
 * when their lifetimes (first to last use in schedule order) are
 * disjoint. Offsets are 128-byte aligned; the workspace size is the peak.
 */
#include <stdlib.h>
#include <string.h>

#include "compile/compile_state.h"

static bool uses(const struct cnode *c)
{
	return !c->dead && !c->folded && c->fused_into < 0;
}

static void touch(struct compile_state *cs, const hlrt_tensor *t, int32_t pos)
{
	uint32_t root = hlrt_ct_root(cs, t->id, NULL);
	struct ctensor *c = &cs->ct[root];

	if (!c->used || pos < c->first_use)
		c->first_use = pos;
	if (!c->used || pos > c->last_use)
		c->last_use = pos;
	c->used = true;
}

/*
 * Liveness over the schedule: a fused node also uses its partners'
 * inputs, and writes their outputs unless the fusion keeps them in
 * registers (bias_add+relu's sum, its own input then).
 */
static void liveness(struct compile_state *cs)
{
	uint32_t i, j;

	for (i = 0; i < cs->n_cn; i++) {
		const struct cnode *c = &cs->cn[i];
		const struct hlrt_node *p = c->fused_from >= 0 ? cs->cn[c->fused_from].node : NULL;
		const struct hlrt_node *q = c->fused_also >= 0 ? cs->cn[c->fused_also].node : NULL;

		if (!uses(c))
			continue;
		for (j = 0; j < c->node->n_in; j++)
			if (c->fusion != CFUSION_BIAS_RELU)
				touch(cs, c->node->in[j], (int32_t)i);
		for (j = 0; j < c->node->n_out; j++)
			touch(cs, c->node->out[j], (int32_t)i);
		for (j = 0; p && j < p->n_in; j++)
			touch(cs, p->in[j], (int32_t)i);
		for (j = 0; p && c->fusion != CFUSION_BIAS_RELU && j < p->n_out; j++)
			touch(cs, p->out[j], (int32_t)i);
		for (j = 0; q && j < q->n_in; j++)
			touch(cs, q->in[j], (int32_t)i);
		for (j = 0; q && j < q->n_out; j++)
			touch(cs, q->out[j], (int32_t)i);
	}
}

static hlrt_status new_rtensor(struct compile_state *cs, uint32_t t, uint32_t kind)
{
	struct hlrt_recipe *r = cs->r;
	const hlrt_tensor *x = cs->ct[t].t;
	struct rtensor *p = realloc(r->tensors, sizeof(*p) * (r->n_tensors + 1)), *rt;

	if (!p)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "memory plan");
	r->tensors = p;
	rt = &r->tensors[r->n_tensors];
	memset(rt, 0, sizeof(*rt));
	memcpy(rt->name, x->name, sizeof(rt->name));
	rt->dtype = x->dtype;
	rt->role = x->role;
	rt->ndims = x->ndims;
	memcpy(rt->dims, x->dims, sizeof(rt->dims));
	rt->bytes = hlrt_tensor_bytes(x);
	rt->kind = kind;
	rt->live_first = cs->ct[t].first_use;
	rt->live_last = cs->ct[t].last_use;
	cs->ct[t].rt = (int32_t)r->n_tensors++;
	return HLRT_SUCCESS;
}

static bool overlaps_life(const struct rtensor *a, const struct rtensor *b)
{
	return a->live_first <= b->live_last && b->live_first <= a->live_last;
}

/* First fit, largest first, against the already placed tensors that are live together. */
static hlrt_status place_workspace(struct hlrt_recipe *r, uint32_t first)
{
	uint32_t n = r->n_tensors - first, i, j, k;
	uint32_t *order = malloc(sizeof(uint32_t) * (n ? n : 1));
	uint64_t peak = 0;

	if (!order)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "memory plan");
	for (i = 0; i < n; i++)
		order[i] = first + i;
	for (i = 1; i < n; i++) {	/* insertion sort: by size, descending */
		uint32_t v = order[i];

		for (j = i; j > 0 && r->tensors[order[j - 1]].bytes < r->tensors[v].bytes; j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
	for (i = 0; i < n; i++) {
		struct rtensor *t = &r->tensors[order[i]];
		uint64_t off = 0, size = hlrt_align_up(t->bytes, HLRT_ALIGN);
		bool moved = true;

		while (moved) {
			moved = false;
			for (k = 0; k < i; k++) {
				const struct rtensor *o = &r->tensors[order[k]];
				uint64_t osize = hlrt_align_up(o->bytes, HLRT_ALIGN);

				if (!overlaps_life(t, o))
					continue;
				if (off < o->offset + osize && o->offset < off + size) {
					off = o->offset + osize;
					moved = true;
				}
			}
		}
		t->offset = off;
		if (off + size > peak)
			peak = off + size;
	}
	free(order);
	r->workspace_size = peak;
	r->stats.workspace_bytes = peak;
	return HLRT_SUCCESS;
}

uint32_t hlrt_ct_root(const struct compile_state *cs, uint32_t t, uint64_t *offset)
{
	uint64_t off = 0;

	while (cs->ct[t].alias_of >= 0) {
		off += cs->ct[t].alias_offset;
		t = (uint32_t)cs->ct[t].alias_of;
	}
	if (offset)
		*offset = off;
	return t;
}

hlrt_status hlrt_pass_memory_plan(struct compile_state *cs)
{
	struct hlrt_recipe *r = cs->r;
	uint32_t i, ws_first;
	hlrt_status st;

	liveness(cs);
	/* persistent tensors first: their index is their binding slot */
	for (i = 0; i < cs->g->n_tensors; i++) {
		const struct ctensor *c = &cs->ct[i];

		if (!c->used || c->alias_of >= 0)
			continue;
		if (c->t->role == HLRT_TENSOR_INPUT || c->t->role == HLRT_TENSOR_PARAMETER ||
		    c->t->role == HLRT_TENSOR_OUTPUT) {
			st = new_rtensor(cs, i, RT_PERSISTENT);
			if (st)
				return st;
			r->tensors[r->n_tensors - 1].offset = r->n_persistent++;
		}
	}
	for (i = 0; i < cs->g->n_tensors; i++) {
		const struct ctensor *c = &cs->ct[i];
		uint64_t bytes;
		uint8_t *p;

		if (!c->used || c->alias_of >= 0 || c->t->role != HLRT_TENSOR_CONSTANT)
			continue;
		st = new_rtensor(cs, i, RT_CONST);
		if (st)
			return st;
		bytes = hlrt_tensor_bytes(c->t);
		p = realloc(r->consts, r->const_size + hlrt_align_up(bytes, HLRT_ALIGN));
		if (!p)
			return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "constants");
		r->consts = p;
		memset(p + r->const_size, 0, hlrt_align_up(bytes, HLRT_ALIGN));
		memcpy(p + r->const_size, c->t->data, bytes);
		r->tensors[r->n_tensors - 1].offset = r->const_size;
		r->const_size += hlrt_align_up(bytes, HLRT_ALIGN);
	}
	ws_first = r->n_tensors;
	for (i = 0; i < cs->g->n_tensors; i++) {
		const struct ctensor *c = &cs->ct[i];

		if (!c->used || c->alias_of >= 0 || c->t->role != HLRT_TENSOR_TEMPORARY)
			continue;
		st = new_rtensor(cs, i, RT_WORKSPACE);
		if (st)
			return st;
	}
	return place_workspace(r, ws_first);
}
