/* SPDX-License-Identifier: MIT */
/*
 * Malformed input: undefined and refused opcodes, overruns, bad fields,
 * DMA outside memory, host faults, registers a CB may not write, bad PQ
 * entries and unreadable CBs. Each error must be reported with the right
 * code (error completion, CP_STS, counters) and the stream must keep
 * working for the next job.
 */
#include <stdio.h>
#include <string.h>

#include "gsim_test.h"

#define MARK_OFF	(T_DATA_OFF + 0x100000)	/* written after the bad packet */
#define FAULT_OFF	(T_DATA_OFF + 0x200000)	/* the fake IOMMU refuses this page */

static void err_setup(void)
{
	unsigned int q;

	th_setup();
	T->fault_lo = host_bus(FAULT_OFF);
	T->fault_hi = host_bus(FAULT_OFF + 4096);
	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		q_setup(q, 3);
}

static uint32_t cp_err_code(unsigned int q)
{
	return (qrd_sts(q) & GAUDISIM_CP_STS_ERR_MASK) >> GAUDISIM_CP_STS_ERR_SHIFT;
}

static uint64_t cp_err_addr(unsigned int q)
{
	return rd(QM_REG(q, GAUDISIM_QM_CP_ERR_ADDR_LO)) |
	       (uint64_t)rd(QM_REG(q, GAUDISIM_QM_CP_ERR_ADDR_HI)) << 32;
}

static void clean_job_works(unsigned int q)
{
	struct cb cb = cb_new(64);
	uint32_t slot;

	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 0x0c0ffee0 + q, 0);
	slot = job_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_ok(slot));
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x0c0ffee0 + q);
}

/*
 * Submit a job whose body fails with 'code' and check the error completion.
 * With 'marker', a write that must never run is appended to the body first.
 */
static void expect_error_m(unsigned int q, struct cb *cb, unsigned int code,
			   uint32_t cnt_reg, bool marker)
{
	uint32_t cnt = rd(cnt_reg), err_cnt = rd(QM_REG(q, GAUDISIM_QM_CP_ERR_CNT));
	uint32_t done = rd(GAUDISIM_REG_CB_DONE_CNT);
	unsigned int msix = T->msix[q], errors = T->errors;
	uint32_t slot;

	memset(host_ptr(MARK_OFF), 0, 4);
	if (marker)
		cb_msg(cb, GAUDISIM_PKT_MSG_LONG, host_dev(MARK_OFF), 0xbad, 0);
	slot = job_submit(q, cb);
	run_all();

	ck_assert_msg(cq_entry(q, slot) == cq_err(slot, code),
		      "CQ entry 0x%08x, expected 0x%08x (error %u); last error: %s",
		      cq_entry(q, slot), cq_err(slot, code), code, T->last_error);
	ck_assert_uint_eq(host_rd32(MARK_OFF), 0);
	ck_assert_uint_eq(T->msix[q], msix + 1);
	ck_assert_uint_eq(rd(cnt_reg), cnt + 1);
	ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_CP_ERR_CNT)), err_cnt + 1);
	ck_assert_uint_eq(cp_err_code(q), code);
	ck_assert_uint_eq(cp_err_addr(q), cb_dev(cb));
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), done + 1);
	ck_assert_uint_gt(T->errors, errors);
	ck_assert_uint_eq(qrd_ci(q), qrd_pi(q));
	ck_assert_uint_eq(qrd_sts(q) & (GAUDISIM_CP_STS_BUSY | GAUDISIM_CP_STS_FENCE_WAIT), 0);
	clean_job_works(q);
}

static void expect_pkt_error_m(unsigned int q, struct cb *cb, unsigned int code, bool marker)
{
	uint32_t reg = GAUDISIM_REG_ERR_PKT_CNT;

	if (code == GAUDISIM_CP_ERR_DMA_ADDR || code == GAUDISIM_CP_ERR_HOST_FAULT)
		reg = GAUDISIM_REG_ERR_DMA_CNT;
	expect_error_m(q, cb, code, reg, marker);
}

