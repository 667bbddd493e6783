/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compute context: everything one process that opened the compute
 * node owns. It lives from open to postclose, and longer while CSs or
 * CBs that reference it are still around.
 */
#ifndef __GAUDISIM_CTX_H__
#define __GAUDISIM_CTX_H__

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <drm/drm_mm.h>

#include <hw/gaudisim_hw_mmu.h>
#include <hw/gaudisim_hw_queues.h>
#include <hw/gaudisim_hw_sync.h>

#include "gaudisim_cs.h"
#include "gaudisim_fdinfo.h"
#include "gaudisim_mmu.h"

/*
 * Shared mode (max_contexts > 1): the user ranges of the sync manager are
 * split into one slice per context slot.
 */
#define GAUDISIM_CTX_SOBS_PER_SLOT \
	((GAUDISIM_SYNC_NUM_SOBS - GAUDISIM_SYNC_FIRST_USER_SOB) / GAUDISIM_MAX_CONTEXTS / \
	 GAUDISIM_SYNC_SOBS_PER_GROUP * GAUDISIM_SYNC_SOBS_PER_GROUP)
#define GAUDISIM_CTX_MON_SHARED_FIRST	(GAUDISIM_SYNC_RESERVED_MON_LAST + 1)
#define GAUDISIM_CTX_MONS_PER_SLOT \
	((GAUDISIM_SYNC_NUM_MONITORS - GAUDISIM_CTX_MON_SHARED_FIRST) / GAUDISIM_MAX_CONTEXTS)

extern unsigned int gaudisim_max_contexts;

struct drm_device;
struct drm_file;
struct eventfd_ctx;
struct gaudisim_device;

/**
 * struct gaudisim_ctx - per-file compute context
 * @ref: held by the file, every CS and every CB
 * @gdev: the device
 * @pid: thread group of the opener
 * @asid: device MMU address space of the context (1..7)
 * @slot: index in gdev->ctxs
 * @shared: opened while the device admits several contexts (max_contexts
 *          > 1): external queues only, HBM checked against its own
 *          allocations, its own slice of the sync manager, HBM quota
 * @sob_first: first user SOB it may use; @sob_end: one past its last
 * @mon_first: first user monitor it may use; @mon_end: one past its last
 * @hbm_quota: HBM bytes it may allocate
 * @uirq_first: its first user interrupt ID (an MSI-X vector)
 * @uirq_count: how many user interrupts it has, from @uirq_first
 * @cbs: CB id -> struct gaudisim_cb (handle references); own lock
 * @cb_bytes: bytes of user CB memory the context holds
 * @cb_count: user CBs the context holds (handles, jobs or mappings)
 * @kcb_bytes: bytes of kernel CBs of the context's jobs not yet released
 * @mem_lock: see below
 * @va_mm: device VAs of userptr mappings
 * @hbm_allocs: HBM handle -> struct gaudisim_hbm_alloc
 * @dram_used: HBM bytes allocated by this context
 * @hbm_dirty_start: lowest HBM address the context ever allocated
 * @hbm_dirty_end: end of the highest; 0 when it allocated nothing. The
 *                 range is scrubbed by the device before the next open.
 * @cs_lock: see below
 * @next_seq: sequence number of the next CS
 * @pending: CSs in flight, indexed by seq % GAUDISIM_MAX_PENDING_CS
 * @outcomes: retired CSs, indexed by seq % GAUDISIM_CS_OUTCOMES
 * @ts_outcomes: retired TIMESTAMP CSs, the last GAUDISIM_CS_TS_OUTCOMES
 * @ts_next: pushes into @ts_outcomes so far (the next slot, modulo its size)
 * @restore_lock: serialises the restore phase and @restore_done
 * @restore_done: the first CS went through (restore chunks are skipped)
 * @iq_used: internal queues the context submitted to (under submit_lock)
 * @jobs_inflight: jobs submitted and not completed
 * @cs_building: CSs between their first ownership check and their push
 *	(their jobs then count in @jobs_inflight): a shared context's FREE
 *	waits for them too, so no CS approved while the memory was the
 *	context's runs after it went to another
 * @idle_wq: woken when @jobs_inflight or @cs_building drops to 0
 * @drop: CSs of this context refused, per enum gaudisim_cs_drop
 * @in_release: postclose is tearing the context down
 * @notifier_node: in gdev->notifiers while the context is open
 * @notifier_efd: eventfd from INFO REGISTER_EVENTFD, or NULL
 * @notifier_events: GAUDISIM_NOTIFIER_EVENT_* not yet read by GET_EVENTS
 * @usage: engine time for fdinfo (gaudisim_fdinfo.c)
 *
 * The notifier fields are under gdev->notifier_lock.
 */
struct gaudisim_ctx {
	struct kref ref;
	struct gaudisim_device *gdev;
	pid_t pid;
	u32 asid;
	u32 slot;
	bool shared;
	u32 sob_first, sob_end;
	u32 mon_first, mon_end;
	u64 hbm_quota;
	u32 uirq_first, uirq_count;

	struct xarray cbs;
	atomic64_t cb_bytes;
	atomic_t cb_count;
	atomic64_t kcb_bytes;

	/*
	 * Protects @va_mm, @hbm_allocs, @dram_used and the dirty range. The
	 * parser holds it while it translates addresses, so mappings cannot
	 * change under a CB being copied.
	 */
	struct mutex mem_lock;
	struct drm_mm va_mm;
	struct xarray hbm_allocs;
	u64 dram_used;
	u64 hbm_dirty_start;
	u64 hbm_dirty_end;

	/* Protects @next_seq, @pending, the outcomes and the CS outcome fields. */
	spinlock_t cs_lock;
	u64 next_seq;
	struct gaudisim_cs **pending;
	struct gaudisim_cs_outcome *outcomes;
	struct gaudisim_cs_outcome *ts_outcomes;
	u32 ts_next;
	/* Woken whenever a CS of the context retires (multi-CS waits). */
	wait_queue_head_t cs_done_wq;

	/* Held while the restore phase runs and @restore_done is set. */
	struct mutex restore_lock;
	bool restore_done;

	DECLARE_BITMAP(iq_used, GAUDISIM_QUEUE_ID_SIZE);

	atomic_t jobs_inflight;
	atomic_t cs_building;
	wait_queue_head_t idle_wq;

	atomic64_t drop[GAUDISIM_DROP_COUNT];
	bool in_release;

	struct list_head notifier_node;
	struct eventfd_ctx *notifier_efd;
	u64 notifier_events;

	struct gaudisim_ctx_usage usage;
};

void gaudisim_ctx_get(struct gaudisim_ctx *ctx);
void gaudisim_ctx_put(struct gaudisim_ctx *ctx);

int gaudisim_open(struct drm_device *drm, struct drm_file *file);
void gaudisim_postclose(struct drm_device *drm, struct drm_file *file);

#endif /* __GAUDISIM_CTX_H__ */
