/* SPDX-License-Identifier: MIT */
/*
 * The packets beyond the foundation's set: WREG_BULK, MSG_SHORT (bases,
 * timestamp), CP_DMA (nesting, parking inside, privilege), REPEAT (inner,
 * outer, malformed loops), STOP and re-enable, WAIT, LOAD_AND_EXE (predicates,
 * scalars, exe, predicated packets), and the engine barrier on a DMA engine.
 */
#include <string.h>

#include "gsim_test.h"

#define HBM_P		(GAUDISIM_HBM_USER_BASE + 0x1000)
#define HBM_SUB		(GAUDISIM_HBM_USER_BASE + 0x10000)
#define SOB		GAUDISIM_SYNC_FIRST_USER_SOB
#define QI		GAUDISIM_QUEUE_ID_DMA_2_0	/* DMA 2, stream 0 */
#define QE		2				/* DMA 0, stream 2 */

static void p2_setup(void)
{
	th_setup();
	iq_setup(QI, 3);
	q_setup(QE, 3);
	q_msg_bases(QE);
}

static uint32_t sts(unsigned int q)
{
	return rd(QQ_REG(q, GAUDISIM_QM_CP_STS));
}

static uint32_t err_code(unsigned int q)
{
	return (sts(q) & GAUDISIM_CP_STS_ERR_MASK) >> GAUDISIM_CP_STS_ERR_SHIFT;
}

/* Run an external job and return its CQ entry. */
static uint32_t ext_job(struct cb *cb, uint32_t *slot)
{
	*slot = job_submit(QE, cb);
	run_all();
	return cq_entry(QE, *slot);
}

/* Run a CB on the internal queue and return its error code (0 = clean). */
static uint32_t int_job(struct cb *cb)
{
	uint32_t errs = rd(QQ_REG(QI, GAUDISIM_QM_CP_ERR_CNT));

	iq_submit(QI, cb);
	run_all();
	ck_assert_uint_eq(sts(QI) & GAUDISIM_CP_STS_BUSY, 0);
	return rd(QQ_REG(QI, GAUDISIM_QM_CP_ERR_CNT)) == errs ? 0 : err_code(QI);
}

static void cb_wreg_bulk(struct cb *cb, uint32_t reg, const uint32_t *v, unsigned int n64)
{
	unsigned int i;

	cb_raw(cb, n64, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_BULK) | GAUDISIM_PKT_CTL_RB | reg);
	for (i = 0; i < 2 * n64; i += 2)
		cb_raw(cb, v[i], v[i + 1]);
}

START_TEST(test_wreg_bulk)
{
	const uint32_t common[4] = { 0x11111110, 0x2, 0x33333333, 1 };
	const uint32_t fences[4] = { 1, 2, 3, 4 };
	struct cb cb = cb_new(256);
	uint32_t slot;
	unsigned int s;

	/* Four consecutive registers: the DMA engine's completion message. */
	cb_wreg_bulk(&cb, GAUDISIM_ENG_WR_COMP_ADDR_LO, common, 2);
	/* CP_FENCE0_RDATA of streams 0..3 are consecutive too. */
	cb_wreg_bulk(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_CP_FENCE_RDATA(0, 0), fences, 2);
	/* size64 = 0 is an empty bulk. */
	cb_wreg_bulk(&cb, 0, NULL, 0);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_ok(slot));
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(0) + GAUDISIM_ENG_WR_COMP_ADDR_LO), 0x11111110);
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(0) + GAUDISIM_ENG_WR_COMP_ADDR_HI), 0x2);
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(0) + GAUDISIM_ENG_WR_COMP_WDATA), 0x33333333);
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(0) + GAUDISIM_ENG_WR_COMP_EN), 1);
	for (s = 0; s < 4; s++)
		ck_assert_uint_eq(qrd_fence(s, 0), s + 1);
	ck_assert_uint_eq(T->errors, 0);

	/* Past the engine block; a refused register in the middle; past the CB. */
	cb = cb_new(256);
	cb_wreg_bulk(&cb, GAUDISIM_ENGINE_BLOCK_SIZE - 8, fences, 2);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_err(slot, GAUDISIM_CP_ERR_PKT_FIELD));
	cb = cb_new(256);
	cb_wreg_bulk(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_PQ_SIZE(0), fences, 1);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_err(slot, GAUDISIM_CP_ERR_PRIV));
	cb = cb_new(256);
	cb_raw(&cb, 3, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_BULK) | GAUDISIM_ENG_WR_COMP_WDATA);
	cb_raw(&cb, 1, 2);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_err(slot, GAUDISIM_CP_ERR_PKT_OVERRUN));
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(0) + GAUDISIM_ENG_WR_COMP_WDATA), 0x33333333);
}
END_TEST

