/* SPDX-License-Identifier: MIT */
/*
 * Register file: identity and reset values, HW_STATE and reset request,
 * timestamp latch, HBM window validation, MSI-X requests, unknown offsets,
 * QMAN register validation, configuration checks.
 */
#include <string.h>

#include "gsim_test.h"

START_TEST(test_identity)
{
	uint32_t eng = rd(GAUDISIM_REG_ENGINES);

	ck_assert_uint_eq(rd(GAUDISIM_REG_ID), GAUDISIM_ID_MAGIC);
	ck_assert_uint_eq(rd(GAUDISIM_REG_VERSION),
			  GAUDISIM_HW_VERSION_MAJOR << 16 | GAUDISIM_HW_VERSION_MINOR);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CAPS),
			  GAUDISIM_CAP_EXT_QUEUES | GAUDISIM_CAP_HBM_WINDOW |
			  GAUDISIM_CAP_INT_QUEUES | GAUDISIM_CAP_SYNC_MNGR |
			  GAUDISIM_CAP_EVENT_QUEUE | GAUDISIM_CAP_NIC);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_SIZE_LO), (uint32_t)T_HBM_SIZE);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_SIZE_HI), (uint32_t)(T_HBM_SIZE >> 32));
	ck_assert_uint_eq(rd(GAUDISIM_REG_SRAM_SIZE), GAUDISIM_SRAM_SIZE);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_RESERVED), GAUDISIM_HBM_RESERVED_SIZE);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_BAR_SIZE_LO), (uint32_t)T_BAR_SIZE);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_BAR_SIZE_HI), 0);

	ck_assert_uint_eq(GAUDISIM_ENGINES_FIELD(eng, GAUDISIM_ENGINES_PCI_DMA_SHIFT, 4),
			  GAUDISIM_NUM_PCI_DMA);
	ck_assert_uint_eq(GAUDISIM_ENGINES_FIELD(eng, GAUDISIM_ENGINES_HBM_DMA_SHIFT, 4),
			  GAUDISIM_NUM_HBM_DMA);
	ck_assert_uint_eq(GAUDISIM_ENGINES_FIELD(eng, GAUDISIM_ENGINES_MME_SHIFT, 4),
			  GAUDISIM_NUM_MME);
	ck_assert_uint_eq(GAUDISIM_ENGINES_FIELD(eng, GAUDISIM_ENGINES_TPC_SHIFT, 8),
			  GAUDISIM_NUM_TPC);
	ck_assert_uint_eq(GAUDISIM_ENGINES_FIELD(eng, GAUDISIM_ENGINES_STREAMS_SHIFT, 4),
			  GAUDISIM_STREAMS_PER_QMAN);
	ck_assert_uint_eq(GAUDISIM_ENGINES_FIELD(eng, GAUDISIM_ENGINES_NIC_SHIFT, 4),
			  GAUDISIM_NUM_NIC);

	/*
	 * Every queue: 0..7 external, 9..32 HBM-DMA, 33..36 MME 0, 37..40
	 * MME 1, 41..72 TPC, 73..112 NIC; 8 (Gaudi's CPU queue) is a hole.
	 */
	ck_assert_uint_eq(rd(GAUDISIM_REG_QUEUE_MASK_LO), 0xfffffeffu);
	ck_assert_uint_eq(rd(GAUDISIM_REG_QUEUE_MASK_HI), 0xffffffffu);
	ck_assert_uint_eq(rd(GAUDISIM_REG_QUEUE_MASK_HI2), 0xffffffffu);
	ck_assert_uint_eq(rd(GAUDISIM_REG_QUEUE_MASK_HI3), 0x1ffffu);
	ck_assert_uint_eq(rd(GAUDISIM_REG_MODULE_ID), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DEV_STATUS), GAUDISIM_DEV_STATUS_READY);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_reset_values)
{
	unsigned int q, f;

	ck_assert_uint_eq(rd(GAUDISIM_REG_HW_STATE), GAUDISIM_HW_STATE_CLEAN);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_WINDOW_LO), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_WINDOW_HI), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_DMA_CNT), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PQ_CNT), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_HI), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CB_DONE_CNT), 0);
	ck_assert_uint_eq(gsim_core_hbm_window(T->core), 0);
	ck_assert_uint_eq(gsim_core_hbm_size(T->core), T_HBM_SIZE);
	ck_assert_ptr_nonnull(gsim_core_hbm(T->core));
	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++) {
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_BASE_LO)), 0);
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_BASE_HI)), 0);
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_SIZE)), 0);
		ck_assert_uint_eq(qrd_pi(q), 0);
		ck_assert_uint_eq(qrd_ci(q), 0);
		ck_assert_uint_eq(qrd_sts(q), 0);
		ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_CP_ERR_CNT)), 0);
		for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++)
			ck_assert_uint_eq(qrd_fence(q, f), 0);
	}
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_GLBL_CFG0), 0);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(1) + GAUDISIM_QM_GLBL_STS0), 0);
	/* Nothing to run on a fresh device. */
	ck_assert(!gsim_core_run(T->core));
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_hw_state_and_reset_request)
{
	ck_assert_uint_eq(wr(GAUDISIM_REG_HW_STATE, GAUDISIM_HW_STATE_DIRTY), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HW_STATE), GAUDISIM_HW_STATE_DIRTY);

	/* An unknown reset type is refused and changes nothing. */
	ck_assert_uint_eq(wr(GAUDISIM_REG_RESET, 0x2), 0);
	ck_assert_uint_eq(T->errors, 1);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DEV_STATUS), GAUDISIM_DEV_STATUS_READY);

	ck_assert_uint_eq(wr(GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD), GSIM_KICK_RESET);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DEV_STATUS), GAUDISIM_DEV_STATUS_IN_RESET);
	gsim_core_reset(T->core);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DEV_STATUS), GAUDISIM_DEV_STATUS_READY);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HW_STATE), GAUDISIM_HW_STATE_CLEAN);
	ck_assert_uint_eq(rd(GAUDISIM_REG_RESET), 0);	/* write-only */
}
END_TEST

