// SPDX-License-Identifier: MIT
/*
 * Convolution and pooling, NHWC. A conv2d node expands into the MME's
 * native convolution nodes, like Synapse's: spatial_convolution (forward),
 * dedx and dedw (the gradients), each one MME launch on tensor geometry
 * (no im2col matrix in device memory; the MME adds the bias). Autodiff
 * differentiates spatial_convolution into dedx and dedw. im2col / col2im
 * (TPC kernels, stride 1) stay as ops of their own. Shape rules, lowerings
 * and gradient rules of these ops and of max pooling live here.
 */
#include <stdio.h>
#include <string.h>

#include "compile/lower/lower.h"
#include "graph/ops.h"
#include "hw/gaudisim_hw_mme.h"

struct geom {
	uint64_t n, h, w, c, kh, kw, oh, ow, ph, pw, sh, sw;
};

/* The geometry of a convolution of x; strides above 1 only where 'strided'. */
static hlrt_status geom_of(const char *guid, const hlrt_tensor *x,
			   const struct hlrt_conv_params *p, bool strided, struct geom *g)
{
	if (x->ndims != 4 || (x->dtype != HLRT_FP32 && (!strided || x->dtype != HLRT_BF16)))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: \"%s\" must be %s [N,H,W,C]", guid,
				 x->name, strided ? "FP32 or BF16" : "FP32");
	if (!strided && (p->stride_h > 1 || p->stride_w > 1))
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: the TPC kernel has stride 1 only", guid);
	g->sh = p->stride_h ? p->stride_h : 1;
	g->sw = p->stride_w ? p->stride_w : 1;
	if (g->sh > GAUDISIM_MME_CONV_TAP_MAX || g->sw > GAUDISIM_MME_CONV_TAP_MAX ||
	    p->kernel_h > GAUDISIM_MME_CONV_TAP_MAX || p->kernel_w > GAUDISIM_MME_CONV_TAP_MAX)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: kernel sizes and strides go up to %u",
				 guid, GAUDISIM_MME_CONV_TAP_MAX);
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
	g->oh = (g->h + 2 * g->ph - g->kh) / g->sh + 1;
	g->ow = (g->w + 2 * g->pw - g->kw) / g->sw + 1;
	return HLRT_SUCCESS;
}

static hlrt_status conv_geom(const char *guid, const hlrt_tensor *x,
			     const struct hlrt_conv_params *p, struct geom *g)
{
	return geom_of(guid, x, p, false, g);
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

hlrt_status hlrt_infer_im2col(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	struct geom g;
	hlrt_status st = conv_geom(n->guid, n->in[0], (const void *)n->params, &g);

	if (st)
		return st;
	set_desc(&o[0], HLRT_FP32, 2, g.n * g.oh * g.ow, g.kh * g.kw * g.c, 0, 0);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_infer_col2im(struct hlrt_node *n, struct hlrt_tensor_desc *o)
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

hlrt_status hlrt_infer_maxpool_fwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	struct geom g;
	uint64_t s;
	hlrt_status st = pool_geom(n, n->in[0], &g, &s);

	if (st)
		return st;
	set_desc(&o[0], HLRT_FP32, 4, g.n, g.oh, g.ow, g.c);
	return HLRT_SUCCESS;
}

static hlrt_status dims_are(const char *guid, const hlrt_tensor *t, const char *what,
			    uint64_t a, uint64_t b, uint64_t c, uint64_t d);

hlrt_status hlrt_infer_maxpool_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const hlrt_tensor *dy = n->in[0], *x = n->in[1];
	struct geom g;
	uint64_t s;
	hlrt_status st = pool_geom(n, x, &g, &s);

	if (st)
		return st;
	if (dy->ndims != 4 || dy->dims[0] != g.n || dy->dims[1] != g.oh || dy->dims[2] != g.ow ||
	    dy->dims[3] != g.c || dy->dtype != HLRT_FP32)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: dy must have the pooled shape", n->guid);
	if (n->n_in == 3) {
		st = dims_are(n->guid, n->in[2], "the pooled y", g.n, g.oh, g.ow, g.c);
		if (st)
			return st;
	}
	set_desc(&o[0], HLRT_FP32, 4, g.n, g.h, g.w, g.c);
	return HLRT_SUCCESS;
}

