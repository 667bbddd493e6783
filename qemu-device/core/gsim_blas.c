/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: OpenBLAS at one thread for the engines' products
 * below GSIM_BLAS_SHARED_MACS, at the host's threads above (gsim_blas.h
 * says why). OpenBLAS's thread count is process-wide, so a read-write
 * lock keeps the two apart: one-thread products run side by side under
 * the read lock, a larger one alone under the write lock, raising the
 * count for itself and lowering it again.
 */
#include "gsim_blas.h"

#ifdef GSIM_HAVE_OPENBLAS
#include <cblas.h>
#include <pthread.h>

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static pthread_rwlock_t blas_lock = PTHREAD_RWLOCK_INITIALIZER;
static int blas_host_threads;

static void blas_take_threads(void)
{
	blas_host_threads = openblas_get_num_threads();
	openblas_set_num_threads(1);
}

static void call(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k, float alpha,
		 const float *a, uint64_t lda, const float *b, uint64_t ldb, float beta,
		 float *c, uint64_t ldc)
{
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
		    (blasint)m, (blasint)n, (blasint)k, alpha, a, (blasint)lda, b, (blasint)ldb,
		    beta, c, (blasint)ldc);
}

void gsim_blas_sgemm_host(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k, float alpha,
			  const float *a, uint64_t lda, const float *b, uint64_t ldb, float beta,
			  float *c, uint64_t ldc)
{
	pthread_once(&blas_once, blas_take_threads);
	pthread_rwlock_wrlock(&blas_lock);
	openblas_set_num_threads(blas_host_threads);
	call(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
	openblas_set_num_threads(1);
	pthread_rwlock_unlock(&blas_lock);
}

const char *gsim_blas_kernels(void)
{
	return openblas_get_corename();
}

void gsim_blas_sgemm(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k, float alpha,
		     const float *a, uint64_t lda, const float *b, uint64_t ldb, float beta,
		     float *c, uint64_t ldc)
{
	if ((uint64_t)m * n * k >= GSIM_BLAS_SHARED_MACS) {
		gsim_blas_sgemm_host(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
		return;
	}
	pthread_once(&blas_once, blas_take_threads);
	pthread_rwlock_rdlock(&blas_lock);
	call(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
	pthread_rwlock_unlock(&blas_lock);
}
#endif /* GSIM_HAVE_OPENBLAS */
