// SPDX-License-Identifier: MIT
/*
 * CS and WAIT_CS: NOP jobs on every external queue, multi-chunk and
 * restore chunks, many CSs in flight, polling, timestamps (kept over many
 * later CSs), MSG_LONG to host memory, LOAD_AND_EXE (predicates on
 * external queues, scalars executed on an internal queue, what external
 * queues refuse) with predicated packets skipped or run, counters,
 * closing with work in flight, a failed job whose sibling stays parked,
 * and WAIT_CS checks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <time.h>

#include "common.h"
#include "hw/gaudisim_hw_sync.h"

#define IN_FLIGHT	256

static struct test_cb nop_cb;

static void nop_setup(void)
{
	compute_setup();
	cb_create_ok(dev_fd, &nop_cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop_cb.w, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop_cb.w, GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB),
			 0);
}

/* A CB mapping keeps the file open: unmap it so close() releases the device. */
static void close_device(void)
{
	hlthunk_cb_munmap(nop_cb.ptr, nop_cb.size);
	nop_cb.ptr = NULL;
	hlthunk_close(dev_fd);
}

static TCase *nop_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, nop_setup, compute_teardown);
	tcase_set_timeout(tc, TCASE_TIMEOUT_SHORT);
	return tc;
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

START_TEST(nop_on_each_external_queue)
{
	run_cb_ok(dev_fd, &nop_cb, (uint32_t)_i, WAIT_US_SHORT);
}
END_TEST

START_TEST(nop_single_packet_cb)
{
	struct test_cb cb;

	cb_create_ok(dev_fd, &cb, 8);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

START_TEST(one_cs_on_all_queues)
{
	struct gaudisim_cs_chunk chunks[GAUDISIM_NUM_EXT_QUEUES];
	struct hlthunk_cs_in in = { .chunks_execute = chunks,
				    .num_chunks_execute = GAUDISIM_NUM_EXT_QUEUES };
	struct hlthunk_cs_out out;
	uint32_t q;

	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		chunks[q] = make_chunk(nop_cb.handle, q, nop_cb.w.used);
	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	ck_assert_uint_eq(out.status, GAUDISIM_CS_STATUS_SUCCESS);
	wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
}
END_TEST

START_TEST(same_cb_many_times_in_one_cs)
{
	struct gaudisim_cs_chunk chunks[32];
	struct hlthunk_cs_in in = { .chunks_execute = chunks, .num_chunks_execute = 32 };
	struct hlthunk_cs_out out;
	int i;

	for (i = 0; i < 32; i++)
		chunks[i] = make_chunk(nop_cb.handle, (uint32_t)i % GAUDISIM_NUM_EXT_QUEUES,
				       nop_cb.w.used);
	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
}
END_TEST

START_TEST(max_chunks_in_one_cs)
{
	static struct gaudisim_cs_chunk chunks[GAUDISIM_MAX_JOBS_PER_CS];
	struct hlthunk_cs_in in = { .chunks_execute = chunks,
				    .num_chunks_execute = GAUDISIM_MAX_JOBS_PER_CS,
				    .chunks_restore = chunks,
				    .num_chunks_restore = GAUDISIM_MAX_JOBS_PER_CS };
	struct hlthunk_cs_out out;
	int i;

	/* All on one queue: the largest CS a user may build must fit. */
	for (i = 0; i < GAUDISIM_MAX_JOBS_PER_CS; i++)
		chunks[i] = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
}
END_TEST

#define SUBMIT_THREADS		4
#define SUBMITS_PER_THREAD	100

struct submitter {
	uint32_t queue;
	int failures;
	int first_rc;
};

static void *submit_loop(void *arg)
{
	struct submitter *t = arg;
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, t->queue, nop_cb.w.used);
	int i;

	for (i = 0; i < SUBMITS_PER_THREAD; i++) {
		uint32_t status = ~0u;
		uint64_t seq;
		int rc = submit_chunk(dev_fd, &chunk, &seq);

		if (!rc)
			rc = hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_SHORT, &status);
		if (!rc && status != GAUDISIM_WAIT_CS_STATUS_COMPLETED)
			rc = -EIO;
		if (rc && !t->failures++)
			t->first_rc = rc;
	}
	return NULL;
}

START_TEST(threads_submit_concurrently)
{
	struct submitter t[SUBMIT_THREADS];
	pthread_t tid[SUBMIT_THREADS];
	int i;

	/* One file, several threads: submissions and waits must not trip over each other. */
	for (i = 0; i < SUBMIT_THREADS; i++) {
		t[i] = (struct submitter){ .queue = (uint32_t)i * 2 };
		ck_assert_int_eq(pthread_create(&tid[i], NULL, submit_loop, &t[i]), 0);
	}
	for (i = 0; i < SUBMIT_THREADS; i++)
		ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
	for (i = 0; i < SUBMIT_THREADS; i++)
		ck_assert_msg(!t[i].failures, "thread %d: %d failures, first %s", i,
			      t[i].failures, strerror(-t[i].first_rc));
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
}
END_TEST

START_TEST(restore_chunks_run)
{
	struct gaudisim_cs_chunk restore = make_chunk(nop_cb.handle, QUEUE_D2H, nop_cb.w.used);
	struct gaudisim_cs_chunk exec = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	struct hlthunk_cs_in in = { .chunks_restore = &restore, .num_chunks_restore = 1,
				    .chunks_execute = &exec, .num_chunks_execute = 1 };
	struct hlthunk_cs_out out;

	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
	in.flags = GAUDISIM_CS_FLAGS_FORCE_RESTORE;
	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
}
END_TEST