static void expect_pkt_error(unsigned int q, struct cb *cb, unsigned int code)
{
	expect_pkt_error_m(q, cb, code, true);
}

static void one_raw(unsigned int q, uint32_t dw0, uint32_t ctl, unsigned int code)
{
	struct cb cb = cb_new(128);

	cb_nop(&cb);
	cb_raw(&cb, dw0, ctl);
	cb_raw64(&cb, 0);	/* room for a 16/24-byte packet */
	cb_raw64(&cb, 0);
	expect_pkt_error(q, &cb, code);
}

START_TEST(test_undefined_opcodes)
{
	static const unsigned int ops[] = { 0x0, 0xE, 0x10, 0x15, 0x1F };
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		one_raw(i % 8, 0, GAUDISIM_PKT_CTL(ops[i]), GAUDISIM_CP_ERR_UNDEF_OPCODE);
	ck_assert_ptr_nonnull(strstr(T->last_error, "queue 4"));
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 5);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_DMA_CNT), 0);
}
END_TEST

START_TEST(test_refused_opcodes)
{
	/* External queues run the packet set except CP_DMA; these are malformed. */
	static const struct { uint32_t dw0; unsigned int op, code; } cases[] = {
		{ 0, GAUDISIM_PKT_MSG_SHORT, GAUDISIM_CP_ERR_PKT_FIELD },	/* no base */
		{ 0, GAUDISIM_PKT_REPEAT, GAUDISIM_CP_ERR_PKT_FIELD },	/* count 0 */
		/* exe of the scalars, empty at the start of every CB */
		{ GAUDISIM_LOAD_AND_EXE_EXE, GAUDISIM_PKT_LOAD_AND_EXE, GAUDISIM_CP_ERR_UNDEF_OPCODE },
		{ 1u << 30, GAUDISIM_PKT_WAIT, GAUDISIM_CP_ERR_PKT_FIELD },
		{ 1u << 16, GAUDISIM_PKT_WREG_BULK, GAUDISIM_CP_ERR_PKT_FIELD },
		{ 8, GAUDISIM_PKT_CP_DMA, GAUDISIM_CP_ERR_PRIV },	/* internal only */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		one_raw(3, cases[i].dw0, GAUDISIM_PKT_CTL(cases[i].op), cases[i].code);
}
END_TEST

START_TEST(test_error_message_is_precise)
{
	struct cb cb = cb_new(64);
	char cbaddr[32];

	cb_nop(&cb);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(0x1d));
	job_submit(6, &cb);
	run_all();
	snprintf(cbaddr, sizeof(cbaddr), "%llx", (unsigned long long)cb_dev(&cb));
	/* queue, CB address, offset, opcode and cause, in one message. */
	ck_assert_uint_eq(T->errors, 1);
	ck_assert_ptr_nonnull(strstr(T->last_error, "queue 6"));
	ck_assert_ptr_nonnull(strstr(T->last_error, cbaddr));
	ck_assert_ptr_nonnull(strstr(T->last_error, "offset 0x8"));
	ck_assert_ptr_nonnull(strstr(T->last_error, "0x1d"));
	ck_assert_ptr_nonnull(strstr(T->last_error, "undefined"));
}
END_TEST

START_TEST(test_overrun)
{
	struct cb cb = cb_new(64);
	uint32_t pi;

	/* A 24-byte LIN_DMA at offset 8 of a 24-byte body runs into the tail. */
	cb_nop(&cb);
	cb_raw(&cb, 16, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_LIN_DMA_CTL_LIN);
	cb_raw64(&cb, host_dev(T_DATA_OFF));
	expect_pkt_error_m(0, &cb, GAUDISIM_CP_ERR_PKT_OVERRUN, false);

	/* A MSG_LONG header as the last 8 bytes of the body. */
	cb = cb_new(64);
	cb_nop(&cb);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG));
	expect_pkt_error_m(1, &cb, GAUDISIM_CP_ERR_PKT_OVERRUN, false);

	/* Without a tail the CB end is the limit; no completion, CI still moves. */
	cb = cb_new(64);
	cb_nop(&cb);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_PROT));
	pi = qrd_pi(2);
	q_submit_bd(2, 0, cb.len, cb_dev(&cb));
	run_all();
	ck_assert_uint_eq(qrd_ci(2), pi + 1);
	ck_assert_uint_eq(cp_err_code(2), GAUDISIM_CP_ERR_PKT_OVERRUN);
	ck_assert_uint_eq(T->msix[2], 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 3);
	clean_job_works(2);
}
END_TEST

