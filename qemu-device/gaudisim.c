/*
 * gaudisim: a simulated Gaudi-class training accelerator, PCIe endpoint.
 *
 * This file is only the QEMU glue: PCI identity, BARs, MSI-X, the bottom
 * half that runs the engines, reset and properties. The engines, queues and
 * registers live in the plain-C core (core/gsim_core.h), which calls back
 * into QEMU through struct gsim_host_ops for DMA, interrupts and logging.
 *
 * BAR0  registers (MMIO, 32-bit accesses; 64-bit ones are split)
 * BAR2  MSI-X table and PBA: one vector per completion queue, the EQ's,
 *       then the user interrupts
 * BAR4  window into HBM (RAM-backed, moved by the HBM_WINDOW registers)
 *
 * Identity: properties serial and uuid are the board's EEPROM contents
 * (GAUDISIM_REG_SERIAL/UUID); uuid defaults to "auto", a fresh one per
 * device, and serial to one derived from the UUID.
 *
 * NIC: property module-id places the device in its box, fabric= links it
 * to a gaudisim-fabric object (gaudisim-fabric.c); peers deliver their
 * writes into this device on the main loop and kick its BH.
 *
 * Locking: everything here runs with the BQL held (MMIO handlers, the BH,
 * reset), which is the single-thread contract gsim_core.h asks for. The
 * worker threads (property "threads"; one pool for every device of the
 * process that asks for the same number) compute MME, TPC and HBM-DMA
 * work on device memory only; when one finishes it calls
 * gaudisim_work_done(), which only schedules the BH (qemu_bh_schedule() is
 * thread-safe). The BH takes the results back under the BQL, so guest
 * memory DMA and MSI-X stay on the main loop. docs/device.md has the
 * whole model.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qemu/uuid.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "migration/vmstate.h"
#include "system/dma.h"
#include "qom/object.h"
#include "trace.h"

#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_regs.h"
#include "core/gsim_core.h"
#include "core/gsim_fabric.h"
#include "core/gsim_faults.h"
#include "gaudisim-fabric.h"

#define TYPE_GAUDISIM "gaudisim"
OBJECT_DECLARE_SIMPLE_TYPE(GaudisimState, GAUDISIM)

/* Config-space placement of the PCI Express capability. */
#define GAUDISIM_PCIE_CAP_OFFSET    0x80
/* MSI-X BAR layout: table at 0, PBA in the upper half (as msix.c does). */
#define GAUDISIM_MSIX_BAR_SIZE      4096
#define GAUDISIM_MSIX_PBA_OFFSET    (GAUDISIM_MSIX_BAR_SIZE / 2)

QEMU_BUILD_BUG_ON(GAUDISIM_MSIX_NUM_VECTORS * PCI_MSIX_ENTRY_SIZE >
                  GAUDISIM_MSIX_PBA_OFFSET);

struct GaudisimState {
    PCIDevice parent_obj;

    /* Properties. */
    uint64_t hbm_size;
    uint64_t hbm_bar_size;
    uint32_t threads;           /* engine workers; 0: one per host CPU */
    bool tpc_portable;          /* TPC kernels on the portable interpreter */
    char *tpc_isa;              /* TPC interpreter build, NULL: GSIM_TPC_ISA/auto */
    uint32_t module_id;         /* place in the box, GAUDISIM_REG_MODULE_ID */
    char *serial;               /* board serial, NULL: derived from uuid */
    QemuUUID uuid;              /* board UUID, RFC 4122 byte order */
    GaudisimFabric *fabric;     /* NIC links to the other modules, or NULL */

    MemoryRegion cfg_bar;       /* BAR0: register MMIO */
    MemoryRegion msix_bar;      /* BAR2: MSI-X table + PBA */
    MemoryRegion hbm;           /* all of HBM, backed by the core's memory */
    MemoryRegion hbm_bar;       /* BAR4 container ... */
    MemoryRegion hbm_window;    /* ... holding an alias into hbm */

