// SPDX-License-Identifier: MIT
/*
 * Lambda layers: the seed's fallback expression and the INT32 variant
 * parse to the nodes the device builds; bad expressions are refused
 * saying what and where; the host evaluation against values worked out
 * by hand, and its gradient against finite differences; the shipped
 * models load.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lambda.h"
#include "dataset.h"
#include "model.h"
#include "suites.h"

#define SEED_FN "tf.where(tf.expand_dims(tf.equal(tf.math.argmax(x, axis=-1), 2), -1), x, " \
		"tf.math.square(x))"

static void expect_refused(const char *text, const char *want)
{
	struct lambda_expr e;
	char msg[160];

	ck_assert_int_eq(lambda_parse(text, &e, msg, sizeof(msg)), -1);
	ck_assert_msg(strstr(msg, want), "\"%s\": \"%s\" lacks \"%s\"", text, msg, want);
}

START_TEST(seed_expression_parses)
{
	static const uint8_t ops[] = { LAMBDA_X, LAMBDA_ARGMAX, LAMBDA_CONST, LAMBDA_EQUAL,
				       LAMBDA_EXPAND, LAMBDA_X, LAMBDA_X, LAMBDA_SQUARE,
				       LAMBDA_WHERE };
	struct lambda_expr e;
	char msg[160];

	ck_assert_msg(lambda_parse(SEED_FN, &e, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_uint_eq(e.n, sizeof(ops));
	for (uint32_t i = 0; i < e.n; i++)
		ck_assert_uint_eq(e.node[i].op, ops[i]);
	ck_assert(e.node[1].i64);			/* TensorFlow's default */
	ck_assert(e.node[2].i64 && e.node[2].type == LAMBDA_INDEX);	/* the 2 */
	ck_assert_uint_eq(e.node[4].shape, LAMBDA_COL);
	ck_assert_msg(lambda_parse("tf.where(tf.expand_dims(tf.equal(tf.math.argmax(x, axis=-1,"
				   " output_type=tf.int32), 2), -1), x, tf.math.square(x))",
				   &e, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert(!e.node[1].i64 && !e.node[2].i64);
	ck_assert_msg(lambda_parse("0.5 * x - (x * x + 1)", &e, msg, sizeof(msg)) == 0, "%s",
		      msg);
	ck_assert_uint_eq(e.node[e.n - 1].op, LAMBDA_SUB);
}
END_TEST

START_TEST(bad_expressions_refused)
{
	expect_refused("tf.math.argmax(x, axis=-1)", "the result must be floats of x's shape");
	expect_refused("tf.where(tf.equal(tf.math.argmax(x, axis=-1), 2), x, x)",
		       "do not broadcast");
	expect_refused("tf.math.argmax(x, axis=0) * x", "the axis must be -1");
	expect_refused("tf.math.sqrt(x)", "at character 1: unknown function");
	expect_refused("x +", "expected x, a number");
	expect_refused("x x", "unexpected text after the expression");
	expect_refused("tf.where(tf.expand_dims(tf.equal(tf.math.argmax(x, axis=-1), 2.5), -1),"
		       " x, x)", "not an integer");
	expect_refused("tf.where(x, x, x)", "must be a truth value");
	expect_refused("tf.math.square(2)", "square takes a float tensor");
}
END_TEST

/* x = [[1, 3, 2], [0, 0, 5]]: row 0's argmax is 1 (squared), row 1's 2 (kept). */
START_TEST(host_values_by_hand)
{
	float x[6] = { 1, 3, 2, 0, -4, 5 }, y[6], vals[LAMBDA_MAX_NODES * 6];
	const float want[6] = { 1, 9, 4, 0, -4, 5 };
	struct lambda_expr e;
	char msg[160];

	ck_assert_int_eq(lambda_parse(SEED_FN, &e, msg, sizeof(msg)), 0);
	lambda_forward(&e, x, y, vals, 2, 3);
	for (int i = 0; i < 6; i++)
		ck_assert_float_eq(y[i], want[i]);
}
END_TEST

START_TEST(host_gradient_matches_finite_differences)
{
	static const char *const fns[] = { SEED_FN, "0.5 * x - (x * x + 1)",
					   "tf.math.square(x) * x" };
	enum { B = 4, U = 5 };
	float x[B * U], y[B * U], dy[B * U], dx[B * U];
	float *vals = malloc(sizeof(float) * LAMBDA_MAX_NODES * B * U);
	float *grads = malloc(sizeof(float) * LAMBDA_MAX_NODES * B * U);
	struct lambda_expr e;
	char msg[160];

	ck_assert_msg(lambda_parse(fns[_i], &e, msg, sizeof(msg)) == 0, "%s", msg);
	for (int i = 0; i < B * U; i++) {
		x[i] = (float)((i * 7) % 11) * 0.3f - 1.4f;
		dy[i] = (float)((i * 5) % 7) * 0.25f - 0.6f;
	}
	lambda_forward(&e, x, y, vals, B, U);
	lambda_backward(&e, dy, dx, vals, grads, B, U);
	for (int k = 0; k < B * U; k++) {
		const float h = 1e-3f;
		double lp = 0, lm = 0, fd;
		float save = x[k];

		/* the argmax does not change under so small a step (no ties near it) */
		x[k] = save + h;
		lambda_forward(&e, x, y, vals, B, U);
		for (int i = 0; i < B * U; i++)
			lp += (double)dy[i] * y[i];
		x[k] = save - h;
		lambda_forward(&e, x, y, vals, B, U);
		for (int i = 0; i < B * U; i++)
			lm += (double)dy[i] * y[i];
		x[k] = save;
		fd = (lp - lm) / (2.0 * h);
		ck_assert_msg(fabs(fd - dx[k]) <= 1e-2 + 1e-2 * fabs(fd),
			      "%s: dx[%d] = %g, finite difference %g", fns[_i], k, dx[k], fd);
	}
	free(vals);
	free(grads);
}
END_TEST

START_TEST(shipped_models_load)
{
	static const char *const files[] = { MODELS_DIR "/seed-fallback.json",
					     MODELS_DIR "/seed-fallback-i32.json" };
	struct train_err err;
	struct model m;

	ck_assert_msg(model_load(files[_i], &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_uint_eq(m.nlayers, 3);
	ck_assert_int_eq(m.layers[2].kind, MODEL_LAMBDA);
	ck_assert_str_eq(m.layers[2].name, "lambda");
	ck_assert(m.layers[2].expr.node[1].i64 == (_i == 0));
	ck_assert_int_eq(model_parse("{\"input_shape\": [2, 2], \"layers\": [{\"type\": \"Flatten\"},"
				     " {\"type\": \"Dense\", \"units\": 10}, {\"type\": \"Lambda\","
				     " \"function\": \"tf.math.sqrt(x)\"}], \"training\": {\"loss\":"
				     " \"sparse_categorical_crossentropy\", \"from_logits\": true,"
				     " \"optimizer\": {\"type\": \"sgd\"}}}", "m.json", &m, &err), -1);
	ck_assert_str_eq(err.msg, "m.json: layers[2].function: at character 1: unknown function "
			 "(tf.where, tf.expand_dims, tf.equal, tf.math.argmax, tf.math.square)");
}
END_TEST

Suite *lambda_suite(void)
{
	Suite *s = suite_create("lambda");
	TCase *tc = tcase_create("lambda");

	tcase_add_test(tc, seed_expression_parses);
	tcase_add_test(tc, bad_expressions_refused);
	tcase_add_test(tc, host_values_by_hand);
	tcase_add_loop_test(tc, host_gradient_matches_finite_differences, 0, 3);
	tcase_add_loop_test(tc, shipped_models_load, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
