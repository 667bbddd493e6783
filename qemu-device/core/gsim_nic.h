/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the NIC ports' private state (gsim_nic.c) and the
 * fabric's side of it (gsim_fabric.c). Internal to the core.
 */
#ifndef GSIM_NIC_H
#define GSIM_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "gsim_fabric.h"
#include "hw/gaudisim_hw_nic.h"

struct gsim_core;

/* One NIC port: its registers and counters (hw/gaudisim_hw_nic.h). */
struct gsim_nic_port {
	/* Transfer descriptor. */
	uint32_t tx_src_lo, tx_src_hi;
	uint32_t tx_dst_lo, tx_dst_hi;
	uint32_t tx_size;
	uint32_t tx_remote_sob;
	uint32_t tx_remote_sob_data;
	/* Receive window and SOB range peers may touch (MMIO only). */
	uint64_t rx_win_base;
	uint64_t rx_win_size;
	uint32_t rx_sob_first;
	uint32_t rx_sob_count;
	uint32_t rx_enable;
	/* Counters since reset. */
	uint64_t tx_bytes;
	uint64_t rx_bytes;
	uint32_t tx_xfers;
	uint32_t rx_xfers;
	uint32_t tx_errs;
	uint32_t rx_refused;
	uint32_t link_down_cnt;
	/* HI halves latched by the read of the LO half. */
	uint32_t tx_bytes_hi_latch;
	uint32_t rx_bytes_hi_latch;
	/* Scale-out: bytes of the write waiting for the other box's answer. */
	uint32_t remote_size;
};

/* One receive registration (GAUDISIM_NIC_RX_MR_*): what peers may write. */
struct gsim_nic_mr {
	uint64_t addr, size;
	uint32_t sob_first, sob_count;
	uint32_t ctrl;
};

extern const struct gsim_engine_ops gsim_nic_engine_ops;

/*
 * Receive a write on port 'port' of core: checks the RX window and SOB
 * range and the device's registrations, copies the payload into HBM, then updates the SOB (firing
 * monitors; the core's host is kicked when streams may run). Returns
 * GAUDISIM_NIC_ERR_NONE or the error code the sender fails with; a
 * refused write posts NIC_ERR here and writes nothing.
 */
int gsim_nic_receive(struct gsim_core *core, unsigned int port,
		     const struct gsim_fabric_write *w, const uint8_t *payload);
/* The other box answered the port's write in flight (gsim_fabric_remote_done()). */
void gsim_nic_remote_done(struct gsim_core *core, unsigned int port, int err);
/* The link of port changed: count it and post NIC_LINK (owner thread). */
void gsim_nic_link_changed(struct gsim_core *core, unsigned int port, bool up,
			   unsigned int peer_module);

/* ---- gsim_fabric.c -------------------------------------------------------- */

/* The device and port at the other end of core's port, when the link is up. */
struct gsim_core *gsim_fabric_peer(struct gsim_core *core, unsigned int port,
				   unsigned int *peer_port);
/* LINK_STATUS of core's port (hw/gaudisim_hw_nic.h). */
uint32_t gsim_fabric_link_status(struct gsim_core *core, unsigned int port);
/*
 * Hand a write of a scale-out port to the transport: 0 when it is on its
 * way (gsim_nic_remote_done() follows), else GAUDISIM_NIC_ERR_LINK_DOWN.
 */
int gsim_fabric_remote_send(struct gsim_core *core, unsigned int port,
			    const struct gsim_fabric_write *w, const uint8_t *payload);

#endif /* GSIM_NIC_H */
