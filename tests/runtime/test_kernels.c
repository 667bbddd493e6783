// SPDX-License-Identifier: MIT
/*
 * Every op of the kernel library against a plain-C reference, on random
 * shapes that leave partial tiles (columns not a multiple of 64, rows
 * longer than one member's 4096 elements), run through the compiler and
 * the device core: elementwise ops, casts and optimizers exactly; the
 * reductions in the kernels' own summation order, exactly; softmax
 * cross-entropy within a few ulps; GEMMs within the MME's error bound.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define ITERS	3

static struct rt_arg arg2(hlrt_dtype dt, uint64_t d0, uint64_t d1)
{
	struct rt_arg a = { .dtype = dt, .ndims = 2, .dims = { d0, d1 } };

	a.data = malloc(hlrt_dtype_size(dt) * d0 * d1);
	ck_assert_ptr_nonnull(a.data);
	return a;
}

static struct rt_arg arg1(hlrt_dtype dt, uint64_t d0)
{
	struct rt_arg a = arg2(dt, d0, 1);

	a.ndims = 1;
	return a;
}

static void fill_f32(struct rt_arg *a, uint32_t *s, float lo, float hi)
{
	uint64_t i, n = rt_arg_elems(a);

	for (i = 0; i < n; i++)
		((float *)a->data)[i] = rt_randf(s, lo, hi);
}

static void fill_i32(struct rt_arg *a, uint32_t *s, int32_t lo, int32_t hi)
{
	uint64_t i, n = rt_arg_elems(a);

	for (i = 0; i < n; i++)
		((int32_t *)a->data)[i] = (int32_t)(lo + (int64_t)(rt_rand(s) %
						(uint64_t)((int64_t)hi - lo + 1)));
}

/* A random shape with partial tiles: some rows, a column count off the tile size. */
static void shape(uint32_t *s, uint32_t it, uint64_t *rows, uint64_t *cols)
{
	static const uint64_t wide[ITERS] = { 37, 130, 4097 + 64 * 3 + 5 };

	*rows = 1 + rt_rand(s) % 9;
	*cols = wide[it % ITERS] + rt_rand(s) % 7;
}

static void expect_bits(const void *got, const void *want, uint64_t n, size_t es,
			const char *what)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (memcmp((const uint8_t *)got + i * es, (const uint8_t *)want + i * es, es))
			ck_abort_msg("%s: element %llu differs", what, (unsigned long long)i);
}

static void free_args(struct rt_arg *a, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		free(a[i].data);
}

/* ---- elementwise ------------------------------------------------------------ */

START_TEST(binary_f32_ops)
{
	static const char *const guids[] = { "add_f32", "sub_f32", "mul_f32" };
	uint32_t s = 11 + (uint32_t)_i, g, it;

	for (g = 0; g < 3; g++) {
		for (it = 0; it < ITERS; it++) {
			uint64_t rows, cols, i;
			struct rt_arg in[2], out[1];
			float *ref;

			shape(&s, it, &rows, &cols);
			in[0] = arg2(HLRT_FP32, rows, cols);
			in[1] = arg2(HLRT_FP32, rows, cols);
			fill_f32(&in[0], &s, -3, 3);
			fill_f32(&in[1], &s, -3, 3);
			rt_run_op(guids[g], in, 2, out, 1, NULL, 0, 0);
			ref = malloc(sizeof(float) * rows * cols);
			for (i = 0; i < rows * cols; i++) {
				float a = ((float *)in[0].data)[i], b = ((float *)in[1].data)[i];

				ref[i] = g == 0 ? a + b : g == 1 ? a - b : a * b;
			}
			expect_bits(out[0].data, ref, rows * cols, 4, guids[g]);
			free(ref);
			free_args(in, 2);
			free_args(out, 1);
		}
	}
}
END_TEST

START_TEST(add_i32_wraps)
{
	uint32_t s = 5;
	uint64_t i, n = 1000;
	struct rt_arg in[2] = { arg1(HLRT_INT32, n), arg1(HLRT_INT32, n) }, out[1];

	fill_i32(&in[0], &s, INT32_MIN / 2 - 10, INT32_MAX);
	fill_i32(&in[1], &s, 0, INT32_MAX);
	rt_run_op("add_i32", in, 2, out, 1, NULL, 0, 0);
	for (i = 0; i < n; i++) {
		uint32_t want = (uint32_t)((int32_t *)in[0].data)[i] +
				(uint32_t)((int32_t *)in[1].data)[i];

		ck_assert_uint_eq((uint32_t)((int32_t *)out[0].data)[i], want);
	}
	free_args(in, 2);
	free_args(out, 1);
}
END_TEST

START_TEST(bias_add_relu_scale)
{
	uint32_t s = 77, it;

	for (it = 0; it < ITERS; it++) {
		struct hlrt_scale_params sp = { .alpha = -0.375f };
		uint64_t rows, cols, i;
		struct rt_arg in[2], out[1], x[1], relu[1], dy[2], bwd[1], sc[1];
		float *ref;

		shape(&s, it, &rows, &cols);
		in[0] = arg2(HLRT_FP32, rows, cols);
		in[1] = arg1(HLRT_FP32, cols);
		fill_f32(&in[0], &s, -2, 2);
		fill_f32(&in[1], &s, -1, 1);
		rt_run_op("bias_add_f32", in, 2, out, 1, NULL, 0, 0);
		ref = malloc(sizeof(float) * rows * cols);
		for (i = 0; i < rows * cols; i++)
			ref[i] = ((float *)in[0].data)[i] + ((float *)in[1].data)[i % cols];
		expect_bits(out[0].data, ref, rows * cols, 4, "bias_add_f32");

		x[0] = in[0];
		rt_run_op("relu_fwd_f32", x, 1, relu, 1, NULL, 0, 0);
		for (i = 0; i < rows * cols; i++)
			ref[i] = ((float *)in[0].data)[i] > 0 ? ((float *)in[0].data)[i] : 0.0f;
		expect_bits(relu[0].data, ref, rows * cols, 4, "relu_fwd_f32");

		dy[0] = arg2(HLRT_FP32, rows, cols);
		fill_f32(&dy[0], &s, -1, 1);
		dy[1] = in[0];
		rt_run_op("relu_bwd_f32", dy, 2, bwd, 1, NULL, 0, 0);
		for (i = 0; i < rows * cols; i++)
			ref[i] = ((float *)in[0].data)[i] > 0 ? ((float *)dy[0].data)[i] : 0.0f;
		expect_bits(bwd[0].data, ref, rows * cols, 4, "relu_bwd_f32");

		rt_run_op("scale_f32", x, 1, sc, 1, &sp, sizeof(sp), 0);
		for (i = 0; i < rows * cols; i++)
			ref[i] = ((float *)in[0].data)[i] * sp.alpha;
		expect_bits(sc[0].data, ref, rows * cols, 4, "scale_f32");

		free(ref);
		free_args(in, 2);
		free_args(out, 1);
		free_args(relu, 1);
		free_args(dy, 1);
		free_args(bwd, 1);
		free_args(sc, 1);
	}
}
END_TEST

START_TEST(equal_and_argmax)
{
	uint32_t s = 99, it;

	for (it = 0; it < ITERS; it++) {
		uint64_t rows = 3 + rt_rand(&s) % 50, cols = it == 2 ? 200 : 10 + it, i, j;
		struct rt_arg in[2] = { arg1(HLRT_INT32, rows), arg1(HLRT_INT32, rows) }, out[1];
		struct rt_arg x[1] = { arg2(HLRT_FP32, rows, cols) }, am[1];

		fill_i32(&in[0], &s, 0, 3);
		fill_i32(&in[1], &s, 0, 3);
		rt_run_op("equal_i32", in, 2, out, 1, NULL, 0, 0);
		for (i = 0; i < rows; i++)
			ck_assert_int_eq(((int32_t *)out[0].data)[i],
					 ((int32_t *)in[0].data)[i] == ((int32_t *)in[1].data)[i]);
		fill_f32(&x[0], &s, -5, 5);
		/* a tie: the first index wins */
		((float *)x[0].data)[cols - 1] = ((float *)x[0].data)[1] = 9.0f;
		rt_run_op("argmax_i32", x, 1, am, 1, NULL, 0, 0);
		for (i = 0; i < rows; i++) {
			const float *row = (float *)x[0].data + i * cols;
			uint64_t best = 0;

			for (j = 1; j < cols; j++)
				if (row[j] > row[best])
					best = j;
			ck_assert_int_eq(((int32_t *)am[0].data)[i], (int32_t)best);
		}
		free_args(in, 2);
		free_args(out, 1);
		free_args(x, 1);
		free_args(am, 1);
	}
}
END_TEST

static float bf16_round(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		u |= 0x00400000u;
	else
		u += 0x7fffu + ((u >> 16) & 1);
	u &= 0xffff0000u;
	memcpy(&f, &u, 4);
	return f;
}

