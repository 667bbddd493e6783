/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gaudisim: Linux accel driver for the simulated Gaudi-class device.
 *
 * Device-wide state. Every other object hangs off struct gaudisim_device:
 * the external queues (gaudisim_queue.h), the compute context of the one
 * process that holds /dev/accel/accelN (gaudisim_ctx.h) and the control
 * node (gaudisim_ctrl.c).
 */
#ifndef __GAUDISIM_DRV_H__
#define __GAUDISIM_DRV_H__

#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/drm_mm.h>
#include <drm/drm_print.h>

#include <hw/gaudisim_hw_queues.h>
#include <hw/gaudisim_hw_regs.h>
#include <uapi/drm/gaudisim_accel.h>

/* Only for the structures struct gaudisim_device embeds. */
#include "gaudisim_coredump.h"
#include "gaudisim_cs.h"
#include "gaudisim_cs_sigwait.h"
#include "gaudisim_eq.h"
#include "gaudisim_mmu.h"
#include "gaudisim_nic.h"
#include "gaudisim_queue.h"
#include "gaudisim_rights.h"
#include "gaudisim_uirq.h"

#define GAUDISIM_DRIVER_VERSION		"0.1.0"
#define GAUDISIM_DRIVER_DESC		"gaudisim simulated Gaudi accelerator"
#define GAUDISIM_CARD_NAME		"HL-205-sim"

/* CS timeout used when a CS does not ask for its own (seconds, 0 = none). */
extern unsigned int gaudisim_timeout_locked;
/* Hard-reset the device when a CS times out, so its queue recovers. */
extern bool gaudisim_reset_on_lockup;

struct gaudisim_ctx;
struct gaudisim_ctrl;

/* How command submissions ended or why they were refused (INFO CS_*). */
struct gaudisim_cs_counters {
	atomic64_t submitted;
	atomic64_t completed;
	atomic64_t errors;
	atomic64_t timed_out;
	atomic64_t drop[GAUDISIM_DROP_COUNT];
};

/*
 * The last error of each kind the driver saw, for the INFO *_EVENT ops;
 * under gaudisim_device.err_lock. A timestamp of 0 means none since load.
 */
struct gaudisim_captured_errors {
	s64 open_dev_time;	/* LAST_ERR_OPEN_DEV_TIME, ns */
	struct gaudisim_info_cs_timeout_event cs_timeout;
	struct gaudisim_info_razwi_event razwi;
	struct gaudisim_info_undefined_opcode_event undef_opcode;
	struct gaudisim_page_fault_info page_fault;
};

/**
 * struct gaudisim_device - one gaudisim PCI function
 * @drm: DRM device (accel node); embeds the refcount of this structure
 * @pdev: PCI device
 * @regs: CFG BAR mapping
 * @hw_version: VERSION register
 * @caps: CAPS register
 * @engines: ENGINES register (engine counts)
 * @hbm_size: all HBM bytes
 * @hbm_reserved: HBM bytes reserved for the driver at address 0
 * @hbm_bar_size: size of the HBM BAR window
 * @sram_size: SRAM bytes
 * @queue_mask: queue IDs the device implements (QUEUE_MASK registers)
 * @num_ext_queues: external queues that are present
 * @module_id: MODULE_ID register, the device's place in its box (0..7)
 * @serial: board serial (SERIAL registers), NUL-terminated
 * @uuid: board UUID (UUID registers), RFC 4122 byte order
 * @fw_version: FW_VERSION register
 * @cpld_version: CPLD_VERSION register
 * @status: enum gaudisim_device_status; written under @submit_lock
 * @queues: the external queues (IDs 0..7), present or not
 * @iqueues: the internal queues, indexed by queue ID (9..112)
 * @num_int_queues: internal queues that are present
 * @submit_lock: see below
 * @open_lock: see below
 * @ctxs: open compute contexts, by slot (gaudisim_ctx.c); NULL when free
 * @num_ctxs: entries of @ctxs in use
 * @open_counter: successful compute opens since load
 * @open_time: when the current compute user opened the device
 * @last_open_ns: when the last successful compute open happened (ktime ns)
 * @last_open_period_ms: how long the previous compute user held it
 * @hbm_lock: see below
 * @hbm_mm: allocator of user HBM
 * @hbm_used: user HBM bytes allocated by all contexts
 * @cs_cnt: CS counters
 * @sigwait: sync objects of SIGNAL/WAIT CSs (gaudisim_cs_sigwait.c)
 * @hard_reset_cnt: hard resets since load
 * @err_lock: see below
 * @errors: the last captured errors
 * @notifier_lock: see below
 * @notifiers: eventfds registered with INFO REGISTER_EVENTFD (gaudisim_notifier)
 * @throttle_since_us: per throttle reason, when INFO first saw it active
 * @wq: ordered workqueue for CS timeouts and device resets
 * @cs_linger_lock: see below
 * @cs_linger: failed CSs whose timeout stays armed while jobs of them may
 *             still be on the device (gaudisim_cs.c)
 * @reset_work: hard reset requested by a CS timeout or a device event
 * @reset_reason: why @reset_work was queued, for the log
 * @coredump: the CS that last timed out, for the crash dump
 * @eq: event queue and heartbeat
 * @uirq: user interrupts and their waiters (gaudisim_uirq.c)
 * @mmu: device MMU state
 * @rights: the driver's copy of the device's payload rights table
 * @ctrl: control node
 */
