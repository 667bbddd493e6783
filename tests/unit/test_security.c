/* SPDX-License-Identifier: MIT */
/*
 * Device-side rights of monitor payloads: a payload is written with the
 * rights of whoever armed the monitor - secured only when the driver armed
 * it over MMIO; armed from any CB (external queues included) it cannot
 * reach reserved HBM or the physical host window, translates device VAs
 * with the arming queue's ASID of the time, arms no monitor, and fails
 * the write that triggered it (test_payload_rights.c: what each context's
 * rights allow). MMIO clears a
 * monitor through MON_STATUS. Also: a zero memset of HBM gives whole huge
 * pages back yet reads as zeros, and the legality table decides which
 * ctl bits the device refuses.
 */
#include <string.h>

#include "gsim_test.h"
#include "hw/gaudisim_hw_mmu.h"
#include "hw/gaudisim_hw_pkt_legal.h"

#define SOB		(GAUDISIM_SYNC_FIRST_USER_SOB + 40)
#define MON		(GAUDISIM_SYNC_FIRST_USER_MON + 10)
#define Q_EXT		2
#define Q_INT		GAUDISIM_QUEUE_ID_DMA_2_0
#define PROTECTED_HBM	(GAUDISIM_MMU_PGT_BASE + 0x40)
#define USER_HBM	(GAUDISIM_HBM_USER_BASE + 0x3000)
#define VA		(GAUDISIM_MMU_VA_BASE + 0x40000000ull)

static uint32_t mon_status(unsigned int m)
{
	return rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(m)));
}

static uint32_t iq_err(unsigned int q)
{
	return (rd(QQ_REG(q, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_ERR_MASK) >>
	       GAUDISIM_CP_STS_ERR_SHIFT;
}

static void sec_setup(void)
{
	th_setup();
	th_eq_setup(6);
	q_setup(Q_EXT, 3);
	q_msg_bases(Q_EXT);
	iq_setup(Q_INT, 3);
}

/* The last SYNC_ERR event: it names the arming queue and its ASID. */
static void assert_sync_err(unsigned int queue, unsigned int monitor, uint64_t addr)
{
	int i = -1, next;
	struct gaudisim_eq_entry e;

	while ((next = th_eq_find((unsigned int)(i + 1), GAUDISIM_EQ_EVENT_SYNC_ERR)) >= 0)
		i = next;
	ck_assert_int_ge(i, 0);
	e = th_eq_entry((unsigned int)i);
	ck_assert_uint_eq(e.queue, queue);
	ck_assert_uint_eq(e.data[0], monitor);
	ck_assert_uint_eq(e.addr, addr);
}

/* An external job: program MON with a payload to addr, arm it (fires at once). */
static uint32_t external_arm_at_once(uint64_t addr, uint32_t data)
{
	struct cb cb = cb_new(256);
	uint32_t slot;

	cb_sob_set(&cb, SOB, 0);
	cb_mon_payload(&cb, MON, addr, data);
	cb_mon_arm(&cb, MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 0));
	slot = job_submit(Q_EXT, &cb);
	run_all();
	return slot;
}

START_TEST(test_external_armed_payload_is_unsecured)
{
	uint32_t slot;

	/* Reserved HBM (the page tables): refused, the arming job fails. */
	memset(hbm_ptr(PROTECTED_HBM), 0x11, 4);
	slot = external_arm_at_once(PROTECTED_HBM, 0xdeadbeef);
	/* To an untrusted requester, reserved HBM does not exist. */
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_err(slot, GAUDISIM_CP_ERR_DMA_ADDR));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(PROTECTED_HBM)), 0x11111111);
	ck_assert_uint_eq(mon_status(MON), GAUDISIM_SYNC_MON_STATUS_FIRED |
			  GAUDISIM_SYNC_MON_STATUS_ERR);
	assert_sync_err(Q_EXT, MON, PROTECTED_HBM);

	/* The physical host window: refused too. */
	slot = external_arm_at_once(host_dev(T_DATA_OFF), 0xdeadbeef);
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_err(slot, GAUDISIM_CP_ERR_PRIV));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0);

	/* What users target - user HBM, a fence - still works. */
	slot = external_arm_at_once(USER_HBM, 0x600d);
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_ok(slot));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(USER_HBM)), 0x600d);
	slot = external_arm_at_once(FENCE_ADDR(Q_INT, 3), 2);
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_ok(slot));
	ck_assert_uint_eq(rd(QQ_FENCE_REG(Q_INT, GAUDISIM_QM_CP_FENCE_CNT, 3)), 2);
}
END_TEST

