// SPDX-License-Identifier: MIT
/*
 * The seed model end to end on the device core: Flatten + Dense(10),
 * softmax cross-entropy (mean), SGD lr 0.01, batch 128, batches picked on
 * the device by gather_rows from a data set in HBM through a shuffled
 * index, one launch per step with the offset uploaded and the loss read
 * back in the same submission. Every step's loss and the final weights
 * are compared with a plain-C trainer doing the same arithmetic.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_test.h"

#define N_SAMPLES	640
#define D_IN		784
#define N_CLASSES	10
#define BATCH		128
#define STEPS		10
#define LR		0.01f

struct seed_data {
	float *x;		/* N_SAMPLES x D_IN */
	int32_t *y;
	int32_t *perm;
	float *w, *b;		/* initial weights */
};

static void make_data(struct seed_data *d, uint32_t seed)
{
	float proj[N_CLASSES][16];
	uint32_t s = seed, i, j, c;
	float limit = sqrtf(6.0f / (D_IN + N_CLASSES));

	d->x = malloc(sizeof(float) * N_SAMPLES * D_IN);
	d->y = malloc(sizeof(int32_t) * N_SAMPLES);
	d->perm = malloc(sizeof(int32_t) * N_SAMPLES);
	d->w = malloc(sizeof(float) * D_IN * N_CLASSES);
	d->b = calloc(N_CLASSES, sizeof(float));
	ck_assert(d->x && d->y && d->perm && d->w && d->b);
	for (c = 0; c < N_CLASSES; c++)
		for (j = 0; j < 16; j++)
			proj[c][j] = rt_randf(&s, -1, 1);
	for (i = 0; i < N_SAMPLES; i++) {
		float best = -1e30f;

		for (j = 0; j < D_IN; j++)
			d->x[i * D_IN + j] = rt_randf(&s, 0, 1);
		/* labels a linear function of the first pixels can learn */
		for (c = 0; c < N_CLASSES; c++) {
			float v = 0;

			for (j = 0; j < 16; j++)
				v += proj[c][j] * d->x[i * D_IN + j];
			if (v > best) {
				best = v;
				d->y[i] = (int32_t)c;
			}
		}
		d->perm[i] = (int32_t)i;
	}
	for (i = N_SAMPLES - 1; i > 0; i--) {	/* Fisher-Yates */
		uint32_t k = rt_rand(&s) % (i + 1);
		int32_t t = d->perm[i];

		d->perm[i] = d->perm[k];
		d->perm[k] = t;
	}
	for (i = 0; i < D_IN * N_CLASSES; i++)
		d->w[i] = rt_randf(&s, -limit, limit);
}

/* One SGD step of the reference trainer; returns the batch loss. */
static float ref_step(const struct seed_data *d, float *w, float *b, uint32_t offset)
{
	static float logits[BATCH][N_CLASSES], dl[BATCH][N_CLASSES];
	float loss_sum = 0, dw;
	uint32_t i, j, c;

	for (i = 0; i < BATCH; i++) {
		const float *x = d->x + (size_t)d->perm[offset + i] * D_IN;
		int32_t y = d->y[d->perm[offset + i]];
		float m = -INFINITY, s = 0;

		for (c = 0; c < N_CLASSES; c++) {
			float acc = 0;

			for (j = 0; j < D_IN; j++)
				acc = fmaf(x[j], w[j * N_CLASSES + c], acc);
			logits[i][c] = acc + b[c];
			m = fmaxf(m, logits[i][c]);
		}
		for (c = 0; c < N_CLASSES; c++)
			s += expf(logits[i][c] - m);
		loss_sum += logf(s) + m - logits[i][y];
		for (c = 0; c < N_CLASSES; c++)
			dl[i][c] = (expf(logits[i][c] - m) / s - (c == (uint32_t)y)) / BATCH;
	}
	for (j = 0; j < D_IN; j++) {
		for (c = 0; c < N_CLASSES; c++) {
			dw = 0;
			for (i = 0; i < BATCH; i++)
				dw += d->x[(size_t)d->perm[offset + i] * D_IN + j] * dl[i][c];
			w[j * N_CLASSES + c] -= LR * dw;
		}
	}
	for (c = 0; c < N_CLASSES; c++) {
		float db = 0;

		for (i = 0; i < BATCH; i++)
			db += dl[i][c];
		b[c] -= LR * db;
	}
	return loss_sum / BATCH;
}

