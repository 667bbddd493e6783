// SPDX-License-Identifier: MIT
/*
 * MME benchmark: GEMMs through the whole device path against the host's
 * OpenBLAS on the same shapes, measured in one run, interleaved.
 *
 * One round runs, in this order:
 *   device FP32   a CB on the MME queue (register writes, COMMIT, then a
 *                 sync-object increment behind an engine barrier) is
 *                 submitted through the queue's PQ; the clock stops when
 *                 the sync object says the GEMM is done
 *   sgemm         cblas_sgemm on the same FP32 operands (the reference)
 *   device BF16   the same GEMM with BF16 A and B (FP32 accumulation and
 *                 output), through the same path
 * Round 0 warms up; the medians of the others are reported:
 *   mme_fp32 ... overhead=T_device/T_sgemm    (the device's cost over the
 *                                              host library; 1.0 = none)
 *   mme_bf16 ... speedup_vs_sgemm=T_sgemm/T_device_bf16
 * The device's results are checked against the project's reference GEMM
 * (tests/ref/gsim_ref.c) on sampled rows, within the bound
 * hw/gaudisim_hw_mme.h documents; sgemm's are checked the same way.
 *
 * Built twice by the Makefile: mme-bench (the core on OpenBLAS) and
 * mme-bench-portable (the core's portable kernels; the reference is
 * OpenBLAS in both).
 *
 * Usage: mme-bench [-s SIZE] [-r ROUNDS] [-j THREADS]
 *   THREADS: the device's worker threads and OpenBLAS's threads
 *   (default: the host's online CPUs).
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_dev.h"
#include "bench_ref.h"
#include "bench_stats.h"
#include "gsim_bf16.h"
#include "gsim_mme.h"
#include "gsim_ref.h"
#include "hw/gaudisim_hw_mme.h"

#define USAGE	"usage: mme-bench [-s SIZE<=4096] [-r ROUNDS<=100] [-j THREADS<=64]\n"
#define SOB	100u
#define ROWS_CHECKED	6u

struct operands {
	uint32_t n;
	uint64_t a32, b32, a16, b16, d32, d16, dref;
};

static void program(struct bench_cb *cb, const struct operands *o, bool bf16)
{
	uint64_t a = bf16 ? o->a16 : o->a32, b = bf16 ? o->b16 : o->b32;
	uint64_t d = bf16 ? o->d16 : o->d32;
	unsigned int in = bf16 ? GAUDISIM_DTYPE_BF16 : GAUDISIM_DTYPE_FP32;

	bench_cb_reset(cb);
	bench_cb_wreg(cb, GAUDISIM_MME_A_ADDR_LO, (uint32_t)a);
	bench_cb_wreg(cb, GAUDISIM_MME_A_ADDR_HI, (uint32_t)(a >> 32));
	bench_cb_wreg(cb, GAUDISIM_MME_B_ADDR_LO, (uint32_t)b);
	bench_cb_wreg(cb, GAUDISIM_MME_B_ADDR_HI, (uint32_t)(b >> 32));
	bench_cb_wreg(cb, GAUDISIM_MME_C_ADDR_LO, 0);
	bench_cb_wreg(cb, GAUDISIM_MME_C_ADDR_HI, 0);
	bench_cb_wreg(cb, GAUDISIM_MME_D_ADDR_LO, (uint32_t)d);
	bench_cb_wreg(cb, GAUDISIM_MME_D_ADDR_HI, (uint32_t)(d >> 32));
	bench_cb_wreg(cb, GAUDISIM_MME_M, o->n);
	bench_cb_wreg(cb, GAUDISIM_MME_N, o->n);
	bench_cb_wreg(cb, GAUDISIM_MME_K, o->n);
	bench_cb_wreg(cb, GAUDISIM_MME_BATCH, 1);
	bench_cb_wreg(cb, GAUDISIM_MME_LDA, o->n);
	bench_cb_wreg(cb, GAUDISIM_MME_LDB, o->n);
	bench_cb_wreg(cb, GAUDISIM_MME_LDC, o->n);
	bench_cb_wreg(cb, GAUDISIM_MME_LDD, o->n);
	bench_cb_wreg(cb, GAUDISIM_MME_DTYPE, GAUDISIM_MME_DTYPE_VALUE(in, GAUDISIM_DTYPE_FP32));
	bench_cb_wreg(cb, GAUDISIM_MME_CTRL, 0);
	bench_cb_wreg(cb, GAUDISIM_MME_ALPHA, gsim_f32_bits(1.0f));
	bench_cb_wreg(cb, GAUDISIM_MME_BETA, 0);
	bench_cb_wreg(cb, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
	bench_cb_signal(cb, SOB);
}

/* One GEMM through the MME queue, submit to completion. */
static double run_device(struct bench_dev *d, const struct bench_cb *cb, uint32_t *signals)
{
	double t0 = bench_now();

	bench_submit(d, GAUDISIM_QUEUE_ID_MME_0, cb);
	bench_wait_sob(d, SOB, ++*signals, 600);
	return bench_now() - t0;
}