START_TEST(test_msg_short)
{
	struct cb cb = cb_new(256);
	uint32_t slot;

	T->clock_ns = 0xabcdef0123ull;
	/* Base 3 of the external stream pointed at HBM by the driver. */
	wr(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_CP_MSG_BASE_LO(3, QE % 4), (uint32_t)HBM_P);
	cb_msg_short(&cb, 3, 0x20, 0x1234, 0);
	cb_msg_short(&cb, 3, 0x28, 0, 1u << GAUDISIM_MSG_CTL_OP_SHIFT);	/* timestamp */
	cb_msg_short(&cb, 1, 4 * SOB, GAUDISIM_SYNC_SOB_SET(9), GAUDISIM_MSG_CTL_WEAKLY_ORDERED);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_ok(slot));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 0x20)), 0x1234);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 0x28)), 0xcdef0123);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 0x2c)), 0xab);
	ck_assert_uint_eq(sm_sob_rd(SOB), 9);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_CP_MSG_BASE_LO(3, QE % 4)),
			  (uint32_t)HBM_P);

	/* Base 2 not programmed; an unaligned target; a reserved ctl bit. */
	cb = cb_new(64);
	cb_msg_short(&cb, 2, 0, 1, 0);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_err(slot, GAUDISIM_CP_ERR_PKT_FIELD));
	ck_assert_ptr_nonnull(strstr(T->last_error, "CP_MSG_BASE2"));
	cb = cb_new(64);
	cb_msg_short(&cb, 3, 2, 1, 0);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_err(slot, GAUDISIM_CP_ERR_PKT_FIELD));
	cb = cb_new(64);
	cb_msg_short(&cb, 3, 0, 1, 1u << 19);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_err(slot, GAUDISIM_CP_ERR_PKT_FIELD));
	/* A refused SOB update (reserved bits) fails the packet. */
	cb = cb_new(64);
	cb_msg_short(&cb, 1, 4 * SOB, 1u << 20, 0);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_err(slot, GAUDISIM_CP_ERR_PKT_FIELD));
	ck_assert_uint_eq(sm_sob_rd(SOB), 9);
}
END_TEST

static void cb_cp_dma(struct cb *cb, uint64_t src, uint32_t size)
{
	cb_raw(cb, size, GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA));
	cb_raw64(cb, src);
}

