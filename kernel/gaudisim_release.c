// SPDX-License-Identifier: GPL-2.0
/*
 * What closing a compute context does to the device before its memory
 * goes back to the pool and the next user may open the node:
 *
 *  - peers lose every NIC receive registration of the context;
 *  - every engine the context used stops working for it: its external
 *    jobs complete, and every internal queue it submitted to has fetched
 *    its whole PQ with all streams idle and the engine not busy; whatever
 *    is still running after the grace period is ended by a hard reset;
 *  - the sync manager is cleared (sync objects to 0, monitors disarmed,
 *    payloads emptied), so nothing armed by this user fires into the next
 *    one: a context that had the device to itself may have reached every
 *    SOB and monitor from its internal CBs, so all of them are cleared; a
 *    shared context only its own slice;
 *  - a context that had the device to itself leaves no engine state
 *    behind either: every engine is soft-reset (QMAN message bases,
 *    fences, PQ registers, completion-message registers, MME and TPC
 *    configuration, NIC transfer descriptors) and programmed again as at
 *    probe. A shared context was refused the internal queues, and its
 *    external CBs are parsed: it can reach no engine register;
 *  - every HBM byte the context ever allocated is zeroed by the device: a
 *    LIN_DMA memset job the driver builds and runs on an external queue,
 *    not a loop over the HBM BAR.
 */

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>

#include <hw/gaudisim_hw_packets.h>
#include <hw/gaudisim_hw_sync.h>

#include "gaudisim_cs.h"
#include "gaudisim_cs_sigwait.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
#include "gaudisim_mem.h"
#include "gaudisim_nic.h"
#include "gaudisim_queue.h"
#include "gaudisim_release.h"
#include "gaudisim_reset.h"

/* How long a closing context waits for its work before resetting. */
#define GAUDISIM_RELEASE_WAIT	(5 * HZ)
/* Largest memset one scrub packet describes (tsize is 32 bits). */
#define GAUDISIM_SCRUB_PIECE	SZ_1G
/* Seconds the scrub job may take: memsets run at memory speed. */
#define GAUDISIM_SCRUB_TIMEOUT_S	60
/* The scrub runs on the host-to-device DMA queue, as a driver job. */
#define GAUDISIM_SCRUB_QUEUE	GAUDISIM_QUEUE_ID_DMA_0_0

/* Has internal queue @q drained its PQ, with its engine idle? */
static bool gaudisim_iqueue_idle(struct gaudisim_device *gdev, u32 q)
{
	struct gaudisim_iqueue *iq = &gdev->iqueues[q];
	u32 sts = gaudisim_rreg(gdev, GAUDISIM_ENGINE_BLOCK(iq->engine) + GAUDISIM_ENG_STATUS);

	return !gaudisim_iqueue_busy(iq) && !gaudisim_hw_busy_streams(gdev, iq->engine) &&
	       !(sts & GAUDISIM_ENG_STATUS_BUSY);
}

static bool gaudisim_ctx_iqueues_idle(struct gaudisim_ctx *ctx)
{
	struct gaudisim_device *gdev = ctx->gdev;
	u32 q;

	for_each_set_bit(q, ctx->iq_used, GAUDISIM_QUEUE_ID_SIZE)
		if (!gaudisim_iqueue_idle(gdev, q))
			return false;
	return true;
}

/*
 * Poll the internal queues the context used until @deadline; true when
 * all are idle. They have no completion of their own. Inside
 * drm_dev_enter(): it reads registers.
 */
static bool gaudisim_ctx_wait_iqueues(struct gaudisim_ctx *ctx, unsigned long deadline)
{
	while (!gaudisim_ctx_iqueues_idle(ctx)) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(200, 1000);
	}
	return true;
}

/* Disarm monitors [first, end) and empty their payloads. */
static void gaudisim_sync_clear_mons(struct gaudisim_device *gdev, u32 first, u32 end)
{
	u32 n;

	for (n = first; n < end; n++) {
		/* Disarm first: nothing may fire while the payload changes. */
		gaudisim_wreg(gdev, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_STATUS(n), 0);
		gaudisim_wreg(gdev, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_PAY_ADDRL(n), 0);
		gaudisim_wreg(gdev, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_PAY_ADDRH(n), 0);
		gaudisim_wreg(gdev, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_PAY_DATA(n), 0);
	}
}

