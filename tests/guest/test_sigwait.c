// SPDX-License-Identifier: MIT
/*
 * SIGNAL and WAIT CSs (habanalabs' sync streams): a queue waits in the
 * sync manager for signals of other queues. Positive tests prove the order
 * with data: queue B's copy of a pattern into HBM is held back by a gate
 * (a user monitor on fence 0 that the test opens), B signals after it, and
 * queue A's copy of that HBM back to the host waits for B's signal; A's
 * result is the pattern only if it ran after B. Also: several signals in
 * one WAIT, a WAIT on signals already done, sync-object wraparound,
 * encapsulated signals (reserved on a queue's SOB, added by a CS's own
 * jobs, waited for by offset), and the negative matrix.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_gaudi_map.h"
#include "hw/gaudisim_hw_sync.h"

#define QUEUE_B		(GAUDISIM_QUEUE_ID_DMA_0_0 + 1)/* signals (gated) */
#define QUEUE_B2	(GAUDISIM_QUEUE_ID_DMA_0_0 + 2)/* signals (not gated) */
#define QUEUE_A		(GAUDISIM_QUEUE_ID_DMA_1_0 + 1)/* waits */
#define QUEUE_GATE	(GAUDISIM_QUEUE_ID_DMA_1_0 + 2)/* opens the gate */
#define DATA_SIZE	(64 * KiB)
#define SOB_MAX_PARAM	"/sys/module/gaudisim/parameters/signal_sob_max"
/* A CS the test expects to be held back is looked at after this long. */
#define HOLD_MS		300

static uint32_t gate_sob, gate_mon;

static void sigwait_setup(void)
{
	struct gaudisim_info_sync_manager sm;

	compute_setup();
	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm)),
			 0);
	gate_sob = sm.first_available_sync_object;
	gate_mon = sm.first_available_monitor;
}

static void write_param(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	n = write(fd, value, strlen(value));
	close(fd);
	ck_assert_msg(n == (ssize_t)strlen(value), "write %s to %s failed", value, path);
}

static void wrap_setup(void)
{
	sigwait_setup();
	write_param(SOB_MAX_PARAM, "4");
}

static void wrap_teardown(void)
{
	write_param(SOB_MAX_PARAM, "32767");
	compute_teardown();
}

static int signal_on(int fd, uint32_t queue, struct hlthunk_signal_out *out)
{
	struct hlthunk_signal_in in = { .queue_index = queue };

	memset(out, 0, sizeof(*out));
	return hlthunk_signal_submission(fd, &in, out);
}

static uint64_t signal_ok(uint32_t queue)
{
	struct hlthunk_signal_out out;

	ck_assert_int_eq(signal_on(dev_fd, queue, &out), 0);
	ck_assert_uint_ne(out.seq, 0);
	return out.seq;
}

static int wait_on(int fd, uint32_t queue, uint64_t *seqs, uint32_t n, uint64_t *seq)
{
	struct hlthunk_wait_for_signal_data data = {
		.signal_seq_arr = seqs, .signal_seq_nr = n, .queue_index = queue,
	};
	struct hlthunk_wait_in in = { .hlthunk_wait_for_signal = (uint64_t *)&data,
				      .num_wait_for_signal = 1 };
	struct hlthunk_wait_out out = { 0 };
	int rc;

	rc = hlthunk_wait_for_signal(fd, &in, &out);
	if (!rc)
		*seq = out.seq;
	return rc;
}

/* The CS ioctl with one hand-made chunk, for what the wrappers do not allow. */
static int cs_raw(const struct gaudisim_cs_chunk *chunks, uint32_t n, uint32_t flags)
{
	union gaudisim_cs_args a;

	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uint64_t)(uintptr_t)chunks;
	a.in.num_chunks_execute = n;
	a.in.cs_flags = flags;
	return hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, &a);
}

static void arm_gate(void)
{
	struct test_cb cb;

	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, gate_sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor_to_fence(&cb.w, gate_mon, gate_sob, QUEUE_B);
	run_cb_ok(dev_fd, &cb, QUEUE_GATE, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}

static void open_gate(void)
{
	struct test_cb cb;

	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, gate_sob, GAUDISIM_SYNC_SOB_ADD(1), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_GATE, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}

/*
 * Submit a CB on queue (optionally behind the gate) that copies src to dst;
 * with size 0, a NOP.
 */
static uint64_t submit_copy(struct test_cb *cb, uint32_t queue, bool gated, uint64_t src,
			    uint64_t dst, uint32_t size)
{
	struct gaudisim_cs_chunk chunk;
	uint64_t seq;

	cb_create_ok(dev_fd, cb, 4096);
	if (gated)
		ck_assert_int_eq(hlthunk_cbw_fence(&cb->w, 0, 1, 1, 0), 0);
	if (size)
		ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb->w, src, dst, size, 0, 0), 0);
	else
		ck_assert_int_eq(hlthunk_cbw_nop(&cb->w, 0), 0);
	chunk = make_chunk(cb->handle, queue, cb->w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	return seq;
}

static uint32_t cs_status_now(uint64_t seq)
{
	uint32_t status = UINT32_MAX;

	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq, 0, &status), 0);
	return status;
}

/* ---- Positive --------------------------------------------------------------- */

START_TEST(signal_completes_and_counts)
{
	struct hlthunk_signal_out a, b;

	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &a), 0);
	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &b), 0);
	ck_assert_uint_eq(b.seq, a.seq + 1);
	ck_assert_uint_eq(a.status, GAUDISIM_CS_STATUS_SUCCESS);
	/* The queue's sync object: one of the driver's two for QUEUE_B2. */
	ck_assert_uint_ge(a.sob_base_addr_offset,
			  gaudisim_gaudi_sob_offset(GAUDISIM_SYNC_DRIVER_SOB_FIRST + 2 * QUEUE_B2));
	ck_assert_uint_le(a.sob_base_addr_offset,
			  gaudisim_gaudi_sob_offset(GAUDISIM_SYNC_DRIVER_SOB_FIRST + 2 * QUEUE_B2 + 1));
	if (b.sob_base_addr_offset == a.sob_base_addr_offset)
		ck_assert_uint_eq(b.sob_count_before_submission,
				  a.sob_count_before_submission + 1);
	wait_completed_ok(dev_fd, a.seq, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, b.seq, WAIT_US_SHORT);
}
END_TEST

