/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the register file of the CFG BAR.
 *
 * Map: the global block at 0 (device description, reset, HBM window,
 * MSI-X request), the EQ, MMU, telemetry, NIC and debug-memory blocks,
 * the engine blocks (engine registers, then the QMAN at
 * +GAUDISIM_QM_OFFSET) and the sync manager. Writes only latch state and
 * return GSIM_KICK_* bits; packets are never executed from here (an
 * engine COMMIT written over MMIO is only latched; the run loop starts
 * it).
 *
 * Command buffers reach this file too (MSG_LONG/MSG_SHORT/MSG_PROT to a
 * CFG address, WREG_32/WREG_BULK, monitor payloads, completion messages).
 * They may write what a job legitimately needs: fence counters (the
 * streams' and the lower CP's), the sync manager, MSIX_REQ (the completion
 * tail; secured requesters only), USER_INTR (a job wakes the process
 * waiting on it), engine registers, the QMANs' arbitration settings
 * (stored only) and the CP_MSG_BASE registers of internal QMANs (users own
 * those CPs). Packets and payloads reach these at Gaudi's addresses too;
 * gsim_dma_decode() turns those into offsets of this map. PQ
 * programming, stream enables, resets, the HBM window, the EQ and the
 * external QMANs' message bases are refused, so a job cannot redirect a
 * queue or reset the device under the driver's feet.
 *
 * HBM_WINDOW_LO/HI: the LO write is latched and the HI write applies both
 * halves at once, so moving the window never passes through a half-updated
 * (possibly invalid) position. Write LO first, then HI.
 */
#include <inttypes.h>

#include "gsim_core_internal.h"
#include "gsim_mmu.h"
#include "gsim_telemetry.h"

#define GSIM_QM_STREAM_ENABLE_MASK	((1u << GAUDISIM_STREAMS_PER_QMAN) - 1)
#define GSIM_QM_FENCE_STRIDE \
	(GAUDISIM_QM_CP_FENCE_RDATA(1, 0) - GAUDISIM_QM_CP_FENCE_RDATA(0, 0))
#define GSIM_QM_MSG_BASE_STRIDE \
	(GAUDISIM_QM_CP_MSG_BASE_LO(1, 0) - GAUDISIM_QM_CP_MSG_BASE_LO(0, 0))
#define GSIM_QM_MSG_BASE_HI_OFF \
	(GAUDISIM_QM_CP_MSG_BASE_HI(0, 0) - GAUDISIM_QM_CP_MSG_BASE_LO(0, 0))

enum qm_reg {
	QM_UNKNOWN,
	QM_GLBL_CFG0,
	QM_GLBL_STS0,
	QM_PQ_BASE_LO,
	QM_PQ_BASE_HI,
	QM_PQ_SIZE,
	QM_PQ_PI,
	QM_PQ_CI,
	QM_FENCE_RDATA,
	QM_FENCE_CNT,
	QM_MSG_BASE_LO,
	QM_MSG_BASE_HI,
	QM_CP_STS,
	QM_ERR_ADDR_LO,
	QM_ERR_ADDR_HI,
	QM_ERR_CNT,
	QM_ARB_OWNER,
	QM_ARB_CFG,
	QM_ARB_WRR_WEIGHT,
	QM_ARB_MST_QUIET_PER,
	QM_LOWER_FENCE_RDATA,	/* Gaudi's CP 4: the fences of CP_DMA'd buffers */
	QM_LOWER_FENCE_CNT,
};

/* Per-stream registers: one 32-bit register per stream, 4 bytes apart. */
static const struct {
	uint32_t base;
	enum qm_reg reg;
} qm_stream_regs[] = {
	{ GAUDISIM_QM_PQ_BASE_LO(0), QM_PQ_BASE_LO },
	{ GAUDISIM_QM_PQ_BASE_HI(0), QM_PQ_BASE_HI },
	{ GAUDISIM_QM_PQ_SIZE(0), QM_PQ_SIZE },
	{ GAUDISIM_QM_PQ_PI(0), QM_PQ_PI },
	{ GAUDISIM_QM_PQ_CI(0), QM_PQ_CI },
	{ GAUDISIM_QM_CP_STS(0), QM_CP_STS },
	{ GAUDISIM_QM_CP_ERR_ADDR_LO(0), QM_ERR_ADDR_LO },
	{ GAUDISIM_QM_CP_ERR_ADDR_HI(0), QM_ERR_ADDR_HI },
	{ GAUDISIM_QM_CP_ERR_CNT(0), QM_ERR_CNT },
	{ GAUDISIM_QM_ARB_WRR_WEIGHT(0), QM_ARB_WRR_WEIGHT },
};

/*
 * Registers indexed by (index, stream): index * stride + 4 * stream from
 * base, with 'count' indices. Returns false outside, or in a gap.
 */
static bool decode_2d(uint32_t r, uint32_t base, uint32_t stride, unsigned int count,
		      unsigned int *index, unsigned int *stream)
{
	const uint32_t span = 4 * GAUDISIM_STREAMS_PER_QMAN;
	uint32_t rel;

	if (r < base || r - base >= stride * count)
		return false;
	rel = r - base;
	if (rel % stride >= span)
		return false;
	*index = rel / stride;
	*stream = (rel % stride) / 4;
	return true;
}