START_TEST(casts)
{
	uint32_t s = 3;
	uint64_t n = 300, i;
	struct rt_arg f[1] = { arg1(HLRT_FP32, n) }, b[1], back[1], it[1], fi[1], i8[1];

	fill_f32(&f[0], &s, -300, 300);
	rt_run_op("cast_f32_to_bf16", f, 1, b, 1, NULL, 0, 0);
	rt_run_op("cast_bf16_to_f32", b, 1, back, 1, NULL, 0, 0);
	for (i = 0; i < n; i++)
		ck_assert_float_eq(((float *)back[0].data)[i],
				   bf16_round(((float *)f[0].data)[i]));
	rt_run_op("cast_f32_to_i32", f, 1, it, 1, NULL, 0, 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(((int32_t *)it[0].data)[i], (int32_t)((float *)f[0].data)[i]);
	rt_run_op("cast_i32_to_f32", it, 1, fi, 1, NULL, 0, 0);
	for (i = 0; i < n; i++)
		ck_assert_float_eq(((float *)fi[0].data)[i], (float)((int32_t *)it[0].data)[i]);
	rt_run_op("cast_i32_to_i8", it, 1, i8, 1, NULL, 0, 0);
	for (i = 0; i < n; i++) {
		int32_t v = ((int32_t *)it[0].data)[i];

		ck_assert_int_eq(((int8_t *)i8[0].data)[i], v > 127 ? 127 : v < -128 ? -128 : v);
	}
	free_args(f, 1);
	free_args(b, 1);
	free_args(back, 1);
	free_args(it, 1);
	free_args(fi, 1);
	free_args(i8, 1);
}
END_TEST

/* ---- reductions --------------------------------------------------------------- */

/* The TPC order: 64 lane-wise sums over the tiles, then the pairwise tree. */
static float tpc_row_sum(const float *x, uint64_t n)
{
	float lane[64] = { 0 };
	uint64_t t, l, w;

	for (t = 0; t < n; t += 64)
		for (l = 0; l < 64; l++)
			lane[l] += t + l < n ? x[t + l] : 0.0f;
	for (w = 32; w >= 1; w /= 2)
		for (l = 0; l < w; l++)
			lane[l] = lane[l] + lane[l + w];
	return lane[0];
}

START_TEST(reductions)
{
	uint32_t s = 21, it;

	for (it = 0; it < ITERS; it++) {
		struct hlrt_reduce_params ax0 = { .axis = 0 }, ax1 = { .axis = -1 };
		uint64_t rows, cols, i, j;
		struct rt_arg x[1], c[1], r[1], m[1], xi[1], ci[1];

		shape(&s, it, &rows, &cols);
		x[0] = arg2(HLRT_FP32, rows, cols);
		fill_f32(&x[0], &s, -1, 1);
		rt_run_op("reduce_sum_f32", x, 1, c, 1, &ax0, sizeof(ax0), 0);
		ck_assert_uint_eq(c[0].ndims, 1);
		ck_assert_uint_eq(c[0].dims[0], cols);
		for (j = 0; j < cols; j++) {
			float acc = 0;

			for (i = 0; i < rows; i++)
				acc += ((float *)x[0].data)[i * cols + j];
			ck_assert_float_eq(((float *)c[0].data)[j], acc);
		}
		rt_run_op("reduce_sum_f32", x, 1, r, 1, &ax1, sizeof(ax1), 0);
		rt_run_op("reduce_mean_f32", x, 1, m, 1, &ax1, sizeof(ax1), 0);
		for (i = 0; i < rows; i++) {
			float sum = tpc_row_sum((float *)x[0].data + i * cols, cols);

			ck_assert_float_eq(((float *)r[0].data)[i], sum);
			ck_assert_float_eq(((float *)m[0].data)[i], sum * (1.0f / (float)cols));
		}
		xi[0] = arg2(HLRT_INT32, rows, cols);
		fill_i32(&xi[0], &s, -1000, 1000);
		rt_run_op("reduce_sum_i32", xi, 1, ci, 1, &ax0, sizeof(ax0), 0);
		for (j = 0; j < cols; j++) {
			int32_t acc = 0;

			for (i = 0; i < rows; i++)
				acc += ((int32_t *)xi[0].data)[i * cols + j];
			ck_assert_int_eq(((int32_t *)ci[0].data)[j], acc);
		}
		free_args(x, 1);
		free_args(c, 1);
		free_args(r, 1);
		free_args(m, 1);
		free_args(xi, 1);
		free_args(ci, 1);
	}
}
END_TEST

START_TEST(softmax_cross_entropy)
{
	uint32_t s = 8, it;

	for (it = 0; it < ITERS; it++) {
		uint64_t b = 1 + rt_rand(&s) % 130, c = it == 2 ? 300 : 10, i, j;
		struct rt_arg in[2] = { arg2(HLRT_FP32, b, c), arg1(HLRT_INT32, b) }, f[2], g[1];
		double total = 0;

		fill_f32(&in[0], &s, -4, 4);
		fill_i32(&in[1], &s, 0, (int32_t)c - 1);
		rt_run_op("softmax_cross_entropy_fwd_f32", in, 2, f, 2, NULL, 0, 0);
		rt_run_op("softmax_cross_entropy_bwd_f32", in, 2, g, 1, NULL, 0, 0);
		for (i = 0; i < b; i++) {
			const float *x = (float *)in[0].data + i * c;
			int32_t y = ((int32_t *)in[1].data)[i];
			double m = -INFINITY, sum = 0, loss;

			for (j = 0; j < c; j++)
				m = fmax(m, x[j]);
			for (j = 0; j < c; j++)
				sum += exp(x[j] - m);
			loss = log(sum) + m - x[y];
			total += loss;
			ck_assert_msg(fabs(((float *)f[1].data)[i] - loss) <= 1e-5 * (1 + loss),
				      "row %llu: loss %g, expected %g", (unsigned long long)i,
				      ((float *)f[1].data)[i], loss);
			for (j = 0; j < c; j++) {
				double want = (exp(x[j] - m) / sum - ((int32_t)j == y)) / (double)b;

				ck_assert_msg(fabs(((float *)g[0].data)[i * c + j] - want) <= 1e-6,
					      "dlogits[%llu][%llu] = %g, expected %g",
					      (unsigned long long)i, (unsigned long long)j,
					      ((float *)g[0].data)[i * c + j], want);
			}
		}
		ck_assert(fabs(((float *)f[0].data)[0] - total / b) <= 1e-5 * (1 + total / b));
		free_args(in, 2);
		free_args(f, 2);
		free_args(g, 1);
	}
}
END_TEST

START_TEST(gather_rows)
{
	struct hlrt_reshape_params batch = { .ndims = 1, .dims = { 7 } };
	uint32_t s = 4, i, j;
	uint64_t rows = 20, cols = 130;
	struct rt_arg in[3] = { arg2(HLRT_FP32, rows, cols), arg1(HLRT_INT32, 9),
				arg1(HLRT_INT32, 1) }, out[1];
	struct rt_arg li[3] = { arg1(HLRT_INT32, rows), arg1(HLRT_INT32, 9), arg1(HLRT_INT32, 1) };
	struct rt_arg lo[1];
	const int32_t idx[9] = { 5, 19, 0, 7, 25, -3, 2, 11, 4 };

	fill_f32(&in[0], &s, -1, 1);
	fill_i32(&li[0], &s, 0, 9);
	memcpy(in[1].data, idx, sizeof(idx));
	memcpy(li[1].data, idx, sizeof(idx));
	/* offset 4: rows 4..10 of the index, the last 2 past its end; an odd batch */
	*(int32_t *)in[2].data = 4;
	*(int32_t *)li[2].data = 4;
	rt_run_op("gather_rows_f32", in, 3, out, 1, &batch, sizeof(batch), 0);
	rt_run_op("gather_rows_i32", li, 3, lo, 1, &batch, sizeof(batch), 0);
	ck_assert_uint_eq(out[0].dims[0], 7);
	for (i = 0; i < 7; i++) {
		int32_t src = 4 + i < 9 ? idx[4 + i] : -1;
		bool valid = src >= 0 && (uint64_t)src < rows;

		for (j = 0; j < cols; j++)
			ck_assert_float_eq(((float *)out[0].data)[i * cols + j],
					   valid ? ((float *)in[0].data)[src * cols + j] : 0.0f);
		ck_assert_int_eq(((int32_t *)lo[0].data)[i],
				 valid ? ((int32_t *)li[0].data)[src] : 0);
	}
	free_args(in, 3);
	free_args(li, 3);
	free_args(out, 1);
	free_args(lo, 1);
}
END_TEST

/*
 * Rows of one element (labels, gather_elems_i32), FP32 bits and INT32:
 * three members of 256 rows, the last partial, rows out of range either
 * way, and the index's end passed at row 550 (offset 150, 700 entries).
 */
START_TEST(gather_one_element_rows)
{
	struct hlrt_reshape_params batch = { .ndims = 1, .dims = { 600 } };
	const uint64_t rows = 1000, n_idx = 700;
	uint32_t s = 6, k, i;

	for (k = 0; k < 2; k++) {
		hlrt_dtype dt = k ? HLRT_INT32 : HLRT_FP32;
		struct rt_arg in[3] = { arg1(dt, rows), arg1(HLRT_INT32, n_idx),
					arg1(HLRT_INT32, 1) }, out[1];
		int32_t *idx = in[1].data;
		const uint32_t *src = in[0].data;

		fill_i32(&in[0], &s, INT32_MIN, INT32_MAX);	/* every bit pattern, NaNs too */
		fill_i32(&in[1], &s, -5, (int32_t)rows + 5);
		*(int32_t *)in[2].data = 150;
		rt_run_op(k ? "gather_rows_i32" : "gather_rows_f32", in, 3, out, 1, &batch,
			  sizeof(batch), 0);
		ck_assert_uint_eq(out[0].dims[0], 600);
		for (i = 0; i < 600; i++) {
			int32_t r = 150 + i < n_idx ? idx[150 + i] : -1;
			uint32_t want = r >= 0 && (uint64_t)r < rows ? src[r] : 0;

			ck_assert_msg(((uint32_t *)out[0].data)[i] == want,
				      "%s row %u: 0x%08x, want 0x%08x", k ? "i32" : "f32", i,
				      ((uint32_t *)out[0].data)[i], want);
		}
		free_args(in, 3);
		free_args(out, 1);
	}
}
END_TEST

/* ---- optimizers ------------------------------------------------------------------ */

/*
 * Every rule, on sizes whose members end on an even or an odd tile, a
 * partial one, a single one (sgd_f32 updates two tiles a turn).
 */
START_TEST(sgd_variants)
{
	static const struct hlrt_sgd_params cases[] = {
		{ 0, 0, 0, 0 }, { 0.01f, 0, 0, 0 }, { 0.001f, 0.9f, 0, 0 }, { 0, 0.9f, 0.1f, 1 },
	};
	static const uint64_t sizes[] = { 5000, 1, 64, 100, 130, 4096 + 64, 8192 + 200 };
	const uint32_t ncases = sizeof(cases) / sizeof(cases[0]);
	uint32_t s = 31, c;

	for (c = 0; c < ncases * (sizeof(sizes) / sizeof(sizes[0])); c++) {
		const struct hlrt_sgd_params *p = &cases[c % ncases];
		bool mom = p->momentum != 0;
		uint64_t n = sizes[c / ncases] + c % ncases, i;
		struct rt_arg in[4] = { arg1(HLRT_FP32, n), arg1(HLRT_FP32, n), arg1(HLRT_FP32, 1),
					arg1(HLRT_FP32, n) }, out[2];
		float *w0 = malloc(4 * n), *b0 = malloc(4 * n), lr = 0.05f;

		fill_f32(&in[0], &s, -1, 1);
		fill_f32(&in[1], &s, -1, 1);
		fill_f32(&in[3], &s, -1, 1);
		*(float *)in[2].data = lr;
		memcpy(w0, in[1].data, 4 * n);
		memcpy(b0, in[3].data, 4 * n);
		rt_run_op("optimizer_sgd_f32", in, mom ? 4 : 3, out, mom ? 2 : 1, p, sizeof(*p), 2);
		for (i = 0; i < n; i++) {
			float g = ((float *)in[0].data)[i], d = g + p->weight_decay * w0[i], buf;

			if (mom) {
				buf = p->momentum * b0[i] + (1.0f - p->dampening) * d;
				d = p->nesterov ? d + p->momentum * buf : buf;
				ck_assert_float_eq(((float *)out[1].data)[i], buf);
			}
			ck_assert_float_eq(((float *)out[0].data)[i], w0[i] - lr * d);
		}
		free(w0);
		free(b0);
		free_args(in, 4);
		free_args(out, mom ? 2 : 1);
	}
}
END_TEST

START_TEST(adamw_and_adagrad)
{
	struct hlrt_adamw_params ap = { .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
					.weight_decay = 0.01f };
	struct hlrt_adagrad_params gp = { .eps = 1e-10f, .weight_decay = 0.001f };
	uint32_t s = 41;
	uint64_t n = 4200, i;
	struct rt_arg in[6] = { arg1(HLRT_FP32, n), arg1(HLRT_FP32, n), arg1(HLRT_FP32, 1),
				arg1(HLRT_FP32, n), arg1(HLRT_FP32, n), arg1(HLRT_INT32, 1) };
	struct rt_arg out[3];
	float *g, *w0, *m0, *v0, lr = 0.01f;
	int32_t step = 4;	/* four steps done: this is step 5 */

	fill_f32(&in[0], &s, -1, 1);
	fill_f32(&in[1], &s, -1, 1);
	fill_f32(&in[3], &s, -0.1f, 0.1f);
	fill_f32(&in[4], &s, 0, 0.01f);
	*(float *)in[2].data = lr;
	*(int32_t *)in[5].data = step;
	g = in[0].data;
	w0 = malloc(4 * n);
	m0 = malloc(4 * n);
	v0 = malloc(4 * n);
	memcpy(w0, in[1].data, 4 * n);
	memcpy(m0, in[3].data, 4 * n);
	memcpy(v0, in[4].data, 4 * n);
	rt_run_op("optimizer_adamw_f32", in, 6, out, 3, &ap, sizeof(ap), 2);
	for (i = 0; i < n; i++) {
		/* the constants as the kernel has them: binary32 */
		const double b1 = 0.9f, b2 = 0.999f, c1 = 1.0f - 0.9f, c2 = 1.0f - 0.999f;
		double t = step + 1, m = b1 * m0[i] + c1 * g[i];
		double v = b2 * v0[i] + c2 * (double)g[i] * g[i];
		double mh = m / (1 - pow(b1, t)), vh = v / (1 - pow(b2, t));
		double w = w0[i] * (1 - lr * 0.01) - lr * mh / (sqrt(vh) + 1e-8);

		ck_assert_msg(fabs(((float *)out[1].data)[i] - m) <= 1e-6 * (fabs(m) + 1e-2),
			      "m[%llu] = %.9g, expected %.9g", (unsigned long long)i,
			      ((float *)out[1].data)[i], m);
		ck_assert_msg(fabs(((float *)out[2].data)[i] - v) <= 1e-6 * (fabs(v) + 1e-6), "v");
		ck_assert_msg(fabs(((float *)out[0].data)[i] - w) <= 1e-5 * (fabs(w) + 1e-2),
			      "w[%llu] = %.8g, expected %.8g", (unsigned long long)i,
			      ((float *)out[0].data)[i], w);
	}
	free_args(out, 3);
	memcpy(in[1].data, w0, 4 * n);
	fill_f32(&in[3], &s, 0, 1);
	memcpy(v0, in[3].data, 4 * n);
	rt_run_op("optimizer_adagrad_f32", in, 4, out, 2, &gp, sizeof(gp), 2);
	for (i = 0; i < n; i++) {
		double d = g[i] + 0.001 * w0[i], a = v0[i] + d * d;
		double w = w0[i] - lr * d / (sqrt(a) + 1e-10);

		ck_assert_msg(fabs(((float *)out[1].data)[i] - a) <= 1e-6 * a + 1e-7, "accum");
		ck_assert_msg(fabs(((float *)out[0].data)[i] - w) <= 1e-5 * (fabs(w) + 1e-2),
			      "w[%llu] = %.8g, expected %.8g", (unsigned long long)i,
			      ((float *)out[0].data)[i], w);
	}
	free_args(out, 2);
	free_args(in, 6);
	free(w0);
	free(m0);
	free(v0);
}
END_TEST

/* ---- MME ---------------------------------------------------------------------------- */

/* op(A) op(B) in double, and the bound sum |a b| for the tolerance. */
static void ref_gemm(const float *a, bool ta, const float *b, bool tb, uint64_t m, uint64_t n,
		     uint64_t k, double *c, double *mag)
{
	uint64_t i, j, l;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			double acc = 0, s = 0;

			for (l = 0; l < k; l++) {
				double x = ta ? a[l * m + i] : a[i * k + l];
				double y = tb ? b[j * k + l] : b[l * n + j];

				acc += x * y;
				s += fabs(x * y);
			}
			c[i * n + j] = acc;
			mag[i * n + j] = s;
		}
}

