// SPDX-License-Identifier: MIT
/*
 * dma-demo: move a buffer host -> HBM -> host through the PCI-DMA queues
 * and check that every byte came back.
 *
 * Two page-aligned host buffers are mapped for DMA (userptr), the source
 * is filled with a pattern, HBM is allocated, and each direction runs as
 * one command submission whose LIN_DMA packets are spread over the four
 * streams of one DMA engine. HBM is cleared first with a memset, which
 * also pays the device's first touch of that memory, so the two copies
 * compare fairly. Exit status 0 only on PASS.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_dma.h"

struct demo_options {
	int index;
	uint64_t size;
	uint64_t piece;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: dma-demo [-d INDEX] [-s MIB] [-p MIB]\n"
		"Copy a buffer host -> HBM -> host on a gaudisim device and verify it.\n"
		"  -d INDEX  device index (default 0)\n"
		"  -s MIB    buffer size in MiB (default 64)\n"
		"  -p MIB    bytes per LIN_DMA packet in MiB (default 4)\n");
}

static int parse(int argc, char **argv, struct demo_options *o)
{
	long v;
	int c;

	o->index = 0;
	o->size = 64 * APP_MiB;
	o->piece = 4 * APP_MiB;
	while ((c = getopt(argc, argv, "d:s:p:h")) != -1) {
		switch (c) {
		case 'd':
			v = app_parse_long(optarg, 0, HLTHUNK_MAX_MINOR - 1);
			if (v < 0)
				goto bad;
			o->index = (int)v;
			break;
		case 's':
			v = app_parse_long(optarg, 1, 4096);
			if (v < 0)
				goto bad;
			o->size = (uint64_t)v * APP_MiB;
			break;
		case 'p':
			v = app_parse_long(optarg, 1, 2048);
			if (v < 0)
				goto bad;
			o->piece = (uint64_t)v * APP_MiB;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind == argc)
		return 0;
bad:
	fprintf(stderr, "dma-demo: invalid argument\n");
	usage(stderr);
	exit(2);
}

/* Compare and report; returns 1 when identical. */
static int verify(const uint8_t *want, const uint8_t *got, uint64_t size)
{
	uint64_t i, first = 0, bad = 0;

	if (!memcmp(want, got, size)) {
		printf("  verify         : %llu bytes identical\n", (unsigned long long)size);
		return 1;
	}
	for (i = 0; i < size; i++) {
		if (want[i] != got[i]) {
			if (!bad)
				first = i;
			bad++;
		}
	}
	printf("  verify         : %llu of %llu bytes differ; first at byte %llu "
	       "(0x%02x, expected 0x%02x)\n", (unsigned long long)bad, (unsigned long long)size,
	       (unsigned long long)first, got[first], want[first]);
	return 0;
}

static void report_direction(const char *what, uint64_t size, int64_t ns, uint32_t queue,
			     uint32_t queues)
{
	printf("  %-14s : %llu MiB in %.3f s = %.1f MiB/s (queues %u-%u)\n", what,
	       (unsigned long long)(size / APP_MiB), (double)ns / 1e9,
	       app_mib_per_s(size, ns), queue, queue + queues - 1);
}

int main(int argc, char **argv)
{
	struct app_copy clear = { 0 }, down = { 0 }, up = { 0 };
	struct app_host_buf src = { 0 }, dst = { 0 };
	struct demo_options o;
	struct app_device dev;
	uint64_t hbm_handle = 0, hbm_addr = 0;
	int64_t clear_ns = 0, down_ns = 0, up_ns = 0;
	int rc, pass = 0, have_hbm = 0;

	parse(argc, argv, &o);
	printf("gaudisim DMA demo\n");
	if (app_open(&dev, o.index))
		goto out;
	printf("  device         : accel%d (%s), %.*s, driver %s\n", dev.index, dev.bus_id,
	       (int)sizeof(dev.hw.card_name), dev.hw.card_name, dev.driver_version);

	if (app_host_buf_map(&dev, &src, o.size) || app_host_buf_map(&dev, &dst, o.size))
		goto out;
	hbm_handle = hlthunk_device_memory_alloc(dev.fd, o.size, 0, true, false);
	have_hbm = hbm_handle != 0;
	hbm_addr = have_hbm ? hlthunk_device_memory_map(dev.fd, hbm_handle, 0) : 0;
	rc = hbm_addr ? 0 : -errno;
	if (rc) {
		fprintf(stderr, "cannot allocate %llu MiB of HBM: %s\n",
			(unsigned long long)(o.size / APP_MiB), strerror(-rc));
		goto out;
	}
	app_fill_pattern(src.ptr, o.size, 0x5eed);
	memset(dst.ptr, 0, o.size);

	if (app_fill_prepare(&dev, &clear, hbm_addr, 0, o.size, o.piece,
			     GAUDISIM_QUEUE_ID_DMA_0_0, APP_COPY_MAX_QUEUES) ||
	    app_copy_prepare(&dev, &down, src.va, hbm_addr, o.size, o.piece,
			     GAUDISIM_QUEUE_ID_DMA_0_0, APP_COPY_MAX_QUEUES) ||
	    app_copy_prepare(&dev, &up, hbm_addr, dst.va, o.size, o.piece,
			     GAUDISIM_QUEUE_ID_DMA_1_0, APP_COPY_MAX_QUEUES))
		goto out;
	printf("  transfer       : %llu MiB each way, %u LIN_DMA packets of up to %llu MiB, "
	       "one CS per direction\n", (unsigned long long)(o.size / APP_MiB),
	       down.num_packets, (unsigned long long)(o.piece / APP_MiB));
	printf("  HBM            : %llu MiB at device address 0x%llx\n",
	       (unsigned long long)(o.size / APP_MiB), (unsigned long long)hbm_addr);

	if (app_copy_run(&dev, &clear, &clear_ns))
		goto out;
	report_direction("HBM memset", o.size, clear_ns, GAUDISIM_QUEUE_ID_DMA_0_0,
			 clear.num_chunks);
	if (app_copy_run(&dev, &down, &down_ns))
		goto out;
	report_direction("host -> HBM", o.size, down_ns, GAUDISIM_QUEUE_ID_DMA_0_0,
			 down.num_chunks);
	if (app_copy_run(&dev, &up, &up_ns))
		goto out;
	report_direction("HBM -> host", o.size, up_ns, GAUDISIM_QUEUE_ID_DMA_1_0, up.num_chunks);
	pass = verify(src.ptr, dst.ptr, o.size);
out:
	if (dev.fd >= 0) {
		app_copy_release(&dev, &up);
		app_copy_release(&dev, &down);
		app_copy_release(&dev, &clear);
		if (have_hbm)
			hlthunk_device_memory_free(dev.fd, hbm_handle);
		app_host_buf_release(&dev, &dst);
		app_host_buf_release(&dev, &src);
		app_close(&dev);
	}
	printf("%s\n", pass ? "PASS" : "FAIL");
	return pass ? EXIT_SUCCESS : EXIT_FAILURE;
}
