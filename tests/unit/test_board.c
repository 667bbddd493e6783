/* SPDX-License-Identifier: MIT */
/*
 * What the board shows the host beyond the engines: user interrupts
 * (USER_INTR by MMIO, by a CB's MSG_LONG, by a monitor payload), the PCIe
 * traffic counters and the replay fault, and the board identity (serial,
 * UUID, firmware and CPLD versions).
 */
#include <string.h>

#include "gsim_faults.h"
#include "gsim_test.h"

#define USER_INTR_ADDR	(GAUDISIM_CFG_BASE + GAUDISIM_REG_USER_INTR)
#define Q_EXT		GAUDISIM_QUEUE_ID_DMA_0_0
#define Q_INT		GAUDISIM_QUEUE_ID_DMA_2_0
/* In the user ranges, which the harness's context owns. */
#define SOB		(GAUDISIM_SYNC_FIRST_USER_SOB + 40)
#define MON		(GAUDISIM_SYNC_FIRST_USER_MON + 12)

static uint32_t cp_err(unsigned int q)
{
	return (rd(QQ_REG(q, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_ERR_MASK) >>
	       GAUDISIM_CP_STS_ERR_SHIFT;
}

/* ---- user interrupts ------------------------------------------------------ */

START_TEST(test_user_intr_mmio)
{
	static const uint32_t bad[] = {
		0, GAUDISIM_MSIX_VEC_EQ, GAUDISIM_MSIX_VEC_USER_FIRST - 1,
		GAUDISIM_MSIX_VEC_USER_FIRST + GAUDISIM_MSIX_NUM_USER, 0xffffffffu,
	};
	unsigned int v, i;

	for (v = GAUDISIM_MSIX_VEC_USER_FIRST;
	     v < GAUDISIM_MSIX_VEC_USER_FIRST + GAUDISIM_MSIX_NUM_USER; v++) {
		ck_assert_uint_eq(wr(GAUDISIM_REG_USER_INTR, v), 0);
		ck_assert_uint_eq(T->msix[v], 1);
		ck_assert_uint_eq(T->msix_total, v - GAUDISIM_MSIX_VEC_USER_FIRST + 1);
	}
	ck_assert_uint_eq(T->errors, 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 0);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wr(GAUDISIM_REG_USER_INTR, bad[i]);
		ck_assert_uint_eq(T->errors, i + 1);
		ck_assert_ptr_nonnull(strstr(T->last_error, "USER_INTR"));
	}
	ck_assert_uint_eq(T->msix_total, GAUDISIM_MSIX_NUM_USER);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), sizeof(bad) / sizeof(bad[0]));
	/* Write-only. */
	ck_assert_uint_eq(rd(GAUDISIM_REG_USER_INTR), 0);
}
END_TEST

/* A user CB on an external queue: the driver's tail follows it. */
START_TEST(test_user_intr_cb_external)
{
	const unsigned int vec = GAUDISIM_MSIX_VEC_USER_FIRST + 3;
	struct cb cb = cb_new(256);
	uint32_t slot;

	q_setup(Q_EXT, 4);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, USER_INTR_ADDR, vec, GAUDISIM_MSG_OP_WRITE_VALUE);
	slot = job_submit(Q_EXT, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_ok(slot));
	ck_assert_uint_eq(T->msix[vec], 1);
	ck_assert_uint_eq(T->msix[Q_EXT], 1);
	ck_assert_uint_eq(T->msix_total, 2);
	ck_assert_uint_eq(T->errors, 0);

	/* The EQ's vector is not a user interrupt: the CB fails, nothing is raised. */
	cb = cb_new(256);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, USER_INTR_ADDR, GAUDISIM_MSIX_VEC_EQ,
	       GAUDISIM_MSG_OP_WRITE_VALUE);
	slot = job_submit(Q_EXT, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_err(slot, GAUDISIM_CP_ERR_PKT_FIELD));
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 0);
	ck_assert_uint_eq(T->msix[Q_EXT], 2);
	ck_assert_uint_eq(T->msix_total, 3);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 1);
}
END_TEST

/* A CB in HBM on an internal queue, the user's own CP. */
START_TEST(test_user_intr_cb_internal)
{
	const unsigned int vec = GAUDISIM_MSIX_VEC_USER_FIRST + GAUDISIM_MSIX_NUM_USER - 1;
	struct cb cb = cb_new(64);

	iq_setup(Q_INT, 4);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, USER_INTR_ADDR, vec, GAUDISIM_MSG_OP_WRITE_VALUE);
	iq_submit(Q_INT, &cb);
	run_all();
	ck_assert_uint_eq(cp_err(Q_INT), 0);
	ck_assert_uint_eq(T->msix[vec], 1);
	ck_assert_uint_eq(T->msix_total, 1);

	cb = cb_new(64);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, USER_INTR_ADDR, vec + 1, GAUDISIM_MSG_OP_WRITE_VALUE);
	iq_submit(Q_INT, &cb);
	run_all();
	ck_assert_uint_eq(cp_err(Q_INT), GAUDISIM_CP_ERR_PKT_FIELD);
	ck_assert_uint_eq(T->msix_total, 1);
}
END_TEST