static double run_sgemm(uint32_t n, const float *a, const float *b, float *out)
{
	double t0 = bench_now();

	bench_ref_sgemm(false, false, n, n, n, a, n, b, n, out, n);
	return bench_now() - t0;
}

/*
 * Worst |got - ref| / (2 * bound) over the sampled rows, where ref is the
 * reference GEMM's row and bound the documented FP32 bound of one element:
 * both stay within bound of the exact value, so a result that differs
 * from the reference by more than twice the bound is wrong.
 */
static double check_rows(const struct operands *o, const uint8_t *hbm, bool bf16,
			 const float *got)
{
	uint32_t n = o->n, rows[ROWS_CHECKED] = { 0, 1, n / 3, n / 2, n - 2, n - 1 };
	float *ref = malloc(n * sizeof(float));
	double worst = 0;
	unsigned int r;
	uint32_t j, k;

	if (!ref) {
		fprintf(stderr, "mme-bench: out of memory\n");
		exit(1);
	}
	for (r = 0; r < ROWS_CHECKED; r++) {
		uint32_t i = rows[r];
		const uint8_t *arow = hbm + (bf16 ? o->a16 + 2ull * i * n : o->a32 + 4ull * i * n);
		struct gsim_ref_gemm g = {
			.m = 1, .n = n, .k = n, .batch = 1,
			.dtype_in = bf16 ? GAUDISIM_DTYPE_BF16 : GAUDISIM_DTYPE_FP32,
			.dtype_out = GAUDISIM_DTYPE_FP32, .alpha = 1.0f, .beta = 0.0f,
			.a = arow, .b = hbm + (bf16 ? o->b16 : o->b32), .d = ref,
			.lda = n, .ldb = n, .ldc = n, .ldd = n,
		};

		if (gsim_ref_gemm(&g)) {
			fprintf(stderr, "mme-bench: reference GEMM failed\n");
			exit(1);
		}
		for (j = 0; j < n; j++) {
			const float *a = (const float *)(hbm + o->a32) + (uint64_t)i * n;
			const float *b = (const float *)(hbm + o->b32);
			double abs_sum = 0, bound, err;

			/* The FP32 copies hold the same (BF16-exact) values. */
			for (k = 0; k < n; k++)
				abs_sum += fabs((double)a[k] * (double)b[(uint64_t)k * n + j]);
			bound = gsim_ref_gemm_bound(n, 1.0f, abs_sum, 0);
			err = fabs((double)got[(uint64_t)i * n + j] - (double)ref[j]) / (2 * bound);
			if (!(err <= worst))
				worst = isnan(err) ? INFINITY : err;
		}
	}
	free(ref);
	return worst;
}

static void fill(struct bench_dev *d, const struct operands *o)
{
	uint64_t elems = (uint64_t)o->n * o->n, i;
	float *a32 = (float *)bench_hbm(d, o->a32, elems * 4);
	float *b32 = (float *)bench_hbm(d, o->b32, elems * 4);
	uint16_t *a16 = (uint16_t *)bench_hbm(d, o->a16, elems * 2);
	uint16_t *b16 = (uint16_t *)bench_hbm(d, o->b16, elems * 2);
	uint32_t x = 1;

	/* BF16-representable values, so the FP32 and BF16 GEMMs multiply
	 * the same numbers and one reference serves both. */
	for (i = 0; i < elems; i++) {
		x = x * 1664525u + 1013904223u;
		a16[i] = gsim_f32_to_bf16((float)(x >> 8) / (float)(1u << 24) - 0.5f);
		x = x * 1664525u + 1013904223u;
		b16[i] = gsim_f32_to_bf16((float)(x >> 8) / (float)(1u << 24) - 0.5f);
		a32[i] = gsim_bf16_to_f32(a16[i]);
		b32[i] = gsim_bf16_to_f32(b16[i]);
	}
	memset(bench_hbm(d, o->d32, elems * 4), 0, elems * 4);
	memset(bench_hbm(d, o->d16, elems * 4), 0, elems * 4);
	memset(bench_hbm(d, o->dref, elems * 4), 0, elems * 4);
}

