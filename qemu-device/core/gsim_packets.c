/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: execution of one command-buffer packet.
 *
 * Every field is checked before anything happens; a packet either
 * completes, yields (a LIN_DMA larger than the remaining work budget
 * continues on the next call, with its progress in s->pkt_done), blocks
 * (FENCE, engine barrier, a LIN_DMA a worker copies), or fails with a GAUDISIM_CP_ERR_* code in
 * s->pkt_err after logging a precise message.
 *
 * Barriers: the CP executes packets strictly in order and every packet's
 * effect (register write, message, transfer) is complete when the next
 * one starts, so RB and MB are always satisfied. EB waits for the stream's
 * engine to be idle: an engine launched asynchronously parks the stream
 * (GSIM_PARK_ENGINE) until it finishes; synchronous launches finish inside
 * the packet that started them.
 *
 * Names, sizes and field positions come from the packet table and layouts
 * in hw/gaudisim_hw_packets.h. Reserved bits and privilege come from the
 * legality table in hw/gaudisim_hw_pkt_legal.h; the driver's parser uses
 * both too: a bit the opcode does not define fails the packet (PKT_FIELD)
 * before anything else; MSG_PROT belongs to the driver and runs only from
 * a CB of a secured (external) CP - the driver built or copied those -
 * never from an internal queue or a CP_DMA'd buffer; CP_DMA is refused on
 * external queues: it would run a buffer the driver never saw with the
 * secured CP's rights (both PRIV). Everything else runs on every queue;
 * LIN_DMA needs a DMA engine. A predicated packet (gaudisim_pkt_has_pred())
 * whose predicate is clear is skipped after the legality checks, before
 * its barriers.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gsim_core_internal.h"
#include "gsim_faults.h"
#include "gsim_mmu.h"
#include "gsim_telemetry.h"
#include "hw/gaudisim_hw_pkt_legal.h"

/* What one packet execution sees. */
struct pkt {
	struct gsim_core *core;
	struct gsim_stream *s;
	struct gsim_frame *f;		/* the frame holding the packet */
	const uint8_t *p;		/* the packet */
	unsigned int opcode;
	uint32_t dw0;
	uint32_t ctl;
	uint32_t size;
	bool jumped;			/* the handler moved f->pc itself */
	struct gsim_budget *budget;
};

static enum gsim_pkt_result fail(struct pkt *k, uint8_t code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum gsim_pkt_result fail(struct pkt *k, uint8_t code, const char *fmt, ...)
{
	char cause[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	gsim_log(k->core, "queue %u: %s 0x%" PRIx64 " offset 0x%x: %s (opcode 0x%x): %s "
		 "(error %u)", k->s->queue_id, k->s->depth ? "CP_DMA buffer" : "CB",
		 k->f->addr, k->f->pc, gaudisim_pkt_name(k->opcode), k->opcode, cause, code);
	k->s->pkt_err = code;
	return GSIM_PKT_ERROR;
}

/* A predicated packet whose predicate is clear: the CP skips it. */
static bool pred_false(const struct pkt *k)
{
	unsigned int pred = k->ctl & GAUDISIM_PKT_CTL_PRED_MASK;

	return gaudisim_pkt_has_pred(k->opcode) && !(k->s->pred & (1u << pred));
}

/* Reserved bits and the queue class, from the legality table. */
static bool legal(struct pkt *k)
{
	enum gaudisim_queue_class qclass = k->s->external && k->s->depth == GSIM_FRAME_CB ?
					   GAUDISIM_QCLASS_SECURED : GAUDISIM_QCLASS_INTERNAL;
	uint32_t ctl_bad = k->ctl & ~gaudisim_pkt_ctl_defined(k->opcode);
	uint32_t dw0_bad = k->dw0 & ~gaudisim_pkt_dw0_defined(k->opcode);

	if (ctl_bad) {
		fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "reserved or unsupported ctl bits 0x%08x",
		     ctl_bad);
		return false;
	}
	if (dw0_bad) {
		fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "reserved dw0 bits 0x%08x", dw0_bad);
		return false;
	}
	if (gaudisim_pkt_allowed(k->opcode, qclass))
		return true;
	if (k->opcode == GAUDISIM_PKT_MSG_PROT)
		fail(k, GAUDISIM_CP_ERR_PRIV, "privileged: only the driver's CBs on external "
		     "queues may use it");
	else
		fail(k, GAUDISIM_CP_ERR_PRIV, "not on an external queue: the buffer would "
		     "bypass the driver's copy of the CB");
	return false;
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
	case GSIM_REG_LAUNCH_FAILED:
		return GAUDISIM_CP_ERR_ENGINE;
	default:
		return GAUDISIM_CP_ERR_PKT_FIELD;
	}
}

