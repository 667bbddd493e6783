/* SPDX-License-Identifier: MIT */
/*
 * Sync manager: sync objects (set, add, 15-bit wrap, reserved bits) from
 * MMIO and MSG_SHORT; monitors (>= and ==, masks, several SOBs, arming
 * when already true, re-arming, payload to HBM, host and a fence that
 * unblocks a FENCE); payload chains and their depth limit; a cross-engine
 * chain external DMA -> HBM-DMA (internal) -> external DMA through SOBs,
 * monitors and fences.
 */
#include <string.h>

#include "gsim_test.h"

#define SOB	GAUDISIM_SYNC_FIRST_USER_SOB	/* 144: group 18 */
#define MON	GAUDISIM_SYNC_FIRST_USER_MON	/* 72 */
#define HBM_P	(GAUDISIM_HBM_USER_BASE + 0x1000)

static uint32_t mon_status(unsigned int m)
{
	return rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(m)));
}

START_TEST(test_sob_mmio)
{
	ck_assert_uint_eq(sm_sob_rd(SOB), 0);
	ck_assert_uint_eq(sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_SET(0x1234)), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB), 0x1234);
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(0x10));
	ck_assert_uint_eq(sm_sob_rd(SOB), 0x1244);
	/* 15-bit counters wrap. */
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_SET(GAUDISIM_SYNC_SOB_MAX));
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(3));
	ck_assert_uint_eq(sm_sob_rd(SOB), 2);
	/* The trace-enable bit is ignored; bits [29:15] are refused. */
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_TE | 7);
	ck_assert_uint_eq(sm_sob_rd(SOB), 7);
	ck_assert_uint_eq(T->errors, 0);
	sm_sob_wr(SOB, 1u << 15);
	ck_assert_uint_eq(T->errors, 1);
	ck_assert_uint_eq(sm_sob_rd(SOB), 7);
	/* First and last SOB, neighbours untouched. */
	sm_sob_wr(0, 5);
	sm_sob_wr(GAUDISIM_SYNC_NUM_SOBS - 1, 6);
	ck_assert_uint_eq(sm_sob_rd(0), 5);
	ck_assert_uint_eq(sm_sob_rd(GAUDISIM_SYNC_NUM_SOBS - 1), 6);
	ck_assert_uint_eq(sm_sob_rd(1), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB + 1), 0);
	/* Holes of the block: logged, read 0. */
	wr(SYNC_REG(0x100), 1);
	ck_assert_uint_eq(rd(SYNC_REG(0x100)), 0);
	wr(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(0)), 1);
	ck_assert_uint_eq(T->errors, 3);
}
END_TEST

