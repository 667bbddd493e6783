// SPDX-License-Identifier: MIT
/*
 * WAIT_CS beyond one sequence number, as habanalabs has it: the multi-CS
 * wait (up to 32 CSs, the completion bitmap, the first completion time,
 * blocking until any of them finishes) and its negative matrix, and how
 * the user-interrupt wait (gsim-test-uirq) sets itself apart from it.
 *
 * A "gated" CS blocks on fence 0 of QUEUE_H2D until the test opens the
 * gate: a monitor adds 1 to that fence when a SOB reaches 1, and a CS on
 * QUEUE_D2H adds 1 to the SOB.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_sync.h"

#define GATE_QUEUE	QUEUE_H2D
#define WORK_QUEUE	QUEUE_D2H

static struct test_cb nop_cb;
static uint32_t gate_sob, gate_mon;

static void wait_setup(void)
{
	struct gaudisim_info_sync_manager sm;

	compute_setup();
	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm)),
			 0);
	gate_sob = sm.first_available_sync_object;
	gate_mon = sm.first_available_monitor;
	cb_create_ok(dev_fd, &nop_cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop_cb.w, GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB),
			 0);
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A NOP CS on WORK_QUEUE with cs_flags; returns its seq. */
static uint64_t submit_nop(uint32_t cs_flags)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, WORK_QUEUE, nop_cb.w.used);
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1,
				    .flags = cs_flags };
	struct hlthunk_cs_out out;

	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	return out.seq;
}

/* Arm the gate and submit a CS that waits on it; returns its seq. */
static uint64_t submit_gated(struct test_cb *cb)
{
	struct test_cb arm;
	uint64_t seq;

	cb_create_ok(dev_fd, &arm, 4096);
	cbw_sob(&arm.w, gate_sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor_to_fence(&arm.w, gate_mon, gate_sob, GATE_QUEUE);
	run_cb_ok(dev_fd, &arm, WORK_QUEUE, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &arm);

	cb_create_ok(dev_fd, cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb->w, 0, 1, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb->w, 0), 0);
	{
		struct gaudisim_cs_chunk chunk = make_chunk(cb->handle, GATE_QUEUE, cb->w.used);

		ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	}
	return seq;
}

static void open_gate(void)
{
	struct test_cb cb;

	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, gate_sob, GAUDISIM_SYNC_SOB_ADD(1), 0);
	run_cb_ok(dev_fd, &cb, WORK_QUEUE, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}

static int multi_wait(uint64_t *seqs, uint32_t n, uint64_t timeout_us,
		      struct hlthunk_wait_multi_cs_out *out)
{
	struct hlthunk_wait_multi_cs_in in = { .seq = seqs, .timeout_us = timeout_us,
					       .seq_len = n };

	memset(out, 0xa5, sizeof(*out));
	return hlthunk_wait_for_multi_cs(dev_fd, &in, out);
}

/* The raw ioctl, for fields the wrapper does not expose. */
static int wait_raw(const struct gaudisim_wait_cs_in *in)
{
	union gaudisim_wait_cs_args a;

	memset(&a, 0, sizeof(a));
	a.in = *in;
	return hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &a);
}

/* ---- Positive --------------------------------------------------------------- */

START_TEST(all_done_sets_every_bit)
{
	struct hlthunk_wait_multi_cs_out out;
	uint64_t seqs[3];
	uint64_t ts = 1;
	int i;

	for (i = 0; i < 3; i++) {
		seqs[i] = submit_nop(0);
		wait_completed_ok(dev_fd, seqs[i], WAIT_US_SHORT);
	}
	ck_assert_int_eq(multi_wait(seqs, 3, 0, &out), 0);
	ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(out.seq_set, 0x7);
	ck_assert_uint_eq(out.completed, 3);
	/* No CS asked for a timestamp: none is reported (habanalabs flags GONE). */
	{
		struct hlthunk_wait_multi_cs_in in = { .seq = seqs, .seq_len = 3 };

		ck_assert_int_eq(hlthunk_wait_for_multi_cs_with_timestamp(dev_fd, &in, &out, &ts),
				 0);
		ck_assert_uint_eq(ts, 0);
	}
}
END_TEST

