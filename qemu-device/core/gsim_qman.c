/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the command processor of one QMAN stream.
 *
 * A stream is a resumable state machine: fetch the PQ entry at CI, fetch
 * the CB it describes into the stream's own buffer, execute its packets.
 * Its place (pc, LIN_DMA progress, fence wait) survives across
 * gsim_core_run() calls, so a FENCE can park it mid-CB and a large DMA can
 * be split over several calls. CI advances once a CB has finished.
 *
 * Errors in a CB body abandon the body; when the BD announces a completion
 * tail, the tail still runs with GAUDISIM_CQ_ENTRY_ERROR and the error code
 * OR-ed into the CQ value, so the job completes with an error. A bad PQ
 * entry, or a CB that cannot be fetched, is counted and skipped: nothing
 * of it can run, so there is no completion for it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gsim_core_internal.h"

void gsim_stream_init(struct gsim_stream *s, unsigned int engine, unsigned int index)
{
	memset(s, 0, sizeof(*s));
	s->engine = engine;
	s->index = index;
	s->queue_id = engine * GAUDISIM_STREAMS_PER_QMAN + index;
}

void gsim_stream_reset(struct gsim_stream *s)
{
	uint8_t *cb = s->cb;

	gsim_stream_init(s, s->engine, s->index);
	s->cb = cb;
}

uint32_t gsim_stream_entries(const struct gsim_stream *s)
{
	if (s->pq_size_log2 < GAUDISIM_QM_PQ_SIZE_LOG2_MIN ||
	    s->pq_size_log2 > GAUDISIM_QM_PQ_SIZE_LOG2_MAX)
		return 0;
	return 1u << s->pq_size_log2;
}

bool gsim_stream_busy(const struct gsim_stream *s)
{
	return s->active || s->pi != s->ci;
}

bool gsim_stream_runnable(const struct gsim_core *core, const struct gsim_stream *s)
{
	if (core->reset_pending || s->fence_wait)
		return false;
	if (!(core->qman[s->engine].glbl_cfg0 & (1u << s->index)))
		return false;
	return s->active || (gsim_stream_entries(s) && s->pi != s->ci);
}

bool gsim_stream_fence_add(struct gsim_stream *s, unsigned int fence, uint32_t value)
{
	uint32_t *cnt = &s->fence[fence];

	*cnt = value > UINT32_MAX - *cnt ? UINT32_MAX : *cnt + value;
	if (!s->fence_wait || s->wait_fence_id != fence || *cnt < s->wait_target)
		return false;
	/* The FENCE packet runs again and consumes the counter itself. */
	s->fence_wait = false;
	return true;
}

static void advance_ci(struct gsim_stream *s)
{
	uint32_t entries = gsim_stream_entries(s);

	s->ci = entries ? (s->ci + 1) & (2 * entries - 1) : 0;
}

static void count_error(struct gsim_core *core, struct gsim_stream *s, uint8_t code,
			uint64_t addr)
{
	switch (code) {
	case GAUDISIM_CP_ERR_DMA_ADDR:
	case GAUDISIM_CP_ERR_HOST_FAULT:
		core->err_dma_cnt++;
		break;
	case GAUDISIM_CP_ERR_CB_FETCH:
	case GAUDISIM_CP_ERR_PQ_ENTRY:
		core->err_pq_cnt++;
		break;
	default:
		core->err_pkt_cnt++;
		break;
	}
	s->last_err = code;
	s->err_addr = addr;
	s->err_cnt++;
}

static void finish_cb(struct gsim_core *core, struct gsim_stream *s)
{
	s->active = false;
	s->fence_wait = false;
	s->pkt_done = 0;
	advance_ci(s);
	core->cb_done_cnt++;
}

/* Skip a PQ entry that cannot run: count, log, advance CI. */
static void skip_entry(struct gsim_core *core, struct gsim_stream *s, uint8_t code,
		       uint64_t addr, const char *why)
{
	count_error(core, s, code, addr);
	gsim_log(core, "queue %u: PQ entry %u skipped, no completion: %s (error %u)",
		 s->queue_id, s->ci, why, code);
	advance_ci(s);
}

/* The error tail must be exactly two MSG_PROTs, the first writing a value. */
static bool tail_usable(const struct gsim_stream *s)
{
	const uint8_t *t = s->cb + s->body_end;
	uint32_t ctl0 = gsim_ld_le32(t + 4);
	uint32_t ctl1 = gsim_ld_le32(t + GAUDISIM_PKT_SIZE_MSG_PROT + 4);

	return GAUDISIM_PKT_OPCODE(ctl0) == GAUDISIM_PKT_MSG_PROT &&
	       GAUDISIM_PKT_OPCODE(ctl1) == GAUDISIM_PKT_MSG_PROT &&
	       (ctl0 & GAUDISIM_MSG_CTL_OP_MASK) >> GAUDISIM_MSG_CTL_OP_SHIFT ==
	       GAUDISIM_MSG_OP_WRITE_VALUE;
}

