/* SPDX-License-Identifier: MIT */
/*
 * MSG_LONG/MSG_PROT targets and the timestamp op, the completion tail,
 * FENCE blocking and resuming (MMIO, MSG_LONG to the CFG address, WREG_32),
 * WREG_32, NOP and ARB_POINT.
 */
#include <string.h>

#include "gsim_test.h"

#define HBM_X		(GAUDISIM_HBM_USER_BASE + 0x40)

START_TEST(test_msg_targets)
{
	const unsigned int q = 1;
	struct cb cb = cb_new(256);
	uint32_t slot;

	q_setup(q, 2);
	T->clock_ns = 0x1122334455667788ull;
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 0xcafef00d, 0);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_X, 0x01020304, 0);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, GAUDISIM_SRAM_BASE + 0x100, 0xa5a5a5a5, 0);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF + 8), 0,
	       GAUDISIM_MSG_OP_WRITE_TIMESTAMP);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_X + 8, 0, GAUDISIM_MSG_OP_WRITE_TIMESTAMP);
	/* Read the SRAM word back through a DMA to the host. */
	cb_lin_dma(&cb, GAUDISIM_SRAM_BASE + 0x100, host_dev(T_DATA_OFF + 16), 4, 0);
	slot = job_submit(q, &cb);
	run_all();

	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0xcafef00d);
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 4), 0);	/* exactly 4 bytes */
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_X)), 0x01020304);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_X + 4)), 0);
	ck_assert_uint_eq(host_rd64(T_DATA_OFF + 8), 0x1122334455667788ull);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_X + 8)), 0x55667788);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_X + 12)), 0x11223344);
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 16), 0xa5a5a5a5);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_completion_tail)
{
	const unsigned int q = 5;
	unsigned int i;

	q_setup(q, 4);
	/* Shadow indices follow the CQ slot; each job raises vector q only. */
	for (i = 0; i < 20; i++) {
		struct cb cb = cb_new(64);
		uint32_t slot;

		cb_nop(&cb);
		slot = job_submit(q, &cb);
		ck_assert_uint_eq(cq_entry(q, slot), 0);
		run_all();
		ck_assert_uint_eq(cq_entry(q, slot), GAUDISIM_CQ_ENTRY_READY |
				  GAUDISIM_CQ_ENTRY_SHADOW_VALID | i);
		ck_assert_uint_eq(T->msix[q], i + 1);
		ck_assert_uint_eq(T->msix_total, i + 1);
	}
}
END_TEST

START_TEST(test_msix_from_body)
{
	struct cb cb = cb_new(64);

	q_setup(0, 1);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ,
	       GAUDISIM_MSIX_VEC_EQ, 0);
	job_submit(0, &cb);
	run_all();
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 1);
	ck_assert_uint_eq(T->msix[0], 1);
}
END_TEST

