/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the MME's convolution modes (hw/gaudisim_hw_mme.h has
 * the contract): forward, data gradient (dedx) and filter gradient (dedw)
 * of an NHWC 2-D convolution, computed on blocked im2col tiles that live
 * only in host scratch memory, never in device memory.
 *
 *   FWD   rows of output pixels, P at a time over all images: the block's
 *         im2col rows [P x L] (L = KH*KW*C) times the filters [L x K]
 *         give [P x K] of y, then the epilogue (alpha, beta, rounding).
 *   DEDW  the same row blocks of x and dy: cols^T [L x P] @ dy [P x K]
 *         added into an FP32 accumulator of dw, epilogue at the end.
 *   DEDX  per image, row blocks of dy: dy [P x K] @ w^T [K x L] gives
 *         the block's column gradient, added back (col2im) into an FP32
 *         accumulator of the image's dx, epilogue per image.
 *
 * Every block is summed in a fixed order, so a geometry gives the same
 * bits every time. The products go through gsim_mme_sgemm() (OpenBLAS or
 * the portable loop); BF16 inputs are widened exactly while the tiles are
 * gathered.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_bf16.h"
#include "gsim_mme.h"

#ifdef GSIM_HAVE_OPENBLAS
#include "gsim_blas.h"
#endif

#define REG(regs, off)		((regs)->r[(off) / 4])

/* FP32 device data can feed the products in place on a little-endian host. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GSIM_MME_FP32_IN_PLACE	1
#else
#define GSIM_MME_FP32_IN_PLACE	0
#endif

/* Floats per im2col block (1 MiB): large enough for BLAS to run at speed. */
#define GSIM_CONV_TILE		(1u << 18)
/* Elements per epilogue chunk. */
#define GSIM_CONV_CHUNK		256u

/* A loop whose pointers the compiler cannot prove apart, but that are. */
#if defined(__GNUC__) && !defined(__clang__)
#define GSIM_CONV_IVDEP _Pragma("GCC ivdep")
#else
#define GSIM_CONV_IVDEP
#endif

/* ---- decoding -------------------------------------------------------------- */

static bool in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi;
}

/* Elements of x, w and y; cannot overflow within the limits (< 2^63). */
static uint64_t x_elems(const struct gsim_mme_conv *c)
{
	return (uint64_t)c->n * c->h * c->w * c->c;
}

static uint64_t w_elems(const struct gsim_mme_conv *c)
{
	return (uint64_t)c->kh * c->kw * c->c * c->k;
}

static uint64_t y_elems(const struct gsim_mme_conv *c)
{
	return (uint64_t)c->n * c->oh * c->ow * c->k;
}

static int conv_geometry(struct gsim_core *core, const struct gsim_mme_regs *regs,
			 struct gsim_mme_conv *c)
{
	uint32_t ekh, ekw;
	uint64_t macs;