static hlrt_tensor *tensor(hlrt_graph *g, const char *name, hlrt_dtype dt, uint32_t nd,
			   uint64_t d0, uint64_t d1, uint64_t d2, hlrt_tensor_role role)
{
	struct hlrt_tensor_desc desc = { .name = name, .dtype = dt, .ndims = nd,
					 .dims = { d0, d1, d2 }, .role = role };
	hlrt_tensor *t;

	HLRT_OK(hlrt_tensor_create(g, &desc, &t));
	return t;
}

/* The seed model's training step as a graph. */
static hlrt_graph *seed_graph(void)
{
	struct hlrt_reshape_params batch = { .ndims = 1, .dims = { BATCH } };
	struct hlrt_optimizer_desc sgd = { .kind = HLRT_OPT_SGD };
	hlrt_tensor *data, *labels, *perm, *off, *lr, *w, *b, *in[3], *x, *y, *flat, *h, *logits;
	hlrt_tensor *loss;
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	data = tensor(g, "data", HLRT_FP32, 3, N_SAMPLES, 28, 28, HLRT_TENSOR_INPUT);
	labels = tensor(g, "labels", HLRT_INT32, 1, N_SAMPLES, 0, 0, HLRT_TENSOR_INPUT);
	perm = tensor(g, "perm", HLRT_INT32, 1, N_SAMPLES, 0, 0, HLRT_TENSOR_INPUT);
	off = tensor(g, "offset", HLRT_INT32, 1, 1, 0, 0, HLRT_TENSOR_INPUT);
	lr = tensor(g, "lr", HLRT_FP32, 1, 1, 0, 0, HLRT_TENSOR_INPUT);
	w = tensor(g, "dense/kernel", HLRT_FP32, 2, D_IN, N_CLASSES, 0, HLRT_TENSOR_PARAMETER);
	b = tensor(g, "dense/bias", HLRT_FP32, 1, N_CLASSES, 0, 0, HLRT_TENSOR_PARAMETER);
	loss = tensor(g, "loss", HLRT_FP32, 1, 1, 0, 0, HLRT_TENSOR_OUTPUT);

	in[0] = data, in[1] = perm, in[2] = off;
	HLRT_OK(hlrt_node_create(g, "gather_rows_f32", in, 3, NULL, 0, &batch, sizeof(batch),
				 "model/GatherX", &n));
	x = hlrt_node_output(n, 0);
	in[0] = labels;
	HLRT_OK(hlrt_node_create(g, "gather_rows_i32", in, 3, NULL, 0, &batch, sizeof(batch),
				 "model/GatherY", &n));
	y = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "flatten", &x, 1, NULL, 0, NULL, 0, "model/flatten", &n));
	flat = hlrt_node_output(n, 0);
	in[0] = flat, in[1] = w;
	HLRT_OK(hlrt_node_create(g, "gemm_f32", in, 2, NULL, 0, NULL, 0, "model/dense/MatMul",
				 &n));
	h = hlrt_node_output(n, 0);
	in[0] = h, in[1] = b;
	HLRT_OK(hlrt_node_create(g, "bias_add_f32", in, 2, NULL, 0, NULL, 0,
				 "model/dense/BiasAdd", &n));
	logits = hlrt_node_output(n, 0);
	in[0] = logits, in[1] = y;
	{
		hlrt_tensor *outs[2] = { loss, NULL };

		HLRT_OK(hlrt_node_create(g, "softmax_cross_entropy_fwd_f32", in, 2, outs, 2,
					 NULL, 0, "model/loss", &n));
	}
	HLRT_OK(hlrt_graph_train(g, loss, &sgd, lr));
	return g;
}

