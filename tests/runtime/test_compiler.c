// SPDX-License-Identifier: MIT
/*
 * Compiler properties: on random graphs the memory plan never lets two
 * live temporaries overlap and the device result equals a host
 * evaluation; patching rewrites exactly the patch points; a recipe
 * survives serialise/deserialise and malformed files are refused; the
 * passes fold views, fuse bias_add + relu and drop dead nodes; INT64 ops
 * run on the CPU with the placement log saying so; gradients match
 * finite differences for every op with a gradient rule; the cache hands
 * back the same recipe for the same graph.
 */
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/exec.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_tpc.h"
#include "rt_test.h"

static hlrt_tensor *mk(hlrt_graph *g, const char *name, hlrt_dtype dt, uint64_t d0, uint64_t d1,
		       hlrt_tensor_role role)
{
	struct hlrt_tensor_desc d = { .name = name, .dtype = dt, .ndims = d1 ? 2 : 1,
				      .dims = { d0, d1 }, .role = role };
	hlrt_tensor *t;

	HLRT_OK(hlrt_tensor_create(g, &d, &t));
	return t;
}

static hlrt_tensor *op(hlrt_graph *g, const char *guid, hlrt_tensor *a, hlrt_tensor *b,
		       const void *p, size_t ps)
{
	hlrt_tensor *in[2] = { a, b };
	hlrt_node *n;

	HLRT_OK(hlrt_node_create(g, guid, in, b ? 2 : 1, NULL, 0, p, ps, NULL, &n));
	return hlrt_node_output(n, 0);
}

/* ---- random graphs ---------------------------------------------------------------- */

#define RG_MAX	24

/*
 * A random DAG of elementwise ops over same-shaped tensors; values[i] is
 * the host evaluation of tensor i in the same FP32 operations.
 */
START_TEST(random_graphs_plan_and_run)
{
	static const char *const guids[] = { "add_f32", "mul_f32", "sub_f32", "relu_fwd_f32",
					     "scale_f32" };
	struct hlrt_scale_params half = { .alpha = 0.5f };
	uint32_t s = 1000 + (uint32_t)_i, i, j, k, n_in = 2 + rt_rand(&s) % 3, n_ops;
	uint64_t cols = 1 + rt_rand(&s) % 3000;
	hlrt_tensor *t[RG_MAX + 4];
	float *val[RG_MAX + 4];
	struct rt_binding_set bs = { 0 };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct hlrt_recipe *r;
	hlrt_graph *g;
	char name[16];
	uint32_t n_t;

	HLRT_OK(hlrt_graph_create(&g));
	for (i = 0; i < n_in; i++) {
		snprintf(name, sizeof(name), "x%u", i);
		t[i] = mk(g, name, HLRT_FP32, cols, 0, HLRT_TENSOR_INPUT);
		val[i] = malloc(4 * cols);
		for (j = 0; j < cols; j++)
			val[i][j] = rt_randf(&s, -2, 2);
	}
	n_t = n_in;
	n_ops = 6 + rt_rand(&s) % (RG_MAX - 6);
	for (k = 0; k < n_ops; k++) {
		uint32_t o = rt_rand(&s) % 5, a = rt_rand(&s) % n_t, b = rt_rand(&s) % n_t;
		bool unary = o >= 3;

		t[n_t] = op(g, guids[o], t[a], unary ? NULL : t[b], o == 4 ? &half : NULL,
			    o == 4 ? sizeof(half) : 0);
		val[n_t] = malloc(4 * cols);
		for (j = 0; j < cols; j++) {
			float x = val[a][j], y = val[b][j];

			val[n_t][j] = o == 0 ? x + y : o == 1 ? x * y : o == 2 ? x - y :
				      o == 3 ? (x > 0 ? x : 0.0f) : x * 0.5f;
		}
		n_t++;
	}
	/* two results are read back; everything not feeding them is dead */
	HLRT_OK(hlrt_tensor_set_role(t[n_t - 1], HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_tensor_set_role(t[n_t - 2], HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));

	/* the plan: live temporaries never share bytes; offsets aligned */
	for (i = 0; i < r->n_tensors; i++) {
		const struct rtensor *a = &r->tensors[i];

		if (a->kind != RT_WORKSPACE)
			continue;
		ck_assert_uint_eq(a->offset % 128, 0);
		ck_assert_uint_le(a->offset + a->bytes, r->workspace_size);
		for (j = i + 1; j < r->n_tensors; j++) {
			const struct rtensor *b = &r->tensors[j];
			bool live_together = a->live_first <= b->live_last &&
					     b->live_first <= a->live_last;

			if (b->kind != RT_WORKSPACE || !live_together)
				continue;
			ck_assert_msg(a->offset + a->bytes <= b->offset ||
				      b->offset + b->bytes <= a->offset,
				      "%s [%llu,+%llu) and %s [%llu,+%llu) overlap while both live",
				      a->name, (unsigned long long)a->offset,
				      (unsigned long long)a->bytes, b->name,
				      (unsigned long long)b->offset, (unsigned long long)b->bytes);
		}
	}

	rt_bind_all(r, &bs);
	for (i = 0; i < n_in; i++) {
		snprintf(name, sizeof(name), "x%u", i);
		for (j = 0; j < bs.n; j++)
			if (!strcmp(bs.b[j].name, name))
				HLRT_OK(hlrt_memcpy_h2d(rt_dev, bs.b[j].device_addr, val[i], 4 * cols));
	}
	rt_run(r, &bs);
	for (k = n_t - 2; k < n_t; k++) {
		float *got = malloc(4 * cols);

		rt_download(got, rt_addr_of(&bs, hlrt_tensor_name(t[k])), 4 * cols);
		ck_assert_msg(!memcmp(got, val[k], 4 * cols), "graph %d: result %u differs",
			      _i, k);
		free(got);
	}
	for (i = 0; i < n_t; i++)
		free(val[i]);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* ---- patching ---------------------------------------------------------------------- */

static hlrt_graph *small_graph(hlrt_tensor **out)
{
	hlrt_graph *g;
	hlrt_tensor *a, *b, *c;

	HLRT_OK(hlrt_graph_create(&g));
	a = mk(g, "a", HLRT_FP32, 8, 100, HLRT_TENSOR_INPUT);
	b = mk(g, "b", HLRT_FP32, 100, 0, HLRT_TENSOR_INPUT);
	c = op(g, "bias_add_f32", a, b, NULL, 0);
	c = op(g, "relu_fwd_f32", c, NULL, NULL, 0);
	c = op(g, "add_f32", c, a, NULL, 0);
	HLRT_OK(hlrt_tensor_set_role(c, HLRT_TENSOR_OUTPUT));
	*out = c;
	return g;
}

START_TEST(patching_writes_exactly_the_patch_points)
{
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct rt_binding_set b1 = { 0 }, b2 = { 0 };
	struct loaded_recipe *lr;
	hlrt_tensor *out;
	hlrt_graph *g = small_graph(&out);
	struct hlrt_recipe *r;
	uint8_t *img1, *dev_img;
	uint64_t ws1, ws2, i, dws;
	bool *is_patch;

	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &b1);
	rt_bind_all(r, &b2);
	ws1 = rt_upload(NULL, r->workspace_size ? r->workspace_size : 128);
	ws2 = rt_upload(NULL, r->workspace_size ? r->workspace_size : 128);
	HLRT_OK(hlrt_launch(rt_stream, r, b1.b, b1.n, ws1));
	HLRT_OK(hlrt_stream_synchronize(rt_stream));
	lr = r->loaded;
	ck_assert_ptr_nonnull(lr);
	ck_assert_uint_gt(lr->n_patches, 0);
	img1 = malloc(lr->image_size);
	memcpy(img1, lr->image, lr->image_size);
	/* the image in HBM is the patched host image */
	dev_img = malloc(lr->image_size);
	rt_download(dev_img, lr->image_addr, lr->image_size);
	ck_assert(!memcmp(dev_img, img1, lr->image_size));

	/* the same bindings again: nothing is rewritten */
	HLRT_OK(hlrt_launch(rt_stream, r, b1.b, b1.n, ws1));
	HLRT_OK(hlrt_stream_synchronize(rt_stream));
	ck_assert(!memcmp(lr->image, img1, lr->image_size));

	HLRT_OK(hlrt_launch(rt_stream, r, b2.b, b2.n, ws2));
	HLRT_OK(hlrt_stream_synchronize(rt_stream));
	dws = lr->image_size / 4;
	is_patch = calloc(dws, sizeof(bool));
	for (i = 0; i < lr->n_patches; i++) {
		const struct patch_point *p = &lr->patches[i];
		uint64_t at = (lr->cbs[p->cb].dev_offset / 4) + p->dword;
		struct raddr a = { .tensor = p->rt, .offset = p->addend };
		uint64_t v1 = hlrt_resolve(r, lr, (uint64_t[]){ b1.b[0].device_addr,
				b1.b[1].device_addr, b1.b[2].device_addr }, ws1, a);
		uint64_t v2 = hlrt_resolve(r, lr, lr->bound, ws2, a);
		uint32_t w1, w2;

		ck_assert_uint_eq(r->n_persistent, 3);
		is_patch[at] = true;
		memcpy(&w1, img1 + 4 * at, 4);
		memcpy(&w2, lr->image + 4 * at, 4);
		ck_assert_uint_eq(w1, p->hi ? (uint32_t)(v1 >> 32) : (uint32_t)v1);
		ck_assert_uint_eq(w2, p->hi ? (uint32_t)(v2 >> 32) : (uint32_t)v2);
	}
	for (i = 0; i < dws; i++)
		if (!is_patch[i])
			ck_assert_msg(!memcmp(img1 + 4 * i, lr->image + 4 * i, 4),
				      "dword %llu changed but is no patch point",
				      (unsigned long long)i);
	rt_download(dev_img, lr->image_addr, lr->image_size);
	ck_assert(!memcmp(dev_img, lr->image, lr->image_size));
	free(is_patch);
	free(img1);
	free(dev_img);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* ---- serialisation -------------------------------------------------------------- */

START_TEST(recipe_round_trip)
{
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *out;
	hlrt_graph *g = small_graph(&out);
	hlrt_recipe *r, *r2, *bad;
	void *buf, *buf2;
	size_t size, size2, i;
	float a[800], b[100], y1[800], y2[800];
	uint32_t s = 9;
	char path[] = "/tmp/hlrt-recipe-XXXXXX";
	int fd;

	for (i = 0; i < 800; i++)
		a[i] = rt_randf(&s, -1, 1);
	for (i = 0; i < 100; i++)
		b[i] = rt_randf(&s, -1, 1);
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	HLRT_OK(hlrt_recipe_serialize(r, &buf, &size));
	HLRT_OK(hlrt_recipe_deserialize(buf, size, &r2));
	HLRT_OK(hlrt_recipe_serialize(r2, &buf2, &size2));
	ck_assert_uint_eq(size, size2);
	ck_assert(!memcmp(buf, buf2, size));

	rt_bind_all(r, &bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "a"), a, sizeof(a)));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "b"), b, sizeof(b)));
	rt_run(r, &bs);
	rt_download(y1, rt_addr_of(&bs, hlrt_tensor_name(out)), sizeof(y1));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, hlrt_tensor_name(out)), a, sizeof(a)));
	rt_run(r2, &bs);
	rt_download(y2, rt_addr_of(&bs, hlrt_tensor_name(out)), sizeof(y2));
	ck_assert(!memcmp(y1, y2, sizeof(y1)));

	/* through a file */
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	HLRT_OK(hlrt_recipe_save(r, path));
	HLRT_OK(hlrt_recipe_load(path, &bad));
	HLRT_OK(hlrt_recipe_destroy(bad));
	unlink(path);

	/* truncations and a bad magic are refused */
	for (i = 0; i < size; i += 1 + size / 40)
		ck_assert_int_eq(hlrt_recipe_deserialize(buf, i, &bad), HLRT_BAD_FORMAT);
	((uint8_t *)buf2)[0] ^= 1;
	ck_assert_int_eq(hlrt_recipe_deserialize(buf2, size, &bad), HLRT_BAD_FORMAT);
	ck_assert_int_eq(hlrt_recipe_load("/nonexistent/recipe", &bad), HLRT_NOT_FOUND);
	free(buf);
	free(buf2);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_recipe_destroy(r2));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* Random byte flips never crash the loader: each is refused or validated. */
