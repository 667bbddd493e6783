/* SPDX-License-Identifier: MIT */
/*
 * Internal queues (HBM-DMA, MME, TPC): PQ rings in host memory, CBs in HBM
 * or SRAM, no completion tail; every one of the 64 internal queues runs;
 * what internal queues refuse (host CBs, completion tails, MSG_PROT,
 * LIN_DMA without a DMA engine, the external QMANs' message bases); the
 * HBM-DMA engines moving data; arbitration between the streams of a QMAN.
 */
#include <string.h>

#include "gsim_test.h"
#include "hw/gaudisim_hw_mme.h"

#define SOB		GAUDISIM_SYNC_FIRST_USER_SOB
#define HBM_P		(GAUDISIM_HBM_USER_BASE + 0x1000)
#define Q_DMA2		GAUDISIM_QUEUE_ID_DMA_2_0
#define Q_MME		GAUDISIM_QUEUE_ID_MME_0
#define Q_TPC3_2	(GAUDISIM_QUEUE_ID_TPC_0_0 + 4 * 3 + 2)

static uint32_t iq_sts(unsigned int q)
{
	return rd(QQ_REG(q, GAUDISIM_QM_CP_STS));
}

static uint32_t iq_ci(unsigned int q)
{
	return rd(QQ_REG(q, GAUDISIM_QM_PQ_CI));
}

static uint32_t iq_err(unsigned int q)
{
	return (iq_sts(q) & GAUDISIM_CP_STS_ERR_MASK) >> GAUDISIM_CP_STS_ERR_SHIFT;
}

/* SRAM has no host pointer in the API: load it through the external queue 0. */
static void to_sram(const struct cb *cb, uint64_t sram)
{
	struct cb load = cb_new(64);
	uint32_t slot;

	cb_lin_dma(&load, cb_dev(cb), sram, cb->len, 0);
	slot = job_submit(0, &load);
	run_all();
	ck_assert_uint_eq(cq_entry(0, slot), cq_ok(slot));
}

START_TEST(test_cb_in_hbm_and_sram)
{
	static const unsigned int queues[] = { Q_DMA2, Q_MME, Q_TPC3_2 };
	unsigned int i;

	q_setup(0, 3);
	for (i = 0; i < 3; i++) {
		unsigned int q = queues[i];
		uint64_t sram_cb = GAUDISIM_SRAM_BASE + 0x1000 + 0x100 * i;
		struct cb cb = cb_new(64);

		iq_setup(q, 2);
		cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P + 8 * i, 0x100 + q, 0);
		iq_submit(q, &cb);
		/* A second CB, from SRAM, writes the next word. */
		cb = cb_new(64);
		cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P + 8 * i + 4, 0x200 + q, 0);
		to_sram(&cb, sram_cb);
		ck_assert_uint_eq(iq_submit_bd(q, 0, cb.len, sram_cb), GSIM_KICK_RUN);
		run_all();
		ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 8 * i)), 0x100 + q);
		ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 8 * i + 4)), 0x200 + q);
		ck_assert_uint_eq(iq_ci(q), 2);
		ck_assert_uint_eq(iq_sts(q), 0);
	}
	/* Internal queues raise no interrupt of their own: 3 are the loads'. */
	ck_assert_uint_eq(T->msix_total, 3);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), 9);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_every_internal_queue)
{
	unsigned int q, n = 0;

	for (q = GAUDISIM_QUEUE_ID_DMA_2_0; q < GAUDISIM_QUEUE_ID_SIZE; q++) {
		struct cb cb = cb_new(64);

		if (gaudisim_queue_engine(q) < 0)
			continue;
		iq_setup(q, 1);
		cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P + 4 * q, 0xc0de0000 + q, 0);
		cb_sob_add(&cb, SOB, 1);
		iq_submit(q, &cb);
		n++;
	}
	ck_assert_uint_eq(n, 4 * (GAUDISIM_NUM_HBM_DMA + GAUDISIM_NUM_MME + GAUDISIM_NUM_TPC +
				  GAUDISIM_NUM_NIC));
	run_all();
	for (q = GAUDISIM_QUEUE_ID_DMA_2_0; q < GAUDISIM_QUEUE_ID_SIZE; q++) {
		if (gaudisim_queue_engine(q) < 0) {
			ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4 * q)), 0);
			continue;
		}
		ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4 * q)), 0xc0de0000 + q);
		ck_assert_uint_eq(iq_ci(q), 1);
		ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_PQ_PI)), 1);
	}
	ck_assert_uint_eq(sm_sob_rd(SOB), n);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), n);
	ck_assert_uint_eq(T->msix_total, 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* An internal-queue CB that fails with 'code'; the queue goes on afterwards. */
static void expect_iq_error(unsigned int q, struct cb *cb, unsigned int code)
{
	uint32_t ci = iq_ci(q), cnt = rd(QQ_REG(q, GAUDISIM_QM_CP_ERR_CNT));
	uint64_t addr = cb_to_hbm(cb);
	struct cb ok = cb_new(64);

	cb_msg(cb, GAUDISIM_PKT_MSG_LONG, HBM_P, 0xbad, 0);
	memcpy(hbm_ptr(addr), cb->p, cb->len);	/* with the marker */
	memset(hbm_ptr(HBM_P), 0, 4);
	ck_assert_uint_eq(iq_submit_bd(q, 0, cb->len, addr), GSIM_KICK_RUN);
	run_all();
	ck_assert_msg(iq_err(q) == code, "queue %u: error %u, expected %u; last error: %s",
		      q, iq_err(q), code, T->last_error);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 0);
	ck_assert_uint_eq(iq_ci(q), (ci + 1) % 8);
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_CP_ERR_CNT)), cnt + 1);
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_CP_ERR_ADDR_LO)), (uint32_t)addr);
	cb_msg(&ok, GAUDISIM_PKT_MSG_LONG, HBM_P + 4, 0x600d + q, 0);
	iq_submit(q, &ok);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4)), 0x600d + q);
}

