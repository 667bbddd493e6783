/* SPDX-License-Identifier: MIT */
/*
 * NIC ports and the fabric (gsim_fabric.h, hw/gaudisim_hw_nic.h): two or
 * three device cores in one box; a transfer lands in the peer's HBM and
 * signals its SOB, a FENCE on the peer wakes on arrival, the receive
 * window and SOB range refuse writes outside them (both ends see it,
 * nothing is written), and so do the receive registrations: a write or
 * SOB nobody registered, a device with nothing registered, a write that
 * leaves one context's registration for another's; a cut link fails
 * launches cleanly and a restored one works again, counters, size and
 * address errors, a peer in reset.
 */
#include <errno.h>
#include <string.h>

#include "gsim_fabric.h"
#include "gsim_test.h"
#include "hw/gaudisim_hw_nic.h"

#define SOB		GAUDISIM_SYNC_FIRST_USER_SOB
#define MON		GAUDISIM_SYNC_FIRST_USER_MON
#define SRC		(GAUDISIM_HBM_USER_BASE + 0x100000)
#define DST		(GAUDISIM_HBM_USER_BASE + 0x200000)
#define WIN_BASE	GAUDISIM_HBM_USER_BASE
#define WIN_SIZE	(64ull << 20)
#define LEN		8192u

static struct th *A, *B;		/* modules 0 and 1 */
static struct gsim_fabric *F;

/* Port of module 0 to module 1 and back (hw/gaudisim_hw_nic.h topology). */
#define PORT_AB		0u
#define PORT_BA		0u
#define Q_NIC_AB	(GAUDISIM_QUEUE_ID_NIC_0_0 + 4 * PORT_AB)

static uint32_t nic_reg(unsigned int port, uint32_t off)
{
	return GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0 + port) + off;
}

static uint32_t nic_rd(struct th *t, unsigned int port, uint32_t off)
{
	return gsim_core_reg_read(t->core, nic_reg(port, off));
}

static void nic_wr(struct th *t, unsigned int port, uint32_t off, uint32_t v)
{
	gsim_core_reg_write(t->core, nic_reg(port, off), v);
}

static void mr_wr(struct th *t, unsigned int i, uint32_t off, uint32_t v)
{
	gsim_core_reg_write(t->core, GAUDISIM_BLOCK_NIC_RX + GAUDISIM_NIC_RX_MR(i) + off, v);
}

static uint32_t mr_rd(struct th *t, unsigned int i, uint32_t off)
{
	return gsim_core_reg_read(t->core, GAUDISIM_BLOCK_NIC_RX + GAUDISIM_NIC_RX_MR(i) + off);
}

/* What the driver does when a context registers (entry i, the context's asid). */
static void mr_set(struct th *t, unsigned int i, uint64_t addr, uint64_t size,
		   uint32_t sob_first, uint32_t sob_count, uint32_t asid)
{
	mr_wr(t, i, GAUDISIM_NIC_RX_MR_CTRL, 0);
	mr_wr(t, i, GAUDISIM_NIC_RX_MR_ADDR_LO, (uint32_t)addr);
	mr_wr(t, i, GAUDISIM_NIC_RX_MR_ADDR_HI, (uint32_t)(addr >> 32));
	mr_wr(t, i, GAUDISIM_NIC_RX_MR_SIZE_LO, (uint32_t)size);
	mr_wr(t, i, GAUDISIM_NIC_RX_MR_SIZE_HI, (uint32_t)(size >> 32));
	mr_wr(t, i, GAUDISIM_NIC_RX_MR_SOB_FIRST, sob_first);
	mr_wr(t, i, GAUDISIM_NIC_RX_MR_SOB_COUNT, sob_count);
	mr_wr(t, i, GAUDISIM_NIC_RX_MR_CTRL,
	      GAUDISIM_NIC_RX_MR_VALID | asid << GAUDISIM_NIC_RX_MR_ASID_SHIFT);
}

/*
 * What the driver does: open the user HBM range and the user SOBs, and
 * (standing in for a context's registration) register the window.
 */
static void rx_open(struct th *t, unsigned int port)
{
	mr_set(t, 0, WIN_BASE, WIN_SIZE, SOB, 64, 1);
	nic_wr(t, port, GAUDISIM_NIC_RX_WIN_BASE_LO, (uint32_t)WIN_BASE);
	nic_wr(t, port, GAUDISIM_NIC_RX_WIN_BASE_HI, (uint32_t)(WIN_BASE >> 32));
	nic_wr(t, port, GAUDISIM_NIC_RX_WIN_SIZE_LO, (uint32_t)WIN_SIZE);
	nic_wr(t, port, GAUDISIM_NIC_RX_WIN_SIZE_HI, (uint32_t)(WIN_SIZE >> 32));
	nic_wr(t, port, GAUDISIM_NIC_RX_SOB_FIRST, SOB);
	nic_wr(t, port, GAUDISIM_NIC_RX_SOB_COUNT, 64);
	nic_wr(t, port, GAUDISIM_NIC_RX_ENABLE, 1);
}

static void setup(void)
{
	A = th_new(T_HOST_SIZE);
	B = th_new(T_HOST_SIZE);
	F = gsim_fabric_new();
	ck_assert_ptr_nonnull(F);
	ck_assert_int_eq(gsim_fabric_attach(F, A->core, 0), 0);
	ck_assert_int_eq(gsim_fabric_attach(F, B->core, 1), 0);
	T = B;
	th_eq_setup(6);
	T = A;
	th_eq_setup(6);
	rx_open(B, PORT_BA);
	rx_open(A, PORT_AB);
}

static void teardown(void)
{
	gsim_fabric_free(F);
	th_free(A);
	th_free(B);
	T = NULL;
}

/* Run both devices until neither has work left. */
static void run_both(void)
{
	unsigned int i;

	for (i = 0; i < 100; i++) {
		bool a = gsim_core_run(A->core), b = gsim_core_run(B->core);

		if (!a && !b)
			return;
	}
	ck_abort_msg("the devices never became idle");
}