START_TEST(recipe_corruptions_refused_or_valid)
{
	struct hlrt_compile_options opts = { .no_cache = 1 };
	hlrt_tensor *out;
	hlrt_graph *g = small_graph(&out);
	hlrt_recipe *r, *r2;
	uint32_t s = 77, k;
	uint8_t *copy;
	void *buf;
	size_t size;

	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	HLRT_OK(hlrt_recipe_serialize(r, &buf, &size));
	copy = malloc(size);
	for (k = 0; k < 300; k++) {
		hlrt_status st;

		memcpy(copy, buf, size);
		copy[rt_rand(&s) % size] ^= (uint8_t)(1u << (rt_rand(&s) % 8));
		st = hlrt_recipe_deserialize(copy, size, &r2);
		ck_assert(st == HLRT_SUCCESS || st == HLRT_BAD_FORMAT);
		if (st == HLRT_SUCCESS)
			hlrt_recipe_destroy(r2);
	}
	free(copy);
	free(buf);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* ---- passes ---------------------------------------------------------------------- */

START_TEST(passes_fold_fuse_and_drop)
{
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct hlrt_recipe_stats st;
	struct hlrt_reshape_params rp = { .ndims = 2, .dims = { 4, 50 } };
	hlrt_graph *g;
	hlrt_tensor *x, *w, *b, *h, *f, *dead;
	hlrt_recipe *r;

	HLRT_OK(hlrt_graph_create(&g));
	x = mk(g, "x", HLRT_FP32, 4, 50, HLRT_TENSOR_INPUT);
	w = mk(g, "w", HLRT_FP32, 50, 30, HLRT_TENSOR_PARAMETER);
	b = mk(g, "b", HLRT_FP32, 30, 0, HLRT_TENSOR_PARAMETER);
	f = op(g, "reshape", x, NULL, &rp, sizeof(rp));
	h = op(g, "gemm_f32", f, w, NULL, 0);
	h = op(g, "bias_add_f32", h, b, NULL, 0);
	h = op(g, "relu_fwd_f32", h, NULL, NULL, 0);
	dead = op(g, "scale_f32", h, NULL, NULL, 0);
	(void)dead;
	HLRT_OK(hlrt_tensor_set_role(h, HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	HLRT_OK(hlrt_recipe_get_stats(r, &st));
	ck_assert_uint_eq(st.folded_nodes, 1);
	ck_assert_uint_eq(st.fused_nodes, 1);
	ck_assert_uint_eq(st.dead_nodes, 1);
	ck_assert_uint_eq(st.nodes, 2);		/* gemm, bias_add+relu */
	ck_assert_uint_eq(st.mme_nodes, 1);
	ck_assert_uint_eq(st.tpc_nodes, 1);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/*
 * A training graph's SCE backward runs in its forward's kernel, and so
 * does an argmax of the logits created after the forward: fewer TPC
 * nodes, and the loss, dlogits and indices bit-identical to the separate
 * kernels' (no_fusion). Case 0 and 1 (3 tiles a row) with an argmax
 * after the loss, 2 with one before it (not fused: its readers could come
 * before the loss), 3 without, by sum; a label outside the classes
 * (infinite loss, no -1 in its row) and rows with tied maxima.
 */
START_TEST(sce_fwd_bwd_fused_matches_the_pair)
{
	const uint64_t b = _i == 2 ? 1 : 3 + 37ull * _i, c = _i == 1 ? 150 : 10;
	const bool argmax = _i != 3, fused_argmax = _i < 2;
	struct hlrt_sce_params sum = { .mode = HLRT_SCE_SUM };
	float *x = malloc(4 * b * c), *out[2][2];
	int32_t *labels = malloc(4 * b), idx[2][130];
	uint32_t s = 41 + (uint32_t)_i, run, i;

	ck_assert(x && labels && b <= 130);
	for (i = 0; i < b * c; i++)
		x[i] = rt_randf(&s, -6.0f, 6.0f);
	for (i = 0; i < b; i++) {
		labels[i] = (int32_t)(rt_rand(&s) % c);
		x[i * c + c - 1] = x[i * c + 1] = 7.0f;	/* a tie for the maximum */
	}
	if (b > 4)
		labels[3] = (int32_t)c;
	for (run = 0; run < 2; run++) {
		struct hlrt_compile_options opts = { .no_cache = 1, .no_fusion = run };
		struct rt_binding_set bs = { 0 };
		struct hlrt_recipe_stats st;
		hlrt_tensor *lg, *lb, *loss, *grad, *am = NULL, *in[2], *outs[2] = { NULL, NULL };
		hlrt_recipe *r;
		hlrt_graph *g;
		hlrt_node *n;

		HLRT_OK(hlrt_graph_create(&g));
		lg = mk(g, "logits", HLRT_FP32, b, c, HLRT_TENSOR_PARAMETER);
		lb = mk(g, "labels", HLRT_INT32, b, 0, HLRT_TENSOR_INPUT);
		outs[0] = loss = mk(g, "loss", HLRT_FP32, 1, 0, HLRT_TENSOR_OUTPUT);
		if (argmax && !fused_argmax)
			am = op(g, "argmax_i32", lg, NULL, NULL, 0);
		in[0] = lg;
		in[1] = lb;
		HLRT_OK(hlrt_node_create(g, "softmax_cross_entropy_fwd_f32", in, 2, outs, 2,
					 _i == 3 ? &sum : NULL, _i == 3 ? sizeof(sum) : 0, "loss",
					 &n));
		if (fused_argmax)
			am = op(g, "argmax_i32", lg, NULL, NULL, 0);
		if (am)
			HLRT_OK(hlrt_tensor_set_role(am, HLRT_TENSOR_OUTPUT));
		HLRT_OK(hlrt_graph_gradients(g, loss, &lg, 1, &grad));
		HLRT_OK(hlrt_tensor_set_role(grad, HLRT_TENSOR_OUTPUT));
		HLRT_OK(hlrt_graph_compile(g, &opts, &r));
		HLRT_OK(hlrt_recipe_get_stats(r, &st));
		/* forward (its batch reduction among its works), backward, argmax */
		ck_assert_uint_eq(st.fused_nodes, run ? 0 : fused_argmax ? 2 : 1);
		ck_assert_uint_eq(st.tpc_nodes, run ? 2 + argmax : 1 + (argmax && !fused_argmax));
		rt_bind_all(r, &bs);
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "logits"), x, 4 * b * c));
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "labels"), labels, 4 * b));
		rt_run(r, &bs);
		out[run][0] = malloc(4);
		out[run][1] = malloc(4 * b * c);
		ck_assert(out[run][0] && out[run][1]);
		rt_download(out[run][0], rt_addr_of(&bs, "loss"), 4);
		rt_download(out[run][1], rt_addr_of(&bs, hlrt_tensor_name(grad)), 4 * b * c);
		if (am)
			rt_download(idx[run], rt_addr_of(&bs, hlrt_tensor_name(am)), 4 * b);
		HLRT_OK(hlrt_recipe_destroy(r));
		HLRT_OK(hlrt_graph_destroy(g));
	}
	ck_assert_msg(!memcmp(out[0][0], out[1][0], 4), "loss %a fused, %a apart",
		      (double)*out[0][0], (double)*out[1][0]);
	ck_assert(b > 4 ? isinf(*out[0][0]) : isfinite(*out[0][0]));
	for (i = 0; i < b * c; i++)
		ck_assert_msg(!memcmp(&out[0][1][i], &out[1][1][i], 4),
			      "dlogits[%u] %a fused, %a apart", i, (double)out[0][1][i],
			      (double)out[1][1][i]);
	for (i = 0; argmax && i < b; i++) {
		ck_assert_int_eq(idx[0][i], idx[1][i]);
		ck_assert_int_eq(idx[0][i], 1);	/* the first of the tied maxima */
	}
	for (run = 0; run < 2; run++) {
		free(out[run][0]);
		free(out[run][1]);
	}
	free(x);
	free(labels);
}
END_TEST

