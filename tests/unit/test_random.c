/* SPDX-License-Identifier: MIT */
/*
 * Randomized robustness (seeded, deterministic): thousands of CBs of random
 * bytes, of random-but-plausible packets, and garbage PQ entries. Every job
 * must end in a clean or an error completion with its interrupt, the queue
 * must stay consistent, and the error counters must match the error
 * completions seen.
 */
#include <string.h>

#include "gsim_test.h"

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static uint32_t rnd_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(rnd(r) % n);
}

struct tally {
	unsigned int jobs, clean, failed, skipped, stops;
	unsigned int msix[GAUDISIM_NUM_EXT_QUEUES];
};

static void rnd_setup(void)
{
	unsigned int q;

	th_setup();
	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		q_setup(q, 4);
}

/* Submit a job, run it to the end (feeding fences), check its completion. */
static void run_random_job(unsigned int q, struct cb *cb, struct tally *t)
{
	uint32_t slot = job_submit(q, cb);
	uint32_t entry, code;
	unsigned int round, f;

	for (round = 0;; round++) {
		run_all();
		if (cq_entry(q, slot) & GAUDISIM_CQ_ENTRY_READY)
			break;
		ck_assert_uint_lt(round, 64);
		/* A STOP halts the stream until the driver enables it again. */
		if (qrd_sts(q) & GAUDISIM_CP_STS_STOPPED) {
			uint32_t cfg0 = GAUDISIM_QM_BLOCK(q / GAUDISIM_STREAMS_PER_QMAN) +
					GAUDISIM_QM_GLBL_CFG0;

			wr(cfg0, rd(cfg0) | 1u << (q % GAUDISIM_STREAMS_PER_QMAN));
			t->stops++;
			continue;
		}
		/* Otherwise only a fence may hold a job back. */
		ck_assert_msg(qrd_sts(q) & GAUDISIM_CP_STS_FENCE_WAIT,
			      "job %u on queue %u neither completed nor waits (CP_STS 0x%x)",
			      t->jobs, q, qrd_sts(q));
		for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++)
			wr(QM_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, f), 255);
	}
	entry = cq_entry(q, slot);
	code = (entry & GAUDISIM_CQ_ENTRY_ERR_CODE_MASK) >> GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT;
	if (entry & GAUDISIM_CQ_ENTRY_ERROR) {
		ck_assert_uint_eq(entry, cq_err(slot, code));
		ck_assert_uint_ge(code, GAUDISIM_CP_ERR_UNDEF_OPCODE);
		ck_assert_uint_le(code, GAUDISIM_CP_ERR_MMU_FAULT);
		ck_assert_uint_ne(code, GAUDISIM_CP_ERR_CB_FETCH);
		ck_assert_uint_ne(code, GAUDISIM_CP_ERR_PQ_ENTRY);
		t->failed++;
	} else {
		ck_assert_uint_eq(entry, cq_ok(slot));
		t->clean++;
	}
	t->jobs++;
	t->msix[q]++;
	ck_assert_uint_eq(T->msix[q], t->msix[q]);
	ck_assert_uint_eq(qrd_ci(q), qrd_pi(q));
	ck_assert_uint_eq(qrd_sts(q) & (GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT), 0);
}

static void check_totals(const struct tally *t)
{
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), t->jobs);
	/* One body error per error completion; skipped entries count apart. */
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT) + rd(GAUDISIM_REG_ERR_DMA_CNT), t->failed);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PQ_CNT), t->skipped);
}

