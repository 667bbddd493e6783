// SPDX-License-Identifier: GPL-2.0
/*
 * INFO ioctl, served on the compute node and on the control node.
 *
 * Ops 0..63 follow habanalabs' numbers and structs; each fills its struct
 * from device state (registers, telemetry, counters) and the driver copies
 * min(return_size, struct size) bytes, so user space built against an
 * older, shorter struct keeps working. Status ops need no context and no
 * operational device: they answer during a reset too.
 */

#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include <hw/gaudisim_hw_sync.h>
#include <hw/gaudisim_hw_telemetry.h>

#include "gaudisim_cs.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_eq.h"
#include "gaudisim_hw.h"
#include "gaudisim_info.h"
#include "gaudisim_mmu.h"
#include "gaudisim_nic.h"
#include "gaudisim_notify.h"
#include "gaudisim_queue.h"

/* The window the firmware measures PCIe throughput over. */
#define GAUDISIM_PCI_COUNTERS_WINDOW_MS	10

union gaudisim_info_buf {
	struct gaudisim_info_hw_ip_info hw_ip;
	struct gaudisim_info_hw_ip_ext hw_ext;
	struct gaudisim_info_dram_usage dram;
	struct gaudisim_info_hw_idle idle;
	struct gaudisim_info_queue_idle qidle;
	struct gaudisim_info_device_status status;
	struct gaudisim_info_device_utilization util;
	struct gaudisim_info_engine_utilization eng_util;
	struct gaudisim_info_clk_rate clk;
	struct gaudisim_info_reset_count reset;
	struct gaudisim_info_time_sync time;
	struct gaudisim_info_cs_counters cs;
	struct gaudisim_info_cs_stats cs_stats;
	struct gaudisim_info_clk_throttle throttle;
	struct gaudisim_info_energy energy;
	struct gaudisim_pll_frequency_info pll;
	struct gaudisim_power_info power;
	struct gaudisim_info_open_stats open;
	struct gaudisim_info_driver_version version;
	struct gaudisim_info_sync_manager sync;
	struct gaudisim_info_last_err_open_dev_time open_dev;
	struct gaudisim_info_cs_timeout_event cs_timeout;
	struct gaudisim_info_razwi_event razwi;
	struct gaudisim_info_undefined_opcode_event undef;
	struct gaudisim_page_fault_info page_fault;
	struct gaudisim_info_dev_memalloc_page_sizes page_sizes;
	struct gaudisim_info_nic_links nic;
	struct gaudisim_info_pci_counters pci;
	u64 events;
	u32 hw_events[GAUDISIM_INFO_HW_EVENTS_NUM];
};

static u32 gaudisim_engine_count(struct gaudisim_device *gdev, u32 shift, u32 bits)
{
	return GAUDISIM_ENGINES_FIELD(gdev->engines, shift, bits);
}

static void gaudisim_info_hw_ip(struct gaudisim_device *gdev,
				struct gaudisim_info_hw_ip_info *hw)
{
	u32 num_tpc = gaudisim_engine_count(gdev, GAUDISIM_ENGINES_TPC_SHIFT, 8);

	hw->sram_base_address = GAUDISIM_SRAM_BASE;
	hw->dram_base_address = GAUDISIM_HBM_USER_BASE;
	hw->dram_size = gaudisim_hbm_user_size(gdev);
	hw->sram_size = gdev->sram_size;
	hw->num_of_events = GAUDISIM_INFO_HW_EVENTS_NUM;
	hw->device_id = GAUDISIM_HL_DEVICE_ID_GAUDI;
	hw->tpc_enabled_mask = num_tpc >= 8 ? 0xff : BIT(num_tpc) - 1;
	hw->tpc_enabled_mask_ext = hw->tpc_enabled_mask;
	hw->dram_enabled = 1;
	gaudisim_hw_fw_string(gdev, (char *)hw->cpucp_version, sizeof(hw->cpucp_version));
	strscpy(hw->card_name, GAUDISIM_CARD_NAME, sizeof(hw->card_name));
	hw->dram_page_size = GAUDISIM_DRAM_PAGE_SIZE;
	hw->device_mem_alloc_default_page_size = GAUDISIM_DRAM_PAGE_SIZE;
	hw->revision_id = gdev->pdev->revision;
	hw->reserved_dram_size = GAUDISIM_HBM_USER_BASE;
	hw->module_id = gdev->module_id;
	hw->first_available_interrupt_id = GAUDISIM_MSIX_VEC_USER_FIRST;
	hw->number_of_user_interrupts = GAUDISIM_MSIX_NUM_USER;
}

