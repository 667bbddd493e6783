// SPDX-License-Identifier: MIT
/*
 * concat_f32 and slice_f32 on the device core: joins along every axis of
 * 1-D to 5-D inputs (rows not a multiple of the TPC's 64-lane tile) and
 * ranges of every axis equal the host's copies bit for bit; the gradient
 * rule through hlrt_graph_gradients slices dy; bad shapes and ranges are
 * refused with a clear error.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

static struct rt_arg random_arg(uint32_t nd, const uint64_t *dims, uint32_t *s)
{
	struct rt_arg a = { .dtype = HLRT_FP32, .ndims = nd };
	uint64_t i;

	memcpy(a.dims, dims, nd * sizeof(dims[0]));
	a.data = malloc(4 * rt_arg_elems(&a));
	ck_assert_ptr_nonnull(a.data);
	for (i = 0; i < rt_arg_elems(&a); i++)
		((float *)a.data)[i] = rt_randf(s, -4, 4);
	return a;
}

/* Elements of dims[from..nd) (the block one index of axis from - 1 spans). */
static uint64_t inner(const uint64_t *dims, uint32_t nd, uint32_t from)
{
	uint64_t e = 1;

	for (; from < nd; from++)
		e *= dims[from];
	return e;
}

static const uint64_t shapes[][5] = {
	{ 70 }, { 3, 67 }, { 2, 5, 130 }, { 2, 3, 4, 65 }, { 2, 2, 3, 2, 66 },
};

START_TEST(concat_and_slice_equal_host_copies)
{
	const uint32_t nd = (uint32_t)_i + 1;
	uint32_t s = 11 + (uint32_t)_i, axis, i;

	for (axis = 0; axis < nd; axis++) {
		struct hlrt_concat_params cp = { .axis = axis };
		struct rt_arg in[3], out[1], sl[1];
		uint64_t dims[5], at = 0, outer, blk, o;

		for (i = 0; i < 3; i++) {
			memcpy(dims, shapes[_i], sizeof(dims));
			dims[axis] = 1 + (dims[axis] + i) % 5;
			in[i] = random_arg(nd, dims, &s);
		}
		rt_run_op("concat_f32", in, 3, out, 1, &cp, sizeof(cp), 0);
		ck_assert_uint_eq(out[0].ndims, nd);
		ck_assert_uint_eq(out[0].dims[axis],
				  in[0].dims[axis] + in[1].dims[axis] + in[2].dims[axis]);
		outer = rt_arg_elems(&out[0]) / inner(out[0].dims, nd, axis);
		for (i = 0; i < 3; i++) {
			struct hlrt_slice_params sp = { .axis = axis, .start = at,
							.length = in[i].dims[axis] };

			blk = inner(in[i].dims, nd, axis);
			for (o = 0; o < outer; o++)
				ck_assert_msg(!memcmp((float *)out[0].data +
						      o * inner(out[0].dims, nd, axis) +
						      at * inner(out[0].dims, nd, axis + 1),
						      (float *)in[i].data + o * blk, 4 * blk),
					      "%u-D, axis %u, input %u, block %llu misplaced", nd,
					      axis, i, (unsigned long long)o);
			/* the slice of the join gives the input back */
			rt_run_op("slice_f32", out, 1, sl, 1, &sp, sizeof(sp), 0);
			ck_assert_uint_eq(rt_arg_elems(&sl[0]), rt_arg_elems(&in[i]));
			ck_assert_mem_eq(sl[0].data, in[i].data, 4 * rt_arg_elems(&in[i]));
			free(sl[0].data);
			at += in[i].dims[axis];
		}
		for (i = 0; i < 3; i++)
			free(in[i].data);
		free(out[0].data);
	}
}
END_TEST

