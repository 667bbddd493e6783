// SPDX-License-Identifier: MIT
/*
 * Responsiveness: while a GEMM of several seconds runs on the MME
 * (submitted through the driver on the MME queue, the host job waiting on
 * it through the sync manager), reading the device's state from user space
 * stays fast. The read is INFO HW_IDLE, which reads every engine's stream
 * status registers over MMIO, so it waits whenever the device model holds
 * the main loop. Its p99 latency must stay under 1 ms during the GEMM (a
 * device that computes in its main loop stalls it for the whole GEMM);
 * the latency when idle is measured in the same run and printed beside it.
 * The kernel log must show no RCU stall and no soft lockup afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_mme.h"
#include "hw/gaudisim_hw_sync.h"

/* 16 batches of 2048^3 FP32 (A, B and D shared by the batches): seconds. */
#define GEMM_DIM	2048u
#define GEMM_BATCH	16u
#define GEMM_BYTES	(4ull * GEMM_DIM * GEMM_DIM)

#define SAMPLES_IDLE	400u
#define SAMPLES_MAX	1000000u
/* Pause between reads while the GEMM runs, like a monitoring tool's poll. */
#define SAMPLE_GAP_NS	100000L
/* Reads that must land inside the GEMM, or the check did not run. */
#define SAMPLES_MIN_BUSY 200u
#define P99_BOUND_NS	1000000ull
#define CB_BYTES	4096
#define CS_TIMEOUT_S	100

/* One INFO HW_IDLE: its latency, and whether MME 0 (queues 33..36) was busy. */
static uint64_t timed_idle_read(int fd, bool *mme_busy)
{
	struct gaudisim_info_hw_idle idle;
	uint64_t t0, t1;

	memset(&idle, 0, sizeof(idle));
	t0 = now_ns();
	ck_assert_int_eq(hlthunk_get_info_op(fd, GAUDISIM_INFO_HW_IDLE, &idle, sizeof(idle)), 0);
	t1 = now_ns();
	*mme_busy = idle.busy_engines_mask & (1u << GAUDISIM_HL_ENGINE_ID_MME_2);
	return t1 - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v; the value below which pct percent of the samples lie. */
static uint64_t percentile(uint64_t *v, unsigned int n, unsigned int pct)
{
	unsigned int i = (unsigned int)(((uint64_t)n * pct + 99) / 100);

	qsort(v, n, sizeof(*v), cmp_u64);
	return v[i ? i - 1 : 0];
}

/* Zero SOB sob and arm monitor mon: SOB >= 1 adds 1 to fence 0 of queue. */
static void arm_monitor_ok(uint32_t sob, uint32_t mon, uint32_t queue)
{
	uint64_t fence = fence_rdata_addr(queue, 0);
	struct test_cb cb;

	cb_create_ok(dev_fd, &cb, CB_BYTES);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_ADDRL(mon), (uint32_t)fence);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_ADDRH(mon), (uint32_t)(fence >> 32));
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_DATA(mon), 1);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_ARM(mon), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 1));
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}

/*
 * The long GEMM's CB for the MME queue: the whole configuration in one
 * WREG_BULK (as a compiled recipe writes it), COMMIT, then the SOB signal
 * after the engine.
 */