START_TEST(cache_returns_the_same_recipe)
{
	hlrt_tensor *out;
	hlrt_graph *g = small_graph(&out), *g2 = small_graph(&out);
	hlrt_recipe *r1, *r2, *r3;
	struct hlrt_compile_options nocache = { .no_cache = 1 };

	HLRT_OK(hlrt_graph_compile(g, NULL, &r1));
	HLRT_OK(hlrt_graph_compile(g2, NULL, &r2));
	HLRT_OK(hlrt_graph_compile(g2, &nocache, &r3));
	ck_assert_ptr_eq(r1, r2);
	ck_assert_ptr_ne(r1, r3);
	HLRT_OK(hlrt_recipe_destroy(r1));
	HLRT_OK(hlrt_recipe_destroy(r2));
	HLRT_OK(hlrt_recipe_destroy(r3));
	HLRT_OK(hlrt_graph_destroy(g));
	HLRT_OK(hlrt_graph_destroy(g2));
}
END_TEST

/* ---- CPU fallback and the placement log ---------------------------------------------- */

/* Compile with the placement log on; returns what it printed. */
static char *compile_logged(hlrt_graph *g, hlrt_recipe **r)
{
	struct hlrt_compile_options opts = { .no_cache = 1 };
	char path[] = "/tmp/hlrt-log-XXXXXX", *text;
	int fd = mkstemp(path), saved = dup(2);
	long n;
	FILE *f;

	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	dup2(fd, 2);
	hlrt_set_log_placement(1);
	HLRT_OK(hlrt_graph_compile(g, &opts, r));
	hlrt_set_log_placement(0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)n + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	unlink(path);
	return text;
}

