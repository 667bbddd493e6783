/* SPDX-License-Identifier: MIT */
/*
 * Reference ops of the TPC, in plain C, written apart from the
 * interpreter (gsim_tpc_exec.c) so the tests compare two implementations
 * of docs/tpc-isa.md:
 *   - one lane of every VPU/SPU operation, on register-format values
 *     (32-bit lanes: FP32 bits for FP32/BF16, sign- or zero-extended
 *     integers for the integer types);
 *   - the memory <-> register conversions of loads and stores;
 *   - the tensor operations of the kernels in runtime/kernels.
 * Like gsim_ref.c it depends only on the C library and the contract
 * headers (link with -lm).
 */
#ifndef GSIM_REF_TPC_H
#define GSIM_REF_TPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/gaudisim_hw_tpc.h"

/* ---- one lane ---------------------------------------------------------- */

/*
 * d = op(a, b) for the arithmetic, logic and special-function opcodes
 * (MOV .. NEG, EXP .. TANH); c is the old destination (MAC). exp, log and
 * tanh return the C library's expf/logf/tanhf (the ISA allows them 1 ulp
 * of error; gsim_ref_tpc_exact() tells whether an opcode is exact).
 */
uint32_t gsim_ref_tpc_lane(unsigned int opc, unsigned int dt, uint32_t a, uint32_t b,
			   uint32_t c);
bool gsim_ref_tpc_exact(unsigned int opc);
bool gsim_ref_tpc_cmp(unsigned int cond, unsigned int dt, uint32_t a, uint32_t b);
uint32_t gsim_ref_tpc_cvt(unsigned int src, unsigned int dst, unsigned int rm, uint32_t a);
/* RSUM/RMAX/RMIN over 64 lanes in the ISA's pairwise order. */
uint32_t gsim_ref_tpc_reduce(unsigned int opc, unsigned int dt, const uint32_t *lanes);

/* An element of dtype at p as a register value, and back (store rules). */
uint32_t gsim_ref_tpc_load(unsigned int dt, const void *p);
void gsim_ref_tpc_store(unsigned int dt, void *p, uint32_t v);

/* ---- tensors (rows of n elements, ld* elements apart) ---------------------- */

void gsim_ref_tpc_add_f32(const float *a, const float *b, float *out, size_t rows, size_t n,
			  size_t lda, size_t ldb, size_t ldo);
void gsim_ref_tpc_add_bf16(const uint16_t *a, const uint16_t *b, uint16_t *out, size_t rows,
			   size_t n, size_t lda, size_t ldb, size_t ldo);
/* relu(x) = x > 0 ? x : +0 (NaN -> +0). */
void gsim_ref_tpc_relu_f32(const float *x, float *out, size_t rows, size_t n, size_t ldx,
			   size_t ldo);
/* Row sums and softmax rows, accumulated in double (compare with a tolerance). */
void gsim_ref_tpc_reduce_sum_f32(const float *x, double *sums, size_t rows, size_t n,
				 size_t ldx);
void gsim_ref_tpc_softmax_f32(const float *x, double *out, size_t rows, size_t n, size_t ldx,
			      size_t ldo);

#endif /* GSIM_REF_TPC_H */
