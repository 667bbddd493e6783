/* SPDX-License-Identifier: MIT */
/*
 * The payload rights table: a monitor armed by a CB writes its payload as
 * the context that armed it, and the device decides where the write
 * lands. Two contexts, A (ASID 1) and B (ASID 2), each with its SOBs,
 * monitors, queues and HBM; A arms monitors whose payloads aim at every
 * kind of target. Its own SOBs, fences and HBM are written; everything
 * else - monitor configuration (its own included), other QMAN registers,
 * engines (MME, TPC, NIC), the MMU, B's SOBs, fences, HBM and user
 * interrupts - is refused
 * with PRIV, leaves the target untouched and fails the triggering write.
 */
#include "gsim_test.h"
#include "hw/gaudisim_hw_gaudi_map.h"
#include "hw/gaudisim_hw_mme.h"
#include "hw/gaudisim_hw_mmu.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_tpc.h"

#define ASID_A		1
#define ASID_B		2
#define SOB_A		GAUDISIM_SYNC_FIRST_USER_SOB
#define SOB_B		(SOB_A + 272)
#define MON_A		212
#define MON_B		(MON_A + 42)
#define Q_A_INT		GAUDISIM_QUEUE_ID_DMA_2_0
#define Q_B_INT		(GAUDISIM_QUEUE_ID_DMA_2_0 + 1)
#define Q_A_EXT		2
#define HBM_A		(GAUDISIM_HBM_USER_BASE + (16ull << 20))
#define HBM_B		(GAUDISIM_HBM_USER_BASE + (32ull << 20))
#define CFG(off)	(GAUDISIM_CFG_BASE + (off))
#define ENG(e, off)	CFG(GAUDISIM_ENGINE_BLOCK(e) + (off))
/* The same fence at the address Gaudi gives it. */
#define GAUDI_FENCE(q, f)	CFG(gaudisim_gaudi_fence_rdata(q, f))

static void rights_for(struct th_rights *r, uint32_t sob, uint32_t mon, unsigned int qi,
		       unsigned int qe, uint64_t hbm)
{
	*r = (struct th_rights){
		.sob_first = sob, .sob_end = sob + 16,
		.mon_first = mon, .mon_end = mon + 8,
		.hbm_base = hbm, .hbm_size = 1u << 20,
		/* A's user interrupts are the first half, B's the second. */
		.user_intr = sob == SOB_A ? 0x0fu : 0xf0u,
	};
	r->queues[qi / 32] |= 1u << (qi % 32);
	r->queues[qe / 32] |= 1u << (qe % 32);
}

static void pr_setup(void)
{
	struct th_rights a, b;

	th_setup();
	th_eq_setup(6);
	th_revoke(T, T_ASID);
	rights_for(&a, SOB_A, MON_A, Q_A_INT, Q_A_EXT, HBM_A);
	rights_for(&b, SOB_B, MON_B, Q_B_INT, Q_A_EXT + 1, HBM_B);
	th_grant(T, ASID_A, &a);
	th_grant(T, ASID_B, &b);
	ck_assert_uint_eq(wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_QUEUE_ASID(Q_A_INT), ASID_A), 0);
	ck_assert_uint_eq(wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_QUEUE_ASID(Q_B_INT), ASID_B), 0);
	iq_setup(Q_A_INT, 3);
	iq_setup(Q_B_INT, 3);
	q_setup(Q_A_EXT, 3);
	q_msg_bases(Q_A_EXT);
}

static uint32_t iq_err(unsigned int q)
{
	return (rd(QQ_REG(q, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_ERR_MASK) >>
	       GAUDISIM_CP_STS_ERR_SHIFT;
}

static uint32_t fence_cnt(unsigned int q, unsigned int f)
{
	return rd(QQ_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_CNT, f));
}

/* A's CB on its internal queue arms MON_A with this payload and sets it off. */
static uint32_t a_payload(uint64_t addr, uint32_t data)
{
	struct cb cb = cb_new(256);

	cb_sob_set(&cb, SOB_A, 0);
	cb_mon_payload(&cb, MON_A, addr, data);
	cb_mon_arm(&cb, MON_A, GAUDISIM_SYNC_MON_ARM_SOB(SOB_A, 0, 1));
	cb_sob_set(&cb, SOB_A, 1);
	iq_submit(Q_A_INT, &cb);
	run_all();
	return iq_err(Q_A_INT);
}

/* Refused: PRIV for the CB, MON_STATUS.ERR, a SYNC_ERR naming A's queue and ASID. */
static void assert_refused(uint64_t addr, uint32_t data)
{
	unsigned int from = th_eq_count();
	struct gaudisim_eq_entry e;
	int i;

	ck_assert_uint_eq(a_payload(addr, data), GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON_A))) &
			  GAUDISIM_SYNC_MON_STATUS_ERR, GAUDISIM_SYNC_MON_STATUS_ERR);
	i = th_eq_find(from, GAUDISIM_EQ_EVENT_SYNC_ERR);
	ck_assert_int_ge(i, 0);
	e = th_eq_entry((unsigned int)i);
	ck_assert_uint_eq(e.queue, Q_A_INT);
	ck_assert_uint_eq(e.addr, addr);
	ck_assert_uint_eq(e.data[0], MON_A);
	ck_assert_uint_eq(e.data[1], ASID_A);
}

