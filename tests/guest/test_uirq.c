// SPDX-License-Identifier: MIT
/*
 * WAIT_CS on user interrupts (habanalabs' interrupt wait with a user
 * address): a waiter sleeps until *addr >= target, re-checking only when
 * its interrupt ID fires. The interrupt comes from a CB (MSG_LONG to
 * USER_INTR) or a monitor payload; the counter is host memory the device
 * writes through a userptr mapping.
 *
 * Blocking tests run the wait in a thread and first make sure it sleeps
 * in the kernel (its /proc state is S), so "not woken" is checked against
 * a waiter that really waits, never against one that has not started.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "sysfs_util.h"
#include "hw/gaudisim_hw_sync.h"

#define UIRQ_FIRST	GAUDISIM_MSIX_VEC_USER_FIRST
#define UIRQ_NUM	GAUDISIM_MSIX_NUM_USER
#define UIRQ_ANY	UINT32_MAX
#define QUEUE		QUEUE_H2D
/* How long a waiter that must stay asleep is watched. */
#define STILL_MS	300

static struct host_buf counters;	/* u64 slots the device writes */
static struct test_cb cb;

static void uirq_setup(void)
{
	compute_setup();
	host_buf_map_ok(dev_fd, &counters, 4096);
	memset(counters.ptr, 0, counters.size);
	cb_create_ok(dev_fd, &cb, 4096);
}

static void uirq_teardown(void)
{
	cb_destroy_ok(dev_fd, &cb);
	host_buf_release(dev_fd, &counters);
	compute_teardown();
}

static uint64_t *slot(uint32_t i)
{
	return (uint64_t *)(counters.ptr + 8 * i);
}

static uint64_t slot_va(uint32_t i)
{
	return counters.va + 8 * i;
}

/* Run a CB that sets slot i to value and then, if id, raises interrupt id. */
static void write_and_raise_ok(uint32_t i, uint32_t value, uint32_t id)
{
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, slot_va(i), value, 0), 0);
	if (id)
		ck_assert_int_eq(hlthunk_cbw_user_interrupt(&cb.w, id), 0);
	run_cb_ok(dev_fd, &cb, QUEUE, WAIT_US_SHORT);
}

/* ---- Waiter threads ------------------------------------------------------- */

struct waiter {
	uint64_t *addr;
	uint64_t target;
	uint32_t id;
	uint64_t timeout_us;
	int rc;
	uint32_t status;
	uint64_t ts;
	atomic_int tid;
	atomic_int done;
	pthread_t thread;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->tid, (int)syscall(SYS_gettid));
	w->rc = hlthunk_wait_for_interrupt_with_timestamp(dev_fd, w->addr, w->target, w->id,
							   w->timeout_us, &w->status, &w->ts);
	atomic_store(&w->done, 1);
	return NULL;
}

/* The state letter of a thread of this process, or 0. */
static char thread_state(int tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Start a waiter and return once it sleeps in the wait (asserting). */
static void waiter_start_ok(struct waiter *w, uint64_t *addr, uint64_t target, uint32_t id,
			    uint64_t timeout_us)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->addr = addr;
	w->target = target;
	w->id = id;
	w->timeout_us = timeout_us;
	w->rc = -1;
	w->status = ~0u;
	ck_assert_int_eq(pthread_create(&w->thread, NULL, waiter_main, w), 0);
	for (i = 0; i < 1000; i++) {
		int tid = atomic_load(&w->tid);

		ck_assert_msg(!atomic_load(&w->done), "waiter on %u returned at once: rc %d status %u",
			      id, w->rc, w->status);
		if (tid && thread_state(tid) == 'S')
			return;
		sleep_ms(10);
	}
	ck_abort_msg("waiter on %u never slept", id);
}

/* The waiter still sleeps STILL_MS later. */
static void still_waiting_ok(struct waiter *w)
{
	sleep_ms(STILL_MS);
	ck_assert_msg(!atomic_load(&w->done), "waiter on %u woke: rc %d status %u", w->id,
		      w->rc, w->status);
}

static void waiter_join(struct waiter *w)
{
	ck_assert_int_eq(pthread_join(w->thread, NULL), 0);
}

