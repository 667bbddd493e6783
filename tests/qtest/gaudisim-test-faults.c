/*
 * QTest for the gaudisim accelerator: internal queues, the event queue, the
 * MMU and injected faults.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "gaudisim-test.h"

void test_iq_hbm_dma(void)
{
    GsimDev *d = gsim_boot();
    uint8_t src[4096], dst[4096];
    GsimQueue q;
    Cb cb = { .len = 0 };

    fill_pattern(src, sizeof(src), 3);
    hbm_write(d, IQ_DATA_HBM, src, sizeof(src));
    iq_init(d, &q);
    cb_lin_dma(&cb, IQ_DATA_HBM, IQ_DATA_HBM + 0x10000, sizeof(src));
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, 0);
    hbm_read(d, IQ_DATA_HBM + 0x10000, dst, sizeof(dst));
    g_assert_cmpmem(dst, sizeof(dst), src, sizeof(src));
    /* Internal queues raise no completion interrupt. */
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    gsim_shutdown(d);
}

void test_eq_error_event(void)
{
    GsimDev *d = gsim_boot();
    GsimQueue q;
    GsimEq eq;
    uint32_t code, queue;
    Cb cb = { .len = 0 };

    eq_init(d, &eq);
    iq_init(d, &q);
    cb_put32(&cb, 0);
    cb_put32(&cb, GAUDISIM_PKT_CTL(UNDEFINED_OPCODE));
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, GAUDISIM_CP_ERR_UNDEF_OPCODE);
    g_assert_true(eq_find(d, &eq, GAUDISIM_EQ_EVENT_QMAN_ERR, NULL, &code, &queue,
                          NULL));
    g_assert_cmpuint(code, ==, GAUDISIM_CP_ERR_UNDEF_OPCODE);
    g_assert_cmpuint(queue, ==, IQ_ID);
    g_assert_true(msix_wait(d, GAUDISIM_MSIX_VEC_EQ));
    gsim_shutdown(d);
}

/* Page tables in HBM (written through the BAR): VA(0) -> @bus, one 4 KiB page. */
static void mmu_map_page(GsimDev *d, uint64_t bus)
{
    const uint64_t va = GAUDISIM_MMU_VA_BASE;
    uint64_t table = GAUDISIM_MMU_PGT_BASE;
    uint8_t zero[GAUDISIM_MMU_HOP_TABLE_SIZE] = { 0 };
    uint8_t pte[8];

    for (unsigned int h = 0; h <= GAUDISIM_MMU_LEAF_HOP; h++) {
        hbm_write(d, table + h * GAUDISIM_MMU_HOP_TABLE_SIZE, zero, sizeof(zero));
    }
    for (unsigned int h = 0; h < GAUDISIM_MMU_LEAF_HOP; h++) {
        uint64_t cur = table + h * GAUDISIM_MMU_HOP_TABLE_SIZE;

        stq_le_p(pte, (cur + GAUDISIM_MMU_HOP_TABLE_SIZE) | GAUDISIM_MMU_PTE_PRESENT);
        hbm_write(d, cur + GAUDISIM_MMU_HOP_INDEX(va, h) * 8, pte, 8);
    }
    stq_le_p(pte, bus | GAUDISIM_MMU_PTE_PRESENT | GAUDISIM_MMU_PTE_WRITABLE |
             GAUDISIM_MMU_PTE_LAST);
    hbm_write(d, table + GAUDISIM_MMU_LEAF_HOP * GAUDISIM_MMU_HOP_TABLE_SIZE +
              GAUDISIM_MMU_HOP_INDEX(va, GAUDISIM_MMU_LEAF_HOP) * 8, pte, 8);
    reg_write(d, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_LO(MMU_ASID), (uint32_t)table);
    reg_write(d, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_HI(MMU_ASID), table >> 32);
    reg_write(d, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_QUEUE_ASID(IQ_ID), MMU_ASID);
    reg_write(d, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE);
}

