/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the MME, a GEMM / batched GEMM engine configured
 * through registers (hw/gaudisim_hw_mme.h has the contract).
 *
 * Two ways through a batch:
 *   direct  FP32 in and out on a little-endian host with OpenBLAS, D not
 *           overlapping A or B and C either unread, equal to D (same
 *           address and leading dimension) or disjoint from it: one
 *           cblas_sgemm on device memory, C copied into D first when they
 *           differ. This is the fast path for the common case.
 *   tiled   everything else (BF16 anywhere, alpha == 0, overlaps, no
 *           OpenBLAS): D is produced in tiles of at most GSIM_MME_TILE^2
 *           elements; for each tile, K is walked in GSIM_MME_TILE steps,
 *           the A and B tiles are widened to FP32 (exact for BF16) unless
 *           they can be used in place, and multiplied into an FP32
 *           accumulator; the epilogue applies alpha and beta and rounds to
 *           the output type. When D overlaps an input, the whole batch is
 *           staged and copied to D at the end, so the inputs are read
 *           before D changes.
 *
 * Validation happens before anything is written; extents are computed with
 * overflow checks, so a hostile configuration is refused, never followed.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_bf16.h"
#include "gsim_mme.h"

#ifdef GSIM_HAVE_OPENBLAS
#include "gsim_blas.h"
#define GSIM_MME_HAVE_BLAS	1
#else
#define GSIM_MME_HAVE_BLAS	0
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GSIM_HOST_LE		1
#else
#define GSIM_HOST_LE		0
#endif


#define REG(regs, off)		((regs)->r[(off) / 4])

/* 4-wide vectors: the same code is SSE on x86-64 and NEON on arm64. */
typedef float v4f __attribute__((vector_size(16)));
typedef uint32_t v4u __attribute__((vector_size(16)));
typedef uint16_t v4h __attribute__((vector_size(8)));

/* ---- registers ----------------------------------------------------------- */

void gsim_mme_init(struct gsim_mme *mme)
{
	memset(mme, 0, sizeof(*mme));
}

void gsim_mme_fini(struct gsim_mme *mme)
{
	free(mme->scratch.a);
	free(mme->scratch.b);
	free(mme->scratch.acc);
	free(mme->scratch.stage);
	free(mme->scratch.conv);
	memset(&mme->scratch, 0, sizeof(mme->scratch));
}

void gsim_mme_reset(struct gsim_mme *mme)
{
	memset(&mme->regs, 0, sizeof(mme->regs));
}

/*
 * Offsets 0x000..0x06C are GEMM configuration registers (0x070..0x07C are
 * holes), 0x100..0x130 the convolution geometry.
 */
static bool is_cfg_reg(uint32_t off)
{
	return off % 4 == 0 &&
	       (off <= GAUDISIM_MME_BETA ||
		(off >= GAUDISIM_MME_CONV_BASE &&
		 off < GAUDISIM_MME_CONV_BASE + 4 * GAUDISIM_MME_CONV_NUM_REGS));
}

bool gsim_mme_reg_read(const struct gsim_mme *mme, uint32_t off, uint32_t *value)
{
	*value = 0;
	if (is_cfg_reg(off)) {
		*value = mme->regs.r[off / 4];
		return true;
	}
	return off == GAUDISIM_MME_COMMIT;	/* write-only, reads 0 */
}

enum gsim_reg_status gsim_mme_reg_write(struct gsim_mme *mme, uint32_t off,
					uint32_t value, bool *commit)
{
	*commit = false;
	if (is_cfg_reg(off)) {
		mme->regs.r[off / 4] = value;
		return GSIM_REG_OK;
	}
	if (off != GAUDISIM_MME_COMMIT)
		return GSIM_REG_UNKNOWN;
	if (value != GAUDISIM_MME_COMMIT_GO)
		return GSIM_REG_BAD_VALUE;
	*commit = true;
	return GSIM_REG_OK;
}

const char *gsim_mme_backend(void)
{
	return GSIM_MME_HAVE_BLAS ? "openblas" : "portable";
}

#if GSIM_MME_HAVE_BLAS
static char kernels_name[64];
static pthread_once_t kernels_once = PTHREAD_ONCE_INIT;

static void kernels_name_set(void)
{
	snprintf(kernels_name, sizeof(kernels_name), "openblas-%s", gsim_blas_kernels());
}
#endif

