/* SPDX-License-Identifier: MIT */
/*
 * A prepared copy (or fill): size bytes from src to dst (device addresses), split
 * into LIN_DMA packets of at most `piece` bytes, spread over consecutive
 * queues, submitted as one CS. Prepared once, run as often as needed.
 */
#ifndef APP_DMA_H
#define APP_DMA_H

#include "app_device.h"
#include "hw/gaudisim_hw_queues.h"

#define APP_COPY_MAX_QUEUES GAUDISIM_STREAMS_PER_QMAN

struct app_copy {
	struct app_cb cbs[APP_COPY_MAX_QUEUES];
	struct gaudisim_cs_chunk chunks[APP_COPY_MAX_QUEUES];
	uint32_t num_chunks;
	uint32_t num_packets;
};

int app_copy_prepare(struct app_device *dev, struct app_copy *c, uint64_t src, uint64_t dst,
		     uint64_t size, uint64_t piece, uint32_t first_queue, uint32_t num_queues);
/* The same for a fill: size bytes at dst set to value (LIN_DMA memset). */
int app_fill_prepare(struct app_device *dev, struct app_copy *c, uint64_t dst, uint8_t value,
		     uint64_t size, uint64_t piece, uint32_t first_queue, uint32_t num_queues);
int app_copy_run(struct app_device *dev, const struct app_copy *c, int64_t *elapsed_ns);
void app_copy_release(struct app_device *dev, struct app_copy *c);

/* MiB/s for bytes moved in ns. */
double app_mib_per_s(uint64_t bytes, int64_t ns);

/* Deterministic pseudo-random bytes. */
void app_fill_pattern(void *dst, size_t size, uint32_t seed);

#endif /* APP_DMA_H */
