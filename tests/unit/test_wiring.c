/* SPDX-License-Identifier: MIT */
/*
 * How the queues use the MMU, range protection and injected faults:
 * internal queues reach host memory (data, CBs, CP_DMA buffers) through
 * device VAs only, reserved HBM
 * belongs to the driver's queues, an uncorrectable ECC error fails the next
 * HBM job, a hung engine finishes nothing until it is released.
 */
#include <string.h>

#include "gsim_test.h"
#include "gsim_faults.h"
#include "gsim_mmu.h"

#define IQ		GAUDISIM_QUEUE_ID_DMA_2_0	/* an HBM-DMA queue */
#define VA(off)		(GAUDISIM_MMU_VA_BASE + (off))
#define HBM_DATA	(GAUDISIM_HBM_USER_BASE + 0x100000u)
#define ASID		3

static uint64_t pgt_next;

static void mmu_wr(uint32_t off, uint32_t v)
{
	ck_assert_int_eq(gsim_mmu_reg_write(T->core, off, v, GSIM_ORIGIN_MMIO), GSIM_REG_OK);
}

static uint64_t pgt_alloc(void)
{
	uint64_t table = pgt_next;

	pgt_next += GAUDISIM_MMU_HOP_TABLE_SIZE;
	memset(hbm_ptr(table), 0, GAUDISIM_MMU_HOP_TABLE_SIZE);
	return table;
}

/* ASID with one writable 4 KiB page: VA(0) -> host memory at T_DATA_OFF. */
static void map_one_page(void)
{
	uint64_t table = pgt_alloc(), va = VA(0);
	unsigned int h;

	mmu_wr(GAUDISIM_MMU_HOP0_LO(ASID), (uint32_t)table);
	mmu_wr(GAUDISIM_MMU_HOP0_HI(ASID), (uint32_t)(table >> 32));
	for (h = 0; h < GAUDISIM_MMU_LEAF_HOP; h++) {
		uint64_t next = pgt_alloc();
		uint64_t pte = next | GAUDISIM_MMU_PTE_PRESENT;

		memcpy(hbm_ptr(table + GAUDISIM_MMU_HOP_INDEX(va, h) * 8), &pte, 8);
		table = next;
	}
	{
		uint64_t pte = host_bus(T_DATA_OFF) | GAUDISIM_MMU_PTE_PRESENT |
			       GAUDISIM_MMU_PTE_WRITABLE | GAUDISIM_MMU_PTE_LAST;

		memcpy(hbm_ptr(table + GAUDISIM_MMU_HOP_INDEX(va, GAUDISIM_MMU_LEAF_HOP) * 8),
		       &pte, 8);
	}
	mmu_wr(GAUDISIM_MMU_QUEUE_ASID(IQ), ASID);
	mmu_wr(GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE);
}

static void wiring_setup(void)
{
	th_setup();
	pgt_next = GAUDISIM_MMU_PGT_BASE;
	th_eq_setup(6);
	iq_setup(IQ, 4);
}