static void gaudisim_info_hw_ext(struct gaudisim_device *gdev,
				 struct gaudisim_info_hw_ip_ext *hw)
{
	u32 q;

	hw->hbm_total_size = gdev->hbm_size;
	hw->host_base_address = GAUDISIM_HOST_BASE;
	hw->hw_version = gdev->hw_version;
	hw->num_pci_dma = gaudisim_engine_count(gdev, GAUDISIM_ENGINES_PCI_DMA_SHIFT, 4);
	hw->num_hbm_dma = gaudisim_engine_count(gdev, GAUDISIM_ENGINES_HBM_DMA_SHIFT, 4);
	hw->num_mme = gaudisim_engine_count(gdev, GAUDISIM_ENGINES_MME_SHIFT, 4);
	hw->num_tpc = gaudisim_engine_count(gdev, GAUDISIM_ENGINES_TPC_SHIFT, 8);
	hw->num_queues = GAUDISIM_QUEUE_ID_SIZE;
	hw->num_sync_objects = GAUDISIM_SYNC_NUM_SOBS;
	hw->num_monitors = GAUDISIM_SYNC_NUM_MONITORS;
	/* Every queue the device implements takes CS chunks. */
	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		if (gaudisim_queue_present(gdev, q) && gaudisim_queue_engine(q) >= 0)
			hw->queue_mask[q / 64] |= BIT_ULL(q % 64);
	strscpy(hw->card_name, GAUDISIM_CARD_NAME, sizeof(hw->card_name));
	static_assert(sizeof(hw->serial) == sizeof(gdev->serial));
	static_assert(sizeof(hw->uuid) == sizeof(gdev->uuid));
	memcpy(hw->serial, gdev->serial, sizeof(hw->serial));
	memcpy(hw->uuid, gdev->uuid, sizeof(hw->uuid));
	hw->fw_version = gdev->fw_version;
}

static void gaudisim_info_dram(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
			       struct gaudisim_info_dram_usage *dram)
{
	u64 used;

	mutex_lock(&gdev->hbm_lock);
	used = gdev->hbm_used;
	mutex_unlock(&gdev->hbm_lock);

	dram->dram_free_mem = gaudisim_hbm_user_size(gdev) - used;
	if (ctx) {
		mutex_lock(&ctx->mem_lock);
		dram->ctx_dram_mem = ctx->dram_used;
		mutex_unlock(&ctx->mem_lock);
	}
}

/* Busy queues and busy engines; the caller is inside drm_dev_enter(). */
static void gaudisim_busy_masks(struct gaudisim_device *gdev, u64 *queues, u32 *engines)
{
	u32 q, busy_hw[GAUDISIM_ENGINE_COUNT];

	for (q = 0; q < GAUDISIM_ENGINE_COUNT; q++)
		busy_hw[q] = gaudisim_hw_busy_streams(gdev, q);

	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++) {
		bool busy;
		int engine = gaudisim_queue_engine(q);

		if (engine < 0 || !gaudisim_queue_present(gdev, q))
			continue;
		if (GAUDISIM_QUEUE_IS_EXTERNAL(q))
			busy = gaudisim_queue_busy(&gdev->queues[q]);
		else
			busy = gaudisim_iqueue_busy(&gdev->iqueues[q]);
		if (busy || (busy_hw[engine] & BIT(gaudisim_queue_stream(q)))) {
			queues[q / 64] |= BIT_ULL(q % 64);
			*engines |= BIT(gaudisim_hl_engine_id(engine));
		}
	}
}

static void gaudisim_info_idle(struct gaudisim_device *gdev, struct gaudisim_info_hw_idle *idle)
{
	u64 queues[2] = {};

	gaudisim_busy_masks(gdev, queues, &idle->busy_engines_mask);
	idle->busy_engines_mask_ext[0] = idle->busy_engines_mask;
	idle->is_idle = !idle->busy_engines_mask;
}

static void gaudisim_info_queue_idle(struct gaudisim_device *gdev,
				     struct gaudisim_info_queue_idle *idle)
{
	u32 engines = 0;

	gaudisim_busy_masks(gdev, idle->busy_queues_mask, &engines);
	idle->is_idle = !idle->busy_queues_mask[0] && !idle->busy_queues_mask[1];
}

static void gaudisim_info_fill_cs_counters(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
					   struct gaudisim_info_cs_counters *cs)
{
	u64 total[GAUDISIM_DROP_COUNT], mine[GAUDISIM_DROP_COUNT] = {};
	u32 i;