    struct gsim_core *core;
    QEMUBH *run_bh;             /* runs gsim_core_run() outside MMIO */
    uint64_t window_offset;     /* HBM offset BAR4 currently shows */

    /* Interrupts the core asked for while MSI-X was off (debug aid). */
    uint64_t msix_dropped;
};

/*
 * ---- fault injection: QOM properties, settable at run time with qom-set
 *
 * docs/fault-injection.md describes every knob. The core holds the state;
 * one table names the knobs, and one getter and one setter translate QOM
 * values for all of them. Setting a knob before the device is realized is
 * refused: there is no core to inject into yet.
 */

typedef struct GaudisimFaultKnob {
    const char *name;
    const char *type;           /* "int", "int32", "uint32" or "uint64" */
    int64_t unrealized;         /* what a get reads before realize */
    int64_t (*get)(struct gsim_core *core);
    /* NULL: read only. Sets errp and returns false when the core refuses. */
    bool (*set)(GaudisimState *s, const char *name, int64_t value,
                Error **errp);
    const char *description;
} GaudisimFaultKnob;

static int64_t gaudisim_knob_get_hang(struct gsim_core *core)
{
    return gsim_fault_hung_engine(core);
}

static bool gaudisim_knob_set_hang(GaudisimState *s, const char *name,
                                   int64_t engine, Error **errp)
{
    if (engine < INT_MIN || engine > INT_MAX ||
        gsim_fault_hang_engine(s->core, (int)engine)) {
        error_setg(errp, "gaudisim: %s: %" PRId64 " is not an engine index "
                   "(0..%d) or -1", name, engine, GAUDISIM_ENGINE_COUNT - 1);
        return false;
    }
    /* Work the hang held back may run again. */
    qemu_bh_schedule(s->run_bh);
    return true;
}

static int64_t gaudisim_knob_get_ecc_ce(struct gsim_core *core)
{
    return gsim_fault_ecc_count(core, false);
}

static bool gaudisim_knob_set_ecc_ce(GaudisimState *s, const char *name,
                                     int64_t count, Error **errp)
{
    gsim_fault_ecc(s->core, false, (uint32_t)count);
    return true;
}

static int64_t gaudisim_knob_get_ecc_ue(struct gsim_core *core)
{
    return gsim_fault_ecc_count(core, true);
}

static bool gaudisim_knob_set_ecc_ue(GaudisimState *s, const char *name,
                                     int64_t count, Error **errp)
{
    gsim_fault_ecc(s->core, true, (uint32_t)count);
    return true;
}

static int64_t gaudisim_knob_get_drop_irq(struct gsim_core *core)
{
    return gsim_fault_drop_irq_left(core);
}

static bool gaudisim_knob_set_drop_irq(GaudisimState *s, const char *name,
                                       int64_t count, Error **errp)
{
    gsim_fault_drop_irq(s->core, (uint32_t)count);
    return true;
}

static int64_t gaudisim_knob_get_irq_dropped(struct gsim_core *core)
{
    return (int64_t)gsim_fault_irq_dropped(core);
}

static int64_t gaudisim_knob_get_spike(struct gsim_core *core)
{
    return gsim_fault_last_spike(core);
}

static bool gaudisim_knob_set_spike(GaudisimState *s, const char *name,
                                    int64_t degrees, Error **errp)
{
    if (gsim_fault_thermal_spike(s->core, (int32_t)degrees)) {
        error_setg(errp, "gaudisim: %s: %d degrees C is outside 0..%d", name,
                   (int32_t)degrees, GSIM_FAULT_SPIKE_MAX_C);
        return false;
    }
    return true;
}

static int64_t gaudisim_knob_get_replay(struct gsim_core *core)
{
    return gsim_fault_pcie_replay_count(core);
}

static bool gaudisim_knob_set_replay(GaudisimState *s, const char *name,
                                     int64_t count, Error **errp)
{
    gsim_fault_pcie_replay(s->core, (uint32_t)count);
    return true;
}

