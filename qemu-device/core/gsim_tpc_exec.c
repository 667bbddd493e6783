/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the TPC interpreter.
 *
 * A decoded bundle is a short list of slot handlers (NOP slots dropped)
 * in execution order LOAD, VPU, STORE, SPU. The run loop calls them for
 * every bundle of every member of the launch's part of the index space,
 * counting bundles against the watchdog budget. Common shapes have a
 * handler for the whole bundle (fused) and, when the bundle loops to
 * itself, one for a run of it (loop).
 *
 * Vector work is written as plain 64-lane loops that the compiler turns
 * into host SIMD code at -O2: the common operations (FP32/BF16/INT32/UINT32
 * arithmetic, contiguous loads and stores) have their own loops; every
 * other operation goes through one per-lane function, lane_alu(), which
 * is also what the scalar unit uses, so both units compute the same thing.
 *
 * This file is compiled once per host vector ISA: as itself for the
 * baseline, and included by gsim_tpc_exec_avx2.c / gsim_tpc_exec_avx512.c
 * under a target pragma, which define GSIM_TPC_ISA_TABLE and
 * GSIM_TPC_ISA_NAME. Only the table of entry points is exported.
 *
 * Nothing here can fail at run time except the three documented ways
 * (illegal bundle, running past the end, watchdog): registers were
 * range-checked at decode, every tensor a kernel can touch was checked
 * against device memory at launch, and coordinates outside a tensor are
 * padded on loads and dropped on stores.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "gsim_bf16.h"
#include "gsim_tpc.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the TPC interpreter reads device memory as little-endian host words"
#endif

/*
 * Every float operation rounds on its own (MAC = multiply, round, add,
 * round): no contraction into fused multiply-add, whatever the host
 * supports, so a kernel gives the same bits everywhere.
 */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* The 64-lane loops never overlap partially: tell the vectorizer. */
#if defined(__GNUC__) && !defined(__clang__)
#define GSIM_IVDEP _Pragma("GCC ivdep")
#else
#define GSIM_IVDEP
#endif

#ifndef GSIM_TPC_ISA_TABLE
#define GSIM_TPC_ISA_TABLE	gsim_tpc_isa_base
#define GSIM_TPC_ISA_NAME	GSIM_TPC_ISA_BASE
#endif

#define L GSIM_TPC_L

typedef union gsim_tpc_vreg vreg;

/* ---- lane arithmetic ---------------------------------------------------- */

static inline float fl(uint32_t u)
{
	return gsim_bits_f32(u);
}

static inline uint32_t bits(float f)
{
	return gsim_f32_bits(f);
}

static inline bool dt_float(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_FP32 || dt == GAUDISIM_DTYPE_BF16;
}

static inline bool dt_signed(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_INT32 || dt == GAUDISIM_DTYPE_INT16 ||
	       dt == GAUDISIM_DTYPE_INT8;
}

static inline uint32_t bf16_rne(uint32_t u)
{
	return (uint32_t)gsim_f32_to_bf16(fl(u)) << 16;
}

/* A 32-bit result as the type's register format: BF16 rounded, narrow
 * integers wrapped and sign- or zero-extended. */
static inline uint32_t norm(unsigned int dt, uint32_t v)
{
	switch (dt) {
	case GAUDISIM_DTYPE_BF16:
		return bf16_rne(v);
	case GAUDISIM_DTYPE_INT16:
		return (uint32_t)(int32_t)(int16_t)(uint16_t)v;
	case GAUDISIM_DTYPE_UINT16:
		return v & 0xffffu;
	case GAUDISIM_DTYPE_INT8:
		return (uint32_t)(int32_t)(int8_t)(uint8_t)v;
	case GAUDISIM_DTYPE_UINT8:
		return v & 0xffu;
	default:
		return v;
	}
}

static uint32_t lane_float(unsigned int opc, unsigned int dt, uint32_t a, uint32_t b,
			   uint32_t c)
{
	float x = fl(a), y = fl(b), r;

	switch (opc) {
	case GAUDISIM_TPC_OP_ADD:
		r = x + y;
		break;
	case GAUDISIM_TPC_OP_SUB:
		r = x - y;
		break;
	case GAUDISIM_TPC_OP_MUL:
		r = x * y;
		break;
	case GAUDISIM_TPC_OP_MAC:
		r = fl(c) + x * y;
		break;
	case GAUDISIM_TPC_OP_MIN:
		r = x < y ? x : y;
		break;
	case GAUDISIM_TPC_OP_MAX:
		r = x > y ? x : y;
		break;
	case GAUDISIM_TPC_OP_AND:
		return a & b;
	case GAUDISIM_TPC_OP_OR:
		return a | b;
	case GAUDISIM_TPC_OP_XOR:
		return a ^ b;
	case GAUDISIM_TPC_OP_NOT:
		return ~a;
	case GAUDISIM_TPC_OP_ABS:
		return norm(dt, a & 0x7fffffffu);
	case GAUDISIM_TPC_OP_NEG:
		return norm(dt, a ^ 0x80000000u);
	case GAUDISIM_TPC_OP_EXP:
		r = expf(x);
		break;
	case GAUDISIM_TPC_OP_LOG:
		r = logf(x);
		break;
	case GAUDISIM_TPC_OP_RCP:
		r = 1.0f / x;
		break;
	case GAUDISIM_TPC_OP_RSQRT:
		r = 1.0f / sqrtf(x);
		break;
	case GAUDISIM_TPC_OP_SQRT:
		r = sqrtf(x);
		break;
	case GAUDISIM_TPC_OP_TANH:
		r = tanhf(x);
		break;
	default:
		return 0;
	}
	return norm(dt, bits(r));
}

static uint32_t lane_int(unsigned int opc, unsigned int dt, uint32_t a, uint32_t b, uint32_t c)
{
	bool sgn = dt_signed(dt);
	uint32_t r;

	switch (opc) {
	case GAUDISIM_TPC_OP_ADD:
		r = a + b;
		break;
	case GAUDISIM_TPC_OP_SUB:
		r = a - b;
		break;
	case GAUDISIM_TPC_OP_MUL:
		r = a * b;
		break;
	case GAUDISIM_TPC_OP_MAC:
		r = c + a * b;
		break;
	case GAUDISIM_TPC_OP_MIN:
		r = sgn ? ((int32_t)a < (int32_t)b ? a : b) : (a < b ? a : b);
		break;
	case GAUDISIM_TPC_OP_MAX:
		r = sgn ? ((int32_t)a > (int32_t)b ? a : b) : (a > b ? a : b);
		break;
	case GAUDISIM_TPC_OP_AND:
		r = a & b;
		break;
	case GAUDISIM_TPC_OP_OR:
		r = a | b;
		break;
	case GAUDISIM_TPC_OP_XOR:
		r = a ^ b;
		break;
	case GAUDISIM_TPC_OP_SHL:
		r = a << (b & 31);
		break;
	case GAUDISIM_TPC_OP_SHR:
		r = sgn ? (uint32_t)((int32_t)a >> (b & 31)) : a >> (b & 31);
		break;
	case GAUDISIM_TPC_OP_NOT:
		r = ~a;
		break;
	case GAUDISIM_TPC_OP_ABS:
		r = sgn && (int32_t)a < 0 ? 0u - a : a;
		break;
	case GAUDISIM_TPC_OP_NEG:
		r = 0u - a;
		break;
	default:
		return 0;
	}
	return norm(dt, r);
}

/* One lane of an arithmetic, logic or special-function operation. */
static inline uint32_t lane_alu(unsigned int opc, unsigned int dt, uint32_t a, uint32_t b,
				uint32_t c)
{
	if (opc == GAUDISIM_TPC_OP_MOV)
		return b;
	return dt_float(dt) ? lane_float(opc, dt, a, b, c) : lane_int(opc, dt, a, b, c);
}