/* Write count engine-block registers from reg on, values little-endian at src. */
static enum gsim_pkt_result write_engine_regs(struct pkt *k, uint32_t reg, const uint8_t *src,
					      uint32_t count)
{
	unsigned int kick = 0;
	uint32_t i;

	if (reg % 4 || reg >= GAUDISIM_ENGINE_BLOCK_SIZE ||
	    count > (GAUDISIM_ENGINE_BLOCK_SIZE - reg) / 4)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD,
			    "registers 0x%x + %u x 4 bytes are not inside the engine block "
			    "(aligned, below 0x%x)", reg, count, GAUDISIM_ENGINE_BLOCK_SIZE);
	/* Kick bits need no action: the run loop sees newly runnable streams. */
	for (i = 0; i < count; i++) {
		uint32_t value = gsim_ld_le32(src + 4 * i), r = reg + 4 * i;
		enum gsim_reg_status st;

		st = gsim_regs_write(k->core, GAUDISIM_ENGINE_BLOCK(k->s->engine) + r, value,
				     GSIM_ORIGIN_CB, &kick);
		if (st != GSIM_REG_OK)
			return fail(k, reg_status_err(st, GAUDISIM_CP_ERR_PKT_FIELD),
				    "%s register 0x%x = 0x%x: %s",
				    gsim_engine_name(k->s->engine), r, value,
				    gsim_reg_status_str(st));
	}
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_wreg32(struct pkt *k)
{
	uint8_t value[4];

	gsim_st_le32(value, k->dw0);
	return write_engine_regs(k, k->ctl & GAUDISIM_WREG32_CTL_REG_OFFSET_MASK, value, 1);
}

static enum gsim_pkt_result exec_wreg_bulk(struct pkt *k)
{
	uint32_t size64 = k->dw0 & GAUDISIM_WREG_BULK_SIZE64_MASK;

	return write_engine_regs(k, k->ctl & GAUDISIM_WREG32_CTL_REG_OFFSET_MASK,
				 k->p + offsetof(struct gaudisim_packet_wreg_bulk, values),
				 2 * size64);
}

/* The 32-bit value or the 64-bit timestamp of a MSG_* packet to addr. */
static enum gsim_pkt_result msg_write(struct pkt *k, uint64_t addr, uint32_t value)
{
	struct gsim_stream *s = k->s;
	uint32_t op = (k->ctl & GAUDISIM_MSG_CTL_OP_MASK) >> GAUDISIM_MSG_CTL_OP_SHIFT;
	uint64_t len = op == GAUDISIM_MSG_OP_WRITE_TIMESTAMP ? 8 : 4;
	struct gsim_span span;
	const char *why = "";
	unsigned int kick = 0;
	uint8_t buf[8];
	int rc;

