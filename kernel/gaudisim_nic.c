// SPDX-License-Identifier: GPL-2.0
/*
 * NIC ports (include/hw/gaudisim_hw_nic.h, docs/nic.md).
 *
 * User command buffers on the NIC queues program and launch the transfers
 * themselves (the TX registers are writable from CBs, like every
 * engine's), so the driver decides what peers may touch here:
 *
 *  - every port's receive window is the user HBM range and its SOB range
 *    the users' sync objects: a fence that keeps the driver's reserved
 *    HBM, SOBs and monitors out of reach whatever is registered;
 *  - inside it, a peer's write lands only where a context of this device
 *    registered it (MEMORY NIC_REGISTER, like RDMA memory registration):
 *    its own HBM and its own SOBs, checked here, programmed into the
 *    device's registration table (MMIO only). Nothing registered, nothing
 *    lands. FREE drops the registrations over the memory freed, close
 *    drops all of the context's.
 *
 * The device clears these registers on every hard reset, so they are
 * programmed again from @gdev->nic_mr with the queues after one.
 */

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/overflow.h>

#include <drm/drm_drv.h>

#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
#include "gaudisim_mem.h"
#include "gaudisim_nic.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_sync.h"

static u32 gaudisim_nic_reg(u32 port, u32 off)
{
	return GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0 + port) + off;
}

static u32 gaudisim_nic_ports(struct gaudisim_device *gdev)
{
	u32 n = GAUDISIM_ENGINES_FIELD(gdev->engines, GAUDISIM_ENGINES_NIC_SHIFT, 4);

	if (!(gdev->caps & GAUDISIM_CAP_NIC))
		return 0;
	return min_t(u32, n, GAUDISIM_NUM_NIC);
}

static void gaudisim_nic_mr_wr(struct gaudisim_device *gdev, u32 i, u32 off, u32 value)
{
	gaudisim_wreg(gdev, GAUDISIM_BLOCK_NIC_RX + GAUDISIM_NIC_RX_MR(i) + off, value);
}

/* Entry @i as @gdev->nic_mr says; invalid first, so no half entry is live. */
static void gaudisim_nic_mr_program(struct gaudisim_device *gdev, u32 i)
{
	const struct gaudisim_nic_mr *mr = &gdev->nic_mr[i];

	lockdep_assert_held(&gdev->nic_lock);
	gaudisim_nic_mr_wr(gdev, i, GAUDISIM_NIC_RX_MR_CTRL, 0);
	if (!mr->owner)
		return;
	gaudisim_nic_mr_wr(gdev, i, GAUDISIM_NIC_RX_MR_ADDR_LO, lower_32_bits(mr->addr));
	gaudisim_nic_mr_wr(gdev, i, GAUDISIM_NIC_RX_MR_ADDR_HI, upper_32_bits(mr->addr));
	gaudisim_nic_mr_wr(gdev, i, GAUDISIM_NIC_RX_MR_SIZE_LO, lower_32_bits(mr->size));
	gaudisim_nic_mr_wr(gdev, i, GAUDISIM_NIC_RX_MR_SIZE_HI, upper_32_bits(mr->size));
	gaudisim_nic_mr_wr(gdev, i, GAUDISIM_NIC_RX_MR_SOB_FIRST, mr->sob_first);
	gaudisim_nic_mr_wr(gdev, i, GAUDISIM_NIC_RX_MR_SOB_COUNT, mr->sob_count);
	gaudisim_nic_mr_wr(gdev, i, GAUDISIM_NIC_RX_MR_CTRL, GAUDISIM_NIC_RX_MR_VALID |
			   (mr->owner->asid & GAUDISIM_NIC_RX_MR_ASID_MASK) <<
			   GAUDISIM_NIC_RX_MR_ASID_SHIFT);
}

/* Free entry @i and close it on the device (when it is still there). */
static void gaudisim_nic_mr_drop(struct gaudisim_device *gdev, u32 i)
{
	int idx;

	lockdep_assert_held(&gdev->nic_lock);
	gdev->nic_mr[i] = (struct gaudisim_nic_mr){ 0 };
	if (!drm_dev_enter(&gdev->drm, &idx))
		return;
	gaudisim_nic_mr_program(gdev, i);
	drm_dev_exit(idx);
}