/* Set SOBs [first, end) to 0, after the monitors that watch them are gone. */
static void gaudisim_sync_clear_sobs(struct gaudisim_device *gdev, u32 first, u32 end)
{
	u32 n;

	for (n = first; n < end; n++)
		gaudisim_wreg(gdev, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(n),
			      GAUDISIM_SYNC_SOB_SET(0));
}

/* Was any external queue still running a job (a driver job of no context)? */
static bool gaudisim_ext_queues_busy(struct gaudisim_device *gdev)
{
	u32 i;

	for (i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++)
		if (gdev->queues[i].present && gaudisim_queue_busy(&gdev->queues[i]))
			return true;
	return false;
}

/*
 * After the last user of a device it did not share: every monitor and
 * SOB, the driver's sync streams included (internal CBs reach them all;
 * the SIGNAL/WAIT counts start again), then every engine with a queue is
 * soft-reset and its queues and NIC receive side programmed as at probe.
 * Under submit_lock with every queue idle, so no job sees it happen.
 */
static void gaudisim_device_clean(struct gaudisim_device *gdev)
{
	DECLARE_BITMAP(engines, GAUDISIM_ENGINE_COUNT) = {};
	u32 q, e;

	lockdep_assert_held(&gdev->submit_lock);

	gaudisim_sync_clear_mons(gdev, 0, GAUDISIM_SYNC_NUM_MONITORS);
	gaudisim_sync_clear_sobs(gdev, 0, GAUDISIM_SYNC_NUM_SOBS);
	gaudisim_sigwait_hw_reset(gdev);

	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		if (gdev->queues[q].present)
			__set_bit(gdev->queues[q].engine, engines);
	for (q = GAUDISIM_NUM_EXT_QUEUES; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		if (gdev->iqueues[q].present)
			__set_bit(gdev->iqueues[q].engine, engines);
	for_each_set_bit(e, engines, GAUDISIM_ENGINE_COUNT)
		gaudisim_wreg(gdev, GAUDISIM_ENGINE_BLOCK(e) + GAUDISIM_ENG_SOFT_RESET,
			      GAUDISIM_ENG_SOFT_RESET_GO);
	gaudisim_queues_hw_init(gdev);
	gaudisim_nic_hw_init(gdev);
}

/*
 * Clear what the context's CBs may have left on the device: everything
 * (gaudisim_device_clean()) unless it shared the device, else its slice
 * of the user SOBs and monitors. False when a driver job still runs and
 * the device must be reset instead.
 */
static bool gaudisim_ctx_clear_device(struct gaudisim_ctx *ctx)
{
	struct gaudisim_device *gdev = ctx->gdev;
	bool done = true;

	if (ctx->shared) {
		/* The reserved monitors are out of every shared slice. */
		gaudisim_sync_clear_mons(gdev, ctx->mon_first, ctx->mon_end);
		gaudisim_sync_clear_sobs(gdev, ctx->sob_first, ctx->sob_end);
		return true;
	}
	mutex_lock(&gdev->submit_lock);
	if (gaudisim_ext_queues_busy(gdev))
		done = false;
	else
		gaudisim_device_clean(gdev);
	mutex_unlock(&gdev->submit_lock);
	return done;
}

/**
 * gaudisim_ctx_release_engines() - make the device stop working for @ctx
 * @ctx: the closing context
 *
 * Waits for its work, then clears what it left on the device; resets the
 * device instead if some work is still running.
 */
void gaudisim_ctx_release_engines(struct gaudisim_ctx *ctx)
{
	struct gaudisim_device *gdev = ctx->gdev;
	unsigned long deadline = jiffies + GAUDISIM_RELEASE_WAIT;
	bool idle;
	int idx;

	/* First of all, peers stop writing into it. */
	gaudisim_nic_ctx_release(ctx);
	idle = wait_event_timeout(ctx->idle_wq, !atomic_read(&ctx->jobs_inflight),
				  GAUDISIM_RELEASE_WAIT);
	/* After removal the device was already stopped and every job aborted. */
	if (!drm_dev_enter(&gdev->drm, &idx))
		return;
	if (!idle || !gaudisim_ctx_wait_iqueues(ctx, deadline) || !gaudisim_ctx_clear_device(ctx))
		gaudisim_device_hard_reset(gdev, "compute context closed with work in flight");
	drm_dev_exit(idx);
}

/* Build the memset packets that zero [start, end) of HBM; returns bytes. */
static u32 gaudisim_scrub_packets(struct gaudisim_packet_lin_dma *pkts, u64 start, u64 end)
{
	u32 n = 0;

	while (start < end) {
		u64 len = min_t(u64, end - start, GAUDISIM_SCRUB_PIECE);

		pkts[n].tsize = cpu_to_le32((u32)len);
		pkts[n].ctl = cpu_to_le32(gaudisim_lin_dma_ctl(GAUDISIM_LIN_DMA_CTL_MEMSET, 0));
		pkts[n].src = cpu_to_le64(0);	/* fill value */
		pkts[n].dst = cpu_to_le64(start);
		start += len;
		n++;
	}
	return n * sizeof(*pkts);
}

static int gaudisim_scrub_once(struct gaudisim_ctx *ctx, u64 start, u64 end)
{
	u32 npkts = DIV_ROUND_UP_ULL(end - start, GAUDISIM_SCRUB_PIECE);
	struct gaudisim_packet_lin_dma *pkts;
	u32 size;
	int rc;

	pkts = kvcalloc(npkts, sizeof(*pkts), GFP_KERNEL);
	if (!pkts)
		return -ENOMEM;
	size = gaudisim_scrub_packets(pkts, start, end);
	rc = gaudisim_cs_run_driver_cb(ctx, GAUDISIM_SCRUB_QUEUE, pkts, size,
				       GAUDISIM_SCRUB_TIMEOUT_S);
	kvfree(pkts);
	return rc;
}

/**
 * gaudisim_ctx_scrub_range() - zero [start, end) of HBM on the device
 * @ctx: the context the memory belongs to
 * @start: HBM address
 * @end: one past the last byte
 *
 * A failed scrub is retried once after a hard reset; if that fails too
 * the device is not fit for another user and is marked unusable.
 *
 * Return: 0, or the error of the scrub that failed.
 */
int gaudisim_ctx_scrub_range(struct gaudisim_ctx *ctx, u64 start, u64 end)
{
	struct gaudisim_device *gdev = ctx->gdev;
	int rc, idx;

	if (end <= start)
		return 0;
	rc = gaudisim_scrub_once(ctx, start, end);
	if (!rc || rc == -ENODEV)
		return rc;
	gaudisim_err(gdev, "HBM scrub of 0x%llx..0x%llx failed (%d); resetting\n",
		     start, end, rc);
	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	if (!gaudisim_device_hard_reset(gdev, "HBM scrub failed"))
		rc = gaudisim_scrub_once(ctx, start, end);
	if (rc) {
		gaudisim_err(gdev, "HBM could not be scrubbed (%d): device disabled\n", rc);
		gaudisim_set_status(gdev, GAUDISIM_DEVICE_STATUS_MALFUNCTION);
	}
	drm_dev_exit(idx);
	return rc;
}

/**
 * gaudisim_ctx_scrub_hbm() - zero the HBM of a closing context
 * @ctx: the closing context, its engines released
 *
 * Runs before the allocations go back to the pool. A context that had the
 * device to itself gets the span from its lowest to its highest
 * allocation zeroed, freed ones included (no one else could have used
 * them). A shared context's freed allocations were zeroed at FREE, and
 * the span may hold other contexts' memory: only its live allocations
 * are zeroed.
 */
void gaudisim_ctx_scrub_hbm(struct gaudisim_ctx *ctx)
{
	if (ctx->shared)
		gaudisim_mem_scrub_allocs(ctx);
	else
		gaudisim_ctx_scrub_range(ctx, ctx->hbm_dirty_start, ctx->hbm_dirty_end);
}