static void expect_close(const float *got, const double *want, const double *mag, uint64_t n,
			 uint64_t k, const char *what)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		ck_assert_msg(fabs(got[i] - want[i]) <= (double)(k + 3) * 1.2e-7 * mag[i] + 1e-30,
			      "%s: element %llu = %.9g, expected %.9g", what, (unsigned long long)i,
			      got[i], want[i]);
}

START_TEST(gemm_family)
{
	uint32_t s = 50 + (uint32_t)_i;
	uint64_t m = 1 + rt_rand(&s) % 70, n = 1 + rt_rand(&s) % 40, k = 1 + rt_rand(&s) % 90;
	struct hlrt_gemm_params p = { .transpose_a = (uint8_t)(_i & 1),
				      .transpose_b = (uint8_t)(_i >> 1 & 1) };
	struct rt_arg in[2], out[1], dx_in[2], dx[1], dw_in[2], dw[1];
	double *c, *mag, *ga, *gb, *gmag;
	uint64_t i, j, l;
	float *dc;

	in[0] = p.transpose_a ? arg2(HLRT_FP32, k, m) : arg2(HLRT_FP32, m, k);
	in[1] = p.transpose_b ? arg2(HLRT_FP32, n, k) : arg2(HLRT_FP32, k, n);
	fill_f32(&in[0], &s, -1, 1);
	fill_f32(&in[1], &s, -1, 1);
	rt_run_op("gemm_f32", in, 2, out, 1, &p, sizeof(p), 0);
	c = malloc(sizeof(double) * m * n);
	mag = malloc(sizeof(double) * m * n);
	ref_gemm(in[0].data, p.transpose_a, in[1].data, p.transpose_b, m, n, k, c, mag);
	expect_close(out[0].data, c, mag, m * n, k, "gemm");

	/* the gradients of the same product for an upstream dC */
	dx_in[0] = arg2(HLRT_FP32, m, n);
	fill_f32(&dx_in[0], &s, -1, 1);
	dc = dx_in[0].data;
	dx_in[1] = in[1];
	rt_run_op("gemm_dedx_f32", dx_in, 2, dx, 1, &p, sizeof(p), 0);
	dw_in[0] = dx_in[0];
	dw_in[1] = in[0];
	rt_run_op("gemm_dedw_f32", dw_in, 2, dw, 1, &p, sizeof(p), 0);
	ga = calloc(m * k, sizeof(double));
	gb = calloc(k * n, sizeof(double));
	gmag = calloc((m * k > k * n ? m * k : k * n), sizeof(double));
	/* dA (in A's layout) and dB (in B's layout) */
	for (i = 0; i < m; i++)
		for (l = 0; l < k; l++) {
			double acc = 0, mg = 0;

			for (j = 0; j < n; j++) {
				const float *b = in[1].data;
				double y = p.transpose_b ? b[j * k + l] : b[l * n + j];

				acc += dc[i * n + j] * y;
				mg += fabs(dc[i * n + j] * y);
			}
			ga[p.transpose_a ? l * m + i : i * k + l] = acc;
			gmag[p.transpose_a ? l * m + i : i * k + l] = mg;
		}
	expect_close(dx[0].data, ga, gmag, m * k, n, "gemm_dedx");
	for (l = 0; l < k; l++)
		for (j = 0; j < n; j++) {
			double acc = 0, mg = 0;

			for (i = 0; i < m; i++) {
				const float *a = in[0].data;
				double x = p.transpose_a ? a[l * m + i] : a[i * k + l];

				acc += x * dc[i * n + j];
				mg += fabs(x * dc[i * n + j]);
			}
			gb[p.transpose_b ? j * k + l : l * n + j] = acc;
			gmag[p.transpose_b ? j * k + l : l * n + j] = mg;
		}
	expect_close(dw[0].data, gb, gmag, k * n, m, "gemm_dedw");
	free(c);
	free(mag);
	free(ga);
	free(gb);
	free(gmag);
	free_args(in, 2);
	free_args(out, 1);
	free_args(dx_in, 1);
	free_args(dx, 1);
	free_args(dw, 1);
}
END_TEST

