/* SPDX-License-Identifier: MIT */
/*
 * Gaudi's addresses (hw/gaudisim_hw_gaudi_map.h): the decode of Gaudi's
 * QMAN and sync-manager blocks onto the register map, that no aliased
 * block overlaps a block of the compact map, and the device reaching
 * fences, SOBs and arbitration registers at Gaudi's addresses - the
 * vendor tests' idiom of a monitor payload to CP_FENCE0_RDATA releasing a
 * FENCE on another stream, on an external, an HBM-DMA and the MME queue.
 */
#include <string.h>

#include "gsim_test.h"
#include "hw/gaudisim_hw_gaudi_map.h"

#define SOB	GAUDISIM_SYNC_FIRST_USER_SOB
#define MON	GAUDISIM_SYNC_FIRST_USER_MON
#define GCFG(off)	(GAUDISIM_CFG_BASE + (off))

static unsigned int decoded(uint64_t off, uint64_t len)
{
	unsigned int reg = 0;

	ck_assert_int_eq(gaudisim_gaudi_cfg_decode(off, len, &reg), 1);
	return reg;
}

static void not_decoded(uint64_t off, uint64_t len)
{
	unsigned int reg = 0xdead;

	ck_assert_int_eq(gaudisim_gaudi_cfg_decode(off, len, &reg), 0);
	ck_assert_uint_eq(reg, 0xdead);
}

/* The addresses the vendor's Gaudi tests write, as Linux's gaudi headers give them. */
START_TEST(test_decode_vendor_addresses)
{
	ck_assert_uint_eq(decoded(0x508308, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_0) + GAUDISIM_QM_CP_FENCE_RDATA(0, 0));
	ck_assert_uint_eq(decoded(0x52830c, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_0 + 1) +
			  GAUDISIM_QM_CP_FENCE_RDATA(0, 1));
	ck_assert_uint_eq(decoded(0x548308, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2) + GAUDISIM_QM_CP_FENCE_RDATA(0, 0));
	/* DMA2's CP_FENCE0_RDATA_4: the lower CP's fence. */
	ck_assert_uint_eq(decoded(0x548318, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2) +
			  GAUDISIM_QM_CP_FENCE_RDATA(0, GAUDISIM_QM_LOWER_CP));
	ck_assert_uint_eq(decoded(0x168308, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME) + GAUDISIM_QM_CP_FENCE_RDATA(0, 0));
	ck_assert_uint_eq(decoded(0xe08308, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_TPC_0) + GAUDISIM_QM_CP_FENCE_RDATA(0, 0));
	ck_assert_uint_eq(decoded(0xfc8308 + 4 * 3, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_TPC_7) + GAUDISIM_QM_CP_FENCE_RDATA(0, 3));
	/* NIC0_QM0 (port 0), NIC0_QM1 (port 1), NIC4_QM1 (port 9). */
	ck_assert_uint_eq(decoded(0xce0308, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_NIC_0) + GAUDISIM_QM_CP_FENCE_RDATA(0, 0));
	ck_assert_uint_eq(decoded(0xce2308, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_NIC_0 + 1) +
			  GAUDISIM_QM_CP_FENCE_RDATA(0, 0));
	ck_assert_uint_eq(decoded(0xde20a0, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_NIC_9) + GAUDISIM_QM_PQ_PI(0));
	/* The two MME QMANs: MME2_QM is MME 0 (queues 33..36), MME0_QM MME 1 (37..40). */
	ck_assert_uint_eq(decoded(0x168308, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME) + GAUDISIM_QM_CP_FENCE_RDATA(0, 0));
	ck_assert_uint_eq(decoded(0x068308, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME_1) + GAUDISIM_QM_CP_FENCE_RDATA(0, 0));
	ck_assert_uint_eq(gaudisim_gaudi_fence_rdata(GAUDISIM_QUEUE_ID_MME_1 + 2, 1),
			  0x068000u + GAUDISIM_QM_CP_FENCE_RDATA(1, 2));
	ck_assert_int_eq(gaudisim_queue_engine(GAUDISIM_QUEUE_ID_MME_1 + 3), GAUDISIM_ENGINE_MME_1);
	ck_assert_uint_eq(gaudisim_engine_queue_id(GAUDISIM_ENGINE_MME_1, 3), 40);
	ck_assert_str_eq(gaudisim_engine_name(GAUDISIM_ENGINE_MME_1), "MME1");
	/* Fence 1..3 use Gaudi's five-CP stride: CP_FENCE1_RDATA_0 is at 0x31C. */
	ck_assert_uint_eq(decoded(0x50831c, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_0) + GAUDISIM_QM_CP_FENCE_RDATA(1, 0));
	ck_assert_uint_eq(GAUDISIM_QM_CP_FENCE_RDATA(3, 2), 0x34c);
	ck_assert_uint_eq(GAUDISIM_QM_CP_FENCE_CNT(2, 1), 0x384);
	ck_assert_uint_eq(GAUDISIM_QM_CP_MSG_BASE_LO(1, 0), 0x250);
	ck_assert_uint_eq(GAUDISIM_QM_CP_MSG_BASE_HI(3, 3), 0x2c0);
	/* DMA0_QM_ARB_CFG_0, ARB_WRR_WEIGHT_3 and ARB_MST_QUIET_PER. */
	ck_assert_uint_eq(decoded(0x508a00, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_0) + GAUDISIM_QM_ARB_CFG);
	ck_assert_uint_eq(decoded(0x508a14, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_0) + GAUDISIM_QM_ARB_WRR_WEIGHT(3));
	ck_assert_uint_eq(decoded(0x508b34, 4),
			  GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_0) + GAUDISIM_QM_ARB_MST_QUIET_PER);
	/* SOB_OBJ_0 of E_N, W_S, E_S, W_N and MON_ARM_511: the one modelled sync manager. */
	ck_assert_uint_eq(decoded(0x4f2000, 4), GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(0));
	ck_assert_uint_eq(decoded(0x492000, 4), GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(0));
	ck_assert_uint_eq(decoded(0x4b2000, 4), GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(0));
	ck_assert_uint_eq(decoded(0x4d2004, 4), GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(1));
	ck_assert_uint_eq(decoded(0x4f5800 + 4 * 511, 4),
			  GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_ARM(511));
}
END_TEST

