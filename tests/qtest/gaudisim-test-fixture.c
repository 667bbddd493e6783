/*
 * QTest for the gaudisim accelerator: the fixture every test file uses
 * (gaudisim-test.h).
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "gaudisim-test.h"

/* ---- device bring-up */

void save_pdev(QPCIDevice *dev, int devfn, void *data)
{
    QPCIDevice **pdev = data;

    *pdev = dev;
}

uint32_t reg_read(GsimDev *d, uint32_t off)
{
    return qpci_io_readl(d->pdev, d->cfg, off);
}

void reg_write(GsimDev *d, uint32_t off, uint32_t val)
{
    qpci_io_writel(d->pdev, d->cfg, off, val);
}

/* Map BARs and enable MSI-X: what a driver's probe does. */
void gsim_enable(GsimDev *d)
{
    qpci_device_enable(d->pdev);
    d->cfg = qpci_iomap(d->pdev, GAUDISIM_BAR_CFG, NULL);
    d->hbm = qpci_iomap(d->pdev, GAUDISIM_BAR_HBM, NULL);
    qpci_msix_enable(d->pdev);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_ID), ==, GAUDISIM_ID_MAGIC);
}

GsimDev *gsim_dev_new(QOSState *qs, QPCIDevice *pdev)
{
    GsimDev *d = g_new0(GsimDev, 1);

    d->qs = qs;
    d->qts = qs->qts;
    d->pdev = pdev;
    d->msix_scratch = guest_alloc(&qs->alloc, 64);
    return d;
}

GsimDev *gsim_boot_cmdline(const char *cmdline)
{
    QOSState *qs = qtest_pc_boot("%s", cmdline);
    QPCIDevice *pdev = NULL;

    qpci_device_foreach(qs->pcibus, GAUDISIM_PCI_VENDOR_ID,
                        GAUDISIM_PCI_DEVICE_ID, save_pdev, &pdev);
    g_assert(pdev);
    return gsim_dev_new(qs, pdev);
}

GsimDev *gsim_boot_args(const char *extra)
{
    g_autofree char *cmdline = g_strdup_printf(TEST_DEVICE_ARGS " %s", extra);

    return gsim_boot_cmdline(cmdline);
}

GsimDev *gsim_boot(void)
{
    GsimDev *d = gsim_boot_args("");

    gsim_enable(d);
    return d;
}

void gsim_shutdown(GsimDev *d)
{
    g_free(d->pdev);
    qtest_shutdown(d->qs);
    g_free(d);
}

/* ---- MSI-X */

bool msix_wait(GsimDev *d, unsigned int vec)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;

    do {
        if (qpci_msix_pending(d->pdev, vec)) {
            return true;
        }
        g_usleep(POLL_INTERVAL_US);
    } while (g_get_monotonic_time() < deadline);
    return false;
}

/* Number of vectors with their pending bit set. */
unsigned int msix_pending_count(GsimDev *d)
{
    unsigned int n = 0;

    for (unsigned int v = 0; v < GAUDISIM_MSIX_NUM_VECTORS; v++) {
        n += qpci_msix_pending(d->pdev, v);
    }
    return n;
}