/* ---- refused ------------------------------------------------------------- */

START_TEST(test_refuses_own_monitor_addrh)
{
	uint64_t addr = SYNC_ADDR(GAUDISIM_SYNC_MON_PAY_ADDRH(MON_A));

	assert_refused(addr, 0);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_PAY_ADDRH(MON_A))),
			  (uint32_t)(addr >> 32));
}
END_TEST

START_TEST(test_refuses_other_monitor_arm)
{
	assert_refused(SYNC_ADDR(GAUDISIM_SYNC_MON_ARM(MON_B)),
		       GAUDISIM_SYNC_MON_ARM_SOB(SOB_B, 0, 0));
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON_B))), 0);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_ARM(MON_B))), 0);
}
END_TEST

START_TEST(test_refuses_msg_base)
{
	uint32_t reg = GAUDISIM_QM_BLOCK(gaudisim_queue_engine(Q_A_INT)) +
		       GAUDISIM_QM_CP_MSG_BASE_LO(0, gaudisim_queue_stream(Q_A_INT));
	uint32_t before = rd(reg);

	assert_refused(CFG(reg), 0x1000);
	ck_assert_uint_eq(rd(reg), before);
}
END_TEST

START_TEST(test_refuses_mme_commit)
{
	assert_refused(ENG(GAUDISIM_ENGINE_MME, GAUDISIM_MME_COMMIT), GAUDISIM_MME_COMMIT_GO);
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME) +
			     GAUDISIM_ENG_LAUNCH_CNT), 0);
}
END_TEST

START_TEST(test_refuses_mme_register)
{
	assert_refused(ENG(GAUDISIM_ENGINE_MME, GAUDISIM_MME_A_ADDR_LO), (uint32_t)HBM_B);
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME) +
			     GAUDISIM_MME_A_ADDR_LO), 0);
}
END_TEST

START_TEST(test_refuses_tpc_launch)
{
	assert_refused(ENG(GAUDISIM_ENGINE_TPC_0, GAUDISIM_TPC_COMMIT), GAUDISIM_TPC_COMMIT_GO);
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_TPC_0) +
			     GAUDISIM_ENG_LAUNCH_CNT), 0);
}
END_TEST

START_TEST(test_refuses_nic_register)
{
	assert_refused(ENG(GAUDISIM_ENGINE_NIC_0, GAUDISIM_NIC_TX_DST_LO), (uint32_t)HBM_B);
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0) +
			     GAUDISIM_NIC_TX_DST_LO), 0);
}
END_TEST

START_TEST(test_refuses_mmu_register)
{
	uint32_t reg = GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_QUEUE_ASID(Q_A_INT);

	assert_refused(CFG(reg), ASID_B);
	ck_assert_uint_eq(rd(reg), ASID_A);
}
END_TEST

START_TEST(test_refuses_other_sob)
{
	assert_refused(SYNC_ADDR(GAUDISIM_SYNC_SOB_OBJ(SOB_B)), GAUDISIM_SYNC_SOB_SET(7));
	ck_assert_uint_eq(sm_sob_rd(SOB_B), 0);
}
END_TEST

START_TEST(test_refuses_other_fence)
{
	assert_refused(FENCE_ADDR(Q_B_INT, 1), 1);
	ck_assert_uint_eq(fence_cnt(Q_B_INT, 1), 0);
}
END_TEST

/* Gaudi's name for B's fence is still B's. */
START_TEST(test_refuses_other_fence_at_gaudi_address)
{
	assert_refused(GAUDI_FENCE(Q_B_INT, 0), 1);
	ck_assert_uint_eq(fence_cnt(Q_B_INT, 0), 0);
}
END_TEST