static void accuracy_graph(bool i64, hlrt_graph **gout, hlrt_tensor **correct)
{
	struct hlrt_reduce_params ax0 = { .axis = 0 };
	hlrt_tensor *logits, *labels, *am, *eq, *in[2];
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	logits = mk(g, "logits", HLRT_FP32, 50, 10, HLRT_TENSOR_INPUT);
	labels = mk(g, "labels", i64 ? HLRT_INT64 : HLRT_INT32, 50, 0, HLRT_TENSOR_INPUT);
	HLRT_OK(hlrt_node_create(g, i64 ? "argmax_i64" : "argmax_i32", &logits, 1, NULL, 0, NULL,
				 0, "model/ArgMax", &n));
	am = hlrt_node_output(n, 0);
	in[0] = am;
	in[1] = labels;
	HLRT_OK(hlrt_node_create(g, i64 ? "equal_i64" : "equal_i32", in, 2, NULL, 0, NULL, 0,
				 "model/Equal", &n));
	eq = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "reduce_sum_i32", &eq, 1, NULL, 0, &ax0, sizeof(ax0),
				 "model/Sum", &n));
	*correct = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_tensor_set_role(*correct, HLRT_TENSOR_OUTPUT));
	*gout = g;
}

START_TEST(placement_log_and_cpu_fallback)
{
	bool i64 = _i == 1;
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *correct;
	hlrt_recipe *r;
	hlrt_graph *g;
	float logits[500];
	int64_t labels64[50];
	int32_t labels32[50], got;
	int32_t want = 0;
	uint32_t s = 6, i, j;
	char *log;

	accuracy_graph(i64, &g, &correct);
	log = compile_logged(g, &r);
	if (i64) {
		/* argmax writes INT64 on the device; only its INT64 consumer falls back */
		ck_assert_ptr_nonnull(strstr(log, "model/ArgMax: (ArgMax): /device:HPU:0\n"));
		ck_assert_ptr_nonnull(strstr(log, "model/Equal: (Equal): /device:CPU:0\n"));
	} else {
		ck_assert_ptr_nonnull(strstr(log, "model/ArgMax: (ArgMax): /device:HPU:0\n"));
		ck_assert_ptr_nonnull(strstr(log, "model/Equal: (Equal): /device:HPU:0\n"));
	}
	ck_assert_ptr_nonnull(strstr(log, "model/Sum: (Sum): /device:HPU:0\n"));
	free(log);
	for (i = 0; i < 50; i++) {
		uint32_t best = 0;

		for (j = 0; j < 10; j++) {
			logits[i * 10 + j] = rt_randf(&s, -1, 1);
			if (logits[i * 10 + j] > logits[i * 10 + best])
				best = j;
		}
		labels32[i] = (int32_t)(rt_rand(&s) % 3 ? best : (best + 1) % 10);
		labels64[i] = labels32[i];
		want += labels32[i] == (int32_t)best;
	}
	rt_bind_all(r, &bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "logits"), logits, sizeof(logits)));
	if (i64)
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "labels"), labels64,
					sizeof(labels64)));
	else
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "labels"), labels32,
					sizeof(labels32)));
	rt_run(r, &bs);
	rt_download(&got, rt_addr_of(&bs, hlrt_tensor_name(correct)), 4);
	ck_assert_int_eq(got, want);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/*
 * The CPU ops of a profiled launch: on the "CPU ops" lane, on the host's
 * clock, so inside the hlrt_launch call that ran them on the host lane.
 */
START_TEST(profile_cpu_ops_lane)
{
	char path[] = "/tmp/hlrt-cpu-profile-XXXXXX";
	struct rt_binding_set bs = { 0 };
	double launch_t0 = -1, launch_t1 = -1;
	uint32_t cpu_events = 0, declared = 0;
	hlrt_tensor *correct;
	json_error_t jerr;
	json_t *root, *evs, *e;
	hlrt_recipe *r;
	hlrt_graph *g;
	float logits[500] = { 0 };
	int64_t labels[50] = { 0 };
	size_t i;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	accuracy_graph(true, &g, &correct);
	HLRT_OK(hlrt_profiler_start(rt_dev, path));
	HLRT_OK(hlrt_graph_compile(g, NULL, &r));
	rt_bind_all(r, &bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "logits"), logits, sizeof(logits)));
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "labels"), labels, sizeof(labels)));
	rt_run(r, &bs);
	HLRT_OK(hlrt_profiler_stop(rt_dev));
	root = json_load_file(path, 0, &jerr);
	ck_assert_msg(root != NULL, "%s:%d: %s", path, jerr.line, jerr.text);
	evs = json_object_get(root, "traceEvents");
	json_array_foreach(evs, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		const char *name = json_string_value(json_object_get(e, "name"));
		json_int_t pid = json_integer_value(json_object_get(e, "pid"));
		double ts = json_number_value(json_object_get(e, "ts"));
		double dur = json_number_value(json_object_get(e, "dur"));

		if (!strcmp(ph, "M") && pid == 1 &&
		    !strcmp(json_string_value(json_object_get(json_object_get(e, "args"), "name")),
			    "CPU ops"))
			declared++;
		if (strcmp(ph, "X"))
			continue;
		if (pid == 0 && !strcmp(name, "hlrt_launch")) {
			launch_t0 = ts;
			launch_t1 = ts + dur;
		}
	}
	ck_assert(launch_t1 >= launch_t0 && launch_t0 >= 0);
	json_array_foreach(evs, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		const char *name = json_string_value(json_object_get(e, "name"));
		double ts = json_number_value(json_object_get(e, "ts"));
		double dur = json_number_value(json_object_get(e, "dur"));

		if (strcmp(ph, "X") || strcmp(json_string_value(json_object_get(e, "cat")), "CPU"))
			continue;
		ck_assert_int_eq(json_integer_value(json_object_get(e, "pid")), 1);
		/* ArgMax runs on the device (INT64 out); only Equal reads INT64. */
		ck_assert_str_eq(name, "model/Equal");
		/* 1 ns of slack for the trace's 3 decimals */
		ck_assert_msg(ts >= launch_t0 - 0.001 && ts + dur <= launch_t1 + 0.001,
			      "%s at %.3f..%.3f outside hlrt_launch %.3f..%.3f", name, ts, ts + dur,
			      launch_t0, launch_t1);
		cpu_events++;
	}
	ck_assert_uint_eq(cpu_events, 1);
	ck_assert_uint_eq(declared, 1);
	json_decref(root);
	unlink(path);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/*
 * The seed's fallback layer after a Dense layer:
 *   tf.where(tf.expand_dims(tf.equal(tf.math.argmax(x, axis=-1), 2), -1), x, tf.math.square(x))
 * with INT64 (the TF default: only Equal falls back to the CPU, reading an
 * INT64 constant) or INT32 indices (all on the HPU).
 */