START_TEST(test_random_bytes)
{
	struct rng r = { 0x9e3779b97f4a7c15ull };
	struct tally t = { 0 };
	unsigned int i;

	for (i = 0; i < 3000; i++) {
		unsigned int q = i % GAUDISIM_NUM_EXT_QUEUES;
		uint32_t words = 1 + rnd_below(&r, 32);
		struct cb cb;
		uint32_t w;

		if (i % 11 == 10) {
			/* A garbage PQ entry: the CB pointer is beyond every region. */
			uint32_t pi = qrd_pi(q), before = rd(GAUDISIM_REG_ERR_PQ_CNT);

			q_submit_bd(q, (uint32_t)rnd(&r), (uint32_t)rnd(&r),
				    rnd(&r) | 1ull << 62);
			run_all();
			ck_assert_uint_eq(qrd_ci(q), qrd_pi(q));
			ck_assert_uint_ne(qrd_pi(q), pi);
			ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PQ_CNT), before + 1);
			t.skipped++;
			continue;
		}
		cb = cb_new(words * 8 + GAUDISIM_CB_COMPLETION_TAIL_SIZE);
		for (w = 0; w < words; w++)
			cb_raw64(&cb, rnd(&r));
		run_random_job(q, &cb, &t);
	}
	check_totals(&t);
	/* Random bytes fail almost always (a lone NOP is the rare success). */
	ck_assert_uint_gt(t.failed, 2000);
	ck_assert_uint_gt(t.clean, 0);
}
END_TEST

/* A device address that is often valid and sometimes not. */
static uint64_t rnd_addr(struct rng *r, unsigned int q, uint32_t size)
{
	switch (rnd_below(r, 8)) {
	case 0:
	case 1:
		return GAUDISIM_HBM_USER_BASE + rnd_below(r, 64u << 20);
	case 2:
		return GAUDISIM_SRAM_BASE + rnd_below(r, GAUDISIM_SRAM_SIZE);
	case 3:
	case 4:
		return host_dev(T_DATA_OFF + rnd_below(r, 1u << 20));
	case 5:
		/* This stream's own fence: lets MSGs release FENCEs. */
		return GAUDISIM_CFG_BASE +
		       QM_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, rnd_below(r, 4));
	case 6:
		/* Ends of regions, give or take. */
		return T_HBM_SIZE - size + rnd_below(r, 16) - 8;
	default:
		return rnd(r);
	}
}

static void rnd_packet(struct rng *r, unsigned int q, struct cb *cb)
{
	uint32_t size = rnd_below(r, 4) ? rnd_below(r, 65536) : (uint32_t)rnd(r);
	uint32_t flip = rnd_below(r, 16) ? 0 : 1u << rnd_below(r, 32);

	switch (rnd_below(r, 7)) {
	case 0:
		cb_raw(cb, (uint32_t)rnd(r), GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) ^ flip);
		break;
	case 1:
		cb_raw(cb, size, (GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_LIN_DMA_CTL_LIN |
				  (rnd_below(r, 3) ? 0 : GAUDISIM_LIN_DMA_CTL_MEMSET)) ^ flip);
		cb_raw64(cb, rnd_addr(r, q, size));
		cb_raw64(cb, rnd_addr(r, q, size));
		break;
	case 2:
	case 3:
		cb_raw(cb, rnd_below(r, 3),
		       (GAUDISIM_PKT_CTL(rnd_below(r, 2) ? GAUDISIM_PKT_MSG_LONG : GAUDISIM_PKT_MSG_PROT) |
			(rnd_below(r, 4) ? 0 : 1u << GAUDISIM_MSG_CTL_OP_SHIFT)) ^ flip);
		cb_raw64(cb, rnd_addr(r, q, 8) & ~(rnd_below(r, 8) ? 3ull : 0));
		break;
	case 4:
		cb_raw(cb, (rnd_below(r, 4) << GAUDISIM_FENCE_ID_SHIFT |
			    rnd_below(r, 4) << GAUDISIM_FENCE_TARGET_SHIFT |
			    rnd_below(r, 16) << GAUDISIM_FENCE_DEC_VAL_SHIFT) ^ flip,
		       GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE));
		break;
	case 5:
		cb_raw(cb, rnd_below(r, 4),
		       (GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) |
			(rnd_below(r, 2) ? GAUDISIM_QM_OFFSET +
			 GAUDISIM_QM_CP_FENCE_RDATA(rnd_below(r, 4), q % 4) :
			 rnd_below(r, 0x10000))) ^ flip);
		break;
	default:
		cb_raw(cb, 0, GAUDISIM_PKT_CTL(rnd_below(r, 32)));
		break;
	}
}

