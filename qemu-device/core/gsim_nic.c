/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the NIC ports (hw/gaudisim_hw_nic.h).
 *
 * Each port is an engine with its own QMAN. A launch (TX_COMMIT) is one
 * RDMA-style write: SIZE bytes of local HBM or SRAM go to the HBM of the
 * device at the other end of the port's link (gsim_fabric.c finds it),
 * then one sync-object update is applied on that device's sync manager.
 * The receiving port checks its RX window and SOB range first and refuses
 * the whole write when either is violated: nothing is written, the
 * receiver posts NIC_ERR, the sender's launch fails with REMOTE_ACCESS.
 *
 * Launches are synchronous on the owner thread (gsim_fabric.h has the
 * threading rule): when launch() returns, the payload is in the peer's
 * HBM and the SOB update has run, so the core's completion message, which
 * follows, is ordered after both. A launch from a CB that fails also fails
 * that CB's packet (GAUDISIM_CP_ERR_ENGINE), so a job sending over a cut
 * link ends in an error instead of waiting for a signal that never comes.
 */
#include <inttypes.h>
#include <string.h>

#include "gsim_core_internal.h"
#include "gsim_nic.h"
#include "gsim_telemetry.h"
#include "hw/gaudisim_hw_pkt_legal.h"

static struct gsim_nic_port *nic_port(struct gsim_core *core, unsigned int e)
{
	return &core->nic[e - GAUDISIM_ENGINE_NIC_0];
}

static void nic_reset(struct gsim_core *core, unsigned int e)
{
	*nic_port(core, e) = (struct gsim_nic_port){ 0 };
}

static bool nic_reg_read(struct gsim_core *core, unsigned int e, uint32_t off, uint32_t *value)
{
	struct gsim_nic_port *p = nic_port(core, e);

	switch (off) {
	case GAUDISIM_NIC_LINK_STATUS:
		*value = gsim_fabric_link_status(core, e - GAUDISIM_ENGINE_NIC_0);
		return true;
	case GAUDISIM_NIC_TX_SRC_LO:
		*value = p->tx_src_lo;
		return true;
	case GAUDISIM_NIC_TX_SRC_HI:
		*value = p->tx_src_hi;
		return true;
	case GAUDISIM_NIC_TX_DST_LO:
		*value = p->tx_dst_lo;
		return true;
	case GAUDISIM_NIC_TX_DST_HI:
		*value = p->tx_dst_hi;
		return true;
	case GAUDISIM_NIC_TX_SIZE:
		*value = p->tx_size;
		return true;
	case GAUDISIM_NIC_TX_REMOTE_SOB:
		*value = p->tx_remote_sob;
		return true;
	case GAUDISIM_NIC_TX_REMOTE_SOB_DATA:
		*value = p->tx_remote_sob_data;
		return true;
	case GAUDISIM_NIC_TX_COMMIT:
		*value = 0;
		return true;
	case GAUDISIM_NIC_RX_WIN_BASE_LO:
		*value = (uint32_t)p->rx_win_base;
		return true;
	case GAUDISIM_NIC_RX_WIN_BASE_HI:
		*value = (uint32_t)(p->rx_win_base >> 32);
		return true;
	case GAUDISIM_NIC_RX_WIN_SIZE_LO:
		*value = (uint32_t)p->rx_win_size;
		return true;
	case GAUDISIM_NIC_RX_WIN_SIZE_HI:
		*value = (uint32_t)(p->rx_win_size >> 32);
		return true;
	case GAUDISIM_NIC_RX_SOB_FIRST:
		*value = p->rx_sob_first;
		return true;
	case GAUDISIM_NIC_RX_SOB_COUNT:
		*value = p->rx_sob_count;
		return true;
	case GAUDISIM_NIC_RX_ENABLE:
		*value = p->rx_enable;
		return true;
	case GAUDISIM_NIC_TX_BYTES_LO:
		p->tx_bytes_hi_latch = (uint32_t)(p->tx_bytes >> 32);
		*value = (uint32_t)p->tx_bytes;
		return true;
	case GAUDISIM_NIC_TX_BYTES_HI:
		*value = p->tx_bytes_hi_latch;
		return true;
	case GAUDISIM_NIC_RX_BYTES_LO:
		p->rx_bytes_hi_latch = (uint32_t)(p->rx_bytes >> 32);
		*value = (uint32_t)p->rx_bytes;
		return true;
	case GAUDISIM_NIC_RX_BYTES_HI:
		*value = p->rx_bytes_hi_latch;
		return true;
	case GAUDISIM_NIC_TX_XFERS:
		*value = p->tx_xfers;
		return true;
	case GAUDISIM_NIC_RX_XFERS:
		*value = p->rx_xfers;
		return true;
	case GAUDISIM_NIC_TX_ERRS:
		*value = p->tx_errs;
		return true;
	case GAUDISIM_NIC_RX_REFUSED:
		*value = p->rx_refused;
		return true;
	case GAUDISIM_NIC_LINK_DOWN_CNT:
		*value = p->link_down_cnt;
		return true;
	default:
		return false;
	}
}

