/*
 * QTest for the gaudisim accelerator: the MME, the TPC and sync-object
 * chains between the engines.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "gaudisim-test.h"

static void cb_wreg32(Cb *cb, uint32_t reg, uint32_t value)
{
    cb_put32(cb, value);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | GAUDISIM_PKT_CTL_RB | reg);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof(u));
    return u;
}

/* D = A * B (FP32, M x K times K x N) through the MME queue, vs the CPU. */
void test_mme_gemm(void)
{
    enum { M = 8, N = 12, K = 16 };
    const uint64_t a = IQ_DATA_HBM, b = a + 0x1000, dd = a + 0x2000;
    GsimDev *d = gsim_boot();
    float ha[M * K], hb[K * N], want[M * N], got[M * N];
    uint8_t raw[M * K * 4];
    GsimQueue q;
    Cb cb = { .len = 0 };
    gint64 deadline;

    for (int i = 0; i < M * K; i++) {
        ha[i] = (float)((i * 7) % 13) - 6.0f;
    }
    for (int i = 0; i < K * N; i++) {
        hb[i] = (float)((i * 5) % 11) * 0.5f - 2.0f;
    }
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            float acc = 0;

            for (int k = 0; k < K; k++) {
                acc += ha[i * K + k] * hb[k * N + j];
            }
            want[i * N + j] = acc;
        }
    }
    for (int i = 0; i < M * K; i++) {
        stl_le_p(raw + 4 * i, f32_bits(ha[i]));
    }
    hbm_write(d, a, raw, M * K * 4);
    for (int i = 0; i < K * N; i++) {
        stl_le_p(raw + 4 * i, f32_bits(hb[i]));
    }
    hbm_write(d, b, raw, K * N * 4);

    queue_init(d, &q, GAUDISIM_QUEUE_ID_MME_0, 4);
    cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_LO, (uint32_t)a);
    cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_HI, a >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_B_ADDR_LO, (uint32_t)b);
    cb_wreg32(&cb, GAUDISIM_MME_B_ADDR_HI, b >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_C_ADDR_LO, (uint32_t)dd);
    cb_wreg32(&cb, GAUDISIM_MME_C_ADDR_HI, dd >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_D_ADDR_LO, (uint32_t)dd);
    cb_wreg32(&cb, GAUDISIM_MME_D_ADDR_HI, dd >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_M, M);
    cb_wreg32(&cb, GAUDISIM_MME_N, N);
    cb_wreg32(&cb, GAUDISIM_MME_K, K);
    cb_wreg32(&cb, GAUDISIM_MME_BATCH, 1);
    cb_wreg32(&cb, GAUDISIM_MME_LDA, K);
    cb_wreg32(&cb, GAUDISIM_MME_LDB, N);
    cb_wreg32(&cb, GAUDISIM_MME_LDC, N);
    cb_wreg32(&cb, GAUDISIM_MME_LDD, N);
    cb_wreg32(&cb, GAUDISIM_MME_DTYPE, 0);
    cb_wreg32(&cb, GAUDISIM_MME_CTRL, 0);
    cb_wreg32(&cb, GAUDISIM_MME_ALPHA, f32_bits(1.0f));
    cb_wreg32(&cb, GAUDISIM_MME_BETA, 0);
    cb_wreg32(&cb, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, 0);

    deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;
    while (reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_STATUS) &
           GAUDISIM_ENG_STATUS_BUSY) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(POLL_INTERVAL_US);
    }
    g_assert_cmpuint(reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_LAUNCH_CNT), ==, 1);
    g_assert_cmphex(reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_STATUS), ==, 0);
    hbm_read(d, dd, raw, M * N * 4);
    for (int i = 0; i < M * N; i++) {
        uint32_t u = ldl_le_p(raw + 4 * i);

        memcpy(&got[i], &u, sizeof(u));
        g_assert_cmpfloat_with_epsilon(got[i], want[i], 1e-3);
    }

    /* An operand in reserved HBM: the launch is refused (ENGINE_ERR). */
    cb.len = 0;
    cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_LO, (uint32_t)GAUDISIM_MMU_PGT_BASE);
    cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_HI, GAUDISIM_MMU_PGT_BASE >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
    iq_submit_wait(d, &q, &cb, true);
    deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;
    while (reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_LAUNCH_CNT) != 2 ||
           (reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_STATUS) &
            GAUDISIM_ENG_STATUS_BUSY)) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(POLL_INTERVAL_US);
    }
    g_assert_cmphex(reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_STATUS), ==,
                    GAUDISIM_ENG_STATUS_ERR |
                    GAUDISIM_MME_ERR_ADDR << GAUDISIM_ENG_STATUS_ERR_SHIFT);
    gsim_shutdown(d);
}

