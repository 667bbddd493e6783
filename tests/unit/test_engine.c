/* SPDX-License-Identifier: MIT */
/*
 * The engine interface, with a stand-in engine model plugged into TPC 7's
 * slot: launch by COMMIT from a CB (at once) and over MMIO (by the run
 * loop), COMMIT run by LOAD_AND_EXE from the scalars, the completion message and what follows it
 * through the sync manager, engine errors and their events, asynchronous
 * completion with the engine barrier parking the stream, engine soft reset
 * (QMAN and engine back to reset values, work in flight dropped, late
 * completions into the void) and hard reset epochs.
 */
#include <string.h>

#include "gsim_core_internal.h"
#include "gsim_test.h"

#define E		GAUDISIM_ENGINE_TPC_7
#define QE0		(GAUDISIM_QUEUE_ID_TPC_0_0 + 4 * 7)	/* TPC 7 stream 0 */
#define BLK		GAUDISIM_ENGINE_BLOCK(E)
#define SOB		GAUDISIM_SYNC_FIRST_USER_SOB
#define MON		GAUDISIM_SYNC_FIRST_USER_MON
#define HBM_OUT		(GAUDISIM_HBM_USER_BASE + 0x2000)
#define HBM_P		(GAUDISIM_HBM_USER_BASE + 0x1000)

/* The stand-in engine: VALUE is written to HBM_OUT + 4 * n by launch n. */
#define F_VALUE		0x000
#define F_COMMIT	0x004
#define F_MODE		0x008
enum { F_SYNC_OK, F_SYNC_ERR, F_ASYNC, F_TIMEOUT };

static struct {
	uint32_t value, mode, launches;
	bool busy;
	uint32_t epoch;
	unsigned int resets;
} F;

static const struct gsim_engine_ops *saved_ops;

static bool f_read(struct gsim_core *core, unsigned int e, uint32_t off, uint32_t *v)
{
	(void)core;
	(void)e;
	if (off == F_VALUE)
		*v = F.value;
	else if (off == F_MODE)
		*v = F.mode;
	else
		return false;
	return true;
}

static enum gsim_reg_status f_write(struct gsim_core *core, unsigned int e, uint32_t off,
				    uint32_t v, enum gsim_reg_origin origin, bool *launch)
{
	(void)core;
	(void)e;
	(void)origin;
	switch (off) {
	case F_VALUE:
		F.value = v;
		return GSIM_REG_OK;
	case F_MODE:
		F.mode = v;
		return GSIM_REG_OK;
	case F_COMMIT:
		if (v != 1)
			return GSIM_REG_BAD_VALUE;
		*launch = true;
		return GSIM_REG_OK;
	default:
		return GSIM_REG_UNKNOWN;
	}
}

static int f_launch(struct gsim_core *core, unsigned int e)
{
	memcpy(gsim_core_hbm(core) + HBM_OUT + 4 * F.launches, &F.value, 4);
	F.launches++;
	switch (F.mode) {
	case F_SYNC_OK:
		return 0;
	case F_SYNC_ERR:
		return 7;
	case F_ASYNC:
		F.busy = true;
		F.epoch = gsim_engine_epoch(core, e);
		return GSIM_ENGINE_ASYNC;
	default:
		gsim_eq_post(core, GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT, e, GAUDISIM_EQ_NONE, 9, 0);
		return 9 | GSIM_ENGINE_ERR_POSTED;
	}
}

static bool f_busy(const struct gsim_core *core, unsigned int e)
{
	(void)core;
	(void)e;
	return F.busy;
}

static void f_reset(struct gsim_core *core, unsigned int e)
{
	(void)core;
	(void)e;
	F.value = 0;
	F.mode = 0;
	F.busy = false;
	F.resets++;
}

static const struct gsim_engine_ops fake_ops = {
	.name = "stand-in",
	.reset = f_reset,
	.reg_read = f_read,
	.reg_write = f_write,
	.launch = f_launch,
	.busy = f_busy,
};

static void eng_setup(void)
{
	th_setup();
	memset(&F, 0, sizeof(F));
	saved_ops = T->core->engine[E].ops;
	T->core->engine[E].ops = &fake_ops;
	iq_setup(QE0, 3);
	th_eq_setup(5);
}