/* Gaudi's lower CP (CP 4) serves all four streams; A owns only one of DMA2's. */
START_TEST(test_refuses_lower_cp_fence)
{
	uint32_t base = gaudisim_gaudi_qm_block(gaudisim_queue_engine(Q_A_INT));

	assert_refused(CFG(base + GAUDISIM_QM_CP_FENCE_RDATA(0, GAUDISIM_STREAMS_PER_QMAN)), 1);
	ck_assert_uint_eq(fence_cnt(Q_A_INT, 0), 0);
	ck_assert_uint_eq(fence_cnt(Q_A_INT, 1), 0);
}
END_TEST

/* Gaudi's address of another QMAN register is refused like its compact one. */
START_TEST(test_refuses_qman_register_at_gaudi_address)
{
	uint32_t base = gaudisim_gaudi_qm_block(gaudisim_queue_engine(Q_A_INT));

	assert_refused(CFG(base + GAUDISIM_QM_ARB_CFG), GAUDISIM_QM_ARB_CFG_EN);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(gaudisim_queue_engine(Q_A_INT)) +
			     GAUDISIM_QM_ARB_CFG), 0);
}
END_TEST

START_TEST(test_refuses_other_hbm)
{
	assert_refused(HBM_B + 0x40, 0xbad);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_B + 0x40)), 0);
	/* Past the end of A's own range is nobody's to A. */
	assert_refused(HBM_A + (1u << 20), 0xbad);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_A + (1u << 20))), 0);
}
END_TEST

START_TEST(test_refuses_rights_table_from_cb)
{
	struct cb cb = cb_new(64);
	uint32_t reg = GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_RIGHTS(ASID_A, GAUDISIM_RIGHTS_SOB_END);

	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, CFG(reg), GAUDISIM_SYNC_NUM_SOBS,
	       GAUDISIM_MSG_OP_WRITE_VALUE);
	iq_submit(Q_A_INT, &cb);
	run_all();
	ck_assert_uint_eq(iq_err(Q_A_INT), GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(rd(reg), SOB_A + 16);
}
END_TEST

/* ---- allowed -------------------------------------------------------------- */

START_TEST(test_refuses_other_user_intr)
{
	assert_refused(CFG(GAUDISIM_REG_USER_INTR), GAUDISIM_MSIX_VEC_USER_FIRST + 5);
}
END_TEST

START_TEST(test_allows_own_user_intr)
{
	ck_assert_uint_eq(a_payload(CFG(GAUDISIM_REG_USER_INTR),
				    GAUDISIM_MSIX_VEC_USER_FIRST + 1), 0);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON_A))),
			  GAUDISIM_SYNC_MON_STATUS_FIRED);
}
END_TEST

START_TEST(test_allows_own_sob)
{
	ck_assert_uint_eq(a_payload(SYNC_ADDR(GAUDISIM_SYNC_SOB_OBJ(SOB_A + 9)),
				    GAUDISIM_SYNC_SOB_SET(5)), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB_A + 9), 5);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON_A))),
			  GAUDISIM_SYNC_MON_STATUS_FIRED);
}
END_TEST

START_TEST(test_allows_own_fence)
{
	ck_assert_uint_eq(a_payload(FENCE_ADDR(Q_A_INT, 1), 3), 0);
	ck_assert_uint_eq(fence_cnt(Q_A_INT, 1), 3);
}
END_TEST

/* The vendor's idiom: the payload names the fence by Gaudi's address. */
START_TEST(test_allows_own_fence_at_gaudi_address)
{
	ck_assert_uint_eq(a_payload(GAUDI_FENCE(Q_A_INT, 0), 2), 0);
	ck_assert_uint_eq(fence_cnt(Q_A_INT, 0), 2);
}
END_TEST

/* SOBs by Gaudi's E_N address. */
START_TEST(test_allows_own_sob_at_gaudi_address)
{
	ck_assert_uint_eq(a_payload(CFG(GAUDISIM_GAUDI_SYNC_E_N +
					GAUDISIM_SYNC_SOB_OBJ(SOB_A + 3)),
				    GAUDISIM_SYNC_SOB_SET(7)), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB_A + 3), 7);
}
END_TEST

START_TEST(test_allows_own_hbm)
{
	ck_assert_uint_eq(a_payload(HBM_A + 0x40, 0xfeed), 0);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_A + 0x40)), 0xfeed);
}
END_TEST

