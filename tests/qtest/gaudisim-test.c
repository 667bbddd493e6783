/*
 * QTest for the gaudisim accelerator: PCI identity, BARs, registers, the
 * HBM window, and jobs through real external queues (PQ, CB and CQ in
 * guest memory, doorbell, completion tail, MSI-X), driven by a miniature
 * driver in this file.
 *
 * MSI-X vectors stay masked, so an interrupt shows up as its PBA bit;
 * msix_ack() unmasks a vector briefly, which delivers the message to a
 * scratch buffer and clears the bit for the next job.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "hw/pci/pci_regs.h"
#include "qobject/qdict.h"
#include "qemu/uuid.h"

#include "hw/gaudisim_hw_regs.h"
#include "hw/gaudisim_hw_packets.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_eq.h"
#include "hw/gaudisim_hw_mmu.h"
#include "hw/gaudisim_hw_telemetry.h"
#include "hw/gaudisim_hw_mme.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_sync.h"
#include "hw/gaudisim_hw_tpc.h"

/* Small enough for libqos, which places every BAR below 4 GiB. */
#define TEST_HBM_SIZE       (1ULL << 30)
#define TEST_HBM_BAR_SIZE   (64ULL << 20)
#define TEST_DEVICE_ARGS \
    "-M q35 -nodefaults -device gaudisim,id=gsim0,hbm-size=1G,hbm-bar-size=64M"

/* Every wait for the device is bounded. */
#define WAIT_TIMEOUT_US     (5 * G_USEC_PER_SEC)
#define POLL_INTERVAL_US    1000

#define CQ_OK(shadow) \
    (GAUDISIM_CQ_ENTRY_READY | GAUDISIM_CQ_ENTRY_SHADOW_VALID | (shadow))
#define CQ_ERR(shadow, code) \
    (CQ_OK(shadow) | GAUDISIM_CQ_ENTRY_ERROR | \
     ((uint32_t)(code) << GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT))

/* An opcode with no packet behind it. */
#define UNDEFINED_OPCODE    0x1E

typedef struct GsimDev {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *pdev;
    QPCIBar cfg;
    QPCIBar hbm;
    uint64_t msix_scratch;  /* receives messages of unmasked vectors */
} GsimDev;

typedef struct GsimQueue {
    unsigned int id;
    unsigned int engine;
    unsigned int stream;
    unsigned int entries;
    uint64_t pq;            /* guest address of the BD ring */
    uint64_t cq;            /* guest address of the u32 completion ring */
    uint32_t pi;            /* modulo 2 * entries */
    unsigned int jobs;      /* submitted so far: CQ slot and shadow index */
} GsimQueue;

/* A command buffer being assembled (little-endian packets). */
typedef struct Cb {
    uint8_t buf[1024];
    size_t len;
} Cb;

/* ---- device bring-up */

static void save_pdev(QPCIDevice *dev, int devfn, void *data)
{
    QPCIDevice **pdev = data;

    *pdev = dev;
}

static uint32_t reg_read(GsimDev *d, uint32_t off)
{
    return qpci_io_readl(d->pdev, d->cfg, off);
}

static void reg_write(GsimDev *d, uint32_t off, uint32_t val)
{
    qpci_io_writel(d->pdev, d->cfg, off, val);
}

/* Map BARs and enable MSI-X: what a driver's probe does. */
static void gsim_enable(GsimDev *d)
{
    qpci_device_enable(d->pdev);
    d->cfg = qpci_iomap(d->pdev, GAUDISIM_BAR_CFG, NULL);
    d->hbm = qpci_iomap(d->pdev, GAUDISIM_BAR_HBM, NULL);
    qpci_msix_enable(d->pdev);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_ID), ==, GAUDISIM_ID_MAGIC);
}

static GsimDev *gsim_boot_args(const char *extra)
{
    GsimDev *d = g_new0(GsimDev, 1);

    d->qs = qtest_pc_boot(TEST_DEVICE_ARGS " %s", extra);
    d->qts = d->qs->qts;
    qpci_device_foreach(d->qs->pcibus, GAUDISIM_PCI_VENDOR_ID,
                        GAUDISIM_PCI_DEVICE_ID, save_pdev, &d->pdev);
    g_assert(d->pdev);
    d->msix_scratch = guest_alloc(&d->qs->alloc, 64);
    return d;
}

static GsimDev *gsim_boot(void)
{
    GsimDev *d = gsim_boot_args("");

    gsim_enable(d);
    return d;
}

static void gsim_shutdown(GsimDev *d)
{
    g_free(d->pdev);
    qtest_shutdown(d->qs);
    g_free(d);
}

/* ---- MSI-X */

static bool msix_wait(GsimDev *d, unsigned int vec)
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
static unsigned int msix_pending_count(GsimDev *d)
{
    unsigned int n = 0;

    for (unsigned int v = 0; v < GAUDISIM_MSIX_NUM_VECTORS; v++) {
        n += qpci_msix_pending(d->pdev, v);
    }
    return n;
}

/* Deliver the pending message of @vec to the scratch buffer, clearing it. */
static void msix_ack(GsimDev *d, unsigned int vec)
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

static uint32_t qm_reg(const GsimQueue *q, uint32_t off)
{
    return GAUDISIM_QM_BLOCK(q->engine) + off;
}

static void queue_init(GsimDev *d, GsimQueue *q, unsigned int id,
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

static void cb_put32(Cb *cb, uint32_t v)
{
    g_assert_cmpuint(cb->len + 4, <=, sizeof(cb->buf));
    stl_le_p(cb->buf + cb->len, v);
    cb->len += 4;
}

static void cb_put64(Cb *cb, uint64_t v)
{
    cb_put32(cb, (uint32_t)v);
    cb_put32(cb, v >> 32);
}

static void cb_nop(Cb *cb)
{
    cb_put32(cb, 0);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP));
}

static void cb_lin_dma(Cb *cb, uint64_t src, uint64_t dst, uint32_t size)
{
    cb_put32(cb, size);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) |
             GAUDISIM_LIN_DMA_CTL_LIN);
    cb_put64(cb, src);
    cb_put64(cb, dst);
}

static void cb_msg_prot(Cb *cb, uint32_t value, uint64_t addr)
{
    cb_put32(cb, value);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_PROT) |
             GAUDISIM_MSG_OP_WRITE_VALUE << GAUDISIM_MSG_CTL_OP_SHIFT);
    cb_put64(cb, addr);
}

static void cb_fence(Cb *cb, unsigned int id, uint32_t target, uint32_t dec)
{
    cb_put32(cb, dec << GAUDISIM_FENCE_DEC_VAL_SHIFT |
             target << GAUDISIM_FENCE_TARGET_SHIFT |
             id << GAUDISIM_FENCE_ID_SHIFT);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE));
}

static uint64_t host_addr(uint64_t bus_addr)
{
    return GAUDISIM_HOST_BASE + bus_addr;
}

/*
 * Copy @body into guest memory, append the completion tail the driver adds
 * (CQ entry, then MSI-X vector = queue ID), queue a BD and ring the
 * doorbell. Returns the CQ slot the job will complete into.
 */
static unsigned int queue_submit(GsimDev *d, GsimQueue *q, const Cb *body)
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

static uint32_t cq_entry(GsimDev *d, GsimQueue *q, unsigned int slot)
{
    return qtest_readl(d->qts, q->cq + slot * GAUDISIM_CQ_ENTRY_SIZE);
}

/* Wait until CP_STS of @q has all of @bits set. */
static bool wait_cp_sts(GsimDev *d, GsimQueue *q, uint32_t bits)
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
static void settle(void)
{
    g_usleep(50 * 1000);
}

static void fill_pattern(uint8_t *buf, size_t len, unsigned int seed)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = (uint8_t)(i * 7 + seed + (i >> 8));
    }
}

