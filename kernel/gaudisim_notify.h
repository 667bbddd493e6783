/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event notifiers: eventfds registered with INFO REGISTER_EVENTFD, the
 * events each context has not read yet, and the captured CS timeout.
 */
#ifndef __GAUDISIM_NOTIFY_H__
#define __GAUDISIM_NOTIFY_H__

#include <linux/types.h>

struct gaudisim_ctx;
struct gaudisim_device;

void gaudisim_notify(struct gaudisim_device *gdev, u64 events);
void gaudisim_notifier_ctx_init(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx);
int gaudisim_notifier_register(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
			       int fd);
int gaudisim_notifier_unregister(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx);
int gaudisim_notifier_get_events(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
				 u64 *events);
void gaudisim_notifier_ctx_fini(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx);
void gaudisim_capture_cs_timeout(struct gaudisim_device *gdev, u32 asid, u64 seq);

#endif /* __GAUDISIM_NOTIFY_H__ */