START_TEST(test_cp_dma)
{
	struct cb sub = cb_new(128), cb = cb_new(128);

	/* The lower CP's buffer parks on a fence half-way. */
	cb_msg(&sub, GAUDISIM_PKT_MSG_LONG, HBM_P, 1, 0);
	cb_fence(&sub, 0, 1, 1);
	cb_msg(&sub, GAUDISIM_PKT_MSG_LONG, HBM_P, 2, 0);
	memcpy(hbm_ptr(HBM_SUB), sub.p, sub.len);
	cb_cp_dma(&cb, HBM_SUB, sub.len);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P + 4, 3, 0);
	cb_cp_dma(&cb, HBM_SUB, 0);	/* empty */
	iq_submit(QI, &cb);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 1);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4)), 0);
	ck_assert_uint_eq(sts(QI), GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT);
	/* The buffer runs on Gaudi's lower CP: the stream's own fence does not release it. */
	wr(QQ_FENCE_REG(QI, GAUDISIM_QM_CP_FENCE_RDATA, 0), 1);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 1);
	ck_assert_uint_eq(rd(QQ_FENCE_REG(QI, GAUDISIM_QM_CP_FENCE_CNT, 0)), 1);
	wr(GAUDISIM_QM_BLOCK(gaudisim_queue_engine(QI)) +
	   GAUDISIM_QM_CP_FENCE_RDATA(0, GAUDISIM_QM_LOWER_CP), 1);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 2);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(gaudisim_queue_engine(QI)) +
			     GAUDISIM_QM_CP_FENCE_CNT(0, GAUDISIM_QM_LOWER_CP)), 0);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4)), 3);
	ck_assert_uint_eq(sts(QI), 0);
	ck_assert_uint_eq(rd(QQ_REG(QI, GAUDISIM_QM_PQ_CI)), 1);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_cp_dma_errors)
{
	struct cb sub = cb_new(64), cb;
	uint32_t slot;

	/* CP_DMA inside a CP_DMA'd buffer. */
	cb_cp_dma(&sub, HBM_SUB, 8);
	memcpy(hbm_ptr(HBM_SUB), sub.p, sub.len);
	cb = cb_new(64);
	cb_cp_dma(&cb, HBM_SUB, sub.len);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	/* The error address is the buffer's. */
	ck_assert_uint_eq(rd(QQ_REG(QI, GAUDISIM_QM_CP_ERR_ADDR_LO)), (uint32_t)HBM_SUB);
	/* A buffer that ends in the middle of a packet. */
	sub = cb_new(64);
	cb_raw(&sub, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG));
	memcpy(hbm_ptr(HBM_SUB), sub.p, sub.len);
	cb = cb_new(64);
	cb_cp_dma(&cb, HBM_SUB, sub.len);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_OVERRUN);
	/* Bad size, source outside device memory. */
	cb = cb_new(64);
	cb_cp_dma(&cb, HBM_SUB, 12);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);
	cb_cp_dma(&cb, HBM_SUB, (2u << 20) + 8);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);
	cb_cp_dma(&cb, host_dev(T_DATA_OFF), 8);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_DMA_ADDR);
	cb = cb_new(64);
	cb_cp_dma(&cb, T_HBM_SIZE - 8, 16);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_DMA_ADDR);

	/* A CP_DMA'd buffer may not use MSG_PROT. */
	sub = cb_new(64);
	cb_msg(&sub, GAUDISIM_PKT_MSG_PROT, HBM_P, 7, 0);
	memcpy(hbm_ptr(HBM_SUB), sub.p, sub.len);
	cb = cb_new(64);
	cb_cp_dma(&cb, HBM_SUB, sub.len);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 0);
	/* On an external queue CP_DMA itself is refused; the tail still completes. */
	sub = cb_new(64);
	cb_msg(&sub, GAUDISIM_PKT_MSG_LONG, HBM_P, 8, 0);
	memcpy(hbm_ptr(HBM_SUB), sub.p, sub.len);
	cb = cb_new(64);
	cb_cp_dma(&cb, HBM_SUB, sub.len);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_err(slot, GAUDISIM_CP_ERR_PRIV));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 0);
}
END_TEST

static void cb_repeat(struct cb *cb, bool end, bool outer, uint32_t count)
{
	cb_raw(cb, (end ? GAUDISIM_REPEAT_SORE_END : 0) | (outer ? GAUDISIM_REPEAT_OUTER : 0) |
	       count << GAUDISIM_REPEAT_COUNT_SHIFT,
	       GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT) | GAUDISIM_PKT_CTL_RB);
}