/* bf16: GEMM inputs rounded to BF16 (FP32 elsewhere): the losses within 1% of FP32's. */
START_TEST(seed_model_matches_reference)
{
	const bool bf16 = _i == 1;
	struct hlrt_compile_options opts = { .bf16 = bf16, .no_cache = 1 };
	struct seed_data d;
	struct rt_binding_set bs = { 0 };
	float *w_ref, b_ref[N_CLASSES], *w_dev, b_dev[N_CLASSES];
	float lr = LR, *host_loss;
	int32_t *host_off;
	struct hlrt_host_copy pre, post;
	uint64_t ws_size, ws = 0;
	int64_t before;
	struct timespec t0, t1;
	hlrt_recipe *r;
	hlrt_graph *g;
	uint32_t step, i;

	make_data(&d, 1234);
	g = seed_graph();
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "data"), d.x,
				sizeof(float) * N_SAMPLES * D_IN));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "labels"), d.y, 4 * N_SAMPLES));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "perm"), d.perm, 4 * N_SAMPLES));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "lr"), &lr, 4));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "dense/kernel"), d.w,
				sizeof(float) * D_IN * N_CLASSES));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "dense/bias"), d.b, 4 * N_CLASSES));
	HLRT_OK(hlrt_recipe_workspace_size(r, &ws_size));
	if (ws_size)
		ws = rt_upload(NULL, ws_size);
	HLRT_OK(hlrt_host_malloc(rt_dev, 4, (void **)&host_off));
	HLRT_OK(hlrt_host_malloc(rt_dev, 4, (void **)&host_loss));
	pre = (struct hlrt_host_copy){ host_off, rt_addr_of(&bs, "offset"), 4 };
	post = (struct hlrt_host_copy){ host_loss, rt_addr_of(&bs, "loss"), 4 };

	w_ref = malloc(sizeof(float) * D_IN * N_CLASSES);
	w_dev = malloc(sizeof(float) * D_IN * N_CLASSES);
	ck_assert(w_ref && w_dev);
	memcpy(w_ref, d.w, sizeof(float) * D_IN * N_CLASSES);
	memcpy(b_ref, d.b, sizeof(b_ref));
	for (step = 0; step < STEPS; step++) {
		uint32_t offset = (step * BATCH) % (N_SAMPLES - BATCH + 1);
		float ref = ref_step(&d, w_ref, b_ref, offset);

		*host_off = (int32_t)offset;
		before = rt_submissions();
		clock_gettime(CLOCK_MONOTONIC, &t0);
		HLRT_OK(hlrt_launch_ex(rt_stream, r, bs.b, bs.n, ws, &pre, 1, &post, 1));
		HLRT_OK(hlrt_stream_synchronize(rt_stream));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (getenv("RT_VERBOSE"))
			fprintf(stderr, "step %u loss %.7g ref %.7g (%.3f ms)\n", step, *host_loss, ref,
				(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
		if (step > 0 && before >= 0)	/* after the first launch: one per step */
			ck_assert_int_eq(rt_submissions() - before, 1);
		ck_assert_msg(fabsf(*host_loss - ref) <= (bf16 ? 1e-2f : 1e-4f) * fabsf(ref),
			      "step %u: loss %.7g, reference %.7g", step, *host_loss, ref);
	}
	if (bf16)
		goto out;	/* the weights drift apart by design */
	rt_download(w_dev, rt_addr_of(&bs, "dense/kernel"), sizeof(float) * D_IN * N_CLASSES);
	rt_download(b_dev, rt_addr_of(&bs, "dense/bias"), sizeof(b_dev));
	for (i = 0; i < D_IN * N_CLASSES; i++)
		ck_assert_msg(fabsf(w_dev[i] - w_ref[i]) <= 1e-5f + 1e-4f * fabsf(w_ref[i]),
			      "w[%u] = %g, reference %g", i, w_dev[i], w_ref[i]);
	for (i = 0; i < N_CLASSES; i++)
		ck_assert_msg(fabsf(b_dev[i] - b_ref[i]) <= 1e-6f + 1e-4f * fabsf(b_ref[i]),
			      "b[%u] = %g, reference %g", i, b_dev[i], b_ref[i]);
out:
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
	free(w_ref);
	free(w_dev);
}
END_TEST

/* Slots of the per-iteration tensors of a repeat: one per step, 128 bytes apart. */
#define REP_STRIDE	128
#define REP_STEPS	19	/* a group of 8 twice, then a remainder of 3 */

static void set_addr(struct rt_binding_set *bs, const char *name, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < bs->n; i++)
		if (!strcmp(bs->b[i].name, name))
			bs->b[i].device_addr = addr;
}

