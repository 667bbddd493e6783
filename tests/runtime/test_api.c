// SPDX-License-Identifier: MIT
/*
 * The public API's contracts: bad arguments get a clear status and a
 * message and leave the runtime working; device visibility lists and
 * ranges; copies, memsets and events on streams; launch refuses missing
 * bindings and workspace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"
#include "sim_backend.h"

START_TEST(status_names_and_dtypes)
{
	ck_assert_str_eq(hlrt_status_name(HLRT_SUCCESS), "HLRT_SUCCESS");
	ck_assert_str_eq(hlrt_status_name(HLRT_UNSUPPORTED), "HLRT_UNSUPPORTED");
	ck_assert_str_eq(hlrt_status_name((hlrt_status)999), "HLRT_UNKNOWN_STATUS");
	ck_assert_uint_eq(hlrt_dtype_size(HLRT_BF16), 2);
	ck_assert_uint_eq(hlrt_dtype_size(HLRT_INT64), 8);
	ck_assert_uint_eq(hlrt_dtype_size((hlrt_dtype)6), 0);
	ck_assert_str_eq(hlrt_dtype_suffix(HLRT_UINT16), "u16");
}
END_TEST

START_TEST(visibility)
{
	uint32_t n;
	hlrt_device *d;

	sim_install();
	setenv("HABANA_VISIBLE_DEVICES", "all", 1);
	HLRT_OK(hlrt_device_count(&n));
	ck_assert_uint_eq(n, 1);
	setenv("HABANA_VISIBLE_DEVICES", "1-3", 1);
	HLRT_OK(hlrt_device_count(&n));
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(hlrt_device_acquire(0, &d), HLRT_NO_DEVICE);
	/* The error names the mask that hid the device there is. */
	setenv("HABANA_VISIBLE_DEVICES", "9", 1);
	ck_assert_int_eq(hlrt_device_acquire(0, &d), HLRT_NO_DEVICE);
	ck_assert_msg(strstr(hlrt_last_error(), "no visible device 0 (0 visible of 1 present; "
				 "HABANA_VISIBLE_DEVICES=9)"), "%s", hlrt_last_error());
	setenv("HABANA_VISIBLE_DEVICES", "2,0", 1);
	HLRT_OK(hlrt_device_count(&n));
	ck_assert_uint_eq(n, 1);
	setenv("HABANA_VISIBLE_DEVICES", "0x", 1);	/* malformed: refused */
	ck_assert_int_eq(hlrt_device_count(&n), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_device_acquire(0, &d), HLRT_INVALID_ARGUMENT);
	setenv("HABANA_VISIBLE_DEVICES", "1-", 1);
	ck_assert_int_eq(hlrt_device_count(&n), HLRT_INVALID_ARGUMENT);
	unsetenv("HABANA_VISIBLE_DEVICES");
	setenv("HABANA_VISIBLE_MODULES", "0", 1);
	HLRT_OK(hlrt_device_acquire_by_module(0, &d));
	HLRT_OK(hlrt_device_release(d));
	ck_assert_int_eq(hlrt_device_acquire_by_module(5, &d), HLRT_NO_DEVICE);
	unsetenv("HABANA_VISIBLE_MODULES");
}
END_TEST

START_TEST(bad_arguments)
{
	struct hlrt_tensor_desc d = { .name = "x", .dtype = HLRT_FP32, .ndims = 2,
				      .dims = { 4, 5 }, .role = HLRT_TENSOR_INPUT };
	hlrt_tensor *x, *y, *in[2];
	hlrt_graph *g;
	hlrt_node *n;
	uint64_t addr;

	ck_assert_int_eq(hlrt_device_malloc(rt_dev, 0, &addr), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_device_free(rt_dev, 0x1234), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "not a device allocation"));
	ck_assert_int_eq(hlrt_host_free(rt_dev, &addr), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_graph_create(NULL), HLRT_INVALID_ARGUMENT);
	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &d, &x));
	ck_assert_int_eq(hlrt_tensor_create(g, &d, &y), HLRT_INVALID_ARGUMENT);	/* same name */
	d.name = "y";
	d.dims[1] = 0;
	ck_assert_int_eq(hlrt_tensor_create(g, &d, &y), HLRT_INVALID_ARGUMENT);	/* dim 0 */
	d.dims[1] = 6;
	d.dtype = (hlrt_dtype)6;
	ck_assert_int_eq(hlrt_tensor_create(g, &d, &y), HLRT_INVALID_ARGUMENT);	/* dtype */
	d.dtype = HLRT_FP32;
	HLRT_OK(hlrt_tensor_create(g, &d, &y));
	in[0] = x;
	in[1] = y;
	ck_assert_int_eq(hlrt_node_create(g, "no_such_op", in, 2, NULL, 0, NULL, 0, NULL, &n),
			 HLRT_NOT_FOUND);
	ck_assert_int_eq(hlrt_node_create(g, "add_f32", in, 2, NULL, 0, NULL, 0, NULL, &n),
			 HLRT_INVALID_ARGUMENT);	/* shapes differ */
	ck_assert_int_eq(hlrt_node_create(g, "add_f32", in, 1, NULL, 0, NULL, 0, NULL, &n),
			 HLRT_INVALID_ARGUMENT);	/* one input */
	ck_assert_int_eq(hlrt_node_create(g, "conv2d_fwd_f32", in, 2, NULL, 0, NULL, 0, NULL, &n),
			 HLRT_INVALID_ARGUMENT);	/* no parameters */
	ck_assert_int_eq(hlrt_node_create(g, "transpose_f32", in, 1, NULL, 0, NULL, 0, NULL, &n),
			 HLRT_INVALID_ARGUMENT);	/* no permutation */
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "give the permutation"));
	/* gemm: [4,5] x [4,6] has mismatched inner dimensions */
	ck_assert_int_eq(hlrt_node_create(g, "gemm_f32", in, 2, NULL, 0, NULL, 0, NULL, &n),
			 HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "inner dimensions"));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