START_TEST(test_user_intr_monitor)
{
	const unsigned int vec = GAUDISIM_MSIX_VEC_USER_FIRST + 1;
	uint32_t errors;
	struct cb cb;

	/* Armed by the driver over MMIO. */
	sm_mon_setup(MON, USER_INTR_ADDR, vec);
	ck_assert_uint_eq(sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 2)), 0);
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_SET(1));
	ck_assert_uint_eq(T->msix_total, 0);
	sm_sob_wr(SOB, GAUDISIM_SYNC_SOB_SET(2));
	ck_assert_uint_eq(T->msix[vec], 1);
	ck_assert_uint_eq(T->msix_total, 1);

	/* Armed and triggered by a user CB (unsecured payload). */
	iq_setup(Q_INT, 4);
	cb = cb_new(256);
	cb_mon_payload(&cb, MON, USER_INTR_ADDR, vec + 1);
	cb_mon_arm(&cb, MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 3));
	cb_sob_set(&cb, SOB, 3);
	iq_submit(Q_INT, &cb);
	run_all();
	ck_assert_uint_eq(cp_err(Q_INT), 0);
	ck_assert_uint_eq(T->msix[vec + 1], 1);
	ck_assert_uint_eq(T->msix_total, 2);
	ck_assert_uint_eq(T->errors, 0);

	/* A payload that names no user interrupt is dropped, counted and logged;
	 * the CB that triggered it is not to blame. */
	cb = cb_new(256);
	cb_mon_payload(&cb, MON, USER_INTR_ADDR, GAUDISIM_MSIX_NUM_VECTORS);
	cb_mon_arm(&cb, MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 4));
	cb_sob_set(&cb, SOB, 4);
	iq_submit(Q_INT, &cb);
	errors = T->errors;
	run_all();
	ck_assert_uint_eq(cp_err(Q_INT), 0);
	ck_assert_uint_eq(T->msix_total, 2);
	ck_assert_uint_eq(T->errors, errors + 1);
	ck_assert_ptr_nonnull(strstr(T->last_error, "monitor payload"));
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_PKT_CNT), 1);
	ck_assert_uint_eq(rd(SYNC_REG(GAUDISIM_SYNC_MON_STATUS(MON))) &
			  GAUDISIM_SYNC_MON_STATUS_FIRED, GAUDISIM_SYNC_MON_STATUS_FIRED);
}
END_TEST

/* ---- PCIe counters -------------------------------------------------------- */

struct pcie_snap {
	uint64_t rx, tx;
};

/* RX_LO, RX_HI, TX_LO, TX_HI: four register reads, 16 bytes of TX. */
static struct pcie_snap pcie_snap(void)
{
	struct pcie_snap p;

	p.rx = rd(GAUDISIM_REG_PCIE_RX_BYTES_LO);
	p.rx |= (uint64_t)rd(GAUDISIM_REG_PCIE_RX_BYTES_HI) << 32;
	p.tx = rd(GAUDISIM_REG_PCIE_TX_BYTES_LO);
	p.tx |= (uint64_t)rd(GAUDISIM_REG_PCIE_TX_BYTES_HI) << 32;
	return p;
}

/* TX between two snapshots from their own reads: 2 after TX_LO + 2 before it. */
#define SNAP_TX		16u

START_TEST(test_pcie_mmio_counts)
{
	struct pcie_snap a, b;

	/* Only the harness's rights table writes crossed the link; the RX read itself is TX. */
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_RX_BYTES_LO), 4 * T_GRANT_WRITES);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_TX_BYTES_LO), 4);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_TX_BYTES_HI), 0);
	a = pcie_snap();
	wr(GAUDISIM_REG_HW_STATE, GAUDISIM_HW_STATE_DIRTY);
	rd(GAUDISIM_REG_ID);
	/* Refused accesses crossed the link too. */
	wr(GAUDISIM_REG_ID, 1);
	rd(GAUDISIM_REG_ID + 2);
	b = pcie_snap();
	ck_assert_uint_eq(b.rx - a.rx, 8);
	ck_assert_uint_eq(b.tx - a.tx, SNAP_TX + 8);
	/* Counter registers are read-only. */
	wr(GAUDISIM_REG_PCIE_RX_BYTES_LO, 0);
	wr(GAUDISIM_REG_PCIE_TX_BYTES_HI, 5);
	wr(GAUDISIM_REG_PCIE_REPLAY_CNT, 5);
	ck_assert_ptr_nonnull(strstr(T->last_error, "read-only"));
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_RX_BYTES_LO), b.rx + 12);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_REPLAY_CNT), 0);
}
END_TEST