START_TEST(test_timestamp_latch)
{
	T->clock_ns = 0x123456789abcull;
	ck_assert_uint_eq(rd(GAUDISIM_REG_TIMESTAMP_LO), 0x56789abc);
	T->clock_ns = 0xffff00000000ull;
	/* HI comes from the LO read, not from the clock now. */
	ck_assert_uint_eq(rd(GAUDISIM_REG_TIMESTAMP_HI), 0x1234);
	ck_assert_uint_eq(rd(GAUDISIM_REG_TIMESTAMP_LO), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_TIMESTAMP_HI), 0xffff);
}
END_TEST

static unsigned int set_window(uint64_t w)
{
	unsigned int kick = wr(GAUDISIM_REG_HBM_WINDOW_LO, (uint32_t)w);

	ck_assert_uint_eq(kick, 0);	/* LO is only latched */
	return wr(GAUDISIM_REG_HBM_WINDOW_HI, (uint32_t)(w >> 32));
}

START_TEST(test_hbm_window)
{
	uint64_t last = T_HBM_SIZE - T_BAR_SIZE;

	ck_assert_uint_eq(set_window(T_BAR_SIZE), GSIM_KICK_WINDOW);
	ck_assert_uint_eq(gsim_core_hbm_window(T->core), T_BAR_SIZE);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_WINDOW_LO), (uint32_t)T_BAR_SIZE);
	ck_assert_uint_eq(set_window(last), GSIM_KICK_WINDOW);
	ck_assert_uint_eq(gsim_core_hbm_window(T->core), last);
	ck_assert_uint_eq(T->errors, 0);

	/* Not a multiple of the window size. */
	ck_assert_uint_eq(set_window(T_BAR_SIZE + 4096), 0);
	ck_assert_uint_eq(T->errors, 1);
	ck_assert_ptr_nonnull(strstr(T->last_error, "HBM_WINDOW"));
	/* Past the end of HBM, and far past it (high half set). */
	ck_assert_uint_eq(set_window(T_HBM_SIZE), 0);
	ck_assert_uint_eq(set_window(0xfffffffff0000000ull), 0);
	ck_assert_uint_eq(T->errors, 3);
	ck_assert_uint_eq(gsim_core_hbm_window(T->core), last);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HBM_WINDOW_LO), (uint32_t)last);

	ck_assert_uint_eq(set_window(0), GSIM_KICK_WINDOW);
	ck_assert_uint_eq(gsim_core_hbm_window(T->core), 0);
}
END_TEST

START_TEST(test_msix_request)
{
	unsigned int v;

	for (v = 0; v < GAUDISIM_MSIX_NUM_VECTORS; v++)
		ck_assert_uint_eq(wr(GAUDISIM_REG_MSIX_REQ, v), 0);
	for (v = 0; v < GAUDISIM_MSIX_NUM_VECTORS; v++)
		ck_assert_uint_eq(T->msix[v], 1);
	ck_assert_uint_eq(T->errors, 0);
	wr(GAUDISIM_REG_MSIX_REQ, GAUDISIM_MSIX_NUM_VECTORS);
	wr(GAUDISIM_REG_MSIX_REQ, 0xffffffffu);
	ck_assert_uint_eq(T->msix_total, GAUDISIM_MSIX_NUM_VECTORS);
	ck_assert_uint_eq(T->errors, 2);
	ck_assert_ptr_nonnull(strstr(T->last_error, "MSIX_REQ"));
}
END_TEST

