/* SPDX-License-Identifier: MIT */
/* Guard pages around the core's large anonymous mappings (fuzz_guard.c). */
#ifndef FUZZ_GUARD_H
#define FUZZ_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Guarded mappings currently alive. */
unsigned int fz_guard_mappings(void);
/* Does a guarded mapping start at p and hold at least len bytes? */
bool fz_guarded(const void *p, size_t len);

#endif /* FUZZ_GUARD_H */