static const GaudisimFaultKnob gaudisim_fault_knobs[] = {
    {
        .name = "fault-hang-engine", .type = "int", .unrealized = -1,
        .get = gaudisim_knob_get_hang, .set = gaudisim_knob_set_hang,
        .description = "engine index whose work stops making progress "
                       "until a reset (-1: none)",
    }, {
        .name = "fault-ecc-correctable", .type = "uint32",
        .get = gaudisim_knob_get_ecc_ce, .set = gaudisim_knob_set_ecc_ce,
        .description = "set: inject that many correctable HBM ECC errors; "
                       "get: the correctable error counter",
    }, {
        .name = "fault-ecc-uncorrectable", .type = "uint32",
        .get = gaudisim_knob_get_ecc_ue, .set = gaudisim_knob_set_ecc_ue,
        .description = "set: inject that many uncorrectable HBM ECC errors "
                       "(each fails the next engine job that touches HBM); "
                       "get: the counter",
    }, {
        .name = "fault-drop-irq", .type = "uint32",
        .get = gaudisim_knob_get_drop_irq, .set = gaudisim_knob_set_drop_irq,
        .description = "swallow the next N MSI-X messages; get: how many "
                       "are still to swallow",
    }, {
        .name = "fault-irq-dropped", .type = "uint64",
        .get = gaudisim_knob_get_irq_dropped,
        .description = "MSI-X messages swallowed by fault-drop-irq so far",
    }, {
        .name = "fault-thermal-spike", .type = "int32",
        .get = gaudisim_knob_get_spike, .set = gaudisim_knob_set_spike,
        .description = "raise the die temperature at once by this many "
                       "degrees C",
    }, {
        .name = "fault-pcie-replay", .type = "uint32",
        .get = gaudisim_knob_get_replay, .set = gaudisim_knob_set_replay,
        .description = "set: count N more PCIe replays in PCIE_REPLAY_CNT; "
                       "get: the counter",
    },
};

/* Visits *value as the knob's QAPI type, widened to int64_t. */
static bool gaudisim_fault_visit(const GaudisimFaultKnob *knob, Visitor *v,
                                 const char *name, int64_t *value,
                                 Error **errp)
{
    bool ok;

    if (!strcmp(knob->type, "int32")) {
        int32_t x = *value;

        ok = visit_type_int32(v, name, &x, errp);
        *value = x;
    } else if (!strcmp(knob->type, "uint32")) {
        uint32_t x = *value;

        ok = visit_type_uint32(v, name, &x, errp);
        *value = x;
    } else if (!strcmp(knob->type, "uint64")) {
        uint64_t x = *value;

        ok = visit_type_uint64(v, name, &x, errp);
        *value = (int64_t)x;
    } else {
        ok = visit_type_int(v, name, value, errp);
    }
    return ok;
}

static void gaudisim_fault_get(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    GaudisimState *s = GAUDISIM(obj);
    const GaudisimFaultKnob *knob = opaque;
    int64_t value = s->core ? knob->get(s->core) : knob->unrealized;

    gaudisim_fault_visit(knob, v, name, &value, errp);
}

static void gaudisim_fault_set(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    GaudisimState *s = GAUDISIM(obj);
    const GaudisimFaultKnob *knob = opaque;
    int64_t value = 0;

    if (!gaudisim_fault_visit(knob, v, name, &value, errp)) {
        return;
    }
    if (!s->core) {
        error_setg(errp, "gaudisim: %s: the device is not realized", name);
        return;
    }
    if (!knob->set(s, name, value, errp)) {
        return;
    }
    trace_gaudisim_fault(name, value);
}

/* Called for every MSI-X message the device is about to send. */
static bool gaudisim_fault_swallow_msix(GaudisimState *s, unsigned int vector)
{
    if (!gsim_fault_should_drop_irq(s->core)) {
        return false;
    }
    trace_gaudisim_msix_dropped(vector, "fault-drop-irq");
    return true;
}

