// SPDX-License-Identifier: MIT
/* Code shared by the guest test programs (see common.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_sync.h"

int dev_fd = -1;

int test_device_index(void)
{
	const char *env = getenv("GAUDISIM_TEST_DEVICE");

	return env && *env ? atoi(env) : 0;
}

int open_compute_ok(void)
{
	int fd = hlthunk_open_by_index(test_device_index());

	ck_assert_msg(fd >= 0, "hlthunk_open_by_index(%d): %s", test_device_index(), strerror(-fd));
	return fd;
}

int open_control_ok(void)
{
	int fd = hlthunk_open_control(test_device_index(), NULL);

	ck_assert_msg(fd >= 0, "hlthunk_open_control(%d, NULL): %s", test_device_index(),
		      strerror(-fd));
	return fd;
}

void compute_setup(void)
{
	dev_fd = open_compute_ok();
}

void compute_teardown(void)
{
	if (dev_fd >= 0)
		hlthunk_close(dev_fd);
	dev_fd = -1;
}

static uint64_t page_round_up(uint64_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	return (size + page - 1) & ~(page - 1);
}

int mem_alloc_rc(int fd, uint64_t size, uint64_t *handle)
{
	uint64_t h;

	errno = 0;
	h = hlthunk_device_memory_alloc(fd, size, 0, false, false);
	if (!h)
		return errno ? -errno : -EIO;
	*handle = h;
	return 0;
}

int mem_map_rc(int fd, uint64_t handle, uint64_t *addr)
{
	uint64_t a;

	errno = 0;
	a = hlthunk_device_memory_map(fd, handle, 0);
	if (!a)
		return errno ? -errno : -EIO;
	*addr = a;
	return 0;
}

int host_map_rc(int fd, void *ptr, uint64_t size, uint64_t *va)
{
	uint64_t v;

	errno = 0;
	v = hlthunk_host_memory_map(fd, ptr, 0, size);
	if (!v)
		return errno ? -errno : -EIO;
	*va = v;
	return 0;
}

void host_buf_alloc_ok(struct host_buf *b, uint64_t size)
{
	void *p;

	memset(b, 0, sizeof(*b));
	b->size = page_round_up(size);
	p = mmap(NULL, b->size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ck_assert_msg(p != MAP_FAILED, "mmap %llu bytes: %s", (unsigned long long)b->size,
		      strerror(errno));
	b->ptr = p;
}

void host_buf_map_ok(int fd, struct host_buf *b, uint64_t size)
{
	int rc;

	host_buf_alloc_ok(b, size);
	rc = host_map_rc(fd, b->ptr, b->size, &b->va);
	ck_assert_msg(rc == 0, "host_memory_map %llu bytes: %s",
		      (unsigned long long)b->size, strerror(-rc));
	ck_assert_msg(b->va >= GAUDISIM_HOST_VA_BASE &&
		      b->va - GAUDISIM_HOST_VA_BASE < GAUDISIM_HOST_VA_SIZE,
		      "userptr VA 0x%llx outside the host VA range", (unsigned long long)b->va);
}

void host_buf_release(int fd, struct host_buf *b)
{
	if (b->va)
		hlthunk_memory_unmap(fd, b->va);
	if (b->ptr)
		munmap(b->ptr, b->size);
	memset(b, 0, sizeof(*b));
}

void hbm_alloc_ok(int fd, struct hbm_buf *b, uint64_t size)
{
	int rc;

	memset(b, 0, sizeof(*b));
	rc = mem_alloc_rc(fd, size, &b->handle);
	ck_assert_msg(rc == 0, "HBM alloc %llu bytes: %s", (unsigned long long)size,
		      strerror(-rc));
	rc = mem_map_rc(fd, b->handle, &b->addr);
	ck_assert_msg(rc == 0, "HBM map: %s", strerror(-rc));
	b->size = size;
}

void hbm_free_ok(int fd, struct hbm_buf *b)
{
	int rc = hlthunk_device_memory_free(fd, b->handle);

	ck_assert_msg(rc == 0, "HBM free: %s", strerror(-rc));
	memset(b, 0, sizeof(*b));
}

void cb_create_ok(int fd, struct test_cb *cb, uint32_t size)
{
	int rc;

	memset(cb, 0, sizeof(*cb));
	rc = hlthunk_request_command_buffer(fd, size, &cb->handle);
	ck_assert_msg(rc == 0, "CB create %u bytes: %s", size, strerror(-rc));
	cb->ptr = hlthunk_cb_mmap(fd, cb->handle, size);
	ck_assert_msg(cb->ptr != NULL, "CB mmap: %s", strerror(errno));
	cb->size = size;
	cb_reset(cb);
}

void cb_reset(struct test_cb *cb)
{
	hlthunk_cbw_init(&cb->w, cb->ptr, cb->size);
}

void cb_destroy_ok(int fd, struct test_cb *cb)
{
	int rc;

	if (cb->ptr)
		hlthunk_cb_munmap(cb->ptr, cb->size);
	rc = hlthunk_destroy_command_buffer(fd, cb->handle);
	ck_assert_msg(rc == 0, "CB destroy: %s", strerror(-rc));
	memset(cb, 0, sizeof(*cb));
}

struct gaudisim_cs_chunk make_chunk(uint64_t cb_handle, uint32_t queue, uint32_t cb_size)
{
	struct gaudisim_cs_chunk chunk;

	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb_handle;
	chunk.queue_index = queue;
	chunk.cb_size = cb_size;
	return chunk;
}

int submit_chunk(int fd, const struct gaudisim_cs_chunk *chunk, uint64_t *seq)
{
	struct hlthunk_cs_in in = { .chunks_execute = chunk, .num_chunks_execute = 1 };
	struct hlthunk_cs_out out = { 0 };
	int rc = hlthunk_command_submission(fd, &in, &out);

	if (!rc && seq)
		*seq = out.seq;
	return rc;
}

void wait_completed_ok(int fd, uint64_t seq, uint64_t wait_us)
{
	uint32_t status = ~0u;
	int rc = hlthunk_wait_for_cs(fd, seq, wait_us, &status);

	ck_assert_msg(rc == 0, "WAIT_CS seq %llu: %s (status %u)", (unsigned long long)seq,
		      strerror(-rc), status);
	ck_assert_msg(status == GAUDISIM_WAIT_CS_STATUS_COMPLETED,
		      "WAIT_CS seq %llu: status %u", (unsigned long long)seq, status);
}

int submit_cb(int fd, struct test_cb *cb, uint32_t queue, uint64_t wait_us)
{
	struct gaudisim_cs_chunk chunk = make_chunk(cb->handle, queue, cb->w.used);
	uint64_t seq = 0;
	int rc = submit_chunk(fd, &chunk, &seq);

	if (!rc) {
		ck_assert_msg(seq != 0, "CS returned sequence number 0");
		wait_completed_ok(fd, seq, wait_us);
	}
	return rc;
}

void run_cb_ok(int fd, struct test_cb *cb, uint32_t queue, uint64_t wait_us)
{
	int rc = submit_cb(fd, cb, queue, wait_us);

	ck_assert_msg(rc == 0, "CS on queue %u: %s", queue, strerror(-rc));
}

static void one_packet_cs_ok(int fd, uint64_t src, uint64_t dst, uint32_t size,
			     uint32_t extra_ctl, uint32_t queue)
{
	struct test_cb cb;

	cb_create_ok(fd, &cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, src, dst, size, extra_ctl,
					     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB), 0);
	run_cb_ok(fd, &cb, queue, WAIT_US_DMA);
	cb_destroy_ok(fd, &cb);
}

void dma_ok(int fd, uint64_t src, uint64_t dst, uint32_t size, uint32_t queue)
{
	one_packet_cs_ok(fd, src, dst, size, 0, queue);
}

void memset_ok(int fd, uint64_t dst, uint8_t value, uint32_t size, uint32_t queue)
{
	one_packet_cs_ok(fd, value, dst, size, GAUDISIM_LIN_DMA_CTL_MEMSET, queue);
}

void fill_pattern(void *dst, size_t size, uint32_t seed)
{
	uint8_t *p = dst;
	uint64_t x = 0x9E3779B97F4A7C15ULL ^ seed;
	size_t i = 0;

	/* xorshift64: fast even under TCG, and every byte position differs. */
	while (i < size) {
		size_t n = size - i < 8 ? size - i : 8;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, n);
		i += n;
	}
}

