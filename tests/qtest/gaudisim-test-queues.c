/*
 * QTest for the gaudisim accelerator: jobs through the external queues,
 * fences, malformed CBs and resets mid-job.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "gaudisim-test.h"

/* ---- tests: jobs */

void test_dma_job(void)
{
    GsimDev *d = gsim_boot();
    const uint64_t hbm_addr = GAUDISIM_HBM_USER_BASE + 0x1000;
    const size_t size = 3 * 4096 + 40;
    g_autofree uint8_t *src = g_malloc(size);
    g_autofree uint8_t *got = g_malloc(size);
    GsimQueue q;

    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0, 4);
    run_dma_job(d, &q, hbm_addr, size, 3);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_CB_DONE_CNT), ==, 1);
    g_assert_cmpuint(qpci_io_readq(d->pdev, d->cfg, GAUDISIM_REG_DMA_BYTES_LO),
                     >=, 2 * size);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_ERR_PKT_CNT), ==, 0);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_ERR_DMA_CNT), ==, 0);
    g_assert_cmphex(reg_read(d, qm_reg(&q, GAUDISIM_QM_CP_STS(q.stream))), ==,
                    0);

    /* The data sits in HBM where the BAR window shows it. */
    window_set(d, GAUDISIM_HBM_USER_BASE);
    fill_pattern(src, size, 3);
    qpci_memread(d->pdev, d->hbm, hbm_addr - GAUDISIM_HBM_USER_BASE, got, size);
    g_assert_cmpmem(got, size, src, size);

    /* A second job on the same ring. */
    run_dma_job(d, &q, hbm_addr + 0x100000, 4096, 4);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_CB_DONE_CNT), ==, 2);
    gsim_shutdown(d);
}

void test_all_queues(void)
{
    GsimDev *d = gsim_boot();
    GsimQueue q[GAUDISIM_NUM_EXT_QUEUES];

    for (unsigned int i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++) {
        queue_init(d, &q[i], i, 2);
    }
    /* Each queue raises its own vector; run more jobs than PQ entries. */
    for (unsigned int round = 0; round < 6; round++) {
        for (unsigned int i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++) {
            run_dma_job(d, &q[i], GAUDISIM_HBM_USER_BASE + i * 0x10000, 512,
                        round * 16 + i);
        }
    }
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_CB_DONE_CNT), ==,
                     6 * GAUDISIM_NUM_EXT_QUEUES);
    gsim_shutdown(d);
}

/*
 * A job larger than one run of the core (memset, then HBM-to-HBM copy):
 * the bottom half must come back until it is done.
 */
void test_large_job(void)
{
    GsimDev *d = gsim_boot();
    const uint64_t a = GAUDISIM_HBM_USER_BASE;
    const uint64_t b = GAUDISIM_HBM_USER_BASE + TEST_HBM_BAR_SIZE;
    const uint32_t size = 48 << 20;
    const uint64_t probes[] = { 0, 4095, size / 2, size - 1 };
    GsimQueue q;
    unsigned int slot;
    Cb cb = { .len = 0 };

    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0, 2);
    cb_put32(&cb, size);
    cb_put32(&cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) |
             GAUDISIM_LIN_DMA_CTL_LIN | GAUDISIM_LIN_DMA_CTL_MEMSET);
    cb_put64(&cb, 0x5a);
    cb_put64(&cb, GAUDISIM_HBM_BASE + a);
    cb_lin_dma(&cb, GAUDISIM_HBM_BASE + a, GAUDISIM_HBM_BASE + b, size);
    slot = queue_submit(d, &q, &cb);

    g_assert_true(msix_wait(d, q.id));
    g_assert_cmphex(cq_entry(d, &q, slot), ==, CQ_OK(0));
    window_set(d, b);
    for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
        g_assert_cmphex(qpci_io_readb(d->pdev, d->hbm, probes[i]), ==, 0x5a);
    }
    g_assert_cmphex(qpci_io_readb(d->pdev, d->hbm, size), ==, 0);
    g_assert_cmpuint(qpci_io_readq(d->pdev, d->cfg, GAUDISIM_REG_DMA_BYTES_LO),
                     >=, 2ULL * size);
    gsim_shutdown(d);
}

