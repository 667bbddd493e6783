// SPDX-License-Identifier: MIT
/*
 * gelu_fwd_f32 and gelu_bwd_f32, both forms (erf and tanh), against a
 * double-precision reference of the exact functions on the device core;
 * the gradient rule through hlrt_graph_gradients; bad params refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define GELU_K	0.79788456080286536	/* sqrt(2 / pi) */
#define GELU_C	0.044715

static double ref_fwd(double x, uint32_t form)
{
	if (form == HLRT_GELU_TANH)
		return 0.5 * x * (1.0 + tanh(GELU_K * (x + GELU_C * x * x * x)));
	return 0.5 * x * erfc(-x / sqrt(2.0));
}

static double ref_bwd(double x, uint32_t form)
{
	if (form == HLRT_GELU_TANH) {
		double th = tanh(GELU_K * (x + GELU_C * x * x * x));

		return 0.5 * (1.0 + th) +
		       0.5 * x * (1.0 - th * th) * GELU_K * (1.0 + 3.0 * GELU_C * x * x);
	}
	return 0.5 * erfc(-x / sqrt(2.0)) + x * exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
}

/* x over [-10, 10] with partial tiles and members, plus 0 and the tails' ends. */
static struct rt_arg gelu_input(uint64_t n, uint32_t seed)
{
	struct rt_arg a = { .dtype = HLRT_FP32, .ndims = 2, .dims = { 3, n / 3 } };
	uint64_t i;

	a.data = malloc(n * 4);
	ck_assert_ptr_nonnull(a.data);
	for (i = 0; i < n; i++)
		((float *)a.data)[i] = rt_randf(&seed, -10.0f, 10.0f);
	((float *)a.data)[0] = 0.0f;
	((float *)a.data)[1] = -10.0f;
	((float *)a.data)[2] = 10.0f;
	((float *)a.data)[3] = -1e-20f;
	return a;
}

/*
 * The error of got against ref, in units of a binary32 ulp of ref's
 * magnitude (at least of 1e-30, so exact zeros of the tails compare).
 */
static double ulps(float got, double ref)
{
	double m = fabs(ref) > 1e-30 ? fabs(ref) : 1e-30;

	return fabs((double)got - ref) / (ldexp(1.0, ilogb(m)) * 0x1p-23);
}

/*
 * The tanh form in binary32, operation by operation as the kernels (and
 * PyTorch's CPU kernel) do it, tanh the C library's tanhf like the ISA's.
 */
static float tanh_fwd_f32(float x)
{
	float in = (((x * x) * x) * 0.044715f + x) * 0.79788456080286536f;

	return x * ((tanhf(in) + 1.0f) * 0.5f);
}

static float tanh_bwd_f32(float dy, float x)
{
	float x2 = x * x, th = tanhf(((x2 * x) * 0.044715f + x) * 0.79788456080286536f);
	float right = ((-(th * th) + 1.0f) * ((x2 * 0.134145f + 1.0f) * 0.79788456080286536f)) *
		      (x * 0.5f);

	return (((th + 1.0f) * 0.5f) + right) * dy;
}

/*
 * The erf form against the exact function: a few binary32 ulp, more in
 * the left tail where exp's argument (-x^2 / 2) carries its rounding
 * (measured: 13.6 ulp for x >= -3, see the bounds). The tanh form bit for
 * bit against the same binary32 operations.
 */
