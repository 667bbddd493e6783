// SPDX-License-Identifier: GPL-2.0
/*
 * Payload rights: the device checks a monitor payload armed by a CB as a
 * write by the context that armed it, against what the driver says that
 * context owns (hw/gaudisim_hw_sync.h). The driver programs an entry when
 * a context opens (its ASID's), clears it when the context closes, and
 * programs every live entry again after a hard reset, which clears the
 * device's table. Entry 0 is the driver's own: the SOBs, monitor and
 * fences of the SIGNAL/WAIT CSs it arms from its kernel CBs.
 *
 * A context that has the device to itself owns the user SOBs and
 * monitors, every queue, user HBM and SRAM. A shared context owns its
 * slice of the sync manager and the external queues; its payloads never
 * write memory (its HBM is spread through the pool; the parser refuses
 * such payloads too).
 */

#include <linux/bitops.h>
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
#include "gaudisim_queue.h"
#include "gaudisim_rights.h"

static void gaudisim_rights_wreg(struct gaudisim_device *gdev, u32 asid, u32 reg, u32 value)
{
	gaudisim_wreg(gdev, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_RIGHTS(asid, reg), value);
}

/* Under the lock, inside drm_dev_enter(): the fields, then CTRL. */
static void gaudisim_rights_program(struct gaudisim_device *gdev, u32 asid)
{
	const struct gaudisim_rights_entry *e = &gdev->rights.entry[asid];
	u32 i;

	lockdep_assert_held(&gdev->rights.lock);
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_SOB_FIRST, e->sob_first);
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_SOB_END, e->sob_end);
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_MON_FIRST, e->mon_first);
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_MON_END, e->mon_end);
	for (i = 0; i < GAUDISIM_RIGHTS_QUEUE_WORDS; i++)
		gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_QUEUES(i), e->queues[i]);
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_HBM_BASE_LO, lower_32_bits(e->hbm_base));
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_HBM_BASE_HI, upper_32_bits(e->hbm_base));
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_HBM_SIZE_LO, lower_32_bits(e->hbm_size));
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_HBM_SIZE_HI, upper_32_bits(e->hbm_size));
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_USER_INTR, e->user_intr);
	/* Last: a new generation with every field in place. */
	gaudisim_rights_wreg(gdev, asid, GAUDISIM_RIGHTS_CTRL, e->ctrl);
}

static void gaudisim_rights_set(struct gaudisim_device *gdev, u32 asid,
				const struct gaudisim_rights_entry *e)
{
	int idx;

	mutex_lock(&gdev->rights.lock);
	gdev->rights.entry[asid] = *e;
	if (drm_dev_enter(&gdev->drm, &idx)) {
		gaudisim_rights_program(gdev, asid);
		drm_dev_exit(idx);
	}
	mutex_unlock(&gdev->rights.lock);
}

static void gaudisim_rights_add_queue(struct gaudisim_rights_entry *e, u32 q)
{
	e->queues[q / 32] |= BIT(q % 32);
}

/* The fences of every external queue the device has. */
static void gaudisim_rights_ext_queues(struct gaudisim_device *gdev,
				       struct gaudisim_rights_entry *e)
{
	u32 q;

	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		if (gdev->queues[q].present)
			gaudisim_rights_add_queue(e, q);
}

/**
 * gaudisim_rights_init() - the driver's own entry, at probe
 * @gdev: the device
 *
 * Return: 0 or -ENOMEM.
 */
int gaudisim_rights_init(struct gaudisim_device *gdev)
{
	struct gaudisim_rights_entry *e = &gdev->rights.entry[0];
	int rc;

	rc = drmm_mutex_init(&gdev->drm, &gdev->rights.lock);
	if (rc)
		return rc;
	*e = (struct gaudisim_rights_entry){
		.ctrl = GAUDISIM_RIGHTS_CTRL_VALID,
		.sob_first = GAUDISIM_SYNC_DRIVER_SOB_FIRST,
		.sob_end = GAUDISIM_SYNC_FIRST_USER_SOB,
		.mon_first = GAUDISIM_SYNC_DRIVER_MON_FIRST,
		.mon_end = GAUDISIM_SYNC_FIRST_USER_MON,
	};
	gaudisim_rights_ext_queues(gdev, e);
	return 0;
}

/* At probe and after every hard reset, which clears the device's table. */
void gaudisim_rights_hw_init(struct gaudisim_device *gdev)
{
	u32 asid;

	mutex_lock(&gdev->rights.lock);
	for (asid = 0; asid < GAUDISIM_SYNC_RIGHTS_ENTRIES; asid++)
		if (gdev->rights.entry[asid].ctrl)
			gaudisim_rights_program(gdev, asid);
	mutex_unlock(&gdev->rights.lock);
}

/* Its own user interrupts (all of them on an unshared device), one bit each. */
static u32 gaudisim_rights_user_intr(const struct gaudisim_ctx *ctx)
{
	u32 first = ctx->uirq_first - GAUDISIM_MSIX_VEC_USER_FIRST;

	if (!ctx->uirq_count)
		return 0;
	return GENMASK(first + ctx->uirq_count - 1, first);
}

/**
 * gaudisim_rights_ctx_init() - tell the device what a new context owns
 * @ctx: the context being opened; its ASID and limits are set
 */
void gaudisim_rights_ctx_init(struct gaudisim_ctx *ctx)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_rights_entry e = {
		.ctrl = GAUDISIM_RIGHTS_CTRL_VALID,
		.sob_first = ctx->sob_first,
		.sob_end = ctx->sob_end,
		.mon_first = ctx->mon_first,
		.mon_end = ctx->mon_end,
		.user_intr = gaudisim_rights_user_intr(ctx),
	};
	u32 q;

	gaudisim_rights_ext_queues(gdev, &e);
	if (!ctx->shared) {
		for (q = GAUDISIM_NUM_EXT_QUEUES; q < GAUDISIM_QUEUE_ID_SIZE; q++)
			if (gdev->iqueues[q].present)
				gaudisim_rights_add_queue(&e, q);
		e.hbm_base = GAUDISIM_HBM_USER_BASE;
		e.hbm_size = gaudisim_hbm_user_size(gdev);
		e.ctrl |= GAUDISIM_RIGHTS_CTRL_SRAM;
	}
	gaudisim_rights_set(gdev, ctx->asid, &e);
}

/**
 * gaudisim_rights_ctx_fini() - the closing context owns nothing any more
 * @ctx: the context; its work has ended
 *
 * Monitors it left armed lose every right, even once its ASID is reused.
 */
void gaudisim_rights_ctx_fini(struct gaudisim_ctx *ctx)
{
	static const struct gaudisim_rights_entry none;

	if (ctx->asid)
		gaudisim_rights_set(ctx->gdev, ctx->asid, &none);
}