/*
 * One job: host buffer -> HBM -> another host buffer, checked byte for
 * byte, completed into the CQ with MSI-X vector = queue ID.
 */
static void run_dma_job(GsimDev *d, GsimQueue *q, uint64_t hbm_addr,
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

/* ---- tests: identity */

static void test_pci_ids(void)
{
    GsimDev *d = gsim_boot();
    uint8_t cap;

    g_assert_cmphex(qpci_config_readw(d->pdev, PCI_VENDOR_ID), ==,
                    GAUDISIM_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(d->pdev, PCI_DEVICE_ID), ==,
                    GAUDISIM_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readb(d->pdev, PCI_REVISION_ID), ==,
                    GAUDISIM_PCI_REVISION);
    g_assert_cmphex(qpci_config_readw(d->pdev, PCI_CLASS_DEVICE), ==,
                    GAUDISIM_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(d->pdev, PCI_INTERRUPT_PIN), ==, 0);

    cap = qpci_find_capability(d->pdev, PCI_CAP_ID_EXP, 0);
    g_assert_cmphex(cap, !=, 0);
    cap = qpci_find_capability(d->pdev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmphex(cap, !=, 0);
    g_assert_cmpuint(qpci_msix_table_size(d->pdev), ==,
                     GAUDISIM_MSIX_NUM_VECTORS);
    gsim_shutdown(d);
}

static void check_bar(GsimDev *d, int bar, uint64_t size, bool prefetch)
{
    uint32_t flags = qpci_config_readl(d->pdev, PCI_BASE_ADDRESS_0 + 4 * bar);
    uint64_t got;

    g_assert_cmphex(flags & PCI_BASE_ADDRESS_SPACE, ==,
                    PCI_BASE_ADDRESS_SPACE_MEMORY);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_MEM_TYPE_MASK, ==,
                    PCI_BASE_ADDRESS_MEM_TYPE_64);
    g_assert_cmpint(!!(flags & PCI_BASE_ADDRESS_MEM_PREFETCH), ==, prefetch);
    qpci_iomap(d->pdev, bar, &got);
    g_assert_cmphex(got, ==, size);
}

static void test_pci_bars(void)
{
    GsimDev *d = gsim_boot_args("");

    check_bar(d, GAUDISIM_BAR_CFG, GAUDISIM_CFG_BAR_SIZE, false);
    check_bar(d, GAUDISIM_BAR_MSIX, 4096, false);
    check_bar(d, GAUDISIM_BAR_HBM, TEST_HBM_BAR_SIZE, true);
    gsim_shutdown(d);
}

static void test_regs_identity(void)
{
    GsimDev *d = gsim_boot();
    uint32_t engines;

    g_assert_cmphex(reg_read(d, GAUDISIM_REG_ID), ==, GAUDISIM_ID_MAGIC);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_VERSION), ==,
                    GAUDISIM_HW_VERSION_MAJOR << 16 |
                    GAUDISIM_HW_VERSION_MINOR);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_CAPS) &
                    (GAUDISIM_CAP_EXT_QUEUES | GAUDISIM_CAP_HBM_WINDOW), ==,
                    GAUDISIM_CAP_EXT_QUEUES | GAUDISIM_CAP_HBM_WINDOW);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_HBM_SIZE_LO), ==,
                    (uint32_t)TEST_HBM_SIZE);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_HBM_SIZE_HI), ==,
                    TEST_HBM_SIZE >> 32);
    /* A 64-bit read reaches the core as two 32-bit ones. */
    g_assert_cmphex(qpci_io_readq(d->pdev, d->cfg, GAUDISIM_REG_HBM_SIZE_LO),
                    ==, TEST_HBM_SIZE);
    g_assert_cmphex(qpci_io_readq(d->pdev, d->cfg,
                                  GAUDISIM_REG_HBM_BAR_SIZE_LO),
                    ==, TEST_HBM_BAR_SIZE);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_SRAM_SIZE), ==,
                    GAUDISIM_SRAM_SIZE);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_HBM_RESERVED), ==,
                    GAUDISIM_HBM_RESERVED_SIZE);
    engines = reg_read(d, GAUDISIM_REG_ENGINES);
    g_assert_cmpuint(GAUDISIM_ENGINES_FIELD(engines,
                     GAUDISIM_ENGINES_PCI_DMA_SHIFT, 4), ==,
                     GAUDISIM_NUM_PCI_DMA);
    g_assert_cmpuint(GAUDISIM_ENGINES_FIELD(engines,
                     GAUDISIM_ENGINES_STREAMS_SHIFT, 4), ==,
                     GAUDISIM_STREAMS_PER_QMAN);
    /* The external queues are implemented. */
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_QUEUE_MASK_LO) & 0xff, ==, 0xff);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_DEV_STATUS), ==,
                    GAUDISIM_DEV_STATUS_READY);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_HW_STATE), ==,
                    GAUDISIM_HW_STATE_CLEAN);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_ERR_PKT_CNT), ==, 0);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_CB_DONE_CNT), ==, 0);
    gsim_shutdown(d);
}

/* ---- tests: HBM window */

static void window_set(GsimDev *d, uint64_t offset)
{
    /* LO is latched, HI applies both: a 64-bit write does LO then HI. */
    qpci_io_writeq(d->pdev, d->cfg, GAUDISIM_REG_HBM_WINDOW_LO, offset);
}

static uint64_t window_get(GsimDev *d)
{
    return qpci_io_readq(d->pdev, d->cfg, GAUDISIM_REG_HBM_WINDOW_LO);
}

static void test_hbm_window(void)
{
    GsimDev *d = gsim_boot();
    const uint64_t off = 0x1234;
    const uint64_t last = TEST_HBM_SIZE - TEST_HBM_BAR_SIZE;
    uint8_t a[256], b[256], got[256];

    fill_pattern(a, sizeof(a), 1);
    fill_pattern(b, sizeof(b), 2);
    g_assert_cmphex(window_get(d), ==, 0);
    qpci_memwrite(d->pdev, d->hbm, off, a, sizeof(a));

    window_set(d, last);
    g_assert_cmphex(window_get(d), ==, last);
    /* Untouched HBM reads as zero; then give it its own pattern. */
    qpci_memread(d->pdev, d->hbm, off, got, sizeof(got));
    g_assert_cmpuint(got[0] | got[100] | got[255], ==, 0);
    qpci_memwrite(d->pdev, d->hbm, off, b, sizeof(b));

    window_set(d, 0);
    qpci_memread(d->pdev, d->hbm, off, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), a, sizeof(a));
    window_set(d, last);
    qpci_memread(d->pdev, d->hbm, off, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), b, sizeof(b));
    /* Last byte of HBM is reachable through the top window. */
    qpci_io_writeb(d->pdev, d->hbm, TEST_HBM_BAR_SIZE - 1, 0xa5);
    g_assert_cmphex(qpci_io_readb(d->pdev, d->hbm, TEST_HBM_BAR_SIZE - 1), ==,
                    0xa5);
    gsim_shutdown(d);
}

/* ---- tests: jobs */

static void test_dma_job(void)
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

static void test_all_queues(void)
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
static void test_large_job(void)
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

static void test_malformed(void)
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

static void test_fence(void)
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