static void fill(struct th *t, uint64_t addr, uint32_t len, uint8_t seed)
{
	uint8_t *p = gsim_core_hbm(t->core) + addr;
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/* Program port's descriptor over MMIO. */
static void tx_desc(struct th *t, unsigned int port, uint64_t src, uint64_t dst, uint32_t size,
		    uint32_t sob)
{
	nic_wr(t, port, GAUDISIM_NIC_TX_SRC_LO, (uint32_t)src);
	nic_wr(t, port, GAUDISIM_NIC_TX_SRC_HI, (uint32_t)(src >> 32));
	nic_wr(t, port, GAUDISIM_NIC_TX_DST_LO, (uint32_t)dst);
	nic_wr(t, port, GAUDISIM_NIC_TX_DST_HI, (uint32_t)(dst >> 32));
	nic_wr(t, port, GAUDISIM_NIC_TX_SIZE, size);
	nic_wr(t, port, GAUDISIM_NIC_TX_REMOTE_SOB, sob);
	nic_wr(t, port, GAUDISIM_NIC_TX_REMOTE_SOB_DATA, GAUDISIM_SYNC_SOB_ADD(1));
}

/* Launch from MMIO and run: returns the engine error code of the launch. */
static unsigned int tx_mmio(struct th *t, unsigned int port)
{
	unsigned int i;

	nic_wr(t, port, GAUDISIM_NIC_TX_COMMIT, 1);
	for (i = 0; i < 100 && gsim_core_run(t->core); i++)
		;
	run_both();
	return (nic_rd(t, port, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_ERR_MASK) >>
	       GAUDISIM_ENG_STATUS_ERR_SHIFT;
}

/* The same transfer from a CB on A's NIC queue, which then bumps A's SOB. */
static void tx_cb(uint64_t src, uint64_t dst, uint32_t size, uint32_t sob)
{
	struct cb cb;

	T = A;
	cb = cb_new(512);
	cb_wreg32(&cb, GAUDISIM_NIC_TX_SRC_LO, (uint32_t)src);
	cb_wreg32(&cb, GAUDISIM_NIC_TX_SRC_HI, (uint32_t)(src >> 32));
	cb_wreg32(&cb, GAUDISIM_NIC_TX_DST_LO, (uint32_t)dst);
	cb_wreg32(&cb, GAUDISIM_NIC_TX_DST_HI, (uint32_t)(dst >> 32));
	cb_wreg32(&cb, GAUDISIM_NIC_TX_SIZE, size);
	cb_wreg32(&cb, GAUDISIM_NIC_TX_REMOTE_SOB, sob);
	cb_wreg32(&cb, GAUDISIM_NIC_TX_REMOTE_SOB_DATA, GAUDISIM_SYNC_SOB_ADD(1));
	cb_wreg32(&cb, GAUDISIM_NIC_TX_COMMIT, 1);
	cb_sob_add(&cb, SOB + 1, 1);
	iq_submit(Q_NIC_AB, &cb);
}

static unsigned int q_err(struct th *t, unsigned int q)
{
	return (gsim_core_reg_read(t->core, QQ_REG(q, GAUDISIM_QM_CP_STS)) &
		GAUDISIM_CP_STS_ERR_MASK) >> GAUDISIM_CP_STS_ERR_SHIFT;
}

static uint32_t sob_of(struct th *t, unsigned int n)
{
	return gsim_core_reg_read(t->core, SYNC_REG(GAUDISIM_SYNC_SOB_OBJ(n)));
}

static int eq_find(struct th *t, unsigned int from, unsigned int type)
{
	struct th *saved = T;
	int i;

	T = t;
	i = th_eq_find(from, type);
	T = saved;
	return i;
}

static struct gaudisim_eq_entry eq_entry(struct th *t, unsigned int i)
{
	struct th *saved = T;
	struct gaudisim_eq_entry e;

	T = t;
	e = th_eq_entry(i);
	T = saved;
	return e;
}

START_TEST(test_nic_transfer_remote_sob)
{
	fill(A, SRC, LEN, 3);
	tx_desc(A, PORT_AB, SRC, DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_NONE);
	ck_assert_mem_eq(gsim_core_hbm(B->core) + DST, gsim_core_hbm(A->core) + SRC, LEN);
	ck_assert_uint_eq(sob_of(B, SOB), 1);
	ck_assert_uint_eq(sob_of(A, SOB), 0);
	/* Counters on both ends. */
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_BYTES_LO), LEN);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_BYTES_HI), 0);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_XFERS), 1);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_RX_XFERS), 0);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_BYTES_LO), LEN);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_XFERS), 1);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_TX_XFERS), 0);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_ENG_LAUNCH_CNT), 1);
	/* The other way round, through B's port 0, signal only. */
	tx_desc(B, PORT_BA, 0, DST, 0, GAUDISIM_NIC_TX_REMOTE_SOB_EN | (SOB + 2));
	ck_assert_uint_eq(tx_mmio(B, PORT_BA), GAUDISIM_NIC_ERR_NONE);
	ck_assert_uint_eq(sob_of(A, SOB + 2), 1);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_RX_XFERS), 1);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_RX_BYTES_LO), 0);
	ck_assert_uint_eq(A->errors + B->errors, 0);
}
END_TEST

