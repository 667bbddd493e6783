/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the MME's BF16 tile product on hosts with
 * AVX512-BF16 (VDPBF16PS: two BF16 products added into an FP32 lane).
 *
 * The instruction multiplies exactly (a BF16 product fits FP32) and adds
 * in FP32 with round-to-nearest-even, one rounding per product, so the
 * engine's bound (docs/mme.md) holds. It also treats denormals as zero,
 * inputs and results alike, which the engine's numerics do not. So a tile
 * runs here only when every nonzero finite input has a magnitude of at
 * least 2^-55: then every product is a multiple of 2^-124 and so is every
 * partial sum, and a nonzero multiple of 2^-124 is a normal number - no
 * denormal ever appears. Otherwise (found while packing) the caller
 * computes the tile on its FP32 path.
 *
 * Layout: K is walked in blocks of GSIM_BF16_KP pairs. A block of op(A)
 * is packed as rows of k-pairs (one 32-bit word = elements k, k+1), padded
 * to a multiple of 8 rows; op(B) as panels of 32 columns, each a run of
 * k-pair rows of 32 words. The kernel keeps an 8 x 32 block of the FP32
 * accumulator in 16 registers. The order of the sums is fixed by the
 * layout, so a tile gives the same bits every time it runs, on any thread.
 */
#include <stdatomic.h>
#include <string.h>

#include "gsim_mme.h"

#define GSIM_BF16_MR	8u	/* accumulator rows per kernel call */
#define GSIM_BF16_NR	32u	/* accumulator columns per kernel call (2 vectors) */
#define GSIM_BF16_KP	256u	/* k pairs per block: A micro-panel 8 KiB, B block 1 MiB */
/* Smallest exponent field of a usable nonzero input: 2^-55. */
#define GSIM_BF16_MIN_EXP	(127u - 55u)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GSIM_MME_NO_NATIVE_BF16)
#define GSIM_BF16_X86	1
#include <immintrin.h>
#else
#define GSIM_BF16_X86	0
#endif

/* -1 not probed yet, 0 off, 1 on; probed by whichever thread asks first. */
static atomic_int native_state = -1;

bool gsim_mme_bf16_native(void)
{
#if GSIM_BF16_X86
	if (atomic_load(&native_state) < 0) {
		__builtin_cpu_init();
		atomic_store(&native_state, __builtin_cpu_supports("avx512f") &&
					    __builtin_cpu_supports("avx512bf16"));
	}
	return atomic_load(&native_state) == 1;
#else
	return false;
#endif
}

void gsim_mme_bf16_set_native(bool on)
{
	atomic_store(&native_state, -1);
	if (!on || !gsim_mme_bf16_native())
		atomic_store(&native_state, 0);
}

const char *gsim_mme_bf16_path(void)
{
	return gsim_mme_bf16_native() ? "avx512-bf16" : "fp32";
}

#if GSIM_BF16_X86

static uint16_t elem(const struct gsim_mme_operand *op, const uint8_t *base, uint64_t r,
		     uint64_t c)
{
	uint16_t h;

	memcpy(&h, base + (r * op->ld + c) * 2, 2);
	return h;
}

/* A nonzero finite value below 2^-55 (denormals included): not for this path. */
static bool too_small(uint16_t h)
{
	return (h & 0x7fff) && ((h >> 7) & 0xff) < GSIM_BF16_MIN_EXP;
}

/* Any of n stored values too small (branch-free, so the loop vectorizes). */
static bool any_too_small(const uint8_t *p, uint32_t n)
{
	unsigned int bad = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint16_t h;

		memcpy(&h, p + 2 * i, 2);
		bad |= (unsigned int)((h & 0x7fff) != 0) &
		       (unsigned int)(((h >> 7) & 0xff) < GSIM_BF16_MIN_EXP);
	}
	return bad != 0;
}

/*
 * Pack op(A) rows [m0, m0 + mt) x k [k0, k0 + kt) as pairs, rows padded to
 * mtp with zeros. false when an input is too small. Untransposed rows are
 * already pairs in memory (little-endian): copied as they are.
 */