const char *gsim_mme_kernels(void)
{
#if GSIM_MME_HAVE_BLAS
	pthread_once(&kernels_once, kernels_name_set);
	return kernels_name;
#else
	return "portable";
#endif
}

const char *gsim_mme_err_name(int err)
{
	switch (err) {
	case GAUDISIM_MME_ERR_NONE:
		return "none";
	case GAUDISIM_MME_ERR_DIM:
		return "bad dimension";
	case GAUDISIM_MME_ERR_DTYPE:
		return "unsupported data type";
	case GAUDISIM_MME_ERR_LD:
		return "bad leading dimension";
	case GAUDISIM_MME_ERR_ADDR:
		return "operand outside HBM/SRAM";
	case GAUDISIM_MME_ERR_ALIGN:
		return "misaligned operand";
	case GAUDISIM_MME_ERR_FIELD:
		return "reserved bits set";
	case GAUDISIM_MME_ERR_OVERFLOW:
		return "operand extent overflows";
	case GAUDISIM_MME_ERR_NOMEM:
		return "out of host memory";
	case GAUDISIM_MME_ERR_OVERLAP:
		return "output overlaps an input";
	}
	return "?";
}

/* ---- validation ---------------------------------------------------------- */

static uint64_t reg64(const struct gsim_mme_regs *regs, uint32_t lo)
{
	return (uint64_t)REG(regs, lo) | (uint64_t)REG(regs, lo + 4) << 32;
}

static bool dtype_ok(unsigned int dtype)
{
	return dtype == GAUDISIM_DTYPE_FP32 || dtype == GAUDISIM_DTYPE_BF16;
}

/* Bytes spanned by one batch of an operand (cannot overflow: see limits). */
static uint64_t batch_bytes(const struct gsim_mme_operand *op)
{
	return ((uint64_t)(op->rows - 1) * op->ld + op->cols) * op->esize;
}

/*
 * Check one operand: alignment, 64-bit extent over all batches, and that
 * the whole extent is one HBM or SRAM range. Fills op->mem.
 */
static int check_operand(struct gsim_core *core, struct gsim_mme_operand *op,
			 uint32_t batch, const char *name)
{
	struct gsim_span span;
	uint64_t span_elems, total, bytes;

	if (op->addr % op->esize) {
		gsim_log(core, "gaudisim: mme: %s address 0x%" PRIx64
			 " is not aligned to its %u-byte elements", name, op->addr, op->esize);
		return GAUDISIM_MME_ERR_ALIGN;
	}
	span_elems = (uint64_t)(op->rows - 1) * op->ld + op->cols;
	if (__builtin_mul_overflow((uint64_t)(batch - 1), op->stride, &total) ||
	    __builtin_add_overflow(total, span_elems, &total) ||
	    __builtin_mul_overflow(total, (uint64_t)op->esize, &bytes)) {
		gsim_log(core, "gaudisim: mme: %s extent overflows (batch stride 0x%" PRIx64
			 " x %u batches)", name, op->stride, batch);
		return GAUDISIM_MME_ERR_OVERFLOW;
	}
	if (!gsim_dma_decode(core, op->addr, bytes, &span) ||
	    (span.rgn != GSIM_RGN_HBM && span.rgn != GSIM_RGN_SRAM)) {
		gsim_log(core, "gaudisim: mme: %s range 0x%" PRIx64 " + 0x%" PRIx64
			 " bytes is not inside HBM or SRAM", name, op->addr, bytes);
		return GAUDISIM_MME_ERR_ADDR;
	}
	op->mem = span.mem;
	return GAUDISIM_MME_ERR_NONE;
}

static void set_operand(struct gsim_mme_operand *op, const struct gsim_mme_regs *regs,
			uint32_t addr_lo, uint32_t ld_reg, uint32_t stride_lo,
			uint32_t rows, uint32_t cols, unsigned int dtype)
{
	op->addr = reg64(regs, addr_lo);
	op->ld = REG(regs, ld_reg);
	op->stride = reg64(regs, stride_lo);
	op->rows = rows;
	op->cols = cols;
	op->dtype = dtype;
	op->esize = gaudisim_dtype_size(dtype);
	op->mem = NULL;
}