START_TEST(test_repeat)
{
	struct cb cb = cb_new(256);

	/* Inner loop: 5 x (SOB += 1). */
	cb_repeat(&cb, false, false, 5);
	cb_sob_add(&cb, SOB, 1);
	cb_repeat(&cb, true, false, 0);
	/* Nested: 3 x (2 x (SOB+1 += 1), SOB+1 += 10). */
	cb_repeat(&cb, false, true, 3);
	cb_repeat(&cb, false, false, 2);
	cb_sob_add(&cb, SOB + 1, 1);
	cb_repeat(&cb, true, false, 0);
	cb_sob_add(&cb, SOB + 1, 10);
	cb_repeat(&cb, true, true, 0);
	/* A count of 1 runs the body once. */
	cb_repeat(&cb, false, false, 1);
	cb_sob_add(&cb, SOB + 2, 1);
	cb_repeat(&cb, true, false, 0);
	/* A loop around a FENCE that parks each iteration. */
	cb_repeat(&cb, false, false, 3);
	cb_fence(&cb, 1, 1, 1);
	cb_sob_add(&cb, SOB + 3, 1);
	cb_repeat(&cb, true, false, 0);
	iq_submit(QI, &cb);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(sm_sob_rd(SOB), 5);
	ck_assert_uint_eq(sm_sob_rd(SOB + 1), 3 * (2 + 10));
	ck_assert_uint_eq(sm_sob_rd(SOB + 2), 1);
	ck_assert_uint_eq(sm_sob_rd(SOB + 3), 0);
	wr(QQ_FENCE_REG(QI, GAUDISIM_QM_CP_FENCE_RDATA, 1), 1);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(sm_sob_rd(SOB + 3), 1);
	wr(QQ_FENCE_REG(QI, GAUDISIM_QM_CP_FENCE_RDATA, 1), 2);
	run_all();
	ck_assert_uint_eq(sm_sob_rd(SOB + 3), 3);
	ck_assert_uint_eq(sts(QI), 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_repeat_errors)
{
	struct cb cb;

	cb = cb_new(64);	/* count 0 */
	cb_repeat(&cb, false, false, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* end without a start */
	cb_repeat(&cb, true, true, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* inner started twice */
	cb_repeat(&cb, false, false, 2);
	cb_repeat(&cb, false, false, 2);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* outer inside inner */
	cb_repeat(&cb, false, false, 2);
	cb_repeat(&cb, false, true, 2);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* outer ends while inner is open */
	cb_repeat(&cb, false, true, 2);
	cb_repeat(&cb, false, false, 2);
	cb_repeat(&cb, true, true, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* a count on an end */
	cb_repeat(&cb, false, false, 2);
	cb_repeat(&cb, true, false, 2);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* reserved bits */
	cb_raw(&cb, 1u << 5 | 1u << 16, GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT));
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	/* A loop left open at the end of a CB is harmless; the next CB starts fresh. */
	cb = cb_new(64);
	cb_repeat(&cb, false, false, 2);
	cb_sob_add(&cb, SOB, 1);
	ck_assert_uint_eq(int_job(&cb), 0);
	cb = cb_new(64);
	cb_repeat(&cb, true, false, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	ck_assert_uint_eq(sm_sob_rd(SOB), 1);
}
END_TEST

START_TEST(test_stop)
{
	const uint32_t cfg0 = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2) + GAUDISIM_QM_GLBL_CFG0;
	struct cb cb = cb_new(64), next = cb_new(64), ext = cb_new(64);
	uint32_t slot;

	th_eq_setup(4);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P, 1, 0);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_STOP));
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P, 2, 0);
	iq_submit(QI, &cb);
	cb_msg(&next, GAUDISIM_PKT_MSG_LONG, HBM_P + 4, 3, 0);
	iq_submit(QI, &next);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 1);
	ck_assert_uint_eq(sts(QI), GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_STOPPED);
	ck_assert_uint_eq(rd(cfg0) & 1, 0);
	ck_assert_int_ge(th_eq_find(0, GAUDISIM_EQ_EVENT_QMAN_STOP), 0);
	ck_assert_uint_eq(th_eq_entry((unsigned int)th_eq_find(0, GAUDISIM_EQ_EVENT_QMAN_STOP)).queue,
			  QI);
	/* Stays halted... */
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(rd(QQ_REG(QI, GAUDISIM_QM_PQ_CI)), 0);
	/* ...until enabled again: it resumes after the STOP and runs the next CB. */
	ck_assert_uint_eq(wr(cfg0, 1), GSIM_KICK_RUN);
	ck_assert_uint_eq(sts(QI) & GAUDISIM_CP_STS_STOPPED, 0);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 2);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4)), 3);
	ck_assert_uint_eq(rd(QQ_REG(QI, GAUDISIM_QM_PQ_CI)), 2);

	/* On an external queue the job completes once the stream is enabled again. */
	cb_raw(&ext, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_STOP));
	slot = job_submit(QE, &ext);
	run_all();
	ck_assert_uint_eq(cq_entry(QE, slot), 0);
	wr(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_GLBL_CFG0, 0xf);
	run_all();
	ck_assert_uint_eq(cq_entry(QE, slot), cq_ok(slot));
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_wait_packet)
{
	struct cb cb = cb_new(64);

	/* WAIT: some cycles, then fence 2 += 3; the FENCE after it passes. */
	cb_raw(&cb, 1000 | 3u << GAUDISIM_WAIT_INC_VAL_SHIFT | 2u << GAUDISIM_WAIT_ID_SHIFT,
	       GAUDISIM_PKT_CTL(GAUDISIM_PKT_WAIT));
	cb_fence(&cb, 2, 3, 2);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(qrd_fence(0, 0), 0);
	ck_assert_uint_eq(rd(QQ_FENCE_REG(QI, GAUDISIM_QM_CP_FENCE_CNT, 2)), 1);
	cb = cb_new(64);
	cb_raw(&cb, 1u << 31, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WAIT));
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
}
END_TEST

