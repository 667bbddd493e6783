// SPDX-License-Identifier: MIT
/*
 * optimizer_lamb_f32 against a host reference written the way the
 * kernels compute (binary32, the same operation order, the fixed-order
 * chunk and lane sums), bit for bit: several steps with bias correction
 * and weight decay, on a tensor of several 4096-element chunks with a
 * partial tile and on a small one that starts at zero (the trust ratio's
 * fallback, 1, on the first step); and hlrt_graph_train with LAMB trains a model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define STEPS	4
#define BIG	(3 * 4096 + 777)
#define SMALL	10

static const struct hlrt_lamb_params lamb = { .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-6f,
					      .weight_decay = 0.01f };

/* sum of squares the way lamb_sumsq_f32 + lamb_apply_f32 add them up */
static float ref_sumsq(const float *x, uint64_t n)
{
	float total = 0;
	uint64_t c0;

	for (c0 = 0; c0 < n; c0 += 4096) {
		float lane[64] = { 0 };
		uint64_t t, end = c0 + 4096 < n ? c0 + 4096 : n;
		uint32_t l, s;

		for (t = c0; t < end; t += 64)
			for (l = 0; l < 64; l++)
				if (t + l < end) {
					float sq = x[t + l] * x[t + l];

					lane[l] = lane[l] + sq;
				}
		for (s = 32; s >= 1; s /= 2)
			for (l = 0; l < s; l++)
				lane[l] = lane[l] + lane[l + s];
		total = total + lane[0];
	}
	return total;
}

/* One LAMB step on the host: w, m, v updated in place. */
static void ref_lamb(float *w, float *m, float *v, const float *g, uint64_t n, float lr,
		     int32_t done)
{
	const float b1 = lamb.beta1, b2 = lamb.beta2, t = (float)(done + 1);
	const float bc1 = 1.0f / (1.0f - expf(logf(b1) * t));
	const float bc2 = 1.0f / (1.0f - expf(logf(b2) * t));
	const float c1 = 1.0f - b1, c2 = 1.0f - b2;
	float *u = malloc(sizeof(float) * n), nw, nu, r;
	uint64_t i;

	ck_assert_ptr_nonnull(u);
	for (i = 0; i < n; i++) {
		float gg = g[i] * g[i], den;

		m[i] = m[i] * b1 + g[i] * c1;
		v[i] = v[i] * b2 + gg * c2;
		den = 1.0f / (sqrtf(v[i] * bc2) + lamb.eps);
		u[i] = (m[i] * bc1) * den + w[i] * lamb.weight_decay;
	}
	nw = sqrtf(ref_sumsq(w, n));
	nu = sqrtf(ref_sumsq(u, n));
	r = nw > 0 && nu > 0 ? nw * (1.0f / nu) : 1.0f;
	r = r * lr;
	for (i = 0; i < n; i++)
		w[i] = w[i] - u[i] * r;
	free(u);
}

struct lamb_param {
	const char *name;
	uint64_t n;
	float *w, *m, *v, *g;
	hlrt_tensor *tw, *tm, *tv, *tg;
};

static hlrt_tensor *vec(hlrt_graph *g, const char *name, hlrt_dtype dt, uint64_t n,
			hlrt_tensor_role role)
{
	struct hlrt_tensor_desc d = { .name = name, .dtype = dt, .ndims = 1, .dims = { n },
				      .role = role };
	hlrt_tensor *t;

	HLRT_OK(hlrt_tensor_create(g, &d, &t));
	return t;
}

static void upload(const struct rt_binding_set *bs, const char *name, const void *p, size_t n)
{
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(bs, name), p, n));
}

static void expect_same(const float *dev, const float *ref, uint64_t n, const char *what,
			uint32_t step)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (memcmp(&dev[i], &ref[i], 4))
			ck_abort_msg("step %u: %s[%llu] = %.9g, reference %.9g", step, what,
				     (unsigned long long)i, dev[i], ref[i]);
}

