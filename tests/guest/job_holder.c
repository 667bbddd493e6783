// SPDX-License-Identifier: MIT
/*
 * gsim-job-holder: hold the device busy while it is taken away (driver
 * unbind, module unload, hot unplug), then report what the process saw.
 *
 * Opens the compute node, maps a CB, maps host memory for DMA, allocates
 * HBM, submits a CS that FENCEs on a fence nobody raises (with a long
 * timeout, so only the removal can end it) and a CS queued behind it,
 * prints "holder: ready" and blocks in WAIT_CS. When the device goes, the
 * wait must end with an error (EIO/ABORTED or ENODEV) well before its own
 * timeout, and a new ioctl must fail with ENODEV; unmapping and closing
 * must still work. Prints "holder: PASS" and exits 0 then, else
 * "holder: FAIL ..." and exits 1.
 *   gsim-job-holder [-d INDEX] [-w SECONDS]
 *     -d: accel device index (default 0); -w: how long to wait for the
 *     removal (default 60)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hlthunk.h"
#include "hlthunk_packets.h"
#include "hw/gaudisim_hw_queues.h"

#define HOLD_TIMEOUT_S	600	/* the hung CS's own timeout: longer than any test */
#define HOST_BYTES	(64 * 1024)

static int fail(const char *what, int rc)
{
	printf("holder: FAIL %s: %d (%s)\n", what, rc, strerror(rc < 0 ? -rc : rc));
	return 1;
}

static int submit(int fd, uint64_t handle, uint32_t size, uint64_t *seq)
{
	struct gaudisim_cs_chunk chunk = {
		.cb_handle = handle, .queue_index = GAUDISIM_QUEUE_ID_DMA_0_0, .cb_size = size,
	};
	struct hlthunk_cs_in in = {
		.chunks_execute = &chunk, .num_chunks_execute = 1,
		.flags = GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT, .timeout_s = HOLD_TIMEOUT_S,
	};
	struct hlthunk_cs_out out;
	int rc = hlthunk_command_submission(fd, &in, &out);

	*seq = out.seq;
	return rc;
}

int main(int argc, char **argv)
{
	struct hlthunk_cb_writer w;
	struct hlthunk_hw_ip_info hw;
	uint64_t cb, hbm, hbm_addr, va, seq_hang, seq_behind;
	uint32_t status = ~0u, wait_s = 60;
	int index = 0;
	struct timespec t0, t1;
	double waited;
	void *host, *map;
	int fd, rc, after, opt;

	while ((opt = getopt(argc, argv, "d:w:")) != -1) {
		if (opt == 'd' && atoi(optarg) >= 0 && *optarg >= '0' && *optarg <= '9') {
			index = atoi(optarg);
		} else if (opt == 'w' && atoi(optarg) > 0) {
			wait_s = (uint32_t)atoi(optarg);
		} else {
			fprintf(stderr, "usage: %s [-d INDEX] [-w SECONDS]\n", argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: %s [-d INDEX] [-w SECONDS]\n", argv[0]);
		return 2;
	}

	fd = hlthunk_open_by_index(index);
	if (fd < 0)
		return fail("open", fd);
	rc = hlthunk_request_command_buffer(fd, 4096, &cb);
	if (rc)
		return fail("CB create", rc);
	map = hlthunk_cb_mmap(fd, cb, 4096);
	if (!map)
		return fail("CB mmap", -errno);
	host = mmap(NULL, HOST_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (host == MAP_FAILED)
		return fail("host buffer", -errno);
	va = hlthunk_host_memory_map(fd, host, 0, HOST_BYTES);
	if (!va)
		return fail("userptr map", -errno);
	hbm = hlthunk_device_memory_alloc(fd, GAUDISIM_DRAM_PAGE_SIZE, 0, true, false);
	hbm_addr = hbm ? hlthunk_device_memory_map(fd, hbm, 0) : 0;
	if (!hbm_addr)
		return fail("HBM", -errno);

	/* Packet 0: a FENCE nobody satisfies; packet 1 (offset 8): a NOP. */
	hlthunk_cbw_init(&w, map, 4096);
	if (hlthunk_cbw_fence(&w, 0, 1, 1, 0) || hlthunk_cbw_nop(&w, 0))
		return fail("CB write", -ENOSPC);
	rc = submit(fd, cb, 8, &seq_hang);
	if (!rc)
		rc = submit(fd, cb, 8, &seq_behind);
	if (rc)
		return fail("submit", rc);

	printf("holder: ready (pid %d, CS %llu hangs, CS %llu behind it)\n", (int)getpid(),
	       (unsigned long long)seq_hang, (unsigned long long)seq_behind);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = hlthunk_wait_for_cs(fd, seq_hang, (uint64_t)wait_s * 1000000, &status);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	after = hlthunk_get_hw_ip_info(fd, &hw);
	printf("holder: wait rc %d (%s) status %u after %.1f s; next ioctl rc %d (%s)\n", rc,
	       strerror(-rc), status, waited, after, strerror(-after));

	/* Whatever the device did, the process tears down cleanly. */
	if (hlthunk_cb_munmap(map, 4096))
		return fail("CB munmap", -errno);
	munmap(host, HOST_BYTES);
	if (hlthunk_close(fd))
		return fail("close", -errno);

	if (rc == 0 && status == GAUDISIM_WAIT_CS_STATUS_BUSY)
		return fail("the wait ran out: the CS is still running", -ETIMEDOUT);
	if (rc != -EIO && rc != -ENODEV)
		return fail("wait", rc);
	if (after != -ENODEV)
		return fail("ioctl after removal", after);
	printf("holder: PASS\n");
	return 0;
}
