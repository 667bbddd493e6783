/* SPDX-License-Identifier: MIT */
/*
 * Code shared by the guest test programs: opening the device under
 * test, host and HBM buffers, command buffers, submitting and waiting with
 * bounded timeouts, deterministic data patterns, and the Check runner.
 *
 * Functions whose names end in _ok assert success (ck_assert) and so may
 * only be called from inside a test or a checked fixture.
 */
#ifndef GUEST_TEST_COMMON_H
#define GUEST_TEST_COMMON_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlthunk.h"
#include "hlthunk_packets.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_regs.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

/* Every wait is bounded. Generous: the guest runs under TCG. */
#define WAIT_US_SHORT	(10ULL * 1000 * 1000)
#define WAIT_US_DMA	(120ULL * 1000 * 1000)

/* Check timeouts (seconds) for test cases. */
#define TCASE_TIMEOUT_SHORT	60
#define TCASE_TIMEOUT_DMA	300

/* The external queue used for host->device and device->host copies. */
#define QUEUE_H2D	GAUDISIM_QUEUE_ID_DMA_0_0
#define QUEUE_D2H	GAUDISIM_QUEUE_ID_DMA_1_0

/* Device index under test: $GAUDISIM_TEST_DEVICE, default 0. */
int test_device_index(void);

/* Open the compute / control node of the device under test (asserting). */
int open_compute_ok(void);
int open_control_ok(void);

/* The compute fd opened by the fixture compute_setup (closed by compute_teardown). */
extern int dev_fd;
void compute_setup(void);
void compute_teardown(void);

/* ---- Buffers --------------------------------------------------------------- */

struct host_buf {
	uint8_t *ptr;		/* page-aligned */
	uint64_t size;		/* page multiple */
	uint64_t va;		/* device VA from MAP + USERPTR, 0 when unmapped */
};

/* Anonymous, populated, page-aligned memory of at least size bytes, mapped for DMA. */
void host_buf_map_ok(int fd, struct host_buf *b, uint64_t size);
/* Allocate without mapping (for negative tests). */
void host_buf_alloc_ok(struct host_buf *b, uint64_t size);
void host_buf_release(int fd, struct host_buf *b);

struct hbm_buf {
	uint64_t handle;
	uint64_t addr;		/* device address */
	uint64_t size;
};

void hbm_alloc_ok(int fd, struct hbm_buf *b, uint64_t size);
void hbm_free_ok(int fd, struct hbm_buf *b);

/* ---- Command buffers and submission ---------------------------------------- */

struct test_cb {
	uint64_t handle;
	uint8_t *ptr;
	uint32_t size;
	struct hlthunk_cb_writer w;	/* w.used = bytes to submit */
};

void cb_create_ok(int fd, struct test_cb *cb, uint32_t size);
void cb_destroy_ok(int fd, struct test_cb *cb);
/* Start writing packets from the beginning again. */
void cb_reset(struct test_cb *cb);

/* A chunk that runs cb_size bytes of a CB on a queue. */
struct gaudisim_cs_chunk make_chunk(uint64_t cb_handle, uint32_t queue, uint32_t cb_size);

/* Submit one chunk; returns the ioctl rc and stores the sequence number. */
int submit_chunk(int fd, const struct gaudisim_cs_chunk *chunk, uint64_t *seq);

/*
 * Submit the CB's written packets on queue. On success also waits for the
 * CS (asserting COMPLETED) so nothing stays in flight; returns the submit rc.
 */
int submit_cb(int fd, struct test_cb *cb, uint32_t queue, uint64_t wait_us);

/* Submit and expect success and a COMPLETED wait. */
void run_cb_ok(int fd, struct test_cb *cb, uint32_t queue, uint64_t wait_us);

/* Wait for seq and assert COMPLETED. */
void wait_completed_ok(int fd, uint64_t seq, uint64_t wait_us);

/* ---- DMA ------------------------------------------------------------------- */

/* Copy size bytes between device addresses with one LIN_DMA on queue (asserting). */
void dma_ok(int fd, uint64_t src, uint64_t dst, uint32_t size, uint32_t queue);
/* Fill size bytes at dst with value (LIN_DMA memset). */
void memset_ok(int fd, uint64_t dst, uint8_t value, uint32_t size, uint32_t queue);

/* Deterministic pseudo-random bytes from a seed. */
void fill_pattern(void *dst, size_t size, uint32_t seed);

/*
 * Index of the first differing byte, or -1 when equal. (Check's asserts
 * cost a pipe write each, so byte loops compare first and assert once.)
 */
long first_difference(const void *a, const void *b, size_t size);

/* Index of the first byte that is not value, or -1. */
long first_byte_not(const void *p, size_t size, uint8_t value);

