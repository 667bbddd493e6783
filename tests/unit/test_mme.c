/* SPDX-License-Identifier: MIT */
/*
 * The MME: BF16 conversions (known patterns, ties to even, NaN, every BF16
 * value, an independent rounding model), the register block, GEMMs against
 * the reference op (bit-exact on integer-valued data for every layout the
 * registers can express; within the documented bound on fractional data),
 * aliasing, the multi-tile paths and refused configurations.
 *
 * Every GEMM runs on a snapshot too: the reference computes the snapshot's
 * D, then the device memory must equal the snapshot byte for byte (exact
 * tests), or D within the bound and every other byte unchanged.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GSIM_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include "gsim_bf16.h"
#include "gsim_blas.h"
#include "gsim_mme.h"
#include "gsim_ref.h"
#include "gsim_test.h"

#define ARENA_HBM	(GAUDISIM_HBM_USER_BASE + (64ull << 20))
#define ARENA_SRAM	(GAUDISIM_SRAM_BASE + (1ull << 20))
#define ARENA_SRAM_MAX	(GAUDISIM_SRAM_SIZE - (1ull << 20))

static struct gsim_mme M;

static void mme_setup(void)
{
	th_setup();
	gsim_mme_init(&M);
}

static void mme_teardown(void)
{
	gsim_mme_fini(&M);
	th_teardown();
}

/* ---- deterministic random numbers ----------------------------------------- */

static uint64_t rng = 1;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

/* ---- device memory and the snapshot --------------------------------------- */

struct arena {
	uint64_t hbm_size, sram_size;
	uint64_t hbm_next, sram_next;
	uint8_t *snap_hbm, *snap_sram;	/* reference's copy */
	uint8_t *orig_hbm, *orig_sram;	/* inputs before the run */
};

static struct arena A;

/*
 * Host pointer of a device address. No ck_assert on the way: in Check's
 * fork mode every passing assertion is a write to the parent, far too slow
 * for per-element functions; failures still abort the test.
 */
static uint8_t *dev_ptr(uint64_t addr)
{
	if (addr >= GAUDISIM_SRAM_BASE && addr < GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE)
		return T->core->sram + (addr - GAUDISIM_SRAM_BASE);
	if (addr >= T_HBM_SIZE)
		ck_abort_msg("test address 0x%llx is not in HBM or SRAM",
			     (unsigned long long)addr);
	return T->core->hbm + addr;
}

static void arena_init(uint64_t hbm_size, uint64_t sram_size)
{
	A.hbm_size = hbm_size;
	A.sram_size = sram_size;
	A.hbm_next = 0;
	A.sram_next = 0;
	free(A.snap_hbm);
	free(A.snap_sram);
	free(A.orig_hbm);
	free(A.orig_sram);
	A.snap_hbm = malloc(hbm_size);
	A.snap_sram = malloc(sram_size);
	A.orig_hbm = malloc(hbm_size);
	A.orig_sram = malloc(sram_size);
	ck_assert(A.snap_hbm && A.snap_sram && A.orig_hbm && A.orig_sram);
	memset(dev_ptr(ARENA_HBM), 0, hbm_size);
	memset(dev_ptr(ARENA_SRAM), 0, sram_size);
}

static void arena_reset(void)
{
	A.hbm_next = 0;
	A.sram_next = 0;
}

static void arena_snapshot(void)
{
	memcpy(A.snap_hbm, dev_ptr(ARENA_HBM), A.hbm_size);
	memcpy(A.snap_sram, dev_ptr(ARENA_SRAM), A.sram_size);
	memcpy(A.orig_hbm, A.snap_hbm, A.hbm_size);
	memcpy(A.orig_sram, A.snap_sram, A.sram_size);
}

/* Where a device address lives in the snapshot (or the pre-run copy). */
static uint8_t *snap_ptr(uint64_t addr, bool orig)
{
	if (addr >= ARENA_SRAM && addr < ARENA_SRAM + A.sram_size)
		return (orig ? A.orig_sram : A.snap_sram) + (addr - ARENA_SRAM);
	if (addr < ARENA_HBM || addr >= ARENA_HBM + A.hbm_size)
		ck_abort_msg("address 0x%llx outside the test arena", (unsigned long long)addr);
	return (orig ? A.orig_hbm : A.snap_hbm) + (addr - ARENA_HBM);
}

/* Allocate bytes in HBM or SRAM, aligned to align, after a random gap. */
static uint64_t arena_alloc(uint64_t bytes, unsigned int align, bool sram)
{
	uint64_t *next = sram ? &A.sram_next : &A.hbm_next;
	uint64_t size = sram ? A.sram_size : A.hbm_size;
	uint64_t off = (*next + align * rnd_below(8) + 63) / 64 * 64 + align * rnd_below(4);

	if (off + bytes > size)
		ck_abort_msg("test arena too small: %llu + %llu > %llu",
			     (unsigned long long)off, (unsigned long long)bytes,
			     (unsigned long long)size);
	*next = off + bytes;
	return (sram ? ARENA_SRAM : ARENA_HBM) + off;
}

/* ---- element access -------------------------------------------------------- */

static void store_val(uint8_t *p, unsigned int dtype, float v)
{
	if (dtype == GAUDISIM_DTYPE_BF16) {
		uint16_t h = gsim_f32_to_bf16(v);

		memcpy(p, &h, 2);
	} else {
		memcpy(p, &v, 4);
	}
}

static float load_val(const uint8_t *p, unsigned int dtype)
{
	if (dtype == GAUDISIM_DTYPE_BF16) {
		uint16_t h;

		memcpy(&h, p, 2);
		return gsim_bf16_to_f32(h);
	}
	return gsim_bits_f32(dev_rd32(p));
}

/* ---- GEMM descriptions ---------------------------------------------------- */

struct mm {
	uint64_t addr, ld, stride;
};

struct cfg {
	uint32_t m, n, k, batch;
	unsigned int in, out;
	bool ta, tb;
	float alpha, beta;
	struct mm a, b, c, d;
	uint32_t dtype_raw, ctrl_raw;	/* used when non-zero */
};

static unsigned int esize(unsigned int dtype)
{
	return gaudisim_dtype_size(dtype);
}

static void a_shape(const struct cfg *c, uint32_t *rows, uint32_t *cols)
{
	*rows = c->ta ? c->k : c->m;
	*cols = c->ta ? c->m : c->k;
}

static void b_shape(const struct cfg *c, uint32_t *rows, uint32_t *cols)
{
	*rows = c->tb ? c->n : c->k;
	*cols = c->tb ? c->k : c->n;
}

static uint64_t extent_bytes(const struct mm *x, uint32_t rows, uint32_t cols,
			     uint32_t batch, unsigned int dtype)
{
	return ((uint64_t)(batch - 1) * x->stride + (uint64_t)(rows - 1) * x->ld + cols) *
	       esize(dtype);
}

static void wreg(uint32_t off, uint32_t v)
{
	bool commit;

	ck_assert_int_eq(gsim_mme_reg_write(&M, off, v, &commit), GSIM_REG_OK);
	ck_assert(!commit);
}

static void wreg64(uint32_t lo, uint64_t v)
{
	wreg(lo, (uint32_t)v);
	wreg(lo + 4, (uint32_t)(v >> 32));
}

static uint32_t rreg(uint32_t off)
{
	uint32_t v;

	ck_assert(gsim_mme_reg_read(&M, off, &v));
	return v;
}

