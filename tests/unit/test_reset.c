/* SPDX-License-Identifier: MIT */
/*
 * Hard reset with work in flight: a job parked on a FENCE and a job half-way
 * through a large DMA are dropped without completion or interrupt, every
 * register returns to its reset value, HBM keeps its contents and the next
 * job works.
 */
#include <string.h>

#include "gsim_test.h"

static void check_all_reset(void)
{
	unsigned int q, f;

	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++) {
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_BASE_LO)), 0);
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_BASE_HI)), 0);
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_SIZE)), 0);
		ck_assert_uint_eq(qrd_pi(q), 0);
		ck_assert_uint_eq(qrd_ci(q), 0);
		ck_assert_uint_eq(qrd_sts(q), 0);
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_CP_ERR_CNT)), 0);
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_CP_ERR_ADDR_LO)), 0);
		for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++)
			ck_assert_uint_eq(qrd_fence(q, f), 0);
	}
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_GLBL_CFG0), 0);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(1) + GAUDISIM_QM_GLBL_CFG0), 0);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_GLBL_STS0), 0);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(1) + GAUDISIM_QM_GLBL_STS0), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_DMA_CNT), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PQ_CNT), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HW_STATE), GAUDISIM_HW_STATE_CLEAN);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_WINDOW_LO), 0);
	ck_assert_uint_eq(gsim_core_hbm_window(T->core), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DEV_STATUS), GAUDISIM_DEV_STATUS_READY);
}

START_TEST(test_reset_with_jobs_in_flight)
{
	struct cb parked = cb_new(64), busy = cb_new(128), bad = cb_new(64), next;
	uint32_t pslot, bslot, nslot;
	unsigned int kick;

	q_setup(0, 2);
	q_setup(5, 2);
	wr(GAUDISIM_REG_HW_STATE, GAUDISIM_HW_STATE_DIRTY);
	wr(QM_FENCE_REG(3, GAUDISIM_QM_CP_FENCE_RDATA, 0), 7);
	wr(QM_FENCE_REG(0, GAUDISIM_QM_CP_FENCE_RDATA, 2), 3);
	wr(QM_FENCE_REG(6, GAUDISIM_QM_CP_FENCE_RDATA, 3), 1);
	wr(GAUDISIM_REG_HBM_WINDOW_LO, (uint32_t)T_BAR_SIZE);
	wr(GAUDISIM_REG_HBM_WINDOW_HI, 0);
	memset(hbm_ptr(GAUDISIM_HBM_USER_BASE), 0x3c, 4096);

	/* Leave an error behind so the counters are not zero. */
	cb_raw(&bad, 0, GAUDISIM_PKT_CTL(0x1f));
	job_submit(0, &bad);
	run_all();
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 1);

	/* Queue 0 parks on a fence; queue 5 is in the middle of 128 MiB. */
	cb_fence(&parked, 0, 1, 1);
	pslot = job_submit(0, &parked);
	ck_assert(!gsim_core_run(T->core));
	cb_lin_dma(&busy, GAUDISIM_HBM_USER_BASE, GAUDISIM_HBM_USER_BASE + (256u << 20),
		   128u << 20, 0);
	bslot = job_submit(5, &busy);
	ck_assert(gsim_core_run(T->core));
	ck_assert_uint_eq(qrd_sts(0), GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT |
			  GAUDISIM_CP_ERR_UNDEF_OPCODE << GAUDISIM_CP_STS_ERR_SHIFT);
	ck_assert_uint_eq(qrd_sts(5), GAUDISIM_CP_STS_BUSY);
	ck_assert_uint_eq(T->msix_total, 1);

	kick = wr(GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
	ck_assert_uint_eq(kick, GSIM_KICK_RESET);
	/* Between the request and the reset itself, nothing runs. */
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(rd(GAUDISIM_REG_DEV_STATUS), GAUDISIM_DEV_STATUS_IN_RESET);
	gsim_core_reset(T->core);

	check_all_reset();
	/* A late fence increment does not bring the dropped job back. */
	ck_assert_uint_eq(wr(QM_FENCE_REG(0, GAUDISIM_QM_CP_FENCE_RDATA, 0), 1), 0);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(cq_entry(0, pslot), 0);
	ck_assert_uint_eq(cq_entry(5, bslot), 0);
	ck_assert_uint_eq(T->msix_total, 1);
	/* HBM survives a reset. */
	ck_assert_uint_eq(hbm_ptr(GAUDISIM_HBM_USER_BASE)[4095], 0x3c);

	/* The driver programs the queue again and the next job runs. */
	memset(T->cq_pi, 0, sizeof(T->cq_pi));
	q_setup(0, 2);
	next = cb_new(64);
	cb_lin_dma(&next, GAUDISIM_HBM_USER_BASE, host_dev(T_DATA_OFF), 16, 0);
	nslot = job_submit(0, &next);
	run_all();
	ck_assert_uint_eq(cq_entry(0, nslot), cq_ok(nslot));
	ck_assert_uint_eq(host_ptr(T_DATA_OFF)[15], 0x3c);
	ck_assert_uint_eq(qrd_ci(0), 1);
	ck_assert_uint_eq(T->msix[0], 2);
	ck_assert_uint_eq(T->msix[5], 0);
}
END_TEST

START_TEST(test_reset_without_request)
{
	struct cb cb = cb_new(64);
	uint32_t slot;

	/* The glue may reset on its own (system reset): same outcome. */
	q_setup(3, 1);
	cb_fence(&cb, 2, 9, 0);
	slot = job_submit(3, &cb);
	ck_assert(!gsim_core_run(T->core));
	gsim_core_reset(T->core);
	gsim_core_reset(T->core);
	check_all_reset();
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(cq_entry(3, slot), 0);
	ck_assert_uint_eq(T->msix_total, 0);
}
END_TEST

START_TEST(test_reset_then_stale_doorbell)
{
	/* A doorbell right after reset, before the ring is programmed, is refused. */
	gsim_core_reset(T->core);
	ck_assert_uint_eq(wr(QM_REG(2, GAUDISIM_QM_PQ_PI), 1), 0);
	ck_assert_uint_eq(T->errors, 1);
	ck_assert(!gsim_core_run(T->core));
}
END_TEST

Suite *reset_suite(void)
{
	Suite *s = suite_create("reset");
	TCase *tc = tcase_create("reset");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_reset_with_jobs_in_flight);
	tcase_add_test(tc, test_reset_without_request);
	tcase_add_test(tc, test_reset_then_stale_doorbell);
	suite_add_tcase(s, tc);
	return s;
}