START_TEST(test_bad_lin_dma_fields)
{
	static const uint32_t bad_ctl[] = {
		GAUDISIM_LIN_DMA_CTL_WR_COMP_EN,
		GAUDISIM_LIN_DMA_CTL_TRANSPOSE,
		GAUDISIM_LIN_DMA_CTL_DTYPE,
		GAUDISIM_LIN_DMA_CTL_COMPRESS,
		GAUDISIM_LIN_DMA_CTL_DECOMPRESS,
		1u << 7,
		1u << 12,
	};
	uint64_t dst = GAUDISIM_HBM_USER_BASE;
	struct cb cb;
	size_t i;

	memset(host_ptr(T_DATA_OFF + 0x1000), 0x5c, 64);
	for (i = 0; i < sizeof(bad_ctl) / sizeof(bad_ctl[0]); i++) {
		cb = cb_new(128);
		cb_lin_dma(&cb, host_dev(T_DATA_OFF + 0x1000), dst, 64, bad_ctl[i]);
		expect_pkt_error(4, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	}
	/* lin = 0 */
	cb = cb_new(128);
	cb_raw(&cb, 64, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA));
	cb_raw64(&cb, host_dev(T_DATA_OFF + 0x1000));
	cb_raw64(&cb, dst);
	expect_pkt_error(4, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	ck_assert_uint_eq(hbm_ptr(dst)[0], 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 0);
	/* The context ID field is accepted. */
	cb = cb_new(128);
	cb_lin_dma(&cb, host_dev(T_DATA_OFF + 0x1000), dst, 64,
		   0x7fu << GAUDISIM_LIN_DMA_CTL_CTX_ID_LOW_SHIFT);
	job_submit(4, &cb);
	run_all();
	ck_assert_uint_eq(hbm_ptr(dst)[63], 0x5c);
}
END_TEST

START_TEST(test_bad_msg_and_fence_fields)
{
	struct cb cb;

	cb = cb_new(64);	/* undefined op 2 */
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF), 1, 2);
	expect_pkt_error(5, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* unaligned address */
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(T_DATA_OFF + 2), 1, 0);
	expect_pkt_error(5, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* reserved ctl bit */
	cb_raw(&cb, 1, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG) | 1u << 8);
	cb_raw64(&cb, host_dev(T_DATA_OFF));
	expect_pkt_error(5, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* timestamp into a register */
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG,
	       GAUDISIM_CFG_BASE + QM_FENCE_REG(5, GAUDISIM_QM_CP_FENCE_RDATA, 0), 0,
	       GAUDISIM_MSG_OP_WRITE_TIMESTAMP);
	expect_pkt_error(5, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	ck_assert_uint_eq(qrd_fence(5, 0), 0);
	cb = cb_new(64);	/* FENCE with reserved dw0 bits */
	cb_raw(&cb, 1u << 4, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE));
	expect_pkt_error(5, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* ARB_POINT with reserved ctl bits */
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT) | 1u << 12);
	expect_pkt_error(5, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	ck_assert_uint_eq(host_rd32(T_DATA_OFF), 0x0c0ffee5);
}
END_TEST

static void bad_copy(uint64_t src, uint64_t dst, uint32_t size, unsigned int code)
{
	struct cb cb = cb_new(128);

	cb_lin_dma(&cb, src, dst, size, 0);
	expect_pkt_error(7, &cb, code);
}

