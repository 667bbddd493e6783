// SPDX-License-Identifier: GPL-2.0
/*
 * NIC ports (include/hw/gaudisim_hw_nic.h, docs/nic.md).
 *
 * The driver's part is small: user command buffers on the NIC queues
 * program and launch the transfers themselves (the TX registers are
 * writable from CBs, like every engine's), so the driver only decides
 * what peers may touch here. Every port's receive window is the user HBM
 * range and its SOB range the users' sync objects; the driver's reserved
 * HBM, SOBs and monitors stay out of reach. The device clears these
 * registers on every hard reset, so they are programmed again with the
 * queues after one.
 *
 * Only one process owns a device's compute node at a time, and every
 * peer's write lands in the user range; a process that wants no peer
 * traffic does not open the peers' devices.
 */

#include <linux/bits.h>
#include <linux/kernel.h>

#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
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

void gaudisim_nic_hw_init(struct gaudisim_device *gdev)
{
	u64 base = GAUDISIM_HBM_USER_BASE, size = gaudisim_hbm_user_size(gdev);
	u32 port, n = gaudisim_nic_ports(gdev);

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