START_TEST(test_internal_refusals)
{
	struct cb cb = cb_new(64);
	uint32_t pq = rd(GAUDISIM_REG_ERR_PQ_CNT), msix;

	iq_setup(Q_DMA2, 2);
	iq_setup(Q_MME, 2);
	iq_setup(Q_TPC3_2, 2);

	/* A CB in host memory: internal CPs only fetch from device memory. */
	cb_nop(&cb);
	iq_submit_bd(Q_DMA2, 0, cb.len, cb_dev(&cb));
	run_all();
	ck_assert_uint_eq(iq_err(Q_DMA2), GAUDISIM_CP_ERR_CB_FETCH);
	ck_assert_ptr_nonnull(strstr(T->last_error, "internal queue"));
	/* A completion tail: only external queues have one. */
	iq_submit_bd(Q_DMA2, GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len, cb_to_hbm(&cb));
	run_all();
	ck_assert_uint_eq(iq_err(Q_DMA2), GAUDISIM_CP_ERR_PQ_ENTRY);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PQ_CNT), pq + 2);
	ck_assert_uint_eq(iq_ci(Q_DMA2), 2);

	/* MSG_PROT is the driver's. */
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, HBM_P + 8, 1, 0);
	expect_iq_error(Q_TPC3_2, &cb, GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 8)), 0);
	/* LIN_DMA needs a DMA engine. */
	cb = cb_new(64);
	cb_memset(&cb, HBM_P + 8, 1, 4);
	expect_iq_error(Q_MME, &cb, GAUDISIM_CP_ERR_UNDEF_OPCODE);
	ck_assert_ptr_nonnull(strstr(T->last_error, "MME"));
	cb = cb_new(64);
	cb_memset(&cb, HBM_P + 8, 1, 4);
	expect_iq_error(Q_TPC3_2, &cb, GAUDISIM_CP_ERR_UNDEF_OPCODE);
	/* PQ registers stay the driver's, on internal QMANs too. */
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_PQ_SIZE(0), 3);
	expect_iq_error(Q_DMA2, &cb, GAUDISIM_CP_ERR_PRIV);
	/* An internal CB may set its own message bases... */
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_CP_MSG_BASE_LO(2, 0), (uint32_t)HBM_P);
	cb_msg_short(&cb, 2, 0x10, 0x4242, 0);
	iq_submit(Q_DMA2, &cb);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 0x10)), 0x4242);
	ck_assert_uint_eq(rd(QQ_REG(Q_DMA2, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_BUSY, 0);
	/* ...but not an external QMAN's. */
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG,
	       GAUDISIM_CFG_BASE + GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_CP_MSG_BASE_LO(0, 0), 0, 0);
	expect_iq_error(Q_DMA2, &cb, GAUDISIM_CP_ERR_PRIV);
	/* MSIX_REQ is the driver's: a user CB may not fake a completion or an event. */
	msix = T->msix_total;
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ,
	       GAUDISIM_MSIX_VEC_EQ, 0);
	expect_iq_error(Q_TPC3_2, &cb, GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(T->msix_total, msix);
	/* Nor through a monitor it arms: the payload is refused, the SOB write fails. */
	cb = cb_new(128);
	cb_mon_payload(&cb, 7, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, 0);
	cb_mon_arm(&cb, 7, GAUDISIM_SYNC_MON_ARM_SOB(7, 0, 1));
	cb_sob_set(&cb, 7, 1);
	expect_iq_error(Q_DMA2, &cb, GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(T->msix_total, msix);
	/* The user interrupts stay open to it. */
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + GAUDISIM_REG_USER_INTR,
	       GAUDISIM_MSIX_VEC_USER_FIRST, 0);
	iq_submit(Q_TPC3_2, &cb);
	run_all();
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_USER_FIRST], 1);
	ck_assert_uint_eq(T->msix_total, msix + 1);
}
END_TEST