/* loss = sum(reshape(concat(a, b)) * m): da and db are m's two ranges. */
START_TEST(concat_gradient_slices_dy)
{
	struct hlrt_tensor_desc ad = { .name = "a", .dtype = HLRT_FP32, .ndims = 3,
				       .dims = { 2, 3, 4 }, .role = HLRT_TENSOR_PARAMETER };
	struct hlrt_tensor_desc bd = { .name = "b", .dtype = HLRT_FP32, .ndims = 3,
				       .dims = { 2, 5, 4 }, .role = HLRT_TENSOR_PARAMETER };
	struct hlrt_tensor_desc md = { .name = "m", .dtype = HLRT_FP32, .ndims = 1,
				       .dims = { 64 }, .role = HLRT_TENSOR_INPUT };
	struct hlrt_tensor_desc ld = { .name = "loss", .dtype = HLRT_FP32, .ndims = 1,
				       .dims = { 1 }, .role = HLRT_TENSOR_OUTPUT };
	struct hlrt_concat_params cp = { .axis = 1 };
	struct hlrt_reshape_params flat = { .ndims = 1, .dims = { 64 } };
	struct hlrt_reduce_params all = { .axis = 0, .keepdims = 1 };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *p[2], *gr[2], *m, *loss, *t, *mm[2];
	float mv[64], ga[24], gb[40];
	uint32_t s = 3, i, j, k;
	hlrt_recipe *r;
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &ad, &p[0]));
	HLRT_OK(hlrt_tensor_create(g, &bd, &p[1]));
	HLRT_OK(hlrt_tensor_create(g, &md, &m));
	HLRT_OK(hlrt_tensor_create(g, &ld, &loss));
	HLRT_OK(hlrt_node_create(g, "concat_f32", p, 2, NULL, 0, &cp, sizeof(cp), "cat", &n));
	t = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "reshape", &t, 1, NULL, 0, &flat, sizeof(flat), "flat", &n));
	mm[0] = hlrt_node_output(n, 0);
	mm[1] = m;
	HLRT_OK(hlrt_node_create(g, "mul_f32", mm, 2, NULL, 0, NULL, 0, "mul", &n));
	t = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "reduce_sum_f32", &t, 1, &loss, 1, &all, sizeof(all), "sum",
				 &n));
	HLRT_OK(hlrt_graph_gradients(g, loss, p, 2, gr));
	for (i = 0; i < 2; i++)
		HLRT_OK(hlrt_tensor_set_role(gr[i], HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	for (i = 0; i < 64; i++)
		mv[i] = rt_randf(&s, -2, 2);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "m"), mv, sizeof(mv)));
	rt_run(r, &bs);
	rt_download(ga, rt_addr_of(&bs, hlrt_tensor_name(gr[0])), sizeof(ga));
	rt_download(gb, rt_addr_of(&bs, hlrt_tensor_name(gr[1])), sizeof(gb));
	for (i = 0; i < 2; i++)
		for (j = 0; j < 8; j++)
			for (k = 0; k < 4; k++) {
				float want = mv[(i * 8 + j) * 4 + k];

				if (j < 3)
					ck_assert_float_eq(ga[(i * 3 + j) * 4 + k], want);
				else
					ck_assert_float_eq(gb[(i * 5 + j - 3) * 4 + k], want);
			}
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
	for (i = 0; i < bs.n; i++) {
		HLRT_OK(hlrt_device_free(rt_dev, bs.b[i].device_addr));
		free((void *)bs.b[i].name);
	}
}
END_TEST

START_TEST(bad_concat_and_slice_refused)
{
	struct hlrt_tensor_desc d[3] = {
		{ .name = "x", .dtype = HLRT_FP32, .ndims = 2, .dims = { 3, 4 } },
		{ .name = "y", .dtype = HLRT_FP32, .ndims = 2, .dims = { 2, 5 } },
		{ .name = "z", .dtype = HLRT_INT32, .ndims = 2, .dims = { 3, 4 } },
	};
	const struct hlrt_slice_params bad_slices[] = {
		{ .axis = 2, .start = 0, .length = 1 },
		{ .axis = 1, .start = 4, .length = 1 },
		{ .axis = 1, .start = 1, .length = 0 },
		{ .axis = 0, .start = 1, .length = 3 },
	};
	struct hlrt_concat_params ax0 = { .axis = 0 }, ax1 = { .axis = 1 }, ax2 = { .axis = 2 };
	hlrt_tensor *t[3], *pair[2];
	hlrt_graph *g;
	hlrt_node *n;
	uint32_t i;

	HLRT_OK(hlrt_graph_create(&g));
	for (i = 0; i < 3; i++)
		HLRT_OK(hlrt_tensor_create(g, &d[i], &t[i]));
	pair[0] = t[0], pair[1] = t[1];
	/* [3,4] and [2,5] join along no axis */
	ck_assert_int_ne(hlrt_node_create(g, "concat_f32", pair, 2, NULL, 0, &ax0, sizeof(ax0),
					  "c0", &n), HLRT_SUCCESS);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "concat_f32"));
	ck_assert_int_ne(hlrt_node_create(g, "concat_f32", pair, 2, NULL, 0, &ax1, sizeof(ax1),
					  "c1", &n), HLRT_SUCCESS);
	ck_assert_int_ne(hlrt_node_create(g, "concat_f32", t, 1, NULL, 0, &ax2, sizeof(ax2),
					  "c2", &n), HLRT_SUCCESS);
	pair[1] = t[2];		/* INT32 */
	ck_assert_int_ne(hlrt_node_create(g, "concat_f32", pair, 2, NULL, 0, &ax0, sizeof(ax0),
					  "c3", &n), HLRT_SUCCESS);
	for (i = 0; i < sizeof(bad_slices) / sizeof(bad_slices[0]); i++) {
		ck_assert_msg(hlrt_node_create(g, "slice_f32", t, 1, NULL, 0, &bad_slices[i],
					       sizeof(bad_slices[i]), "s", &n) != HLRT_SUCCESS,
			      "slice %u accepted", i);
		ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "slice_f32"));
	}
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

Suite *concat_suite(void)
{
	Suite *s = suite_create("concat");
	TCase *tc = tcase_create("concat");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, concat_and_slice_equal_host_copies, 0,
			    (int)(sizeof(shapes) / sizeof(shapes[0])));
	tcase_add_test(tc, concat_gradient_slices_dy);
	tcase_add_test(tc, bad_concat_and_slice_refused);
	suite_add_tcase(s, tc);
	return s;
}