	c->n = REG(regs, GAUDISIM_MME_CONV_N);
	c->h = REG(regs, GAUDISIM_MME_CONV_H);
	c->w = REG(regs, GAUDISIM_MME_CONV_W);
	c->c = REG(regs, GAUDISIM_MME_CONV_C);
	c->k = REG(regs, GAUDISIM_MME_CONV_K);
	c->kh = REG(regs, GAUDISIM_MME_CONV_KH);
	c->kw = REG(regs, GAUDISIM_MME_CONV_KW);
	c->sh = REG(regs, GAUDISIM_MME_CONV_STRIDE_H);
	c->sw = REG(regs, GAUDISIM_MME_CONV_STRIDE_W);
	c->ph = REG(regs, GAUDISIM_MME_CONV_PAD_H);
	c->pw = REG(regs, GAUDISIM_MME_CONV_PAD_W);
	c->dh = REG(regs, GAUDISIM_MME_CONV_DIL_H);
	c->dw = REG(regs, GAUDISIM_MME_CONV_DIL_W);
	if (!in_range(c->n, 1, GAUDISIM_MME_CONV_NCK_MAX) ||
	    !in_range(c->c, 1, GAUDISIM_MME_CONV_NCK_MAX) ||
	    !in_range(c->k, 1, GAUDISIM_MME_CONV_NCK_MAX) ||
	    !in_range(c->h, 1, GAUDISIM_MME_CONV_HW_MAX) ||
	    !in_range(c->w, 1, GAUDISIM_MME_CONV_HW_MAX) ||
	    !in_range(c->kh, 1, GAUDISIM_MME_CONV_TAP_MAX) ||
	    !in_range(c->kw, 1, GAUDISIM_MME_CONV_TAP_MAX) ||
	    !in_range(c->sh, 1, GAUDISIM_MME_CONV_TAP_MAX) ||
	    !in_range(c->sw, 1, GAUDISIM_MME_CONV_TAP_MAX) ||
	    !in_range(c->dh, 1, GAUDISIM_MME_CONV_TAP_MAX) ||
	    !in_range(c->dw, 1, GAUDISIM_MME_CONV_TAP_MAX)) {
		gsim_log(core, "gaudisim: mme: conv N=%u H=%u W=%u C=%u K=%u kernel %ux%u"
			 " stride %u,%u dilation %u,%u: a value is out of range", c->n, c->h,
			 c->w, c->c, c->k, c->kh, c->kw, c->sh, c->sw, c->dh, c->dw);
		return GAUDISIM_MME_ERR_DIM;
	}
	ekh = c->dh * (c->kh - 1) + 1;
	ekw = c->dw * (c->kw - 1) + 1;
	if (c->ph >= ekh || c->pw >= ekw || c->h + 2 * c->ph < ekh || c->w + 2 * c->pw < ekw) {
		gsim_log(core, "gaudisim: mme: conv padding %u,%u with an effective kernel of"
			 " %ux%u on a %ux%u input: padding must be below the kernel and the"
			 " kernel must fit", c->ph, c->pw, ekh, ekw, c->h, c->w);
		return GAUDISIM_MME_ERR_DIM;
	}
	if ((uint64_t)c->kh * c->kw * c->c > GAUDISIM_MME_DIM_MAX) {
		gsim_log(core, "gaudisim: mme: conv taps KH*KW*C = %" PRIu64 " exceed %u",
			 (uint64_t)c->kh * c->kw * c->c, GAUDISIM_MME_DIM_MAX);
		return GAUDISIM_MME_ERR_DIM;
	}
	c->oh = (c->h + 2 * c->ph - ekh) / c->sh + 1;
	c->ow = (c->w + 2 * c->pw - ekw) / c->sw + 1;
	if (__builtin_mul_overflow(y_elems(c), (uint64_t)c->kh * c->kw * c->c, &macs) ||
	    macs > (1ull << GAUDISIM_MME_MACS_MAX_LOG2)) {
		gsim_log(core, "gaudisim: mme: conv exceeds 2^%d multiply-adds per commit",
			 GAUDISIM_MME_MACS_MAX_LOG2);
		return GAUDISIM_MME_ERR_DIM;
	}
	c->macs = macs;
	return GAUDISIM_MME_ERR_NONE;
}

/* A dense tensor operand: alignment and one HBM or SRAM range. */
static int conv_operand(struct gsim_core *core, const struct gsim_mme_regs *regs,
			uint32_t addr_lo, unsigned int dtype, uint64_t elems,
			struct gsim_mme_operand *op, const char *name)
{
	struct gsim_span span;

	memset(op, 0, sizeof(*op));
	op->addr = (uint64_t)REG(regs, addr_lo) | (uint64_t)REG(regs, addr_lo + 4) << 32;
	op->dtype = dtype;
	op->esize = gaudisim_dtype_size(dtype);
	if (__builtin_mul_overflow(elems, (uint64_t)op->esize, &op->stride)) {
		gsim_log(core, "gaudisim: mme: conv %s extent overflows 64 bits", name);
		return GAUDISIM_MME_ERR_OVERFLOW;
	}
	/* op->stride holds the tensor's bytes (a convolution has no batches) */
	if (op->addr % op->esize) {
		gsim_log(core, "gaudisim: mme: conv %s address 0x%" PRIx64
			 " is not aligned to its %u-byte elements", name, op->addr, op->esize);
		return GAUDISIM_MME_ERR_ALIGN;
	}
	if (!gsim_dma_decode(core, op->addr, op->stride, &span) ||
	    (span.rgn != GSIM_RGN_HBM && span.rgn != GSIM_RGN_SRAM)) {
		gsim_log(core, "gaudisim: mme: conv %s range 0x%" PRIx64 " + 0x%" PRIx64
			 " bytes is not inside HBM or SRAM", name, op->addr, op->stride);
		return GAUDISIM_MME_ERR_ADDR;
	}
	op->mem = span.mem;
	return GAUDISIM_MME_ERR_NONE;
}