/* A's copy runs only after B's gated copy and B's signal: the data says so. */
START_TEST(wait_orders_dma_by_data)
{
	struct host_buf src, dst;
	struct hbm_buf hbm;
	struct test_cb cb_b, cb_a;
	uint64_t b_seq, sig, wait_seq, a_seq;

	host_buf_map_ok(dev_fd, &src, DATA_SIZE);
	host_buf_map_ok(dev_fd, &dst, DATA_SIZE);
	hbm_alloc_ok(dev_fd, &hbm, DATA_SIZE);
	fill_pattern(src.ptr, DATA_SIZE, 81);
	memset(dst.ptr, 0, DATA_SIZE);
	memset_ok(dev_fd, hbm.addr, 0, DATA_SIZE, QUEUE_GATE);

	arm_gate();
	b_seq = submit_copy(&cb_b, QUEUE_B, true, src.va, hbm.addr, DATA_SIZE);
	sig = signal_ok(QUEUE_B);
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, &sig, 1, &wait_seq), 0);
	ck_assert_uint_ne(wait_seq, ULLONG_MAX);
	a_seq = submit_copy(&cb_a, QUEUE_A, false, hbm.addr, dst.va, DATA_SIZE);

	/* Held back: B behind its gate, A behind B's signal. */
	sleep_ms(HOLD_MS);
	ck_assert_uint_eq(cs_status_now(b_seq), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(cs_status_now(sig), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(cs_status_now(wait_seq), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(cs_status_now(a_seq), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_int_eq(first_byte_not(dst.ptr, DATA_SIZE, 0), -1);

	open_gate();
	wait_completed_ok(dev_fd, a_seq, WAIT_US_DMA);
	wait_completed_ok(dev_fd, wait_seq, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, b_seq, WAIT_US_SHORT);
	ck_assert_int_eq(first_difference(dst.ptr, src.ptr, DATA_SIZE), -1);

	cb_destroy_ok(dev_fd, &cb_a);
	cb_destroy_ok(dev_fd, &cb_b);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}
END_TEST

/*
 * One WAIT on three signals: one already done, one of another queue that
 * runs at once, and the one after B's gated copy; A waits for all.
 */
START_TEST(wait_on_several_signals)
{
	struct host_buf src, dst;
	struct hbm_buf hbm;
	struct test_cb cb_b, cb_a;
	uint64_t sigs[3], b_seq, wait_seq, a_seq;

	host_buf_map_ok(dev_fd, &src, DATA_SIZE);
	host_buf_map_ok(dev_fd, &dst, DATA_SIZE);
	hbm_alloc_ok(dev_fd, &hbm, DATA_SIZE);
	fill_pattern(src.ptr, DATA_SIZE, 82);
	memset(dst.ptr, 0, DATA_SIZE);
	memset_ok(dev_fd, hbm.addr, 0, DATA_SIZE, QUEUE_GATE);

	sigs[0] = signal_ok(QUEUE_B2);
	wait_completed_ok(dev_fd, sigs[0], WAIT_US_SHORT);
	arm_gate();
	sigs[1] = signal_ok(QUEUE_B2);
	b_seq = submit_copy(&cb_b, QUEUE_B, true, src.va, hbm.addr, DATA_SIZE);
	sigs[2] = signal_ok(QUEUE_B);
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, sigs, 3, &wait_seq), 0);
	ck_assert_uint_ne(wait_seq, ULLONG_MAX);
	a_seq = submit_copy(&cb_a, QUEUE_A, false, hbm.addr, dst.va, DATA_SIZE);

	sleep_ms(HOLD_MS);
	wait_completed_ok(dev_fd, sigs[1], WAIT_US_SHORT);
	ck_assert_uint_eq(cs_status_now(wait_seq), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(cs_status_now(a_seq), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_int_eq(first_byte_not(dst.ptr, DATA_SIZE, 0), -1);

	open_gate();
	wait_completed_ok(dev_fd, a_seq, WAIT_US_DMA);
	wait_completed_ok(dev_fd, b_seq, WAIT_US_SHORT);
	ck_assert_int_eq(first_difference(dst.ptr, src.ptr, DATA_SIZE), -1);

	cb_destroy_ok(dev_fd, &cb_a);
	cb_destroy_ok(dev_fd, &cb_b);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}
END_TEST

/* As habanalabs: nothing left to wait for gives ULLONG_MAX at once. */
START_TEST(wait_on_completed_signal_returns_at_once)
{
	uint64_t sig, seq = 0;

	sig = signal_ok(QUEUE_B2);
	wait_completed_ok(dev_fd, sig, WAIT_US_SHORT);
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, &sig, 1, &seq), 0);
	ck_assert_uint_eq(seq, ULLONG_MAX);
	/* Nothing was submitted: the next CS gets the next seq. */
	ck_assert_uint_eq(signal_ok(QUEUE_B2), sig + 1);
}
END_TEST

/* A WAIT with a timeout of its own (hl-thunk's _timeout variants). */
START_TEST(timeout_variants)
{
	struct hlthunk_signal_in sin = { .queue_index = QUEUE_B };
	struct hlthunk_signal_out sout;
	struct hlthunk_wait_for_signal_data data = { .signal_seq_nr = 1, .queue_index = QUEUE_A };
	struct hlthunk_wait_in win = { .hlthunk_wait_for_signal = (uint64_t *)&data,
				       .num_wait_for_signal = 1 };
	struct hlthunk_wait_out wout;

	arm_gate();
	{
		struct test_cb cb;
		uint64_t b_seq;

		b_seq = submit_copy(&cb, QUEUE_B, true, 0, 0, 0);
		ck_assert_int_eq(hlthunk_signal_submission_timeout(dev_fd, &sin, &sout, 30), 0);
		data.signal_seq_arr = &sout.seq;
		ck_assert_int_eq(hlthunk_wait_for_signal_timeout(dev_fd, &win, &wout, 30), 0);
		ck_assert_uint_ne(wout.seq, ULLONG_MAX);
		open_gate();
		wait_completed_ok(dev_fd, wout.seq, WAIT_US_SHORT);
		wait_completed_ok(dev_fd, b_seq, WAIT_US_SHORT);
		cb_destroy_ok(dev_fd, &cb);
	}
}
END_TEST

/*
 * signal_sob_max 4: every 4 signals the queue moves to its other SOB,
 * zeroed first, and waits on signals either side of the move still work.
 */
START_TEST(sob_wraparound)
{
	uint32_t offsets[2] = { 0, 0 }, n_offsets = 0;
	int i;

	for (i = 0; i < 12; i++) {
		struct hlthunk_signal_out out;
		uint64_t wseq;

		ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &out), 0);
		ck_assert_uint_lt(out.sob_count_before_submission, 4);
		if (!n_offsets || offsets[n_offsets - 1] != out.sob_base_addr_offset) {
			if (n_offsets == 2) {
				/* Alternates between the queue's two SOBs. */
				ck_assert_uint_eq(out.sob_base_addr_offset, offsets[0]);
				offsets[0] = offsets[1];
				offsets[1] = out.sob_base_addr_offset;
			} else {
				offsets[n_offsets++] = out.sob_base_addr_offset;
			}
			/* A fresh SOB starts from 0. */
			if (i)
				ck_assert_uint_eq(out.sob_count_before_submission, 0);
		}
		ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, &out.seq, 1, &wseq), 0);
		if (wseq != ULLONG_MAX)
			wait_completed_ok(dev_fd, wseq, WAIT_US_SHORT);
		wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
	}
	ck_assert_uint_eq(n_offsets, 2);
	ck_assert_uint_ne(offsets[0], offsets[1]);
}
END_TEST