static int check_ld(struct gsim_core *core, const struct gsim_mme_operand *op,
		    const char *name)
{
	if (op->ld < op->cols || op->ld > GAUDISIM_MME_LD_MAX) {
		gsim_log(core, "gaudisim: mme: LD%s = %" PRIu64 " but rows have %u elements"
			 " (maximum %u)", name, op->ld, op->cols, GAUDISIM_MME_LD_MAX);
		return GAUDISIM_MME_ERR_LD;
	}
	return GAUDISIM_MME_ERR_NONE;
}

static bool dim_ok(uint32_t v, uint32_t max)
{
	return v >= 1 && v <= max;
}

int gsim_mme_decode(struct gsim_core *core, const struct gsim_mme_regs *regs,
		    struct gsim_mme_gemm *g)
{
	uint32_t dtype = REG(regs, GAUDISIM_MME_DTYPE), ctrl = REG(regs, GAUDISIM_MME_CTRL);
	unsigned int in = GAUDISIM_MME_DTYPE_IN(dtype), out = GAUDISIM_MME_DTYPE_OUT(dtype);
	uint64_t macs;
	int err;

	memset(g, 0, sizeof(*g));
	if ((dtype & ~GAUDISIM_MME_DTYPE_VALID_MASK) || (ctrl & ~GAUDISIM_MME_CTRL_VALID_MASK) ||
	    ((ctrl & GAUDISIM_MME_CTRL_CONV_BIAS) &&
	     GAUDISIM_MME_CTRL_OP(ctrl) != GAUDISIM_MME_OP_CONV_FWD)) {
		gsim_log(core, "gaudisim: mme: reserved bits set (DTYPE 0x%x, CTRL 0x%x)",
			 dtype, ctrl);
		return GAUDISIM_MME_ERR_FIELD;
	}
	if (!dtype_ok(in) || !dtype_ok(out)) {
		gsim_log(core, "gaudisim: mme: data types in %u / out %u: only FP32 (%d) and"
			 " BF16 (%d) are supported", in, out, GAUDISIM_DTYPE_FP32,
			 GAUDISIM_DTYPE_BF16);
		return GAUDISIM_MME_ERR_DTYPE;
	}
	g->op = GAUDISIM_MME_CTRL_OP(ctrl);
	if (g->op != GAUDISIM_MME_OP_GEMM)
		return gsim_mme_conv_decode(core, regs, g);

	g->m = REG(regs, GAUDISIM_MME_M);
	g->n = REG(regs, GAUDISIM_MME_N);
	g->k = REG(regs, GAUDISIM_MME_K);
	g->batch = REG(regs, GAUDISIM_MME_BATCH);
	if (!dim_ok(g->m, GAUDISIM_MME_DIM_MAX) || !dim_ok(g->n, GAUDISIM_MME_DIM_MAX) ||
	    !dim_ok(g->k, GAUDISIM_MME_DIM_MAX) || !dim_ok(g->batch, GAUDISIM_MME_BATCH_MAX)) {
		gsim_log(core, "gaudisim: mme: M=%u N=%u K=%u BATCH=%u: each must be 1..%u"
			 " (BATCH 1..%u)", g->m, g->n, g->k, g->batch,
			 GAUDISIM_MME_DIM_MAX, GAUDISIM_MME_BATCH_MAX);
		return GAUDISIM_MME_ERR_DIM;
	}
	/* m * n * k <= 2^60 cannot overflow; compare with the batch folded in. */
	macs = (uint64_t)g->m * g->n * g->k;
	if (macs > (1ull << GAUDISIM_MME_MACS_MAX_LOG2) / g->batch) {
		gsim_log(core, "gaudisim: mme: %u x %u x %u x %u batches exceeds 2^%d"
			 " multiply-adds per commit", g->m, g->n, g->k, g->batch,
			 GAUDISIM_MME_MACS_MAX_LOG2);
		return GAUDISIM_MME_ERR_DIM;
	}

	g->trans_a = ctrl & GAUDISIM_MME_CTRL_TRANSPOSE_A;
	g->trans_b = ctrl & GAUDISIM_MME_CTRL_TRANSPOSE_B;
	g->alpha = gsim_bits_f32(REG(regs, GAUDISIM_MME_ALPHA));
	g->beta = gsim_bits_f32(REG(regs, GAUDISIM_MME_BETA));
	g->read_ab = g->alpha != 0.0f;
	g->read_c = g->beta != 0.0f;