static void gaudisim_fault_class_init(ObjectClass *oc)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(gaudisim_fault_knobs); i++) {
        const GaudisimFaultKnob *knob = &gaudisim_fault_knobs[i];

        object_class_property_add(oc, knob->name, knob->type,
                                  gaudisim_fault_get,
                                  knob->set ? gaudisim_fault_set : NULL,
                                  NULL, (void *)knob);
        object_class_property_set_description(oc, knob->name,
                                              knob->description);
    }
}

/* ---- host operations offered to the core */

static int gaudisim_dma_read(void *opaque, uint64_t bus_addr, void *buf,
                             uint64_t len)
{
    GaudisimState *s = opaque;
    MemTxResult res;

    /* pci_dma_* go through the bus-master address space: no BME, no DMA. */
    res = pci_dma_read(PCI_DEVICE(s), bus_addr, buf, len);
    if (res != MEMTX_OK) {
        trace_gaudisim_dma_fault("read", bus_addr, len, res);
        return -1;
    }
    return 0;
}

static int gaudisim_dma_write(void *opaque, uint64_t bus_addr,
                              const void *buf, uint64_t len)
{
    GaudisimState *s = opaque;
    MemTxResult res;

    res = pci_dma_write(PCI_DEVICE(s), bus_addr, buf, len);
    if (res != MEMTX_OK) {
        trace_gaudisim_dma_fault("write", bus_addr, len, res);
        return -1;
    }
    return 0;
}

static void gaudisim_msix_notify(void *opaque, unsigned int vector)
{
    GaudisimState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);

    if (vector >= GAUDISIM_MSIX_NUM_VECTORS) {
        s->msix_dropped++;
        trace_gaudisim_msix_dropped(vector, "no such vector");
        qemu_log_mask(LOG_GUEST_ERROR,
                      "gaudisim: MSI-X vector %u out of range\n", vector);
        return;
    }
    if (!msix_enabled(pdev)) {
        /* No INTx fallback: the driver must enable MSI-X. */
        s->msix_dropped++;
        trace_gaudisim_msix_dropped(vector, "MSI-X disabled");
        return;
    }
    if (gaudisim_fault_swallow_msix(s, vector)) {
        return;
    }
    trace_gaudisim_msix(vector);
    /* A masked vector only sets its PBA bit; msix.c delivers it later. */
    msix_notify(pdev, vector);
}

static void gaudisim_guest_error(void *opaque, const char *msg)
{
    qemu_log_mask(LOG_GUEST_ERROR, "gaudisim: %s\n", msg);
}

static uint64_t gaudisim_clock_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* A worker thread finished engine work: the BH completes it (any thread). */
static void gaudisim_work_done(void *opaque)
{
    GaudisimState *s = opaque;

    qemu_bh_schedule(s->run_bh);
}

/* A peer's NIC write woke streams of this device (BQL held). */
static void gaudisim_kick(void *opaque)
{
    GaudisimState *s = opaque;

    trace_gaudisim_nic_kick();
    qemu_bh_schedule(s->run_bh);
}

/* The core's trace points as QEMU trace events (BQL held). */
static void gaudisim_core_trace(void *opaque, const struct gsim_trace_event *ev)
{
    switch (ev->what) {
    case GSIM_TRACE_LAUNCH:
        trace_gaudisim_engine_launch(ev->engine_name, ev->a, ev->b);
        break;
    case GSIM_TRACE_OFFLOAD:
        trace_gaudisim_engine_offload(ev->engine_name, ev->a);
        break;
    case GSIM_TRACE_DONE:
        trace_gaudisim_engine_done(ev->engine_name, ev->a, ev->b);
        break;
    case GSIM_TRACE_DROPPED:
        trace_gaudisim_engine_dropped(ev->engine_name, ev->a);
        break;
    case GSIM_TRACE_CANCEL:
        trace_gaudisim_engine_cancel(ev->engine_name, ev->a);
        break;
    case GSIM_TRACE_LOG:
        trace_gaudisim_core_log(ev->msg);
        break;
    }
}