static void program(const struct cfg *c)
{
	wreg64(GAUDISIM_MME_A_ADDR_LO, c->a.addr);
	wreg64(GAUDISIM_MME_B_ADDR_LO, c->b.addr);
	wreg64(GAUDISIM_MME_C_ADDR_LO, c->c.addr);
	wreg64(GAUDISIM_MME_D_ADDR_LO, c->d.addr);
	wreg(GAUDISIM_MME_M, c->m);
	wreg(GAUDISIM_MME_N, c->n);
	wreg(GAUDISIM_MME_K, c->k);
	wreg(GAUDISIM_MME_BATCH, c->batch);
	wreg(GAUDISIM_MME_LDA, (uint32_t)c->a.ld);
	wreg(GAUDISIM_MME_LDB, (uint32_t)c->b.ld);
	wreg(GAUDISIM_MME_LDC, (uint32_t)c->c.ld);
	wreg(GAUDISIM_MME_LDD, (uint32_t)c->d.ld);
	wreg64(GAUDISIM_MME_A_BATCH_STRIDE_LO, c->a.stride);
	wreg64(GAUDISIM_MME_B_BATCH_STRIDE_LO, c->b.stride);
	wreg64(GAUDISIM_MME_C_BATCH_STRIDE_LO, c->c.stride);
	wreg64(GAUDISIM_MME_D_BATCH_STRIDE_LO, c->d.stride);
	wreg(GAUDISIM_MME_DTYPE, c->dtype_raw ? c->dtype_raw
					     : GAUDISIM_MME_DTYPE_VALUE(c->in, c->out));
	wreg(GAUDISIM_MME_CTRL, c->ctrl_raw ? c->ctrl_raw :
		(c->ta ? GAUDISIM_MME_CTRL_TRANSPOSE_A : 0) |
		(c->tb ? GAUDISIM_MME_CTRL_TRANSPOSE_B : 0));
	wreg(GAUDISIM_MME_ALPHA, gsim_f32_bits(c->alpha));
	wreg(GAUDISIM_MME_BETA, gsim_f32_bits(c->beta));
}

/* Program, COMMIT and launch, as the engine framework does. */
static int mme_run(const struct cfg *c)
{
	bool commit = false;

	program(c);
	ck_assert_int_eq(gsim_mme_reg_write(&M, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO,
					    &commit), GSIM_REG_OK);
	ck_assert(commit);
	return gsim_mme_execute(T->core, &M, &M.regs);
}

static void run_reference_on_snapshot(const struct cfg *c)
{
	struct gsim_ref_gemm g = {
		.m = c->m, .n = c->n, .k = c->k, .batch = c->batch,
		.dtype_in = c->in, .dtype_out = c->out,
		.trans_a = c->ta, .trans_b = c->tb,
		.alpha = c->alpha, .beta = c->beta,
		.lda = c->a.ld, .ldb = c->b.ld, .ldc = c->c.ld, .ldd = c->d.ld,
		.stride_a = c->a.stride, .stride_b = c->b.stride,
		.stride_c = c->c.stride, .stride_d = c->d.stride,
	};

	g.a = c->alpha != 0.0f ? snap_ptr(c->a.addr, false) : NULL;
	g.b = c->alpha != 0.0f ? snap_ptr(c->b.addr, false) : NULL;
	g.c = c->beta != 0.0f ? snap_ptr(c->c.addr, false) : NULL;
	g.d = snap_ptr(c->d.addr, false);
	ck_assert_int_eq(gsim_ref_gemm(&g), 0);
}

static void describe(const struct cfg *c, char *buf, size_t len)
{
	snprintf(buf, len, "M=%u N=%u K=%u batch=%u in=%u out=%u ta=%d tb=%d alpha=%g "
		 "beta=%g lda=%llu ldb=%llu ldc=%llu ldd=%llu sa=%llu sb=%llu sc=%llu "
		 "sd=%llu A=0x%llx B=0x%llx C=0x%llx D=0x%llx",
		 c->m, c->n, c->k, c->batch, c->in, c->out, c->ta, c->tb, (double)c->alpha,
		 (double)c->beta, (unsigned long long)c->a.ld, (unsigned long long)c->b.ld,
		 (unsigned long long)c->c.ld, (unsigned long long)c->d.ld,
		 (unsigned long long)c->a.stride, (unsigned long long)c->b.stride,
		 (unsigned long long)c->c.stride, (unsigned long long)c->d.stride,
		 (unsigned long long)c->a.addr, (unsigned long long)c->b.addr,
		 (unsigned long long)c->c.addr, (unsigned long long)c->d.addr);
}

/*
 * The sign of a zero result is unspecified (hw/gaudisim_hw_mme.h): where the
 * device and the reference both hold a zero in D, take the reference's
 * bytes so the byte comparison below sees only real differences.
 */
static void unify_zero_signs(const struct cfg *c)
{
	unsigned int es = esize(c->out);
	uint32_t b, i, j;

	for (b = 0; b < c->batch; b++)
		for (i = 0; i < c->m; i++)
			for (j = 0; j < c->n; j++) {
				uint64_t addr = c->d.addr + (b * c->d.stride +
					(uint64_t)i * c->d.ld + j) * es;
				uint8_t *dev = dev_ptr(addr), *ref = snap_ptr(addr, false);

				if (load_val(dev, c->out) == 0.0f && load_val(ref, c->out) == 0.0f)
					memcpy(dev, ref, es);
			}
}

/* Device arena == reference snapshot, byte for byte (zero signs aside). */
static void check_arena_equal(const struct cfg *c)
{
	const uint8_t *hbm = dev_ptr(ARENA_HBM), *sram = dev_ptr(ARENA_SRAM);
	char what[512];
	uint64_t i;

	unify_zero_signs(c);
	if (!memcmp(hbm, A.snap_hbm, A.hbm_size) && !memcmp(sram, A.snap_sram, A.sram_size))
		return;
	describe(c, what, sizeof(what));
	for (i = 0; i < A.hbm_size; i++)
		if (hbm[i] != A.snap_hbm[i])
			ck_abort_msg("HBM byte 0x%llx: device 0x%02x, reference 0x%02x (%s)",
				     (unsigned long long)(ARENA_HBM + i), hbm[i], A.snap_hbm[i],
				     what);
	for (i = 0; i < A.sram_size; i++)
		if (sram[i] != A.snap_sram[i])
			ck_abort_msg("SRAM byte 0x%llx: device 0x%02x, reference 0x%02x (%s)",
				     (unsigned long long)(ARENA_SRAM + i), sram[i], A.snap_sram[i],
				     what);
}

/* ---- data ------------------------------------------------------------------ */

enum fill { FILL_INT, FILL_FRAC, FILL_GARBAGE };

static float rnd_val(enum fill f)
{
	if (f == FILL_INT)
		return (float)((int)rnd_below(17) - 8);
	/* [-1, 1) with 12 significant bits, scaled by 2^-4 .. 2^4 */
	return ldexpf((float)((int)rnd_below(8192) - 4096) / 4096.0f, (int)rnd_below(9) - 4);
}

/* Fill [addr, addr + bytes) element by element (padding included). */
static void fill(uint64_t addr, uint64_t bytes, unsigned int dtype, enum fill f)
{
	uint8_t *p = dev_ptr(addr);
	uint64_t i, es = esize(dtype);

	for (i = 0; i + es <= bytes; i += es) {
		if (f == FILL_GARBAGE) {
			uint32_t bits = (uint32_t)rnd();

			memcpy(p + i, &bits, es);
		} else {
			store_val(p + i, dtype, rnd_val(f));
		}
	}
}

/*
 * Place an operand: leading dimension with optional padding, batch stride
 * dense, padded or 0 (broadcast), HBM or SRAM; then fill it.
 */
