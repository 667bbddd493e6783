// SPDX-License-Identifier: MIT
/*
 * Adam, AdamW and Adagrad in model files and the CPU reference trainer:
 * Keras's defaults and the keys each accepts; the first step of a model
 * worked out by hand (zero weights: every weight moves by -lr sign(g)),
 * the state tensors with libhlrt's names, the update count (Adam, AdamW),
 * and AdamW's decoupled decay against Adam on the second step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "suites.h"

static struct train_err err;

#define OPT_MODEL(opt) \
	"{\"input_shape\": [2, 2], \"layers\": [{\"type\": \"Flatten\"}," \
	" {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\":" \
	" \"sparse_categorical_crossentropy\", \"from_logits\": true, \"optimizer\": " opt "}}"

static void expect_error(const char *text, const char *want)
{
	struct model m;

	ck_assert_int_eq(model_parse(text, "m.json", &m, &err), -1);
	ck_assert_msg(strstr(err.msg, want), "\"%s\" lacks \"%s\"", err.msg, want);
}

START_TEST(keras_defaults_and_keys)
{
	struct model m;

	ck_assert_int_eq(model_parse(OPT_MODEL("{\"type\": \"adam\"}"), "m", &m, &err), 0);
	ck_assert_int_eq(m.train.optimizer, MODEL_OPT_ADAM);
	ck_assert_float_eq(m.train.learning_rate, 0.001f);
	ck_assert_float_eq(m.train.beta1, 0.9f);
	ck_assert_float_eq(m.train.beta2, 0.999f);
	ck_assert_float_eq(m.train.epsilon, 1e-7f);
	ck_assert_float_eq(m.train.weight_decay, 0.0f);
	ck_assert_int_eq(model_parse(OPT_MODEL("{\"type\": \"adamw\", \"beta_2\": 0.98}"), "m",
				     &m, &err), 0);
	ck_assert_int_eq(m.train.optimizer, MODEL_OPT_ADAMW);
	ck_assert_float_eq(m.train.weight_decay, 0.004f);
	ck_assert_float_eq(m.train.beta2, 0.98f);
	ck_assert_int_eq(model_parse(OPT_MODEL("{\"type\": \"adagrad\", \"epsilon\": 1e-5}"), "m",
				     &m, &err), 0);
	ck_assert_int_eq(m.train.optimizer, MODEL_OPT_ADAGRAD);
	ck_assert_float_eq(m.train.learning_rate, 0.001f);
	ck_assert_float_eq(m.train.epsilon, 1e-5f);
	expect_error(OPT_MODEL("{\"type\": \"adagrad\", \"beta_1\": 0.9}"),
		     "m.json: training.optimizer.beta_1: does not apply to \"adagrad\"");
	expect_error(OPT_MODEL("{\"type\": \"adam\", \"momentum\": 0.9}"),
		     "m.json: training.optimizer.momentum: does not apply to \"adam\"");
	expect_error(OPT_MODEL("{\"type\": \"adamw\", \"weight_decay\": 2}"),
		     "training.optimizer.weight_decay: must be a number in [0, 1]");
	expect_error(OPT_MODEL("{\"type\": \"rmsprop\"}"),
		     "training.optimizer: \"type\" must be \"sgd\", \"adam\", \"adamw\", "
		     "\"adagrad\" or \"lamb\"");
}
END_TEST

/* x0 = [1, 0, .5, 0] is class 3, x1 = [0, 1, 0, .5] class 7 */
static float img[8] = { 1, 0, 0.5f, 0, 0, 1, 0, 0.5f };
static int32_t lbl[2] = { 3, 7 };

/* STEPS reference steps of Flatten + Dense(10) from zero weights with OPT. */
static float train_steps(const char *opt, int steps, struct model *m, struct params *p,
			 struct params *state)
{
	struct dataset ds = { .name = "hand", .rows = 2, .cols = 2,
			      .train = { 2, img, lbl }, .test = { 2, img, lbl } };
	struct backend_setup setup = { .data = &ds, .batch = 2 };
	uint32_t order[2] = { 0, 1 };
	struct backend_step_result r = { 0 };
	char text[512];
	float first = 0;
	void *ctx;