START_TEST(many_in_flight)
{
	static uint64_t seqs[IN_FLIGHT];
	int i;

	/* More CSs than any PQ holds: "queue full" turns into a retry in drmIoctl. */
	for (i = 0; i < IN_FLIGHT; i++) {
		struct gaudisim_cs_chunk chunk =
			make_chunk(nop_cb.handle, (uint32_t)i % GAUDISIM_NUM_EXT_QUEUES,
				   nop_cb.w.used);
		int rc = submit_chunk(dev_fd, &chunk, &seqs[i]);

		ck_assert_msg(rc == 0, "CS %d: %s", i, strerror(-rc));
		if (i)
			ck_assert_uint_gt(seqs[i], seqs[i - 1]);
	}
	for (i = 0; i < IN_FLIGHT; i++)
		wait_completed_ok(dev_fd, seqs[i], WAIT_US_SHORT);
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
}
END_TEST

START_TEST(wait_poll_then_block)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	uint32_t status = ~0u, flags = ~0u;
	uint64_t seq;

	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq, 0, &status), 0);
	ck_assert_msg(status == GAUDISIM_WAIT_CS_STATUS_BUSY ||
		      status == GAUDISIM_WAIT_CS_STATUS_COMPLETED, "poll status %u", status);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	/* A finished CS stays finished, however often it is asked about. */
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, seq, 0, &status, &flags,
							    NULL), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
}
END_TEST

START_TEST(wait_old_seq_after_many)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	uint64_t first, seq;
	uint32_t status = ~0u, flags = 0;
	int i;

	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &first), 0);
	wait_completed_ok(dev_fd, first, WAIT_US_SHORT);
	for (i = 0; i < 1100; i++) {
		ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
		wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	}
	/* Long retired: still COMPLETED (possibly flagged GONE). */
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, first, WAIT_US_SHORT,
							    &status, &flags, NULL), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(flags & ~(uint32_t)(GAUDISIM_WAIT_CS_STATUS_FLAG_GONE |
					      GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD), 0);
}
END_TEST

/*
 * The outcome of a TIMESTAMP CS, its completion time included, is kept
 * over more than a thousand later CSs, as habanalabs keeps it.
 */
START_TEST(timestamp_kept_after_many)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1,
				    .flags = GAUDISIM_CS_FLAGS_TIMESTAMP };
	struct hlthunk_cs_out out;
	uint32_t status = ~0u, flags = 0;
	int64_t ts = 0, ts_late = 0;
	uint64_t seq;
	int i;

	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, out.seq, WAIT_US_SHORT,
							    &status, &flags, &ts), 0);
	ck_assert(flags & GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	for (i = 0; i < 2100; i++) {
		ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
		wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	}
	flags = 0;
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, out.seq, 0, &status, &flags,
							    &ts_late), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(flags, GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	ck_assert_int_eq(ts_late, ts);
}
END_TEST

/*
 * Beyond the last 16384 CSs, the outcomes of the last 256 TIMESTAMP CSs
 * are kept as habanalabs' outcome store keeps them: a wait gets the
 * completion time once; the oldest TIMESTAMP outcome goes first.
 */
START_TEST(timestamp_outcome_store)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1,
				    .flags = GAUDISIM_CS_FLAGS_TIMESTAMP };
	struct hlthunk_cs_out out;
	uint32_t status = ~0u, flags = 0;
	int64_t ts = 0, ts_late = 0;
	uint64_t evicted, kept, seq = 0;
	int i;

	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	evicted = out.seq;
	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	kept = out.seq;
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, kept, WAIT_US_SHORT,
							    &status, &flags, &ts), 0);
	ck_assert(flags & GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	/* 255 more TIMESTAMP CSs: the store holds them and @kept, not @evicted. */
	for (i = 0; i < 255; i++)
		ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	/* Out of the window of the last 16384 CSs. */
	for (i = 0; i < 16384 + 64; i++) {
		ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
		if (i % 1024 == 1023)
			wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	}
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);

	flags = 0;
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, kept, 0, &status, &flags,
							    &ts_late), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(flags, GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	ck_assert_int_eq(ts_late, ts);
	/* Given once, as habanalabs pops it; then gone like any old CS. */
	flags = 0;
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, kept, 0, &status, &flags,
							    NULL), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(flags, GAUDISIM_WAIT_CS_STATUS_FLAG_GONE);
	flags = 0;
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, evicted, 0, &status, &flags,
							    NULL), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_eq(flags, GAUDISIM_WAIT_CS_STATUS_FLAG_GONE);
}
END_TEST

START_TEST(timestamp_flag)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1,
				    .flags = GAUDISIM_CS_FLAGS_TIMESTAMP };
	struct hlthunk_cs_out out;
	uint32_t status = ~0u, flags = 0;
	int64_t ts = 0, before, after;

	before = monotonic_ns();
	ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
	ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, out.seq, WAIT_US_SHORT,
							    &status, &flags, &ts), 0);
	after = monotonic_ns();
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert(flags & GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	ck_assert_msg(ts >= before && ts <= after, "timestamp %lld outside [%lld, %lld]",
		      (long long)ts, (long long)before, (long long)after);
}
END_TEST

START_TEST(custom_timeout)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1,
				    .flags = GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT };
	struct hlthunk_cs_out out;
	static const uint32_t ok[] = { 1, 30, 3600 };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		in.timeout_s = ok[i];
		ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
		wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
	}
}
END_TEST