/* Run @body, expect an error completion with @code. */
static void expect_error_job(GsimDev *d, GsimQueue *q, const Cb *body,
                             uint8_t code)
{
    uint32_t shadow = q->jobs & GAUDISIM_BD_CTL_SHADOW_INDEX_MASK;
    unsigned int slot = queue_submit(d, q, body);
    uint32_t sts;

    g_assert_true(msix_wait(d, q->id));
    g_assert_cmphex(cq_entry(d, q, slot), ==, CQ_ERR(shadow, code));
    sts = reg_read(d, qm_reg(q, GAUDISIM_QM_CP_STS(q->stream)));
    g_assert_cmphex((sts & GAUDISIM_CP_STS_ERR_MASK) >>
                    GAUDISIM_CP_STS_ERR_SHIFT, ==, code);
    msix_ack(d, q->id);
}

void test_malformed(void)
{
    GsimDev *d = gsim_boot();
    uint64_t scratch = guest_alloc(&d->qs->alloc, 64);
    GsimQueue q;
    uint32_t done;
    Cb cb;

    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_1_0 + 2, 3);

    /* Unknown opcode after a good packet. */
    cb.len = 0;
    cb_nop(&cb);
    cb_put32(&cb, 0);
    cb_put32(&cb, GAUDISIM_PKT_CTL(UNDEFINED_OPCODE));
    expect_error_job(d, &q, &cb, GAUDISIM_CP_ERR_UNDEF_OPCODE);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_ERR_PKT_CNT), ==, 1);
    g_assert_cmpuint(reg_read(d, qm_reg(&q, GAUDISIM_QM_CP_ERR_CNT(q.stream))),
                     ==, 1);

    /* A LIN_DMA cut off after its header: it runs into the tail. */
    cb.len = 0;
    cb_nop(&cb);
    cb_put32(&cb, 64);
    cb_put32(&cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) |
             GAUDISIM_LIN_DMA_CTL_LIN);
    expect_error_job(d, &q, &cb, GAUDISIM_CP_ERR_PKT_OVERRUN);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_ERR_PKT_CNT), ==, 2);

    /* A LIN_DMA from an address outside every memory. */
    cb.len = 0;
    cb_lin_dma(&cb, GAUDISIM_HBM_BASE + TEST_HBM_SIZE, GAUDISIM_HBM_USER_BASE,
               4096);
    expect_error_job(d, &q, &cb, GAUDISIM_CP_ERR_DMA_ADDR);

    /*
     * A DMA aimed at the device's own register BAR (here: RESET) is a
     * re-entrant access; QEMU refuses it and the job fails, the device
     * does not reset itself.
     */
    qtest_writel(d->qts, scratch, GAUDISIM_RESET_HARD);
    cb.len = 0;
    cb_lin_dma(&cb, host_addr(scratch),
               host_addr(d->cfg.addr + GAUDISIM_REG_RESET), 4);
    expect_error_job(d, &q, &cb, GAUDISIM_CP_ERR_HOST_FAULT);
    g_assert_cmpuint(reg_read(d, qm_reg(&q, GAUDISIM_QM_PQ_SIZE(q.stream))),
                     ==, 3);

    /* The stream still runs good jobs, and reports them as good. */
    done = reg_read(d, GAUDISIM_REG_CB_DONE_CNT);
    run_dma_job(d, &q, GAUDISIM_HBM_USER_BASE, 8192, 9);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_CB_DONE_CNT), ==, done + 1);
    gsim_shutdown(d);
}

/* Submit a job that parks on fence 0 of its stream until it is released. */
static unsigned int submit_fenced_job(GsimDev *d, GsimQueue *q,
                                      uint64_t src_bus, uint64_t dst_bus,
                                      size_t size)
{
    Cb cb = { .len = 0 };
    unsigned int slot;

    cb_fence(&cb, 0, 1, 1);
    cb_lin_dma(&cb, host_addr(src_bus), host_addr(dst_bus), size);
    slot = queue_submit(d, q, &cb);
    g_assert_true(wait_cp_sts(d, q, GAUDISIM_CP_STS_FENCE_WAIT));
    return slot;
}

