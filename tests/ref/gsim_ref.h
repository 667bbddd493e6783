/* SPDX-License-Identifier: MIT */
/*
 * Reference numeric ops: the one definition of what the engines compute,
 * in plain loops, used by the unit tests and by golden checks. These
 * functions read and write plain host buffers holding device data
 * (little-endian, like HBM); they know nothing about the device.
 *
 * This file depends only on the C library and the dtype contract, so any
 * test program can compile gsim_ref.c on its own (link with -lm).
 */
#ifndef GSIM_REF_H
#define GSIM_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/gaudisim_hw_dtypes.h"

/*
 * GEMM / batched GEMM with the MME's semantics (see hw/gaudisim_hw_mme.h):
 *	D[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b]
 * Row-major; leading dimensions and batch strides in elements; A and B
 * have dtype_in, C and D dtype_out (GAUDISIM_DTYPE_FP32 or _BF16).
 *
 * Fixed evaluation order, per output element:
 *	acc = +0.0f
 *	for k = 0 .. K-1 (ascending): acc = fmaf(op(A)[i][k], op(B)[k][j], acc)
 *	alpha == 0:	v = beta == 0 ? +0.0f : beta * c	(A, B not read)
 *	else:		t = alpha * acc
 *			v = beta == 0 ? t : fmaf(beta, c, t)	(C read only if beta != 0)
 *	D = v, or bf16 round-to-nearest-even(v) for BF16 output.
 * BF16 inputs are widened exactly, so their products are exact and fused
 * and unfused accumulation agree. Batches run in order; a batch writes D
 * only after reading all of its inputs (any overlap of D with A, B, C is
 * well defined).
 */
struct gsim_ref_gemm {
	uint32_t m, n, k, batch;
	unsigned int dtype_in, dtype_out;
	bool trans_a, trans_b;
	float alpha, beta;
	const void *a, *b, *c;
	void *d;
	uint64_t lda, ldb, ldc, ldd;
	uint64_t stride_a, stride_b, stride_c, stride_d;
};

/* 0 on success; -1 on an unsupported dtype, a zero dimension or no memory. */
int gsim_ref_gemm(const struct gsim_ref_gemm *g);

/*
 * The documented error bound of an FP32 GEMM element computed in any
 * summation order (the MME's bound, hw/gaudisim_hw_mme.h), in double:
 *	g(K + 3) * (|alpha| * abs_sum + |beta * c|) + (K + 3) * 2^-149 * (1 + |alpha|)
 * with abs_sum = sum_k |op(A)[i][k] * op(B)[k][j]| and g(n) = n u / (1 - n u),
 * u = 2^-24. Both the reference and the MME stay within it of the exact
 * value.
 */
double gsim_ref_gemm_bound(uint32_t k, float alpha, double abs_sum, double abs_beta_c);

#endif /* GSIM_REF_H */
