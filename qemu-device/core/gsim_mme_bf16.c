/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the MME's BF16 tile product on hosts with AMX-BF16
 * (TDPBF16PS: a 16 x 32 by 32 x 16 BF16 tile product added into a 16 x 16
 * FP32 tile) or AVX512-BF16 (VDPBF16PS: two BF16 products added into an
 * FP32 lane). AMX is preferred where both run: on CPUs that have it, one
 * AVX512-BF16 instruction does no more work than an FP32 FMA, so only AMX
 * makes BF16 faster than the FP32 path.
 *
 * Either instruction multiplies exactly (a BF16 product fits FP32) and adds
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
 * to a multiple of 8 rows (32 for AMX); op(B) as panels of 32 columns,
 * each a run of k-pair rows of 32 words. For AMX the pairs are padded with
 * zeros to a multiple of 16 (one tile's K) and both are stored tile by
 * tile, so that every tile load reads one contiguous KiB. The AVX512-BF16 kernel keeps
 * an 8 x 32 block of the FP32 accumulator in 16 registers, the AMX kernel
 * a 32 x 32 block in four tiles. The order of the sums is fixed by the
 * layout and the path, so a tile gives the same bits every time it runs,
 * on any thread; the two native paths may round differently from each
 * other, each within the bound.
 *
 * GSIM_MME_BF16 (amx-bf16, avx512-bf16, fp32, auto) names the path to take
 * where this host runs it; a path it cannot run falls to the next one.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_mme.h"

#define GSIM_BF16_MR	8u	/* accumulator rows per kernel call */
#define GSIM_BF16_NR	32u	/* accumulator columns per kernel call (2 vectors) */
#define GSIM_BF16_KP	256u	/* k pairs per block: A micro-panel 8 KiB, B block 1 MiB */
#define GSIM_AMX_MR	32u	/* accumulator rows per AMX block (two tiles) */
#define GSIM_AMX_KP	16u	/* k pairs per AMX tile */
/* Smallest exponent field of a usable nonzero input: 2^-55. */
#define GSIM_BF16_MIN_EXP	(127u - 55u)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GSIM_MME_NO_NATIVE_BF16)
#define GSIM_BF16_X86	1
#include <cpuid.h>
#include <immintrin.h>
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
/* arch_prctl(2): ask for a dynamically enabled state component (AMX tile data). */
#define GSIM_ARCH_REQ_XCOMP_PERM	0x1023
#define GSIM_XFEATURE_XTILEDATA		18
#endif
#else
#define GSIM_BF16_X86	0
#endif

static const char *const path_names[] = {
	[GSIM_BF16_PATH_FP32] = "fp32",
	[GSIM_BF16_PATH_AVX512] = "avx512-bf16",
	[GSIM_BF16_PATH_AMX] = "amx-bf16",
};

/* -1 not probed yet, else the path; probed by whichever thread asks first. */
static atomic_int path_state = -1;
/* AMX: -1 not probed yet, 0 no, 1 the CPU has it and Linux let us use it. */
static atomic_int amx_state = -1;

#if GSIM_BF16_X86 && defined(__linux__)
/*
 * AMX-TILE and AMX-BF16 (CPUID.7.0:EDX bits 24, 22), and the tile data
 * state, which Linux hands out per process on request.
 */
static bool amx_probe(void)
{
	unsigned int a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 7)
		return false;
	__cpuid_count(7, 0, a, b, c, d);
	if (!(d & (1u << 24)) || !(d & (1u << 22)))
		return false;
	return syscall(SYS_arch_prctl, GSIM_ARCH_REQ_XCOMP_PERM, GSIM_XFEATURE_XTILEDATA) == 0;
}
#else
static bool amx_probe(void)
{
	return false;
}
#endif