void test_mmu_va_dma(void)
{
    GsimDev *d = gsim_boot();
    uint64_t buf = guest_alloc(&d->qs->alloc, 2 * 4096);
    uint64_t page = (buf + 4095) & ~4095ULL;
    uint8_t src[256], dst[256];
    uint32_t code, queue;
    uint64_t addr;
    GsimQueue q;
    GsimEq eq;
    Cb cb = { .len = 0 };

    fill_pattern(src, sizeof(src), 9);
    qtest_memwrite(d->qts, page, src, sizeof(src));
    eq_init(d, &eq);
    mmu_map_page(d, page);
    iq_init(d, &q);

    /* Guest page -> HBM through the VA. */
    cb_lin_dma(&cb, GAUDISIM_MMU_VA_BASE, IQ_DATA_HBM, sizeof(src));
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, 0);
    hbm_read(d, IQ_DATA_HBM, dst, sizeof(dst));
    g_assert_cmpmem(dst, sizeof(dst), src, sizeof(src));

    /* The physical window is closed to internal queues. */
    cb.len = 0;
    cb_lin_dma(&cb, host_addr(page), IQ_DATA_HBM, sizeof(src));
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, GAUDISIM_CP_ERR_PRIV);

    /* An unmapped VA: MMU-fault event with the address; the job fails. */
    cb.len = 0;
    cb_lin_dma(&cb, GAUDISIM_MMU_VA_BASE + 0x7000, IQ_DATA_HBM, 64);
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, GAUDISIM_CP_ERR_MMU_FAULT);
    g_assert_true(eq_find(d, &eq, GAUDISIM_EQ_EVENT_MMU_FAULT, &addr, &code, &queue,
                          NULL));
    g_assert_cmphex(addr, ==, GAUDISIM_MMU_VA_BASE + 0x7000);
    g_assert_cmpuint(code, ==, GAUDISIM_MMU_CAUSE_NOT_PRESENT);
    g_assert_cmpuint(queue, ==, IQ_ID);
    g_assert_cmphex(reg_read(d, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_FAULT_VA_LO), ==,
                    (uint32_t)(GAUDISIM_MMU_VA_BASE + 0x7000));
    gsim_shutdown(d);
}

void test_reserved_hbm(void)
{
    GsimDev *d = gsim_boot();
    GsimQueue q;
    Cb cb = { .len = 0 };

    iq_init(d, &q);
    cb_lin_dma(&cb, IQ_DATA_HBM, GAUDISIM_MMU_PGT_BASE, 64);
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, GAUDISIM_CP_ERR_PRIV);
    gsim_shutdown(d);
}

void test_fault_ecc(void)
{
    GsimDev *d = gsim_boot();
    uint8_t src[64], dst[64];
    uint32_t data0;
    GsimQueue q;
    GsimEq eq;
    Cb cb = { .len = 0 };

    eq_init(d, &eq);
    iq_init(d, &q);
    qom_set_int(d, "fault-ecc-correctable", 3);
    g_assert_cmpuint(reg_read(d, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_ECC_CORRECTABLE),
                     ==, 3);
    g_assert_true(eq_find(d, &eq, GAUDISIM_EQ_EVENT_ECC_CORRECTABLE, NULL, NULL, NULL,
                          &data0));
    g_assert_cmpuint(data0, ==, 3);

    qom_set_int(d, "fault-ecc-uncorrectable", 1);
    g_assert_true(eq_find(d, &eq, GAUDISIM_EQ_EVENT_ECC_UNCORRECTABLE, NULL, NULL, NULL,
                          NULL));
    fill_pattern(src, sizeof(src), 5);
    hbm_write(d, IQ_DATA_HBM, src, sizeof(src));
    cb_lin_dma(&cb, IQ_DATA_HBM, IQ_DATA_HBM + 0x1000, sizeof(src));
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, GAUDISIM_CP_ERR_ECC);
    /* The next job is clean. */
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, GAUDISIM_CP_ERR_ECC);   /* sticky: last error */
    hbm_read(d, IQ_DATA_HBM + 0x1000, dst, sizeof(dst));
    g_assert_cmpmem(dst, sizeof(dst), src, sizeof(src));
    gsim_shutdown(d);
}

