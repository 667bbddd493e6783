// SPDX-License-Identifier: GPL-2.0
/*
 * INFO ioctl, served on the compute node and on the control node.
 *
 * Each op fills its struct; the driver copies min(return_size, struct
 * size) bytes, so user space built against an older, shorter struct keeps
 * working.
 */

#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include <hw/gaudisim_sync.h>

#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_hw.h"

union gsim_info_buf {
	struct gaudisim_info_hw_ip_info hw_ip;
	struct gaudisim_info_dram_usage dram;
	struct gaudisim_info_hw_idle idle;
	struct gaudisim_info_device_status status;
	struct gaudisim_info_cs_counters cs;
	struct gaudisim_info_open_stats open;
	struct gaudisim_info_driver_version version;
	struct gaudisim_info_sync_manager sync;
	u32 events[GAUDISIM_INFO_HW_EVENTS_NUM];
};

static u32 gsim_engine_count(struct gaudisim_device *gdev, u32 shift, u32 bits)
{
	return GAUDISIM_ENGINES_FIELD(gdev->engines, shift, bits);
}

static void gsim_info_hw_ip(struct gaudisim_device *gdev,
			    struct gaudisim_info_hw_ip_info *hw)
{
	u32 q;

	hw->dram_base_address = GAUDISIM_HBM_USER_BASE;
	hw->dram_size = gsim_hbm_user_size(gdev);
	hw->sram_base_address = GAUDISIM_SRAM_BASE;
	hw->sram_size = gdev->sram_size;
	hw->hbm_total_size = gdev->hbm_size;
	hw->host_base_address = GAUDISIM_HOST_BASE;
	hw->device_id = gdev->pdev->device;
	hw->hw_version = gdev->hw_version;
	hw->num_pci_dma = gsim_engine_count(gdev, GAUDISIM_ENGINES_PCI_DMA_SHIFT, 4);
	hw->num_hbm_dma = gsim_engine_count(gdev, GAUDISIM_ENGINES_HBM_DMA_SHIFT, 4);
	hw->num_mme = gsim_engine_count(gdev, GAUDISIM_ENGINES_MME_SHIFT, 4);
	hw->num_tpc = gsim_engine_count(gdev, GAUDISIM_ENGINES_TPC_SHIFT, 8);
	hw->tpc_enabled_mask = hw->num_tpc >= 32 ? U32_MAX : BIT(hw->num_tpc) - 1;
	hw->num_queues = GAUDISIM_QUEUE_ID_SIZE;
	/* Every queue the device implements takes CS chunks. */
	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		if (gsim_queue_present(gdev, q) && gaudisim_queue_engine(q) >= 0)
			hw->queue_mask[q / 64] |= BIT_ULL(q % 64);
	strscpy(hw->card_name, GAUDISIM_CARD_NAME, sizeof(hw->card_name));
}

static void gsim_info_dram(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
			   struct gaudisim_info_dram_usage *dram)
{
	u64 total = gsim_hbm_user_size(gdev);
	u64 used;

	mutex_lock(&gdev->hbm_lock);
	used = gdev->hbm_used;
	mutex_unlock(&gdev->hbm_lock);

	dram->dram_total_mem = total;
	dram->dram_used_mem = used;
	dram->dram_free_mem = total - used;
	if (ctx) {
		mutex_lock(&ctx->mem_lock);
		dram->ctx_dram_mem = ctx->dram_used;
		mutex_unlock(&ctx->mem_lock);
	}
}

static int gsim_info_idle(struct gaudisim_device *gdev,
			  struct gaudisim_info_hw_idle *idle)
{
	u32 q, busy_hw[GAUDISIM_ENGINE_COUNT];
	int idx;

	/* The registers are gone once the device is removed. */
	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	for (q = 0; q < GAUDISIM_ENGINE_COUNT; q++)
		busy_hw[q] = gsim_hw_busy_streams(gdev, q);

	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++) {
		bool busy;
		int engine = gaudisim_queue_engine(q);

		if (engine < 0 || !gsim_queue_present(gdev, q))
			continue;
		if (GAUDISIM_QUEUE_IS_EXTERNAL(q))
			busy = gsim_queue_busy(&gdev->queues[q]);
		else
			busy = gsim_iqueue_busy(&gdev->iqueues[q]);
		if (busy || (busy_hw[engine] & BIT(gaudisim_queue_stream(q))))
			idle->busy_queues_mask[q / 64] |= BIT_ULL(q % 64);
	}
	drm_dev_exit(idx);

	idle->is_idle = !idle->busy_queues_mask[0] && !idle->busy_queues_mask[1];
	return 0;
}