	set_operand(&g->a, regs, GAUDISIM_MME_A_ADDR_LO, GAUDISIM_MME_LDA,
		    GAUDISIM_MME_A_BATCH_STRIDE_LO, g->trans_a ? g->k : g->m,
		    g->trans_a ? g->m : g->k, in);
	set_operand(&g->b, regs, GAUDISIM_MME_B_ADDR_LO, GAUDISIM_MME_LDB,
		    GAUDISIM_MME_B_BATCH_STRIDE_LO, g->trans_b ? g->n : g->k,
		    g->trans_b ? g->k : g->n, in);
	set_operand(&g->c, regs, GAUDISIM_MME_C_ADDR_LO, GAUDISIM_MME_LDC,
		    GAUDISIM_MME_C_BATCH_STRIDE_LO, g->m, g->n, out);
	set_operand(&g->d, regs, GAUDISIM_MME_D_ADDR_LO, GAUDISIM_MME_LDD,
		    GAUDISIM_MME_D_BATCH_STRIDE_LO, g->m, g->n, out);

	/* Operands that are not read (alpha or beta 0) are not checked either. */
	if ((g->read_ab && (err = check_ld(core, &g->a, "A"))) ||
	    (g->read_ab && (err = check_ld(core, &g->b, "B"))) ||
	    (g->read_c && (err = check_ld(core, &g->c, "C"))) ||
	    (err = check_ld(core, &g->d, "D")))
		return err;
	if ((g->read_ab && (err = check_operand(core, &g->a, g->batch, "A"))) ||
	    (g->read_ab && (err = check_operand(core, &g->b, g->batch, "B"))) ||
	    (g->read_c && (err = check_operand(core, &g->c, g->batch, "C"))) ||
	    (err = check_operand(core, &g->d, g->batch, "D")))
		return err;
	return GAUDISIM_MME_ERR_NONE;
}

/* ---- conversions (vectorized forms of gsim_bf16.h) ------------------------ */

/* Load n elements of dtype (little-endian device data) as FP32. */
static void load_f32(float *dst, const uint8_t *src, size_t n, unsigned int dtype)
{
	size_t i = 0;

	if (dtype == GAUDISIM_DTYPE_FP32) {
		if (GSIM_HOST_LE) {
			memcpy(dst, src, n * sizeof(float));
			return;
		}
		for (; i < n; i++)
			dst[i] = gsim_bits_f32(gsim_ld_le32(src + 4 * i));
		return;
	}
	if (GSIM_HOST_LE) {
		for (; i + 4 <= n; i += 4) {
			v4h h;
			v4u w;

			memcpy(&h, src + 2 * i, sizeof(h));
			w = __builtin_convertvector(h, v4u) << 16;
			memcpy(dst + i, &w, sizeof(w));
		}
	}
	for (; i < n; i++)
		dst[i] = gsim_bf16_to_f32((uint16_t)(src[2 * i] | src[2 * i + 1] << 8));
}

/* Store n FP32 values as dtype (little-endian device data). */
static void store_f32(uint8_t *dst, const float *src, size_t n, unsigned int dtype)
{
	size_t i = 0;

	if (dtype == GAUDISIM_DTYPE_FP32) {
		if (GSIM_HOST_LE) {
			memcpy(dst, src, n * sizeof(float));
			return;
		}
		for (; i < n; i++)
			gsim_st_le32(dst + 4 * i, gsim_f32_bits(src[i]));
		return;
	}
	if (GSIM_HOST_LE) {
		const v4u abs_mask = { 0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu };
		const v4u inf = { 0x7f800000u, 0x7f800000u, 0x7f800000u, 0x7f800000u };

		for (; i + 4 <= n; i += 4) {
			v4u u, nan, rne, quiet;
			v4h h;

			memcpy(&u, src + i, sizeof(u));
			nan = (v4u)((u & abs_mask) > inf);
			rne = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
			quiet = (u >> 16) | GSIM_BF16_QUIET_BIT;
			h = __builtin_convertvector((rne & ~nan) | (quiet & nan), v4h);
			memcpy(dst + 2 * i, &h, sizeof(h));
		}
	}
	for (; i < n; i++) {
		uint16_t h = gsim_f32_to_bf16(src[i]);

		dst[2 * i] = (uint8_t)h;
		dst[2 * i + 1] = (uint8_t)(h >> 8);
	}
}

void gsim_mme_load_f32(float *dst, const void *src, size_t n, unsigned int dtype)
{
	load_f32(dst, src, n, dtype);
}

void gsim_mme_store_f32(void *dst, const float *src, size_t n, unsigned int dtype)
{
	store_f32(dst, src, n, dtype);
}