static void set_lo(uint64_t *v, uint32_t lo)
{
	*v = (*v & ~0xffffffffull) | lo;
}

static void set_hi(uint64_t *v, uint32_t hi)
{
	*v = (*v & 0xffffffffull) | (uint64_t)hi << 32;
}

/* The receive side belongs to the driver: MMIO only. */
static enum gsim_reg_status rx_write(struct gsim_core *core, unsigned int e,
				     struct gsim_nic_port *p, uint32_t off, uint32_t value)
{
	switch (off) {
	case GAUDISIM_NIC_RX_WIN_BASE_LO:
		set_lo(&p->rx_win_base, value);
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_WIN_BASE_HI:
		set_hi(&p->rx_win_base, value);
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_WIN_SIZE_LO:
		set_lo(&p->rx_win_size, value);
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_WIN_SIZE_HI:
		set_hi(&p->rx_win_size, value);
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_SOB_FIRST:
	case GAUDISIM_NIC_RX_SOB_COUNT:
		if (value > GAUDISIM_SYNC_NUM_SOBS) {
			gsim_log(core, "%s: RX_SOB_%s %u: there are %u sync objects",
				 gsim_engine_name(e),
				 off == GAUDISIM_NIC_RX_SOB_FIRST ? "FIRST" : "COUNT", value,
				 GAUDISIM_SYNC_NUM_SOBS);
			return GSIM_REG_BAD_VALUE;
		}
		if (off == GAUDISIM_NIC_RX_SOB_FIRST)
			p->rx_sob_first = value;
		else
			p->rx_sob_count = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_ENABLE:
		if (value & ~1u) {
			gsim_log(core, "%s: RX_ENABLE 0x%x: only bit 0 exists",
				 gsim_engine_name(e), value);
			return GSIM_REG_BAD_VALUE;
		}
		p->rx_enable = value;
		return GSIM_REG_OK;
	default:
		return GSIM_REG_UNKNOWN;
	}
}

