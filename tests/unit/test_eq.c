/* SPDX-License-Identifier: MIT */
/*
 * Event queue: programming and its checks, error events from packets and
 * PQ entries with their fields, one MSI-X (vector 8) per batch, heartbeat,
 * a full ring (drops, OVERFLOW, INDEX continuity), a disabled EQ, an
 * unwritable ring, hard reset.
 */
#include <string.h>

#include "gsim_test.h"

#define EQ(off)		(GAUDISIM_BLOCK_EQ + (off))

START_TEST(test_eq_registers)
{
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_CTL)), 0);
	/* Enabling needs a size; size and base are checked. */
	wr(EQ(GAUDISIM_EQ_CTL), GAUDISIM_EQ_CTL_ENABLE);
	wr(EQ(GAUDISIM_EQ_SIZE), 0);
	wr(EQ(GAUDISIM_EQ_SIZE), GAUDISIM_EQ_SIZE_LOG2_MAX + 1);
	wr(EQ(GAUDISIM_EQ_BASE_LO), 0x1010);
	wr(EQ(GAUDISIM_EQ_CTL), 2);
	ck_assert_uint_eq(T->errors, 5);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_CTL)), 0);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_BASE_LO)), 0);

	th_eq_setup(3);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_SIZE)), 3);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_BASE_LO)), (uint32_t)host_bus(T_EQ_OFF));
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_BASE_HI)), (uint32_t)(host_bus(T_EQ_OFF) >> 32));
	/* No geometry change while enabled; CI within the ring; read-only registers. */
	wr(EQ(GAUDISIM_EQ_SIZE), 4);
	wr(EQ(GAUDISIM_EQ_BASE_LO), 0);
	wr(EQ(GAUDISIM_EQ_CI), 1);	/* ahead of PI */
	wr(EQ(GAUDISIM_EQ_CI), 16);
	wr(EQ(GAUDISIM_EQ_PI), 3);
	wr(EQ(GAUDISIM_EQ_DROP_CNT), 3);
	ck_assert_uint_eq(T->errors, 11);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_SIZE)), 3);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_PI)), 0);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_CI)), 0);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_HEARTBEAT)), 0);
	ck_assert_uint_eq(sizeof(struct gaudisim_eq_entry), GAUDISIM_EQ_ENTRY_SIZE);

	/* A CB cannot touch the EQ. */
	q_setup(0, 2);
	{
		struct cb cb = cb_new(64);
		uint32_t slot;

		cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + EQ(GAUDISIM_EQ_HEARTBEAT), 1, 0);
		slot = job_submit(0, &cb);
		run_all();
		ck_assert_uint_eq(cq_entry(0, slot), cq_err(slot, GAUDISIM_CP_ERR_PRIV));
	}
}
END_TEST

START_TEST(test_error_events)
{
	struct cb a = cb_new(64), b = cb_new(64), c = cb_new(64);
	struct gaudisim_eq_entry ev;

	th_eq_setup(4);
	q_setup(1, 2);
	q_setup(6, 2);
	q_setup(3, 2);
	T->clock_ns = 0x5555;
	cb_nop(&a);
	cb_raw(&a, 0, GAUDISIM_PKT_CTL(0x1e));
	job_submit(1, &a);
	cb_lin_dma(&b, T_HBM_SIZE, GAUDISIM_HBM_USER_BASE, 16, 0);
	job_submit(6, &b);
	cb_nop(&c);
	q_submit_bd(3, GAUDISIM_BD_CTL_COMPLETION_TAIL, 12, cb_dev(&c));
	/* Three failures in one run: three entries, one interrupt. */
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(th_eq_count(), 3);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_PI)), 3);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 1);

	ev = th_eq_entry(0);	/* queue 1 comes first in the round */
	ck_assert_uint_eq(ev.ctl, GAUDISIM_EQ_CTL_READY |
			  GAUDISIM_EQ_EVENT_QMAN_ERR << GAUDISIM_EQ_CTL_TYPE_SHIFT | 0);
	ck_assert_uint_eq(ev.engine, GAUDISIM_ENGINE_DMA_0);
	ck_assert_uint_eq(ev.queue, 1);
	ck_assert_uint_eq(ev.code, GAUDISIM_CP_ERR_UNDEF_OPCODE);
	ck_assert_uint_eq(ev.addr, cb_dev(&a));
	ck_assert_uint_eq(ev.timestamp, 0x5555);
	ck_assert_uint_eq(ev.data[0], 8);	/* offset of the packet */
	ck_assert_uint_eq(ev.data[1], 0x1e);	/* its opcode */

	ev = th_eq_entry(1);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(ev.ctl), GAUDISIM_EQ_EVENT_QMAN_ERR);
	ck_assert_uint_eq(ev.ctl & GAUDISIM_EQ_CTL_INDEX_MASK, 1);
	ck_assert_uint_eq(ev.queue, 3);
	ck_assert_uint_eq(ev.code, GAUDISIM_CP_ERR_CB_FETCH);

	ev = th_eq_entry(2);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(ev.ctl), GAUDISIM_EQ_EVENT_DMA_ERR);
	ck_assert_uint_eq(ev.ctl & GAUDISIM_EQ_CTL_INDEX_MASK, 2);
	ck_assert_uint_eq(ev.engine, GAUDISIM_ENGINE_DMA_1);
	ck_assert_uint_eq(ev.queue, 6);
	ck_assert_uint_eq(ev.code, GAUDISIM_CP_ERR_DMA_ADDR);
	ck_assert_uint_eq(ev.data[1], GAUDISIM_PKT_LIN_DMA);
	/* The error completions raised their own CQ vectors as before. */
	ck_assert_uint_eq(T->msix[1], 1);
	ck_assert_uint_eq(T->msix[6], 1);
}
END_TEST