/* The seed model's data and initial parameters in a fresh binding set. */
static void seed_bind(const hlrt_recipe *r, const struct seed_data *d,
		      struct rt_binding_set *bs)
{
	float lr = LR;

	rt_bind_all(r, bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(bs, "data"), d->x,
				sizeof(float) * N_SAMPLES * D_IN));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(bs, "labels"), d->y, 4 * N_SAMPLES));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(bs, "perm"), d->perm, 4 * N_SAMPLES));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(bs, "lr"), &lr, 4));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(bs, "dense/kernel"), d->w,
				sizeof(float) * D_IN * N_CLASSES));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(bs, "dense/bias"), d->b, 4 * N_CLASSES));
}

/*
 * hlrt_launch_repeat runs K steps as K launches would, bit for bit: the
 * offset advances through a slot per step, each step's loss lands in its
 * own slot. Graph mode: one submission per group, also for a group
 * shorter than the last (the remainder of an epoch). Eager recipes run
 * the iterations as launches of their own: the same results.
 */
START_TEST(repeat_equals_single_launches)
{
	const bool eager = _i == 1;
	struct hlrt_compile_options opts = { .no_cache = 1,
					     .eager = eager ? HLRT_EAGER_ON : 0 };
	const struct hlrt_launch_iter iters[] = { { "offset", REP_STRIDE },
						  { "loss", REP_STRIDE } };
	const uint32_t groups[] = { 8, 8, 3 };
	struct rt_binding_set one = { 0 }, rep = { 0 };
	float *w_one, *w_rep, b_one[N_CLASSES], b_rep[N_CLASSES];
	float loss_one[REP_STEPS], loss_rep[REP_STEPS];
	uint64_t ws_size, ws = 0, off_dev, loss_dev;
	int32_t *h_off;
	float *h_loss;
	struct seed_data d;
	uint32_t step, g, i;
	hlrt_recipe *r;
	hlrt_graph *gr;

	make_data(&d, 4321);
	gr = seed_graph();
	HLRT_OK(hlrt_graph_compile(gr, &opts, &r));
	seed_bind(r, &d, &one);
	seed_bind(r, &d, &rep);
	HLRT_OK(hlrt_recipe_workspace_size(r, &ws_size));
	if (ws_size)
		ws = rt_upload(NULL, ws_size);
	off_dev = rt_upload(NULL, REP_STRIDE * HLRT_LAUNCH_REPEAT_MAX);
	loss_dev = rt_upload(NULL, REP_STRIDE * HLRT_LAUNCH_REPEAT_MAX);
	set_addr(&rep, "offset", off_dev);
	set_addr(&rep, "loss", loss_dev);
	HLRT_OK(hlrt_host_malloc(rt_dev, REP_STRIDE * HLRT_LAUNCH_REPEAT_MAX, (void **)&h_off));
	HLRT_OK(hlrt_host_malloc(rt_dev, REP_STRIDE * HLRT_LAUNCH_REPEAT_MAX, (void **)&h_loss));

	/* one launch per step */
	for (step = 0; step < REP_STEPS; step++) {
		struct hlrt_host_copy pre = { h_off, rt_addr_of(&one, "offset"), 4 };
		struct hlrt_host_copy post = { h_loss, rt_addr_of(&one, "loss"), 4 };

		h_off[0] = (int32_t)((step * 67) % (N_SAMPLES - BATCH + 1));
		HLRT_OK(hlrt_launch_ex(rt_stream, r, one.b, one.n, ws, &pre, 1, &post, 1));
		HLRT_OK(hlrt_stream_synchronize(rt_stream));
		loss_one[step] = h_loss[0];
	}
	/* the same steps in groups */
	for (g = 0, step = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		uint32_t k = groups[g], words = REP_STRIDE / 4;
		struct hlrt_host_copy pre = { h_off, off_dev, (uint64_t)k * REP_STRIDE };
		struct hlrt_host_copy post = { h_loss, loss_dev, (uint64_t)k * REP_STRIDE };
		int64_t before;

		for (i = 0; i < k; i++)
			h_off[i * words] = (int32_t)(((step + i) * 67) % (N_SAMPLES - BATCH + 1));
		before = rt_submissions();
		HLRT_OK(hlrt_launch_repeat(rt_stream, r, rep.b, rep.n, ws, k, iters, 2,
					   &pre, 1, &post, 1));
		/* after the first group built its command buffers: one submission a group */
		if (g > 0 && before >= 0 && !eager)
			ck_assert_int_eq(rt_submissions() - before, 1);
		if (before >= 0 && eager)	/* a submission per node and step */
			ck_assert_int_ge(rt_submissions() - before, k);
		HLRT_OK(hlrt_stream_synchronize(rt_stream));
		for (i = 0; i < k; i++)
			loss_rep[step + i] = h_loss[i * words];
		step += k;
	}
	ck_assert_uint_eq(step, REP_STEPS);
	for (step = 0; step < REP_STEPS; step++)
		ck_assert_msg(!memcmp(&loss_one[step], &loss_rep[step], 4),
			      "step %u: loss %.9g repeated, %.9g alone", step, loss_rep[step],
			      loss_one[step]);
	w_one = malloc(sizeof(float) * D_IN * N_CLASSES);
	w_rep = malloc(sizeof(float) * D_IN * N_CLASSES);
	ck_assert(w_one && w_rep);
	rt_download(w_one, rt_addr_of(&one, "dense/kernel"), sizeof(float) * D_IN * N_CLASSES);
	rt_download(w_rep, rt_addr_of(&rep, "dense/kernel"), sizeof(float) * D_IN * N_CLASSES);
	rt_download(b_one, rt_addr_of(&one, "dense/bias"), sizeof(b_one));
	rt_download(b_rep, rt_addr_of(&rep, "dense/bias"), sizeof(b_rep));
	ck_assert_msg(!memcmp(w_one, w_rep, sizeof(float) * D_IN * N_CLASSES),
		      "the weights differ");
	ck_assert_msg(!memcmp(b_one, b_rep, sizeof(b_one)), "the biases differ");
	free(w_one);
	free(w_rep);
	HLRT_OK(hlrt_host_free(rt_dev, h_off));
	HLRT_OK(hlrt_host_free(rt_dev, h_loss));
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(gr));
}
END_TEST