START_TEST(softmax_and_batch_gemm)
{
	uint32_t s = 61;
	uint64_t rows = 9, c = 130, b = 3, m = 7, k = 11, n = 5, i, j, l, bb;
	struct rt_arg x[1] = { arg2(HLRT_FP32, rows, c) }, y[1];
	struct rt_arg in[2] = { arg2(HLRT_FP32, b * m, k), arg2(HLRT_FP32, b * k, n) }, out[1];

	fill_f32(&x[0], &s, -5, 5);
	rt_run_op("softmax_fwd_f32", x, 1, y, 1, NULL, 0, 0);
	for (i = 0; i < rows; i++) {
		const float *r = (float *)x[0].data + i * c;
		double mx = -INFINITY, sum = 0;

		for (j = 0; j < c; j++)
			mx = fmax(mx, r[j]);
		for (j = 0; j < c; j++)
			sum += exp(r[j] - mx);
		for (j = 0; j < c; j++)
			ck_assert(fabs(((float *)y[0].data)[i * c + j] - exp(r[j] - mx) / sum) <= 1e-6);
	}
	in[0].ndims = in[1].ndims = 3;
	in[0].dims[0] = in[1].dims[0] = b;
	in[0].dims[1] = m, in[0].dims[2] = k;
	in[1].dims[1] = k, in[1].dims[2] = n;
	fill_f32(&in[0], &s, -1, 1);
	fill_f32(&in[1], &s, -1, 1);
	rt_run_op("batch_gemm_f32", in, 2, out, 1, NULL, 0, 0);
	ck_assert_uint_eq(out[0].dims[0], b);
	for (bb = 0; bb < b; bb++)
		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++) {
				double acc = 0;

				for (l = 0; l < k; l++)
					acc += (double)((float *)in[0].data)[(bb * m + i) * k + l] *
					       ((float *)in[1].data)[(bb * k + l) * n + j];
				ck_assert(fabs(((float *)out[0].data)[(bb * m + i) * n + j] - acc) <=
					  1e-5 * (1 + fabs(acc)));
			}
	free_args(x, 1);
	free_args(y, 1);
	free_args(in, 2);
	free_args(out, 1);
}
END_TEST

/* batch_gemm_f32 with each operand stored transposed: the plain product's bits. */
START_TEST(batch_gemm_transposed_operands)
{
	const uint64_t b = 4, m = 6, k = 9, n = 70;
	uint32_t s = 67, ta, tb;
	struct rt_arg in[2] = { arg2(HLRT_FP32, b * m, k), arg2(HLRT_FP32, b * k, n) }, plain[1];
	struct rt_arg tin[2], out[1];
	uint64_t bb, i, j;

	in[0].ndims = in[1].ndims = 3;
	in[0].dims[0] = in[1].dims[0] = b;
	in[0].dims[1] = m, in[0].dims[2] = k;
	in[1].dims[1] = k, in[1].dims[2] = n;
	fill_f32(&in[0], &s, -1, 1);
	fill_f32(&in[1], &s, -1, 1);
	rt_run_op("batch_gemm_f32", in, 2, plain, 1, NULL, 0, 0);
	for (ta = 0; ta < 2; ta++)
		for (tb = 0; tb < 2; tb++) {
			struct hlrt_gemm_params p = { .transpose_a = (uint8_t)ta,
						      .transpose_b = (uint8_t)tb };

			for (j = 0; j < 2; j++) {
				const struct rt_arg *x = &in[j];
				uint64_t r = x->dims[1], c = x->dims[2];

				tin[j] = *x;
				if (!(j ? tb : ta))
					continue;
				/* stored transposed: [b, c, r] */
				tin[j].dims[1] = c, tin[j].dims[2] = r;
				tin[j].data = malloc(4 * b * r * c);
				ck_assert_ptr_nonnull(tin[j].data);
				for (bb = 0; bb < b; bb++)
					for (i = 0; i < r; i++)
						for (uint64_t l = 0; l < c; l++)
							((float *)tin[j].data)[(bb * c + l) * r + i] =
								((float *)x->data)[(bb * r + i) * c + l];
			}
			rt_run_op("batch_gemm_f32", tin, 2, out, 1, &p, sizeof(p), 0);
			ck_assert_uint_eq(out[0].dims[1], m);
			ck_assert_uint_eq(out[0].dims[2], n);
			ck_assert_msg(!memcmp(out[0].data, plain[0].data, 4 * b * m * n),
				      "transpose_a %u transpose_b %u: not the plain product", ta, tb);
			for (j = 0; j < 2; j++)
				if (tin[j].data != in[j].data)
					free(tin[j].data);
			free(out[0].data);
		}
	free_args(in, 2);
	free_args(plain, 1);
}
END_TEST

START_TEST(memcpy_and_memset)
{
	uint32_t s = 17;
	uint64_t n = 3000;
	struct rt_arg in[1] = { arg1(HLRT_FP32, n) }, out[1];

	fill_f32(&in[0], &s, -9, 9);
	rt_run_op("memcpy", in, 1, out, 1, NULL, 0, 0);
	expect_bits(out[0].data, in[0].data, n, 4, "memcpy");
	free_args(in, 1);
	free_args(out, 1);
}
END_TEST

/* ---- convolution and pooling ---------------------------------------------------------- */

START_TEST(conv2d_matches_direct_loops)
{
	static const uint32_t cfg[][5] = {	/* N H W C F, kernel, pad */
		{ 2, 7, 9, 1, 3 }, { 3, 10, 6, 5, 4 }, { 1, 5, 70, 2, 2 },
	};
	const uint32_t *c = cfg[_i];
	uint32_t k = _i == 1 ? 3 : 5, pad = _i == 0 ? 2 : _i == 1 ? 1 : 0, s = 7 + (uint32_t)_i;
	uint64_t n = c[0], h = c[1], w = c[2], ch = c[3], f = c[4];
	uint64_t oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1, i, y, x, o, kh, kw, cc;
	struct hlrt_conv_params p = { .kernel_h = k, .kernel_w = k, .pad_h = pad, .pad_w = pad };
	struct rt_arg in[3], out[1];

	in[0] = arg2(HLRT_FP32, n * h, w * ch);
	in[0].ndims = 4;
	in[0].dims[0] = n, in[0].dims[1] = h, in[0].dims[2] = w, in[0].dims[3] = ch;
	in[1] = arg2(HLRT_FP32, k * k, ch * f);
	in[1].ndims = 4;
	in[1].dims[0] = k, in[1].dims[1] = k, in[1].dims[2] = ch, in[1].dims[3] = f;
	in[2] = arg1(HLRT_FP32, f);
	fill_f32(&in[0], &s, -1, 1);
	fill_f32(&in[1], &s, -1, 1);
	fill_f32(&in[2], &s, -1, 1);
	rt_run_op("conv2d_fwd_f32", in, 3, out, 1, &p, sizeof(p), 0);
	ck_assert_uint_eq(out[0].ndims, 4);
	ck_assert_uint_eq(out[0].dims[1], oh);
	ck_assert_uint_eq(out[0].dims[2], ow);
	for (i = 0; i < n; i++)
		for (y = 0; y < oh; y++)
			for (x = 0; x < ow; x++)
				for (o = 0; o < f; o++) {
					double acc = 0, mag = 0;
					float got;

					for (kh = 0; kh < k; kh++)
						for (kw = 0; kw < k; kw++)
							for (cc = 0; cc < ch; cc++) {
								int64_t yy = (int64_t)(y + kh) - pad;
								int64_t xx = (int64_t)(x + kw) - pad;
								double v, wt;

								if (yy < 0 || xx < 0 || yy >= (int64_t)h ||
								    xx >= (int64_t)w)
									continue;
								v = ((float *)in[0].data)[((i * h + yy) * w + xx) * ch + cc];
								wt = ((float *)in[1].data)[((kh * k + kw) * ch + cc) * f + o];
								acc += v * wt;
								mag += fabs(v * wt);
							}
					acc += ((float *)in[2].data)[o];
					got = ((float *)out[0].data)[((i * oh + y) * ow + x) * f + o];
					ck_assert_msg(fabs(got - acc) <= 1e-6 * (mag + 1) * (double)(k * k * ch),
						      "y[%llu,%llu,%llu,%llu] = %g, expected %g",
						      (unsigned long long)i, (unsigned long long)y,
						      (unsigned long long)x, (unsigned long long)o, got, acc);
				}
	free_args(in, 3);
	free_args(out, 1);
}
END_TEST

/*
 * Pooling forward and backward against the definition, ties too, in the
 * lowering's three views: 35 columns of 3 channels of 3 images run a
 * member per channel with tiles along the columns; 3 columns of 70
 * channels run a member per column with tiles along the channels (two of
 * them); 3 columns of 3 channels of 70 images run a member per column and
 * channel with tiles along the images (two of them).
 */