/* ---- the FP32 tile product ------------------------------------------------ */

/*
 * c[m x n] (row stride ldc) = (accumulate ? c : 0) + op(a) @ op(b), FP32,
 * row-major. Without OpenBLAS only untransposed operands reach here.
 */
static void tile_gemm(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k,
		      const float *a, uint64_t lda, const float *b, uint64_t ldb,
		      bool accumulate, float *c, uint64_t ldc)
{
#if GSIM_MME_HAVE_BLAS
	gsim_blas_sgemm(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, accumulate ? 1.0f : 0.0f, c, ldc);
#else
	/*
	 * Portable: four rows of C at a time, so every row of B that is
	 * loaded feeds four rows; k ascending for every element.
	 */
	uint32_t i0, r, kk, j;

	(void)ta;
	(void)tb;
	for (i0 = 0; i0 < m; i0 += 4) {
		uint32_t rows = m - i0 < 4 ? m - i0 : 4;

		if (!accumulate)
			for (r = 0; r < rows; r++)
				memset(c + (i0 + r) * ldc, 0, n * sizeof(float));
		for (kk = 0; kk < k; kk++) {
			const float *brow = b + kk * ldb;
			float av[4] = { 0, 0, 0, 0 };

			for (r = 0; r < rows; r++)
				av[r] = a[(i0 + r) * lda + kk];
			for (j = 0; j + 4 <= n; j += 4) {
				v4f bv, cv;

				memcpy(&bv, brow + j, sizeof(bv));
				for (r = 0; r < rows; r++) {
					float *cr = c + (i0 + r) * ldc + j;

					memcpy(&cv, cr, sizeof(cv));
					cv += av[r] * bv;
					memcpy(cr, &cv, sizeof(cv));
				}
			}
			for (; j < n; j++)
				for (r = 0; r < rows; r++)
					c[(i0 + r) * ldc + j] += av[r] * brow[j];
		}
	}
#endif
}

void gsim_mme_sgemm(uint32_t m, uint32_t n, uint32_t k, const float *a, uint64_t lda,
		    const float *b, uint64_t ldb, bool accumulate, float *c, uint64_t ldc)
{
	tile_gemm(false, false, m, n, k, a, lda, b, ldb, accumulate, c, ldc);
}

/* ---- running a GEMM ------------------------------------------------------- */

struct range {
	uint64_t lo, hi;	/* device addresses [lo, hi) */
};

static struct range batch_range(const struct gsim_mme_operand *op, uint64_t b)
{
	struct range r;

	r.lo = op->addr + b * op->stride * op->esize;
	r.hi = r.lo + batch_bytes(op);
	return r;
}

static bool overlap(struct range x, struct range y)
{
	return x.lo < y.hi && y.lo < x.hi;
}

static uint8_t *batch_mem(const struct gsim_mme_operand *op, uint64_t b)
{
	return op->mem + b * op->stride * op->esize;
}

/* Does D of batch b overlap an input that this batch reads? */
static bool d_overlaps_inputs(const struct gsim_mme_gemm *g, uint64_t b, bool *c_is_d)
{
	struct range d = batch_range(&g->d, b);
	bool hit = false;

	*c_is_d = false;
	if (g->read_ab)
		hit = overlap(d, batch_range(&g->a, b)) || overlap(d, batch_range(&g->b, b));
	if (g->read_c) {
		struct range c = batch_range(&g->c, b);

		*c_is_d = c.lo == d.lo && g->c.ld == g->d.ld;
		if (!*c_is_d && overlap(d, c))
			hit = true;
	}
	return hit;
}

static bool cancelled(const struct gsim_work *w)
{
	return w && gsim_work_cancelled(w);
}

/*
 * Edge of the D blocks the direct path computes one cblas_sgemm each: at
 * most GSIM_MME_STEP_MACS multiply-adds per block (full rows when they
 * fit), never fewer than GSIM_MME_STEP_MIN rows or columns. A cancelled
 * GEMM stops after one block. The blocks follow from the shape alone, so
 * a GEMM's result depends on its shape (and, from GSIM_BLAS_SHARED_MACS
 * up, OpenBLAS's thread count: gsim_blas.h), never on timing. (OpenBLAS
 * rounds a product split by rows or over threads differently from the
 * whole, which is why a GEMM below this size stays one call.)
 */
