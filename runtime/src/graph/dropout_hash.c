// SPDX-License-Identifier: MIT
/*
 * The dropout keep decision as runtime/kernels/dropout_f32.tpcs makes it,
 * for host code that has to agree with the device bit for bit (CPU
 * references, tests).
 */
#include "graph/ops.h"

/* MurmurHash3's 32-bit finalizer. */
static uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

uint32_t hlrt_dropout_threshold(float rate)
{
	return (uint32_t)((double)rate * 16777216.0);
}

int hlrt_dropout_keep(float rate, uint32_t seed, uint32_t step, uint32_t index)
{
	uint32_t key = fmix32(seed ^ fmix32(step + 0x9e3779b9u));

	return (fmix32(index ^ key) >> 8) >= hlrt_dropout_threshold(rate);
}