START_TEST(counters_follow_submissions)
{
	struct gaudisim_info_cs_stats before, after;
	int control = open_control_ok();
	int i;

	ck_assert_int_eq(hlthunk_get_cs_stats(control, &before), 0);
	for (i = 0; i < 5; i++)
		run_cb_ok(dev_fd, &nop_cb, (uint32_t)i % GAUDISIM_NUM_EXT_QUEUES, WAIT_US_SHORT);
	ck_assert_int_eq(hlthunk_get_cs_stats(control, &after), 0);
	ck_assert_uint_eq(after.submitted - before.submitted, 5);
	ck_assert_uint_eq(after.completed - before.completed, 5);
	ck_assert_uint_eq(after.errors, before.errors);
	ck_assert_uint_eq(after.timed_out, before.timed_out);
	hlthunk_close(control);
}
END_TEST

START_TEST(cb_usage_returns_to_0)
{
	uint32_t usage = ~0u;

	run_cb_ok(dev_fd, &nop_cb, QUEUE_H2D, WAIT_US_SHORT);
	ck_assert_int_eq(hlthunk_get_cb_info(dev_fd, nop_cb.handle, &usage, NULL), 0);
	ck_assert_uint_eq(usage, 0);
}
END_TEST

START_TEST(cb_can_be_rewritten_after_submit)
{
	/* The driver ran a copy: rewriting our CB after completion is harmless. */
	run_cb_ok(dev_fd, &nop_cb, QUEUE_H2D, WAIT_US_SHORT);
	memset(nop_cb.ptr, 0xff, nop_cb.size);
	cb_reset(&nop_cb);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop_cb.w, 0), 0);
	run_cb_ok(dev_fd, &nop_cb, QUEUE_H2D, WAIT_US_SHORT);
}
END_TEST

START_TEST(destroy_cb_after_submit)
{
	struct test_cb cb;
	struct gaudisim_cs_chunk chunk;
	uint64_t seq;

	cb_create_ok(dev_fd, &cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	chunk = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	/* Destroying right away is allowed; the job keeps what it needs. */
	cb_destroy_ok(dev_fd, &cb);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
}
END_TEST

START_TEST(close_with_work_in_flight)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	uint64_t seq;
	int i;

	for (i = 0; i < 64; i++)
		ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	close_device();
	dev_fd = open_compute_ok();
	{
		struct test_cb cb;

		cb_create_ok(dev_fd, &cb, 4096);
		ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
		run_cb_ok(dev_fd, &cb, QUEUE_D2H, WAIT_US_SHORT);
		cb_destroy_ok(dev_fd, &cb);
	}
}
END_TEST

/* ---- MSG_LONG ------------------------------------------------------------- */

START_TEST(msg_long_to_host)
{
	struct host_buf buf;
	struct test_cb cb;
	uint32_t i, got;

	host_buf_map_ok(dev_fd, &buf, 4096);
	memset(buf.ptr, 0, buf.size);
	cb_create_ok(dev_fd, &cb, 4096);
	for (i = 0; i < 16; i++)
		ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, buf.va + 8 * i, 0xc0de0000u + i,
						      GAUDISIM_PKT_CTL_MB), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	for (i = 0; i < 16; i++) {
		memcpy(&got, buf.ptr + 8 * i, 4);
		ck_assert_uint_eq(got, 0xc0de0000u + i);
		memcpy(&got, buf.ptr + 8 * i + 4, 4);
		ck_assert_uint_eq(got, 0);	/* a 32-bit write only */
	}
	cb_destroy_ok(dev_fd, &cb);
	host_buf_release(dev_fd, &buf);
}
END_TEST

START_TEST(msg_long_on_each_queue)
{
	struct host_buf buf;
	struct test_cb cb;
	uint32_t got;

	host_buf_map_ok(dev_fd, &buf, 4096);
	memset(buf.ptr, 0, buf.size);
	cb_create_ok(dev_fd, &cb, 64);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, buf.va + 4 * (uint32_t)_i, 0x1000u + (uint32_t)_i,
					      0), 0);
	run_cb_ok(dev_fd, &cb, (uint32_t)_i, WAIT_US_SHORT);
	memcpy(&got, buf.ptr + 4 * _i, 4);
	ck_assert_uint_eq(got, 0x1000u + (uint32_t)_i);
	cb_destroy_ok(dev_fd, &cb);
	host_buf_release(dev_fd, &buf);
}
END_TEST

START_TEST(msg_long_timestamps_advance)
{
	struct host_buf buf;
	struct test_cb cb;
	uint64_t t0, t1;

	host_buf_map_ok(dev_fd, &buf, 4096);
	memset(buf.ptr, 0, buf.size);
	cb_create_ok(dev_fd, &cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_msg_long_timestamp(&cb.w, buf.va, GAUDISIM_PKT_CTL_MB), 0);
	ck_assert_int_eq(hlthunk_cbw_msg_long_timestamp(&cb.w, buf.va + 64, GAUDISIM_PKT_CTL_MB),
			 0);
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	memcpy(&t0, buf.ptr, 8);
	memcpy(&t1, buf.ptr + 64, 8);
	ck_assert_uint_ne(t0, 0);
	ck_assert_uint_ge(t1, t0);
	cb_destroy_ok(dev_fd, &cb);
	host_buf_release(dev_fd, &buf);
}
END_TEST

