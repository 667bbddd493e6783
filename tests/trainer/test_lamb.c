/*
 * LAMB in the CPU reference trainer: the norms summed in the device's
 * order, one update worked out by hand, several against a double-precision
 * rendering of the FusedLamb formulas, and the first step of a model
 * through the reference backend with its state read back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ref_lamb.h"
#include "suites.h"

static struct train_err err;

START_TEST(sumsq_adds_lanes_then_the_tree)
{
	/*
	 * 4096^2 = 2^24 in lane 0 and 1 in lanes 1..63: added one by one
	 * every 1 is lost (2^24 + 1 rounds to 2^24). The device adds 64
	 * lanes, then pairs: lane 0 takes 1 (lost), then 2, 6, 14, 30, 62
	 * in all: 2^24 + 62.
	 */
	float x[64];

	x[0] = 4096.0f;
	for (int i = 1; i < 64; i++)
		x[i] = 1.0f;
	ck_assert_float_eq(ref_lamb_sumsq(x, 64), 16777278.0f);
}
END_TEST

START_TEST(sumsq_of_chunks_and_a_partial_tile)
{
	enum { N = 2 * 4096 + 100 };
	float *x = malloc(sizeof(float) * N);
	double want = 0;

	for (int i = 0; i < N; i++) {
		x[i] = sinf(0.37f * (float)i);
		want += (double)x[i] * x[i];
	}
	ck_assert_double_eq_tol(ref_lamb_sumsq(x, N), want, want * 1e-6);
	ck_assert_float_eq(ref_lamb_sumsq(x, 0), 0.0f);
	free(x);
}
END_TEST

START_TEST(one_update_by_hand)
{
	/*
	 * w = [3, 4] (norm 5), g = [1, -1], first step, no weight decay:
	 * m = 0.1 g, v = 0.001 g^2, the bias-corrected moments are g and
	 * g^2, u = g / (1 + eps); the trust ratio 5 / |u| = 5 (1 + eps) /
	 * sqrt 2, so w -= lr 5 / sqrt 2 [1, -1] (eps cancels).
	 */
	const struct ref_lamb_params p = { 0.9f, 0.999f, 1e-6f, 0.0f };
	float w[2] = { 3, 4 }, g[2] = { 1, -1 }, m[2] = { 0 }, v[2] = { 0 }, u[2];
	float r = ref_lamb_update(&p, 0.1f, 0, w, g, m, v, u, 2);
	float shift = 0.5f / sqrtf(2.0f);

	ck_assert_float_eq_tol(r, 5.0f * (1.0f + 1e-6f) / sqrtf(2.0f), 1e-6f);
	ck_assert_float_eq_tol(w[0], 3.0f - shift, 1e-6f);
	ck_assert_float_eq_tol(w[1], 4.0f + shift, 1e-6f);
	ck_assert_float_eq_tol(m[0], 0.1f, 1e-7f);
	ck_assert_float_eq_tol(m[1], -0.1f, 1e-7f);
	ck_assert_float_eq_tol(v[0], 0.001f, 1e-7f);	/* 1 - 0.999f = 0.00099998713 */
	ck_assert_float_eq_tol(u[1], -1.0f / (1.0f + 1e-6f), 1e-7f);
	/* zero weights: the trust ratio falls back to 1, w = -lr u */
	w[0] = w[1] = 0;
	m[0] = m[1] = v[0] = v[1] = 0;
	ck_assert_float_eq(ref_lamb_update(&p, 0.1f, 0, w, g, m, v, u, 2), 1.0f);
	ck_assert_float_eq_tol(w[0], -0.1f, 1e-6f);
	ck_assert_float_eq_tol(w[1], 0.1f, 1e-6f);
}
END_TEST

START_TEST(updates_follow_the_fused_lamb_formulas)
{
	enum { N = 4096 + 300, STEPS = 4 };
	const struct ref_lamb_params p = { 0.9f, 0.99f, 1e-6f, 0.05f };
	const float lr = 0.02f;
	float *w = malloc(sizeof(float) * N), *g = malloc(sizeof(float) * N);
	float *m = calloc(N, sizeof(float)), *v = calloc(N, sizeof(float));
	float *u = malloc(sizeof(float) * N);
	double *dw = malloc(sizeof(double) * N), *dm = calloc(N, sizeof(double));
	double *dv = calloc(N, sizeof(double)), *du = malloc(sizeof(double) * N);

	for (int i = 0; i < N; i++)
		dw[i] = w[i] = 0.1f * cosf(0.013f * (float)i);
	for (int k = 1; k <= STEPS; k++) {
		double wn = 0, un = 0, ratio;
		float r;

		for (int i = 0; i < N; i++)
			g[i] = sinf(0.7f * (float)i + (float)k) * (i % 7 == 0 ? 0.001f : 0.3f);
		for (int i = 0; i < N; i++) {
			dm[i] = p.beta1 * dm[i] + (1 - (double)p.beta1) * g[i];
			dv[i] = p.beta2 * dv[i] + (1 - (double)p.beta2) * g[i] * g[i];
			du[i] = dm[i] / (1 - pow(p.beta1, k)) /
				(sqrt(dv[i] / (1 - pow(p.beta2, k))) + p.epsilon) +
				p.weight_decay * dw[i];
			wn += dw[i] * dw[i];
			un += du[i] * du[i];
		}
		ratio = sqrt(wn) / sqrt(un);
		for (int i = 0; i < N; i++)
			dw[i] -= lr * ratio * du[i];
		r = ref_lamb_update(&p, lr, (uint64_t)k - 1, w, g, m, v, u, N);
		ck_assert_double_eq_tol(r, ratio, ratio * 1e-5);
		for (int i = 0; i < N; i++) {
			/* binary32 rounding, at the scale of the values (g ~ 0.3) */
			ck_assert_double_eq_tol(m[i], dm[i], 1e-6 * fabs(dm[i]) + 1e-8);
			ck_assert_double_eq_tol(v[i], dv[i], 1e-6 * fabs(dv[i]) + 1e-10);
			ck_assert_double_eq_tol(w[i], dw[i], 1e-5 * fabs(dw[i]) + 1e-7);
		}
	}
	free(w);
	free(g);
	free(m);
	free(v);
	free(u);
	free(dw);
	free(dm);
	free(dv);
	free(du);
}
END_TEST