/*
 * A GEMM of about a second: 4096 x 4096 x 2048 FP32 on HBM (zeros: the
 * arithmetic costs the same), launched by the host over MMIO with its
 * completion message to an HBM word. It runs on a worker thread.
 */
#define LONG_GEMM_M         4096u
#define LONG_GEMM_N         4096u
#define LONG_GEMM_K         2048u
#define LONG_GEMM_A         (GAUDISIM_HBM_USER_BASE + (64ULL << 20))
#define LONG_GEMM_B         (LONG_GEMM_A + (64ULL << 20))
#define LONG_GEMM_D         (LONG_GEMM_B + (64ULL << 20))
#define LONG_GEMM_COMP      (GAUDISIM_HBM_USER_BASE + 0x100)
#define LONG_GEMM_COMP_DATA 0x600dcafeu

static void mme_reg_write(GsimDev *d, uint32_t off, uint32_t val)
{
    reg_write(d, GAUDISIM_MME_BLOCK + off, val);
}

/* The long GEMM, or its first @m rows. */
static void long_gemm_commit(GsimDev *d, uint32_t m)
{
    uint32_t zero = 0;

    hbm_write(d, LONG_GEMM_COMP, &zero, sizeof(zero));
    mme_reg_write(d, GAUDISIM_MME_A_ADDR_LO, (uint32_t)LONG_GEMM_A);
    mme_reg_write(d, GAUDISIM_MME_A_ADDR_HI, LONG_GEMM_A >> 32);
    mme_reg_write(d, GAUDISIM_MME_B_ADDR_LO, (uint32_t)LONG_GEMM_B);
    mme_reg_write(d, GAUDISIM_MME_B_ADDR_HI, LONG_GEMM_B >> 32);
    mme_reg_write(d, GAUDISIM_MME_D_ADDR_LO, (uint32_t)LONG_GEMM_D);
    mme_reg_write(d, GAUDISIM_MME_D_ADDR_HI, LONG_GEMM_D >> 32);
    mme_reg_write(d, GAUDISIM_MME_M, m);
    mme_reg_write(d, GAUDISIM_MME_N, LONG_GEMM_N);
    mme_reg_write(d, GAUDISIM_MME_K, LONG_GEMM_K);
    mme_reg_write(d, GAUDISIM_MME_BATCH, 1);
    mme_reg_write(d, GAUDISIM_MME_LDA, LONG_GEMM_K);
    mme_reg_write(d, GAUDISIM_MME_LDB, LONG_GEMM_N);
    mme_reg_write(d, GAUDISIM_MME_LDC, LONG_GEMM_N);
    mme_reg_write(d, GAUDISIM_MME_LDD, LONG_GEMM_N);
    mme_reg_write(d, GAUDISIM_MME_DTYPE, 0);
    mme_reg_write(d, GAUDISIM_MME_CTRL, 0);
    mme_reg_write(d, GAUDISIM_MME_ALPHA, f32_bits(1.0f));
    mme_reg_write(d, GAUDISIM_MME_BETA, 0);
    mme_reg_write(d, GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)LONG_GEMM_COMP);
    mme_reg_write(d, GAUDISIM_ENG_WR_COMP_ADDR_HI, LONG_GEMM_COMP >> 32);
    mme_reg_write(d, GAUDISIM_ENG_WR_COMP_WDATA, LONG_GEMM_COMP_DATA);
    mme_reg_write(d, GAUDISIM_ENG_WR_COMP_EN, 1);
    mme_reg_write(d, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
}