static void reset_by_register(GsimDev *d)
{
    reg_write(d, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
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

static void test_reset_flr(void)
{
    reset_mid_job(reset_by_flr);
}

static void test_reset_register(void)
{
    reset_mid_job(reset_by_register);
}

static void test_reset_system(void)
{
    reset_mid_job(reset_by_system_reset);
}

/* ---- tests: bad input */

static void test_bad_register_writes(void)
{
    GsimDev *d = gsim_boot();
    const uint64_t last = TEST_HBM_SIZE - TEST_HBM_BAR_SIZE;
    static const uint64_t bad_windows[] = {
        0x1000,                             /* not a multiple of the BAR */
        TEST_HBM_SIZE,                      /* window past the end */
        TEST_HBM_SIZE - TEST_HBM_BAR_SIZE / 2,
        1ULL << 40,
        UINT64_MAX & ~(TEST_HBM_BAR_SIZE - 1),
    };
    GsimQueue q, other;

    window_set(d, last);
    qpci_io_writel(d->pdev, d->hbm, 0x40, 0xfeedf00d);
    for (size_t i = 0; i < ARRAY_SIZE(bad_windows); i++) {
        window_set(d, bad_windows[i]);
        g_assert_cmphex(window_get(d), ==, last);
        g_assert_cmphex(qpci_io_readl(d->pdev, d->hbm, 0x40), ==, 0xfeedf00d);
    }

    /* Read-only, write-only, unknown and unimplemented registers. */
    reg_write(d, GAUDISIM_REG_ID, 0);
    reg_write(d, GAUDISIM_REG_ERR_PKT_CNT, 55);
    reg_write(d, GAUDISIM_REG_HBM_BAR_SIZE_LO, 0x1000);
    reg_write(d, 0x3000, 1);
    reg_write(d, GAUDISIM_CFG_BAR_SIZE - 4, 1);
    reg_write(d, GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME) + GAUDISIM_QM_PQ_PI(0),
              1);
    reg_write(d, GAUDISIM_REG_RESET, 0x2);
    reg_write(d, GAUDISIM_REG_MSIX_REQ, GAUDISIM_MSIX_NUM_VECTORS);
    reg_write(d, GAUDISIM_REG_MSIX_REQ, 0xffffffff);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_ID), ==, GAUDISIM_ID_MAGIC);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_ERR_PKT_CNT), ==, 0);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_HBM_BAR_SIZE_LO), ==,
                    (uint32_t)TEST_HBM_BAR_SIZE);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_DEV_STATUS), ==,
                    GAUDISIM_DEV_STATUS_READY);
    g_assert_cmpuint(msix_pending_count(d), ==, 0);

    /* Queue programming out of order or out of range. */
    queue_init(d, &other, GAUDISIM_QUEUE_ID_DMA_0_0 + 2, 2);
    reg_write(d, qm_reg(&other, GAUDISIM_QM_PQ_SIZE(other.stream)),
              GAUDISIM_QM_PQ_SIZE_LOG2_MAX + 1);
    reg_write(d, qm_reg(&other, GAUDISIM_QM_PQ_PI(other.stream)), 8);
    reg_write(d, qm_reg(&other, GAUDISIM_QM_PQ_PI(other.stream)), 5);
    g_assert_cmpuint(reg_read(d, qm_reg(&other,
                     GAUDISIM_QM_PQ_SIZE(other.stream))), ==, 2);
    g_assert_cmpuint(reg_read(d, qm_reg(&other,
                     GAUDISIM_QM_PQ_PI(other.stream))), ==, 0);

    /* The device kept working. */
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0, 2);
    run_dma_job(d, &q, GAUDISIM_HBM_USER_BASE, 4096, 11);
    gsim_shutdown(d);
}

static void test_msix_request(void)
{
    GsimDev *d = gsim_boot();

    /* A host write of MSIX_REQ raises exactly that vector. */
    reg_write(d, GAUDISIM_REG_MSIX_REQ, GAUDISIM_MSIX_VEC_EQ);
    g_assert_true(msix_wait(d, GAUDISIM_MSIX_VEC_EQ));
    g_assert_cmpuint(msix_pending_count(d), ==, 1);
    msix_ack(d, GAUDISIM_MSIX_VEC_EQ);

    /* With MSI-X disabled the request is dropped, not queued. */
    qpci_msix_disable(d->pdev);
    reg_write(d, GAUDISIM_REG_MSIX_REQ, 3);
    qpci_msix_enable(d->pdev);
    settle();
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    gsim_shutdown(d);
}

static uint32_t err_total(GsimDev *d)
{
    return reg_read(d, GAUDISIM_REG_ERR_PKT_CNT) +
           reg_read(d, GAUDISIM_REG_ERR_DMA_CNT) +
           reg_read(d, GAUDISIM_REG_ERR_PQ_CNT);
}

static void test_no_bus_master(void)
{
    GsimDev *d = gsim_boot();
    gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;
    uint16_t cmd = qpci_config_readw(d->pdev, PCI_COMMAND);
    uint64_t src_bus = guest_alloc(&d->qs->alloc, 256);
    uint64_t dst_bus = guest_alloc(&d->qs->alloc, 256);
    GsimQueue q;
    unsigned int slot;
    Cb cb = { .len = 0 };

    qtest_memset(d->qts, src_bus, 0x77, 256);
    qtest_memset(d->qts, dst_bus, 0, 256);
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0 + 1, 2);
    qpci_config_writew(d->pdev, PCI_COMMAND, cmd & ~PCI_COMMAND_MASTER);

    cb_lin_dma(&cb, host_addr(src_bus), host_addr(dst_bus), 256);
    slot = queue_submit(d, &q, &cb);
    while (err_total(d) == 0 && g_get_monotonic_time() < deadline) {
        g_usleep(POLL_INTERVAL_US);
    }
    g_assert_cmpuint(err_total(d), >, 0);
    settle();
    /* Nothing reached memory: not the data, not even an error completion. */
    g_assert_cmphex(cq_entry(d, &q, slot), ==, 0);
    g_assert_cmphex(qtest_readl(d->qts, dst_bus), ==, 0);
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_ID), ==, GAUDISIM_ID_MAGIC);

    /* With bus mastering back and a reset, the device works again. */
    qpci_config_writew(d->pdev, PCI_COMMAND, cmd);
    reg_write(d, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0 + 1, 2);
    run_dma_job(d, &q, GAUDISIM_HBM_USER_BASE, 256, 12);
    gsim_shutdown(d);
}

/* ---- tests: properties */

static void expect_device_add_error(QTestState *qts, const char *props)
{
    g_autofree char *cmd = g_strdup_printf(
        "{ 'execute': 'device_add', 'arguments': "
        "{ 'driver': 'gaudisim', 'id': 'bad', 'bus': 'rp0', %s } }", props);
    QDict *resp = qtest_qmp(qts, "%s", cmd);

    g_assert(qdict_haskey(resp, "error"));
    qobject_unref(resp);
}

static void test_properties(void)
{
    GsimDev *d = gsim_boot_args(
        "-device pcie-root-port,id=rp0,chassis=1,slot=1 "
        "-device pcie-root-port,id=rp1,chassis=1,slot=2");

    expect_device_add_error(d->qts, "'hbm-bar-size': 3145728");
    expect_device_add_error(d->qts, "'hbm-bar-size': 2048");
    expect_device_add_error(d->qts,
                            "'hbm-size': 67108864, 'hbm-bar-size': 134217728");
    expect_device_add_error(d->qts, "'hbm-size': 1048576");
    expect_device_add_error(d->qts, "'threads': 100000");
    /* Serials the EEPROM cannot hold, a UUID that is none. */
    expect_device_add_error(d->qts, "'serial': 'two words'");
    expect_device_add_error(d->qts, "'serial': ''");
    expect_device_add_error(d->qts,
                            "'serial': '0123456789abcdef0123456789abcdef'");
    expect_device_add_error(d->qts, "'uuid': 'not-a-uuid'");
    /* Sizes only the core can judge: not 2 MiB-aligned, below reserved. */
    expect_device_add_error(d->qts,
                            "'hbm-size': 1074790400, 'hbm-bar-size': 16777216");
    expect_device_add_error(d->qts,
                            "'hbm-size': 268435456, 'hbm-bar-size': 16777216");
    /* A good one still plugs after the failures. */
    qtest_qmp_device_add(d->qts, "gaudisim", "good",
                         "{ 'bus': 'rp1', 'hbm-size': 1073741824, "
                         "'hbm-bar-size': 16777216 }");
    gsim_enable(d);
    gsim_shutdown(d);
}