static enum gsim_reg_status nic_reg_write(struct gsim_core *core, unsigned int e, uint32_t off,
					  uint32_t value, enum gsim_reg_origin origin,
					  bool *launch)
{
	struct gsim_nic_port *p = nic_port(core, e);

	switch (off) {
	case GAUDISIM_NIC_TX_SRC_LO:
		p->tx_src_lo = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_TX_SRC_HI:
		p->tx_src_hi = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_TX_DST_LO:
		p->tx_dst_lo = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_TX_DST_HI:
		p->tx_dst_hi = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_TX_SIZE:
		/* Checked at launch, which fails with ERR_SIZE. */
		p->tx_size = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_TX_REMOTE_SOB:
		if (value & ~(GAUDISIM_NIC_TX_REMOTE_SOB_EN | GAUDISIM_NIC_TX_REMOTE_SOB_MASK)) {
			if (origin == GSIM_ORIGIN_MMIO)
				gsim_log(core, "%s: TX_REMOTE_SOB 0x%x: reserved bits set",
					 gsim_engine_name(e), value);
			return GSIM_REG_BAD_VALUE;
		}
		p->tx_remote_sob = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_TX_REMOTE_SOB_DATA:
		p->tx_remote_sob_data = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_TX_COMMIT:
		if (value != 1) {
			if (origin == GSIM_ORIGIN_MMIO)
				gsim_log(core, "%s: TX_COMMIT 0x%x: write 1 to launch",
					 gsim_engine_name(e), value);
			return GSIM_REG_BAD_VALUE;
		}
		*launch = true;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_LINK_STATUS:
	case GAUDISIM_NIC_TX_BYTES_LO:
	case GAUDISIM_NIC_TX_BYTES_HI:
	case GAUDISIM_NIC_RX_BYTES_LO:
	case GAUDISIM_NIC_RX_BYTES_HI:
	case GAUDISIM_NIC_TX_XFERS:
	case GAUDISIM_NIC_RX_XFERS:
	case GAUDISIM_NIC_TX_ERRS:
	case GAUDISIM_NIC_RX_REFUSED:
	case GAUDISIM_NIC_LINK_DOWN_CNT:
		return GSIM_REG_READ_ONLY;
	default:
		break;
	}
	if (off >= GAUDISIM_NIC_RX_WIN_BASE_LO && off <= GAUDISIM_NIC_RX_ENABLE) {
		/* A job must not open its device to peers. */
		if (origin == GSIM_ORIGIN_CB)
			return GSIM_REG_PROTECTED;
		return rx_write(core, e, p, off, value);
	}
	return GSIM_REG_UNKNOWN;
}

/* [dst, dst + size) inside the port's receive window and inside HBM. */
static bool in_window(const struct gsim_core *core, const struct gsim_nic_port *p,
		      uint64_t dst, uint64_t size)
{
	if (dst < p->rx_win_base || size > p->rx_win_size ||
	    dst - p->rx_win_base > p->rx_win_size - size)
		return false;
	/* HBM starts at device address 0 (GAUDISIM_HBM_BASE). */
	return size <= core->hbm_size && dst - GAUDISIM_HBM_BASE <= core->hbm_size - size;
}

/* ---- receive registrations (GAUDISIM_BLOCK_NIC_RX) ------------------------ */

void gsim_nic_rx_reset(struct gsim_core *core)
{
	memset(core->nic_mr, 0, sizeof(core->nic_mr));
}

bool gsim_nic_rx_reg_read(struct gsim_core *core, uint32_t off, uint32_t *value)
{
	const struct gsim_nic_mr *mr;

	*value = 0;
	if (off >= GAUDISIM_NIC_RX_MR(GAUDISIM_NIC_RX_NUM_MR))
		return false;
	mr = &core->nic_mr[off / GAUDISIM_NIC_RX_MR_STRIDE];
	switch (off % GAUDISIM_NIC_RX_MR_STRIDE) {
	case GAUDISIM_NIC_RX_MR_ADDR_LO:
		*value = (uint32_t)mr->addr;
		return true;
	case GAUDISIM_NIC_RX_MR_ADDR_HI:
		*value = (uint32_t)(mr->addr >> 32);
		return true;
	case GAUDISIM_NIC_RX_MR_SIZE_LO:
		*value = (uint32_t)mr->size;
		return true;
	case GAUDISIM_NIC_RX_MR_SIZE_HI:
		*value = (uint32_t)(mr->size >> 32);
		return true;
	case GAUDISIM_NIC_RX_MR_SOB_FIRST:
		*value = mr->sob_first;
		return true;
	case GAUDISIM_NIC_RX_MR_SOB_COUNT:
		*value = mr->sob_count;
		return true;
	case GAUDISIM_NIC_RX_MR_CTRL:
		*value = mr->ctrl;
		return true;
	default:
		return false;
	}
}

