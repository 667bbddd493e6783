// SPDX-License-Identifier: MIT
/*
 * The short CS round trip (docs/performance.md): the device runs a short
 * CB inside the doorbell write, so a NOP CS is complete by the time the
 * submit ioctl returns and a WAIT_CS finds it done without sleeping (the
 * waiter drains the CQ itself); the interrupt path still completes what
 * no waiter drains; per-queue completions keep their order however many
 * drainers (waiters, the interrupt thread) race.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "common.h"

static struct test_cb nop_cb;

static void latency_setup(void)
{
	compute_setup();
	cb_create_ok(dev_fd, &nop_cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop_cb.w, 0), 0);
}

static void latency_teardown(void)
{
	cb_destroy_ok(dev_fd, &nop_cb);
	compute_teardown();
}

/* Submit a NOP CS on queue; 0 and the seq, or the ioctl's rc. */
static int submit_nop(int fd, uint32_t queue, uint32_t cs_flags, uint64_t *seq)
{
	struct gaudisim_cs_chunk chunk = make_chunk(nop_cb.handle, queue, nop_cb.w.used);
	struct hlthunk_cs_in in = { .chunks_execute = &chunk, .num_chunks_execute = 1,
				    .flags = cs_flags };
	struct hlthunk_cs_out out;
	int rc = hlthunk_command_submission(fd, &in, &out);

	*seq = out.seq;
	return rc;
}

/* A poll right after the submit finds the NOP CS completed, every time. */
START_TEST(test_done_when_submit_returns)
{
	const uint32_t queues[] = { QUEUE_H2D, QUEUE_D2H };
	unsigned int i;

	for (i = 0; i < 400; i++) {
		uint32_t status = ~0u;
		uint64_t seq;

		ck_assert_int_eq(submit_nop(dev_fd, queues[i % 2], 0, &seq), 0);
		ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq, 0, &status), 0);
		ck_assert_msg(status == GAUDISIM_WAIT_CS_STATUS_COMPLETED,
			      "CS %u (seq %llu) not complete on return: status %u", i,
			      (unsigned long long)seq, status);
	}
}
END_TEST

/*
 * The multi-CS wait does not drain the CQ: what it sees completed, the
 * interrupt (hard-IRQ check, then the thread) completed.
 */
START_TEST(test_interrupt_completes_undrained)
{
	uint64_t seqs[GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN];
	uint32_t done = 0;
	unsigned int i, rounds = 0;

	for (i = 0; i < 50; i++) {
		struct hlthunk_wait_multi_cs_in in = { .seq = seqs, .seq_len = 1,
						       .timeout_us = WAIT_US_SHORT };
		struct hlthunk_wait_multi_cs_out out;

		ck_assert_int_eq(submit_nop(dev_fd, QUEUE_H2D, 0, &seqs[0]), 0);
		memset(&out, 0, sizeof(out));
		ck_assert_int_eq(hlthunk_wait_for_multi_cs(dev_fd, &in, &out), 0);
		ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
		ck_assert_uint_eq(out.seq_set, 1);
	}

	/* A full list in flight at once: every bit comes, bounded. */
	for (i = 0; i < GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN; i++)
		ck_assert_int_eq(submit_nop(dev_fd, QUEUE_D2H, 0, &seqs[i]), 0);
	while (done != 0xffffffffu) {
		struct hlthunk_wait_multi_cs_in in = { .seq = seqs,
						       .seq_len = GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN,
						       .timeout_us = WAIT_US_SHORT };
		struct hlthunk_wait_multi_cs_out out;

		memset(&out, 0, sizeof(out));
		ck_assert_int_eq(hlthunk_wait_for_multi_cs(dev_fd, &in, &out), 0);
		ck_assert_uint_eq(out.status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
		done |= out.seq_set;
		ck_assert_uint_lt(++rounds, 1000);
	}
}
END_TEST

/* Waits in reverse order: completions still in submission order. */
START_TEST(test_completion_order_kept)
{
	enum { N = 128 };
	static uint64_t seq[N];
	static int64_t ts[N];
	unsigned int i;

	for (i = 0; i < N; i++)
		ck_assert_int_eq(submit_nop(dev_fd, QUEUE_D2H, GAUDISIM_CS_FLAGS_TIMESTAMP,
					    &seq[i]), 0);
	for (i = N; i-- > 0;) {
		uint32_t status = ~0u, flags = 0;

		ck_assert_int_eq(hlthunk_wait_for_cs_with_flags(dev_fd, seq[i], WAIT_US_SHORT,
								    &status, &flags, &ts[i]),
				 0);
		ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
		ck_assert(flags & GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	}
	for (i = 1; i < N; i++)
		ck_assert_msg(ts[i] >= ts[i - 1], "CS %u completed at %lld, before CS %u (%lld)",
			      i, (long long)ts[i], i - 1, (long long)ts[i - 1]);
}
END_TEST

struct racer {
	int fd;
	uint32_t queue;
	unsigned int rounds;
	unsigned int bad;	/* failed submits or waits */
	int first_rc;
};

static void *racer_main(void *arg)
{
	struct racer *r = arg;
	unsigned int i;

	for (i = 0; i < r->rounds; i++) {
		uint32_t status = ~0u;
		uint64_t seq;
		int rc = submit_nop(r->fd, r->queue, 0, &seq);

		if (!rc)
			rc = hlthunk_wait_for_cs(r->fd, seq, WAIT_US_SHORT, &status);
		if (rc || status != GAUDISIM_WAIT_CS_STATUS_COMPLETED) {
			if (!r->bad++)
				r->first_rc = rc ? rc : -(int)status - 1000;
		}
	}
	return NULL;
}

/*
 * Three threads of one context submit and wait at once, two on the same
 * queue: their drains race each other and the interrupt thread's.
 */
START_TEST(test_concurrent_waiters)
{
	struct racer r[3] = {
		{ .fd = dev_fd, .queue = QUEUE_H2D, .rounds = 600 },
		{ .fd = dev_fd, .queue = QUEUE_H2D, .rounds = 600 },
		{ .fd = dev_fd, .queue = QUEUE_D2H, .rounds = 600 },
	};
	pthread_t tid[3];
	unsigned int i;

	for (i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&tid[i], NULL, racer_main, &r[i]), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
	for (i = 0; i < 3; i++)
		ck_assert_msg(!r[i].bad, "thread %u: %u CSs failed, first rc %d", i, r[i].bad,
			      r[i].first_rc);
}
END_TEST

static Suite *latency_suite(void)
{
	Suite *s = suite_create("latency");
	TCase *tc = tcase_create("round trip");

	tcase_add_checked_fixture(tc, latency_setup, latency_teardown);
	tcase_set_timeout(tc, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, test_done_when_submit_returns);
	tcase_add_test(tc, test_interrupt_completes_undrained);
	tcase_add_test(tc, test_completion_order_kept);
	tcase_add_test(tc, test_concurrent_waiters);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(latency_suite());
}
