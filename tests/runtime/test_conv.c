// SPDX-License-Identifier: MIT
/*
 * Convolutions on the MME through libhlrt: conv2d_fwd / _dedx / _dedw
 * (strided, padded, with and without bias) against direct loops on the
 * host; autodiff of a strided convolution against finite differences;
 * bad geometries refused with a clear error; the max-pooling gradient
 * given the forward's output equals the one that recomputes the maxima;
 * the BF16 convolutions equal the FP32 ones of BF16-rounded operands, and
 * BF16 autocast turns a graph's convolutions into them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

struct geo {
	uint64_t n, h, w, c, f, kh, kw, sh, sw, ph, pw, oh, ow;
};

static const struct geo cases[] = {
	/* n  h   w  c  f kh kw sh sw ph pw (oh ow: computed) */
	{ 2, 9, 7, 3, 4, 3, 3, 2, 2, 1, 1, 0, 0 },
	{ 1, 12, 10, 1, 5, 5, 5, 3, 2, 2, 0, 0, 0 },
	{ 3, 6, 11, 4, 2, 2, 3, 1, 3, 0, 2, 0, 0 },
	{ 2, 28, 28, 1, 8, 5, 5, 1, 1, 2, 2, 0, 0 },	/* LeNet's first layer */
	{ 2, 14, 14, 8, 16, 5, 5, 1, 1, 0, 0, 0, 0 },	/* and its second */
};

static void finish(struct geo *g)
{
	g->oh = (g->h + 2 * g->ph - g->kh) / g->sh + 1;
	g->ow = (g->w + 2 * g->pw - g->kw) / g->sw + 1;
}

static struct rt_arg arg_random(uint32_t nd, const uint64_t *dims, uint32_t *s)
{
	struct rt_arg r = { .dtype = HLRT_FP32, .ndims = nd };
	uint64_t i;

	memcpy(r.dims, dims, nd * sizeof(uint64_t));
	r.data = malloc(4 * rt_arg_elems(&r));
	ck_assert_ptr_nonnull(r.data);
	for (i = 0; i < rt_arg_elems(&r); i++)
		((float *)r.data)[i] = rt_randf(s, -1, 1);
	return r;
}

/* Input index of a tap, or -1 in the padding. */
static int64_t x_at(const struct geo *g, uint64_t n, uint64_t y, uint64_t x, uint64_t kh,
		    uint64_t kw, uint64_t c)
{
	int64_t ih = (int64_t)(y * g->sh + kh) - (int64_t)g->ph;
	int64_t iw = (int64_t)(x * g->sw + kw) - (int64_t)g->pw;

	if (ih < 0 || iw < 0 || ih >= (int64_t)g->h || iw >= (int64_t)g->w)
		return -1;
	return (int64_t)((((n * g->h + (uint64_t)ih) * g->w + (uint64_t)iw) * g->c) + c);
}

/* y, dx and dw of the direct loops, in double, with the magnitudes summed too. */
static void reference(const struct geo *g, const float *x, const float *w, const float *dy,
		      double *y, double *ym, double *dx, double *dxm, double *dw, double *dwm)
{
	uint64_t n, a, b, kh, kw, c, f;

	memset(y, 0, sizeof(double) * g->n * g->oh * g->ow * g->f);
	memset(ym, 0, sizeof(double) * g->n * g->oh * g->ow * g->f);
	memset(dx, 0, sizeof(double) * g->n * g->h * g->w * g->c);
	memset(dxm, 0, sizeof(double) * g->n * g->h * g->w * g->c);
	memset(dw, 0, sizeof(double) * g->kh * g->kw * g->c * g->f);
	memset(dwm, 0, sizeof(double) * g->kh * g->kw * g->c * g->f);
	for (n = 0; n < g->n; n++)
		for (a = 0; a < g->oh; a++)
			for (b = 0; b < g->ow; b++)
				for (kh = 0; kh < g->kh; kh++)
					for (kw = 0; kw < g->kw; kw++)
						for (c = 0; c < g->c; c++) {
							int64_t xi = x_at(g, n, a, b, kh, kw, c);

							if (xi < 0)
								continue;
							for (f = 0; f < g->f; f++) {
								uint64_t yi = ((n * g->oh + a) * g->ow + b) * g->f + f;
								uint64_t wi = ((kh * g->kw + kw) * g->c + c) * g->f + f;

								y[yi] += (double)x[xi] * w[wi];
								ym[yi] += fabs((double)x[xi] * w[wi]);
								dx[xi] += (double)dy[yi] * w[wi];
								dxm[xi] += fabs((double)dy[yi] * w[wi]);
								dw[wi] += (double)x[xi] * dy[yi];
								dwm[wi] += fabs((double)x[xi] * dy[yi]);
							}
						}
}