START_TEST(test_sob_msg_short)
{
	const unsigned int q = 2;
	struct cb cb = cb_new(128);
	uint32_t slot;

	q_setup(q, 2);
	q_msg_bases(q);
	cb_sob_set(&cb, SOB, 0x7ff0);
	cb_sob_add(&cb, SOB, 0x20);		/* wraps to 0x10 */
	cb_sob_add(&cb, SOB + 1, 1);
	cb_sob_add(&cb, SOB + 1, 1);
	/* Base 1 + offset: the last SOB. */
	cb_msg_short(&cb, 1, 4 * (GAUDISIM_SYNC_NUM_SOBS - 1), 42, 0);
	slot = job_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(sm_sob_rd(SOB), 0x10);
	ck_assert_uint_eq(sm_sob_rd(SOB + 1), 2);
	ck_assert_uint_eq(sm_sob_rd(GAUDISIM_SYNC_NUM_SOBS - 1), 42);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_monitor_modes)
{
	const uint64_t dst = HBM_P;

	/* >= 3 on one SOB: fires on the third add, once. */
	sm_mon_setup(MON, dst, 0xa1);
	ck_assert_uint_eq(sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 3)), 0);
	ck_assert_uint_eq(mon_status(MON), GAUDISIM_SYNC_MON_STATUS_ARMED);
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(1));
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(1));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0);
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(1));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0xa1);
	ck_assert_uint_eq(mon_status(MON), GAUDISIM_SYNC_MON_STATUS_FIRED);
	memset(hbm_ptr(dst), 0, 4);
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(1));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0);	/* disarmed */

	/* == 6: 4 -> 7 skips it, 6 fires. */
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 1, 6));
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(3));
	ck_assert_uint_eq(sm_sob_rd(SOB), 7);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0);
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_SET(6));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0xa1);

	/* Arming when the condition already holds fires at once. */
	memset(hbm_ptr(dst), 0, 4);
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 5));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0xa1);
	ck_assert_uint_eq(mon_status(MON) & GAUDISIM_SYNC_MON_STATUS_ARMED, 0);
	/* Readback of the payload and arm registers. */
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_PAY_ADDRL(MON))), (uint32_t)dst);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_PAY_DATA(MON))), 0xa1);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_ARM(MON))),
			  GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 5));
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_monitor_masks)
{
	const unsigned int group = SOB / GAUDISIM_SYNC_SOBS_PER_GROUP;
	const unsigned int base = group * GAUDISIM_SYNC_SOBS_PER_GROUP;
	const uint64_t dst = HBM_P;

	/* Watch SOBs 1, 3 and 6 of the group (mask bit 0 = watched): all must be >= 2. */
	sm_mon_setup(MON + 1, dst, 0xb2);
	sm_mon_arm(MON + 1, GAUDISIM_SYNC_MON_ARM_VALUE(group, ~(0x2u | 0x8u | 0x40u), 0, 2));
	sm_sob_wr(base + 1, 2);
	sm_sob_wr(base + 3, 5);
	/* Unwatched SOBs of the group do not matter. */
	sm_sob_wr(base + 0, 9);
	sm_sob_wr(base + 7, 9);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0);
	/* A SOB of another group does not matter either. */
	sm_sob_wr(base + 8 + 6, 9);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0);
	sm_sob_wr(base + 6, 2);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0xb2);

	/* == with several SOBs: every watched one must equal the value. */
	memset(hbm_ptr(dst), 0, 4);
	sm_mon_arm(MON + 1, GAUDISIM_SYNC_MON_ARM_VALUE(group, ~0x3u, 1, 2));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0);	/* SOB base+0 is 9 */
	sm_sob_wr(base + 0, 2);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(dst)), 0xb2);

	/* A mask that watches nothing is refused. */
	ck_assert_uint_eq(T->errors, 0);
	sm_mon_arm(MON + 2, GAUDISIM_SYNC_MON_ARM_VALUE(group, 0xff, 0, 0));
	ck_assert_uint_eq(T->errors, 1);
	ck_assert_uint_eq(mon_status(MON + 2), 0);
}
END_TEST

START_TEST(test_monitor_rearm_and_targets)
{
	const uint64_t host = host_dev(T_DATA_OFF);

	/* Two monitors on the same SOB, payloads to host memory and SRAM. */
	sm_mon_setup(MON, host, 0x11);
	sm_mon_setup(MON + 1, GAUDISIM_SRAM_BASE + 0x40, 0x22);
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	sm_mon_arm(MON + 1, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 2));
	/* Re-arming replaces the previous arm (value 1 -> 4). */
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 4));
	sm_sob_wr(SOB, 2);
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0);
	ck_assert_uint_eq(mon_status(MON + 1), GAUDISIM_SYNC_MON_STATUS_FIRED);
	sm_sob_wr(SOB, 4);
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x11);
	ck_assert_uint_eq(T->errors, 0);

	/* A payload that cannot be written: ERR in the status, logged. */
	sm_mon_setup(MON + 2, T_HBM_SIZE + 0x1000, 1);
	sm_mon_arm(MON + 2, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	ck_assert_uint_eq(mon_status(MON + 2),
			  GAUDISIM_SYNC_MON_STATUS_FIRED | GAUDISIM_SYNC_MON_STATUS_ERR);
	ck_assert_uint_eq(T->errors, 1);
	/* ...and one into a protected register. */
	sm_mon_setup(MON + 3, GAUDISIM_CFG_BASE + GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
	sm_mon_arm(MON + 3, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	ck_assert_uint_eq(mon_status(MON + 3) & GAUDISIM_SYNC_MON_STATUS_ERR,
			  GAUDISIM_SYNC_MON_STATUS_ERR);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DEV_STATUS), GAUDISIM_DEV_STATUS_READY);
	/* A good payload clears ERR. */
	sm_mon_setup(MON + 2, HBM_P, 1);
	sm_mon_arm(MON + 2, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	ck_assert_uint_eq(mon_status(MON + 2), GAUDISIM_SYNC_MON_STATUS_FIRED);
}
END_TEST

START_TEST(test_monitor_unblocks_fence)
{
	const unsigned int q = 5;
	struct cb cb = cb_new(128);
	uint32_t slot;
	unsigned int kick;

	q_setup(q, 2);
	cb_fence(&cb, 2, 1, 1);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 0x5eed, 0);
	slot = job_submit(q, &cb);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(qrd_sts(q) & GAUDISIM_CP_STS_FENCE_WAIT, GAUDISIM_CP_STS_FENCE_WAIT);

	/* Monitor: SOB >= 1 -> write 1 to queue 5's CP_FENCE2_RDATA. */
	sm_mon_setup(MON, FENCE_ADDR(q, 2), 1);
	ck_assert_uint_eq(sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1)), 0);
	ck_assert_uint_eq(qrd_fence(q, 2), 0);
	/* The SOB update fires the monitor; the fence increment asks for a run. */
	kick = sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(1));
	ck_assert_uint_eq(kick, GSIM_KICK_RUN);
	ck_assert_uint_eq(qrd_fence(q, 2), 1);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x5eed);
	ck_assert_uint_eq(qrd_fence(q, 2), 0);
}
END_TEST