/* Deliver the pending message of @vec to the scratch buffer, clearing it. */
void msix_ack(GsimDev *d, unsigned int vec)
{
    uint64_t entry = d->pdev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;
    QPCIBar bar = d->pdev->msix_table_bar;
    uint32_t data = 0x5a000000 | vec;

    qtest_writel(d->qts, d->msix_scratch, 0);
    qpci_io_writel(d->pdev, bar, entry + PCI_MSIX_ENTRY_LOWER_ADDR,
                   (uint32_t)d->msix_scratch);
    qpci_io_writel(d->pdev, bar, entry + PCI_MSIX_ENTRY_UPPER_ADDR,
                   d->msix_scratch >> 32);
    qpci_io_writel(d->pdev, bar, entry + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(d->pdev, bar, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    qpci_io_writel(d->pdev, bar, entry + PCI_MSIX_ENTRY_VECTOR_CTRL,
                   PCI_MSIX_ENTRY_CTRL_MASKBIT);
    g_assert_false(qpci_msix_pending(d->pdev, vec));
    g_assert_cmphex(qtest_readl(d->qts, d->msix_scratch), ==, data);
}

/* ---- queues */

uint32_t qm_reg(const GsimQueue *q, uint32_t off)
{
    return GAUDISIM_QM_BLOCK(q->engine) + off;
}

void queue_init(GsimDev *d, GsimQueue *q, unsigned int id,
                unsigned int log2_entries)
{
    uint32_t cfg0;

    memset(q, 0, sizeof(*q));
    q->id = id;
    q->engine = gaudisim_queue_engine(id);
    q->stream = gaudisim_queue_stream(id);
    q->entries = 1u << log2_entries;
    q->pq = guest_alloc(&d->qs->alloc, q->entries * GAUDISIM_BD_SIZE);
    q->cq = guest_alloc(&d->qs->alloc, q->entries * GAUDISIM_CQ_ENTRY_SIZE);
    qtest_memset(d->qts, q->pq, 0, q->entries * GAUDISIM_BD_SIZE);
    qtest_memset(d->qts, q->cq, 0, q->entries * GAUDISIM_CQ_ENTRY_SIZE);

    /* The PQ base is a plain bus address (no GAUDISIM_HOST_BASE). */
    reg_write(d, qm_reg(q, GAUDISIM_QM_PQ_BASE_LO(q->stream)), (uint32_t)q->pq);
    reg_write(d, qm_reg(q, GAUDISIM_QM_PQ_BASE_HI(q->stream)), q->pq >> 32);
    reg_write(d, qm_reg(q, GAUDISIM_QM_PQ_SIZE(q->stream)), log2_entries);
    cfg0 = reg_read(d, qm_reg(q, GAUDISIM_QM_GLBL_CFG0));
    reg_write(d, qm_reg(q, GAUDISIM_QM_GLBL_CFG0), cfg0 | 1u << q->stream);
}

void cb_put32(Cb *cb, uint32_t v)
{
    g_assert_cmpuint(cb->len + 4, <=, sizeof(cb->buf));
    stl_le_p(cb->buf + cb->len, v);
    cb->len += 4;
}

void cb_put64(Cb *cb, uint64_t v)
{
    cb_put32(cb, (uint32_t)v);
    cb_put32(cb, v >> 32);
}

void cb_nop(Cb *cb)
{
    cb_put32(cb, 0);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP));
}

void cb_lin_dma(Cb *cb, uint64_t src, uint64_t dst, uint32_t size)
{
    cb_put32(cb, size);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) |
             GAUDISIM_LIN_DMA_CTL_LIN);
    cb_put64(cb, src);
    cb_put64(cb, dst);
}

void cb_msg_prot(Cb *cb, uint32_t value, uint64_t addr)
{
    cb_put32(cb, value);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_PROT) |
             GAUDISIM_MSG_OP_WRITE_VALUE << GAUDISIM_MSG_CTL_OP_SHIFT);
    cb_put64(cb, addr);
}

void cb_fence(Cb *cb, unsigned int id, uint32_t target, uint32_t dec)
{
    cb_put32(cb, dec << GAUDISIM_FENCE_DEC_VAL_SHIFT |
             target << GAUDISIM_FENCE_TARGET_SHIFT |
             id << GAUDISIM_FENCE_ID_SHIFT);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE));
}

uint64_t host_addr(uint64_t bus_addr)
{
    return GAUDISIM_HOST_BASE + bus_addr;
}

/*
 * Copy @body into guest memory, append the completion tail the driver adds
 * (CQ entry, then MSI-X vector = queue ID), queue a BD and ring the
 * doorbell. Returns the CQ slot the job will complete into.
 */
unsigned int queue_submit(GsimDev *d, GsimQueue *q, const Cb *body)
{
    unsigned int slot = q->jobs % q->entries;
    uint32_t shadow = q->jobs & GAUDISIM_BD_CTL_SHADOW_INDEX_MASK;
    uint8_t bd[GAUDISIM_BD_SIZE];
    Cb cb = *body;
    uint64_t cb_addr;

    cb_msg_prot(&cb, CQ_OK(shadow),
                host_addr(q->cq + slot * GAUDISIM_CQ_ENTRY_SIZE));
    cb_msg_prot(&cb, q->id, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ);
    cb_addr = guest_alloc(&d->qs->alloc, cb.len);
    qtest_memwrite(d->qts, cb_addr, cb.buf, cb.len);

    stl_le_p(bd, shadow | GAUDISIM_BD_CTL_COMPLETION_TAIL);
    stl_le_p(bd + 4, cb.len);
    stq_le_p(bd + 8, host_addr(cb_addr));
    qtest_memwrite(d->qts, q->pq + (q->pi % q->entries) * GAUDISIM_BD_SIZE,
                   bd, sizeof(bd));

    q->pi = (q->pi + 1) % (2 * q->entries);
    q->jobs++;
    reg_write(d, qm_reg(q, GAUDISIM_QM_PQ_PI(q->stream)), q->pi);
    return slot;
}