static void expect_close(const char *what, const float *got, const double *want,
			 const double *mag, uint64_t count, double len, int i)
{
	uint64_t e;

	for (e = 0; e < count; e++)
		ck_assert_msg(fabs(got[e] - want[e]) <= (len + 3) * 0x1p-24 * (mag[e] + 1e-30) * 1.01,
			      "case %d %s[%llu] = %.9g, expected %.9g", i, what,
			      (unsigned long long)e, got[e], want[e]);
}

START_TEST(conv_ops_match_direct_loops)
{
	struct geo g = cases[_i];
	struct hlrt_conv_params p;
	struct rt_arg in[3], out[1];
	uint64_t ny, nx, nw, i;
	double *y, *ym, *dx, *dxm, *dw, *dwm;
	uint32_t s = 71 + (uint32_t)_i;
	const uint64_t xd[4] = { g.n, g.h, g.w, g.c };

	finish(&g);
	p = (struct hlrt_conv_params){ .kernel_h = (uint32_t)g.kh, .kernel_w = (uint32_t)g.kw,
				       .stride_h = (uint32_t)g.sh, .stride_w = (uint32_t)g.sw,
				       .pad_h = (uint32_t)g.ph, .pad_w = (uint32_t)g.pw };
	{
		const uint64_t wd[4] = { g.kh, g.kw, g.c, g.f }, yd[4] = { g.n, g.oh, g.ow, g.f };

		in[0] = arg_random(4, xd, &s);
		in[1] = arg_random(4, wd, &s);
		in[2] = arg_random(4, yd, &s);	/* dy */
	}
	ny = g.n * g.oh * g.ow * g.f;
	nx = g.n * g.h * g.w * g.c;
	nw = g.kh * g.kw * g.c * g.f;
	y = malloc(8 * ny), ym = malloc(8 * ny);
	dx = malloc(8 * nx), dxm = malloc(8 * nx);
	dw = malloc(8 * nw), dwm = malloc(8 * nw);
	ck_assert(y && ym && dx && dxm && dw && dwm);
	reference(&g, in[0].data, in[1].data, in[2].data, y, ym, dx, dxm, dw, dwm);

	/* forward, with a bias */
	{
		struct rt_arg fin[3] = { in[0], in[1], { .dtype = HLRT_FP32, .ndims = 1,
							 .dims = { g.f } } };
		fin[2].data = calloc(g.f, 4);
		for (i = 0; i < g.f; i++)
			((float *)fin[2].data)[i] = (float)i - 1.5f;
		rt_run_op("conv2d_fwd_f32", fin, 3, out, 1, &p, sizeof(p), 0);
		ck_assert_uint_eq(out[0].dims[1], g.oh);
		ck_assert_uint_eq(out[0].dims[2], g.ow);
		for (i = 0; i < ny; i++) {
			y[i] += (double)((float)(i % g.f) - 1.5f);
			ym[i] += fabs((float)(i % g.f) - 1.5f);
		}
		expect_close("y", out[0].data, y, ym, ny, (double)(g.kh * g.kw * g.c + 1), _i);
		free(fin[2].data);
		free(out[0].data);
	}
	/* dedx: dx's shape is the smallest that gives dy's */
	{
		struct rt_arg din[2] = { in[2], in[1] };
		uint64_t hh = (g.oh - 1) * g.sh + g.kh - 2 * g.ph;
		uint64_t ww = (g.ow - 1) * g.sw + g.kw - 2 * g.pw, n, a, b, c;

		rt_run_op("conv2d_dedx_f32", din, 2, out, 1, &p, sizeof(p), 0);
		ck_assert_uint_eq(out[0].dims[1], hh);
		ck_assert_uint_eq(out[0].dims[2], ww);
		for (n = 0; n < g.n; n++)
			for (a = 0; a < hh; a++)
				for (b = 0; b < ww; b++)
					for (c = 0; c < g.c; c++) {
						uint64_t gi = ((n * hh + a) * ww + b) * g.c + c;
						uint64_t ri = ((n * g.h + a) * g.w + b) * g.c + c;

						expect_close("dx", (const float *)out[0].data + gi,
							     dx + ri, dxm + ri, 1,
							     (double)(g.kh * g.kw * g.f), _i);
					}
		free(out[0].data);
	}
	/* dedw */
	{
		struct rt_arg win[2] = { in[2], in[0] };

		rt_run_op("conv2d_dedw_f32", win, 2, out, 1, &p, sizeof(p), 0);
		ck_assert_uint_eq(out[0].dims[3], g.f);
		expect_close("dw", out[0].data, dw, dwm, nw, (double)(g.n * g.oh * g.ow), _i);
		free(out[0].data);
	}
	for (i = 0; i < 3; i++)
		free(in[i].data);
	free(y), free(ym), free(dx), free(dxm), free(dw), free(dwm);
}
END_TEST