static uint32_t build_gemm_cb(uint8_t *buf, uint32_t size, uint64_t a, uint64_t b,
			      uint64_t d, uint32_t sob)
{
	uint32_t cfg[GAUDISIM_MME_BETA / 4 + 1] = { 0 };
	const uint32_t hdr[2] = {
		sizeof(cfg) / 8,
		GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_BULK) | GAUDISIM_MME_A_ADDR_LO,
	};
	struct hlthunk_cb_writer w;

	cfg[GAUDISIM_MME_A_ADDR_LO / 4] = (uint32_t)a;
	cfg[GAUDISIM_MME_A_ADDR_HI / 4] = (uint32_t)(a >> 32);
	cfg[GAUDISIM_MME_B_ADDR_LO / 4] = (uint32_t)b;
	cfg[GAUDISIM_MME_B_ADDR_HI / 4] = (uint32_t)(b >> 32);
	cfg[GAUDISIM_MME_C_ADDR_LO / 4] = (uint32_t)d;
	cfg[GAUDISIM_MME_C_ADDR_HI / 4] = (uint32_t)(d >> 32);
	cfg[GAUDISIM_MME_D_ADDR_LO / 4] = (uint32_t)d;
	cfg[GAUDISIM_MME_D_ADDR_HI / 4] = (uint32_t)(d >> 32);
	cfg[GAUDISIM_MME_M / 4] = GEMM_DIM;
	cfg[GAUDISIM_MME_N / 4] = GEMM_DIM;
	cfg[GAUDISIM_MME_K / 4] = GEMM_DIM;
	cfg[GAUDISIM_MME_BATCH / 4] = GEMM_BATCH;
	cfg[GAUDISIM_MME_LDA / 4] = GEMM_DIM;
	cfg[GAUDISIM_MME_LDB / 4] = GEMM_DIM;
	cfg[GAUDISIM_MME_LDC / 4] = GEMM_DIM;
	cfg[GAUDISIM_MME_LDD / 4] = GEMM_DIM;
	/* Batch strides 0: every batch reads the same A and B and writes D. */
	cfg[GAUDISIM_MME_DTYPE / 4] =
		GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32);
	cfg[GAUDISIM_MME_ALPHA / 4] = 0x3F800000u;	/* 1.0f; BETA 0 */

	hlthunk_cbw_init(&w, buf, size);
	ck_assert_int_eq(hlthunk_cbw_dwords(&w, hdr, 2), 0);
	ck_assert_int_eq(hlthunk_cbw_dwords(&w, cfg, sizeof(cfg) / 4), 0);
	ck_assert_int_eq(hlthunk_cbw_wreg32(&w, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO, 0),
			 0);
	cbw_sob(&w, sob, GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL_EB);
	return w.used;
}

/* A marker in the kernel log; returns false when /dev/kmsg is not writable. */
static bool kmsg_mark(const char *marker)
{
	FILE *f = fopen("/dev/kmsg", "w");
	bool ok;

	if (!f)
		return false;
	ok = fprintf(f, "%s\n", marker) > 0;
	return fclose(f) == 0 && ok;
}

/* The kernel log after the marker holds none of the stall reports. */
static void kernel_log_clean_ok(const char *marker)
{
	static const char *const bad[] = {
		"rcu_sched self-detected stall", "rcu_preempt self-detected stall",
		"detected stalls on CPUs", "RCU Stall", "soft lockup", "hung_task",
		"blocked for more than",
	};
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *from;
	unsigned int i;
	int n;

	ck_assert_int_gt(len, 0);
	buf = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	from = strstr(buf, marker);
	ck_assert_msg(from != NULL, "kernel log lost the test's start marker");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!strstr(from, bad[i]), "kernel log reports \"%s\" during the GEMM",
			      bad[i]);
	free(buf);
}