uint32_t cq_entry(GsimDev *d, GsimQueue *q, unsigned int slot)
{
    return qtest_readl(d->qts, q->cq + slot * GAUDISIM_CQ_ENTRY_SIZE);
}

/* Wait until CP_STS of @q has all of @bits set. */
bool wait_cp_sts(GsimDev *d, GsimQueue *q, uint32_t bits)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;

    do {
        if ((reg_read(d, qm_reg(q, GAUDISIM_QM_CP_STS(q->stream))) & bits)
            == bits) {
            return true;
        }
        g_usleep(POLL_INTERVAL_US);
    } while (g_get_monotonic_time() < deadline);
    return false;
}

/* Give the device time to do something it must not do. */
void settle(void)
{
    g_usleep(50 * 1000);
}

void fill_pattern(uint8_t *buf, size_t len, unsigned int seed)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = (uint8_t)(i * 7 + seed + (i >> 8));
    }
}

/*
 * One job: host buffer -> HBM -> another host buffer, checked byte for
 * byte, completed into the CQ with MSI-X vector = queue ID.
 */
void run_dma_job(GsimDev *d, GsimQueue *q, uint64_t hbm_addr,
                 size_t size, unsigned int seed)
{
    g_autofree uint8_t *src = g_malloc(size);
    g_autofree uint8_t *dst = g_malloc(size);
    uint64_t src_bus = guest_alloc(&d->qs->alloc, size);
    uint64_t dst_bus = guest_alloc(&d->qs->alloc, size);
    uint32_t shadow = q->jobs & GAUDISIM_BD_CTL_SHADOW_INDEX_MASK;
    unsigned int slot;
    Cb cb = { .len = 0 };

    fill_pattern(src, size, seed);
    qtest_memwrite(d->qts, src_bus, src, size);
    qtest_memset(d->qts, dst_bus, 0, size);

    cb_lin_dma(&cb, host_addr(src_bus), GAUDISIM_HBM_BASE + hbm_addr, size);
    cb_lin_dma(&cb, GAUDISIM_HBM_BASE + hbm_addr, host_addr(dst_bus), size);
    slot = queue_submit(d, q, &cb);

    g_assert_true(msix_wait(d, q->id));
    g_assert_cmpuint(msix_pending_count(d), ==, 1);
    g_assert_cmphex(cq_entry(d, q, slot), ==, CQ_OK(shadow));
    qtest_memread(d->qts, dst_bus, dst, size);
    g_assert_cmpmem(dst, size, src, size);
    g_assert_cmpuint(reg_read(d, qm_reg(q, GAUDISIM_QM_PQ_CI(q->stream))), ==,
                     q->pi);
    msix_ack(d, q->id);
}

void window_set(GsimDev *d, uint64_t offset)
{
    /* LO is latched, HI applies both: a 64-bit write does LO then HI. */
    qpci_io_writeq(d->pdev, d->cfg, GAUDISIM_REG_HBM_WINDOW_LO, offset);
}

uint64_t window_get(GsimDev *d)
{
    return qpci_io_readq(d->pdev, d->cfg, GAUDISIM_REG_HBM_WINDOW_LO);
}

void reset_by_register(GsimDev *d)
{
    reg_write(d, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
}

void cb_msg_long(Cb *cb, uint32_t value, uint64_t addr)
{
    cb_put32(cb, value);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG) |
             GAUDISIM_MSG_OP_WRITE_VALUE << GAUDISIM_MSG_CTL_OP_SHIFT);
    cb_put64(cb, addr);
}

/* Write @len bytes at HBM address @hbm through the HBM BAR window. */
void hbm_write(GsimDev *d, uint64_t hbm, const void *buf, size_t len)
{
    uint64_t win = hbm & ~(TEST_HBM_BAR_SIZE - 1);

    g_assert_cmpuint(hbm - win + len, <=, TEST_HBM_BAR_SIZE);
    window_set(d, win);
    qpci_memwrite(d->pdev, d->hbm, hbm - win, buf, len);
}

void hbm_read(GsimDev *d, uint64_t hbm, void *buf, size_t len)
{
    uint64_t win = hbm & ~(TEST_HBM_BAR_SIZE - 1);

    window_set(d, win);
    qpci_memread(d->pdev, d->hbm, hbm - win, buf, len);
}

/* Program the internal queue's PQ (guest memory) like the driver does. */
void iq_init(GsimDev *d, GsimQueue *q)
{
    queue_init(d, q, IQ_ID, 4);
}