/*
 * Hot-add a second device behind a root port with native hotplug, then
 * power the slot off as a hotplug driver would: QEMU unplugs it, which
 * runs exit and finalize.
 */
static void test_hot_unplug(void)
{
    GsimDev *d = gsim_boot_args(
        "-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off "
        "-device pcie-root-port,id=rp1,chassis=1,slot=2,addr=0x5");
    QPCIDevice *port = qpci_device_find(d->qs->pcibus, QPCI_DEVFN(5, 0));
    uint8_t exp;
    uint16_t ctl;
    GsimQueue q;

    g_assert(port);
    exp = qpci_find_capability(port, PCI_CAP_ID_EXP, 0);
    g_assert_cmphex(exp, !=, 0);
    qtest_qmp_device_add(d->qts, "gaudisim", "hot",
                         "{ 'bus': 'rp1', 'hbm-size': 1073741824, "
                         "'hbm-bar-size': 16777216 }");

    ctl = qpci_config_readw(port, exp + PCI_EXP_SLTCTL) &
          ~(PCI_EXP_SLTCTL_PCC | PCI_EXP_SLTCTL_PIC);
    qpci_config_writew(port, exp + PCI_EXP_SLTCTL,
                       ctl | PCI_EXP_SLTCTL_PWR_ON | PCI_EXP_SLTCTL_PWR_IND_ON);
    /* device_del presses the attention button; power-off completes it. */
    qtest_qmp_device_del_send(d->qts, "hot");
    qpci_config_writew(port, exp + PCI_EXP_SLTCTL,
                       ctl | PCI_EXP_SLTCTL_PWR_OFF |
                       PCI_EXP_SLTCTL_PWR_IND_OFF);
    qtest_qmp_eventwait(d->qts, "DEVICE_DELETED");
    g_free(port);

    /* The other device is unaffected. */
    gsim_enable(d);
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0, 2);
    run_dma_job(d, &q, GAUDISIM_HBM_USER_BASE, 1024, 13);
    gsim_shutdown(d);
}

/* ---- internal queues, event queue, MMU, injected faults */

#define IQ_ID           GAUDISIM_QUEUE_ID_DMA_2_0   /* an HBM-DMA queue */
#define IQ_CB_HBM       (GAUDISIM_HBM_USER_BASE + 0x10000)
#define IQ_DATA_HBM     (GAUDISIM_HBM_USER_BASE + 0x100000)
#define MMU_ASID        2
#define EQ_LOG2         6

typedef struct GsimEq {
    uint64_t ring;          /* guest address */
    unsigned int next;      /* next entry to read */
} GsimEq;

/* Write @len bytes at HBM address @hbm through the HBM BAR window. */
static void hbm_write(GsimDev *d, uint64_t hbm, const void *buf, size_t len)
{
    uint64_t win = hbm & ~(TEST_HBM_BAR_SIZE - 1);

    g_assert_cmpuint(hbm - win + len, <=, TEST_HBM_BAR_SIZE);
    window_set(d, win);
    qpci_memwrite(d->pdev, d->hbm, hbm - win, buf, len);
}

static void hbm_read(GsimDev *d, uint64_t hbm, void *buf, size_t len)
{
    uint64_t win = hbm & ~(TEST_HBM_BAR_SIZE - 1);

    window_set(d, win);
    qpci_memread(d->pdev, d->hbm, hbm - win, buf, len);
}

/* Program the internal queue's PQ (guest memory) like the driver does. */
static void iq_init(GsimDev *d, GsimQueue *q)
{
    queue_init(d, q, IQ_ID, 4);
}

/*
 * Copy @cb to HBM through the BAR, queue a BD for it (no completion tail on
 * internal queues), ring the doorbell and wait until the PQ entry is
 * consumed and the stream is idle.
 */
static void iq_submit_wait(GsimDev *d, GsimQueue *q, const Cb *cb, bool wait)
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

static unsigned int iq_err(GsimDev *d, GsimQueue *q)
{
    return (reg_read(d, qm_reg(q, GAUDISIM_QM_CP_STS(q->stream))) &
            GAUDISIM_CP_STS_ERR_MASK) >> GAUDISIM_CP_STS_ERR_SHIFT;
}

static void eq_init(GsimDev *d, GsimEq *eq)
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
static bool eq_find(GsimDev *d, GsimEq *eq, unsigned int type, uint64_t *addr,
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

static void qom_set_int(GsimDev *d, const char *prop, int64_t value)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-set', 'arguments': "
                           "{'path': 'gsim0', 'property': %s, 'value': %" PRId64 "}}",
                           prop, value);

    g_assert(!qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
}

static int64_t qom_get_int(GsimDev *d, const char *prop)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': 'gsim0', 'property': %s}}", prop);
    int64_t v;

    g_assert(qdict_haskey(rsp, "return"));
    v = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return v;
}

static void test_iq_hbm_dma(void)
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

static void test_eq_error_event(void)
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

static void test_mmu_va_dma(void)
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

static void test_reserved_hbm(void)
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

static void test_fault_ecc(void)
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

static void test_fault_hang(void)
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

static void test_fault_drop_irq(void)
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

static void test_fault_thermal_spike(void)
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
static void test_iq_reset_mid_job(void)
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
static void test_mme_gemm(void)
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
static void test_mme_long_gemm_responsive(void)
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
static void test_mme_reset_during_long_gemm(void)
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

static void cb_msg_long(Cb *cb, uint32_t value, uint64_t addr)
{
    cb_put32(cb, value);
    cb_put32(cb, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG) |
             GAUDISIM_MSG_OP_WRITE_VALUE << GAUDISIM_MSG_CTL_OP_SHIFT);
    cb_put64(cb, addr);
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
static void test_chain(void)
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
static void test_tpc_relu(void)
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
static void test_chain_relu(void)
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

/* ---- tests: NIC ports on a fabric (two devices in one box) */

#define NIC_ARGS \
    "-M q35 -nodefaults -object gaudisim-fabric,id=fab0 " \
    "-device gaudisim,id=gsim0,hbm-size=1G,hbm-bar-size=64M,module-id=0," \
    "fabric=fab0 " \
    "-device gaudisim,id=gsim1,hbm-size=1G,hbm-bar-size=64M,module-id=1," \
    "fabric=fab0"
#define NIC_SRC         (GAUDISIM_HBM_USER_BASE + 0x10000)
#define NIC_DST         (GAUDISIM_HBM_USER_BASE + 0x80000)
#define NIC_LEN         4096u
#define NIC_SOB         GAUDISIM_SYNC_FIRST_USER_SOB
#define NIC_PORT        0u      /* module 0 -> 1 and back (gaudisim_hw_nic.h) */

typedef struct NicPair {
    GsimDev *dev[2];        /* by module ID; both share one QOS state */
} NicPair;

static void save_pdevs(QPCIDevice *dev, int devfn, void *data)
{
    QPCIDevice **pdevs = data;

    g_assert(!pdevs[1]);
    pdevs[pdevs[0] ? 1 : 0] = dev;
}

static NicPair nic_boot(void)
{
    QPCIDevice *pdevs[2] = { NULL, NULL };
    NicPair p;
    QOSState *qs = qtest_pc_boot(NIC_ARGS);

    qpci_device_foreach(qs->pcibus, GAUDISIM_PCI_VENDOR_ID,
                        GAUDISIM_PCI_DEVICE_ID, save_pdevs, pdevs);
    g_assert(pdevs[0] && pdevs[1]);
    for (unsigned int i = 0; i < 2; i++) {
        GsimDev *d = g_new0(GsimDev, 1);

        d->qs = qs;
        d->qts = qs->qts;
        d->pdev = pdevs[i];
        d->msix_scratch = guest_alloc(&qs->alloc, 64);
        gsim_enable(d);
        p.dev[i] = d;
    }
    /* Order by the MODULE_ID register: it reads the property back. */
    if (reg_read(p.dev[0], GAUDISIM_REG_MODULE_ID) == 1) {
        GsimDev *t = p.dev[0];

        p.dev[0] = p.dev[1];
        p.dev[1] = t;
    }
    g_assert_cmpuint(reg_read(p.dev[0], GAUDISIM_REG_MODULE_ID), ==, 0);
    g_assert_cmpuint(reg_read(p.dev[1], GAUDISIM_REG_MODULE_ID), ==, 1);
    return p;
}