	if (op > GAUDISIM_MSG_OP_WRITE_TIMESTAMP)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "undefined op %u", op);
	if (addr % 4)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD,
			    "address 0x%" PRIx64 " not 4-byte aligned", addr);
	if (!gsim_dma_decode(k->core, addr, len, &span))
		return fail(k, GAUDISIM_CP_ERR_DMA_ADDR,
			    "address 0x%" PRIx64 " is outside HBM, SRAM, CFG and host memory",
			    addr);

	/* An error completion marks the CQ entry written by the first tail packet. */
	if (s->tail_err && s->in_tail && s->depth == GSIM_FRAME_CB &&
	    k->f->pc + GAUDISIM_CB_COMPLETION_TAIL_SIZE == k->f->len)
		value |= GAUDISIM_CQ_ENTRY_ERROR |
			 ((uint32_t)s->tail_err << GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT &
			  GAUDISIM_CQ_ENTRY_ERR_CODE_MASK);

	if (op == GAUDISIM_MSG_OP_WRITE_TIMESTAMP) {
		if (span.rgn == GSIM_RGN_CFG)
			return fail(k, GAUDISIM_CP_ERR_PKT_FIELD,
				    "timestamp write to register 0x%" PRIx64, span.off);
		gsim_st_le64(buf, k->core->ops.clock_ns(k->core->opaque));
		rc = gsim_dma_store(k->core, &span, buf, len);
		if (rc)
			return fail(k, (uint8_t)rc, "host write at 0x%" PRIx64 " failed", addr);
		return GSIM_PKT_NEXT;
	}
	rc = gsim_dev_write32(k->core, addr, value, &kick, &why);
	if (rc)
		return fail(k, (uint8_t)rc, "write of 0x%x to 0x%" PRIx64 " (%s) failed: %s",
			    value, addr, gsim_region_name(span.rgn), why);
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_msg_long(struct pkt *k)
{
	/* MSG_PROT has the same layout. */
	return msg_write(k, gsim_ld_le64(k->p + offsetof(struct gaudisim_packet_msg_long, addr)),
			 k->dw0);
}

static enum gsim_pkt_result exec_msg_short(struct pkt *k)
{
	unsigned int base = (k->ctl & GAUDISIM_MSG_SHORT_CTL_BASE_MASK) >>
			    GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT;
	uint32_t off = k->ctl & GAUDISIM_MSG_SHORT_CTL_OFFSET_MASK;
	uint64_t base_addr;

	base_addr = (uint64_t)k->s->msg_base_hi[base] << 32 | k->s->msg_base_lo[base];
	if (!base_addr)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "CP_MSG_BASE%u of the stream is not "
			    "programmed", base);
	return msg_write(k, base_addr + off, k->dw0);
}

static enum gsim_pkt_result exec_fence(struct pkt *k)
{
	struct gsim_stream *s = k->s;
	unsigned int id = (k->dw0 & GAUDISIM_FENCE_ID_MASK) >> GAUDISIM_FENCE_ID_SHIFT;
	uint32_t target = (k->dw0 & GAUDISIM_FENCE_TARGET_MASK) >> GAUDISIM_FENCE_TARGET_SHIFT;
	uint32_t dec = (k->dw0 & GAUDISIM_FENCE_DEC_VAL_MASK) >> GAUDISIM_FENCE_DEC_VAL_SHIFT;
	/* In a CP_DMA'd buffer: the counters of Gaudi's lower CP. */
	uint32_t *cnt = gsim_stream_fence_cnt(&k->core->qman[s->engine], s, id);

	if (*cnt < target) {
		s->park = GSIM_PARK_FENCE;
		s->wait_fence_id = id;
		s->wait_target = target;
		return GSIM_PKT_BLOCKED;
	}
	/* A decrement larger than the counter stops at zero. */
	*cnt = *cnt > dec ? *cnt - dec : 0;
	return GSIM_PKT_NEXT;
}

static bool is_dma_engine(unsigned int e)
{
	return e <= GAUDISIM_ENGINE_DMA_7;
}