/* Decode an offset inside a QM block into a register, stream and index. */
static enum qm_reg qm_decode(uint32_t r, unsigned int *stream, unsigned int *index)
{
	const uint32_t span = 4 * GAUDISIM_STREAMS_PER_QMAN;
	size_t i;

	*stream = 0;
	*index = 0;
	if (r == GAUDISIM_QM_GLBL_CFG0)
		return QM_GLBL_CFG0;
	if (r == GAUDISIM_QM_GLBL_STS0)
		return QM_GLBL_STS0;
	if (r == GAUDISIM_QM_ARB_OWNER)
		return QM_ARB_OWNER;
	if (r == GAUDISIM_QM_ARB_CFG)
		return QM_ARB_CFG;
	if (r == GAUDISIM_QM_ARB_MST_QUIET_PER)
		return QM_ARB_MST_QUIET_PER;
	for (i = 0; i < sizeof(qm_stream_regs) / sizeof(qm_stream_regs[0]); i++) {
		if (r >= qm_stream_regs[i].base && r < qm_stream_regs[i].base + span) {
			*stream = (r - qm_stream_regs[i].base) / 4;
			return qm_stream_regs[i].reg;
		}
	}
	for (i = 0; i < GAUDISIM_QM_NUM_FENCES; i++) {
		*index = (unsigned int)i;
		if (r == GAUDISIM_QM_CP_FENCE_RDATA(i, GAUDISIM_QM_LOWER_CP))
			return QM_LOWER_FENCE_RDATA;
		if (r == GAUDISIM_QM_CP_FENCE_CNT(i, GAUDISIM_QM_LOWER_CP))
			return QM_LOWER_FENCE_CNT;
	}
	*index = 0;
	if (decode_2d(r, GAUDISIM_QM_CP_FENCE_RDATA(0, 0), GSIM_QM_FENCE_STRIDE,
		      GAUDISIM_QM_NUM_FENCES, index, stream))
		return QM_FENCE_RDATA;
	if (decode_2d(r, GAUDISIM_QM_CP_FENCE_CNT(0, 0), GSIM_QM_FENCE_STRIDE,
		      GAUDISIM_QM_NUM_FENCES, index, stream))
		return QM_FENCE_CNT;
	if (decode_2d(r, GAUDISIM_QM_CP_MSG_BASE_LO(0, 0), GSIM_QM_MSG_BASE_STRIDE,
		      GAUDISIM_QM_NUM_MSG_BASES, index, stream))
		return QM_MSG_BASE_LO;
	if (decode_2d(r, GAUDISIM_QM_CP_MSG_BASE_HI(0, 0), GSIM_QM_MSG_BASE_STRIDE,
		      GAUDISIM_QM_NUM_MSG_BASES, index, stream))
		return QM_MSG_BASE_HI;
	return QM_UNKNOWN;
}

static uint32_t engines_reg(void)
{
	return (uint32_t)GAUDISIM_NUM_PCI_DMA << GAUDISIM_ENGINES_PCI_DMA_SHIFT |
	       (uint32_t)GAUDISIM_NUM_HBM_DMA << GAUDISIM_ENGINES_HBM_DMA_SHIFT |
	       (uint32_t)GAUDISIM_NUM_MME << GAUDISIM_ENGINES_MME_SHIFT |
	       (uint32_t)GAUDISIM_NUM_TPC << GAUDISIM_ENGINES_TPC_SHIFT |
	       (uint32_t)GAUDISIM_STREAMS_PER_QMAN << GAUDISIM_ENGINES_STREAMS_SHIFT |
	       (uint32_t)GAUDISIM_NUM_NIC << GAUDISIM_ENGINES_NIC_SHIFT;
}

/* Bit q of the 128-bit queue mask: every queue ID that names a queue. */
static uint32_t queue_mask_word(unsigned int word)
{
	uint32_t mask = 0;
	unsigned int q;

	for (q = word * 32; q < (word + 1) * 32; q++)
		if (q < GAUDISIM_QUEUE_ID_SIZE && gaudisim_queue_engine(q) >= 0)
			mask |= 1u << (q % 32);
	return mask;
}

/* Word i of a byte string: byte 4i in bits [7:0]. */
static uint32_t bytes_word(const uint8_t *bytes, unsigned int i)
{
	return gsim_ld_le32(bytes + 4 * i);
}

static bool is_serial_reg(uint32_t offset)
{
	return offset >= GAUDISIM_REG_SERIAL(0) &&
	       offset < GAUDISIM_REG_SERIAL(GAUDISIM_SERIAL_WORDS);
}

static bool is_uuid_reg(uint32_t offset)
{
	return offset >= GAUDISIM_REG_UUID(0) && offset < GAUDISIM_REG_UUID(GAUDISIM_UUID_WORDS);
}

/* The identity registers (serial, UUID); false for other offsets. */
static bool identity_read(const struct gsim_core *core, uint32_t offset, uint32_t *value)
{
	if (is_serial_reg(offset)) {
		*value = bytes_word((const uint8_t *)core->serial,
				    (offset - GAUDISIM_REG_SERIAL(0)) / 4);
		return true;
	}
	if (is_uuid_reg(offset)) {
		*value = bytes_word(core->uuid, (offset - GAUDISIM_REG_UUID(0)) / 4);
		return true;
	}
	return false;
}