	for (i = 0; i < GAUDISIM_DROP_COUNT; i++) {
		total[i] = atomic64_read(&gdev->cs_cnt.drop[i]);
		if (ctx)
			mine[i] = atomic64_read(&ctx->drop[i]);
	}
	cs->total_out_of_mem_drop_cnt = total[GAUDISIM_DROP_OUT_OF_MEM];
	cs->ctx_out_of_mem_drop_cnt = mine[GAUDISIM_DROP_OUT_OF_MEM];
	cs->total_parsing_drop_cnt = total[GAUDISIM_DROP_PARSING];
	cs->ctx_parsing_drop_cnt = mine[GAUDISIM_DROP_PARSING];
	cs->total_queue_full_drop_cnt = total[GAUDISIM_DROP_QUEUE_FULL];
	cs->ctx_queue_full_drop_cnt = mine[GAUDISIM_DROP_QUEUE_FULL];
	cs->total_device_in_reset_drop_cnt = total[GAUDISIM_DROP_DEVICE_IN_RESET];
	cs->ctx_device_in_reset_drop_cnt = mine[GAUDISIM_DROP_DEVICE_IN_RESET];
	cs->total_max_cs_in_flight_drop_cnt = total[GAUDISIM_DROP_MAX_CS_IN_FLIGHT];
	cs->ctx_max_cs_in_flight_drop_cnt = mine[GAUDISIM_DROP_MAX_CS_IN_FLIGHT];
	cs->total_validation_drop_cnt = total[GAUDISIM_DROP_VALIDATION];
	cs->ctx_validation_drop_cnt = mine[GAUDISIM_DROP_VALIDATION];
}

static void gaudisim_info_cs_stats(struct gaudisim_device *gdev, struct gaudisim_info_cs_stats *cs)
{
	cs->submitted = atomic64_read(&gdev->cs_cnt.submitted);
	cs->completed = atomic64_read(&gdev->cs_cnt.completed);
	cs->errors = atomic64_read(&gdev->cs_cnt.errors);
	cs->timed_out = atomic64_read(&gdev->cs_cnt.timed_out);
}

static void gaudisim_info_open(struct gaudisim_device *gdev,
			       struct gaudisim_info_open_stats *open)
{
	mutex_lock(&gdev->open_lock);
	open->open_counter = gdev->open_counter;
	if (gdev->num_ctxs) {
		struct gaudisim_ctx *first = NULL;
		u32 i;

		/* habanalabs knows one compute user: report the lowest slot's. */
		for (i = 0; i < GAUDISIM_MAX_CONTEXTS && !first; i++)
			first = gdev->ctxs[i];
		open->is_compute_ctx_active = 1;
		open->compute_ctx_in_release = READ_ONCE(first->in_release);
		open->compute_pid = first->pid;
		open->last_open_period_ms = ktime_ms_delta(ktime_get(),
							   gdev->open_time);
	} else {
		open->last_open_period_ms = gdev->last_open_period_ms;
	}
	mutex_unlock(&gdev->open_lock);
}

static u32 gaudisim_tel(struct gaudisim_device *gdev, u32 reg)
{
	return gaudisim_rreg(gdev, GAUDISIM_BLOCK_TELEMETRY + reg);
}

/* A 64-bit telemetry counter: LO first, which latches HI. */
static u64 gaudisim_tel64(struct gaudisim_device *gdev, u32 lo)
{
	u32 low = gaudisim_tel(gdev, lo);

	return (u64)gaudisim_tel(gdev, lo + 4) << 32 | low;
}

static u64 gaudisim_device_time(struct gaudisim_device *gdev)
{
	u32 low = gaudisim_rreg(gdev, GAUDISIM_REG_TIMESTAMP_LO);

	return (u64)gaudisim_rreg(gdev, GAUDISIM_REG_TIMESTAMP_HI) << 32 | low;
}

/* One sample of the activity counters (docs/telemetry.md). */
struct gaudisim_util_sample {
	u64 now;
	u64 card;
	u64 cls[GAUDISIM_TEL_NUM_CLASSES];
	u64 busy[GAUDISIM_ENGINE_COUNT];
};

