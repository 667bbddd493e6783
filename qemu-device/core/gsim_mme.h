/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the MME (GEMM engine), see hw/gaudisim_hw_mme.h for
 * the register contract and the numerics.
 *
 * The engine is split so that the heavy part can leave the MMIO path:
 *   gsim_mme_reg_write()   latches registers; COMMIT only sets *commit
 *   gsim_mme_decode()      register values -> validated GEMM (cheap; logs
 *                          guest errors; main loop)
 *   gsim_mme_run()         the arithmetic on device memory (no logging, no
 *                          host callbacks: safe in a worker thread)
 *   gsim_mme_execute()     decode + run: the one call a synchronous
 *                          launch makes
 * gsim_mme_engine.c plugs these into the core's engine framework
 * (gsim_mme_engine_ops); STATUS, counters, completion message and events
 * are the framework's.
 *
 * FP32 products use OpenBLAS's cblas_sgemm when the core is compiled with
 * GSIM_HAVE_OPENBLAS (and linked with pkg-config's openblas flags), on one
 * thread or the host's by size (gsim_blas.h), or a portable blocked loop
 * otherwise. The semantics (BF16 widening and
 * rounding, alpha/beta, transposes, strides, overlap) are this engine's
 * either way.
 */
#ifndef GSIM_MME_H
#define GSIM_MME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsim_core_internal.h"
#include "hw/gaudisim_hw_mme.h"

#define GSIM_MME_NUM_CFG_REGS	(GAUDISIM_MME_CONV_END / 4)

/* The configuration registers (GEMM and convolution), indexed by offset / 4. */
struct gsim_mme_regs {
	uint32_t r[GSIM_MME_NUM_CFG_REGS];
};

/* Host memory the engine keeps between GEMMs (conversion tiles). */
struct gsim_mme_scratch {
	float *a, *b, *acc;	/* GSIM_MME_TILE-sized FP32 tiles */
	uint8_t *stage;		/* staged D when it overlaps an input */
	size_t stage_size;
	float *conv;		/* convolution tiles and accumulators */
	size_t conv_size;	/* bytes */
};

/* A stored operand after validation. */
struct gsim_mme_operand {
	uint8_t *mem;		/* host pointer to element (0, 0) of batch 0 */
	uint64_t addr;		/* device address, for overlap checks */
	uint64_t ld;		/* elements between rows */
	uint64_t stride;	/* elements between batches; a convolution tensor: its bytes */
	uint32_t rows, cols;	/* as stored */
	unsigned int dtype;
	unsigned int esize;	/* bytes per element */
};

/* Convolution geometry after validation (hw/gaudisim_hw_mme.h, convolution modes). */
struct gsim_mme_conv {
	uint32_t n, h, w, c, k, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
	bool bias;		/* FWD: C is a bias [K] */
	uint64_t macs;		/* multiply-adds of the whole operation */
};

/* A validated GEMM or convolution (op != GAUDISIM_MME_OP_GEMM), ready to run. */
struct gsim_mme_gemm {
	unsigned int op;
	struct gsim_mme_conv conv;
	uint32_t m, n, k, batch;
	bool trans_a, trans_b;
	float alpha, beta;
	bool read_ab;		/* alpha != 0 */
	bool read_c;		/* beta != 0 */
	struct gsim_mme_operand a, b, c, d;
};

struct gsim_mme {
	struct gsim_mme_regs regs;
	struct gsim_mme_scratch scratch;	/* the worker's while a job runs */
	struct gsim_mme_gemm job;		/* the GEMM handed to a worker */
	/* BF16-input tiles computed by the AVX512-BF16 kernel / on FP32. */
	uint64_t bf16_native_tiles, bf16_fp32_tiles;
};

/* Tile edge (elements) of the tiled path: 3 FP32 tiles of 4 MiB each. */
#define GSIM_MME_TILE		1024u

void gsim_mme_init(struct gsim_mme *mme);
/* Release the scratch memory. */
void gsim_mme_fini(struct gsim_mme *mme);
/* Hard or soft reset: registers to 0; the scratch is kept for reuse. */
void gsim_mme_reset(struct gsim_mme *mme);

/*
 * Register access at an offset inside the MME engine block (below
 * GAUDISIM_ENG_COMMON_BASE). Reads of unknown offsets return false. A
 * write of GAUDISIM_MME_COMMIT_GO to COMMIT sets *commit: the caller
 * launches the GEMM (gsim_mme_execute()) now or later. Configuration
 * registers are writable from MMIO and from CBs alike.
 */
bool gsim_mme_reg_read(const struct gsim_mme *mme, uint32_t off, uint32_t *value);
enum gsim_reg_status gsim_mme_reg_write(struct gsim_mme *mme, uint32_t off,
					uint32_t value, bool *commit);

/* Validate register values. GAUDISIM_MME_ERR_NONE or an error (logged). */
int gsim_mme_decode(struct gsim_core *core, const struct gsim_mme_regs *regs,
		    struct gsim_mme_gemm *g);
/* Compute a decoded GEMM. GAUDISIM_MME_ERR_NONE or _NOMEM (nothing written). */
int gsim_mme_run(struct gsim_mme *mme, const struct gsim_mme_gemm *g);
/* The same on a worker: stops between blocks once w is cancelled (w may be
 * NULL). Same results as gsim_mme_run(), bit for bit. */
int gsim_mme_run_work(struct gsim_mme *mme, const struct gsim_mme_gemm *g,
		      const struct gsim_work *w);
/* Decode and run; the error code as above, NOMEM logged too. */
int gsim_mme_execute(struct gsim_core *core, struct gsim_mme *mme,
		     const struct gsim_mme_regs *regs);
/* Floating-point operations of a decoded GEMM (2 per multiply-add). */
uint64_t gsim_mme_gemm_flops(const struct gsim_mme_gemm *g);

/*
 * Work of at most this many FLOPs runs inside launch() even on a core
 * with worker threads: handing it to a worker and the completion back to
 * the owner thread costs more than the worker saves the owner for it (a
 * training step's 128x784x10 GEMM is 2 MFLOP, some 20 us; the MLP's
 * 128x784x128 layer is 26 MFLOP, some 0.3 ms, and its training ran 6%
 * faster with it inline). Convolutions of LeNet's (40 to 80 MFLOP, a few
 * milliseconds) still go to a worker rather than hold the owner thread.
 * Same code, same results.
 */
#define GSIM_MME_INLINE_FLOPS	(32ull << 20)

/* "openblas" or "portable": what computes the FP32 products. */
const char *gsim_mme_backend(void);
/*
 * The FP32 product kernels by name: "openblas-" and OpenBLAS's kernel set
 * for this CPU (gsim_blas_kernels()), or "portable".
 */
const char *gsim_mme_kernels(void);

/*
 * BF16 inputs (gsim_mme_bf16.c): the path BF16 tiles take. "amx-bf16" or
 * "avx512-bf16" where this host runs the instructions (AMX preferred), "fp32"
 * when they are widened to FP32; GSIM_MME_BF16 names one.
 */
enum gsim_bf16_path { GSIM_BF16_PATH_FP32, GSIM_BF16_PATH_AVX512, GSIM_BF16_PATH_AMX };

const char *gsim_mme_bf16_path(void);
bool gsim_mme_bf16_native(void);
bool gsim_mme_bf16_path_runs(enum gsim_bf16_path path);
/* Take this path (tests); false, and nothing changed, where the host cannot. */
bool gsim_mme_bf16_use(enum gsim_bf16_path path);
/* The native kernels off (false), or back to GSIM_MME_BF16's choice. */
void gsim_mme_bf16_set_native(bool on);
/*
 * scratch.acc[mt x nt] = op(A)[m0.., :] @ op(B)[:, n0..] of batch b over
 * all of K with the native BF16 kernel (AMX or AVX512-BF16). false (nothing usable in acc)
 * when the path is off or an input is too small for it (see the file).
 */
bool gsim_mme_bf16_tile(struct gsim_mme *mme, const struct gsim_mme_gemm *g, uint64_t b,
			uint32_t m0, uint32_t mt, uint32_t n0, uint32_t nt);
/*
 * Convolutions (gsim_mme_conv.c). decode: the geometry and operands of a
 * convolution mode, after gsim_mme_decode() checked DTYPE and CTRL.
 * run: the arithmetic, on blocked im2col tiles in host memory (the
 * scratch below), stopping between blocks once w is cancelled.
 */
int gsim_mme_conv_decode(struct gsim_core *core, const struct gsim_mme_regs *regs,
			 struct gsim_mme_gemm *g);
int gsim_mme_conv_run(struct gsim_mme *mme, const struct gsim_mme_gemm *g,
		      const struct gsim_work *w);
/*
 * c[m x n] (row stride ldc) = (accumulate ? c : 0) + a[m x k] @ b[k x n],
 * FP32, row-major, untransposed: OpenBLAS or the portable loop.
 */
void gsim_mme_sgemm(uint32_t m, uint32_t n, uint32_t k, const float *a, uint64_t lda,
		    const float *b, uint64_t ldb, bool accumulate, float *c, uint64_t ldc);

/* Name of a GAUDISIM_MME_ERR_* code, for logs. */
const char *gsim_mme_err_name(int err);

/* The engine's (vectorized) conversions between device data and FP32. */
void gsim_mme_load_f32(float *dst, const void *src, size_t n, unsigned int dtype);
void gsim_mme_store_f32(void *dst, const float *src, size_t n, unsigned int dtype);

/*
 * The MME as an engine of the core (gsim_mme_engine.c): state in
 * core->mme; the GEMM runs on a worker when the core has them, else
 * inside the launch. Plugged in by its line in gsim_engine.c's
 * engine table.
 */
extern const struct gsim_engine_ops gsim_mme_engine_ops;

#endif /* GSIM_MME_H */