/*
 * The move back to a SOB that a pending signal still targets is refused
 * (EBUSY) until that signal ran; then signalling works again.
 */
START_TEST(sob_wraparound_blocked_while_in_use)
{
	struct test_cb cb;
	struct hlthunk_signal_out out;
	uint64_t b_seq, last = 0;
	int i, rc = 0;

	arm_gate();
	b_seq = submit_copy(&cb, QUEUE_B, true, 0, 0, 0);
	for (i = 0; i < 12; i++) {
		rc = signal_on(dev_fd, QUEUE_B, &out);
		if (rc)
			break;
		last = out.seq;
	}
	ck_assert_int_eq(rc, -EBUSY);
	/* Up to 4 fill one SOB, 4 the other; the move back is refused. */
	ck_assert_int_ge(i, 5);
	ck_assert_int_le(i, 8);
	open_gate();
	wait_completed_ok(dev_fd, last, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, b_seq, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, signal_ok(QUEUE_B), WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

/* After a reset the device needs a moment; poll its status, bounded. */
/*
 * A hung queue times out and the device resets, zeroing every SOB: the
 * signals queued behind it are aborted, the WAIT on them too, and the
 * queue's counts start again from 0, so new signals and waits work.
 */
START_TEST(reset_aborts_and_restarts_counts)
{
	struct test_cb cb;
	struct gaudisim_cs_chunk chunk;
	struct hlthunk_signal_out out;
	uint64_t hung, sig, wseq;
	uint32_t status;
	int i;

	arm_gate();
	cb_create_ok(dev_fd, &cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb.w, 0, 1, 1, 0), 0);
	chunk = make_chunk(cb.handle, QUEUE_B, cb.w.used);
	ck_assert_int_eq(submit_chunks(&chunk, 1, 2, &hung), 0);
	for (i = 0; i < 3; i++)
		sig = signal_ok(QUEUE_B);
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, &sig, 1, &wseq), 0);
	ck_assert_uint_ne(wseq, ULLONG_MAX);

	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, hung, WAIT_US_SHORT, &status), -ETIMEDOUT);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, sig, WAIT_US_SHORT, &status), -EIO);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_ABORTED);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, wseq, WAIT_US_SHORT, &status), -EIO);
	wait_operational_ok(dev_fd);
	/* A WAIT on the aborted signal is refused: it never happened. */
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, &sig, 1, &wseq), -EIO);

	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B, &out), 0);
	ck_assert_uint_eq(out.sob_count_before_submission, 0);
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, &out.seq, 1, &wseq), 0);
	if (wseq != ULLONG_MAX)
		wait_completed_ok(dev_fd, wseq, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

/* ---- Negative matrix -------------------------------------------------------- */

START_TEST(signal_bad_queues)
{
	struct hlthunk_signal_out out;
	const uint32_t bad[] = { GAUDISIM_QUEUE_ID_CPU_PQ, GAUDISIM_QUEUE_ID_DMA_2_0,
				 GAUDISIM_QUEUE_ID_MME_0, GAUDISIM_QUEUE_ID_TPC_0_0,
				 GAUDISIM_QUEUE_ID_SIZE, UINT32_MAX };
	uint64_t sig, seq;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(signal_on(dev_fd, bad[i], &out), -EINVAL);
		sig = signal_ok(QUEUE_B2);
		ck_assert_int_eq(wait_on(dev_fd, bad[i], &sig, 1, &seq), -EINVAL);
	}
	wait_completed_ok(dev_fd, sig, WAIT_US_SHORT);
}
END_TEST

