/* SPDX-License-Identifier: MIT */
/*
 * The MME's convolution modes (forward, dedx, dedw) against direct loops
 * in double precision: random geometries (strides, padding, dilation,
 * blocks that end part-way), FP32 and BF16 in and out, alpha and beta,
 * C == D. Small integer data make every sum exact, so the results must
 * match bit for bit; fractional data must stay within the documented
 * bound. Bytes around D never change. Refused configurations write
 * nothing, report their error code and leave the engine working.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_bf16.h"
#include "gsim_mme.h"
#include "gsim_test.h"

#define CONV_ARENA	(GAUDISIM_HBM_USER_BASE + (256ull << 20))
#define GUARD		256u	/* bytes checked on each side of D */

static struct gsim_mme M;
static uint64_t rng;

static uint32_t rnd_below(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void conv_setup(void)
{
	th_setup();
	gsim_mme_init(&M);
	rng = 0x9e3779b97f4a7c15ull;
}

static void conv_teardown(void)
{
	gsim_mme_fini(&M);
	th_teardown();
}

static uint8_t *mem(uint64_t addr, uint64_t bytes)
{
	struct gsim_span span;

	ck_assert(gsim_dma_decode(T->core, addr, bytes, &span));
	return span.mem;
}

struct conv {
	unsigned int op, in, out;
	uint32_t n, h, w, c, k, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
	float alpha, beta;
	bool c_is_d, bias;		/* bias: C is [K] (FWD) */
	uint64_t a, b, cc, d;		/* device addresses */
	uint64_t a_n, b_n, d_n;		/* elements */
};

static void wreg(uint32_t off, uint32_t v)
{
	bool commit;

	ck_assert_int_eq(gsim_mme_reg_write(&M, off, v, &commit), GSIM_REG_OK);
}

static void wreg64(uint32_t lo, uint64_t v)
{
	wreg(lo, (uint32_t)v);
	wreg(lo + 4, (uint32_t)(v >> 32));
}

static int run(const struct conv *c, uint32_t ctrl_extra)
{
	const uint32_t geo[GAUDISIM_MME_CONV_NUM_REGS] = {
		c->n, c->h, c->w, c->c, c->k, c->kh, c->kw, c->sh, c->sw, c->ph, c->pw, c->dh, c->dw,
	};
	bool commit;
	uint32_t i;

	wreg64(GAUDISIM_MME_A_ADDR_LO, c->a);
	wreg64(GAUDISIM_MME_B_ADDR_LO, c->b);
	wreg64(GAUDISIM_MME_C_ADDR_LO, c->cc);
	wreg64(GAUDISIM_MME_D_ADDR_LO, c->d);
	wreg(GAUDISIM_MME_DTYPE, GAUDISIM_MME_DTYPE_VALUE(c->in, c->out));
	wreg(GAUDISIM_MME_CTRL, GAUDISIM_MME_CTRL_OP_VALUE(c->op) | ctrl_extra |
				(c->bias ? GAUDISIM_MME_CTRL_CONV_BIAS : 0));
	wreg(GAUDISIM_MME_ALPHA, gsim_f32_bits(c->alpha));
	wreg(GAUDISIM_MME_BETA, gsim_f32_bits(c->beta));
	for (i = 0; i < GAUDISIM_MME_CONV_NUM_REGS; i++)
		wreg(GAUDISIM_MME_CONV_BASE + 4 * i, geo[i]);
	ck_assert_int_eq(gsim_mme_reg_write(&M, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO,
					    &commit), GSIM_REG_OK);
	ck_assert(commit);
	return gsim_mme_execute(T->core, &M, &M.regs);
}

static unsigned int esz(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_BF16 ? 2 : 4;
}

static float get(uint64_t addr, uint64_t i, unsigned int dt)
{
	const uint8_t *p = mem(addr + i * esz(dt), esz(dt));

	if (dt == GAUDISIM_DTYPE_BF16)
		return gsim_bf16_to_f32((uint16_t)(p[0] | p[1] << 8));
	return gsim_bits_f32(gsim_ld_le32(p));
}

static void put(uint64_t addr, uint64_t i, unsigned int dt, float v)
{
	uint8_t *p = mem(addr + i * esz(dt), esz(dt));

	if (dt == GAUDISIM_DTYPE_BF16) {
		uint16_t h = gsim_f32_to_bf16(v);

		p[0] = (uint8_t)h;
		p[1] = (uint8_t)(h >> 8);
	} else {
		gsim_st_le32(p, gsim_f32_bits(v));
	}
}

static void geometry(struct conv *c)
{
	uint32_t ekh = c->dh * (c->kh - 1) + 1, ekw = c->dw * (c->kw - 1) + 1;

	c->oh = (c->h + 2 * c->ph - ekh) / c->sh + 1;
	c->ow = (c->w + 2 * c->pw - ekw) / c->sw + 1;
}

/* Lay the operands out one after another, D between guard zones. */
static void place(struct conv *c)
{
	uint64_t x = (uint64_t)c->n * c->h * c->w * c->c, wt = (uint64_t)c->kh * c->kw * c->c * c->k;
	uint64_t y = (uint64_t)c->n * c->oh * c->ow * c->k, at = CONV_ARENA + 4 * rnd_below(4);

	c->a_n = c->op == GAUDISIM_MME_OP_CONV_DEDX ? y : x;
	c->b_n = c->op == GAUDISIM_MME_OP_CONV_FWD ? wt : c->op == GAUDISIM_MME_OP_CONV_DEDX ? wt : y;
	c->d_n = c->op == GAUDISIM_MME_OP_CONV_FWD ? y : c->op == GAUDISIM_MME_OP_CONV_DEDX ? x : wt;
	c->a = at;
	c->b = (c->a + c->a_n * 4 + 127) / 64 * 64;
	c->cc = (c->b + c->b_n * 4 + 127) / 64 * 64;
	c->d = c->c_is_d ? c->cc : (c->cc + c->d_n * 4 + GUARD + 127) / 64 * 64 + GUARD;
	if (c->c_is_d)
		c->cc = c->d = c->cc + GUARD;
	memset(mem(c->d - GUARD, c->d_n * 4 + 2 * GUARD), 0x5a, c->d_n * 4 + 2 * GUARD);
}

/* x, w, y element indices of a tap; false when the tap is in the padding. */
static bool tap(const struct conv *c, uint32_t n, uint32_t oh, uint32_t ow, uint32_t kh,
		uint32_t kw, uint32_t ch, uint32_t k, uint64_t *xi, uint64_t *wi, uint64_t *yi)
{
	int64_t ih = (int64_t)oh * c->sh + (int64_t)kh * c->dh - c->ph;
	int64_t iw = (int64_t)ow * c->sw + (int64_t)kw * c->dw - c->pw;

	if (ih < 0 || iw < 0 || ih >= c->h || iw >= c->w)
		return false;
	*xi = (((uint64_t)n * c->h + (uint64_t)ih) * c->w + (uint64_t)iw) * c->c + ch;
	*wi = (((uint64_t)kh * c->kw + kw) * c->c + ch) * c->k + k;
	*yi = (((uint64_t)n * c->oh + oh) * c->ow + ow) * c->k + k;
	return true;
}

static float *load_all(uint64_t addr, uint64_t n, unsigned int dt)
{
	float *v = malloc((n ? n : 1) * sizeof(float));
	uint64_t i;

	ck_assert(v);
	for (i = 0; i < n; i++)
		v[i] = get(addr, i, dt);
	return v;
}

/* The exact result in double (sum and sum of magnitudes) for every D element. */
static void reference(const struct conv *c, double *sum, double *mag)
{
	float *av = load_all(c->a, c->a_n, c->in), *bv = load_all(c->b, c->b_n, c->in);
	uint32_t n, oh, ow, kh, kw, ch, k;
	uint64_t xi, wi, yi;

	memset(sum, 0, c->d_n * sizeof(double));
	memset(mag, 0, c->d_n * sizeof(double));
	for (n = 0; n < c->n; n++)
		for (oh = 0; oh < c->oh; oh++)
			for (ow = 0; ow < c->ow; ow++)
				for (kh = 0; kh < c->kh; kh++)
					for (kw = 0; kw < c->kw; kw++)
						for (ch = 0; ch < c->c; ch++)
							for (k = 0; k < c->k; k++) {
								uint64_t ai, bi, di;
								double p;

								if (!tap(c, n, oh, ow, kh, kw, ch, k,
									 &xi, &wi, &yi))
									continue;
								ai = c->op == GAUDISIM_MME_OP_CONV_DEDX ? yi : xi;
								bi = c->op == GAUDISIM_MME_OP_CONV_DEDW ? yi : wi;
								di = c->op == GAUDISIM_MME_OP_CONV_FWD ? yi :
								     c->op == GAUDISIM_MME_OP_CONV_DEDX ? xi : wi;
								p = (double)av[ai] * bv[bi];
								sum[di] += p;
								mag[di] += fabs(p);
							}
	free(av);
	free(bv);
}

static float value(bool integer)
{
	if (integer)
		return (float)((int)rnd_below(7) - 3);
	return ((float)rnd_below(1u << 20) / (float)(1u << 19) - 1.0f);
}

static void random_conv(struct conv *c, bool big)
{
	memset(c, 0, sizeof(*c));
	c->op = 1 + rnd_below(3);
	c->in = rnd_below(3) ? GAUDISIM_DTYPE_FP32 : GAUDISIM_DTYPE_BF16;
	c->out = rnd_below(3) ? GAUDISIM_DTYPE_FP32 : GAUDISIM_DTYPE_BF16;
	c->n = 1 + rnd_below(big ? 4 : 3);
	c->c = 1 + rnd_below(big ? 40 : 5);
	c->k = 1 + rnd_below(big ? 24 : 6);
	c->kh = 1 + rnd_below(5);
	c->kw = 1 + rnd_below(5);
	c->sh = 1 + rnd_below(3);
	c->sw = 1 + rnd_below(3);
	c->dh = rnd_below(4) ? 1 : 2;
	c->dw = rnd_below(4) ? 1 : 2;
	c->ph = rnd_below(c->dh * (c->kh - 1) + 1);
	c->pw = rnd_below(c->dw * (c->kw - 1) + 1);
	c->h = c->dh * (c->kh - 1) + 1 + rnd_below(big ? 30 : 10);
	c->w = c->dw * (c->kw - 1) + 1 + rnd_below(big ? 30 : 10);
	c->alpha = (float)(1 << rnd_below(3)) * (rnd_below(2) ? 1.0f : -1.0f);
	c->beta = rnd_below(2) ? 0.0f : (rnd_below(2) ? 0.5f : -2.0f);
	c->c_is_d = c->beta != 0.0f && rnd_below(2);
	c->bias = c->op == GAUDISIM_MME_OP_CONV_FWD && c->beta != 0.0f && !c->c_is_d &&
		  rnd_below(2);
	geometry(c);
}

static void fill(const struct conv *c, bool integer)
{
	uint64_t i;

	for (i = 0; i < c->a_n; i++)
		put(c->a, i, c->in, value(integer));
	for (i = 0; i < c->b_n; i++)
		put(c->b, i, c->in, value(integer));
	if (c->beta != 0.0f)
		for (i = 0; i < (c->bias ? c->k : c->d_n); i++)
			put(c->cc, i, c->out, value(true));
}

static void check_guards(const struct conv *c)
{
	const uint8_t *lo = mem(c->d - GUARD, GUARD), *hi = mem(c->d + c->d_n * esz(c->out), GUARD);
	uint32_t i;

	for (i = 0; i < GUARD; i++)
		ck_assert_msg(lo[i] == 0x5a && hi[i] == 0x5a, "a byte next to D changed");
}

/* Run the convolution c describes (geometry() done) on fresh data and check D. */
static void check_given(struct conv *cv, bool integer)
{
	struct conv c = *cv;
	double *sum, *mag;
	float *cval;
	uint64_t i;

	place(&c);
	fill(&c, integer);
	sum = malloc(c.d_n * sizeof(double));
	mag = malloc(c.d_n * sizeof(double));
	cval = malloc(c.d_n * sizeof(float));
	ck_assert(sum && mag && cval);
	for (i = 0; i < c.d_n; i++)
		cval[i] = c.beta != 0.0f ? get(c.cc, c.bias ? i % c.k : i, c.out) : 0.0f;
	reference(&c, sum, mag);
	ck_assert_int_eq(run(&c, 0), GAUDISIM_MME_ERR_NONE);
	check_guards(&c);
	for (i = 0; i < c.d_n; i++) {
		double want = c.alpha * sum[i] + (double)c.beta * cval[i];
		float got = get(c.d, i, c.out);

		if (integer) {
			float exact = (float)want;

			if (c.out == GAUDISIM_DTYPE_BF16)
				exact = gsim_bf16_to_f32(gsim_f32_to_bf16(exact));
			ck_assert_msg(got == exact, "op %u %ux%ux%ux%u K=%u kernel %ux%u stride %u,%u "
				      "pad %u,%u dil %u,%u: D[%llu] = %g, want %g", c.op, c.n, c.h,
				      c.w, c.c, c.k, c.kh, c.kw, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw,
				      (unsigned long long)i, got, exact);
		} else {
			double l = c.op == GAUDISIM_MME_OP_CONV_FWD ? c.kh * c.kw * c.c :
				   c.op == GAUDISIM_MME_OP_CONV_DEDX ? c.kh * c.kw * c.k + 1 :
				   (double)c.n * c.oh * c.ow;
			double u = ldexp(1, -24), gl = (l + 3) * u / (1 - (l + 3) * u);
			double bound = gl * (fabs(c.alpha) * mag[i] + fabs(c.beta * cval[i])) +
				       (c.out == GAUDISIM_DTYPE_BF16 ? ldexp(fabs(want), -8) : 0) +
				       1e-38;

			ck_assert_msg(fabs(got - want) <= bound, "op %u: D[%llu] = %.9g, want %.9g "
				      "(bound %g)", c.op, (unsigned long long)i, got, want, bound);
		}
	}
	free(sum);
	free(mag);
	free(cval);
}

static void check_conv(bool integer, bool big)
{
	struct conv c;

	random_conv(&c, big);
	check_given(&c, integer);
}

START_TEST(test_conv_registers_read_back)
{
	uint32_t off, v;
	bool commit;

	for (off = GAUDISIM_MME_CONV_BASE; off < GAUDISIM_MME_CONV_END; off += 4) {
		bool known = off < GAUDISIM_MME_CONV_BASE + 4 * GAUDISIM_MME_CONV_NUM_REGS;

		ck_assert_int_eq(gsim_mme_reg_write(&M, off, 0xC0000000u | off, &commit),
				 known ? GSIM_REG_OK : GSIM_REG_UNKNOWN);
		ck_assert(gsim_mme_reg_read(&M, off, &v) == known);
		ck_assert_uint_eq(v, known ? (0xC0000000u | off) : 0);
	}
	ck_assert_uint_lt(GAUDISIM_MME_CONV_END, GAUDISIM_ENG_COMMON_BASE);
	gsim_mme_reset(&M);
	ck_assert(gsim_mme_reg_read(&M, GAUDISIM_MME_CONV_N, &v));
	ck_assert_uint_eq(v, 0);
}
END_TEST

START_TEST(test_conv_random_exact)
{
	int i;

	rng += (uint64_t)_i * 7919;
	for (i = 0; i < 40; i++)
		check_conv(true, false);
	for (i = 0; i < 4; i++)
		check_conv(true, true);
}
END_TEST

START_TEST(test_conv_random_fractional_within_bound)
{
	int i;

	rng += 104729;
	for (i = 0; i < 20; i++)
		check_conv(false, i % 5 == 0);
}
END_TEST

/*
 * The im2col gather copies a window row of FP32 as one run of KW*C floats
 * (up to 16 as two overlapping moves): every run length from 1 to 20 (one
 * channel, KW 1..20) and runs of several channels, whole and cut by the
 * padding at both edges, for the forward and the filter gradient.
 */
static void check_runs(uint32_t op, uint32_t kw, uint32_t ch)
{
	struct conv c;

	memset(&c, 0, sizeof(c));
	c.op = op;
	c.in = GAUDISIM_DTYPE_FP32;
	c.out = GAUDISIM_DTYPE_FP32;
	c.n = 2;
	c.c = ch;
	c.k = 3;
	c.kh = 2;
	c.kw = kw;
	c.sh = 1;
	c.sw = 1;
	c.dh = 1;
	c.dw = 1;
	c.ph = 1;
	c.pw = kw - 1;
	c.h = 4;
	c.w = kw + 3;
	c.alpha = 1.0f;
	geometry(&c);
	check_given(&c, true);
}

START_TEST(test_conv_every_run_length)
{
	uint32_t op, kw, ch;

	rng += 15485863;
	for (op = GAUDISIM_MME_OP_CONV_FWD; op <= GAUDISIM_MME_OP_CONV_DEDW; op += 2) {
		for (kw = 1; kw <= 20; kw++)
			check_runs(op, kw, 1);
		for (ch = 2; ch <= 4; ch++)
			for (kw = 1; kw <= 5; kw++)
				check_runs(op, kw, ch);
	}
}
END_TEST

/* A known case: 1 image, 3x3 input, 2x2 kernel of ones, stride 1, no padding. */
START_TEST(test_conv_known_small)
{
	struct conv c = { .op = GAUDISIM_MME_OP_CONV_FWD, .in = GAUDISIM_DTYPE_FP32,
			  .out = GAUDISIM_DTYPE_FP32, .n = 1, .h = 3, .w = 3, .c = 1, .k = 1,
			  .kh = 2, .kw = 2, .sh = 1, .sw = 1, .dh = 1, .dw = 1, .alpha = 1 };
	static const float want[] = { 8, 12, 20, 24 };
	uint32_t i;

	geometry(&c);
	place(&c);
	for (i = 0; i < 9; i++)
		put(c.a, i, c.in, (float)i);
	for (i = 0; i < 4; i++)
		put(c.b, i, c.in, 1.0f);
	ck_assert_int_eq(run(&c, 0), 0);
	for (i = 0; i < 4; i++)
		ck_assert_float_eq(get(c.d, i, c.out), want[i]);
}
END_TEST

enum conv_mutation {
	CM_N_ZERO, CM_KERNEL_ZERO, CM_STRIDE_ZERO, CM_DIL_BIG, CM_PAD_TOO_BIG, CM_NO_FIT,
	CM_C_BIG, CM_TRANSPOSE, CM_BAD_DTYPE, CM_A_OUTSIDE, CM_D_MISALIGNED, CM_D_ON_A,
	CM_TAPS_TOO_MANY, CM_BIAS_NOT_FWD, CM_BIAS_ON_D, CM_C_OVERLAPS_D, CM_COUNT
};

START_TEST(test_conv_bad_configs_refused)
{
	unsigned int mu;

	for (mu = 0; mu < CM_COUNT; mu++) {
		struct conv c = { .op = GAUDISIM_MME_OP_CONV_FWD, .in = GAUDISIM_DTYPE_FP32,
				  .out = GAUDISIM_DTYPE_FP32, .n = 2, .h = 6, .w = 5, .c = 3, .k = 4,
				  .kh = 3, .kw = 3, .sh = 1, .sw = 2, .ph = 1, .pw = 1, .dh = 1,
				  .dw = 1, .alpha = 1 };
		uint32_t ctrl = 0;
		int want = GAUDISIM_MME_ERR_DIM, err;
		unsigned int errs;

		geometry(&c);
		place(&c);
		fill(&c, true);
		switch (mu) {
		case CM_N_ZERO: c.n = 0; break;
		case CM_KERNEL_ZERO: c.kw = 0; break;
		case CM_STRIDE_ZERO: c.sh = 0; break;
		case CM_DIL_BIG: c.dh = 256; break;
		case CM_PAD_TOO_BIG: c.ph = 3; break;
		case CM_NO_FIT: c.h = 1; c.ph = 0; break;
		case CM_C_BIG: c.c = GAUDISIM_MME_CONV_NCK_MAX + 1; break;
		case CM_TAPS_TOO_MANY: c.kh = c.kw = 255; c.h = c.w = 300; c.c = 17; break;
		case CM_TRANSPOSE: ctrl = GAUDISIM_MME_CTRL_TRANSPOSE_A; want = GAUDISIM_MME_ERR_FIELD;
			break;
		case CM_BAD_DTYPE: c.in = GAUDISIM_DTYPE_INT32; want = GAUDISIM_MME_ERR_DTYPE; break;
		case CM_A_OUTSIDE: c.a = T_HBM_SIZE - 8; want = GAUDISIM_MME_ERR_ADDR; break;
		case CM_D_MISALIGNED: c.d += 2; want = GAUDISIM_MME_ERR_ALIGN; break;
		case CM_D_ON_A: c.d = c.a + 4; want = GAUDISIM_MME_ERR_OVERLAP; break;
		case CM_BIAS_NOT_FWD: c.op = GAUDISIM_MME_OP_CONV_DEDW; c.bias = true;
			want = GAUDISIM_MME_ERR_FIELD; break;
		case CM_BIAS_ON_D: c.bias = true; c.beta = 1.0f; c.cc = c.d;
			want = GAUDISIM_MME_ERR_OVERLAP; break;
		default:
			c.beta = 1.0f;
			c.cc = c.d - 4;
			want = GAUDISIM_MME_ERR_OVERLAP;
			break;
		}
		errs = T->errors;
		err = run(&c, ctrl);
		ck_assert_msg(err == want, "mutation %u: error %d (%s), want %d (%s)", mu, err,
			      gsim_mme_err_name(err), want, gsim_mme_err_name(want));
		ck_assert_msg(T->errors == errs + 1, "mutation %u: %u guest errors", mu,
			      T->errors - errs);
		if (mu != CM_D_MISALIGNED && mu != CM_D_ON_A) {
			const uint8_t *d = mem(c.d, 4);

			ck_assert_msg(d[0] == 0x5a && d[3] == 0x5a, "mutation %u wrote D", mu);
		}
	}
	/* The engine keeps working. */
	for (mu = 0; mu < 4; mu++)
		check_conv(true, false);
}
END_TEST

Suite *mme_conv_suite(void)
{
	Suite *s = suite_create("mme_conv");
	TCase *tc = tcase_create("conv");

	tcase_add_checked_fixture(tc, conv_setup, conv_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_conv_registers_read_back);
	tcase_add_test(tc, test_conv_every_run_length);
	tcase_add_test(tc, test_conv_known_small);
	tcase_add_loop_test(tc, test_conv_random_exact, 0, 3);
	tcase_add_test(tc, test_conv_random_fractional_within_bound);
	tcase_add_test(tc, test_conv_bad_configs_refused);
	suite_add_tcase(s, tc);
	return s;
}