static bool pack_a(uint32_t *dst, const struct gsim_mme_operand *op, const uint8_t *base,
		   bool trans, uint32_t m0, uint32_t mt, uint32_t mtp, uint32_t k0, uint32_t kt)
{
	uint32_t kp = (kt + 1) / 2, r, p;

	if (!trans) {
		for (r = 0; r < mtp; r++) {
			uint32_t *row = dst + (uint64_t)r * kp;
			const uint8_t *src = base + ((uint64_t)(m0 + r) * op->ld + k0) * 2;

			row[kp - 1] = 0;
			if (r >= mt) {
				memset(row, 0, (size_t)kp * 4);
				continue;
			}
			if (any_too_small(src, kt))
				return false;
			memcpy(row, src, (size_t)kt * 2);
		}
		return true;
	}
	for (r = 0; r < mtp; r++) {
		for (p = 0; p < kp; p++) {
			uint32_t k = k0 + 2 * p;
			uint16_t lo = 0, hi = 0;

			if (r < mt) {
				lo = trans ? elem(op, base, k, m0 + r) : elem(op, base, m0 + r, k);
				if (2 * p + 1 < kt)
					hi = trans ? elem(op, base, k + 1, m0 + r)
						   : elem(op, base, m0 + r, k + 1);
			}
			if (too_small(lo) || too_small(hi))
				return false;
			dst[(uint64_t)r * kp + p] = (uint32_t)lo | (uint32_t)hi << 16;
		}
	}
	return true;
}

/* Pack op(B) k [k0, k0 + kt) x columns [n0, n0 + nt) as 32-column panels. */
static bool pack_b(uint32_t *dst, const struct gsim_mme_operand *op, const uint8_t *base,
		   bool trans, uint32_t n0, uint32_t nt, uint32_t k0, uint32_t kt)
{
	uint32_t kp = (kt + 1) / 2, panels = (nt + GSIM_BF16_NR - 1) / GSIM_BF16_NR, q, p, c;

	for (q = 0; q < panels; q++) {
		uint32_t *panel = dst + (uint64_t)q * kp * GSIM_BF16_NR;

		for (p = 0; p < kp; p++) {
			uint32_t k = k0 + 2 * p;

			/* A full panel of two stored rows: interleave them. */
			if (!trans && (q + 1) * GSIM_BF16_NR <= nt && 2 * p + 1 < kt) {
				const uint8_t *r0 = base + ((uint64_t)k * op->ld + n0 +
							    q * GSIM_BF16_NR) * 2;
				const uint8_t *r1 = r0 + op->ld * 2;
				uint16_t lo[GSIM_BF16_NR], hi[GSIM_BF16_NR];

				if (any_too_small(r0, GSIM_BF16_NR) || any_too_small(r1, GSIM_BF16_NR))
					return false;
				memcpy(lo, r0, sizeof(lo));
				memcpy(hi, r1, sizeof(hi));
				for (c = 0; c < GSIM_BF16_NR; c++)
					panel[(uint64_t)p * GSIM_BF16_NR + c] =
						(uint32_t)lo[c] | (uint32_t)hi[c] << 16;
				continue;
			}

			for (c = 0; c < GSIM_BF16_NR; c++) {
				uint32_t j = q * GSIM_BF16_NR + c;
				uint16_t lo = 0, hi = 0;

				if (j < nt) {
					lo = trans ? elem(op, base, n0 + j, k) : elem(op, base, k, n0 + j);
					if (2 * p + 1 < kt)
						hi = trans ? elem(op, base, n0 + j, k + 1)
							   : elem(op, base, k + 1, n0 + j);
				}
				if (too_small(lo) || too_small(hi))
				return false;
				panel[(uint64_t)p * GSIM_BF16_NR + c] = (uint32_t)lo | (uint32_t)hi << 16;
			}
		}
	}
	return true;
}

static __mmask16 cols_mask(uint32_t cols)
{
	return cols >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << cols) - 1);
}

/*
 * c[rows x cols] (row stride ldc) (+)= the 8 x 32 product of an A
 * micro-panel (8 rows of kp pairs) and a B panel (kp x 32 words). The
 * sixteen accumulators are spelled out so that they live in registers.
 */
#define GSIM_BF16_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

