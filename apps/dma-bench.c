// SPDX-License-Identifier: MIT
/*
 * dma-bench: DMA throughput in each direction. Copies SIZE MiB host -> HBM
 * and HBM -> host REPS times (one CS per copy, packets spread over one
 * engine's four streams), verifies the data of the last round, and prints
 * the best rate of each direction:
 *   dma_h2d_MiBps=X dma_d2h_MiBps=Y
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_dma.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: dma-bench [-d INDEX] [-s MIB] [-p MIB] [-r REPS]\n"
		"  -d INDEX  device index (default 0)\n"
		"  -s MIB    transfer size in MiB (default 64)\n"
		"  -p MIB    bytes per LIN_DMA packet in MiB (default 4)\n"
		"  -r REPS   repetitions per direction; the best is reported (default 5)\n");
}

int main(int argc, char **argv)
{
	struct app_copy down = { 0 }, up = { 0 };
	struct app_host_buf src = { 0 }, dst = { 0 };
	struct app_device dev;
	long index = 0, size_mib = 64, piece_mib = 4, reps = 5, r, v;
	uint64_t size, hbm_handle = 0, hbm_addr = 0;
	int64_t best_down = 0, best_up = 0, ns;
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
	if (hlthunk_device_memory_alloc(dev.fd, size, &hbm_handle)) {
		fprintf(stderr, "cannot allocate %ld MiB of HBM\n", size_mib);
		goto out;
	}
	have_hbm = 1;
	if (hlthunk_device_memory_map(dev.fd, hbm_handle, &hbm_addr))
		goto out;
	app_fill_pattern(src.ptr, size, 0xbe7c);
	if (app_copy_prepare(&dev, &down, src.va, hbm_addr, size, (uint64_t)piece_mib * APP_MiB,
			     GAUDISIM_QUEUE_ID_DMA_0_0, APP_COPY_MAX_QUEUES) ||
	    app_copy_prepare(&dev, &up, hbm_addr, dst.va, size, (uint64_t)piece_mib * APP_MiB,
			     GAUDISIM_QUEUE_ID_DMA_1_0, APP_COPY_MAX_QUEUES))
		goto out;

	for (r = 0; r < reps; r++) {
		memset(dst.ptr, 0, size);
		if (app_copy_run(&dev, &down, &ns))
			goto out;
		if (!best_down || ns < best_down)
			best_down = ns;
		if (app_copy_run(&dev, &up, &ns))
			goto out;
		if (!best_up || ns < best_up)
			best_up = ns;
	}
	if (memcmp(src.ptr, dst.ptr, size)) {
		fprintf(stderr, "dma-bench: data read back differs from what was written\n");
		goto out;
	}
	printf("dma_h2d_MiBps=%.1f dma_d2h_MiBps=%.1f\n", app_mib_per_s(size, best_down),
	       app_mib_per_s(size, best_up));
	rc = EXIT_SUCCESS;
out:
	app_copy_release(&dev, &up);
	app_copy_release(&dev, &down);
	if (have_hbm)
		hlthunk_device_memory_free(dev.fd, hbm_handle);
	app_host_buf_release(&dev, &dst);
	app_host_buf_release(&dev, &src);
	app_close(&dev);
	return rc;
}
