/* SPDX-License-Identifier: MIT */
/* Definitions shared by the libhlthunk sources; not installed. */
#ifndef HLTHUNK_INTERNAL_H
#define HLTHUNK_INTERNAL_H

#include <stdint.h>

#include "hlthunk.h"

/* Pointer to the u64 the kernel ABI uses for user pointers. */
static inline uint64_t hlthunk_ptr_to_u64(const void *ptr)
{
	return (uint64_t)(uintptr_t)ptr;
}

#endif /* HLTHUNK_INTERNAL_H */
