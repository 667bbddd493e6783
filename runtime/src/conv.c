// SPDX-License-Identifier: MIT
/*
 * Convolution and pooling, NHWC: a conv2d node expands into im2col on
 * the TPCs, a GEMM on the MME and a bias_add, so autodiff and the
 * compiler see only primitive ops; im2col's gradient is col2im. Shape
 * rules, lowerings (tensor views for the kernels) and gradient rules of
 * im2col, col2im and max pooling live here. Stride 1 convolutions and
 * non-overlapping pooling windows for the gradient are supported.
 */
#include <stdio.h>
#include <string.h>

#include "conv.h"
#include "hlrt_internal.h"

struct geom {
	uint64_t n, h, w, c, kh, kw, oh, ow, ph, pw;
};

static hlrt_status conv_geom(const char *guid, const hlrt_tensor *x,
			     const struct hlrt_conv_params *p, struct geom *g)
{
	if (x->ndims != 4 || x->dtype != HLRT_FP32)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: \"%s\" must be FP32 [N,H,W,C]", guid,
				 x->name);
	if ((p->stride_h > 1) || (p->stride_w > 1))
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: only stride 1 is implemented", guid);
	if (!p->kernel_h || !p->kernel_w)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: kernel size 0", guid);
	g->n = x->dims[0];
	g->h = x->dims[1];
	g->w = x->dims[2];
	g->c = x->dims[3];
	g->kh = p->kernel_h;
	g->kw = p->kernel_w;
	g->ph = p->pad_h;
	g->pw = p->pad_w;
	if (g->h + 2 * g->ph < g->kh || g->w + 2 * g->pw < g->kw || g->ph >= g->kh ||
	    g->pw >= g->kw)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: kernel %llux%llu, padding %llu,%llu "
				 "do not fit a %llux%llu input", guid,
				 (unsigned long long)g->kh, (unsigned long long)g->kw,
				 (unsigned long long)g->ph, (unsigned long long)g->pw,
				 (unsigned long long)g->h, (unsigned long long)g->w);
	g->oh = g->h + 2 * g->ph - g->kh + 1;
	g->ow = g->w + 2 * g->pw - g->kw + 1;
	return HLRT_SUCCESS;
}

static void set_desc(struct hlrt_tensor_desc *d, hlrt_dtype dt, uint32_t nd, uint64_t a,
		     uint64_t b, uint64_t c, uint64_t e)
{
	d->dtype = dt;
	d->ndims = nd;
	d->dims[0] = a;
	d->dims[1] = b;
	d->dims[2] = c;
	d->dims[3] = e;
}

hlrt_status infer_im2col(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	struct geom g;
	hlrt_status st = conv_geom(n->guid, n->in[0], (const void *)n->params, &g);

	if (st)
		return st;
	set_desc(&o[0], HLRT_FP32, 2, g.n * g.oh * g.ow, g.kh * g.kw * g.c, 0, 0);
	return HLRT_SUCCESS;
}

hlrt_status infer_col2im(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct hlrt_col2im_params *p = (const void *)n->params;
	struct hlrt_tensor x = { .dtype = HLRT_FP32, .ndims = 4,
				 .dims = { p->n, p->h, p->w, p->c } };
	const hlrt_tensor *dc = n->in[0];
	struct geom g;
	hlrt_status st;

	snprintf(x.name, sizeof(x.name), "dx");
	st = conv_geom(n->guid, &x, &p->conv, &g);
	if (st)
		return st;
	if (dc->dtype != HLRT_FP32 || dc->ndims != 2 || dc->dims[0] != g.n * g.oh * g.ow ||
	    dc->dims[1] != g.kh * g.kw * g.c)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: dcols must be FP32 [%llu, %llu]",
				 n->guid, (unsigned long long)(g.n * g.oh * g.ow),
				 (unsigned long long)(g.kh * g.kw * g.c));
	set_desc(&o[0], HLRT_FP32, 4, g.n, g.h, g.w, g.c);
	return HLRT_SUCCESS;
}

