// SPDX-License-Identifier: MIT
/*
 * hlrt_graph_apply_optimizer: the update split from autodiff, as a
 * data-parallel trainer runs it (one recipe writes the gradients, a
 * second applies every optimizer to them), trains a small classifier to
 * the numbers hlrt_graph_train reaches in one recipe; the state tensors
 * carry the names hlrt.h documents; bad input is refused with a message.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_test.h"

#define OPT_B		16
#define OPT_D		24
#define OPT_C		5
#define OPT_STEPS	4
#define OPT_LR		0.05f
#define OPT_MAX_BUFS	16

/* Device buffers by tensor name, shared by the recipes of one run. */
struct opt_pool {
	struct hlrt_tensor_binding b[OPT_MAX_BUFS];
	char name[OPT_MAX_BUFS][HLRT_NAME_MAX];
	uint64_t bytes[OPT_MAX_BUFS];
	uint32_t n;
};

static uint64_t pool_addr(struct opt_pool *p, const char *name, uint64_t bytes)
{
	static const uint8_t zero[4096];
	uint32_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->name[i], name))
			return p->b[i].device_addr;
	ck_assert_uint_lt(p->n, OPT_MAX_BUFS);
	ck_assert_uint_le(bytes, sizeof(zero));
	snprintf(p->name[p->n], HLRT_NAME_MAX, "%s", name);
	p->bytes[p->n] = bytes;
	/* optimizer state starts at zero */
	p->b[p->n].device_addr = rt_upload(zero, bytes);
	return p->b[p->n++].device_addr;
}

/* Bindings of every persistent tensor of r, from the pool. */
static uint32_t pool_bind(struct opt_pool *p, const hlrt_recipe *r,
			  struct hlrt_tensor_binding *bind)
{
	uint32_t n, i;

	HLRT_OK(hlrt_recipe_persistent_count(r, &n));
	ck_assert_uint_le(n, OPT_MAX_BUFS);
	for (i = 0; i < n; i++) {
		struct hlrt_persistent_info pi;
		uint64_t addr;
		uint32_t j;

		HLRT_OK(hlrt_recipe_persistent_info(r, i, &pi));
		addr = pool_addr(p, pi.name, pi.bytes);
		for (j = 0; strcmp(p->name[j], pi.name); j++)
			;
		bind[i].name = p->name[j];
		bind[i].device_addr = addr;
	}
	return n;
}

static void pool_free(struct opt_pool *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		HLRT_OK(hlrt_device_free(rt_dev, p->b[i].device_addr));
	p->n = 0;
}

static hlrt_tensor *opt_tensor(hlrt_graph *g, const char *name, hlrt_dtype dt, uint32_t nd,
			       uint64_t d0, uint64_t d1, hlrt_tensor_role role)
{
	struct hlrt_tensor_desc desc = { .name = name, .dtype = dt, .ndims = nd,
					 .dims = { d0, d1 }, .role = role };
	hlrt_tensor *t;

	HLRT_OK(hlrt_tensor_create(g, &desc, &t));
	return t;
}

/* x @ w + b, softmax cross-entropy against y: the loss; w and b in params. */
static hlrt_tensor *opt_model(hlrt_graph *g, hlrt_tensor **params)
{
	hlrt_tensor *x, *y, *in[2], *loss;
	hlrt_node *n;

	x = opt_tensor(g, "x", HLRT_FP32, 2, OPT_B, OPT_D, HLRT_TENSOR_INPUT);
	y = opt_tensor(g, "y", HLRT_INT32, 1, OPT_B, 0, HLRT_TENSOR_INPUT);
	params[0] = opt_tensor(g, "dense/kernel", HLRT_FP32, 2, OPT_D, OPT_C,
			       HLRT_TENSOR_PARAMETER);
	params[1] = opt_tensor(g, "dense/bias", HLRT_FP32, 1, OPT_C, 0, HLRT_TENSOR_PARAMETER);
	loss = opt_tensor(g, "loss", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_OUTPUT);
	in[0] = x, in[1] = params[0];
	HLRT_OK(hlrt_node_create(g, "gemm_f32", in, 2, NULL, 0, NULL, 0, "MatMul", &n));
	in[0] = hlrt_node_output(n, 0), in[1] = params[1];
	HLRT_OK(hlrt_node_create(g, "bias_add_f32", in, 2, NULL, 0, NULL, 0, "BiasAdd", &n));
	in[0] = hlrt_node_output(n, 0), in[1] = y;
	HLRT_OK(hlrt_node_create(g, "softmax_cross_entropy_fwd_f32", in, 2, &loss, 1, NULL, 0,
				 "Loss", &n));
	return loss;
}