START_TEST(test_random_packets)
{
	struct rng r = { 0x0123456789abcdefull };
	struct tally t = { 0 };
	unsigned int i;

	for (i = 0; i < 3000; i++) {
		unsigned int q = (i * 5) % GAUDISIM_NUM_EXT_QUEUES;
		unsigned int n = 1 + rnd_below(&r, 12);
		struct cb cb = cb_new(n * 24 + GAUDISIM_CB_COMPLETION_TAIL_SIZE);

		while (n--)
			rnd_packet(&r, q, &cb);
		run_random_job(q, &cb, &t);
	}
	check_totals(&t);
	/* Plausible packets succeed often enough to exercise the real paths. */
	ck_assert_uint_gt(t.clean, 300);
	ck_assert_uint_gt(t.failed, 300);
	ck_assert_uint_gt(rd(GAUDISIM_REG_DMA_BYTES_LO), 1u << 20);
}
END_TEST

/* ---- internal queues ---------------------------------------------------- */

#define RND_SUB		(GAUDISIM_HBM_USER_BASE + (80u << 20))	/* CP_DMA'd buffers */

/* Addresses for the internal-queue packets: device memory, sync, fences, junk. */
static uint64_t rnd_int_addr(struct rng *r, unsigned int q, uint32_t size)
{
	switch (rnd_below(r, 9)) {
	case 0:
	case 1:
		return GAUDISIM_HBM_USER_BASE + rnd_below(r, 64u << 20);
	case 2:
		return GAUDISIM_SRAM_BASE + rnd_below(r, GAUDISIM_SRAM_SIZE);
	case 3:
		return host_dev(T_DATA_OFF + rnd_below(r, 1u << 20));
	case 4:
		return FENCE_ADDR(q, rnd_below(r, 4));
	case 5:
		return SYNC_ADDR(GAUDISIM_SYNC_SOB_OBJ(rnd_below(r, 64)));
	case 6:
		return SYNC_ADDR(GAUDISIM_SYNC_MON_PAY_ADDRL(0) + 4 * rnd_below(r, 0x2000 / 4));
	case 7:
		return T_HBM_SIZE - size + rnd_below(r, 16) - 8;
	default:
		return rnd(r);
	}
}

