/* SPDX-License-Identifier: MIT */
/*
 * bfloat16 <-> binary32 conversions, the single definition used by the
 * engines, the reference ops and the tests.
 *
 * A BF16 value is the upper 16 bits of a binary32 value, so widening is
 * exact. Narrowing rounds to nearest, ties to even, on the bit pattern:
 * that is correct for normal and subnormal values alike, and carries into
 * the exponent (up to infinity) exactly as IEEE rounding does. NaN stays
 * NaN: the sign and the upper payload bits are kept and the quiet bit is
 * set, so a NaN whose payload sits only in the dropped bits cannot turn
 * into infinity.
 */
#ifndef GSIM_BF16_H
#define GSIM_BF16_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GSIM_BF16_QUIET_BIT	0x0040u

static inline uint32_t gsim_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float gsim_bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline float gsim_bf16_to_f32(uint16_t h)
{
	return gsim_bits_f32((uint32_t)h << 16);
}

static inline uint16_t gsim_f32_to_bf16(float f)
{
	uint32_t u = gsim_f32_bits(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | GSIM_BF16_QUIET_BIT);
	/* Add just under half an ulp, plus one when the kept LSB is odd. */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

/* Array forms; plain loops the compiler can vectorize. */
static inline void gsim_bf16_to_f32_n(float *dst, const uint16_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = gsim_bf16_to_f32(src[i]);
}

static inline void gsim_f32_to_bf16_n(uint16_t *dst, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = gsim_f32_to_bf16(src[i]);
}

#endif /* GSIM_BF16_H */
