/*
 * LAMB (FusedLamb) on the CPU, the same math in the same FP32 operation
 * order as libhlrt's optimizer_lamb_f32 on the device, so that reference
 * and device runs agree to rounding: the per-tensor norms are summed as
 * the TPC kernels sum them (per 4096-element chunk, 64 lane-wise sums
 * over the chunk's 64-element tiles, a pairwise tree over the lanes,
 * then the chunks in order).
 */
#ifndef REF_LAMB_H
#define REF_LAMB_H

#include <stddef.h>
#include <stdint.h>

struct ref_lamb_params {
	float beta1, beta2, epsilon, weight_decay;
};

/* sum(x[i]^2), in the device's order. */
float ref_lamb_sumsq(const float *x, size_t n);

/*
 * One update of the COUNT weights w with gradient g, moments m and v
 * (updated in place), UPDATES steps applied before this one; u is COUNT
 * floats of scratch (the raw update). Returns the trust ratio used.
 */
float ref_lamb_update(const struct ref_lamb_params *p, float lr, uint64_t updates,
		      float *w, const float *g, float *m, float *v, float *u, size_t count);

#endif