static void place(struct mm *x, uint32_t rows, uint32_t cols, uint32_t batch,
		  unsigned int dtype, bool allow_broadcast, enum fill f)
{
	uint64_t one;
	uint32_t mode = rnd_below(4);

	x->ld = cols + (rnd_below(2) ? rnd_below(5) : 0);
	one = (uint64_t)(rows - 1) * x->ld + cols;
	x->stride = one + (mode == 1 ? rnd_below(7) : 0);
	if (mode == 2 && allow_broadcast)
		x->stride = 0;
	x->addr = arena_alloc(extent_bytes(x, rows, cols, batch, dtype), esize(dtype),
			      rnd_below(4) == 0);
	fill(x->addr, extent_bytes(x, rows, cols, batch, dtype), dtype, f);
}

static const uint32_t dims[] = { 1, 2, 3, 4, 5, 7, 8, 16, 17, 31, 33, 64, 65, 100, 127 };

static uint32_t rnd_dim(void)
{
	return dims[rnd_below(sizeof(dims) / sizeof(dims[0]))];
}

static float rnd_pow2_scalar(void)
{
	static const float s[] = { 1.0f, 1.0f, 2.0f, 0.5f, -1.0f, -0.25f, 4.0f };

	return s[rnd_below(sizeof(s) / sizeof(s[0]))];
}

/* A random configuration; C and D dense with no overlap unless asked. */
static void random_cfg(struct cfg *c, enum fill f, bool allow_broadcast)
{
	uint32_t ar, ac, br, bc;

	memset(c, 0, sizeof(*c));
	c->m = rnd_dim();
	c->n = rnd_dim();
	c->k = rnd_dim();
	c->batch = 1 + rnd_below(4);
	c->in = rnd_below(2) ? GAUDISIM_DTYPE_BF16 : GAUDISIM_DTYPE_FP32;
	c->out = rnd_below(2) ? GAUDISIM_DTYPE_BF16 : GAUDISIM_DTYPE_FP32;
	c->ta = rnd_below(2);
	c->tb = rnd_below(2);
	c->alpha = rnd_below(8) ? rnd_pow2_scalar() : 0.0f;
	c->beta = rnd_below(3) ? 0.0f : rnd_pow2_scalar();
	if (f == FILL_FRAC) {
		c->alpha = rnd_val(FILL_FRAC) * 2.0f + 0.125f;
		if (c->beta != 0.0f)
			c->beta = rnd_val(FILL_FRAC);
	}
	a_shape(c, &ar, &ac);
	b_shape(c, &br, &bc);
	place(&c->a, ar, ac, c->batch, c->in, allow_broadcast, f);
	place(&c->b, br, bc, c->batch, c->in, allow_broadcast, f);
	place(&c->c, c->m, c->n, c->batch, c->out, allow_broadcast, f);
	place(&c->d, c->m, c->n, c->batch, c->out, false, FILL_GARBAGE);
}

static void run_exact(const struct cfg *c)
{
	char what[512];
	int err;

	arena_snapshot();
	run_reference_on_snapshot(c);
	err = mme_run(c);
	describe(c, what, sizeof(what));
	ck_assert_msg(err == 0, "MME error %d (%s) for %s", err, gsim_mme_err_name(err), what);
	check_arena_equal(c);
}

/* ---- BF16 conversions ---------------------------------------------------- */

START_TEST(test_bf16_known_patterns)
{
	static const struct {
		uint32_t f32;
		uint16_t bf16;
	} cases[] = {
		{ 0x3F800000, 0x3F80 },	/* 1.0 */
		{ 0x3F808000, 0x3F80 },	/* tie, kept LSB even: down */
		{ 0x3F818000, 0x3F82 },	/* tie, kept LSB odd: up */
		{ 0x3F808001, 0x3F81 },	/* just above the tie */
		{ 0x3F807FFF, 0x3F80 },	/* just below the tie */
		{ 0xBF818000, 0xBF82 },	/* negative tie, odd: away from zero */
		{ 0x3FFF8000, 0x4000 },	/* carry into the exponent */
		{ 0x7F7FFFFF, 0x7F80 },	/* FLT_MAX rounds to infinity */
		{ 0x7F7F7FFF, 0x7F7F },	/* largest that stays finite */
		{ 0x7F800000, 0x7F80 },	/* +inf */
		{ 0xFF800000, 0xFF80 },	/* -inf */
		{ 0x7FC00000, 0x7FC0 },	/* quiet NaN */
		{ 0x7F800001, 0x7FC0 },	/* sNaN, payload only in dropped bits */
		{ 0xFF800001, 0xFFC0 },	/* negative sNaN */
		{ 0x7FFFFFFF, 0x7FFF },	/* NaN, all payload bits: no carry */
		{ 0x7F810000, 0x7FC1 },	/* sNaN with kept payload: quieted */
		{ 0x00000000, 0x0000 },
		{ 0x80000000, 0x8000 },
		{ 0x00008000, 0x0000 },	/* subnormal tie, even: down */
		{ 0x00018000, 0x0002 },	/* subnormal tie, odd: up */
		{ 0x0000C000, 0x0001 },	/* subnormal above the tie */
		{ 0x007F8000, 0x0080 },	/* largest subnormals round to FLT_MIN */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint16_t got = gsim_f32_to_bf16(gsim_bits_f32(cases[i].f32));
		uint16_t vec[8];
		float src[8];
		unsigned int j;

		ck_assert_msg(got == cases[i].bf16, "0x%08x -> 0x%04x, want 0x%04x",
			      cases[i].f32, got, cases[i].bf16);
		/* The engine's vector path, in every lane and in the tail. */
		for (j = 0; j < 8; j++)
			src[j] = gsim_bits_f32(cases[i].f32);
		for (j = 1; j <= 8; j++) {
			memset(vec, 0, sizeof(vec));
			gsim_mme_store_f32(vec, src, j, GAUDISIM_DTYPE_BF16);
			ck_assert_uint_eq(vec[j - 1], cases[i].bf16);
			ck_assert_uint_eq(vec[0], cases[i].bf16);
		}
	}
}
END_TEST

START_TEST(test_bf16_every_value_round_trips)
{
	static uint16_t all[65536], back[65536];
	static float wide[65536];
	uint32_t i;

	for (i = 0; i < 65536; i++)
		all[i] = (uint16_t)i;
	gsim_mme_load_f32(wide, all, 65536, GAUDISIM_DTYPE_BF16);
	gsim_mme_store_f32(back, wide, 65536, GAUDISIM_DTYPE_BF16);
	for (i = 0; i < 65536; i++) {
		uint16_t want = (uint16_t)i;

		if (gsim_f32_bits(wide[i]) != i << 16 ||
		    gsim_f32_bits(gsim_bf16_to_f32(want)) != i << 16)
			ck_abort_msg("0x%04x widens to 0x%08x", i, gsim_f32_bits(wide[i]));
		if ((i & 0x7fff) > 0x7f80)	/* NaN: stays NaN, gets quieted */
			want |= GSIM_BF16_QUIET_BIT;
		if (back[i] != want || gsim_f32_to_bf16(wide[i]) != want)
			ck_abort_msg("0x%04x -> 0x%04x / 0x%04x", i, back[i],
				     gsim_f32_to_bf16(wide[i]));
	}
}
END_TEST

/* Independent model: pick the nearer of the two neighbours in double. */
static uint16_t model_bf16(uint32_t u)
{
	float f = gsim_bits_f32(u);
	uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1);
	double dlo, dhi, x = (double)f;

	if (isnan(f))
		return (uint16_t)(lo | GSIM_BF16_QUIET_BIT);
	if ((u & 0xffff) == 0)
		return lo;
	/* lo is toward zero; hi one BF16 step away from zero (maybe inf). */
	dlo = fabs(x - (double)gsim_bf16_to_f32(lo));
	if ((hi & 0x7fff) == 0x7f80)
		dhi = fabs(ldexp(1.0, 128) * (signbit(f) ? -1 : 1) - x);	/* rounding point */
	else
		dhi = fabs((double)gsim_bf16_to_f32(hi) - x);
	if (dlo < dhi)
		return lo;
	if (dhi < dlo)
		return hi;
	return (lo & 1) ? hi : lo;
}