#define GSIM_MME_STEP_MACS	(1ull << 30)
#define GSIM_MME_STEP_MIN	64u

#if GSIM_MME_HAVE_BLAS
static uint32_t step_rows(const struct gsim_mme_gemm *g)
{
	uint64_t rows = GSIM_MME_STEP_MACS / ((uint64_t)g->n * g->k);

	if (rows < GSIM_MME_STEP_MIN)
		rows = GSIM_MME_STEP_MIN;
	return rows < g->m ? (uint32_t)rows : g->m;
}

static uint32_t step_cols(const struct gsim_mme_gemm *g, uint32_t rows)
{
	uint64_t cols = GSIM_MME_STEP_MACS / ((uint64_t)rows * g->k);

	if (cols < GSIM_MME_STEP_MIN)
		cols = GSIM_MME_STEP_MIN;
	return cols < g->n ? (uint32_t)cols : g->n;
}
#endif

/* cblas_sgemm on device memory, block by block (FP32 in and out, no harmful overlap). */
static void run_direct(const struct gsim_mme_gemm *g, uint64_t b, bool c_is_d,
		       const struct gsim_work *w)
{
#if GSIM_MME_HAVE_BLAS
	const float *a = (const float *)batch_mem(&g->a, b);
	const float *bm = (const float *)batch_mem(&g->b, b);
	float *d = (float *)batch_mem(&g->d, b);
	uint32_t rows = step_rows(g), cols = step_cols(g, rows), i0, j0, i;

	for (i0 = 0; i0 < g->m; i0 += rows) {
		uint32_t mr = g->m - i0 < rows ? g->m - i0 : rows;

		for (j0 = 0; j0 < g->n; j0 += cols) {
			uint32_t nc = g->n - j0 < cols ? g->n - j0 : cols;
			const float *pa = g->trans_a ? a + i0 : a + (uint64_t)i0 * g->a.ld;
			const float *pb = g->trans_b ? bm + (uint64_t)j0 * g->b.ld : bm + j0;
			float *pd = d + (uint64_t)i0 * g->d.ld + j0;

			if (cancelled(w))
				return;
			if (g->read_c && !c_is_d) {
				const uint8_t *c = batch_mem(&g->c, b);

				for (i = 0; i < mr; i++)
					memcpy(pd + (uint64_t)i * g->d.ld,
					       c + ((uint64_t)(i0 + i) * g->c.ld + j0) * sizeof(float),
					       nc * sizeof(float));
			}
			gsim_blas_sgemm(g->trans_a, g->trans_b, mr, nc, g->k, g->alpha, pa,
					g->a.ld, pb, g->b.ld, g->read_c ? g->beta : 0.0f, pd,
					g->d.ld);
		}
	}
#else
	(void)g;
	(void)b;
	(void)c_is_d;
	(void)w;
#endif
}

static bool direct_possible(const struct gsim_mme_gemm *g)
{
	return GSIM_MME_HAVE_BLAS && GSIM_HOST_LE && g->read_ab &&
	       g->a.dtype == GAUDISIM_DTYPE_FP32 && g->d.dtype == GAUDISIM_DTYPE_FP32;
}

/* Inputs can be handed to the tile product in place (no widening needed). */
static bool inputs_in_place(const struct gsim_mme_gemm *g)
{
	return GSIM_MME_HAVE_BLAS && GSIM_HOST_LE && g->a.dtype == GAUDISIM_DTYPE_FP32;
}

/*
 * Widen the stored block rows [r0, r0 + nr) x cols [c0, c0 + nc) of an
 * operand into dst as op() orientation: when 'trans', dst[c][r] (nr wide),
 * else dst[r][c] (nc wide).
 */
static void widen_block(float *dst, const struct gsim_mme_operand *op, const uint8_t *base,
			bool trans, uint32_t r0, uint32_t nr, uint32_t c0, uint32_t nc)
{
	float row[GSIM_MME_TILE];
	uint32_t r, c;

	for (r = 0; r < nr; r++) {
		const uint8_t *src = base + ((uint64_t)(r0 + r) * op->ld + c0) * op->esize;

		if (!trans) {
			load_f32(dst + (uint64_t)r * nc, src, nc, op->dtype);
			continue;
		}
		load_f32(row, src, nc, op->dtype);
		for (c = 0; c < nc; c++)
			dst[(uint64_t)c * nr + r] = row[c];
	}
}

struct tile {
	uint32_t m0, n0, mt, nt;
};