static const struct gsim_host_ops gaudisim_host_ops = {
    .dma_read = gaudisim_dma_read,
    .dma_write = gaudisim_dma_write,
    .msix_notify = gaudisim_msix_notify,
    .guest_error = gaudisim_guest_error,
    .clock_ns = gaudisim_clock_ns,
    .work_done = gaudisim_work_done,
    .trace = gaudisim_core_trace,
    .kick = gaudisim_kick,
};

/* ---- engines, window, reset */

static void gaudisim_run_bh(void *opaque)
{
    GaudisimState *s = opaque;
    bool more = gsim_core_run(s->core);

    trace_gaudisim_run(more);
    /*
     * run() does a bounded amount of work; coming back through the main
     * loop lets vCPUs and other BHs in between.
     */
    if (more) {
        qemu_bh_schedule(s->run_bh);
    }
}

/* Point BAR4 at the HBM offset the core's window registers hold. */
static void gaudisim_update_window(GaudisimState *s)
{
    uint64_t offset = gsim_core_hbm_window(s->core);

    if (offset > s->hbm_size - s->hbm_bar_size) {
        /* The core validates the register; never map past HBM anyway. */
        qemu_log_mask(LOG_GUEST_ERROR,
                      "gaudisim: HBM window 0x%" PRIx64 " out of range\n",
                      offset);
        return;
    }
    if (offset == s->window_offset) {
        return;
    }
    s->window_offset = offset;
    memory_region_transaction_begin();
    memory_region_set_alias_offset(&s->hbm_window, offset);
    memory_region_transaction_commit();
    trace_gaudisim_window(offset);
}

static void gaudisim_hard_reset(GaudisimState *s, const char *why)
{
    trace_gaudisim_reset(why);
    qemu_bh_cancel(s->run_bh);
    gsim_core_reset(s->core);
    gaudisim_update_window(s);
}

static void gaudisim_device_reset(DeviceState *dev)
{
    gaudisim_hard_reset(GAUDISIM(dev), "device reset");
}

/* ---- BAR0: registers */

/*
 * Work a register write that kicks the engines runs before it returns
 * (the vCPU waits that long, with the BQL held): a few short CBs (a TPC
 * job's CB is about a hundred register writes), 256 KiB of a transfer,
 * and small engine jobs until they have taken 50 us. A short launch then
 * completes, CQ entry and MSI-X, before the write returns, instead of in
 * the bottom half a trip through the main loop later. One CB is always
 * fetched whole, up to 2 MiB.
 */
#define GAUDISIM_INLINE_RUN_BYTES   (256 * KiB)
#define GAUDISIM_INLINE_RUN_PACKETS 512
#define GAUDISIM_INLINE_RUN_SYNC_NS 50000   /* ns */

static uint64_t gaudisim_cfg_read(void *opaque, hwaddr addr, unsigned size)
{
    GaudisimState *s = opaque;
    uint32_t val = gsim_core_reg_read(s->core, addr);

    trace_gaudisim_mmio_read(addr, size, val);
    return val;
}

static void gaudisim_cfg_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    GaudisimState *s = opaque;
    unsigned int kick;

    trace_gaudisim_mmio_write(addr, size, val);
    /* The core only latches the value; the work runs below or in the BH. */
    kick = gsim_core_reg_write(s->core, addr, val);

    if (kick & GSIM_KICK_RESET) {
        gaudisim_hard_reset(s, "RESET register");
        return;
    }
    if (kick & GSIM_KICK_WINDOW) {
        gaudisim_update_window(s);
    }
    if (kick & GSIM_KICK_RUN) {
        trace_gaudisim_doorbell(addr, val);
        /*
         * A little work right here, as virtio's notify does: a short CB
         * completes (CQ entry and MSI-X) before the write returns, with
         * no wait for the main loop to pick up a BH. The BH takes what
         * the small budget left.
         */
        if (gsim_core_run_budget(s->core, GAUDISIM_INLINE_RUN_BYTES,
                                 GAUDISIM_INLINE_RUN_PACKETS,
                                 GAUDISIM_INLINE_RUN_SYNC_NS)) {
            qemu_bh_schedule(s->run_bh);
        }
    }
}