/*
 * One job on an external queue, host -> HBM -> host: RX is the doorbell,
 * the PQ entry, the CB and the source data; TX the destination data, the
 * CQ entry and the MSI-X message.
 */
START_TEST(test_pcie_dma_counts)
{
	const uint32_t n = 12345;
	const uint64_t hbm = GAUDISIM_HBM_BASE + GAUDISIM_HBM_USER_BASE;
	struct cb cb = cb_new(256);
	struct pcie_snap a, b;
	uint32_t slot;

	q_setup(Q_EXT, 4);
	memset(host_ptr(T_DATA_OFF), 0x5a, n);
	cb_lin_dma(&cb, host_dev(T_DATA_OFF), hbm, n, 0);
	cb_lin_dma(&cb, hbm, host_dev(T_DATA_OFF + 0x100000), n, 0);
	a = pcie_snap();
	slot = job_submit(Q_EXT, &cb);
	run_all();
	b = pcie_snap();
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_ok(slot));
	ck_assert_int_eq(memcmp(host_ptr(T_DATA_OFF + 0x100000), host_ptr(T_DATA_OFF), n), 0);
	ck_assert_uint_eq(b.rx - a.rx, 4 + GAUDISIM_BD_SIZE + cb.len + n);
	ck_assert_uint_eq(b.tx - a.tx, SNAP_TX + n + GAUDISIM_CQ_ENTRY_SIZE + 4);

	/* A read the host refuses moved nothing: only the fetches count. */
	cb = cb_new(256);
	cb_lin_dma(&cb, host_dev(T_DATA_OFF), hbm, n, 0);
	T->fault_lo = host_bus(T_DATA_OFF);
	T->fault_hi = host_bus(T_DATA_OFF) + n;
	a = pcie_snap();
	slot = job_submit(Q_EXT, &cb);
	run_all();
	b = pcie_snap();
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_err(slot, GAUDISIM_CP_ERR_HOST_FAULT));
	ck_assert_uint_eq(b.rx - a.rx, 4 + GAUDISIM_BD_SIZE + cb.len);
	ck_assert_uint_eq(b.tx - a.tx, SNAP_TX + GAUDISIM_CQ_ENTRY_SIZE + 4);

	/* A hard reset clears the counters (the read of RX is TX again). */
	gsim_core_reset(T->core);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_RX_BYTES_LO), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_RX_BYTES_HI), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_TX_BYTES_LO), 8);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_TX_BYTES_HI), 0);
}
END_TEST

/* Event-queue entries and their MSI-X are device writes to the host too. */
START_TEST(test_pcie_eq_counts)
{
	struct pcie_snap a, b;

	th_eq_setup(4);
	a = pcie_snap();
	gsim_fault_ecc(T->core, false, 1);
	b = pcie_snap();
	ck_assert_uint_eq(th_eq_count(), 1);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 1);
	ck_assert_uint_eq(b.rx - a.rx, 0);
	ck_assert_uint_eq(b.tx - a.tx, SNAP_TX + GAUDISIM_EQ_ENTRY_SIZE + 4);
}
END_TEST

/* LIN_DMA of 16 MiB HBM -> host, repeated 'times' (REPEAT), on queue Q_EXT. */
static void big_tx_job(uint32_t times)
{
	const uint32_t chunk = 16u << 20;
	struct cb cb = cb_new(256);
	uint32_t slot;

	cb_raw(&cb, times << GAUDISIM_REPEAT_COUNT_SHIFT,
	       GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT) | GAUDISIM_PKT_CTL_RB);
	cb_lin_dma(&cb, GAUDISIM_HBM_BASE + GAUDISIM_HBM_USER_BASE, host_dev(T_DATA_OFF), chunk, 0);
	cb_raw(&cb, GAUDISIM_REPEAT_SORE_END,
	       GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT) | GAUDISIM_PKT_CTL_RB);
	slot = job_submit(Q_EXT, &cb);
	run_all();
	ck_assert_uint_eq(cq_entry(Q_EXT, slot), cq_ok(slot));
}