START_TEST(test_dma_out_of_range)
{
	const uint64_t hbm_end = T_HBM_SIZE, sram_end = GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE;
	const uint64_t ok_host = host_dev(T_DATA_OFF);

	bad_copy(ok_host, hbm_end - 4, 8, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(hbm_end, ok_host, 1, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(hbm_end - 4096, ok_host, 0xffffffffu, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(~0ull - 3, ok_host, 16, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(ok_host, GAUDISIM_LIN_DMA_DST_ADDR_MASK - 3, 16, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(sram_end - 8, ok_host, 16, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(GAUDISIM_SRAM_BASE - 8, ok_host, 16, GAUDISIM_CP_ERR_DMA_ADDR);
	/* The holes between SRAM, CFG and the host window, and above HBM. */
	bad_copy(ok_host, 0x7ff8000000ull, 4, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(ok_host, GAUDISIM_CFG_BASE + GAUDISIM_CFG_BAR_SIZE, 4, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(T_HBM_SIZE + 4096, ok_host, 4, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(GAUDISIM_HOST_END - 4, GAUDISIM_HBM_USER_BASE, 8, GAUDISIM_CP_ERR_DMA_ADDR);
	/* LIN_DMA never reaches the register block. */
	bad_copy(ok_host, GAUDISIM_CFG_BASE + GAUDISIM_REG_HW_STATE, 4, GAUDISIM_CP_ERR_DMA_ADDR);
	bad_copy(GAUDISIM_CFG_BASE, GAUDISIM_HBM_USER_BASE, 4, GAUDISIM_CP_ERR_DMA_ADDR);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HW_STATE), GAUDISIM_HW_STATE_CLEAN);
	/* Host faults on either side, and for memset to host. */
	bad_copy(host_dev(FAULT_OFF + 8), GAUDISIM_HBM_USER_BASE, 8, GAUDISIM_CP_ERR_HOST_FAULT);
	bad_copy(GAUDISIM_HBM_USER_BASE, host_dev(FAULT_OFF - 4), 8, GAUDISIM_CP_ERR_HOST_FAULT);
	bad_copy(ok_host, host_dev(FAULT_OFF), 8, GAUDISIM_CP_ERR_HOST_FAULT);
	/* Beyond the fake host's memory: the host refuses the bus address. */
	bad_copy(host_dev(T->mem_size - 4), GAUDISIM_HBM_USER_BASE, 8, GAUDISIM_CP_ERR_HOST_FAULT);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_DMA_CNT), 17);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 0);
}
END_TEST

START_TEST(test_msg_out_of_range)
{
	struct cb cb;

	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, T_HBM_SIZE, 1, 0);
	expect_pkt_error(0, &cb, GAUDISIM_CP_ERR_DMA_ADDR);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, T_HBM_SIZE - 4, 1, GAUDISIM_MSG_OP_WRITE_TIMESTAMP);
	expect_pkt_error(0, &cb, GAUDISIM_CP_ERR_DMA_ADDR);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, ~0ull - 3, 1, 0);
	expect_pkt_error(0, &cb, GAUDISIM_CP_ERR_DMA_ADDR);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, host_dev(FAULT_OFF + 16), 1, 0);
	expect_pkt_error(0, &cb, GAUDISIM_CP_ERR_HOST_FAULT);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_DMA_CNT), 4);
}
END_TEST