START_TEST(lamb_matches_reference)
{
	struct lamb_param p[2] = { { .name = "big", .n = BIG }, { .name = "small", .n = SMALL } };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct rt_binding_set bs = { 0 };
	char nm[4][32];
	hlrt_tensor *lr_t, *step_t;
	hlrt_recipe *r;
	hlrt_graph *g;
	float lr = 0.02f, *back;
	uint32_t s = 555, k, step, i;

	HLRT_OK(hlrt_graph_create(&g));
	lr_t = vec(g, "lr", HLRT_FP32, 1, HLRT_TENSOR_INPUT);
	step_t = vec(g, "step", HLRT_INT32, 1, HLRT_TENSOR_INPUT);
	for (k = 0; k < 2; k++) {
		hlrt_tensor *in[6], *out[3];
		hlrt_node *n;

		snprintf(nm[0], sizeof(nm[0]), "%s/w", p[k].name);
		snprintf(nm[1], sizeof(nm[1]), "%s/m", p[k].name);
		snprintf(nm[2], sizeof(nm[2]), "%s/v", p[k].name);
		snprintf(nm[3], sizeof(nm[3]), "%s/g", p[k].name);
		p[k].tw = vec(g, nm[0], HLRT_FP32, p[k].n, HLRT_TENSOR_PARAMETER);
		p[k].tm = vec(g, nm[1], HLRT_FP32, p[k].n, HLRT_TENSOR_PARAMETER);
		p[k].tv = vec(g, nm[2], HLRT_FP32, p[k].n, HLRT_TENSOR_PARAMETER);
		p[k].tg = vec(g, nm[3], HLRT_FP32, p[k].n, HLRT_TENSOR_INPUT);
		in[0] = p[k].tg, in[1] = p[k].tw, in[2] = lr_t, in[3] = p[k].tm;
		in[4] = p[k].tv, in[5] = step_t;
		out[0] = p[k].tw, out[1] = p[k].tm, out[2] = p[k].tv;
		HLRT_OK(hlrt_node_create(g, "optimizer_lamb_f32", in, 6, out, 3, &lamb,
					 sizeof(lamb), p[k].name, &n));
		p[k].w = malloc(4 * p[k].n);
		p[k].m = calloc(p[k].n, 4);
		p[k].v = calloc(p[k].n, 4);
		p[k].g = malloc(4 * p[k].n);
		ck_assert(p[k].w && p[k].m && p[k].v && p[k].g);
		for (i = 0; i < p[k].n; i++)
			p[k].w[i] = k ? 0 : rt_randf(&s, -1, 1);
	}
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	upload(&bs, "lr", &lr, 4);
	for (k = 0; k < 2; k++) {
		upload(&bs, hlrt_tensor_name(p[k].tw), p[k].w, 4 * p[k].n);
		upload(&bs, hlrt_tensor_name(p[k].tm), p[k].m, 4 * p[k].n);
		upload(&bs, hlrt_tensor_name(p[k].tv), p[k].v, 4 * p[k].n);
	}
	back = malloc(4 * BIG);
	ck_assert_ptr_nonnull(back);
	for (step = 0; step < STEPS; step++) {
		int32_t done = (int32_t)step;

		upload(&bs, "step", &done, 4);
		for (k = 0; k < 2; k++) {
			for (i = 0; i < p[k].n; i++)
				p[k].g[i] = rt_randf(&s, -0.5f, 0.5f);
			upload(&bs, hlrt_tensor_name(p[k].tg), p[k].g, 4 * p[k].n);
			ref_lamb(p[k].w, p[k].m, p[k].v, p[k].g, p[k].n, lr, done);
		}
		rt_run(r, &bs);
		for (k = 0; k < 2; k++) {
			rt_download(back, rt_addr_of(&bs, hlrt_tensor_name(p[k].tm)), 4 * p[k].n);
			expect_same(back, p[k].m, p[k].n, hlrt_tensor_name(p[k].tm), step);
			rt_download(back, rt_addr_of(&bs, hlrt_tensor_name(p[k].tv)), 4 * p[k].n);
			expect_same(back, p[k].v, p[k].n, hlrt_tensor_name(p[k].tv), step);
			rt_download(back, rt_addr_of(&bs, hlrt_tensor_name(p[k].tw)), 4 * p[k].n);
			expect_same(back, p[k].w, p[k].n, hlrt_tensor_name(p[k].tw), step);
		}
	}
	for (i = 0; i < bs.n; i++) {
		HLRT_OK(hlrt_device_free(rt_dev, bs.b[i].device_addr));
		free((void *)bs.b[i].name);
	}
	for (k = 0; k < 2; k++) {
		free(p[k].w);
		free(p[k].m);
		free(p[k].v);
		free(p[k].g);
	}
	free(back);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

START_TEST(lamb_refuses_bad_input)
{
	hlrt_graph *g;
	hlrt_tensor *in[6], *out[3], *other;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	in[0] = vec(g, "g", HLRT_FP32, 8, HLRT_TENSOR_INPUT);
	in[1] = vec(g, "w", HLRT_FP32, 8, HLRT_TENSOR_PARAMETER);
	in[2] = vec(g, "lr", HLRT_FP32, 1, HLRT_TENSOR_INPUT);
	in[3] = vec(g, "m", HLRT_FP32, 8, HLRT_TENSOR_PARAMETER);
	in[4] = vec(g, "v", HLRT_FP32, 7, HLRT_TENSOR_PARAMETER);
	in[5] = vec(g, "step", HLRT_INT32, 1, HLRT_TENSOR_PARAMETER);
	other = vec(g, "other", HLRT_FP32, 8, HLRT_TENSOR_PARAMETER);
	out[0] = in[1], out[1] = in[3], out[2] = in[4];
	ck_assert_int_eq(hlrt_node_create(g, "optimizer_lamb_f32", in, 6, out, 3, NULL, 0, NULL,
					  &n), HLRT_INVALID_ARGUMENT);	/* no params */
	ck_assert_int_eq(hlrt_node_create(g, "optimizer_lamb_f32", in, 6, out, 3, &lamb,
					  sizeof(lamb), NULL, &n), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "the weights' shape"));	/* v */
	in[4] = vec(g, "v2", HLRT_FP32, 8, HLRT_TENSOR_PARAMETER);
	out[0] = other;
	ck_assert_int_eq(hlrt_node_create(g, "optimizer_lamb_f32", in, 6, out, 3, &lamb,
					  sizeof(lamb), NULL, &n), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "in place"));
	out[0] = in[1];
	HLRT_OK(hlrt_node_create(g, "optimizer_lamb_f32", in, 6, out, 1, &lamb, sizeof(lamb),
				 NULL, &n));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* hlrt_graph_train with LAMB: state tensors, the step counted, the loss going down. */