static void cb_load_and_exe(struct cb *cb, uint32_t cfg, uint64_t src, unsigned int pred)
{
	cb_raw(cb, cfg, gaudisim_load_and_exe_ctl(pred, 0));
	cb_raw64(cb, src);
}

/* A MSG_LONG writing value to addr, run only while predicate pred is set. */
static void cb_msg_pred(struct cb *cb, uint64_t addr, uint32_t value, unsigned int pred)
{
	cb_raw(cb, value, gaudisim_msg_ctl(GAUDISIM_PKT_MSG_LONG, GAUDISIM_MSG_OP_WRITE_VALUE, 0) |
	       pred);
	cb_raw64(cb, addr);
}

static uint32_t hbm_rd32(uint64_t addr)
{
	uint32_t v;

	memcpy(&v, hbm_ptr(addr), sizeof(v));
	return v;
}

#define L_PRED	GAUDISIM_LOAD_AND_EXE_LOAD
#define L_SCAL	(GAUDISIM_LOAD_AND_EXE_LOAD | GAUDISIM_LOAD_AND_EXE_DST)
#define EXE	GAUDISIM_LOAD_AND_EXE_EXE

/* Predicates: bit 0 of dword n is P n; P0 is always true; a false one skips. */
START_TEST(test_load_predicates)
{
	uint32_t preds[GAUDISIM_PKT_NUM_PREDS] = { 0 }, slot;
	struct cb cb = cb_new(512);

	preds[10] = 1;
	preds[3] = 0xfffffffe;		/* bit 0 clear: P3 false */
	memcpy(hbm_ptr(HBM_SUB), preds, sizeof(preds));
	memset(hbm_ptr(HBM_P), 0, 16);
	cb_msg_pred(&cb, HBM_P, 1, 10);		/* before the load: skipped */
	cb_load_and_exe(&cb, L_PRED, HBM_SUB, 0);
	cb_msg_pred(&cb, HBM_P + 4, 2, 10);
	cb_msg_pred(&cb, HBM_P + 8, 3, 3);
	cb_msg_pred(&cb, HBM_P + 12, 4, 0);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P), 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P + 4), 2);
	ck_assert_uint_eq(hbm_rd32(HBM_P + 8), 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P + 12), 4);

	/* A skipped packet does nothing at all: no wait, no stop, no bad address. */
	cb = cb_new(512);
	cb_load_and_exe(&cb, L_PRED, HBM_SUB, 0);
	cb_raw(&cb, gaudisim_fence_cfg(0, 5, 1), GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) | 3);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_STOP) | 3);
	cb_raw(&cb, 64, GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA) | 3);
	cb_raw64(&cb, 1ull << 60);
	cb_load_and_exe(&cb, L_PRED, 2, 3);
	cb_msg_pred(&cb, HBM_P, 9, 10);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P), 9);
	ck_assert_uint_eq(sts(QI) & GAUDISIM_CP_STS_STOPPED, 0);

	/* The next CB starts with P1..P31 clear. */
	cb = cb_new(64);
	cb_msg_pred(&cb, HBM_P, 7, 10);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P), 9);

	/* A secured CP loads from host memory at its physical address. */
	memcpy(host_ptr(T_DATA_OFF), preds, sizeof(preds));
	cb = cb_new(128);
	cb_load_and_exe(&cb, L_PRED, host_dev(T_DATA_OFF), 0);
	cb_msg_pred(&cb, HBM_P + 4, 5, 10);
	cb_msg_pred(&cb, HBM_P + 8, 6, 3);
	ck_assert_uint_eq(ext_job(&cb, &slot), cq_ok(slot));
	ck_assert_uint_eq(hbm_rd32(HBM_P + 4), 5);
	ck_assert_uint_eq(hbm_rd32(HBM_P + 8), 0);
}
END_TEST