START_TEST(test_cb_register_protection)
{
	const unsigned int q = 6;
	unsigned int msix = T->msix_total;
	struct cb cb;

	/* WREG_32 may not touch the PQ registers of its own stream... */
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_PQ_PI(q % 4), 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PRIV);
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_GLBL_CFG0, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PRIV);
	/* ...nor reach past its engine block or hit no register. */
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_ENGINE_BLOCK_SIZE, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_QM_OFFSET + GAUDISIM_QM_CP_FENCE_RDATA(0, 0) + 2, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);
	cb_wreg32(&cb, 0x100, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PKT_FIELD);
	cb = cb_new(64);	/* reserved WREG_32 ctl bits */
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | 1u << 20);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PKT_FIELD);

	/* MSG to reset, window, HW_STATE, PQ regs: privileged; no register: address error. */
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, GAUDISIM_CFG_BASE + GAUDISIM_REG_RESET,
	       GAUDISIM_RESET_HARD, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PRIV);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + GAUDISIM_REG_HBM_WINDOW_HI, 0, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PRIV);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + GAUDISIM_REG_HW_STATE, 0, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PRIV);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + QM_REG(0, GAUDISIM_QM_PQ_SIZE), 1, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PRIV);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + GAUDISIM_REG_ID, 0, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_DMA_ADDR);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + 0x30, 0, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_DMA_ADDR);
	cb = cb_new(64);	/* another QMAN's doorbell */
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG,
	       GAUDISIM_CFG_BASE + GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME) + GAUDISIM_QM_PQ_PI(0), 1, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PRIV);
	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, 99, 0);
	expect_pkt_error(q, &cb, GAUDISIM_CP_ERR_PKT_FIELD);

	ck_assert_uint_eq(rd(GAUDISIM_REG_DEV_STATUS), GAUDISIM_DEV_STATUS_READY);
	ck_assert_uint_eq(rd(QM_REG(0, GAUDISIM_QM_PQ_SIZE)), 3);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(1) + GAUDISIM_QM_GLBL_CFG0), 0xf);
	/* 14 failed jobs and 14 clean ones, each completed with its interrupt. */
	ck_assert_uint_eq(T->msix_total, msix + 2 * 14);
	ck_assert_uint_eq(qrd_pi(q), (2 * 14) % 16);
}
END_TEST

/* A PQ entry or CB that cannot run: counted and skipped, no completion. */
static void expect_skip_msg(unsigned int q, uint32_t ctl, uint32_t len, uint64_t ptr,
			    unsigned int code, uint64_t err_addr, const char *cause)
{
	uint32_t pq = rd(GAUDISIM_REG_ERR_PQ_CNT), done = rd(GAUDISIM_REG_CB_DONE_CNT);
	unsigned int msix = T->msix_total, errors = T->errors;

	ck_assert_uint_eq(q_submit_bd(q, ctl, len, ptr), GSIM_KICK_RUN);
	run_all();
	ck_assert_uint_eq(qrd_ci(q), qrd_pi(q));
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PQ_CNT), pq + 1);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), done);
	ck_assert_uint_eq(T->msix_total, msix);
	ck_assert_uint_eq(T->errors, errors + 1);
	ck_assert_uint_eq(cp_err_code(q), code);
	ck_assert_uint_eq(cp_err_addr(q), err_addr);
	ck_assert_ptr_nonnull(strstr(T->last_error, "skipped"));
	ck_assert_msg(strstr(T->last_error, cause), "'%s' does not say '%s'", T->last_error, cause);
	clean_job_works(q);
}

static void expect_skip(unsigned int q, uint32_t ctl, uint32_t len, uint64_t ptr,
			unsigned int code, uint64_t err_addr)
{
	expect_skip_msg(q, ctl, len, ptr, code, err_addr, "");
}