START_TEST(test_nic_fence_on_peer_wakes)
{
	const unsigned int qb = GAUDISIM_QUEUE_ID_DMA_2_0;
	struct cb cb;

	/* B: a stream waits for the signal, then writes a marker. */
	T = B;
	sm_mon_setup(MON, FENCE_ADDR(qb, 0), 1);
	sm_mon_arm(MON, GAUDISIM_SYNC_MON_ARM_SOB(SOB, 0, 1));
	iq_setup(qb, 2);
	cb = cb_new(128);
	cb_fence(&cb, 0, 1, 1);
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, DST + LEN, 0xfeedf00d, 0);
	iq_submit(qb, &cb);
	ck_assert(!gsim_core_run(B->core));
	ck_assert(gsim_core_reg_read(B->core, QQ_REG(qb, GAUDISIM_QM_CP_STS)) &
		  GAUDISIM_CP_STS_FENCE_WAIT);

	/* A: a CB on its NIC queue sends the data and the signal. */
	fill(A, SRC, LEN, 9);
	T = A;
	iq_setup(Q_NIC_AB, 2);
	tx_cb(SRC, DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
	ck_assert_uint_eq(B->kicks, 0);
	while (gsim_core_run(A->core))
		;
	/* Delivered inside A's run: B's host was asked to run B. */
	ck_assert_uint_eq(B->kicks, 1);
	ck_assert_uint_eq(q_err(A, Q_NIC_AB), 0);
	ck_assert_uint_eq(sob_of(A, SOB + 1), 1);
	ck_assert_uint_eq(dev_rd32(gsim_core_hbm(B->core) + DST + LEN), 0);
	run_both();
	ck_assert_uint_eq(dev_rd32(gsim_core_hbm(B->core) + DST + LEN), 0xfeedf00d);
	ck_assert_mem_eq(gsim_core_hbm(B->core) + DST, gsim_core_hbm(A->core) + SRC, LEN);
	ck_assert_uint_eq(q_err(B, qb), 0);
	ck_assert_uint_eq(A->errors + B->errors, 0);
}
END_TEST

/* A write outside the window or SOB range: refused whole, both ends know. */
static void check_refused(uint64_t dst, uint32_t sob, unsigned int refused)
{
	int ev;

	memset(gsim_core_hbm(B->core) + WIN_BASE + WIN_SIZE - 4096, 0x5a, 8192);
	tx_desc(A, PORT_AB, SRC, dst, LEN, sob);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_REFUSED), refused);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_XFERS), 0);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_ERRS), refused);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_XFERS), 0);
	ev = eq_find(B, 0, GAUDISIM_EQ_EVENT_NIC_ERR);
	ck_assert_int_ge(ev, 0);
	ck_assert_uint_eq(eq_entry(B, (unsigned int)ev).engine, GAUDISIM_ENGINE_NIC_0 + PORT_BA);
	ck_assert_uint_eq(eq_entry(B, (unsigned int)ev).code, GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	ck_assert_uint_eq(eq_entry(B, (unsigned int)ev).data[0], 0);
	ev = eq_find(A, 0, GAUDISIM_EQ_EVENT_ENGINE_ERR);
	ck_assert_int_ge(ev, 0);
	ck_assert_uint_eq(eq_entry(A, (unsigned int)ev).code, GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	/* Nothing written, nothing signalled. */
	ck_assert_uint_eq(gsim_core_hbm(B->core)[WIN_BASE + WIN_SIZE - 1], 0x5a);
	ck_assert_uint_eq(gsim_core_hbm(B->core)[WIN_BASE + WIN_SIZE], 0x5a);
	ck_assert_uint_eq(sob_of(B, SOB), 0);
	ck_assert_uint_eq(sob_of(B, SOB - 1), 0);
}

START_TEST(test_nic_rx_window_refused)
{
	fill(A, SRC, LEN, 1);
	/* Straddles the end of the window. */
	check_refused(WIN_BASE + WIN_SIZE - 4096, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB, 1);
	ck_assert_uint_gt(B->errors, 0);
}
END_TEST

START_TEST(test_nic_rx_sob_refused)
{
	/* Inside the window, but the driver's SOB below the user range. */
	check_refused(DST, GAUDISIM_NIC_TX_REMOTE_SOB_EN | (SOB - 1), 1);
	/* Reserved HBM, below the window. */
	check_refused(GAUDISIM_HBM_BASE + 0x1000, 0, 2);
	/* Receive disabled: everything is refused. */
	nic_wr(B, PORT_BA, GAUDISIM_NIC_RX_ENABLE, 0);
	check_refused(DST, 0, 3);
}
END_TEST

/*
 * A write the receiver's registrations do not cover: refused whole, both
 * ends know, the bytes at dst and the SOB are untouched. dst lies inside
 * the port's window, so only the registrations refuse it.
 */
static void expect_unregistered(uint64_t dst, uint32_t size, uint32_t sob,
				unsigned int refused)
{
	uint8_t *hbm = gsim_core_hbm(B->core);
	uint32_t sob_before = sob_of(B, sob & GAUDISIM_NIC_TX_REMOTE_SOB_MASK);
	int ev;

	if (size)
		memset(hbm + dst, 0x5a, size);
	tx_desc(A, PORT_AB, SRC, dst, size, sob);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_REFUSED), refused);
	ev = eq_find(B, 0, GAUDISIM_EQ_EVENT_NIC_ERR);
	ck_assert_int_ge(ev, 0);
	ck_assert_uint_eq(eq_entry(B, (unsigned int)ev).code, GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	ev = eq_find(A, 0, GAUDISIM_EQ_EVENT_ENGINE_ERR);
	ck_assert_int_ge(ev, 0);
	ck_assert_uint_eq(eq_entry(A, (unsigned int)ev).code, GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	if (size) {
		ck_assert_uint_eq(hbm[dst], 0x5a);
		ck_assert_uint_eq(hbm[dst + size - 1], 0x5a);
	}
	ck_assert_uint_eq(sob_of(B, sob & GAUDISIM_NIC_TX_REMOTE_SOB_MASK), sob_before);
}

/* A transfer the receiver accepts: the data and the signal arrive. */
static void expect_landed(uint64_t dst, uint32_t size, uint32_t sob_en_idx)
{
	uint32_t before = sob_of(B, sob_en_idx & GAUDISIM_NIC_TX_REMOTE_SOB_MASK);

	tx_desc(A, PORT_AB, SRC, dst, size, sob_en_idx);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_NONE);
	if (size)
		ck_assert_mem_eq(gsim_core_hbm(B->core) + dst, gsim_core_hbm(A->core) + SRC, size);
	if (sob_en_idx & GAUDISIM_NIC_TX_REMOTE_SOB_EN)
		ck_assert_uint_eq(sob_of(B, sob_en_idx & GAUDISIM_NIC_TX_REMOTE_SOB_MASK),
				  before + 1);
}