static const struct hlrt_optimizer_desc opt_cases[] = {
	{ .kind = HLRT_OPT_SGD, .u.sgd = { .weight_decay = 0.01f } },
	{ .kind = HLRT_OPT_SGD, .u.sgd = { .momentum = 0.9f, .weight_decay = 0.01f,
					   .nesterov = 1 } },
	{ .kind = HLRT_OPT_ADAMW, .u.adamw = { 0.9f, 0.999f, 1e-7f, 0.01f } },
	{ .kind = HLRT_OPT_ADAGRAD, .u.adagrad = { .eps = 1e-7f } },
	{ .kind = HLRT_OPT_LAMB, .u.lamb = { 0.9f, 0.999f, 1e-6f, 0.01f } },
};

/* The names hlrt.h documents for opt_cases[i], slot by slot, and the count's. */
static const char *const opt_names[][HLRT_OPT_STATE_MAX + 1] = {
	{ NULL },
	{ "dense/kernel/momentum", NULL },
	{ "dense/kernel/m", "dense/kernel/v", HLRT_OPT_STEP_NAME },
	{ "dense/kernel/accum", NULL },
	{ "dense/kernel/m", "dense/kernel/v", HLRT_OPT_STEP_NAME },
};

static void upload_data(struct opt_pool *p)
{
	float x[OPT_B * OPT_D], w[OPT_D * OPT_C];
	int32_t y[OPT_B];
	uint32_t s = 77, i;
	float lr = OPT_LR;

	for (i = 0; i < OPT_B * OPT_D; i++)
		x[i] = rt_randf(&s, -1.0f, 1.0f);
	for (i = 0; i < OPT_B; i++)
		y[i] = (int32_t)(rt_rand(&s) % OPT_C);
	for (i = 0; i < OPT_D * OPT_C; i++)
		w[i] = rt_randf(&s, -0.3f, 0.3f);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, pool_addr(p, "x", sizeof(x)), x, sizeof(x)));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, pool_addr(p, "y", sizeof(y)), y, sizeof(y)));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, pool_addr(p, "dense/kernel", sizeof(w)), w, sizeof(w)));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, pool_addr(p, "lr", 4), &lr, 4));
}

static void launch(const hlrt_recipe *r, struct opt_pool *p)
{
	struct hlrt_tensor_binding bind[OPT_MAX_BUFS];
	uint32_t n = pool_bind(p, r, bind);
	uint64_t ws = 0, size;

	HLRT_OK(hlrt_recipe_workspace_size(r, &size));
	if (size)
		ws = rt_upload(NULL, size);
	HLRT_OK(hlrt_launch(rt_stream, r, bind, n, ws));
	HLRT_OK(hlrt_stream_synchronize(rt_stream));
	if (ws)
		HLRT_OK(hlrt_device_free(rt_dev, ws));
}

static void download(struct opt_pool *p, const char *name, float *out, uint64_t bytes)
{
	rt_download(out, pool_addr(p, name, bytes), bytes);
}