long first_difference(const void *a, const void *b, size_t size)
{
	const uint8_t *pa = a, *pb = b;
	size_t i;

	if (!memcmp(a, b, size))
		return -1;
	for (i = 0; i < size; i++)
		if (pa[i] != pb[i])
			return (long)i;
	return -1;
}

long first_byte_not(const void *p, size_t size, uint8_t value)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < size; i++)
		if (b[i] != value)
			return (long)i;
	return -1;
}

void hw_ip_ok(int fd, struct hlthunk_hw_ip_info *hw)
{
	int rc = hlthunk_get_hw_ip_info(fd, hw);

	ck_assert_msg(rc == 0, "INFO HW_IP_INFO: %s", strerror(-rc));
}

void dram_usage_ok(int fd, struct test_dram_usage *usage)
{
	struct hlthunk_hw_ip_info hw;
	struct hlthunk_dram_usage_info u;
	int rc = hlthunk_get_dram_usage(fd, &u);

	ck_assert_msg(rc == 0, "INFO DRAM_USAGE: %s", strerror(-rc));
	hw_ip_ok(fd, &hw);
	ck_assert_uint_le(u.dram_free_mem, hw.dram_size);
	usage->dram_free_mem = u.dram_free_mem;
	usage->ctx_dram_mem = u.ctx_dram_mem;
	usage->dram_total_mem = hw.dram_size;
	usage->dram_used_mem = hw.dram_size - u.dram_free_mem;
}