START_TEST(test_nic_mr_nothing_registered)
{
	/* B's port is open (window, SOBs, RX_ENABLE) but nobody registered. */
	mr_wr(B, 0, GAUDISIM_NIC_RX_MR_CTRL, 0);
	fill(A, SRC, LEN, 9);
	expect_unregistered(DST, LEN, 0, 1);
	/* A signal alone is refused too. */
	expect_unregistered(DST, 0, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB, 2);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_XFERS), 0);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_ERRS), 2);
}
END_TEST

START_TEST(test_nic_mr_outside_registration)
{
	fill(A, SRC, LEN, 3);
	mr_set(B, 0, DST, LEN, SOB, 2, 1);
	expect_landed(DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
	/* One page past the end, one page before the start. */
	expect_unregistered(DST + 4096, LEN, 0, 1);
	expect_unregistered(DST - 4096, LEN, 0, 2);
	/* A registration in the table's last entry counts like the first. */
	mr_wr(B, 0, GAUDISIM_NIC_RX_MR_CTRL, 0);
	expect_unregistered(DST, LEN, 0, 3);
	mr_set(B, GAUDISIM_NIC_RX_NUM_MR - 1, DST, LEN, SOB, 2, 1);
	expect_landed(DST, LEN, 0);
	/* Deregistered (CTRL 0): refused again, whatever ADDR/SIZE still say. */
	mr_wr(B, GAUDISIM_NIC_RX_NUM_MR - 1, GAUDISIM_NIC_RX_MR_CTRL, 0);
	expect_unregistered(DST, LEN, 0, 4);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_XFERS), 2);
}
END_TEST

START_TEST(test_nic_mr_another_context)
{
	/* Two contexts' registrations side by side: a write must stay in one. */
	fill(A, SRC, LEN, 5);
	mr_set(B, 0, DST, LEN, SOB, 2, 1);
	mr_set(B, 1, DST + LEN, LEN, SOB + 2, 2, 2);
	expect_unregistered(DST + LEN / 2, LEN, 0, 1);
	expect_landed(DST, LEN, 0);
	expect_landed(DST + LEN, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | (SOB + 3));
	ck_assert_uint_eq(mr_rd(B, 1, GAUDISIM_NIC_RX_MR_CTRL) >> GAUDISIM_NIC_RX_MR_ASID_SHIFT &
			  GAUDISIM_NIC_RX_MR_ASID_MASK, 2);
	/* Context 2 leaves: its range is closed, context 1's stays open. */
	mr_wr(B, 1, GAUDISIM_NIC_RX_MR_CTRL, 0);
	expect_unregistered(DST + LEN, LEN, 0, 2);
	expect_unregistered(DST, 0, GAUDISIM_NIC_TX_REMOTE_SOB_EN | (SOB + 3), 3);
	expect_landed(DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | (SOB + 1));
}
END_TEST

START_TEST(test_nic_mr_sob_not_registered)
{
	fill(A, SRC, LEN, 7);
	/* Memory and SOBs SOB..SOB+1 registered; SOB+2 lies in the port's range only. */
	mr_set(B, 0, DST, LEN, SOB, 2, 1);
	expect_unregistered(DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | (SOB + 2), 1);
	/* The payload of a refused write did not land either. */
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_BYTES_LO), 0);
	/* A registration of memory only grants no SOB; one of SOBs only, no memory. */
	mr_set(B, 0, DST, LEN, 0, 0, 1);
	expect_unregistered(DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB, 2);
	mr_set(B, 0, 0, 0, SOB, 2, 1);
	expect_unregistered(DST, LEN, 0, 3);
	expect_landed(DST, 0, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
}
END_TEST

START_TEST(test_nic_mr_driver_only)
{
	struct cb cb;

	T = A;
	iq_setup(Q_NIC_AB, 2);
	cb = cb_new(64);
	/* A job cannot register: MSG_LONG into the block fails with PRIV. */
	cb_msg(&cb, GAUDISIM_PKT_MSG_LONG, GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_NIC_RX +
	       GAUDISIM_NIC_RX_MR(1) + GAUDISIM_NIC_RX_MR_SIZE_LO, 0xffffffffu,
	       GAUDISIM_MSG_OP_WRITE_VALUE);
	iq_submit(Q_NIC_AB, &cb);
	run_both();
	ck_assert_uint_eq(q_err(A, Q_NIC_AB), GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(mr_rd(A, 1, GAUDISIM_NIC_RX_MR_SIZE_LO), 0);
	/* The driver's bad values are refused and logged. */
	mr_wr(A, 0, GAUDISIM_NIC_RX_MR_CTRL, 1u << 31);
	ck_assert_uint_eq(mr_rd(A, 0, GAUDISIM_NIC_RX_MR_CTRL),
			  GAUDISIM_NIC_RX_MR_VALID | 1u << GAUDISIM_NIC_RX_MR_ASID_SHIFT);
	mr_wr(A, 0, GAUDISIM_NIC_RX_MR_SOB_COUNT, GAUDISIM_SYNC_NUM_SOBS + 1);
	ck_assert_uint_eq(mr_rd(A, 0, GAUDISIM_NIC_RX_MR_SOB_COUNT), 64);
	/* Past the table: no register. */
	ck_assert_uint_eq(gsim_core_reg_read(A->core, GAUDISIM_BLOCK_NIC_RX +
					     GAUDISIM_NIC_RX_MR(GAUDISIM_NIC_RX_NUM_MR)), 0);
}
END_TEST

START_TEST(test_nic_cb_refused_fails_job)
{
	T = A;
	iq_setup(Q_NIC_AB, 2);
	tx_cb(SRC, WIN_BASE + WIN_SIZE, LEN, 0);
	run_both();
	/* The packet that launched fails: the stream stops before the SOB add. */
	ck_assert_uint_eq(q_err(A, Q_NIC_AB), GAUDISIM_CP_ERR_ENGINE);
	ck_assert_uint_eq(sob_of(A, SOB + 1), 0);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_REFUSED), 1);
}
END_TEST

