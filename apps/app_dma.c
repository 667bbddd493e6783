// SPDX-License-Identifier: MIT
/* Building, running and timing the copies of the DMA demo and benchmark. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "app_dma.h"

/* Shared by copies and fills: a fill's src is the byte value, not an address. */
static int prepare(struct app_device *dev, struct app_copy *c, uint64_t src, uint64_t dst,
		   uint64_t size, uint64_t piece, uint32_t first_queue, uint32_t num_queues,
		   bool fill)
{
	uint64_t npieces, per_queue, off;
	uint32_t q, cb_size, i;
	int rc;

	memset(c, 0, sizeof(*c));
	if (!size || !piece || piece > GAUDISIM_LIN_DMA_MAX_TSIZE || !num_queues ||
	    num_queues > APP_COPY_MAX_QUEUES)
		return -EINVAL;
	npieces = (size + piece - 1) / piece;
	if (num_queues > npieces)
		num_queues = (uint32_t)npieces;
	per_queue = (npieces + num_queues - 1) / num_queues;
	if (per_queue * GAUDISIM_PKT_SIZE_LIN_DMA > GAUDISIM_CB_MAX_SIZE) {
		fprintf(stderr, "too many packets per command buffer; use bigger pieces\n");
		return -E2BIG;
	}
	cb_size = (uint32_t)(per_queue * GAUDISIM_PKT_SIZE_LIN_DMA);

	for (q = 0; q < num_queues; q++) {
		rc = app_cb_create(dev, &c->cbs[q], cb_size);
		if (rc) {
			app_copy_release(dev, c);
			return rc;
		}
		c->num_chunks++;
	}
	/* Piece i goes to queue i % num_queues, so every queue gets a share. */
	for (i = 0, off = 0; off < size; i++, off += piece) {
		uint64_t n = size - off < piece ? size - off : piece;

		if (fill)
			rc = hlthunk_cbw_memset(&c->cbs[i % num_queues].w, dst + off,
						(uint8_t)src, (uint32_t)n, 0);
		else
			rc = hlthunk_cbw_lin_dma(&c->cbs[i % num_queues].w, src + off,
						 dst + off, (uint32_t)n, 0, 0);
		if (rc) {
			app_copy_release(dev, c);
			return rc;
		}
		c->num_packets++;
	}
	for (q = 0; q < num_queues; q++) {
		memset(&c->chunks[q], 0, sizeof(c->chunks[q]));
		c->chunks[q].cb_handle = c->cbs[q].handle;
		c->chunks[q].queue_index = first_queue + q;
		c->chunks[q].cb_size = c->cbs[q].w.used;
	}
	return 0;
}

int app_copy_prepare(struct app_device *dev, struct app_copy *c, uint64_t src, uint64_t dst,
		     uint64_t size, uint64_t piece, uint32_t first_queue, uint32_t num_queues)
{
	return prepare(dev, c, src, dst, size, piece, first_queue, num_queues, false);
}

int app_fill_prepare(struct app_device *dev, struct app_copy *c, uint64_t dst, uint8_t value,
		     uint64_t size, uint64_t piece, uint32_t first_queue, uint32_t num_queues)
{
	return prepare(dev, c, value, dst, size, piece, first_queue, num_queues, true);
}

int app_copy_run(struct app_device *dev, const struct app_copy *c, int64_t *elapsed_ns)
{
	return app_submit_wait(dev, c->chunks, c->num_chunks, elapsed_ns);
}

void app_copy_release(struct app_device *dev, struct app_copy *c)
{
	uint32_t q;

	for (q = 0; q < c->num_chunks; q++)
		app_cb_destroy(dev, &c->cbs[q]);
	memset(c, 0, sizeof(*c));
}

double app_mib_per_s(uint64_t bytes, int64_t ns)
{
	if (ns <= 0)
		return 0.0;
	return ((double)bytes / (double)APP_MiB) / ((double)ns / 1e9);
}

void app_fill_pattern(void *dst, size_t size, uint32_t seed)
{
	uint8_t *p = dst;
	uint64_t x = 0x9E3779B97F4A7C15ULL ^ seed;
	size_t i;

	/* xorshift64, 8 bytes at a time: cheap even in an emulated guest. */
	for (i = 0; i < size; i += 8) {
		size_t n = size - i < 8 ? size - i : 8;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, n);
	}
}
