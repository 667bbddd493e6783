/* SPDX-License-Identifier: MIT */
/*
 * PQ and BD processing: PI/CI counting modulo 2N over many wraps, full
 * rings, all eight external queues, stream enables, bounded work per run
 * call (also with a caller's budget) and round-robin between streams.
 */
#include <string.h>

#include "gsim_test.h"

static uint32_t nop_job(unsigned int q, unsigned int nops)
{
	struct cb cb = cb_new(nops * 8 + GAUDISIM_CB_COMPLETION_TAIL_SIZE);
	unsigned int i;

	for (i = 0; i < nops; i++)
		cb_nop(&cb);
	return job_submit(q, &cb);
}

START_TEST(test_single_jobs_wrap)
{
	const unsigned int q = 2, n = 4;
	unsigned int i;

	q_setup(q, 2);
	for (i = 0; i < 10 * n; i++) {
		uint32_t slot = nop_job(q, 1 + i % 3);

		ck_assert_uint_eq(qrd_pi(q), (i + 1) % (2 * n));
		ck_assert_uint_eq(qrd_ci(q), i % (2 * n));
		run_all();
		ck_assert_uint_eq(qrd_ci(q), (i + 1) % (2 * n));
		ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
		ck_assert_uint_eq(T->msix[q], i + 1);
	}
	ck_assert_uint_eq(T->msix_total, 10 * n);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), 10 * n);
	ck_assert_uint_eq(qrd_sts(q), 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_full_ring_batches)
{
	const unsigned int q = 6, log2 = 8, n = 1u << log2;
	unsigned int round, i;

	q_setup(q, log2);
	for (round = 0; round < 5; round++) {
		uint32_t first = T->cq_pi[q] % T_CQ_ENTRIES;

		cb_arena_reset();
		for (i = 0; i < n; i++)
			nop_job(q, 1);
		/* PI - CI == N: full, not empty. */
		ck_assert_uint_eq(qrd_pi(q), ((round + 1) * n) % (2 * n));
		ck_assert_uint_eq(qrd_ci(q), (round * n) % (2 * n));
		ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(1) + GAUDISIM_QM_GLBL_STS0), 1u << 2);
		run_all();
		ck_assert_uint_eq(qrd_ci(q), qrd_pi(q));
		for (i = 0; i < n; i++) {
			uint32_t slot = (first + i) % T_CQ_ENTRIES;

			ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
		}
	}
	ck_assert_uint_eq(T->msix[q], 5 * n);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), 5 * n);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(1) + GAUDISIM_QM_GLBL_STS0), 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_all_queues)
{
	uint32_t slot[GAUDISIM_NUM_EXT_QUEUES];
	unsigned int q, round;

	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		q_setup(q, 3);
	for (round = 0; round < 3; round++) {
		for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
			slot[q] = nop_job(q, q + 1);
		run_all();
		for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++) {
			ck_assert_uint_eq(cq_entry(q, slot[q]), cq_ok(slot[q]));
			ck_assert_uint_eq(T->msix[q], round + 1);
			ck_assert_uint_eq(qrd_ci(q), round + 1);
		}
	}
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_disabled_stream_waits)
{
	const unsigned int q = 1;
	uint32_t cfg0 = GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_GLBL_CFG0;
	struct cb cb = cb_new(64);
	uint32_t slot;

	q_setup(q, 2);
	ck_assert_uint_eq(wr(cfg0, 0), 0);
	cb_nop(&cb);
	slot = T->cq_pi[q];
	/* job_submit() insists on a kick; submit by hand on a disabled stream. */
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, host_dev(T_CQ_OFF(q) + 4 * slot), cq_ok(slot), 0);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, q, 0);
	ck_assert_uint_eq(q_submit_bd(q, slot | GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len,
				      cb_dev(&cb)), 0);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(qrd_ci(q), 0);
	ck_assert_uint_eq(T->msix_total, 0);

	ck_assert_uint_eq(wr(cfg0, 1u << q), GSIM_KICK_RUN);
	run_all();
	ck_assert_uint_eq(qrd_ci(q), 1);
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(T->msix[q], 1);
}
END_TEST