static enum gsim_pkt_result exec_lin_dma(struct pkt *k)
{
	struct gsim_core *core = k->core;
	struct gsim_stream *s = k->s;
	bool fill = k->ctl & GAUDISIM_LIN_DMA_CTL_MEMSET;
	uint32_t tsize = k->dw0;
	uint64_t src = gsim_ld_le64(k->p + offsetof(struct gaudisim_packet_lin_dma, src));
	uint64_t dst = gsim_ld_le64(k->p + offsetof(struct gaudisim_packet_lin_dma, dst)) &
		       GAUDISIM_LIN_DMA_DST_ADDR_MASK;
	uint64_t remaining, chunk;
	struct gsim_span d, sr = { .rgn = GSIM_RGN_CFG };
	const char *why = "";
	unsigned int kick = 0;
	int err;

	if (!is_dma_engine(s->engine))
		return fail(k, GAUDISIM_CP_ERR_UNDEF_OPCODE,
			    "needs a DMA engine; this queue belongs to the %s",
			    gsim_engine_name(s->engine));
	if (!(k->ctl & GAUDISIM_LIN_DMA_CTL_LIN))
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD,
			    "lin bit is 0 (only linear transfers exist)");
	if ((k->ctl & GAUDISIM_LIN_DMA_CTL_WR_COMP_EN) &&
	    !core->engine[s->engine].wr_comp_addr_lo && !core->engine[s->engine].wr_comp_addr_hi)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD,
			    "wr_comp_en, but WR_COMP_ADDR of the %s is not programmed",
			    gsim_engine_name(s->engine));

	if (tsize) {
		if (gsim_dma_protected(core, dst, tsize) ||
		    (!fill && gsim_dma_protected(core, src, tsize)))
			return fail(k, GAUDISIM_CP_ERR_PRIV,
				    "src 0x%" PRIx64 " / dst 0x%" PRIx64 " + 0x%x touches reserved "
				    "HBM, which only the driver's queues may access", src, dst, tsize);
		if (!gsim_dma_decode(core, dst, tsize, &d) || d.rgn == GSIM_RGN_CFG)
			return fail(k, GAUDISIM_CP_ERR_DMA_ADDR,
				    "destination 0x%" PRIx64 " + 0x%x is not inside HBM, SRAM "
				    "or host memory", dst, tsize);
		if (!fill && (!gsim_dma_decode(core, src, tsize, &sr) ||
			      sr.rgn == GSIM_RGN_CFG))
			return fail(k, GAUDISIM_CP_ERR_DMA_ADDR,
				    "source 0x%" PRIx64 " + 0x%x is not inside HBM, SRAM or "
				    "host memory", src, tsize);

		/* An armed uncorrectable ECC error poisons the next job touching HBM. */
		if (!s->pkt_done && (d.rgn == GSIM_RGN_HBM || (!fill && sr.rgn == GSIM_RGN_HBM)) &&
		    gsim_fault_take_hbm_ecc(core))
			return fail(k, GAUDISIM_CP_ERR_ECC,
				    "uncorrectable HBM ECC error (src 0x%" PRIx64 " dst 0x%" PRIx64
				    " size 0x%x)", src, dst, tsize);
		/* Large device-memory transfers of internal queues go to a worker. */
		if (s->pkt_done < tsize &&
		    gsim_dma_offload(core, s, &d, fill ? NULL : &sr, (uint8_t)src, tsize))
			return GSIM_PKT_BLOCKED;
	}
	if (s->pkt_done < tsize) {
		remaining = tsize - s->pkt_done;
		chunk = remaining < k->budget->bytes ? remaining : k->budget->bytes;
		/*
		 * Overlapping device-memory copies behave like memmove only when
		 * done in one go; they are rare, so they ignore the budget.
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
			return fail(k, (uint8_t)err,
				    "host memory access failed (src 0x%" PRIx64 " dst 0x%" PRIx64
				    " size 0x%x, chunk at +0x%" PRIx64 ")", src, dst, tsize,
				    s->pkt_done);
		s->pkt_done += chunk;
		core->dma_bytes += chunk;
		gsim_telemetry_dma_bytes(core, s->engine, chunk);
		gsim_budget_take_bytes(k->budget, chunk);
		if (s->pkt_done < tsize)
			return GSIM_PKT_YIELD;
	}
	if (k->ctl & GAUDISIM_LIN_DMA_CTL_WR_COMP_EN) {
		err = gsim_engine_completion_msg(core, s->engine, &kick, &why);
		if (err)
			return fail(k, (uint8_t)err, "completion message of %s failed: %s",
				    gsim_engine_name(s->engine), why);
	}
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_cp_dma(struct pkt *k)
{
	struct gsim_stream *s = k->s;
	struct gsim_frame *sub = &s->frame[GSIM_FRAME_CP_DMA];
	uint32_t tsize = k->dw0;
	uint64_t src = gsim_ld_le64(k->p + offsetof(struct gaudisim_packet_cp_dma, src));
	struct gsim_span span;
	int rc;

	if (s->depth != GSIM_FRAME_CB)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "CP_DMA inside a CP_DMA'd buffer");
	if (!tsize)
		return GSIM_PKT_NEXT;
	if (tsize % GAUDISIM_PKT_ALIGN || tsize > GSIM_CB_MAX_LEN)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD,
			    "tsize 0x%x is not a multiple of %u up to 0x%x", tsize,
			    GAUDISIM_PKT_ALIGN, GSIM_CB_MAX_LEN);
	/* Device memory, or host memory through the MMU with the queue's ASID. */
	if (!gsim_dma_decode(k->core, src, tsize, &span) ||
	    (span.rgn != GSIM_RGN_HBM && span.rgn != GSIM_RGN_SRAM &&
	     !(span.rgn == GSIM_RGN_HOST && gsim_mmu_is_va(src))))
		return fail(k, GAUDISIM_CP_ERR_DMA_ADDR,
			    "source 0x%" PRIx64 " + 0x%x is not inside HBM, SRAM or device VAs",
			    src, tsize);
	rc = gsim_dma_load(k->core, &span, sub->buf, tsize);
	if (rc)
		return fail(k, (uint8_t)rc, "source 0x%" PRIx64 " + 0x%x: host read failed",
			    src, tsize);
	gsim_budget_take_bytes(k->budget, tsize);
	sub->addr = src;
	sub->len = tsize;
	sub->end = tsize;
	sub->pc = 0;
	memset(sub->loop, 0, sizeof(sub->loop));
	/* The CB's pc moves past the CP_DMA now; the buffer runs next. */
	s->depth = GSIM_FRAME_CP_DMA;
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_repeat(struct pkt *k)
{
	struct gsim_frame *f = k->f;
	bool end = k->dw0 & GAUDISIM_REPEAT_SORE_END;
	unsigned int level = k->dw0 & GAUDISIM_REPEAT_OUTER ? 1 : 0;
	uint32_t count = (k->dw0 & GAUDISIM_REPEAT_COUNT_MASK) >> GAUDISIM_REPEAT_COUNT_SHIFT;
	struct gsim_loop *loop = &f->loop[level], *inner = &f->loop[0];
	const char *name = level ? "outer" : "inner";

	if (!end) {
		if (!count)
			return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "loop count 0");
		if (loop->open)
			return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "%s loop started twice", name);
		if (level && inner->open)
			return fail(k, GAUDISIM_CP_ERR_PKT_FIELD,
				    "outer loop starts inside an inner loop");
		loop->open = true;
		loop->start = f->pc + k->size;
		loop->left = count - 1;
		return GSIM_PKT_NEXT;
	}
	if (count)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "count 0x%x on a loop end", count);
	if (!loop->open)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "%s loop end without a start", name);
	if (level && inner->open)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "outer loop ends inside an inner loop");
	if (loop->left) {
		loop->left--;
		f->pc = loop->start;
		k->jumped = true;
	} else {
		loop->open = false;
	}
	return GSIM_PKT_NEXT;
}