/* ---- Info shortcuts -------------------------------------------------------- */

void hw_ip_ok(int fd, struct hlthunk_hw_ip_info *hw);

/*
 * The MEMORY calls as 0 / -errno (hl-thunk's return 0 with errno set), for
 * tests that check the driver's error codes; no page size, hint or sharing.
 */
int mem_alloc_rc(int fd, uint64_t size, uint64_t *handle);
int mem_map_rc(int fd, uint64_t handle, uint64_t *addr);
int host_map_rc(int fd, void *ptr, uint64_t size, uint64_t *va);
/* INFO DRAM_USAGE with the used and total bytes HW_IP_INFO implies. */
struct test_dram_usage {
	uint64_t dram_free_mem;
	uint64_t ctx_dram_mem;
	uint64_t dram_used_mem;
	uint64_t dram_total_mem;
};

void dram_usage_ok(int fd, struct test_dram_usage *usage);

/* How CSs ended (INFO CS_STATS) and the refusals (CS_COUNTERS). */
struct cs_counts {
	uint64_t submitted, completed, errors, timed_out;
	uint64_t validation_drop, parsing_drop, ctx_validation_drop, ctx_parsing_drop;
};

void cs_counts_ok(int fd, struct cs_counts *c);

/* ---- Sync manager, internal queues, events ---------------------------------- */

/* Device address of CP_FENCE_RDATA(fence) of a queue's stream. */
uint64_t fence_rdata_addr(uint32_t queue, uint32_t fence);
/* MSG_SHORT of value to CP_MSG_BASE<base> + offset (asserting room in the CB). */
void cbw_msg_short(struct hlthunk_cb_writer *w, uint32_t base, uint32_t offset,
		   uint32_t value, uint32_t barriers);
/* MSG_SHORT base 1 is the SOB array, base 0 the monitor arrays. */
void cbw_sob(struct hlthunk_cb_writer *w, uint32_t sob, uint32_t so_upd, uint32_t barriers);
/* reg: a GAUDISIM_SYNC_MON_* register offset of the sync-manager block. */
void cbw_mon_reg(struct hlthunk_cb_writer *w, uint32_t reg, uint32_t value);
/* Copy a CB image (or any data) into HBM with an external LIN_DMA on dev_fd. */
void put_in_hbm_ok(const void *data, uint32_t size, uint64_t hbm_addr);
/* Submit chunks on dev_fd (custom timeout when timeout_s); returns the rc. */
int submit_chunks(const struct gaudisim_cs_chunk *chunks, uint32_t n, uint32_t timeout_s,
		  uint64_t *seq);
/* Arm monitor mon: when SOB sob >= 1, add 1 to fence 0 of queue. */
void cbw_monitor_to_fence(struct hlthunk_cb_writer *w, uint32_t mon, uint32_t sob,
			  uint32_t queue);
/*
 * Run an internal CB on dev_fd the way Gaudi software waits for one: the
 * packets in *icb (room left for one more MSG_SHORT, which signals sob
 * behind an engine barrier) go to HBM at icb_addr and run on internal
 * queue; an external job on ext_queue waits on fence 0, raised by monitor
 * mon (armed first, in a CS of its own) when sob reaches 1. Returns the
 * WAIT_CS rc; *status gets the CS status.
 */
int run_internal_cb(struct hlthunk_cb_writer *icb, uint64_t icb_addr, uint32_t queue,
		    uint32_t ext_queue, uint32_t sob, uint32_t mon, uint32_t *status);
/*
 * The same with a CB of size bytes already at icb_addr (HBM, SRAM or a
 * mapped host VA), which signals sob itself.
 */
int run_internal_cb_at(uint64_t icb_addr, uint32_t size, uint32_t queue, uint32_t ext_queue,
		       uint32_t sob, uint32_t mon, uint32_t *status);
/* Wait (up to 30 s) until the device reports OPERATIONAL again after a reset. */
void wait_operational_ok(int fd);
/* Device events received per type since the driver loaded (HW_EVENTS_AGGREGATE). */
void events_ok(uint32_t *counts);
/* CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void);
void sleep_ms(long ms);

/* ---- Runner ---------------------------------------------------------------- */

/*
 * Run the suite (each test in its own process), print Check's report and
 * then "N passed, N failed"; returns the exit status.
 */
int run_suite(Suite *suite);

/* A test case with a checked fixture (setup/teardown may be NULL) and a timeout. */
TCase *fixture_tcase(const char *name, void (*setup)(void), void (*teardown)(void),
		     int timeout_s);
/* A test case with the compute fixture and a timeout. */
TCase *compute_tcase(const char *name, int timeout_s);

#endif /* GUEST_TEST_COMMON_H */