START_TEST(test_bad_pq_entries)
{
	struct cb cb = cb_new(64);
	const uint32_t tail = GAUDISIM_BD_CTL_COMPLETION_TAIL;
	uint64_t p;

	cb_nop(&cb);
	cb_nop(&cb);
	cb_nop(&cb);
	cb_nop(&cb);
	p = cb_dev(&cb);
	expect_skip(1, tail, 0, p, GAUDISIM_CP_ERR_CB_FETCH, p);
	expect_skip(1, tail, 12, p, GAUDISIM_CP_ERR_CB_FETCH, p);
	expect_skip(1, tail, 4, p, GAUDISIM_CP_ERR_CB_FETCH, p);
	expect_skip(1, tail, (2u << 20) + 8, p, GAUDISIM_CP_ERR_CB_FETCH, p);
	expect_skip(1, tail, 0xfffffff8u, p, GAUDISIM_CP_ERR_CB_FETCH, p);
	expect_skip(1, tail | 1u << 12, 32, p, GAUDISIM_CP_ERR_PQ_ENTRY, p);
	expect_skip(1, 1u << 31, 32, p, GAUDISIM_CP_ERR_PQ_ENTRY, p);
	/* CB pointers outside memory, in the CFG block, wrapping, host faults. */
	expect_skip_msg(1, tail, 32, 0x7ff8000000ull, GAUDISIM_CP_ERR_CB_FETCH,
			0x7ff8000000ull, "not inside");
	expect_skip_msg(1, tail, 32, GAUDISIM_CFG_BASE, GAUDISIM_CP_ERR_CB_FETCH,
			GAUDISIM_CFG_BASE, "not inside");
	expect_skip_msg(1, tail, 32, ~0ull - 15, GAUDISIM_CP_ERR_CB_FETCH, ~0ull - 15,
			"not inside");
	expect_skip_msg(1, tail, 32, T_HBM_SIZE - 16, GAUDISIM_CP_ERR_CB_FETCH,
			T_HBM_SIZE - 16, "not inside");
	expect_skip_msg(1, tail, 32, host_dev(FAULT_OFF), GAUDISIM_CP_ERR_CB_FETCH,
			host_dev(FAULT_OFF), "host read failed");
	/* A plain bus address (host base missing) is HBM space, beyond the 1 GiB. */
	expect_skip(1, tail, 32, host_bus(cb.off), GAUDISIM_CP_ERR_CB_FETCH, host_bus(cb.off));
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PQ_CNT), 13);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 0);
}
END_TEST

START_TEST(test_unreadable_pq)
{
	const unsigned int q = 2;
	uint32_t errors;

	/* A ring placed on the faulting page: every entry fails to read. */
	wr(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_GLBL_CFG0, 0);
	wr(QM_REG(q, GAUDISIM_QM_PQ_BASE_LO), (uint32_t)host_bus(FAULT_OFF));
	wr(QM_REG(q, GAUDISIM_QM_PQ_SIZE), 2);
	wr(QM_REG(q, GAUDISIM_QM_PQ_PI), 3);
	ck_assert_uint_eq(wr(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_GLBL_CFG0, 0xf), GSIM_KICK_RUN);
	errors = T->errors;
	run_all();
	ck_assert_uint_eq(qrd_ci(q), 3);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PQ_CNT), 3);
	ck_assert_uint_eq(T->errors, errors + 3);
	ck_assert_uint_eq(cp_err_code(q), GAUDISIM_CP_ERR_PQ_ENTRY);
	/* The error address is the bus address of the last entry read. */
	ck_assert_uint_eq(cp_err_addr(q), host_bus(FAULT_OFF) + 2 * GAUDISIM_BD_SIZE);
	ck_assert_ptr_nonnull(strstr(T->last_error, "cannot read"));
	ck_assert_uint_eq(T->msix_total, 0);
}
END_TEST

START_TEST(test_tail_not_msg_prot)
{
	const unsigned int q = 3;
	struct cb cb = cb_new(128);
	unsigned int i;

	/* Body fails; the last 32 bytes are NOPs, so no completion can be made. */
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(0x1e));
	for (i = 0; i < 4; i++)
		cb_nop(&cb);
	q_submit_bd(q, GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len, cb_dev(&cb));
	run_all();
	ck_assert_uint_eq(T->msix_total, 0);
	ck_assert_uint_eq(qrd_ci(q), 1);
	ck_assert_uint_eq(cp_err_code(q), GAUDISIM_CP_ERR_UNDEF_OPCODE);
	ck_assert_ptr_nonnull(strstr(T->last_error, "no completion"));
	/* A tail whose first MSG_PROT writes a timestamp cannot carry the error. */
	cb = cb_new(128);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(0x1e));
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, host_dev(T_CQ_OFF(q)), 0, GAUDISIM_MSG_OP_WRITE_TIMESTAMP);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, q, 0);
	q_submit_bd(q, GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len, cb_dev(&cb));
	run_all();
	ck_assert_uint_eq(T->msix_total, 0);
	ck_assert_uint_eq(host_rd64(T_CQ_OFF(q)), 0);
	/* The second tail packet must be a MSG_PROT too. */
	cb = cb_new(128);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(0x1e));
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, host_dev(T_CQ_OFF(q)), 0x80000000u, 0);
	cb_nop(&cb);
	cb_nop(&cb);
	q_submit_bd(q, GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len, cb_dev(&cb));
	run_all();
	ck_assert_uint_eq(host_rd64(T_CQ_OFF(q)), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 3);
	ck_assert_uint_eq(qrd_ci(q), 3);
	clean_job_works(q);
}
END_TEST