/* Device time, in-flight time and modelled busy time, inside drm_dev_enter(). */
static int gaudisim_util_sample(struct gaudisim_device *gdev, struct gaudisim_util_sample *s)
{
	u32 e;
	int idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	s->now = gaudisim_device_time(gdev);
	s->card = gaudisim_tel64(gdev, GAUDISIM_TEL_CARD_ACTIVE_NS_LO);
	for (e = 0; e < GAUDISIM_TEL_NUM_CLASSES; e++)
		s->cls[e] = gaudisim_tel64(gdev, GAUDISIM_TEL_CLASS_ACTIVE_NS_LO(e));
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		s->busy[e] = gaudisim_tel64(gdev, GAUDISIM_TEL_ENGINE_BUSY_NS_LO(e));
	drm_dev_exit(idx);
	return 0;
}

/* Percent of @period ns that a counter moved from @a to @b (0 across a reset). */
static u32 gaudisim_util_pct(u64 a, u64 b, u64 period)
{
	if (b < a)
		return 0;
	return min_t(u64, div64_u64((b - a) * 100, period), 100);
}

/*
 * Utilization over the next period_ms: the share of device time in which
 * engines had work in flight, for the card and per class, and the
 * busiest engine's modelled busy time. Sleeps for the period.
 */
static int gaudisim_info_engine_util(struct gaudisim_device *gdev, u32 period_ms,
				     struct gaudisim_info_engine_utilization *u)
{
	struct gaudisim_util_sample *s;
	u64 period;
	u32 e;
	int rc;

	if (period_ms < 100 || period_ms > 1000 || period_ms % 100) {
		gaudisim_dbg(gdev, "period %u ms: must be 100..1000 in steps of 100\n",
			     period_ms);
		return -EINVAL;
	}
	s = kcalloc(2, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	rc = gaudisim_util_sample(gdev, &s[0]);
	if (rc)
		goto out;
	if (msleep_interruptible(period_ms)) {
		rc = -EINTR;
		goto out;
	}
	rc = gaudisim_util_sample(gdev, &s[1]);
	if (rc)
		goto out;
	if (s[1].now <= s[0].now) {
		rc = -EIO;
		goto out;
	}
	period = s[1].now - s[0].now;
	u->period_ns = period;
	u->card = gaudisim_util_pct(s[0].card, s[1].card, period);
	u->dma = gaudisim_util_pct(s[0].cls[GAUDISIM_TEL_CLASS_DMA],
				   s[1].cls[GAUDISIM_TEL_CLASS_DMA], period);
	u->mme = gaudisim_util_pct(s[0].cls[GAUDISIM_TEL_CLASS_MME],
				   s[1].cls[GAUDISIM_TEL_CLASS_MME], period);
	u->tpc = gaudisim_util_pct(s[0].cls[GAUDISIM_TEL_CLASS_TPC],
				   s[1].cls[GAUDISIM_TEL_CLASS_TPC], period);
	u->nic = gaudisim_util_pct(s[0].cls[GAUDISIM_TEL_CLASS_NIC],
				   s[1].cls[GAUDISIM_TEL_CLASS_NIC], period);
	u->busy_ns = 0;
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		if (s[1].busy[e] >= s[0].busy[e])
			u->busy_ns = max(u->busy_ns, s[1].busy[e] - s[0].busy[e]);
out:
	kfree(s);
	return rc;
}

/* DEVICE_UTILIZATION: the card's share of ENGINE_UTILIZATION. */
static int gaudisim_info_utilization(struct gaudisim_device *gdev, u32 period_ms,
				     struct gaudisim_info_device_utilization *util)
{
	struct gaudisim_info_engine_utilization u = {};
	int rc;

	rc = gaudisim_info_engine_util(gdev, period_ms, &u);
	if (!rc)
		util->utilization = u.card;
	return rc;
}

/* KB/s (KB = 1000 bytes, as the real firmware) from @before to @after in @ns. */
static u64 gaudisim_kb_per_s(u64 before, u64 after, u64 ns)
{
	/* A hard reset clears the counters: no rate across it. */
	if (after < before || !ns)
		return 0;
	return div64_u64((after - before) * (NSEC_PER_SEC / 1000), ns);
}

/*
 * PCIe throughput over a 10 ms window, as the real card's firmware
 * measures it; the window is timed with the host clock the sleep uses.
 * Sleeps; the caller is inside drm_dev_enter().
 */
static int gaudisim_info_pci_counters(struct gaudisim_device *gdev,
				      struct gaudisim_info_pci_counters *pci)
{
	u64 rx0, tx0, rx1, tx1, t0, t1;

	/* habanalabs answers this op only while the device is operational. */
	if (gaudisim_status(gdev) != GAUDISIM_DEVICE_STATUS_OPERATIONAL)
		return -EBUSY;

