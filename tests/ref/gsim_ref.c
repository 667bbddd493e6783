/* SPDX-License-Identifier: MIT */
/*
 * Reference numeric ops in plain loops (see gsim_ref.h for the exact
 * evaluation order). Operands are first widened into FP32 arrays, op(A)
 * as M x K rows and op(B) as N x K rows, so the dot products run over
 * contiguous memory; widening is exact and changes no result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_bf16.h"
#include "gsim_ref.h"

/* Little-endian loads and stores, so the reference runs on any host. */
static uint32_t ld_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t ld_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void st_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void st_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* Element 'idx' of an array of dtype (FP32 or BF16) as FP32. */
static float load(const uint8_t *base, uint64_t idx, unsigned int dtype)
{
	if (dtype == GAUDISIM_DTYPE_BF16)
		return gsim_bf16_to_f32(ld_le16(base + idx * 2));
	return gsim_bits_f32(ld_le32(base + idx * 4));
}

static void store(uint8_t *base, uint64_t idx, unsigned int dtype, float v)
{
	if (dtype == GAUDISIM_DTYPE_BF16)
		st_le16(base + idx * 2, gsim_f32_to_bf16(v));
	else
		st_le32(base + idx * 4, gsim_f32_bits(v));
}

static bool dtype_ok(unsigned int dtype)
{
	return dtype == GAUDISIM_DTYPE_FP32 || dtype == GAUDISIM_DTYPE_BF16;
}

/* Widen op(A) into opa[M][K] and op(B)^T into opbt[N][K] for batch b. */
static void widen_inputs(const struct gsim_ref_gemm *g, uint64_t b, float *opa, float *opbt)
{
	const uint8_t *a = g->a, *bm = g->b;
	uint64_t base_a = b * g->stride_a, base_b = b * g->stride_b;
	uint32_t i, j, k;

	for (i = 0; i < g->m; i++)
		for (k = 0; k < g->k; k++)
			opa[(uint64_t)i * g->k + k] =
				load(a, base_a + (g->trans_a ? (uint64_t)k * g->lda + i
							     : (uint64_t)i * g->lda + k),
				     g->dtype_in);
	for (j = 0; j < g->n; j++)
		for (k = 0; k < g->k; k++)
			opbt[(uint64_t)j * g->k + k] =
				load(bm, base_b + (g->trans_b ? (uint64_t)j * g->ldb + k
							      : (uint64_t)k * g->ldb + j),
				     g->dtype_in);
}

int gsim_ref_gemm(const struct gsim_ref_gemm *g)
{
	float *opa = NULL, *opbt = NULL, *out = NULL;
	uint64_t b;
	int ret = -1;

	if (!dtype_ok(g->dtype_in) || !dtype_ok(g->dtype_out) ||
	    !g->m || !g->n || !g->k || !g->batch)
		return -1;
	opa = malloc((size_t)g->m * g->k * sizeof(float));
	opbt = malloc((size_t)g->n * g->k * sizeof(float));
	out = malloc((size_t)g->m * g->n * sizeof(float));
	if (!opa || !opbt || !out)
		goto out;

	for (b = 0; b < g->batch; b++) {
		const uint8_t *c = g->c;
		uint8_t *d = g->d;
		uint32_t i, j, k;

		if (g->alpha != 0.0f)
			widen_inputs(g, b, opa, opbt);
		for (i = 0; i < g->m; i++) {
			for (j = 0; j < g->n; j++) {
				const float *ra = opa + (uint64_t)i * g->k;
				const float *rb = opbt + (uint64_t)j * g->k;
				float acc = 0.0f, cv = 0.0f, v;

				if (g->beta != 0.0f)
					cv = load(c, b * g->stride_c + (uint64_t)i * g->ldc + j,
						  g->dtype_out);
				if (g->alpha == 0.0f) {
					v = g->beta == 0.0f ? 0.0f : g->beta * cv;
				} else {
					float t;

					for (k = 0; k < g->k; k++)
						acc = fmaf(ra[k], rb[k], acc);
					t = g->alpha * acc;
					v = g->beta == 0.0f ? t : fmaf(g->beta, cv, t);
				}
				out[(uint64_t)i * g->n + j] = v;
			}
		}
		/* Write D only now: its batch's inputs have all been read. */
		for (i = 0; i < g->m; i++)
			for (j = 0; j < g->n; j++)
				store(d, b * g->stride_d + (uint64_t)i * g->ldd + j,
				      g->dtype_out, out[(uint64_t)i * g->n + j]);
	}
	ret = 0;
out:
	free(opa);
	free(opbt);
	free(out);
	return ret;
}

double gsim_ref_gemm_bound(uint32_t k, float alpha, double abs_sum, double abs_beta_c)
{
	const double u = ldexp(1.0, -24);
	double n = (double)k + 3.0;
	double gamma = n * u / (1.0 - n * u);

	return gamma * (fabs((double)alpha) * abs_sum + abs_beta_c) +
	       n * ldexp(1.0, -149) * (1.0 + fabs((double)alpha));
}