static hlrt_status pool_geom(const struct hlrt_node *n, const hlrt_tensor *x, struct geom *g,
			     uint64_t *s)
{
	const struct hlrt_pool_params *p = (const void *)n->params;

	if (x->ndims != 4 || x->dtype != HLRT_FP32)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: \"%s\" must be FP32 [N,H,W,C]",
				 n->guid, x->name);
	if (!n->params_size || !p->kernel_h || !p->kernel_w)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: give the pool size", n->guid);
	if ((p->stride_h ? p->stride_h : p->kernel_h) != (p->stride_w ? p->stride_w : p->kernel_w))
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: strides must be equal", n->guid);
	*s = p->stride_h ? p->stride_h : p->kernel_h;
	g->n = x->dims[0];
	g->h = x->dims[1];
	g->w = x->dims[2];
	g->c = x->dims[3];
	g->kh = p->kernel_h;
	g->kw = p->kernel_w;
	if (g->h < g->kh || g->w < g->kw)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: window larger than the input",
				 n->guid);
	g->oh = (g->h - g->kh) / *s + 1;
	g->ow = (g->w - g->kw) / *s + 1;
	return HLRT_SUCCESS;
}

hlrt_status infer_maxpool_fwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	struct geom g;
	uint64_t s;
	hlrt_status st = pool_geom(n, n->in[0], &g, &s);

	if (st)
		return st;
	set_desc(&o[0], HLRT_FP32, 4, g.n, g.oh, g.ow, g.c);
	return HLRT_SUCCESS;
}

hlrt_status infer_maxpool_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const hlrt_tensor *dy = n->in[0], *x = n->in[1];
	struct geom g;
	uint64_t s;
	hlrt_status st = pool_geom(n, x, &g, &s);

	if (st)
		return st;
	if (s != g.kh || s != g.kw)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: the gradient needs windows that do not "
				 "overlap (stride = pool size)", n->guid);
	if (dy->ndims != 4 || dy->dims[0] != g.n || dy->dims[1] != g.oh || dy->dims[2] != g.ow ||
	    dy->dims[3] != g.c || dy->dtype != HLRT_FP32)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: dy must have the pooled shape", n->guid);
	set_desc(&o[0], HLRT_FP32, 4, g.n, g.h, g.w, g.c);
	return HLRT_SUCCESS;
}

/* ---- lowering ---------------------------------------------------------------- */

static hlrt_status tpc(struct lower_ctx *lc, const char *kernel, struct rwork **out)
{
	struct rwork *w;
	hlrt_status st = lower_new_work(lc, ENG_TPC, &w);

	if (!st)
		st = hlrt_recipe_kernel(lc->cs->r, kernel, &w->kernel);
	if (st)
		return st;
	*out = w;
	return HLRT_SUCCESS;
}

/* x as {w, c, h, n} and cols as {ow, kw*C + c, kh, oh, n}. */
static void x_view(const struct geom *g, uint64_t *size, uint64_t *stride)
{
	const uint64_t sz[4] = { g->w, g->c, g->h, g->n };
	const uint64_t st[4] = { g->c, 1, g->w * g->c, g->h * g->w * g->c };

	memcpy(size, sz, sizeof(sz));
	memcpy(stride, st, sizeof(st));
}

static void cols_view(const struct geom *g, uint64_t *size, uint64_t *stride)
{
	uint64_t k = g->kh * g->kw * g->c;
	const uint64_t sz[5] = { g->ow, g->kw * g->c, g->kh, g->oh, g->n };
	const uint64_t st[5] = { k, 1, g->kw * g->c, g->ow * k, g->oh * g->ow * k };

	memcpy(size, sz, sizeof(sz));
	memcpy(stride, st, sizeof(st));
}

hlrt_status lower_im2col(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	uint64_t xs[4], xt[4], cs[5], ct[5];
	struct rwork *w;
	struct geom g;
	hlrt_status st = conv_geom(n->guid, n->in[0], (const void *)n->params, &g);

	if (!st)
		st = tpc(lc, "im2col_f32", &w);
	if (st)
		return st;
	x_view(&g, xs, xt);
	cols_view(&g, cs, ct);
	lower_tdesc(lc, w, 0, n->in[0], xs, xt, 4, 0, false);
	lower_tdesc(lc, w, 1, n->out[0], cs, ct, 5, 0, true);
	w->ispace[0] = (uint32_t)g.c;
	w->ispace[1] = (uint32_t)g.kw;
	w->ispace[2] = (uint32_t)g.kh;
	w->ispace[3] = (uint32_t)g.oh;
	w->ispace[4] = (uint32_t)g.n;
	w->n_args = 3;
	w->args[0] = (uint32_t)g.pw;
	w->args[1] = (uint32_t)g.ph;
	w->args[2] = (uint32_t)g.c;
	return HLRT_SUCCESS;
}

