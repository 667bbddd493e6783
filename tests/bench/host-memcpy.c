// SPDX-License-Identifier: MIT
/*
 * Reference for the DMA benchmark: host memcpy throughput for a given size,
 * measured the same way the guest measures a DMA (best of several runs,
 * buffers touched beforehand so page faults are not timed).
 *
 * Usage: host-memcpy [bytes] [repetitions]
 * Prints: memcpy_MiBps=<value>
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_size(const char *text, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(text, &end, 0);
	return (errno || *end || *out == 0) ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long long size = 64ull << 20, reps = 8;
	double best = 0;

	if ((argc > 1 && parse_size(argv[1], &size)) ||
	    (argc > 2 && parse_size(argv[2], &reps)) || argc > 3) {
		fprintf(stderr, "usage: host-memcpy [bytes] [repetitions]\n");
		return 2;
	}
	uint8_t *src = malloc(size), *dst = malloc(size);

	if (!src || !dst) {
		fprintf(stderr, "host-memcpy: cannot allocate %llu bytes\n", size);
		return 1;
	}
	memset(src, 0x5a, size);
	memset(dst, 0, size);
	for (unsigned long long i = 0; i < reps; i++) {
		double t0 = now_seconds();

		memcpy(dst, src, size);
		double rate = (double)size / (1 << 20) / (now_seconds() - t0);

		if (rate > best)
			best = rate;
		src[i % size]++; /* keep the copies from being merged */
	}
	if (dst[size - 1] != 0x5a) {
		fprintf(stderr, "host-memcpy: copy check failed\n");
		return 1;
	}
	printf("memcpy_MiBps=%.0f\n", best);
	free(src);
	free(dst);
	return 0;
}