/* acc[mt x nt] = op(A)[m0.., :] @ op(B)[:, n0..] over all of K. */
static void tile_product(struct gsim_mme *mme, const struct gsim_mme_gemm *g, uint64_t b,
			 const struct tile *t)
{
	const uint8_t *abase = batch_mem(&g->a, b), *bbase = batch_mem(&g->b, b);
	bool in_place = inputs_in_place(g);
	uint32_t k0;

	if (g->a.dtype == GAUDISIM_DTYPE_BF16) {
		if (gsim_mme_bf16_tile(mme, g, b, t->m0, t->mt, t->n0, t->nt)) {
			mme->bf16_native_tiles++;
			return;
		}
		mme->bf16_fp32_tiles++;
	}

	for (k0 = 0; k0 < g->k; k0 += GSIM_MME_TILE) {
		uint32_t kt = g->k - k0 < GSIM_MME_TILE ? g->k - k0 : GSIM_MME_TILE;
		const float *pa, *pb;
		uint64_t lda, ldb;
		bool ta = false, tb = false;

		if (in_place) {
			ta = g->trans_a;
			tb = g->trans_b;
			pa = (const float *)abase +
			     (ta ? (uint64_t)k0 * g->a.ld + t->m0 : (uint64_t)t->m0 * g->a.ld + k0);
			pb = (const float *)bbase +
			     (tb ? (uint64_t)t->n0 * g->b.ld + k0 : (uint64_t)k0 * g->b.ld + t->n0);
			lda = g->a.ld;
			ldb = g->b.ld;
		} else {
			if (g->trans_a)
				widen_block(mme->scratch.a, &g->a, abase, true, k0, kt, t->m0, t->mt);
			else
				widen_block(mme->scratch.a, &g->a, abase, false, t->m0, t->mt, k0, kt);
			if (g->trans_b)
				widen_block(mme->scratch.b, &g->b, bbase, true, t->n0, t->nt, k0, kt);
			else
				widen_block(mme->scratch.b, &g->b, bbase, false, k0, kt, t->n0, t->nt);
			pa = mme->scratch.a;
			pb = mme->scratch.b;
			lda = kt;
			ldb = t->nt;
		}
		tile_gemm(ta, tb, t->mt, t->nt, kt, pa, lda, pb, ldb, k0 != 0,
			  mme->scratch.acc, t->nt);
	}
}

/* D tile = alpha * acc + beta * C, rounded to the output type. */
static void tile_epilogue(struct gsim_mme *mme, const struct gsim_mme_gemm *g, uint64_t b,
			  const struct tile *t, uint8_t *dst, uint64_t ldd)
{
	const uint8_t *cbase = g->read_c ? batch_mem(&g->c, b) : NULL;
	const v4f va = { g->alpha, g->alpha, g->alpha, g->alpha };
	const v4f vb = { g->beta, g->beta, g->beta, g->beta };
	float row[GSIM_MME_TILE], crow[GSIM_MME_TILE];
	uint32_t i, j;

	for (i = 0; i < t->mt; i++) {
		const float *acc = mme->scratch.acc + (uint64_t)i * t->nt;

		if (g->read_c)
			load_f32(crow, cbase + ((uint64_t)(t->m0 + i) * g->c.ld + t->n0) *
				 g->c.esize, t->nt, g->c.dtype);
		if (!g->read_ab) {
			for (j = 0; j < t->nt; j++)
				row[j] = g->read_c ? g->beta * crow[j] : 0.0f;
		} else if (!g->read_c) {
			for (j = 0; j + 4 <= t->nt; j += 4) {
				v4f v;

				memcpy(&v, acc + j, sizeof(v));
				v *= va;
				memcpy(row + j, &v, sizeof(v));
			}
			for (; j < t->nt; j++)
				row[j] = g->alpha * acc[j];
		} else {
			for (j = 0; j + 4 <= t->nt; j += 4) {
				v4f v, cv;

				memcpy(&v, acc + j, sizeof(v));
				memcpy(&cv, crow + j, sizeof(cv));
				v = va * v + vb * cv;
				memcpy(row + j, &v, sizeof(v));
			}
			for (; j < t->nt; j++)
				row[j] = g->alpha * acc[j] + g->beta * crow[j];
		}
		store_f32(dst + ((uint64_t)(t->m0 + i) * ldd + t->n0) * g->d.esize, row, t->nt,
			  g->d.dtype);
	}
}

