// SPDX-License-Identifier: MIT
/*
 * The reference product on the host's OpenBLAS threads. A core built with
 * OpenBLAS keeps OpenBLAS at one thread between its own products
 * (gsim_blas.h), so the reference asks it for the host's; the portable
 * core leaves OpenBLAS alone.
 */
#include <cblas.h>

#include "bench_ref.h"
#include "gsim_blas.h"

void bench_ref_sgemm(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k, const float *a,
		     uint64_t lda, const float *b, uint64_t ldb, float *c, uint64_t ldc)
{
#ifdef GSIM_HAVE_OPENBLAS
	gsim_blas_sgemm_host(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
#else
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
		    (blasint)m, (blasint)n, (blasint)k, 1.0f, a, (blasint)lda, b, (blasint)ldb,
		    0.0f, c, (blasint)ldc);
#endif
}
