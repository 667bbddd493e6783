/* SPDX-License-Identifier: MIT */
/*
 * The MME's BF16 paths: the AMX and AVX512-BF16 kernels where the CPU has
 * them (each forced in turn) and the FP32 widening path, each against the reference op within the
 * documented bound (fractional data) and bit-exact (integer data, where
 * the sum order does not matter), every path giving the same bits on
 * integer data, tails of every kind (odd K, rows and columns not a multiple
 * of the kernel's block, transposes, batches), and the fallback to FP32 for
 * inputs too small for the kernel (denormals among them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_bf16.h"
#include "gsim_mme.h"
#include "gsim_ref.h"
#include "gsim_test.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd32(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

enum fill { FILL_INT, FILL_FRAC, FILL_TINY };

static uint16_t rnd_bf16(enum fill f)
{
	switch (f) {
	case FILL_INT:
		return gsim_f32_to_bf16((float)((int)(rnd32() % 9) - 4));
	case FILL_FRAC:
		return gsim_f32_to_bf16(((float)(rnd32() % 20001) - 10000.0f) / 3001.0f);
	case FILL_TINY:
		/* Every 7th value far below 2^-55; one denormal. */
		if (rnd32() % 7 == 0)
			return rnd32() % 2 ? 0x0001 : gsim_f32_to_bf16(0x1p-90f);
		return gsim_f32_to_bf16((float)((int)(rnd32() % 9) - 4));
	}
	return 0;
}

struct shape {
	uint32_t m, n, k, batch;
	bool ta, tb;
	float alpha, beta;
};

struct bufs {
	uint16_t *a, *b;
	float *c, *d, *ref;
	uint64_t na, nb, nc;
};

static void operand(struct gsim_mme_operand *op, void *mem, uint64_t addr, uint32_t rows,
		    uint32_t cols, uint64_t stride, unsigned int dtype)
{
	op->mem = mem;
	op->addr = addr;
	op->ld = cols;
	op->stride = stride;
	op->rows = rows;
	op->cols = cols;
	op->dtype = dtype;
	op->esize = gaudisim_dtype_size(dtype);
}

static void bufs_new(struct bufs *x, const struct shape *s, enum fill f)
{
	uint64_t i;

	x->na = (uint64_t)s->m * s->k * s->batch;
	x->nb = (uint64_t)s->k * s->n * s->batch;
	x->nc = (uint64_t)s->m * s->n * s->batch;
	x->a = malloc(2 * x->na);
	x->b = malloc(2 * x->nb);
	x->c = malloc(4 * x->nc);
	x->d = malloc(4 * x->nc);
	x->ref = malloc(4 * x->nc);
	ck_assert(x->a && x->b && x->c && x->d && x->ref);
	for (i = 0; i < x->na; i++)
		x->a[i] = rnd_bf16(f);
	for (i = 0; i < x->nb; i++)
		x->b[i] = rnd_bf16(f);
	for (i = 0; i < x->nc; i++)
		x->c[i] = f == FILL_FRAC ? gsim_bf16_to_f32(rnd_bf16(f)) : (float)(i % 5);
}

static void bufs_free(struct bufs *x)
{
	free(x->a);
	free(x->b);
	free(x->c);
	free(x->d);
	free(x->ref);
}

/* D on the MME on one BF16 path; returns the native tile count. */
static uint64_t mme_gemm(const struct shape *s, struct bufs *x, enum gsim_bf16_path path,
			 uint64_t *fp32)
{
	struct gsim_mme mme;
	struct gsim_mme_gemm g = {
		.m = s->m, .n = s->n, .k = s->k, .batch = s->batch,
		.trans_a = s->ta, .trans_b = s->tb, .alpha = s->alpha, .beta = s->beta,
		.read_ab = s->alpha != 0, .read_c = s->beta != 0,
	};
	uint64_t native_tiles;

	operand(&g.a, x->a, 0x1000000, s->ta ? s->k : s->m, s->ta ? s->m : s->k,
		(uint64_t)s->m * s->k, GAUDISIM_DTYPE_BF16);
	operand(&g.b, x->b, 0x20000000, s->tb ? s->n : s->k, s->tb ? s->k : s->n,
		(uint64_t)s->k * s->n, GAUDISIM_DTYPE_BF16);
	operand(&g.c, x->c, 0x40000000, s->m, s->n, (uint64_t)s->m * s->n, GAUDISIM_DTYPE_FP32);
	operand(&g.d, x->d, 0x60000000, s->m, s->n, (uint64_t)s->m * s->n, GAUDISIM_DTYPE_FP32);
	gsim_mme_init(&mme);
	ck_assert(gsim_mme_bf16_use(path));
	ck_assert_int_eq(gsim_mme_run(&mme, &g), GAUDISIM_MME_ERR_NONE);
	gsim_mme_bf16_set_native(true);
	native_tiles = mme.bf16_native_tiles;
	*fp32 = mme.bf16_fp32_tiles;
	gsim_mme_fini(&mme);
	return native_tiles;
}