bool gsim_mme_bf16_path_runs(enum gsim_bf16_path path)
{
	switch (path) {
	case GSIM_BF16_PATH_FP32:
		return true;
	case GSIM_BF16_PATH_AVX512:
#if GSIM_BF16_X86
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
		return false;
#endif
	case GSIM_BF16_PATH_AMX:
		if (atomic_load(&amx_state) < 0)
			atomic_store(&amx_state, amx_probe());
		return atomic_load(&amx_state) == 1;
	}
	return false;
}

/*
 * The path named, else the next one down that runs; the best that runs for
 * NULL, "auto" or a name that is none of the paths.
 */
static enum gsim_bf16_path choose(const char *name)
{
	int p = GSIM_BF16_PATH_AMX;

	while (name && p > GSIM_BF16_PATH_FP32 && strcmp(name, path_names[p]))
		p--;
	if (!name || strcmp(name, path_names[p]))
		p = GSIM_BF16_PATH_AMX;
	for (; p > GSIM_BF16_PATH_FP32; p--)
		if (gsim_mme_bf16_path_runs((enum gsim_bf16_path)p))
			break;
	return (enum gsim_bf16_path)p;
}

static enum gsim_bf16_path current(void)
{
	if (atomic_load(&path_state) < 0)
		atomic_store(&path_state, choose(getenv("GSIM_MME_BF16")));
	return (enum gsim_bf16_path)atomic_load(&path_state);
}

bool gsim_mme_bf16_native(void)
{
	return current() != GSIM_BF16_PATH_FP32;
}

void gsim_mme_bf16_set_native(bool on)
{
	atomic_store(&path_state, -1);
	if (!on)
		atomic_store(&path_state, GSIM_BF16_PATH_FP32);
}

bool gsim_mme_bf16_use(enum gsim_bf16_path path)
{
	if ((unsigned int)path > GSIM_BF16_PATH_AMX || !gsim_mme_bf16_path_runs(path))
		return false;
	atomic_store(&path_state, path);
	return true;
}