static uint32_t global_read(struct gsim_core *core, uint32_t offset)
{
	uint32_t value;
	uint64_t now;

	if (gsim_pcie_reg_read(core, offset, &value) || identity_read(core, offset, &value))
		return value;
	switch (offset) {
	case GAUDISIM_REG_ID:
		return GAUDISIM_ID_MAGIC;
	case GAUDISIM_REG_VERSION:
		return (uint32_t)GAUDISIM_HW_VERSION_MAJOR << 16 | GAUDISIM_HW_VERSION_MINOR;
	case GAUDISIM_REG_CAPS:
		return GAUDISIM_CAP_EXT_QUEUES | GAUDISIM_CAP_HBM_WINDOW |
		       GAUDISIM_CAP_INT_QUEUES | GAUDISIM_CAP_SYNC_MNGR |
		       GAUDISIM_CAP_EVENT_QUEUE | GAUDISIM_CAP_NIC;
	case GAUDISIM_REG_HBM_SIZE_LO:
		return (uint32_t)core->hbm_size;
	case GAUDISIM_REG_HBM_SIZE_HI:
		return (uint32_t)(core->hbm_size >> 32);
	case GAUDISIM_REG_SRAM_SIZE:
		return (uint32_t)GAUDISIM_SRAM_SIZE;
	case GAUDISIM_REG_HBM_RESERVED:
		return (uint32_t)GAUDISIM_HBM_RESERVED_SIZE;
	case GAUDISIM_REG_ENGINES:
		return engines_reg();
	case GAUDISIM_REG_QUEUE_MASK_LO:
		return queue_mask_word(0);
	case GAUDISIM_REG_QUEUE_MASK_HI:
		return queue_mask_word(1);
	case GAUDISIM_REG_QUEUE_MASK_HI2:
		return queue_mask_word(2);
	case GAUDISIM_REG_QUEUE_MASK_HI3:
		return queue_mask_word(3);
	case GAUDISIM_REG_MODULE_ID:
		return core->module_id;
	case GAUDISIM_REG_DEV_STATUS:
		return core->reset_pending ? GAUDISIM_DEV_STATUS_IN_RESET
					   : GAUDISIM_DEV_STATUS_READY;
	case GAUDISIM_REG_HW_STATE:
		return core->hw_state;
	case GAUDISIM_REG_TIMESTAMP_LO:
		now = core->ops.clock_ns(core->opaque);
		core->timestamp_hi_latch = (uint32_t)(now >> 32);
		return (uint32_t)now;
	case GAUDISIM_REG_TIMESTAMP_HI:
		return core->timestamp_hi_latch;
	case GAUDISIM_REG_HBM_WINDOW_LO:
		return (uint32_t)core->hbm_window;
	case GAUDISIM_REG_HBM_WINDOW_HI:
		return (uint32_t)(core->hbm_window >> 32);
	case GAUDISIM_REG_HBM_BAR_SIZE_LO:
		return (uint32_t)core->hbm_bar_size;
	case GAUDISIM_REG_HBM_BAR_SIZE_HI:
		return (uint32_t)(core->hbm_bar_size >> 32);
	case GAUDISIM_REG_ERR_PKT_CNT:
		return core->err_pkt_cnt;
	case GAUDISIM_REG_ERR_DMA_CNT:
		return core->err_dma_cnt;
	case GAUDISIM_REG_ERR_PQ_CNT:
		return core->err_pq_cnt;
	case GAUDISIM_REG_DMA_BYTES_LO:
		return (uint32_t)core->dma_bytes;
	case GAUDISIM_REG_DMA_BYTES_HI:
		return (uint32_t)(core->dma_bytes >> 32);
	case GAUDISIM_REG_CB_DONE_CNT:
		return core->cb_done_cnt;
	case GAUDISIM_REG_FW_VERSION:
		return GSIM_FW_VERSION;
	case GAUDISIM_REG_CPLD_VERSION:
		return GSIM_CPLD_VERSION;
	default:
		/* RESET, MSIX_REQ and USER_INTR are write-only; holes read as zero. */
		return 0;
	}
}

static uint32_t cp_sts(const struct gsim_stream *s)
{
	uint32_t v = s->last_err << GAUDISIM_CP_STS_ERR_SHIFT & GAUDISIM_CP_STS_ERR_MASK;

	if (s->active)
		v |= GAUDISIM_CP_STS_BUSY;
	if (s->park == GSIM_PARK_FENCE)
		v |= GAUDISIM_CP_STS_FENCE_WAIT;
	if (s->park == GSIM_PARK_ENGINE)
		v |= GAUDISIM_CP_STS_ENGINE_WAIT;
	if (s->stopped)
		v |= GAUDISIM_CP_STS_STOPPED;
	return v;
}