static void check_maxpool_fwd_bwd(uint64_t n, uint64_t w, uint64_t c)
{
	uint32_t s = 13, k = 2;
	uint64_t h = 9, oh = (h - k) / k + 1, ow = (w - k) / k + 1;
	struct hlrt_pool_params p = { .kernel_h = k, .kernel_w = k };
	struct rt_arg x[1], y[1], bin[2], dx[1];
	uint64_t i, a, b, ch, kh, kw;

	x[0] = arg2(HLRT_FP32, n * h, w * c);
	x[0].ndims = 4;
	x[0].dims[0] = n, x[0].dims[1] = h, x[0].dims[2] = w, x[0].dims[3] = c;
	fill_f32(&x[0], &s, -1, 1);
	/* a tie inside one window: the first position gets the gradient */
	((float *)x[0].data)[0] = ((float *)x[0].data)[c] = 5.0f;
	rt_run_op("maxpool2d_fwd_f32", x, 1, y, 1, &p, sizeof(p), 0);
	ck_assert_uint_eq(y[0].dims[1], oh);
	ck_assert_uint_eq(y[0].dims[2], ow);
	bin[0] = y[0];
	bin[1] = x[0];
	bin[0].data = malloc(4 * rt_arg_elems(&y[0]));
	fill_f32(&bin[0], &s, -1, 1);
	rt_run_op("maxpool2d_bwd_f32", bin, 2, dx, 1, &p, sizeof(p), 0);
	for (i = 0; i < n; i++)
		for (a = 0; a < oh; a++)
			for (b = 0; b < ow; b++)
				for (ch = 0; ch < c; ch++) {
					const float *xv = x[0].data;
					float m = -INFINITY, g = ((float *)bin[0].data)[((i * oh + a) * ow + b) * c + ch];
					bool given = false;

					for (kh = 0; kh < k; kh++)
						for (kw = 0; kw < k; kw++)
							m = fmaxf(m, xv[((i * h + a * k + kh) * w + b * k + kw) * c + ch]);
					ck_assert_float_eq(((float *)y[0].data)[((i * oh + a) * ow + b) * c + ch], m);
					for (kh = 0; kh < k; kh++)
						for (kw = 0; kw < k; kw++) {
							uint64_t at = ((i * h + a * k + kh) * w + b * k + kw) * c + ch;
							bool here = !given && xv[at] == m;

							ck_assert_float_eq(((float *)dx[0].data)[at], here ? g : 0.0f);
							given = given || here;
						}
				}
	/* the last row (h = 9 is odd) lies in no window: its gradient is 0 */
	for (i = 0; i < w * c; i++)
		ck_assert_float_eq(((float *)dx[0].data)[((h - 1) * w) * c + i], 0.0f);
	free_args(x, 1);
	free_args(y, 1);
	free_args(bin, 1);
	free_args(dx, 1);
}

START_TEST(maxpool_fwd_bwd)
{
	check_maxpool_fwd_bwd(3, 70, 3);
	check_maxpool_fwd_bwd(3, 6, 70);
	check_maxpool_fwd_bwd(70, 6, 3);
}
END_TEST

/* ---- broadcasting, square, where, argmax with INT64 output ------------------------- */

static struct rt_arg argn(hlrt_dtype dt, uint32_t nd, const uint64_t *dims)
{
	struct rt_arg a = { .dtype = dt, .ndims = nd };

	memcpy(a.dims, dims, sizeof(uint64_t) * nd);
	a.data = malloc(hlrt_dtype_size(dt) * rt_arg_elems(&a));
	ck_assert_ptr_nonnull(a.data);
	return a;
}

/* Where input a is read for element flat of a result of nd dims (NumPy rules). */
static uint64_t bc_off(const struct rt_arg *a, uint32_t nd, const uint64_t *odims, uint64_t flat)
{
	uint64_t off = 0, mul = 1;
	uint32_t d;

	for (d = nd; d-- > 0;) {
		uint64_t c = flat % odims[d];

		flat /= odims[d];
		if (d >= nd - a->ndims) {
			uint64_t ad = a->dims[d - (nd - a->ndims)];

			off += (ad == 1 ? 0 : c) * mul;
			mul *= ad;
		}
	}
	return off;
}

/* Values from a small set, so that comparisons see equal pairs. */
static void fill_small(struct rt_arg *a, uint32_t *s)
{
	uint64_t i, n = rt_arg_elems(a);

	for (i = 0; i < n; i++) {
		int32_t v = (int32_t)(rt_rand(s) % 7) - 3;

		if (a->dtype == HLRT_INT32)
			((int32_t *)a->data)[i] = v;
		else
			((float *)a->data)[i] = 0.5f * (float)v;
	}
}

struct bc_case {
	uint32_t na, nb;
	uint64_t a[4], b[4];
};

static const struct bc_case bc_cases[] = {
	{ 2, 1, { 5, 70 }, { 70 } },			/* a bias row */
	{ 2, 2, { 7, 1 }, { 1, 4100 } },		/* outer product, partial tiles */
	{ 3, 3, { 3, 1, 65 }, { 3, 6, 1 } },		/* the middle and the last */
	{ 1, 2, { 1 }, { 4, 9 } },			/* a scalar */
	{ 2, 2, { 6, 33 }, { 6, 33 } },			/* no broadcasting */
	{ 4, 3, { 2, 1, 3, 5 }, { 4, 1, 1 } },		/* 4-D against 3-D */
};

START_TEST(broadcast_elementwise)
{
	static const char *const guids[] = { "add_f32", "sub_f32", "mul_f32", "maximum_f32",
					     "minimum_f32", "equal_f32", "greater_f32",
					     "less_f32", "add_i32", "equal_i32" };
	const struct bc_case *bc = &bc_cases[_i];
	uint32_t s = 1234 + (uint32_t)_i, g;

	for (g = 0; g < sizeof(guids) / sizeof(guids[0]); g++) {
		bool i32 = g >= 8, cmp = (g >= 5 && g <= 7) || g == 9;
		hlrt_dtype dt = i32 ? HLRT_INT32 : HLRT_FP32;
		struct rt_arg in[2] = { argn(dt, bc->na, bc->a), argn(dt, bc->nb, bc->b) }, out[1];
		uint64_t i, n;
		uint32_t d;

		fill_small(&in[0], &s);
		fill_small(&in[1], &s);
		rt_run_op(guids[g], in, 2, out, 1, NULL, 0, 0);
		ck_assert_uint_eq(out[0].ndims, bc->na > bc->nb ? bc->na : bc->nb);
		ck_assert_int_eq(out[0].dtype, cmp ? HLRT_INT32 : dt);
		for (d = 0; d < out[0].ndims; d++) {
			uint64_t da = d + bc->na >= out[0].ndims ?
				      bc->a[d + bc->na - out[0].ndims] : 1;
			uint64_t db = d + bc->nb >= out[0].ndims ?
				      bc->b[d + bc->nb - out[0].ndims] : 1;

			ck_assert_uint_eq(out[0].dims[d], da > db ? da : db);
		}
		n = rt_arg_elems(&out[0]);
		for (i = 0; i < n; i++) {
			uint64_t oa = bc_off(&in[0], out[0].ndims, out[0].dims, i);
			uint64_t ob = bc_off(&in[1], out[0].ndims, out[0].dims, i);

			if (i32) {
				int32_t a = ((int32_t *)in[0].data)[oa], b = ((int32_t *)in[1].data)[ob];
				int32_t want = g == 8 ? a + b : a == b;

				ck_assert_msg(((int32_t *)out[0].data)[i] == want,
					      "%s case %d element %llu", guids[g], _i,
					      (unsigned long long)i);
			} else {
				float a = ((float *)in[0].data)[oa], b = ((float *)in[1].data)[ob];
				float want = g == 0 ? a + b : g == 1 ? a - b : g == 2 ? a * b :
					     g == 3 ? (a > b ? a : b) : (a < b ? a : b);
				int32_t wc = g == 5 ? a == b : g == 6 ? a > b : a < b;

				if (cmp)
					ck_assert_msg(((int32_t *)out[0].data)[i] == wc,
						      "%s case %d element %llu", guids[g], _i,
						      (unsigned long long)i);
				else
					expect_bits((float *)out[0].data + i, &want, 1, 4, guids[g]);
			}
		}
		free_args(in, 2);
		free_args(out, 1);
	}
}
END_TEST

START_TEST(broadcast_refused)
{
	static const uint64_t a[2] = { 3, 4 }, b[1] = { 5 };
	struct rt_arg in[2] = { argn(HLRT_FP32, 2, a), argn(HLRT_FP32, 1, b) };
	struct hlrt_tensor_desc da = { .name = "x", .dtype = HLRT_FP32, .ndims = 2,
				       .dims = { 3, 4 }, .role = HLRT_TENSOR_INPUT };
	struct hlrt_tensor_desc db = { .name = "y", .dtype = HLRT_FP32, .ndims = 1,
				       .dims = { 5 }, .role = HLRT_TENSOR_INPUT };
	hlrt_tensor *t[2];
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &da, &t[0]));
	HLRT_OK(hlrt_tensor_create(g, &db, &t[1]));
	ck_assert_int_eq(hlrt_node_create(g, "mul_f32", t, 2, NULL, 0, NULL, 0, "m", &n),
			 HLRT_INVALID_ARGUMENT);
	ck_assert_str_eq(hlrt_last_error(),
			 "mul_f32: inputs \"x\" [3,4] and \"y\" [5] do not broadcast");
	HLRT_OK(hlrt_graph_destroy(g));
	free_args(in, 2);
}
END_TEST