static void waiter_completed_ok(struct waiter *w)
{
	waiter_join(w);
	ck_assert_int_eq(w->rc, 0);
	ck_assert_uint_eq(w->status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_ne(w->ts, 0);
}

/* ---- Positive --------------------------------------------------------------- */

START_TEST(cb_raises_the_interrupt)
{
	struct waiter w;
	uint64_t before, after;

	waiter_start_ok(&w, slot(0), 1, UIRQ_FIRST, WAIT_US_SHORT);
	before = now_ns();
	write_and_raise_ok(0, 1, UIRQ_FIRST);
	waiter_completed_ok(&w);
	after = now_ns();
	ck_assert_uint_eq(*slot(0), 1);
	/* The time of the interrupt, taken while the CS ran. */
	ck_assert_uint_ge(w.ts, before);
	ck_assert_uint_le(w.ts, after);
}
END_TEST

START_TEST(monitor_payload_raises_the_interrupt)
{
	struct gaudisim_info_sync_manager sm;
	uint64_t intr = GAUDISIM_CFG_BASE + GAUDISIM_REG_USER_INTR;
	uint32_t id = UIRQ_FIRST + 1, sob, mon;
	struct waiter w;

	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm)),
			 0);
	sob = sm.first_available_sync_object;
	mon = sm.first_available_monitor;

	/* Arm: when the SOB reaches 1, the monitor writes id to USER_INTR. */
	cb_reset(&cb);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_ADDRL(mon), (uint32_t)intr);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_ADDRH(mon), (uint32_t)(intr >> 32));
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_DATA(mon), id);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_ARM(mon), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 1));
	run_cb_ok(dev_fd, &cb, QUEUE, WAIT_US_SHORT);

	waiter_start_ok(&w, slot(1), 7, id, WAIT_US_SHORT);
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, slot_va(1), 7, 0), 0);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL_MB);
	run_cb_ok(dev_fd, &cb, QUEUE, WAIT_US_SHORT);
	waiter_completed_ok(&w);
	ck_assert_uint_eq(*slot(1), 7);
}
END_TEST