struct gaudisim_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *regs;

	u32 hw_version;
	u32 caps;
	u32 engines;
	u64 hbm_size;
	u64 hbm_reserved;
	u64 hbm_bar_size;
	u64 sram_size;
	u64 queue_mask[2];
	u32 num_ext_queues;
	u32 module_id;
	char serial[GAUDISIM_SERIAL_MAX_LEN + 1];
	u8 uuid[4 * GAUDISIM_UUID_WORDS];
	u32 fw_version;
	u32 cpld_version;

	int status;
	struct gaudisim_queue queues[GAUDISIM_NUM_EXT_QUEUES];
	struct gaudisim_iqueue iqueues[GAUDISIM_QUEUE_ID_SIZE];
	u32 num_int_queues;

	/*
	 * Serialises the producer side of every PQ (pi, doorbells), the
	 * assignment of CS sequence numbers, device resets and @status
	 * changes: a reset never sees a half-written submission.
	 */
	struct mutex submit_lock;

	/* Protects @ctxs, @num_ctxs, @debug_ctx and the open statistics below. */
	struct mutex open_lock;
	struct gaudisim_ctx *ctxs[GAUDISIM_MAX_CONTEXTS];
	u32 num_ctxs;
	/* The context that holds debug mode (DEBUG SET_MODE), or NULL. */
	struct gaudisim_ctx *debug_ctx;
	u64 open_counter;
	ktime_t open_time;
	s64 last_open_ns;
	u64 last_open_period_ms;

	/* Protects @hbm_mm and @hbm_used. Nests inside ctx->mem_lock. */
	struct mutex hbm_lock;
	struct drm_mm hbm_mm;
	u64 hbm_used;

	struct gaudisim_cs_counters cs_cnt;
	struct gaudisim_sigwait sigwait;
	atomic_t hard_reset_cnt;

	/*
	 * Protects @errors, @ctx_errors and @throttle_since_us; taken in
	 * process context. @errors is every error, for the control node;
	 * @ctx_errors[asid] only those of the context holding that ASID
	 * (cleared when a context takes it), for its compute file.
	 */
	spinlock_t err_lock;
	struct gaudisim_captured_errors errors;
	struct gaudisim_captured_errors ctx_errors[GAUDISIM_MMU_NUM_ASIDS];

	/* Protects @notifiers and the notifier fields of their contexts. */
	struct mutex notifier_lock;
	struct list_head notifiers;

	u64 throttle_since_us[GAUDISIM_CLK_THROTTLE_TYPE_MAX];

	struct workqueue_struct *wq;
	/* Protects @cs_linger; taken inside a context's cs_lock. */
	spinlock_t cs_linger_lock;
	struct list_head cs_linger;
	struct work_struct reset_work;
	const char *reset_reason;
	struct gaudisim_coredump coredump;

	struct gaudisim_eq eq;
	struct gaudisim_uirq uirq;
	struct gaudisim_mmu mmu;
	struct gaudisim_rights rights;

	struct gaudisim_ctrl *ctrl;

	/*
	 * The NIC receive registrations as programmed (GAUDISIM_BLOCK_NIC_RX),
	 * kept to program them again after a hard reset; under @nic_lock,
	 * which nests inside ctx->mem_lock and @submit_lock.
	 */
	struct mutex nic_lock;
	struct gaudisim_nic_mr nic_mr[GAUDISIM_NIC_RX_NUM_MR];
};

static inline struct gaudisim_device *to_gaudisim(struct drm_device *drm)
{
	return container_of(drm, struct gaudisim_device, drm);
}

static inline int gaudisim_status(struct gaudisim_device *gdev)
{
	return READ_ONCE(gdev->status);
}

static inline void gaudisim_set_status(struct gaudisim_device *gdev, int status)
{
	lockdep_assert_held(&gdev->submit_lock);
	WRITE_ONCE(gdev->status, status);
}

static inline u64 gaudisim_hbm_user_size(struct gaudisim_device *gdev)
{
	return gdev->hbm_size - GAUDISIM_HBM_USER_BASE;
}

static inline bool gaudisim_queue_present(struct gaudisim_device *gdev, u32 qid)
{
	return qid < GAUDISIM_QUEUE_ID_SIZE &&
	       (gdev->queue_mask[qid / 64] & BIT_ULL(qid % 64));
}

/*
 * Messages a user can trigger go to debug level (drm.debug=0x2); the DRM
 * prefix already names the function.
 */
#define gaudisim_dbg(gdev, fmt, ...) \
	drm_dbg_driver(&(gdev)->drm, fmt, ##__VA_ARGS__)
#define gaudisim_warn(gdev, fmt, ...) \
	drm_warn(&(gdev)->drm, fmt, ##__VA_ARGS__)
#define gaudisim_err(gdev, fmt, ...) \
	drm_err(&(gdev)->drm, fmt, ##__VA_ARGS__)
#define gaudisim_err_ratelimited(gdev, fmt, ...) \
	drm_err_ratelimited(&(gdev)->drm, fmt, ##__VA_ARGS__)

#endif /* __GAUDISIM_DRV_H__ */