START_TEST(seed_fallback_layer)
{
	bool i64 = _i == 0;
	enum { B = 37, C = 5 };
	const int64_t two64 = 2;
	const int32_t two32 = 2;
	struct hlrt_tensor_desc kd = { .name = "two", .dtype = i64 ? HLRT_INT64 : HLRT_INT32,
				       .ndims = 1, .dims = { 1 }, .role = HLRT_TENSOR_CONSTANT,
				       .data = i64 ? (const void *)&two64 : (const void *)&two32 };
	struct hlrt_reshape_params ex = { .ndims = 2, .dims = { B, 1 } };
	struct hlrt_recipe_stats rs;
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *x, *t, *in[3], *y;
	float xv[B * C], got[B * C];
	uint32_t s = 91, i, j;
	hlrt_recipe *r;
	hlrt_graph *g;
	hlrt_node *n;
	char *log;

	HLRT_OK(hlrt_graph_create(&g));
	x = mk(g, "x", HLRT_FP32, B, C, HLRT_TENSOR_INPUT);
	HLRT_OK(hlrt_node_create(g, i64 ? "argmax_i64" : "argmax_i32", &x, 1, NULL, 0, NULL, 0,
				 "lambda/ArgMax", &n));
	in[0] = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_tensor_create(g, &kd, &in[1]));
	HLRT_OK(hlrt_node_create(g, i64 ? "equal_i64" : "equal_i32", in, 2, NULL, 0, NULL, 0,
				 "lambda/Equal", &n));
	t = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "reshape", &t, 1, NULL, 0, &ex, sizeof(ex),
				 "lambda/ExpandDims", &n));
	in[0] = hlrt_node_output(n, 0);
	in[1] = x;
	HLRT_OK(hlrt_node_create(g, "square_f32", &x, 1, NULL, 0, NULL, 0, "lambda/Square", &n));
	in[2] = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "where_f32", in, 3, NULL, 0, NULL, 0, "lambda/SelectV2", &n));
	y = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_tensor_set_role(y, HLRT_TENSOR_OUTPUT));
	log = compile_logged(g, &r);
	ck_assert_ptr_nonnull(strstr(log, "lambda/ArgMax: (ArgMax): /device:HPU:0\n"));
	ck_assert_ptr_nonnull(strstr(log, i64 ? "lambda/Equal: (Equal): /device:CPU:0\n" :
					       "lambda/Equal: (Equal): /device:HPU:0\n"));
	ck_assert_ptr_nonnull(strstr(log, "lambda/Square: (Square): /device:HPU:0\n"));
	ck_assert_ptr_nonnull(strstr(log, "lambda/SelectV2: (SelectV2): /device:HPU:0\n"));
	free(log);
	HLRT_OK(hlrt_recipe_get_stats(r, &rs));
	ck_assert_uint_eq(rs.cpu_nodes, i64 ? 1 : 0);
	for (i = 0; i < B * C; i++)
		xv[i] = rt_randf(&s, -2, 2);
	rt_bind_all(r, &bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "x"), xv, sizeof(xv)));
	rt_run(r, &bs);
	rt_download(got, rt_addr_of(&bs, hlrt_tensor_name(y)), sizeof(got));
	for (i = 0; i < B; i++) {
		const float *row = xv + i * C;
		uint32_t best = 0;

		for (j = 1; j < C; j++)
			if (row[j] > row[best])
				best = j;
		for (j = 0; j < C; j++) {
			float want = best == 2 ? row[j] : row[j] * row[j];

			ck_assert_msg(memcmp(&got[i * C + j], &want, 4) == 0,
				      "row %u col %u: %g, want %g", i, j, got[i * C + j], want);
		}
	}
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* ---- autodiff against finite differences ---------------------------------------------- */

enum fd_case { FD_GEMM, FD_GEMM_TA, FD_GEMM_TB, FD_BIAS, FD_ADD, FD_SUB, FD_MUL, FD_SCALE,
	       FD_RELU, FD_RESHAPE, FD_CONV, FD_POOL, FD_RSUM, FD_RMEAN, FD_TRANSPOSE,
	       FD_BCAST_ADD, FD_BCAST_SUB, FD_BCAST_MUL, FD_BCAST_MID, FD_SQUARE, FD_WHERE,
	       FD_TANH, FD_SIGMOID, FD_BATCHNORM, FD_DROPOUT, FD_POOL_OVERLAP, FD_PAD, FD_SOFTMAX, FD_CASES };

#define FD_B	4
#define FD_C	5
#define FD_K	6