static bool mme_busy(GsimDev *d)
{
    return reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_STATUS) &
           GAUDISIM_ENG_STATUS_BUSY;
}

static uint32_t long_gemm_comp(GsimDev *d)
{
    uint32_t v;

    hbm_read(d, LONG_GEMM_COMP, &v, sizeof(v));
    return le32_to_cpu(v);
}

/* A word of D's last row: written by the GEMM's last block. */
static uint32_t long_gemm_d_tail(GsimDev *d)
{
    uint32_t v;

    hbm_read(d, LONG_GEMM_D + 4ULL * LONG_GEMM_M * LONG_GEMM_N - 4, &v,
             sizeof(v));
    return le32_to_cpu(v);
}

/*
 * The main loop stays responsive while the GEMM computes: register reads
 * keep answering and see the engine busy many times (a GEMM computed in
 * the main loop would block every read until it ended), and the
 * completion message follows the end.
 */
void test_mme_long_gemm_responsive(void)
{
    GsimDev *d = gsim_boot();
    const uint32_t marker = 0x7f7f7f7fu;
    unsigned int busy_reads = 0;
    gint64 deadline;

    hbm_write(d, LONG_GEMM_D + 4ULL * LONG_GEMM_M * LONG_GEMM_N - 4, &marker,
              sizeof(marker));
    long_gemm_commit(d, LONG_GEMM_M);
    deadline = g_get_monotonic_time() + 12 * WAIT_TIMEOUT_US;
    while (mme_busy(d)) {
        busy_reads++;
        g_assert_cmphex(reg_read(d, GAUDISIM_REG_ID), ==, GAUDISIM_ID_MAGIC);
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
    }
    g_assert_cmpuint(busy_reads, >=, 20);
    g_assert_cmphex(long_gemm_comp(d), ==, LONG_GEMM_COMP_DATA);
    g_assert_cmphex(long_gemm_d_tail(d), ==, 0);
    g_assert_cmphex(reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_STATUS), ==,
                    0);
    gsim_shutdown(d);
}

/*
 * A hard reset while the GEMM runs on a worker: afterwards the engine is
 * idle, and nothing of the GEMM follows - no completion message, no
 * interrupt, no further write to D - while the device works on.
 */
void test_mme_reset_during_long_gemm(void)
{
    GsimDev *d = gsim_boot();
    const uint32_t marker = 0x7f7f7f7fu;
    gint64 deadline;
    uint32_t tail;

    hbm_write(d, LONG_GEMM_D + 4ULL * LONG_GEMM_M * LONG_GEMM_N - 4, &marker,
              sizeof(marker));
    long_gemm_commit(d, LONG_GEMM_M);
    g_assert_true(mme_busy(d));
    g_usleep(50 * 1000);
    g_assert_true(mme_busy(d));
    reg_write(d, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
    g_assert_false(mme_busy(d));
    g_assert_cmpuint(reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_LAUNCH_CNT),
                     ==, 0);
    tail = long_gemm_d_tail(d);
    g_assert_cmphex(tail, ==, marker);
    g_usleep(1500 * 1000);
    g_assert_cmphex(long_gemm_d_tail(d), ==, marker);
    g_assert_cmphex(long_gemm_comp(d), ==, 0);
    g_assert_cmpuint(msix_pending_count(d), ==, 0);

    /* The MME works again: a short GEMM completes. */
    long_gemm_commit(d, 64);
    deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;
    while (long_gemm_comp(d) != LONG_GEMM_COMP_DATA) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(POLL_INTERVAL_US);
    }
    g_assert_cmpuint(reg_read(d, GAUDISIM_MME_BLOCK + GAUDISIM_ENG_LAUNCH_CNT),
                     ==, 1);
    gsim_shutdown(d);
}

