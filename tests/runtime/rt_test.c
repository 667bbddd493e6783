// SPDX-License-Identifier: MIT
/* Helpers of the runtime host tests (see rt_test.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"
#include "sim_backend.h"

hlrt_device *rt_dev;
hlrt_stream *rt_stream;

/*
 * The same tests run on the in-process device (host suite) and, built
 * with RT_ON_DRIVER, on the real driver inside the VM (guest suite).
 */
void rt_setup(void)
{
#ifndef RT_ON_DRIVER
	sim_install();
#endif
	HLRT_OK(hlrt_device_acquire(0, &rt_dev));
	HLRT_OK(hlrt_stream_create(rt_dev, &rt_stream));
}

void rt_teardown(void)
{
	hlrt_device_release(rt_dev);
	rt_dev = NULL;
	rt_stream = NULL;
}

int64_t rt_submissions(void)
{
#ifdef RT_ON_DRIVER
	return -1;
#else
	return (int64_t)sim_get_stats()->submissions;
#endif
}

uint32_t rt_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

float rt_randf(uint32_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)(rt_rand(s) >> 8) / (float)(1u << 24);
}

uint64_t rt_upload(const void *data, uint64_t size)
{
	uint64_t addr;

	HLRT_OK(hlrt_device_malloc(rt_dev, size, &addr));
	if (data)
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, addr, data, size));
	return addr;
}

void rt_download(void *dst, uint64_t addr, uint64_t size)
{
	HLRT_OK(hlrt_memcpy_d2h(rt_dev, dst, addr, size));
}

void rt_bind_all(const hlrt_recipe *r, struct rt_binding_set *bs)
{
	uint32_t n, i;

	HLRT_OK(hlrt_recipe_persistent_count(r, &n));
	ck_assert_uint_le(n, 32);
	for (i = 0; i < n; i++) {
		struct hlrt_persistent_info info;
		char *name;

		HLRT_OK(hlrt_recipe_persistent_info(r, i, &info));
		name = strdup(info.name);
		ck_assert_ptr_nonnull(name);
		bs->b[i].name = name;
		bs->b[i].device_addr = rt_upload(NULL, info.bytes);
	}
	bs->n = n;
}

uint64_t rt_addr_of(const struct rt_binding_set *bs, const char *name)
{
	uint32_t i;

	for (i = 0; i < bs->n; i++)
		if (!strcmp(bs->b[i].name, name))
			return bs->b[i].device_addr;
	ck_abort_msg("no binding %s", name);
	return 0;
}

void rt_run(const hlrt_recipe *r, const struct rt_binding_set *bs)
{
	uint64_t ws = 0, size;

	HLRT_OK(hlrt_recipe_workspace_size(r, &size));
	if (size)
		ws = rt_upload(NULL, size);
	HLRT_OK(hlrt_launch(rt_stream, r, bs->b, bs->n, ws));
	HLRT_OK(hlrt_stream_synchronize(rt_stream));
	if (ws)
		HLRT_OK(hlrt_device_free(rt_dev, ws));
}

uint64_t rt_arg_elems(const struct rt_arg *a)
{
	uint64_t n = 1;
	uint32_t i;

	for (i = 0; i < a->ndims; i++)
		n *= a->dims[i];
	return n;
}