const char *gsim_mme_bf16_path(void)
{
	return path_names[current()];
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
 * Where pair p of packed row r lies: row after row of kpp pairs, or for
 * AMX in tiles: for each 16 rows, 16 x 16 blocks of 16 rows by 16 pairs
 * one after another, each block one contiguous tile (rows 64 bytes apart).
 */
static inline uint64_t a_at(bool amx, uint32_t r, uint32_t p, uint32_t kpp)
{
	if (!amx)
		return (uint64_t)r * kpp + p;
	return ((uint64_t)(r / 16) * kpp + (p & ~15u)) * 16 + (r % 16) * 16 + p % 16;
}

/*
 * Pack op(A) rows [m0, m0 + mt) x k [k0, k0 + kt) as pairs, rows padded to
 * mtp with zeros, each row kpp pairs long (the pairs past K zero), in the
 * layout of a_at(). false when an input is too small. Untransposed rows
 * are already pairs in memory (little-endian): copied as they are.
 */
static bool pack_a(uint32_t *dst, const struct gsim_mme_operand *op, const uint8_t *base,
		   bool trans, uint32_t m0, uint32_t mt, uint32_t mtp, uint32_t k0, uint32_t kt,
		   uint32_t kpp, bool amx)
{
	uint32_t kp = (kt + 1) / 2, r, p;

	if (!trans) {
		for (r = 0; r < mtp; r++) {
			const uint8_t *src = base + ((uint64_t)(m0 + r) * op->ld + k0) * 2;

			if (r < mt && any_too_small(src, kt))
				return false;
			/* a run of 16 pairs at a time: what is contiguous in either layout */
			for (p = 0; p < kpp; p += 16) {
				uint32_t *run = dst + a_at(amx, r, p, kpp);
				uint32_t words = kpp - p < 16 ? kpp - p : 16;
				uint32_t elems = r >= mt || 2 * p >= kt ? 0 :
						 kt - 2 * p < 2 * words ? kt - 2 * p : 2 * words;

				memset(run, 0, (size_t)words * 4);
				memcpy(run, src + (uint64_t)p * 4, (size_t)elems * 2);
			}
		}
		return true;
	}
	for (r = 0; r < mtp; r++) {
		for (p = kp; p < kpp; p++)
			dst[a_at(amx, r, p, kpp)] = 0;
		for (p = 0; p < kp; p++) {
			uint32_t k = k0 + 2 * p;
			uint16_t lo = 0, hi = 0;

			if (r < mt) {
				lo = elem(op, base, k, m0 + r);
				if (2 * p + 1 < kt)
					hi = elem(op, base, k + 1, m0 + r);
			}
			if (too_small(lo) || too_small(hi))
				return false;
			dst[a_at(amx, r, p, kpp)] = (uint32_t)lo | (uint32_t)hi << 16;
		}
	}
	return true;
}

/*
 * Where pair row p of column c of a packed panel lies: rows of 32 words,
 * or for AMX the panel's two halves of 16 columns one after the other,
 * each kpp rows of 16 words (a tile of 16 rows is contiguous).
 */
static inline uint64_t b_at(bool amx, uint32_t p, uint32_t c, uint32_t kpp)
{
	if (!amx)
		return (uint64_t)p * GSIM_BF16_NR + c;
	return (uint64_t)(c / 16) * kpp * 16 + (uint64_t)p * 16 + c % 16;
}

/*
 * Pack op(B) k [k0, k0 + kt) x columns [n0, n0 + nt) as 32-column panels
 * of kpp pair rows (the rows past K zero), in the layout of b_at().
 */
static bool pack_b(uint32_t *dst, const struct gsim_mme_operand *op, const uint8_t *base,
		   bool trans, uint32_t n0, uint32_t nt, uint32_t k0, uint32_t kt, uint32_t kpp,
		   bool amx)
{
	uint32_t kp = (kt + 1) / 2, panels = (nt + GSIM_BF16_NR - 1) / GSIM_BF16_NR, q, p, c;

	for (q = 0; q < panels; q++) {
		uint32_t *panel = dst + (uint64_t)q * kpp * GSIM_BF16_NR;

		for (p = kp; p < kpp; p++)
			for (c = 0; c < GSIM_BF16_NR; c++)
				panel[b_at(amx, p, c, kpp)] = 0;

		for (p = 0; p < kp; p++) {
			uint32_t k = k0 + 2 * p;

			/* A full panel of two stored rows: interleave them. */
			if (!trans && (q + 1) * GSIM_BF16_NR <= nt && 2 * p + 1 < kt) {
				const uint8_t *r0 = base + ((uint64_t)k * op->ld + n0 +
							    q * GSIM_BF16_NR) * 2;
				const uint8_t *r1 = r0 + op->ld * 2;
				uint16_t lo[GSIM_BF16_NR], hi[GSIM_BF16_NR];
				uint32_t *h0 = panel + b_at(amx, p, 0, kpp);
				uint32_t *h1 = panel + b_at(amx, p, 16, kpp);

				if (any_too_small(r0, GSIM_BF16_NR) || any_too_small(r1, GSIM_BF16_NR))
					return false;
				memcpy(lo, r0, sizeof(lo));
				memcpy(hi, r1, sizeof(hi));
				for (c = 0; c < 16; c++) {
					h0[c] = (uint32_t)lo[c] | (uint32_t)hi[c] << 16;
					h1[c] = (uint32_t)lo[c + 16] | (uint32_t)hi[c + 16] << 16;
				}
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
				panel[b_at(amx, p, c, kpp)] = (uint32_t)lo | (uint32_t)hi << 16;
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

#ifdef __linux__
/*
 * The tile configuration (palette 1): eight tiles of 16 rows of 64 bytes.
 * LDTILECFG faults on a configuration that is not 64-byte aligned.
 */
struct amx_config {
	uint8_t palette, start_row, reserved[14];
	uint16_t colsb[16];
	uint8_t rows[16];
} __attribute__((aligned(64)));

__attribute__((target("amx-tile")))
static void amx_configure(void)
{
	struct amx_config cfg;
	unsigned int t;

	memset(&cfg, 0, sizeof(cfg));
	cfg.palette = 1;
	for (t = 0; t < 8; t++) {
		cfg.colsb[t] = 64;
		cfg.rows[t] = 16;
	}
	/*
	 * Not _tile_loadconfig(): GCC 12's names only the first 8 bytes as
	 * read, so the stores of the rest can be dropped.
	 */
	__asm__ volatile("ldtilecfg %0" : : "m"(cfg));
}

__attribute__((target("amx-tile")))
static void amx_release(void)
{
	_tile_release();
}

/*
 * c[rows x cols] (row stride ldc) (+)= the 32 x 32 product of 32 packed A
 * rows (kpp pairs each, kpp a multiple of 16) and a B panel (kpp x 32
 * words), both in the AMX layout (a_at(), b_at()). Tiles 0-3 hold the four 16 x 16 quarters of the block, 4-5 the
 * A rows, 6-7 the panel's two halves. A block cut by the edge of the tile
 * goes through a 32 x 32 buffer.
 */
__attribute__((target("amx-tile,amx-bf16")))
static void kernel_amx_32x32(const uint32_t *ap, const uint32_t *bp, uint32_t kpp, float *c,
			     uint64_t ldc, uint32_t rows, uint32_t cols, bool accumulate)
{
	const bool whole = rows == GSIM_AMX_MR && cols == GSIM_BF16_NR;
	float edge[GSIM_AMX_MR * GSIM_BF16_NR];
	float *cb = whole ? c : edge;
	const uint64_t ldb = whole ? ldc * 4 : GSIM_BF16_NR * 4;
	uint32_t r, p;

	if (!whole) {
		memset(edge, 0, sizeof(edge));
		for (r = 0; accumulate && r < rows; r++)
			memcpy(edge + r * GSIM_BF16_NR, c + r * ldc, (size_t)cols * 4);
	}
	if (accumulate || !whole) {
		_tile_loadd(0, cb, ldb);
		_tile_loadd(1, cb + 16, ldb);
		_tile_loadd(2, (const uint8_t *)cb + 16 * ldb, ldb);
		_tile_loadd(3, (const uint8_t *)cb + 16 * ldb + 64, ldb);
	} else {
		_tile_zero(0);
		_tile_zero(1);
		_tile_zero(2);
		_tile_zero(3);
	}
	for (p = 0; p < kpp; p += GSIM_AMX_KP) {
		_tile_loadd(4, ap + (uint64_t)p * 16, 64);
		_tile_loadd(5, ap + ((uint64_t)kpp + p) * 16, 64);
		_tile_loadd(6, bp + (uint64_t)p * 16, 64);
		_tile_loadd(7, bp + ((uint64_t)kpp + p) * 16, 64);
		_tile_dpbf16ps(0, 4, 6);
		_tile_dpbf16ps(1, 4, 7);
		_tile_dpbf16ps(2, 5, 6);
		_tile_dpbf16ps(3, 5, 7);
	}
	_tile_stored(0, cb, ldb);
	_tile_stored(1, cb + 16, ldb);
	_tile_stored(2, (uint8_t *)cb + 16 * ldb, ldb);
	_tile_stored(3, (uint8_t *)cb + 16 * ldb + 64, ldb);
	for (r = 0; !whole && r < rows; r++)
		memcpy(c + r * ldc, edge + r * GSIM_BF16_NR, (size_t)cols * 4);
}
#endif

/* The tile on the AMX kernel: the tile configuration lives only for the call. */
static bool tile_amx(struct gsim_mme *mme, const struct gsim_mme_gemm *g, const uint8_t *abase,
		     const uint8_t *bbase, uint32_t m0, uint32_t mt, uint32_t n0, uint32_t nt)
{
#ifdef __linux__
	uint32_t *pa = (uint32_t *)mme->scratch.a, *pb = (uint32_t *)mme->scratch.b;
	uint32_t mtp = (mt + GSIM_AMX_MR - 1) / GSIM_AMX_MR * GSIM_AMX_MR;
	float *acc = mme->scratch.acc;
	bool ok = true;
	uint32_t k0;

	amx_configure();
	for (k0 = 0; ok && k0 < g->k; k0 += 2 * GSIM_BF16_KP) {
		uint32_t kt = g->k - k0 < 2 * GSIM_BF16_KP ? g->k - k0 : 2 * GSIM_BF16_KP;
		uint32_t kpp = ((kt + 1) / 2 + GSIM_AMX_KP - 1) / GSIM_AMX_KP * GSIM_AMX_KP;
		uint32_t i0, q;

		ok = pack_a(pa, &g->a, abase, g->trans_a, m0, mt, mtp, k0, kt, kpp, true) &&
		     pack_b(pb, &g->b, bbase, g->trans_b, n0, nt, k0, kt, kpp, true);
		for (i0 = 0; ok && i0 < mt; i0 += GSIM_AMX_MR) {
			uint32_t rows = mt - i0 < GSIM_AMX_MR ? mt - i0 : GSIM_AMX_MR;

			for (q = 0; q * GSIM_BF16_NR < nt; q++) {
				uint32_t cols = nt - q * GSIM_BF16_NR;

				kernel_amx_32x32(pa + a_at(true, i0, 0, kpp),
						 pb + (uint64_t)q * kpp * GSIM_BF16_NR, kpp,
						 acc + (uint64_t)i0 * nt + q * GSIM_BF16_NR, nt, rows,
						 cols < GSIM_BF16_NR ? cols : GSIM_BF16_NR, k0 != 0);
			}
		}
	}
	amx_release();
	return ok;
#else
	(void)mme, (void)g, (void)abase, (void)bbase, (void)m0, (void)mt, (void)n0, (void)nt;
	return false;
#endif
}

bool gsim_mme_bf16_tile(struct gsim_mme *mme, const struct gsim_mme_gemm *g, uint64_t b,
			uint32_t m0, uint32_t mt, uint32_t n0, uint32_t nt)
{
	const uint8_t *abase = g->a.mem + b * g->a.stride * g->a.esize;
	const uint8_t *bbase = g->b.mem + b * g->b.stride * g->b.esize;
	uint32_t *pa = (uint32_t *)mme->scratch.a, *pb = (uint32_t *)mme->scratch.b;
	uint32_t mtp = (mt + GSIM_BF16_MR - 1) / GSIM_BF16_MR * GSIM_BF16_MR;
	float *acc = mme->scratch.acc;
	enum gsim_bf16_path path = current();
	uint32_t k0;

	if (path == GSIM_BF16_PATH_FP32 || g->a.dtype != GAUDISIM_DTYPE_BF16 ||
	    mt > GSIM_MME_TILE || nt > GSIM_MME_TILE)
		return false;
	if (path == GSIM_BF16_PATH_AMX)
		return tile_amx(mme, g, abase, bbase, m0, mt, n0, nt);
	for (k0 = 0; k0 < g->k; k0 += 2 * GSIM_BF16_KP) {
		uint32_t kt = g->k - k0 < 2 * GSIM_BF16_KP ? g->k - k0 : 2 * GSIM_BF16_KP;
		uint32_t kp = (kt + 1) / 2, i0, q;

		if (!pack_a(pa, &g->a, abase, g->trans_a, m0, mt, mtp, k0, kt, kp, false) ||
		    !pack_b(pb, &g->b, bbase, g->trans_b, n0, nt, k0, kt, kp, false))
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