void test_fault_hang(void)
{
    GsimDev *d = gsim_boot();
    uint8_t src[64], dst[64];
    GsimQueue q;
    Cb cb = { .len = 0 };

    iq_init(d, &q);
    fill_pattern(src, sizeof(src), 6);
    hbm_write(d, IQ_DATA_HBM, src, sizeof(src));
    qom_set_int(d, "fault-hang-engine", q.engine);
    g_assert_cmpint(qom_get_int(d, "fault-hang-engine"), ==, q.engine);
    cb_lin_dma(&cb, IQ_DATA_HBM, IQ_DATA_HBM + 0x2000, sizeof(src));
    iq_submit_wait(d, &q, &cb, false);
    settle();
    g_assert_cmpuint(reg_read(d, qm_reg(&q, GAUDISIM_QM_PQ_CI(q.stream))), !=, q.pi);
    /* Released: the job runs. */
    qom_set_int(d, "fault-hang-engine", -1);
    {
        gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;

        while (reg_read(d, qm_reg(&q, GAUDISIM_QM_PQ_CI(q.stream))) != q.pi) {
            g_assert_cmpint(g_get_monotonic_time(), <, deadline);
            g_usleep(POLL_INTERVAL_US);
        }
    }
    settle();
    hbm_read(d, IQ_DATA_HBM + 0x2000, dst, sizeof(dst));
    g_assert_cmpmem(dst, sizeof(dst), src, sizeof(src));

    /* Hung again, then an engine soft reset releases it and drops the job. */
    qom_set_int(d, "fault-hang-engine", q.engine);
    iq_submit_wait(d, &q, &cb, false);
    settle();
    reg_write(d, GAUDISIM_ENGINE_BLOCK(q.engine) + GAUDISIM_ENG_SOFT_RESET,
              GAUDISIM_ENG_SOFT_RESET_GO);
    g_assert_cmpint(qom_get_int(d, "fault-hang-engine"), ==, -1);
    g_assert_cmpuint(reg_read(d, qm_reg(&q, GAUDISIM_QM_PQ_SIZE(q.stream))), ==, 0);
    gsim_shutdown(d);
}

void test_fault_drop_irq(void)
{
    GsimDev *d = gsim_boot();
    GsimQueue q;
    unsigned int slot;
    Cb cb = { .len = 0 };
    gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;

    queue_init(d, &q, 0, 4);
    qom_set_int(d, "fault-drop-irq", 1);
    cb_nop(&cb);
    slot = queue_submit(d, &q, &cb);
    while (cq_entry(d, &q, slot) != CQ_OK(0)) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(POLL_INTERVAL_US);
    }
    settle();
    g_assert_false(qpci_msix_pending(d->pdev, q.id));
    g_assert_cmpint(qom_get_int(d, "fault-irq-dropped"), ==, 1);
    /* The next one gets through. */
    run_dma_job(d, &q, 0x1000000, 4096, 1);
    gsim_shutdown(d);
}

void test_fault_thermal_spike(void)
{
    GsimDev *d = gsim_boot();
    uint32_t clock0, clock, temp0, code;
    GsimEq eq;

    eq_init(d, &eq);
    clock0 = reg_read(d, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_CLOCK_MHZ);
    temp0 = reg_read(d, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_TEMP_MC);
    qom_set_int(d, "fault-thermal-spike", 100);
    g_assert_cmpuint(reg_read(d, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_TEMP_MC), >,
                     temp0);
    /* Device time moves on; the throttle steps the clock down per tick. */
    qtest_clock_step(d->qts, 20 * 1000 * 1000);
    clock = reg_read(d, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_CLOCK_MHZ);
    g_assert_cmpuint(clock, <, clock0);
    g_assert_true(eq_find(d, &eq, GAUDISIM_EQ_EVENT_THERMAL, NULL, &code, NULL, NULL));
    gsim_shutdown(d);
}

/* Reset the device while an internal queue is in the middle of a job. */
void test_iq_reset_mid_job(void)
{
    GsimDev *d = gsim_boot();
    GsimQueue q;
    Cb cb = { .len = 0 };

    iq_init(d, &q);
    /* Blocks on a fence that nobody signals. */
    cb_fence(&cb, 0, 1, 1);
    cb_lin_dma(&cb, IQ_DATA_HBM, IQ_DATA_HBM + 0x3000, 64);
    iq_submit_wait(d, &q, &cb, false);
    g_assert_true(wait_cp_sts(d, &q, GAUDISIM_CP_STS_FENCE_WAIT));
    reset_by_register(d);
    settle();
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_ID), ==, GAUDISIM_ID_MAGIC);
    g_assert_cmpuint(reg_read(d, qm_reg(&q, GAUDISIM_QM_PQ_SIZE(q.stream))), ==, 0);
    g_assert_cmpuint(reg_read(d, qm_reg(&q, GAUDISIM_QM_CP_STS(q.stream))), ==, 0);
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    /* Programmed again, the queue works. */
    iq_init(d, &q);
    cb.len = 0;
    cb_nop(&cb);
    iq_submit_wait(d, &q, &cb, true);
    g_assert_cmpuint(iq_err(d, &q), ==, 0);
    gsim_shutdown(d);
}
