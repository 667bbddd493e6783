/*
 * QTest for the gaudisim accelerator: NIC ports on a fabric (two devices in
 * one box) and scale-out between boxes.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "gaudisim-test.h"

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
        GsimDev *d = gsim_dev_new(qs, pdevs[i]);

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

/* What b's driver does when its user registers [addr, +size) and 8 SOBs. */
static void nic_register(GsimDev *d, uint64_t addr, uint64_t size)
{
    uint32_t mr = GAUDISIM_BLOCK_NIC_RX + GAUDISIM_NIC_RX_MR(0);

    reg_write(d, mr + GAUDISIM_NIC_RX_MR_ADDR_LO, (uint32_t)addr);
    reg_write(d, mr + GAUDISIM_NIC_RX_MR_ADDR_HI, (uint32_t)(addr >> 32));
    reg_write(d, mr + GAUDISIM_NIC_RX_MR_SIZE_LO, (uint32_t)size);
    reg_write(d, mr + GAUDISIM_NIC_RX_MR_SIZE_HI, (uint32_t)(size >> 32));
    reg_write(d, mr + GAUDISIM_NIC_RX_MR_SOB_FIRST, NIC_SOB);
    reg_write(d, mr + GAUDISIM_NIC_RX_MR_SOB_COUNT, 8);
    reg_write(d, mr + GAUDISIM_NIC_RX_MR_CTRL, GAUDISIM_NIC_RX_MR_VALID);
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

void test_nic_fabric(void)
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
    /* Nothing registered on b yet: refused there, nothing lands. */
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 1), ==,
                     GAUDISIM_NIC_ERR_REMOTE_ACCESS);
    g_assert_cmpuint(nic_rd(b, NIC_PORT, GAUDISIM_NIC_RX_REFUSED), ==, 1);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 0);
    nic_register(b, NIC_DST, NIC_LEN);
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 2), ==, GAUDISIM_NIC_ERR_NONE);
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
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 3), ==,
                     GAUDISIM_NIC_ERR_LINK_DOWN);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 1);
    g_assert_cmpuint(nic_rd(a, NIC_PORT, GAUDISIM_NIC_TX_ERRS), ==, 2);
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
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 4), ==, GAUDISIM_NIC_ERR_NONE);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 2);
    g_assert_cmpuint(nic_rd(a, NIC_PORT, GAUDISIM_NIC_TX_BYTES_LO), ==,
                     2 * NIC_LEN);

    /* Outside b's window: refused at b, nothing lands. */
    nic_wr(a, NIC_PORT, GAUDISIM_NIC_TX_DST_LO, 0x1000);
    g_assert_cmpuint(nic_launch(a, NIC_PORT, 5), ==,
                     GAUDISIM_NIC_ERR_REMOTE_ACCESS);
    g_assert_cmpuint(nic_rd(b, NIC_PORT, GAUDISIM_NIC_RX_REFUSED), ==, 2);
    g_assert_cmpuint(nic_sob(b, NIC_SOB), ==, 2);
    nic_shutdown(&p);
}

/* One box of one device (module 0) whose fabric has the scale-out cable. */
static GsimDev *nic_box_boot(const char *chardev)
{
    g_autofree char *cmdline =
        g_strdup_printf("-M q35 -nodefaults -chardev %s "
                        "-object gaudisim-fabric,id=fab0,chardev=so0,"
                        "timeout-ms=2000 "
                        "-device gaudisim,id=gsim0,hbm-size=1G,"
                        "hbm-bar-size=64M,module-id=0,fabric=fab0", chardev);
    GsimDev *d = gsim_boot_cmdline(cmdline);

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
void test_nic_scaleout(void)
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
    nic_register(b, NIC_DST, NIC_LEN);
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
void test_nic_module_taken(void)
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