static bool overlaps(const struct gsim_mme_operand *x, const struct gsim_mme_operand *y)
{
	return x->addr < y->addr + y->stride && y->addr < x->addr + x->stride;
}

int gsim_mme_conv_decode(struct gsim_core *core, const struct gsim_mme_regs *regs,
			 struct gsim_mme_gemm *g)
{
	uint32_t dtype = REG(regs, GAUDISIM_MME_DTYPE), ctrl = REG(regs, GAUDISIM_MME_CTRL);
	unsigned int in = GAUDISIM_MME_DTYPE_IN(dtype), out = GAUDISIM_MME_DTYPE_OUT(dtype);
	struct gsim_mme_conv *c = &g->conv;
	uint64_t a_elems, b_elems, d_elems;
	int err;

	if (ctrl & (GAUDISIM_MME_CTRL_TRANSPOSE_A | GAUDISIM_MME_CTRL_TRANSPOSE_B)) {
		gsim_log(core, "gaudisim: mme: CTRL 0x%x: a convolution takes no transpose",
			 ctrl);
		return GAUDISIM_MME_ERR_FIELD;
	}
	err = conv_geometry(core, regs, c);
	if (err)
		return err;
	c->bias = ctrl & GAUDISIM_MME_CTRL_CONV_BIAS;
	/* The GEMM view, for logs: per image, pixels x filters x taps. */
	g->m = c->oh * c->ow;
	g->n = c->k;
	g->k = c->kh * c->kw * c->c;
	g->batch = c->n;
	g->alpha = gsim_bits_f32(REG(regs, GAUDISIM_MME_ALPHA));
	g->beta = gsim_bits_f32(REG(regs, GAUDISIM_MME_BETA));
	g->read_ab = g->alpha != 0.0f;
	g->read_c = g->beta != 0.0f;

	switch (g->op) {
	case GAUDISIM_MME_OP_CONV_FWD:
		a_elems = x_elems(c), b_elems = w_elems(c), d_elems = y_elems(c);
		break;
	case GAUDISIM_MME_OP_CONV_DEDX:
		a_elems = y_elems(c), b_elems = w_elems(c), d_elems = x_elems(c);
		break;
	default:
		a_elems = x_elems(c), b_elems = y_elems(c), d_elems = w_elems(c);
		break;
	}
	if ((g->read_ab &&
	     (err = conv_operand(core, regs, GAUDISIM_MME_A_ADDR_LO, in, a_elems, &g->a, "A"))) ||
	    (g->read_ab &&
	     (err = conv_operand(core, regs, GAUDISIM_MME_B_ADDR_LO, in, b_elems, &g->b, "B"))) ||
	    (g->read_c &&
	     (err = conv_operand(core, regs, GAUDISIM_MME_C_ADDR_LO, out,
				 c->bias ? c->k : d_elems, &g->c, "C"))) ||
	    (err = conv_operand(core, regs, GAUDISIM_MME_D_ADDR_LO, out, d_elems, &g->d, "D")))
		return err;
	if ((g->read_ab && (overlaps(&g->d, &g->a) || overlaps(&g->d, &g->b))) ||
	    (g->read_c && (g->c.addr != g->d.addr || c->bias) && overlaps(&g->d, &g->c))) {
		gsim_log(core, "gaudisim: mme: conv D at 0x%" PRIx64 " overlaps an input",
			 g->d.addr);
		return GAUDISIM_MME_ERR_OVERLAP;
	}
	return GAUDISIM_MME_ERR_NONE;
}