START_TEST(satisfied_fence_passes)
{
	struct test_cb cb;

	/* Target 0 is always reached, and subtracting 0 leaves the counter alone. */
	cb_create_ok(dev_fd, &cb, 64);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb.w, 0, 0, 0, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

/* ---- LOAD_AND_EXE and predicated packets ---------------------------------- */

static uint32_t hard_resets(void);

static void cbw_load_and_exe(struct test_cb *cb, uint32_t cfg, uint64_t src, uint32_t pred)
{
	const uint32_t pkt[4] = { cfg, gaudisim_load_and_exe_ctl(pred, 0), (uint32_t)src,
				  (uint32_t)(src >> 32) };

	ck_assert_int_eq(hlthunk_cbw_dwords(&cb->w, pkt, 4), 0);
}

/* A MSG_LONG of value to addr, run only while predicate pred is set. */
static void cbw_msg_long_pred(struct test_cb *cb, uint64_t addr, uint32_t value, uint32_t pred)
{
	const uint32_t pkt[4] = { value, gaudisim_msg_ctl(GAUDISIM_PKT_MSG_LONG,
							  GAUDISIM_MSG_OP_WRITE_VALUE, 0) | pred,
				  (uint32_t)addr, (uint32_t)(addr >> 32) };

	ck_assert_int_eq(hlthunk_cbw_dwords(&cb->w, pkt, 4), 0);
}

/*
 * As Gaudi's suite does on an external queue: load predicates (from a
 * userptr page, _i == 0, or from SRAM, _i == 1), then MSG_LONGs and a
 * FENCE predicated on them: a false predicate skips its packet, P0 always
 * runs.
 */
START_TEST(load_predicates_on_external_queue)
{
	const uint64_t sram = GAUDISIM_SRAM_BASE + 0x10000;
	const uint32_t fence[2] = { gaudisim_fence_cfg(0, 1, 1),
				    GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) | 11 };
	uint32_t preds[GAUDISIM_PKT_NUM_PREDS] = { 0 }, got[4];
	struct host_buf buf;
	struct test_cb cb;
	uint64_t src;

	host_buf_map_ok(dev_fd, &buf, 2 * 4096);
	memset(buf.ptr, 0, buf.size);
	preds[10] = 1;
	preds[11] = 0xfffffffe;		/* bit 0 clear */
	memcpy(buf.ptr, preds, sizeof(preds));
	src = buf.va;
	if (_i) {
		dma_ok(dev_fd, buf.va, sram, sizeof(preds), QUEUE_H2D);
		src = sram;
	}
	cb_create_ok(dev_fd, &cb, 4096);
	cbw_msg_long_pred(&cb, buf.va + 4096, 0x1111, 10);	/* not loaded yet: skipped */
	cbw_load_and_exe(&cb, GAUDISIM_LOAD_AND_EXE_LOAD, src, 0);
	cbw_msg_long_pred(&cb, buf.va + 4100, 0x2222, 10);
	cbw_msg_long_pred(&cb, buf.va + 4104, 0x3333, 11);
	ck_assert_int_eq(hlthunk_cbw_dwords(&cb.w, fence, 2), 0);	/* would never pass */
	cbw_msg_long_pred(&cb, buf.va + 4108, 0x4444, 0);
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	memcpy(got, buf.ptr + 4096, sizeof(got));
	ck_assert_uint_eq(got[0], 0);
	ck_assert_uint_eq(got[1], 0x2222);
	ck_assert_uint_eq(got[2], 0);
	ck_assert_uint_eq(got[3], 0x4444);

	/* The next CB starts with the predicates clear. */
	cb_reset(&cb);
	cbw_msg_long_pred(&cb, buf.va + 4096, 0x5555, 10);
	run_cb_ok(dev_fd, &cb, QUEUE_D2H, WAIT_US_SHORT);
	memcpy(got, buf.ptr + 4096, sizeof(got));
	ck_assert_uint_eq(got[0], 0);
	cb_destroy_ok(dev_fd, &cb);
	host_buf_release(dev_fd, &buf);
}
END_TEST

/* What an external queue refuses: scalars, exe, sources it may not read. */
START_TEST(load_and_exe_refused_on_external_queue)
{
	const uint64_t unmapped = GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE - 16 * MiB;
	struct host_buf buf;
	struct test_cb cb;
	struct cs_counts before, after;
	struct {
		uint32_t cfg;
		int src;	/* 0 the buffer, 1 + 2, 2 reserved HBM, 3 host bus, 4 unmapped */
		int rc;
	} cases[] = {
		{ GAUDISIM_LOAD_AND_EXE_LOAD | GAUDISIM_LOAD_AND_EXE_DST, 0, -EPERM },
		{ GAUDISIM_LOAD_AND_EXE_EXE, 0, -EPERM },
		{ GAUDISIM_LOAD_AND_EXE_LOAD | GAUDISIM_LOAD_AND_EXE_EXE, 0, -EPERM },
		{ GAUDISIM_LOAD_AND_EXE_LOAD, 1, -EINVAL },
		{ GAUDISIM_LOAD_AND_EXE_LOAD, 2, -EINVAL },
		{ GAUDISIM_LOAD_AND_EXE_LOAD, 3, -EPERM },
		{ GAUDISIM_LOAD_AND_EXE_LOAD, 4, -EINVAL },
		{ GAUDISIM_LOAD_AND_EXE_LOAD | 1u << 4, 0, -EINVAL },	/* reserved cfg bit */
	};
	uint64_t src;
	size_t i;
	int rc;

	host_buf_map_ok(dev_fd, &buf, 4096);
	cb_create_ok(dev_fd, &cb, 4096);
	cs_counts_ok(dev_fd, &before);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const uint64_t srcs[] = { buf.va, buf.va + 2, GAUDISIM_HBM_BASE + 0x1000,
					  GAUDISIM_HOST_BASE + 0x1000, unmapped };

		src = srcs[cases[i].src];
		cb_reset(&cb);
		cbw_load_and_exe(&cb, cases[i].cfg, src, 0);
		rc = submit_cb(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
		ck_assert_msg(rc == cases[i].rc, "case %zu: %d (%s), expected %d", i, rc,
			      strerror(-rc), cases[i].rc);
	}
	cs_counts_ok(dev_fd, &after);
	ck_assert_uint_eq(after.parsing_drop, before.parsing_drop + i);
	/* Neither a load nor an exe: a NOP with a predicate field. */
	cb_reset(&cb);
	cbw_load_and_exe(&cb, 0, 0, 3);
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
	host_buf_release(dev_fd, &buf);
}
END_TEST