static bool lane_cmp(unsigned int cond, unsigned int dt, uint32_t a, uint32_t b)
{
	if (dt_float(dt)) {
		float x = fl(a), y = fl(b);

		switch (cond) {
		case GAUDISIM_TPC_CMP_EQ:
			return x == y;
		case GAUDISIM_TPC_CMP_NE:
			return x != y;
		case GAUDISIM_TPC_CMP_LT:
			return x < y;
		case GAUDISIM_TPC_CMP_LE:
			return x <= y;
		case GAUDISIM_TPC_CMP_GT:
			return x > y;
		default:
			return x >= y;
		}
	}
	if (dt_signed(dt)) {
		int32_t x = (int32_t)a, y = (int32_t)b;

		switch (cond) {
		case GAUDISIM_TPC_CMP_EQ:
			return x == y;
		case GAUDISIM_TPC_CMP_NE:
			return x != y;
		case GAUDISIM_TPC_CMP_LT:
			return x < y;
		case GAUDISIM_TPC_CMP_LE:
			return x <= y;
		case GAUDISIM_TPC_CMP_GT:
			return x > y;
		default:
			return x >= y;
		}
	}
	switch (cond) {
	case GAUDISIM_TPC_CMP_EQ:
		return a == b;
	case GAUDISIM_TPC_CMP_NE:
		return a != b;
	case GAUDISIM_TPC_CMP_LT:
		return a < b;
	case GAUDISIM_TPC_CMP_LE:
		return a <= b;
	case GAUDISIM_TPC_CMP_GT:
		return a > b;
	default:
		return a >= b;
	}
}

/* ---- conversions ---------------------------------------------------------- */

static double round_int(double q, unsigned int rm)
{
	double f;

	switch (rm) {
	case GAUDISIM_TPC_RM_RZ:
		return trunc(q);
	case GAUDISIM_TPC_RM_RD:
		return floor(q);
	case GAUDISIM_TPC_RM_RU:
		return ceil(q);
	default:
		f = floor(q);
		if (q - f > 0.5)
			return f + 1.0;
		if (q - f < 0.5)
			return f;
		return fmod(f, 2.0) == 0.0 ? f : f + 1.0;
	}
}

static void int_range(unsigned int dt, int64_t *lo, int64_t *hi)
{
	switch (dt) {
	case GAUDISIM_DTYPE_INT32:
		*lo = INT32_MIN, *hi = INT32_MAX;
		break;
	case GAUDISIM_DTYPE_UINT32:
		*lo = 0, *hi = UINT32_MAX;
		break;
	case GAUDISIM_DTYPE_INT16:
		*lo = INT16_MIN, *hi = INT16_MAX;
		break;
	case GAUDISIM_DTYPE_UINT16:
		*lo = 0, *hi = UINT16_MAX;
		break;
	case GAUDISIM_DTYPE_INT8:
		*lo = INT8_MIN, *hi = INT8_MAX;
		break;
	default:
		*lo = 0, *hi = UINT8_MAX;
		break;
	}
}

/* FP32 -> BF16 with a rounding mode; NaN stays a quiet NaN. */
static uint32_t bf16_round(uint32_t u, unsigned int rm)
{
	uint32_t t = u & 0xffff0000u;
	bool inexact = (u & 0xffffu) != 0, neg = u >> 31;

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return t | (uint32_t)GSIM_BF16_QUIET_BIT << 16;
	if (rm == GAUDISIM_TPC_RM_RNE)
		return bf16_rne(u);
	/* Truncation is toward zero; step the magnitude up when the mode
	 * rounds away from zero on this side (carries reach infinity). */
	if (inexact && ((rm == GAUDISIM_TPC_RM_RU && !neg) || (rm == GAUDISIM_TPC_RM_RD && neg)))
		t += 0x10000u;
	return t;
}

/* An integer (|v| < 2^32) to FP32 or BF16, rounded with rm. */
static uint32_t int_to_float(int64_t v, unsigned int dst, unsigned int rm)
{
	int prec = dst == GAUDISIM_DTYPE_BF16 ? 8 : 24, e;
	double ulp, r;

	if (v == 0)
		return 0;
	frexp(fabs((double)v), &e);
	ulp = ldexp(1.0, e - prec);
	r = round_int((double)v / ulp, rm) * ulp;
	return bits((float)r) & (dst == GAUDISIM_DTYPE_BF16 ? 0xffff0000u : 0xffffffffu);
}

static uint32_t lane_cvt(unsigned int src, unsigned int dst, unsigned int rm, uint32_t a)
{
	int64_t lo, hi, v;

	if (dt_float(src)) {
		float x = fl(a);
		double r;

		if (dst == GAUDISIM_DTYPE_FP32)
			return a;
		if (dst == GAUDISIM_DTYPE_BF16)
			return bf16_round(a, rm);
		if (x != x)
			return 0;
		r = round_int((double)x, rm);
		int_range(dst, &lo, &hi);
		v = r < (double)lo ? lo : r > (double)hi ? hi : (int64_t)r;
		return norm(dst, (uint32_t)v);
	}
	v = dt_signed(src) ? (int64_t)(int32_t)norm(src, a) : (int64_t)norm(src, a);
	if (dt_float(dst))
		return int_to_float(v, dst, rm);
	int_range(dst, &lo, &hi);
	v = v < lo ? lo : v > hi ? hi : v;
	return norm(dst, (uint32_t)v);
}

/* ---- reductions ------------------------------------------------------------ */

static uint32_t red2(unsigned int opc, unsigned int dt, uint32_t a, uint32_t b)
{
	if (dt_float(dt)) {
		float x = fl(a), y = fl(b);

		if (opc == GAUDISIM_TPC_OP_RSUM)
			return bits(x + y);
		if (opc == GAUDISIM_TPC_OP_RMAX)
			return bits(x > y ? x : y);
		return bits(x < y ? x : y);
	}
	if (opc == GAUDISIM_TPC_OP_RSUM)
		return a + b;
	if (dt_signed(dt)) {
		if (opc == GAUDISIM_TPC_OP_RMAX)
			return (int32_t)a > (int32_t)b ? a : b;
		return (int32_t)a < (int32_t)b ? a : b;
	}
	if (opc == GAUDISIM_TPC_OP_RMAX)
		return a > b ? a : b;
	return a < b ? a : b;
}

/* Pairwise tree: lane i combines with lane i + w, w = 32, 16, .., 1; the
 * type's rounding or wrapping applies once, to the result. */
static uint32_t reduce(unsigned int opc, unsigned int dt, const vreg *a, vreg *t)
{
	unsigned int w, i;

	*t = *a;
	for (w = L / 2; w; w /= 2)
		for (i = 0; i < w; i++)
			t->u[i] = red2(opc, dt, t->u[i], t->u[i + w]);
	return norm(dt, t->u[0]);
}

/* ---- vector operands and predicated writes -------------------------------- */

static inline const vreg *vop_b(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	uint32_t s;
	int i;

	if (u->bk == GAUDISIM_TPC_BK_REG)
		return &x->v[u->b];
	if (u->bk == GAUDISIM_TPC_BK_IMM)
		return u->immv;
	s = x->s[u->b];
	GSIM_IVDEP
	for (i = 0; i < L; i++)
		x->bcast.u[i] = s;
	return &x->bcast;
}

static inline uint32_t sop_b(const struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	return u->bk == GAUDISIM_TPC_BK_IMM ? u->imm : x->s[u->b];
}

/* Where a vector result goes: straight to d, or to tmp for a later blend. */
static inline vreg *vres(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u, vreg *d)
{
	return u->pvec ? &x->tmp : d;
}

/* Under a vector predicate, copy the enabled lanes of tmp into d. */
static inline void vcommit(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u, vreg *d)
{
	const vreg *m = &x->vp[u->pred];
	uint32_t neg = u->pneg ? ~0u : 0u;
	int i;

	if (!u->pvec)
		return;
	GSIM_IVDEP
	for (i = 0; i < L; i++) {
		uint32_t k = m->u[i] ^ neg;

		d->u[i] = (x->tmp.u[i] & k) | (d->u[i] & ~k);
	}
}

/* ---- fast vector kernels ---------------------------------------------------- */

#define VK(name, member, expr)								\
static void name(vreg *r, const vreg *a, const vreg *b, const vreg *c)			\
{											\
	int i;										\
											\
	(void)a, (void)b, (void)c;							\
	GSIM_IVDEP									\
	for (i = 0; i < L; i++)								\
		r->member[i] = (expr);							\
}

