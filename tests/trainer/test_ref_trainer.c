/*
 * The CPU reference trainer: two SGD steps worked out by hand, and the
 * gradients of every layer type against finite differences of the loss.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "train_rng.h"
#include "suites.h"

#define TRAINING \
	"\"training\": {\"loss\": \"sparse_categorical_crossentropy\", \"from_logits\": true," \
	" \"optimizer\": {\"type\": \"sgd\", \"learning_rate\": 0.1}}"

static struct train_err err;

/* One step, queued and collected. */
static int run_step(void *ctx, uint32_t first, uint32_t count, float lr,
		    struct backend_step_result *r)
{
	if (ref_trainer_ops.step(ctx, first, count, lr, &err))
		return -1;
	return ref_trainer_ops.collect(ctx, r, 1, &err);
}

static void build(struct model *m, const char *json)
{
	ck_assert_msg(model_parse(json, "test", m, &err) == 0, "%s", err.msg);
	ck_assert_msg(model_infer_shapes(m, DATASET_CLASSES, &err) == 0, "%s", err.msg);
}

START_TEST(two_steps_by_hand)
{
	/* x0 = [1, 0, .5, 0] is class 3, x1 = [0, 1, 0, .5] class 7 */
	float img[8] = { 1, 0, 0.5f, 0, 0, 1, 0, 0.5f };
	int32_t lbl[2] = { 3, 7 };
	struct dataset ds = { .name = "hand", .rows = 2, .cols = 2,
			      .train = { 2, img, lbl }, .test = { 2, img, lbl } };
	struct backend_setup setup = { .data = &ds, .batch = 2 };
	uint32_t order[2] = { 0, 1 };
	struct backend_step_result r;
	struct params p;
	struct model m;
	void *ctx;

	build(&m, "{\"input_shape\": [2, 2], \"layers\": [{\"type\": \"Flatten\"},"
		  " {\"type\": \"Dense\", \"units\": 10}], " TRAINING "}");
	setup.model = &m;
	ck_assert_int_eq(params_create(&m, &p, &err), 0);	/* all zero */
	ck_assert_int_eq(ref_trainer_ops.open(&ctx, &setup, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &p, NULL, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.begin_epoch(ctx, order, &err), 0);

	/* Zero weights: every logit 0, loss ln 10, argmax class 0 (no hit). */
	ck_assert_int_eq(run_step(ctx, 0, 2, 0.1f, &r), 0);
	ck_assert_double_eq_tol(r.loss, 2.302585093, 1e-6);
	ck_assert_uint_eq(r.correct, 0);

	/*
	 * dlogits_n = (0.1 - onehot_n) / 2. Bias: db[3] = db[7] = -0.4, else
	 * 0.1, so b = -lr db = 0.04 and -0.01. W[0][k] = -lr x0[0] dl0[k]:
	 * W[0][3] = 0.045, W[0][7] = -0.005; W[2][3] = -lr * 0.5 * -0.45 = 0.0225.
	 */
	ck_assert_int_eq(ref_trainer_ops.store_params(ctx, &p, NULL, &err), 0);
	ck_assert_float_eq_tol(p.t[1].data[3], 0.04f, 1e-7f);
	ck_assert_float_eq_tol(p.t[1].data[7], 0.04f, 1e-7f);
	ck_assert_float_eq_tol(p.t[1].data[0], -0.01f, 1e-7f);
	ck_assert_float_eq_tol(p.t[0].data[0 * 10 + 3], 0.045f, 1e-7f);
	ck_assert_float_eq_tol(p.t[0].data[0 * 10 + 7], -0.005f, 1e-7f);
	ck_assert_float_eq_tol(p.t[0].data[2 * 10 + 3], 0.0225f, 1e-7f);
	ck_assert_float_eq_tol(p.t[0].data[1 * 10 + 3], -0.005f, 1e-7f);

	/*
	 * Step 2: sample 0's logits are z3 = .04 + .045 + .5 * .0225 = .09625,
	 * z7 = .04 - .005 - .00125 = .03375, others -.01 - .005 - .00125 =
	 * -.01625; sample 1 the mirror image. Loss = -z3 + ln(sum e^z) =
	 * 2.206975971; both samples now right.
	 */
	ck_assert_int_eq(run_step(ctx, 0, 2, 0.1f, &r), 0);
	ck_assert_double_eq_tol(r.loss, 2.206975971, 1e-6);
	ck_assert_uint_eq(r.correct, 2);
	ref_trainer_ops.close(ctx);
	params_free(&p);
}
END_TEST

/* Mean test-set loss at the parameters p (the test split is the batch). */
static double loss_at(void *ctx, struct params *p)
{
	struct backend_eval_result ev;

	ck_assert_int_eq(ref_trainer_ops.load_params(ctx, p, NULL, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.evaluate(ctx, &ev, &err), 0);
	return ev.loss_sum / ev.count;
}

static void gradient_check(const char *json, uint32_t rows, uint32_t cols)
{
	enum { N = 4 };
	uint32_t pixels = rows * cols, order[N] = { 0, 1, 2, 3 };
	float *img = malloc(sizeof(float) * N * pixels);
	int32_t lbl[N] = { 1, 4, 4, 9 };
	struct dataset ds = { .name = "fd", .rows = rows, .cols = cols,
			      .train = { N, img, lbl }, .test = { N, img, lbl } };
	struct backend_setup setup = { .data = &ds, .batch = N };
	struct backend_step_result r;
	struct params p0, p1, probe;
	struct train_rng rng;
	struct model m;
	void *ctx;
	int checked = 0;

	build(&m, json);
	setup.model = &m;
	train_rng_seed(&rng, 99);
	for (uint32_t i = 0; i < N * pixels; i++)
		img[i] = train_rng_uniform(&rng);
	ck_assert_int_eq(params_create(&m, &p0, &err), 0);
	ck_assert_int_eq(params_create(&m, &p1, &err), 0);
	ck_assert_int_eq(params_create(&m, &probe, &err), 0);
	params_init_glorot(&m, &p0);
	/* non-zero biases, so their gradients through ReLU are exercised */
	for (uint32_t t = 0; t < p0.count; t++)
		if (p0.t[t].ndims == 1)
			for (size_t j = 0; j < p0.t[t].count; j++)
				p0.t[t].data[j] = 0.1f * (train_rng_uniform(&rng) - 0.3f);
	ck_assert_int_eq(ref_trainer_ops.open(&ctx, &setup, &err), 0);
	/* One step with lr 1: the update is minus the analytic gradient. */
	ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &p0, NULL, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.begin_epoch(ctx, order, &err), 0);
	ck_assert_int_eq(run_step(ctx, 0, N, 1.0f, &r), 0);
	ck_assert_int_eq(ref_trainer_ops.store_params(ctx, &p1, NULL, &err), 0);
	ck_assert_double_eq_tol(r.loss, loss_at(ctx, &p0), 1e-5);
	/* Central differences on a spread of entries of every tensor. */
	for (uint32_t t = 0; t < p0.count; t++) {
		size_t stride = p0.t[t].count / 7 + 1;

		for (size_t j = 0; j < p0.t[t].count; j += stride) {
			size_t at = (size_t)(p0.t[t].data - p0.storage) + j;
			double analytic = p0.storage[at] - p1.storage[at], numeric;
			/* small, so that no ReLU or max-pool kink lies within h */
			const float h = 2e-4f;

			params_copy(&probe, &p0);
			probe.storage[at] = p0.storage[at] + h;
			numeric = loss_at(ctx, &probe);
			probe.storage[at] = p0.storage[at] - h;
			numeric = (numeric - loss_at(ctx, &probe)) / (2 * h);
			ck_assert_msg(fabs(numeric - analytic) <= 3e-3 + 0.03 * fabs(analytic),
				      "%s[%zu]: analytic %g, numeric %g", p0.t[t].name, j,
				      analytic, numeric);
			checked++;
		}
	}
	ck_assert_int_gt(checked, 10);
	ref_trainer_ops.close(ctx);
	params_free(&p0);
	params_free(&p1);
	params_free(&probe);
	free(img);
}

START_TEST(mlp_gradients_match_finite_differences)
{
	gradient_check("{\"input_shape\": [4, 5], \"layers\": [{\"type\": \"Flatten\"},"
		       " {\"type\": \"Dense\", \"units\": 6, \"activation\": \"relu\"},"
		       " {\"type\": \"Dense\", \"units\": 10}], " TRAINING "}", 4, 5);
}
END_TEST

START_TEST(cnn_gradients_match_finite_differences)
{
	gradient_check("{\"input_shape\": [6, 6, 1], \"layers\": ["
		       " {\"type\": \"Conv2D\", \"filters\": 3, \"kernel_size\": 3, \"padding\": \"same\","
		       "  \"activation\": \"relu\"},"
		       " {\"type\": \"MaxPool2D\", \"pool_size\": 2},"
		       " {\"type\": \"Conv2D\", \"filters\": 2, \"kernel_size\": [2, 3], \"strides\": 1},"
		       " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}], " TRAINING "}",
		       6, 6);
}
END_TEST

/* softmax's gradient, scaled up so that the check's tolerance cannot hide it */
START_TEST(softmax_gradients_match_finite_differences)
{
	gradient_check("{\"input_shape\": [4, 5], \"layers\": [{\"type\": \"Flatten\"},"
		       " {\"type\": \"Dense\", \"units\": 10, \"activation\": \"softmax\"},"
		       " {\"type\": \"Lambda\", \"function\": \"20.0 * x\"}], " TRAINING "}", 4, 5);
}
END_TEST

/* mse against the labels' one-hot rows, on a Dense's outputs and through a softmax */
START_TEST(mse_gradients_match_finite_differences)
{
#define MSE_TRAINING "\"training\": {\"loss\": \"mse\", \"optimizer\": {\"type\": \"sgd\"}}"
	gradient_check("{\"input_shape\": [4, 5], \"layers\": [{\"type\": \"Flatten\"},"
		       " {\"type\": \"Dense\", \"units\": 10}], " MSE_TRAINING "}", 4, 5);
	gradient_check("{\"input_shape\": [4, 5], \"layers\": [{\"type\": \"Flatten\"},"
		       " {\"type\": \"Dense\", \"units\": 10, \"activation\": \"tanh\"},"
		       " {\"type\": \"Dense\", \"units\": 10, \"activation\": \"softmax\"},"
		       " {\"type\": \"Lambda\", \"function\": \"20.0 * x\"}], " MSE_TRAINING "}",
		       4, 5);
#undef MSE_TRAINING
}
END_TEST

/* "use_bias": false, tanh, sigmoid, softmax, a Lambda layer and Keras's spellings of the layers. */
START_TEST(keras_layers_gradients_match_finite_differences)
{
	gradient_check("{\"input_shape\": [6, 6, 1], \"layers\": ["
		       " {\"type\": \"Conv2D\", \"filters\": 3, \"kernel_size\": 3,"
		       "  \"use_bias\": false},"
		       " {\"type\": \"Activation\", \"activation\": \"relu\"},"
		       " {\"type\": \"MaxPooling2D\", \"pool_size\": 2},"
		       " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 12, \"activation\": \"tanh\"},"
		       " {\"type\": \"Activation\", \"activation\": \"sigmoid\"},"
		       " {\"type\": \"Dense\", \"units\": 8, \"activation\": \"softmax\"},"
		       " {\"type\": \"Dense\", \"units\": 10, \"use_bias\": false},"
		       " {\"type\": \"Lambda\", \"function\": \"tf.where(tf.expand_dims(tf.equal("
		       "tf.math.argmax(x, axis=-1), 2), -1), x, tf.math.square(x)) - 0.5 * x\"}], "
		       TRAINING "}", 6, 6);
}
END_TEST

/*
 * BatchNormalization in training mode: the gradient (through the batch's
 * statistics) of one step with lr 1 against central differences of the
 * training-mode loss (steps with lr 0, which move no trained parameter);
 * the moving statistics follow Keras's rule; evaluation uses them.
 */
START_TEST(batchnorm_training_gradients_and_moving_statistics)
{
	enum { N = 6, R = 5, C = 4 };
	const char *json = "{\"input_shape\": [5, 4], \"layers\": ["
		" {\"type\": \"Conv2D\", \"filters\": 3, \"kernel_size\": 2},"
		" {\"type\": \"BatchNormalization\", \"momentum\": 0.8},"
		" {\"type\": \"Activation\", \"activation\": \"tanh\"},"
		" {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}], " TRAINING "}";
	uint32_t order[N] = { 0, 1, 2, 3, 4, 5 };
	float img[N * R * C];
	int32_t lbl[N] = { 1, 4, 4, 9, 0, 2 };
	struct dataset ds = { .name = "bn", .rows = R, .cols = C,
			      .train = { N, img, lbl }, .test = { N, img, lbl } };
	struct backend_setup setup = { .data = &ds, .batch = N };
	struct backend_step_result r;
	struct params p0, p1, probe;
	struct params_tensor *mm, *mv, *gamma;
	struct train_rng rng;
	struct model m;
	void *ctx;
	int checked = 0;

	build(&m, json);
	setup.model = &m;
	train_rng_seed(&rng, 5);
	for (uint32_t i = 0; i < N * R * C; i++)
		img[i] = train_rng_uniform(&rng);
	ck_assert_int_eq(params_create(&m, &p0, &err), 0);
	ck_assert_int_eq(params_create(&m, &p1, &err), 0);
	ck_assert_int_eq(params_create(&m, &probe, &err), 0);
	params_init_glorot(&m, &p0);
	/* kernel, bias, gamma, beta, kernel, bias trained; the moving statistics last */
	ck_assert_uint_eq(p0.count, 8);
	ck_assert_uint_eq(p0.trainable, 6);
	gamma = params_find_named(&p0, 1, "gamma");
	mm = params_find_named(&p0, 1, "moving_mean");
	mv = params_find_named(&p0, 1, "moving_variance");
	ck_assert_ptr_nonnull(gamma);
	ck_assert_str_eq(mv->name, "batch_normalization/moving_variance");
	ck_assert_float_eq(gamma->data[2], 1.0f);
	ck_assert_float_eq(mm->data[0], 0.0f);
	ck_assert_float_eq(mv->data[0], 1.0f);
	for (size_t j = 0; j < gamma->count; j++)
		gamma->data[j] = 0.7f + 0.2f * (float)j;
	ck_assert_int_eq(ref_trainer_ops.open(&ctx, &setup, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.begin_epoch(ctx, order, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &p0, NULL, &err), 0);
	ck_assert_int_eq(run_step(ctx, 0, N, 1.0f, &r), 0);
	ck_assert_int_eq(ref_trainer_ops.store_params(ctx, &p1, NULL, &err), 0);
	/* moving = 0.8 moving + 0.2 batch: the batch's mean and variance are not 0 and 1 */
	mm = params_find_named(&p1, 1, "moving_mean");
	mv = params_find_named(&p1, 1, "moving_variance");
	for (size_t j = 0; j < mm->count; j++) {
		ck_assert_float_ne(mm->data[j], 0.0f);
		ck_assert_msg(mv->data[j] > 0.8f && mv->data[j] != 1.0f, "moving var %g",
			      mv->data[j]);
	}
	for (uint32_t t = 0; t < p0.trainable; t++) {
		size_t stride = p0.t[t].count / 5 + 1;

		for (size_t j = 0; j < p0.t[t].count; j += stride) {
			size_t at = (size_t)(p0.t[t].data - p0.storage) + j;
			double analytic = p0.storage[at] - p1.storage[at], lp, lm;
			const float h = 1e-3f;

			params_copy(&probe, &p0);
			probe.storage[at] = p0.storage[at] + h;
			ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &probe, NULL, &err), 0);
			ck_assert_int_eq(run_step(ctx, 0, N, 0.0f, &r), 0);
			lp = r.loss;
			probe.storage[at] = p0.storage[at] - h;
			ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &probe, NULL, &err), 0);
			ck_assert_int_eq(run_step(ctx, 0, N, 0.0f, &r), 0);
			lm = r.loss;
			ck_assert_msg(fabs((lp - lm) / (2 * h) - analytic) <= 3e-3 + 0.03 * fabs(analytic),
				      "%s[%zu]: analytic %g, numeric %g", p0.t[t].name, j, analytic,
				      (lp - lm) / (2 * h));
			checked++;
		}
	}
	ck_assert_int_gt(checked, 12);
	/* evaluation on the moving statistics: not the training-mode loss */
	{
		struct backend_eval_result ev;

		ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &p0, NULL, &err), 0);
		ck_assert_int_eq(run_step(ctx, 0, N, 0.0f, &r), 0);
		ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &p0, NULL, &err), 0);
		ck_assert_int_eq(ref_trainer_ops.evaluate(ctx, &ev, &err), 0);
		ck_assert_msg(fabs(ev.loss_sum / ev.count - r.loss) > 1e-4,
			      "eval %g equals the training-mode loss %g", ev.loss_sum / ev.count,
			      (double)r.loss);
	}
	ref_trainer_ops.close(ctx);
	params_free(&p0);
	params_free(&p1);
	params_free(&probe);
}
END_TEST

