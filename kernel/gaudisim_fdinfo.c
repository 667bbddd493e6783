// SPDX-License-Identifier: GPL-2.0
/*
 * DRM fdinfo of a compute file: engine time and HBM of its context.
 *
 * drm_show_fdinfo() prints drm-driver, drm-pdev and drm-client-id; this
 * adds drm-engine-{dma,mme,tpc,nic} and drm-{total,resident}-hbm. A CS
 * counts, on every engine class it has a job on, the time from its
 * submission (or from the end of the context's previous CS on that class,
 * whichever is later) to its completion, so CSs queued behind each other
 * or running side by side are not counted twice: the sum never exceeds
 * the wall time the context kept that class busy.
 */

#include <linux/ktime.h>
#include <linux/minmax.h>

#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include <hw/gaudisim_hw_queues.h>

#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_fdinfo.h"

static const char *const gaudisim_engine_class_name[GAUDISIM_ENGINE_CLASS_COUNT] = {
	[GAUDISIM_ENGINE_CLASS_DMA] = "dma",
	[GAUDISIM_ENGINE_CLASS_MME] = "mme",
	[GAUDISIM_ENGINE_CLASS_TPC] = "tpc",
	[GAUDISIM_ENGINE_CLASS_NIC] = "nic",
};

void gaudisim_fdinfo_ctx_init(struct gaudisim_ctx *ctx)
{
	spin_lock_init(&ctx->usage.lock);
}

/**
 * gaudisim_fdinfo_cs_done() - account a CS whose last job finished
 * @cs: the CS; its jobs still name their queues
 */
void gaudisim_fdinfo_cs_done(struct gaudisim_cs *cs)
{
	struct gaudisim_ctx_usage *u = &cs->ctx->usage;
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 i, classes = 0;
	int engine;

	for (i = 0; i < cs->num_jobs; i++) {
		engine = gaudisim_queue_engine(cs->jobs[i].queue_id);
		if (engine >= 0)
			classes |= BIT(gaudisim_engine_class(engine));
	}

	spin_lock_irqsave(&u->lock, flags);
	for (i = 0; i < GAUDISIM_ENGINE_CLASS_COUNT; i++) {
		u64 start = max(cs->start_ns, u->last_end_ns[i]);

		if (!(classes & BIT(i)))
			continue;
		if (now > start)
			u->busy_ns[i] += now - start;
		u->last_end_ns[i] = now;
	}
	spin_unlock_irqrestore(&u->lock, flags);
}

/* drm_driver.show_fdinfo: the keys after the ones DRM prints itself. */
void gaudisim_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct gaudisim_ctx *ctx = file->driver_priv;
	u64 busy[GAUDISIM_ENGINE_CLASS_COUNT], hbm;
	unsigned long flags;
	u32 i;

	if (!ctx)
		return;

	spin_lock_irqsave(&ctx->usage.lock, flags);
	memcpy(busy, ctx->usage.busy_ns, sizeof(busy));
	spin_unlock_irqrestore(&ctx->usage.lock, flags);

	mutex_lock(&ctx->mem_lock);
	hbm = ctx->dram_used;
	mutex_unlock(&ctx->mem_lock);

	for (i = 0; i < GAUDISIM_ENGINE_CLASS_COUNT; i++)
		drm_printf(p, "drm-engine-%s:\t%llu ns\n", gaudisim_engine_class_name[i],
			   busy[i]);
	/* Allocated HBM is always backed: total and resident are the same. */
	drm_printf(p, "drm-total-hbm:\t%llu\n", hbm);
	drm_printf(p, "drm-resident-hbm:\t%llu\n", hbm);
}