	t0 = ktime_get_ns();
	rx0 = gaudisim_rreg64(gdev, GAUDISIM_REG_PCIE_RX_BYTES_LO,
			      GAUDISIM_REG_PCIE_RX_BYTES_HI);
	tx0 = gaudisim_rreg64(gdev, GAUDISIM_REG_PCIE_TX_BYTES_LO,
			      GAUDISIM_REG_PCIE_TX_BYTES_HI);
	if (msleep_interruptible(GAUDISIM_PCI_COUNTERS_WINDOW_MS))
		return -EINTR;
	rx1 = gaudisim_rreg64(gdev, GAUDISIM_REG_PCIE_RX_BYTES_LO,
			      GAUDISIM_REG_PCIE_RX_BYTES_HI);
	tx1 = gaudisim_rreg64(gdev, GAUDISIM_REG_PCIE_TX_BYTES_LO,
			      GAUDISIM_REG_PCIE_TX_BYTES_HI);
	t1 = ktime_get_ns();

	pci->rx_throughput = gaudisim_kb_per_s(rx0, rx1, t1 - t0);
	pci->tx_throughput = gaudisim_kb_per_s(tx0, tx1, t1 - t0);
	pci->replay_cnt = gaudisim_rreg(gdev, GAUDISIM_REG_PCIE_REPLAY_CNT);
	return 0;
}

static void gaudisim_info_throttle(struct gaudisim_device *gdev,
				   struct gaudisim_info_clk_throttle *th)
{
	u32 reason = gaudisim_tel(gdev, GAUDISIM_TEL_THROTTLE);
	u64 now_us = ktime_to_us(ktime_get());
	u32 i;

	static_assert(GAUDISIM_TEL_THROTTLE_POWER == GAUDISIM_CLK_THROTTLE_POWER);
	static_assert(GAUDISIM_TEL_THROTTLE_THERMAL == GAUDISIM_CLK_THROTTLE_THERMAL);

	th->clk_throttling_reason = reason & (GAUDISIM_CLK_THROTTLE_POWER |
					      GAUDISIM_CLK_THROTTLE_THERMAL);
	th->clk_throttling_duration_ns[GAUDISIM_CLK_THROTTLE_TYPE_POWER] =
		gaudisim_tel64(gdev, GAUDISIM_TEL_THROTTLE_POWER_NS_LO);
	th->clk_throttling_duration_ns[GAUDISIM_CLK_THROTTLE_TYPE_THERMAL] =
		gaudisim_tel64(gdev, GAUDISIM_TEL_THROTTLE_THERMAL_NS_LO);

	/* The device keeps no start time: remember when INFO first saw it. */
	spin_lock(&gdev->err_lock);
	for (i = 0; i < GAUDISIM_CLK_THROTTLE_TYPE_MAX; i++) {
		if (!(reason & BIT(i)))
			gdev->throttle_since_us[i] = 0;
		else if (!gdev->throttle_since_us[i])
			gdev->throttle_since_us[i] = now_us;
		th->clk_throttling_timestamp_us[i] = gdev->throttle_since_us[i];
	}
	spin_unlock(&gdev->err_lock);
}

/* The device's clock model answers for every PLL, in habanalabs' order. */
static int gaudisim_info_pll(struct gaudisim_device *gdev, u32 index,
			     struct gaudisim_pll_frequency_info *pll)
{
	u32 i;

	BUILD_BUG_ON(GAUDISIM_TEL_NUM_PLLS != GAUDISIM_PLL_MAX);
	BUILD_BUG_ON(GAUDISIM_TEL_PLL_OUTPUTS != GAUDISIM_PLL_NUM_OUTPUTS);
	BUILD_BUG_ON(GAUDISIM_TEL_PLL_MME != GAUDISIM_MME_PLL);
	if (index >= GAUDISIM_PLL_MAX) {
		gaudisim_dbg(gdev, "no PLL %u\n", index);
		return -EINVAL;
	}
	for (i = 0; i < GAUDISIM_PLL_NUM_OUTPUTS; i++)
		pll->output[i] = min_t(u32, gaudisim_tel(gdev, GAUDISIM_TEL_PLL_MHZ(index, i)),
				       U16_MAX);
	return 0;
}

/*
 * ENGINE_STATUS: a table like habanalabs' idle dump, one line per engine,
 * into a kernel buffer of @size bytes; returns the bytes used, NUL included.
 */
static u32 gaudisim_engine_status(struct gaudisim_device *gdev, char *buf, u32 size)
{
	u32 e, len;

	len = scnprintf(buf, size, "\nENGINE  is_idle  QM_BUSY_STREAMS  BUSY_NS\n"
			"------  -------  ---------------  -------\n");
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		u32 streams = gaudisim_hw_busy_streams(gdev, e);

		len += scnprintf(buf + len, size - len, "%-6s  %-7s  0x%-13x  %llu\n",
				 gaudisim_engine_name(e), streams ? "N" : "Y", streams,
				 gaudisim_tel64(gdev, GAUDISIM_TEL_ENGINE_BUSY_NS_LO(e)));
	}
	return len + 1;
}

