/* SPDX-License-Identifier: MIT */
/*
 * Test helpers for internal queues, the sync manager and the event queue:
 * the driver's side of each, as gsim_test.c is for external queues.
 */
#include <string.h>

#include "gsim_test.h"

/* Where the next CB copied to HBM goes; the arena restarts per fixture. */
static uint64_t hbm_cb_next;
static uint64_t hbm_cb_owner;	/* the core the cursor belongs to */

void q_msg_bases(unsigned int q)
{
	uint64_t mon = GAUDISIM_SYNC_MON_BASE_ADDR, sob = GAUDISIM_SYNC_SOB_BASE_ADDR;
	unsigned int e = (unsigned int)gaudisim_queue_engine(q), s = gaudisim_queue_stream(q);

	ck_assert_uint_eq(wr(GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_CP_MSG_BASE_LO(0, s), (uint32_t)mon), 0);
	ck_assert_uint_eq(wr(GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_CP_MSG_BASE_HI(0, s),
			     (uint32_t)(mon >> 32)), 0);
	ck_assert_uint_eq(wr(GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_CP_MSG_BASE_LO(1, s), (uint32_t)sob), 0);
	ck_assert_uint_eq(wr(GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_CP_MSG_BASE_HI(1, s),
			     (uint32_t)(sob >> 32)), 0);
}

void iq_setup(unsigned int q, unsigned int log2_entries)
{
	unsigned int e = (unsigned int)gaudisim_queue_engine(q);
	uint32_t cfg0 = GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_GLBL_CFG0;

	ck_assert_int_ge(gaudisim_queue_engine(q), 0);
	ck_assert(!GAUDISIM_QUEUE_IS_EXTERNAL(q));
	ck_assert_uint_le(log2_entries, 8);	/* T_IPQ_OFF spacing */
	ck_assert_uint_eq(wr(QQ_REG(q, GAUDISIM_QM_PQ_BASE_LO), (uint32_t)host_bus(T_IPQ_OFF(q))), 0);
	ck_assert_uint_eq(wr(QQ_REG(q, GAUDISIM_QM_PQ_BASE_HI),
			     (uint32_t)(host_bus(T_IPQ_OFF(q)) >> 32)), 0);
	ck_assert_uint_eq(wr(QQ_REG(q, GAUDISIM_QM_PQ_SIZE), log2_entries), 0);
	q_msg_bases(q);
	wr(cfg0, rd(cfg0) | 1u << gaudisim_queue_stream(q));
}

unsigned int iq_submit_bd(unsigned int q, uint32_t ctl, uint32_t len, uint64_t ptr)
{
	uint32_t log2 = rd(QQ_REG(q, GAUDISIM_QM_PQ_SIZE)), entries = 1u << log2;
	uint32_t pi = rd(QQ_REG(q, GAUDISIM_QM_PQ_PI));
	struct gaudisim_bd b = { .ctl = ctl, .len = len, .ptr = ptr };

	memcpy(host_ptr(T_IPQ_OFF(q) + (pi & (entries - 1)) * GAUDISIM_BD_SIZE), &b, sizeof(b));
	return wr(QQ_REG(q, GAUDISIM_QM_PQ_PI), (pi + 1) & (2 * entries - 1));
}

uint64_t cb_to_hbm(const struct cb *cb)
{
	uint64_t addr;

	if (hbm_cb_owner != (uint64_t)(uintptr_t)T->core) {
		hbm_cb_owner = (uint64_t)(uintptr_t)T->core;
		hbm_cb_next = T_HBM_CB_BASE;
	}
	addr = hbm_cb_next;
	hbm_cb_next += (cb->len + 63) & ~63ull;
	memcpy(hbm_ptr(addr), cb->p, cb->len);
	return addr;
}

void iq_submit(unsigned int q, const struct cb *cb)
{
	ck_assert_uint_eq(iq_submit_bd(q, 0, cb->len, cb_to_hbm(cb)), GSIM_KICK_RUN);
}

void cb_msg_short(struct cb *cb, unsigned int base, uint32_t offset, uint32_t value,
		  uint32_t ctl_extra)
{
	cb_raw(cb, value, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) | GAUDISIM_PKT_CTL_MB |
	       base << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT | offset | ctl_extra);
}