START_TEST(bad_chunks_and_flags)
{
	struct gaudisim_cs_chunk c[2];
	uint64_t sig = signal_ok(QUEUE_B2);

	memset(c, 0, sizeof(c));
	c[0].queue_index = QUEUE_B2;
	c[1].queue_index = QUEUE_B2;
	/* SIGNAL and WAIT at once; two chunks; a SIGNAL with a CB. */
	ck_assert_int_eq(cs_raw(c, 1, GAUDISIM_CS_FLAGS_SIGNAL | GAUDISIM_CS_FLAGS_WAIT),
			 -EINVAL);
	ck_assert_int_eq(cs_raw(c, 2, GAUDISIM_CS_FLAGS_SIGNAL), -EINVAL);
	c[0].cb_handle = 1 << 12;
	ck_assert_int_eq(cs_raw(c, 1, GAUDISIM_CS_FLAGS_SIGNAL), -EINVAL);
	c[0].cb_handle = 0;
	c[0].cs_chunk_flags = 1;
	ck_assert_int_eq(cs_raw(c, 1, GAUDISIM_CS_FLAGS_SIGNAL), -EINVAL);
	c[0].cs_chunk_flags = 0;
	c[0].pad[3] = 1;
	ck_assert_int_eq(cs_raw(c, 1, GAUDISIM_CS_FLAGS_SIGNAL), -EINVAL);
	c[0].pad[3] = 0;
	/* WAIT: unreadable seq array, and a bad chunk array. */
	c[0].signal_seq_arr = 8;
	c[0].num_signal_seq_arr = 1;
	ck_assert_int_eq(cs_raw(c, 1, GAUDISIM_CS_FLAGS_WAIT), -EFAULT);
	ck_assert_int_eq(cs_raw((const void *)8, 1, GAUDISIM_CS_FLAGS_SIGNAL), -EFAULT);
	/* Still working. */
	wait_completed_ok(dev_fd, sig, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, signal_ok(QUEUE_B2), WAIT_US_SHORT);
}
END_TEST

START_TEST(wait_bad_seqs)
{
	struct test_cb nop;
	struct gaudisim_cs_chunk chunk;
	uint64_t seqs[GAUDISIM_CS_WAIT_MAX_SIGNALS + 1], nop_seq, sig, seq;
	unsigned int i;

	cb_create_ok(dev_fd, &nop, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	chunk = make_chunk(nop.handle, QUEUE_B2, nop.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &nop_seq), 0);
	sig = signal_ok(QUEUE_B2);

	/* seq 0, a seq not yet given, a CS that is not a SIGNAL (pending or not). */
	seqs[0] = 0;
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, 1, &seq), -EINVAL);
	seqs[0] = sig + 1;
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, 1, &seq), -EINVAL);
	seqs[0] = UINT64_MAX;
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, 1, &seq), -EINVAL);
	seqs[0] = nop_seq;
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, 1, &seq), -EINVAL);
	wait_completed_ok(dev_fd, nop_seq, WAIT_US_SHORT);
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, 1, &seq), -EINVAL);
	/* A good signal next to a bad one: the whole WAIT is refused. */
	seqs[0] = sig;
	seqs[1] = nop_seq;
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, 2, &seq), -EINVAL);

	/* No signals, and one more than allowed. */
	for (i = 0; i < GAUDISIM_CS_WAIT_MAX_SIGNALS + 1; i++)
		seqs[i] = sig;
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, 0, &seq), -EINVAL);
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, GAUDISIM_CS_WAIT_MAX_SIGNALS + 1, &seq),
			 -EINVAL);
	/* The most allowed is fine. */
	ck_assert_int_eq(wait_on(dev_fd, QUEUE_A, seqs, GAUDISIM_CS_WAIT_MAX_SIGNALS, &seq), 0);
	if (seq != ULLONG_MAX)
		wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &nop);
}
END_TEST

/*
 * Seqs belong to a context: a SIGNAL of an earlier user of the device is
 * no signal of the next one (there, that seq is a plain CS or none).
 */