/* loss = softmax_cross_entropy(f(p0, p1), labels), f by case. */
static hlrt_graph *fd_graph(enum fd_case c, hlrt_tensor **p, uint32_t *np, hlrt_tensor **loss)
{
	struct hlrt_gemm_params ta = { .transpose_a = 1 }, tb = { .transpose_b = 1 };
	struct hlrt_scale_params sc = { .alpha = -1.7f };
	struct hlrt_reshape_params flat = { .ndims = 1, .dims = { FD_B * FD_C } };
	struct hlrt_reshape_params back = { .ndims = 2, .dims = { FD_B, FD_C } };
	hlrt_tensor *labels, *y, *in[2];
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	labels = mk(g, "labels", HLRT_INT32, FD_B, 0, HLRT_TENSOR_INPUT);
	*np = 2;
	switch (c) {
	case FD_GEMM:
	case FD_GEMM_TA:
	case FD_GEMM_TB:
		p[0] = c == FD_GEMM_TA ? mk(g, "p0", HLRT_FP32, FD_K, FD_B, HLRT_TENSOR_PARAMETER) :
					 mk(g, "p0", HLRT_FP32, FD_B, FD_K, HLRT_TENSOR_PARAMETER);
		p[1] = c == FD_GEMM_TB ? mk(g, "p1", HLRT_FP32, FD_C, FD_K, HLRT_TENSOR_PARAMETER) :
					 mk(g, "p1", HLRT_FP32, FD_K, FD_C, HLRT_TENSOR_PARAMETER);
		y = op(g, "gemm_f32", p[0], p[1], c == FD_GEMM_TA ? &ta : c == FD_GEMM_TB ? &tb : NULL,
		       c == FD_GEMM ? 0 : sizeof(ta));
		break;
	case FD_BIAS:
		p[0] = mk(g, "p0", HLRT_FP32, FD_B, FD_C, HLRT_TENSOR_PARAMETER);
		p[1] = mk(g, "p1", HLRT_FP32, FD_C, 0, HLRT_TENSOR_PARAMETER);
		y = op(g, "bias_add_f32", p[0], p[1], NULL, 0);
		break;
	case FD_ADD:
	case FD_SUB:
	case FD_MUL:
		p[0] = mk(g, "p0", HLRT_FP32, FD_B, FD_C, HLRT_TENSOR_PARAMETER);
		p[1] = mk(g, "p1", HLRT_FP32, FD_B, FD_C, HLRT_TENSOR_PARAMETER);
		y = op(g, c == FD_ADD ? "add_f32" : c == FD_SUB ? "sub_f32" : "mul_f32", p[0], p[1],
		       NULL, 0);
		break;
	case FD_CONV:
	case FD_POOL: {
		/* x[4,4,3,2] -> conv 3x3 pad 1 (F=5) or pool 2x2 -> [B, C] logits */
		struct hlrt_tensor_desc xd = { .name = "p0", .dtype = HLRT_FP32, .ndims = 4,
					       .dims = { FD_B, 4, 3, 2 },
					       .role = HLRT_TENSOR_PARAMETER };
		struct hlrt_tensor_desc wd = { .name = "p1", .dtype = HLRT_FP32, .ndims = 4,
					       .dims = { 3, 3, 2, FD_C },
					       .role = HLRT_TENSOR_PARAMETER };
		struct hlrt_conv_params cp = { .kernel_h = 3, .kernel_w = 3, .pad_h = 1,
					       .pad_w = 1 };
		struct hlrt_pool_params pp = { .kernel_h = 2, .kernel_w = 2 };
		struct hlrt_reshape_params fl = { .ndims = 2 };
		hlrt_tensor *cin[2];

		if (c == FD_POOL) {
			xd.dims[1] = 2;	/* [B,2,10,1] pools to [B,1,5,1]: C logits */
			xd.dims[2] = 10;
			xd.dims[3] = 1;
		}
		HLRT_OK(hlrt_tensor_create(g, &xd, &p[0]));
		if (c == FD_CONV) {
			HLRT_OK(hlrt_tensor_create(g, &wd, &p[1]));
			cin[0] = p[0];
			cin[1] = p[1];
			HLRT_OK(hlrt_node_create(g, "conv2d_fwd_f32", cin, 2, NULL, 0, &cp, sizeof(cp),
						 "conv", &n));
			y = hlrt_node_output(n, 0);	/* [B,4,3,5] */
			fl.dims[0] = FD_B;
			fl.dims[1] = 4 * 3 * FD_C;
			y = op(g, "reshape", y, NULL, &fl, sizeof(fl));
		} else {
			*np = 1;
			y = op(g, "maxpool2d_fwd_f32", p[0], NULL, &pp, sizeof(pp));
			fl.dims[0] = FD_B;
			fl.dims[1] = FD_C;
			y = op(g, "reshape", y, NULL, &fl, sizeof(fl));
		}
		break;
	}
	case FD_RSUM:
	case FD_RMEAN: {
		/* [3, B, C] summed over axis 0, or [B, C, 3] averaged over the last */
		struct hlrt_tensor_desc xd = { .name = "p0", .dtype = HLRT_FP32, .ndims = 3,
					       .role = HLRT_TENSOR_PARAMETER };
		struct hlrt_reduce_params rp = { .axis = c == FD_RSUM ? 0 : -1 };

		*np = 1;
		xd.dims[0] = c == FD_RSUM ? 3 : FD_B;
		xd.dims[1] = c == FD_RSUM ? FD_B : FD_C;
		xd.dims[2] = c == FD_RSUM ? FD_C : 3;
		HLRT_OK(hlrt_tensor_create(g, &xd, &p[0]));
		y = op(g, c == FD_RSUM ? "reduce_sum_f32" : "reduce_mean_f32", p[0], NULL, &rp,
		       sizeof(rp));
		break;
	}
	case FD_TRANSPOSE: {
		/* [C, 1, B] permuted {2, 0, 1} to [B, C, 1]: the gradient uses {1, 2, 0} */
		struct hlrt_tensor_desc xd = { .name = "p0", .dtype = HLRT_FP32, .ndims = 3,
					       .dims = { FD_C, 1, FD_B },
					       .role = HLRT_TENSOR_PARAMETER };
		struct hlrt_transpose_params tp = { { 2, 0, 1 } };

		*np = 1;
		HLRT_OK(hlrt_tensor_create(g, &xd, &p[0]));
		y = op(g, "transpose_f32", p[0], NULL, &tp, sizeof(tp));
		y = op(g, "reshape", y, NULL, &back, sizeof(back));
		break;
	}
	case FD_BCAST_ADD:	/* [B,1] + [C] */
		p[0] = mk(g, "p0", HLRT_FP32, FD_B, 1, HLRT_TENSOR_PARAMETER);
		p[1] = mk(g, "p1", HLRT_FP32, FD_C, 0, HLRT_TENSOR_PARAMETER);
		y = op(g, "add_f32", p[0], p[1], NULL, 0);
		break;
	case FD_BCAST_SUB:	/* [C] - [B,1] */
		p[0] = mk(g, "p0", HLRT_FP32, FD_C, 0, HLRT_TENSOR_PARAMETER);
		p[1] = mk(g, "p1", HLRT_FP32, FD_B, 1, HLRT_TENSOR_PARAMETER);
		y = op(g, "sub_f32", p[0], p[1], NULL, 0);
		break;
	case FD_BCAST_MUL:	/* [B,C] * [B,1] */
		p[0] = mk(g, "p0", HLRT_FP32, FD_B, FD_C, HLRT_TENSOR_PARAMETER);
		p[1] = mk(g, "p1", HLRT_FP32, FD_B, 1, HLRT_TENSOR_PARAMETER);
		y = op(g, "mul_f32", p[0], p[1], NULL, 0);
		break;
	case FD_BCAST_MID: {
		/* [2,1,C] * [2,B,1] -> [2,B,C], summed over axis 0: broadcast in the middle */
		struct hlrt_tensor_desc ad = { .name = "p0", .dtype = HLRT_FP32, .ndims = 3,
					       .dims = { 2, 1, FD_C },
					       .role = HLRT_TENSOR_PARAMETER };
		struct hlrt_tensor_desc bd = { .name = "p1", .dtype = HLRT_FP32, .ndims = 3,
					       .dims = { 2, FD_B, 1 },
					       .role = HLRT_TENSOR_PARAMETER };
		struct hlrt_reduce_params rp = { .axis = 0 };

		HLRT_OK(hlrt_tensor_create(g, &ad, &p[0]));
		HLRT_OK(hlrt_tensor_create(g, &bd, &p[1]));
		y = op(g, "mul_f32", p[0], p[1], NULL, 0);
		y = op(g, "reduce_sum_f32", y, NULL, &rp, sizeof(rp));
		break;
	}
	case FD_WHERE: {
		/* where(cond[B,1], [B,C], square([C])) */
		static const int32_t cv[FD_B] = { 1, 0, 7, 0 };
		struct hlrt_tensor_desc cd = { .name = "cond", .dtype = HLRT_INT32, .ndims = 2,
					       .dims = { FD_B, 1 }, .role = HLRT_TENSOR_CONSTANT,
					       .data = cv };
		hlrt_tensor *win[3];

		p[0] = mk(g, "p0", HLRT_FP32, FD_B, FD_C, HLRT_TENSOR_PARAMETER);
		p[1] = mk(g, "p1", HLRT_FP32, FD_C, 0, HLRT_TENSOR_PARAMETER);
		HLRT_OK(hlrt_tensor_create(g, &cd, &win[0]));
		win[1] = p[0];
		win[2] = op(g, "square_f32", p[1], NULL, NULL, 0);
		HLRT_OK(hlrt_node_create(g, "where_f32", win, 3, NULL, 0, NULL, 0, "where", &n));
		y = hlrt_node_output(n, 0);
		break;
	}
	case FD_POOL_OVERLAP:
	case FD_PAD: {
		/* [B,3,11,1] pooled 3x3 stride 2 (windows overlap), or [B,3,3,1] cropped by a
		 * row at the top and bottom and padded by a column left and right: [B,1,5,1] */
		struct hlrt_tensor_desc xd = { .name = "p0", .dtype = HLRT_FP32, .ndims = 4,
					       .dims = { FD_B, 3, 11, 1 },
					       .role = HLRT_TENSOR_PARAMETER };
		struct hlrt_pool_params pp = { .kernel_h = 3, .kernel_w = 3, .stride_h = 2,
					       .stride_w = 2 };
		struct hlrt_pad2d_params pd = { .top = -1, .bottom = -1, .left = 1, .right = 1 };
		struct hlrt_reshape_params fl = { .ndims = 2, .dims = { FD_B, FD_C } };

		*np = 1;
		if (c == FD_PAD)
			xd.dims[2] = 3;
		HLRT_OK(hlrt_tensor_create(g, &xd, &p[0]));
		if (c == FD_PAD)
			y = op(g, "pad2d_f32", p[0], NULL, &pd, sizeof(pd));
		else
			y = op(g, "maxpool2d_fwd_f32", p[0], NULL, &pp, sizeof(pp));
		y = op(g, "reshape", y, NULL, &fl, sizeof(fl));
		break;
	}
	case FD_BATCHNORM: {
		/* training mode: the gradient through the batch statistics, for x and gamma */
		static const float zeros[FD_C];
		struct hlrt_tensor_desc bd = { .name = "beta", .dtype = HLRT_FP32, .ndims = 1,
					       .dims = { FD_C }, .role = HLRT_TENSOR_CONSTANT,
					       .data = zeros };
		struct hlrt_batchnorm_params bp = { .momentum = 0.9f, .epsilon = 1e-3f,
						    .training = 1 };
		hlrt_tensor *bin[5], *bout[5] = { NULL };

		p[0] = mk(g, "p0", HLRT_FP32, FD_B, FD_C, HLRT_TENSOR_PARAMETER);
		p[1] = mk(g, "p1", HLRT_FP32, FD_C, 0, HLRT_TENSOR_PARAMETER);
		bin[0] = p[0];
		bin[1] = p[1];
		HLRT_OK(hlrt_tensor_create(g, &bd, &bin[2]));
		bin[3] = bout[3] = mk(g, "moving_mean", HLRT_FP32, FD_C, 0, HLRT_TENSOR_INPUT);
		bin[4] = bout[4] = mk(g, "moving_var", HLRT_FP32, FD_C, 0, HLRT_TENSOR_INPUT);
		HLRT_OK(hlrt_node_create(g, "batchnorm_fwd_f32", bin, 5, bout, 5, &bp, sizeof(bp),
					 "bn", &n));
		y = hlrt_node_output(n, 0);
		break;
	}
	case FD_DROPOUT: {
		static const int32_t step = 3;
		struct hlrt_tensor_desc sd = { .name = "step", .dtype = HLRT_INT32, .ndims = 1,
					       .dims = { 1 }, .role = HLRT_TENSOR_CONSTANT,
					       .data = &step };
		struct hlrt_dropout_params dp = { .rate = 0.5f, .seed = 17, .training = 1 };
		hlrt_tensor *din[2];

		*np = 1;
		p[0] = mk(g, "p0", HLRT_FP32, FD_B, FD_C, HLRT_TENSOR_PARAMETER);
		din[0] = p[0];
		HLRT_OK(hlrt_tensor_create(g, &sd, &din[1]));
		HLRT_OK(hlrt_node_create(g, "dropout_f32", din, 2, NULL, 0, &dp, sizeof(dp), "drop",
					 &n));
		y = hlrt_node_output(n, 0);
		break;
	}
	default:
		*np = 1;
		p[0] = mk(g, "p0", HLRT_FP32, FD_B, FD_C, HLRT_TENSOR_PARAMETER);
		if (c == FD_SQUARE)
			y = op(g, "square_f32", p[0], NULL, NULL, 0);
		else if (c == FD_TANH)
			y = op(g, "tanh_fwd_f32", p[0], NULL, NULL, 0);
		else if (c == FD_SIGMOID)
			y = op(g, "sigmoid_fwd_f32", p[0], NULL, NULL, 0);
		else if (c == FD_SOFTMAX)	/* scaled: its gradient is not lost in the loss's */
			y = op(g, "scale_f32", op(g, "softmax_fwd_f32", p[0], NULL, NULL, 0), NULL,
			       &sc, sizeof(sc));
		else if (c == FD_SCALE)
			y = op(g, "scale_f32", p[0], NULL, &sc, sizeof(sc));
		else if (c == FD_RELU)
			y = op(g, "relu_fwd_f32", p[0], NULL, NULL, 0);
		else
			y = op(g, "reshape", op(g, "reshape", p[0], NULL, &flat, sizeof(flat)), NULL,
			       &back, sizeof(back));
		break;
	}
	*loss = mk(g, "loss", HLRT_FP32, 1, 0, HLRT_TENSOR_OUTPUT);
	in[0] = y;
	in[1] = labels;
	{
		hlrt_tensor *outs[2] = { *loss, NULL };

		HLRT_OK(hlrt_node_create(g, "softmax_cross_entropy_fwd_f32", in, 2, outs, 2, NULL,
					 0, "loss", &n));
	}
	return g;
}

