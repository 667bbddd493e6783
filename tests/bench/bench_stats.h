/* SPDX-License-Identifier: MIT */
/*
 * Timing for the host benchmarks: a monotonic clock, medians of
 * interleaved samples, and the description of the code path that ran
 * (the instruction set the core was compiled for, what the CPU offers).
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);
/* Median of n samples (sorts them in place); n >= 1. */
double bench_median(double *samples, size_t n);
/* "avx512" / "avx2" / "sse2" / "generic": what the compiler could use. */
const char *bench_build_isa(void);
/* Does this CPU execute AVX512-BF16 instructions? */
int bench_cpu_has_bf16(void);
/* Parse a positive integer no larger than max; exits with usage on error. */
unsigned long bench_arg(const char *text, unsigned long max, const char *usage);

#endif /* BENCH_STATS_H */