/* HBM peers may write for @ctx: user HBM; a shared context's own allocation. */
static int gaudisim_nic_check_hbm(struct gaudisim_ctx *ctx, u64 addr, u64 size)
{
	struct gaudisim_device *gdev = ctx->gdev;
	bool owned;
	u64 end;

	if (!size)
		return addr ? -EINVAL : 0;
	if (check_add_overflow(addr, size, &end) || addr < GAUDISIM_HBM_USER_BASE ||
	    end > gdev->hbm_size) {
		gaudisim_dbg(gdev, "NIC registration 0x%llx + 0x%llx is not user HBM\n",
			     addr, size);
		return -EINVAL;
	}
	if (!ctx->shared)
		return 0;
	mutex_lock(&ctx->mem_lock);
	owned = gaudisim_mem_owns_hbm(ctx, addr, size);
	mutex_unlock(&ctx->mem_lock);
	if (!owned) {
		gaudisim_dbg(gdev, "NIC registration 0x%llx + 0x%llx is not an allocation of this context\n",
			     addr, size);
		return -EPERM;
	}
	return 0;
}

int gaudisim_nic_register(struct gaudisim_ctx *ctx, u64 addr, u64 size, u32 sob_first,
			  u32 sob_count, u64 *handle)
{
	struct gaudisim_device *gdev = ctx->gdev;
	u32 i, free = GAUDISIM_NIC_RX_NUM_MR, mine = 0;
	int rc, idx;

	if (!size && !sob_count) {
		gaudisim_dbg(gdev, "NIC registration of no memory and no SOB\n");
		return -EINVAL;
	}
	if (sob_count && (sob_first < ctx->sob_first || sob_first >= ctx->sob_end ||
			  sob_count > ctx->sob_end - sob_first)) {
		gaudisim_dbg(gdev, "NIC registration of SOBs %u + %u: the context has %u..%u\n",
			     sob_first, sob_count, ctx->sob_first, ctx->sob_end - 1);
		return -EPERM;
	}
	if (!sob_count && sob_first) {
		gaudisim_dbg(gdev, "NIC registration: sob_first without sob_count\n");
		return -EINVAL;
	}
	rc = gaudisim_nic_check_hbm(ctx, addr, size);
	if (rc)
		return rc;

	mutex_lock(&gdev->nic_lock);
	for (i = 0; i < GAUDISIM_NIC_RX_NUM_MR; i++) {
		if (gdev->nic_mr[i].owner == ctx)
			mine++;
		else if (!gdev->nic_mr[i].owner && free == GAUDISIM_NIC_RX_NUM_MR)
			free = i;
	}
	/* Contexts sharing the device share the table evenly. */
	if (free == GAUDISIM_NIC_RX_NUM_MR ||
	    mine >= GAUDISIM_NIC_RX_NUM_MR / gaudisim_max_contexts) {
		mutex_unlock(&gdev->nic_lock);
		gaudisim_dbg(gdev, "no NIC registration left (%u held by this context)\n", mine);
		return -ENOSPC;
	}
	if (!drm_dev_enter(&gdev->drm, &idx)) {
		mutex_unlock(&gdev->nic_lock);
		return -ENODEV;
	}
	gdev->nic_mr[free] = (struct gaudisim_nic_mr){
		.owner = ctx, .addr = addr, .size = size,
		.sob_first = sob_first, .sob_count = sob_count,
	};
	gaudisim_nic_mr_program(gdev, free);
	drm_dev_exit(idx);
	mutex_unlock(&gdev->nic_lock);
	*handle = free + 1;
	return 0;
}

int gaudisim_nic_deregister(struct gaudisim_ctx *ctx, u64 handle)
{
	struct gaudisim_device *gdev = ctx->gdev;
	int rc = -EINVAL;

	mutex_lock(&gdev->nic_lock);
	if (handle && handle <= GAUDISIM_NIC_RX_NUM_MR && gdev->nic_mr[handle - 1].owner == ctx) {
		gaudisim_nic_mr_drop(gdev, handle - 1);
		rc = 0;
	}
	mutex_unlock(&gdev->nic_lock);
	if (rc)
		gaudisim_dbg(gdev, "no NIC registration with handle %llu\n", handle);
	return rc;
}

void gaudisim_nic_drop_range(struct gaudisim_ctx *ctx, u64 addr, u64 size)
{
	struct gaudisim_device *gdev = ctx->gdev;
	u32 i;

	mutex_lock(&gdev->nic_lock);
	for (i = 0; i < GAUDISIM_NIC_RX_NUM_MR; i++) {
		const struct gaudisim_nic_mr *mr = &gdev->nic_mr[i];

		if (mr->owner == ctx && mr->size && mr->addr < addr + size &&
		    addr < mr->addr + mr->size)
			gaudisim_nic_mr_drop(gdev, i);
	}
	mutex_unlock(&gdev->nic_lock);
}

