// SPDX-License-Identifier: GPL-2.0
/*
 * Event notification (INFO REGISTER_EVENTFD, UNREGISTER_EVENTFD,
 * GET_EVENTS) and the capture of the last error of each kind for the INFO
 * *_EVENT ops.
 *
 * Like habanalabs, every open compute context collects the events that
 * happen while it is open; a context that registered an eventfd is also
 * signalled. GET_EVENTS returns the collected bits and clears them.
 */

#include <linux/eventfd.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>

#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_notify.h"

/**
 * gaudisim_notify() - record events for every open context, signal eventfds
 * @gdev: the device
 * @events: GAUDISIM_NOTIFIER_EVENT_* bits
 *
 * Context: process context; takes gdev->notifier_lock.
 */
void gaudisim_notify(struct gaudisim_device *gdev, u64 events)
{
	struct gaudisim_ctx *ctx;

	mutex_lock(&gdev->notifier_lock);
	list_for_each_entry(ctx, &gdev->notifiers, notifier_node) {
		ctx->notifier_events |= events;
		if (ctx->notifier_efd)
			eventfd_signal(ctx->notifier_efd);
	}
	mutex_unlock(&gdev->notifier_lock);
}

/*
 * Start collecting events for a context that just opened the device; the
 * errors captured for its ASID were a previous context's.
 */
void gaudisim_notifier_ctx_init(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx)
{
	spin_lock(&gdev->err_lock);
	memset(&gdev->ctx_errors[ctx->asid], 0, sizeof(gdev->ctx_errors[ctx->asid]));
	spin_unlock(&gdev->err_lock);
	mutex_lock(&gdev->notifier_lock);
	list_add_tail(&ctx->notifier_node, &gdev->notifiers);
	mutex_unlock(&gdev->notifier_lock);
}

/* Stop collecting and drop the eventfd of a closing context. */
void gaudisim_notifier_ctx_fini(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx)
{
	mutex_lock(&gdev->notifier_lock);
	list_del_init(&ctx->notifier_node);
	if (ctx->notifier_efd) {
		eventfd_ctx_put(ctx->notifier_efd);
		ctx->notifier_efd = NULL;
	}
	mutex_unlock(&gdev->notifier_lock);
}

int gaudisim_notifier_register(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx, int fd)
{
	struct eventfd_ctx *efd;
	int rc = 0;

	efd = eventfd_ctx_fdget(fd);
	if (IS_ERR(efd)) {
		gaudisim_dbg(gdev, "fd %d is not an eventfd\n", fd);
		return PTR_ERR(efd);
	}
	mutex_lock(&gdev->notifier_lock);
	if (ctx->notifier_efd) {
		gaudisim_dbg(gdev, "an eventfd is already registered\n");
		rc = -EINVAL;
	} else {
		ctx->notifier_efd = efd;
		efd = NULL;
	}
	mutex_unlock(&gdev->notifier_lock);
	if (efd)
		eventfd_ctx_put(efd);
	return rc;
}

int gaudisim_notifier_unregister(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx)
{
	struct eventfd_ctx *efd;

	mutex_lock(&gdev->notifier_lock);
	efd = ctx->notifier_efd;
	ctx->notifier_efd = NULL;
	mutex_unlock(&gdev->notifier_lock);
	if (!efd) {
		gaudisim_dbg(gdev, "no eventfd is registered\n");
		return -EINVAL;
	}
	eventfd_ctx_put(efd);
	return 0;
}

int gaudisim_notifier_get_events(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
				 u64 *events)
{
	mutex_lock(&gdev->notifier_lock);
	*events = ctx->notifier_events;
	ctx->notifier_events = 0;
	mutex_unlock(&gdev->notifier_lock);
	return 0;
}

/*
 * A CS of the context with @asid timed out: remember it for
 * CS_TIMEOUT_EVENT, device-wide and for that context, and tell the users.
 */
void gaudisim_capture_cs_timeout(struct gaudisim_device *gdev, u32 asid, u64 seq)
{
	spin_lock(&gdev->err_lock);
	gdev->errors.cs_timeout.timestamp = ktime_get_ns();
	gdev->errors.cs_timeout.seq = seq;
	gdev->errors.open_dev_time = READ_ONCE(gdev->last_open_ns);
	if (asid < GAUDISIM_MMU_NUM_ASIDS) {
		gdev->ctx_errors[asid].cs_timeout = gdev->errors.cs_timeout;
		gdev->ctx_errors[asid].open_dev_time = gdev->errors.open_dev_time;
	}
	spin_unlock(&gdev->err_lock);
	gaudisim_notify(gdev, GAUDISIM_NOTIFIER_EVENT_CS_TIMEOUT);
}