/* loss = sce(reshape(conv(x, w, b; stride 2, pad 1)), labels): every gradient against FD. */
START_TEST(strided_conv_gradients_match_finite_differences)
{
	struct hlrt_tensor_desc xd = { .name = "x", .dtype = HLRT_FP32, .ndims = 4,
				       .dims = { 3, 5, 6, 2 }, .role = HLRT_TENSOR_PARAMETER };
	struct hlrt_tensor_desc wd = { .name = "w", .dtype = HLRT_FP32, .ndims = 4,
				       .dims = { 3, 3, 2, 2 }, .role = HLRT_TENSOR_PARAMETER };
	struct hlrt_tensor_desc bd = { .name = "b", .dtype = HLRT_FP32, .ndims = 1,
				       .dims = { 2 }, .role = HLRT_TENSOR_PARAMETER };
	struct hlrt_tensor_desc ld = { .name = "labels", .dtype = HLRT_INT32, .ndims = 1,
				       .dims = { 3 }, .role = HLRT_TENSOR_INPUT };
	struct hlrt_tensor_desc lossd = { .name = "loss", .dtype = HLRT_FP32, .ndims = 1,
					  .dims = { 1 }, .role = HLRT_TENSOR_OUTPUT };
	/* y: [3, 3, 3, 2] -> logits [3, 18] */
	struct hlrt_conv_params cp = { .kernel_h = 3, .kernel_w = 3, .stride_h = 2,
				       .stride_w = 2, .pad_h = 1, .pad_w = 1 };
	struct hlrt_reshape_params fl = { .ndims = 2, .dims = { 3, 18 } };
	struct hlrt_compile_options opts = { .no_cache = 1 };
	int32_t labels[3] = { 4, 17, 0 };
	struct rt_binding_set bs = { 0 };
	hlrt_tensor *p[3], *grads[3], *lab, *loss, *in[3], *y;
	uint32_t s = 5, k, i;
	float *pv[3], *gv[3];
	uint64_t bytes[3];
	hlrt_recipe *r;
	hlrt_graph *g;
	hlrt_node *n;

	HLRT_OK(hlrt_graph_create(&g));
	HLRT_OK(hlrt_tensor_create(g, &xd, &p[0]));
	HLRT_OK(hlrt_tensor_create(g, &wd, &p[1]));
	HLRT_OK(hlrt_tensor_create(g, &bd, &p[2]));
	HLRT_OK(hlrt_tensor_create(g, &ld, &lab));
	HLRT_OK(hlrt_tensor_create(g, &lossd, &loss));
	HLRT_OK(hlrt_node_create(g, "conv2d_fwd_f32", p, 3, NULL, 0, &cp, sizeof(cp), "conv", &n));
	y = hlrt_node_output(n, 0);
	HLRT_OK(hlrt_node_create(g, "reshape", &y, 1, NULL, 0, &fl, sizeof(fl), "flat", &n));
	in[0] = hlrt_node_output(n, 0);
	in[1] = lab;
	{
		hlrt_tensor *outs[2] = { loss, NULL };

		HLRT_OK(hlrt_node_create(g, "softmax_cross_entropy_fwd_f32", in, 2, outs, 2, NULL,
					 0, "loss", &n));
	}
	HLRT_OK(hlrt_graph_gradients(g, loss, p, 3, grads));
	for (k = 0; k < 3; k++)
		HLRT_OK(hlrt_tensor_set_role(grads[k], HLRT_TENSOR_OUTPUT));
	HLRT_OK(hlrt_graph_compile(g, &opts, &r));
	rt_bind_all(r, &bs);
	HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, "labels"), labels, sizeof(labels)));
	for (k = 0; k < 3; k++) {
		bytes[k] = hlrt_tensor_bytes(p[k]);
		pv[k] = malloc(bytes[k]);
		gv[k] = malloc(bytes[k]);
		ck_assert(pv[k] && gv[k]);
		for (i = 0; i < bytes[k] / 4; i++)
			pv[k][i] = rt_randf(&s, -1.5f, 1.5f);
		HLRT_OK(hlrt_memcpy_h2d(rt_dev, rt_addr_of(&bs, hlrt_tensor_name(p[k])), pv[k],
					bytes[k]));
	}
	rt_run(r, &bs);
	for (k = 0; k < 3; k++)
		rt_download(gv[k], rt_addr_of(&bs, hlrt_tensor_name(grads[k])), bytes[k]);
	for (k = 0; k < 3; k++)
		for (i = 0; i < bytes[k] / 4; i++) {
			const float h = 1e-2f;
			float save = pv[k][i], lp, lm;
			uint64_t addr = rt_addr_of(&bs, hlrt_tensor_name(p[k])) + 4ull * i;
			double fd;

			pv[k][i] = save + h;
			HLRT_OK(hlrt_memcpy_h2d(rt_dev, addr, &pv[k][i], 4));
			rt_run(r, &bs);
			rt_download(&lp, rt_addr_of(&bs, "loss"), 4);
			pv[k][i] = save - h;
			HLRT_OK(hlrt_memcpy_h2d(rt_dev, addr, &pv[k][i], 4));
			rt_run(r, &bs);
			rt_download(&lm, rt_addr_of(&bs, "loss"), 4);
			HLRT_OK(hlrt_memcpy_h2d(rt_dev, addr, &save, 4));
			pv[k][i] = save;
			fd = ((double)lp - lm) / (2.0 * h);
			ck_assert_msg(fabs(fd - gv[k][i]) <= 2e-3 + 2e-2 * fabs(fd),
				      "%s[%u]: gradient %g, finite difference %g",
				      hlrt_tensor_name(p[k]), i, gv[k][i], fd);
		}
	for (k = 0; k < 3; k++) {
		free(pv[k]);
		free(gv[k]);
	}
	HLRT_OK(hlrt_recipe_destroy(r));
	HLRT_OK(hlrt_graph_destroy(g));
}
END_TEST