static uint32_t qm_read(struct gsim_qman *qm, uint32_t r)
{
	unsigned int si, idx, i;
	enum qm_reg reg = qm_decode(r, &si, &idx);
	struct gsim_stream *s = &qm->stream[si];
	uint32_t busy = 0;

	switch (reg) {
	case QM_GLBL_CFG0:
		return qm->glbl_cfg0;
	case QM_GLBL_STS0:
		for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++)
			if (gsim_stream_busy(&qm->stream[i]))
				busy |= 1u << i;
		return busy;
	case QM_ARB_OWNER:
		return qm->arb_owner < 0 ? 0 : GAUDISIM_QM_ARB_OWNER_HELD | (uint32_t)qm->arb_owner;
	case QM_PQ_BASE_LO:
		return s->pq_base_lo;
	case QM_PQ_BASE_HI:
		return s->pq_base_hi;
	case QM_PQ_SIZE:
		return s->pq_size_log2;
	case QM_PQ_PI:
		return s->pi;
	case QM_PQ_CI:
		return s->ci;
	case QM_FENCE_CNT:
		return s->fence[idx];
	case QM_MSG_BASE_LO:
		return s->msg_base_lo[idx];
	case QM_MSG_BASE_HI:
		return s->msg_base_hi[idx];
	case QM_CP_STS:
		return cp_sts(s);
	case QM_ERR_ADDR_LO:
		return (uint32_t)s->err_addr;
	case QM_ERR_ADDR_HI:
		return (uint32_t)(s->err_addr >> 32);
	case QM_ERR_CNT:
		return s->err_cnt;
	case QM_ARB_CFG:
		return qm->arb_cfg;
	case QM_ARB_WRR_WEIGHT:
		return qm->arb_wrr_weight[si];
	case QM_ARB_MST_QUIET_PER:
		return qm->arb_mst_quiet_per;
	case QM_LOWER_FENCE_CNT:
		return qm->lower_fence[idx];
	case QM_LOWER_FENCE_RDATA:	/* write-only */
	case QM_FENCE_RDATA:	/* write-only */
	case QM_UNKNOWN:
		break;
	}
	return 0;
}

/* ---- blocks other than the global, engine and QMAN blocks ----------------- */

static bool mmu_read(struct gsim_core *core, uint32_t off, uint32_t *value)
{
	*value = gsim_mmu_reg_read(core, off);
	return true;
}

static enum gsim_reg_status mmu_write(struct gsim_core *core, uint32_t off, uint32_t value,
				      enum gsim_reg_origin origin, unsigned int *kick)
{
	(void)kick;
	return gsim_mmu_reg_write(core, off, value, origin);
}

static bool telemetry_read(struct gsim_core *core, uint32_t off, uint32_t *value)
{
	*value = gsim_telemetry_reg_read(core, off);
	return true;
}

static enum gsim_reg_status telemetry_write(struct gsim_core *core, uint32_t off,
					    uint32_t value, enum gsim_reg_origin origin,
					    unsigned int *kick)
{
	(void)kick;
	return gsim_telemetry_reg_write(core, off, value, origin);
}

/*
 * Debug memory port: one 32-bit access at dbg_mem_addr, as the host (a
 * secured requester: reserved HBM and the physical host window are open).
 * The status says whether it happened; a failed read returns 0.
 */
static uint32_t dbg_mem_access(struct gsim_core *core, uint32_t *value, bool write)
{
	unsigned int saved = core->requester;
	uint64_t addr = core->dbg_mem_addr;
	struct gsim_span span;
	uint8_t buf[4];
	int rc;

	core->requester = GSIM_REQ_MMIO;
	if (addr % 4 || !gsim_dma_decode(core, addr, sizeof(buf), &span) ||
	    span.rgn == GSIM_RGN_CFG) {
		core->requester = saved;
		return GAUDISIM_CP_ERR_DMA_ADDR;
	}
	if (write) {
		gsim_st_le32(buf, *value);
		rc = gsim_dma_store(core, &span, buf, sizeof(buf));
	} else {
		rc = gsim_dma_load(core, &span, buf, sizeof(buf));
		*value = rc ? 0 : gsim_ld_le32(buf);
	}
	core->requester = saved;
	return (uint32_t)rc;
}

static bool dbg_mem_read(struct gsim_core *core, uint32_t off, uint32_t *value)
{
	switch (off) {
	case GAUDISIM_DBG_MEM_ADDR_LO:
		*value = (uint32_t)core->dbg_mem_addr;
		return true;
	case GAUDISIM_DBG_MEM_ADDR_HI:
		*value = (uint32_t)(core->dbg_mem_addr >> 32);
		return true;
	case GAUDISIM_DBG_MEM_DATA:
		core->dbg_mem_sts = dbg_mem_access(core, value, false);
		if (core->dbg_mem_sts)
			gsim_log(core, "debug memory port: read at 0x%" PRIx64 " failed (error %u)",
				 core->dbg_mem_addr, core->dbg_mem_sts);
		return true;
	case GAUDISIM_DBG_MEM_STS:
		*value = core->dbg_mem_sts;
		return true;
	default:
		*value = 0;
		return false;
	}
}

