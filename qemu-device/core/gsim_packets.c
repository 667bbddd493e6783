/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: execution of one command-buffer packet.
 *
 * The CP executes packets strictly in order, so the EB/RB/MB barrier bits
 * are always satisfied and need no action. Every field is checked before
 * anything happens; a packet either completes, yields (a LIN_DMA larger
 * than the remaining work budget continues on the next call, with its
 * progress in s->pkt_done), blocks (FENCE), or fails with a
 * GAUDISIM_CP_ERR_* code in s->pkt_err after logging a precise message.
 *
 * Opcodes this version refuses on its (external) queues:
 *  - WREG_BULK, CP_DMA, STOP, LOAD_AND_EXE, WAIT -> GAUDISIM_CP_ERR_PRIV:
 *    the driver never lets users put them on an external queue (Gaudi's
 *    parser refuses them with -EPERM) and WAIT only exists on internal
 *    queues, so their presence means a privilege violation;
 *  - MSG_SHORT, REPEAT -> GAUDISIM_CP_ERR_UNDEF_OPCODE: legal on Gaudi,
 *    but they need the sync manager / CB repetition that this version does
 *    not model yet, so the CP treats them as undefined rather than
 *    silently skipping them.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "gsim_core_internal.h"

#define CTL_COMMON	(GAUDISIM_PKT_CTL_OPCODE_MASK | GAUDISIM_PKT_CTL_EB | \
			 GAUDISIM_PKT_CTL_RB | GAUDISIM_PKT_CTL_MB)
#define CTL_MSG		(CTL_COMMON | GAUDISIM_MSG_CTL_WEAKLY_ORDERED | \
			 GAUDISIM_MSG_CTL_NO_SNOOP | GAUDISIM_MSG_CTL_OP_MASK)
#define CTL_WREG32	(CTL_COMMON | GAUDISIM_WREG32_CTL_REG_OFFSET_MASK)
#define CTL_LIN_DMA	(CTL_COMMON | GAUDISIM_LIN_DMA_CTL_SUPPORTED)
#define CTL_ARB_POINT	(CTL_COMMON | 0xffu)	/* priority [7:0]; rls is bit 31 */
#define FENCE_DW0_FIELDS (GAUDISIM_FENCE_DEC_VAL_MASK | GAUDISIM_FENCE_TARGET_MASK | \
			  GAUDISIM_FENCE_ID_MASK)

const char *gsim_pkt_name(unsigned int opcode)
{
	switch (opcode) {
	case GAUDISIM_PKT_WREG_32:
		return "WREG_32";
	case GAUDISIM_PKT_WREG_BULK:
		return "WREG_BULK";
	case GAUDISIM_PKT_MSG_LONG:
		return "MSG_LONG";
	case GAUDISIM_PKT_MSG_SHORT:
		return "MSG_SHORT";
	case GAUDISIM_PKT_CP_DMA:
		return "CP_DMA";
	case GAUDISIM_PKT_REPEAT:
		return "REPEAT";
	case GAUDISIM_PKT_MSG_PROT:
		return "MSG_PROT";
	case GAUDISIM_PKT_FENCE:
		return "FENCE";
	case GAUDISIM_PKT_LIN_DMA:
		return "LIN_DMA";
	case GAUDISIM_PKT_NOP:
		return "NOP";
	case GAUDISIM_PKT_STOP:
		return "STOP";
	case GAUDISIM_PKT_ARB_POINT:
		return "ARB_POINT";
	case GAUDISIM_PKT_WAIT:
		return "WAIT";
	case GAUDISIM_PKT_LOAD_AND_EXE:
		return "LOAD_AND_EXE";
	default:
		return "undefined";
	}
}

