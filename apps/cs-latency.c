// SPDX-License-Identifier: MIT
/*
 * cs-latency: round-trip time of a command submission beside the cost of
 * a bare ioctl in the same guest. N times: submit a CS with one NOP job and
 * wait for it, then make one INFO ioctl (HW_IP_INFO, answered by the
 * driver alone); the two alternate so both see the same machine. Prints
 * the median and 99th percentile of each in microseconds, and the CS round
 * trip less the ioctl round trip (what the submission path itself costs
 * beyond entering the driver):
 *   cs_latency_us median=X p99=Y info_ioctl_us median=A p99=B cs_minus_ioctl_us=C
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_device.h"
#include "hw/gaudisim_hw_queues.h"

#define WARMUP 10

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: cs-latency [-d INDEX] [-n COUNT] [-q QUEUE]\n"
		"  -d INDEX  device index (default 0)\n"
		"  -n COUNT  measured round trips (default 1000)\n"
		"  -q QUEUE  external queue ID 0-%d (default 0)\n", GAUDISIM_NUM_EXT_QUEUES - 1);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile_us(const int64_t *sorted, long n, int pct)
{
	long rank = (n * pct + 99) / 100;

	if (rank < 1)
		rank = 1;
	return (double)sorted[rank - 1] / 1000.0;
}

int main(int argc, char **argv)
{
	struct gaudisim_cs_chunk chunk;
	struct app_device dev;
	struct app_cb cb;
	long count = 1000, i, v;
	int index = 0, c, rc = EXIT_FAILURE;
	uint32_t queue = GAUDISIM_QUEUE_ID_DMA_0_0;
	struct hlthunk_hw_ip_info hw;
	int64_t *samples, *info, t0;
	double cs_med, info_med;

	while ((c = getopt(argc, argv, "d:n:q:h")) != -1) {
		v = c == 'h' || c == '?' ? 0 :
		    app_parse_long(optarg, c == 'n' ? 1 : 0,
				   c == 'n' ? 10000000 :
				   c == 'q' ? GAUDISIM_NUM_EXT_QUEUES - 1 : HLTHUNK_MAX_MINOR - 1);
		if (c == 'h') {
			usage(stdout);
			return EXIT_SUCCESS;
		}
		if (c == '?' || v < 0) {
			usage(stderr);
			return 2;
		}
		if (c == 'd')
			index = (int)v;
		else if (c == 'n')
			count = v;
		else
			queue = (uint32_t)v;
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	samples = calloc((size_t)count, sizeof(*samples));
	info = calloc((size_t)count, sizeof(*info));
	if (!samples || !info) {
		fprintf(stderr, "cs-latency: out of memory\n");
		return EXIT_FAILURE;
	}
	if (app_open(&dev, index))
		goto out_free;
	if (app_cb_create(&dev, &cb, 64))
		goto out_close;
	if (hlthunk_cbw_nop(&cb.w, 0))
		goto out_cb;
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb.handle;
	chunk.queue_index = queue;
	chunk.cb_size = cb.w.used;

	for (i = 0; i < WARMUP; i++)
		if (app_submit_wait(&dev, &chunk, 1, NULL))
			goto out_cb;
	for (i = 0; i < count; i++) {
		int err;

		if (app_submit_wait(&dev, &chunk, 1, &samples[i]))
			goto out_cb;
		t0 = app_monotonic_ns();
		err = hlthunk_get_hw_ip_info(dev.fd, &hw);
		info[i] = app_monotonic_ns() - t0;
		if (err) {
			fprintf(stderr, "cs-latency: INFO ioctl failed: %s\n", strerror(-err));
			goto out_cb;
		}
	}
	qsort(samples, (size_t)count, sizeof(*samples), cmp_i64);
	qsort(info, (size_t)count, sizeof(*info), cmp_i64);
	cs_med = percentile_us(samples, count, 50);
	info_med = percentile_us(info, count, 50);
	printf("cs_latency_us median=%.1f p99=%.1f info_ioctl_us median=%.1f p99=%.1f "
	       "cs_minus_ioctl_us=%.1f\n", cs_med, percentile_us(samples, count, 99), info_med,
	       percentile_us(info, count, 99), cs_med - info_med);
	rc = EXIT_SUCCESS;
out_cb:
	app_cb_destroy(&dev, &cb);
out_close:
	app_close(&dev);
out_free:
	free(samples);
	free(info);
	return rc;
}