START_TEST(test_mmio_armed_payload_is_secured)
{
	/* The driver's own monitor may write where it likes. */
	sm_mon_setup(MON, PROTECTED_HBM, 0x5ec);
	ck_assert_uint_eq(sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 0)), 0);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(PROTECTED_HBM)), 0x5ec);
	sm_mon_setup(MON, host_dev(T_DATA_OFF), 0x5ed);
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 0));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x5ed);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* A secured trigger lends no rights; a CB trigger fails with the payload. */
START_TEST(test_trigger_lends_no_rights)
{
	struct cb arm = cb_new(256), trig = cb_new(64);
	uint32_t slot;

	cb_sob_set(&arm, SOB, 0);
	cb_mon_payload(&arm, MON, PROTECTED_HBM, 0xbad);
	cb_mon_arm(&arm, MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	iq_submit(Q_INT, &arm);
	run_all();
	ck_assert_uint_eq(iq_err(Q_INT), 0);
	ck_assert_uint_eq(mon_status(MON), GAUDISIM_SYNC_MON_STATUS_ARMED);

	/* The driver sets the SOB: the user's payload is still refused. */
	sm_sob_wr(SOB, 1);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(PROTECTED_HBM)), 0);
	ck_assert_uint_eq(mon_status(MON) & GAUDISIM_SYNC_MON_STATUS_ERR,
			  GAUDISIM_SYNC_MON_STATUS_ERR);
	assert_sync_err(Q_INT, MON, PROTECTED_HBM);

	/* An external CB sets it off: its MSG_SHORT fails with the refusal. */
	sm_sob_wr(SOB, 0);
	iq_submit(Q_INT, &arm);
	run_all();
	cb_sob_add(&trig, SOB, 1);
	slot = job_submit(Q_EXT, &trig);
	run_all();
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_err(slot, GAUDISIM_CP_ERR_DMA_ADDR));
	ck_assert_ptr_nonnull(strstr(T->last_error, "may not write"));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(PROTECTED_HBM)), 0);
}
END_TEST

/* A CB-armed payload never arms a monitor, so no chain borrows its rights. */
START_TEST(test_payload_arms_no_monitor)
{
	const unsigned int m2 = MON + 1;
	struct cb arm = cb_new(256);

	/* m2's payload set by the driver; MON's payload tries to arm m2. */
	sm_mon_setup(m2, PROTECTED_HBM, 0xbad);
	cb_sob_set(&arm, SOB, 0);
	cb_mon_payload(&arm, MON, SYNC_ADDR(GAUDISIM_SYNC_MON_ARM(m2)),
		       GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 0));
	cb_mon_arm(&arm, MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 0));
	iq_submit(Q_INT, &arm);
	run_all();
	ck_assert_uint_eq(iq_err(Q_INT), GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(PROTECTED_HBM)), 0);
	ck_assert_uint_eq(mon_status(m2), 0);
	assert_sync_err(Q_INT, MON, SYNC_ADDR(GAUDISIM_SYNC_MON_ARM(m2)));
}
END_TEST

/* ---- ASID of a payload to a device VA ------------------------------------- */

static uint64_t pgt_next;

static uint64_t table_new(void)
{
	uint64_t t = pgt_next;

	pgt_next += GAUDISIM_MMU_HOP_TABLE_SIZE;
	memset(hbm_ptr(t), 0, GAUDISIM_MMU_HOP_TABLE_SIZE);
	return t;
}