START_TEST(test_decode_refuses_unmodelled)
{
	not_decoded(0x069308, 4);		/* past MME0_QM's registers */
	not_decoded(0x4a0000, 4);		/* between W_S and E_S */
	not_decoded(0x4f0000 + GAUDISIM_SYNC_RIGHTS_BASE, 4);	/* not the rights table */
	not_decoded(0x500000, 4);		/* DMA0 core registers */
	not_decoded(0xce4308, 4);		/* between NIC0_QM1 and NIC1_QM0 */
	not_decoded(0x509308, 4);		/* past DMA0_QM's registers */
	not_decoded(0xe09308, 4);		/* past TPC0_QM's registers */
	not_decoded(0x169308, 4);		/* past MME2_QM's registers */
	not_decoded(0x508000 + 8 * 0x20000 + 0x308, 4);	/* no DMA8 */
	not_decoded(0xce0000 + 5 * 0x40000 + 0x308, 4);	/* no NIC5 macro */
	not_decoded(0x508000 + GAUDISIM_GAUDI_QM_SIZE - 2, 4);	/* leaves the block */
	not_decoded(0x508308, 0);
	not_decoded(GAUDISIM_GAUDI_CFG_SIZE, 4);
	not_decoded(~0ull - 2, 4);
	/* Queue IDs that name no queue have no Gaudi fence either. */
	ck_assert_uint_eq(gaudisim_gaudi_qm_block(GAUDISIM_ENGINE_COUNT), 0);
	ck_assert_uint_eq(gaudisim_gaudi_fence_rdata(GAUDISIM_QUEUE_ID_SIZE, 0), 0);
	ck_assert_uint_eq(gaudisim_gaudi_fence_rdata(GAUDISIM_QUEUE_ID_CPU_PQ, 0), 0);
}
END_TEST

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* An offset inside the 4 MiB map names one register: no alias hides a block. */
START_TEST(test_aliases_clear_of_compact_map)
{
	const struct {
		uint64_t base, size;
	} compact[] = {
		{ 0, GAUDISIM_BLOCK_DBG_MEM + GAUDISIM_BLOCK_SIZE },
		{ GAUDISIM_BLOCK_SYNC_MNGR, GAUDISIM_BLOCK_SYNC_MNGR_SIZE },
		{ GAUDISIM_ENGINE_BLOCK_BASE,
		  (uint64_t)GAUDISIM_ENGINE_COUNT * GAUDISIM_ENGINE_BLOCK_SIZE },
	};
	const uint32_t sync[] = {
		GAUDISIM_GAUDI_SYNC_W_S, GAUDISIM_GAUDI_SYNC_E_S,
		GAUDISIM_GAUDI_SYNC_W_N, GAUDISIM_GAUDI_SYNC_E_N,
	};
	unsigned int e, i, checked = 0;

	ck_assert_uint_le(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_COUNT), GAUDISIM_CFG_BAR_SIZE);
	ck_assert_uint_le(GAUDISIM_QM_REGS_END, GAUDISIM_GAUDI_QM_SIZE);
	ck_assert_uint_le(GAUDISIM_QM_OFFSET + GAUDISIM_QM_REGS_END, GAUDISIM_ENGINE_BLOCK_SIZE);
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		uint32_t base = gaudisim_gaudi_qm_block(e);

		if (!base)
			continue;
		for (i = 0; i < sizeof(compact) / sizeof(compact[0]); i++)
			ck_assert_msg(!overlaps(base, GAUDISIM_GAUDI_QM_SIZE, compact[i].base,
						compact[i].size),
				      "Gaudi QMAN of engine %u at 0x%x hides a compact block", e, base);
		checked++;
	}
	ck_assert_uint_eq(checked, GAUDISIM_ENGINE_COUNT);	/* every engine */
	for (e = 0; e < sizeof(sync) / sizeof(sync[0]); e++)
		for (i = 0; i < sizeof(compact) / sizeof(compact[0]); i++)
			ck_assert(!overlaps(sync[e], GAUDISIM_GAUDI_SYNC_SIZE, compact[i].base,
					    compact[i].size));
}
END_TEST