START_TEST(launch_checks_bindings)
{
	struct hlrt_tensor_desc d = { .name = "x", .dtype = HLRT_FP32, .ndims = 1,
				      .dims = { 100 }, .role = HLRT_TENSOR_INPUT };
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *x, *y, *z;
	hlrt_graph *g;
	hlrt_node *n;
	hlrt_recipe *r;
	uint64_t ws;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &d, &x));
	HLRT_OK(hlrt_node_create(g, "relu_fwd_f32", &x, 1, NULL, 0, NULL, 0, NULL, &n));
	y = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "relu_fwd_f32", &y, 1, NULL, 0, NULL, 0, NULL, &n));
	z = hlrt_node_output(n, 0);
	/* nothing is an output yet: nothing to compute */
	ck_assert_int_eq(hlrt_graph_compile(g, NULL, &r), HLRT_INVALID_ARGUMENT);
	HLRT_OK(hlrt_tensor_set_role(z, HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, NULL, &r));
	HLRT_OK(hlrt_recipe_workspace_size(r, &ws));
	ck_assert_uint_gt(ws, 0);
	rt_bind_all(r, &bs);
	ck_assert_int_eq(hlrt_launch(rt_stream, r, bs.b, bs.n, 0), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "workspace"));
	ck_assert_int_eq(hlrt_launch(rt_stream, r, bs.b, 1, rt_upload(NULL, ws)),
			 HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "is not bound"));
	/* and the runtime still works */
	rt_run(r, &bs);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* y = relu(x) on 64 floats, launched with the bindings of launch k; y checked. */
static void relu_launch(const hlrt_recipe *r, const struct hlrt_tensor_binding *b, uint32_t n,
			uint64_t ws, uint64_t x_addr, uint64_t y_addr, float scale)
{
	float x[64], y[64];
	uint32_t i;

	for (i = 0; i < 64; i++)
		x[i] = scale * ((float)i - 31.5f);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, x_addr, x, sizeof(x)));
	HLRT_OK(hlrt_launch(rt_stream, r, b, n, ws));
	HLRT_OK(hlrt_stream_synchronize(rt_stream));
	rt_download(y, y_addr, sizeof(y));
	for (i = 0; i < 64; i++)
		ck_assert_float_eq(y[i], x[i] > 0 ? x[i] : 0.0f);
}

/*
 * A launch remembers which tensor each binding named; the next launch's
 * bindings may come in another order, with other names in the same
 * places, or with a name rewritten in the same buffer, and still bind by
 * name.
 */