/*
 * Dropout: in training about `rate` of the activations are dropped and
 * every step draws new ones (the loss changes with the step, not with the
 * parameters); evaluation is the identity (the loss of the model without
 * the layer); the gradient goes through the kept elements only.
 */
START_TEST(dropout_trains_and_evaluates_as_identity)
{
	enum { N = 6, R = 5, C = 4 };
	const char *with = "{\"input_shape\": [5, 4], \"layers\": [{\"type\": \"Flatten\"},"
		" {\"type\": \"Dense\", \"units\": 16, \"activation\": \"relu\"},"
		" {\"type\": \"Dropout\", \"rate\": 0.5, \"seed\": 11},"
		" {\"type\": \"Dense\", \"units\": 10}], " TRAINING "}";
	const char *without = "{\"input_shape\": [5, 4], \"layers\": [{\"type\": \"Flatten\"},"
		" {\"type\": \"Dense\", \"units\": 16, \"activation\": \"relu\"},"
		" {\"type\": \"Dense\", \"units\": 10}], " TRAINING "}";
	uint32_t order[N] = { 0, 1, 2, 3, 4, 5 };
	float img[N * R * C];
	int32_t lbl[N] = { 1, 4, 4, 9, 0, 2 };
	struct dataset ds = { .name = "do", .rows = R, .cols = C,
			      .train = { N, img, lbl }, .test = { N, img, lbl } };
	struct backend_setup setup = { .data = &ds, .batch = N };
	struct backend_step_result r1, r2;
	struct backend_eval_result e1, e2;
	struct params p, q;
	struct train_rng rng;
	struct model m1, m2;
	void *c1, *c2;

	build(&m1, with);
	build(&m2, without);
	train_rng_seed(&rng, 6);
	for (uint32_t i = 0; i < N * R * C; i++)
		img[i] = train_rng_uniform(&rng);
	ck_assert_int_eq(params_create(&m1, &p, &err), 0);
	ck_assert_int_eq(params_create(&m2, &q, &err), 0);
	params_init_glorot(&m1, &p);
	ck_assert_uint_eq(p.total, q.total);	/* Dropout has no parameters */
	params_copy(&q, &p);
	setup.model = &m1;
	ck_assert_int_eq(ref_trainer_ops.open(&c1, &setup, &err), 0);
	setup.model = &m2;
	ck_assert_int_eq(ref_trainer_ops.open(&c2, &setup, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.load_params(c1, &p, NULL, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.load_params(c2, &q, NULL, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.evaluate(c1, &e1, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.evaluate(c2, &e2, &err), 0);
	ck_assert_double_eq(e1.loss_sum, e2.loss_sum);
	ck_assert_int_eq(ref_trainer_ops.begin_epoch(c1, order, &err), 0);
	ck_assert_int_eq(run_step(c1, 0, N, 0.0f, &r1), 0);
	ck_assert_int_eq(run_step(c1, 0, N, 0.0f, &r2), 0);
	/* lr 0: the same parameters, another step's mask */
	ck_assert_msg(r1.loss != r2.loss, "two steps drew the same mask");
	ck_assert_msg(fabs(r1.loss - e1.loss_sum / e1.count) > 1e-5, "training loss is eval's");
	ref_trainer_ops.close(c1);
	ref_trainer_ops.close(c2);
	params_free(&p);
	params_free(&q);
}
END_TEST

/* "same" padding with an odd total (an even kernel, stride 2) and overlapping pool windows. */
START_TEST(same_padding_and_overlapping_pool_gradients)
{
	gradient_check("{\"input_shape\": [7, 6, 1], \"layers\": ["
		       " {\"type\": \"Conv2D\", \"filters\": 3, \"kernel_size\": 4, \"strides\": 2,"
		       "  \"padding\": \"same\"},"
		       " {\"type\": \"MaxPooling2D\", \"pool_size\": 3, \"strides\": 1,"
		       "  \"padding\": \"same\"},"
		       " {\"type\": \"Conv2D\", \"filters\": 2, \"kernel_size\": 2, \"padding\": \"same\"},"
		       " {\"type\": \"MaxPooling2D\", \"pool_size\": 2, \"strides\": 1},"
		       " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}], " TRAINING "}",
		       7, 6);
}
END_TEST

START_TEST(momentum_and_weight_decay_follow_pytorch)
{
	/*
	 * One weight seen alone: with zero input the kernel's gradient is
	 * only the weight decay: g = wd * w. v1 = g, w1 = w - lr v1;
	 * v2 = mu v1 + wd w1, w2 = w1 - lr v2.
	 */
	float img[4] = { 0, 0, 0, 0 };
	int32_t lbl[1] = { 0 };
	struct dataset ds = { .name = "sgd", .rows = 2, .cols = 2,
			      .train = { 1, img, lbl }, .test = { 1, img, lbl } };
	struct backend_setup setup = { .data = &ds, .batch = 1 };
	struct backend_step_result r;
	uint32_t order[1] = { 0 };
	struct params p, mom;
	struct model m;
	void *ctx;
	float w = 0.5f, lr = 0.1f, mu = 0.9f, wd = 0.2f, v, w1, w2;

	build(&m, "{\"input_shape\": [2, 2], \"layers\": [{\"type\": \"Flatten\"},"
		  " {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\":"
		  " \"sparse_categorical_crossentropy\", \"from_logits\": true, \"optimizer\":"
		  " {\"type\": \"sgd\", \"learning_rate\": 0.1, \"momentum\": 0.9,"
		  " \"weight_decay\": 0.2}}}");
	setup.model = &m;
	ck_assert_int_eq(params_create(&m, &p, &err), 0);
	ck_assert_int_eq(params_create_state(&m, &mom, &err), 0);
	p.t[0].data[5] = w;
	ck_assert_int_eq(ref_trainer_ops.open(&ctx, &setup, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.load_params(ctx, &p, &mom, &err), 0);
	ck_assert_int_eq(ref_trainer_ops.begin_epoch(ctx, order, &err), 0);
	ck_assert_int_eq(run_step(ctx, 0, 1, lr, &r), 0);
	ck_assert_int_eq(run_step(ctx, 0, 1, lr, &r), 0);
	ck_assert_int_eq(ref_trainer_ops.store_params(ctx, &p, &mom, &err), 0);
	v = wd * w;
	w1 = w - lr * v;
	v = mu * v + wd * w1;
	w2 = w1 - lr * v;
	ck_assert_float_eq_tol(p.t[0].data[5], w2, 1e-7f);
	ck_assert_float_eq_tol(mom.t[0].data[5], v, 1e-7f);
	ref_trainer_ops.close(ctx);
	params_free(&p);
	params_free(&mom);
}
END_TEST

Suite *ref_trainer_suite(void)
{
	Suite *s = suite_create("ref_trainer");
	TCase *tc = tcase_create("ref_trainer");

	tcase_add_test(tc, two_steps_by_hand);
	tcase_add_test(tc, mlp_gradients_match_finite_differences);
	tcase_add_test(tc, cnn_gradients_match_finite_differences);
	tcase_add_test(tc, softmax_gradients_match_finite_differences);
	tcase_add_test(tc, mse_gradients_match_finite_differences);
	tcase_add_test(tc, keras_layers_gradients_match_finite_differences);
	tcase_add_test(tc, momentum_and_weight_decay_follow_pytorch);
	tcase_add_test(tc, batchnorm_training_gradients_and_moving_statistics);
	tcase_add_test(tc, dropout_trains_and_evaluates_as_identity);
	tcase_add_test(tc, same_padding_and_overlapping_pool_gradients);
	suite_add_tcase(s, tc);
	return s;
}