START_TEST(test_load_and_exe_errors)
{
	struct cb cb = cb_new(64);

	cb_load_and_exe(&cb, L_PRED, HBM_SUB + 2, 0);		/* unaligned */
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);					/* past the end of HBM */
	cb_load_and_exe(&cb, L_PRED, T_HBM_SIZE - 64, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_DMA_ADDR);
	cb = cb_new(64);					/* a register */
	cb_load_and_exe(&cb, L_SCAL, GAUDISIM_CFG_BASE, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_DMA_ADDR);
	cb = cb_new(64);			/* an internal CP never uses physical host addresses */
	cb_load_and_exe(&cb, L_PRED, host_dev(T_DATA_OFF), 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PRIV);
	cb = cb_new(64);					/* reserved dw0 and ctl bits */
	cb_load_and_exe(&cb, L_PRED | 1u << 4, HBM_SUB, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);
	cb_raw(&cb, L_PRED, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LOAD_AND_EXE) | 1u << 5);
	cb_raw64(&cb, HBM_SUB);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);					/* WAIT has no predicate */
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WAIT) | 1);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
}
END_TEST

/* Scalars RF0..RF3 hold a packet; exe runs it: etype 0 from RF0, 1 from RF2. */
START_TEST(test_load_scalars_and_exe)
{
	const uint32_t blk = GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_DMA_2);
	uint32_t msg[4] = { 0x1234, gaudisim_msg_ctl(GAUDISIM_PKT_MSG_LONG, 0, 0),
			    (uint32_t)HBM_P, (uint32_t)(HBM_P >> 32) };
	uint32_t two[4] = { 0x55, gaudisim_wreg32_ctl(GAUDISIM_ENG_WR_COMP_WDATA, 0),
			    0x7f, gaudisim_wreg32_ctl(GAUDISIM_ENG_WR_COMP_ADDR_HI, 0) };
	uint32_t bad[4] = { 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP),
			    0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG) };
	struct cb cb = cb_new(256);

	/* Load and execute in one packet, and in two. */
	memcpy(hbm_ptr(HBM_SUB), msg, sizeof(msg));
	memset(hbm_ptr(HBM_P), 0, 8);
	cb_load_and_exe(&cb, L_SCAL | EXE, HBM_SUB, 0);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P), 0x1234);
	memset(hbm_ptr(HBM_P), 0, 8);
	cb = cb_new(256);
	cb_load_and_exe(&cb, L_SCAL, HBM_SUB, 0);
	cb_msg_pred(&cb, HBM_P + 4, 1, 0);
	cb_load_and_exe(&cb, EXE, 0, 0);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P), 0x1234);
	ck_assert_uint_eq(hbm_rd32(HBM_P + 4), 1);

	/* Two 8-byte packets: etype 0 runs the lower one only, etype 1 the upper. */
	memcpy(hbm_ptr(HBM_SUB + 0x100), two, sizeof(two));
	cb = cb_new(256);
	cb_load_and_exe(&cb, L_SCAL | EXE, HBM_SUB + 0x100, 0);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(rd(blk + GAUDISIM_ENG_WR_COMP_WDATA), 0x55);
	ck_assert_uint_eq(rd(blk + GAUDISIM_ENG_WR_COMP_ADDR_HI), 0);
	cb = cb_new(256);
	cb_load_and_exe(&cb, L_SCAL | EXE | GAUDISIM_LOAD_AND_EXE_ETYPE, HBM_SUB + 0x100, 0);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(rd(blk + GAUDISIM_ENG_WR_COMP_ADDR_HI), 0x7f);

	/* The executed packet's predicate applies. */
	msg[1] |= 10;
	memcpy(hbm_ptr(HBM_SUB), msg, sizeof(msg));
	memset(hbm_ptr(HBM_P), 0, 8);
	cb = cb_new(256);
	cb_load_and_exe(&cb, L_SCAL | EXE, HBM_SUB, 0);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P), 0);

	/* A new CB starts with zeroed scalars: nothing to run. */
	cb = cb_new(64);
	cb_load_and_exe(&cb, EXE, 0, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_UNDEF_OPCODE);
	/* A 16-byte packet at RF2 does not fit. */
	memcpy(hbm_ptr(HBM_SUB + 0x200), bad, sizeof(bad));
	cb = cb_new(64);
	cb_load_and_exe(&cb, L_SCAL | EXE | GAUDISIM_LOAD_AND_EXE_ETYPE, HBM_SUB + 0x200, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_OVERRUN);
	/* CP_DMA, REPEAT and LOAD_AND_EXE may not run from the scalars. */
	bad[1] = GAUDISIM_PKT_CTL(GAUDISIM_PKT_LOAD_AND_EXE);
	memcpy(hbm_ptr(HBM_SUB + 0x200), bad, sizeof(bad));
	cb = cb_new(64);
	cb_load_and_exe(&cb, L_SCAL | EXE, HBM_SUB + 0x200, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	bad[0] = GAUDISIM_REPEAT_COUNT_MASK;
	bad[1] = GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT);
	memcpy(hbm_ptr(HBM_SUB + 0x200), bad, sizeof(bad));
	cb = cb_new(64);
	cb_load_and_exe(&cb, L_SCAL | EXE, HBM_SUB + 0x200, 0);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
}
END_TEST