enum gsim_reg_status gsim_nic_rx_reg_write(struct gsim_core *core, uint32_t off,
					   uint32_t value, enum gsim_reg_origin origin,
					   unsigned int *kick)
{
	const uint32_t ctrl_bits = GAUDISIM_NIC_RX_MR_VALID |
		GAUDISIM_NIC_RX_MR_ASID_MASK << GAUDISIM_NIC_RX_MR_ASID_SHIFT;
	struct gsim_nic_mr *mr;
	unsigned int i;

	(void)kick;
	if (off >= GAUDISIM_NIC_RX_MR(GAUDISIM_NIC_RX_NUM_MR))
		return GSIM_REG_UNKNOWN;
	/* A job must not open its device to peers: the driver registers. */
	if (origin == GSIM_ORIGIN_CB)
		return GSIM_REG_PROTECTED;
	i = off / GAUDISIM_NIC_RX_MR_STRIDE;
	mr = &core->nic_mr[i];
	switch (off % GAUDISIM_NIC_RX_MR_STRIDE) {
	case GAUDISIM_NIC_RX_MR_ADDR_LO:
		set_lo(&mr->addr, value);
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_MR_ADDR_HI:
		set_hi(&mr->addr, value);
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_MR_SIZE_LO:
		set_lo(&mr->size, value);
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_MR_SIZE_HI:
		set_hi(&mr->size, value);
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_MR_SOB_FIRST:
	case GAUDISIM_NIC_RX_MR_SOB_COUNT:
		if (value > GAUDISIM_SYNC_NUM_SOBS) {
			gsim_log(core, "NIC RX registration %u: SOB_%s %u: there are %u sync "
				 "objects", i, off % GAUDISIM_NIC_RX_MR_STRIDE ==
				 GAUDISIM_NIC_RX_MR_SOB_FIRST ? "FIRST" : "COUNT", value,
				 GAUDISIM_SYNC_NUM_SOBS);
			return GSIM_REG_BAD_VALUE;
		}
		if (off % GAUDISIM_NIC_RX_MR_STRIDE == GAUDISIM_NIC_RX_MR_SOB_FIRST)
			mr->sob_first = value;
		else
			mr->sob_count = value;
		return GSIM_REG_OK;
	case GAUDISIM_NIC_RX_MR_CTRL:
		if (value & ~ctrl_bits) {
			gsim_log(core, "NIC RX registration %u: CTRL 0x%x: reserved bits set",
				 i, value);
			return GSIM_REG_BAD_VALUE;
		}
		mr->ctrl = value;
		return GSIM_REG_OK;
	default:
		return GSIM_REG_UNKNOWN;
	}
}

/* [dst, dst + size) inside the HBM range of one valid registration. */
static bool mr_covers(const struct gsim_core *core, uint64_t dst, uint64_t size)
{
	unsigned int i;

	for (i = 0; i < GAUDISIM_NIC_RX_NUM_MR; i++) {
		const struct gsim_nic_mr *mr = &core->nic_mr[i];

		if ((mr->ctrl & GAUDISIM_NIC_RX_MR_VALID) && dst >= mr->addr &&
		    size <= mr->size && dst - mr->addr <= mr->size - size)
			return true;
	}
	return false;
}

/* SOB sob inside the SOB range of one valid registration. */
static bool mr_covers_sob(const struct gsim_core *core, unsigned int sob)
{
	unsigned int i;

	for (i = 0; i < GAUDISIM_NIC_RX_NUM_MR; i++) {
		const struct gsim_nic_mr *mr = &core->nic_mr[i];

		if ((mr->ctrl & GAUDISIM_NIC_RX_MR_VALID) && sob >= mr->sob_first &&
		    sob - mr->sob_first < mr->sob_count)
			return true;
	}
	return false;
}

/*
 * Every incoming write, from a cable in the box or a scale-out link:
 * the port's fence first, then the owner's registrations.
 */