/*
 * As Gaudi's suite does on an internal queue: load scalars holding a
 * MSG_LONG and execute them (in one packet, then in two). The device is
 * not reset and the message lands.
 */
START_TEST(load_scalars_and_exe_on_internal_queue)
{
	struct gaudisim_info_sync_manager sm;
	uint8_t icb_mem[256];
	struct hlthunk_cb_writer icb;
	struct hbm_buf hbm;
	struct host_buf host;
	uint32_t scalars[4], status, resets, got, pass;
	uint64_t target;

	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_SYNC_MANAGER, &sm,
					  sizeof(sm)), 0);
	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	host_buf_map_ok(dev_fd, &host, 4096);
	target = hbm.addr + 2 * MiB;
	resets = hard_resets();
	for (pass = 0; pass < 2; pass++) {
		scalars[0] = 0xabc00000u + pass;
		scalars[1] = gaudisim_msg_ctl(GAUDISIM_PKT_MSG_LONG, GAUDISIM_MSG_OP_WRITE_VALUE, 0);
		scalars[2] = (uint32_t)target;
		scalars[3] = (uint32_t)(target >> 32);
		put_in_hbm_ok(scalars, sizeof(scalars), hbm.addr + MiB);

		hlthunk_cbw_init(&icb, icb_mem, sizeof(icb_mem));
		if (pass) {
			uint32_t load[4] = { GAUDISIM_LOAD_AND_EXE_LOAD | GAUDISIM_LOAD_AND_EXE_DST,
					     gaudisim_load_and_exe_ctl(0, 0),
					     (uint32_t)(hbm.addr + MiB),
					     (uint32_t)((hbm.addr + MiB) >> 32) };
			uint32_t exe[4] = { GAUDISIM_LOAD_AND_EXE_EXE,
					    gaudisim_load_and_exe_ctl(0, GAUDISIM_PKT_CTL_MB),
					    0, 0 };

			ck_assert_int_eq(hlthunk_cbw_dwords(&icb, load, 4), 0);
			ck_assert_int_eq(hlthunk_cbw_dwords(&icb, exe, 4), 0);
		} else {
			uint32_t both[4] = { GAUDISIM_LOAD_AND_EXE_LOAD | GAUDISIM_LOAD_AND_EXE_DST |
					     GAUDISIM_LOAD_AND_EXE_EXE,
					     gaudisim_load_and_exe_ctl(0, GAUDISIM_PKT_CTL_MB),
					     (uint32_t)(hbm.addr + MiB),
					     (uint32_t)((hbm.addr + MiB) >> 32) };

			ck_assert_int_eq(hlthunk_cbw_dwords(&icb, both, 4), 0);
		}
		ck_assert_int_eq(run_internal_cb(&icb, hbm.addr, GAUDISIM_QUEUE_ID_DMA_2_0,
						 QUEUE_H2D, sm.first_available_sync_object,
						 sm.first_available_monitor, &status), 0);
		ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
		dma_ok(dev_fd, target, host.va, 4, QUEUE_D2H);
		memcpy(&got, host.ptr, sizeof(got));
		ck_assert_uint_eq(got, 0xabc00000u + pass);
	}
	ck_assert_uint_eq(hard_resets(), resets);
	host_buf_release(dev_fd, &host);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/* ---- A job fails while a sibling is parked --------------------------------- */

/*
 * A job the parser passes and the device fails: it arms a monitor that
 * fires at once with a payload into another monitor's configuration,
 * which the device refuses, failing the write that armed it.
 */
static void write_device_error(struct test_cb *cb)
{
	struct gaudisim_info_sync_manager sm;
	uint32_t sob, mon;
	uint64_t addr;

	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_SYNC_MANAGER, &sm,
					  sizeof(sm)), 0);
	sob = sm.first_available_sync_object;
	mon = sm.first_available_monitor;
	addr = GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_PAY_ADDRL(mon + 1);
	cb_reset(cb);
	cbw_sob(&cb->w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_mon_reg(&cb->w, GAUDISIM_SYNC_MON_PAY_ADDRL(mon), (uint32_t)addr);
	cbw_mon_reg(&cb->w, GAUDISIM_SYNC_MON_PAY_ADDRH(mon), (uint32_t)(addr >> 32));
	cbw_mon_reg(&cb->w, GAUDISIM_SYNC_MON_PAY_DATA(mon), 1);
	cbw_mon_reg(&cb->w, GAUDISIM_SYNC_MON_ARM(mon), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 0));
}

static uint32_t hard_resets(void)
{
	struct hlthunk_reset_count_info rc;

	ck_assert_int_eq(hlthunk_get_reset_count_info(dev_fd, &rc), 0);
	return rc.hard_reset_count;
}