static void rnd_int_packet(struct rng *r, unsigned int q, struct cb *cb)
{
	uint32_t flip = rnd_below(r, 16) ? 0 : 1u << rnd_below(r, 32);
	uint32_t size = rnd_below(r, 4) ? rnd_below(r, 4096) : (uint32_t)rnd(r);
	/* Registers a job may touch without launching an engine: QMAN and common. */
	uint32_t reg = rnd_below(r, 2) ? GAUDISIM_QM_OFFSET + 4 * rnd_below(r, 0x1000 / 4)
				       : GAUDISIM_ENG_COMMON_BASE + 4 * rnd_below(r, 0x40 / 4);
	bool dma = gaudisim_queue_engine(q) <= GAUDISIM_ENGINE_DMA_7;

	switch (rnd_below(r, 13)) {
	case 0:
		cb_raw(cb, rnd_below(r, 3), (GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG) |
			(rnd_below(r, 4) ? 0 : 1u << GAUDISIM_MSG_CTL_OP_SHIFT)) ^ flip);
		cb_raw64(cb, rnd_int_addr(r, q, 8) & ~(rnd_below(r, 8) ? 3ull : 0));
		break;
	case 1:
		cb_msg_short(cb, rnd_below(r, 4), 4 * rnd_below(r, 0x1000),
			     rnd_below(r, 2) ? GAUDISIM_SYNC_SOB_ADD(1) : (uint32_t)rnd(r), flip);
		break;
	case 2:
		cb_mon_payload(cb, rnd_below(r, 16), rnd_int_addr(r, q, 4), rnd_below(r, 3));
		cb_mon_arm(cb, rnd_below(r, 16),
			   GAUDISIM_SYNC_MON_ARM_SOB(rnd_below(r, 64), rnd_below(r, 2),
						    rnd_below(r, 3)));
		break;
	case 3:
		cb_fence(cb, rnd_below(r, 4), rnd_below(r, 3), rnd_below(r, 4));
		break;
	case 4:
		cb_raw(cb, rnd_below(r, 8), (GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | reg) ^ flip);
		break;
	case 5:
		cb_raw(cb, 1, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_BULK) | reg);
		cb_raw64(cb, rnd(r) & 0x0000000700000007ull);
		break;
	case 6:
		cb_raw(cb, (rnd_below(r, 2) ? GAUDISIM_REPEAT_SORE_END : 0) |
		       (rnd_below(r, 2) ? GAUDISIM_REPEAT_OUTER : 0) |
		       rnd_below(r, 4) << GAUDISIM_REPEAT_COUNT_SHIFT,
		       GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT) ^ flip);
		break;
	case 7:
		cb_raw(cb, 8 * rnd_below(r, 16), GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA) ^ flip);
		cb_raw64(cb, rnd_below(r, 4) ? RND_SUB + 8 * rnd_below(r, 512) : rnd(r));
		break;
	case 8:
		cb_raw(cb, rnd_below(r, 4) << GAUDISIM_WAIT_INC_VAL_SHIFT |
		       rnd_below(r, 4) << GAUDISIM_WAIT_ID_SHIFT, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WAIT));
		break;
	case 9:
		cb_raw(cb, rnd_below(r, 2) ? GAUDISIM_ARB_POINT_RLS : 0,
		       GAUDISIM_PKT_CTL(rnd_below(r, 8) ? GAUDISIM_PKT_ARB_POINT : GAUDISIM_PKT_STOP));
		break;
	case 10:
		/* Predicates or scalars; exe (of what the scalars hold) on DMA queues. */
		cb_raw(cb, GAUDISIM_LOAD_AND_EXE_LOAD |
		       (rnd_below(r, 2) ? GAUDISIM_LOAD_AND_EXE_DST : 0) |
		       (dma && rnd_below(r, 2) ? GAUDISIM_LOAD_AND_EXE_EXE : 0),
		       GAUDISIM_PKT_CTL(GAUDISIM_PKT_LOAD_AND_EXE) | rnd_below(r, 4));
		cb_raw64(cb, rnd_below(r, 4) ? RND_SUB + 8 * rnd_below(r, 512) : rnd(r));
		break;
	case 11:
		cb_raw(cb, size, (GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_LIN_DMA_CTL_LIN |
				  (rnd_below(r, 3) ? 0 : GAUDISIM_LIN_DMA_CTL_MEMSET) |
				  (rnd_below(r, 4) ? 0 : GAUDISIM_LIN_DMA_CTL_WR_COMP_EN)) ^ flip);
		cb_raw64(cb, rnd_int_addr(r, q, size));
		cb_raw64(cb, rnd_int_addr(r, q, size));
		break;
	default:
		cb_raw(cb, (uint32_t)rnd(r), GAUDISIM_PKT_CTL(rnd_below(r, 32)));
		break;
	}
}

/* Run internal queue q until its CB is done, acting as the driver would. */
static void run_internal_job(unsigned int q)
{
	unsigned int round, f;

	for (round = 0;; round++) {
		uint32_t sts;

		run_all();
		sts = rd(QQ_REG(q, GAUDISIM_QM_CP_STS));
		if (!(sts & GAUDISIM_CP_STS_BUSY) &&
		    rd(QQ_REG(q, GAUDISIM_QM_PQ_CI)) == rd(QQ_REG(q, GAUDISIM_QM_PQ_PI)))
			return;
		ck_assert_msg(round < 64, "queue %u never finished (CP_STS 0x%x)", q, sts);
		if (sts & GAUDISIM_CP_STS_STOPPED) {
			uint32_t cfg0 = GAUDISIM_QM_BLOCK(gaudisim_queue_engine(q)) +
					GAUDISIM_QM_GLBL_CFG0;

			wr(cfg0, rd(cfg0) | 1u << gaudisim_queue_stream(q));
			continue;
		}
		ck_assert_msg(sts & GAUDISIM_CP_STS_FENCE_WAIT,
			      "queue %u neither done nor waiting (CP_STS 0x%x)", q, sts);
		/* The stream's fences, and the lower CP's for a CP_DMA'd buffer. */
		for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++) {
			wr(QQ_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, f), 255);
			wr(GAUDISIM_QM_BLOCK(gaudisim_queue_engine(q)) +
			   GAUDISIM_QM_CP_FENCE_RDATA(f, GAUDISIM_QM_LOWER_CP), 255);
		}
	}
}

