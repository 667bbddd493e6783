/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the command processor of one QMAN stream.
 *
 * A stream is a resumable state machine: fetch the PQ entry at CI, fetch
 * the CB it describes into the stream's own buffer, execute its packets.
 * Its place (frame, pc, loops, LIN_DMA progress, park reason) survives
 * across gsim_core_run() calls, so a FENCE or an engine barrier can park
 * it mid-CB and a large DMA can be split over several calls. CI advances
 * once a CB has finished.
 *
 * External queues (the PCI-DMA QMANs, secured CPs) run CBs from anywhere
 * and may end them with the driver's completion tail. Internal queues
 * (HBM-DMA, MME, TPC) fetch their PQ from host memory too, as on Gaudi;
 * their CBs are in HBM, in SRAM or in host memory at a device VA, read
 * through the device MMU with the queue's ASID (never at a physical host
 * address), and there is no completion tail: they signal through the sync
 * manager.
 *
 * A CP_DMA pushes a second frame (the lower CP's buffer); when it ends,
 * the CB continues after the CP_DMA packet.
 *
 * Errors in a CB body abandon the body (and any CP_DMA'd buffer); when the
 * BD announces a completion tail, the tail still runs with
 * GAUDISIM_CQ_ENTRY_ERROR and the error code OR-ed into the CQ value, so
 * the job completes with an error. A bad PQ entry, or a CB that cannot be
 * fetched, is counted and skipped: nothing of it can run, so there is no
 * completion for it. Every error also becomes an event-queue entry.
 *
 * Arbitration: the streams of a QMAN share its engine. A stream that runs
 * ARB_POINT takes the QMAN's arbiter and the other streams wait until it
 * releases it (ARB_POINT with rls), its CB ends, it stops or is reset.
 * With priority arbitration enabled (ARB_CFG EN, TYPE 0) the arbiter goes
 * to the highest priority among the streams asking for it at their
 * ARB_POINT (gsim_packets.c).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_core_internal.h"
#include "gsim_faults.h"
#include "gsim_mmu.h"

void gsim_stream_init(struct gsim_stream *s, unsigned int engine, unsigned int index)
{
	uint8_t *bufs[GSIM_NUM_FRAMES];
	unsigned int i;

	for (i = 0; i < GSIM_NUM_FRAMES; i++)
		bufs[i] = s->frame[i].buf;
	memset(s, 0, sizeof(*s));
	for (i = 0; i < GSIM_NUM_FRAMES; i++)
		s->frame[i].buf = bufs[i];
	s->engine = engine;
	s->index = index;
	s->queue_id = gaudisim_engine_queue_id(engine, index);
	s->external = GAUDISIM_QUEUE_IS_EXTERNAL(s->queue_id);
	s->park = GSIM_PARK_NONE;
	s->pred = 1;
	s->arb_request = -1;
}

void gsim_stream_reset(struct gsim_stream *s)
{
	gsim_stream_init(s, s->engine, s->index);
}

int gsim_stream_alloc(struct gsim_stream *s)
{
	unsigned int i;

	/* malloc of 2 MiB is a lazy mapping: untouched pages cost nothing. */
	for (i = 0; i < GSIM_NUM_FRAMES; i++) {
		s->frame[i].buf = malloc(GSIM_CB_MAX_LEN);
		if (!s->frame[i].buf)
			return -1;
	}
	return 0;
}

void gsim_stream_free(struct gsim_stream *s)
{
	unsigned int i;

	for (i = 0; i < GSIM_NUM_FRAMES; i++) {
		free(s->frame[i].buf);
		s->frame[i].buf = NULL;
	}
}

void gsim_qman_reset(struct gsim_qman *qm)
{
	unsigned int i;

	for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++)
		gsim_stream_reset(&qm->stream[i]);
	qm->glbl_cfg0 = 0;
	qm->arb_owner = -1;
	for (i = 0; i < GAUDISIM_QM_NUM_FENCES; i++)
		qm->lower_fence[i] = 0;
	qm->arb_cfg = 0;
	for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++)
		qm->arb_wrr_weight[i] = 0;
	qm->arb_mst_quiet_per = 0;
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
	const struct gsim_qman *qm = &core->qman[s->engine];

	if (core->reset_pending)
		return false;
	if (!(qm->glbl_cfg0 & (1u << s->index)))
		return false;
	/* An injected hang: the engine's CPs make no progress until reset. */
	if (gsim_fault_engine_hung(core, s->engine))
		return false;
	if (qm->arb_owner >= 0 && (unsigned int)qm->arb_owner != s->index)
		return false;
	if (s->park == GSIM_PARK_FENCE)
		return false;
	if (s->park == GSIM_PARK_ENGINE && gsim_engine_busy(core, s->engine))
		return false;
	return s->active || (gsim_stream_entries(s) && s->pi != s->ci);
}