/*
 * One job of a CS fails at once; its sibling waits on a fence nobody
 * raises, on external queue D2H (_i == 0) or on an internal queue (_i ==
 * 1). The CS ends ABORTED at the error; the sibling must not keep its
 * engine busy for good: when the CS's timeout fires with it still parked
 * the device is reset, the engines are idle and the next job runs.
 */
START_TEST(error_ends_parked_sibling)
{
	const uint32_t timeout_s = 2;
	struct gaudisim_cs_chunk chunks[2];
	struct test_cb bad, park;
	struct hbm_buf hbm = { 0 };
	uint32_t status = ~0u, resets;
	uint64_t seq;
	bool idle = false;
	int rc, i;

	cb_create_ok(dev_fd, &bad, 4096);
	cb_create_ok(dev_fd, &park, 4096);
	write_device_error(&bad);
	ck_assert_int_eq(hlthunk_cbw_fence(&park.w, 0, 1, 1, 0), 0);
	if (_i) {
		hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
		put_in_hbm_ok(park.w.base, park.w.used, hbm.addr);
		chunks[0] = make_chunk(hbm.addr, GAUDISIM_QUEUE_ID_DMA_2_0, park.w.used);
	} else {
		chunks[0] = make_chunk(park.handle, QUEUE_D2H, park.w.used);
	}
	chunks[1] = make_chunk(bad.handle, QUEUE_H2D, bad.w.used);
	resets = hard_resets();

	ck_assert_int_eq(submit_chunks(chunks, 2, timeout_s, &seq), 0);
	rc = hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_SHORT, &status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "CS with a failed job: rc %d (%s) status %u, expected EIO/ABORTED", rc,
		      strerror(-rc), status);

	for (i = 0; i < 300 && !idle; i++) {
		idle = hlthunk_is_device_idle(dev_fd);
		if (!idle)
			sleep_ms(100);
	}
	ck_assert_msg(idle, "the parked job still holds its engine 30 s after its CS failed");
	ck_assert_uint_eq(hard_resets(), resets + 1);
	wait_operational_ok(dev_fd);

	/* The outcome stays the error; the engines take work again. */
	rc = hlthunk_wait_for_cs(dev_fd, seq, 0, &status);
	ck_assert_int_eq(rc, -EIO);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_ABORTED);
	run_cb_ok(dev_fd, &nop_cb, QUEUE_D2H, WAIT_US_SHORT);
	run_cb_ok(dev_fd, &nop_cb, QUEUE_H2D, WAIT_US_SHORT);
	if (_i)
		hbm_free_ok(dev_fd, &hbm);
	cb_destroy_ok(dev_fd, &park);
	cb_destroy_ok(dev_fd, &bad);
}
END_TEST

static void kmsg_mark_ok(const char *marker)
{
	FILE *f = fopen("/dev/kmsg", "w");

	ck_assert_msg(f != NULL, "/dev/kmsg: %s", strerror(errno));
	ck_assert_int_gt(fprintf(f, "%s\n", marker), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* No warning, bug or oops in the kernel log since marker. */
static void kernel_log_clean_ok(const char *marker)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "general protection",
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
		ck_assert_msg(!strstr(from, bad[i]), "kernel log reports \"%s\"", bad[i]);
	free(buf);
}

/*
 * A failed CS keeps its timeout armed while its sibling stays parked on an
 * internal queue. Closing the context ends both: the driver can be
 * unloaded and loaded again at once, and when the CS's timeout would have
 * fired nothing of it is left to run (the kernel log stays clean).
 */
START_TEST(failed_cs_timeout_ends_with_its_context)
{
	const char *marker = "gsim-test-cs: failed CS, close, reload";
	struct gaudisim_cs_chunk chunks[2];
	struct test_cb bad;
	struct hbm_buf hbm;
	uint32_t status = ~0u;
	uint8_t icb[64];
	struct hlthunk_cb_writer w;
	uint64_t seq;
	int rc;

	kmsg_mark_ok(marker);
	cb_create_ok(dev_fd, &bad, 4096);
	write_device_error(&bad);
	hbm_alloc_ok(dev_fd, &hbm, 2 * MiB);
	hlthunk_cbw_init(&w, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_fence(&w, 0, 1, 1, 0), 0);
	put_in_hbm_ok(icb, w.used, hbm.addr);
	chunks[0] = make_chunk(hbm.addr, GAUDISIM_QUEUE_ID_DMA_2_0, w.used);
	chunks[1] = make_chunk(bad.handle, QUEUE_H2D, bad.w.used);
	ck_assert_int_eq(submit_chunks(chunks, 2, 8, &seq), 0);
	rc = hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_SHORT, &status);
	ck_assert_int_eq(rc, -EIO);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_ABORTED);

	cb_destroy_ok(dev_fd, &bad);
	close_device();
	dev_fd = -1;
	ck_assert_int_eq(system("rmmod gaudisim && modprobe gaudisim"), 0);
	/* Past the CS's timeout (closing waited 5 s for the parked job). */
	sleep_ms(6000);
	kernel_log_clean_ok(marker);
	dev_fd = open_compute_ok();
	cb_create_ok(dev_fd, &bad, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&bad.w, 0), 0);
	run_cb_ok(dev_fd, &bad, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &bad);
}
END_TEST