static const char *rx_check(const struct gsim_core *core, const struct gsim_nic_port *p,
			    const struct gsim_fabric_write *w)
{
	unsigned int sob = w->sob & GAUDISIM_NIC_TX_REMOTE_SOB_MASK;
	bool sob_en = w->sob & GAUDISIM_NIC_TX_REMOTE_SOB_EN;

	if (!(p->rx_enable & 1))
		return "the port does not receive (RX_ENABLE 0)";
	if (w->size && !in_window(core, p, w->dst, w->size))
		return "the write is outside the receive window";
	if (sob_en && (sob < p->rx_sob_first || sob - p->rx_sob_first >= p->rx_sob_count))
		return "the sync object is outside the receive range";
	if (sob_en && !gaudisim_sob_update_legal(w->sob_data))
		return "the sync-object update is malformed";
	if (w->size && !mr_covers(core, w->dst, w->size))
		return "no registration of the receiver covers the write";
	if (sob_en && !mr_covers_sob(core, sob))
		return "the receiver did not register the sync object";
	return NULL;
}

int gsim_nic_receive(struct gsim_core *core, unsigned int port,
		     const struct gsim_fabric_write *w, const uint8_t *payload)
{
	struct gsim_nic_port *p = &core->nic[port];
	unsigned int e = GAUDISIM_ENGINE_NIC_0 + port, kick = 0;
	unsigned int sob = w->sob & GAUDISIM_NIC_TX_REMOTE_SOB_MASK;
	const char *why;

	/* RESET written, not carried out yet: nothing may land now. */
	if (core->reset_pending)
		return GAUDISIM_NIC_ERR_REMOTE_RESET;
	why = rx_check(core, p, w);
	if (why) {
		struct gsim_event ev = {
			.type = GAUDISIM_EQ_EVENT_NIC_ERR,
			.engine = e,
			.queue = GAUDISIM_EQ_NONE,
			.code = GAUDISIM_NIC_ERR_REMOTE_ACCESS,
			.addr = w->dst,
			.data = { w->src_module, sob },
		};

		p->rx_refused++;
		gsim_log(core, "%s: write of %u bytes to 0x%" PRIx64 " (SOB 0x%x) from module "
			 "%u refused: %s", gsim_engine_name(e), w->size, w->dst, w->sob,
			 w->src_module, why);
		gsim_eq_post_event(core, &ev);
		gsim_eq_flush(core);
		return GAUDISIM_NIC_ERR_REMOTE_ACCESS;
	}
	/* Payload first, then the signal: a FENCE woken by it sees the data. */
	if (w->size)
		memcpy(core->hbm + (w->dst - GAUDISIM_HBM_BASE), payload, w->size);
	p->rx_bytes += w->size;
	p->rx_xfers++;
	if (w->sob & GAUDISIM_NIC_TX_REMOTE_SOB_EN) {
		unsigned int saved = core->requester;

		/* The update itself is checked above; monitors keep their own rights. */
		core->requester = GSIM_REQ_MMIO;
		gsim_sync_reg_write(core, GAUDISIM_SYNC_SOB_OBJ(sob), w->sob_data,
				    GSIM_ORIGIN_CB, &kick);
		core->requester = saved;
	}
	gsim_eq_flush(core);
	if ((kick & GSIM_KICK_RUN) && core->ops.kick)
		core->ops.kick(core->opaque);
	return GAUDISIM_NIC_ERR_NONE;
}

void gsim_nic_link_changed(struct gsim_core *core, unsigned int port, bool up,
			   unsigned int peer_module)
{
	struct gsim_event ev = {
		.type = GAUDISIM_EQ_EVENT_NIC_LINK,
		.engine = GAUDISIM_ENGINE_NIC_0 + port,
		.queue = GAUDISIM_EQ_NONE,
		.code = up,
		.data = { peer_module },
	};

	if (!up)
		core->nic[port].link_down_cnt++;
	gsim_eq_post_event(core, &ev);
	gsim_eq_flush(core);
}

/* A transfer the peer accepted: counters and busy time at line rate. */
static void tx_done(struct gsim_core *core, unsigned int e, uint32_t size)
{
	struct gsim_nic_port *p = nic_port(core, e);

	p->tx_bytes += size;
	p->tx_xfers++;
	gsim_telemetry_engine_busy(core, e, (uint64_t)size * GSIM_TEL_NIC_NS_PER_BYTE_NUM /
				   GSIM_TEL_NIC_NS_PER_BYTE_DEN);
}