static void eng_teardown(void)
{
	T->core->engine[E].ops = saved_ops;
	th_teardown();
}

static uint32_t out(unsigned int n)
{
	return dev_rd32(hbm_ptr(HBM_OUT + 4 * n));
}

/* The engine signals SOB on every launch. */
static void cb_completion_to_sob(struct cb *cb, unsigned int sob)
{
	uint64_t a = SYNC_ADDR(GAUDISIM_SYNC_SOB_OBJ(sob));

	cb_wreg32(cb, GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)a);
	cb_wreg32(cb, GAUDISIM_ENG_WR_COMP_ADDR_HI, (uint32_t)(a >> 32));
	cb_wreg32(cb, GAUDISIM_ENG_WR_COMP_WDATA, GAUDISIM_SYNC_SOB_ADD(1));
	cb_wreg32(cb, GAUDISIM_ENG_WR_COMP_EN, 1);
}

START_TEST(test_launch_from_cb)
{
	struct cb cb = cb_new(256);

	cb_completion_to_sob(&cb, SOB);
	cb_wreg32(&cb, F_VALUE, 0x55);
	cb_wreg32(&cb, F_COMMIT, 1);
	/* The next packet sees the launch finished: it ran inside COMMIT. */
	cb_wreg32(&cb, F_VALUE, 0x66);
	cb_raw(&cb, 1, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | GAUDISIM_PKT_CTL_EB | F_COMMIT);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_uint_eq(F.launches, 2);
	ck_assert_uint_eq(out(0), 0x55);
	ck_assert_uint_eq(out(1), 0x66);
	ck_assert_uint_eq(sm_sob_rd(SOB), 2);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_LAUNCH_CNT), 2);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_STATUS), 0);
	ck_assert_uint_eq(rd(BLK + F_VALUE), 0x66);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_WR_COMP_EN), 1);
	ck_assert_uint_eq(T->errors, 0);
	ck_assert_uint_eq(th_eq_count(), 0);
}
END_TEST

START_TEST(test_launch_chain_through_sync)
{
	/* The engine's completion releases a FENCE on an external queue. */
	struct cb cb = cb_new(256), waiter = cb_new(128);
	uint32_t slot;

	q_setup(3, 2);
	sm_mon_setup(MON, FENCE_ADDR(3, 0), 1);
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	cb_fence(&waiter, 0, 1, 1);
	cb_lin_dma(&waiter, HBM_OUT, host_dev(T_DATA_OFF), 4, 0);
	slot = job_submit(3, &waiter);
	ck_assert(!gsim_core_run(T->core));
	cb_completion_to_sob(&cb, SOB);
	cb_wreg32(&cb, F_VALUE, 0x1234);
	cb_wreg32(&cb, F_COMMIT, 1);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(3, slot), cq_ok(slot));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x1234);
}
END_TEST

START_TEST(test_launch_errors)
{
	struct cb cb = cb_new(256);
	struct gaudisim_eq_entry ev;
	int i;

	cb_completion_to_sob(&cb, SOB);
	cb_wreg32(&cb, F_MODE, F_SYNC_ERR);
	cb_wreg32(&cb, F_COMMIT, 1);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_STATUS),
			  GAUDISIM_ENG_STATUS_ERR | 7u << GAUDISIM_ENG_STATUS_ERR_SHIFT);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_ERR_CNT), 1);
	/* The completion message is written anyway, so chains do not hang. */
	ck_assert_uint_eq(sm_sob_rd(SOB), 1);
	i = th_eq_find(0, GAUDISIM_EQ_EVENT_ENGINE_ERR);
	ck_assert_int_ge(i, 0);
	ev = th_eq_entry((unsigned int)i);
	ck_assert_uint_eq(ev.engine, E);
	ck_assert_uint_eq(ev.queue, QE0);
	ck_assert_uint_eq(ev.code, 7);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 1);

	/* An engine that posted its own event (timeout) gets no ENGINE_ERR on top. */
	cb = cb_new(64);
	cb_wreg32(&cb, F_MODE, F_TIMEOUT);
	cb_wreg32(&cb, F_COMMIT, 1);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_uint_eq(th_eq_count(), 2);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(th_eq_entry(1).ctl), GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_STATUS) >> GAUDISIM_ENG_STATUS_ERR_SHIFT, 9);
	/* A good launch clears the error status. */
	cb = cb_new(64);
	cb_wreg32(&cb, F_MODE, F_SYNC_OK);
	cb_wreg32(&cb, F_COMMIT, 1);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_STATUS), 0);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_ERR_CNT), 2);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_LAUNCH_CNT), 3);
	/* A completion message to nowhere is reported. */
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_ADDR_HI, 0x7fff);
	cb_wreg32(&cb, F_COMMIT, 1);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_int_eq(th_eq_find(2, GAUDISIM_EQ_EVENT_DMA_ERR), 2);
	ck_assert_ptr_nonnull(strstr(T->last_error, "completion message"));
}
END_TEST