START_TEST(test_hbm_dma_moves_data)
{
	const unsigned int q = GAUDISIM_QUEUE_ID_DMA_2_0 + 4 * 5 + 3;	/* DMA 7, stream 3 */
	const uint64_t a = GAUDISIM_HBM_USER_BASE + 0x400000, b = a + 0x100000;
	const uint64_t sram = GAUDISIM_SRAM_BASE + 0x8000;
	struct cb cb = cb_new(128);
	uint32_t i;

	for (i = 0; i < 8192; i++)
		hbm_ptr(a)[i] = (uint8_t)(i ^ (i >> 8));
	iq_setup(q, 2);
	cb_lin_dma(&cb, a, sram, 8192, 0);
	cb_lin_dma(&cb, sram, b, 8192, 0);
	cb_memset(&cb, b + 8192, 0x5a, 100);
	iq_submit(q, &cb);
	run_all();
	ck_assert_int_eq(memcmp(hbm_ptr(a), hbm_ptr(b), 8192), 0);
	ck_assert_uint_eq(hbm_ptr(b + 8192)[99], 0x5a);
	ck_assert_uint_eq(hbm_ptr(b + 8192)[100], 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 2 * 8192 + 100);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* A CB on the MME queue of n 2 x 2 x 2 GEMMs, each a synchronous job. */
static void submit_small_gemms(unsigned int n)
{
	struct cb cb = cb_new(1024);
	unsigned int i;

	for (i = 0; i < n; i++) {
		cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_LO, (uint32_t)HBM_P);
		cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_HI, (uint32_t)(HBM_P >> 32));
		cb_wreg32(&cb, GAUDISIM_MME_B_ADDR_LO, (uint32_t)HBM_P);
		cb_wreg32(&cb, GAUDISIM_MME_B_ADDR_HI, (uint32_t)(HBM_P >> 32));
		cb_wreg32(&cb, GAUDISIM_MME_D_ADDR_LO, (uint32_t)(HBM_P + 0x100 + 0x10 * i));
		cb_wreg32(&cb, GAUDISIM_MME_D_ADDR_HI, (uint32_t)(HBM_P >> 32));
		cb_wreg32(&cb, GAUDISIM_MME_M, 2);
		cb_wreg32(&cb, GAUDISIM_MME_N, 2);
		cb_wreg32(&cb, GAUDISIM_MME_K, 2);
		cb_wreg32(&cb, GAUDISIM_MME_BATCH, 1);
		cb_wreg32(&cb, GAUDISIM_MME_LDA, 2);
		cb_wreg32(&cb, GAUDISIM_MME_LDB, 2);
		cb_wreg32(&cb, GAUDISIM_MME_LDC, 2);
		cb_wreg32(&cb, GAUDISIM_MME_LDD, 2);
		cb_wreg32(&cb, GAUDISIM_MME_DTYPE,
			  GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32));
		cb_wreg32(&cb, GAUDISIM_MME_CTRL, 0);
		cb_wreg32(&cb, GAUDISIM_MME_ALPHA, 0x3f800000);	/* 1.0f */
		cb_wreg32(&cb, GAUDISIM_MME_BETA, 0);
		cb_wreg32(&cb, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
	}
	iq_submit(Q_MME, &cb);
}