/* ---- lowering ---------------------------------------------------------------- */

static hlrt_status tpc(struct lower_ctx *lc, const char *kernel, struct rwork **out)
{
	struct rwork *w;
	hlrt_status st = hlrt_lower_new_work(lc, ENG_TPC, &w);

	if (!st)
		st = hlrt_lower_kernel(lc->cs->r, kernel, &w->kernel);
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

hlrt_status hlrt_lower_im2col(struct lower_ctx *lc, const struct cnode *cn)
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
	hlrt_lower_tdesc(lc, w, 0, n->in[0], xs, xt, 4, 0, false);
	hlrt_lower_tdesc(lc, w, 1, n->out[0], cs, ct, 5, 0, true);
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

hlrt_status hlrt_lower_col2im(struct lower_ctx *lc, const struct cnode *cn)
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
	hlrt_lower_tdesc(lc, w, 0, n->in[0], cs, ct, 5, 0, false);
	hlrt_lower_tdesc(lc, w, 1, n->out[0], xs, xt, 4, 0, true);
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

/* Which of the output's columns, channels and images run along the lanes. */
enum pool_lanes { POOL_LANES_COLUMNS, POOL_LANES_CHANNELS, POOL_LANES_IMAGES };

/*
 * x as {ow, kw, c, h, n} (the windows) and y as {ow, c, oh, n}; the lanes
 * (the first dimension) and the two member dimensions (the third and the
 * last of x) can trade places: with the channels on the lanes x is
 * {c, kw, ow, h, n} and y {c, ow, oh, n}; with the images, x is
 * {n, kw, c, h, ow} and y {n, c, oh, ow}. The kernels read only
 * coordinates, so every view runs the same code, each lane one element.
 */
static void pool_views(const struct geom *g, uint64_t s, enum pool_lanes lanes, uint64_t *xs,
		       uint64_t *xt, uint64_t *ys, uint64_t *yt)
{
	const uint64_t a[5] = { g->ow, g->kw, g->c, g->h, g->n };
	const uint64_t b[5] = { s * g->c, g->c, 1, g->w * g->c, g->h * g->w * g->c };
	const uint64_t c[4] = { g->ow, g->c, g->oh, g->n };
	const uint64_t d[4] = { g->c, 1, g->ow * g->c, g->oh * g->ow * g->c };
	/* the member dimension that trades with the lanes: c, or n */
	const int mx = lanes == POOL_LANES_IMAGES ? 4 : 2, my = mx == 4 ? 3 : 1;

	memcpy(xs, a, sizeof(a));
	memcpy(xt, b, sizeof(b));
	memcpy(ys, c, sizeof(c));
	memcpy(yt, d, sizeof(d));
	if (lanes == POOL_LANES_COLUMNS)
		return;
	xs[0] = a[mx], xs[mx] = a[0];
	xt[0] = b[mx], xt[mx] = b[0];
	ys[0] = c[my], ys[my] = c[0];
	yt[0] = d[my], yt[my] = d[0];
}

/*
 * The lanes that take the fewest tiles, each tile costing the same
 * instructions whatever number of its 64 lanes lie inside: one channel's
 * columns (OW), one column's channels (C, contiguous in NHWC), or one
 * position's images (N). LeNet's first pooling: 14 columns of 8 channels
 * of 128 images, so the images take 2 tiles where the columns take 8 and
 * the channels 14 (per row of an image, counted alike). On a tie, the
 * contiguous loads, then the columns.
 */
static enum pool_lanes pool_pick_lanes(const struct geom *g)
{
	const uint64_t by_columns = g->c * g->n * ((g->ow + 63) / 64);
	const uint64_t by_channels = g->ow * g->n * ((g->c + 63) / 64);
	const uint64_t by_images = g->ow * g->c * ((g->n + 63) / 64);

	if (by_channels <= by_columns && by_channels <= by_images)
		return POOL_LANES_CHANNELS;
	return by_images < by_columns ? POOL_LANES_IMAGES : POOL_LANES_COLUMNS;
}

static hlrt_status lower_pool(struct lower_ctx *lc, const struct cnode *cn, bool bwd)
{
	const struct hlrt_node *n = cn->node;
	const hlrt_tensor *x = bwd ? n->in[1] : n->in[0];
	uint64_t xs[5], xt[5], ys[4], yt[4], s;
	struct rwork *w;
	struct geom g;
	enum pool_lanes lanes = POOL_LANES_COLUMNS;
	bool acc;
	hlrt_status st = pool_geom(n, x, &g, &s);

	if (st)
		return st;
	/*
	 * Overlapping windows (the accumulating gradient) need one member per
	 * channel and image, which adds every window's share in order.
	 */
	acc = bwd && (s != g.kh || s != g.kw);
	if (!acc)
		lanes = pool_pick_lanes(&g);
	pool_views(&g, s, lanes, xs, xt, ys, yt);
	if (bwd) {
		/* positions outside every window get no gradient */
		st = hlrt_lower_new_work(lc, ENG_DMA, &w);
		if (st)
			return st;
		w->dst = hlrt_lower_addr(lc, n->out[0], 0);
		w->size = hlrt_tensor_bytes(n->out[0]);
		w->memset = 1;
		hlrt_lower_access(w, w->dst, w->size, true);
	}
	/*
	 * Given the forward's y, the gradient loads the maxima instead of
	 * recomputing them. Windows that overlap or leave gaps: a member per
	 * channel and image adds up every window's share in order.
	 */
	st = tpc(lc, !bwd ? "maxpool_fwd_f32" : acc ? "maxpool_bwd_acc_f32" :
		 n->n_in == 3 ? "maxpool_bwd_y_f32" : "maxpool_bwd_f32", &w);
	if (st)
		return st;
	hlrt_lower_tdesc(lc, w, 0, x, xs, xt, 5, 0, false);
	if (bwd) {
		hlrt_lower_tdesc(lc, w, 1, n->in[0], ys, yt, 4, 0, false);
		hlrt_lower_tdesc(lc, w, 2, n->out[0], xs, xt, 5, 0, true);
		if (n->n_in == 3 && !acc)
			hlrt_lower_tdesc(lc, w, 3, n->in[2], ys, yt, 4, 0, false);
	} else {
		hlrt_lower_tdesc(lc, w, 1, n->out[0], ys, yt, 4, 0, true);
	}
	/* the members: the third and the last dimension of x's view, and oh */
	w->ispace[0] = (uint32_t)xs[2];
	w->ispace[1] = acc ? 1 : (uint32_t)g.oh;
	w->ispace[2] = (uint32_t)xs[4];
	w->ispace[3] = w->ispace[4] = 1;
	w->n_args = 3;
	w->args[0] = (uint32_t)s;
	w->args[1] = (uint32_t)g.kh;
	w->args[2] = (uint32_t)g.kw;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_maxpool_fwd(struct lower_ctx *lc, const struct cnode *cn)
{
	return lower_pool(lc, cn, false);
}

hlrt_status hlrt_lower_maxpool_bwd(struct lower_ctx *lc, const struct cnode *cn)
{
	return lower_pool(lc, cn, true);
}

/* ---- gradients --------------------------------------------------------------- */

hlrt_status hlrt_grad_im2col(struct ad_ctx *ac, const struct hlrt_node *n)
{
	const hlrt_tensor *x = n->in[0];
	struct hlrt_col2im_params p = { .n = x->dims[0], .h = x->dims[1], .w = x->dims[2],
					.c = x->dims[3] };
	hlrt_tensor *in[1] = { n->out[0]->grad }, *g;
	hlrt_status st;

	memcpy(&p.conv, n->params, sizeof(p.conv));
	st = hlrt_ad_node(ac, "col2im_f32", in, 1, &p, sizeof(p), "dx", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

hlrt_status hlrt_grad_maxpool(struct ad_ctx *ac, const struct hlrt_node *n)
{
	hlrt_tensor *in[3] = { n->out[0]->grad, n->in[0], n->out[0] }, *g;
	hlrt_status st = hlrt_ad_node(ac, "maxpool2d_bwd_f32", in, 3, n->params, n->params_size, "dx",
				 n, &g);

	return st ? st : hlrt_ad_accumulate(ac, n->in[0], g);
}

/* ---- the MME's convolution nodes ---------------------------------------------- */

static hlrt_status dims_typed(const char *guid, const hlrt_tensor *t, const char *what,
			      hlrt_dtype dt, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	if (t->dtype != dt || t->ndims != 4 || t->dims[0] != a || t->dims[1] != b ||
	    t->dims[2] != c || t->dims[3] != d)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: %s \"%s\" must be %s [%llu,%llu,%llu,"
				 "%llu]", guid, what, t->name, dt == HLRT_BF16 ? "BF16" : "FP32",
				 (unsigned long long)a, (unsigned long long)b,
				 (unsigned long long)c, (unsigned long long)d);
	return HLRT_SUCCESS;
}

static hlrt_status dims_are(const char *guid, const hlrt_tensor *t, const char *what,
			    uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	return dims_typed(guid, t, what, HLRT_FP32, a, b, c, d);
}

/* The filters [KH,KW,C,F] of a convolution of geometry g: checks them, sets *f = F. */
static hlrt_status filters_of(const char *guid, const hlrt_tensor *w, hlrt_dtype dt,
			      const struct geom *g, uint64_t *f)
{
	if (w->ndims != 4 || !w->dims[3] || w->dims[3] > GAUDISIM_MME_CONV_NCK_MAX)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: the kernel \"%s\" must be [%llu,%llu,"
				 "%llu,F], F at most %u", guid, w->name, (unsigned long long)g->kh,
				 (unsigned long long)g->kw, (unsigned long long)g->c,
				 GAUDISIM_MME_CONV_NCK_MAX);
	*f = w->dims[3];
	return dims_typed(guid, w, "the kernel", dt, g->kh, g->kw, g->c, *f);
}

/* The device's limits on the geometry (hw/gaudisim_hw_mme.h). */
static hlrt_status mme_limits(const char *guid, const struct geom *g)
{
	if (!g->n || !g->h || !g->w || !g->c || g->n > GAUDISIM_MME_CONV_NCK_MAX ||
	    g->c > GAUDISIM_MME_CONV_NCK_MAX || g->h > GAUDISIM_MME_CONV_HW_MAX ||
	    g->w > GAUDISIM_MME_CONV_HW_MAX || g->kh * g->kw * g->c > GAUDISIM_MME_DIM_MAX)
		return hlrt_fail(HLRT_UNSUPPORTED, "%s: N, C up to %u, H, W up to %u and "
				 "KH*KW*C up to %u on the MME", guid, GAUDISIM_MME_CONV_NCK_MAX,
				 GAUDISIM_MME_CONV_HW_MAX, GAUDISIM_MME_DIM_MAX);
	return HLRT_SUCCESS;
}

/* The geometry of a dedx node: x's shape comes from its params. */
static hlrt_status dedx_geom(const struct hlrt_node *n, struct geom *g)
{
	const struct hlrt_col2im_params *p = (const void *)n->params;
	struct hlrt_tensor x = { .dtype = hlrt_op_dtype(n), .ndims = 4,
				 .dims = { p->n, p->h, p->w, p->c } };

	snprintf(x.name, sizeof(x.name), "dx");
	return geom_of(n->guid, &x, &p->conv, true, g);
}

static hlrt_status mme_conv_geom(const struct hlrt_node *n, unsigned int op, struct geom *g,
				 uint64_t *f)
{
	hlrt_status st;

	hlrt_dtype dt = hlrt_op_dtype(n);	/* of A and B; C and D are FP32 */
	const hlrt_tensor *x = n->in[op == GAUDISIM_MME_OP_CONV_FWD ? 0 : 1];

	if (op == GAUDISIM_MME_OP_CONV_DEDX)
		st = dedx_geom(n, g);
	else if (x->dtype != dt)
		st = hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: \"%s\" must be %s", n->guid, x->name,
			       dt == HLRT_BF16 ? "BF16" : "FP32");
	else
		st = geom_of(n->guid, x, (const void *)n->params, true, g);
	if (!st)
		st = mme_limits(n->guid, g);
	if (st)
		return st;
	if (op == GAUDISIM_MME_OP_CONV_DEDW) {
		const hlrt_tensor *dy = n->in[0];

		*f = dy->ndims == 4 ? dy->dims[3] : 0;
		if (!*f || *f > GAUDISIM_MME_CONV_NCK_MAX)
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: dy must be [N,OH,OW,F], F 1..%u",
					 n->guid, GAUDISIM_MME_CONV_NCK_MAX);
	} else {
		st = filters_of(n->guid, n->in[1], dt, g, f);
	}
	if (!st && op != GAUDISIM_MME_OP_CONV_FWD)
		st = dims_typed(n->guid, n->in[0], "dy", dt, g->n, g->oh, g->ow, *f);
	if (!st && n->n_in == 3 && (n->in[2]->dtype != HLRT_FP32 || n->in[2]->ndims != 1 ||
				    n->in[2]->dims[0] != *f))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: the bias \"%s\" must be FP32 [%llu]",
				 n->guid, n->in[2]->name, (unsigned long long)*f);
	return st;
}