static const MemoryRegionOps gaudisim_cfg_ops = {
    .read = gaudisim_cfg_read,
    .write = gaudisim_cfg_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* 64-bit accesses reach the core as two 32-bit ones, low half first. */
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ---- realize / exit */

static bool gaudisim_check_props(GaudisimState *s, Error **errp)
{
    if (!is_power_of_2(s->hbm_bar_size) || s->hbm_bar_size < 4 * KiB) {
        error_setg(errp, "hbm-bar-size 0x%" PRIx64
                   " must be a power of two of at least 4 KiB",
                   s->hbm_bar_size);
        return false;
    }
    if (s->hbm_bar_size > s->hbm_size) {
        error_setg(errp, "hbm-bar-size 0x%" PRIx64
                   " exceeds hbm-size 0x%" PRIx64,
                   s->hbm_bar_size, s->hbm_size);
        return false;
    }
    if (s->module_id >= GAUDISIM_NIC_MAX_MODULES) {
        error_setg(errp, "module-id %" PRIu32 " is not 0..%d", s->module_id,
                   GAUDISIM_NIC_MAX_MODULES - 1);
        return false;
    }
    if (s->threads > GSIM_CORE_MAX_THREADS) {
        error_setg(errp, "threads %" PRIu32 " is more than %u",
                   s->threads, GSIM_CORE_MAX_THREADS);
        return false;
    }
    if (s->serial && gsim_core_serial_invalid(s->serial)) {
        error_setg(errp, "serial \"%s\": %s", s->serial,
                   gsim_core_serial_invalid(s->serial));
        return false;
    }
    return true;
}

/* The "threads" property, 0 meaning one worker per online host CPU. */
static unsigned int gaudisim_worker_count(GaudisimState *s)
{
    long cpus;

    if (s->threads) {
        return s->threads;
    }
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : MIN(cpus, GSIM_CORE_MAX_THREADS);
}

static void gaudisim_realize(PCIDevice *pdev, Error **errp)
{
    GaudisimState *s = GAUDISIM(pdev);
    struct gsim_core_config cfg = {
        .hbm_size = s->hbm_size,
        .hbm_bar_size = s->hbm_bar_size,
        .tpc_portable = s->tpc_portable,
        .tpc_isa = s->tpc_isa,
    };
    const char *err = NULL;
    int ret;

    if (!gaudisim_check_props(s, errp)) {
        return;
    }
    cfg.threads = gaudisim_worker_count(s);
    /* Workers may finish before realize ends: the BH must exist first. */
    s->run_bh = qemu_bh_new_guarded(gaudisim_run_bh, s,
                                    &DEVICE(pdev)->mem_reentrancy_guard);
    s->core = gsim_core_new(&cfg, &gaudisim_host_ops, s, &err);
    if (!s->core) {
        error_setg(errp, "gaudisim: %s", err ? err : "cannot create core");
        qemu_bh_delete(s->run_bh);
        s->run_bh = NULL;
        return;
    }
    trace_gaudisim_threads(gsim_core_threads(s->core), gsim_core_tpc_isa(s->core),
                           gsim_core_mme_kernels(s->core));
    gsim_core_set_module_id(s->core, s->module_id);
    /* Report the derived serial through qom-get, as the board would. */
    if (!s->serial) {
        char derived[GSIM_SERIAL_DEFAULT_LEN + 1];

        gsim_core_default_serial(s->uuid.data, derived, sizeof(derived));
        s->serial = g_strdup(derived);
    }
    /* The serial was checked with the other properties: this cannot fail. */
    gsim_core_set_identity(s->core, s->serial, s->uuid.data, NULL);
    if (s->fabric) {
        ret = gsim_fabric_attach(gaudisim_fabric_core(s->fabric), s->core,
                                 s->module_id);
        if (ret) {
            error_setg(errp, "gaudisim: module-id %" PRIu32 " is already on "
                       "fabric %s", s->module_id,
                       object_get_canonical_path_component(OBJECT(s->fabric)));
            goto fail_core;
        }
        trace_gaudisim_fabric_attach(s->module_id);
    }

    pci_config_set_interrupt_pin(pdev->config, 0);
    ret = pcie_endpoint_cap_init(pdev, GAUDISIM_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg_errno(errp, -ret, "gaudisim: cannot add PCIe capability");
        goto fail_core;
    }
    pcie_cap_flr_init(pdev);

    memory_region_init_io(&s->cfg_bar, OBJECT(s), &gaudisim_cfg_ops, s,
                          "gaudisim-cfg", GAUDISIM_CFG_BAR_SIZE);
    pci_register_bar(pdev, GAUDISIM_BAR_CFG,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->cfg_bar);

    /* Own BAR rather than msix_init_exclusive_bar(): every BAR is 64-bit. */
    memory_region_init(&s->msix_bar, OBJECT(s), "gaudisim-msix",
                       GAUDISIM_MSIX_BAR_SIZE);
    ret = msix_init(pdev, GAUDISIM_MSIX_NUM_VECTORS,
                    &s->msix_bar, GAUDISIM_BAR_MSIX, 0,
                    &s->msix_bar, GAUDISIM_BAR_MSIX, GAUDISIM_MSIX_PBA_OFFSET,
                    0, errp);
    if (ret < 0) {
        goto fail_pcie;
    }
    pci_register_bar(pdev, GAUDISIM_BAR_MSIX,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->msix_bar);
    /* Without a use count msix_notify() drops the vector silently. */
    for (unsigned int v = 0; v < GAUDISIM_MSIX_NUM_VECTORS; v++) {
        msix_vector_use(pdev, v);
    }

    /*
     * HBM is the core's sparse reservation; a RAM region over it lets vCPUs
     * and DMA reach it directly without touching untouched pages. BAR4 is
     * a fixed-size container whose alias slides over HBM.
     */
    memory_region_init_ram_ptr(&s->hbm, OBJECT(s), "gaudisim-hbm",
                               gsim_core_hbm_size(s->core),
                               gsim_core_hbm(s->core));
    memory_region_init(&s->hbm_bar, OBJECT(s), "gaudisim-hbm-bar",
                       s->hbm_bar_size);
    s->window_offset = gsim_core_hbm_window(s->core);
    memory_region_init_alias(&s->hbm_window, OBJECT(s), "gaudisim-hbm-window",
                             &s->hbm, s->window_offset, s->hbm_bar_size);
    memory_region_add_subregion(&s->hbm_bar, 0, &s->hbm_window);
    pci_register_bar(pdev, GAUDISIM_BAR_HBM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->hbm_bar);
    return;

fail_pcie:
    pcie_cap_exit(pdev);
fail_core:
    /* Also takes the core off its fabric. */
    gsim_core_free(s->core);
    s->core = NULL;
    qemu_bh_delete(s->run_bh);
    s->run_bh = NULL;
}

static void gaudisim_exit(PCIDevice *pdev)
{
    GaudisimState *s = GAUDISIM(pdev);

    /* No worker may schedule the BH once it is gone: stop them first. */
    gsim_core_stop_workers(s->core);
    /* Nor a peer: an unplugged device receives nothing more. */
    if (s->fabric) {
        gsim_fabric_detach(gaudisim_fabric_core(s->fabric), s->core);
    }
    qemu_bh_delete(s->run_bh);
    s->run_bh = NULL;
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->msix_bar, &s->msix_bar);
    pcie_cap_exit(pdev);
    /*
     * A subregion holds a reference to its owner, this device: drop it,
     * or the device is never finalized.
     */
    memory_region_del_subregion(&s->hbm_bar, &s->hbm_window);
    /*
     * The core (and the HBM behind BAR4) is freed in finalize, once the
     * last RCU reader of the old memory map has let go of the regions.
     */
}