/* ---- tiles ----------------------------------------------------------------- */

struct conv_run {
	const struct gsim_mme_gemm *g;
	const struct gsim_mme_conv *c;
	uint64_t l;		/* im2col row length KH*KW*C */
	uint64_t pixels;	/* OH*OW per image */
};

/*
 * Output pixel p as (image, row, column), stepped one pixel at a time:
 * divisions only where a run of rows starts (they cost more than copying
 * a small convolution's row).
 */
struct conv_pixel {
	uint64_t img, oh, ow;
};

static void pixel_at(const struct conv_run *cr, uint64_t p, struct conv_pixel *px)
{
	uint64_t q = p % cr->pixels;

	px->img = p / cr->pixels;
	px->oh = q / cr->c->ow;
	px->ow = q % cr->c->ow;
}

static void pixel_next(const struct conv_run *cr, struct conv_pixel *px)
{
	if (++px->ow < cr->c->ow)
		return;
	px->ow = 0;
	if (++px->oh < cr->c->oh)
		return;
	px->oh = 0;
	px->img++;
}

/*
 * n elements of device data as FP32. The runs of a gather are short (one
 * kernel row of one channel: 5 floats in LeNet's first layer), so FP32
 * ones of up to 16 are copied here as two fixed-size moves that overlap
 * in the middle (the same floats, in one or two vector moves each), rather
 * than element by element or through a call per run.
 */
static inline void load_run(float *dst, const uint8_t *src, size_t n, unsigned int dtype)
{
	size_t i;

	if (GSIM_MME_FP32_IN_PLACE && dtype == GAUDISIM_DTYPE_FP32 && n <= 16) {
		if (n >= 8) {
			memcpy(dst, src, 8 * sizeof(float));
			memcpy(dst + n - 8, src + (n - 8) * sizeof(float), 8 * sizeof(float));
		} else if (n >= 4) {
			memcpy(dst, src, 4 * sizeof(float));
			memcpy(dst + n - 4, src + (n - 4) * sizeof(float), 4 * sizeof(float));
		} else {
			for (i = 0; i < n; i++)
				memcpy(dst + i, src + 4 * i, sizeof(float));
		}
		return;
	}
	gsim_mme_load_f32(dst, src, n, dtype);
}

/*
 * The im2col rows of output pixels [p0, p0 + rows) (counted over all
 * images) of the input x (operand op), as FP32: cols[r][(kh*KW + kw)*C + c].
 * Taps in the padding are 0. With dilation 1 a window row is one run.
 */
static void gather_cols(const struct conv_run *cr, const struct gsim_mme_operand *op,
			uint64_t p0, uint64_t rows, float *cols)
{
	const struct gsim_mme_conv *c = cr->c;
	/*
	 * The geometry in locals: the copies below store through char-typed
	 * memcpy, which may alias *c, and would reload every field per run.
	 */
	const int64_t h = c->h, w = c->w, kh_n = c->kh, kw_n = c->kw, dh = c->dh, dw = c->dw;
	const uint64_t ch = c->c, esize = op->esize, l = cr->l, run = (uint64_t)kw_n * ch;
	const uint64_t row_bytes = (uint64_t)w * ch * esize;
	const unsigned int dtype = op->dtype;
	const uint8_t *mem = op->mem;
	struct conv_pixel px;
	uint64_t r;

	pixel_at(cr, p0, &px);
	for (r = 0; r < rows; r++, pixel_next(cr, &px)) {
		const uint8_t *image = mem + px.img * (uint64_t)h * row_bytes;
		int64_t ih0 = (int64_t)px.oh * c->sh - c->ph;
		int64_t iw0 = (int64_t)px.ow * c->sw - c->pw;
		float *row = cols + r * l;
		/* With dilation 1, the taps of a window row inside x: [lo, hi). */
		int64_t lo = iw0 < 0 ? -iw0 : 0;
		int64_t hi = iw0 + kw_n > w ? w - iw0 : kw_n;
		uint64_t first, taps;
		int64_t kh, kw;

		if (hi < lo)
			hi = lo;
		first = (uint64_t)(iw0 + lo) * ch * esize;
		taps = (uint64_t)(hi - lo) * ch;
		for (kh = 0; kh < kh_n; kh++, row += run) {
			int64_t ih = ih0 + kh * dh;
			const uint8_t *src;

			if (ih < 0 || ih >= h) {
				memset(row, 0, run * sizeof(float));
				continue;
			}
			src = image + (uint64_t)ih * row_bytes;
			if (dw == 1) {
				/* Most rows are whole: no calls for empty edges. */
				if (lo)
					memset(row, 0, (size_t)lo * ch * sizeof(float));
				if (taps)
					load_run(row + lo * ch, src + first, taps, dtype);
				if (hi < kw_n)
					memset(row + hi * ch, 0, (size_t)(kw_n - hi) * ch * sizeof(float));
				continue;
			}
			for (kw = 0; kw < kw_n; kw++) {
				int64_t iw = iw0 + kw * dw;

				if (iw < 0 || iw >= w)
					memset(row + kw * ch, 0, ch * sizeof(float));
				else
					load_run(row + kw * ch, src + (uint64_t)iw * ch * esize, ch,
						 dtype);
			}
		}
	}
}