static unsigned int iq_err(void)
{
	return (rd(QQ_REG(IQ, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_ERR_MASK) >>
	       GAUDISIM_CP_STS_ERR_SHIFT;
}

static void iq_run_dma(uint64_t src, uint64_t dst, uint32_t size)
{
	struct cb cb = cb_new(256);

	cb_lin_dma(&cb, src, dst, size, 0);
	iq_submit(IQ, &cb);
	run_all();
}

START_TEST(test_iq_dma_through_mmu)
{
	unsigned int i;

	map_one_page();
	for (i = 0; i < 256; i++)
		host_ptr(T_DATA_OFF)[i] = (uint8_t)(i * 7 + 1);
	iq_run_dma(VA(0), HBM_DATA, 256);
	ck_assert_uint_eq(iq_err(), 0);
	ck_assert_mem_eq(hbm_ptr(HBM_DATA), host_ptr(T_DATA_OFF), 256);
	/* And back, to a VA offset inside the page. */
	iq_run_dma(HBM_DATA, VA(0x800), 256);
	ck_assert_uint_eq(iq_err(), 0);
	ck_assert_mem_eq(host_ptr(T_DATA_OFF + 0x800), host_ptr(T_DATA_OFF), 256);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_iq_unmapped_va_faults)
{
	int ev;

	map_one_page();
	iq_run_dma(VA(0x5000), HBM_DATA, 64);
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_MMU_FAULT);
	ev = th_eq_find(0, GAUDISIM_EQ_EVENT_MMU_FAULT);
	ck_assert_int_ge(ev, 0);
	ck_assert_uint_eq(th_eq_entry((unsigned int)ev).addr, VA(0x5000));
	ck_assert_uint_eq(th_eq_entry((unsigned int)ev).queue, IQ);
	ck_assert_uint_eq(th_eq_entry((unsigned int)ev).code, GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	ck_assert_uint_eq(th_eq_entry((unsigned int)ev).data[0], ASID);
}
END_TEST

START_TEST(test_iq_physical_host_refused)
{
	iq_run_dma(host_dev(T_DATA_OFF), HBM_DATA, 64);
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_PRIV);
}
END_TEST

/* An internal CB in host memory, fetched through the MMU at VA(0). */
START_TEST(test_iq_cb_from_host_va)
{
	struct cb cb = cb_new(64);

	map_one_page();
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_DATA, 0x600dcb, 0);
	memcpy(host_ptr(T_DATA_OFF), cb.p, cb.len);
	iq_submit_bd(IQ, 0, cb.len, VA(0));
	run_all();
	ck_assert_uint_eq(iq_err(), 0);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_DATA)), 0x600dcb);
	ck_assert_uint_eq(rd(QQ_REG(IQ, GAUDISIM_QM_PQ_CI)), 1);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* A CB at an unmapped VA: an MMU fault with the queue's ASID, the entry skipped. */
START_TEST(test_iq_cb_at_unmapped_va_faults)
{
	int ev;

	map_one_page();
	iq_submit_bd(IQ, 0, 64, VA(0x5000));
	run_all();
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_MMU_FAULT);
	ck_assert_uint_eq(rd(QQ_REG(IQ, GAUDISIM_QM_PQ_CI)), 1);
	ev = th_eq_find(0, GAUDISIM_EQ_EVENT_MMU_FAULT);
	ck_assert_int_ge(ev, 0);
	ck_assert_uint_eq(th_eq_entry((unsigned int)ev).addr, VA(0x5000));
	ck_assert_uint_eq(th_eq_entry((unsigned int)ev).queue, IQ);
	ck_assert_uint_eq(th_eq_entry((unsigned int)ev).data[0], ASID);
	/* Without the queue's ASID, even a mapped VA is out of reach. */
	mmu_wr(GAUDISIM_MMU_QUEUE_ASID(IQ), ASID + 1);
	iq_submit_bd(IQ, 0, 64, VA(0));
	run_all();
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_MMU_FAULT);
}
END_TEST

static void cb_cp_dma(struct cb *cb, uint64_t src, uint32_t size)
{
	cb_raw(cb, size, GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA));
	cb_raw64(cb, src);
}

/* CP_DMA from host memory through the MMU; a physical host source stays refused. */
START_TEST(test_iq_cp_dma_from_host_va)
{
	struct cb sub = cb_new(64), cb = cb_new(64);

	map_one_page();
	cb_msg(&sub, GAUDISIM_PKT_MSG_LONG, HBM_DATA + 4, 0xcd, 0);
	memcpy(host_ptr(T_DATA_OFF + 0x100), sub.p, sub.len);
	cb_cp_dma(&cb, VA(0x100), sub.len);
	iq_submit(IQ, &cb);
	run_all();
	ck_assert_uint_eq(iq_err(), 0);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_DATA + 4)), 0xcd);

	cb = cb_new(64);
	cb_cp_dma(&cb, VA(0x5000), sub.len);
	iq_submit(IQ, &cb);
	run_all();
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_MMU_FAULT);

	cb = cb_new(64);
	cb_cp_dma(&cb, host_dev(T_DATA_OFF + 0x100), sub.len);
	iq_submit(IQ, &cb);
	run_all();
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_DMA_ADDR);
}
END_TEST

