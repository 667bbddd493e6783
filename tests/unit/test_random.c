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
	unsigned int jobs, clean, failed, skipped;
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
		/* Only a fence may hold a job back. */
		ck_assert_msg(qrd_sts(q) & GAUDISIM_CP_STS_FENCE_WAIT,
			      "job %u on queue %u neither completed nor waits (CP_STS 0x%x)",
			      t->jobs, q, qrd_sts(q));
		ck_assert_uint_lt(round, 64);
		for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++)
			wr(QM_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, f), 255);
	}
	entry = cq_entry(q, slot);
	code = (entry & GAUDISIM_CQ_ENTRY_ERR_CODE_MASK) >> GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT;
	if (entry & GAUDISIM_CQ_ENTRY_ERROR) {
		ck_assert_uint_eq(entry, cq_err(slot, code));
		ck_assert_uint_ge(code, GAUDISIM_CP_ERR_UNDEF_OPCODE);
		ck_assert_uint_le(code, GAUDISIM_CP_ERR_PRIV);
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

Suite *random_suite(void)
{
	Suite *s = suite_create("random");
	TCase *tc = tcase_create("random");

	tcase_add_checked_fixture(tc, rnd_setup, th_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_random_bytes);
	tcase_add_test(tc, test_random_packets);
	suite_add_tcase(s, tc);
	return s;
}