/*
 * The column gradient of pixels [q0, q0 + rows) of a group of images
 * (pixels counted from the group's first image) added into the group's
 * dx[images][H*W*C].
 */
static void scatter_cols(const struct conv_run *cr, uint64_t q0, uint64_t rows,
			 const float *dcols, float *dx)
{
	const struct gsim_mme_conv *c = cr->c;
	const uint64_t ch = c->c;
	uint64_t image = (uint64_t)c->h * c->w * c->c, r, i;
	struct conv_pixel px;

	pixel_at(cr, q0, &px);
	for (r = 0; r < rows; r++, pixel_next(cr, &px)) {
		int64_t ih0 = (int64_t)px.oh * c->sh - c->ph;
		int64_t iw0 = (int64_t)px.ow * c->sw - c->pw;
		const float *src = dcols + r * cr->l;
		float *img = dx + px.img * image;
		uint32_t kh, kw;

		for (kh = 0; kh < c->kh; kh++) {
			int64_t ih = ih0 + (int64_t)kh * c->dh;
			const float *row = src + (uint64_t)kh * c->kw * c->c;

			if (ih < 0 || ih >= c->h)
				continue;
			for (kw = 0; kw < c->kw; kw++) {
				int64_t iw = iw0 + (int64_t)kw * c->dw;
				const float *s = row + kw * ch;
				float *d;

				if (iw < 0 || iw >= c->w)
					continue;
				d = img + ((uint64_t)ih * c->w + (uint64_t)iw) * ch;
				/* dx and the column gradient are separate buffers. */
				GSIM_CONV_IVDEP
				for (i = 0; i < ch; i++)
					d[i] += s[i];
			}
		}
	}
}

/*
 * D elements [e0, e0 + count) = alpha * acc + beta * C, rounded to D's
 * type; with a bias (FWD), C[e % K] from its FP32 copy 'bias'.
 */
static void epilogue(const struct gsim_mme_gemm *g, uint64_t e0, uint64_t count,
		     const float *acc, const float *bias)
{
	float row[GSIM_CONV_CHUNK], crow[GSIM_CONV_CHUNK];
	uint64_t i0, j;

	for (i0 = 0; i0 < count; i0 += GSIM_CONV_CHUNK) {
		uint64_t n = count - i0 < GSIM_CONV_CHUNK ? count - i0 : GSIM_CONV_CHUNK;

		if (g->read_c && bias) {
			/* The channel steps through K: no division per element. */
			uint64_t k = (e0 + i0) % g->conv.k;

			for (j = 0; j < n; j++) {
				crow[j] = bias[k];
				if (++k == g->conv.k)
					k = 0;
			}
		} else if (g->read_c)
			gsim_mme_load_f32(crow, g->c.mem + (e0 + i0) * g->c.esize, n, g->c.dtype);
		for (j = 0; j < n; j++) {
			float v = g->read_ab ? g->alpha * acc[i0 + j] : 0.0f;

			row[j] = g->read_c ? v + g->beta * crow[j] : v;
		}
		gsim_mme_store_f32(g->d.mem + (e0 + i0) * g->d.esize, row, n, g->d.dtype);
	}
}

