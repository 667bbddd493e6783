// SPDX-License-Identifier: GPL-2.0
/*
 * The DEBUG ioctl (habanalabs' HL_IOCTL_DEBUG).
 *
 * On Gaudi a profiler first puts the device in debug mode (SET_MODE), then
 * programs the CoreSight trace blocks through the other ops; the mode has
 * one holder, a second enable or a disable outside it is EFAULT, and it
 * ends when its holder closes the device. gaudisim keeps those rules. The
 * device has no trace hardware, so the CoreSight ops answer EOPNOTSUPP
 * (EFAULT outside debug mode, which habanalabs checks first).
 */
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "gaudisim_ctx.h"
#include "gaudisim_debug.h"
#include "gaudisim_drv.h"

static int gaudisim_debug_set_mode(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
				   bool enable)
{
	int rc = 0;

	mutex_lock(&gdev->open_lock);
	if (enable && gdev->debug_ctx) {
		gaudisim_dbg(gdev, "debug mode: already on\n");
		rc = -EFAULT;
	} else if (!enable && gdev->debug_ctx != ctx) {
		gaudisim_dbg(gdev, "debug mode: not on for this context\n");
		rc = -EFAULT;
	} else {
		gdev->debug_ctx = enable ? ctx : NULL;
	}
	mutex_unlock(&gdev->open_lock);
	return rc;
}

static bool gaudisim_debug_held(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx)
{
	bool held;

	mutex_lock(&gdev->open_lock);
	held = gdev->debug_ctx == ctx;
	mutex_unlock(&gdev->open_lock);
	return held;
}

int gaudisim_debug_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct gaudisim_device *gdev = to_gaudisim(drm);
	struct gaudisim_ctx *ctx = file->driver_priv;
	struct gaudisim_debug_args *args = data;

	if (args->ctx_id) {
		gaudisim_dbg(gdev, "debug: ctx_id must be 0\n");
		return -EINVAL;
	}
	/* As habanalabs: nothing is configured on a device that is not up. */
	if (gaudisim_status(gdev) != GAUDISIM_DEVICE_STATUS_OPERATIONAL)
		return -EBUSY;

	switch (args->op) {
	case GAUDISIM_DEBUG_OP_ETR:
	case GAUDISIM_DEBUG_OP_ETF:
	case GAUDISIM_DEBUG_OP_STM:
	case GAUDISIM_DEBUG_OP_FUNNEL:
	case GAUDISIM_DEBUG_OP_BMON:
	case GAUDISIM_DEBUG_OP_SPMU:
	case GAUDISIM_DEBUG_OP_TIMESTAMP:
		if (!gaudisim_debug_held(gdev, ctx)) {
			gaudisim_dbg(gdev, "debug op %u outside debug mode\n", args->op);
			return -EFAULT;
		}
		gaudisim_dbg(gdev, "debug op %u: the device has no CoreSight blocks\n",
			     args->op);
		return -EOPNOTSUPP;
	case GAUDISIM_DEBUG_OP_SET_MODE:
		return gaudisim_debug_set_mode(gdev, ctx, args->enable);
	default:
		gaudisim_dbg(gdev, "unknown debug op %u\n", args->op);
		return -EINVAL;
	}
}

void gaudisim_debug_ctx_fini(struct gaudisim_ctx *ctx)
{
	struct gaudisim_device *gdev = ctx->gdev;

	mutex_lock(&gdev->open_lock);
	if (gdev->debug_ctx == ctx)
		gdev->debug_ctx = NULL;
	mutex_unlock(&gdev->open_lock);
}
