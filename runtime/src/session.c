// SPDX-License-Identifier: MIT
/*
 * Eager and lazy execution, as PyTorch runs on Gaudi. A session collects
 * ops on values into a pending graph; in lazy mode it runs at
 * hlrt_mark_step() or when a value is read back, in eager mode after every
 * op. Running compiles the pending graph (through the recipe cache: the
 * graph's tensors are named by position, so the same sequence of ops
 * hashes the same at every step), allocates the results, launches and
 * waits. Both modes use the same kernels, so their results are
 * bit-identical.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_internal.h"
#include "device/device.h"

struct hlrt_value {
	hlrt_dtype dtype;
	uint32_t ndims;
	uint64_t dims[HLRT_MAX_DIMS];
	uint64_t addr;		/* device buffer, 0 until the value is computed */
	hlrt_tensor *t;		/* its tensor in the pending graph, or NULL */
	bool released;
	struct hlrt_value *next;
};

struct hlrt_session {
	hlrt_device *dev;
	hlrt_stream *stream;
	bool lazy;
	hlrt_graph *g;		/* pending ops, NULL when none */
	uint32_t n_in, n_out;
	struct hlrt_value *values;
};

static uint64_t value_bytes(const struct hlrt_value *v)
{
	return hlrt_elems(v->ndims, v->dims) * hlrt_dtype_size(v->dtype);
}

hlrt_status hlrt_session_create(hlrt_device *device, uint32_t mode, hlrt_session **session)
{
	hlrt_session *s;
	hlrt_status st;

	if (!device || !session || mode > HLRT_MODE_EAGER)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_session_create: bad argument");
	s = calloc(1, sizeof(*s));
	if (!s)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "session");
	st = hlrt_stream_create(device, &s->stream);
	if (st) {
		free(s);
		return st;
	}
	s->dev = device;
	s->lazy = mode == HLRT_MODE_LAZY ||
		  (mode == HLRT_MODE_DEFAULT && hlrt_config_lazy());
	*session = s;
	return HLRT_SUCCESS;
}

int hlrt_session_is_lazy(const hlrt_session *session)
{
	return session && session->lazy;
}

static hlrt_status new_value(hlrt_session *s, hlrt_dtype dt, uint32_t nd, const uint64_t *dims,
			     struct hlrt_value **out)
{
	struct hlrt_value *v = calloc(1, sizeof(*v));
	uint32_t i;

	if (!v)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "session value");
	v->dtype = dt;
	v->ndims = nd ? nd : 1;
	for (i = 0; i < HLRT_MAX_DIMS; i++)
		v->dims[i] = i < nd ? dims[i] : 1;
	v->next = s->values;
	s->values = v;
	*out = v;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_value_from_host(hlrt_session *session, hlrt_dtype dtype, uint32_t ndims,
				 const uint64_t *dims, const void *data, hlrt_value **value)
{
	struct hlrt_value *v;
	hlrt_status st;

	if (!session || !value || !data || (ndims && !dims) || ndims > HLRT_MAX_DIMS ||
	    !hlrt_dtype_size(dtype))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_value_from_host: bad argument");
	st = new_value(session, dtype, ndims, dims, &v);
	if (st)
		return st;
	st = hlrt_device_malloc(session->dev, value_bytes(v), &v->addr);
	if (!st)
		st = hlrt_memcpy_h2d(session->dev, v->addr, data, value_bytes(v));
	if (st) {
		v->released = true;
		return st;
	}
	*value = v;
	return HLRT_SUCCESS;
}

/* The value's tensor in the pending graph: computed values enter as INPUTs. */
static hlrt_status tensor_of(hlrt_session *s, struct hlrt_value *v, hlrt_tensor **t)
{
	struct hlrt_tensor_desc d = { .dtype = v->dtype, .ndims = v->ndims,
				      .role = HLRT_TENSOR_INPUT };
	char name[16];
	hlrt_status st;

	if (v->t) {
		*t = v->t;
		return HLRT_SUCCESS;
	}
	if (!v->addr)
		return hlrt_fail(HLRT_INTERNAL, "a value with neither data nor a producer");
	snprintf(name, sizeof(name), "in%u", s->n_in++);
	d.name = name;
	memcpy(d.dims, v->dims, sizeof(d.dims));
	st = hlrt_tensor_create(s->g, &d, &v->t);
	if (!st)
		*t = v->t;
	return st;
}

/*
 * Released values no pending op needs any more: their device memory goes;
 * the small handle stays (until the session ends) so that using it again
 * is refused instead of reading freed memory.
 */
static void drop_released(hlrt_session *s)
{
	struct hlrt_value *v;

	for (v = s->values; v; v = v->next) {
		if (v->released && !v->t && v->addr) {
			hlrt_device_free(s->dev, v->addr);
			v->addr = 0;
		}
	}
}