	snprintf(text, sizeof(text), OPT_MODEL("%s"), opt);
	ck_assert_msg(model_parse(text, "test", m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(model_infer_shapes(m, DATASET_CLASSES, &err), 0);
	setup.model = m;
	ck_assert_int_eq(params_create(m, p, &err), 0);	/* all zero */
	ck_assert_int_eq(params_create_state(m, state, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.open(&ctx, &setup, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.load_params(ctx, p, NULL, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.begin_epoch(ctx, order, &err), 0);
	for (int i = 0; i < steps; i++) {
		ck_assert_int_eq(ref_trainer_ops.step(ctx, 0, 2, 0.1f, &err), 0);
		ck_assert_int_eq(ref_trainer_ops.collect(ctx, &r, 1, &err), 0);
		if (!i)
			first = r.loss;
	}
	ck_assert_int_eq(ref_trainer_ops.store_params(ctx, p, state, &err), 0);
	ref_trainer_ops.close(ctx);
	return first;
}

/* The first step, by hand. */
START_TEST(first_step_by_hand)
{
	static const char *const opts[] = {
		"{\"type\": \"adam\", \"learning_rate\": 0.1}",
		"{\"type\": \"adamw\", \"learning_rate\": 0.1, \"weight_decay\": 0.5}",
		"{\"type\": \"adagrad\", \"learning_rate\": 0.1}",
	};
	static const char *const state0[] = { "dense/kernel/m", "dense/kernel/m",
					       "dense/kernel/accum" };
	struct params p, state;
	struct model m;
	float loss = train_steps(opts[_i], 1, &m, &p, &state);

	ck_assert_double_eq_tol(loss, 2.302585093, 1e-6);
	ck_assert_uint_eq(state.count, (_i == 2 ? 1 : 2) * p.count);
	ck_assert_str_eq(state.t[0].name, state0[_i]);
	/*
	 * dlogits_n = (0.1 - onehot_n) / 2: the bias gradient is -0.4 at 3
	 * and 7, 0.1 elsewhere; W[0][3] = -0.45, W[1][3] = 0.05. Bias-corrected
	 * Adam and a fresh Adagrad both step by lr g / (|g| + eps); zero
	 * weights do not decay.
	 */
	ck_assert_uint_eq(state.updates, _i == 2 ? 0 : 1);
	ck_assert_float_eq_tol(p.t[1].data[3], 0.1f, 1e-6f);
	ck_assert_float_eq_tol(p.t[1].data[0], -0.1f, 1e-6f);
	ck_assert_float_eq_tol(p.t[0].data[0 * 10 + 3], 0.1f, 1e-6f);
	ck_assert_float_eq_tol(p.t[0].data[1 * 10 + 3], -0.1f, 1e-5f);
	if (_i == 2) {
		ck_assert_float_eq_tol(state.t[1].data[3], 0.16f, 1e-7f);	/* accum */
	} else {
		ck_assert_float_eq_tol(state.t[1].data[3], -0.04f, 1e-8f);	/* m */
		ck_assert_float_eq_tol(state.t[3].data[3], 0.001f * 0.16f, 1e-8f); /* v */
	}
	params_free(&p);
	params_free(&state);
}
END_TEST

/*
 * AdamW's decay is decoupled: after step 1 (zero weights: no decay) Adam
 * and AdamW hold the same weights w1, so step 2 sees the same gradients
 * and AdamW's weights are Adam's minus lr wd w1.
 */
START_TEST(adamw_decay_is_decoupled)
{
	struct params pa, sa, pw, sw, p1, s1;
	struct model m;

	train_steps("{\"type\": \"adam\", \"learning_rate\": 0.1}", 1, &m, &p1, &s1);
	train_steps("{\"type\": \"adam\", \"learning_rate\": 0.1}", 2, &m, &pa, &sa);
	train_steps("{\"type\": \"adamw\", \"learning_rate\": 0.1, \"weight_decay\": 0.5}", 2,
		    &m, &pw, &sw);
	ck_assert_uint_eq(sw.updates, 2);
	for (size_t i = 0; i < p1.total; i++)
		ck_assert_float_eq_tol(pw.storage[i], pa.storage[i] - 0.05f * p1.storage[i],
				       2e-7f);
	ck_assert_float_ne(pw.storage[3], pa.storage[3]);
	params_free(&pa);
	params_free(&sa);
	params_free(&pw);
	params_free(&sw);
	params_free(&p1);
	params_free(&s1);
}
END_TEST

Suite *optimizers_suite(void)
{
	Suite *s = suite_create("optimizers");
	TCase *tc = tcase_create("optimizers");

	tcase_add_test(tc, keras_defaults_and_keys);
	tcase_add_loop_test(tc, first_step_by_hand, 0, 3);
	tcase_add_test(tc, adamw_decay_is_decoupled);
	suite_add_tcase(s, tc);
	return s;
}