START_TEST(signal_of_another_context)
{
	struct test_cb nop;
	struct gaudisim_cs_chunk chunk;
	uint64_t sig, nop_seq, seq;
	int fd2;

	sig = signal_ok(QUEUE_B2);
	wait_completed_ok(dev_fd, sig, WAIT_US_SHORT);
	compute_teardown();

	fd2 = open_compute_ok();
	dev_fd = fd2;
	ck_assert_int_eq(wait_on(fd2, QUEUE_A, &sig, 1, &seq), -EINVAL);
	cb_create_ok(fd2, &nop, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	chunk = make_chunk(nop.handle, QUEUE_B2, nop.w.used);
	while (1) {
		ck_assert_int_eq(submit_chunk(fd2, &chunk, &nop_seq), 0);
		if (nop_seq >= sig)
			break;
	}
	wait_completed_ok(fd2, nop_seq, WAIT_US_SHORT);
	ck_assert_int_eq(wait_on(fd2, QUEUE_A, &sig, 1, &seq), -EINVAL);
	cb_destroy_ok(fd2, &nop);
}
END_TEST

START_TEST(wrapper_arguments)
{
	struct hlthunk_signal_in sin = { .queue_index = QUEUE_B2 };
	struct hlthunk_signal_out sout;
	uint64_t sig = signal_ok(QUEUE_B2);
	struct hlthunk_wait_for_signal_data data = { .signal_seq_arr = &sig, .signal_seq_nr = 1,
						     .queue_index = QUEUE_A };
	struct hlthunk_wait_in win = { .hlthunk_wait_for_signal = (uint64_t *)&data,
				       .num_wait_for_signal = 2 };
	struct hlthunk_wait_out wout;

	ck_assert_int_eq(hlthunk_signal_submission(dev_fd, NULL, &sout), -EINVAL);
	ck_assert_int_eq(hlthunk_signal_submission(dev_fd, &sin, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_wait_for_signal(dev_fd, NULL, &wout), -EINVAL);
	ck_assert_int_eq(hlthunk_wait_for_signal(dev_fd, &win, &wout), -EINVAL);
	win.num_wait_for_signal = 1;
	win.hlthunk_wait_for_signal = NULL;
	ck_assert_int_eq(hlthunk_wait_for_signal(dev_fd, &win, &wout), -EINVAL);
	/* A SIGNAL's custom timeout out of range. */
	ck_assert_int_eq(hlthunk_signal_submission_timeout(dev_fd, &sin, &sout, 3601), -EINVAL);
	wait_completed_ok(dev_fd, sig, WAIT_US_SHORT);
}
END_TEST

/* ---- Encapsulated signals ------------------------------------------------ */

static int reserve_on(int fd, uint32_t queue, uint32_t count, struct hlthunk_sig_res_out *out)
{
	struct hlthunk_sig_res_in in = { .queue_index = queue, .count = count };

	memset(out, 0, sizeof(*out));
	return hlthunk_reserve_encaps_signals(fd, &in, out);
}

static int unreserve(int fd, uint32_t handle)
{
	struct reserve_sig_handle h = { .id = handle };
	uint32_t status = UINT32_MAX;
	int rc;

	rc = hlthunk_unreserve_encaps_signals(fd, &h, &status);
	if (!rc)
		ck_assert_uint_eq(status, GAUDISIM_CS_STATUS_SUCCESS);
	return rc;
}

/* A CS with ENCAP_SIGNALS running cb on queue. */
static int encap_submit(uint32_t handle, const struct test_cb *cb, uint32_t queue,
			struct gaudisim_cs_out *out)
{
	struct gaudisim_cs_chunk chunk = make_chunk(cb->handle, queue, cb->w.used);
	union gaudisim_cs_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uint64_t)(uintptr_t)&chunk;
	a.in.num_chunks_execute = 1;
	a.in.encaps_sig_handle_id = handle;
	a.in.cs_flags = GAUDISIM_CS_FLAGS_ENCAP_SIGNALS;
	rc = hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, &a);
	if (!rc)
		*out = a.out;
	return rc;
}

/* A WAIT CS on queue for offset signals of the reservation CS seq used. */
static int encap_wait(uint64_t seq, uint32_t offset, uint32_t queue, uint64_t *wseq)
{
	struct hlthunk_wait_for_signal_data data = {
		.encaps_signal_seq = seq, .encaps_signal_offset = offset, .signal_seq_nr = 1,
		.queue_index = queue,
	};
	struct hlthunk_wait_in in = { .hlthunk_wait_for_signal = (uint64_t *)&data,
				      .num_wait_for_signal = 1 };
	struct hlthunk_wait_out out = { 0 };
	int rc;

	rc = hlthunk_wait_for_reserved_encaps_signals(dev_fd, &in, &out);
	if (!rc)
		*wseq = out.seq;
	return rc;
}

static uint32_t sob_of(uint32_t sob_base_addr_offset)
{
	return (sob_base_addr_offset - gaudisim_gaudi_sob_offset(0)) / 4;
}

/*
 * Two signals reserved on QUEUE_B; a CS there adds one, waits at the gate,
 * adds the other. A WAIT for offset 1 ends while the gate is shut, one for
 * offset 2 only once it opens. The reservation took two of the SOB's
 * values: the next SIGNAL counts from after them.
 */
START_TEST(encap_reserve_signal_wait_unreserve)
{
	struct hlthunk_sig_res_out res;
	struct gaudisim_cs_out ecs;
	struct hlthunk_signal_out before, after;
	struct test_cb cb;
	uint64_t w1, w2;
	uint32_t sob;

	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B, &before), 0);
	wait_completed_ok(dev_fd, before.seq, WAIT_US_SHORT);
	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B, 2, &res), 0);
	ck_assert_uint_ne(res.handle.id, 0);
	ck_assert_uint_eq(res.handle.count, 2);
	ck_assert_uint_eq(res.status, GAUDISIM_CS_STATUS_SUCCESS);
	sob = sob_of(res.handle.sob_base_addr_offset);
	ck_assert_uint_ge(sob, GAUDISIM_SYNC_DRIVER_SOB_FIRST + 2 * QUEUE_B);
	ck_assert_uint_le(sob, GAUDISIM_SYNC_DRIVER_SOB_FIRST + 2 * QUEUE_B + 1);

	arm_gate();
	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_ADD(1), 0);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb.w, 0, 1, 1, 0), 0);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_ADD(1), 0);
	ck_assert_int_eq(encap_submit(res.handle.id, &cb, QUEUE_B, &ecs), 0);
	ck_assert_uint_ne(ecs.seq, 0);
	ck_assert_uint_eq(ecs.sob_base_addr_offset, res.handle.sob_base_addr_offset);
	if (res.handle.sob_base_addr_offset == before.sob_base_addr_offset)
		ck_assert_uint_eq(ecs.sob_count_before_submission,
				  before.sob_count_before_submission + 1);

	ck_assert_int_eq(encap_wait(ecs.seq, 1, QUEUE_A, &w1), 0);
	wait_completed_ok(dev_fd, w1, WAIT_US_SHORT);
	ck_assert_int_eq(encap_wait(ecs.seq, 2, QUEUE_A, &w2), 0);
	usleep(HOLD_MS * 1000);
	ck_assert_uint_eq(cs_status_now(w2), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(cs_status_now(ecs.seq), GAUDISIM_WAIT_CS_STATUS_BUSY);
	open_gate();
	wait_completed_ok(dev_fd, ecs.seq, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, w2, WAIT_US_SHORT);

	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B, &after), 0);
	if (after.sob_base_addr_offset == res.handle.sob_base_addr_offset)
		ck_assert_uint_eq(after.sob_count_before_submission,
				  ecs.sob_count_before_submission + 2);
	wait_completed_ok(dev_fd, after.seq, WAIT_US_SHORT);
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id), 0);
	/* The handle is gone: neither a second unreserve nor a WAIT on it. */
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id), -EINVAL);
	ck_assert_int_eq(encap_wait(ecs.seq, 1, QUEUE_A, &w1), -EINVAL);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