/*
 * A run takes synchronous MME or TPC jobs until they have used its time
 * (the device clock), then returns to the host's main loop; the rest
 * follow in the next run. Six small GEMMs in one CB on the MME queue.
 */
START_TEST(test_run_ends_sync_jobs_on_time)
{
	const uint32_t launches = GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME) +
				  GAUDISIM_ENG_LAUNCH_CNT;
	unsigned int runs;

	iq_setup(Q_MME, 4);
	/* The clock stands still: all six in one run. */
	submit_small_gemms(6);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(rd(launches), 6);
	/* Every read of the clock a run's time later: one job a run. */
	T->clock_step = 500000;
	submit_small_gemms(6);
	for (runs = 1; gsim_core_run(T->core); runs++)
		ck_assert_uint_eq(rd(launches), 6 + (runs < 6 ? runs : 6));
	/* the seventh finishes the CB after the last GEMM */
	ck_assert_uint_eq(runs, 7);
	ck_assert_uint_eq(rd(launches), 12);
	/* No time for them (an inline run's budget of 0 ns): one job a run too. */
	T->clock_step = 0;
	submit_small_gemms(6);
	for (runs = 1; gsim_core_run_budget(T->core, 64u << 20, 4096, 0); runs++)
		ck_assert_uint_eq(rd(launches), 12 + (runs < 6 ? runs : 6));
	ck_assert_uint_eq(runs, 7);
	ck_assert_uint_eq(rd(launches), 18);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_arbitration)
{
	const unsigned int q0 = Q_DMA2, q1 = Q_DMA2 + 1;
	const uint32_t owner = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2) + GAUDISIM_QM_ARB_OWNER;
	struct cb hold = cb_new(128), other = cb_new(64);

	iq_setup(q0, 2);
	iq_setup(q1, 2);
	/* Stream 0 takes the arbiter, then waits on a fence while holding it. */
	cb_raw(&hold, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
	cb_msg(&hold, GAUDISIM_PKT_MSG_LONG, HBM_P, 1, 0);
	cb_fence(&hold, 0, 1, 1);
	cb_msg(&hold, GAUDISIM_PKT_MSG_LONG, HBM_P + 4, 2, 0);
	cb_raw(&hold, GAUDISIM_ARB_POINT_RLS, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
	cb_fence(&hold, 1, 1, 1);
	iq_submit(q0, &hold);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(rd(owner), GAUDISIM_QM_ARB_OWNER_HELD | 0);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 1);

	/* Stream 1 has work but may not run while stream 0 holds the arbiter. */
	cb_msg(&other, GAUDISIM_PKT_MSG_LONG, HBM_P + 8, 3, 0);
	ck_assert_uint_eq(iq_submit_bd(q1, 0, other.len, cb_to_hbm(&other)), 0);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 8)), 0);
	ck_assert_uint_eq(iq_ci(q1), 0);

	/* Stream 0 goes on, releases; stream 1 runs while stream 0 waits again. */
	wr(QQ_FENCE_REG(q0, GAUDISIM_QM_CP_FENCE_RDATA, 0), 1);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4)), 2);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 8)), 3);
	ck_assert_uint_eq(rd(owner), 0);
	ck_assert_uint_eq(iq_sts(q0), GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT);

	/* A holder whose CB ends without releasing gives the arbiter back. */
	hold = cb_new(64);
	cb_raw(&hold, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
	iq_submit(q1, &hold);
	other = cb_new(64);
	cb_msg(&other, GAUDISIM_PKT_MSG_LONG, HBM_P + 12, 4, 0);
	wr(QQ_FENCE_REG(q0, GAUDISIM_QM_CP_FENCE_RDATA, 1), 1);
	iq_submit(q0, &other);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 12)), 4);
	ck_assert_uint_eq(rd(owner), 0);
	ck_assert_uint_eq(iq_ci(q0), 2);
	ck_assert_uint_eq(iq_ci(q1), 2);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/*
 * Priority arbitration (ARB_CFG EN, TYPE 0): two streams released by one
 * fence write each take the arbiter at ARB_POINT (the vendor's
 * lock-unlock-lock idiom) and write HBM_P inside the held section. The
 * higher priority goes first, so the lower one's value is left: _i 0
 * gives stream 0 priority 2 and stream 1 priority 1, _i 1 the reverse.
 */