/* Bad geometries: a clear error at node creation or compile, never a device fault. */
START_TEST(bad_conv_geometries_refused)
{
	struct hlrt_tensor_desc xd = { .name = "x", .dtype = HLRT_FP32, .ndims = 4,
				       .dims = { 1, 4, 4, 1 }, .role = HLRT_TENSOR_INPUT };
	struct hlrt_tensor_desc wd = { .name = "w", .dtype = HLRT_FP32, .ndims = 4,
				       .dims = { 3, 3, 1, 2 }, .role = HLRT_TENSOR_INPUT };
	static const struct hlrt_conv_params bad[] = {
		{ .kernel_h = 0, .kernel_w = 3 },			/* no kernel */
		{ .kernel_h = 3, .kernel_w = 3, .pad_h = 3 },		/* padding >= kernel */
		{ .kernel_h = 5, .kernel_w = 3 },			/* does not fit, != w */
		{ .kernel_h = 3, .kernel_w = 3, .stride_h = 300 },	/* stride too large */
	};
	hlrt_tensor *in[2];
	hlrt_graph *g;
	hlrt_node *n;
	uint32_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hlrt_status st;

		HLRT_OK(hlrt_graph_create(&g));
		HLRT_OK(hlrt_tensor_create(g, &xd, &in[0]));
		HLRT_OK(hlrt_tensor_create(g, &wd, &in[1]));
		st = hlrt_node_create(g, "conv2d_fwd_f32", in, 2, NULL, 0, &bad[i], sizeof(bad[i]),
				      "conv", &n);
		ck_assert_msg(st != HLRT_SUCCESS, "case %u accepted", i);
		ck_assert_msg(strstr(hlrt_last_error(), "conv") || strstr(hlrt_last_error(), "kernel"),
			      "case %u: unclear error \"%s\"", i, hlrt_last_error());
		HLRT_OK(hlrt_graph_destroy(g));
	}
}
END_TEST