/* ---- binding ------------------------------------------------------------- */

/* On an external queue (no ASID) the monitor's owner is the arming context. */
START_TEST(test_external_arm_binds_monitor_owner)
{
	struct cb ok = cb_new(256), bad = cb_new(256);
	uint32_t slot;

	cb_sob_set(&ok, SOB_A, 0);
	cb_mon_payload(&ok, MON_A, HBM_A, 0x600d);
	cb_mon_arm(&ok, MON_A, GAUDISIM_SYNC_MON_ARM_SOB(SOB_A, 0, 1));
	cb_sob_set(&ok, SOB_A, 1);
	slot = job_submit(Q_A_EXT, &ok);
	run_all();
	ck_assert_uint_eq(cq_entry(Q_A_EXT, slot), cq_ok(slot));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_A)), 0x600d);

	cb_sob_set(&bad, SOB_A, 0);
	cb_mon_payload(&bad, MON_A, HBM_B, 0xbad);
	cb_mon_arm(&bad, MON_A, GAUDISIM_SYNC_MON_ARM_SOB(SOB_A, 0, 1));
	cb_sob_set(&bad, SOB_A, 1);
	slot = job_submit(Q_A_EXT, &bad);
	run_all();
	ck_assert_uint_eq(cq_entry(Q_A_EXT, slot), cq_err(slot, GAUDISIM_CP_ERR_PRIV));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_B)), 0);
}
END_TEST

/* A monitor left armed by a context that closed has no rights, even under its ASID. */
START_TEST(test_closed_context_monitor_has_no_rights)
{
	struct cb cb = cb_new(256);
	struct th_rights next;

	cb_sob_set(&cb, SOB_A, 0);
	cb_mon_payload(&cb, MON_A, HBM_A, 0xbad);
	cb_mon_arm(&cb, MON_A, GAUDISIM_SYNC_MON_ARM_SOB(SOB_A, 0, 1));
	iq_submit(Q_A_INT, &cb);
	run_all();
	ck_assert_uint_eq(iq_err(Q_A_INT), 0);

	/* A closes; the next user gets ASID 1 and the same ranges. */
	th_revoke(T, ASID_A);
	rights_for(&next, SOB_A, MON_A, Q_A_INT, Q_A_EXT, HBM_A);
	th_grant(T, ASID_A, &next);
	sm_sob_wr(SOB_A, 1);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_A)), 0);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON_A))) &
			  GAUDISIM_SYNC_MON_STATUS_ERR, GAUDISIM_SYNC_MON_STATUS_ERR);
}
END_TEST

Suite *payload_rights_suite(void)
{
	Suite *s = suite_create("payload-rights");
	TCase *tc = tcase_create("targets");

	tcase_add_checked_fixture(tc, pr_setup, th_teardown);
	tcase_add_test(tc, test_refuses_own_monitor_addrh);
	tcase_add_test(tc, test_refuses_other_monitor_arm);
	tcase_add_test(tc, test_refuses_msg_base);
	tcase_add_test(tc, test_refuses_mme_commit);
	tcase_add_test(tc, test_refuses_mme_register);
	tcase_add_test(tc, test_refuses_tpc_launch);
	tcase_add_test(tc, test_refuses_nic_register);
	tcase_add_test(tc, test_refuses_mmu_register);
	tcase_add_test(tc, test_refuses_other_sob);
	tcase_add_test(tc, test_refuses_other_fence);
	tcase_add_test(tc, test_refuses_other_hbm);
	tcase_add_test(tc, test_refuses_rights_table_from_cb);
	tcase_add_test(tc, test_refuses_other_user_intr);
	tcase_add_test(tc, test_allows_own_sob);
	tcase_add_test(tc, test_allows_own_user_intr);
	tcase_add_test(tc, test_allows_own_fence);
	tcase_add_test(tc, test_allows_own_hbm);
	tcase_add_test(tc, test_allows_own_fence_at_gaudi_address);
	tcase_add_test(tc, test_allows_own_sob_at_gaudi_address);
	tcase_add_test(tc, test_refuses_other_fence_at_gaudi_address);
	tcase_add_test(tc, test_refuses_lower_cp_fence);
	tcase_add_test(tc, test_refuses_qman_register_at_gaudi_address);
	tcase_add_test(tc, test_external_arm_binds_monitor_owner);
	tcase_add_test(tc, test_closed_context_monitor_has_no_rights);
	suite_add_tcase(s, tc);
	return s;
}