static void fence_cnt_add(uint32_t *cnt, uint32_t value)
{
	*cnt = value > UINT32_MAX - *cnt ? UINT32_MAX : *cnt + value;
}

/* Is the stream parked on a FENCE of Gaudi's lower CP (inside a CP_DMA'd buffer)? */
static bool parked_on_lower_cp(const struct gsim_stream *s)
{
	return s->active && s->depth == GSIM_FRAME_CP_DMA;
}

uint32_t *gsim_stream_fence_cnt(struct gsim_qman *qm, struct gsim_stream *s, unsigned int id)
{
	return parked_on_lower_cp(s) ? &qm->lower_fence[id] : &s->fence[id];
}

bool gsim_stream_fence_add(struct gsim_stream *s, unsigned int fence, uint32_t value)
{
	uint32_t *cnt = &s->fence[fence];

	fence_cnt_add(cnt, value);
	if (s->park != GSIM_PARK_FENCE || parked_on_lower_cp(s) || s->wait_fence_id != fence ||
	    *cnt < s->wait_target)
		return false;
	/* The FENCE packet runs again and consumes the counter itself. */
	s->park = GSIM_PARK_NONE;
	return true;
}

/*
 * Add to a fence of the QMAN's lower CP: every stream parked on it inside a
 * CP_DMA'd buffer whose target is met runs again (the first to run consumes
 * the count; the others park again if it is no longer enough).
 */
bool gsim_qman_lower_fence_add(struct gsim_qman *qm, unsigned int fence, uint32_t value)
{
	bool woke = false;
	unsigned int i;

	fence_cnt_add(&qm->lower_fence[fence], value);
	for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++) {
		struct gsim_stream *s = &qm->stream[i];

		if (s->park != GSIM_PARK_FENCE || !parked_on_lower_cp(s) ||
		    s->wait_fence_id != fence || qm->lower_fence[fence] < s->wait_target)
			continue;
		s->park = GSIM_PARK_NONE;
		woke = true;
	}
	return woke;
}

static void advance_ci(struct gsim_stream *s)
{
	uint32_t entries = gsim_stream_entries(s);

	s->ci = entries ? (s->ci + 1) & (2 * entries - 1) : 0;
}