/* A CB adding 1 to sob. */
static void encap_cb(struct test_cb *cb, uint32_t sob)
{
	cb_create_ok(dev_fd, cb, 4096);
	cbw_sob(&cb->w, sob, GAUDISIM_SYNC_SOB_ADD(1), 0);
}

/*
 * As habanalabs' users do: the reservation's handle on the FIRST part of
 * a staged CS; the LAST part's job adds to the reserved SOB too (it is
 * the staged CS's), and a WAIT for both signals ends.
 */
START_TEST(encap_staged_submission)
{
	struct gaudisim_cs_chunk chunk;
	struct hlthunk_sig_res_out res;
	struct test_cb first, last;
	union gaudisim_cs_args a;
	uint64_t seq, w;

	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, 2, &res), 0);
	encap_cb(&first, sob_of(res.handle.sob_base_addr_offset));
	encap_cb(&last, sob_of(res.handle.sob_base_addr_offset));

	chunk = make_chunk(first.handle, QUEUE_B2, first.w.used);
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uint64_t)(uintptr_t)&chunk;
	a.in.num_chunks_execute = 1;
	a.in.encaps_sig_handle_id = res.handle.id;
	a.in.cs_flags = GAUDISIM_CS_FLAGS_STAGED_SUBMISSION |
			GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST | GAUDISIM_CS_FLAGS_ENCAP_SIGNALS;
	ck_assert_int_eq(hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, &a), 0);
	seq = a.out.seq;
	ck_assert_uint_ne(seq, 0);

	/* A later part names the staged CS, not a reservation. */
	chunk = make_chunk(last.handle, QUEUE_B2, last.w.used);
	memset(&a, 0, sizeof(a));
	a.in.chunks_execute = (uint64_t)(uintptr_t)&chunk;
	a.in.num_chunks_execute = 1;
	a.in.seq = seq;
	a.in.cs_flags = GAUDISIM_CS_FLAGS_STAGED_SUBMISSION |
			GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST | GAUDISIM_CS_FLAGS_ENCAP_SIGNALS;
	ck_assert_int_eq(hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, &a), -EINVAL);
	a.in.cs_flags &= ~GAUDISIM_CS_FLAGS_ENCAP_SIGNALS;
	ck_assert_int_eq(hlthunk_ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, &a), 0);
	ck_assert_uint_eq(a.out.seq, seq);

	ck_assert_int_eq(encap_wait(seq, 2, QUEUE_A, &w), 0);
	wait_completed_ok(dev_fd, w, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id), 0);
	cb_destroy_ok(dev_fd, &first);
	cb_destroy_ok(dev_fd, &last);
}
END_TEST

/*
 * A hard reset zeroes the reserved SOB: the handle stays (until released)
 * but CSs and WAITs naming it fail with EIO.
 */
START_TEST(encap_reset_ends_reserved_signals)
{
	struct hlthunk_sig_res_out res;
	struct gaudisim_cs_out ecs, out;
	struct gaudisim_cs_chunk chunk;
	struct test_cb cb, hang;
	uint64_t hung, behind, w;
	uint32_t status;

	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, 1, &res), 0);
	encap_cb(&cb, sob_of(res.handle.sob_base_addr_offset));
	ck_assert_int_eq(encap_submit(res.handle.id, &cb, QUEUE_B2, &ecs), 0);
	wait_completed_ok(dev_fd, ecs.seq, WAIT_US_SHORT);

	arm_gate();
	cb_create_ok(dev_fd, &hang, 4096);
	ck_assert_int_eq(hlthunk_cbw_fence(&hang.w, 0, 1, 1, 0), 0);
	chunk = make_chunk(hang.handle, QUEUE_B, hang.w.used);
	ck_assert_int_eq(submit_chunks(&chunk, 1, 2, &hung), 0);
	/* Aborted by the reset, under the lock that also ends the reservation. */
	behind = signal_ok(QUEUE_B);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, hung, WAIT_US_SHORT, &status), -ETIMEDOUT);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, behind, WAIT_US_SHORT, &status), -EIO);
	wait_operational_ok(dev_fd);

	ck_assert_int_eq(encap_wait(ecs.seq, 1, QUEUE_A, &w), -EIO);
	ck_assert_int_eq(encap_submit(res.handle.id, &cb, QUEUE_B2, &out), -EIO);
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id), 0);
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id), -EINVAL);
	cb_destroy_ok(dev_fd, &hang);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

/* Signals reserved and released unused go back to the queue. */
START_TEST(encap_unused_signals_return)
{
	struct hlthunk_signal_out before, sig;
	struct hlthunk_sig_res_out res;

	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &before), 0);
	wait_completed_ok(dev_fd, before.seq, WAIT_US_SHORT);
	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, 5, &res), 0);
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id), 0);
	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &sig), 0);
	if (sig.sob_base_addr_offset == before.sob_base_addr_offset)
		ck_assert_uint_eq(sig.sob_count_before_submission,
				  before.sob_count_before_submission + 1);
	else
		ck_assert_uint_eq(sig.sob_count_before_submission, 0);
	wait_completed_ok(dev_fd, sig.seq, WAIT_US_SHORT);
}
END_TEST

/*
 * Bad handles, queues, counts and offsets are refused (EINVAL); a CS's
 * jobs add to the reserved SOB only with ENCAP_SIGNALS, only increments,
 * and no more than reserved (EPERM).
 */
