// SPDX-License-Identifier: GPL-2.0
/*
 * Compute context: open and close of /dev/accel/accelN.
 *
 * By default one process at a time holds the compute node, like the real
 * driver; a second open gets EBUSY. With the max_contexts parameter up to
 * seven processes share the device (docs/contexts.md), each with its own
 * ASID, page tables, HBM quota and sync-manager slice; the open beyond
 * max_contexts gets EBUSY. Closing the node tears the context down:
 * its work on every queue, internal ones included, gets a short grace
 * period, then the device is reset so that nothing DMAs into memory that
 * is about to be unpinned or reused; the device zeroes the HBM the
 * context held (gaudisim_release.c); then CBs, userptr mappings and HBM
 * allocations are released, and only then may the next user open.
 */

#include <linux/moduleparam.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "gaudisim_cb.h"
#include "gaudisim_cs.h"
#include "gaudisim_ctx.h"
#include "gaudisim_debug.h"
#include "gaudisim_drv.h"
#include "gaudisim_fdinfo.h"
#include "gaudisim_mem.h"
#include "gaudisim_mmu.h"
#include "gaudisim_notify.h"
#include "gaudisim_release.h"
#include "gaudisim_rights.h"

unsigned int gaudisim_max_contexts = 1;

static int gaudisim_max_contexts_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int rc;

	rc = kstrtouint(val, 0, &v);
	if (rc)
		return rc;
	if (v < 1 || v > GAUDISIM_MAX_CONTEXTS)
		return -EINVAL;
	gaudisim_max_contexts = v;
	return 0;
}

static const struct kernel_param_ops gaudisim_max_contexts_ops = {
	.set = gaudisim_max_contexts_set,
	.get = param_get_uint,
};

module_param_cb(max_contexts, &gaudisim_max_contexts_ops, &gaudisim_max_contexts, 0444);
MODULE_PARM_DESC(max_contexts,
		 "Processes that may hold a device's compute node at once, 1..7 (default 1, as habanalabs)");

static unsigned int gaudisim_ctx_hbm_quota_mb;
module_param_named(ctx_hbm_quota_mb, gaudisim_ctx_hbm_quota_mb, uint, 0444);
MODULE_PARM_DESC(ctx_hbm_quota_mb,
		 "HBM MiB each context may allocate when contexts share a device (default 0: an even split)");

/*
 * What the context may use: everything in exclusive mode; in shared mode
 * its slot's slice of the user SOBs, monitors and user interrupts and its
 * HBM quota (an even share, or ctx_hbm_quota_mb if that is smaller).
 */
static void gaudisim_ctx_set_limits(struct gaudisim_ctx *ctx, u32 slot)
{
	struct gaudisim_device *gdev = ctx->gdev;

	ctx->slot = slot;
	ctx->shared = gaudisim_max_contexts > 1;
	if (!ctx->shared) {
		ctx->sob_first = GAUDISIM_SYNC_FIRST_USER_SOB;
		ctx->sob_end = GAUDISIM_SYNC_NUM_SOBS;
		ctx->mon_first = GAUDISIM_SYNC_FIRST_USER_MON;
		ctx->mon_end = GAUDISIM_SYNC_NUM_MONITORS;
		ctx->hbm_quota = gaudisim_hbm_user_size(gdev);
		ctx->uirq_first = GAUDISIM_MSIX_VEC_USER_FIRST;
		ctx->uirq_count = GAUDISIM_MSIX_NUM_USER;
		return;
	}
	ctx->uirq_count = GAUDISIM_MSIX_NUM_USER / gaudisim_max_contexts;
	ctx->uirq_first = GAUDISIM_MSIX_VEC_USER_FIRST + slot * ctx->uirq_count;
	ctx->sob_first = GAUDISIM_SYNC_FIRST_USER_SOB + slot * GAUDISIM_CTX_SOBS_PER_SLOT;
	ctx->sob_end = ctx->sob_first + GAUDISIM_CTX_SOBS_PER_SLOT;
	ctx->mon_first = GAUDISIM_CTX_MON_SHARED_FIRST + slot * GAUDISIM_CTX_MONS_PER_SLOT;
	ctx->mon_end = ctx->mon_first + GAUDISIM_CTX_MONS_PER_SLOT;
	ctx->hbm_quota = round_down(div_u64(gaudisim_hbm_user_size(gdev), gaudisim_max_contexts),
				    GAUDISIM_DRAM_PAGE_SIZE);
	if (gaudisim_ctx_hbm_quota_mb)
		ctx->hbm_quota = min_t(u64, ctx->hbm_quota,
				       round_down((u64)gaudisim_ctx_hbm_quota_mb * SZ_1M,
						  GAUDISIM_DRAM_PAGE_SIZE));
}