START_TEST(test_mmio_commit_and_load_and_exe)
{
	/* Scalars: WREG_32 VALUE = 0x77 (RF0-1), WREG_32 COMMIT = 1 (RF2-3). */
	const uint32_t scalars[4] = { 0x77, gaudisim_wreg32_ctl(F_VALUE, 0),
				      1, gaudisim_wreg32_ctl(F_COMMIT, 0) };
	struct cb cb = cb_new(64);

	/* Over MMIO, COMMIT only latches; the run loop launches. */
	wr(BLK + F_VALUE, 0x99);
	ck_assert_uint_eq(wr(BLK + F_COMMIT, 1), GSIM_KICK_RUN);
	ck_assert_uint_eq(F.launches, 0);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_STATUS), GAUDISIM_ENG_STATUS_BUSY);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(F.launches, 1);
	ck_assert_uint_eq(out(0), 0x99);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_STATUS), 0);

	/* LOAD_AND_EXE: load the scalars, run the lower RFs, then the upper (the launch). */
	memcpy(hbm_ptr(HBM_P), scalars, sizeof(scalars));
	cb_raw(&cb, GAUDISIM_LOAD_AND_EXE_LOAD | GAUDISIM_LOAD_AND_EXE_DST |
	       GAUDISIM_LOAD_AND_EXE_EXE, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LOAD_AND_EXE));
	cb_raw64(&cb, HBM_P);
	cb_raw(&cb, GAUDISIM_LOAD_AND_EXE_EXE | GAUDISIM_LOAD_AND_EXE_ETYPE,
	       GAUDISIM_PKT_CTL(GAUDISIM_PKT_LOAD_AND_EXE));
	cb_raw64(&cb, 0);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_uint_eq(F.launches, 2);
	ck_assert_uint_eq(out(1), 0x77);
	/* Registers the engine refuses fail the packet. */
	cb = cb_new(64);
	cb_wreg32(&cb, F_COMMIT, 2);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_uint_eq((rd(QQ_REG(QE0, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_ERR_MASK) >>
			  GAUDISIM_CP_STS_ERR_SHIFT, GAUDISIM_CP_ERR_PKT_FIELD);
	ck_assert_uint_eq(F.launches, 2);
	/* Common registers: read-only ones, WR_COMP_EN's single bit. */
	wr(BLK + GAUDISIM_ENG_LAUNCH_CNT, 5);
	wr(BLK + GAUDISIM_ENG_WR_COMP_EN, 2);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_LAUNCH_CNT), 2);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_WR_COMP_EN), 0);
}
END_TEST