void cs_counts_ok(int fd, struct cs_counts *c)
{
	struct gaudisim_info_cs_stats stats;
	struct gaudisim_info_cs_counters drops;

	ck_assert_int_eq(hlthunk_get_cs_stats(fd, &stats), 0);
	ck_assert_int_eq(hlthunk_get_cs_counters_info(fd, &drops), 0);
	c->submitted = stats.submitted;
	c->completed = stats.completed;
	c->errors = stats.errors;
	c->timed_out = stats.timed_out;
	c->validation_drop = drops.total_validation_drop_cnt;
	c->parsing_drop = drops.total_parsing_drop_cnt;
	c->ctx_validation_drop = drops.ctx_validation_drop_cnt;
	c->ctx_parsing_drop = drops.ctx_parsing_drop_cnt;
}

TCase *fixture_tcase(const char *name, void (*setup)(void), void (*teardown)(void),
		     int timeout_s)
{
	TCase *tc = tcase_create(name);

	if (setup || teardown)
		tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, timeout_s);
	return tc;
}

TCase *compute_tcase(const char *name, int timeout_s)
{
	return fixture_tcase(name, compute_setup, compute_teardown, timeout_s);
}

int run_suite(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	int run, failed;

	/* Each test in its own process: a crash or hang fails one test only. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("%d passed, %d failed\n", run - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ---- Sync manager, internal queues, events ------------------------------- */

/* Device address of CP_FENCE_RDATA(fence) of a queue's stream. */
uint64_t fence_rdata_addr(uint32_t queue, uint32_t fence)
{
	return GAUDISIM_CFG_BASE + GAUDISIM_QM_BLOCK(gaudisim_queue_engine(queue)) +
	       GAUDISIM_QM_CP_FENCE_RDATA(fence, gaudisim_queue_stream(queue));
}

void cbw_msg_short(struct hlthunk_cb_writer *w, uint32_t base, uint32_t offset,
			  uint32_t value, uint32_t barriers)
{
	const uint32_t pkt[2] = {
		value,
		GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) | barriers |
			base << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT | offset,
	};

	ck_assert_int_eq(hlthunk_cbw_dwords(w, pkt, 2), 0);
}

/* MSG_SHORT base 1 is the SOB array, base 0 the monitor arrays. */
void cbw_sob(struct hlthunk_cb_writer *w, uint32_t sob, uint32_t so_upd,
		    uint32_t barriers)
{
	cbw_msg_short(w, 1, 4 * sob, so_upd, barriers);
}