void test_fence(void)
{
    GsimDev *d = gsim_boot();
    const size_t size = 1024;
    uint8_t src[1024], got[1024];
    uint64_t src_bus = guest_alloc(&d->qs->alloc, size);
    uint64_t dst_bus = guest_alloc(&d->qs->alloc, size);
    GsimQueue q;
    unsigned int slot;
    uint32_t fence_rdata;

    fill_pattern(src, size, 5);
    qtest_memwrite(d->qts, src_bus, src, size);
    qtest_memset(d->qts, dst_bus, 0, size);
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_3, 2);
    fence_rdata = qm_reg(&q, GAUDISIM_QM_CP_FENCE_RDATA(0, q.stream));

    slot = submit_fenced_job(d, &q, src_bus, dst_bus, size);
    settle();
    g_assert_cmphex(cq_entry(d, &q, slot), ==, 0);
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    g_assert_cmphex(qtest_readl(d->qts, dst_bus), ==, 0);

    /* Another fence's increment does not release it. */
    reg_write(d, qm_reg(&q, GAUDISIM_QM_CP_FENCE_RDATA(1, q.stream)), 1);
    settle();
    g_assert_cmphex(cq_entry(d, &q, slot), ==, 0);

    reg_write(d, fence_rdata, 1);
    g_assert_true(msix_wait(d, q.id));
    g_assert_cmphex(cq_entry(d, &q, slot), ==, CQ_OK(0));
    qtest_memread(d->qts, dst_bus, got, size);
    g_assert_cmpmem(got, size, src, size);
    /* The FENCE consumed what it waited for. */
    g_assert_cmpuint(reg_read(d, qm_reg(&q,
                     GAUDISIM_QM_CP_FENCE_CNT(0, q.stream))), ==, 0);
    g_assert_cmpuint(reg_read(d, qm_reg(&q,
                     GAUDISIM_QM_CP_FENCE_CNT(1, q.stream))), ==, 1);
    msix_ack(d, q.id);
    gsim_shutdown(d);
}

/* ---- tests: reset */

static void check_queue_regs_clear(GsimDev *d, GsimQueue *q)
{
    static const uint32_t regs[] = {
        GAUDISIM_QM_PQ_BASE_LO(0), GAUDISIM_QM_PQ_BASE_HI(0),
        GAUDISIM_QM_PQ_SIZE(0), GAUDISIM_QM_PQ_PI(0), GAUDISIM_QM_PQ_CI(0),
        GAUDISIM_QM_CP_STS(0), GAUDISIM_QM_CP_ERR_CNT(0),
    };

    for (size_t i = 0; i < ARRAY_SIZE(regs); i++) {
        uint32_t off = qm_reg(q, regs[i] + 4 * q->stream);

        g_assert_cmphex(reg_read(d, off), ==, 0);
    }
    g_assert_cmphex(reg_read(d, qm_reg(q, GAUDISIM_QM_GLBL_CFG0)), ==, 0);
    g_assert_cmphex(reg_read(d, qm_reg(q, GAUDISIM_QM_GLBL_STS0)), ==, 0);
}

/*
 * A job parked on a FENCE, then a reset (by @do_reset), then the fence is
 * released: nothing may complete, and a freshly initialised queue works.
 */
