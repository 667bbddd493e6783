// SPDX-License-Identifier: MIT
/*
 * Graph building: tensors and nodes. A node's output shapes come from its
 * op's shape rule at creation, so a graph is always shape-consistent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_internal.h"

uint64_t hlrt_elems(uint32_t ndims, const uint64_t *dims)
{
	uint64_t n = 1;
	uint32_t i;

	for (i = 0; i < ndims; i++)
		n *= dims[i];
	return n;
}

hlrt_status hlrt_graph_create(hlrt_graph **graph)
{
	if (!graph)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_create: NULL graph");
	*graph = calloc(1, sizeof(**graph));
	return *graph ? HLRT_SUCCESS : hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "graph");
}

hlrt_status hlrt_graph_destroy(hlrt_graph *graph)
{
	uint32_t i;

	if (!graph)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_destroy: NULL graph");
	for (i = 0; i < graph->n_tensors; i++) {
		free(graph->tensors[i]->data);
		free(graph->tensors[i]);
	}
	for (i = 0; i < graph->n_nodes; i++)
		free(graph->nodes[i]);
	free(graph->tensors);
	free(graph->nodes);
	free(graph);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_graph_clone(const hlrt_graph *g, hlrt_graph **out)
{
	hlrt_graph *c = calloc(1, sizeof(*c));
	uint32_t i, j;

	if (!c)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "graph copy");
	c->auto_names = g->auto_names;
	c->tensors = calloc(g->n_tensors ? g->n_tensors : 1, sizeof(*c->tensors));
	c->nodes = calloc(g->n_nodes ? g->n_nodes : 1, sizeof(*c->nodes));
	c->cap_tensors = g->n_tensors ? g->n_tensors : 1;
	c->cap_nodes = g->n_nodes ? g->n_nodes : 1;
	if (!c->tensors || !c->nodes)
		goto oom;
	for (i = 0; i < g->n_tensors; i++) {
		const hlrt_tensor *t = g->tensors[i];
		hlrt_tensor *u = malloc(sizeof(*u));

		if (!u)
			goto oom;
		*u = *t;
		u->graph = c;
		u->grad = NULL;
		u->producer = NULL;
		u->data = NULL;
		c->tensors[c->n_tensors++] = u;
		if (t->data) {
			u->data = malloc(hlrt_tensor_bytes(t));
			if (!u->data)
				goto oom;
			memcpy(u->data, t->data, hlrt_tensor_bytes(t));
		}
	}
	for (i = 0; i < g->n_nodes; i++) {
		const struct hlrt_node *n = g->nodes[i];
		struct hlrt_node *m = malloc(sizeof(*m));

		if (!m)
			goto oom;
		*m = *n;
		for (j = 0; j < n->n_in; j++)
			m->in[j] = c->tensors[n->in[j]->id];
		for (j = 0; j < n->n_out; j++)
			m->out[j] = c->tensors[n->out[j]->id];
		c->nodes[c->n_nodes++] = m;
	}
	for (i = 0; i < g->n_tensors; i++)
		if (g->tensors[i]->producer)
			c->tensors[i]->producer = c->nodes[g->tensors[i]->producer->id];
	*out = c;
	return HLRT_SUCCESS;
oom:
	hlrt_graph_destroy(c);
	return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "graph copy");
}

static bool dtype_valid(hlrt_dtype d)
{
	return hlrt_dtype_size(d) != 0;
}

hlrt_status hlrt_graph_find_tensor(hlrt_graph *graph, const char *name, hlrt_tensor **tensor)
{
	uint32_t i;

	if (!graph || !name || !tensor)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_graph_find_tensor: NULL argument");
	for (i = 0; i < graph->n_tensors; i++) {
		if (!strcmp(graph->tensors[i]->name, name)) {
			*tensor = graph->tensors[i];
			return HLRT_SUCCESS;
		}
	}
	return hlrt_fail(HLRT_NOT_FOUND, "no tensor named \"%s\"", name);
}

hlrt_status hlrt_graph_new_tensor(hlrt_graph *g, const char *name, hlrt_dtype dtype,
				  uint32_t ndims, const uint64_t *dims,
				  hlrt_tensor_role role, hlrt_tensor **out)
{
	hlrt_tensor *t, *dup;
	uint32_t i;

	if (!dtype_valid(dtype))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "tensor \"%s\": unknown dtype %d",
				 name ? name : "?", (int)dtype);
	if (ndims > HLRT_MAX_DIMS)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "tensor \"%s\": %u dims (at most %d)",
				 name ? name : "?", ndims, HLRT_MAX_DIMS);
	for (i = 0; i < ndims; i++)
		if (!dims[i] || dims[i] > (1ull << 31))
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "tensor \"%s\": dimension %u is %llu", name ? name : "?",
					 i, (unsigned long long)dims[i]);
	if (name && (strlen(name) >= HLRT_NAME_MAX || !*name))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "tensor name \"%s\": 1..%d characters",
				 name, HLRT_NAME_MAX - 1);
	if (name && hlrt_graph_find_tensor(g, name, &dup) == HLRT_SUCCESS)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "a tensor named \"%s\" exists", name);
	if (g->n_tensors == g->cap_tensors) {
		uint32_t cap = g->cap_tensors ? 2 * g->cap_tensors : 32;
		hlrt_tensor **p = realloc(g->tensors, sizeof(*p) * cap);

		if (!p)
			return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "tensor");
		g->tensors = p;
		g->cap_tensors = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "tensor");
	if (name)
		snprintf(t->name, sizeof(t->name), "%s", name);
	else
		snprintf(t->name, sizeof(t->name), "%%t%u", g->auto_names++);
	t->dtype = dtype;
	t->ndims = ndims ? ndims : 1;
	for (i = 0; i < HLRT_MAX_DIMS; i++)
		t->dims[i] = i < ndims ? dims[i] : 1;
	t->role = role;
	t->id = g->n_tensors;
	t->graph = g;
	g->tensors[g->n_tensors++] = t;
	*out = t;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_tensor_create(hlrt_graph *graph, const struct hlrt_tensor_desc *desc,
			       hlrt_tensor **tensor)
{
	hlrt_tensor *t;
	hlrt_status st;

	if (!graph || !desc || !tensor)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_tensor_create: NULL argument");
	if (desc->role > HLRT_TENSOR_CONSTANT)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "tensor \"%s\": unknown role %d",
				 desc->name ? desc->name : "?", (int)desc->role);
	if ((desc->role == HLRT_TENSOR_CONSTANT) != (desc->data != NULL))
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "tensor \"%s\": data goes with the CONSTANT role, and only there",
				 desc->name ? desc->name : "?");
	st = hlrt_graph_new_tensor(graph, desc->name, desc->dtype, desc->ndims, desc->dims,
				   desc->role, &t);
	if (st)
		return st;
	if (desc->data) {
		uint64_t bytes = hlrt_tensor_bytes(t);

		t->data = malloc(bytes);
		if (!t->data)
			return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "constant data");
		memcpy(t->data, desc->data, bytes);
	}
	*tensor = t;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_tensor_get_desc(const hlrt_tensor *tensor, struct hlrt_tensor_desc *desc)
{
	uint32_t i;

	if (!tensor || !desc)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_tensor_get_desc: NULL argument");
	memset(desc, 0, sizeof(*desc));
	desc->name = tensor->name;
	desc->dtype = tensor->dtype;
	desc->ndims = tensor->ndims;
	for (i = 0; i < HLRT_MAX_DIMS; i++)
		desc->dims[i] = i < tensor->ndims ? tensor->dims[i] : 0;
	desc->role = tensor->role;
	desc->data = tensor->data;
	return HLRT_SUCCESS;
}

const char *hlrt_tensor_name(const hlrt_tensor *tensor)
{
	return tensor ? tensor->name : NULL;
}

uint64_t hlrt_tensor_bytes(const hlrt_tensor *tensor)
{
	if (!tensor)
		return 0;
	return hlrt_elems(tensor->ndims, tensor->dims) * hlrt_dtype_size(tensor->dtype);
}

hlrt_status hlrt_tensor_set_role(hlrt_tensor *tensor, hlrt_tensor_role role)
{
	if (!tensor || role > HLRT_TENSOR_OUTPUT || role == HLRT_TENSOR_CONSTANT)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_tensor_set_role: bad argument");
	if (tensor->role == HLRT_TENSOR_CONSTANT)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "tensor \"%s\" is a constant",
				 tensor->name);
	tensor->role = role;
	return HLRT_SUCCESS;
}

static bool same_shape(const hlrt_tensor *t, const struct hlrt_tensor_desc *d)
{
	uint32_t i, nd = d->ndims ? d->ndims : 1;

	if (t->dtype != d->dtype || t->ndims != nd)
		return false;
	for (i = 0; i < nd; i++)
		if (t->dims[i] != (d->ndims ? d->dims[i] : 1))
			return false;
	return true;
}

static void shape_str(char *buf, size_t len, uint32_t nd, const uint64_t *dims)
{
	size_t o = 0;
	uint32_t i;

	o += (size_t)snprintf(buf + o, len - o, "[");
	for (i = 0; i < nd && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%llu", i ? "," : "",
				      (unsigned long long)dims[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
}

hlrt_status hlrt_node_create(hlrt_graph *graph, const char *guid,
			     hlrt_tensor *const *inputs, uint32_t n_inputs,
			     hlrt_tensor *const *outputs, uint32_t n_outputs,
			     const void *params, size_t params_size, const char *name,
			     hlrt_node **node)
{
	struct hlrt_tensor_desc outs[HLRT_MAX_OUT];
	const struct op_def *op;
	struct hlrt_node *n;
	hlrt_status st;
	uint32_t i, j;

	if (!graph || !guid)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_node_create: NULL argument");
	op = hlrt_op_find(guid);
	if (!op)
		return hlrt_fail(HLRT_NOT_FOUND, "unknown GUID \"%s\" (see docs/ops.md)", guid);
	if (n_inputs < op->n_in_min || n_inputs > op->n_in_max)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s takes %u..%u inputs, not %u", guid,
				 op->n_in_min, op->n_in_max, n_inputs);
	if (n_outputs > op->n_out || n_outputs > HLRT_MAX_OUT)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s has %u outputs, not %u", guid,
				 op->n_out, n_outputs);
	if (params_size > HLRT_MAX_PARAMS || (params_size && !params) ||
	    (params_size && params_size != op->params_size))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: params of %zu bytes (expected %u)",
				 guid, params_size, op->params_size);
	for (i = 0; i < n_inputs; i++)
		if (!inputs || !inputs[i] || inputs[i]->graph != graph)
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "%s: input %u is NULL or from another graph", guid, i);
	if (name && strlen(name) >= HLRT_NAME_MAX)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "node name too long: %s", name);
	if (op->expand) {
		struct hlrt_node *last = NULL;
		hlrt_status st;

		if (!params || params_size != op->params_size)
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s needs its parameter struct",
					 guid);
		st = op->expand(graph, inputs, n_inputs, params, name ? name : guid,
				n_outputs && outputs ? outputs[0] : NULL, &last);
		if (!st && node)
			*node = last;
		return st;
	}
	if (graph->n_nodes == graph->cap_nodes) {
		uint32_t cap = graph->cap_nodes ? 2 * graph->cap_nodes : 32;
		struct hlrt_node **p = realloc(graph->nodes, sizeof(*p) * cap);

		if (!p)
			return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "node");
		graph->nodes = p;
		graph->cap_nodes = cap;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "node");
	snprintf(n->guid, sizeof(n->guid), "%s", guid);
	if (name)
		snprintf(n->name, sizeof(n->name), "%s", name);
	else
		snprintf(n->name, sizeof(n->name), "%s_%u", guid, graph->n_nodes);
	n->op = op;
	n->n_in = n_inputs;
	n->n_out = op->n_out;
	for (i = 0; i < n_inputs; i++)
		n->in[i] = inputs[i];
	if (params_size)
		memcpy(n->params, params, params_size);
	n->params_size = (uint32_t)params_size;

	memset(outs, 0, sizeof(outs));
	st = op->infer(n, outs);
	if (st) {
		free(n);
		return st;
	}
	for (i = 0; i < n->n_out; i++) {
		hlrt_tensor *t = i < n_outputs && outputs ? outputs[i] : NULL;

		if (t) {
			char want[64], got[64];

			if (t->graph != graph) {
				st = hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: output %u from another graph",
					       guid, i);
				goto fail;
			}
			if (!same_shape(t, &outs[i])) {
				shape_str(want, sizeof(want), outs[i].ndims, outs[i].dims);
				shape_str(got, sizeof(got), t->ndims, t->dims);
				st = hlrt_fail(HLRT_INVALID_ARGUMENT,
					       "%s: output %u \"%s\" is %s %s, the op makes %s %s",
					       guid, i, t->name, hlrt_dtype_suffix(t->dtype), got,
					       hlrt_dtype_suffix(outs[i].dtype), want);
				goto fail;
			}
			if (t->role == HLRT_TENSOR_CONSTANT ||
			    (t->role == HLRT_TENSOR_INPUT && !op->in_place_ok)) {
				st = hlrt_fail(HLRT_INVALID_ARGUMENT,
					       "%s: output \"%s\" is a constant or an input", guid,
					       t->name);
				goto fail;
			}
			for (j = 0; j < n_inputs; j++)
				if (inputs[j] == t && !op->in_place_ok) {
					st = hlrt_fail(HLRT_INVALID_ARGUMENT,
						       "%s: output \"%s\" is also an input", guid,
						       t->name);
					goto fail;
				}
		} else {
			st = hlrt_graph_new_tensor(graph, NULL, outs[i].dtype, outs[i].ndims,
						   outs[i].dims, HLRT_TENSOR_TEMPORARY, &t);
			if (st)
				goto fail;
		}
		n->out[i] = t;
	}
	for (i = 0; i < n->n_out; i++)
		n->out[i]->producer = n;
	n->id = graph->n_nodes;
	graph->nodes[graph->n_nodes++] = n;
	if (node)
		*node = n;
	return HLRT_SUCCESS;
fail:
	free(n);
	return st;
}

hlrt_tensor *hlrt_node_output(const hlrt_node *node, uint32_t i)
{
	return node && i < node->n_out ? node->out[i] : NULL;
}