/* A bad count, a NULL or a binding that advances but is not bound: clear errors. */
START_TEST(repeat_bad_arguments)
{
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct rt_binding_set bs = { 0 };
	struct hlrt_launch_iter it = { "offset", REP_STRIDE };
	uint64_t ws_size, ws = 0;
	struct seed_data d;
	hlrt_recipe *r;
	hlrt_graph *g;

	make_data(&d, 7);
	g = seed_graph();
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	seed_bind(r, &d, &bs);
	HLRT_OK(hlrt_recipe_workspace_size(r, &ws_size));
	if (ws_size)
		ws = rt_upload(NULL, ws_size);
	ck_assert_int_eq(hlrt_launch_repeat(rt_stream, r, bs.b, bs.n, ws, 0, &it, 1,
					    NULL, 0, NULL, 0), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "count 0"));
	ck_assert_int_eq(hlrt_launch_repeat(rt_stream, r, bs.b, bs.n, ws,
					    HLRT_LAUNCH_REPEAT_MAX + 1, &it, 1, NULL, 0, NULL, 0),
			 HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "count 33 (1..32"));
	ck_assert_int_eq(hlrt_launch_repeat(NULL, r, bs.b, bs.n, ws, 2, &it, 1,
					    NULL, 0, NULL, 0), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "NULL"));
	ck_assert_int_eq(hlrt_launch_repeat(rt_stream, NULL, bs.b, bs.n, ws, 2, &it, 1,
					    NULL, 0, NULL, 0), HLRT_INVALID_ARGUMENT);
	ck_assert_int_eq(hlrt_launch_repeat(rt_stream, r, bs.b, bs.n, ws, 2, NULL, 1,
					    NULL, 0, NULL, 0), HLRT_INVALID_ARGUMENT);
	it.name = "no/such";
	ck_assert_int_eq(hlrt_launch_repeat(rt_stream, r, bs.b, bs.n, ws, 2, &it, 1,
					    NULL, 0, NULL, 0), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "\"no/such\" advances but is not bound"));
	it.name = "offset";
	it.stride = 6;
	ck_assert_int_eq(hlrt_launch_repeat(rt_stream, r, bs.b, bs.n, ws, 2, &it, 1,
					    NULL, 0, NULL, 0), HLRT_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "multiple of 4"));
	/* nothing was queued by the refused calls */
	HLRT_OK(hlrt_stream_synchronize(rt_stream));
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

