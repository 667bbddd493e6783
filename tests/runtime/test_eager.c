// SPDX-License-Identifier: MIT
/*
 * Eager recipes: an MLP's training step (autodiff + SGD with momentum)
 * compiled eager runs one submission per node, lazy one per step; both
 * give bit-identical losses and weights over several steps; eager and
 * lazy recipes are cached apart and HLRT_LAZY_MODE=0 selects eager.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define B 32
#define D 48
#define H 24
#define C 10
#define STEPS 4

struct mlp_init {
	float x[B * D], w1[D * H], b1[H], w2[H * C], b2[C];
	int32_t y[B];
};

static hlrt_tensor *tensor(hlrt_graph *g, const char *name, hlrt_dtype dt, uint32_t nd,
			   uint64_t d0, uint64_t d1, hlrt_tensor_role role)
{
	struct hlrt_tensor_desc desc = { .name = name, .dtype = dt, .ndims = nd,
					 .dims = { d0, d1 }, .role = role };
	hlrt_tensor *t;

	HLRT_OK(hlrt_tensor_create(g, &desc, &t));
	return t;
}

static hlrt_tensor *node(hlrt_graph *g, const char *guid, hlrt_tensor *a, hlrt_tensor *b,
			 const char *name)
{
	hlrt_tensor *in[2] = { a, b };
	hlrt_node *n;

	HLRT_OK(hlrt_node_create(g, guid, in, b ? 2 : 1, NULL, 0, NULL, 0, name, &n));
	return hlrt_node_output(n, 0);
}

/* x -> dense(H) -> relu -> dense(C) -> softmax cross entropy, SGD momentum. */
static hlrt_graph *mlp_train_graph(void)
{
	struct hlrt_optimizer_desc sgd = { .kind = HLRT_OPT_SGD };
	hlrt_tensor *x, *y, *lr, *w1, *b1, *w2, *b2, *h, *loss, *in[2], *outs[2];
	hlrt_graph *g;
	hlrt_node *n;

	sgd.u.sgd.momentum = 0.9f;
	sgd.u.sgd.weight_decay = 1e-3f;
	HLRT_OK(hlrt_graph_create(&g));
	x = tensor(g, "x", HLRT_FP32, 2, B, D, HLRT_TENSOR_INPUT);
	y = tensor(g, "y", HLRT_INT32, 1, B, 0, HLRT_TENSOR_INPUT);
	lr = tensor(g, "lr", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_INPUT);
	w1 = tensor(g, "w1", HLRT_FP32, 2, D, H, HLRT_TENSOR_PARAMETER);
	b1 = tensor(g, "b1", HLRT_FP32, 1, H, 0, HLRT_TENSOR_PARAMETER);
	w2 = tensor(g, "w2", HLRT_FP32, 2, H, C, HLRT_TENSOR_PARAMETER);
	b2 = tensor(g, "b2", HLRT_FP32, 1, C, 0, HLRT_TENSOR_PARAMETER);
	loss = tensor(g, "loss", HLRT_FP32, 1, 1, 0, HLRT_TENSOR_OUTPUT);
	h = node(g, "gemm_f32", x, w1, "model/dense1/MatMul");
	h = node(g, "bias_add_f32", h, b1, "model/dense1/BiasAdd");
	h = node(g, "relu_fwd_f32", h, NULL, "model/relu");
	h = node(g, "gemm_f32", h, w2, "model/dense2/MatMul");
	h = node(g, "bias_add_f32", h, b2, "model/dense2/BiasAdd");
	in[0] = h, in[1] = y;
	outs[0] = loss, outs[1] = NULL;
	HLRT_OK(hlrt_node_create(g, "softmax_cross_entropy_fwd_f32", in, 2, outs, 2, NULL, 0,
				 "model/loss", &n));
	HLRT_OK(hlrt_graph_train(g, loss, &sgd, lr));
	return g;
}

static void make_init(struct mlp_init *m)
{
	uint32_t s = 77, i;

	for (i = 0; i < B * D; i++)
		m->x[i] = rt_randf(&s, 0, 1);
	for (i = 0; i < D * H; i++)
		m->w1[i] = rt_randf(&s, -0.3f, 0.3f);
	for (i = 0; i < H; i++)
		m->b1[i] = rt_randf(&s, -0.1f, 0.1f);
	for (i = 0; i < H * C; i++)
		m->w2[i] = rt_randf(&s, -0.4f, 0.4f);
	for (i = 0; i < C; i++)
		m->b2[i] = rt_randf(&s, -0.1f, 0.1f);
	for (i = 0; i < B; i++)
		m->y[i] = (int32_t)(rt_rand(&s) % C);
}