static bool cancelled(const struct gsim_work *w)
{
	return w && gsim_work_cancelled(w);
}

/* Rows per block: a block's im2col tile holds about GSIM_CONV_TILE floats. */
static uint64_t block_rows(uint64_t l, uint64_t k, uint64_t total)
{
	uint64_t wide = l > k ? l : k, rows = GSIM_CONV_TILE / wide;

	if (rows < 1)
		rows = 1;
	return rows < total ? rows : total;
}

/* Make the scratch at least 'floats' long; false when that is too much. */
static bool scratch(struct gsim_mme *mme, uint64_t floats)
{
	uint64_t bytes = floats * sizeof(float);

	if (bytes > GAUDISIM_MME_STAGE_MAX)
		return false;
	if (mme->scratch.conv_size >= bytes)
		return true;
	free(mme->scratch.conv);
	mme->scratch.conv = malloc(bytes);
	mme->scratch.conv_size = mme->scratch.conv ? bytes : 0;
	return mme->scratch.conv != NULL;
}

/* The filters as FP32 [L x K]: in place when possible, else widened into wf. */
static const float *filters(const struct gsim_mme_gemm *g, uint64_t elems, float *wf)
{
	if (g->b.dtype == GAUDISIM_DTYPE_FP32 && GSIM_MME_FP32_IN_PLACE)
		return (const float *)g->b.mem;
	gsim_mme_load_f32(wf, g->b.mem, elems, g->b.dtype);
	return wf;
}

static int run_fwd(struct gsim_mme *mme, const struct conv_run *cr, const struct gsim_work *w)
{
	const struct gsim_mme_gemm *g = cr->g;
	uint64_t k = cr->c->k, total = cr->pixels * cr->c->n;
	uint64_t rows = block_rows(cr->l, k, total), wn = cr->l * k, p0;
	float *cols, *acc, *wf, *bias = NULL;
	const float *wt = NULL;

	if (!scratch(mme, rows * cr->l + rows * k + wn + k))
		return GAUDISIM_MME_ERR_NOMEM;
	cols = mme->scratch.conv;
	acc = cols + rows * cr->l;
	wf = acc + rows * k;
	if (g->read_ab)
		wt = filters(g, wn, wf);
	if (g->read_c && cr->c->bias) {
		bias = wf + wn;
		gsim_mme_load_f32(bias, g->c.mem, k, g->c.dtype);
	}
	for (p0 = 0; p0 < total && !cancelled(w); p0 += rows) {
		uint64_t nr = total - p0 < rows ? total - p0 : rows;

		if (g->read_ab) {
			gather_cols(cr, &g->a, p0, nr, cols);
			gsim_mme_sgemm((uint32_t)nr, (uint32_t)k, (uint32_t)cr->l, cols, cr->l,
				       wt, k, false, acc, k);
		}
		epilogue(g, p0 * k, nr * k, acc, bias);
	}
	return GAUDISIM_MME_ERR_NONE;
}