START_TEST(launch_binds_by_name_every_time)
{
	struct hlrt_tensor_desc d = { .name = "x", .dtype = HLRT_FP32, .ndims = 1,
				      .dims = { 64 }, .role = HLRT_TENSOR_INPUT };
	char long_name[100], yname[8] = "y";
	struct hlrt_tensor_binding b[4];
	uint64_t xa[2], ya[2], ws, wsa;
	hlrt_tensor *x, *y;
	hlrt_graph *g;
	hlrt_node *n;
	hlrt_recipe *r;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &d, &x));
	d.name = "y";
	d.role = HLRT_TENSOR_OUTPUT;
	HLRT_OK(hlrt_tensor_create(g, &d, &y));
	HLRT_OK(hlrt_node_create(g, "relu_fwd_f32", &x, 1, &y, 1, NULL, 0, NULL, &n));
	HLRT_OK(hlrt_graph_compile(g, NULL, &r));
	HLRT_OK(hlrt_recipe_workspace_size(r, &ws));
	wsa = ws ? rt_upload(NULL, ws) : 0;
	for (int i = 0; i < 2; i++) {
		xa[i] = rt_upload(NULL, 64 * sizeof(float));
		ya[i] = rt_upload(NULL, 64 * sizeof(float));
	}
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	b[0] = (struct hlrt_tensor_binding){ "x", xa[0] };
	b[1] = (struct hlrt_tensor_binding){ yname, ya[0] };
	relu_launch(r, b, 2, wsa, xa[0], ya[0], 1.0f);
	/* the other order, with a name the recipe lacks and one too long to be a tensor's */
	b[0] = (struct hlrt_tensor_binding){ yname, ya[1] };
	b[1] = (struct hlrt_tensor_binding){ "unused", 4096 };
	b[2] = (struct hlrt_tensor_binding){ long_name, 4096 };
	b[3] = (struct hlrt_tensor_binding){ "x", xa[1] };
	relu_launch(r, b, 4, wsa, xa[1], ya[1], 2.0f);
	relu_launch(r, b, 4, wsa, xa[1], ya[1], -3.0f);
	/* the same buffer now names no tensor: y is not bound */
	strcpy(yname, "z");
	ck_assert_int_eq(hlrt_launch(rt_stream, r, b, 4, wsa), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "\"y\" is not bound"));
	/* and back to the first bindings */
	strcpy(yname, "y");
	b[0] = (struct hlrt_tensor_binding){ "x", xa[0] };
	b[1] = (struct hlrt_tensor_binding){ yname, ya[0] };
	relu_launch(r, b, 2, wsa, xa[0], ya[0], 0.5f);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

START_TEST(copies_memset_events)
{
	uint8_t *pinned, buf[10000], back[10000];
	hlrt_event *e0, *e1;
	uint64_t a, b, ns;
	uint32_t s = 2, i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rt_rand(&s);
	HLRT_OK(hlrt_device_malloc(rt_dev, sizeof(buf), &a));
	HLRT_OK(hlrt_device_malloc(rt_dev, sizeof(buf), &b));
	HLRT_OK(hlrt_host_malloc(rt_dev, sizeof(buf), (void **)&pinned));
	HLRT_OK(hlrt_event_create(rt_dev, &e0));
	HLRT_OK(hlrt_event_create(rt_dev, &e1));
	memcpy(pinned, buf, sizeof(buf));
	HLRT_OK(hlrt_event_record(e0, rt_stream));
	HLRT_OK(hlrt_memcpy_h2d_async(rt_stream, a, pinned, sizeof(buf)));
	HLRT_OK(hlrt_memcpy_d2d_async(rt_stream, b, a, sizeof(buf)));
	HLRT_OK(hlrt_memset_async(rt_stream, b + 100, 0xab, 50));
	memset(pinned, 0, sizeof(buf));
	HLRT_OK(hlrt_memcpy_d2h_async(rt_stream, pinned, b, sizeof(buf)));
	HLRT_OK(hlrt_event_record(e1, rt_stream));
	HLRT_OK(hlrt_event_synchronize(e1));
	HLRT_OK(hlrt_event_query(e1));
	HLRT_OK(hlrt_event_elapsed_ns(&ns, e0, e1));
	ck_assert_uint_gt(ns, 0);
	memset(buf + 100, 0xab, 50);
	ck_assert(!memcmp(pinned, buf, sizeof(buf)));
	/* unpinned memory works too (staged) */
	HLRT_OK(hlrt_memcpy_d2h(rt_dev, back, b, sizeof(back)));
	ck_assert(!memcmp(back, buf, sizeof(buf)));
	ck_assert_int_eq(hlrt_memcpy_h2d_async(rt_stream, a, buf, 0), HLRT_INVALID_ARGUMENT);
	HLRT_OK(hlrt_event_destroy(e0));
	HLRT_OK(hlrt_event_destroy(e1));
	HLRT_OK(hlrt_host_free(rt_dev, pinned));
}
END_TEST

START_TEST(stream_limit_and_info)
{
	struct hlrt_device_info info;
	hlrt_stream *s2, *s3, *s4;

	HLRT_OK(hlrt_device_get_info(rt_dev, &info));
	ck_assert_uint_eq(info.num_tpc, 8);
	ck_assert_uint_gt(info.hbm_total, 0);
	ck_assert_uint_le(info.hbm_free, info.hbm_total);
	HLRT_OK(hlrt_stream_create(rt_dev, &s2));
	HLRT_OK(hlrt_stream_create(rt_dev, &s3));
	ck_assert_int_eq(hlrt_stream_create(rt_dev, &s4), HLRT_UNSUPPORTED);
	HLRT_OK(hlrt_stream_destroy(s3));
	HLRT_OK(hlrt_stream_create(rt_dev, &s4));
	HLRT_OK(hlrt_stream_destroy(s2));
	HLRT_OK(hlrt_stream_destroy(s4));
}
END_TEST