static enum gsim_pkt_result pkt_fail(struct gsim_core *core, struct gsim_stream *s,
				     unsigned int opcode, uint8_t code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum gsim_pkt_result pkt_fail(struct gsim_core *core, struct gsim_stream *s,
				     unsigned int opcode, uint8_t code, const char *fmt, ...)
{
	char cause[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	gsim_log(core, "queue %u: CB 0x%" PRIx64 " offset 0x%x: %s (opcode 0x%x): %s "
		 "(error %u)", s->queue_id, s->cb_addr, s->pc, gsim_pkt_name(opcode),
		 opcode, cause, code);
	s->pkt_err = code;
	return GSIM_PKT_ERROR;
}

static enum gsim_pkt_result check_ctl(struct gsim_core *core, struct gsim_stream *s,
				      unsigned int opcode, uint32_t ctl, uint32_t allowed)
{
	if (ctl & ~allowed)
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_PKT_FIELD,
				"reserved or unsupported ctl bits 0x%08x", ctl & ~allowed);
	return GSIM_PKT_NEXT;
}

/* Error code for a register write refused while executing a packet. */
static uint8_t reg_status_err(enum gsim_reg_status st, uint8_t no_register)
{
	switch (st) {
	case GSIM_REG_PROTECTED:
		return GAUDISIM_CP_ERR_PRIV;
	case GSIM_REG_UNKNOWN:
	case GSIM_REG_READ_ONLY:
		return no_register;
	default:
		return GAUDISIM_CP_ERR_PKT_FIELD;
	}
}

static enum gsim_pkt_result exec_wreg32(struct gsim_core *core, struct gsim_stream *s,
					uint32_t value, uint32_t ctl)
{
	uint32_t reg = ctl & GAUDISIM_WREG32_CTL_REG_OFFSET_MASK;
	enum gsim_reg_status st;
	unsigned int kick = 0;

	if (check_ctl(core, s, GAUDISIM_PKT_WREG_32, ctl, CTL_WREG32) != GSIM_PKT_NEXT)
		return GSIM_PKT_ERROR;
	if (reg % 4 || reg >= GAUDISIM_ENGINE_BLOCK_SIZE)
		return pkt_fail(core, s, GAUDISIM_PKT_WREG_32, GAUDISIM_CP_ERR_PKT_FIELD,
				"reg_offset 0x%x is not a register of the engine block "
				"(aligned, below 0x%x)", reg, GAUDISIM_ENGINE_BLOCK_SIZE);
	/* Kick bits need no action: the run loop sees newly runnable streams. */
	st = gsim_regs_write(core, GAUDISIM_ENGINE_BLOCK(s->engine) + reg, value,
			     GSIM_ORIGIN_CB, &kick);
	if (st != GSIM_REG_OK)
		return pkt_fail(core, s, GAUDISIM_PKT_WREG_32,
				reg_status_err(st, GAUDISIM_CP_ERR_PKT_FIELD),
				"engine %u register 0x%x = 0x%x: %s", s->engine, reg, value,
				gsim_reg_status_str(st));
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_msg(struct gsim_core *core, struct gsim_stream *s,
				     unsigned int opcode, const uint8_t *p,
				     uint32_t value, uint32_t ctl)
{
	uint32_t op = (ctl & GAUDISIM_MSG_CTL_OP_MASK) >> GAUDISIM_MSG_CTL_OP_SHIFT;
	uint64_t addr = gsim_ld_le64(p + 8);
	uint64_t len = op == GAUDISIM_MSG_OP_WRITE_TIMESTAMP ? 8 : 4;
	struct gsim_span span;
	enum gsim_reg_status st;
	unsigned int kick = 0;
	uint8_t buf[8];

	if (check_ctl(core, s, opcode, ctl, CTL_MSG) != GSIM_PKT_NEXT)
		return GSIM_PKT_ERROR;
	if (op > GAUDISIM_MSG_OP_WRITE_TIMESTAMP)
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_PKT_FIELD,
				"undefined op %u", op);
	if (addr % 4)
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_PKT_FIELD,
				"address 0x%" PRIx64 " not 4-byte aligned", addr);
	if (!gsim_dma_decode(core, addr, len, &span))
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_DMA_ADDR,
				"address 0x%" PRIx64 " is outside HBM, SRAM, CFG and host "
				"memory", addr);

	/* An error completion marks the CQ entry written by the first tail packet. */
	if (s->tail_err && s->in_tail && s->pc == s->body_end)
		value |= GAUDISIM_CQ_ENTRY_ERROR |
			 ((uint32_t)s->tail_err << GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT &
			  GAUDISIM_CQ_ENTRY_ERR_CODE_MASK);

	if (span.rgn == GSIM_RGN_CFG) {
		if (op == GAUDISIM_MSG_OP_WRITE_TIMESTAMP)
			return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_PKT_FIELD,
					"timestamp write to register 0x%" PRIx64, span.off);
		/* Registers are written internally, never through the host. */
		st = gsim_regs_write(core, (uint32_t)span.off, value, GSIM_ORIGIN_CB, &kick);
		if (st != GSIM_REG_OK)
			return pkt_fail(core, s, opcode,
					reg_status_err(st, GAUDISIM_CP_ERR_DMA_ADDR),
					"register 0x%" PRIx64 " = 0x%x: %s", span.off, value,
					gsim_reg_status_str(st));
		return GSIM_PKT_NEXT;
	}

	if (op == GAUDISIM_MSG_OP_WRITE_TIMESTAMP)
		gsim_st_le64(buf, core->ops.clock_ns(core->opaque));
	else
		gsim_st_le32(buf, value);
	if (gsim_dma_store(core, &span, buf, len))
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_HOST_FAULT,
				"host write at bus address 0x%" PRIx64 " failed", span.off);
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_fence(struct gsim_core *core, struct gsim_stream *s,
				       uint32_t dw0, uint32_t ctl)
{
	unsigned int id = (dw0 & GAUDISIM_FENCE_ID_MASK) >> GAUDISIM_FENCE_ID_SHIFT;
	uint32_t target = (dw0 & GAUDISIM_FENCE_TARGET_MASK) >> GAUDISIM_FENCE_TARGET_SHIFT;
	uint32_t dec = (dw0 & GAUDISIM_FENCE_DEC_VAL_MASK) >> GAUDISIM_FENCE_DEC_VAL_SHIFT;

	if (check_ctl(core, s, GAUDISIM_PKT_FENCE, ctl, CTL_COMMON) != GSIM_PKT_NEXT)
		return GSIM_PKT_ERROR;
	if (dw0 & ~FENCE_DW0_FIELDS)
		return pkt_fail(core, s, GAUDISIM_PKT_FENCE, GAUDISIM_CP_ERR_PKT_FIELD,
				"reserved dw0 bits 0x%08x", dw0 & ~FENCE_DW0_FIELDS);
	if (s->fence[id] < target) {
		s->fence_wait = true;
		s->wait_fence_id = id;
		s->wait_target = target;
		return GSIM_PKT_BLOCKED;
	}
	/* A decrement larger than the counter stops at zero. */
	s->fence[id] = s->fence[id] > dec ? s->fence[id] - dec : 0;
	s->fence_wait = false;
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_lin_dma(struct gsim_core *core, struct gsim_stream *s,
					 const uint8_t *p, uint32_t tsize, uint32_t ctl,
					 struct gsim_budget *budget)
{
	const unsigned int opc = GAUDISIM_PKT_LIN_DMA;
	bool fill = ctl & GAUDISIM_LIN_DMA_CTL_MEMSET;
	uint64_t src = gsim_ld_le64(p + 8);
	uint64_t dst = gsim_ld_le64(p + 16) & GAUDISIM_LIN_DMA_DST_ADDR_MASK;
	uint64_t remaining, chunk;
	struct gsim_span d, sr;
	int err;

	if (check_ctl(core, s, opc, ctl, CTL_LIN_DMA) != GSIM_PKT_NEXT)
		return GSIM_PKT_ERROR;
	if (!(ctl & GAUDISIM_LIN_DMA_CTL_LIN))
		return pkt_fail(core, s, opc, GAUDISIM_CP_ERR_PKT_FIELD,
				"lin bit is 0 (only linear transfers exist)");
	if (!tsize)
		return GSIM_PKT_NEXT;

	if (!gsim_dma_decode(core, dst, tsize, &d) || d.rgn == GSIM_RGN_CFG)
		return pkt_fail(core, s, opc, GAUDISIM_CP_ERR_DMA_ADDR,
				"destination 0x%" PRIx64 " + 0x%x is not inside HBM, SRAM or "
				"host memory", dst, tsize);
	if (!fill && (!gsim_dma_decode(core, src, tsize, &sr) || sr.rgn == GSIM_RGN_CFG))
		return pkt_fail(core, s, opc, GAUDISIM_CP_ERR_DMA_ADDR,
				"source 0x%" PRIx64 " + 0x%x is not inside HBM, SRAM or "
				"host memory", src, tsize);

	remaining = tsize - s->pkt_done;
	chunk = remaining < budget->bytes ? remaining : budget->bytes;
	/*
	 * Overlapping device-memory copies behave like memmove only when done
	 * in one go; they are rare, so they ignore the budget.
	 */
	if (!fill && d.mem && sr.mem &&
	    (uintptr_t)d.mem < (uintptr_t)sr.mem + tsize &&
	    (uintptr_t)sr.mem < (uintptr_t)d.mem + tsize)
		chunk = remaining;
	if (!chunk)
		return GSIM_PKT_YIELD;

	err = fill ? gsim_dma_fill(core, &d, s->pkt_done, (uint8_t)src, chunk)
		   : gsim_dma_copy(core, &d, &sr, s->pkt_done, chunk);
	if (err)
		return pkt_fail(core, s, opc, (uint8_t)err,
				"host memory access failed (src 0x%" PRIx64 " dst 0x%" PRIx64
				" size 0x%x, chunk at +0x%" PRIx64 ")", src, dst, tsize,
				s->pkt_done);
	s->pkt_done += chunk;
	core->dma_bytes += chunk;
	gsim_budget_take_bytes(budget, chunk);
	return s->pkt_done < tsize ? GSIM_PKT_YIELD : GSIM_PKT_NEXT;
}

static uint32_t pkt_size(unsigned int opcode)
{
	switch (opcode) {
	case GAUDISIM_PKT_WREG_32:
		return GAUDISIM_PKT_SIZE_WREG_32;
	case GAUDISIM_PKT_MSG_LONG:
		return GAUDISIM_PKT_SIZE_MSG_LONG;
	case GAUDISIM_PKT_MSG_PROT:
		return GAUDISIM_PKT_SIZE_MSG_PROT;
	case GAUDISIM_PKT_FENCE:
		return GAUDISIM_PKT_SIZE_FENCE;
	case GAUDISIM_PKT_LIN_DMA:
		return GAUDISIM_PKT_SIZE_LIN_DMA;
	case GAUDISIM_PKT_NOP:
		return GAUDISIM_PKT_SIZE_NOP;
	case GAUDISIM_PKT_ARB_POINT:
		return GAUDISIM_PKT_SIZE_ARB_POINT;
	default:
		return 0;
	}
}

enum gsim_pkt_result gsim_pkt_exec(struct gsim_core *core, struct gsim_stream *s,
				   uint32_t end, struct gsim_budget *budget)
{
	const uint8_t *p = s->cb + s->pc;
	uint32_t dw0 = gsim_ld_le32(p);
	uint32_t ctl = gsim_ld_le32(p + 4);
	unsigned int opcode = GAUDISIM_PKT_OPCODE(ctl);
	enum gsim_pkt_result res;
	uint32_t size;

	switch (opcode) {
	case GAUDISIM_PKT_WREG_BULK:
	case GAUDISIM_PKT_CP_DMA:
	case GAUDISIM_PKT_STOP:
	case GAUDISIM_PKT_LOAD_AND_EXE:
	case GAUDISIM_PKT_WAIT:
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_PRIV,
				"not allowed on an external queue");
	case GAUDISIM_PKT_MSG_SHORT:
	case GAUDISIM_PKT_REPEAT:
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_UNDEF_OPCODE,
				"not implemented by this device version");
	default:
		break;
	}
	size = pkt_size(opcode);
	if (!size)
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_UNDEF_OPCODE,
				"undefined opcode (header 0x%08x)", ctl);
	/* s->pc < end, both multiples of 8: the header itself is always inside. */
	if (size > end - s->pc)
		return pkt_fail(core, s, opcode, GAUDISIM_CP_ERR_PKT_OVERRUN,
				"%u-byte packet runs past the end at offset 0x%x", size, end);

	switch (opcode) {
	case GAUDISIM_PKT_NOP:
		res = GSIM_PKT_NEXT;
		break;
	case GAUDISIM_PKT_ARB_POINT:
		/* One stream per arbiter in this model: nothing to arbitrate. */
		res = check_ctl(core, s, opcode, ctl, CTL_ARB_POINT);
		break;
	case GAUDISIM_PKT_WREG_32:
		res = exec_wreg32(core, s, dw0, ctl);
		break;
	case GAUDISIM_PKT_MSG_LONG:
	case GAUDISIM_PKT_MSG_PROT:
		res = exec_msg(core, s, opcode, p, dw0, ctl);
		break;
	case GAUDISIM_PKT_FENCE:
		res = exec_fence(core, s, dw0, ctl);
		break;
	default: /* GAUDISIM_PKT_LIN_DMA */
		res = exec_lin_dma(core, s, p, dw0, ctl, budget);
		break;
	}
	if (res == GSIM_PKT_NEXT) {
		s->pc += size;
		s->pkt_done = 0;
	}
	return res;
}