static int gaudisim_info_engine_status(struct gaudisim_device *gdev,
				       struct gaudisim_info_args *args)
{
	u32 size = min_t(u32, args->return_size, GAUDISIM_ENGINES_DATA_MAX_SIZE);
	char *buf;
	u32 used;
	int rc = 0;

	buf = kvzalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	used = gaudisim_engine_status(gdev, buf, size);
	if (copy_to_user(u64_to_user_ptr(args->return_pointer), buf, used))
		rc = -EFAULT;
	else
		args->user_buffer_actual_size = used;
	kvfree(buf);
	return rc;
}

/* Ops that take the argument union; for the rest it must be 0. */
static bool gaudisim_info_takes_arg(u32 op)
{
	switch (op) {
	case GAUDISIM_INFO_SYNC_MANAGER:
	case GAUDISIM_INFO_DEVICE_UTILIZATION:
	case GAUDISIM_INFO_ENGINE_UTILIZATION:
	case GAUDISIM_INFO_PLL_FREQUENCY:
	case GAUDISIM_INFO_REGISTER_EVENTFD:
	case GAUDISIM_INFO_UNREGISTER_EVENTFD:	/* hl-thunk passes the fd; unused */
	case GAUDISIM_INFO_ENGINE_STATUS:
		return true;
	default:
		return false;
	}
}

/* Ops that read device registers, answered inside drm_dev_enter(). */
static int gaudisim_info_hw_op(struct gaudisim_device *gdev, struct gaudisim_info_args *args,
			       union gaudisim_info_buf *buf, u32 *size)
{
	switch (args->op) {
	case GAUDISIM_INFO_HW_IDLE:
		gaudisim_info_idle(gdev, &buf->idle);
		*size = sizeof(buf->idle);
		return 0;
	case GAUDISIM_INFO_QUEUE_IDLE:
		gaudisim_info_queue_idle(gdev, &buf->qidle);
		*size = sizeof(buf->qidle);
		return 0;
	case GAUDISIM_INFO_CLK_RATE:
		buf->clk.cur_clk_rate_mhz = gaudisim_tel(gdev, GAUDISIM_TEL_CLOCK_MHZ);
		buf->clk.max_clk_rate_mhz = gaudisim_tel(gdev, GAUDISIM_TEL_CLOCK_MAX_MHZ);
		*size = sizeof(buf->clk);
		return 0;
	case GAUDISIM_INFO_TIME_SYNC:
		buf->time.device_time = gaudisim_device_time(gdev);
		buf->time.host_time = ktime_get_raw_ns();
		buf->time.tsc_time = get_cycles();
		*size = sizeof(buf->time);
		return 0;
	case GAUDISIM_INFO_CLK_THROTTLE_REASON:
		gaudisim_info_throttle(gdev, &buf->throttle);
		*size = sizeof(buf->throttle);
		return 0;
	case GAUDISIM_INFO_TOTAL_ENERGY:
		buf->energy.total_energy_consumption =
			gaudisim_tel64(gdev, GAUDISIM_TEL_ENERGY_MJ_LO);
		*size = sizeof(buf->energy);
		return 0;
	case GAUDISIM_INFO_PLL_FREQUENCY:
		*size = sizeof(buf->pll);
		return gaudisim_info_pll(gdev, args->pll_index, &buf->pll);
	case GAUDISIM_INFO_POWER:
		buf->power.power = gaudisim_tel(gdev, GAUDISIM_TEL_POWER_MW);
		*size = sizeof(buf->power);
		return 0;
	case GAUDISIM_INFO_ENGINE_STATUS:
		*size = 0;
		return gaudisim_info_engine_status(gdev, args);
	case GAUDISIM_INFO_NIC_LINKS:
		gaudisim_nic_info(gdev, &buf->nic);
		*size = sizeof(buf->nic);
		return 0;
	case GAUDISIM_INFO_PCI_COUNTERS:
		*size = sizeof(buf->pci);
		return gaudisim_info_pci_counters(gdev, &buf->pci);
	default:
		return -ENOENT;
	}
}