START_TEST(split_update_trains_like_graph_train)
{
	const struct hlrt_optimizer_desc *opt = &opt_cases[_i];
	struct hlrt_compile_options co = { .no_cache = 1 };
	struct opt_pool one = { 0 }, split = { 0 };
	hlrt_tensor *params[2], *grads[2], *gin[2], *lr;
	hlrt_recipe *r_train, *r_grad, *r_opt;
	hlrt_graph *g;
	float a[OPT_D * OPT_C], b[OPT_D * OPT_C], la, lb;
	const char *names[] = { "dense/kernel", "dense/bias" };
	uint32_t step, i, k;

	/* one recipe: hlrt_graph_train */
	HLRT_OK(hlrt_graph_create(&g));
	lr = opt_tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	HLRT_OK(hlrt_graph_train(g, opt_model(g, params), opt, lr));
	HLRT_OK(hlrt_graph_compile(g, &co, &r_train));
	HLRT_OK(hlrt_graph_destroy(g));

	/* two recipes: the gradients out, then the optimizer on them */
	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_graph_gradients(g, opt_model(g, params), params, 2, grads));
	for (i = 0; i < 2; i++) {
		char name[HLRT_NAME_MAX];
		hlrt_node *n;
		hlrt_tensor *out;
		struct hlrt_scale_params one_x = { .alpha = 1.0f };
		struct hlrt_tensor_desc d;

		HLRT_OK(hlrt_tensor_get_desc(params[i], &d));
		snprintf(name, sizeof(name), "%s/grad", names[i]);
		out = opt_tensor(g, name, HLRT_FP32, d.ndims, d.dims[0], d.dims[1],
				 HLRT_TENSOR_OUTPUT);
		HLRT_OK(hlrt_node_create(g, "scale_f32", &grads[i], 1, &out, 1, &one_x,
					 sizeof(one_x), name, &n));
	}
	HLRT_OK(hlrt_graph_compile(g, &co, &r_grad));
	HLRT_OK(hlrt_graph_destroy(g));
	HLRT_OK(hlrt_graph_create(&g));
	params[0] = opt_tensor(g, "dense/kernel", HLRT_FP32, 2, OPT_D, OPT_C,
			       HLRT_TENSOR_PARAMETER);
	params[1] = opt_tensor(g, "dense/bias", HLRT_FP32, 1, OPT_C, 0, HLRT_TENSOR_PARAMETER);
	gin[0] = opt_tensor(g, "dense/kernel/grad", HLRT_FP32, 2, OPT_D, OPT_C,
			    HLRT_TENSOR_INPUT);
	gin[1] = opt_tensor(g, "dense/bias/grad", HLRT_FP32, 1, OPT_C, 0, HLRT_TENSOR_INPUT);
	lr = opt_tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	HLRT_OK(hlrt_graph_apply_optimizer(g, opt, lr, params, gin, 2));
	HLRT_OK(hlrt_graph_compile(g, &co, &r_opt));
	HLRT_OK(hlrt_graph_destroy(g));

	upload_data(&one);
	upload_data(&split);
	for (step = 0; step < OPT_STEPS; step++) {
		launch(r_train, &one);
		launch(r_grad, &split);
		launch(r_opt, &split);
		download(&one, "loss", &la, 4);
		download(&split, "loss", &lb, 4);
		ck_assert_msg(fabsf(la - lb) <= 1e-6f * fabsf(la), "step %u: loss %.9g, split %.9g",
			      step, la, lb);
	}
	/* the weights, every state tensor and the update count agree */
	for (k = 0; k < one.n; k++) {
		const char *name = one.name[k];
		uint64_t bytes = one.bytes[k];

		if (!strcmp(name, "x") || !strcmp(name, "y") || strstr(name, "/grad"))
			continue;
		download(&one, name, a, bytes);
		download(&split, name, b, bytes);
		for (i = 0; i < bytes / 4; i++)
			ck_assert_msg(fabsf(a[i] - b[i]) <= 1e-6f * (1.0f + fabsf(a[i])),
				      "%s[%u]: %.9g, split %.9g", name, i, a[i], b[i]);
	}
	ck_assert_uint_eq(one.n + 2, split.n);	/* the split adds the two gradients */
	HLRT_OK(hlrt_recipe_destroy(r_train));
	HLRT_OK(hlrt_recipe_destroy(r_grad));
	HLRT_OK(hlrt_recipe_destroy(r_opt));
	pool_free(&one);
	pool_free(&split);
}
END_TEST