/*
 * Copy @cb to HBM through the BAR, queue a BD for it (no completion tail on
 * internal queues), ring the doorbell and wait until the PQ entry is
 * consumed and the stream is idle.
 */
void iq_submit_wait(GsimDev *d, GsimQueue *q, const Cb *cb, bool wait)
{
    uint8_t bd[GAUDISIM_BD_SIZE];
    gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;
    uint64_t cb_hbm = IQ_CB_HBM + (q->jobs % q->entries) * sizeof(cb->buf);

    hbm_write(d, cb_hbm, cb->buf, cb->len);
    stl_le_p(bd, 0);
    stl_le_p(bd + 4, cb->len);
    stq_le_p(bd + 8, GAUDISIM_HBM_BASE + cb_hbm);
    qtest_memwrite(d->qts, q->pq + (q->pi % q->entries) * GAUDISIM_BD_SIZE,
                   bd, sizeof(bd));
    q->pi = (q->pi + 1) % (2 * q->entries);
    q->jobs++;
    reg_write(d, qm_reg(q, GAUDISIM_QM_PQ_PI(q->stream)), q->pi);
    if (!wait) {
        return;
    }
    for (;;) {
        uint32_t ci = reg_read(d, qm_reg(q, GAUDISIM_QM_PQ_CI(q->stream)));
        uint32_t sts = reg_read(d, qm_reg(q, GAUDISIM_QM_CP_STS(q->stream)));

        if (ci == q->pi && !(sts & GAUDISIM_CP_STS_BUSY)) {
            return;
        }
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(POLL_INTERVAL_US);
    }
}

unsigned int iq_err(GsimDev *d, GsimQueue *q)
{
    return (reg_read(d, qm_reg(q, GAUDISIM_QM_CP_STS(q->stream))) &
            GAUDISIM_CP_STS_ERR_MASK) >> GAUDISIM_CP_STS_ERR_SHIFT;
}

void eq_init(GsimDev *d, GsimEq *eq)
{
    size_t size = (1u << EQ_LOG2) * GAUDISIM_EQ_ENTRY_SIZE;

    eq->ring = guest_alloc(&d->qs->alloc, size);
    eq->next = 0;
    qtest_memset(d->qts, eq->ring, 0, size);
    reg_write(d, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_LO, (uint32_t)eq->ring);
    reg_write(d, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_HI, eq->ring >> 32);
    reg_write(d, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_SIZE, EQ_LOG2);
    reg_write(d, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CI, 0);
    reg_write(d, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CTL, GAUDISIM_EQ_CTL_ENABLE);
}

/*
 * Find the next event of @type in the ring (skipping others); false when
 * none came within the timeout. Fills @addr, @code, @queue, @data0.
 */
bool eq_find(GsimDev *d, GsimEq *eq, unsigned int type, uint64_t *addr,
             uint32_t *code, uint32_t *queue, uint32_t *data0)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;
    unsigned int entries = 1u << EQ_LOG2;

    do {
        uint64_t e = eq->ring + (eq->next % entries) * GAUDISIM_EQ_ENTRY_SIZE;
        uint32_t ctl = qtest_readl(d->qts, e);

        if (!(ctl & GAUDISIM_EQ_CTL_READY)) {
            g_usleep(POLL_INTERVAL_US);
            continue;
        }
        eq->next++;
        if (GAUDISIM_EQ_CTL_TYPE(ctl) != type) {
            continue;
        }
        if (addr) {
            *addr = qtest_readq(d->qts, e + 16);
        }
        if (code) {
            *code = qtest_readl(d->qts, e + 12);
        }
        if (queue) {
            *queue = qtest_readl(d->qts, e + 8);
        }
        if (data0) {
            *data0 = qtest_readl(d->qts, e + 32);
        }
        return true;
    } while (g_get_monotonic_time() < deadline);
    return false;
}

void qom_set_int(GsimDev *d, const char *prop, int64_t value)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-set', 'arguments': "
                           "{'path': 'gsim0', 'property': %s, 'value': %" PRId64 "}}",
                           prop, value);

    g_assert(!qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
}

char *qom_get_str(GsimDev *d, const char *prop)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': 'gsim0', 'property': %s}}", prop);
    char *v;

    g_assert(qdict_haskey(rsp, "return"));
    v = g_strdup(qdict_get_str(rsp, "return"));
    qobject_unref(rsp);
    return v;
}

int64_t qom_get_int(GsimDev *d, const char *prop)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': 'gsim0', 'property': %s}}", prop);
    int64_t v;

    g_assert(qdict_haskey(rsp, "return"));
    v = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return v;
}