START_TEST(square_and_where)
{
	static const uint64_t xd[2] = { 9, 4101 }, cd[2] = { 9, 1 }, bd[1] = { 4101 };
	uint32_t s = 4242;
	struct rt_arg x[2] = { argn(HLRT_FP32, 2, xd), argn(HLRT_FP32, 2, xd) }, sq[1], sb[1];
	struct rt_arg w[3] = { argn(HLRT_INT32, 2, cd), argn(HLRT_FP32, 2, xd),
			       argn(HLRT_FP32, 1, bd) }, wo[1], wb[2];
	uint64_t i, n = xd[0] * xd[1];

	fill_f32(&x[0], &s, -3, 3);
	fill_f32(&x[1], &s, -3, 3);
	rt_run_op("square_f32", x, 1, sq, 1, NULL, 0, 0);
	/* square_bwd {dy, x}: dy = x[0], x = x[1] */
	rt_run_op("square_bwd_f32", x, 2, sb, 1, NULL, 0, 0);
	for (i = 0; i < n; i++) {
		float a = ((float *)x[0].data)[i], b = ((float *)x[1].data)[i];
		float want = a * a, wantb = a * (b + b);

		expect_bits((float *)sq[0].data + i, &want, 1, 4, "square_f32");
		expect_bits((float *)sb[0].data + i, &wantb, 1, 4, "square_bwd_f32");
	}
	fill_i32(&w[0], &s, -1, 1);
	fill_f32(&w[1], &s, -3, 3);
	fill_f32(&w[2], &s, -3, 3);
	rt_run_op("where_f32", w, 3, wo, 1, NULL, 0, 0);
	ck_assert_uint_eq(wo[0].ndims, 2);
	ck_assert_uint_eq(wo[0].dims[1], xd[1]);
	for (i = 0; i < n; i++) {
		int32_t c = ((int32_t *)w[0].data)[i / xd[1]];
		float want = c ? ((float *)w[1].data)[i] : ((float *)w[2].data)[i % xd[1]];

		expect_bits((float *)wo[0].data + i, &want, 1, 4, "where_f32");
	}
	free_args(wo, 1);
	rt_run_op("select_f32", w, 3, wo, 1, NULL, 0, 0);
	for (i = 0; i < n; i++) {
		int32_t c = ((int32_t *)w[0].data)[i / xd[1]];
		float want = c ? ((float *)w[1].data)[i] : ((float *)w[2].data)[i % xd[1]];

		expect_bits((float *)wo[0].data + i, &want, 1, 4, "select_f32");
	}
	/* where_bwd {cond, dy}: dy = w[1] */
	rt_run_op("where_bwd_f32", w, 2, wb, 2, NULL, 0, 0);
	for (i = 0; i < n; i++) {
		int32_t c = ((int32_t *)w[0].data)[i / xd[1]];
		float dy = ((float *)w[1].data)[i], da = c ? dy : 0.0f, db = c ? 0.0f : dy;

		expect_bits((float *)wb[0].data + i, &da, 1, 4, "where_bwd_f32 da");
		expect_bits((float *)wb[1].data + i, &db, 1, 4, "where_bwd_f32 db");
	}
	free_args(x, 2);
	free_args(sq, 1);
	free_args(sb, 1);
	free_args(w, 3);
	free_args(wo, 1);
	free_args(wb, 2);
}
END_TEST

/* tanh and sigmoid, forward and backward, against the same binary32 operations. */
START_TEST(tanh_and_sigmoid)
{
	static const uint64_t d[2] = { 5, 4099 };
	uint32_t s = 31337;
	struct rt_arg x[1] = { argn(HLRT_FP32, 2, d) }, bin[2] = { argn(HLRT_FP32, 2, d),
								  argn(HLRT_FP32, 2, d) };
	struct rt_arg th[1], sg[1], tb[1], sb[1];
	uint64_t i, n = d[0] * d[1];

	fill_f32(&x[0], &s, -6, 6);
	fill_f32(&bin[0], &s, -2, 2);		/* dy */
	fill_f32(&bin[1], &s, -1, 1);		/* y */
	rt_run_op("tanh_fwd_f32", x, 1, th, 1, NULL, 0, 0);
	rt_run_op("sigmoid_fwd_f32", x, 1, sg, 1, NULL, 0, 0);
	rt_run_op("tanh_bwd_f32", bin, 2, tb, 1, NULL, 0, 0);
	rt_run_op("sigmoid_bwd_f32", bin, 2, sb, 1, NULL, 0, 0);
	for (i = 0; i < n; i++) {
		float v = ((float *)x[0].data)[i], dy = ((float *)bin[0].data)[i];
		float y = ((float *)bin[1].data)[i];
		float t = tanhf(v), sig = 1.0f / (1.0f + expf(-v));
		float dt = dy * (1.0f - y * y), ds = dy * (y * (1.0f - y));

		expect_bits((float *)th[0].data + i, &t, 1, 4, "tanh_fwd_f32");
		expect_bits((float *)sg[0].data + i, &sig, 1, 4, "sigmoid_fwd_f32");
		expect_bits((float *)tb[0].data + i, &dt, 1, 4, "tanh_bwd_f32");
		expect_bits((float *)sb[0].data + i, &ds, 1, 4, "sigmoid_bwd_f32");
	}
	free_args(x, 1);
	free_args(bin, 2);
	free_args(th, 1);
	free_args(sg, 1);
	free_args(tb, 1);
	free_args(sb, 1);
}
END_TEST

/*
 * Overlapping (3x3, stride 2) and gapped (2x2, stride 3) windows: each
 * window's dy added to its first maximum (a host scatter-add in window
 * order; sums of a few values, compared within 1e-6), with and without
 * the forward's y.
 */
static void pool_any_stride(uint32_t k, uint32_t st, bool with_y)
{
	uint32_t s = 17 + k;
	uint64_t n = 2, h = 11, w = 67, c = 3, oh = (h - k) / st + 1, ow = (w - k) / st + 1;
	struct hlrt_pool_params p = { .kernel_h = k, .kernel_w = k, .stride_h = st, .stride_w = st };
	struct rt_arg x[1], y[1], bin[3], dx[1];
	uint64_t i, a, b, ch, kh, kw, total = n * h * w * c;
	float *want;

	x[0] = arg2(HLRT_FP32, n * h, w * c);
	x[0].ndims = 4;
	x[0].dims[0] = n, x[0].dims[1] = h, x[0].dims[2] = w, x[0].dims[3] = c;
	fill_f32(&x[0], &s, -1, 1);
	/* a maximum shared by two overlapping windows */
	((float *)x[0].data)[(2 * w + 2) * c] = 7.0f;
	rt_run_op("maxpool2d_fwd_f32", x, 1, y, 1, &p, sizeof(p), 0);
	ck_assert_uint_eq(y[0].dims[1], oh);
	ck_assert_uint_eq(y[0].dims[2], ow);
	bin[0] = y[0];
	bin[1] = x[0];
	bin[2] = y[0];
	bin[0].data = malloc(4 * rt_arg_elems(&y[0]));
	fill_f32(&bin[0], &s, -1, 1);
	rt_run_op("maxpool2d_bwd_f32", bin, with_y ? 3 : 2, dx, 1, &p, sizeof(p), 0);
	want = calloc(total, sizeof(float));
	for (i = 0; i < n; i++)
		for (a = 0; a < oh; a++)
			for (b = 0; b < ow; b++)
				for (ch = 0; ch < c; ch++) {
					const float *xv = x[0].data;
					float m = -INFINITY, g = ((float *)bin[0].data)[((i * oh + a) * ow + b) * c + ch];
					bool given = false;

					for (kh = 0; kh < k; kh++)
						for (kw = 0; kw < k; kw++)
							m = fmaxf(m, xv[((i * h + a * st + kh) * w + b * st + kw) * c + ch]);
					ck_assert_float_eq(((float *)y[0].data)[((i * oh + a) * ow + b) * c + ch], m);
					for (kh = 0; kh < k && !given; kh++)
						for (kw = 0; kw < k && !given; kw++) {
							uint64_t at = ((i * h + a * st + kh) * w + b * st + kw) * c + ch;

							if (xv[at] == m) {
								want[at] += g;
								given = true;
							}
						}
				}
	for (i = 0; i < total; i++)
		ck_assert_msg(fabsf(((float *)dx[0].data)[i] - want[i]) <= 1e-6f,
			      "dx[%llu] %g, want %g", (unsigned long long)i,
			      ((float *)dx[0].data)[i], want[i]);
	free(want);
	free_args(x, 1);
	free_args(y, 1);
	free_args(bin, 1);
	free_args(dx, 1);
}

START_TEST(maxpool_overlapping_and_gapped_windows)
{
	pool_any_stride(3, 2, false);
	pool_any_stride(3, 2, true);
	pool_any_stride(2, 3, false);
}
END_TEST

/* pad2d_f32: zeros or -inf around, asymmetric; negative amounts crop. */
START_TEST(pad2d_pads_and_crops)
{
	static const struct hlrt_pad2d_params cases[] = {
		{ .top = 0, .bottom = 1, .left = 2, .right = 1 },
		{ .top = 1, .bottom = 2, .left = 0, .right = 3, .value = -INFINITY },
		{ .top = -1, .bottom = -2, .left = -3, .right = 0 },
	};
	uint64_t n = 2, h = 5, w = 6, c = 70, i, a, b, ch;
	uint32_t s = 23, k;

	for (k = 0; k < 3; k++) {
		const struct hlrt_pad2d_params *p = &cases[k];
		struct rt_arg x[1], y[1];
		uint64_t oh = h + p->top + p->bottom, ow = w + p->left + p->right;

		x[0] = arg2(HLRT_FP32, n * h, w * c);
		x[0].ndims = 4;
		x[0].dims[0] = n, x[0].dims[1] = h, x[0].dims[2] = w, x[0].dims[3] = c;
		fill_f32(&x[0], &s, -1, 1);
		rt_run_op("pad2d_f32", x, 1, y, 1, p, sizeof(*p), 0);
		ck_assert_uint_eq(y[0].dims[1], oh);
		ck_assert_uint_eq(y[0].dims[2], ow);
		for (i = 0; i < n; i++)
			for (a = 0; a < oh; a++)
				for (b = 0; b < ow; b++)
					for (ch = 0; ch < c; ch++) {
						int64_t sy = (int64_t)a - p->top, sx = (int64_t)b - p->left;
						float want = sy < 0 || sx < 0 || sy >= (int64_t)h ||
							     sx >= (int64_t)w ? p->value :
							     ((float *)x[0].data)[((i * h + (uint64_t)sy) * w +
										  (uint64_t)sx) * c + ch];

						expect_bits((float *)y[0].data + ((i * oh + a) * ow + b) * c + ch,
							    &want, 1, 4, "pad2d");
					}
		free_args(x, 1);
		free_args(y, 1);
	}
}
END_TEST

