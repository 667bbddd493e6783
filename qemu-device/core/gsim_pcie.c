/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the PCIe link to the host, and its traffic
 * counters (GAUDISIM_REG_PCIE_*).
 *
 * Every host-memory access of the device (PQ entries, CBs, LIN_DMA,
 * messages, CQ and EQ entries, MMU-translated host pages) goes through
 * gsim_pcie_dma_read()/_write(), every MSI-X message through
 * gsim_pcie_msix(), and the register BAR's entry points count their own
 * accesses with gsim_pcie_mmio(). Counting here, once, keeps the figures
 * exact whichever engine moved the data.
 *
 * Bytes are counted when the host accepted the access: a DMA the host
 * refused (no bus mastering, an IOMMU fault) moved nothing. An MSI-X
 * message is a 4-byte memory write on the link; it is counted when the
 * device raises the vector. A register read is counted after its data was
 * taken, so reading PCIE_TX_BYTES_LO returns the count before that read.
 */
#include "gsim_core_internal.h"

void gsim_pcie_reset(struct gsim_core *core)
{
	core->pcie = (struct gsim_pcie){ 0 };
}

int gsim_pcie_dma_read(struct gsim_core *core, uint64_t bus, void *buf, uint64_t len)
{
	if (core->ops.dma_read(core->opaque, bus, buf, len))
		return -1;
	core->pcie.rx_bytes += len;
	return 0;
}

int gsim_pcie_dma_write(struct gsim_core *core, uint64_t bus, const void *buf, uint64_t len)
{
	if (core->ops.dma_write(core->opaque, bus, buf, len))
		return -1;
	core->pcie.tx_bytes += len;
	return 0;
}

void gsim_pcie_msix(struct gsim_core *core, unsigned int vector)
{
	core->pcie.tx_bytes += GSIM_PCIE_MSIX_BYTES;
	core->ops.msix_notify(core->opaque, vector);
}

void gsim_pcie_mmio(struct gsim_core *core, bool write)
{
	if (write)
		core->pcie.rx_bytes += 4;
	else
		core->pcie.tx_bytes += 4;
}

void gsim_pcie_add_replays(struct gsim_core *core, uint32_t count)
{
	uint32_t *cnt = &core->pcie.replay_cnt;

	*cnt = count > UINT32_MAX - *cnt ? UINT32_MAX : *cnt + count;
}

uint32_t gsim_pcie_replays(const struct gsim_core *core)
{
	return core->pcie.replay_cnt;
}

/* LO reads latch HI, so a LO-then-HI pair is one consistent 64-bit value. */
static uint32_t counter_lo(uint64_t value, struct gsim_pcie_latch *latch)
{
	latch->valid = true;
	latch->hi = (uint32_t)(value >> 32);
	return (uint32_t)value;
}

static uint32_t counter_hi(uint64_t value, const struct gsim_pcie_latch *latch)
{
	return latch->valid ? latch->hi : (uint32_t)(value >> 32);
}

bool gsim_pcie_reg_read(struct gsim_core *core, uint32_t offset, uint32_t *value)
{
	struct gsim_pcie *p = &core->pcie;

	switch (offset) {
	case GAUDISIM_REG_PCIE_RX_BYTES_LO:
		*value = counter_lo(p->rx_bytes, &p->rx_latch);
		return true;
	case GAUDISIM_REG_PCIE_RX_BYTES_HI:
		*value = counter_hi(p->rx_bytes, &p->rx_latch);
		return true;
	case GAUDISIM_REG_PCIE_TX_BYTES_LO:
		*value = counter_lo(p->tx_bytes, &p->tx_latch);
		return true;
	case GAUDISIM_REG_PCIE_TX_BYTES_HI:
		*value = counter_hi(p->tx_bytes, &p->tx_latch);
		return true;
	case GAUDISIM_REG_PCIE_REPLAY_CNT:
		*value = p->replay_cnt;
		return true;
	default:
		return false;
	}
}
