// SPDX-License-Identifier: MIT
/*
 * Host memcpy throughput for a given size, the reference that scripts/
 * bench.sh measures on the host right before and right after the guest's
 * DMA benchmark (which measures its own memcpy in the guest as well). The
 * buffers are touched first, so no page fault is timed; the median of the
 * repetitions is printed.
 *
 * Usage: host-memcpy [-s MIB] [-r REPETITIONS]
 * Prints: memcpy_MiBps=<median>
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_stats.h"

#define USAGE	"usage: host-memcpy [-s MIB<=4096] [-r REPETITIONS<=1000]\n"

int main(int argc, char **argv)
{
	unsigned long mib = 64, reps = 9, i;
	uint8_t *src, *dst;
	double *rate;
	size_t size;
	int c;

	while ((c = getopt(argc, argv, "s:r:")) != -1) {
		if (c == 's')
			mib = bench_arg(optarg, 4096, USAGE);
		else if (c == 'r')
			reps = bench_arg(optarg, 1000, USAGE);
		else
			return fprintf(stderr, USAGE), 2;
	}
	if (optind != argc)
		return fprintf(stderr, USAGE), 2;
	size = (size_t)mib << 20;
	src = malloc(size);
	dst = malloc(size);
	rate = calloc(reps, sizeof(*rate));
	if (!src || !dst || !rate) {
		fprintf(stderr, "host-memcpy: cannot allocate %lu MiB twice\n", mib);
		return 1;
	}
	memset(src, 0x5a, size);
	memset(dst, 0, size);
	for (i = 0; i < reps; i++) {
		double t0 = bench_now();

		memcpy(dst, src, size);
		rate[i] = (double)mib / (bench_now() - t0);
		src[i % size]++;	/* no two copies alike */
	}
	if (dst[size - 1] != 0x5a) {
		fprintf(stderr, "host-memcpy: copy check failed\n");
		return 1;
	}
	printf("memcpy_MiBps=%.0f\n", bench_median(rate, reps));
	free(src);
	free(dst);
	free(rate);
	return 0;
}