START_TEST(test_unknown_offsets)
{
	unsigned int before;

	/* Internal QMANs (HBM-DMA 2, TPC 7) check their registers like external ones. */
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2) + GAUDISIM_QM_PQ_CI(0)), 0);
	ck_assert_uint_eq(rd(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME)), 0);
	ck_assert_uint_eq(T->errors, 0);
	ck_assert_uint_eq(wr(GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2) + GAUDISIM_QM_PQ_PI(0), 1), 0);
	ck_assert_uint_eq(wr(GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_TPC_7) + GAUDISIM_QM_GLBL_CFG0, 0x10), 0);
	ck_assert_uint_eq(T->errors, 2);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2) + GAUDISIM_QM_PQ_PI(0)), 0);

	/* Holes in the global and QM blocks, the PCI-DMA core block, beyond the map. */
	before = T->errors;
	ck_assert_uint_eq(rd(0x38), 0);
	wr(0x38, 1);
	wr(GAUDISIM_ENGINE_BLOCK(0) + 0x100, 1);
	wr(GAUDISIM_QM_BLOCK(0) + 0x800, 1);
	wr(GAUDISIM_QM_BLOCK(0) + GAUDISIM_QM_CP_FENCE_RDATA(GAUDISIM_QM_NUM_FENCES, 0), 1);
	wr(GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_COUNT), 1);
	ck_assert_uint_eq(T->errors, before + 5);

	/* Unaligned and out-of-BAR accesses. */
	ck_assert_uint_eq(rd(GAUDISIM_REG_ID + 1), 0);
	ck_assert_uint_eq(rd(GAUDISIM_CFG_BAR_SIZE), 0);
	wr(GAUDISIM_REG_HW_STATE + 2, 5);
	wr(GAUDISIM_CFG_BAR_SIZE + 4, 5);
	ck_assert_uint_eq(T->errors, before + 9);
	ck_assert_uint_eq(rd(GAUDISIM_REG_HW_STATE), GAUDISIM_HW_STATE_CLEAN);

	/* Read-only registers ignore writes. */
	wr(GAUDISIM_REG_ID, 0);
	wr(GAUDISIM_REG_ERR_PKT_CNT, 7);
	wr(QM_REG(1, GAUDISIM_QM_PQ_CI), 3);
	wr(QM_REG(1, GAUDISIM_QM_CP_STS), 3);
	wr(QM_FENCE_REG(1, GAUDISIM_QM_CP_FENCE_CNT, 2), 3);
	ck_assert_uint_eq(T->errors, before + 14);
	ck_assert_ptr_nonnull(strstr(T->last_error, "read-only"));
	ck_assert_uint_eq(rd(GAUDISIM_REG_ID), GAUDISIM_ID_MAGIC);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 0);
	ck_assert_uint_eq(qrd_ci(1), 0);
	ck_assert_uint_eq(qrd_fence(1, 2), 0);
}
END_TEST

START_TEST(test_qman_register_checks)
{
	const unsigned int q = 5;
	uint32_t cfg0 = GAUDISIM_QM_BLOCK(1) + GAUDISIM_QM_GLBL_CFG0;

	/* PQ_SIZE range. */
	wr(QM_REG(q, GAUDISIM_QM_PQ_SIZE), GAUDISIM_QM_PQ_SIZE_LOG2_MIN - 1);
	wr(QM_REG(q, GAUDISIM_QM_PQ_SIZE), GAUDISIM_QM_PQ_SIZE_LOG2_MAX + 1);
	ck_assert_uint_eq(T->errors, 2);
	ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_SIZE)), 0);
	/* PI before PQ_SIZE. */
	wr(QM_REG(q, GAUDISIM_QM_PQ_PI), 1);
	ck_assert_uint_eq(T->errors, 3);
	ck_assert_uint_eq(qrd_pi(q), 0);
	/* PQ base must be BD-aligned. */
	wr(QM_REG(q, GAUDISIM_QM_PQ_BASE_LO), 0x1008);
	ck_assert_uint_eq(T->errors, 4);
	ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_BASE_LO)), 0);
	/* Only stream enable bits exist in GLBL_CFG0. */
	wr(cfg0, 0x10);
	ck_assert_uint_eq(T->errors, 5);
	ck_assert_uint_eq(rd(cfg0), 0);

	/* With 4 entries PI counts modulo 8 and may be at most 4 ahead of CI. */
	wr(QM_REG(q, GAUDISIM_QM_PQ_SIZE), 2);
	ck_assert_uint_eq(T->errors, 5);
	wr(QM_REG(q, GAUDISIM_QM_PQ_PI), 8);
	wr(QM_REG(q, GAUDISIM_QM_PQ_PI), 5);
	ck_assert_uint_eq(T->errors, 7);
	ck_assert_uint_eq(qrd_pi(q), 0);
	/* Stream disabled: PI is accepted, nothing to kick yet. */
	ck_assert_uint_eq(wr(QM_REG(q, GAUDISIM_QM_PQ_PI), 4), 0);
	ck_assert_uint_eq(qrd_pi(q), 4);
	ck_assert_uint_eq(rd(GAUDISIM_QM_BLOCK(1) + GAUDISIM_QM_GLBL_STS0), 1u << 1);
	/* A busy stream refuses a new ring. */
	wr(QM_REG(q, GAUDISIM_QM_PQ_SIZE), 3);
	wr(QM_REG(q, GAUDISIM_QM_PQ_BASE_HI), 1);
	ck_assert_uint_eq(T->errors, 9);
	ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_SIZE)), 2);
	ck_assert_uint_eq(rd(QM_REG(q, GAUDISIM_QM_PQ_BASE_HI)), 0);
	/* Enabling the stream asks for a run. */
	ck_assert_uint_eq(wr(cfg0, 1u << 1), GSIM_KICK_RUN);
}
END_TEST