static uint64_t sob_addr(unsigned int sob)
{
    return GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(sob);
}

static uint64_t fence_addr(const GsimQueue *q)
{
    return GAUDISIM_CFG_BASE + qm_reg(q, GAUDISIM_QM_CP_FENCE_RDATA(0, q->stream));
}

/* Monitor @m: when SOB @sob >= 1, add 1 to fence 0 of @q. */
static void mon_chain(GsimDev *d, unsigned int m, unsigned int sob, const GsimQueue *q)
{
    uint32_t blk = GAUDISIM_BLOCK_SYNC_MNGR;

    reg_write(d, blk + GAUDISIM_SYNC_MON_PAY_ADDRL(m), (uint32_t)fence_addr(q));
    reg_write(d, blk + GAUDISIM_SYNC_MON_PAY_ADDRH(m), fence_addr(q) >> 32);
    reg_write(d, blk + GAUDISIM_SYNC_MON_PAY_DATA(m), 1);
    reg_write(d, blk + GAUDISIM_SYNC_MON_ARM(m), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 1));
}

/*
 * External DMA (host -> HBM) -> MME GEMM -> HBM-DMA copy -> external DMA
 * (HBM -> host), each stage released by the previous one through a sync
 * object, a monitor and a FENCE. Stages are queued last-first, so only the
 * chain can make them run.
 */