START_TEST(test_reserved_hbm_protected)
{
	struct cb cb = cb_new(256);
	uint32_t slot;

	/* An internal queue may neither read nor write reserved HBM. */
	iq_run_dma(GAUDISIM_MMU_PGT_BASE, HBM_DATA, 64);
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_PRIV);
	iq_run_dma(HBM_DATA, GAUDISIM_HBM_USER_BASE - 32, 64);
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_PRIV);
	/* The driver's external queues may. */
	memset(hbm_ptr(HBM_DATA), 0x5a, 64);
	q_setup(0, 4);
	cb_lin_dma(&cb, HBM_DATA, GAUDISIM_MMU_PGT_BASE + 0x100000, 64, 0);
	slot = job_submit(0, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(0, slot), cq_ok(slot));
	ck_assert_uint_eq(hbm_ptr(GAUDISIM_MMU_PGT_BASE + 0x100000)[63], 0x5a);
}
END_TEST

START_TEST(test_ecc_fails_next_hbm_job)
{
	gsim_fault_ecc(T->core, true, 1);
	memset(hbm_ptr(HBM_DATA), 1, 64);
	iq_run_dma(HBM_DATA, HBM_DATA + 0x1000, 64);
	ck_assert_uint_eq(iq_err(), GAUDISIM_CP_ERR_ECC);
	ck_assert_uint_ne(hbm_ptr(HBM_DATA + 0x1000)[0], 1);
	/* Only one job was poisoned. */
	iq_run_dma(HBM_DATA, HBM_DATA + 0x2000, 64);
	ck_assert_uint_eq(hbm_ptr(HBM_DATA + 0x2000)[0], 1);
}
END_TEST

START_TEST(test_hang_then_release)
{
	unsigned int e = (unsigned int)gaudisim_queue_engine(IQ);
	struct cb cb = cb_new(256);

	memset(hbm_ptr(HBM_DATA), 9, 64);
	ck_assert_int_eq(gsim_fault_hang_engine(T->core, (int)e), 0);
	cb_lin_dma(&cb, HBM_DATA, HBM_DATA + 0x1000, 64, 0);
	/* The doorbell asks for no run: the hung engine could not use it. */
	ck_assert_uint_eq(iq_submit_bd(IQ, 0, cb.len, cb_to_hbm(&cb)), 0);
	run_all();
	ck_assert_uint_eq(hbm_ptr(HBM_DATA + 0x1000)[0], 0);
	ck_assert(!gsim_core_run(T->core));	/* nothing to do: no busy loop */
	ck_assert_int_eq(gsim_fault_hang_engine(T->core, -1), 0);
	run_all();
	ck_assert_uint_eq(hbm_ptr(HBM_DATA + 0x1000)[0], 9);
}
END_TEST

Suite *wiring_suite(void)
{
	Suite *s = suite_create("wiring");
	TCase *tc = tcase_create("wiring");

	tcase_add_checked_fixture(tc, wiring_setup, th_teardown);
	tcase_add_test(tc, test_iq_dma_through_mmu);
	tcase_add_test(tc, test_iq_unmapped_va_faults);
	tcase_add_test(tc, test_iq_physical_host_refused);
	tcase_add_test(tc, test_iq_cb_from_host_va);
	tcase_add_test(tc, test_iq_cb_at_unmapped_va_faults);
	tcase_add_test(tc, test_iq_cp_dma_from_host_va);
	tcase_add_test(tc, test_reserved_hbm_protected);
	tcase_add_test(tc, test_ecc_fails_next_hbm_job);
	tcase_add_test(tc, test_hang_then_release);
	suite_add_tcase(s, tc);
	return s;
}