/*
 * log_softmax_fwd/bwd_f32 against the same binary32 operations in the
 * kernels' order (within 2 ulp: expf/logf), nll_loss_fwd/bwd_f32 exactly,
 * with an ignored label; div_f32 bit for bit, broadcasting.
 */
START_TEST(log_softmax_nll_div)
{
	uint32_t s = 4242, it;

	for (it = 0; it < ITERS; it++) {
		uint64_t b = 1 + rt_rand(&s) % 70, c = it == 2 ? 300 : 10, i, j;
		struct rt_arg x[1] = { arg2(HLRT_FP32, b, c) }, y[1], g[2], dx[1];
		struct rt_arg nin[2], nf[2], sin[2], nb[1];
		struct hlrt_nll_params np = { -100, (uint32_t)c };
		float sc = 0.375f;

		fill_f32(&x[0], &s, -4, 4);
		rt_run_op("log_softmax_fwd_f32", x, 1, y, 1, NULL, 0, 0);
		g[0] = arg2(HLRT_FP32, b, c);
		fill_f32(&g[0], &s, -1, 1);
		g[1] = y[0];
		rt_run_op("log_softmax_bwd_f32", g, 2, dx, 1, NULL, 0, 0);
		nin[0] = y[0];
		nin[1] = arg1(HLRT_INT32, b);
		fill_i32(&nin[1], &s, 0, (int32_t)c - 1);
		((int32_t *)nin[1].data)[b - 1] = -100;		/* ignored */
		rt_run_op("nll_loss_fwd_f32", nin, 2, nf, 2, &np, sizeof(np), 0);
		sin[0] = arg1(HLRT_FP32, 1);
		((float *)sin[0].data)[0] = sc;
		sin[1] = nin[1];
		rt_run_op("nll_loss_bwd_f32", sin, 2, nb, 1, &np, sizeof(np), 0);
		ck_assert_int_eq(nb[0].ndims, 2);
		ck_assert_int_eq(nb[0].dims[1], c);
		for (i = 0; i < b; i++) {
			const float *xr = (float *)x[0].data + i * c, *yr = (float *)y[0].data + i * c;
			const float *gr = (float *)g[0].data + i * c, *dr = (float *)dx[0].data + i * c;
			int32_t l = ((int32_t *)nin[1].data)[i];
			double m = -INFINITY, sum = 0, gsum = 0;

			for (j = 0; j < c; j++)
				m = fmax(m, xr[j]);
			for (j = 0; j < c; j++) {
				sum += exp(xr[j] - m);
				gsum += gr[j];
			}
			for (j = 0; j < c; j++) {
				double want = xr[j] - m - log(sum);
				double dwant = gr[j] - exp(yr[j]) * gsum;

				ck_assert_msg(fabs(yr[j] - want) <= 1e-5 * (1 + fabs(want)),
					      "log_softmax[%llu][%llu] = %g, expected %g",
					      (unsigned long long)i, (unsigned long long)j, yr[j], want);
				ck_assert_msg(fabs(dr[j] - dwant) <= 1e-5 * (1 + fabs(dwant)),
					      "dx[%llu][%llu] = %g, expected %g", (unsigned long long)i,
					      (unsigned long long)j, dr[j], dwant);
				ck_assert(((float *)nb[0].data)[i * c + j] ==
					  (l >= 0 && (int32_t)j == l ? -sc : 0.0f));
			}
			ck_assert(((float *)nf[0].data)[i] == (l >= 0 ? -yr[l] : 0.0f));
			ck_assert(((float *)nf[1].data)[i] == (l >= 0 ? 1.0f : 0.0f));
		}
		free_args(x, 1);
		free_args(g, 2);
		free_args(dx, 1);
		free_args(nin + 1, 1);
		free_args(nf, 2);
		free_args(sin, 1);
		free_args(nb, 1);
	}
	{
		static const uint64_t da[2] = { 7, 133 }, db[1] = { 133 };
		struct rt_arg in[2] = { argn(HLRT_FP32, 2, da), argn(HLRT_FP32, 1, db) }, q[1];
		uint64_t k;

		fill_f32(&in[0], &s, -3, 3);
		fill_f32(&in[1], &s, 0.5f, 4);
		rt_run_op("div_f32", in, 2, q, 1, NULL, 0, 0);
		for (k = 0; k < da[0] * da[1]; k++) {
			float r = 1.0f / ((float *)in[1].data)[k % da[1]];
			float want = ((float *)in[0].data)[k] * r;

			expect_bits((float *)q[0].data + k, &want, 1, 4, "div_f32");
		}
		free_args(in, 2);
		free_args(q, 1);
	}
}
END_TEST

/* ---- dropout and batch normalization ---------------------------------------- */

/* The keep rule of hlrt.h, written out here so that a change to either side shows. */
static uint32_t test_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

static bool test_keep(float rate, uint32_t seed, uint32_t step, uint32_t i)
{
	uint32_t key = test_fmix32(seed ^ test_fmix32(step + 0x9e3779b9u));

	return (test_fmix32(i ^ key) >> 8) >= (uint32_t)((double)rate * 16777216.0);
}

/*
 * dropout_f32 in training: the mask of the counter-based hash bit for bit
 * (and hlrt_dropout_keep agrees), the kept share near 1 - rate, another
 * step another mask; in eval the identity.
 */
START_TEST(dropout_train_and_eval)
{
	static const uint64_t d[3] = { 3, 5, 2777 };
	struct hlrt_dropout_params p = { .rate = 0.3f, .seed = 1234, .training = 1 };
	struct rt_arg in[2] = { argn(HLRT_FP32, 3, d), arg1(HLRT_INT32, 1) };
	struct rt_arg o1[2], o2[2], o3[2];
	uint64_t i, n = d[0] * d[1] * d[2], kept = 0, moved = 0;
	float scale = 1.0f / (1.0f - p.rate);
	uint32_t s = 99;

	fill_f32(&in[0], &s, -3, 3);
	((int32_t *)in[1].data)[0] = 7;
	rt_run_op("dropout_f32", in, 2, o1, 2, &p, sizeof(p), 0);
	((int32_t *)in[1].data)[0] = 8;
	rt_run_op("dropout_f32", in, 2, o2, 2, &p, sizeof(p), 0);
	p.training = 0;
	rt_run_op("dropout_f32", in, 2, o3, 2, &p, sizeof(p), 0);
	for (i = 0; i < n; i++) {
		bool k = test_keep(0.3f, 1234, 7, (uint32_t)i);
		float x = ((float *)in[0].data)[i], m = k ? scale : 0.0f, y = x * m, one = 1.0f;

		ck_assert_int_eq(hlrt_dropout_keep(0.3f, 1234, 7, (uint32_t)i), k);
		expect_bits((float *)o1[1].data + i, &m, 1, 4, "dropout mask");
		expect_bits((float *)o1[0].data + i, &y, 1, 4, "dropout y");
		expect_bits((float *)o3[0].data + i, &x, 1, 4, "dropout eval y");
		expect_bits((float *)o3[1].data + i, &one, 1, 4, "dropout eval mask");
		kept += k;
		moved += k != test_keep(0.3f, 1234, 8, (uint32_t)i);
		ck_assert(((float *)o2[1].data)[i] == (test_keep(0.3f, 1234, 8, (uint32_t)i) ?
						       scale : 0.0f));
	}
	ck_assert_msg(kept > n * 68 / 100 && kept < n * 72 / 100, "kept %llu of %llu",
		      (unsigned long long)kept, (unsigned long long)n);
	ck_assert_msg(moved > n / 4, "steps 7 and 8 differ in only %llu", (unsigned long long)moved);
	free_args(in, 2);
	free_args(o1, 2);
	free_args(o2, 2);
	free_args(o3, 2);
}
END_TEST

START_TEST(dropout_refuses_bad_rate)
{
	struct hlrt_dropout_params p = { .rate = 1.0f, .training = 1 };
	hlrt_tensor *x, *step;
	hlrt_graph *g;
	hlrt_node *n;
	struct hlrt_tensor_desc dx = { .name = "x", .dtype = HLRT_FP32, .ndims = 1, .dims = { 8 },
				       .role = HLRT_TENSOR_INPUT };
	struct hlrt_tensor_desc ds = { .name = "step", .dtype = HLRT_INT32, .ndims = 1,
				       .dims = { 1 }, .role = HLRT_TENSOR_INPUT };

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &dx, &x));
	HLRT_OK(hlrt_tensor_create(g, &ds, &step));
	{
		hlrt_tensor *in[2] = { x, step };

		ck_assert_int_eq(hlrt_node_create(g, "dropout_f32", in, 2, NULL, 0, &p, sizeof(p),
						  "d", &n), HLRT_INVALID_ARGUMENT);
		ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "rate 1 must be in [0, 1)"));
		in[1] = x;
		p.rate = 0.5f;
		ck_assert_int_eq(hlrt_node_create(g, "dropout_f32", in, 2, NULL, 0, &p, sizeof(p),
						  "d", &n), HLRT_INVALID_ARGUMENT);
	}
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* The kernels' arithmetic, operation by operation, rows in order. */
struct bn_ref {
	float mean, invstd, mm, mv;
};