/*
 * maxpool2d_bwd_f32 given the forward's y: the same bits as recomputing
 * the maxima, ties too; with the channels on the lanes (3 images of 5
 * columns of 5 channels) and with the images (70 images of 3 columns).
 */
START_TEST(maxpool_bwd_with_y_matches_recompute)
{
	const uint64_t shapes[2][4] = { { 3, 8, 11, 5 }, { 70, 8, 6, 3 } };
	struct hlrt_pool_params p = { .kernel_h = 2, .kernel_w = 2 };
	uint32_t s = 29;

	for (unsigned int c = 0; c < 2; c++) {
		struct rt_arg x, y[1], in[3], dx2[1], dx3[1];
		uint64_t i;

		x = arg_random(4, shapes[c], &s);
		for (i = 0; i < rt_arg_elems(&x); i += 7)	/* ties inside windows */
			((float *)x.data)[i] = 0.5f;
		rt_run_op("maxpool2d_fwd_f32", &x, 1, y, 1, &p, sizeof(p), 0);
		in[0] = arg_random(4, y[0].dims, &s);
		in[1] = x;
		in[2] = y[0];
		rt_run_op("maxpool2d_bwd_f32", in, 2, dx2, 1, &p, sizeof(p), 0);
		rt_run_op("maxpool2d_bwd_f32", in, 3, dx3, 1, &p, sizeof(p), 0);
		ck_assert_mem_eq(dx2[0].data, dx3[0].data, 4 * rt_arg_elems(&x));
		free(x.data);
		free(y[0].data);
		free(in[0].data);
		free(dx2[0].data);
		free(dx3[0].data);
	}
}
END_TEST

/* The BF16 bits of f (round to nearest even), and f rounded to them. */
static uint16_t to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static struct rt_arg bf16_of(const struct rt_arg *a, struct rt_arg *rounded)
{
	struct rt_arg b = *a;
	uint64_t i, n = rt_arg_elems(a);

	b.dtype = HLRT_BF16;
	b.data = malloc(2 * n);
	*rounded = *a;
	rounded->data = malloc(4 * n);
	ck_assert(b.data && rounded->data);
	for (i = 0; i < n; i++) {
		uint32_t u = (uint32_t)to_bf16(((const float *)a->data)[i]) << 16;

		((uint16_t *)b.data)[i] = (uint16_t)(u >> 16);
		memcpy((float *)rounded->data + i, &u, 4);
	}
	return b;
}

/*
 * conv2d_*_bf16: the MME widens BF16 operands exactly and sums in FP32 in
 * a fixed order, so each result has the bits of the FP32 operation on the
 * operands rounded to BF16 (and not those of the FP32 operation itself).
 */