VK(vk_mov, u, b->u[i])
VK(vk_mov_a, u, a->u[i])
VK(vk_add_f, f, a->f[i] + b->f[i])
VK(vk_sub_f, f, a->f[i] - b->f[i])
VK(vk_mul_f, f, a->f[i] * b->f[i])
VK(vk_mac_f, f, c->f[i] + a->f[i] * b->f[i])
VK(vk_min_f, f, a->f[i] < b->f[i] ? a->f[i] : b->f[i])
VK(vk_max_f, f, a->f[i] > b->f[i] ? a->f[i] : b->f[i])
VK(vk_add_u, u, a->u[i] + b->u[i])
VK(vk_sub_u, u, a->u[i] - b->u[i])
VK(vk_mul_u, u, a->u[i] * b->u[i])
VK(vk_mac_u, u, c->u[i] + a->u[i] * b->u[i])
VK(vk_and_u, u, a->u[i] & b->u[i])
VK(vk_or_u, u, a->u[i] | b->u[i])
VK(vk_xor_u, u, a->u[i] ^ b->u[i])
VK(vk_shl_u, u, a->u[i] << (b->u[i] & 31))
VK(vk_shr_u, u, a->u[i] >> (b->u[i] & 31))
VK(vk_shr_s, i, a->i[i] >> (b->i[i] & 31))
VK(vk_min_u, u, a->u[i] < b->u[i] ? a->u[i] : b->u[i])
VK(vk_max_u, u, a->u[i] > b->u[i] ? a->u[i] : b->u[i])
VK(vk_min_s, i, a->i[i] < b->i[i] ? a->i[i] : b->i[i])
VK(vk_max_s, i, a->i[i] > b->i[i] ? a->i[i] : b->i[i])
VK(vk_not_u, u, ~a->u[i])
VK(vk_abs_s, u, a->i[i] < 0 ? 0u - a->u[i] : a->u[i])
VK(vk_neg_u, u, 0u - a->u[i])
/* Float sign operations work on the bits, like lane_float(). */
VK(vk_abs_f, u, a->u[i] & 0x7fffffffu)
VK(vk_neg_f, u, a->u[i] ^ 0x80000000u)
/*
 * The same C library calls lane_float() makes, one loop per function. A
 * lane whose bits equal the lane before it takes that lane's result: a
 * padded row (-inf, 0) or a broadcast sum calls the library once instead
 * of 64 times, with the same results (the functions are deterministic).
 * The input is read before the lane is written: r may be a.
 */
#define VK_LIBM(name, fn)								\
static void name(vreg *r, const vreg *a, const vreg *b, const vreg *c)			\
{											\
	uint32_t prev = a->u[0];							\
	float res = fn(a->f[0]);							\
	int i;										\
											\
	(void)b, (void)c;								\
	r->f[0] = res;									\
	for (i = 1; i < L; i++) {							\
		if (a->u[i] != prev) {							\
			prev = a->u[i];							\
			res = fn(a->f[i]);						\
		}									\
		r->f[i] = res;								\
	}										\
}

VK_LIBM(vk_exp_f, expf)
VK_LIBM(vk_log_f, logf)
VK(vk_rcp_f, f, 1.0f / a->f[i])
VK(vk_rsqrt_f, f, 1.0f / sqrtf(a->f[i]))
VK(vk_sqrt_f, f, sqrtf(a->f[i]))
VK_LIBM(vk_tanh_f, tanhf)