START_TEST(test_bd_without_tail)
{
	const unsigned int q = 3;
	struct cb cb = cb_new(64);

	q_setup(q, 1);
	cb_nop(&cb);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 0xabcd1234, 0);
	ck_assert_uint_eq(q_submit_bd(q, 0, cb.len, cb_dev(&cb)), GSIM_KICK_RUN);
	run_all();
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0xabcd1234);
	ck_assert_uint_eq(qrd_ci(q), 1);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), 1);
	ck_assert_uint_eq(T->msix_total, 0);
	/* The tail flag on a CB shorter than a tail: the whole CB is body. */
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF + 4), 0x55, 0);
	ck_assert_uint_eq(q_submit_bd(q, GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len, cb_dev(&cb)),
			  GSIM_KICK_RUN);
	run_all();
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 4), 0x55);
	ck_assert_uint_eq(qrd_ci(q), 2);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_cb_in_hbm)
{
	const unsigned int q = 0;
	struct cb cb = cb_new(128);
	uint64_t hbm_cb = GAUDISIM_HBM_USER_BASE + 0x1000;
	uint32_t slot;

	q_setup(q, 2);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 0x600d, 0);
	slot = T->cq_pi[q];
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, host_dev(T_CQ_OFF(q) + 4 * slot), cq_ok(slot), 0);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, q, 0);
	memcpy(hbm_ptr(hbm_cb), cb.p, cb.len);
	memset(cb.p, 0, cb.len);	/* prove the host copy is not what runs */
	q_submit_bd(q, slot | GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len, hbm_cb);
	run_all();
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x600d);
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_run_is_bounded)
{
	const unsigned int q = 4, nops = 20000;
	uint32_t slot;
	unsigned int calls = 0;

	q_setup(q, 2);
	slot = nop_job(q, nops);
	/* 20000 packets do not fit in one run call's budget. */
	while (gsim_core_run(T->core)) {
		calls++;
		ck_assert_uint_lt(calls, 100);
		if (calls == 1)
			ck_assert_uint_eq(cq_entry(q, slot), 0);
	}
	ck_assert_uint_ge(calls, 4);
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
}
END_TEST

/* gsim_core_run_budget(): what a host runs inline where it was kicked. */
START_TEST(test_run_budget)
{
	const unsigned int q = 3;
	struct cb fill = cb_new(64);
	unsigned int calls = 0;
	uint32_t slot;

	q_setup(q, 2);
	/* A one-NOP job fits the QEMU glue's inline budget: done in one call. */
	slot = nop_job(q, 1);
	ck_assert(!gsim_core_run_budget(T->core, 256u << 10, 64, 0));
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(T->msix[q], 1);

	/* Two units per call: fetch, NOP, tail entry, 2 MSG_PROTs, end of CB. */
	slot = nop_job(q, 1);
	while (gsim_core_run_budget(T->core, 256u << 10, 2, 0)) {
		calls++;
		ck_assert_uint_lt(calls, 10);
		if (calls == 1)
			ck_assert_uint_eq(cq_entry(q, slot), 0);
	}
	ck_assert_uint_eq(calls, 2);
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(T->msix[q], 2);

	/* An empty budget still makes progress: one unit per call. */
	slot = nop_job(q, 1);
	calls = 0;
	while (gsim_core_run_budget(T->core, 0, 0, 0)) {
		calls++;
		ck_assert_uint_lt(calls, 10);
	}
	ck_assert_uint_eq(calls, 5);
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));

	/* The byte budget splits a 1 MiB memset into 64 KiB pieces. */
	cb_memset(&fill, GAUDISIM_HBM_USER_BASE, 0x5a, 1u << 20);
	slot = job_submit(q, &fill);
	calls = 0;
	while (gsim_core_run_budget(T->core, 64u << 10, 64, 0)) {
		calls++;
		ck_assert_uint_lt(calls, 100);
	}
	ck_assert_uint_ge(calls, 15);
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(hbm_ptr(GAUDISIM_HBM_USER_BASE + (1u << 20) - 1)[0], 0x5a);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_round_robin)
{
	uint32_t big, small;

	q_setup(0, 2);
	q_setup(7, 2);
	big = nop_job(0, 200000);
	small = nop_job(7, 4);
	/* The long CB on queue 0 does not starve queue 7. */
	ck_assert(gsim_core_run(T->core));
	ck_assert_uint_eq(cq_entry(7, small), cq_ok(small));
	ck_assert_uint_eq(cq_entry(0, big), 0);
	run_all();
	ck_assert_uint_eq(cq_entry(0, big), cq_ok(big));
}
END_TEST