START_TEST(state_names_are_the_documented_ones)
{
	const struct hlrt_optimizer_desc *opt = &opt_cases[_i];
	const char *const *want = opt_names[_i];
	uint32_t n_state = hlrt_optimizer_state_count(opt), slot;
	hlrt_tensor *params[2], *grads[2], *lr, *t;
	hlrt_graph *g;

	HLRT_OK(hlrt_graph_create(&g));
	lr = opt_tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	HLRT_OK(hlrt_graph_train(g, opt_model(g, params), opt, lr));
	for (slot = 0; slot < n_state; slot++) {
		HLRT_OK(hlrt_graph_optimizer_state(g, params[0], slot, &t));
		ck_assert_str_eq(hlrt_tensor_name(t), want[slot]);
	}
	ck_assert_ptr_null(n_state < HLRT_OPT_STATE_MAX ? want[n_state] : NULL);
	ck_assert_int_eq(hlrt_graph_optimizer_state(g, params[0], n_state, &t), HLRT_NOT_FOUND);
	if (n_state && !strcmp(want[n_state] ? want[n_state] : "", HLRT_OPT_STEP_NAME)) {
		HLRT_OK(hlrt_graph_optimizer_state(g, NULL, 0, &t));
		ck_assert_str_eq(hlrt_tensor_name(t), HLRT_OPT_STEP_NAME);
	} else {
		ck_assert_int_eq(hlrt_graph_optimizer_state(g, NULL, 0, &t), HLRT_NOT_FOUND);
	}
	HLRT_OK(hlrt_graph_destroy(g));

	/* a long parameter name is cut to HLRT_OPT_STATE_PARAM_CHARS before the suffix */
	if (!n_state)
		return;
	HLRT_OK(hlrt_graph_create(&g));
	lr = opt_tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	params[0] = opt_tensor(g, "a_parameter_whose_name_is_longer_than_fifty_characters/kernel",
			       HLRT_FP32, 1, 8, 0, HLRT_TENSOR_PARAMETER);
	grads[0] = opt_tensor(g, "g", HLRT_FP32, 1, 8, 0, HLRT_TENSOR_INPUT);
	HLRT_OK(hlrt_graph_apply_optimizer(g, opt, lr, params, grads, 1));
	HLRT_OK(hlrt_graph_optimizer_state(g, params[0], 0, &t));
	ck_assert_uint_eq(strlen(hlrt_tensor_name(t)),
			  HLRT_OPT_STATE_PARAM_CHARS + 1 + strlen(strrchr(want[0], '/') + 1));
	ck_assert_int_eq(strncmp(hlrt_tensor_name(t), "a_parameter_whose_name_is_longer_than_"
				 "fifty_charac/", HLRT_OPT_STATE_PARAM_CHARS + 1), 0);
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

static void expect_refused(hlrt_status st, const char *what)
{
	ck_assert_int_eq(st, HLRT_INVALID_ARGUMENT);
	ck_assert_msg(strstr(hlrt_last_error(), what), "\"%s\" does not say \"%s\"",
		      hlrt_last_error(), what);
}

START_TEST(bad_input_is_refused)
{
	struct hlrt_optimizer_desc sgd = { .kind = HLRT_OPT_SGD }, bad = { .kind = 99 };
	hlrt_tensor *w, *g8, *g4, *lr, *lr_i, *x, *t;
	hlrt_graph *g, *other;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_graph_create(&other));
	w = opt_tensor(g, "w", HLRT_FP32, 1, 8, 0, HLRT_TENSOR_PARAMETER);
	x = opt_tensor(g, "x", HLRT_FP32, 1, 8, 0, HLRT_TENSOR_INPUT);
	g8 = opt_tensor(g, "g8", HLRT_FP32, 1, 8, 0, HLRT_TENSOR_INPUT);
	g4 = opt_tensor(g, "g4", HLRT_FP32, 1, 4, 0, HLRT_TENSOR_INPUT);
	lr = opt_tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	lr_i = opt_tensor(g, "lr_i", HLRT_INT32, 1, 1, 0, HLRT_TENSOR_INPUT);

	expect_refused(hlrt_graph_apply_optimizer(NULL, &sgd, lr, &w, &g8, 1),
		       "needs a graph");
	expect_refused(hlrt_graph_apply_optimizer(g, &sgd, lr, &w, &g8, 0), "at least one");
	expect_refused(hlrt_graph_apply_optimizer(g, &sgd, lr_i, &w, &g8, 1),
		       "lr must be a 1-element FP32 tensor");
	expect_refused(hlrt_graph_apply_optimizer(g, &bad, lr, &w, &g8, 1),
		       "unknown optimizer kind 99");
	expect_refused(hlrt_graph_apply_optimizer(g, &sgd, lr, &x, &g8, 1),
		       "parameter 0 is not an FP32 PARAMETER tensor");
	expect_refused(hlrt_graph_apply_optimizer(g, &sgd, lr, &w, &g4, 1),
		       "the gradient of \"w\" is not an FP32 tensor of its size");
	expect_refused(hlrt_graph_optimizer_state(other, w, 0, &t), "a parameter of it");
	/* nothing was added: the graph still takes the update */
	HLRT_OK(hlrt_graph_apply_optimizer(g, &sgd, lr, &w, &g8, 1));
	ck_assert_int_eq(hlrt_graph_optimizer_state(g, w, 0, &t), HLRT_NOT_FOUND);
	HLRT_OK(hlrt_graph_destroy(g));
	HLRT_OK(hlrt_graph_destroy(other));
}
END_TEST