/* A job sends only its own memory: the driver's reserved HBM is not a source. */
START_TEST(test_nic_cb_source_reserved_refused)
{
	memset(gsim_core_hbm(A->core) + GAUDISIM_HBM_BASE + 0x1000, 0x77, LEN);
	memset(gsim_core_hbm(B->core) + DST, 0, LEN);
	T = A;
	iq_setup(Q_NIC_AB, 2);
	tx_cb(GAUDISIM_HBM_BASE + 0x1000, DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
	run_both();
	ck_assert_uint_eq(q_err(A, Q_NIC_AB), GAUDISIM_CP_ERR_ENGINE);
	ck_assert_uint_eq((nic_rd(A, PORT_AB, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_ERR_MASK) >>
			  GAUDISIM_ENG_STATUS_ERR_SHIFT, GAUDISIM_NIC_ERR_LOCAL_ADDR);
	ck_assert_uint_eq(gsim_core_hbm(B->core)[DST], 0);
	ck_assert_uint_eq(sob_of(B, SOB), 0);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_XFERS), 0);
}
END_TEST

START_TEST(test_nic_link_cut_and_restore)
{
	unsigned int ev_a, ev_b;
	int ev;

	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_LINK_STATUS),
			  GAUDISIM_NIC_LINK_UP | GAUDISIM_NIC_LINK_CABLED |
			  1u << GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT |
			  PORT_BA << GAUDISIM_NIC_LINK_PEER_PORT_SHIFT);
	ck_assert_int_eq(gsim_fabric_set_link(F, 1, PORT_BA, false), 0);
	ck_assert(gsim_fabric_link_cut(F, 0, PORT_AB));
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_LINK_STATUS) & GAUDISIM_NIC_LINK_UP, 0);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_LINK_STATUS) & GAUDISIM_NIC_LINK_UP, 0);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_LINK_DOWN_CNT), 1);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_LINK_DOWN_CNT), 1);
	ev = eq_find(A, 0, GAUDISIM_EQ_EVENT_NIC_LINK);
	ck_assert_int_ge(ev, 0);
	ev_a = (unsigned int)ev;
	ck_assert_uint_eq(eq_entry(A, ev_a).code, 0);
	ck_assert_uint_eq(eq_entry(A, ev_a).data[0], 1);
	ev = eq_find(B, 0, GAUDISIM_EQ_EVENT_NIC_LINK);
	ck_assert_int_ge(ev, 0);
	ev_b = (unsigned int)ev;
	ck_assert_uint_eq(eq_entry(B, ev_b).engine, GAUDISIM_ENGINE_NIC_0 + PORT_BA);

	/* A job over the cut link ends in an error, it does not wait. */
	T = A;
	iq_setup(Q_NIC_AB, 2);
	tx_cb(SRC, DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
	run_both();
	ck_assert_uint_eq(q_err(A, Q_NIC_AB), GAUDISIM_CP_ERR_ENGINE);
	ck_assert_uint_eq((nic_rd(A, PORT_AB, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_ERR_MASK) >>
			  GAUDISIM_ENG_STATUS_ERR_SHIFT, GAUDISIM_NIC_ERR_LINK_DOWN);
	ck_assert_uint_eq(sob_of(B, SOB), 0);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_ERRS), 1);
	/* A second cut changes nothing. */
	ck_assert_int_eq(gsim_fabric_set_link(F, 0, PORT_AB, false), 0);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_LINK_DOWN_CNT), 1);

	/* Restored: up on both ends, with an event, and transfers work. */
	ck_assert_int_eq(gsim_fabric_set_link(F, 0, PORT_AB, true), 0);
	ck_assert(!gsim_fabric_link_cut(F, 1, PORT_BA));
	ck_assert(nic_rd(B, PORT_BA, GAUDISIM_NIC_LINK_STATUS) & GAUDISIM_NIC_LINK_UP);
	ev = eq_find(A, ev_a + 1, GAUDISIM_EQ_EVENT_NIC_LINK);
	ck_assert_int_ge(ev, 0);
	ck_assert_uint_eq(eq_entry(A, (unsigned int)ev).code, 1);
	ck_assert_int_ge(eq_find(B, ev_b + 1, GAUDISIM_EQ_EVENT_NIC_LINK), 0);
	fill(A, SRC, LEN, 5);
	tx_desc(A, PORT_AB, SRC, DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_NONE);
	ck_assert_mem_eq(gsim_core_hbm(B->core) + DST, gsim_core_hbm(A->core) + SRC, LEN);
	ck_assert_uint_eq(sob_of(B, SOB), 1);
	/* Other links were never touched. */
	ck_assert_uint_eq(nic_rd(A, 1, GAUDISIM_NIC_LINK_DOWN_CNT), 0);
}
END_TEST