/* Comparisons: every lane ~0 or 0, as lane_cmp() decides it. */
#define VK_CMP(cls, member)								\
VK(vk_eq_##cls, u, a->member[i] == b->member[i] ? ~0u : 0u)				\
VK(vk_ne_##cls, u, a->member[i] != b->member[i] ? ~0u : 0u)				\
VK(vk_lt_##cls, u, a->member[i] < b->member[i] ? ~0u : 0u)				\
VK(vk_le_##cls, u, a->member[i] <= b->member[i] ? ~0u : 0u)				\
VK(vk_gt_##cls, u, a->member[i] > b->member[i] ? ~0u : 0u)				\
VK(vk_ge_##cls, u, a->member[i] >= b->member[i] ? ~0u : 0u)
VK_CMP(f, f)
VK_CMP(s, i)
VK_CMP(u, u)

/*
 * One step of the tree: lane i with lane i + w, for i < w. Each step is
 * its own loop of constant length, which the compiler vectorises; a loop
 * over w around one body would leave the inner trip count unknown.
 */
#define RK_STEP(member, expr, w)							\
	GSIM_IVDEP									\
	for (i = 0; i < (w); i++) {							\
		__typeof__(t->member[0]) x = t->member[i], y = t->member[i + (w)];	\
											\
		t->member[i] = (expr);							\
	}

/*
 * Reductions: the tree of reduce() with the operation chosen once, so the
 * inner loops vectorise. The result is lane 0, before norm().
 */
#define RK(name, member, expr)								\
static uint32_t name(const vreg *a, vreg *t)						\
{											\
	int i;										\
											\
	_Static_assert(L == 64, "the tree below has six steps");			\
	*t = *a;									\
	RK_STEP(member, expr, 32)							\
	RK_STEP(member, expr, 16)							\
	RK_STEP(member, expr, 8)							\
	RK_STEP(member, expr, 4)							\
	RK_STEP(member, expr, 2)							\
	RK_STEP(member, expr, 1)							\
	return t->u[0];									\
}

RK(rk_sum_f, f, x + y)
RK(rk_max_f, f, x > y ? x : y)
RK(rk_min_f, f, x < y ? x : y)
RK(rk_sum_u, u, x + y)
RK(rk_max_u, u, x > y ? x : y)
RK(rk_min_u, u, x < y ? x : y)
RK(rk_max_s, i, x > y ? x : y)
RK(rk_min_s, i, x < y ? x : y)

static int h_vfast(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	vreg *d = &x->v[u->d];

	u->vk(vres(x, u, d), &x->v[u->a], vop_b(x, u), d);
	vcommit(x, u, d);
	return 0;
}

/* BF16 arithmetic: the FP32 kernel, then every lane rounded to BF16. */
static int h_vfast_bf16(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	vreg *d = &x->v[u->d], *r = vres(x, u, d);
	int i;

	u->vk(r, &x->v[u->a], vop_b(x, u), d);
	for (i = 0; i < L; i++)
		r->u[i] = bf16_rne(r->u[i]);
	vcommit(x, u, d);
	return 0;
}

/* ---- other vector operations, lane by lane ---------------------------------- */

static int h_vgen(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const vreg *a = &x->v[u->a], *b = vop_b(x, u);
	vreg *d = &x->v[u->d], *r = vres(x, u, d);
	int i;

	for (i = 0; i < L; i++)
		r->u[i] = lane_alu(u->opc, u->dt, a->u[i], b->u[i], d->u[i]);
	vcommit(x, u, d);
	return 0;
}

static int h_vcmp(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const vreg *a = &x->v[u->a], *b = vop_b(x, u);
	vreg *d = &x->vp[u->d], *r = vres(x, u, d);
	int i;

	for (i = 0; i < L; i++)
		r->u[i] = lane_cmp(u->mod, u->dt, a->u[i], b->u[i]) ? ~0u : 0u;
	vcommit(x, u, d);
	return 0;
}

static int h_vcmp_fast(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	vreg *d = &x->vp[u->d];

	u->vk(vres(x, u, d), &x->v[u->a], vop_b(x, u), d);
	vcommit(x, u, d);
	return 0;
}

static int h_vsel(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const vreg *a = &x->v[u->a], *b = vop_b(x, u);
	const vreg *m = &x->vp[u->mod & GAUDISIM_TPC_SEL_PRED_MASK];
	uint32_t neg = u->mod & GAUDISIM_TPC_SEL_NEG ? ~0u : 0u;
	vreg *d = &x->v[u->d], *r = vres(x, u, d);
	int i;

	GSIM_IVDEP
	for (i = 0; i < L; i++) {
		uint32_t k = m->u[i] ^ neg;

		r->u[i] = (a->u[i] & k) | (b->u[i] & ~k);
	}
	vcommit(x, u, d);
	return 0;
}

static int h_vcvt(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const vreg *a = &x->v[u->a];
	vreg *d = &x->v[u->d], *r = vres(x, u, d);
	unsigned int dst = u->mod & GAUDISIM_TPC_CVT_DT_MASK;
	unsigned int rm = (u->mod >> GAUDISIM_TPC_CVT_RM_SHIFT) & GAUDISIM_TPC_CVT_RM_MASK;
	int i;

	for (i = 0; i < L; i++)
		r->u[i] = lane_cvt(u->dt, dst, rm, a->u[i]);
	vcommit(x, u, d);
	return 0;
}

static int h_vred(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	vreg *d = &x->v[u->d], *r;
	uint32_t v = reduce(u->opc, u->dt, &x->v[u->a], &x->bcast);
	int i;

	r = vres(x, u, d);
	for (i = 0; i < L; i++)
		r->u[i] = v;
	vcommit(x, u, d);
	return 0;
}

static int h_vred_fast(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	vreg *d = &x->v[u->d], *r;
	uint32_t v = norm(u->dt, u->rk(&x->v[u->a], &x->bcast));
	int i;

	r = vres(x, u, d);
	GSIM_IVDEP
	for (i = 0; i < L; i++)
		r->u[i] = v;
	vcommit(x, u, d);
	return 0;
}

static int h_viota(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	vreg *d = &x->v[u->d], *r = vres(x, u, d);
	int i;

	/* The type test outside the lane loop: each loop is vectorised. */
	if (dt_float(u->dt)) {
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = bits((float)i);
	} else {
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = (uint32_t)i;
	}
	vcommit(x, u, d);
	return 0;
}

static int h_vpred(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const vreg *a = &x->vp[u->a], *b = &x->vp[u->b];
	vreg *d = &x->vp[u->d], *r = vres(x, u, d);
	int i;

	/* One loop per operation: a switch inside the lane loop keeps it scalar. */
	switch (u->opc) {
	case GAUDISIM_TPC_OP_PAND:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = a->u[i] & b->u[i];
		break;
	case GAUDISIM_TPC_OP_POR:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = a->u[i] | b->u[i];
		break;
	case GAUDISIM_TPC_OP_PXOR:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = a->u[i] ^ b->u[i];
		break;
	default:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = ~a->u[i];
		break;
	}
	vcommit(x, u, d);
	return 0;
}

/* ---- tensor access ----------------------------------------------------------- */

static inline uint16_t ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void st16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Element at element offset off, in register format. */
static inline uint32_t ld_elem(const struct gsim_tpc_tensor *t, uint64_t off)
{
	const uint8_t *p = t->base + off * t->esize;

	switch (t->dtype) {
	case GAUDISIM_DTYPE_BF16:
		return (uint32_t)ld16(p) << 16;
	case GAUDISIM_DTYPE_INT16:
		return (uint32_t)(int32_t)(int16_t)ld16(p);
	case GAUDISIM_DTYPE_UINT16:
		return ld16(p);
	case GAUDISIM_DTYPE_INT8:
		return (uint32_t)(int32_t)(int8_t)p[0];
	case GAUDISIM_DTYPE_UINT8:
		return p[0];
	default:
		return ld32(p);
	}
}

/* Store a register-format value: BF16 rounds to nearest even, narrow
 * integers keep their low bits. */
static inline void st_elem(const struct gsim_tpc_tensor *t, uint64_t off, uint32_t v)
{
	uint8_t *p = t->base + off * t->esize;

	switch (t->dtype) {
	case GAUDISIM_DTYPE_BF16:
		st16(p, gsim_f32_to_bf16(fl(v)));
		break;
	case GAUDISIM_DTYPE_INT16:
	case GAUDISIM_DTYPE_UINT16:
		st16(p, (uint16_t)v);
		break;
	case GAUDISIM_DTYPE_INT8:
	case GAUDISIM_DTYPE_UINT8:
		p[0] = (uint8_t)v;
		break;
	default:
		st32(p, v);
		break;
	}
}

/* A 256-byte tile to a 16-byte aligned p, bypassing the caches. */
static bool st_stream(uint8_t *p, const vreg *v)
{
#if defined(__SSE2__)
	int k;

	if ((uintptr_t)p & 15)
		return false;
	for (k = 0; k < (int)(sizeof(v->u) / 16); k++)
		_mm_stream_si128((__m128i *)p + k, _mm_load_si128((const __m128i *)v->u + k));
	return true;
#else
	(void)p;
	(void)v;
	return false;
#endif
}

/*
 * 256 contiguous bytes into / out of a register, inline (a call to the C
 * library's memcpy costs as much as the copy). Loads ask for the next
 * tile and the tile eight tiles ahead: kernels walk rows tile after tile,
 * and the hints keep the memory busy while the bundle computes (they never
 * fault). The near one matters where a kernel jumps to a row of its own
 * every few tiles (a batch gather's rows of 3 KiB spread over HBM), which
 * the far one alone would leave to one miss after another.
 */
#define GSIM_TPC_PREFETCH_AHEAD	2048

static inline void tile_in(vreg *r, const uint8_t *p)
{
#if defined(__SSE2__)
	int k;

	for (k = 0; k < (int)sizeof(r->u); k += 64) {
		__builtin_prefetch(p + sizeof(r->u) + k);
		__builtin_prefetch(p + GSIM_TPC_PREFETCH_AHEAD + k);
	}

#if defined(__AVX512F__)
	for (k = 0; k < (int)(sizeof(r->u) / 64); k++)
		_mm512_store_si512((__m512i *)r->u + k, _mm512_loadu_si512((const __m512i *)p + k));
#elif defined(__AVX2__)
	for (k = 0; k < (int)(sizeof(r->u) / 32); k++)
		_mm256_store_si256((__m256i *)r->u + k,
				   _mm256_loadu_si256((const __m256i *)p + k));
#else
	for (k = 0; k < (int)(sizeof(r->u) / 16); k++)
		_mm_store_si128((__m128i *)r->u + k, _mm_loadu_si128((const __m128i *)p + k));
#endif
#else
	memcpy(r->u, p, sizeof(r->u));
#endif
}

static inline void tile_out(uint8_t *p, const vreg *v)
{
#if defined(__AVX512F__)
	int k;

	for (k = 0; k < (int)(sizeof(v->u) / 64); k++)
		_mm512_storeu_si512((__m512i *)p + k, _mm512_load_si512((const __m512i *)v->u + k));
#elif defined(__AVX2__)
	int k;

	for (k = 0; k < (int)(sizeof(v->u) / 32); k++)
		_mm256_storeu_si256((__m256i *)p + k, _mm256_load_si256((const __m256i *)v->u + k));
#elif defined(__SSE2__)
	int k;

	for (k = 0; k < (int)(sizeof(v->u) / 16); k++)
		_mm_storeu_si128((__m128i *)p + k, _mm_load_si128((const __m128i *)v->u + k));
#else
	memcpy(p, v->u, sizeof(v->u));
#endif
}

/* Make streamed stores visible before anyone is told the launch is done. */
static void st_stream_fence(void)
{
#if defined(__SSE2__)
	_mm_sfence();
#endif
}

/* 64 contiguous elements from element offset off. */
static void ld_row(const struct gsim_tpc_tensor *t, uint64_t off, vreg *r)
{
	const uint8_t *p = t->base + off * t->esize;
	int i;

	switch (t->dtype) {
	case GAUDISIM_DTYPE_BF16:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = (uint32_t)ld16(p + 2 * i) << 16;
		break;
	case GAUDISIM_DTYPE_INT16:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = (uint32_t)(int32_t)(int16_t)ld16(p + 2 * i);
		break;
	case GAUDISIM_DTYPE_UINT16:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = ld16(p + 2 * i);
		break;
	case GAUDISIM_DTYPE_INT8:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = (uint32_t)(int32_t)(int8_t)p[i];
		break;
	case GAUDISIM_DTYPE_UINT8:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = p[i];
		break;
	default:
		tile_in(r, p);
		break;
	}
}

static void st_row(const struct gsim_tpc_tensor *t, uint64_t off, const vreg *v)
{
	uint8_t *p = t->base + off * t->esize;
	int i;

	if (t->stream && t->esize == 4 && st_stream(p, v))
		return;
	switch (t->dtype) {
	case GAUDISIM_DTYPE_BF16:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			st16(p + 2 * i, gsim_f32_to_bf16(fl(v->u[i])));
		break;
	case GAUDISIM_DTYPE_INT16:
	case GAUDISIM_DTYPE_UINT16:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			st16(p + 2 * i, (uint16_t)v->u[i]);
		break;
	case GAUDISIM_DTYPE_INT8:
	case GAUDISIM_DTYPE_UINT8:
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			p[i] = (uint8_t)v->u[i];
		break;
	default:
		tile_out(p, v);
		break;
	}
}

/*
 * The lanes of a 64-element tile at coordinates c that lie inside the
 * tensor: [*lo, *hi), and the element offset of dimensions 1..4 in *rest.
 * false when no lane does.
 */
static inline bool tile(const struct gsim_tpc_tensor *t, const int32_t *c, int *lo, int *hi,
			uint64_t *rest)
{
	uint64_t off = 0;
	int64_t c0 = c[0], l, h;
	int d;

	for (d = 1; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		if ((uint32_t)c[d] >= t->size[d])
			return false;
		off += (uint64_t)(uint32_t)c[d] * t->stride[d];
	}
	l = c0 < 0 ? -c0 : 0;
	h = (int64_t)t->size[0] - c0;
	if (h > L)
		h = L;
	if (l >= h)
		return false;
	*lo = (int)l;
	*hi = (int)h;
	*rest = off;
	return true;
}

/* Element offset of one element; false when it is outside the tensor. */
static inline bool elem(const struct gsim_tpc_tensor *t, const int32_t *c, uint64_t *off)
{
	uint64_t o = 0;
	int d;

	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		if ((uint32_t)c[d] >= t->size[d])
			return false;
		o += (uint64_t)(uint32_t)c[d] * t->stride[d];
	}
	*off = o;
	return true;
}

/*
 * Lanes [lo, hi) of a tile from element offset off (stride 1, 4 bytes),
 * pad in the others. With AVX2 or AVX-512 as masked loads: lanes outside
 * [lo, hi) are neither read nor faulted on, and the register is written in
 * full-width stores, so the next full-width read of it (the operation
 * after the load) is forwarded from them instead of stalling on a narrow
 * copy over a wide fill.
 */
static inline void ld_part32(const struct gsim_tpc_tensor *t, uint64_t off, int lo, int hi,
			     uint32_t pad, vreg *r)
{
	/* Lane 0's address; never dereferenced where it lies outside the tensor. */
	const uint8_t *p0 = (const uint8_t *)((uintptr_t)t->base + (off - (uint64_t)lo) * 4);
#if defined(__AVX512F__)
	const __m512i pv = _mm512_set1_epi32((int)pad);
	/* 0 <= lo < hi <= 64: one bit per lane to read. */
	const uint64_t m = (hi == L ? ~0ull : (1ull << hi) - 1) & ~((1ull << lo) - 1);
	int k;

	for (k = 0; k < L / 16; k++)
		_mm512_store_si512((__m512i *)r->u + k,
				   _mm512_mask_loadu_epi32(pv, (__mmask16)(m >> (16 * k)),
							   p0 + 64 * k));
#elif defined(__AVX2__)
	const __m256i pv = _mm256_set1_epi32((int)pad), lov = _mm256_set1_epi32(lo - 1),
		      hiv = _mm256_set1_epi32(hi);
	__m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	int k;

	for (k = 0; k < L / 8; k++) {
		__m256i m = _mm256_and_si256(_mm256_cmpgt_epi32(idx, lov),
					     _mm256_cmpgt_epi32(hiv, idx));

		_mm256_store_si256((__m256i *)r->u + k,
				   _mm256_blendv_epi8(pv, _mm256_maskload_epi32(
						      (const int *)(p0 + 32 * k), m), m));
		idx = _mm256_add_epi32(idx, _mm256_set1_epi32(8));
	}
#else
	int i;

	GSIM_IVDEP
	for (i = 0; i < L; i++)
		r->u[i] = pad;
	memcpy(r->u + lo, p0 + (size_t)lo * 4, (size_t)(hi - lo) * 4);
#endif
}

/*
 * Lanes [lo, hi) of a 4-byte tile whose lanes lie stride[0] elements apart
 * (a pooling window's column, a transposed view), from element offset off:
 * the element size is known, so no per-lane switch on the type.
 */
static inline void ld_strided32(const struct gsim_tpc_tensor *t, uint64_t off, int lo, int hi,
				vreg *r)
{
	const uint8_t *p = t->base + off * 4;
	const uint64_t step = t->stride[0] * 4;
	int i;

	for (i = lo; i < hi; i++, p += step)
		r->u[i] = ld32(p);
}

/* The same for a store: lanes [lo, hi) of v to element offset off on. */
static inline void st_strided32(const struct gsim_tpc_tensor *t, uint64_t off, int lo, int hi,
				const vreg *v)
{
	uint8_t *p = t->base + off * 4;
	const uint64_t step = t->stride[0] * 4;
	int i;

	for (i = lo; i < hi; i++, p += step)
		st32(p, v->u[i]);
}

/*
 * The tile of t at coordinates c into r: lanes outside the tensor read
 * t->pad. A partial tile fills all 64 lanes first (ld_part32() does its
 * own): a loop of fixed length is vectorised, one from hi to 64 is not.
 * Inlined into both of its users, the load slot and the loop handlers.
 */
static inline __attribute__((always_inline)) void
tile_load(const struct gsim_tpc_tensor *t, const int32_t *c, vreg *r)
{
	/* A local copy: the stores to r could alias t->pad. */
	const uint32_t pad = t->pad;
	uint64_t rest;
	int lo, hi, i;

	if (!tile(t, c, &lo, &hi, &rest)) {
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = pad;
	} else if (t->stride[0] == 1 && lo == 0 && hi == L) {
		ld_row(t, rest + (uint32_t)c[0], r);
	} else if (t->stride[0] == 1 && t->esize == 4) {
		ld_part32(t, rest + (uint64_t)((int64_t)c[0] + lo), lo, hi, pad, r);
	} else {
		GSIM_IVDEP
		for (i = 0; i < L; i++)
			r->u[i] = pad;
		if (t->esize == 4)
			ld_strided32(t, rest + (uint64_t)((int64_t)c[0] + lo) * t->stride[0], lo, hi, r);
		else
			for (i = lo; i < hi; i++)
				r->u[i] = ld_elem(t, rest + (uint64_t)((int64_t)c[0] + i) *
							    t->stride[0]);
	}
}

static int h_ld(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	vreg *d = &x->v[u->d];

	tile_load(&x->job->t[u->a], x->irf[u->b], vres(x, u, d));
	vcommit(x, u, d);
	return 0;
}

/* The portable load: every lane on its own, the reference of h_ld(). */
static int h_ld_lanes(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const struct gsim_tpc_tensor *t = &x->job->t[u->a];
	const int32_t *c = x->irf[u->b];
	vreg *d = &x->v[u->d], *r = vres(x, u, d);
	uint64_t rest;
	int lo, hi, i;

	for (i = 0; i < L; i++)
		r->u[i] = t->pad;
	if (tile(t, c, &lo, &hi, &rest))
		for (i = lo; i < hi; i++)
			r->u[i] = ld_elem(t, rest + (uint64_t)((int64_t)c[0] + i) * t->stride[0]);
	vcommit(x, u, d);
	return 0;
}

static int h_st(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const struct gsim_tpc_tensor *t = &x->job->t[u->d];
	const int32_t *c = x->irf[u->a];
	const vreg *v = &x->v[u->b];
	const vreg *m = &x->vp[u->pred];
	uint32_t neg = u->pneg ? ~0u : 0u;
	uint64_t rest;
	int lo, hi, i;

	if (!tile(t, c, &lo, &hi, &rest))
		return 0;
	if (!u->pvec && t->stride[0] == 1) {
		if (lo == 0 && hi == L)
			st_row(t, rest + (uint32_t)c[0], v);
		else if (t->esize == 4)
			memcpy(t->base + (rest + (uint64_t)((int64_t)c[0] + lo)) * 4, v->u + lo,
			       (size_t)(hi - lo) * 4);
		else
			for (i = lo; i < hi; i++)
				st_elem(t, rest + (uint64_t)((int64_t)c[0] + i), v->u[i]);
		return 0;
	}
	if (!u->pvec && t->esize == 4) {
		st_strided32(t, rest + (uint64_t)((int64_t)c[0] + lo) * t->stride[0], lo, hi, v);
		return 0;
	}
	for (i = lo; i < hi; i++)
		if (!u->pvec || (m->u[i] ^ neg))
			st_elem(t, rest + (uint64_t)((int64_t)c[0] + i) * t->stride[0], v->u[i]);
	return 0;
}

/* The portable store: every lane on its own, the reference of h_st(). */
static int h_st_lanes(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const struct gsim_tpc_tensor *t = &x->job->t[u->d];
	const int32_t *c = x->irf[u->a];
	const vreg *v = &x->v[u->b];
	const vreg *m = &x->vp[u->pred];
	uint32_t neg = u->pneg ? ~0u : 0u;
	uint64_t rest;
	int lo, hi, i;

	if (!tile(t, c, &lo, &hi, &rest))
		return 0;
	for (i = lo; i < hi; i++)
		if (!u->pvec || (m->u[i] ^ neg))
			st_elem(t, rest + (uint64_t)((int64_t)c[0] + i) * t->stride[0], v->u[i]);
	return 0;
}

static int h_lds(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const struct gsim_tpc_tensor *t = &x->job->t[u->a];
	uint64_t off;

	x->s[u->d] = elem(t, x->irf[u->b], &off) ? ld_elem(t, off) : t->pad;
	return 0;
}

static int h_sts(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const struct gsim_tpc_tensor *t = &x->job->t[u->d];
	uint64_t off;

	if (elem(t, x->irf[u->a], &off))
		st_elem(t, off, x->s[u->b]);
	return 0;
}

/* ---- scalar unit ---------------------------------------------------------------- */

static int h_halt(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	(void)x;
	(void)u;
	return GSIM_TPC_HALTED;
}

static int h_salu(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	x->s[u->d] = lane_alu(u->opc, u->dt, x->s[u->a], sop_b(x, u), x->s[u->d]);
	return 0;
}

static int h_scmp(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	x->sp[u->d] = lane_cmp(u->mod, u->dt, x->s[u->a], sop_b(x, u));
	return 0;
}

static int h_ssel(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	bool p = x->sp[u->mod & GAUDISIM_TPC_SEL_PRED_MASK] ^ !!(u->mod & GAUDISIM_TPC_SEL_NEG);

	x->s[u->d] = p ? x->s[u->a] : sop_b(x, u);
	return 0;
}

static int h_scvt(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	x->s[u->d] = lane_cvt(u->dt, u->mod & GAUDISIM_TPC_CVT_DT_MASK,
			      (u->mod >> GAUDISIM_TPC_CVT_RM_SHIFT) & GAUDISIM_TPC_CVT_RM_MASK,
			      x->s[u->a]);
	return 0;
}

static int h_spred(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	uint8_t a = x->sp[u->a], b = x->sp[u->b];

	switch (u->opc) {
	case GAUDISIM_TPC_OP_PAND:
		x->sp[u->d] = a & b;
		break;
	case GAUDISIM_TPC_OP_POR:
		x->sp[u->d] = a | b;
		break;
	case GAUDISIM_TPC_OP_PXOR:
		x->sp[u->d] = a ^ b;
		break;
	default:
		x->sp[u->d] = !a;
		break;
	}
	return 0;
}

static int h_jmp(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	x->next_pc = u->mod;
	return 0;
}

static int h_loop(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	x->s[u->d] += 1;
	if ((int32_t)x->s[u->d] < (int32_t)sop_b(x, u))
		x->next_pc = u->mod;
	return 0;
}

/* One iloop step, for the slot and the loop handlers: false when the loop ends. */
static inline bool iloop_step(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *il)
{
	int32_t *c = &x->irf[il->d][il->a];

	*c = (int32_t)((uint32_t)*c + il->imm);
	return (int32_t)il->imm >= 0 ? *c < (int32_t)x->s[il->b] : *c > (int32_t)x->s[il->b];
}

static int h_iloop(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	if (iloop_step(x, u))
		x->next_pc = u->mod;
	return 0;
}

static int h_iop(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	int32_t r[GAUDISIM_TPC_NUM_DIMS];
	uint32_t b = sop_b(x, u);
	int d;

	memcpy(r, x->irf[u->opc == GAUDISIM_TPC_OP_ISET ? u->d : u->a], sizeof(r));
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		if (!(u->mod & (1u << d)))
			continue;
		if (u->opc == GAUDISIM_TPC_OP_ISET)
			r[d] = (int32_t)b;
		else if (u->opc == GAUDISIM_TPC_OP_IADD)
			r[d] = (int32_t)((uint32_t)r[d] + b);
		else
			r[d] = (int32_t)((uint32_t)r[d] * b);
	}
	memcpy(x->irf[u->d], r, sizeof(r));
	return 0;
}

/* ISET, IADD, IMUL with the operation chosen at bind time. */
static int h_iset(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	int32_t *r = x->irf[u->d];
	uint32_t b = sop_b(x, u);
	int d;

	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		if (u->mod & (1u << d))
			r[d] = (int32_t)b;
	return 0;
}

static int h_iadd(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const int32_t *a = x->irf[u->a];
	int32_t *r = x->irf[u->d];
	uint32_t b = sop_b(x, u);
	int d;

	/* Element d of r depends on element d of a only: r == a is fine. */
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		r[d] = (int32_t)((uint32_t)a[d] + (u->mod & (1u << d) ? b : 0u));
	return 0;
}

static int h_imul(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const int32_t *a = x->irf[u->a];
	int32_t *r = x->irf[u->d];
	uint32_t b = sop_b(x, u);
	int d;

	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		r[d] = (int32_t)((uint32_t)a[d] * (u->mod & (1u << d) ? b : 1u));
	return 0;
}

static int h_iget(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	x->s[u->d] = (uint32_t)x->irf[u->a][u->mod];
	return 0;
}

static int h_rd(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u)
{
	const struct gsim_tpc_job *j = x->job;
	unsigned int spec = u->mod, d = spec & 7, t = (spec >> 4) & 7;
	uint32_t v;

	if (spec >= 0x100)
		v = spec & 8 ? j->tstride[t][d] : j->tsize[t][d];
	else if (spec == GAUDISIM_TPC_SPEC_TPCID)
		v = j->tpc;
	else if (spec >= GAUDISIM_TPC_SPEC_PEND(0))
		v = j->pend[d];
	else if (spec >= GAUDISIM_TPC_SPEC_PSTART(0))
		v = j->pstart[d];
	else
		v = j->isize[d];
	x->s[u->d] = v;
	return 0;
}

/* ---- binding ---------------------------------------------------------------------- */

/* Float-class operations (FP32 and BF16: BF16 results are rounded after). */
static gsim_tpc_vk fast_float(unsigned int opc)
{
	switch (opc) {
	case GAUDISIM_TPC_OP_ADD:
		return vk_add_f;
	case GAUDISIM_TPC_OP_SUB:
		return vk_sub_f;
	case GAUDISIM_TPC_OP_MUL:
		return vk_mul_f;
	case GAUDISIM_TPC_OP_MAC:
		return vk_mac_f;
	case GAUDISIM_TPC_OP_MIN:
		return vk_min_f;
	case GAUDISIM_TPC_OP_MAX:
		return vk_max_f;
	case GAUDISIM_TPC_OP_ABS:
		return vk_abs_f;
	case GAUDISIM_TPC_OP_NEG:
		return vk_neg_f;
	case GAUDISIM_TPC_OP_EXP:
		return vk_exp_f;
	case GAUDISIM_TPC_OP_LOG:
		return vk_log_f;
	case GAUDISIM_TPC_OP_RCP:
		return vk_rcp_f;
	case GAUDISIM_TPC_OP_RSQRT:
		return vk_rsqrt_f;
	case GAUDISIM_TPC_OP_SQRT:
		return vk_sqrt_f;
	case GAUDISIM_TPC_OP_TANH:
		return vk_tanh_f;
	}
	return NULL;
}

/* Bit operations, whose results need no rounding or wrapping. */
static gsim_tpc_vk fast_bits(unsigned int opc)
{
	switch (opc) {
	case GAUDISIM_TPC_OP_AND:
		return vk_and_u;
	case GAUDISIM_TPC_OP_OR:
		return vk_or_u;
	case GAUDISIM_TPC_OP_XOR:
		return vk_xor_u;
	case GAUDISIM_TPC_OP_NOT:
		return vk_not_u;
	}
	return NULL;
}

static gsim_tpc_vk fast_int32(unsigned int opc, bool sgn)
{
	switch (opc) {
	case GAUDISIM_TPC_OP_ADD:
		return vk_add_u;
	case GAUDISIM_TPC_OP_SUB:
		return vk_sub_u;
	case GAUDISIM_TPC_OP_MUL:
		return vk_mul_u;
	case GAUDISIM_TPC_OP_MAC:
		return vk_mac_u;
	case GAUDISIM_TPC_OP_SHL:
		return vk_shl_u;
	case GAUDISIM_TPC_OP_SHR:
		return sgn ? vk_shr_s : vk_shr_u;
	case GAUDISIM_TPC_OP_MIN:
		return sgn ? vk_min_s : vk_min_u;
	case GAUDISIM_TPC_OP_MAX:
		return sgn ? vk_max_s : vk_max_u;
	case GAUDISIM_TPC_OP_ABS:
		return sgn ? vk_abs_s : vk_mov_a;
	case GAUDISIM_TPC_OP_NEG:
		return vk_neg_u;
	}
	return fast_bits(opc);
}

static gsim_tpc_vk fast_kernel(unsigned int opc, unsigned int dt)
{
	if (opc == GAUDISIM_TPC_OP_MOV)
		return vk_mov;
	if (dt_float(dt)) {
		gsim_tpc_vk k = fast_float(opc);

		/* Bit operations on BF16 keep the bits as they are. */
		return k || dt == GAUDISIM_DTYPE_BF16 ? k : fast_bits(opc);
	}
	if (dt != GAUDISIM_DTYPE_INT32 && dt != GAUDISIM_DTYPE_UINT32)
		return NULL;
	return fast_int32(opc, dt == GAUDISIM_DTYPE_INT32);
}

static gsim_tpc_vk fast_cmp(unsigned int cond, unsigned int dt)
{
	static const gsim_tpc_vk by_class[3][GAUDISIM_TPC_NUM_CONDS] = {
		{ vk_eq_f, vk_ne_f, vk_lt_f, vk_le_f, vk_gt_f, vk_ge_f },
		{ vk_eq_s, vk_ne_s, vk_lt_s, vk_le_s, vk_gt_s, vk_ge_s },
		{ vk_eq_u, vk_ne_u, vk_lt_u, vk_le_u, vk_gt_u, vk_ge_u },
	};

	if (cond >= GAUDISIM_TPC_NUM_CONDS)
		return NULL;
	return by_class[dt_float(dt) ? 0 : dt_signed(dt) ? 1 : 2][cond];
}

static gsim_tpc_rk fast_reduce(unsigned int opc, unsigned int dt)
{
	bool sum = opc == GAUDISIM_TPC_OP_RSUM, max = opc == GAUDISIM_TPC_OP_RMAX;

	if (dt_float(dt))
		return sum ? rk_sum_f : max ? rk_max_f : rk_min_f;
	if (sum)
		return rk_sum_u;
	if (dt_signed(dt))
		return max ? rk_max_s : rk_min_s;
	return max ? rk_max_u : rk_min_u;
}

static gsim_tpc_fn bind_vpu(struct gsim_tpc_uop *u, bool portable)
{
	u->vk = portable ? NULL : fast_kernel(u->opc, u->dt);
	if (u->vk)
		return u->dt == GAUDISIM_DTYPE_BF16 && u->opc != GAUDISIM_TPC_OP_MOV ?
		       h_vfast_bf16 : h_vfast;
	switch (u->opc) {
	case GAUDISIM_TPC_OP_CMP:
		u->vk = portable ? NULL : fast_cmp(u->mod, u->dt);
		return u->vk ? h_vcmp_fast : h_vcmp;
	case GAUDISIM_TPC_OP_SEL:
		return h_vsel;
	case GAUDISIM_TPC_OP_CVT:
		return h_vcvt;
	case GAUDISIM_TPC_OP_RSUM:
	case GAUDISIM_TPC_OP_RMAX:
	case GAUDISIM_TPC_OP_RMIN:
		u->rk = portable ? NULL : fast_reduce(u->opc, u->dt);
		return u->rk ? h_vred_fast : h_vred;
	case GAUDISIM_TPC_OP_IOTA:
		return h_viota;
	case GAUDISIM_TPC_OP_PAND:
	case GAUDISIM_TPC_OP_POR:
	case GAUDISIM_TPC_OP_PXOR:
	case GAUDISIM_TPC_OP_PNOT:
		return h_vpred;
	default:
		return h_vgen;
	}
}

static gsim_tpc_fn bind_spu(const struct gsim_tpc_uop *u, bool portable)
{
	switch (u->opc) {
	case GAUDISIM_TPC_OP_HALT:
		return h_halt;
	case GAUDISIM_TPC_OP_CMP:
		return h_scmp;
	case GAUDISIM_TPC_OP_SEL:
		return h_ssel;
	case GAUDISIM_TPC_OP_CVT:
		return h_scvt;
	case GAUDISIM_TPC_OP_PAND:
	case GAUDISIM_TPC_OP_POR:
	case GAUDISIM_TPC_OP_PXOR:
	case GAUDISIM_TPC_OP_PNOT:
		return h_spred;
	case GAUDISIM_TPC_OP_JMP:
		return h_jmp;
	case GAUDISIM_TPC_OP_LOOP:
		return h_loop;
	case GAUDISIM_TPC_OP_ILOOP:
		return h_iloop;
	case GAUDISIM_TPC_OP_ISET:
		return portable ? h_iop : h_iset;
	case GAUDISIM_TPC_OP_IADD:
		return portable ? h_iop : h_iadd;
	case GAUDISIM_TPC_OP_IMUL:
		return portable ? h_iop : h_imul;
	case GAUDISIM_TPC_OP_IGET:
		return h_iget;
	case GAUDISIM_TPC_OP_RD:
		return h_rd;
	default:
		return h_salu;
	}
}

static void tpc_bind(struct gsim_tpc_uop *u, bool portable)
{
	u->vk = NULL;
	u->rk = NULL;
	switch (u->slot) {
	case GAUDISIM_TPC_SLOT_LOAD:
		if (u->opc != GAUDISIM_TPC_LD_TNSR)
			u->fn = h_lds;
		else
			u->fn = portable ? h_ld_lanes : h_ld;
		break;
	case GAUDISIM_TPC_SLOT_STORE:
		if (u->opc != GAUDISIM_TPC_ST_TNSR)
			u->fn = h_sts;
		else
			u->fn = portable ? h_st_lanes : h_st;
		break;
	case GAUDISIM_TPC_SLOT_VPU:
		u->fn = bind_vpu(u, portable);
		break;
	default:
		u->fn = bind_spu(u, portable);
		break;
	}
}

/* ---- fused bundles ------------------------------------------------------------------ */

/* A whole contiguous tile of a 4-byte tensor at c: its element offset. */
static inline bool full_tile(const struct gsim_tpc_tensor *t, const int32_t *c, uint64_t *off)
{
	uint64_t o = 0;
	int d;

	if (t->stride[0] != 1 || c[0] < 0 || (uint64_t)(uint32_t)c[0] + L > t->size[0])
		return false;
	for (d = 1; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		if ((uint32_t)c[d] >= t->size[d])
			return false;
		o += (uint64_t)(uint32_t)c[d] * t->stride[d];
	}
	*off = o + (uint32_t)c[0];
	return true;
}

/*
 * "ld Vx, Ta, Ik ; <fast op> Vx, .. ; st Tb, Ik, Vx [; spu]" without
 * predicates, on 4-byte types: the shape of element-wise kernels; without
 * the op ("ld ; st"), a copy (a gather's rows). Whole tiles go straight
 * through; anything else takes the slot handlers. The registers end up
 * exactly as the separate slots leave them.
 */
static inline __attribute__((always_inline)) void
b_ld_op_st_body(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b, const bool with_op)
{
	const struct gsim_tpc_uop *ld = &b->u[0], *op = &b->u[1], *st = &b->u[with_op ? 2 : 1];
	const struct gsim_tpc_tensor *ts = &x->job->t[ld->a], *td = &x->job->t[st->d];
	const int32_t *c = x->irf[ld->b];
	uint64_t so, dso;

	if (full_tile(ts, c, &so) && full_tile(td, c, &dso)) {
		vreg *v = &x->v[ld->d];
		uint8_t *dst = td->base + dso * 4;

		tile_in(v, ts->base + so * 4);
		if (with_op)
			op->vk(v, &x->v[op->a], vop_b(x, op), v);
		if (!td->stream || !st_stream(dst, v))
			tile_out(dst, v);
	} else {
		ld->fn(x, ld);
		if (with_op)
			op->fn(x, op);
		st->fn(x, st);
	}
}

/* The bundle's SPU slot after its fused part (n_fused uops), if it has one. */
static inline int b_spu_tail(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b,
			     unsigned int n_fused)
{
	const struct gsim_tpc_uop *u = &b->u[n_fused];

	if (b->n > n_fused && (x->sp[u->pred] ^ u->pneg))
		return u->fn(x, u);
	return 0;
}

static int b_ld_op_st(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b)
{
	b_ld_op_st_body(x, b, true);
	return b_spu_tail(x, b, 3);
}

static int b_ld_st(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b)
{
	b_ld_op_st_body(x, b, false);
	return b_spu_tail(x, b, 2);
}

/* "ld Vx, Ta, Ik ; <fast op> Vy, .." without predicates, on 4-byte types. */
static inline void b_ld_op_body(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b)
{
	const struct gsim_tpc_uop *ld = &b->u[0], *op = &b->u[1];
	vreg *d = &x->v[op->d];

	tile_load(&x->job->t[ld->a], x->irf[ld->b], &x->v[ld->d]);
	op->vk(d, &x->v[op->a], vop_b(x, op), d);
}

/* The shapes of a bundle that loops to itself. */
enum loop_shape { LOOP_LD_OP_ST, LOOP_LD_OP, LOOP_LD_ST };

/*
 * A bundle that ends in "iloop .., self", run after run without going back
 * to the run loop, which costs as much as a tile's arithmetic: up to n
 * runs, then next_pc where the last one went.
 */
static inline __attribute__((always_inline)) uint64_t
loop_self(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b, uint64_t n,
	  const enum loop_shape shape)
{
	const struct gsim_tpc_uop *il = &b->u[b->n - 1];
	uint64_t k = 0;
	bool more;

	do {	/* n >= 1 */
		if (shape == LOOP_LD_OP)
			b_ld_op_body(x, b);
		else
			b_ld_op_st_body(x, b, shape == LOOP_LD_OP_ST);
		k++;
		more = iloop_step(x, il);
	} while (more && k < n);
	x->next_pc = more ? il->mod : il->mod + 1u;
	return k;
}

/* "ld Vx, Ta, Ik ; <fast op> ; st Tb, Ik, Vx ; iloop .., self": relu, scale, square. */
static uint64_t l_ld_op_st(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b, uint64_t n)
{
	return loop_self(x, b, n, LOOP_LD_OP_ST);
}

/*
 * "ld Vx, Ta, Ik ; <fast op> Vy, .. ; iloop .., self": an accumulation (a
 * bias gradient's rows, a row's maximum).
 */
static uint64_t l_ld_op(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b, uint64_t n)
{
	return loop_self(x, b, n, LOOP_LD_OP);
}

/* "ld Vx, Ta, Ik ; st Tb, Ik, Vx ; iloop .., self": a row copied (a gather). */
static uint64_t l_ld_st(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b, uint64_t n)
{
	return loop_self(x, b, n, LOOP_LD_ST);
}

static bool plain(const struct gsim_tpc_uop *u)
{
	return !u->pred && !u->pneg && !u->pvec;
}

static bool four_bytes(unsigned int dt)
{
	return gaudisim_dtype_size(dt) == 4;
}

/* The last uop is a plain iloop back to the bundle itself (at pc). */
static bool loops_to_self(const struct gsim_tpc_dbundle *b, uint32_t pc)
{
	const struct gsim_tpc_uop *il = &b->u[b->n - 1];

	return il->slot == GAUDISIM_TPC_SLOT_SPU && il->opc == GAUDISIM_TPC_OP_ILOOP &&
	       plain(il) && il->mod == pc;
}

/* A plain 4-byte store of the loaded register at the load's coordinates. */
static bool stores_loaded(const struct gsim_tpc_uop *st, const struct gsim_tpc_uop *ld)
{
	return st->slot == GAUDISIM_TPC_SLOT_STORE && st->opc == GAUDISIM_TPC_ST_TNSR &&
	       plain(st) && four_bytes(st->dt) && st->b == ld->d && st->a == ld->b;
}

static void tpc_fuse(struct gsim_tpc_dbundle *b, uint32_t pc, bool portable)
{
	const struct gsim_tpc_uop *ld = &b->u[0], *op = &b->u[1], *st = &b->u[2];

	b->fused = NULL;
	b->loop = NULL;
	if (portable || b->n < 2)
		return;
	if (ld->slot != GAUDISIM_TPC_SLOT_LOAD || ld->opc != GAUDISIM_TPC_LD_TNSR ||
	    !plain(ld) || !four_bytes(ld->dt))
		return;
	/* A copy: the loaded register stored at the same coordinates. */
	if (stores_loaded(op, ld)) {
		b->fused = b_ld_st;
		if (b->n == 3 && loops_to_self(b, pc))
			b->loop = l_ld_st;
		return;
	}
	if (b->n < 3 || op->slot != GAUDISIM_TPC_SLOT_VPU || op->fn != h_vfast || !plain(op))
		return;
	if (b->n == 3 && loops_to_self(b, pc)) {
		b->loop = l_ld_op;
		return;
	}
	/* One register flows load -> op -> store, at one set of coordinates. */
	if (op->d != ld->d || !stores_loaded(st, ld))
		return;
	b->fused = b_ld_op_st;
	if (b->n == 4 && loops_to_self(b, pc))
		b->loop = l_ld_op_st;
}

/* ---- the run loop ------------------------------------------------------------------ */

static void tpc_begin(struct gsim_tpc_exec *x)
{
	memset(x->v, 0, sizeof(x->v));
	memset(x->vp, 0, sizeof(x->vp));
	memset(x->vp[0].u, 0xff, sizeof(x->vp[0].u));
	memset(&x->tmp, 0, sizeof(x->tmp));
	memset(&x->bcast, 0, sizeof(x->bcast));
}

/* Scalar state at the start of every member; V and VP registers carry over. */
static void member_begin(struct gsim_tpc_exec *x)
{
	const struct gsim_tpc_job *j = x->job;
	int d;

	memcpy(x->s, j->args, sizeof(j->args));
	memset(x->s + GAUDISIM_TPC_NUM_ARGS, 0,
	       sizeof(x->s) - GAUDISIM_TPC_NUM_ARGS * sizeof(x->s[0]));
	memset(x->irf, 0, sizeof(x->irf));
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		x->irf[0][d] = (int32_t)j->coord[d];
	memset(x->sp, 0, sizeof(x->sp));
	x->sp[0] = 1;
}

/* Next member in the part, dimension 0 fastest. */
static void member_next(struct gsim_tpc_job *j)
{
	int d;

	j->members++;
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		if (++j->coord[d] < j->pend[d])
			return;
		j->coord[d] = j->pstart[d];
	}
	j->done = true;
}

static bool fail(struct gsim_tpc_job *j, uint8_t err, uint32_t pc, uint32_t info)
{
	j->err = err;
	j->err_pc = pc;
	j->err_info = info;
	j->done = true;
	return false;
}

static bool exec_run(struct gsim_tpc_exec *x, uint64_t max_bundles);

static bool tpc_run(struct gsim_tpc_exec *x, uint64_t max_bundles)
{
	bool more = exec_run(x, max_bundles);

	st_stream_fence();
	return more;
}

static bool exec_run(struct gsim_tpc_exec *x, uint64_t max_bundles)
{
	struct gsim_tpc_job *j = x->job;
	const struct gsim_tpc_dbundle *code = j->k->b;
	const uint32_t nb = j->k->nbundles;

	while (!j->done) {
		/* Bundles this stretch may run: counters stay in registers. */
		uint64_t quota = max_bundles < j->budget ? max_bundles : j->budget, n = quota;
		uint32_t pc, last = 0;
		int halted = 0;
		uint8_t err = 0;

		if (!j->in_member) {
			member_begin(x);
			j->in_member = true;
			j->pc = 0;
		}
		pc = j->pc;
		while (n) {
			const struct gsim_tpc_dbundle *b = &code[pc];
			const struct gsim_tpc_uop *u = b->u, *end = u + b->n;

			if (b->bad) {
				err = GAUDISIM_TPC_ERR_ILLEGAL;
				break;
			}
			if (b->loop) {
				n -= b->loop(x, b, n);
				last = pc;
				pc = x->next_pc;
				if (pc >= nb) {
					err = GAUDISIM_TPC_ERR_END;
					break;
				}
				continue;
			}
			x->next_pc = pc + 1;
			if (b->fused)
				halted |= b->fused(x, b);
			else
				for (; u < end; u++)
					if (u->pvec || (x->sp[u->pred] ^ u->pneg))
						halted |= u->fn(x, u);
			n--;
			if (halted)
				break;
			last = pc;
			pc = x->next_pc;
			if (pc >= nb) {
				err = GAUDISIM_TPC_ERR_END;
				break;
			}
		}
		j->budget -= quota - n;
		j->bundles += quota - n;
		max_bundles -= quota - n;
		if (err == GAUDISIM_TPC_ERR_ILLEGAL)
			return fail(j, err, pc, code[pc].bad | (uint32_t)code[pc].bad_slot << 8);
		if (err)
			return fail(j, err, last, 0);
		if (halted) {
			j->in_member = false;
			member_next(j);
			continue;
		}
		j->pc = pc;
		if (!j->budget)
			return fail(j, GAUDISIM_TPC_ERR_WATCHDOG, pc, 0);
		return true;	/* max_bundles used up: more later */
	}
	return false;
}

const struct gsim_tpc_isa GSIM_TPC_ISA_TABLE = {
	.name = GSIM_TPC_ISA_NAME,
	.bind = tpc_bind,
	.fuse = tpc_fuse,
	.begin = tpc_begin,
	.run = tpc_run,
};