START_TEST(gradients_match_finite_differences)
{
	enum fd_case c = (enum fd_case)_i;
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *p[2], *grads[2], *loss;
	uint32_t np, s = 300 + (uint32_t)_i, k, i;
	int32_t labels[FD_B] = { 1, 4, 0, 2 };
	float *pv[2], *gv[2];
	uint64_t bytes[2];
	hlrt_recipe *r;
	hlrt_graph *g = fd_graph(c, p, &np, &loss);

	HLRT_OK(hlrt_graph_gradients(g, loss, p, np, grads));
	for (k = 0; k < np; k++)
		HLRT_OK(hlrt_tensor_set_role(grads[k], HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "labels"), labels, sizeof(labels)));
	for (k = 0; k < np; k++) {
		bytes[k] = hlrt_tensor_bytes(p[k]);
		pv[k] = malloc(bytes[k]);
		gv[k] = malloc(bytes[k]);
		for (i = 0; i < bytes[k] / 4; i++) {
			float v = rt_randf(&s, -1.5f, 1.5f);

			/* relu: keep away from the kink */
			pv[k][i] = c == FD_RELU && fabsf(v) < 0.2f ? v + (v < 0 ? -0.3f : 0.3f) : v;
			/* pooling: a sample's values 0.09 apart, no tie within the step */
			if (c == FD_POOL_OVERLAP)
				pv[k][i] = (float)((i * 7) % 33) * 0.09f - 1.5f + 0.01f * v;
		}
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, hlrt_tensor_name(p[k])), pv[k],
					bytes[k]));
	}
	rt_run(r, &bs);
	for (k = 0; k < np; k++)
		rt_download(gv[k], rt_addr_of(&bs, hlrt_tensor_name(grads[k])), bytes[k]);
	for (k = 0; k < np; k++) {
		for (i = 0; i < bytes[k] / 4; i++) {
			const float h = 1e-2f;
			float save = pv[k][i], lp, lm;
			double fd;
			uint64_t addr = rt_addr_of(&bs, hlrt_tensor_name(p[k])) + 4ull * i;

			pv[k][i] = save + h;
			HLRT_OK(hlrt_memcpy_h2d(rt_dev, addr, &pv[k][i], 4));
			rt_run(r, &bs);
			rt_download(&lp, rt_addr_of(&bs, "loss"), 4);
			pv[k][i] = save - h;
			HLRT_OK(hlrt_memcpy_h2d(rt_dev, addr, &pv[k][i], 4));
			rt_run(r, &bs);
			rt_download(&lm, rt_addr_of(&bs, "loss"), 4);
			pv[k][i] = save;
			HLRT_OK(hlrt_memcpy_h2d(rt_dev, addr, &save, 4));
			fd = ((double)lp - lm) / (2.0 * h);
			ck_assert_msg(fabs(fd - gv[k][i]) <= 2e-3 + 2e-2 * fabs(fd),
				      "case %d, %s[%u]: gradient %g, finite difference %g", _i,
				      hlrt_tensor_name(p[k]), i, gv[k][i], fd);
		}
	}
	for (k = 0; k < np; k++) {
		free(pv[k]);
		free(gv[k]);
	}
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* ---- the TPC split ---------------------------------------------------------------- */

/* The TPC queues a launch of r's first segment runs on (its CBs with packets). */
static uint32_t tpc_queues_used(const hlrt_recipe *r)
{
	const struct loaded_recipe *lr = r->loaded;
	uint32_t i, n = 0;

	ck_assert_ptr_nonnull(lr);
	ck_assert_uint_ge(lr->n_segs, 1);
	for (i = lr->segs[0].cb_first[0]; i < lr->segs[0].cb_first[0] + GAUDISIM_NUM_TPC + 2; i++)
		if (lr->cbs[i].n && lr->cbs[i].queue >= GAUDISIM_QUEUE_ID_TPC_0_0)
			n++;
	return n;
}