/* A zeroed AdamW struct is refused (beta2 = eps = 0), not taken as defaults. */
START_TEST(zeroed_adamw_is_refused)
{
	struct hlrt_optimizer_desc zero = { .kind = HLRT_OPT_ADAMW };
	struct hlrt_optimizer_desc neg_wd = { .kind = HLRT_OPT_ADAMW,
					      .u.adamw = { 0.9f, 0.999f, 1e-7f, -1.0f } };
	hlrt_tensor *w, *g8, *lr;
	hlrt_graph *g;

	HLRT_OK(hlrt_graph_create(&g));
	w = opt_tensor(g, "w", HLRT_FP32, 1, 8, 0, HLRT_TENSOR_PARAMETER);
	g8 = opt_tensor(g, "g8", HLRT_FP32, 1, 8, 0, HLRT_TENSOR_INPUT);
	lr = opt_tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	expect_refused(hlrt_graph_apply_optimizer(g, &zero, lr, &w, &g8, 1),
		       "beta1 0 must be in [0, 1), beta2 0 in (0, 1), eps 0 > 0");
	HLRT_OK(hlrt_graph_destroy(g));
	HLRT_OK(hlrt_graph_create(&g));
	w = opt_tensor(g, "w", HLRT_FP32, 1, 8, 0, HLRT_TENSOR_PARAMETER);
	g8 = opt_tensor(g, "g8", HLRT_FP32, 1, 8, 0, HLRT_TENSOR_INPUT);
	lr = opt_tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	expect_refused(hlrt_graph_apply_optimizer(g, &neg_wd, lr, &w, &g8, 1),
		       "weight_decay -1 >= 0");
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

Suite *optimizer_suite(void)
{
	Suite *s = suite_create("optimizer");
	TCase *tc = tcase_create("apply");
	int n = (int)(sizeof(opt_cases) / sizeof(opt_cases[0]));

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, split_update_trains_like_graph_train, 0, n);
	tcase_add_loop_test(tc, state_names_are_the_documented_ones, 0, n);
	tcase_add_test(tc, bad_input_is_refused);
	tcase_add_test(tc, zeroed_adamw_is_refused);
	suite_add_tcase(s, tc);
	return s;
}