START_TEST(lamb_trains_a_linear_model)
{
	struct hlrt_optimizer_desc opt = { .kind = HLRT_OPT_LAMB, .u.lamb = lamb };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *x, *y, *lr_t, *w, *b, *h, *loss, *in[2], *outs[2];
	float xs[16 * 12], ws[12 * 4], lr = 0.05f, first = 0, l = 0;
	int32_t ys[16], step;
	uint32_t s = 8, i;
	hlrt_recipe *r;
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	{
		struct hlrt_tensor_desc dx = { .name = "x", .dtype = HLRT_FP32, .ndims = 2,
					       .dims = { 16, 12 }, .role = HLRT_TENSOR_INPUT };
		struct hlrt_tensor_desc dw = { .name = "w", .dtype = HLRT_FP32, .ndims = 2,
					       .dims = { 12, 4 }, .role = HLRT_TENSOR_PARAMETER };

		HLRT_OK(hlrt_tensor_create(g, &dx, &x));
		HLRT_OK(hlrt_tensor_create(g, &dw, &w));
	}
	y = vec(g, "y", HLRT_INT32, 16, HLRT_TENSOR_INPUT);
	lr_t = vec(g, "lr", HLRT_FP32, 1, HLRT_TENSOR_INPUT);
	b = vec(g, "b", HLRT_FP32, 4, HLRT_TENSOR_PARAMETER);
	loss = vec(g, "loss", HLRT_FP32, 1, HLRT_TENSOR_OUTPUT);
	in[0] = x, in[1] = w;
	HLRT_OK(hlrt_node_create(g, "gemm_f32", in, 2, NULL, 0, NULL, 0, "dense", &n));
	h = hlrt_node_output(n, 0);
	in[0] = h, in[1] = b;
	HLRT_OK(hlrt_node_create(g, "bias_add_f32", in, 2, NULL, 0, NULL, 0, "bias", &n));
	in[0] = hlrt_node_output(n, 0), in[1] = y;
	outs[0] = loss, outs[1] = NULL;
	HLRT_OK(hlrt_node_create(g, "softmax_cross_entropy_fwd_f32", in, 2, outs, 2, NULL, 0,
				 "loss", &n));
	HLRT_OK(hlrt_graph_train(g, loss, &opt, lr_t));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	for (i = 0; i < bs.n; i++) {	/* state and bias start at zero */
		struct hlrt_persistent_info info;
		void *z;

		HLRT_OK(hlrt_recipe_persistent_info(r, i, &info));
		z = calloc(1, info.bytes);
		ck_assert_ptr_nonnull(z);
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, bs.b[i].device_addr, z, info.bytes));
		free(z);
	}
	for (i = 0; i < 16 * 12; i++)
		xs[i] = rt_randf(&s, -1, 1);
	for (i = 0; i < 12 * 4; i++)
		ws[i] = rt_randf(&s, -0.5f, 0.5f);
	for (i = 0; i < 16; i++)
		ys[i] = (int32_t)(rt_rand(&s) % 4);
	upload(&bs, "x", xs, sizeof(xs));
	upload(&bs, "w", ws, sizeof(ws));
	upload(&bs, "y", ys, sizeof(ys));
	upload(&bs, "lr", &lr, 4);
	rt_addr_of(&bs, "w/m");	/* the state hlrt_graph_train promised */
	rt_addr_of(&bs, "b/v");
	for (i = 0; i < 8; i++) {
		rt_run(r, &bs);
		rt_download(&l, rt_addr_of(&bs, "loss"), 4);
		if (!i)
			first = l;
	}
	rt_download(&step, rt_addr_of(&bs, "optimizer/step"), 4);
	ck_assert_int_eq(step, 8);
	ck_assert_msg(l < 0.9f * first, "loss %g after 8 steps, %g at first", l, first);
	for (i = 0; i < bs.n; i++) {
		HLRT_OK(hlrt_device_free(rt_dev, bs.b[i].device_addr));
		free((void *)bs.b[i].name);
	}
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

Suite *lamb_suite(void)
{
	Suite *s = suite_create("lamb");
	TCase *tc = tcase_create("lamb");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, lamb_matches_reference);
	tcase_add_test(tc, lamb_refuses_bad_input);
	tcase_add_test(tc, lamb_trains_a_linear_model);
	suite_add_tcase(s, tc);
	return s;
}