static void gaudisim_ctx_release(struct kref *ref)
{
	struct gaudisim_ctx *ctx = container_of(ref, struct gaudisim_ctx, ref);

	mutex_destroy(&ctx->restore_lock);
	mutex_destroy(&ctx->mem_lock);
	kvfree(ctx->ts_outcomes);
	kvfree(ctx->outcomes);
	kvfree(ctx->pending);
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
	ctx->ts_outcomes = kvcalloc(GAUDISIM_CS_TS_OUTCOMES, sizeof(*ctx->ts_outcomes),
				    GFP_KERNEL);
	ctx->pending = kvcalloc(GAUDISIM_MAX_PENDING_CS, sizeof(*ctx->pending),
				GFP_KERNEL);
	if (!ctx->outcomes || !ctx->ts_outcomes || !ctx->pending) {
		kvfree(ctx->ts_outcomes);
		kvfree(ctx->outcomes);
		kvfree(ctx->pending);
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
	atomic_set(&ctx->cs_building, 0);
	init_waitqueue_head(&ctx->idle_wq);
	gaudisim_fdinfo_ctx_init(ctx);
	init_waitqueue_head(&ctx->cs_done_wq);
	INIT_LIST_HEAD(&ctx->notifier_node);
	return ctx;
}

int gaudisim_open(struct drm_device *drm, struct drm_file *file)
{
	struct gaudisim_device *gdev = to_gaudisim(drm);
	struct gaudisim_ctx *ctx;
	u32 slot;
	int rc = 0;

	ctx = gaudisim_ctx_create(gdev);
	if (!ctx)
		return -ENOMEM;

	mutex_lock(&gdev->open_lock);
	if (gdev->num_ctxs >= gaudisim_max_contexts) {
		dev_dbg_ratelimited(drm->dev,
				    "compute node is held by %u process(es); open by pid %d refused\n",
				    gdev->num_ctxs, ctx->pid);
		rc = -EBUSY;
		goto out_unlock;
	}
	for (slot = 0; gdev->ctxs[slot]; slot++)
		;
	gaudisim_ctx_set_limits(ctx, slot);
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

	rc = gaudisim_mmu_ctx_init(ctx, !ctx->shared);
	if (rc)
		goto out_unlock;
	gaudisim_rights_ctx_init(ctx);

	gdev->ctxs[slot] = ctx;
	gdev->num_ctxs++;
	gaudisim_notifier_ctx_init(gdev, ctx);
	gdev->open_counter++;
	/* Read under err_lock when an error is captured (LAST_ERR_OPEN_DEV_TIME). */
	WRITE_ONCE(gdev->last_open_ns, ktime_get_ns());
	if (gdev->num_ctxs == 1)
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
	struct gaudisim_device *gdev = to_gaudisim(drm);
	struct gaudisim_ctx *ctx = file->driver_priv;

	WRITE_ONCE(ctx->in_release, true);
	gaudisim_debug_ctx_fini(ctx);
	gaudisim_notifier_ctx_fini(gdev, ctx);
	gaudisim_ctx_release_engines(ctx);
	/* None of its jobs is on the device now: end the timeouts left armed. */
	gaudisim_cs_flush_lingering(gdev, ctx);
	/* Its reserved signals go with it (their SOBs may wrap again). */
	gaudisim_encap_ctx_fini(ctx);
	/* Monitors it left armed write nothing from now on. */
	gaudisim_rights_ctx_fini(ctx);
	/* No device access to the context's pages once they are unpinned. */
	gaudisim_mmu_ctx_fini(ctx);
	/* The next user finds zeros wherever this one had HBM. */
	gaudisim_ctx_scrub_hbm(ctx);
	gaudisim_cb_ctx_fini(ctx);
	gaudisim_mem_ctx_fini(ctx);

	/* Free the compute node only once its memory is back in the pool. */
	mutex_lock(&gdev->open_lock);
	gdev->ctxs[ctx->slot] = NULL;
	if (!--gdev->num_ctxs)
		gdev->last_open_period_ms = ktime_ms_delta(ktime_get(), gdev->open_time);
	mutex_unlock(&gdev->open_lock);

	file->driver_priv = NULL;
	gaudisim_ctx_put(ctx);
}
