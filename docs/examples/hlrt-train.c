// SPDX-License-Identifier: MIT
/*
 * A complete libhlrt program: softmax regression on a small synthetic
 * data set, trained on the first visible device with SGD.
 *
 *   cc -o hlrt-train hlrt-train.c $(pkg-config --cflags --libs hlrt)
 *   cc -static -o hlrt-train hlrt-train.c \
 *      $(pkg-config --static --cflags --libs hlrt)
 *
 * (in the build tree, PKG_CONFIG_PATH=build/runtime/pkgconfig). It builds
 * the graph (GEMM, bias, softmax cross-entropy), lets hlrt_graph_train add
 * the backward pass and the optimizer, compiles it, binds every
 * persistent tensor to device memory, runs STEPS steps and prints the
 * loss; it exits 0 when the loss fell below half its first value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hlrt.h>

#define SAMPLES	64
#define FEATURES 8
#define CLASSES	4
#define STEPS	40

/* Stop with hlrt's message when a call fails. */
#define CHECK(call)                                                                  \
	do {                                                                         \
		hlrt_status st_ = (call);                                            \
		if (st_ != HLRT_SUCCESS) {                                           \
			fprintf(stderr, "%s: %s (%s)\n", #call, hlrt_last_error(),  \
				hlrt_status_name(st_));                              \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

static hlrt_tensor *tensor(hlrt_graph *g, const char *name, hlrt_dtype dtype, uint32_t ndims,
			   uint64_t d0, uint64_t d1, hlrt_tensor_role role)
{
	struct hlrt_tensor_desc desc = { .name = name, .dtype = dtype, .ndims = ndims,
					 .dims = { d0, d1 }, .role = role };
	hlrt_tensor *t;

	CHECK(hlrt_tensor_create(g, &desc, &t));
	return t;
}

/* loss = softmax_cross_entropy(x . w + b, labels), trained with SGD. */
static hlrt_graph *build_graph(void)
{
	struct hlrt_optimizer_desc sgd = { .kind = HLRT_OPT_SGD };
	hlrt_tensor *x, *labels, *lr, *w, *b, *loss, *in[2], *out[2];
	hlrt_graph *g;
	hlrt_node *n;

	CHECK(hlrt_graph_create(&g));
	x = tensor(g, "x", HLRT_FP32, 2, SAMPLES, FEATURES, HLRT_TENSOR_INPUT);
	labels = tensor(g, "labels", HLRT_INT32, 1, SAMPLES, 0, HLRT_TENSOR_INPUT);
	lr = tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	w = tensor(g, "dense/kernel", HLRT_FP32, 2, FEATURES, CLASSES, HLRT_TENSOR_PARAMETER);
	b = tensor(g, "dense/bias", HLRT_FP32, 1, CLASSES, 0, HLRT_TENSOR_PARAMETER);
	loss = tensor(g, "loss", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_OUTPUT);

	in[0] = x, in[1] = w;
	CHECK(hlrt_node_create(g, "gemm_f32", in, 2, NULL, 0, NULL, 0, "dense/MatMul", &n));
	in[0] = hlrt_node_output(n, 0), in[1] = b;
	CHECK(hlrt_node_create(g, "bias_add_f32", in, 2, NULL, 0, NULL, 0, "dense/BiasAdd", &n));
	in[0] = hlrt_node_output(n, 0), in[1] = labels;
	out[0] = loss, out[1] = NULL;	/* the second output (the gradient) is the graph's */
	CHECK(hlrt_node_create(g, "softmax_cross_entropy_fwd_f32", in, 2, out, 2, NULL, 0,
			       "loss", &n));
	CHECK(hlrt_graph_train(g, loss, &sgd, lr));
	return g;
}

/* Each class a point of its own, the samples scattered around them. */
static void make_data(float *x, int32_t *labels)
{
	unsigned int seed = 1;

	for (int i = 0; i < SAMPLES; i++) {
		labels[i] = i % CLASSES;
		for (int f = 0; f < FEATURES; f++) {
			float noise = (float)(seed = seed * 1103515245u + 12345u) / 4294967296.0f;

			x[i * FEATURES + f] = (f % CLASSES == labels[i] ? 1.0f : 0.0f) + noise - 0.5f;
		}
	}
}

/* What the launch binds: every persistent tensor of the recipe, by name. */
struct bound {
	uint32_t n;
	struct hlrt_tensor_binding b[16];
	struct hlrt_persistent_info info[16];
};

static uint64_t addr_of(const struct bound *bd, const char *name)
{
	for (uint32_t i = 0; i < bd->n; i++)
		if (!strcmp(bd->info[i].name, name))
			return bd->b[i].device_addr;
	fprintf(stderr, "no persistent tensor %s\n", name);
	exit(1);
}

int main(void)
{
	static float x[SAMPLES * FEATURES], w[FEATURES * CLASSES], b[CLASSES];
	static int32_t labels[SAMPLES];
	float lr = 0.5f, loss, first = 0;
	struct bound bd = { 0 };
	uint64_t ws_size, ws = 0;
	hlrt_device *dev;
	hlrt_stream *stream;
	hlrt_recipe *recipe;
	hlrt_graph *g;

	/* Compile: no device needed yet. */
	g = build_graph();
	CHECK(hlrt_graph_compile(g, NULL, &recipe));
	CHECK(hlrt_graph_destroy(g));

	/* Device memory for every persistent tensor, and the workspace. */
	CHECK(hlrt_device_acquire(0, &dev));
	CHECK(hlrt_stream_create(dev, &stream));
	CHECK(hlrt_recipe_persistent_count(recipe, &bd.n));
	if (bd.n > 16) {
		fprintf(stderr, "%u persistent tensors: more than this example binds\n", bd.n);
		return 1;
	}
	for (uint32_t i = 0; i < bd.n; i++) {
		CHECK(hlrt_recipe_persistent_info(recipe, i, &bd.info[i]));
		bd.b[i].name = bd.info[i].name;
		CHECK(hlrt_device_malloc(dev, bd.info[i].bytes, &bd.b[i].device_addr));
	}
	CHECK(hlrt_recipe_workspace_size(recipe, &ws_size));
	if (ws_size)
		CHECK(hlrt_device_malloc(dev, ws_size, &ws));

	/* The data, the learning rate and the initial weights (zero: convex). */
	make_data(x, labels);
	CHECK(hlrt_memcpy_h2d(dev, addr_of(&bd, "x"), x, sizeof(x)));
	CHECK(hlrt_memcpy_h2d(dev, addr_of(&bd, "labels"), labels, sizeof(labels)));
	CHECK(hlrt_memcpy_h2d(dev, addr_of(&bd, "lr"), &lr, sizeof(lr)));
	CHECK(hlrt_memcpy_h2d(dev, addr_of(&bd, "dense/kernel"), w, sizeof(w)));
	CHECK(hlrt_memcpy_h2d(dev, addr_of(&bd, "dense/bias"), b, sizeof(b)));

	for (int step = 1; step <= STEPS; step++) {
		CHECK(hlrt_launch(stream, recipe, bd.b, bd.n, ws));
		CHECK(hlrt_stream_synchronize(stream));
		CHECK(hlrt_memcpy_d2h(dev, &loss, addr_of(&bd, "loss"), sizeof(loss)));
		if (step == 1)
			first = loss;
		if (step == 1 || step % 10 == 0)
			printf("step %d loss %.4f\n", step, loss);
	}

	for (uint32_t i = 0; i < bd.n; i++)
		CHECK(hlrt_device_free(dev, bd.b[i].device_addr));
	if (ws)
		CHECK(hlrt_device_free(dev, ws));
	CHECK(hlrt_recipe_destroy(recipe));
	CHECK(hlrt_stream_destroy(stream));
	CHECK(hlrt_device_release(dev));
	if (!(loss < first / 2)) {
		fprintf(stderr, "the loss did not fall: %.4f -> %.4f\n", first, loss);
		return 1;
	}
	printf("trained: loss %.4f -> %.4f\n", first, loss);
	return 0;
}