static void gaudisim_finalize(Object *obj)
{
    GaudisimState *s = GAUDISIM(obj);

    if (s->core) {
        gsim_core_free(s->core);
        s->core = NULL;
    }
}

static void gaudisim_write_config(PCIDevice *pdev, uint32_t addr,
                                  uint32_t val, int len)
{
    pci_default_write_config(pdev, addr, val, len);
    pcie_cap_flr_write_config(pdev, addr, val, len);
}

/* The engines' state (queues in flight, HBM) is not migrated. */
static const VMStateDescription gaudisim_vmstate = {
    .name = TYPE_GAUDISIM,
    .unmigratable = 1,
};

static const Property gaudisim_properties[] = {
    DEFINE_PROP_SIZE("hbm-size", GaudisimState, hbm_size,
                     GAUDISIM_HBM_SIZE_DEFAULT),
    DEFINE_PROP_SIZE("hbm-bar-size", GaudisimState, hbm_bar_size,
                     GAUDISIM_HBM_BAR_SIZE_DEFAULT),
    DEFINE_PROP_UINT32("threads", GaudisimState, threads, 0),
    DEFINE_PROP_BOOL("tpc-portable", GaudisimState, tpc_portable, false),
    DEFINE_PROP_STRING("tpc-isa", GaudisimState, tpc_isa),
    DEFINE_PROP_UINT32("module-id", GaudisimState, module_id, 0),
    DEFINE_PROP_STRING("serial", GaudisimState, serial),
    DEFINE_PROP_UUID("uuid", GaudisimState, uuid),
    DEFINE_PROP_LINK("fabric", GaudisimState, fabric, TYPE_GAUDISIM_FABRIC,
                     GaudisimFabric *),
};

