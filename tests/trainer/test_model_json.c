/* Model files: the shipped models parse; every kind of mistake is named. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dataset.h"
#include "model.h"
#include "params.h"
#include "suites.h"

#ifndef MODELS_DIR
#error "MODELS_DIR must name the models/ folder"
#endif

#define TRAINING \
	"\"training\": {\"loss\": \"sparse_categorical_crossentropy\", \"from_logits\": true," \
	" \"optimizer\": {\"type\": \"sgd\", \"learning_rate\": 0.01}}"

static struct model m;
static struct train_err err;

/* Parse TEXT; expect failure with a message containing WANT. */
static void expect_error(const char *text, const char *want)
{
	int ret = model_parse(text, "m.json", &m, &err);

	if (ret == 0)
		ret = model_infer_shapes(&m, DATASET_CLASSES, &err);
	ck_assert_int_eq(ret, -1);
	ck_assert_msg(strstr(err.msg, want), "message \"%s\" lacks \"%s\"", err.msg, want);
}

START_TEST(seed_model_file)
{
	ck_assert_int_eq(model_load(MODELS_DIR "/seed.json", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_str_eq(m.name, "seed");
	ck_assert_uint_eq(m.nlayers, 2);
	ck_assert_int_eq(m.layers[0].kind, MODEL_FLATTEN);
	ck_assert_uint_eq(m.layers[0].out.c, 784);
	ck_assert_int_eq(m.layers[1].kind, MODEL_DENSE);
	ck_assert_str_eq(m.layers[1].name, "dense");
	ck_assert_uint_eq(m.layers[1].units, 10);
	ck_assert_float_eq(m.train.learning_rate, 0.01f);
	ck_assert_float_eq(m.train.momentum, 0.0f);
	ck_assert_uint_eq(m.train.batch_size, 128);
	ck_assert_uint_eq(m.train.epochs, 5);
	ck_assert_uint_eq(m.train.steps_per_execution, 1);	/* the default */
}
END_TEST

/* training.steps_per_execution: 1..32, anything else named in the error. */
START_TEST(steps_per_execution_key)
{
	static const char head[] =
		"{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		" {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\": "
		"\"sparse_categorical_crossentropy\", \"from_logits\": true, \"optimizer\": "
		"{\"type\": \"sgd\", \"learning_rate\": 0.01}, \"steps_per_execution\": ";
	char text[512];

	snprintf(text, sizeof(text), "%s8}}", head);
	ck_assert_int_eq(model_parse(text, "m.json", &m, &err), 0);
	ck_assert_uint_eq(m.train.steps_per_execution, 8);
	snprintf(text, sizeof(text), "%s32}}", head);
	ck_assert_int_eq(model_parse(text, "m.json", &m, &err), 0);
	ck_assert_uint_eq(m.train.steps_per_execution, 32);
	snprintf(text, sizeof(text), "%s0}}", head);
	expect_error(text, "training.steps_per_execution: must be an integer in 1..32");
	snprintf(text, sizeof(text), "%s33}}", head);
	expect_error(text, "training.steps_per_execution: must be an integer in 1..32");
	snprintf(text, sizeof(text), "%s\"8\"}}", head);
	expect_error(text, "training.steps_per_execution: must be an integer in 1..32");
}
END_TEST

START_TEST(mlp_and_lenet_files)
{
	ck_assert_int_eq(model_load(MODELS_DIR "/mlp.json", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	/* "activation": "relu" becomes a ReLU layer after its Dense */
	ck_assert_uint_eq(m.nlayers, 4);
	ck_assert_int_eq(m.layers[2].kind, MODEL_RELU);
	ck_assert_str_eq(m.layers[2].name, "dense/relu");
	ck_assert_str_eq(m.layers[3].name, "dense_1");
	ck_assert_int_eq(model_load(MODELS_DIR "/lenet.json", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	/* 28x28x1 -same 5x5-> 28x28x8 -pool-> 14x14x8 -valid 5x5-> 10x10x16 -pool-> 5x5x16 */
	ck_assert_uint_eq(m.layers[0].out.h, 28);
	ck_assert_uint_eq(m.layers[0].out.c, 8);
	ck_assert_uint_eq(m.layers[2].out.h, 14);
	ck_assert_uint_eq(m.layers[3].out.h, 10);
	ck_assert_uint_eq(m.layers[5].out.w, 5);
	ck_assert_uint_eq(m.layers[6].out.c, 400);
	ck_assert_float_eq(m.train.momentum, 0.9f);
}
END_TEST

#define LAYERS_MODEL(layers) \
	"{\"input_shape\": [8, 8], \"layers\": [" layers "], \"training\": {\"loss\":" \
	" \"sparse_categorical_crossentropy\", \"from_logits\": true, \"optimizer\":" \
	" {\"type\": \"sgd\"}}}"

/* Keras's own spellings: MaxPooling2D, and Activation("relu" / "linear"). */
START_TEST(keras_layer_spellings)
{
	ck_assert_msg(model_parse(LAYERS_MODEL(
		"{\"type\": \"Conv2D\", \"filters\": 2, \"kernel_size\": 3},"
		" {\"type\": \"Activation\", \"activation\": \"relu\"},"
		" {\"type\": \"MaxPooling2D\", \"pool_size\": 2},"
		" {\"type\": \"Activation\", \"activation\": \"linear\"},"
		" {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10},"
		" {\"type\": \"Activation\", \"activation\": \"relu\", \"name\": \"out\"}"),
		"m.json", &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_uint_eq(m.nlayers, 6);	/* "linear" adds no layer */
	ck_assert_int_eq(m.layers[1].kind, MODEL_RELU);
	ck_assert_str_eq(m.layers[1].name, "re_lu");
	ck_assert_int_eq(m.layers[2].kind, MODEL_MAXPOOL2D);
	ck_assert_uint_eq(m.layers[2].out.h, 3);	/* 8 -3x3-> 6 -pool 2-> 3 */
	ck_assert_str_eq(m.layers[5].name, "out");
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Activation\","
				  " \"activation\": \"swish\"}"),
		     "m.json: layers[1].activation: must be \"relu\", \"tanh\", \"sigmoid\", "
		     "\"softmax\" or \"linear\"");
	/* tanh and sigmoid: as Activation layers and as a Dense's activation */
	ck_assert_msg(model_parse(LAYERS_MODEL(
		"{\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10, \"activation\": \"tanh\"},"
		" {\"type\": \"Activation\", \"activation\": \"sigmoid\"}"), "m.json", &m, &err) == 0,
		"%s", err.msg);
	ck_assert_uint_eq(m.nlayers, 4);
	ck_assert_int_eq(m.layers[2].kind, MODEL_TANH);
	ck_assert_str_eq(m.layers[2].name, "dense/tanh");
	ck_assert_int_eq(m.layers[3].kind, MODEL_SIGMOID);
	ck_assert_str_eq(m.layers[3].name, "sigmoid");
	/* softmax: the Softmax layer (axis -1 only), Activation and a Dense's activation */
	ck_assert_msg(model_parse(LAYERS_MODEL(
		"{\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10, \"activation\": \"softmax\"},"
		" {\"type\": \"Activation\", \"activation\": \"softmax\"},"
		" {\"type\": \"Softmax\", \"axis\": -1}"), "m.json", &m, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(m.nlayers, 5);
	ck_assert_int_eq(m.layers[2].kind, MODEL_SOFTMAX);
	ck_assert_str_eq(m.layers[2].name, "dense/softmax");
	ck_assert_int_eq(m.layers[3].kind, MODEL_SOFTMAX);
	ck_assert_int_eq(m.layers[4].kind, MODEL_SOFTMAX);
	expect_error(LAYERS_MODEL("{\"type\": \"Softmax\", \"axis\": 1}"),
		     "m.json: layers[0]: \"axis\" must be -1 (the last axis)");
	expect_error(LAYERS_MODEL("{\"type\": \"Softmax\", \"units\": 3}"),
		     "m.json: layers[0] (Softmax): \"units\" does not apply to Softmax");
	expect_error(LAYERS_MODEL("{\"type\": \"Activation\"}"),
		     "m.json: layers[0].activation: missing, or not a string");
	expect_error(LAYERS_MODEL("{\"type\": \"Activation\", \"activation\": \"relu\","
				  " \"units\": 3}"),
		     "m.json: layers[0] (Activation): unknown key \"units\"");
}
END_TEST

/* "use_bias": false: no bias tensor, and the reference trains without one. */
START_TEST(use_bias_false)
{
	struct params p;

	ck_assert_msg(model_parse(LAYERS_MODEL(
		"{\"type\": \"Conv2D\", \"filters\": 2, \"kernel_size\": 3, \"use_bias\": false},"
		" {\"type\": \"Flatten\"},"
		" {\"type\": \"Dense\", \"units\": 10, \"use_bias\": false}"),
		"m.json", &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_int_eq(params_create(&m, &p, &err), 0);
	ck_assert_uint_eq(p.count, 2);
	ck_assert_str_eq(p.t[0].name, "conv2d/kernel");
	ck_assert_str_eq(p.t[1].name, "dense/kernel");
	ck_assert_ptr_null(params_find(&p, 2, 1));
	params_free(&p);
	ck_assert_int_eq(model_parse(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Dense\","
						  " \"units\": 10, \"use_bias\": true}"),
				     "m.json", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_int_eq(params_create(&m, &p, &err), 0);
	ck_assert_uint_eq(p.count, 2);
	params_free(&p);
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\", \"use_bias\": false}"),
		     "m.json: layers[0] (Flatten): \"use_bias\" does not apply to Flatten");
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10,"
				  " \"rate\": 0.5}"),
		     "m.json: layers[1] (Dense): \"rate\" does not apply to Dense");
	/* the device pools with one stride for both axes; windows may overlap or leave gaps */
	expect_error(LAYERS_MODEL("{\"type\": \"MaxPooling2D\", \"pool_size\": [2, 4]},"
				  " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layer max_pooling2d (MaxPooling2D): strides 2x4 must be equal");
	ck_assert_int_eq(model_parse(LAYERS_MODEL("{\"type\": \"MaxPooling2D\", \"pool_size\": 3,"
						  " \"strides\": 2}, {\"type\": \"Flatten\"},"
						  " {\"type\": \"Dense\", \"units\": 10}"),
				     "m.json", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_uint_eq(m.layers[0].out.h, 3);
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10,"
				  " \"use_bias\": 0}"),
		     "m.json: layers[1].use_bias: must be true or false");
}
END_TEST

START_TEST(syntax_errors_give_line_and_column)
{
	expect_error("{\n  \"name\": \"x\",\n  \"layers\": [,]\n}", "m.json:3:14:");
	ck_assert_int_eq(model_load("/nonexistent/m.json", &m, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/m.json"));
}
END_TEST

START_TEST(semantic_errors_name_the_value)
{
	expect_error("[]", "top level: must be an object");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"Dense\", \"units\": 10}], \"trainig\": {}}",
		     "unknown key \"trainig\"");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Dense2\"}], " TRAINING "}",
		     "layers[0]: unknown layer type \"Dense2\"");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"Dense\"}], " TRAINING "}",
		     "layers[1]: missing \"units\"");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"Dense\", \"units\": -3}], " TRAINING "}",
		     "layers[1].units: must be an integer in 1..65536");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\", \"units\": 3}], "
		     TRAINING "}", "\"units\" does not apply to Flatten");
	expect_error("{\"input_shape\": [28], \"layers\": [{\"type\": \"Flatten\"}], " TRAINING "}",
		     "input_shape: must be [h, w] or [h, w, c]");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\": \"hinge\"}}",
		     "\"loss\" must be \"sparse_categorical_crossentropy\", "
		     "\"categorical_crossentropy\" or \"mse\"");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\": "
		     "\"sparse_categorical_crossentropy\", \"from_logits\": true, \"optimizer\": "
		     "{\"type\": \"sgd\", \"learning_rate\": \"fast\"}}}",
		     "training.optimizer.learning_rate: must be a number");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\": "
		     "\"sparse_categorical_crossentropy\", \"from_logits\": true, \"optimizer\": "
		     "{\"type\": \"rmsprop\"}}}",
		     "\"type\" must be \"sgd\"");
}
END_TEST

/* categorical_crossentropy, and from_logits false folding a final softmax into the loss */
START_TEST(losses_and_from_logits)
{
#define DENSE_SOFTMAX(training) \
	"{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"}," \
	" {\"type\": \"Dense\", \"units\": 10, \"activation\": \"softmax\"}]," \
	" \"training\": {" training " \"optimizer\": {\"type\": \"sgd\"}}}"
	ck_assert_msg(model_parse(DENSE_SOFTMAX("\"loss\": \"categorical_crossentropy\","),
				  "m.json", &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(m.train.loss, MODEL_LOSS_CCE);
	ck_assert(m.train.softmax_folded);
	ck_assert_uint_eq(m.nlayers, 2);	/* Flatten, Dense: dense/softmax went into the loss */
	ck_assert_int_eq(m.layers[1].kind, MODEL_DENSE);
	ck_assert_msg(model_parse(DENSE_SOFTMAX("\"loss\": \"sparse_categorical_crossentropy\","
						" \"from_logits\": true,"),
				  "m.json", &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(m.train.loss, MODEL_LOSS_SPARSE_CCE);
	ck_assert(!m.train.softmax_folded);
	ck_assert_uint_eq(m.nlayers, 3);
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\":"
		     " \"categorical_crossentropy\", \"optimizer\": {\"type\": \"sgd\"}}}",
		     "training: \"from_logits\": false needs a final softmax");
	/* mse: on the last layer's outputs, a final softmax kept; no from_logits */
	ck_assert_msg(model_parse(DENSE_SOFTMAX("\"loss\": \"mse\","), "m.json", &m, &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(m.train.loss, MODEL_LOSS_MSE);
	ck_assert(!m.train.softmax_folded);
	ck_assert_uint_eq(m.nlayers, 3);
	ck_assert_msg(model_parse(DENSE_SOFTMAX("\"loss\": \"mean_squared_error\","), "m.json",
				  &m, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(m.train.loss, MODEL_LOSS_MSE);
	expect_error(DENSE_SOFTMAX("\"loss\": \"mse\", \"from_logits\": true,"),
		     "training: \"from_logits\" does not apply to mse");
#undef DENSE_SOFTMAX
}
END_TEST

START_TEST(shape_errors)
{
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Dense\", \"units\": 10}], "
		     TRAINING "}", "Dense needs a vector input (got 28x28x1; add a Flatten)");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"Dense\", \"units\": 12}], " TRAINING "}",
		     "yields 1x1x12 values; the loss needs 10 logits");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Conv2D\", \"filters\": 4,"
		     " \"kernel_size\": 30}], " TRAINING "}", "window does not fit");
	expect_error("{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"},"
		     " {\"type\": \"MaxPool2D\"}], " TRAINING "}", "needs an image input");
}
END_TEST

START_TEST(glorot_init_bounds_and_determinism)
{
	struct params a, b;
	float limit = sqrtf(6.0f / (784 + 10));
	int nonzero = 0;

	ck_assert_int_eq(model_load(MODELS_DIR "/seed.json", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_int_eq(params_create(&m, &a, &err), 0);
	ck_assert_int_eq(params_create(&m, &b, &err), 0);
	ck_assert_uint_eq(a.count, 2);
	ck_assert_str_eq(a.t[0].name, "dense/kernel");
	ck_assert_str_eq(a.t[1].name, "dense/bias");
	ck_assert_uint_eq(a.total, 7850);
	params_init_glorot(&m, &a);
	params_init_glorot(&m, &b);
	ck_assert_mem_eq(a.storage, b.storage, a.total * sizeof(float));
	for (size_t i = 0; i < 7840; i++) {
		ck_assert(fabsf(a.t[0].data[i]) <= limit);
		nonzero += a.t[0].data[i] != 0.0f;
	}
	ck_assert_int_gt(nonzero, 7800);
	for (size_t i = 0; i < 10; i++)
		ck_assert_float_eq(a.t[1].data[i], 0.0f);
	m.train.seed++;
	params_init_glorot(&m, &b);
	ck_assert(memcmp(a.storage, b.storage, 7840 * sizeof(float)) != 0);
	params_free(&a);
	params_free(&b);
}
END_TEST

#define LAMB_MODEL(opt) \
	"{\"input_shape\": [28, 28], \"layers\": [{\"type\": \"Flatten\"}," \
	" {\"type\": \"Dense\", \"units\": 10}], \"training\": {\"loss\":" \
	" \"sparse_categorical_crossentropy\", \"from_logits\": true, \"optimizer\": " opt "}}"

/* Dropout and BatchNormalization: Keras's keys and defaults; mistakes name the layer. */
START_TEST(dropout_and_batchnorm_layers)
{
	struct params p;

	ck_assert_int_eq(model_parse(LAYERS_MODEL(
		"{\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 12},"
		" {\"type\": \"BatchNormalization\"}, {\"type\": \"Dropout\", \"rate\": 0.3},"
		" {\"type\": \"BatchNormalization\", \"momentum\": 0.9, \"epsilon\": 1e-5,"
		"  \"center\": false, \"scale\": false, \"axis\": -1},"
		" {\"type\": \"Dropout\", \"rate\": 0.1, \"seed\": 5}, {\"type\": \"Dense\", \"units\": 10}"),
		"m.json", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_int_eq(m.layers[2].kind, MODEL_BATCHNORM);
	ck_assert_str_eq(m.layers[2].name, "batch_normalization");
	ck_assert_float_eq(m.layers[2].momentum, 0.99f);
	ck_assert_float_eq(m.layers[2].epsilon, 0.001f);
	ck_assert(m.layers[2].center && m.layers[2].scale);
	ck_assert_int_eq(m.layers[3].kind, MODEL_DROPOUT);
	ck_assert_str_eq(m.layers[3].name, "dropout");
	ck_assert_float_eq(m.layers[3].rate, 0.3f);
	ck_assert_str_eq(m.layers[4].name, "batch_normalization_1");
	ck_assert(!m.layers[4].center && !m.layers[4].scale);
	ck_assert_float_eq(m.layers[4].epsilon, 1e-5f);
	ck_assert_uint_eq(model_dropout_seed(&m, 5), 5);
	ck_assert_uint_ne(model_dropout_seed(&m, 3), model_dropout_seed(&m, 5));
	ck_assert_int_eq(m.layers[4].out.c, 12);
	/* gamma, beta of the first; the moving statistics of both after every trained tensor */
	ck_assert_int_eq(params_layout(&m, &p, &err), 0);
	ck_assert_uint_eq(p.trainable, 6);
	ck_assert_uint_eq(p.count, 10);
	ck_assert_str_eq(p.t[2].name, "batch_normalization/gamma");
	ck_assert_str_eq(p.t[3].name, "batch_normalization/beta");
	ck_assert_str_eq(p.t[6].name, "batch_normalization/moving_mean");
	ck_assert_str_eq(p.t[9].name, "batch_normalization_1/moving_variance");
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Dropout\"},"
				  " {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[1] (Dropout): missing \"rate\"");
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Dropout\", \"rate\": 1.5},"
				  " {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[1] (Dropout).rate: must be a number in [0, 0.999]");
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Dropout\", \"rate\": 0.5,"
				  " \"units\": 3}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[1] (Dropout): \"units\" does not apply to Dropout");
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Dropout\", \"rate\": 0.5,"
				  " \"noise_shape\": 3}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[1] (Dropout): unknown key \"noise_shape\"");
	expect_error(LAYERS_MODEL("{\"type\": \"Flatten\"}, {\"type\": \"Dropout\", \"rate\": 0.5,"
				  " \"seed\": -1}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[1] (Dropout): \"seed\" must be an integer in 0..4294967295");
	expect_error(LAYERS_MODEL("{\"type\": \"BatchNormalization\", \"axis\": 1},"
				  " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[0] (BatchNormalization): \"axis\" must be -1");
	expect_error(LAYERS_MODEL("{\"type\": \"BatchNormalization\", \"epsilon\": 0},"
				  " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[0] (BatchNormalization).epsilon: must be a number");
	expect_error(LAYERS_MODEL("{\"type\": \"BatchNormalization\", \"pool_size\": 2},"
				  " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[0] (BatchNormalization): \"pool_size\" does not apply to BatchNormalization");
	expect_error(LAYERS_MODEL("{\"type\": \"BatchNormalization\", \"beta_initializer\": 2},"
				  " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[0] (BatchNormalization): unknown key \"beta_initializer\"");
}
END_TEST

/* "same" padding for any kernel and stride, as TensorFlow: out = ceil(in / stride),
 * total max((out - 1) * stride + k - in, 0), the smaller half before. */
START_TEST(same_padding_any_kernel_and_stride)
{
	ck_assert_int_eq(model_parse("{\"input_shape\": [28, 27, 1], \"layers\": ["
		" {\"type\": \"Conv2D\", \"filters\": 2, \"kernel_size\": 4, \"strides\": 2,"
		"  \"padding\": \"same\"},"
		" {\"type\": \"Conv2D\", \"filters\": 2, \"kernel_size\": [3, 2], \"padding\": \"same\"},"
		" {\"type\": \"MaxPooling2D\", \"pool_size\": 3, \"strides\": 2, \"padding\": \"same\"},"
		" {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}], " TRAINING "}",
		"m.json", &m, &err), 0);
	ck_assert_msg(model_infer_shapes(&m, DATASET_CLASSES, &err) == 0, "%s", err.msg);
	/* 28x27 -4/2-> 14x14: totals 2 and 3 (1 before, 2 after) */
	ck_assert_uint_eq(m.layers[0].out.h, 14);
	ck_assert_uint_eq(m.layers[0].out.w, 14);
	ck_assert_uint_eq(m.layers[0].pad[0], 1);
	ck_assert_uint_eq(m.layers[0].pad_end[0], 1);
	ck_assert_uint_eq(m.layers[0].pad[1], 1);
	ck_assert_uint_eq(m.layers[0].pad_end[1], 2);
	/* stride 1, an even kernel: 0 before, 1 after */
	ck_assert_uint_eq(m.layers[1].out.w, 14);
	ck_assert_uint_eq(m.layers[1].pad[1], 0);
	ck_assert_uint_eq(m.layers[1].pad_end[1], 1);
	/* 14 -3/2-> 7: total 1, after */
	ck_assert_uint_eq(m.layers[2].out.h, 7);
	ck_assert_uint_eq(m.layers[2].pad[0], 0);
	ck_assert_uint_eq(m.layers[2].pad_end[0], 1);
	expect_error(LAYERS_MODEL("{\"type\": \"MaxPooling2D\", \"padding\": \"full\"},"
				  " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layers[0] (MaxPooling2D): \"padding\" must be \"valid\" or \"same\"");
	expect_error(LAYERS_MODEL("{\"type\": \"Conv2D\", \"filters\": 2, \"kernel_size\": 9},"
				  " {\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}"),
		     "layer conv2d (Conv2D): 9x9 window does not fit the 8x8 input");
}
END_TEST

START_TEST(lamb_optimizer)
{
	ck_assert_int_eq(model_load(MODELS_DIR "/seed-lamb.json", &m, &err), 0);
	ck_assert_int_eq(m.train.optimizer, MODEL_OPT_LAMB);
	ck_assert_float_eq(m.train.learning_rate, 0.01f);
	ck_assert_float_eq(m.train.beta1, 0.9f);
	ck_assert_float_eq(m.train.beta2, 0.999f);
	ck_assert_float_eq(m.train.epsilon, 1e-6f);
	ck_assert_float_eq(m.train.weight_decay, 0.01f);
	/* FusedLamb's defaults */
	ck_assert_int_eq(model_parse(LAMB_MODEL("{\"type\": \"lamb\", \"beta_2\": 0.98}"),
				     "m.json", &m, &err), 0);
	ck_assert_float_eq(m.train.beta1, 0.9f);
	ck_assert_float_eq(m.train.beta2, 0.98f);
	ck_assert_float_eq(m.train.epsilon, 1e-6f);
	ck_assert_float_eq(m.train.weight_decay, 0.0f);
	ck_assert_float_eq(m.train.learning_rate, 0.01f);
	/* SGD keeps its own: no LAMB keys */
	ck_assert_int_eq(model_parse(LAMB_MODEL("{\"type\": \"sgd\"}"), "m.json", &m, &err), 0);
	ck_assert_int_eq(m.train.optimizer, MODEL_OPT_SGD);

	expect_error(LAMB_MODEL("{\"type\": \"lamb\", \"beta_1\": 1.0}"),
		     "m.json: training.optimizer.beta_1: must be a number in [0, 0.9999]");
	expect_error(LAMB_MODEL("{\"type\": \"lamb\", \"beta_2\": -0.5}"),
		     "training.optimizer.beta_2: must be a number in [0, 0.99999]");
	expect_error(LAMB_MODEL("{\"type\": \"lamb\", \"epsilon\": 0}"),
		     "training.optimizer.epsilon: must be a number in [1e-12, 1]");
	expect_error(LAMB_MODEL("{\"type\": \"lamb\", \"weight_decay\": \"some\"}"),
		     "training.optimizer.weight_decay: must be a number in [0, 1]");
	expect_error(LAMB_MODEL("{\"type\": \"lamb\", \"learning_rate\": 0}"),
		     "training.optimizer.learning_rate: must be a number");
	expect_error(LAMB_MODEL("{\"type\": \"lamb\", \"momentum\": 0.9}"),
		     "training.optimizer.momentum: does not apply to \"lamb\"");
	expect_error(LAMB_MODEL("{\"type\": \"lamb\", \"nesterov\": true}"),
		     "training.optimizer.nesterov: does not apply to \"lamb\"");
	expect_error(LAMB_MODEL("{\"type\": \"sgd\", \"beta_1\": 0.9}"),
		     "training.optimizer.beta_1: does not apply to \"sgd\"");
	expect_error(LAMB_MODEL("{\"type\": \"lamb\", \"beta1\": 0.9}"),
		     "training.optimizer: unknown key \"beta1\"");
	expect_error(LAMB_MODEL("{\"type\": \"LAMB\"}"),
		     "training.optimizer: \"type\" must be \"sgd\", \"adam\", \"adamw\", \"adagrad\" or \"lamb\"");
}
END_TEST

Suite *model_json_suite(void)
{
	Suite *s = suite_create("model_json");
	TCase *tc = tcase_create("model_json");

	tcase_add_test(tc, seed_model_file);
	tcase_add_test(tc, steps_per_execution_key);
	tcase_add_test(tc, keras_layer_spellings);
	tcase_add_test(tc, losses_and_from_logits);
	tcase_add_test(tc, use_bias_false);
	tcase_add_test(tc, mlp_and_lenet_files);
	tcase_add_test(tc, syntax_errors_give_line_and_column);
	tcase_add_test(tc, semantic_errors_name_the_value);
	tcase_add_test(tc, shape_errors);
	tcase_add_test(tc, glorot_init_bounds_and_determinism);
	tcase_add_test(tc, lamb_optimizer);
	tcase_add_test(tc, dropout_and_batchnorm_layers);
	tcase_add_test(tc, same_padding_any_kernel_and_stride);
	suite_add_tcase(s, tc);
	return s;
}