START_TEST(test_wait_cs_like_the_driver)
{
	/* Gaudi's WAIT CS: the waiting queue programs and arms a monitor itself. */
	struct cb wait = cb_new(256), sig = cb_new(64);
	const unsigned int qw = 1, qs = 6;
	uint32_t wslot, sslot;

	q_setup(qw, 2);
	q_setup(qs, 2);
	q_msg_bases(qw);
	q_msg_bases(qs);
	cb_mon_payload(&wait, MON, FENCE_ADDR(qw, 2), 1);
	cb_mon_arm(&wait, MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	cb_fence(&wait, 2, 1, 1);
	cb_msg(&wait, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 0x77, 0);
	wslot = job_submit(qw, &wait);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(cq_entry(qw, wslot), 0);
	ck_assert_uint_eq(mon_status(MON), GAUDISIM_SYNC_MON_STATUS_ARMED);

	/* SIGNAL CS on another queue: one MSG_SHORT adding 1 to the SOB. */
	cb_sob_add(&sig, SOB, 1);
	sslot = job_submit(qs, &sig);
	run_all();
	ck_assert_uint_eq(cq_entry(qs, sslot), cq_ok(sslot));
	ck_assert_uint_eq(cq_entry(qw, wslot), cq_ok(wslot));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x77);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_monitor_chain_and_depth_limit)
{
	unsigned int i;

	/* A relay: SOB k >= 1 -> monitor k adds 1 to SOB k+1, eight hops. */
	for (i = 0; i < 8; i++) {
		sm_mon_setup(MON + i, SYNC_ADDR(GAUDISIM_SYNC_SOB_OBJ(SOB + 8 * (i + 1))),
			     GAUDISIM_SYNC_SOB_ADD(1));
		sm_mon_arm(MON + i, GAUDISIM_SYNC_MON_ARM_SOB(SOB + 8 * i, 0, 1));
	}
	sm_sob_wr(SOB, 1);
	for (i = 1; i <= 8; i++)
		ck_assert_uint_eq(sm_sob_rd(SOB + 8 * i), 1);
	ck_assert_uint_eq(T->errors, 0);

	/* A monitor that re-arms itself forever stops at the depth limit. */
	sm_mon_setup(MON + 20, SYNC_ADDR(GAUDISIM_SYNC_MON_ARM(MON + 20)),
		     GAUDISIM_SYNC_MON_ARM_SOB(SOB + 200, 0, 0));
	sm_mon_arm(MON + 20, GAUDISIM_SYNC_MON_ARM_SOB(SOB + 200, 0, 0));
	ck_assert_uint_eq(T->errors, 1);
	ck_assert_uint_eq(mon_status(MON + 20) & GAUDISIM_SYNC_MON_STATUS_ERR,
			  GAUDISIM_SYNC_MON_STATUS_ERR);
	ck_assert_uint_eq(mon_status(MON + 20) & GAUDISIM_SYNC_MON_STATUS_ARMED, 0);
	/* The device still works. */
	sm_sob_wr(SOB, 0);
	ck_assert_uint_eq(sm_sob_rd(SOB), 0);
}
END_TEST

/*
 * The chain: external queue 0 copies host data to HBM A and signals SOB;
 * HBM-DMA queue 9 (CB in HBM) waits on a monitor of SOB, copies A -> B
 * and signals SOB+1 with its completion message (LIN_DMA wr_comp); external
 * queue 4 waits on a monitor of SOB+1 and copies B back to the host.
 */