static const struct gsim_host_ops dummy_ops;

static int nop_rw(void *o, uint64_t a, void *b, uint64_t l)
{
	(void)o; (void)a; (void)b; (void)l;
	return -1;
}

static int nop_w(void *o, uint64_t a, const void *b, uint64_t l)
{
	(void)o; (void)a; (void)b; (void)l;
	return -1;
}

static void nop_msix(void *o, unsigned int v)
{
	(void)o; (void)v;
}

static void nop_err(void *o, const char *m)
{
	(void)o; (void)m;
}

static uint64_t nop_clock(void *o)
{
	(void)o;
	return 0;
}

static const struct gsim_host_ops good_ops = {
	.dma_read = nop_rw,
	.dma_write = nop_w,
	.msix_notify = nop_msix,
	.guest_error = nop_err,
	.clock_ns = nop_clock,
};

static bool config_ok(uint64_t hbm, uint64_t bar, const struct gsim_host_ops *ops)
{
	struct gsim_core_config cfg = { .hbm_size = hbm, .hbm_bar_size = bar };
	const char *err = NULL;
	struct gsim_core *c = gsim_core_new(&cfg, ops, NULL, &err);

	if (!c) {
		ck_assert_ptr_nonnull(err);
		return false;
	}
	gsim_core_free(c);
	return true;
}

START_TEST(test_config_validation)
{
	const uint64_t mib = 1ull << 20;

	ck_assert(config_ok(GAUDISIM_HBM_SIZE_DEFAULT, GAUDISIM_HBM_BAR_SIZE_DEFAULT, &good_ops));
	ck_assert(config_ok(GAUDISIM_HBM_RESERVED_SIZE + 2 * mib, 2 * mib, &good_ops));
	ck_assert(config_ok(T_HBM_SIZE, T_HBM_SIZE, &good_ops));
	ck_assert(!config_ok(GAUDISIM_HBM_RESERVED_SIZE, 2 * mib, &good_ops));
	ck_assert(!config_ok(T_HBM_SIZE + mib, T_BAR_SIZE, &good_ops));
	ck_assert(!config_ok(T_HBM_SIZE, 3 * mib, &good_ops));
	ck_assert(!config_ok(T_HBM_SIZE, 0, &good_ops));
	ck_assert(!config_ok(T_HBM_SIZE, 2 * T_HBM_SIZE, &good_ops));
	ck_assert(!config_ok(GAUDISIM_SRAM_BASE + 2 * mib, T_BAR_SIZE, &good_ops));
	ck_assert(!config_ok(T_HBM_SIZE, T_BAR_SIZE, &dummy_ops));
	ck_assert(!config_ok(T_HBM_SIZE, T_BAR_SIZE, NULL));
	ck_assert_ptr_null(gsim_core_new(NULL, &good_ops, NULL, NULL));
	gsim_core_free(NULL);
}
END_TEST

Suite *regs_suite(void)
{
	Suite *s = suite_create("regs");
	TCase *tc = tcase_create("regs");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_identity);
	tcase_add_test(tc, test_reset_values);
	tcase_add_test(tc, test_hw_state_and_reset_request);
	tcase_add_test(tc, test_timestamp_latch);
	tcase_add_test(tc, test_hbm_window);
	tcase_add_test(tc, test_msix_request);
	tcase_add_test(tc, test_unknown_offsets);
	tcase_add_test(tc, test_qman_register_checks);
	tcase_add_test(tc, test_config_validation);
	suite_add_tcase(s, tc);
	return s;
}