/* A failed CS whose jobs all left the device resets nothing. */
START_TEST(error_without_parked_sibling_resets_nothing)
{
	struct gaudisim_cs_chunk chunks[2];
	struct test_cb bad;
	uint32_t status = ~0u, resets;
	uint64_t seq;
	int rc;

	cb_create_ok(dev_fd, &bad, 4096);
	write_device_error(&bad);
	chunks[0] = make_chunk(nop_cb.handle, QUEUE_D2H, nop_cb.w.used);
	chunks[1] = make_chunk(bad.handle, QUEUE_H2D, bad.w.used);
	resets = hard_resets();
	ck_assert_int_eq(submit_chunks(chunks, 2, 1, &seq), 0);
	rc = hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_SHORT, &status);
	ck_assert_int_eq(rc, -EIO);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_ABORTED);
	/* Past the CS's timeout: no reset, the device idle. */
	sleep_ms(2500);
	ck_assert_uint_eq(hard_resets(), resets);
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
	run_cb_ok(dev_fd, &nop_cb, QUEUE_H2D, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &bad);
}
END_TEST

/* ---- Staged submission -------------------------------------------------------- */

/* One part of a staged CS: rc of the submission, *seq its answer. */
static int submit_staged(const struct gaudisim_cs_chunk *chunks, uint32_t n, uint32_t flags,
			 uint64_t staged_seq, uint64_t *seq)
{
	union gaudisim_cs_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)chunks;
	a.in.num_chunks_execute = n;
	a.in.cs_flags = GAUDISIM_CS_FLAGS_STAGED_SUBMISSION | flags;
	a.in.seq = staged_seq;
	rc = hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, &a);
	*seq = rc ? 0 : a.out.seq;
	return rc;
}

static uint32_t poll_status(uint64_t seq)
{
	uint32_t status = ~0u;

	hlthunk_wait_for_cs(dev_fd, seq, 0, &status);
	return status;
}

/*
 * A CS in three parts (habanalabs' staged submission): the FIRST part's
 * sequence number names it; it is BUSY until the LAST part came and every
 * part's jobs completed; a middle part may hold internal jobs only.
 */
START_TEST(staged_submission_in_parts)
{
	struct gaudisim_cs_chunk ext = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	struct gaudisim_cs_chunk intl;
	struct hbm_buf hbm;
	uint64_t staged, seq;
	uint8_t icb[64];
	struct hlthunk_cb_writer w;

	hbm_alloc_ok(dev_fd, &hbm, 2 * MiB);
	hlthunk_cbw_init(&w, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_nop(&w, 0), 0);
	put_in_hbm_ok(icb, w.used, hbm.addr);
	intl = make_chunk(hbm.addr, GAUDISIM_QUEUE_ID_DMA_2_0, w.used);

	ck_assert_int_eq(submit_staged(&ext, 1, GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST, 0,
				       &staged), 0);
	ck_assert_uint_ne(staged, 0);
	/* Its job is done, the CS is not: the LAST part has not come. */
	sleep_ms(200);
	ck_assert_uint_eq(poll_status(staged), GAUDISIM_WAIT_CS_STATUS_BUSY);

	ck_assert_int_eq(submit_staged(&intl, 1, 0, staged, &seq), 0);
	ck_assert_uint_eq(seq, staged);
	ck_assert_int_eq(submit_staged(&ext, 1, 0, staged, &seq), 0);
	ck_assert_uint_eq(seq, staged);
	sleep_ms(200);
	ck_assert_uint_eq(poll_status(staged), GAUDISIM_WAIT_CS_STATUS_BUSY);
	/* The LAST part needs an external job. */
	ck_assert_int_eq(submit_staged(&intl, 1, GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST,
				       staged, &seq), -EINVAL);

	ck_assert_int_eq(submit_staged(&ext, 1, GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST,
				       staged, &seq), 0);
	ck_assert_uint_eq(seq, staged);
	wait_completed_ok(dev_fd, staged, WAIT_US_SHORT);
	/* Closed: no more parts. */
	ck_assert_int_eq(submit_staged(&ext, 1, 0, staged, &seq), -EINVAL);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

START_TEST(staged_submission_refusals)
{
	struct gaudisim_cs_chunk ext = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	union gaudisim_cs_args a;
	uint64_t plain, seq;

	ck_assert_int_eq(submit_chunk(dev_fd, &ext, &plain), 0);
	wait_completed_ok(dev_fd, plain, WAIT_US_SHORT);
	/* A part of a CS that is not staged, of none, or without a seq. */
	ck_assert_int_eq(submit_staged(&ext, 1, 0, plain, &seq), -EINVAL);
	ck_assert_int_eq(submit_staged(&ext, 1, 0, plain + 1000, &seq), -EINVAL);
	ck_assert_int_eq(submit_staged(&ext, 1, 0, 0, &seq), -EINVAL);
	/* FIRST takes no seq; FIRST / LAST need STAGED_SUBMISSION. */
	ck_assert_int_eq(submit_staged(&ext, 1, GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST, plain,
				       &seq), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uintptr_t)&ext;
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST;
	ck_assert_int_eq(hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, &a), -EINVAL);
	/* FIRST and LAST at once: a staged CS of one part. */
	ck_assert_int_eq(submit_staged(&ext, 1, GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST |
				       GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST, 0, &seq), 0);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
}
END_TEST

/* An error in a later part fails the whole staged CS. */
START_TEST(staged_part_error_fails_the_cs)
{
	struct gaudisim_cs_chunk ext = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	struct gaudisim_cs_chunk bad_chunk;
	struct test_cb bad;
	uint32_t status = ~0u;
	uint64_t staged, seq;

	cb_create_ok(dev_fd, &bad, 4096);
	write_device_error(&bad);
	bad_chunk = make_chunk(bad.handle, QUEUE_D2H, bad.w.used);
	ck_assert_int_eq(submit_staged(&ext, 1, GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST, 0,
				       &staged), 0);
	ck_assert_int_eq(submit_staged(&bad_chunk, 1, 0, staged, &seq), 0);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, staged, WAIT_US_SHORT, &status), -EIO);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_ABORTED);
	/* It ended: a LAST part is refused, the queues work. */
	ck_assert_int_eq(submit_staged(&ext, 1, GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST, staged,
				       &seq), -EINVAL);
	run_cb_ok(dev_fd, &nop_cb, QUEUE_D2H, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &bad);
}
END_TEST