static unsigned int mme_conv_op(const struct hlrt_node *n)
{
	if (!strncmp(n->guid, "dedx_", 5))
		return GAUDISIM_MME_OP_CONV_DEDX;
	if (!strncmp(n->guid, "dedw_", 5))
		return GAUDISIM_MME_OP_CONV_DEDW;
	return GAUDISIM_MME_OP_CONV_FWD;
}

hlrt_status hlrt_infer_conv_mme(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	unsigned int op = mme_conv_op(n);
	struct geom g;
	uint64_t f;
	hlrt_status st = mme_conv_geom(n, op, &g, &f);

	if (st)
		return st;
	if (op == GAUDISIM_MME_OP_CONV_FWD)
		set_desc(&o[0], HLRT_FP32, 4, g.n, g.oh, g.ow, f);
	else if (op == GAUDISIM_MME_OP_CONV_DEDX)
		set_desc(&o[0], HLRT_FP32, 4, g.n, g.h, g.w, g.c);
	else
		set_desc(&o[0], HLRT_FP32, 4, g.kh, g.kw, g.c, f);
	return HLRT_SUCCESS;
}

/* One MME launch in a convolution mode; the geometry rides in the work's args. */
hlrt_status hlrt_lower_conv_mme(struct lower_ctx *lc, const struct cnode *cn)
{
	const struct hlrt_node *n = cn->node;
	unsigned int op = mme_conv_op(n);
	const float one = 1.0f;
	struct rwork *w;
	struct geom g;
	uint64_t f;
	hlrt_status st = mme_conv_geom(n, op, &g, &f);

	if (!st)
		st = hlrt_lower_new_work(lc, ENG_MME, &w);
	if (st)
		return st;
	w->a = hlrt_lower_addr(lc, n->in[0], 0);
	w->b = hlrt_lower_addr(lc, n->in[1], 0);
	w->d = hlrt_lower_addr(lc, n->out[0], 0);
	if (op == GAUDISIM_MME_OP_CONV_DEDW) {	/* A = x, B = dy */
		w->a = hlrt_lower_addr(lc, n->in[1], 0);
		w->b = hlrt_lower_addr(lc, n->in[0], 0);
	}
	w->c = w->d;
	if (n->n_in == 3) {	/* the MME adds the bias in its epilogue */
		w->c = hlrt_lower_addr(lc, n->in[2], 0);
		w->ctrl = GAUDISIM_MME_CTRL_CONV_BIAS;
		memcpy(&w->beta, &one, sizeof(w->beta));
		hlrt_lower_access(w, w->c, hlrt_tensor_bytes(n->in[2]), false);
	}
	w->m = w->n = w->k = w->batch = 1;
	w->lda = w->ldb = w->ldc = w->ldd = 1;
	w->mme_dtype = GAUDISIM_MME_DTYPE_VALUE(hlrt_op_dtype(n) == HLRT_BF16 ?
						GAUDISIM_DTYPE_BF16 : GAUDISIM_DTYPE_FP32,
						GAUDISIM_DTYPE_FP32);
	w->ctrl |= GAUDISIM_MME_CTRL_OP_VALUE(op);
	memcpy(&w->alpha, &one, sizeof(w->alpha));
	w->n_args = GAUDISIM_MME_CONV_NUM_REGS;
	w->args[0] = (uint32_t)g.n;
	w->args[1] = (uint32_t)g.h;
	w->args[2] = (uint32_t)g.w;
	w->args[3] = (uint32_t)g.c;
	w->args[4] = (uint32_t)f;
	w->args[5] = (uint32_t)g.kh;
	w->args[6] = (uint32_t)g.kw;
	w->args[7] = (uint32_t)g.sh;
	w->args[8] = (uint32_t)g.sw;
	w->args[9] = (uint32_t)g.ph;
	w->args[10] = (uint32_t)g.pw;
	w->args[11] = w->args[12] = 1;		/* no dilation */
	hlrt_lower_access(w, hlrt_lower_addr(lc, n->in[0], 0), hlrt_tensor_bytes(n->in[0]), false);
	hlrt_lower_access(w, hlrt_lower_addr(lc, n->in[1], 0), hlrt_tensor_bytes(n->in[1]), false);
	hlrt_lower_access(w, w->d, hlrt_tensor_bytes(n->out[0]), true);
	return HLRT_SUCCESS;
}