static void nic_shutdown(NicPair *p)
{
    g_free(p->dev[1]->pdev);
    g_free(p->dev[1]);
    gsim_shutdown(p->dev[0]);
}

static uint32_t nic_rd(GsimDev *d, unsigned int port, uint32_t off)
{
    return reg_read(d, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0 + port) +
                    off);
}

static void nic_wr(GsimDev *d, unsigned int port, uint32_t off, uint32_t v)
{
    reg_write(d, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0 + port) + off, v);
}

static uint32_t nic_err(GsimDev *d, unsigned int port)
{
    return (nic_rd(d, port, GAUDISIM_ENG_STATUS) &
            GAUDISIM_ENG_STATUS_ERR_MASK) >> GAUDISIM_ENG_STATUS_ERR_SHIFT;
}

static uint32_t nic_sob(GsimDev *d, unsigned int n)
{
    return reg_read(d, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(n));
}

/* Launch port's descriptor over MMIO; wait (bounded) for the launch to end. */
static uint32_t nic_launch(GsimDev *d, unsigned int port, uint32_t launches)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;

    nic_wr(d, port, GAUDISIM_NIC_TX_COMMIT, 1);
    while (nic_rd(d, port, GAUDISIM_ENG_LAUNCH_CNT) != launches ||
           (nic_rd(d, port, GAUDISIM_ENG_STATUS) & GAUDISIM_ENG_STATUS_BUSY)) {
        g_assert(g_get_monotonic_time() < deadline);
        g_usleep(POLL_INTERVAL_US);
    }
    return nic_err(d, port);
}

static void nic_fabric_set(GsimDev *d, const char *prop, const char *value,
                           bool ok)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-set', 'arguments': "
                           "{'path': '/objects/fab0', 'property': %s, "
                           "'value': %s}}", prop, value);

    g_assert_cmpint(qdict_haskey(rsp, "error"), ==, !ok);
    qobject_unref(rsp);
}

static char *nic_fabric_cut(GsimDev *d)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': '/objects/fab0', "
                           "'property': 'link-cut'}}");
    char *v;

    g_assert(qdict_haskey(rsp, "return"));
    v = g_strdup(qdict_get_str(rsp, "return"));
    qobject_unref(rsp);
    return v;
}

static void test_nic_fabric(void)
{
    NicPair p = nic_boot();
    GsimDev *a = p.dev[0], *b = p.dev[1];
    uint8_t src[NIC_LEN], got[NIC_LEN];
    char *cut;

    g_assert(reg_read(a, GAUDISIM_REG_CAPS) & GAUDISIM_CAP_NIC);
    g_assert_cmpuint(GAUDISIM_ENGINES_FIELD(reg_read(a, GAUDISIM_REG_ENGINES),
                     GAUDISIM_ENGINES_NIC_SHIFT, 4), ==, GAUDISIM_NUM_NIC);
    g_assert_cmphex(reg_read(a, GAUDISIM_REG_QUEUE_MASK_HI3), ==, 0x1ffff);
    g_assert_cmphex(nic_rd(a, NIC_PORT, GAUDISIM_NIC_LINK_STATUS), ==,
                    GAUDISIM_NIC_LINK_UP | GAUDISIM_NIC_LINK_CABLED |
                    1u << GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT);

    /* b opens its port to the user HBM range and SOBs, as its driver does. */
    nic_wr(b, NIC_PORT, GAUDISIM_NIC_RX_WIN_BASE_LO,
           (uint32_t)GAUDISIM_HBM_USER_BASE);
    nic_wr(b, NIC_PORT, GAUDISIM_NIC_RX_WIN_SIZE_LO, 256u << 20);
    nic_wr(b, NIC_PORT, GAUDISIM_NIC_RX_SOB_FIRST, NIC_SOB);
    nic_wr(b, NIC_PORT, GAUDISIM_NIC_RX_SOB_COUNT, 8);
    nic_wr(b, NIC_PORT, GAUDISIM_NIC_RX_ENABLE, 1);

    fill_pattern(src, sizeof(src), 11);
    hbm_write(a, NIC_SRC, src, sizeof(src));
    nic_wr(a, NIC_PORT, GAUDISIM_NIC_TX_SRC_LO, (uint32_t)NIC_SRC);
    nic_wr(a, NIC_PORT, GAUDISIM_NIC_TX_DST_LO, (uint32_t)NIC_DST);
    nic_wr(a, NIC_PORT, GAUDISIM_NIC_TX_SIZE, NIC_LEN);
    nic_wr(a, NIC_PORT, GAUDISIM_NIC_TX_REMOTE_SOB,
           GAUDISIM_NIC_TX_REMOTE_SOB_EN | NIC_SOB);
    nic_wr(a, NIC_PORT, GAUDISIM_NIC_TX_REMOTE_SOB_DATA,
           GAUDISIM_SYNC_SOB_ADD(1));
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 1), ==, GAUDISIM_NIC_ERR_NONE);
    hbm_read(b, NIC_DST, got, sizeof(got));
    g_assert(memcmp(got, src, sizeof(src)) == 0);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 1);
    g_assert_cmpuint(nic_rd(a, NIC_PORT, GAUDISIM_NIC_TX_BYTES_LO), ==,
                     NIC_LEN);
    g_assert_cmpuint(nic_rd(b, NIC_PORT, GAUDISIM_NIC_RX_BYTES_LO), ==,
                     NIC_LEN);
    g_assert_cmpuint(nic_rd(b, NIC_PORT, GAUDISIM_NIC_RX_XFERS), ==, 1);

    /* Fault injection: cut the cable through QMP, from b's end. */
    nic_fabric_set(a, "link-cut", "1:0", true);
    cut = nic_fabric_cut(a);
    g_assert_cmpstr(cut, ==, "0:0");
    g_free(cut);
    g_assert_cmpuint(nic_rd(a, NIC_PORT, GAUDISIM_NIC_LINK_STATUS) &
                     GAUDISIM_NIC_LINK_UP, ==, 0);
    g_assert_cmpuint(nic_rd(b, NIC_PORT, GAUDISIM_NIC_LINK_DOWN_CNT), ==, 1);
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 2), ==,
                     GAUDISIM_NIC_ERR_LINK_DOWN);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 1);
    g_assert_cmpuint(nic_rd(a, NIC_PORT, GAUDISIM_NIC_TX_ERRS), ==, 1);
    /* Bad values are refused with an error and change nothing. */
    nic_fabric_set(a, "link-cut", "8:0", false);
    nic_fabric_set(a, "link-cut", "0:10", false);
    nic_fabric_set(a, "link-restore", "zero", false);
    nic_fabric_set(a, "link-restore", "0:", false);

    /* Restored: the next transfer goes through. */
    nic_fabric_set(a, "link-restore", "0:0", true);
    cut = nic_fabric_cut(a);
    g_assert_cmpstr(cut, ==, "");
    g_free(cut);
    g_assert(nic_rd(b, NIC_PORT, GAUDISIM_NIC_LINK_STATUS) &
             GAUDISIM_NIC_LINK_UP);
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 3), ==, GAUDISIM_NIC_ERR_NONE);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 2);
    g_assert_cmpuint(nic_rd(a, NIC_PORT, GAUDISIM_NIC_TX_BYTES_LO), ==,
                     2 * NIC_LEN);

    /* Outside b's window: refused at b, nothing lands. */
    nic_wr(a, NIC_PORT, GAUDISIM_NIC_TX_DST_LO, 0x1000);
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 4), ==,
                     GAUDISIM_NIC_ERR_REMOTE_ACCESS);
    g_assert_cmpuint(nic_rd(b, NIC_PORT, GAUDISIM_NIC_RX_REFUSED), ==, 1);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 2);
    nic_shutdown(&p);
}