int main(int argc, char **argv)
{
	unsigned long size = 1024, rounds = 7, threads = (unsigned long)sysconf(_SC_NPROCESSORS_ONLN);
	double *t32, *tref, *t16, m32, mref, m16, flops, e32, eref, e16;
	struct operands o;
	struct bench_dev *d;
	struct bench_cb *cb32, *cb16;
	uint32_t signals = 0;
	uint64_t bytes32;
	uint8_t *hbm;
	unsigned long r;
	int c;

	while ((c = getopt(argc, argv, "s:r:j:")) != -1) {
		if (c == 's')
			size = bench_arg(optarg, 4096, USAGE);
		else if (c == 'r')
			rounds = bench_arg(optarg, 100, USAGE);
		else if (c == 'j')
			threads = bench_arg(optarg, 64, USAGE);
		else
			return fprintf(stderr, USAGE), 2;
	}
	if (optind != argc || size < 8 || threads < 1)
		return fprintf(stderr, USAGE), 2;
	openblas_set_num_threads((int)threads);

	o.n = (uint32_t)size;
	bytes32 = ((uint64_t)size * size * 4 + (2u << 20) - 1) & ~((2ull << 20) - 1);
	o.a32 = BENCH_DATA_BASE;
	o.b32 = o.a32 + bytes32;
	o.a16 = o.b32 + bytes32;
	o.b16 = o.a16 + bytes32;
	o.d32 = o.b16 + bytes32;
	o.d16 = o.d32 + bytes32;
	o.dref = o.d16 + bytes32;
	d = bench_dev_new(((o.dref + bytes32) + (1ull << 30) - 1) & ~((1ull << 30) - 1),
			  (unsigned int)threads);
	hbm = bench_hbm(d, 0, o.dref + bytes32);
	fill(d, &o);

	t32 = calloc(rounds, sizeof(double));
	tref = calloc(rounds, sizeof(double));
	t16 = calloc(rounds, sizeof(double));
	cb32 = malloc(sizeof(*cb32));
	cb16 = malloc(sizeof(*cb16));
	if (!t32 || !tref || !t16 || !cb32 || !cb16)
		return fprintf(stderr, "mme-bench: out of memory\n"), 1;
	program(cb32, &o, false);
	program(cb16, &o, true);
	bench_sob_clear(d, SOB);

	for (r = 0; r <= rounds; r++) {	/* round 0 warms up */
		double a = run_device(d, cb32, &signals);
		double b = run_sgemm(o.n, (const float *)(hbm + o.a32), (const float *)(hbm + o.b32),
				     (float *)(hbm + o.dref));
		double e = run_device(d, cb16, &signals);

		if (r) {
			t32[r - 1] = a;
			tref[r - 1] = b;
			t16[r - 1] = e;
		}
	}
	m32 = bench_median(t32, rounds);
	mref = bench_median(tref, rounds);
	m16 = bench_median(t16, rounds);
	e32 = check_rows(&o, hbm, false, (const float *)(hbm + o.d32));
	e16 = check_rows(&o, hbm, true, (const float *)(hbm + o.d16));
	eref = check_rows(&o, hbm, false, (const float *)(hbm + o.dref));
	flops = 2.0 * (double)size * (double)size * (double)size;

	printf("mme: backend=%s bf16_path=%s openblas_core=%s cpu_bf16=%s cpu_amx_bf16=%s "
	       "core_isa=%s device_threads=%u device_blas_threads=%s ref_blas_threads=%d size=%lu "
	       "rounds=%lu\n",
	       gsim_mme_backend(), gsim_mme_bf16_path(), openblas_get_corename(),
	       bench_cpu_has_bf16() ? "yes" : "no",
	       gsim_mme_bf16_path_runs(GSIM_BF16_PATH_AMX) ? "yes" : "no", bench_build_isa(),
	       gsim_core_threads(bench_core(d)), DEVICE_BLAS_THREADS, (int)threads, size, rounds);
	printf("mme_fp32: device_ms=%.2f sgemm_ms=%.2f device_gflops=%.1f sgemm_gflops=%.1f "
	       "overhead=%.3f\n", m32 * 1e3, mref * 1e3, flops / m32 / 1e9, flops / mref / 1e9,
	       m32 / mref);
	/* The BF16 goal applies where the CPU has AVX512-BF16 or AMX-BF16. */
	printf("mme_bf16: device_ms=%.2f sgemm_fp32_ms=%.2f device_gflops=%.1f "
	       "speedup_vs_sgemm=%.3f goal>=1.8%s\n", m16 * 1e3, mref * 1e3, flops / m16 / 1e9,
	       mref / m16,
	       bench_cpu_has_bf16() || gsim_mme_bf16_path_runs(GSIM_BF16_PATH_AMX) ? "" :
	       " (needs AVX512-BF16 or AMX-BF16)");
	/* Which kernel the BF16 tiles really ran on, as the engine counted them. */
	printf("mme_bf16_tiles: native=%llu fp32=%llu\n",
	       (unsigned long long)bench_core(d)->mme[0]->bf16_native_tiles,
	       (unsigned long long)bench_core(d)->mme[0]->bf16_fp32_tiles);
	printf("mme_check: rows=%u worst_err_over_2bound fp32=%.3g bf16=%.3g sgemm=%.3g\n",
	       ROWS_CHECKED, e32, e16, eref);
	if (!(e32 <= 1) || !(e16 <= 1) || !(eref <= 1)) {
		fprintf(stderr, "mme-bench: a result is outside the documented bound\n");
		return 1;
	}
	free(t32);
	free(tref);
	free(t16);
	free(cb32);
	free(cb16);
	bench_dev_free(d);
	return 0;
}