START_TEST(test_bf16_matches_rounding_model)
{
	static float src[4099];
	static uint16_t dst[4099];
	unsigned int round, i;

	rng = 0x9e3779b97f4a7c15ull;
	for (round = 0; round < 64; round++) {
		for (i = 0; i < 4099; i++) {
			uint32_t u = (uint32_t)rnd();

			/* A quarter of the values are exact ties or tie +- 1. */
			if (i % 4 == 0)
				u = (u & 0xffff0000u) | 0x8000u | (uint32_t)((int)rnd_below(3) - 1);
			src[i] = gsim_bits_f32(u);
		}
		gsim_mme_store_f32(dst, src, 4099, GAUDISIM_DTYPE_BF16);
		for (i = 0; i < 4099; i++) {
			uint32_t u = gsim_f32_bits(src[i]);
			uint16_t want = model_bf16(u);

			if (dst[i] != want || gsim_f32_to_bf16(src[i]) != want)
				ck_abort_msg("0x%08x -> 0x%04x / 0x%04x, model 0x%04x", u,
					     dst[i], gsim_f32_to_bf16(src[i]), want);
		}
	}
}
END_TEST

/* ---- registers --------------------------------------------------------------- */

START_TEST(test_regs_read_back_and_access)
{
	uint32_t off, v;
	bool commit;

	for (off = 0; off < GAUDISIM_MME_CFG_END; off += 4) {
		bool known = off <= GAUDISIM_MME_BETA;
		uint32_t pattern = 0xA5000000u | off;

		ck_assert_int_eq(gsim_mme_reg_write(&M, off, pattern, &commit),
				 known ? GSIM_REG_OK : GSIM_REG_UNKNOWN);
		ck_assert(!commit);
		ck_assert(gsim_mme_reg_read(&M, off, &v) == known);
		ck_assert_uint_eq(v, known ? pattern : 0);
	}
	ck_assert_uint_eq(rreg(GAUDISIM_MME_COMMIT), 0);
	/* Status and counters are the engine framework's, not here. */
	ck_assert(!gsim_mme_reg_read(&M, GAUDISIM_MME_COMMIT + 4, &v));
	ck_assert_int_eq(gsim_mme_reg_write(&M, GAUDISIM_MME_COMMIT + 4, 1, &commit),
			 GSIM_REG_UNKNOWN);
	ck_assert_int_eq(gsim_mme_reg_write(&M, GAUDISIM_MME_COMMIT, 2, &commit),
			 GSIM_REG_BAD_VALUE);
	ck_assert(!commit);
	ck_assert_int_eq(gsim_mme_reg_write(&M, 0x2, 1, &commit), GSIM_REG_UNKNOWN);
	ck_assert_int_eq(gsim_mme_reg_write(&M, 0x1000, 1, &commit), GSIM_REG_UNKNOWN);
	ck_assert(!gsim_mme_reg_read(&M, 0x1FFC, &v));
	ck_assert(!gsim_mme_reg_read(&M, 0x3, &v));
	/* The contract's block address is the engine's block. */
	ck_assert_uint_eq(GAUDISIM_MME_BLOCK,
			  GAUDISIM_ENGINE_BLOCK_BASE + 8 * GAUDISIM_ENGINE_BLOCK_SIZE);
	ck_assert_uint_lt(GAUDISIM_MME_COMMIT, GAUDISIM_ENG_COMMON_BASE);
}
END_TEST

/* A small valid FP32 GEMM at fixed places, for the control tests. */
static void small_cfg(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->m = 2;
	c->n = 2;
	c->k = 3;
	c->batch = 1;
	c->in = GAUDISIM_DTYPE_FP32;
	c->out = GAUDISIM_DTYPE_FP32;
	c->alpha = 1.0f;
	c->a = (struct mm){ ARENA_HBM, 3, 0 };
	c->b = (struct mm){ ARENA_HBM + 0x100, 2, 0 };
	c->c = (struct mm){ ARENA_HBM + 0x200, 2, 0 };
	c->d = (struct mm){ ARENA_HBM + 0x300, 2, 0 };
}

static void put_f32(uint64_t addr, const float *v, unsigned int n)
{
	memcpy(dev_ptr(addr), v, n * sizeof(float));
}

static float get_f32(uint64_t addr, unsigned int i)
{
	return load_val(dev_ptr(addr) + 4 * i, GAUDISIM_DTYPE_FP32);
}

