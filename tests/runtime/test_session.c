// SPDX-License-Identifier: MIT
/*
 * Eager and lazy sessions: an MLP's forward pass and loss, op by op
 * (eager) and as one recipe per step (lazy), give bit-identical logits and
 * losses; HLRT_LAZY_MODE picks the default; bad use is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"
#include "sim_backend.h"

#define B 64
#define D 100
#define H 50
#define C 10

struct mlp_host {
	float x[B * D], w1[D * H], b1[H], w2[H * C], b2[C];
	int32_t y[B];
};

static void mlp_step(hlrt_session *s, const struct mlp_host *m, float *logits, float *loss)
{
	const uint64_t dx[2] = { B, D }, dw1[2] = { D, H }, db1[1] = { H }, dw2[2] = { H, C };
	const uint64_t db2[1] = { C }, dy[1] = { B };
	hlrt_value *x, *w1, *b1, *w2, *b2, *y, *h, *o, *in[2], *out[2];

	HLRT_OK(hlrt_value_from_host(s, HLRT_FP32, 2, dx, m->x, &x));
	HLRT_OK(hlrt_value_from_host(s, HLRT_FP32, 2, dw1, m->w1, &w1));
	HLRT_OK(hlrt_value_from_host(s, HLRT_FP32, 1, db1, m->b1, &b1));
	HLRT_OK(hlrt_value_from_host(s, HLRT_FP32, 2, dw2, m->w2, &w2));
	HLRT_OK(hlrt_value_from_host(s, HLRT_FP32, 1, db2, m->b2, &b2));
	HLRT_OK(hlrt_value_from_host(s, HLRT_INT32, 1, dy, m->y, &y));
	in[0] = x, in[1] = w1;
	HLRT_OK(hlrt_op(s, "gemm_f32", in, 2, NULL, 0, &h, 1));
	in[0] = h, in[1] = b1;
	HLRT_OK(hlrt_op(s, "bias_add_f32", in, 2, NULL, 0, &h, 1));
	HLRT_OK(hlrt_op(s, "relu_fwd_f32", &h, 1, NULL, 0, &h, 1));
	in[0] = h, in[1] = w2;
	HLRT_OK(hlrt_op(s, "gemm_f32", in, 2, NULL, 0, &o, 1));
	in[0] = o, in[1] = b2;
	HLRT_OK(hlrt_op(s, "bias_add_f32", in, 2, NULL, 0, &o, 1));
	in[0] = o, in[1] = y;
	HLRT_OK(hlrt_op(s, "softmax_cross_entropy_fwd_f32", in, 2, NULL, 0, out, 1));
	HLRT_OK(hlrt_mark_step(s));
	HLRT_OK(hlrt_value_read(s, o, logits, sizeof(float) * B * C));
	HLRT_OK(hlrt_value_read(s, out[0], loss, sizeof(float)));
}

START_TEST(eager_and_lazy_bit_identical)
{
	struct mlp_host *m = malloc(sizeof(*m));
	float le[B * C], ll[B * C], loss_e, loss_l, loss_l2;
	hlrt_session *eager, *lazy;
	uint64_t before, lazy_subs, eager_subs;
	uint32_t s = 3, i;

	for (i = 0; i < B * D; i++)
		m->x[i] = rt_randf(&s, 0, 1);
	for (i = 0; i < D * H; i++)
		m->w1[i] = rt_randf(&s, -0.2f, 0.2f);
	for (i = 0; i < H; i++)
		m->b1[i] = rt_randf(&s, -0.1f, 0.1f);
	for (i = 0; i < H * C; i++)
		m->w2[i] = rt_randf(&s, -0.3f, 0.3f);
	for (i = 0; i < C; i++)
		m->b2[i] = rt_randf(&s, -0.1f, 0.1f);
	for (i = 0; i < B; i++)
		m->y[i] = (int32_t)(rt_rand(&s) % C);
	HLRT_OK(hlrt_session_create(rt_dev, HLRT_MODE_EAGER, &eager));
	HLRT_OK(hlrt_session_create(rt_dev, HLRT_MODE_LAZY, &lazy));
	ck_assert(!hlrt_session_is_lazy(eager));
	ck_assert(hlrt_session_is_lazy(lazy));
	before = sim_get_stats()->submissions;
	mlp_step(eager, m, le, &loss_e);
	eager_subs = sim_get_stats()->submissions - before;
	before = sim_get_stats()->submissions;
	mlp_step(lazy, m, ll, &loss_l);
	lazy_subs = sim_get_stats()->submissions - before;
	ck_assert(!memcmp(le, ll, sizeof(le)));
	ck_assert(!memcmp(&loss_e, &loss_l, sizeof(float)));
	ck_assert_msg(lazy_subs < eager_subs, "lazy %llu submissions, eager %llu",
		      (unsigned long long)lazy_subs, (unsigned long long)eager_subs);
	/* a second lazy step: the same graph, the same result (the recipe is cached) */
	mlp_step(lazy, m, ll, &loss_l2);
	ck_assert(!memcmp(&loss_l, &loss_l2, sizeof(float)));
	HLRT_OK(hlrt_session_destroy(eager));
	HLRT_OK(hlrt_session_destroy(lazy));
	free(m);
}
END_TEST

START_TEST(mode_from_environment_and_errors)
{
	hlrt_session *s;
	hlrt_value *v, *out;
	const uint64_t dims[1] = { 4 };
	float data[4] = { 1, -2, 3, -4 }, back[4];

	setenv("HLRT_LAZY_MODE", "0", 1);
	HLRT_OK(hlrt_session_create(rt_dev, HLRT_MODE_DEFAULT, &s));
	ck_assert(!hlrt_session_is_lazy(s));
	HLRT_OK(hlrt_session_destroy(s));
	unsetenv("HLRT_LAZY_MODE");
	HLRT_OK(hlrt_session_create(rt_dev, HLRT_MODE_DEFAULT, &s));
	ck_assert(hlrt_session_is_lazy(s));
	HLRT_OK(hlrt_value_from_host(s, HLRT_FP32, 1, dims, data, &v));
	HLRT_OK(hlrt_op(s, "relu_fwd_f32", &v, 1, NULL, 0, &out, 1));
	ck_assert_int_eq(hlrt_value_read(s, out, back, 3), HLRT_INVALID_ARGUMENT);
	HLRT_OK(hlrt_value_read(s, out, back, sizeof(back)));
	ck_assert_float_eq(back[0], 1);
	ck_assert_float_eq(back[1], 0);
	HLRT_OK(hlrt_value_release(s, v));
	ck_assert_int_eq(hlrt_op(s, "relu_fwd_f32", &v, 1, NULL, 0, &out, 1),
			 HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_op(s, "no_such_op", &out, 1, NULL, 0, &v, 1), HLRT_NOT_FOUND);
	HLRT_OK(hlrt_session_destroy(s));
}
END_TEST

Suite *session_suite(void)
{
	Suite *s = suite_create("session");
	TCase *tc = tcase_create("session");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, eager_and_lazy_bit_identical);
	tcase_add_test(tc, mode_from_environment_and_errors);
	suite_add_tcase(s, tc);
	return s;
}