void test_chain(void)
{
    enum { M = 4, N = 8, K = 8, SOB = GAUDISIM_SYNC_FIRST_USER_SOB,
           MON = GAUDISIM_SYNC_FIRST_USER_MON };
    const uint64_t a = IQ_DATA_HBM, b = a + 0x1000, dd = a + 0x2000, e = a + 0x3000;
    GsimDev *d = gsim_boot();
    uint64_t src_bus = guest_alloc(&d->qs->alloc, 0x2000);
    uint64_t dst_bus = guest_alloc(&d->qs->alloc, M * N * 4);
    uint8_t raw[0x2000] = { 0 }, out[M * N * 4];
    float ha[M * K], hb[K * N];
    GsimQueue ext0, ext1, mme, hdma;
    unsigned int slot1, slot0;
    Cb cb = { .len = 0 };

    for (int i = 0; i < M * K; i++) {
        ha[i] = (float)(i % 5) - 2.0f;
        stl_le_p(raw + 4 * i, f32_bits(ha[i]));
    }
    for (int i = 0; i < K * N; i++) {
        hb[i] = (float)(i % 3) + 0.25f;
        stl_le_p(raw + 0x1000 + 4 * i, f32_bits(hb[i]));
    }
    qtest_memwrite(d->qts, src_bus, raw, sizeof(raw));
    qtest_memset(d->qts, dst_bus, 0, M * N * 4);

    queue_init(d, &ext0, GAUDISIM_QUEUE_ID_DMA_0_0, 4);
    queue_init(d, &ext1, GAUDISIM_QUEUE_ID_DMA_1_0, 4);
    queue_init(d, &mme, GAUDISIM_QUEUE_ID_MME_0, 4);
    queue_init(d, &hdma, IQ_ID, 4);
    mon_chain(d, MON, SOB, &mme);
    mon_chain(d, MON + 1, SOB + 1, &hdma);
    mon_chain(d, MON + 2, SOB + 2, &ext1);

    /* Stage 4: HBM -> host, after the HBM-DMA. */
    cb_fence(&cb, 0, 1, 1);
    cb_lin_dma(&cb, e, host_addr(dst_bus), M * N * 4);
    slot1 = queue_submit(d, &ext1, &cb);
    /* Stage 3: HBM-DMA copy, after the MME. */
    cb.len = 0;
    cb_fence(&cb, 0, 1, 1);
    cb_lin_dma(&cb, dd, e, M * N * 4);
    cb_msg_long(&cb, GAUDISIM_SYNC_SOB_ADD(1), sob_addr(SOB + 2));
    iq_submit_wait(d, &hdma, &cb, false);
    /* Stage 2: the GEMM, after the upload; its completion message signals. */
    cb.len = 0;
    cb_fence(&cb, 0, 1, 1);
    cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_LO, (uint32_t)a);
    cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_HI, a >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_B_ADDR_LO, (uint32_t)b);
    cb_wreg32(&cb, GAUDISIM_MME_B_ADDR_HI, b >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_C_ADDR_LO, (uint32_t)dd);
    cb_wreg32(&cb, GAUDISIM_MME_C_ADDR_HI, dd >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_D_ADDR_LO, (uint32_t)dd);
    cb_wreg32(&cb, GAUDISIM_MME_D_ADDR_HI, dd >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_M, M);
    cb_wreg32(&cb, GAUDISIM_MME_N, N);
    cb_wreg32(&cb, GAUDISIM_MME_K, K);
    cb_wreg32(&cb, GAUDISIM_MME_BATCH, 1);
    cb_wreg32(&cb, GAUDISIM_MME_LDA, K);
    cb_wreg32(&cb, GAUDISIM_MME_LDB, N);
    cb_wreg32(&cb, GAUDISIM_MME_LDC, N);
    cb_wreg32(&cb, GAUDISIM_MME_LDD, N);
    cb_wreg32(&cb, GAUDISIM_MME_DTYPE, 0);
    cb_wreg32(&cb, GAUDISIM_MME_CTRL, 0);
    cb_wreg32(&cb, GAUDISIM_MME_ALPHA, f32_bits(1.0f));
    cb_wreg32(&cb, GAUDISIM_MME_BETA, 0);
    cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)sob_addr(SOB + 1));
    cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_ADDR_HI, sob_addr(SOB + 1) >> 32);
    cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_WDATA, GAUDISIM_SYNC_SOB_ADD(1));
    cb_wreg32(&cb, GAUDISIM_ENG_WR_COMP_EN, 1);
    cb_wreg32(&cb, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
    iq_submit_wait(d, &mme, &cb, false);
    settle();
    /* Nothing moved yet. */
    g_assert_cmphex(cq_entry(d, &ext1, slot1), ==, 0);
    g_assert_true(wait_cp_sts(d, &mme, GAUDISIM_CP_STS_FENCE_WAIT));

    /* Stage 1: upload A and B, then signal the first SOB. */
    cb.len = 0;
    cb_lin_dma(&cb, host_addr(src_bus), a, sizeof(raw));
    cb_msg_long(&cb, GAUDISIM_SYNC_SOB_ADD(1), sob_addr(SOB));
    slot0 = queue_submit(d, &ext0, &cb);

    g_assert_true(msix_wait(d, ext1.id));
    g_assert_cmphex(cq_entry(d, &ext0, slot0), ==, CQ_OK(0));
    g_assert_cmphex(cq_entry(d, &ext1, slot1), ==, CQ_OK(0));
    qtest_memread(d->qts, dst_bus, out, sizeof(out));
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            float acc = 0, got;
            uint32_t u = ldl_le_p(out + 4 * (i * N + j));

            for (int k = 0; k < K; k++) {
                acc += ha[i * K + k] * hb[k * N + j];
            }
            memcpy(&got, &u, sizeof(got));
            g_assert_cmpfloat_with_epsilon(got, acc, 1e-3);
        }
    }
    gsim_shutdown(d);
}