START_TEST(timestamp_is_the_first_completion)
{
	struct hlthunk_wait_multi_cs_in in;
	struct hlthunk_wait_multi_cs_out out;
	uint64_t seqs[2], swap, ts = 0;
	int64_t t[2];
	uint32_t status, flags;
	int i;

	for (i = 0; i < 2; i++) {
		seqs[i] = submit_nop(GAUDISIM_CS_FLAGS_TIMESTAMP);
		ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, seqs[i], WAIT_US_SHORT,
								    &status, &flags, &t[i]), 0);
		ck_assert(flags & GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	}
	ck_assert(t[0] <= t[1]);
	/* Listed last-first: the time is still the earlier one. */
	swap = seqs[0];
	seqs[0] = seqs[1];
	seqs[1] = swap;
	in = (struct hlthunk_wait_multi_cs_in){ .seq = seqs, .timeout_us = WAIT_US_SHORT,
						 .seq_len = 2 };
	ck_assert_int_eq(hlthunk_wait_for_multi_cs_with_timestamp(dev_fd, &in, &out, &ts), 0);
	ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(out.seq_set, 0x3);
	ck_assert_uint_eq(ts, (uint64_t)t[0]);
}
END_TEST

START_TEST(map_shows_only_the_finished)
{
	struct hlthunk_wait_multi_cs_out out;
	struct test_cb gated;
	uint64_t seqs[3];

	seqs[0] = submit_gated(&gated);
	seqs[1] = submit_nop(0);
	wait_completed_ok(dev_fd, seqs[1], WAIT_US_SHORT);
	seqs[2] = seqs[0];
	ck_assert_int_eq(multi_wait(seqs, 3, 0, &out), 0);
	ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(out.seq_set, 0x2);
	ck_assert_uint_eq(out.completed, 1);

	open_gate();
	wait_completed_ok(dev_fd, seqs[0], WAIT_US_SHORT);
	ck_assert_int_eq(multi_wait(seqs, 3, WAIT_US_SHORT, &out), 0);
	ck_assert_uint_eq(out.seq_set, 0x7);
	ck_assert_uint_eq(out.completed, 3);
	cb_destroy_ok(dev_fd, &gated);
}
END_TEST

START_TEST(nothing_done_is_busy)
{
	struct hlthunk_wait_multi_cs_out out;
	struct test_cb gated;
	uint64_t seq;
	int64_t start, waited;

	seq = submit_gated(&gated);
	ck_assert_int_eq(multi_wait(&seq, 1, 0, &out), 0);
	ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(out.seq_set, 0);
	ck_assert_uint_eq(out.completed, 0);

	/* A timeout is BUSY with rc 0, not an error, after waiting that long. */
	start = monotonic_ns();
	ck_assert_int_eq(multi_wait(&seq, 1, 300000, &out), 0);
	waited = monotonic_ns() - start;
	ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(out.seq_set, 0);
	ck_assert_msg(waited >= 250000000LL, "returned BUSY after %lld ns", (long long)waited);

	open_gate();
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &gated);
}
END_TEST

static void *open_gate_later(void *arg)
{
	(void)arg;
	sleep_ms(200);
	open_gate();
	return NULL;
}

START_TEST(blocks_until_one_finishes)
{
	struct hlthunk_wait_multi_cs_out out;
	struct test_cb gated;
	pthread_t opener;
	uint64_t seqs[2];
	int64_t start, waited;

	seqs[0] = submit_gated(&gated);
	seqs[1] = seqs[0];
	start = monotonic_ns();
	ck_assert_int_eq(pthread_create(&opener, NULL, open_gate_later, NULL), 0);
	ck_assert_int_eq(multi_wait(seqs, 2, WAIT_US_SHORT, &out), 0);
	waited = monotonic_ns() - start;
	ck_assert_int_eq(pthread_join(opener, NULL), 0);
	ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(out.seq_set, 0x3);
	/* It slept until the gate opened, and woke well before its timeout. */
	ck_assert_msg(waited >= 150000000LL && waited < (int64_t)WAIT_US_SHORT * 1000,
		      "woke after %lld ns", (long long)waited);
	cb_destroy_ok(dev_fd, &gated);
}
END_TEST