static void reference(const struct shape *s, struct bufs *x)
{
	struct gsim_ref_gemm r = {
		.m = s->m, .n = s->n, .k = s->k, .batch = s->batch,
		.dtype_in = GAUDISIM_DTYPE_BF16, .dtype_out = GAUDISIM_DTYPE_FP32,
		.trans_a = s->ta, .trans_b = s->tb, .alpha = s->alpha, .beta = s->beta,
		.a = x->a, .b = x->b, .c = x->c, .d = x->ref,
		.lda = s->ta ? s->m : s->k, .ldb = s->tb ? s->k : s->n, .ldc = s->n, .ldd = s->n,
		.stride_a = (uint64_t)s->m * s->k, .stride_b = (uint64_t)s->k * s->n,
		.stride_c = (uint64_t)s->m * s->n, .stride_d = (uint64_t)s->m * s->n,
	};

	ck_assert_int_eq(gsim_ref_gemm(&r), 0);
}

/* Every element of D within the bound of the exact value (via the reference). */
static void check_bound(const struct shape *s, const struct bufs *x)
{
	uint32_t bt, i, j, k;

	for (bt = 0; bt < s->batch; bt++) {
		const uint16_t *a = x->a + (uint64_t)bt * s->m * s->k;
		const uint16_t *b = x->b + (uint64_t)bt * s->k * s->n;

		for (i = 0; i < s->m; i++) {
			for (j = 0; j < s->n; j++) {
				uint64_t o = ((uint64_t)bt * s->m + i) * s->n + j;
				double sum = 0, bound;

				for (k = 0; k < s->k; k++) {
					float av = gsim_bf16_to_f32(s->ta ? a[(uint64_t)k * s->m + i]
									  : a[(uint64_t)i * s->k + k]);
					float bv = gsim_bf16_to_f32(s->tb ? b[(uint64_t)j * s->k + k]
									  : b[(uint64_t)k * s->n + j]);

					sum += fabs((double)av * bv);
				}
				bound = 2 * gsim_ref_gemm_bound(s->k, s->alpha, sum,
								fabs((double)s->beta * x->c[o]));
				if (fabs((double)x->d[o] - x->ref[o]) > bound)
					ck_abort_msg("D[%u][%u][%u] = %.9g, reference %.9g, bound %.3g",
						     bt, i, j, (double)x->d[o], (double)x->ref[o], bound);
			}
		}
	}
}

static const struct shape shapes[] = {
	{ 8, 32, 2, 1, false, false, 1, 0 },
	{ 1, 1, 1, 1, false, false, 1, 0 },
	{ 13, 45, 7, 2, false, false, 1, 0 },
	{ 64, 96, 513, 1, true, false, 0.5f, 2 },
	{ 33, 70, 129, 3, false, true, -1.5f, 1 },
	{ 100, 17, 1031, 1, true, true, 1, 0.25f },
	{ 1100, 1050, 40, 1, false, false, 1, 0 },	/* several tiles */
};

static const char *const path_name[] = { "fp32", "avx512-bf16", "amx-bf16" };

