// SPDX-License-Identifier: MIT
/*
 * The sync manager and QMAN fences at Gaudi's addresses, as Gaudi software
 * (the vendor's tests among it) names them: CFG_BASE + Gaudi's offset of a
 * QMAN's CP_FENCE0_RDATA, of a sync object in the E_N manager, of a QMAN's
 * arbitration registers (include/hw/gaudisim_hw_gaudi_map.h).
 *
 * - Two streams of one external QMAN in one CS: stream 0 arms a monitor
 *   whose payload is DMA0's CP_FENCE0_RDATA_0 at Gaudi's address and waits
 *   on fence 0; stream 1 signals the SOB. The CS completes.
 * - Both MME QMANs: a monitor payload at Gaudi's MME2_QM or MME0_QM
 *   address raises its fence, and a CB parked on it runs.
 * - The common-CB idiom: an HBM-DMA stream CP_DMAs a buffer that waits on
 *   fence 0 of Gaudi's lower CP; a payload to DMA2's CP_FENCE0_RDATA_4
 *   releases it.
 * - A chain through Gaudi's E_N SOB address: one monitor's payload adds to
 *   a SOB named by its E_N address, which fires a second monitor that
 *   releases the stream.
 * - Message bases 2 and 3 (Gaudi's W_S manager) name the same monitors
 *   and SOBs as 0 and 1.
 * - MSG_LONG to DMA0_QM_ARB_CFG_0, its weights and quiet period: accepted.
 * - Every other register at a Gaudi address (a doorbell, an MME's core
 *   registers, a SOB: MSG_SHORT is the way to SOBs) is refused at submit
 *   with EPERM.
 */
#include <errno.h>
#include <string.h>

#include "common.h"
#include "hw/gaudisim_hw_gaudi_map.h"
#include "hw/gaudisim_hw_sync.h"

#define QUEUE_W		GAUDISIM_QUEUE_ID_DMA_0_0	/* waits */
#define QUEUE_S		(GAUDISIM_QUEUE_ID_DMA_0_0 + 1)	/* signals */
#define GAUDI(off)	(GAUDISIM_CFG_BASE + (off))
/* Gaudi's DMA0_QM_CP_FENCE0_RDATA_0, as the vendor's tests write it. */
#define DMA0_FENCE0_0	GAUDI(0x508308)

static struct gaudisim_info_sync_manager sm;

static void sync_setup(void)
{
	compute_setup();
	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm)),
			 0);
}

static uint32_t sob(uint32_t i)
{
	return sm.first_available_sync_object + i;
}

static uint32_t mon(uint32_t i)
{
	return sm.first_available_monitor + i;
}

/* Program monitor m's payload (addr, data) and arm it on SOB s >= 1. */
static void cbw_monitor(struct hlthunk_cb_writer *w, uint32_t m, uint32_t s, uint64_t addr,
			uint32_t data)
{
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRL(m), (uint32_t)addr);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRH(m), (uint32_t)(addr >> 32));
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_DATA(m), data);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_ARM(m), GAUDISIM_SYNC_MON_ARM_SOB(s, 0, 1));
}

static void submit_both_ok(struct test_cb *w, struct test_cb *s)
{
	struct gaudisim_cs_chunk chunks[2] = {
		make_chunk(w->handle, QUEUE_W, w->w.used),
		make_chunk(s->handle, QUEUE_S, s->w.used),
	};
	uint64_t seq;

	ck_assert_int_eq(submit_chunks(chunks, 2, 60, &seq), 0);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
}