START_TEST(test_priority_arbitration)
{
	const unsigned int q[2] = { Q_DMA2, Q_DMA2 + 1 };
	const uint32_t prio[2][2] = { { 2, 1 }, { 1, 2 } };
	const uint32_t qm = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2);
	unsigned int i;

	wr(qm + GAUDISIM_QM_ARB_CFG, GAUDISIM_QM_ARB_CFG_EN);
	for (i = 0; i < 2; i++) {
		struct cb cb = cb_new(128);
		uint32_t p = prio[_i][i];

		iq_setup(q[i], 2);
		cb_fence(&cb, 0, 1, 1);
		cb_raw(&cb, p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
		cb_raw(&cb, p | GAUDISIM_ARB_POINT_RLS, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
		cb_raw(&cb, p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
		cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P, 0x100 + i, 0);
		cb_raw(&cb, p | GAUDISIM_ARB_POINT_RLS, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
		iq_submit(q[i], &cb);
	}
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(iq_sts(q[0]), GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT);
	ck_assert_uint_eq(iq_sts(q[1]), GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT);

	wr(QQ_FENCE_REG(q[0], GAUDISIM_QM_CP_FENCE_RDATA, 0), 1);
	wr(QQ_FENCE_REG(q[1], GAUDISIM_QM_CP_FENCE_RDATA, 0), 1);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), _i == 0 ? 0x101u : 0x100u);
	ck_assert_uint_eq(iq_ci(q[0]), 1);
	ck_assert_uint_eq(iq_ci(q[1]), 1);
	ck_assert_uint_eq(rd(qm + GAUDISIM_QM_ARB_OWNER), 0);
	ck_assert_uint_eq(T->errors, 0);

	/* Without EN the priority field is accepted and grants at once. */
	wr(qm + GAUDISIM_QM_ARB_CFG, 0);
	for (i = 0; i < 2; i++) {
		struct cb cb = cb_new(64);

		cb_raw(&cb, prio[_i][i], GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
		cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P, 0x200 + i, 0);
		cb_raw(&cb, GAUDISIM_ARB_POINT_RLS, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
		iq_submit(q[i], &cb);
	}
	run_all();
	ck_assert_uint_eq(iq_ci(q[0]), 2);
	ck_assert_uint_eq(iq_ci(q[1]), 2);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

Suite *iq_suite(void)
{
	Suite *s = suite_create("internal-queues");
	TCase *tc = tcase_create("internal-queues");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_cb_in_hbm_and_sram);
	tcase_add_test(tc, test_every_internal_queue);
	tcase_add_test(tc, test_internal_refusals);
	tcase_add_test(tc, test_hbm_dma_moves_data);
	tcase_add_test(tc, test_run_ends_sync_jobs_on_time);
	tcase_add_test(tc, test_arbitration);
	tcase_add_loop_test(tc, test_priority_arbitration, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