/* Gaudi's fence address of every modelled queue lands on that queue's fence. */
START_TEST(test_fence_rdata_every_queue)
{
	unsigned int q, f, reg, n = 0;

	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++) {
		if (gaudisim_queue_engine(q) < 0)
			continue;
		for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++) {
			reg = decoded(gaudisim_gaudi_fence_rdata(q, f), 4);
			ck_assert_uint_eq(reg, QQ_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, f));
		}
		n++;
	}
	ck_assert_uint_eq(n, 8 + 24 + 8 + 32 + 40);
}
END_TEST

/*
 * The vendor idiom on an external queue: stream 0 arms a monitor whose
 * payload is DMA0's CP_FENCE0_RDATA_0 at Gaudi's address and waits on fence
 * 0; stream 1 signals the SOB and releases it.
 */
START_TEST(test_two_streams_fence_by_gaudi_address)
{
	const unsigned int qw = GAUDISIM_QUEUE_ID_DMA_0_0, qs = GAUDISIM_QUEUE_ID_DMA_0_0 + 1;
	struct cb wait = cb_new(256), sig = cb_new(64);
	uint32_t wslot, sslot;

	q_setup(qw, 2);
	q_setup(qs, 2);
	q_msg_bases(qw);
	q_msg_bases(qs);
	cb_sob_set(&wait, SOB, 0);
	cb_mon_payload(&wait, MON, GCFG(0x508308), 1);
	cb_mon_arm(&wait, MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	cb_fence(&wait, 0, 1, 1);
	cb_msg(&wait, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 0x600d, 0);
	wslot = job_submit(qw, &wait);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(qrd_sts(qw) & GAUDISIM_CP_STS_FENCE_WAIT, GAUDISIM_CP_STS_FENCE_WAIT);

	cb_sob_add(&sig, SOB, 1);
	sslot = job_submit(qs, &sig);
	run_all();
	ck_assert_uint_eq(cq_entry(qs, sslot), cq_ok(sslot));
	ck_assert_uint_eq(cq_entry(qw, wslot), cq_ok(wslot));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x600d);
	ck_assert_uint_eq(qrd_fence(qw, 0), 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* Internal queues (an HBM DMA, the MME) parked on fence 0, released by Gaudi's address. */
static void internal_released(unsigned int q, uint32_t gaudi_fence)
{
	struct cb cb = cb_new(128);

	iq_setup(q, 2);
	cb_fence(&cb, 0, 1, 1);
	iq_submit(q, &cb);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_PQ_CI)), 0);
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_FENCE_WAIT,
			  GAUDISIM_CP_STS_FENCE_WAIT);

	sm_mon_setup(MON, GCFG(gaudi_fence), 1);
	ck_assert_uint_eq(sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1)), 0);
	ck_assert_uint_eq(sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(1)), GSIM_KICK_RUN);
	run_all();
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_PQ_CI)), 1);
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_CP_STS)), 0);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON))),
			  GAUDISIM_SYNC_MON_STATUS_FIRED);
}