hlrt_status lower_col2im(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	const struct hlrt_col2im_params *p = (const void *)n->params;
	struct hlrt_tensor x = { .dtype = HLRT_FP32, .ndims = 4,
				 .dims = { p->n, p->h, p->w, p->c } };
	uint64_t xs[4], xt[4], cs[5], ct[5];
	struct rwork *w;
	struct geom g;
	hlrt_status st = conv_geom(n->guid, &x, &p->conv, &g);

	if (!st)
		st = tpc(lc, "col2im_f32", &w);
	if (st)
		return st;
	x_view(&g, xs, xt);
	cols_view(&g, cs, ct);
	lower_tdesc(lc, w, 0, n->in[0], cs, ct, 5, 0, false);
	lower_tdesc(lc, w, 1, n->out[0], xs, xt, 4, 0, true);
	w->ispace[0] = (uint32_t)g.c;
	w->ispace[1] = (uint32_t)g.h;
	w->ispace[2] = (uint32_t)g.n;
	w->ispace[3] = w->ispace[4] = 1;
	w->n_args = 5;
	w->args[0] = (uint32_t)g.pw;
	w->args[1] = (uint32_t)g.ph;
	w->args[2] = (uint32_t)g.kw;
	w->args[3] = (uint32_t)g.kh;
	w->args[4] = (uint32_t)g.c;
	return HLRT_SUCCESS;
}

/* x as {ow, kw, c, h, n} (the windows) and y as {ow, c, oh, n}. */
static void pool_views(const struct geom *g, uint64_t s, uint64_t *xs, uint64_t *xt,
		       uint64_t *ys, uint64_t *yt)
{
	const uint64_t a[5] = { g->ow, g->kw, g->c, g->h, g->n };
	const uint64_t b[5] = { s * g->c, g->c, 1, g->w * g->c, g->h * g->w * g->c };
	const uint64_t c[4] = { g->ow, g->c, g->oh, g->n };
	const uint64_t d[4] = { g->c, 1, g->ow * g->c, g->oh * g->ow * g->c };

	memcpy(xs, a, sizeof(a));
	memcpy(xt, b, sizeof(b));
	memcpy(ys, c, sizeof(c));
	memcpy(yt, d, sizeof(d));
}

static hlrt_status lower_pool(struct lower_ctx *lc, const struct cnode *cn, bool bwd)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *x = bwd ? n->in[1] : n->in[0];
	uint64_t xs[5], xt[5], ys[4], yt[4], s;
	struct rwork *w;
	struct geom g;
	hlrt_status st = pool_geom(n, x, &g, &s);

	if (st)
		return st;
	pool_views(&g, s, xs, xt, ys, yt);
	if (bwd) {
		/* positions outside every window get no gradient */
		st = lower_new_work(lc, ENG_DMA, &w);
		if (st)
			return st;
		w->dst = lower_addr(lc, n->out[0], 0);
		w->size = hlrt_tensor_bytes(n->out[0]);
		w->memset = 1;
		lower_access(w, w->dst, w->size, true);
	}
	st = tpc(lc, bwd ? "maxpool_bwd_f32" : "maxpool_fwd_f32", &w);
	if (st)
		return st;
	lower_tdesc(lc, w, 0, x, xs, xt, 5, 0, false);
	if (bwd) {
		lower_tdesc(lc, w, 1, n->in[0], ys, yt, 4, 0, false);
		lower_tdesc(lc, w, 2, n->out[0], xs, xt, 5, 0, true);
	} else {
		lower_tdesc(lc, w, 1, n->out[0], ys, yt, 4, 0, true);
	}
	w->ispace[0] = (uint32_t)g.c;
	w->ispace[1] = (uint32_t)g.oh;
	w->ispace[2] = (uint32_t)g.n;
	w->ispace[3] = w->ispace[4] = 1;
	w->n_args = 3;
	w->args[0] = (uint32_t)s;
	w->args[1] = (uint32_t)g.kh;
	w->args[2] = (uint32_t)g.kw;
	return HLRT_SUCCESS;
}