/*
 * The last captured error of an *_EVENT op: the caller's own on a compute
 * file, every context's on the control node. Returns the struct's size.
 */
static u32 gaudisim_info_captured(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
				  u32 op, union gaudisim_info_buf *buf)
{
	struct gaudisim_captured_errors *err = ctx ? &gdev->ctx_errors[ctx->asid] :
						     &gdev->errors;
	u32 size;

	spin_lock(&gdev->err_lock);
	switch (op) {
	case GAUDISIM_INFO_LAST_ERR_OPEN_DEV_TIME:
		buf->open_dev.timestamp = err->open_dev_time;
		size = sizeof(buf->open_dev);
		break;
	case GAUDISIM_INFO_CS_TIMEOUT_EVENT:
		buf->cs_timeout = err->cs_timeout;
		size = sizeof(buf->cs_timeout);
		break;
	case GAUDISIM_INFO_RAZWI_EVENT:
		buf->razwi = err->razwi;
		size = sizeof(buf->razwi);
		break;
	case GAUDISIM_INFO_UNDEFINED_OPCODE_EVENT:
		buf->undef = err->undef_opcode;
		size = sizeof(buf->undef);
		break;
	default:
		buf->page_fault = err->page_fault;
		size = sizeof(buf->page_fault);
		break;
	}
	spin_unlock(&gdev->err_lock);
	return size;
}

/* Ops answered from driver state alone; -ENOENT for an unknown op. */
static int gaudisim_info_sw_op(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
			       struct gaudisim_info_args *args, union gaudisim_info_buf *buf,
			       u32 *size)
{
	switch (args->op) {
	case GAUDISIM_INFO_HW_IP_INFO:
		gaudisim_info_hw_ip(gdev, &buf->hw_ip);
		/* A context sharing the device gets its own user interrupts. */
		if (ctx) {
			buf->hw_ip.first_available_interrupt_id = ctx->uirq_first;
			buf->hw_ip.number_of_user_interrupts = ctx->uirq_count;
		}
		*size = sizeof(buf->hw_ip);
		return 0;
	case GAUDISIM_INFO_HW_IP_EXT:
		gaudisim_info_hw_ext(gdev, &buf->hw_ext);
		*size = sizeof(buf->hw_ext);
		return 0;
	case GAUDISIM_INFO_HW_EVENTS:
	case GAUDISIM_INFO_HW_EVENTS_AGGREGATE:
		gaudisim_eq_counts(gdev, buf->hw_events,
				   args->op == GAUDISIM_INFO_HW_EVENTS_AGGREGATE);
		*size = sizeof(buf->hw_events);
		return 0;
	case GAUDISIM_INFO_DRAM_USAGE:
		gaudisim_info_dram(gdev, ctx, &buf->dram);
		*size = sizeof(buf->dram);
		return 0;
	case GAUDISIM_INFO_DEVICE_STATUS:
		buf->status.status = gaudisim_status(gdev);
		*size = sizeof(buf->status);
		return 0;
	case GAUDISIM_INFO_DEVICE_UTILIZATION:
		*size = sizeof(buf->util);
		return gaudisim_info_utilization(gdev, args->period_ms, &buf->util);
	case GAUDISIM_INFO_ENGINE_UTILIZATION:
		*size = sizeof(buf->eng_util);
		return gaudisim_info_engine_util(gdev, args->period_ms, &buf->eng_util);
	case GAUDISIM_INFO_RESET_COUNT:
		buf->reset.hard_reset_cnt = atomic_read(&gdev->hard_reset_cnt);
		*size = sizeof(buf->reset);
		return 0;
	case GAUDISIM_INFO_CS_COUNTERS:
		gaudisim_info_fill_cs_counters(gdev, ctx, &buf->cs);
		*size = sizeof(buf->cs);
		return 0;
	case GAUDISIM_INFO_CS_STATS:
		gaudisim_info_cs_stats(gdev, &buf->cs_stats);
		*size = sizeof(buf->cs_stats);
		return 0;
	case GAUDISIM_INFO_SYNC_MANAGER:
		/* The one sync manager stands for each of Gaudi's dcores. */
		if (args->dcore_id >= GAUDISIM_DCORE_MAX) {
			gaudisim_dbg(gdev, "no dcore %u: Gaudi has %u\n", args->dcore_id,
				     GAUDISIM_DCORE_MAX);
			return -EINVAL;
		}
		/* A context sharing the device gets its slice (docs/contexts.md). */
		buf->sync.first_available_sync_object =
			ctx ? ctx->sob_first : GAUDISIM_SYNC_FIRST_USER_SOB;
		buf->sync.first_available_monitor =
			ctx ? ctx->mon_first : GAUDISIM_SYNC_FIRST_USER_MON;
		*size = sizeof(buf->sync);
		return 0;
	case GAUDISIM_INFO_OPEN_STATS:
		gaudisim_info_open(gdev, &buf->open);
		*size = sizeof(buf->open);
		return 0;
	case GAUDISIM_INFO_LAST_ERR_OPEN_DEV_TIME:
	case GAUDISIM_INFO_CS_TIMEOUT_EVENT:
	case GAUDISIM_INFO_RAZWI_EVENT:
	case GAUDISIM_INFO_UNDEFINED_OPCODE_EVENT:
	case GAUDISIM_INFO_PAGE_FAULT_EVENT:
		*size = gaudisim_info_captured(gdev, ctx, args->op, buf);
		return 0;
	case GAUDISIM_INFO_DEV_MEM_ALLOC_PAGE_SIZES:
		/* As habanalabs on Gaudi: one HBM page size, no choice offered. */
		buf->page_sizes.page_order_bitmask = 0;
		*size = sizeof(buf->page_sizes);
		return 0;
	case GAUDISIM_INFO_REGISTER_EVENTFD:
		*size = 0;
		return ctx ? gaudisim_notifier_register(gdev, ctx, args->eventfd) : -EOPNOTSUPP;
	case GAUDISIM_INFO_UNREGISTER_EVENTFD:
		*size = 0;
		return ctx ? gaudisim_notifier_unregister(gdev, ctx) : -EOPNOTSUPP;
	case GAUDISIM_INFO_GET_EVENTS:
		*size = sizeof(buf->events);
		return ctx ? gaudisim_notifier_get_events(gdev, ctx, &buf->events) : -EOPNOTSUPP;
	case GAUDISIM_INFO_DRIVER_VERSION:
		strscpy(buf->version.version, GAUDISIM_DRIVER_VERSION,
			sizeof(buf->version.version));
		*size = sizeof(buf->version);
		return 0;
	default:
		return -ENOENT;
	}
}