START_TEST(test_hbm_dma_fence_by_gaudi_address)
{
	internal_released(GAUDISIM_QUEUE_ID_DMA_2_0 + 2, 0x548308 + 4 * 2);
}
END_TEST

START_TEST(test_mme_fence_by_gaudi_address)
{
	internal_released(GAUDISIM_QUEUE_ID_MME_0 + 1, 0x168308 + 4);
}
END_TEST

/*
 * The vendor tests' common-CB idiom: a stream CP_DMAs a buffer (on Gaudi
 * run by the lower CP) that waits on fence 0; a payload to the QMAN's
 * CP_FENCE0_RDATA_4 (DMA2: 0x548318) releases it, the stream's own fence
 * does not.
 */
START_TEST(test_lower_cp_fence_by_gaudi_address)
{
	const unsigned int q = GAUDISIM_QUEUE_ID_DMA_2_0 + 1;
	const uint64_t sub_addr = T_HBM_CB_BASE + (8u << 20), mark = GAUDISIM_HBM_USER_BASE;
	struct cb sub = cb_new(64), cb = cb_new(64);

	cb_fence(&sub, 0, 1, 1);
	cb_msg(&sub, GAUDISIM_PKT_MSG_LONG, mark, 0x10c, 0);
	memcpy(hbm_ptr(sub_addr), sub.p, sub.len);
	cb_raw(&cb, sub.len, GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA));
	cb_raw64(&cb, sub_addr);
	iq_setup(q, 2);
	iq_submit(q, &cb);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_FENCE_WAIT,
			  GAUDISIM_CP_STS_FENCE_WAIT);

	sm_mon_setup(MON, GCFG(0x548308 + 4 * gaudisim_queue_stream(q)), 1);
	ck_assert_uint_eq(sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1)), 0);
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_ADD(1));
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(mark)), 0);

	sm_mon_setup(MON + 1, GCFG(0x548318), 1);
	ck_assert_uint_eq(sm_mon_arm(MON + 1, GAUDISIM_SYNC_MON_ARM_SOB(SOB + 8, 0, 1)), 0);
	ck_assert_uint_eq(sm_sob_wr(SOB + 8, GAUDISIM_SYNC_SOB_ADD(1)), GSIM_KICK_RUN);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(mark)), 0x10c);
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_PQ_CI)), 1);
	ck_assert_uint_eq(rd(QQ_REG(q, GAUDISIM_QM_CP_STS)), 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

/* MSG_LONG from a CB to Gaudi's ARB registers: stored and read back; reset clears them. */
START_TEST(test_arbitration_registers_stored)
{
	const unsigned int q = GAUDISIM_QUEUE_ID_DMA_0_0;
	uint32_t qm = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_0);
	struct cb cb = cb_new(256);
	uint32_t slot;
	unsigned int s;

	q_setup(q, 2);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GCFG(0x508a00),
	       GAUDISIM_QM_ARB_CFG_IS_MASTER | GAUDISIM_QM_ARB_CFG_EN, 0);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GCFG(0x508b34), 0x10, 0);
	for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++)
		cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GCFG(0x508a08 + 4 * s), s + 1, 0);
	slot = job_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(rd(qm + GAUDISIM_QM_ARB_CFG),
			  GAUDISIM_QM_ARB_CFG_IS_MASTER | GAUDISIM_QM_ARB_CFG_EN);
	ck_assert_uint_eq(rd(qm + GAUDISIM_QM_ARB_MST_QUIET_PER), 0x10);
	for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++)
		ck_assert_uint_eq(rd(qm + GAUDISIM_QM_ARB_WRR_WEIGHT(s)), s + 1);
	/* Not an ARB_POINT hold: the owner register is unchanged. */
	ck_assert_uint_eq(rd(qm + GAUDISIM_QM_ARB_OWNER), 0);

	wr(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_DMA_0) + GAUDISIM_ENG_SOFT_RESET,
	   GAUDISIM_ENG_SOFT_RESET_GO);
	run_all();
	ck_assert_uint_eq(rd(qm + GAUDISIM_QM_ARB_CFG), 0);
	ck_assert_uint_eq(rd(qm + GAUDISIM_QM_ARB_WRR_WEIGHT(2)), 0);
}
END_TEST