START_TEST(gelu_forward_and_backward)
{
	uint32_t form = (uint32_t)_i;
	const uint64_t n = 3 * (4096 + 64 * 5 + 7);
	struct hlrt_gelu_params p = { .approximate = form };
	struct rt_arg x[1] = { gelu_input(n, 91 + form) }, bin[2], y[1], dx[1];
	double worst_y = 0, worst_dx = 0, worst_tail = 0;
	uint32_t s = 5;
	uint64_t i;

	bin[0] = gelu_input(n, 17);			/* dy */
	for (i = 0; i < n; i++)
		((float *)bin[0].data)[i] = rt_randf(&s, -2.0f, 2.0f);
	bin[1] = x[0];
	rt_run_op("gelu_fwd_f32", x, 1, y, 1, &p, sizeof(p), 0);
	rt_run_op("gelu_bwd_f32", bin, 2, dx, 1, &p, sizeof(p), 0);
	ck_assert_uint_eq(y[0].ndims, 2);
	ck_assert_uint_eq(y[0].dims[1], n / 3);
	for (i = 0; i < n; i++) {
		float v = ((float *)x[0].data)[i], dy = ((float *)bin[0].data)[i];
		float gy = ((float *)y[0].data)[i], gdx = ((float *)dx[0].data)[i];

		if (form == HLRT_GELU_TANH) {
			float wy = tanh_fwd_f32(v), wdx = tanh_bwd_f32(dy, v);

			ck_assert_msg(!memcmp(&gy, &wy, 4) && !memcmp(&gdx, &wdx, 4),
				      "x = %a: %a %a, want %a %a", v, gy, gdx, wy, wdx);
			continue;
		}
		if (v < -3.0f)
			worst_tail = fmax(worst_tail, ulps(gy, ref_fwd(v, form)));
		else
			worst_y = fmax(worst_y, ulps(gy, ref_fwd(v, form)));
		/* the gradient: absolute, against dy's scale */
		worst_dx = fmax(worst_dx, fabs((double)gdx - dy * ref_bwd(v, form)) /
					  fmax(fabs(dy), 1e-3));
	}
	if (form == HLRT_GELU_NONE) {
		fprintf(stderr, "gelu (erf): forward within %.1f ulp for x >= -3, %.1f ulp below; "
			"gradient within %.2g * |dy|\n", worst_y, worst_tail, worst_dx);
		ck_assert_msg(worst_y <= 16.0, "forward: %g ulp", worst_y);
		ck_assert_msg(worst_tail <= 256.0, "tail: %g ulp", worst_tail);
		ck_assert_msg(worst_dx <= 1e-6, "gradient: %g", worst_dx);
	}
	free(x[0].data);
	free(bin[0].data);
	free(y[0].data);
	free(dx[0].data);
}
END_TEST

/* loss = sum(gelu(x)): autodiff's gradient is gelu_bwd_f32 of ones, in the forward's form. */
START_TEST(gelu_gradient_rule)
{
	uint32_t form = (uint32_t)_i;
	struct hlrt_gelu_params p = { .approximate = form };
	struct hlrt_reduce_params rp = { .axis = 0 };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct hlrt_tensor_desc xd = { .name = "x", .dtype = HLRT_FP32, .ndims = 1,
				       .dims = { 300 }, .role = HLRT_TENSOR_PARAMETER };
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *x, *y, *loss, *grad;
	float xv[300], gv[300];
	uint32_t s = 3, i;
	hlrt_graph *g;
	hlrt_recipe *r;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &xd, &x));
	HLRT_OK(hlrt_node_create(g, "gelu_fwd_f32", &x, 1, NULL, 0, &p, sizeof(p), "gelu", &n));
	y = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "reduce_sum_f32", &y, 1, NULL, 0, &rp, sizeof(rp), "sum", &n));
	loss = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_tensor_set_role(loss, HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_gradients(g, loss, &x, 1, &grad));
	HLRT_OK(hlrt_tensor_set_role(grad, HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	for (i = 0; i < 300; i++)
		xv[i] = rt_randf(&s, -4.0f, 4.0f);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "x"), xv, sizeof(xv)));
	rt_run(r, &bs);
	rt_download(gv, rt_addr_of(&bs, hlrt_tensor_name(grad)), sizeof(gv));
	for (i = 0; i < 300; i++)
		ck_assert_msg(fabs(gv[i] - ref_bwd(xv[i], form)) <= 1e-6,
			      "x = %g: gradient %g, want %g", xv[i], gv[i], ref_bwd(xv[i], form));
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

START_TEST(gelu_refuses_unknown_form)
{
	struct hlrt_gelu_params p = { .approximate = 2 };
	struct hlrt_tensor_desc xd = { .name = "x", .dtype = HLRT_FP32, .ndims = 1,
				       .dims = { 8 }, .role = HLRT_TENSOR_INPUT };
	hlrt_tensor *x, *in[2];
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &xd, &x));
	in[0] = in[1] = x;
	ck_assert_int_eq(hlrt_node_create(g, "gelu_fwd_f32", in, 1, NULL, 0, &p, sizeof(p), "g",
					  &n), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "unknown approximate 2"));
	ck_assert_int_eq(hlrt_node_create(g, "gelu_bwd_f32", in, 2, NULL, 0, &p, sizeof(p), "g",
					  &n), HLRT_INVALID_ARGUMENT);
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

Suite *gelu_suite(void)
{
	Suite *s = suite_create("gelu");
	TCase *tc = tcase_create("ops");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, gelu_forward_and_backward, HLRT_GELU_NONE, HLRT_GELU_TANH + 1);
	tcase_add_loop_test(tc, gelu_gradient_rule, HLRT_GELU_NONE, HLRT_GELU_TANH + 1);
	tcase_add_test(tc, gelu_refuses_unknown_form);
	suite_add_tcase(s, tc);
	return s;
}