START_TEST(test_cross_engine_chain)
{
	const unsigned int qa = 0, qi = GAUDISIM_QUEUE_ID_DMA_2_0, qb = 4;
	const uint64_t hbm_a = GAUDISIM_HBM_USER_BASE + 0x100000;
	const uint64_t hbm_b = GAUDISIM_HBM_USER_BASE + 0x200000;
	const uint32_t size = 64 * 1024;
	struct cb a = cb_new(128), in = cb_new(256), b = cb_new(128);
	uint32_t i, aslot, bslot;
	uint8_t *src = host_ptr(T_DATA_OFF), *out = host_ptr(T_DATA_OFF + 0x100000);

	for (i = 0; i < size; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	q_setup(qa, 2);
	q_setup(qb, 2);
	q_msg_bases(qa);
	q_msg_bases(qb);
	iq_setup(qi, 2);

	/* Monitors the driver (or runtime) armed beforehand. */
	sm_mon_setup(MON, FENCE_ADDR(qi, 0), 1);
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	sm_mon_setup(MON + 1, FENCE_ADDR(qb, 1), 1);
	sm_mon_arm(MON + 1, GAUDISIM_SYNC_MON_ARM_SOB(SOB + 1, 0, 1));

	/* Downstream work first: both park on their fences. */
	cb_fence(&b, 1, 1, 1);
	cb_lin_dma(&b, hbm_b, host_dev(T_DATA_OFF + 0x100000), size, 0);
	bslot = job_submit(qb, &b);
	cb_wreg32(&in, GAUDISIM_ENG_WR_COMP_ADDR_LO,
		  (uint32_t)SYNC_ADDR(GAUDISIM_SYNC_SOB_OBJ(SOB + 1)));
	cb_wreg32(&in, GAUDISIM_ENG_WR_COMP_ADDR_HI,
		  (uint32_t)(SYNC_ADDR(GAUDISIM_SYNC_SOB_OBJ(SOB + 1)) >> 32));
	cb_wreg32(&in, GAUDISIM_ENG_WR_COMP_WDATA, GAUDISIM_SYNC_SOB_ADD(1));
	cb_fence(&in, 0, 1, 1);
	cb_lin_dma(&in, hbm_a, hbm_b, size, GAUDISIM_LIN_DMA_CTL_WR_COMP_EN);
	iq_submit(qi, &in);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(cq_entry(qb, bslot), 0);
	ck_assert_uint_eq(qrd_sts(qb) & GAUDISIM_CP_STS_FENCE_WAIT, GAUDISIM_CP_STS_FENCE_WAIT);
	ck_assert_uint_eq(rd(QQ_REG(qi, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_FENCE_WAIT,
			  GAUDISIM_CP_STS_FENCE_WAIT);

	/* The first link starts the chain. */
	cb_lin_dma(&a, host_dev(T_DATA_OFF), hbm_a, size, 0);
	cb_sob_add(&a, SOB, 1);
	aslot = job_submit(qa, &a);
	run_all();

	ck_assert_uint_eq(cq_entry(qa, aslot), cq_ok(aslot));
	ck_assert_uint_eq(cq_entry(qb, bslot), cq_ok(bslot));
	ck_assert_int_eq(memcmp(src, out, size), 0);
	ck_assert_uint_eq(rd(QQ_REG(qi, GAUDISIM_QM_PQ_CI)), 1);
	ck_assert_uint_eq(rd(QQ_REG(qi, GAUDISIM_QM_CP_STS)), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB), 1);
	ck_assert_uint_eq(sm_sob_rd(SOB + 1), 1);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 3 * size);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

Suite *sync_suite(void)
{
	Suite *s = suite_create("sync");
	TCase *tc = tcase_create("sync");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_sob_mmio);
	tcase_add_test(tc, test_sob_msg_short);
	tcase_add_test(tc, test_monitor_modes);
	tcase_add_test(tc, test_monitor_masks);
	tcase_add_test(tc, test_monitor_rearm_and_targets);
	tcase_add_test(tc, test_monitor_unblocks_fence);
	tcase_add_test(tc, test_wait_cs_like_the_driver);
	tcase_add_test(tc, test_monitor_chain_and_depth_limit);
	tcase_add_test(tc, test_cross_engine_chain);
	suite_add_tcase(s, tc);
	return s;
}
