/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: how the engines use OpenBLAS (cores built with
 * GSIM_HAVE_OPENBLAS only).
 *
 * A product below GSIM_BLAS_SHARED_MACS multiply-adds runs on the calling
 * engine worker alone: OpenBLAS at one thread. Its bits then follow from
 * its shape (and OpenBLAS's kernel for the CPU), not from how many cores
 * the host has, and no OpenBLAS helper thread spins in sched_yield() for
 * it on the cores the other engines' workers and the vCPUs need: on a
 * 2-core host that spinning took a quarter of QEMU's time on LeNet, and
 * the seed model's step ran 1.4x faster without it. A larger product runs
 * on OpenBLAS's threads (the host's cores), one such product at a time.
 *
 * The core owns OpenBLAS's thread count from the first call on: it keeps
 * it at one between the larger products. Code sharing the process (a
 * benchmark's reference) takes the host's threads through
 * gsim_blas_sgemm_host().
 */
#ifndef GSIM_BLAS_H
#define GSIM_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#define GSIM_BLAS_SHARED_MACS	(1ull << 26)

/* C = alpha op(A) op(B) + beta C, row-major FP32, by the rule above. */
void gsim_blas_sgemm(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k, float alpha,
		     const float *a, uint64_t lda, const float *b, uint64_t ldb, float beta,
		     float *c, uint64_t ldc);
/*
 * OpenBLAS's name for the kernel set it runs on this CPU ("Haswell",
 * "SkylakeX", "Cooperlake", ...): chosen when the library loads, from the
 * CPU or from OPENBLAS_CORETYPE in the environment, so it can differ from
 * the ISA the TPC interpreter takes.
 */
const char *gsim_blas_kernels(void);
/* The same on all of OpenBLAS's threads, whatever its size. */
void gsim_blas_sgemm_host(bool ta, bool tb, uint32_t m, uint32_t n, uint32_t k, float alpha,
			  const float *a, uint64_t lda, const float *b, uint64_t ldb, float beta,
			  float *c, uint64_t ldc);

#endif /* GSIM_BLAS_H */