/* ---- WAIT_CS arguments ------------------------------------------------------ */

static int wait_raw(uint64_t seq, uint64_t timeout_us, uint32_t ctx_id, uint32_t flags)
{
	union gaudisim_wait_cs_args a;

	memset(&a, 0, sizeof(a));
	a.in.seq = seq;
	a.in.timeout_us = timeout_us;
	a.in.ctx_id = ctx_id;
	a.in.flags = flags;
	return hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &a);
}

START_TEST(wait_bad_seq)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	uint64_t seq;

	ck_assert_int_eq(wait_raw(0, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	/* Sequence numbers never handed out. */
	ck_assert_int_eq(wait_raw(seq + 1, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(wait_raw(seq + 1000000, WAIT_US_SHORT, 0, 0), -EINVAL);
	ck_assert_int_eq(wait_raw(UINT64_MAX, WAIT_US_SHORT, 0, 0), -EINVAL);
}
END_TEST

START_TEST(wait_bad_fields)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	uint64_t seq;

	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	ck_assert_int_eq(wait_raw(seq, WAIT_US_SHORT, 1, 0), -EINVAL);
	ck_assert_int_eq(wait_raw(seq, WAIT_US_SHORT, 0, 1), -EINVAL);
	ck_assert_int_eq(wait_raw(seq, WAIT_US_SHORT, 0, 0x80000000u), -EINVAL);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
}
END_TEST

START_TEST(wait_seq_of_another_file)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, QUEUE_H2D, nop_cb.w.used);
	uint64_t seq;
	uint32_t status;
	int rc;

	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	close_device();
	dev_fd = open_compute_ok();
	/* A new context starts its own numbering: the old seq is unknown or done. */
	rc = hlthunk_wait_for_cs(dev_fd, seq, 0, &status);
	ck_assert_msg(rc == -EINVAL || (rc == 0 && status == GAUDISIM_WAIT_CS_STATUS_COMPLETED),
		      "old seq in a new context: rc %d status %u", rc, status);
}
END_TEST

static Suite *cs_suite(void)
{
	Suite *s = suite_create("cs");
	TCase *nop = nop_tcase("nop");
	TCase *msg = compute_tcase("msg_long", TCASE_TIMEOUT_SHORT);
	TCase *wait = nop_tcase("wait");
	TCase *err = nop_tcase("job_error");

	tcase_add_loop_test(nop, nop_on_each_external_queue, 0, GAUDISIM_NUM_EXT_QUEUES);
	tcase_add_test(nop, nop_single_packet_cb);
	tcase_add_test(nop, one_cs_on_all_queues);
	tcase_add_test(nop, same_cb_many_times_in_one_cs);
	tcase_add_test(nop, restore_chunks_run);
	tcase_add_test(nop, max_chunks_in_one_cs);
	tcase_add_test(nop, threads_submit_concurrently);
	tcase_add_test(nop, many_in_flight);
	tcase_add_test(nop, timestamp_flag);
	tcase_add_test(nop, custom_timeout);
	tcase_add_test(nop, counters_follow_submissions);
	tcase_add_test(nop, cb_usage_returns_to_0);
	tcase_add_test(nop, cb_can_be_rewritten_after_submit);
	tcase_add_test(nop, destroy_cb_after_submit);
	tcase_add_test(nop, close_with_work_in_flight);
	tcase_add_test(nop, staged_submission_in_parts);
	tcase_add_test(nop, staged_submission_refusals);
	suite_add_tcase(s, nop);

	tcase_add_loop_test(err, error_ends_parked_sibling, 0, 2);
	tcase_add_test(err, error_without_parked_sibling_resets_nothing);
	tcase_add_test(err, staged_part_error_fails_the_cs);
	tcase_add_test(err, failed_cs_timeout_ends_with_its_context);
	suite_add_tcase(s, err);

	tcase_add_test(msg, msg_long_to_host);
	tcase_add_loop_test(msg, msg_long_on_each_queue, 0, GAUDISIM_NUM_EXT_QUEUES);
	tcase_add_test(msg, msg_long_timestamps_advance);
	tcase_add_test(msg, satisfied_fence_passes);
	tcase_add_loop_test(msg, load_predicates_on_external_queue, 0, 2);
	tcase_add_test(msg, load_and_exe_refused_on_external_queue);
	tcase_add_test(msg, load_scalars_and_exe_on_internal_queue);
	suite_add_tcase(s, msg);

	tcase_add_test(wait, wait_poll_then_block);
	tcase_add_test(wait, wait_old_seq_after_many);
	tcase_add_test(wait, timestamp_kept_after_many);
	tcase_add_test(wait, timestamp_outcome_store);
	tcase_add_test(wait, wait_bad_seq);
	tcase_add_test(wait, wait_bad_fields);
	tcase_add_test(wait, wait_seq_of_another_file);
	tcase_set_timeout(wait, TCASE_TIMEOUT_DMA);
	suite_add_tcase(s, wait);
	return s;
}

int main(void)
{
	return run_suite(cs_suite());
}
