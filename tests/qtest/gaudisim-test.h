/*
 * QTest for the gaudisim accelerator: the shared fixture. A miniature
 * driver boots the device, maps its BARs and drives real external queues
 * (PQ, CB and CQ in guest memory, doorbell, completion tail, MSI-X);
 * gaudisim-test-fixture.c implements it, gaudisim-test-<subject>.c hold
 * the tests and gaudisim-test.c registers them.
 *
 * MSI-X vectors stay masked, so an interrupt shows up as its PBA bit;
 * msix_ack() unmasks a vector briefly, which delivers the message to a
 * scratch buffer and clears the bit for the next job.
 *
 * SPDX-License-Identifier: MIT
 */

#ifndef GAUDISIM_TEST_H
#define GAUDISIM_TEST_H

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

/* Internal queues, the event queue and the MMU. */
#define IQ_ID           GAUDISIM_QUEUE_ID_DMA_2_0   /* an HBM-DMA queue */
#define IQ_CB_HBM       (GAUDISIM_HBM_USER_BASE + 0x10000)
#define IQ_DATA_HBM     (GAUDISIM_HBM_USER_BASE + 0x100000)
#define MMU_ASID        2
#define EQ_LOG2         6

typedef struct GsimEq {
    uint64_t ring;          /* guest address */
    unsigned int next;      /* next entry to read */
} GsimEq;

/* ---- gaudisim-test-fixture.c */

void save_pdev(QPCIDevice *dev, int devfn, void *data);
uint32_t reg_read(GsimDev *d, uint32_t off);
void reg_write(GsimDev *d, uint32_t off, uint32_t val);
void gsim_enable(GsimDev *d);
/* A GsimDev for @pdev of the running machine @qs, with its MSI-X scratch. */
GsimDev *gsim_dev_new(QOSState *qs, QPCIDevice *pdev);
/* Boot a machine from @cmdline and find its one gaudisim (not enabled). */
GsimDev *gsim_boot_cmdline(const char *cmdline);
/* The test machine with @extra options (not enabled). */
GsimDev *gsim_boot_args(const char *extra);
GsimDev *gsim_boot(void);
void gsim_shutdown(GsimDev *d);
bool msix_wait(GsimDev *d, unsigned int vec);
unsigned int msix_pending_count(GsimDev *d);
void msix_ack(GsimDev *d, unsigned int vec);
uint32_t qm_reg(const GsimQueue *q, uint32_t off);
void queue_init(GsimDev *d, GsimQueue *q, unsigned int id,
                unsigned int log2_entries);
void cb_put32(Cb *cb, uint32_t v);
void cb_put64(Cb *cb, uint64_t v);
void cb_nop(Cb *cb);
void cb_lin_dma(Cb *cb, uint64_t src, uint64_t dst, uint32_t size);
void cb_msg_prot(Cb *cb, uint32_t value, uint64_t addr);
void cb_fence(Cb *cb, unsigned int id, uint32_t target, uint32_t dec);
uint64_t host_addr(uint64_t bus_addr);
unsigned int queue_submit(GsimDev *d, GsimQueue *q, const Cb *body);
uint32_t cq_entry(GsimDev *d, GsimQueue *q, unsigned int slot);
bool wait_cp_sts(GsimDev *d, GsimQueue *q, uint32_t bits);
void settle(void);
void fill_pattern(uint8_t *buf, size_t len, unsigned int seed);
void run_dma_job(GsimDev *d, GsimQueue *q, uint64_t hbm_addr,
                 size_t size, unsigned int seed);
void window_set(GsimDev *d, uint64_t offset);
uint64_t window_get(GsimDev *d);
void reset_by_register(GsimDev *d);
void cb_msg_long(Cb *cb, uint32_t value, uint64_t addr);
void hbm_write(GsimDev *d, uint64_t hbm, const void *buf, size_t len);
void hbm_read(GsimDev *d, uint64_t hbm, void *buf, size_t len);
void iq_init(GsimDev *d, GsimQueue *q);
void iq_submit_wait(GsimDev *d, GsimQueue *q, const Cb *cb, bool wait);
unsigned int iq_err(GsimDev *d, GsimQueue *q);
void eq_init(GsimDev *d, GsimEq *eq);
bool eq_find(GsimDev *d, GsimEq *eq, unsigned int type, uint64_t *addr,
             uint32_t *code, uint32_t *queue, uint32_t *data0);
void qom_set_int(GsimDev *d, const char *prop, int64_t value);
int64_t qom_get_int(GsimDev *d, const char *prop);
char *qom_get_str(GsimDev *d, const char *prop);

/* ---- the tests */

/* gaudisim-test-regs.c */
void test_pci_ids(void);
void test_pci_bars(void);
void test_regs_identity(void);
void test_hbm_window(void);
void test_bad_register_writes(void);
void test_msix_request(void);
void test_no_bus_master(void);
void test_properties(void);
void test_hot_unplug(void);
void test_user_intr_mmio(void);
void test_user_intr_cb(void);
void test_user_intr_monitor(void);
void test_pcie_counters(void);
void test_board_identity(void);
void test_dbg_mem_port(void);

/* gaudisim-test-queues.c */
void test_dma_job(void);
void test_all_queues(void);
void test_large_job(void);
void test_malformed(void);
void test_fence(void);
void test_reset_flr(void);
void test_reset_register(void);
void test_reset_system(void);
void test_load_and_exe(void);

/* gaudisim-test-faults.c */
void test_iq_hbm_dma(void);
void test_eq_error_event(void);
void test_mmu_va_dma(void);
void test_reserved_hbm(void);
void test_fault_ecc(void);
void test_fault_hang(void);
void test_fault_drop_irq(void);
void test_fault_thermal_spike(void);
void test_iq_reset_mid_job(void);

/* gaudisim-test-engines.c */
void test_mme_gemm(void);
void test_mme_long_gemm_responsive(void);
void test_mme_reset_during_long_gemm(void);
void test_chain(void);
void test_tpc_relu(void);
void test_chain_relu(void);

/* gaudisim-test-nic.c */
void test_nic_fabric(void);
void test_nic_scaleout(void);
void test_nic_module_taken(void);

#endif /* GAUDISIM_TEST_H */