void gaudisim_nic_ctx_release(struct gaudisim_ctx *ctx)
{
	struct gaudisim_device *gdev = ctx->gdev;
	u32 i;

	mutex_lock(&gdev->nic_lock);
	for (i = 0; i < GAUDISIM_NIC_RX_NUM_MR; i++)
		if (gdev->nic_mr[i].owner == ctx)
			gaudisim_nic_mr_drop(gdev, i);
	mutex_unlock(&gdev->nic_lock);
}

void gaudisim_nic_hw_init(struct gaudisim_device *gdev)
{
	u64 base = GAUDISIM_HBM_USER_BASE, size = gaudisim_hbm_user_size(gdev);
	u32 i, port, n = gaudisim_nic_ports(gdev);

	for (port = 0; port < n; port++) {
		gaudisim_wreg(gdev, gaudisim_nic_reg(port, GAUDISIM_NIC_RX_WIN_BASE_LO),
			      lower_32_bits(base));
		gaudisim_wreg(gdev, gaudisim_nic_reg(port, GAUDISIM_NIC_RX_WIN_BASE_HI),
			      upper_32_bits(base));
		gaudisim_wreg(gdev, gaudisim_nic_reg(port, GAUDISIM_NIC_RX_WIN_SIZE_LO),
			      lower_32_bits(size));
		gaudisim_wreg(gdev, gaudisim_nic_reg(port, GAUDISIM_NIC_RX_WIN_SIZE_HI),
			      upper_32_bits(size));
		gaudisim_wreg(gdev, gaudisim_nic_reg(port, GAUDISIM_NIC_RX_SOB_FIRST),
			      GAUDISIM_SYNC_FIRST_USER_SOB);
		gaudisim_wreg(gdev, gaudisim_nic_reg(port, GAUDISIM_NIC_RX_SOB_COUNT),
			      GAUDISIM_SYNC_NUM_SOBS - GAUDISIM_SYNC_FIRST_USER_SOB);
		gaudisim_wreg(gdev, gaudisim_nic_reg(port, GAUDISIM_NIC_RX_ENABLE), 1);
	}
	mutex_lock(&gdev->nic_lock);
	for (i = 0; i < GAUDISIM_NIC_RX_NUM_MR; i++)
		gaudisim_nic_mr_program(gdev, i);
	mutex_unlock(&gdev->nic_lock);
}

static u32 gaudisim_nic_rd(struct gaudisim_device *gdev, u32 port, u32 off)
{
	return gaudisim_rreg(gdev, gaudisim_nic_reg(port, off));
}

/* A 64-bit counter: the read of LO latches HI. */
static u64 gaudisim_nic_rd64(struct gaudisim_device *gdev, u32 port, u32 lo)
{
	u64 v = gaudisim_nic_rd(gdev, port, lo);

	return v | (u64)gaudisim_nic_rd(gdev, port, lo + 4) << 32;
}

void gaudisim_nic_info(struct gaudisim_device *gdev, struct gaudisim_info_nic_links *links)
{
	u32 port, n = gaudisim_nic_ports(gdev);

	links->module_id = gdev->module_id;
	links->num_ports = n;
	for (port = 0; port < n; port++) {
		struct gaudisim_info_nic_port *p = &links->port[port];
		u32 st = gaudisim_nic_rd(gdev, port, GAUDISIM_NIC_LINK_STATUS);

		/* The uAPI bits are the register's. */
		p->link = st & (GAUDISIM_NIC_LINK_UP | GAUDISIM_NIC_LINK_CABLED |
				GAUDISIM_NIC_LINK_SCALEOUT);
		p->peer_module = GAUDISIM_NIC_LINK_FIELD(st, GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT);
		p->peer_port = GAUDISIM_NIC_LINK_FIELD(st, GAUDISIM_NIC_LINK_PEER_PORT_SHIFT);
		p->tx_bytes = gaudisim_nic_rd64(gdev, port, GAUDISIM_NIC_TX_BYTES_LO);
		p->rx_bytes = gaudisim_nic_rd64(gdev, port, GAUDISIM_NIC_RX_BYTES_LO);
		p->tx_xfers = gaudisim_nic_rd(gdev, port, GAUDISIM_NIC_TX_XFERS);
		p->rx_xfers = gaudisim_nic_rd(gdev, port, GAUDISIM_NIC_RX_XFERS);
		p->tx_errors = gaudisim_nic_rd(gdev, port, GAUDISIM_NIC_TX_ERRS);
		p->rx_refused = gaudisim_nic_rd(gdev, port, GAUDISIM_NIC_RX_REFUSED);
		p->link_down_count = gaudisim_nic_rd(gdev, port, GAUDISIM_NIC_LINK_DOWN_CNT);
	}
}