START_TEST(test_async_engine_barrier)
{
	struct cb cb = cb_new(256);
	unsigned int kick;

	cb_completion_to_sob(&cb, SOB);
	cb_wreg32(&cb, F_MODE, F_ASYNC);
	cb_wreg32(&cb, F_VALUE, 1);
	cb_wreg32(&cb, F_COMMIT, 1);
	/* Without EB: runs while the engine works. */
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P, 0xa, 0);
	/* With EB: waits for the engine. */
	cb_raw(&cb, 0xb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG) | GAUDISIM_PKT_CTL_EB);
	cb_raw64(&cb, HBM_P + 4);
	iq_submit(QE0, &cb);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(F.launches, 1);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 0xa);
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4)), 0);
	ck_assert_uint_eq(rd(QQ_REG(QE0, GAUDISIM_QM_CP_STS)),
			  GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_ENGINE_WAIT);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_STATUS), GAUDISIM_ENG_STATUS_BUSY);
	ck_assert_uint_eq(sm_sob_rd(SOB), 0);

	/* A stale epoch is ignored; the right one completes the launch. */
	ck_assert_uint_eq(gsim_engine_done(T->core, E, F.epoch + 1, 0), 0);
	F.busy = false;
	kick = gsim_engine_done(T->core, E, F.epoch, 0);
	ck_assert_uint_eq(kick, GSIM_KICK_RUN);
	ck_assert_uint_eq(sm_sob_rd(SOB), 1);
	/* Twice is once. */
	ck_assert_uint_eq(gsim_engine_done(T->core, E, F.epoch, 0), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB), 1);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4)), 0xb);
	ck_assert_uint_eq(rd(QQ_REG(QE0, GAUDISIM_QM_CP_STS)), 0);
	ck_assert_uint_eq(gsim_engine_done(T->core, GAUDISIM_ENGINE_COUNT, 0, 0), 0);
}
END_TEST

START_TEST(test_soft_reset_drops_work)
{
	struct cb cb = cb_new(256), other = cb_new(64);
	const unsigned int qd = GAUDISIM_QUEUE_ID_DMA_2_0;
	uint32_t resets;
	int i;

	/* An asynchronous launch in flight, and a CB parked on a fence behind it. */
	cb_completion_to_sob(&cb, SOB);
	cb_wreg32(&cb, F_MODE, F_ASYNC);
	cb_wreg32(&cb, F_COMMIT, 1);
	cb_fence(&cb, 0, 1, 1);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, HBM_P, 0xdead, 0);
	iq_submit(QE0, &cb);
	wr(QQ_FENCE_REG(QE0 + 1, GAUDISIM_QM_CP_FENCE_RDATA, 2), 5);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(F.launches, 1);
	resets = F.resets;

	/* A CB may not reset an engine; a bad value is refused. */
	iq_setup(qd, 2);
	cb_wreg32(&other, GAUDISIM_ENG_SOFT_RESET, GAUDISIM_ENG_SOFT_RESET_GO);
	iq_submit(qd, &other);
	run_all();
	ck_assert_uint_eq((rd(QQ_REG(qd, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_ERR_MASK) >>
			  GAUDISIM_CP_STS_ERR_SHIFT, GAUDISIM_CP_ERR_PRIV);
	wr(BLK + GAUDISIM_ENG_SOFT_RESET, 2);
	ck_assert_uint_eq(F.resets, resets);

	ck_assert_uint_eq(wr(BLK + GAUDISIM_ENG_SOFT_RESET, GAUDISIM_ENG_SOFT_RESET_GO), 0);
	ck_assert_uint_eq(F.resets, resets + 1);
	/* QMAN and engine registers are back to reset values. */
	ck_assert_uint_eq(rd(QQ_REG(QE0, GAUDISIM_QM_PQ_SIZE)), 0);
	ck_assert_uint_eq(rd(QQ_REG(QE0, GAUDISIM_QM_PQ_PI)), 0);
	ck_assert_uint_eq(rd(QQ_REG(QE0, GAUDISIM_QM_CP_STS)), 0);
	ck_assert_uint_eq(rd(QQ_FENCE_REG(QE0 + 1, GAUDISIM_QM_CP_FENCE_CNT, 2)), 0);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(E) + GAUDISIM_QM_GLBL_CFG0), 0);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(E) + GAUDISIM_QM_CP_MSG_BASE_LO(1, 0)), 0);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_WR_COMP_EN), 0);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_LAUNCH_CNT), 0);
	ck_assert_uint_eq(rd(BLK + GAUDISIM_ENG_STATUS), 0);
	/* The late completion of the dropped launch goes nowhere. */
	ck_assert_uint_eq(gsim_engine_done(T->core, E, F.epoch, 0), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB), 0);
	wr(QQ_FENCE_REG(QE0, GAUDISIM_QM_CP_FENCE_RDATA, 0), 1);
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P)), 0);
	/* RESET_DONE tells the driver. */
	i = th_eq_find(0, GAUDISIM_EQ_EVENT_RESET_DONE);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(th_eq_entry((unsigned int)i).engine, E);

	/* The other engines never noticed; the reset engine works once programmed. */
	other = cb_new(64);
	cb_msg(&other, GAUDISIM_PKT_MSG_LONG, HBM_P + 4, 1, 0);
	iq_submit(qd, &other);
	run_all();
	ck_assert_uint_eq(dev_rd32(hbm_ptr(HBM_P + 4)), 1);
	iq_setup(QE0, 3);
	cb = cb_new(64);
	cb_wreg32(&cb, F_VALUE, 0x42);
	cb_wreg32(&cb, F_COMMIT, 1);
	iq_submit(QE0, &cb);
	run_all();
	ck_assert_uint_eq(out(1), 0x42);
}
END_TEST