START_TEST(encap_refusals)
{
	struct hlthunk_sig_res_out res, bad;
	struct gaudisim_cs_out ecs, out;
	struct gaudisim_cs_chunk chunk;
	struct test_cb cb, nop;
	uint64_t w, seq;
	uint32_t sob;

	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, 2, &res), 0);
	sob = sob_of(res.handle.sob_base_addr_offset);
	/* Reservations: an internal or absent queue, 0 or too many signals. */
	ck_assert_int_eq(reserve_on(dev_fd, GAUDISIM_QUEUE_ID_SIZE, 1, &bad), -EINVAL);
	ck_assert_int_eq(reserve_on(dev_fd, GAUDISIM_NUM_EXT_QUEUES, 1, &bad), -EINVAL);
	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, 0, &bad), -EINVAL);
	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, GAUDISIM_SYNC_SOB_MAX + 1, &bad), -EINVAL);
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id + 1000), -EINVAL);

	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_ADD(1), 0);
	/* Without the flag the SOB is the driver's; a handle not held. */
	chunk = make_chunk(cb.handle, QUEUE_B2, cb.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), -EPERM);
	ck_assert_int_eq(encap_submit(res.handle.id + 1000, &cb, QUEUE_B2, &out), -EINVAL);
	cb_destroy_ok(dev_fd, &cb);

	/* A set, and three increments of two reserved. */
	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_SET(1), 0);
	ck_assert_int_eq(encap_submit(res.handle.id, &cb, QUEUE_B2, &out), -EPERM);
	cb_destroy_ok(dev_fd, &cb);
	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_ADD(1), 0);
	cbw_sob(&cb.w, sob, GAUDISIM_SYNC_SOB_ADD(2), 0);
	ck_assert_int_eq(encap_submit(res.handle.id, &cb, QUEUE_B2, &out), -EPERM);
	cb_destroy_ok(dev_fd, &cb);

	/* Waits: on a CS that used no reservation, past the count, seq 0. */
	cb_create_ok(dev_fd, &nop, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	seq = submit_copy(&cb, QUEUE_B2, false, 0, 0, 0);
	ck_assert_int_eq(encap_wait(seq, 1, QUEUE_A, &w), -EINVAL);
	ck_assert_int_eq(encap_wait(0, 1, QUEUE_A, &w), -EINVAL);
	ck_assert_int_eq(encap_submit(res.handle.id, &nop, QUEUE_B2, &ecs), 0);
	ck_assert_int_eq(encap_wait(ecs.seq, 3, QUEUE_A, &w), -EINVAL);
	/* ENCAP_SIGNALS with SIGNAL, and a wait on an internal queue. */
	memset(&chunk, 0, sizeof(chunk));
	chunk.queue_index = QUEUE_B2;
	ck_assert_int_eq(cs_raw(&chunk, 1, GAUDISIM_CS_FLAGS_SIGNAL |
				GAUDISIM_CS_FLAGS_ENCAP_SIGNALS), -EINVAL);
	ck_assert_int_eq(encap_wait(ecs.seq, 1, GAUDISIM_NUM_EXT_QUEUES, &w), -EINVAL);
	wait_completed_ok(dev_fd, ecs.seq, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id), 0);
	cb_destroy_ok(dev_fd, &nop);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

/*
 * signal_sob_max 4: a reservation of 4 holds its SOB, so after 4 signals
 * on the other one the move back is refused (EBUSY) until the handle is
 * released; then the queue moves back to that SOB, zeroed. (Release by
 * closing the context: test_contexts.)
 */
START_TEST(encap_reservation_holds_its_sob)
{
	struct hlthunk_sig_res_out res;
	struct hlthunk_signal_out out;
	uint64_t last = 0;
	int i;

	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, 4, &res), 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &out), 0);
		ck_assert_uint_ne(out.sob_base_addr_offset, res.handle.sob_base_addr_offset);
		last = out.seq;
	}
	wait_completed_ok(dev_fd, last, WAIT_US_SHORT);
	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &out), -EBUSY);
	ck_assert_int_eq(unreserve(dev_fd, res.handle.id), 0);
	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &out), 0);
	ck_assert_uint_eq(out.sob_base_addr_offset, res.handle.sob_base_addr_offset);
	ck_assert_uint_eq(out.sob_count_before_submission, 0);
	wait_completed_ok(dev_fd, out.seq, WAIT_US_SHORT);
}
END_TEST

/*
 * A context holds up to GAUDISIM_CS_ENCAP_MAX_RESERVATIONS reservations
 * (EINVAL past that); the first one still signals and is waited for with
 * all held, and released in reverse order every unused one gives its
 * signal back to the queue.
 */
START_TEST(encap_many_reservations)
{
	static struct hlthunk_sig_res_out res[GAUDISIM_CS_ENCAP_MAX_RESERVATIONS];
	struct hlthunk_signal_out before, sig;
	struct hlthunk_sig_res_out extra;
	struct gaudisim_cs_out ecs;
	struct test_cb cb;
	uint64_t w;
	int i;

	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &before), 0);
	wait_completed_ok(dev_fd, before.seq, WAIT_US_SHORT);
	for (i = 0; i < GAUDISIM_CS_ENCAP_MAX_RESERVATIONS; i++) {
		int rc = reserve_on(dev_fd, QUEUE_B2, 1, &res[i]);

		ck_assert_msg(rc == 0, "reservation %d: %s", i, strerror(-rc));
		ck_assert_uint_ne(res[i].handle.id, 0);
		if (i)
			ck_assert_uint_ne(res[i].handle.id, res[i - 1].handle.id);
	}
	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, 1, &extra), -EINVAL);

	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, sob_of(res[0].handle.sob_base_addr_offset), GAUDISIM_SYNC_SOB_ADD(1), 0);
	ck_assert_int_eq(encap_submit(res[0].handle.id, &cb, QUEUE_B2, &ecs), 0);
	ck_assert_int_eq(encap_wait(ecs.seq, 1, QUEUE_A, &w), 0);
	wait_completed_ok(dev_fd, w, WAIT_US_SHORT);
	wait_completed_ok(dev_fd, ecs.seq, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);

	for (i = GAUDISIM_CS_ENCAP_MAX_RESERVATIONS - 1; i >= 0; i--)
		ck_assert_msg(unreserve(dev_fd, res[i].handle.id) == 0, "unreserve %d", i);
	ck_assert_int_eq(unreserve(dev_fd, res[1].handle.id), -EINVAL);
	/* Only the used reservation's signal stays taken. */
	ck_assert_int_eq(signal_on(dev_fd, QUEUE_B2, &sig), 0);
	if (sig.sob_base_addr_offset == before.sob_base_addr_offset)
		ck_assert_uint_eq(sig.sob_count_before_submission,
				  before.sob_count_before_submission + 2);
	wait_completed_ok(dev_fd, sig.seq, WAIT_US_SHORT);
	ck_assert_int_eq(reserve_on(dev_fd, QUEUE_B2, 1, &extra), 0);
	ck_assert_int_eq(unreserve(dev_fd, extra.handle.id), 0);
}
END_TEST