/* y = conv(x, w) (+ b): dx = dedx(dy, w), dw = dedw(dy, x), db = dy summed over pixels. */
hlrt_status hlrt_grad_conv_mme(struct ad_ctx *ac, const struct hlrt_node *n)
{
	const hlrt_tensor *x = n->in[0], *y = n->out[0];
	struct hlrt_col2im_params p = { .n = x->dims[0], .h = x->dims[1], .w = x->dims[2],
					.c = x->dims[3] };
	hlrt_tensor *in[2] = { n->out[0]->grad, n->in[1] }, *g;
	hlrt_status st = HLRT_SUCCESS;

	if (n->n_in == 3) {
		struct hlrt_reshape_params rp = { .ndims = 2,
						  .dims = { y->dims[0] * y->dims[1] * y->dims[2],
							    y->dims[3] } };
		struct hlrt_reduce_params axis0 = { .axis = 0 };
		hlrt_tensor *dy2;

		st = hlrt_ad_node(ac, "reshape", in, 1, &rp, sizeof(rp), "dy2d", n, &dy2);
		if (!st)
			st = hlrt_ad_node(ac, "reduce_sum_f32", &dy2, 1, &axis0, sizeof(axis0), "db", n,
				     &g);
		if (!st)
			st = hlrt_ad_accumulate(ac, n->in[2], g);
		if (st)
			return st;
	}

	memcpy(&p.conv, n->params, sizeof(p.conv));
	st = hlrt_ad_node(ac, "dedx_f32", in, 2, &p, sizeof(p), "dx", n, &g);
	if (!st)
		st = hlrt_ad_accumulate(ac, n->in[0], g);
	in[1] = n->in[0];
	if (!st)
		st = hlrt_ad_node(ac, "dedw_f32", in, 2, n->params, n->params_size, "dw", n, &g);
	return st ? st : hlrt_ad_accumulate(ac, n->in[1], g);
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

/*
 * The conv2d ops as primitive nodes: conv2d_*_f32 take FP32 operands,
 * conv2d_*_bf16 BF16 ones (x or dy, and w; the bias and every result FP32:
 * the MME accumulates in FP32), each onto the MME node of its type.
 */
static const char *mme_guid(const char *mode, bool bf16)
{
	static const char *const names[3][2] = {
		{ "spatial_convolution_f32", "spatial_convolution_bf16" },
		{ "dedx_f32", "dedx_bf16" },
		{ "dedw_f32", "dedw_bf16" },
	};
	unsigned int i = mode[0] == 's' ? 0 : mode[3] == 'x' ? 1 : 2;

	return names[i][bf16];
}

/* conv2d_fwd: y = spatial_convolution(x, w (, b)), the bias added by the MME */
static hlrt_status expand_fwd(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			      const void *params, const char *name, hlrt_tensor *out,
			      struct hlrt_node **last, bool bf16)
{
	hlrt_tensor *y;

	return sub(g, mme_guid("spatial", bf16), in, n_in, out, params,
		   sizeof(struct hlrt_conv_params), name, "Conv2D", &y, last);
}

/*
 * conv2d_dedx: dx = dedx(dy, w). The input's size is the smallest that
 * gives dy's (with stride 1 the only one).
 */
static hlrt_status expand_dedx(hlrt_graph *g, hlrt_tensor *const *in, const void *params,
			       const char *name, hlrt_tensor *out, struct hlrt_node **last,
			       bool bf16)
{
	const struct hlrt_conv_params *p = params;
	const hlrt_tensor *dy = in[0], *w = in[1];
	struct hlrt_col2im_params cp = { .conv = *p };
	uint64_t sh = p->stride_h ? p->stride_h : 1, sw = p->stride_w ? p->stride_w : 1;
	hlrt_tensor *dx;

	if (dy->ndims != 4 || w->ndims != 4 || w->dims[3] != dy->dims[3] || !dy->dims[1] ||
	    !dy->dims[2] || (dy->dims[1] - 1) * sh + w->dims[0] <= 2 * p->pad_h ||
	    (dy->dims[2] - 1) * sw + w->dims[1] <= 2 * p->pad_w)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "conv2d_dedx: dy [N,OH,OW,F] and w [KH,KW,C,F] of a "
				 "convolution with this padding");
	cp.n = dy->dims[0];
	cp.h = (dy->dims[1] - 1) * sh + w->dims[0] - 2 * p->pad_h;
	cp.w = (dy->dims[2] - 1) * sw + w->dims[1] - 2 * p->pad_w;
	cp.c = w->dims[2];
	return sub(g, mme_guid("dedx", bf16), in, 2, out, &cp, sizeof(cp), name, "dedx", &dx,
		   last);
}