static void run_tiled(struct gsim_mme *mme, const struct gsim_mme_gemm *g, uint64_t b,
		      bool staged, const struct gsim_work *w)
{
	/* Staged: D lands in a dense M x N buffer first, copied out at the end. */
	uint8_t *dst = staged ? mme->scratch.stage : batch_mem(&g->d, b);
	uint64_t ldd = staged ? g->n : g->d.ld;
	struct tile t;
	uint32_t i;

	for (t.m0 = 0; t.m0 < g->m; t.m0 += GSIM_MME_TILE) {
		t.mt = g->m - t.m0 < GSIM_MME_TILE ? g->m - t.m0 : GSIM_MME_TILE;
		for (t.n0 = 0; t.n0 < g->n; t.n0 += GSIM_MME_TILE) {
			t.nt = g->n - t.n0 < GSIM_MME_TILE ? g->n - t.n0 : GSIM_MME_TILE;
			if (cancelled(w))
				return;
			if (g->read_ab)
				tile_product(mme, g, b, &t);
			tile_epilogue(mme, g, b, &t, dst, ldd);
		}
	}
	if (staged) {
		uint8_t *d = batch_mem(&g->d, b);
		uint64_t row = (uint64_t)g->n * g->d.esize;

		for (i = 0; i < g->m; i++)
			memcpy(d + i * g->d.ld * g->d.esize, dst + i * row, row);
	}
}

static float *alloc_tile(float **p)
{
	if (!*p)
		*p = malloc((size_t)GSIM_MME_TILE * GSIM_MME_TILE * sizeof(float));
	return *p;
}

int gsim_mme_run(struct gsim_mme *mme, const struct gsim_mme_gemm *g)
{
	return gsim_mme_run_work(mme, g, NULL);
}

int gsim_mme_run_work(struct gsim_mme *mme, const struct gsim_mme_gemm *g,
		      const struct gsim_work *w)
{
	bool tiles_needed = false, stage_needed = false, c_is_d;
	uint64_t b;

	if (g->op != GAUDISIM_MME_OP_GEMM)
		return gsim_mme_conv_run(mme, g, w);
	/* Decide every batch's path first, so memory fails before any write. */
	for (b = 0; b < g->batch; b++) {
		bool hit = d_overlaps_inputs(g, b, &c_is_d);

		if (hit)
			stage_needed = true;
		if (hit || !direct_possible(g))
			tiles_needed = true;
	}
	if (tiles_needed &&
	    (!alloc_tile(&mme->scratch.a) || !alloc_tile(&mme->scratch.b) ||
	     !alloc_tile(&mme->scratch.acc)))
		return GAUDISIM_MME_ERR_NOMEM;
	if (stage_needed) {
		uint64_t need = (uint64_t)g->m * g->n * g->d.esize;

		if (need > GAUDISIM_MME_STAGE_MAX)
			return GAUDISIM_MME_ERR_NOMEM;
		if (mme->scratch.stage_size < need) {
			free(mme->scratch.stage);
			mme->scratch.stage = malloc(need);
			mme->scratch.stage_size = mme->scratch.stage ? need : 0;
			if (!mme->scratch.stage)
				return GAUDISIM_MME_ERR_NOMEM;
		}
	}

	for (b = 0; b < g->batch && !cancelled(w); b++) {
		bool hit = d_overlaps_inputs(g, b, &c_is_d);

		if (!hit && direct_possible(g))
			run_direct(g, b, c_is_d, w);
		else
			run_tiled(mme, g, b, hit, w);
	}
	return GAUDISIM_MME_ERR_NONE;
}

uint64_t gsim_mme_gemm_flops(const struct gsim_mme_gemm *g)
{
	if (g->op != GAUDISIM_MME_OP_GEMM)
		return 2 * g->conv.macs;
	return 2ull * g->m * g->n * g->k * g->batch;
}

int gsim_mme_execute(struct gsim_core *core, struct gsim_mme *mme,
		     const struct gsim_mme_regs *regs)
{
	struct gsim_mme_gemm g;
	int err = gsim_mme_decode(core, regs, &g);

	if (err)
		return err;
	err = gsim_mme_run(mme, &g);
	if (err)
		gsim_log(core, "gaudisim: mme: %s (%ux%ux%u, %u batches)",
			 gsim_mme_err_name(err), g.m, g.n, g.k, g.batch);
	return err;
}
