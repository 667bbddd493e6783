/* SPDX-License-Identifier: MIT */
/*
 * Host references of the collectives, shared by the host tests
 * (test_coll.c) and the guest program (tests/guest/test_coll.c): the
 * ring's summation order reproduced exactly, so FP32 and BF16 results
 * compare bit for bit like INT32 ones. Rank r's input is coll_ref_fill(r).
 * Ranks are on modules 0..n-1 of one box, so the ring is rank order.
 */
#ifndef COLL_REF_H
#define COLL_REF_H

#include <stdint.h>
#include <string.h>

#include "hlrt.h"

static inline uint32_t coll_ref_esize(hlrt_dtype t)
{
	return t == HLRT_BF16 ? 2 : 4;
}

static inline uint32_t coll_ref_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Deterministic data of rank r: small floats, full-range integers. */
static inline void coll_ref_fill(void *buf, uint64_t n, hlrt_dtype t, uint32_t r)
{
	uint32_t s = 0x9e3779b9u ^ (r * 7919u + 1), i;

	for (i = 0; i < n; i++) {
		uint32_t v = coll_ref_rand(&s);
		float f = (float)(int32_t)(v >> 8) / (float)(1 << 23);	/* [-1, 1) */

		if (t == HLRT_INT32) {
			((uint32_t *)buf)[i] = v;
		} else if (t == HLRT_FP32) {
			((float *)buf)[i] = f;
		} else {
			uint32_t bits;

			memcpy(&bits, &f, 4);
			((uint16_t *)buf)[i] = (uint16_t)(bits >> 16);
		}
	}
}

static inline float coll_ref_bf16_to_f32(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

/* Nearest even, like the TPC's st.bf16 (inputs here are never NaN). */
static inline uint16_t coll_ref_f32_to_bf16(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, 4);
	bits += 0x7fffu + ((bits >> 16) & 1);
	return (uint16_t)(bits >> 16);
}

/* acc[i] = own[i] + acc[i], the device's dst = dst + received. */
static inline void coll_ref_add(void *acc, const void *own, uint64_t n, hlrt_dtype t)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (t == HLRT_INT32) {
			((uint32_t *)acc)[i] += ((const uint32_t *)own)[i];
		} else if (t == HLRT_FP32) {
			((float *)acc)[i] = ((const float *)own)[i] + ((float *)acc)[i];
		} else {
			float a = coll_ref_bf16_to_f32(((const uint16_t *)own)[i]);
			float b = coll_ref_bf16_to_f32(((uint16_t *)acc)[i]);

			((uint16_t *)acc)[i] = coll_ref_f32_to_bf16(a + b);
		}
	}
}

/*
 * The sum over n ranks of elements [first, first + cnt) of each rank's
 * input (inputs[r]), in the order of the ring's segment q: it starts at
 * rank q + 1 and ends at rank q.
 */
static inline void coll_ref_sum(void *out, void *const *inputs, uint32_t n, uint32_t q,
				uint64_t first, uint64_t cnt, hlrt_dtype t)
{
	uint32_t es = coll_ref_esize(t), i;

	memcpy(out, (const uint8_t *)inputs[(q + 1) % n] + first * es, cnt * es);
	for (i = 2; i <= n; i++)
		coll_ref_add(out, (const uint8_t *)inputs[(q + i) % n] + first * es, cnt, t);
}

/* The all-reduce of count elements: segment r is elements [c*r/n, c*(r+1)/n). */
static inline void coll_ref_all_reduce(void *out, void *const *inputs, uint32_t n,
				       uint64_t count, hlrt_dtype t)
{
	uint32_t es = coll_ref_esize(t), q;

	for (q = 0; q < n; q++) {
		uint64_t a = count * q / n, b = count * (q + 1) / n;

		if (b > a)
			coll_ref_sum((uint8_t *)out + a * es, inputs, n, q, a, b - a, t);
	}
}

#endif /* COLL_REF_H */