/* Past 4 GiB: LO latches HI, so a counter crossing 2^32 between the two
 * reads still reads as one value. */
START_TEST(test_pcie_counter_latch)
{
	uint32_t lo, hi;

	q_setup(Q_EXT, 4);
	big_tx_job(255);	/* 4 GiB - 16 MiB */
	lo = rd(GAUDISIM_REG_PCIE_TX_BYTES_LO);
	ck_assert_uint_gt(lo, 0xff000000u);
	big_tx_job(2);		/* crosses 2^32 */
	hi = rd(GAUDISIM_REG_PCIE_TX_BYTES_HI);
	ck_assert_uint_eq(hi, 0);
	lo = rd(GAUDISIM_REG_PCIE_TX_BYTES_LO);
	hi = rd(GAUDISIM_REG_PCIE_TX_BYTES_HI);
	/* 257 x 16 MiB, two CQ entries and MSI-X messages, three register reads. */
	ck_assert_uint_eq((uint64_t)hi << 32 | lo,
			  257ull * (16u << 20) + 2 * (GAUDISIM_CQ_ENTRY_SIZE + 4) + 3 * 4);
	/* Without a LO read since the last reset HI reads live. */
	gsim_core_reset(T->core);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_TX_BYTES_HI), 0);
}
END_TEST

START_TEST(test_pcie_replay_fault)
{
	ck_assert_uint_eq(gsim_fault_pcie_replay_count(T->core), 0);
	gsim_fault_pcie_replay(T->core, 3);
	gsim_fault_pcie_replay(T->core, 4);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_REPLAY_CNT), 7);
	ck_assert_uint_eq(gsim_fault_pcie_replay_count(T->core), 7);
	gsim_fault_pcie_replay(T->core, UINT32_MAX);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_REPLAY_CNT), UINT32_MAX);
	gsim_core_reset(T->core);
	ck_assert_uint_eq(rd(GAUDISIM_REG_PCIE_REPLAY_CNT), 0);
}
END_TEST

/* ---- identity ------------------------------------------------------------- */

/* The string of n registers from base, as the driver reads it. */
static void reg_bytes(uint32_t base, unsigned int words, uint8_t *out)
{
	unsigned int i;

	for (i = 0; i < words; i++) {
		uint32_t v = rd(base + 4 * i);

		out[4 * i] = (uint8_t)v;
		out[4 * i + 1] = (uint8_t)(v >> 8);
		out[4 * i + 2] = (uint8_t)(v >> 16);
		out[4 * i + 3] = (uint8_t)(v >> 24);
	}
}

static void expect_serial(const char *want)
{
	uint8_t got[4 * GAUDISIM_SERIAL_WORDS], exp[sizeof(got)] = { 0 };

	memcpy(exp, want, strlen(want));
	reg_bytes(GAUDISIM_REG_SERIAL(0), GAUDISIM_SERIAL_WORDS, got);
	ck_assert_mem_eq(got, exp, sizeof(got));
}

static const uint8_t uuid_a[GSIM_UUID_LEN] = {
	0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef,
	0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
};