static void reset_mid_job(void (*do_reset)(GsimDev *d))
{
    GsimDev *d = gsim_boot();
    const size_t size = 512;
    uint64_t src_bus = guest_alloc(&d->qs->alloc, size);
    uint64_t dst_bus = guest_alloc(&d->qs->alloc, size);
    uint8_t mark[16];
    GsimQueue q;
    unsigned int slot;

    /* HBM survives a reset. */
    fill_pattern(mark, sizeof(mark), 7);
    qpci_memwrite(d->pdev, d->hbm, 0x800, mark, sizeof(mark));

    qtest_memset(d->qts, src_bus, 0xcc, size);
    qtest_memset(d->qts, dst_bus, 0, size);
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_1_0 + 1, 3);
    reg_write(d, GAUDISIM_REG_HW_STATE, GAUDISIM_HW_STATE_DIRTY);
    window_set(d, TEST_HBM_BAR_SIZE);
    slot = submit_fenced_job(d, &q, src_bus, dst_bus, size);

    do_reset(d);

    g_assert_cmphex(reg_read(d, GAUDISIM_REG_DEV_STATUS), ==,
                    GAUDISIM_DEV_STATUS_READY);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_HW_STATE), ==,
                    GAUDISIM_HW_STATE_CLEAN);
    check_queue_regs_clear(d, &q);
    reg_write(d, qm_reg(&q, GAUDISIM_QM_CP_FENCE_RDATA(0, q.stream)), 1);
    settle();
    g_assert_cmphex(cq_entry(d, &q, slot), ==, 0);
    g_assert_cmphex(qtest_readl(d->qts, dst_bus), ==, 0);
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_CB_DONE_CNT), ==, 0);
    check_queue_regs_clear(d, &q);
    {
        uint8_t got[sizeof(mark)];

        /* The window is back at 0, and BAR4 shows it. */
        g_assert_cmphex(window_get(d), ==, 0);
        qpci_memread(d->pdev, d->hbm, 0x800, got, sizeof(got));
        g_assert_cmpmem(got, sizeof(got), mark, sizeof(mark));
    }

    /* Re-initialised from scratch, the queue runs jobs again. */
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_1_0 + 1, 3);
    run_dma_job(d, &q, GAUDISIM_HBM_USER_BASE, 2048, 8);
    gsim_shutdown(d);
}

static void reset_by_system_reset(GsimDev *d)
{
    qtest_qmp_assert_success(d->qts, "{ 'execute': 'system_reset' }");
    qtest_qmp_eventwait(d->qts, "RESET");
    /* The PCI function was reset too: the driver probes it again. */
    g_assert_cmphex(qpci_config_readw(d->pdev, PCI_COMMAND) &
                    PCI_COMMAND_MASTER, ==, 0);
    gsim_enable(d);
}

static void reset_by_flr(GsimDev *d)
{
    uint8_t exp = qpci_find_capability(d->pdev, PCI_CAP_ID_EXP, 0);
    uint16_t ctl = qpci_config_readw(d->pdev, exp + PCI_EXP_DEVCTL);

    g_assert_cmphex(qpci_config_readl(d->pdev, exp + PCI_EXP_DEVCAP) &
                    PCI_EXP_DEVCAP_FLR, ==, PCI_EXP_DEVCAP_FLR);
    qpci_config_writew(d->pdev, exp + PCI_EXP_DEVCTL,
                       ctl | PCI_EXP_DEVCTL_BCR_FLR);
    g_assert_cmphex(qpci_config_readw(d->pdev, PCI_COMMAND) &
                    PCI_COMMAND_MEMORY, ==, 0);
    gsim_enable(d);
}

void test_reset_flr(void)
{
    reset_mid_job(reset_by_flr);
}

void test_reset_register(void)
{
    reset_mid_job(reset_by_register);
}

void test_reset_system(void)
{
    reset_mid_job(reset_by_system_reset);
}

/* ---- tests: LOAD_AND_EXE and predicates */

#define MSG_LONG_CTL \
    gaudisim_msg_ctl(GAUDISIM_PKT_MSG_LONG, GAUDISIM_MSG_OP_WRITE_VALUE, 0)

static void cb_msg_long_pred(Cb *cb, uint32_t value, uint64_t addr,
                             unsigned int pred)
{
    cb_put32(cb, value);
    cb_put32(cb, MSG_LONG_CTL | pred);
    cb_put64(cb, addr);
}

static void cb_load_and_exe(Cb *cb, uint32_t cfg, uint64_t src,
                            unsigned int pred)
{
    cb_put32(cb, cfg);
    cb_put32(cb, gaudisim_load_and_exe_ctl(pred, 0));
    cb_put64(cb, src);
}