#define INFLIGHT_THREADS	4
#define INFLIGHT_PER_THREAD	96

struct inflight_arg {
	const struct test_cb *cb;
	uint64_t seqs[INFLIGHT_PER_THREAD];
	int rc;
};

/* No check asserts off the test's own thread: the first error is kept. */
static void *inflight_submitter(void *p)
{
	struct inflight_arg *a = p;
	struct gaudisim_cs_chunk chunk = make_chunk(a->cb->handle, QUEUE_B, a->cb->w.used);
	int i;

	for (i = 0; i < INFLIGHT_PER_THREAD && !a->rc; i++)
		a->rc = submit_chunk(dev_fd, &chunk, &a->seqs[i]);
	return NULL;
}

static int seq_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * More CSs in flight at once than the old 256 pending slots, from several
 * threads: all held behind B's gate, all accepted with distinct seqs, all
 * complete once it opens.
 */
START_TEST(many_cs_in_flight_from_threads)
{
	static struct inflight_arg args[INFLIGHT_THREADS];
	static uint64_t all[INFLIGHT_THREADS * INFLIGHT_PER_THREAD];
	pthread_t th[INFLIGHT_THREADS];
	struct test_cb gated, nop;
	uint64_t b_seq;
	int i, j, n = 0;

	cb_create_ok(dev_fd, &nop, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	arm_gate();
	b_seq = submit_copy(&gated, QUEUE_B, true, 0, 0, 0);
	for (i = 0; i < INFLIGHT_THREADS; i++) {
		memset(&args[i], 0, sizeof(args[i]));
		args[i].cb = &nop;
		ck_assert_int_eq(pthread_create(&th[i], NULL, inflight_submitter, &args[i]), 0);
	}
	for (i = 0; i < INFLIGHT_THREADS; i++) {
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
		ck_assert_msg(args[i].rc == 0, "thread %d: %s", i, strerror(-args[i].rc));
		for (j = 0; j < INFLIGHT_PER_THREAD; j++)
			all[n++] = args[i].seqs[j];
	}
	qsort(all, n, sizeof(all[0]), seq_cmp);
	for (i = 1; i < n; i++)
		ck_assert_uint_gt(all[i], all[i - 1]);
	ck_assert_uint_gt(all[0], b_seq);
	ck_assert_int_gt(n, 256);
	ck_assert_uint_eq(cs_status_now(b_seq), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(cs_status_now(all[0]), GAUDISIM_WAIT_CS_STATUS_BUSY);
	ck_assert_uint_eq(cs_status_now(all[n - 1]), GAUDISIM_WAIT_CS_STATUS_BUSY);

	open_gate();
	wait_completed_ok(dev_fd, b_seq, WAIT_US_SHORT);
	for (i = 0; i < n; i++)
		wait_completed_ok(dev_fd, all[i], WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &gated);
	cb_destroy_ok(dev_fd, &nop);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sigwait");
	TCase *pos = fixture_tcase("signal-wait", sigwait_setup, compute_teardown,
				   TCASE_TIMEOUT_DMA);
	TCase *wrap = fixture_tcase("wraparound", wrap_setup, wrap_teardown, TCASE_TIMEOUT_DMA);
	TCase *neg = fixture_tcase("negative", sigwait_setup, compute_teardown,
				   TCASE_TIMEOUT_SHORT);

	tcase_add_test(pos, signal_completes_and_counts);
	tcase_add_test(pos, wait_orders_dma_by_data);
	tcase_add_test(pos, wait_on_several_signals);
	tcase_add_test(pos, wait_on_completed_signal_returns_at_once);
	tcase_add_test(pos, timeout_variants);
	tcase_add_test(pos, reset_aborts_and_restarts_counts);
	tcase_add_test(pos, encap_reserve_signal_wait_unreserve);
	tcase_add_test(pos, encap_unused_signals_return);
	tcase_add_test(pos, encap_staged_submission);
	tcase_add_test(pos, encap_reset_ends_reserved_signals);
	tcase_add_test(pos, encap_many_reservations);
	tcase_add_test(pos, many_cs_in_flight_from_threads);
	suite_add_tcase(s, pos);
	tcase_add_test(wrap, sob_wraparound);
	tcase_add_test(wrap, sob_wraparound_blocked_while_in_use);
	tcase_add_test(wrap, encap_reservation_holds_its_sob);
	suite_add_tcase(s, wrap);
	tcase_add_test(neg, signal_bad_queues);
	tcase_add_test(neg, bad_chunks_and_flags);
	tcase_add_test(neg, wait_bad_seqs);
	tcase_add_test(neg, signal_of_another_context);
	tcase_add_test(neg, wrapper_arguments);
	tcase_add_test(neg, encap_refusals);
	suite_add_tcase(s, neg);
	return run_suite(s);
}