/* One box of one device (module 0) whose fabric has the scale-out cable. */
static GsimDev *nic_box_boot(const char *chardev)
{
    GsimDev *d = g_new0(GsimDev, 1);

    d->qs = qtest_pc_boot("-M q35 -nodefaults -chardev %s "
                          "-object gaudisim-fabric,id=fab0,chardev=so0,"
                          "timeout-ms=2000 "
                          "-device gaudisim,id=gsim0,hbm-size=1G,"
                          "hbm-bar-size=64M,module-id=0,fabric=fab0", chardev);
    d->qts = d->qs->qts;
    qpci_device_foreach(d->qs->pcibus, GAUDISIM_PCI_VENDOR_ID,
                        GAUDISIM_PCI_DEVICE_ID, save_pdev, &d->pdev);
    g_assert(d->pdev);
    d->msix_scratch = guest_alloc(&d->qs->alloc, 64);
    gsim_enable(d);
    return d;
}

static bool nic_wait_link(GsimDev *d, unsigned int port, bool up)
{
    gint64 deadline = g_get_monotonic_time() + WAIT_TIMEOUT_US;

    do {
        bool is_up = nic_rd(d, port, GAUDISIM_NIC_LINK_STATUS) &
                     GAUDISIM_NIC_LINK_UP;

        if (is_up == up) {
            return true;
        }
        g_usleep(POLL_INTERVAL_US);
    } while (g_get_monotonic_time() < deadline);
    return false;
}

/*
 * Two QEMU processes cabled through a socket chardev: port 7 of module 0
 * in box A writes into module 0 of box B; a cut cable and a dead box
 * make the transfer fail instead of hanging.
 */
static void test_nic_scaleout(void)
{
    const unsigned int port = GAUDISIM_NIC_FIRST_SCALEOUT;
    g_autofree char *dir = g_dir_make_tmp("gaudisim-nic-XXXXXX", NULL);
    g_autofree char *sock = g_strdup_printf("%s/cable", dir);
    g_autofree char *srv = g_strdup_printf(
        "socket,id=so0,path=%s,server=on,wait=off", sock);
    g_autofree char *cli = g_strdup_printf("socket,id=so0,path=%s", sock);
    uint8_t src[NIC_LEN], got[NIC_LEN];
    GsimDev *a, *b;

    g_assert(dir);
    a = nic_box_boot(srv);
    b = nic_box_boot(cli);
    g_assert(nic_wait_link(a, port, true));
    g_assert_cmphex(nic_rd(a, port, GAUDISIM_NIC_LINK_STATUS), ==,
                    GAUDISIM_NIC_LINK_UP | GAUDISIM_NIC_LINK_CABLED |
                    GAUDISIM_NIC_LINK_SCALEOUT |
                    port << GAUDISIM_NIC_LINK_PEER_PORT_SHIFT);

    nic_wr(b, port, GAUDISIM_NIC_RX_WIN_BASE_LO,
           (uint32_t)GAUDISIM_HBM_USER_BASE);
    nic_wr(b, port, GAUDISIM_NIC_RX_WIN_SIZE_LO, 256u << 20);
    nic_wr(b, port, GAUDISIM_NIC_RX_SOB_FIRST, NIC_SOB);
    nic_wr(b, port, GAUDISIM_NIC_RX_SOB_COUNT, 8);
    nic_wr(b, port, GAUDISIM_NIC_RX_ENABLE, 1);
    fill_pattern(src, sizeof(src), 5);
    hbm_write(a, NIC_SRC, src, sizeof(src));
    nic_wr(a, port, GAUDISIM_NIC_TX_SRC_LO, (uint32_t)NIC_SRC);
    nic_wr(a, port, GAUDISIM_NIC_TX_DST_LO, (uint32_t)NIC_DST);
    nic_wr(a, port, GAUDISIM_NIC_TX_SIZE, NIC_LEN);
    nic_wr(a, port, GAUDISIM_NIC_TX_REMOTE_SOB,
           GAUDISIM_NIC_TX_REMOTE_SOB_EN | NIC_SOB);
    nic_wr(a, port, GAUDISIM_NIC_TX_REMOTE_SOB_DATA, GAUDISIM_SYNC_SOB_ADD(1));
    g_assert_cmpuint(nic_launch(a, port, 1), ==, GAUDISIM_NIC_ERR_NONE);
    hbm_read(b, NIC_DST, got, sizeof(got));
    g_assert(memcmp(got, src, sizeof(src)) == 0);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 1);
    g_assert_cmpuint(nic_rd(b, port, GAUDISIM_NIC_RX_BYTES_LO), ==, NIC_LEN);

    /* Refused by the far end: the sender learns why. */
    nic_wr(a, port, GAUDISIM_NIC_TX_DST_LO, 0x1000);
    g_assert_cmpuint(nic_launch(a, port, 2), ==,
                     GAUDISIM_NIC_ERR_REMOTE_ACCESS);
    nic_wr(a, port, GAUDISIM_NIC_TX_DST_LO, (uint32_t)NIC_DST);

    /* Cut at A's end through QMP, then restored. */
    nic_fabric_set(a, "link-cut", "0:7", true);
    g_assert_cmpuint(nic_launch(a, port, 3), ==, GAUDISIM_NIC_ERR_LINK_DOWN);
    nic_fabric_set(a, "link-restore", "0:7", true);
    g_assert_cmpuint(nic_launch(a, port, 4), ==, GAUDISIM_NIC_ERR_NONE);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 2);

    /* Box B goes away: the cable is down and a transfer fails at once. */
    gsim_shutdown(b);
    g_assert(nic_wait_link(a, port, false));
    g_assert_cmpuint(nic_launch(a, port, 5), ==, GAUDISIM_NIC_ERR_LINK_DOWN);
    gsim_shutdown(a);
    unlink(sock);
    rmdir(dir);
}

/* Two devices may not claim one module ID on one fabric. */
static void test_nic_module_taken(void)
{
    QTestState *qts = qtest_init(
        "-M q35 -nodefaults -object gaudisim-fabric,id=fab0 "
        "-device gaudisim,id=gsim0,hbm-size=1G,hbm-bar-size=64M,"
        "module-id=3,fabric=fab0");
    QDict *rsp;

    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{'driver': 'gaudisim', 'id': 'dup', 'hbm-size': 1073741824, "
                    "'hbm-bar-size': 16777216, 'module-id': 3, "
                    "'fabric': 'fab0'}}");
    g_assert(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                    "{'driver': 'gaudisim', 'id': 'bad', 'hbm-size': 1073741824, "
                    "'hbm-bar-size': 16777216, 'module-id': 8}}");
    g_assert(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    qtest_quit(qts);
}

/* ---- tests: user interrupts */

#define USER_INTR_ADDR  (GAUDISIM_CFG_BASE + GAUDISIM_REG_USER_INTR)
#define USER_VEC_END    (GAUDISIM_MSIX_VEC_USER_FIRST + GAUDISIM_MSIX_NUM_USER)

static void test_user_intr_mmio(void)
{
    GsimDev *d = gsim_boot();
    static const uint32_t bad[] = {
        0, GAUDISIM_MSIX_VEC_EQ, USER_VEC_END, 0xffffffff,
    };

    /* Each user vector raises exactly itself. */
    for (unsigned int v = GAUDISIM_MSIX_VEC_USER_FIRST; v < USER_VEC_END; v++) {
        reg_write(d, GAUDISIM_REG_USER_INTR, v);
        g_assert_true(msix_wait(d, v));
        g_assert_cmpuint(msix_pending_count(d), ==, 1);
        msix_ack(d, v);
    }
    /* Anything else is dropped and counted. */
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        reg_write(d, GAUDISIM_REG_USER_INTR, bad[i]);
    }
    settle();
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_ERR_PKT_CNT), ==, ARRAY_SIZE(bad));
    gsim_shutdown(d);
}