START_TEST(thirty_two_seqs)
{
	uint64_t seqs[GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN];
	struct hlthunk_wait_multi_cs_out out;
	int i;

	for (i = 0; i < GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN; i++)
		seqs[i] = submit_nop(0);
	for (i = 0; i < GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN; i++)
		wait_completed_ok(dev_fd, seqs[i], WAIT_US_SHORT);
	ck_assert_int_eq(multi_wait(seqs, GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN, WAIT_US_SHORT,
				    &out), 0);
	ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(out.seq_set, 0xffffffffu);
	ck_assert_uint_eq(out.completed, 32);
}
END_TEST

/* ---- Negative --------------------------------------------------------------- */

START_TEST(bad_lengths)
{
	uint64_t seqs[GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN + 1];
	struct hlthunk_wait_multi_cs_out out;
	struct gaudisim_wait_cs_in in;
	static const uint32_t bad[] = { 0, 33, 64, 255, 256, 257, 0xffffffffu };
	size_t i;

	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		seqs[i] = submit_nop(0);
	wait_completed_ok(dev_fd, seqs[i - 1], WAIT_US_SHORT);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(multi_wait(seqs, bad[i], 0, &out) == -EINVAL, "length %u", bad[i]);
	memset(&in, 0, sizeof(in));
	in.seq = (uint64_t)(uintptr_t)seqs;
	in.flags = GAUDISIM_WAIT_CS_FLAGS_MULTI_CS;
	in.seq_arr_len = 33;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
	in.seq_arr_len = 32;
	ck_assert_int_eq(wait_raw(&in), 0);
	/* seq_arr_len belongs to multi-CS waits. */
	in.seq = seqs[0];
	in.flags = 0;
	in.seq_arr_len = 1;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
}
END_TEST

START_TEST(bad_pointers)
{
	struct hlthunk_wait_multi_cs_out out;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *map;
	uint64_t *tail;

	submit_nop(0);
	ck_assert_int_eq(multi_wait(NULL, 1, 0, &out), -EFAULT);
	ck_assert_int_eq(multi_wait((uint64_t *)(uintptr_t)8, 1, 0, &out), -EFAULT);
	/* An array that runs from a readable page into an unreadable one. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(map != MAP_FAILED);
	ck_assert_int_eq(mprotect(map + page, page, PROT_NONE), 0);
	tail = (uint64_t *)(map + page) - 1;
	*tail = 1;
	ck_assert_int_eq(multi_wait(tail, 1, 0, &out), 0);
	ck_assert_int_eq(multi_wait(tail, 2, 0, &out), -EFAULT);
	ck_assert_int_eq(multi_wait((uint64_t *)(map + page), 1, WAIT_US_SHORT, &out), -EFAULT);
	munmap(map, 2 * page);
	/* The wrapper refuses missing arguments itself. */
	{
		struct hlthunk_wait_multi_cs_in in = { .seq = tail, .seq_len = 1 };

		ck_assert_int_eq(hlthunk_wait_for_multi_cs(dev_fd, NULL, &out), -EINVAL);
		ck_assert_int_eq(hlthunk_wait_for_multi_cs(dev_fd, &in, NULL), -EINVAL);
		ck_assert_int_eq(hlthunk_wait_for_multi_cs_with_timestamp(dev_fd, &in, &out, NULL),
				 -EINVAL);
	}
}
END_TEST