START_TEST(test_known_small_gemm)
{
	static const float a[] = { 1, 2, 3, 4, 5, 6 };		/* 2 x 3 */
	static const float b[] = { 7, 8, 9, 10, 11, 12 };	/* 3 x 2 */
	static const float cm[] = { 1, 2, 3, 4 };
	struct cfg c;

	small_cfg(&c);
	put_f32(c.a.addr, a, 6);
	put_f32(c.b.addr, b, 6);
	put_f32(c.c.addr, cm, 4);
	ck_assert_int_eq(mme_run(&c), 0);
	ck_assert_float_eq(get_f32(c.d.addr, 0), 58);
	ck_assert_float_eq(get_f32(c.d.addr, 1), 64);
	ck_assert_float_eq(get_f32(c.d.addr, 2), 139);
	ck_assert_float_eq(get_f32(c.d.addr, 3), 154);

	/* alpha = 2, beta = -1: 2 * AB - C */
	c.alpha = 2.0f;
	c.beta = -1.0f;
	ck_assert_int_eq(mme_run(&c), 0);
	ck_assert_float_eq(get_f32(c.d.addr, 0), 115);
	ck_assert_float_eq(get_f32(c.d.addr, 3), 304);

	/* op(A) = A^T with A stored 3 x 2: same numbers, other layout. */
	{
		static const float at[] = { 1, 4, 2, 5, 3, 6 };

		put_f32(c.a.addr, at, 6);
		c.ta = true;
		c.a.ld = 2;
		c.alpha = 1.0f;
		c.beta = 0.0f;
		ck_assert_int_eq(mme_run(&c), 0);
		ck_assert_float_eq(get_f32(c.d.addr, 1), 64);
		ck_assert_float_eq(get_f32(c.d.addr, 2), 139);
	}
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/*
 * The engine-framework adapter, for each MME (_i): state in core->mme[_i],
 * registers, launch; the other MME's state is its own.
 */
START_TEST(test_engine_ops_adapter)
{
	static const float a[] = { 1, 2, 3, 4, 5, 6 };
	static const float b[] = { 7, 8, 9, 10, 11, 12 };
	const struct gsim_engine_ops *ops = &gsim_mme_engine_ops;
	const unsigned int e = GAUDISIM_ENGINE_MME + (unsigned int)_i;
	const unsigned int other = GAUDISIM_ENGINE_MME + 1 - (unsigned int)_i;
	unsigned int errs;
	uint32_t off, v;
	bool launch;
	struct cfg c;

	small_cfg(&c);
	put_f32(c.a.addr, a, 6);
	put_f32(c.b.addr, b, 6);
	program(&c);	/* into M: copied through the adapter below */
	ck_assert_int_eq(ops->init(T->core, e), 0);
	ck_assert_ptr_nonnull(T->core->mme[_i]);
	ck_assert_int_eq(ops->init(T->core, e), 0);	/* idempotent */
	for (off = 0; off <= GAUDISIM_MME_BETA; off += 4) {
		ck_assert_int_eq(ops->reg_write(T->core, e, off, M.regs.r[off / 4], GSIM_ORIGIN_CB,
						&launch), GSIM_REG_OK);
		ck_assert(!launch);
		ck_assert(ops->reg_read(T->core, e, off, &v));
		ck_assert_uint_eq(v, M.regs.r[off / 4]);
	}
	errs = T->errors;
	ck_assert_int_eq(ops->reg_write(T->core, e, GAUDISIM_MME_COMMIT, 3, GSIM_ORIGIN_MMIO,
					&launch), GSIM_REG_BAD_VALUE);
	ck_assert(!launch);
	ck_assert_uint_eq(T->errors, errs + 1);
	ck_assert_int_eq(ops->reg_write(T->core, e, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO,
					GSIM_ORIGIN_CB, &launch), GSIM_REG_OK);
	ck_assert(launch);
	ck_assert_int_eq(ops->launch(T->core, e), 0);
	ck_assert_float_eq(get_f32(c.d.addr, 0), 58);
	ck_assert_float_eq(get_f32(c.d.addr, 3), 154);

	/* A refused GEMM returns its engine error code for ENG_STATUS. */
	ck_assert_int_eq(ops->reg_write(T->core, e, GAUDISIM_MME_K, 0, GSIM_ORIGIN_CB, &launch),
			 GSIM_REG_OK);
	ck_assert_int_eq(ops->launch(T->core, e), GAUDISIM_MME_ERR_DIM);
	ck_assert_uint_eq(T->errors, errs + 2);

	/* Reset clears the registers; fini releases the state, twice is fine. */
	ops->reset(T->core, e);
	ck_assert(ops->reg_read(T->core, e, GAUDISIM_MME_N, &v));
	ck_assert_uint_eq(v, 0);
	ops->fini(T->core, e);
	ck_assert_ptr_null(T->core->mme[_i]);
	ck_assert(ops->reg_read(T->core, other, GAUDISIM_MME_N, &v));
	ops->fini(T->core, e);
	ck_assert(!ops->reg_read(T->core, e, GAUDISIM_MME_N, &v));
	ck_assert_int_eq(ops->reg_write(T->core, e, GAUDISIM_MME_N, 1, GSIM_ORIGIN_CB, &launch),
			 GSIM_REG_UNKNOWN);
	ck_assert_int_eq(ops->launch(T->core, e), GAUDISIM_MME_ERR_NOMEM);
}
END_TEST

/* ---- GEMMs against the reference -------------------------------------------- */

START_TEST(test_random_layouts_exact)
{
	unsigned int i;

	rng = 0x1234567ull + (uint64_t)_i;
	arena_init(16u << 20, 2u << 20);
	for (i = 0; i < 40; i++) {
		struct cfg c;

		arena_reset();
		random_cfg(&c, FILL_INT, true);
		run_exact(&c);
	}
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* C is D (accumulate in place), D overlapping A or B, D batches overlapping. */
START_TEST(test_aliasing_exact)
{
	unsigned int i;

	rng = 0xabcdef12ull;
	arena_init(16u << 20, 2u << 20);
	for (i = 0; i < 48; i++) {
		struct cfg c;

		arena_reset();
		random_cfg(&c, FILL_INT, true);
		switch (i % 4) {
		case 0:	/* in place: C == D */
			if (c.beta == 0.0f)
				c.beta = 1.0f;
			c.d = c.c;
			break;
		case 1: {	/* D written over A */
			uint32_t ar, ac;
			uint64_t region;

			c.out = c.in;
			if (c.alpha == 0.0f)
				c.alpha = 1.0f;
			a_shape(&c, &ar, &ac);
			c.a.ld = ac;
			c.a.stride = (uint64_t)ar * ac;
			c.d.ld = c.n + rnd_below(3);
			c.d.stride = (uint64_t)c.m * c.d.ld;
			region = extent_bytes(&c.a, ar, ac, c.batch, c.in);
			if (region < extent_bytes(&c.d, c.m, c.n, c.batch, c.out))
				region = extent_bytes(&c.d, c.m, c.n, c.batch, c.out);
			region += 8 * esize(c.in);
			c.a.addr = arena_alloc(region, esize(c.in), rnd_below(2));
			c.d.addr = c.a.addr + esize(c.in) * rnd_below(8);
			fill(c.a.addr, region, c.in, FILL_INT);
			break;
		}
		case 2: {	/* D overlapping C with another leading dimension */
			uint64_t region;

			if (c.beta == 0.0f)
				c.beta = -1.0f;
			c.d.ld = c.c.ld + 1;
			c.d.stride = (uint64_t)c.m * c.d.ld;
			c.c.stride = c.d.stride;
			region = extent_bytes(&c.d, c.m, c.n, c.batch, c.out) + 8 * esize(c.out);
			c.d.addr = arena_alloc(region, esize(c.out), rnd_below(2));
			c.c.addr = c.d.addr + esize(c.out) * (1 + rnd_below(5));
			fill(c.d.addr, region, c.out, FILL_INT);
			break;
		}
		case 3:	/* every batch writes the same D (stride 0): the last wins */
			c.d.stride = 0;
			break;
		}
		run_exact(&c);
	}
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* Bounds of hw/gaudisim_hw_mme.h on fractional data; every other byte kept. */
static void check_bound(const struct cfg *c)
{
	uint32_t b, i, j, kk;
	char what[512];

	describe(c, what, sizeof(what));
	for (b = 0; b < c->batch; b++) {
		for (i = 0; i < c->m; i++) {
			for (j = 0; j < c->n; j++) {
				uint64_t didx = b * c->d.stride + (uint64_t)i * c->d.ld + j;
				uint8_t *dev = dev_ptr(c->d.addr + didx * esize(c->out));
				uint8_t *ref = snap_ptr(c->d.addr + didx * esize(c->out), false);
				double sum = 0, abs_sum = 0, cv = 0, exact, bound, dv, rv;

				for (kk = 0; kk < c->k && c->alpha != 0.0f; kk++) {
					uint64_t ai = b * c->a.stride + (c->ta ?
						(uint64_t)kk * c->a.ld + i : (uint64_t)i * c->a.ld + kk);
					uint64_t bi = b * c->b.stride + (c->tb ?
						(uint64_t)j * c->b.ld + kk : (uint64_t)kk * c->b.ld + j);
					double p = (double)load_val(snap_ptr(c->a.addr + ai *
							esize(c->in), true), c->in) *
						   (double)load_val(snap_ptr(c->b.addr + bi *
							esize(c->in), true), c->in);

					sum += p;
					abs_sum += fabs(p);
				}
				if (c->beta != 0.0f)
					cv = load_val(snap_ptr(c->c.addr + (b * c->c.stride +
						(uint64_t)i * c->c.ld + j) * esize(c->out), true),
						c->out);
				exact = (double)c->alpha * sum + (double)c->beta * cv;
				bound = gsim_ref_gemm_bound(c->k, c->alpha, abs_sum,
							    fabs((double)c->beta * cv)) +
					c->k * ldexp(abs_sum, -52);
				if (c->out == GAUDISIM_DTYPE_BF16)
					bound = bound * (1 + ldexp(1, -8)) +
						ldexp(fabs(exact), -8) + ldexp(1, -134);
				dv = load_val(dev, c->out);
				rv = load_val(ref, c->out);
				if (!(fabs(dv - exact) <= bound))
					ck_abort_msg("D[%u][%u][%u] = %.9g, exact %.9g, bound %.3g (%s)",
						     b, i, j, dv, exact, bound, what);
				if (!(fabs(rv - exact) <= bound))
					ck_abort_msg("reference D[%u][%u][%u] = %.9g, exact %.9g (%s)",
						     b, i, j, rv, exact, what);
				/* Within bounds: align the device byte image for the
				 * whole-arena comparison below. */
				memcpy(dev, ref, esize(c->out));
			}
		}
	}
	check_arena_equal(c);
}

START_TEST(test_random_fractional_within_bound)
{
	unsigned int i;

	rng = 0x5151ull + (uint64_t)_i;
	arena_init(16u << 20, 2u << 20);
	for (i = 0; i < 30; i++) {
		struct cfg c;
		int err;

		arena_reset();
		random_cfg(&c, FILL_FRAC, true);
		arena_snapshot();
		run_reference_on_snapshot(&c);
		err = mme_run(&c);
		ck_assert_int_eq(err, 0);
		check_bound(&c);
	}
}
END_TEST

/* Larger shapes: several tiles in M, N and K, every path. */
START_TEST(test_multi_tile_paths)
{
	static const struct {
		uint32_t m, n, k, batch;
		unsigned int in, out;
		bool ta, tb, alias_c;
		float alpha, beta;
		enum fill f;
	} cases[] = {
		{ 1030, 70, 2100, 1, GAUDISIM_DTYPE_BF16, GAUDISIM_DTYPE_FP32, false, false,
		  false, 1.0f, 0.0f, FILL_INT },
		{ 70, 1030, 1100, 1, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_BF16, true, true,
		  false, 0.5f, 2.0f, FILL_INT },
		{ 1100, 1030, 24, 1, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, true, false,
		  true, 1.0f, 1.0f, FILL_INT },
		{ 40, 50, 1500, 2, GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32, false, true,
		  false, 1.5f, -0.75f, FILL_FRAC },
		{ 9, 1025, 1030, 1, GAUDISIM_DTYPE_BF16, GAUDISIM_DTYPE_BF16, false, true,
		  false, -1.25f, 0.5f, FILL_FRAC },
	};
	unsigned int i;

	rng = 77;
	arena_init(48u << 20, 1u << 20);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cfg c;
		uint32_t r, cl;

		arena_reset();
		memset(&c, 0, sizeof(c));
		c.m = cases[i].m;
		c.n = cases[i].n;
		c.k = cases[i].k;
		c.batch = cases[i].batch;
		c.in = cases[i].in;
		c.out = cases[i].out;
		c.ta = cases[i].ta;
		c.tb = cases[i].tb;
		c.alpha = cases[i].alpha;
		c.beta = cases[i].beta;
		a_shape(&c, &r, &cl);
		c.a.ld = cl + 3;
		c.a.stride = (uint64_t)r * c.a.ld;
		c.a.addr = arena_alloc(extent_bytes(&c.a, r, cl, c.batch, c.in), 4, false);
		fill(c.a.addr, extent_bytes(&c.a, r, cl, c.batch, c.in), c.in, cases[i].f);
		b_shape(&c, &r, &cl);
		c.b.ld = cl;
		c.b.stride = (uint64_t)r * c.b.ld;
		c.b.addr = arena_alloc(extent_bytes(&c.b, r, cl, c.batch, c.in), 4, false);
		fill(c.b.addr, extent_bytes(&c.b, r, cl, c.batch, c.in), c.in, cases[i].f);
		c.c.ld = c.n + 1;
		c.c.stride = (uint64_t)c.m * c.c.ld;
		c.c.addr = arena_alloc(extent_bytes(&c.c, c.m, c.n, c.batch, c.out), 4, false);
		fill(c.c.addr, extent_bytes(&c.c, c.m, c.n, c.batch, c.out), c.out, cases[i].f);
		c.d = c.c;
		if (!cases[i].alias_c) {
			c.d.addr = arena_alloc(extent_bytes(&c.d, c.m, c.n, c.batch, c.out), 4,
					       false);
			fill(c.d.addr, extent_bytes(&c.d, c.m, c.n, c.batch, c.out), c.out,
			     FILL_GARBAGE);
		}
		if (cases[i].f == FILL_INT) {
			run_exact(&c);
		} else {
			arena_snapshot();
			run_reference_on_snapshot(&c);
			ck_assert_int_eq(mme_run(&c), 0);
			check_bound(&c);
		}
	}
}
END_TEST

#ifdef GSIM_HAVE_OPENBLAS
/*
 * A GEMM below the direct path's block size is one OpenBLAS product
 * (gsim_blas_sgemm(): one thread at these sizes, so the bits are the
 * same on every host of one OpenBLAS kernel): OpenBLAS
 * rounds a product split by rows differently from the whole (measured on
 * the seed model's first GEMM: 208 of its 1280 elements change when it is
 * computed 33 rows at a time), and the device's results must not move
 * with such a change. The seed model's step shapes: X W, its weight
 * gradient X^T dY, and dY W^T; and one with a single row.
 */
START_TEST(test_small_gemm_is_one_blas_call)
{
	static const struct { uint32_t m, n, k; bool ta, tb; } cases[] = {
		{ 128, 10, 784, false, false },
		{ 784, 10, 128, true, false },
		{ 128, 784, 10, false, true },
		{ 1, 1000, 1000, false, false },
	};
	unsigned int i;

	rng = 4242;
	arena_init(16u << 20, 1u << 20);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t m = cases[i].m, n = cases[i].n, k = cases[i].k, e;
		float *a = malloc(4ull * m * k), *b = malloc(4ull * k * n);
		float *want = malloc(4ull * m * n);
		struct cfg c;

		ck_assert(a && b && want);
		ck_assert_uint_le(2ull * m * n * k, GSIM_MME_INLINE_FLOPS);
		for (e = 0; e < m * k; e++)
			a[e] = (float)((int32_t)rnd_below(20001) - 10000) / 4096.0f;
		for (e = 0; e < k * n; e++)
			b[e] = (float)((int32_t)rnd_below(20001) - 10000) / 4096.0f;
		gsim_blas_sgemm(cases[i].ta, cases[i].tb, m, n, k, 1.0f, a, cases[i].ta ? m : k,
				b, cases[i].tb ? k : n, 0.0f, want, n);
		arena_reset();
		memset(&c, 0, sizeof(c));
		c.m = m;
		c.n = n;
		c.k = k;
		c.batch = 1;
		c.in = GAUDISIM_DTYPE_FP32;
		c.out = GAUDISIM_DTYPE_FP32;
		c.ta = cases[i].ta;
		c.tb = cases[i].tb;
		c.alpha = 1.0f;
		c.a.ld = cases[i].ta ? m : k;
		c.b.ld = cases[i].tb ? k : n;
		c.d.ld = n;
		c.c.ld = n;
		c.a.addr = arena_alloc(4ull * m * k, 4, false);
		c.b.addr = arena_alloc(4ull * k * n, 4, false);
		c.d.addr = arena_alloc(4ull * m * n, 4, false);
		c.c.addr = c.d.addr;
		put_f32(c.a.addr, a, m * k);
		put_f32(c.b.addr, b, k * n);
		ck_assert_int_eq(mme_run(&c), 0);
		ck_assert_msg(!memcmp(dev_ptr(c.d.addr), want, 4ull * m * n),
			      "case %u (%ux%ux%u): D differs from one product", i, m, n, k);
		free(a);
		free(b);
		free(want);
	}
}
END_TEST
#endif

#ifdef GSIM_HAVE_OPENBLAS
/*
 * The engines' products and OpenBLAS's threads (gsim_blas.h): below
 * GSIM_BLAS_SHARED_MACS a product is the one-thread product, bit for bit;
 * from there up it is the host-thread product; either way OpenBLAS is
 * back at one thread afterwards, so nothing else of the core's runs
 * threaded by accident.
 */
START_TEST(test_blas_threads_follow_the_size)
{
	static const struct { uint32_t m, n, k; } cases[] = {
		{ 128, 784, 10 }, { 256, 400, 300 }, { 512, 512, 256 },
	};
	unsigned int i;

	rng = 77;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t m = cases[i].m, n = cases[i].n, k = cases[i].k, e;
		float *a = malloc(4ull * m * k), *b = malloc(4ull * k * n);
		float *got = malloc(4ull * m * n), *want = malloc(4ull * m * n);
		bool shared = (uint64_t)m * n * k >= GSIM_BLAS_SHARED_MACS;

		ck_assert(a && b && got && want);
		for (e = 0; e < m * k; e++)
			a[e] = (float)((int32_t)rnd_below(20001) - 10000) / 4096.0f;
		for (e = 0; e < k * n; e++)
			b[e] = (float)((int32_t)rnd_below(20001) - 10000) / 4096.0f;
		gsim_blas_sgemm(false, false, m, n, k, 1.0f, a, k, b, n, 0.0f, got, n);
		ck_assert_int_eq(openblas_get_num_threads(), 1);
		if (shared) {
			gsim_blas_sgemm_host(false, false, m, n, k, 1.0f, a, k, b, n, 0.0f, want, n);
		} else {
			openblas_set_num_threads(1);
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m, (blasint)n,
				    (blasint)k, 1.0f, a, (blasint)k, b, (blasint)n, 0.0f, want,
				    (blasint)n);
		}
		ck_assert_int_eq(openblas_get_num_threads(), 1);
		ck_assert_msg(!memcmp(got, want, 4ull * m * n), "%ux%ux%u: %s product differs", m, n,
			      k, shared ? "host-thread" : "one-thread");
		free(a);
		free(b);
		free(got);
		free(want);
	}
	ck_assert_uint_ge(512ull * 512 * 256, GSIM_BLAS_SHARED_MACS);
	ck_assert_uint_lt(256ull * 400 * 300, GSIM_BLAS_SHARED_MACS);
}
END_TEST
#endif