/* ASID 1: VA -> host page T_DATA_OFF; ASID 2: tables, nothing mapped. */
static void mmu_two_asids(void)
{
	uint64_t table, pte;
	unsigned int asid, hop;

	pgt_next = GAUDISIM_MMU_PGT_BASE + 0x100000;
	for (asid = 1; asid <= 2; asid++) {
		uint64_t hop0 = table_new();

		wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_LO(asid), (uint32_t)hop0);
		wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_HI(asid), (uint32_t)(hop0 >> 32));
	}
	table = (uint64_t)rd(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_HI(1)) << 32 |
		rd(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_LO(1));
	for (hop = 0; hop < GAUDISIM_MMU_LEAF_HOP; hop++) {
		uint64_t next = table_new();

		pte = next | GAUDISIM_MMU_PTE_PRESENT;
		memcpy(hbm_ptr(table + GAUDISIM_MMU_HOP_INDEX(VA, hop) * GAUDISIM_MMU_PTE_SIZE),
		       &pte, sizeof(pte));
		table = next;
	}
	pte = host_bus(T_DATA_OFF) | GAUDISIM_MMU_PTE_PRESENT | GAUDISIM_MMU_PTE_WRITABLE |
	      GAUDISIM_MMU_PTE_LAST;
	memcpy(hbm_ptr(table + GAUDISIM_MMU_HOP_INDEX(VA, GAUDISIM_MMU_LEAF_HOP) *
		       GAUDISIM_MMU_PTE_SIZE), &pte, sizeof(pte));
	wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE);
}

static void set_queue_asid(unsigned int q, unsigned int asid)
{
	ck_assert_uint_eq(wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_QUEUE_ASID(q), asid), 0);
}

START_TEST(test_payload_uses_asid_at_arm_time)
{
	struct cb arm = cb_new(256);
	unsigned int faults = th_eq_count();

	mmu_two_asids();
	set_queue_asid(Q_INT, 1);
	cb_sob_set(&arm, SOB, 0);
	cb_mon_payload(&arm, MON, VA + 0x10, 0xa51d);
	cb_mon_arm(&arm, MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	iq_submit(Q_INT, &arm);
	run_all();
	ck_assert_uint_eq(iq_err(Q_INT), 0);

	/* The queue moves to another ASID before the monitor fires. */
	set_queue_asid(Q_INT, 2);
	sm_sob_wr(SOB, 1);
	ck_assert_uint_eq(host_rd32(T_DATA_OFF + 0x10), 0xa51d);
	ck_assert_uint_eq(mon_status(MON), GAUDISIM_SYNC_MON_STATUS_FIRED);

	/* Armed under ASID 2 (a context too), where nothing is mapped: an MMU fault. */
	th_grant(T, 2, &th_rights_exclusive);
	sm_sob_wr(SOB, 0);
	iq_submit(Q_INT, &arm);
	run_all();
	sm_sob_wr(SOB, 1);
	ck_assert_uint_eq(mon_status(MON) & GAUDISIM_SYNC_MON_STATUS_ERR,
			  GAUDISIM_SYNC_MON_STATUS_ERR);
	ck_assert_int_ge(th_eq_find(faults, GAUDISIM_EQ_EVENT_MMU_FAULT), 0);
	assert_sync_err(Q_INT, MON, VA + 0x10);
	ck_assert_uint_eq(th_eq_entry((unsigned int)th_eq_find(faults,
					GAUDISIM_EQ_EVENT_MMU_FAULT)).queue, Q_INT);
}
END_TEST

/* ---- MON_STATUS ------------------------------------------------------------- */

START_TEST(test_mmio_status_write_disarms)
{
	struct cb cb = cb_new(64);
	uint32_t slot;

	sm_mon_setup(MON, USER_HBM, 7);
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	ck_assert_uint_eq(mon_status(MON), GAUDISIM_SYNC_MON_STATUS_ARMED);
	ck_assert_uint_eq(wr(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON)), 0), 0);
	ck_assert_uint_eq(mon_status(MON), 0);
	sm_sob_wr(SOB, 1);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(USER_HBM)), 0);	/* disarmed */
	/* Anything but 0 is refused and logged; CBs may not write it at all. */
	wr(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON)), 1);
	ck_assert_uint_eq(T->errors, 1);
	cb_msg_short(&cb, 0, GAUDISIM_SYNC_MON_STATUS(MON) - GAUDISIM_SYNC_MON_BASE_OFFSET, 0, 0);
	slot = job_submit(Q_EXT, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_err(slot, GAUDISIM_CP_ERR_DMA_ADDR));
}
END_TEST