START_TEST(unknown_seqs)
{
	struct hlthunk_wait_multi_cs_out out;
	uint64_t seqs[3];

	seqs[0] = submit_nop(0);
	wait_completed_ok(dev_fd, seqs[0], WAIT_US_SHORT);
	seqs[1] = 0;
	ck_assert_int_eq(multi_wait(&seqs[1], 1, 0, &out), -EINVAL);
	seqs[1] = seqs[0] + 1;
	ck_assert_int_eq(multi_wait(&seqs[1], 1, WAIT_US_SHORT, &out), -EINVAL);
	seqs[1] = UINT64_MAX;
	ck_assert_int_eq(multi_wait(&seqs[1], 1, 0, &out), -EINVAL);
	/* One unknown entry fails the whole wait, even beside a finished CS. */
	seqs[1] = seqs[0];
	seqs[2] = seqs[0] + 1000;
	ck_assert_int_eq(multi_wait(seqs, 3, WAIT_US_SHORT, &out), -EINVAL);
	ck_assert_int_eq(multi_wait(seqs, 2, WAIT_US_SHORT, &out), 0);
	ck_assert_uint_eq(out.seq_set, 0x3);
}
END_TEST

START_TEST(bad_fields)
{
	struct gaudisim_wait_cs_in in;
	uint64_t seq = submit_nop(0);

	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	memset(&in, 0, sizeof(in));
	in.seq = (uint64_t)(uintptr_t)&seq;
	in.flags = GAUDISIM_WAIT_CS_FLAGS_MULTI_CS;
	in.seq_arr_len = 1;
	ck_assert_int_eq(wait_raw(&in), 0);
	in.ctx_id = 1;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
	in.ctx_id = 0;
	in.flags |= 0x1;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
	in.flags = GAUDISIM_WAIT_CS_FLAGS_MULTI_CS | 0x10;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
	in.flags = GAUDISIM_WAIT_CS_FLAGS_MULTI_CS;
	in.pad[6] = 1;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
	in.pad[6] = 0;
	in.timestamp_handle = 1;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
}
END_TEST

START_TEST(user_interrupt_wait_reads_addr_not_seq)
{
	struct gaudisim_wait_cs_in in;
	union gaudisim_wait_cs_args a;
	uint64_t counter = 5;

	/* addr/target overlay seq/timeout_us: no CS 5 is looked up. */
	memset(&in, 0, sizeof(in));
	in.addr = (uint64_t)(uintptr_t)&counter;
	in.target = 5;
	in.interrupt_timeout_us = WAIT_US_SHORT;
	in.flags = GAUDISIM_WAIT_CS_FLAGS_INTERRUPT | GAUDISIM_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT;
	memset(&a, 0, sizeof(a));
	a.in = in;
	ck_assert_int_eq(hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &a), 0);
	ck_assert_uint_eq(a.out.status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	/* Interrupt ID 0 is no user interrupt; INTERRUPT and MULTI_CS do not mix. */
	in.flags = GAUDISIM_WAIT_CS_FLAGS_INTERRUPT;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
	in.flags = GAUDISIM_WAIT_CS_FLAGS_INTERRUPT | GAUDISIM_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT |
		   GAUDISIM_WAIT_CS_FLAGS_MULTI_CS;
	ck_assert_int_eq(wait_raw(&in), -EINVAL);
}
END_TEST

static Suite *wait_suite(void)
{
	Suite *s = suite_create("wait");
	TCase *pos = tcase_create("multi_cs");
	TCase *neg = tcase_create("negative");

	tcase_add_checked_fixture(pos, wait_setup, compute_teardown);
	tcase_set_timeout(pos, TCASE_TIMEOUT_SHORT);
	tcase_add_test(pos, all_done_sets_every_bit);
	tcase_add_test(pos, timestamp_is_the_first_completion);
	tcase_add_test(pos, map_shows_only_the_finished);
	tcase_add_test(pos, nothing_done_is_busy);
	tcase_add_test(pos, blocks_until_one_finishes);
	tcase_add_test(pos, thirty_two_seqs);
	suite_add_tcase(s, pos);

	tcase_add_checked_fixture(neg, wait_setup, compute_teardown);
	tcase_set_timeout(neg, TCASE_TIMEOUT_SHORT);
	tcase_add_test(neg, bad_lengths);
	tcase_add_test(neg, bad_pointers);
	tcase_add_test(neg, unknown_seqs);
	tcase_add_test(neg, bad_fields);
	tcase_add_test(neg, user_interrupt_wait_reads_addr_not_seq);
	suite_add_tcase(s, neg);
	return s;
}

int main(void)
{
	return run_suite(wait_suite());
}