static int run_dedw(struct gsim_mme *mme, const struct conv_run *cr, const struct gsim_work *w)
{
	const struct gsim_mme_gemm *g = cr->g;
	uint64_t k = cr->c->k, total = cr->pixels * cr->c->n;
	uint64_t rows = block_rows(cr->l, k, total), wn = cr->l * k, p0, r, j;
	float *cols, *colst, *dy, *acc;

	if (!scratch(mme, 2 * rows * cr->l + rows * k + wn))
		return GAUDISIM_MME_ERR_NOMEM;
	cols = mme->scratch.conv;
	colst = cols + rows * cr->l;
	dy = colst + rows * cr->l;
	acc = dy + rows * k;
	for (p0 = 0; g->read_ab && p0 < total; p0 += rows) {
		uint64_t nr = total - p0 < rows ? total - p0 : rows;

		if (cancelled(w))
			return GAUDISIM_MME_ERR_NONE;
		gather_cols(cr, &g->a, p0, nr, cols);
		gsim_mme_load_f32(dy, g->b.mem + p0 * k * g->b.esize, nr * k, g->b.dtype);
#ifdef GSIM_HAVE_OPENBLAS
		(void)colst;
		(void)r;
		(void)j;
		gsim_blas_sgemm(true, false, (uint32_t)cr->l, (uint32_t)k, (uint32_t)nr, 1.0f, cols,
				cr->l, dy, k, p0 != 0 ? 1.0f : 0.0f, acc, k);
#else
		for (r = 0; r < nr; r++)
			for (j = 0; j < cr->l; j++)
				colst[j * nr + r] = cols[r * cr->l + j];
		gsim_mme_sgemm((uint32_t)cr->l, (uint32_t)k, (uint32_t)nr, colst, nr, dy, k,
			       p0 != 0, acc, k);
#endif
	}
	epilogue(g, 0, wn, acc, NULL);
	return GAUDISIM_MME_ERR_NONE;
}

static int run_dedx(struct gsim_mme *mme, const struct conv_run *cr, const struct gsim_work *w)
{
	const struct gsim_mme_gemm *g = cr->g;
	const struct gsim_mme_conv *c = cr->c;
	uint64_t image = (uint64_t)c->h * c->w * c->c, wn = cr->l * c->k, k = c->k;
	/* Whole images at a time, as many as fit a tile (at least one). */
	uint64_t widest = cr->pixels > image ? cr->pixels : image;
	uint64_t group = GSIM_CONV_TILE / widest ? GSIM_CONV_TILE / widest : 1;
	uint64_t rows, img0, q0, l, j;
	float *wt, *dy, *dcols, *dx, *wf;

	if (group > c->n)
		group = c->n;
	rows = block_rows(cr->l, k, group * cr->pixels);
	if (!scratch(mme, 2 * wn + rows * k + rows * cr->l + group * image))
		return GAUDISIM_MME_ERR_NOMEM;
	wt = mme->scratch.conv;
	wf = wt + wn;
	dy = wf + wn;
	dcols = dy + rows * k;
	dx = dcols + rows * cr->l;
	if (g->read_ab) {
		const float *wl = filters(g, wn, wf);

		for (l = 0; l < cr->l; l++)
			for (j = 0; j < k; j++)
				wt[j * cr->l + l] = wl[l * k + j];
	}
	for (img0 = 0; img0 < c->n; img0 += group) {
		uint64_t images = c->n - img0 < group ? c->n - img0 : group;
		uint64_t total = images * cr->pixels;

		if (cancelled(w))
			return GAUDISIM_MME_ERR_NONE;
		memset(dx, 0, images * image * sizeof(float));
		for (q0 = 0; g->read_ab && q0 < total; q0 += rows) {
			uint64_t nr = total - q0 < rows ? total - q0 : rows;

			gsim_mme_load_f32(dy, g->a.mem + (img0 * cr->pixels + q0) * k * g->a.esize,
					  nr * k, g->a.dtype);
			gsim_mme_sgemm((uint32_t)nr, (uint32_t)cr->l, (uint32_t)k, dy, k, wt,
				       cr->l, false, dcols, cr->l);
			scatter_cols(cr, q0, nr, dcols, dx);
		}
		epilogue(g, img0 * image, images * image, dx, NULL);
	}
	return GAUDISIM_MME_ERR_NONE;
}

int gsim_mme_conv_run(struct gsim_mme *mme, const struct gsim_mme_gemm *g,
		      const struct gsim_work *w)
{
	struct conv_run cr = {
		.g = g, .c = &g->conv,
		.l = (uint64_t)g->conv.kh * g->conv.kw * g->conv.c,
		.pixels = (uint64_t)g->conv.oh * g->conv.ow,
	};

	switch (g->op) {
	case GAUDISIM_MME_OP_CONV_FWD:
		return run_fwd(mme, &cr, w);
	case GAUDISIM_MME_OP_CONV_DEDX:
		return run_dedx(mme, &cr, w);
	default:
		return run_dedw(mme, &cr, w);
	}
}