hlrt_status lower_maxpool_fwd(struct lower_ctx *lc, const struct cnode *cn)
{
	return lower_pool(lc, cn, false);
}

hlrt_status lower_maxpool_bwd(struct lower_ctx *lc, const struct cnode *cn)
{
	return lower_pool(lc, cn, true);
}

/* ---- gradients --------------------------------------------------------------- */

hlrt_status grad_im2col(struct ad_ctx *ac, const struct hlrt_node *n)
{
	const hlrt_tensor *x = n->in[0];
	struct hlrt_col2im_params p = { .n = x->dims[0], .h = x->dims[1], .w = x->dims[2],
					.c = x->dims[3] };
	hlrt_tensor *in[1] = { n->out[0]->grad }, *g;
	hlrt_status st;

	memcpy(&p.conv, n->params, sizeof(p.conv));
	st = ad_node(ac, "col2im_f32", in, 1, &p, sizeof(p), "dx", n, &g);
	return st ? st : ad_accumulate(ac, n->in[0], g);
}

hlrt_status grad_maxpool(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[2] = { n->out[0]->grad, n->in[0] }, *g;
	hlrt_status st = ad_node(ac, "maxpool2d_bwd_f32", in, 2, n->params, n->params_size, "dx",
				 n, &g);

	return st ? st : ad_accumulate(ac, n->in[0], g);
}

/* ---- conv2d as primitive nodes ---------------------------------------------------- */

static hlrt_status sub(hlrt_graph *g, const char *guid, hlrt_tensor *const *in, uint32_t n_in,
		       hlrt_tensor *out, const void *p, size_t ps, const char *name,
		       const char *suffix, hlrt_tensor **res, struct hlrt_node **node)
{
	char full[HLRT_NAME_MAX];
	struct hlrt_node *nd;
	hlrt_status st;

	snprintf(full, sizeof(full), "%.40s/%s", name, suffix);
	st = hlrt_node_create(g, guid, in, n_in, out ? &out : NULL, out ? 1 : 0, p, ps, full, &nd);
	if (st)
		return st;
	*res = nd->out[0];
	if (node)
		*node = nd;
	return HLRT_SUCCESS;
}

static hlrt_status reshape(hlrt_graph *g, hlrt_tensor *x, uint32_t nd, const uint64_t *dims,
			   hlrt_tensor *out, const char *name, const char *suffix,
			   hlrt_tensor **res, struct hlrt_node **node)
{
	struct hlrt_reshape_params rp = { .ndims = nd };

	memcpy(rp.dims, dims, sizeof(uint64_t) * nd);
	return sub(g, "reshape", &x, 1, out, &rp, sizeof(rp), name, suffix, res, node);
}

/* conv2d_fwd: y = reshape(im2col(x) @ reshape(w)) + b */
hlrt_status expand_conv2d_fwd(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			      const void *params, const char *name, hlrt_tensor *out,
			      struct hlrt_node **last)
{
	const struct hlrt_conv_params *p = params;
	const hlrt_tensor *w = in[1];
	hlrt_tensor *cols, *w2, *y, *t[2];
	uint64_t d2[2], d4[4];
	struct geom ge;
	hlrt_status st = conv_geom("conv2d_fwd_f32", in[0], p, &ge);

	if (st)
		return st;
	if (w->ndims != 4 || w->dims[0] != ge.kh || w->dims[1] != ge.kw || w->dims[2] != ge.c ||
	    w->dtype != HLRT_FP32)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "conv2d_fwd_f32: the kernel must be FP32 [%llu,%llu,%llu,F]",
				 (unsigned long long)ge.kh, (unsigned long long)ge.kw,
				 (unsigned long long)ge.c);
	if (n_in == 3 && (in[2]->ndims != 1 || in[2]->dims[0] != w->dims[3]))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "conv2d_fwd_f32: the bias must be [%llu]",
				 (unsigned long long)w->dims[3]);
	st = sub(g, "im2col_f32", in, 1, NULL, p, sizeof(*p), name, "im2col", &cols, NULL);
	d2[0] = ge.kh * ge.kw * ge.c;
	d2[1] = w->dims[3];
	if (!st)
		st = reshape(g, in[1], 2, d2, NULL, name, "kernel2d", &w2, NULL);
	t[0] = cols;
	t[1] = w2;
	if (!st)
		st = sub(g, "gemm_f32", t, 2, NULL, NULL, 0, name, "MatMul", &y, last);
	d4[0] = ge.n;
	d4[1] = ge.oh;
	d4[2] = ge.ow;
	d4[3] = w->dims[3];
	if (!st)
		st = reshape(g, y, 4, d4, n_in == 3 ? NULL : out, name, "nhwc", &y, last);
	if (!st && n_in == 3) {
		t[0] = y;
		t[1] = in[2];
		st = sub(g, "bias_add_f32", t, 2, out, NULL, 0, name, "BiasAdd", &y, last);
	}
	return st;
}