/* A user CB's MSG_LONG raises it; a value that is no user vector fails the CB. */
static void test_user_intr_cb(void)
{
    GsimDev *d = gsim_boot();
    const unsigned int vec = GAUDISIM_MSIX_VEC_USER_FIRST + 4;
    GsimQueue q;
    unsigned int slot;
    Cb cb = { .len = 0 };

    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0 + 1, 2);
    cb_msg_long(&cb, vec, USER_INTR_ADDR);
    slot = queue_submit(d, &q, &cb);
    g_assert_true(msix_wait(d, q.id));
    g_assert_cmphex(cq_entry(d, &q, slot), ==, CQ_OK(0));
    g_assert_true(qpci_msix_pending(d->pdev, vec));
    g_assert_cmpuint(msix_pending_count(d), ==, 2);
    msix_ack(d, vec);
    msix_ack(d, q.id);

    cb.len = 0;
    cb_msg_long(&cb, GAUDISIM_MSIX_NUM_VECTORS, USER_INTR_ADDR);
    slot = queue_submit(d, &q, &cb);
    g_assert_true(msix_wait(d, q.id));
    g_assert_cmphex(cq_entry(d, &q, slot), ==,
                    CQ_ERR(1, GAUDISIM_CP_ERR_PKT_FIELD));
    g_assert_cmpuint(msix_pending_count(d), ==, 1);
    msix_ack(d, q.id);
    gsim_shutdown(d);
}

/* A monitor whose payload writes USER_INTR: the interrupt fires with the SOB. */
static void test_user_intr_monitor(void)
{
    GsimDev *d = gsim_boot();
    const unsigned int vec = USER_VEC_END - 1, m = 7, sob = 100;
    uint32_t blk = GAUDISIM_BLOCK_SYNC_MNGR;

    reg_write(d, blk + GAUDISIM_SYNC_MON_PAY_ADDRL(m), (uint32_t)USER_INTR_ADDR);
    reg_write(d, blk + GAUDISIM_SYNC_MON_PAY_ADDRH(m), USER_INTR_ADDR >> 32);
    reg_write(d, blk + GAUDISIM_SYNC_MON_PAY_DATA(m), vec);
    reg_write(d, blk + GAUDISIM_SYNC_MON_ARM(m), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 2));
    reg_write(d, blk + GAUDISIM_SYNC_SOB_OBJ(sob), GAUDISIM_SYNC_SOB_SET(1));
    settle();
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    reg_write(d, blk + GAUDISIM_SYNC_SOB_OBJ(sob), GAUDISIM_SYNC_SOB_ADD(1));
    g_assert_true(msix_wait(d, vec));
    g_assert_cmpuint(msix_pending_count(d), ==, 1);
    msix_ack(d, vec);

    /* A payload naming no user vector is dropped and counted. */
    reg_write(d, blk + GAUDISIM_SYNC_MON_PAY_DATA(m), GAUDISIM_MSIX_VEC_EQ);
    reg_write(d, blk + GAUDISIM_SYNC_MON_ARM(m), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, 3));
    reg_write(d, blk + GAUDISIM_SYNC_SOB_OBJ(sob), GAUDISIM_SYNC_SOB_ADD(1));
    settle();
    g_assert_cmpuint(msix_pending_count(d), ==, 0);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_ERR_PKT_CNT), ==, 1);
    g_assert_cmphex(reg_read(d, blk + GAUDISIM_SYNC_MON_STATUS(m)) &
                    GAUDISIM_SYNC_MON_STATUS_FIRED, ==,
                    GAUDISIM_SYNC_MON_STATUS_FIRED);
    gsim_shutdown(d);
}

/* ---- tests: PCIe counters */

typedef struct PcieSnap {
    uint64_t rx, tx;
} PcieSnap;

/* Four register reads: RX_LO, RX_HI, TX_LO, TX_HI. */
static PcieSnap pcie_snap(GsimDev *d)
{
    PcieSnap p;

    p.rx = reg_read(d, GAUDISIM_REG_PCIE_RX_BYTES_LO);
    p.rx |= (uint64_t)reg_read(d, GAUDISIM_REG_PCIE_RX_BYTES_HI) << 32;
    p.tx = reg_read(d, GAUDISIM_REG_PCIE_TX_BYTES_LO);
    p.tx |= (uint64_t)reg_read(d, GAUDISIM_REG_PCIE_TX_BYTES_HI) << 32;
    return p;
}

/* TX between two snapshots from their own reads (4 bytes each). */
#define SNAP_TX     16

/*
 * A LIN_DMA host -> HBM and one HBM -> host: RX grows by the doorbell, the
 * PQ entry, the CB and the source bytes; TX by the destination bytes, the
 * CQ entry and the MSI-X message. The HBM BAR is not counted.
 */
static void test_pcie_counters(void)
{
    GsimDev *d = gsim_boot();
    const uint32_t n = 10000;
    const uint32_t tail = 2 * 16;       /* the two MSG_PROT of the tail */
    g_autofree uint8_t *src = g_malloc(n);
    g_autofree uint8_t *dst = g_malloc(n);
    uint64_t src_bus = guest_alloc(&d->qs->alloc, n);
    uint64_t dst_bus = guest_alloc(&d->qs->alloc, n);
    uint64_t hbm = GAUDISIM_HBM_BASE + GAUDISIM_HBM_USER_BASE;
    PcieSnap a, b;
    GsimQueue q;
    unsigned int slot;
    Cb cb = { .len = 0 };

    fill_pattern(src, n, 21);
    qtest_memwrite(d->qts, src_bus, src, n);
    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0, 2);
    cb_lin_dma(&cb, host_addr(src_bus), hbm, n);
    cb_lin_dma(&cb, hbm, host_addr(dst_bus), n);

    a = pcie_snap(d);
    slot = queue_submit(d, &q, &cb);
    g_assert_true(msix_wait(d, q.id));
    b = pcie_snap(d);
    g_assert_cmphex(cq_entry(d, &q, slot), ==, CQ_OK(0));
    qtest_memread(d->qts, dst_bus, dst, n);
    g_assert_cmpmem(dst, n, src, n);
    g_assert_cmpuint(b.rx - a.rx, ==, 4 + GAUDISIM_BD_SIZE + cb.len + tail + n);
    g_assert_cmpuint(b.tx - a.tx, ==, SNAP_TX + n + GAUDISIM_CQ_ENTRY_SIZE + 4);

    /* A 64-bit read is LO then HI; the HBM BAR goes straight to memory. */
    qpci_io_writel(d->pdev, d->hbm, 0x100, 0x1234);
    g_assert_cmphex(qpci_io_readl(d->pdev, d->hbm, 0x100), ==, 0x1234);
    g_assert_cmphex(qpci_io_readq(d->pdev, d->cfg, GAUDISIM_REG_PCIE_RX_BYTES_LO),
                    ==, b.rx);

    /* The replay knob adds; a hard reset clears everything. */
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_PCIE_REPLAY_CNT), ==, 0);
    qom_set_int(d, "fault-pcie-replay", 5);
    qom_set_int(d, "fault-pcie-replay", 2);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_PCIE_REPLAY_CNT), ==, 7);
    g_assert_cmpint(qom_get_int(d, "fault-pcie-replay"), ==, 7);
    /* Read-only. */
    reg_write(d, GAUDISIM_REG_PCIE_REPLAY_CNT, 0);
    reg_write(d, GAUDISIM_REG_PCIE_TX_BYTES_LO, 0);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_PCIE_REPLAY_CNT), ==, 7);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_PCIE_TX_BYTES_LO), >, b.tx);
    msix_ack(d, q.id);
    reg_write(d, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_PCIE_RX_BYTES_LO), ==, 0);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_PCIE_TX_BYTES_LO), ==, 4);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_PCIE_TX_BYTES_HI), ==, 0);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_PCIE_REPLAY_CNT), ==, 0);
    gsim_shutdown(d);
}

