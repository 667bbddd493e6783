// SPDX-License-Identifier: MIT
/*
 * MME benchmark on the host: the device core's GEMM engine, programmed
 * through its registers, against OpenBLAS's cblas_sgemm on the same
 * buffers (in the device's HBM) with the same thread count.
 *
 *   FP32: D = A @ B, 1024^3 by default, FP32 in and out
 *   BF16: the same shapes with BF16 A and B, FP32 out
 *
 * Runs are interleaved (MME, sgemm, MME BF16, ...) and the best of each is
 * kept, so drift of the machine's speed hits all three alike.
 *
 * Usage: mme-bench [size] [repetitions] [threads]
 * Prints: mme_backend=... threads=N size=S
 *         mme_fp32_gflops=X sgemm_gflops=Y ratio=Z
 *         mme_bf16_gflops=X ratio_to_sgemm=Z
 * Build: see scripts/bench.sh (needs -DGSIM_HAVE_OPENBLAS and the openblas
 * pkg-config flags for the core as well).
 */
#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsim_bf16.h"
#include "gsim_mme.h"

#define BENCH_HBM_SIZE	(2ull << 30)

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_uint(const char *text, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(text, &end, 0);
	return (errno || *end || *out == 0) ? -1 : 0;
}

/* The core's host callbacks: this benchmark never touches host memory. */
static int no_dma_read(void *opaque, uint64_t bus, void *buf, uint64_t len)
{
	(void)opaque, (void)bus, (void)buf, (void)len;
	return -1;
}

static int no_dma_write(void *opaque, uint64_t bus, const void *buf, uint64_t len)
{
	(void)opaque, (void)bus, (void)buf, (void)len;
	return -1;
}

static void no_msix(void *opaque, unsigned int vector)
{
	(void)opaque, (void)vector;
}

static void print_error(void *opaque, const char *msg)
{
	(void)opaque;
	fprintf(stderr, "mme-bench: device: %s\n", msg);
}

static uint64_t clock_ns(void *opaque)
{
	(void)opaque;
	return (uint64_t)(now_seconds() * 1e9);
}

static const struct gsim_host_ops ops = {
	.dma_read = no_dma_read,
	.dma_write = no_dma_write,
	.msix_notify = no_msix,
	.guest_error = print_error,
	.clock_ns = clock_ns,
};

static void wreg(struct gsim_mme *mme, uint32_t off, uint32_t value)
{
	bool commit;

	if (gsim_mme_reg_write(mme, off, value, &commit) != GSIM_REG_OK || commit) {
		fprintf(stderr, "mme-bench: register 0x%x refused\n", off);
		exit(1);
	}
}

static void wreg64(struct gsim_mme *mme, uint32_t lo, uint64_t value)
{
	wreg(mme, lo, (uint32_t)value);
	wreg(mme, lo + 4, (uint32_t)(value >> 32));
}

/* Square GEMM D = A @ B with dense operands. */
static void program(struct gsim_mme *mme, uint32_t n, unsigned int in, uint64_t a,
		    uint64_t b, uint64_t d)
{
	wreg64(mme, GAUDISIM_MME_A_ADDR_LO, a);
	wreg64(mme, GAUDISIM_MME_B_ADDR_LO, b);
	wreg64(mme, GAUDISIM_MME_C_ADDR_LO, 0);
	wreg64(mme, GAUDISIM_MME_D_ADDR_LO, d);
	wreg(mme, GAUDISIM_MME_M, n);
	wreg(mme, GAUDISIM_MME_N, n);
	wreg(mme, GAUDISIM_MME_K, n);
	wreg(mme, GAUDISIM_MME_BATCH, 1);
	wreg(mme, GAUDISIM_MME_LDA, n);
	wreg(mme, GAUDISIM_MME_LDB, n);
	wreg(mme, GAUDISIM_MME_LDC, n);
	wreg(mme, GAUDISIM_MME_LDD, n);
	wreg(mme, GAUDISIM_MME_DTYPE, GAUDISIM_MME_DTYPE_VALUE(in, GAUDISIM_DTYPE_FP32));
	wreg(mme, GAUDISIM_MME_CTRL, 0);
	wreg(mme, GAUDISIM_MME_ALPHA, gsim_f32_bits(1.0f));
	wreg(mme, GAUDISIM_MME_BETA, 0);
}

/* COMMIT and launch synchronously, as the engine framework does. */
static double run_mme(struct gsim_core *core, struct gsim_mme *mme)
{
	double t0 = now_seconds();
	bool commit;
	int err;

	gsim_mme_reg_write(mme, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO, &commit);
	err = commit ? gsim_mme_execute(core, mme, &mme->regs) : -1;
	if (err) {
		fprintf(stderr, "mme-bench: GEMM failed: %s\n", gsim_mme_err_name(err));
		exit(1);
	}
	return now_seconds() - t0;
}

static double run_sgemm(uint32_t n, const float *a, const float *b, float *d)
{
	double t0 = now_seconds();

	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)n, (blasint)n,
		    (blasint)n, 1.0f, a, (blasint)n, b, (blasint)n, 0.0f, d, (blasint)n);
	return now_seconds() - t0;
}

