// SPDX-License-Identifier: MIT
/*
 * dma-bench: DMA throughput in each direction against memcpy in the same
 * guest. Each round copies SIZE MiB host -> HBM (one CS, packets spread
 * over one engine's four streams), then memcpy's SIZE MiB between two
 * guest buffers that were touched beforehand (the reference), then copies
 * HBM -> host; the three alternate so all see the same machine. Round 0
 * warms up; the data of the last round is verified. Prints the medians:
 *   dma_h2d_MiBps=X dma_d2h_MiBps=Y guest_memcpy_MiBps=Z
 *   h2d_ratio_to_memcpy=X/Z d2h_ratio_to_memcpy=Y/Z
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_dma.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t median_ns(int64_t *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: dma-bench [-d INDEX] [-s MIB] [-p MIB] [-r REPS]\n"
		"  -d INDEX  device index (default 0)\n"
		"  -s MIB    transfer size in MiB (default 64)\n"
		"  -p MIB    bytes per LIN_DMA packet in MiB (default 4)\n"
		"  -r REPS   measured rounds; medians are reported (default 5)\n");
}

int main(int argc, char **argv)
{
	struct app_copy down = { 0 }, up = { 0 };
	struct app_host_buf src = { 0 }, dst = { 0 };
	struct app_device dev;
	long index = 0, size_mib = 64, piece_mib = 4, reps = 5, r, v;
	uint64_t size, hbm_handle = 0, hbm_addr = 0;
	int64_t *t_down = NULL, *t_up = NULL, *t_cpy = NULL, ns, t0, ns_down, ns_up, ns_cpy;
	uint8_t *ref_src = NULL, *ref_dst = NULL;
	int c, rc = EXIT_FAILURE, have_hbm = 0;

	while ((c = getopt(argc, argv, "d:s:p:r:h")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return EXIT_SUCCESS;
		}
		v = c == '?' ? -1 : app_parse_long(optarg, c == 'd' ? 0 : 1,
						   c == 'd' ? HLTHUNK_MAX_MINOR - 1 :
						   c == 'r' ? 1000 : 4096);
		if (v < 0) {
			usage(stderr);
			return 2;
		}
		if (c == 'd')
			index = v;
		else if (c == 's')
			size_mib = v;
		else if (c == 'p')
			piece_mib = v;
		else
			reps = v;
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	size = (uint64_t)size_mib * APP_MiB;

	if (app_open(&dev, (int)index))
		return EXIT_FAILURE;
	if (app_host_buf_map(&dev, &src, size) || app_host_buf_map(&dev, &dst, size))
		goto out;
	hbm_handle = hlthunk_device_memory_alloc(dev.fd, size, 0, true, false);
	if (!hbm_handle) {
		fprintf(stderr, "cannot allocate %ld MiB of HBM\n", size_mib);
		goto out;
	}
	have_hbm = 1;
	hbm_addr = hlthunk_device_memory_map(dev.fd, hbm_handle, 0);
	if (!hbm_addr)
		goto out;
	app_fill_pattern(src.ptr, size, 0xbe7c);
	/* The memcpy reference copies between its own buffers, touched here so
	 * no page fault is timed (as the DMA buffers are pinned). */
	ref_src = malloc(size);
	ref_dst = malloc(size);
	t_down = calloc((size_t)reps, sizeof(*t_down));
	t_up = calloc((size_t)reps, sizeof(*t_up));
	t_cpy = calloc((size_t)reps, sizeof(*t_cpy));
	if (!ref_src || !ref_dst || !t_down || !t_up || !t_cpy) {
		fprintf(stderr, "dma-bench: out of memory\n");
		goto out;
	}
	memcpy(ref_src, src.ptr, size);
	memset(ref_dst, 0, size);
	if (app_copy_prepare(&dev, &down, src.va, hbm_addr, size, (uint64_t)piece_mib * APP_MiB,
			     GAUDISIM_QUEUE_ID_DMA_0_0, APP_COPY_MAX_QUEUES) ||
	    app_copy_prepare(&dev, &up, hbm_addr, dst.va, size, (uint64_t)piece_mib * APP_MiB,
			     GAUDISIM_QUEUE_ID_DMA_1_0, APP_COPY_MAX_QUEUES))
		goto out;

	for (r = 0; r <= reps; r++) {	/* round 0 warms up */
		memset(dst.ptr, 0, size);
		if (app_copy_run(&dev, &down, &ns))
			goto out;
		ns_down = ns;
		t0 = app_monotonic_ns();
		memcpy(ref_dst, ref_src, size);
		ns_cpy = app_monotonic_ns() - t0;
		ref_src[r % size]++;	/* no two copies alike */
		if (app_copy_run(&dev, &up, &ns))
			goto out;
		ns_up = ns;
		if (r) {
			t_down[r - 1] = ns_down;
			t_cpy[r - 1] = ns_cpy;
			t_up[r - 1] = ns_up;
		}
	}
	if (memcmp(src.ptr, dst.ptr, size)) {
		fprintf(stderr, "dma-bench: data read back differs from what was written\n");
		goto out;
	}
	ns_down = median_ns(t_down, reps);
	ns_up = median_ns(t_up, reps);
	ns_cpy = median_ns(t_cpy, reps);
	printf("dma_h2d_MiBps=%.1f dma_d2h_MiBps=%.1f guest_memcpy_MiBps=%.1f "
	       "h2d_ratio_to_memcpy=%.3f d2h_ratio_to_memcpy=%.3f\n",
	       app_mib_per_s(size, ns_down), app_mib_per_s(size, ns_up),
	       app_mib_per_s(size, ns_cpy), (double)ns_cpy / (double)ns_down,
	       (double)ns_cpy / (double)ns_up);
	rc = EXIT_SUCCESS;
out:
	free(ref_src);
	free(ref_dst);
	free(t_down);
	free(t_up);
	free(t_cpy);
	app_copy_release(&dev, &up);
	app_copy_release(&dev, &down);
	if (have_hbm)
		hlthunk_device_memory_free(dev.fd, hbm_handle);
	app_host_buf_release(&dev, &dst);
	app_host_buf_release(&dev, &src);
	app_close(&dev);
	return rc;
}