static int nic_launch(struct gsim_core *core, unsigned int e)
{
	unsigned int port = e - GAUDISIM_ENGINE_NIC_0, peer_port = 0;
	struct gsim_nic_port *p = nic_port(core, e);
	uint64_t src = (uint64_t)p->tx_src_hi << 32 | p->tx_src_lo;
	struct gsim_fabric_write w = {
		.dst = (uint64_t)p->tx_dst_hi << 32 | p->tx_dst_lo,
		.size = p->tx_size,
		.sob = p->tx_remote_sob,
		.sob_data = p->tx_remote_sob_data,
		.src_module = core->module_id,
	};
	struct gsim_span span = { 0 };
	struct gsim_core *peer;
	int rc;

	if (w.size > GAUDISIM_NIC_MAX_XFER) {
		gsim_log(core, "%s: TX_SIZE %u above the limit of %u bytes", gsim_engine_name(e),
			 w.size, GAUDISIM_NIC_MAX_XFER);
		rc = GAUDISIM_NIC_ERR_SIZE;
		goto failed;
	}
	if (w.size && (!gsim_dma_decode(core, src, w.size, &span) ||
		       (span.rgn != GSIM_RGN_HBM && span.rgn != GSIM_RGN_SRAM))) {
		gsim_log(core, "%s: source 0x%" PRIx64 " + %u is not device memory this "
			 "requester may read", gsim_engine_name(e), src, w.size);
		rc = GAUDISIM_NIC_ERR_LOCAL_ADDR;
		goto failed;
	}
	if (port >= GAUDISIM_NIC_FIRST_SCALEOUT) {
		/* To the other box: the answer completes the launch later. */
		rc = gsim_fabric_remote_send(core, port, &w, span.mem);
		if (rc) {
			gsim_log(core, "%s: scale-out link down, transfer to 0x%" PRIx64
				 " dropped", gsim_engine_name(e), w.dst);
			goto failed;
		}
		p->remote_size = w.size;
		return GSIM_ENGINE_ASYNC;
	}
	peer = gsim_fabric_peer(core, port, &peer_port);
	if (!peer) {
		gsim_log(core, "%s: link down, transfer to 0x%" PRIx64 " dropped",
			 gsim_engine_name(e), w.dst);
		rc = GAUDISIM_NIC_ERR_LINK_DOWN;
		goto failed;
	}
	rc = gsim_nic_receive(peer, peer_port, &w, span.mem);
	if (rc == GAUDISIM_NIC_ERR_REMOTE_RESET)
		gsim_log(core, "%s: the peer is in reset, transfer to 0x%" PRIx64 " dropped",
			 gsim_engine_name(e), w.dst);
	if (rc)
		goto failed;
	tx_done(core, e, w.size);
	if (core->budget)
		gsim_budget_take_bytes(core->budget, w.size);
	return 0;

failed:
	p->tx_errs++;
	return rc;
}

void gsim_nic_remote_done(struct gsim_core *core, unsigned int port, int err)
{
	unsigned int e = GAUDISIM_ENGINE_NIC_0 + port, kick;
	struct gsim_nic_port *p = &core->nic[port];

	/* Reset since it was sent: completes into the void. */
	if (!core->engine[e].running)
		return;
	if (err) {
		p->tx_errs++;
		gsim_log(core, "%s: scale-out transfer of %u bytes failed (NIC error %d)",
			 gsim_engine_name(e), p->remote_size, err);
	} else {
		tx_done(core, e, p->remote_size);
	}
	kick = gsim_engine_done(core, e, gsim_engine_epoch(core, e), err);
	if ((kick & GSIM_KICK_RUN) && core->ops.kick)
		core->ops.kick(core->opaque);
}

const struct gsim_engine_ops gsim_nic_engine_ops = {
	.name = "NIC",
	.reset = nic_reset,
	.reg_read = nic_reg_read,
	.reg_write = nic_reg_write,
	.launch = nic_launch,
	.fail_cb_on_error = true,
};
