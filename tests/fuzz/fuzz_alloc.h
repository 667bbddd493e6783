/* SPDX-License-Identifier: MIT */
/* The large-block cache of the fuzz builds (fuzz_alloc.c). */
#ifndef FUZZ_ALLOC_H
#define FUZZ_ALLOC_H

/* Cached large blocks currently handed out (0 once the core is freed). */
unsigned int fz_alloc_in_use(void);

#endif /* FUZZ_ALLOC_H */