static void packet_failed(struct gsim_core *core, struct gsim_stream *s)
{
	uint8_t code = s->pkt_err;

	count_error(core, s, code, s->cb_addr);
	s->pkt_done = 0;
	if (s->has_tail && !s->in_tail) {
		if (tail_usable(s)) {
			s->in_tail = true;
			s->tail_err = code;
			s->pc = s->body_end;
			return;
		}
		gsim_log(core, "queue %u: CB 0x%" PRIx64 ": no completion, the last %u "
			 "bytes are not two MSG_PROT packets", s->queue_id, s->cb_addr,
			 GAUDISIM_CB_COMPLETION_TAIL_SIZE);
	}
	finish_cb(core, s);
}

static void load_cb(struct gsim_core *core, struct gsim_stream *s,
		    struct gsim_budget *budget)
{
	uint32_t entries = gsim_stream_entries(s);
	uint64_t pq_base = (uint64_t)s->pq_base_hi << 32 | s->pq_base_lo;
	uint64_t bd_bus = pq_base + (uint64_t)(s->ci & (entries - 1)) * GAUDISIM_BD_SIZE;
	uint8_t raw[GAUDISIM_BD_SIZE];
	struct gsim_span span;
	uint32_t ctl, len;
	uint64_t ptr;
	char why[160];

	if (bd_bus < pq_base ||
	    core->ops.dma_read(core->opaque, bd_bus, raw, sizeof(raw))) {
		snprintf(why, sizeof(why), "cannot read the entry at bus address 0x%" PRIx64,
			 bd_bus);
		skip_entry(core, s, GAUDISIM_CP_ERR_PQ_ENTRY, bd_bus, why);
		return;
	}
	ctl = gsim_ld_le32(raw);
	len = gsim_ld_le32(raw + 4);
	ptr = gsim_ld_le64(raw + 8);

	if (ctl & GAUDISIM_BD_CTL_RESERVED_MASK) {
		snprintf(why, sizeof(why), "reserved ctl bits 0x%08x set",
			 ctl & GAUDISIM_BD_CTL_RESERVED_MASK);
		skip_entry(core, s, GAUDISIM_CP_ERR_PQ_ENTRY, ptr, why);
		return;
	}
	if (len < GAUDISIM_PKT_ALIGN || len % GAUDISIM_PKT_ALIGN || len > GSIM_CB_MAX_LEN) {
		snprintf(why, sizeof(why), "CB 0x%" PRIx64 " length %u is not a multiple "
			 "of %u between %u and %u", ptr, len, GAUDISIM_PKT_ALIGN,
			 GAUDISIM_PKT_ALIGN, GSIM_CB_MAX_LEN);
		skip_entry(core, s, GAUDISIM_CP_ERR_CB_FETCH, ptr, why);
		return;
	}
	if (!gsim_dma_decode(core, ptr, len, &span) || span.rgn == GSIM_RGN_CFG) {
		snprintf(why, sizeof(why), "CB 0x%" PRIx64 " + 0x%x is not inside HBM, "
			 "SRAM or host memory", ptr, len);
		skip_entry(core, s, GAUDISIM_CP_ERR_CB_FETCH, ptr, why);
		return;
	}
	if (span.mem) {
		memcpy(s->cb, span.mem, len);
	} else if (core->ops.dma_read(core->opaque, span.off, s->cb, len)) {
		snprintf(why, sizeof(why), "CB 0x%" PRIx64 " + 0x%x: host read failed",
			 ptr, len);
		skip_entry(core, s, GAUDISIM_CP_ERR_CB_FETCH, ptr, why);
		return;
	}
	gsim_budget_take_bytes(budget, len);

	s->active = true;
	s->cb_addr = ptr;
	s->cb_len = len;
	s->has_tail = (ctl & GAUDISIM_BD_CTL_COMPLETION_TAIL) &&
		      len >= GAUDISIM_CB_COMPLETION_TAIL_SIZE;
	s->body_end = s->has_tail ? len - GAUDISIM_CB_COMPLETION_TAIL_SIZE : len;
	s->in_tail = false;
	s->tail_err = 0;
	s->pc = 0;
	s->pkt_done = 0;
}

void gsim_stream_step(struct gsim_core *core, struct gsim_stream *s,
		      struct gsim_budget *budget)
{
	unsigned int slice;

	for (slice = 0; slice < GSIM_SLICE_PACKETS && gsim_budget_left(budget) &&
	     gsim_stream_runnable(core, s); slice++) {
		uint32_t end;

		/* Every iteration costs one unit, so a run always terminates. */
		budget->packets--;
		if (!s->active) {
			load_cb(core, s, budget);
			continue;
		}
		end = s->in_tail ? s->cb_len : s->body_end;
		if (s->pc >= end) {
			if (s->has_tail && !s->in_tail)
				s->in_tail = true;
			else
				finish_cb(core, s);
			continue;
		}
		switch (gsim_pkt_exec(core, s, end, budget)) {
		case GSIM_PKT_NEXT:
		case GSIM_PKT_YIELD:
			break;
		case GSIM_PKT_BLOCKED:
			return;
		case GSIM_PKT_ERROR:
			packet_failed(core, s);
			break;
		}
	}
}