/*
 * The second MME QMAN (Gaudi's MME0_QM, queues 37..40) is a QMAN of its
 * own: a write to its fence at Gaudi's address lands on MME 1's fence, not
 * MME 0's, and a hole next to it still fails.
 */
START_TEST(test_second_mme_qman_has_its_fences)
{
	const unsigned int q = GAUDISIM_QUEUE_ID_DMA_1_0;
	struct cb cb = cb_new(64);
	uint32_t slot;

	q_setup(q, 2);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GCFG(GAUDISIM_GAUDI_MME0_QM + 0x308), 3, 0);
	slot = job_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME_1) +
			     GAUDISIM_QM_CP_FENCE_CNT(0, 0)), 3);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME) +
			     GAUDISIM_QM_CP_FENCE_CNT(0, 0)), 0);

	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GCFG(GAUDISIM_GAUDI_MME0_QM + 0x1308), 1, 0);
	slot = job_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_err(slot, GAUDISIM_CP_ERR_DMA_ADDR));
}
END_TEST

Suite *gaudi_map_suite(void)
{
	Suite *s = suite_create("gaudi-map");
	TCase *dec = tcase_create("decode");
	TCase *dev = tcase_create("device");

	tcase_add_test(dec, test_decode_vendor_addresses);
	tcase_add_test(dec, test_decode_refuses_unmodelled);
	tcase_add_test(dec, test_aliases_clear_of_compact_map);
	tcase_add_test(dec, test_fence_rdata_every_queue);
	suite_add_tcase(s, dec);

	tcase_add_checked_fixture(dev, th_setup, th_teardown);
	tcase_add_test(dev, test_two_streams_fence_by_gaudi_address);
	tcase_add_test(dev, test_hbm_dma_fence_by_gaudi_address);
	tcase_add_test(dev, test_mme_fence_by_gaudi_address);
	tcase_add_test(dev, test_lower_cp_fence_by_gaudi_address);
	tcase_add_test(dev, test_arbitration_registers_stored);
	tcase_add_test(dev, test_second_mme_qman_has_its_fences);
	suite_add_tcase(s, dev);
	return s;
}