START_TEST(info_stays_fast_during_long_gemm)
{
	struct gaudisim_info_sync_manager sm;
	struct gaudisim_cs_chunk chunks[2];
	uint64_t *idle_ns, *busy_ns, p50_idle, p99_idle, p50_busy, p99_busy, max_busy;
	const struct timespec gap = { 0, SAMPLE_GAP_NS };
	uint64_t t_start, t_gemm, seq;
	unsigned int i, nbusy = 0;
	uint32_t sob, mon, icb_size, status = ~0u;
	uint8_t icb[1024];
	struct hbm_buf hbm;
	struct test_cb cb;
	char marker[64];
	int ctl_fd;
	bool busy;

	idle_ns = calloc(SAMPLES_IDLE, sizeof(*idle_ns));
	busy_ns = calloc(SAMPLES_MAX, sizeof(*busy_ns));
	ck_assert(idle_ns && busy_ns);
	snprintf(marker, sizeof(marker), "gsim-test-responsive: start %d", (int)getpid());
	ck_assert_msg(kmsg_mark(marker), "cannot write /dev/kmsg: %s", strerror(errno));
	/* The control node: what hl-smi reads while a job runs. */
	ctl_fd = open_control_ok();

	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm)),
			 0);
	sob = sm.first_available_sync_object;
	mon = sm.first_available_monitor;
	hbm_alloc_ok(dev_fd, &hbm, 3 * GEMM_BYTES + 2 * MiB);
	icb_size = build_gemm_cb(icb, sizeof(icb), hbm.addr, hbm.addr + GEMM_BYTES,
				 hbm.addr + 2 * GEMM_BYTES, sob);
	put_in_hbm_ok(icb, icb_size, hbm.addr + 3 * GEMM_BYTES);
	arm_monitor_ok(sob, mon, QUEUE_H2D);

	/* Idle first: the reference latency, measured in this run. */
	for (i = 0; i < SAMPLES_IDLE; i++) {
		idle_ns[i] = timed_idle_read(ctl_fd, &busy);
		ck_assert(!busy);
	}

	cb_create_ok(dev_fd, &cb, CB_BYTES);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb.w, 0, 1, 1, 0), 0);
	chunks[0] = make_chunk(hbm.addr + 3 * GEMM_BYTES, GAUDISIM_QUEUE_ID_MME_0, icb_size);
	chunks[1] = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);
	t_start = now_ns();
	ck_assert_int_eq(submit_chunks(chunks, 2, CS_TIMEOUT_S, &seq), 0);

	/* Sample for as long as the MME queue reports the GEMM in flight. */
	for (;;) {
		uint64_t ns = timed_idle_read(ctl_fd, &busy);

		if (!busy && nbusy)
			break;
		if (busy)
			busy_ns[nbusy++] = ns;
		nanosleep(&gap, NULL);
		ck_assert_msg(nbusy < SAMPLES_MAX, "the GEMM never ended");
		ck_assert_msg(now_ns() - t_start < (uint64_t)CS_TIMEOUT_S * 1000000000ull,
			      "the GEMM did not start or did not end");
	}
	t_gemm = now_ns() - t_start;
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_DMA, &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);

	p50_idle = percentile(idle_ns, SAMPLES_IDLE, 50);
	p99_idle = percentile(idle_ns, SAMPLES_IDLE, 99);
	p50_busy = percentile(busy_ns, nbusy, 50);
	p99_busy = percentile(busy_ns, nbusy, 99);
	max_busy = busy_ns[nbusy - 1];
	printf("GEMM %ux%ux%u x%u: %.2f s; INFO HW_IDLE latency idle p50 %.1f us "
	       "p99 %.1f us; during the GEMM (%u reads) p50 %.1f us p99 %.1f us max %.1f us\n",
	       GEMM_DIM, GEMM_DIM, GEMM_DIM, GEMM_BATCH, (double)t_gemm / 1e9,
	       (double)p50_idle / 1e3, (double)p99_idle / 1e3, nbusy, (double)p50_busy / 1e3,
	       (double)p99_busy / 1e3, (double)max_busy / 1e3);
	fflush(stdout);
	ck_assert_msg(nbusy >= SAMPLES_MIN_BUSY,
		      "only %u reads during the GEMM: the measurement did not run", nbusy);
	ck_assert_msg(p99_busy < P99_BOUND_NS, "p99 INFO latency %.1f us during the GEMM",
		      (double)p99_busy / 1e3);
	kernel_log_clean_ok(marker);

	cb_destroy_ok(dev_fd, &cb);
	hbm_free_ok(dev_fd, &hbm);
	close(ctl_fd);
	free(idle_ns);
	free(busy_ns);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("responsive");
	TCase *tc = compute_tcase("long-gemm", TCASE_TIMEOUT_DMA);

	tcase_add_test(tc, info_stays_fast_during_long_gemm);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
