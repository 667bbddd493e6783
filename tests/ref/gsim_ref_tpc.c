/* SPDX-License-Identifier: MIT */
/*
 * TPC reference ops (see gsim_ref_tpc.h). Integer lanes are computed in
 * 64-bit arithmetic and wrapped explicitly; rounding to BF16 and to
 * integers picks between the two neighbouring representable values, so
 * none of this shares code with the interpreter's bit tricks.
 */
#include <math.h>
#include <string.h>

#include "gsim_ref_tpc.h"

static float fl(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static bool is_float(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_FP32 || dt == GAUDISIM_DTYPE_BF16;
}

static bool is_signed(unsigned int dt)
{
	return dt == GAUDISIM_DTYPE_INT32 || dt == GAUDISIM_DTYPE_INT16 ||
	       dt == GAUDISIM_DTYPE_INT8;
}

static unsigned int width(unsigned int dt)
{
	return 8 * gaudisim_dtype_size(dt);
}

/* v modulo 2^width, as the type's register value. */
static uint32_t wrap(unsigned int dt, int64_t v)
{
	uint64_t m = 1ull << width(dt);
	uint64_t r = (uint64_t)v & (m - 1);

	if (is_signed(dt) && r >= m / 2)
		r = r - m;	/* negative: two's complement in 64 bits */
	return (uint32_t)r;
}

/* The integer a lane holds for this type (its low bits, sign-extended). */
static int64_t ival(unsigned int dt, uint32_t a)
{
	uint32_t r = wrap(dt, a);

	return is_signed(dt) ? (int64_t)(int32_t)r : (int64_t)r;
}

/* ---- rounding to BF16 ------------------------------------------------------ */

static bool is_nan(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

/*
 * FP32 bits -> BF16 bits (as FP32 bits) with a rounding mode. The two
 * candidates are the truncation and its neighbour away from zero.
 */
static uint32_t to_bf16(uint32_t u, unsigned int rm)
{
	uint32_t near = u & 0xffff0000u, far = near + 0x10000u;
	double v = fl(u), dn, df;
	bool neg = u >> 31;

	if (is_nan(u))
		return near | 0x00400000u;
	if (near == u)
		return u;
	dn = fl(near);
	/* Past the largest finite value, "far" is 2^128 on an unbounded grid. */
	df = (far & 0x7fffffffu) == 0x7f800000u ? copysign(ldexp(1.0, 128), v) : fl(far);
	switch (rm) {
	case GAUDISIM_TPC_RM_RZ:
		return near;
	case GAUDISIM_TPC_RM_RD:
		return neg ? far : near;
	case GAUDISIM_TPC_RM_RU:
		return neg ? near : far;
	default:
		if (fabs(v - dn) < fabs(df - v))
			return near;
		if (fabs(v - dn) > fabs(df - v))
			return far;
		return (near >> 16) & 1 ? far : near;	/* tie: even */
	}
}

/* ---- one lane ---------------------------------------------------------------- */

static uint32_t out_float(unsigned int dt, float r)
{
	return dt == GAUDISIM_DTYPE_BF16 ? to_bf16(bits(r), GAUDISIM_TPC_RM_RNE) : bits(r);
}

uint32_t gsim_ref_tpc_lane(unsigned int opc, unsigned int dt, uint32_t a, uint32_t b,
			   uint32_t c)
{
	if (opc == GAUDISIM_TPC_OP_MOV)
		return b;
	if (is_float(dt)) {
		float x = fl(a), y = fl(b), p;

		switch (opc) {
		case GAUDISIM_TPC_OP_ADD:
			return out_float(dt, x + y);
		case GAUDISIM_TPC_OP_SUB:
			return out_float(dt, x - y);
		case GAUDISIM_TPC_OP_MUL:
			return out_float(dt, x * y);
		case GAUDISIM_TPC_OP_MAC: {
			volatile float prod = x * y;	/* rounded on its own: no FMA */

			p = prod;
			return out_float(dt, fl(c) + p);
		}
		case GAUDISIM_TPC_OP_MIN:
			return out_float(dt, isless(x, y) ? x : y);
		case GAUDISIM_TPC_OP_MAX:
			return out_float(dt, isgreater(x, y) ? x : y);
		case GAUDISIM_TPC_OP_AND:
			return a & b;
		case GAUDISIM_TPC_OP_OR:
			return a | b;
		case GAUDISIM_TPC_OP_XOR:
			return a ^ b;
		case GAUDISIM_TPC_OP_NOT:
			return ~a;
		case GAUDISIM_TPC_OP_ABS:
			return out_float(dt, fl(a & 0x7fffffffu));
		case GAUDISIM_TPC_OP_NEG:
			return out_float(dt, fl(a ^ 0x80000000u));
		case GAUDISIM_TPC_OP_EXP:
			return out_float(dt, expf(x));
		case GAUDISIM_TPC_OP_LOG:
			return out_float(dt, logf(x));
		case GAUDISIM_TPC_OP_RCP:
			return out_float(dt, 1.0f / x);
		case GAUDISIM_TPC_OP_RSQRT:
			return out_float(dt, 1.0f / sqrtf(x));
		case GAUDISIM_TPC_OP_SQRT:
			return out_float(dt, sqrtf(x));
		case GAUDISIM_TPC_OP_TANH:
			return out_float(dt, tanhf(x));
		}
		return 0;
	}
	{
		int64_t x = is_signed(dt) ? (int64_t)(int32_t)a : (int64_t)a;
		int64_t y = is_signed(dt) ? (int64_t)(int32_t)b : (int64_t)b;
		int64_t z = is_signed(dt) ? (int64_t)(int32_t)c : (int64_t)c;
		unsigned int sh = b % 32;

		switch (opc) {
		case GAUDISIM_TPC_OP_ADD:
			return wrap(dt, x + y);
		case GAUDISIM_TPC_OP_SUB:
			return wrap(dt, x - y);
		case GAUDISIM_TPC_OP_MUL:
			/* Low 32 bits of the product are all any type keeps. */
			return wrap(dt, (int64_t)((uint64_t)a * (uint64_t)b & 0xffffffffull));
		case GAUDISIM_TPC_OP_MAC:
			return wrap(dt, z + (int64_t)((uint64_t)a * (uint64_t)b & 0xffffffffull));
		case GAUDISIM_TPC_OP_MIN:
			return wrap(dt, x < y ? x : y);
		case GAUDISIM_TPC_OP_MAX:
			return wrap(dt, x > y ? x : y);
		case GAUDISIM_TPC_OP_AND:
			return wrap(dt, x & y);
		case GAUDISIM_TPC_OP_OR:
			return wrap(dt, x | y);
		case GAUDISIM_TPC_OP_XOR:
			return wrap(dt, x ^ y);
		case GAUDISIM_TPC_OP_SHL:
			return wrap(dt, (int64_t)(((uint64_t)a << sh) & 0xffffffffull));
		case GAUDISIM_TPC_OP_SHR:
			/* x is a's value as signed/unsigned 32-bit: shift it as a number. */
			return wrap(dt, x >= 0 ? x >> sh : -((-x - 1) >> sh) - 1);
		case GAUDISIM_TPC_OP_NOT:
			return wrap(dt, ~x);
		case GAUDISIM_TPC_OP_ABS:
			return wrap(dt, x < 0 ? -x : x);
		case GAUDISIM_TPC_OP_NEG:
			return wrap(dt, -x);
		}
	}
	return 0;
}

bool gsim_ref_tpc_exact(unsigned int opc)
{
	return opc != GAUDISIM_TPC_OP_EXP && opc != GAUDISIM_TPC_OP_LOG &&
	       opc != GAUDISIM_TPC_OP_TANH;
}

bool gsim_ref_tpc_cmp(unsigned int cond, unsigned int dt, uint32_t a, uint32_t b)
{
	double x, y;

	if (is_float(dt)) {
		x = fl(a);
		y = fl(b);
	} else {
		x = (double)(is_signed(dt) ? (int64_t)(int32_t)a : (int64_t)a);
		y = (double)(is_signed(dt) ? (int64_t)(int32_t)b : (int64_t)b);
	}
	switch (cond) {
	case GAUDISIM_TPC_CMP_EQ:
		return x == y;
	case GAUDISIM_TPC_CMP_NE:
		return !(x == y);
	case GAUDISIM_TPC_CMP_LT:
		return isless(x, y);
	case GAUDISIM_TPC_CMP_LE:
		return islessequal(x, y);
	case GAUDISIM_TPC_CMP_GT:
		return isgreater(x, y);
	default:
		return isgreaterequal(x, y);
	}
}

/* ---- conversions ------------------------------------------------------------------ */

static double round_mode(double v, unsigned int rm)
{
	switch (rm) {
	case GAUDISIM_TPC_RM_RZ:
		return trunc(v);
	case GAUDISIM_TPC_RM_RD:
		return floor(v);
	case GAUDISIM_TPC_RM_RU:
		return ceil(v);
	default:
		return rint(v);	/* default environment: nearest, ties to even */
	}
}

/* The FP32 (or BF16) values around the integer v, chosen by rm. */
static uint32_t int_to_fp(int64_t v, unsigned int dst, unsigned int rm)
{
	uint32_t step = dst == GAUDISIM_DTYPE_BF16 ? 0x10000u : 1u, lo, hi;
	uint32_t mask = dst == GAUDISIM_DTYPE_BF16 ? 0xffff0000u : 0xffffffffu;
	double dv = (double)v, dlo, dhi;

	if (v == 0)
		return 0;
	/* Start near |v| on the grid, then walk to the value just below it. */
	lo = bits((float)fabs(dv)) & mask;
	while (fl(lo) > fabs(dv))
		lo -= step;
	while (fl(lo + step) <= fabs(dv))
		lo += step;
	hi = fl(lo) == fabs(dv) ? lo : lo + step;
	dlo = fl(lo);
	dhi = fl(hi);
	if (hi != lo) {
		bool toward_hi;

		switch (rm) {
		case GAUDISIM_TPC_RM_RZ:
			toward_hi = false;
			break;
		case GAUDISIM_TPC_RM_RD:
			toward_hi = v < 0;
			break;
		case GAUDISIM_TPC_RM_RU:
			toward_hi = v > 0;
			break;
		default:
			if (fabs(dv) - dlo != dhi - fabs(dv))
				toward_hi = fabs(dv) - dlo > dhi - fabs(dv);
			else
				toward_hi = ((lo / step) & 1) != 0;
			break;
		}
		lo = toward_hi ? hi : lo;
	}
	return v < 0 ? lo | 0x80000000u : lo;
}

uint32_t gsim_ref_tpc_cvt(unsigned int src, unsigned int dst, unsigned int rm, uint32_t a)
{
	int64_t v, lo, hi;

	if (is_float(src)) {
		double x = fl(a), r;

		if (dst == GAUDISIM_DTYPE_FP32)
			return a;
		if (dst == GAUDISIM_DTYPE_BF16)
			return to_bf16(a, rm);
		if (isnan(x))
			return 0;
		lo = is_signed(dst) ? -(1ll << (width(dst) - 1)) : 0;
		hi = is_signed(dst) ? (1ll << (width(dst) - 1)) - 1 : (1ll << width(dst)) - 1;
		r = round_mode(x, rm);
		v = r <= (double)lo ? lo : r >= (double)hi ? hi : (int64_t)r;
		return wrap(dst, v);
	}
	v = ival(src, a);
	if (is_float(dst))
		return int_to_fp(v, dst, rm);
	lo = is_signed(dst) ? -(1ll << (width(dst) - 1)) : 0;
	hi = is_signed(dst) ? (1ll << (width(dst) - 1)) - 1 : (1ll << width(dst)) - 1;
	return wrap(dst, v < lo ? lo : v > hi ? hi : v);
}

/* ---- reductions -------------------------------------------------------------------- */

static uint32_t combine(unsigned int opc, unsigned int dt, uint32_t a, uint32_t b)
{
	if (is_float(dt)) {
		float x = fl(a), y = fl(b);

		if (opc == GAUDISIM_TPC_OP_RSUM)
			return bits(x + y);
		if (opc == GAUDISIM_TPC_OP_RMAX)
			return bits(isgreater(x, y) ? x : y);
		return bits(isless(x, y) ? x : y);
	}
	if (opc == GAUDISIM_TPC_OP_RSUM)
		return a + b;
	if (is_signed(dt)) {
		int32_t x = (int32_t)a, y = (int32_t)b;

		return (uint32_t)(opc == GAUDISIM_TPC_OP_RMAX ? (x > y ? x : y) : (x < y ? x : y));
	}
	return opc == GAUDISIM_TPC_OP_RMAX ? (a > b ? a : b) : (a < b ? a : b);
}

/* Fold the upper half onto the lower half until one lane is left. */
static uint32_t fold(unsigned int opc, unsigned int dt, uint32_t *t, unsigned int n)
{
	unsigned int i;

	if (n == 1)
		return t[0];
	for (i = 0; i < n / 2; i++)
		t[i] = combine(opc, dt, t[i], t[i + n / 2]);
	return fold(opc, dt, t, n / 2);
}

uint32_t gsim_ref_tpc_reduce(unsigned int opc, unsigned int dt, const uint32_t *lanes)
{
	uint32_t t[GAUDISIM_TPC_LANES], r;

	memcpy(t, lanes, sizeof(t));
	r = fold(opc, dt, t, GAUDISIM_TPC_LANES);
	if (dt == GAUDISIM_DTYPE_BF16)
		return to_bf16(r, GAUDISIM_TPC_RM_RNE);
	return is_float(dt) ? r : wrap(dt, (int64_t)r);
}

/* ---- memory <-> register ----------------------------------------------------------- */

uint32_t gsim_ref_tpc_load(unsigned int dt, const void *p)
{
	const uint8_t *b = p;
	uint32_t raw = 0;
	unsigned int i, n = gaudisim_dtype_size(dt);

	for (i = 0; i < n; i++)
		raw |= (uint32_t)b[i] << (8 * i);
	if (dt == GAUDISIM_DTYPE_BF16)
		return raw << 16;
	return is_float(dt) ? raw : wrap(dt, raw);
}

void gsim_ref_tpc_store(unsigned int dt, void *p, uint32_t v)
{
	uint8_t *b = p;
	unsigned int i, n = gaudisim_dtype_size(dt);

	if (dt == GAUDISIM_DTYPE_BF16)
		v = to_bf16(v, GAUDISIM_TPC_RM_RNE) >> 16;
	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* ---- tensors ----------------------------------------------------------------------- */

void gsim_ref_tpc_add_f32(const float *a, const float *b, float *out, size_t rows, size_t n,
			  size_t lda, size_t ldb, size_t ldo)
{
	size_t r, i;

	for (r = 0; r < rows; r++)
		for (i = 0; i < n; i++)
			out[r * ldo + i] = a[r * lda + i] + b[r * ldb + i];
}

void gsim_ref_tpc_add_bf16(const uint16_t *a, const uint16_t *b, uint16_t *out, size_t rows,
			   size_t n, size_t lda, size_t ldb, size_t ldo)
{
	size_t r, i;

	for (r = 0; r < rows; r++)
		for (i = 0; i < n; i++) {
			float s = fl((uint32_t)a[r * lda + i] << 16) +
				  fl((uint32_t)b[r * ldb + i] << 16);

			out[r * ldo + i] = (uint16_t)(to_bf16(bits(s), GAUDISIM_TPC_RM_RNE) >> 16);
		}
}

void gsim_ref_tpc_relu_f32(const float *x, float *out, size_t rows, size_t n, size_t ldx,
			   size_t ldo)
{
	size_t r, i;

	for (r = 0; r < rows; r++)
		for (i = 0; i < n; i++)
			out[r * ldo + i] = isgreater(x[r * ldx + i], 0.0f) ? x[r * ldx + i] : 0.0f;
}

void gsim_ref_tpc_reduce_sum_f32(const float *x, double *sums, size_t rows, size_t n,
				 size_t ldx)
{
	size_t r, i;

	for (r = 0; r < rows; r++) {
		double s = 0;

		for (i = 0; i < n; i++)
			s += x[r * ldx + i];
		sums[r] = s;
	}
}

void gsim_ref_tpc_softmax_f32(const float *x, double *out, size_t rows, size_t n, size_t ldx,
			      size_t ldo)
{
	size_t r, i;

	for (r = 0; r < rows; r++) {
		const float *row = x + r * ldx;
		double m = -INFINITY, s = 0;

		for (i = 0; i < n; i++)
			m = row[i] > m ? row[i] : m;
		for (i = 0; i < n; i++)
			s += exp((double)row[i] - m);
		for (i = 0; i < n; i++)
			out[r * ldo + i] = exp((double)row[i] - m) / s;
	}
}
