// SPDX-License-Identifier: MIT
/*
 * transpose_f32 / transpose_bf16 against a host reference on random
 * shapes (1 to 5 dims, partial tiles) and random permutations, bit for
 * bit; bad permutations and dtypes refused. (The gradient, the inverse
 * permutation, is checked against finite differences in test_compiler.c.)
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define CASES 12

/* Element index of coordinates c in row-major dims. */
static uint64_t flat_index(const uint64_t *c, const uint64_t *dims, uint32_t nd)
{
	uint64_t i = 0;
	uint32_t d;

	for (d = 0; d < nd; d++)
		i = i * dims[d] + c[d];
	return i;
}

/* y.dims[i] = x.dims[perm[i]]: y[c] = x[c'] with c'[perm[i]] = c[i]. */
static void reference(const void *x, void *y, const uint64_t *xd, const uint32_t *perm,
		      uint32_t nd, size_t es)
{
	uint64_t yd[5], c[5] = { 0 }, cx[5], n = 1, k;
	uint32_t d;

	for (d = 0; d < nd; d++) {
		yd[d] = xd[perm[d]];
		n *= yd[d];
	}
	for (k = 0; k < n; k++) {
		for (d = 0; d < nd; d++)
			cx[perm[d]] = c[d];
		memcpy((uint8_t *)y + k * es, (const uint8_t *)x + flat_index(cx, xd, nd) * es, es);
		for (d = nd; d-- > 0;) {	/* next coordinate, row-major */
			if (++c[d] < yd[d])
				break;
			c[d] = 0;
		}
	}
}

START_TEST(transpose_matches_reference)
{
	const bool bf16 = _i % 2;
	const hlrt_dtype dt = bf16 ? HLRT_BF16 : HLRT_FP32;
	const size_t es = bf16 ? 2 : 4;
	uint32_t s = 900 + (uint32_t)_i, nd = 1 + (uint32_t)_i % 5, d, j;
	struct hlrt_transpose_params p = { { 0 } };
	struct rt_arg in = { .dtype = dt, .ndims = nd }, out;
	uint64_t n = 1, i;
	void *want;

	/* sizes: one dim often past a tile (64) for partial tiles, the rest small */
	for (d = 0; d < nd; d++) {
		in.dims[d] = d == (uint32_t)_i % nd ? 60 + rt_rand(&s) % 80 : 1 + rt_rand(&s) % 7;
		n *= in.dims[d];
		p.perm[d] = d;
	}
	for (d = nd; d-- > 1;) {	/* Fisher-Yates */
		uint32_t k = rt_rand(&s) % (d + 1), t = p.perm[d];

		p.perm[d] = p.perm[k];
		p.perm[k] = t;
	}
	in.data = malloc(n * es);
	want = malloc(n * es);
	ck_assert(in.data && want);
	for (i = 0; i < n; i++) {
		float v = rt_randf(&s, -100, 100);
		uint32_t bits;

		memcpy(&bits, &v, 4);
		if (bf16)
			((uint16_t *)in.data)[i] = (uint16_t)(bits >> 16);
		else
			((float *)in.data)[i] = v;
	}
	reference(in.data, want, in.dims, p.perm, nd, es);
	rt_run_op(bf16 ? "transpose_bf16" : "transpose_f32", &in, 1, &out, 1, &p, sizeof(p), 0);
	ck_assert_uint_eq(out.ndims, nd);
	for (j = 0; j < nd; j++)
		ck_assert_uint_eq(out.dims[j], in.dims[p.perm[j]]);
	ck_assert_msg(!memcmp(out.data, want, n * es), "case %d (%u dims): data differs", _i, nd);
	free(in.data);
	free(out.data);
	free(want);
}
END_TEST

START_TEST(transpose_refuses_bad_input)
{
	struct hlrt_tensor_desc d = { .name = "x", .dtype = HLRT_FP32, .ndims = 3,
				      .dims = { 2, 3, 4 }, .role = HLRT_TENSOR_INPUT };
	struct hlrt_transpose_params dup = { { 0, 0, 1 } }, big = { { 0, 3, 1 } };
	struct hlrt_transpose_params ok = { { 2, 0, 1 } };
	hlrt_tensor *x;
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &d, &x));
	ck_assert_int_eq(hlrt_node_create(g, "transpose_f32", &x, 1, NULL, 0, NULL, 0, NULL, &n),
			 HLRT_INVALID_ARGUMENT);	/* no permutation */
	ck_assert_int_eq(hlrt_node_create(g, "transpose_f32", &x, 1, NULL, 0, &dup, sizeof(dup),
					  NULL, &n), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "not a permutation"));
	ck_assert_int_eq(hlrt_node_create(g, "transpose_f32", &x, 1, NULL, 0, &big, sizeof(big),
					  NULL, &n), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_node_create(g, "transpose_bf16", &x, 1, NULL, 0, &ok, sizeof(ok),
					  NULL, &n), HLRT_INVALID_ARGUMENT);	/* dtype */
	HLRT_OK(hlrt_node_create(g, "transpose_f32", &x, 1, NULL, 0, &ok, sizeof(ok), NULL, &n));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

Suite *transpose_suite(void)
{
	Suite *s = suite_create("transpose");
	TCase *tc = tcase_create("transpose");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, transpose_matches_reference, 0, CASES);
	tcase_add_test(tc, transpose_refuses_bad_input);
	suite_add_tcase(s, tc);
	return s;
}
