/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: the NIC ports (Gaudi's ten on-chip 100 GbE
 * RoCE v2 ports) and the links between devices.
 *
 * Each port is an engine (GAUDISIM_ENGINE_NIC_0 + port) with its own QMAN
 * (queue IDs GAUDISIM_QUEUE_ID_NIC_0_0 + 4 * port + stream, Gaudi's 73..112).
 * A port does RDMA-style writes: it copies SIZE bytes from local device
 * memory (HBM or SRAM) into the HBM of the device at the other end of its
 * link, then applies one sync-object update on that device's sync manager,
 * so the receiver's queues can FENCE on the data's arrival. The local
 * completion (the engine's WR_COMP message) follows once the peer has
 * accepted the write, or with an error when it did not.
 *
 * Link topology (like an HLS-1 box): up to 8 devices share a fabric and
 * are linked all-to-all through ports 0..6; port p of module m reaches
 * module gaudisim_nic_intra_peer(m, p). Ports 7..9 are scale-out ports:
 * port p of module m in one box is cabled to port p of module m in
 * another box (another QEMU process). docs/nic.md has the details.
 *
 * Security, like RDMA memory registration: a peer can only write HBM and
 * signal sync objects that the receiving device's owner registered (the
 * GAUDISIM_BLOCK_NIC_RX entries below), inside the port's receive window
 * (the driver's fence around user memory). Both are MMIO only: command
 * buffers get GAUDISIM_CP_ERR_PRIV. A write outside them, or into a
 * device with nothing registered, is refused: the sender's launch fails
 * with GAUDISIM_NIC_ERR_REMOTE_ACCESS and the receiver posts a
 * GAUDISIM_EQ_EVENT_NIC_ERR; nothing is written.
 */
#ifndef GAUDISIM_HW_NIC_H
#define GAUDISIM_HW_NIC_H

#include "gaudisim_hw_queues.h"

#define GAUDISIM_NIC_NUM_PORTS		10
#define GAUDISIM_NIC_INTRA_PORTS	7	/* ports 0..6: all-to-all in a box */
#define GAUDISIM_NIC_FIRST_SCALEOUT	7	/* ports 7..9: box to box */
#define GAUDISIM_NIC_MAX_MODULES	8	/* devices per box (fabric) */

/* One port's transfer limit; larger copies are split by software. */
#define GAUDISIM_NIC_MAX_XFER		(256u << 20)

/* ---- Registers, offsets inside the NIC engine's block ------------------ */

/* RO: link state of this port. */
#define GAUDISIM_NIC_LINK_STATUS	0x000
#define GAUDISIM_NIC_LINK_UP		(1u << 0)	/* cabled and not cut */
#define GAUDISIM_NIC_LINK_CABLED	(1u << 1)	/* a peer is attached */
#define GAUDISIM_NIC_LINK_SCALEOUT	(1u << 2)	/* peer in another box */
#define GAUDISIM_NIC_LINK_PEER_MODULE_SHIFT 8		/* [15:8] peer's module ID */
#define GAUDISIM_NIC_LINK_PEER_PORT_SHIFT 16		/* [23:16] peer's port */
#define GAUDISIM_NIC_LINK_FIELD(v, shift) (((v) >> (shift)) & 0xffu)

/* Transfer descriptor, writable from MMIO and from the port's CBs. */
#define GAUDISIM_NIC_TX_SRC_LO		0x010	/* local device address */
#define GAUDISIM_NIC_TX_SRC_HI		0x014
#define GAUDISIM_NIC_TX_DST_LO		0x018	/* HBM address on the peer */
#define GAUDISIM_NIC_TX_DST_HI		0x01C
#define GAUDISIM_NIC_TX_SIZE		0x020	/* bytes, <= GAUDISIM_NIC_MAX_XFER; 0: signal only */
/*
 * Sync-object update applied on the peer after the payload landed:
 * REMOTE_SOB [10:0] the SOB index, [31] enable; REMOTE_SOB_DATA in the
 * so_upd format of gaudisim_hw_sync.h (usually GAUDISIM_SYNC_SOB_ADD(1)).
 */
#define GAUDISIM_NIC_TX_REMOTE_SOB	0x024
#define GAUDISIM_NIC_TX_REMOTE_SOB_EN	(1u << 31)
#define GAUDISIM_NIC_TX_REMOTE_SOB_MASK	0x7ffu
#define GAUDISIM_NIC_TX_REMOTE_SOB_DATA	0x028
/* WO: write 1 to launch the transfer described above (the engine's COMMIT). */
#define GAUDISIM_NIC_TX_COMMIT		0x030

/*
 * Receive side, MMIO only (the driver's): the fence around what peers may
 * ever touch through this port (the user HBM and SOBs); a write must also
 * be registered (below). RX_ENABLE 0 refuses every incoming write.
 */
#define GAUDISIM_NIC_RX_WIN_BASE_LO	0x100	/* HBM address */
#define GAUDISIM_NIC_RX_WIN_BASE_HI	0x104
#define GAUDISIM_NIC_RX_WIN_SIZE_LO	0x108	/* bytes */
#define GAUDISIM_NIC_RX_WIN_SIZE_HI	0x10C
#define GAUDISIM_NIC_RX_SOB_FIRST	0x110	/* first SOB peers may update */
#define GAUDISIM_NIC_RX_SOB_COUNT	0x114
#define GAUDISIM_NIC_RX_ENABLE		0x118	/* [0] */

/*
 * Receive registrations in GAUDISIM_BLOCK_NIC_RX (gaudisim_hw_regs.h),
 * device-wide and MMIO only: the driver programs them for the contexts
 * that registered (docs/nic.md). Entry i grants
 * peers the HBM range [ADDR, ADDR + SIZE) and the SOBs [SOB_FIRST,
 * SOB_FIRST + SOB_COUNT) while CTRL bit 0 is set; either range may be
 * empty. An incoming payload must lie inside one valid entry's HBM range
 * and its SOB update inside one valid entry's SOB range. CTRL [15:8]
 * holds the registering context's ASID (read back for diagnostics; the
 * check does not use it). A hard reset clears every entry.
 */
#define GAUDISIM_NIC_RX_NUM_MR		32
#define GAUDISIM_NIC_RX_MR_STRIDE	0x20
#define GAUDISIM_NIC_RX_MR(i)		((i) * GAUDISIM_NIC_RX_MR_STRIDE)
#define GAUDISIM_NIC_RX_MR_ADDR_LO	0x00	/* + GAUDISIM_NIC_RX_MR(i) */
#define GAUDISIM_NIC_RX_MR_ADDR_HI	0x04
#define GAUDISIM_NIC_RX_MR_SIZE_LO	0x08	/* bytes */
#define GAUDISIM_NIC_RX_MR_SIZE_HI	0x0C
#define GAUDISIM_NIC_RX_MR_SOB_FIRST	0x10
#define GAUDISIM_NIC_RX_MR_SOB_COUNT	0x14
#define GAUDISIM_NIC_RX_MR_CTRL		0x18
#define GAUDISIM_NIC_RX_MR_VALID	(1u << 0)
#define GAUDISIM_NIC_RX_MR_ASID_SHIFT	8
#define GAUDISIM_NIC_RX_MR_ASID_MASK	0xffu

/* RO counters since reset; 64-bit ones are LO/HI, read LO first. */
#define GAUDISIM_NIC_TX_BYTES_LO	0x200
#define GAUDISIM_NIC_TX_BYTES_HI	0x204
#define GAUDISIM_NIC_RX_BYTES_LO	0x208
#define GAUDISIM_NIC_RX_BYTES_HI	0x20C
#define GAUDISIM_NIC_TX_XFERS		0x210	/* transfers completed */
#define GAUDISIM_NIC_RX_XFERS		0x214	/* transfers accepted */
#define GAUDISIM_NIC_TX_ERRS		0x218	/* transfers failed */
#define GAUDISIM_NIC_RX_REFUSED		0x21C	/* incoming writes refused */
#define GAUDISIM_NIC_LINK_DOWN_CNT	0x220	/* up -> down transitions */

/* Engine error codes (ENG_STATUS [15:8], ENGINE_ERR events). */
#define GAUDISIM_NIC_ERR_NONE		0
#define GAUDISIM_NIC_ERR_LINK_DOWN	1	/* not cabled, or the link is cut */
#define GAUDISIM_NIC_ERR_SIZE		2	/* SIZE above GAUDISIM_NIC_MAX_XFER */
#define GAUDISIM_NIC_ERR_LOCAL_ADDR	3	/* source outside HBM/SRAM */
#define GAUDISIM_NIC_ERR_REMOTE_ACCESS	4	/* not registered on the peer */
#define GAUDISIM_NIC_ERR_REMOTE_RESET	5	/* the peer was reset or went away */

/*
 * Intra-box topology: port p (< GAUDISIM_NIC_INTRA_PORTS) of module m
 * links to module (p < m ? p : p + 1), which reaches m back through port
 * (m < peer ? m : m - 1). Returns -1 for a scale-out port.
 */
static inline int gaudisim_nic_intra_peer(unsigned int module, unsigned int port)
{
	if (port >= GAUDISIM_NIC_INTRA_PORTS)
		return -1;
	return (int)(port < module ? port : port + 1);
}

/* The port of module m that links to module peer (m != peer, both < 8). */
static inline int gaudisim_nic_port_to(unsigned int module, unsigned int peer)
{
	if (module == peer || module >= GAUDISIM_NIC_MAX_MODULES ||
	    peer >= GAUDISIM_NIC_MAX_MODULES)
		return -1;
	return (int)(peer < module ? peer : peer - 1);
}

#endif /* GAUDISIM_HW_NIC_H */
