// SPDX-License-Identifier: GPL-2.0
/*
 * Compute context: open and close of /dev/accel/accelN.
 *
 * One process at a time holds the compute node, like the real driver;
 * a second open gets EBUSY. Closing the node tears the context down:
 * its work on every queue, internal ones included, gets a short grace
 * period, then the device is reset so that nothing DMAs into memory that
 * is about to be unpinned or reused; the device zeroes the HBM the
 * context held (gaudisim_release.c); then CBs, userptr mappings and HBM
 * allocations are released, and only then may the next user open.
 */

#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "gaudisim_cb.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_mem.h"
#include "gaudisim_release.h"

static void gaudisim_ctx_release(struct kref *ref)
{
	struct gaudisim_ctx *ctx = container_of(ref, struct gaudisim_ctx, ref);

	mutex_destroy(&ctx->restore_lock);
	mutex_destroy(&ctx->mem_lock);
	kvfree(ctx->outcomes);
	kfree(ctx);
}

void gaudisim_ctx_get(struct gaudisim_ctx *ctx)
{
	kref_get(&ctx->ref);
}

void gaudisim_ctx_put(struct gaudisim_ctx *ctx)
{
	kref_put(&ctx->ref, gaudisim_ctx_release);
}

static struct gaudisim_ctx *gaudisim_ctx_create(struct gaudisim_device *gdev)
{
	struct gaudisim_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;
	ctx->outcomes = kvcalloc(GAUDISIM_CS_OUTCOMES, sizeof(*ctx->outcomes),
				 GFP_KERNEL);
	if (!ctx->outcomes) {
		kfree(ctx);
		return NULL;
	}

	kref_init(&ctx->ref);
	ctx->gdev = gdev;
	ctx->pid = task_tgid_nr(current);
	xa_init_flags(&ctx->cbs, XA_FLAGS_ALLOC1);
	atomic64_set(&ctx->cb_bytes, 0);
	atomic_set(&ctx->cb_count, 0);
	atomic64_set(&ctx->kcb_bytes, 0);
	mutex_init(&ctx->restore_lock);
	mutex_init(&ctx->mem_lock);
	gaudisim_mem_ctx_init(ctx);
	spin_lock_init(&ctx->cs_lock);
	ctx->next_seq = 1;
	atomic_set(&ctx->jobs_inflight, 0);
	init_waitqueue_head(&ctx->idle_wq);
	init_waitqueue_head(&ctx->cs_done_wq);
	INIT_LIST_HEAD(&ctx->notifier_node);
	return ctx;
}

int gaudisim_open(struct drm_device *drm, struct drm_file *file)
{
	struct gaudisim_device *gdev = to_gsim(drm);
	struct gaudisim_ctx *ctx;
	int rc = 0;

	ctx = gaudisim_ctx_create(gdev);
	if (!ctx)
		return -ENOMEM;

	mutex_lock(&gdev->open_lock);
	if (gdev->compute_ctx) {
		dev_dbg_ratelimited(drm->dev,
				    "compute node is held by pid %d; open by pid %d refused\n",
				    gdev->compute_ctx->pid, ctx->pid);
		rc = -EBUSY;
		goto out_unlock;
	}
	switch (gaudisim_status(gdev)) {
	case GAUDISIM_DEVICE_STATUS_OPERATIONAL:
		break;
	case GAUDISIM_DEVICE_STATUS_MALFUNCTION:
		rc = -EPERM;
		goto out_unlock;
	default:
		rc = -EAGAIN;
		goto out_unlock;
	}

	rc = gaudisim_mmu_ctx_init(ctx);
	if (rc)
		goto out_unlock;

	gdev->compute_ctx = ctx;
	gaudisim_notifier_ctx_init(gdev, ctx);
	gdev->open_counter++;
	gdev->open_time = ktime_get();
	file->driver_priv = ctx;

out_unlock:
	mutex_unlock(&gdev->open_lock);
	if (rc)
		gaudisim_ctx_put(ctx);
	return rc;
}

void gaudisim_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct gaudisim_device *gdev = to_gsim(drm);
	struct gaudisim_ctx *ctx = file->driver_priv;

	WRITE_ONCE(ctx->in_release, true);
	gaudisim_notifier_ctx_fini(gdev, ctx);
	gaudisim_ctx_release_engines(ctx);
	/* No device access to the context's pages once they are unpinned. */
	gaudisim_mmu_ctx_fini(ctx);
	/* The next user finds zeros wherever this one had HBM. */
	gaudisim_ctx_scrub_hbm(ctx);
	gaudisim_cb_ctx_fini(ctx);
	gaudisim_mem_ctx_fini(ctx);

	/* Free the compute node only once its memory is back in the pool. */
	mutex_lock(&gdev->open_lock);
	gdev->compute_ctx = NULL;
	gdev->last_open_period_ms = ktime_ms_delta(ktime_get(), gdev->open_time);
	mutex_unlock(&gdev->open_lock);

	file->driver_priv = NULL;
	gaudisim_ctx_put(ctx);
}