char *hlrt_ops_markdown(void);

/* docs/ops.md is the registry's: regenerate it (make -C runtime ops-doc) after a change. */
START_TEST(ops_doc_is_current)
{
	char *want = hlrt_ops_markdown(), *got;
	FILE *f = fopen(RT_OPS_MD, "r");
	long n;

	ck_assert_ptr_nonnull(want);
	ck_assert_msg(f != NULL, "cannot open %s", RT_OPS_MD);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	got = calloc(1, (size_t)n + 1);
	ck_assert_uint_eq(fread(got, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	ck_assert_msg(!strcmp(got, want), "docs/ops.md is stale: make -C runtime ops-doc");
	free(got);
	free(want);
}
END_TEST

/* A registry GUID's family: the dtype suffix dropped, every cast one family. */
static void guid_family(const char *guid, char *fam, size_t len)
{
	static const char *const suffixes[] = { "_f32", "_bf16", "_i64", "_i32", "_i16", "_i8",
						"_u16", "_u8" };
	size_t n = strlen(guid);

	if (!strncmp(guid, "cast_", 5)) {
		snprintf(fam, len, "cast");
		return;
	}
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);

		if (n > k && !strcmp(guid + n - k, suffixes[i])) {
			n -= k;
			break;
		}
	}
	snprintf(fam, len, "%.*s", (int)n, guid);
}

static bool in_list(char (*list)[64], unsigned n, const char *s)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/*
 * hlrt.h's STATUS block lists every op family of the registry, and nothing
 * else: an op added or removed without STATUS following fails here.
 */
START_TEST(status_block_lists_the_registry)
{
	static char listed[256][64], registry[256][64];
	unsigned n_listed = 0, n_registry = 0;
	char *md = hlrt_ops_markdown(), *line, *save, *text, *ops, *end, *tok;
	FILE *f = fopen(RT_HLRT_H, "r");
	long n;

	ck_assert_ptr_nonnull(md);
	ck_assert_msg(f != NULL, "cannot open %s", RT_HLRT_H);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)n + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	/* The registry's GUIDs: the rows of its markdown, "| `guid` | ...". */
	for (line = strtok_r(md, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char guid[64], fam[64];

		if (sscanf(line, "| `%63[a-z0-9_]` |", guid) != 1)
			continue;
		guid_family(guid, fam, sizeof(fam));
		if (!in_list(registry, n_registry, fam))
			snprintf(registry[n_registry++], sizeof(registry[0]), "%s", fam);
	}
	ck_assert_uint_gt(n_registry, 20);
	/* STATUS's ops list: from "ops (...):" to the first '.' after it. */
	ops = strstr(strstr(text, " * STATUS"), " *   ops (");
	ck_assert_ptr_nonnull(ops);
	ops = strstr(ops, "):");
	ck_assert_ptr_nonnull(ops);
	ops += 2;
	end = strchr(ops, '.');
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	for (tok = strtok_r(ops, ", *\n\t", &save); tok; tok = strtok_r(NULL, ", *\n\t", &save)) {
		ck_assert_msg(!in_list(listed, n_listed, tok), "STATUS lists %s twice", tok);
		snprintf(listed[n_listed++], sizeof(listed[0]), "%s", tok);
	}
	for (unsigned i = 0; i < n_registry; i++)
		ck_assert_msg(in_list(listed, n_listed, registry[i]),
			      "the registry has %s, hlrt.h's STATUS does not list it", registry[i]);
	for (unsigned i = 0; i < n_listed; i++)
		ck_assert_msg(in_list(registry, n_registry, listed[i]),
			      "hlrt.h's STATUS lists %s, the registry has no such op", listed[i]);
	free(text);
	free(md);
}
END_TEST

Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");

	tcase_add_test(tc, status_names_and_dtypes);
	tcase_add_test(tc, visibility);
	tcase_add_test(tc, status_block_lists_the_registry);
	tcase_add_test(tc, ops_doc_is_current);
	suite_add_tcase(s, tc);
	tc = tcase_create("device");
	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, launch_checks_bindings);
	tcase_add_test(tc, launch_binds_by_name_every_time);
	tcase_add_test(tc, copies_memset_events);
	tcase_add_test(tc, stream_limit_and_info);
	suite_add_tcase(s, tc);
	return s;
}