/*
 * Gaudi's LOAD_AND_EXE on a queue: predicates (bit 0 of dword n is P n;
 * P0 always true) decide which predicated packets run, even a FENCE that
 * would block; scalars hold a packet that exe runs; the next CB starts
 * with both cleared.
 */
void test_load_and_exe(void)
{
    GsimDev *d = gsim_boot();
    uint64_t preds = guest_alloc(&d->qs->alloc,
                                 GAUDISIM_LOAD_AND_EXE_PRED_SIZE);
    uint64_t scal = guest_alloc(&d->qs->alloc,
                                GAUDISIM_LOAD_AND_EXE_SCALAR_SIZE);
    uint64_t dst = guest_alloc(&d->qs->alloc, 64);
    uint8_t msg[GAUDISIM_LOAD_AND_EXE_SCALAR_SIZE];
    GsimQueue q;
    unsigned int slot;
    Cb cb = { .len = 0 };

    qtest_memset(d->qts, preds, 0, GAUDISIM_LOAD_AND_EXE_PRED_SIZE);
    qtest_writel(d->qts, preds + 4 * 10, 1);
    qtest_writel(d->qts, preds + 4 * 11, 0xfffffffe);   /* bit 0 clear */
    stl_le_p(msg, 0x5ca1a125);
    stl_le_p(msg + 4, MSG_LONG_CTL);
    stq_le_p(msg + 8, host_addr(dst + 16));
    qtest_memwrite(d->qts, scal, msg, sizeof(msg));
    qtest_memset(d->qts, dst, 0, 64);
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_1_0 + 1, 2);

    cb_msg_long_pred(&cb, 1, host_addr(dst), 10);       /* not loaded yet */
    cb_load_and_exe(&cb, GAUDISIM_LOAD_AND_EXE_LOAD, host_addr(preds), 0);
    cb_msg_long_pred(&cb, 2, host_addr(dst + 4), 10);
    cb_msg_long_pred(&cb, 3, host_addr(dst + 8), 11);
    cb_put32(&cb, gaudisim_fence_cfg(0, 1, 1));        /* would block */
    cb_put32(&cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) | 11);
    cb_msg_long_pred(&cb, 4, host_addr(dst + 12), 0);
    cb_load_and_exe(&cb, GAUDISIM_LOAD_AND_EXE_LOAD |
                    GAUDISIM_LOAD_AND_EXE_DST | GAUDISIM_LOAD_AND_EXE_EXE,
                    host_addr(scal), 10);
    slot = queue_submit(d, &q, &cb);
    g_assert_true(msix_wait(d, q.id));
    g_assert_cmphex(cq_entry(d, &q, slot), ==, CQ_OK(0));
    msix_ack(d, q.id);
    g_assert_cmphex(qtest_readl(d->qts, dst), ==, 0);
    g_assert_cmphex(qtest_readl(d->qts, dst + 4), ==, 2);
    g_assert_cmphex(qtest_readl(d->qts, dst + 8), ==, 0);
    g_assert_cmphex(qtest_readl(d->qts, dst + 12), ==, 4);
    g_assert_cmphex(qtest_readl(d->qts, dst + 16), ==, 0x5ca1a125);

    /* A new CB: predicates clear, scalars empty (exe fails the job). */
    cb.len = 0;
    cb_msg_long_pred(&cb, 5, host_addr(dst), 10);
    cb_load_and_exe(&cb, GAUDISIM_LOAD_AND_EXE_EXE, 0, 0);
    slot = queue_submit(d, &q, &cb);
    g_assert_true(msix_wait(d, q.id));
    g_assert_cmphex(cq_entry(d, &q, slot), ==,
                    CQ_ERR(1, GAUDISIM_CP_ERR_UNDEF_OPCODE));
    msix_ack(d, q.id);
    g_assert_cmphex(qtest_readl(d->qts, dst), ==, 0);
    gsim_shutdown(d);
}