START_TEST(test_nic_size_and_address_errors)
{
	tx_desc(A, PORT_AB, SRC, DST, GAUDISIM_NIC_MAX_XFER + 1, 0);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_SIZE);
	/* Source past the end of HBM, then in host memory: not local device memory. */
	tx_desc(A, PORT_AB, T_HBM_SIZE - 4096, DST, LEN, 0);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_LOCAL_ADDR);
	tx_desc(A, PORT_AB, host_dev(T_DATA_OFF), DST, LEN, 0);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_LOCAL_ADDR);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_ERRS), 3);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_ENG_ERR_CNT), 3);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_REFUSED), 0);
	/* A job may not read reserved HBM through the NIC either. */
	T = A;
	iq_setup(Q_NIC_AB, 2);
	tx_cb(GAUDISIM_HBM_BASE, DST, LEN, 0);
	run_both();
	ck_assert_uint_eq(q_err(A, Q_NIC_AB), GAUDISIM_CP_ERR_ENGINE);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_ERRS), 4);
	/* Bad register values are refused. */
	nic_wr(A, PORT_AB, GAUDISIM_NIC_TX_REMOTE_SOB, 1u << 20);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_REMOTE_SOB), 0);
	nic_wr(A, PORT_AB, GAUDISIM_NIC_RX_SOB_COUNT, GAUDISIM_SYNC_NUM_SOBS + 1);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_RX_SOB_COUNT), 64);
	nic_wr(A, PORT_AB, GAUDISIM_NIC_TX_COMMIT, 2);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_ENG_LAUNCH_CNT), 4);
	ck_assert_uint_gt(A->errors, 0);
}
END_TEST

START_TEST(test_nic_rx_regs_driver_only)
{
	struct cb cb;

	T = A;
	iq_setup(Q_NIC_AB, 2);
	cb = cb_new(64);
	cb_wreg32(&cb, GAUDISIM_NIC_RX_WIN_SIZE_LO, 0xffffffffu);
	iq_submit(Q_NIC_AB, &cb);
	run_both();
	ck_assert_uint_eq(q_err(A, Q_NIC_AB), GAUDISIM_CP_ERR_PRIV);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_RX_WIN_SIZE_LO), (uint32_t)WIN_SIZE);
	/* Counters and link state are read-only. */
	nic_wr(A, PORT_AB, GAUDISIM_NIC_TX_XFERS, 7);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_XFERS), 0);
}
END_TEST

START_TEST(test_nic_peer_reset)
{
	fill(A, SRC, LEN, 2);
	tx_desc(A, PORT_AB, SRC, DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
	/* B is being reset: RESET written, not carried out yet. */
	ck_assert_uint_ne(gsim_core_reg_write(B->core, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD) &
			  GSIM_KICK_RESET, 0);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_REMOTE_RESET);
	ck_assert_uint_eq(gsim_core_hbm(B->core)[DST], 0);
	/* After the reset B's port is closed until its driver opens it again. */
	gsim_core_reset(B->core);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_ENABLE), 0);
	ck_assert_uint_eq(mr_rd(B, 0, GAUDISIM_NIC_RX_MR_CTRL), 0);
	ck_assert_uint_eq(mr_rd(B, 0, GAUDISIM_NIC_RX_MR_SIZE_LO), 0);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	rx_open(B, PORT_BA);
	ck_assert_uint_eq(tx_mmio(A, PORT_AB), GAUDISIM_NIC_ERR_NONE);
	ck_assert_mem_eq(gsim_core_hbm(B->core) + DST, gsim_core_hbm(A->core) + SRC, LEN);
	ck_assert_uint_eq(sob_of(B, SOB), 1);
	ck_assert_uint_eq(nic_rd(B, PORT_BA, GAUDISIM_NIC_RX_XFERS), 1);
	/* A's own soft reset of the port clears its counters and descriptor. */
	nic_wr(A, PORT_AB, GAUDISIM_ENG_SOFT_RESET, GAUDISIM_ENG_SOFT_RESET_GO);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_XFERS), 0);
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_SIZE), 0);
	ck_assert(nic_rd(A, PORT_AB, GAUDISIM_NIC_LINK_STATUS) & GAUDISIM_NIC_LINK_UP);
}
END_TEST

START_TEST(test_nic_topology_and_attach)
{
	struct th *C = th_new(T_HOST_SIZE);
	unsigned int p;

	ck_assert_int_eq(gsim_fabric_attach(F, C->core, 1), -EBUSY);
	ck_assert_int_eq(gsim_fabric_attach(F, C->core, 8), -EINVAL);
	ck_assert_int_eq(gsim_fabric_attach(F, A->core, 2), -EINVAL);
	ck_assert_int_eq(gsim_fabric_set_link(F, 8, 0, false), -EINVAL);
	ck_assert_int_eq(gsim_fabric_set_link(F, 0, GAUDISIM_NIC_NUM_PORTS, false), -EINVAL);
	ck_assert_int_eq(gsim_fabric_attach(F, C->core, 5), 0);
	ck_assert_uint_eq(gsim_core_reg_read(C->core, GAUDISIM_REG_MODULE_ID), 5);
	ck_assert_uint_eq(rd(GAUDISIM_REG_MODULE_ID), 0);
	ck_assert_uint_eq(gsim_core_reg_read(B->core, GAUDISIM_REG_MODULE_ID), 1);
	/* Module 0's port 4 reaches module 5 on its port 0. */
	ck_assert_uint_eq(nic_rd(A, 4, GAUDISIM_NIC_LINK_STATUS),
			  GAUDISIM_NIC_LINK_UP | GAUDISIM_NIC_LINK_CABLED |
			  5u << GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT);
	ck_assert_uint_eq(nic_rd(C, 1, GAUDISIM_NIC_LINK_STATUS),
			  GAUDISIM_NIC_LINK_UP | GAUDISIM_NIC_LINK_CABLED |
			  1u << GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT |
			  4u << GAUDISIM_NIC_LINK_PEER_PORT_SHIFT);
	/* Ports to absent modules are not cabled; scale-out ports have no peer here. */
	ck_assert_uint_eq(nic_rd(A, 2, GAUDISIM_NIC_LINK_STATUS), 0);
	for (p = GAUDISIM_NIC_FIRST_SCALEOUT; p < GAUDISIM_NIC_NUM_PORTS; p++)
		ck_assert_uint_eq(nic_rd(A, p, GAUDISIM_NIC_LINK_STATUS),
				  GAUDISIM_NIC_LINK_SCALEOUT);
	tx_desc(A, GAUDISIM_NIC_FIRST_SCALEOUT, SRC, DST, LEN, 0);
	ck_assert_uint_eq(tx_mmio(A, GAUDISIM_NIC_FIRST_SCALEOUT), GAUDISIM_NIC_ERR_LINK_DOWN);
	/* Unplugged: the peers' links to it go down. */
	th_free(C);
	ck_assert_uint_eq(nic_rd(A, 4, GAUDISIM_NIC_LINK_STATUS), 0);
	ck_assert_uint_eq(nic_rd(A, 4, GAUDISIM_NIC_LINK_DOWN_CNT), 1);
	tx_desc(A, 4, SRC, DST, LEN, 0);
	ck_assert_uint_eq(tx_mmio(A, 4), GAUDISIM_NIC_ERR_LINK_DOWN);
	/* The module ID without a fabric. */
	ck_assert_int_eq(gsim_core_set_module_id(A->core, 8), -1);
}
END_TEST