/* A BF16 result is the FP32 result rounded to nearest even, bit for bit. */
START_TEST(test_bf16_output_is_rounded_fp32_output)
{
	struct cfg c;
	uint64_t d32;
	uint32_t i;

	rng = 4242;
	arena_init(8u << 20, 1u << 20);
	memset(&c, 0, sizeof(c));
	c.m = 37;
	c.n = 45;
	c.k = 300;
	c.batch = 1;
	c.in = GAUDISIM_DTYPE_BF16;
	c.out = GAUDISIM_DTYPE_FP32;
	c.alpha = 0.375f;
	c.a = (struct mm){ arena_alloc(37 * 300 * 2, 2, false), 300, 0 };
	c.b = (struct mm){ arena_alloc(300 * 45 * 2, 2, true), 45, 0 };
	c.d = (struct mm){ arena_alloc(37 * 45 * 4, 4, false), 45, 0 };
	fill(c.a.addr, 37 * 300 * 2, GAUDISIM_DTYPE_BF16, FILL_FRAC);
	fill(c.b.addr, 300 * 45 * 2, GAUDISIM_DTYPE_BF16, FILL_FRAC);
	ck_assert_int_eq(mme_run(&c), 0);
	d32 = c.d.addr;

	c.out = GAUDISIM_DTYPE_BF16;
	c.d.addr = arena_alloc(37 * 45 * 2, 2, true);
	ck_assert_int_eq(mme_run(&c), 0);
	for (i = 0; i < 37 * 45; i++) {
		uint16_t got;
		uint16_t want = gsim_f32_to_bf16(get_f32(d32, i));

		memcpy(&got, dev_ptr(c.d.addr + 2 * i), 2);
		if (got != want)
			ck_abort_msg("element %u: 0x%04x, rounded FP32 result 0x%04x",
				     i, got, want);
	}
}
END_TEST