START_TEST(test_fence_mmio)
{
	const unsigned int q = 2;
	uint32_t rdata = QM_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, 1);
	struct cb cb = cb_new(128);
	uint32_t slot;

	q_setup(q, 2);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 1, 0);
	cb_fence(&cb, 1, 2, 2);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF + 4), 2, 0);
	slot = job_submit(q, &cb);

	ck_assert(!gsim_core_run(T->core));
	/* Parked mid-CB: the packet before the fence ran, the one after did not. */
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 1);
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 4), 0);
	ck_assert_uint_eq(qrd_sts(q), GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT);
	ck_assert_uint_eq(qrd_ci(q), 0);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_GLBL_STS0), 1u << 2);
	ck_assert_uint_eq(cq_entry(q, slot), 0);

	/* Not enough yet: no kick, still parked, the other fences do not count. */
	ck_assert_uint_eq(wr(rdata, 1), 0);
	ck_assert_uint_eq(wr(QM_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, 0), 5), 0);
	ck_assert_uint_eq(wr(QM_FENCE_REG(q ^ 1, GAUDISIM_QM_CP_FENCE_RDATA, 1), 5), 0);
	ck_assert_uint_eq(qrd_fence(q, 1), 1);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 4), 0);

	ck_assert_uint_eq(wr(rdata, 1), GSIM_KICK_RUN);
	ck_assert_uint_eq(qrd_sts(q), GAUDISIM_CP_STS_BUSY);
	run_all();
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 4), 2);
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(qrd_fence(q, 1), 0);	/* 2 - dec 2 */
	ck_assert_uint_eq(qrd_fence(q, 0), 5);
	ck_assert_uint_eq(qrd_sts(q), 0);
	ck_assert_uint_eq(qrd_ci(q), 1);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_fence_via_msg_long)
{
	struct cb waiter = cb_new(64), signaller = cb_new(64);
	uint32_t wslot, sslot;

	q_setup(0, 2);
	q_setup(4, 2);
	cb_fence(&waiter, 3, 1, 1);
	wslot = job_submit(0, &waiter);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(qrd_sts(0), GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT);

	/* Queue 4 (the other QMAN) signals queue 0's fence 3 through the CFG space. */
	cb_msg(&signaller, GAUDISIM_PKT_MSG_LONG,
	       GAUDISIM_CFG_BASE + QM_FENCE_REG(0, GAUDISIM_QM_CP_FENCE_RDATA, 3), 1, 0);
	sslot = job_submit(4, &signaller);
	run_all();
	ck_assert_uint_eq(cq_entry(4, sslot), cq_ok(sslot));
	ck_assert_uint_eq(cq_entry(0, wslot), cq_ok(wslot));
	ck_assert_uint_eq(qrd_fence(0, 3), 0);
	ck_assert_uint_eq(T->msix[0], 1);
	ck_assert_uint_eq(T->msix[4], 1);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_fence_same_stream_wreg)
{
	const unsigned int q = 1;
	struct cb cb = cb_new(128);
	uint32_t slot;

	q_setup(q, 2);
	/* WREG_32 to this stream's CP_FENCE0_RDATA inside its own engine block. */
	cb_wreg32(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_CP_FENCE_RDATA(0, q), 5);
	cb_fence(&cb, 0, 5, 1);
	/* An oversized decrement stops at zero. */
	cb_wreg32(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_CP_FENCE_RDATA(2, q), 3);
	cb_fence(&cb, 2, 0, 15);
	slot = job_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(qrd_fence(q, 0), 4);
	ck_assert_uint_eq(qrd_fence(q, 2), 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_fence_counter_saturates)
{
	const unsigned int q = 3;
	uint32_t rdata = QM_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, 0);

	wr(rdata, 0xfffffff0u);
	wr(rdata, 0x100);
	ck_assert_uint_eq(qrd_fence(q, 0), 0xffffffffu);
	ck_assert_uint_eq(rd(rdata), 0);	/* write-only */
}
END_TEST

START_TEST(test_nop_arb_point)
{
	struct cb cb = cb_new(64);
	uint32_t slot;

	q_setup(7, 1);
	cb_raw(&cb, 0x12345678, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) | 0xffff);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT) | GAUDISIM_PKT_CTL_MB | 3);
	slot = job_submit(7, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(7, slot), cq_ok(slot));
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

Suite *packet_suite(void)
{
	Suite *s = suite_create("packets");
	TCase *tc = tcase_create("packets");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_msg_targets);
	tcase_add_test(tc, test_completion_tail);
	tcase_add_test(tc, test_msix_from_body);
	tcase_add_test(tc, test_fence_mmio);
	tcase_add_test(tc, test_fence_via_msg_long);
	tcase_add_test(tc, test_fence_same_stream_wreg);
	tcase_add_test(tc, test_fence_counter_saturates);
	tcase_add_test(tc, test_nop_arb_point);
	suite_add_tcase(s, tc);
	return s;
}