/* ---- tests: board identity */

#define TEST_SERIAL "HL-TEST_0042"
#define TEST_UUID   "5a1e0000-1234-4abc-8def-00000000002a"

static void read_bytes(GsimDev *d, uint32_t base, unsigned int words,
                       uint8_t *out)
{
    for (unsigned int i = 0; i < words; i++) {
        stl_le_p(out + 4 * i, reg_read(d, base + 4 * i));
    }
}

static char *qom_get_str(GsimDev *d, const char *prop)
{
    QDict *rsp = qtest_qmp(d->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': 'gsim0', 'property': %s}}", prop);
    char *v;

    g_assert(qdict_haskey(rsp, "return"));
    v = g_strdup(qdict_get_str(rsp, "return"));
    qobject_unref(rsp);
    return v;
}

static void check_identity(GsimDev *d, const char *serial, const char *uuid)
{
    uint8_t got[4 * GAUDISIM_SERIAL_WORDS], want[sizeof(got)] = { 0 };
    uint8_t uuid_got[4 * GAUDISIM_UUID_WORDS];
    QemuUUID uuid_want;

    g_assert_cmpuint(strlen(serial), <=, GAUDISIM_SERIAL_MAX_LEN);
    memcpy(want, serial, strlen(serial));
    read_bytes(d, GAUDISIM_REG_SERIAL(0), GAUDISIM_SERIAL_WORDS, got);
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    g_assert_cmpint(qemu_uuid_parse(uuid, &uuid_want), ==, 0);
    read_bytes(d, GAUDISIM_REG_UUID(0), GAUDISIM_UUID_WORDS, uuid_got);
    g_assert_cmpmem(uuid_got, sizeof(uuid_got), uuid_want.data,
                    sizeof(uuid_want.data));
}

static void test_board_identity(void)
{
    GsimDev *d = gsim_boot_args("-global gaudisim.serial=" TEST_SERIAL
                                " -global gaudisim.uuid=" TEST_UUID);
    g_autofree char *uuid = NULL;
    g_autofree char *serial = NULL;
    g_autofree char *derived = NULL;
    uint32_t fw, cpld;

    gsim_enable(d);
    check_identity(d, TEST_SERIAL, TEST_UUID);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_UUID(0)), ==, 0x00001e5a);
    fw = reg_read(d, GAUDISIM_REG_FW_VERSION);
    cpld = reg_read(d, GAUDISIM_REG_CPLD_VERSION);
    g_assert_cmpuint(GAUDISIM_FW_VERSION_MAJOR(fw), >=, 1);
    g_assert_cmphex(cpld, !=, 0);
    /* Read-only; a hard reset keeps them. */
    reg_write(d, GAUDISIM_REG_SERIAL(0), 0);
    reg_write(d, GAUDISIM_REG_UUID(1), 0);
    reg_write(d, GAUDISIM_REG_FW_VERSION, 0);
    reg_write(d, GAUDISIM_REG_CPLD_VERSION, 0);
    reg_write(d, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
    check_identity(d, TEST_SERIAL, TEST_UUID);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_FW_VERSION), ==, fw);
    g_assert_cmphex(reg_read(d, GAUDISIM_REG_CPLD_VERSION), ==, cpld);
    gsim_shutdown(d);

    /* Defaults: a generated UUID, and a serial derived from it. */
    d = gsim_boot();
    uuid = qom_get_str(d, "uuid");
    g_assert_cmpstr(uuid, !=, "00000000-0000-0000-0000-000000000000");
    serial = g_strdup_printf("GS%.8s%.2s", uuid, uuid + 9);
    for (char *c = serial; *c; c++) {
        *c = g_ascii_toupper(*c);
    }
    check_identity(d, serial, uuid);
    /* qom-get reports the derived serial, not an empty string. */
    derived = qom_get_str(d, "serial");
    g_assert_cmpstr(derived, ==, serial);
    gsim_shutdown(d);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/gaudisim/pci/ids", test_pci_ids);
    qtest_add_func("/gaudisim/pci/bars", test_pci_bars);
    qtest_add_func("/gaudisim/regs/identity", test_regs_identity);
    qtest_add_func("/gaudisim/regs/bad-writes", test_bad_register_writes);
    qtest_add_func("/gaudisim/regs/properties", test_properties);
    qtest_add_func("/gaudisim/pci/hot-unplug", test_hot_unplug);
    qtest_add_func("/gaudisim/hbm/window", test_hbm_window);
    qtest_add_func("/gaudisim/msix/request", test_msix_request);
    qtest_add_func("/gaudisim/msix/user-intr", test_user_intr_mmio);
    qtest_add_func("/gaudisim/msix/user-intr-cb", test_user_intr_cb);
    qtest_add_func("/gaudisim/msix/user-intr-monitor", test_user_intr_monitor);
    qtest_add_func("/gaudisim/pcie/counters", test_pcie_counters);
    qtest_add_func("/gaudisim/regs/board-identity", test_board_identity);
    qtest_add_func("/gaudisim/queue/dma-job", test_dma_job);
    qtest_add_func("/gaudisim/queue/all-queues", test_all_queues);
    qtest_add_func("/gaudisim/queue/large-job", test_large_job);
    qtest_add_func("/gaudisim/queue/malformed", test_malformed);
    qtest_add_func("/gaudisim/queue/fence", test_fence);
    qtest_add_func("/gaudisim/queue/no-bus-master", test_no_bus_master);
    qtest_add_func("/gaudisim/reset/register-mid-job", test_reset_register);
    qtest_add_func("/gaudisim/reset/system-reset-mid-job", test_reset_system);
    qtest_add_func("/gaudisim/reset/flr-mid-job", test_reset_flr);
    qtest_add_func("/gaudisim/iq/hbm-dma", test_iq_hbm_dma);
    qtest_add_func("/gaudisim/iq/reset-mid-job", test_iq_reset_mid_job);
    qtest_add_func("/gaudisim/iq/reserved-hbm", test_reserved_hbm);
    qtest_add_func("/gaudisim/mme/gemm", test_mme_gemm);
    qtest_add_func("/gaudisim/mme/long-gemm-responsive",
                   test_mme_long_gemm_responsive);
    qtest_add_func("/gaudisim/mme/reset-during-long-gemm",
                   test_mme_reset_during_long_gemm);
    qtest_add_func("/gaudisim/tpc/relu", test_tpc_relu);
    qtest_add_func("/gaudisim/sync/chain-dma-mme-dma", test_chain);
    qtest_add_func("/gaudisim/sync/chain-dma-mme-tpc-dma", test_chain_relu);
    qtest_add_func("/gaudisim/eq/error-event", test_eq_error_event);
    qtest_add_func("/gaudisim/mmu/va-dma-and-fault", test_mmu_va_dma);
    qtest_add_func("/gaudisim/fault/ecc", test_fault_ecc);
    qtest_add_func("/gaudisim/fault/hang", test_fault_hang);
    qtest_add_func("/gaudisim/fault/drop-irq", test_fault_drop_irq);
    qtest_add_func("/gaudisim/fault/thermal-spike", test_fault_thermal_spike);
    qtest_add_func("/gaudisim/nic/fabric", test_nic_fabric);
    qtest_add_func("/gaudisim/nic/module-taken", test_nic_module_taken);
    qtest_add_func("/gaudisim/nic/scale-out", test_nic_scaleout);

    return g_test_run();
}