START_TEST(two_streams_fence_by_gaudi_address)
{
	struct test_cb w, s;

	cb_create_ok(dev_fd, &w, 4096);
	cb_create_ok(dev_fd, &s, 4096);
	cbw_sob(&w.w, sob(0), GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor(&w.w, mon(0), sob(0), DMA0_FENCE0_0, 1);
	ck_assert_int_eq(hlthunk_cbw_fence(&w.w, 0, 1, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&w.w, 0), 0);
	cbw_sob(&s.w, sob(0), GAUDISIM_SYNC_SOB_ADD(1), 0);
	submit_both_ok(&w, &s);
	cb_destroy_ok(dev_fd, &w);
	cb_destroy_ok(dev_fd, &s);
}
END_TEST

/*
 * Message bases 2 and 3 (where Gaudi's driver points the W_S manager's
 * monitors and SOBs) reach the same objects as 0 and 1: the waiter arms
 * its monitor through base 2, the signaller adds through base 3.
 */
START_TEST(w_s_message_bases)
{
	const uint32_t arm = GAUDISIM_SYNC_MON_ARM(mon(0)) - GAUDISIM_SYNC_MON_BASE_OFFSET;
	const uint32_t pay = GAUDISIM_SYNC_MON_PAY_ADDRL(mon(0)) - GAUDISIM_SYNC_MON_BASE_OFFSET;
	const uint32_t payh = GAUDISIM_SYNC_MON_PAY_ADDRH(mon(0)) - GAUDISIM_SYNC_MON_BASE_OFFSET;
	const uint32_t data = GAUDISIM_SYNC_MON_PAY_DATA(mon(0)) - GAUDISIM_SYNC_MON_BASE_OFFSET;
	struct test_cb w, s;

	cb_create_ok(dev_fd, &w, 4096);
	cb_create_ok(dev_fd, &s, 4096);
	cbw_msg_short(&w.w, 3, 4 * sob(0), GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_msg_short(&w.w, 2, pay, (uint32_t)DMA0_FENCE0_0, 0);
	cbw_msg_short(&w.w, 2, payh, (uint32_t)(DMA0_FENCE0_0 >> 32), 0);
	cbw_msg_short(&w.w, 2, data, 1, 0);
	cbw_msg_short(&w.w, 2, arm, GAUDISIM_SYNC_MON_ARM_SOB(sob(0), 0, 1), 0);
	ck_assert_int_eq(hlthunk_cbw_fence(&w.w, 0, 1, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&w.w, 0), 0);
	cbw_msg_short(&s.w, 3, 4 * sob(0), GAUDISIM_SYNC_SOB_ADD(1), 0);
	submit_both_ok(&w, &s);
	cb_destroy_ok(dev_fd, &w);
	cb_destroy_ok(dev_fd, &s);
}
END_TEST

/*
 * Each MME QMAN by its Gaudi address (_i 0: MME2_QM, queues 33..36; _i 1:
 * MME0_QM, queues 37..40): the payload raises the stream's fence 0 before
 * its CB runs.
 */
START_TEST(mme_fence_by_gaudi_address)
{
	static const uint32_t gaudi_fence[] = { 0x168308, 0x068308 };
	const uint32_t queue = GAUDISIM_QUEUE_ID_MME_0 + 4 * (uint32_t)_i;
	struct hlthunk_cb_writer iw;
	struct test_cb cb;
	struct hbm_buf hbm;
	uint8_t icb[64];
	uint32_t status;

	ck_assert_uint_eq(gaudisim_gaudi_fence_rdata(queue, 0), gaudi_fence[_i]);
	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, sob(1), GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor(&cb.w, mon(1), sob(1), GAUDI(gaudi_fence[_i]), 1);
	cbw_sob(&cb.w, sob(1), GAUDISIM_SYNC_SOB_ADD(1), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_W, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);

	hbm_alloc_ok(dev_fd, &hbm, MiB);
	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_fence(&iw, 0, 1, 1, 0), 0);
	ck_assert_int_eq(run_internal_cb(&iw, hbm.addr, queue, QUEUE_W, sob(2), mon(2),
					 &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

START_TEST(lower_cp_fence_by_gaudi_address)
{
	const uint32_t queue = GAUDISIM_QUEUE_ID_DMA_2_0;
	struct gaudisim_packet_cp_dma cp_dma;
	struct hlthunk_cb_writer iw, sw;
	struct test_cb cb;
	struct hbm_buf hbm;
	uint8_t icb[64], sub[64];
	uint32_t status;

	/* The common buffer in HBM: one FENCE on the lower CP's fence 0. */
	hbm_alloc_ok(dev_fd, &hbm, MiB);
	hlthunk_cbw_init(&sw, sub, sizeof(sub));
	ck_assert_int_eq(hlthunk_cbw_fence(&sw, 0, 1, 1, 0), 0);
	put_in_hbm_ok(sub, sw.used, hbm.addr + 0x1000);
	cp_dma.tsize = htole32(sw.used);
	cp_dma.ctl = htole32(GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA));
	cp_dma.src = htole64(hbm.addr + 0x1000);

	cb_create_ok(dev_fd, &cb, 4096);
	cbw_sob(&cb.w, sob(5), GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor(&cb.w, mon(5), sob(5), GAUDI(0x548318), 1);
	cbw_sob(&cb.w, sob(5), GAUDISIM_SYNC_SOB_ADD(1), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_W, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_packet(&iw, &cp_dma, sizeof(cp_dma)), 0);
	ck_assert_int_eq(run_internal_cb(&iw, hbm.addr, queue, QUEUE_W, sob(6), mon(6), &status),
			 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

START_TEST(sob_chain_by_gaudi_e_n_address)
{
	uint64_t sob_b = GAUDI(GAUDISIM_GAUDI_SYNC_E_N + GAUDISIM_SYNC_SOB_OBJ(sob(4)));
	struct test_cb w, s;

	cb_create_ok(dev_fd, &w, 4096);
	cb_create_ok(dev_fd, &s, 4096);
	cbw_sob(&w.w, sob(3), GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_sob(&w.w, sob(4), GAUDISIM_SYNC_SOB_SET(0), 0);
	/* SOB 3 reaching 1 adds 1 to SOB 4 (by Gaudi's E_N address), which opens fence 0. */
	cbw_monitor(&w.w, mon(4), sob(4), DMA0_FENCE0_0, 1);
	cbw_monitor(&w.w, mon(3), sob(3), sob_b, GAUDISIM_SYNC_SOB_ADD(1));
	ck_assert_int_eq(hlthunk_cbw_fence(&w.w, 0, 1, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&w.w, 0), 0);
	cbw_sob(&s.w, sob(3), GAUDISIM_SYNC_SOB_ADD(1), 0);
	submit_both_ok(&w, &s);
	cb_destroy_ok(dev_fd, &w);
	cb_destroy_ok(dev_fd, &s);
}
END_TEST

START_TEST(arbitration_by_gaudi_address)
{
	struct test_cb cb;
	unsigned int i;

	cb_create_ok(dev_fd, &cb, 4096);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, GAUDI(0x508a00),
					      GAUDISIM_QM_ARB_CFG_IS_MASTER | GAUDISIM_QM_ARB_CFG_EN,
					      0), 0);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, GAUDI(0x508b34), 0x10, 0), 0);
	for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++)
		ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, GAUDI(0x508a08 + 4 * i), i + 1, 0),
				 0);
	run_cb_ok(dev_fd, &cb, QUEUE_W, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

START_TEST(other_registers_refused_at_submit)
{
	static const uint32_t refused[] = {
		0x5080a0,					/* DMA0_QM_PQ_PI_0 */
		0x060000,					/* MME0 core (Gaudi's MME descriptors) */
		GAUDISIM_GAUDI_SYNC_E_S + 0x2000,		/* a reserved SOB */
		0x508000,					/* DMA0_QM_GLBL_CFG0 */
		0x500000,					/* DMA0 core */
	};
	struct test_cb cb;
	unsigned int i;

	cb_create_ok(dev_fd, &cb, 4096);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cb_reset(&cb);
		ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, GAUDI(refused[i]), 1, 0), 0);
		ck_assert_msg(submit_cb(dev_fd, &cb, QUEUE_W, WAIT_US_SHORT) == -EPERM,
			      "MSG_LONG to CFG_BASE + 0x%x accepted", refused[i]);
	}
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sync");
	TCase *tc = fixture_tcase("gaudi-addresses", sync_setup, compute_teardown,
				  TCASE_TIMEOUT_DMA);

	tcase_add_test(tc, two_streams_fence_by_gaudi_address);
	tcase_add_test(tc, w_s_message_bases);
	tcase_add_loop_test(tc, mme_fence_by_gaudi_address, 0, 2);
	tcase_add_test(tc, lower_cp_fence_by_gaudi_address);
	tcase_add_test(tc, sob_chain_by_gaudi_e_n_address);
	tcase_add_test(tc, arbitration_by_gaudi_address);
	tcase_add_test(tc, other_registers_refused_at_submit);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