/* Bind and initialise every persistent tensor: known ones from m, the rest (state) zero. */
static void bind_init(const hlrt_recipe *r, const struct mlp_init *m, struct rt_binding_set *bs)
{
	static const float lr = 0.05f;
	const struct { const char *name; const void *data; } known[] = {
		{ "x", m->x }, { "y", m->y }, { "lr", &lr }, { "w1", m->w1 }, { "b1", m->b1 },
		{ "w2", m->w2 }, { "b2", m->b2 },
	};
	uint32_t i, k;

	rt_bind_all(r, bs);
	for (i = 0; i < bs->n; i++) {
		struct hlrt_persistent_info info;

		HLRT_OK(hlrt_recipe_persistent_info(r, i, &info));
		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(info.name, known[k].name))
				break;
		if (k < sizeof(known) / sizeof(known[0])) {
			HLRT_OK(hlrt_memcpy_h2d(rt_dev, bs->b[i].device_addr, known[k].data,
						info.bytes));
		} else {
			void *zero = calloc(1, info.bytes);

			ck_assert_ptr_nonnull(zero);
			HLRT_OK(hlrt_memcpy_h2d(rt_dev, bs->b[i].device_addr, zero, info.bytes));
			free(zero);
		}
	}
}

static void unbind(struct rt_binding_set *bs)
{
	uint32_t i;

	for (i = 0; i < bs->n; i++) {
		HLRT_OK(hlrt_device_free(rt_dev, bs->b[i].device_addr));
		free((void *)bs->b[i].name);
	}
	bs->n = 0;
}

struct run_result {
	float loss[STEPS];
	float w1[D * H], b1[H], w2[H * C], b2[C];
	int64_t subs[STEPS];	/* submissions per launch, -1 uncounted */
};

static void train(const hlrt_recipe *r, const struct mlp_init *m, struct run_result *res)
{
	struct rt_binding_set bs = { 0 };
	uint32_t step;

	bind_init(r, m, &bs);
	for (step = 0; step < STEPS; step++) {
		int64_t before = rt_submissions();

		rt_run(r, &bs);
		res->subs[step] = before < 0 ? -1 : rt_submissions() - before;
		rt_download(&res->loss[step], rt_addr_of(&bs, "loss"), sizeof(float));
	}
	rt_download(res->w1, rt_addr_of(&bs, "w1"), sizeof(res->w1));
	rt_download(res->b1, rt_addr_of(&bs, "b1"), sizeof(res->b1));
	rt_download(res->w2, rt_addr_of(&bs, "w2"), sizeof(res->w2));
	rt_download(res->b2, rt_addr_of(&bs, "b2"), sizeof(res->b2));
	unbind(&bs);
}

/* Nodes that run on an engine: each is one eager submission. */
static uint32_t device_nodes(const hlrt_recipe *r)
{
	struct hlrt_recipe_stats st;

	HLRT_OK(hlrt_recipe_get_stats(r, &st));
	return st.mme_nodes + st.tpc_nodes + st.dma_nodes;
}

START_TEST(eager_and_lazy_training_bit_identical)
{
	struct hlrt_compile_options eo = { .no_cache = 1, .eager = HLRT_EAGER_ON };
	struct hlrt_compile_options lo = { .no_cache = 1, .eager = HLRT_EAGER_OFF };
	struct mlp_init *m = malloc(sizeof(*m));
	struct run_result *e = calloc(1, sizeof(*e)), *l = calloc(1, sizeof(*l));
	hlrt_recipe *re, *rl;
	hlrt_graph *g;
	uint32_t step, n_dev;

	ck_assert(m && e && l);
	make_init(m);
	g = mlp_train_graph();
	HLRT_OK(hlrt_graph_compile(g, &eo, &re));
	HLRT_OK(hlrt_graph_compile(g, &lo, &rl));
	n_dev = device_nodes(re);
	ck_assert_uint_ge(n_dev, 8);	/* forward, backward and optimizer nodes */
	ck_assert_uint_eq(n_dev, device_nodes(rl));
	train(re, m, e);
	train(rl, m, l);
	for (step = 0; step < STEPS; step++) {
		ck_assert_msg(!memcmp(&e->loss[step], &l->loss[step], sizeof(float)),
			      "step %u: eager loss %.9g, lazy %.9g", step, e->loss[step],
			      l->loss[step]);
		if (step > 0 && e->subs[step] >= 0) {	/* the first also uploads */
			ck_assert_int_eq(e->subs[step], n_dev);
			ck_assert_int_eq(l->subs[step], 1);
		}
	}
	/* it trained: the loss went down */
	ck_assert_float_lt(e->loss[STEPS - 1], e->loss[0]);
	ck_assert(!memcmp(e->w1, l->w1, sizeof(e->w1)));
	ck_assert(!memcmp(e->b1, l->b1, sizeof(e->b1)));
	ck_assert(!memcmp(e->w2, l->w2, sizeof(e->w2)));
	ck_assert(!memcmp(e->b2, l->b2, sizeof(e->b2)));
	HLRT_OK(hlrt_recipe_destroy(re));
	HLRT_OK(hlrt_recipe_destroy(rl));
	HLRT_OK(hlrt_graph_destroy(g));
	free(m);
	free(e);
	free(l);
}
END_TEST