static void post_error(struct gsim_core *core, const struct gsim_stream *s, uint8_t code,
		       uint64_t addr, uint32_t pc, uint32_t opcode)
{
	struct gsim_event ev = {
		.type = code == GAUDISIM_CP_ERR_DMA_ADDR || code == GAUDISIM_CP_ERR_HOST_FAULT ?
			GAUDISIM_EQ_EVENT_DMA_ERR : GAUDISIM_EQ_EVENT_QMAN_ERR,
		.engine = s->engine,
		.queue = s->queue_id,
		.code = code,
		.addr = addr,
		.data = { pc, opcode },
	};

	gsim_eq_post_event(core, &ev);
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

static void release_arbiter(struct gsim_core *core, struct gsim_stream *s)
{
	struct gsim_qman *qm = &core->qman[s->engine];

	if (qm->arb_owner == (int)s->index)
		qm->arb_owner = -1;
	s->arb_request = -1;
}

static void clear_frames(struct gsim_stream *s)
{
	unsigned int i;

	for (i = 0; i < GSIM_NUM_FRAMES; i++) {
		s->frame[i].pc = 0;
		memset(s->frame[i].loop, 0, sizeof(s->frame[i].loop));
	}
	s->depth = GSIM_FRAME_CB;
}

static void finish_cb(struct gsim_core *core, struct gsim_stream *s)
{
	s->active = false;
	s->park = GSIM_PARK_NONE;
	s->pkt_done = 0;
	clear_frames(s);
	release_arbiter(core, s);
	advance_ci(s);
	core->cb_done_cnt++;
}

/* Skip a PQ entry that cannot run: count, log, post, advance CI. */
static void skip_entry(struct gsim_core *core, struct gsim_stream *s, uint8_t code,
		       uint64_t addr, const char *why)
{
	count_error(core, s, code, addr);
	gsim_log(core, "queue %u: PQ entry %u skipped, no completion: %s (error %u)",
		 s->queue_id, s->ci, why, code);
	post_error(core, s, code, addr, 0, 0);
	advance_ci(s);
}

static uint32_t tail_start(const struct gsim_stream *s)
{
	return s->frame[GSIM_FRAME_CB].len - GAUDISIM_CB_COMPLETION_TAIL_SIZE;
}

/* The error tail must be exactly two MSG_PROTs, the first writing a value. */
static bool tail_usable(const struct gsim_stream *s)
{
	const uint8_t *t = s->frame[GSIM_FRAME_CB].buf + tail_start(s);
	size_t ctl = offsetof(struct gaudisim_packet_msg_prot, ctl);
	uint32_t ctl0 = gsim_ld_le32(t + ctl);
	uint32_t ctl1 = gsim_ld_le32(t + sizeof(struct gaudisim_packet_msg_prot) + ctl);

	return GAUDISIM_PKT_OPCODE(ctl0) == GAUDISIM_PKT_MSG_PROT &&
	       GAUDISIM_PKT_OPCODE(ctl1) == GAUDISIM_PKT_MSG_PROT &&
	       (ctl0 & GAUDISIM_MSG_CTL_OP_MASK) >> GAUDISIM_MSG_CTL_OP_SHIFT ==
	       GAUDISIM_MSG_OP_WRITE_VALUE;
}

static void enter_tail(struct gsim_stream *s)
{
	struct gsim_frame *f = &s->frame[GSIM_FRAME_CB];

	s->in_tail = true;
	f->pc = tail_start(s);
	f->end = f->len;
}

static void packet_failed(struct gsim_core *core, struct gsim_stream *s)
{
	struct gsim_frame *f = gsim_stream_frame(s);
	const uint8_t *pkt = f->buf + f->pc;
	uint32_t ctl = gsim_ld_le32(pkt + offsetof(struct gaudisim_packet_hdr, ctl));
	uint8_t code = s->pkt_err;

	count_error(core, s, code, f->addr);
	post_error(core, s, code, f->addr, f->pc, GAUDISIM_PKT_OPCODE(ctl));
	s->pkt_done = 0;
	s->park = GSIM_PARK_NONE;
	if (s->has_tail && !s->in_tail) {
		if (tail_usable(s)) {
			clear_frames(s);
			s->tail_err = code;
			enter_tail(s);
			return;
		}
		gsim_log(core, "queue %u: CB 0x%" PRIx64 ": no completion, the last %u "
			 "bytes are not two MSG_PROT packets", s->queue_id,
			 s->frame[GSIM_FRAME_CB].addr, GAUDISIM_CB_COMPLETION_TAIL_SIZE);
	}
	finish_cb(core, s);
}

/* Where the CB of an entry may live: anywhere for the secured external CPs;
 * device memory, or host memory at a device VA (the MMU translates it with
 * the queue's ASID), for internal queues. */
static bool cb_region_ok(const struct gsim_stream *s, const struct gsim_span *span,
			 uint64_t ptr)
{
	if (span->rgn == GSIM_RGN_CFG)
		return false;
	if (s->external || span->rgn == GSIM_RGN_HBM || span->rgn == GSIM_RGN_SRAM)
		return true;
	return span->rgn == GSIM_RGN_HOST && gsim_mmu_is_va(ptr);
}

static void load_cb(struct gsim_core *core, struct gsim_stream *s,
		    struct gsim_budget *budget)
{
	struct gsim_frame *f = &s->frame[GSIM_FRAME_CB];
	uint32_t entries = gsim_stream_entries(s);
	uint64_t pq_base = (uint64_t)s->pq_base_hi << 32 | s->pq_base_lo;
	uint64_t bd_bus = pq_base + (uint64_t)(s->ci & (entries - 1)) * GAUDISIM_BD_SIZE;
	uint8_t raw[GAUDISIM_BD_SIZE];
	struct gsim_span span;
	uint32_t ctl, len;
	uint64_t ptr;
	char why[160];
	int rc;

	/* The PQ holds bus addresses the driver gave: read it directly. */
	if (bd_bus < pq_base ||
	    gsim_pcie_dma_read(core, bd_bus, raw, sizeof(raw))) {
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
	if (!s->external && (ctl & GAUDISIM_BD_CTL_COMPLETION_TAIL)) {
		snprintf(why, sizeof(why), "internal queues have no completion tail "
			 "(BD ctl 0x%08x)", ctl);
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
	if (!gsim_dma_decode(core, ptr, len, &span) || !cb_region_ok(s, &span, ptr)) {
		snprintf(why, sizeof(why), "CB 0x%" PRIx64 " + 0x%x is not inside %s", ptr, len,
			 s->external ? "HBM, SRAM or host memory" :
			 "HBM, SRAM or device VAs (internal queue)");
		skip_entry(core, s, GAUDISIM_CP_ERR_CB_FETCH, ptr, why);
		return;
	}
	rc = gsim_dma_load(core, &span, f->buf, len);
	if (rc) {
		/* An MMU fault was posted already; the entry reports it as such. */
		snprintf(why, sizeof(why), "CB 0x%" PRIx64 " + 0x%x: host read failed",
			 ptr, len);
		skip_entry(core, s, rc == GAUDISIM_CP_ERR_MMU_FAULT ? GAUDISIM_CP_ERR_MMU_FAULT :
			   GAUDISIM_CP_ERR_CB_FETCH, ptr, why);
		return;
	}
	gsim_budget_take_bytes(budget, len);

	s->active = true;
	s->park = GSIM_PARK_NONE;
	s->has_tail = (ctl & GAUDISIM_BD_CTL_COMPLETION_TAIL) &&
		      len >= GAUDISIM_CB_COMPLETION_TAIL_SIZE;
	s->in_tail = false;
	s->tail_err = 0;
	s->pkt_done = 0;
	/* A CB never sees the predicates or scalars an earlier one loaded. */
	s->pred = 1;
	memset(s->scalars, 0, sizeof(s->scalars));
	clear_frames(s);
	f->addr = ptr;
	f->len = len;
	f->end = s->has_tail ? len - GAUDISIM_CB_COMPLETION_TAIL_SIZE : len;
}

/* The current frame ran out of packets. */
static void frame_done(struct gsim_core *core, struct gsim_stream *s)
{
	if (s->depth > GSIM_FRAME_CB) {
		/* The CP_DMA'd buffer is done; the CB goes on after its CP_DMA. */
		s->depth--;
		return;
	}
	if (s->has_tail && !s->in_tail)
		enter_tail(s);
	else
		finish_cb(core, s);
}

void gsim_stream_step(struct gsim_core *core, struct gsim_stream *s,
		      struct gsim_budget *budget)
{
	unsigned int saved = core->requester;
	unsigned int slice;

	core->requester = s->queue_id;
	for (slice = 0; slice < GSIM_SLICE_PACKETS && gsim_budget_left(budget) &&
	     gsim_stream_runnable(core, s); slice++) {
		struct gsim_frame *f;

		/* Every iteration costs one unit, so a run always terminates. */
		budget->packets--;
		if (!s->active) {
			load_cb(core, s, budget);
			continue;
		}
		f = gsim_stream_frame(s);
		if (f->pc >= f->end) {
			frame_done(core, s);
			continue;
		}
		switch (gsim_pkt_exec(core, s, budget)) {
		case GSIM_PKT_NEXT:
		case GSIM_PKT_YIELD:
			break;
		case GSIM_PKT_BLOCKED:
			goto out;
		case GSIM_PKT_ERROR:
			packet_failed(core, s);
			break;
		}
	}
out:
	core->requester = saved;
}