/* Transfers are cheap launches: several run in one gsim_core_run(). */
START_TEST(test_nic_launches_share_a_run)
{
	struct cb cb;
	unsigned int i;

	T = A;
	iq_setup(Q_NIC_AB, 2);
	cb = cb_new(1024);
	for (i = 0; i < 3; i++) {
		cb_wreg32(&cb, GAUDISIM_NIC_TX_SRC_LO, (uint32_t)(SRC + i * LEN));
		cb_wreg32(&cb, GAUDISIM_NIC_TX_DST_LO, (uint32_t)(DST + i * LEN));
		cb_wreg32(&cb, GAUDISIM_NIC_TX_SIZE, LEN);
		cb_wreg32(&cb, GAUDISIM_NIC_TX_REMOTE_SOB, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
		cb_wreg32(&cb, GAUDISIM_NIC_TX_REMOTE_SOB_DATA, GAUDISIM_SYNC_SOB_ADD(1));
		cb_wreg32(&cb, GAUDISIM_NIC_TX_COMMIT, 1);
	}
	fill(A, SRC, 3 * LEN, 8);
	iq_submit(Q_NIC_AB, &cb);
	ck_assert(!gsim_core_run(A->core));
	ck_assert_uint_eq(nic_rd(A, PORT_AB, GAUDISIM_NIC_TX_XFERS), 3);
	ck_assert_uint_eq(sob_of(B, SOB), 3);
	ck_assert_mem_eq(gsim_core_hbm(B->core) + DST, gsim_core_hbm(A->core) + SRC, 3 * LEN);
}
END_TEST

/* ---- scale-out: two boxes, a transport the test carries by hand --------- */

/* The write send() was given, for the test to deliver. */
static struct sent {
	unsigned int calls;
	unsigned int module, port;
	uint64_t tag;
	struct gsim_fabric_write w;
	uint8_t payload[LEN];
	bool refuse;		/* send() fails, like a dead socket */
} SENT;

static int fake_send(void *opaque, unsigned int module, unsigned int port, uint64_t tag,
		     const struct gsim_fabric_write *w, const void *payload)
{
	(void)opaque;
	SENT.calls++;
	if (SENT.refuse)
		return -1;
	ck_assert_uint_le(w->size, LEN);
	SENT.module = module;
	SENT.port = port;
	SENT.tag = tag;
	SENT.w = *w;
	memcpy(SENT.payload, payload, w->size);
	return 0;
}

static const struct gsim_fabric_remote_ops fake_remote = { .send = fake_send };

/* The far box receives what was sent; its answer goes back to the sender. */
static int carry(struct gsim_fabric *to, struct gsim_fabric *from)
{
	int err = gsim_fabric_remote_receive(to, SENT.module, SENT.port, &SENT.w, SENT.payload);

	gsim_fabric_remote_done(from, SENT.module, SENT.port, SENT.tag, err);
	return err;
}

START_TEST(test_nic_scaleout)
{
	const unsigned int port = GAUDISIM_NIC_FIRST_SCALEOUT + 1;
	struct gsim_fabric *fx = gsim_fabric_new(), *fy = gsim_fabric_new();
	struct th *x = th_new(T_HOST_SIZE), *y = th_new(T_HOST_SIZE);

	memset(&SENT, 0, sizeof(SENT));
	ck_assert_int_eq(gsim_fabric_attach(fx, x->core, 3), 0);
	ck_assert_int_eq(gsim_fabric_attach(fy, y->core, 3), 0);
	rx_open(y, port);
	fill(x, SRC, LEN, 4);
	tx_desc(x, port, SRC, DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);

	/* No transport, then a transport whose cable is not up: LINK_DOWN. */
	ck_assert_uint_eq(tx_mmio(x, port), GAUDISIM_NIC_ERR_LINK_DOWN);
	gsim_fabric_set_remote(fx, &fake_remote, NULL);
	gsim_fabric_set_remote(fy, &fake_remote, NULL);
	ck_assert_uint_eq(tx_mmio(x, port), GAUDISIM_NIC_ERR_LINK_DOWN);
	ck_assert_uint_eq(SENT.calls, 0);
	gsim_fabric_remote_connected(fx, true);
	gsim_fabric_remote_connected(fy, true);
	ck_assert_uint_eq(nic_rd(x, port, GAUDISIM_NIC_LINK_STATUS),
			  GAUDISIM_NIC_LINK_UP | GAUDISIM_NIC_LINK_CABLED | GAUDISIM_NIC_LINK_SCALEOUT |
			  3u << GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT |
			  port << GAUDISIM_NIC_LINK_PEER_PORT_SHIFT);

	/* On its way: the engine is busy until the answer. */
	nic_wr(x, port, GAUDISIM_NIC_TX_COMMIT, 1);
	while (gsim_core_run(x->core))
		;
	ck_assert_uint_eq(SENT.calls, 1);
	ck_assert_uint_eq(SENT.module, 3);
	ck_assert_uint_eq(SENT.port, port);
	ck_assert(nic_rd(x, port, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_BUSY);
	/* An answer for another write changes nothing. */
	gsim_fabric_remote_done(fx, 3, port, SENT.tag + 1, 0);
	ck_assert(nic_rd(x, port, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_BUSY);
	ck_assert_int_eq(carry(fy, fx), GAUDISIM_NIC_ERR_NONE);
	ck_assert_uint_eq(nic_rd(x, port, GAUDISIM_ENG_STATUS), 0);
	ck_assert_mem_eq(gsim_core_hbm(y->core) + DST, gsim_core_hbm(x->core) + SRC, LEN);
	ck_assert_uint_eq(sob_of(y, SOB), 1);
	ck_assert_uint_eq(nic_rd(x, port, GAUDISIM_NIC_TX_BYTES_LO), LEN);
	ck_assert_uint_eq(nic_rd(y, port, GAUDISIM_NIC_RX_BYTES_LO), LEN);

	/* The far end refuses (outside its window): the sender learns why. */
	tx_desc(x, port, SRC, GAUDISIM_HBM_BASE, LEN, 0);
	nic_wr(x, port, GAUDISIM_NIC_TX_COMMIT, 1);
	while (gsim_core_run(x->core))
		;
	ck_assert_int_eq(carry(fy, fx), GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	ck_assert_uint_eq((nic_rd(x, port, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_ERR_MASK) >>
			  GAUDISIM_ENG_STATUS_ERR_SHIFT, GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	ck_assert_uint_eq(nic_rd(y, port, GAUDISIM_NIC_RX_REFUSED), 1);
	/* Inside y's window but not registered there: refused over the link too. */
	mr_wr(y, 0, GAUDISIM_NIC_RX_MR_CTRL, 0);
	memset(gsim_core_hbm(y->core) + DST, 0x5a, LEN);
	tx_desc(x, port, SRC, DST, LEN, GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB);
	nic_wr(x, port, GAUDISIM_NIC_TX_COMMIT, 1);
	while (gsim_core_run(x->core))
		;
	ck_assert_int_eq(carry(fy, fx), GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	ck_assert_uint_eq(nic_rd(y, port, GAUDISIM_NIC_RX_REFUSED), 2);
	ck_assert_uint_eq(gsim_core_hbm(y->core)[DST], 0x5a);
	ck_assert_uint_eq(sob_of(y, SOB), 1);
	mr_set(y, 0, WIN_BASE, WIN_SIZE, SOB, 64, 1);

	/* A cable that dies with a write on it: the write fails, no hang. */
	tx_desc(x, port, SRC, DST, LEN, 0);
	nic_wr(x, port, GAUDISIM_NIC_TX_COMMIT, 1);
	while (gsim_core_run(x->core))
		;
	gsim_fabric_remote_connected(fx, false);
	ck_assert_uint_eq((nic_rd(x, port, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_ERR_MASK) >>
			  GAUDISIM_ENG_STATUS_ERR_SHIFT, GAUDISIM_NIC_ERR_LINK_DOWN);
	ck_assert_uint_eq(nic_rd(x, port, GAUDISIM_NIC_LINK_STATUS), GAUDISIM_NIC_LINK_SCALEOUT);
	ck_assert_uint_eq(nic_rd(x, port, GAUDISIM_NIC_LINK_DOWN_CNT), 1);
	/* Its late answer is ignored. */
	ck_assert_int_eq(carry(fy, fx), GAUDISIM_NIC_ERR_NONE);
	ck_assert_uint_eq(nic_rd(x, port, GAUDISIM_NIC_TX_ERRS), 5);

	/* Up again, a send that fails at once, and a cut end on the far side. */
	gsim_fabric_remote_connected(fx, true);
	SENT.refuse = true;
	ck_assert_uint_eq(tx_mmio(x, port), GAUDISIM_NIC_ERR_LINK_DOWN);
	SENT.refuse = false;
	ck_assert_int_eq(gsim_fabric_set_link(fy, 3, port, false), 0);
	nic_wr(x, port, GAUDISIM_NIC_TX_COMMIT, 1);
	while (gsim_core_run(x->core))
		;
	ck_assert_int_eq(carry(fy, fx), GAUDISIM_NIC_ERR_LINK_DOWN);
	ck_assert_int_eq(gsim_fabric_remote_receive(fy, 9, port, &SENT.w, SENT.payload),
			 GAUDISIM_NIC_ERR_REMOTE_ACCESS);
	ck_assert_int_eq(gsim_fabric_remote_receive(fy, 3, 0, &SENT.w, SENT.payload),
			 GAUDISIM_NIC_ERR_REMOTE_ACCESS);

	gsim_fabric_free(fx);
	gsim_fabric_free(fy);
	th_free(x);
	th_free(y);
}
END_TEST

Suite *nic_suite(void)
{
	Suite *s = suite_create("nic");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_nic_transfer_remote_sob);
	tcase_add_test(tc, test_nic_fence_on_peer_wakes);
	tcase_add_test(tc, test_nic_rx_window_refused);
	tcase_add_test(tc, test_nic_rx_sob_refused);
	tcase_add_test(tc, test_nic_mr_nothing_registered);
	tcase_add_test(tc, test_nic_mr_outside_registration);
	tcase_add_test(tc, test_nic_mr_another_context);
	tcase_add_test(tc, test_nic_mr_sob_not_registered);
	tcase_add_test(tc, test_nic_mr_driver_only);
	tcase_add_test(tc, test_nic_cb_refused_fails_job);
	tcase_add_test(tc, test_nic_cb_source_reserved_refused);
	tcase_add_test(tc, test_nic_link_cut_and_restore);
	tcase_add_test(tc, test_nic_size_and_address_errors);
	tcase_add_test(tc, test_nic_rx_regs_driver_only);
	tcase_add_test(tc, test_nic_peer_reset);
	tcase_add_test(tc, test_nic_topology_and_attach);
	tcase_add_test(tc, test_nic_launches_share_a_run);
	tcase_add_test(tc, test_nic_scaleout);
	suite_add_tcase(s, tc);
	return s;
}