/*
 * An add of a rows x cols tensor and a same-shaped one (a member per 4096
 * elements of the flat tensor) or a bias of cols (a member per row, as
 * the seed model's BiasAdd). Small nodes run on fewer TPCs (at least
 * HLRT_TPC_MIN_MEMBERS members each, no more parts than keep each within
 * HLRT_TPC_PART_WORK bundles), big ones on all 8, and every part runs:
 * c = a + b everywhere.
 */
START_TEST(tpc_split_follows_the_node_size)
{
	static const struct { uint64_t rows, cols; bool bias; uint32_t tpcs; } cases[] = {
		{ 4, 10, false, 1 },		/* 1 member */
		{ 128, 10, true, 1 },		/* the seed model's BiasAdd: 128 members */
						/* x 9 bundles + 2 x 128 tiles: one part */
		{ 512, 10, true, 2 },		/* 512 x 9 + 2 x 512: two parts */
		{ 1024, 10, true, 3 },		/* 1024 x 9 + 2 x 1024: three parts */
		{ 64, 4096, false, 2 },		/* 64 members */
		{ 100, 4096, false, 3 },
		{ 256, 4096, false, 8 },	/* 8 x HLRT_TPC_MIN_MEMBERS */
		{ 4096, 64, true, 8 },
		{ 2, 300 * 4096, false, 8 },	/* 600 members */
	};
	struct hlrt_compile_options opts = { .no_cache = 1 };
	uint32_t c, seed = 7;

	ck_assert_uint_eq(HLRT_TPC_MIN_MEMBERS, 32);
	ck_assert_uint_eq(HLRT_TPC_PART_WORK, 4096);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t e = cases[c].rows * cases[c].cols, i;
		uint64_t eb = cases[c].bias ? cases[c].cols : e;
		struct gaudisim_tpc_part parts[GAUDISIM_NUM_TPC];
		struct rt_binding_set bs = { 0 };
		float *a = malloc(4 * e), *b = malloc(4 * eb), *y = malloc(4 * e);
		hlrt_graph *g;
		hlrt_recipe *r;
		hlrt_tensor *in[2], *tc;
		hlrt_node *n;

		ck_assert(a && b && y);
		for (i = 0; i < e; i++)
			a[i] = rt_randf(&seed, -2.0f, 2.0f);
		for (i = 0; i < eb; i++)
			b[i] = rt_randf(&seed, -2.0f, 2.0f);
		HLRT_OK(hlrt_graph_create(&g));
		in[0] = mk(g, "a", HLRT_FP32, cases[c].rows, cases[c].cols, HLRT_TENSOR_INPUT);
		in[1] = cases[c].bias ? mk(g, "b", HLRT_FP32, cases[c].cols, 0, HLRT_TENSOR_INPUT) :
			mk(g, "b", HLRT_FP32, cases[c].rows, cases[c].cols, HLRT_TENSOR_INPUT);
		tc = mk(g, "c", HLRT_FP32, cases[c].rows, cases[c].cols, HLRT_TENSOR_OUTPUT);
		HLRT_OK(hlrt_node_create(g, cases[c].bias ? "bias_add_f32" : "add_f32", in, 2, &tc,
					 1, NULL, 0, NULL, &n));
		HLRT_OK(hlrt_graph_compile(g, &opts, &r));
		ck_assert_uint_eq(r->num_tpc, 8);
		ck_assert_uint_eq(r->n_works, 1);
		ck_assert_uint_eq(r->works[0].engine, ENG_TPC);
		ck_assert_msg(hlrt_work_tpc_split(r, &r->works[0], parts) == cases[c].tpcs,
			      "case %u: split over %u TPCs, want %u", c,
			      hlrt_work_tpc_split(r, &r->works[0], parts), cases[c].tpcs);
		rt_bind_all(r, &bs);
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "a"), a, 4 * e));
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "b"), b, 4 * eb));
		rt_run(r, &bs);
		ck_assert_msg(tpc_queues_used(r) == cases[c].tpcs, "case %u: %u TPC queues, want %u",
			      c, tpc_queues_used(r), cases[c].tpcs);
		rt_download(y, rt_addr_of(&bs, "c"), 4 * e);
		for (i = 0; i < e; i++)
			ck_assert_msg(y[i] == a[i] + b[i % eb], "case %u: c[%lu] = %g, want %g", c,
				      (unsigned long)i, y[i], a[i] + b[i % eb]);
		HLRT_OK(hlrt_recipe_destroy(r));
		HLRT_OK(hlrt_graph_destroy(g));
		free(a);
		free(b);
		free(y);
	}
}
END_TEST

/*
 * The seed model's batch gather: 128 rows of 784 looked up in a bigger
 * source through an index. Its work is its 128 rows (some 6000 bundles:
 * two parts within HLRT_TPC_PART_WORK), not the source's or the
 * index's size, which would put it on all 8 TPCs.
 */
START_TEST(tpc_split_of_a_gather_follows_its_rows)
{
	struct hlrt_reshape_params rows = { .ndims = 2, .dims = { 128, 784 } };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	struct gaudisim_tpc_part parts[GAUDISIM_NUM_TPC];
	hlrt_tensor *in[3], *x;
	hlrt_graph *g;
	hlrt_recipe *r;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	in[0] = mk(g, "images", HLRT_FP32, 8192, 784, HLRT_TENSOR_INPUT);
	in[1] = mk(g, "order", HLRT_INT32, 8192, 0, HLRT_TENSOR_INPUT);
	in[2] = mk(g, "offset", HLRT_INT32, 1, 0, HLRT_TENSOR_INPUT);
	x = mk(g, "x", HLRT_FP32, 128, 784, HLRT_TENSOR_OUTPUT);
	HLRT_OK(hlrt_node_create(g, "gather_rows_f32", in, 3, &x, 1, &rows, sizeof(rows), NULL,
				 &n));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	ck_assert_uint_eq(r->n_works, 1);
	ck_assert_uint_eq(r->works[0].engine, ENG_TPC);
	ck_assert_uint_eq(hlrt_work_tpc_split(r, &r->works[0], parts), 2);
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

Suite *compiler_suite(void)
{
	Suite *s = suite_create("compiler");
	TCase *tc = tcase_create("compiler");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, random_graphs_plan_and_run, 0, 12);
	tcase_add_test(tc, patching_writes_exactly_the_patch_points);
	tcase_add_test(tc, recipe_round_trip);
	tcase_add_test(tc, recipe_corruptions_refused_or_valid);
	tcase_add_test(tc, passes_fold_fuse_and_drop);
	tcase_add_loop_test(tc, sce_fwd_bwd_fused_matches_the_pair, 0, 4);
	tcase_add_test(tc, cache_returns_the_same_recipe);
	tcase_add_loop_test(tc, placement_log_and_cpu_fallback, 0, 2);
	tcase_add_test(tc, profile_cpu_ops_lane);
	tcase_add_loop_test(tc, seed_fallback_layer, 0, 2);
	tcase_add_loop_test(tc, gradients_match_finite_differences, 0, FD_CASES);
	tcase_add_test(tc, tpc_split_follows_the_node_size);
	tcase_add_test(tc, tpc_split_of_a_gather_follows_its_rows);
	suite_add_tcase(s, tc);
	return s;
}