/* The mode is part of the cache key; HLRT_LAZY_MODE=0 picks the eager recipe. */
START_TEST(eager_recipes_cached_apart)
{
	struct hlrt_compile_options eo = { .eager = HLRT_EAGER_ON };
	struct hlrt_compile_options lo = { .eager = HLRT_EAGER_OFF };
	struct hlrt_compile_options env = { 0 }, bad = { .eager = 7 };
	struct hlrt_recipe_stats s1, s2;
	hlrt_recipe *r1, *r2, *r3, *r4, *r5;
	hlrt_graph *g = mlp_train_graph();

	HLRT_OK(hlrt_graph_compile(g, &eo, &r1));
	HLRT_OK(hlrt_graph_compile(g, &eo, &r2));
	ck_assert_ptr_eq(r1, r2);	/* a cache hit */
	HLRT_OK(hlrt_graph_compile(g, &lo, &r3));
	ck_assert_ptr_ne(r1, r3);
	HLRT_OK(hlrt_recipe_get_stats(r1, &s1));
	HLRT_OK(hlrt_recipe_get_stats(r3, &s2));
	ck_assert(s1.hash != s2.hash);
	setenv("HLRT_LAZY_MODE", "0", 1);
	HLRT_OK(hlrt_graph_compile(g, &env, &r4));
	unsetenv("HLRT_LAZY_MODE");
	ck_assert_ptr_eq(r4, r1);
	HLRT_OK(hlrt_graph_compile(g, &env, &r5));
	ck_assert_ptr_eq(r5, r3);	/* unset: lazy */
	ck_assert_int_eq(hlrt_graph_compile(g, &bad, &r5), HLRT_INVALID_ARGUMENT);
	HLRT_OK(hlrt_recipe_destroy(r1));
	HLRT_OK(hlrt_recipe_destroy(r2));
	HLRT_OK(hlrt_recipe_destroy(r3));
	HLRT_OK(hlrt_recipe_destroy(r4));
	HLRT_OK(hlrt_recipe_destroy(r5));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* A serialised eager recipe stays eager: one submission per node after reloading. */
START_TEST(eager_survives_serialisation)
{
	struct hlrt_compile_options eo = { .no_cache = 1, .eager = HLRT_EAGER_ON };
	struct mlp_init *m = malloc(sizeof(*m));
	struct run_result *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	hlrt_recipe *r, *back;
	hlrt_graph *g = mlp_train_graph();
	size_t size;
	void *buf;

	ck_assert(m && a && b);
	make_init(m);
	HLRT_OK(hlrt_graph_compile(g, &eo, &r));
	HLRT_OK(hlrt_recipe_serialize(r, &buf, &size));
	HLRT_OK(hlrt_recipe_deserialize(buf, size, &back));
	free(buf);
	train(r, m, a);
	train(back, m, b);
	ck_assert(!memcmp(a->loss, b->loss, sizeof(a->loss)));
	if (b->subs[0] >= 0)
		ck_assert_int_eq(b->subs[1], device_nodes(r));
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_recipe_destroy(back));
	HLRT_OK(hlrt_graph_destroy(g));
	free(m);
	free(a);
	free(b);
}
END_TEST

Suite *eager_suite(void)
{
	Suite *s = suite_create("eager");
	TCase *tc = tcase_create("eager");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, eager_and_lazy_training_bit_identical);
	tcase_add_test(tc, eager_recipes_cached_apart);
	tcase_add_test(tc, eager_survives_serialisation);
	suite_add_tcase(s, tc);
	return s;
}