static hlrt_status run_pending(hlrt_session *s)
{
	struct hlrt_tensor_binding *b = NULL;
	struct hlrt_value *v;
	hlrt_recipe *r = NULL;
	uint64_t ws = 0, wsize = 0;
	uint32_t n = 0, i;
	hlrt_status st = HLRT_SUCCESS;

	if (!s->g)
		return HLRT_SUCCESS;
	/* results still wanted become outputs, in creation order of the graph */
	for (v = s->values; v; v = v->next) {
		if (v->t && !v->addr && !v->released) {
			st = st ? st : hlrt_tensor_set_role(v->t, HLRT_TENSOR_OUTPUT);
			s->n_out++;
		}
	}
	if (!s->n_out)
		goto done;	/* every result was released: nothing to run */
	for (v = s->values; v; v = v->next)
		n += v->t != NULL;
	b = calloc(n + 1, sizeof(*b));
	if (!b)
		st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "session");
	if (!st) {
		/* the session's mode, not the environment's: a lazy step stays one submission */
		struct hlrt_compile_options opts = {
			.eager = s->lazy ? HLRT_EAGER_OFF : HLRT_EAGER_ON,
		};

		st = hlrt_graph_compile(s->g, &opts, &r);
	}
	for (v = s->values, i = 0; v && !st; v = v->next) {
		if (!v->t)
			continue;
		if (!v->addr && !v->released && v->t->role == HLRT_TENSOR_OUTPUT)
			st = hlrt_device_malloc(s->dev, value_bytes(v), &v->addr);
		if (v->addr) {
			b[i].name = v->t->name;
			b[i].device_addr = v->addr;
			i++;
		}
	}
	if (!st)
		st = hlrt_recipe_workspace_size(r, &wsize);
	if (!st && wsize)
		st = hlrt_device_malloc(s->dev, wsize, &ws);
	if (!st)
		st = hlrt_launch(s->stream, r, b, i, ws);
	if (!st)
		st = hlrt_stream_synchronize(s->stream);
	if (ws)
		hlrt_device_free(s->dev, ws);
	if (r)
		hlrt_recipe_destroy(r);
	free(b);
done:
	for (v = s->values; v; v = v->next)
		v->t = NULL;
	drop_released(s);
	hlrt_graph_destroy(s->g);
	s->g = NULL;
	s->n_in = s->n_out = 0;
	return st;
}

hlrt_status hlrt_op(hlrt_session *session, const char *guid, hlrt_value *const *inputs,
		    uint32_t n_inputs, const void *params, size_t params_size,
		    hlrt_value **outputs, uint32_t n_outputs)
{
	hlrt_tensor *in[HLRT_MAX_IN];
	struct hlrt_node *n;
	hlrt_status st;
	uint32_t i;

	if (!session || !guid || n_inputs > HLRT_MAX_IN || (n_inputs && !inputs) ||
	    !outputs || !n_outputs)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_op: bad argument");
	for (i = 0; i < n_inputs; i++)
		if (!inputs[i] || inputs[i]->released)
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_op %s: input %u released",
					 guid, i);
	if (!session->g) {
		st = hlrt_graph_create(&session->g);
		if (st)
			return st;
	}
	for (i = 0; i < n_inputs; i++) {
		st = tensor_of(session, inputs[i], &in[i]);
		if (st)
			return st;
	}
	st = hlrt_node_create(session->g, guid, in, n_inputs, NULL, 0, params, params_size,
			      NULL, &n);
	if (st)
		return st;
	if (n_outputs > n->n_out)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_op %s: %u outputs asked, it has %u",
				 guid, n_outputs, n->n_out);
	for (i = 0; i < n_outputs; i++) {
		hlrt_tensor *t = hlrt_node_output(n, i);
		struct hlrt_value *v;

		st = new_value(session, t->dtype, t->ndims, t->dims, &v);
		if (st)
			return st;
		v->t = t;
		outputs[i] = v;
	}
	return session->lazy ? HLRT_SUCCESS : run_pending(session);
}

hlrt_status hlrt_mark_step(hlrt_session *session)
{
	if (!session)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_mark_step: NULL session");
	return run_pending(session);
}

hlrt_status hlrt_value_read(hlrt_session *session, const hlrt_value *value, void *dst,
			    size_t size)
{
	hlrt_status st;

	if (!session || !value || !dst || value->released || size != value_bytes(value))
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "hlrt_value_read: bad argument (size must be the value's bytes)");
	st = run_pending(session);
	if (st)
		return st;
	if (!value->addr)
		return hlrt_fail(HLRT_INTERNAL, "the value was not computed");
	return hlrt_memcpy_d2h(session->dev, dst, value->addr, size);
}

hlrt_status hlrt_value_release(hlrt_session *session, hlrt_value *value)
{
	if (!session || !value || value->released)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_value_release: bad argument");
	value->released = true;
	if (!session->g)
		drop_released(session);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_session_destroy(hlrt_session *session)
{
	struct hlrt_value *v, *next;

	if (!session)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_session_destroy: NULL session");
	if (session->g)
		hlrt_graph_destroy(session->g);
	for (v = session->values; v; v = next) {
		next = v->next;
		if (v->addr)
			hlrt_device_free(session->dev, v->addr);
		free(v);
	}
	hlrt_stream_destroy(session->stream);
	free(session);
	return HLRT_SUCCESS;
}