#ifndef RT_ON_DRIVER
#include <jansson.h>
#include <unistd.h>

/*
 * A profiled run: the trace parses and has events on the MME, TPC and DMA
 * lanes; each launch's engine span is on a lane of its own, not on the
 * PCI DMA lane; only lanes with events are declared.
 */
START_TEST(profile_has_engine_lanes)
{
	char path[] = "/tmp/hlrt-profile-XXXXXX";
	struct seed_data d;
	struct rt_binding_set bs = { 0 };
	uint32_t lanes[16] = { 0 }, declared[16] = { 0 }, step, i;
	json_error_t jerr;
	json_t *root, *evs, *e;
	hlrt_recipe *r;
	hlrt_graph *g;
	float lr = LR;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	make_data(&d, 99);
	HLRT_OK(hlrt_profiler_start(rt_dev, path));
	g = seed_graph();
	HLRT_OK(hlrt_graph_compile(g, NULL, &r));
	rt_bind_all(r, &bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "perm"), d.perm, 4 * N_SAMPLES));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "lr"), &lr, 4));
	for (step = 0; step < 3; step++)
		rt_run(r, &bs);
	HLRT_OK(hlrt_profiler_stop(rt_dev));
	root = json_load_file(path, 0, &jerr);
	ck_assert_msg(root != NULL, "%s:%d: %s", path, jerr.line, jerr.text);
	evs = json_object_get(root, "traceEvents");
	ck_assert(json_is_array(evs));
	json_array_foreach(evs, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		json_int_t pid = json_integer_value(json_object_get(e, "pid"));
		json_int_t tid = json_integer_value(json_object_get(e, "tid"));

		if (ph && !strcmp(ph, "M") &&
		    !strcmp(json_string_value(json_object_get(e, "name")), "process_name"))
			ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "args"),
									   "name")),
					 pid ? "device (module 0)" : "host (module 0)");
		if (ph && !strcmp(ph, "M") && pid == 1 && tid >= 0 && tid < 16 &&
		    !strcmp(json_string_value(json_object_get(e, "name")), "thread_name"))
			declared[tid]++;
		if (ph && !strcmp(ph, "X") && pid == 1 && tid >= 0 && tid < 16) {
			const char *name = json_string_value(json_object_get(e, "name"));

			ck_assert_msg(tid != 0 || strcmp(name, "launch (engines)"),
				      "a launch's engine span on the PCI DMA lane");
			lanes[tid]++;
			ck_assert(json_real_value(json_object_get(e, "dur")) >= 0);
		}
	}
	ck_assert_uint_ge(lanes[0], 3);		/* DMA 0: the launches' copies */
	ck_assert_uint_ge(lanes[2], 3);		/* MME: the GEMMs */
	ck_assert_uint_ge(lanes[3], 3);		/* TPC 0 */
	ck_assert_uint_ge(lanes[11], 3);	/* launch (engines) */
	for (i = 0; i < 16; i++)
		ck_assert_uint_eq(declared[i], lanes[i] ? 1 : 0);
	json_decref(root);
	unlink(path);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST
#endif

Suite *train_suite(void)
{
	Suite *s = suite_create("train");
	TCase *tc = tcase_create("seed");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, seed_model_matches_reference, 0, 2);
	tcase_add_loop_test(tc, repeat_equals_single_launches, 0, 2);
	tcase_add_test(tc, repeat_bad_arguments);
#ifndef RT_ON_DRIVER
	tcase_add_test(tc, profile_has_engine_lanes);
#endif
	suite_add_tcase(s, tc);
	return s;
}
