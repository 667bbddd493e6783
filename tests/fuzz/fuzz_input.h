/* SPDX-License-Identifier: MIT */
/*
 * Reading a fuzz input as a stream of fields. Reads past the end return
 * zeros, so every input is a complete program: a short input is simply a
 * program whose last fields are 0.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct fz_in {
	const uint8_t *p;
	size_t n;
};

static inline int fz_in_left(const struct fz_in *in)
{
	return in->n > 0;
}

static inline uint8_t fz_u8(struct fz_in *in)
{
	uint8_t v;

	if (!in->n)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

static inline uint16_t fz_u16(struct fz_in *in)
{
	uint16_t lo = fz_u8(in);

	return (uint16_t)(lo | fz_u8(in) << 8);
}

static inline uint32_t fz_u32(struct fz_in *in)
{
	uint32_t lo = fz_u16(in);

	return lo | (uint32_t)fz_u16(in) << 16;
}

static inline uint64_t fz_u64(struct fz_in *in)
{
	uint64_t lo = fz_u32(in);

	return lo | (uint64_t)fz_u32(in) << 32;
}

/* Up to max bytes of the input as they are; *len gets how many. */
static inline const uint8_t *fz_bytes(struct fz_in *in, size_t max, size_t *len)
{
	const uint8_t *p = in->p;

	*len = max < in->n ? max : in->n;
	in->p += *len;
	in->n -= *len;
	return p;
}

#endif /* FUZZ_INPUT_H */