START_TEST(test_random_internal_queues)
{
	struct rng r = { 0x2545f4914f6cdd1dull };
	unsigned int i, q, jobs = 0;

	th_eq_setup(10);
	for (q = GAUDISIM_QUEUE_ID_DMA_2_0; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		if (gaudisim_queue_engine(q) >= 0)
			iq_setup(q, 4);
	/* Buffers for CP_DMA and LOAD_AND_EXE: half packets, half noise. */
	for (i = 0; i < 4096 / 8; i++) {
		struct cb junk = cb_new(32);

		rnd_int_packet(&r, GAUDISIM_QUEUE_ID_DMA_2_0, &junk);
		memcpy(hbm_ptr(RND_SUB + 8 * i), rnd_below(&r, 2) ? junk.p : (uint8_t *)&r.s, 8);
	}
	for (i = 0; i < 2500; i++) {
		unsigned int n = 1 + rnd_below(&r, 12);
		struct cb cb = cb_new(n * 40 + 8);

		q = GAUDISIM_QUEUE_ID_DMA_2_0 + rnd_below(&r, GAUDISIM_QUEUE_ID_SIZE -
							   GAUDISIM_QUEUE_ID_DMA_2_0);
		if (gaudisim_queue_engine(q) < 0)
			continue;
		if (i % 3 == 0) {
			while (n--)
				cb_raw64(&cb, rnd(&r));
		} else {
			while (n--)
				rnd_int_packet(&r, q, &cb);
		}
		if (i % 97 == 0)	/* a garbage PQ entry now and then */
			iq_submit_bd(q, (uint32_t)rnd(&r), (uint32_t)rnd(&r), rnd(&r));
		else
			iq_submit(q, &cb);
		run_internal_job(q);
		jobs++;
		/* The driver keeps up with the event queue. */
		wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CI, rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI));
	}
	ck_assert_uint_gt(jobs, 2000);
	ck_assert_uint_gt(rd(GAUDISIM_REG_ERR_PKT_CNT), 500);
	ck_assert_uint_gt(rd(GAUDISIM_REG_CB_DONE_CNT), 2000);
	/* Afterwards every internal queue still runs a clean CB. */
	for (q = GAUDISIM_QUEUE_ID_DMA_2_0; q < GAUDISIM_QUEUE_ID_SIZE; q++) {
		struct cb cb = cb_new(64);

		if (gaudisim_queue_engine(q) < 0)
			continue;
		/* Undo whatever the jobs did to the arbiter and the message bases. */
		q_msg_bases(q);
		cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_HBM_USER_BASE + (96u << 20) + 4 * q,
		       q, 0);
		iq_submit_bd(q, 0, cb.len, cb_to_hbm(&cb));
		run_internal_job(q);
		ck_assert_uint_eq(dev_rd32(hbm_ptr(GAUDISIM_HBM_USER_BASE + (96u << 20) + 4 * q)), q);
	}
}
END_TEST

Suite *random_suite(void)
{
	Suite *s = suite_create("random");
	TCase *tc = tcase_create("random");

	tcase_add_checked_fixture(tc, rnd_setup, th_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_random_bytes);
	tcase_add_test(tc, test_random_packets);
	suite_add_tcase(s, tc);

	tc = tcase_create("random-internal");
	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_internal_queues);
	suite_add_tcase(s, tc);
	return s;
}