START_TEST(bf16_conv_equals_fp32_of_rounded_operands)
{
	struct geo g = cases[_i];
	struct hlrt_conv_params p;
	struct rt_arg x, w, dy, xr, wr, dyr, xb, wb, dyb, bias, o16[1], o32[1], oex[1];
	uint32_t s = 113 + (uint32_t)_i;
	const uint64_t xd[4] = { g.n, g.h, g.w, g.c };
	uint64_t i;

	finish(&g);
	p = (struct hlrt_conv_params){ .kernel_h = (uint32_t)g.kh, .kernel_w = (uint32_t)g.kw,
				       .stride_h = (uint32_t)g.sh, .stride_w = (uint32_t)g.sw,
				       .pad_h = (uint32_t)g.ph, .pad_w = (uint32_t)g.pw };
	{
		const uint64_t wd[4] = { g.kh, g.kw, g.c, g.f }, yd[4] = { g.n, g.oh, g.ow, g.f };

		x = arg_random(4, xd, &s);
		w = arg_random(4, wd, &s);
		dy = arg_random(4, yd, &s);
		bias = arg_random(1, &g.f, &s);
	}
	xb = bf16_of(&x, &xr);
	wb = bf16_of(&w, &wr);
	dyb = bf16_of(&dy, &dyr);
	{
		const struct {
			const char *f32, *bf16;
			struct rt_arg in32[3], in16[3], exact[3];
			uint32_t n_in;
		} ops[3] = {
			{ "conv2d_fwd_f32", "conv2d_fwd_bf16", { xr, wr, bias }, { xb, wb, bias },
			  { x, w, bias }, 3 },
			{ "conv2d_dedx_f32", "conv2d_dedx_bf16", { dyr, wr }, { dyb, wb },
			  { dy, w }, 2 },
			{ "conv2d_dedw_f32", "conv2d_dedw_bf16", { dyr, xr }, { dyb, xb },
			  { dy, x }, 2 },
		};

		for (i = 0; i < 3; i++) {
			rt_run_op(ops[i].bf16, ops[i].in16, ops[i].n_in, o16, 1, &p, sizeof(p), 0);
			rt_run_op(ops[i].f32, ops[i].in32, ops[i].n_in, o32, 1, &p, sizeof(p), 0);
			rt_run_op(ops[i].f32, ops[i].exact, ops[i].n_in, oex, 1, &p, sizeof(p), 0);
			ck_assert_int_eq(o16[0].dtype, HLRT_FP32);
			ck_assert_uint_eq(rt_arg_elems(&o16[0]), rt_arg_elems(&o32[0]));
			ck_assert_msg(!memcmp(o16[0].data, o32[0].data, 4 * rt_arg_elems(&o32[0])),
				      "case %d %s differs from %s of rounded operands", _i,
				      ops[i].bf16, ops[i].f32);
			ck_assert_msg(memcmp(o16[0].data, oex[0].data, 4 * rt_arg_elems(&oex[0])),
				      "case %d %s has the unrounded FP32 result", _i, ops[i].bf16);
			free(oex[0].data);
			/* autocast (HLRT_BF16=1) makes the FP32 op of exact operands the BF16 one */
			setenv("HLRT_BF16", "1", 1);
			rt_run_op(ops[i].f32, ops[i].exact, ops[i].n_in, oex, 1, &p, sizeof(p), 0);
			unsetenv("HLRT_BF16");
			ck_assert_msg(!memcmp(o16[0].data, oex[0].data, 4 * rt_arg_elems(&oex[0])),
				      "case %d: autocast left %s in FP32", _i, ops[i].f32);
			free(o16[0].data);
			free(o32[0].data);
			free(oex[0].data);
		}
	}
	/* a BF16 convolution refuses FP32 operands, and the FP32 one BF16 operands */
	{
		hlrt_graph *gr;
		hlrt_tensor *in[2];
		hlrt_node *n;
		struct hlrt_tensor_desc d32 = { .name = "x", .dtype = HLRT_FP32, .ndims = 4 };
		struct hlrt_tensor_desc d16 = { .name = "w", .dtype = HLRT_BF16, .ndims = 4 };

		memcpy(d32.dims, xd, sizeof(xd));
		d16.dims[0] = g.kh, d16.dims[1] = g.kw, d16.dims[2] = g.c, d16.dims[3] = g.f;
		HLRT_OK(hlrt_graph_create(&gr));
		HLRT_OK(hlrt_tensor_create(gr, &d32, &in[0]));
		HLRT_OK(hlrt_tensor_create(gr, &d16, &in[1]));
		ck_assert_int_ne(hlrt_node_create(gr, "conv2d_fwd_bf16", in, 2, NULL, 0, &p,
						  sizeof(p), "c16", &n), HLRT_SUCCESS);
		ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "BF16"));
		ck_assert_int_ne(hlrt_node_create(gr, "conv2d_fwd_f32", in, 2, NULL, 0, &p,
						  sizeof(p), "c32", &n), HLRT_SUCCESS);
		HLRT_OK(hlrt_graph_destroy(gr));
	}
	free(x.data), free(w.data), free(dy.data), free(bias.data);
	free(xr.data), free(wr.data), free(dyr.data);
	free(xb.data), free(wb.data), free(dyb.data);
}
END_TEST

Suite *conv_suite(void)
{
	Suite *s = suite_create("conv");
	TCase *tc = tcase_create("conv");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, conv_ops_match_direct_loops, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, strided_conv_gradients_match_finite_differences);
	tcase_add_test(tc, bad_conv_geometries_refused);
	tcase_add_test(tc, maxpool_bwd_with_y_matches_recompute);
	tcase_add_loop_test(tc, bf16_conv_equals_fp32_of_rounded_operands, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	suite_add_tcase(s, tc);
	return s;
}