START_TEST(test_identity_regs)
{
	static const uint8_t nil[GSIM_UUID_LEN];
	uint8_t got[GSIM_UUID_LEN];
	uint32_t fw = rd(GAUDISIM_REG_FW_VERSION);
	const char *err = NULL;

	/* A new core: the nil UUID and its serial. */
	reg_bytes(GAUDISIM_REG_UUID(0), GAUDISIM_UUID_WORDS, got);
	ck_assert_mem_eq(got, nil, sizeof(got));
	expect_serial("GS0000000000");

	ck_assert_int_eq(gsim_core_set_identity(T->core, NULL, uuid_a, &err), 0);
	reg_bytes(GAUDISIM_REG_UUID(0), GAUDISIM_UUID_WORDS, got);
	ck_assert_mem_eq(got, uuid_a, sizeof(got));
	/* Byte 0 in bits [7:0] of word 0. */
	ck_assert_uint_eq(rd(GAUDISIM_REG_UUID(0)), 0x78563412);
	ck_assert_uint_eq(rd(GAUDISIM_REG_SERIAL(0)), 'G' | 'S' << 8 | '1' << 16 | '2' << 24);
	expect_serial("GS123456789A");

	ck_assert_int_eq(gsim_core_set_identity(T->core, "HL2000-0123456789abcdefghijklm",
						uuid_a, &err), 0);
	expect_serial("HL2000-0123456789abcdefghijklm");
	/* The longest serial: 31 characters and the NUL in the last byte. */
	ck_assert_int_eq(gsim_core_set_identity(T->core, "ABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
						uuid_a, &err), 0);
	expect_serial("ABCDEFGHIJKLMNOPQRSTUVWXYZ01234");
	ck_assert_uint_eq(rd(GAUDISIM_REG_SERIAL(GAUDISIM_SERIAL_WORDS - 1)), '2' | '3' << 8 |
			  '4' << 16);

	ck_assert_uint_eq(fw, GSIM_FW_VERSION);
	ck_assert_uint_eq(GAUDISIM_FW_VERSION_MAJOR(fw), GSIM_FW_VERSION_MAJOR);
	ck_assert_uint_eq(GAUDISIM_FW_VERSION_MINOR(fw), GSIM_FW_VERSION_MINOR);
	ck_assert_uint_eq(GAUDISIM_FW_VERSION_BUILD(fw), GSIM_FW_VERSION_BUILD);
	ck_assert_uint_eq(rd(GAUDISIM_REG_CPLD_VERSION), GSIM_CPLD_VERSION);

	/* All read-only; a hard reset keeps them. */
	wr(GAUDISIM_REG_SERIAL(0), 0);
	wr(GAUDISIM_REG_SERIAL(GAUDISIM_SERIAL_WORDS - 1), 0);
	wr(GAUDISIM_REG_UUID(GAUDISIM_UUID_WORDS - 1), 0);
	wr(GAUDISIM_REG_FW_VERSION, 0);
	wr(GAUDISIM_REG_CPLD_VERSION, 0);
	ck_assert_uint_eq(T->errors, 5);
	ck_assert_ptr_nonnull(strstr(T->last_error, "read-only"));
	gsim_core_reset(T->core);
	expect_serial("ABCDEFGHIJKLMNOPQRSTUVWXYZ01234");
	reg_bytes(GAUDISIM_REG_UUID(0), GAUDISIM_UUID_WORDS, got);
	ck_assert_mem_eq(got, uuid_a, sizeof(got));
	ck_assert_uint_eq(rd(GAUDISIM_REG_FW_VERSION), GSIM_FW_VERSION);
}
END_TEST

START_TEST(test_identity_bad_serial)
{
	static const char *const bad[] = {
		"", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "two words", "tab\there",
		"del\x7f", "caf\xc3\xa9", "nl\n",
	};
	static const uint8_t uuid_b[GSIM_UUID_LEN] = { 0xff };
	const char *err;
	unsigned int i;

	ck_assert_int_eq(gsim_core_set_identity(T->core, "GOOD-1", uuid_a, NULL), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		ck_assert_ptr_nonnull(gsim_core_serial_invalid(bad[i]));
		ck_assert_int_eq(gsim_core_set_identity(T->core, bad[i], uuid_b, &err), -1);
		ck_assert_ptr_nonnull(err);
		ck_assert_str_eq(err, gsim_core_serial_invalid(bad[i]));
	}
	ck_assert_ptr_nonnull(strstr(gsim_core_serial_invalid(bad[1]), "31"));
	ck_assert_ptr_nonnull(strstr(gsim_core_serial_invalid(bad[2]), "spaces"));
	/* Nothing changed. */
	expect_serial("GOOD-1");
	ck_assert_uint_eq(rd(GAUDISIM_REG_UUID(0)), 0x78563412);
	ck_assert_ptr_null(gsim_core_serial_invalid("!~"));
}
END_TEST

START_TEST(test_identity_default_serial)
{
	char buf[GSIM_SERIAL_DEFAULT_LEN + 1], small[GSIM_SERIAL_DEFAULT_LEN] = "x";

	gsim_core_default_serial(uuid_a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "GS123456789A");
	/* Too small a buffer gets an empty string, never an overflow. */
	gsim_core_default_serial(uuid_a, small, sizeof(small));
	ck_assert_str_eq(small, "");
}
END_TEST

Suite *board_suite(void)
{
	Suite *s = suite_create("board");
	TCase *tc = tcase_create("board");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_user_intr_mmio);
	tcase_add_test(tc, test_user_intr_cb_external);
	tcase_add_test(tc, test_user_intr_cb_internal);
	tcase_add_test(tc, test_user_intr_monitor);
	tcase_add_test(tc, test_pcie_mmio_counts);
	tcase_add_test(tc, test_pcie_dma_counts);
	tcase_add_test(tc, test_pcie_eq_counts);
	tcase_add_test(tc, test_pcie_counter_latch);
	tcase_add_test(tc, test_pcie_replay_fault);
	tcase_add_test(tc, test_identity_regs);
	tcase_add_test(tc, test_identity_bad_serial);
	tcase_add_test(tc, test_identity_default_serial);
	suite_add_tcase(s, tc);
	return s;
}