static enum gsim_reg_status dbg_mem_write(struct gsim_core *core, uint32_t off, uint32_t value,
					  enum gsim_reg_origin origin, unsigned int *kick)
{
	(void)kick;
	/* The driver's window: a job must not read or write through it. */
	if (origin != GSIM_ORIGIN_MMIO)
		return GSIM_REG_PROTECTED;
	switch (off) {
	case GAUDISIM_DBG_MEM_ADDR_LO:
		core->dbg_mem_addr = (core->dbg_mem_addr & ~0xffffffffull) | value;
		return GSIM_REG_OK;
	case GAUDISIM_DBG_MEM_ADDR_HI:
		core->dbg_mem_addr = (uint64_t)value << 32 | (uint32_t)core->dbg_mem_addr;
		return GSIM_REG_OK;
	case GAUDISIM_DBG_MEM_DATA:
		core->dbg_mem_sts = dbg_mem_access(core, &value, true);
		if (core->dbg_mem_sts)
			gsim_log(core, "debug memory port: write at 0x%" PRIx64 " failed (error %u)",
				 core->dbg_mem_addr, core->dbg_mem_sts);
		return GSIM_REG_OK;
	case GAUDISIM_DBG_MEM_STS:
		return GSIM_REG_READ_ONLY;
	default:
		return GSIM_REG_UNKNOWN;
	}
}

static const struct reg_block {
	uint32_t base;
	uint32_t size;
	bool (*read)(struct gsim_core *core, uint32_t off, uint32_t *value);
	enum gsim_reg_status (*write)(struct gsim_core *core, uint32_t off, uint32_t value,
				      enum gsim_reg_origin origin, unsigned int *kick);
} reg_blocks[] = {
	{ GAUDISIM_BLOCK_EQ, GAUDISIM_BLOCK_SIZE, gsim_eq_reg_read, gsim_eq_reg_write },
	{ GAUDISIM_BLOCK_MMU, GAUDISIM_BLOCK_SIZE, mmu_read, mmu_write },
	{ GAUDISIM_BLOCK_TELEMETRY, GAUDISIM_BLOCK_SIZE, telemetry_read, telemetry_write },
	{ GAUDISIM_BLOCK_NIC_RX, GAUDISIM_BLOCK_SIZE, gsim_nic_rx_reg_read,
	  gsim_nic_rx_reg_write },
	{ GAUDISIM_BLOCK_DBG_MEM, GAUDISIM_BLOCK_SIZE, dbg_mem_read, dbg_mem_write },
	{ GAUDISIM_BLOCK_SYNC_MNGR, GAUDISIM_BLOCK_SYNC_MNGR_SIZE, gsim_sync_reg_read,
	  gsim_sync_reg_write },
};

static const struct reg_block *find_block(uint32_t offset)
{
	size_t i;

	for (i = 0; i < sizeof(reg_blocks) / sizeof(reg_blocks[0]); i++)
		if (offset >= reg_blocks[i].base &&
		    offset - reg_blocks[i].base < reg_blocks[i].size)
			return &reg_blocks[i];
	return NULL;
}

/* Engine index of an engine-block offset, with the offset inside the block. */
static bool engine_block(uint32_t offset, unsigned int *e, uint32_t *in_block)
{
	uint32_t rel;

	if (offset < GAUDISIM_ENGINE_BLOCK_BASE)
		return false;
	rel = offset - GAUDISIM_ENGINE_BLOCK_BASE;
	if (rel / GAUDISIM_ENGINE_BLOCK_SIZE >= GAUDISIM_ENGINE_COUNT)
		return false;
	*e = rel / GAUDISIM_ENGINE_BLOCK_SIZE;
	*in_block = rel % GAUDISIM_ENGINE_BLOCK_SIZE;
	return true;
}

uint32_t gsim_core_reg_read(struct gsim_core *core, uint32_t offset)
{
	const struct reg_block *blk;
	uint32_t in_block, value = 0;
	unsigned int e;

	if (offset % 4 || offset >= GAUDISIM_CFG_BAR_SIZE) {
		gsim_log(core, "register read at 0x%x: %s", offset,
			 offset % 4 ? "unaligned offset" : "outside the register BAR");
		gsim_pcie_mmio(core, false);
		return 0;
	}
	if (offset < GAUDISIM_BLOCK_SIZE) {
		value = global_read(core, offset);
	} else if ((blk = find_block(offset))) {
		blk->read(core, offset - blk->base, &value);
	} else if (engine_block(offset, &e, &in_block)) {
		if (in_block >= GAUDISIM_QM_OFFSET)
			value = qm_read(&core->qman[e], in_block - GAUDISIM_QM_OFFSET);
		else
			gsim_engine_reg_read(core, e, in_block, &value);	/* holes: 0 */
	}
	/* A read can bring a model up to date (telemetry) and raise events. */
	gsim_eq_flush(core);
	/* Counted after the read: a counter read returns the count before it. */
	gsim_pcie_mmio(core, false);
	return value;
}

const char *gsim_reg_status_str(enum gsim_reg_status st)
{
	switch (st) {
	case GSIM_REG_OK:
		return "ok";
	case GSIM_REG_UNKNOWN:
		return "no register at this offset";
	case GSIM_REG_READ_ONLY:
		return "read-only register";
	case GSIM_REG_PROTECTED:
		return "register not writable from a command buffer";
	case GSIM_REG_BAD_VALUE:
		return "value refused";
	case GSIM_REG_LAUNCH_FAILED:
		return "the launch failed";
	}
	return "?";
}