START_TEST(test_error_in_tail)
{
	const unsigned int q = 4;
	struct cb cb = cb_new(128);

	/* A clean body whose tail writes the CQ entry to a faulting address. */
	cb_nop(&cb);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, host_dev(FAULT_OFF), 0x80000000u, 0);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, q, 0);
	q_submit_bd(q, GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len, cb_dev(&cb));
	run_all();
	ck_assert_uint_eq(T->msix_total, 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_DMA_CNT), 1);
	ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_CP_ERR_CNT)), 1);
	ck_assert_uint_eq(cp_err_code(q), GAUDISIM_CP_ERR_HOST_FAULT);
	ck_assert_uint_eq(qrd_ci(q), 1);
	/* A failing body plus a failing tail: two errors, still no loop. */
	cb = cb_new(128);
	cb_raw(&cb, 0, GAUDISIM_PKT_CTL(0x1e));
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, host_dev(FAULT_OFF), 0x80000000u, 0);
	cb_msg(&cb, GAUDISIM_PKT_MSG_PROT, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, q, 0);
	q_submit_bd(q, GAUDISIM_BD_CTL_COMPLETION_TAIL, cb.len, cb_dev(&cb));
	run_all();
	ck_assert_uint_eq(T->msix_total, 0);
	ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_CP_ERR_CNT)), 3);
	ck_assert_uint_eq(qrd_ci(q), 2);
	clean_job_works(q);
}
END_TEST

START_TEST(test_error_mid_transfer)
{
	const unsigned int q = 0;
	const uint32_t size = 96u << 20;	/* more than one run call's budget */
	struct cb cb = cb_new(128);
	uint32_t slot, bytes;

	/* The host memory ends inside the transfer: a later chunk faults. */
	cb_lin_dma(&cb, GAUDISIM_HBM_USER_BASE, host_dev(T->mem_size - (80u << 20)), size, 0);
	slot = job_submit(q, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(q, slot), cq_err(slot, GAUDISIM_CP_ERR_HOST_FAULT));
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_DMA_CNT), 1);
	/* The first chunk went through before the fault. */
	bytes = rd(GAUDISIM_REG_DMA_BYTES_LO);
	ck_assert_uint_ge(bytes, 32u << 20);
	ck_assert_uint_lt(bytes, size);
	clean_job_works(q);
}
END_TEST

static void err_setup_large(void)
{
	th_setup_large();
	q_setup(0, 2);
}

Suite *error_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("errors");

	tcase_add_checked_fixture(tc, err_setup, th_teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_undefined_opcodes);
	tcase_add_test(tc, test_refused_opcodes);
	tcase_add_test(tc, test_error_message_is_precise);
	tcase_add_test(tc, test_overrun);
	tcase_add_test(tc, test_bad_lin_dma_fields);
	tcase_add_test(tc, test_bad_msg_and_fence_fields);
	tcase_add_test(tc, test_dma_out_of_range);
	tcase_add_test(tc, test_msg_out_of_range);
	tcase_add_test(tc, test_cb_register_protection);
	tcase_add_test(tc, test_bad_pq_entries);
	tcase_add_test(tc, test_unreadable_pq);
	tcase_add_test(tc, test_tail_not_msg_prot);
	tcase_add_test(tc, test_error_in_tail);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors-large");
	tcase_add_checked_fixture(tc, err_setup_large, th_teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_error_mid_transfer);
	suite_add_tcase(s, tc);
	return s;
}