void cb_sob_set(struct cb *cb, unsigned int sob, uint32_t value)
{
	cb_msg_short(cb, 1, 4 * sob, GAUDISIM_SYNC_SOB_SET(value), 0);
}

void cb_sob_add(struct cb *cb, unsigned int sob, uint32_t value)
{
	cb_msg_short(cb, 1, 4 * sob, GAUDISIM_SYNC_SOB_ADD(value), GAUDISIM_PKT_CTL_EB);
}

void cb_mon_payload(struct cb *cb, unsigned int m, uint64_t addr, uint32_t data)
{
	const uint32_t b = GAUDISIM_SYNC_MON_BASE_OFFSET;

	cb_msg_short(cb, 0, GAUDISIM_SYNC_MON_PAY_ADDRL(m) - b, (uint32_t)addr, 0);
	cb_msg_short(cb, 0, GAUDISIM_SYNC_MON_PAY_ADDRH(m) - b, (uint32_t)(addr >> 32), 0);
	cb_msg_short(cb, 0, GAUDISIM_SYNC_MON_PAY_DATA(m) - b, data, 0);
}

void cb_mon_arm(struct cb *cb, unsigned int m, uint32_t arm)
{
	cb_msg_short(cb, 0, GAUDISIM_SYNC_MON_ARM(m) - GAUDISIM_SYNC_MON_BASE_OFFSET, arm, 0);
}

void sm_mon_setup(unsigned int m, uint64_t addr, uint32_t data)
{
	ck_assert_uint_eq(wr(SYNC_REG(GAUDISIM_SYNC_MON_PAY_ADDRL(m)), (uint32_t)addr), 0);
	ck_assert_uint_eq(wr(SYNC_REG(GAUDISIM_SYNC_MON_PAY_ADDRH(m)), (uint32_t)(addr >> 32)), 0);
	ck_assert_uint_eq(wr(SYNC_REG(GAUDISIM_SYNC_MON_PAY_DATA(m)), data), 0);
}

unsigned int sm_mon_arm(unsigned int m, uint32_t arm)
{
	return wr(SYNC_REG(GAUDISIM_SYNC_MON_ARM(m)), arm);
}

uint32_t sm_sob_rd(unsigned int sob)
{
	return rd(SYNC_REG(GAUDISIM_SYNC_SOB_OBJ(sob)));
}

unsigned int sm_sob_wr(unsigned int sob, uint32_t value)
{
	return wr(SYNC_REG(GAUDISIM_SYNC_SOB_OBJ(sob)), value);
}

void th_eq_setup(unsigned int log2_entries)
{
	ck_assert_uint_le(log2_entries, 10);
	memset(host_ptr(T_EQ_OFF), 0, (size_t)GAUDISIM_EQ_ENTRY_SIZE << log2_entries);
	ck_assert_uint_eq(wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_LO, (uint32_t)host_bus(T_EQ_OFF)), 0);
	ck_assert_uint_eq(wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_HI,
			     (uint32_t)(host_bus(T_EQ_OFF) >> 32)), 0);
	ck_assert_uint_eq(wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_SIZE, log2_entries), 0);
	ck_assert_uint_eq(wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CTL, GAUDISIM_EQ_CTL_ENABLE), 0);
}

struct gaudisim_eq_entry th_eq_entry(unsigned int i)
{
	uint32_t log2 = rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_SIZE);
	struct gaudisim_eq_entry e;

	memcpy(&e, host_ptr(T_EQ_OFF + (uint64_t)(i & ((1u << log2) - 1)) * GAUDISIM_EQ_ENTRY_SIZE),
	       sizeof(e));
	return e;
}

uint32_t th_eq_count(void)
{
	return rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_EVENT_CNT);
}

int th_eq_find(unsigned int from, unsigned int type)
{
	unsigned int i, n = th_eq_count();

	for (i = from; i < n; i++)
		if (GAUDISIM_EQ_CTL_TYPE(th_eq_entry(i).ctl) == type)
			return (int)i;
	return -1;
}