/* ---- Zero memset of HBM ------------------------------------------------------- */

START_TEST(test_zero_memset_of_hbm)
{
	const uint64_t base = GAUDISIM_HBM_USER_BASE + (64ull << 20) + 0x123;
	const uint32_t len = (5u << 20) + 0x345;
	struct cb cb = cb_new(64);
	uint32_t slot;

	memset(hbm_ptr(base - 64), 0xaa, len + 128);
	cb_memset(&cb, base, 0, len);
	slot = job_submit(Q_EXT, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_ok(slot));
	ck_assert_ptr_null(memchr(hbm_ptr(base - 64), 0, 64));
	ck_assert_uint_eq(hbm_ptr(base)[0], 0);
	ck_assert_uint_eq(hbm_ptr(base + len - 1)[0], 0);
	for (uint32_t i = 0; i < len; i += 4096)
		ck_assert_uint_eq(hbm_ptr(base + i)[0], 0);
	ck_assert_uint_eq(hbm_ptr(base + len)[0], 0xaa);
	/* The given-back pages take writes again. */
	hbm_ptr(base + (2u << 20))[0] = 9;
	ck_assert_uint_eq(hbm_ptr(base + (2u << 20))[0], 9);
}
END_TEST

/* ---- The legality table ------------------------------------------------------- */

/* Every ctl bit below the opcode, on packets that are otherwise valid. */
START_TEST(test_device_follows_legality_table)
{
	static const unsigned int ops[] = {
		GAUDISIM_PKT_NOP, GAUDISIM_PKT_FENCE, GAUDISIM_PKT_ARB_POINT,
		GAUDISIM_PKT_WAIT, GAUDISIM_PKT_MSG_LONG,
	};
	unsigned int i, bit;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		for (bit = 0; bit < GAUDISIM_PKT_CTL_OPCODE_SHIFT; bit++) {
			uint32_t ctl = GAUDISIM_PKT_CTL(ops[i]) | 1u << bit;
			bool legal = !(ctl & ~gaudisim_pkt_ctl_defined(ops[i]));
			struct cb cb = cb_new(64);
			uint32_t slot;

			cb_raw(&cb, ops[i] == GAUDISIM_PKT_ARB_POINT ? GAUDISIM_ARB_POINT_RLS : 0,
			       ctl);
			if (ops[i] == GAUDISIM_PKT_MSG_LONG)
				cb_raw64(&cb, USER_HBM);
			slot = job_submit(Q_EXT, &cb);
			run_all();
			/* A MSG_LONG op other than 0 and 1 is a field error too. */
			if (ops[i] == GAUDISIM_PKT_MSG_LONG && (ctl & GAUDISIM_MSG_CTL_OP_MASK) &&
			    bit != GAUDISIM_MSG_CTL_OP_SHIFT)
				legal = false;
			ck_assert_msg(cq_entry(Q_EXT, slot) ==
				      (legal ? cq_ok(slot) : cq_err(slot, GAUDISIM_CP_ERR_PKT_FIELD)),
				      "opcode 0x%x ctl bit %u: CQ 0x%08x", ops[i], bit,
				      cq_entry(Q_EXT, slot));
			cb_arena_reset();
		}
	}
}
END_TEST

Suite *security_suite(void)
{
	Suite *s = suite_create("security");
	TCase *tc = tcase_create("payload_rights");

	tcase_add_checked_fixture(tc, sec_setup, th_teardown);
	tcase_add_test(tc, test_external_armed_payload_is_unsecured);
	tcase_add_test(tc, test_mmio_armed_payload_is_secured);
	tcase_add_test(tc, test_trigger_lends_no_rights);
	tcase_add_test(tc, test_payload_arms_no_monitor);
	tcase_add_test(tc, test_payload_uses_asid_at_arm_time);
	tcase_add_test(tc, test_mmio_status_write_disarms);
	tcase_add_test(tc, test_zero_memset_of_hbm);
	tcase_add_test(tc, test_device_follows_legality_table);
	suite_add_tcase(s, tc);
	return s;
}