void cbw_mon_reg(struct hlthunk_cb_writer *w, uint32_t reg, uint32_t value)
{
	cbw_msg_short(w, 0, reg - GAUDISIM_SYNC_MON_BASE_OFFSET, value, 0);
}

/* Copy a CB image into HBM with an external LIN_DMA. */
void put_in_hbm_ok(const void *data, uint32_t size, uint64_t hbm_addr)
{
	struct host_buf hb;

	host_buf_map_ok(dev_fd, &hb, size);
	memcpy(hb.ptr, data, size);
	dma_ok(dev_fd, hb.va, hbm_addr, size, QUEUE_H2D);
	host_buf_release(dev_fd, &hb);
}

int submit_chunks(const struct gaudisim_cs_chunk *chunks, uint32_t n,
			 uint32_t timeout_s, uint64_t *seq)
{
	struct hlthunk_cs_in in = {
		.chunks_execute = chunks,
		.num_chunks_execute = n,
		.flags = timeout_s ? GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT : 0,
		.timeout_s = timeout_s,
	};
	struct hlthunk_cs_out out = { 0 };
	int rc;

	rc = hlthunk_command_submission(dev_fd, &in, &out);
	*seq = out.seq;
	return rc;
}

void events_ok(uint32_t *counts)
{
	memset(counts, 0, GAUDISIM_INFO_HW_EVENTS_NUM * sizeof(*counts));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_HW_EVENTS_AGGREGATE, counts,
					  GAUDISIM_INFO_HW_EVENTS_NUM * sizeof(*counts)), 0);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Arm monitor mon: when SOB sob >= 1, add 1 to fence 0 of queue. */
void cbw_monitor_to_fence(struct hlthunk_cb_writer *w, uint32_t mon, uint32_t sob,
			  uint32_t queue)
{
	uint64_t addr = fence_rdata_addr(queue, 0);

	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRL(mon), (uint32_t)addr);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRH(mon), (uint32_t)(addr >> 32));
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_DATA(mon), 1);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_ARM(mon), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 1));
}

int run_internal_cb(struct hlthunk_cb_writer *icb, uint64_t icb_addr, uint32_t queue,
		    uint32_t ext_queue, uint32_t sob, uint32_t mon, uint32_t *status)
{
	cbw_sob(icb, sob, GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL_EB);
	put_in_hbm_ok(icb->base, icb->used, icb_addr);
	return run_internal_cb_at(icb_addr, icb->used, queue, ext_queue, sob, mon, status);
}

int run_internal_cb_at(uint64_t icb_addr, uint32_t size, uint32_t queue, uint32_t ext_queue,
		       uint32_t sob, uint32_t mon, uint32_t *status)
{
	struct gaudisim_cs_chunk chunks[2];
	struct test_cb cb;
	uint64_t seq;
	int rc;

	/* Zero the SOB and arm the monitor first, in a CS of their own. */
	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor_to_fence(&cb.w, mon, sob, ext_queue);
	run_cb_ok(dev_fd, &cb, ext_queue, WAIT_US_SHORT);
	cb_reset(&cb);

	ck_assert_int_eq(hlthunk_cbw_fence(&cb.w, 0, 1, 1, 0), 0);
	chunks[0] = make_chunk(icb_addr, queue, size);
	chunks[1] = make_chunk(cb.handle, ext_queue, cb.w.used);
	ck_assert_int_eq(submit_chunks(chunks, 2, 60, &seq), 0);
	*status = ~0u;
	rc = hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_DMA, status);
	cb_destroy_ok(dev_fd, &cb);
	return rc;
}

void wait_operational_ok(int fd)
{
	uint32_t status = ~0u;
	int i;

	for (i = 0; i < 300; i++) {
		ck_assert_int_eq(hlthunk_get_device_status(fd, &status), 0);
		if (status == GAUDISIM_DEVICE_STATUS_OPERATIONAL)
			return;
		sleep_ms(100);
	}
	ck_abort_msg("device status %u 30 s after a reset", status);
}