/**
 * gaudisim_info_query() - answer an INFO request
 * @gdev: the device
 * @ctx: the caller's compute context, NULL on the control node
 * @args: the request; ENGINE_STATUS writes user_buffer_actual_size back
 *
 * Return: 0, -EINVAL for a bad request, -EOPNOTSUPP for a notifier op on
 * the control node, -EFAULT, -EINTR,
 * -ENODEV after removal.
 */
int gaudisim_info_query(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
			struct gaudisim_info_args *args)
{
	union gaudisim_info_buf *buf;
	u32 size = 0;
	int rc, idx;

	/* REGISTER and UNREGISTER return nothing: they need no buffer. */
	if (args->op != GAUDISIM_INFO_REGISTER_EVENTFD &&
	    args->op != GAUDISIM_INFO_UNREGISTER_EVENTFD &&
	    (!args->return_pointer || !args->return_size)) {
		gaudisim_dbg(gdev, "return pointer and size must not be 0\n");
		return -EINVAL;
	}
	if (args->pad || (!gaudisim_info_takes_arg(args->op) && args->ctx_id)) {
		gaudisim_dbg(gdev, "pad and the argument of op %u must be 0\n", args->op);
		return -EINVAL;
	}
	if (args->op == GAUDISIM_INFO_ENGINE_STATUS)
		args->user_buffer_actual_size = 0;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	rc = gaudisim_info_sw_op(gdev, ctx, args, buf, &size);
	if (rc == -ENOENT) {
		/* The registers are gone once the device is removed. */
		if (!drm_dev_enter(&gdev->drm, &idx)) {
			rc = -ENODEV;
			goto out;
		}
		rc = gaudisim_info_hw_op(gdev, args, buf, &size);
		drm_dev_exit(idx);
	}
	if (rc == -ENOENT) {
		gaudisim_dbg(gdev, "unknown INFO op %u\n", args->op);
		rc = -EINVAL;
	}
	if (!rc && size &&
	    copy_to_user(u64_to_user_ptr(args->return_pointer), buf,
			 min(args->return_size, size)))
		rc = -EFAULT;
out:
	kfree(buf);
	return rc;
}

int gaudisim_info_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	return gaudisim_info_query(to_gaudisim(drm), file->driver_priv, data);
}