static double max_rel_diff(const float *x, const float *y, size_t count)
{
	double worst = 0;
	size_t i;

	for (i = 0; i < count; i++) {
		double den = fabs((double)y[i]) > 1e-3 ? fabs((double)y[i]) : 1e-3;
		double r = fabs((double)x[i] - (double)y[i]) / den;

		if (r > worst || isnan(r))
			worst = isnan(r) ? INFINITY : r;
	}
	return worst;
}

int main(int argc, char **argv)
{
	struct gsim_core_config cfg = { .hbm_size = BENCH_HBM_SIZE, .hbm_bar_size = 1u << 28 };
	unsigned long size = 1024, reps = 15, threads = 0;
	double best_mme = 1e30, best_sgemm = 1e30, best_bf16 = 1e30, flops;
	uint64_t a32, b32, a16, b16, d_mme, d_ref, d_bf16, elems;
	struct gsim_mme mme;
	struct gsim_core *core;
	const char *err = NULL;
	uint8_t *hbm;
	unsigned long r;
	size_t i;

	if ((argc > 1 && parse_uint(argv[1], &size)) || (argc > 2 && parse_uint(argv[2], &reps)) ||
	    (argc > 3 && parse_uint(argv[3], &threads)) || argc > 4 || size > 8192) {
		fprintf(stderr, "usage: mme-bench [size<=8192] [repetitions] [threads]\n");
		return 2;
	}
	if (threads)
		openblas_set_num_threads((int)threads);
	threads = (unsigned long)openblas_get_num_threads();

	core = gsim_core_new(&cfg, &ops, NULL, &err);
	if (!core) {
		fprintf(stderr, "mme-bench: %s\n", err ? err : "cannot create the core");
		return 1;
	}
	gsim_mme_init(&mme);
	hbm = gsim_core_hbm(core);

	/* Operands in user HBM, 2 MiB aligned like the driver's allocations. */
	elems = (uint64_t)size * size;
	a32 = GAUDISIM_HBM_USER_BASE;
	b32 = a32 + ((elems * 4 + (2u << 20) - 1) & ~((2ull << 20) - 1));
	a16 = b32 + (b32 - a32);
	b16 = a16 + (b32 - a32);
	d_mme = b16 + (b32 - a32);
	d_ref = d_mme + (b32 - a32);
	d_bf16 = d_ref + (b32 - a32);
	srand(1);
	for (i = 0; i < elems; i++) {
		/* BF16-representable values, so both GEMMs compute the same product. */
		float va = gsim_bf16_to_f32(gsim_f32_to_bf16((float)rand() / RAND_MAX - 0.5f));
		float vb = gsim_bf16_to_f32(gsim_f32_to_bf16((float)rand() / RAND_MAX - 0.5f));
		uint16_t ha = gsim_f32_to_bf16(va), hb = gsim_f32_to_bf16(vb);

		memcpy(hbm + a32 + 4 * i, &va, 4);
		memcpy(hbm + b32 + 4 * i, &vb, 4);
		memcpy(hbm + a16 + 2 * i, &ha, 2);
		memcpy(hbm + b16 + 2 * i, &hb, 2);
	}
	memset(hbm + d_mme, 0, elems * 4);
	memset(hbm + d_ref, 0, elems * 4);
	memset(hbm + d_bf16, 0, elems * 4);

	for (r = 0; r <= reps; r++) {	/* run 0 warms up and is not counted */
		double t;

		program(&mme, (uint32_t)size, GAUDISIM_DTYPE_FP32, a32, b32, d_mme);
		t = run_mme(core, &mme);
		if (r && t < best_mme)
			best_mme = t;
		t = run_sgemm((uint32_t)size, (const float *)(hbm + a32),
			      (const float *)(hbm + b32), (float *)(hbm + d_ref));
		if (r && t < best_sgemm)
			best_sgemm = t;
		program(&mme, (uint32_t)size, GAUDISIM_DTYPE_BF16, a16, b16, d_bf16);
		t = run_mme(core, &mme);
		if (r && t < best_bf16)
			best_bf16 = t;
	}

	flops = 2.0 * (double)size * (double)size * (double)size;
	printf("mme_backend=%s threads=%lu size=%lu reps=%lu max_rel_diff_fp32=%.3g "
	       "max_rel_diff_bf16=%.3g\n", gsim_mme_backend(), threads, size, reps,
	       max_rel_diff((float *)(hbm + d_mme), (float *)(hbm + d_ref), elems),
	       max_rel_diff((float *)(hbm + d_bf16), (float *)(hbm + d_ref), elems));
	printf("mme_fp32_gflops=%.2f sgemm_gflops=%.2f ratio=%.3f\n", flops / best_mme / 1e9,
	       flops / best_sgemm / 1e9, best_sgemm / best_mme);
	printf("mme_bf16_gflops=%.2f ratio_to_sgemm=%.3f\n", flops / best_bf16 / 1e9,
	       best_sgemm / best_bf16);

	gsim_mme_fini(&mme);
	gsim_core_free(core);
	return 0;
}