__attribute__((target("avx512f,avx512bf16")))
static void kernel_8x32(const uint32_t *ap, const uint32_t *bp, uint32_t kp, float *c,
			uint64_t ldc, uint32_t rows, uint32_t cols, bool accumulate)
{
	const __mmask16 m0 = cols_mask(cols), m1 = cols > 16 ? cols_mask(cols - 16) : 0;
	const bool load = accumulate;
	uint32_t p;

#define GSIM_BF16_DECL(r)						\
	__m512 acc##r##a = load && r < rows ?				\
		_mm512_maskz_loadu_ps(m0, c + (r) * ldc) : _mm512_setzero_ps();	\
	__m512 acc##r##b = load && r < rows ?				\
		_mm512_maskz_loadu_ps(m1, c + (r) * ldc + 16) : _mm512_setzero_ps();
	GSIM_BF16_ROWS(GSIM_BF16_DECL)
#undef GSIM_BF16_DECL

	for (p = 0; p < kp; p++) {
		const __m512bh b0 = (__m512bh)_mm512_loadu_si512(bp + p * GSIM_BF16_NR);
		const __m512bh b1 = (__m512bh)_mm512_loadu_si512(bp + p * GSIM_BF16_NR + 16);
		__m512bh a;

#define GSIM_BF16_STEP(r)						\
		a = (__m512bh)_mm512_set1_epi32((int)ap[(uint64_t)(r) * kp + p]);	\
		acc##r##a = _mm512_dpbf16_ps(acc##r##a, a, b0);		\
		acc##r##b = _mm512_dpbf16_ps(acc##r##b, a, b1);
		GSIM_BF16_ROWS(GSIM_BF16_STEP)
#undef GSIM_BF16_STEP
	}

#define GSIM_BF16_STORE(r)						\
	if (r < rows) {							\
		_mm512_mask_storeu_ps(c + (r) * ldc, m0, acc##r##a);	\
		_mm512_mask_storeu_ps(c + (r) * ldc + 16, m1, acc##r##b);	\
	}
	GSIM_BF16_ROWS(GSIM_BF16_STORE)
#undef GSIM_BF16_STORE
}

bool gsim_mme_bf16_tile(struct gsim_mme *mme, const struct gsim_mme_gemm *g, uint64_t b,
			uint32_t m0, uint32_t mt, uint32_t n0, uint32_t nt)
{
	const uint8_t *abase = g->a.mem + b * g->a.stride * g->a.esize;
	const uint8_t *bbase = g->b.mem + b * g->b.stride * g->b.esize;
	uint32_t *pa = (uint32_t *)mme->scratch.a, *pb = (uint32_t *)mme->scratch.b;
	uint32_t mtp = (mt + GSIM_BF16_MR - 1) / GSIM_BF16_MR * GSIM_BF16_MR;
	float *acc = mme->scratch.acc;
	uint32_t k0;

	if (!gsim_mme_bf16_native() || g->a.dtype != GAUDISIM_DTYPE_BF16 ||
	    mt > GSIM_MME_TILE || nt > GSIM_MME_TILE)
		return false;
	for (k0 = 0; k0 < g->k; k0 += 2 * GSIM_BF16_KP) {
		uint32_t kt = g->k - k0 < 2 * GSIM_BF16_KP ? g->k - k0 : 2 * GSIM_BF16_KP;
		uint32_t kp = (kt + 1) / 2, i0, q;

		if (!pack_a(pa, &g->a, abase, g->trans_a, m0, mt, mtp, k0, kt) ||
		    !pack_b(pb, &g->b, bbase, g->trans_b, n0, nt, k0, kt))
			return false;
		for (i0 = 0; i0 < mt; i0 += GSIM_BF16_MR) {
			uint32_t rows = mt - i0 < GSIM_BF16_MR ? mt - i0 : GSIM_BF16_MR;

			for (q = 0; q * GSIM_BF16_NR < nt; q++) {
				uint32_t cols = nt - q * GSIM_BF16_NR;

				kernel_8x32(pa + (uint64_t)i0 * kp, pb + (uint64_t)q * kp * GSIM_BF16_NR,
					    kp, acc + (uint64_t)i0 * nt + q * GSIM_BF16_NR, nt, rows,
					    cols < GSIM_BF16_NR ? cols : GSIM_BF16_NR, k0 != 0);
			}
		}
	}
	return true;
}

#else

bool gsim_mme_bf16_tile(struct gsim_mme *mme, const struct gsim_mme_gemm *g, uint64_t b,
			uint32_t m0, uint32_t mt, uint32_t n0, uint32_t nt)
{
	(void)mme;
	(void)g;
	(void)b;
	(void)m0;
	(void)mt;
	(void)n0;
	(void)nt;
	return false;
}

#endif