static struct bn_ref bn_ref_stats(const float *x, uint64_t r, uint64_t c, uint64_t ch,
				  const struct hlrt_batchnorm_params *p, float mm, float mv)
{
	float inv_r = 1.0f / (float)r, sum = 0.0f, v = 0.0f, corr;
	struct bn_ref o = { .mm = mm, .mv = mv };
	uint64_t i;

	if (!p->training) {
		o.mean = mm;
		o.invstd = 1.0f / sqrtf(mv + p->epsilon);
		return o;
	}
	for (i = 0; i < r; i++)
		sum += x[i * c + ch];
	o.mean = sum * inv_r;
	for (i = 0; i < r; i++) {
		float dd = x[i * c + ch] - o.mean, sq = dd * dd;

		v = v + sq;
	}
	v = v * inv_r;
	corr = p->unbiased_moving_var && r > 1 ? (float)r / (float)(r - 1) : 1.0f;
	{
		float t = v * corr, u = t * (1.0f - p->momentum), w = mv * p->momentum;

		o.mv = w + u;
		t = mm * p->momentum;
		u = o.mean * (1.0f - p->momentum);
		o.mm = t + u;
	}
	o.invstd = 1.0f / sqrtf(v + p->epsilon);
	return o;
}

static void bn_case(bool training, bool unbiased)
{
	static const uint64_t d[3] = { 3, 5, 70 };	/* R = 15, C = 70: two channel tiles */
	struct hlrt_batchnorm_params p = { .momentum = 0.9f, .epsilon = 1e-3f,
					   .training = training, .unbiased_moving_var = unbiased };
	const uint64_t r = d[0] * d[1], c = d[2];
	struct rt_arg in[5] = { argn(HLRT_FP32, 3, d), arg1(HLRT_FP32, c), arg1(HLRT_FP32, c),
				arg1(HLRT_FP32, c), arg1(HLRT_FP32, c) };
	struct rt_arg bin[5], out[5], gout[3];
	const int fwd_map[5] = { -1, -1, -1, 3, 4 }, bwd_map[3] = { -1, -1, -1 };
	uint32_t s = training ? 5 : 6, k;
	uint64_t i, ch;
	float *x, *g, *b;

	fill_f32(&in[0], &s, -2, 3);
	fill_f32(&in[1], &s, 0.5f, 1.5f);
	fill_f32(&in[2], &s, -0.5f, 0.5f);
	fill_f32(&in[3], &s, -0.2f, 0.2f);
	fill_f32(&in[4], &s, 0.5f, 2.0f);
	x = in[0].data;
	g = in[1].data;
	b = in[2].data;
	{
		/* the moving statistics are updated in place: keep the old ones */
		float mm0[70], mv0[70];

		memcpy(mm0, in[3].data, sizeof(mm0));
		memcpy(mv0, in[4].data, sizeof(mv0));
		rt_run_op_map("batchnorm_fwd_f32", in, 5, out, training ? 5 : 3, &p, sizeof(p),
			      fwd_map);
		for (ch = 0; ch < c; ch++) {
			struct bn_ref ref = bn_ref_stats(x, r, c, ch, &p, mm0[ch], mv0[ch]);

			expect_bits((float *)out[1].data + ch, &ref.mean, 1, 4, "bn mean");
			expect_bits((float *)out[2].data + ch, &ref.invstd, 1, 4, "bn invstd");
			if (training) {
				expect_bits((float *)out[3].data + ch, &ref.mm, 1, 4, "bn moving mean");
				expect_bits((float *)out[4].data + ch, &ref.mv, 1, 4, "bn moving var");
			}
			for (i = 0; i < r; i++) {
				float y = (x[i * c + ch] - ref.mean) * ref.invstd;

				y = y * g[ch];
				y = y + b[ch];
				expect_bits((float *)out[0].data + i * c + ch, &y, 1, 4, "bn y");
			}
		}
	}
	/* backward from the forward's statistics */
	bin[0] = argn(HLRT_FP32, 3, d);
	fill_f32(&bin[0], &s, -1, 1);
	bin[1] = in[0];
	bin[2] = in[1];
	bin[3] = out[1];
	bin[4] = out[2];
	rt_run_op_map("batchnorm_bwd_f32", bin, 5, gout, 3, &p, sizeof(p), bwd_map);
	for (ch = 0; ch < c; ch++) {
		const float *dy = bin[0].data, mean = ((float *)out[1].data)[ch];
		float inv = ((float *)out[2].data)[ch], db = 0.0f, dg = 0.0f, k1, inv_r = 1.0f / (float)r;

		for (i = 0; i < r; i++) {
			float xh = (x[i * c + ch] - mean) * inv, pr = dy[i * c + ch] * xh;

			db = db + dy[i * c + ch];
			dg = dg + pr;
		}
		expect_bits((float *)gout[1].data + ch, &dg, 1, 4, "bn dgamma");
		expect_bits((float *)gout[2].data + ch, &db, 1, 4, "bn dbeta");
		k1 = g[ch] * inv;
		for (i = 0; i < r; i++) {
			float dx;

			if (training) {
				float a = dy[i * c + ch] - db * inv_r;
				float xh = (x[i * c + ch] - mean) * inv;

				xh = xh * (dg * inv_r);
				dx = (a - xh) * k1;
			} else {
				dx = dy[i * c + ch] * k1;
			}
			expect_bits((float *)gout[0].data + i * c + ch, &dx, 1, 4, "bn dx");
		}
	}
	for (k = 0; k < 5; k++)
		free(in[k].data);
	for (k = 0; k < (training ? 5u : 3u); k++)
		free(out[k].data);
	free(bin[0].data);
	free_args(gout, 3);
}

START_TEST(batchnorm_training)
{
	bn_case(true, false);
	bn_case(true, true);
}
END_TEST

START_TEST(batchnorm_eval)
{
	bn_case(false, false);
}
END_TEST

/* argmax_i64 on the TPC; equal_i64 on the CPU, broadcasting an INT64 constant. */
START_TEST(argmax_i64_on_device)
{
	uint32_t s = 777, it;

	for (it = 0; it < ITERS; it++) {
		uint64_t rows = 3 + rt_rand(&s) % 40, cols = it == 2 ? 300 : 7 + it, i, j;
		struct rt_arg x[1] = { arg2(HLRT_FP32, rows, cols) }, am[1];

		fill_f32(&x[0], &s, -5, 5);
		((float *)x[0].data)[cols - 1] = ((float *)x[0].data)[2] = 9.0f;	/* a tie */
		rt_run_op("argmax_i64", x, 1, am, 1, NULL, 0, 0);
		ck_assert_int_eq(am[0].dtype, HLRT_INT64);
		for (i = 0; i < rows; i++) {
			const float *row = (float *)x[0].data + i * cols;
			uint64_t best = 0;

			for (j = 1; j < cols; j++)
				if (row[j] > row[best])
					best = j;
			ck_assert_int_eq(((int64_t *)am[0].data)[i], (int64_t)best);
		}
		free_args(x, 1);
		free_args(am, 1);
	}
}
END_TEST

START_TEST(equal_i64_broadcasts_on_cpu)
{
	static const uint64_t ad[2] = { 6, 1 }, bd[1] = { 5 };
	struct rt_arg in[2] = { argn(HLRT_INT64, 2, ad), argn(HLRT_INT64, 1, bd) }, out[1];
	uint64_t i, j;

	for (i = 0; i < 6; i++)
		((int64_t *)in[0].data)[i] = (int64_t)i + ((int64_t)1 << 40);
	for (j = 0; j < 5; j++)	/* equal high words, so the low ones decide */
		((int64_t *)in[1].data)[j] = (int64_t)(j * 2) + ((int64_t)1 << 40);
	rt_run_op("equal_i64", in, 2, out, 1, NULL, 0, 0);
	ck_assert_uint_eq(out[0].ndims, 2);
	ck_assert_uint_eq(out[0].dims[0], 6);
	ck_assert_uint_eq(out[0].dims[1], 5);
	for (i = 0; i < 6; i++)
		for (j = 0; j < 5; j++)
			ck_assert_int_eq(((int32_t *)out[0].data)[i * 5 + j], i == j * 2);
	free_args(in, 2);
	free_args(out, 1);
}
END_TEST

Suite *kernels_suite(void)
{
	Suite *s = suite_create("kernels");
	TCase *tc = tcase_create("ops");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, binary_f32_ops, 0, 2);
	tcase_add_test(tc, add_i32_wraps);
	tcase_add_test(tc, bias_add_relu_scale);
	tcase_add_test(tc, equal_and_argmax);
	tcase_add_test(tc, casts);
	tcase_add_test(tc, reductions);
	tcase_add_test(tc, softmax_cross_entropy);
	tcase_add_test(tc, gather_rows);
	tcase_add_test(tc, gather_one_element_rows);
	tcase_add_test(tc, sgd_variants);
	tcase_add_test(tc, adamw_and_adagrad);
	tcase_add_loop_test(tc, gemm_family, 0, 4);
	tcase_add_test(tc, memcpy_and_memset);
	tcase_add_test(tc, softmax_and_batch_gemm);
	tcase_add_test(tc, batch_gemm_transposed_operands);
	tcase_add_loop_test(tc, conv2d_matches_direct_loops, 0, 3);
	tcase_add_test(tc, maxpool_fwd_bwd);
	tcase_add_loop_test(tc, broadcast_elementwise, 0,
			    (int)(sizeof(bc_cases) / sizeof(bc_cases[0])));
	tcase_add_test(tc, broadcast_refused);
	tcase_add_test(tc, square_and_where);
	tcase_add_test(tc, tanh_and_sigmoid);
	tcase_add_test(tc, log_softmax_nll_div);
	tcase_add_test(tc, dropout_train_and_eval);
	tcase_add_test(tc, maxpool_overlapping_and_gapped_windows);
	tcase_add_test(tc, pad2d_pads_and_crops);
	tcase_add_test(tc, dropout_refuses_bad_rate);
	tcase_add_test(tc, batchnorm_training);
	tcase_add_test(tc, batchnorm_eval);
	tcase_add_test(tc, argmax_i64_on_device);
	tcase_add_test(tc, equal_i64_broadcasts_on_cpu);
	suite_add_tcase(s, tc);
	return s;
}
