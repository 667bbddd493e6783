/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-client usage for DRM fdinfo (Documentation/gpu/drm-usage-stats.rst).
 */
#ifndef __GAUDISIM_FDINFO_H__
#define __GAUDISIM_FDINFO_H__

#include <linux/spinlock.h>
#include <linux/types.h>

#include <hw/gaudisim_hw_queues.h>

struct drm_file;
struct drm_printer;
struct gaudisim_cs;
struct gaudisim_ctx;

/**
 * struct gaudisim_ctx_usage - engine time of one context's CSs
 * @lock: protects the fields below
 * @busy_ns: per class, time a CS of the context had work on it
 * @last_end_ns: per class, when the last such CS finished, so CSs queued
 *               behind each other are not counted twice
 */
struct gaudisim_ctx_usage {
	/* Taken where jobs complete (IRQ thread, submit path) and by fdinfo. */
	spinlock_t lock;
	u64 busy_ns[GAUDISIM_ENGINE_CLASS_COUNT];
	u64 last_end_ns[GAUDISIM_ENGINE_CLASS_COUNT];
};

void gaudisim_fdinfo_ctx_init(struct gaudisim_ctx *ctx);
void gaudisim_fdinfo_cs_done(struct gaudisim_cs *cs);
void gaudisim_show_fdinfo(struct drm_printer *p, struct drm_file *file);

#endif /* __GAUDISIM_FDINFO_H__ */