/* runtime/kernels/relu.tpcs, assembled (T0 = x, T1 = out, FP32). */
static const uint8_t relu_kernel[] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2d, 0x80, 0x00, 0x80, 0x01, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x2e, 0x00, 0x1a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x83, 0x00,
    0x4a, 0x81, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2f, 0x80, 0x0a, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0xc7, 0x00, 0x4a, 0x2b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x02, 0x00, 0x00, 0x08, 0x80,
    0x10, 0x80, 0x00, 0x00, 0x01, 0x80, 0x10, 0x02, 0x00, 0x00, 0x2a, 0x80,
    0x00, 0x28, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/*
 * Program the TPC for relu_kernel (already at HBM @kern): @nelem FP32
 * values from @x to @y. The caller adds the COMMIT.
 */
static void cb_tpc_relu_setup(Cb *cb, uint64_t kern, uint64_t x, uint64_t y,
                              uint32_t nelem)
{
    cb_wreg32(cb, GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)kern);
    cb_wreg32(cb, GAUDISIM_TPC_KERNEL_ADDR_HI, kern >> 32);
    cb_wreg32(cb, GAUDISIM_TPC_KERNEL_SIZE, sizeof(relu_kernel));
    cb_wreg32(cb, GAUDISIM_TPC_ISPACE_SIZE(0), 1);
    for (unsigned int t = 0; t < 2; t++) {
        uint32_t td = GAUDISIM_TPC_TENSOR(t);
        uint64_t base = t ? y : x;

        cb_wreg32(cb, td + GAUDISIM_TPC_T_BASE_LO, (uint32_t)base);
        cb_wreg32(cb, td + GAUDISIM_TPC_T_BASE_HI, base >> 32);
        cb_wreg32(cb, td + GAUDISIM_TPC_T_DTYPE, GAUDISIM_DTYPE_FP32);
        cb_wreg32(cb, td + GAUDISIM_TPC_T_SIZE(0), nelem);
        cb_wreg32(cb, td + GAUDISIM_TPC_T_STRIDE(0), 1);
    }
}

/* relu over 1000 FP32 values on TPC 0, launched through its queue. */
void test_tpc_relu(void)
{
    enum { NELEM = 1000 };
    const uint64_t kern = IQ_DATA_HBM, x = kern + 0x1000, y = x + 0x1000;
    const uint32_t blk = GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_TPC_0);
    GsimDev *d = gsim_boot();
    uint8_t raw[NELEM * 4];
    float in[NELEM];
    GsimQueue q;
    Cb cb = { .len = 0 };
    gint64 deadline;

    for (int i = 0; i < NELEM; i++) {
        in[i] = (float)((i * 37) % 101) - 50.0f;
        stl_le_p(raw + 4 * i, f32_bits(in[i]));
    }
    hbm_write(d, kern, relu_kernel, sizeof(relu_kernel));
    hbm_write(d, x, raw, sizeof(raw));
    memset(raw, 0xee, sizeof(raw));
    hbm_write(d, y, raw, sizeof(raw));

    queue_init(d, &q, GAUDISIM_QUEUE_ID_TPC_0_0, 4);
    cb_tpc_relu_setup(&cb, kern, x, y, NELEM);
    cb_wreg32(&cb, GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, 0);

    deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;
    while (reg_read(d, blk + GAUDISIM_ENG_LAUNCH_CNT) != 1 ||
           (reg_read(d, blk + GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_BUSY)) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(POLL_INTERVAL_US);
    }
    g_assert_cmphex(reg_read(d, blk + GAUDISIM_ENG_STATUS), ==, 0);
    hbm_read(d, y, raw, sizeof(raw));
    for (int i = 0; i < NELEM; i++) {
        float want = in[i] > 0 ? in[i] : 0.0f;

        g_assert_cmphex(ldl_le_p(raw + 4 * i), ==, f32_bits(want));
    }
    gsim_shutdown(d);
}