START_TEST(first_step_of_a_model_and_its_state)
{
	/* x0 = [1, 0, .5, 0] is class 3, x1 = [0, 1, 0, .5] class 7 */
	float img[8] = { 1, 0, 0.5f, 0, 0, 1, 0, 0.5f };
	int32_t lbl[2] = { 3, 7 };
	struct dataset ds = { .name = "hand", .rows = 2, .cols = 2,
			      .train = { 2, img, lbl }, .test = { 2, img, lbl } };
	struct backend_setup setup = { .data = &ds, .batch = 2 };
	uint32_t order[2] = { 0, 1 };
	struct backend_step_result r;
	struct params p, state;
	struct model m;
	float loss1;
	void *ctx;

	ck_assert_msg(model_parse("{\"input_shape\": [2, 2], \"layers\": [{\"type\": \"Flatten\"},"
				  " {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\":"
				  " \"sparse_categorical_crossentropy\", \"from_logits\": true,"
				  " \"optimizer\": {\"type\": \"lamb\", \"learning_rate\": 0.1,"
				  " \"weight_decay\": 0.3}}}", "test", &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	setup.model = &m;
	ck_assert_int_eq(params_create(&m, &p, &err), 0);	/* all zero */
	ck_assert_int_eq(params_create_state(&m, &state, &err), 0);
	ck_assert_uint_eq(state.count, 2 * p.count);
	ck_assert_str_eq(state.t[0].name, "dense/kernel/m");
	ck_assert_str_eq(state.t[3].name, "dense/bias/v");
	ck_assert_int_eq(ref_trainer_ops.open(&ctx, &setup, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &p, NULL, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.begin_epoch(ctx, order, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.step(ctx, 0, 2, 0.1f, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.collect(ctx, &r, 1, &err), 0);
	loss1 = r.loss;
	ck_assert_double_eq_tol(loss1, 2.302585093, 1e-6);
	/*
	 * Zero weights: trust ratio 1 and no decay, so w = -lr g / (|g| +
	 * eps). dlogits_n = (0.1 - onehot_n) / 2: the bias gradient is -0.4
	 * at 3 and 7, 0.1 elsewhere; the kernel's W[0][3] = x0[0] dl0[3] =
	 * -0.45, W[1][3] = x1[1] dl1[3] = 0.05.
	 */
	ck_assert_int_eq(ref_trainer_ops.store_params(ctx, &p, &state, &err), 0);
	ck_assert_uint_eq(state.updates, 1);
	ck_assert_float_eq_tol(p.t[1].data[3], 0.1f, 1e-6f);
	ck_assert_float_eq_tol(p.t[1].data[0], -0.1f, 1e-6f);
	ck_assert_float_eq_tol(p.t[0].data[0 * 10 + 3], 0.1f, 1e-6f);
	ck_assert_float_eq_tol(p.t[0].data[1 * 10 + 3], -0.1f, 1e-5f);	/* eps / |g| = 2e-5 */
	ck_assert_float_eq_tol(state.t[3].data[3], 0.001f * 0.16f, 1e-8f);	/* v */
	ck_assert_float_eq_tol(state.t[1].data[3], -0.04f, 1e-8f);		/* m */
	ck_assert_float_eq_tol(state.t[0].data[0 * 10 + 3], -0.045f, 1e-8f);
	/* the next steps learn, and a state of the wrong size is refused */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ref_trainer_ops.step(ctx, 0, 2, 0.1f, &err), 0);
		ck_assert_int_eq(ref_trainer_ops.collect(ctx, &r, 1, &err), 0);
	}
	ck_assert_float_lt(r.loss, loss1);
	ck_assert_int_eq(ref_trainer_ops.store_params(ctx, &p, &state, &err), 0);
	ck_assert_uint_eq(state.updates, 4);
	state.total--;
	ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &p, &state, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "optimizer state of"));
	state.total++;
	ref_trainer_ops.close(ctx);
	params_free(&p);
	params_free(&state);
}
END_TEST

Suite *lamb_suite(void)
{
	Suite *s = suite_create("lamb");
	TCase *tc = tcase_create("lamb");

	tcase_add_test(tc, sumsq_adds_lanes_then_the_tree);
	tcase_add_test(tc, sumsq_of_chunks_and_a_partial_tile);
	tcase_add_test(tc, one_update_by_hand);
	tcase_add_test(tc, updates_follow_the_fused_lamb_formulas);
	tcase_add_test(tc, first_step_of_a_model_and_its_state);
	suite_add_tcase(s, tc);
	return s;
}