/* A FENCE run from the scalars parks the stream; the packet runs again. */
START_TEST(test_exe_fence_blocks)
{
	uint32_t fence[4] = { gaudisim_fence_cfg(1, 2, 2), GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE),
			      0, 0 };
	struct cb cb = cb_new(256);

	memcpy(hbm_ptr(HBM_SUB), fence, sizeof(fence));
	memset(hbm_ptr(HBM_P), 0, 4);
	cb_load_and_exe(&cb, L_SCAL | EXE, HBM_SUB, 0);
	cb_msg_pred(&cb, HBM_P, 8, 0);
	iq_submit(QI, &cb);
	run_all();
	ck_assert_uint_ne(sts(QI) & GAUDISIM_CP_STS_FENCE_WAIT, 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P), 0);
	wr(QQ_FENCE_REG(QI, GAUDISIM_QM_CP_FENCE_RDATA, 1), 2);
	run_all();
	ck_assert_uint_eq(sts(QI) & GAUDISIM_CP_STS_BUSY, 0);
	ck_assert_uint_eq(hbm_rd32(HBM_P), 8);
	ck_assert_uint_eq(rd(QQ_FENCE_REG(QI, GAUDISIM_QM_CP_FENCE_CNT, 1)), 0);
}
END_TEST

START_TEST(test_lin_dma_completion_message)
{
	struct cb cb = cb_new(256);
	const uint64_t sob_addr = SYNC_ADDR(GAUDISIM_SYNC_SOB_OBJ(SOB));

	/* Every LIN_DMA with wr_comp_en adds 1 to the SOB; EB on a DMA engine never waits. */
	cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)sob_addr);
	cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_ADDR_HI, (uint32_t)(sob_addr >> 32));
	cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_WDATA, GAUDISIM_SYNC_SOB_ADD(1));
	cb_lin_dma(&cb, HBM_P, HBM_P + 0x100, 64, GAUDISIM_LIN_DMA_CTL_WR_COMP_EN);
	cb_lin_dma(&cb, HBM_P, HBM_P + 0x100, 0, GAUDISIM_LIN_DMA_CTL_WR_COMP_EN);
	cb_lin_dma(&cb, HBM_P, HBM_P + 0x100, 64, GAUDISIM_PKT_CTL_EB);
	ck_assert_uint_eq(int_job(&cb), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB), 2);
	/* A completion message the sync manager refuses fails the packet. */
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_WDATA, 1u << 20);
	cb_lin_dma(&cb, HBM_P, HBM_P + 0x100, 64, GAUDISIM_LIN_DMA_CTL_WR_COMP_EN);
	ck_assert_uint_eq(int_job(&cb), GAUDISIM_CP_ERR_PKT_FIELD);
	ck_assert_uint_eq(sm_sob_rd(SOB), 2);
}
END_TEST

Suite *packet2_suite(void)
{
	Suite *s = suite_create("packets2");
	TCase *tc = tcase_create("packets2");

	tcase_add_checked_fixture(tc, p2_setup, th_teardown);
	tcase_add_test(tc, test_wreg_bulk);
	tcase_add_test(tc, test_msg_short);
	tcase_add_test(tc, test_cp_dma);
	tcase_add_test(tc, test_cp_dma_errors);
	tcase_add_test(tc, test_repeat);
	tcase_add_test(tc, test_repeat_errors);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_wait_packet);
	tcase_add_test(tc, test_load_predicates);
	tcase_add_test(tc, test_load_and_exe_errors);
	tcase_add_test(tc, test_load_scalars_and_exe);
	tcase_add_test(tc, test_exe_fence_blocks);
	tcase_add_test(tc, test_lin_dma_completion_message);
	suite_add_tcase(s, tc);
	return s;
}
