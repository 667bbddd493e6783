/* SPDX-License-Identifier: MIT */
/*
 * Shared by the demo and benchmark programs: opening the device with
 * helpful errors, host buffers mapped for DMA, command buffers, and timed
 * submit-and-wait. Functions print their own error to stderr and return
 * a negative errno.
 */
#ifndef APP_DEVICE_H
#define APP_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "hlthunk.h"
#include "hlthunk_packets.h"

#define APP_MiB (1ULL << 20)
/* Every wait is bounded; the guest may run under TCG. */
#define APP_WAIT_US (120ULL * 1000 * 1000)

struct app_device {
	int index;
	int fd;
	char bus_id[HLTHUNK_BUS_ID_MAX_LEN];
	char driver_version[GAUDISIM_VERSION_STR_LEN];
	struct hlthunk_hw_ip_info hw;
};

/* Open the compute node; on EBUSY names the process that holds it. */
int app_open(struct app_device *dev, int index);
void app_close(struct app_device *dev);

struct app_host_buf {
	uint8_t *ptr;
	uint64_t size;
	uint64_t va;	/* device VA of the userptr mapping */
};

int app_host_buf_map(struct app_device *dev, struct app_host_buf *b, uint64_t size);
void app_host_buf_release(struct app_device *dev, struct app_host_buf *b);

struct app_cb {
	uint64_t handle;
	void *ptr;
	uint32_t size;
	struct hlthunk_cb_writer w;
};

int app_cb_create(struct app_device *dev, struct app_cb *cb, uint32_t size);
void app_cb_destroy(struct app_device *dev, struct app_cb *cb);

/*
 * Submit the chunks as one CS and wait for it; elapsed_ns (may be NULL)
 * gets CLOCK_MONOTONIC time from just before the submit to just after the
 * wait.
 */
int app_submit_wait(struct app_device *dev, const struct gaudisim_cs_chunk *chunks,
		    uint32_t num_chunks, int64_t *elapsed_ns);

int64_t app_monotonic_ns(void);

/* Parse a positive integer option value in [min, max]; -1 when invalid. */
long app_parse_long(const char *text, long min, long max);

#endif /* APP_DEVICE_H */