START_TEST(satisfied_target_returns_at_once)
{
	uint64_t counter = 5, ts = 0, before = now_ns();
	uint32_t status = ~0u;

	/* Plain memory, no device work: the entry check alone ends it. */
	ck_assert_int_eq(hlthunk_wait_for_interrupt_with_timestamp(dev_fd, &counter, 5,
								   UIRQ_FIRST, WAIT_US_SHORT,
								   &status, &ts), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_ge(ts, before);
	ck_assert_uint_le(ts, now_ns());
	ck_assert_uint_lt(now_ns() - before, 1000000000ULL);
	/* A timeout of 0 checks once. */
	status = ~0u;
	ck_assert_int_eq(hlthunk_wait_for_interrupt(dev_fd, &counter, 4, UIRQ_ANY, 0, &status),
			 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
}
END_TEST

START_TEST(timeout_is_busy)
{
	uint64_t counter = 1, ts = 123, before;
	uint32_t status = ~0u;

	ck_assert_int_eq(hlthunk_wait_for_interrupt(dev_fd, &counter, 2, UIRQ_FIRST, 0, &status),
			 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_BUSY);
	/* As habanalabs: the work is not the driver's, so a timeout is BUSY, rc 0. */
	before = now_ns();
	ck_assert_int_eq(hlthunk_wait_for_interrupt_with_timestamp(dev_fd, &counter, 2,
								   UIRQ_FIRST + 2, 200000,
								   &status, &ts), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(ts, 0);
	ck_assert_uint_ge(now_ns() - before, 200000000ULL);
}
END_TEST

START_TEST(any_id_wakes_on_every_interrupt)
{
	struct waiter w;

	waiter_start_ok(&w, slot(2), 1, UIRQ_ANY, WAIT_US_SHORT);
	write_and_raise_ok(2, 1, UIRQ_FIRST + UIRQ_NUM - 1);
	waiter_completed_ok(&w);
}
END_TEST

START_TEST(value_alone_wakes_nobody)
{
	struct waiter w;

	/* The wait never polls: the new value counts after an interrupt. */
	waiter_start_ok(&w, slot(3), 1, UIRQ_FIRST + 3, WAIT_US_SHORT);
	write_and_raise_ok(3, 1, 0);
	still_waiting_ok(&w);
	write_and_raise_ok(4, 0, UIRQ_FIRST + 3);
	waiter_completed_ok(&w);
}
END_TEST

START_TEST(ids_are_independent)
{
	struct waiter a, b;

	waiter_start_ok(&a, slot(5), 1, UIRQ_FIRST + 4, WAIT_US_SHORT);
	waiter_start_ok(&b, slot(6), 1, UIRQ_FIRST + 5, WAIT_US_SHORT);
	write_and_raise_ok(5, 1, 0);
	write_and_raise_ok(6, 1, UIRQ_FIRST + 5);
	waiter_completed_ok(&b);
	still_waiting_ok(&a);
	write_and_raise_ok(7, 0, UIRQ_FIRST + 4);
	waiter_completed_ok(&a);
}
END_TEST

START_TEST(target_not_reached_keeps_waiting)
{
	struct waiter w;

	waiter_start_ok(&w, slot(8), 2, UIRQ_FIRST + 6, WAIT_US_SHORT);
	write_and_raise_ok(8, 1, UIRQ_FIRST + 6);
	still_waiting_ok(&w);
	write_and_raise_ok(8, 2, UIRQ_FIRST + 6);
	waiter_completed_ok(&w);
	ck_assert_uint_eq(*slot(8), 2);
}
END_TEST

START_TEST(many_waiters_on_one_id)
{
	struct waiter w[6];
	uint32_t i;

	for (i = 0; i < 6; i++)
		waiter_start_ok(&w[i], slot(9), 1 + i % 2, UIRQ_FIRST + 7, WAIT_US_SHORT);
	write_and_raise_ok(9, 2, UIRQ_FIRST + 7);
	for (i = 0; i < 6; i++)
		waiter_completed_ok(&w[i]);
}
END_TEST

START_TEST(info_reports_the_interrupts)
{
	struct hlthunk_hw_ip_info hw;

	hw_ip_ok(dev_fd, &hw);
	ck_assert_uint_eq(hw.first_available_interrupt_id, UIRQ_FIRST);
	ck_assert_uint_eq(hw.number_of_user_interrupts, UIRQ_NUM);
}
END_TEST

/* ---- Reset ------------------------------------------------------------------ */

START_TEST(reset_aborts_every_waiter)
{
	char path[PATH_MAX];
	struct waiter a, b;

	waiter_start_ok(&a, slot(10), 1, UIRQ_FIRST, 60ULL * 1000 * 1000);
	waiter_start_ok(&b, slot(11), 1, UIRQ_ANY, 60ULL * 1000 * 1000);
	dev_attr_path(path, sizeof(path), "hard_reset");
	ck_assert_int_eq(write_text(path, "1"), 0);
	waiter_join(&a);
	waiter_join(&b);
	ck_assert_int_eq(a.rc, -EIO);
	ck_assert_uint_eq(a.status, GAUDISIM_WAIT_CS_STATUS_ABORTED);
	ck_assert_int_eq(b.rc, -EIO);
	ck_assert_uint_eq(b.status, GAUDISIM_WAIT_CS_STATUS_ABORTED);
	wait_operational_ok(dev_fd);
	/* Waits after the reset work again. */
	waiter_start_ok(&a, slot(10), 1, UIRQ_FIRST, WAIT_US_SHORT);
	write_and_raise_ok(10, 1, UIRQ_FIRST);
	waiter_completed_ok(&a);
}
END_TEST

/* ---- Negative --------------------------------------------------------------- */

static int wait_raw(uint64_t addr, uint32_t flags, uint64_t timeout_us)
{
	union gaudisim_wait_cs_args a;

	memset(&a, 0, sizeof(a));
	a.in.addr = addr;
	a.in.target = 1;
	a.in.flags = flags;
	a.in.interrupt_timeout_us = timeout_us;
	return hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &a);
}

static uint32_t id_flags(uint32_t id)
{
	return GAUDISIM_WAIT_CS_FLAGS_INTERRUPT | (id << GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_SHIFT);
}

START_TEST(bad_requests_are_refused)
{
	static const uint32_t bad_ids[] = { 0, 1, UIRQ_FIRST - 1, UIRQ_FIRST + UIRQ_NUM, 100,
					    0xffe /* ANY_DEC: no decoders */ };
	uint64_t counter = 0, addr = (uint64_t)(uintptr_t)&counter;
	union gaudisim_wait_cs_args a;
	uint32_t status, i;
	void *gone;

	for (i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++)
		ck_assert_msg(wait_raw(addr, id_flags(bad_ids[i]), 1000) == -EINVAL,
			      "interrupt ID %u accepted", bad_ids[i]);
	ck_assert_int_eq(wait_raw(addr, id_flags(UIRQ_FIRST) |
				  GAUDISIM_WAIT_CS_FLAGS_MULTI_CS, 1000), -EINVAL);
	ck_assert_int_eq(wait_raw(addr, id_flags(UIRQ_FIRST) |
				  GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ, 1000), -EINVAL);
	ck_assert_int_eq(wait_raw(addr, id_flags(UIRQ_FIRST) |
				  GAUDISIM_WAIT_CS_FLAGS_REGISTER_INTERRUPT, 1000), -EINVAL);
	ck_assert_int_eq(wait_raw(addr, id_flags(UIRQ_FIRST) | 0x1, 1000), -EINVAL);

	memset(&a, 0, sizeof(a));
	a.in.addr = addr;
	a.in.flags = id_flags(UIRQ_FIRST);
	a.in.ctx_id = 1;
	ck_assert_int_eq(hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.addr = addr;
	a.in.flags = id_flags(UIRQ_FIRST);
	a.in.timestamp_handle = 1;
	ck_assert_int_eq(hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &a), -EINVAL);
	a.in.timestamp_handle = 0;
	a.in.cq_counters_offset = 8;
	ck_assert_int_eq(hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &a), -EINVAL);

	/* An address that cannot be read: EFAULT, with and without a timeout. */
	ck_assert_int_eq(wait_raw(0, id_flags(UIRQ_FIRST), 0), -EFAULT);
	ck_assert_int_eq(wait_raw(8, id_flags(UIRQ_ANY & 0xfff), 1000), -EFAULT);
	gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(gone, MAP_FAILED);
	ck_assert_int_eq(munmap(gone, 4096), 0);
	ck_assert_int_eq(wait_raw((uint64_t)(uintptr_t)gone, id_flags(UIRQ_FIRST), 1000),
			 -EFAULT);
	/* A kernel address is not the caller's. */
	ck_assert_int_eq(wait_raw(0xffff888000000000ULL, id_flags(UIRQ_FIRST), 1000), -EFAULT);

	/* The library refuses what it cannot encode. */
	ck_assert_int_eq(hlthunk_wait_for_interrupt(dev_fd, NULL, 1, UIRQ_FIRST, 0, &status),
			 -EINVAL);
	ck_assert_int_eq(hlthunk_wait_for_interrupt(dev_fd, &counter, 1, UIRQ_FIRST, 0, NULL),
			 -EINVAL);
	ck_assert_int_eq(hlthunk_wait_for_interrupt(dev_fd, &counter, 1, 0x1000 + UIRQ_FIRST, 0,
						    &status), -EINVAL);
}
END_TEST

START_TEST(huge_timeout_still_wakes)
{
	struct waiter w;

	/* Beyond what jiffies can count: an unbounded wait, as habanalabs. */
	waiter_start_ok(&w, slot(12), 1, UIRQ_FIRST + 2, UINT64_MAX);
	write_and_raise_ok(12, 1, UIRQ_FIRST + 2);
	waiter_completed_ok(&w);
}
END_TEST

START_TEST(cb_may_only_raise_user_interrupts)
{
	static const uint32_t bad[] = { 0, GAUDISIM_MSIX_VEC_EQ, UIRQ_FIRST + UIRQ_NUM };
	uint64_t intr = GAUDISIM_CFG_BASE + GAUDISIM_REG_USER_INTR;
	uint32_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cb_reset(&cb);
		ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, intr, bad[i], 0), 0);
		ck_assert_msg(submit_cb(dev_fd, &cb, QUEUE, WAIT_US_SHORT) == -EINVAL,
			      "CB raising vector %u accepted", bad[i]);
	}
	/* A timestamp is not an interrupt ID. */
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg_long_timestamp(&cb.w, intr, 0), 0);
	ck_assert_int_eq(submit_cb(dev_fd, &cb, QUEUE, WAIT_US_SHORT), -EINVAL);
	/* The rest of the register space stays closed, MSIX_REQ included. */
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ,
					      UIRQ_FIRST, 0), 0);
	ck_assert_int_ne(submit_cb(dev_fd, &cb, QUEUE, WAIT_US_SHORT), 0);
}
END_TEST