START_TEST(test_heartbeat)
{
	struct gaudisim_eq_entry ev;

	th_eq_setup(2);
	T->clock_ns = 777;
	ck_assert_uint_eq(wr(EQ(GAUDISIM_EQ_HEARTBEAT), 0xbeef), 0);
	/* The interrupt follows the register access at once. */
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 1);
	ck_assert_uint_eq(T->msix_total, 1);
	ev = th_eq_entry(0);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(ev.ctl), GAUDISIM_EQ_EVENT_HEARTBEAT);
	ck_assert(ev.ctl & GAUDISIM_EQ_CTL_READY);
	ck_assert_uint_eq(ev.data[0], 0xbeef);
	ck_assert_uint_eq(ev.engine, GAUDISIM_EQ_NONE);
	ck_assert_uint_eq(ev.queue, GAUDISIM_EQ_NONE);
	ck_assert_uint_eq(ev.timestamp, 777);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_full_ring)
{
	unsigned int i;
	uint8_t *ring = host_ptr(T_EQ_OFF);

	th_eq_setup(2);	/* 4 entries */
	for (i = 0; i < 6; i++)
		wr(EQ(GAUDISIM_EQ_HEARTBEAT), i);
	ck_assert_uint_eq(th_eq_count(), 4);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_DROP_CNT)), 2);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_STS)), GAUDISIM_EQ_STS_OVERFLOW);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_PI)), 4);
	ck_assert_uint_eq(th_eq_entry(3).data[0], 3);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 4);
	ck_assert_uint_eq(T->errors, 2);

	/* The driver consumes two entries: clears READY, moves CI. */
	for (i = 0; i < 2; i++)
		ring[i * GAUDISIM_EQ_ENTRY_SIZE + 3] &= 0x7f;
	ck_assert_uint_eq(wr(EQ(GAUDISIM_EQ_CI), 2), 0);
	wr(EQ(GAUDISIM_EQ_HEARTBEAT), 100);
	ck_assert_uint_eq(th_eq_entry(0).data[0], 100);
	/* INDEX counts written events: 4 follows 3. */
	ck_assert_uint_eq(th_eq_entry(0).ctl & GAUDISIM_EQ_CTL_INDEX_MASK, 4);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_PI)), 5);
	/* Disabling clears OVERFLOW; re-enabling starts an empty ring. */
	wr(EQ(GAUDISIM_EQ_CTL), 0);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_STS)), 0);
	wr(EQ(GAUDISIM_EQ_CTL), GAUDISIM_EQ_CTL_ENABLE);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_PI)), 0);
	wr(EQ(GAUDISIM_EQ_HEARTBEAT), 200);
	ck_assert_uint_eq(th_eq_entry(0).ctl & GAUDISIM_EQ_CTL_INDEX_MASK, 0);
}
END_TEST

START_TEST(test_disabled_and_unwritable)
{
	struct cb cb = cb_new(64);

	/* Nobody listening: events are counted as dropped, no interrupt, no log. */
	wr(EQ(GAUDISIM_EQ_HEARTBEAT), 1);
	q_setup(0, 2);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(0x1e));
	job_submit(0, &cb);
	run_all();
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_DROP_CNT)), 2);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 0);
	ck_assert_uint_eq(T->errors, 1);	/* the packet error only */

	/* A ring the host refuses (IOMMU fault): dropped and reported. */
	T->fault_lo = host_bus(T_EQ_OFF);
	T->fault_hi = host_bus(T_EQ_OFF + 4096);
	th_eq_setup(2);
	wr(EQ(GAUDISIM_EQ_HEARTBEAT), 2);
	ck_assert_uint_eq(th_eq_count(), 0);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_DROP_CNT)), 3);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_STS)), GAUDISIM_EQ_STS_OVERFLOW);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 0);
	ck_assert_uint_eq(T->errors, 2);
}
END_TEST

START_TEST(test_eq_hard_reset)
{
	th_eq_setup(2);
	wr(EQ(GAUDISIM_EQ_HEARTBEAT), 1);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 1);
	gsim_core_reset(T->core);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_CTL)), 0);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_SIZE)), 0);
	ck_assert_uint_eq(rd(EQ(GAUDISIM_EQ_EVENT_CNT)), 0);
	wr(EQ(GAUDISIM_EQ_HEARTBEAT), 2);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 1);
}
END_TEST

Suite *eq_suite(void)
{
	Suite *s = suite_create("event-queue");
	TCase *tc = tcase_create("event-queue");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_eq_registers);
	tcase_add_test(tc, test_error_events);
	tcase_add_test(tc, test_heartbeat);
	tcase_add_test(tc, test_full_ring);
	tcase_add_test(tc, test_disabled_and_unwritable);
	tcase_add_test(tc, test_eq_hard_reset);
	suite_add_tcase(s, tc);
	return s;
}