/* The engine's completion message: add 1 to SOB @sob after every launch. */
static void cb_eng_signal(Cb *cb, unsigned int sob)
{
    cb_wreg32(cb, GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)sob_addr(sob));
    cb_wreg32(cb, GAUDISIM_ENG_WR_COMP_ADDR_HI, sob_addr(sob) >> 32);
    cb_wreg32(cb, GAUDISIM_ENG_WR_COMP_WDATA, GAUDISIM_SYNC_SOB_ADD(1));
    cb_wreg32(cb, GAUDISIM_ENG_WR_COMP_EN, 1);
}

/*
 * External DMA (host -> HBM) -> MME GEMM -> TPC relu -> external DMA
 * (HBM -> host), each stage released by the previous one through a sync
 * object, a monitor and a FENCE; queued last-first, like test_chain.
 */
void test_chain_relu(void)
{
    enum { M = 4, N = 8, K = 8, SOB = GAUDISIM_SYNC_FIRST_USER_SOB,
           MON = GAUDISIM_SYNC_FIRST_USER_MON };
    const uint64_t a = IQ_DATA_HBM, b = a + 0x1000, dd = a + 0x2000,
                   e = a + 0x3000, kern = a + 0x4000;
    const uint32_t tpc_blk = GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_TPC_0);
    GsimDev *d = gsim_boot();
    uint64_t src_bus = guest_alloc(&d->qs->alloc, 0x2000);
    uint64_t dst_bus = guest_alloc(&d->qs->alloc, M * N * 4);
    uint8_t raw[0x2000] = { 0 }, out[M * N * 4];
    float ha[M * K], hb[K * N];
    GsimQueue ext0, ext1, mme, tpc;
    unsigned int slot1, slot0, negatives = 0;
    Cb cb = { .len = 0 };

    /* Mixed signs, so relu has something to clamp. */
    for (int i = 0; i < M * K; i++) {
        ha[i] = (float)(i % 5) - 2.0f;
        stl_le_p(raw + 4 * i, f32_bits(ha[i]));
    }
    for (int i = 0; i < K * N; i++) {
        hb[i] = (float)(i % 7) * 0.5f - 1.25f;
        stl_le_p(raw + 0x1000 + 4 * i, f32_bits(hb[i]));
    }
    qtest_memwrite(d->qts, src_bus, raw, sizeof(raw));
    qtest_memset(d->qts, dst_bus, 0xee, M * N * 4);
    hbm_write(d, kern, relu_kernel, sizeof(relu_kernel));

    queue_init(d, &ext0, GAUDISIM_QUEUE_ID_DMA_0_0, 4);
    queue_init(d, &ext1, GAUDISIM_QUEUE_ID_DMA_1_0, 4);
    queue_init(d, &mme, GAUDISIM_QUEUE_ID_MME_0, 4);
    queue_init(d, &tpc, GAUDISIM_QUEUE_ID_TPC_0_0, 4);
    /* Its CB takes the next IQ_CB_HBM slot: the MME's CB must not overlap it. */
    tpc.jobs = 1;
    mon_chain(d, MON, SOB, &mme);
    mon_chain(d, MON + 1, SOB + 1, &tpc);
    mon_chain(d, MON + 2, SOB + 2, &ext1);

    /* Stage 4: HBM -> host, after the TPC. */
    cb_fence(&cb, 0, 1, 1);
    cb_lin_dma(&cb, e, host_addr(dst_bus), M * N * 4);
    slot1 = queue_submit(d, &ext1, &cb);
    /* Stage 3: relu over the GEMM output, after the MME. */
    cb.len = 0;
    cb_fence(&cb, 0, 1, 1);
    cb_tpc_relu_setup(&cb, kern, dd, e, M * N);
    cb_eng_signal(&cb, SOB + 2);
    cb_wreg32(&cb, GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
    iq_submit_wait(d, &tpc, &cb, false);
    /* Stage 2: the GEMM, after the upload. */
    cb.len = 0;
    cb_fence(&cb, 0, 1, 1);
    cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_LO, (uint32_t)a);
    cb_wreg32(&cb, GAUDISIM_MME_A_ADDR_HI, a >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_B_ADDR_LO, (uint32_t)b);
    cb_wreg32(&cb, GAUDISIM_MME_B_ADDR_HI, b >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_C_ADDR_LO, (uint32_t)dd);
    cb_wreg32(&cb, GAUDISIM_MME_C_ADDR_HI, dd >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_D_ADDR_LO, (uint32_t)dd);
    cb_wreg32(&cb, GAUDISIM_MME_D_ADDR_HI, dd >> 32);
    cb_wreg32(&cb, GAUDISIM_MME_M, M);
    cb_wreg32(&cb, GAUDISIM_MME_N, N);
    cb_wreg32(&cb, GAUDISIM_MME_K, K);
    cb_wreg32(&cb, GAUDISIM_MME_BATCH, 1);
    cb_wreg32(&cb, GAUDISIM_MME_LDA, K);
    cb_wreg32(&cb, GAUDISIM_MME_LDB, N);
    cb_wreg32(&cb, GAUDISIM_MME_LDC, N);
    cb_wreg32(&cb, GAUDISIM_MME_LDD, N);
    cb_wreg32(&cb, GAUDISIM_MME_DTYPE, 0);
    cb_wreg32(&cb, GAUDISIM_MME_CTRL, 0);
    cb_wreg32(&cb, GAUDISIM_MME_ALPHA, f32_bits(1.0f));
    cb_wreg32(&cb, GAUDISIM_MME_BETA, 0);
    cb_eng_signal(&cb, SOB + 1);
    cb_wreg32(&cb, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
    iq_submit_wait(d, &mme, &cb, false);
    settle();
    /* Nothing moved yet. */
    g_assert_cmphex(cq_entry(d, &ext1, slot1), ==, 0);
    g_assert_true(wait_cp_sts(d, &mme, GAUDISIM_CP_STS_FENCE_WAIT));
    g_assert_true(wait_cp_sts(d, &tpc, GAUDISIM_CP_STS_FENCE_WAIT));
    g_assert_cmpuint(reg_read(d, tpc_blk + GAUDISIM_ENG_LAUNCH_CNT), ==, 0);

    /* Stage 1: upload A and B, then signal the first SOB. */
    cb.len = 0;
    cb_lin_dma(&cb, host_addr(src_bus), a, sizeof(raw));
    cb_msg_long(&cb, GAUDISIM_SYNC_SOB_ADD(1), sob_addr(SOB));
    slot0 = queue_submit(d, &ext0, &cb);

    g_assert_true(msix_wait(d, ext1.id));
    g_assert_cmphex(cq_entry(d, &ext0, slot0), ==, CQ_OK(0));
    g_assert_cmphex(cq_entry(d, &ext1, slot1), ==, CQ_OK(0));
    g_assert_cmpuint(iq_err(d, &mme), ==, 0);
    g_assert_cmpuint(iq_err(d, &tpc), ==, 0);
    g_assert_cmpuint(reg_read(d, tpc_blk + GAUDISIM_ENG_LAUNCH_CNT), ==, 1);
    g_assert_cmphex(reg_read(d, tpc_blk + GAUDISIM_ENG_STATUS), ==, 0);
    qtest_memread(d->qts, dst_bus, out, sizeof(out));
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            float acc = 0, got;
            uint32_t u = ldl_le_p(out + 4 * (i * N + j));

            for (int k = 0; k < K; k++) {
                acc += ha[i * K + k] * hb[k * N + j];
            }
            negatives += acc < 0;
            memcpy(&got, &u, sizeof(got));
            g_assert_cmpfloat_with_epsilon(got, acc > 0 ? acc : 0.0f, 1e-3);
        }
    }
    /* Otherwise relu would not have been tested. */
    g_assert_cmpuint(negatives, >, 0);
    g_assert_cmpuint(negatives, <, M * N);
    gsim_shutdown(d);
}
