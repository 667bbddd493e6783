/* SPDX-License-Identifier: MIT */
/* Timing, medians and code-path names for the host benchmarks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_stats.h"

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *samples, size_t n)
{
	qsort(samples, n, sizeof(*samples), cmp_double);
	return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

const char *bench_build_isa(void)
{
#if defined(__AVX512F__)
	return "avx512";
#elif defined(__AVX2__)
	return "avx2";
#elif defined(__SSE2__)
	return "sse2";
#else
	return "generic";
#endif
}

int bench_cpu_has_bf16(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512bf16");
#else
	return 0;
#endif
}

unsigned long bench_arg(const char *text, unsigned long max, const char *usage)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(text, &end, 0);
	if (errno || *end || !v || v > max) {
		fprintf(stderr, "%s", usage);
		exit(2);
	}
	return v;
}