void rt_run_op_map(const char *guid, struct rt_arg *in, uint32_t n_in, struct rt_arg *out,
		   uint32_t n_out, const void *params, size_t psize, const int *out_is_in)
{
	hlrt_tensor *ti[8], *to[5] = { 0 };
	struct rt_binding_set bs = { 0 };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	hlrt_recipe *r;
	hlrt_graph *g;
	hlrt_node *n;
	uint32_t i;
	char name[16];

	HLRT_OK(hlrt_graph_create(&g));
	for (i = 0; i < n_in; i++) {
		struct hlrt_tensor_desc d = { .dtype = in[i].dtype, .ndims = in[i].ndims,
					      .role = HLRT_TENSOR_INPUT };

		snprintf(name, sizeof(name), "in%u", i);
		d.name = name;
		memcpy(d.dims, in[i].dims, sizeof(d.dims));
		HLRT_OK(hlrt_tensor_create(g, &d, &ti[i]));
	}
	for (i = 0; i < n_out; i++)
		to[i] = out_is_in[i] >= 0 ? ti[out_is_in[i]] : NULL;
	HLRT_OK(hlrt_node_create(g, guid, ti, n_in, to, n_out, params, psize, "op", &n));
	for (i = 0; i < n_out; i++)
		if (out_is_in[i] < 0)
			HLRT_OK(hlrt_tensor_set_role(hlrt_node_output(n, i), HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	for (i = 0; i < n_in; i++) {
		snprintf(name, sizeof(name), "in%u", i);
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, name), in[i].data,
					rt_arg_elems(&in[i]) * hlrt_dtype_size(in[i].dtype)));
	}
	rt_run(r, &bs);
	for (i = 0; i < n_out; i++) {
		hlrt_tensor *t = hlrt_node_output(n, i);
		struct hlrt_tensor_desc d;

		HLRT_OK(hlrt_tensor_get_desc(t, &d));
		out[i].dtype = d.dtype;
		out[i].ndims = d.ndims;
		memcpy(out[i].dims, d.dims, sizeof(out[i].dims));
		out[i].data = malloc(hlrt_tensor_bytes(t));
		ck_assert_ptr_nonnull(out[i].data);
		rt_download(out[i].data, rt_addr_of(&bs, hlrt_tensor_name(t)), hlrt_tensor_bytes(t));
	}
	for (i = 0; i < bs.n; i++) {
		HLRT_OK(hlrt_device_free(rt_dev, bs.b[i].device_addr));
		free((void *)bs.b[i].name);
	}
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}

void rt_run_op(const char *guid, const struct rt_arg *in, uint32_t n_in, struct rt_arg *out,
	       uint32_t n_out, const void *params, size_t psize, uint32_t in_place)
{
	hlrt_tensor *ti[8], *to[4] = { 0 };
	struct rt_binding_set bs = { 0 };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	hlrt_recipe *r;
	hlrt_graph *g;
	hlrt_node *n;
	uint32_t i;
	char name[16];

	HLRT_OK(hlrt_graph_create(&g));
	for (i = 0; i < n_in; i++) {
		struct hlrt_tensor_desc d = { .dtype = in[i].dtype, .ndims = in[i].ndims,
					      .role = HLRT_TENSOR_INPUT };

		snprintf(name, sizeof(name), "in%u", i);
		d.name = name;
		memcpy(d.dims, in[i].dims, sizeof(d.dims));
		if (in_place && i == in_place - 1)
			d.role = HLRT_TENSOR_PARAMETER;
		if (in_place && (i == 3 || i == 4) && i < 2 + n_out)
			d.role = HLRT_TENSOR_PARAMETER;	/* optimizer state */
		HLRT_OK(hlrt_tensor_create(g, &d, &ti[i]));
	}
	if (in_place) {
		to[0] = ti[in_place - 1];
		for (i = 1; i < n_out; i++)
			to[i] = ti[2 + i];
	}
	HLRT_OK(hlrt_node_create(g, guid, ti, n_in, in_place ? to : NULL, in_place ? n_out : 0,
				 params, psize, "op", &n));
	for (i = 0; i < n_out && !in_place; i++)
		HLRT_OK(hlrt_tensor_set_role(hlrt_node_output(n, i), HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	for (i = 0; i < n_in; i++) {
		snprintf(name, sizeof(name), "in%u", i);
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, name), in[i].data,
					rt_arg_elems(&in[i]) * hlrt_dtype_size(in[i].dtype)));
	}
	rt_run(r, &bs);
	for (i = 0; i < n_out; i++) {
		hlrt_tensor *t = hlrt_node_output(n, i);
		struct hlrt_tensor_desc d;

		HLRT_OK(hlrt_tensor_get_desc(t, &d));
		out[i].dtype = d.dtype;
		out[i].ndims = d.ndims;
		memcpy(out[i].dims, d.dims, sizeof(out[i].dims));
		out[i].data = malloc(hlrt_tensor_bytes(t));
		ck_assert_ptr_nonnull(out[i].data);
		rt_download(out[i].data, rt_addr_of(&bs, hlrt_tensor_name(t)), hlrt_tensor_bytes(t));
	}
	for (i = 0; i < bs.n; i++) {
		HLRT_OK(hlrt_device_free(rt_dev, bs.b[i].device_addr));
		free((void *)bs.b[i].name);
	}
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
