/* SPDX-License-Identifier: MIT */
/* The benchmarks' independent reference: the host's OpenBLAS. */
#ifndef BENCH_REF_H
#define BENCH_REF_H

#include <stdbool.h>
#include <stdint.h>

/* OpenBLAS threads of the device's own products (gsim_blas.h), for path lines. */
#ifdef GSIM_HAVE_OPENBLAS
#define DEVICE_BLAS_THREADS	"1_below_2^26"
#else
#define DEVICE_BLAS_THREADS	"none"
#endif

/* C = op(A) op(B), row-major FP32, on the host's OpenBLAS threads. */
void bench_ref_sgemm(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k, const float *a,
		     uint64_t lda, const float *b, uint64_t ldb, float *c, uint64_t ldc);

#endif /* BENCH_REF_H */