static bool global_is_read_only(uint32_t offset)
{
	switch (offset) {
	case GAUDISIM_REG_ID:
	case GAUDISIM_REG_VERSION:
	case GAUDISIM_REG_CAPS:
	case GAUDISIM_REG_HBM_SIZE_LO:
	case GAUDISIM_REG_HBM_SIZE_HI:
	case GAUDISIM_REG_SRAM_SIZE:
	case GAUDISIM_REG_HBM_RESERVED:
	case GAUDISIM_REG_ENGINES:
	case GAUDISIM_REG_QUEUE_MASK_LO:
	case GAUDISIM_REG_QUEUE_MASK_HI:
	case GAUDISIM_REG_QUEUE_MASK_HI2:
	case GAUDISIM_REG_QUEUE_MASK_HI3:
	case GAUDISIM_REG_MODULE_ID:
	case GAUDISIM_REG_DEV_STATUS:
	case GAUDISIM_REG_TIMESTAMP_LO:
	case GAUDISIM_REG_TIMESTAMP_HI:
	case GAUDISIM_REG_HBM_BAR_SIZE_LO:
	case GAUDISIM_REG_HBM_BAR_SIZE_HI:
	case GAUDISIM_REG_ERR_PKT_CNT:
	case GAUDISIM_REG_ERR_DMA_CNT:
	case GAUDISIM_REG_ERR_PQ_CNT:
	case GAUDISIM_REG_DMA_BYTES_LO:
	case GAUDISIM_REG_DMA_BYTES_HI:
	case GAUDISIM_REG_CB_DONE_CNT:
	case GAUDISIM_REG_PCIE_RX_BYTES_LO:
	case GAUDISIM_REG_PCIE_RX_BYTES_HI:
	case GAUDISIM_REG_PCIE_TX_BYTES_LO:
	case GAUDISIM_REG_PCIE_TX_BYTES_HI:
	case GAUDISIM_REG_PCIE_REPLAY_CNT:
	case GAUDISIM_REG_FW_VERSION:
	case GAUDISIM_REG_CPLD_VERSION:
		return true;
	default:
		return is_serial_reg(offset) || is_uuid_reg(offset);
	}
}

/*
 * MSIX_REQ raises any vector, the driver's completion and event ones
 * included, so only secured requesters may: the host, the external CPs
 * (whose CBs the driver vetted or wrote) and monitors the driver armed.
 * A user's internal-queue CB or CB-armed monitor raises USER_INTR instead.
 */
static enum gsim_reg_status msix_request(struct gsim_core *core, uint32_t vector,
					 enum gsim_reg_origin origin)
{
	if (origin == GSIM_ORIGIN_CB && !gsim_requester_secured(core->requester))
		return GSIM_REG_PROTECTED;
	if (vector >= GAUDISIM_MSIX_NUM_VECTORS) {
		if (origin == GSIM_ORIGIN_MMIO)
			gsim_log(core, "MSIX_REQ: vector %u out of range (device has %u)",
				 vector, GAUDISIM_MSIX_NUM_VECTORS);
		return GSIM_REG_BAD_VALUE;
	}
	gsim_pcie_msix(core, vector);
	return GSIM_REG_OK;
}

/*
 * USER_INTR: raise a user interrupt. A CB's refused write fails the CB
 * (PKT_FIELD, counted by the CP like every packet error); a refused MMIO
 * write or monitor payload has nobody to fail, so it is dropped, counted
 * and logged here. A payload is dropped without failing its monitor: the
 * interrupt is the only thing it was for.
 */
static enum gsim_reg_status user_intr(struct gsim_core *core, uint32_t vector,
				      enum gsim_reg_origin origin)
{
	bool payload = core->sync.depth > 0;

	if (vector - GAUDISIM_MSIX_VEC_USER_FIRST < GAUDISIM_MSIX_NUM_USER) {
		gsim_pcie_msix(core, vector);
		return GSIM_REG_OK;
	}
	if (origin == GSIM_ORIGIN_CB && !payload)
		return GSIM_REG_BAD_VALUE;
	core->err_pkt_cnt++;
	gsim_log(core, "USER_INTR: %u is not a user interrupt (vectors %u..%u); %s dropped",
		 vector, GAUDISIM_MSIX_VEC_USER_FIRST,
		 GAUDISIM_MSIX_VEC_USER_FIRST + GAUDISIM_MSIX_NUM_USER - 1,
		 payload ? "monitor payload" : "register write");
	return payload ? GSIM_REG_OK : GSIM_REG_BAD_VALUE;
}

static enum gsim_reg_status window_commit(struct gsim_core *core, uint32_t hi)
{
	uint64_t win = (uint64_t)hi << 32 | core->hbm_window_lo_latch;

	if (win % core->hbm_bar_size || win > core->hbm_size - core->hbm_bar_size) {
		gsim_log(core, "HBM_WINDOW 0x%" PRIx64 " refused: must be a multiple of the "
			 "BAR size 0x%" PRIx64 " and keep the window inside HBM (0x%" PRIx64
			 " bytes)", win, core->hbm_bar_size, core->hbm_size);
		return GSIM_REG_BAD_VALUE;
	}
	core->hbm_window = win;
	return GSIM_REG_OK;
}

