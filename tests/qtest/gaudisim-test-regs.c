/*
 * QTest for the gaudisim accelerator: PCI identity and BARs, registers, the
 * HBM window, bad input, properties, MSI-X and user interrupts, PCIe
 * counters, the board identity.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "gaudisim-test.h"

/* ---- tests: identity */

void test_pci_ids(void)
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

void test_pci_bars(void)
{
    GsimDev *d = gsim_boot_args("");

    check_bar(d, GAUDISIM_BAR_CFG, GAUDISIM_CFG_BAR_SIZE, false);
    check_bar(d, GAUDISIM_BAR_MSIX, 4096, false);
    check_bar(d, GAUDISIM_BAR_HBM, TEST_HBM_BAR_SIZE, true);
    gsim_shutdown(d);
}

void test_regs_identity(void)
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

void test_hbm_window(void)
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

/* ---- tests: bad input */

void test_bad_register_writes(void)
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

void test_msix_request(void)
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

void test_no_bus_master(void)
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

void test_properties(void)
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
void test_hot_unplug(void)
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

/* ---- tests: user interrupts */

#define USER_INTR_ADDR  (GAUDISIM_CFG_BASE + GAUDISIM_REG_USER_INTR)
#define USER_VEC_END    (GAUDISIM_MSIX_VEC_USER_FIRST + GAUDISIM_MSIX_NUM_USER)

void test_user_intr_mmio(void)
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
void test_user_intr_cb(void)
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
void test_user_intr_monitor(void)
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
void test_pcie_counters(void)
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

void test_board_identity(void)
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

/* ---- tests: debug memory port */

#define DBG_MEM(reg)    (GAUDISIM_BLOCK_DBG_MEM + GAUDISIM_DBG_MEM_##reg)

static uint32_t dbg_mem_read(GsimDev *d, uint64_t addr, uint32_t *sts)
{
    uint32_t v;

    reg_write(d, DBG_MEM(ADDR_LO), (uint32_t)addr);
    reg_write(d, DBG_MEM(ADDR_HI), addr >> 32);
    v = reg_read(d, DBG_MEM(DATA));
    *sts = reg_read(d, DBG_MEM(STS));
    return v;
}

static uint32_t dbg_mem_write(GsimDev *d, uint64_t addr, uint32_t v)
{
    reg_write(d, DBG_MEM(ADDR_LO), (uint32_t)addr);
    reg_write(d, DBG_MEM(ADDR_HI), addr >> 32);
    reg_write(d, DBG_MEM(DATA), v);
    return reg_read(d, DBG_MEM(STS));
}

/*
 * The port reads and writes SRAM (checked against DMA), HBM (reserved HBM
 * too, checked against the HBM BAR) and host memory through the physical
 * window; other addresses fail with DMA_ADDR; a CB cannot use it.
 */
void test_dbg_mem_port(void)
{
    GsimDev *d = gsim_boot();
    uint64_t sram = GAUDISIM_SRAM_BASE + 0x4000;
    uint64_t host_bus = guest_alloc(&d->qs->alloc, 64);
    uint32_t sts, word;
    GsimQueue q;
    unsigned int slot;
    Cb cb = { .len = 0 };

    queue_init(d, &q, GAUDISIM_QUEUE_ID_DMA_0_0, 2);

    /* SRAM: a port write is what a DMA reads; a DMA write is what it reads. */
    g_assert_cmpuint(dbg_mem_write(d, sram, 0xa1b2c3d4), ==, 0);
    cb_lin_dma(&cb, sram, host_addr(host_bus), 4);
    slot = queue_submit(d, &q, &cb);
    g_assert_true(msix_wait(d, q.id));
    g_assert_cmphex(cq_entry(d, &q, slot), ==, CQ_OK(0));
    msix_ack(d, q.id);
    g_assert_cmphex(qtest_readl(d->qts, host_bus), ==, 0xa1b2c3d4);
    g_assert_cmphex(dbg_mem_read(d, sram, &sts), ==, 0xa1b2c3d4);
    g_assert_cmpuint(sts, ==, 0);

    /* Host memory at its physical address, both ways. */
    qtest_writel(d->qts, host_bus + 8, 0x5566aa77);
    word = dbg_mem_read(d, host_addr(host_bus + 8), &sts);
    g_assert_cmphex(word, ==, 0x5566aa77);
    g_assert_cmpuint(sts, ==, 0);
    g_assert_cmpuint(dbg_mem_write(d, host_addr(host_bus + 12), 0x0badf00d),
                     ==, 0);
    g_assert_cmphex(qtest_readl(d->qts, host_bus + 12), ==, 0x0badf00d);

    /* HBM, reserved HBM too: the HBM BAR (window 0) sees the same bytes. */
    g_assert_cmpuint(dbg_mem_write(d, 0x100, 0x11223344), ==, 0);
    g_assert_cmphex(qpci_io_readl(d->pdev, d->hbm, 0x100), ==, 0x11223344);
    qpci_io_writel(d->pdev, d->hbm, 0x200, 0xfeedbeef);
    g_assert_cmphex(dbg_mem_read(d, 0x200, &sts), ==, 0xfeedbeef);

    /* Unaligned, past SRAM, or a register: refused, a read returns 0. */
    g_assert_cmphex(dbg_mem_read(d, sram + 2, &sts), ==, 0);
    g_assert_cmpuint(sts, ==, GAUDISIM_CP_ERR_DMA_ADDR);
    word = dbg_mem_read(d, GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE, &sts);
    g_assert_cmphex(word, ==, 0);
    g_assert_cmpuint(sts, ==, GAUDISIM_CP_ERR_DMA_ADDR);
    sts = dbg_mem_write(d, GAUDISIM_CFG_BASE + GAUDISIM_REG_RESET,
                        GAUDISIM_RESET_HARD);
    g_assert_cmpuint(sts, ==, GAUDISIM_CP_ERR_DMA_ADDR);
    g_assert_cmpuint(reg_read(d, GAUDISIM_REG_DEV_STATUS) &
                     GAUDISIM_DEV_STATUS_IN_RESET, ==, 0);
    /* A good access clears the status. */
    g_assert_cmphex(dbg_mem_read(d, sram, &sts), ==, 0xa1b2c3d4);
    g_assert_cmpuint(sts, ==, 0);

    /* A job may not aim the port: the MSG_LONG fails as privileged. */
    cb.len = 0;
    cb_msg_long(&cb, 0, GAUDISIM_CFG_BASE + DBG_MEM(ADDR_LO));
    slot = queue_submit(d, &q, &cb);
    g_assert_true(msix_wait(d, q.id));
    g_assert_cmphex(cq_entry(d, &q, slot), ==, CQ_ERR(1, GAUDISIM_CP_ERR_PRIV));
    msix_ack(d, q.id);
    g_assert_cmphex(reg_read(d, DBG_MEM(ADDR_LO)), ==, (uint32_t)sram);

    /* A hard reset clears the address. */
    reg_write(d, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
    g_assert_cmphex(reg_read(d, DBG_MEM(ADDR_LO)), ==, 0);
    g_assert_cmphex(reg_read(d, DBG_MEM(ADDR_HI)), ==, 0);
    gsim_shutdown(d);
}