/* conv2d_dedw: dw = dedw(dy, x) */
static hlrt_status expand_dedw(hlrt_graph *g, hlrt_tensor *const *in, const void *params,
			       const char *name, hlrt_tensor *out, struct hlrt_node **last,
			       bool bf16)
{
	hlrt_tensor *dw;

	return sub(g, mme_guid("dedw", bf16), in, 2, out, params,
		   sizeof(struct hlrt_conv_params), name, "dedw", &dw, last);
}

hlrt_status hlrt_expand_conv2d_fwd(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			      const void *params, const char *name, hlrt_tensor *out,
			      struct hlrt_node **last)
{
	return expand_fwd(g, in, n_in, params, name, out, last, false);
}

hlrt_status hlrt_expand_conv2d_fwd_bf16(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
				   const void *params, const char *name, hlrt_tensor *out,
				   struct hlrt_node **last)
{
	return expand_fwd(g, in, n_in, params, name, out, last, true);
}

hlrt_status hlrt_expand_conv2d_dedx(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			       const void *params, const char *name, hlrt_tensor *out,
			       struct hlrt_node **last)
{
	(void)n_in;
	return expand_dedx(g, in, params, name, out, last, false);
}

hlrt_status hlrt_expand_conv2d_dedx_bf16(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
				    const void *params, const char *name, hlrt_tensor *out,
				    struct hlrt_node **last)
{
	(void)n_in;
	return expand_dedx(g, in, params, name, out, last, true);
}

hlrt_status hlrt_expand_conv2d_dedw(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			       const void *params, const char *name, hlrt_tensor *out,
			       struct hlrt_node **last)
{
	(void)n_in;
	return expand_dedw(g, in, params, name, out, last, false);
}

hlrt_status hlrt_expand_conv2d_dedw_bf16(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
				    const void *params, const char *name, hlrt_tensor *out,
				    struct hlrt_node **last)
{
	(void)n_in;
	return expand_dedw(g, in, params, name, out, last, true);
}