static enum gsim_reg_status global_write(struct gsim_core *core, uint32_t offset,
					 uint32_t value, enum gsim_reg_origin origin,
					 unsigned int *kick)
{
	if (offset == GAUDISIM_REG_MSIX_REQ)
		return msix_request(core, value, origin);
	if (offset == GAUDISIM_REG_USER_INTR)
		return user_intr(core, value, origin);
	if (global_is_read_only(offset))
		return GSIM_REG_READ_ONLY;
	switch (offset) {
	case GAUDISIM_REG_HW_STATE:
	case GAUDISIM_REG_RESET:
	case GAUDISIM_REG_HBM_WINDOW_LO:
	case GAUDISIM_REG_HBM_WINDOW_HI:
		if (origin == GSIM_ORIGIN_CB)
			return GSIM_REG_PROTECTED;
		break;
	default:
		return GSIM_REG_UNKNOWN;
	}

	switch (offset) {
	case GAUDISIM_REG_HW_STATE:
		core->hw_state = value;
		return GSIM_REG_OK;
	case GAUDISIM_REG_RESET:
		if (value != GAUDISIM_RESET_HARD) {
			gsim_log(core, "RESET: unknown reset type 0x%x", value);
			return GSIM_REG_BAD_VALUE;
		}
		/* Streams stop now; the caller runs gsim_core_reset(). */
		core->reset_pending = true;
		*kick |= GSIM_KICK_RESET;
		return GSIM_REG_OK;
	case GAUDISIM_REG_HBM_WINDOW_LO:
		core->hbm_window_lo_latch = value;
		return GSIM_REG_OK;
	default: /* GAUDISIM_REG_HBM_WINDOW_HI */
		if (window_commit(core, value) != GSIM_REG_OK)
			return GSIM_REG_BAD_VALUE;
		*kick |= GSIM_KICK_WINDOW;
		return GSIM_REG_OK;
	}
}

/* PQ_BASE/PQ_SIZE may only change while the stream has nothing to do. */
static enum gsim_reg_status pq_config_idle(struct gsim_core *core, struct gsim_stream *s,
					   const char *name)
{
	if (!gsim_stream_busy(s))
		return GSIM_REG_OK;
	gsim_log(core, "queue %u: %s write refused while the stream is busy "
		 "(PI %u CI %u)", s->queue_id, name, s->pi, s->ci);
	return GSIM_REG_BAD_VALUE;
}

static enum gsim_reg_status pq_pi_write(struct gsim_core *core, struct gsim_stream *s,
					uint32_t value)
{
	uint32_t entries = gsim_stream_entries(s);

	if (!entries) {
		gsim_log(core, "queue %u: PQ_PI written before PQ_SIZE", s->queue_id);
		return GSIM_REG_BAD_VALUE;
	}
	if (value >= 2 * entries) {
		gsim_log(core, "queue %u: PQ_PI %u out of range (counts modulo %u)",
			 s->queue_id, value, 2 * entries);
		return GSIM_REG_BAD_VALUE;
	}
	if (((value - s->ci) & (2 * entries - 1)) > entries) {
		gsim_log(core, "queue %u: PQ_PI %u would put more than %u entries "
			 "ahead of CI %u", s->queue_id, value, entries, s->ci);
		return GSIM_REG_BAD_VALUE;
	}
	s->pi = value;
	return GSIM_REG_OK;
}

static enum gsim_reg_status glbl_cfg0_write(struct gsim_core *core, unsigned int e,
					    uint32_t value, unsigned int *kick)
{
	struct gsim_qman *qm = &core->qman[e];
	unsigned int i;

	if (value & ~GSIM_QM_STREAM_ENABLE_MASK) {
		gsim_log(core, "%s QMAN GLBL_CFG0 0x%x: only bits [%u:0] (stream enables) "
			 "exist", gsim_engine_name(e), value, GAUDISIM_STREAMS_PER_QMAN - 1);
		return GSIM_REG_BAD_VALUE;
	}
	qm->glbl_cfg0 = value;
	for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++) {
		/* Enabling a stopped stream resumes it after its STOP. */
		if (value & (1u << i))
			qm->stream[i].stopped = false;
		if (gsim_stream_runnable(core, &qm->stream[i]))
			*kick |= GSIM_KICK_RUN;
	}
	return GSIM_REG_OK;
}