static Suite *uirq_suite(void)
{
	Suite *s = suite_create("uirq");
	TCase *pos = fixture_tcase("positive", uirq_setup, uirq_teardown, TCASE_TIMEOUT_SHORT);
	TCase *rst = fixture_tcase("reset", uirq_setup, uirq_teardown, TCASE_TIMEOUT_DMA);
	TCase *neg = fixture_tcase("negative", uirq_setup, uirq_teardown, TCASE_TIMEOUT_SHORT);

	tcase_add_test(pos, cb_raises_the_interrupt);
	tcase_add_test(pos, monitor_payload_raises_the_interrupt);
	tcase_add_test(pos, satisfied_target_returns_at_once);
	tcase_add_test(pos, timeout_is_busy);
	tcase_add_test(pos, any_id_wakes_on_every_interrupt);
	tcase_add_test(pos, value_alone_wakes_nobody);
	tcase_add_test(pos, ids_are_independent);
	tcase_add_test(pos, target_not_reached_keeps_waiting);
	tcase_add_test(pos, many_waiters_on_one_id);
	tcase_add_test(pos, huge_timeout_still_wakes);
	tcase_add_test(pos, info_reports_the_interrupts);
	suite_add_tcase(s, pos);
	tcase_add_test(rst, reset_aborts_every_waiter);
	suite_add_tcase(s, rst);
	tcase_add_test(neg, bad_requests_are_refused);
	tcase_add_test(neg, cb_may_only_raise_user_interrupts);
	suite_add_tcase(s, neg);
	return s;
}

int main(void)
{
	return run_suite(uirq_suite());
}