/* The best path the host runs is the default; GSIM_MME_BF16 names another. */
START_TEST(test_bf16_path_reported)
{
	bool avx512, amx;
	int p;

	__builtin_cpu_init();
	avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
	amx = gsim_mme_bf16_path_runs(GSIM_BF16_PATH_AMX);
	ck_assert_int_eq(gsim_mme_bf16_path_runs(GSIM_BF16_PATH_AVX512), avx512);
	ck_assert(gsim_mme_bf16_path_runs(GSIM_BF16_PATH_FP32));
	ck_assert_int_eq(unsetenv("GSIM_MME_BF16"), 0);
	gsim_mme_bf16_set_native(true);
	ck_assert_str_eq(gsim_mme_bf16_path(), amx ? "amx-bf16" : avx512 ? "avx512-bf16" : "fp32");
	ck_assert_int_eq(gsim_mme_bf16_native(), amx || avx512);
	for (p = GSIM_BF16_PATH_FP32; p <= GSIM_BF16_PATH_AMX; p++) {
		bool runs = gsim_mme_bf16_path_runs((enum gsim_bf16_path)p);

		/* named by the variable: taken where it runs, else the next one down */
		ck_assert_int_eq(setenv("GSIM_MME_BF16", path_name[p], 1), 0);
		gsim_mme_bf16_set_native(true);
		if (runs)
			ck_assert_str_eq(gsim_mme_bf16_path(), path_name[p]);
		else
			ck_assert_str_ne(gsim_mme_bf16_path(), path_name[p]);
		ck_assert_int_eq(gsim_mme_bf16_use((enum gsim_bf16_path)p), runs);
	}
	ck_assert_int_eq(setenv("GSIM_MME_BF16", "avx9000", 1), 0);
	gsim_mme_bf16_set_native(true);
	ck_assert_str_eq(gsim_mme_bf16_path(), amx ? "amx-bf16" : avx512 ? "avx512-bf16" : "fp32");
	ck_assert_int_eq(unsetenv("GSIM_MME_BF16"), 0);
	gsim_mme_bf16_set_native(false);
	ck_assert(!gsim_mme_bf16_native());
	ck_assert_str_eq(gsim_mme_bf16_path(), "fp32");
	gsim_mme_bf16_set_native(true);
}
END_TEST

/* Every path this host runs, within the bound; the native ones count native tiles. */
START_TEST(test_bf16_within_bound_every_path)
{
	const struct shape *s = &shapes[_i];
	uint64_t native, fp32;
	struct bufs x;
	int p;

	bufs_new(&x, s, FILL_FRAC);
	reference(s, &x);
	for (p = GSIM_BF16_PATH_FP32; p <= GSIM_BF16_PATH_AMX; p++) {
		if (!gsim_mme_bf16_path_runs((enum gsim_bf16_path)p))
			continue;
		native = mme_gemm(s, &x, (enum gsim_bf16_path)p, &fp32);
		ck_assert_uint_eq(native > 0, p != GSIM_BF16_PATH_FP32);
		ck_assert_uint_eq(fp32 > 0, p == GSIM_BF16_PATH_FP32);
		check_bound(s, &x);
	}
	bufs_free(&x);
}
END_TEST

/* Integer data: every path gives the exact sums, so the same bits. */
START_TEST(test_bf16_exact_on_integers)
{
	const struct shape *s = &shapes[_i];
	struct bufs x;
	uint64_t fp32;
	int p;

	bufs_new(&x, s, FILL_INT);
	reference(s, &x);
	for (p = GSIM_BF16_PATH_FP32; p <= GSIM_BF16_PATH_AMX; p++) {
		if (!gsim_mme_bf16_path_runs((enum gsim_bf16_path)p))
			continue;
		memset(x.d, 0xff, 4 * x.nc);
		mme_gemm(s, &x, (enum gsim_bf16_path)p, &fp32);
		ck_assert_msg(!memcmp(x.d, x.ref, 4 * x.nc), "path %s", path_name[p]);
	}
	bufs_free(&x);
}
END_TEST

START_TEST(test_bf16_small_inputs_fall_back)
{
	const struct shape s = { 40, 50, 60, 1, false, false, 1, 0 };
	uint64_t native, fp32;
	struct bufs x;

	bufs_new(&x, &s, FILL_TINY);
	reference(&s, &x);
	for (int p = GSIM_BF16_PATH_AVX512; p <= GSIM_BF16_PATH_AMX; p++) {
		if (!gsim_mme_bf16_path_runs((enum gsim_bf16_path)p))
			continue;
		native = mme_gemm(&s, &x, (enum gsim_bf16_path)p, &fp32);
		ck_assert_uint_eq(native, 0);
		ck_assert_uint_eq(fp32, 1);
	}
	native = mme_gemm(&s, &x, GSIM_BF16_PATH_FP32, &fp32);
	ck_assert_uint_eq(native, 0);
	ck_assert_uint_eq(fp32, 1);
	/* The FP32 path keeps denormal products: within the bound, absolute term included. */
	check_bound(&s, &x);
	bufs_free(&x);
}
END_TEST

Suite *mme_bf16_suite(void)
{
	Suite *s = suite_create("mme_bf16");
	TCase *tc = tcase_create("paths");
	const int n = (int)(sizeof(shapes) / sizeof(shapes[0]));

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_bf16_path_reported);
	tcase_add_loop_test(tc, test_bf16_within_bound_every_path, 0, n);
	tcase_add_loop_test(tc, test_bf16_exact_on_integers, 0, n);
	tcase_add_test(tc, test_bf16_small_inputs_fall_back);
	suite_add_tcase(s, tc);
	return s;
}