static void gaudisim_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(oc);

    pc->realize = gaudisim_realize;
    pc->exit = gaudisim_exit;
    pc->config_write = gaudisim_write_config;
    pc->vendor_id = GAUDISIM_PCI_VENDOR_ID;
    pc->device_id = GAUDISIM_PCI_DEVICE_ID;
    pc->revision = GAUDISIM_PCI_REVISION;
    pc->class_id = GAUDISIM_PCI_CLASS;

    dc->desc = "gaudisim training accelerator (Gaudi-class, simulated)";
    dc->vmsd = &gaudisim_vmstate;
    device_class_set_props(dc, gaudisim_properties);
    object_class_property_set_description(oc, "hbm-size",
        "HBM capacity in bytes (host memory is used only where touched)");
    object_class_property_set_description(oc, "hbm-bar-size",
        "size of the BAR4 window into HBM, a power of two");
    object_class_property_set_description(oc, "threads",
        "host worker threads for MME, TPC and HBM-DMA work, one pool "
        "shared by every device with the same value (0: one per host CPU)");
    object_class_property_set_description(oc, "module-id",
        "module ID in the box, 0..7 (the NIC topology and MODULE_ID)");
    object_class_property_set_description(oc, "fabric",
        "gaudisim-fabric object whose NIC links this device joins");
    object_class_property_set_description(oc, "serial",
        "board serial number, 1..31 printable characters without spaces "
        "(default: \"GS\" and 10 hex digits of the UUID)");
    object_class_property_set_description(oc, "uuid",
        "board UUID (default \"auto\": a new one for every device)");
    device_class_set_legacy_reset(dc, gaudisim_device_reset);
    gaudisim_fault_class_init(oc);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo gaudisim_types[] = {
    {
        .name = TYPE_GAUDISIM,
        .parent = TYPE_PCI_DEVICE,
        .instance_size = sizeof(GaudisimState),
        .instance_finalize = gaudisim_finalize,
        .class_init = gaudisim_class_init,
        .interfaces = (InterfaceInfo[]) {
            { INTERFACE_PCIE_DEVICE },
            { }
        },
    },
};

DEFINE_TYPES(gaudisim_types)