static enum gsim_reg_status qm_write(struct gsim_core *core, unsigned int e, uint32_t r,
				     uint32_t value, enum gsim_reg_origin origin,
				     unsigned int *kick)
{
	struct gsim_qman *qm = &core->qman[e];
	unsigned int si, idx;
	enum qm_reg reg = qm_decode(r, &si, &idx);
	struct gsim_stream *s = &qm->stream[si];
	enum gsim_reg_status st;

	switch (reg) {
	case QM_UNKNOWN:
		return GSIM_REG_UNKNOWN;
	case QM_GLBL_STS0:
	case QM_PQ_CI:
	case QM_FENCE_CNT:
	case QM_LOWER_FENCE_CNT:
	case QM_CP_STS:
	case QM_ERR_ADDR_LO:
	case QM_ERR_ADDR_HI:
	case QM_ERR_CNT:
	case QM_ARB_OWNER:
		return GSIM_REG_READ_ONLY;
	case QM_FENCE_RDATA:
		if (gsim_stream_fence_add(s, idx, value))
			*kick |= GSIM_KICK_RUN;
		return GSIM_REG_OK;
	case QM_LOWER_FENCE_RDATA:
		if (gsim_qman_lower_fence_add(qm, idx, value))
			*kick |= GSIM_KICK_RUN;
		return GSIM_REG_OK;
	default:
		break;
	}
	/* A payload only ever adds to a fence (gsim_sync_rights.c). */
	if (core->requester == GSIM_REQ_SYNC)
		return GSIM_REG_PROTECTED;
	switch (reg) {
	case QM_MSG_BASE_LO:
	case QM_MSG_BASE_HI:
		/* Users own internal CPs; the external ones are the driver's. */
		if (origin == GSIM_ORIGIN_CB && s->external)
			return GSIM_REG_PROTECTED;
		if (reg == QM_MSG_BASE_LO)
			s->msg_base_lo[idx] = value;
		else
			s->msg_base_hi[idx] = value;
		return GSIM_REG_OK;
	/*
	 * Arbitration settings: Gaudi lets user CBs set them. Stored only, so
	 * one context's setting cannot slow another's streams.
	 */
	case QM_ARB_CFG:
		qm->arb_cfg = value;
		return GSIM_REG_OK;
	case QM_ARB_WRR_WEIGHT:
		qm->arb_wrr_weight[si] = value;
		return GSIM_REG_OK;
	case QM_ARB_MST_QUIET_PER:
		qm->arb_mst_quiet_per = value;
		return GSIM_REG_OK;
	default:
		break;
	}
	if (origin == GSIM_ORIGIN_CB)
		return GSIM_REG_PROTECTED;

	switch (reg) {
	case QM_GLBL_CFG0:
		return glbl_cfg0_write(core, e, value, kick);
	case QM_PQ_BASE_LO:
		if (value % GAUDISIM_BD_SIZE) {
			gsim_log(core, "queue %u: PQ_BASE_LO 0x%x not aligned to %u bytes",
				 s->queue_id, value, GAUDISIM_BD_SIZE);
			return GSIM_REG_BAD_VALUE;
		}
		st = pq_config_idle(core, s, "PQ_BASE_LO");
		if (st == GSIM_REG_OK)
			s->pq_base_lo = value;
		return st;
	case QM_PQ_BASE_HI:
		st = pq_config_idle(core, s, "PQ_BASE_HI");
		if (st == GSIM_REG_OK)
			s->pq_base_hi = value;
		return st;
	case QM_PQ_SIZE:
		if (value < GAUDISIM_QM_PQ_SIZE_LOG2_MIN || value > GAUDISIM_QM_PQ_SIZE_LOG2_MAX) {
			gsim_log(core, "queue %u: PQ_SIZE %u out of range (log2 entries, %u..%u)",
				 s->queue_id, value, GAUDISIM_QM_PQ_SIZE_LOG2_MIN,
				 GAUDISIM_QM_PQ_SIZE_LOG2_MAX);
			return GSIM_REG_BAD_VALUE;
		}
		st = pq_config_idle(core, s, "PQ_SIZE");
		if (st != GSIM_REG_OK)
			return st;
		/* A new ring starts empty at entry 0. */
		s->pq_size_log2 = value;
		s->pi = 0;
		s->ci = 0;
		return GSIM_REG_OK;
	case QM_PQ_PI:
		st = pq_pi_write(core, s, value);
		if (st == GSIM_REG_OK && gsim_stream_runnable(core, s))
			*kick |= GSIM_KICK_RUN;
		return st;
	default:
		return GSIM_REG_UNKNOWN;
	}
}

enum gsim_reg_status gsim_regs_write(struct gsim_core *core, uint32_t offset,
				     uint32_t value, enum gsim_reg_origin origin,
				     unsigned int *kick)
{
	const struct reg_block *blk;
	uint32_t in_block;
	unsigned int e;

	if (offset % 4 || offset >= GAUDISIM_CFG_BAR_SIZE)
		return GSIM_REG_UNKNOWN;
	/* A CB-armed monitor's payload: only what its context's rights name. */
	if (core->requester == GSIM_REQ_SYNC && !gsim_sync_payload_reg_ok(core, offset, value))
		return GSIM_REG_PROTECTED;
	if (offset < GAUDISIM_BLOCK_SIZE)
		return global_write(core, offset, value, origin, kick);
	blk = find_block(offset);
	if (blk)
		return blk->write(core, offset - blk->base, value, origin, kick);
	if (!engine_block(offset, &e, &in_block))
		return GSIM_REG_UNKNOWN;
	if (in_block >= GAUDISIM_QM_OFFSET)
		return qm_write(core, e, in_block - GAUDISIM_QM_OFFSET, value, origin, kick);
	return gsim_engine_reg_write(core, e, in_block, value, origin, kick);
}

unsigned int gsim_core_reg_write(struct gsim_core *core, uint32_t offset, uint32_t value)
{
	unsigned int kick = 0;
	enum gsim_reg_status st;

	gsim_pcie_mmio(core, true);
	st = gsim_regs_write(core, offset, value, GSIM_ORIGIN_MMIO, &kick);
	/* Refused values were already reported with their reason. */
	if (st != GSIM_REG_OK && st != GSIM_REG_BAD_VALUE)
		gsim_log(core, "register write 0x%x = 0x%x ignored: %s", offset, value,
			 offset % 4 ? "unaligned offset" : gsim_reg_status_str(st));
	/* A doorbell puts work in flight; a stop or reset takes it away. */
	gsim_engines_note_activity(core);
	/* Events this access caused get their interrupt now. */
	gsim_eq_flush(core);
	return kick;
}