static void gsim_info_cs_counters(struct gaudisim_device *gdev,
				  struct gaudisim_info_cs_counters *cs)
{
	struct gsim_cs_counters *cnt = &gdev->cs_cnt;

	cs->submitted = atomic64_read(&cnt->submitted);
	cs->completed = atomic64_read(&cnt->completed);
	cs->errors = atomic64_read(&cnt->errors);
	cs->timed_out = atomic64_read(&cnt->timed_out);
	cs->validation_drop = atomic64_read(&cnt->validation_drop);
	cs->parsing_drop = atomic64_read(&cnt->parsing_drop);
	cs->queue_full_drop = atomic64_read(&cnt->queue_full_drop);
	cs->device_not_ready_drop = atomic64_read(&cnt->device_not_ready_drop);
}

static void gsim_info_open(struct gaudisim_device *gdev,
			   struct gaudisim_info_open_stats *open)
{
	mutex_lock(&gdev->open_lock);
	open->open_counter = gdev->open_counter;
	if (gdev->compute_ctx) {
		open->is_compute_ctx_active = 1;
		open->compute_pid = gdev->compute_ctx->pid;
		open->last_open_period_ms = ktime_ms_delta(ktime_get(),
							   gdev->open_time);
	} else {
		open->last_open_period_ms = gdev->last_open_period_ms;
	}
	mutex_unlock(&gdev->open_lock);
}

/**
 * gsim_info_query() - answer an INFO request
 * @gdev: the device
 * @ctx: the caller's compute context, NULL on the control node
 * @args: the request
 *
 * Return: 0, -EINVAL for a bad request, -EFAULT, -ENODEV after removal.
 */
int gsim_info_query(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
		    const struct gaudisim_info_args *args)
{
	union gsim_info_buf buf;
	u32 size;
	int rc;

	if (!args->return_pointer || !args->return_size) {
		gsim_dbg(gdev, "return pointer and size must not be 0\n");
		return -EINVAL;
	}
	if (args->reserved || args->pad) {
		gsim_dbg(gdev, "reserved and pad must be 0\n");
		return -EINVAL;
	}

	memset(&buf, 0, sizeof(buf));
	switch (args->op) {
	case GAUDISIM_INFO_HW_IP_INFO:
		gsim_info_hw_ip(gdev, &buf.hw_ip);
		size = sizeof(buf.hw_ip);
		break;
	case GAUDISIM_INFO_DRAM_USAGE:
		gsim_info_dram(gdev, ctx, &buf.dram);
		size = sizeof(buf.dram);
		break;
	case GAUDISIM_INFO_HW_IDLE:
		rc = gsim_info_idle(gdev, &buf.idle);
		if (rc)
			return rc;
		size = sizeof(buf.idle);
		break;
	case GAUDISIM_INFO_DEVICE_STATUS:
		buf.status.status = gsim_status(gdev);
		size = sizeof(buf.status);
		break;
	case GAUDISIM_INFO_CS_COUNTERS:
		gsim_info_cs_counters(gdev, &buf.cs);
		size = sizeof(buf.cs);
		break;
	case GAUDISIM_INFO_OPEN_STATS:
		gsim_info_open(gdev, &buf.open);
		size = sizeof(buf.open);
		break;
	case GAUDISIM_INFO_HW_EVENTS:
		gsim_eq_counts(gdev, buf.events);
		size = sizeof(buf.events);
		break;
	case GAUDISIM_INFO_SYNC_MANAGER:
		buf.sync.first_available_sync_object = GAUDISIM_SYNC_FIRST_USER_SOB;
		buf.sync.first_available_monitor = GAUDISIM_SYNC_FIRST_USER_MON;
		buf.sync.num_sync_objects = GAUDISIM_SYNC_NUM_SOBS;
		buf.sync.num_monitors = GAUDISIM_SYNC_NUM_MONITORS;
		size = sizeof(buf.sync);
		break;
	case GAUDISIM_INFO_DRIVER_VERSION:
		strscpy(buf.version.version, GAUDISIM_DRIVER_VERSION,
			sizeof(buf.version.version));
		size = sizeof(buf.version);
		break;
	default:
		gsim_dbg(gdev, "unknown INFO op %u\n", args->op);
		return -EINVAL;
	}

	if (copy_to_user(u64_to_user_ptr(args->return_pointer), &buf,
			 min(args->return_size, size)))
		return -EFAULT;
	return 0;
}

int gsim_info_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	return gsim_info_query(to_gsim(drm), file->driver_priv, data);
}