/*
 * Under priority arbitration, may stream s take the arbiter now? It asks
 * first and lets the other streams of the QMAN run up to their own
 * ARB_POINT (a stream released by the same monitor as s reaches it in the
 * same round); then the highest priority asking wins, the lower stream
 * index on a tie.
 */
static bool arb_priority_grant(struct gsim_qman *qm, struct gsim_stream *s, int prio)
{
	unsigned int i;

	if (s->arb_request < 0) {
		s->arb_request = prio;
		return false;
	}
	s->arb_request = prio;
	for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++) {
		const struct gsim_stream *o = &qm->stream[i];

		if (o == s || o->arb_request < 0 || !(qm->glbl_cfg0 & (1u << i)))
			continue;
		if (o->arb_request > prio || (o->arb_request == prio && i < s->index))
			return false;
	}
	s->arb_request = -1;
	return true;
}

static enum gsim_pkt_result exec_arb_point(struct pkt *k)
{
	struct gsim_qman *qm = &k->core->qman[k->s->engine];
	const uint32_t prio_mode = GAUDISIM_QM_ARB_CFG_EN | GAUDISIM_QM_ARB_CFG_TYPE_WRR;

	if (k->dw0 & GAUDISIM_ARB_POINT_RLS) {
		if (qm->arb_owner == (int)k->s->index)
			qm->arb_owner = -1;
		return GSIM_PKT_NEXT;
	}
	/* Only a stream allowed to run gets here: the arbiter is free or ours. */
	if (qm->arb_owner != (int)k->s->index &&
	    (qm->arb_cfg & prio_mode) == GAUDISIM_QM_ARB_CFG_EN &&
	    !arb_priority_grant(qm, k->s, (int)(k->dw0 & GAUDISIM_ARB_POINT_PRIORITY_MASK)))
		return GSIM_PKT_BLOCKED;
	qm->arb_owner = (int)k->s->index;
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_stop(struct pkt *k)
{
	struct gsim_core *core = k->core;
	struct gsim_stream *s = k->s;
	struct gsim_qman *qm = &core->qman[s->engine];

	/* Halt here; enabling the stream again resumes after the STOP. */
	qm->glbl_cfg0 &= ~(1u << s->index);
	s->stopped = true;
	if (qm->arb_owner == (int)s->index)
		qm->arb_owner = -1;
	s->arb_request = -1;
	gsim_eq_post(core, GAUDISIM_EQ_EVENT_QMAN_STOP, s->engine, s->queue_id, 0, k->f->addr);
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result exec_wait(struct pkt *k)
{
	unsigned int id = (k->dw0 & GAUDISIM_WAIT_ID_MASK) >> GAUDISIM_WAIT_ID_SHIFT;
	uint32_t inc = (k->dw0 & GAUDISIM_WAIT_INC_VAL_MASK) >> GAUDISIM_WAIT_INC_VAL_SHIFT;
	uint64_t cycles = k->dw0 & GAUDISIM_WAIT_CYCLES_MASK;

	/* The stream does not stall; the telemetry books the cycles as busy time. */
	if (cycles)
		gsim_telemetry_engine_busy(k->core, k->s->engine,
					   cycles * 1000 / GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	if (k->s->depth == GSIM_FRAME_CP_DMA)
		gsim_qman_lower_fence_add(&k->core->qman[k->s->engine], id, inc);
	else
		gsim_stream_fence_add(k->s, id, inc);
	return GSIM_PKT_NEXT;
}

/*
 * LOAD_AND_EXE's load: the stream's predicates (dst 0) or scalars (dst 1)
 * from src, read with the queue's rights (HBM, SRAM, host memory through
 * the MMU; the physical host window only on a secured CP).
 */
static enum gsim_pkt_result load_pred_or_scalars(struct pkt *k, uint64_t src)
{
	bool scalars = k->dw0 & GAUDISIM_LOAD_AND_EXE_DST;
	uint32_t len = scalars ? GAUDISIM_LOAD_AND_EXE_SCALAR_SIZE : GAUDISIM_LOAD_AND_EXE_PRED_SIZE;
	uint8_t buf[GAUDISIM_LOAD_AND_EXE_PRED_SIZE];
	struct gsim_span span;
	unsigned int i;
	int rc;

	if (src % 4)
		return fail(k, GAUDISIM_CP_ERR_PKT_FIELD, "src 0x%" PRIx64 " not 4-byte aligned",
			    src);
	if (!gsim_dma_decode(k->core, src, len, &span) || span.rgn == GSIM_RGN_CFG)
		return fail(k, GAUDISIM_CP_ERR_DMA_ADDR, "%s at 0x%" PRIx64 " + %u are not inside "
			    "HBM, SRAM or host memory", scalars ? "scalars" : "predicates", src, len);
	rc = gsim_dma_load(k->core, &span, buf, len);
	if (rc)
		return fail(k, (uint8_t)rc, "%s at 0x%" PRIx64 ": read failed",
			    scalars ? "scalars" : "predicates", src);
	gsim_budget_take_bytes(k->budget, len);
	if (scalars) {
		memcpy(k->s->scalars, buf, len);
		return GSIM_PKT_NEXT;
	}
	/* P0 is not loaded: it stays true. */
	k->s->pred = 1;
	for (i = 1; i < GAUDISIM_PKT_NUM_PREDS; i++)
		if (gsim_ld_le32(buf + 4 * i) & 1)
			k->s->pred |= 1u << i;
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result dispatch(struct pkt *k);

/*
 * LOAD_AND_EXE's exe: run the packet held in the scalars (etype 0 at RF0,
 * up to 16 bytes; etype 1 at RF2, 8 bytes). Its barriers, predicate and
 * legality apply as to any packet; one that blocks (FENCE, EB) runs the
 * whole LOAD_AND_EXE again later.
 */
static enum gsim_pkt_result exe_scalars(struct pkt *k)
{
	uint32_t off = k->dw0 & GAUDISIM_LOAD_AND_EXE_ETYPE ? GAUDISIM_LOAD_AND_EXE_UPPER_RF : 0;
	struct pkt in = {
		.core = k->core,
		.s = k->s,
		.f = k->f,
		.p = k->s->scalars + off,
		.budget = k->budget,
	};

	in.dw0 = gsim_ld_le32(in.p + offsetof(struct gaudisim_packet_hdr, dw0));
	in.ctl = gsim_ld_le32(in.p + offsetof(struct gaudisim_packet_hdr, ctl));
	in.opcode = GAUDISIM_PKT_OPCODE(in.ctl);
	in.size = gaudisim_pkt_size(in.dw0, in.ctl);
	if (!in.size)
		return fail(&in, GAUDISIM_CP_ERR_UNDEF_OPCODE, "exe: the scalars at RF%u hold no "
			    "packet (header 0x%08x)", off / 4, in.ctl);
	if (in.size > GAUDISIM_LOAD_AND_EXE_SCALAR_SIZE - off)
		return fail(&in, GAUDISIM_CP_ERR_PKT_OVERRUN, "exe: %u-byte packet does not fit "
			    "in the scalars from RF%u", in.size, off / 4);
	if (in.opcode == GAUDISIM_PKT_CP_DMA || in.opcode == GAUDISIM_PKT_REPEAT ||
	    in.opcode == GAUDISIM_PKT_LOAD_AND_EXE)
		return fail(&in, GAUDISIM_CP_ERR_PKT_FIELD, "exe: may not run from the scalars");
	if (!legal(&in))
		return GSIM_PKT_ERROR;
	if (pred_false(&in))
		return GSIM_PKT_NEXT;
	if ((in.ctl & GAUDISIM_PKT_CTL_EB) && gsim_engine_busy(k->core, k->s->engine)) {
		k->s->park = GSIM_PARK_ENGINE;
		return GSIM_PKT_BLOCKED;
	}
	return dispatch(&in);
}

static enum gsim_pkt_result exec_load_and_exe(struct pkt *k)
{
	uint64_t src = gsim_ld_le64(k->p + offsetof(struct gaudisim_packet_load_and_exe, src));
	enum gsim_pkt_result res;

	if (k->dw0 & GAUDISIM_LOAD_AND_EXE_LOAD) {
		res = load_pred_or_scalars(k, src);
		if (res != GSIM_PKT_NEXT)
			return res;
	}
	if (k->dw0 & GAUDISIM_LOAD_AND_EXE_EXE)
		return exe_scalars(k);
	return GSIM_PKT_NEXT;
}

static enum gsim_pkt_result dispatch(struct pkt *k)
{
	switch (k->opcode) {
	case GAUDISIM_PKT_WREG_32:
		return exec_wreg32(k);
	case GAUDISIM_PKT_WREG_BULK:
		return exec_wreg_bulk(k);
	case GAUDISIM_PKT_MSG_LONG:
	case GAUDISIM_PKT_MSG_PROT:
		return exec_msg_long(k);
	case GAUDISIM_PKT_MSG_SHORT:
		return exec_msg_short(k);
	case GAUDISIM_PKT_CP_DMA:
		return exec_cp_dma(k);
	case GAUDISIM_PKT_REPEAT:
		return exec_repeat(k);
	case GAUDISIM_PKT_FENCE:
		return exec_fence(k);
	case GAUDISIM_PKT_LIN_DMA:
		return exec_lin_dma(k);
	case GAUDISIM_PKT_NOP:
		return GSIM_PKT_NEXT;
	case GAUDISIM_PKT_STOP:
		return exec_stop(k);
	case GAUDISIM_PKT_ARB_POINT:
		return exec_arb_point(k);
	case GAUDISIM_PKT_WAIT:
		return exec_wait(k);
	default: /* GAUDISIM_PKT_LOAD_AND_EXE */
		return exec_load_and_exe(k);
	}
}

enum gsim_pkt_result gsim_pkt_exec(struct gsim_core *core, struct gsim_stream *s,
				   struct gsim_budget *budget)
{
	struct gsim_frame *f = gsim_stream_frame(s);
	struct pkt k = {
		.core = core,
		.s = s,
		.f = f,
		.p = f->buf + f->pc,
		.budget = budget,
	};
	enum gsim_pkt_result res;

	k.dw0 = gsim_ld_le32(k.p + offsetof(struct gaudisim_packet_hdr, dw0));
	k.ctl = gsim_ld_le32(k.p + offsetof(struct gaudisim_packet_hdr, ctl));
	k.opcode = GAUDISIM_PKT_OPCODE(k.ctl);
	k.size = gaudisim_pkt_size(k.dw0, k.ctl);
	if (!k.size)
		return fail(&k, GAUDISIM_CP_ERR_UNDEF_OPCODE, "undefined opcode (header 0x%08x)",
			    k.ctl);
	/* pc < end, both multiples of 8: the header itself is always inside. */
	if (k.size > f->end - f->pc)
		return fail(&k, GAUDISIM_CP_ERR_PKT_OVERRUN,
			    "%u-byte packet runs past the end at offset 0x%x", k.size, f->end);
	if (!legal(&k))
		return GSIM_PKT_ERROR;
	if (pred_false(&k)) {
		f->pc += k.size;
		s->pkt_done = 0;
		return GSIM_PKT_NEXT;
	}

	/* Engine barrier: the engine must have finished what it was launched for. */
	if ((k.ctl & GAUDISIM_PKT_CTL_EB) && gsim_engine_busy(core, s->engine)) {
		s->park = GSIM_PARK_ENGINE;
		return GSIM_PKT_BLOCKED;
	}
	s->park = GSIM_PARK_NONE;

	res = dispatch(&k);
	if (res == GSIM_PKT_NEXT) {
		if (!k.jumped)
			f->pc += k.size;
		s->pkt_done = 0;
	}
	return res;
}
