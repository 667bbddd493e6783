// SPDX-License-Identifier: MIT
/* Device, buffer and submission code shared by the demo and benchmark programs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "app_device.h"

/* Who holds the device, from the control node, for the EBUSY message. */
static void report_holder(int index)
{
	struct gaudisim_info_open_stats stats;
	char path[64], name[64] = "?";
	int fd = hlthunk_open_control(index, NULL);
	FILE *f;

	if (fd < 0)
		return;
	/* The driver's struct: hl-thunk's has no holder PID. */
	if (!hlthunk_get_info_op(fd, GAUDISIM_INFO_OPEN_STATS, &stats, sizeof(stats)) &&
	    stats.is_compute_ctx_active) {
		snprintf(path, sizeof(path), "/proc/%u/comm", stats.compute_pid);
		f = fopen(path, "re");
		if (f) {
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = '\0';
			fclose(f);
		}
		fprintf(stderr, "  accel%d is held by pid %u (%s)\n", index, stats.compute_pid,
			name);
	}
	hlthunk_close(fd);
}

int app_open(struct app_device *dev, int index)
{
	int rc;

	memset(dev, 0, sizeof(*dev));
	dev->index = index;
	dev->fd = hlthunk_open_by_index(index);
	if (dev->fd < 0) {
		rc = dev->fd;
		fprintf(stderr, "cannot open accel%d: %s\n", index, strerror(-rc));
		if (rc == -EBUSY)
			report_holder(index);
		else if (rc == -ENOENT)
			fprintf(stderr, "  is the gaudisim driver loaded? (%d device(s) found)\n",
				hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE));
		return rc;
	}
	rc = hlthunk_get_hw_ip_info(dev->fd, &dev->hw);
	if (rc) {
		fprintf(stderr, "INFO HW_IP_INFO failed: %s\n", strerror(-rc));
		app_close(dev);
		return rc;
	}
	if (hlthunk_get_pci_bus_id_from_fd(dev->fd, dev->bus_id, sizeof(dev->bus_id)))
		snprintf(dev->bus_id, sizeof(dev->bus_id), "?");
	if (hlthunk_get_driver_version(dev->fd, dev->driver_version, sizeof(dev->driver_version)))
		snprintf(dev->driver_version, sizeof(dev->driver_version), "?");
	return 0;
}

void app_close(struct app_device *dev)
{
	if (dev->fd >= 0)
		hlthunk_close(dev->fd);
	dev->fd = -1;
}

int app_host_buf_map(struct app_device *dev, struct app_host_buf *b, uint64_t size)
{
	void *p;
	int rc;

	memset(b, 0, sizeof(*b));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		 -1, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		fprintf(stderr, "cannot allocate %llu MiB of host memory: %s\n",
			(unsigned long long)(size / APP_MiB), strerror(-rc));
		return rc;
	}
	b->ptr = p;
	b->size = size;
	b->va = hlthunk_host_memory_map(dev->fd, b->ptr, 0, size);
	rc = b->va ? 0 : -errno;
	if (rc) {
		fprintf(stderr, "cannot map %llu MiB of host memory for DMA: %s\n",
			(unsigned long long)(size / APP_MiB), strerror(-rc));
		app_host_buf_release(dev, b);
	}
	return rc;
}

void app_host_buf_release(struct app_device *dev, struct app_host_buf *b)
{
	if (b->va)
		hlthunk_memory_unmap(dev->fd, b->va);
	if (b->ptr)
		munmap(b->ptr, b->size);
	memset(b, 0, sizeof(*b));
}

int app_cb_create(struct app_device *dev, struct app_cb *cb, uint32_t size)
{
	int rc;

	memset(cb, 0, sizeof(*cb));
	rc = hlthunk_request_command_buffer(dev->fd, size, &cb->handle);
	if (rc) {
		fprintf(stderr, "cannot create a %u-byte command buffer: %s\n", size,
			strerror(-rc));
		return rc;
	}
	cb->ptr = hlthunk_cb_mmap(dev->fd, cb->handle, size);
	if (!cb->ptr) {
		rc = -errno;
		fprintf(stderr, "cannot map the command buffer: %s\n", strerror(-rc));
		hlthunk_destroy_command_buffer(dev->fd, cb->handle);
		return rc;
	}
	cb->size = size;
	hlthunk_cbw_init(&cb->w, cb->ptr, size);
	return 0;
}

void app_cb_destroy(struct app_device *dev, struct app_cb *cb)
{
	if (cb->ptr)
		hlthunk_cb_munmap(cb->ptr, cb->size);
	if (cb->size)
		hlthunk_destroy_command_buffer(dev->fd, cb->handle);
	memset(cb, 0, sizeof(*cb));
}

int64_t app_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int app_submit_wait(struct app_device *dev, const struct gaudisim_cs_chunk *chunks,
		    uint32_t num_chunks, int64_t *elapsed_ns)
{
	struct hlthunk_cs_in in = { .chunks_execute = chunks, .num_chunks_execute = num_chunks };
	struct hlthunk_cs_out out;
	uint32_t status = ~0u;
	int64_t start;
	int rc;

	start = app_monotonic_ns();
	rc = hlthunk_command_submission(dev->fd, &in, &out);
	if (rc) {
		fprintf(stderr, "command submission failed: %s\n", strerror(-rc));
		return rc;
	}
	rc = hlthunk_wait_for_cs(dev->fd, out.seq, APP_WAIT_US, &status);
	if (elapsed_ns)
		*elapsed_ns = app_monotonic_ns() - start;
	if (rc || status != GAUDISIM_WAIT_CS_STATUS_COMPLETED) {
		fprintf(stderr, "waiting for CS %llu failed: %s (status %u)\n",
			(unsigned long long)out.seq, rc ? strerror(-rc) : "not completed", status);
		return rc ? rc : -EIO;
	}
	return 0;
}

long app_parse_long(const char *text, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max)
		return -1;
	return v;
}