START_TEST(test_round_robin_across_calls)
{
	struct cb big = cb_new(64), small = cb_new(64);
	uint32_t bslot, sslot;

	q_setup(0, 2);
	q_setup(1, 2);
	/* Queue 0 uses up a whole call's byte budget with one memset... */
	cb_memset(&big, GAUDISIM_HBM_USER_BASE, 0x42, 192u << 20);
	bslot = job_submit(0, &big);
	cb_nop(&small);
	sslot = job_submit(1, &small);
	ck_assert(gsim_core_run(T->core));
	ck_assert_uint_eq(cq_entry(1, sslot), 0);
	/* ...so the next call starts with queue 1, not with queue 0 again. */
	ck_assert(gsim_core_run(T->core));
	ck_assert_uint_eq(cq_entry(1, sslot), cq_ok(sslot));
	ck_assert_uint_eq(cq_entry(0, bslot), 0);
	run_all();
	ck_assert_uint_eq(cq_entry(0, bslot), cq_ok(bslot));
	ck_assert_uint_eq(hbm_ptr(GAUDISIM_HBM_USER_BASE + (192u << 20) - 1)[0], 0x42);
}
END_TEST

START_TEST(test_pq_reprogram)
{
	const unsigned int q = 2;
	uint32_t slot;
	unsigned int i;

	q_setup(q, 2);
	for (i = 0; i < 3; i++)
		nop_job(q, 1);
	run_all();
	ck_assert_uint_eq(qrd_ci(q), 3);
	/* A new ring (idle stream) starts empty at entry 0. */
	ck_assert_uint_eq(wr(QM_REG(q, GAUDISIM_QM_PQ_SIZE), 3), 0);
	ck_assert_uint_eq(qrd_pi(q), 0);
	ck_assert_uint_eq(qrd_ci(q), 0);
	T->pi[q] = 0;
	T->pq_log2[q] = 3;
	memset(host_ptr(T_PQ_OFF(q)), 0, 4 * GAUDISIM_BD_SIZE);
	slot = nop_job(q, 2);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(qrd_ci(q), 1);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

Suite *queue_suite(void)
{
	Suite *s = suite_create("queues");
	TCase *tc = tcase_create("queues");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_single_jobs_wrap);
	tcase_add_test(tc, test_full_ring_batches);
	tcase_add_test(tc, test_all_queues);
	tcase_add_test(tc, test_disabled_stream_waits);
	tcase_add_test(tc, test_bd_without_tail);
	tcase_add_test(tc, test_cb_in_hbm);
	tcase_add_test(tc, test_run_is_bounded);
	tcase_add_test(tc, test_run_budget);
	tcase_add_test(tc, test_round_robin);
	tcase_add_test(tc, test_pq_reprogram);
	tcase_add_test(tc, test_round_robin_across_calls);
	suite_add_tcase(s, tc);
	return s;
}
