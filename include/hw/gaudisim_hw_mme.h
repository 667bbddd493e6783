/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: the MME (matrix multiplication engine).
 *
 * gaudisim has Gaudi's two master MMEs, each with its QMAN: MME 0 (queues
 * 33..36) and MME 1 (queues 37..40), alike and independent. Each computes
 * a GEMM or a batched GEMM (below), or a 2-D convolution
 * (its forward pass or either gradient: the convolution modes at the end
 * of this file)
 *
 *	D[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b]	b = 0 .. BATCH-1
 *
 * with op(A) an M x K matrix, op(B) K x N, C and D M x N, FP32 or BF16
 * inputs, FP32 accumulation and FP32 or BF16 output. It is programmed like
 * the other engines: a CB on one of the MME's queues writes the
 * configuration registers below (WREG_32), then writes COMMIT, which
 * launches the GEMM. Status, counters and the completion message are the
 * registers every engine has (gaudisim_hw_regs.h, GAUDISIM_ENG_*):
 * GAUDISIM_ENG_STATUS shows BUSY while the GEMM runs and, after a refused
 * GEMM, ERR with the GAUDISIM_MME_ERR_* code in [15:8];
 * GAUDISIM_ENG_LAUNCH_CNT / _ERR_CNT count launches and refusals; with
 * WR_COMP_EN set, the MME writes WR_COMP_WDATA to WR_COMP_ADDR when a GEMM
 * ends (after a refusal too). A packet with the engine barrier bit waits
 * until the MME is idle. The configuration must not change between COMMIT
 * and the end of the GEMM.
 *
 * Register offsets are relative to an MME's engine block,
 * GAUDISIM_MME_BLOCK (MME 0) or GAUDISIM_MME1_BLOCK (MME 1): the
 * MME's own registers below, the common engine registers at
 * GAUDISIM_ENG_COMMON_BASE, the MME's QMAN at GAUDISIM_QM_OFFSET. Every
 * register is 32 bits; 64-bit values are split into LO (bits 31:0) and HI
 * (bits 63:32) halves. Unknown offsets read 0 and ignore writes.
 *
 * Matrices are row-major: element (i, j) of a stored matrix X is at
 *
 *	X_ADDR + (b * X_BATCH_STRIDE + i * LDX + j) * element size
 *
 * with the leading dimension LDX and the batch stride counted in elements.
 * A is stored M x K (LDA >= K), or K x M (LDA >= M) when TRANSPOSE_A is set
 * and op(A) = A^T; likewise B is stored K x N (LDB >= N), or N x K
 * (LDB >= K) with TRANSPOSE_B. C and D are stored M x N (LDC, LDD >= N).
 * A batch stride may be 0 (every batch uses the same matrix, e.g. shared
 * weights or a broadcast C).
 *
 * Data types (DTYPE register, Gaudi's codes from gaudisim_hw_dtypes.h): A and
 * B have the input type, C and D the output type; each is FP32 or BF16.
 *
 * Numerics:
 *   - BF16 inputs are widened to FP32 exactly (a BF16 value is the upper
 *     half of an FP32 value); every product and sum is FP32.
 *   - The accumulation order over k is not fixed: the MME sums in blocks,
 *     like any tuned GEMM. Every element satisfies, with u = 2^-24 and
 *     S = sum_k |op(A)[i][k] * op(B)[k][j]|,
 *	|D_fp32 - D_exact| <= g(K + 3) * (|alpha| * S + |beta * C|)
 *				+ (K + 3) * 2^-149 * (1 + |alpha|)
 *     where g(n) = n*u / (1 - n*u), the classic bound for n roundings on
 *     any path of the summation tree (products, sums, alpha, beta), plus
 *     the underflow term. tests/ref/gsim_ref.c is the reference
 *     with a fixed order (k ascending, FMA); it satisfies the same bound.
 *   - BF16 output rounds the FP32 result to nearest, ties to even; NaN
 *     stays NaN (sign kept, quiet bit set); overflow gives infinity. So
 *     the BF16 error is the FP32 bound plus half a BF16 ulp (2^-8 relative).
 *   - The sign of an exact zero result is unspecified (+0 or -0, e.g.
 *     alpha < 0 times a zero sum): compare results as values.
 *   - alpha == 0: A and B are not read (their values, even NaN, do not
 *     matter); beta == 0: C is not read and need not be valid memory.
 *
 * Memory: every operand range that is read or written must lie inside HBM
 * or inside SRAM (never CFG or host memory), and addresses must be aligned
 * to the element size. Batches run in order; within a batch, D is written
 * only after every element of that batch's A, B and C has been read, so
 * any overlap of D with the inputs (including C == D, "accumulate in
 * place") gives the same result as disjoint buffers.
 *
 * A configuration the MME cannot run (zero or oversized dimension, short
 * leading dimension, bad data type, reserved bit set, range outside
 * memory, misaligned address, 64-bit overflow of an extent) is refused
 * at launch: nothing is written, GAUDISIM_ENG_STATUS reports the error
 * code and GAUDISIM_ENG_ERR_CNT counts it (and the driver gets an
 * ENGINE_ERR event). The engine keeps working.
 */
#ifndef GAUDISIM_HW_MME_H
#define GAUDISIM_HW_MME_H

#include "gaudisim_hw_dtypes.h"
#include "gaudisim_hw_queues.h"
#include "gaudisim_hw_regs.h"

/* CFG BAR offsets of the MME engine blocks. */
#define GAUDISIM_MME_BLOCK		GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME)
#define GAUDISIM_MME1_BLOCK		GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME_1)

/* ---- Configuration registers (RW; read back what was written) ---------- */

/* Operand base addresses: device addresses in HBM or SRAM. */
#define GAUDISIM_MME_A_ADDR_LO		0x000
#define GAUDISIM_MME_A_ADDR_HI		0x004
#define GAUDISIM_MME_B_ADDR_LO		0x008
#define GAUDISIM_MME_B_ADDR_HI		0x00C
#define GAUDISIM_MME_C_ADDR_LO		0x010
#define GAUDISIM_MME_C_ADDR_HI		0x014
#define GAUDISIM_MME_D_ADDR_LO		0x018
#define GAUDISIM_MME_D_ADDR_HI		0x01C

/* Problem size: op(A) is M x K, op(B) K x N; BATCH GEMMs. Each >= 1. */
#define GAUDISIM_MME_M			0x020
#define GAUDISIM_MME_N			0x024
#define GAUDISIM_MME_K			0x028
#define GAUDISIM_MME_BATCH		0x02C

/* Leading dimensions (elements between consecutive rows), each < 2^31. */
#define GAUDISIM_MME_LDA		0x030
#define GAUDISIM_MME_LDB		0x034
#define GAUDISIM_MME_LDC		0x038
#define GAUDISIM_MME_LDD		0x03C

/* Batch strides (elements between consecutive batches), 64-bit. */
#define GAUDISIM_MME_A_BATCH_STRIDE_LO	0x040
#define GAUDISIM_MME_A_BATCH_STRIDE_HI	0x044
#define GAUDISIM_MME_B_BATCH_STRIDE_LO	0x048
#define GAUDISIM_MME_B_BATCH_STRIDE_HI	0x04C
#define GAUDISIM_MME_C_BATCH_STRIDE_LO	0x050
#define GAUDISIM_MME_C_BATCH_STRIDE_HI	0x054
#define GAUDISIM_MME_D_BATCH_STRIDE_LO	0x058
#define GAUDISIM_MME_D_BATCH_STRIDE_HI	0x05C

/* Data types: input (A, B) in [3:0], output (C, D) in [7:4]; other bits 0. */
#define GAUDISIM_MME_DTYPE		0x060
#define GAUDISIM_MME_DTYPE_IN_SHIFT	0
#define GAUDISIM_MME_DTYPE_OUT_SHIFT	4
#define GAUDISIM_MME_DTYPE_FIELD_MASK	0xfu
#define GAUDISIM_MME_DTYPE_VALUE(in, out) \
	(((in) & GAUDISIM_MME_DTYPE_FIELD_MASK) << GAUDISIM_MME_DTYPE_IN_SHIFT | \
	 ((out) & GAUDISIM_MME_DTYPE_FIELD_MASK) << GAUDISIM_MME_DTYPE_OUT_SHIFT)
#define GAUDISIM_MME_DTYPE_IN(v) \
	(((v) >> GAUDISIM_MME_DTYPE_IN_SHIFT) & GAUDISIM_MME_DTYPE_FIELD_MASK)
#define GAUDISIM_MME_DTYPE_OUT(v) \
	(((v) >> GAUDISIM_MME_DTYPE_OUT_SHIFT) & GAUDISIM_MME_DTYPE_FIELD_MASK)
#define GAUDISIM_MME_DTYPE_VALID_MASK	0xffu

/*
 * Operand options and the operation; other bits must be 0. The operation
 * field selects a GEMM (the default, 0) or one of the convolution modes
 * described at the end of this file; the transpose bits are GEMM-only and
 * must be 0 in a convolution mode.
 */
#define GAUDISIM_MME_CTRL		0x064
#define GAUDISIM_MME_CTRL_TRANSPOSE_A	(1u << 0)	/* op(A) = A^T */
#define GAUDISIM_MME_CTRL_TRANSPOSE_B	(1u << 1)	/* op(B) = B^T */
#define GAUDISIM_MME_CTRL_OP_SHIFT	2
#define GAUDISIM_MME_CTRL_OP_MASK	(3u << GAUDISIM_MME_CTRL_OP_SHIFT)
#define GAUDISIM_MME_CTRL_OP(v) \
	(((v) & GAUDISIM_MME_CTRL_OP_MASK) >> GAUDISIM_MME_CTRL_OP_SHIFT)
#define GAUDISIM_MME_CTRL_OP_VALUE(op) \
	(((op) << GAUDISIM_MME_CTRL_OP_SHIFT) & GAUDISIM_MME_CTRL_OP_MASK)
#define GAUDISIM_MME_OP_GEMM		0
#define GAUDISIM_MME_OP_CONV_FWD	1
#define GAUDISIM_MME_OP_CONV_DEDX	2
#define GAUDISIM_MME_OP_CONV_DEDW	3
/* CONV_FWD only: C is a bias of K elements, added to every output pixel. */
#define GAUDISIM_MME_CTRL_CONV_BIAS	(1u << 4)
#define GAUDISIM_MME_CTRL_VALID_MASK	0x1fu

/* Scalars as IEEE-754 binary32 bit patterns (1.0f = 0x3F800000). */
#define GAUDISIM_MME_ALPHA		0x068
#define GAUDISIM_MME_BETA		0x06C

/*
 * The GEMM configuration occupies 0x000..0x06C; 0x070..0x07C are reserved
 * (no register: reads return 0, writes are ignored and logged, like any
 * unknown offset). GAUDISIM_MME_CFG_END bounds the GEMM configuration
 * space; the convolution geometry follows at GAUDISIM_MME_CONV_BASE.
 */
#define GAUDISIM_MME_CFG_END		0x080

/* ---- Launch -------------------------------------------------------------- */

/* WO: write GAUDISIM_MME_COMMIT_GO to launch the configured GEMM. */
#define GAUDISIM_MME_COMMIT		0x080
#define GAUDISIM_MME_COMMIT_GO		0x1

/* Engine error codes, in GAUDISIM_ENG_STATUS[15:8] of the MME block. */
#define GAUDISIM_MME_ERR_NONE		0
#define GAUDISIM_MME_ERR_DIM		1	/* M, N, K or BATCH 0 or too large */
#define GAUDISIM_MME_ERR_DTYPE		2	/* input/output type not FP32/BF16 */
#define GAUDISIM_MME_ERR_LD		3	/* leading dimension too small/large */
#define GAUDISIM_MME_ERR_ADDR		4	/* operand range outside HBM/SRAM */
#define GAUDISIM_MME_ERR_ALIGN		5	/* address not element-aligned */
#define GAUDISIM_MME_ERR_FIELD		6	/* reserved bit set (DTYPE, CTRL) */
#define GAUDISIM_MME_ERR_OVERFLOW	7	/* an operand extent overflows 64 bits */
#define GAUDISIM_MME_ERR_NOMEM		8	/* simulator out of host memory */

/*
 * Limits. Dimensions and leading dimensions fit signed 32-bit BLAS
 * integers. A single COMMIT may ask for at most 2^42 multiply-adds (about
 * a minute of host time), so a bad configuration cannot occupy the engine
 * for hours; larger requests fail with GAUDISIM_MME_ERR_DIM. When D
 * overlaps an input, the simulator stages one batch of D in host memory:
 * more than GAUDISIM_MME_STAGE_MAX bytes per batch fail with
 * GAUDISIM_MME_ERR_NOMEM.
 */
#define GAUDISIM_MME_DIM_MAX		(1u << 20)	/* M, N, K */
#define GAUDISIM_MME_BATCH_MAX		(1u << 16)
#define GAUDISIM_MME_LD_MAX		0x7fffffffu
#define GAUDISIM_MME_MACS_MAX_LOG2	42
#define GAUDISIM_MME_STAGE_MAX		(1ULL << 30)

/*
 * ---- Convolution modes ---------------------------------------------------
 *
 * Like Gaudi's MME, the engine runs 2-D convolutions natively on tensor
 * geometry, with no im2col matrix in memory. Every tensor is dense and
 * NHWC; the filters are [KH, KW, C, K] (K output channels innermost):
 *
 *	x  [N, H, W, C]		w  [KH, KW, C, K]	y  [N, OH, OW, K]
 *	OH = (H + 2 * PAD_H - DIL_H * (KH - 1) - 1) / STRIDE_H + 1	(OW alike)
 *
 * with zero padding. Output pixel (oh, ow), tap (kh, kw) reads input row
 * oh * STRIDE_H + kh * DIL_H - PAD_H (columns alike); taps in the padding
 * contribute 0. The three operations (CTRL operation field):
 *
 *	CONV_FWD   A = x,  B = w,  C, D = y:   D = alpha * conv(x, w) + beta * C
 *		   (with CTRL_CONV_BIAS, C is a bias [K]: beta * C[k] is added
 *		   to every output pixel's channel k)
 *	CONV_DEDX  A = dy, B = w,  C, D = dx:  D = alpha * conv^T(dy, w) + beta * C
 *		   (dx[n,h,w,c] = sum of dy[n,oh,ow,k] * w[kh,kw,c,k] over the
 *		   taps that read (h, w); inputs no tap reads get beta * C)
 *	CONV_DEDW  A = x,  B = dy, C, D = dw:  D = alpha * dconv(x, dy) + beta * C
 *		   (dw[kh,kw,c,k] = sum of x[n,ih,iw,c] * dy[n,oh,ow,k] over n, oh, ow)
 *
 * Addresses, DTYPE (FP32 or BF16 in, FP32 or BF16 out), ALPHA and BETA are
 * the GEMM's registers; M, N, K, BATCH, the leading dimensions and batch
 * strides are not used. The numerics are the GEMM's with the sum length L
 * in place of K: L = KH * KW * C (FWD), KH * KW * K (DEDX), N * OH * OW
 * (DEDW). The order of the sums is fixed for a given geometry, so results
 * repeat bit for bit. alpha == 0 and beta == 0 skip reads as for a GEMM.
 *
 * D must not overlap A or B; C is either D itself (accumulate in place)
 * or disjoint from it (a bias always disjoint). CTRL_CONV_BIAS outside
 * CONV_FWD is a reserved bit (GAUDISIM_MME_ERR_FIELD). A convolution the MME cannot run (a geometry value
 * out of range, padding that reaches a whole effective kernel, no output
 * pixel, more than 2^42 multiply-adds, operands outside memory or
 * misaligned, a forbidden overlap) is refused at launch like a bad GEMM:
 * nothing is written.
 */
#define GAUDISIM_MME_CONV_BASE		0x100
#define GAUDISIM_MME_CONV_N		0x100
#define GAUDISIM_MME_CONV_H		0x104
#define GAUDISIM_MME_CONV_W		0x108
#define GAUDISIM_MME_CONV_C		0x10C	/* input channels */
#define GAUDISIM_MME_CONV_K		0x110	/* output channels (filters) */
#define GAUDISIM_MME_CONV_KH		0x114
#define GAUDISIM_MME_CONV_KW		0x118
#define GAUDISIM_MME_CONV_STRIDE_H	0x11C
#define GAUDISIM_MME_CONV_STRIDE_W	0x120
#define GAUDISIM_MME_CONV_PAD_H		0x124
#define GAUDISIM_MME_CONV_PAD_W		0x128
#define GAUDISIM_MME_CONV_DIL_H		0x12C
#define GAUDISIM_MME_CONV_DIL_W		0x130
#define GAUDISIM_MME_CONV_NUM_REGS	13
#define GAUDISIM_MME_CONV_END		0x140

/*
 * Convolution limits: N, C, K 1..2^16; H, W 1..2^15; KH, KW, strides and
 * dilations 1..255; paddings 0..255 and below the effective kernel extent
 * DIL * (KH - 1) + 1; KH * KW * C at most GAUDISIM_MME_DIM_MAX.
 * GAUDISIM_MME_ERR_DIM for a value out of range, GAUDISIM_MME_ERR_OVERLAP
 * for a forbidden overlap. The engine's host tiles and accumulators (the
 * filters twice, dx of a group of images (at least one), the bias and a
 * few tiles of 256 Ki floats) above GAUDISIM_MME_STAGE_MAX bytes fail with
 * GAUDISIM_MME_ERR_NOMEM.
 */
#define GAUDISIM_MME_CONV_NCK_MAX	(1u << 16)
#define GAUDISIM_MME_CONV_HW_MAX	(1u << 15)
#define GAUDISIM_MME_CONV_TAP_MAX	255u
#define GAUDISIM_MME_ERR_OVERLAP	9	/* convolution: D overlaps an input */

#endif /* GAUDISIM_HW_MME_H */