START_TEST(test_alpha_beta_zero_skip_operands)
{
	static const float nan_block[6] = { NAN, NAN, NAN, NAN, NAN, NAN };
	static const float cm[] = { 1, -2, 3, -4 };
	struct cfg c;

	small_cfg(&c);
	/* alpha = 0: A and B are neither read nor checked. */
	c.alpha = 0.0f;
	c.beta = 2.0f;
	c.a.addr = 0xFFFFFFFFFFFF0000ull;
	c.b.addr = GAUDISIM_CFG_BASE;
	put_f32(c.c.addr, cm, 4);
	ck_assert_int_eq(mme_run(&c), 0);
	ck_assert_float_eq(get_f32(c.d.addr, 0), 2);
	ck_assert_float_eq(get_f32(c.d.addr, 3), -8);

	/* beta = 0: C is not read (NaN there does not leak) nor checked. */
	small_cfg(&c);
	put_f32(c.a.addr, nan_block, 6);
	c.a.addr += 0x40;
	{
		static const float a[] = { 1, 0, 0, 0, 1, 0 };
		static const float b[] = { 5, 6, 7, 8, 9, 10 };

		put_f32(c.a.addr, a, 6);
		put_f32(c.b.addr, b, 6);
	}
	put_f32(c.d.addr, nan_block, 4);
	c.c.addr = GAUDISIM_HOST_BASE;
	ck_assert_int_eq(mme_run(&c), 0);
	ck_assert_float_eq(get_f32(c.d.addr, 0), 5);
	ck_assert_float_eq(get_f32(c.d.addr, 1), 6);
	ck_assert_float_eq(get_f32(c.d.addr, 2), 7);
	ck_assert_float_eq(get_f32(c.d.addr, 3), 8);

	/* alpha = beta = 0: D = 0 whatever it held. */
	c.alpha = 0.0f;
	put_f32(c.d.addr, nan_block, 4);
	ck_assert_int_eq(mme_run(&c), 0);
	ck_assert_uint_eq(gsim_f32_bits(get_f32(c.d.addr, 2)), 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_nan_and_inf_propagate)
{
	unsigned int out;

	for (out = 0; out < 2; out++) {
		static const float a[] = { 1, NAN, 0, 2, 0, 0 };	/* row 0 has NaN */
		static const float b[] = { 1, 1, 1, 1, 1, INFINITY };
		struct cfg c;

		small_cfg(&c);
		c.out = out ? GAUDISIM_DTYPE_BF16 : GAUDISIM_DTYPE_FP32;
		put_f32(c.a.addr, a, 6);
		put_f32(c.b.addr, b, 6);
		ck_assert_int_eq(mme_run(&c), 0);
		/* D[0][*] NaN; D[1][0] = 2; D[1][1] = 2 + 0 * inf = NaN */
		ck_assert(isnan(load_val(dev_ptr(c.d.addr), c.out)));
		ck_assert(isnan(load_val(dev_ptr(c.d.addr) + esize(c.out), c.out)));
		ck_assert_float_eq(load_val(dev_ptr(c.d.addr) + 2 * esize(c.out), c.out), 2);
		ck_assert(isnan(load_val(dev_ptr(c.d.addr) + 3 * esize(c.out), c.out)));
	}
}
END_TEST

/* ---- refused configurations ------------------------------------------------- */

enum mutation {
	MUT_M0, MUT_N0, MUT_K0, MUT_BATCH0, MUT_M_BIG, MUT_BATCH_BIG, MUT_MACS,
	MUT_DTYPE_IN, MUT_DTYPE_OUT, MUT_DTYPE_RSVD, MUT_CTRL_RSVD,
	MUT_LDA_SHORT, MUT_LDA_SHORT_T, MUT_LDB_SHORT, MUT_LDC_SHORT, MUT_LDD_SHORT,
	MUT_LD_HUGE, MUT_A_PAST_HBM, MUT_D_IN_CFG, MUT_D_IN_HOST, MUT_B_PAST_SRAM,
	MUT_A_MISALIGNED, MUT_D_MISALIGNED_BF16, MUT_STRIDE_OVERFLOW, MUT_STRIDE_OUTSIDE,
	MUT_ADDR_WRAP, MUT_C_OUTSIDE, MUT_COUNT,
};

static int mutate(struct cfg *c, enum mutation mu)
{
	switch (mu) {
	case MUT_M0: c->m = 0; return GAUDISIM_MME_ERR_DIM;
	case MUT_N0: c->n = 0; return GAUDISIM_MME_ERR_DIM;
	case MUT_K0: c->k = 0; return GAUDISIM_MME_ERR_DIM;
	case MUT_BATCH0: c->batch = 0; return GAUDISIM_MME_ERR_DIM;
	case MUT_M_BIG: c->m = GAUDISIM_MME_DIM_MAX + 1; return GAUDISIM_MME_ERR_DIM;
	case MUT_BATCH_BIG: c->batch = GAUDISIM_MME_BATCH_MAX + 1; return GAUDISIM_MME_ERR_DIM;
	case MUT_MACS:
		c->m = c->n = c->k = 1u << 14;
		c->batch = 2;
		return GAUDISIM_MME_ERR_DIM;
	case MUT_DTYPE_IN: c->in = GAUDISIM_DTYPE_INT32; return GAUDISIM_MME_ERR_DTYPE;
	case MUT_DTYPE_OUT: c->out = GAUDISIM_DTYPE_INT8; return GAUDISIM_MME_ERR_DTYPE;
	case MUT_DTYPE_RSVD: c->dtype_raw = 0x100; return GAUDISIM_MME_ERR_FIELD;
	case MUT_CTRL_RSVD: c->ctrl_raw = 0x20; return GAUDISIM_MME_ERR_FIELD;
	case MUT_LDA_SHORT: c->a.ld = c->k - 1; return GAUDISIM_MME_ERR_LD;
	case MUT_LDA_SHORT_T: c->ta = true; c->a.ld = c->k; c->m = c->k + 1;
		return GAUDISIM_MME_ERR_LD;
	case MUT_LDB_SHORT: c->b.ld = c->n - 1; return GAUDISIM_MME_ERR_LD;
	case MUT_LDC_SHORT: c->beta = 1.0f; c->c.ld = 1; return GAUDISIM_MME_ERR_LD;
	case MUT_LDD_SHORT: c->d.ld = 1; return GAUDISIM_MME_ERR_LD;
	case MUT_LD_HUGE: c->a.ld = 0x80000000u; return GAUDISIM_MME_ERR_LD;
	case MUT_A_PAST_HBM: c->a.addr = T_HBM_SIZE - 8; return GAUDISIM_MME_ERR_ADDR;
	case MUT_D_IN_CFG: c->d.addr = GAUDISIM_CFG_BASE; return GAUDISIM_MME_ERR_ADDR;
	case MUT_D_IN_HOST: c->d.addr = GAUDISIM_HOST_BASE + T_BUS_BASE;
		return GAUDISIM_MME_ERR_ADDR;
	case MUT_B_PAST_SRAM: c->b.addr = GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE - 12;
		return GAUDISIM_MME_ERR_ADDR;
	case MUT_A_MISALIGNED: c->a.addr += 2; return GAUDISIM_MME_ERR_ALIGN;
	case MUT_D_MISALIGNED_BF16: c->out = GAUDISIM_DTYPE_BF16; c->d.addr += 1;
		return GAUDISIM_MME_ERR_ALIGN;
	case MUT_STRIDE_OVERFLOW: c->batch = 3; c->b.stride = 1ull << 62;
		return GAUDISIM_MME_ERR_OVERFLOW;
	case MUT_STRIDE_OUTSIDE: c->batch = 2; c->d.stride = 1ull << 40;
		return GAUDISIM_MME_ERR_ADDR;
	case MUT_ADDR_WRAP: c->a.addr = 0xFFFFFFFFFFFFFFF0ull; return GAUDISIM_MME_ERR_ADDR;
	case MUT_C_OUTSIDE: c->beta = 0.5f; c->c.addr = GAUDISIM_SRAM_BASE - 4;
		return GAUDISIM_MME_ERR_ADDR;
	case MUT_COUNT:
		break;
	}
	return -1;
}

START_TEST(test_bad_configs_refused)
{
	static const float a[] = { 1, 2, 3, 4, 5, 6 };
	static const float b[] = { 7, 8, 9, 10, 11, 12 };
	static const float pattern[] = { 0.5f, 0.25f, 0.125f, 0.0625f, 3, 3, 3, 3 };
	unsigned int mu, errs = 0;

	for (mu = 0; mu < MUT_COUNT; mu++) {
		struct cfg c;
		int want, err;

		small_cfg(&c);
		put_f32(c.a.addr, a, 6);
		put_f32(c.b.addr, b, 6);
		put_f32(c.d.addr, pattern, 8);
		want = mutate(&c, (enum mutation)mu);
		errs = T->errors;
		err = mme_run(&c);
		ck_assert_msg(err == want, "mutation %u: error %d (%s), want %d (%s)", mu, err,
			      gsim_mme_err_name(err), want, gsim_mme_err_name(want));
		ck_assert_msg(T->errors == errs + 1, "mutation %u: %u guest errors", mu,
			      T->errors - errs);
		/* Nothing written. */
		ck_assert_mem_eq(dev_ptr(ARENA_HBM + 0x300), pattern, sizeof(pattern));

		/* The engine keeps working. */
		small_cfg(&c);
		ck_assert_int_eq(mme_run(&c), 0);
		ck_assert_float_eq(get_f32(c.d.addr, 0), 58);
		ck_assert_float_eq(get_f32(c.d.addr, 3), 154);
	}
}
END_TEST

/* Boundaries that are valid: the last bytes of HBM and of SRAM. */
START_TEST(test_operands_at_memory_ends)
{
	static const float a[] = { 1, 2, 3, 4, 5, 6 };
	static const float b[] = { 7, 8, 9, 10, 11, 12 };
	struct cfg c;

	small_cfg(&c);
	c.a.addr = T_HBM_SIZE - sizeof(a);
	c.b.addr = GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE - sizeof(b);
	c.d.addr = GAUDISIM_SRAM_BASE;
	put_f32(c.a.addr, a, 6);
	put_f32(c.b.addr, b, 6);
	ck_assert_int_eq(mme_run(&c), 0);
	ck_assert_float_eq(get_f32(c.d.addr, 0), 58);
	ck_assert_float_eq(get_f32(c.d.addr, 3), 154);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

Suite *mme_suite(void)
{
	Suite *s = suite_create("mme");
	TCase *tc = tcase_create("mme");
	TCase *gemm = tcase_create("mme-gemm");

	tcase_add_checked_fixture(tc, mme_setup, mme_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_bf16_known_patterns);
	tcase_add_test(tc, test_bf16_every_value_round_trips);
	tcase_add_test(tc, test_bf16_matches_rounding_model);
	tcase_add_test(tc, test_regs_read_back_and_access);
	tcase_add_test(tc, test_known_small_gemm);
	tcase_add_loop_test(tc, test_engine_ops_adapter, 0, GAUDISIM_NUM_MME);
	tcase_add_test(tc, test_alpha_beta_zero_skip_operands);
	tcase_add_test(tc, test_nan_and_inf_propagate);
	tcase_add_test(tc, test_bad_configs_refused);
	tcase_add_test(tc, test_operands_at_memory_ends);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(gemm, mme_setup, mme_teardown);
	tcase_set_timeout(gemm, 120);
	tcase_add_loop_test(gemm, test_random_layouts_exact, 0, 3);
	tcase_add_test(gemm, test_aliasing_exact);
	tcase_add_loop_test(gemm, test_random_fractional_within_bound, 0, 2);
	tcase_add_test(gemm, test_multi_tile_paths);
#ifdef GSIM_HAVE_OPENBLAS
	tcase_add_test(gemm, test_small_gemm_is_one_blas_call);
	tcase_add_test(gemm, test_blas_threads_follow_the_size);
#endif
	tcase_add_test(gemm, test_bf16_output_is_rounded_fp32_output);
	suite_add_tcase(s, gemm);
	return s;
}