START_TEST(test_soft_reset_external_queue)
{
	struct cb parked = cb_new(64), next = cb_new(64), other = cb_new(64);
	uint32_t pslot, nslot, oslot;

	q_setup(1, 2);
	q_setup(5, 2);
	cb_fence(&parked, 0, 1, 1);
	pslot = job_submit(1, &parked);
	ck_assert(!gsim_core_run(T->core));
	wr(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_DMA_0) + GAUDISIM_ENG_SOFT_RESET,
	   GAUDISIM_ENG_SOFT_RESET_GO);
	wr(QM_FENCE_REG(1, GAUDISIM_QM_CP_FENCE_RDATA, 0), 1);
	ck_assert(!gsim_core_run(T->core));
	/* No completion and no interrupt for the dropped job. */
	ck_assert_uint_eq(cq_entry(1, pslot), 0);
	ck_assert_uint_eq(T->msix[1], 0);
	/* DMA 1's queues still work; DMA 0's after the driver programs them again. */
	cb_nop(&other);
	oslot = job_submit(5, &other);
	run_all();
	ck_assert_uint_eq(cq_entry(5, oslot), cq_ok(oslot));
	q_setup(1, 2);
	T->cq_pi[1] = 0;
	cb_nop(&next);
	nslot = job_submit(1, &next);
	run_all();
	ck_assert_uint_eq(cq_entry(1, nslot), cq_ok(nslot));
	ck_assert_uint_eq(T->msix[1], 1);
}
END_TEST

START_TEST(test_hard_reset_epoch)
{
	struct cb cb = cb_new(128);
	uint32_t epoch;

	cb_completion_to_sob(&cb, SOB);
	cb_wreg32(&cb, F_MODE, F_ASYNC);
	cb_wreg32(&cb, F_COMMIT, 1);
	iq_submit(QE0, &cb);
	ck_assert(!gsim_core_run(T->core));
	epoch = F.epoch;
	gsim_core_reset(T->core);
	ck_assert(!F.busy);
	ck_assert_uint_ne(gsim_engine_epoch(T->core, E), epoch);
	ck_assert_uint_eq(gsim_engine_done(T->core, E, epoch, 0), 0);
	ck_assert_uint_eq(sm_sob_rd(SOB), 0);
	ck_assert_uint_eq(T->msix_total, 0);
}
END_TEST

Suite *engine_suite(void)
{
	Suite *s = suite_create("engines");
	TCase *tc = tcase_create("engines");

	tcase_add_checked_fixture(tc, eng_setup, eng_teardown);
	tcase_add_test(tc, test_launch_from_cb);
	tcase_add_test(tc, test_launch_chain_through_sync);
	tcase_add_test(tc, test_launch_errors);
	tcase_add_test(tc, test_mmio_commit_and_load_and_exe);
	tcase_add_test(tc, test_async_engine_barrier);
	tcase_add_test(tc, test_soft_reset_drops_work);
	tcase_add_test(tc, test_soft_reset_external_queue);
	tcase_add_test(tc, test_hard_reset_epoch);
	suite_add_tcase(s, tc);
	return s;
}