/* conv2d_dedx: dx = col2im(dy2d @ w2d^T) */
hlrt_status expand_conv2d_dedx(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			       const void *params, const char *name, hlrt_tensor *out,
			       struct hlrt_node **last)
{
	const struct hlrt_conv_params *p = params;
	const hlrt_tensor *dy = in[0], *w = in[1];
	struct hlrt_col2im_params cp = { .conv = *p };
	hlrt_tensor *dy2, *w2, *dcols, *dx, *t[2];
	uint64_t d2[2];

	(void)n_in;
	if (dy->ndims != 4 || w->ndims != 4 || w->dims[3] != dy->dims[3])
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "conv2d_dedx_f32: dy [N,OH,OW,F] and w [KH,KW,C,F]");
	if (p->stride_h > 1 || p->stride_w > 1)
		return hlrt_fail(HLRT_UNSUPPORTED, "conv2d_dedx_f32: only stride 1");
	cp.n = dy->dims[0];
	cp.h = dy->dims[1] + w->dims[0] - 1 - 2 * p->pad_h;
	cp.w = dy->dims[2] + w->dims[1] - 1 - 2 * p->pad_w;
	cp.c = w->dims[2];
	d2[0] = dy->dims[0] * dy->dims[1] * dy->dims[2];
	d2[1] = dy->dims[3];
	{
		hlrt_status st = reshape(g, in[0], 2, d2, NULL, name, "dy2d", &dy2, NULL);

		d2[0] = w->dims[0] * w->dims[1] * w->dims[2];
		d2[1] = w->dims[3];
		if (!st)
			st = reshape(g, in[1], 2, d2, NULL, name, "kernel2d", &w2, NULL);
		t[0] = dy2;
		t[1] = w2;
		if (!st)
			st = sub(g, "gemm_dedx_f32", t, 2, NULL, NULL, 0, name, "dcols", &dcols,
				 NULL);
		if (!st)
			st = sub(g, "col2im_f32", &dcols, 1, out, &cp, sizeof(cp), name, "col2im",
				 &dx, last);
		return st;
	}
}

/* conv2d_dedw: dw = reshape(im2col(x)^T @ dy2d) */
hlrt_status expand_conv2d_dedw(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			       const void *params, const char *name, hlrt_tensor *out,
			       struct hlrt_node **last)
{
	const struct hlrt_conv_params *p = params;
	const hlrt_tensor *dy = in[0];
	hlrt_tensor *cols, *dy2, *dw, *t[2];
	uint64_t d2[2], d4[4];
	struct geom ge;
	hlrt_status st = conv_geom("conv2d_dedw_f32", in[1], p, &ge);

	(void)n_in;
	if (st)
		return st;
	if (dy->ndims != 4 || dy->dims[0] != ge.n || dy->dims[1] != ge.oh || dy->dims[2] != ge.ow)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "conv2d_dedw_f32: dy must be [N,OH,OW,F]");
	st = sub(g, "im2col_f32", &in[1], 1, NULL, p, sizeof(*p), name, "im2col", &cols, NULL);
	d2[0] = ge.n * ge.oh * ge.ow;
	d2[1] = dy->dims[3];
	if (!st)
		st = reshape(g, in[0], 2, d2, NULL, name, "dy2d", &dy2, NULL);
	t[0] = dy2;
	t[1] = cols;
	if (!st)
		st = sub(g, "gemm_dedw_f32", t, 2, NULL, NULL, 0, name, "dw2d", &dw, NULL);
	d4[0] = ge.kh;
	d4[1] = ge.kw;
	d4[2] = ge.c;
	d4[3] = dy->dims[3];
	if (!st)
		st = reshape(g, dw, 4, d4, out, name, "dw", &dw, last);
	return st;
}
